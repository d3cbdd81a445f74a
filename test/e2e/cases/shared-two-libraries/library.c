/* A shared library with a target region and a device-side counter of its
 * executions, read back through the counter's own offload entry.  Built
 * twice, as NAME=one and NAME=two: function NAME, counter NAME_runs. */
#include <omp.h>

#define JOIN(a, b) a##b
#define RUNS(name) JOIN(name, _runs)

#pragma omp declare target
int RUNS(NAME);
#pragma omp end declare target

int NAME(int *on_device)
{
	int device = 0;

#pragma omp target map(from: device)
	{
		device = !omp_is_initial_device();
		RUNS(NAME)++;
	}
#pragma omp target update from(RUNS(NAME))
	*on_device = device;
	return RUNS(NAME);
}
