/* fast-math.c — rule `fast-math`: in one kernel's body, single-precision
 * transcendental calls become the SFU intrinsics (expf -> __expf, logf -> __logf,
 * sinf -> __sinf, ...) and float divisions by a non-constant become __fdividef.
 * tanhf becomes ks_fast::tanh_approx (the shipped header ks_fastmath.cuh).
 * This trades accuracy for speed on purpose: docs/rules/fast-math.md says how much.
 * Only calls spelled directly (not through a macro, not qualified) and
 * resolving to the toolkit's math functions are touched. A `__device__` helper
 * of the file that the kernel calls and that holds such calls gets a converted
 * copy (name_ks_fast) right after it, and the kernel calls the copy: the
 * helper itself, and every other caller of it, stay as written. */
#include "features/ast.h"
#include "kernelskill/rewrite.h"
#include "rewrite/rwutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* tanh has no __ intrinsic in every toolkit: the shipped header's. */
#define KS_FM_TANH "ks_fast::tanh_approx"
#define KS_FM_GUARD "#define KS_FASTMATH_CUH"

/* Functions and their intrinsic. The float overloads of the unsuffixed names
 * (exp(float) from <cmath>) count when the call's type is float. powf is left
 * alone: __powf(x, y) is exp2(y * log2(x)), NaN for negative x where powf is not. */
static const struct {
  const char *zFn, *zFloatOverload, *zIntrinsic;
} aMap[] = {
    {"expf", "exp", "__expf"},       {"exp10f", "exp10", "__exp10f"}, {"logf", "log", "__logf"},
    {"log2f", "log2", "__log2f"},    {"log10f", "log10", "__log10f"}, {"sinf", "sin", "__sinf"},
    {"cosf", "cos", "__cosf"},       {"tanf", "tan", "__tanf"},       {"sincosf", "sincos", "__sincosf"},
    {"tanhf", "tanh", KS_FM_TANH},
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
  char zWhat[96];
} fm_edit;

/* A call of the kernel to a __device__ helper of the file: the callee's name
 * is written at iStart. */
typedef struct fm_call {
  CXCursor def;
  unsigned iStart;
  char *zName;
  char *zNew; /* the copy's name, once made */
} fm_call;

typedef struct fm_walk {
  ks_rewrite *p;
  ks_tu *pTu;
  fm_edit *a;
  int n, nAlloc;
  int nIntrinsics; /* intrinsic calls already present */
  int bKernel;     /* walking the kernel itself (helpers are noted only there) */
  int bTanh;       /* an edit calls the shipped header's tanh */
  fm_call *aCall;
  int nCall;
  long iGuard;  /* where the file defines the shipped header already, or -1 */
  unsigned iKernel; /* where the kernel starts */
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

/* Is the callee of call c written at iStart as one identifier zName followed
 * by '(' (not qualified, not a macro)? */
static int callee_written(ks_tu *pTu, unsigned iStart, unsigned iEnd, const char *zName) {
  CXToken *aTok = NULL;
  unsigned nTok = 0;
  tokens(pTu, iStart, iEnd, &aTok, &nTok);
  int b = nTok >= 2 && clang_getTokenKind(aTok[0]) == CXToken_Identifier && tok_is(pTu, aTok[0], zName) &&
          tok_is(pTu, aTok[1], "(") && strncmp(pTu->zSrc + iStart, zName, strlen(zName)) == 0;
  clang_disposeTokens(pTu->pTu, aTok, nTok);
  return b;
}

/* Where `__host__` is written as itself between iStart and iEnd (a helper's
 * declaration before its name), or -1 (none, or through a macro). */
static long host_token(ks_tu *pTu, unsigned iStart, unsigned iEnd) {
  CXToken *aTok = NULL;
  unsigned nTok = 0;
  long iAt = -1;
  tokens(pTu, iStart, iEnd, &aTok, &nTok);
  for (unsigned i = 0; i < nTok && iAt < 0; i++) {
    if (clang_getTokenKind(aTok[i]) != CXToken_Identifier || !tok_is(pTu, aTok[i], "__host__")) continue;
    long iOff = ks_ast_offset(pTu, clang_getRangeStart(clang_getTokenExtent(pTu->pTu, aTok[i])));
    if (iOff >= 0 && strncmp(pTu->zSrc + iOff, "__host__", 8) == 0) iAt = iOff;
  }
  clang_disposeTokens(pTu->pTu, aTok, nTok);
  return iAt;
}

/* A call to a function of the file: the shipped tanh counts as an intrinsic;
 * a plain (not template, not member) __device__ helper called from the
 * kernel is noted for a converted copy. */
static void visit_user_call(fm_walk *pW, CXCursor c, CXCursor fn) {
  ks_tu *pTu = pW->pTu;
  char *zName = ks_rw_spelling(fn);
  if (!zName) {
    pW->rc = ks_error_set(KS_ENOMEM, "out of memory");
    return;
  }
  CXCursor ns = clang_getCursorSemanticParent(fn);
  CXCursor def = clang_getCursorDefinition(fn);
  unsigned iStart, iEnd;
  char *zNs = clang_getCursorKind(ns) == CXCursor_Namespace ? ks_rw_spelling(ns) : NULL;
  int bShipped = zNs && strcmp(zNs, "ks_fast") == 0 && strcmp(zName, "tanh_approx") == 0;
  free(zNs);
  if (bShipped) {
    pW->nIntrinsics++;
  } else if (pW->bKernel && !clang_Cursor_isNull(def) && clang_getCursorKind(def) == CXCursor_FunctionDecl &&
             ks_ast_is_device_fn(def) && clang_Cursor_isNull(clang_getSpecializedCursorTemplate(def)) &&
             ks_ast_extent(pTu, c, &iStart, &iEnd) == 0 && callee_written(pTu, iStart, iEnd, zName)) {
    fm_call *a = realloc(pW->aCall, sizeof(fm_call) * (size_t)(pW->nCall + 1));
    if (!a) {
      pW->rc = ks_error_set(KS_ENOMEM, "out of memory");
      free(zName);
      return;
    }
    pW->aCall = a;
    a[pW->nCall++] = (fm_call){def, iStart, zName, NULL};
    return;
  }
  free(zName);
}

static void visit_call(fm_walk *pW, CXCursor c) {
  ks_tu *pTu = pW->pTu;
  CXCursor fn = clang_getCursorReferenced(c);
  if (clang_Cursor_isNull(fn)) return;
  if (ks_ast_in_main_file(fn)) { /* a user function, whatever its name */
    visit_user_call(pW, c, fn);
    return;
  }
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
  /* The shipped header must come before the kernel: one inserted above a
   * later kernel by an earlier application leaves tanhf as it is. */
  if (zTo && strcmp(zTo, KS_FM_TANH) == 0 && pW->iGuard > (long)pW->iKernel) zTo = NULL;
  if (zTo) {
    /* The callee must be written right here as one identifier followed by '(' —
     * not std::expf, not a macro. */
    unsigned iStart, iEnd;
    if (ks_ast_extent(pTu, c, &iStart, &iEnd) == 0 && iEnd > iStart && callee_written(pTu, iStart, iEnd, zName)) {
      char zWhat[96];
      snprintf(zWhat, sizeof zWhat, "%s -> %s", zName, zTo);
      pW->rc = push_edit(pW, iStart, iStart + (unsigned)strlen(zName), 2, zTo, zWhat);
      if (strcmp(zTo, KS_FM_TANH) == 0) pW->bTanh = 1;
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

/* The group of edits starting at w.a[i] (sorted): their texts into pText
 * (an opening "__fdividef(" before the renamed callee it encloses), the end
 * of the bytes they replace in *piEnd. Returns the next group's index, or a
 * negative error. */
static int edit_group(const fm_walk *pW, int i, ks_buf *pText, unsigned *piEnd) {
  unsigned iStart = pW->a[i].iStart;
  *piEnd = pW->a[i].iEnd;
  ks_buf_clear(pText);
  int j = i;
  for (; j < pW->n && pW->a[j].iStart == iStart; j++) {
    int rc = ks_buf_puts(pText, pW->a[j].zText);
    if (rc < 0) return rc;
    if (pW->a[j].iEnd > *piEnd) *piEnd = pW->a[j].iEnd;
  }
  return j;
}

/* "a, b, c": what the edits of lines or of a copy changed, once each, from
 * edit i on; bLine: only those on edit i's line. */
static int edit_summary(const fm_walk *pW, int i, int bLine, ks_buf *pOut) {
  unsigned iLine = 0, jLine;
  int rc = KS_OK;
  ks_buf_clear(pOut);
  if (bLine) ks_ast_line_col(pW->pTu, pW->a[i].iStart, &iLine, NULL);
  for (int j = i; j < pW->n && rc >= 0; j++) {
    if (!pW->a[j].zWhat[0] || (pOut->n && strstr(pOut->z, pW->a[j].zWhat))) continue;
    if (bLine) {
      ks_ast_line_col(pW->pTu, pW->a[j].iStart, &jLine, NULL);
      if (jLine != iLine) continue;
    }
    rc = ks_buf_printf(pOut, "%s%s", pOut->n ? ", " : "", pW->a[j].zWhat);
  }
  return rc;
}

/* Helper pW->aCall[iCall] (called from the kernel, which starts at iKernel):
 * a converted copy inserted right after its definition, under a free name
 * (name_ks_fast), and the kernel's calls of it renamed (edits queued in pW).
 * A helper defined after the kernel or by a macro, or with nothing to
 * convert, is left as it is. *pbHeader: the shipped header was inserted. */
static int clone_helper(fm_walk *pW, int iCall, unsigned iKernel, int *pbHeader) {
  ks_rewrite *p = pW->p;
  ks_tu *pTu = pW->pTu;
  fm_call *pCall = &pW->aCall[iCall];
  fm_walk h = {p, pTu, NULL, 0, 0, 0, 0, 0, NULL, 0, pW->iGuard, iKernel, KS_OK};
  ks_buf ins = KS_BUF_INIT, hdr = KS_BUF_INIT, text = KS_BUF_INIT, what = KS_BUF_INIT, note = KS_BUF_INIT;
  char zNew[256] = "";
  char *zNote = NULL;
  unsigned hS, hE;
  int rc = KS_OK;
  if (ks_ast_extent(pTu, pCall->def, &hS, &hE) < 0 || hE > iKernel || ks_rewrite_in_macro(p, hS, hE)) return KS_OK;
  clang_visitChildren(pCall->def, walk, &h);
  if ((rc = h.rc) < 0) goto done;
  pW->nIntrinsics += h.nIntrinsics;
  if (h.n == 0) goto done;
  for (int k = 1; k < 10 && !zNew[0]; k++) {
    if (k == 1) snprintf(zNew, sizeof zNew, "%s_ks_fast", pCall->zName);
    else snprintf(zNew, sizeof zNew, "%s_ks_fast%d", pCall->zName, k);
    if (strstr(pTu->zSrc, zNew)) zNew[0] = 0;
  }
  long iName = ks_ast_offset(pTu, clang_getCursorLocation(pCall->def));
  size_t nName = strlen(pCall->zName);
  if (!zNew[0] || iName < (long)hS || (size_t)iName + nName > hE ||
      strncmp(pTu->zSrc + iName, pCall->zName, nName) != 0)
    goto done;
  if ((rc = edit_summary(&h, 0, 0, &what)) < 0) goto done;
  if ((rc = push_edit(&h, (unsigned)iName, (unsigned)(iName + (long)nName), 2, zNew, NULL)) < 0) goto done;
  /* A __host__ __device__ helper: the copy is device-only (the intrinsics
   * exist only there), so its __host__ must be written out as such. */
  if (ks_ast_is_host_fn(pCall->def)) {
    long iHost = host_token(pTu, hS, (unsigned)iName);
    if (iHost < 0) goto done;
    size_t nHost = strlen("__host__");
    while (pTu->zSrc[iHost + (long)nHost] == ' ') nHost++;
    if ((rc = push_edit(&h, (unsigned)iHost, (unsigned)(iHost + (long)nHost), 2, "", NULL)) < 0) goto done;
  }
  qsort(h.a, (size_t)h.n, sizeof(fm_edit), cmp_edit);
  /* The copy goes right after the helper, or where the shipped header it
   * calls is already defined: above the kernel, the header being above it. */
  unsigned iAt = hE;
  int bAtKernel = h.bTanh && pW->iGuard > (long)hE;
  if (bAtKernel) iAt = ks_rewrite_line_start(p, iKernel, NULL);
  /* The copy: the helper's bytes with the edits applied. */
  unsigned iPos = hS, iEnd;
  if ((rc = ks_buf_puts(&ins, bAtKernel ? "" : "\n\n")) < 0) goto done;
  if (h.bTanh && !*pbHeader) {
    /* a helper in a namespace: the header at file scope, seen from every namespace */
    unsigned iTop = ks_rw_file_scope_at(p, iAt, iAt);
    rc = ks_rw_shipped_block(p, KS_FM_GUARD, "ks_fastmath.cuh", "fast-math header",
                             "the shipped fast-math helpers (share/kernelskill/templates/ks_fastmath.cuh)",
                             iTop == iAt ? &ins : &hdr);
    if (rc >= 0 && hdr.n) rc = ks_rewrite_replace(p, iTop, iTop, hdr.z);
    if (rc < 0) goto done;
    *pbHeader = 1;
  }
  if ((rc = ks_buf_printf(&note, "copy of %s for kernel %s: %s", pCall->zName, ks_rewrite_kernel_name(p), what.z)) < 0)
    goto done;
  if (!(zNote = ks_rewrite_note_text(p, note.z))) {
    rc = ks_error_set(KS_ENOMEM, "out of memory");
    goto done;
  }
  if ((rc = ks_buf_printf(&ins, "%s\n", zNote)) < 0) goto done;
  for (int i = 0; i < h.n; i = rc) {
    if ((rc = ks_buf_append(&ins, pTu->zSrc + iPos, h.a[i].iStart - iPos)) < 0) goto done;
    if ((rc = edit_group(&h, i, &text, &iEnd)) < 0) goto done;
    if (ks_buf_puts(&ins, text.z) < 0) {
      rc = ks_error_set(KS_ENOMEM, "out of memory");
      goto done;
    }
    iPos = iEnd;
  }
  if ((rc = ks_buf_append(&ins, pTu->zSrc + iPos, hE - iPos)) < 0) goto done;
  if (bAtKernel && (rc = ks_buf_puts(&ins, "\n\n")) < 0) goto done;
  if ((rc = ks_rewrite_replace(p, iAt, iAt, ins.z)) < 0) goto done;
  /* The kernel's calls of this helper call the copy. */
  for (int k = iCall; k < pW->nCall && rc >= 0; k++) {
    fm_call *pK = &pW->aCall[k];
    if (!clang_equalCursors(pK->def, pCall->def)) continue;
    if (!(pK->zNew = ks_strdup(zNew))) {
      rc = ks_error_set(KS_ENOMEM, "out of memory");
      break;
    }
    char zWhat[96];
    snprintf(zWhat, sizeof zWhat, "%s -> %s", pK->zName, zNew);
    rc = push_edit(pW, pK->iStart, pK->iStart + (unsigned)nName, 2, pK->zNew, zWhat);
  }
done:
  free(h.a);
  for (int i = 0; i < h.nCall; i++) free(h.aCall[i].zName);
  free(h.aCall);
  free(zNote);
  ks_buf_free(&ins);
  ks_buf_free(&hdr);
  ks_buf_free(&text);
  ks_buf_free(&what);
  ks_buf_free(&note);
  return rc < 0 ? rc : KS_OK;
}

static int apply_fast_math(ks_rewrite *p) {
  ks_tu *pTu = ks_rewrite_tu(p);
  const char *zKernel = ks_rewrite_kernel_name(p);
  fm_walk w = {p, pTu, NULL, 0, 0, 0, 1, 0, NULL, 0, -1, 0, KS_OK};
  ks_buf text = KS_BUF_INIT, what = KS_BUF_INIT;
  int rc = KS_OK, bHeader = 0;
  unsigned kS, kE;
  CXCursor k = ks_ast_find_kernel(pTu, zKernel);
  if (clang_Cursor_isNull(k) || ks_ast_extent(pTu, k, &kS, &kE) < 0)
    return ks_rewrite_refuse(p, "no kernel '%s' in %s", zKernel, pTu->zFile);
  const char *zGuard = strstr(pTu->zSrc, KS_FM_GUARD);
  w.iGuard = zGuard ? (long)(zGuard - pTu->zSrc) : -1;
  w.iKernel = kS;
  clang_visitChildren(k, walk, &w);
  if ((rc = w.rc) < 0) goto done;
  for (int i = 0; i < w.nCall; i++) {
    int bSeen = 0;
    for (int j = 0; j < i && !bSeen; j++) bSeen = clang_equalCursors(w.aCall[j].def, w.aCall[i].def);
    if (!bSeen && (rc = clone_helper(&w, i, kS, &bHeader)) < 0) goto done;
  }
  if (w.n == 0) {
    if (w.nIntrinsics > 0)
      rc = ks_rewrite_already(p, "kernel '%s' already uses fast-math intrinsics and has no call or float division left to convert",
                              zKernel);
    else
      rc = ks_rewrite_refuse(p, "kernel '%s' has no single-precision transcendental call (expf, logf, sinf, tanhf, ...) "
                                "or float division by a non-constant, in its body or in the __device__ helpers it calls",
                             zKernel);
    goto done;
  }
  if (w.bTanh && !bHeader) {
    unsigned iLine0 = ks_rewrite_line_start(p, kS, NULL);
    iLine0 = ks_rw_file_scope_at(p, iLine0, iLine0); /* seen from every namespace */
    rc = ks_rw_shipped_block(p, KS_FM_GUARD, "ks_fastmath.cuh", "fast-math header",
                             "the shipped fast-math helpers (share/kernelskill/templates/ks_fastmath.cuh)", &text);
    if (rc >= 0 && text.n) rc = ks_rewrite_replace(p, iLine0, iLine0, text.z);
    if (rc < 0) goto done;
  }
  qsort(w.a, (size_t)w.n, sizeof(fm_edit), cmp_edit);
  for (int i = 0; i < w.n; i = rc) {
    unsigned iEnd;
    if ((rc = edit_group(&w, i, &text, &iEnd)) < 0) goto done;
    int rc2 = ks_rewrite_replace(p, w.a[i].iStart, iEnd, text.z);
    if (rc2 < 0) {
      rc = rc2;
      goto done;
    }
  }
  /* One note per changed line, listing what changed on it once each. */
  unsigned iLineNoted = (unsigned)-1;
  for (int i = 0; i < w.n; i++) {
    if (!w.a[i].zWhat[0]) continue;
    unsigned iLine;
    ks_ast_line_col(pTu, w.a[i].iStart, &iLine, NULL);
    if (iLine == iLineNoted) continue;
    iLineNoted = iLine;
    if ((rc = edit_summary(&w, i, 1, &what)) < 0) goto done;
    if ((rc = ks_rewrite_note(p, w.a[i].iStart, what.z)) < 0) goto done;
  }
  rc = KS_OK;
done:
  free(w.a);
  for (int i = 0; i < w.nCall; i++) {
    free(w.aCall[i].zName);
    free(w.aCall[i].zNew);
  }
  free(w.aCall);
  ks_buf_free(&text);
  ks_buf_free(&what);
  return rc;
}

const ks_rule ks_rule_fast_math = {"fast-math",
                                   "transcendental calls to SFU intrinsics (__expf, __logf, ...) and float "
                                   "division to __fdividef (trades accuracy)",
                                   NULL, apply_fast_math};
