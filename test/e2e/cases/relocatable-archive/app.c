/* A host-only program using the library, built without any offloading
 * flag (by gcc, or by clang). */
#include <stdio.h>

int foo(int *on_device);

int main(void)
{
	int on_device = 0, runs = foo(&on_device);

	printf("foo: on_device=%d runs=%d\n", on_device, runs);
	return on_device == 1 && runs == 1 ? 0 : 1;
}
