/* launch-bounds.c — rule `launch-bounds`: add __launch_bounds__(B[, minBlocks])
 * to a kernel, B being the constant block size every launch site in the file
 * uses, so that ptxas can budget registers for exactly that block size.
 * max_regs=R asks for R registers a thread instead of naming minBlocks: the
 * blocks of B threads that R registers let an SM's 65536 hold (what a
 * profile's register count argues for; min_blocks is in blocks, which
 * depend on B). */
#include "rewrite/rwutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const azParams[] = {"threads", "min_blocks", "max_regs", 0};

static int parse_count(const char *z, long long *pn) {
  char *zEnd;
  long long v = strtoll(z, &zEnd, 10);
  if (!z[0] || *zEnd || v <= 0) return -1;
  *pn = v;
  return 0;
}

static int apply(ks_rewrite *p) {
  ks_tu *pTu = ks_rewrite_tu(p);
  const char *zKernel = ks_rewrite_kernel_name(p);
  CXCursor k = ks_ast_find_kernel(pTu, zKernel);
  ks_launch *aL = NULL;
  int nL = 0, rc;
  long long nThreads = 0, nMin = 0;
  unsigned iStart, iEnd;
  if (ks_ast_extent(pTu, k, &iStart, &iEnd) < 0) return ks_rewrite_refuse(p, "the kernel is not in the main file");
  const char *zMin = ks_rewrite_param(p, "min_blocks", NULL), *zRegs = ks_rewrite_param(p, "max_regs", NULL);
  long long nRegs = 0;
  if (zMin && parse_count(zMin, &nMin) < 0)
    return ks_error_set(KS_EUSAGE, "rule launch-bounds: min_blocks must be a positive integer, not '%s'", zMin);
  if (zRegs && (parse_count(zRegs, &nRegs) < 0 || nRegs < 16 || nRegs > 255))
    return ks_error_set(KS_EUSAGE, "rule launch-bounds: max_regs must be 16..255, not '%s'", zRegs);
  if (zMin && zRegs) return ks_error_set(KS_EUSAGE, "rule launch-bounds: give min_blocks or max_regs, not both");

  /* The header: from the kernel's first token to its body. */
  CXCursor body = ks_rw_body(k);
  unsigned iBody = iEnd, iBodyEnd;
  if (!clang_Cursor_isNull(body)) ks_ast_extent(pTu, body, &iBody, &iBodyEnd);
  if (ks_rw_has_word(pTu, iStart, iBody, "__launch_bounds__") || ks_rw_has_word(pTu, iStart, iBody, "launch_bounds")) {
    if (ks_rewrite_has_note(p, iStart, iBody, NULL))
      return ks_rewrite_already(p, "the kernel already has __launch_bounds__ from this rule");
    return ks_rewrite_refuse(p, "the kernel already declares __launch_bounds__");
  }

  /* The bound is taken from the launches: a use it cannot see could exceed it. */
  if ((rc = ks_rw_launch_contract(p, zKernel)) < 0) return rc;
  if ((rc = ks_ast_launches(pTu, zKernel, &aL, &nL)) < 0) return rc;
  for (int i = 0; i < nL; i++) {
    long long n = 0;
    if (!ks_rw_launch_block_scalar(pTu, &aL[i], &n) || n <= 0) {
      /* dim3 blocks are fine too when constant: the bound is the product. */
      n = aL[i].nBlockThreads;
    }
    if (n <= 0) {
      rc = ks_rewrite_refuse(p, "%s:%u: the block size '%s' is not a compile-time constant", pTu->zFile, aL[i].iLine,
                             aL[i].azCfg[1] ? aL[i].azCfg[1] : "?");
      goto done;
    }
    if (nThreads && n != nThreads) {
      rc = ks_rewrite_refuse(p, "%s:%u: launch sites use different block sizes (%lld and %lld)", pTu->zFile,
                             aL[i].iLine, nThreads, n);
      goto done;
    }
    nThreads = n;
  }
  const char *zThreads = ks_rewrite_param(p, "threads", NULL);
  if (zThreads) {
    long long n;
    if (parse_count(zThreads, &n) < 0 || n > 1024) {
      rc = ks_error_set(KS_EUSAGE, "rule launch-bounds: threads must be 1..1024, not '%s'", zThreads);
      goto done;
    }
    /* A bound below what a launch asks for makes that launch fail. */
    if (nThreads && n < nThreads) {
      rc = ks_rewrite_refuse(p, "threads=%lld is below the block size %lld the launch sites use", n, nThreads);
      goto done;
    }
    nThreads = n;
  }
  if (nThreads <= 0) {
    rc = ks_rewrite_refuse(p, "no launch site of the kernel in this file gives the block size (pass threads=N)");
    goto done;
  }
  if (nThreads > 1024) {
    rc = ks_rewrite_refuse(p, "block size %lld exceeds 1024", nThreads);
    goto done;
  }
  long iName = ks_ast_offset(pTu, clang_getCursorLocation(k));
  if (iName < 0 || (unsigned)iName < iStart || (unsigned)iName >= iBody) {
    rc = ks_rewrite_refuse(p, "the kernel's name is written through a macro; cannot place the attribute");
    goto done;
  }
  char zAttr[96], zWhat[160];
  if (nRegs) { /* whole blocks of nThreads within 65536 registers at nRegs a thread */
    nMin = 65536 / (nRegs * nThreads);
    if (nMin < 1) {
      rc = ks_rewrite_refuse(p, "max_regs=%lld: one block of %lld threads already needs more than an SM's 65536 "
                                "registers",
                             nRegs, nThreads);
      goto done;
    }
  }
  if (nMin && nRegs) {
    snprintf(zAttr, sizeof zAttr, "__launch_bounds__(%lld, %lld) ", nThreads, nMin);
    snprintf(zWhat, sizeof zWhat,
             "__launch_bounds__(%lld, %lld) for the launch's block size: %lld blocks of %lld threads in 65536 "
             "registers, at most %lld registers a thread",
             nThreads, nMin, nMin, nThreads, 65536 / (nMin * nThreads) > 255 ? 255 : 65536 / (nMin * nThreads));
  } else if (nMin) {
    snprintf(zAttr, sizeof zAttr, "__launch_bounds__(%lld, %lld) ", nThreads, nMin);
    snprintf(zWhat, sizeof zWhat, "__launch_bounds__(%lld, %lld) for the launch's block size", nThreads, nMin);
  } else {
    snprintf(zAttr, sizeof zAttr, "__launch_bounds__(%lld) ", nThreads);
    snprintf(zWhat, sizeof zWhat, "__launch_bounds__(%lld) for the launch's block size", nThreads);
  }
  if ((rc = ks_rewrite_replace(p, (unsigned)iName, (unsigned)iName, zAttr)) < 0) goto done;
  rc = ks_rewrite_note(p, iStart, zWhat);
done:
  ks_ast_launches_free(aL, nL);
  return rc;
}

const ks_rule ks_rule_launch_bounds = {
    "launch-bounds",
    "__launch_bounds__(B[, minBlocks]) matching the launch sites' constant block size (max_regs=R: the minBlocks "
    "that R registers a thread allow)",
    azParams, apply};
