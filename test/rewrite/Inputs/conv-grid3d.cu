// conv-igemm on convolutions over a 2-D grid (x over the output columns, y
// over the rows) with the image and output channel on blockIdx.z. No CHECK
// lines here: see conv-igemm-grid3d.test.

// The corpus form: k = blockIdx.z % K, n = blockIdx.z / K, early return on the plane.
__global__ void conv2d_grid3d(const float* x, const float* w, float* y, int C, int K, int H, int W) {
  int ox = blockIdx.x * blockDim.x + threadIdx.x;
  int oy = blockIdx.y * blockDim.y + threadIdx.y;
  int k = blockIdx.z % K, n = blockIdx.z / K;
  if (ox >= W || oy >= H) return;
  float acc = 0.0f;
  for (int c = 0; c < C; c++)
    for (int ky = 0; ky < 3; ky++)
      for (int kx = 0; kx < 3; kx++) {
        int iy = oy + ky - 1, ix = ox + kx - 1;
        if (iy >= 0 && iy < H && ix >= 0 && ix < W)
          acc += x[((n * C + c) * H + iy) * W + ix] * w[((k * C + c) * 3 + ky) * 3 + kx];
      }
  y[((n * K + k) * H + oy) * W + ox] = acc;
}

// Strided with its output size as parameters, y before x in the declarations,
// the body under if (ox < OW && oy < OH), `continue` bounds, the grid's z
// written K * N.
__global__ void conv_s2_grid(const float* in, const float* wt, float* out, int Cin, int Cout, int H, int W, int OH,
                             int OW) {
  const int oy = threadIdx.y + blockIdx.y * blockDim.y;
  const int ox = threadIdx.x + blockIdx.x * blockDim.x;
  const int co = blockIdx.z % Cout;
  const int nb = blockIdx.z / Cout;
  if (oy < OH && ox < OW) {
    float s = 0.0f;
    for (int ci = 0; ci < Cin; ci++)
      for (int ky = 0; ky < 5; ky++) {
        int iy = oy * 2 - 2 + ky;
        if (iy < 0 || iy >= H) continue;
        for (int kx = 0; kx < 5; kx++) {
          int ix = ox * 2 - 2 + kx;
          if (ix < 0 || ix >= W) continue;
          s += wt[((co * Cin + ci) * 5 + ky) * 5 + kx] * in[((nb * Cin + ci) * H + iy) * W + ix];
        }
      }
    out[((nb * Cout + co) * OH + oy) * OW + ox] = s;
  }
}

// Must not change: the channel is blockIdx.z / N (image-minor z).
__global__ void conv_zswap(const float* x, const float* w, float* y, int N, int C, int K, int H, int W) {
  int ox = blockIdx.x * blockDim.x + threadIdx.x;
  int oy = blockIdx.y * blockDim.y + threadIdx.y;
  int n = blockIdx.z % N, k = blockIdx.z / N;
  if (ox >= W || oy >= H) return;
  float acc = 0.0f;
  for (int c = 0; c < C; c++)
    for (int ky = 0; ky < 3; ky++)
      for (int kx = 0; kx < 3; kx++) {
        int iy = oy + ky - 1, ix = ox + kx - 1;
        if (iy >= 0 && iy < H && ix >= 0 && ix < W)
          acc += x[((n * C + c) * H + iy) * W + ix] * w[((k * C + c) * 3 + ky) * 3 + kx];
      }
  y[((n * K + k) * H + oy) * W + ox] = acc;
}

// conv2d_grid3d with `#pragma unroll` on the filter loops (attributed statements).
__global__ void conv_unrolled(const float* x, const float* w, float* y, int C, int K, int H, int W) {
  int ox = blockIdx.x * blockDim.x + threadIdx.x;
  int oy = blockIdx.y * blockDim.y + threadIdx.y;
  int k = blockIdx.z % K, n = blockIdx.z / K;
  if (ox >= W || oy >= H) return;
  float acc = 0.0f;
  for (int c = 0; c < C; c++) {
#pragma unroll
    for (int ky = 0; ky < 3; ky++) {
#pragma unroll
      for (int kx = 0; kx < 3; kx++) {
        int iy = oy + ky - 1, ix = ox + kx - 1;
        if (iy >= 0 && iy < H && ix >= 0 && ix < W)
          acc += x[((n * C + c) * H + iy) * W + ix] * w[((k * C + c) * 3 + ky) * 3 + kx];
      }
    }
  }
  y[((n * K + k) * H + oy) * W + ox] = acc;
}

// A bias and a ReLU: the accumulator starts from b[k], the store is fmaxf(acc, 0.0f).
__global__ void conv_bias_relu(const float* x, const float* w, const float* b, float* y, int C, int K, int H, int W) {
  int ox = blockIdx.x * blockDim.x + threadIdx.x;
  int oy = blockIdx.y * blockDim.y + threadIdx.y;
  int k = blockIdx.z % K, n = blockIdx.z / K;
  if (ox >= W || oy >= H) return;
  float acc = b[k];
  for (int c = 0; c < C; c++)
    for (int ky = 0; ky < 3; ky++)
      for (int kx = 0; kx < 3; kx++) {
        int iy = oy + ky - 1, ix = ox + kx - 1;
        if (iy >= 0 && iy < H && ix >= 0 && ix < W)
          acc += x[((n * C + c) * H + iy) * W + ix] * w[((k * C + c) * 3 + ky) * 3 + kx];
      }
  y[((n * K + k) * H + oy) * W + ox] = fmaxf(acc, 0.0f);
}

// refused: fmaxf inside the sum, not a ReLU of the stored accumulator
__global__ void conv_bad_max(const float* x, const float* w, float* y, int C, int K, int H, int W) {
  int ox = blockIdx.x * blockDim.x + threadIdx.x;
  int oy = blockIdx.y * blockDim.y + threadIdx.y;
  int k = blockIdx.z % K, n = blockIdx.z / K;
  if (ox >= W || oy >= H) return;
  float acc = 0.0f;
  for (int c = 0; c < C; c++)
    for (int ky = 0; ky < 3; ky++)
      for (int kx = 0; kx < 3; kx++) {
        int iy = oy + ky - 1, ix = ox + kx - 1;
        if (iy >= 0 && iy < H && ix >= 0 && ix < W)
          acc += fmaxf(x[((n * C + c) * H + iy) * W + ix], 0.0f) * w[((k * C + c) * 3 + ky) * 3 + kx];
      }
  y[((n * K + k) * H + oy) * W + ox] = acc;
}

// A padded read: the input as `in_bounds ? x[..] : 0.0f`, the weight first.
__global__ void conv_padded_sel(const float* x, const float* w, float* y, int C, int K, int H, int W) {
  int ox = blockIdx.x * blockDim.x + threadIdx.x;
  int oy = blockIdx.y * blockDim.y + threadIdx.y;
  int k = blockIdx.z % K, n = blockIdx.z / K;
  if (ox >= W || oy >= H) return;
  float acc = 0.0f;
  for (int c = 0; c < C; c++)
    for (int ky = 0; ky < 3; ky++)
      for (int kx = 0; kx < 3; kx++) {
        int iy = oy + ky - 1, ix = ox + kx - 1;
        acc += w[((k * C + c) * 3 + ky) * 3 + kx] *
               ((iy >= 0 && iy < H && ix >= 0 && ix < W) ? x[((n * C + c) * H + iy) * W + ix] : 0.0f);
      }
  y[((n * K + k) * H + oy) * W + ox] = acc;
}

// The factors loaded into locals first, the input as a padded read.
__global__ void conv_tap_locals(const float* x, const float* w, float* y, int C, int K, int H, int W) {
  int ox = blockIdx.x * blockDim.x + threadIdx.x;
  int oy = blockIdx.y * blockDim.y + threadIdx.y;
  int k = blockIdx.z % K, n = blockIdx.z / K;
  if (ox >= W || oy >= H) return;
  float acc = 0.0f;
  for (int c = 0; c < C; c++)
    for (int ky = 0; ky < 3; ky++)
      for (int kx = 0; kx < 3; kx++) {
        int iy = oy + ky - 1, ix = ox + kx - 1;
        float xv = (iy >= 0 && iy < H && ix >= 0 && ix < W) ? x[((n * C + c) * H + iy) * W + ix] : 0.0f;
        float wv = w[((k * C + c) * 3 + ky) * 3 + kx];
        acc += xv * wv;
      }
  y[((n * K + k) * H + oy) * W + ox] = acc;
}

// refused: a local that scales the input (not one load)
__global__ void conv_tap_scaled(const float* x, const float* w, float* y, int C, int K, int H, int W) {
  int ox = blockIdx.x * blockDim.x + threadIdx.x;
  int oy = blockIdx.y * blockDim.y + threadIdx.y;
  int k = blockIdx.z % K, n = blockIdx.z / K;
  if (ox >= W || oy >= H) return;
  float acc = 0.0f;
  for (int c = 0; c < C; c++)
    for (int ky = 0; ky < 3; ky++)
      for (int kx = 0; kx < 3; kx++) {
        int iy = oy + ky - 1, ix = ox + kx - 1;
        if (iy >= 0 && iy < H && ix >= 0 && ix < W) {
          float xv = 2.0f * x[((n * C + c) * H + iy) * W + ix];
          acc += xv * w[((k * C + c) * 3 + ky) * 3 + kx];
        }
      }
  y[((n * K + k) * H + oy) * W + ox] = acc;
}

// refused: the padding reads as 1.0f, not 0
__global__ void conv_sel_one(const float* x, const float* w, float* y, int C, int K, int H, int W) {
  int ox = blockIdx.x * blockDim.x + threadIdx.x;
  int oy = blockIdx.y * blockDim.y + threadIdx.y;
  int k = blockIdx.z % K, n = blockIdx.z / K;
  if (ox >= W || oy >= H) return;
  float acc = 0.0f;
  for (int c = 0; c < C; c++)
    for (int ky = 0; ky < 3; ky++)
      for (int kx = 0; kx < 3; kx++) {
        int iy = oy + ky - 1, ix = ox + kx - 1;
        acc += (iy >= 0 && iy < H && ix >= 0 && ix < W ? x[((n * C + c) * H + iy) * W + ix] : 1.0f) *
               w[((k * C + c) * 3 + ky) * 3 + kx];
      }
  y[((n * K + k) * H + oy) * W + ox] = acc;
}

// refused: the selection checks the rows only (the columns' padding would be read)
__global__ void conv_sel_rows(const float* x, const float* w, float* y, int C, int K, int H, int W) {
  int ox = blockIdx.x * blockDim.x + threadIdx.x;
  int oy = blockIdx.y * blockDim.y + threadIdx.y;
  int k = blockIdx.z % K, n = blockIdx.z / K;
  if (ox >= W || oy >= H) return;
  float acc = 0.0f;
  for (int c = 0; c < C; c++)
    for (int ky = 0; ky < 3; ky++)
      for (int kx = 0; kx < 3; kx++) {
        int iy = oy + ky - 1, ix = ox + kx - 1;
        acc += (iy >= 0 && iy < H ? x[((n * C + c) * H + iy) * W + ix] : 0.0f) * w[((k * C + c) * 3 + ky) * 3 + kx];
      }
  y[((n * K + k) * H + oy) * W + ox] = acc;
}

// The same kernel as conv2d_grid3d, for the launches below.
__global__ void conv_grid_var(const float* x, const float* w, float* y, int C, int K, int H, int W) {
  int ox = blockIdx.x * blockDim.x + threadIdx.x;
  int oy = blockIdx.y * blockDim.y + threadIdx.y;
  int k = blockIdx.z % K, n = blockIdx.z / K;
  if (ox >= W || oy >= H) return;
  float acc = 0.0f;
  for (int c = 0; c < C; c++)
    for (int ky = 0; ky < 3; ky++)
      for (int kx = 0; kx < 3; kx++) {
        int iy = oy + ky - 1, ix = ox + kx - 1;
        if (iy >= 0 && iy < H && ix >= 0 && ix < W)
          acc += x[((n * C + c) * H + iy) * W + ix] * w[((k * C + c) * 3 + ky) * 3 + kx];
      }
  y[((n * K + k) * H + oy) * W + ox] = acc;
}

void run_grid3d(const float* x, const float* w, float* y, int N, int C, int K, int H, int W) {
  conv2d_grid3d<<<dim3((W + 15) / 16, (H + 15) / 16, N * K), dim3(16, 16)>>>(x, w, y, C, K, H, W);
  conv_unrolled<<<dim3((W + 15) / 16, (H + 15) / 16, N * K), dim3(16, 16)>>>(x, w, y, C, K, H, W);
  conv_bias_relu<<<dim3((W + 15) / 16, (H + 15) / 16, N * K), dim3(16, 16)>>>(x, w, w, y, C, K, H, W);
  conv_bad_max<<<dim3((W + 15) / 16, (H + 15) / 16, N * K), dim3(16, 16)>>>(x, w, y, C, K, H, W);
  conv_padded_sel<<<dim3((W + 15) / 16, (H + 15) / 16, N * K), dim3(16, 16)>>>(x, w, y, C, K, H, W);
  conv_tap_locals<<<dim3((W + 15) / 16, (H + 15) / 16, N * K), dim3(16, 16)>>>(x, w, y, C, K, H, W);
  conv_tap_scaled<<<dim3((W + 15) / 16, (H + 15) / 16, N * K), dim3(16, 16)>>>(x, w, y, C, K, H, W);
  conv_sel_one<<<dim3((W + 15) / 16, (H + 15) / 16, N * K), dim3(16, 16)>>>(x, w, y, C, K, H, W);
  conv_sel_rows<<<dim3((W + 15) / 16, (H + 15) / 16, N * K), dim3(16, 16)>>>(x, w, y, C, K, H, W);
}

void run_s2(const float* x, const float* w, float* y, int N, int C, int K, int H, int W) {
  int OH = (H + 4 - 5) / 2 + 1, OW = (W + 4 - 5) / 2 + 1;
  conv_s2_grid<<<dim3((OW + 15) / 16, (OH + 15) / 16, K * N), dim3(16, 16)>>>(x, w, y, C, K, H, W, OH, OW);
}

void run_zswap(const float* x, const float* w, float* y, int N, int C, int K, int H, int W) {
  conv_zswap<<<dim3((W + 15) / 16, (H + 15) / 16, N * K), dim3(16, 16)>>>(x, w, y, N, C, K, H, W);
}

// Must not change: the grid is a variable (its z extent is not at the launch).
void run_grid_var(const float* x, const float* w, float* y, int N, int C, int K, int H, int W) {
  dim3 grid((W + 15) / 16, (H + 15) / 16, N * K);
  conv_grid_var<<<grid, dim3(16, 16)>>>(x, w, y, C, K, H, W);
}
