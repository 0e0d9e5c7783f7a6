/* ks_fallback.cuh — the warp-shared fallback of rule vectorize's n-dimensional
 * form (lib/rewrite/rules/vectorize.c; docs/rules/vectorize.md, "Parameter fallback").
 *
 * A thread whose T outputs cannot take the vector path (a lane outside the
 * guard, a row not aligned) runs the kernel's body once per output. Where one
 * thread of a warp does (the thread at x = 0 of an image), the other 31 wait
 * while it runs T bodies one after another: on an 8-bit stencil with 16 lanes
 * a thread, one warp in eight along a row, for about a fifth of the kernel's
 * instructions. Here the warp shares that work instead: the outputs of all of
 * its falling-back threads are numbered 0 .. n*T-1 and dealt out to every lane
 * of the warp, each lane taking the source thread's values (ks_fb_shfl) and
 * running the body for one output a round. A warp whose threads all fall back
 * runs T rounds, as before.
 *
 * Whatever the warp's convergence, each thread runs this once, with the
 * threads it is converged with at that point (__activemask): the ballot, the
 * rounds and every shuffle are over that set, whose members run the same
 * number of rounds, and a thread's outputs are taken by the set it is in. The
 * rule inserts this text once per file, so the rewritten file compiles on its
 * own. */
#ifndef KS_FALLBACK_CUH
#define KS_FALLBACK_CUH

/* The set of converged threads, its falling-back threads, and this lane's rank
 * in the set. Rounds: for (g0 = 0; g0 < tot; g0 += cnt), output g0 + rank. */
struct ks_fb_warp {
  unsigned am, m;
  int rank, cnt, tot, per;
  __device__ __forceinline__ ks_fb_warp(bool bMine, int nPer) {
    const unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    am = __activemask();
    m = __ballot_sync(am, bMine);
    rank = __popc(am & ((1u << (t & 31u)) - 1u));
    cnt = __popc(am);
    per = nPer;
    tot = __popc(m) * nPer;
  }
  /* The lane whose thread owns output g (g < tot), else the set's first (a lane in the set). */
  __device__ __forceinline__ int src(int g) const { return g < tot ? (int)__fns(m, 0, g / per + 1) : __ffs(am) - 1; }
};

/* A scalar (integer, floating point, pointer) of lane src, in 32-bit words. */
template <typename V>
__device__ __forceinline__ V ks_fb_shfl(unsigned am, V v, int src) {
  static_assert(sizeof(V) <= 8, "ks_fb_shfl: a scalar of at most 8 bytes");
  unsigned w[2] = {0u, 0u};
  memcpy(w, &v, sizeof v);
  w[0] = __shfl_sync(am, w[0], src);
  if (sizeof(V) > 4) w[1] = __shfl_sync(am, w[1], src);
  memcpy(&v, w, sizeof v);
  return v;
}

#endif
