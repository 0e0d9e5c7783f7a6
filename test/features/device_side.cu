// --device parses the device side of the compile (__CUDA_ARCH__ defined): code
// under #ifdef __CUDA_ARCH__ is seen; launch sites are host-only.
// RUN: %kernelskill features %s --device --json | %python %S/Inputs/fsum.py | FileCheck --check-prefix=DEV %s
// RUN: %kernelskill features %s --json | %python %S/Inputs/fsum.py | FileCheck --check-prefix=HOST %s
// RUN: %kernelskill features %s --device --arch sm_80 --json | FileCheck --check-prefix=ARCH %s

__global__ void k(const float *x, float *y) {
#ifdef __CUDA_ARCH__
  y[threadIdx.x] = __ldg(&x[threadIdx.x]);
#else
  y[threadIdx.x] = x[threadIdx.x];
#endif
}
void launch(const float *x, float *y) { k<<<1, 32>>>(x, y); }

// DEV: parse side=device errors=0
// DEV: uses_ldg=true
// HOST: parse side=host errors=0
// HOST: uses_ldg=false
// HOST: launch k in=launch
// ARCH: "side": "device"
