// Seed for the transpose task: y[c][r] = x[r][c] for a rows x cols matrix.
// One thread per output element: writes are coalesced, reads are strided by cols.
#include <cuda_runtime.h>

// kernelskill: mem.coalesce-smem-transpose (rule smem-transpose, round 1) dram 25%->63%, l2 95%->72%, 2.55x — the shipped tiled transpose (share/kernelskill/templates/ks_transpose.cuh)
/* ks_transpose.cuh — device code of rule smem-transpose (lib/rewrite/rules/smem-transpose.c,
 * docs/rules/smem-transpose.md). out = transpose(in) through a TILE x TILE
 * shared-memory tile, padded by one column against bank conflicts: a block of
 * TILE x ROWS threads reads its tile row-wise (threadIdx.x along the input's
 * unit-stride columns) and writes it column-wise (threadIdx.x along the
 * output's unit-stride dimension, the input's rows), ROWS rows per pass. The
 * block owns tile column blockIdx.x and tile rows blockIdx.y, blockIdx.y +
 * gridDim.y, ... (gridDim.y is capped by the launch). Every thread of the
 * block must call it (it holds barriers). The sizes keep the types the kernel
 * gave them: bounds are compared and offsets computed as the original kernel's
 * expressions were. The rule inserts this text once per file, so the rewritten
 * file compiles on its own. */
#ifndef KS_TRANSPOSE_CUH
#define KS_TRANSPOSE_CUH

namespace ks_transpose {

/* out[out_off + c * out_stride + r] = in[in_off + r * in_stride + c] for
 * r < rows, c < cols (the offsets: a batch's matrix, 0 when there is one); T is
 * the tile's element type, I the index type of the tile coordinates. */
template <int TILE, int ROWS, class T, class I, class TI, class TO, class OI, class OO, class R, class C, class SI,
          class SO>
__device__ __forceinline__ void tile(const TI *in, TO *out, OI in_off, OO out_off, R rows, C cols, SI in_stride,
                                     SO out_stride) {
  static_assert(TILE % ROWS == 0, "ROWS must divide TILE");
  __shared__ T t[TILE][TILE + 1];
  const I c0 = (I)blockIdx.x * TILE;
  for (long long by = blockIdx.y; by < ((long long)rows + (TILE - 1)) / TILE; by += gridDim.y) {
    const I r0 = (I)(by * TILE);
    for (int k = 0; k < TILE; k += ROWS) {
      const I r = r0 + (I)(threadIdx.y + k), c = c0 + (I)threadIdx.x;
      if (r < rows && c < cols) t[threadIdx.y + k][threadIdx.x] = in[in_off + r * in_stride + c];
    }
    __syncthreads();
    for (int k = 0; k < TILE; k += ROWS) {
      const I c = c0 + (I)(threadIdx.y + k), r = r0 + (I)threadIdx.x;
      if (c < cols && r < rows) out[out_off + c * out_stride + r] = t[threadIdx.x][threadIdx.y + k];
    }
    __syncthreads(); /* the next tile row reuses t */
  }
}

} /* namespace ks_transpose */

#endif /* KS_TRANSPOSE_CUH */

// kernelskill: mem.coalesce-smem-transpose (rule smem-transpose, round 1) dram 25%->63%, l2 95%->72%, 2.55x — 32x32 shared-memory tile [32][33] (padded against bank conflicts), block 32x8, coalesced loads and stores (1-D form)
__global__ void transpose_kernel(const float *x, float *y, int rows, int cols)
{
  ks_transpose::tile<32, 8, float, long long>(x, y, 0, 0, (rows), (cols), (cols), (rows));
}

extern "C" void transpose_forward(const float *x, float *y, int rows, int cols)
{
    int threads = 256;
    long long n = (long long)rows * cols;
    long long blocks = (n + threads - 1) / threads;
    // kernelskill: mem.coalesce-smem-transpose (rule smem-transpose, round 1) dram 25%->63%, l2 95%->72%, 2.55x — grid of 32x32 tiles over rows x cols (y capped at 65535), block 32x8
    transpose_kernel<<<dim3((unsigned)((cols + 31) / 32), (unsigned)((rows + 31) / 32 < 65535 ? (rows + 31) / 32 : 65535)), dim3(32, 8)>>>(x, y, rows, cols);
}
