// Inputs of vectorize-fallback.test: 8-bit stencils whose fallback the warp may
// share (fallback=auto on bytes) or must leave to each thread, and kernels the
// rule refuses whatever the fallback. No CHECK lines here: the test's are its own.
#define TY threadIdx.y

// A helper reading threadIdx.y through another helper: refused (the lanes would call it on one thread).
__device__ __forceinline__ int fbk_rowpar() { return (int)threadIdx.y & 1; }
__device__ __forceinline__ int fbk_bias() { return fbk_rowpar(); }
__global__ void fb_helper_chain(const unsigned char *in, unsigned char *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y >= h || x >= w - 1) return;
  out[y * pitch + x] = (unsigned char)(in[y * pitch + x - 1] + in[y * pitch + x + 1] + fbk_bias());
}

// The same through a macro in the helper.
__device__ __forceinline__ int fbk_bias2() { return (int)TY & 1; }
__global__ void fb_macro_helper(const unsigned char *in, unsigned char *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y >= h || x >= w - 1) return;
  out[y * pitch + x] = (unsigned char)(in[y * pitch + x - 1] + in[y * pitch + x + 1] + fbk_bias2());
}

// A pure helper and prelude variables named like the rewrite's own: the warp shares the fallback.
__device__ __forceinline__ int fbk_half(int v) { return v >> 1; }
__global__ void fb_names(const unsigned char *in, unsigned char *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y0 = blockIdx.y * blockDim.y + threadIdx.y;
  int x0 = y0 * pitch;
  if (x < 1 || y0 >= h || x >= w - 1) return;
  out[x0 + x] = (unsigned char)fbk_half(in[x0 + x - 1] + in[x0 + x + 1]);
}

// Refused: a variable an x-derived declaration reads, assigned after it.
__global__ void fb_reassigned(const unsigned char *in, unsigned char *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int row = y * pitch;
  int i = row + x;
  row = 0;
  if (x < 1 || y >= h || x >= w - 1) return;
  out[i] = (unsigned char)(in[i - 1] + in[i + 1] + row);
}

// Refused: the body changes a parameter.
__global__ void fb_param_write(const unsigned char *in, unsigned char *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y >= h || x >= w - 1) return;
  h = h + 1;
  out[y * pitch + x] = (unsigned char)(in[y * pitch + x - 1] + in[y * pitch + x + 1] + h);
}

// Refused: the body copies threadIdx whole.
__global__ void fb_bare_tid(const unsigned char *in, unsigned char *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y >= h || x >= w - 1) return;
  const uint3 t = threadIdx;
  out[y * pitch + x] = (unsigned char)(in[y * pitch + x - 1] + in[y * pitch + x + 1] + (t.y & 1));
}

void fb_host(const unsigned char *i8, unsigned char *o8, int w, int h) {
  dim3 block(8, 4), grid((w + 7) / 8, (h + 3) / 4);
  fb_helper_chain<<<grid, block>>>(i8, o8, w, h, w);
  fb_macro_helper<<<grid, block>>>(i8, o8, w, h, w);
  fb_names<<<grid, block>>>(i8, o8, w, h, w);
  fb_reassigned<<<grid, block>>>(i8, o8, w, h, w);
  fb_param_write<<<grid, block>>>(i8, o8, w, h, w);
  fb_bare_tid<<<grid, block>>>(i8, o8, w, h, w);
}
