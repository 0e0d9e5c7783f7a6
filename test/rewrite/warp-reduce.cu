// Rule warp-reduce: a shared-memory tree reduction stops at the last warp; the
// steps s = 32 .. 1 run in warp 0 with __shfl_down_sync and no barriers. A max
// tree whose result every thread reads gets one barrier after the warp. The
// rest of the file (a device function, another kernel, the host code) stays
// byte-identical.
//
// RUN: %strip-checks %s %t.in.cu
// RUN: %kernelskill rewrite %t.in.cu --kernel block_sum --rule warp-reduce -o %t.cu
// RUN: FileCheck %s --input-file=%t.cu
// RUN: not diff -u %t.in.cu %t.cu > %t.diff
// RUN: grep -c '^@@' %t.diff | FileCheck %s --check-prefix=HUNKS
// RUN: grep -c '^-' %t.diff | FileCheck %s --check-prefix=REMOVED
// RUN: %nvcc -c -arch=sm_90 %t.cu -o %t.o
//
// Max with a constant start, every thread reading the result.
// RUN: %kernelskill rewrite %t.in.cu --kernel block_max --rule warp-reduce -o %t.m.cu
// RUN: FileCheck %s --check-prefix=MAX --input-file=%t.m.cu
// RUN: %nvcc -c -arch=sm_90 %t.m.cu -o %t.m.o
//
// The index temporary through a cast and a guard on threadIdx.x itself: the
// recognizer of shape.h reads both (`(int)threadIdx.x` is threadIdx.x).
// RUN: %kernelskill rewrite %t.in.cu --kernel block_sum_cast --rule warp-reduce -o %t.c.cu
// RUN: FileCheck %s --check-prefix=CAST --input-file=%t.c.cu
// RUN: %nvcc -c -arch=sm_90 %t.c.cu -o %t.c.o
//
// Idempotence.
// RUN: %kernelskill rewrite %t.cu --kernel block_sum --rule warp-reduce -o %t2.cu 2>&1 | FileCheck %s --check-prefix=AGAIN
// RUN: cmp %t.cu %t2.cu
//
// Negative: a block of 96 threads (not a power of two for blockDim.x / 2), no
// tree at all, a tree whose other elements are read afterwards: exit 1, file untouched.
// RUN: cp %t.in.cu %t.neg.cu
// RUN: %expect-exit 1 %kernelskill rewrite %t.neg.cu --kernel odd_block --rule warp-reduce -o %t.neg.cu
// RUN: not %kernelskill rewrite %t.neg.cu --kernel odd_block --rule warp-reduce -o %t.neg.cu 2>&1 | FileCheck %s --check-prefix=NEG
// RUN: not %kernelskill rewrite %t.neg.cu --kernel no_tree --rule warp-reduce -o %t.neg.cu 2>&1 | FileCheck %s --check-prefix=NEG2
// RUN: not %kernelskill rewrite %t.neg.cu --kernel reads_all --rule warp-reduce -o %t.neg.cu 2>&1 | FileCheck %s --check-prefix=NEG3
// RUN: not %kernelskill rewrite %t.neg.cu --kernel reg_read_all --rule warp-reduce -o %t.neg.cu 2>&1 | FileCheck %s --check-prefix=NEG4
// RUN: not %kernelskill rewrite %t.neg.cu --kernel halves_other --rule warp-reduce -o %t.neg.cu 2>&1 | FileCheck %s --check-prefix=NEG5
// RUN: not %kernelskill rewrite %t.neg.cu --kernel other_index --rule warp-reduce -o %t.neg.cu 2>&1 | FileCheck %s --check-prefix=NEG6
// RUN: cmp %t.in.cu %t.neg.cu
//
// The register form (reduce3), against the original on the CPU, bitwise.
// RUN: %kernelskill rewrite %t.in.cu --kernel block_sum_reg --rule warp-reduce -o %t.r.cu
// RUN: FileCheck %s --check-prefix=REG --input-file=%t.r.cu
// RUN: %nvcc -c -arch=sm_90 %t.r.cu -o %t.r.o
// RUN: %python %S/Inputs/warp-reduce-emu.py %clang19 %t.in.cu %t.r.cu block_sum_reg 256
//
// Other people's spellings, read on the AST (macros as expanded): a macro block
// size (RBLOCK / 2), an accessor macro, `0 < s`, `s = s / 2`, `s > tid`, the
// sum's operands swapped; against the original on the CPU, bitwise.
// RUN: %kernelskill rewrite %t.in.cu --kernel block_sum_spelled --rule warp-reduce -o %t.sp.cu
// RUN: FileCheck %s --check-prefix=SPELLED --input-file=%t.sp.cu
// RUN: %nvcc -c -arch=sm_90 %t.sp.cu -o %t.sp.o
// RUN: %python %S/Inputs/warp-reduce-emu.py %clang19 %t.in.cu %t.sp.cu block_sum_spelled 256

#include <cuda_runtime.h>

__device__ float twice(float v) { return 2.0f * v; }

// CHECK-LABEL: __global__ void block_sum(
// CHECK:        __syncthreads();
// CHECK-NEXT:   // kernelskill: rule:warp-reduce (rule warp-reduce) the tree stops at the last warp; barriers for s = 32 .. 1 dropped
// CHECK-NEXT:   for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
// CHECK-NEXT:     if (tid < s) {
// CHECK-NEXT:       sdata[tid] += sdata[tid + s];
// CHECK-NEXT:     }
// CHECK-NEXT:     __syncthreads();
// CHECK-NEXT:   }
// CHECK-NEXT:   // kernelskill: rule:warp-reduce (rule warp-reduce) the last warp by __shfl_down_sync, no barriers
// CHECK-NEXT:   if (tid < 32) {
// CHECK-NEXT:     float ks_v = sdata[tid];
// CHECK-NEXT:     ks_v += sdata[tid + 32];
// CHECK-NEXT:     for (int ks_o = 16; ks_o > 0; ks_o >>= 1) ks_v += __shfl_down_sync(0xffffffffu, ks_v, ks_o);
// CHECK-NEXT:     if (tid == 0) sdata[0] = ks_v;
// CHECK-NEXT:   }
// CHECK-NEXT:   if (tid == 0) out[blockIdx.x] = sdata[0];
// CHECK-NEXT: }

__global__ void block_sum(const float *in, float *out, int n) {
  __shared__ float sdata[256];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = i < n ? twice(in[i]) : 0.0f;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) {
      sdata[tid] += sdata[tid + s];
    }
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

// MAX-LABEL: __global__ void block_max(
// MAX:      for (int s = 64; s > 32; s /= 2) {
// MAX:      if (threadIdx.x < 32) {
// MAX-NEXT:   float ks_v = buf[threadIdx.x];
// MAX-NEXT:   ks_v = fmaxf(ks_v, buf[threadIdx.x + 32]);
// MAX-NEXT:   for (int ks_o = 16; ks_o > 0; ks_o >>= 1) ks_v = fmaxf(ks_v, __shfl_down_sync(0xffffffffu, ks_v, ks_o));
// MAX-NEXT:   if (threadIdx.x == 0) buf[0] = ks_v;
// MAX-NEXT: }
// MAX-NEXT: __syncthreads();
// MAX-NEXT: out[blockIdx.x * 128 + threadIdx.x] = in[blockIdx.x * 128 + threadIdx.x] - buf[0];

__global__ void block_max(const float *in, float *out) {
__shared__ float buf[128];
buf[threadIdx.x] = in[blockIdx.x * 128 + threadIdx.x];
__syncthreads();
for (int s = 64; s > 0; s /= 2) {
  if (threadIdx.x < s) buf[threadIdx.x] = fmaxf(buf[threadIdx.x], buf[threadIdx.x + s]);
  __syncthreads();
}
out[blockIdx.x * 128 + threadIdx.x] = in[blockIdx.x * 128 + threadIdx.x] - buf[0];
}

__global__ void odd_block(const int *in, int *out) {
  __shared__ int v[128];
  int t = threadIdx.x;
  v[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) v[t] = max(v[t], v[t + s]);
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = v[0];
}

__global__ void no_tree(const float *in, float *out) {
  out[threadIdx.x] = in[threadIdx.x];
}

__global__ void reads_all(const float *in, float *out) {
  __shared__ float w[256];
  int t = threadIdx.x;
  w[t] = in[blockIdx.x * 256 + t];
  __syncthreads();
  for (int s = 128; s > 0; s >>= 1) {
    if (t < s) w[t] += w[t + s];
    __syncthreads();
  }
  out[blockIdx.x * 256 + t] = w[t];
}

// CAST-LABEL: __global__ void block_sum_cast(
// CAST:      for (int s = 64; s > 32; s >>= 1) {
// CAST:      if (tid < 32) {
// CAST-NEXT:   float ks_v = acc[tid];
// CAST-NEXT:   ks_v += acc[tid + 32];
// CAST-NEXT:   for (int ks_o = 16; ks_o > 0; ks_o >>= 1) ks_v += __shfl_down_sync(0xffffffffu, ks_v, ks_o);
// CAST-NEXT:   if (tid == 0) acc[0] = ks_v;
// CAST-NEXT: }
// CAST-NEXT: if ((int)threadIdx.x == 0) out[blockIdx.x] = acc[0];

__global__ void block_sum_cast(const float *in, float *out) {
  __shared__ float acc[128];
  const int tid = (int)threadIdx.x;
  acc[tid] = in[blockIdx.x * 128 + tid];
  __syncthreads();
  for (int s = 64; s > 0; s >>= 1) {
    if (tid < s) acc[tid] += acc[tid + s];
    __syncthreads();
  }
  if ((int)threadIdx.x == 0) out[blockIdx.x] = acc[0];
}

// CHECK-LABEL: void launch_all(
// CHECK-NEXT:   block_sum<<<(n + 255) / 256, 256>>>(in, out, n);
// The CUDA samples' reduce3 form: the thread's partial sum in a register beside
// the array, `sdata[tid] = mySum = mySum + sdata[tid + s]`, thread 0's register
// stored at the end; the warp sets thread 0's register too.
// REG-LABEL: __global__ void block_sum_reg(
// REG:        for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
// REG-NEXT:     if (tid < s) {
// REG-NEXT:       sdata[tid] = mySum = mySum + sdata[tid + s];
// REG:        if (tid < 32) {
// REG-NEXT:     float ks_v = sdata[tid];
// REG-NEXT:     ks_v += sdata[tid + 32];
// REG-NEXT:     for (int ks_o = 16; ks_o > 0; ks_o >>= 1) ks_v += __shfl_down_sync(0xffffffffu, ks_v, ks_o);
// REG-NEXT:     if (tid == 0) { sdata[0] = ks_v; mySum = ks_v; }
// REG-NEXT:   }
// REG-NEXT:   if (tid == 0) out[blockIdx.x] = mySum;
__global__ void block_sum_reg(const float *in, float *out, unsigned int n) {
  __shared__ float sdata[256];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  float mySum = (i < n) ? in[i] : 0;
  if (i + blockDim.x < n) mySum += in[i + blockDim.x];
  sdata[tid] = mySum;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) {
      sdata[tid] = mySum = mySum + sdata[tid + s];
    }
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = mySum;
}

// The register read by every thread after the tree: only thread 0's is the sum.
__global__ void reg_read_all(const float *in, float *out, unsigned int n) {
  __shared__ float sdata[256];
  unsigned int tid = threadIdx.x;
  float mySum = in[blockIdx.x * 256 + tid];
  sdata[tid] = mySum;
  __syncthreads();
  for (unsigned int s = 128; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] = mySum = mySum + sdata[tid + s];
    __syncthreads();
  }
  out[blockIdx.x * 256 + tid] = mySum;
}

#define RBLOCK 256
#define SDATA(i) sdata[i]
// SPELLED-LABEL: __global__ void block_sum_spelled(
// SPELLED:      for (unsigned int s = RBLOCK / 2; s > 32; s = s / 2) {
// SPELLED:      if (tid < 32) {
// SPELLED-NEXT:   float ks_v = sdata[tid];
// SPELLED-NEXT:   ks_v = sdata[tid + 32] + ks_v;
// SPELLED-NEXT:   for (int ks_o = 16; ks_o > 0; ks_o >>= 1) ks_v = __shfl_down_sync(0xffffffffu, ks_v, ks_o) + ks_v;
// SPELLED-NEXT:   if (tid == 0) sdata[0] = ks_v;
// SPELLED-NEXT: }
// SPELLED-NEXT: if (0 == tid) out[blockIdx.x] = SDATA(0);
__global__ void block_sum_spelled(const float *in, float *out, unsigned int n) {
  __shared__ float sdata[RBLOCK];
  const unsigned tid = threadIdx.x;
  unsigned int i = blockIdx.x * RBLOCK + tid;
  SDATA(tid) = (i < n) ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned int s = RBLOCK / 2; 0 < s; s = s / 2) {
    if (s > tid) { SDATA(tid) = SDATA(s + tid) + SDATA(tid); }
    __syncthreads();
  }
  if (0 == tid) out[blockIdx.x] = SDATA(0);
}

// The loop halves another variable: not a tree.
__global__ void halves_other(const float *in, float *out) {
  __shared__ float sdata[256];
  unsigned tid = threadIdx.x, h = 256;
  sdata[tid] = in[blockIdx.x * 256 + tid];
  __syncthreads();
  for (unsigned s = 128; s > 0; h >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0] + (float)h;
}

// The combine reads another thread's slot (tid + 1 + s): not the tree's pairs.
__global__ void other_index(const float *in, float *out) {
  __shared__ float sdata[256];
  unsigned tid = threadIdx.x;
  sdata[tid] = in[blockIdx.x * 256 + tid];
  __syncthreads();
  for (unsigned s = 128; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + 1 + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

void launch_all(const float *in, float *out, const int *iin, int *iout, int n) {
  block_sum<<<(n + 255) / 256, 256>>>(in, out, n);
  block_max<<<n / 128, 128>>>(in, out);
  odd_block<<<n / 96, 96>>>(iin, iout);
  no_tree<<<1, 32>>>(in, out);
  reads_all<<<n / 256, 256>>>(in, out);
  block_sum_cast<<<n / 128, 128>>>(in, out);
  block_sum_reg<<<(n + 511) / 512, 256>>>(in, out, n);
  reg_read_all<<<n / 256, 256>>>(in, out, n);
  block_sum_spelled<<<(n + 255) / 256, RBLOCK>>>(in, out, n);
  halves_other<<<n / 256, 256>>>(in, out);
  other_index<<<n / 256, 256>>>(in, out);
}

// Only block_sum's loop condition changes; its note and the warp block are added.
// HUNKS: {{^}}1{{$}}
// REMOVED: {{^}}2{{$}}
// AGAIN: already applied: rule warp-reduce, kernel block_sum
// NEG: block of 96 threads is not a power of two of at least 64
// NEG2: kernel 'no_tree' has no shared-memory tree reduction this rule understands
// NEG3: kernel 'reads_all' uses the shared array after the tree other than reading element 0
// NEG4: kernel 'reg_read_all' uses the tree's register sum after the tree outside `if (tid == 0)`
// NEG5: kernel 'halves_other' has no shared-memory tree reduction this rule understands
// NEG6: kernel 'other_index' has no shared-memory tree reduction this rule understands
