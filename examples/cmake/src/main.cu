// main.cu — checks and times the example's two kernels (needs a GPU to run;
// building needs none): prints the median time of each over 50 runs.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "kernels.h"

#define CHECK(x)                                                                  \
  do {                                                                            \
    cudaError_t e_ = (x);                                                         \
    if (e_ != cudaSuccess) {                                                      \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      return 1;                                                                   \
    }                                                                             \
  } while (0)

template <class F> static float median_ms(F f) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  std::vector<float> v;
  for (int i = 0; i < 55; i++) {
    cudaEventRecord(a);
    f();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    if (i >= 5) v.push_back(ms);
  }
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main() {
  const int R = 8192, C = 8192, N = R * C;
  std::vector<float> h(N), t(N);
  for (int i = 0; i < N; i++) h[i] = (float)(i % 1000) * 0.5f;
  float *in, *out, *c;
  CHECK(cudaMalloc(&in, sizeof(float) * N));
  CHECK(cudaMalloc(&out, sizeof(float) * N));
  CHECK(cudaMalloc(&c, sizeof(float) * N));
  CHECK(cudaMemcpy(in, h.data(), sizeof(float) * N, cudaMemcpyHostToDevice));
  transpose_forward(in, out, R, C);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(t.data(), out, sizeof(float) * N, cudaMemcpyDeviceToHost));
  for (int r = 0; r < R; r += 97)
    for (int col = 0; col < C; col += 89)
      if (t[(long)col * R + r] != h[(long)r * C + col]) {
        std::fprintf(stderr, "transpose: wrong result at (%d, %d)\n", r, col);
        return 1;
      }
  float rT = median_ms([&] { transpose_forward(in, out, R, C); });
  float rV = median_ms([&] { vadd_forward(in, out, c, N); });
  CHECK(cudaGetLastError());
  std::printf("transpose %dx%d: %.1f us\nvadd %d: %.1f us\n", R, C, rT * 1000.0f, N, rV * 1000.0f);
  return 0;
}
