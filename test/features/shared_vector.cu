// Shared memory (sizes, extern), vector types, __ldg.
// RUN: %kernelskill features %s --json | %python %S/Inputs/fsum.py | FileCheck %s
#include <cuda_fp16.h>

__global__ void tiles(const float *in, float *out) {
  __shared__ float tile[32][33];
  __shared__ double d[64];
  extern __shared__ float dyn[];
  tile[threadIdx.y][threadIdx.x] = in[threadIdx.x];
  dyn[threadIdx.x] = (float)d[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = tile[threadIdx.x][threadIdx.y] + dyn[0];
}
// CHECK-LABEL: kernel tiles
// CHECK: shared tile type=float bytes=4224
// CHECK: shared d type=double bytes=512
// CHECK: shared dyn type=float bytes=None
// CHECK: uses_vector_types=false
// CHECK: uses_shared=true
// CHECK: shared_bytes=4736

__global__ void vec4(const float4 *__restrict__ in, float4 *out, const __half2 *h, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) {
    float4 v = __ldg(&in[i]);
    float2 f = __half22float2(h[i]);
    v.x += f.x;
    out[i] = v;
  }
}
// CHECK-LABEL: kernel vec4
// CHECK: access in load contiguous [i]
// CHECK: vector_types float4,__half2,float2
// CHECK: uses_vector_types=true
// CHECK: uses_ldg=true
// CHECK: uses_shared=false

// float4 loads through reinterpret_cast of a float pointer.
__global__ void cast_vec(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i * 4 + 3 < n) reinterpret_cast<float4 *>(y)[i] = reinterpret_cast<const float4 *>(x)[i];
}
// CHECK-LABEL: kernel cast_vec
// CHECK: access y store contiguous [i]
// CHECK: access x load contiguous [i]
// CHECK: uses_vector_types=true
