// Sync and communication: __syncthreads, atomics by name, warp shuffles and votes.
// RUN: %kernelskill features %s --json | %python %S/Inputs/fsum.py | FileCheck %s

__global__ void histo(const int *in, unsigned *bins, int *maxv, int n) {
  __shared__ unsigned local[256];
  local[threadIdx.x] = 0;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicAdd(&local[in[i] & 255], 1u);
    atomicMax(maxv, in[i]);
  }
  __syncthreads();
  atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}
// CHECK-LABEL: kernel histo
// CHECK: access maxv atomic uniform [0]
// CHECK: access bins atomic contiguous [threadIdx.x]
// CHECK: atomic atomicAdd x2
// CHECK: atomic atomicMax x1
// CHECK: syncthreads=2
// CHECK: atomics=3

__global__ void warp_sum(const float *x, float *out) {
  float v = x[blockIdx.x * 32 + threadIdx.x];
  for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffff, v, off);
  unsigned m = __ballot_sync(0xffffffff, v > 0.f);
  if (__any_sync(0xffffffff, v < 0.f) && threadIdx.x == 0) out[blockIdx.x] = v + (float)m;
}
// CHECK-LABEL: kernel warp_sum
// CHECK: syncthreads=0
// CHECK: warp_shuffles=1
// CHECK: warp_votes=2
