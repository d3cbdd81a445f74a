// The second translation unit: defines what kernels.cu declares extern.
#include "gpu-lite.h"
__device__ int evar = 7;
__device__ int twice(int x) { return 2 * x; }
__global__ void kern3(int *p) { *p = evar; }
