/* The program of examples/make: its kernels come from libvec.a (and, in
 * test/e2e/ecosystem/cmake-project, from a static and a shared library). */
#include <omp.h>
#include <stdio.h>

void saxpy(int n, float a, const float *x, float *y);
float dot(int n, const float *x, const float *y);

int main(void)
{
	enum { N = 1000 };
	static float x[N], y[N];
	int on_device = 0;

	for (int i = 0; i < N; i++) {
		x[i] = 1.0f;
		y[i] = (float)i;
	}
	saxpy(N, 2.0f, x, y);
#pragma omp target map(from : on_device)
	on_device = !omp_is_initial_device();
	printf("dot = %.0f, target region on the device: %s\n", dot(N, x, y),
	       on_device ? "yes" : "no");
	return on_device ? 0 : 1;
}
