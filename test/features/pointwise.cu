// Pointwise kernels: every global access at one contiguous index.
// RUN: %kernelskill features %s --json | %python %S/Inputs/fsum.py | FileCheck %s

__global__ void vadd(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
// CHECK-LABEL: kernel vadd
// CHECK: access c store contiguous [i]
// CHECK: access a load contiguous [i]
// CHECK: access b load contiguous [i]
// CHECK: bounds_check=true
// CHECK: pointwise=true
// CHECK: structure="streaming"

template <typename T>
__global__ void relu_gs(const T *x, T *y, long n) {
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)blockDim.x * gridDim.x)
    y[i] = x[i] > T(0) ? x[i] : T(0);
}
// CHECK-LABEL: kernel relu_gs
// CHECK: loop line=18 for depth=1 trip=None unroll=false accumulates=false grid_stride=true var=i
// CHECK: grid_stride=true
// CHECK: pointwise=true
// CHECK: structure="streaming"

// Not pointwise: reads a neighbour.
__global__ void shift(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i + 1 < n) y[i] = x[i + 1];
}
// CHECK-LABEL: kernel shift
// CHECK: pointwise=false

// Not pointwise: a per-thread loop over other elements.
__global__ void loopy(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0;
  for (int j = 0; j < 4; ++j) s = s * 0.5f + 1.0f;
  if (i < n) y[i] = x[i] * s;
}
// CHECK-LABEL: kernel loopy
// CHECK: pointwise=false

// Not pointwise: scatters through an index array.
__global__ void scatter(const float *x, const int *idx, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[idx[i]] = x[i];
}
// CHECK-LABEL: kernel scatter
// CHECK: access y store indirect [idx[i]]
// CHECK: pointwise=false
// CHECK: structure="irregular"
