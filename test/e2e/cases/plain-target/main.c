/* One translation unit, one target region: the device image must be linked,
 * wrapped and registered, or the region cannot run on the device. */
#include <omp.h>
#include <stdio.h>

int main(void)
{
	int on_host = -1;
	long sum = 0;

#pragma omp target map(tofrom: on_host, sum)
	{
		on_host = omp_is_initial_device();
		for (int i = 1; i <= 100; i++)
			sum += i;
	}
	printf("initial_device=%d sum=%ld\n", on_host, sum);
	return on_host == 0 && sum == 5050 ? 0 : 1;
}
