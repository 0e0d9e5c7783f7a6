// Rule fast-math: transcendental calls and float divisions in one kernel become
// SFU intrinsics; the __device__ helper it calls gets a converted copy that only
// this kernel calls; the rest of the file (the helper itself, another kernel,
// the host entry) stays byte-identical.
//
// RUN: %strip-checks %s %t.in.cu
// RUN: %kernelskill rewrite %t.in.cu --kernel act --rule fast-math -o %t.cu
// RUN: FileCheck %s --input-file=%t.cu
// RUN: not diff -u %t.in.cu %t.cu > %t.diff
// RUN: grep -c '^[-+]' %t.diff | FileCheck %s --check-prefix=COUNT
// RUN: %nvcc -c -arch=sm_90 %t.cu -o %t.o
//
// Idempotence: a second application says so and changes nothing.
// RUN: %kernelskill rewrite %t.cu --kernel act --rule fast-math -o %t2.cu 2>&1 | FileCheck %s --check-prefix=AGAIN
// RUN: cmp %t.cu %t2.cu
//
// Negative: no transcendental and no float division: exit 1, file untouched.
// RUN: cp %t.in.cu %t.neg.cu
// RUN: %python -c "import subprocess,sys; sys.exit(subprocess.call(sys.argv[1:]) != 1)" %kernelskill rewrite %t.neg.cu --kernel plain --rule fast-math -o %t.neg.cu
// RUN: not %kernelskill rewrite %t.neg.cu --kernel plain --rule fast-math -o %t.neg.cu 2>&1 | FileCheck %s --check-prefix=NEG
// RUN: cmp %t.in.cu %t.neg.cu

#include <cuda_runtime.h>
#include <math.h>

// Called by the kernel: stays as written, and a converted copy follows it.
// CHECK: {{^}}__device__ float helper(float x) { return expf(x) / x; }
// CHECK-EMPTY:
// CHECK-NEXT: // kernelskill: rule:fast-math (rule fast-math) copy of helper for kernel act: a / b -> __fdividef(a, b), expf -> __expf
// CHECK-NEXT: {{^}}__device__ float helper_ks_fast(float x) { return __fdividef(__expf(x), x); }
__device__ float helper(float x) { return expf(x) / x; }

// CHECK-LABEL: __global__ void act(
__global__ void act(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    // CHECK: // kernelskill: rule:fast-math (rule fast-math) a / b -> __fdividef(a, b), expf -> __expf
    // CHECK-NEXT: float s = __fdividef(1.0f, (1.0f + __expf(-v)));
    float s = 1.0f / (1.0f + expf(-v));
    // CHECK: // kernelskill: rule:fast-math (rule fast-math) logf -> __logf, sinf -> __sinf, cos -> __cosf
    // CHECK-NEXT: float t = __logf(v) + __sinf(v) * __cosf(v);
    float t = logf(v) + sinf(v) * cos(v);
    // Left alone: division by a constant, double math; the helper's copy called.
    // CHECK: // kernelskill: rule:fast-math (rule fast-math) helper -> helper_ks_fast
    // CHECK-NEXT: float u = t / 3.0f + (float)exp((double)v) + helper_ks_fast(v);
    float u = t / 3.0f + (float)exp((double)v) + helper(v);
    // CHECK: // kernelskill: rule:fast-math (rule fast-math) a / b -> __fdividef(a, b)
    // CHECK-NEXT: y[i] = __fdividef(__fdividef(s, t), u);
    y[i] = s / t / u;
  }
}

// CHECK-LABEL: __global__ void plain(
// CHECK: if (i < n) y[i] = x[i] * 2.0f + 0.0f * (float)i;
__global__ void plain(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * 2.0f + 0.0f * (float)i;
}

// CHECK-LABEL: void act_forward(
// CHECK: act<<<(n + 255) / 256, 256>>>(x, y, n);
extern "C" void act_forward(const float *x, float *y, int n) {
  act<<<(n + 255) / 256, 256>>>(x, y, n);
}

// Four changed lines, four provenance lines, the copy (note, line, blank), two
// diff headers.
// COUNT: {{^}}17{{$}}
// AGAIN: already applied: rule fast-math, kernel act
// NEG: rule fast-math, kernel plain: kernel 'plain' has no single-precision transcendental call
