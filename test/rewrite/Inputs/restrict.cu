// Kernels for the restrict-const rule's tests.
__device__ float load(const float* p) { return p[0]; }

__global__ void gather(int* idx, float* src, float* dst, int* count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float* row = dst + i;
  if (i < n) {
    row[0] = load(src + idx[i]);
    atomicAdd(count, 1);
  }
}

__global__ void inplace(float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}

__global__ void written(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += x[i];
}

// Both inputs may be one buffer: it is only read, so __restrict__ holds.
__global__ void twice_read(float* out, float* a, float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}

// Launched with distinct buffers, and also through a pointer the rule cannot follow.
__global__ void also_by_pointer(float* out, float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * 3.0f;
}

// Launched through the runtime API only: the arguments the calls show decide.
__global__ void by_api(float* out, float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + 1.0f;
}

__global__ void by_api_alias(float* out, float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + 1.0f;
}

__global__ void by_api_reseated(float* out, float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + 1.0f;
}

void run_api(float* src, float* dst, float* buf, int n) {
  void* args[] = {&dst, (void*)&src, &n};
  cudaLaunchKernel((const void*)by_api, dim3((n + 127) / 128), dim3(128), args, 0, 0);
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3((n + 127) / 128);
  cfg.blockDim = dim3(128);
  cudaLaunchKernelEx(&cfg, by_api, dst, (float*)src, n);
  void* alias[] = {&buf, &buf, &n};
  cudaLaunchKernel((const void*)by_api_alias, dim3((n + 127) / 128), dim3(128), alias, 0, 0);
  void* moved[] = {&dst, &src, &n};
  moved[1] = &dst;
  cudaLaunchKernel((const void*)by_api_reseated, dim3((n + 127) / 128), dim3(128), moved, 0, 0);
}

// a template's row pointer: output + row * cols has a dependent type in the
// pattern, and the pointer derived from it is written: output stays non-const
template <typename scalar_t>
__global__ void rows_tpl(const scalar_t* input, scalar_t* output, int rows, int cols) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  scalar_t* out_row = output + (size_t)row * cols;
  for (int j = 0; j < cols; ++j) out_row[j] = input[(size_t)row * cols + j];
}

void run(int* idx, float* src, float* dst, int* count, float* buf, int n) {
  rows_tpl<float><<<(n + 127) / 128, 128>>>(src, dst, n, 4);
  gather<<<(n + 127) / 128, 128>>>(idx, src, dst, count, n);
  inplace<<<(n + 127) / 128, 128>>>(buf, buf, n);
  twice_read<<<(n + 127) / 128, 128>>>(dst, buf, buf, n);
  also_by_pointer<<<(n + 127) / 128, 128>>>(dst, src, n);
  void (*k)(float*, float*, int) = also_by_pointer;
  k<<<(n + 127) / 128, 128>>>(buf, buf, n);
}
// end of file
