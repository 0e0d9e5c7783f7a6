// Stencils whose window spans 5 rows, read in a loop whose counter picks the
// row: rule vectorize gives each thread 4 x of 4 consecutive rows (rows along y),
// each window row loaded once for the 16 outputs, where y is the plain thread
// index; elsewhere it keeps the form along x alone
// (test/rewrite/vectorize-rows.test). Each image is w x h with rows `pitch`
// elements apart (or w).

#define TAPS 5
#define HALF (TAPS / 2)

// OpenCV style: each coordinate clamped where its loop declares it (the corpus's
// blur5_clamp_local).
__global__ void rows_blur5_clamp(const float* src, float* dst, int w, int h, int pitch) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float sum = 0.0f;
    for (int i = -2; i <= 2; ++i) {
      const int yy = min(max(y + i, 0), h - 1);
      for (int j = -2; j <= 2; ++j) {
        const int xx = min(max(x + j, 0), w - 1);
        sum += src[yy * pitch + xx];
      }
    }
    dst[y * pitch + x] = sum * (1.0f / 25.0f);
  }
}

// Zero padding by skipping the taps outside (the corpus's mean5x5_skip): an
// early return, the coordinates y-first, a continue under an ||.
__global__ void rows_mean5_skip(const float* img, float* res, int w, int h, int pitch) {
  int px = blockIdx.x * blockDim.x + threadIdx.x;
  int py = threadIdx.y + blockDim.y * blockIdx.y;
  if (px >= w || py >= h) return;
  float total = 0.f;
  for (int ky = 0; ky < TAPS; ++ky) {
    for (int kx = 0; kx < TAPS; ++kx) {
      int sx = px + kx - HALF;
      int sy = py + ky - HALF;
      if (sx < 0 || sy < 0 || sx >= w || sy >= h) continue;
      total += img[sy * pitch + sx];
    }
  }
  res[py * pitch + px] = total * (1.f / (TAPS * TAPS));
}

// Weights in memory, a guard that keeps the border out, a second input read at
// the output's element (a vector of its own per row) and a scalar per row.
__global__ void rows_conv5_bias(const float* in, const float* k, const float* base, const float* rs, float* out,
                                int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= 2 && x < w - 2 && y >= 2 && y < h - 2) {
    float s = 0.0f;
    for (int dy = -2; dy <= 2; dy++)
      for (int dx = -2; dx <= 2; dx++) s += k[(dy + 2) * 5 + dx + 2] * in[(y + dy) * pitch + x + dx];
    out[y * pitch + x] = base[y * pitch + x] + rs[y] * s;
  }
}

// Bytes: 16 lanes a row, clamped as in rows_blur5_clamp; along x alone (4 rows
// of 16 lanes took 128 registers).
__global__ void xonly_box5_u8(const unsigned char* src, unsigned char* dst, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    int s = 0;
    for (int i = -2; i <= 2; ++i) {
      int yy = min(max(y + i, 0), h - 1);
      for (int j = -2; j <= 2; ++j) s += src[yy * pitch + min(max(x + j, 0), w - 1)];
    }
    dst[y * pitch + x] = (unsigned char)(s / 25);
  }
}

// A row per block (y is blockIdx.y, not the thread index): along x alone.
__global__ void xonly_block_row(const float* src, float* dst, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y;
  if (x < w && y < h) {
    float sum = 0.0f;
    for (int i = -2; i <= 2; ++i) {
      int yy = min(max(y + i, 0), h - 1);
      for (int j = -2; j <= 2; ++j) sum += src[yy * pitch + min(max(x + j, 0), w - 1)];
    }
    dst[y * pitch + x] = sum;
  }
}

// y the thread index, but read by a declaration before the guard (a row's
// offset): that declaration would need each row's own y; along x alone.
__global__ void xonly_row_offset(const float* src, float* dst, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int row = y * pitch;
  if (x >= 2 && x < w - 2 && y >= 2 && y < h - 2) {
    float sum = 0.0f;
    for (int i = -2; i <= 2; ++i)
      for (int j = -2; j <= 2; ++j) sum += src[row + i * pitch + x + j];
    dst[row + x] = sum;
  }
}

// The guard reads threadIdx.y itself (another row's thread would see this
// one's): along x alone.
__global__ void xonly_tid_y(const float* src, float* dst, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= 2 && x < w - 2 && y >= 2 && y < h - 2 && threadIdx.y != 3u) {
    float sum = 0.0f;
    for (int i = -2; i <= 2; ++i)
      for (int j = -2; j <= 2; ++j) sum += src[(y + i) * pitch + x + j];
    dst[y * pitch + x] = sum;
  }
}

// A 3-D grid: a plane per blockIdx.z: along x alone.
__global__ void xonly_planes(const float* src, float* dst, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z;
  if (x >= 2 && x < w - 2 && y >= 2 && y < h - 2) {
    float sum = 0.0f;
    for (int i = -2; i <= 2; ++i)
      for (int j = -2; j <= 2; ++j) sum += src[(z * h + y + i) * pitch + x + j];
    dst[(z * h + y) * pitch + x] = sum;
  }
}

// Rows two apart (a dilated window): the index moves down two rows with the
// counter but one with y, so a thread's rows share no window rows that way:
// along x alone.
__global__ void xonly_dilated(const float* src, float* dst, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= 2 && x < w - 2 && y >= 4 && y < h - 4) {
    float sum = 0.0f;
    for (int i = -2; i <= 2; ++i)
      for (int j = -2; j <= 2; ++j) sum += src[(y + 2 * i) * pitch + x + j];
    dst[y * pitch + x] = sum;
  }
}

// Declared before its definition: the launch keeps its grid, so neither x's
// nor y's grid is divided; along x alone, threads past the x extent / 4 idle.
__global__ void xonly_declared(const float* src, float* dst, int w, int h, int pitch);
__global__ void xonly_declared(const float* src, float* dst, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= 2 && x < w - 2 && y >= 2 && y < h - 2) {
    float sum = 0.0f;
    for (int i = -2; i <= 2; ++i)
      for (int j = -2; j <= 2; ++j) sum += src[(y + i) * pitch + x + j];
    dst[y * pitch + x] = sum;
  }
}

void launch_rows(const float* in, const float* k, const float* base, const float* rs, float* out,
                 const unsigned char* in8, unsigned char* out8, int w, int h, int pitch) {
  dim3 b(32, 8), g((w + 31) / 32, (h + 7) / 8);
  rows_blur5_clamp<<<g, b>>>(in, out, w, h, pitch);
  rows_mean5_skip<<<g, b>>>(in, out, w, h, pitch);
  rows_conv5_bias<<<dim3((w + 31) / 32, (h + 7) / 8), b>>>(in, k, base, rs, out, w, h, pitch);
  xonly_box5_u8<<<g, b>>>(in8, out8, w, h, pitch);
  xonly_block_row<<<dim3((w + 31) / 32, h), dim3(32, 1)>>>(in, out, w, h, pitch);
  xonly_row_offset<<<g, b>>>(in, out, w, h, pitch);
  xonly_tid_y<<<g, b>>>(in, out, w, h, pitch);
  xonly_planes<<<dim3((w + 31) / 32, (h + 7) / 8, 1), b>>>(in, out, w, h, pitch);
  xonly_dilated<<<g, b>>>(in, out, w, h, pitch);
  xonly_declared<<<g, b>>>(in, out, w, h, pitch);
}
