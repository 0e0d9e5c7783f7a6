// allowed_branches.cu — preprocessor use the untrusted-code check must let
// through: an include guard, branches on __CUDA_ARCH__ and __CUDACC__ (the
// same on clang's and nvcc's host sides), #if 0, a qualified call in a host
// template, a templated launch from a host template.
#ifndef ALLOWED_BRANCHES_CU
#define ALLOWED_BRANCHES_CU
#include <cuda_runtime.h>
#if __CUDA_ARCH__ >= 800
#include <cuda_pipeline.h>
#endif

__device__ float twice(float v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
  return v + v;
#else
  return 2.0f * v;
#endif
}

template <int BS>
__global__ void scale(int n, float *y) {
  int i = blockIdx.x * BS + threadIdx.x;
  if (i < n) y[i] = twice(y[i]);
}

static int blocks(int n, int bs) { return (n + bs - 1) / bs; }

template <int BS, class T>
void launch(T n, float *y) {
  scale<BS><<<::blocks((int)n, BS), BS>>>((int)n, y);
}

#if 0
this text is never compiled
#endif

#ifdef __CUDACC__
extern "C" void scale_entry(int n, float *y) { launch<256>(n, y); }
#endif
#endif
