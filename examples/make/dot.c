/* The dot product of x and y, reduced on the offload device. */
float dot(int n, const float *x, const float *y)
{
	float sum = 0.0f;

#pragma omp target teams distribute parallel for reduction(+ : sum) map(to : x[0:n], y[0:n])
	for (int i = 0; i < n; i++)
		sum += x[i] * y[i];
	return sum;
}
