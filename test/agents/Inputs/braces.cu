// {{not_a_placeholder}} stays as written
__global__ void k() {}
