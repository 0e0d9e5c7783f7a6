// vectorize-intf.cu: 8- and 16-bit stencils whose int sums rule vectorize
// evaluates in float where that is exact (intf), and ones it leaves in int.
// Each reads three rows, each row at the same columns, so that rows=2 takes
// them (one stack of windows, held as arrays).

// A 3x3 mean on bytes: the nine-term sum in float, the division in int.
__global__ void intf_box3_u8(const unsigned char *in, unsigned char *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x > 0 && y > 0 && x < w - 1 && y < h - 1) {
    int s = in[(y - 1) * pitch + x - 1] + in[(y - 1) * pitch + x] + in[(y - 1) * pitch + x + 1] +
            in[y * pitch + x - 1] + in[y * pitch + x] + in[y * pitch + x + 1] +
            in[(y + 1) * pitch + x - 1] + in[(y + 1) * pitch + x] + in[(y + 1) * pitch + x + 1];
    out[y * pitch + x] = (unsigned char)(s / 9);
  }
}

// A sharpen on bytes, saturated both ways: 9 * 255 + 8 * 255 at most, exact
// in float; the comparisons and the cast in int.
__global__ void intf_sharpen_u8(const unsigned char *in, unsigned char *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
  int v = 9 * in[y * pitch + x] - in[(y - 1) * pitch + x - 1] - in[(y - 1) * pitch + x] -
          in[(y - 1) * pitch + x + 1] - in[y * pitch + x - 1] - in[y * pitch + x + 1] -
          in[(y + 1) * pitch + x - 1] - in[(y + 1) * pitch + x] - in[(y + 1) * pitch + x + 1];
  out[y * pitch + x] = (unsigned char)(v > 255 ? 255 : v < 0 ? 0 : v);
}

// Unsigned arithmetic after the sum: the int sum in float, `- 700u` (which
// wraps below 700) still in unsigned.
__global__ void intf_wrap_u8(const unsigned char *in, unsigned char *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
  unsigned s = in[(y - 1) * pitch + x - 1] + in[(y - 1) * pitch + x + 1] + in[y * pitch + x - 1] +
               in[y * pitch + x + 1] + in[(y + 1) * pitch + x - 1] + in[(y + 1) * pitch + x + 1] - 700u;
  out[y * pitch + x] = (unsigned char)(s >> 3);
}

// Left in int: each read's expression has one operator (no gain).
__global__ void intf_grad_u8(const unsigned char *in, unsigned char *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
  int a = in[(y - 1) * pitch + x + 1] - in[(y - 1) * pitch + x - 1];
  int b = in[y * pitch + x + 1] - in[y * pitch + x - 1];
  int c = in[(y + 1) * pitch + x + 1] - in[(y + 1) * pitch + x - 1];
  out[y * pitch + x] = (unsigned char)((abs(a) + abs(b) + abs(c)) / 3);
}

// Left in int: a product of three bytes reaches 255^3, past 2^22.
__global__ void intf_cube_u8(const unsigned char *in, unsigned char *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
  int v = in[(y - 1) * pitch + x - 1] * in[y * pitch + x - 1] * in[(y + 1) * pitch + x - 1] +
          in[(y - 1) * pitch + x + 1] * in[y * pitch + x + 1] * in[(y + 1) * pitch + x + 1];
  out[y * pitch + x] = (unsigned char)(v >> 17);
}

// Left in int: two reads are compared, outside any sum.
__global__ void intf_cmp_u8(const unsigned char *in, unsigned char *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
  int s = in[(y - 1) * pitch + x - 1] + in[(y - 1) * pitch + x + 1] + in[y * pitch + x - 1] +
          in[y * pitch + x + 1] + in[(y + 1) * pitch + x - 1] + in[(y + 1) * pitch + x + 1];
  out[y * pitch + x] = (unsigned char)(in[y * pitch + x + 1] > in[y * pitch + x - 1] ? s / 6 : 0);
}

// Left in int: one window of bytes is an array (read in a loop), the other
// is not (vectors and scalars along x): none is converted.
__global__ void intf_mix_u8(const unsigned char *a, const unsigned char *b, unsigned char *out, int w, int h,
                            int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= 1 && x < w - 1 && y < h) {
    int s = 0;
    for (int k = -1; k <= 1; k++) s += a[y * pitch + x + k] / 2 * 2;
    int t = b[y * pitch + x - 1] - b[y * pitch + x + 1];
    out[y * pitch + x] = (unsigned char)(s + t);
  }
}

// Left in int: a macro use ends the sum's expression (its `/ 8` would come
// inside the float text).
#define INTF_MEAN * 2 / 8
__global__ void intf_macro_u8(const unsigned char *in, unsigned char *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
  int v = (in[(y - 1) * pitch + x - 1] + in[(y - 1) * pitch + x + 1] + in[y * pitch + x - 1] +
           in[y * pitch + x + 1] + in[(y + 1) * pitch + x - 1] + in[(y + 1) * pitch + x + 1]) INTF_MEAN;
  out[y * pitch + x] = (unsigned char)v;
}

// Left in int: plain char is unsigned on some hosts (aarch64, -funsigned-char),
// and 2 * 255^3 passes 2^22 where 2 * 128^3 would not.
__global__ void intf_char3(const char *in, char *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
  int v = in[(y - 1) * pitch + x - 1] * in[y * pitch + x - 1] * in[(y + 1) * pitch + x - 1] +
          in[(y - 1) * pitch + x + 1] * in[y * pitch + x + 1] * in[(y + 1) * pitch + x + 1];
  out[y * pitch + x] = (char)(v >> 17);
}

void launch_intf(const unsigned char *i8, unsigned char *o8, const char *c8, char *co8, int w, int h, int pitch) {
  dim3 block(32, 8), grid((w + 31) / 32, (h + 7) / 8);
  intf_box3_u8<<<grid, block>>>(i8, o8, w, h, pitch);
  intf_sharpen_u8<<<grid, block>>>(i8, o8, w, h, pitch);
  intf_wrap_u8<<<grid, block>>>(i8, o8, w, h, pitch);
  intf_grad_u8<<<grid, block>>>(i8, o8, w, h, pitch);
  intf_cube_u8<<<grid, block>>>(i8, o8, w, h, pitch);
  intf_cmp_u8<<<grid, block>>>(i8, o8, w, h, pitch);
  intf_mix_u8<<<grid, block>>>(i8, i8 + 1, o8, w, h, pitch);
  intf_macro_u8<<<grid, block>>>(i8, o8, w, h, pitch);
  intf_char3<<<grid, block>>>(c8, co8, w, h, pitch);
}
