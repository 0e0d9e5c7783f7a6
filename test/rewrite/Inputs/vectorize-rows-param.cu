// Stencils for rule vectorize's parameter rows=N (test/rewrite/vectorize-rows-param.test):
// N output rows along y per thread where the default keeps the form along x
// alone (3-row windows, bytes), and the stencils it must refuse. Each image is
// w x h with rows `pitch` elements apart.

// Sobel on bytes, borders skipped by an early return: three windows at
// constant rows, one stack of rows
__global__ void rp_sobel_u8(unsigned char *out, const unsigned char *in, int w, int h, int pitch) {
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

// A 3x3 box on floats read in loops, the row loop's counter picking the row
__global__ void rp_box3_loops(const float *src, float *dst, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= 1 && x < w - 1 && y >= 1 && y < h - 1) {
    float sum = 0.0f;
    for (int i = -1; i <= 1; ++i)
      for (int j = -1; j <= 1; ++j) sum += src[(y + i) * pitch + x + j];
    dst[y * pitch + x] = sum;
  }
}

// Refused: rows y - 1 and y + 1 without y (a gap in the stack)
__global__ void rp_gap_rows(const float *src, float *dst, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= 1 && x < w - 1 && y >= 1 && y < h - 1)
    dst[y * pitch + x] = src[(y - 1) * pitch + x - 1] + src[(y - 1) * pitch + x + 1] - src[(y + 1) * pitch + x - 1] -
                         src[(y + 1) * pitch + x + 1];
}

// Refused: a cross (the middle row reads x - 1 .. x + 1, the others x alone)
__global__ void rp_cross(const float *src, float *dst, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= 1 && x < w - 1 && y >= 1 && y < h - 1)
    dst[y * pitch + x] = src[(y - 1) * pitch + x] + src[y * pitch + x - 1] + src[y * pitch + x] +
                         src[y * pitch + x + 1] + src[(y + 1) * pitch + x];
}

// Refused: y is read before the guard (a row pointer of its own per row)
__global__ void rp_row_first(const float *src, float *dst, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int row = y * pitch;
  if (x >= 1 && x < w - 1 && y < h) dst[row + x] = src[row + x - 1] + src[row + x] + src[row + x + 1];
}

// Refused: a 1-D kernel (no y)
__global__ void rp_scale(const float *a, float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = 2.0f * a[i];
}

void launch_rows_param(const float *in, float *out, const unsigned char *in8, unsigned char *out8, int w, int h,
                       int pitch) {
  dim3 b(32, 8), g((w + 31) / 32, (h + 7) / 8);
  rp_sobel_u8<<<g, b>>>(out8, in8, w, h, pitch);
  rp_box3_loops<<<g, b>>>(in, out, w, h, pitch);
  rp_gap_rows<<<g, b>>>(in, out, w, h, pitch);
  rp_cross<<<g, b>>>(in, out, w, h, pitch);
  rp_row_first<<<g, b>>>(in, out, w, h, pitch);
  rp_scale<<<(w + 255) / 256, 256>>>(in, out, w);
}
