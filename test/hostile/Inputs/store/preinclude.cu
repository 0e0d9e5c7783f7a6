// kernelskill-flags: -Xcompiler=-include,/etc/passwd
// A store entry must not pre-include files through the host compiler.
__global__ void scale(float *y, const float *x, int n) {}
