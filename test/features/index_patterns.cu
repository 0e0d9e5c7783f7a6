// How each global index depends on threadIdx.x: contiguous, strided, uniform,
// indirect, unknown.
// RUN: %kernelskill features %s --json | %python %S/Inputs/fsum.py | FileCheck %s

__global__ void patterns(const float *a, const int *idx, float *out, int n, int stride) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y;
  float v = 0.f;
  v += a[tid];                    // contiguous
  v += a[n - 1 - tid];            // contiguous (reversed)
  v += a[tid * 2];                // strided, constant stride
  v += a[tid * stride];           // strided, run-time stride
  v += a[threadIdx.x * n + row];  // strided
  v += a[row];                    // uniform
  v += a[blockIdx.x * 7 + 3];     // uniform
  v += a[idx[tid]];               // indirect
  v += a[tid / 2];                // unknown
  v += a[(tid << 2) + 1];         // strided (shift by a constant)
  out[tid] = v;
}
// CHECK-LABEL: kernel patterns
// CHECK: access a load contiguous [tid]
// CHECK: access a load contiguous [n - 1 - tid]
// CHECK: access a load strided [tid * 2]
// CHECK: access a load strided [tid * stride]
// CHECK: access a load strided [threadIdx.x * n + row]
// CHECK: access a load uniform [row]
// CHECK: access a load uniform [blockIdx.x * 7 + 3]
// CHECK: access a load indirect [idx[tid]]
// CHECK: access idx load contiguous [tid]
// CHECK: access a load unknown [tid / 2]
// CHECK: access a load strided [(tid << 2) + 1]
// CHECK: access out store contiguous [tid]
// CHECK: contiguous_accesses=4
// CHECK: strided_accesses=4
// CHECK: uniform_accesses=2
// CHECK: indirect_accesses=1
// CHECK: structure="irregular"

// 2-D blocks: threadIdx.y does not move along a warp's x, so a[row*K+k] is
// uniform with respect to threadIdx.x and b[k*N+col] contiguous.
__global__ void two_d(const float *a, const float *b, float *c, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  c[row * N + col] = a[row * K] + b[col];
}
// CHECK-LABEL: kernel two_d
// CHECK: access c store contiguous [row * N + col]
// CHECK: access a load uniform [row * K]
// CHECK: access b load contiguous [col]

// Pointer arithmetic and local aliases of parameters are followed.
__global__ void aliases(const float *x, float *y, int cols) {
  int r = blockIdx.x;
  const float *row = x + r * cols;
  float *out = y + r * cols;
  out[threadIdx.x] = row[threadIdx.x] + *(x + threadIdx.x);
}
// CHECK-LABEL: kernel aliases
// CHECK: access y store contiguous [threadIdx.x]
// CHECK: access x load contiguous [threadIdx.x]
// CHECK: access x load contiguous [threadIdx.x]
