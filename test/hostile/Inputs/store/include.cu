// kernelskill-flags: -O3 -I/etc -include /etc/hostname
// Include paths and pre-includes stay out of the flags line.
__global__ void scale(float *y, const float *x, int n) {}
