// Rule smem-transpose: an out-of-place transpose with one thread per element (1-D
// flattened index split by / and %, or a 2-D thread grid) becomes a 32x32
// shared-memory tiled transpose (padded [32][33] tile, block 32x8, coalesced loads
// and stores); every launch gets the tiled grid. Other code stays byte-identical.
//
// RUN: %strip-checks %s %t.in.cu
// RUN: %kernelskill rewrite %t.in.cu --kernel transpose_kernel --rule smem-transpose -o %t.cu
// RUN: FileCheck %s --input-file=%t.cu
// RUN: not diff -u %t.in.cu %t.cu > %t.diff
// RUN: FileCheck %s --check-prefix=DIFF --input-file=%t.diff
// RUN: grep -c '^@@' %t.diff | FileCheck %s --check-prefix=HUNKS
// RUN: grep -c '^-' %t.diff | FileCheck %s --check-prefix=REMOVED
// RUN: %nvcc -c -arch=sm_90 %t.cu -o %t.o
//
// The rewritten kernel writes exactly what the original writes (emulated on the
// CPU: sizes not multiples of 32, gridDim.y below the tile-row count).
// RUN: %python %S/Inputs/smem-transpose-emu.py %clang19 %t.in.cu %t.cu transpose_kernel float "in, out, rows, cols" 1d
//
// Idempotence.
// RUN: %kernelskill rewrite %t.cu --kernel transpose_kernel --rule smem-transpose -o %t2.cu 2>&1 | FileCheck %s --check-prefix=AGAIN
// RUN: cmp %t.cu %t2.cu
//
// Composition: after restrict-const (qualified pointers), and launch-bounds after it.
// RUN: %kernelskill rewrite %t.in.cu --kernel transpose_kernel --rule restrict-const -o %t.rc.cu
// RUN: %kernelskill rewrite %t.rc.cu --kernel transpose_kernel --rule smem-transpose -o %t.rc2.cu
// RUN: %kernelskill rewrite %t.rc2.cu --kernel transpose_kernel --rule launch-bounds -o %t.rc3.cu
// RUN: FileCheck %s --check-prefix=CHAIN --input-file=%t.rc3.cu
// RUN: %nvcc -c -arch=sm_90 %t.rc3.cu -o %t.rc3.o
//
// The other forms (Inputs/smem-transpose-forms.cu): mirrored 1-D (strided writes,
// size_t, if-block guard), 1-D with the terms in place, 2-D with rows on x, an
// early return, double elements, leading dimensions and a stream; the 2-D form of
// examples/cmake/src/transpose.cu; __half elements.
// RUN: cp %S/Inputs/smem-transpose-forms.cu %t.f.cu
// RUN: %kernelskill rewrite %t.f.cu --kernel tr_mirror --rule smem-transpose -o %t.f1.cu
// RUN: %kernelskill rewrite %t.f1.cu --kernel tr_inline --rule smem-transpose -o %t.f2.cu
// RUN: %kernelskill rewrite %t.f2.cu --kernel tr_2d --rule smem-transpose -o %t.f3.cu
// RUN: %kernelskill rewrite %t.f.cu --kernel tr_example --rule smem-transpose -o %t.f5.cu
// RUN: FileCheck %s --check-prefix=EX --input-file=%t.f5.cu
// RUN: %nvcc -c -arch=sm_90 %t.f5.cu -o %t.f5.o
// RUN: %python %S/Inputs/smem-transpose-emu.py %clang19 %t.f.cu %t.f5.cu tr_example float "in, out, rows, cols" 2d-cols-x
// Index temporaries before the copy (vendor-sample style transposeNaive):
// RUN: %kernelskill rewrite %t.f.cu --kernel tr_tmp --rule smem-transpose -o %t.f6.cu
// RUN: FileCheck %s --check-prefix=TMP --input-file=%t.f6.cu
// RUN: %nvcc -c -arch=sm_90 %t.f6.cu -o %t.f6.o
// RUN: %python %S/Inputs/smem-transpose-emu.py %clang19 %t.f.cu %t.f6.cu tr_tmp float "out, in, cols, rows" 2d-cols-x
// RUN: not %kernelskill rewrite %t.f.cu --kernel bad_tmp --rule smem-transpose 2>&1 | FileCheck %s --check-prefix=NEG-TMP
// RUN: %kernelskill rewrite %t.f3.cu --kernel tr_half --rule smem-transpose -o %t.f4.cu
// RUN: FileCheck %s --check-prefix=HALF --input-file=%t.f4.cu
// RUN: %nvcc -c -arch=sm_90 %t.f4.cu -o %t.f4.o
// RUN: FileCheck %s --check-prefix=FORMS --input-file=%t.f3.cu
// RUN: %nvcc -c -arch=sm_90 %t.f3.cu -o %t.f3.o
// RUN: %python %S/Inputs/changed_lines.py %t.f.cu %t.f3.cu | FileCheck %s --check-prefix=FCHANGED
// RUN: %python %S/Inputs/smem-transpose-emu.py %clang19 %t.f.cu %t.f3.cu tr_mirror int "in, out, rows, cols" 1d
// RUN: %python %S/Inputs/smem-transpose-emu.py %clang19 %t.f.cu %t.f3.cu tr_inline float "in, out, rows, cols" 1d
// RUN: %python %S/Inputs/smem-transpose-emu.py %clang19 %t.f.cu %t.f3.cu tr_2d double "out, in, rows, cols, cols, rows" 2d-rows-x
//
// Negative: not a plain copy, a stride that is not the other dimension, in place,
// an extra statement, a copy that is not transposed, no launch, a user-written
// assignment, a kernel that is not a transpose at all: exit 1, file untouched.
// RUN: %expect-exit 1 %kernelskill rewrite %t.f.cu --kernel bad_scaled --rule smem-transpose -o %t.f.cu
// RUN: not %kernelskill rewrite %t.f.cu --kernel bad_scaled --rule smem-transpose 2>&1 | FileCheck %s --check-prefix=NEG1
// RUN: not %kernelskill rewrite %t.f.cu --kernel bad_stride --rule smem-transpose 2>&1 | FileCheck %s --check-prefix=NEG2
// RUN: not %kernelskill rewrite %t.f.cu --kernel bad_inplace --rule smem-transpose 2>&1 | FileCheck %s --check-prefix=NEG3
// RUN: not %kernelskill rewrite %t.f.cu --kernel bad_extra --rule smem-transpose 2>&1 | FileCheck %s --check-prefix=NEG4
// RUN: not %kernelskill rewrite %t.f.cu --kernel bad_copy2d --rule smem-transpose 2>&1 | FileCheck %s --check-prefix=NEG5
// RUN: not %kernelskill rewrite %t.f.cu --kernel unlaunched --rule smem-transpose 2>&1 | FileCheck %s --check-prefix=NEG6
// RUN: not %kernelskill rewrite %t.f.cu --kernel bad_assign --rule smem-transpose 2>&1 | FileCheck %s --check-prefix=NEG1
// RUN: cp %t.in.cu %t.neg.cu
// RUN: %expect-exit 1 %kernelskill rewrite %t.neg.cu --kernel scale --rule smem-transpose -o %t.neg.cu
// RUN: cmp %t.in.cu %t.neg.cu
// RUN: cmp %S/Inputs/smem-transpose-forms.cu %t.f.cu

#include <cuda_runtime.h>

#define UNRELATED_CONSTANT 3

// Not a kernel this rule touches.
__global__ void scale(float *v, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] *= a;
}

// The shipped header (once per file), then the kernel's note and its new body.
// CHECK:      // kernelskill: rule:smem-transpose (rule smem-transpose) the shipped tiled transpose (share/kernelskill/templates/ks_transpose.cuh)
// CHECK-NEXT: /* ks_transpose.cuh
// CHECK:      #ifndef KS_TRANSPOSE_CUH
// CHECK:      __device__ __forceinline__ void tile(const TI *in, TO *out, OI in_off, OO out_off, R rows, C cols, SI in_stride,
// CHECK:        __shared__ T t[TILE][TILE + 1];
// CHECK:      #endif /* KS_TRANSPOSE_CUH */
// CHECK-EMPTY:
// CHECK-NEXT: // kernelskill: rule:smem-transpose (rule smem-transpose) 32x32 shared-memory tile [32][33] (padded against bank conflicts), block 32x8, coalesced loads and stores (1-D form)
// CHECK-NEXT: __global__ void transpose_kernel(const float *x, float *y, int rows, int cols)
// CHECK-NEXT: {
// CHECK-NEXT:   ks_transpose::tile<32, 8, float, long long>(x, y, 0, 0, (rows), (cols), (cols), (rows));
// CHECK-NEXT: }
// (a blank line: the notes above a kernel are the comment lines directly above it)

__global__ void transpose_kernel(const float *x, float *y, int rows, int cols)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (long long)rows * cols)
        return;
    long long c = i / rows;
    long long r = i % rows;
    y[i] = x[r * cols + c];
}

// CHECK-LABEL: extern "C" void transpose_forward(
// CHECK:      long long blocks = (n + threads - 1) / threads;
// CHECK-NEXT: // kernelskill: rule:smem-transpose (rule smem-transpose) grid of 32x32 tiles over rows x cols (y capped at 65535), block 32x8
// CHECK-NEXT: transpose_kernel<<<dim3((unsigned)((cols + 31) / 32), (unsigned)((rows + 31) / 32 < 65535 ? (rows + 31) / 32 : 65535)), dim3(32, 8)>>>(x, y, rows, cols);
// CHECK-NEXT: scale<<<(cols + 255) / 256, 256>>>(y, 2.0f, cols);
// CHECK:      // kernelskill: rule:smem-transpose (rule smem-transpose) grid of 32x32 tiles over r + 1 x c (y capped at 65535), block 32x8
// CHECK-NEXT: transpose_kernel<<<dim3((unsigned)((c + 31) / 32), (unsigned)(((r + 1) + 31) / 32 < 65535 ? ((r + 1) + 31) / 32 : 65535)), dim3(32, 8), 0, s>>>(x, y, r + 1, c);
extern "C" void transpose_forward(const float *x, float *y, int rows, int cols)
{
    int threads = 256;
    long long n = (long long)rows * cols;
    long long blocks = (n + threads - 1) / threads;
    transpose_kernel<<<(unsigned)blocks, threads>>>(x, y, rows, cols);
    scale<<<(cols + 255) / 256, 256>>>(y, 2.0f, cols);
}

extern "C" void transpose_again(const float *x, float *y, int r, int c, cudaStream_t s)
{
    transpose_kernel<<<(unsigned)(((long long)(r + 1) * c + 127) / 128), 128, 0, s>>>(x, y, r + 1, c);
}

// Only the shipped header, the kernel body (6 lines out), its provenance line and the two launch lines
// change: two hunks (the launches are close), 8 lines removed (plus the --- header).
// DIFF:      {{^}}+// kernelskill: rule:smem-transpose (rule smem-transpose) 32x32
// DIFF-NEXT: {{^}} __global__ void transpose_kernel(
// DIFF:      {{^}}-    transpose_kernel<<<(unsigned)blocks, threads>>>(x, y, rows, cols);
// HUNKS: {{^}}2{{$}}
// REMOVED: {{^}}9{{$}}

// AGAIN: already applied: rule smem-transpose, kernel transpose_kernel

// CHAIN:      // kernelskill: rule:restrict-const (rule restrict-const)
// CHAIN-NEXT: // kernelskill: rule:smem-transpose (rule smem-transpose) 32x32
// CHAIN-NEXT: // kernelskill: rule:launch-bounds (rule launch-bounds) __launch_bounds__(256)
// CHAIN-NEXT: __global__ void __launch_bounds__(256) transpose_kernel(const float *__restrict__ x, float *__restrict__ y, int rows, int cols)
// CHAIN-NEXT: {
// CHAIN-NEXT:   ks_transpose::tile<32, 8, float, long long>(x, y, 0, 0, (rows), (cols), (cols), (rows));

// The header once, above the first kernel's own comment:
// FORMS:      #include <cuda_fp16.h>
// FORMS-EMPTY:
// FORMS-NEXT: // kernelskill: rule:smem-transpose (rule smem-transpose) the shipped tiled transpose (share/kernelskill/templates/ks_transpose.cuh)
// FORMS-NEXT: /* ks_transpose.cuh
// FORMS:      #endif /* KS_TRANSPOSE_CUH */
// FORMS-EMPTY:
// FORMS-NEXT: // 1-D, mirrored: reads unit-stride, writes strided; if-block guard; size_t index.
// FORMS-NEXT: (rule smem-transpose) 32x32 shared-memory tile [32][33] (padded against bank conflicts), block 32x8, coalesced loads and stores (1-D form)
// FORMS-NEXT: __global__ void tr_mirror(const int *in, int *out, int rows, int cols) {
// FORMS-NEXT:   ks_transpose::tile<32, 8, int, size_t>(in, out, 0, 0, (rows), (cols), (cols), (rows));
// FORMS-NEXT: }
// FORMS-NOT:  KS_TRANSPOSE_CUH
// FORMS:      (1-D form)
// FORMS-NEXT: __global__ void tr_inline(const float *src, float *dst, int m, int n) {
// FORMS-NEXT:   ks_transpose::tile<32, 8, float, int>(src, dst, 0, 0, (m), (n), (n), (m));
// FORMS-NEXT: }
// FORMS:      (2-D form)
// FORMS-NEXT: __global__ void tr_2d(double *out, const double *in, int nrows, int ncols, int ldin, int ldout) {
// FORMS-NEXT:   ks_transpose::tile<32, 8, double, int>(in, out, 0, 0, (nrows), (ncols), (ldin), (ldout));
// FORMS-NEXT: }
// FORMS:      __global__ void tr_example(
// FORMS-NEXT:   int c = blockIdx.x * blockDim.x + threadIdx.x;
// FORMS:      __global__ void bad_scaled(
// FORMS:      tr_mirror<<<dim3((unsigned)((cols + 31) / 32), (unsigned)((rows + 31) / 32 < 65535 ? (rows + 31) / 32 : 65535)), dim3(32, 8)>>>(a, b, rows, cols);
// FORMS:      tr_inline<<<dim3((unsigned)((cols + 31) / 32), (unsigned)((rows + 31) / 32 < 65535 ? (rows + 31) / 32 : 65535)), dim3(32, 8), 0, s>>>(f, g, rows, cols);
// FORMS:      dim3 grid((rows + 15) / 16, (cols + 15) / 16);
// FORMS-NEXT: // kernelskill: rule:smem-transpose (rule smem-transpose) grid of 32x32 tiles over rows x cols (y capped at 65535), block 32x8
// FORMS-NEXT: tr_2d<<<dim3((unsigned)((cols + 31) / 32), (unsigned)((rows + 31) / 32 < 65535 ? (rows + 31) / 32 : 65535)), dim3(32, 8), 0, s>>>(d, e, rows, cols, cols, rows);
// FORMS-NEXT: dim3 block2(32, 8);
// FORMS-NEXT: dim3 grid2((cols + 31) / 32, (rows + 7) / 8);
// FORMS-NEXT: tr_example<<<grid2, block2>>>(f, g, rows, cols);
// FORMS-NEXT: bad_scaled<<<(unsigned)((n + 255) / 256), 256>>>(f, g, rows, cols);
// Only the shipped header (once), the three kernels' bodies, their notes and the
// three launches change: 77 lines by difflib's count (changed_lines.py --show
// lists them), nothing else.
// FCHANGED: {{^}}77{{$}}

// EX:      (2-D form)
// EX-NEXT: __global__ void tr_example(const float *in, float *out, int rows, int cols) {
// EX-NEXT:   ks_transpose::tile<32, 8, float, long>(in, out, 0, 0, (rows), (cols), (cols), (rows));
// EX-NEXT: }
// EX:      dim3 grid2((cols + 31) / 32, (rows + 7) / 8);
// EX-NEXT: // kernelskill: rule:smem-transpose (rule smem-transpose) grid of 32x32 tiles over rows x cols (y capped at 65535), block 32x8
// EX-NEXT: tr_example<<<dim3((unsigned)((cols + 31) / 32), (unsigned)((rows + 31) / 32 < 65535 ? (rows + 31) / 32 : 65535)), dim3(32, 8)>>>(f, g, rows, cols);

// HALF-LABEL: assignment is user-written may do anything.
// HALF-NEXT:  (1-D form)
// HALF-NEXT: __global__ void tr_half(const __half *x, __half *y, int rows, int cols) {
// HALF-NEXT:   ks_transpose::tile<32, 8, __half, long long>(x, y, 0, 0, (rows), (cols), (cols), (rows));

// NEG1: kernel '{{bad_scaled|bad_assign}}' is not an out-of-place transpose this rule understands (1-D form: the element's last statement is not a plain copy
// NEG2: (1-D form: X and Y of (i % X) * Y + i / X are not the two factors of the guard's bound)
// NEG3: (2-D form: the guarded statement is not a plain copy out[...] = in[...] between two pointer parameters)
// TMP: __global__ void tr_tmp(float *odata, const float *idata, int width, int height) {
// TMP-NEXT: ks_transpose::tile<32, 8, float, int>(idata, odata, 0, 0, (height), (width), (width), (height));
// TMP-NEXT: }
// NEG-TMP: (2-D form: the guard must hold the copy (after integer index temporaries only) and end the kernel)
// NEG4: (2-D form: the guard must hold the copy (after integer index temporaries only) and end the kernel)
// NEG5: (2-D form: the copy is not out[v * S2 + u] = in[u * S1 + v] on the two thread indices u, v)
// NEG6: no launch of 'unlaunched' in this file
