// Stencils whose neighbour indices are clamped to the edge (image processing):
// rule vectorize reads the window where every lane's clamps are the identity,
// and border threads run the body as written (test/rewrite/vectorize-clamp.test).
// Each image is w x h with rows `pitch` elements apart.

__device__ __forceinline__ int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

__device__ int clamp_shift(int v, int hi) { return v + 1 < hi ? v + 1 : hi; }

// Clamped column indices declared with x, before the guard.
__global__ void clamp_prelude(const float* in, float* out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int xl = max(x - 1, 0), xr = min(x + 1, w - 1);
  if (x < w && y < h) {
    out[y * pitch + x] = 0.25f * (in[y * pitch + xl] + 2.0f * in[y * pitch + x] + in[y * pitch + xr]);
  }
}

// A 3x3 box filter, both coordinates clamped inside the loops.
__global__ void clamp_box_loops(const float* in, float* out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = 0.0f;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx)
      s += in[min(max(y + dy, 0), h - 1) * pitch + min(max(x + dx, 0), w - 1)];
  out[y * pitch + x] = s * (1.0f / 9.0f);
}

// A clamp helper, a 5-point cross.
__global__ void clamp_helper_cross(const float* in, float* out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float l = in[y * pitch + clampi(x - 1, 0, w - 1)];
    float r = in[y * pitch + clampi(x + 1, 0, w - 1)];
    float u = in[clampi(y - 1, 0, h - 1) * pitch + x];
    float d = in[clampi(y + 1, 0, h - 1) * pitch + x];
    out[y * pitch + x] = 0.2f * (l + r + u + d + in[y * pitch + x]);
  }
}

// Selections, in the body's leading declarations: a central difference.
__global__ void clamp_tern_diff(const float* in, float* out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    int xm = (x > 0 ? x - 1 : 0);
    int xp = (x < w - 1 ? x + 1 : w - 1);
    out[y * pitch + x] = in[y * pitch + xp] - in[y * pitch + xm];
  }
}

// A row filter of radius 2, the clamp's arguments the other way round.
__global__ void clamp_row5(const float* in, float* out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float s = 0.0f;
    for (int k = -2; k <= 2; k++) s += in[y * pitch + min(w - 1, max(0, x + k))];
    out[y * pitch + x] = s * 0.2f;
  }
}

// Code that must not change.
__global__ void bad_clamp_load(const float* in, float* out, const int* dims, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    out[y * pitch + x] = in[y * pitch + x] + in[y * pitch + min(x + 1, dims[0] - 1)];
  }
}

__global__ void bad_clamp_variant_bound(const float* in, float* out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    out[y * pitch + x] = in[y * pitch + x] + in[y * pitch + min(x + 1, y)];
  }
}

__global__ void bad_clamp_nonaffine(const float* in, float* out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    out[y * pitch + x] = in[y * pitch + x] + in[y * pitch + min(x / 2 + x, w - 1)];
  }
}

__global__ void bad_clamp_unsigned(const float* in, float* out, unsigned w, unsigned h, unsigned pitch) {
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    out[y * pitch + x] = in[y * pitch + x] + in[y * pitch + min(x + 1u, w - 1u)];
  }
}

__global__ void clamp_body_local(const float* in, float* out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    int xx = x + 1;
    out[y * pitch + x] = in[y * pitch + x] + in[y * pitch + min(xx, w - 1)];
  }
}

__global__ void bad_clamp_written_local(const float* in, float* out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    int xx = x + 1;
    out[y * pitch + x] = in[y * pitch + x] + in[y * pitch + min(xx, w - 1)];
    xx += 2;
    out[y * pitch + x] += (float)xx;
  }
}

__global__ void bad_clamp_store(const float* in, float* out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    out[y * pitch + min(x, w - 1)] = in[y * pitch + x] * 2.0f;
  }
}

__global__ void bad_clamp_helper_arith(const float* in, float* out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    out[y * pitch + x] = in[y * pitch + x] + in[y * pitch + clamp_shift(x, w - 1)];
  }
}

__global__ void bad_clamp_reflect(const float* in, float* out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    out[y * pitch + x] = in[y * pitch + x] + in[y * pitch + (x >= 1 ? x - 1 : 1 - x)];
  }
}

__global__ void bad_clamp_two_conds(const float* in, float* out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    out[y * pitch + x] = in[y * pitch + x] + in[y * pitch + (x > 0 && y > 0 ? x - 1 : 0)];
  }
}

void launch_all(const float* in, float* out, const int* dims, int w, int h, int pitch) {
  dim3 b(32, 8), g((w + 31) / 32, (h + 7) / 8);
  clamp_prelude<<<g, b>>>(in, out, w, h, pitch);
  clamp_box_loops<<<g, b>>>(in, out, w, h, pitch);
  clamp_helper_cross<<<g, b>>>(in, out, w, h, pitch);
  clamp_tern_diff<<<g, b>>>(in, out, w, h, pitch);
  clamp_row5<<<g, b>>>(in, out, w, h, pitch);
  bad_clamp_load<<<g, b>>>(in, out, dims, w, h, pitch);
  bad_clamp_variant_bound<<<g, b>>>(in, out, w, h, pitch);
  bad_clamp_nonaffine<<<g, b>>>(in, out, w, h, pitch);
  bad_clamp_unsigned<<<g, b>>>(in, out, (unsigned)w, (unsigned)h, (unsigned)pitch);
  clamp_body_local<<<g, b>>>(in, out, w, h, pitch);
  bad_clamp_written_local<<<g, b>>>(in, out, w, h, pitch);
  bad_clamp_store<<<g, b>>>(in, out, w, h, pitch);
  bad_clamp_helper_arith<<<g, b>>>(in, out, w, h, pitch);
  bad_clamp_reflect<<<g, b>>>(in, out, w, h, pitch);
  bad_clamp_two_conds<<<g, b>>>(in, out, w, h, pitch);
}
