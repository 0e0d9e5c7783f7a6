// Kernels for the vectorize rule's mixed-element tests (issue 14): a kernel
// whose buffers have different element types (a cast f32 -> bf16, f16 -> f32,
// an 8-bit keep mask beside f32 data) is vectorized with the widest element
// setting the lanes (16 bytes of it) and each buffer loaded and stored as that
// many of its own elements. bad_* must be refused.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cstdint>

__global__ void cast_fb(const float *in, __nv_bfloat16 *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __float2bfloat16(in[i]);
}

__global__ void cast_hf(const __half *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __half2float(in[i]) * 0.5f;
}

__global__ void mask_u8(const float *x, const uint8_t *keep, float *y, float scale, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = keep[i] ? x[i] * scale : 0.0f;
}

// short has no 4-lane vector type here.
__global__ void bad_short_mix(const float *x, const short *s, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] + (float)s[i];
}

void run(const float *x, __nv_bfloat16 *b, const __half *h, float *y, const uint8_t *m, const short *s, int n) {
  cast_fb<<<(n + 255) / 256, 256>>>(x, b, n);
  cast_hf<<<(n + 255) / 256, 256>>>(h, y, n);
  mask_u8<<<(n + 255) / 256, 256>>>(x, m, y, 2.0f, n);
  bad_short_mix<<<(n + 255) / 256, 256>>>(x, s, y, n);
}
