/* block-size.c — rule `block-size`: launch a pointwise kernel with threads=
 * threads per block, the grid recomputed as (N + threads - 1) / threads so the
 * guarded range stays covered exactly as before. */
#include "rewrite/rwutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const azParams[] = {"threads", 0};

static int apply(ks_rewrite *p) {
  ks_tu *pTu = ks_rewrite_tu(p);
  const char *zKernel = ks_rewrite_kernel_name(p);
  CXCursor k = ks_ast_find_kernel(pTu, zKernel);
  ks_rw_pointwise pw;
  ks_launch *aL = NULL;
  int nL = 0, rc = KS_OK;
  long nT = 0;
  ks_buf b = KS_BUF_INIT;
  unsigned iStart, iEnd;
  memset(&pw, 0, sizeof pw);
  rc = ks_rw_int_param(p, "block-size", "threads", NULL, 32, 1024, &nT);
  if (rc < 0 && !ks_rewrite_param(p, "threads", NULL)) return rc;
  if (rc < 0 || nT % 32 != 0)
    return ks_error_set(KS_EUSAGE, "rule block-size: threads must be a multiple of 32 in 32..1024, not '%s'",
                        ks_rewrite_param(p, "threads", ""));
  if (ks_ast_extent(pTu, k, &iStart, &iEnd) < 0) return ks_rewrite_refuse(p, "the kernel is not in the main file");
  CXCursor body = ks_rw_body(k);
  unsigned iBody = iEnd, iBodyEnd;
  if (!clang_Cursor_isNull(body)) ks_ast_extent(pTu, body, &iBody, &iBodyEnd);
  if (ks_rw_has_word(pTu, iStart, iBody, "__launch_bounds__")) {
    rc = ks_rewrite_refuse(p, "the kernel declares __launch_bounds__; a new block size must be checked against it first");
    goto done;
  }
  /* The kernel must not care about the block size: the pointwise shape. */
  if ((rc = ks_rw_pointwise_kernel(p, NULL, &k, &pw)) < 0) goto done;
  if ((rc = ks_rw_launch_contract(p, zKernel)) < 0) goto done;
  if ((rc = ks_ast_launches(pTu, zKernel, &aL, &nL)) < 0) goto done;
  if (nL == 0) {
    rc = ks_rewrite_refuse(p, "no launch site of the kernel in this file");
    goto done;
  }
  int nSame = 0;
  for (int i = 0; i < nL; i++) {
    long long nOld = 0;
    if (!ks_rw_launch_block_scalar(pTu, &aL[i], &nOld)) {
      rc = ks_rewrite_refuse(p, "%s:%u: the block '%s' is not a scalar", pTu->zFile, aL[i].iLine,
                             aL[i].azCfg[1] ? aL[i].azCfg[1] : "?");
      goto done;
    }
    if (nOld == nT) nSame++;
  }
  if (nSame == nL) {
    rc = ks_rewrite_already(p, "every launch already uses %ld threads per block", nT);
    goto done;
  }
  for (int i = 0; i < nL; i++) {
    ks_rw_cover cov;
    long long nOld = 0;
    ks_rw_launch_block_scalar(pTu, &aL[i], &nOld);
    if (nOld == nT) continue;
    if (!ks_rw_launch_covers(pTu, k, &pw, &aL[i], &cov)) {
      rc = ks_rewrite_refuse(p, "%s:%u: cannot tell that the grid '%s' covers the guard's bound '%s' (expected (N + B - 1) / B)",
                             pTu->zFile, aL[i].iLine, aL[i].azCfg[0] ? aL[i].azCfg[0] : "?", pw.zBound);
      goto done;
    }
    unsigned gs, ge, bs, be;
    ks_rw_cfg_slot(pTu, &aL[i], 0, &gs, &ge);
    ks_rw_cfg_slot(pTu, &aL[i], 1, &bs, &be);
    char *zNp = ks_rw_paren(cov.zN);
    ks_buf_clear(&b);
    ks_buf_printf(&b, "(%s + %ld - 1) / %ld", zNp, nT, nT);
    free(zNp);
    char *zGrid = ks_rw_cover_grid(&cov, ks_buf_cstr(&b));
    ks_rw_cover_free(&cov);
    rc = zGrid ? ks_rewrite_replace(p, gs, ge, zGrid) : ks_error_set(KS_ENOMEM, "out of memory");
    free(zGrid);
    if (rc < 0) goto done;
    ks_buf_clear(&b);
    ks_buf_printf(&b, "%ld", nT);
    if ((rc = ks_rewrite_replace(p, bs, be, ks_buf_cstr(&b))) < 0) goto done;
    ks_buf_clear(&b);
    ks_buf_printf(&b, "block size %lld -> %ld, grid recomputed", nOld, nT);
    if ((rc = ks_rewrite_note(p, aL[i].iStart, ks_buf_cstr(&b))) < 0) goto done;
  }
done:
  ks_buf_free(&b);
  ks_rw_pointwise_free(&pw);
  ks_ast_launches_free(aL, nL);
  return rc;
}

const ks_rule ks_rule_block_size = {"block-size", "launch a pointwise kernel with threads= per block, grid recomputed",
                                    azParams, apply};
