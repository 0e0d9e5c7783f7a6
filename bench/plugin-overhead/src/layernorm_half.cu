// layernorm_half.cu — mixed-precision kernels in an LLM-training style: fp16
// layernorm with vectorized loads, GELU, AdamW update and a cross-entropy loss.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

struct Params {
  float lr, beta1, beta2, eps, wd;
  int step;
};

__device__ __forceinline__ float gelu(float x) {
  return 0.5f * x * (1.f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
}

__global__ void layernorm_f16(const __half *x, const float *w, const float *b, __half *y, int C) {
  extern __shared__ float red[];
  const __half2 *row = reinterpret_cast<const __half2 *>(x + blockIdx.x * C);
  float s = 0.f, ss = 0.f;
  for (int i = threadIdx.x; i < C / 2; i += blockDim.x) {
    float2 v = __half22float2(row[i]);
    s += v.x + v.y;
    ss += v.x * v.x + v.y * v.y;
  }
  red[threadIdx.x] = s;
  red[threadIdx.x + blockDim.x] = ss;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) {
      red[threadIdx.x] += red[threadIdx.x + k];
      red[threadIdx.x + blockDim.x] += red[threadIdx.x + blockDim.x + k];
    }
    __syncthreads();
  }
  float mean = red[0] / C, rstd = rsqrtf(red[blockDim.x] / C - mean * mean + 1e-5f);
  for (int i = threadIdx.x; i < C; i += blockDim.x)
    y[blockIdx.x * C + i] = __float2half((__half2float(x[blockIdx.x * C + i]) - mean) * rstd * w[i] + b[i]);
}

__global__ void gelu_fwd(const float *__restrict__ in, float *__restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = gelu(in[i]);
}

__global__ void adamw(float *p, const float *g, float *m, float *v, int n, Params P) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float mi = P.beta1 * m[i] + (1 - P.beta1) * g[i];
  float vi = P.beta2 * v[i] + (1 - P.beta2) * g[i] * g[i];
  m[i] = mi;
  v[i] = vi;
  float mh = mi / (1 - powf(P.beta1, P.step)), vh = vi / (1 - powf(P.beta2, P.step));
  p[i] -= P.lr * (mh / (sqrtf(vh) + P.eps) + P.wd * p[i]);
}

__global__ void xent(const float *logits, const int *target, float *loss, int B, int V) {
  int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= B) return;
  const float *l = logits + (size_t)b * V;
  float m = l[0];
  for (int i = 1; i < V; i++) m = fmaxf(m, l[i]);
  float s = 0.f;
  for (int i = 0; i < V; i++) s += expf(l[i] - m);
  loss[b] = logf(s) + m - l[target[b]];
}

void step(__half *x, const float *w, const float *b, __half *y, int N, int C, float *p, const float *g, float *m,
          float *v, int n, Params P, const float *lg, const int *t, float *loss, int B, int V) {
  layernorm_f16<<<N, 256, 2 * 256 * sizeof(float)>>>(x, w, b, y, C);
  gelu_fwd<<<(n + 255) / 256, 256>>>(p, m, n);
  adamw<<<(n + 255) / 256, 256>>>(p, g, m, v, n, P);
  xent<<<(B + 127) / 128, 128>>>(lg, t, loss, B, V);
}
