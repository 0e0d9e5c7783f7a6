// Shape classes by idiom (lib/features/shape.c, issue 14): each class on code
// that must get it, beside code that looks alike and must not.
// RUN: %kernelskill features %s --json | %python %S/Inputs/fsum.py | FileCheck %s

// A running minimum kept by compare-and-assign (argmin of a row): a row reduction.
__global__ void argmin_row(const float* a, int* idx, int nrows, int ncols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= nrows) return;
  float lo = a[r * ncols];
  int at = 0;
  for (int j = 1; j < ncols; j++) {
    float v = a[r * ncols + j];
    if (v < lo) {
      lo = v;
      at = j;
    }
  }
  idx[r] = at;
}
// CHECK-LABEL: kernel argmin_row
// CHECK: shape_class="row-reduce"

// The last positive value of a row: assigned under a test, but never compared
// with itself: no accumulator.
__global__ void last_positive(const float* a, float* out, int nrows, int ncols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= nrows) return;
  float last = 0.0f;
  for (int j = 0; j < ncols; j++) {
    float v = a[r * ncols + j];
    if (v > 0.0f) last = v;
  }
  out[r] = last;
}
// CHECK-LABEL: kernel last_positive
// CHECK-NOT: shape_class="row-reduce"
// CHECK: kernel

// A histogram-style scatter through a pointer computed from loaded bins.
__global__ void scatter_weights(float* hist, const int* bin, const float* w, int n, int nb) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float* slot = hist + bin[i] * nb + (i % nb);
    atomicAdd(slot, w[i]);
  }
}
// CHECK-LABEL: kernel scatter_weights
// CHECK: shape_class="gather"

// Forward difference along x of a 2-D field.
__global__ void grad_x(const float* f, float* g, int nx, int ny) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < nx - 1 && y < ny) g[y * nx + x] = f[y * nx + x + 1] - f[y * nx + x];
}
// CHECK-LABEL: kernel grad_x
// CHECK: shape_class="stencil"

// An in-place shift by two: the neighbour is the array being written.
__global__ void shift2(float* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i + 2 < n) a[i] = a[i + 2];
}
// CHECK-LABEL: kernel shift2
// CHECK: shape_class="stencil"

// The magnitude of interleaved complex numbers: fields of one record, a map.
__global__ void cplx_abs2(const float* z, float* m, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) m[i] = z[2 * i] * z[2 * i] + z[2 * i + 1] * z[2 * i + 1];
}
// CHECK-LABEL: kernel cplx_abs2
// CHECK: shape_class="map"

// The two halves of a buffer added: another slice, not a neighbour.
__global__ void add_halves(const float* v, float* out, int half) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < half) out[i] = v[i] + v[i + half];
}
// CHECK-LABEL: kernel add_halves
// CHECK: shape_class="map"

// 2x2 average pooling through a pointer to the cell.
__global__ void avgpool2(const float* in, float* out, int W, int OW, int OH) {
  int ox = blockIdx.x * blockDim.x + threadIdx.x;
  int oy = blockIdx.y * blockDim.y + threadIdx.y;
  if (ox >= OW || oy >= OH) return;
  const float* c = in + 2 * oy * W + 2 * ox;
  out[oy * OW + ox] = 0.25f * (c[0] + c[1] + c[W] + c[W + 1]);
}
// CHECK-LABEL: kernel avgpool2
// CHECK: shape_class="stencil"

// Three slices of one record copied to three outputs: one slice each.
__global__ void split3(const float* qkv, float* q, float* k, float* v, int n, int h) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n * h) {
    int row = i / h, col = i % h;
    int at = row * 3 * h + col;
    q[i] = qkv[at];
    k[i] = qkv[at + h];
    v[i] = qkv[at + 2 * h];
  }
}
// CHECK-LABEL: kernel split3
// CHECK: shape_class="map"

// A 1-D convolution whose width is a parameter: the window's border check.
__global__ void conv1d_any(const float* x, const float* w, float* y, int n, int ksize, int pad) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0.0f;
  for (int t = 0; t < ksize; t++) {
    int p = i - pad + t;
    if (p >= 0 && p < n) s += x[p] * w[t];
  }
  y[i] = s;
}
// CHECK-LABEL: kernel conv1d_any
// CHECK: shape_class="stencil"

// A row sum with a bounds check inside the loop: still a row.
__global__ void row_sum_checked(const float* a, float* s, int nrows, int ncols, int ld) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= nrows) return;
  float acc = 0.0f;
  for (int j = 0; j < ld; j++)
    if (j < ncols) acc += a[r * ld + j];
  s[r] = acc;
}
// CHECK-LABEL: kernel row_sum_checked
// CHECK: shape_class="row-reduce"

// A shared-memory staged copy between barriers: already cooperative.
#define TS 32
__global__ void staged_copy(const float* in, float* out, int n) {
  __shared__ float buf[TS][TS + 1];
  int x = blockIdx.x * TS + threadIdx.x, y = blockIdx.y * TS + threadIdx.y;
  for (int r = 0; r < TS; r += 8)
    if (x < n && y + r < n) buf[threadIdx.y + r][threadIdx.x] = in[(y + r) * n + x];
  __syncthreads();
  for (int r = 0; r < TS; r += 8)
    if (x < n && y + r < n) out[(y + r) * n + x] = buf[threadIdx.y + r][threadIdx.x];
}
// CHECK-LABEL: kernel staged_copy
// CHECK: shape_class="other"

// A thread per row of A^T A: an outer loop of outputs, each an inner reduction.
__global__ void gram_rows(const float* a, float* g, int m, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (int j = 0; j < n; j++) {
    g[i * n + j] = 0.0f;
    for (int k = 0; k < m; k++) g[i * n + j] += a[k * n + i] * a[k * n + j];
  }
}
// CHECK-LABEL: kernel gram_rows
// CHECK: shape_class="other"

// A column sum over two nested loops (batch, time): a column walk.
__global__ void col_sum_bt(const float* d, float* out, int B, int T, int C) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= C) return;
  float s = 0.0f;
  for (int b = 0; b < B; b++)
    for (int t = 0; t < T; t++) s += d[(b * T + t) * C + c];
  out[c] = s;
}
// CHECK-LABEL: kernel col_sum_bt
// CHECK: shape_class="column-walk"

// (B, C, W) -> (B, W, C) from a flat index split by reassigning one temporary.
__global__ void bcw_to_bwc(const float* in, float* out, int B, int C, int W) {
  long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (long)B * C * W) return;
  long r = i;
  int c = r % C;
  r = r / C;
  int w = r % W;
  r = r / W;
  int b = r;
  out[i] = in[((long)b * C + c) * W + w];
}
// CHECK-LABEL: kernel bcw_to_bwc
// CHECK: shape_class="transpose"

// (B, H, S, D) -> (B, S, H, D): the innermost dimension stays, the others swap.
__global__ void swap_heads(const float* in, float* out, int B, int H, int S, int D) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < B * H * S * D) {
    int d = i % D, s = (i / D) % S, h = (i / (D * S)) % H, b = i / (D * S * H);
    out[((b * S + s) * H + h) * D + d] = in[i];
  }
}
// CHECK-LABEL: kernel swap_heads
// CHECK: shape_class="transpose"

// A padded copy: the same order of coordinates, another row pitch: a map.
__global__ void copy_pitched(const float* in, float* out, int rows, int cols, int ld) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows * cols) {
    int r = i / cols, c = i % cols;
    out[r * ld + c] = in[i];
  }
}
// CHECK-LABEL: kernel copy_pitched
// CHECK: shape_class="map"

// A per-channel scale over a flat index: a broadcast, still a map.
__global__ void scale_channels(const float* x, const float* s, float* y, int n, int hw) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * s[i / hw];
}
// CHECK-LABEL: kernel scale_channels
// CHECK: shape_class="map"

// Repeat every element twice: each load a coarser position than the store.
__global__ void repeat2(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 2 * n) out[i] = in[i / 2];
}
// CHECK-LABEL: kernel repeat2
// CHECK: shape_class="other"

// A scrambled read: the index is not affine in the position.
__global__ void scrambled(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[(i * 31 * i + 7) % n];
}
// CHECK-LABEL: kernel scrambled
// CHECK: shape_class="other"

// A valid convolution (no padding, no border checks) with its filter size as
// parameters and the image and channel on blockIdx.z: the loads add the loop
// offsets r, s to the position y, x at the position's own strides, a window.
__global__ void conv_valid_nk(const float* in, const float* w, float* out, int C, int K, int H, int W, int R, int S,
                              int P, int Q) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int nk = blockIdx.z;
  int n = nk / K, k = nk % K;
  if (x < Q && y < P) {
    float acc = 0.0f;
    for (int c = 0; c < C; c++)
      for (int r = 0; r < R; r++)
        for (int s = 0; s < S; s++)
          acc += in[((n * C + c) * H + y + r) * W + x + s] * w[((k * C + c) * R + r) * S + s];
    out[((n * K + k) * P + y) * Q + x] = acc;
  }
}
// CHECK-LABEL: kernel conv_valid_nk
// CHECK: shape_class="stencil"

// A row sum whose row starts at the thread's position times the row length:
// the loop walks its own dimension, not a window around the position.
__global__ void row_sum_stride(const float* a, float* out, int nrows, int ncols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= nrows) return;
  float s = 0.0f;
  for (int j = 0; j < ncols; j++) s += a[r * ncols + j];
  out[r] = s;
}
// CHECK-LABEL: kernel row_sum_stride
// CHECK: shape_class="row-reduce"
