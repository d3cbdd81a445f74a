// A second library's device code: one kernel, one variable.
#include "gpu-lite.h"
__device__ int ovar = 5;
__global__ void okern(int *p) { *p = ovar; }
