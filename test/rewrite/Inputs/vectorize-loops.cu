// Stencils whose neighbourhood loops declare their own coordinates: clamped to
// the edge (image-processing style) or tested for zero padding (the PMPP
// textbook's masked convolution). Rule vectorize reads the window where every
// lane's clamps are the identity and every lane's padding test holds on every
// trip; border threads run the body as written (test/rewrite/vectorize-loops.test).
// Each image is w x h with rows `pitch` elements apart (or w).

#define BLUR_R 2
#define MASK_W 5
#define MASK_R (MASK_W / 2)
#define RAD 3

__constant__ float c_mask[MASK_W * MASK_W] = {
    0.5f, 1.0f, 1.5f, 1.0f, 0.5f, 1.0f, 2.0f, 3.0f, 2.0f, 1.0f, 1.5f, 3.0f, 4.0f,
    3.0f, 1.5f, 1.0f, 2.0f, 3.0f, 2.0f, 1.0f, 0.5f, 1.0f, 1.5f, 1.0f, 0.5f};

__device__ __forceinline__ int clamp_to(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

// OpenCV style: each coordinate clamped where its loop declares it.
__global__ void loc_box3(const float* in, float* out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = 0.0f;
  for (int dy = -1; dy <= 1; dy++) {
    int yy = min(max(y + dy, 0), h - 1);
    for (int dx = -1; dx <= 1; dx++) {
      int xx = min(max(x + dx, 0), w - 1);
      s += in[yy * w + xx];
    }
  }
  out[y * w + x] = s / 9.0f;
}

// A clamp helper, a radius macro, weights of the distance.
__global__ void loc_gauss_helper(const float* in, float* out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float acc = 0.0f;
    for (int ky = -BLUR_R; ky <= BLUR_R; ++ky) {
      const int sy = clamp_to(y + ky, 0, h - 1);
      for (int kx = -BLUR_R; kx <= BLUR_R; ++kx) {
        const int sx = clamp_to(x + kx, 0, w - 1);
        acc += (float)(ky * ky + kx * kx + 1) * in[sy * pitch + sx];
      }
    }
    out[y * pitch + x] = acc;
  }
}

// Selections, the column loop outside the row loop: a 3x3 dilation.
__global__ void loc_tern_dilate(const float* src, float* dst, int w, int h, int pitch) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (col < w && row < h) {
    float m = src[row * pitch + col];
    for (int i = -1; i <= 1; i++) {
      int cx = col + i < 0 ? 0 : (col + i > w - 1 ? w - 1 : col + i);
      for (int j = -1; j <= 1; j++) {
        int cy = row + j < 0 ? 0 : (row + j >= h ? h - 1 : row + j);
        m = fmaxf(m, src[cy * pitch + cx]);
      }
    }
    dst[row * pitch + col] = m;
  }
}

// A row filter: only the column clamped, in one loop.
__global__ void loc_row7(const float* in, float* out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float s = 0.0f;
    for (int k = -RAD; k <= RAD; k++) {
      int xk = max(0, min(x + k, w - 1));
      s += in[y * pitch + xk];
    }
    out[y * pitch + x] = s * (1.0f / 7.0f);
  }
}

// Bytes (16 lanes), the clamp of a chain of locals.
__global__ void loc_chain_u8(const unsigned char* in, unsigned char* out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    int acc = 0;
    for (int k = 0; k < 5; k++) {
      int t = x + k - 2;
      int xc = min(max(t, 0), w - 1);
      acc += in[y * pitch + xc];
    }
    out[y * pitch + x] = (unsigned char)(acc / 5);
  }
}

// The PMPP textbook's convolution: zero padding by an if on the loop's own
// coordinates, the mask in constant memory.
__global__ void pmpp_conv2d(const float* in, float* out, int w, int h) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < h && col < w) {
    float sum = 0.0f;
    for (int j = 0; j < MASK_W; j++) {
      for (int k = 0; k < MASK_W; k++) {
        int iy = row - MASK_R + j, ix = col - MASK_R + k;
        if (iy >= 0 && iy < h && ix >= 0 && ix < w) sum += in[iy * w + ix] * c_mask[j * MASK_W + k];
      }
    }
    out[row * w + col] = sum;
  }
}

// Zero padding tested inline, the mask a parameter, the column loop outside.
__global__ void pad_inline_mask(const float* in, const float* mask, float* out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = 0.0f;
  for (int dx = -1; dx <= 1; ++dx)
    for (int dy = -1; dy <= 1; ++dy)
      if (x + dx >= 0 && y + dy >= 0 && x + dx < w && y + dy < h)
        s += mask[(dy + 1) * 3 + dx + 1] * in[(y + dy) * pitch + x + dx];
  out[y * pitch + x] = s;
}

// A row filter padded with zeros, the comparisons written either way round,
// the read on the right of &&-free braces.
__global__ void pad_row_if(const float* in, float* out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float acc = 0.0f;
    for (int t = 0; t < 2 * RAD + 1; t++) {
      const int xi = x + t - RAD;
      if (0 <= xi && w > xi) {
        acc += in[y * pitch + xi];
      }
    }
    out[y * pitch + x] = acc;
  }
}

// Zero padding on the else path: the test negated, || (De Morgan of the && form).
__global__ void pad_else(const float* in, float* out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float s = 0.0f;
    for (int k = -1; k <= 1; k++) {
      int xi = x + k;
      if (xi < 0 || xi >= w) s += 0.0f;
      else s += in[y * pitch + xi];
    }
    out[y * pitch + x] = s;
  }
}

// Code that must not change.
__global__ void bad_pad_or(const float* in, float* out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float s = 0.0f;
    for (int k = -1; k <= 1; k++) {
      int xi = x + k;
      if (xi >= 0 && (xi < w || k == 0)) s += in[y * pitch + xi];
    }
    out[y * pitch + x] = s;
  }
}

__global__ void bad_pad_unsigned(const float* in, float* out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float s = 0.0f;
    for (int k = -1; k <= 1; k++)
      if ((unsigned)(x + k) < (unsigned)w) s += in[y * pitch + x + k];
    out[y * pitch + x] = s;
  }
}

__global__ void bad_pad_load(const float* in, const int* keep, float* out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float s = 0.0f;
    for (int k = -1; k <= 1; k++)
      if (x + k >= 0 && x + k < keep[0]) s += in[y * pitch + x + k];
    out[y * pitch + x] = s;
  }
}

__global__ void bad_pad_acc(const float* in, float* out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float s = 0.0f;
    for (int k = -1; k <= 1; k++)
      if (x + k >= 0 && s < 100.0f) s += in[y * pitch + x + k];
    out[y * pitch + x] = s;
  }
}

__global__ void bad_pad_variant(const float* in, float* out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float s = 0.0f;
    for (int k = -1; k <= 1; k++)
      if (x + k >= 0 && x + k < y) s += in[y * pitch + x + k];
    out[y * pitch + x] = s;
  }
}

__global__ void bad_pad_product(const float* in, float* out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float s = 0.0f;
    for (int k = -1; k <= 1; k++)
      if (x + k >= 0 && x + k * w < w * h) s += in[y * pitch + x + k];
    out[y * pitch + x] = s;
  }
}

__global__ void bad_loc_written(const float* in, float* out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float s = 0.0f;
    for (int k = -1; k <= 1; k++) {
      int xk = min(max(x + k, 0), w - 1);
      if (k > 0) xk = w - 1;
      s += in[y * pitch + xk];
    }
    out[y * pitch + x] = s;
  }
}

__global__ void bad_loc_load(const float* in, const int* off, float* out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float s = 0.0f;
    for (int k = -1; k <= 1; k++) {
      int xk = min(max(x + k, 0), w - 1) + off[0];
      s += in[y * pitch + xk];
    }
    out[y * pitch + x] = s;
  }
}

void launch_all(const float* in, const float* wgt, const int* keep, float* out, int w, int h, int pitch) {
  dim3 b(32, 8), g((w + 31) / 32, (h + 7) / 8);
  loc_box3<<<g, b>>>(in, out, w, h);
  loc_gauss_helper<<<g, b>>>(in, out, w, h, pitch);
  loc_tern_dilate<<<g, b>>>(in, out, w, h, pitch);
  loc_row7<<<g, b>>>(in, out, w, h, pitch);
  loc_chain_u8<<<g, b>>>((const unsigned char*)in, (unsigned char*)out, w, h, pitch);
  pmpp_conv2d<<<g, b>>>(in, out, w, h);
  pad_inline_mask<<<g, b>>>(in, wgt, out, w, h, pitch);
  pad_row_if<<<g, b>>>(in, out, w, h, pitch);
  pad_else<<<g, b>>>(in, out, w, h, pitch);
  bad_pad_or<<<g, b>>>(in, out, w, h, pitch);
  bad_pad_unsigned<<<g, b>>>(in, out, w, h, pitch);
  bad_pad_load<<<g, b>>>(in, keep, out, w, h, pitch);
  bad_pad_acc<<<g, b>>>(in, out, w, h, pitch);
  bad_pad_variant<<<g, b>>>(in, out, w, h, pitch);
  bad_pad_product<<<g, b>>>(in, out, w, h, pitch);
  bad_loc_written<<<g, b>>>(in, out, w, h, pitch);
  bad_loc_load<<<g, b>>>(in, keep, out, w, h, pitch);
}
