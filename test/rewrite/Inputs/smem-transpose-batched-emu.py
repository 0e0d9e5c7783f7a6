"""smem-transpose-batched-emu.py CXX ORIG.cu NEW.cu KERNEL ARGS: check on the CPU
that smem-transpose's tiled rewrite of a batched transpose (one R x C matrix per
blockIdx.z) writes exactly what the original writes. Both kernels are cut out
of their files and compiled as C++ with the CUDA built-ins emulated (cuda_emu.py;
the launcher here walks a 3-D grid). The original runs on 16x16 blocks over
(C, R, batch); the tiled one on the rule's grid (32x32 tiles, gridDim.y capped
below the tile-row count so its tile-row loop runs) with the same z. ARGS: the
kernel's arguments from in, out, R, C (e.g. "out, in, R, C"). Exit 0 when
every size matches and each matrix is transposed."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cuda_emu  # noqa: E402

cxx, orig, new, name, args = sys.argv[1:6]


MAIN = r"""
static std::vector<float> gin, gout;
static int R, C;
static void call_orig() { float *in = gin.data(), *out = gout.data(); orig_k(%(args)s); }
static void call_new() { float *in = gin.data(), *out = gout.data(); new_k(%(args)s); }
int main() {
  int sizes[][4] = {{40, 33, 2, 1}, {33, 70, 3, 2}, {1, 5, 2, 1}, {64, 32, 1, 1}};
  int bad = 0;
  for (auto &z : sizes) {
    R = z[0]; C = z[1];
    unsigned nb = (unsigned)z[2], capy = (unsigned)z[3];
    size_t n = (size_t)R * C * nb;
    gin.resize(n);
    for (size_t i = 0; i < n; i++) gin[i] = (float)(i * 7 + 3);
    gout.assign(n, -1.0f);
    launch({(unsigned)(C + 15) / 16, (unsigned)(R + 15) / 16, nb}, {16, 16, 1}, call_orig);
    std::vector<float> ref = gout;
    gout.assign(n, -1.0f);
    unsigned gy = (unsigned)(R + 31) / 32;
    if (gy > capy) gy = capy;
    launch({(unsigned)(C + 31) / 32, gy, nb}, {32, 8, 1}, call_new);
    size_t nDiff = 0, nNotT = 0;
    for (size_t i = 0; i < n; i++) nDiff += ref[i] != gout[i];
    for (size_t b = 0; b < nb; b++)
      for (int r = 0; r < R; r++)
        for (int c = 0; c < C; c++)
          nNotT += gout[b * R * C + (size_t)c * R + r] != gin[b * R * C + (size_t)r * C + c];
    printf("%(name)s %%dx%%d x%%u gridDim.y %%u: %%zu differ from the original, %%zu not the transpose\n", R, C, nb,
           gy, nDiff, nNotT);
    bad |= nDiff || nNotT;
  }
  return bad;
}
"""

main = MAIN % {"args": args, "name": name}
sys.exit(cuda_emu.run(cxx, cuda_emu.PRELUDE + cuda_emu.kernel(orig, name, "orig_k") + "\n" +
                      cuda_emu.shipped(open(new, encoding="utf-8").read(), "KS_TRANSPOSE_CUH") +
                      cuda_emu.kernel(new, name, "new_k") + "\n" + cuda_emu.LAUNCH_3D + main))
