// Parameters: pointer or not, const pointee, __restrict__, and whether every
// read-only pointer is const (a restrict/const skill's precondition).
// RUN: %kernelskill features %s --json | %python %S/Inputs/fsum.py | FileCheck %s

__global__ void k_restrict(const float *__restrict__ a, float *__restrict__ b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = a[i];
}
// CHECK-LABEL: kernel k_restrict
// CHECK: param a type=[const float *__restrict] pointer const_pointee restrict
// CHECK: param b type=[float *__restrict] pointer restrict
// CHECK: param n type=[int]
// CHECK: num_params=3
// CHECK: num_pointer_params=2
// CHECK: all_inputs_const=true
// CHECK: all_pointers_restrict=true

__global__ void k_plain(float *a, float *b, const int *c, double s) {
  b[threadIdx.x] = a[threadIdx.x] * (float)s + c[0];
}
// CHECK-LABEL: kernel k_plain
// CHECK: param a type=[float *] pointer
// CHECK: param c type=[const int *] pointer const_pointee
// CHECK: param s type=[double]
// CHECK: all_inputs_const=false
// CHECK: all_pointers_restrict=false

// A pointer only read through atomics is not an input.
__global__ void k_atomic(const float *x, float *acc) { atomicAdd(acc, x[threadIdx.x]); }
// CHECK-LABEL: kernel k_atomic
// CHECK: all_inputs_const=true
