// Rule read-only-cache: loads from pointer parameters the kernel only reads go
// through __ldg; written, reassigned or address-taken pointers are left alone.
//
// RUN: %strip-checks %s %t.in.cu
// RUN: %kernelskill rewrite %t.in.cu --kernel gather --rule read-only-cache -o %t.cu
// RUN: FileCheck %s --input-file=%t.cu
// RUN: not diff -u %t.in.cu %t.cu > %t.diff
// RUN: grep -c '^-' %t.diff | FileCheck %s --check-prefix=REMOVED
// RUN: %nvcc -c -arch=sm_90 %t.cu -o %t.o
//
// Idempotence.
// RUN: %kernelskill rewrite %t.cu --kernel gather --rule read-only-cache -o %t2.cu 2>&1 | FileCheck %s --check-prefix=AGAIN
// RUN: cmp %t.cu %t2.cu
//
// Negative: in-place kernel (the only input is also written), and a launch
// passing the same buffer as input and output: exit 1, file untouched.
// RUN: cp %t.in.cu %t.neg.cu
// RUN: %python -c "import subprocess,sys; sys.exit(subprocess.call(sys.argv[1:]) != 1)" %kernelskill rewrite %t.neg.cu --kernel inplace --rule read-only-cache -o %t.neg.cu
// RUN: not %kernelskill rewrite %t.neg.cu --kernel inplace --rule read-only-cache -o %t.neg.cu 2>&1 | FileCheck %s --check-prefix=NEG
// RUN: not %kernelskill rewrite %t.neg.cu --kernel aliased --rule read-only-cache -o %t.neg.cu 2>&1 | FileCheck %s --check-prefix=NEG2
// RUN: cmp %t.in.cu %t.neg.cu

#include <cuda_runtime.h>

__global__ void gather(const float *x, float *y, const int *idx, float *w, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = a * x[idx[i]] + y[i];
    w[i] = x[i];
  }
}
// CHECK-LABEL: __global__ void gather(
// CHECK:      // kernelskill: rule:read-only-cache (rule read-only-cache) read-only loads of x through __ldg; read-only loads of idx through __ldg
// CHECK-NEXT: y[i] = a * __ldg(&x[__ldg(&idx[i])]) + y[i];
// CHECK-NEXT: // kernelskill: rule:read-only-cache (rule read-only-cache) read-only loads of x through __ldg
// CHECK-NEXT: w[i] = __ldg(&x[i]);

__global__ void inplace(float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = a * x[i];
}

__global__ void aliased(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}

// CHECK-LABEL: extern "C" void run(
// CHECK-NEXT:  gather<<<(n + 255) / 256, 256>>>(x, y, idx, w, a, n);
extern "C" void run(const float *x, float *y, const int *idx, float *w, float a, int n) {
  gather<<<(n + 255) / 256, 256>>>(x, y, idx, w, a, n);
}

extern "C" void run_others(float *y, float a, int n) {
  inplace<<<(n + 255) / 256, 256>>>(y, a, n);
  aliased<<<(n + 255) / 256, 256>>>(y, y, n);
}

// Two lines changed (plus the --- header).
// REMOVED: {{^}}3{{$}}
// AGAIN: already applied: rule read-only-cache, kernel gather
// NEG: no read-only pointer parameter in 'inplace': 'x' is written, reassigned or has its address taken
// NEG2: no read-only pointer parameter in 'aliased': {{.*}}.cu:[[@LINE-7]]: 'x' gets the same argument as a written pointer
