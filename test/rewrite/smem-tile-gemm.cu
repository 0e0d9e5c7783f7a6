// Rule smem-tile-gemm: a naive GEMM (one output per thread, k-loop) becomes a
// shared-memory tiled kernel; its launch gets the tiled grid and block. Register
// blocking with regs=N, 2-D with cols=N. Other code in the file stays byte-identical.
//
// RUN: %strip-checks %s %t.in.cu
// RUN: %kernelskill rewrite %t.in.cu --kernel sgemm --rule smem-tile-gemm -o %t.cu
// RUN: FileCheck %s --input-file=%t.cu
// RUN: not diff -u %t.in.cu %t.cu > %t.diff
// RUN: FileCheck %s --check-prefix=DIFF --input-file=%t.diff
// RUN: grep -c '^@@' %t.diff | FileCheck %s --check-prefix=HUNKS
// RUN: grep -c '^-' %t.diff | FileCheck %s --check-prefix=REMOVED
// RUN: %nvcc -c -arch=sm_90 %t.cu -o %t.o
//
// Register blocking, 32x32 tiles, 4 outputs per thread.
// RUN: %kernelskill rewrite %t.in.cu --kernel sgemm --rule smem-tile-gemm --param tile=32 --param regs=4 -o %t.rb.cu
// RUN: FileCheck %s --check-prefix=RB --input-file=%t.rb.cu
// RUN: %nvcc -c -arch=sm_90 %t.rb.cu -o %t.rb.o
// cols=1 (the default) is the same rewrite, byte for byte.
// RUN: %kernelskill rewrite %t.in.cu --kernel sgemm --rule smem-tile-gemm --param tile=32 --param regs=4 --param cols=1 -o %t.rb1.cu
// RUN: cmp %t.rb.cu %t.rb1.cu
//
// 2-D register blocking: 64x64 tiles, 4x4 outputs per thread (block 16x16);
// 32x32 tiles, 4x2 (block 16x8); 64x64, 8x4 (block 16x8).
// RUN: %kernelskill rewrite %t.in.cu --kernel sgemm --rule smem-tile-gemm --param tile=64 --param regs=4 --param cols=4 -o %t.2d.cu
// RUN: FileCheck %s --check-prefix=TWOD --input-file=%t.2d.cu
// RUN: %nvcc -c -arch=sm_90 %t.2d.cu -o %t.2d.o
// RUN: %kernelskill rewrite %t.in.cu --kernel sgemm --rule smem-tile-gemm --param tile=32 --param regs=4 --param cols=2 -o %t.2e.cu
// RUN: FileCheck %s --check-prefix=TWOE --input-file=%t.2e.cu
// RUN: %nvcc -c -arch=sm_90 %t.2e.cu -o %t.2e.o
// RUN: %kernelskill rewrite %t.in.cu --kernel sgemm --rule smem-tile-gemm --param tile=64 --param regs=8 --param cols=4 -o %t.2f.cu
// RUN: %nvcc -c -arch=sm_90 %t.2f.cu -o %t.2f.o
// RUN: %kernelskill rewrite %t.2d.cu --kernel sgemm --rule smem-tile-gemm --param tile=64 --param regs=4 --param cols=4 -o %t.2d2.cu 2>&1 | FileCheck %s --check-prefix=AGAIN
// RUN: cmp %t.2d.cu %t.2d2.cu
// Double: 32x32 tiles with cols=2 (16-byte pad = 2 doubles); tile=64 refused.
// RUN: %kernelskill rewrite %t.in.cu --kernel dgemm --rule smem-tile-gemm --param tile=32 --param regs=2 --param cols=2 -o %t.dd.cu
// RUN: FileCheck %s --check-prefix=DBL --input-file=%t.dd.cu
// RUN: %nvcc -c -arch=sm_90 %t.dd.cu -o %t.dd.o
//
// The rewrites against the original on the CPU (threads emulated), sizes that
// are not multiples of the tile: bitwise the same outputs.
// RUN: %python %S/Inputs/smem-tile-gemm-emu.py %clang19 %t.in.cu %t.cu sgemm 16 1 1 plain
// RUN: %python %S/Inputs/smem-tile-gemm-emu.py %clang19 %t.in.cu %t.rb.cu sgemm 32 4 1 plain
// RUN: %python %S/Inputs/smem-tile-gemm-emu.py %clang19 %t.in.cu %t.2d.cu sgemm 64 4 4 plain
// RUN: %python %S/Inputs/smem-tile-gemm-emu.py %clang19 %t.in.cu %t.2e.cu sgemm 32 4 2 plain
// RUN: %python %S/Inputs/smem-tile-gemm-emu.py %clang19 %t.in.cu %t.2f.cu sgemm 64 8 4 plain
//
// Idempotence.
// RUN: %kernelskill rewrite %t.cu --kernel sgemm --rule smem-tile-gemm -o %t2.cu 2>&1 | FileCheck %s --check-prefix=AGAIN
// RUN: cmp %t.cu %t2.cu
//
// Negative: a GEMM-like kernel with an extra statement, a bad tile: exit 1, file untouched.
// RUN: cp %t.in.cu %t.neg.cu
// RUN: %python -c "import subprocess,sys; sys.exit(subprocess.call(sys.argv[1:]) != 1)" %kernelskill rewrite %t.neg.cu --kernel scaled --rule smem-tile-gemm -o %t.neg.cu
// RUN: not %kernelskill rewrite %t.neg.cu --kernel scaled --rule smem-tile-gemm -o %t.neg.cu 2>&1 | FileCheck %s --check-prefix=NEG
// RUN: not %kernelskill rewrite %t.neg.cu --kernel sgemm --rule smem-tile-gemm --param tile=12 -o %t.neg.cu 2>&1 | FileCheck %s --check-prefix=NEG2
// Parameter combos: a block over 1024 or under 32 threads, cols not a power of two.
// RUN: not %kernelskill rewrite %t.neg.cu --kernel sgemm --rule smem-tile-gemm --param tile=64 -o %t.neg.cu 2>&1 | FileCheck %s --check-prefix=NEG3
// RUN: not %kernelskill rewrite %t.neg.cu --kernel sgemm --rule smem-tile-gemm --param tile=8 --param regs=4 --param cols=2 -o %t.neg.cu 2>&1 | FileCheck %s --check-prefix=NEG4
// RUN: not %kernelskill rewrite %t.neg.cu --kernel sgemm --rule smem-tile-gemm --param tile=32 --param cols=3 -o %t.neg.cu 2>&1 | FileCheck %s --check-prefix=NEG5
// RUN: not %kernelskill rewrite %t.neg.cu --kernel dgemm --rule smem-tile-gemm --param tile=64 --param regs=4 --param cols=4 -o %t.neg.cu 2>&1 | FileCheck %s --check-prefix=NEG6
// RUN: cmp %t.in.cu %t.neg.cu
//
// First-draft idioms (Inputs/gemm64.cu): an early-return guard and (size_t)
// casts on the row/k factor of each index; the casts stay in the rewrite.
// RUN: cp %S/Inputs/gemm64.cu %t.w.in.cu
// RUN: %kernelskill rewrite %t.w.in.cu --kernel sgemm64 --rule smem-tile-gemm -o %t.w.cu
// RUN: FileCheck %s --check-prefix=W64 --input-file=%t.w.cu
// RUN: %nvcc -c -arch=sm_90 %t.w.cu -o %t.w.o
// RUN: %kernelskill rewrite %t.w.cu --kernel sgemm64 --rule smem-tile-gemm -o %t.w2.cu 2>&1 | FileCheck %s --check-prefix=WAGAIN
// RUN: cmp %t.w.cu %t.w2.cu
// RUN: not %kernelskill rewrite %t.w.in.cu --kernel bad_late_cast --rule smem-tile-gemm 2>&1 | FileCheck %s --check-prefix=WNEG
// RUN: not %kernelskill rewrite %t.w.in.cu --kernel bad_narrow --rule smem-tile-gemm 2>&1 | FileCheck %s --check-prefix=WNEG
// RUN: cmp %S/Inputs/gemm64.cu %t.w.in.cu
//
// W64: // kernelskill: rule:smem-tile-gemm {{[(]}}rule smem-tile-gemm) 16x16 shared-memory tiles, block 16x16
// W64-NEXT: __global__ void sgemm64(const float *a, const float *b, float *c, int n)
// W64: [&](int ks_ar, int ks_ak) { return (ks_ar < (n) && ks_ak < (n)) ? a[(size_t)ks_ar * (n) + ks_ak] : 0.0f; },
// W64-NEXT: [&](int ks_bk, int ks_bn) { return (ks_bk < (n) && ks_bn < (n)) ? b[(size_t)ks_bk * (n) + ks_bn] : 0.0f; },
// W64-NEXT: [&](int ks_row, int ks_col, float ks_v) {
// W64-NEXT: if (ks_row < (n) && ks_col < (n)) c[(size_t)ks_row * (n) + ks_col] = ks_v;
// W64: __global__ void bad_late_cast(
// W64: sgemm64<<<dim3(((n) + 15) / 16, ((n) + 15) / 16), dim3(16, 16)>>>(a, b, c, n);
// W64-NEXT: bad_late_cast<<<blocks, threads>>>(a, b, c, n);
// W64: // end of file
// WAGAIN: already applied
// WNEG: is not a naive GEMM this rule understands

#include <cuda_runtime.h>

#define TILE_UNUSED 4

// The shipped header once, above the kernel, then the kernel's note and its
// body: a call of the header's template with the kernel's loads and store.
// CHECK: // kernelskill: rule:smem-tile-gemm (rule smem-tile-gemm) the shipped shared-memory tiled GEMM (share/kernelskill/templates/ks_tilegemm.cuh)
// CHECK-NEXT: /* ks_tilegemm.cuh
// CHECK:      #ifndef KS_TILEGEMM_CUH
// CHECK:      __device__ __forceinline__ void gemm_1d(RB row_blk, CB col_blk, KN K, E zero, LA load_a, LB load_b, ST store) {
// CHECK:      __device__ __forceinline__ void gemm_2d(RB row_blk, CB col_blk, KN K, E zero, LA load_a, LB load_b, ST store) {
// CHECK:      #endif /* KS_TILEGEMM_CUH */
// CHECK-EMPTY:
// CHECK-NEXT: // kernelskill: rule:smem-tile-gemm (rule smem-tile-gemm) 16x16 shared-memory tiles, block 16x16
// CHECK-NEXT: __global__ void sgemm(const float *A, const float *B, float *C, int M, int N, int K) {
// CHECK-NEXT:   ks_tilegemm::gemm_1d<16, 1, false, float, int, int, int>(blockIdx.y, blockIdx.x, (K), 0.0f,
// CHECK-NEXT:       [&](int ks_ar, int ks_ak) { return (ks_ar < (M) && ks_ak < (K)) ? A[ks_ar * (K) + ks_ak] : 0.0f; },
// CHECK-NEXT:       [&](int ks_bk, int ks_bn) { return (ks_bk < (K) && ks_bn < (N)) ? B[ks_bk * (N) + ks_bn] : 0.0f; },
// CHECK-NEXT:       [&](int ks_row, int ks_col, float ks_v) {
// CHECK-NEXT:         if (ks_row < (M) && ks_col < (N)) C[ks_row * (N) + ks_col] = ks_v;
// CHECK-NEXT:       });
// CHECK-NEXT: }
// RB: 32x32 shared-memory tiles, 4 outputs per thread (register blocking), block 32x8
// RB-NEXT: __global__ void sgemm(
// RB-NEXT: ks_tilegemm::gemm_1d<32, 4, false, float, int, int, int>(blockIdx.y, blockIdx.x, (K), 0.0f,
// RB: sgemm<<<dim3(((n) + 31) / 32, ((m) + 31) / 32), dim3(32, 8)>>>(a, b, c, m, n, k);
// TWOD: // kernelskill: rule:smem-tile-gemm (rule smem-tile-gemm) 64x64 shared-memory tiles, 4x4 outputs per thread (2-D register blocking), block 16x16
// TWOD-NEXT: __global__ void sgemm(
// TWOD-NEXT:   ks_tilegemm::gemm_2d<64, 4, 4, false, float, int, int, int>(blockIdx.y, blockIdx.x, (K), 0.0f,
// TWOD-NEXT:       [&](int ks_ar, int ks_ak) { return (ks_ar < (M) && ks_ak < (K)) ? A[ks_ar * (K) + ks_ak] : 0.0f; },
// TWOD-NEXT:       [&](int ks_bk, int ks_bn) { return (ks_bk < (K) && ks_bn < (N)) ? B[ks_bk * (N) + ks_bn] : 0.0f; },
// TWOD-NEXT:       [&](int ks_row, int ks_col, float ks_v) {
// TWOD-NEXT:         if (ks_row < (M) && ks_col < (N)) C[ks_row * (N) + ks_col] = ks_v;
// TWOD-NEXT:       });
// TWOD-NEXT: }
// TWOD:      sgemm<<<dim3(((n) + 63) / 64, ((m) + 63) / 64), dim3(16, 16)>>>(a, b, c, m, n, k);
// TWOE: 32x32 shared-memory tiles, 4x2 outputs per thread (2-D register blocking), block 16x8
// TWOE-NEXT: __global__ void sgemm(
// TWOE-NEXT: ks_tilegemm::gemm_2d<32, 4, 2, false, float, int, int, int>(blockIdx.y, blockIdx.x, (K), 0.0f,
// TWOE: sgemm<<<dim3(((n) + 31) / 32, ((m) + 31) / 32), dim3(16, 8)>>>(a, b, c, m, n, k);
// DBL: 32x32 shared-memory tiles, 2x2 outputs per thread (2-D register blocking), block 16x16
// DBL-NEXT: __global__ void dgemm(
// DBL-NEXT: ks_tilegemm::gemm_2d<32, 2, 2, false, double, int, int, int>(blockIdx.y, blockIdx.x, (K), 0.0,
// DBL-NEXT: [&](int ks_ar, int ks_ak) { return (ks_ar < (M) && ks_ak < (K)) ? A[ks_ar * (K) + ks_ak] : 0.0; },
// DBL-NEXT: [&](int ks_bk, int ks_bn) { return (ks_bk < (K) && ks_bn < (N)) ? B[ks_bk * (N) + ks_bn] : 0.0; },
// DBL-NEXT: [&](int ks_row, int ks_col, double ks_v) {

__global__ void sgemm(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float sum = 0.0f;
    for (int k = 0; k < K; ++k)
      sum += A[row * K + k] * B[k * N + col];
    C[row * N + col] = sum;
  }
}

// An epilogue this rule does not keep (it reads A at an index other than row or
// col; smem-tile-gemm-linear.cu has the epilogues it keeps): refused.
// CHECK-LABEL: __global__ void scaled(
// CHECK-NEXT:    int row = blockIdx.y * blockDim.y + threadIdx.y;
__global__ void scaled(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float sum = 0.0f;
    for (int k = 0; k < K; ++k)
      sum += A[row * K + k] * B[k * N + col];
    sum *= A[row * K];
    C[row * N + col] = sum;
  }
}

// CHECK-LABEL: extern "C" void sgemm_forward(
// CHECK:      dim3 grid((n + 15) / 16, (m + 15) / 16);
// CHECK-NEXT: // kernelskill: rule:smem-tile-gemm (rule smem-tile-gemm) grid of 16x16 tiles over m x n, block 16x16
// CHECK-NEXT: sgemm<<<dim3(((n) + 15) / 16, ((m) + 15) / 16), dim3(16, 16)>>>(a, b, c, m, n, k);
// CHECK-NEXT: }
// CHECK:      scaled<<<grid, block>>>(a, b, c, m, n, k);
extern "C" void sgemm_forward(const float *a, const float *b, float *c, int m, int n, int k) {
  dim3 block(16, 16);
  dim3 grid((n + 15) / 16, (m + 15) / 16);
  sgemm<<<grid, block>>>(a, b, c, m, n, k);
}

__global__ void dgemm(const double *A, const double *B, double *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    double sum = 0.0;
    for (int k = 0; k < K; ++k)
      sum += A[row * K + k] * B[k * N + col];
    C[row * N + col] = sum;
  }
}

extern "C" void dgemm_forward(const double *a, const double *b, double *c, int m, int n, int k) {
  dgemm<<<dim3((n + 15) / 16, (m + 15) / 16), dim3(16, 16)>>>(a, b, c, m, n, k);
}

extern "C" void scaled_forward(const float *a, const float *b, float *c, int m, int n, int k) {
  dim3 block(16, 16);
  dim3 grid((n + 15) / 16, (m + 15) / 16);
  scaled<<<grid, block>>>(a, b, c, m, n, k);
}

// Only the shipped header, the kernel body (7 lines out), its provenance line
// and the launch line change: two hunks, 9 lines removed (diff pairs the
// kernel's first line with the header's text, so it shows as removed and
// added again), plus the --- header.
// DIFF:      {{^}}+// kernelskill: rule:smem-tile-gemm (rule smem-tile-gemm) 16x16
// DIFF-NEXT: {{^[+ ]}}__global__ void sgemm(
// DIFF:      {{^}}-  sgemm<<<grid, block>>>(a, b, c, m, n, k);
// HUNKS: {{^}}2{{$}}
// REMOVED: {{^}}10{{$}}

// AGAIN: already applied: rule smem-tile-gemm, kernel sgemm
// NEG: rule smem-tile-gemm, kernel scaled: kernel 'scaled' is not a naive GEMM this rule understands
// NEG2: tile=12: use 8, 16, 32 or 64
// NEG3: tile=64 regs=1 cols=1: a block of 64x64 = 4096 threads; it must have 32 to 1024
// NEG4: tile=8 regs=4 cols=2: a block of 4x2 = 8 threads; it must have 32 to 1024
// NEG5: cols=3: use 1, 2, 4 or 8 (at most the tile)
// NEG6: tile=64 on double ('dgemm'): its tiles need over 48 KB of shared memory; use tile=32
