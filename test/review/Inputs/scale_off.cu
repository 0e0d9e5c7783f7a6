// scale_off.cu — a candidate for the file-input tasks (gpu_file_inputs.test):
// right everywhere but element 17, where it adds 1.
__global__ void scale_k(const float *x, float *y, float alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = alpha * x[i] + (i == 17 ? 1.0f : 0.0f);
}
extern "C" void scale(const float *x, float *y, float alpha, int n) {
  scale_k<<<(n + 255) / 256, 256>>>(x, y, alpha, n);
}
