// other.cu — a kernel without a store entry (always compiled as it is).
__global__ void add_one(float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += 1.0f;
}
