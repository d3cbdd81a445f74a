/* A shared library with a target region and a device-side counter of its
 * executions, read back through the counter's own offload entry. */
#include <omp.h>

#pragma omp declare target
int two_runs;
#pragma omp end declare target

int two(int *on_device)
{
	int device = 0;

#pragma omp target map(from: device)
	{
		device = !omp_is_initial_device();
		two_runs++;
	}
#pragma omp target update from(two_runs)
	*on_device = device;
	return two_runs;
}
