// A template kernel launched inside a host template with the host template's
// parameter (issue 14): a launch site like any other, so the shape model's
// uses, the launch count and rule vectorize (which rescales that launch's
// grid by ks_lanes<T>()) agree.
// RUN: %kernelskill features %s --json | %python %S/Inputs/fsum.py | FileCheck %s
// RUN: %kernelskill features %s --json | %python -c "import json,sys; d=json.load(sys.stdin); k=[k for k in d['kernels'] if k['name']=='scale_t'][0]; print('class', k['shape']['class'], 'sites', k['summary']['launch_sites'], 'uses', [u['kind'] for u in k['shape']['uses']])" | FileCheck %s --check-prefix=USES
#include <cuda_runtime.h>

template <typename T>
__global__ void scale_t(T *y, const T *x, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = (T)((float)x[i] * s);
}

template <typename T>
void launch_scale(T *y, const T *x, float s, int n, cudaStream_t st) {
  scale_t<T><<<(n + 255) / 256, 256, 0, st>>>(y, x, s, n);
}

void run(float *y, const float *x, int n) { launch_scale<float>(y, x, 2.0f, n, 0); }
// CHECK-LABEL: kernel scale_t line=10 template=true
// CHECK: launch scale_t in=launch_scale line=17 grid=[(n + 255) / 256] block=[256] smem=[0] stream=[st] threads=256 args=4
// USES: class map sites 1 uses ['launch']
