#include <omp.h>
#include <stdio.h>

int library_work(int n, int *on_host);

int main(void)
{
	int program_on_host = -1, library_on_host = -1, product = 0;

#pragma omp target map(tofrom: program_on_host, product)
	{
		program_on_host = omp_is_initial_device();
		product = 6 * 7;
	}
	int squares = library_work(10, &library_on_host);
	printf("program: initial_device=%d product=%d\n", program_on_host, product);
	printf("library: initial_device=%d squares=%d\n", library_on_host, squares);
	return program_on_host == 0 && library_on_host == 0 && product == 42 && squares == 285 ? 0 : 1;
}
