// Inputs for gemm-tiled-flat.test: naive GEMMs over one flat output index
// (bounded before its split, or walked by a grid-stride loop), the remainder
// written t - q * D, and NULL-checked biases; near misses that must refuse.
#include <cuda_runtime.h>
#include <cstddef>

// rewritten: the flat index bounded by an early return, then split
__global__ void fl_return(const float *A, const float *B, float *C, int M, int N, int K) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= M * N) return;
  int r = idx / N;
  int c = idx % N;
  float s = 0.0f;
  for (int k = 0; k < K; ++k) s += A[r * K + k] * B[k * N + c];
  C[r * N + c] = s;
}

// rewritten: the bound as an if block, the split inside it, the output at the flat index
__global__ void fl_block(const float *A, const float *B, float *C, int M, int N, int K) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < N * M) {
    int r = idx / N;
    int c = idx % N;
    float s = 0.0f;
    for (int k = 0; k < K; ++k) s += A[r * K + k] * B[k * N + c];
    C[idx] = s;
  }
}

// rewritten: the remainder written idx - r * N, a 2-D guard
__global__ void fl_sub(const float *A, const float *B, float *C, int M, int N, int K) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  int r = idx / N;
  int c = idx - r * N;
  if (r < M && c < N) {
    float s = 0.0f;
    for (int k = 0; k < K; ++k) s += A[r * K + k] * B[k * N + c];
    C[r * N + c] = s;
  }
}

// rewritten: the remainder written idx - N * r after an early return
__global__ void fl_sub_return(const float *A, const float *B, float *C, int M, int N, int K) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= M * N) return;
  const int r = idx / N;
  const int c = idx - N * r;
  float s = 0.0f;
  for (int k = 0; k < K; ++k) s += A[r * K + k] * B[k * N + c];
  C[idx] = s;
}

// rewritten: a grid-stride loop over the outputs, split in one declaration
__global__ void gs_loop(const float *A, const float *B, float *C, int M, int N, int K) {
  for (int idx = blockIdx.x * blockDim.x + threadIdx.x; idx < M * N; idx += gridDim.x * blockDim.x) {
    int r = idx / N, c = idx % N;
    float s = 0;
    for (int k = 0; k < K; k++) s += A[r * K + k] * B[k * N + c];
    C[idx] = s;
  }
}

// rewritten: the start and the step in variables, the step's operands swapped, i = i + stride
__global__ void gs_vars(const float *A, const float *B, float *C, int M, int N, int K) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  int stride = blockDim.x * gridDim.x;
  for (int i = tid; i < M * N; i = i + stride) {
    int row = i / N;
    int col = i - row * N;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
  }
}

// rewritten: the accumulator starts from a NULL-checked bias (pointer as a truth value)
__global__ void bias_cond(const float *A, const float *B, const float *b, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = b ? b[col] : 0.f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
  }
}

// rewritten: the same checked against nullptr, a bias per row
__global__ void bias_cond_row(const float *A, const float *B, const float *bias, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = (bias != nullptr) ? bias[row] : 0.0f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
  }
}

// rewritten: a NULL-checked bias added after the k-loop
__global__ void bias_if(const float *A, const float *B, const float *b, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int o = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && o < N) {
    float acc = 0.f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + o];
    if (b != NULL) acc += b[o];
    C[row * N + o] = acc;
  }
}

// rewritten: the same as a block on the pointer's truth value, then a ReLU
__global__ void bias_if_block(const float *A, const float *B, const float *b, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    if (b) {
      acc += b[col];
    }
    acc = fmaxf(acc, 0.0f);
    C[row * N + col] = acc;
  }
}

// refused: the step is the block alone (threads of other blocks redo the same outputs)
__global__ void bad_gs_step(const float *A, const float *B, float *C, int M, int N, int K) {
  for (int idx = blockIdx.x * blockDim.x + threadIdx.x; idx < M * N; idx += blockDim.x) {
    int r = idx / N, c = idx % N;
    float s = 0;
    for (int k = 0; k < K; k++) s += A[r * K + k] * B[k * N + c];
    C[idx] = s;
  }
}

// refused: the loop starts at threadIdx.x (every block walks the same outputs from 0)
__global__ void bad_gs_start(const float *A, const float *B, float *C, int M, int N, int K) {
  for (int idx = threadIdx.x; idx < M * N; idx += gridDim.x * blockDim.x) {
    int r = idx / N, c = idx % N;
    float s = 0;
    for (int k = 0; k < K; k++) s += A[r * K + k] * B[k * N + c];
    C[idx] = s;
  }
}

// refused: the loop is bounded by M * K, the split is by N
__global__ void bad_gs_bound(const float *A, const float *B, float *C, int M, int N, int K) {
  for (int idx = blockIdx.x * blockDim.x + threadIdx.x; idx < M * K; idx += gridDim.x * blockDim.x) {
    int r = idx / N, c = idx % N;
    float s = 0;
    for (int k = 0; k < K; k++) s += A[r * K + k] * B[k * N + c];
    C[r * N + c] = s;
  }
}

// refused: the remainder subtracts r * K from a quotient by N
__global__ void bad_sub_div(const float *A, const float *B, float *C, int M, int N, int K) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  int r = idx / N;
  int c = idx - r * K;
  if (r < M && c < N) {
    float s = 0.0f;
    for (int k = 0; k < K; ++k) s += A[r * K + k] * B[k * N + c];
    C[r * N + c] = s;
  }
}

// rewritten: the split swapped (row the remainder by M), the output at the flat index:
// C[c * M + r] is row-major in the transposed product (rows c, columns r, C^T = B^T A^T)
__global__ void fl_swap(const float *A, const float *B, float *C, int M, int N, int K) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= M * N) return;
  int r = idx % M;
  int c = idx / M;
  float s = 0.0f;
  for (int k = 0; k < K; ++k) s += A[r * K + k] * B[k * N + c];
  C[idx] = s;
}

// refused: the quotient held in a narrower type than the remainder's arithmetic
__global__ void bad_sub_narrow(const float *A, const float *B, float *C, int M, int N, int K) {
  long long idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= M * N) return;
  int r = idx / N;
  long long c = idx - r * N;
  float s = 0.0f;
  for (int k = 0; k < K; ++k) s += A[r * K + k] * B[k * N + c];
  C[r * N + c] = s;
}

// refused: the bias is read at another index than row or col
__global__ void bad_bias_index(const float *A, const float *B, const float *b, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    if (b != nullptr) acc += b[col + 1];
    C[row * N + col] = acc;
  }
}

// refused: the epilogue reads the flat index the rewrite drops
__global__ void bad_flat_epi(const float *A, const float *B, const float *bias, float *C, int M, int N, int K) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= M * N) return;
  int r = idx / N;
  int c = idx % N;
  float s = 0.0f;
  for (int k = 0; k < K; ++k) s += A[r * K + k] * B[k * N + c];
  C[idx] = s + bias[idx];
}

// refused: an if with an else after the k-loop
__global__ void bad_bias_else(const float *A, const float *B, const float *b, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    if (b) acc += b[col];
    else acc = -acc;
    C[row * N + col] = acc;
  }
}

struct Dims { int M, N, K; };

// rewritten: the sizes in a struct passed by value
__global__ void st_dims(const float *A, const float *B, float *C, Dims d) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < d.M && col < d.N) {
    float acc = 0.0f;
    for (int k = 0; k < d.K; ++k) acc += A[row * d.K + k] * B[k * d.N + col];
    C[row * d.N + col] = acc;
  }
}

// refused: the sizes read through a pointer to a struct (memory, not a parameter)
__global__ void bad_dims_ptr(const float *A, const float *B, float *C, const Dims *d) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < d->M && col < d->N) {
    float acc = 0.0f;
    for (int k = 0; k < d->K; ++k) acc += A[row * d->K + k] * B[k * d->N + col];
    C[row * d->N + col] = acc;
  }
}

Dims dims_of(int M, int N, int K);

void run(const float *A, const float *B, const float *bias, float *C, int M, int N, int K) {
  fl_return<<<(M * N + 255) / 256, 256>>>(A, B, C, M, N, K);
  fl_block<<<(M * N + 255) / 256, 256>>>(A, B, C, M, N, K);
  fl_sub<<<(M * N + 255) / 256, 256>>>(A, B, C, M, N, K);
  fl_sub_return<<<(M * N + 127) / 128, 128>>>(A, B, C, M, N, K);
  gs_loop<<<1024, 256>>>(A, B, C, M, N, K);
  gs_vars<<<132 * 4, 128>>>(A, B, C, M, N, K);
  dim3 bl(16, 16), g((N + 15) / 16, (M + 15) / 16);
  bias_cond<<<g, bl>>>(A, B, bias, C, M, N, K);
  bias_cond_row<<<g, bl>>>(A, B, bias, C, M, N, K);
  bias_if<<<g, bl>>>(A, B, bias, C, M, N, K);
  bias_if_block<<<g, bl>>>(A, B, bias, C, M, N, K);
  bad_gs_step<<<1024, 256>>>(A, B, C, M, N, K);
  bad_gs_start<<<1024, 256>>>(A, B, C, M, N, K);
  bad_gs_bound<<<1024, 256>>>(A, B, C, M, N, K);
  bad_sub_div<<<(M * N + 255) / 256, 256>>>(A, B, C, M, N, K);
  fl_swap<<<(M * N + 255) / 256, 256>>>(A, B, C, M, N, K);
  bad_sub_narrow<<<(M * N + 255) / 256, 256>>>(A, B, C, M, N, K);
  bad_bias_index<<<g, bl>>>(A, B, bias, C, M, N, K);
  bad_flat_epi<<<(M * N + 255) / 256, 256>>>(A, B, bias, C, M, N, K);
  bad_bias_else<<<g, bl>>>(A, B, bias, C, M, N, K);
  Dims d{M, N, K};
  st_dims<<<g, bl>>>(A, B, C, d);
  bad_dims_ptr<<<g, bl>>>(A, B, C, &d);
}

// refused: a launch whose struct argument is a call (the grid would call it again)
__global__ void bad_dims_call(const float *A, const float *B, float *C, Dims d) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < d.M && col < d.N) {
    float acc = 0.0f;
    for (int k = 0; k < d.K; ++k) acc += A[row * d.K + k] * B[k * d.N + col];
    C[row * d.N + col] = acc;
  }
}

void run_dims_call(const float *A, const float *B, float *C, int M, int N, int K) {
  dim3 bl(16, 16), g((N + 15) / 16, (M + 15) / 16);
  bad_dims_call<<<g, bl>>>(A, B, C, dims_of(M, N, K));
}
