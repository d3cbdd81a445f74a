/* The library of the seed's relocatable example: a target region and a
 * device-side counter of its executions.  The counter is read back through
 * its own offload entry, so a region run from one image and a counter
 * registered from another would not show 1. */
#include <omp.h>

#pragma omp declare target
int foo_runs;
#pragma omp end declare target

int foo(int *on_device)
{
	int device = 0;

#pragma omp target map(from: device)
	{
		device = !omp_is_initial_device();
		foo_runs++;
	}
#pragma omp target update from(foo_runs)
	*on_device = device;
	return foo_runs;
}
