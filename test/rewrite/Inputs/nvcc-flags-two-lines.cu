// Input for nvcc-flags.cu: two flags lines (the contract allows one), so the
// rule refuses.
#include <cuda_runtime.h>

// kernelskill-flags: -Xptxas -O3
// kernelskill-flags: --use_fast_math
__global__ void k(float *x) { x[threadIdx.x] = 0.0f; }
