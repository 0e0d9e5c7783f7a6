// Launch sites: configuration as written, enclosing host function, constant
// block sizes (through dim3 and constants), streams and dynamic shared memory.
// RUN: %kernelskill features %s --json | %python %S/Inputs/fsum.py | FileCheck %s
#include <cuda_runtime.h>

__global__ void k1(float *p) { p[threadIdx.x] = 1.f; }
__global__ void k2(float *p) { p[threadIdx.x] = 2.f; }

static const int kThreads = 512;

extern "C" void entry(float *p, int n, cudaStream_t s) {
  k1<<<(n + 255) / 256, 256>>>(p);
  dim3 block(16, 16);
  k2<<<dim3(n / 16, n / 16), dim3(16, 16), 1024, s>>>(p);
  k1<<<n, kThreads, 0, s>>>(p);
  k2<<<n, block>>>(p);
}

namespace ns {
struct Runner {
  void go(float *p) { k1<<<1, 32>>>(p); }
};
}

// CHECK-LABEL: kernel k1
// CHECK: pointwise=true
// CHECK: structure="multi_kernel"
// CHECK: multi_kernel_entry=true
// CHECK: launch_sites=3
// CHECK: block_size=0
// CHECK-LABEL: kernel k2
// CHECK: launch_sites=2
// CHECK: block_size=256
// CHECK: launch k1 in=entry line=12 grid=[(n + 255) / 256] block=[256] smem=[None] stream=[None] threads=256 args=1
// CHECK: launch k2 in=entry line=14 grid=[dim3(n / 16, n / 16)] block=[dim3(16, 16)] smem=[1024] stream=[s] threads=256 args=1
// CHECK: launch k1 in=entry line=15 grid=[n] block=[kThreads] smem=[0] stream=[s] threads=512 args=1
// CHECK: launch k2 in=entry line=16 grid=[n] block=[block] smem=[None] stream=[None] threads=256 args=1
// CHECK: launch k1 in=go line=21 grid=[1] block=[32] smem=[None] stream=[None] threads=32 args=1
