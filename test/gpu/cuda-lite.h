// What the CUDA programs of the GPU check need of CUDA's headers, declared
// here so that clang 19 and 22 compile them with -nocudainc (no vendor
// headers): the attributes clang knows and the runtime calls they make,
// all C functions of libcudart with these signatures.
#pragma once
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __host__ __attribute__((host))
#define __constant__ __attribute__((constant))
struct dim3 {
	unsigned x, y, z;
	__host__ __device__ dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
typedef struct CUstream_st *cudaStream_t;
enum { cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2 };
extern "C" {
int printf(const char *, ...);
int cudaGetDeviceCount(int *count);
const char *cudaGetErrorString(int error);
int cudaMalloc(void **ptr, unsigned long size);
int cudaFree(void *ptr);
int cudaMemcpy(void *dst, const void *src, unsigned long count, int kind);
int cudaMemcpyFromSymbol(void *dst, const void *symbol, unsigned long count, unsigned long offset,
			 int kind);
int cudaMemcpyToSymbol(const void *symbol, const void *src, unsigned long count,
		       unsigned long offset, int kind);
int cudaDeviceSynchronize(void);
// clang emits a kernel's host stub as a call of this.
int cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args, unsigned long shared,
		     cudaStream_t stream);
}
// The device's thread and block indices (clang's NVPTX builtins).
__device__ static inline unsigned global_thread_id()
{
	return __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() +
	       __nvvm_read_ptx_sreg_tid_x();
}
