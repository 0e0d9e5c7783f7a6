"""smem-transpose-emu.py CXX ORIG.cu NEW.cu KERNEL ELEM ARGS ORIGLAUNCH: check on the
CPU that the rule's tiled transpose writes exactly what the original kernel writes.
Both kernels are cut out of their files, compiled as C++ with the few CUDA built-ins
they use emulated (threads of a block are pthreads, __syncthreads a barrier, blocks
run one after another), and run on rows x cols matrices that are not multiples of
32, with gridDim.y capped below the tile-row count so the tile-row loop runs.
ARGS: the kernel's arguments from in, out, rows, cols (e.g. "in, out, rows, cols");
ORIGLAUNCH: "1d" (256 threads, one per element) or "2d-cols-x" / "2d-rows-x"
(16x16 blocks, x over the columns or the rows). The input is rows x cols, the
output cols x rows. Exit 0 when every size matches and is the transpose."""
import os
import re
import subprocess
import sys
import tempfile

cxx, orig, new, name, elem, args, olaunch = sys.argv[1:8]


def kernel(path, newname):
    s = open(path, encoding="utf-8").read()
    # the definition: a line starting with __global__ (comments that quote it do not)
    i = re.search(r"(?m)^[ \t]*__global__[^\n;]*?\b" + re.escape(name) + r"\(", s).start()
    j = s.index("{", i)
    d = 0
    for k in range(j, len(s)):
        d += {"{": 1, "}": -1}.get(s[k], 0)
        if d == 0:
            break
    text = s[i:k + 1]
    return re.sub(r"\b" + re.escape(name) + r"\(", newname + "(", text, count=1)


SHIM = r"""
#include <pthread.h>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <vector>
struct emu_u3 { unsigned x, y, z; };
static thread_local emu_u3 threadIdx;
static emu_u3 blockIdx, blockDim, gridDim;
static pthread_barrier_t emu_bar;
#define __global__
#define __shared__ static
#define __restrict__
#define __launch_bounds__(...)
#define __syncthreads() pthread_barrier_wait(&emu_bar)
"""

MAIN = r"""
typedef %(elem)s T;
static std::vector<T> gin, gout;
static int rows, cols;
static void call_orig() { T *in = gin.data(), *out = gout.data(); orig_k(%(args)s); }
static void call_new() { T *in = gin.data(), *out = gout.data(); new_k(%(args)s); }
static void (*gfn)();
static void *thr(void *p) {
  long t = (long)p;
  threadIdx.x = (unsigned)(t %% blockDim.x); threadIdx.y = (unsigned)(t / blockDim.x); threadIdx.z = 0;
  gfn();
  return 0;
}
static void launch(emu_u3 g, emu_u3 b, void (*fn)()) {
  gridDim = g; blockDim = b; gfn = fn;
  unsigned n = b.x * b.y;
  pthread_barrier_init(&emu_bar, 0, n);
  std::vector<pthread_t> th(n);
  for (unsigned by = 0; by < g.y; by++)
    for (unsigned bx = 0; bx < g.x; bx++) {
      blockIdx = {bx, by, 0};
      for (unsigned t = 0; t < n; t++) pthread_create(&th[t], 0, thr, (void *)(long)t);
      for (unsigned t = 0; t < n; t++) pthread_join(th[t], 0);
    }
  pthread_barrier_destroy(&emu_bar);
}
int main() {
  int sizes[][3] = {{70, 45, 2}, {33, 100, 1}, {64, 64, 1}, {1, 1, 1}, {31, 97, 3}, {100, 33, 2}};
  int bad = 0;
  for (auto &z : sizes) {
    rows = z[0]; cols = z[1];
    unsigned capy = (unsigned)z[2];
    size_t n = (size_t)rows * cols;
    gin.resize(n);
    for (size_t i = 0; i < n; i++) gin[i] = (T)(i * 7 + 3);
    gout.assign(n, (T)-1);
    %(olaunch)s;
    std::vector<T> ref = gout;
    gout.assign(n, (T)-1);
    unsigned gy = (unsigned)(rows + 31) / 32;
    if (gy > capy) gy = capy;
    launch({(unsigned)(cols + 31) / 32, gy, 1}, {32, 8, 1}, call_new);
    size_t nDiff = 0, nNotT = 0;
    for (size_t i = 0; i < n; i++) nDiff += ref[i] != gout[i];
    for (int r = 0; r < rows; r++)
      for (int c = 0; c < cols; c++) nNotT += gout[(size_t)c * rows + r] != gin[(size_t)r * cols + c];
    printf("%(name)s %%dx%%d gridDim.y %%u: %%zu differ from the original, %%zu not the transpose\n", rows, cols, gy,
           nDiff, nNotT);
    bad |= nDiff || nNotT;
  }
  return bad;
}
"""

LAUNCH = {
    "1d": "launch({(unsigned)((n + 255) / 256), 1, 1}, {256, 1, 1}, call_orig)",
    "2d-cols-x": "launch({(unsigned)(cols + 15) / 16, (unsigned)(rows + 15) / 16, 1}, {16, 16, 1}, call_orig)",
    "2d-rows-x": "launch({(unsigned)(rows + 15) / 16, (unsigned)(cols + 15) / 16, 1}, {16, 16, 1}, call_orig)",
}

with tempfile.TemporaryDirectory() as d:
    src = os.path.join(d, "emu.cpp")
    with open(src, "w", encoding="utf-8") as f:
        f.write(SHIM + kernel(orig, "orig_k") + "\n" + kernel(new, "new_k") + "\n" +
                MAIN % {"elem": elem, "args": args, "olaunch": LAUNCH[olaunch], "name": name})
    exe = os.path.join(d, "emu")
    subprocess.check_call([cxx, "-x", "c++", "-std=c++17", "-O1", "-w", src, "-o", exe, "-lstdc++", "-lpthread"])
    sys.exit(subprocess.call([exe]))
