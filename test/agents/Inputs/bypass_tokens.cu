// bypass_tokens.cu — ways to hide a directive or an identifier from a
// line-based scan, and includes in a branch clang does not take.
#include <cuda_runtime.h>
#define CAT(a, b) a##b
_Pragma("GCC system_header")
%:define SNEAKY 1
#if __CUDA_ARCH__ >= 800
#include "/etc/hostname"
#include "../secret.h"
#endif
#ifdef __CUDA_ARCH__
#include INCLUDE_ME
#endif
static const char *z = R"(raw)";
__global__ void k(float *y) { y[threadIdx.x] = 1.0f; }
extern "C" void entry(float *y) { k<<<1, 32>>>(y); }
