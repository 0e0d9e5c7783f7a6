// Index helpers (lib/features/shape.c): a __device__ function whose body is
// `return E;` over its own signed int parameters and literals is followed by
// the kernel-shape model (its value at the call), so `in[at(x - 1, y, w)]`
// is a neighbour read like `in[y * w + x - 1]`. A helper that reads a thread
// built-in or calls another function is not followed.
// RUN: %kernelskill features %s --json | %python %S/Inputs/fsum.py | FileCheck %s

__device__ __forceinline__ int at(int x, int y, int w) { return y * w + x; }
__device__ int lane_of(int k) { return threadIdx.x + k; }
__device__ int wrap(int x, int w) { return at(x, 0, w); }

__global__ void blur_helper(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
  out[at(x, y, w)] = 0.25f * (in[at(x - 1, y, w)] + in[at(x + 1, y, w)] + in[at(x, y - 1, w)] + in[at(x, y + 1, w)]);
}
// CHECK-LABEL: kernel blur_helper
// CHECK: shape_class="stencil"

__global__ void copy_helper(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) out[at(x, y, w)] = 2.0f * in[at(x, y, w)];
}
// CHECK-LABEL: kernel copy_helper
// CHECK: shape_class="map"

__global__ void tid_helper(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) out[y * w + x] = in[lane_of(y * w)];
}
// CHECK-LABEL: kernel tid_helper
// CHECK-NOT: shape_class="map"
// CHECK: kernel

__global__ void nested_helper(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) out[y * w + x] = in[y * w + wrap(x, w)];
}
// CHECK-LABEL: kernel nested_helper
// CHECK-NOT: shape_class="map"
