/* Functions called through pointers on the device: the runtime maps each
 * host address to the device one through the indirect entries. */
int add_one(int x)
{
	return x + 1;
}

int twice(int x)
{
	return 2 * x;
}
#pragma omp declare target to(add_one, twice) indirect
