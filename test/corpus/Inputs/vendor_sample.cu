// Corpus (issue 14): kernels in the style of vendor SDK samples: blockDim *
// blockIdx operand order, grid-stride loops, templates on the block size,
// checkCudaErrors-style launch code. Written for this project.
#include <cuda_runtime.h>

__global__ void vectorAdd(const float *A, const float *B, float *C, int numElements) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;

  if (i < numElements) {
    C[i] = A[i] + B[i] + 0.0f;
  }
}

__global__ void saxpy_gridstride(int n, float a, const float *x, float *y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    y[i] = a * x[i] + y[i];
  }
}

__global__ void copy_tid(float *odata, const float *idata, int n) {
  const unsigned int tid = threadIdx.x;
  const unsigned int bid = blockIdx.x;
  const unsigned int num_threads = blockDim.x;
  const unsigned int gid = bid * num_threads + tid;
  if (gid < n) odata[gid] = idata[gid];
}

template <int BLOCK_SIZE>
__global__ void matrixMulNaive(float *C, float *A, float *B, int wA, int wB) {
  int row = blockIdx.y * BLOCK_SIZE + threadIdx.y;
  int col = blockIdx.x * BLOCK_SIZE + threadIdx.x;
  float Csub = 0;
  for (int k = 0; k < wA; ++k) Csub += A[row * wA + k] * B[k * wB + col];
  C[row * wB + col] = Csub;
}

__global__ void transposeNaive(float *odata, const float *idata, int width, int height) {
  int xIndex = blockIdx.x * blockDim.x + threadIdx.x;
  int yIndex = blockIdx.y * blockDim.y + threadIdx.y;
  if (xIndex < width && yIndex < height) {
    int index_in = xIndex + width * yIndex;
    int index_out = yIndex + height * xIndex;
    odata[index_out] = idata[index_in];
  }
}

__global__ void histogram_naive(const unsigned char *data, unsigned int *bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[data[i]], 1u);
}

void launch(float *A, float *B, float *C, int n, unsigned char *d, unsigned int *bins) {
  int threadsPerBlock = 256;
  int blocksPerGrid = (n + threadsPerBlock - 1) / threadsPerBlock;
  vectorAdd<<<blocksPerGrid, threadsPerBlock>>>(A, B, C, n);
  saxpy_gridstride<<<blocksPerGrid, threadsPerBlock>>>(n, 2.0f, A, C);
  copy_tid<<<blocksPerGrid, threadsPerBlock>>>(C, A, n);
  dim3 threads(16, 16);
  dim3 grid(n / 16, n / 16);
  matrixMulNaive<16><<<grid, threads>>>(C, A, B, n, n);
  transposeNaive<<<grid, threads>>>(C, A, n, n);
  histogram_naive<<<blocksPerGrid, threadsPerBlock>>>(d, bins, n);
}

// The corpus tasks' entry (test/corpus/Inputs/*.task.json).
extern "C" void corpus_transpose_naive(float *odata, const float *idata, int width, int height) {
  dim3 threads(16, 16);
  dim3 grid((width + 15) / 16, (height + 15) / 16);
  transposeNaive<<<grid, threads>>>(odata, idata, width, height);
}

// The samples' naive matrixMul on n x n matrices, n a multiple of 16 (no guard).
extern "C" void corpus_matmul_naive(float *C, float *A, float *B, int n) {
  dim3 threads(16, 16);
  dim3 grid(n / 16, n / 16);
  matrixMulNaive<16><<<grid, threads>>>(C, A, B, n, n);
}
