#include <omp.h>
#include <stdio.h>

int add_one(int x);
int twice(int x);
#pragma omp declare target to(add_one, twice) indirect

int main(int argc, char **argv)
{
	(void)argv;
	int on_host = -1, result = 0;
	/* Chosen at run time, so the call cannot be resolved at compile time. */
	int (*first)(int) = argc > 5 ? add_one : twice;
	int (*second)(int) = argc > 5 ? twice : add_one;

#pragma omp target map(tofrom: on_host, result)
	{
		on_host = omp_is_initial_device();
		result = second(first(20));
	}
	printf("initial_device=%d add_one(twice(20))=%d\n", on_host, result);
	return on_host == 0 && result == 41 ? 0 : 1;
}
