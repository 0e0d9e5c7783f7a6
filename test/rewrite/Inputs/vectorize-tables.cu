// vectorize-tables.cu: kernels whose weights come from constant local tables
// (and one whose indices come from an index helper, at(x, y, pitch))
// declared before the index (`const int Gx[3][3] = {...}`, static or not),
// the way many public filters are written; and tables that are not constant
// (rule vectorize must refuse those).

// A Sobel magnitude by loops over two tables, the guard as an if.
__global__ void tb_sobel_loops(const unsigned char *src, unsigned char *dst, int width, int height, int pitch) {
  const int Gx[3][3] = {{-1, 0, 1}, {-2, 0, 2}, {-1, 0, 1}};
  const int Gy[3][3] = {{-1, -2, -1}, {0, 0, 0}, {1, 2, 1}};
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x > 0 && y > 0 && x < width - 1 && y < height - 1) {
    int sx = 0, sy = 0;
    for (int j = -1; j <= 1; j++)
      for (int i = -1; i <= 1; i++) {
        int p = src[(y + j) * pitch + (x + i)];
        sx += Gx[j + 1][i + 1] * p;
        sy += Gy[j + 1][i + 1] * p;
      }
    int mag = abs(sx) + abs(sy);
    dst[y * pitch + x] = mag > 255 ? 255 : mag;
  }
}

// Nine different weights in a flat static table: a lane that took another
// tap's weight would change the sum.
__global__ void tb_weights9(const float *in, float *out, int w, int h, int pitch) {
  static const float k[9] = {1.f, 2.f, 3.f, 4.f, 5.f, 6.f, 7.f, 8.f, -9.f};
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < 1 || col < 1 || row >= h - 1 || col >= w - 1) return;
  float acc = 0.f;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) acc += k[(dy + 1) * 3 + dx + 1] * in[(row + dy) * pitch + col + dx];
  out[row * pitch + col] = acc;
}

// A look-up table read with the index: the 1-D map.
__global__ void tb_lut(const float *in, float *out, int n) {
  const float lut[4] = {1.f, -2.f, 0.5f, 4.f};
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * lut[i & 3];
}

// A table read at the lane's own column and row: each lane its own weight.
__global__ void tb_lut2d(const float *in, float *out, int w, int h, int pitch) {
  const float gain[2][4] = {{1.f, 2.f, 3.f, 4.f}, {-1.f, 0.5f, 0.25f, 8.f}};
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y >= h || x >= w - 1) return;
  out[y * pitch + x] = gain[y & 1][x & 3] * (in[y * pitch + x - 1] - in[y * pitch + x + 1]);
}

// An index helper of its own parameters (the kernel-shape model follows it):
// weights from a table, the neighbours through at().
__device__ __forceinline__ int at(int x, int y, int p) { return y * p + x; }
__global__ void tb_helper(const float *in, float *out, int w, int h, int pitch) {
  const float k[3] = {0.25f, 0.5f, -0.25f};
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y >= h || x >= w - 1) return;
  out[at(x, y, pitch)] = k[0] * in[at(x - 1, y, pitch)] + k[1] * in[at(x, y, pitch)] + k[2] * in[at(x + 1, y, pitch)];
}

// Nested index helpers: the inner call's binding must not overwrite the outer's.
__global__ void tb_nested_helper(const float *in, float *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y >= h || x >= w - 1) return;
  out[at(x, y, pitch)] = in[at(x + 1, at(0, y, pitch), 1)] - in[at(x - 1, at(0, y, pitch), 1)];
}

// Five declarators in one leading statement: the first four read by an index
// only, the fifth by the lanes (and shadowing a parameter). The statement
// stays whole in every lane.
__global__ void tb_five_decls(const float *in, float *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= 1 && x < w - 1 && y < h) {
    int a = 0, b = 0, c = 0, d = 0, h = 2;
    out[y * pitch + x] = in[y * pitch + x - 1 + a + b + c + d] + (float)h * in[y * pitch + x + 1];
  }
}

// Not constant: the table is written before it is read.
__global__ void tb_written(const float *in, float *out, int w, int h, int pitch) {
  float k[3] = {1.f, 2.f, 1.f};
  k[1] += (float)w;
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y >= h || x >= w - 1) return;
  out[y * pitch + x] = k[0] * in[y * pitch + x - 1] + k[1] * in[y * pitch + x] + k[2] * in[y * pitch + x + 1];
}

// Not constant: a weight comes from a parameter.
__global__ void tb_param_init(const float *in, float *out, int w, int h, int pitch) {
  const float k[3] = {1.f, (float)w, 1.f};
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y >= h || x >= w - 1) return;
  out[y * pitch + x] = k[0] * in[y * pitch + x - 1] + k[1] * in[y * pitch + x] + k[2] * in[y * pitch + x + 1];
}

extern "C" void tb_run(unsigned char *a, unsigned char *b, float *f, float *g, int w, int h) {
  dim3 blk(32, 8), grd((w + 31) / 32, (h + 7) / 8);
  tb_sobel_loops<<<grd, blk>>>(a, b, w, h, w);
  tb_weights9<<<grd, blk>>>(f, g, w, h, w);
  tb_lut<<<(w * h + 255) / 256, 256>>>(f, g, w * h);
  tb_lut2d<<<grd, blk>>>(f, g, w, h, w);
  tb_helper<<<grd, blk>>>(f, g, w, h, w);
  tb_nested_helper<<<grd, blk>>>(f, g, w, h, w);
  tb_five_decls<<<grd, blk>>>(f, g, w, h, w);
  tb_written<<<grd, blk>>>(f, g, w, h, w);
  tb_param_init<<<grd, blk>>>(f, g, w, h, w);
}
