// Inputs for gemm-tiled-grid.test: GEMMs written for sizes that are block
// multiples (no bounds guard: every thread of the grid writes its output),
// with thread indices stepping by a block tile (blockIdx.y * TILE +
// threadIdx.y) and kernel templates over the tile (template <int BLOCK_SIZE>).
#include <cuda_runtime.h>

#define TILE 16

// rewritten: the samples' naive matrixMul, a template over its tile, no guard
template <int BLOCK_SIZE>
__global__ void mm_tpl(float *C, float *A, float *B, int wA, int wB) {
  int row = blockIdx.y * BLOCK_SIZE + threadIdx.y;
  int col = blockIdx.x * BLOCK_SIZE + threadIdx.x;
  float Csub = 0;
  for (int k = 0; k < wA; ++k) Csub += A[row * wA + k] * B[k * wB + col];
  C[row * wB + col] = Csub;
}

// rewritten: no guard, blockDim indices (any block covers one range)
__global__ void mm_grid(const float *a, const float *b, float *c, int K, int ldb) {
  int col = blockDim.x * blockIdx.x + threadIdx.x;
  int row = blockDim.y * blockIdx.y + threadIdx.y;
  float acc = 0.0f;
  for (int k = 0; k < K; k++) acc += a[row * K + k] * b[k * ldb + col];
  c[row * ldb + col] = acc;
}

// rewritten: a guard, a macro tile (M from the guard, the block shown to be TILE x TILE)
__global__ void mm_tile_guard(const float *A, const float *B, float *C, int M, int N, int K) {
  int r = blockIdx.y * TILE + threadIdx.y;
  int c = threadIdx.x + TILE * blockIdx.x;
  if (r < M && c < N) {
    float s = 0.0f;
    for (int k = 0; k < K; ++k) s += A[r * K + k] * B[k * N + c];
    C[r * N + c] = s;
  }
}

// rewritten: two tile parameters, not square
template <int TY, int TX>
__global__ void mm_tpl2(float *C, const float *A, const float *B, int K, int N) {
  int row = blockIdx.y * TY + threadIdx.y;
  int col = blockIdx.x * TX + threadIdx.x;
  float acc = 0.0f;
  for (int k = 0; k < K; k++) acc += A[row * K + k] * B[k * N + col];
  C[row * N + col] = acc;
}

// refused: a template over a type
template <typename T>
__global__ void neg_type_tpl(T *C, const T *A, const T *B, int K, int N) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  T acc = 0;
  for (int k = 0; k < K; k++) acc += A[row * K + k] * B[k * N + col];
  C[row * N + col] = acc;
}

// refused: launched on 8 x 8 blocks, its index steps by 16 (rows 8..15 of each tile never written)
__global__ void neg_gaps(const float *A, const float *B, float *C, int K, int N) {
  int row = blockIdx.y * TILE + threadIdx.y;
  int col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.0f;
  for (int k = 0; k < K; k++) acc += A[row * K + k] * B[k * N + col];
  C[row * N + col] = acc;
}

// refused: its block variable is changed before the launch
__global__ void neg_block_var(const float *A, const float *B, float *C, int K, int N) {
  int row = blockIdx.y * TILE + threadIdx.y;
  int col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.0f;
  for (int k = 0; k < K; k++) acc += A[row * K + k] * B[k * N + col];
  C[row * N + col] = acc;
}

// refused: no guard and declared before its definition (the declaration would keep the old parameters)
__global__ void neg_declared(const float *A, const float *B, float *C, int K, int N);
__global__ void neg_declared(const float *A, const float *B, float *C, int K, int N) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int k = 0; k < K; k++) acc += A[row * K + k] * B[k * N + col];
  C[row * N + col] = acc;
}

// refused: no guard and its address is taken
__global__ void neg_pointer(const float *A, const float *B, float *C, int K, int N) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int k = 0; k < K; k++) acc += A[row * K + k] * B[k * N + col];
  C[row * N + col] = acc;
}

// refused: the template argument is not a literal
template <int T>
__global__ void neg_tpl_expr(const float *A, const float *B, float *C, int K, int N) {
  int row = blockIdx.y * T + threadIdx.y;
  int col = blockIdx.x * T + threadIdx.x;
  float acc = 0.0f;
  for (int k = 0; k < K; k++) acc += A[row * K + k] * B[k * N + col];
  C[row * N + col] = acc;
}

void run(float *A, float *B, float *C, int n, int m) {
  dim3 threads(16, 16);
  dim3 grid(n / 16, m / 16);
  mm_tpl<16><<<grid, threads>>>(C, A, B, n, n);
  dim3 b2(32, 4);
  mm_grid<<<dim3(n / 32, m / 4), b2>>>(A, B, C, n, n);
  mm_tile_guard<<<dim3((n + TILE - 1) / TILE, (m + TILE - 1) / TILE), dim3(TILE, TILE)>>>(A, B, C, m, n, n);
  mm_tpl2<8, 32><<<dim3(n / 32, m / 8), dim3(32, 8)>>>(C, A, B, n, n);
  neg_type_tpl<float><<<grid, threads>>>(C, A, B, n, n);
  neg_gaps<<<grid, dim3(8, 8)>>>(A, B, C, n, n);
  dim3 tb(16, 16);
  tb.y = 8;
  neg_block_var<<<grid, tb>>>(A, B, C, n, n);
  neg_declared<<<grid, threads>>>(A, B, C, n, n);
  void (*fp)(const float *, const float *, float *, int, int) = neg_pointer;
  neg_pointer<<<grid, threads>>>(A, B, C, n, n);
  (void)fp;
  neg_tpl_expr<(16)><<<grid, threads>>>(A, B, C, n, n);
}
