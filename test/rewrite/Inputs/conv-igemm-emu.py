"""conv-igemm-emu.py CXX ORIG.cu NEW.cu KERNEL BM BN NT GEOM ARGS: check on the
CPU that conv-igemm's rewrite of KERNEL writes exactly what the original
writes. Both kernels are cut out of their files (the rewrite with the template
text it carries), compiled as C++ with the CUDA built-ins emulated (cuda_emu:
a block's threads are fibers, __syncthreads a barrier) and called with ARGS,
a C++ argument list over x, w, y, bias (float buffers; bias has cout elements) and the ints batch, cin,
cout, H, W, OH, OW, kh, kw, sy, sx, py, px, dy, dx. GEOM is "kh,kw,sy,sx,py,px,dy,dx"
(the kernel's constants, or the values its parameters get); OH and OW follow
from it. The sizes are small, odd, not multiples of the tiles (cout over BM,
batch*OH*OW over BN, K over BK). The original runs one thread per output on
blocks of 64, the rewrite on ceil(batch*OH*OW/BN) x ceil(cout/BM) blocks of NT
threads, as the rule's launch does. Exit 0 when every output of every size is
bitwise the original's (the buffers start from a pattern, so an output
written twice or not at all shows too). An optional 10th argument "grid3d":
the original is the 2-D-grid form (x over OW, y over OH, blockIdx.z = image *
cout + channel; 16x16 blocks, grid z batch*cout), the rewrite runs one image
per blockIdx.z (grid z = batch), as the rule's launch does for that form.
"batchloop": the original is the 2-D-grid form with blockIdx.z the channel
(grid z cout) and a loop over the images inside; the rewrite runs the flat
form's grid (batch*OH*OW columns), as the rule's launch does for it."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cuda_emu  # noqa: E402

cxx, orig, new, name, bm, bn, nt, geom, args = sys.argv[1:10]
grid3d = len(sys.argv) > 10 and sys.argv[10] == "grid3d"
batchloop = len(sys.argv) > 10 and sys.argv[10] == "batchloop"


s = open(new, encoding="utf-8").read()
i = s.index("#ifndef KS_CONV_F32_CUH")
j = s.index("\n#endif", s.index("} /* namespace ks_conv */", i)) + len("\n#endif\n")
tmpl = s[i:j]

PRE = r"""
#define __host__
#define __noinline__
struct float4 { float x, y, z, w; } __attribute__((aligned(16)));
#include <cstdint>
template <class T> static T __ldg(const T *p) { return *p; }
"""

MAIN = r"""
static std::vector<float> gX, gW, gY, gB;
static float *x, *w, *y, *bias;
static int batch, cin, cout, H, W, OH, OW, kh = %(g0)s, kw = %(g1)s, sy = %(g2)s, sx = %(g3)s, py = %(g4)s,
    px = %(g5)s, dy = %(g6)s, dx = %(g7)s;
static void call_orig() { orig_k(%(args)s); }
static void call_new() { new_k(%(args)s); }
int main() {
  const unsigned BM = %(bm)s, BN = %(bn)s, NT = %(nt)s;
  int sizes[][5] = {{2, 3, 5, 9, 7}, {1, 1, 1, 1, 1}, {3, 7, 70, 5, 11}, {1, 2, 3, 12, 13}, {2, 16, 9, 6, 6}};
  int bad = 0;
  for (auto &z : sizes) {
    batch = z[0]; cin = z[1]; cout = z[2]; H = z[3]; W = z[4];
    OH = (H + 2 * py - dy * (kh - 1) - 1) / sy + 1;
    OW = (W + 2 * px - dx * (kw - 1) - 1) / sx + 1;
    if (OH <= 0 || OW <= 0) continue;
    size_t nX = (size_t)batch * cin * H * W, nW = (size_t)cout * cin * kh * kw, nY = (size_t)batch * cout * OH * OW;
    gX.resize(nX); gW.resize(nW);
    for (size_t i = 0; i < nX; i++) gX[i] = (float)((int)((i * 7 + 3) %% 13) - 6) * 0.37f;
    for (size_t i = 0; i < nW; i++) gW[i] = (float)((int)((i * 5 + 1) %% 11) - 5) * 0.21f;
    gB.resize(cout);
    for (int i = 0; i < cout; i++) gB[i] = (float)((i * 3 + 2) %% 7 - 3) * 0.45f; /* 0 among them */
    x = gX.data(); w = gW.data(); bias = gB.data();
    std::vector<float> y0(nY);
    for (size_t i = 0; i < nY; i++) y0[i] = (float)i * 0.5f + 1000.0f;
    gY = y0; y = gY.data();
    if (%(batchloop)d)
      launch({(unsigned)(OW + 15) / 16, (unsigned)(OH + 15) / 16, (unsigned)cout}, {16, 16, 1}, call_orig);
    else if (%(grid3d)d)
      launch({(unsigned)(OW + 15) / 16, (unsigned)(OH + 15) / 16, (unsigned)(batch * cout)}, {16, 16, 1}, call_orig);
    else
      launch({(unsigned)((nY + 63) / 64), 1, 1}, {64, 1, 1}, call_orig);
    std::vector<float> ref = gY;
    gY = y0; y = gY.data();
    unsigned nN = (unsigned)((%(grid3d)d ? 1 : batch) * OH * OW);
    launch({(nN + BN - 1) / BN, (cout + BM - 1) / BM, %(grid3d)d ? (unsigned)batch : 1u}, {NT, 1, 1}, call_new);
    size_t nDiff = 0;
    for (size_t i = 0; i < nY; i++) nDiff += memcmp(&ref[i], &gY[i], sizeof(float)) != 0;
    printf("%(name)s batch=%%d cin=%%d cout=%%d %%dx%%d -> %%dx%%d tiles %%ux%%u, %%u threads: %%zu of %%zu floats differ\n",
           batch, cin, cout, H, W, OH, OW, BM, BN, NT, nDiff, nY);
    bad |= nDiff != 0;
  }
  return bad;
}
"""

g = geom.split(",")
main = MAIN % {"bm": bm, "bn": bn, "nt": nt, "name": name, "args": args, "grid3d": int(grid3d), "batchloop": int(batchloop),
               **{"g%d" % k: g[k] for k in range(8)}}
sys.exit(cuda_emu.run(cxx, cuda_emu.PRELUDE + PRE + tmpl + "\n" + cuda_emu.kernel(orig, name, "orig_k") + "\n" +
                      cuda_emu.kernel(new, name, "new_k") + "\n" + cuda_emu.LAUNCH_3D + main))
