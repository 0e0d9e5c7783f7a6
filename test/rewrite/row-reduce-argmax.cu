// Rule row-reduce, arg-max / arg-min and atomic stores of the row's result:
// `if (E > best) { best = E; besti = j; }` becomes a strided loop followed by a
// pair reduction (value and index: larger value, on ties the smaller index, so
// the first index of the maximum as in the sequential loop), and
// `atomicAdd(loss, E)` after the loops is executed by one thread per row.
//
// RUN: %strip-checks %s %t.in.cu
// RUN: %kernelskill rewrite %t.in.cu --kernel argmax_rows --rule row-reduce -o %t.cu
// RUN: FileCheck %s --input-file=%t.cu
// RUN: %nvcc -c -arch=sm_90 %t.cu -o %t.o
//
// Arg-min in warp mode, then the cross-entropy kernel (atomicAdd) on top of it.
// RUN: %kernelskill rewrite %t.cu --kernel argmin_rows --rule row-reduce --param mode=warp --param threads=128 -o %t.w.cu
// RUN: FileCheck %s --check-prefix=WARP --input-file=%t.w.cu
// RUN: %kernelskill rewrite %t.w.cu --kernel xent_rows --rule row-reduce -o %t.x.cu
// RUN: FileCheck %s --check-prefix=XENT --input-file=%t.x.cu
// RUN: %kernelskill rewrite %t.x.cu --kernel pair_sums --rule row-reduce --param mode=warp -o %t.p.cu
// RUN: FileCheck %s --check-prefix=PAIR --input-file=%t.p.cu
// RUN: %nvcc -c -arch=sm_90 %t.p.cu -o %t.p.o
//
// Idempotence.
// RUN: %kernelskill rewrite %t.cu --kernel argmax_rows --rule row-reduce -o %t2.cu 2>&1 | FileCheck %s --check-prefix=AGAIN
// RUN: cmp %t.cu %t2.cu
//
// The rewritten kernels on the CPU (threads emulated, barriers and warp
// shuffles included): the same indices as the original on rows with ties and
// NaNs, the same cross-entropy sum within float tolerance.
// RUN: %python %S/Inputs/row-reduce-emu.py %clang19 %t.in.cu %t.cu argmax_rows argmax block 256
// RUN: %python %S/Inputs/row-reduce-emu.py %clang19 %t.in.cu %t.w.cu argmin_rows argmin warp 128
// RUN: %kernelskill rewrite %t.in.cu --kernel argmax_rows --rule row-reduce --param mode=warp --param threads=64 -o %t.aw.cu
// RUN: %python %S/Inputs/row-reduce-emu.py %clang19 %t.in.cu %t.aw.cu argmax_rows argmax warp 64
// RUN: %kernelskill rewrite %t.in.cu --kernel argmin_rows --rule row-reduce --param threads=96 -o %t.ab.cu
// RUN: %python %S/Inputs/row-reduce-emu.py %clang19 %t.in.cu %t.ab.cu argmin_rows argmin block 96
// RUN: %python %S/Inputs/row-reduce-emu.py %clang19 %t.in.cu %t.x.cu xent_rows xent block 256
// RUN: %kernelskill rewrite %t.in.cu --kernel xent_rows --rule row-reduce --param mode=warp --param threads=64 -o %t.xw.cu
// RUN: %python %S/Inputs/row-reduce-emu.py %clang19 %t.in.cu %t.xw.cu xent_rows xent warp 64
// threads=auto: each launch sizes the row's group from the row length (a warp
// and 8 rows a block under 1024 elements, 64 to 256 threads above).
// RUN: %kernelskill rewrite %t.in.cu --kernel argmax_rows --rule row-reduce --param threads=auto -o %t.aa.cu
// RUN: FileCheck %s --check-prefix=AUTO --input-file=%t.aa.cu
// RUN: %nvcc -c -arch=sm_90 %t.aa.cu -o %t.aa.o
// RUN: %python %S/Inputs/row-reduce-emu.py %clang19 %t.in.cu %t.aa.cu argmax_rows argmax auto 0
// RUN: %kernelskill rewrite %t.in.cu --kernel xent_rows --rule row-reduce --param threads=auto -o %t.xa.cu
// RUN: %python %S/Inputs/row-reduce-emu.py %clang19 %t.in.cu %t.xa.cu xent_rows xent auto 0
// RUN: not %kernelskill rewrite %t.in.cu --kernel argmax_rows --rule row-reduce --param threads=auto --param mode=warp -o %t.bad.cu 2>&1 | FileCheck %s --check-prefix=AUTO-WARP
// AUTO: #define KS_ROWREDUCE_CUH
// AUTO: static inline dim3 ks_row_block(long long cols) {
// AUTO: int row = blockIdx.x * blockDim.y + threadIdx.y;
// AUTO: for (int ks_u = 0; ks_u < 4; ks_u++) {
// AUTO: = ks_rowred::group_argmax<float>(
// AUTO: argmax_rows<<<ks_row_grid(rows, cols), ks_row_block(cols)>>>(
// AUTO-WARP: threads=auto goes with mode=block
// A scalar declared between the row index and the guard (issue 14): it stays
// where it is and is read as the row body's first statement.
// RUN: %kernelskill rewrite %t.in.cu --kernel norm_rows --rule row-reduce -o %t.n.cu
// RUN: FileCheck %s --check-prefix=NORM --input-file=%t.n.cu
// RUN: %nvcc -c -arch=sm_90 %t.n.cu -o %t.n.o
// RUN: %python %S/Inputs/row-reduce-emu.py %clang19 %t.in.cu %t.n.cu norm_rows norm block 256
// RUN: %kernelskill rewrite %t.in.cu --kernel norm_rows --rule row-reduce --param mode=warp --param threads=64 -o %t.nw.cu
// RUN: %python %S/Inputs/row-reduce-emu.py %clang19 %t.in.cu %t.nw.cu norm_rows norm warp 64
//
// Negative: >= (the last index on ties), an index update not paired with the
// value update, atomicAdd inside the row loop, atomicAdd at an address that
// depends on j: exit 1, file untouched.
// RUN: cp %t.in.cu %t.neg.cu
// RUN: %expect-exit 1 %kernelskill rewrite %t.neg.cu --kernel argmax_last --rule row-reduce -o %t.neg.cu
// RUN: not %kernelskill rewrite %t.neg.cu --kernel argmax_last --rule row-reduce -o %t.neg.cu 2>&1 | FileCheck %s --check-prefix=NEG-GE
// RUN: not %kernelskill rewrite %t.neg.cu --kernel argmax_unpaired --rule row-reduce -o %t.neg.cu 2>&1 | FileCheck %s --check-prefix=NEG-UNPAIRED
// RUN: not %kernelskill rewrite %t.neg.cu --kernel argmax_shifted --rule row-reduce -o %t.neg.cu 2>&1 | FileCheck %s --check-prefix=NEG-SHIFTED
// RUN: %expect-exit 1 %kernelskill rewrite %t.neg.cu --kernel atomic_in_loop --rule row-reduce -o %t.neg.cu
// RUN: not %kernelskill rewrite %t.neg.cu --kernel atomic_in_loop --rule row-reduce -o %t.neg.cu 2>&1 | FileCheck %s --check-prefix=NEG-LOOP
// RUN: not %kernelskill rewrite %t.neg.cu --kernel atomic_at_j --rule row-reduce -o %t.neg.cu 2>&1 | FileCheck %s --check-prefix=NEG-J
// RUN: not %kernelskill rewrite %t.neg.cu --kernel norm_load_between --rule row-reduce -o %t.neg.cu 2>&1 | FileCheck %s --check-prefix=NEG-BETWEEN
// RUN: cmp %t.in.cu %t.neg.cu

#include <cuda_runtime.h>
#include <math.h>

// CHECK:      // kernelskill: rule:row-reduce (rule row-reduce) the shipped row reductions (share/kernelskill/templates/ks_rowreduce.cuh)
// CHECK:      #define KS_ROWREDUCE_CUH
// CHECK:      // kernelskill: rule:row-reduce (rule row-reduce) one block of 256 threads per row, cooperative reductions
// CHECK-NEXT: __global__ void argmax_rows(const float *x, long long *idx, int rows, int cols) {
// CHECK-NEXT:   int row = blockIdx.x;
// CHECK-NEXT:   if (row >= rows) return;
// CHECK-NEXT:   const float *xr = x + (size_t)row * cols;
// CHECK-NEXT:   float best = xr[0];
// CHECK-NEXT:   int besti = 0;
// CHECK-NEXT:   // kernelskill: rule:row-reduce (rule row-reduce) row strided over the block's threads (coalesced), then block-wide argmax(best, besti)
// CHECK-NEXT:   {
// CHECK-NEXT:     int ks_j = 1 + (int)threadIdx.x;
// CHECK-NEXT:     for (; ks_j + (int)(3 * blockDim.x) < (cols); ks_j += (int)(4 * blockDim.x)) {
// CHECK-NEXT:       #pragma unroll
// CHECK-NEXT:       for (int ks_u = 0; ks_u < 4; ks_u++) {
// CHECK-NEXT:         int j = ks_j + (int)(ks_u * blockDim.x);
// CHECK-NEXT:         {
// CHECK-NEXT:           if (xr[j] > best) {
// CHECK-NEXT:             best = xr[j];
// CHECK-NEXT:             besti = j;
// CHECK-NEXT:           }
// CHECK-NEXT:         }
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:     for (int j = ks_j; j < (cols); j += blockDim.x) {
// CHECK-NEXT:       if (xr[j] > best) {
// CHECK-NEXT:         best = xr[j];
// CHECK-NEXT:         besti = j;
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   best = ks_rowred::block_argmax<float>(best, besti);
// CHECK-NEXT:   // kernelskill: rule:row-reduce (rule row-reduce) one thread stores the row's result
// CHECK-NEXT:   if (threadIdx.x == 0) idx[row] = besti;
// CHECK-NEXT: }

__global__ void argmax_rows(const float *x, long long *idx, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const float *xr = x + (size_t)row * cols;
  float best = xr[0];
  int besti = 0;
  for (int j = 1; j < cols; j++) {
    if (xr[j] > best) {
      best = xr[j];
      besti = j;
    }
  }
  idx[row] = besti;
}

// Arg-min, mirrored comparison, the index assigned first, the value through a
// loop local; the value is used after the reduction too.
// WARP:      #define KS_ROWREDUCE_CUH
// WARP:      __global__ void argmin_rows(const float *x, int *idx, float *val, int rows, int cols) {
// WARP-NEXT:   int row = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
// WARP:          int ks_j = (threadIdx.x & 31u);
// WARP-NEXT:     for (; ks_j + (int)(3 * 32) < (cols); ks_j += (int)(4 * 32)) {
// WARP:          for (int j = ks_j; j < (cols); j += 32) {
// WARP:        best = ks_rowred::warp_argmin<float>(best, bi);
// WARP-NEXT:   // kernelskill: rule:row-reduce (rule row-reduce) one thread stores the row's result
// WARP-NEXT:   if ((threadIdx.x & 31u) == 0) idx[row] = bi;
// WARP-NEXT:   // kernelskill: rule:row-reduce (rule row-reduce) one thread stores the row's result
// WARP-NEXT:   if ((threadIdx.x & 31u) == 0) val[row] = best;
// WARP:      argmin_rows<<<(rows + 3) / 4, 128>>>(x, idx, val, rows, cols);

__global__ void argmin_rows(const float *x, int *idx, float *val, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float best = INFINITY;
  int bi = -1;
  for (int j = 0; j < cols; j++) {
    float v = x[row * cols + j];
    if (best > v) {
      bi = j;
      best = v;
    }
  }
  idx[row] = bi;
  val[row] = best;
}

// Cross entropy: the row's loss added into one float.
// XENT:      __global__ void xent_rows(const float *logits, const long long *target, float *loss, int rows, int cols) {
// XENT-NEXT:   int row = blockIdx.x;
// XENT:        float row_loss = logf(sum) + m - xr[target[row]];
// XENT-NEXT:   // kernelskill: rule:row-reduce (rule row-reduce) one thread stores the row's result
// XENT-NEXT:   if (threadIdx.x == 0) atomicAdd(loss, row_loss / rows);
// XENT-NEXT: }
// XENT:      xent_rows<<<rows, 256>>>(logits, target, loss, rows, cols);

__global__ void xent_rows(const float *logits, const long long *target, float *loss, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const float *xr = logits + (size_t)row * cols;
  float m = xr[0];
  for (int j = 1; j < cols; j++)
    m = fmaxf(m, xr[j]);
  float sum = 0.0f;
  for (int j = 0; j < cols; j++)
    sum += expf(xr[j] - m);
  float row_loss = logf(sum) + m - xr[target[row]];
  atomicAdd(loss, row_loss / rows);
}

// Row sums of two rows meet in one element: atomicAdd(&P[e], E).
// PAIR:      if ((threadIdx.x & 31u) == 0) atomicAdd(&out[row / 2], acc);

__global__ void pair_sums(const float *a, float *out, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float acc = 0.0f;
  for (int j = 0; j < cols; j++) acc += a[row * cols + j];
  atomicAdd(&out[row / 2], acc);
}

// NORM:      __global__ void norm_rows(const float *x, float *y, int rows, int cols) {
// NORM-NEXT:   int row = blockIdx.x;
// NORM-NEXT:   const float eps = 1e-6f;
// NORM-NEXT:   if (row >= rows) return;
// NORM:        ss = ks_rowred::block_sum<float>(ss);
// NORM-NEXT:   const float inv = 1.0f / sqrtf(ss / cols + eps);
// NORM:        norm_rows<<<rows, 256>>>(x, y, rows, cols);
__global__ void norm_rows(const float *x, float *y, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  const float eps = 1e-6f;
  if (row >= rows) return;
  float ss = 0.0f;
  for (int j = 0; j < cols; j++) ss += x[(size_t)row * cols + j] * x[(size_t)row * cols + j];
  const float inv = 1.0f / sqrtf(ss / cols + eps);
  for (int j = 0; j < cols; j++) y[(size_t)row * cols + j] = x[(size_t)row * cols + j] * inv;
}

// NEG-BETWEEN: the second statement of 'norm_load_between' is not the row guard
__global__ void norm_load_between(const float *x, float *y, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  const float first = x[0];
  if (row >= rows) return;
  float ss = 0.0f;
  for (int j = 0; j < cols; j++) ss += x[(size_t)row * cols + j];
  y[row] = ss + first;
}

// >=: the sequential loop keeps the last index of the maximum.
__global__ void argmax_last(const float *x, int *idx, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float best = x[row * cols];
  int besti = 0;
  for (int j = 1; j < cols; j++) {
    if (x[row * cols + j] >= best) {
      best = x[row * cols + j];
      besti = j;
    }
  }
  idx[row] = besti;
}

// The index updated under its own if, apart from the value's update.
__global__ void argmax_unpaired(const float *x, int *idx, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float best = x[row * cols];
  int besti = 0;
  for (int j = 1; j < cols; j++) {
    if (x[row * cols + j] > best) besti = j;
    best = fmaxf(best, x[row * cols + j]);
  }
  idx[row] = besti;
}

// The index is not j itself.
__global__ void argmax_shifted(const float *x, int *idx, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float best = x[row * cols];
  int besti = 0;
  for (int j = 1; j < cols; j++) {
    if (x[row * cols + j] > best) {
      best = x[row * cols + j];
      besti = j + 1;
    }
  }
  idx[row] = besti;
}

__global__ void atomic_in_loop(const float *x, float *out, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  for (int j = 0; j < cols; j++) atomicAdd(&out[row], x[row * cols + j]);
}

__global__ void atomic_at_j(const float *x, float *colsum, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  for (int j = 0; j < cols; j++) atomicAdd(&colsum[j], x[row * cols + j]);
}

// CHECK-LABEL: extern "C" void argmax_forward(
// CHECK-NEXT:   // kernelskill: rule:row-reduce (rule row-reduce) one block of 256 threads per row
// CHECK-NEXT:   argmax_rows<<<rows, 256>>>(x, idx, rows, cols);
extern "C" void argmax_forward(const float *x, long long *idx, int rows, int cols) {
  argmax_rows<<<(rows + 127) / 128, 128>>>(x, idx, rows, cols);
}

extern "C" void argmin_forward(const float *x, int *idx, float *val, int rows, int cols) {
  argmin_rows<<<(rows + 127) / 128, 128>>>(x, idx, val, rows, cols);
}

extern "C" void xent_forward(const float *logits, const long long *target, float *loss, int rows, int cols) {
  cudaMemsetAsync(loss, 0, sizeof(float), 0);
  xent_rows<<<(rows + 127) / 128, 128>>>(logits, target, loss, rows, cols);
}

extern "C" void pair_sums_forward(const float *a, float *out, int rows, int cols) {
  pair_sums<<<(rows + 127) / 128, 128>>>(a, out, rows, cols);
}

extern "C" void norm_forward(const float *x, float *y, int rows, int cols) {
  norm_rows<<<(rows + 127) / 128, 128>>>(x, y, rows, cols);
  norm_load_between<<<(rows + 127) / 128, 128>>>(x, y, rows, cols);
}

// AGAIN: already applied: rule row-reduce, kernel argmax_rows
// NEG-GE: kernel 'argmax_last' is not a row kernel this rule understands: line {{[0-9]+}} keeps the last index on ties (>= or <=)
// NEG-UNPAIRED: kernel 'argmax_unpaired' is not a row kernel this rule understands: line {{[0-9]+}} in the loop at line {{[0-9]+}} is not a declaration, accumulation or store of element j this rule understands (IfStmt)
// NEG-SHIFTED: kernel 'argmax_shifted' is not a row kernel this rule understands: line {{[0-9]+}}: the index of an arg-max/arg-min pair must be set to the loop variable itself
// NEG-LOOP: kernel 'atomic_in_loop' is not a row kernel this rule understands: line {{[0-9]+}} in the loop at line {{[0-9]+}} is an atomic update
// NEG-J: kernel 'atomic_at_j' is not a row kernel this rule understands: line {{[0-9]+}} in the loop at line {{[0-9]+}} is an atomic update
