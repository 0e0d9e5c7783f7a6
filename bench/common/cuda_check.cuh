// cuda_check.cuh — CK(call): a CUDA runtime call's error, with file:line and the call,
// on stderr and exit status 2 (a CUDA error, as the benches that include it document).
#ifndef KS_BENCH_CUDA_CHECK_CUH
#define KS_BENCH_CUDA_CHECK_CUH

#include <cstdio>
#include <cstdlib>

#define CK(x)                                                                                 \
  do {                                                                                        \
    cudaError_t e_ = (x);                                                                     \
    if (e_ != cudaSuccess) {                                                                  \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));     \
      exit(2);                                                                                \
    }                                                                                         \
  } while (0)

#endif
