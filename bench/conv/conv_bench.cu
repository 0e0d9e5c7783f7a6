// conv_bench.cu — the conv-igemm rule's rewrites of the suite's conv2d_3x3 seed
// against the seed itself and cuDNN FP32 (built with -DKS_HAVE_CUDNN; FMA math,
// no TF32, as PyTorch eager runs it with allow_tf32 = False), one process.
// conv_tiled.cu is bench/conv/rule_rewrite.sh's output (rule_bench.sh makes it).
// Per size: each kernel's mean ms over --reps launches after a warm-up, the
// ratio cuDNN ms / its ms, and whether its output is bitwise the seed's.
// Sizes: the suite's task (N 16, CI 64, CO 64, 128 x 128) and one whose
// dimensions are not tile multiples (3, 13, 70, 37 x 29); --size N,CI,CO,H,W
// adds one. Exit status 0: every rewrite bitwise the seed; 1: a mismatch;
// 2: a CUDA / cuDNN error or bad usage.
#include "conv_tiled.cu"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#ifdef KS_HAVE_CUDNN
#include <cudnn.h>
#endif

#include "../common/cuda_check.cuh"

typedef void (*launch_fn)(const float *, const float *, float *, int, int, int, int, int);
struct variant {
  const char *zName;
  launch_fn fn;
};
static const variant aV[] = {{"seed", launch_ref},
                             {"igemm 64x128x16_w32x64_t8x8_s3 (default)", launch_default},
                             {"igemm 64x128x8_w32x64_t8x8_s4", launch_bk8_s4},
                             {"igemm 64x64x16_w32x32_t4x8_s3", launch_64x64},
                             {"igemm 64x256x16_w32x64_t8x8_s2", launch_64x256_s2},
                             {"igemm 128x128x16_w64x32_t8x8_s2", launch_128x128_s2}};

/* Mean ms of f over reps runs, after one warm-up. */
template <class F> static double time_ms(F f, int reps) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  f();
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaEventRecord(a));
  for (int i = 0; i < reps; i++) f();
  CK(cudaEventRecord(b));
  CK(cudaEventSynchronize(b));
  CK(cudaGetLastError());
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, a, b));
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return ms / reps;
}

#ifdef KS_HAVE_CUDNN
#define CD(x)                                                                                           \
  do {                                                                                                  \
    cudnnStatus_t s_ = (x);                                                                             \
    if (s_ != CUDNN_STATUS_SUCCESS) {                                                                   \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudnnGetErrorString(s_));              \
      exit(2);                                                                                          \
    }                                                                                                   \
  } while (0)

/* cuDNN's forward convolution, the heuristic's first FMA-math algorithm (PyTorch
 * eager's default, benchmark mode off). Its ms; its output in y. */
static double time_cudnn(const float *x, const float *w, float *y, int n, int ci, int co, int h, int wd, int reps,
                         char *zAlgo, size_t nAlgo) {
  cudnnHandle_t hd;
  CD(cudnnCreate(&hd));
  cudnnTensorDescriptor_t dx, dy;
  cudnnFilterDescriptor_t dw;
  cudnnConvolutionDescriptor_t dc;
  CD(cudnnCreateTensorDescriptor(&dx));
  CD(cudnnCreateTensorDescriptor(&dy));
  CD(cudnnCreateFilterDescriptor(&dw));
  CD(cudnnCreateConvolutionDescriptor(&dc));
  CD(cudnnSetTensor4dDescriptor(dx, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, ci, h, wd));
  CD(cudnnSetTensor4dDescriptor(dy, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, co, h, wd));
  CD(cudnnSetFilter4dDescriptor(dw, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, co, ci, 3, 3));
  CD(cudnnSetConvolution2dDescriptor(dc, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  CD(cudnnSetConvolutionMathType(dc, CUDNN_FMA_MATH));
  cudnnConvolutionFwdAlgoPerf_t perf[8];
  int nPerf = 0;
  CD(cudnnGetConvolutionForwardAlgorithm_v7(hd, dx, dw, dc, dy, 8, &nPerf, perf));
  cudnnConvolutionFwdAlgo_t algo = perf[0].algo;
  size_t nWs = 0;
  CD(cudnnGetConvolutionForwardWorkspaceSize(hd, dx, dw, dc, dy, algo, &nWs));
  void *ws = NULL;
  if (nWs) CK(cudaMalloc(&ws, nWs));
  snprintf(zAlgo, nAlgo, "algo %d, %zu bytes of workspace", (int)algo, nWs);
  const float one = 1.0f, zero = 0.0f;
  double ms = time_ms([&] { cudnnConvolutionForward(hd, &one, dx, x, dw, w, dc, algo, ws, nWs, &zero, dy, y); }, reps);
  CK(cudaDeviceSynchronize());
  cudaFree(ws);
  cudnnDestroyConvolutionDescriptor(dc);
  cudnnDestroyFilterDescriptor(dw);
  cudnnDestroyTensorDescriptor(dx);
  cudnnDestroyTensorDescriptor(dy);
  cudnnDestroy(hd);
  return ms;
}
#endif

static int run_size(int n, int ci, int co, int h, int wd, int reps) {
  const size_t nX = (size_t)n * ci * h * wd, nW = (size_t)co * ci * 9, nY = (size_t)n * co * h * wd;
  std::vector<float> hx(nX), hw(nW), ref(nY), got(nY);
  unsigned long long s = 12345;
  auto rnd = [&] { /* uniform in [-2, 2), then the sum of two: roughly N(0,1)-sized */
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (float)((s >> 40) / (double)(1 << 24) * 4.0 - 2.0);
  };
  for (auto &v : hx) v = rnd();
  for (auto &v : hw) v = rnd();
  float *x, *w, *y;
  CK(cudaMalloc(&x, nX * 4));
  CK(cudaMalloc(&w, nW * 4));
  CK(cudaMalloc(&y, nY * 4));
  CK(cudaMemcpy(x, hx.data(), nX * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(w, hw.data(), nW * 4, cudaMemcpyHostToDevice));
  printf("size N=%d CI=%d CO=%d H=%d W=%d (%.2f GFLOP)\n", n, ci, co, h, wd, 18.0 * n * co * h * wd * ci / 1e9);
  double rCudnn = 0;
#ifdef KS_HAVE_CUDNN
  char zAlgo[96];
  CK(cudaMemset(y, 0, nY * 4));
  rCudnn = time_cudnn(x, w, y, n, ci, co, h, wd, reps, zAlgo, sizeof zAlgo);
  printf("  %-42s %9.4f ms  (%s)\n", "cudnn fp32 (FMA math)", rCudnn, zAlgo);
#else
  printf("  cudnn: not built in (-DKS_HAVE_CUDNN -lcudnn); compare with bench/run-suite --tasks conv2d_3x3\n");
#endif
  int bad = 0;
  for (unsigned i = 0; i < sizeof aV / sizeof aV[0]; i++) {
    CK(cudaMemset(y, 0xff, nY * 4)); /* NaN: an output not written shows */
    double ms = time_ms([&] { aV[i].fn(x, w, y, n, ci, co, h, wd); }, reps);
    CK(cudaMemcpy(i == 0 ? ref.data() : got.data(), y, nY * 4, cudaMemcpyDeviceToHost));
    const char *zCheck = "reference";
    if (i > 0) {
      size_t nDiff = 0;
      for (size_t j = 0; j < nY; j++) nDiff += memcmp(&ref[j], &got[j], 4) != 0;
      zCheck = nDiff ? "MISMATCH" : "bitwise";
      if (nDiff) printf("  %zu of %zu outputs differ from the seed's\n", nDiff, nY);
      bad |= nDiff != 0;
    }
    printf("  %-42s %9.4f ms", aV[i].zName, ms);
    if (rCudnn > 0) printf("  %6.3fx cudnn", rCudnn / ms);
    printf("  %s\n", zCheck);
  }
  cudaFree(x);
  cudaFree(w);
  cudaFree(y);
  return bad;
}

int main(int argc, char **argv) {
  int reps = 20;
  std::vector<std::vector<int>> sizes = {{16, 64, 64, 128, 128}, {3, 13, 70, 37, 29}};
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--size") && i + 1 < argc) {
      std::vector<int> z(5);
      if (sscanf(argv[++i], "%d,%d,%d,%d,%d", &z[0], &z[1], &z[2], &z[3], &z[4]) != 5) {
        fprintf(stderr, "usage: conv_bench [--reps N] [--size N,CI,CO,H,W]...\n");
        return 2;
      }
      sizes.push_back(z);
    } else {
      fprintf(stderr, "usage: conv_bench [--reps N] [--size N,CI,CO,H,W]...\n");
      return 2;
    }
  }
  if (reps <= 0) reps = 1;
  int bad = 0;
  for (auto &z : sizes) bad |= run_size(z[0], z[1], z[2], z[3], z[4], reps);
  printf(bad ? "FAIL: a rewrite is not bitwise the seed\n" : "ok: every rewrite bitwise the seed\n");
  return bad ? 1 : 0;
}
