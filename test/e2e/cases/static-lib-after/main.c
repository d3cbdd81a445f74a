#include <omp.h>
#include <stdio.h>

#pragma omp declare target
int scale(int value);
#pragma omp end declare target

int main(void)
{
	int on_host = -1, results[4] = {0};

#pragma omp target map(tofrom: on_host, results)
	{
		on_host = omp_is_initial_device();
		for (int i = 0; i < 4; i++)
			results[i] = scale(i + 10);
	}
	printf("initial_device=%d scale(10..13)=%d %d %d %d\n", on_host, results[0], results[1],
	       results[2], results[3]);
	return on_host == 0 && results[3] == 40 ? 0 : 1;
}
