// Stencils in common public styles (test/rewrite/vectorize-forms.test): row
// pointers at clamped offsets (image-processing style), zero padding tested
// with || (skip the trip, or select zero), and locals declared after the
// body's first statement that reads memory. Rule vectorize reads the window
// where every lane's clamps are the identity and every lane's padding test
// holds on every trip; border threads run the body as written.
// Each image is w x h with rows `pitch` elements apart.

#define RADIUS 2

__device__ __forceinline__ int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

// Row pointers clamped to the edge, the columns an interior guard.
__global__ void rp_clamp_cross(const float* in, float* out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || x >= w - 1 || y >= h) return;
  const float* up = in + max(y - 1, 0) * pitch;
  const float* mid = in + y * pitch;
  const float* dn = in + min(y + 1, h - 1) * pitch;
  out[y * pitch + x] = (up[x] + mid[x - 1] + mid[x] + mid[x + 1] + dn[x]) * 0.2f;
}

// `&in[...]` row pointers, the columns clamped too.
__global__ void rp_clamp_addr(const float* in, float* out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    const float* row = &in[max(y - 1, 0) * pitch];
    const float* cur = &in[y * pitch];
    int xl = max(x - 1, 0), xr = min(x + 1, w - 1);
    out[y * pitch + x] = row[x] + 0.5f * (cur[xl] + cur[xr]);
  }
}

// Row pointers before the guard through a clamp helper, bytes (16 lanes).
__global__ void rp_clamp_u8(const unsigned char* src, unsigned char* dst, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  const unsigned char* r0 = src + clampi(y - 1, 0, h - 1) * pitch;
  const unsigned char* r2 = src + clampi(y + 1, 0, h - 1) * pitch;
  if (x < w && y < h) {
    int xl = max(x - 1, 0), xr = min(x + 1, w - 1);
    int s = r0[xl] + r0[x] + r0[xr] + src[y * pitch + xl] + src[y * pitch + x] + src[y * pitch + xr] + r2[xl] + r2[x] +
            r2[xr];
    dst[y * pitch + x] = (unsigned char)(s / 9);
  }
}

// A row pointer read in a loop, the column clamped inline.
__global__ void rp_clamp_loop(const float* in, float* out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    const float* up = in + max(y - 1, 0) * pitch;
    float s = 0.0f;
    for (int k = -2; k <= 2; k++) s += up[min(max(x + k, 0), w - 1)];
    out[y * pitch + x] = s;
  }
}

// Zero padding: the trip skipped with || (De Morgan of the && form).
__global__ void pad_or_continue(const float* in, float* out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = 0.0f;
  for (int dy = -1; dy <= 1; dy++) {
    for (int dx = -1; dx <= 1; dx++) {
      int xx = x + dx, yy = y + dy;
      if (xx < 0 || xx >= w || yy < 0 || yy >= h) continue;
      s += (float)(dx + 2 * dy + 5) * in[yy * pitch + xx];
    }
  }
  out[y * pitch + x] = s;
}

// Zero padding by a selection under ||, a row filter.
__global__ void pad_or_select(const float* in, float* out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = 0.0f;
  for (int k = -RADIUS; k <= RADIUS; ++k) {
    int xx = x + k;
    float v = (xx < 0 || xx >= w) ? 0.f : in[y * pitch + xx];
    s += v * (float)(k + 3);
  }
  out[y * pitch + x] = s;
}

// The row skipped in the outer loop, the column selected in the inner one.
__global__ void pad_or_rows(const float* in, float* out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float s = 0.0f;
    for (int i = 0; i < 3; i++) {
      const int yy = y + i - 1;
      if (yy < 0 || h <= yy) {
        continue;
      }
      for (int j = 0; j < 3; j++) {
        const int xx = x + j - 1;
        s += (xx < 0 || xx > w - 1) ? 0.0f : in[yy * pitch + xx];
      }
    }
    out[y * pitch + x] = s * (1.0f / 9.0f);
  }
}

// Locals after the first read: clamped, a chain, a padding test naming one.
__global__ void late_locals(const float* in, float* out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float c = in[y * pitch + x];
  int xl = max(x - 1, 0);
  int t = x + 2;
  int xr = min(t, w - 1);
  int xu = y - 1;
  float u = xu >= 0 ? in[xu * pitch + x] : 0.0f;
  out[y * pitch + x] = 0.5f * c + 0.25f * (in[y * pitch + xl] + in[y * pitch + xr]) + u;
}

// A local after the first read as the index of the output's vector, read and written.
__global__ void late_index(const float* in, float* out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float c = in[y * pitch + x] * 0.5f;
    int o = y * pitch + x;
    out[o] = c + out[o];
  }
}

// Code that must not change.
__global__ void bad_rp_variant_bound(const float* in, float* out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    const float* dn = in + min(y + 1, 2 * y) * pitch;
    out[y * pitch + x] = dn[x] + in[y * pitch + x];
  }
}

__global__ void bad_rp_load(const float* in, const int* dims, float* out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    const float* dn = in + min(y + 1, dims[1] - 1) * pitch;
    out[y * pitch + x] = dn[x] + in[y * pitch + x];
  }
}

__global__ void bad_rp_reseat(const float* in, float* out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    const float* row = in + max(y - 1, 0) * pitch;
    float s = 0.0f;
    for (int k = 0; k < 3; k++) {
      s += row[x];
      row += pitch;
    }
    out[y * pitch + x] = s;
  }
}

__global__ void bad_rp_late(const float* in, float* out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float c = in[y * pitch + x];
    const float* up = in + max(y - 1, 0) * pitch;
    out[y * pitch + x] = c + up[x];
  }
}

__global__ void bad_rp_x(const float* in, float* out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    const float* p = in + max(y - 1, 0) * pitch + x;
    out[y * pitch + x] = p[0] + in[y * pitch + x];
  }
}

__global__ void bad_or_load(const float* in, const int* keep, float* out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float s = 0.0f;
    for (int k = -1; k <= 1; k++) {
      int xx = x + k;
      if (xx < 0 || xx >= keep[0]) continue;
      s += in[y * pitch + xx];
    }
    out[y * pitch + x] = s;
  }
}

__global__ void bad_or_and(const float* in, float* out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float s = 0.0f;
    for (int k = -1; k <= 1; k++) {
      int xx = x + k;
      if (xx < 0 && y < 1) continue;
      s += in[y * pitch + xx];
    }
    out[y * pitch + x] = s;
  }
}

__global__ void bad_or_unsigned(const float* in, float* out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float s = 0.0f;
    for (int k = -1; k <= 1; k++) {
      int xx = x + k;
      if (xx < 0 || (unsigned)xx >= (unsigned)w) continue;
      s += in[y * pitch + xx];
    }
    out[y * pitch + x] = s;
  }
}

__global__ void bad_continue_body(const float* in, float* out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float s = 0.0f;
    for (int k = -1; k <= 1; k++) {
      int xx = x + k;
      if (xx < 0 || xx >= w) {
        s += 1.0f;
        continue;
      }
      s += in[y * pitch + xx];
    }
    out[y * pitch + x] = s;
  }
}

__global__ void bad_continue_nested(const float* in, float* out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float s = 0.0f;
    for (int k = -1; k <= 1; k++) {
      int xx = x + k;
      if (y >= 0) {
        if (xx < 0 || xx >= w) continue;
      }
      s += in[y * pitch + xx];
    }
    out[y * pitch + x] = s;
  }
}

__global__ void bad_or_break(const float* in, float* out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float s = 0.0f;
    for (int k = -1; k <= 1; k++) {
      int xx = x + k;
      if (xx < 0 || xx >= w) break;
      s += in[y * pitch + xx];
    }
    out[y * pitch + x] = s;
  }
}

__global__ void bad_late_written(const float* in, float* out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float c = in[y * pitch + x];
    int xl = max(x - 1, 0);
    if (c > 1.0f) xl = x;
    out[y * pitch + x] = c + in[y * pitch + xl];
  }
}

__global__ void bad_late_load(const float* in, float* out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float c = in[y * pitch + x];
    int xr = min(x + 1, w - 1) * (int)c;
    out[y * pitch + x] = c + in[y * pitch + xr];
  }
}

void launch_all(const float* in, const int* dims, float* out, int w, int h, int pitch) {
  dim3 b(32, 8), g((w + 31) / 32, (h + 7) / 8);
  rp_clamp_cross<<<g, b>>>(in, out, w, h, pitch);
  rp_clamp_addr<<<g, b>>>(in, out, w, h, pitch);
  rp_clamp_u8<<<g, b>>>((const unsigned char*)in, (unsigned char*)out, w, h, pitch);
  rp_clamp_loop<<<g, b>>>(in, out, w, h, pitch);
  pad_or_continue<<<g, b>>>(in, out, w, h, pitch);
  pad_or_select<<<g, b>>>(in, out, w, h, pitch);
  pad_or_rows<<<g, b>>>(in, out, w, h, pitch);
  late_locals<<<g, b>>>(in, out, w, h, pitch);
  late_index<<<g, b>>>(in, out, w, h, pitch);
  bad_rp_variant_bound<<<g, b>>>(in, out, w, h, pitch);
  bad_rp_load<<<g, b>>>(in, dims, out, w, h, pitch);
  bad_rp_reseat<<<g, b>>>(in, out, w, h, pitch);
  bad_rp_late<<<g, b>>>(in, out, w, h, pitch);
  bad_rp_x<<<g, b>>>(in, out, w, h, pitch);
  bad_or_load<<<g, b>>>(in, dims, out, w, h, pitch);
  bad_or_and<<<g, b>>>(in, out, w, h, pitch);
  bad_or_unsigned<<<g, b>>>(in, out, w, h, pitch);
  bad_continue_body<<<g, b>>>(in, out, w, h, pitch);
  bad_continue_nested<<<g, b>>>(in, out, w, h, pitch);
  bad_or_break<<<g, b>>>(in, out, w, h, pitch);
  bad_late_written<<<g, b>>>(in, out, w, h, pitch);
  bad_late_load<<<g, b>>>(in, out, w, h, pitch);
}
