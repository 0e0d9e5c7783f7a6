// bypass_adl.cu — unqualified calls in a host template are looked up again at
// instantiation (argument-dependent lookup can find std::remove through a std
// type): refused unless the name is allowed whatever it resolves to.
#include <cuda_runtime.h>
__global__ void k(float *y) { y[threadIdx.x] = 1.0f; }
template <class T> void cleanup(T path) { remove(path); }
template <class T> void tidy(T t) { sneaky(t); }
template <class T> void fine(T t) { cudaFree(t); }
extern "C" void entry(float *y) { k<<<1, 32>>>(y); }
