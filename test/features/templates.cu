// Template kernels: parameters, and the instantiations the file uses (from
// launch sites and explicit instantiations).
// RUN: %kernelskill features %s --json | %python %S/Inputs/fsum.py | FileCheck %s
#include <cuda_fp16.h>

template <typename T, int VEC>
__global__ void scale(T *y, const T *x, T s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = s * x[i];
}

template __global__ void scale<double, 2>(double *, const double *, double, int);

template <typename T>
__global__ void unused_tmpl(T *p) { p[threadIdx.x] = T(); }

void run(float *y, const float *x, __half *hy, const __half *hx, int n) {
  scale<float, 4><<<(n + 255) / 256, 256>>>(y, x, 2.0f, n);
  scale<__half, 8><<<(n + 255) / 256, 256>>>(hy, hx, __float2half(2.0f), n);
}
// CHECK-LABEL: kernel scale line=7 template=true
// CHECK-NEXT: template_params T,VEC
// CHECK-DAG: instantiation <double, 2>
// CHECK-DAG: instantiation <float, 4>
// CHECK-DAG: instantiation <__half, 8>
// CHECK: param y type=[T *] pointer
// CHECK: param x type=[const T *] pointer const_pointee
// CHECK: is_template=true
// CHECK-LABEL: kernel unused_tmpl line=15 template=true
// CHECK-NOT: instantiation
// CHECK: launch scale in=run line=18 grid=[(n + 255) / 256] block=[256] smem=[None] stream=[None] threads=256 args=4
// CHECK: launch scale in=run line=19
