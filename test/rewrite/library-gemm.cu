// Rule library-gemm: the launch of a naive GEMM becomes a cublasSgemm call
// (row-major by operand order: B first), the original launch kept as the
// fallback; the header is included and -lcublas recorded in the flags line.
//
// RUN: %strip-checks %s %t.in.cu
// RUN: %kernelskill rewrite %t.in.cu --kernel sgemm --rule library-gemm -o %t.cu
// RUN: FileCheck %s --input-file=%t.cu
// RUN: not diff -u %t.in.cu %t.cu > %t.diff
// RUN: grep -c '^@@' %t.diff | FileCheck %s --check-prefix=HUNKS
// RUN: grep -c '^-' %t.diff | FileCheck %s --check-prefix=REMOVED
// RUN: %nvcc -c -arch=sm_90 %t.cu -o %t.o
//
// Idempotence.
// RUN: %kernelskill rewrite %t.cu --kernel sgemm --rule library-gemm -o %t2.cu 2>&1 | FileCheck %s --check-prefix=AGAIN
// RUN: cmp %t.cu %t2.cu
//
// Negative: not a plain GEMM (accumulates into C): exit 1, file untouched.
// RUN: cp %t.in.cu %t.neg.cu
// RUN: %python -c "import subprocess,sys; sys.exit(subprocess.call(sys.argv[1:]) != 1)" %kernelskill rewrite %t.neg.cu --kernel accum --rule library-gemm -o %t.neg.cu
// RUN: not %kernelskill rewrite %t.neg.cu --kernel accum --rule library-gemm -o %t.neg.cu 2>&1 | FileCheck %s --check-prefix=NEG
// RUN: cmp %t.in.cu %t.neg.cu
//
// First-draft idioms (Inputs/gemm64.cu): an early-return guard and (size_t)
// casts on the row/k factor of each index; the casts stay in the rewrite.
// RUN: cp %S/Inputs/gemm64.cu %t.w.in.cu
// RUN: %kernelskill rewrite %t.w.in.cu --kernel sgemm64 --rule library-gemm -o %t.w.cu
// RUN: FileCheck %s --check-prefix=W64 --input-file=%t.w.cu
// RUN: %nvcc -c -arch=sm_90 %t.w.cu -o %t.w.o
// RUN: %kernelskill rewrite %t.w.cu --kernel sgemm64 --rule library-gemm -o %t.w2.cu 2>&1 | FileCheck %s --check-prefix=WAGAIN
// RUN: cmp %t.w.cu %t.w2.cu
// RUN: not %kernelskill rewrite %t.w.in.cu --kernel bad_late_cast --rule library-gemm 2>&1 | FileCheck %s --check-prefix=WNEG
// RUN: not %kernelskill rewrite %t.w.in.cu --kernel bad_narrow --rule library-gemm 2>&1 | FileCheck %s --check-prefix=WNEG
// RUN: cmp %S/Inputs/gemm64.cu %t.w.in.cu
//
// W64: // kernelskill-flags: -lcublas
// W64: __global__ void sgemm64(const float *a, const float *b, float *c, int n)
// W64-NEXT: {
// W64-NEXT: int col = blockIdx.x * blockDim.x + threadIdx.x;
// W64: cublasSgemm(ks_cublas, CUBLAS_OP_N, CUBLAS_OP_N, (n), (n), (n), &ks_alpha, (b), (n), (a), (n), &ks_beta,
// W64-NEXT: (c), (n)) != CUBLAS_STATUS_SUCCESS)
// W64-NEXT: sgemm64<<<blocks, threads>>>(a, b, c, n);
// W64: bad_late_cast<<<blocks, threads>>>(a, b, c, n);
// W64: // end of file
// WAGAIN: already applied
// WNEG: is not a naive GEMM this rule understands

// CHECK: // kernelskill: rule:library-gemm (rule library-gemm) nvcc flags -lcublas
// CHECK-NEXT: // kernelskill-flags: -lcublas
// CHECK-NEXT: #include <cuda_runtime.h>
// CHECK-NEXT: #include <stdio.h>
// CHECK-NEXT: // kernelskill: rule:library-gemm (rule library-gemm) cuBLAS header
// CHECK-NEXT: #include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdio.h>

__global__ void sgemm(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M || col >= N) return;
  float acc = 0.0f;
  for (int k = 0; k < K; k++) {
    acc += A[row * K + k] * B[k * N + col];
  }
  C[row * N + col] = acc;
}

__global__ void accum(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M || col >= N) return;
  float acc = 0.0f;
  for (int k = 0; k < K; k++) acc += A[row * K + k] * B[k * N + col];
  C[row * N + col] += acc;
}

// CHECK-LABEL: extern "C" void sgemm_forward(
// CHECK:      // kernelskill: rule:library-gemm (rule library-gemm) cublasSgemm (row-major via operand order), original launch as fallback
// CHECK-NEXT: {
// CHECK-NEXT:   static cublasHandle_t ks_cublas = nullptr;
// CHECK:        const float ks_alpha = 1.0f, ks_beta = 0.0f;
// CHECK:        cublasSetStream(ks_cublas, stream) != CUBLAS_STATUS_SUCCESS ||
// CHECK-NEXT:   cublasSgemm(ks_cublas, CUBLAS_OP_N, CUBLAS_OP_N, (n), (m), (k), &ks_alpha, (b), (n), (a), (k), &ks_beta,
// CHECK-NEXT:     (c), (n)) != CUBLAS_STATUS_SUCCESS)
// CHECK-NEXT:   sgemm<<<grid, block, 0, stream>>>(a, b, c, m, n, k);
// CHECK-NEXT: }
// CHECK-NEXT: if (cudaGetLastError() != cudaSuccess) fprintf(stderr, "launch failed\n");

extern "C" void sgemm_forward(const float *a, const float *b, float *c, int m, int n, int k) {
  cudaStream_t stream = 0;
  dim3 block(16, 16);
  dim3 grid((n + 15) / 16, (m + 15) / 16);
  sgemm<<<grid, block, 0, stream>>>(a, b, c, m, n, k);
  if (cudaGetLastError() != cudaSuccess) fprintf(stderr, "launch failed\n");
}

// Header + flags (2 lines each, one hunk) and the launch: two hunks, one line removed.
// HUNKS: {{^}}2{{$}}
// REMOVED: {{^}}2{{$}}
// AGAIN: already applied: rule library-gemm, kernel sgemm
// NEG: rule library-gemm, kernel accum: kernel 'accum' is not a naive GEMM this rule understands
