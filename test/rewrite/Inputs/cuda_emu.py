"""cuda_emu.py — shared by the rewrite rules' CPU emulation checks
(*-emu.py): cut a kernel (or helpers) out of a .cu file, the C++ prelude that
emulates the CUDA built-ins the kernels use (the threads of a block are
pthreads, __syncthreads a block barrier, blocks run one after another), a
2-D block launcher, and building and running the program with the host C++
compiler. Each check adds its own main() and, where needed, more built-ins."""
import os
import re
import subprocess
import tempfile


def block_at(s, i):
    """The text from s[i] to the brace that closes the first '{' after it."""
    j = s.index("{", i)
    d = 0
    for k in range(j, len(s)):
        d += {"{": 1, "}": -1}.get(s[k], 0)
        if d == 0:
            return s[i:k + 1]
    raise SystemExit("unbalanced braces in " + s[i:i + 80])


def shipped(s, guard):
    """The shipped header a rule inserted into source text s (the block from
    `#ifndef GUARD` to its `#endif`), or "" when it has none."""
    m = re.search(r"#ifndef " + re.escape(guard) + r"\b.*?\n#endif[^\n]*", s, re.S)
    return m.group(0) + "\n" if m else ""


def kernel(path, name, newname):
    """Kernel `name` of the file, renamed `newname`. The definition starts a
    line with __global__ (comments that quote it do not); its signature may
    span lines."""
    s = open(path, encoding="utf-8").read()
    i = re.search(r"(?m)^[ \t]*__global__[^;{]*?\b" + re.escape(name) + r"\(", s).start()
    return re.sub(r"\b" + re.escape(name) + r"\(", newname + "(", block_at(s, i), count=1)


def device_functions(path, text):
    """The file's __device__ function definitions (at the start of a line)
    whose names `text` (a cut kernel) calls, in file order: helpers the
    kernel calls come along with it."""
    s = open(path, encoding="utf-8").read()
    out = []
    for m in re.finditer(r"(?m)^[ \t]*__device__[^;{=]*?\b(\w+)\s*\([^;{]*\)\s*\{", s):
        if re.search(r"\b" + re.escape(m.group(1)) + r"\s*\(", text):
            out.append(block_at(s, m.start()))
    return "\n".join(out) + "\n"


PRELUDE = r"""
#include <pthread.h>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
struct emu_u3 { unsigned x, y, z; };
static thread_local emu_u3 threadIdx;
static emu_u3 blockIdx, blockDim, gridDim;
static pthread_barrier_t emu_bar;
#define __global__
#define __device__
#define __forceinline__
#define __shared__ static
#define __restrict__
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...)
#define __syncthreads() pthread_barrier_wait(&emu_bar)
"""

# launch(grid, block, fn): every block of a 2-D grid in turn, its threads as
# pthreads (threadIdx.x fastest), running fn.
LAUNCH_2D = r"""
static void (*emu_fn)();
static void *emu_thread(void *p) {
  long t = (long)p;
  threadIdx.x = (unsigned)(t % blockDim.x); threadIdx.y = (unsigned)(t / blockDim.x); threadIdx.z = 0;
  emu_fn();
  return 0;
}
static void launch(emu_u3 g, emu_u3 b, void (*fn)()) {
  gridDim = g; blockDim = b; emu_fn = fn;
  unsigned nt = b.x * b.y;
  pthread_barrier_init(&emu_bar, 0, nt);
  std::vector<pthread_t> th(nt);
  for (unsigned by = 0; by < g.y; by++)
    for (unsigned bx = 0; bx < g.x; bx++) {
      blockIdx = {bx, by, 0};
      for (unsigned t = 0; t < nt; t++) pthread_create(&th[t], 0, emu_thread, (void *)(long)t);
      for (unsigned t = 0; t < nt; t++) pthread_join(th[t], 0);
    }
  pthread_barrier_destroy(&emu_bar);
}
"""


# The same over a 3-D grid (blockIdx.z outermost); 2-D callers keep LAUNCH_2D.
LAUNCH_3D = r"""
static void (*emu_fn)();
static void *emu_thread(void *p) {
  long t = (long)p;
  threadIdx.x = (unsigned)(t % blockDim.x); threadIdx.y = (unsigned)(t / blockDim.x); threadIdx.z = 0;
  emu_fn();
  return 0;
}
static void launch(emu_u3 g, emu_u3 b, void (*fn)()) {
  gridDim = g; blockDim = b; emu_fn = fn;
  unsigned nt = b.x * b.y;
  pthread_barrier_init(&emu_bar, 0, nt);
  std::vector<pthread_t> th(nt);
  for (unsigned bz = 0; bz < g.z; bz++)
    for (unsigned by = 0; by < g.y; by++)
      for (unsigned bx = 0; bx < g.x; bx++) {
        blockIdx = {bx, by, bz};
        for (unsigned t = 0; t < nt; t++) pthread_create(&th[t], 0, emu_thread, (void *)(long)t);
        for (unsigned t = 0; t < nt; t++) pthread_join(th[t], 0);
      }
  pthread_barrier_destroy(&emu_bar);
}
"""

def run(cxx, source, flags=()):
    """Build the C++ program with cxx (and flags) and run it; its exit status."""
    with tempfile.TemporaryDirectory() as d:
        src, exe = os.path.join(d, "emu.cpp"), os.path.join(d, "emu")
        with open(src, "w", encoding="utf-8") as f:
            f.write(source)
        subprocess.check_call([cxx, "-x", "c++", "-std=c++17", "-O1", "-w", *flags, src, "-o", exe, "-lstdc++",
                               "-lpthread", "-lm"])
        # A barrier some thread never reaches deadlocks the emulation: a generous
        # bound turns that into a failure instead of a hung test (not a timing check).
        try:
            return subprocess.call([exe], timeout=900)
        except subprocess.TimeoutExpired:
            print("cuda_emu: the emulated kernel did not finish in 900 s: a barrier some thread never reaches?")
            return 1
