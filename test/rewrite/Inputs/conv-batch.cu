// conv-igemm on convolutions in other public styles: a loop over the images
// inside the kernel (blockIdx.z the output channel), valid (unpadded)
// convolutions whose output size is computed from the input's, the image and
// channel carried together in a local `nk = blockIdx.z`. No check lines here:
// see conv-igemm-batch.test.

// The batch loop: grid x, y over the output plane, blockIdx.z = k, one sum
// and one store per image; valid 3x3, OH and OW computed from H and W.
__global__ void conv_batch_loop(const float* in, const float* w, float* out, int N, int C, int K, int H, int W) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int k = blockIdx.z;
  int OH = H - 2, OW = W - 2;
  if (x >= OW || y >= OH) return;
  for (int n = 0; n < N; n++) {
    float s = 0;
    for (int c = 0; c < C; c++)
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
          s += in[((n * C + c) * H + y + i) * W + x + j] * w[((k * C + c) * 3 + i) * 3 + j];
    out[((n * K + k) * OH + y) * OW + x] = s;
  }
}

// The batch loop on a padded 3x3 ("same"): the body under the plane's guard,
// `continue` bounds, the weight first in the product.
__global__ void conv_batch_pad(const float* in, const float* wt, float* out, int N, int C, int K, int H, int W) {
  int ox = threadIdx.x + blockIdx.x * blockDim.x;
  int oy = threadIdx.y + blockIdx.y * blockDim.y;
  int co = blockIdx.z;
  if (ox < W && oy < H) {
    for (int n = 0; n < N; ++n) {
      float acc = 0.0f;
      for (int ci = 0; ci < C; ++ci)
        for (int ky = 0; ky < 3; ++ky)
          for (int kx = 0; kx < 3; ++kx) {
            int iy = oy + ky - 1, ix = ox + kx - 1;
            if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
            acc += wt[((co * C + ci) * 3 + ky) * 3 + kx] * in[((n * C + ci) * H + iy) * W + ix];
          }
      out[((n * K + co) * H + oy) * W + ox] = acc;
    }
  }
}

// The batch loop with a bias start and a ReLU store, valid, P and Q named.
__global__ void conv_batch_bias(const float* in, const float* w, const float* b, float* out, int N, int C, int K,
                                int H, int W) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int k = blockIdx.z;
  int P = H - 2, Q = W - 2;
  if (x >= Q || y >= P) return;
  for (int n = 0; n < N; n++) {
    float s = b[k];
    for (int c = 0; c < C; c++)
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
          s += in[((n * C + c) * H + y + i) * W + x + j] * w[((k * C + c) * 3 + i) * 3 + j];
    out[((n * K + k) * P + y) * Q + x] = fmaxf(s, 0.0f);
  }
}

// A valid convolution on a flat index, the filter's size a parameter and the
// output's computed from it: P = H - R + 1, Q = W - S + 1.
__global__ void conv_valid_flat(const float* x, const float* w, float* y, int N, int C, int K, int H, int W, int R,
                                int S) {
  int P = H - R + 1, Q = W - S + 1;
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= N * K * P * Q) return;
  int q = idx % Q, p = (idx / Q) % P, k = (idx / (Q * P)) % K, n = idx / (Q * P * K);
  float acc = 0.0f;
  for (int c = 0; c < C; c++)
    for (int r = 0; r < R; r++)
      for (int s = 0; s < S; s++)
        acc += x[((n * C + c) * H + p + r) * W + q + s] * w[((k * C + c) * R + r) * S + s];
  y[idx] = acc;
}

// Image and channel in a local of blockIdx.z (grid z N * K), valid, the plane's
// guard written with the size itself: `x < W - 2 && y < H - 2`.
__global__ void conv_nk_valid(const float* in, const float* w, float* out, int C, int K, int H, int W) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int nk = blockIdx.z;
  int n = nk / K, k = nk % K;
  if (x < W - 2 && y < H - 2) {
    float acc = 0.0f;
    for (int c = 0; c < C; c++)
      for (int r = 0; r < 3; r++)
        for (int s = 0; s < 3; s++)
          acc += in[((n * C + c) * H + y + r) * W + x + s] * w[((k * C + c) * 3 + r) * 3 + s];
    out[((n * K + k) * (H - 2) + y) * (W - 2) + x] = acc;
  }
}

// The same with padding 1 ("same" size), bounds by an `if` around the tap.
__global__ void conv_nk_pad(const float* in, const float* w, float* out, int C, int K, int H, int W) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int nk = blockIdx.z;
  int n = nk / K, k = nk % K;
  if (x < W && y < H) {
    float acc = 0.0f;
    for (int c = 0; c < C; c++)
      for (int r = 0; r < 3; r++)
        for (int s = 0; s < 3; s++) {
          int iy = y + r - 1, ix = x + s - 1;
          if (iy >= 0 && iy < H && ix >= 0 && ix < W)
            acc += in[((n * C + c) * H + iy) * W + ix] * w[((k * C + c) * 3 + r) * 3 + s];
        }
    out[((n * K + k) * H + y) * W + x] = acc;
  }
}

// The loop over the images on a flat index over one image's outputs
// (K * H * W), padded 3x3 with `continue` bounds.
__global__ void conv_batch_flat(const float* in, const float* w, float* out, int N, int C, int K, int H, int W) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= K * H * W) return;
  int x = i % W, y = (i / W) % H, k = (i / (W * H)) % K;
  for (int n = 0; n < N; n++) {
    float s = 0.0f;
    for (int c = 0; c < C; c++)
      for (int r = 0; r < 3; r++)
        for (int t = 0; t < 3; t++) {
          int iy = y + r - 1, ix = x + t - 1;
          if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
          s += in[((n * C + c) * H + iy) * W + ix] * w[((k * C + c) * 3 + r) * 3 + t];
        }
    out[((n * K + k) * H + y) * W + x] = s;
  }
}

// ---- Must not change ----

// A flat index over every image's outputs and a loop over the images too:
// each output computed N times.
__global__ void nm_batch_flat_all(const float* in, const float* w, float* out, int N, int C, int K, int H, int W) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N * K * H * W) return;
  int x = i % W, y = (i / W) % H, k = (i / (W * H)) % K;
  for (int n = 0; n < N; n++) {
    float s = 0.0f;
    for (int c = 0; c < C; c++)
      for (int r = 0; r < 3; r++)
        for (int t = 0; t < 3; t++) {
          int iy = y + r - 1, ix = x + t - 1;
          if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
          s += in[((n * C + c) * H + iy) * W + ix] * w[((k * C + c) * 3 + r) * 3 + t];
        }
    out[((n * K + k) * H + y) * W + x] = s;
  }
}


// The batch loop, but the output's index does not hold the image: every
// image's sum lands on the same element.
__global__ void nm_out_no_n(const float* in, const float* w, float* out, int N, int C, int K, int H, int W) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int k = blockIdx.z;
  int OH = H - 2, OW = W - 2;
  if (x >= OW || y >= OH) return;
  for (int n = 0; n < N; n++) {
    float s = 0.0f;
    for (int c = 0; c < C; c++)
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
          s += in[((n * C + c) * H + y + i) * W + x + j] * w[((k * C + c) * 3 + i) * 3 + j];
    out[(k * OH + y) * OW + x] = s;
  }
}

// The accumulator declared before the batch loop: sums run across images.
__global__ void nm_acc_outside(const float* in, const float* w, float* out, int N, int C, int K, int H, int W) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int k = blockIdx.z;
  int OH = H - 2, OW = W - 2;
  if (x >= OW || y >= OH) return;
  float s = 0.0f;
  for (int n = 0; n < N; n++) {
    for (int c = 0; c < C; c++)
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
          s += in[((n * C + c) * H + y + i) * W + x + j] * w[((k * C + c) * 3 + i) * 3 + j];
    out[((n * K + k) * OH + y) * OW + x] = s;
  }
}

// Weights per image: not a convolution's weights.
__global__ void nm_w_n(const float* in, const float* w, float* out, int N, int C, int K, int H, int W) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int k = blockIdx.z;
  int OH = H - 2, OW = W - 2;
  if (x >= OW || y >= OH) return;
  for (int n = 0; n < N; n++) {
    float s = 0.0f;
    for (int c = 0; c < C; c++)
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
          s += in[((n * C + c) * H + y + i) * W + x + j] * w[(((n * K + k) * C + c) * 3 + i) * 3 + j];
    out[((n * K + k) * OH + y) * OW + x] = s;
  }
}

// conv_batch_loop, but launched with grid z N * K: the threads past K would
// write other images' outputs.
__global__ void nm_grid_nk(const float* in, const float* w, float* out, int N, int C, int K, int H, int W) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int k = blockIdx.z;
  int OH = H - 2, OW = W - 2;
  if (x >= OW || y >= OH) return;
  for (int n = 0; n < N; n++) {
    float s = 0.0f;
    for (int c = 0; c < C; c++)
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
          s += in[((n * C + c) * H + y + i) * W + x + j] * w[((k * C + c) * 3 + i) * 3 + j];
    out[((n * K + k) * OH + y) * OW + x] = s;
  }
}

// nk / K for the image, nk % N for the channel.
__global__ void nm_nk_mod_n(const float* x, const float* w, float* y, int N, int C, int K, int H, int W) {
  int ox = blockIdx.x * blockDim.x + threadIdx.x;
  int oy = blockIdx.y * blockDim.y + threadIdx.y;
  int nk = blockIdx.z;
  int n = nk / K, k = nk % N;
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

// Valid, with the output size P, Q passed apart from H, W: nothing says the
// window stays inside the input.
__global__ void nm_valid_pq(const float* x, const float* w, float* y, int N, int C, int K, int H, int W, int R, int S,
                            int P, int Q) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= N * K * P * Q) return;
  int q = idx % Q, p = (idx / Q) % P, k = (idx / (Q * P)) % K, n = idx / (Q * P * K);
  float acc = 0.0f;
  for (int c = 0; c < C; c++)
    for (int r = 0; r < R; r++)
      for (int s = 0; s < S; s++)
        acc += x[((n * C + c) * H + p + r) * W + q + s] * w[((k * C + c) * R + r) * S + s];
  y[idx] = acc;
}

// Valid with P one too large: the last row's window reads past the input.
__global__ void nm_valid_over(const float* x, const float* w, float* y, int N, int C, int K, int H, int W, int R,
                              int S) {
  int P = H - R + 2, Q = W - S + 1;
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= N * K * P * Q) return;
  int q = idx % Q, p = (idx / Q) % P, k = (idx / (Q * P)) % K, n = idx / (Q * P * K);
  float acc = 0.0f;
  for (int c = 0; c < C; c++)
    for (int r = 0; r < R; r++)
      for (int s = 0; s < S; s++)
        acc += x[((n * C + c) * H + p + r) * W + q + s] * w[((k * C + c) * R + r) * S + s];
  y[idx] = acc;
}

// NCHW data summed ky, kx, ci (channels innermost), padded: the template's
// k runs (ci, ky, kx) over NCHW data.
__global__ void nm_rsc(const float* in, const float* w, float* out, int N, int C, int K, int H, int W, int R, int S) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= N * K * H * W) return;
  int q = idx % W, p = (idx / W) % H, k = (idx / (W * H)) % K, n = idx / (W * H * K);
  float acc = 0.0f;
  for (int r = 0; r < R; r++)
    for (int s = 0; s < S; s++)
      for (int c = 0; c < C; c++) {
        int h = p + r - 1, v = q + s - 1;
        if (h < 0 || h >= H || v < 0 || v >= W) continue;
        acc += in[((n * C + c) * H + h) * W + v] * w[((k * C + c) * R + r) * S + s];
      }
  out[idx] = acc;
}

// The same order, valid.
__global__ void nm_rsc_valid(const float* x, const float* w, float* y, int N, int C, int K, int H, int W, int R,
                             int S) {
  int P = H - R + 1, Q = W - S + 1;
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= N * K * P * Q) return;
  int q = idx % Q, p = (idx / Q) % P, k = (idx / (Q * P)) % K, n = idx / (Q * P * K);
  float acc = 0.0f;
  for (int r = 0; r < R; r++)
    for (int s = 0; s < S; s++)
      for (int c = 0; c < C; c++)
        acc += x[((n * C + c) * H + p + r) * W + q + s] * w[((k * C + c) * R + r) * S + s];
  y[idx] = acc;
}

// Loops r, s, c, with the weights read at a k order the gather does not have
// (OHWI weights over NCHW data).
__global__ void nm_rsc_ohwi(const float* in, const float* w, float* out, int N, int C, int K, int H, int W, int R,
                            int S) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= N * K * H * W) return;
  int q = idx % W, p = (idx / W) % H, k = (idx / (W * H)) % K, n = idx / (W * H * K);
  float acc = 0.0f;
  for (int r = 0; r < R; r++)
    for (int s = 0; s < S; s++)
      for (int c = 0; c < C; c++) {
        int h = p + r - 1, v = q + s - 1;
        if (h < 0 || h >= H || v < 0 || v >= W) continue;
        acc += in[((n * C + c) * H + h) * W + v] * w[((k * R + r) * S + s) * C + c];
      }
  out[idx] = acc;
}

void launch_all(const float* x, const float* w, const float* b, float* y, int N, int C, int K, int H, int W) {
  dim3 blk(16, 16);
  conv_batch_loop<<<dim3((W + 13) / 16, (H + 13) / 16, K), blk>>>(x, w, y, N, C, K, H, W);
  conv_batch_pad<<<dim3((W + 15) / 16, (H + 15) / 16, K), blk>>>(x, w, y, N, C, K, H, W);
  conv_batch_bias<<<dim3((W + 13) / 16, (H + 13) / 16, K), blk>>>(x, w, b, y, N, C, K, H, W);
  conv_valid_flat<<<(N * K * (H - 2) * (W - 2) + 255) / 256, 256>>>(x, w, y, N, C, K, H, W, 3, 3);
  conv_nk_valid<<<dim3((W + 13) / 16, (H + 13) / 16, N * K), blk>>>(x, w, y, C, K, H, W);
  conv_nk_pad<<<dim3((W + 15) / 16, (H + 15) / 16, N * K), blk>>>(x, w, y, C, K, H, W);
  nm_out_no_n<<<dim3(W, H, K), blk>>>(x, w, y, N, C, K, H, W);
  nm_acc_outside<<<dim3(W, H, K), blk>>>(x, w, y, N, C, K, H, W);
  nm_w_n<<<dim3(W, H, K), blk>>>(x, w, y, N, C, K, H, W);
  nm_grid_nk<<<dim3(W, H, N * K), blk>>>(x, w, y, N, C, K, H, W);
  conv_batch_flat<<<(K * H * W + 255) / 256, 256>>>(x, w, y, N, C, K, H, W);
  nm_batch_flat_all<<<(N * K * H * W + 255) / 256, 256>>>(x, w, y, N, C, K, H, W);
  nm_nk_mod_n<<<dim3(W, H, N * K), blk>>>(x, w, y, N, C, K, H, W);
  nm_valid_pq<<<N * K * H * W, 256>>>(x, w, y, N, C, K, H, W, 3, 3, H - 2, W - 2);
  nm_valid_over<<<N * K * H * W, 256>>>(x, w, y, N, C, K, H, W, 3, 3);
  nm_rsc<<<N * K * H * W, 256>>>(x, w, y, N, C, K, H, W, 3, 3);
  nm_rsc_valid<<<N * K * H * W, 256>>>(x, w, y, N, C, K, H, W, 3, 3);
  nm_rsc_ohwi<<<N * K * H * W, 256>>>(x, w, y, N, C, K, H, W, 3, 3);
}
