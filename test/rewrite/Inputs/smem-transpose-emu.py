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
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cuda_emu  # noqa: E402

cxx, orig, new, name, elem, args, olaunch = sys.argv[1:8]

MAIN = r"""
typedef %(elem)s T;
static std::vector<T> gin, gout;
static int rows, cols;
static void call_orig() { T *in = gin.data(), *out = gout.data(); orig_k(%(args)s); }
static void call_new() { T *in = gin.data(), *out = gout.data(); new_k(%(args)s); }
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

main = MAIN % {"elem": elem, "args": args, "olaunch": LAUNCH[olaunch], "name": name}
sys.exit(cuda_emu.run(cxx, cuda_emu.PRELUDE + cuda_emu.kernel(orig, name, "orig_k") + "\n" +
                      cuda_emu.shipped(open(new, encoding="utf-8").read(), "KS_TRANSPOSE_CUH") +
                      cuda_emu.kernel(new, name, "new_k") + "\n" + cuda_emu.LAUNCH_2D + main))
