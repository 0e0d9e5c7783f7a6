/* ks_tilegemm.cuh — device code of rule smem-tile-gemm (lib/rewrite/rules/smem-tile-gemm.c,
 * docs/rules/smem-tile-gemm.md). C = A B for one block's T x T tile of C, the
 * k dimension walked in T-wide steps through two shared-memory tiles, with R
 * (gemm_1d) or R x C (gemm_2d) outputs per thread in registers. The kernel's
 * own code stays in three functors the rule writes at the call: load_a(row, k)
 * and load_b(k, col) give an element of A and B (zero outside the matrices),
 * store(row, col, v) writes an output (its bounds check and epilogue
 * included). RowT, ColT and KT are the types of the kernel's row, column and
 * k indices; row_blk / col_blk are blockIdx.y / blockIdx.x (or swapped) as
 * the kernel names them, so every index is computed in the types the original
 * used. Every thread of the block must call it (it holds barriers). The rule
 * inserts this text once per file, so the rewritten file compiles on its own. */
#ifndef KS_TILEGEMM_CUH
#define KS_TILEGEMM_CUH

namespace ks_tilegemm {

/* A block of T x T/R threads: thread (x, y) owns column x and rows y + i*T/R;
 * the k-tile is loaded by threadIdx.x along k (B transposed, BT: threads along
 * k read consecutive elements of a B row and store them down a column of Bs,
 * padded by one against bank conflicts). */
template <int T, int R, bool BT, class E, class RowT, class ColT, class KT, class RB, class CB, class KN, class LA,
          class LB, class ST>
__device__ __forceinline__ void gemm_1d(RB row_blk, CB col_blk, KN K, E zero, LA load_a, LB load_b, ST store) {
  constexpr int S = T / R; /* rows of threads per block */
  __shared__ E As[T][T];
  __shared__ E Bs[T][T + (BT ? 1 : 0)];
  const ColT col = col_blk * T + threadIdx.x;
  E acc[R];
  for (int i = 0; i < R; ++i) acc[i] = zero;
  for (KT t = 0; t < K; t += T) {
    for (int i = 0; i < R; ++i) {
      const int r = threadIdx.y + i * S;
      const RowT ar = row_blk * T + r;
      const KT ak = t + threadIdx.x;
      As[r][threadIdx.x] = load_a(ar, ak);
      if (BT) {
        const ColT bn = col_blk * T + r;
        Bs[threadIdx.x][r] = load_b(ak, bn);
      } else {
        const KT bk = t + r;
        Bs[r][threadIdx.x] = load_b(bk, col);
      }
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < T; ++k) {
      const E b = Bs[k][threadIdx.x];
#pragma unroll
      for (int i = 0; i < R; ++i) acc[i] += As[threadIdx.y + i * S][k] * b;
    }
    __syncthreads();
  }
  for (int i = 0; i < R; ++i) {
    const RowT row = row_blk * T + threadIdx.y + i * S;
    store(row, col, acc[i]);
  }
}

/* 2-D register blocking: a block of W x S threads (W = T/C, S = T/R); thread
 * (x, y) owns the rows y + i*S and the columns x + j*W, strided so that each
 * store of the block is coalesced along x. Both tiles are kept k-innermost,
 * [row][k] and [col][k], their rows padded by 16 bytes: the inner loop reads R
 * values of A and C of B along k, which the compiler merges into 16-byte
 * shared loads over the unrolled k, and the pad puts neighbouring rows on
 * other banks. All threads load the tiles together, e = tid + l*W*S over the
 * T*T elements: A (and B transposed) with consecutive e along k (coalesced,
 * conflict-free stores); plain B with groups of 8 consecutive columns over 4 k
 * per warp (32-byte coalesced rows, and 8 x 4 distinct banks for the
 * transposing store). */
template <int T, int R, int C, bool BT, class E, class RowT, class ColT, class KT, class RB, class CB, class KN,
          class LA, class LB, class ST>
__device__ __forceinline__ void gemm_2d(RB row_blk, CB col_blk, KN K, E zero, LA load_a, LB load_b, ST store) {
  constexpr int S = T / R, W = T / C, PAD = 16 / (int)sizeof(E), NT = W * S, NL = T * T / NT;
  __shared__ __align__(16) E As[T][T + PAD];
  __shared__ __align__(16) E Bs[T][T + PAD];
  const int tid = threadIdx.y * W + threadIdx.x;
  const RowT row0 = row_blk * T;
  const ColT col0 = col_blk * T;
  E acc[R][C];
#pragma unroll
  for (int i = 0; i < R; ++i)
#pragma unroll
    for (int j = 0; j < C; ++j) acc[i][j] = zero;
  for (KT t = 0; t < K; t += T) {
#pragma unroll 4
    for (int l = 0; l < NL; ++l) {
      const int e = tid + l * NT;
      const int r = e / T, c = e % T;
      const RowT ar = row0 + r;
      const KT ak = t + c;
      As[r][c] = load_a(ar, ak);
      if (BT) {
        const ColT bn = col0 + r;
        Bs[r][c] = load_b(ak, bn);
      } else {
        const int n = e % 8 + e / (8 * T) * 8, q = e / 8 % T;
        const ColT bn = col0 + n;
        const KT bk = t + q;
        Bs[n][q] = load_b(bk, bn);
      }
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < T; ++k) {
      E a[R], b[C];
#pragma unroll
      for (int i = 0; i < R; ++i) a[i] = As[threadIdx.y + i * S][k];
#pragma unroll
      for (int j = 0; j < C; ++j) b[j] = Bs[threadIdx.x + j * W][k];
#pragma unroll
      for (int i = 0; i < R; ++i)
#pragma unroll
        for (int j = 0; j < C; ++j) acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < R; ++i) {
    const RowT row = row0 + threadIdx.y + i * S;
#pragma unroll
    for (int j = 0; j < C; ++j) {
      const ColT col = col0 + threadIdx.x + j * W;
      store(row, col, acc[i][j]);
    }
  }
}

} /* namespace ks_tilegemm */

#endif /* KS_TILEGEMM_CUH */
