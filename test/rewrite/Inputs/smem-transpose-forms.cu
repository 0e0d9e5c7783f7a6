// Input of test/rewrite/smem-transpose.cu: the other forms a one-thread-per-element
// transpose takes (mirrored 1-D, 2-D with an early return, double, int), and
// near-misses the rule must refuse.
#include <cuda_runtime.h>
#include <cuda_fp16.h>

// 1-D, mirrored: reads unit-stride, writes strided; if-block guard; size_t index.
__global__ void tr_mirror(const int *in, int *out, int rows, int cols) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < (size_t)rows * cols) {
    size_t c = i % cols;
    size_t r = i / cols;
    out[c * rows + r] = in[i];
  }
}

// 1-D with the index terms written in place, operands swapped.
__global__ void tr_inline(const float *src, float *dst, int m, int n) {
  int i = threadIdx.x + blockDim.x * blockIdx.x;
  if (i >= m * n) return;
  dst[i] = src[i / m + n * (i % m)];
}

// 2-D, rows on x, early-return guard, double, leading dimensions.
__global__ void tr_2d(double *out, const double *in, int nrows, int ncols, int ldin, int ldout) {
  int r = threadIdx.x + blockIdx.x * blockDim.x;
  int c = blockIdx.y * blockDim.y + threadIdx.y;
  if (r >= nrows || c >= ncols) return;
  out[c * ldout + r] = in[r * ldin + c];
}

// 2-D as examples/cmake/src/transpose.cu: columns on x, 64-bit index products.
__global__ void tr_example(const float *in, float *out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) out[(long)c * rows + r] = in[(long)r * cols + c];
}

// Index temporaries, as in a vendor sample's naive transpose.
__global__ void tr_tmp(float *odata, const float *idata, int width, int height) {
  int xIndex = blockIdx.x * blockDim.x + threadIdx.x;
  int yIndex = blockIdx.y * blockDim.y + threadIdx.y;
  if (xIndex < width && yIndex < height) {
    int index_in = xIndex + width * yIndex;
    int index_out = yIndex + height * xIndex;
    odata[index_out] = idata[index_in];
  }
}

// Near-misses.
// A temporary that holds an element, not an index.
__global__ void bad_tmp(const float *in, float *out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) {
    float v = in[r * cols + c];
    out[c * rows + r] = v;
  }
}

__global__ void bad_scaled(const float *x, float *y, int rows, int cols) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (long long)rows * cols) return;
  long long c = i / rows;
  long long r = i % rows;
  y[i] = 2.0f * x[r * cols + c];
}

__global__ void bad_stride(const float *x, float *y, int rows, int cols) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (long long)rows * cols) return;
  long long c = i / rows;
  long long r = i % rows;
  y[i] = x[r * rows + c];
}

__global__ void bad_inplace(float *x, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) x[c * rows + r] = x[r * cols + c];
}

__global__ void bad_extra(const float *in, float *out, int rows, int cols, int *count) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) {
    out[c * rows + r] = in[r * cols + c];
    atomicAdd(count, 1);
  }
}

__global__ void bad_copy2d(const float *in, float *out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) out[r * cols + c] = in[r * cols + c];
}

__global__ void unlaunched(const float *in, float *out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) out[c * rows + r] = in[r * cols + c];
}

// Class elements: __half's compiler-made copy assignment is a copy; a struct whose
// assignment is user-written may do anything.
__global__ void tr_half(const __half *x, __half *y, int rows, int cols) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (long long)rows * cols) return;
  y[i] = x[(i % rows) * cols + i / rows];
}

struct counted {
  float v;
  __device__ counted &operator=(const counted &o) { v = o.v + 1.0f; return *this; }
};
__global__ void bad_assign(const counted *x, counted *y, int rows, int cols) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (long long)rows * cols) return;
  y[i] = x[(i % rows) * cols + i / rows];
}

extern "C" void forms(const int *a, int *b, const float *f, float *g, double *d, const double *e, int rows, int cols,
                      cudaStream_t s, int *count) {
  long long n = (long long)rows * cols;
  tr_mirror<<<(unsigned)((n + 255) / 256), 256>>>(a, b, rows, cols);
  tr_inline<<<(rows * cols + 127) / 128, 128, 0, s>>>(f, g, rows, cols);
  dim3 block(16, 16);
  dim3 grid((rows + 15) / 16, (cols + 15) / 16);
  tr_2d<<<grid, block, 0, s>>>(d, e, rows, cols, cols, rows);
  dim3 block2(32, 8);
  dim3 grid2((cols + 31) / 32, (rows + 7) / 8);
  tr_example<<<grid2, block2>>>(f, g, rows, cols);
  bad_scaled<<<(unsigned)((n + 255) / 256), 256>>>(f, g, rows, cols);
  bad_stride<<<(unsigned)((n + 255) / 256), 256>>>(f, g, rows, cols);
  bad_inplace<<<grid, block>>>(g, rows, cols);
  bad_extra<<<grid, block>>>(f, g, rows, cols, count);
  bad_copy2d<<<grid, block>>>(f, g, rows, cols);
  tr_half<<<(unsigned)((n + 255) / 256), 256>>>((const __half *)f, (__half *)g, rows, cols);
  bad_assign<<<(unsigned)((n + 255) / 256), 256>>>((const counted *)f, (counted *)g, rows, cols);
  tr_tmp<<<grid2, block2>>>(g, f, cols, rows);
  bad_tmp<<<grid2, block2>>>(f, g, rows, cols);
}
