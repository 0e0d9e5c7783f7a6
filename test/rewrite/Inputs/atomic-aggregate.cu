// Atomics for rule atomic-aggregate (test/rewrite/atomic-aggregate.test).
#include <cuda_runtime.h>

// A global sum: every thread's value to one address.
__global__ void sum_all(const float *x, float *sum, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(sum, x[i]);
}

// One slot per block and a maximum, in a loop; an int value converted to the
// double element (the conversion the call made stays).
__global__ void per_block(const int *x, double *partial, int *mx, int n, int reps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int r = 0; r < reps; ++r) {
    if (i < n) {
      atomicAdd(&partial[blockIdx.x], x[i] * r);
      atomicMax(mx + 1, x[i] - r);
    }
  }
}

// Taken: the uniform one; left: the per-thread one.
__global__ void mixed(const unsigned *x, unsigned *total, unsigned *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  atomicAdd(&y[i], 1u);
  atomicOr(total, x[i]);
}

// Refused: a histogram (the bin is loaded), an address per thread, a result
// used, an address moving with a loop counter, a 16-bit element.
__global__ void histo(const unsigned char *in, unsigned *bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[in[i]], 1u);
}
__global__ void scatter_add(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&y[i / 2], x[i]);
}
__global__ void take_slot(const float *x, float *out, int *count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && x[i] > 0.f) out[atomicAdd(count, 1)] = x[i];
}
__global__ void per_bin_loop(const float *x, float *bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int b = 0; b < 4; ++b)
    if (i < n) atomicAdd(&bins[b], x[i] * b);
}
__global__ void no_atomic(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}

void run(const float *x, float *y, int *c, const int *xi, double *pd, unsigned *u, unsigned *h, unsigned char *b, int n) {
  sum_all<<<(n + 255) / 256, 256>>>(x, y, n);
  per_block<<<(n + 255) / 256, 256>>>(xi, pd, c, n, 3);
  mixed<<<(n + 255) / 256, 256>>>(u, h, u, n);
  histo<<<(n + 255) / 256, 256>>>(b, h, n);
  scatter_add<<<(n + 255) / 256, 256>>>(x, y, n);
  take_slot<<<(n + 255) / 256, 256>>>(x, y, c, n);
  per_bin_loop<<<(n + 255) / 256, 256>>>(x, y, n);
  no_atomic<<<(n + 255) / 256, 256>>>(x, y, n);
}
