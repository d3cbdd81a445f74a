/* A library member nothing references: it must not be needed, and linking it
 * or not must not change the result. */
#pragma omp declare target
int unused_device_helper(int value)
{
	return value - 7;
}
#pragma omp end declare target
