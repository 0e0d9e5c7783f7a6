/* gemm_sweep.cu — standalone GPU bench of the shipped FP32 GEMM template
 * (lib/rewrite/templates/ks_gemm_f32.cuh): a sweep of instantiations, each
 * checked on the GPU (bitwise against a naive one-thread-per-output kernel
 * summing k in order, and within a tolerance against cublasSgemm) and timed
 * against cublasSgemm (FP32, default math: no TF32; the tf32_ variants on
 * tensor cores against cublasSgemm under CUBLAS_TF32_TENSOR_OP_MATH, within
 * a tolerance only) in the same run: CUDA
 * events around each launch, the median of --reps launches after 3 warm-ups.
 * Built with nvcc by bench/gemm/build.sh; prints to stdout only.
 *
 *   gemm_sweep [--sizes 1024,2048,4096,4000,8192x4096x1024] [--reps N] [--only SUB[,SUB...]]
 *   (a size S is M = N = K = S; MxNxK row-major, C M x N; --only: the variants
 *   whose name holds any of the substrings)
 *
 * Variants named rowlanes_...: the same template built with KS_GEMM_LANE_PAIRS
 * = 0 (lanes row-major in the warp tile: the template before the paired
 * lanes); pf_...: KS_GEMM_FRAG_PREFETCH = 1 (the next k-step's shared reads
 * during the current products); for an A/B in one run (the defaults, lane
 * pairs on and the prefetch off, have no prefix); ..._relu: the bias + ReLU epilogue (epi_bias_relu)
 * instead of alpha/beta, checked bitwise against the naive kernel with the
 * same epilogue (its ratio is against cuBLAS's product alone).
 *
 * Exit status: 0 all correct, 1 a mismatch, 2 usage or CUDA/cuBLAS error. */
/* the template three times: ks_gemm (the defaults) and, renamed by the
 * preprocessor, ks_gemm_rowlanes (no lane pairs) and ks_gemm_pf (the
 * prefetch) */
#define KS_GEMM_LANE_PAIRS 0
#define ks_gemm ks_gemm_rowlanes
#include "../../lib/rewrite/templates/ks_gemm_f32.cuh"
#undef ks_gemm
#undef KS_GEMM_F32_CUH
#undef KS_GEMM_LANE_PAIRS
#define KS_GEMM_FRAG_PREFETCH 1
#define ks_gemm ks_gemm_pf
#include "../../lib/rewrite/templates/ks_gemm_f32.cuh"
#undef ks_gemm
#undef KS_GEMM_F32_CUH
#undef KS_GEMM_FRAG_PREFETCH
#include "../../lib/rewrite/templates/ks_gemm_f32.cuh"

#include <algorithm>
#include <cublas_v2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#define CK(x)                                                                                     \
  do {                                                                                            \
    cudaError_t e_ = (x);                                                                         \
    if (e_ != cudaSuccess) {                                                                      \
      printf("CUDA error %s at %s:%d: %s\n", cudaGetErrorString(e_), __FILE__, __LINE__, #x);     \
      exit(2);                                                                                    \
    }                                                                                             \
  } while (0)
#define CB(x)                                                                                     \
  do {                                                                                            \
    cublasStatus_t s_ = (x);                                                                      \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                            \
      printf("cuBLAS error %d at %s:%d: %s\n", (int)s_, __FILE__, __LINE__, #x);                  \
      exit(2);                                                                                    \
    }                                                                                             \
  } while (0)

/* The reference: one thread per output, k summed in order (what the naive
 * kernels the rule rewrites compute). */
template <bool TA, bool TB, class Epi>
__global__ void naive(int M, int N, int K, const float *A, long long lda, const float *B, long long ldb, float *C,
                      long long ldc, Epi epi) {
  int n = blockIdx.x * blockDim.x + threadIdx.x, m = blockIdx.y * blockDim.y + threadIdx.y;
  if (m >= M || n >= N) return;
  float acc = 0.0f;
  for (int k = 0; k < K; k++) acc += (TA ? A[k * lda + m] : A[m * lda + k]) * (TB ? B[n * ldb + k] : B[k * ldb + n]);
  C[m * ldc + n] = epi(acc, m, n, &C[m * ldc + n]);
}

template <bool TA, bool TB, class Epi>
static void run_naive(int M, int N, int K, const float *A, long long lda, const float *B, long long ldb, float *C,
                      long long ldc, Epi epi) {
  dim3 b(32, 8), g((N + 31) / 32, (M + 7) / 8);
  naive<TA, TB, Epi><<<g, b>>>(M, N, K, A, lda, B, ldb, C, ldc, epi);
  CK(cudaGetLastError());
}

typedef cudaError_t (*launch_fn)(int M, int N, int K, const float *A, long long lda, const float *B, long long ldb,
                                 float *C, long long ldc, ks_gemm::epi_linear epi);

struct variant {
  const char *zName;
  bool bTA, bTB;
  launch_fn fn;
  int nSmem, nThreads;
  bool bTf32;  /* tensor cores, TF32: not bitwise, timed against cuBLAS TF32 */
  bool bRelu; /* epi_bias_relu on g_pBias (the epi_linear argument unused) */
};

/* The bias of the _relu variants, N floats (device). */
static const float *g_pBias;

#define V(BM, BN, BK, WM, WN, TM, TN, S, TA, TB, G)                                                               \
  {#BM "x" #BN "x" #BK "_w" #WM "x" #WN "_t" #TM "x" #TN "_s" #S "_g" #G "_" #TA #TB, TA, TB,                     \
   [](int M, int N, int K, const float *A, long long lda, const float *B, long long ldb, float *C, long long ldc,  \
      ks_gemm::epi_linear e) {                                                                                    \
     return ks_gemm::gemm<BM, BN, BK, WM, WN, TM, TN, S, TA, TB>(M, N, K, A, lda, B, ldb, C, ldc, e, 0, 1, 0, 0,  \
                                                                 0, G);                                           \
   },                                                                                                             \
   (int)ks_gemm::config<BM, BN, BK, WM, WN, TM, TN, S>::SMEM, ks_gemm::config<BM, BN, BK, WM, WN, TM, TN, S>::NT, \
   false, false}
/* the same configuration in the template of namespace NS (ks_gemm_rowlanes,
 * ks_gemm_pf), the name prefixed with PRE */
#define VNS(NS, PRE, BM, BN, BK, WM, WN, TM, TN, S, TA, TB, G)                                                    \
  {PRE #BM "x" #BN "x" #BK "_w" #WM "x" #WN "_t" #TM "x" #TN "_s" #S "_g" #G "_" #TA #TB, TA, TB,                 \
   [](int M, int N, int K, const float *A, long long lda, const float *B, long long ldb, float *C, long long ldc,  \
      ks_gemm::epi_linear e) {                                                                                    \
     return NS::gemm<BM, BN, BK, WM, WN, TM, TN, S, TA, TB>(M, N, K, A, lda, B, ldb, C, ldc,                      \
                                                            NS::epi_linear{e.alpha, e.beta}, 0, 1, 0, 0, 0, G);   \
   },                                                                                                             \
   (int)ks_gemm::config<BM, BN, BK, WM, WN, TM, TN, S>::SMEM, ks_gemm::config<BM, BN, BK, WM, WN, TM, TN, S>::NT, \
   false, false}
#define VR(...) VNS(ks_gemm_rowlanes, "rowlanes_", __VA_ARGS__)
#define VP(...) VNS(ks_gemm_pf, "pf_", __VA_ARGS__)
/* bias + ReLU epilogue */
#define VE(BM, BN, BK, WM, WN, TM, TN, S, TA, TB, G)                                                              \
  {#BM "x" #BN "x" #BK "_w" #WM "x" #WN "_t" #TM "x" #TN "_s" #S "_g" #G "_" #TA #TB "_relu", TA, TB,             \
   [](int M, int N, int K, const float *A, long long lda, const float *B, long long ldb, float *C, long long ldc,  \
      ks_gemm::epi_linear) {                                                                                      \
     return ks_gemm::gemm<BM, BN, BK, WM, WN, TM, TN, S, TA, TB>(M, N, K, A, lda, B, ldb, C, ldc,                 \
                                                                 ks_gemm::epi_bias_relu{g_pBias}, 0, 1, 0, 0, 0, G); \
   },                                                                                                             \
   (int)ks_gemm::config<BM, BN, BK, WM, WN, TM, TN, S>::SMEM, ks_gemm::config<BM, BN, BK, WM, WN, TM, TN, S>::NT, \
   false, true}
#define VT(BM, BN, BK, WM, WN, S, TA, TB, G)                                                                      \
  {"tf32_" #BM "x" #BN "x" #BK "_w" #WM "x" #WN "_s" #S "_g" #G "_" #TA #TB, TA, TB,                              \
   [](int M, int N, int K, const float *A, long long lda, const float *B, long long ldb, float *C, long long ldc,  \
      ks_gemm::epi_linear e) {                                                                                    \
     return ks_gemm::gemm_tf32<BM, BN, BK, WM, WN, S, TA, TB>(M, N, K, A, lda, B, ldb, C, ldc, e, 0, 1, 0, 0, 0,  \
                                                              G);                                                 \
   },                                                                                                             \
   (int)ks_gemm::config_tf32<BM, BN, BK, WM, WN, S>::SMEM, ks_gemm::config_tf32<BM, BN, BK, WM, WN, S>::NT, true, \
   false}

#define F false
#define T true
static const variant aVar[] = {
    /* NN, the layout of the suite's sgemm: A m-major in shared memory (cp.async) */
    V(128, 128, 16, 64, 32, 8, 8, 2, F, F, 1),
    V(128, 128, 16, 64, 32, 8, 8, 2, F, F, 8),
    V(128, 128, 16, 32, 64, 8, 8, 2, F, F, 1),
    V(128, 128, 16, 32, 64, 8, 8, 2, F, F, 8),
    V(128, 128, 16, 64, 32, 8, 8, 3, F, F, 1),
    V(128, 128, 16, 64, 32, 8, 8, 3, F, F, 8),
    V(128, 128, 16, 32, 64, 8, 8, 3, F, F, 8),
    V(128, 128, 16, 64, 32, 8, 8, 4, F, F, 8),
    V(128, 128, 8, 64, 32, 8, 8, 3, F, F, 8),
    V(128, 128, 8, 64, 32, 8, 8, 4, F, F, 8),
    V(128, 128, 32, 64, 32, 8, 8, 2, F, F, 8),
    V(128, 128, 32, 64, 32, 8, 8, 3, F, F, 8),
    V(128, 256, 16, 64, 64, 8, 16, 2, F, F, 8),
    V(128, 256, 16, 64, 64, 8, 16, 3, F, F, 8),
    V(256, 128, 16, 64, 32, 8, 8, 2, F, F, 8),
    V(256, 128, 16, 64, 32, 8, 8, 3, F, F, 8),
    V(128, 128, 16, 64, 64, 8, 16, 2, F, F, 8),
    V(128, 128, 16, 64, 64, 8, 16, 3, F, F, 8),
    V(64, 64, 16, 32, 32, 4, 8, 3, F, F, 1),
    V(128, 64, 16, 32, 32, 4, 8, 2, F, F, 1),
    V(128, 64, 16, 32, 32, 4, 8, 3, F, F, 8),
    V(64, 128, 16, 32, 64, 8, 8, 3, F, F, 8),
    /* NT (gemm_bias_relu's layout): A m-major, B n-major */
    V(128, 128, 16, 64, 32, 8, 8, 2, F, T, 1),
    V(128, 128, 16, 64, 32, 8, 8, 2, F, T, 8),
    V(128, 128, 16, 32, 64, 8, 8, 2, F, T, 8),
    V(128, 128, 16, 64, 32, 8, 8, 3, F, T, 8),
    V(128, 128, 8, 64, 32, 8, 8, 3, F, T, 8),
    V(256, 128, 16, 64, 32, 8, 8, 2, F, T, 8),
    /* TN, TT */
    V(128, 128, 16, 32, 64, 8, 8, 2, T, F, 1),
    V(128, 128, 16, 32, 64, 8, 8, 2, T, F, 8),
    V(128, 128, 16, 32, 64, 8, 8, 2, T, T, 8),
    /* the default configuration (128x128x16_w64x32_t8x8_s4) in every layout, its
     * twins beside it (rowlanes_: the template before the paired lanes; pf_:
     * with the prefetch), and the candidates around it */
    VR(128, 128, 16, 64, 32, 8, 8, 4, F, F, 8),
    VP(128, 128, 16, 64, 32, 8, 8, 4, F, F, 8),
    VR(128, 128, 16, 64, 32, 8, 8, 2, F, F, 8),
    VP(128, 128, 16, 64, 32, 8, 8, 2, F, F, 8),
    VR(128, 128, 16, 64, 32, 8, 8, 3, F, F, 8),
    VP(128, 128, 16, 64, 32, 8, 8, 3, F, F, 8),
    VR(128, 256, 16, 64, 64, 8, 16, 3, F, F, 8),
    VP(128, 256, 16, 64, 64, 8, 16, 3, F, F, 8),
    VR(128, 64, 16, 32, 32, 4, 8, 3, F, F, 8),
    VP(128, 64, 16, 32, 32, 4, 8, 3, F, F, 8),
    VR(128, 128, 8, 64, 32, 8, 8, 4, F, F, 8),
    VP(128, 128, 8, 64, 32, 8, 8, 4, F, F, 8),
    VP(128, 128, 8, 64, 32, 8, 8, 3, F, F, 8),
    V(128, 128, 16, 32, 64, 8, 8, 4, F, F, 8),
    V(128, 256, 16, 64, 64, 8, 16, 4, F, F, 8),
    V(256, 128, 16, 64, 32, 8, 8, 4, F, F, 8),
    V(128, 64, 16, 32, 32, 4, 8, 4, F, F, 8),
    V(128, 128, 16, 64, 32, 8, 8, 4, F, T, 8),
    VR(128, 128, 16, 64, 32, 8, 8, 4, F, T, 8),
    VP(128, 128, 16, 64, 32, 8, 8, 4, F, T, 8),
    V(128, 128, 8, 64, 32, 8, 8, 4, F, T, 8),
    V(128, 128, 16, 64, 32, 8, 8, 4, T, F, 8),
    VR(128, 128, 16, 64, 32, 8, 8, 4, T, F, 8),
    VP(128, 128, 16, 64, 32, 8, 8, 4, T, F, 8),
    V(128, 128, 16, 64, 32, 8, 8, 4, T, T, 8),
    VR(128, 128, 16, 64, 32, 8, 8, 4, T, T, 8),
    VP(128, 128, 16, 64, 32, 8, 8, 4, T, T, 8),
    VE(128, 128, 16, 64, 32, 8, 8, 4, F, F, 8),
    VE(128, 128, 16, 64, 32, 8, 8, 4, F, T, 8),
    /* TF32 on tensor cores */
    VT(128, 128, 16, 64, 32, 2, F, F, 8),
    VT(128, 128, 16, 64, 32, 3, F, F, 8),
    VT(128, 128, 32, 64, 32, 3, F, F, 8),
    VT(128, 128, 32, 64, 64, 3, F, F, 8),
    VT(128, 256, 32, 64, 64, 3, F, F, 8),
    VT(256, 128, 32, 64, 64, 3, F, F, 8),
    VT(128, 256, 16, 64, 64, 4, F, F, 8),
    /* on sm_90a, wgmma (whole warpgroups, 3 stages or more; the rest stay on mma.sync) */
    VT(128, 128, 16, 64, 32, 4, F, F, 8),
    VT(128, 128, 32, 64, 32, 4, F, F, 8),
    VT(128, 256, 16, 64, 32, 4, F, F, 8),
    VT(128, 256, 32, 64, 32, 3, F, F, 8),
    VT(128, 256, 32, 64, 32, 4, F, F, 8),
    VT(256, 128, 32, 64, 32, 4, F, F, 8),
    VT(128, 128, 32, 64, 32, 4, F, T, 8),
    VT(128, 256, 32, 64, 32, 4, F, T, 8),
    VT(128, 128, 16, 64, 32, 2, F, T, 8),
    VT(128, 128, 32, 64, 64, 3, F, T, 8),
    VT(128, 128, 16, 64, 32, 2, T, F, 8),
    VT(128, 128, 16, 64, 32, 2, T, T, 8),
};
#undef F
#undef T
static const int nVar = (int)(sizeof aVar / sizeof aVar[0]);

static float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5f * (v[n / 2 - 1] + v[n / 2]);
}

/* Fill with values in [-1, 1) from a fixed LCG (the same data every run). */
static void fill(std::vector<float> &h, unsigned seed) {
  unsigned x = seed * 2654435761u + 1;
  for (auto &f : h) {
    x = x * 1664525u + 1013904223u;
    f = (float)((x >> 8) & 0xffff) / 32768.0f - 1.0f;
  }
}

struct bufs {
  float *A, *B, *C, *R, *Q, *T; /* inputs, ours, naive reference, cuBLAS FP32, cuBLAS TF32 */
};

static cublasHandle_t hBlas, hBlasTf32;

/* TF32 against FP32: |err| / (1 + |c|) up to a few 1e-2 at K = 4096 (cuBLAS's
 * own TF32 shows 3e-2 to 2e-1 in h200-run3.txt); a wrong fragment gives O(1). */
static const double kTf32Tol = 0.1;

/* cublasSgemm on row-major data: C^T = op(B)^T op(A)^T in column major. */
static void blas(cublasHandle_t h, bool bTA, bool bTB, int M, int N, int K, const float *A, long long lda,
                 const float *B, long long ldb, float *C, long long ldc, float alpha, float beta) {
  CB(cublasSgemm(h, bTB ? CUBLAS_OP_T : CUBLAS_OP_N, bTA ? CUBLAS_OP_T : CUBLAS_OP_N, N, M, K, &alpha, B, (int)ldb,
                 A, (int)lda, &beta, C, (int)ldc));
}

/* Compare ours (d) with the naive kernel (r) bitwise and with cuBLAS (q) within
 * a relative tolerance; returns the number of outputs failing either. */
static long long compare(int M, int N, long long ldc, const float *d, const float *r, const float *q, long long *pnBit,
                         double *pErr, double rTol = 1e-2) {
  size_t n = (size_t)M * ldc;
  std::vector<float> hd(n), hr(n), hq(n);
  CK(cudaMemcpy(hd.data(), d, n * 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hr.data(), r, n * 4, cudaMemcpyDeviceToHost));
  if (q) CK(cudaMemcpy(hq.data(), q, n * 4, cudaMemcpyDeviceToHost));
  long long nBad = 0, nBit = 0;
  double err = 0;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      size_t o = (size_t)i * ldc + j;
      if (memcmp(&hd[o], &hr[o], 4) != 0) nBit++;
      if (q) {
        double e = fabs((double)hd[o] - hq[o]) / (1.0 + fabs((double)hq[o]));
        if (!(e <= rTol)) nBad++; /* cuBLAS may sum k in another order: ~1e-4 seen at K=4096 */
        if (e > err || e != e) err = e;
      }
    }
  *pnBit = nBit;
  *pErr = err;
  return nBad + nBit;
}

template <bool TA, bool TB>
static void naive_ref(int M, int N, int K, const float *A, long long lda, const float *B, long long ldb, float *C,
                      long long ldc, ks_gemm::epi_linear e) {
  run_naive<TA, TB>(M, N, K, A, lda, B, ldb, C, ldc, e);
}

template <bool TA, bool TB>
static void naive_ref(int M, int N, int K, const float *A, long long lda, const float *B, long long ldb, float *C,
                      long long ldc, ks_gemm::epi_bias_relu e) {
  run_naive<TA, TB>(M, N, K, A, lda, B, ldb, C, ldc, e);
}

/* bRelu: the bias + ReLU epilogue on g_pBias instead of e */
static void naive_any(bool bTA, bool bTB, int M, int N, int K, const float *A, long long lda, const float *B,
                      long long ldb, float *C, long long ldc, ks_gemm::epi_linear e, bool bRelu = false) {
  if (bRelu) {
    ks_gemm::epi_bias_relu r = {g_pBias};
    if (!bTA && !bTB) naive_ref<false, false>(M, N, K, A, lda, B, ldb, C, ldc, r);
    else if (!bTA && bTB) naive_ref<false, true>(M, N, K, A, lda, B, ldb, C, ldc, r);
    else if (bTA && !bTB) naive_ref<true, false>(M, N, K, A, lda, B, ldb, C, ldc, r);
    else naive_ref<true, true>(M, N, K, A, lda, B, ldb, C, ldc, r);
    return;
  }
  if (!bTA && !bTB) naive_ref<false, false>(M, N, K, A, lda, B, ldb, C, ldc, e);
  else if (!bTA && bTB) naive_ref<false, true>(M, N, K, A, lda, B, ldb, C, ldc, e);
  else if (bTA && !bTB) naive_ref<true, false>(M, N, K, A, lda, B, ldb, C, ldc, e);
  else naive_ref<true, true>(M, N, K, A, lda, B, ldb, C, ldc, e);
}

/* Does the variant's name hold one of the comma-separated substrings of zOnly
 * (NULL: every variant)? */
static bool selected(const char *zName, const char *zOnly) {
  if (!zOnly) return true;
  for (const char *z = zOnly; *z;) {
    const char *zEnd = strchr(z, ',');
    size_t n = zEnd ? (size_t)(zEnd - z) : strlen(z);
    for (const char *h = zName; n && *h; h++)
      if (!strncmp(h, z, n)) return true;
    z += n + (zEnd ? 1 : 0);
  }
  return false;
}

/* Correctness on awkward shapes: sizes not tile multiples, leading dimensions
 * not multiples of 4 (the scalar paths), alpha/beta with C read. */
static int check_edges(const variant &v, bufs &b) {
  struct shape {
    int M, N, K, pad;
    float alpha, beta;
  } aS[] = {{517, 389, 259, 0, 1.0f, 0.0f}, {517, 389, 259, 1, 1.0f, 0.0f}, {131, 67, 1001, 3, 1.5f, -0.5f},
            {1, 1, 1, 0, 1.0f, 0.0f}, {256, 256, 5, 0, 2.0f, 1.0f}};
  int nFail = 0;
  for (const shape &s : aS) {
    long long lda = (v.bTA ? s.M : s.K) + s.pad, ldb = (v.bTB ? s.K : s.N) + s.pad, ldc = s.N + s.pad;
    ks_gemm::epi_linear e = {s.alpha, s.beta};
    /* the same starting C for both (beta reads it) */
    CK(cudaMemcpy(b.C, b.Q, (size_t)s.M * ldc * 4, cudaMemcpyDeviceToDevice));
    CK(cudaMemcpy(b.R, b.Q, (size_t)s.M * ldc * 4, cudaMemcpyDeviceToDevice));
    /* offset by one element when padded: pointers not 16-byte aligned */
    const float *A = b.A + s.pad % 2, *B = b.B + s.pad % 2;
    CK(v.fn(s.M, s.N, s.K, A, lda, B, ldb, b.C, ldc, e));
    naive_any(v.bTA, v.bTB, s.M, s.N, s.K, A, lda, B, ldb, b.R, ldc, e, v.bRelu);
    CK(cudaDeviceSynchronize());
    long long nBit;
    double err;
    /* TF32: within the tolerance of the naive kernel, not bitwise */
    long long nBad = compare(s.M, s.N, ldc, b.C, b.R, v.bTf32 ? b.R : NULL, &nBit, &err, kTf32Tol);
    if (v.bTf32 ? nBad - nBit > 0 : nBit > 0) {
      printf("  MISMATCH %s M=%d N=%d K=%d pad=%d alpha=%g beta=%g: %lld outputs off the naive kernel%s (max rel "
             "err %.2e)\n",
             v.zName, s.M, s.N, s.K, s.pad, s.alpha, s.beta, v.bTf32 ? nBad - nBit : nBit,
             v.bTf32 ? " beyond the TF32 tolerance" : " bitwise", err);
      nFail++;
    }
  }
  return nFail;
}

int main(int argc, char **argv) {
  struct dims {
    int M, N, K;
  };
  std::vector<dims> aD = {{1024, 1024, 1024}, {2048, 2048, 2048}, {4096, 4096, 4096}, {4000, 4000, 4000}};
  int nReps = 10;
  const char *zOnly = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
      aD.clear();
      /* a comma-separated list of S (M = N = K = S) or MxNxK */
      for (char *z = argv[++i]; *z;) {
        long d[3];
        int nd = 0;
        char *zEnd = z;
        for (;;) {
          d[nd] = strtol(z, &zEnd, 10);
          if (zEnd == z || d[nd] <= 0 || d[nd] > 16384) {
            printf("gemm_sweep: --sizes: '%s' is not a list of S or MxNxK, sizes in 1..16384\n", argv[i]);
            return 2;
          }
          nd++;
          if (*zEnd != 'x' || nd == 3) break;
          z = zEnd + 1;
        }
        if (nd == 2) {
          printf("gemm_sweep: --sizes: '%s': MxN without K\n", argv[i]);
          return 2;
        }
        aD.push_back(nd == 1 ? dims{(int)d[0], (int)d[0], (int)d[0]} : dims{(int)d[0], (int)d[1], (int)d[2]});
        if (*zEnd && *zEnd != ',') {
          printf("gemm_sweep: --sizes: unexpected '%c'\n", *zEnd);
          return 2;
        }
        z = *zEnd == ',' ? zEnd + 1 : zEnd;
      }
    } else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
      nReps = atoi(argv[++i]);
      if (nReps < 1 || nReps > 1000) {
        printf("gemm_sweep: --reps: 1..1000\n");
        return 2;
      }
    } else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
      zOnly = argv[++i];
    } else {
      printf("usage: gemm_sweep [--sizes 1024,2048,8192x4096x1024] [--reps N] [--only SUBSTRING[,SUBSTRING...]]\n");
      return 2;
    }
  }
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("device: %s, sm_%d%d, %d SMs\n", prop.name, prop.major, prop.minor, prop.multiProcessorCount);
  CB(cublasCreate(&hBlas));
  CB(cublasSetMathMode(hBlas, CUBLAS_DEFAULT_MATH));
  CB(cublasCreate(&hBlasTf32));
  CB(cublasSetMathMode(hBlasTf32, CUBLAS_TF32_TENSOR_OP_MATH));
  printf("cuBLAS: cublasSgemm, CUBLAS_DEFAULT_MATH (FP32, no TF32) for FP32 variants, CUBLAS_TF32_TENSOR_OP_MATH for "
         "tf32_ variants;\n  ratio = cuBLAS ms / ours ms (1.00: cuBLAS speed); max-rel-err |ours - cuBLAS FP32| / (1 + "
         "|cuBLAS FP32|)\n");

  size_t nEl = (size_t)1024 * 1024 + 64; /* the edge shapes' */
  for (const dims &d : aD)
    nEl = std::max(nEl, (size_t)std::max({(size_t)d.M * d.K, (size_t)d.K * d.N, (size_t)d.M * d.N}) + 64);
  bufs b;
  CK(cudaMalloc(&b.A, nEl * 4));
  CK(cudaMalloc(&b.B, nEl * 4));
  CK(cudaMalloc(&b.C, nEl * 4));
  CK(cudaMalloc(&b.R, nEl * 4));
  CK(cudaMalloc(&b.Q, nEl * 4));
  CK(cudaMalloc(&b.T, nEl * 4));
  {
    std::vector<float> h(nEl);
    fill(h, 1);
    CK(cudaMemcpy(b.A, h.data(), nEl * 4, cudaMemcpyHostToDevice));
    fill(h, 2);
    CK(cudaMemcpy(b.B, h.data(), nEl * 4, cudaMemcpyHostToDevice));
    fill(h, 3);
    CK(cudaMemcpy(b.Q, h.data(), nEl * 4, cudaMemcpyHostToDevice));
    /* the bias: values in [-1, 1), as many as the widest N */
    float *pBias;
    size_t nBias = 1024;
    for (const dims &d : aD) nBias = std::max(nBias, (size_t)d.N);
    fill(h, 4);
    CK(cudaMalloc(&pBias, nBias * 4));
    CK(cudaMemcpy(pBias, h.data(), nBias * 4, cudaMemcpyHostToDevice));
    g_pBias = pBias;
  }
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  int nFail = 0;

  printf("\n== edge shapes (FP32: bitwise against the naive kernel; TF32: within %g of it) ==\n", kTf32Tol);
  for (int iv = 0; iv < nVar; iv++) {
    if (!selected(aVar[iv].zName, zOnly)) continue;
    int n = check_edges(aVar[iv], b);
    printf("  %-40s threads %4d smem %6d B: %s\n", aVar[iv].zName, aVar[iv].nThreads, aVar[iv].nSmem,
           n ? "FAIL" : "ok");
    nFail += n;
  }

  ks_gemm::epi_linear e1x = {1.0f, 0.0f};
  static const char *const azL[4] = {"NN", "NT", "TN", "TT"};
  for (const dims &d : aD) {
    const int M = d.M, N = d.N, K = d.K;
    printf("\n== M = %d, N = %d, K = %d ==\n", M, N, K);
    double flop = 2.0 * M * (double)N * K;
    float aBlasMs[2][4] = {{0, 0, 0, 0}, {0, 0, 0, 0}};
    int iCur = -1; /* the layout whose references R, Q, T hold */
    auto time_it = [&](auto &&f) {
      std::vector<float> t;
      for (int r = 0; r < 3; r++) f();
      for (int r = 0; r < nReps; r++) {
        CK(cudaEventRecord(e0));
        f();
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        t.push_back(ms);
      }
      return median(t);
    };
    for (int iv = 0; iv < nVar; iv++) {
      const variant &v = aVar[iv];
      if (!selected(v.zName, zOnly)) continue;
      int iL = (v.bTA ? 2 : 0) + (v.bTB ? 1 : 0);
      const long long lda = v.bTA ? M : K, ldb = v.bTB ? K : N, ldc = N;
      if (iL != iCur) { /* cuBLAS FP32 and TF32 times and results, the naive reference */
        if (!aBlasMs[0][iL]) {
          aBlasMs[0][iL] =
              time_it([&] { blas(hBlas, v.bTA, v.bTB, M, N, K, b.A, lda, b.B, ldb, b.Q, ldc, 1.0f, 0.0f); });
          aBlasMs[1][iL] =
              time_it([&] { blas(hBlasTf32, v.bTA, v.bTB, M, N, K, b.A, lda, b.B, ldb, b.T, ldc, 1.0f, 0.0f); });
        }
        blas(hBlas, v.bTA, v.bTB, M, N, K, b.A, lda, b.B, ldb, b.Q, ldc, 1.0f, 0.0f);
        blas(hBlasTf32, v.bTA, v.bTB, M, N, K, b.A, lda, b.B, ldb, b.T, ldc, 1.0f, 0.0f);
        naive_any(v.bTA, v.bTB, M, N, K, b.A, lda, b.B, ldb, b.R, ldc, e1x);
        CK(cudaDeviceSynchronize());
        long long nBit;
        double errT;
        compare(M, N, ldc, b.T, b.Q, b.Q, &nBit, &errT);
        printf("  cublasSgemm %s FP32 %8.3f ms %7.2f TFLOP/s | TF32 %8.3f ms %7.2f TFLOP/s, max-rel-err %.2e\n",
               azL[iL], aBlasMs[0][iL], flop / aBlasMs[0][iL] * 1e-9, aBlasMs[1][iL], flop / aBlasMs[1][iL] * 1e-9,
               errT);
        iCur = iL;
      }
      float ms = time_it([&] { CK(v.fn(M, N, K, b.A, lda, b.B, ldb, b.C, ldc, e1x)); });
      long long nBit;
      double err = 0;
      if (v.bRelu) { /* R: the naive kernel with the epilogue, until the next layout's references */
        naive_any(v.bTA, v.bTB, M, N, K, b.A, lda, b.B, ldb, b.R, ldc, e1x, true);
        CK(cudaDeviceSynchronize());
        iCur = -1;
      }
      long long nBad = compare(M, N, ldc, b.C, b.R, v.bRelu ? NULL : b.Q, &nBit, &err, v.bTf32 ? kTf32Tol : 1e-2);
      if (v.bTf32) nBad -= nBit; /* TF32: only the tolerance */
      float ref = aBlasMs[v.bTf32 ? 1 : 0][iL];
      printf("  %-40s %8.3f ms %7.2f TFLOP/s ratio %.3f (vs cuBLAS %s)  bitwise-vs-naive %s  max-rel-err %.2e%s\n",
             v.zName, ms, flop / ms * 1e-9, ref / ms, v.bTf32 ? "TF32" : "FP32", nBit ? "DIFF" : "same", err,
             nBad ? "  FAIL" : !v.bTf32 && nBit ? "  FAIL(bitwise)" : "");
      if (nBad || (!v.bTf32 && nBit)) nFail++;
    }
  }
  printf("\n%s: %d failure(s)\n", nFail ? "FAIL" : "PASS", nFail);
  cublasDestroy(hBlas);
  cublasDestroy(hBlasTf32);
  return nFail ? 1 : 0;
}
