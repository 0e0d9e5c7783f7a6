// Kernels in headers: a file reports its own kernels; a header is analyzed by
// naming it (parsed as CUDA whatever its extension).
// RUN: %kernelskill features %s --json | %python %S/Inputs/fsum.py | FileCheck --check-prefix=MAIN %s
// RUN: %kernelskill features %S/Inputs/header_kernels.cuh --json | %python %S/Inputs/fsum.py | FileCheck --check-prefix=HDR %s
#include "Inputs/header_kernels.cuh"

__global__ void in_main(float *p) { p[threadIdx.x] = 0.f; }

void go(float *p, int n) { from_header<<<(n + 127) / 128, 128>>>(p, n); }

// MAIN-NOT: kernel from_header
// MAIN: kernel in_main line=7
// MAIN-NOT: kernel from_header
// MAIN: launch from_header in=go line=9 {{.*}} threads=128 args=2

// HDR: kernel from_header line=3
// HDR: access p load contiguous [i]
// HDR: access p store contiguous [i]
