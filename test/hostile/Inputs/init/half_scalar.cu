// an f16 scalar: the harness cannot pass it.
#include <cuda_fp16.h>
extern "C" void f(float *y, __half h) {}
