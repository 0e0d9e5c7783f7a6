// good_vec4.cu — a correct candidate: float4 loads with a scalar tail.
// kernelskill-flags: -Xptxas -O3
#include <cuda_runtime.h>
__global__ void vadd4(const float4 *a, const float4 *b, float4 *c, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) {
    float4 x = a[i], y = b[i];
    c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
}
__global__ void vadd_tail(const float *a, const float *b, float *c, int i0, int n) {
  int i = i0 + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
extern "C" void vadd(const float *a, const float *b, float *c, int n) {
  int n4 = n / 4;
  if (n4) vadd4<<<(n4 + 255) / 256, 256>>>((const float4 *)a, (const float4 *)b, (float4 *)c, n4);
  if (n % 4) vadd_tail<<<1, 4>>>(a, b, c, n4 * 4, n);
}
