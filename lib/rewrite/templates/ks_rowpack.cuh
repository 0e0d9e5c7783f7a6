/* ks_rowpack.cuh — device helpers of rule row-reduce (lib/rewrite/rules/row-reduce.c,
 * docs/rules/row-reduce.md) for rows of 16-bit floats. Each thread of a row's
 * group walks packs of 8 consecutive elements: a pack of a __half / __nv_bfloat16
 * buffer is one 16-byte load or store (a float buffer's, two), where a thread's
 * 2-byte loads would make each warp request only 64 bytes. The loop body runs
 * as the kernel wrote it on the pack's registers, one element at a time.
 *
 * A pack is moved whole only when it is full (8 elements inside the row) and
 * its address is 16-byte aligned, which the row start decides at run time (a
 * row of odd length starts every other row on a 2-byte boundary); otherwise
 * (the row's tail, a misaligned row) element by element, the scalar path.
 * Which thread owns an element does not depend on the path, so a later pass
 * reads what its own thread stored. The rule inserts this text once per file,
 * so the rewritten file compiles on its own. */
#ifndef KS_ROWPACK_CUH
#define KS_ROWPACK_CUH

namespace ks_rowpack {

/* 8 elements of T (2 or 4 bytes) in registers: every index the rule's code
 * uses is a constant after unrolling, so the array stays in registers. */
template <class T> struct pack {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "packs of 2- or 4-byte elements");
  uint4 q[sizeof(T) / 2];
  __device__ __forceinline__ T &operator[](int e) { return reinterpret_cast<T *>(q)[e]; }
  __device__ __forceinline__ const T &operator[](int e) const { return reinterpret_cast<const T *>(q)[e]; }
};

__device__ __forceinline__ bool aligned16(const void *p) { return ((unsigned long long)p & 15ull) == 0; }

/* The elements of the pack inside the row: nLeft = bound - pack start, clamped to 0..8. */
__device__ __forceinline__ int count(long long nLeft) { return nLeft <= 0 ? 0 : nLeft >= 8 ? 8 : (int)nLeft; }

/* Plain loads (not __ldg): a buffer an earlier pass stored is read again. */
template <class T> __device__ __forceinline__ void load(pack<T> &r, const T *p, int n) {
  if (n == 8 && aligned16(p)) {
#pragma unroll
    for (int i = 0; i < (int)(sizeof(T) / 2); i++) r.q[i] = reinterpret_cast<const uint4 *>(p)[i];
  } else {
#pragma unroll
    for (int e = 0; e < 8; e++)
      if (e < n) r[e] = p[e];
  }
}

template <class T> __device__ __forceinline__ void store(T *p, const pack<T> &r, int n) {
  if (n == 8 && aligned16(p)) {
#pragma unroll
    for (int i = 0; i < (int)(sizeof(T) / 2); i++) reinterpret_cast<uint4 *>(p)[i] = r.q[i];
  } else {
#pragma unroll
    for (int e = 0; e < 8; e++)
      if (e < n) p[e] = r[e];
  }
}

} // namespace ks_rowpack

#endif
