// evil_calls.cu — host code that must be refused: system, fopen, remove, rand in a
// __host__ __device__ function, asm, asm labels, function pointers, file-scope asm.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
extern "C" int dlopen_like(const char *);
int mysys(const char *) __asm__("system");
__global__ void k(float *y) { y[0] = 1; }
static int boom = system("id");
struct Evil { Evil() { remove("/tmp/x"); } };
static Evil evil;
__host__ __device__ float hd(float x) { return x + (float)rand(); }
extern "C" void entry(float *y) {
  system("touch /tmp/pwned");
  FILE *f = fopen("/etc/passwd", "r");
  (void)f;
  int (*fp)(const char *) = system;
  fp("x");
  asm volatile("nop");
  dlopen_like("x");
  mysys("x");
  cudaDeviceReset();
  k<<<1, 1>>>(y);
}
asm(".globl foo");
