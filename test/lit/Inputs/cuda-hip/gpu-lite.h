// What the test programs need of the CUDA/HIP headers, without them: the
// attributes clang knows, and the few runtime calls main() makes.  The same
// sources compile as CUDA (-x cuda) and HIP (-x hip).
#pragma once
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __host__ __attribute__((host))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
struct dim3 {
  unsigned x, y, z;
  __host__ __device__ dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
typedef struct CUstream_st *stream_t;
extern "C" int printf(const char *, ...);
// clang emits a kernel's host stub as a call of the runtime's launch function.
#if defined(__HIP__)
extern "C" int hipLaunchKernel(const void *, dim3, dim3, void **, unsigned long, stream_t);
extern "C" int hipGetDeviceCount(int *);
#define gpuGetDeviceCount hipGetDeviceCount
#define GPU_RUNTIME "hip"
#else
extern "C" int cudaLaunchKernel(const void *, dim3, dim3, void **, unsigned long, stream_t);
extern "C" int cudaGetDeviceCount(int *);
#define gpuGetDeviceCount cudaGetDeviceCount
#define GPU_RUNTIME "cuda"
#endif
