/* ks_fastmath.cuh — device helpers of rule fast-math (lib/rewrite/rules/fast-math.c,
 * docs/rules/fast-math.md) for the functions that have no SFU intrinsic of
 * their own in every toolkit. The rule inserts this text once per file, so
 * the rewritten file compiles on its own, and only where it calls one of
 * these. Approximate on purpose: the Reviewer checks the task's tolerance. */
#ifndef KS_FASTMATH_CUH
#define KS_FASTMATH_CUH

namespace ks_fast {

/* tanhf on the hardware approximation (PTX tanh.approx.f32, sm_75 and later:
 * one instruction where tanhf is a dozen); the accurate tanhf elsewhere. */
__device__ __forceinline__ float tanh_approx(float x) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 750
  float r;
  asm("tanh.approx.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
#else
  return tanhf(x);
#endif
}

} // namespace ks_fast

#endif
