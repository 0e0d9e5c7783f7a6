// Rule row-reduce: a one-thread-per-row kernel (naive softmax: max pass, sum of
// exp pass, write pass) becomes one block per row; each row loop is strided over
// the block's threads and followed by a block reduction; the launch gets
// grid = rows, block = threads. mode=warp: one warp per row (row sums, a store of
// the row's result by one lane). The rest of the file stays byte-identical.
//
// RUN: %strip-checks %s %t.in.cu
// RUN: %kernelskill rewrite %t.in.cu --kernel softmax_rows --rule row-reduce -o %t.cu
// RUN: FileCheck %s --input-file=%t.cu
// RUN: not diff -u %t.in.cu %t.cu > %t.diff
// RUN: grep -c '^@@' %t.diff | FileCheck %s --check-prefix=HUNKS
// RUN: grep -c '^-' %t.diff | FileCheck %s --check-prefix=REMOVED
// RUN: FileCheck %s --check-prefix=DIFF --input-file=%t.diff
// RUN: %nvcc -c -arch=sm_90 %t.cu -o %t.o
//
// Warp per row, 128 threads (4 rows per block), on the row-sum kernel.
// RUN: %kernelskill rewrite %t.in.cu --kernel row_sums --rule row-reduce --param mode=warp --param threads=128 -o %t.w.cu
// RUN: FileCheck %s --check-prefix=WARP --input-file=%t.w.cu
// RUN: %nvcc -c -arch=sm_90 %t.w.cu -o %t.w.o
//
// unroll=1: the plain strided loop (by default each row loop is unrolled 4 times:
// a main loop of whole groups with no exit test between them, then a remainder).
// RUN: %kernelskill rewrite %t.in.cu --kernel row_sums --rule row-reduce --param unroll=1 -o %t.u1.cu
// RUN: FileCheck %s --check-prefix=PLAIN --input-file=%t.u1.cu
// RUN: %nvcc -c -arch=sm_90 %t.u1.cu -o %t.u1.o
// RUN: not %kernelskill rewrite %t.in.cu --kernel row_sums --rule row-reduce --param unroll=0 -o %t.u0.cu 2>&1 | FileCheck %s --check-prefix=NEG4
//
// Composition: the second kernel of the same file after the first (the helpers
// already written are reused, not written twice).
// RUN: %kernelskill rewrite %t.cu --kernel row_sums --rule row-reduce -o %t.both.cu
// RUN: grep -c '^#define KS_ROWREDUCE_CUH' %t.both.cu | FileCheck %s --check-prefix=ONCE
// RUN: %nvcc -c -arch=sm_90 %t.both.cu -o %t.both.o
//
// Idempotence.
// RUN: %kernelskill rewrite %t.cu --kernel softmax_rows --rule row-reduce -o %t2.cu 2>&1 | FileCheck %s --check-prefix=AGAIN
// RUN: cmp %t.cu %t2.cu
//
// Negative: a running sum stored per element (the loop reads its accumulator),
// an in-place update (reads what it writes), a bad parameter: exit 1, file untouched.
// RUN: cp %t.in.cu %t.neg.cu
// RUN: %expect-exit 1 %kernelskill rewrite %t.neg.cu --kernel prefix_rows --rule row-reduce -o %t.neg.cu
// RUN: not %kernelskill rewrite %t.neg.cu --kernel prefix_rows --rule row-reduce -o %t.neg.cu 2>&1 | FileCheck %s --check-prefix=NEG
// RUN: not %kernelskill rewrite %t.neg.cu --kernel scale_in_place --rule row-reduce -o %t.neg.cu 2>&1 | FileCheck %s --check-prefix=NEG2
// RUN: %expect-exit 1 %kernelskill rewrite %t.neg.cu --kernel softmax_rows --rule row-reduce --param threads=100 -o %t.neg.cu
// RUN: not %kernelskill rewrite %t.neg.cu --kernel softmax_rows --rule row-reduce --param threads=100 -o %t.neg.cu 2>&1 | FileCheck %s --check-prefix=NEG3
// RUN: cmp %t.in.cu %t.neg.cu

#include <cuda_runtime.h>
#include <math.h>

// Not a kernel this rule touches.
__device__ float square(float v) { return v * v; }

// CHECK: // kernelskill: rule:row-reduce (rule row-reduce) the shipped row reductions (share/kernelskill/templates/ks_rowreduce.cuh)
// CHECK-NEXT: /* ks_rowreduce.cuh — the row reductions of rule row-reduce
// CHECK:      #define KS_ROWREDUCE_CUH
// CHECK:      template <class T> __device__ __forceinline__ T block_sum(T v) { return all<op_sum, BLOCK, true>(v); }
// CHECK:      #endif /* KS_ROWREDUCE_CUH */
// CHECK:      // kernelskill: rule:row-reduce (rule row-reduce) one block of 256 threads per row, cooperative reductions
// CHECK-NEXT: __global__ void softmax_rows(const float *x, float *y, int rows, int cols) {
// CHECK-NEXT:   int row = blockIdx.x;
// CHECK-NEXT:   if (row >= rows) return;
// CHECK-NEXT:   const float *xr = x + (size_t)row * cols;
// CHECK-NEXT:   float *yr = y + (size_t)row * cols;
// CHECK-NEXT:   float m = xr[0];
// CHECK-NEXT:   // kernelskill: rule:row-reduce (rule row-reduce) row strided over the block's threads (coalesced), then block-wide max(m)
// CHECK-NEXT:   {
// CHECK-NEXT:     int ks_j = 1 + (int)threadIdx.x;
// CHECK-NEXT:     for (; ks_j + (int)(3 * blockDim.x) < (cols); ks_j += (int)(4 * blockDim.x)) {
// CHECK-NEXT:       #pragma unroll
// CHECK-NEXT:       for (int ks_u = 0; ks_u < 4; ks_u++) {
// CHECK-NEXT:         int j = ks_j + (int)(ks_u * blockDim.x);
// CHECK-NEXT:         if (xr[j] > m) m = xr[j];
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:     for (int j = ks_j; j < (cols); j += blockDim.x)
// CHECK-NEXT:       if (xr[j] > m) m = xr[j];
// CHECK-NEXT:   }
// CHECK-NEXT:   m = ks_rowred::block_max<float>(m);
// CHECK-NEXT:   float sum = 0.0f;
// CHECK-NEXT:   // kernelskill: rule:row-reduce (rule row-reduce) row strided over the block's threads (coalesced), then block-wide sum(sum)
// CHECK-NEXT:   {
// CHECK-NEXT:     int ks_j = threadIdx.x;
// CHECK-NEXT:     for (; ks_j + (int)(3 * blockDim.x) < (cols); ks_j += (int)(4 * blockDim.x)) {
// CHECK-NEXT:       #pragma unroll
// CHECK-NEXT:       for (int ks_u = 0; ks_u < 4; ks_u++) {
// CHECK-NEXT:         int j = ks_j + (int)(ks_u * blockDim.x);
// CHECK-NEXT:         {
// CHECK-NEXT:           float e = expf(xr[j] - m);
// CHECK-NEXT:           sum += e;
// CHECK-NEXT:         }
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:     for (int j = ks_j; j < (cols); j += blockDim.x) {
// CHECK-NEXT:       float e = expf(xr[j] - m);
// CHECK-NEXT:       sum += e;
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   sum = ks_rowred::block_sum<float>(sum);
// CHECK-NEXT:   float inv = 1.0f / sum;
// CHECK-NEXT:   // kernelskill: rule:row-reduce (rule row-reduce) row strided over the block's threads (coalesced stores)
// CHECK-NEXT:   {
// CHECK-NEXT:     int ks_j = threadIdx.x;
// CHECK-NEXT:     for (; ks_j + (int)(3 * blockDim.x) < (cols); ks_j += (int)(4 * blockDim.x)) {
// CHECK-NEXT:       #pragma unroll
// CHECK-NEXT:       for (int ks_u = 0; ks_u < 4; ks_u++) {
// CHECK-NEXT:         int j = ks_j + (int)(ks_u * blockDim.x);
// CHECK-NEXT:         yr[j] = expf(xr[j] - m) * inv;
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:     for (int j = ks_j; j < (cols); j += blockDim.x)
// CHECK-NEXT:       yr[j] = expf(xr[j] - m) * inv;
// CHECK-NEXT:   }
// CHECK-NEXT: }

__global__ void softmax_rows(const float *x, float *y, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const float *xr = x + (size_t)row * cols;
  float *yr = y + (size_t)row * cols;
  float m = xr[0];
  for (int j = 1; j < cols; ++j)
    if (xr[j] > m) m = xr[j];
  float sum = 0.0f;
  for (int j = 0; j < cols; j++) {
    float e = expf(xr[j] - m);
    sum += e;
  }
  float inv = 1.0f / sum;
  for (int j = 0; j < cols; j++)
    yr[j] = expf(xr[j] - m) * inv;
}

// Row sums with a bias start (not zero: the other threads restart at zero) and
// the row's result stored once.
// WARP: #define KS_ROWREDUCE_CUH
// WARP:      // kernelskill: rule:row-reduce (rule row-reduce) one warp per row (4 rows per block of 128 threads), cooperative reductions
// WARP-NEXT: __global__ void row_sums(const float *a, const float *bias, float *out, int n, int k) {
// WARP-NEXT:   int r = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
// WARP-NEXT:   if (r < n) {
// WARP-NEXT:     float acc = bias[r];
// WARP-NEXT:     // kernelskill: rule:row-reduce (rule row-reduce) row strided over the warp's threads (coalesced), then warp-wide sum(acc)
// WARP-NEXT:     if ((threadIdx.x & 31u) != 0) acc = 0.0f;
// WARP-NEXT:     {
// WARP-NEXT:       int ks_j = (threadIdx.x & 31u);
// WARP-NEXT:       for (; ks_j + (int)(3 * 32) < (k); ks_j += (int)(4 * 32)) {
// WARP-NEXT:         #pragma unroll
// WARP-NEXT:         for (int ks_u = 0; ks_u < 4; ks_u++) {
// WARP-NEXT:           int c = ks_j + (int)(ks_u * 32);
// WARP-NEXT:           acc = acc + a[r * k + c] * a[r * k + c]; // sum of squares
// WARP-NEXT:         }
// WARP-NEXT:       }
// WARP-NEXT:       for (int c = ks_j; c < (k); c += 32)
// WARP-NEXT:         acc = acc + a[r * k + c] * a[r * k + c]; // sum of squares
// WARP-NEXT:     }
// WARP-NEXT:     acc = ks_rowred::warp_sum<float>(acc);
// WARP-NEXT:     // kernelskill: rule:row-reduce (rule row-reduce) one thread stores the row's result
// WARP-NEXT:     if ((threadIdx.x & 31u) == 0) out[r] = acc;
// WARP-NEXT:   }
// WARP-NEXT: }
// WARP:      // kernelskill: rule:row-reduce (rule row-reduce) one warp per row: 4 rows per block of 128 threads
// WARP-NEXT: row_sums<<<(n + 3) / 4, 128>>>(a, bias, out, n, k);

__global__ void row_sums(const float *a, const float *bias, float *out, int n, int k) {
  int r = threadIdx.x + blockIdx.x * blockDim.x;
  if (r < n) {
    float acc = bias[r];
    for (int c = 0; c < k; c++) acc = acc + a[r * k + c] * a[r * k + c]; // sum of squares
    out[r] = acc;
  }
}

// A running sum per element: not a reduction of the row.
__global__ void prefix_rows(const float *x, float *y, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float acc = 0.0f;
  for (int j = 0; j < cols; j++) {
    acc += x[row * cols + j];
    y[row * cols + j] = acc;
  }
}

// Reads an element of the buffer it writes that another thread stores (y[row * cols]).
__global__ void scale_in_place(float *y, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float mx = 0.0f;
  for (int j = 0; j < cols; j++) mx = fmaxf(mx, fabsf(y[row * cols + j]));
  for (int j = 0; j < cols; j++) y[row * cols + j] = y[row * cols + j] / (mx + y[row * cols]);
}

// CHECK-LABEL: extern "C" void softmax_forward(
// CHECK-NEXT:   int threads = 128;
// CHECK-NEXT:   int blocks = (rows + threads - 1) / threads;
// CHECK-NEXT:   // kernelskill: rule:row-reduce (rule row-reduce) one block of 256 threads per row
// CHECK-NEXT:   softmax_rows<<<rows, 256, 0, stream>>>(x, y, rows, cols);
// CHECK-NEXT: }
extern "C" void softmax_forward(const float *x, float *y, int rows, int cols, cudaStream_t stream) {
  int threads = 128;
  int blocks = (rows + threads - 1) / threads;
  softmax_rows<<<blocks, threads, 0, stream>>>(x, y, rows, cols);
}

extern "C" void row_sums_forward(const float *a, const float *bias, float *out, int n, int k) {
  row_sums<<<(n + 255) / 256, 256>>>(a, bias, out, n, k);
}

// Only the softmax kernel (the row index, three loop headers; each loop gets
// its provenance line, the reductions a line after) and its launch change: the
// helpers go above the kernel. Two hunks, ten lines out (each row loop is
// replaced whole by its unrolled form).
// DIFF:      {{^}}+// kernelskill: rule:row-reduce (rule row-reduce) the shipped row reductions
// DIFF:      {{^}}-  int row = blockIdx.x * blockDim.x + threadIdx.x;
// DIFF:      {{^}}-  softmax_rows<<<blocks, threads, 0, stream>>>(x, y, rows, cols);
// HUNKS: {{^}}2{{$}}
// REMOVED: {{^}}11{{$}}
// ONCE: {{^}}1{{$}}

// AGAIN: already applied: rule row-reduce, kernel softmax_rows
// NEG: rule row-reduce, kernel prefix_rows: kernel 'prefix_rows' is not a row kernel this rule understands: line {{[0-9]+}} reads the accumulator 'acc' inside the loop that accumulates it
// NEG2: rule row-reduce, kernel scale_in_place: kernel 'scale_in_place' reads 'y', which it also stores into
// NEG3: threads=100: use a multiple of 32 from 32 to 1024
// NEG4: unroll=0: use 1 (no unrolling) to 16
// PLAIN:      if (threadIdx.x != 0) acc = 0.0f;
// PLAIN-NEXT: for (int c = threadIdx.x; c < k; c += blockDim.x) acc = acc + a[r * k + c] * a[r * k + c]; // sum of squares
// PLAIN-NEXT: acc = ks_rowred::block_sum<float>(acc);
