/*
 * hello-offload: the smallest program that shows an OpenMP offloading link
 * worked.  The target region runs on the "device" (with
 * -fopenmp-targets=x86_64-unknown-linux-gnu that is the host CPU, driven by
 * libomptarget's CPU plugin), and it only gets there if the linker wrapper
 * linked the device image and registered it with the runtime.  Without a
 * registered image the runtime either stops the program or, under
 * OMP_TARGET_OFFLOAD=default, runs the region on the host: then
 * omp_is_initial_device() is 1 and we report failure.
 *
 *   clang-19 -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu \
 *       -B build/libexec/offload-link hello-offload.c -o hello-offload
 *   LD_LIBRARY_PATH=/usr/lib/llvm-19/lib ./hello-offload
 */
#include <omp.h>
#include <stdio.h>

#define N 1000

int main(void)
{
	static int values[N];
	long sum = 0;
	int on_host = -1;

	for (int i = 0; i < N; i++)
		values[i] = i;

#pragma omp target map(to: values) map(tofrom: sum, on_host)
	{
		on_host = omp_is_initial_device();
		for (int i = 0; i < N; i++)
			sum += 2L * values[i];
	}

	long expected = (long)N * (N - 1);
	printf("target region ran on the %s (omp_is_initial_device() = %d)\n",
	       on_host == 0 ? "device" : "host", on_host);
	printf("sum of 2*i for i < %d computed there: %ld (expected %ld)\n", N, sum, expected);
	if (on_host != 0 || sum != expected) {
		printf("FAILED: the device image was not linked or not registered\n");
		return 1;
	}
	printf("OK: the offloading link worked\n");
	return 0;
}
