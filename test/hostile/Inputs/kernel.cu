// A well-formed kernel the hostile task files point at.
__global__ void scale_k(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}
extern "C" void scale(const float *x, float *y, int n) { scale_k<<<(n + 255) / 256, 256>>>(x, y, n); }
