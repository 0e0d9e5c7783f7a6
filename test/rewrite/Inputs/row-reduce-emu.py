"""row-reduce-emu.py CXX ORIG.cu NEW.cu KERNEL CASE MODE THREADS: check on the CPU
that a kernel rewritten by rule row-reduce computes what the original computes.
Both kernels (and NEW.cu's shipped ks_rowreduce.cuh and ks_row_* launch helpers) are cut out of their files
and compiled as C++ with the CUDA built-ins they use emulated: the threads of a
block are pthreads, __syncthreads a block barrier, __shfl_xor_sync an exchange
through a per-warp slot array between two per-warp barriers, atomicAdd a mutex;
blocks run one after another. The original runs one thread per row (no barriers).
CASE: argmax (kernel(x, long long *idx, rows, cols): indices must be equal),
argmin (kernel(x, int *idx, float *val, rows, cols): indices and value bits
equal), xent (kernel(x, const long long *target, float *loss, rows, cols): loss
within 1e-5 relative), norm (kernel(x, float *y, rows, cols): every y element
within 1e-5 relative; inputs as for xent; y starts at -7 in both runs), hnorm and bnorm (as norm on
__half / __nv_bfloat16 rows: kernel(const T *x, T *y, rows, cols), every y
element within one 16-bit rounding step, NaN where the original has NaN;
hfnorm (kernel(const __half *x, float *y, rows, cols): f32 rows out of f16 ones, every y
element within 1e-5 relative); __half is emulated with _Float16, __nv_bfloat16 with a truncating 16-bit type,
the same for both kernels). The inputs hold ties (small integers as floats, several
equal extremes per row), NaNs (as the first element and inside rows), signed
zeros and rows shorter than a warp. MODE block|warp and THREADS: the rewrite's
launch (grid = rows, or rows / (THREADS / 32) rounded up); MODE auto (threads=auto):
the launch the rewrite's own ks_row_block / ks_row_grid (ks_row_pblock / ks_row_pgrid
for packed rows) give for each row length
(2-D blocks: blockDim.y rows a block when a row gets one warp). The original file's
one-line object-like macros come first. Packed rows (16-bit rows walked in packs of
8 elements, the shipped ks_rowpack.cuh, which is cut out of NEW.cu with the helpers):
uint4 is a 16-byte aligned struct whose copies are counted, and the program is built
with -fsanitize=alignment, so a 16-byte access at a misaligned address (a row start
the scalar path should have taken) stops it. An optional 8th argument `vec`: fail
unless some pack moved as 16 bytes (rows of a multiple of 8 elements start aligned,
the vectors' base is malloc'd: 16-byte aligned). CASE inplace: as norm, called in place
(kernel(x, x, rows, cols)): every x element after the call within 1e-5 relative.
Resident rows (a rewrite with resident=K, `ks_res`): each size's row fits K elements
a thread of its group or not (the memory path); an optional argument `paths`: fail
unless both occurred. Exit 0 when all match."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cuda_emu  # noqa: E402

cxx, orig, new, name, case, mode, threads = sys.argv[1:8]
want_vec = "vec" in sys.argv[8:]
want_paths = "paths" in sys.argv[8:]
_res = re.search(r"const bool ks_res = .*? <= \(long long\)(\d+) \*", open(new, encoding="utf-8").read())
res_k = int(_res.group(1)) if _res else 0


def helpers(path):
    s = open(path, encoding="utf-8").read()
    return cuda_emu.shipped(s, "KS_ROWREDUCE_CUH") + cuda_emu.shipped(s, "KS_ROWPACK_CUH") + \
        cuda_emu.row_launch_helpers(s)


# Beyond the common prelude: warp shuffles (a per-warp slot exchange between
# two per-warp barriers) and atomicAdd (a mutex).
SHIM = cuda_emu.PRELUDE + cuda_emu.DIM3 + r"""
static pthread_barrier_t emu_wbar[32];
static unsigned long long emu_slot[1024];
static pthread_mutex_t emu_mu = PTHREAD_MUTEX_INITIALIZER;
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
/* A pack's 16-byte part: each copy of one is a 16-byte load or store. */
static long emu_vec;
struct alignas(16) uint4 {
  unsigned x, y, z, w;
  uint4 &operator=(const uint4 &o) {
    x = o.x; y = o.y; z = o.z; w = o.w;
    __atomic_fetch_add(&emu_vec, 1, __ATOMIC_RELAXED);
    return *this;
  }
};
struct __half { _Float16 v; };
struct __nv_bfloat16 { unsigned short b; };
static float __half2float(__half h) { return (float)h.v; }
static __half __float2half(float f) { __half h; h.v = (_Float16)f; return h; }
static float __bfloat162float(__nv_bfloat16 h) { unsigned u = (unsigned)h.b << 16; float f; memcpy(&f, &u, 4); return f; }
static __nv_bfloat16 __float2bfloat16(float f) { unsigned u; memcpy(&u, &f, 4); __nv_bfloat16 h; h.b = (unsigned short)(u >> 16); return h; }
static __nv_bfloat16 __float2bfloat16_rn(float f) { return __float2bfloat16(f); }
static float rsqrtf(float v) { return 1.0f / sqrtf(v); }
static float to_f(__half h) { return __half2float(h); }
static float to_f(__nv_bfloat16 h) { return __bfloat162float(h); }
static void from_f(float f, __half *h) { *h = __float2half(f); }
static void from_f(float f, __nv_bfloat16 *h) { *h = __float2bfloat16(f); }
static float atomicAdd(float *p, float v) {
  pthread_mutex_lock(&emu_mu);
  float old = *p;
  *p = old + v;
  pthread_mutex_unlock(&emu_mu);
  return old;
}
"""

MAIN = r"""
static int rows, cols;
static std::vector<float> gx, gval, gy;
static std::vector<long long> gidx, gtarget;
static std::vector<int> gidxi;
static float gloss;
static std::vector<%(elem)s> hx, hy; /* hnorm, bnorm: x and y as 16-bit floats */
static void to_elem() {
  hx.resize(gx.size()); hy.resize(gy.size());
  for (size_t e = 0; e < gx.size(); e++) from_f(gx[e], &hx[e]);
  for (size_t e = 0; e < gy.size(); e++) from_f(gy[e], &hy[e]);
}
static void from_elem() { for (size_t e = 0; %(yh)d && e < gy.size(); e++) gy[e] = to_f(hy[e]); }
static void call_orig() {
  float *x = gx.data(), *val = gval.data(), *loss = &gloss, *y = gy.data();
  long long *idx = gidx.data(), *target = gtarget.data();
  int *idxi = gidxi.data();
  (void)val; (void)loss; (void)idx; (void)target; (void)idxi; (void)y;
  orig_k(%(args)s);
}
static void call_new() {
  float *x = gx.data(), *val = gval.data(), *loss = &gloss, *y = gy.data();
  long long *idx = gidx.data(), *target = gtarget.data();
  int *idxi = gidxi.data();
  (void)val; (void)loss; (void)idx; (void)target; (void)idxi; (void)y;
  new_k(%(args)s);
}
static void (*gfn)();
static void *thr(void *p) {
  unsigned t = (unsigned)(long)p;
  threadIdx.x = t %% blockDim.x; threadIdx.y = t / blockDim.x; threadIdx.z = 0;
  gfn();
  return 0;
}
static void launch_threads(unsigned g, unsigned bx, unsigned by, void (*fn)()) {
  unsigned b = bx * by;
  gridDim = {g, 1, 1}; blockDim = {bx, by, 1}; gfn = fn;
  pthread_barrier_init(&emu_bar, 0, b);
  for (unsigned w = 0; w < b / 32; w++) pthread_barrier_init(&emu_wbar[w], 0, 32);
  std::vector<pthread_t> th(b);
  for (unsigned bx = 0; bx < g; bx++) {
    blockIdx = {bx, 0, 0};
    for (unsigned t = 0; t < b; t++) pthread_create(&th[t], 0, thr, (void *)(long)t);
    for (unsigned t = 0; t < b; t++) pthread_join(th[t], 0);
  }
  for (unsigned w = 0; w < b / 32; w++) pthread_barrier_destroy(&emu_wbar[w]);
  pthread_barrier_destroy(&emu_bar);
}
/* The original: one thread per row, blocks of 32, no barriers: run in turn. */
static void launch_orig() {
  gridDim = {(unsigned)(rows + 31) / 32, 1, 1}; blockDim = {32, 1, 1};
  for (unsigned bx = 0; bx < gridDim.x; bx++)
    for (unsigned t = 0; t < 32; t++) { blockIdx = {bx, 0, 0}; threadIdx = {t, 0, 0}; call_orig(); }
}
static void fill(int seed) {
  gx.resize((size_t)rows * cols);
  for (int r = 0; r < rows; r++)
    for (int c = 0; c < cols; c++) {
      float v;
      if (%(xent)d) v = (float)(((r * 131 + c * 71 + seed) %% 97) - 48) / 16.0f;
      else v = (float)((r * 7 + c * 13 + seed) %% 5);   /* small integers: many ties */
      gx[(size_t)r * cols + c] = v;
    }
  if (%(xent)d) return;
  for (int r = 0; r < rows; r++) {
    float *xr = &gx[(size_t)r * cols];
    switch (r %% 6) {
    case 1: xr[0] = NAN; break;                                 /* NaN start */
    case 2: for (int c = 1; c < cols; c += 3) xr[c] = NAN; break; /* NaNs inside */
    case 3: for (int c = 0; c < cols; c++) xr[c] = 2.0f; break;   /* all equal */
    case 4: for (int c = 0; c < cols; c++) xr[c] = (c %% 2) ? -0.0f : 0.0f; break;
    case 5: if (cols > 1) { xr[cols - 1] = 9.0f; xr[cols / 2] = -9.0f; } break;
    default: break;
    }
  }
  if (seed %% 2 && rows > 0) for (int c = 0; c < cols; c++) gx[c] = NAN; /* a row of NaNs */
}
int main() {
  int sizes[][2] = {{7, 1}, {7, 5}, {13, 37}, {6, 64}, {12, 300}, {7, 1000}, {3, 257}, {5, 1500}, {3, 2100}, {2, 4200}};
  unsigned T = %(threads)s;
  int bWarp = %(warp)d, bad = 0, nres = 0, nmem = 0;
  for (int seed = 0; seed < 2; seed++)
    for (auto &z : sizes) {
      rows = z[0]; cols = z[1];
      fill(seed);
      gtarget.resize(rows);
      for (int r = 0; r < rows; r++) gtarget[r] = (r * 5 + 3) %% cols;
      gidx.assign(rows, -7); gidxi.assign(rows, -7); gval.assign(rows, -7.0f); gloss = 0.0f;
      gy.assign((size_t)rows * cols, -7.0f);
      if (%(h)d) to_elem();
      std::vector<float> x0 = gx;
      launch_orig();
      if (%(h)d) from_elem();
      std::vector<long long> ridx = gidx; std::vector<int> ridxi = gidxi; std::vector<float> rval = gval, ry = gy;
      std::vector<float> rx = gx;
      gx = x0;
      float rloss = gloss;
      gidx.assign(rows, -7); gidxi.assign(rows, -7); gval.assign(rows, -7.0f); gloss = 0.0f;
      gy.assign((size_t)rows * cols, -7.0f);
      unsigned W = T / 32;
      if (%(h)d) to_elem();
#if %(auto)d
      (void)W;
      dim3 bb = ks_row_%(pre)sblock(cols), gg = ks_row_%(pre)sgrid(rows, cols);
      if (%(res_k)d) (long long)cols <= (long long)%(res_k)d * bb.x ? nres++ : nmem++;
      launch_threads(gg.x, bb.x, bb.y, call_new);
#else
      launch_threads(bWarp ? (rows + W - 1) / W : (unsigned)rows, T, 1, call_new);
#endif
      if (%(h)d) from_elem();
      int nDiff = 0;
      for (int r = 0; r < rows; r++) {
        if (%(case)d == 0) nDiff += ridx[r] != gidx[r];
        if (%(case)d == 1) nDiff += ridxi[r] != gidxi[r] || memcmp(&rval[r], &gval[r], sizeof(float)) != 0;
      }
      if (%(case)d == 2) nDiff += !(fabsf(rloss - gloss) <= 1e-5f * fabsf(rloss) + 1e-6f);
      for (size_t e = 0; %(case)d == 3 && e < gy.size(); e++)
        nDiff += !(fabsf(ry[e] - gy[e]) <= %(tol)s * fabsf(ry[e]) + 1e-6f || (std::isnan(ry[e]) && std::isnan(gy[e])));
      for (size_t e = 0; %(case)d == 4 && e < gx.size(); e++)
        nDiff += !(fabsf(rx[e] - gx[e]) <= 1e-5f * fabsf(rx[e]) + 1e-6f || (std::isnan(rx[e]) && std::isnan(gx[e])));
      if (%(case)d >= 3) printf("%(name)s %%dx%%d seed %%d: %%d elements differ\n", rows, cols, seed, nDiff);
      if (%(case)d == 0) printf("%(name)s %%dx%%d seed %%d: %%d rows differ (row 0: %%lld, new %%lld)\n", rows, cols, seed,
                             nDiff, ridx[0], gidx[0]);
      if (%(case)d == 1) printf("%(name)s %%dx%%d seed %%d: %%d rows differ (row 0: %%d, new %%d)\n", rows, cols, seed,
                             nDiff, ridxi[0], gidxi[0]);
      if (%(case)d == 2) printf("%(name)s %%dx%%d seed %%d: loss %%.9g, new %%.9g\n", rows, cols, seed, rloss, gloss);
      bad |= nDiff != 0;
    }
  printf("%(name)s: %%ld 16-byte pack moves\n", emu_vec);
  if (%(res_k)d) printf("%(name)s: resident=%(res_k)d: %%d sizes fit, %%d take the memory path\n", nres, nmem);
  if (%(want_paths)d && (nres == 0 || nmem == 0)) { printf("%(name)s: not both paths\n"); bad = 1; }
  if (%(want_vec)d && emu_vec == 0) { printf("%(name)s: no pack moved as 16 bytes\n"); bad = 1; }
  return bad;
}
"""

ARGS = {"argmax": "x, idx, rows, cols", "argmin": "x, idxi, val, rows, cols", "xent": "x, target, loss, rows, cols",
        "norm": "x, y, rows, cols", "hnorm": "hx.data(), hy.data(), rows, cols",
        "bnorm": "hx.data(), hy.data(), rows, cols", "hfnorm": "hx.data(), y, rows, cols", "inplace": "x, x, rows, cols"}
ICASE = {"argmax": 0, "argmin": 1, "xent": 2, "norm": 3, "hnorm": 3, "bnorm": 3, "hfnorm": 3, "inplace": 4}
# One rounding step of the 16-bit output (2^-10 for f16, 2^-7 for truncating bf16).
TOL = {"hnorm": "1e-3f", "bnorm": "8e-3f"}

main = MAIN % {"args": ARGS[case], "case": ICASE[case],
               "xent": case in ("xent", "norm", "hnorm", "bnorm", "hfnorm", "inplace"),
               "name": name, "threads": int(threads), "warp": mode == "warp", "auto": mode == "auto", "h": case in ("hnorm", "bnorm", "hfnorm"),
               "yh": case in ("hnorm", "bnorm"),
               "elem": "__nv_bfloat16" if case == "bnorm" else "__half", "tol": TOL.get(case, "1e-5f"),
               "want_vec": want_vec, "want_paths": want_paths, "res_k": res_k,
               # packed rows size their groups with ks_row_pblock / ks_row_pgrid
               "pre": "p" if "ks_row_pblock(" in open(new, encoding="utf-8").read() else ""}
# The original file's one-line object macros (`#define NY 4096`): kernel bodies may use them.
defines = "".join(l for l in open(orig, encoding="utf-8") if re.match(r"\s*#\s*define\s+\w+\s", l))
ko = cuda_emu.kernel(orig, name, "orig_k")  # with the __device__ helpers it calls
sys.exit(cuda_emu.run(cxx, SHIM + defines + helpers(new) + "\n" + cuda_emu.device_functions(orig, ko) + ko + "\n" +
                      cuda_emu.kernel(new, name, "new_k") + "\n" + main,
                      ["-fsanitize=alignment", "-fno-sanitize-recover=alignment"]))
