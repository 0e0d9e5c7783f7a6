"""smem-tile-gemm-emu.py CXX ORIG.cu NEW.cu KERNEL TILE REGS [COLS [plain]]: check
on the CPU that smem-tile-gemm's tiled kernel writes exactly what the original
kernel writes. Default layout nn.Linear: y = epilogue(x w^T) with x m x k, w n x k,
bias n, y m x n, both kernels taking (x, w, bias, y, m, n, k); `plain`: C = A B
with A m x k, B k x n, both kernels taking (A, B, C, m, n, k). Both kernels are cut
out of their files, compiled as C++ with the few CUDA built-ins they use emulated
(threads of a block are pthreads, __syncthreads a barrier, blocks run one after
another), and run on sizes that are not multiples of the tile. The original runs
as one thread per output on 16x16 blocks (x over the columns); the rewrite on
ceil(n/T) x ceil(m/T) blocks of T/COLS x T/REGS threads, as the rule's launch
does. Exit 0 when every output of every size is bitwise the original's (the rule
sums k in the same order)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cuda_emu  # noqa: E402

cxx, orig, new, name, tile, regs = sys.argv[1:7]
cols = sys.argv[7] if len(sys.argv) > 7 else "1"
plain = len(sys.argv) > 8 and sys.argv[8] == "plain"
# plain: gx is A (m x k), gw is B (k x n), gy is C; gb unused
args = "gx.data(), gw.data(), gy.data(), m, n, k" if plain else "gx.data(), gw.data(), gb.data(), gy.data(), m, n, k"

MAIN = r"""
static std::vector<float> gx, gw, gb, gy;
static int m, n, k;
static void call_orig() { orig_k(%(args)s); }
static void call_new() { new_k(%(args)s); }
int main() {
  const unsigned T = %(tile)s, R = %(regs)s, Q = %(cols)s;
  int sizes[][3] = {{37, 45, 50}, {1, 1, 1}, {33, 70, 7}, {64, 32, 64}, {5, 40, 0}, {20, 3, 97}, {130, 67, 129}};
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
    launch({(n + T - 1) / T, (m + T - 1) / T, 1}, {T / Q, T / R, 1}, call_new);
    size_t nDiff = 0, nPos = 0;
    for (size_t i = 0; i < ref.size(); i++) {
      nDiff += memcmp(&ref[i], &gy[i], sizeof(float)) != 0;
      nPos += ref[i] > 0.0f;
    }
    printf("%(name)s m=%%d n=%%d k=%%d tile %%u regs %%u cols %%u: %%zu of %%zu outputs differ (%%zu positive)\n", m, n,
           k, T, R, Q, nDiff, ref.size(), nPos);
    bad |= nDiff != 0;
  }
  return bad;
}
"""

main = MAIN % {"tile": tile, "regs": regs, "cols": cols, "name": name, "args": args}
sys.exit(cuda_emu.run(cxx, cuda_emu.PRELUDE + cuda_emu.kernel(orig, name, "orig_k") + "\n" +
                      cuda_emu.shipped(open(new, encoding="utf-8").read(), "KS_TILEGEMM_CUH") +
                      cuda_emu.kernel(new, name, "new_k") + "\n" + cuda_emu.LAUNCH_2D + main))
