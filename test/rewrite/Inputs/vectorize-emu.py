#!/usr/bin/env python3
"""vectorize-emu.py ORIG REWRITTEN KERNEL LANES -- CPU emulation check of the
vectorize rule on the kernels of Inputs/vectorize-idioms.cu: the original
kernel (grid n/256) and the rewritten one (grid n/(256*LANES); LANES 0: a
grid-stride kernel, both on a grid of 2 blocks) run on the
same inputs, at an aligned and a misaligned start and with a length that
leaves a tail; every output must be bit-identical. __half is emulated with
_Float16, __nv_bfloat16 with a truncating 16-bit type: both kernels see the
same emulation, so this checks the rewrite, not the conversions."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cuda_emu  # noqa: E402

TYPES = r"""
struct float4 { float x, y, z, w; } __attribute__((aligned(16)));
struct uchar4 { unsigned char x, y, z, w; } __attribute__((aligned(4)));
typedef unsigned char uint8_t;
struct __half { _Float16 v; };
struct __nv_bfloat16 { unsigned short b; };
static float __half2float(__half h) { return (float)h.v; }
static __half __float2half(float f) { __half h; h.v = (_Float16)f; return h; }
static float __bfloat162float(__nv_bfloat16 h) { unsigned u = (unsigned)h.b << 16; float f; memcpy(&f, &u, 4); return f; }
static __nv_bfloat16 __float2bfloat16(float f) { unsigned u; memcpy(&u, &f, 4); __nv_bfloat16 h; h.b = (unsigned short)(u >> 16); return h; }
template <class T> static T __ldg(const T *p) { return *p; }
"""

# Per kernel: buffers (type, is output), the call with the buffers b0.. and n,
# and optionally what to set in the buffers o0.., w0.. (index k) after the fill.
CASES = {
    "tb_lut": (["float", "float*"], "K(b0, b1, n)"),  # Inputs/vectorize-tables.cu
    "add_h": (["__half", "__half", "__half*"], "K(b0, b1, b2, n)"),
    "scale_bf": (["__nv_bfloat16", "__nv_bfloat16*"], "K(b0, b1, 0.5f, n)"),
    "masked": (["float", "float", "float*"], "K(b0, b1, b2, n); K(b0, NULL, b3, n)"),
    "select_ab": (["float", "float", "float", "float*"], "K(b0, b1, b2, b3, n)"),
    "scale_ldg": (["float", "float", "float*"], "K(b0, b1, b2, n)"),
    "bias_mod": (["float*", "float"], "K(b0, b1, 7, n); K(b0, b1, 3, n); K(b0, b1, 1, n)"),
    "saxpy_gs": (["float", "float*"], "K(n, 2.0f, b0, b1)"),
    "mod_expr": (["float*", "float"], "K(b0, b1, 0, n); K(b0, b1, 1, n); K(b0, b1, 5, n); K(b0, b1, -2, n)"),
    "mod_local": (["float*", "float"], "K(b0, b1, 0, n); K(b0, b1, 9, n)"),
    "cast_fb": (["float", "__nv_bfloat16*"], "K(b0, b1, n)"),
    "cast_hf": (["__half", "float*"], "K(b0, b1, n)"),
    "mask_u8": (["float", "unsigned char", "float*"], "K(b0, b1, b2, 2.0f, n)"),
    # B * T * V <= n, not a multiple of 4, V not a multiple of 4, negative T and V
    "xent_backward": (["float*", "float", "float", "int"],
                      "K(b0, b1, b2, b3, 3, n / 21, 7); K(b0, b1, b2, b3, 2, n / 10, 5); "
                      "K(b0, b1, b2, b3, -1, -(n / 9), 9); K(b0, b1, b2, b3, 1, -1, -(n - 3))",
                      "o3[k] = w3[k] = k % 9 - 1;"),
    "digits_direct": (["float*", "float", "float"],
                      "K(b0, b1, b2, 3, n / 21, 7); K(b0, b1, b2, 2, n / 10, 5); K(b0, b1, b2, 1, -1, -(n - 3))"),
    "saxpy_bs": (["float", "float*"], "K(b0, b1, 2.0f, n)"),
    "digits_peeled": (["float*", "float"],
                      "K(b0, b1, 3, n / 21, 7); K(b0, b1, 2, n / 10, 5); K(b0, b1, -1, -(n / 9), 9)"),
}


def main():
    orig, new, name, lanes = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    types, call = CASES[name][:2]
    setup = CASES[name][2] if len(CASES[name]) > 2 else ""
    if name == "masked":
        types = types + ["float*"]
    src = cuda_emu.PRELUDE + TYPES + cuda_emu.LAUNCH_2D
    # object-like macros the kernels may name (a block size: Inputs/blockdim.cu)
    src += "".join(l for l in open(orig, encoding="utf-8") if re.match(r"#define \w+ ", l))
    # the pack types the rewrite defines before the kernel
    src += "".join(l for l in open(new, encoding="utf-8") if l.startswith("struct __align__(") and " ks_pack" in l)
    src += cuda_emu.kernel(orig, name, "k_orig") + "\n" + cuda_emu.kernel(new, name, "k_new") + "\n"
    src += "static int n;\n"
    decl = "".join("static %s *b%d;\n" % (t.rstrip("*"), i) for i, t in enumerate(types))
    src += decl
    src += "static void run_orig() { auto K = k_orig; %s; }\n" % call
    src += "static void run_new() { auto K = k_new; %s; }\n" % call
    src += r"""
template <typename T> static void fill(T *p, int m, int seed) {
  for (int i = 0; i < m; i++) {
    float f = (float)((i * 37 + seed * 11) % 101) / 17.0f - 2.5f;
    unsigned u;
    memcpy(&u, &f, 4);
    if (sizeof(T) == 2) u >>= 16; /* the value's top half: a bf16 (or some f16) */
    memcpy(&p[i], &u, sizeof(T));
  }
}
int main() {
  const int M = 3000;
"""
    for i, t in enumerate(types):
        b = t.rstrip("*")
        src += "  std::vector<%s> o%d(M + 16), w%d(M + 16);\n" % (b, i, i)
    src += "  for (int off = 0; off < 2; off++) for (int len = M - 5; len <= M; len += 5) {\n"
    src += "    n = len;\n"
    for i, t in enumerate(types):
        src += "    fill(o%d.data(), M + 16, %d); fill(w%d.data(), M + 16, %d);\n" % (i, i, i, i)
    if setup:
        src += "    for (int k = 0; k < M + 16; k++) { %s }\n" % setup
    for i, t in enumerate(types):
        src += "    b%d = o%d.data() + off;\n" % (i, i)
    # LANES 0: a grid-stride kernel, both run on the same small fixed grid
    src += ("    launch({2, 1, 1}, {256, 1, 1}, run_orig);\n" if lanes == 0 else
            "    launch({(unsigned)((n + 255) / 256), 1, 1}, {256, 1, 1}, run_orig);\n")
    for i, t in enumerate(types):
        src += "    b%d = w%d.data() + off;\n" % (i, i)
    src += ("    launch({2, 1, 1}, {256, 1, 1}, run_new);\n" if lanes == 0 else
            "    launch({(unsigned)((n + 256 * %d - 1) / (256 * %d)), 1, 1}, {256, 1, 1}, run_new);\n" % (lanes, lanes))
    for i, t in enumerate(types):
        src += ("    if (memcmp(o%d.data(), w%d.data(), sizeof(o%d[0]) * (M + 16))) { printf(\"buffer %d differs (off %%d, n %%d)\\n\", off, n); return 1; }\n"
                % (i, i, i, i))
    src += "  }\n  printf(\"%s: equivalent\\n\");\n  return 0;\n}\n" % name
    sys.exit(cuda_emu.run(os.environ.get("CXX", "c++"), src))


if __name__ == "__main__":
    main()
