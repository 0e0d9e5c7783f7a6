/* wgmma_tf32.cu — standalone experiment: a Hopper (sm_90a) TF32 GEMM with both
 * wgmma operands in shared memory (SS), for KernelSkill's gemm-tiled TF32 path.
 *
 *   C (M x N) = A (M x K) * B (K x N), all row-major fp32 (NN), result fp32.
 *
 * Build (here, no GPU needed):  bash bench/gemm/build-wgmma.sh build-wgmma/wgmma_tf32
 *   = nvcc -O3 -std=c++17 -arch=sm_90a -Xptxas -v bench/gemm/wgmma_tf32.cu -o OUT -lcublas
 * Run (H100):                   build-wgmma/wgmma_tf32        (exit status 0: every check passed)
 *
 * Design
 *  1. wgmma's TF32 form reads both operands k-contiguous ("K-major"). A is
 *     (its rows are k-contiguous); row-major B is n-contiguous, so B is first
 *     transposed into a workspace Bt (N x ldk, ldk = K rounded up to 4 so
 *     the TMA row stride is a multiple of 16 bytes), rounding to TF32
 *     (cvt.rna) on the way. When A's row stride is not a multiple of 16
 *     bytes (K % 4 != 0), A is copied into a padded workspace too. Both
 *     passes are inside the timed region.
 *  2. The GEMM kernel is persistent (one CTA per SM, tiles strided by the
 *     grid, grouped along M for L2 reuse) and warp-specialized, 384 threads:
 *     warpgroup 0 is the producer (one thread issues TMA,
 *     cp.async.bulk.tensor.2d with the 128-byte swizzle, boxes 32 floats =
 *     128 bytes along k), warpgroups 1 and 2 are consumers, each WM (64 or
 *     128) rows x BN (256 or 128) columns of the BM = 2*WM x BN tile, with
 *     wgmma.mma_async m64nBNk8 .f32.tf32.tf32, both operands through
 *     descriptors (swizzle mode 1 = 128B, SBO 1024 bytes = 8 rows of 128
 *     bytes, k advanced by adding k*4 bytes to the start address).
 *     setmaxnreg moves registers from the producer (40) to the consumers (232).
 *  3. Pipeline: STAGES stages, each with a "full" mbarrier (the producer's
 *     arrive.expect_tx, completed by the TMA's bytes) and an "empty" one (one
 *     arrival per consumer warp, 8 in all, once wgmma.wait_group says the
 *     wgmmas that read the stage are done). The consumer keeps one k-block of
 *     wgmmas in flight (wait_group 1) and releases the previous stage.
 *  4. Out of bounds: TMA zero-fills rows >= M (A), >= N (Bt) and columns >= K
 *     of both, so a partial tile or a K tail adds zeros; the epilogue stores
 *     straight from the accumulators with predication (float2 when ldc is even).
 *  5. Watchdog: every mbarrier wait traps after 10 s of %globaltimer (checked
 *     every 2^16 tries) so a pipeline bug ends the job instead of hanging it.
 *  6. The kernel, the transpose and pad kernels and the per-call launcher
 *     (ks_gemm_sm90::gemm_tf32: epilogue functor, any lda/ldb/ldc, workspace
 *     by cudaMallocAsync) live in lib/rewrite/templates/ks_gemm_tf32_sm90.cuh,
 *     the header the gemm-tf32-sm90 rule ships, included here: one copy.
 *  Design 2 (gemm_tf32_ss_ld, the ld_* lines): no transpose pass and no TMA,
 *  the producer warpgroup writes B k-major itself; correct, not yet fast.
 *
 * H100 (bench/gemm/wgmma-h100-run3.txt): 4096^3 0.39 ms with the transpose
 * (0.91x cuBLAS TF32's 0.356 ms; GEMM alone 0.345 ms, 398 TFLOP/s, 1.03x),
 * 2048^3 0.95x, 1024^3 1.28x (128x128 tiles), 8192x4096x1024 0.97x.
 *
 * The checks: a simple FP32 reference kernel (CUDA cores); max |x - ref| /
 * (1 + |ref|) of ours and of cuBLAS TF32 (cublasSgemm with
 * CUBLAS_TF32_TENSOR_OP_MATH); ours passes when its error is below
 * max(2e-2, 1.5 x cuBLAS TF32's). Timing: CUDA events, 3 warm-ups, median of
 * REPS reps, cuBLAS TF32 on the same inputs; ratio = cuBLAS ms / ours ms. */
#include <cuda.h> /* CUtensorMap and the enums only: no -lcuda, the driver entry is fetched at run time */
#include <cudaTypedefs.h>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <algorithm>
#include <vector>

#include "../../lib/rewrite/templates/ks_gemm_tf32_sm90.cuh"
using namespace ks_gemm_sm90; /* the shared kernel, helpers and launcher */

#define CK(x)                                                                                      \
  do {                                                                                             \
    cudaError_t e_ = (x);                                                                          \
    if (e_ != cudaSuccess) {                                                                       \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));          \
      exit(2);                                                                                     \
    }                                                                                              \
  } while (0)
#define CKB(x)                                                                                     \
  do {                                                                                             \
    cublasStatus_t s_ = (x);                                                                       \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                             \
      fprintf(stderr, "%s:%d: %s: cublas status %d\n", __FILE__, __LINE__, #x, (int)s_);           \
      exit(2);                                                                                     \
    }                                                                                              \
  } while (0)

/* ---------------------------------------------------------------- design 2: no transpose pass, no TMA
 * The same consumers; the producer warpgroup (all 128 threads) fills each
 * stage itself: A with 16-byte cp.async into the 128B-swizzled layout
 * (completion tracked on the stage's full barrier by
 * cp.async.mbarrier.arrive.noinc), B with plain 16-byte global loads
 * (issued before the wait for the free stage, so their latency hides behind
 * it), rounded to TF32 and stored transposed (k-major, swizzled) with 4-byte
 * st.shared: a warp stores 16 k x 8 n, 32 distinct banks. Full barrier:
 * 256 arrivals (128 cp.async + 128 after the stores and a proxy fence);
 * consumers fence.proxy.async after their wait (the cp.async data). Needs
 * no host-side tensor map and no workspace: the shape that fits
 * ks_gemm_f32.cuh's per-block contract. Correct on every shape, but slow on
 * the H100 (bench/gemm/wgmma-h100-run3.txt: ~100 TFLOP/s at 4096, against
 * ~400 for design 1's GEMM): one stage of B loads in flight per producer
 * thread makes the producer latency-bound. Next: B by cp.async into an
 * n-major staging buffer (many stages in flight, no registers), transposed
 * smem -> smem by the producer warps; or two stages of registers. */
__device__ __forceinline__ void cp_async16(uint32_t dst, const float *src, int nSrc) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(nSrc) : "memory");
}
__device__ __forceinline__ void cp_async4(uint32_t dst, const float *src, int nSrc) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src), "r"(nSrc) : "memory");
}
__device__ __forceinline__ void st_shared_f32(uint32_t a, float v) {
  asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(a), "r"(__float_as_uint(v)) : "memory");
}
/* A 16-byte read-only load the compiler keeps in place (asm volatile: issued before the
 * wait for the free stage that follows it). */
__device__ __forceinline__ float4 ldg_v4_early(const float *p) {
  float4 v;
  asm volatile("ld.global.nc.v4.f32 {%0, %1, %2, %3}, [%4];\n" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
  return v;
}
__device__ __forceinline__ float tf32_rna(float x) {
  uint32_t u;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(u) : "f"(x));
  return __uint_as_float(u);
}

template <int BN, int WM, int ST, class Epi>
__global__ void __launch_bounds__(384, 1)
    gemm_tf32_ss_ld(const float *__restrict__ A, long long lda, const float *__restrict__ B, long long ldb, float *C,
                    long long ldc, int M, int N, int K, int tilesM, int tilesN, int G, Epi epi, int flags) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  typedef Cfg<BN, WM, ST> c;
  extern __shared__ uint8_t smem_raw[];
  const uint32_t raw = smem_u32(smem_raw);
  const uint32_t base = (raw + 1023u) & ~1023u;
  const uint32_t fullBar = base + ST * c::STAGE, emptyBar = fullBar + ST * 8;
  const int wg = threadIdx.x / 128;
  const int nK = (K + c::BK - 1) / c::BK, nTiles = tilesM * tilesN;
  const bool vecA = flags & 1, vecB = flags & 2, vec2 = flags & 4;

  if (threadIdx.x == 0) {
    for (int s = 0; s < ST; s++) {
      mbar_init(fullBar + s * 8, 256);
      mbar_init(emptyBar + s * 8, 8);
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  }
  __syncthreads();

  if (wg == 0) {
    /* registers: ptxas allocates each branch within its setmaxnreg (without it the consumers
     * spill at the 168 of __launch_bounds__(384, 1)); the producer's 16 float4 need ~120 (at 96 it spilled,
     * consumers fit in 192): 128*120 + 256*192 = 64512 */
    asm volatile("setmaxnreg.dec.sync.aligned.u32 120;\n");
    const int pt = threadIdx.x, lane = pt % 32, w = pt / 32;
    constexpr int NB = BN / 16; /* float4 of B per thread per stage */
    constexpr int NA = c::BM / 16; /* 16-byte chunks of A per thread per stage */
    /* B: warp w, step j covers k rows (w%2)*16 + 0..15 and n columns (w/2 + 2j)*8 + 0..7; a lane
     * loads 4 n of one k row (lane%16 the row, lane/16 the half) and stores them as 4 k-major
     * elements: byte n*128 + ((k/4) ^ (n%8))*16 + (k%4)*4 of the stage's B tile (128B swizzle) */
    const int kq = (w % 2) * 16 + lane % 16, nq = (w / 2) * 8 + (lane / 16) * 4;
    uint32_t dstB[4];
#pragma unroll
    for (int q = 0; q < 4; q++) dstB[q] = (nq + q) * 128 + (((kq / 4) ^ ((nq + q) % 8)) * 16) + (kq % 4) * 4;
    /* A: 16-byte chunk ch = pt%8 of rows ma + 16 j, at row*128 + (ch ^ (row%8))*16 */
    const int ma = pt / 8, ch = pt % 8;

    const uint32_t dstA = ma * 128 + ((ch ^ (ma % 8)) * 16);
    int s = 0;
    uint32_t ph = 0;
    for (int t = blockIdx.x; t < nTiles; t += gridDim.x) {
      int tm, tn;
      tile_coords(t, tilesM, tilesN, G, tm, tn);
      const int m0 = tm * c::BM, n0 = tn * BN;
      for (int kb = 0; kb < nK; kb++) {
        const int k0 = kb * c::BK;
        /* B: this thread's k row is fixed (kq), its n runs nq + 16 j */
        const int k = k0 + kq;
        const float *srcB = B + (long long)k * ldb + n0 + nq;
        float4 v[NB];
        /* Interior rows: 16 unconditional loads, issued back to back. Per-load predicates with
         * a zero default made ptxas join the paths with moves that wait for each load, one L2
         * latency per load (the first H100 run of this kernel: 13-30 TFLOP/s). */
        if (vecB && k < K && n0 + nq + 16 * (NB - 1) + 3 < N) {
#pragma unroll
          for (int j = 0; j < NB; j++) v[j] = ldg_v4_early(srcB + 16 * j);
        } else {
#pragma unroll
          for (int j = 0; j < NB; j++) {
            const int n = n0 + nq + 16 * j;
            v[j] = make_float4(0.f, 0.f, 0.f, 0.f);
            if (k < K) {
              const float *src = srcB + 16 * j;
              if (n < N) v[j].x = __ldg(src);
              if (n + 1 < N) v[j].y = __ldg(src + 1);
              if (n + 2 < N) v[j].z = __ldg(src + 2);
              if (n + 3 < N) v[j].w = __ldg(src + 3);
            }
          }
        }
        mbar_wait(emptyBar + s * 8, ph ^ 1);
        const uint32_t sa = base + s * c::STAGE, sb = sa + c::A_BYTES, fb = fullBar + s * 8;
        /* A: this thread's 16-byte chunk ch of rows ma + 16 j */
        const int gk = k0 + ch * 4;
        const float *srcA = A + (long long)(m0 + ma) * lda + gk;
#pragma unroll
        for (int j = 0; j < NA; j++) {
          const int gm = m0 + ma + 16 * j;
          const uint32_t dst = sa + dstA + j * 16 * 128;
          const float *src = srcA + (long long)(16 * j) * lda;
          if (gm >= M || gk >= K) cp_async16(dst, A, 0);
          else if (vecA && gk + 3 < K) cp_async16(dst, src, 16);
          else {
#pragma unroll
            for (int q = 0; q < 4; q++) cp_async4(dst + q * 4, gk + q < K ? src + q : A, gk + q < K ? 4 : 0);
          }
        }
        asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(fb) : "memory");
#pragma unroll
        for (int j = 0; j < NB; j++) {
          const float e[4] = {v[j].x, v[j].y, v[j].z, v[j].w};
#pragma unroll
          for (int q = 0; q < 4; q++) st_shared_f32(sb + dstB[q] + j * 16 * 128, tf32_rna(e[q]));
        }
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
        mbar_arrive(fb);
        if (++s == ST) s = 0, ph ^= 1;
      }
    }

  } else {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 192;\n");
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
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); /* cp.async's writes -> wgmma's reads */
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
        wg_wait<1>();
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
  (void)A, (void)lda, (void)B, (void)ldb, (void)C, (void)ldc, (void)M, (void)N, (void)K, (void)tilesM, (void)tilesN,
      (void)G, (void)epi, (void)flags;
#endif
}


/* ---------------------------------------------------------------- reference and checks */
__global__ void fill_uniform(float *p, long long n, uint32_t seed) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uint32_t x = (uint32_t)i * 2654435761u ^ (uint32_t)(i >> 32) * 40503u ^ seed * 2246822519u;
  x ^= x >> 16, x *= 0x7feb352du, x ^= x >> 15, x *= 0x846ca68bu, x ^= x >> 16;
  p[i] = (float)(x >> 8) * (2.0f / 16777216.0f) - 1.0f; /* uniform [-1, 1) */
}
/* FP32 on CUDA cores, 16 x 16 shared tiles: C = alpha * A * B + beta * C (C not read when beta == 0). */
__global__ void ref_gemm_ld(const float *A, long long lda, const float *B, long long ldb, float *C, long long ldc,
                            int M, int N, int K, float alpha, float beta) {
  __shared__ float as[16][17], bs[16][17];
  const int tx = threadIdx.x, ty = threadIdx.y, m = blockIdx.y * 16 + ty, n = blockIdx.x * 16 + tx;
  float acc = 0.f;
  for (int k0 = 0; k0 < K; k0 += 16) {
    as[ty][tx] = m < M && k0 + tx < K ? A[(long long)m * lda + k0 + tx] : 0.f;
    bs[ty][tx] = k0 + ty < K && n < N ? B[(long long)(k0 + ty) * ldb + n] : 0.f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < 16; k++) acc = fmaf(as[ty][k], bs[k][tx], acc);
    __syncthreads();
  }
  if (m < M && n < N) {
    float *pc = C + (long long)m * ldc + n;
    *pc = beta == 0.f ? alpha * acc : fmaf(alpha, acc, beta * *pc);
  }
}
__device__ unsigned int g_errbits;
__global__ void max_rel_err(const float *x, const float *ref, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  float e = 0.f;
  if (i < n) {
    e = fabsf(x[i] - ref[i]) / (1.0f + fabsf(ref[i]));
    if (!(e <= 1e30f)) e = 1e30f; /* NaN / Inf */
  }
  for (int o = 16; o; o /= 2) e = fmaxf(e, __shfl_xor_sync(0xffffffffu, e, o));
  if (threadIdx.x % 32 == 0 && e > 0.f) atomicMax(&g_errbits, __float_as_uint(e));
}
static float rel_err(const float *x, const float *ref, long long n) {
  unsigned int z = 0;
  CK(cudaMemcpyToSymbol(g_errbits, &z, sizeof z));
  max_rel_err<<<(unsigned)((n + 255) / 256), 256>>>(x, ref, n);
  CK(cudaGetLastError());
  CK(cudaMemcpyFromSymbol(&z, g_errbits, sizeof z));
  float e;
  memcpy(&e, &z, sizeof e);
  return e;
}

/* ---------------------------------------------------------------- host: plans and launches */
static void get_encode() {
  if (!encode_fn()) {
    fprintf(stderr, "cuTensorMapEncodeTiled not found\n");
    exit(2);
  }
}
/* The header's make_map, failing loudly. */
static CUtensorMap map_or_die(const float *p, long long rows, long long cols, long long ld, int boxRows) {
  CUtensorMap m;
  if (!make_map(&m, p, rows, cols, ld, boxRows)) {
    fprintf(stderr, "cuTensorMapEncodeTiled failed: rows %lld cols %lld ld %lld box %d\n", rows, cols, ld, boxRows);
    exit(2);
  }
  return m;
}

static int g_sms = 132;

/* One shape, one kernel configuration: workspaces and tensor maps made once. */
template <int BN, int WM, int ST> struct Gemm {
  typedef Cfg<BN, WM, ST> c;
  int M, N, K;
  long long ldk;
  const float *A, *B;
  float *C, *Bt = nullptr, *Ap = nullptr;
  CUtensorMap tmA, tmB;
  int tilesM, tilesN, grid, G = 8;
  Gemm(const float *A_, const float *B_, float *C_, int M_, int N_, int K_) : M(M_), N(N_), K(K_), A(A_), B(B_), C(C_) {
    ldk = (K + 3) / 4 * 4;
    CK(cudaMalloc(&Bt, (size_t)N * ldk * 4));
    const bool padA = (K % 4) != 0 || ((uintptr_t)A % 16) != 0;
    if (padA) CK(cudaMalloc(&Ap, (size_t)M * ldk * 4));
    tmA = map_or_die(padA ? Ap : A, M, K, padA ? ldk : K, c::BM); /* lda = K here */
    tmB = map_or_die(Bt, N, K, ldk, BN);
    tilesM = (M + c::BM - 1) / c::BM, tilesN = (N + BN - 1) / BN;
    grid = std::min(tilesM * tilesN, g_sms);
    CK(cudaFuncSetAttribute(gemm_tf32_ss<BN, WM, ST, epi_store>, cudaFuncAttributeMaxDynamicSharedMemorySize, c::SMEM));
  }
  ~Gemm() {
    cudaFree(Bt);
    if (Ap) cudaFree(Ap);
  }
  int tt = 64; /* transpose tile */
  void prep(cudaStream_t st) {
    if (tt == 64) transpose_tf32<64><<<dim3((N + 63) / 64, (K + 63) / 64), 256, 0, st>>>(B, N, Bt, ldk, K, N);
    else transpose_tf32<32><<<dim3((N + 31) / 32, (K + 31) / 32), 256, 0, st>>>(B, N, Bt, ldk, K, N);
    if (Ap) {
      const long long n = (long long)M * K;
      pad_rows<<<(unsigned)((n + 255) / 256), 256, 0, st>>>(A, K, Ap, ldk, M, K);
    }
  }
  void gemm(cudaStream_t st) {
    gemm_tf32_ss<BN, WM, ST><<<grid, c::THREADS, c::SMEM, st>>>(tmA, tmB, C, M, N, K, N, tilesM, tilesN, G,
                                                                  epi_store(), N % 2 == 0);
  }
  void run(cudaStream_t st) {
    prep(st);
    gemm(st);
  }
};

template <int BN, int WM, int ST> static float variant_ld(struct Ctx &x, const char *name, bool time);
template <class F> static float median_ms(F f, int reps) {
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  for (int i = 0; i < 3; i++) f();
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::vector<float> v;
  for (int i = 0; i < reps; i++) {
    CK(cudaEventRecord(e0));
    f();
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    v.push_back(ms);
  }
  CK(cudaGetLastError());
  std::sort(v.begin(), v.end());
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  return v[v.size() / 2];
}

struct Shape {
  int M, N, K;
  bool time;
};
static int g_fail = 0;
static int g_reps = 20;

struct Ctx {
  int M, N, K;
  float *A, *B, *C, *R, *Cb;
  cublasHandle_t h;
  float errCublas, msCublas;
};

template <int BN, int WM, int ST> static float variant(Ctx &x, const char *name, bool time, int tt = 64) {
  typedef Cfg<BN, WM, ST> c;
  Gemm<BN, WM, ST> g(x.A, x.B, x.C, x.M, x.N, x.K);
  g.tt = tt;
  CK(cudaMemset(x.C, 0xff, (size_t)x.M * x.N * 4)); /* NaN: an element never written fails */
  g.run(0);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  const float e = rel_err(x.C, x.R, (long long)x.M * x.N);
  const float tol = std::max(2e-2f, 1.5f * x.errCublas);
  const bool ok = e <= tol;
  if (!ok) g_fail++;
  printf("  %-26s %3dx%3dx32 st%d smem %6d B  max-rel-err %.3e (tol %.3e) %s\n", name, c::BM, BN, ST, c::SMEM, e, tol,
         ok ? "ok" : "FAIL");
  float tAll = 0.f;
  if (time) {
    const double fl = 2.0 * x.M * x.N * x.K;
    tAll = median_ms([&] { g.run(0); }, g_reps);
    const float tT = median_ms([&] { g.prep(0); }, g_reps);
    const float tG = median_ms([&] { g.gemm(0); }, g_reps);
    printf("  %-26s total %.4f ms %7.2f TFLOP/s ratio %.3f (cuBLAS ms / ours) | transpose%s %.4f ms | gemm %.4f ms "
           "%7.2f TFLOP/s ratio %.3f\n",
           name, tAll, fl / tAll / 1e9, x.msCublas / tAll, g.Ap ? "+pad" : "", tT, tG, fl / tG / 1e9,
           x.msCublas / tG);
  }
  fflush(stdout);
  return tAll;
}

template <int BN, int WM, int ST> static float variant_ld(Ctx &x, const char *name, bool time) {
  typedef Cfg<BN, WM, ST> c;
  auto fn = gemm_tf32_ss_ld<BN, WM, ST, epi_store>;
  CK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, c::SMEM));
  const int tilesM = (x.M + c::BM - 1) / c::BM, tilesN = (x.N + BN - 1) / BN, grid = std::min(tilesM * tilesN, g_sms);
  const int flags = (x.K % 4 == 0 ? 1 : 0) | (x.N % 4 == 0 ? 2 : 0) | (x.N % 2 == 0 ? 4 : 0); /* cudaMalloc'd: aligned */
  auto go = [&] {
    fn<<<grid, c::THREADS, c::SMEM>>>(x.A, x.K, x.B, x.N, x.C, x.N, x.M, x.N, x.K, tilesM, tilesN, 8, epi_store(), flags);
  };
  CK(cudaMemset(x.C, 0xff, (size_t)x.M * x.N * 4));
  go();
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  const float e = rel_err(x.C, x.R, (long long)x.M * x.N), tol = std::max(2e-2f, 1.5f * x.errCublas);
  const bool ok = e <= tol;
  if (!ok) g_fail++;
  printf("  %-26s %3dx%3dx32 st%d smem %6d B  max-rel-err %.3e (tol %.3e) %s\n", name, c::BM, BN, ST, c::SMEM, e, tol,
         ok ? "ok" : "FAIL");
  float ms = 0.f;
  if (time) {
    const double fl = 2.0 * x.M * x.N * x.K;
    ms = median_ms(go, g_reps);
    printf("  %-26s total %.4f ms %7.2f TFLOP/s ratio %.3f (cuBLAS ms / ours) (no transpose pass)\n", name, ms,
           fl / ms / 1e9, x.msCublas / ms);
  }
  fflush(stdout);
  return ms;
}

int main(int argc, char **argv) {
  bool quick = argc > 1 && !strcmp(argv[1], "--quick");
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  g_sms = prop.multiProcessorCount;
  printf("device: %s, sm_%d%d, %d SMs\n", prop.name, prop.major, prop.minor, g_sms);
  if (prop.major != 9) {
    fprintf(stderr, "needs sm_90 (Hopper)\n");
    return 2;
  }
  get_encode();
  cublasHandle_t h;
  CKB(cublasCreate(&h));
  CKB(cublasSetMathMode(h, CUBLAS_TF32_TENSOR_OP_MATH));

  std::vector<Shape> shapes = {{4096, 4096, 4096, true}, {2048, 2048, 2048, true}, {1024, 1024, 1024, true},
                               {1000, 1100, 900, false}, {4097, 4095, 1023, false}, {8192, 4096, 1024, true},
                               {130, 260, 33, false},    {64, 96, 7, false},       {1, 300, 1000, false}};
  if (quick) shapes = {{1024, 1024, 1024, true}, {1000, 1100, 900, false}, {130, 260, 33, false}};
  for (const Shape &sh : shapes) {
    Ctx x;
    x.M = sh.M, x.N = sh.N, x.K = sh.K, x.h = h;
    const long long nA = (long long)sh.M * sh.K, nB = (long long)sh.K * sh.N, nC = (long long)sh.M * sh.N;
    CK(cudaMalloc(&x.A, nA * 4));
    CK(cudaMalloc(&x.B, nB * 4));
    CK(cudaMalloc(&x.C, nC * 4));
    CK(cudaMalloc(&x.R, nC * 4));
    CK(cudaMalloc(&x.Cb, nC * 4));
    fill_uniform<<<(unsigned)((nA + 255) / 256), 256>>>(x.A, nA, 1);
    fill_uniform<<<(unsigned)((nB + 255) / 256), 256>>>(x.B, nB, 2);
    ref_gemm_ld<<<dim3((sh.N + 15) / 16, (sh.M + 15) / 16), dim3(16, 16)>>>(x.A, sh.K, x.B, sh.N, x.R, sh.N, sh.M,
                                                                            sh.N, sh.K, 1.f, 0.f);
    CK(cudaGetLastError());
    const float one = 1.f, zero = 0.f;
    auto cub = [&] {
      CKB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, sh.N, sh.M, sh.K, &one, x.B, sh.N, x.A, sh.K, &zero, x.Cb, sh.N));
    };
    cub();
    CK(cudaDeviceSynchronize());
    x.errCublas = rel_err(x.Cb, x.R, nC);
    x.msCublas = sh.time ? median_ms(cub, g_reps) : 0.f;
    const double fl = 2.0 * sh.M * sh.N * sh.K;
    printf("== M %d N %d K %d ==\n  cuBLAS TF32 (sgemm, TF32 tensor op math): max-rel-err vs FP32 ref %.3e", sh.M,
           sh.N, sh.K, x.errCublas);
    if (sh.time) printf("  %.4f ms %7.2f TFLOP/s", x.msCublas, fl / x.msCublas / 1e9);
    printf("\n");
    fflush(stdout);
    const float t256 = variant<256, 64, 4>(x, "ss_128x256_st4", sh.time);
    variant<128, 128, 4>(x, "ss_256x128_st4", sh.time);
    float t128 = 0.f;
    if (!quick) {
      variant<256, 64, 3>(x, "ss_128x256_st3", sh.time);
      t128 = variant<128, 64, 6>(x, "ss_128x128_st6", sh.time);
      if (sh.time && sh.M == 4096) variant<256, 64, 4>(x, "ss_128x256_st4_tr32", true, 32);
    }
    variant_ld<256, 64, 4>(x, "ld_128x256_st4", sh.time);
    if (!quick) variant_ld<128, 64, 6>(x, "ld_128x128_st6", sh.time);
    if (sh.time && !quick) {
      /* the launcher's choice: 128x256 unless that leaves SMs without a tile */
      const bool small = (long long)((sh.M + 127) / 128) * ((sh.N + 255) / 256) < g_sms;
      const float ta = small ? t128 : t256;
      printf("  auto (%s): total %.4f ms %7.2f TFLOP/s ratio %.3f (cuBLAS ms / ours)\n",
             small ? "128x128_st6" : "128x256_st4", ta, fl / ta / 1e9, x.msCublas / ta);
    }
    {
      /* the per-call launcher (workspace from cudaMallocAsync, maps encoded per call, auto tile) */
      CK(cudaMemset(x.C, 0xff, nC * 4));
      CK(gemm_tf32(sh.M, sh.N, sh.K, x.A, sh.K, x.B, sh.N, x.C, sh.N, epi_store()));
      CK(cudaDeviceSynchronize());
      const float e = rel_err(x.C, x.R, nC), tol = std::max(2e-2f, 1.5f * x.errCublas);
      const bool ok = e <= tol;
      if (!ok) g_fail++;
      printf("  launcher (per call)        max-rel-err %.3e (tol %.3e) %s", e, tol, ok ? "ok" : "FAIL");
      if (sh.time) {
        const float ms = median_ms(
            [&] { CK(gemm_tf32(sh.M, sh.N, sh.K, x.A, sh.K, x.B, sh.N, x.C, sh.N, epi_store())); }, g_reps);
        printf("  total %.4f ms %7.2f TFLOP/s ratio %.3f (cuBLAS ms / ours)", ms, fl / ms / 1e9, x.msCublas / ms);
      }
      printf("\n");
      fflush(stdout);
    }
    cudaFree(x.A), cudaFree(x.B), cudaFree(x.C), cudaFree(x.R), cudaFree(x.Cb);
  }
  /* The launcher on leading dimensions that are not the sizes (lda % 4 != 0: A padded; ldc odd: scalar
   * stores), offset pointers, alpha / beta reading C, K = 0, 1 x 1 x 1. The whole C buffer is compared:
   * a store past N (into the ldc padding) shows as an error too. */
  {
    struct G {
      int M, N, K, offA, offB, offC;
      long long lda, ldb, ldc;
      float alpha, beta;
    };
    const G gs[] = {{517, 389, 259, 1, 3, 1, 262, 394, 390, 1.5f, 0.5f}, {300, 520, 96, 0, 0, 0, 100, 520, 521, 1.f, 0.f},
                    {200, 100, 0, 0, 0, 0, 4, 100, 100, 2.f, -1.f},       {1, 1, 1, 0, 0, 0, 1, 1, 1, 1.f, 1.f},
                    {4097, 4095, 1023, 0, 0, 0, 1024, 4096, 4095, 1.f, 0.25f}};
    for (const G &q : gs) {
      const long long nA = q.M * q.lda + 8, nB = (q.K > 0 ? q.K : 1) * q.ldb + 8, nC = q.M * q.ldc + 8;
      float *A, *B, *C, *R;
      CK(cudaMalloc(&A, nA * 4));
      CK(cudaMalloc(&B, nB * 4));
      CK(cudaMalloc(&C, nC * 4));
      CK(cudaMalloc(&R, nC * 4));
      fill_uniform<<<(unsigned)((nA + 255) / 256), 256>>>(A, nA, 3);
      fill_uniform<<<(unsigned)((nB + 255) / 256), 256>>>(B, nB, 4);
      fill_uniform<<<(unsigned)((nC + 255) / 256), 256>>>(C, nC, 5);
      CK(cudaMemcpy(R, C, nC * 4, cudaMemcpyDeviceToDevice));
      ref_gemm_ld<<<dim3((q.N + 15) / 16, (q.M + 15) / 16), dim3(16, 16)>>>(A + q.offA, q.lda, B + q.offB, q.ldb,
                                                                           R + q.offC, q.ldc, q.M, q.N, q.K,
                                                                           q.alpha, q.beta);
      CK(gemm_tf32(q.M, q.N, q.K, A + q.offA, q.lda, B + q.offB, q.ldb, C + q.offC, q.ldc,
                             epi_linear{q.alpha, q.beta}));
      CK(cudaDeviceSynchronize());
      const float e = rel_err(C, R, nC);
      const bool ok = e <= 2e-2f;
      if (!ok) g_fail++;
      printf("== launcher M %d N %d K %d lda %lld ldb %lld ldc %lld offsets %d/%d/%d alpha %g beta %g: max-rel-err "
             "%.3e (tol 2e-2) %s\n",
             q.M, q.N, q.K, q.lda, q.ldb, q.ldc, q.offA, q.offB, q.offC, q.alpha, q.beta, e, ok ? "ok" : "FAIL");
      fflush(stdout);
      cudaFree(A), cudaFree(B), cudaFree(C), cudaFree(R);
    }
  }
  cublasDestroy(h);
  printf("%s: %d check(s) failed\n", g_fail ? "FAIL" : "PASS", g_fail);
  return g_fail ? 1 : 0;
}
