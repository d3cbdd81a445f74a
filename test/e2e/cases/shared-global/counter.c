/* Defines the declare-target global and a device function that uses it; the
 * other unit (main.c) only declares it.  The device link must resolve the
 * reference across the two units' device code. */
#pragma omp declare target
int counter = 100;

void add_to_counter(int amount)
{
	counter += amount;
}
#pragma omp end declare target
