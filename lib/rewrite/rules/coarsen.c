/* coarsen.c — rule `coarsen`: a pointwise kernel processes `factor` elements
 * per thread (block-strided, so each step stays coalesced), and its launch
 * sites launch factor times fewer blocks. */
#include "rewrite/rwutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const azParams[] = {"factor", 0};

static int apply(ks_rewrite *p) {
  CXCursor k;
  ks_rw_pointwise pw;
  ks_launch *aL = NULL;
  int nL = 0, rc;
  long nF = 0;
  ks_rw_cover *aCov = NULL;
  ks_buf b = KS_BUF_INIT;
  memset(&pw, 0, sizeof pw);
  if ((rc = ks_rw_int_param(p, "coarsen", "factor", "4", 2, 16, &nF)) < 0) return rc;
  if ((rc = ks_rw_pointwise_kernel(p, "the kernel is already coarsened", &k, &pw)) < 0) goto done;
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
  ks_buf_clear(&b);
  ks_buf_printf(&b, "grid for %ld elements per thread", nF);
  rc = ks_rw_scale_grids(p, aL, nL, aCov, nF, ks_buf_cstr(&b));
done:
  ks_rw_covers_free(aCov, nL);
  ks_buf_free(&b);
  ks_rw_pointwise_free(&pw);
  ks_ast_launches_free(aL, nL);
  return rc;
}

const ks_rule ks_rule_coarsen = {"coarsen", "pointwise kernel: factor= elements per thread, launch grid divided to match",
                                 azParams, apply};
