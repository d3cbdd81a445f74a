/* The library member the program needs: a device function, reached only
 * through a call in main.c's target region. */
#pragma omp declare target
int scale(int value)
{
	return value * 3 + 1;
}
#pragma omp end declare target
