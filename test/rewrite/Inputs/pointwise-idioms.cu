// pointwise-idioms.cu — pointwise kernels in other people's idioms (issue 14):
// index temporaries before the index, and grids written with a CEIL_DIV
// macro. Used by pointwise-idioms.test; the bad_* kernels must be refused.
#define CEIL_DIV(M, N) (((M) + (N) - 1) / (N))
#define HALF_DIV(M, N) ((M) / (N))

__device__ int counter;

// The index through temporaries, as vendor samples write it.
__global__ void copy_tmp(float *odata, const float *idata, int n) {
  const unsigned int tid = threadIdx.x;
  const unsigned int bid = blockIdx.x;
  const unsigned int num_threads = blockDim.x;
  const unsigned int gid = bid * num_threads + tid;
  if (gid < n) odata[gid] = 2.0f * idata[gid];
}

// The element body reads a temporary: its lanes would all see one thread's value.
__global__ void bad_tmp_in_body(float *odata, const float *idata, int n) {
  const unsigned int tid = threadIdx.x;
  const unsigned int gid = blockIdx.x * blockDim.x + tid;
  if (gid < n) odata[gid] = idata[gid] + tid;
}

// A temporary with a side effect: fewer threads would run it fewer times.
__global__ void bad_tmp_effect(float *odata, const float *idata, int n) {
  const int ticket = atomicAdd(&counter, 1);
  const int gid = blockIdx.x * blockDim.x + threadIdx.x;
  if (gid < n) odata[gid] = idata[gid];
}

// A macro grid that does not cover n.
__global__ void bad_macro_grid(float *odata, const float *idata, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) odata[i] = idata[i];
}

void run(float *o, const float *x, int n) {
  const int block_size = 256;
  copy_tmp<<<CEIL_DIV(n, block_size), block_size>>>(o, x, n);
  bad_tmp_in_body<<<CEIL_DIV(n, block_size), block_size>>>(o, x, n);
  bad_tmp_effect<<<CEIL_DIV(n, block_size), block_size>>>(o, x, n);
  bad_macro_grid<<<HALF_DIV(n, block_size), block_size>>>(o, x, n);
}
