/* unroll.c — rule `unroll`: `#pragma unroll` above the kernel's innermost for
 * loops whose trip count is a compile-time constant up to max_trip (full
 * unroll), and, with factor=N, `#pragma unroll N` on innermost loops of
 * run-time trip count. A pragma never changes what the loop computes. */
#include "rewrite/rwutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const azParams[] = {"max_trip", "factor", 0};

typedef struct uloop {
  CXCursor c;
  unsigned iStart;
  long long nTrip; /* -1: not constant */
} uloop;

typedef struct uscan {
  uloop *a;
  int n, nAlloc;
  ks_tu *pTu;
} uscan;

static int is_loop(CXCursor c) {
  enum CXCursorKind e = clang_getCursorKind(c);
  return e == CXCursor_ForStmt || e == CXCursor_WhileStmt || e == CXCursor_DoStmt;
}

static int find_inner_loop(CXCursor c, const CXCursor *aAnc, int nAnc, void *pArg) {
  (void)aAnc;
  (void)nAnc;
  *(int *)pArg |= is_loop(c);
  return *(int *)pArg ? -1 : 0;
}

static int eval_int(CXCursor c, long long *pv) { return ks_ast_const_int(c, pv) ? 0 : -1; }

/* for (T v = A; v < B (<=, >, >=, !=); ++v / v++ / v += C / --v / v -= C) */
static long long trip_count(CXCursor loop) {
  CXCursor *a;
  int n;
  long long nTrip = -1;
  ks_rw_children(loop, &a, &n);
  if (n != 4 || clang_getCursorKind(a[0]) != CXCursor_DeclStmt) goto done;
  CXCursor *aD;
  int nD;
  ks_rw_children(a[0], &aD, &nD);
  if (nD != 1 || clang_getCursorKind(aD[0]) != CXCursor_VarDecl) {
    free(aD);
    goto done;
  }
  CXCursor v = aD[0];
  free(aD);
  long long nInit, nBound, nStep = 0;
  if (eval_int(v, &nInit) < 0) goto done;
  CXCursor cond = ks_rw_strip(a[1]);
  if (clang_getCursorKind(cond) != CXCursor_BinaryOperator) goto done;
  enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(cond);
  CXCursor *aC;
  int nC;
  ks_rw_children(cond, &aC, &nC);
  int bOk = nC == 2 && ks_rw_is_ref_to(aC[0], v) && eval_int(aC[1], &nBound) == 0;
  free(aC);
  if (!bOk) goto done;
  CXCursor inc = a[2];
  CXCursor *aI;
  int nI;
  ks_rw_children(inc, &aI, &nI);
  if (clang_getCursorKind(inc) == CXCursor_UnaryOperator && nI == 1 && ks_rw_is_ref_to(aI[0], v)) {
    enum CXUnaryOperatorKind u = clang_getCursorUnaryOperatorKind(inc);
    nStep = (u == CXUnaryOperator_PreInc || u == CXUnaryOperator_PostInc) ? 1
            : (u == CXUnaryOperator_PreDec || u == CXUnaryOperator_PostDec) ? -1 : 0;
  } else if (clang_getCursorKind(inc) == CXCursor_CompoundAssignOperator && nI == 2 && ks_rw_is_ref_to(aI[0], v)) {
    long long c;
    enum CXBinaryOperatorKind o = clang_getCursorBinaryOperatorKind(inc);
    if (eval_int(aI[1], &c) == 0) nStep = o == CXBinaryOperator_AddAssign ? c : o == CXBinaryOperator_SubAssign ? -c : 0;
  }
  free(aI);
  if (nStep > 0 && (op == CXBinaryOperator_LT || op == CXBinaryOperator_LE || op == CXBinaryOperator_NE)) {
    long long nEnd = op == CXBinaryOperator_LE ? nBound + 1 : nBound;
    if (op == CXBinaryOperator_NE && (nEnd - nInit) % nStep != 0) goto done;
    nTrip = nEnd > nInit ? (nEnd - nInit + nStep - 1) / nStep : 0;
  } else if (nStep < 0 && (op == CXBinaryOperator_GT || op == CXBinaryOperator_GE)) {
    long long nEnd = op == CXBinaryOperator_GE ? nBound - 1 : nBound;
    nTrip = nInit > nEnd ? (nInit - nEnd + (-nStep) - 1) / (-nStep) : 0;
  }
done:
  free(a);
  return nTrip;
}

static int collect_loops(CXCursor c, const CXCursor *aAnc, int nAnc, void *pArg) {
  (void)aAnc;
  (void)nAnc;
  uscan *s = pArg;
  if (clang_getCursorKind(c) != CXCursor_ForStmt) return 0;
  CXCursor *a;
  int n;
  ks_rw_children(c, &a, &n);
  int bNested = 0;
  if (n > 0) ks_rw_walk(a[n - 1], find_inner_loop, &bNested);
  if (n > 0 && is_loop(a[n - 1])) bNested = 1;
  free(a);
  if (bNested) return 0; /* only innermost loops */
  unsigned iStart, iEnd;
  if (ks_ast_extent(s->pTu, c, &iStart, &iEnd) < 0) return 1;
  if (s->n == s->nAlloc) {
    int nNew = s->nAlloc ? s->nAlloc * 2 : 8;
    uloop *aN = realloc(s->a, sizeof(uloop) * (size_t)nNew);
    if (!aN) return -1;
    s->a = aN;
    s->nAlloc = nNew;
  }
  s->a[s->n].c = c;
  s->a[s->n].iStart = iStart;
  s->a[s->n].nTrip = trip_count(c);
  s->n++;
  return 1;
}

/* Is the line above the loop (skipping comment and blank lines) an unroll pragma? */
static int has_pragma(ks_rewrite *p, unsigned iLoop, int *pbOurs) {
  size_t nSrc;
  const char *z = ks_rewrite_source(p, &nSrc);
  unsigned iLine = ks_rewrite_line_start(p, iLoop, NULL);
  *pbOurs = 0;
  /* the loop must start its line for a pragma line above to apply to it */
  for (unsigned i = iLine; i < iLoop; i++)
    if (z[i] != ' ' && z[i] != '\t') return -1;
  while (iLine > 0) {
    unsigned iPrev = ks_rewrite_line_start(p, iLine - 1, NULL);
    unsigned k = iPrev;
    while (k < iLine && (z[k] == ' ' || z[k] == '\t')) k++;
    if (k + 1 < iLine && z[k] == '/' && z[k + 1] == '/') {
      if (ks_rewrite_has_note(p, iPrev, iPrev + 1, NULL)) *pbOurs = 1;
      iLine = iPrev;
      continue;
    }
    if (k + 1 >= iLine) { /* blank */
      iLine = iPrev;
      continue;
    }
    if (iLine - k >= 7 && strncmp(z + k, "#pragma", 7) == 0) {
      if (ks_rewrite_has_note(p, iPrev, iPrev + 1, NULL)) *pbOurs = 1; /* our note sits above our pragma */
      return 1;
    }
    return 0;
  }
  return 0;
}

static int apply(ks_rewrite *p) {
  ks_tu *pTu = ks_rewrite_tu(p);
  CXCursor k = ks_ast_find_kernel(pTu, ks_rewrite_kernel_name(p));
  uscan s = {NULL, 0, 0, pTu};
  int rc = KS_OK, nDone = 0, nHad = 0, nOurs = 0, nUnknown = 0, nBig = 0;
  const char *zMax = ks_rewrite_param(p, "max_trip", "32");
  const char *zF = ks_rewrite_param(p, "factor", NULL);
  char *zEnd;
  long nMax = strtol(zMax, &zEnd, 10);
  if (!zMax[0] || *zEnd || nMax < 1 || nMax > 1024)
    return ks_error_set(KS_EUSAGE, "rule unroll: max_trip must be 1..1024, not '%s'", zMax);
  long nF = 0;
  if (zF) {
    nF = strtol(zF, &zEnd, 10);
    if (!zF[0] || *zEnd || nF < 2 || nF > 64)
      return ks_error_set(KS_EUSAGE, "rule unroll: factor must be 2..64, not '%s'", zF);
  }
  CXCursor body = ks_rw_body(k);
  if (clang_Cursor_isNull(body)) return ks_rewrite_refuse(p, "the kernel has no body");
  ks_rw_walk(body, collect_loops, &s);
  const char *zSrc = ks_rewrite_source(p, NULL);
  for (int i = 0; i < s.n; i++) {
    uloop *l = &s.a[i];
    int bOurs;
    int h = has_pragma(p, l->iStart, &bOurs);
    if (h != 0) {
      nHad++;
      nOurs += bOurs;
      continue;
    }
    char zPragma[64], zWhat[96];
    if (l->nTrip >= 0 && l->nTrip <= nMax) {
      snprintf(zPragma, sizeof zPragma, "#pragma unroll\n");
      snprintf(zWhat, sizeof zWhat, "full unroll: constant trip count %lld", l->nTrip);
    } else if (nF > 0) {
      snprintf(zPragma, sizeof zPragma, "#pragma unroll %ld\n", nF);
      if (l->nTrip < 0) snprintf(zWhat, sizeof zWhat, "unroll by %ld: run-time trip count", nF);
      else snprintf(zWhat, sizeof zWhat, "unroll by %ld: trip count %lld", nF, l->nTrip);
    } else {
      if (l->nTrip < 0) nUnknown++;
      else nBig++;
      continue;
    }
    unsigned nIndent;
    unsigned iLine = ks_rewrite_line_start(p, l->iStart, &nIndent);
    ks_buf b = KS_BUF_INIT;
    ks_buf_printf(&b, "%.*s%s", (int)nIndent, zSrc + iLine, zPragma);
    rc = ks_rewrite_replace(p, iLine, iLine, ks_buf_cstr(&b));
    ks_buf_free(&b);
    if (rc < 0) goto done;
    if ((rc = ks_rewrite_note(p, l->iStart, zWhat)) < 0) goto done;
    nDone++;
  }
  if (nDone == 0) {
    if (nOurs > 0) rc = ks_rewrite_already(p, "every eligible innermost loop already has #pragma unroll");
    else if (s.n == 0) rc = ks_rewrite_refuse(p, "the kernel has no for loop");
    else
      rc = ks_rewrite_refuse(p, "no innermost for loop to unroll: %d with an unroll pragma already, %d of run-time trip count (pass factor=N), %d longer than max_trip=%ld",
                             nHad, nUnknown, nBig, nMax);
  }
done:
  free(s.a);
  return rc;
}

const ks_rule ks_rule_unroll = {"unroll", "#pragma unroll on innermost for loops of constant trip (factor= for run-time trips)",
                                azParams, apply};
