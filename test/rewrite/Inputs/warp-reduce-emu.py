"""warp-reduce-emu.py CXX ORIG.cu NEW.cu KERNEL THREADS: check on the CPU that
rule warp-reduce's rewrite of KERNEL(const float *in, float *out, unsigned n)
writes bitwise what the original writes. Both kernels are cut out of their
files and compiled as C++ with the CUDA built-ins emulated (cuda_emu: a
block's threads are fibers); __shfl_down_sync exchanges through one slot per
lane between two barriers of warp 0 (the rewrite calls it in warp 0 only, all
32 lanes). Blocks of THREADS threads, several sizes of n (not multiples of the
block), inputs with mixed signs and magnitudes so that the order of the
additions shows in the bits. The original file's #define lines come along
(kernels written with a macro block size or accessor). Exit 0 when every
output matches."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cuda_emu  # noqa: E402

cxx, orig, new, name, threads = sys.argv[1:6]

SHIM = r"""
static pthread_barrier_t emu_wbar;
static float emu_slot[32];
template <class T> static T __shfl_down_sync(unsigned, T v, int o) {
  unsigned l = threadIdx.x & 31u;
  emu_slot[l] = v;
  pthread_barrier_wait(&emu_wbar);
  T r = l + (unsigned)o < 32u ? emu_slot[l + (unsigned)o] : v;
  pthread_barrier_wait(&emu_wbar);
  return r;
}
"""

MAIN = r"""
static std::vector<float> gIn, gOut;
static float *in, *out;
static unsigned n;
static void call_orig() { orig_k(in, out, n); }
static void call_new() { new_k(in, out, n); }
int main() {
  pthread_barrier_init(&emu_wbar, 0, 32);
  const unsigned T = %(threads)s;
  unsigned sizes[] = {1, 37, T * 2 + 5, T * 6, T * 9 + 200};
  int bad = 0;
  for (unsigned z : sizes) {
    n = z;
    gIn.resize(n);
    for (unsigned i = 0; i < n; i++) gIn[i] = (float)((int)((i * 2654435761u) %% 2001u) - 1000) * 0.0137f * (1 + i %% 7);
    in = gIn.data();
    unsigned nb = (n + 2 * T - 1) / (2 * T) + 1;
    gOut.assign(nb, -7.0f); out = gOut.data();
    launch({nb, 1, 1}, {T, 1, 1}, call_orig);
    std::vector<float> ref = gOut;
    gOut.assign(nb, -7.0f); out = gOut.data();
    launch({nb, 1, 1}, {T, 1, 1}, call_new);
    unsigned nDiff = 0;
    for (unsigned b = 0; b < nb; b++) nDiff += memcmp(&ref[b], &gOut[b], sizeof(float)) != 0;
    printf("%(name)s n=%%u blocks=%%u: %%u of %%u outputs differ\n", n, nb, nDiff, nb);
    bad |= nDiff != 0;
  }
  return bad;
}
"""

main = MAIN % {"threads": threads, "name": name}
defines = "".join(line for line in open(orig, encoding="utf-8") if line.startswith("#define "))
sys.exit(cuda_emu.run(cxx, cuda_emu.PRELUDE + SHIM + defines + cuda_emu.kernel(orig, name, "orig_k") + "\n" +
                      cuda_emu.kernel(new, name, "new_k") + "\n" + cuda_emu.LAUNCH_2D + main))
