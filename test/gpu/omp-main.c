/* An OpenMP program for the GPU check (scripts/gpu-check.sh): target regions
 * calling a declare-target function and global of another translation unit,
 * a reduction, data moved both ways.  It checks the device's results against
 * the host's and says "ok" or "WRONG" for each (exit status 0 when all are
 * ok); where the runtime finds no device it says "no device" and exits 3. */
#include <omp.h>
#include <stdio.h>

#pragma omp declare target
extern int bias;
int lib_scale(int x);
#pragma omp end declare target

enum { N = 1 << 20 };
static int values[N];

/* lib_scale as the host computes it, for the expected results. */
static int host_scale(int x, int with_bias) { return 3 * x * x + with_bias; }

static int report(const char *what, long long got, long long expected)
{
	if (got == expected) {
		printf("%s %lld: ok\n", what, got);
		return 0;
	}
	printf("%s %lld, expected %lld: WRONG\n", what, got, expected);
	return 1;
}

int main(void)
{
	long long sum = 0, expected_sum = 0;
	int on_host = 1, devices = omp_get_num_devices(), wrong = 0;

	if (devices < 1) {
		printf("no device: omp_get_num_devices() = %d\n", devices);
		return 3;
	}
#pragma omp target map(from: on_host)
	on_host = omp_is_initial_device();
#pragma omp target teams distribute parallel for map(from: values)
	for (int i = 0; i < N; i++)
		values[i] = lib_scale(i % 1000);
#pragma omp target teams distribute parallel for reduction(+: sum) map(to: values)
	for (int i = 0; i < N; i++)
		sum += values[i];
	bias = 5;
#pragma omp target update to(bias)
#pragma omp target
	bias = bias * 2 + lib_scale(1);
#pragma omp target update from(bias)

	for (int i = 0; i < N; i++)
		expected_sum += host_scale(i % 1000, 1);
	wrong += report("target region on the initial device", on_host, 0);
	wrong += report("values[999]", values[999], host_scale(999, 1));
	wrong += report("checksum", sum, expected_sum);
	wrong += report("bias", bias, 5 * 2 + host_scale(1, 5));
	return wrong ? 1 : 0;
}
