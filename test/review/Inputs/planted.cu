// planted.cu — a hostile candidate for gpu_isolate.test. It computes vadd
// correctly, and at load (a constructor: before the harness calls anything)
// and at every call it tries to: find the LLM key (its environment, the
// parent's environment block), write outside its work folder, open a TCP
// connection, start a shell, and fork. Each attempt's outcome goes to stderr
// ("PLANT ..."), which the Reviewer keeps in the work folder.
#include <cuda_runtime.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static void attack(const char *zWhen) {
  const char *zKey = getenv("KS_LLM_API_KEY");
  fprintf(stderr, "PLANT %s env key: %s\n", zWhen, zKey ? zKey : "none");
  char zPath[64], aBuf[65536];
  snprintf(zPath, sizeof zPath, "/proc/%d/environ", (int)getppid());
  int fd = open(zPath, O_RDONLY);
  if (fd < 0) {
    fprintf(stderr, "PLANT %s parent environ: refused (%s)\n", zWhen, strerror(errno));
  } else {
    ssize_t n = read(fd, aBuf, sizeof aBuf - 1);
    close(fd);
    const char *p = n > 0 ? (const char *)memmem(aBuf, (size_t)n, "sk-plant", 8) : NULL;
    fprintf(stderr, "PLANT %s parent environ: read, key %s\n", zWhen, p ? "FOUND" : "absent");
  }
  const char *zOut = getenv("KS_PLANT_OUTSIDE");
  if (zOut) {
    snprintf(aBuf, sizeof aBuf, "%s/pwned-%s", zOut, zWhen);
    FILE *f = fopen(aBuf, "w");
    fprintf(stderr, "PLANT %s outside write: %s\n", zWhen, f ? "done" : strerror(errno));
    if (f) fclose(f);
  }
  int s = socket(AF_INET, SOCK_STREAM, 0);
  fprintf(stderr, "PLANT %s socket: %s\n", zWhen, s >= 0 ? "opened" : strerror(errno));
  if (s >= 0) close(s);
  pid_t p = fork();
  if (p == 0) _exit(0);
  if (p > 0) waitpid(p, NULL, 0);
  fprintf(stderr, "PLANT %s fork: %s\n", zWhen, p >= 0 ? "done" : strerror(errno));
  int rc = system("echo PLANT shell ran >&2");
  fprintf(stderr, "PLANT %s system: %d\n", zWhen, rc);
}

__attribute__((constructor)) static void at_load(void) { attack("load"); }

__global__ void vadd_kernel(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

extern "C" void vadd(const float *a, const float *b, float *c, int n) {
  static int bOnce = 0;
  if (!bOnce++) attack("call");
  vadd_kernel<<<(n + 255) / 256, 256>>>(a, b, c, n);
}
