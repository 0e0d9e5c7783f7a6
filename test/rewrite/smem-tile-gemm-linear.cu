// Rule smem-tile-gemm on the nn.Linear layout (y = epilogue(x w^T), w given
// transposed: n x k row-major): row pointers or direct indices, B tile loaded
// along k (coalesced) into a padded shared tile, the epilogue kept per output.
// The bench seed's exact kernel first; then a direct-index form with an fmaxf
// epilogue, a transposed B without epilogue, and epilogues that must be refused.
//
// The seed's form, default tile (16) and 32x32 tiles with 4 outputs per thread.
// RUN: %strip-checks %s %t.in.cu
// RUN: %kernelskill rewrite %t.in.cu --kernel gemm_bias_relu_kernel --rule smem-tile-gemm -o %t.seed.cu
// RUN: FileCheck %s --check-prefix=SEED --input-file=%t.seed.cu
// RUN: %nvcc -c -arch=sm_90 %t.seed.cu -o %t.seed.o
// RUN: %kernelskill rewrite %t.in.cu --kernel gemm_bias_relu_kernel --rule smem-tile-gemm --param tile=32 --param regs=4 -o %t.rb.cu
// RUN: FileCheck %s --check-prefix=RB --input-file=%t.rb.cu
// RUN: %nvcc -c -arch=sm_90 %t.rb.cu -o %t.rb.o
//
// Direct w[col * k + j] indices, a store through fmaxf.
// RUN: %kernelskill rewrite %t.in.cu --kernel linear_direct --rule smem-tile-gemm --param tile=32 --param regs=2 -o %t.d.cu
// RUN: FileCheck %s --check-prefix=DIRECT --input-file=%t.d.cu
// RUN: %nvcc -c -arch=sm_90 %t.d.cu -o %t.d.o
// RUN: %kernelskill rewrite %t.in.cu --kernel linear_plain --rule smem-tile-gemm --param tile=8 -o %t.p.cu
// RUN: FileCheck %s --check-prefix=PLAIN --input-file=%t.p.cu
// RUN: %nvcc -c -arch=sm_90 %t.p.cu -o %t.p.o
//
// 2-D register blocking (cols): 64x64 tiles with 4x4 outputs per thread, 32x32
// with 4x2; the direct form (an epilogue reading row and col) with 8x4.
// RUN: %kernelskill rewrite %t.in.cu --kernel gemm_bias_relu_kernel --rule smem-tile-gemm --param tile=64 --param regs=4 --param cols=4 -o %t.2d.cu
// RUN: FileCheck %s --check-prefix=TWOD --input-file=%t.2d.cu
// RUN: %nvcc -c -arch=sm_90 %t.2d.cu -o %t.2d.o
// RUN: %kernelskill rewrite %t.in.cu --kernel gemm_bias_relu_kernel --rule smem-tile-gemm --param tile=32 --param regs=4 --param cols=2 -o %t.2e.cu
// RUN: FileCheck %s --check-prefix=TWOE --input-file=%t.2e.cu
// RUN: %nvcc -c -arch=sm_90 %t.2e.cu -o %t.2e.o
// RUN: %kernelskill rewrite %t.in.cu --kernel linear_direct --rule smem-tile-gemm --param tile=64 --param regs=8 --param cols=4 -o %t.2f.cu
// RUN: FileCheck %s --check-prefix=TWOF --input-file=%t.2f.cu
// RUN: %nvcc -c -arch=sm_90 %t.2f.cu -o %t.2f.o
// RUN: %kernelskill rewrite %t.in.cu --kernel linear_plain --rule smem-tile-gemm --param tile=64 --param regs=4 --param cols=4 -o %t.2g.cu
// RUN: %nvcc -c -arch=sm_90 %t.2g.cu -o %t.2g.o
//
// The rewritten kernels against the originals on the CPU (threads emulated,
// __syncthreads a barrier), sizes like 37 x 45 x 50: bitwise the same outputs.
// RUN: %python %S/Inputs/smem-tile-gemm-emu.py %clang19 %t.in.cu %t.seed.cu gemm_bias_relu_kernel 16 1
// RUN: %python %S/Inputs/smem-tile-gemm-emu.py %clang19 %t.in.cu %t.rb.cu gemm_bias_relu_kernel 32 4
// RUN: %python %S/Inputs/smem-tile-gemm-emu.py %clang19 %t.in.cu %t.d.cu linear_direct 32 2
// RUN: %python %S/Inputs/smem-tile-gemm-emu.py %clang19 %t.in.cu %t.p.cu linear_plain 8 1
// RUN: %python %S/Inputs/smem-tile-gemm-emu.py %clang19 %t.in.cu %t.2d.cu gemm_bias_relu_kernel 64 4 4
// RUN: %python %S/Inputs/smem-tile-gemm-emu.py %clang19 %t.in.cu %t.2e.cu gemm_bias_relu_kernel 32 4 2
// RUN: %python %S/Inputs/smem-tile-gemm-emu.py %clang19 %t.in.cu %t.2f.cu linear_direct 64 8 4
// RUN: %python %S/Inputs/smem-tile-gemm-emu.py %clang19 %t.in.cu %t.2g.cu linear_plain 64 4 4
//
// Idempotence.
// RUN: %kernelskill rewrite %t.rb.cu --kernel gemm_bias_relu_kernel --rule smem-tile-gemm -o %t.rb2.cu 2>&1 | FileCheck %s --check-prefix=AGAIN
// RUN: cmp %t.rb.cu %t.rb2.cu
//
// Refused (exit 1, file untouched): epilogues reading x or bias at an index
// other than row/col, reading the output, calling an unknown function, a
// statement after the store, a write to another array.
// RUN: cp %t.in.cu %t.neg.cu
// RUN: %python -c "import subprocess,sys; sys.exit(subprocess.call(sys.argv[1:]) != 1)" %kernelskill rewrite %t.neg.cu --kernel neg_epi_x --rule smem-tile-gemm -o %t.neg.cu
// RUN: not %kernelskill rewrite %t.neg.cu --kernel neg_epi_x --rule smem-tile-gemm -o %t.neg.cu 2>&1 | FileCheck %s --check-prefix=NEGIDX
// RUN: not %kernelskill rewrite %t.neg.cu --kernel neg_epi_idx --rule smem-tile-gemm -o %t.neg.cu 2>&1 | FileCheck %s --check-prefix=NEGIDX
// RUN: not %kernelskill rewrite %t.neg.cu --kernel neg_reads_c --rule smem-tile-gemm -o %t.neg.cu 2>&1 | FileCheck %s --check-prefix=NEGC
// RUN: not %kernelskill rewrite %t.neg.cu --kernel neg_call --rule smem-tile-gemm -o %t.neg.cu 2>&1 | FileCheck %s --check-prefix=NEGCALL
// RUN: not %kernelskill rewrite %t.neg.cu --kernel neg_after_store --rule smem-tile-gemm -o %t.neg.cu 2>&1 | FileCheck %s --check-prefix=NEGAFTER
// RUN: not %kernelskill rewrite %t.neg.cu --kernel neg_other_write --rule smem-tile-gemm -o %t.neg.cu 2>&1 | FileCheck %s --check-prefix=NEGWRITE
// RUN: cmp %t.in.cu %t.neg.cu
//
// library-gemm keeps its narrower precondition: B transposed is not its GEMM.
// RUN: not %kernelskill rewrite %t.neg.cu --kernel linear_plain --rule library-gemm 2>&1 | FileCheck %s --check-prefix=LIB
//
// SEED: // kernelskill: rule:smem-tile-gemm (rule smem-tile-gemm) 16x16 shared-memory tiles, block 16x16, B transposed, epilogue kept
// SEED-NEXT: __global__ void gemm_bias_relu_kernel(
// SEED: ks_tilegemm::gemm_1d<16, 1, true, float, int, int, int>(blockIdx.y, blockIdx.x, (k), 0.0f,
// SEED-NEXT: [&](int ks_ar, int ks_ak) { return (ks_ar < (m) && ks_ak < (k)) ? x[(size_t)ks_ar * (k) + ks_ak] : 0.0f; },
// SEED-NEXT: [&](int ks_bk, int ks_bn) { return (ks_bk < (k) && ks_bn < (n)) ? w[(size_t)ks_bn * (k) + ks_bk] : 0.0f; },
// SEED-NEXT: [&](int ks_row, int ks_col, float ks_v) {
// SEED-NEXT:   if (ks_row < (m) && ks_col < (n)) {
// SEED-NEXT:     float acc = ks_v;
// SEED-NEXT:     const int col = ks_col;
// SEED-NEXT:     acc += bias[col];
// SEED-NEXT:     y[(size_t)ks_row * (n) + ks_col] = acc > 0.0f ? acc : 0.0f;
// SEED-NEXT:   }
// SEED-NEXT: });
// SEED:      gemm_bias_relu_kernel<<<dim3(((n) + 15) / 16, ((m) + 15) / 16), dim3(16, 16)>>>(x, w, bias, y, m, n, k);
// RB: 32x32 shared-memory tiles, 4 outputs per thread (register blocking), block 32x8, B transposed, epilogue kept
// RB-NEXT: __global__ void gemm_bias_relu_kernel(
// RB: ks_tilegemm::gemm_1d<32, 4, true, float, int, int, int>(blockIdx.y, blockIdx.x, (k), 0.0f,
// RB: gemm_bias_relu_kernel<<<dim3(((n) + 31) / 32, ((m) + 31) / 32), dim3(32, 8)>>>(x, w, bias, y, m, n, k);
// TWOD: // kernelskill: rule:smem-tile-gemm (rule smem-tile-gemm) 64x64 shared-memory tiles, 4x4 outputs per thread (2-D register blocking), block 16x16, B transposed, epilogue kept
// TWOD-NEXT: __global__ void gemm_bias_relu_kernel(
// TWOD: ks_tilegemm::gemm_2d<64, 4, 4, true, float, int, int, int>(blockIdx.y, blockIdx.x, (k), 0.0f,
// TWOD-NEXT: [&](int ks_ar, int ks_ak) { return (ks_ar < (m) && ks_ak < (k)) ? x[(size_t)ks_ar * (k) + ks_ak] : 0.0f; },
// TWOD-NEXT: [&](int ks_bk, int ks_bn) { return (ks_bk < (k) && ks_bn < (n)) ? w[(size_t)ks_bn * (k) + ks_bk] : 0.0f; },
// TWOD-NEXT: [&](int ks_row, int ks_col, float ks_v) {
// TWOD-NEXT:   if (ks_row < (m) && ks_col < (n)) {
// TWOD-NEXT:     float acc = ks_v;
// TWOD-NEXT:     const int col = ks_col;
// TWOD-NEXT:     acc += bias[col];
// TWOD-NEXT:     y[(size_t)ks_row * (n) + ks_col] = acc > 0.0f ? acc : 0.0f;
// TWOD-NEXT:   }
// TWOD-NEXT: });
// TWOD:      gemm_bias_relu_kernel<<<dim3(((n) + 63) / 64, ((m) + 63) / 64), dim3(16, 16)>>>(x, w, bias, y, m, n, k);
// TWOE: 32x32 shared-memory tiles, 4x2 outputs per thread (2-D register blocking), block 16x8, B transposed, epilogue kept
// TWOE-NEXT: __global__ void gemm_bias_relu_kernel(
// TWOE: ks_tilegemm::gemm_2d<32, 4, 2, true, float, int, int, int>(blockIdx.y, blockIdx.x, (k), 0.0f,
// TWOE: gemm_bias_relu_kernel<<<dim3(((n) + 31) / 32, ((m) + 31) / 32), dim3(16, 8)>>>(x, w, bias, y, m, n, k);
// TWOF: 64x64 shared-memory tiles, 8x4 outputs per thread (2-D register blocking), block 16x8, B transposed, epilogue kept
// TWOF-NEXT: __global__ void linear_direct(
// TWOF: ks_tilegemm::gemm_2d<64, 8, 4, true, float, int, int, int>(blockIdx.y, blockIdx.x, (k), 0.0f,
// TWOF:      float s = ks_v;
// TWOF-NEXT: const int r = ks_row;
// TWOF-NEXT: const int c = ks_col;
// TWOF-NEXT: s = s * 0.5f + bias[c];
// DIRECT: 32x32 shared-memory tiles, 2 outputs per thread (register blocking), block 32x16, B transposed, epilogue kept
// DIRECT-NEXT: __global__ void linear_direct(
// DIRECT: ks_tilegemm::gemm_1d<32, 2, true, float, int, int, int>(blockIdx.y, blockIdx.x, (k), 0.0f,
// DIRECT:      [&](int ks_bk, int ks_bn) { return (ks_bk < (k) && ks_bn < (n)) ? w[(size_t)ks_bn * (k) + ks_bk] : 0.0f; },
// DIRECT:      float s = ks_v;
// DIRECT-NEXT: const int r = ks_row;
// DIRECT-NEXT: const int c = ks_col;
// DIRECT-NEXT: s = s * 0.5f + bias[c];
// DIRECT-NEXT: s -= 0.25f * bias[r];
// DIRECT-NEXT: y[ks_row * (n) + ks_col] = fmaxf(s, 0.0f);
// PLAIN: // kernelskill: rule:smem-tile-gemm (rule smem-tile-gemm) 8x8 shared-memory tiles, block 8x8, B transposed{{$}}
// PLAIN-NEXT: __global__ void linear_plain(
// PLAIN: ks_tilegemm::gemm_1d<8, 1, true, float, int, int, int>(blockIdx.y, blockIdx.x, (k), 0.0f,
// PLAIN: [&](int ks_bk, int ks_bn) { return (ks_bk < (k) && ks_bn < (n)) ? w[ks_bn * (k) + ks_bk] : 0.0f; },
// PLAIN: if (ks_row < (m) && ks_col < (n)) y[ks_row * (n) + ks_col] = ks_v;
// AGAIN: already applied: rule smem-tile-gemm, kernel gemm_bias_relu_kernel
// NEGIDX: is not a naive GEMM this rule understands: the epilogue reads a parameter array at an index other than row or col
// NEGC: the epilogue of 'neg_reads_c' reads C, which it writes
// NEGCALL: the epilogue calls a function this rule does not know
// NEGAFTER: is not a naive GEMM this rule understands: a statement follows the store
// NEGWRITE: is not a naive GEMM this rule understands: a statement between the k-loop and the store is not an update of the accumulator
// LIB: kernel 'linear_plain' is not a naive GEMM this rule understands: the k-loop's product is not A[row * lda + k] * B[k * ldb + col] of pointer parameters, in a layout this rule reads (line {{[0-9]+}}: `for (int j = 0; j < k; j++)`)

#include <cuda_runtime.h>

__global__ void gemm_bias_relu_kernel(const float *x, const float *w, const float *bias,
                                      float *y, int m, int n, int k)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= m || col >= n)
        return;
    const float *xr = x + (size_t)row * k;
    const float *wr = w + (size_t)col * k;
    float acc = 0.0f;
    for (int j = 0; j < k; j++)
        acc += xr[j] * wr[j];
    acc += bias[col];
    y[(size_t)row * n + col] = acc > 0.0f ? acc : 0.0f;
}

__global__ void linear_direct(const float *x, const float *w, const float *bias, float *y, int m, int n, int k)
{
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < m && c < n) {
        float s = 0.0f;
        for (int j = 0; j < k; ++j)
            s += w[(size_t)c * k + j] * x[(size_t)r * k + j];
        s = s * 0.5f + bias[c];
        s -= 0.25f * bias[r];
        y[r * n + c] = fmaxf(s, 0.0f);
    }
}

__global__ void linear_plain(const float *x, const float *w, const float *bias, float *y, int m, int n, int k)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= m || col >= n)
        return;
    float acc = 0.0f;
    for (int j = 0; j < k; j++)
        acc += x[row * k + j] * w[col * k + j];
    y[row * n + col] = acc;
}

__global__ void neg_epi_x(const float *x, const float *w, const float *bias, float *y, int m, int n, int k)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= m || col >= n)
        return;
    float acc = 0.0f;
    for (int j = 0; j < k; j++)
        acc += x[row * k + j] * w[col * k + j];
    acc += x[row * k];
    y[row * n + col] = acc;
}

__global__ void neg_epi_idx(const float *x, const float *w, const float *bias, float *y, int m, int n, int k)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= m || col >= n)
        return;
    float acc = 0.0f;
    for (int j = 0; j < k; j++)
        acc += x[row * k + j] * w[col * k + j];
    y[row * n + col] = acc + bias[col + 1];
}

__global__ void neg_reads_c(const float *x, const float *w, const float *bias, float *y, int m, int n, int k)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= m || col >= n)
        return;
    float acc = 0.0f;
    for (int j = 0; j < k; j++)
        acc += x[row * k + j] * w[col * k + j];
    acc += y[col];
    y[row * n + col] = acc;
}

__global__ void neg_call(const float *x, const float *w, const float *bias, float *y, int m, int n, int k)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= m || col >= n)
        return;
    float acc = 0.0f;
    for (int j = 0; j < k; j++)
        acc += x[row * k + j] * w[col * k + j];
    y[row * n + col] = sinf(acc);
}

__global__ void neg_after_store(const float *x, const float *w, const float *bias, float *y, int m, int n, int k)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= m || col >= n)
        return;
    float acc = 0.0f;
    for (int j = 0; j < k; j++)
        acc += x[row * k + j] * w[col * k + j];
    y[row * n + col] = acc;
    acc += bias[col];
}

__global__ void neg_other_write(const float *x, const float *w, float *bias, float *y, int m, int n, int k)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= m || col >= n)
        return;
    float acc = 0.0f;
    for (int j = 0; j < k; j++)
        acc += x[row * k + j] * w[col * k + j];
    bias[col] = acc;
    y[row * n + col] = acc;
}

extern "C" void linear_forward(const float *x, const float *w, float *bias, float *y, int m, int n, int k)
{
    dim3 threads(16, 16);
    dim3 blocks((n + 15) / 16, (m + 15) / 16);
    gemm_bias_relu_kernel<<<blocks, threads>>>(x, w, bias, y, m, n, k);
    linear_direct<<<blocks, threads>>>(x, w, bias, y, m, n, k);
    linear_plain<<<blocks, threads>>>(x, w, bias, y, m, n, k);
    neg_epi_x<<<blocks, threads>>>(x, w, bias, y, m, n, k);
    neg_epi_idx<<<blocks, threads>>>(x, w, bias, y, m, n, k);
    neg_reads_c<<<blocks, threads>>>(x, w, bias, y, m, n, k);
    neg_call<<<blocks, threads>>>(x, w, bias, y, m, n, k);
    neg_after_store<<<blocks, threads>>>(x, w, bias, y, m, n, k);
    neg_other_write<<<blocks, threads>>>(x, w, bias, y, m, n, k);
}
