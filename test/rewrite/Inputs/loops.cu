// Kernels with loops for the unroll rule's tests.
#define TAPS 8
__global__ void fir(const float* x, const float* w, float* y, int n, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = 0.f;
  for (int r = 0; r < 3; ++r) {
    for (int k = 0; k < TAPS; k++) acc += x[i + k + r] * w[r * TAPS + k];
  }
  for (int j = 0; j < m; j++) acc += 1e-3f * x[j];
  y[i] = acc;
}

__global__ void noloop(float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 0.f;
}
// end of file
