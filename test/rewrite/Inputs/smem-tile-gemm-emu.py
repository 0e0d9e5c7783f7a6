"""smem-tile-gemm-emu.py CXX ORIG.cu NEW.cu KERNEL TILE REGS: check on the CPU that
smem-tile-gemm's tiled kernel writes exactly what the original nn.Linear-layout
kernel writes: y = epilogue(x w^T) with x m x k, w n x k, bias n, y m x n, both
kernels taking (x, w, bias, y, m, n, k). Both kernels are cut out of their files,
compiled as C++ with the few CUDA built-ins they use emulated (threads of a block
are pthreads, __syncthreads a barrier, blocks run one after another), and run on
sizes that are not multiples of the tile. The original runs as one thread per
output on 16x16 blocks (x over the columns); the rewrite on ceil(n/T) x ceil(m/T)
blocks of T x T/REGS threads, as the rule's launch does. Exit 0 when every output
of every size is bitwise the original's (the rule sums k in the same order)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cuda_emu  # noqa: E402

cxx, orig, new, name, tile, regs = sys.argv[1:7]

MAIN = r"""
static std::vector<float> gx, gw, gb, gy;
static int m, n, k;
static void call_orig() { orig_k(gx.data(), gw.data(), gb.data(), gy.data(), m, n, k); }
static void call_new() { new_k(gx.data(), gw.data(), gb.data(), gy.data(), m, n, k); }
int main() {
  const unsigned T = %(tile)s, R = %(regs)s;
  int sizes[][3] = {{37, 45, 50}, {1, 1, 1}, {33, 70, 7}, {64, 32, 64}, {5, 40, 0}, {20, 3, 97}};
  int bad = 0;
  for (auto &z : sizes) {
    m = z[0]; n = z[1]; k = z[2];
    gx.resize((size_t)m * k + 1); gw.resize((size_t)n * k + 1); gb.resize((size_t)n + 1);
    for (size_t i = 0; i < gx.size(); i++) gx[i] = (float)((int)((i * 7 + 3) %% 13) - 6) * 0.37f;
    for (size_t i = 0; i < gw.size(); i++) gw[i] = (float)((int)((i * 5 + 1) %% 11) - 5) * 0.21f;
    for (size_t i = 0; i < gb.size(); i++) gb[i] = (float)((int)(i %% 7) - 3) * 0.5f;
    gy.assign((size_t)m * n, -7.0f);
    launch({(unsigned)(n + 15) / 16, (unsigned)(m + 15) / 16, 1}, {16, 16, 1}, call_orig);
    std::vector<float> ref = gy;
    gy.assign((size_t)m * n, -7.0f);
    launch({(n + T - 1) / T, (m + T - 1) / T, 1}, {T, T / R, 1}, call_new);
    size_t nDiff = 0, nPos = 0;
    for (size_t i = 0; i < ref.size(); i++) {
      nDiff += memcmp(&ref[i], &gy[i], sizeof(float)) != 0;
      nPos += ref[i] > 0.0f;
    }
    printf("%(name)s m=%%d n=%%d k=%%d tile %%u regs %%u: %%zu of %%zu outputs differ (%%zu positive)\n", m, n, k, T,
           R, nDiff, ref.size(), nPos);
    bad |= nDiff != 0;
  }
  return bad;
}
"""

main = MAIN % {"tile": tile, "regs": regs, "name": name}
sys.exit(cuda_emu.run(cxx, cuda_emu.PRELUDE + cuda_emu.kernel(orig, name, "orig_k") + "\n" +
                      cuda_emu.kernel(new, name, "new_k") + "\n" + cuda_emu.LAUNCH_2D + main))
