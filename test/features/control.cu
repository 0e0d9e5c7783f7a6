// Control: branches that depend on the thread (divergence risk) versus the
// plain bounds check.
// RUN: %kernelskill features %s --json | %python %S/Inputs/fsum.py | FileCheck %s

__global__ void divergent(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  if (threadIdx.x % 2 == 0) v = v * 2.f;
  else v = v + 1.f;
  y[i] = (i & 1) ? v : -v;
}
// CHECK-LABEL: kernel divergent
// CHECK: thread_branches=2
// CHECK: bounds_check=true

__global__ void uniform_branch(const float *x, float *y, int n, int mode) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (mode == 1) y[i] = x[i];
  else y[i] = -x[i];
}
// CHECK-LABEL: kernel uniform_branch
// CHECK: thread_branches=0
// CHECK: bounds_check=false

__global__ void two_d_bounds(float *y, int w, int h) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (c < w && r < h) y[r * w + c] = 0.f;
}
// CHECK-LABEL: kernel two_d_bounds
// CHECK: thread_branches=0
// CHECK: bounds_check=true
