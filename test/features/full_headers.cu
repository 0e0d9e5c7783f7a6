// A file using the CUDA 13 runtime and libraries' headers parses cleanly under
// clang 19 (the stub for texture_fetch_functions.h, -Wno-unknown-cuda-version).
// RUN: %kernelskill features %s --json | %python %S/Inputs/fsum.py | FileCheck %s
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cooperative_groups.h>
#include <curand_kernel.h>

namespace cg = cooperative_groups;

__global__ void rng(curandState *st, float *out, unsigned long long seed) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  curand_init(seed, i, 0, &st[i]);
  out[i] = curand_uniform(&st[i]);
  cg::thread_block b = cg::this_thread_block();
  b.sync();
}

extern "C" void entry(curandState *st, float *out, int n) {
  rng<<<(n + 127) / 128, 128>>>(st, out, 42ULL);
  cudaDeviceSynchronize();
}
// CHECK: parse side=host errors=0
// CHECK: kernel rng
// CHECK: launch rng in=entry {{.*}} threads=128
