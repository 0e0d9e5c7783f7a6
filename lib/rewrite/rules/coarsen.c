/* coarsen.c — rule `coarsen`: a pointwise kernel processes `factor` elements
 * per thread (block-strided, so each step stays coalesced), and its launch
 * sites launch factor times fewer blocks. */
#include "rewrite/rwutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const azParams[] = {"factor", 0};

static int apply(ks_rewrite *p) {
  ks_tu *pTu = ks_rewrite_tu(p);
  const char *zKernel = ks_rewrite_kernel_name(p);
  CXCursor k = ks_ast_find_kernel(pTu, zKernel);
  ks_rw_pointwise pw;
  ks_launch *aL = NULL;
  int nL = 0, rc = KS_OK;
  char *zWhy = NULL;
  ks_rw_cover *aCov = NULL;
  ks_buf b = KS_BUF_INIT;
  unsigned iStart, iEnd;
  memset(&pw, 0, sizeof pw);
  if (ks_ast_extent(pTu, k, &iStart, &iEnd) < 0) return ks_rewrite_refuse(p, "the kernel is not in the main file");
  if (ks_rewrite_has_note(p, iStart, iEnd, NULL)) return ks_rewrite_already(p, "the kernel is already coarsened");
  const char *zF = ks_rewrite_param(p, "factor", "4");
  char *zEndNum;
  long nF = strtol(zF, &zEndNum, 10);
  if (!zF[0] || *zEndNum || nF < 2 || nF > 16)
    return ks_error_set(KS_EUSAGE, "rule coarsen: factor must be 2..16, not '%s'", zF);

  if (ks_rw_pointwise_match(pTu, k, &pw, &zWhy) < 0) {
    rc = ks_rewrite_refuse(p, "not a pointwise kernel: %s", zWhy);
    goto done;
  }
  if ((rc = ks_rw_covered_launches(p, k, &pw, "its grid must shrink with the coarsening", &aL, &nL, &aCov)) < 0) goto done;
  unsigned nIndent = 0;
  unsigned iLine = ks_rewrite_line_start(p, pw.iHeadStart, &nIndent);
  const char *zSrc = ks_rewrite_source(p, NULL);
  int bBraced = !pw.bEarlyReturn && zSrc[pw.iHeadEnd - 1] == '{';
  const char *zIn = zSrc + iLine;
  int nIn = (int)nIndent;
  /* Element j of block b, step k: b * blockDim * F + k * blockDim + thread. */
  ks_buf_printf(&b,
                "const long long ks_base = (long long)blockIdx.x * blockDim.x * %ld + threadIdx.x;\n"
                "%.*s#pragma unroll\n"
                "%.*sfor (int ks_k = 0; ks_k < %ld; ++ks_k) {\n"
                "%.*s  const long long ks_i = ks_base + (long long)ks_k * blockDim.x;\n"
                "%.*s  if (ks_i < (long long)(%s)) {\n"
                "%.*s    %s %s = (%s)ks_i;%s%.*s",
                nF, nIn, zIn, nIn, zIn, nF, nIn, zIn, nIn, zIn, pw.zBound, nIn, zIn, pw.zIdxType, pw.zIdx,
                pw.zIdxType, bBraced ? "" : "\n", bBraced ? 0 : nIn + 4, "                                ");
  if ((rc = ks_rewrite_replace(p, pw.iHeadStart, bBraced ? pw.iHeadEnd : pw.iBodyStart, ks_buf_cstr(&b))) < 0)
    goto done;
  ks_buf_clear(&b);
  if (bBraced) {
    /* the if's closing brace stays; close the loop after it */
    ks_buf_printf(&b, "\n%.*s}", nIn, zIn);
    if ((rc = ks_rewrite_replace(p, pw.iRegionEnd, pw.iRegionEnd, ks_buf_cstr(&b))) < 0) goto done;
  } else {
    ks_buf_printf(&b, "\n%.*s  }\n%.*s}", nIn, zIn, nIn, zIn);
    if ((rc = ks_rewrite_replace(p, pw.iBodyEnd, pw.iBodyEnd, ks_buf_cstr(&b))) < 0) goto done;
  }
  ks_buf_clear(&b);
  ks_buf_printf(&b, "%ld elements per thread, block-strided (coalesced); launch grid / %ld", nF, nF);
  if ((rc = ks_rewrite_note(p, pw.iHeadStart, ks_buf_cstr(&b))) < 0) goto done;
  for (int i = 0; i < nL; i++) {
    unsigned gs, ge;
    if (ks_rw_cfg_slot(pTu, &aL[i], 0, &gs, &ge) < 0) continue;
    char *zN = ks_rw_paren(aCov[i].zN), *zB = ks_rw_paren(aCov[i].zB);
    ks_buf_clear(&b);
    ks_buf_printf(&b, "(%s + %s * %ld - 1) / (%s * %ld)", zN, zB, nF, zB, nF);
    free(zN);
    free(zB);
    char *zGrid = ks_rw_cover_grid(&aCov[i], ks_buf_cstr(&b));
    rc = zGrid ? ks_rewrite_replace(p, gs, ge, zGrid) : ks_error_set(KS_ENOMEM, "out of memory");
    free(zGrid);
    if (rc < 0) goto done;
    ks_buf_clear(&b);
    ks_buf_printf(&b, "grid for %ld elements per thread", nF);
    if ((rc = ks_rewrite_note(p, aL[i].iStart, ks_buf_cstr(&b))) < 0) goto done;
  }
done:
  ks_rw_covers_free(aCov, nL);
  free(zWhy);
  ks_buf_free(&b);
  ks_rw_pointwise_free(&pw);
  ks_ast_launches_free(aL, nL);
  return rc;
}

const ks_rule ks_rule_coarsen = {"coarsen", "pointwise kernel: factor= elements per thread, launch grid divided to match",
                                 azParams, apply};
