/* grid-stride.c — rule `grid-stride`: a pointwise kernel (one guarded element
 * per thread) becomes a grid-stride loop, and its launch sites cap the grid at
 * blocks_per_sm times the SM count (read once at run time), so huge inputs run
 * in full waves instead of millions of short-lived blocks. */
#include "rewrite/rwutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const azParams[] = {"blocks_per_sm", 0};

static const char zHelperName[] = "ks_grid_stride_cap";

/* Is the helper already defined at file scope (an earlier kernel got it)? */
static enum CXChildVisitResult find_helper(CXCursor c, CXCursor parent, CXClientData pData) {
  (void)parent;
  if (clang_getCursorKind(c) == CXCursor_FunctionDecl && clang_Location_isFromMainFile(clang_getCursorLocation(c))) {
    CXString s = clang_getCursorSpelling(c);
    if (strcmp(clang_getCString(s), zHelperName) == 0) *(int *)pData = 1;
    clang_disposeString(s);
  }
  return CXChildVisit_Continue;
}

static int apply(ks_rewrite *p) {
  ks_tu *pTu = ks_rewrite_tu(p);
  const char *zKernel = ks_rewrite_kernel_name(p);
  CXCursor k;
  ks_rw_pointwise pw;
  ks_launch *aL = NULL;
  int nL = 0, rc;
  long nPerSm = 0;
  char *zNote = NULL;
  ks_buf b = KS_BUF_INIT;
  unsigned iStart, iEnd;
  memset(&pw, 0, sizeof pw);
  if ((rc = ks_rw_int_param(p, "grid-stride", "blocks_per_sm", "8", 1, 64, &nPerSm)) < 0) return rc;
  if ((rc = ks_rw_pointwise_kernel(p, "the kernel is already a grid-stride loop", &k, &pw)) < 0) goto done;
  ks_ast_extent(pTu, k, &iStart, &iEnd);
  if ((rc = ks_ast_launches(pTu, zKernel, &aL, &nL)) < 0) goto done;
  if (nL == 0) {
    rc = ks_rewrite_refuse(p, "no launch site of the kernel in this file (the grid must be capped where it is launched)");
    goto done;
  }
  /* The loop covers [0, N) whatever the grid; the original covered
   * min(N, grid * block). They agree only when the grid covers N. */
  for (int i = 0; i < nL; i++) {
    ks_rw_cover cov;
    int bCover = ks_rw_launch_covers(pTu, k, &pw, &aL[i], &cov);
    ks_rw_cover_free(&cov);
    if (!bCover) {
      rc = ks_rewrite_refuse(p, "%s:%u: cannot tell that the grid '%s' covers the guard's bound '%s' (expected (N + B - 1) / B)",
                             pTu->zFile, aL[i].iLine, aL[i].azCfg[0] ? aL[i].azCfg[0] : "?", pw.zBound);
      goto done;
    }
    if (aL[i].iStart < iEnd) {
      rc = ks_rewrite_refuse(p, "%s:%u: the launch comes before the kernel's definition", pTu->zFile, aL[i].iLine);
      goto done;
    }
  }

  /* The kernel: `T i = ...; if (i < N) {` -> `for (...) { T i = (T)ks_i;`. */
  unsigned nIndent = 0;
  unsigned iLine = ks_rewrite_line_start(p, pw.iHeadStart, &nIndent);
  const char *zSrc = ks_rewrite_source(p, NULL);
  ks_buf_printf(&b,
                "for (long long ks_i = (long long)blockIdx.x * blockDim.x + threadIdx.x; ks_i < (long long)(%s);\n"
                "%.*s     ks_i += (long long)blockDim.x * gridDim.x) {\n"
                "%.*s  %s %s = (%s)ks_i;",
                pw.zBound, (int)nIndent, zSrc + iLine, (int)nIndent, zSrc + iLine, pw.zIdxType, pw.zIdx, pw.zIdxType);
  if (pw.iBodyStart == pw.iHeadEnd && !pw.bEarlyReturn && zSrc[pw.iHeadEnd - 1] == '{') {
    /* braced body: the brace we replaced is re-opened in the text above */
  } else {
    ks_buf_printf(&b, "\n%.*s%s", (int)nIndent, zSrc + iLine, pw.bEarlyReturn ? "" : "  ");
  }
  if ((rc = ks_rewrite_replace(p, pw.iHeadStart, pw.iBodyStart, ks_buf_cstr(&b))) < 0) goto done;
  if (!(zSrc[pw.iHeadEnd - 1] == '{' && !pw.bEarlyReturn)) {
    ks_buf_clear(&b);
    ks_buf_printf(&b, "\n%.*s}", (int)nIndent, zSrc + iLine);
    if ((rc = ks_rewrite_replace(p, pw.iBodyEnd, pw.iBodyEnd, ks_buf_cstr(&b))) < 0) goto done;
  }
  ks_buf_clear(&b);
  ks_buf_printf(&b, "grid-stride loop over [0, %s); launch grid capped at %ld blocks per SM", pw.zBound, nPerSm);
  if ((rc = ks_rewrite_note(p, pw.iHeadStart, ks_buf_cstr(&b))) < 0) goto done;

  /* The host helper, once per file, above the kernel. */
  int bHave = 0;
  clang_visitChildren(clang_getTranslationUnitCursor(pTu->pTu), find_helper, &bHave);
  if (!bHave) {
    zNote = ks_rewrite_note_text(p, "grid cap: blocks_per_sm x the device's SM count");
    ks_buf_clear(&b);
    ks_buf_printf(&b,
                  "%s\n"
                  "static inline unsigned int %s(unsigned long long nBlocks, int nPerSm) {\n"
                  "  static int nSm = 0;\n"
                  "  if (nSm <= 0) {\n"
                  "    int iDev = 0;\n"
                  "    if (cudaGetDevice(&iDev) != cudaSuccess ||\n"
                  "        cudaDeviceGetAttribute(&nSm, cudaDevAttrMultiProcessorCount, iDev) != cudaSuccess || nSm <= 0)\n"
                  "      nSm = 1;\n"
                  "  }\n"
                  "  unsigned long long nCap = (unsigned long long)nSm * (unsigned long long)nPerSm;\n"
                  "  return (unsigned int)(nBlocks < nCap ? nBlocks : nCap);\n"
                  "}\n\n",
                  zNote, zHelperName);
    unsigned iKLine = ks_rewrite_line_start(p, iStart, NULL);
    if ((rc = ks_rewrite_replace(p, iKLine, iKLine, ks_buf_cstr(&b))) < 0) goto done;
  }
  for (int i = 0; i < nL; i++) {
    unsigned gs, ge;
    if (ks_rw_cfg_slot(pTu, &aL[i], 0, &gs, &ge) < 0) continue;
    ks_buf_clear(&b);
    ks_buf_printf(&b, "%s(%.*s, %ld)", zHelperName, (int)(ge - gs), zSrc + gs, nPerSm);
    if ((rc = ks_rewrite_replace(p, gs, ge, ks_buf_cstr(&b))) < 0) goto done;
    if ((rc = ks_rewrite_note(p, aL[i].iStart, "grid capped for the grid-stride loop")) < 0) goto done;
  }
done:
  free(zNote);
  ks_buf_free(&b);
  ks_rw_pointwise_free(&pw);
  ks_ast_launches_free(aL, nL);
  return rc;
}

const ks_rule ks_rule_grid_stride = {
    "grid-stride", "pointwise kernel -> grid-stride loop; launch grid capped at blocks_per_sm x SM count", azParams,
    apply};
