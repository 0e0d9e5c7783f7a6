"""cuda_emu.py — shared by the rewrite rules' CPU emulation checks
(*-emu.py): cut a kernel (or helpers) out of a .cu file, the C++ prelude that
emulates the CUDA built-ins the kernels use (the threads of a block are
fibers, __syncthreads a block barrier, blocks run one after another), a
2-D block launcher, and building and running the program with the host C++
compiler. Each check adds its own main() and, where needed, more built-ins.

The emulators are written against pthreads (pthread_create / pthread_join /
pthread_barrier_*); the prelude maps those calls onto fibers (ucontext) on one
OS thread. A barrier then switches to the next runnable fiber instead of
sleeping and waking hundreds of OS threads (a 512-thread block cost
milliseconds of kernel scheduling per barrier, seconds per check, and far more
on a loaded machine), the interleaving is the same on every run, and a
barrier that some thread never reaches is reported at once instead of hanging.
Fibers of a block run in turn until each blocks at a barrier or ends; every
other round runs them in reverse order, and consecutive blocks start in
opposite orders, so a read of shared memory missing its barrier meets a stale
value in one order or the other (test/rewrite/cuda-emu.test shows both)."""
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


def row_launch_helpers(s):
    """The host functions rule row-reduce writes for threads=auto launches
    (`static inline dim3 ks_row_*(...)`) in source text s, in file order."""
    return "\n".join(block_at(s, m.start())
                     for m in re.finditer(r"(?m)^static inline dim3 [^\n]*\bks_row_\w+\(", s))


# CUDA's dim3 (x, y, z, each defaulting to 1) for host code the rules write;
# the built-ins themselves are emu_u3 (PRELUDE).
DIM3 = r"""
struct dim3 { unsigned x, y, z; dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {} };
"""


def kernel(path, name, newname):
    """Kernel `name` of the file, renamed `newname`. The definition starts a
    line with __global__ (comments that quote it do not); its signature may
    span lines; a declaration (no body) is skipped."""
    s = open(path, encoding="utf-8").read()
    i = re.search(r"(?m)^[ \t]*__global__[^;{]*?\b" + re.escape(name) + r"\([^;{]*\)[^;{]*\{", s).start()
    return re.sub(r"\b" + re.escape(name) + r"\(", newname + "(", block_at(s, i), count=1)


def device_functions(path, text):
    """The file's __device__ function definitions (at the start of a line)
    whose names `text` (a cut kernel) calls, or a helper so taken calls, in
    file order: helpers the kernel calls come along with it."""
    s = open(path, encoding="utf-8").read()
    defs = [(m.group(1), block_at(s, m.start()))
            for m in re.finditer(r"(?m)^[ \t]*__device__[^;{=]*?\b(\w+)\s*\([^;{]*\)\s*\{", s)]
    used, grown = set(), True
    while grown:  # and the helpers those call, in turn
        grown = False
        for name, body in defs:
            if name not in used and re.search(r"\b" + re.escape(name) + r"\s*\(",
                                              text + "".join(b for n, b in defs if n in used)):
                used.add(name)
                grown = True
    return "\n".join(b for n, b in defs if n in used) + "\n"


# The fiber runtime (see the module's doc): included by PRELUDE after every
# standard header the emulators use, so that its macros reach only their code.
# A fiber is entered the first time through its ucontext and switched with
# _setjmp/_longjmp afterwards (swapcontext would make a signal-mask system call
# on every switch).
FIBERS = r"""
struct emu_fiber {
  jmp_buf jb;
  ucontext_t uc;
  void *(*fn)(void *);
  void *arg;
  char *stack;
  int state; /* 0 runnable, 1 at a barrier, 2 ended, 3 joined */
  bool started;
  const void *bar;
  emu_u3 tid;
};
struct emu_barrier { unsigned n, count; };
enum { EMU_STACK = 1 << 20 };
static std::vector<emu_fiber *> emu_live; /* created since the last all-joined point */
static std::vector<char *> emu_stacks;    /* stacks of joined fibers, for reuse */
static size_t emu_njoined;
static unsigned emu_round, emu_batch; /* rounds since the block began; blocks begun */
static jmp_buf emu_sched;
static emu_fiber *emu_cur;

static void emu_die(const char *what) {
  fprintf(stderr, "cuda_emu: %s\n", what);
  fflush(stdout);
  _exit(3);
}
static void emu_entry() {
  emu_fiber *f = emu_cur;
  f->fn(f->arg);
  f->state = 2;
  _longjmp(emu_sched, 1);
}
static int emu_create(pthread_t *t, const pthread_attr_t *, void *(*fn)(void *), void *arg) {
  if (emu_cur) emu_die("a kernel thread may not start threads");
  if (emu_njoined == emu_live.size()) { /* a new block: its first round runs the other way than the last one's */
    for (emu_fiber *f : emu_live) delete f;
    emu_live.clear();
    emu_njoined = 0;
    emu_batch++;
    emu_round = 0;
  }
  emu_fiber *f = new emu_fiber();
  if (!emu_stacks.empty()) f->stack = emu_stacks.back(), emu_stacks.pop_back();
  else if (!(f->stack = (char *)malloc(EMU_STACK))) emu_die("out of memory for a fiber stack");
  getcontext(&f->uc);
  f->uc.uc_stack.ss_sp = f->stack;
  f->uc.uc_stack.ss_size = EMU_STACK;
  f->uc.uc_link = 0;
  makecontext(&f->uc, emu_entry, 0);
  f->fn = fn, f->arg = arg, f->tid = threadIdx;
  emu_live.push_back(f);
  *t = (pthread_t)(uintptr_t)f;
  return 0;
}
/* Run the runnable fibers until `target` has ended. */
static void emu_run(emu_fiber *target) {
  while (target->state == 0 || target->state == 1) {
    bool ran = false;
    size_t n = emu_live.size();
    for (size_t k = 0; k < n; k++) {
      emu_fiber *f = emu_live[((emu_round + emu_batch) & 1u) ? n - 1 - k : k];
      if (f->state != 0) continue;
      ran = true;
      emu_cur = f, threadIdx = f->tid;
      if (!_setjmp(emu_sched)) {
        if (f->started) _longjmp(f->jb, 1);
        f->started = true;
        ucontext_t from;
        swapcontext(&from, &f->uc);
      }
      f->tid = threadIdx, emu_cur = 0;
    }
    emu_round++;
    if (!ran) emu_die("deadlock: every unfinished thread waits at a barrier the others never reach");
  }
}
static int emu_join(pthread_t t, void **) {
  emu_fiber *f = (emu_fiber *)(uintptr_t)t;
  if (emu_cur) emu_die("a kernel thread may not join threads");
  emu_run(f);
  f->state = 3;
  emu_stacks.push_back(f->stack);
  emu_njoined++;
  return 0;
}
static int emu_barrier_init(emu_barrier *b, const void *, unsigned n) {
  b->n = n, b->count = 0;
  return 0;
}
static int emu_barrier_destroy(emu_barrier *b) {
  if (b->count) emu_die("a barrier destroyed while threads wait at it");
  return 0;
}
static int emu_barrier_wait(emu_barrier *b) {
  emu_fiber *f = emu_cur;
  if (++b->count == b->n) {
    b->count = 0;
    for (emu_fiber *g : emu_live)
      if (g->state == 1 && g->bar == b) g->state = 0;
    return PTHREAD_BARRIER_SERIAL_THREAD;
  }
  if (!f) emu_die("a barrier of several threads waited on outside a kernel thread");
  f->state = 1, f->bar = b;
  if (!_setjmp(f->jb)) _longjmp(emu_sched, 1);
  return 0;
}
#define pthread_create emu_create
#define pthread_join emu_join
#define pthread_barrier_t emu_barrier
#define pthread_barrier_init emu_barrier_init
#define pthread_barrier_destroy emu_barrier_destroy
#define pthread_barrier_wait emu_barrier_wait
"""

PRELUDE = r"""
#include <pthread.h>
#include <setjmp.h>
#include <ucontext.h>
#include <unistd.h>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <vector>
struct emu_u3 { unsigned x, y, z; };
static emu_u3 threadIdx; /* the running fiber's: saved and restored with it */
static emu_u3 blockIdx, blockDim, gridDim;
""" + FIBERS + r"""
static pthread_barrier_t emu_bar;
#define __global__
#define __device__
#define __forceinline__
#define __noinline__
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

# launch3(grid, block, fn): every thread of a 3-D grid in turn, one after
# another on this thread (kernels without barriers: no fibers needed).
LAUNCH_SEQ = r"""
static void launch3(emu_u3 g, emu_u3 b, void (*fn)()) {
  gridDim = g; blockDim = b;
  for (unsigned bz = 0; bz < g.z; bz++) for (unsigned by = 0; by < g.y; by++) for (unsigned bx = 0; bx < g.x; bx++)
    for (unsigned tz = 0; tz < b.z; tz++) for (unsigned ty = 0; ty < b.y; ty++) for (unsigned tx = 0; tx < b.x; tx++) {
      blockIdx = {bx, by, bz}; threadIdx = {tx, ty, tz}; fn();
    }
}
"""


# Warp collectives of the warp-shared fallback (templates/ks_fallback.cuh)
# over fibers (FIBERS: the block's threads must be fibers, launchf below):
# each takes the whole warp (the emulated threads of a warp always reach it
# together), exchanging one slot per lane between two waits on the warp's
# own barrier. __activemask: the warp's threads (a partial last warp has fewer).
WARP = r"""
static pthread_barrier_t emu_wbar[64];
static unsigned emu_wslot[2048];
static unsigned emu_lin() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }
static unsigned emu_wlanes(unsigned w) {
  unsigned nt = blockDim.x * blockDim.y * blockDim.z, r = nt - 32 * w;
  return r < 32 ? r : 32;
}
static unsigned __activemask() { unsigned n = emu_wlanes(emu_lin() / 32); return n == 32 ? ~0u : (1u << n) - 1; }
static void emu_wwait(unsigned w) {
  if (emu_wbar[w].count == 0) emu_wbar[w].n = emu_wlanes(w); /* nobody waits: (re)size it for this block */
  pthread_barrier_wait(&emu_wbar[w]);
}
static void emu_exchange(unsigned m, unsigned v, unsigned *a) {
  unsigned t = emu_lin(), w = t / 32;
  if (m != __activemask()) emu_die("a warp collective over part of a warp (the emulation takes whole warps)");
  emu_wslot[t] = v;
  emu_wwait(w);
  for (unsigned l = 0; l < 32; l++) a[l] = emu_wslot[(32 * w + l) % 2048];
  emu_wwait(w);
}
static unsigned __ballot_sync(unsigned m, int p) {
  unsigned a[32], r = 0;
  emu_exchange(m, p != 0, a);
  for (unsigned l = 0; l < 32; l++) if ((m >> l & 1u) && a[l]) r |= 1u << l;
  return r;
}
static unsigned __shfl_sync(unsigned m, unsigned v, int src) {
  unsigned a[32];
  emu_exchange(m, v, a);
  if (!(m >> (src & 31) & 1u)) emu_die("__shfl_sync from a lane outside the mask");
  return a[src & 31];
}
"""

# launchf(grid, block, fn): every block of a 3-D grid in turn, its threads
# (3-D, x fastest) as fibers, running fn: for kernels with warp collectives.
LAUNCH_FIB = r"""
static void (*emu_ffn)();
static void *emu_fthread(void *p) {
  long t = (long)p;
  threadIdx.x = (unsigned)(t % blockDim.x); threadIdx.y = (unsigned)(t / blockDim.x % blockDim.y);
  threadIdx.z = (unsigned)(t / blockDim.x / blockDim.y);
  emu_ffn();
  return 0;
}
static void launchf(emu_u3 g, emu_u3 b, void (*fn)()) {
  gridDim = g; blockDim = b; emu_ffn = fn;
  unsigned nt = b.x * b.y * b.z;
  if (nt > 2048) emu_die("launchf: more than 2048 threads in a block");
  pthread_barrier_init(&emu_bar, 0, nt);
  std::vector<pthread_t> th(nt);
  for (unsigned bz = 0; bz < g.z; bz++) for (unsigned by = 0; by < g.y; by++) for (unsigned bx = 0; bx < g.x; bx++) {
    blockIdx = {bx, by, bz};
    for (unsigned t = 0; t < nt; t++) pthread_create(&th[t], 0, emu_fthread, (void *)(long)t);
    for (unsigned t = 0; t < nt; t++) pthread_join(th[t], 0);
  }
  pthread_barrier_destroy(&emu_bar);
}
"""


# The same collectives for threads that run one after another (launch3):
# each thread is a warp of its own (its lane alone in the mask), so the
# warp-shared fallback runs the thread's own outputs, as the per-thread one
# does. Fast enough under AddressSanitizer, which the fibers are not.
WARP_SEQ = r"""
static unsigned __activemask() {
  return 1u << ((threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) & 31u);
}
static unsigned __ballot_sync(unsigned m, int p) { return p ? m : 0u; }
static unsigned __shfl_sync(unsigned m, unsigned v, int src) {
  if (m != 1u << (src & 31)) { fprintf(stderr, "cuda_emu: __shfl_sync from another lane\n"); _exit(3); }
  return v;
}
"""


# The bit intrinsics the header uses, for either of the two.
WARP_BITS = r"""
static int __popc(unsigned x) { return __builtin_popcount(x); }
static int __ffs(unsigned x) { return __builtin_ffs((int)x); }
static unsigned __fns(unsigned m, unsigned base, int n) { /* n >= 1: the n-th set bit from base up */
  for (unsigned i = base; i < 32; i++) if ((m >> i & 1u) && --n == 0) return i;
  return 0xffffffffu;
}
"""


def warp_fallback(new_src, seq=False):
    """For a rewritten file whose kernel shares its fallback across the warp
    (ks_fallback.cuh): the warp collectives with the fiber launcher launchf
    (seq: the one-thread warps of WARP_SEQ, for launch3) and the header's
    text; "" otherwise."""
    hdr = shipped(new_src, "KS_FALLBACK_CUH")
    return WARP_BITS + (WARP_SEQ if seq else WARP + LAUNCH_FIB) + hdr if hdr else ""

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
