/* ks_gemm_f32.cuh — KernelSkill's shipped FP32 GEMM device template (installed
 * under share/kernelskill/templates/; the gemm-tiled rule includes it into the
 * kernels it emits, bench/gemm/ sweeps it against cuBLAS).
 *
 * Computes, row-major, C[m][n] = epi(sum_k op(A)[m][k] * op(B)[k][n], m, n, &C[m][n])
 * for m < M, n < N (epi gets a pointer to C so that it may read it: beta*C).
 *   TA = false: A is M x K, element (m, k) at A[m*lda + k];  TA = true: A is K x M, at A[k*lda + m].
 *   TB = false: B is K x N, element (k, n) at B[k*ldb + n];  TB = true: B is N x K, at B[n*ldb + k].
 *
 * Tiling: a block computes a BM x BN tile of C, with BM/WM x BN/WN warps of 32
 * threads; a warp a WM x WN tile, its lanes arranged (WM/TM) x (WN/TN) (product
 * 32), each lane a TM x TN register tile made of 4 x 4 sub-tiles spread over
 * the warp tile (rows lr*4 + g*(WM/TM)*4, likewise columns), so that a warp's
 * shared reads are 16-byte vectors to consecutive or identical addresses,
 * identical for lanes paired as shared memory packs them (gemm_block). Both
 * operands sit in shared memory k-major ([k][m], [k][n], rows padded by 16
 * bytes): the inner product reads of A and B are ld.shared.v4 with no bank
 * conflict, and an operand that is contiguous along k in global memory (A
 * with TA = false, B with TB = true) is transposed on its way in, through
 * registers. STAGES >= 2 shared buffers: operands contiguous along m / n are
 * copied with cp.async (sm_80+, STAGES-1 tiles in flight), the others through
 * registers loaded before and stored after the current tile's products (a
 * register-staged double buffer; below sm_80 every operand goes that way).
 * A k-step's operands are read from shared memory just before its products
 * (reading the next ones during them, KS_GEMM_FRAG_PREFETCH, measured
 * slower on the H100). Global loads
 * are 16-byte vectors when the leading dimension is a multiple of 4 and the
 * pointer 16-byte aligned (checked by the launcher), else scalar; tiles past
 * M, N or K are predicated and zero-filled.
 *
 * Bitwise contract: every output's k sum is sequential, k = 0, 1, ..., K-1,
 * `acc += a * b` starting from 0.0f, as in the naive one-thread-per-output
 * kernel: with nvcc's default -fmad=true both compile to the same chain of
 * fma.rn.f32 (under -fmad=false, to the same mul/add pairs). The tiles'
 * zero padding past M and N only reaches outputs that are not stored, and no
 * product past K is summed (the last k-tile runs only its k < K). The
 * accumulators start at init(m, n, &C[m][n]) (0, or C for a kernel that
 * accumulates into C); the epilogue is the caller's functor, applied once per
 * output. A second product per k (Pair2 = pair2, syr2k's A*B^T + B*A^T) adds
 * `a1*b1 + a2*b2` per k, as such a kernel writes it. */
#ifndef KS_GEMM_F32_CUH
#define KS_GEMM_F32_CUH

#ifndef KS_GEMM_DEVICE_ONLY
#include <cuda_runtime.h>
#endif
#include <stdint.h>

namespace ks_gemm {

/* The plain store: C = acc. */
struct epi_store {
  __device__ __forceinline__ float operator()(float acc, int, int, const float *) const { return acc; }
};

/* BLAS: C = alpha*acc + beta*C (C not read when beta == 0, as BLAS does). */
struct epi_linear {
  float alpha, beta;
  __device__ __forceinline__ float operator()(float acc, int, int, const float *pc) const {
    /* fmaf written out: how nvcc would contract alpha*acc + beta*c depends on the context */
    return beta == 0.0f ? alpha * acc : fmaf(alpha, acc, beta * *pc);
  }
};

/* The accumulators' start: 0 (init_zero), or C itself for a kernel that
 * accumulates into C in global memory (`C[..] += a * b` in its k-loop). */
struct init_zero {
  __device__ __forceinline__ float operator()(int, int, const float *) const { return 0.0f; }
};
struct init_c {
  __device__ __forceinline__ float operator()(int, int, const float *pc) const { return *pc; }
};

/* The A operand as the products use it: as it is (scale_none), or times a
 * scalar (scale_by: a kernel summing `alpha * A[..] * B[..]`, whose products
 * are fma(alpha*a, b, acc): the same when A's values are scaled first). */
struct scale_none {
  __device__ __forceinline__ float operator()(float a) const { return a; }
};
struct scale_by {
  float s;
  __device__ __forceinline__ float operator()(float a) const { return s * a; }
};

/* The second product of a kernel that sums two per k, `acc += a1*b1 +
 * a2*b2` (syr2k: alpha*A*B^T + alpha*B*A^T): A2 and B2 in the layouts of A
 * and B (TA, TB), with their own leading dimensions; both values of A2 go
 * through the same Scale as A's. Their stages follow the first product's in
 * shared memory: the block needs config::SMEM twice. no_pair: one product. */
template <bool ON> struct pair_of {
  static constexpr bool on = ON;
  const float *A;
  long long lda;
  const float *B;
  long long ldb;
};
typedef pair_of<false> no_pair;
typedef pair_of<true> pair2;

/* How a product joins its sum: `acc += a * b` as the naive kernel writes it
 * (nvcc contracts it to fma.rn under its default -fmad=true, like the
 * kernel's own), or an explicit fmaf for a kernel that calls fmaf(a, b, acc)
 * (one rounding whatever -fmad says). */
struct mac_mul_add {
  __device__ __forceinline__ void operator()(float &acc, float a, float b) const { acc += a * b; }
};
struct mac_fma {
  __device__ __forceinline__ void operator()(float &acc, float a, float b) const { acc = fmaf(a, b, acc); }
};

/* Bias per column then ReLU: C = max(acc + bias[n], 0). */
struct epi_bias_relu {
  const float *bias;
  __device__ __forceinline__ float operator()(float acc, int, int n, const float *) const {
    return fmaxf(acc + bias[n], 0.0f);
  }
};

__device__ __forceinline__ void cp_async16(float *dst, const float *src, int nSrcBytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  unsigned d = (unsigned)__cvta_generic_to_shared(dst);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(d), "l"(src), "r"(nSrcBytes));
#else
  (void)dst, (void)src, (void)nSrcBytes;
#endif
}

__device__ __forceinline__ void cp_async4(float *dst, const float *src, int nSrcBytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  unsigned d = (unsigned)__cvta_generic_to_shared(dst);
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(d), "l"(src), "r"(nSrcBytes));
#else
  (void)dst, (void)src, (void)nSrcBytes;
#endif
}

__device__ __forceinline__ void cp_async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::);
#endif
}

template <int N> __device__ __forceinline__ void cp_async_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
#endif
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define KS_GEMM_CP_ASYNC 1
#else
#define KS_GEMM_CP_ASYNC 0
#endif

/* One operand's tile: R rows of k (BK) by L columns of m or n, stored k-major
 * into S[k][L + 4]. bKContig: global element (k, j) at P[j*ld + k], else at
 * P[k*ld + j]. Extents: k < nK, j < nJ. */
template <int BK, int L, int NT, bool bKContig, int PAD = 4> struct tile_loader {
  static constexpr int LP = L + PAD;         /* padded row of the shared tile */
  static constexpr int NV = BK * L / 4;      /* 16-byte vectors per tile */
  static constexpr int NPER = (NV + NT - 1) / NT;
  static constexpr bool bAsync = !bKContig && KS_GEMM_CP_ASYNC;
  float4 r[bAsync ? 1 : NPER];               /* the register stage */

  /* Vector e's coordinates: (k, j) of its first element; it runs along j
   * (m / n contiguous) or along k (k contiguous). k contiguous, BK >= 8: a
   * warp's 32 vectors are 16 rows j by 2 vectors (32 bytes) of k, so that the
   * transposing stores S[k][j] of the warp (k*(L+4) + j: the two k vectors
   * 16 banks apart) hit 32 distinct banks. */
  static constexpr int NKQ = BK / 4;
  static constexpr bool bPairs = bKContig && NKQ % 2 == 0 && L % 16 == 0 && NV % 32 == 0;
  __device__ __forceinline__ static void coord(int e, int &k, int &j) {
    if (bPairs) {
      const int lane = e % 32, w = e / 32;
      k = ((lane % 2) + 2 * (w % (NKQ / 2))) * 4;
      j = lane / 2 + 16 * (w / (NKQ / 2));
    } else if (bKContig) {
      j = e / NKQ, k = (e % NKQ) * 4;
    } else {
      k = e / (L / 4), j = (e % (L / 4)) * 4;
    }
  }

  /* Global -> registers (or cp.async straight into S). */
  __device__ __forceinline__ void load(const float *P, long long ld, int k0, int j0, int nK, int nJ, bool bVec,
                                       float *S) {
#pragma unroll
    for (int i = 0; i < NPER; i++) {
      int e = (int)threadIdx.x + i * NT;
      if (NV % NT != 0 && e >= NV) break;
      int k, j;
      coord(e, k, j);
      int gk = k0 + k, gj = j0 + j;
      if (bKContig) {
        const float *src = P + (long long)gj * ld + gk;
        float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
        if (gj < nJ) {
          if (bVec && gk + 3 < nK) v = *reinterpret_cast<const float4 *>(src);
          else {
            if (gk < nK) v.x = src[0];
            if (gk + 1 < nK) v.y = src[1];
            if (gk + 2 < nK) v.z = src[2];
            if (gk + 3 < nK) v.w = src[3];
          }
        }
        r[bAsync ? 0 : i] = v;
      } else {
        const float *src = P + (long long)gk * ld + gj;
        if (bAsync) {
          float *dst = S + k * LP + j;
          if (bVec && gk < nK && gj + 3 < nJ) cp_async16(dst, src, 16);
          else if (gk >= nK || gj >= nJ) cp_async16(dst, P, 0);
          else {
#pragma unroll
            for (int q = 0; q < 4; q++) cp_async4(dst + q, gj + q < nJ ? src + q : P, gj + q < nJ ? 4 : 0);
          }
        } else {
          float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
          if (gk < nK) {
            if (bVec && gj + 3 < nJ) v = *reinterpret_cast<const float4 *>(src);
            else {
              if (gj < nJ) v.x = src[0];
              if (gj + 1 < nJ) v.y = src[1];
              if (gj + 2 < nJ) v.z = src[2];
              if (gj + 3 < nJ) v.w = src[3];
            }
          }
          r[bAsync ? 0 : i] = v;
        }
      }
    }
  }

  /* Registers -> S (nothing for cp.async operands). */
  __device__ __forceinline__ void store(float *S) {
    if (!bAsync) store_regs(S);
  }
  __device__ __forceinline__ void store_regs(float *S) {
#pragma unroll
    for (int i = 0; i < NPER; i++) {
      int e = (int)threadIdx.x + i * NT;
      if (NV % NT != 0 && e >= NV) break;
      int k, j;
      coord(e, k, j);
      float4 v = r[i];
      if (bKContig) {
        S[(k + 0) * LP + j] = v.x;
        S[(k + 1) * LP + j] = v.y;
        S[(k + 2) * LP + j] = v.z;
        S[(k + 3) * LP + j] = v.w;
      } else {
        *reinterpret_cast<float4 *>(S + k * LP + j) = v;
      }
    }
  }
};

/* An operand tile stored j-major, S[j][BK + 4], from global memory where it
 * is contiguous along k (element (k, j) at P[j*ld + k]): 16-byte copies along
 * k with no transposition (cp.async on sm_80+, else through registers). The
 * row of BK + 4 floats puts rows 0..7 of a 16-byte column in 8 distinct
 * groups of 4 banks (BK = 8, 16, 32), so a warp reading 4 or 8 rows of it at
 * once meets no bank conflict. */
template <int BK, int L, int NT> struct tile_loader_jmajor {
  static constexpr int LP = BK + 4;
  static constexpr int NKQ = BK / 4;
  static constexpr int NV = BK * L / 4;
  static constexpr int NPER = (NV + NT - 1) / NT;
  static constexpr bool bAsync = KS_GEMM_CP_ASYNC;
  float4 r[bAsync ? 1 : NPER];

  __device__ __forceinline__ void load(const float *P, long long ld, int k0, int j0, int nK, int nJ, bool bVec,
                                       float *S) {
#pragma unroll
    for (int i = 0; i < NPER; i++) {
      int e = (int)threadIdx.x + i * NT;
      if (NV % NT != 0 && e >= NV) break;
      const int j = e / NKQ, k = (e % NKQ) * 4, gk = k0 + k, gj = j0 + j;
      const float *src = P + (long long)gj * ld + gk;
      if (bAsync) {
        float *dst = S + j * LP + k;
        if (bVec && gj < nJ && gk + 3 < nK) cp_async16(dst, src, 16);
        else if (gj >= nJ || gk >= nK) cp_async16(dst, P, 0);
        else {
#pragma unroll
          for (int q = 0; q < 4; q++) cp_async4(dst + q, gk + q < nK ? src + q : P, gk + q < nK ? 4 : 0);
        }
      } else {
        float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
        if (gj < nJ) {
          if (bVec && gk + 3 < nK) v = *reinterpret_cast<const float4 *>(src);
          else {
            if (gk < nK) v.x = src[0];
            if (gk + 1 < nK) v.y = src[1];
            if (gk + 2 < nK) v.z = src[2];
            if (gk + 3 < nK) v.w = src[3];
          }
        }
        r[bAsync ? 0 : i] = v;
      }
    }
  }

  __device__ __forceinline__ void store(float *S) {
    if (!bAsync) store_regs(S);
  }
  __device__ __forceinline__ void store_regs(float *S) {
#pragma unroll
    for (int i = 0; i < NPER; i++) {
      int e = (int)threadIdx.x + i * NT;
      if (NV % NT != 0 && e >= NV) break;
      const int j = e / NKQ, k = (e % NKQ) * 4;
      *reinterpret_cast<float4 *>(S + j * LP + k) = r[i];
    }
  }
};

template <bool B, class T, class F> struct pick { typedef T type; };
template <class T, class F> struct pick<false, T, F> { typedef F type; };

__device__ __forceinline__ float comp(const float4 &v, int q) { return q == 0 ? v.x : q == 1 ? v.y : q == 2 ? v.z : v.w; }

/* KS_GEMM_JMAJOR_A = 1: A contiguous along k (NN, NT) stored m-major and B
 * contiguous along k (NT) n-major, copied with cp.async as they lie, a lane
 * reading 4 k of a row per 16-byte vector. Off by default: measured slower on
 * the H200 than the transposing register stage (bench/gemm/h200-run3.txt:
 * NN 4096 0.68x cuBLAS against 0.84x; the 4-k vectors of TM rows hold 32 more
 * registers across the 4 k, and under the 128-register cap the shared loads
 * of the next k are no longer issued ahead). */
#ifndef KS_GEMM_JMAJOR_A
#define KS_GEMM_JMAJOR_A 0
#endif

/* KS_GEMM_LANE_PAIRS = 0: lanes placed row-major in the warp tile (lr =
 * lane / LC), the layout before the paired one gemm_block describes; kept
 * for the A/B in bench/gemm/gemm_sweep.cu. */
#ifndef KS_GEMM_LANE_PAIRS
#define KS_GEMM_LANE_PAIRS 1
#endif

/* KS_GEMM_FRAG_PREFETCH = 1: the next k-step's shared reads issued during
 * the current k-step's products (gemm_block). Off by default: on the H100
 * (bench/results/2026-12-06h-h100/sgemm.txt, one run) it was slower at 4096
 * NN (0.801x cuBLAS against 0.856x without it, both with the lane pairs) and
 * in every layout, at 128 registers (the staged fragments spill in NT/TT);
 * kept for the A/B in bench/gemm/gemm_sweep.cu (pf_ variants). */
#ifndef KS_GEMM_FRAG_PREFETCH
#define KS_GEMM_FRAG_PREFETCH 0
#endif

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int STAGES> struct config {
  static constexpr int NWM = BM / WM, NWN = BN / WN;   /* warps per block */
  static constexpr int NT = NWM * NWN * 32;            /* threads per block */
  static constexpr int LR = WM / TM, LC = WN / TN;     /* lanes per warp, rows x cols */
  /* floats per stage: A k-major (BK rows of BM + 4), B k-major; with
   * KS_GEMM_JMAJOR_A, A m-major (BM rows of BK + 4) unless TA and B n-major
   * when TB and not TA: a stage holds either */
  static constexpr int AS = KS_GEMM_JMAJOR_A && BM * (BK + 4) > BK * (BM + 4) ? BM * (BK + 4) : BK * (BM + 4);
  static constexpr int BS = KS_GEMM_JMAJOR_A && BN * (BK + 4) > BK * (BN + 4) ? BN * (BK + 4) : BK * (BN + 4);
  static constexpr size_t SMEM = (size_t)STAGES * (AS + BS) * sizeof(float);
  /* Blocks per SM for __launch_bounds__: enough to cap registers at 128 per
   * thread (65536 / (NT * MINB)) when the thread tile is at most 8x8, which
   * fits them without spilling; larger thread tiles get no cap. */
  static constexpr int MINB = TM * TN <= 64 && NT <= 512 ? 512 / NT : 1;
  static_assert(BM % WM == 0 && BN % WN == 0, "the block tile is a whole number of warp tiles");
  static_assert(WM % TM == 0 && WN % TN == 0 && LR * LC == 32, "a warp tile is 32 thread tiles");
  static_assert(TM % 4 == 0 && TN % 4 == 0, "thread tiles are made of 4x4 sub-tiles");
  static_assert(BK % 4 == 0 && BM % 4 == 0 && BN % 4 == 0, "tiles are made of 16-byte vectors");
  static_assert(STAGES >= 2, "two shared buffers at least");
  static_assert(NT <= 1024, "at most 1024 threads per block");
};

/* The vector-path mask for gemm_block: bit 0 A, bit 1 B, bit 2 C may be read
 * or written in 16-byte vectors (16-byte aligned, leading dimension and batch
 * stride multiples of 4 elements). */
__host__ __device__ __forceinline__ int vec_mask(const float *A, long long lda, const float *B, long long ldb,
                                                 const float *C, long long ldc, long long sA = 0, long long sB = 0,
                                                 long long sC = 0) {
  return (((uintptr_t)A % 16 == 0 && lda % 4 == 0 && sA % 4 == 0) ? 1 : 0) |
         (((uintptr_t)B % 16 == 0 && ldb % 4 == 0 && sB % 4 == 0) ? 2 : 0) |
         (((uintptr_t)C % 16 == 0 && ldc % 4 == 0 && sC % 4 == 0) ? 4 : 0);
}

/* One block's work: the BM x BN tile (bm, bn) of C (rows bm*BM.., columns
 * bn*BN..), by config::NT threads of a 1-D block (threadIdx.x), with smem
 * config::SMEM bytes of shared memory, 16-byte aligned. Every thread of the
 * block must call it (it synchronizes the block).
 *
 * A with TA = false (contiguous along k) is stored m-major, As[m][BK + 4],
 * copied as it lies (cp.async); a lane then reads 4 k of one row as one
 * 16-byte vector, and its rows are lr + i*LR (a lane's rows interleave with
 * its warp's other lanes: 4 or 8 consecutive rows per read, distinct bank
 * groups). With TA = true A is k-major, As[k][BM + 4], a lane's rows
 * 4 x 4 sub-tiles as described at the top. */
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int STAGES, bool TA, bool TB, class Epi,
          class Init = init_zero, class Scale = scale_none, class Pair2 = no_pair, class Mac = mac_mul_add>
__device__ __forceinline__ void gemm_block(int M, int N, int K, const float *__restrict__ A, long long lda,
                                           const float *__restrict__ B, long long ldb, float *C, long long ldc,
                                           const Epi &epi, int mVec, float *smem, int bm, int bn,
                                           const Init &init = Init(), const Scale &scaleA = Scale(),
                                           const Pair2 &p2 = Pair2(), const Mac &mac = Mac()) {
  typedef config<BM, BN, BK, WM, WN, TM, TN, STAGES> cfg;
  constexpr int NT = cfg::NT, LR = cfg::LR, LC = cfg::LC;
  constexpr bool AM = KS_GEMM_JMAJOR_A && !TA;        /* A m-major in shared memory */
  constexpr bool BNM = KS_GEMM_JMAJOR_A && TB && !TA; /* B n-major in shared memory (TT keeps B k-major) */
  constexpr bool D = Pair2::on;                       /* a second product per k (pair2) */
  static_assert(!(D && (AM || BNM)), "two products per k: the k-major shared layout only");
  constexpr int SA = AM ? BK + 4 : BM + 4, SB = BNM ? BK + 4 : BN + 4;
  float *As = smem, *Bs = smem + STAGES * cfg::AS;
  float *As2 = smem + STAGES * (cfg::AS + cfg::BS), *Bs2 = As2 + STAGES * cfg::AS; /* D only */
  const int m0 = bm * BM, n0 = bn * BN;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int wm0 = (warp / cfg::NWN) * WM, wn0 = (warp % cfg::NWN) * WN;
  /* The lane's place in the warp tile, row lr of LR, column lc of LC. In the
   * k-major layout, bit 0 of the lane picks the row and bit 1 the column:
   * lanes n and n^1 then read the same B vector and lanes n and n^2 the same
   * A vector, the pairing for which shared memory packs a 16-byte read's
   * return into 2 passes of the warp instead of 4 (it returns 128 bytes, a
   * register of 32 lanes, a cycle); with lr = lane / LC, B's reads took 4.
   * 8x8 tiles: a k-step's 2 + 2 reads took 4 + 8 passes of the SM's shared
   * memory against 16 cycles of the SM's 4 schedulers for the warp's 64
   * FFMAs, close to the limit; now 4 + 4. */
  constexpr bool bPairLanes = !AM && !BNM && LR % 2 == 0 && LC % 2 == 0 && KS_GEMM_LANE_PAIRS;
  const int lr = bPairLanes ? (lane & 1) | ((lane >> 2) % (LR / 2)) * 2 : lane / LC;
  const int lc = bPairLanes ? ((lane >> 1) & 1) | ((lane >> 2) / (LR / 2)) * 2 : lane % LC;
  const bool bVecA = mVec & 1, bVecB = mVec & 2, bVecC = mVec & 4;
  /* the block-tile row of the thread's accumulator row i */
  auto row = [&](int i) { return AM ? wm0 + lr + i * LR : wm0 + (i / 4) * LR * 4 + lr * 4 + i % 4; };
  /* the block-tile column of the thread's accumulator column j */
  auto col = [&](int j) { return BNM ? wn0 + lc + j * LC : wn0 + (j / 4) * LC * 4 + lc * 4 + j % 4; };

  /* A: (k, m), k-contiguous unless TA; B: (k, n), k-contiguous when TB */
  typename pick<AM, tile_loader_jmajor<BK, BM, NT>, tile_loader<BK, BM, NT, !TA>>::type la;
  typename pick<BNM, tile_loader_jmajor<BK, BN, NT>, tile_loader<BK, BN, NT, TB>>::type lb;
  tile_loader<BK, BM, NT, !TA> la2; /* D: A2, B2 */
  tile_loader<BK, BN, NT, TB> lb2;

  /* acc[i][j]: row m0 + row(i), column n0 + col(j) */
  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; i++)
#pragma unroll
    for (int j = 0; j < TN; j++) {
      const int m = m0 + row(i), n = n0 + col(j);
      acc[i][j] = m < M && n < N ? init(m, n, C + (long long)m * ldc + n) : 0.0f;
    }

  const int nT = (K + BK - 1) / BK;
  /* k-tile tn into stage sn: global loads (cp.async operands straight into
   * shared memory), then the register-staged operands' stores */
  auto load_tile = [&](int tn, int sn) {
    la.load(A, lda, tn * BK, m0, K, M, bVecA, As + sn * cfg::AS);
    lb.load(B, ldb, tn * BK, n0, K, N, bVecB, Bs + sn * cfg::BS);
    if (D) {
      la2.load(p2.A, p2.lda, tn * BK, m0, K, M, bVecA, As2 + sn * cfg::AS);
      lb2.load(p2.B, p2.ldb, tn * BK, n0, K, N, bVecB, Bs2 + sn * cfg::BS);
    }
  };
  auto store_tile = [&](int sn) {
    la.store(As + sn * cfg::AS);
    lb.store(Bs + sn * cfg::BS);
    if (D) {
      la2.store(As2 + sn * cfg::AS);
      lb2.store(Bs2 + sn * cfg::BS);
    }
  };
#pragma unroll
  for (int s = 0; s < STAGES - 1; s++) {
    if (s < nT) {
      load_tile(s, s);
      store_tile(s);
    }
    cp_async_commit();
  }

  /* k-major path: the operands of one k-step (kk of the tile in stage s) as
   * the thread's products use them, and those products */
  struct frag {
    float a[TM], b[TN], a2[D ? TM : 1], b2[D ? TN : 1];
  };
  auto fetch = [&](frag &f, int s, int kk) {
    const float *as = As + s * cfg::AS + wm0 + lr * 4 + kk * SA, *bs = Bs + s * cfg::BS + wn0 + lc * 4 + kk * SB;
#pragma unroll
    for (int g = 0; g < TM / 4; g++)
      *reinterpret_cast<float4 *>(&f.a[g * 4]) = *reinterpret_cast<const float4 *>(as + g * LR * 4);
#pragma unroll
    for (int i = 0; i < TM; i++) f.a[i] = scaleA(f.a[i]);
#pragma unroll
    for (int g = 0; g < TN / 4; g++)
      *reinterpret_cast<float4 *>(&f.b[g * 4]) = *reinterpret_cast<const float4 *>(bs + g * LC * 4);
    if (D) {
      const float *as2 = As2 + (as - As), *bs2 = Bs2 + (bs - Bs);
#pragma unroll
      for (int g = 0; g < TM / 4; g++)
        *reinterpret_cast<float4 *>(&f.a2[g * 4]) = *reinterpret_cast<const float4 *>(as2 + g * LR * 4);
#pragma unroll
      for (int i = 0; i < TM; i++) f.a2[i] = scaleA(f.a2[i]);
#pragma unroll
      for (int g = 0; g < TN / 4; g++)
        *reinterpret_cast<float4 *>(&f.b2[g * 4]) = *reinterpret_cast<const float4 *>(bs2 + g * LC * 4);
    }
  };
  auto madd = [&](const frag &f) {
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
      for (int j = 0; j < TN; j++) {
        if (D) acc[i][j] += f.a[i] * f.b[j] + f.a2[i] * f.b2[j]; /* as the kernel sums them */
        else mac(acc[i][j], f.a[i], f.b[j]);
      }
  };

  /* KS_GEMM_FRAG_PREFETCH (k-major path): the operands of k-step kk + 1 are
   * read while the products of kk run (two register sets), and the first of
   * the next tile too: one barrier per tile, before the last k-step, once the
   * register-staged operands of the tile STAGES-1 ahead are stored; the
   * reads of the tile then start before its first products, not after a
   * barrier that leaves every warp of the block waiting on shared memory. */
  constexpr bool PF = !AM && !BNM && KS_GEMM_FRAG_PREFETCH;
  if (PF) {
    frag f[2];
    if (nT > 0) {
      cp_async_wait<STAGES - 2>();
      __syncthreads();
      fetch(f[0], 0, 0);
    }
    for (int t = 0; t + 1 < nT; t++) { /* whole tiles (only the last may be partial) */
      /* tile tn goes to the stage of tile t-1, whose last reads came before
       * the previous barrier */
      const int s = t % STAGES, tn = t + STAGES - 1, sn = tn % STAGES;
      const bool bMore = tn < nT;
      if (bMore) load_tile(tn, sn);
      cp_async_commit();
#pragma unroll
      for (int kk = 0; kk < BK - 1; kk++) {
        fetch(f[(kk + 1) % 2], s, kk + 1);
        madd(f[kk % 2]);
      }
      if (bMore) store_tile(sn);
      cp_async_wait<STAGES - 2>(); /* tile t+1 is in */
      __syncthreads();
      fetch(f[BK % 2], (t + 1) % STAGES, 0);
      madd(f[(BK - 1) % 2]);
    }
    if (nT > 0) { /* the last tile: no product past K (no padding in the sums) */
      const int s = (nT - 1) % STAGES, nK = K - (nT - 1) * BK;
#pragma unroll
      for (int kk = 0; kk < BK; kk++)
        if (kk < nK) {
          if (kk + 1 < BK) fetch(f[(kk + 1) % 2], s, kk + 1);
          madd(f[kk % 2]);
        }
    }
  }

  for (int t = 0; !PF && t < nT; t++) {
    cp_async_wait<STAGES - 2>();
    __syncthreads();
    const int tn = t + STAGES - 1, sn = tn % STAGES;
    const bool bMore = tn < nT;
    if (bMore) load_tile(tn, sn);
    cp_async_commit();

    const float *as = As + (t % STAGES) * cfg::AS + (AM ? (wm0 + lr) * SA : wm0 + lr * 4);
    const float *bs = Bs + (t % STAGES) * cfg::BS + (BNM ? (wn0 + lc) * SB : wn0 + lc * 4);
    const int nK = K - t * BK; /* k left, from this tile on */
    const bool bFull = nK >= BK;
    if (BNM) {
      /* NT, 4 k at a time: one 16-byte read per row of A and per column of
       * B, the columns 4 at a time (registers) */
#pragma unroll
      for (int kq = 0; kq < BK / 4; kq++) {
        float4 a4[TM];
#pragma unroll
        for (int i = 0; i < TM; i++) {
          a4[i] = *reinterpret_cast<const float4 *>(as + i * LR * SA + kq * 4);
          a4[i] = make_float4(scaleA(a4[i].x), scaleA(a4[i].y), scaleA(a4[i].z), scaleA(a4[i].w));
        }
#pragma unroll
        for (int h = 0; h < TN / 4; h++) {
          float4 b4[4];
#pragma unroll
          for (int j = 0; j < 4; j++) b4[j] = *reinterpret_cast<const float4 *>(bs + (h * 4 + j) * LC * SB + kq * 4);
#pragma unroll
          for (int q = 0; q < 4; q++) {
            if (!bFull && kq * 4 + q >= nK) break; /* the last, partial tile: no product past K */
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
              for (int j = 0; j < 4; j++) mac(acc[i][h * 4 + j], comp(a4[i], q), comp(b4[j], q));
          }
        }
      }
    } else if (AM) {
      /* 4 k at a time: one 16-byte read per row of A, then per k the row of B */
#pragma unroll
      for (int kq = 0; kq < BK / 4; kq++) {
        float4 a4[TM];
#pragma unroll
        for (int i = 0; i < TM; i++) {
          a4[i] = *reinterpret_cast<const float4 *>(as + i * LR * SA + kq * 4);
          a4[i] = make_float4(scaleA(a4[i].x), scaleA(a4[i].y), scaleA(a4[i].z), scaleA(a4[i].w));
        }
#pragma unroll
        for (int q = 0; q < 4; q++) {
          const int kk = kq * 4 + q;
          if (!bFull && kk >= nK) break; /* the last, partial tile: no product past K */
          float b[TN];
#pragma unroll
          for (int g = 0; g < TN / 4; g++)
            *reinterpret_cast<float4 *>(&b[g * 4]) =
                *reinterpret_cast<const float4 *>(bs + kk * (BN + 4) + g * LC * 4);
#pragma unroll
          for (int i = 0; i < TM; i++)
#pragma unroll
            for (int j = 0; j < TN; j++) mac(acc[i][j], comp(a4[i], q), b[j]);
        }
      }
    } else {
      /* k = t*BK + kk: the products of one k, every output of the thread */
      auto step = [&](int kk) {
        frag f;
        fetch(f, t % STAGES, kk);
        madd(f);
      };
      if (bFull) {
#pragma unroll
        for (int kk = 0; kk < BK; kk++) step(kk);
      } else { /* the last, partial tile: no product past K (no padding in the sums) */
#pragma unroll
        for (int kk = 0; kk < BK; kk++)
          if (kk < nK) step(kk);
      }
    }

    if (bMore) store_tile(sn);
  }
  cp_async_wait<0>();

  /* Epilogue: rows m0 + row(i), columns n0 + col(j); B n-major: a lane's
   * columns are LC apart (scalar stores, the warp's consecutive) */
#pragma unroll
  for (int i = 0; i < TM; i++) {
    const int m = m0 + row(i);
    if (m >= M) continue;
    if (BNM) {
#pragma unroll
      for (int j = 0; j < TN; j++) {
        const int n = n0 + col(j);
        float *pc = C + (long long)m * ldc + n;
        if (n < N) *pc = epi(acc[i][j], m, n, pc);
      }
    }
#pragma unroll
    for (int h = 0; h < (BNM ? 0 : TN / 4); h++) {
      const int n = n0 + wn0 + h * LC * 4 + lc * 4;
      float *pc = C + (long long)m * ldc + n;
      float v[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
      for (int j = 0; j < 4; j++)
        if (n + j < N) v[j] = epi(acc[i][h * 4 + j], m, n + j, pc + j);
      if (bVecC && n + 3 < N) *reinterpret_cast<float4 *>(pc) = make_float4(v[0], v[1], v[2], v[3]);
      else
#pragma unroll
        for (int j = 0; j < 4; j++)
          if (n + j < N) pc[j] = v[j];
    }
  }
}

/* gemm_block as a call, not inlined: pack=on's path for launches that got no
 * workspace (rare: out of memory). Kept out of the kernel's own register
 * allocation, so that the packed path beside it does not spill (ptxas:
 * 16-24 bytes of spills with both inlined under a 128-register cap). */
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int STAGES, bool TA, bool TB, class Epi,
          class Init = init_zero, class Scale = scale_none, class Pair2 = no_pair, class Mac = mac_mul_add>
__device__ __noinline__ void gemm_block_cold(int M, int N, int K, const float *__restrict__ A, long long lda,
                                             const float *__restrict__ B, long long ldb, float *C, long long ldc,
                                             const Epi &epi, int mVec, float *smem, int bm, int bn,
                                             const Init &init = Init(), const Scale &scaleA = Scale(),
                                             const Pair2 &p2 = Pair2(), const Mac &mac = Mac()) {
  gemm_block<BM, BN, BK, WM, WN, TM, TN, STAGES, TA, TB, Epi, Init, Scale, Pair2, Mac>(
      M, N, K, A, lda, B, ldb, C, ldc, epi, mVec, smem, bm, bn, init, scaleA, p2, mac);
}

/* ---- TF32 on tensor cores (sm_80+): mma.sync.aligned.m16n8k8 ------------
 * The same contract as gemm_block except the arithmetic: the products are
 * TF32 (each operand rounded to 10 mantissa bits, cvt.rna.tf32.f32, as it is
 * read from shared memory) summed in FP32 by the tensor cores in an order of
 * their own, so results are NOT bitwise those of the naive kernel; a caller
 * may use it only where the task's tolerance admits TF32 (the gemm-tiled
 * rule offers it as a separate config value, tf32_...). Both operands are
 * copied with cp.async as they lie in global memory: rows contiguous along k
 * padded to BK + 4 floats, rows contiguous along m / n to BM + 8 / BN + 8,
 * so that a warp's fragment reads (8 rows x 4 k, or 4 k x 8 columns) hit 32
 * distinct banks. A warp computes WM x WN of C as (WM/16) x (WN/8) mma tiles;
 * the k past K is zero-filled (zero products). */
template <int BM, int BN, int BK, int WM, int WN, int STAGES> struct config_tf32 {
  static constexpr int NWM = BM / WM, NWN = BN / WN;
  static constexpr int NT = NWM * NWN * 32;
  static constexpr int MF = WM / 16, NF = WN / 8; /* mma tiles per warp */
  /* floats per stage, either layout of either operand */
  static constexpr int AS = BK * (BM + 8) > BM * (BK + 4) ? BK * (BM + 8) : BM * (BK + 4);
  static constexpr int BS = BK * (BN + 8) > BN * (BK + 4) ? BK * (BN + 8) : BN * (BK + 4);
  static constexpr size_t SMEM = (size_t)STAGES * (AS + BS) * sizeof(float);
  static constexpr int MINB = NT <= 512 && MF * NF <= 16 ? 512 / NT : 1;
  static_assert(BM % WM == 0 && BN % WN == 0, "the block tile is a whole number of warp tiles");
  static_assert(WM % 16 == 0 && WN % 8 == 0, "a warp tile is whole 16x8 mma tiles");
  static_assert(BK % 8 == 0 && BM % 32 == 0 && BN % 32 == 0, "BK a multiple of 8, BM and BN of 32");
  static_assert(STAGES >= 2, "two shared buffers at least");
  static_assert(NT <= 1024, "at most 1024 threads per block");
};

__device__ __forceinline__ unsigned to_tf32(float x) {
  unsigned u;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(u) : "f"(x));
#else /* the same rounding (to nearest, ties away; finite x) where there is no cvt */
  union {
    float f;
    unsigned u;
  } v;
  v.f = x;
  u = (v.u + 0x1000u) & 0xffffe000u;
#endif
  return u;
}

__device__ __forceinline__ void mma_tf32(float *c, const unsigned *a, const unsigned *b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
               "{%0,%1,%2,%3};\n"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#elif defined(KS_GEMM_EMU_MMA) /* a CPU emulation of the warp's mma (test/rewrite/Inputs/ks-gemm-f32-emu.py) */
  KS_GEMM_EMU_MMA(c, a, b);
#else
  (void)c, (void)a, (void)b;
#endif
}

/* Element (k, n) of a TF32 B tile in shared memory: rows of SB floats, n-major
 * ([n][k]) for TB, else k-major ([k][n]). Both TF32 blocks read fragments so. */
template <bool TB, int SB> __device__ __forceinline__ float tf32_b_at(const float *bs, int k, int n) {
  return TB ? bs[n * SB + k] : bs[k * SB + n];
}

template <bool B> struct arch_sm80_required {
  static_assert(B, "the TF32 GEMM needs sm_80 or newer (mma.sync tf32)");
};

template <int BM, int BN, int BK, int WM, int WN, int STAGES, bool TA, bool TB, class Epi, class Init, class Scale>
__device__ __forceinline__ void gemm_block_mma_tf32(int M, int N, int K, const float *__restrict__ A, long long lda,
                                                const float *__restrict__ B, long long ldb, float *C, long long ldc,
                                                const Epi &epi, int mVec, float *smem, int bm, int bn,
                                                const Init &init = Init(), const Scale &scaleA = Scale()) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  arch_sm80_required<TA != TA> chk;
  (void)chk;
#endif
  typedef config_tf32<BM, BN, BK, WM, WN, STAGES> cfg;
  constexpr int NT = cfg::NT, MF = cfg::MF, NF = cfg::NF;
  /* shared rows: k-contiguous operands [j][BK + 4], the others [k][L + 8] */
  constexpr int SA = TA ? BM + 8 : BK + 4, SB = TB ? BK + 4 : BN + 8;
  float *As = smem, *Bs = smem + STAGES * cfg::AS;
  const int m0 = bm * BM, n0 = bn * BN;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int wm0 = (warp / cfg::NWN) * WM, wn0 = (warp % cfg::NWN) * WN;
  const int g = lane / 4, tq = lane % 4; /* the mma fragments' groupID, threadID_in_group */
  const bool bVecA = mVec & 1, bVecB = mVec & 2, bVecC = mVec & 4;

  typename pick<TA, tile_loader<BK, BM, NT, false, 8>, tile_loader_jmajor<BK, BM, NT>>::type la;
  typename pick<TB, tile_loader_jmajor<BK, BN, NT>, tile_loader<BK, BN, NT, false, 8>>::type lb;

  /* acc[mf][nf][r]: row wm0 + mf*16 + g + (r / 2)*8, column wn0 + nf*8 + tq*2 + r % 2 */
  float acc[MF][NF][4];
#pragma unroll
  for (int mf = 0; mf < MF; mf++)
#pragma unroll
    for (int nf = 0; nf < NF; nf++)
#pragma unroll
      for (int r = 0; r < 4; r++) {
        const int m = m0 + wm0 + mf * 16 + g + (r / 2) * 8, n = n0 + wn0 + nf * 8 + tq * 2 + r % 2;
        acc[mf][nf][r] = m < M && n < N ? init(m, n, C + (long long)m * ldc + n) : 0.0f;
      }

  const int nT = (K + BK - 1) / BK;
#pragma unroll
  for (int s = 0; s < STAGES - 1; s++) {
    if (s < nT) {
      la.load(A, lda, s * BK, m0, K, M, bVecA, As + s * cfg::AS);
      lb.load(B, ldb, s * BK, n0, K, N, bVecB, Bs + s * cfg::BS);
      la.store(As + s * cfg::AS);
      lb.store(Bs + s * cfg::BS);
    }
    cp_async_commit();
  }

  for (int t = 0; t < nT; t++) {
    cp_async_wait<STAGES - 2>();
    __syncthreads();
    const int tn = t + STAGES - 1, sn = tn % STAGES;
    const bool bMore = tn < nT;
    if (bMore) {
      la.load(A, lda, tn * BK, m0, K, M, bVecA, As + sn * cfg::AS);
      lb.load(B, ldb, tn * BK, n0, K, N, bVecB, Bs + sn * cfg::BS);
    }
    cp_async_commit();
    const float *as = As + (t % STAGES) * cfg::AS, *bs = Bs + (t % STAGES) * cfg::BS;
    /* element (m, k) of the A tile, (k, n) of the B tile */
    auto a_at = [&](int m, int k) { return scaleA(TA ? as[k * SA + m] : as[m * SA + k]); };
    auto b_at = [&](int k, int n) { return tf32_b_at<TB, SB>(bs, k, n); };
#pragma unroll
    for (int k8 = 0; k8 < BK; k8 += 8) {
      unsigned a[MF][4], b[NF][2];
#pragma unroll
      for (int mf = 0; mf < MF; mf++) {
        const int m = wm0 + mf * 16 + g;
        a[mf][0] = to_tf32(a_at(m, k8 + tq));
        a[mf][1] = to_tf32(a_at(m + 8, k8 + tq));
        a[mf][2] = to_tf32(a_at(m, k8 + tq + 4));
        a[mf][3] = to_tf32(a_at(m + 8, k8 + tq + 4));
      }
#pragma unroll
      for (int nf = 0; nf < NF; nf++) {
        const int n = wn0 + nf * 8 + g;
        b[nf][0] = to_tf32(b_at(k8 + tq, n));
        b[nf][1] = to_tf32(b_at(k8 + tq + 4, n));
      }
#pragma unroll
      for (int mf = 0; mf < MF; mf++)
#pragma unroll
        for (int nf = 0; nf < NF; nf++) mma_tf32(acc[mf][nf], a[mf], b[nf]);
    }
    if (bMore) {
      la.store(As + sn * cfg::AS);
      lb.store(Bs + sn * cfg::BS);
    }
  }
  cp_async_wait<0>();

  /* Epilogue: two adjacent columns per fragment row, an 8-byte store when C allows vectors. */
#pragma unroll
  for (int mf = 0; mf < MF; mf++)
#pragma unroll
    for (int h = 0; h < 2; h++) {
      const int m = m0 + wm0 + mf * 16 + g + h * 8;
      if (m >= M) continue;
#pragma unroll
      for (int nf = 0; nf < NF; nf++) {
        const int n = n0 + wn0 + nf * 8 + tq * 2;
        float *pc = C + (long long)m * ldc + n;
        if (n + 1 < N) {
          const float v0 = epi(acc[mf][nf][h * 2], m, n, pc), v1 = epi(acc[mf][nf][h * 2 + 1], m, n + 1, pc + 1);
          if (bVecC) *reinterpret_cast<float2 *>(pc) = make_float2(v0, v1);
          else pc[0] = v0, pc[1] = v1;
        } else if (n < N) {
          pc[0] = epi(acc[mf][nf][h * 2], m, n, pc);
        }
      }
    }
}

/* ---- TF32 on sm_90a: wgmma.mma_async (warpgroup tensor cores) ------------
 * mma.sync reaches about a third of the H100/H200's TF32 rate (134 of cuBLAS
 * TF32's 394 TFLOP/s, bench/gemm/h200-run3.txt); the warpgroup instruction is
 * the Hopper path. wgmma's TF32 form takes both operands k-contiguous, the
 * second one (its "B", N rows by k) from shared memory through a descriptor,
 * the first ("A", 64 rows by k) from shared memory or from registers. A with
 * TA = false is k-contiguous, so the block computes the transposed tile:
 * wgmma's N rows are C's m (the A tile, copied as it lies by cp.async into
 * the descriptor's "core matrices", 8 rows x 4 k = 128 contiguous bytes) and
 * its 64 rows are C's n (the B tile, read from the same padded shared tile as
 * the mma.sync path into registers, rounded cvt.rna.tf32). The A operand
 * reaches the tensor cores unrounded (they read its 10 high mantissa bits).
 *
 * Warpgroups: NT/128 of them share the block tile, each N64 slices of 64
 * columns (n) by WNM rows (m); a thread holds N64 * WNM/2 accumulators,
 * element (n, m) of the transposed tile at acc[s][j*4 + r] with n = slice
 * s, row w4*16 + g + (r/2)*8 and m = j*8 + t*2 + r%2 (w4 the warp in its
 * warpgroup, g = lane/4, t = lane%4: the mma fragment layout). */
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define KS_GEMM_WGMMA 1
#else
#define KS_GEMM_WGMMA 0
#endif

template <int BM, int BN, int NT> struct wg_plan {
  static constexpr int NWG = NT / 128;
  /* (m row, 64-column slice) pairs per warpgroup */
  static constexpr int PER = NT % 128 == 0 && NWG > 0 && BN % 64 == 0 ? (BN / 64) * BM / NWG : 0;
  static constexpr int N64 = PER > BM ? PER / BM : 1;
  static constexpr int WNM = PER > BM ? BM : PER;
  static constexpr int MPARTS = WNM > 0 ? BM / WNM : 1;
  static constexpr bool ok = PER > 0 && (PER % BM == 0 || BM % PER == 0) && (WNM == 64 || WNM == 128) &&
                             N64 * WNM <= 128 && MPARTS * (BN / 64 / N64) == NWG;
};

template <class X, class Y> struct same_type { static constexpr bool value = false; };
template <class X> struct same_type<X, X> { static constexpr bool value = true; };

/* The A tile for the descriptor: element (m, k) at
 * (m/8)*(BK*8) + (k/4)*32 + (m%8)*4 + k%4 floats, i.e. 16-byte vector e
 * (row e%8 of its group, k quad (e/8) % (BK/4), group e/(2*BK)) at S + e*4:
 * a warp's 32 copies fill 512 contiguous bytes. */
template <int BM, int BK, int NT>
__device__ __forceinline__ void wg_load_a(const float *A, long long lda, int k0, int m0, int K, int M, bool bVec,
                                          float *S) {
  constexpr int NV = BM * BK / 4;
#pragma unroll
  for (int i = 0; i < (NV + NT - 1) / NT; i++) {
    const int e = (int)threadIdx.x + i * NT;
    if (NV % NT != 0 && e >= NV) break;
    const int m = m0 + (e / (2 * BK)) * 8 + e % 8, k = k0 + ((e / 8) % (BK / 4)) * 4;
    const float *src = A + (long long)m * lda + k;
    float *dst = S + e * 4;
    if (m >= M || k >= K) cp_async16(dst, A, 0);
    else if (bVec && k + 3 < K) cp_async16(dst, src, 16);
    else {
#pragma unroll
      for (int q = 0; q < 4; q++) cp_async4(dst + q, k + q < K ? src + q : A, k + q < K ? 4 : 0);
    }
  }
}

/* Shared-memory matrix descriptor, no swizzle: LBO the bytes between core
 * matrices along k, SBO between groups of 8 rows. */
__device__ __forceinline__ unsigned long long wg_desc(const float *p, unsigned nLbo, unsigned nSbo) {
#if KS_GEMM_WGMMA
  const unsigned a = (unsigned)__cvta_generic_to_shared(p);
  return (unsigned long long)((a & 0x3FFFF) >> 4) | ((unsigned long long)(nLbo >> 4) << 16) |
         ((unsigned long long)(nSbo >> 4) << 32);
#else
  return (void)p, (void)nLbo, (void)nSbo, 0ull;
#endif
}

__device__ __forceinline__ void wg_fence() {
#if KS_GEMM_WGMMA
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#endif
}
__device__ __forceinline__ void wg_commit() {
#if KS_GEMM_WGMMA
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#endif
}
template <int N> __device__ __forceinline__ void wg_wait() {
#if KS_GEMM_WGMMA
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
#endif
}
/* cp.async wrote the tile through the generic proxy; wgmma reads it through the async one. */
__device__ __forceinline__ void wg_proxy_fence() {
#if KS_GEMM_WGMMA
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}
/* Keep the compiler from moving the accumulators across the asynchronous wgmma. */
template <int R> __device__ __forceinline__ void wg_pin(float (&d)[R]) {
#pragma unroll
  for (int i = 0; i < R; i++) asm volatile("" : "+f"(d[i])::"memory");
}
/* The register operands likewise: live until the wgmma that reads them is waited for. */
template <int A, int B> __device__ __forceinline__ void wg_pin_u(unsigned (&u)[A][B][4]) {
#pragma unroll
  for (int i = 0; i < A; i++)
#pragma unroll
    for (int j = 0; j < B; j++)
#pragma unroll
      for (int q = 0; q < 4; q++) asm volatile("" : "+r"(u[i][j][q])::"memory");
}

__device__ __forceinline__ void wg_mma_tf32(float (&d)[32], const unsigned *a, unsigned long long desc) {
#if KS_GEMM_WGMMA
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 {"
               "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
               "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
               "}, {%32, %33, %34, %35}, %36, p, 1, 1;\n}\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                 "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                 "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                 "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc), "r"(1));
#else
  (void)d, (void)a, (void)desc;
#endif
}

__device__ __forceinline__ void wg_mma_tf32(float (&d)[64], const unsigned *a, unsigned long long desc) {
#if KS_GEMM_WGMMA
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 {"
               "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
               "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
               "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
               "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
               "}, {%64, %65, %66, %67}, %68, p, 1, 1;\n}\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                 "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                 "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                 "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                 "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                 "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                 "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                 "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc), "r"(1));
#else
  (void)d, (void)a, (void)desc;
#endif
}

template <int BM, int BN, int BK, int WM, int WN, int STAGES, bool TA, bool TB, class Epi, class Init>
__device__ __forceinline__ void gemm_block_wgmma_tf32(int M, int N, int K, const float *__restrict__ A, long long lda,
                                                      const float *__restrict__ B, long long ldb, float *C,
                                                      long long ldc, const Epi &epi, int mVec, float *smem, int bm,
                                                      int bn, const Init &init) {
  typedef config_tf32<BM, BN, BK, WM, WN, STAGES> cfg;
  typedef wg_plan<BM, BN, cfg::NT> P;
  constexpr int NT = cfg::NT, N64 = P::N64, WNM = P::WNM, R = WNM / 2;
  constexpr int SB = TB ? BK + 4 : BN + 8;
  float *As = smem, *Bs = smem + STAGES * cfg::AS; /* the mma.sync path's carve-up: AS >= BM*BK */
  const int m0 = bm * BM, n0 = bn * BN;
  const int wg = threadIdx.x / 128, w4 = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
  const int g = lane / 4, tq = lane % 4;
  const int wm0 = (wg % P::MPARTS) * WNM, wn0 = (wg / P::MPARTS) * N64 * 64;
  const bool bVecA = mVec & 1, bVecB = mVec & 2;
  typename pick<TB, tile_loader_jmajor<BK, BN, NT>, tile_loader<BK, BN, NT, false, 8>>::type lb;

  /* accumulator acc[s][i]'s column n and row m of C (the fragment layout above) */
  auto n_of = [&](int s, int i) { return n0 + wn0 + s * 64 + w4 * 16 + g + ((i % 4) / 2) * 8; };
  auto m_of = [&](int i) { return m0 + wm0 + (i / 4) * 8 + tq * 2 + i % 2; };
  float acc[N64][R];
#pragma unroll
  for (int s = 0; s < N64; s++)
#pragma unroll
    for (int i = 0; i < R; i++) {
      const int n = n_of(s, i), m = m_of(i);
      acc[s][i] = m < M && n < N ? init(m, n, C + (long long)m * ldc + n) : 0.0f;
    }

  /* The tensor cores run tile t while tile t+1's fragments are read: tile
   * t-1's wgmma is waited for only after tile t's is issued (wait_group 1),
   * so its fragments (frA / frB, alternating) stay live until then, and the
   * loads run D = STAGES-2 tiles ahead, into the stage of tile t-2, which
   * every warpgroup has finished before the barrier. ptxas still serializes
   * the wgmma of a tile (its C7513 remark: fragments written while a wgmma
   * is in flight); on the H100 its best tile at 4096 still ran 1.12x
   * faster than waiting for each tile (wait_group 0, no remark) and 1.2x
   * faster than both operands through descriptors with the B tile
   * transposed by 4-byte copies (bench/results/2026-12-06e-h100). */
  constexpr int D = STAGES - 2;
  const int nT = (K + BK - 1) / BK;
#pragma unroll
  for (int s = 0; s < D; s++) {
    if (s < nT) {
      wg_load_a<BM, BK, NT>(A, lda, s * BK, m0, K, M, bVecA, As + s * cfg::AS);
      lb.load(B, ldb, s * BK, n0, K, N, bVecB, Bs + s * cfg::BS);
      lb.store(Bs + s * cfg::BS);
    }
    cp_async_commit();
  }

  unsigned frA[BK / 8][N64][4], frB[BK / 8][N64][4];
  auto tile = [&](int t, unsigned (&fr)[BK / 8][N64][4], unsigned (&prev)[BK / 8][N64][4]) {
    cp_async_wait<D - 1>();
    wg_proxy_fence();
    __syncthreads();
    const int tn = t + D, sn = tn % STAGES;
    const bool bMore = tn < nT;
    if (bMore) {
      wg_load_a<BM, BK, NT>(A, lda, tn * BK, m0, K, M, bVecA, As + sn * cfg::AS);
      lb.load(B, ldb, tn * BK, n0, K, N, bVecB, Bs + sn * cfg::BS);
    }
    cp_async_commit();
    const float *as = As + (t % STAGES) * cfg::AS, *bs = Bs + (t % STAGES) * cfg::BS;
#pragma unroll
    for (int k8 = 0; k8 < BK / 8; k8++)
#pragma unroll
      for (int s = 0; s < N64; s++) {
        const int n = wn0 + s * 64 + w4 * 16 + g, k = k8 * 8 + tq;
        fr[k8][s][0] = to_tf32(tf32_b_at<TB, SB>(bs, k, n));
        fr[k8][s][1] = to_tf32(tf32_b_at<TB, SB>(bs, k, n + 8));
        fr[k8][s][2] = to_tf32(tf32_b_at<TB, SB>(bs, k + 4, n));
        fr[k8][s][3] = to_tf32(tf32_b_at<TB, SB>(bs, k + 4, n + 8));
      }
    wg_fence();
#pragma unroll
    for (int k8 = 0; k8 < BK / 8; k8++) {
      const unsigned long long desc = wg_desc(as + (wm0 / 8) * (BK * 8) + k8 * 64, 128, BK * 32);
#pragma unroll
      for (int s = 0; s < N64; s++) wg_mma_tf32(acc[s], fr[k8][s], desc);
    }
    wg_commit();
    wg_wait<1>();
    wg_pin_u(prev); /* tile t-1's fragments were read by its wgmma until here */
    if (bMore) lb.store(Bs + sn * cfg::BS);
  };
  for (int t = 0; t < nT; t += 2) {
    tile(t, frA, frB);
    if (t + 1 < nT) tile(t + 1, frB, frA);
  }
  wg_wait<0>();
  wg_pin_u(frA);
  wg_pin_u(frB);
#pragma unroll
  for (int s = 0; s < N64; s++) wg_pin(acc[s]);
  cp_async_wait<0>();

  /* Epilogue: a warp's store for one register covers 4 rows m x 8 columns n, whole 32-byte sectors. */
#pragma unroll
  for (int s = 0; s < N64; s++)
#pragma unroll
    for (int i = 0; i < R; i++) {
      const int n = n_of(s, i), m = m_of(i);
      if (m < M && n < N) {
        float *pc = C + (long long)m * ldc + n;
        *pc = epi(acc[s][i], m, n, pc);
      }
    }
}

/* The TF32 block: wgmma where the build targets sm_90a and the shape fits
 * (A k-contiguous, unscaled, config::NT a whole number of warpgroups that
 * wg_plan can lay out), else mma.sync (sm_80+). Same contract either way. */
template <bool W> struct wg_tag {};
template <int BM, int BN, int BK, int WM, int WN, int STAGES, bool TA, bool TB, class Epi, class Init, class Scale>
__device__ __forceinline__ void gemm_block_tf32_on(wg_tag<true>, int M, int N, int K, const float *__restrict__ A,
                                                   long long lda, const float *__restrict__ B, long long ldb,
                                                   float *C, long long ldc, const Epi &epi, int mVec, float *smem,
                                                   int bm, int bn, const Init &init, const Scale &) {
  gemm_block_wgmma_tf32<BM, BN, BK, WM, WN, STAGES, TA, TB, Epi, Init>(M, N, K, A, lda, B, ldb, C, ldc, epi, mVec,
                                                                       smem, bm, bn, init);
}
template <int BM, int BN, int BK, int WM, int WN, int STAGES, bool TA, bool TB, class Epi, class Init, class Scale>
__device__ __forceinline__ void gemm_block_tf32_on(wg_tag<false>, int M, int N, int K, const float *__restrict__ A,
                                                   long long lda, const float *__restrict__ B, long long ldb,
                                                   float *C, long long ldc, const Epi &epi, int mVec, float *smem,
                                                   int bm, int bn, const Init &init, const Scale &scaleA) {
  gemm_block_mma_tf32<BM, BN, BK, WM, WN, STAGES, TA, TB, Epi, Init, Scale>(M, N, K, A, lda, B, ldb, C, ldc, epi,
                                                                            mVec, smem, bm, bn, init, scaleA);
}

template <int BM, int BN, int BK, int WM, int WN, int STAGES, bool TA, bool TB, class Epi, class Init = init_zero,
          class Scale = scale_none>
__device__ __forceinline__ void gemm_block_tf32(int M, int N, int K, const float *__restrict__ A, long long lda,
                                                const float *__restrict__ B, long long ldb, float *C, long long ldc,
                                                const Epi &epi, int mVec, float *smem, int bm, int bn,
                                                const Init &init = Init(), const Scale &scaleA = Scale()) {
  constexpr bool W = KS_GEMM_WGMMA && !TA && STAGES >= 3 && same_type<Scale, scale_none>::value &&
                     wg_plan<BM, BN, config_tf32<BM, BN, BK, WM, WN, STAGES>::NT>::ok;
  gemm_block_tf32_on<BM, BN, BK, WM, WN, STAGES, TA, TB, Epi, Init, Scale>(wg_tag<W>(), M, N, K, A, lda, B, ldb, C,
                                                                           ldc, epi, mVec, smem, bm, bn, init, scaleA);
}

/* Block order: tiles walked in groups of G block rows (all of a group's
 * columns before the next group), so that the blocks resident together
 * share A rows and B columns in L2. G <= 1: row-major order. */
__device__ __forceinline__ void tile_order(int G, int &bm, int &bn) {
  const int nBn = (int)gridDim.x, nBm = (int)gridDim.y;
  if (G <= 1) {
    bm = (int)blockIdx.y, bn = (int)blockIdx.x;
    return;
  }
  const int id = (int)(blockIdx.y * gridDim.x + blockIdx.x), per = G * nBn, first = (id / per) * G;
  const int gs = nBm - first < G ? nBm - first : G;
  bm = first + (id % per) % gs;
  bn = (id % per) / gs;
}

/* Packed operands (the rule's pack=on): an operand contiguous along k (A as
 * M x K, B as N x K) is copied before the kernel into a workspace, transposed
 * (A as K x M, leading dimension M; B as K x N, leading dimension N), so
 * that both tiles load with cp.async and no transpose runs through the
 * registers inside the k-loop (measured 5-6% faster at 2048-8192, H200,
 * bench/gemm/h200-run4.txt: 128x128x16_w32x64_t8x8_s2 TF against the best
 * NN). The values are copied, not changed: the sums stay bitwise. B's copy
 * starts at pack_offset(bPackA, M, K) floats (a multiple of 64: 256 bytes). */
__host__ __device__ __forceinline__ long long pack_offset(bool bPackA, int M, int K) {
  return bPackA ? ((long long)M * K + 63) / 64 * 64 : 0;
}

#ifndef KS_GEMM_DEVICE_ONLY
/* The kernel: grid (ceil(N/BN), ceil(M/BM), batch), block config::NT threads,
 * config::SMEM bytes of dynamic shared memory. sA, sB, sC: batch strides in
 * elements; G: the block order (tile_order). */
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int STAGES, bool TA, bool TB, class Epi>
__global__ void __launch_bounds__(config<BM, BN, BK, WM, WN, TM, TN, STAGES>::NT,
                                  config<BM, BN, BK, WM, WN, TM, TN, STAGES>::MINB)
    gemm_kernel(int M, int N, int K, const float *__restrict__ A, long long lda, const float *__restrict__ B,
                long long ldb, float *C, long long ldc, Epi epi, int mVec, long long sA, long long sB,
                long long sC, int G) {
  extern __shared__ __align__(16) float ks_smem[];
  A += (long long)blockIdx.z * sA;
  B += (long long)blockIdx.z * sB;
  C += (long long)blockIdx.z * sC;
  int bm, bn;
  tile_order(G, bm, bn);
  gemm_block<BM, BN, BK, WM, WN, TM, TN, STAGES, TA, TB, Epi>(M, N, K, A, lda, B, ldb, C, ldc, epi, mVec, ks_smem,
                                                              bm, bn);
}

template <int BM, int BN, int BK, int WM, int WN, int STAGES, bool TA, bool TB, class Epi>
__global__ void __launch_bounds__(config_tf32<BM, BN, BK, WM, WN, STAGES>::NT,
                                  config_tf32<BM, BN, BK, WM, WN, STAGES>::MINB)
    gemm_kernel_tf32(int M, int N, int K, const float *__restrict__ A, long long lda, const float *__restrict__ B,
                     long long ldb, float *C, long long ldc, Epi epi, int mVec, long long sA, long long sB,
                     long long sC, int G) {
  extern __shared__ __align__(16) float ks_smem[];
  A += (long long)blockIdx.z * sA;
  B += (long long)blockIdx.z * sB;
  C += (long long)blockIdx.z * sC;
  int bm, bn;
  tile_order(G, bm, bn);
  gemm_block_tf32<BM, BN, BK, WM, WN, STAGES, TA, TB, Epi>(M, N, K, A, lda, B, ldb, C, ldc, epi, mVec, ks_smem, bm,
                                                           bn);
}

/* Opt fn in to nSmem bytes of dynamic shared memory (once per instantiation:
 * the caller keeps the flag). */
template <class Fn> static cudaError_t opt_in_smem(Fn fn, size_t nSmem, bool &bDone) {
  if (bDone) return cudaSuccess;
  cudaError_t e = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)nSmem);
  if (e == cudaSuccess) bDone = true;
  return e;
}

/* Launch gemm_kernel on stream: opts in to SMEM bytes of dynamic shared
 * memory (once per instantiation) and picks the vector paths from the
 * alignment of A, B, C and their leading dimensions. batch > 1: blockIdx.z
 * walks the batch with strides sA, sB, sC. G: block order (tile_order). */
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int STAGES, bool TA, bool TB, class Epi>
cudaError_t gemm(int M, int N, int K, const float *A, long long lda, const float *B, long long ldb, float *C,
                 long long ldc, Epi epi, cudaStream_t stream = 0, int batch = 1, long long sA = 0, long long sB = 0,
                 long long sC = 0, int G = 1) {
  typedef config<BM, BN, BK, WM, WN, TM, TN, STAGES> cfg;
  if (M <= 0 || N <= 0 || batch <= 0) return cudaSuccess;
  auto fn = gemm_kernel<BM, BN, BK, WM, WN, TM, TN, STAGES, TA, TB, Epi>;
  static bool bAttr = false; /* per instantiation */
  cudaError_t e = opt_in_smem(fn, cfg::SMEM, bAttr);
  if (e != cudaSuccess) return e;
  int mVec = vec_mask(A, lda, B, ldb, C, ldc, sA, sB, sC);
  dim3 grid((unsigned)((N + BN - 1) / BN), (unsigned)((M + BM - 1) / BM), (unsigned)batch);
  fn<<<grid, cfg::NT, cfg::SMEM, stream>>>(M, N, K, A, lda, B, ldb, C, ldc, epi, mVec, sA, sB, sC, G);
  return cudaGetLastError();
}

/* The TF32 launcher (sm_80+): as gemm, on gemm_kernel_tf32. */
template <int BM, int BN, int BK, int WM, int WN, int STAGES, bool TA, bool TB, class Epi>
cudaError_t gemm_tf32(int M, int N, int K, const float *A, long long lda, const float *B, long long ldb, float *C,
                      long long ldc, Epi epi, cudaStream_t stream = 0, int batch = 1, long long sA = 0,
                      long long sB = 0, long long sC = 0, int G = 1) {
  typedef config_tf32<BM, BN, BK, WM, WN, STAGES> cfg;
  if (M <= 0 || N <= 0 || batch <= 0) return cudaSuccess;
  auto fn = gemm_kernel_tf32<BM, BN, BK, WM, WN, STAGES, TA, TB, Epi>;
  static bool bAttr = false; /* per instantiation */
  cudaError_t e = opt_in_smem(fn, cfg::SMEM, bAttr);
  if (e != cudaSuccess) return e;
  int mVec = vec_mask(A, lda, B, ldb, C, ldc, sA, sB, sC);
  dim3 grid((unsigned)((N + BN - 1) / BN), (unsigned)((M + BM - 1) / BM), (unsigned)batch);
  fn<<<grid, cfg::NT, cfg::SMEM, stream>>>(M, N, K, A, lda, B, ldb, C, ldc, epi, mVec, sA, sB, sC, G);
  return cudaGetLastError();
}

/* S (R x Cc, S[r*ld + c]) transposed into D (Cc x R, D[c*R + r]) through a
 * T x (T+1) shared tile (both sides coalesced, no bank conflict); blocks
 * T x 8. A template for one definition per program (the header may be
 * copied into several files). */
template <int T>
__global__ void __launch_bounds__(T * 8) pack_transpose(const float *__restrict__ S, long long ld, int R, int Cc,
                                                       float *__restrict__ D) {
  __shared__ float t[T][T + 1];
  const long long c0 = (long long)blockIdx.x * T, r0 = (long long)blockIdx.y * T;
  for (int i = (int)threadIdx.y; i < T; i += 8) {
    const long long r = r0 + i, c = c0 + threadIdx.x;
    if (r < R && c < Cc) t[i][threadIdx.x] = S[r * ld + c];
  }
  __syncthreads();
  for (int i = (int)threadIdx.y; i < T; i += 8) {
    const long long c = c0 + i, r = r0 + threadIdx.x;
    if (c < Cc && r < R) D[c * R + r] = t[threadIdx.x][i];
  }
}

/* Keep the default memory pool from unmapping a workspace of nBytes at each
 * synchronization: its release threshold raised (never lowered) to twice
 * that plus 64 MiB, a margin for the pool's own rounding (a threshold of
 * exactly nBytes cost the suite's gemm_bias_relu about 0.25 ms a call, the
 * 48 MiB remapped each time). Once per device and size: the per-call host
 * work stays one cudaGetDevice. */
static inline cudaError_t pack_keep_pool(size_t nBytes) {
  static size_t anKept[16];
  int dev = 0;
  cudaMemPool_t pool;
  cudaError_t e = cudaGetDevice(&dev);
  if (e != cudaSuccess) return e;
  if (dev >= 0 && dev < 16 && anKept[dev] >= nBytes) return cudaSuccess;
  const uint64_t want = (uint64_t)nBytes * 2 + ((uint64_t)64 << 20);
  uint64_t thr = 0;
  e = cudaDeviceGetDefaultMemPool(&pool, dev);
  if (e == cudaSuccess) e = cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &thr);
  if (e == cudaSuccess && thr < want) {
    thr = want;
    e = cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &thr);
  }
  if (e == cudaSuccess && dev >= 0 && dev < 16) anKept[dev] = nBytes;
  return e;
}

static inline cudaError_t pack_launch(const float *S, long long ld, int R, int Cc, float *D, cudaStream_t st) {
  const dim3 grid((unsigned)((Cc + 31) / 32), (unsigned)((R + 31) / 32)), block(32, 8);
  void *args[] = {(void *)&S, (void *)&ld, (void *)&R, (void *)&Cc, (void *)&D};
  return cudaLaunchKernel((const void *)pack_transpose<32>, grid, block, args, 0, st);
}

/* The workspace of the packed path on stream st, its copies enqueued: A
 * (PA) at 0, B (PB) at pack_offset(PA, M, K); or nullptr when it cannot be
 * had (no memory, sizes past a grid's reach, a failed launch), the kernel
 * then taking its unpacked path. An error of ours is cleared, one from
 * before is left for the caller. Give it back with pack_release. */
template <bool PA, bool PB>
float *pack(const float *A, long long lda, const float *B, long long ldb, int M, int N, int K, cudaStream_t st) {
  if (M <= 0 || N <= 0 || K <= 0 || (PA && (M + 31) / 32 > 65535) || (PB && (N + 31) / 32 > 65535)) return nullptr;
  const size_t nA = PA ? (size_t)pack_offset(true, M, K) : 0, nB = PB ? (size_t)N * K : 0;
  const size_t nBytes = (nA + nB) * sizeof(float);
  const cudaError_t e0 = cudaPeekAtLastError();
  float *w = nullptr;
  bool ok = pack_keep_pool(nBytes) == cudaSuccess && cudaMallocAsync((void **)&w, nBytes, st) == cudaSuccess;
  if (ok && PA) ok = pack_launch(A, lda, M, K, w, st) == cudaSuccess;
  if (ok && PB) ok = pack_launch(B, ldb, N, K, w + nA, st) == cudaSuccess;
  if (!ok) {
    if (w) (void)cudaFreeAsync(w, st);
    if (e0 == cudaSuccess) (void)cudaGetLastError();
    return nullptr;
  }
  return w;
}

/* The workspace back to the pool, after the kernel on the same stream. */
static inline void pack_release(float *w, cudaStream_t st) {
  if (w) (void)cudaFreeAsync(w, st);
}

#endif /* KS_GEMM_DEVICE_ONLY */

} /* namespace ks_gemm */

#endif
