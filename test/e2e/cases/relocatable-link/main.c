/* A plain host unit: no offloading flags, no wrapper in the final link. */
#include <stdio.h>

int kernel_on_device(int *on_host);
int second_kernel(int *on_host);

int main(void)
{
	int first_on_host = -1, second_on_host = -1;
	int first = kernel_on_device(&first_on_host);
	int second = second_kernel(&second_on_host);

	printf("first: initial_device=%d value=%d\n", first_on_host, first);
	printf("second: initial_device=%d value=%d\n", second_on_host, second);
	return first_on_host == 0 && second_on_host == 0 && first == 42 && second == 1000 ? 0 : 1;
}
