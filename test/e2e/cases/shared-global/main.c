#include <omp.h>
#include <stdio.h>

#pragma omp declare target
extern int counter;
void add_to_counter(int amount);
#pragma omp end declare target

int main(void)
{
	int on_host = -1, seen = 0;

#pragma omp target update to(counter)
#pragma omp target map(tofrom: on_host, seen)
	{
		on_host = omp_is_initial_device();
		for (int i = 1; i <= 10; i++)
			add_to_counter(i);
		seen = counter;
	}
	/* The host copy changes only when the device copy is copied back. */
	printf("host counter before update=%d\n", counter);
#pragma omp target update from(counter)
	printf("initial_device=%d device counter=%d host counter after update=%d\n", on_host, seen,
	       counter);
	return on_host == 0 && seen == 155 && counter == 155 ? 0 : 1;
}
