// features.cu — what the Feature Extractor sees depends on the compile's
// -I, -D and -std: the second kernel exists only with -DWITH_SECOND, and
// the header comes from an -I folder.
#include "feat.h"
__global__ void first(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = FEAT_SCALE * x[i];
}
#ifdef WITH_SECOND
__global__ void second(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = expf(x[i]);
}
#endif
#if __cplusplus >= 202002L
__global__ void cxx20_only(float *y) { y[threadIdx.x] = 0.0f; }
#endif
