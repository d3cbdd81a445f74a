#include <omp.h>

int second_kernel(int *on_host)
{
	int where = -1, value = 0;

#pragma omp target map(tofrom: where, value)
	{
		where = omp_is_initial_device();
		value = 1000;
	}
	*on_host = where;
	return value;
}
