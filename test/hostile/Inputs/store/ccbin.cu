// kernelskill-flags: -ccbin /tmp/evil/g++
// A store entry must not choose nvcc's host compiler (it would run any program at build time).
__global__ void scale(float *y, const float *x, int n) {}
