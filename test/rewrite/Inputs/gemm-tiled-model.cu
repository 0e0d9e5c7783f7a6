// gemm-tiled-model.cu — naive GEMMs that only the kernel-shape model reads
// (test/rewrite/gemm-tiled-model.test; no check lines here, the file is
// rewritten): indexes written through function-like macros (BLAS-style
// column-major IDX2C, a macro with its arguments in another order, a macro
// around the whole access, a stride that is a product of parameters) and
// batched GEMMs on blockIdx.z through per-batch pointers (size_t and int
// offsets, the batch index inline, the macros and the batch together, an
// epilogue on static shared memory). Then
// what the rule must refuse: a macro index that is not affine, one that is
// not linear, a macro outside any index, a per-batch pointer re-seated in the
// k-loop, one whose offset reads threadIdx.x, a batched launch whose grid's z
// cannot be read.
#include <cstddef>

#define IDX2C(i, j, ld) (((j) * (ld)) + (i))
#define AT_LD_FIRST(ld, r, c) ((c) + (r) * (ld))
#define ELEM(P, r, c, ld) P[(size_t)(r) * (ld) + (c)]
#define SWZ(i, j, ld) ((((i) ^ (j)) & 1) + (j) * (ld) + (i))
#define SQR(i, j, ld) ((i) * (i) + (j) * (ld))
#define MAD(s, a, b) s += (a) * (b)

// C = A * B, column-major: A m x k (lda), B k x n (ldb), C m x n (ldc)
__global__ void cm_nn(const float *A, const float *B, float *C, int M, int N, int K, int lda, int ldb, int ldc) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < M && j < N) {
    float s = 0.0f;
    for (int k = 0; k < K; k++) s += A[IDX2C(i, k, lda)] * B[IDX2C(k, j, ldb)];
    C[IDX2C(i, j, ldc)] = s;
  }
}

// C = A^T * B, column-major (research_kernels.cu's sgemm_tn_colmajor)
__global__ void cm_tn(int M, int N, int K, const float *A, const float *B, float *C) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < M && j < N) {
    float s = 0.0f;
    for (int k = 0; k < K; k++) s += A[IDX2C(k, i, K)] * B[IDX2C(k, j, K)];
    C[IDX2C(i, j, M)] = s;
  }
}

// C = A * B^T, column-major, alpha/beta reading C's own element
__global__ void cm_nt_ab(int M, int N, int K, float alpha, const float *A, const float *B, float beta, float *C) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < M && j < N) {
    float s = 0.0f;
    for (int k = 0; k < K; ++k) s += A[IDX2C(i, k, M)] * B[IDX2C(j, k, N)];
    C[IDX2C(i, j, M)] = alpha * s + beta * C[IDX2C(i, j, M)];
  }
}

// row-major NN through a macro taking the leading dimension first
__global__ void rm_ld_first(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[AT_LD_FIRST(K, row, k)] * B[AT_LD_FIRST(N, k, col)];
    C[AT_LD_FIRST(N, row, col)] = acc;
  }
}

// the whole access a macro, A's stride a product of parameters (rows of A spaced s apart)
__global__ void rm_elem_prod(const float *A, const float *B, float *C, int M, int N, int K, int s) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += ELEM(A, row, k, K * s) * ELEM(B, k, col, N);
    ELEM(C, row, col, N) = acc;
  }
}

// batched NN, size_t offsets (research_kernels.cu's batched_gemm_nn)
__global__ void bat_nn_size_t(const float *A, const float *B, float *C, int M, int N, int K) {
  int bz = blockIdx.z;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  const float *Ab = A + (size_t)bz * M * K;
  const float *Bb = B + (size_t)bz * K * N;
  float *Cb = C + (size_t)bz * M * N;
  if (row < M && col < N) {
    float s = 0.f;
    for (int k = 0; k < K; ++k) s += Ab[row * K + k] * Bb[k * N + col];
    Cb[row * N + col] = s;
  }
}

// batched NN, int offsets, B shared by the batch, the batch index inline in C's pointer
__global__ void bat_nn_int(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int b = blockIdx.z;
  const float *Ab = A + b * M * K;
  float *Cb = C + blockIdx.z * M * N;
  if (row < M && col < N) {
    float s = 0.f;
    for (int k = 0; k < K; ++k) s += Ab[row * K + k] * B[k * N + col];
    Cb[row * N + col] = s;
  }
}

// batched column-major TN through IDX2C, the launch's grid a dim3 variable
__global__ void bat_cm_tn(int M, int N, int K, const float *A, const float *B, float *C, long strideA, long strideB,
                          long strideC) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  const float *Ab = A + blockIdx.z * strideA;
  const float *Bb = B + blockIdx.z * strideB;
  float *Cb = C + blockIdx.z * strideC;
  if (i < M && j < N) {
    float s = 0.0f;
    for (int k = 0; k < K; k++) s += Ab[IDX2C(k, i, K)] * Bb[IDX2C(k, j, K)];
    Cb[IDX2C(i, j, M)] = s;
  }
}

// batched, a bias + ReLU epilogue, the batch index inline in A's pointer only (B shared)
__global__ void bat_bias_relu(const float *A, const float *B, const float *bias, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  const float *Ab = A + (size_t)blockIdx.z * M * K;
  float *Cb = C + (size_t)blockIdx.z * M * N;
  if (row < M && col < N) {
    float s = 0.f;
    for (int k = 0; k < K; ++k) s += Ab[row * K + k] * B[k * N + col];
    Cb[row * N + col] = fmaxf(s + bias[col], 0.f);
  }
}

// must not: the macro's index is not a polynomial (an xor)
__global__ void neg_swz(int M, int N, int K, const float *A, const float *B, float *C) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < M && j < N) {
    float s = 0.0f;
    for (int k = 0; k < K; k++) s += A[SWZ(k, i, K)] * B[IDX2C(k, j, K)];
    C[IDX2C(i, j, M)] = s;
  }
}

// must not: the macro's index is a polynomial, not linear (k * k)
__global__ void neg_sqr(int M, int N, int K, const float *A, const float *B, float *C) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < M && j < N) {
    float s = 0.0f;
    for (int k = 0; k < K; k++) s += A[SQR(k, i, K)] * B[IDX2C(k, j, K)];
    C[IDX2C(i, j, M)] = s;
  }
}

// must not: a function-like macro that is a statement, not an index
__global__ void neg_mad(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) MAD(acc, A[row * K + k], B[k * N + col]);
    C[row * N + col] = acc;
  }
}

// must not: B's per-batch pointer re-seated by the k-loop
__global__ void neg_bat_reseat(const float *A, const float *B, float *C, int M, int N, int K) {
  int bz = blockIdx.z;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  const float *Ab = A + (size_t)bz * M * K;
  const float *Bb = B + (size_t)bz * K * N;
  float *Cb = C + (size_t)bz * M * N;
  if (row < M && col < N) {
    float s = 0.f;
    for (int k = 0; k < K; ++k, Bb += N) s += Ab[row * K + k] * Bb[col];
    Cb[row * N + col] = s;
  }
}

// must not: a per-batch pointer's offset reads threadIdx.x
__global__ void neg_bat_tid(const float *A, const float *B, float *C, int M, int N, int K) {
  int bz = blockIdx.z;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  const float *Ab = A + (size_t)bz * M * K + threadIdx.x;
  const float *Bb = B + (size_t)bz * K * N;
  float *Cb = C + (size_t)bz * M * N;
  if (row < M && col < N) {
    float s = 0.f;
    for (int k = 0; k < K; ++k) s += Ab[row * K + k] * Bb[k * N + col];
    Cb[row * N + col] = s;
  }
}

// must not (at its launch): a batched kernel launched on a grid that is neither dim3(x, y, z) nor a variable
__global__ void neg_bat_grid(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  const float *Ab = A + (size_t)blockIdx.z * M * K;
  float *Cb = C + (size_t)blockIdx.z * M * N;
  if (row < M && col < N) {
    float s = 0.f;
    for (int k = 0; k < K; ++k) s += Ab[row * K + k] * B[k * N + col];
    Cb[row * N + col] = s;
  }
}

static dim3 grid_of(int m, int n, int b) { return dim3((n + 15) / 16, (m + 15) / 16, b); }

void run(const float *a, const float *b, float *c, int m, int n, int k, int nb) {
  dim3 block(16, 16), grid((n + 15) / 16, (m + 15) / 16), cgrid((m + 15) / 16, (n + 15) / 16, nb);
  cm_nn<<<dim3((m + 15) / 16, (n + 15) / 16), block>>>(a, b, c, m, n, k, m, k, m);
  cm_tn<<<dim3((m + 15) / 16, (n + 15) / 16), block>>>(m, n, k, a, b, c);
  cm_nt_ab<<<dim3((m + 15) / 16, (n + 15) / 16), block>>>(m, n, k, 1.5f, a, b, 0.5f, c);
  rm_ld_first<<<grid, block>>>(a, b, c, m, n, k);
  rm_elem_prod<<<grid, block>>>(a, b, c, m, n, k, 2);
  bat_nn_size_t<<<dim3((n + 15) / 16, (m + 15) / 16, nb), block>>>(a, b, c, m, n, k);
  bat_nn_int<<<dim3((n + 15) / 16, (m + 15) / 16, nb), block, 0>>>(a, b, c, m, n, k);
  bat_cm_tn<<<cgrid, block>>>(m, n, k, a, b, c, (long)m * k, (long)k * n, (long)m * n);
  bat_bias_relu<<<dim3((n + 15) / 16, (m + 15) / 16, nb), block>>>(a, b, b, c, m, n, k);
  neg_swz<<<dim3((m + 15) / 16, (n + 15) / 16), block>>>(m, n, k, a, b, c);
  neg_sqr<<<dim3((m + 15) / 16, (n + 15) / 16), block>>>(m, n, k, a, b, c);
  neg_mad<<<grid, block>>>(a, b, c, m, n, k);
  neg_bat_reseat<<<dim3((n + 15) / 16, (m + 15) / 16, nb), block>>>(a, b, c, m, n, k);
  neg_bat_tid<<<dim3((n + 15) / 16, (m + 15) / 16, nb), block>>>(a, b, c, m, n, k);
  neg_bat_grid<<<grid_of(m, n, nb), block>>>(a, b, c, m, n, k);
}
