/* rule_bench.cu — the gemm-tiled rule's rewrites of the suite's GEMM seeds
 * (rule_tiled.cu, made by rule_rewrite.sh from rule_naive.cu into a folder
 * first on the include path: rule_bench.sh) timed against
 * cuBLAS FP32 in one process: sgemm (NN) at 1024, 2048, 4096 against
 * cublasSgemm NN, and gemm_bias_relu (NT + bias + ReLU, 8192x4096x1024)
 * against cublasSgemm of the same NT product (no bias, no ReLU: cuBLAS does
 * less). Each kernel is launched through its seed's own host function, as
 * rewritten (the dynamic shared memory opted in there). Per kernel: median
 * ms of --reps launches (CUDA events), TFLOP/s, ratio = cuBLAS ms / ours,
 * bitwise against the naive seed, largest |ours - cuBLAS| / (1 + |cuBLAS|).
 *   nvcc -O3 -std=c++17 -arch=sm_90 -I bench/gemm bench/gemm/rule_bench.cu -o rule_bench -lcublas
 *   rule_bench [--reps N]
 * Exit status: 0 all bitwise, 1 a mismatch, 2 usage or CUDA/cuBLAS error. */
#include "rule_tiled.cu"

#include <cublas_v2.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(x)                                                                                   \
  do {                                                                                          \
    cudaError_t e_ = (x);                                                                       \
    if (e_ != cudaSuccess) {                                                                    \
      printf("rule_bench: %s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));   \
      exit(2);                                                                                  \
    }                                                                                           \
  } while (0)
#define CB(x)                                                                                   \
  do {                                                                                          \
    cublasStatus_t s_ = (x);                                                                    \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                          \
      printf("rule_bench: %s:%d: %s: cuBLAS status %d\n", __FILE__, __LINE__, #x, (int)s_);     \
      exit(2);                                                                                  \
    }                                                                                           \
  } while (0)

static int nReps = 10;

/* median ms of nReps calls of f (after one warm-up), checked for launch errors */
template <class F> static double time_ms(F f) {
  f();
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::vector<float> a;
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  for (int r = 0; r < nReps; r++) {
    CK(cudaEventRecord(e0));
    f();
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    CK(cudaGetLastError());
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    a.push_back(ms);
  }
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
  std::sort(a.begin(), a.end());
  return a[a.size() / 2];
}

static void fill(std::vector<float> &v, unsigned seed) {
  for (auto &x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = (float)((seed >> 8) & 0xffff) / 32768.0f - 1.0f;
  }
}

static std::vector<float> get(const float *d, size_t n) {
  std::vector<float> h(n);
  CK(cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost));
  return h;
}

static int bad = 0;

static void report(const char *zName, double ms, double flops, double msRef, const std::vector<float> &out,
                   const std::vector<float> &naive, const std::vector<float> &ref) {
  size_t nDiff = 0;
  double err = 0;
  for (size_t i = 0; i < out.size(); i++) {
    nDiff += memcmp(&out[i], &naive[i], sizeof(float)) != 0;
    err = std::max(err, (double)fabsf(out[i] - ref[i]) / (1.0 + fabsf(ref[i])));
  }
  printf("  %-22s %9.3f ms %7.2f TFLOP/s ratio %.3f  bitwise-vs-naive %s  max-rel-err %.2e\n", zName, ms,
         flops / ms / 1e9, msRef / ms, nDiff ? "DIFF" : "same", err);
  if (nDiff) bad = 1;
}

int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc && atoi(argv[i + 1]) > 0) nReps = atoi(argv[++i]);
    else {
      printf("usage: rule_bench [--reps N]\n");
      return 2;
    }
  }
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("device: %s, sm_%d%d, %d SMs; ratio = cublasSgemm FP32 ms / ours ms, median of %d\n", prop.name, prop.major,
         prop.minor, prop.multiProcessorCount, nReps);
  cublasHandle_t h;
  CB(cublasCreate(&h));
  CB(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
  const float one = 1.0f, zero = 0.0f;

  /* sgemm: the kernels of rule_tiled.cu through their sgemm_*_forward */
  typedef void (*nn_fn)(const float *, const float *, float *, int);
  const struct { const char *z; nn_fn f; } aNN[] = {{"default (s4)", sgemm_default_forward},
                                                    {"128x128x16 s2", sgemm_s2_forward},
                                                    {"128x128x16 s3", sgemm_s3_forward},
                                                    {"128x64x16 s3", sgemm_128x64_s3_forward},
                                                    {"pack w32x64 s2", sgemm_pk_s2_forward},
                                                    {"pack s4", sgemm_pk_s4_forward},
                                                    {"pack 128x64x16 s3", sgemm_pk_128x64_s3_forward}};
  const int aSize[] = {1024, 2048, 4096};
  for (int n : aSize) {
    size_t nn = (size_t)n * n;
    std::vector<float> hA(nn), hB(nn);
    fill(hA, 1u + n);
    fill(hB, 7u + n);
    float *A, *B, *C;
    CK(cudaMalloc(&A, nn * 4));
    CK(cudaMalloc(&B, nn * 4));
    CK(cudaMalloc(&C, nn * 4));
    CK(cudaMemcpy(A, hA.data(), nn * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(B, hB.data(), nn * 4, cudaMemcpyHostToDevice));
    double flops = 2.0 * n * n * n;
    printf("== sgemm NN %d x %d x %d ==\n", n, n, n);
    CK(cudaMemset(C, 0, nn * 4));
    sgemm_naive_forward(A, B, C, n);
    CK(cudaGetLastError());
    std::vector<float> naive = get(C, nn);
    double msRef = time_ms([&] { CB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, B, n, A, n, &zero, C, n)); });
    std::vector<float> ref = get(C, nn);
    printf("  %-22s %9.3f ms %7.2f TFLOP/s\n", "cublasSgemm NN", msRef, flops / msRef / 1e9);
    for (auto &v : aNN) {
      CK(cudaMemset(C, 0, nn * 4));
      double ms = time_ms([&] { v.f(A, B, C, n); });
      report(v.z, ms, flops, msRef, get(C, nn), naive, ref);
    }
    CK(cudaFree(A));
    CK(cudaFree(B));
    CK(cudaFree(C));
  }

  /* gemm_bias_relu: y = relu(x w^T + bias), the task's 8192 x 4096 x 1024 */
  typedef void (*nt_fn)(const float *, const float *, const float *, float *, int, int, int);
  const struct { const char *z; nt_fn f; } aNT[] = {{"default (s4)", bias_relu_default_forward},
                                                    {"128x128x16 s2", bias_relu_s2_forward},
                                                    {"128x128x16 s3", bias_relu_s3_forward},
                                                    {"128x64x16 s3", bias_relu_128x64_s3_forward},
                                                    {"pack w32x64 s2", bias_relu_pk_s2_forward},
                                                    {"pack s4", bias_relu_pk_s4_forward},
                                                    {"pack 128x64x16 s3", bias_relu_pk_128x64_s3_forward}};
  {
    const int m = 8192, n = 4096, k = 1024;
    std::vector<float> hX((size_t)m * k), hW((size_t)n * k), hBias(n);
    fill(hX, 11u);
    fill(hW, 13u);
    fill(hBias, 17u);
    float *X, *W, *Bias, *Y, *Z;
    CK(cudaMalloc(&X, hX.size() * 4));
    CK(cudaMalloc(&W, hW.size() * 4));
    CK(cudaMalloc(&Bias, hBias.size() * 4));
    CK(cudaMalloc(&Y, (size_t)m * n * 4));
    CK(cudaMalloc(&Z, (size_t)m * n * 4));
    CK(cudaMemcpy(X, hX.data(), hX.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(W, hW.data(), hW.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(Bias, hBias.data(), hBias.size() * 4, cudaMemcpyHostToDevice));
    double flops = 2.0 * m * n * k;
    printf("== gemm_bias_relu NT %d x %d x %d (cuBLAS: the NT product alone) ==\n", m, n, k);
    bias_relu_naive_forward(X, W, Bias, Y, m, n, k);
    CK(cudaGetLastError());
    std::vector<float> naive = get(Y, (size_t)m * n);
    double msRef =
        time_ms([&] { CB(cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &one, W, k, X, k, &zero, Z, n)); });
    /* the reference values: cuBLAS's product, then the bias and ReLU on the host */
    std::vector<float> ref = get(Z, (size_t)m * n);
    for (size_t i = 0; i < ref.size(); i++) ref[i] = std::max(ref[i] + hBias[i % n], 0.0f);
    printf("  %-22s %9.3f ms %7.2f TFLOP/s\n", "cublasSgemm NT", msRef, flops / msRef / 1e9);
    for (auto &v : aNT) {
      CK(cudaMemset(Y, 0, (size_t)m * n * 4));
      double ms = time_ms([&] { v.f(X, W, Bias, Y, m, n, k); });
      report(v.z, ms, flops, msRef, get(Y, (size_t)m * n), naive, ref);
    }
    CK(cudaFree(X));
    CK(cudaFree(W));
    CK(cudaFree(Bias));
    CK(cudaFree(Y));
    CK(cudaFree(Z));
  }
  CB(cublasDestroy(h));
  printf("%s\n", bad ? "FAIL: a rewrite differs from its naive seed" : "ok: every rewrite bitwise its naive seed");
  return bad;
}
