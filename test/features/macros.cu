// Kernels spelled through macros: __global__ itself is a macro, and projects
// wrap it further. Offsets must come from expansion locations.
// RUN: %kernelskill features %s --json | %python %S/Inputs/fsum.py | FileCheck %s
// RUN: %kernelskill features %s | FileCheck --check-prefix=TEXT %s

#define KERNEL extern "C" __global__ void
#define BOUNDED(n) __global__ void __launch_bounds__(n)
#define IDX (blockIdx.x * blockDim.x + threadIdx.x)

KERNEL k_macro(float *out, int n) {
  if (IDX < n) out[IDX] = 1.0f;
}
// CHECK-LABEL: kernel k_macro line=10
// CHECK: access out store contiguous [IDX]
// CHECK: bounds_check=true

BOUNDED(128) k_bounded(float *out) { out[IDX] = 2.0f; }
// CHECK-LABEL: kernel k_bounded line=17
// CHECK: launch_bounds max_threads=None min_blocks=None
// CHECK: has_launch_bounds=true

__global__ void __launch_bounds__(256, 4) k_plain(float *out) { out[IDX] = 3.0f; }
// CHECK-LABEL: kernel k_plain line=22
// CHECK: launch_bounds max_threads=256 min_blocks=4

// TEXT: 3 kernels
// TEXT: k_macro {{.*}}macros.cu:10
// TEXT: k_bounded {{.*}}macros.cu:17
// TEXT: __launch_bounds__ (through a macro)
// TEXT: k_plain {{.*}}macros.cu:22
// TEXT: __launch_bounds__(256, 4)
