// Inputs for gemm-tiled-walk.test: naive GEMMs reading their operands through
// pointers derived from the parameters (`const float *b = B + col;`), walked
// once per k (`*a++`, `*b; b += N;`) or indexed (`b[k * N]`); near misses that
// must refuse.
#include <cuda_runtime.h>

// rewritten: A's row walked by *a++, B's column by *b; b += N
__global__ void pw_walk(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    const float *a = A + row * K;
    const float *b = B + col;
    float sum = 0.0f;
    for (int k = 0; k < K; ++k) {
      sum += *a++ * *b;
      b += N;
    }
    C[row * N + col] = sum;
  }
}

// rewritten: the derived pointers indexed, a[k] and b[k * N]
__global__ void pw_index(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    const float *a = A + row * K;
    const float *b = B + col;
    float sum = 0.0f;
    for (int k = 0; k < K; ++k) sum += a[k] * b[k * N];
    C[row * N + col] = sum;
  }
}

// rewritten: A given transposed (K x M) walked down its column, both advanced after the update
__global__ void pw_trans(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M || col >= N) return;
  const float *pa = row + A;
  const float *pb = B + col;
  float acc = 0.0f;
  for (int k = 0; k < K; k++) {
    acc += *pa * *pb;
    pa += M;
    pb += N;
  }
  C[row * N + col] = acc;
}

// rewritten: the row pointer advanced by ++a after the update
__global__ void pw_preinc(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    const float *a = A + row * K;
    float sum = 0.0f;
    for (int k = 0; k < K; ++k) {
      sum += *a * B[k * N + col];
      ++a;
    }
    C[row * N + col] = sum;
  }
}

// rewritten: b advanced in the loop's increment (after the body, as a last statement)
__global__ void pw_header(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    const float *a = A + row * K, *b = B + col;
    float sum = 0.0f;
    for (int k = 0; k < K; ++k, b += N) sum += *a++ * *b;
    C[row * N + col] = sum;
  }
}

// refused: b advanced in the increment and again in the body
__global__ void bad_pw_header_twice(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    const float *a = A + row * K, *b = B + col;
    float sum = 0.0f;
    for (int k = 0; k < K; ++k, b += N) {
      sum += *a++ * *b;
      b += N;
    }
    C[row * N + col] = sum;
  }
}

// refused: b advanced twice per k
__global__ void bad_pw_twice(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    const float *a = A + row * K;
    const float *b = B + col;
    float sum = 0.0f;
    for (int k = 0; k < K; ++k) {
      sum += *a++ * *b;
      b += N;
      b += N;
    }
    C[row * N + col] = sum;
  }
}

// refused: b advanced on odd k only
__global__ void bad_pw_cond(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    const float *a = A + row * K;
    const float *b = B + col;
    float sum = 0.0f;
    for (int k = 0; k < K; ++k) {
      sum += *a++ * *b;
      if (k & 1) b += N;
    }
    C[row * N + col] = sum;
  }
}

// refused: a read but never advanced
__global__ void bad_pw_stuck(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    const float *a = A + row * K;
    const float *b = B + col;
    float sum = 0.0f;
    for (int k = 0; k < K; ++k) {
      sum += *a * *b;
      b += N;
    }
    C[row * N + col] = sum;
  }
}

// refused: a advanced before it is read (*++a)
__global__ void bad_pw_pre(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    const float *a = A + row * K;
    const float *b = B + col;
    float sum = 0.0f;
    for (int k = 0; k < K; ++k) {
      sum += *++a * *b;
      b += N;
    }
    C[row * N + col] = sum;
  }
}

// refused: b advanced by a step read from memory (not the same for every k)
__global__ void bad_pw_step(const float *A, const float *B, const int *ld, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    const float *a = A + row * K;
    const float *b = B + col;
    float sum = 0.0f;
    for (int k = 0; k < K; ++k) {
      sum += *a++ * *b;
      b += ld[k];
    }
    C[row * N + col] = sum;
  }
}

// refused: a walked pointer also read after the k-loop
__global__ void bad_pw_after(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    const float *a = A + row * K;
    const float *b = B + col;
    float sum = 0.0f;
    for (int k = 0; k < K; ++k) {
      sum += *a++ * *b;
      b += N;
    }
    sum += *b;
    C[row * N + col] = sum;
  }
}

void run(const float *A, const float *B, const int *ld, float *C, int M, int N, int K) {
  dim3 bl(16, 16), g((N + 15) / 16, (M + 15) / 16);
  pw_walk<<<g, bl>>>(A, B, C, M, N, K);
  pw_index<<<g, bl>>>(A, B, C, M, N, K);
  pw_trans<<<g, bl>>>(A, B, C, M, N, K);
  pw_preinc<<<g, bl>>>(A, B, C, M, N, K);
  pw_header<<<g, bl>>>(A, B, C, M, N, K);
  bad_pw_header_twice<<<g, bl>>>(A, B, C, M, N, K);
  bad_pw_twice<<<g, bl>>>(A, B, C, M, N, K);
  bad_pw_cond<<<g, bl>>>(A, B, C, M, N, K);
  bad_pw_stuck<<<g, bl>>>(A, B, C, M, N, K);
  bad_pw_pre<<<g, bl>>>(A, B, C, M, N, K);
  bad_pw_step<<<g, bl>>>(A, B, ld, C, M, N, K);
  bad_pw_after<<<g, bl>>>(A, B, C, M, N, K);
}
