// Rule vectorize's remainders per pack: `i % X` with X of parameters and
// literals becomes the pack's remainder plus the lane (any X != 0, negative
// too); a divisor that is a local of the body stays `i % c` in each lane.
__global__ void mod_expr(float* y, const float* b, int cols, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += b[i % (cols * 2 + 1)] * 0.5f;
}

__global__ void mod_local(float* y, const float* b, int cols, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const int c = cols + 2;
    y[i] += b[i % c];
  }
}

void run(float* y, const float* b, int cols, int n) {
  mod_expr<<<(n + 255) / 256, 256>>>(y, b, cols, n);
  mod_local<<<(n + 255) / 256, 256>>>(y, b, cols, n);
}
