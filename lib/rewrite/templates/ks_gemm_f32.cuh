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
 * shared reads are 16-byte vectors to consecutive or identical addresses. Both
 * operands sit in shared memory k-major ([k][m], [k][n], rows padded by 16
 * bytes): the inner product reads of A and B are ld.shared.v4 with no bank
 * conflict, and an operand that is contiguous along k in global memory (A
 * with TA = false, B with TB = true) is transposed on its way in, through
 * registers. STAGES >= 2 shared buffers: operands contiguous along m / n are
 * copied with cp.async (sm_80+, STAGES-1 tiles in flight), the others through
 * registers loaded before and stored after the current tile's products (a
 * register-staged double buffer; below sm_80 every operand goes that way).
 * Global loads are 16-byte vectors when the leading dimension is a multiple of
 * 4 and the pointer 16-byte aligned (checked by the launcher), else scalar;
 * tiles past M, N or K are predicated and zero-filled.
 *
 * Bitwise contract: every output's k sum is sequential, k = 0, 1, ..., K-1,
 * `acc += a * b` starting from 0.0f, as in the naive one-thread-per-output
 * kernel: with nvcc's default -fmad=true both compile to the same chain of
 * fma.rn.f32 (under -fmad=false, to the same mul/add pairs). The tiles'
 * zero padding past M and N only reaches outputs that are not stored, and no
 * product past K is summed (the last k-tile runs only its k < K). The
 * accumulators start at init(m, n, &C[m][n]) (0, or C for a kernel that
 * accumulates into C); the epilogue is the caller's functor, applied once per
 * output. */
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
template <int BK, int L, int NT, bool bKContig> struct tile_loader {
  static constexpr int LP = L + 4;           /* padded row of the shared tile */
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
    if (bAsync) return;
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

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int STAGES> struct config {
  static constexpr int NWM = BM / WM, NWN = BN / WN;   /* warps per block */
  static constexpr int NT = NWM * NWN * 32;            /* threads per block */
  static constexpr int LR = WM / TM, LC = WN / TN;     /* lanes per warp, rows x cols */
  static constexpr int AS = BK * (BM + 4), BS = BK * (BN + 4); /* floats per stage */
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
 * block must call it (it synchronizes the block). */
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int STAGES, bool TA, bool TB, class Epi,
          class Init = init_zero>
__device__ __forceinline__ void gemm_block(int M, int N, int K, const float *__restrict__ A, long long lda,
                                           const float *__restrict__ B, long long ldb, float *C, long long ldc,
                                           const Epi &epi, int mVec, float *smem, int bm, int bn,
                                           const Init &init = Init()) {
  typedef config<BM, BN, BK, WM, WN, TM, TN, STAGES> cfg;
  constexpr int NT = cfg::NT, LR = cfg::LR, LC = cfg::LC;
  float *As = smem, *Bs = smem + STAGES * cfg::AS;
  const int m0 = bm * BM, n0 = bn * BN;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int wm0 = (warp / cfg::NWN) * WM, wn0 = (warp % cfg::NWN) * WN;
  const int lr = lane / LC, lc = lane % LC;
  const bool bVecA = mVec & 1, bVecB = mVec & 2, bVecC = mVec & 4;

  tile_loader<BK, BM, NT, !TA> la; /* A: (k, m); k-contiguous unless TA */
  tile_loader<BK, BN, NT, TB> lb;  /* B: (k, n); k-contiguous when TB */

  /* acc[g*4 + i][h*4 + j]: row m0 + wm0 + g*LR*4 + lr*4 + i, column n0 + wn0 + h*LC*4 + lc*4 + j */
  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; i++)
#pragma unroll
    for (int j = 0; j < TN; j++) {
      const int m = m0 + wm0 + (i / 4) * LR * 4 + lr * 4 + i % 4, n = n0 + wn0 + (j / 4) * LC * 4 + lc * 4 + j % 4;
      acc[i][j] = m < M && n < N ? init(m, n, C + (long long)m * ldc + n) : 0.0f;
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

    const float *as = As + (t % STAGES) * cfg::AS + wm0 + lr * 4;
    const float *bs = Bs + (t % STAGES) * cfg::BS + wn0 + lc * 4;
    /* k = t*BK + kk: the products of one k, every output of the thread */
    auto step = [&](int kk) {
      float a[TM], b[TN];
#pragma unroll
      for (int g = 0; g < TM / 4; g++)
        *reinterpret_cast<float4 *>(&a[g * 4]) =
            *reinterpret_cast<const float4 *>(as + kk * (BM + 4) + g * LR * 4);
#pragma unroll
      for (int g = 0; g < TN / 4; g++)
        *reinterpret_cast<float4 *>(&b[g * 4]) =
            *reinterpret_cast<const float4 *>(bs + kk * (BN + 4) + g * LC * 4);
#pragma unroll
      for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++) acc[i][j] += a[i] * b[j];
    };
    const int nK = K - t * BK; /* k left, from this tile on */
    if (nK >= BK) {
#pragma unroll
      for (int kk = 0; kk < BK; kk++) step(kk);
    } else { /* the last, partial tile: no product past K (no padding in the sums) */
#pragma unroll
      for (int kk = 0; kk < BK; kk++)
        if (kk < nK) step(kk);
    }

    if (bMore) {
      la.store(As + sn * cfg::AS);
      lb.store(Bs + sn * cfg::BS);
    }
  }
  cp_async_wait<0>();

  /* Epilogue: rows m0 + wm0 + g*LR*4 + lr*4 + i, columns n0 + wn0 + h*LC*4 + lc*4 + j. */
#pragma unroll
  for (int g = 0; g < TM / 4; g++)
#pragma unroll
    for (int i = 0; i < 4; i++) {
      const int m = m0 + wm0 + g * LR * 4 + lr * 4 + i;
      if (m >= M) continue;
#pragma unroll
      for (int h = 0; h < TN / 4; h++) {
        const int n = n0 + wn0 + h * LC * 4 + lc * 4;
        float *pc = C + (long long)m * ldc + n;
        float v[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
        for (int j = 0; j < 4; j++)
          if (n + j < N) v[j] = epi(acc[g * 4 + i][h * 4 + j], m, n + j, pc + j);
        if (bVecC && n + 3 < N) *reinterpret_cast<float4 *>(pc) = make_float4(v[0], v[1], v[2], v[3]);
        else
#pragma unroll
          for (int j = 0; j < 4; j++)
            if (n + j < N) pc[j] = v[j];
      }
    }
}

#ifndef KS_GEMM_DEVICE_ONLY
/* The kernel: grid (ceil(N/BN), ceil(M/BM), batch), block config::NT threads,
 * config::SMEM bytes of dynamic shared memory. sA, sB, sC: batch strides in
 * elements. */
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int STAGES, bool TA, bool TB, class Epi>
__global__ void __launch_bounds__(config<BM, BN, BK, WM, WN, TM, TN, STAGES>::NT,
                                  config<BM, BN, BK, WM, WN, TM, TN, STAGES>::MINB)
    gemm_kernel(int M, int N, int K, const float *__restrict__ A, long long lda, const float *__restrict__ B,
                long long ldb, float *C, long long ldc, Epi epi, int mVec, long long sA, long long sB,
                long long sC) {
  extern __shared__ __align__(16) float ks_smem[];
  A += (long long)blockIdx.z * sA;
  B += (long long)blockIdx.z * sB;
  C += (long long)blockIdx.z * sC;
  gemm_block<BM, BN, BK, WM, WN, TM, TN, STAGES, TA, TB, Epi>(M, N, K, A, lda, B, ldb, C, ldc, epi, mVec, ks_smem,
                                                              (int)blockIdx.y, (int)blockIdx.x);
}

/* Launch gemm_kernel on stream: opts in to SMEM bytes of dynamic shared
 * memory (once per instantiation) and picks the vector paths from the
 * alignment of A, B, C and their leading dimensions. batch > 1: blockIdx.z
 * walks the batch with strides sA, sB, sC. */
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int STAGES, bool TA, bool TB, class Epi>
cudaError_t gemm(int M, int N, int K, const float *A, long long lda, const float *B, long long ldb, float *C,
                 long long ldc, Epi epi, cudaStream_t stream = 0, int batch = 1, long long sA = 0, long long sB = 0,
                 long long sC = 0) {
  typedef config<BM, BN, BK, WM, WN, TM, TN, STAGES> cfg;
  if (M <= 0 || N <= 0 || batch <= 0) return cudaSuccess;
  auto fn = gemm_kernel<BM, BN, BK, WM, WN, TM, TN, STAGES, TA, TB, Epi>;
  static bool bAttr = false; /* per instantiation */
  if (!bAttr) {
    cudaError_t e = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)cfg::SMEM);
    if (e != cudaSuccess) return e;
    bAttr = true;
  }
  int mVec = vec_mask(A, lda, B, ldb, C, ldc, sA, sB, sC);
  dim3 grid((unsigned)((N + BN - 1) / BN), (unsigned)((M + BM - 1) / BM), (unsigned)batch);
  fn<<<grid, cfg::NT, cfg::SMEM, stream>>>(M, N, K, A, lda, B, ldb, C, ldc, epi, mVec, sA, sB, sC);
  return cudaGetLastError();
}

#endif /* KS_GEMM_DEVICE_ONLY */

} /* namespace ks_gemm */

#endif
