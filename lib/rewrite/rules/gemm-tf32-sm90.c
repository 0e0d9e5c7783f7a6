/* gemm-tf32-sm90.c — rule `gemm-tf32-sm90`: each launch of a naive FP32 GEMM
 * kernel (the matcher of smem-tile-gemm and library-gemm) becomes a call of
 * the shipped Hopper TF32 GEMM, ks_gemm_sm90::gemm_tf32
 * (templates/ks_gemm_tf32_sm90.cuh: TMA, wgmma, persistent and
 * warp-specialized), with the original launch as the fallback taken whenever
 * the call declines (a device other than compute capability 9.0, device code
 * not built for sm_90a, sizes it does not take, a CUDA error). The header is
 * copied once at file scope above the kernel (or the first function launching
 * it) and -arch=sm_90a recorded in the kernelskill-flags line. TF32 is not
 * bitwise FP32: the planner applies it only where the task's tolerance admits
 * TF32 (skills/compute/cmp.tensor-core-wgmma.json, docs/rules/gemm-tf32-sm90.md). */
#include "features/ast.h"
#include "kernelskill/rewrite.h"
#include "gemm_match.h"
#include "rewrite/rwutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TS_GUARD "#define KS_GEMM_TF32_SM90_CUH"
#define TS_CALL "ks_gemm_sm90::gemm_tf32("

/* Is the launch already the fallback of this rule's call: the call's text
 * before it with no ';' in between (every statement before it, the fallback
 * launch of another call included, ends at a ';')? */
static int ts_wrapped(ks_tu *pTu, const ks_launch *pL) {
  size_t nCall = strlen(TS_CALL);
  for (unsigned i = pL->iStart; i-- > 0;) {
    if (pTu->zSrc[i] == ';') return 0;
    if (i + nCall <= pL->iStart && memcmp(pTu->zSrc + i, TS_CALL, nCall) == 0) return 1;
  }
  return 0;
}

/* Does an argument's text assign, increment or decrement (evaluated by the
 * call and again by the fallback)? */
static int ts_has_effect(const char *z) {
  for (const char *q = z; *q; q++) {
    if ((q[0] == '+' && q[1] == '+') || (q[0] == '-' && q[1] == '-')) return 1;
    if (q[0] == '=' && q[1] != '=' && (q == z || !strchr("=!<>", q[-1]))) return 1;
    if (q[0] == '=' && q[1] == '=') q++;
  }
  return 0;
}

/* The launch's checks: a statement of its own (the replacement is a block),
 * one argument per parameter, no argument or stream evaluated for an effect. */
static int ts_check_launch(ks_rewrite *p, const ks_launch *pL, CXCursor kernel, const char *zKernel,
                           const ks_gemm_match *pG) {
  ks_tu *pTu = ks_rewrite_tu(p);
  unsigned iSemi = pL->iEnd;
  while (iSemi < pTu->nSrc && (pTu->zSrc[iSemi] == ' ' || pTu->zSrc[iSemi] == '\t')) iSemi++;
  if (!pL->bStmt || iSemi >= pTu->nSrc || pTu->zSrc[iSemi] != ';')
    return ks_rewrite_refuse(p, "%s:%u: the launch of '%s' is not a statement of its own; cannot make it the "
                                "fallback of the TF32 GEMM call",
                             pTu->zFile, pL->iLine, zKernel);
  int rc = ks_rw_launch_arity(p, pL, kernel, zKernel);
  if (rc < 0) return rc;
  const int aiUsed[] = {pG->iM, pG->iN, pG->iK, pG->iA, pG->iX, pG->iB, pG->iY, pG->iC, pG->iZ};
  for (size_t i = 0; i < sizeof aiUsed / sizeof aiUsed[0]; i++) {
    if (ts_has_effect(pL->azArg[aiUsed[i]]))
      return ks_rewrite_refuse(p, "%s:%u: argument '%s' of the launch of '%s' assigns, increments or decrements: the "
                                  "call and its fallback would both evaluate it",
                               pTu->zFile, pL->iLine, pL->azArg[aiUsed[i]], zKernel);
  }
  if (pL->azCfg[3] && ts_has_effect(pL->azCfg[3]))
    return ks_rewrite_refuse(p, "%s:%u: the stream '%s' of the launch of '%s' assigns, increments or decrements",
                             pTu->zFile, pL->iLine, pL->azCfg[3], zKernel);
  return KS_OK;
}

/* Launch pL (checked) becomes `{ if (gemm_tf32(...) != cudaSuccess) launch; }` with its note. */
static int ts_rewrite_launch(ks_rewrite *p, const ks_launch *pL, const ks_gemm_match *pG) {
  ks_tu *pTu = ks_rewrite_tu(p);
  ks_buf text = KS_BUF_INIT;
  unsigned iSemi = pL->iEnd;
  while (iSemi < pTu->nSrc && pTu->zSrc[iSemi] != ';') iSemi++;
  unsigned nIndent = 0;
  unsigned iLine0 = ks_rewrite_line_start(p, pL->iStart, &nIndent);
  char zI[64];
  snprintf(zI, sizeof zI, "%.*s", (int)(nIndent < 60 ? nIndent : 60), pTu->zSrc + iLine0);
  char **a = pL->azArg;
  int rc = ks_buf_printf(&text,
                         "{\n"
                         "%s  /* TF32 on sm_90a tensor cores; declined (not sm_90a, not compute capability 9.0, an\n"
                         "%s     error): the original kernel. */\n"
                         "%s  if (" TS_CALL "(%s), (%s), (%s), (%s), (%s), (%s), (%s), (%s), (%s),\n"
                         "%s                              ks_gemm_sm90::epi_store{}, %s) != cudaSuccess)\n"
                         "%s    %.*s;\n"
                         "%s}",
                         zI, zI, zI, a[pG->iM], a[pG->iN], a[pG->iK], a[pG->iA], a[pG->iX], a[pG->iB], a[pG->iY],
                         a[pG->iC], a[pG->iZ], zI, pL->azCfg[3] ? pL->azCfg[3] : "0", zI,
                         (int)(pL->iEnd - pL->iStart), pTu->zSrc + pL->iStart, zI);
  if (rc >= 0) rc = ks_rewrite_replace(p, pL->iStart, iSemi + 1, text.z);
  if (rc >= 0)
    rc = ks_rewrite_note(p, pL->iStart,
                         "ks_gemm_sm90::gemm_tf32 computes in TF32 on sm_90 tensor cores (TMA + wgmma, sm_90a; "
                         "operands rounded to TF32, FP32 sums: not bitwise the original, within the task's "
                         "tolerance only), original launch as fallback");
  ks_buf_free(&text);
  return rc;
}

/* The shipped header once, at file scope above the kernel or the first
 * function launching it, whichever comes first; -arch=sm_90a recorded. */
static int ts_header(ks_rewrite *p, const ks_gemm_match *pG, const ks_launch *aL, int nL) {
  ks_tu *pTu = ks_rewrite_tu(p);
  unsigned iAt = pG->iKernelStart;
  for (int i = 0; i < nL; i++) {
    CXCursor fn = ks_rw_host_fn(pTu, aL[i].iStart, aL[i].iEnd);
    unsigned s, t;
    if (!clang_Cursor_isNull(fn) && ks_ast_extent(pTu, fn, &s, &t) == 0 && s < iAt) iAt = s;
  }
  unsigned iLine0 = ks_rewrite_line_start(p, iAt, NULL);
  unsigned iTop = ks_rw_file_scope_at(p, iLine0, ks_rewrite_comments_above(p, iLine0));
  ks_buf ins = KS_BUF_INIT;
  int bChanged = 0;
  int rc = ks_rw_shipped_block(p, TS_GUARD, "ks_gemm_tf32_sm90.cuh", "Hopper TF32 GEMM header",
                               "the shipped Hopper TF32 GEMM (share/kernelskill/templates/ks_gemm_tf32_sm90.cuh)", &ins);
  if (rc >= 0 && ins.n) rc = ks_rewrite_replace(p, iTop, iTop, ins.z);
  ks_buf_free(&ins);
  if (rc >= 0) rc = ks_rule_nvcc_flags_add(p, "-arch=sm_90a", &bChanged);
  return rc;
}

static int apply_gemm_tf32_sm90(ks_rewrite *p) {
  ks_tu *pTu = ks_rewrite_tu(p);
  const char *zKernel = ks_rewrite_kernel_name(p);
  ks_gemm_match g;
  ks_launch *aL = NULL;
  int nL = 0, nTodo = 0, rc;
  memset(&g, 0, sizeof g);
  if ((rc = ks_ast_launches(pTu, zKernel, &aL, &nL)) < 0) return rc;
  for (int i = 0; i < nL; i++) nTodo += !ts_wrapped(pTu, &aL[i]);
  if (nL > 0 && nTodo == 0) {
    rc = ks_rewrite_already(p, "%s:%u: the launch of '%s' is already the fallback of ks_gemm_sm90::gemm_tf32",
                            pTu->zFile, aL[0].iLine, zKernel);
    goto done;
  }
  if ((rc = ks_rule_gemm_match(p, &g)) < 0) goto done;
  if (g.bDouble) {
    rc = ks_rewrite_refuse(p, "'%s' is a double-precision GEMM: the TF32 tensor-core GEMM takes fp32 operands only",
                           zKernel);
    goto done;
  }
  if (nL == 0) {
    rc = ks_rewrite_refuse(p, "no launch of '%s' in this file to replace by the TF32 GEMM call", zKernel);
    goto done;
  }
  if (g.iM < 0 || g.iN < 0 || g.iK < 0 || g.iX < 0 || g.iY < 0 || g.iZ < 0) {
    rc = ks_rewrite_refuse(p, "sizes and strides of '%s' are not each one parameter; cannot map them to the TF32 "
                              "GEMM call",
                           zKernel);
    goto done;
  }
  CXCursor kernel = ks_ast_find_kernel(pTu, zKernel);
  for (int i = 0; i < nL; i++)
    if (!ts_wrapped(pTu, &aL[i]) && (rc = ts_check_launch(p, &aL[i], kernel, zKernel, &g)) < 0) goto done;
  for (int i = 0; i < nL; i++)
    if (!ts_wrapped(pTu, &aL[i]) && (rc = ts_rewrite_launch(p, &aL[i], &g)) < 0) goto done;
  rc = ts_header(p, &g, aL, nL);
done:
  ks_rule_gemm_match_free(&g);
  ks_ast_launches_free(aL, nL);
  return rc;
}

const ks_rule ks_rule_gemm_tf32_sm90 = {
    "gemm-tf32-sm90",
    "naive FP32 GEMM launch to a call of the shipped Hopper TF32 GEMM ks_gemm_tf32_sm90.cuh (TMA + wgmma, "
    "sm_90a, -arch=sm_90a recorded), the original launch as fallback; TF32, not bitwise: for tasks whose "
    "tolerance admits it",
    NULL, apply_gemm_tf32_sm90};
