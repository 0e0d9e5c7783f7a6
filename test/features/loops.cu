// Loops: count, nesting, constant trip counts, #pragma unroll.
// RUN: %kernelskill features %s --json | %python %S/Inputs/fsum.py | FileCheck %s
#define TILE 8

__global__ void loops(float *p, int n) {
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < 16; ++i) s += p[i];
  for (int i = 0; i <= 10; i += 2) s += 1.f;
  for (int i = 31; i >= 0; --i) {
    #pragma unroll 4
    for (int j = 0; j < TILE; j++) s *= 0.5f;
  }
  for (int i = 0; i < n; ++i) s -= 1.f;
  int k = 0;
  while (k < n) k += 3;
  do { s += 2.f; } while (s < 0.f);
  p[threadIdx.x] = s;
}
// CHECK-LABEL: kernel loops
// CHECK: loop line=8 for depth=1 trip=16 unroll=true accumulates=true grid_stride=false var=i
// CHECK: loop line=9 for depth=1 trip=6 unroll=false
// CHECK: loop line=10 for depth=1 trip=32 unroll=false
// CHECK: loop line=12 for depth=2 trip=8 unroll=true
// CHECK: loop line=14 for depth=1 trip=None unroll=false
// CHECK: loop line=16 while depth=1 trip=None
// CHECK: loop line=17 do depth=1 trip=None
// CHECK: loop_count=7
// CHECK: max_loop_depth=2
// CHECK: has_unroll_pragma=true
// CHECK: has_const_trip_loop=true

__global__ void noloops(float *p) { p[threadIdx.x] = 0.f; }
// CHECK-LABEL: kernel noloops
// CHECK: loop_count=0
// CHECK: max_loop_depth=0
// CHECK: has_unroll_pragma=false
// CHECK: has_const_trip_loop=false

// Grid-stride or not is the shape model's call, the same one the rules read:
// a step through a 64-bit temporary is one; a step of another variable is not.
__global__ void gs_temp(float *p, long long n) {
  size_t stride = (size_t)blockDim.x * gridDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) p[i] *= 2.f;
}
// CHECK-LABEL: kernel gs_temp
// CHECK: loop line={{[0-9]+}} for depth=1 trip=None unroll=false accumulates=false grid_stride=true var=i

__global__ void gs_other_var(float *p, int n) {
  int j = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; j += blockDim.x * gridDim.x) p[i + j] = 0.f;
}
// CHECK-LABEL: kernel gs_other_var
// CHECK: loop line={{[0-9]+}} for depth=1 trip=None unroll=false accumulates=false grid_stride=false var=i
