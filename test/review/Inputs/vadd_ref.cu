// vadd_ref.cu — reference of the vadd fixture task, written differently from
// the seed (grid-stride loop) and with the same kernel name on purpose: the
// Reviewer builds seed, reference and candidate as separate shared objects.
#include <cuda_runtime.h>

__global__ void vadd_kernel(const float *a, const float *b, float *c, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) c[i] = b[i] + a[i];
}

extern "C" void vadd(const float *a, const float *b, float *c, int n) { vadd_kernel<<<1024, 512>>>(a, b, c, n); }
