/* A program with a target region of its own, linked against two shared
 * libraries that have theirs: three images, each registered by its own
 * object's constructor when it is loaded. */
#include <omp.h>
#include <stdio.h>

#pragma omp declare target
int main_runs;
#pragma omp end declare target

int one(int *on_device);
int two(int *on_device);

int main(void)
{
	int device = 0, one_device = 0, two_device = 0, one_runs, two_runs;

#pragma omp target map(from: device)
	{
		device = !omp_is_initial_device();
		main_runs++;
	}
#pragma omp target update from(main_runs)
	one_runs = one(&one_device);
	two_runs = two(&two_device);
	printf("main: on_device=%d runs=%d\n", device, main_runs);
	printf("one: on_device=%d runs=%d\n", one_device, one_runs);
	printf("two: on_device=%d runs=%d\n", two_device, two_runs);
	return device == 1 && main_runs == 1 && one_device == 1 && one_runs == 1 &&
			       two_device == 1 && two_runs == 1
		       ? 0
		       : 1;
}
