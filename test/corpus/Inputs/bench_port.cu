// Corpus (issue 14): kernels in the style of a polyhedral benchmark suite's CUDA
// port: DATA_TYPE macros, 2-D dim3 launches, i/j from blockIdx*blockDim+threadIdx,
// column walks. Written for this project.
#include <cuda_runtime.h>

typedef float DATA_TYPE;
#define DIM_THREAD_BLOCK_X 32
#define DIM_THREAD_BLOCK_Y 8

__global__ void gemm_kernel(int ni, int nj, int nk, DATA_TYPE alpha, DATA_TYPE beta, DATA_TYPE *a, DATA_TYPE *b, DATA_TYPE *c)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	if ((i < ni) && (j < nj))
	{
		c[i * nj + j] *= beta;
		int k;
		for(k=0; k < nk; k++)
		{
			c[i * nj + j] += alpha * a[i * nk + k] * b[k * nj +j];
		}
	}
}

// x1 = x1 + A * y1 (a row per thread)
__global__ void mvt_kernel1(int n, DATA_TYPE *a, DATA_TYPE *x1, DATA_TYPE *y_1)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
	{
		int j;
		for(j=0; j < n; j++)
		{
			x1[i] += a[i * n + j] * y_1[j];
		}
	}
}

// x2 = x2 + A^T * y2 (a column per thread)
__global__ void mvt_kernel2(int n, DATA_TYPE *a, DATA_TYPE *x2, DATA_TYPE *y_2)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
	{
		int j;
		for(j=0; j < n; j++)
		{
			x2[i] += a[j * n + i] * y_2[j];
		}
	}
}

// column means of an m x n data matrix
__global__ void mean_kernel(int m, int n, DATA_TYPE *mean, DATA_TYPE *data, DATA_TYPE float_n)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;

	if (j < m)
	{
		mean[j] = 0.0;

		int i;
		for(i = 0; i < n; i++)
		{
			mean[j] += data[i * m + j];
		}
		mean[j] /= (DATA_TYPE)float_n;
	}
}

__global__ void jacobi2d_kernel(int n, DATA_TYPE* A, DATA_TYPE* B)
{
	int i = blockIdx.y * blockDim.y + threadIdx.y;
	int j = blockIdx.x * blockDim.x + threadIdx.x;

	if ((i >= 1) && (i < (n-1)) && (j >= 1) && (j < (n-1)))
	{
		B[i*n + j] = 0.2f * (A[i*n + j] + A[i*n + (j-1)] + A[i*n + (1 + j)] + A[(1 + i)*n + j] + A[(i-1)*n + j]);
	}
}

__global__ void transpose_kernel(int nx, int ny, DATA_TYPE *in, DATA_TYPE *out)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	if (x < nx && y < ny)
		out[x * ny + y] = in[y * nx + x];
}

__global__ void scale_kernel(int n, DATA_TYPE alpha, DATA_TYPE *x)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = alpha * x[i];
}

void run_all(int ni, int nj, int nk, DATA_TYPE *a, DATA_TYPE *b, DATA_TYPE *c, DATA_TYPE *x, DATA_TYPE *y)
{
	dim3 block(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y);
	dim3 grid((size_t)(ceil(((float)nj) / ((float)block.x))), (size_t)(ceil(((float)ni) / ((float)block.y))));
	gemm_kernel<<<grid, block>>>(ni, nj, nk, 1.5f, 1.2f, a, b, c);
	dim3 block1(256);
	dim3 grid1((ni + 255) / 256);
	mvt_kernel1<<<grid1, block1>>>(ni, a, x, y);
	mvt_kernel2<<<grid1, block1>>>(ni, a, x, y);
	mean_kernel<<<grid1, block1>>>(ni, nj, x, a, 3.0f);
	jacobi2d_kernel<<<grid, block>>>(ni, a, b);
	transpose_kernel<<<grid, block>>>(nj, ni, a, b);
	scale_kernel<<<(ni + 255) / 256, 256>>>(ni, 2.0f, x);
}

// Image-processing style: a 5-point cross blur with zero padding at the
// borders, each neighbour read under its own selection.
__global__ void cross_blur_zero(const float* img, float* out, int width, int height)
{
	int col = blockIdx.x * blockDim.x + threadIdx.x;
	int row = blockIdx.y * blockDim.y + threadIdx.y;
	if (col < width && row < height) {
		float c = img[row * width + col];
		float l = (col > 0) ? img[row * width + col - 1] : 0.0f;
		float r = (col < width - 1) ? img[row * width + col + 1] : 0.0f;
		float u = (row > 0) ? img[(row - 1) * width + col] : 0.0f;
		float d = (row < height - 1) ? img[(row + 1) * width + col] : 0.0f;
		out[row * width + col] = 0.2f * (c + l + r + u + d);
	}
}

// Image-processing style, borders replicated (clamp to the edge): a 3x3 box
// blur whose neighbour coordinates are clamped inside the window loops.
__global__ void box_blur_clamp(const float* src, float* dst, int width, int height, int step)
{
	int col = blockIdx.x * blockDim.x + threadIdx.x;
	int row = blockIdx.y * blockDim.y + threadIdx.y;
	if (col >= width || row >= height) return;
	float acc = 0.0f;
	for (int dy = -1; dy <= 1; dy++) {
		for (int dx = -1; dx <= 1; dx++) {
			acc += src[min(max(row + dy, 0), height - 1) * step + min(max(col + dx, 0), width - 1)];
		}
	}
	dst[row * step + col] = acc / 9.0f;
}

__device__ __forceinline__ int clamp_coord(int v, int lo, int hi)
{
	return v < lo ? lo : (v > hi ? hi : v);
}

// A horizontal gradient with a clamp helper on the column.
__global__ void grad_x_clamp(const float* img, float* gx, int width, int height)
{
	int col = blockIdx.x * blockDim.x + threadIdx.x;
	int row = blockIdx.y * blockDim.y + threadIdx.y;
	if (col < width && row < height) {
		const float* r = img + row * width;
		gx[row * width + col] = 0.5f * (r[clamp_coord(col + 1, 0, width - 1)] - r[clamp_coord(col - 1, 0, width - 1)]);
	}
}

// OpenCV style: each clamped coordinate declared where its loop is.
__global__ void blur5_clamp_local(const float* src, float* dst, int width, int height, int step)
{
	const int x = blockIdx.x * blockDim.x + threadIdx.x;
	const int y = blockIdx.y * blockDim.y + threadIdx.y;
	if (x < width && y < height) {
		float sum = 0.0f;
		for (int i = -2; i <= 2; ++i) {
			const int yy = min(max(y + i, 0), height - 1);
			for (int j = -2; j <= 2; ++j) {
				const int xx = min(max(x + j, 0), width - 1);
				sum += src[yy * step + xx];
			}
		}
		dst[y * step + x] = sum * (1.0f / 25.0f);
	}
}

// The PMPP textbook's 2-D convolution: zero padding by an if in the mask
// loops, the mask in constant memory.
#define FILTER_RADIUS 1
#define FILTER_DIM (2 * FILTER_RADIUS + 1)
__constant__ float F_c[FILTER_DIM][FILTER_DIM];

__global__ void convolution_2D_const_mem(const float* N, float* P, int width, int height)
{
	int outCol = blockIdx.x * blockDim.x + threadIdx.x;
	int outRow = blockIdx.y * blockDim.y + threadIdx.y;
	if (outRow < height && outCol < width) {
		float Pvalue = 0.0f;
		for (int fRow = 0; fRow < 2 * FILTER_RADIUS + 1; fRow++) {
			for (int fCol = 0; fCol < 2 * FILTER_RADIUS + 1; fCol++) {
				int inRow = outRow - FILTER_RADIUS + fRow;
				int inCol = outCol - FILTER_RADIUS + fCol;
				if (inRow >= 0 && inRow < height && inCol >= 0 && inCol < width) {
					Pvalue += F_c[fRow][fCol] * N[inRow * width + inCol];
				}
			}
		}
		P[outRow * width + outCol] = Pvalue;
	}
}

void run_clamped(const float *img, float *out, int w, int h)
{
	dim3 block(32, 8), grid((w + 31) / 32, (h + 7) / 8);
	box_blur_clamp<<<grid, block>>>(img, out, w, h, w);
	grad_x_clamp<<<grid, block>>>(img, out, w, h);
	blur5_clamp_local<<<grid, block>>>(img, out, w, h, w);
	convolution_2D_const_mem<<<grid, block>>>(img, out, w, h);
}

// The corpus tasks' entries (test/corpus/Inputs/blur5_local.task.json, pmpp_conv.task.json).
extern "C" void corpus_blur5_local(const float *img, float *out, int n)
{
	dim3 block(32, 8), grid((n + 31) / 32, (n + 7) / 8);
	blur5_clamp_local<<<grid, block>>>(img, out, n, n, n);
}

extern "C" void corpus_pmpp_conv(const float *img, float *out, int n)
{
	/* a 3x3 binomial mask, copied once per loaded copy of this file (the timed calls find it set) */
	static int bMask = 0;
	if (!bMask) {
		static const float h[FILTER_DIM][FILTER_DIM] = {{0.0625f, 0.125f, 0.0625f}, {0.125f, 0.25f, 0.125f}, {0.0625f, 0.125f, 0.0625f}};
		cudaMemcpyToSymbol(F_c, h, sizeof h);
		bMask = 1;
	}
	dim3 block(32, 8), grid((n + 31) / 32, (n + 7) / 8);
	convolution_2D_const_mem<<<grid, block>>>(img, out, n, n);
}

// The corpus task's entry (test/corpus/Inputs/box_blur.task.json).
extern "C" void corpus_box_blur(const float *img, float *out, int n)
{
	dim3 block(32, 8), grid((n + 31) / 32, (n + 7) / 8);
	box_blur_clamp<<<grid, block>>>(img, out, n, n, n);
}

// The corpus task's entry (test/corpus/Inputs/cross_blur.task.json).
extern "C" void corpus_cross_blur(const float *img, float *out, int n)
{
	dim3 block(32, 8), grid((n + 31) / 32, (n + 7) / 8);
	cross_blur_zero<<<grid, block>>>(img, out, n, n);
}

// The corpus task's entry (test/corpus/Inputs/jacobi2d.task.json).
extern "C" void corpus_jacobi2d(float *A, float *B, int n)
{
	dim3 block(32, 8), grid((n + 31) / 32, (n + 7) / 8);
	jacobi2d_kernel<<<grid, block>>>(n, A, B);
}
