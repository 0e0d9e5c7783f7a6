// cub_cublas.cu — cub, cooperative groups and cuBLAS (allowed only with --library cublas).
#include <cub/cub.cuh>
#include <cooperative_groups.h>
#include <cublas_v2.h>
namespace cg = cooperative_groups;
template <int BS>
__global__ void rowsum(const float *x, float *y, int cols) {
  typedef cub::BlockReduce<float, BS> R;
  __shared__ typename R::TempStorage t;
  float s = 0;
  for (int c = threadIdx.x; c < cols; c += BS) s += x[blockIdx.x * cols + c];
  float r = R(t).Sum(s);
  if (threadIdx.x == 0) y[blockIdx.x] = r;
  asm volatile("membar.gl;");
}
template <int BS> static void launch(const float *x, float *y, int rows, int cols) {
  rowsum<BS><<<rows, BS>>>(x, y, cols);
  cudaFuncSetAttribute(rowsum<BS>, cudaFuncAttributePreferredSharedMemoryCarveout, 50);
}
extern "C" void row_sum(const float *x, float *y, int rows, int cols) {
  static cublasHandle_t h = nullptr;
  if (!h) cublasCreate(&h);
  launch<256>(x, y, rows, cols);
  void *tmp = nullptr; size_t n = 0;
  cub::DeviceReduce::Sum(tmp, n, x, y, rows * cols);
}
