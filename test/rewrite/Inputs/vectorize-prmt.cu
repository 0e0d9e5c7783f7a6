// vectorize-prmt.cu: stencils over 1-byte integers whose window bytes rule
// vectorize takes out of 32-bit words by one PRMT each (__byte_perm), and
// ones where it keeps the bytes as written.

// Signed bytes: sign-extended. Both the form along x (vectors and scalars)
// and rows along y (an array window).
__global__ void prmt_grad_s8(const signed char *in, unsigned char *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
  int gx = in[(y - 1) * pitch + x + 1] - in[(y - 1) * pitch + x - 1] + 2 * in[y * pitch + x + 1] -
           2 * in[y * pitch + x - 1] + in[(y + 1) * pitch + x + 1] - in[(y + 1) * pitch + x - 1];
  out[y * pitch + x] = (unsigned char)(gx < 0 ? -gx / 4 : gx / 4);
}

// Unsigned bytes, a 3x3 mean: zero-extended.
__global__ void prmt_box3_u8(const unsigned char *in, unsigned char *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x > 0 && y > 0 && x < w - 1 && y < h - 1) {
    int s = in[(y - 1) * pitch + x - 1] + in[(y - 1) * pitch + x] + in[(y - 1) * pitch + x + 1] +
            in[y * pitch + x - 1] + in[y * pitch + x] + in[y * pitch + x + 1] +
            in[(y + 1) * pitch + x - 1] + in[(y + 1) * pitch + x] + in[(y + 1) * pitch + x + 1];
    out[y * pitch + x] = (unsigned char)(s / 9);
  }
}

// Kept as bytes: a read initializes an unsigned char local (its own type),
// whose arithmetic then wraps at 8 bits.
__global__ void prmt_keep_u8(const unsigned char *in, unsigned char *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
  unsigned char c = in[y * pitch + x + 1];
  c += in[(y - 1) * pitch + x - 1] + in[(y - 1) * pitch + x + 1] + in[y * pitch + x - 1] +
       in[(y + 1) * pitch + x - 1] + in[(y + 1) * pitch + x + 1];
  out[y * pitch + x] = c;
}

// Kept as bytes: plain char, whose sign is the host's.
__global__ void prmt_char(const char *in, char *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
  out[y * pitch + x] = (char)((in[(y - 1) * pitch + x - 1] + in[(y - 1) * pitch + x + 1] + in[y * pitch + x - 1] +
                              in[y * pitch + x + 1] + in[(y + 1) * pitch + x - 1] + in[(y + 1) * pitch + x + 1]) / 6);
}

// Kept as bytes: `auto` takes a read through __ldg as a byte, and `c += 200`
// wraps at 8 bits.
__global__ void prmt_auto_u8(const unsigned char *in, unsigned char *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
  auto c = __ldg(&in[y * pitch + x]);
  c += 200;
  out[y * pitch + x] = (unsigned char)(c / 2 + in[y * pitch + x - 1] / 4 + in[y * pitch + x + 1] / 4);
}

void launch_prmt(const signed char *s8, const unsigned char *i8, unsigned char *o8, const char *c8, char *co8, int w,
                 int h, int pitch) {
  dim3 block(32, 8), grid((w + 31) / 32, (h + 7) / 8);
  prmt_grad_s8<<<grid, block>>>(s8, o8, w, h, pitch);
  prmt_box3_u8<<<grid, block>>>(i8, o8, w, h, pitch);
  prmt_keep_u8<<<grid, block>>>(i8, o8, w, h, pitch);
  prmt_char<<<grid, block>>>(c8, co8, w, h, pitch);
  prmt_auto_u8<<<grid, block>>>(i8, o8, w, h, pitch);
}
