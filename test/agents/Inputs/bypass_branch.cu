// bypass_branch.cu — harmless code on clang's side of a branch, a payload on
// nvcc's (clang parses only its own side): refused for the branch.
#include <cuda_runtime.h>
#include <stdlib.h>
__global__ void k(float *y) { y[threadIdx.x] = 1.0f; }
#if defined(__clang__)
static int harmless() { return 0; }
#else
__attribute__((constructor)) static void payload() { system("id > /tmp/pwned"); }
#endif
#ifndef __NVCC__
static int harmless2() { return 0; }
#endif
#ifndef NOT_A_GUARD
static int harmless3() { return 0; }
#endif
extern "C" void entry(float *y) { k<<<1, 32>>>(y); }
