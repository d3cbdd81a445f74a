// Kernels and device variables of every registration kind: a __device__
// variable, a __constant__, a __managed__ one, and an extern __device__
// variable defined in globals.cu (relocatable device code, -fgpu-rdc).
// -DNO_MANAGED leaves the managed variable out: ROCm 5.2's runtime cannot
// register one without a GPU.
#include "gpu-lite.h"
__device__ int dvar = 1;
__constant__ int cvar = 2;
#ifndef NO_MANAGED
__device__ __managed__ int mvar = 3;
#else
#define mvar 3
#endif
extern __device__ int evar;
__device__ int twice(int x);
__global__ void kern(int *p) { *p = twice(dvar + cvar + mvar + evar); }
__global__ void kern2(float *p) { *p = 1.0f; }
