/* ks_vec.cuh — device and host helpers of rule vectorize on template kernels
 * (lib/rewrite/rules/vectorize.c, docs/rules/vectorize.md). When a kernel's
 * element type is a template parameter T, the lanes of one 128-bit access are
 * ks_lanes<T>() = 16 / sizeof(T) (8 for __half, 4 for float, 2 for double),
 * a constant of each instantiation that the kernel and every launch compute
 * from the same T, so each launch's grid shrinks by its own instantiation's
 * lane count. A T whose size does not divide 16 gets 1 lane: its packs are T
 * itself (no wider access, still correct). ks_pack<T, N> is N elements aligned
 * to their total size, so a load or store of one is one 128-bit access.
 * ks_grid_fill (below) sizes the launches of a grid-stride loop. The rule
 * inserts this text once per file, so the rewritten file compiles on its own. */
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

/* A grid-stride loop covers its range with any grid, so its launch may be as
 * large as the device holds: a fixed grid below that (the CUDA samples' 480
 * blocks of 128 threads: a quarter of an H200's resident threads) keeps too few
 * loads in flight. ks_grid_fill raises the grid's x until the blocks can fill
 * every SM (SM count x resident threads per SM); a larger grid, or one it
 * cannot read the device for, stays as it is. Host code, one launch each (only
 * where the CUDA runtime is: a host-only compile of the file does without). */
#if defined(__CUDACC__)
static inline __host__ dim3 ks_grid_fill(dim3 g, dim3 b) {
  int iDev = 0, nSm = 0, nThr = 0;
  if (cudaGetDevice(&iDev) != cudaSuccess ||
      cudaDeviceGetAttribute(&nSm, cudaDevAttrMultiProcessorCount, iDev) != cudaSuccess ||
      cudaDeviceGetAttribute(&nThr, cudaDevAttrMaxThreadsPerMultiProcessor, iDev) != cudaSuccess || nSm <= 0 ||
      nThr <= 0)
    return g;
  unsigned long long nBlock = (unsigned long long)b.x * b.y * b.z, nRest = (unsigned long long)g.y * g.z;
  if (nBlock == 0 || nRest == 0) return g;
  unsigned long long nX = ((unsigned long long)nSm * (unsigned long long)nThr + nBlock - 1) / nBlock;
  nX = (nX + nRest - 1) / nRest;
  if (nX > g.x && nX <= 0x7fffffffULL) g.x = (unsigned int)nX;
  return g;
}
#endif

#endif
