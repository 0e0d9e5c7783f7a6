// Corpus (issue 14): more kernels in the style of a polyhedral benchmark
// suite's CUDA port: compile-time problem sizes (NI, NJ...) as strides with
// _PB_ bound macros, DATA_TYPE, `int k;` declared before its loop,
// accumulation straight into the output array, tabs. 2mm, 3mm, atax, bicg,
// gesummv, syrk, syr2k, correlation, covariance, fdtd-2d, conv2d, jacobi-2d.
// The extern "C" entries are the corpus tasks' entries. Written for this project.
#include <cuda_runtime.h>
#include <math.h>

typedef float DATA_TYPE;

#define NI 2048
#define NJ 2048
#define NK 2048
#define NL 2048
#define NX 32768
#define NY 4096
#define M_COLS 2048
#define N_ROWS 65536
#define _PB_NI ni
#define _PB_NJ nj
#define _PB_NK nk
#define _PB_NL nl
#define FLOAT_N ((DATA_TYPE)N_ROWS)
#define EPS 0.005f
#define sqrt_of_array_cell(x, j) sqrtf(x[j])

#define DIM_THREAD_BLOCK_X 32
#define DIM_THREAD_BLOCK_Y 8

/* 2mm: tmp = alpha * A * B;  D = beta * D + tmp * C */
__global__ void mm2_kernel1(int ni, int nj, int nk, int nl, DATA_TYPE alpha, DATA_TYPE beta, DATA_TYPE *tmp, DATA_TYPE *A, DATA_TYPE *B)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	if ((i < _PB_NI) && (j < _PB_NJ))
	{
		tmp[i * NJ + j] = 0;
		int k;
		for (k = 0; k < _PB_NK; k++)
		{
			tmp[i * NJ + j] += alpha * A[i * NK + k] * B[k * NJ + j];
		}
	}
}

__global__ void mm2_kernel2(int ni, int nj, int nk, int nl, DATA_TYPE alpha, DATA_TYPE beta, DATA_TYPE *tmp, DATA_TYPE *C, DATA_TYPE *D)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	if ((i < _PB_NI) && (j < _PB_NL))
	{
		D[i * NL + j] *= beta;
		int k;
		for (k = 0; k < _PB_NJ; k++)
		{
			D[i * NL + j] += tmp[i * NJ + k] * C[k * NL + j];
		}
	}
}

/* 3mm: E = A * B; G = E * F (the middle product has the same shape) */
__global__ void mm3_kernel1(int ni, int nj, int nk, int nl, DATA_TYPE *A, DATA_TYPE *B, DATA_TYPE *E)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	if ((i < _PB_NI) && (j < _PB_NJ))
	{
		E[i * NJ + j] = 0;
		int k;
		for (k = 0; k < _PB_NK; k++)
		{
			E[i * NJ + j] += A[i * NK + k] * B[k * NJ + j];
		}
	}
}

__global__ void mm3_kernel3(int ni, int nj, int nl, DATA_TYPE *E, DATA_TYPE *F, DATA_TYPE *G)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	if ((i < _PB_NI) && (j < _PB_NL))
	{
		G[i * NL + j] = 0;
		int k;
		for (k = 0; k < _PB_NJ; k++)
		{
			G[i * NL + j] += E[i * NJ + k] * F[k * NL + j];
		}
	}
}

/* atax: tmp = A * x (row per thread), then y = A^T * tmp (column per thread) */
__global__ void atax_kernel1(int nx, int ny, DATA_TYPE *A, DATA_TYPE *x, DATA_TYPE *tmp)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < nx)
	{
		tmp[i] = 0;
		int j;
		for (j = 0; j < ny; j++)
		{
			tmp[i] += A[i * NY + j] * x[j];
		}
	}
}

__global__ void atax_kernel2(int nx, int ny, DATA_TYPE *A, DATA_TYPE *y, DATA_TYPE *tmp)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;

	if (j < ny)
	{
		y[j] = 0;
		int i;
		for (i = 0; i < nx; i++)
		{
			y[j] += A[i * NY + j] * tmp[i];
		}
	}
}

/* bicg: s = r^T * A (column per thread), q = A * p (row per thread) */
__global__ void bicg_kernel1(int nx, int ny, DATA_TYPE *A, DATA_TYPE *r, DATA_TYPE *s)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;

	if (j < ny)
	{
		s[j] = 0.0f;

		int i;
		for (i = 0; i < nx; i++)
		{
			s[j] += r[i] * A[i * NY + j];
		}
	}
}

__global__ void bicg_kernel2(int nx, int ny, DATA_TYPE *A, DATA_TYPE *p, DATA_TYPE *q)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < nx)
	{
		q[i] = 0.0f;

		int j;
		for (j = 0; j < ny; j++)
		{
			q[i] += A[i * NY + j] * p[j];
		}
	}
}

/* gesummv: y = alpha * A * x + beta * B * x, two matrices walked per row */
__global__ void gesummv_kernel(int n, DATA_TYPE alpha, DATA_TYPE beta, DATA_TYPE* a, DATA_TYPE* b, DATA_TYPE* tmp, DATA_TYPE* x, DATA_TYPE* y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
	{
		int j;
		tmp[i] = 0;
		y[i] = 0;
		for (j = 0; j < n; j++)
		{
			tmp[i] += a[i * n + j] * x[j];
			y[i] += b[i * n + j] * x[j];
		}
		y[i] = alpha * tmp[i] + beta * y[i];
	}
}

/* syrk: C = alpha * A * A^T + beta * C */
__global__ void syrk_kernel(int m, int n, DATA_TYPE alpha, DATA_TYPE beta, DATA_TYPE *a, DATA_TYPE *c)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	if ((i < n) && (j < n))
	{
		c[i * n + j] *= beta;
		int k;
		for (k = 0; k < m; k++)
		{
			c[i * n + j] += alpha * a[i * m + k] * a[j * m + k];
		}
	}
}

/* syr2k: C = alpha * A * B^T + alpha * B * A^T + beta * C */
__global__ void syr2k_kernel(int m, int n, DATA_TYPE alpha, DATA_TYPE beta, DATA_TYPE *a, DATA_TYPE *b, DATA_TYPE *c)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	if ((i < n) && (j < n))
	{
		c[i * n + j] *= beta;

		int k;
		for (k = 0; k < m; k++)
		{
			c[i * n + j] += alpha * a[i * m + k] * b[j * m + k] + alpha * b[i * m + k] * a[j * m + k];
		}
	}
}

/* correlation: column means, column standard deviations, centre and
 * scale, then the symmetric correlation matrix */
__global__ void corr_mean_kernel(int m, int n, DATA_TYPE *mean, DATA_TYPE *data)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;

	if (j < m)
	{
		mean[j] = 0.0;

		int i;
		for (i = 0; i < n; i++)
		{
			mean[j] += data[i * M_COLS + j];
		}
		mean[j] /= (DATA_TYPE)FLOAT_N;
	}
}

__global__ void corr_std_kernel(int m, int n, DATA_TYPE *mean, DATA_TYPE *std, DATA_TYPE *data)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;

	if (j < m)
	{
		std[j] = 0.0;

		int i;
		for (i = 0; i < n; i++)
		{
			std[j] += (data[i * M_COLS + j] - mean[j]) * (data[i * M_COLS + j] - mean[j]);
		}
		std[j] /= (FLOAT_N);
		std[j] = sqrt_of_array_cell(std, j);
		if (std[j] <= EPS)
		{
			std[j] = 1.0;
		}
	}
}

__global__ void corr_reduce_kernel(int m, int n, DATA_TYPE *mean, DATA_TYPE *std, DATA_TYPE *data)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	if ((i < n) && (j < m))
	{
		data[i * M_COLS + j] -= mean[j];
		data[i * M_COLS + j] /= (sqrtf(FLOAT_N) * std[j]);
	}
}

__global__ void corr_kernel(int m, int n, DATA_TYPE *symmat, DATA_TYPE *data)
{
	int j1 = blockIdx.x * blockDim.x + threadIdx.x;

	int i, j2;
	if (j1 < (m - 1))
	{
		symmat[j1 * M_COLS + j1] = 1.0;

		for (j2 = (j1 + 1); j2 < m; j2++)
		{
			symmat[j1 * M_COLS + j2] = 0.0;

			for (i = 0; i < n; i++)
			{
				symmat[j1 * M_COLS + j2] += data[i * M_COLS + j1] * data[i * M_COLS + j2];
			}
			symmat[j2 * M_COLS + j1] = symmat[j1 * M_COLS + j2];
		}
	}
}

/* covariance: centre the data (2-D, broadcast of the column mean) */
__global__ void covar_reduce_kernel(int m, int n, DATA_TYPE *mean, DATA_TYPE *data)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	if ((i < n) && (j < m))
	{
		data[i * M_COLS + j] -= mean[j];
	}
}

/* fdtd-2d, one time step in three kernels */
__global__ void fdtd_step1_kernel(int nx, int ny, DATA_TYPE* _fict_, DATA_TYPE *ex, DATA_TYPE *ey, DATA_TYPE *hz, int t)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	if ((i < nx) && (j < ny))
	{
		if (i == 0)
		{
			ey[i * NY + j] = _fict_[t];
		}
		else
		{
			ey[i * NY + j] = ey[i * NY + j] - 0.5f * (hz[i * NY + j] - hz[(i - 1) * NY + j]);
		}
	}
}

__global__ void fdtd_step2_kernel(int nx, int ny, DATA_TYPE *ex, DATA_TYPE *ey, DATA_TYPE *hz, int t)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	if ((i < nx) && (j < ny) && (j > 0))
	{
		ex[i * (NY + 1) + j] = ex[i * (NY + 1) + j] - 0.5f * (hz[i * NY + j] - hz[i * NY + (j - 1)]);
	}
}

__global__ void fdtd_step3_kernel(int nx, int ny, DATA_TYPE *ex, DATA_TYPE *ey, DATA_TYPE *hz, int t)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	if ((i < (nx - 1)) && (j < (ny - 1)))
	{
		hz[i * NY + j] = hz[i * NY + j] - 0.7f * (ex[i * (NY + 1) + (j + 1)] - ex[i * (NY + 1) + j]
			+ ey[(i + 1) * NY + j] - ey[i * NY + j]);
	}
}

/* 2-D convolution with a fixed 3x3 filter */
__global__ void Convolution2D_kernel(int ni, int nj, DATA_TYPE *A, DATA_TYPE *B)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	DATA_TYPE c11, c12, c13, c21, c22, c23, c31, c32, c33;

	c11 = +0.2;  c21 = +0.5;  c31 = -0.8;
	c12 = -0.3;  c22 = +0.6;  c32 = -0.9;
	c13 = +0.4;  c23 = +0.7;  c33 = +0.10;

	if ((i < _PB_NI - 1) && (j < _PB_NJ - 1) && (i > 0) && (j > 0))
	{
		B[i * NJ + j] = c11 * A[(i - 1) * NJ + (j - 1)] + c21 * A[(i - 1) * NJ + (j + 0)] + c31 * A[(i - 1) * NJ + (j + 1)]
			+ c12 * A[(i + 0) * NJ + (j - 1)] + c22 * A[(i + 0) * NJ + (j + 0)] + c32 * A[(i + 0) * NJ + (j + 1)]
			+ c13 * A[(i + 1) * NJ + (j - 1)] + c23 * A[(i + 1) * NJ + (j + 0)] + c33 * A[(i + 1) * NJ + (j + 1)];
	}
}

/* jacobi-2d, second half of a step: copy the interior back */
__global__ void jacobi2d_copy_kernel(int n, DATA_TYPE* a, DATA_TYPE* b)
{
	int i = blockIdx.y * blockDim.y + threadIdx.y;
	int j = blockIdx.x * blockDim.x + threadIdx.x;

	if ((i >= 1) && (i < (n - 1)) && (j >= 1) && (j < (n - 1)))
	{
		a[i * n + j] = b[i * n + j];
	}
}

void polybench_run(DATA_TYPE *A, DATA_TYPE *B, DATA_TYPE *C, DATA_TYPE *D, DATA_TYPE *E, DATA_TYPE *x, DATA_TYPE *y)
{
	dim3 block(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y);
	dim3 grid((size_t)(ceil(((float)NJ) / ((float)block.x))), (size_t)(ceil(((float)NI) / ((float)block.y))));
	mm2_kernel1<<<grid, block>>>(NI, NJ, NK, NL, 32412.0f, 2123.0f, E, A, B);
	cudaDeviceSynchronize();
	mm2_kernel2<<<grid, block>>>(NI, NJ, NK, NL, 32412.0f, 2123.0f, E, C, D);
	mm3_kernel1<<<grid, block>>>(NI, NJ, NK, NL, A, B, E);
	mm3_kernel3<<<grid, block>>>(NI, NJ, NL, E, C, D);
	dim3 block1(256, 1);
	dim3 grid1((size_t)(ceil(((float)NX) / ((float)block1.x))), 1);
	atax_kernel1<<<grid1, block1>>>(NX, NY, A, x, y);
	atax_kernel2<<<grid1, block1>>>(NX, NY, A, x, y);
	bicg_kernel1<<<grid1, block1>>>(NX, NY, A, x, y);
	bicg_kernel2<<<grid1, block1>>>(NX, NY, A, x, y);
	gesummv_kernel<<<grid1, block1>>>(NX, 43532.0f, 12313.0f, A, B, C, x, y);
	syrk_kernel<<<grid, block>>>(NK, NI, 32412.0f, 2123.0f, A, C);
	syr2k_kernel<<<grid, block>>>(NK, NI, 32412.0f, 2123.0f, A, B, C);
	corr_mean_kernel<<<grid1, block1>>>(M_COLS, N_ROWS, x, A);
	corr_std_kernel<<<grid1, block1>>>(M_COLS, N_ROWS, x, y, A);
	corr_reduce_kernel<<<grid, block>>>(M_COLS, N_ROWS, x, y, A);
	corr_kernel<<<grid1, block1>>>(M_COLS, N_ROWS, B, A);
	covar_reduce_kernel<<<grid, block>>>(M_COLS, N_ROWS, x, A);
	for (int t = 0; t < 10; t++)
	{
		fdtd_step1_kernel<<<grid, block>>>(NX, NY, x, A, B, C, t);
		fdtd_step2_kernel<<<grid, block>>>(NX, NY, A, B, C, t);
		fdtd_step3_kernel<<<grid, block>>>(NX, NY, A, B, C, t);
	}
	Convolution2D_kernel<<<grid, block>>>(NI, NJ, A, B);
	jacobi2d_copy_kernel<<<grid, block>>>(NI, A, B);
}

#define CORPUS_GRID2(nx, ny) dim3(((nx) + DIM_THREAD_BLOCK_X - 1) / DIM_THREAD_BLOCK_X, ((ny) + DIM_THREAD_BLOCK_Y - 1) / DIM_THREAD_BLOCK_Y)

extern "C" void corpus_2mm2(DATA_TYPE *tmp, DATA_TYPE *C, DATA_TYPE *D, DATA_TYPE beta)
{
	mm2_kernel2<<<CORPUS_GRID2(NL, NI), dim3(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y)>>>(NI, NJ, NK, NL, 1.0f, beta, tmp, C, D);
}

extern "C" void corpus_atax2(DATA_TYPE *A, DATA_TYPE *y, DATA_TYPE *tmp)
{
	atax_kernel2<<<(NY + 255) / 256, 256>>>(NX, NY, A, y, tmp);
}

extern "C" void corpus_bicg2(DATA_TYPE *A, DATA_TYPE *p, DATA_TYPE *q)
{
	bicg_kernel2<<<(NX + 255) / 256, 256>>>(NX, NY, A, p, q);
}

extern "C" void corpus_gesummv(DATA_TYPE *a, DATA_TYPE *b, DATA_TYPE *tmp, DATA_TYPE *x, DATA_TYPE *y, int n)
{
	gesummv_kernel<<<(n + 255) / 256, 256>>>(n, 1.5f, 1.2f, a, b, tmp, x, y);
}

extern "C" void corpus_syrk(DATA_TYPE *a, DATA_TYPE *c, int m, int n)
{
	syrk_kernel<<<CORPUS_GRID2(n, n), dim3(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y)>>>(m, n, 1.5f, 1.2f, a, c);
}

extern "C" void corpus_syr2k(DATA_TYPE *a, DATA_TYPE *b, DATA_TYPE *c, int m, int n)
{
	syr2k_kernel<<<CORPUS_GRID2(n, n), dim3(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y)>>>(m, n, 1.5f, 1.2f, a, b, c);
}

extern "C" void corpus_corr_std(DATA_TYPE *mean, DATA_TYPE *std, DATA_TYPE *data)
{
	corr_std_kernel<<<(M_COLS + 255) / 256, 256>>>(M_COLS, N_ROWS, mean, std, data);
}

extern "C" void corpus_covar_reduce(DATA_TYPE *mean, DATA_TYPE *data)
{
	covar_reduce_kernel<<<CORPUS_GRID2(M_COLS, N_ROWS), dim3(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y)>>>(M_COLS, N_ROWS, mean, data);
}

extern "C" void corpus_fdtd3(DATA_TYPE *ex, DATA_TYPE *ey, DATA_TYPE *hz)
{
	fdtd_step3_kernel<<<CORPUS_GRID2(NY, NX), dim3(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y)>>>(NX, NY, ex, ey, hz, 0);
}

extern "C" void corpus_conv2d(DATA_TYPE *A, DATA_TYPE *B)
{
	Convolution2D_kernel<<<CORPUS_GRID2(NJ, NI), dim3(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y)>>>(NI, NJ, A, B);
}
