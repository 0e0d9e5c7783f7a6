"""column-walk-emu.py CXX ORIG.cu NEW.cu KERNEL: check on the CPU that rule
column-walk's rewrite of KERNEL writes exactly what the original writes.
Both kernels are cut out of their files (the new one with the ks_colwalk
helpers the rule inserted above it), compiled as C++ with the CUDA built-ins
emulated (cuda_emu.py: a block's threads are pthreads, __syncthreads a
barrier), and run on rows x cols inputs that are not multiples of the block
(fewer rows than row slices, fewer columns than a block, one row, one column).
The original runs with its launch (256 threads per block, one per column); the
new one with the grid scale and block read from its rewritten launch in
NEW.cu, or with cols=auto with the grid and block its host helpers give for
1, 16 and 1000 SMs. Kernels have the signature (m, x, out, rows, cols). Inputs hold small
integers, so every sum is exact in any order and the outputs must be equal bit
for bit. The __device__ helpers the kernel calls come along (cuda_emu.device_functions).
Exit 0 when every size matches."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cuda_emu  # noqa: E402

cxx, orig, new, name = sys.argv[1:5]
src = open(new, encoding="utf-8").read()
m = re.search(r"\b" + re.escape(name) + r"<<<ks_colwalk::grid\(.*, (\d+)\), dim3\((\d+), (\d+)\)>>>", src)
# cols=auto: the launch's shape comes from the header's host helpers, run here
# with the SM count of an emulated device (1, 16 and 1000 SMs: 32 or 16
# columns on the inputs below).
ma = re.search(r"\b" + re.escape(name) + r"<<<ks_colwalk::grid_auto\(.*, (\d+)\), ks_colwalk::block_auto\(.*, \1, (\d+)\)>>>", src)
if m:
    scale, bcols, brows = (int(g) for g in m.groups())
elif ma:
    ablock, athreads = (int(g) for g in ma.groups())
else:
    raise SystemExit("no rewritten launch of " + name + " in " + new)
h = re.search(r"#ifndef KS_COLWALK_CUH.*?\n#endif", src, re.S)
if not h:
    raise SystemExit("no ks_colwalk helpers in " + new)

PRE = cuda_emu.DIM3 + r"""
enum cudaError_t { cudaSuccess = 0 };
enum cudaDeviceAttr { cudaDevAttrMultiProcessorCount = 16 };
static int emu_sm = 1;
static cudaError_t cudaGetDevice(int *d) { *d = 0; return cudaSuccess; }
static cudaError_t cudaDeviceGetAttribute(int *v, cudaDeviceAttr, int) { *v = emu_sm; return cudaSuccess; }
"""

MAIN = r"""
static std::vector<float> gm, gx, gout;
static int rows, cols;
static void call_orig() { orig_k(gm.data(), gx.data(), gout.data(), rows, cols); }
static void call_new() { new_k(gm.data(), gx.data(), gout.data(), rows, cols); }
int main() {
  int sizes[][2] = {{70, 45}, {5, 300}, {33, 1}, {1, 33}, {64, 64}, {40, 260}};
  int bad = 0;
  for (auto &z : sizes) {
    rows = z[0]; cols = z[1];
    size_t n = (size_t)rows * cols;
    gm.resize(n);
    for (size_t i = 0; i < n; i++) gm[i] = (float)((int)((i * 7 + 3) %% 17) - 8);
    gx.resize(rows > cols ? rows : cols);
    for (size_t i = 0; i < gx.size(); i++) gx[i] = (float)((int)(i %% 5) - 2);
    gout.assign(n, 1.0f);
    unsigned g = (unsigned)(cols + 255) / 256;
    launch({g, 1, 1}, {256, 1, 1}, call_orig);
    std::vector<float> ref = gout;
    for (int sm : {SMS}) {
      emu_sm = sm;
      gout.assign(n, 1.0f);
      LAUNCH_NEW
      size_t nDiff = 0;
      for (size_t i = 0; i < n; i++) nDiff += memcmp(&ref[i], &gout[i], sizeof(float)) != 0;
      printf("%(name)s %%dx%%d, block %%ux%%u: %%zu of %%zu outputs differ\n", rows, cols, nb.x, nb.y, nDiff, n);
      bad |= nDiff != 0;
    }
  }
  return bad;
}
"""

if m:
    main = MAIN.replace("{SMS}", "{1}").replace(
        "LAUNCH_NEW", "dim3 nb(%d, %d); launch({g * %d, 1, 1}, {nb.x, nb.y, 1}, call_new);" % (bcols, brows, scale))
else:
    main = MAIN.replace("{SMS}", "{1, 16, 1000}").replace(
        "LAUNCH_NEW", "dim3 ng = ks_colwalk::grid_auto(dim3(g), %d), nb = ks_colwalk::block_auto(dim3(g), %d, %d); "
        "launch({ng.x, ng.y, 1}, {nb.x, nb.y, 1}, call_new);" % (ablock, ablock, athreads))
main = main % {"name": name}
ko = cuda_emu.kernel(orig, name, "orig_k")
sys.exit(cuda_emu.run(cxx, cuda_emu.PRELUDE + PRE + h.group(0) + "\n" + cuda_emu.device_functions(orig, ko) + ko + "\n" +
                      cuda_emu.kernel(new, name, "new_k") + "\n" + cuda_emu.LAUNCH_2D + main))
