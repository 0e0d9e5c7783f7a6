#!/usr/bin/env python3
"""vectorize-nd-emu.py ORIG REWRITTEN KERNEL -- CPU emulation check of the
vectorize rule's n-dimensional form on the kernels of Inputs/vectorize-nd.cu:
the original and the rewritten kernel run with the launch the rule gives (the
same grid where it leaves the launch alone: grid-stride kernels, 2-D/3-D ones it
cannot divide; a 1-D one gets its grid / 4; a 2-D/3-D one that takes the new
parameter ks_gx gets the grid's x / W and the original grid's x as that
argument; a grid-stride one launched through ks_grid_fill gets the grid that
helper, cut from the rewritten file, gives on a device of 3 SMs x 256 threads)
on the same inputs, at aligned and misaligned starts, with
extents that leave a tail along x, and (norm_2d) with a buffer that aliases
the one written; every output must be bit-identical. The threads of a 3-D grid
run one after another (the kernels have no barrier)."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cuda_emu  # noqa: E402

TYPES = r"""
struct float4 { float x, y, z, w; } __attribute__((aligned(16)));
struct double2 { double x, y; } __attribute__((aligned(16)));
static void (*emu_fn)();
"""

FILL_STUBS = r"""
typedef emu_u3 dim3;
#define __host__
enum { cudaSuccess = 0, cudaDevAttrMultiProcessorCount = 16, cudaDevAttrMaxThreadsPerMultiProcessor = 39 };
static int cudaGetDevice(int *d) { *d = 0; return cudaSuccess; }
static int cudaDeviceGetAttribute(int *v, int a, int d) {
  (void)d; *v = a == cudaDevAttrMultiProcessorCount ? 3 : 256; return cudaSuccess;
}
"""

# Per kernel: element type of the buffers, how many, the launch (grid, block)
# and the call (buffers b0.., extents R rows, C cols).
CASES = {
    "bias_relu_2d": ("float", 4, "{(unsigned)(C + 31) / 32, (unsigned)(R + 7) / 8, 1}, {32, 8, 1}", "K(b0, b1, b2, b3, R, C)"),
    "add3d": ("float", 3, "{(unsigned)(C + 7) / 8, (unsigned)(R + 7) / 8, 2}, {8, 8, 4}", "K(b0, b1, b2, 8, R, C)"),
    "norm_2d": ("float", 3, "{(unsigned)(C + 31) / 32, (unsigned)(R + 7) / 8, 1}, {32, 8, 1}",
                "K(C, R, b0, b1, b2); K(C, 1, b0, b2, b2)"),
    "copy_pitch": ("double", 2, "{(unsigned)(C + 31) / 32, (unsigned)(R + 7) / 8, 1}, {32, 8, 1}",
                   "K(b0, b1, C, R, (size_t)C + P)"),
    "fill_rows": ("float", 1, "{(unsigned)(C + 31) / 32, (unsigned)(R + 7) / 8, 1}, {32, 8, 1}",
                  "K(b0, 0.5f, R, (int)(32 * ((C + 31) / 32)))"),
    "scale_gridwidth": ("float", 1, "{(unsigned)(C + 31) / 32, (unsigned)(R + 7) / 8, 1}, {32, 8, 1}", "K(b0, R)"),
    # grid-stride loops: both on one small fixed grid, n = R * C
    "scale_loop_macro": ("float", 1, "{2, 1, 1}, {32, 1, 1}", "K(b0, 0.5f, (size_t)(R * C))"),
    "axpy_strided": ("float", 2, "{2, 1, 1}, {32, 1, 1}", "K(b0, b1, 3.0f, R * C)"),
    # 1-D: the rewrite's grid is a quarter; m and v the same buffer in the second call
    "momentum_step": ("float", 4, "{(unsigned)(R * C + 255) / 256, 1, 1}, {256, 1, 1}",
                      "K(b0, b1, b2, b3, R * C, 0.1f); K(b0, b1, b2, b2, R * C, 0.1f)",
                      "{(unsigned)(R * C + 1023) / 1024, 1, 1}, {256, 1, 1}"),
}


def main():
    orig, new, name = sys.argv[1], sys.argv[2], sys.argv[3]
    # KERNEL@BXxBY[xBZ]: the kernel's case at another block shape (the grid covers the same extents)
    name, _, shape = name.partition("@")
    t, nb, grid, call = CASES[name][:4]
    grid_new = CASES[name][4] if len(CASES[name]) > 4 else grid
    if shape:
        b = [int(v) for v in shape.split("x")] + [1, 1]
        bx, by, bz = b[0], b[1], b[2]
        zs = str((8 + bz - 1) // bz) if name == "add3d" else "1"  # add3d's depth is 8
        grid = grid_new = "{(unsigned)(C + %d) / %d, (unsigned)(R + %d) / %d, %s}, {%d, %d, %d}" % (
            bx - 1, bx, by - 1, by, zs, bx, by, bz)
    new_text = cuda_emu.kernel(new, name, "k_new")
    call_new = call
    if re.search(r"\bks_gx\b", new_text):
        # the n-dimensional form with divided launches: grid x / W, the grid's x as written passed last
        w = int(re.search(r"ks_x0 = .* \* (\d+);", new_text).group(1))
        m = re.match(r"^\{(.*?), (.*?), (.*?)\}, (\{.*\})$", grid)
        grid_new = "{(%s + %d) / %d, %s, %s}, %s" % (m.group(1), w - 1, w, m.group(2), m.group(3), m.group(4))
        call_new = "; ".join(c.strip()[:-1] + ", ks_gx_orig)" for c in call.split(";"))
        call_new = "ks_gx_orig = %s; %s" % (m.group(1), call_new)
    new_src = open(new, encoding="utf-8").read()
    fill = re.search(r"\b%s<<<ks_grid_fill\(" % re.escape(name), new_src)
    src = cuda_emu.PRELUDE + TYPES + cuda_emu.LAUNCH_SEQ
    # the warp-shared fallback: its collectives, the header, the new kernel's threads as fibers
    warp = cuda_emu.warp_fallback(new_src) if "ks_fb_warp" in new_text else ""
    src += warp
    if fill:
        # a grid-stride launch raised by ks_grid_fill (ks_vec.cuh, as the rewrite inserted it): the
        # helper runs here on a made-up device of 3 SMs x 256 resident threads, and the kernel
        # runs on the grid it gives
        i = new_src.index("static inline __host__ dim3 ks_grid_fill(")
        src += FILL_STUBS + cuda_emu.block_at(new_src, i) + "\n"
    # the input's macros (CUDA_1D_KERNEL_LOOP) for the original kernel
    src += "".join(l for l in open(orig, encoding="utf-8") if l.startswith("#define "))
    src += cuda_emu.kernel(orig, name, "k_orig") + "\n" + new_text + "\n"
    src += "static int R, C, P;\nstatic unsigned ks_gx_orig;\n"
    src += "".join("static %s *b%d;\n" % (t, i) for i in range(nb))
    src += "static void run_orig() { auto K = k_orig; %s; }\n" % call
    src += "static void run_new() { auto K = k_new; %s; }\n" % call_new
    src += "int main() {\n  const int M = 8 * 40 * 80 + 64;\n"
    for i in range(nb):
        src += "  std::vector<%s> o%d(M), w%d(M);\n" % (t, i, i)
    src += r"""
  int nBad = 0, nRuns = 0;
  for (int off = 0; off < 2; off++) for (int rc = 0; rc < 3; rc++) for (P = 0; P < 2; P++) {
    R = 5 + rc * 7; C = (const int[]){37, 64, 13}[rc];
"""
    for i in range(nb):
        src += "    for (int k = 0; k < M; k++) o%d[k] = w%d[k] = (%s)(((k * 37 + %d * 11) %% 101) / 17.0 + 0.5);\n" % (i, i, t, i)
    src += "".join("    b%d = o%d.data() + off;\n" % (i, i) for i in range(nb))
    src += "    launch3(%s, run_orig);\n" % grid
    src += "".join("    b%d = w%d.data() + off;\n" % (i, i) for i in range(nb))
    if fill:
        src += "    { emu_u3 g = %s, b = %s; emu_u3 f = ks_grid_fill(g, b);\n" % tuple(
            re.match(r"^(\{.*?\}), (\{.*\})$", grid_new).groups())
        src += "      if (!nRuns) printf(\"grid x %u raised to %u\\n\", g.x, f.x);\n      launch3(f, b, run_new); }\n"
    else:
        src += "    %s(%s, run_new);\n" % ("launchf" if warp else "launch3", grid_new)
    src += "    nRuns++;\n"
    for i in range(nb):
        src += "    if (memcmp(o%d.data(), w%d.data(), sizeof(%s) * M)) { nBad++; printf(\"differs: buffer %d off %%d R %%d C %%d\\n\", off, R, C); }\n" % (i, i, t, i)
    src += "  }\n"
    src += "  printf(\"%s: %%s (%%d runs)\\n\", nBad ? \"DIFFERENT\" : \"equivalent\", nRuns);\n  return nBad != 0;\n}\n" % name
    return cuda_emu.run(os.environ.get("CXX", "c++"), src)


if __name__ == "__main__":
    sys.exit(main())
