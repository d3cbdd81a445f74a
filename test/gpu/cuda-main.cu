// A CUDA program for the GPU check (scripts/gpu-check.sh), relocatable
// device code over two translation units, linked with the static CUDA
// runtime: kernels calling a device function of the other unit, a
// __constant__ written from the host, a __device__ variable read back.
// It checks the device's results against the host's and says "ok" or
// "WRONG" for each (exit status 0 when all are ok); where the runtime finds
// no device it says "no device" and exits 3.
#include "cuda-lite.h"
extern __constant__ int factor;
extern __device__ int calls;
__device__ int poly(int x);
__device__ void count_call();

__global__ void fill(int *out, unsigned n)
{
	unsigned i = global_thread_id();
	if (i < n)
		out[i] = poly((int)(i % 1000));
	if (i == 0)
		count_call();
}

enum { N = 1 << 20, THREADS = 256 };
static int host[N];

// poly as the host computes it, for the expected results.
static int host_poly(int factor_value, int x) { return factor_value * x * x + 3 * x + 1; }

static int check(int err, const char *what)
{
	if (err)
		printf("%s: error %d (%s)\n", what, err, cudaGetErrorString(err));
	return err;
}

static int report(const char *what, long long got, long long expected)
{
	if (got == expected) {
		printf("%s %lld: ok\n", what, got);
		return 0;
	}
	printf("%s %lld, expected %lld: WRONG\n", what, got, expected);
	return 1;
}

int main()
{
	int devices = 0, err = cudaGetDeviceCount(&devices);
	int *out = 0, new_factor = 5, ncalls = -1, wrong = 0;
	unsigned n = N;
	long long sum = 0, expected_sum = 0;

	if (err || devices < 1) {
		printf("no device: cudaGetDeviceCount: error %d (%s), %d devices\n", err,
		       cudaGetErrorString(err), devices);
		return 3;
	}
	if (check(cudaMalloc((void **)&out, sizeof(host)), "cudaMalloc"))
		return 1;
	void *args[] = { &out, &n };
	if (check(cudaLaunchKernel((const void *)fill, dim3(N / THREADS), dim3(THREADS), args, 0, 0),
		  "launch") ||
	    check(cudaDeviceSynchronize(), "first kernel") ||
	    check(cudaMemcpy(host, out, sizeof(host), cudaMemcpyDeviceToHost), "copy back"))
		return 1;
	for (int i = 0; i < N; i++) {
		sum += host[i];
		expected_sum += host_poly(7, i % 1000);
	}
	wrong += report("out[999]", host[999], host_poly(7, 999));
	wrong += report("checksum", sum, expected_sum);
	if (check(cudaMemcpyToSymbol((const void *)&factor, &new_factor, sizeof(int), 0,
				     cudaMemcpyHostToDevice), "set factor") ||
	    check(cudaLaunchKernel((const void *)fill, dim3(N / THREADS), dim3(THREADS), args, 0, 0),
		  "launch") ||
	    check(cudaDeviceSynchronize(), "second kernel") ||
	    check(cudaMemcpy(host, out, sizeof(int) * 1000, cudaMemcpyDeviceToHost), "copy back") ||
	    check(cudaMemcpyFromSymbol(&ncalls, (const void *)&calls, sizeof(int), 0,
				       cudaMemcpyDeviceToHost), "read calls"))
		return 1;
	wrong += report("with factor 5: out[999]", host[999], host_poly(new_factor, 999));
	wrong += report("kernel launches counted on the device", ncalls, 2);
	cudaFree(out);
	return wrong ? 1 : 0;
}
