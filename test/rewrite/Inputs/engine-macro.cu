// Input of test/rewrite/engine-safety.test: element accesses and parameters written
// inside macro expansions, which no rule may edit piecewise.
#define THREE(P, i) (P[i] + P[i] + P[i])
__global__ void tri(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = THREE(x, i);
}
#define TAIL_PARAMS const float* b, const float* c, float* d
__global__ void tailp(const float* a, TAIL_PARAMS, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) d[i] = a[i] + b[i] + c[i];
}
void host(const float* x, float* y, const float* b, const float* c, float* d, int n) {
  tri<<<(n + 255) / 256, 256>>>(x, y, n);
  tailp<<<(n + 255) / 256, 256>>>(x, b, c, d, n);
}
