/* read-only-cache.c — rule `read-only-cache`: loads `p[i]` from a pointer
 * parameter that the kernel only reads become `__ldg(&p[i])` (the read-only /
 * non-coherent data cache path), for kernels where `const __restrict__` is not
 * written on the parameter. A parameter qualifies only if every use of it in
 * the kernel is the base of a subscript that is read (never written, never has
 * its address taken, never reassigned), its element type has an __ldg
 * overload, and no launch in the file passes the same argument for it and for
 * a pointer the kernel may write (docs/rules/read-only-cache.md). */
#include "rewrite/rwutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 256
#define MAX_PARAMS 32

typedef struct ro_load {
  unsigned iStart, iEnd;
  int iParam;
} ro_load;

typedef struct ro_walk {
  ks_tu *pTu;
  CXCursor kernel;
  CXCursor aStack[MAX_DEPTH];
  int nDepth;
  int abBad[MAX_PARAMS];  /* a use that is not a plain read */
  int anLdg[MAX_PARAMS];  /* uses already under __ldg(&p[i]) */
  ro_load *a;
  int n, nAlloc;
  int rc;
} ro_walk;

static int param_of(CXCursor kernel, CXCursor ref) {
  int i = ks_rw_param_index(kernel, clang_getCursorReferenced(ref));
  return i < MAX_PARAMS ? i : -1;
}

static int is_wrapper(CXCursor c) {
  enum CXCursorKind e = clang_getCursorKind(c);
  return e == CXCursor_UnexposedExpr || e == CXCursor_ParenExpr;
}

static int callee_is(CXCursor call, const char *zName) {
  if (clang_getCursorKind(call) != CXCursor_CallExpr) return 0;
  CXString s = clang_getCursorSpelling(call);
  int b = strcmp(clang_getCString(s), zName) == 0;
  clang_disposeString(s);
  return b;
}

static enum CXChildVisitResult first_kid(CXCursor c, CXCursor parent, CXClientData d) {
  (void)parent;
  *(CXCursor *)d = c;
  return CXChildVisit_Break;
}

/* A use of parameter i at stack depth nDepth (aStack[nDepth-1] is the ref). */
static void classify_use(ro_walk *pW, int iParam) {
  int j = pW->nDepth - 2;
  while (j >= 0 && is_wrapper(pW->aStack[j])) j--;
  if (j < 0 || clang_getCursorKind(pW->aStack[j]) != CXCursor_ArraySubscriptExpr) {
    pW->abBad[iParam] = 1;
    return;
  }
  CXCursor sub = pW->aStack[j], base = clang_getNullCursor();
  clang_visitChildren(sub, first_kid, &base);
  /* The ref must be in the base, not the index (x[p[0]] is fine for x, but
   * here we look at p: p must be the subscripted pointer). */
  if (!clang_equalCursors(base, pW->aStack[j + 1])) {
    pW->abBad[iParam] = 1;
    return;
  }
  /* Read: the subscript's parent is an implicit lvalue-to-rvalue conversion
   * (an UnexposedExpr of the same, non-reference type). */
  if (j == 0) {
    pW->abBad[iParam] = 1;
    return;
  }
  CXCursor up = pW->aStack[j - 1];
  if (clang_getCursorKind(up) == CXCursor_UnaryOperator &&
      clang_getCursorUnaryOperatorKind(up) == CXUnaryOperator_AddrOf && j >= 2) {
    int k = j - 2;
    while (k >= 0 && is_wrapper(pW->aStack[k])) k--;
    if (k >= 0 && callee_is(pW->aStack[k], "__ldg")) {
      pW->anLdg[iParam]++;
      return;
    }
  }
  CXType tUp = clang_getCanonicalType(clang_getCursorType(up));
  CXType tSub = clang_getCanonicalType(clang_getCursorType(sub));
  if (clang_getCursorKind(up) != CXCursor_UnexposedExpr || tUp.kind == CXType_LValueReference ||
      tUp.kind != tSub.kind) {
    pW->abBad[iParam] = 1;
    return;
  }
  unsigned s, e;
  if (ks_ast_extent(pW->pTu, sub, &s, &e) < 0 || e <= s) {
    pW->abBad[iParam] = 1;
    return;
  }
  if (pW->n == pW->nAlloc) {
    int nNew = pW->nAlloc ? pW->nAlloc * 2 : 16;
    ro_load *a = realloc(pW->a, sizeof(ro_load) * (size_t)nNew);
    if (!a) {
      pW->rc = ks_error_set(KS_ENOMEM, "out of memory");
      return;
    }
    pW->a = a;
    pW->nAlloc = nNew;
  }
  pW->a[pW->n].iStart = s;
  pW->a[pW->n].iEnd = e;
  pW->a[pW->n].iParam = iParam;
  pW->n++;
}

static enum CXChildVisitResult walk(CXCursor c, CXCursor parent, CXClientData d) {
  (void)parent;
  ro_walk *pW = d;
  if (pW->rc < 0 || pW->nDepth >= MAX_DEPTH) {
    pW->rc = pW->rc < 0 ? pW->rc : ks_error_set(KS_EINVAL, "kernel too deeply nested");
    return CXChildVisit_Break;
  }
  pW->aStack[pW->nDepth++] = c;
  if (clang_getCursorKind(c) == CXCursor_DeclRefExpr) {
    int i = param_of(pW->kernel, c);
    if (i >= 0) classify_use(pW, i);
  }
  clang_visitChildren(c, walk, pW);
  pW->nDepth--;
  return CXChildVisit_Continue;
}

/* Element types with an __ldg overload (scalars). */
static int ldg_type(CXType t) {
  switch (clang_getCanonicalType(t).kind) {
  case CXType_Float: case CXType_Double: case CXType_Int: case CXType_UInt: case CXType_Short: case CXType_UShort:
  case CXType_Char_S: case CXType_SChar: case CXType_UChar: case CXType_Long: case CXType_ULong:
  case CXType_LongLong: case CXType_ULongLong:
    return 1;
  default:
    return 0;
  }
}

static char *trimmed(const char *z) {
  while (*z == ' ' || *z == '\t' || *z == '\n') z++;
  char *r = ks_strdup(z);
  if (!r) return NULL;
  size_t n = strlen(r);
  while (n && (r[n - 1] == ' ' || r[n - 1] == '\t' || r[n - 1] == '\n')) r[--n] = 0;
  return r;
}

static int apply_read_only_cache(ks_rewrite *p) {
  ks_tu *pTu = ks_rewrite_tu(p);
  const char *zKernel = ks_rewrite_kernel_name(p);
  CXCursor kernel = ks_ast_find_kernel(pTu, zKernel);
  ro_walk w;
  ks_launch *aL = NULL;
  int nL = 0, rc = KS_OK, nParam, abUse[MAX_PARAMS], nUse = 0, nLdg = 0;
  ks_buf why = KS_BUF_INIT, note = KS_BUF_INIT;
  memset(&w, 0, sizeof w);
  memset(abUse, 0, sizeof abUse);
  if (clang_Cursor_isNull(kernel)) return ks_rewrite_refuse(p, "no kernel '%s'", zKernel);
  nParam = clang_Cursor_getNumArguments(kernel);
  if (nParam > MAX_PARAMS) return ks_rewrite_refuse(p, "kernel '%s' has more than %d parameters", zKernel, MAX_PARAMS);
  w.pTu = pTu;
  w.kernel = kernel;
  clang_visitChildren(kernel, walk, &w);
  if ((rc = w.rc) < 0) goto done;
  if ((rc = ks_ast_launches(pTu, zKernel, &aL, &nL)) < 0) goto done;

  for (int i = 0; i < nParam; i++) {
    CXCursor prm = clang_Cursor_getArgument(kernel, (unsigned)i);
    CXType t = clang_getCursorType(prm);
    CXString sName = clang_getCursorSpelling(prm);
    const char *zName = clang_getCString(sName);
    nLdg += w.anLdg[i];
    int bLoads = 0;
    for (int k = 0; k < w.n; k++) bLoads |= w.a[k].iParam == i;
    if (clang_getCanonicalType(t).kind != CXType_Pointer || !bLoads) goto next;
    CXType tElem = clang_getPointeeType(clang_getCanonicalType(t));
    if (w.abBad[i]) {
      ks_buf_printf(&why, "%s'%s' is written, reassigned or has its address taken", why.n ? "; " : "", zName);
      goto next;
    }
    if (!ldg_type(tElem)) {
      ks_buf_printf(&why, "%s'%s' has no scalar __ldg element type", why.n ? "; " : "", zName);
      goto next;
    }
    if (clang_isRestrictQualifiedType(t) && clang_isConstQualifiedType(tElem)) {
      ks_buf_printf(&why, "%s'%s' is already const __restrict__ (the compiler uses the read-only path)",
                    why.n ? "; " : "", zName);
      goto next;
    }
    /* No launch passes the same argument for it and for a pointer that may be written. */
    for (int l = 0; l < nL; l++) {
      if (aL[l].nArgs != nParam) continue;
      char *zMine = trimmed(aL[l].azArg[i]);
      for (int j = 0; zMine && j < nParam; j++) {
        if (j == i) continue;
        CXType tj = clang_getCanonicalType(clang_getCursorType(clang_Cursor_getArgument(kernel, (unsigned)j)));
        if (tj.kind != CXType_Pointer || clang_isConstQualifiedType(clang_getPointeeType(tj))) continue;
        char *zOther = trimmed(aL[l].azArg[j]);
        if (zOther && strcmp(zMine, zOther) == 0) {
          ks_buf_printf(&why, "%s%s:%u: '%s' gets the same argument as a written pointer", why.n ? "; " : "",
                        pTu->zFile, aL[l].iLine, zName);
          abUse[i] = -1;
        }
        free(zOther);
      }
      free(zMine);
    }
    if (abUse[i] == 0) {
      abUse[i] = 1;
      nUse++;
    }
  next:
    clang_disposeString(sName);
  }
  if (nUse == 0) {
    if (nLdg > 0)
      rc = ks_rewrite_already(p, "kernel '%s' already loads through __ldg and has no other read-only load", zKernel);
    else
      rc = ks_rewrite_refuse(p, "no read-only pointer parameter in '%s'%s%s", zKernel, why.n ? ": " : "",
                             ks_buf_cstr(&why));
    goto done;
  }
  /* Notes on one line merge in the engine (duplicates dropped). */
  for (int k = 0; k < w.n; k++) {
    ro_load *pL = &w.a[k];
    if (abUse[pL->iParam] != 1) continue;
    if ((rc = ks_rewrite_replace(p, pL->iStart, pL->iStart, "__ldg(&")) < 0) goto done;
    if ((rc = ks_rewrite_replace(p, pL->iEnd, pL->iEnd, ")")) < 0) goto done;
    ks_buf_clear(&note);
    CXString s = clang_getCursorSpelling(clang_Cursor_getArgument(kernel, (unsigned)pL->iParam));
    rc = ks_buf_printf(&note, "read-only loads of %s through __ldg", clang_getCString(s));
    clang_disposeString(s);
    if (rc < 0 || (rc = ks_rewrite_note(p, pL->iStart, note.z)) < 0) goto done;
  }
done:
  free(w.a);
  ks_ast_launches_free(aL, nL);
  ks_buf_free(&why);
  ks_buf_free(&note);
  return rc;
}

const ks_rule ks_rule_read_only_cache = {"read-only-cache",
                                         "__ldg for loads from pointer parameters the kernel only reads",
                                         NULL, apply_read_only_cache};
