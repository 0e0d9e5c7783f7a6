// vectorize-corners.cu: guards whose passing lanes form a convex set in x and
// y (rule vectorize tests them at the corners of a thread's lanes and rows
// only), and guards that do not (every lane is tested as written).

// Four half-planes, an early return: u8 Sobel magnitude.
__global__ void cn_sobel_u8(unsigned char *out, const unsigned char *in, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
  int gx = -in[(y - 1) * pitch + x - 1] + in[(y - 1) * pitch + x + 1] - 2 * in[y * pitch + x - 1] +
           2 * in[y * pitch + x + 1] - in[(y + 1) * pitch + x - 1] + in[(y + 1) * pitch + x + 1];
  int gy = -in[(y - 1) * pitch + x - 1] - 2 * in[(y - 1) * pitch + x] - in[(y - 1) * pitch + x + 1] +
           in[(y + 1) * pitch + x - 1] + 2 * in[(y + 1) * pitch + x] + in[(y + 1) * pitch + x + 1];
  int s = abs(gx) + abs(gy);
  out[y * pitch + x] = (unsigned char)(s > 255 ? 255 : s);
}

// An intersection in the if's own sense, a negation, a scaled and cast x.
__global__ void cn_band_if(const float *in, float *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (!(x < 2 || x > w - 3) && 2 * (long long)x + 1 < 2 * (long long)w && y > 0 && y < h - 1) {
    out[y * pitch + x] = in[y * pitch + x - 2] + in[y * pitch + x + 2] - in[(y - 1) * pitch + x] - in[(y + 1) * pitch + x];
  }
}

// One column is skipped (x == c), its lane inside some thread's box: the
// corners decide whether a box holds it (x < c at every corner, or x > c).
__global__ void cn_skip_col(const float *in, float *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x == 5 || x < 1 || x >= w - 1 || y >= h) return;
  out[y * pitch + x] = in[y * pitch + x - 1] + in[y * pitch + x + 1];
}

// Not convex: a band of columns cut out (an intersection inside the early
// return's union), and the if's own sense with a union inside.
__global__ void cn_cut_band(const float *in, float *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if ((x > 4 && x < 7) || x >= w || y >= h) return;
  out[y * pitch + x] = 2.0f * in[y * pitch + x];
}

__global__ void cn_two_bands(const float *in, float *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if ((x < 5 || x > 6) && x < w && y < h) {
    out[y * pitch + x] = 2.0f * in[y * pitch + x];
  }
}

// Not convex: the if's own sense passes one column only (x == c where it
// lets the lane in): every lane tested.
__global__ void cn_one_col(const float *in, float *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x == w - 2 && y < h) {
    out[y * pitch + x] = in[y * pitch + x - 1] + in[y * pitch + x + 1];
  }
}

// Not proved: the bound is unsigned (the comparison wraps), the other reads x % 4.
__global__ void cn_unsigned(const float *in, float *out, unsigned w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || x >= w - 1 || y >= h) return;
  out[y * pitch + x] = in[y * pitch + x - 1] + in[y * pitch + x + 1];
}

__global__ void cn_mod(const float *in, float *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x % 4 == 3 || x < 1 || x >= w - 1 || y >= h) return;
  out[y * pitch + x] = in[y * pitch + x - 1] + in[y * pitch + x + 1];
}

// Refused: each access is a macro use as a whole, so its subscript has no
// text of its own for lane 0's addresses (once copied as `&in[IN(1, 0)]`,
// which reads past the image).
#define IN(dx, dy) in[(y + (dy)) * pitch + x + (dx)]
__global__ void cn_macro_read(const float *in, float *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
  out[y * pitch + x] = IN(1, 0) - IN(-1, 0) + 3.0f * IN(0, 1) - IN(1, 1);
}

void launch_corners(const unsigned char *i8, unsigned char *o8, const float *in, float *out, int w, int h, int pitch) {
  dim3 block(32, 8), grid((w + 31) / 32, (h + 7) / 8);
  cn_sobel_u8<<<grid, block>>>(o8, i8, w, h, pitch);
  cn_band_if<<<grid, block>>>(in, out, w, h, pitch);
  cn_skip_col<<<grid, block>>>(in, out, w, h, pitch);
  cn_cut_band<<<grid, block>>>(in, out, w, h, pitch);
  cn_two_bands<<<grid, block>>>(in, out, w, h, pitch);
  cn_one_col<<<grid, block>>>(in, out, w, h, pitch);
  cn_unsigned<<<grid, block>>>(in, out, (unsigned)w, h, pitch);
  cn_mod<<<grid, block>>>(in, out, w, h, pitch);
  cn_macro_read<<<grid, block>>>(in, out, w, h, pitch);
}
