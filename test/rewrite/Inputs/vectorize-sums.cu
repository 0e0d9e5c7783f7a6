// vectorize-sums.cu: integer sums of window reads that rule vectorize's
// sums=paired writes as differences (reads of one row with opposite weights,
// then of one column), and sums it keeps as written.

// Bytes: Sobel magnitude (gx: differences in rows, gy: in columns).
__global__ void sm_sobel_u8(const unsigned char *in, unsigned char *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
  int gx = -in[(y - 1) * pitch + x - 1] + in[(y - 1) * pitch + x + 1] - 2 * in[y * pitch + x - 1] +
           2 * in[y * pitch + x + 1] - in[(y + 1) * pitch + x - 1] + in[(y + 1) * pitch + x + 1];
  int gy = in[(y + 1) * pitch + x - 1] + 2 * in[(y + 1) * pitch + x] + in[(y + 1) * pitch + x + 1] -
           (in[(y - 1) * pitch + x - 1] + 2 * in[(y - 1) * pitch + x] + in[(y - 1) * pitch + x + 1]);
  int s = abs(gx) + abs(gy);
  out[y * pitch + x] = (unsigned char)(s > 255 ? 255 : s);
}

// Signed bytes, Scharr weights and a literal offset (-128..127 times 3 + 10
// + 3, both ways, stays far within int whichever the order).
__global__ void sm_scharr_s8(const signed char *in, unsigned char *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x > 0 && y > 0 && x < w - 1 && y < h - 1) {
    int v = 3 * in[(y - 1) * pitch + x + 1] - 3 * in[(y - 1) * pitch + x - 1] + 10 * in[y * pitch + x + 1] -
            10 * in[y * pitch + x - 1] + 3 * in[(y + 1) * pitch + x + 1] - 3 * in[(y + 1) * pitch + x - 1] + 7;
    out[y * pitch + x] = (unsigned char)(v < 0 ? -v / 32 : v / 32);
  }
}

// Kept: float (a sum in another order rounds differently).
__global__ void sm_sobel_f32(const float *in, float *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
  out[y * pitch + x] = -in[(y - 1) * pitch + x - 1] + in[(y - 1) * pitch + x + 1] - 2.0f * in[y * pitch + x - 1] +
                       2.0f * in[y * pitch + x + 1] - in[(y + 1) * pitch + x - 1] + in[(y + 1) * pitch + x + 1];
}

// Kept: 32-bit samples (a partial sum in another order may overflow), and a
// weight that is not a literal.
__global__ void sm_keep_i32(const int *in, int *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
  out[y * pitch + x] = in[y * pitch + x + 1] - in[y * pitch + x - 1] + in[(y + 1) * pitch + x] - in[(y - 1) * pitch + x];
}

__global__ void sm_keep_weight(const unsigned char *in, int *out, int k, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
  out[y * pitch + x] = k * in[y * pitch + x + 1] - k * in[y * pitch + x - 1] + in[(y + 1) * pitch + x] - in[(y - 1) * pitch + x];
}

// Kept: a 64-bit sum (`0L + ...`: the text written would be int).
__global__ void sm_keep_long(const unsigned char *in, int *out, int s, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
  long v = (0L + in[y * pitch + x + 1] - in[y * pitch + x - 1]) * s;
  out[y * pitch + x] = (int)(v >> 24);
}

// Zero weights and a literal: the zero terms drop out, the literal comes last.
__global__ void sm_zero_weight(const unsigned char *in, unsigned char *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
  int s = in[y * pitch + x + 1] - in[y * pitch + x - 1] + 0 * in[(y + 1) * pitch + x] + 0 * in[(y - 1) * pitch + x] + 50000;
  out[y * pitch + x] = (unsigned char)s;
}

void launch_sums(const unsigned char *i8, unsigned char *o8, const signed char *s8, int *o32, const float *f, float *g,
                 const int *i32, int w, int h, int pitch) {
  dim3 block(32, 8), grid((w + 31) / 32, (h + 7) / 8);
  sm_sobel_u8<<<grid, block>>>(i8, o8, w, h, pitch);
  sm_scharr_s8<<<grid, block>>>(s8, o8, w, h, pitch);
  sm_sobel_f32<<<grid, block>>>(f, g, w, h, pitch);
  sm_keep_i32<<<grid, block>>>(i32, o32, w, h, pitch);
  sm_keep_weight<<<grid, block>>>(i8, o32, 3, w, h, pitch);
  sm_keep_long<<<grid, block>>>(i8, o32, 1 << 24, w, h, pitch);
  sm_zero_weight<<<grid, block>>>(i8, o8, w, h, pitch);
}
