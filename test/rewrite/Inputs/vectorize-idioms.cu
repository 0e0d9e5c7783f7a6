// Kernels for the vectorize rule's idiom tests (issue 14): __half and
// __nv_bfloat16 elements computed in f32, a pointer tested against NULL, a
// read-only broadcast operand. bad_* must be refused.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cstddef>

__global__ void add_h(const __half* a, const __half* b, __half* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = __float2half(__half2float(a[i]) + __half2float(b[i]));
}

__global__ void scale_bf(const __nv_bfloat16* x, __nv_bfloat16* y, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __float2bfloat16(__bfloat162float(x[i]) * s);
}

__global__ void masked(const float* x, const float* mask, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = (mask != NULL) ? x[i] * mask[i] : x[i];
}

__global__ void bias_mod(float* y, const float* bias, int cols, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += bias[i % cols];
}

// The broadcast operand is written: another lane's store may be its input.
__global__ void bad_write_other(float* y, float* bias, int cols, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) bias[i % cols] = y[i];
}

// The tested pointer is written through.
__global__ void bad_null_store(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    if (y != nullptr) y[i] = x[i];
  }
}

// Two pointers compared with each other: not a null test.
__global__ void bad_ptr_cmp(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = (x == y) ? 0.f : x[i];
}

// A grid-stride loop as the whole body (vendor-sample style).
__global__ void saxpy_gs(int n, float a, const float* x, float* y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    y[i] = a * x[i] + y[i];
  }
}

// A break leaves the loop at an element: the lanes would not.
__global__ void bad_gs_break(int n, const float* x, float* y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    if (x[i] < 0.f) break;
    y[i] = x[i];
  }
}

// The bound changes in the body.
__global__ void bad_gs_bound(int n, const float* x, float* y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    y[i] = x[i] + (float)(n--);
  }
}

void run(const __half* ha, const __half* hb, __half* hc, const __nv_bfloat16* bx, __nv_bfloat16* by, const float* x,
         const float* m, float* y, float* bias, int cols, int n) {
  add_h<<<(n + 255) / 256, 256>>>(ha, hb, hc, n);
  scale_bf<<<(n + 255) / 256, 256>>>(bx, by, 0.5f, n);
  masked<<<(n + 255) / 256, 256>>>(x, m, y, n);
  masked<<<(n + 255) / 256, 256>>>(x, NULL, y, n);
  bias_mod<<<(n + 255) / 256, 256>>>(y, bias, cols, n);
  bad_write_other<<<(n + 255) / 256, 256>>>(y, bias, cols, n);
  bad_null_store<<<(n + 255) / 256, 256>>>(x, y, n);
  bad_ptr_cmp<<<(n + 255) / 256, 256>>>(x, y, n);
  saxpy_gs<<<2, 256>>>(n, 2.0f, x, y);
  bad_gs_break<<<2, 256>>>(n, x, y);
  bad_gs_bound<<<2, 256>>>(n, x, y);
}

// The grid through a host variable n = rows * cols, the kernel's bound rows * cols.
__global__ void bias_rc(float* y, const float* bias, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows * cols) y[i] += bias[i % cols];
}

// rows's address is taken only after the launch: n still holds rows * cols there.
void host_after(float* y, const float* bias, int rows, int cols) {
  int n = rows * cols;
  bias_rc<<<(n + 255) / 256, 256>>>(y, bias, rows, cols);
  void* args[] = {&y, &bias, &rows, &cols};
  (void)args;
}

__global__ void bad_bias_loop(float* y, const float* bias, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows * cols) y[i] += bias[i % cols];
}

// In a loop the write after the launch reaches the next launch: n is stale.
void host_loop(float* y, const float* bias, int rows, int cols) {
  int n = rows * cols;
  for (int k = 0; k < 2; k++) {
    bad_bias_loop<<<(n + 255) / 256, 256>>>(y, bias, rows, cols);
    rows++;
  }
}

// a select whose arms are elements (an lvalue conditional in C++): read
__global__ void select_ab(const float* c, const float* a, const float* b, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = c[i] > 0.0f ? a[i] : b[i];
}

// reads through the read-only cache hint (__ldg): plain reads of the elements
__global__ void scale_ldg(const float* __restrict__ x, const float* __restrict__ g, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __ldg(&x[i]) * __ldg(&g[i]) + __ldg(&(x[i]));
}

// a store through a conditional writes one arm's element only: refused
__global__ void bad_select_store(const float* c, float* a, float* b, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = c[i];
    (c[i] > 0.0f ? a[i] : b[i]) = 1.0f;
  }
}

void selects(const float* c, float* a, float* b, float* y, int n) {
  select_ab<<<(n + 255) / 256, 256>>>(c, a, b, y, n);
  scale_ldg<<<(n + 255) / 256, 256>>>(c, a, y, n);
  bad_select_store<<<(n + 255) / 256, 256>>>(c, a, b, y, n);
}
