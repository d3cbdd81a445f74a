/* A program with a target region of its own, linked through the wrapper
 * against the library made by the relocatable link. */
#include <omp.h>
#include <stdio.h>

#pragma omp declare target
int main_runs;
#pragma omp end declare target

int foo(int *on_device);

int main(void)
{
	int device = 0, foo_device = 0, foo_runs;

#pragma omp target map(from: device)
	{
		device = !omp_is_initial_device();
		main_runs++;
	}
#pragma omp target update from(main_runs)
	foo_runs = foo(&foo_device);
	printf("main: on_device=%d runs=%d\n", device, main_runs);
	printf("foo: on_device=%d runs=%d\n", foo_device, foo_runs);
	return device == 1 && main_runs == 1 && foo_device == 1 && foo_runs == 1 ? 0 : 1;
}
