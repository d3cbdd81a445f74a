/* A shared library with its own target region: its device image is linked
 * and registered by the library's own registration code when it is loaded. */
#include <omp.h>

int library_work(int n, int *on_host)
{
	int sum = 0, where = -1;

#pragma omp target map(tofrom: sum, where)
	{
		where = omp_is_initial_device();
		for (int i = 0; i < n; i++)
			sum += i * i;
	}
	*on_host = where;
	return sum;
}
