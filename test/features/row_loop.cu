// Row loops: each thread walks a whole row (naive softmax, layernorm, row sums).
// RUN: %kernelskill features %s --json | %python %S/Inputs/fsum.py | FileCheck %s

__global__ void softmax_rows(const float *x, float *y, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float m = -1e30f;
  for (int k = 0; k < cols; ++k) m = fmaxf(m, x[r * cols + k]);
  float s = 0.f;
  for (int k = 0; k < cols; ++k) s += expf(x[r * cols + k] - m);
  for (int k = 0; k < cols; ++k) y[r * cols + k] = expf(x[r * cols + k] - m) / s;
}
// CHECK-LABEL: kernel softmax_rows
// CHECK: loop line=8 for depth=1 trip=None unroll=false accumulates=true grid_stride=false var=k
// CHECK: loop line=10 for depth=1 trip=None unroll=false accumulates=true grid_stride=false var=k
// CHECK: loop line=11 for depth=1 trip=None unroll=false accumulates=false grid_stride=false var=k
// CHECK: access x load strided [r * cols + k]
// CHECK: transcendental expf x2
// CHECK: transcendentals=2
// CHECK: nonconst_div=1
// CHECK: bounds_check=true
// CHECK: pointwise=false
// CHECK: reduction=true
// CHECK: row_loop=true
// CHECK: naive_gemm=false
// CHECK: has_reuse=true
// CHECK: structure="reduction"

// One block per row, threads striding over the row: not a row loop.
__global__ void rowsum_block(const float *x, float *y, int cols) {
  __shared__ float part[128];
  float s = 0.f;
  for (int k = threadIdx.x; k < cols; k += blockDim.x) s += x[blockIdx.x * cols + k];
  part[threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    float t = 0.f;
    for (int i = 0; i < 128; ++i) t += part[i];
    y[blockIdx.x] = t;
  }
}
// CHECK-LABEL: kernel rowsum_block
// CHECK: access x load contiguous [blockIdx.x * cols + k]
// CHECK: row_loop=false
