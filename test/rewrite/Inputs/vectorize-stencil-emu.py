#!/usr/bin/env python3
"""vectorize-stencil-emu.py ORIG REWRITTEN KERNEL -- CPU emulation check of
rule vectorize on the stencils of Inputs/vectorize-stencil.cu, Inputs/vectorize-clamp.cu,
Inputs/vectorize-loops.cu, Inputs/vectorize-forms.cu, Inputs/vectorize-rows.cu,
Inputs/vectorize-rows-param.cu, Inputs/vectorize-prmt.cu,
Inputs/vectorize-corners.cu, Inputs/vectorize-sums.cu,
Inputs/vectorize-tables.cu, Inputs/vectorize-exits.cu, Inputs/vectorize-fallback.cu and
Inputs/vectorize-flat.cu (a flat index over a 1-D launch): the original
kernel and the rewritten one (its launch as the rule gives it: the grid's x
divided by the lanes, the grid's x as written passed last as ks_gx; with rows
along y, the grid's y divided by the rows and passed as ks_gy) run on the
same inputs, for several extents (a tail along x, a width below one pack),
pitches (the width, 3 more, the next multiple of 16) and starts (aligned and one element
off), and every output must be bit-identical. Each buffer is its own heap block
of exactly the elements the image spans, and the program is built with
AddressSanitizer where the compiler has it: a window that loads an element
past the image (a halo left of x = 0 or right of the last column of the last
row) stops the run. The threads run one after another (no barrier)."""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cuda_emu  # noqa: E402

TYPES = r"""
struct float4 { float x, y, z, w; } __attribute__((aligned(16)));
struct uint4 { unsigned x, y, z, w; } __attribute__((aligned(16)));
struct int4 { int x, y, z, w; } __attribute__((aligned(16)));
struct uint2 { unsigned x, y; } __attribute__((aligned(8)));
struct uchar4 { unsigned char x, y, z, w; } __attribute__((aligned(4)));
struct __attribute__((aligned(16))) ks_pack16_u8 { unsigned char e[16]; };
struct __attribute__((aligned(16))) ks_pack16_s8 { signed char e[16]; };
struct __attribute__((aligned(16))) ks_pack16_c8 { char e[16]; };
template <class T> static T __ldg(const T *p) { return *p; }
static int min(int a, int b) { return a < b ? a : b; }
static int max(int a, int b) { return a > b ? a : b; }
// PTX prmt (default mode): result byte i is byte (s >> 4i) & 7 of y:x, or with bit 3 of
// that nibble set, the sign bit of that byte replicated
static unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
  unsigned long long v = (unsigned long long)y << 32 | x;
  unsigned r = 0;
  for (int i = 0; i < 4; i++) {
    unsigned n = s >> 4 * i & 0xf, b = (unsigned)(v >> 8 * (n & 7)) & 0xff;
    if (n & 8) b = b & 0x80 ? 0xff : 0;
    r |= b << 8 * i;
  }
  return r;
}
"""

# Per kernel: the buffers' element types and the call (buffers b0.., width Wd,
# height H, pitch P).
CASES = {
    "sobel_u8": (["unsigned char", "unsigned char"], "K(b0, b1, Wd, H, P)"),
    "conv3x3_coef": (["float", "float"], "K(Wd, H, P, b0, b1)"),
    "jacobi5": (["float", "float"], "K(b0, b1, Wd, H, P)"),
    "blur_row7": (["float", "float"], "K(b0, b1, Wd, H, P)"),
    "grad_u8_f32": (["unsigned char", "float"], "K(b0, b1, Wd, H, P)"),
    "laplace_idx": (["float", "float"], "K(b0, b1, Wd, H, P)"),
    "scale_idx": (["float", "float"], "K(b0, b1, 2.5f, Wd, H, P)"),
    "box3_rows": (["unsigned char", "unsigned char"], "K(b0, b1, Wd, H, P)"),
    "ldg_cross": (["float", "float"], "K(b0, b1, Wd, H, P)"),
    "zero_pad_left": (["float", "float"], "K(b0, b1, Wd, H, P)"),
    "cross_zero_pad": (["float", "float"], "K(b0, b1, Wd, H, P)"),
    # the weights: 9 floats of their own (b2), never written
    "conv3x3_loops": (["float", "float", "float"], "K(b0, b2, b1, Wd, H, P)"),
    "box_row_loop": (["unsigned char", "unsigned char"], "K(b0, b1, Wd, H, P)"),
    # Inputs/vectorize-clamp.cu: indices clamped to the edge
    "clamp_prelude": (["float", "float"], "K(b0, b1, Wd, H, P)"),
    "clamp_box_loops": (["float", "float"], "K(b0, b1, Wd, H, P)"),
    "clamp_helper_cross": (["float", "float"], "K(b0, b1, Wd, H, P)"),
    "clamp_tern_diff": (["float", "float"], "K(b0, b1, Wd, H, P)"),
    "clamp_row5": (["float", "float"], "K(b0, b1, Wd, H, P)"),
    "clamp_body_local": (["float", "float"], "K(b0, b1, Wd, H, P)"),
    # Inputs/vectorize-loops.cu: coordinates declared in the loops (clamped, padded)
    "loc_box3": (["float", "float"], "K(b0, b1, Wd, H)"),
    "loc_gauss_helper": (["float", "float"], "K(b0, b1, Wd, H, P)"),
    "loc_tern_dilate": (["float", "float"], "K(b0, b1, Wd, H, P)"),
    "loc_row7": (["float", "float"], "K(b0, b1, Wd, H, P)"),
    "loc_chain_u8": (["unsigned char", "unsigned char"], "K(b0, b1, Wd, H, P)"),
    "pmpp_conv2d": (["float", "float"], "K(b0, b1, Wd, H)"),
    # the weights: 9 floats of their own (b2), never written
    "pad_inline_mask": (["float", "float", "float"], "K(b0, b2, b1, Wd, H, P)"),
    "pad_row_if": (["float", "float"], "K(b0, b1, Wd, H, P)"),
    "pad_else": (["float", "float"], "K(b0, b1, Wd, H, P)"),
    # Inputs/vectorize-forms.cu: clamped row pointers, || padding, late locals
    "rp_clamp_cross": (["float", "float"], "K(b0, b1, Wd, H, P)"),
    "rp_clamp_addr": (["float", "float"], "K(b0, b1, Wd, H, P)"),
    "rp_clamp_u8": (["unsigned char", "unsigned char"], "K(b0, b1, Wd, H, P)"),
    "rp_clamp_loop": (["float", "float"], "K(b0, b1, Wd, H, P)"),
    "pad_or_continue": (["float", "float"], "K(b0, b1, Wd, H, P)"),
    "pad_or_select": (["float", "float"], "K(b0, b1, Wd, H, P)"),
    "pad_or_rows": (["float", "float"], "K(b0, b1, Wd, H, P)"),
    "late_locals": (["float", "float"], "K(b0, b1, Wd, H, P)"),
    "late_index": (["float", "float"], "K(b0, b1, Wd, H, P)"),
    # Inputs/vectorize-rows.cu: rows along y, and kernels that keep the form along x alone
    "rows_blur5_clamp": (["float", "float"], "K(b0, b1, Wd, H, P)"),
    "rows_mean5_skip": (["float", "float"], "K(b0, b1, Wd, H, P)"),
    # the weights (25 floats read where the guard lets a thread in), a base image, a scale per row
    "rows_conv5_bias": (["float"] * 5, "K(b0, b1, b2, b3, b4, Wd, H, P)"),
    "xonly_box5_u8": (["unsigned char", "unsigned char"], "K(b0, b1, Wd, H, P)"),
    "xonly_block_row": (["float", "float"], "K(b0, b1, Wd, H, P)"),
    "xonly_row_offset": (["float", "float"], "K(b0, b1, Wd, H, P)"),
    "xonly_tid_y": (["float", "float"], "K(b0, b1, Wd, H, P)"),
    "xonly_planes": (["float", "float"], "K(b0, b1, Wd, H, P)"),
    "xonly_dilated": (["float", "float"], "K(b0, b1, Wd, H, P)"),
    # Inputs/vectorize-rows-param.cu: rows along y forced by the parameter rows=N
    "rp_sobel_u8": (["unsigned char", "unsigned char"], "K(b1, b0, Wd, H, P)"),
    "rp_box3_loops": (["float", "float"], "K(b0, b1, Wd, H, P)"),
    # Inputs/vectorize-prmt.cu: window bytes taken by PRMT (signed bytes over -128..127)
    "prmt_grad_s8": (["signed char", "unsigned char"], "K(b0, b1, Wd, H, P)"),
    "prmt_box3_u8": (["unsigned char", "unsigned char"], "K(b0, b1, Wd, H, P)"),
    "prmt_keep_u8": (["unsigned char", "unsigned char"], "K(b0, b1, Wd, H, P)"),
    "prmt_char": (["char", "char"], "K(b0, b1, Wd, H, P)"),
    "prmt_auto_u8": (["unsigned char", "unsigned char"], "K(b0, b1, Wd, H, P)"),
    # Inputs/vectorize-corners.cu: the lanes' test at the corners, or per lane
    "cn_sobel_u8": (["unsigned char", "unsigned char"], "K(b1, b0, Wd, H, P)"),
    "cn_band_if": (["float", "float"], "K(b0, b1, Wd, H, P)"),
    "cn_one_col": (["float", "float"], "K(b0, b1, Wd, H, P)"),
    "cn_skip_col": (["float", "float"], "K(b0, b1, Wd, H, P)"),
    "cn_cut_band": (["float", "float"], "K(b0, b1, Wd, H, P)"),
    "cn_two_bands": (["float", "float"], "K(b0, b1, Wd, H, P)"),
    "cn_unsigned": (["float", "float"], "K(b0, b1, (unsigned)Wd, H, P)"),
    "cn_mod": (["float", "float"], "K(b0, b1, Wd, H, P)"),
    # Inputs/vectorize-sums.cu: integer sums written as differences, or kept
    "sm_sobel_u8": (["unsigned char", "unsigned char"], "K(b0, b1, Wd, H, P)"),
    "sm_scharr_s8": (["signed char", "unsigned char"], "K(b0, b1, Wd, H, P)"),
    "sm_sobel_f32": (["float", "float"], "K(b0, b1, Wd, H, P)"),
    "sm_keep_i32": (["int", "int"], "K(b0, b1, Wd, H, P)"),
    "sm_keep_weight": (["unsigned char", "int"], "K(b0, b1, 3, Wd, H, P)"),
    "sm_keep_long": (["unsigned char", "int"], "K(b0, b1, 1 << 24, Wd, H, P)"),
    "sm_zero_weight": (["unsigned char", "unsigned char"], "K(b0, b1, Wd, H, P)"),
    # Inputs/vectorize-tables.cu: weights from constant local tables
    "tb_sobel_loops": (["unsigned char", "unsigned char"], "K(b0, b1, Wd, H, P)"),
    "tb_weights9": (["float", "float"], "K(b0, b1, Wd, H, P)"),
    "tb_lut2d": (["float", "float"], "K(b0, b1, Wd, H, P)"),
    "tb_helper": (["float", "float"], "K(b0, b1, Wd, H, P)"),
    # Inputs/vectorize-exits.cu: exits at the body's start (a border written, a second return, an else)
    "ex_zero_border": (["unsigned char", "unsigned char"], "K(b0, b1, Wd, H, P)"),
    "ex_copy_border": (["float", "float"], "K(b0, b1, Wd, H, P)"),
    "ex_else": (["float", "float"], "K(b0, b1, Wd, H, P)"),
    "ex_two_returns": (["float", "float"], "K(b0, b1, Wd, H, P)"),
    "ex_macro_edge": (["float", "float"], "K(b0, b1, Wd, H, P)"),
    "tb_five_decls": (["float", "float"], "K(b0, b1, Wd, H, P)"),
    "tb_nested_helper": (["float", "float"], "K(b0, b1, Wd, H, P)"),
    # Inputs/vectorize-fallback.cu: who runs the fallback
    "fb_helper_chain": (["unsigned char", "unsigned char"], "K(b0, b1, Wd, H, P)"),
    "fb_macro_helper": (["unsigned char", "unsigned char"], "K(b0, b1, Wd, H, P)"),
    "fb_names": (["unsigned char", "unsigned char"], "K(b0, b1, Wd, H, P)"),
    # Inputs/vectorize-flat.cu: a flat index over a 1-D launch ("1d": blocks of the shapes' threads
    # in a row, the grid over Wd * H)
    "cond_local": (["float", "float"], "K(b0, b1, Wd, H, P)"),
    "fl_if": (["float", "float"], "K(b0, b1, Wd, H)", "1d"),
    "fl_exit": (["float", "float"], "K(b0, b1, Wd, H)", "1d"),
    "fl_vert": (["float", "float"], "K(b0, b1, Wd, H)", "1d"),
    "fl_sobel_u8": (["unsigned char", "unsigned char"], "K(b0, b1, Wd, H)", "1d"),
    "fl_keep_load": (["float", "float"], "K(b0, b1, Wd, H)", "1d"),
    "fl_else_copy": (["float", "float"], "K(b0, b1, Wd, H)", "1d"),
    "fl_else_copy_2d": (["float", "float"], "K(b0, b1, Wd, H)"),
    "gs_cross": (["float", "float"], "K(b0, b1, Wd, H)", "gs"),
    "gs_box_u8": (["unsigned char", "unsigned char"], "K(b0, b1, Wd, H)", "gs"),
    "gs2_blur": (["float", "float"], "K(b0, b1, Wd, H)", "gs2"),
    "gs2_scale": (["float", "float"], "K(b0, b1, Wd, H)", "gs2"),
}


def main():
    orig, new, name = sys.argv[1], sys.argv[2], sys.argv[3]
    types, call = CASES[name][:2]
    flat = CASES[name][2] if len(CASES[name]) > 2 else ""
    new_text = cuda_emu.kernel(new, name, "k_new")
    w = int(re.search(r"ks_x0 = .* \* (\d+);", new_text).group(1))
    if flat not in ("gs", "gs2") and not re.search(r"\bks_gx\b", new_text):
        sys.exit("the rewrite of %s takes no ks_gx: this check expects the divided launch" % name)
    # rows along y: the grid's y divided by the rows, the grid's y as written passed as ks_gy
    m = re.search(r"ks_y0 = .* \* (\d+);", new_text)
    ry = int(m.group(1)) if m else 1
    if (ry > 1) != bool(re.search(r"\bks_gy\b", new_text)):
        sys.exit("the rewrite of %s has rows along y without ks_gy, or ks_gy without rows" % name)
    cxx = os.environ.get("CXX", "c++")
    if "ks_fb_warp" not in new_text:
        return check(orig, new, name, types, call, new_text, w, ry, cxx, "", flat)
    # the warp-shared fallback: each thread a warp of its own under AddressSanitizer, then whole warps
    # (the new kernel's threads as fibers, too slow under it) without
    return (check(orig, new, name, types, call, new_text, w, ry, cxx, "seq", flat) or
            check(orig, new, name, types, call, new_text, w, ry, cxx, "fibers", flat))


def check(orig, new, name, types, call, new_text, w, ry, cxx, warp, flat):
    """One program: both kernels on every case; its exit status. warp: "" (no
    warp collectives), "seq" (one-thread warps) or "fibers" (whole warps);
    flat: "1d", a 1-D launch over Wd * H (a flat index); "gs", a grid-stride
    loop's: both kernels on the same 2 blocks, each thread taking many trips;
    "gs2", 2-D grid-stride loops: both on the same 2 x 2 blocks."""
    src = cuda_emu.PRELUDE + TYPES + cuda_emu.LAUNCH_SEQ
    if warp:
        src += cuda_emu.warp_fallback(open(new, encoding="utf-8").read(), seq=warp == "seq")
    src += "".join(l for l in open(orig, encoding="utf-8") if l.startswith("#define "))  # BOX_R
    # __constant__ arrays (a mask with its initializer): the host's own
    src += "".join("static" + m.group(1) + "\n" for m in
                   re.finditer(r"(?ms)^__constant__(.*?;)", open(orig, encoding="utf-8").read()))
    orig_text = cuda_emu.kernel(orig, name, "k_orig")
    src += cuda_emu.device_functions(orig, orig_text)  # clamp helpers
    src += orig_text + "\n" + new_text + "\n"
    src += "static int Wd, H, P;\nstatic unsigned gx, gy;\n"
    src += "".join("static %s *b%d;\n" % (t, i) for i, t in enumerate(types))
    src += "static void run_orig() { auto K = k_orig; %s; }\n" % call
    if flat in ("gs", "gs2"):
        src += "static void run_new() { auto K = k_new; %s; }\n" % call
    else:
        src += "static void run_new() { auto K = k_new; %s, gx%s); }\n" % (call[:-1], ", gy" if ry > 1 else "")
    src += "int main() {\n  int nBad = 0, nRuns = 0;\n"
    # 33 and 37: the last whole pack of a row (16 or 4 lanes) ends at the last column the guard lets in
    # with rows along y, taller images too: rows of whole thread blocks away from the border take the
    # vector path (a 5-row window needs y0 - 2 >= 0 and y0 + ry + 1 < H), with heights of no multiple
    # of the rows and grids whose y the rows do not divide (21 rows: 6 blocks of 4, 3 of 8; 15: 2 of 8)
    sizes = ([37, 64, 13, 3, 70, 33] + ([37, 70] if ry > 1 else []), [5, 9, 3, 4, 6, 4] + ([21, 15] if ry > 1 else []))
    # rows of 32 whole packs (a warp's last thread falls back at the right border) and wider, so that
    # warps hold vector-path threads beside threads falling back (the warp-shared fallback), in one row
    # (blocks of 32 x 8) and across rows (8 x 4)
    sizes = (sizes[0] + [32 * w, 19 * w + 5], sizes[1] + [6 + ry, 9])
    src += "  const int aW[] = {%s}, aH[] = {%s};\n" % (", ".join(map(str, sizes[0])), ", ".join(map(str, sizes[1])))
    src += "  for (int off = 0; off < 2; off++) for (int sz = 0; sz < %d; sz++) for (int pad = 0; pad < 3; pad++) {\n" % (
        len(sizes[0]))
    src += "    Wd = aW[sz]; H = aH[sz]; P = pad == 2 ? (Wd + 15) / 16 * 16 : Wd + pad * 3;\n"
    src += "    size_t n = (size_t)(H - 1) * P + Wd + off;\n"
    inits = []
    for i, t in enumerate(types):
        src += "    %s *o%d = (%s *)malloc(n * sizeof(%s)), *n%d = (%s *)malloc(n * sizeof(%s));\n" % (
            t, i, t, t, i, t, t)
        # bytes over their whole range (0..255, signed ones -128..127), ints over +-2^28,
        # floats in quarters
        if t == "int":
            val = "(int)((k * 2654435761u + %d * 11 + sz) %% (1u << 29)) - (1 << 28)" % i
        else:
            val = "(%s)((k * 37 + %d * 11 + sz) %% %d) * (%s)%s" % (
                t, i, 256 if "char" in t else 101, t, "1" if "char" in t else "0.25")
        inits.append("      for (size_t k = 0; k < n; k++) o%d[k] = n%d[k] = %s;\n" % (i, i, val))
    # (8, 4, 3): with rows along y, first (the outputs still hold the inputs' values), a band of 3 blocks
    # of 4 rows whatever the height (a grid that covers fewer rows than the guard lets in): the rewrite
    # must write exactly the rows below the extent as written
    # (16, 3): blocks of 48 threads, whose second warp has 16
    for bx, by, gyBand in (((8, 4, 3),) if ry > 1 else ()) + ((32, 8, 0), (8, 4, 0), (16, 3, 0)):
        if flat == "gs":
            src += "    {\n      emu_u3 blk = {%d, 1, 1}, g = {2, 1, 1};\n" % (bx * by)
        elif flat == "gs2":
            src += "    {\n      emu_u3 blk = {%d, %d, 1}, g = {2, 2, 1};\n" % (bx, by)
        elif flat:
            src += "    {\n      emu_u3 blk = {%d, 1, 1}, g = {(unsigned)(Wd * H + %d) / %d, 1, 1};\n" % (
                bx * by, bx * by - 1, bx * by)
        else:
            src += "    {\n      emu_u3 blk = {%d, %d, 1}, g = {(unsigned)(Wd + %d) / %d, %s, 1};\n" % (
                bx, by, bx - 1, bx, "%du" % gyBand if gyBand else "(unsigned)(H + %d) / %d" % (by - 1, by))
        # each block shape on fresh buffers: an output one shape leaves unwritten shows
        src += "".join(inits)
        src += "".join("      b%d = o%d + off;\n" % (i, i) for i in range(len(types)))
        src += "      launch3(g, blk, run_orig);\n"
        src += "".join("      b%d = n%d + off;\n" % (i, i) for i in range(len(types)))
        if flat in ("gs", "gs2"):  # the launch as written
            src += "      launch3(g, blk, run_new);\n"
        else:
            src += "      gx = g.x; gy = g.y;\n      %s({(g.x + %d) / %d, (g.y + %d) / %d, 1}, blk, run_new);\n" % (
                "launchf" if warp == "fibers" else "launch3", w - 1, w, ry - 1, ry)
        for i, t in enumerate(types):
            src += ("      if (memcmp(o%d, n%d, n * sizeof(%s))) { nBad++; printf(\"differs: buffer %d off %%d W %%d H "
                    "%%d P %%d block %d x %d\\n\", off, Wd, H, P); }\n" % (i, i, t, i, bx, by))
        src += "    }\n"
    src += "    nRuns++;\n"
    src += "".join("    free(o%d); free(n%d);\n" % (i, i) for i in range(len(types)))
    src += "  }\n"
    src += "  printf(\"%s%s: %%s (%%d runs, %d lanes%s)\\n\", nBad ? \"DIFFERENT\" : \"equivalent\", nRuns);\n" % (
        name, " in whole warps" if warp == "fibers" else "", w, ", %d rows" % ry if ry > 1 else "")
    src += "  return nBad != 0;\n}\n"
    # -O0: a load the mutated window makes but no lane uses must still happen
    flags = ["-O0", "-fsanitize=address", "-fno-omit-frame-pointer"] if warp != "fibers" and asan_ok(cxx) else ["-O0"]
    return cuda_emu.run(cxx, src, flags)


def asan_ok(cxx):
    """Does cxx build and run a program with -fsanitize=address here?"""
    with tempfile.TemporaryDirectory() as d:
        src, exe = os.path.join(d, "a.cpp"), os.path.join(d, "a")
        with open(src, "w", encoding="utf-8") as f:
            f.write("int main() { return 0; }\n")
        try:
            subprocess.check_call([cxx, "-x", "c++", "-fsanitize=address", src, "-o", exe],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            return subprocess.call([exe]) == 0
        except (OSError, subprocess.CalledProcessError):
            return False


if __name__ == "__main__":
    sys.exit(main())
