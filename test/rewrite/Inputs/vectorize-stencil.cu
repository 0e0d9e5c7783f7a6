// Inputs of test/rewrite/vectorize-stencil.test: 2-D stencils, a thread per
// output point, written in several styles. Rule vectorize reads each row of
// neighbours from registers (whole vectors plus the elements either side);
// the last three kernels must be refused.
#include <cstdlib>

// 8-bit Sobel magnitude, borders skipped by an early return
__global__ void sobel_u8(unsigned char *out, const unsigned char *in, int w, int h, int pitch) {
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

// polybench style: coefficients declared, then assigned, before the guard
__global__ void conv3x3_coef(int w, int h, int pitch, float *A, float *B) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  float c11, c12, c13, c21, c22, c23, c31, c32, c33;
  c11 = +0.2f; c21 = +0.5f; c31 = -0.8f;
  c12 = -0.3f; c22 = +0.6f; c32 = -0.9f;
  c13 = +0.4f; c23 = +0.7f; c33 = +0.10f;
  if ((i < h - 1) && (j < w - 1) && (i > 0) && (j > 0)) {
    B[i * pitch + j] = c11 * A[(i - 1) * pitch + (j - 1)] + c21 * A[(i - 1) * pitch + (j + 0)] +
                       c31 * A[(i - 1) * pitch + (j + 1)] + c12 * A[(i + 0) * pitch + (j - 1)] +
                       c22 * A[(i + 0) * pitch + (j + 0)] + c32 * A[(i + 0) * pitch + (j + 1)] +
                       c13 * A[(i + 1) * pitch + (j - 1)] + c23 * A[(i + 1) * pitch + (j + 0)] +
                       c33 * A[(i + 1) * pitch + (j + 1)];
  }
}

// Jacobi 5-point through a flat index temporary
__global__ void jacobi5(const float *in, float *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x > 0 && x < w - 1 && y > 0 && y < h - 1) {
    int idx = y * pitch + x;
    out[idx] = 0.2f * (in[idx] + in[idx - 1] + in[idx + 1] + in[idx - pitch] + in[idx + pitch]);
  }
}

// a row filter of radius 3: neighbours wider than one vector's lanes
__global__ void blur_row7(const float *in, float *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= 3 && x < w - 3 && y < h) {
    int o = y * pitch;
    float s = in[o + x - 3] + in[o + x - 2] + in[o + x - 1] + in[o + x] + in[o + x + 1] + in[o + x + 2] + in[o + x + 3];
    out[y * pitch + x] = s * (1.0f / 7.0f);
  }
}

// 8-bit input, float output: 4 lanes, the bytes read as uchar4
__global__ void grad_u8_f32(const unsigned char *img, float *gx, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= 1 && x < w - 1 && y < h) gx[y * pitch + x] = 0.5f * ((float)img[y * pitch + x + 1] - (float)img[y * pitch + x - 1]);
}

// the flat index declared before the guard (which reads it too)
__global__ void laplace_idx(const float *u, float *lap, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int idx = y * pitch + x;
  if (x < 1 || x >= w - 1 || y < 1 || y >= h - 1 || idx < pitch) return;
  lap[idx] = u[idx - 1] + u[idx + 1] + u[idx - pitch] + u[idx + pitch] - 4.0f * u[idx];
}

// a map through the same kind of index (no neighbours)
__global__ void scale_idx(const float *in, float *out, float a, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int row = y * pitch;
  int i = row + x;
  if (x < w && y < h) out[i] = a * in[i];
}

// row pointers (OpenCV style): the rows above, at and below y, and the output row
__global__ void box3_rows(const unsigned char *src, unsigned char *dst, int w, int h, int step) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || x >= w - 1 || y < 1 || y >= h - 1) return;
  const unsigned char *up = src + (y - 1) * step;
  const unsigned char *mid = src + y * step;
  const unsigned char *dn = src + (y + 1) * step;
  unsigned char *out = dst + y * step;
  int s = up[x - 1] + up[x] + up[x + 1] + mid[x - 1] + mid[x] + mid[x + 1] + dn[x - 1] + dn[x] + dn[x + 1];
  out[x] = (unsigned char)(s / 9);
}

// a 3x3 filter, its weights in memory, loops over the neighbourhood
__global__ void conv3x3_loops(const float *in, const float *k, float *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
  float s = 0.0f;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx)
      s += k[(dy + 1) * 3 + (dx + 1)] * in[(y + dy) * pitch + x + dx];
  out[y * pitch + x] = s;
}

// a box filter along the row, radius a macro, 8 bits
#define BOX_R 4
__global__ void box_row_loop(const unsigned char *in, unsigned char *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= BOX_R && x < w - BOX_R && y < h) {
    int s = 0;
    for (int k = -BOX_R; k <= BOX_R; k++) s += in[y * pitch + x + k];
    out[y * pitch + x] = (unsigned char)(s / (2 * BOX_R + 1));
  }
}

// read through the read-only cache hint: __ldg(&in[...]) is a read of the element
__global__ void ldg_cross(const float *in, float *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= 1 && x < w - 1 && y >= 1 && y < h - 1) {
    int i = y * pitch + x;
    out[i] = 0.5f * __ldg(&in[i]) + 0.125f * (__ldg(&in[i - 1]) + __ldg(&in[i + 1]) + __ldg(&in[i - pitch]) +
                                              __ldg(&(in[i + pitch])));
  }
}

// refused: the radius is a parameter (the loop's trip count is not a constant)
__global__ void bad_loop_radius(const float *in, float *out, int w, int h, int pitch, int r) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= r && x < w - r && y < h) {
    float s = 0.0f;
    for (int k = -r; k <= r; k++) s += in[y * pitch + x + k];
    out[y * pitch + x] = s;
  }
}

// refused: the loop around the neighbour reads may run no times at all
__global__ void bad_loop_count(const float *in, float *out, int w, int h, int pitch, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x > 0 && x < w - 1 && y < h) {
    float s = 0.0f;
    for (int i = 0; i < n; i++) s += in[y * pitch + x - 1] + in[y * pitch + x + 1];
    out[y * pitch + x] = s;
  }
}

// refused: the counter also moves in the loop's body (it skips the centre)
__global__ void bad_loop_step(const float *in, float *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x > 0 && x < w - 1 && y < h) {
    float s = 0.0f;
    for (int k = -1; k <= 1; k++) {
      s += in[y * pitch + x + k];
      k++;
    }
    out[y * pitch + x] = s;
  }
}

// refused: the centre is skipped (a neighbour read under an if in the loop)
__global__ void bad_life(const unsigned char *in, unsigned char *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
  int n = 0;
  for (int dy = -1; dy <= 1; dy++)
    for (int dx = -1; dx <= 1; dx++)
      if (dx != 0 || dy != 0) n += in[(y + dy) * pitch + x + dx];
  out[y * pitch + x] = (unsigned char)(n == 3 || (n == 2 && in[y * pitch + x]));
}

// refused: a row pointer moved on in the body
__global__ void bad_reseat(const float *src, float *dst, int w, int h, int step) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || x >= w - 1 || y >= h - 1) return;
  const float *r = src + y * step;
  float a = r[x - 1] + r[x + 1];
  r += step;
  dst[y * step + x] = a + r[x];
}

// refused: a temporary of x that also reads threadIdx.x
__global__ void bad_mixed_temp(const float *in, float *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int i = y * pitch + x + (threadIdx.x & 1);
  if (x < w - 1 && y < h) out[i] = in[i];
}

// The left neighbour read only away from the border (zero padding by a selection).
__global__ void zero_pad_left(const float *in, float *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float l = x > 0 ? in[y * pitch + x - 1] : 0.0f;
    out[y * pitch + x] = l + in[y * pitch + x];
  }
}

// Zero padding by ifs: each neighbour read only inside the image.
__global__ void cross_zero_pad(const float *in, float *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = in[y * pitch + x];
  if (x > 0) s += in[y * pitch + x - 1];
  if (x < w - 1) s += in[y * pitch + x + 1];
  if (y > 0) s += in[(y - 1) * pitch + x];
  if (y < h - 1) s += in[(y + 1) * pitch + x];
  out[y * pitch + x] = 0.2f * s;
}

// refused: the neighbour's condition reads memory
__global__ void bad_cond_load(const float *in, float *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float l = in[y * pitch + x] > 0.0f ? in[y * pitch + x - 1] : 0.0f;
    out[y * pitch + x] = l + in[y * pitch + x];
  }
}

// the neighbour's condition reads a local the body declares first: the lanes' test declares it again
__global__ void cond_local(const float *in, float *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    int left = x - 1;
    float s = in[y * pitch + x];
    if (left >= 0) s += in[y * pitch + x - 1];
    out[y * pitch + x] = s;
  }
}

// refused: updated in place
__global__ void bad_inplace(float *a, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x > 0 && x < w - 1 && y < h) a[y * pitch + x] = 0.5f * (a[y * pitch + x - 1] + a[y * pitch + x + 1]);
}

// refused: a neighbour read after a store
__global__ void bad_after_store(const float *in, float *out, float *d, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x > 0 && x < w - 1 && y < h) {
    out[y * pitch + x] = in[y * pitch + x];
    d[y * pitch + x] = in[y * pitch + x + 1] - in[y * pitch + x - 1];
  }
}

void launch_all(unsigned char *o8, const unsigned char *i8, float *a, float *b, float *c, int w, int h, int pitch) {
  dim3 block(32, 8), grid((w + 31) / 32, (h + 7) / 8);
  sobel_u8<<<grid, block>>>(o8, i8, w, h, pitch);
  conv3x3_coef<<<grid, block>>>(w, h, pitch, a, b);
  jacobi5<<<grid, block>>>(a, b, w, h, pitch);
  blur_row7<<<grid, block>>>(a, b, w, h, pitch);
  grad_u8_f32<<<grid, block>>>(i8, b, w, h, pitch);
  laplace_idx<<<grid, block>>>(a, b, w, h, pitch);
  box3_rows<<<grid, block>>>(i8, o8, w, h, pitch);
  scale_idx<<<grid, block>>>(a, b, 2.0f, w, h, pitch);
  bad_mixed_temp<<<grid, block>>>(a, b, w, h, pitch);
  bad_reseat<<<grid, block>>>(a, b, w, h, pitch);
  conv3x3_loops<<<grid, block>>>(a, c, b, w, h, pitch);
  box_row_loop<<<grid, block>>>(i8, o8, w, h, pitch);
  ldg_cross<<<grid, block>>>(a, b, w, h, pitch);
  bad_loop_radius<<<grid, block>>>(a, b, w, h, pitch, 2);
  bad_life<<<grid, block>>>(i8, o8, w, h, pitch);
  bad_loop_count<<<grid, block>>>(a, b, w, h, pitch, 2);
  bad_loop_step<<<grid, block>>>(a, b, w, h, pitch);
  zero_pad_left<<<grid, block>>>(a, b, w, h, pitch);
  cross_zero_pad<<<grid, block>>>(a, b, w, h, pitch);
  bad_cond_load<<<grid, block>>>(a, b, w, h, pitch);
  cond_local<<<grid, block>>>(a, b, w, h, pitch);
  bad_inplace<<<grid, block>>>(a, w, h, pitch);
  bad_after_store<<<grid, block>>>(a, b, c, w, h, pitch);
}
