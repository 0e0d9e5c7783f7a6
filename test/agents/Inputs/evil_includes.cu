// evil_includes.cu — includes and directives that must be refused.
#include <cuda_runtime.h>
#include <stdlib.h>
#include <unistd.h>
#include "local.h"
extern "C" int dlopen_like(const char *);
extern char **environ;
int mysys(const char *) __asm__("system");
__global__ void k(float *y) { y[0] = 1; }
static int boom = system("id");
extern "C" void entry(float *y) {
  system("touch /tmp/pwned");
  FILE *f = fopen("/etc/passwd", "r");
  (void)f;
  getenv("HOME");
  int (*fp)(const char *) = system;
  fp("x");
  asm volatile("nop");
  dlopen_like("x");
  k<<<1, 1>>>(y);
}
#embed "/etc/passwd"
