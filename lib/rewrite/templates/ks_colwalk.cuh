/* ks_colwalk.cuh — device helpers of rule column-walk (lib/rewrite/rules/column-walk.c,
 * docs/rules/column-walk.md). A column walk (one thread per column walking all
 * rows) becomes a 2-D block of COLS columns x ROWS row slices: slice ty walks rows
 * ty, ty + ROWS, ... and its partial result is combined here with the other
 * slices of its column through shared memory, in a fixed tree order (the result
 * does not depend on timing: the same inputs give the same bits on every run).
 * Every thread of the block must call a combine (it holds barriers); every
 * thread gets its column's result. The rule inserts this text once per file,
 * so the rewritten file compiles on its own. */
#ifndef KS_COLWALK_CUH
#define KS_COLWALK_CUH

namespace ks_colwalk {

struct op_sum {
  template <class T> __device__ __forceinline__ T operator()(T a, T b) const { return a + b; }
};
/* max/min: fmax/fmin for floating types (a NaN loses, as with fmaxf in the
 * walk), the comparison for integers. T(0.5) != T(0) tells them apart. */
struct op_max {
  template <class T> __device__ __forceinline__ T operator()(T a, T b) const {
    if constexpr (T(0.5) != T(0)) return fmax(a, b);
    else return a < b ? b : a;
  }
};
struct op_min {
  template <class T> __device__ __forceinline__ T operator()(T a, T b) const {
    if constexpr (T(0.5) != T(0)) return fmin(a, b);
    else return b < a ? b : a;
  }
};

/* Combine v over threadIdx.y (ROWS slices, a power of two) for each
 * threadIdx.x (COLS columns): slice pairs (ty, ty + h) for h = ROWS/2 ... 1. */
template <int COLS, int ROWS, class T, class Op> __device__ __forceinline__ T combine(T v, Op op) {
  static_assert(ROWS >= 1 && (ROWS & (ROWS - 1)) == 0, "ROWS must be a power of two");
  static_assert(COLS >= 1 && COLS * ROWS <= 1024, "at most 1024 threads per block");
  __shared__ T s[ROWS][COLS];
  const int tx = (int)threadIdx.x, ty = (int)threadIdx.y;
  s[ty][tx] = v;
  __syncthreads();
  for (int h = ROWS / 2; h > 0; h >>= 1) {
    if (ty < h) s[ty][tx] = op(s[ty][tx], s[ty + h][tx]);
    __syncthreads();
  }
  T r = s[0][tx];
  __syncthreads(); /* the next combine of this type reuses s */
  return r;
}

/* The same combine for a block whose shape the launch chooses (cols=auto):
 * blockDim.x columns x blockDim.y slices (a power of two), at most 1024
 * threads. Same pairs in the same order as combine<blockDim.x, blockDim.y>. */
template <class T, class Op> __device__ __forceinline__ T combine_rt(T v, Op op) {
  __shared__ T s[1024];
  const int tx = (int)threadIdx.x, ty = (int)threadIdx.y, nx = (int)blockDim.x;
  s[ty * nx + tx] = v;
  __syncthreads();
  for (int h = (int)blockDim.y / 2; h > 0; h >>= 1) {
    if (ty < h) s[ty * nx + tx] = op(s[ty * nx + tx], s[(ty + h) * nx + tx]);
    __syncthreads();
  }
  T r = s[tx];
  __syncthreads(); /* the next combine of this type reuses s */
  return r;
}

template <int COLS, int ROWS, class T> __device__ __forceinline__ T sum(T v) { return combine<COLS, ROWS>(v, op_sum()); }
template <int COLS, int ROWS, class T> __device__ __forceinline__ T max(T v) { return combine<COLS, ROWS>(v, op_max()); }
template <int COLS, int ROWS, class T> __device__ __forceinline__ T min(T v) { return combine<COLS, ROWS>(v, op_min()); }

template <class T> __device__ __forceinline__ T sum_rt(T v) { return combine_rt(v, op_sum()); }
template <class T> __device__ __forceinline__ T max_rt(T v) { return combine_rt(v, op_max()); }
template <class T> __device__ __forceinline__ T min_rt(T v) { return combine_rt(v, op_min()); }

/* Host: the launch's grid g with K times as many blocks along x (the block
 * covers COLS columns instead of the original COLS * K threads). */
inline dim3 grid(dim3 g, unsigned k) {
  g.x *= k;
  return g;
}

/* Host, cols=auto: columns per block for a launch of grid g with b threads
 * per block along x (one per column): 32 when their blocks still reach three
 * quarters of the SMs of the current device, else 16 (8 only when b is no
 * multiple of 16). Few columns in wide blocks leave SMs idle; 8 columns make
 * each row's read a lone 32-byte sector, slower again. Measured on the H200
 * (132 SMs; column walks of 537 MB, 1024-thread blocks, unroll 8): 2048
 * columns took 180 us with 32 columns (64 blocks), 143 us with 16, 210 us
 * with 8; 4096 columns reached 95% of the DRAM peak with 32 (128 blocks) and
 * 88% with 16 (docs/rules/column-walk.md). */
inline unsigned cols_auto(dim3 g, unsigned b) {
  int dev = 0, sm = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&sm, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
    sm = 0;
  const unsigned long long threads = (unsigned long long)g.x * g.y * g.z * b;
  if (b % 32 == 0 && threads / 32 * 4 >= 3ull * (unsigned)sm) return 32;
  if (b % 16 == 0) return 16;
  return b % 32 == 0 ? 32 : 8;
}
/* cols=auto: the grid and the block (t threads: cols_auto(g, b) columns x
 * t / cols row slices) of one launch; g is evaluated by each. */
inline dim3 grid_auto(dim3 g, unsigned b) { return grid(g, b / cols_auto(g, b)); }
inline dim3 block_auto(dim3 g, unsigned b, unsigned t) {
  const unsigned c = cols_auto(g, b);
  return dim3(c, t / c);
}

} /* namespace ks_colwalk */

#endif
