// Corpus (issue 14): more kernels in the style of vendor SDK samples: the
// shared-memory reductions (interleaved and sequential addressing), an already
// tiled matrixMul and transpose (nothing left for the tiling rules), shared-
// memory histogram, a grid-stride option pricer with a device helper, a
// pitched 2-D copy, a u8 Sobel filter, a double-precision vector add. The
// extern "C" entries are the corpus tasks' entries. Written for this project.
#include <cuda_runtime.h>
#include <math.h>

#define TILE_DIM 32
#define BLOCK_ROWS 8
#define BIN_COUNT 64
#define THREAD_N 128

// interleaved addressing, one partial sum per block
__global__ void reduce0(const float *g_idata, float *g_odata, unsigned int n) {
  extern __shared__ float sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = (i < n) ? g_idata[i] : 0;
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    if ((tid % (2 * s)) == 0) {
      sdata[tid] += sdata[tid + s];
    }
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

// sequential addressing, two loads per thread
__global__ void reduce3(const float *g_idata, float *g_odata, unsigned int n) {
  extern __shared__ float sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  float mySum = (i < n) ? g_idata[i] : 0;
  if (i + blockDim.x < n) mySum += g_idata[i + blockDim.x];
  sdata[tid] = mySum;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) {
      sdata[tid] = mySum = mySum + sdata[tid + s];
    }
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = mySum;
}

// already tiled: shared-memory tiles of A and B, one output per thread
template <int BLOCK_SIZE>
__global__ void matrixMulCUDA(float *C, float *A, float *B, int wA, int wB) {
  int bx = blockIdx.x;
  int by = blockIdx.y;
  int tx = threadIdx.x;
  int ty = threadIdx.y;
  int aBegin = wA * BLOCK_SIZE * by;
  int aEnd = aBegin + wA - 1;
  int aStep = BLOCK_SIZE;
  int bBegin = BLOCK_SIZE * bx;
  int bStep = BLOCK_SIZE * wB;
  float Csub = 0;
  for (int a = aBegin, b = bBegin; a <= aEnd; a += aStep, b += bStep) {
    __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];
    As[ty][tx] = A[a + wA * ty + tx];
    Bs[ty][tx] = B[b + wB * ty + tx];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BLOCK_SIZE; ++k) {
      Csub += As[ty][k] * Bs[k][tx];
    }
    __syncthreads();
  }
  int c = wB * BLOCK_SIZE * by + BLOCK_SIZE * bx;
  C[c + wB * ty + tx] = Csub;
}

// already coalesced through a padded shared-memory tile
__global__ void transposeCoalesced(float *odata, const float *idata, int width, int height) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < height && y + j < width) odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

// per-block histogram in shared memory, merged with global atomics
__global__ void histogram64Kernel(unsigned int *d_Histogram, const unsigned char *d_Data, unsigned int dataCount) {
  __shared__ unsigned int s_Hist[BIN_COUNT];
  for (int b = threadIdx.x; b < BIN_COUNT; b += blockDim.x) s_Hist[b] = 0;
  __syncthreads();
  for (unsigned int pos = blockIdx.x * blockDim.x + threadIdx.x; pos < dataCount; pos += blockDim.x * gridDim.x)
    atomicAdd(&s_Hist[d_Data[pos] % BIN_COUNT], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < BIN_COUNT; b += blockDim.x) atomicAdd(&d_Histogram[b], s_Hist[b]);
}

// polynomial approximation of the cumulative normal distribution
__device__ inline float cndGPU(float d) {
  const float A1 = 0.31938153f;
  const float A2 = -0.356563782f;
  const float A3 = 1.781477937f;
  const float A4 = -1.821255978f;
  const float A5 = 1.330274429f;
  const float RSQRT2PI = 0.39894228040143267793994605993438f;
  float K = __fdividef(1.0f, (1.0f + 0.2316419f * fabsf(d)));
  float cnd = RSQRT2PI * __expf(-0.5f * d * d) * (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5)))));
  if (d > 0) cnd = 1.0f - cnd;
  return cnd;
}

__device__ inline void BlackScholesBodyGPU(float &CallResult, float &PutResult, float S, float X, float T, float R,
                                           float V) {
  float sqrtT = sqrtf(T);
  float d1 = __fdividef(__logf(S / X) + (R + 0.5f * V * V) * T, V * sqrtT);
  float d2 = d1 - V * sqrtT;
  float CNDD1 = cndGPU(d1);
  float CNDD2 = cndGPU(d2);
  float expRT = __expf(-R * T);
  CallResult = S * CNDD1 - X * expRT * CNDD2;
  PutResult = X * expRT * (1.0f - CNDD2) - S * (1.0f - CNDD1);
}

// grid-stride over the options, two outputs per option
__global__ void BlackScholesGPU(float *d_CallResult, float *d_PutResult, const float *d_StockPrice,
                                const float *d_OptionStrike, const float *d_OptionYears, float Riskfree,
                                float Volatility, int optN) {
  const int tid = blockDim.x * blockIdx.x + threadIdx.x;
  const int THREAD_COUNT = blockDim.x * gridDim.x;
  for (int opt = tid; opt < optN; opt += THREAD_COUNT) {
    float callResult, putResult;
    BlackScholesBodyGPU(callResult, putResult, d_StockPrice[opt], d_OptionStrike[opt], d_OptionYears[opt], Riskfree,
                        Volatility);
    d_CallResult[opt] = callResult;
    d_PutResult[opt] = putResult;
  }
}

// 2-D copy over pitched rows (pitch in elements)
__global__ void copy2D(float *dst, const float *src, int width, int height, size_t pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) {
    dst[y * pitch + x] = src[y * pitch + x];
  }
}

// Sobel edge magnitude on an 8-bit image, borders skipped
__global__ void sobelNaive(unsigned char *out, const unsigned char *in, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
  int gx = -in[(y - 1) * w + x - 1] + in[(y - 1) * w + x + 1] - 2 * in[y * w + x - 1] + 2 * in[y * w + x + 1] -
           in[(y + 1) * w + x - 1] + in[(y + 1) * w + x + 1];
  int gy = -in[(y - 1) * w + x - 1] - 2 * in[(y - 1) * w + x] - in[(y - 1) * w + x + 1] + in[(y + 1) * w + x - 1] +
           2 * in[(y + 1) * w + x] + in[(y + 1) * w + x + 1];
  int s = abs(gx) + abs(gy);
  out[y * w + x] = (unsigned char)(s > 255 ? 255 : s);
}

__global__ void vectorAddDouble(const double *A, const double *B, double *C, int numElements) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < numElements) {
    C[i] = A[i] + B[i];
  }
}

void runSamples(float *d_in, float *d_out, float *A, float *B, float *C, unsigned char *img, unsigned int *hist,
                double *dA, int n, int w, int h) {
  int threads = 256;
  int blocks = (n + threads - 1) / threads;
  reduce0<<<blocks, threads, threads * sizeof(float)>>>(d_in, d_out, n);
  reduce3<<<(n + 2 * threads - 1) / (2 * threads), threads, threads * sizeof(float)>>>(d_in, d_out, n);
  dim3 dimsBlock(32, 32);
  dim3 dimsGrid(w / 32, h / 32);
  matrixMulCUDA<32><<<dimsGrid, dimsBlock>>>(C, A, B, w, w);
  dim3 tgrid(w / TILE_DIM, h / TILE_DIM), tblock(TILE_DIM, BLOCK_ROWS);
  transposeCoalesced<<<tgrid, tblock>>>(d_out, d_in, w, h);
  histogram64Kernel<<<240, 192>>>(hist, img, n);
  BlackScholesGPU<<<480, THREAD_N>>>(A, B, C, d_in, d_out, 0.02f, 0.30f, n);
  dim3 b2(32, 8), g2((w + 31) / 32, (h + 7) / 8);
  copy2D<<<g2, b2>>>(d_out, d_in, w, h, w);
  sobelNaive<<<g2, b2>>>(img, img + w * h, w, h);
  vectorAddDouble<<<blocks, threads>>>(dA, dA + n, dA + 2 * n, n);
}

extern "C" void corpus_blackscholes(float *call, float *put, const float *price, const float *strike,
                                    const float *years, int optN) {
  BlackScholesGPU<<<480, THREAD_N>>>(call, put, price, strike, years, 0.02f, 0.30f, optN);
}

extern "C" void corpus_copy2d(float *dst, const float *src, int width, int height) {
  dim3 block(32, 8), grid((width + 31) / 32, (height + 7) / 8);
  copy2D<<<grid, block>>>(dst, src, width, height, (size_t)width);
}

extern "C" void corpus_sobel(unsigned char *out, const unsigned char *in, int w, int h) {
  dim3 block(32, 8), grid((w + 31) / 32, (h + 7) / 8);
  sobelNaive<<<grid, block>>>(out, in, w, h);
}

extern "C" void corpus_vector_add_double(const double *A, const double *B, double *C, int n) {
  vectorAddDouble<<<(n + 255) / 256, 256>>>(A, B, C, n);
}

extern "C" void corpus_transpose_coalesced(float *odata, const float *idata, int width, int height) {
  dim3 grid((width + TILE_DIM - 1) / TILE_DIM, (height + TILE_DIM - 1) / TILE_DIM), block(TILE_DIM, BLOCK_ROWS);
  transposeCoalesced<<<grid, block>>>(odata, idata, width, height);
}
