// vectorize-nd.cu -- input of vectorize-nd.test: maps over 2-D and 3-D grids
// in the styles of framework, benchmark-port and sample code (the rule
// vectorizes along x and divides the launches' grid x where it can), and kernels
// it must refuse.
#include <cuda_runtime.h>

#define CEIL_DIV(a, b) (((a) + (b) - 1) / (b))
#define CUDA_1D_KERNEL_LOOP(i, n) for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < (n); i += (size_t)blockDim.x * gridDim.x)

// 2-D, a column broadcast (vectorized: it is contiguous in x) and a row one (scalar).
__global__ void bias_relu_2d(float* out, const float* in, const float* bias, const float* rscale, int rows, int cols) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < rows && col < cols) {
    float v = in[row * cols + col] * rscale[row] + bias[col];
    out[row * cols + col] = v > 0.0f ? v : 0.0f;
  }
}

// 3-D, the flat index a temporary of the body.
__global__ void add3d(float* out, const float* a, const float* b, int D, int H, int W) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x < W && y < H && z < D) {
    int p = (z * H + y) * W + x;
    out[p] = a[p] + b[p];
  }
}

// Declared before its definition (a header would do the same): a new parameter
// would leave the declaration behind, so its launch keeps the grid as written.
__global__ void norm_2d(int m, int n, float *mean, float *std, float *data);

// In place, reads after the first store (a run-time disjointness test), y first.
__global__ void norm_2d(int m, int n, float *mean, float *std, float *data)
{
	int i = blockIdx.y * blockDim.y + threadIdx.y;
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	if ((i < n) && (j < m))
	{
		data[i * m + j] -= mean[j];
		data[i * m + j] /= std[j];
	}
}

// Early return, a row pitch that need not be a multiple of 4, a lower bound.
__global__ void copy_pitch(double *dst, const double *src, int width, int height, size_t pitch) {
  const int tx = blockIdx.x * blockDim.x + threadIdx.x;
  const int ty = blockIdx.y * blockDim.y + threadIdx.y;
  if (tx < 1 || tx >= width || ty >= height) return;
  dst[ty * pitch + tx] = 2.0 * src[ty * pitch + tx];
}

// Grid-stride loops: spelled by a macro (the rewrite replaces its use whole), and
// through index temporaries (the sample-code style).
__global__ void scale_loop_macro(float* x, float s, size_t n) {
  CUDA_1D_KERNEL_LOOP(i, n) { x[i] *= s; }
}

__global__ void axpy_strided(float *y, const float *x, float a, int n) {
  const int tid = blockDim.x * blockIdx.x + threadIdx.x;
  const int nthreads = blockDim.x * gridDim.x;
  for (int k = tid; k < n; k += nthreads) y[k] = a * x[k] + y[k];
}

// 1-D, reads after stores to other buffers (an optimizer step): a run-time
// disjointness test; the grid shrinks as for any 1-D map.
__global__ void momentum_step(float* p, const float* g, float* m, float* v, int n, float lr) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  m[i] = 0.9f * m[i] + g[i];
  v[i] = 0.99f * v[i] + g[i] * g[i];
  p[i] -= lr * m[i] / (sqrtf(v[i]) + 1e-8f);
}

// ---- must not change ----

// a macro loop whose bound is an expression (evaluated in the macro)
__global__ void bad_macro_bound(float* x, float s, size_t n) {
  CUDA_1D_KERNEL_LOOP(i, n / 2) { x[i] *= s; }
}

// the body reads an index temporary (per thread, not per element)
__global__ void bad_strided_temp(float *y, int n) {
  const int tid = blockDim.x * blockIdx.x + threadIdx.x;
  const int nthreads = blockDim.x * gridDim.x;
  for (int k = tid; k < n; k += nthreads) y[k] = (float)nthreads;
}

// neighbours along x: a stencil
__global__ void bad_neighbor_2d(float* out, const float* in, int rows, int cols) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x + 1 < cols && y < rows) out[y * cols + x] = in[y * cols + x + 1] - in[y * cols + x];
}

// a gather: x / 2
__global__ void bad_upsample(float* out, const float* in, int H, int W) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 2 * W && y < 2 * H) out[y * (2 * W) + x] = in[(y / 2) * W + (x / 2)];
}

// the store is strided along x (a transpose)
__global__ void bad_transpose(float* out, const float* in, int rows, int cols) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < cols && y < rows) out[x * rows + y] = in[y * cols + x];
}

// the body changes an index of the prelude
__global__ void bad_writes_y(float* out, const float* in, int rows, int cols) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < cols && y < rows) {
    out[y * cols + x] = in[y * cols + x];
    y += 1;
  }
}

// the body reads a temporary of the x index (per thread, not per element)
// No bound on x in the guard: the grid's x extent is the row length. With the
// grid divided, the lanes stop at the extent as written (ks_gx * blockDim.x).
__global__ void fill_rows(float* out, float v, int rows, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (y < rows) out[y * pitch + x] = v * y;
}

// The row pitch is the grid's width (gridDim.x): dividing the grid would change
// it, so the launch keeps its grid.
__global__ void scale_gridwidth(float* img, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int width = gridDim.x * blockDim.x;
  if (y < height) img[y * width + x] = 0.5f * img[y * width + x];
}

// A template (over a constant, not the element type): vectorized, its launch kept.
template <int K>
__global__ void scale_2d_t(float* out, int rows, int cols) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < cols && y < rows) out[y * cols + x] = out[y * cols + x] * K;
}

// The guard reads blockIdx.x itself, which a lane of another block would see
// differently.
__global__ void bad_guard_bid(float* out, int rows, int cols) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < cols && y < rows && blockIdx.x > 0) out[y * cols + x] = 1.0f;
}

__global__ void bad_reads_tid(float* out, int rows, int cols) {
  int tid = threadIdx.x;
  int x = blockIdx.x * blockDim.x + tid;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < cols && y < rows) out[y * cols + x] = (float)tid;
}

void launch_all(float* a, float* b, float* c, float* d, double* e, double* f, int rows, int cols) {
  dim3 blk(32, 8), grd(CEIL_DIV(cols, 32), CEIL_DIV(rows, 8));
  bias_relu_2d<<<grd, blk>>>(a, b, c, d, rows, cols);
  add3d<<<dim3((cols + 7) / 8, (rows + 7) / 8, 2), dim3(8, 8, 4)>>>(a, b, c, 8, rows, cols);
  norm_2d<<<grd, blk>>>(cols, rows, c, d, a);
  copy_pitch<<<grd, blk>>>(e, f, cols, rows, (size_t)cols);
  bad_neighbor_2d<<<grd, blk>>>(a, b, rows, cols);
  bad_upsample<<<grd, blk>>>(a, b, rows, cols);
  bad_transpose<<<grd, blk>>>(a, b, rows, cols);
  bad_writes_y<<<grd, blk>>>(a, b, rows, cols);
  bad_reads_tid<<<grd, blk>>>(a, rows, cols);
  scale_gridwidth<<<grd, blk>>>(a, rows);
  scale_2d_t<3><<<grd, blk>>>(a, rows, cols);
  fill_rows<<<grd, blk>>>(a, 0.5f, rows, 32 * grd.x);
  bad_guard_bid<<<grd, blk>>>(a, rows, cols);
  int n = rows * cols;
  scale_loop_macro<<<2, 32>>>(a, 0.5f, (size_t)n);
  axpy_strided<<<2, dim3(32)>>>(a, b, 3.0f, n);
  momentum_step<<<(n + 255) / 256, 256>>>(a, b, c, d, n, 0.1f);
}
