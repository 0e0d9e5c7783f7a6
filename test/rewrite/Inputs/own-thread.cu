// own-thread.cu: element bodies that call helpers which do not keep to their
// thread (a warp shuffle, threadIdx read two helpers down, inline assembly,
// cooperative groups). A rule that makes the body's calls once per lane on
// one thread (vectorize) or moves them to another thread must refuse them;
// helpers that compute a value, or read memory through their arguments, stay.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__device__ float warp_mean(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v / 32.f;
}
__device__ float lane_bias(float v) { return v + (float)(threadIdx.x & 1); }
__device__ float twice(float v) { return 2.f * v; }
__device__ float via(float v) { return lane_bias(twice(v)); }
__device__ float lane_id_scale(float v) {
  unsigned l;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(l));
  return v * (float)l;
}
__device__ float load_at(const float *p, int i) { return __ldg(p + i) * 0.5f; }

// A 2-D stencil whose sum goes through a warp shuffle.
__global__ void ot_shfl(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x > 0 && x < w - 1 && y < h) out[y * w + x] = warp_mean(in[y * w + x - 1] + in[y * w + x + 1]);
}

// threadIdx two helpers down.
__global__ void ot_tid(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = via(in[i]);
}

// The lane id through inline assembly.
__global__ void ot_asm(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = lane_id_scale(in[i]);
}

// A block barrier through cooperative groups in the body.
__global__ void ot_cg(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = in[i] * 2.f;
    cg::this_thread_block().sync();
    out[i] = v;
  }
}

// A template's call left unresolved (wsum<T>) to a helper with a shuffle.
template <typename T> __device__ T wsum(T v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
template <typename T> __global__ void ot_tmpl(const T *in, T *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = wsum<T>(in[i]);
}

// A barrier under a name no list of collectives has (CUDA's __barrier_sync):
// a system header's function is taken only when known to keep to its thread.
__device__ float bar_helper(float v) {
  __barrier_sync(0);
  return v * 2.f;
}
__global__ void ot_sys(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = bar_helper(in[i]);
}

// Helpers that keep to their thread: a value and a math function (vectorize)...
__global__ void ot_ok(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = twice(in[i]) + sqrtf(in[i]);
}

// ... and a read through a pointer argument (grid-stride).
__global__ void ot_ptr(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = twice(in[i]) + load_at(in, i);
}

extern "C" void ot_run(const float *a, float *b, int w, int h) {
  int n = w * h;
  dim3 blk(32, 8), grd((w + 31) / 32, (h + 7) / 8);
  ot_shfl<<<grd, blk>>>(a, b, w, h);
  ot_tid<<<(n + 255) / 256, 256>>>(a, b, n);
  ot_asm<<<(n + 255) / 256, 256>>>(a, b, n);
  ot_cg<<<(n + 255) / 256, 256>>>(a, b, n);
  ot_ok<<<(n + 255) / 256, 256>>>(a, b, n);
  ot_ptr<<<(n + 255) / 256, 256>>>(a, b, n);
  ot_tmpl<float><<<(n + 255) / 256, 256>>>(a, b, n);
  ot_sys<<<(n + 255) / 256, 256>>>(a, b, n);
}
