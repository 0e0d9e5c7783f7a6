// misc.cu — kernels with the parameter kinds the replay entry must handle: a
// template, a struct passed by value, an extern "C" kernel (no types in its name).
struct P {
  int n;
  float s;
};

template <typename T> __global__ void tscale(T *y, const T *x, T a, int n) {
  int i = threadIdx.x;
  if (i < n) y[i] = a * x[i];
}

__global__ void with_struct(float *y, P p) {
  int i = threadIdx.x;
  if (i < p.n) y[i] *= p.s;
}

extern "C" __global__ void k_c(float *y, int n) {
  int i = threadIdx.x;
  if (i < n) y[i] += 1.0f;
}

void go(float *y, const float *x, int n) {
  tscale<float><<<1, 64>>>(y, x, 2.0f, n);
  with_struct<<<1, 64>>>(y, P{32, 3.0f});
  k_c<<<1, 64>>>(y, n);
}
