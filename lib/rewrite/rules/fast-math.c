/* fast-math.c — rule `fast-math`: in one kernel's body, single-precision
 * transcendental calls become the SFU intrinsics (expf -> __expf, logf -> __logf,
 * sinf -> __sinf, ...) and float divisions by a non-constant become __fdividef.
 * This trades accuracy for speed on purpose: docs/rules/fast-math.md says how much.
 * Only calls spelled directly in the kernel (not through a macro, not qualified)
 * and resolving to the toolkit's math functions are touched. */
#include "features/ast.h"
#include "kernelskill/rewrite.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Functions and their intrinsic. The float overloads of the unsuffixed names
 * (exp(float) from <cmath>) count when the call's type is float. powf is left
 * alone: __powf(x, y) is exp2(y * log2(x)), NaN for negative x where powf is not. */
static const struct {
  const char *zFn, *zFloatOverload, *zIntrinsic;
} aMap[] = {
    {"expf", "exp", "__expf"},       {"exp10f", "exp10", "__exp10f"}, {"logf", "log", "__logf"},
    {"log2f", "log2", "__log2f"},    {"log10f", "log10", "__log10f"}, {"sinf", "sin", "__sinf"},
    {"cosf", "cos", "__cosf"},       {"tanf", "tan", "__tanf"},       {"sincosf", "sincos", "__sincosf"},
};

static const char *const azIntrinsics[] = {"__expf", "__exp10f", "__logf", "__log2f", "__log10f",
                                           "__sinf", "__cosf",   "__tanf", "__sincosf", "__fdividef"};

/* One queued edit: replace [iStart, iEnd) by zText. eKind orders edits that
 * start at the same offset: a closing ')' first, then openings, then the
 * replacement of the token that starts there. */
typedef struct fm_edit {
  unsigned iStart, iEnd;
  int eKind; /* 0 close, 1 open, 2 replace */
  int iSeq;
  const char *zText;
  char zWhat[48];
} fm_edit;

typedef struct fm_walk {
  ks_rewrite *p;
  ks_tu *pTu;
  fm_edit *a;
  int n, nAlloc;
  int nIntrinsics; /* intrinsic calls already present */
  int rc;
} fm_walk;

static int push_edit(fm_walk *pW, unsigned iStart, unsigned iEnd, int eKind, const char *zText, const char *zWhat) {
  if (pW->n == pW->nAlloc) {
    int nNew = pW->nAlloc ? pW->nAlloc * 2 : 16;
    fm_edit *a = realloc(pW->a, sizeof(fm_edit) * (size_t)nNew);
    if (!a) return ks_error_set(KS_ENOMEM, "out of memory");
    pW->a = a;
    pW->nAlloc = nNew;
  }
  fm_edit *e = &pW->a[pW->n];
  e->iStart = iStart;
  e->iEnd = iEnd;
  e->eKind = eKind;
  e->iSeq = pW->n;
  e->zText = zText;
  snprintf(e->zWhat, sizeof e->zWhat, "%s", zWhat ? zWhat : "");
  pW->n++;
  return KS_OK;
}

static CXCursor strip(CXCursor c);

static enum CXChildVisitResult first_child(CXCursor c, CXCursor parent, CXClientData d) {
  (void)parent;
  CXCursor *p = d;
  if (clang_Cursor_isNull(*p)) *p = c;
  return CXChildVisit_Break;
}

static enum CXChildVisitResult count_child(CXCursor c, CXCursor parent, CXClientData d) {
  (void)c;
  (void)parent;
  (*(int *)d)++;
  return CXChildVisit_Continue;
}

/* Look through implicit conversions and parentheses. */
static CXCursor strip(CXCursor c) {
  for (;;) {
    enum CXCursorKind e = clang_getCursorKind(c);
    if (e != CXCursor_UnexposedExpr && e != CXCursor_ParenExpr) return c;
    int n = 0;
    clang_visitChildren(c, count_child, &n);
    if (n != 1) return c;
    CXCursor k = clang_getNullCursor();
    clang_visitChildren(c, first_child, &k);
    c = k;
  }
}

/* The two operands of a binary operator. */
typedef struct two {
  CXCursor a[2];
  int n;
} two;

static enum CXChildVisitResult two_visit(CXCursor c, CXCursor parent, CXClientData d) {
  (void)parent;
  two *t = d;
  if (t->n < 2) t->a[t->n] = c;
  t->n++;
  return CXChildVisit_Continue;
}

/* Tokens of main-file bytes [iStart, iEnd). */
static void tokens(ks_tu *pTu, unsigned iStart, unsigned iEnd, CXToken **paTok, unsigned *pnTok) {
  CXFile file = clang_getFile(pTu->pTu, pTu->zFile);
  CXSourceRange r = clang_getRange(clang_getLocationForOffset(pTu->pTu, file, iStart),
                                   clang_getLocationForOffset(pTu->pTu, file, iEnd));
  clang_tokenize(pTu->pTu, r, paTok, pnTok);
}

static int tok_is(ks_tu *pTu, CXToken t, const char *z) {
  CXString s = clang_getTokenSpelling(pTu->pTu, t);
  int b = strcmp(clang_getCString(s), z) == 0;
  clang_disposeString(s);
  return b;
}

static void visit_call(fm_walk *pW, CXCursor c) {
  ks_tu *pTu = pW->pTu;
  CXCursor fn = clang_getCursorReferenced(c);
  if (clang_Cursor_isNull(fn) || ks_ast_in_main_file(fn)) return; /* a user function of that name */
  CXString s = clang_getCursorSpelling(fn);
  const char *zName = clang_getCString(s);
  const char *zTo = NULL;
  for (size_t i = 0; i < sizeof aMap / sizeof aMap[0] && !zTo; i++) {
    if (strcmp(zName, aMap[i].zFn) == 0) zTo = aMap[i].zIntrinsic;
    else if (strcmp(zName, aMap[i].zFloatOverload) == 0) {
      /* The float overload only: the call and every argument are float. */
      int bFloat = 1, nArg = clang_Cursor_getNumArguments(c);
      if (strcmp(zName, "sincos") != 0 && clang_getCursorType(c).kind != CXType_Float) bFloat = 0;
      if (nArg < 1) bFloat = 0;
      if (nArg >= 1 && clang_getCursorType(clang_Cursor_getArgument(c, 0)).kind != CXType_Float) bFloat = 0;
      if (bFloat) zTo = aMap[i].zIntrinsic;
    }
  }
  for (size_t i = 0; i < sizeof azIntrinsics / sizeof azIntrinsics[0]; i++)
    if (strcmp(zName, azIntrinsics[i]) == 0) pW->nIntrinsics++;
  if (zTo) {
    /* The callee must be written right here as one identifier followed by '(' —
     * not std::expf, not a macro. */
    unsigned iStart, iEnd;
    if (ks_ast_extent(pTu, c, &iStart, &iEnd) == 0 && iEnd > iStart) {
      CXToken *aTok = NULL;
      unsigned nTok = 0;
      tokens(pTu, iStart, iEnd, &aTok, &nTok);
      if (nTok >= 2 && clang_getTokenKind(aTok[0]) == CXToken_Identifier && tok_is(pTu, aTok[0], zName) &&
          tok_is(pTu, aTok[1], "(") && strncmp(pTu->zSrc + iStart, zName, strlen(zName)) == 0) {
        char zWhat[48];
        snprintf(zWhat, sizeof zWhat, "%s -> %s", zName, zTo);
        pW->rc = push_edit(pW, iStart, iStart + (unsigned)strlen(zName), 2, zTo, zWhat);
      }
      clang_disposeTokens(pTu->pTu, aTok, nTok);
    }
  }
  clang_disposeString(s);
}

static int is_literal(CXCursor c) {
  c = strip(c);
  enum CXCursorKind e = clang_getCursorKind(c);
  if (e == CXCursor_UnaryOperator) { /* -2.0f */
    CXCursor k = clang_getNullCursor();
    clang_visitChildren(c, first_child, &k);
    c = strip(k);
    e = clang_getCursorKind(c);
  }
  return e == CXCursor_FloatingLiteral || e == CXCursor_IntegerLiteral;
}

static void visit_div(fm_walk *pW, CXCursor c) {
  ks_tu *pTu = pW->pTu;
  two t = {{clang_getNullCursor(), clang_getNullCursor()}, 0};
  clang_visitChildren(c, two_visit, &t);
  if (t.n != 2) return;
  if (clang_getCursorType(c).kind != CXType_Float || clang_getCursorType(t.a[0]).kind != CXType_Float ||
      clang_getCursorType(t.a[1]).kind != CXType_Float)
    return;
  if (is_literal(t.a[1])) return; /* the compiler already handles division by a constant */
  unsigned iL0, iL1, iR0, iR1, iS, iE;
  if (ks_ast_extent(pTu, c, &iS, &iE) < 0 || ks_ast_extent(pTu, t.a[0], &iL0, &iL1) < 0 ||
      ks_ast_extent(pTu, t.a[1], &iR0, &iR1) < 0)
    return;
  if (iL0 != iS || iR1 != iE || iL1 > iR0) return; /* not laid out in the file as written (macro) */
  CXToken *aTok = NULL;
  unsigned nTok = 0, iSlash = 0;
  int nSlash = 0;
  tokens(pTu, iL1, iR0, &aTok, &nTok);
  for (unsigned i = 0; i < nTok; i++) {
    long iOff = ks_ast_offset(pTu, clang_getTokenLocation(pTu->pTu, aTok[i]));
    if (iOff < (long)iL1 || iOff >= (long)iR0) continue;
    if (clang_getTokenKind(aTok[i]) == CXToken_Comment) continue;
    if (tok_is(pTu, aTok[i], "/")) {
      nSlash++;
      iSlash = (unsigned)iOff;
    } else {
      nSlash = 99; /* something else between the operands */
    }
  }
  clang_disposeTokens(pTu->pTu, aTok, nTok);
  if (nSlash != 1) return;
  if ((pW->rc = push_edit(pW, iL0, iL0, 1, "__fdividef(", "a / b -> __fdividef(a, b)")) < 0) return;
  /* "a / b" -> "a, b": the blanks before the slash go with it. */
  unsigned iCut = iSlash;
  while (iCut > iL1 && (pTu->zSrc[iCut - 1] == ' ' || pTu->zSrc[iCut - 1] == '\t')) iCut--;
  if ((pW->rc = push_edit(pW, iCut, iSlash + 1, 2, ",", NULL)) < 0) return;
  pW->rc = push_edit(pW, iR1, iR1, 0, ")", NULL);
}

static enum CXChildVisitResult walk(CXCursor c, CXCursor parent, CXClientData d) {
  (void)parent;
  fm_walk *pW = d;
  if (pW->rc < 0) return CXChildVisit_Break;
  enum CXCursorKind e = clang_getCursorKind(c);
  if (e == CXCursor_CallExpr) visit_call(pW, c);
  else if (e == CXCursor_BinaryOperator && clang_getCursorBinaryOperatorKind(c) == CXBinaryOperator_Div)
    visit_div(pW, c);
  return CXChildVisit_Recurse;
}

static int cmp_edit(const void *pA, const void *pB) {
  const fm_edit *a = pA, *b = pB;
  if (a->iStart != b->iStart) return a->iStart < b->iStart ? -1 : 1;
  if (a->eKind != b->eKind) return a->eKind - b->eKind;
  return a->iSeq - b->iSeq;
}

static int apply_fast_math(ks_rewrite *p) {
  ks_tu *pTu = ks_rewrite_tu(p);
  const char *zKernel = ks_rewrite_kernel_name(p);
  fm_walk w = {p, pTu, NULL, 0, 0, 0, KS_OK};
  ks_buf text = KS_BUF_INIT, what = KS_BUF_INIT;
  int rc = KS_OK;
  CXCursor k = ks_ast_find_kernel(pTu, zKernel);
  if (clang_Cursor_isNull(k)) return ks_rewrite_refuse(p, "no kernel '%s' in %s", zKernel, pTu->zFile);
  clang_visitChildren(k, walk, &w);
  if ((rc = w.rc) < 0) goto done;
  if (w.n == 0) {
    if (w.nIntrinsics > 0)
      rc = ks_rewrite_already(p, "kernel '%s' already uses fast-math intrinsics and has no call or float division left to convert",
                              zKernel);
    else
      rc = ks_rewrite_refuse(p, "kernel '%s' has no single-precision transcendental call (expf, logf, sinf, ...) or float "
                                "division by a non-constant",
                             zKernel);
    goto done;
  }
  qsort(w.a, (size_t)w.n, sizeof(fm_edit), cmp_edit);
  /* Edits at one offset merge into one (an opening "__fdividef(" before the
   * renamed callee it encloses). */
  unsigned iLineNoted = (unsigned)-1;
  for (int i = 0; i < w.n;) {
    unsigned iStart = w.a[i].iStart, iEnd = w.a[i].iEnd;
    ks_buf_clear(&text);
    int j = i;
    for (; j < w.n && w.a[j].iStart == iStart; j++) {
      if ((rc = ks_buf_puts(&text, w.a[j].zText)) < 0) goto done;
      if (w.a[j].iEnd > iEnd) iEnd = w.a[j].iEnd;
    }
    if ((rc = ks_rewrite_replace(p, iStart, iEnd, text.z)) < 0) goto done;
    i = j;
  }
  /* One note per changed line, listing what changed on it once each. */
  for (int i = 0; i < w.n; i++) {
    if (!w.a[i].zWhat[0]) continue;
    unsigned iLine;
    ks_ast_line_col(pTu, w.a[i].iStart, &iLine, NULL);
    if (iLine == iLineNoted) continue;
    iLineNoted = iLine;
    ks_buf_clear(&what);
    for (int j = i; j < w.n; j++) {
      unsigned jLine;
      if (!w.a[j].zWhat[0]) continue;
      ks_ast_line_col(pTu, w.a[j].iStart, &jLine, NULL);
      if (jLine != iLine || (what.n && strstr(what.z, w.a[j].zWhat))) continue;
      if ((rc = ks_buf_printf(&what, "%s%s", what.n ? ", " : "", w.a[j].zWhat)) < 0) goto done;
    }
    if ((rc = ks_rewrite_note(p, w.a[i].iStart, what.z)) < 0) goto done;
  }
done:
  free(w.a);
  ks_buf_free(&text);
  ks_buf_free(&what);
  return rc;
}

const ks_rule ks_rule_fast_math = {"fast-math",
                                   "transcendental calls to SFU intrinsics (__expf, __logf, ...) and float "
                                   "division to __fdividef (trades accuracy)",
                                   NULL, apply_fast_math};
