#include <omp.h>
#include <stdio.h>

int main(void)
{
	int on_device = 0, sum = 0;

#pragma omp target map(from : on_device) map(tofrom : sum)
	{
		on_device = !omp_is_initial_device();
		for (int i = 0; i < 100; i++)
			sum += i;
	}
	printf("on the offload device: %s, sum %d\n", on_device ? "yes" : "no", sum);
	return 0;
}
