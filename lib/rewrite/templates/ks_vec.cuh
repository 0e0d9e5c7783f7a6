/* ks_vec.cuh — device and host helpers of rule vectorize on template kernels
 * (lib/rewrite/rules/vectorize.c, docs/rules/vectorize.md). When a kernel's
 * element type is a template parameter T, the lanes of one 128-bit access are
 * ks_lanes<T>() = 16 / sizeof(T) (8 for __half, 4 for float, 2 for double),
 * a constant of each instantiation that the kernel and every launch compute
 * from the same T, so each launch's grid shrinks by its own instantiation's
 * lane count. A T whose size does not divide 16 gets 1 lane: its packs are T
 * itself (no wider access, still correct). ks_pack<T, N> is N elements aligned
 * to their total size, so a load or store of one is one 128-bit access. The
 * rule inserts this text once per file, so the rewritten file compiles on its
 * own. */
#ifndef KS_VEC_CUH
#define KS_VEC_CUH

template <typename T>
__host__ __device__ constexpr int ks_lanes() {
  return sizeof(T) <= 16 && 16 % sizeof(T) == 0 ? (int)(16 / sizeof(T)) : 1;
}

template <typename T, int N>
struct alignas(N == 1 ? alignof(T) : sizeof(T) * N) ks_pack {
  T e[N];
};

#endif
