"""row-reduce-attn-emu.py CXX ORIG.cu NEW.cu KERNEL: check on the CPU that an
attention-softmax kernel rewritten by rule row-reduce (Inputs/row-reduce-attn.cu:
kernel(float *att, const float *preatt, int B, int T, int NH), a thread per
(b, t, h) row of T elements, causal rows) computes what the original computes,
launched as the rewritten file launches it: the file's host launcher
launch_KERNEL is cut out of NEW.cu with its <<<grid, block>>> turned into an
emulated launch, so the grid the rule wrote (the row count B * T * NH evaluated
on the launch's arguments) is what runs; a grid short of the rows leaves rows
unwritten, which the comparison sees. A threads=auto rewrite launches with its own
ks_row_grid / ks_row_block (cut out of NEW.cu): 2-D blocks, blockDim.y rows a block. SMALL (a 5th argument `small`): three short shapes and
one seed, for blocks of 256 threads (each a fiber); else five shapes up to
rows of 150 elements (blocks of 32 threads run the unrolled main loop). The original runs one thread per row
(blocks of 32 in turn, one block more than the rows need: the guard). The
threads of a block are pthreads, __syncthreads a block barrier,
__shfl_xor_sync an exchange through per-warp slots between two per-warp
barriers (cuda_emu.py). Inputs: finite values with ties (small multiples of
0.5), constant rows, row lengths below and above the block (the ternary max
spelling picks differently from fmaxf on NaNs: none here). Every att element
must match within 1e-5 relative (elements neither run writes stay -7 in both).
Exit 0 when all match."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cuda_emu  # noqa: E402

cxx, orig, new, name = sys.argv[1:5]
small = sys.argv[5:6] == ["small"]
src_new = open(new, encoding="utf-8").read()

helpers = cuda_emu.shipped(src_new, "KS_ROWREDUCE_CUH")
# threads=auto: the launch sizes come from the rewrite's own host functions
helpers += cuda_emu.row_launch_helpers(src_new)

m = re.search(r"(?m)^void launch_" + re.escape(name) + r"\(", src_new)
if not m:
    sys.exit("no launch_%s in %s" % (name, new))
launcher = cuda_emu.block_at(src_new, m.start())
launcher, n = re.subn(r"\b" + re.escape(name) + r"<<<(.*?)>>>\((.*?)\);",
                      r"{ emu_cfg(\1); emu_go([&] { new_k(\2); }); }", launcher)
if n != 1:
    sys.exit("launch_%s does not launch %s once" % (name, name))

SHIM = cuda_emu.PRELUDE + cuda_emu.DIM3 + r"""
#include <functional>
static pthread_barrier_t emu_wbar[32];
static unsigned long long emu_slot[1024];
template <class T> static T __shfl_xor_sync(unsigned, T v, int o) {
  unsigned t = threadIdx.y * blockDim.x + threadIdx.x, w = t >> 5;
  unsigned long long b = 0, r;
  memcpy(&b, &v, sizeof v);
  emu_slot[t] = b;
  pthread_barrier_wait(&emu_wbar[w]);
  r = emu_slot[(w << 5) | ((t & 31u) ^ (unsigned)o)];
  pthread_barrier_wait(&emu_wbar[w]);
  T out;
  memcpy(&out, &r, sizeof out);
  return out;
}
static std::function<void()> emu_fn;
static void emu_cfg(dim3 g, dim3 b) {
  gridDim = {g.x, g.y, g.z};
  blockDim = {b.x, b.y, b.z};
}
static void emu_cfg(long long g, long long b) { emu_cfg(dim3((unsigned)g), dim3((unsigned)b)); }
static void *emu_thread(void *p) {
  unsigned t = (unsigned)(long)p;
  threadIdx = {t % blockDim.x, t / blockDim.x, 0};
  emu_fn();
  return 0;
}
/* The rewritten launch: every block in turn, its threads as fibers
 * (threads=auto: blockDim.y rows a block, a warp each). */
static void emu_go(std::function<void()> fn) {
  unsigned nt = blockDim.x * blockDim.y;
  emu_fn = fn;
  pthread_barrier_init(&emu_bar, 0, nt);
  for (unsigned w = 0; w < nt / 32; w++) pthread_barrier_init(&emu_wbar[w], 0, 32);
  std::vector<pthread_t> th(nt);
  for (unsigned bx = 0; bx < gridDim.x; bx++) {
    blockIdx = {bx, 0, 0};
    for (unsigned t = 0; t < nt; t++) pthread_create(&th[t], 0, emu_thread, (void *)(long)t);
    for (unsigned t = 0; t < nt; t++) pthread_join(th[t], 0);
  }
  for (unsigned w = 0; w < nt / 32; w++) pthread_barrier_destroy(&emu_wbar[w]);
  pthread_barrier_destroy(&emu_bar);
}
"""

MAIN = r"""
int main() {
  int sizes[][3] = {%(sizes)s};
  int bad = 0;
  for (int seed = 0; seed < %(seeds)d; seed++)
    for (auto &z : sizes) {
      int B = z[0], T = z[1], NH = z[2], rows = B * T * NH;
      std::vector<float> pre((size_t)rows * T), ref(pre.size(), -7.0f), att(pre.size(), -7.0f);
      for (int r = 0; r < rows; r++)
        for (int c = 0; c < T; c++)
          pre[(size_t)r * T + c] = (r %% 5 == 3) ? 1.5f : (float)(((r * 7 + c * 13 + seed) %% 9) - 4) * 0.5f;
      /* the original: a thread per row, blocks of 32, one block more than needed */
      gridDim = {(unsigned)(rows + 31) / 32 + 1, 1, 1};
      blockDim = {32, 1, 1};
      for (unsigned bx = 0; bx < gridDim.x; bx++)
        for (unsigned t = 0; t < 32; t++) {
          blockIdx = {bx, 0, 0};
          threadIdx = {t, 0, 0};
          orig_k(ref.data(), pre.data(), B, T, NH);
        }
      launch_%(name)s(att.data(), pre.data(), B, T, NH);
      int nDiff = 0;
      for (size_t e = 0; e < att.size(); e++)
        nDiff += !(fabsf(ref[e] - att[e]) <= 1e-5f * fabsf(ref[e]) + 1e-6f);
      printf("%(name)s B=%%d T=%%d NH=%%d seed %%d: grid %%u x %%u, %%d elements differ\n", B, T, NH, seed, gridDim.x,
             blockDim.x, nDiff);
      bad |= nDiff != 0;
    }
  return bad;
}
"""

defines = "".join(l for l in open(orig, encoding="utf-8") if re.match(r"\s*#\s*define\s", l))
sys.exit(cuda_emu.run(cxx, SHIM + defines + helpers + "\n" + cuda_emu.kernel(orig, name, "orig_k") + "\n" +
                      cuda_emu.kernel(new, name, "new_k") + "\n" + launcher +
                      "\n" + MAIN % {"name": name, "seeds": 1 if small else 2,
                                  "sizes": "{1, 1, 1}, {1, 5, 3}, {1, 20, 1}" if small else
                                           "{1, 1, 1}, {2, 5, 3}, {1, 37, 2}, {1, 9, 4}, {1, 150, 1}"}))
