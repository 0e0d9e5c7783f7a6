// Reductions: a loop accumulating into a scalar that is then stored; atomics
// into one element; shared-memory trees.
// RUN: %kernelskill features %s --json | %python %S/Inputs/fsum.py | FileCheck %s

__global__ void sum_atomic(const float *x, float *out, long n) {
  float s = 0.f;
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)blockDim.x * gridDim.x)
    s += x[i];
  atomicAdd(out, s);
}
// CHECK-LABEL: kernel sum_atomic
// CHECK: accumulates=true grid_stride=true
// CHECK: access out atomic uniform [0]
// CHECK: atomic atomicAdd x1
// CHECK: atomics=1
// CHECK: reduction=true
// CHECK: structure="reduction"

__global__ void block_tree(const float *in, float *out, int n) {
  __shared__ float buf[256];
  int t = threadIdx.x;
  int i = blockIdx.x * 256 + t;
  buf[t] = i < n ? in[i] : 0.f;
  __syncthreads();
  for (int s = 128; s > 0; s >>= 1) {
    if (t < s) buf[t] += buf[t + s];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = buf[0];
}
// CHECK-LABEL: kernel block_tree
// CHECK: loop line=25 for depth=1 trip=None
// CHECK: shared buf type=float bytes=1024
// CHECK: syncthreads=2
// CHECK: reduction=true
// CHECK: smem_tree_reduction=true
// CHECK: structure="reduction"

// A loop that does not accumulate is no reduction.
__global__ void fill_rows(float *y, int cols) {
  int r = blockIdx.x;
  for (int k = threadIdx.x; k < cols; k += blockDim.x) y[r * cols + k] = 1.0f;
}
// CHECK-LABEL: kernel fill_rows
// CHECK: accumulates=false
// CHECK: reduction=false
// CHECK: smem_tree_reduction=false
