"""ks-gemm-f32-emu.py CXX TEMPLATE: check on the CPU that the shipped GEMM
template (lib/rewrite/templates/ks_gemm_f32.cuh, device part only) computes,
for several tile configurations, the four layouts (NN, NT, TN, TT), sizes that
are not multiples of the tiles, leading dimensions that are not multiples of 4
and misaligned pointers (the scalar paths), an alpha/beta epilogue reading
C and accumulators starting from C (init_c, C holding -0.0f too), outputs bitwise those of the naive one-output-per-thread loop summing k in
order. The block's threads are fibers (cuda_emu), the cp.async path is not
compiled on the host (the register-staged path is what runs). Exit 0 when every
output is the naive loop's."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cuda_emu  # noqa: E402

cxx, tmpl = sys.argv[1:3]

PRE = r"""
#define __host__
#define KS_GEMM_DEVICE_ONLY 1
struct float4 { float x, y, z, w; } __attribute__((aligned(16)));
static inline float4 make_float4(float x, float y, float z, float w) { return float4{x, y, z, w}; }
struct float2 { float x, y; } __attribute__((aligned(8)));
static inline float2 make_float2(float x, float y) { return float2{x, y}; }
/* mma.sync.m16n8k8 tf32 of one warp: every lane posts its fragments, the
 * block waits (all threads call it the same number of times), each lane
 * computes its 4 outputs from the PTX fragment layout, the block waits */
static unsigned emu_xa[1024][4], emu_xb[1024][2];
static float emu_f(unsigned u) { float f; memcpy(&f, &u, 4); return f; }
static void emu_mma(float *c, const unsigned *a, const unsigned *b) {
  const int t = (int)threadIdx.x, w0 = t & ~31, lane = t & 31, g = lane / 4, tq = lane % 4;
  for (int i = 0; i < 4; i++) emu_xa[t][i] = a[i];
  for (int i = 0; i < 2; i++) emu_xb[t][i] = b[i];
  pthread_barrier_wait(&emu_bar);
  float r[4];
  for (int q = 0; q < 4; q++) {
    const int row = g + (q / 2) * 8, col = tq * 2 + q % 2;
    float s = c[q];
    for (int k = 0; k < 8; k++)
      s += emu_f(emu_xa[w0 + (row % 8) * 4 + k % 4][row / 8 + 2 * (k / 4)]) * emu_f(emu_xb[w0 + col * 4 + k % 4][k / 4]);
    r[q] = s;
  }
  pthread_barrier_wait(&emu_bar);
  for (int q = 0; q < 4; q++) c[q] = r[q];
}
#define KS_GEMM_EMU_MMA emu_mma
#include <cstdint>
using std::fmaxf;
"""

MAIN = r"""
#include <functional>
static std::function<void()> emu_body;
static void emu_call() { emu_body(); }

/* Every block of the grid, its NT threads as fibers (cuda_emu's launch). */
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int S, bool TA, bool TB>
static int check(int M, int N, int K, int pad, float alpha, float beta, bool bInitC = false) {
  typedef ks_gemm::config<BM, BN, BK, WM, WN, TM, TN, S> cfg;
  long long lda = (TA ? M : K) + pad, ldb = (TB ? K : N) + pad, ldc = N + pad;
  std::vector<float> a((size_t)(TA ? K : M) * lda + 4), b((size_t)(TB ? N : K) * ldb + 4), c((size_t)M * ldc + 4);
  for (size_t i = 0; i < a.size(); i++) a[i] = (float)((int)((i * 7 + 3) % 13) - 6) * 0.37f;
  for (size_t i = 0; i < b.size(); i++) b[i] = (float)((int)((i * 5 + 1) % 11) - 5) * 0.21f;
  for (size_t i = 0; i < c.size(); i++) c[i] = i % 5 ? (float)((int)(i % 7) - 3) * 0.5f : -0.0f;
  const float *A = a.data() + pad % 2, *B = b.data() + pad % 2; /* pad: misaligned too */
  std::vector<float> ref = c, out = c;
  ks_gemm::epi_linear epi = {alpha, beta};
  for (int m = 0; m < M; m++)
    for (int n = 0; n < N; n++) {
      float acc = bInitC ? ref[m * ldc + n] : 0.0f;
      for (int k = 0; k < K; k++) acc += (TA ? A[k * lda + m] : A[m * lda + k]) * (TB ? B[n * ldb + k] : B[k * ldb + n]);
      ref[m * ldc + n] = epi(acc, m, n, &ref[m * ldc + n]);
    }
  static float smem[cfg::SMEM / 4 + 4] __attribute__((aligned(16)));
  float *C = out.data();
  int mVec = ks_gemm::vec_mask(A, lda, B, ldb, C, ldc);
  for (unsigned by = 0; by < (unsigned)(M + BM - 1) / BM; by++)
    for (unsigned bx = 0; bx < (unsigned)(N + BN - 1) / BN; bx++) {
      emu_body = [&]() {
        if (bInitC)
          ks_gemm::gemm_block<BM, BN, BK, WM, WN, TM, TN, S, TA, TB>(M, N, K, A, lda, B, ldb, C, ldc, epi, mVec, smem,
                                                                    (int)by, (int)bx, ks_gemm::init_c());
        else
          ks_gemm::gemm_block<BM, BN, BK, WM, WN, TM, TN, S, TA, TB>(M, N, K, A, lda, B, ldb, C, ldc, epi, mVec, smem,
                                                                    (int)by, (int)bx);
      };
      launch({1, 1, 1}, {(unsigned)cfg::NT, 1, 1}, emu_call);
    }
  size_t nDiff = 0;
  for (size_t i = 0; i < ref.size(); i++) nDiff += memcmp(&ref[i], &out[i], 4) != 0;
  printf("%dx%dx%d w%dx%d t%dx%d s%d %s%s M=%d N=%d K=%d pad=%d alpha=%g beta=%g%s (vec %d): %zu of %zu differ\n",
         BM, BN, BK, WM, WN, TM, TN, S, TA ? "T" : "N", TB ? "T" : "N", M, N, K, pad, alpha, beta,
         bInitC ? " C+=" : "", mVec, nDiff, ref.size());
  return nDiff != 0;
}

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int S, bool TA, bool TB> static int shapes() {
  int bad = 0;
  bad |= check<BM, BN, BK, WM, WN, TM, TN, S, TA, TB>(37, 45, 50, 0, 1.0f, 0.0f);
  bad |= check<BM, BN, BK, WM, WN, TM, TN, S, TA, TB>(37, 45, 50, 1, 1.5f, -0.5f);
  bad |= check<BM, BN, BK, WM, WN, TM, TN, S, TA, TB>(64, 64, 64, 0, 1.0f, 0.0f);
  bad |= check<BM, BN, BK, WM, WN, TM, TN, S, TA, TB>(130, 67, 29, 3, 1.0f, 1.0f);
  bad |= check<BM, BN, BK, WM, WN, TM, TN, S, TA, TB>(5, 3, 0, 0, 1.0f, 0.0f);
  bad |= check<BM, BN, BK, WM, WN, TM, TN, S, TA, TB>(1, 1, 1, 0, 1.0f, 0.0f);
  bad |= check<BM, BN, BK, WM, WN, TM, TN, S, TA, TB>(37, 45, 13, 0, 1.0f, 0.0f, true);
  bad |= check<BM, BN, BK, WM, WN, TM, TN, S, TA, TB>(40, 40, 3, 0, 1.0f, 0.0f, true);
  return bad;
}

/* The TF32 path: against the naive loop on TF32-rounded operands summed in
 * double (the tensor cores' order is their own: within 1e-4 relative). */
template <int BM, int BN, int BK, int WM, int WN, int S, bool TA, bool TB>
static int check_tf32(int M, int N, int K, int pad, float alpha, float beta, bool bInitC = false) {
  typedef ks_gemm::config_tf32<BM, BN, BK, WM, WN, S> cfg;
  long long lda = (TA ? M : K) + pad, ldb = (TB ? K : N) + pad, ldc = N + pad;
  std::vector<float> a((size_t)(TA ? K : M) * lda + 4), b((size_t)(TB ? N : K) * ldb + 4), c((size_t)M * ldc + 4);
  for (size_t i = 0; i < a.size(); i++) a[i] = (float)((int)((i * 7 + 3) % 13) - 6) * 0.3701f;
  for (size_t i = 0; i < b.size(); i++) b[i] = (float)((int)((i * 5 + 1) % 11) - 5) * 0.2113f;
  for (size_t i = 0; i < c.size(); i++) c[i] = (float)((int)(i % 7) - 3) * 0.5f;
  const float *A = a.data() + pad % 2, *B = b.data() + pad % 2;
  std::vector<float> ref = c, out = c;
  ks_gemm::epi_linear epi = {alpha, beta};
  auto r = [](float x) { return (double)emu_f(ks_gemm::to_tf32(x)); };
  for (int m = 0; m < M; m++)
    for (int n = 0; n < N; n++) {
      double acc = bInitC ? ref[m * ldc + n] : 0.0;
      for (int k = 0; k < K; k++) acc += r(TA ? A[k * lda + m] : A[m * lda + k]) * r(TB ? B[n * ldb + k] : B[k * ldb + n]);
      ref[m * ldc + n] = epi((float)acc, m, n, &ref[m * ldc + n]);
    }
  static float smem[cfg::SMEM / 4 + 4] __attribute__((aligned(16)));
  float *C = out.data();
  int mVec = ks_gemm::vec_mask(A, lda, B, ldb, C, ldc);
  for (unsigned by = 0; by < (unsigned)(M + BM - 1) / BM; by++)
    for (unsigned bx = 0; bx < (unsigned)(N + BN - 1) / BN; bx++) {
      emu_body = [&]() {
        if (bInitC)
          ks_gemm::gemm_block_tf32<BM, BN, BK, WM, WN, S, TA, TB>(M, N, K, A, lda, B, ldb, C, ldc, epi, mVec, smem,
                                                                 (int)by, (int)bx, ks_gemm::init_c());
        else
          ks_gemm::gemm_block_tf32<BM, BN, BK, WM, WN, S, TA, TB>(M, N, K, A, lda, B, ldb, C, ldc, epi, mVec, smem,
                                                                 (int)by, (int)bx);
      };
      launch({1, 1, 1}, {(unsigned)cfg::NT, 1, 1}, emu_call);
    }
  size_t nOff = 0;
  double err = 0;
  for (size_t i = 0; i < ref.size(); i++) {
    double e = fabs((double)out[i] - ref[i]) / (1.0 + fabs((double)ref[i]));
    if (!(e <= 1e-4)) nOff++;
    if (e > err || e != e) err = e;
  }
  printf("tf32 %dx%dx%d w%dx%d s%d %s%s M=%d N=%d K=%d pad=%d alpha=%g beta=%g%s (vec %d): %zu of %zu off by "
         "more than 1e-4 (max %.1e)\n",
         BM, BN, BK, WM, WN, S, TA ? "T" : "N", TB ? "T" : "N", M, N, K, pad, alpha, beta, bInitC ? " C+=" : "", mVec,
         nOff, ref.size(), err);
  return nOff != 0;
}

template <int BM, int BN, int BK, int WM, int WN, int S, bool TA, bool TB> static int shapes_tf32() {
  int bad = 0;
  bad |= check_tf32<BM, BN, BK, WM, WN, S, TA, TB>(37, 45, 50, 0, 1.0f, 0.0f);
  bad |= check_tf32<BM, BN, BK, WM, WN, S, TA, TB>(37, 45, 50, 1, 1.5f, -0.5f);
  bad |= check_tf32<BM, BN, BK, WM, WN, S, TA, TB>(64, 64, 64, 0, 1.0f, 0.0f);
  bad |= check_tf32<BM, BN, BK, WM, WN, S, TA, TB>(70, 67, 29, 3, 1.0f, 1.0f);
  bad |= check_tf32<BM, BN, BK, WM, WN, S, TA, TB>(5, 3, 0, 0, 1.0f, 0.0f);
  bad |= check_tf32<BM, BN, BK, WM, WN, S, TA, TB>(1, 1, 1, 0, 1.0f, 0.0f);
  bad |= check_tf32<BM, BN, BK, WM, WN, S, TA, TB>(37, 45, 13, 0, 1.0f, 0.0f, true);
  return bad;
}

int main() {
  int bad = 0;
  bad |= shapes_tf32<32, 32, 8, 16, 16, 2, false, false>();
  bad |= shapes_tf32<32, 32, 8, 16, 16, 3, false, true>();
  bad |= shapes_tf32<32, 32, 16, 16, 16, 2, true, false>();
  bad |= shapes_tf32<64, 32, 16, 32, 16, 2, true, true>();
  bad |= check_tf32<128, 128, 16, 64, 32, 2, false, false>(130, 140, 20, 0, 1.0f, 0.0f);
  bad |= shapes<32, 32, 8, 16, 32, 4, 4, 2, false, false>();
  bad |= shapes<32, 32, 8, 16, 32, 4, 4, 3, false, true>();
  bad |= shapes<32, 32, 4, 16, 32, 4, 4, 2, true, false>();
  bad |= shapes<32, 32, 16, 16, 32, 4, 4, 4, true, true>();
  bad |= shapes<64, 32, 8, 32, 32, 8, 4, 2, false, false>();
  bad |= check<128, 128, 8, 32, 64, 8, 8, 2, false, false>(130, 140, 20, 0, 1.0f, 0.0f);
  bad |= check<128, 128, 16, 64, 32, 8, 8, 3, false, true>(129, 131, 37, 1, 1.0f, 0.0f);
  return bad;
}
"""

src = cuda_emu.PRELUDE + PRE + open(tmpl, encoding="utf-8").read() + cuda_emu.LAUNCH_2D + MAIN
sys.exit(cuda_emu.run(cxx, src))
