/* An OpenMP program for the GPU check (scripts/gpu-check.sh) that times its
 * kernels, to compare device code linked with full and partitioned device
 * LTO.  Four kernels of different shapes, in three units:
 *   stencil    SPMD (teams distribute parallel for), a 3-point stencil over
 *              32 MB;
 *   reduction  SPMD, two 64-bit sums over 2^24 computed values;
 *   generic    generic mode (teams distribute, then parallel for): per row, a
 *              sequential part calls row_weight (omp-timing-lib.c), then the
 *              threads compute the row;
 *   fptable    SPMD, calls through the static const table of function
 *              pointers of omp-timing-ops.c (ops_apply).
 * Every element spends its time in rounds of mix() (omp-timing.h), so that a
 * launch takes milliseconds on an H100.  The data stays on the device; each
 * target region is timed with omp_get_wtime(), 3 warm-up launches, then the
 * best of 20, printed as "time <kernel> <microseconds>".  Then the device's
 * results are checked against the host's ("<kernel>: ok" or "WRONG"; exit
 * status 0 when all are ok); where the runtime finds no device it says "no
 * device" and exits 3.  An argument N divides the rounds by N (a quick run on
 * a CPU device). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include "omp-timing.h"

enum { N = 1 << 23, ROWS = 4096, COLS = N / ROWS, RED_N = 1 << MIX_BITS, WARMUP = 3, LAUNCHES = 20 };

static unsigned *in, *out, weights[ROWS];
static unsigned long long sum, sumsq;
static int rounds_stencil = 1024, rounds_reduction = 512, rounds_row = 256, rounds_generic = 1024,
	   rounds_fptable = 1024;

static unsigned stencil_at(const unsigned *a, int i, int rounds)
{
	return mix(a[i - 1] ^ (a[i] << 1) ^ (a[i + 1] >> 1), 1664525u, 1013904223u, rounds);
}

static void stencil(void)
{
	unsigned *a = in, *b = out;
	int r = rounds_stencil;
#pragma omp target teams distribute parallel for map(to: a[0:N]) map(from: b[0:N]) firstprivate(r)
	for (int i = 1; i < N - 1; i++)
		b[i] = stencil_at(a, i, r);
}

static void reduction(void)
{
	unsigned long long s = 0, sq = 0;
	int r = rounds_reduction;
#pragma omp target teams distribute parallel for reduction(+: s, sq) firstprivate(r)
	for (int i = 0; i < RED_N; i++) {
		unsigned v = mix((unsigned)i, 747796405u, 2891336453u, r);
		s += v;
		sq += (unsigned long long)v * v;
	}
	sum = s;
	sumsq = sq;
}

static void generic(void)
{
	unsigned *a = in, *b = out, *w = weights;
	int rw = rounds_row, r = rounds_generic;
#pragma omp target teams distribute map(to: a[0:N]) map(from: b[0:N], w[0:ROWS]) firstprivate(rw, r)
	for (int row = 0; row < ROWS; row++) {
		unsigned weight = row_weight((unsigned)row, rw);
		w[row] = weight;
#pragma omp parallel for
		for (int c = 0; c < COLS; c++)
			b[row * COLS + c] = mix(a[row * COLS + c] + weight, 69069u, 1u, r);
	}
}

static void fptable(void)
{
	unsigned *a = in, *b = out;
	int r = rounds_fptable;
#pragma omp target teams distribute parallel for map(to: a[0:N]) map(from: b[0:N]) firstprivate(r)
	for (int i = 0; i < N; i++)
		b[i] = ops_apply((unsigned)i >> 10, a[i], r);
}

/* Launches a kernel WARMUP times, then LAUNCHES times, and prints the best. */
static void time_kernel(const char *name, void (*kernel)(void))
{
	double best = 0;
	for (int k = 0; k < WARMUP; k++)
		kernel();
	for (int k = 0; k < LAUNCHES; k++) {
		double t0 = omp_get_wtime();
		kernel();
		double t = omp_get_wtime() - t0;
		if (k == 0 || t < best)
			best = t;
	}
	printf("time %s %.1f\n", name, best * 1e6);
	fflush(stdout);
}

/* Copies out back from the device. */
static void fetch_out(void)
{
	unsigned *b = out;
#pragma omp target update from(b[0:N])
}

/* Clears out, here and on the device, for the next kernel. */
static void clear_out(void)
{
	unsigned *b = out;
	for (int i = 0; i < N; i++)
		b[i] = 0;
#pragma omp target update to(b[0:N])
}

/* Compares out[first..last) at every 4093rd index and the last with the
 * host's value, expected(i). */
static int check(const char *name, int first, int last, unsigned (*expected)(int))
{
	for (int i = first; i < last; i = i + 4093 < last || i == last - 1 ? i + 4093 : last - 1) {
		unsigned want = expected(i);
		if (out[i] != want) {
			printf("%s: WRONG at [%d]: %u, expected %u\n", name, i, out[i], want);
			return 1;
		}
	}
	printf("%s: ok\n", name);
	return 0;
}

static unsigned host_stencil(int i) { return stencil_at(in, i, rounds_stencil); }
static unsigned host_generic(int i)
{
	unsigned weight = row_weight((unsigned)(i / COLS), rounds_row);
	return mix(in[i] + weight, 69069u, 1u, rounds_generic);
}
static unsigned host_fptable(int i) { return ops_apply((unsigned)i >> 10, in[i], rounds_fptable); }

int main(int argc, char **argv)
{
	int devices = omp_get_num_devices(), on_host = 1, wrong = 0, div = argc > 1 ? atoi(argv[1]) : 1;
	unsigned long long want_sum = 0, want_sumsq = 0;

	if (devices < 1) {
		printf("no device: omp_get_num_devices() = %d\n", devices);
		return 3;
	}
	if (div > 1) {
		rounds_stencil /= div;
		rounds_reduction /= div;
		rounds_row /= div;
		rounds_generic /= div;
		rounds_fptable /= div;
	}
	in = malloc(N * sizeof *in);
	out = calloc(N, sizeof *out);
	if (!in || !out) {
		printf("out of memory\n");
		return 2;
	}
	for (int i = 0; i < N; i++)
		in[i] = ((unsigned)i * 2654435761u) >> 8;
#pragma omp target map(from: on_host)
	on_host = omp_is_initial_device();
	wrong += on_host != 0;
	printf("target region on the initial device %d: %s\n", on_host, on_host ? "WRONG" : "ok");

	unsigned *a = in, *b = out, *w = weights;
#pragma omp target enter data map(to: a[0:N], b[0:N], w[0:ROWS])

	time_kernel("stencil", stencil);
	fetch_out();
	wrong += check("stencil", 1, N - 1, host_stencil);
	clear_out();

	time_kernel("reduction", reduction);
	/* mix is a bijection of [0, RED_N): the sums of its values are those
	 * of 0 .. RED_N - 1. */
	for (unsigned long long i = 0; i < RED_N; i++) {
		want_sum += i;
		want_sumsq += i * i;
	}
	if (sum == want_sum && sumsq == want_sumsq) {
		printf("reduction %llu %llu: ok\n", sum, sumsq);
	} else {
		printf("reduction %llu %llu, expected %llu %llu: WRONG\n", sum, sumsq, want_sum, want_sumsq);
		wrong++;
	}

	time_kernel("generic", generic);
	fetch_out();
	{
		int bad = -1;
#pragma omp target update from(w[0:ROWS])
		for (int row = 0; row < ROWS && bad < 0; row++)
			if (weights[row] != row_weight((unsigned)row, rounds_row))
				bad = row;
		if (bad >= 0) {
			printf("generic weights: WRONG at [%d]: %u, expected %u\n", bad, weights[bad],
			       row_weight((unsigned)bad, rounds_row));
			wrong++;
		} else {
			printf("generic weights: ok\n");
		}
	}
	wrong += check("generic", 0, N, host_generic);
	clear_out();

	time_kernel("fptable", fptable);
	fetch_out();
	wrong += check("fptable", 0, N, host_fptable);

#pragma omp target exit data map(delete: a[0:N], b[0:N], w[0:ROWS])
	free(in);
	free(out);
	return wrong ? 1 : 0;
}
