// Stencils: neighbour reads of one array.
// RUN: %kernelskill features %s --json | %python %S/Inputs/fsum.py | FileCheck %s

__global__ void blur1d(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1) out[i] = (in[i - 1] + in[i] + in[i + 1]) / 3.0f;
}
// CHECK-LABEL: kernel blur1d
// CHECK: nonconst_div=0
// CHECK: stencil=true
// CHECK: structure="reuse"

__global__ void conv3x3(const float *in, const float *w, float *out, int H, int W) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= W || y >= H) return;
  float acc = 0.f;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      int yy = min(max(y + dy, 0), H - 1), xx = min(max(x + dx, 0), W - 1);
      acc += w[(dy + 1) * 3 + dx + 1] * in[yy * W + xx];
    }
  out[y * W + x] = acc;
}
// CHECK-LABEL: kernel conv3x3
// CHECK: loop line=18 for depth=1 trip=3
// CHECK: loop line=19 for depth=2 trip=3
// CHECK: max_loop_depth=2
// CHECK: has_const_trip_loop=true
// CHECK: stencil=true

// Two arrays at the same index: no stencil.
__global__ void axpy(const float *x, const float *y, float *z, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = a * x[i] + y[i];
}
// CHECK-LABEL: kernel axpy
// CHECK: fma_candidates=1
// CHECK: stencil=false
// CHECK: has_reuse=false
