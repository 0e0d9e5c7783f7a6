// vectorize-flat.cu: image stencils over a 1-D launch, the way many public
// image kernels are written: one flat index i, the column and row taken from
// it in the body (`int x = i % w, y = i / w;`), the border tested on them.
// Rule vectorize takes them in its n-dimensional form: the lanes' test
// declares those locals again for each lane. An if/else whose then-branch is
// the stencil and whose else copies the border has the lanes require the
// then-branch's condition (the else's read is dead there). A grid-stride loop
// over the flat index takes packs of W per trip, its exits ending in
// `continue`. A store under the interior's
// test that the lanes' test proves is whole on the vector path (its buffer
// is not loaded first); one under a test it does not prove keeps the load.
// Forms it must refuse follow.

// The bounds test as an if; the locals in it; the store under the interior's test.
__global__ void fl_if(const float *in, float *out, int w, int h) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < w * h) {
    int x = idx % w;
    int y = idx / w;
    if (x > 0 && x < w - 1 && y > 0 && y < h - 1)
      out[idx] = (in[idx - w] + in[idx - 1] + in[idx + 1] + in[idx + w]) * 0.25f;
  }
}

// A size_t index, an early return, the border written 0 by an exit that
// reads the locals: a 3x3 box.
__global__ void fl_exit(const float *in, float *out, int w, int h) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (size_t)w * h) return;
  int x = i % w, y = i / w;
  if (x == 0 || y == 0 || x == w - 1 || y == h - 1) {
    out[i] = 0.f;
    return;
  }
  out[i] = (in[i - w - 1] + in[i - w] + in[i - w + 1] + in[i - 1] + in[i] + in[i + 1] + in[i + w - 1] + in[i + w] +
            in[i + w + 1]) /
           9.0f;
}

// The rows tested alone (a row's ends read their neighbours across the row
// boundary, in the image): a pack that wraps into the next row must not take
// its first row's test (the lanes' test takes the row from the pack's
// quotient only where it wraps none).
__global__ void fl_vert(const float *in, float *out, int w, int h) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < w * h) {
    int y = i / w;
    if (y > 0 && y < h - 1) out[i] = 0.25f * (in[i - w] + in[i + w] + in[i - 1] + in[i + 1]);
  }
}

// Bytes: a Sobel magnitude over a flat index (16 lanes, the fallback shared
// by the warp).
__global__ void fl_sobel_u8(const unsigned char *in, unsigned char *out, int w, int h) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= w * h) return;
  const int col = i % w;
  const int row = i / w;
  if (col < 1 || row < 1 || col > w - 2 || row > h - 2) {
    out[i] = in[i];
    return;
  }
  int gx = in[i - w + 1] + 2 * in[i + 1] + in[i + w + 1] - in[i - w - 1] - 2 * in[i - 1] - in[i + w - 1];
  int gy = in[i + w - 1] + 2 * in[i + w] + in[i + w + 1] - in[i - w - 1] - 2 * in[i - w] - in[i - w + 1];
  int s = abs(gx) + abs(gy);
  out[i] = (unsigned char)(s > 255 ? 255 : s);
}

// The store under a second test (the result's sign) that the lanes' test
// does not prove: the output is loaded first, so lanes that do not store keep it.
__global__ void fl_keep_load(const float *in, float *out, int w, int h) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < w * h) {
    int x = idx % w;
    if (x > 0 && x < w - 1) {
      float d = in[idx + 1] - in[idx - 1];
      if (d > 0.f) out[idx] = d;
    }
  }
}

// The interior's stencil in the then-branch, the border copied in the else
// (2-D): the lanes' test requires the interior, the else's read is dead there.
__global__ void fl_else_copy_2d(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    int idx = y * w + x;
    if (x > 0 && x < w - 1 && y > 0 && y < h - 1)
      out[idx] = in[idx - w] + in[idx - 1] + in[idx + 1] + in[idx + w] - 4.0f * in[idx];
    else
      out[idx] = in[idx];
  }
}

// The same over a flat index.
__global__ void fl_else_copy(const float *in, float *out, int w, int h) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < w * h) {
    int col = idx % w;
    int row = idx / w;
    if (col > 0 && col < w - 1 && row > 0 && row < h - 1)
      out[idx] = in[idx - w] + in[idx - 1] + in[idx + 1] + in[idx + w] - 4.0f * in[idx];
    else
      out[idx] = in[idx];
  }
}

// Refused: the else reads an element the then-branch does not (in[idx + 2]).
__global__ void fl_else_other(const float *in, float *out, int w, int h) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < w * h) {
    int col = idx % w;
    if (col > 0 && col < w - 1)
      out[idx] = in[idx - 1] + in[idx + 1] + in[idx];
    else
      out[idx] = in[idx + 2];
  }
}

// A grid-stride loop over the flat index (any grid covers the image): the
// border zeroed by an exit that ends in `continue`.
__global__ void gs_cross(const float *in, float *out, int w, int h) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < w * h; i += blockDim.x * gridDim.x) {
    int x = i % w, y = i / w;
    if (x == 0 || y == 0 || x == w - 1 || y == h - 1) {
      out[i] = 0.f;
      continue;
    }
    out[i] = (in[i - w] + in[i - 1] + in[i + 1] + in[i + w]) * 0.25f;
  }
}

// Bytes in a grid-stride loop, 64-bit index, the interior under an if.
__global__ void gs_box_u8(const unsigned char *in, unsigned char *out, int w, int h) {
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (size_t)w * h;
       i += (size_t)blockDim.x * gridDim.x) {
    const int x = (int)(i % w), y = (int)(i / w);
    if (x > 0 && x < w - 1 && y > 0 && y < h - 1)
      out[i] = (unsigned char)((in[i - w] + in[i - 1] + 4 * in[i] + in[i + 1] + in[i + w]) / 8);
  }
}

// 2-D grid-stride loops: y's loop stays, x's takes packs; the border passes through.
__global__ void gs2_blur(const float *__restrict__ in, float *__restrict__ out, int w, int h) {
  for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < h; y += blockDim.y * gridDim.y)
    for (int x = blockIdx.x * blockDim.x + threadIdx.x; x < w; x += blockDim.x * gridDim.x) {
      if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) {
        out[y * w + x] = in[y * w + x];
        continue;
      }
      out[y * w + x] = 0.25f * (in[(y - 1) * w + x] + in[(y + 1) * w + x] + in[y * w + x - 1] + in[y * w + x + 1]);
    }
}

// A map in 2-D grid-stride loops (braces around the x loop).
__global__ void gs2_scale(const float *in, float *out, int w, int h) {
  for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < h; y += blockDim.y * gridDim.y) {
    for (int x = blockIdx.x * blockDim.x + threadIdx.x; x < w; x += blockDim.x * gridDim.x) {
      out[y * w + x] = 2.0f * in[y * w + x] + 1.0f;
    }
  }
}

// Refused: a continue in the middle of the body (the lanes would leave the pack).
__global__ void gs_mid_continue(const float *in, float *out, int w, int h) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < w * h; i += blockDim.x * gridDim.x) {
    int x = i % w;
    if (x == 0 || x == w - 1) continue;
    float v = in[i - 1] + in[i + 1];
    if (v < 0.f) continue;
    out[i] = v;
  }
}

// Refused: a return as the border's exit (it ends the thread's loop).
__global__ void gs_return(const float *in, float *out, int w, int h) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < w * h; i += blockDim.x * gridDim.x) {
    int x = i % w;
    if (x == 0 || x == w - 1) return;
    out[i] = in[i - 1] + in[i + 1];
  }
}

// Refused: the loop steps by the block alone (threads of different blocks overlap).
__global__ void gs_block_step(const float *in, float *out, int w, int h) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < w * h; i += blockDim.x) {
    int x = i % w;
    if (x > 0 && x < w - 1) out[i] = in[i - 1] + in[i + 1];
  }
}

// Refused: the interior's local changed through a reference (the lanes' test
// would declare it with its first value).
__global__ void fl_ref_write(const float *in, float *out, int w, int h) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < w * h) {
    int x = idx % w;
    int &rx = x;
    rx += 1;
    if (x > 1 && x < w) out[idx] = in[idx - 1] + in[idx + 1];
  }
}

// Refused: the same through a call taking it by reference.
__device__ void fl_bump(int &v) { v += 1; }
__global__ void fl_call_write(const float *in, float *out, int w, int h) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < w * h) {
    int x = idx % w;
    fl_bump(x);
    if (x > 1 && x < w) out[idx] = in[idx - 1] + in[idx + 1];
  }
}

// Refused: a grid-stride loop's bound changed through a reference in the body.
__global__ void gs_bound_ref(const float *in, float *out, int w, int h) {
  int n = w * h;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    int x = i % w;
    if (x > 0 && x < w - 1) out[i] = in[i - 1] + in[i + 1];
    int &r = n;
    r -= 1;
  }
}

// Refused: the condition names two locals called x (one shadowing the other),
// which one block of the lanes' test cannot declare.
__global__ void fl_shadow(const float *in, float *out, int w, int h) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < w * h) {
    int x = idx % w;
    int xp = x + 1;
    {
      int x = idx / w;
      if (xp < w && x < h) out[idx] = in[idx + 1] + in[idx];
    }
  }
}

// A local of a typedef the body declares: the lanes' test spells its type.
__global__ void fl_typedef(const float *in, float *out, int w, int h) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < w * h) {
    typedef int Col;
    Col x = i % w;
    if (x > 0 && x < w - 1) out[i] = in[i - 1] + in[i + 1];
  }
}

// Refused: the exit's local is written after it (the lanes' test would
// declare it with its first value only; the rule does not follow writes).
__global__ void fl_local_written(const float *in, float *out, int w, int h) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= w * h) return;
  int x = i % w;
  if (x == 0 || x == w - 1) {
    out[i] = 0.f;
    return;
  }
  x += 1;
  out[i] = in[i - 1] + in[i + 1] + (float)x;
}

// Refused: the exit's local is read from memory (the lanes' test reads no memory).
__global__ void fl_local_load(const float *in, const int *mask, float *out, int w, int h) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= w * h) return;
  int m = mask[i];
  if (m == 0) {
    out[i] = 0.f;
    return;
  }
  out[i] = in[i - 1] + in[i + 1];
}

extern "C" void fl_run(const float *a, float *b, const unsigned char *c, unsigned char *d, const int *m, int w,
                       int h) {
  int n = w * h;
  fl_if<<<(n + 255) / 256, 256>>>(a, b, w, h);
  fl_exit<<<(n + 255) / 256, 256>>>(a, b, w, h);
  fl_vert<<<(n + 255) / 256, 256>>>(a, b, w, h);
  fl_sobel_u8<<<(n + 255) / 256, 256>>>(c, d, w, h);
  fl_keep_load<<<(n + 255) / 256, 256>>>(a, b, w, h);
  fl_else_copy_2d<<<dim3((w + 31) / 32, (h + 7) / 8), dim3(32, 8)>>>(a, b, w, h);
  fl_else_copy<<<(n + 255) / 256, 256>>>(a, b, w, h);
  fl_else_other<<<(n + 255) / 256, 256>>>(a, b, w, h);
  gs_cross<<<264, 256>>>(a, b, w, h);
  gs_box_u8<<<264, 256>>>(c, d, w, h);
  gs2_blur<<<dim3(8, 8), dim3(32, 8)>>>(a, b, w, h);
  gs2_scale<<<dim3(8, 8), dim3(32, 8)>>>(a, b, w, h);
  gs_mid_continue<<<264, 256>>>(a, b, w, h);
  gs_return<<<264, 256>>>(a, b, w, h);
  gs_block_step<<<264, 256>>>(a, b, w, h);
  fl_ref_write<<<(n + 255) / 256, 256>>>(a, b, w, h);
  fl_call_write<<<(n + 255) / 256, 256>>>(a, b, w, h);
  gs_bound_ref<<<264, 256>>>(a, b, w, h);
  fl_shadow<<<(n + 255) / 256, 256>>>(a, b, w, h);
  fl_typedef<<<(n + 255) / 256, 256>>>(a, b, w, h);
  fl_local_written<<<(n + 255) / 256, 256>>>(a, b, w, h);
  fl_local_load<<<(n + 255) / 256, 256>>>(a, m, b, w, h);
}
