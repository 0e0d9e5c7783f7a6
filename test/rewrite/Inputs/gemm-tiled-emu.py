"""gemm-tiled-emu.py CXX ORIG.cu NEW.cu KERNEL BM BN NT ARGS [rowx] [batch=Z]: check on the CPU
that gemm-tiled's rewrite of KERNEL writes exactly what the original writes.
Both kernels are cut out of their files (the rewrite with the template text it
carries, device part only), compiled as C++ with the CUDA built-ins emulated
(cuda_emu: a block's threads are fibers, __syncthreads a barrier), and
called with ARGS, a C++ argument list over the names A, B, C, bias (float
buffers large enough for any layout), m, n, k (ints) and alpha, beta (floats),
on sizes that are not multiples of the tiles. The original runs one thread per
output on 16x16 blocks (x over the columns), the rewrite on ceil(n/BN) x
ceil(m/BM) blocks of NT threads, as the rule's launch does. Exit 0 when every
output of every size is bitwise the original's. A rewrite on dynamic shared
memory (extern ks_smem[]) gets a static array of 227 KB (sm_90's maximum).
Options: rowx, the original's rows on x (a column-major kernel: x over m, y
over n, and the rewrite's grid over m x n likewise); batch=Z, a batched
kernel: both grids get Z blocks along z and the buffers Z times the room.
The original's macros, function-like ones included, come with it, and its
one-line struct definitions.
grid: an unguarded kernel (sizes that are block multiples): the original runs
on the blocks that fit in m x n (none past it), the rewrite gets the rows and
columns they cover as its two new last arguments (ks_M, ks_N); blk=X,Y: the
original's block (default 16,16); tpl=ARGS: a kernel template (its
`template <...>` line comes along), called as KERNEL<ARGS>; square: n = m on every size (a kernel of one
dimension, syr2k's n x n); flat=T: the original takes a 1-D launch of
ceil(m*n/T) blocks of T threads (a flat index split into row and column);
bare: a block per row and a thread per column, the original on m blocks of n
threads, the rewrite given ks_M = m, ks_N = n as its last arguments;
rowgrid=T: a block row per output row, the original on ceil(n/T) x m blocks of
T threads, the rewrite given ks_M = m, ks_N = n; gs=G,T: a grid-stride
loop over the outputs, the original on a fixed 1-D grid of G blocks of T
threads (fewer threads than outputs on the larger sizes); pack=W:LDA:LDB, a
rewrite with pack=on (W: a, b or ab, the operands it packs; LDA, LDB their
leading dimensions over m, n, k): the rewrite runs twice, given the
workspace ks_gemm::pack would fill (A as K x M, B as K x N, copied here on
the CPU) and given none (its path as written), each bitwise the original."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cuda_emu  # noqa: E402

cxx, orig, new, name, bm, bn, nt, args = sys.argv[1:9]
opts = sys.argv[9:]
rowx = "rowx" in opts
batch = next((int(o[6:]) for o in opts if o.startswith("batch=")), 1)
grid = "grid" in opts
blk = next((o[4:].split(",") for o in opts if o.startswith("blk=")), ["16", "16"])
tpl = next((o[4:] for o in opts if o.startswith("tpl=")), None)
square = "square" in opts
flat = next((int(o[5:]) for o in opts if o.startswith("flat=")), 0)
bare = "bare" in opts
rowgrid = next((int(o[8:]) for o in opts if o.startswith("rowgrid=")), 0)
gs = next((o[3:].split(",") for o in opts if o.startswith("gs=")), ["0", "0"])
pack = next((o[5:].split(":") for o in opts if o.startswith("pack=")), None)

s = open(new, encoding="utf-8").read()
i = s.index("#ifndef KS_GEMM_F32_CUH")
j = s.index("\n#endif", s.index("} /* namespace ks_gemm */", i)) + len("\n#endif\n")
tmpl = s[i:j]

PRE = r"""
#define __host__
#define KS_GEMM_DEVICE_ONLY 1
struct float4 { float x, y, z, w; } __attribute__((aligned(16)));
static inline float4 make_float4(float x, float y, float z, float w) { return float4{x, y, z, w}; }
struct float2 { float x, y; } __attribute__((aligned(8)));
static inline float2 make_float2(float x, float y) { return float2{x, y}; }
#include <cstdint>
using std::fmaxf;
template <class T> static T __ldg(const T *p) { return *p; }
"""

MAIN = r"""
static std::vector<float> gA, gB, gC, gBias;
static float *A, *B, *C, *bias;
static int m, n, k;
static float alpha = 1.5f, beta = -0.5f;
static int ks_m, ks_n;
static void call_orig() { orig_k%(targs)s(%(args)s); }
static std::vector<float> gPk;
static float *ks_pk;
static void call_new() { new_k%(targs)s(%(args)s%(gargs)s); }
/* pack=: the workspace ks_gemm::pack fills (A: K x M; B: K x N at pack_offset) */
static void fill_pack() {
  const bool pa = %(pa)d, pb = %(pb)d;
  const long long lda = %(lda)s, ldb = %(ldb)s, off = ks_gemm::pack_offset(pa, m, k);
  gPk.assign((size_t)off + (pb ? (size_t)n * k : 0) + 1, 0.0f);
  for (int i = 0; pa && i < m; i++)
    for (int j = 0; j < k; j++) gPk[(size_t)j * m + i] = A[i * lda + j];
  for (int i = 0; pb && i < n; i++)
    for (int j = 0; j < k; j++) gPk[(size_t)off + (size_t)j * n + i] = B[i * ldb + j];
}
int main() {
  const unsigned BM = %(bm)s, BN = %(bn)s, NT = %(nt)s, Z = %(batch)d;
  int sizes[][3] = {{37, 45, 50}, {1, 1, 1}, {33, 70, 7}, {64, 32, 64}, {5, 40, 0}, {20, 3, 97}, {130, 140, 29}};
  int bad = 0;
  for (auto &z : sizes) {
    m = z[0]; n = %(square)d ? z[0] : z[1]; k = z[2];
    size_t nBuf = (size_t)(m + n + k + 8) * (m + n + k + 8) * Z;
    gA.resize(nBuf); gB.resize(nBuf); gBias.resize(nBuf);
    for (size_t i = 0; i < nBuf; i++) gA[i] = (float)((int)((i * 7 + 3) %% 13) - 6) * 0.37f;
    for (size_t i = 0; i < nBuf; i++) gB[i] = (float)((int)((i * 5 + 1) %% 11) - 5) * 0.21f;
    for (size_t i = 0; i < nBuf; i++) gBias[i] = (float)((int)(i %% 7) - 3) * 0.5f;
    std::vector<float> c0(nBuf);
    for (size_t i = 0; i < nBuf; i++) c0[i] = i %% 5 ? (float)((int)(i %% 9) - 4) * 0.25f : -0.0f;
    A = gA.data(); B = gB.data(); bias = gBias.data();
    gC = c0; C = gC.data();
    const unsigned gx = (unsigned)(%(rowx)s ? m : n), gy = (unsigned)(%(rowx)s ? n : m), BX = %(bx)s, BY = %(by)s;
    const unsigned ox = %(grid)d ? gx / BX : (gx + BX - 1) / BX, oy = %(grid)d ? gy / BY : (gy + BY - 1) / BY;
    if (%(gsg)s) launch({%(gsg)s, 1, Z}, {%(gst)s, 1, 1}, call_orig);
    else if (%(rowgrid)d) launch({(unsigned)((n + %(rowgrid)d - 1) / %(rowgrid)d), (unsigned)m, Z}, {%(rowgrid)d, 1, 1}, call_orig);
    else if (%(bare)d) launch({(unsigned)m, 1, Z}, {(unsigned)n, 1, 1}, call_orig);
    else if (%(flat)d) launch({(unsigned)((m * n + %(flat)d - 1) / %(flat)d), 1, Z}, {%(flat)d, 1, 1}, call_orig);
    else launch({ox, oy, Z}, {BX, BY, 1}, call_orig);
    std::vector<float> ref = gC;
    /* grid: the extents the original's grid covered (what the rule's launch passes) */
    const unsigned nx = %(grid)d ? ox * BX : gx, ny = %(grid)d ? oy * BY : gy;
    ks_m = (int)(%(rowx)s ? nx : ny), ks_n = (int)(%(rowx)s ? ny : nx);
    for (int pass = 0; pass < (%(pk)d ? 2 : 1); pass++) {
      gC = c0; C = gC.data();
      ks_pk = nullptr;
      if (%(pk)d && pass == 0) {
        fill_pack();
        ks_pk = gPk.data();
      }
      launch({(nx + BN - 1) / BN, (ny + BM - 1) / BM, Z}, {NT, 1, 1}, call_new);
      size_t nDiff = 0;
      for (size_t i = 0; i < ref.size(); i++) nDiff += memcmp(&ref[i], &gC[i], sizeof(float)) != 0;
      printf("%(name)s m=%%d n=%%d k=%%d tiles %%ux%%u, %%u threads%%s: %%zu of %%zu floats differ\n", m, n, k, BM, BN,
             NT, %(pk)d ? (ks_pk ? ", packed" : ", no workspace") : "", nDiff, ref.size());
      bad |= nDiff != 0;
    }
  }
  return bad;
}
"""

main = MAIN % {"bm": bm, "bn": bn, "nt": nt, "name": name, "args": args, "batch": batch, "rowx": int(rowx),
               "grid": int(grid), "bx": blk[0], "by": blk[1], "targs": "<%s>" % tpl if tpl else "",
               "gargs": ", ks_m, ks_n" if grid or bare or rowgrid else ", ks_pk" if pack else "", "square": int(square), "flat": flat, "bare": int(bare), "rowgrid": rowgrid,
               "gsg": gs[0], "gst": gs[1], "pk": int(pack is not None),
               "pa": int(pack is not None and "a" in pack[0]), "pb": int(pack is not None and "b" in pack[0]),
               "lda": pack[1] if pack else "0", "ldb": pack[2] if pack else "0"}



def cut(path, newname):
    """The kernel, with its `template <...>` line for tpl=."""
    text = cuda_emu.kernel(path, name, newname)
    if tpl is None:
        return text
    src = open(path, encoding="utf-8").read()
    m = re.search(r"(?m)^[ \t]*(template[ \t]*<[^;{}\n]*>)[ \t]*\n[ \t]*__global__[^;{]*?\b" + re.escape(name) + r"\(",
                  src)
    return m.group(1) + "\n" + text


# the original's one-line macros (a kernel may use them; the rewrite keeps them)
defines = "".join(l + "\n" for l in open(orig, encoding="utf-8").read().split("\n")
                  if l.startswith("#define ") and not l.endswith("\\"))
# and its one-line struct definitions (sizes passed in a struct: `struct Dims { int M, N, K; };`)
defines += "".join(l + "\n" for l in open(orig, encoding="utf-8").read().split("\n")
                   if re.match(r"struct \w+ \{.*\};$", l))
# A rewrite on dynamic shared memory declares its array extern (the launches
# pass its size, which the kernel's static_assert ties to config::SMEM): here
# the block's shared memory is a static array of sm_90's 227 KB opt-in maximum.
DYN = "extern __shared__ __align__(16) float ks_smem[];"
new_k = cut(new, "new_k")
new_k = new_k.replace(DYN, "__shared__ __align__(16) float ks_smem[232448 / sizeof(float)];")
sys.exit(cuda_emu.run(cxx, cuda_emu.PRELUDE + PRE + defines + tmpl + "\n" + cut(orig, "orig_k") + "\n" +
                      new_k + "\n" + cuda_emu.LAUNCH_3D + main))
