// vectorize-exits.cu: element bodies that begin with exits, the way public
// image kernels treat their borders: `if (border) { out[i] = 0; return; }`,
// a second early return, a border copied from the input, or an if/else whose
// else is the stencil. Rule vectorize's vector path requires that no lane
// takes an exit; the fallback runs the body as written, each exit's return
// going on to the next lane. Exits it must refuse follow.

// A bounds return, then the border written 0: a u8 Sobel magnitude.
__global__ void ex_zero_border(const unsigned char *in, unsigned char *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  if (x == 0 || y == 0 || x == w - 1 || y == h - 1) {
    out[y * pitch + x] = 0;
    return;
  }
  int gx = -in[(y - 1) * pitch + x - 1] + in[(y - 1) * pitch + x + 1] - 2 * in[y * pitch + x - 1] +
           2 * in[y * pitch + x + 1] - in[(y + 1) * pitch + x - 1] + in[(y + 1) * pitch + x + 1];
  int gy = -in[(y - 1) * pitch + x - 1] - 2 * in[(y - 1) * pitch + x] - in[(y - 1) * pitch + x + 1] +
           in[(y + 1) * pitch + x - 1] + 2 * in[(y + 1) * pitch + x] + in[(y + 1) * pitch + x + 1];
  int s = abs(gx) + abs(gy);
  out[y * pitch + x] = s > 255 ? 255 : s;
}

// The guard as an if; inside it the border copies the input and returns.
__global__ void ex_copy_border(const float *in, float *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    int idx = y * pitch + x;
    if (x < 2 || x >= w - 2 || y < 1 || y >= h - 1) {
      out[idx] = in[idx];
      return;
    }
    out[idx] = 0.25f * (in[idx - 2] + in[idx + 2]) + 0.5f * in[idx] - 0.125f * (in[idx - pitch] + in[idx + pitch]);
  }
}

// An if/else: the border one value, the else the stencil.
__global__ void ex_else(const float *in, float *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  if (x == 0 || x == w - 1 || y == 0 || y == h - 1)
    out[y * pitch + x] = -1.0f;
  else {
    float l = in[(y - 1) * pitch + x - 1] + in[y * pitch + x - 1] + in[(y + 1) * pitch + x - 1];
    float r = in[(y - 1) * pitch + x + 1] + in[y * pitch + x + 1] + in[(y + 1) * pitch + x + 1];
    out[y * pitch + x] = r * r - l;
  }
}

// A second early return, then the body.
__global__ void ex_two_returns(const float *in, float *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  if (x < 1 || x > w - 2) return;
  out[y * pitch + x] = in[y * pitch + x - 1] + 2.0f * in[y * pitch + x] + in[y * pitch + x + 1];
}

// Refused: the exit's return is inside a loop.
__global__ void ex_loop_return(const float *in, float *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  if (x == 0) {
    for (int k = 0; k < 2; k++)
      if (in[k] > 0.f) return;
    return;
  }
  out[y * pitch + x] = in[y * pitch + x - 1] + in[y * pitch + x];
}

// Refused: the exit's condition reads memory.
__global__ void ex_mem_cond(const float *in, float *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w - 1 || y >= h || x < 1) return;
  if (in[y * pitch + x] < 0.f) {
    out[y * pitch + x] = 0.f;
    return;
  }
  out[y * pitch + x] = in[y * pitch + x - 1] + in[y * pitch + x + 1];
}

// Refused: a return after the body has begun.
__global__ void ex_late_return(const float *in, float *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w - 1 || y >= h || x < 1) return;
  float v = in[y * pitch + x - 1] + in[y * pitch + x + 1];
  if (x == 5) return;
  out[y * pitch + x] = v;
}

// Refused: the exit stores a thread built-in (the fallback's thread is not the lane's).
__global__ void ex_tid_store(const float *in, float *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  if (x >= w - 3) {
    out[y * pitch + x] = (float)threadIdx.x;
    return;
  }
  out[y * pitch + x] = in[y * pitch + x] * 2.f;
}

// Refused: the exit writes a local of the prelude, which the thread's lanes share.
__global__ void ex_prelude_write(const float *in, float *out, int w, int h, int pitch) {
  float bias = 1.f;
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  if (x < 2) {
    bias = 5.f;
    out[y * pitch + x] = bias;
    return;
  }
  out[y * pitch + x] = in[y * pitch + x] + bias;
}

// Refused: the exit's return is a macro's (the fallback could not spell it `continue`).
#define EX_BAIL return
__global__ void ex_macro_return(const float *in, float *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  if (x < 1 || x >= w - 1) EX_BAIL;
  out[y * pitch + x] = in[y * pitch + x - 1] + in[y * pitch + x + 1];
}

// Equalities written by a macro: every lane tested (the corners need the sides' own text).
#define EX_ON_EDGE(v, n) ((v) == 0 || (v) >= (n) - 1)
__global__ void ex_macro_edge(const float *in, float *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  if (EX_ON_EDGE(x, w)) {
    out[y * pitch + x] = 0.f;
    return;
  }
  out[y * pitch + x] = in[y * pitch + x - 1] - in[y * pitch + x + 1];
}

extern "C" void ex_run(unsigned char *a, unsigned char *b, float *f, float *g, int w, int h) {
  dim3 blk(16, 16), grd((w + 15) / 16, (h + 15) / 16);
  ex_zero_border<<<grd, blk>>>(a, b, w, h, w);
  ex_copy_border<<<grd, blk>>>(f, g, w, h, w);
  ex_else<<<grd, blk>>>(f, g, w, h, w);
  ex_two_returns<<<grd, blk>>>(f, g, w, h, w);
  ex_loop_return<<<grd, blk>>>(f, g, w, h, w);
  ex_mem_cond<<<grd, blk>>>(f, g, w, h, w);
  ex_late_return<<<grd, blk>>>(f, g, w, h, w);
  ex_tid_store<<<grd, blk>>>(f, g, w, h, w);
  ex_prelude_write<<<grd, blk>>>(f, g, w, h, w);
  ex_macro_return<<<grd, blk>>>(f, g, w, h, w);
  ex_macro_edge<<<grd, blk>>>(f, g, w, h, w);
}
