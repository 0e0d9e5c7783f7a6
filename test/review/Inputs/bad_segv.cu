// bad_segv.cu — deliberately bad candidate: its host code dereferences NULL.
#include <cuda_runtime.h>
extern "C" void vadd(const float *a, const float *b, float *c, int n) {
  (void)a, (void)b, (void)c;
  volatile int *p = 0;
  *p = n;
}
