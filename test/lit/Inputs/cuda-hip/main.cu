// Reaching main() means every registration constructor ran; the runtime
// then reports whether there is a GPU (there is none in CI).
#include "gpu-lite.h"
__global__ void kern(int *p);
int main() {
  int n = -1;
  int err = gpuGetDeviceCount(&n);
  printf("main reached (%s runtime: error %d, %d devices)\n", GPU_RUNTIME, err, n);
  return 0;
}
