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
 *  Design 2 (no transpose pass, no TMA: the producer warpgroup wrote B
 *  k-major itself, A by cp.async) was correct but reached ~100 TFLOP/s at
 *  4096 (its ld_* lines in bench/gemm/wgmma-h100-run3.txt): removed, its code
 *  is in commit c457620.
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

#include "../common/cuda_check.cuh" /* CK */
#define CKB(x)                                                                                     \
  do {                                                                                             \
    cublasStatus_t s_ = (x);                                                                       \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                             \
      fprintf(stderr, "%s:%d: %s: cublas status %d\n", __FILE__, __LINE__, #x, (int)s_);           \
      exit(2);                                                                                     \
    }                                                                                              \
  } while (0)

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
/* Bt[n*ldbt + k] = B[k*ldb + n]: B given N x K for gemm_tf32_nt. */
__global__ void ref_transpose(const float *B, long long ldb, float *Bt, long long ldbt, int K, int N) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (long long)K * N) return;
  const long long k = i / N, n = i % N;
  Bt[n * ldbt + k] = B[k * ldb + n];
}
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
      float *A, *B, *C, *R, *C0, *Bt;
      const long long ldbt = (q.K > 0 ? q.K : 1) + (q.ldb - q.N); /* B's padding, on its k rows */
      const long long nBt = q.N * ldbt + 8;
      CK(cudaMalloc(&C0, nC * 4));
      CK(cudaMalloc(&Bt, nBt * 4));
      CK(cudaMalloc(&A, nA * 4));
      CK(cudaMalloc(&B, nB * 4));
      CK(cudaMalloc(&C, nC * 4));
      CK(cudaMalloc(&R, nC * 4));
      fill_uniform<<<(unsigned)((nA + 255) / 256), 256>>>(A, nA, 3);
      fill_uniform<<<(unsigned)((nB + 255) / 256), 256>>>(B, nB, 4);
      fill_uniform<<<(unsigned)((nC + 255) / 256), 256>>>(C, nC, 5);
      CK(cudaMemcpy(R, C, nC * 4, cudaMemcpyDeviceToDevice));
      CK(cudaMemcpy(C0, C, nC * 4, cudaMemcpyDeviceToDevice));
      CK(cudaMemset(Bt, 0, nBt * 4));
      if (q.K > 0)
        ref_transpose<<<(unsigned)(((long long)q.K * q.N + 255) / 256), 256>>>(B + q.offB, q.ldb, Bt + q.offB, ldbt,
                                                                            q.K, q.N);
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
      /* the same GEMM with B given N x K (gemm_tf32_nt: B copied TF32-rounded, no transpose), C from its start */
      CK(gemm_tf32_nt(q.M, q.N, q.K, A + q.offA, q.lda, Bt + q.offB, ldbt, C0 + q.offC, q.ldc,
                      epi_linear{q.alpha, q.beta}));
      CK(cudaDeviceSynchronize());
      const float eNt = rel_err(C0, R, nC);
      const bool okNt = eNt <= 2e-2f;
      if (!okNt) g_fail++;
      printf("   launcher_nt (B N x K, ldb %lld): max-rel-err %.3e (tol 2e-2) %s\n", ldbt, eNt, okNt ? "ok" : "FAIL");
      fflush(stdout);
      cudaFree(A), cudaFree(B), cudaFree(C), cudaFree(R), cudaFree(C0), cudaFree(Bt);
    }
  }
  cublasDestroy(h);
  printf("%s: %d check(s) failed\n", g_fail ? "FAIL" : "PASS", g_fail);
  return g_fail ? 1 : 0;
}
