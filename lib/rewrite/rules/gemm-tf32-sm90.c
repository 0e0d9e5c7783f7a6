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
 * TF32 (skills/compute/cmp.tensor-core-wgmma.json, docs/rules/gemm-tf32-sm90.md).
 * B given N x K (nn.Linear's weight) calls gemm_tf32_nt (no transpose); an
 * epilogue (bias, ReLU, alpha/beta reading C at its own element: the matcher's
 * LINEAR and OWN_C forms) becomes a functor at file scope below the header
 * (the call is host code: no extended lambda), its members the parameters it
 * reads, set from the launch's arguments. */
#include "features/ast.h"
#include "kernelskill/rewrite.h"
#include "gemm_match.h"
#include "rewrite/rwutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TS_GUARD "#define KS_GEMM_TF32_SM90_CUH"
#define TS_CALL "ks_gemm_sm90::gemm_tf32(" /* B given N x K: gemm_tf32_nt( */
#define TS_ENTRY "ks_gemm_sm90::gemm_tf32" /* either entry */
#define TS_MAXP 64                         /* kernel parameters an epilogue may read */

/* The epilogue as a functor: which kernel parameters it reads (members, in
 * parameter order, set from the launch's arguments), its struct's name. */
typedef struct ts_epi {
  int nP;
  int aiP[TS_MAXP];
  char zName[160];
} ts_epi;

/* Is the launch already the fallback of this rule's call: the call's text
 * before it with no ';' in between (every statement before it, the fallback
 * launch of another call included, ends at a ';')? */
static int ts_wrapped(ks_tu *pTu, const ks_launch *pL) {
  size_t nCall = strlen(TS_ENTRY);
  for (unsigned i = pL->iStart; i-- > 0;) {
    if (pTu->zSrc[i] == ';') return 0;
    if (i + nCall <= pL->iStart && memcmp(pTu->zSrc + i, TS_ENTRY, nCall) == 0) return 1;
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

/* The epilogue's parameters (the matcher's mEpiParams, walked on the AST), in
 * parameter order, and the functor's name. */
static void ts_epi_params(const ks_gemm_match *pG, const char *zKernel, ts_epi *pE) {
  for (int i = 0; i < TS_MAXP; i++)
    if (pG->mEpiParams >> i & 1) pE->aiP[pE->nP++] = i;
  snprintf(pE->zName, sizeof pE->zName, "ks_epi_%s", zKernel);
}

/* The functor at file scope: the parameters it reads as members (their
 * declared types), operator() the header's epilogue contract (acc, row, col,
 * &C[row][col]) on the kernel's names, its statements and stored value as
 * written (C read at its own element through the member C, as the kernel's
 * thread read it before its store). */
static int ts_epi_struct(const ks_gemm_match *pG, CXCursor kernel, const char *zKernel, const ts_epi *pE,
                         ks_buf *pB) {
  int rc = ks_buf_printf(pB,
                         "/* The epilogue of '%s' for ks_gemm_sm90::gemm_tf32 (the header's contract: the stored\n"
                         "   value from the sum, row, column and C's own element), as the kernel wrote it. */\n"
                         "struct %s {\n",
                         zKernel, pE->zName);
  for (int i = 0; rc >= 0 && i < pE->nP; i++) {
    CXCursor prm = ks_rw_param_at(kernel, pE->aiP[i]);
    CXString t = clang_getTypeSpelling(clang_getCursorType(prm)), n = clang_getCursorSpelling(prm);
    rc = ks_buf_printf(pB, "  %s %s;\n", clang_getCString(t), clang_getCString(n));
    clang_disposeString(t);
    clang_disposeString(n);
  }
  if (rc >= 0)
    rc = ks_buf_printf(pB, "  __device__ __forceinline__ float operator()(float %s, %s %s, %s %s, const float *) const {\n",
                       pG->zAccName, pG->zRowType, pG->zRowName, pG->zColType, pG->zColName);
  for (const char *z = pG->zEpilogue; rc >= 0 && z && *z;) {
    const char *zNl = strchr(z, '\n');
    int n = zNl ? (int)(zNl - z) : (int)strlen(z);
    rc = ks_buf_printf(pB, "    %.*s\n", n, z);
    z += n + (zNl != NULL);
  }
  if (rc >= 0)
    rc = ks_buf_printf(pB, "    (void)%s, (void)%s;\n    return %s;\n  }\n};\n\n", pG->zRowName, pG->zColName,
                       pG->zStore);
  return rc;
}

/* The launch's checks: a statement of its own (the replacement is a block),
 * one argument per parameter, no argument or stream evaluated for an effect. */
static int ts_check_launch(ks_rewrite *p, const ks_launch *pL, CXCursor kernel, const char *zKernel,
                           const ks_gemm_match *pG, const ts_epi *pE) {
  ks_tu *pTu = ks_rewrite_tu(p);
  unsigned iSemi;
  int rc = ks_rw_launch_stmt_end(p, pL, zKernel, "cannot make it the fallback of the TF32 GEMM call", &iSemi);
  if (rc < 0) return rc;
  rc = ks_rw_launch_arity(p, pL, kernel, zKernel);
  if (rc < 0) return rc;
  /* the arguments the call passes: the GEMM's, then the functor's members */
  int aiUsed[9 + TS_MAXP] = {pG->iM, pG->iN, pG->iK, pG->iA, pG->iX, pG->iB, pG->iY, pG->iC, pG->iZ}, nUsed = 9;
  for (int i = 0; i < pE->nP; i++) aiUsed[nUsed++] = pE->aiP[i];
  for (int i = 0; i < nUsed; i++) {
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
static int ts_rewrite_launch(ks_rewrite *p, const ks_launch *pL, const ks_gemm_match *pG, const ts_epi *pE) {
  ks_tu *pTu = ks_rewrite_tu(p);
  ks_buf text = KS_BUF_INIT, epi = KS_BUF_INIT;
  unsigned iSemi = pL->iEnd;
  while (iSemi < pTu->nSrc && pTu->zSrc[iSemi] != ';') iSemi++;
  unsigned nIndent = 0;
  unsigned iLine0 = ks_rewrite_line_start(p, pL->iStart, &nIndent);
  char zI[64];
  snprintf(zI, sizeof zI, "%.*s", (int)(nIndent < 60 ? nIndent : 60), pTu->zSrc + iLine0);
  char **a = pL->azArg;
  /* the functor's members from the launch's arguments, in its member order */
  int rc = pG->zStore ? ks_buf_printf(&epi, "%s{", pE->zName) : ks_buf_printf(&epi, "ks_gemm_sm90::epi_store{");
  for (int i = 0; rc >= 0 && i < pE->nP; i++) rc = ks_buf_printf(&epi, "%s(%s)", i ? ", " : "", a[pE->aiP[i]]);
  if (rc >= 0) rc = ks_buf_printf(&epi, "}");
  if (rc >= 0)
    rc = ks_buf_printf(&text,
                         "{\n"
                         "%s  /* TF32 on sm_90a tensor cores; declined (not sm_90a, not compute capability 9.0, an\n"
                         "%s     error): the original kernel. */\n"
                         "%s  if (" TS_ENTRY "%s((%s), (%s), (%s), (%s), (%s), (%s), (%s), (%s), (%s),\n"
                         "%s                              %s, %s) != cudaSuccess)\n"
                         "%s    %.*s;\n"
                         "%s}",
                         zI, zI, zI, pG->bBTrans ? "_nt" : "", a[pG->iM], a[pG->iN], a[pG->iK], a[pG->iA], a[pG->iX],
                         a[pG->iB], a[pG->iY], a[pG->iC], a[pG->iZ], zI, epi.z, pL->azCfg[3] ? pL->azCfg[3] : "0", zI,
                         (int)(pL->iEnd - pL->iStart), pTu->zSrc + pL->iStart, zI);
  if (rc >= 0) rc = ks_rewrite_replace(p, pL->iStart, iSemi + 1, text.z);
  ks_buf note = KS_BUF_INIT;
  if (rc >= 0)
    rc = ks_buf_printf(&note,
                       "ks_gemm_sm90::gemm_tf32 computes in TF32 on sm_90 tensor cores (TMA + wgmma, sm_90a; "
                       "operands rounded to TF32, FP32 sums: not bitwise the original, within the task's "
                       "tolerance only), original launch as fallback%s%s",
                       pG->bBTrans ? "; B given N x K (gemm_tf32_nt: no transpose)" : "",
                       pG->zStore ? "; the kernel's epilogue as a functor" : "");
  if (rc >= 0) rc = ks_rewrite_note(p, pL->iStart, note.z);
  ks_buf_free(&note);
  ks_buf_free(&text);
  ks_buf_free(&epi);
  return rc;
}

/* The shipped header once, at file scope above the kernel or the first
 * function launching it, whichever comes first; -arch=sm_90a recorded. */
static int ts_header(ks_rewrite *p, const ks_gemm_match *pG, const ks_launch *aL, int nL, CXCursor kernel,
                     const char *zKernel, const ts_epi *pE) {
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
  /* the epilogue's functor below the header: file scope, above every launch */
  if (rc >= 0 && pG->zStore) rc = ts_epi_struct(pG, kernel, zKernel, pE, &ins);
  if (rc >= 0 && ins.n) rc = ks_rewrite_replace(p, iTop, iTop, ins.z);
  ks_buf_free(&ins);
  if (rc >= 0) rc = ks_rule_nvcc_flags_add(p, "-arch=sm_90a", &bChanged);
  return rc;
}

static int apply_gemm_tf32_sm90(ks_rewrite *p) {
  ks_tu *pTu = ks_rewrite_tu(p);
  const char *zKernel = ks_rewrite_kernel_name(p);
  ks_gemm_match g;
  ts_epi epi;
  ks_launch *aL = NULL;
  int nL = 0, nTodo = 0, rc;
  memset(&g, 0, sizeof g);
  memset(&epi, 0, sizeof epi);
  if ((rc = ks_ast_launches(pTu, zKernel, &aL, &nL)) < 0) return rc;
  for (int i = 0; i < nL; i++) nTodo += !ts_wrapped(pTu, &aL[i]);
  if (nL > 0 && nTodo == 0) {
    rc = ks_rewrite_already(p, "%s:%u: the launch of '%s' is already the fallback of ks_gemm_sm90::gemm_tf32",
                            pTu->zFile, aL[0].iLine, zKernel);
    goto done;
  }
  /* B given transposed (nn.Linear's weight) and an epilogue, C read at the
   * output's own element included (beta * C) */
  if ((rc = ks_rule_gemm_match_ex(p, KS_GEMM_ACCEPT_LINEAR | KS_GEMM_ACCEPT_OWN_C, &g)) < 0) goto done;
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
  if (g.zStore) ts_epi_params(&g, zKernel, &epi);
  for (int i = 0; i < nL; i++)
    if (!ts_wrapped(pTu, &aL[i]) && (rc = ts_check_launch(p, &aL[i], kernel, zKernel, &g, &epi)) < 0) goto done;
  for (int i = 0; i < nL; i++)
    if (!ts_wrapped(pTu, &aL[i]) && (rc = ts_rewrite_launch(p, &aL[i], &g, &epi)) < 0) goto done;
  rc = ts_header(p, &g, aL, nL, kernel, zKernel, &epi);
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
