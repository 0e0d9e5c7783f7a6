// Inputs for row-reduce-mem.test (issue 14): row kernels in the style of a
// polyhedral benchmark suite's CUDA port: the sum kept in memory (y[i] +=
// inside the loop, zeroed before it or not), the loop variable declared
// without a value before its loop (`int j;` then `for (j = 0; ...)`), a macro
// in the loop body; and kernels the rule must leave alone.
#include <cuda_runtime.h>

#define SCALE 2.0f

// y = 2 * (row sums of x): zeroed, then summed in memory
__global__ void sum_mem_rows(const float *x, float *y, int rows, int cols)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < rows)
	{
		y[i] = 0.0f;
		int j;
		for (j = 0; j < cols; j++)
		{
			y[i] += x[i * cols + j] * SCALE;
		}
	}
}

// y += row sums of x (mvt's x1 = x1 + A * y1): the old value kept
__global__ void addto_mem_rows(const float *x, float *y, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows) {
    int j;
    for (j = 0; j < cols; j++) y[i] += x[i * cols + j];
  }
}

// must not change: the sum reads its own buffer inside the loop
__global__ void bad_reads_sum_rows(const float *x, float *y, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows) {
    int j;
    for (j = 0; j < cols; j++) y[i] += x[i * cols + j] * y[i];
  }
}

// y = 2 * row sums: the result read back by the last store (gesummv's last line, one thread)
__global__ void scale_after_rows(const float *x, float *y, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows) {
    int j;
    y[i] = 0.0f;
    for (j = 0; j < cols; j++) y[i] += x[i * cols + j];
    y[i] = 2.0f * y[i];
  }
}

// must not change: every thread reads the sum after the loop
__global__ void bad_reads_after_rows(const float *x, float *y, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows) {
    int j;
    float s = 0.0f;
    y[i] = 0.0f;
    for (j = 0; j < cols; j++) y[i] += x[i * cols + j];
    s = y[i];
    y[i] = 2.0f * s;
  }
}

// must not change: the loop variable is read after its loop
__global__ void bad_uses_j_rows(const float *x, float *y, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows) {
    float s = 0.0f;
    int j;
    for (j = 0; j < cols; j++) s += x[i * cols + j];
    y[i] = s + (float)j;
  }
}

void run(const float *x, float *y, int rows, int cols) {
  sum_mem_rows<<<(rows + 255) / 256, 256>>>(x, y, rows, cols);
  addto_mem_rows<<<(rows + 255) / 256, 256>>>(x, y, rows, cols);
  bad_reads_sum_rows<<<(rows + 255) / 256, 256>>>(x, y, rows, cols);
  scale_after_rows<<<(rows + 255) / 256, 256>>>(x, y, rows, cols);
  bad_reads_after_rows<<<(rows + 255) / 256, 256>>>(x, y, rows, cols);
  bad_uses_j_rows<<<(rows + 255) / 256, 256>>>(x, y, rows, cols);
}
