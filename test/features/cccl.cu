// CUB / Thrust / libcu++ live under include/cccl in CUDA 13: nvcc finds them,
// and so must the extractor (it adds that folder to clang's system includes).
// RUN: %kernelskill features %s --json | %python %S/Inputs/fsum.py | FileCheck %s
#include <cub/cub.cuh>

__global__ void block_sum(const float *in, float *out) {
  typedef cub::BlockReduce<float, 128> Reduce;
  __shared__ typename Reduce::TempStorage tmp;
  float v = Reduce(tmp).Sum(in[blockIdx.x * 128 + threadIdx.x]);
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}
// CHECK: parse side=host errors=0
// CHECK: kernel block_sum
// CHECK: access in load contiguous [blockIdx.x * 128 + threadIdx.x]
// CHECK: access out store uniform [blockIdx.x]
