// Device code of cuda-main.cu in its own translation unit (-fgpu-rdc): a
// device function, a __device__ counter and a __constant__ the other unit's
// kernels use, resolved by the device link.
#include "cuda-lite.h"
__constant__ int factor = 7;
__device__ int calls = 0;
__device__ int poly(int x)
{
	return factor * x * x + 3 * x + 1;
}
__device__ void count_call()
{
	calls += 1;   // one thread per launch calls it
}
