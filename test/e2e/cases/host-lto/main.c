/* The host object is LLVM bitcode (-flto): its offloading data sits in the
 * module's llvm.embedded.objects, not in an ELF section, and the linker
 * wrapper must find it there. */
#include <omp.h>
#include <stdio.h>

int host_offset(void);

int main(void)
{
	int on_host = -1, value = 0;

#pragma omp target map(tofrom: on_host, value)
	{
		on_host = omp_is_initial_device();
		for (int i = 0; i < 10; i++)
			value += 3;
	}
	printf("initial_device=%d value=%d\n", on_host, value + host_offset());
	return on_host == 0 && value == 30 ? 0 : 1;
}
