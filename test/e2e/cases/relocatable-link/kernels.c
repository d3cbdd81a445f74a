/* Device code linked ahead of time with "clang-linker-wrapper -r": the
 * relocatable object carries the linked image and its registration code, so
 * the final link needs no wrapper at all. */
#include <omp.h>

int kernel_on_device(int *on_host)
{
	int where = -1, value = 0;

#pragma omp target map(tofrom: where, value)
	{
		where = omp_is_initial_device();
		for (int i = 0; i < 7; i++)
			value += 6;
	}
	*on_host = where;
	return value;
}
