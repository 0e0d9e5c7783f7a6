// main.cu — the capture example: a small pipeline of five kernels from two
// source files, checked against a CPU computation, timed end to end.
//   usage: capture_demo [ROWS COLS [ITERS]]   (default 2048 2048 10)
// Prints "check: OK" (exit 0) or the first mismatch (exit 1), a checksum,
// and the pipeline's GPU time.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "ops.h"

#define CK(x)                                                                         \
  do {                                                                                \
    cudaError_t e_ = (x);                                                             \
    if (e_ != cudaSuccess) {                                                          \
      fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
      exit(2);                                                                        \
    }                                                                                 \
  } while (0)

// The same pipeline on the CPU.
static void reference(const std::vector<float> &x, std::vector<float> &sums, int rows, int cols) {
  int n = rows * cols;
  std::vector<float> xt(n), y(n);
  for (int r = 0; r < rows; r++)
    for (int c = 0; c < cols; c++) xt[c * rows + r] = x[r * cols + c];
  for (int i = 0; i < n; i++) y[i] = 1.0f / (1.0f + expf(-xt[i]));
  for (int i = 0; i < n; i++) y[i] = 0.5f * xt[i] + y[i];
  for (int i = 0; i < n / 2; i++) y[i] = -0.25f * xt[i] + y[i];
  int start = n / 4, count = n / 2;
  for (int i = start; i < start + count; i++) y[i] = y[i] < -0.5f ? -0.5f : y[i] > 0.75f ? 0.75f : y[i];
  // y is cols x rows after the transpose
  for (int r = 0; r < cols; r++) {
    float s = 0;
    for (int c = 0; c < rows; c++) s += y[r * rows + c];
    sums[r] = s;
  }
}

int main(int argc, char **argv) {
  int rows = argc > 2 ? atoi(argv[1]) : 2048, cols = argc > 2 ? atoi(argv[2]) : 2048;
  int iters = argc > 3 ? atoi(argv[3]) : 10;
  if (rows <= 0 || cols <= 0 || iters <= 0 || (long long)rows * cols > (1ll << 28)) {
    fprintf(stderr, "usage: capture_demo [ROWS COLS [ITERS]]\n");
    return 2;
  }
  int n = rows * cols;
  std::vector<float> hx(n), hs(cols), ref(cols);
  unsigned s = 12345;
  for (int i = 0; i < n; i++) {
    s = s * 1664525u + 1013904223u;
    hx[i] = ((s >> 8) & 0xffff) / 32768.0f - 1.0f;
  }
  float *x, *xt, *y, *sums;
  CK(cudaMalloc(&x, n * sizeof(float)));
  CK(cudaMalloc(&xt, n * sizeof(float)));
  CK(cudaMalloc(&y, n * sizeof(float)));
  CK(cudaMalloc(&sums, cols * sizeof(float)));
  CK(cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  cudaEvent_t t0, t1;
  CK(cudaEventCreate(&t0));
  CK(cudaEventCreate(&t1));
  float ms = 0;
  for (int it = 0; it < iters; it++) {
    if (it == 1) CK(cudaEventRecord(t0));  // the first iteration warms up
    launch_transpose(x, xt, rows, cols);
    launch_sigmoid(xt, y, n);
    launch_scale_add(xt, y, 0.5f, n);       // the whole buffer
    launch_scale_add(xt, y, -0.25f, n / 2); // its first half: another size
    launch_clamp_window(y, n / 4, n / 2, -0.5f, 0.75f);
    launch_row_sum(y, sums, cols, rows);
  }
  CK(cudaEventRecord(t1));
  CK(cudaEventSynchronize(t1));
  CK(cudaGetLastError());
  if (iters > 1) CK(cudaEventElapsedTime(&ms, t0, t1));
  CK(cudaMemcpy(hs.data(), sums, cols * sizeof(float), cudaMemcpyDeviceToHost));
  reference(hx, ref, rows, cols);
  double checksum = 0;
  for (int r = 0; r < cols; r++) {
    double tol = 1e-3 * rows;
    if (!(fabs(hs[r] - ref[r]) <= tol)) {
      printf("check: FAILED at row %d: got %.6f, expected %.6f\n", r, hs[r], ref[r]);
      return 1;
    }
    checksum += hs[r];
  }
  printf("check: OK\nchecksum: %.3f\n", checksum);
  if (iters > 1) printf("pipeline: %.3f ms per iteration (%d iterations)\n", ms / (iters - 1), iters - 1);
  cudaFree(x);
  cudaFree(xt);
  cudaFree(y);
  cudaFree(sums);
  return 0;
}
