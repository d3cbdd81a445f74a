/* declare target link: the device image holds only a reference to the
 * array, which the runtime points at the mapped copy.  The entry carrying
 * the link flag must be registered for the map to reach the device. */
#include <omp.h>
#include <stdio.h>

#define N 64
int table[N];
#pragma omp declare target link(table)

#pragma omp declare target
static void fill(void)
{
	for (int i = 0; i < N; i++)
		table[i] = 5 * i;
}
#pragma omp end declare target

int main(void)
{
	int on_host = -1;

#pragma omp target map(tofrom: table, on_host)
	{
		on_host = omp_is_initial_device();
		fill();
	}
	long sum = 0;
	for (int i = 0; i < N; i++)
		sum += table[i];
	printf("initial_device=%d table[63]=%d sum=%ld\n", on_host, table[N - 1], sum);
	return on_host == 0 && sum == 10080 ? 0 : 1;
}
