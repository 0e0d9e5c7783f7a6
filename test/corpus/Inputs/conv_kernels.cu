// Convolution kernels of the corpus (issue 15), written in the styles of
// framework and teaching code: direct convolutions one thread per output (the
// conv-igemm rule's idiom class, several ways of writing it) and neighbours it
// must leave alone or does not take yet (manifest-conv.json says which).
#include <cuda_runtime.h>

// Caffe-style naming: every size, stride, padding and dilation a parameter.
__global__ void conv2d_forward_naive(const float* data_im, const float* weight, float* data_out, const int num,
                                     const int channels, const int height, const int width, const int channels_out,
                                     const int height_out, const int width_out, const int kernel_h,
                                     const int kernel_w, const int pad_h, const int pad_w, const int stride_h,
                                     const int stride_w, const int dilation_h, const int dilation_w) {
  const int index = blockIdx.x * blockDim.x + threadIdx.x;
  if (index >= num * channels_out * height_out * width_out) return;
  const int w_out = index % width_out;
  const int h_index = index / width_out;
  const int h_out = h_index % height_out;
  const int c_out = (h_index / height_out) % channels_out;
  const int n = index / (width_out * height_out * channels_out);
  float val = 0.f;
  for (int c = 0; c < channels; ++c) {
    for (int i = 0; i < kernel_h; ++i) {
      for (int j = 0; j < kernel_w; ++j) {
        const int h_in = h_out * stride_h - pad_h + i * dilation_h;
        const int w_in = w_out * stride_w - pad_w + j * dilation_w;
        if (h_in >= 0 && w_in >= 0 && h_in < height && w_in < width) {
          val += data_im[((n * channels + c) * height + h_in) * width + w_in] *
                 weight[((c_out * channels + c) * kernel_h + i) * kernel_w + j];
        }
      }
    }
  }
  data_out[index] = val;
}

// Teaching style: 3x3 "same" convolution, row pointers, the weight first.
__global__ void conv3x3_same(const float* __restrict__ in, const float* __restrict__ filt, float* __restrict__ out,
                             int N, int Cin, int Cout, int H, int W) {
  size_t gid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (gid >= (size_t)N * Cout * H * W) return;
  int x = gid % W;
  int y = (gid / W) % H;
  int k = (gid / ((size_t)W * H)) % Cout;
  size_t n = gid / ((size_t)W * H * Cout);
  float s = 0.0f;
  for (int c = 0; c < Cin; c++) {
    const float* plane = in + (n * Cin + c) * H * W;
    const float* f = filt + ((size_t)k * Cin + c) * 9;
    for (int dy = 0; dy < 3; dy++) {
      int yy = y + dy - 1;
      if (yy < 0 || yy >= H) continue;
      for (int dx = 0; dx < 3; dx++) {
        int xx = x + dx - 1;
        if (xx < 0 || xx >= W) continue;
        s += f[dy * 3 + dx] * plane[yy * W + xx];
      }
    }
  }
  out[gid] = s;
}

// 7x7 stride-2 stem (ResNet's first layer shape), constants, output size parameters.
__global__ void conv7x7_s2_stem(const float* x, const float* w, float* y, int B, int C, int K, int H, int W, int P,
                                int Q) {
  int t = threadIdx.x + blockIdx.x * blockDim.x;
  if (t < B * K * P * Q) {
    int q = t % Q, p = (t / Q) % P, k = (t / (Q * P)) % K, b = t / (Q * P * K);
    float acc = 0.0f;
    for (int c = 0; c < C; c++)
      for (int r = 0; r < 7; r++)
        for (int s = 0; s < 7; s++) {
          int h = p * 2 - 3 + r, v = q * 2 - 3 + s;
          if (h >= 0 && h < H && v >= 0 && v < W) acc += x[((b * C + c) * H + h) * W + v] * w[((k * C + c) * 7 + r) * 7 + s];
        }
    y[((b * K + k) * P + p) * Q + q] = acc;
  }
}

// Tutorial style: the zero padding as a selection in the product, the size a
// local, k_size square, the guard around the body.
__global__ void conv2d_zero_pad_select(const float *input, const float *kernel, float *output, int batch, int in_c,
                                       int out_c, int in_h, int in_w, int k_size, int pad, int stride, int out_h,
                                       int out_w) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  int total = batch * out_c * out_h * out_w;
  if (idx < total) {
    int ow = idx % out_w;
    int oh = (idx / out_w) % out_h;
    int oc = (idx / (out_w * out_h)) % out_c;
    int b = idx / (out_w * out_h * out_c);
    float sum = 0.0f;
    for (int ic = 0; ic < in_c; ++ic)
      for (int kh = 0; kh < k_size; ++kh)
        for (int kw = 0; kw < k_size; ++kw) {
          int ih = oh * stride - pad + kh;
          int iw = ow * stride - pad + kw;
          sum += ((ih >= 0 && ih < in_h && iw >= 0 && iw < in_w) ? input[((b * in_c + ic) * in_h + ih) * in_w + iw]
                                                                  : 0.0f) *
                 kernel[((oc * in_c + ic) * k_size + kh) * k_size + kw];
        }
    output[idx] = sum;
  }
}

// TensorFlow-style NHWC: channels innermost, filter [out][kh][kw][in] (OHWI),
// the output pixel's channels consecutive, the tap's channels innermost.
__global__ void conv2d_nhwc_naive(const float* input, const float* filter, float* output, int batch, int in_h,
                                  int in_w, int in_ch, int out_h, int out_w, int out_ch, int k_h, int k_w,
                                  int stride, int pad) {
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= batch * out_h * out_w * out_ch) return;
  const int oc = tid % out_ch;
  const int ow = (tid / out_ch) % out_w;
  const int oh = (tid / (out_ch * out_w)) % out_h;
  const int b = tid / (out_ch * out_w * out_h);
  float acc = 0.0f;
  for (int fy = 0; fy < k_h; ++fy) {
    const int ih = oh * stride + fy - pad;
    if (ih < 0 || ih >= in_h) continue;
    for (int fx = 0; fx < k_w; ++fx) {
      const int iw = ow * stride + fx - pad;
      if (iw < 0 || iw >= in_w) continue;
      for (int ic = 0; ic < in_ch; ++ic)
        acc += input[((b * in_h + ih) * in_w + iw) * in_ch + ic] * filter[((oc * k_h + fy) * k_w + fx) * in_ch + ic];
    }
  }
  output[tid] = acc;
}

// The corpus task's entry (test/corpus/Inputs/conv_nhwc.task.json): 3x3,
// stride 1, padding 1.
extern "C" void corpus_conv_nhwc(const float* x, const float* w, float* y, int n, int h, int wd, int c, int k) {
  conv2d_nhwc_naive<<<(n * h * wd * k + 255) / 256, 256>>>(x, w, y, n, h, wd, c, h, wd, k, 3, 3, 1, 1);
}

// ---- neighbours ----

// Depthwise 3x3: one filter per channel.
__global__ void depthwise_conv3x3(const float* x, const float* w, float* y, int N, int C, int H, int W) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N * C * H * W) return;
  int ox = i % W, oy = (i / W) % H, c = (i / (W * H)) % C, n = i / (W * H * C);
  float acc = 0.0f;
  for (int ky = 0; ky < 3; ky++)
    for (int kx = 0; kx < 3; kx++) {
      int iy = oy + ky - 1, ix = ox + kx - 1;
      if (iy >= 0 && iy < H && ix >= 0 && ix < W) acc += x[((n * C + c) * H + iy) * W + ix] * w[c * 9 + ky * 3 + kx];
    }
  y[i] = acc;
}

// Per-channel bias as the sum's start (not taken yet).
__global__ void conv3x3_bias(const float* x, const float* w, const float* bias, float* y, int N, int C, int K, int H,
                             int W) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N * K * H * W) return;
  int ox = i % W, oy = (i / W) % H, k = (i / (W * H)) % K, n = i / (W * H * K);
  float acc = bias[k];
  for (int c = 0; c < C; c++)
    for (int ky = 0; ky < 3; ky++)
      for (int kx = 0; kx < 3; kx++) {
        int iy = oy + ky - 1, ix = ox + kx - 1;
        if (iy >= 0 && iy < H && ix >= 0 && ix < W)
          acc += x[((n * C + c) * H + iy) * W + ix] * w[((k * C + c) * 3 + ky) * 3 + kx];
      }
  y[i] = acc;
}

// 2-D grid over the output plane, the batch and channel on blockIdx.z (not taken yet).
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

// Transposed convolution (gather form): the weights read [ci][co][ky][kx], the input at (oy + pad - ky) / stride.
__global__ void conv_transpose2d(const float* x, const float* w, float* y, int N, int C, int K, int H, int W, int OH,
                                 int OW) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N * K * OH * OW) return;
  int ox = i % OW, oy = (i / OW) % OH, k = (i / (OW * OH)) % K, n = i / (OW * OH * K);
  float acc = 0.0f;
  for (int c = 0; c < C; c++)
    for (int ky = 0; ky < 3; ky++)
      for (int kx = 0; kx < 3; kx++) {
        int iy = oy + 1 - ky, ix = ox + 1 - kx;
        if (iy >= 0 && iy < H && ix >= 0 && ix < W)
          acc += x[((n * C + c) * H + iy) * W + ix] * w[((c * K + k) * 3 + ky) * 3 + kx];
      }
  y[i] = acc;
}

// Batch loop inside the kernel (a common teaching form): the grid covers one
// image's output plane, blockIdx.z the output channel, each thread loops over
// the images; a valid 3x3, the output size computed from the input's.
__global__ void conv2d_batch_loop(const float* input, const float* filter, float* output, int batch, int in_c,
                                  int out_c, int in_h, int in_w) {
  const int out_h = in_h - 2, out_w = in_w - 2;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int oc = blockIdx.z;
  if (row < out_h && col < out_w) {
    for (int b = 0; b < batch; ++b) {
      float sum = 0.0f;
      for (int ic = 0; ic < in_c; ++ic)
        for (int fy = 0; fy < 3; ++fy)
          for (int fx = 0; fx < 3; ++fx)
            sum += input[((b * in_c + ic) * in_h + row + fy) * in_w + col + fx] *
                   filter[((oc * in_c + ic) * 3 + fy) * 3 + fx];
      output[((b * out_c + oc) * out_h + row) * out_w + col] = sum;
    }
  }
}

// Valid convolution on a flat index, the filter's size a parameter and the
// output's computed in the kernel (P = H - R + 1, Q = W - S + 1).
__global__ void conv2d_valid_rs(const float* x, const float* w, float* y, int N, int C, int K, int H, int W, int R,
                                int S) {
  const int P = H - R + 1, Q = W - S + 1;
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid < N * K * P * Q) {
    int q = tid % Q, p = (tid / Q) % P, k = (tid / (Q * P)) % K, n = tid / (Q * P * K);
    float acc = 0.0f;
    for (int c = 0; c < C; ++c)
      for (int r = 0; r < R; ++r)
        for (int s = 0; s < S; ++s)
          acc += x[((n * C + c) * H + p + r) * W + q + s] * w[((k * C + c) * R + r) * S + s];
    y[tid] = acc;
  }
}

// Image and channel packed in blockIdx.z through a local (grid z N * K), a
// valid 5x5 whose plane guard is written with the sizes themselves.
__global__ void conv2d_nk_valid5(const float* in, const float* wt, float* out, int C, int K, int H, int W) {
  int x = threadIdx.x + blockIdx.x * blockDim.x;
  int y = threadIdx.y + blockIdx.y * blockDim.y;
  int nk = blockIdx.z;
  int n = nk / K;
  int k = nk % K;
  if (x >= W - 4 || y >= H - 4) return;
  float v = 0.0f;
  for (int c = 0; c < C; c++)
    for (int i = 0; i < 5; i++)
      for (int j = 0; j < 5; j++) v += in[((n * C + c) * H + y + i) * W + x + j] * wt[((k * C + c) * 5 + i) * 5 + j];
  out[((n * K + k) * (H - 4) + y) * (W - 4) + x] = v;
}

// NCHW data with the channel loop innermost (r, s, c): the template's k runs
// (ci, ky, kx) over NCHW data; this order would need a strided read of the
// weights, and any other sum order changes the results.
__global__ void conv2d_rsc_order(const float* x, const float* w, float* y, int N, int C, int K, int H, int W, int R,
                                 int S) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N * K * H * W) return;
  int q = i % W, p = (i / W) % H, k = (i / (W * H)) % K, n = i / (W * H * K);
  float acc = 0.0f;
  for (int r = 0; r < R; r++)
    for (int s = 0; s < S; s++)
      for (int c = 0; c < C; c++) {
        int h = p + r - 1, v = q + s - 1;
        if (h < 0 || h >= H || v < 0 || v >= W) continue;
        acc += x[((n * C + c) * H + h) * W + v] * w[((k * C + c) * R + r) * S + s];
      }
  y[i] = acc;
}

void conv_kernels_launch(const float* x, const float* w, const float* b, float* y, int N, int C, int K, int H, int W) {
  int P = (H + 6 - 7) / 2 + 1, Q = (W + 6 - 7) / 2 + 1;
  int n = N * K * H * W;
  conv2d_forward_naive<<<(n + 255) / 256, 256>>>(x, w, y, N, C, H, W, K, H, W, 3, 3, 1, 1, 1, 1, 1, 1);
  conv3x3_same<<<(n + 255) / 256, 256>>>(x, w, y, N, C, K, H, W);
  conv7x7_s2_stem<<<(N * K * P * Q + 127) / 128, 128>>>(x, w, y, N, C, K, H, W, P, Q);
  depthwise_conv3x3<<<(N * C * H * W + 255) / 256, 256>>>(x, w, y, N, C, H, W);
  conv3x3_bias<<<(n + 255) / 256, 256>>>(x, w, b, y, N, C, K, H, W);
  conv2d_grid3d<<<dim3((W + 15) / 16, (H + 15) / 16, N * K), dim3(16, 16)>>>(x, w, y, C, K, H, W);
  conv_transpose2d<<<(n + 255) / 256, 256>>>(x, w, y, N, C, K, H, W, H, W);
  conv2d_zero_pad_select<<<(N * K * P * Q + 255) / 256, 256>>>(x, w, y, N, C, K, H, W, 7, 3, 2, P, Q);
  conv2d_nhwc_naive<<<(n + 255) / 256, 256>>>(x, w, y, N, H, W, C, H, W, K, 3, 3, 1, 1);
  conv2d_batch_loop<<<dim3((W + 13) / 16, (H + 13) / 16, K), dim3(16, 16)>>>(x, w, y, N, C, K, H, W);
  conv2d_valid_rs<<<(N * K * (H - 2) * (W - 2) + 255) / 256, 256>>>(x, w, y, N, C, K, H, W, 3, 3);
  conv2d_nk_valid5<<<dim3((W + 11) / 16, (H + 11) / 16, N * K), dim3(16, 16)>>>(x, w, y, C, K, H, W);
  conv2d_rsc_order<<<(n + 255) / 256, 256>>>(x, w, y, N, C, K, H, W, 3, 3);
}
