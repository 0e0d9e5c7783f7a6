/* library-gemm.c — rule `library-gemm`: where the task allows cuBLAS, each
 * launch of a naive GEMM kernel (the same matcher as smem-tile-gemm) becomes a
 * cublasSgemm / cublasDgemm call with row-major handled by operand order
 * (row-major C = A*B is column-major C^T = B^T * A^T), keeping the original
 * launch as the fallback when cuBLAS is unavailable or refuses the shape.
 * Adds `#include <cublas_v2.h>` and records -lcublas in the kernelskill-flags
 * line. The caller (the planner) applies it only to tasks whose "libraries"
 * list cuBLAS (docs/rules/library-gemm.md). */
#include "features/ast.h"
#include "kernelskill/rewrite.h"
#include "gemm_match.h"
#include "rewrite/rwutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Find the function definition holding [iStart, iEnd) and whether that range
 * is a whole statement of a block in it. */
typedef struct host_find {
  ks_tu *pTu;
  unsigned iStart, iEnd;
  CXCursor fn;
  int bStmt;
} host_find;

static enum CXChildVisitResult find_stmt(CXCursor c, CXCursor parent, CXClientData d) {
  host_find *pH = d;
  unsigned s, e;
  if (clang_getCursorKind(parent) == CXCursor_CompoundStmt && ks_ast_extent(pH->pTu, c, &s, &e) == 0 &&
      s == pH->iStart && e == pH->iEnd) {
    pH->bStmt = 1;
    return CXChildVisit_Break;
  }
  return CXChildVisit_Recurse;
}

static enum CXChildVisitResult find_fn(CXCursor c, CXCursor parent, CXClientData d) {
  (void)parent;
  host_find *pH = d;
  enum CXCursorKind e = clang_getCursorKind(c);
  if (!ks_ast_in_main_file(c)) return CXChildVisit_Continue;
  if (e == CXCursor_Namespace || e == CXCursor_LinkageSpec || e == CXCursor_UnexposedDecl) return CXChildVisit_Recurse;
  if ((e == CXCursor_FunctionDecl || e == CXCursor_CXXMethod) && clang_isCursorDefinition(c)) {
    unsigned s, t;
    if (ks_ast_extent(pH->pTu, c, &s, &t) == 0 && s <= pH->iStart && pH->iEnd <= t) {
      pH->fn = c;
      clang_visitChildren(c, find_stmt, pH);
      return CXChildVisit_Break;
    }
  }
  return CXChildVisit_Continue;
}

static int apply_library_gemm(ks_rewrite *p) {
  ks_tu *pTu = ks_rewrite_tu(p);
  const char *zKernel = ks_rewrite_kernel_name(p);
  ks_gemm_match g;
  ks_launch *aL = NULL;
  int nL = 0, rc, bFlag = 0;
  ks_buf text = KS_BUF_INIT, note = KS_BUF_INIT;
  memset(&g, 0, sizeof g);
  if ((rc = ks_ast_launches(pTu, zKernel, &aL, &nL)) < 0) return rc;
  for (int i = 0; i < nL; i++) {
    host_find h = {pTu, aL[i].iStart, aL[i].iEnd, clang_getNullCursor(), 0};
    clang_visitChildren(clang_getTranslationUnitCursor(pTu->pTu), find_fn, &h);
    unsigned s, e;
    if (!clang_Cursor_isNull(h.fn) && ks_ast_extent(pTu, h.fn, &s, &e) == 0 &&
        ks_rewrite_has_note(p, s, e, NULL)) {
      rc = ks_rewrite_already(p, "%s:%u: the launch of '%s' is already a cuBLAS call", pTu->zFile, aL[i].iLine, zKernel);
      goto done;
    }
  }
  if ((rc = ks_rule_gemm_match(p, &g)) < 0) goto done;
  if (nL == 0) {
    rc = ks_rewrite_refuse(p, "no launch of '%s' in this file to replace by a cuBLAS call", zKernel);
    goto done;
  }
  if (g.iM < 0 || g.iN < 0 || g.iK < 0 || g.iX < 0 || g.iY < 0 || g.iZ < 0) {
    rc = ks_rewrite_refuse(p, "sizes and strides of '%s' are not each one parameter; cannot map them to the cuBLAS call",
                           zKernel);
    goto done;
  }
  CXCursor kernel = ks_ast_find_kernel(pTu, zKernel);
  int nParam = clang_Cursor_getNumArguments(kernel);
  for (int i = 0; i < nL; i++) {
    ks_launch *pL = &aL[i];
    host_find h = {pTu, pL->iStart, pL->iEnd, clang_getNullCursor(), 0};
    clang_visitChildren(clang_getTranslationUnitCursor(pTu->pTu), find_fn, &h);
    unsigned iSemi = pL->iEnd;
    while (iSemi < pTu->nSrc && (pTu->zSrc[iSemi] == ' ' || pTu->zSrc[iSemi] == '\t')) iSemi++;
    if (!h.bStmt || iSemi >= pTu->nSrc || pTu->zSrc[iSemi] != ';') {
      rc = ks_rewrite_refuse(p, "%s:%u: the launch of '%s' is not a statement of its own in a block", pTu->zFile,
                             pL->iLine, zKernel);
      goto done;
    }
    if (pL->nArgs != nParam) {
      rc = ks_rewrite_refuse(p, "%s:%u: launch of '%s' passes %d arguments for %d parameters", pTu->zFile, pL->iLine,
                             zKernel, pL->nArgs, nParam);
      goto done;
    }
    unsigned nIndent = 0;
    unsigned iLine0 = ks_rewrite_line_start(p, pL->iStart, &nIndent);
    char zI[64];
    snprintf(zI, sizeof zI, "%.*s", (int)(nIndent < 60 ? nIndent : 60), pTu->zSrc + iLine0);
    const char *zT = g.bDouble ? "double" : "float", *zOne = g.bDouble ? "1.0" : "1.0f",
               *zZero = g.bDouble ? "0.0" : "0.0f", *zFn = g.bDouble ? "cublasDgemm" : "cublasSgemm";
    char **a = pL->azArg;
    ks_buf_clear(&text);
    rc = ks_buf_printf(&text,
        "{\n"
        "%s  static cublasHandle_t ks_cublas = nullptr;\n"
        "%s  static const bool ks_cublas_ok = cublasCreate(&ks_cublas) == CUBLAS_STATUS_SUCCESS;\n"
        "%s  const %s ks_alpha = %s, ks_beta = %s;\n"
        "%s  /* Row-major C = A*B is column-major C^T = B^T*A^T: B first. Empty or invalid\n"
        "%s     shapes, or cuBLAS unavailable: the original kernel. */\n"
        "%s  if (!ks_cublas_ok || !((%s) > 0 && (%s) > 0 && (%s) > 0) ||\n"
        "%s      cublasSetStream(ks_cublas, %s) != CUBLAS_STATUS_SUCCESS ||\n"
        "%s      %s(ks_cublas, CUBLAS_OP_N, CUBLAS_OP_N, (%s), (%s), (%s), &ks_alpha, (%s), (%s), (%s), (%s), &ks_beta,\n"
        "%s                  (%s), (%s)) != CUBLAS_STATUS_SUCCESS)\n"
        "%s    %.*s;\n"
        "%s}",
        zI, zI, zI, zT, zOne, zZero, zI, zI, zI, a[g.iM], a[g.iN], a[g.iK], zI, pL->azCfg[3] ? pL->azCfg[3] : "0", zI,
        zFn, a[g.iN], a[g.iM], a[g.iK], a[g.iB], a[g.iY], a[g.iA], a[g.iX], zI, a[g.iC], a[g.iZ], zI,
        (int)(pL->iEnd - pL->iStart), pTu->zSrc + pL->iStart, zI);
    if (rc < 0) goto done;
    if ((rc = ks_rewrite_replace(p, pL->iStart, iSemi + 1, text.z)) < 0) goto done;
    ks_buf_clear(&note);
    if ((rc = ks_buf_printf(&note, "%s (row-major via operand order), original launch as fallback", zFn)) < 0) goto done;
    if ((rc = ks_rewrite_note(p, pL->iStart, note.z)) < 0) goto done;
  }
  /* The header and the link flag. */
  int bHave = 0;
  unsigned iAt = ks_rw_include_point(p, "cublas_v2.h", &bHave);
  if (!bHave) {
    if ((rc = ks_rewrite_replace(p, iAt, iAt, "#include <cublas_v2.h>\n")) < 0) goto done;
    if ((rc = ks_rewrite_note(p, (unsigned)iAt, "cuBLAS header")) < 0) goto done;
  }
  if ((rc = ks_rule_nvcc_flags_add(p, "-lcublas", &bFlag)) < 0) goto done;
done:
  ks_rule_gemm_match_free(&g);
  ks_ast_launches_free(aL, nL);
  ks_buf_free(&text);
  ks_buf_free(&note);
  return rc;
}

const ks_rule ks_rule_library_gemm = {"library-gemm",
                                      "naive GEMM launch to a cuBLAS call (row-major by operand order; -lcublas "
                                      "recorded); only where the task allows cuBLAS",
                                      NULL, apply_library_gemm};
