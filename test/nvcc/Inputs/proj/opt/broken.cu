// broken.cu — a "verified" version that does not compile here: the drop-in
// must fall back to the original.
#include "scale.h"
__global__ void scale(float *y, const float *x, int n) { this does not compile }
