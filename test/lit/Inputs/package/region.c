/* A target region and a declare target global, without <omp.h> (clang 16's
 * and 22's are not installed here): what inspect lists. */
#pragma omp declare target
int counter;
#pragma omp end declare target

int main(void)
{
	int sum = 0;

#pragma omp target map(tofrom : sum)
	for (int i = 0; i < 100; i++)
		sum += i + counter;
	return sum == 4950 ? 0 : 1;
}
