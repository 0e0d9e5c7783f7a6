// Arithmetic: transcendentals, division and modulo by non-constants, double
// precision, unfused a*b+c.
// RUN: %kernelskill features %s --json | %python %S/Inputs/fsum.py | FileCheck %s

__global__ void gelu(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    y[i] = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
  }
}
// CHECK-LABEL: kernel gelu
// CHECK: transcendental tanhf x1
// CHECK: transcendentals=1
// CHECK: nonconst_div=0
// CHECK: int_div=0
// CHECK: uses_double=false

__global__ void mixed(const float *x, float *y, int n, int w) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int r = i / w, c = i % w;
  float a = x[i] * 2.0;  // double multiply: a classic slip
  y[i] = a / x[r] + powf(a, 3.0f) + logf(a) + expf(a) + (float)c * 0.5f + 1.0f;
}
// CHECK-LABEL: kernel mixed
// CHECK: transcendental powf x1
// CHECK: transcendental logf x1
// CHECK: transcendental expf x1
// CHECK: transcendentals=3
// CHECK: nonconst_div=3
// CHECK: int_div=2
// CHECK: uses_double=true
// CHECK: fma_candidates=1

__global__ void divconst(float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] = (float)(i / 4) + (float)(i % 8) + y[i] / 3.0f;
}
// CHECK-LABEL: kernel divconst
// CHECK: nonconst_div=0
