// Reductions and counters through global atomics, as tutorials and quick
// ports write them: every thread adds its value to one address.
#include <cuda_runtime.h>

#define THREADS 256

// Dot product, one atomicAdd per element.
__global__ void dot_atomic(const float* a, const float* b, float* result, int n)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < n) {
        atomicAdd(result, a[idx] * b[idx]);
    }
}

// How many elements exceed a threshold (a counter).
__global__ void count_above(const float *data, int *count, float threshold, int n) {
  int i = threadIdx.x + blockIdx.x * THREADS;
  if (i < n && data[i] > threshold) atomicAdd(count, 1);
}

// Sum of squares with a grid-stride loop (an L2 norm's first pass).
__global__ void sumsq_gridstride(const float *__restrict__ x, float *__restrict__ acc, long n) {
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)blockDim.x * gridDim.x) {
    float v = x[i];
    atomicAdd(acc, v * v);
  }
}

// A histogram: the bin is data-dependent (must stay as written).
__global__ void histo_global(const unsigned char *in, unsigned int *bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[in[i]], 1u);
}

// Stream compaction: the atomic's result is the output slot (must stay).
__global__ void compact_positive(const float *in, float *out, int *outCount, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && in[i] > 0.f) {
    int slot = atomicAdd(outCount, 1);
    out[slot] = in[i];
  }
}

extern "C" void corpus_dot_atomic(const float *a, const float *b, float *out, int n) {
  cudaMemsetAsync(out, 0, sizeof(float));
  dot_atomic<<<(n + 255) / 256, 256>>>(a, b, out, n);
}

extern "C" void corpus_count_above(const float *x, int *count, int n) {
  cudaMemsetAsync(count, 0, sizeof(int));
  count_above<<<(n + THREADS - 1) / THREADS, THREADS>>>(x, count, 0.5f, n);
}

void run_atomics(const float *x, float *y, int *c, unsigned char *u, unsigned *h, int n) {
  sumsq_gridstride<<<1024, 256>>>(x, y, n);
  histo_global<<<(n + 255) / 256, 256>>>(u, h, n);
  compact_positive<<<(n + 255) / 256, 256>>>(x, y, c, n);
}
