/* atomic-aggregate.c — rule `atomic-aggregate`: an atomic update whose
 * address is the same for every thread of the block (a global sum, a
 * counter, a slot per block: the kernel-shape model's index of the target has
 * no thread-variant atom) becomes one atomic per group of converged lanes.
 * `atomicAdd(sum, x[i] * y[i]);` under `if (i < n)` serializes every thread on
 * one address; rewritten, the lanes active at the call
 * (cooperative_groups::coalesced_threads(), whatever branch or loop brought
 * them there) reduce their values with cooperative_groups::reduce and the
 * group's first lane makes the atomic with the result: up to 32 times fewer
 * atomics on the address. Integers give the same result; floating-point sums
 * are added in another order (not bitwise the original: within the task's
 * tolerance, which the review checks). Add, Sub, Max, Min, And, Or and Xor on
 * int, unsigned, (unsigned) long long, float and double. */
#include "features/shape.h"
#include "rewrite/rwutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const azParams[] = {0};

/* The atomic functions taken, the cooperative_groups operator of each. */
static const struct {
  const char *zFn, *zOp;
} aOps[] = {{"atomicAdd", "plus"},     {"atomicSub", "plus"},   {"atomicMax", "greater"}, {"atomicMin", "less"},
            {"atomicAnd", "bit_and"}, {"atomicOr", "bit_or"}, {"atomicXor", "bit_xor"}};

#define AA_MAX 16

typedef struct aa_call {
  CXCursor call, parent;
  int iOp;
} aa_call;

typedef struct aa_walk {
  aa_call a[AA_MAX];
  int n, bOver;
} aa_walk;

static enum CXChildVisitResult find_atomics(CXCursor c, CXCursor parent, CXClientData pData) {
  aa_walk *pW = pData;
  if (clang_getCursorKind(c) != CXCursor_CallExpr) return CXChildVisit_Recurse;
  char *z = ks_rw_spelling(c);
  for (int i = 0; z && i < (int)(sizeof aOps / sizeof aOps[0]); i++) {
    if (strcmp(z, aOps[i].zFn) != 0) continue;
    if (pW->n == AA_MAX) pW->bOver = 1;
    else pW->a[pW->n++] = (aa_call){c, parent, i};
  }
  free(z);
  return CXChildVisit_Recurse;
}

/* The element types cooperative_groups::reduce takes (and the atomics have). */
static const char *value_type(CXType t) {
  switch (clang_getCanonicalType(t).kind) {
  case CXType_Int: return "int";
  case CXType_UInt: return "unsigned int";
  case CXType_LongLong: return "long long";
  case CXType_ULongLong: return "unsigned long long";
  case CXType_Float: return "float";
  case CXType_Double: return "double";
  default: return NULL;
  }
}

/* Is the atomic's target the same for every thread? The shape model's
 * read-modify-write access inside the first argument, its index free of
 * thread-variant atoms (threadIdx, the parallel index, loop counters,
 * values derived from them) and of loads. NULL, or why not. */
static const char *uniform_target(const ks_shape *pS, unsigned iArgS, unsigned iArgE) {
  const ks_shape_access *pA = NULL;
  for (int i = 0; i < pS->nAccess; i++)
    if (pS->aAccess[i].eKind == KS_SHAPE_RMW && pS->aAccess[i].iStart >= iArgS && pS->aAccess[i].iEnd <= iArgE)
      pA = &pS->aAccess[i];
  if (!pA) return "its address is not an element of a pointer parameter";
  if (pA->bInMacro) return "its address is written inside a macro";
  if (pA->index.bIrregular || pA->index.bIndirect) return "its address depends on loaded data (a histogram: privatize)";
  for (int m = 0; m < pA->index.n; m++)
    for (int j = 0; j < pA->index.t[m].n; j++) {
      ks_atom_kind e = pS->aAtom[pA->index.t[m].a[j]].eKind;
      if (e == KS_ATOM_TID || e == KS_ATOM_PAR || e == KS_ATOM_DERIVED)
        return "its address differs between the threads of a warp";
      if (e == KS_ATOM_LOOP) return "its address moves with a loop counter";
    }
  return NULL;
}

/* The call stands as a statement of its own (its result unused): in a block,
 * or the body of an if / loop; then its text is followed by ';'. */
static int is_statement(ks_tu *pTu, const aa_call *pC, unsigned iE) {
  enum CXCursorKind e = clang_getCursorKind(pC->parent);
  if (e != CXCursor_CompoundStmt && e != CXCursor_IfStmt && e != CXCursor_ForStmt && e != CXCursor_WhileStmt &&
      e != CXCursor_DoStmt && e != CXCursor_CaseStmt && e != CXCursor_DefaultStmt && e != CXCursor_LabelStmt)
    return 0;
  unsigned i = iE;
  while (i < pTu->nSrc && (pTu->zSrc[i] == ' ' || pTu->zSrc[i] == '\t' || pTu->zSrc[i] == '\n')) i++;
  if (i >= pTu->nSrc || pTu->zSrc[i] != ';') return 0;
  if (e == CXCursor_ForStmt) { /* the body, not a clause of the header: nothing but blanks to a ')' before it */
    CXCursor *aK = NULL;
    int nK = 0;
    if (ks_rw_children(pC->parent, &aK, &nK) < 0) return 0;
    int bBody = nK > 0 && clang_equalCursors(aK[nK - 1], pC->call);
    free(aK);
    return bBody;
  }
  return 1;
}

/* One call's replacement: the converged lanes' reduction, the first lane's atomic. */
static int rewrite_call(ks_rewrite *p, ks_tu *pTu, const aa_call *pC, unsigned iS, unsigned iE, unsigned iLine,
                        const char *zT) {
  CXCursor *aK = NULL;
  int nK = 0, rc = KS_OK;
  if (ks_rw_children(pC->call, &aK, &nK) < 0) return ks_error_set(KS_ENOMEM, "out of memory");
  unsigned aS[2], aE[2];
  int nArg = 0;
  for (int i = 0; i < nK && nArg < 3; i++) {
    if (!clang_isExpression(clang_getCursorKind(aK[i]))) continue;
    if (nArg > 0 && nArg <= 2 && ks_ast_extent(pTu, aK[i], &aS[nArg - 1], &aE[nArg - 1]) < 0) nArg = 9;
    nArg++;
  }
  free(aK);
  if (nArg != 3)
    return ks_rewrite_refuse(p, "%s at line %u is not a call with two arguments written in the file",
                             aOps[pC->iOp].zFn, iLine);
  ks_buf b = KS_BUF_INIT;
  rc = ks_buf_printf(&b,
                     "{ const cooperative_groups::coalesced_group ks_g = cooperative_groups::coalesced_threads(); "
                     "const %s ks_v = cooperative_groups::reduce(ks_g, (%s)(%.*s), cooperative_groups::%s<%s>()); "
                     "if (ks_g.thread_rank() == 0) %s(%.*s, ks_v); }",
                     zT, zT, (int)(aE[1] - aS[1]), pTu->zSrc + aS[1], aOps[pC->iOp].zOp, zT, aOps[pC->iOp].zFn,
                     (int)(aE[0] - aS[0]), pTu->zSrc + aS[0]);
  unsigned iSemi = iE;
  while (pTu->zSrc[iSemi] != ';') iSemi++;
  if (rc >= 0) rc = ks_rewrite_replace(p, iS, iSemi + 1, ks_buf_cstr(&b));
  ks_buf_free(&b);
  return rc;
}

/* The cooperative_groups headers once, after the file's last #include. */
static int put_includes(ks_rewrite *p) {
  int bHave = 0;
  unsigned iAt = ks_rw_include_point(p, "cooperative_groups/reduce.h", &bHave);
  if (bHave) return KS_OK;
  return ks_rewrite_replace(p, iAt, iAt, "#include <cooperative_groups.h>\n#include <cooperative_groups/reduce.h>\n");
}

static int apply(ks_rewrite *p) {
  ks_tu *pTu = ks_rewrite_tu(p);
  const char *zKernel = ks_rewrite_kernel_name(p);
  CXCursor k = ks_ast_find_kernel(pTu, zKernel);
  CXCursor body = ks_rw_body(k);
  unsigned iKs, iKe;
  if (clang_Cursor_isNull(body) || ks_ast_extent(pTu, k, &iKs, &iKe) < 0)
    return ks_rewrite_refuse(p, "kernel '%s' has no body written in the file", zKernel);
  if (ks_rewrite_has_note(p, iKs, iKe, "atomic-aggregate"))
    return ks_rewrite_already(p, "kernel '%s' already makes one atomic per group of lanes", zKernel);
  aa_walk w;
  memset(&w, 0, sizeof w);
  clang_visitChildren(body, find_atomics, &w);
  if (w.n == 0)
    return ks_rewrite_refuse(p, "kernel '%s' makes no atomicAdd, atomicSub, atomicMax, atomicMin, atomicAnd, atomicOr "
                                "or atomicXor",
                             zKernel);
  if (w.bOver) return ks_rewrite_refuse(p, "kernel '%s' makes more than %d atomic calls", zKernel, AA_MAX);
  ks_shape *pS = NULL;
  int rc = ks_shape_build(pTu, k, &pS);
  if (rc < 0) return rc;
  ks_buf why = KS_BUF_INIT;
  int nDone = 0;
  for (int i = 0; i < w.n && rc >= 0; i++) {
    const aa_call *pC = &w.a[i];
    unsigned iS, iE, iLine;
    const char *zWhy = NULL, *zT = NULL;
    CXCursor *aK = NULL;
    int nK = 0;
    if (ks_ast_extent(pTu, pC->call, &iS, &iE) < 0 || ks_rewrite_in_macro(p, iS, iE)) zWhy = "it is written in a macro";
    else if (!is_statement(pTu, pC, iE)) zWhy = "its result is used (it is not a statement of its own)";
    else if (ks_rw_children(pC->call, &aK, &nK) < 0) rc = ks_error_set(KS_ENOMEM, "out of memory");
    if (rc < 0) break;
    if (!zWhy) {
      unsigned iAs = 0, iAe = 0;
      int iArg = 0;
      CXCursor arg0 = clang_getNullCursor();
      for (int j = 0; j < nK; j++)
        if (clang_isExpression(clang_getCursorKind(aK[j])) && iArg++ == 1) arg0 = aK[j];
      CXType tp = clang_Cursor_isNull(arg0) ? (CXType){0} : clang_getCanonicalType(clang_getCursorType(arg0));
      if (clang_Cursor_isNull(arg0) || ks_ast_extent(pTu, arg0, &iAs, &iAe) < 0) zWhy = "its address is not written in the file";
      else if (tp.kind != CXType_Pointer || !(zT = value_type(clang_getPointeeType(tp))))
        zWhy = "its element is not int, unsigned, (unsigned) long long, float or double";
      else zWhy = uniform_target(pS, iAs, iAe);
    }
    free(aK);
    ks_ast_line_col(pTu, iS, &iLine, NULL);
    if (zWhy) {
      rc = ks_buf_printf(&why, "%s%s at line %u: %s", why.n ? "; " : "", aOps[pC->iOp].zFn, iLine, zWhy);
      continue;
    }
    char zNote[256];
    snprintf(zNote, sizeof zNote,
             "one %s per group of converged lanes (cooperative_groups::reduce over coalesced_threads(), the first lane "
             "updates the address)%s",
             aOps[pC->iOp].zFn, zT[0] == 'f' || zT[0] == 'd' ? "; floating-point values are summed in another order" : "");
    if ((rc = rewrite_call(p, pTu, pC, iS, iE, iLine, zT)) >= 0 && (rc = ks_rewrite_note(p, iS, zNote)) >= 0) nDone++;
  }
  if (rc >= 0 && nDone == 0)
    rc = ks_rewrite_refuse(p, "no atomic of kernel '%s' has one address for all its threads: %s", zKernel,
                           ks_buf_cstr(&why));
  if (rc >= 0) rc = put_includes(p);
  ks_buf_free(&why);
  ks_shape_free(pS);
  return rc;
}

const ks_rule ks_rule_atomic_aggregate = {
    "atomic-aggregate",
    "an atomic on an address every thread shares (a global sum, a counter) made once per group of converged lanes, "
    "after a cooperative_groups::reduce of their values",
    azParams, apply};
