"""cuda-emu-selftest.py CXX CASE: the emulation the rule tests rely on
(cuda_emu.py) checked on kernels whose outcome is known. Each CASE builds one
small program with cuda_emu's prelude and 2-D launcher and prints what it saw:

  exchange       a shared-memory neighbour exchange with its barrier: every
                 output right ("0 wrong")
  race-next      the same without the barrier, reading the next thread's slot
  race-prev      ... reading the previous thread's slot: each race shows as
                 wrong outputs in one of the two launch orders
  deadlock       half the block waits at a barrier the other half never
                 reaches: exit 3 with a message, at once
  shuffle        a warp-wide exchange through two barriers of 32 threads,
                 several warps per block (row-reduce-emu's pattern)
Exit status: the program's."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cuda_emu  # noqa: E402

cxx, case = sys.argv[1:3]

KERNELS = {
    "exchange": "s[t] = in[i]; __syncthreads(); out[i] = s[(t + 1) % blockDim.x] + s[(t + blockDim.x - 1) % blockDim.x];",
    "race-next": "s[t] = in[i]; out[i] = s[(t + 1) % blockDim.x];",
    "race-prev": "s[t] = in[i]; out[i] = s[(t + blockDim.x - 1) % blockDim.x];",
    "deadlock": "if (t < blockDim.x / 2) __syncthreads(); out[i] = in[i];",
}
EXPECT = {
    "exchange": "in[b * B + (t + 1) % B] + in[b * B + (t + B - 1) % B]",
    "race-next": "in[b * B + (t + 1) % B]",
    "race-prev": "in[b * B + (t + B - 1) % B]",
    "deadlock": "in[b * B + t]",
}

if case == "shuffle":
    body = r"""
static pthread_barrier_t emu_wbar[8];
static float slot[256];
__global__ void k(const float *in, float *out) {
  unsigned t = threadIdx.x, w = t / 32, i = blockIdx.x * blockDim.x + t;
  slot[t] = in[i];
  pthread_barrier_wait(&emu_wbar[w]);
  float v = slot[(w * 32) | ((t & 31u) ^ 1u)];
  pthread_barrier_wait(&emu_wbar[w]);
  out[i] = v;
}
"""
    expect = "in[b * B + ((t & ~31u) | ((t & 31u) ^ 1u))]"
    setup = "for (int w = 0; w < 8; w++) pthread_barrier_init(&emu_wbar[w], 0, 32);"
else:
    body = r"""
__global__ void k(const float *in, float *out) {
  __shared__ float s[256];
  unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  %s
}
""" % KERNELS[case]
    expect = EXPECT[case]
    setup = ""

MAIN = r"""
static std::vector<float> gin, gout;
static void call() { k(gin.data(), gout.data()); }
int main() {
  const unsigned B = 256, G = 2;
  %(setup)s
  gin.resize(B * G);
  for (unsigned j = 0; j < B * G; j++) gin[j] = (float)(j * 3 + 1);
  gout.assign(B * G, -1.0f);
  launch({G, 1, 1}, {B, 1, 1}, call);
  const float *in = gin.data();
  for (unsigned b = 0; b < G; b++) {
    unsigned nWrong = 0;
    for (unsigned t = 0; t < B; t++) nWrong += gout[b * B + t] != (%(expect)s);
    printf("block %%u: %%u wrong\n", b, nWrong);
  }
  return 0;
}
"""
sys.exit(cuda_emu.run(cxx, cuda_emu.PRELUDE + body + cuda_emu.LAUNCH_2D + MAIN % {"setup": setup, "expect": expect}))
