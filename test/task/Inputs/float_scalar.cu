// float_scalar.cu — an entry taking a float scalar (check_float_string.test).
__global__ void scale_k(const float *x, float *y, float alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = alpha * x[i];
}
extern "C" void scale(const float *x, float *y, float alpha, int n) {
  scale_k<<<(n + 255) / 256, 256>>>(x, y, alpha, n);
}
