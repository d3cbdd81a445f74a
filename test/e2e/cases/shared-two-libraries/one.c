/* A shared library with a target region and a device-side counter of its
 * executions, read back through the counter's own offload entry. */
#include <omp.h>

#pragma omp declare target
int one_runs;
#pragma omp end declare target

int one(int *on_device)
{
	int device = 0;

#pragma omp target map(from: device)
	{
		device = !omp_is_initial_device();
		one_runs++;
	}
#pragma omp target update from(one_runs)
	*on_device = device;
	return one_runs;
}
