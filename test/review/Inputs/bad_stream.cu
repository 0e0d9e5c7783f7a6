// bad_stream.cu — deliberately bad candidate: launches on its own non-blocking
// stream and returns without waiting, so the work escapes the caller's default
// stream (and a naive timer). The result is right once the device is idle.
#include <cuda_runtime.h>
__global__ void vadd_kernel(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = a[i];
    for (int k = 0; k < 200; k++) s = s * 1.0000001f;  // make it slow enough to be seen late
    c[i] = a[i] + b[i] + (s - s);
  }
}
extern "C" void vadd(const float *a, const float *b, float *c, int n) {
  static cudaStream_t s;
  if (!s) cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  vadd_kernel<<<(n + 255) / 256, 256, 0, s>>>(a, b, c, n);
}
