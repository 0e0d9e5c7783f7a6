// mode=report: remarks at each kernel of the main file (the bottleneck guess
// from static features, then the planner's top skills), at the kernel's name
// as the compile sees it (a kernel declared through a macro is reported where
// the macro is used), exactly once per compile: host pass + device passes,
// device-only passes, several archs, and cc1 run as separate processes.

// RUN: %cuda-clang -fplugin=%plugin -fplugin-arg-kernelskill-mode=report --cuda-gpu-arch=sm_90 -fsyntax-only %s 2>&1 | FileCheck %s -DFILE=%s
// RUN: %cuda-clang -fplugin=%plugin -fplugin-arg-kernelskill-mode=report --cuda-gpu-arch=sm_90 --cuda-device-only -S -o %t.s %s 2>&1 | FileCheck %s -DFILE=%s

// The remarks come from clang's own AST, shared with libclang in the process
// (ast-share); the same remarks from the AST file the plugin writes when
// KS_PLUGIN_SHARE=0 (its fallback).
// RUN: env KS_PLUGIN_PROFILE=1 %cuda-clang -fplugin=%plugin -fplugin-arg-kernelskill-mode=report --cuda-gpu-arch=sm_90 -fsyntax-only %s 2>&1 | FileCheck %s --check-prefix=SHARED
// SHARED: kernelskill profile: ast-share {{[0-9.]+}} s cpu
// SHARED-NOT: ast-write
// SHARED: kernelskill profile: ast-adopt
// RUN: env KS_PLUGIN_SHARE=0 %cuda-clang -fplugin=%plugin -fplugin-arg-kernelskill-mode=report --cuda-gpu-arch=sm_90 -fsyntax-only %s 2>&1 | FileCheck %s -DFILE=%s
// RUN: env KS_PLUGIN_SHARE=0 KS_PLUGIN_PROFILE=1 %cuda-clang -fplugin=%plugin -fplugin-arg-kernelskill-mode=report --cuda-gpu-arch=sm_90 -fsyntax-only %s 2>&1 | FileCheck %s --check-prefix=FILE
// FILE-NOT: ast-share
// FILE: kernelskill profile: ast-write
// FILE: kernelskill profile: ast-load

// Act once: 8 remarks (2 + 2 + 4) whatever the passes.
// RUN: %cuda-clang -fplugin=%plugin -fplugin-arg-kernelskill-mode=report --cuda-gpu-arch=sm_80 --cuda-gpu-arch=sm_90 -fsyntax-only %s 2>&1 | grep -c 'remark: kernelskill' | FileCheck %s --check-prefix=ONCE
// RUN: rm -rf %t.d && mkdir -p %t.d && cd %t.d && %cuda-clang -fplugin=%plugin -fplugin-arg-kernelskill-mode=report --offload-arch=sm_90,sm_80 --cuda-device-only -S %s 2>&1 | grep -c 'remark: kernelskill' | FileCheck %s --check-prefix=ONCE
// RUN: env CLANG_SPAWN_CC1=1 %cuda-clang -fplugin=%plugin -fplugin-arg-kernelskill-mode=report --cuda-gpu-arch=sm_80 --cuda-gpu-arch=sm_90 -fsyntax-only %s 2>&1 | grep -c 'remark: kernelskill' | FileCheck %s --check-prefix=ONCE
// RUN: cd %t.d && env CLANG_SPAWN_CC1=1 %cuda-clang -fplugin=%plugin -fplugin-arg-kernelskill-mode=report --cuda-gpu-arch=sm_80 --cuda-gpu-arch=sm_90 --cuda-device-only -S %s 2>&1 | grep -c 'remark: kernelskill' | FileCheck %s --check-prefix=ONCE
// ONCE: {{^8$}}

// The device-only compile still wrote its assembly: the plugin adds, never replaces.
// RUN: FileCheck %s --check-prefix=PTX < %t.s
// PTX: .entry _Z4axpyifPKfPf

// top=1: one skill per kernel at most (matmul has three candidates).
// RUN: %cuda-clang -fplugin=%plugin -fplugin-arg-kernelskill-mode=report -fplugin-arg-kernelskill-top=1 --cuda-gpu-arch=sm_90 -fsyntax-only %s 2>&1 | grep -c 'consider' | FileCheck %s --check-prefix=TOP1
// TOP1: {{^2$}}

// The data folder (skills) is found from the library's own folder when the
// plugin runs inside clang, whose executable is elsewhere.
// RUN: env -u KS_DATADIR %cuda-clang -fplugin=%plugin -fplugin-arg-kernelskill-mode=report --cuda-gpu-arch=sm_90 -fsyntax-only %s 2>&1 | FileCheck %s -DFILE=%s

#define KERNEL __global__ void

// CHECK: [[FILE]]:[[@LINE+2]]:17: remark: kernelskill: kernel 'axpy': bottleneck guess: memory bandwidth (streaming: 2 global loads, 1 store
// CHECK: [[FILE]]:[[@LINE+1]]:17: remark: kernelskill: kernel 'axpy': consider mem.restrict-const
__global__ void axpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

// CHECK: [[FILE]]:[[@LINE+2]]:8: remark: kernelskill: kernel 'gather': bottleneck guess: memory latency (1 indirect access
// CHECK: [[FILE]]:[[@LINE+1]]:8: remark: kernelskill: kernel 'gather':
KERNEL gather(const int *__restrict__ idx, const float *__restrict__ x, float *__restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[idx[i]];
}

// CHECK: [[FILE]]:[[@LINE+5]]:17: remark: kernelskill: kernel 'matmul': bottleneck guess: memory (naive GEMM
// CHECK: [[FILE]]:[[@LINE+4]]:17: remark: kernelskill: kernel 'matmul': consider cmp.register-blocking
// CHECK: [[FILE]]:[[@LINE+3]]:17: remark: kernelskill: kernel 'matmul': consider mem.smem-tile-gemm
// CHECK: [[FILE]]:[[@LINE+2]]:17: remark: kernelskill: kernel 'matmul': consider cmp.tensor-core-mma
// CHECK-NOT: remark: kernelskill
__global__ void matmul(const float *A, const float *B, float *C, int N) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < N && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < N; k++) acc += A[row * N + k] * B[k * N + col];
    C[row * N + col] = acc;
  }
}
