// bad_zeros.cu — deliberately bad candidate: writes zeros everywhere (the hole
// some benchmarks left open); tolerance alone would not catch it on tasks whose
// outputs are small, the constant-output check does.
#include <cuda_runtime.h>
extern "C" void vadd(const float *a, const float *b, float *c, int n) {
  (void)a, (void)b;
  cudaMemsetAsync(c, 0, sizeof(float) * (size_t)n, 0);
}
