/* ks_gemm_tf32_sm90.cuh — KernelSkill's shipped Hopper TF32 GEMM (installed
 * under share/kernelskill/templates/; the gemm-tf32-sm90 rule copies it into
 * the files it rewrites, bench/gemm/wgmma_tf32.cu includes it from
 * lib/rewrite/templates/ to measure and check it).
 *
 *   ks_gemm_sm90::gemm_tf32(M, N, K, A, lda, B, ldb, C, ldc, epi, stream):
 *   C[m][n] = epi(sum_k A[m][k] * B[k][n], m, n, &C[m][n]) for m < M, n < N,
 *   A M x K (A[m*lda + k]), B K x N (B[k*ldb + n]), C M x N (C[m*ldc + n]),
 *   all row-major fp32, the products in TF32 (operands rounded to TF32 with
 *   cvt.rna, FP32 sums): not bitwise an FP32 GEMM, for tasks whose tolerance
 *   admits TF32. Measured (bench/gemm/wgmma-h100-run3.txt, H100): 4096^3 0.91x
 *   cuBLAS TF32 with the transpose below included (the GEMM alone 1.03x),
 *   2048^3 0.95x, 1024^3 1.28x.
 *
 *   ks_gemm_sm90::gemm_tf32_nt(M, N, K, A, lda, B, ldb, C, ldc, epi, stream):
 *   the same with B given transposed, N x K (B[n*ldb + k], ldb >= K: the
 *   layout of nn.Linear's weight); B is then already k-contiguous and is only
 *   copied, TF32-rounded the same way, into the workspace (no transpose).
 *
 * Why: a naive or CUDA-core GEMM is far from the H100's tensor cores; wgmma
 * (sm_90a only) with both operands in shared memory, fed by TMA, gets within
 * ~10% of cuBLAS without a library dependency.
 *
 * How (the per-call launcher gemm_tf32, everything on the caller's stream):
 *  1. wgmma's TF32 form reads both operands k-contiguous: B is transposed into
 *     a workspace Bt (N x ldk, ldk = K rounded up to 4), rounded to TF32 on the
 *     way; A is read as it lies, or copied into a padded workspace when TMA
 *     cannot read it (lda % 4 != 0 or A not 16-byte aligned). The workspace
 *     comes from cudaMallocAsync and goes back with cudaFreeAsync on the
 *     stream; the default memory pool's release threshold is raised to the
 *     workspace's size (never lowered) so that it is not unmapped at each
 *     synchronization.
 *  2. The GEMM kernel is persistent (one CTA per SM, tiles strided by the
 *     grid, grouped along M for L2 reuse) and warp-specialized, 384 threads:
 *     warpgroup 0 the producer (one thread issues TMA with the 128-byte
 *     swizzle through tensor maps encoded per call with cuTensorMapEncodeTiled,
 *     fetched at run time with cudaGetDriverEntryPoint: no -lcuda), warpgroups
 *     1 and 2 the consumers (wgmma m64n256k8 or m64n128k8 .f32.tf32.tf32, both
 *     operands through shared-memory descriptors); setmaxnreg moves registers
 *     from the producer to the consumers. The tile is 128x256 (4 stages)
 *     unless that leaves SMs without a tile, then 128x128 (6 stages).
 *  3. Pipeline: per stage a "full" mbarrier (the TMA's bytes) and an "empty"
 *     one (one arrival per consumer warp); out-of-bounds rows and k columns are
 *     zero-filled by TMA; the epilogue stores from the accumulators with
 *     predication. Every mbarrier wait traps after 10 s (a bug ends the job
 *     with an error instead of hanging the GPU).
 *
 * When it cannot run it returns an error (cudaErrorNotSupported, or the CUDA
 * error met) having launched nothing, and the caller runs its own kernel:
 * the device is not compute capability 9.0; the binary's device code was not
 * built for sm_90a (all device code here is under __CUDA_ARCH_FEAT_SM90_ALL,
 * else empty: a probe kernel's static shared memory, read once with
 * cudaFuncGetAttributes, says which; -arch=sm_80 or sm_90 builds compile and
 * always decline); the driver has no cuTensorMapEncodeTiled; M <= 0, N <= 0,
 * K < 0, or a leading dimension below its row's length (lda < K, ldb < N,
 * ldb < K for gemm_tf32_nt, ldc < N); a tensor map the driver refuses. K == 0 gives C = epi(0). A
 * runtime error it met and returns is cleared from cudaGetLastError when
 * none was pending before the call. */
#ifndef KS_GEMM_TF32_SM90_CUH
#define KS_GEMM_TF32_SM90_CUH

#include <cuda.h> /* CUtensorMap and its enums only: no -lcuda, the driver entry is fetched at run time */
#include <cudaTypedefs.h>
#include <cuda_runtime.h>
#include <stdint.h>

namespace ks_gemm_sm90 {

/* ---------------------------------------------------------------- device helpers (sm_90a only) */
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
__device__ __forceinline__ uint32_t smem_u32(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }

__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_expect_tx(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
__device__ __forceinline__ uint64_t global_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;\n" : "=l"(t));
  return t;
}
/* Wait for the phase of the given parity to complete. Watchdog: 10 s of %globaltimer, then trap (a
 * pipeline bug ends the job with an error instead of hanging the GPU; no correct wait comes near it). */
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
  uint32_t done = 0, n = 0;
  uint64_t t0 = 0;
  for (;;) {
    asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(done)
                 : "r"(bar), "r"(parity)
                 : "memory");
    if (done) return;
    if ((++n & 0xFFFF) == 0) {
      const uint64_t t = global_ns();
      if (t0 == 0) t0 = t;
      else if (t - t0 > 10000000000ull) {
        __trap(); /* no printf: a call here would make ptxas serialize the wgmmas (C7510) */
      }
    }
  }
}
/* 2-D tile load global -> shared through the tensor map, completing on mbarrier bar. c0: inner (k), c1: row. */
__device__ __forceinline__ void tma_load_2d(uint32_t dst, const CUtensorMap *map, uint32_t bar, int c0, int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];\n" ::"r"(
          dst),
      "l"((uint64_t)map), "r"(bar), "r"(c0), "r"(c1)
      : "memory");
}
__device__ __forceinline__ void tma_prefetch_desc(const CUtensorMap *map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"((uint64_t)map) : "memory");
}
__device__ __forceinline__ void wg_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wg_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void wg_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
/* Keep the compiler from moving accumulator reads/writes across the asynchronous wgmma. */
template <int R> __device__ __forceinline__ void wg_pin(float (&d)[R]) {
#pragma unroll
  for (int i = 0; i < R; i++) asm volatile("" : "+f"(d[i])::"memory");
}

/* Shared-memory matrix descriptor for a K-major tile in the 128-byte swizzle
 * (rows of 128 bytes, 8-row atoms of 1024 bytes, the tile 1024-aligned):
 * start >> 4 in bits 0-13, LBO (unused for this layout, 1 by convention) in
 * 16-29, SBO = 1024 >> 4 in 32-45, base offset 0 (bits 49-51), swizzle mode
 * 1 (128B) in bits 62-63. */
__device__ __forceinline__ uint64_t desc_sw128(uint32_t saddr) {
  return (uint64_t)((saddr & 0x3FFFF) >> 4) | ((uint64_t)1 << 16) | ((uint64_t)(1024 >> 4) << 32) |
         ((uint64_t)1 << 62);
}

/* D (64 x 256, fp32, in registers) += A (64 x 8, smem desc) * B (256 x 8, smem desc)^T, both k-major tf32. */
__device__ __forceinline__ void wgmma_m64n256k8(float (&d)[128], uint64_t da, uint64_t db, int scd) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 {"
               "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
               "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
               "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
               "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
               "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
               "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
               "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
               "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
               "}, %128, %129, p, 1, 1;\n}\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                 "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                 "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                 "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                 "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                 "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                 "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                 "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
                 "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                 "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
                 "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
                 "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
                 "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
                 "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
                 "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
                 "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
               : "l"(da), "l"(db), "r"(scd)
               : "memory");
}

/* D (64 x 128, fp32, in registers) += A (64 x 8, smem desc) * B (128 x 8, smem desc)^T, both k-major tf32. */
__device__ __forceinline__ void wgmma_m64n128k8(float (&d)[64], uint64_t da, uint64_t db, int scd) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 {"
               "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
               "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
               "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
               "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
               "}, %64, %65, p, 1, 1;\n}\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                 "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                 "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                 "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                 "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                 "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                 "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                 "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
               : "l"(da), "l"(db), "r"(scd)
               : "memory");
}
#endif

/* ---------------------------------------------------------------- epilogues (ks_gemm_f32.cuh's contract) */
/* C[m][n] = epi(acc, m, n, &C[m][n]); epi may read C (beta * C). */
struct epi_store {
  __device__ __forceinline__ float operator()(float acc, int, int, const float *) const { return acc; }
};
struct epi_linear { /* alpha * acc + beta * C, C not read when beta == 0 */
  float alpha, beta;
  __device__ __forceinline__ float operator()(float acc, int, int, const float *pc) const {
    return beta == 0.0f ? alpha * acc : fmaf(alpha, acc, beta * *pc);
  }
};


/* ---------------------------------------------------------------- the GEMM kernel */
template <int BN_, int WM_, int ST_> struct Cfg {
  static constexpr int BK = 32; /* floats: one 128-byte swizzle row */
  static constexpr int BN = BN_, WM = WM_, ST = ST_;
  static constexpr int BM = 2 * WM;   /* two consumer warpgroups stacked along M */
  static constexpr int MI = WM / 64;  /* m64 wgmmas per consumer per k8 */
  static constexpr int NACC = BN / 2; /* accumulators per thread per m64 block */
  static constexpr int A_BYTES = BM * BK * 4, B_BYTES = BN * BK * 4, STAGE = A_BYTES + B_BYTES;
  static constexpr int SMEM = 1024 /* alignment slack */ + ST * STAGE + 2 * ST * 8;
  static constexpr int THREADS = 384;
  static_assert(BN == 128 || BN == 256, "BN");
  static_assert(WM == 64 || WM == 128, "WM");
  static_assert(MI * NACC <= 128, "accumulators");
  static_assert(A_BYTES % 1024 == 0 && B_BYTES % 1024 == 0, "1024-byte aligned tiles");
  static_assert(SMEM <= 227 * 1024, "shared memory");
};


#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
template <int BN> struct Mma;
template <> struct Mma<256> {
  static __device__ __forceinline__ void run(float (&d)[128], uint64_t da, uint64_t db, int scd) {
    wgmma_m64n256k8(d, da, db, scd);
  }
};
template <> struct Mma<128> {
  static __device__ __forceinline__ void run(float (&d)[64], uint64_t da, uint64_t db, int scd) {
    wgmma_m64n128k8(d, da, db, scd);
  }
};

/* Tile t -> (tm, tn): groups of G tile rows, walked column by column inside a group. */
__device__ __forceinline__ void tile_coords(int t, int tilesM, int tilesN, int G, int &tm, int &tn) {
  const int per = G * tilesN, g = t / per, first = g * G, gs = min(tilesM - first, G), r = t - g * per;
  tm = first + r % gs;
  tn = r / gs;
}

#endif

template <int BN, int WM, int ST, class Epi>
__global__ void __launch_bounds__(384, 1)
    gemm_tf32_ss(const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB, float *C,
                 int M, int N, int K, long long ldc, int tilesM, int tilesN, int G, Epi epi, int vec2) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  typedef Cfg<BN, WM, ST> c;
  extern __shared__ uint8_t smem_raw[];
  const uint32_t raw = smem_u32(smem_raw);
  const uint32_t base = (raw + 1023u) & ~1023u; /* swizzled tiles must be 1024-aligned */
  const uint32_t fullBar = base + ST * c::STAGE, emptyBar = fullBar + ST * 8;
  const int wg = threadIdx.x / 128;
  const int nK = (K + c::BK - 1) / c::BK, nTiles = tilesM * tilesN;

  if (threadIdx.x == 0) {
    for (int s = 0; s < ST; s++) {
      mbar_init(fullBar + s * 8, 1);
      mbar_init(emptyBar + s * 8, 8); /* lane 0 of each of the 8 consumer warps */
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  }
  __syncthreads();

  if (wg == 0) {
    /* ---- producer ---- */
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
    if (threadIdx.x == 0) {
      tma_prefetch_desc(&tmA);
      tma_prefetch_desc(&tmB);
      int s = 0;
      uint32_t ph = 0;
      for (int t = blockIdx.x; t < nTiles; t += gridDim.x) {
        int tm, tn;
        tile_coords(t, tilesM, tilesN, G, tm, tn);
        for (int kb = 0; kb < nK; kb++) {
          mbar_wait(emptyBar + s * 8, ph ^ 1); /* a fresh barrier counts as released */
          const uint32_t fb = fullBar + s * 8, sa = base + s * c::STAGE;
          mbar_expect_tx(fb, c::STAGE); /* out-of-bounds zero fill counts as bytes too */
          tma_load_2d(sa, &tmA, fb, kb * c::BK, tm * c::BM);
          tma_load_2d(sa + c::A_BYTES, &tmB, fb, kb * c::BK, tn * BN);
          if (++s == ST) s = 0, ph ^= 1;
        }
      }
    }
  } else {
    /* ---- consumers ---- */
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
    const int cw = wg - 1, tid = threadIdx.x % 128, warp = tid / 32, lane = tid % 32;
    float acc[c::MI][c::NACC];
#pragma unroll
    for (int i = 0; i < c::MI; i++)
#pragma unroll
      for (int j = 0; j < c::NACC; j++) acc[i][j] = 0.f;
    int s = 0;
    uint32_t ph = 0;
    for (int t = blockIdx.x; t < nTiles; t += gridDim.x) {
      int tm, tn;
      tile_coords(t, tilesM, tilesN, G, tm, tn);
      int prev = -1;
      for (int kb = 0; kb < nK; kb++) {
        mbar_wait(fullBar + s * 8, ph);
        const uint32_t sa = base + s * c::STAGE + cw * WM * 128, sb = base + s * c::STAGE + c::A_BYTES;
#pragma unroll
        for (int i = 0; i < c::MI; i++) wg_pin(acc[i]);
        wg_fence();
#pragma unroll
        for (int k8 = 0; k8 < c::BK / 8; k8++) {
          const uint64_t db = desc_sw128(sb + k8 * 32);
#pragma unroll
          for (int i = 0; i < c::MI; i++)
            Mma<BN>::run(acc[i], desc_sw128(sa + i * 64 * 128 + k8 * 32), db, (kb | k8) != 0);
        }
        wg_commit();
#pragma unroll
        for (int i = 0; i < c::MI; i++) wg_pin(acc[i]);
        wg_wait<1>(); /* the previous k-block's wgmmas are done: its stage can be refilled */
#pragma unroll
        for (int i = 0; i < c::MI; i++) wg_pin(acc[i]);
        if (prev >= 0 && lane == 0) mbar_arrive(emptyBar + prev * 8);
        prev = s;
        if (++s == ST) s = 0, ph ^= 1;
      }
      wg_wait<0>();
#pragma unroll
      for (int i = 0; i < c::MI; i++) wg_pin(acc[i]);
      if (prev >= 0 && lane == 0) mbar_arrive(emptyBar + prev * 8);

      /* Epilogue. m64nNk8 accumulator layout: element j of a thread (warp w,
       * lane l) is row w*16 + l/4 + 8*((j/2)%2), column (j/4)*8 + (l%4)*2 + j%2. */
#pragma unroll
      for (int i = 0; i < c::MI; i++) {
        const int r0 = tm * c::BM + cw * WM + i * 64 + warp * 16 + lane / 4;
#pragma unroll
        for (int j = 0; j < c::NACC; j += 2) {
          const int r = r0 + 8 * ((j / 2) % 2), col = tn * BN + (j / 4) * 8 + (lane % 4) * 2;
          if (r < M) {
            float *p = C + (long long)r * ldc + col;
            if (vec2 && col + 1 < N)
              *reinterpret_cast<float2 *>(p) = make_float2(epi(acc[i][j], r, col, p), epi(acc[i][j + 1], r, col + 1, p + 1));
            else {
              if (col < N) p[0] = epi(acc[i][j], r, col, p);
              if (col + 1 < N) p[1] = epi(acc[i][j + 1], r, col + 1, p + 1);
            }
          }
        }
      }
    }
  }
#else
  (void)tmA, (void)tmB, (void)C, (void)M, (void)N, (void)K, (void)ldc, (void)tilesM, (void)tilesN, (void)G, (void)epi,
      (void)vec2;
#endif
}

/* ---------------------------------------------------------------- B -> Bt (k-contiguous), TF32-rounded */
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
__device__ __forceinline__ float to_tf32(float x) {
  uint32_t u;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(u) : "f"(x));
  return __uint_as_float(u);
}
#endif
/* Bt[n][k] = tf32(B[k][n]): T x T tiles through shared memory (padded: no
 * bank conflicts), 32 x 8 threads, each warp access 128 contiguous bytes, T*T/256
 * independent loads per thread in flight. */
template <int T>
__global__ void __launch_bounds__(256) transpose_tf32(const float *__restrict__ B, long long ldb, float *__restrict__ Bt,
                                                      long long ldk, int K, int N) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  __shared__ float t[T][T + 1];
  const int n0 = blockIdx.x * T, k0 = blockIdx.y * T, tx = threadIdx.x % 32, ty = threadIdx.x / 32;
#pragma unroll
  for (int j = 0; j < T; j += 8)
#pragma unroll
    for (int i = 0; i < T; i += 32) {
      const int k = k0 + ty + j, n = n0 + tx + i;
      if (k < K && n < N) t[ty + j][tx + i] = B[(long long)k * ldb + n];
    }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < T; j += 8)
#pragma unroll
    for (int i = 0; i < T; i += 32) {
      const int n = n0 + ty + j, k = k0 + tx + i;
      if (n < N && k < K) Bt[(long long)n * ldk + k] = to_tf32(t[tx + i][ty + j]);
    }
#else
  (void)B, (void)ldb, (void)Bt, (void)ldk, (void)K, (void)N;
#endif
}
/* B given N x K -> Bt (N x ldk), rounded to TF32 like transpose_tf32's output
 * (A is read as it lies; keeping B's rounding keeps the numerics of the NN
 * path, within the tolerance the rule is applied under). */
static __global__ void round_rows(const float *__restrict__ B, long long ldb, float *__restrict__ Bt, long long ldk,
                                  int N, int K) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (long long)N * K) return;
  const long long n = i / K, k = i % K;
  Bt[n * ldk + k] = to_tf32(B[n * ldb + k]);
#else
  (void)B, (void)ldb, (void)Bt, (void)ldk, (void)N, (void)K;
#endif
}
/* A with a row stride TMA cannot take (not a multiple of 16 bytes) -> Ap (M x ldk). */
static __global__ void pad_rows(const float *__restrict__ A, long long lda, float *__restrict__ Ap, long long ldk,
                                int M, int K) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (long long)M * K) return;
  const long long r = i / K, k = i % K;
  Ap[r * ldk + k] = A[r * lda + k];
#else
  (void)A, (void)lda, (void)Ap, (void)ldk, (void)M, (void)K;
#endif
}

/* ---------------------------------------------------------------- was the device code built for sm_90a? */
/* Never launched: its static shared memory exists only in an sm_90a build of
 * the device code, and cudaFuncGetAttributes reports the size in the image the
 * runtime loads for the current device (an sm_90 or JIT-compiled PTX image has
 * none). */
static __global__ void sm90a_probe(int *p) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  __shared__ volatile int s[64];
  s[threadIdx.x % 64] = (int)threadIdx.x;
  __syncthreads();
  p[threadIdx.x] = s[(threadIdx.x + 1) % 64];
#else
  (void)p;
#endif
}
static inline bool sm90a_built() {
  static const bool b = [] {
    cudaFuncAttributes a;
    return cudaFuncGetAttributes(&a, sm90a_probe) == cudaSuccess && a.sharedSizeBytes >= 64 * sizeof(int);
  }();
  return b;
}

/* ---------------------------------------------------------------- host: tensor maps */
/* cuTensorMapEncodeTiled from the driver, fetched once at run time (NULL when missing). */
static inline PFN_cuTensorMapEncodeTiled_v12000 encode_fn() {
  static const PFN_cuTensorMapEncodeTiled_v12000 f = [] {
    cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
    void *fn = nullptr;
#if CUDART_VERSION >= 12050
    const cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q);
#else
    const cudaError_t e = cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &fn, cudaEnableDefault, &q);
#endif
    return e == cudaSuccess && q == cudaDriverEntryPointSuccess ? (PFN_cuTensorMapEncodeTiled_v12000)fn : nullptr;
  }();
  return f;
}
/* rows x cols (cols contiguous, row stride ld floats), box 32 cols x boxRows, 128-byte swizzle, zero fill.
 * false when the driver refuses it. */
static inline bool make_map(CUtensorMap *m, const float *p, long long rows, long long cols, long long ld, int boxRows) {
  const PFN_cuTensorMapEncodeTiled_v12000 encode = encode_fn();
  if (!encode) return false;
  const cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows};
  const cuuint64_t strides[1] = {(cuuint64_t)ld * 4};
  const cuuint32_t box[2] = {32, (cuuint32_t)boxRows};
  const cuuint32_t es[2] = {1, 1};
  return encode(m, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, (void *)p, dims, strides, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

/* ---------------------------------------------------------------- host: the launcher */
template <int BN, int WM, int ST, class Epi>
static cudaError_t launch_ss(const CUtensorMap &tA, const CUtensorMap &tB, float *C, int M, int N, int K,
                             long long ldc, Epi epi, int vec2, int nSms, cudaStream_t st) {
  typedef Cfg<BN, WM, ST> c;
  const int tilesM = (M + c::BM - 1) / c::BM, tilesN = (N + BN - 1) / BN;
  const int grid = tilesM * tilesN < nSms ? tilesM * tilesN : nSms;
  gemm_tf32_ss<BN, WM, ST, Epi><<<grid, c::THREADS, c::SMEM, st>>>(tA, tB, C, M, N, K, ldc, tilesM, tilesN, 8, epi,
                                                                    vec2);
  return cudaGetLastError();
}
/* Opt both configurations of Epi in to their dynamic shared memory (per device: every call). */
template <class Epi> static cudaError_t set_smem() {
  cudaError_t e = cudaFuncSetAttribute(gemm_tf32_ss<256, 64, 4, Epi>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       Cfg<256, 64, 4>::SMEM);
  if (e == cudaSuccess)
    e = cudaFuncSetAttribute(gemm_tf32_ss<128, 64, 6, Epi>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             Cfg<128, 64, 6>::SMEM);
  return e;
}
/* Can this device and this binary run it? cudaSuccess and the SM count, or why not. */
static inline cudaError_t device_ok(int *pDev, int *pnSms) {
  int major = 0, minor = 0;
  cudaError_t e = cudaGetDevice(pDev);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, *pDev);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, *pDev);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(pnSms, cudaDevAttrMultiProcessorCount, *pDev);
  if (e != cudaSuccess) return e;
  if (major != 9 || minor != 0 || !sm90a_built() || !encode_fn()) return cudaErrorNotSupported;
  return cudaSuccess;
}
/* Raise the default pool's release threshold to nBytes (never lower it). */
static inline cudaError_t keep_pool(int dev, size_t nBytes) {
  cudaMemPool_t pool;
  cudaError_t e = cudaDeviceGetDefaultMemPool(&pool, dev);
  if (e != cudaSuccess) return e;
  uint64_t thr = 0;
  e = cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &thr);
  if (e == cudaSuccess && thr < nBytes) {
    thr = nBytes;
    e = cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &thr);
  }
  return e;
}

/* bNK: B given N x K (B[n*ldb + k]), else K x N (B[k*ldb + n]). */
template <class Epi>
static cudaError_t gemm_tf32_run(int M, int N, int K, const float *A, long long lda, const float *B, long long ldb,
                                 bool bNK, float *C, long long ldc, Epi epi, cudaStream_t st) {
  if (M <= 0 || N <= 0 || K < 0 || lda < K || ldb < (bNK ? K : N) || ldc < N) return cudaErrorNotSupported;
  int dev = 0, nSms = 0;
  cudaError_t e = device_ok(&dev, &nSms);
  if (e == cudaSuccess) e = set_smem<Epi>();
  if (e != cudaSuccess) return e;
  const int Kc = K > 0 ? K : 1; /* K = 0: maps of one column, no k-block loaded, C = epi(0) */
  const long long ldk = (Kc + 3) / 4 * 4;
  const bool padA = (lda % 4) != 0 || ((uintptr_t)A % 16) != 0;
  const size_t nBt = (size_t)N * ldk, nAp = padA ? (size_t)M * ldk : 0;
  const size_t nBytes = (nBt + nAp) * sizeof(float);
  if ((e = keep_pool(dev, nBytes)) != cudaSuccess) return e;
  float *ws = nullptr;
  if ((e = cudaMallocAsync((void **)&ws, nBytes, st)) != cudaSuccess) return e;
  float *Bt = ws, *Ap = padA ? ws + nBt : nullptr; /* nBt * 4 bytes is a multiple of 16: Ap stays aligned */
  const bool small = (long long)((M + 127) / 128) * ((N + 255) / 256) < nSms;
  CUtensorMap tA, tB;
  if (!make_map(&tB, Bt, N, Kc, ldk, small ? 128 : 256) || !make_map(&tA, padA ? Ap : A, M, Kc, padA ? ldk : lda, 128)) {
    cudaFreeAsync(ws, st);
    return cudaErrorNotSupported; /* nothing launched */
  }
  if (K > 0) {
    if (bNK) {
      const long long n = (long long)N * K;
      round_rows<<<(unsigned)((n + 255) / 256), 256, 0, st>>>(B, ldb, Bt, ldk, N, K);
    } else
      transpose_tf32<64><<<dim3((N + 63) / 64, (K + 63) / 64), 256, 0, st>>>(B, ldb, Bt, ldk, K, N);
    if (padA) {
      const long long n = (long long)M * K;
      pad_rows<<<(unsigned)((n + 255) / 256), 256, 0, st>>>(A, lda, Ap, ldk, M, K);
    }
  }
  const int vec2 = (ldc % 2) == 0 && ((uintptr_t)C % 8) == 0;
  e = small ? launch_ss<128, 64, 6>(tA, tB, C, M, N, K, ldc, epi, vec2, nSms, st)
            : launch_ss<256, 64, 4>(tA, tB, C, M, N, K, ldc, epi, vec2, nSms, st);
  const cudaError_t e2 = cudaFreeAsync(ws, st);
  return e != cudaSuccess ? e : e2;
}

/* The entry point: C = epi(A * B) in TF32 on the stream; cudaSuccess, or an
 * error with nothing launched when it cannot run here (see the top of this
 * file), the caller's own kernel then being the fallback. */
template <class Epi>
static cudaError_t gemm_tf32(int M, int N, int K, const float *A, long long lda, const float *B, long long ldb,
                             float *C, long long ldc, Epi epi, cudaStream_t stream = 0) {
  const cudaError_t prior = cudaPeekAtLastError();
  const cudaError_t e = gemm_tf32_run(M, N, K, A, lda, B, ldb, false, C, ldc, epi, stream);
  if (e != cudaSuccess && prior == cudaSuccess) (void)cudaGetLastError(); /* the caller's fallback sees a clean slate */
  return e;
}
/* The same with B given N x K (B[n*ldb + k], ldb >= K): no transpose. */
template <class Epi>
static cudaError_t gemm_tf32_nt(int M, int N, int K, const float *A, long long lda, const float *B, long long ldb,
                                float *C, long long ldc, Epi epi, cudaStream_t stream = 0) {
  const cudaError_t prior = cudaPeekAtLastError();
  const cudaError_t e = gemm_tf32_run(M, N, K, A, lda, B, ldb, true, C, ldc, epi, stream);
  if (e != cudaSuccess && prior == cudaSuccess) (void)cudaGetLastError();
  return e;
}
} /* namespace ks_gemm_sm90 */

#endif /* KS_GEMM_TF32_SM90_CUH */
