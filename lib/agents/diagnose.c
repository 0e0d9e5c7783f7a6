/* diagnose.c — the Diagnoser's rule path: turn a failed review into a short
 * diagnosis the journal and the user can act on: the verdict, the decisive
 * evidence (the first compiler error with its file:line, the worst element,
 * the crash reason), and what the rewrite rule that produced the version is
 * known to break. The loop then reverts to the parent and blames
 * (skill, params); no guessing at a fix here: for LLM-written code (zRule
 * "llm") this text is what the Diagnoser agent's repair prompt starts from. */
#include "kernelskill/loop.h"

#include <string.h>

/* What each rule can get wrong, by failure class: where to look first. */
typedef struct rule_hint {
  const char *zRule;
  const char *zWrong;   /* wrong_result */
  const char *zCrash;   /* runtime_error / timeout */
} rule_hint;

static const rule_hint aHints[] = {
    {"vectorize", "the scalar tail or a length that is not a multiple of the vector width",
     "a misaligned vector access: the base pointer or offset is not 16-byte aligned"},
    {"coarsen", "elements past the end of the old grid (the coarsened index range)",
     "an extra element per thread read past the end of a tensor"},
    {"block-size", "the kernel assumes the old block size (shared arrays, reduction width, index math)",
     "more threads per block than the kernel's resources allow"},
    {"grid-stride", "elements skipped or done twice by the stride loop", "a stride loop that never ends"},
    {"smem-tile-gemm", "tile edges when a dimension is not a multiple of the tile",
     "shared memory over the per-block limit, or an out-of-range tile load"},
    {"unroll", "an unrolled loop with a side effect in its condition", "code size or registers after unrolling"},
    {"row-reduce", "the reduction order or a row length below the block width",
     "a reduction that reads past the row end"},
    {"fast-math", "intrinsics less accurate than the task's tolerance", NULL},
    {"nvcc-flags", "flags that change floating-point results beyond the tolerance", NULL},
    {"launch-bounds", NULL, "a launch with more threads than __launch_bounds__ allows"},
    {"restrict-const", "aliasing tensors: __restrict__ promised there was none", NULL},
    {"read-only-cache", "__ldg on memory the kernel also writes", NULL},
    {0, 0, 0}};

/* The first line of nvcc's output that says "error", without its newline. */
static void first_error(const char *zLog, ks_buf *pOut) {
  const char *p = zLog;
  while (p && *p) {
    const char *e = strchr(p, '\n');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    const char *q = p;
    int bHit = 0;
    for (; q + 5 <= p + n; q++)
      if (memcmp(q, "error", 5) == 0) {
        bHit = 1;
        break;
      }
    if (bHit) {
      if (n > 300) n = 300;
      ks_buf_printf(pOut, "; first error: %.*s", (int)n, p);
      return;
    }
    p = e ? e + 1 : NULL;
  }
}

int ks_diagnose(const ks_review_result *pRes, const char *zRule, ks_buf *pOut) {
  if (!pRes) return ks_error_set(KS_EINVAL, "ks_diagnose: no review result");
  ks_verdict e = pRes->eVerdict;
  const char *zWhat = zRule ? "the candidate" : "the seed";
  ks_buf_printf(pOut, "%s: %s", ks_verdict_name(e), pRes->zReason ? pRes->zReason : "(no reason given)");
  if (e == KS_VERDICT_COMPILE_ERROR) first_error(pRes->zDetail, pOut);
  const rule_hint *h = NULL;
  for (int i = 0; zRule && aHints[i].zRule; i++)
    if (strcmp(aHints[i].zRule, zRule) == 0) h = &aHints[i];
  switch (e) {
    case KS_VERDICT_COMPILE_ERROR:
      if (zRule && !strcmp(zRule, "llm")) ks_buf_puts(pOut, ". The LLM's code does not build");
      else if (zRule) ks_buf_printf(pOut, ". The rewrite by rule %s does not build; the rule's output needs fixing", zRule);
      else ks_buf_puts(pOut, ". Fix the seed so that nvcc builds it");
      break;
    case KS_VERDICT_WRONG_RESULT:
      if (h && h->zWrong) ks_buf_printf(pOut, ". Rule %s: check %s", zRule, h->zWrong);
      else if (!zRule) ks_buf_puts(pOut, ". The seed disagrees with the task's reference: check the task's shapes, tolerance and entry");
      break;
    case KS_VERDICT_RUNTIME_ERROR:
    case KS_VERDICT_TIMEOUT:
      if (h && h->zCrash) ks_buf_printf(pOut, ". Rule %s: check %s", zRule, h->zCrash);
      else if (!zRule) ks_buf_printf(pOut, ". %s crashed or hung on the task's inputs: check the launch and the sizes", zWhat);
      break;
    default:
      break;
  }
  return KS_OK;
}
