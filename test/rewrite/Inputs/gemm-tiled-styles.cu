// Inputs for gemm-tiled-styles.test: naive GEMMs in styles seen in other
// people's code: a flat 1-D thread index split into row and column (held in a
// variable or inline), `#pragma unroll` on the k-loop, explicit fmaf.
#include <cuda_runtime.h>

// rewritten: one flat index, row = idx / N, col = idx % N, a 1-D launch
__global__ void mm_flat(const float *A, const float *B, float *C, int M, int N, int K) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  int row = idx / N;
  int col = idx % N;
  if (row < M && col < N) {
    float sum = 0.0f;
    for (int k = 0; k < K; k++) sum += A[row * K + k] * B[k * N + col];
    C[row * N + col] = sum;
  }
}

// rewritten: the split written inline, column first
__global__ void mm_flat_inline(const float *A, const float *B, float *C, int M, int N, int K) {
  int c = (blockIdx.x * blockDim.x + threadIdx.x) % N;
  int r = (blockIdx.x * blockDim.x + threadIdx.x) / N;
  if (r < M && c < N) {
    float s = 0.0f;
    for (int k = 0; k < K; ++k) s += A[r * K + k] * B[k * N + c];
    C[r * N + c] = s;
  }
}

// rewritten: #pragma unroll on the k-loop, explicit fmaf
__global__ void mm_fma(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
#pragma unroll 4
    for (int k = 0; k < K; ++k) {
      acc = fmaf(A[row * K + k], B[k * N + col], acc);
    }
    C[row * N + col] = acc;
  }
}

// rewritten: a block per row, a thread per column, no guard (launched <<<M, N>>>):
// M and N are the launch's grid and block, passed as new parameters
__global__ void mm_rowblock(const float *A, const float *B, float *C, int K, int N) {
  int row = blockIdx.x;
  int col = threadIdx.x;
  float sum = 0.0f;
  for (int k = 0; k < K; k++) sum += A[row * K + k] * B[k * N + col];
  C[row * N + col] = sum;
}

// rewritten: the same with a guard: the extents are the smaller of the launch's and the bounds
__global__ void mm_rowblock_guard(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.x;
  int col = threadIdx.x;
  if (row < M && col < N) {
    float sum = 0.0f;
    for (int k = 0; k < K; k++) sum += A[row * K + k] * B[k * N + col];
    C[row * N + col] = sum;
  }
}

// rewritten: a block row per output row (blockIdx.y alone), the column a global index
__global__ void mm_rowgrid(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float sum = 0.0f;
    for (int k = 0; k < K; k++) sum += A[row * K + k] * B[k * N + col];
    C[row * N + col] = sum;
  }
}

// rewritten: the factors loaded into temporaries of the k-loop's body first
__global__ void mm_temps(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float sum = 0.0f;
    for (int k = 0; k < K; k++) {
      float a = A[row * K + k];
      float b = B[k * N + col];
      sum += a * b;
    }
    C[row * N + col] = sum;
  }
}

// refused: a temporary of another type (the product would be computed in double)
__global__ void bad_temp_type(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float sum = 0.0f;
    for (int k = 0; k < K; k++) {
      double a = A[row * K + k];
      sum += a * B[k * N + col];
    }
    C[row * N + col] = sum;
  }
}

// rewritten: the output's index in a temporary under the guard
__global__ void mm_cidx(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    int idx = row * N + col;
    float sum = 0.0f;
    for (int k = 0; k < K; k++) sum += A[row * K + k] * B[k * N + col];
    C[idx] = sum;
  }
}

// rewritten: the guard as nested ifs
__global__ void mm_nested(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M) {
    if (col < N) {
      float sum = 0.0f;
      for (int k = 0; k < K; k++) sum += A[row * K + k] * B[k * N + col];
      C[row * N + col] = sum;
    }
  }
}

// rewritten: the guard as two early returns
__global__ void mm_returns(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M) return;
  if (col >= N) return;
  float sum = 0.0f;
  for (int k = 0; k < K; k++) sum += A[row * K + k] * B[k * N + col];
  C[row * N + col] = sum;
}

// rewritten: the factors read through the read-only cache hint
// the accumulator started from a cast zero, as a template's T(0) reads in its float copy
__global__ void mm_zero_cast(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float sum = float(0);
    for (int k = 0; k < K; ++k) sum += A[row * K + k] * B[k * N + col];
    C[row * N + col] = sum;
  }
}

__global__ void mm_ldg(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int M, int N,
                       int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float sum = 0.0f;
    for (int k = 0; k < K; ++k) sum += __ldg(&A[row * K + k]) * __ldg(&(B[k * N + col]));
    C[row * N + col] = sum;
  }
}

// refused: the stored value reads the index temporary the rewrite drops
__global__ void bad_idx_epi(const float *A, const float *B, const float *bias, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    int idx = row * N + col;
    float sum = 0.0f;
    for (int k = 0; k < K; k++) sum += A[row * K + k] * B[k * N + col];
    C[idx] = sum + bias[idx];
  }
}

// refused: the remainder is taken modulo K, the guard bounds the column by N
__global__ void bad_flat_mod(const float *A, const float *B, float *C, int M, int N, int K) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  int row = idx / K;
  int col = idx % K;
  if (row < M && col < N) {
    float sum = 0.0f;
    for (int k = 0; k < K; k++) sum += A[row * K + k] * B[k * N + col];
    C[row * N + col] = sum;
  }
}

// refused: the flat index also addresses the output
__global__ void bad_flat_store(const float *A, const float *B, float *C, int M, int N, int K) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  int row = idx / N;
  int col = idx % N;
  if (row < M && col < N) {
    float sum = 0.0f;
    for (int k = 0; k < K; k++) sum += A[row * K + k] * B[k * N + col];
    C[idx] = sum;
  }
}

// refused: fmaf accumulating into something else than the accumulator
__global__ void bad_fma(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f, one = 1.0f;
    for (int k = 0; k < K; ++k) acc = fmaf(A[row * K + k], B[k * N + col], one);
    C[row * N + col] = acc;
  }
}

// a kernel in nested namespaces, launched by its qualified name from outside
namespace mylib {
namespace kernels {
__global__ void mm_ns(const float *A, const float *B, float *C, int M, int N, int K) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float s = 0.f;
    for (int k = 0; k < K; ++k) s += A[row * K + k] * B[k * N + col];
    C[row * N + col] = s;
  }
}
}  // namespace kernels
}  // namespace mylib

void run(const float *A, const float *B, float *C, int M, int N, int K) {
  mm_flat<<<(M * N + 255) / 256, 256>>>(A, B, C, M, N, K);
  mm_flat_inline<<<(M * N + 127) / 128, 128>>>(A, B, C, M, N, K);
  dim3 b(16, 16), g((N + 15) / 16, (M + 15) / 16);
  mm_fma<<<g, b>>>(A, B, C, M, N, K);
  mm_rowblock<<<M, N>>>(A, B, C, K, N);
  mm_rowblock_guard<<<M, 256>>>(A, B, C, M, N, K);
  mm_rowgrid<<<dim3((N + 255) / 256, M), 256>>>(A, B, C, M, N, K);
  mm_temps<<<g, b>>>(A, B, C, M, N, K);
  bad_temp_type<<<g, b>>>(A, B, C, M, N, K);
  mm_cidx<<<g, b>>>(A, B, C, M, N, K);
  mm_nested<<<g, b>>>(A, B, C, M, N, K);
  mm_returns<<<g, b>>>(A, B, C, M, N, K);
  mm_ldg<<<g, b>>>(A, B, C, M, N, K);
  mm_zero_cast<<<g, b>>>(A, B, C, M, N, K);
  mylib::kernels::mm_ns<<<g, b>>>(A, B, C, M, N, K);
  bad_idx_epi<<<g, b>>>(A, B, B, C, M, N, K);
  bad_flat_mod<<<(M * N + 255) / 256, 256>>>(A, B, C, M, N, K);
  bad_flat_store<<<(M * N + 255) / 256, 256>>>(A, B, C, M, N, K);
  bad_fma<<<g, b>>>(A, B, C, M, N, K);
}
