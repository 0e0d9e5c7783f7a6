/* rwutil.c — AST helpers shared by the rewrite rules (see rwutil.h): tokens of
 * byte ranges, an ancestor-aware walk, parameters, the pointwise-kernel shape
 * and the launch-site checks the launch-changing rules rely on. */
#include "rewrite/rwutil.h"
#include "features/shape.h"
#include "features/pure.h"

#include <ctype.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

int ks_rw_tokens(ks_tu *pTu, unsigned iStart, unsigned iEnd, ks_rw_tok **paOut, int *pnOut) {
  *paOut = NULL;
  *pnOut = 0;
  if (iEnd > pTu->nSrc) iEnd = (unsigned)pTu->nSrc;
  if (iEnd <= iStart) return KS_OK;
  CXFile file = clang_getFile(pTu->pTu, pTu->zFile);
  if (!file) return ks_error_set(KS_ERROR, "%s: main file not found in the parse", pTu->zFile);
  CXSourceRange r = clang_getRange(clang_getLocationForOffset(pTu->pTu, file, iStart),
                                   clang_getLocationForOffset(pTu->pTu, file, iEnd));
  CXToken *aTok = NULL;
  unsigned nTok = 0;
  clang_tokenize(pTu->pTu, r, &aTok, &nTok);
  ks_rw_tok *a = calloc((size_t)nTok + 1, sizeof(ks_rw_tok));
  if (!a) {
    clang_disposeTokens(pTu->pTu, aTok, nTok);
    return ks_error_set(KS_ENOMEM, "out of memory");
  }
  int n = 0;
  for (unsigned i = 0; i < nTok; i++) {
    CXTokenKind e = clang_getTokenKind(aTok[i]);
    if (e == CXToken_Comment) continue;
    CXSourceRange tr = clang_getTokenExtent(pTu->pTu, aTok[i]);
    unsigned s, t;
    clang_getSpellingLocation(clang_getRangeStart(tr), NULL, NULL, NULL, &s);
    clang_getSpellingLocation(clang_getRangeEnd(tr), NULL, NULL, NULL, &t);
    if (s < iStart || t > iEnd) continue; /* clang may hand back a token past the end */
    CXString sp = clang_getTokenSpelling(pTu->pTu, aTok[i]);
    a[n].eKind = e;
    a[n].z = ks_strdup(clang_getCString(sp));
    a[n].iStart = s;
    a[n].iEnd = t;
    clang_disposeString(sp);
    n++;
  }
  clang_disposeTokens(pTu->pTu, aTok, nTok);
  *paOut = a;
  *pnOut = n;
  return KS_OK;
}

void ks_rw_tokens_free(ks_rw_tok *a, int n) {
  for (int i = 0; i < n; i++) free(a[i].z);
  free(a);
}

int ks_rw_has_word(ks_tu *pTu, unsigned iStart, unsigned iEnd, const char *zWord) {
  ks_rw_tok *a;
  int n, bHas = 0;
  if (ks_rw_tokens(pTu, iStart, iEnd, &a, &n) < 0) return 0;
  for (int i = 0; i < n && !bHas; i++) bHas = a[i].z && strcmp(a[i].z, zWord) == 0;
  ks_rw_tokens_free(a, n);
  return bHas;
}

char *ks_rw_squash(ks_tu *pTu, unsigned iStart, unsigned iEnd) {
  ks_rw_tok *a;
  int n;
  if (ks_rw_tokens(pTu, iStart, iEnd, &a, &n) < 0) return NULL;
  ks_buf b = KS_BUF_INIT;
  for (int i = 0; i < n; i++) ks_buf_puts(&b, a[i].z ? a[i].z : "");
  ks_rw_tokens_free(a, n);
  char *z = ks_buf_detach(&b);
  return z ? z : ks_strdup("");
}

char *ks_rw_squash_text(const char *z) {
  ks_buf b = KS_BUF_INIT;
  for (; z && *z; z++)
    if (*z != ' ' && *z != '\t' && *z != '\n' && *z != '\r') ks_buf_append(&b, z, 1);
  char *zOut = ks_buf_detach(&b);
  return zOut ? zOut : ks_strdup("");
}

int ks_rw_children(CXCursor c, CXCursor **paOut, int *pnOut) { return ks_ast_children(c, paOut, pnOut); }

CXCursor ks_rw_body(CXCursor kernel) {
  CXCursor *a;
  int n;
  CXCursor body = clang_getNullCursor();
  ks_rw_children(kernel, &a, &n);
  for (int i = 0; i < n; i++)
    if (clang_getCursorKind(a[i]) == CXCursor_CompoundStmt) body = a[i];
  free(a);
  return body;
}

CXCursor ks_rw_strip(CXCursor c) {
  for (;;) {
    enum CXCursorKind e = clang_getCursorKind(c);
    if (e != CXCursor_UnexposedExpr && e != CXCursor_ParenExpr) return c;
    CXCursor *a;
    int n;
    ks_rw_children(c, &a, &n);
    if (n != 1) {
      free(a);
      return c;
    }
    c = a[0];
    free(a);
  }
}

CXCursor ks_rw_ref_decl(CXCursor c) {
  c = ks_rw_strip(c);
  if (clang_getCursorKind(c) != CXCursor_DeclRefExpr) return clang_getNullCursor();
  return clang_getCursorReferenced(c);
}

int ks_rw_is_ref_to(CXCursor c, CXCursor decl) {
  CXCursor d = ks_rw_ref_decl(c);
  return !clang_Cursor_isNull(d) && clang_equalCursors(d, decl);
}

char *ks_rw_spelling(CXCursor c) {
  CXString s = clang_getCursorSpelling(c);
  char *z = ks_strdup(clang_getCString(s) ? clang_getCString(s) : "");
  clang_disposeString(s);
  return z;
}

/* ---- walk with ancestors ---- */

typedef struct walk_state {
  ks_rw_visit_fn xFn;
  void *pArg;
  CXCursor *aAnc;
  int nAnc, nAlloc;
  int bStop;
} walk_state;

static enum CXChildVisitResult walk_one(CXCursor c, CXCursor parent, CXClientData pData) {
  (void)parent;
  walk_state *w = pData;
  int r = w->xFn(c, w->aAnc, w->nAnc, w->pArg);
  if (r < 0) {
    w->bStop = 1;
    return CXChildVisit_Break;
  }
  if (r == 0) {
    if (w->nAnc == w->nAlloc) {
      int nNew = w->nAlloc * 2;
      CXCursor *a = realloc(w->aAnc, sizeof(CXCursor) * (size_t)nNew);
      if (!a) {
        w->bStop = 1;
        return CXChildVisit_Break;
      }
      w->aAnc = a;
      w->nAlloc = nNew;
    }
    w->aAnc[w->nAnc++] = c;
    clang_visitChildren(c, walk_one, w);
    w->nAnc--;
    if (w->bStop) return CXChildVisit_Break;
  }
  return CXChildVisit_Continue;
}

void ks_rw_walk(CXCursor root, ks_rw_visit_fn xFn, void *pArg) {
  walk_state w = {xFn, pArg, malloc(sizeof(CXCursor) * 64), 0, 64, 0};
  if (!w.aAnc) return;
  w.aAnc[w.nAnc++] = root;
  clang_visitChildren(root, walk_one, &w);
  free(w.aAnc);
}

/* ---- parameters ---- */

int ks_rw_params(ks_tu *pTu, CXCursor kernel, ks_rw_param **paOut, int *pnOut) {
  CXCursor *a;
  int n;
  ks_rw_children(kernel, &a, &n);
  ks_rw_param *aP = calloc((size_t)n + 1, sizeof(ks_rw_param));
  int nP = 0;
  if (!aP) {
    free(a);
    return ks_error_set(KS_ENOMEM, "out of memory");
  }
  for (int i = 0; i < n; i++) {
    if (clang_getCursorKind(a[i]) != CXCursor_ParmDecl) continue;
    ks_rw_param *p = &aP[nP++];
    p->decl = a[i];
    p->zName = ks_rw_spelling(a[i]);
    CXType t = clang_getCursorType(a[i]);
    CXType tc = clang_getCanonicalType(t);
    p->bPointer = tc.kind == CXType_Pointer;
    p->nElemSize = -1;
    if (p->bPointer) {
      CXType pt = clang_getPointeeType(t);
      p->bConstPointee = clang_isConstQualifiedType(pt);
      p->bRestrict = clang_isRestrictQualifiedType(t);
      p->nElemSize = clang_Type_getSizeOf(pt);
      CXString s = clang_getTypeSpelling(clang_getUnqualifiedType(clang_getCanonicalType(pt)));
      p->zElemType = ks_strdup(clang_getCString(s));
      clang_disposeString(s);
    }
    if (ks_ast_extent(pTu, a[i], &p->iStart, &p->iEnd) < 0) p->iStart = p->iEnd = 0;
    long iName = ks_ast_offset(pTu, clang_getCursorLocation(a[i]));
    p->iNameStart = iName >= 0 && p->zName[0] ? (unsigned)iName : p->iEnd;
  }
  free(a);
  *paOut = aP;
  *pnOut = nP;
  return KS_OK;
}

void ks_rw_params_free(ks_rw_param *a, int n) {
  for (int i = 0; i < n; i++) {
    free(a[i].zName);
    free(a[i].zElemType);
  }
  free(a);
}

/* ---- the pointwise shape ---- */

/* End offset of a statement including its ';' when the extent stops short. */
static unsigned stmt_end(ks_tu *pTu, CXCursor c) {
  unsigned s, e;
  if (ks_ast_extent(pTu, c, &s, &e) < 0) return 0;
  ks_rw_tok *a;
  int n;
  unsigned iLim = e + 256 < pTu->nSrc ? e + 256 : (unsigned)pTu->nSrc;
  if (ks_rw_tokens(pTu, e, iLim, &a, &n) < 0) return e;
  if (n > 0 && strcmp(a[0].z, ";") == 0) e = a[0].iEnd;
  ks_rw_tokens_free(a, n);
  return e;
}

int ks_rw_param_index(CXCursor kernel, CXCursor decl) {
  if (clang_getCursorKind(decl) != CXCursor_ParmDecl) return -1;
  int nArgs = clang_Cursor_getNumArguments(kernel);
  for (int i = 0; i < nArgs; i++)
    if (clang_equalCursors(clang_Cursor_getArgument(kernel, (unsigned)i), decl)) return i;
  if (nArgs >= 0) return -1;
  /* a template has no argument list: count its ParmDecls */
  CXCursor *aK;
  int nK, iP = 0, iHit = -1;
  ks_rw_children(kernel, &aK, &nK);
  for (int i = 0; i < nK && iHit < 0; i++)
    if (clang_getCursorKind(aK[i]) == CXCursor_ParmDecl) {
      if (clang_equalCursors(aK[i], decl)) iHit = iP;
      iP++;
    }
  free(aK);
  return iHit;
}

int ks_rw_param_count(CXCursor kernel) {
  int n = clang_Cursor_getNumArguments(kernel);
  if (n >= 0) return n;
  CXCursor *aK;
  int nK;
  n = 0;
  ks_rw_children(kernel, &aK, &nK);
  for (int i = 0; i < nK; i++) n += clang_getCursorKind(aK[i]) == CXCursor_ParmDecl;
  free(aK);
  return n;
}

CXCursor ks_rw_param_at(CXCursor kernel, int i) {
  if (clang_Cursor_getNumArguments(kernel) >= 0)
    return i >= 0 && i < clang_Cursor_getNumArguments(kernel) ? clang_Cursor_getArgument(kernel, (unsigned)i)
                                                              : clang_getNullCursor();
  CXCursor *aK, r = clang_getNullCursor();
  int nK, iP = 0;
  ks_rw_children(kernel, &aK, &nK);
  for (int j = 0; j < nK && clang_Cursor_isNull(r); j++)
    if (clang_getCursorKind(aK[j]) == CXCursor_ParmDecl && iP++ == i) r = aK[j];
  free(aK);
  return r;
}

int ks_rw_param_of(CXCursor kernel, CXCursor c) {
  CXCursor d = ks_rw_ref_decl(c);
  return clang_Cursor_isNull(d) ? -1 : ks_rw_param_index(kernel, d);
}

int ks_rw_thread_index(ks_tu *pTu, CXCursor kernel, CXCursor init, int *pbWide) {
  int bNarrow = 0;
  int iDim = ks_shape_thread_index(pTu, kernel, ks_rw_strip(init), pbWide, &bNarrow);
  return bNarrow ? -1 : iDim;
}

typedef struct body_check {
  CXCursor idx;
  const char *zWhy;
  CXCursor aTemp[8]; /* the index's temporaries (const unsigned tid = threadIdx.x;) */
  int nTemp;
  char zBuf[192];    /* a reason with a detail */
} body_check;

const char *ks_rw_own_thread_why(CXCursor call, char *zBuf, size_t nBuf) {
  const char *zOwn = ks_own_thread_call(call);
  if (!zOwn) return NULL;
  char *z = ks_rw_spelling(call);
  snprintf(zBuf, nBuf, "the element body calls %s, which does not keep to its thread: %s",
           z && *z ? z : "a function the template leaves unresolved", zOwn);
  free(z);
  return zBuf;
}

static int check_body(CXCursor c, const CXCursor *aAnc, int nAnc, void *pArg) {
  (void)aAnc;
  (void)nAnc;
  body_check *b = pArg;
  enum CXCursorKind e = clang_getCursorKind(c);
  if (e == CXCursor_ReturnStmt) b->zWhy = "the element body has a return";
  else if (e == CXCursor_GotoStmt || e == CXCursor_LabelStmt) b->zWhy = "the element body has a goto or label";
  else if (e == CXCursor_CallExpr) {
    char *z = ks_rw_spelling(c);
    if (ks_warp_collective(z)) b->zWhy = "the element body has a barrier or warp primitive";
    else if (!b->zWhy) b->zWhy = ks_rw_own_thread_why(c, b->zBuf, sizeof b->zBuf); /* a helper's __shfl_sync, threadIdx, asm */
    free(z);
  } else if (e == CXCursor_DeclRefExpr) {
    for (int i = 0; i < b->nTemp && !b->zWhy; i++)
      if (ks_rw_is_ref_to(c, b->aTemp[i])) b->zWhy = "the element body reads a temporary declared before the index";
    char *z = ks_rw_spelling(c);
    if (z && (strcmp(z, "threadIdx") == 0 || strcmp(z, "blockIdx") == 0 || strcmp(z, "blockDim") == 0 ||
              strcmp(z, "gridDim") == 0))
      b->zWhy = "the element body reads threadIdx/blockIdx/blockDim/gridDim";
    free(z);
  } else if (e == CXCursor_BinaryOperator || e == CXCursor_CompoundAssignOperator) {
    CXCursor *a;
    int n;
    ks_rw_children(c, &a, &n);
    enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(c);
    if (n >= 1 && (e == CXCursor_CompoundAssignOperator || op == CXBinaryOperator_Assign) &&
        ks_rw_is_ref_to(a[0], b->idx))
      b->zWhy = "the element body changes the index variable";
    free(a);
  } else if (e == CXCursor_UnaryOperator) {
    enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(c);
    CXCursor *a;
    int n;
    ks_rw_children(c, &a, &n);
    if (n == 1 && ks_rw_is_ref_to(a[0], b->idx) &&
        (op == CXUnaryOperator_PostInc || op == CXUnaryOperator_PostDec || op == CXUnaryOperator_PreInc ||
         op == CXUnaryOperator_PreDec || op == CXUnaryOperator_AddrOf))
      b->zWhy = "the element body changes or takes the address of the index variable";
    free(a);
  }
  return b->zWhy ? -1 : 0;
}

int ks_rw_is_integer_type(CXType t) {
  switch (clang_getCanonicalType(t).kind) {
  case CXType_Int: case CXType_UInt: case CXType_Long: case CXType_ULong:
  case CXType_LongLong: case CXType_ULongLong:
    return 1;
  default:
    return 0;
  }
}

static int is_bare_return(CXCursor c) {
  if (clang_getCursorKind(c) == CXCursor_CompoundStmt) {
    CXCursor *a;
    int n;
    ks_rw_children(c, &a, &n);
    int b = n == 1 && is_bare_return(a[0]);
    free(a);
    return b;
  }
  if (clang_getCursorKind(c) != CXCursor_ReturnStmt) return 0;
  CXCursor *a;
  int n;
  ks_rw_children(c, &a, &n);
  free(a);
  return n == 0;
}

void ks_rw_pointwise_free(ks_rw_pointwise *p) {
  free(p->zIdx);
  free(p->zIdxType);
  free(p->zBound);
  memset(p, 0, sizeof *p);
}

/* A value a temporary before the index may be computed from: built-ins,
 * parameters, other locals, literals, casts and arithmetic; no call, load,
 * assignment or increment (it runs once per thread before and after). */
static enum CXChildVisitResult temp_init_visit(CXCursor c, CXCursor parent, CXClientData pData) {
  (void)parent;
  int *pbOk = pData;
  switch (clang_getCursorKind(c)) {
  case CXCursor_DeclRefExpr: case CXCursor_MemberRefExpr: case CXCursor_IntegerLiteral: case CXCursor_ParenExpr:
  case CXCursor_FloatingLiteral:
  case CXCursor_UnexposedExpr: case CXCursor_CStyleCastExpr: case CXCursor_CXXStaticCastExpr: case CXCursor_TypeRef:
  case CXCursor_ConditionalOperator:
    return CXChildVisit_Recurse;
  case CXCursor_BinaryOperator:
    if (clang_getCursorBinaryOperatorKind(c) == CXBinaryOperator_Assign) break;
    return CXChildVisit_Recurse;
  case CXCursor_UnaryOperator: {
    enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(c);
    if (op == CXUnaryOperator_Minus || op == CXUnaryOperator_Plus || op == CXUnaryOperator_Not ||
        op == CXUnaryOperator_LNot)
      return CXChildVisit_Recurse;
    break;
  }
  default:
    break;
  }
  *pbOk = 0;
  return CXChildVisit_Break;
}

int ks_rw_pure_expr(CXCursor c) {
  int bOk = 1;
  temp_init_visit(c, c, &bOk);
  if (bOk) clang_visitChildren(c, temp_init_visit, &bOk);
  return bOk;
}

int ks_rw_pure_decls(CXCursor st) {
  if (clang_getCursorKind(st) != CXCursor_DeclStmt) return 0;
  CXCursor *aD;
  int nD, bOk = 1;
  ks_rw_children(st, &aD, &nD);
  for (int i = 0; i < nD && bOk; i++) {
    enum CXTypeKind eT = clang_getCanonicalType(clang_getCursorType(aD[i])).kind;
    if (clang_getCursorKind(aD[i]) != CXCursor_VarDecl || !(eT == CXType_Float || eT == CXType_Double ||
                                                           ks_rw_is_integer_type(clang_getCursorType(aD[i])))) {
      bOk = 0;
      break;
    }
    CXCursor *aI;
    int nI;
    ks_rw_children(aD[i], &aI, &nI);
    bOk = nI >= 1 && clang_isExpression(clang_getCursorKind(aI[nI - 1])) && ks_rw_pure_expr(aI[nI - 1]);
    free(aI);
  }
  free(aD);
  return bOk && nD > 0;
}

/* An initializer of a constant table: braces, literals, a sign, casts. */
static enum CXChildVisitResult table_init_visit(CXCursor c, CXCursor parent, CXClientData pData) {
  (void)parent;
  int *pbOk = pData;
  switch (clang_getCursorKind(c)) {
  case CXCursor_InitListExpr: case CXCursor_IntegerLiteral: case CXCursor_FloatingLiteral: case CXCursor_ParenExpr:
  case CXCursor_UnexposedExpr: case CXCursor_CStyleCastExpr:
    return CXChildVisit_Recurse;
  case CXCursor_UnaryOperator: {
    enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(c);
    if (op == CXUnaryOperator_Minus || op == CXUnaryOperator_Plus) return CXChildVisit_Recurse;
    break;
  }
  default:
    break;
  }
  *pbOk = 0;
  return CXChildVisit_Break;
}

int ks_rw_const_tables(CXCursor st) {
  if (clang_getCursorKind(st) != CXCursor_DeclStmt) return 0;
  CXCursor *aD;
  int nD, bOk = 1;
  ks_rw_children(st, &aD, &nD);
  for (int i = 0; i < nD && bOk; i++) {
    CXType t = clang_getCursorType(aD[i]);
    int nDim = 0;
    while (clang_getCanonicalType(t).kind == CXType_ConstantArray && nDim < 4) {
      t = clang_getArrayElementType(t); /* the canonical type drops the element's const */
      nDim++;
    }
    enum CXTypeKind eE = clang_getCanonicalType(t).kind;
    CXCursor aI[4];
    int nI = clang_getCursorKind(aD[i]) == CXCursor_VarDecl ? ks_rw_kids(aD[i], aI, 4) : 0;
    bOk = nDim > 0 && clang_isConstQualifiedType(t) && (eE == CXType_Float || eE == CXType_Double || ks_rw_is_integer_type(t)) &&
          (clang_Cursor_getStorageClass(aD[i]) == CX_SC_None || clang_Cursor_getStorageClass(aD[i]) == CX_SC_Static) && nI >= 1 && nI <= 4 &&
          clang_getCursorKind(aI[nI - 1]) == CXCursor_InitListExpr;
    if (bOk) clang_visitChildren(aI[nI - 1], table_init_visit, &bOk);
  }
  free(aD);
  return bOk && nD > 0;
}

/* Statement st declares integer temporaries the index may be computed from
 * (`const unsigned tid = threadIdx.x, bid = blockIdx.x;`), none of them the
 * index: their declarations go into b->aTemp. */
static int is_index_temp(ks_tu *pTu, CXCursor kernel, CXCursor st, body_check *b) {
  if (clang_getCursorKind(st) != CXCursor_DeclStmt) return 0;
  CXCursor *aD;
  int nD, bOk = 1;
  ks_rw_children(st, &aD, &nD);
  for (int i = 0; i < nD && bOk; i++) {
    CXCursor *aI;
    int nI;
    if (clang_getCursorKind(aD[i]) != CXCursor_VarDecl || !ks_rw_is_integer_type(clang_getCursorType(aD[i])) ||
        b->nTemp == 8) {
      bOk = 0;
      break;
    }
    ks_rw_children(aD[i], &aI, &nI);
    CXCursor init = nI >= 1 && clang_isExpression(clang_getCursorKind(aI[nI - 1])) ? aI[nI - 1] : clang_getNullCursor();
    free(aI);
    if (clang_Cursor_isNull(init) || ks_rw_thread_index(pTu, kernel, init, NULL) >= 0) {
      bOk = 0;
      break;
    }
    bOk = ks_rw_pure_expr(init);
    if (bOk) b->aTemp[b->nTemp++] = aD[i];
  }
  free(aD);
  return bOk && nD > 0;
}

int ks_rw_pointwise_match(ks_tu *pTu, CXCursor kernel, ks_rw_pointwise *pOut, char **pzWhy) {
  const char *zWhy = NULL;
  CXCursor *aStmtAll = NULL, *aStmt = NULL, *aDecl = NULL, *aIf = NULL, *aCond = NULL;
  body_check bc;
  memset(&bc, 0, sizeof bc);
  int nStmt = 0, nDecl = 0, nIf = 0, nCond = 0;
  memset(pOut, 0, sizeof *pOut);
  pOut->iBoundParam = -1;
  CXCursor body = ks_rw_body(kernel);
  unsigned s, e;
  if (clang_Cursor_isNull(body)) {
    zWhy = "the kernel has no body";
    goto done;
  }
  if (ks_ast_extent(pTu, body, &s, &e) == 0 && ks_rw_has_word(pTu, s, e, "__shared__")) {
    zWhy = "the kernel uses __shared__ memory";
    goto done;
  }
  ks_rw_children(body, &aStmtAll, &nStmt);
  aStmt = aStmtAll;
  /* Temporaries the index is computed from may come first; they stay as
   * they are, and the element body must not read them; so may constant
   * tables (a filter's weights), which it may read. */
  while (nStmt > 2 && (ks_rw_const_tables(aStmt[0]) || is_index_temp(pTu, kernel, aStmt[0], &bc))) {
    aStmt++;
    nStmt--;
  }
  if (nStmt < 2 || clang_getCursorKind(aStmt[0]) != CXCursor_DeclStmt) {
    zWhy = "the kernel does not start with the global index declaration (T i = blockIdx.x * blockDim.x + threadIdx.x;)";
    goto done;
  }
  ks_rw_children(aStmt[0], &aDecl, &nDecl);
  if (nDecl != 1 || clang_getCursorKind(aDecl[0]) != CXCursor_VarDecl) {
    zWhy = "the first statement must declare exactly the global index";
    goto done;
  }
  pOut->idx = aDecl[0];
  {
    CXCursor *aInit;
    int nInit;
    ks_rw_children(aDecl[0], &aInit, &nInit);
    int bOk = nInit >= 1 && ks_rw_thread_index(pTu, kernel, aInit[nInit - 1], &pOut->bWideIndex) == 0;
    free(aInit);
    if (!bOk || !ks_rw_is_integer_type(clang_getCursorType(aDecl[0]))) {
      zWhy = "the first statement is not an integer global index blockIdx.x * blockDim.x + threadIdx.x "
             "(uncast, or with blockIdx.x or blockDim.x cast to a 64-bit integer type)";
      goto done;
    }
  }
  pOut->zIdx = ks_rw_spelling(aDecl[0]);
  {
    CXString st = clang_getTypeSpelling(clang_getCursorType(aDecl[0]));
    pOut->zIdxType = ks_strdup(clang_getCString(st));
    clang_disposeString(st);
    /* The declaration's own const goes: the copies we declare are plain. */
    if (strncmp(pOut->zIdxType, "const ", 6) == 0) memmove(pOut->zIdxType, pOut->zIdxType + 6, strlen(pOut->zIdxType + 6) + 1);
  }
  if (ks_ast_extent(pTu, aStmt[0], &pOut->iHeadStart, &e) < 0) {
    zWhy = "the index declaration is not in the file";
    goto done;
  }
  if (clang_getCursorKind(aStmt[1]) != CXCursor_IfStmt) {
    zWhy = "the index declaration is not followed by the guard if (i < N)";
    goto done;
  }
  ks_rw_children(aStmt[1], &aIf, &nIf);
  if (nIf != 2) {
    zWhy = "the guard must be a plain if without else";
    goto done;
  }
  CXCursor cond = ks_rw_strip(aIf[0]);
  enum CXBinaryOperatorKind op = clang_getCursorKind(cond) == CXCursor_BinaryOperator
                                     ? clang_getCursorBinaryOperatorKind(cond)
                                     : CXBinaryOperator_Invalid;
  ks_rw_children(cond, &aCond, &nCond);
  if (nCond != 2 || !ks_rw_is_ref_to(aCond[0], pOut->idx) ||
      (op != CXBinaryOperator_LT && op != CXBinaryOperator_GE)) {
    zWhy = "the guard is not if (i < N) { ... } or if (i >= N) return;";
    goto done;
  }
  {
    unsigned bs, be;
    if (ks_ast_extent(pTu, aCond[1], &bs, &be) < 0 || ks_rw_has_word(pTu, bs, be, pOut->zIdx)) {
      zWhy = "the bound N of the guard must not depend on the index";
      goto done;
    }
    pOut->bound = aCond[1];
    pOut->zBound = ks_strdup(pTu->zSrc + bs);
    pOut->zBound[be - bs] = 0;
    CXCursor d = ks_rw_ref_decl(aCond[1]);
    if (!clang_Cursor_isNull(d)) pOut->iBoundParam = ks_rw_param_index(kernel, d);
  }
  bc.idx = pOut->idx;
  if (op == CXBinaryOperator_LT) {
    if (nStmt != 2) {
      zWhy = "statements follow the guarded block; the kernel must be the index, the guard and its body";
      goto done;
    }
    CXCursor then = aIf[1];
    unsigned ts, te;
    if (ks_ast_extent(pTu, then, &ts, &te) < 0) {
      zWhy = "the guarded body is not in the file";
      goto done;
    }
    if (clang_getCursorKind(then) == CXCursor_CompoundStmt) {
      pOut->iHeadEnd = ts + 1;
      pOut->iBodyStart = ts + 1;
      pOut->iBodyEnd = te - 1;
      pOut->iRegionEnd = te;
    } else {
      pOut->iHeadEnd = ts;
      pOut->iBodyStart = ts;
      pOut->iBodyEnd = stmt_end(pTu, then);
      pOut->iRegionEnd = pOut->iBodyEnd;
    }
    ks_rw_walk(then, check_body, &bc);
    if (clang_getCursorKind(then) != CXCursor_CompoundStmt) check_body(then, NULL, 0, &bc);
  } else {
    if (!is_bare_return(aIf[1]) || nStmt < 3) {
      zWhy = "the guard if (i >= N) must be followed by return; and the element's statements";
      goto done;
    }
    pOut->bEarlyReturn = 1;
    pOut->iHeadEnd = stmt_end(pTu, aStmt[1]);
    unsigned ls, le;
    if (ks_ast_extent(pTu, aStmt[2], &pOut->iBodyStart, &le) < 0) {
      zWhy = "the element statements are not in the file";
      goto done;
    }
    pOut->iBodyEnd = stmt_end(pTu, aStmt[nStmt - 1]);
    pOut->iRegionEnd = pOut->iBodyEnd;
    (void)ls;
    for (int i = 2; i < nStmt && !bc.zWhy; i++) {
      if (check_body(aStmt[i], NULL, 0, &bc) == 0) ks_rw_walk(aStmt[i], check_body, &bc);
    }
  }
  if (bc.zWhy) zWhy = bc.zWhy;
done:
  free(aStmtAll);
  free(aDecl);
  free(aIf);
  free(aCond);
  if (zWhy) {
    if (pzWhy) *pzWhy = ks_strdup(zWhy);
    ks_rw_pointwise_free(pOut);
    return -1;
  }
  return 0;
}

/* ---- launch sites ---- */

/* Byte ranges of the <<< >>> slots, split at top-level commas. */
int ks_rw_cfg_slot(ks_tu *pTu, const ks_launch *pL, int iSlot, unsigned *piStart, unsigned *piEnd) {
  const char *z = pTu->zSrc;
  int nDepth = 0, iCur = 0;
  unsigned iPart = pL->iCfgStart;
  for (unsigned i = pL->iCfgStart; i <= pL->iCfgEnd; i++) {
    char ch = i < pL->iCfgEnd ? z[i] : ',';
    if (ch == '(' || ch == '[' || ch == '{') nDepth++;
    else if (ch == ')' || ch == ']' || ch == '}') nDepth--;
    else if (ch == ',' && nDepth == 0) {
      if (iCur == iSlot) {
        unsigned a = iPart, b = i;
        while (a < b && (z[a] == ' ' || z[a] == '\t' || z[a] == '\n')) a++;
        while (b > a && (z[b - 1] == ' ' || z[b - 1] == '\t' || z[b - 1] == '\n')) b--;
        *piStart = a;
        *piEnd = b;
        return 0;
      }
      iCur++;
      iPart = i + 1;
    }
  }
  return -1;
}

int ks_rw_launch_block_scalar(ks_tu *pTu, const ks_launch *pL, long long *pnThreads) {
  *pnThreads = 0;
  unsigned s, e;
  if (!pL->azCfg[1] || ks_rw_cfg_slot(pTu, pL, 1, &s, &e) < 0) return 0;
  ks_rw_tok *a;
  int n;
  if (ks_rw_tokens(pTu, s, e, &a, &n) < 0) return 0;
  int bScalar = 1;
  for (int i = 0; i < n; i++) {
    if (strcmp(a[i].z, "dim3") == 0 || strcmp(a[i].z, "{") == 0) bScalar = 0;
    if (a[i].eKind == CXToken_Identifier && bScalar) {
      CXFile file = clang_getFile(pTu->pTu, pTu->zFile);
      CXCursor c = clang_getCursor(pTu->pTu, clang_getLocationForOffset(pTu->pTu, file, a[i].iStart));
      CXCursor d = clang_getCursorReferenced(c);
      if (!clang_Cursor_isNull(d) && (clang_getCursorKind(d) == CXCursor_VarDecl || clang_getCursorKind(d) == CXCursor_ParmDecl)) {
        CXString st = clang_getTypeSpelling(clang_getCanonicalType(clang_getCursorType(d)));
        if (strstr(clang_getCString(st), "dim3") || strstr(clang_getCString(st), "uint3")) bScalar = 0;
        clang_disposeString(st);
      }
    }
  }
  ks_rw_tokens_free(a, n);
  if (!bScalar) return 0;
  *pnThreads = pL->nBlockThreads;
  return 1;
}

/* Index of the single top-level '/' of a squashed expression, or -1. */
static int top_slash(const char *z) {
  int nDepth = 0, iAt = -1;
  for (int i = 0; z[i]; i++) {
    if (z[i] == '(') nDepth++;
    else if (z[i] == ')') nDepth--;
    else if (nDepth == 0 && (z[i] == '+' || z[i] == '-' || z[i] == '*' || z[i] == '%' || z[i] == '?' ||
                             z[i] == '<' || z[i] == '>' || z[i] == '&' || z[i] == '|'))
      return -1; /* `(a+b)/c + 1` and friends: not the plain form */
    else if (nDepth == 0 && z[i] == '/') {
      if (iAt >= 0) return -1;
      iAt = i;
    }
  }
  return iAt;
}

/* Strip one pair of parentheses that wraps all of z (in place). */
static void strip_parens(char *z) {
  size_t n = strlen(z);
  while (n >= 2 && z[0] == '(' && z[n - 1] == ')') {
    int nDepth = 0, bWhole = 1;
    for (size_t i = 0; i < n - 1; i++) {
      if (z[i] == '(') nDepth++;
      else if (z[i] == ')') nDepth--;
      if (nDepth == 0) {
        bWhole = 0;
        break;
      }
    }
    if (!bWhole) return;
    memmove(z, z + 1, n - 2);
    z[n - 2] = 0;
    n -= 2;
  }
}

static int ends_with(const char *z, const char *zSuffix, size_t *pnPrefix) {
  size_t n = strlen(z), m = strlen(zSuffix);
  if (m >= n || strcmp(z + n - m, zSuffix) != 0) return 0;
  *pnPrefix = n - m;
  return 1;
}

int ks_rw_grid_covers(ks_tu *pTu, const ks_launch *pL, int iArg, char **pzN, char **pzB) {
  (void)pTu; /* the texts suffice; kept for symmetry with the other launch checks */
  *pzN = *pzB = NULL;
  if (!pL->azCfg[0] || !pL->azCfg[1] || iArg < 0 || iArg >= pL->nArgs) return 0;
  char *zGrid = ks_rw_squash_text(pL->azCfg[0]);
  char *zBlock = ks_rw_squash_text(pL->azCfg[1]);
  char *zN = ks_rw_squash_text(pL->azArg[iArg]);
  int bOk = 0;
  if (!zGrid || !zBlock || !zN) goto done;
  strip_parens(zGrid);
  strip_parens(zN);
  int iSlash = top_slash(zGrid);
  if (iSlash < 0) goto done;
  zGrid[iSlash] = 0;
  char *zDen = zGrid + iSlash + 1, *zNum = zGrid;
  char *zB = ks_strdup(zBlock);
  strip_parens(zB);
  strip_parens(zDen);
  long long nB = pL->nBlockThreads;
  char zLit[32];
  snprintf(zLit, sizeof zLit, "%lld", nB);
  int bDenOk = strcmp(zDen, zB) == 0 || (nB > 0 && strcmp(zDen, zLit) == 0);
  if (bDenOk && zNum[0] == '(') {
    strip_parens(zNum);
    ks_buf suf = KS_BUF_INIT;
    size_t nPre = 0;
    const char *azDen[2] = {zDen, zB};
    for (int k = 0; k < 2 && !bOk; k++) {
      const char *zD = azDen[k];
      ks_buf_clear(&suf);
      ks_buf_printf(&suf, "+%s-1", zD);
      if (ends_with(zNum, ks_buf_cstr(&suf), &nPre)) bOk = 1;
      ks_buf_clear(&suf);
      ks_buf_printf(&suf, "+(%s-1)", zD);
      if (!bOk && ends_with(zNum, ks_buf_cstr(&suf), &nPre)) bOk = 1;
      ks_buf_clear(&suf);
      ks_buf_printf(&suf, "-1+%s", zD);
      if (!bOk && ends_with(zNum, ks_buf_cstr(&suf), &nPre)) bOk = 1;
    }
    if (!bOk && nB > 0) {
      ks_buf_clear(&suf);
      ks_buf_printf(&suf, "+%lld", nB - 1);
      if (ends_with(zNum, ks_buf_cstr(&suf), &nPre)) bOk = 1;
    }
    ks_buf_free(&suf);
    if (bOk) {
      zNum[nPre] = 0;
      strip_parens(zNum);
      bOk = strcmp(zNum, zN) == 0;
    }
  }
  free(zB);
  if (bOk) {
    *pzN = ks_strdup(pL->azArg[iArg]);
    *pzB = ks_strdup(pL->azCfg[1]);
  }
done:
  free(zGrid);
  free(zBlock);
  free(zN);
  return bOk;
}

char *ks_rw_paren(const char *zExpr) {
  int bSimple = 1;
  for (const char *z = zExpr; *z; z++)
    if (!((*z >= 'a' && *z <= 'z') || (*z >= 'A' && *z <= 'Z') || (*z >= '0' && *z <= '9') || *z == '_' ||
          *z == '.'))
      bSimple = 0;
  ks_buf b = KS_BUF_INIT;
  ks_buf_printf(&b, bSimple ? "%s" : "(%s)", zExpr);
  return ks_buf_detach(&b);
}

/* Is type t a value (not a reference) or a reference to const? Binding an
 * element to it reads the element. */
static int binds_as_read(CXType t) {
  t = clang_getCanonicalType(t);
  if (t.kind != CXType_LValueReference && t.kind != CXType_RValueReference) return 1;
  return t.kind == CXType_LValueReference && clang_isConstQualifiedType(clang_getPointeeType(t));
}

/* Element `cur` as an argument of call (or constructor / overloaded-operator
 * call) `a`, for class-type elements such as __half: the copy constructor
 * from `const T &` and a call by value or const reference read it;
 * `P[i] = v` through T::operator= writes it, `P[i] += v` reads and writes. */
/* A call in a template's body whose callee depends on a template parameter
 * (`add_op<T>(a[i], b[i])`) refers to no function: argument iArg is read
 * when every function template of the callee's name binds it as read. */
static int dependent_call_reads(CXCursor a, int iArg) {
  CXCursor *aK = NULL, r = clang_getNullCursor();
  int nK = 0, nArg = clang_Cursor_getNumArguments(a);
  /* the callee: the child that is no argument (an operator's sits between its operands) */
  ks_rw_children(a, &aK, &nK);
  for (int k = 0; k < nK && clang_Cursor_isNull(r); k++) {
    int bArg = 0;
    for (int m = 0; m < nArg; m++) bArg |= clang_equalCursors(aK[k], clang_Cursor_getArgument(a, (unsigned)m));
    if (!bArg) r = clang_getCursorReferenced(aK[k]);
  }
  free(aK);
  unsigned n = clang_getCursorKind(r) == CXCursor_OverloadedDeclRef ? clang_getNumOverloadedDecls(r) : 0;
  for (unsigned i = 0; i < n; i++) {
    CXCursor d = clang_getOverloadedDecl(r, i);
    if (clang_getCursorKind(d) != CXCursor_FunctionTemplate && clang_getCursorKind(d) != CXCursor_FunctionDecl) return 0;
    CXCursor *aP = NULL;
    int nP = 0, iSeen = 0, bRead = 0;
    ks_rw_children(d, &aP, &nP);
    for (int k = 0; k < nP; k++)
      if (clang_getCursorKind(aP[k]) == CXCursor_ParmDecl && iSeen++ == iArg)
        bRead = binds_as_read(clang_getCursorType(aP[k]));
    free(aP);
    if (!bRead) return 0;
  }
  return n > 0;
}

static int call_elem_use(CXCursor a, CXCursor cur) {
  CXCursor fn = clang_getCursorReferenced(a);
  int nArg = clang_Cursor_getNumArguments(a), iArg = -1;
  for (int k = 0; k < nArg; k++)
    if (clang_equalCursors(clang_Cursor_getArgument(a, (unsigned)k), cur)) iArg = k;
  if (iArg >= 0 && clang_Cursor_isNull(fn) && dependent_call_reads(a, iArg)) return KS_RW_READ;
  if (iArg < 0 || clang_Cursor_isNull(fn)) return KS_RW_WRITE;
  enum CXCursorKind eFn = clang_getCursorKind(fn);
  int iParam = iArg;
  if (eFn == CXCursor_CXXMethod) {
    CXString sp = clang_getCursorSpelling(fn);
    const char *z = clang_getCString(sp);
    int bOp = z && strncmp(z, "operator", 8) == 0, bAssign = bOp && strcmp(z, "operator=") == 0;
    int bCompound = bOp && !bAssign && strlen(z) >= 10 && z[strlen(z) - 1] == '=' &&
                    strcmp(z, "operator==") != 0 && strcmp(z, "operator!=") != 0 && strcmp(z, "operator<=") != 0 &&
                    strcmp(z, "operator>=") != 0;
    clang_disposeString(sp);
    if (!bOp) return KS_RW_WRITE; /* P[i].method(): may change it */
    if (iArg == 0) /* the object operand */
      return bAssign ? KS_RW_WRITE : bCompound ? KS_RW_READWRITE : clang_CXXMethod_isConst(fn) ? KS_RW_READ : KS_RW_WRITE;
    iParam = iArg - 1;
  } else if (eFn != CXCursor_FunctionDecl && eFn != CXCursor_Constructor) {
    return KS_RW_WRITE;
  }
  if (iParam >= clang_Cursor_getNumArguments(fn)) return KS_RW_WRITE;
  return binds_as_read(clang_getCursorType(clang_Cursor_getArgument(fn, (unsigned)iParam))) ? KS_RW_READ : KS_RW_WRITE;
}

int ks_rw_elem_use(CXCursor c, const CXCursor *aAnc, int nAnc, CXCursor *pWriteExpr) {
  int j = nAnc - 1;
  CXCursor cur = c;
  if (pWriteExpr) *pWriteExpr = clang_getNullCursor();
  while (j >= 0) {
    CXCursor a = aAnc[j];
    enum CXCursorKind e = clang_getCursorKind(a);
    if (e == CXCursor_ParenExpr) {
      cur = a;
      j--;
      continue;
    }
    if (e == CXCursor_MemberRefExpr) { /* P[i].x: the member is the element */
      cur = a;
      j--;
      continue;
    }
    /* c ? P[i] : Q[i] is an lvalue in C++ when both arms are: read when the
     * conditional is read; any other use (assigned to, bound to a reference)
     * is reported as a write by the conditional itself, which no rule takes
     * for an assignment of the element (only one arm's element is written) */
    if (e == CXCursor_ConditionalOperator) {
      if (ks_rw_elem_use(a, aAnc, j, NULL) == KS_RW_READ) return KS_RW_READ;
      if (pWriteExpr) *pWriteExpr = a;
      return KS_RW_WRITE;
    }
    if (e == CXCursor_UnexposedExpr) return KS_RW_READ; /* lvalue-to-rvalue conversion */
    if (e == CXCursor_CStyleCastExpr || e == CXCursor_CXXStaticCastExpr || e == CXCursor_CXXFunctionalCastExpr) {
      /* (float)P[i] in a template pattern (no implicit conversion there) */
      if (clang_getCanonicalType(clang_getCursorType(a)).kind != CXType_LValueReference) return KS_RW_READ;
    }
    if (e == CXCursor_CallExpr) {
      int eUse = call_elem_use(a, cur);
      if (eUse != KS_RW_READ && pWriteExpr) *pWriteExpr = a;
      return eUse;
    }
    if (e == CXCursor_BinaryOperator || e == CXCursor_CompoundAssignOperator) {
      CXCursor *aK;
      int nK;
      ks_rw_children(a, &aK, &nK);
      int bLhs = nK >= 1 && clang_equalCursors(aK[0], cur);
      free(aK);
      if (pWriteExpr) *pWriteExpr = a;
      if (e == CXCursor_CompoundAssignOperator) return bLhs ? KS_RW_READWRITE : KS_RW_READ;
      enum CXBinaryOperatorKind eOp = clang_getCursorBinaryOperatorKind(a);
      if (eOp == CXBinaryOperator_Assign && bLhs) return KS_RW_WRITE;
      if (pWriteExpr) *pWriteExpr = clang_getNullCursor();
      if (eOp == CXBinaryOperator_Comma && !bLhs) { /* (e, P[i]) is P[i] itself */
        cur = a;
        j--;
        continue;
      }
      /* Only a template's pattern gets here with an operand that is not
       * assigned (one of dependent type has no lvalue-to-rvalue conversion
       * yet): `x[i] > T(0)`, `y[i] = x[i]`. A built-in operator reads it; an
       * overload in scope would have made this a call. The comma's left
       * operand is discarded. */
      return KS_RW_READ;
    }
    /* `T v = x[i];` in a template's pattern (no conversion node either): a
     * variable whose type is no reference copies the element. */
    if (e == CXCursor_VarDecl) {
      enum CXTypeKind eT = clang_getCanonicalType(clang_getCursorType(a)).kind;
      if (eT != CXType_LValueReference && eT != CXType_RValueReference) return KS_RW_READ;
    }
    if (pWriteExpr) *pWriteExpr = a;
    return KS_RW_WRITE; /* ++, &, reference binding, call by reference ... */
  }
  return KS_RW_WRITE;
}

/* ---- launch coverage through host variables and bound expressions ---- */

/* A token range [lo, hi) of an array of tokens. */
typedef struct tok_span {
  ks_rw_tok *a;
  int lo, hi;
} tok_span;

static int tok_is(const tok_span *s, int i, const char *z) { return i >= s->lo && i < s->hi && strcmp(s->a[i].z, z) == 0; }

/* Index of the ')' closing the '(' at i within the span, or -1. */
static int tok_close(const tok_span *s, int i) {
  int nDepth = 0;
  for (int j = i; j < s->hi; j++) {
    if (strcmp(s->a[j].z, "(") == 0) nDepth++;
    else if (strcmp(s->a[j].z, ")") == 0 && --nDepth == 0) return j;
  }
  return -1;
}

static void tok_strip_parens(tok_span *s) {
  while (s->hi - s->lo >= 2 && tok_is(s, s->lo, "(") && tok_close(s, s->lo) == s->hi - 1) {
    s->lo++;
    s->hi--;
  }
}

static char *tok_squash(const tok_span *s, int lo, int hi) {
  ks_buf b = KS_BUF_INIT;
  for (int i = lo; i < hi; i++) ks_buf_puts(&b, s->a[i].z);
  char *z = ks_buf_detach(&b);
  return z ? z : ks_strdup("");
}

static char *squash_stripped(const char *zText) {
  char *z = ks_rw_squash_text(zText);
  if (z) strip_parens(z);
  return z;
}

/* The cursor under the token at main-file offset iAt. */
static CXCursor cursor_at(ks_tu *pTu, unsigned iAt) {
  CXFile file = clang_getFile(pTu->pTu, pTu->zFile);
  return clang_getCursor(pTu->pTu, clang_getLocationForOffset(pTu->pTu, file, iAt));
}

/* The host function whose body holds [iStart, iEnd). */
typedef struct fn_find {
  ks_tu *pTu;
  unsigned iStart, iEnd;
  CXCursor fn;
} fn_find;

static enum CXChildVisitResult fn_find_visit(CXCursor c, CXCursor parent, CXClientData pData) {
  (void)parent;
  fn_find *f = pData;
  enum CXCursorKind e = clang_getCursorKind(c);
  if (e == CXCursor_Namespace || e == CXCursor_LinkageSpec || e == CXCursor_UnexposedDecl) return CXChildVisit_Recurse;
  if (e == CXCursor_FunctionDecl || e == CXCursor_CXXMethod || e == CXCursor_FunctionTemplate) {
    unsigned s, t;
    if (ks_ast_extent(f->pTu, c, &s, &t) == 0 && s <= f->iStart && f->iEnd <= t) {
      f->fn = c;
      return CXChildVisit_Break;
    }
  }
  return CXChildVisit_Continue;
}

CXCursor ks_rw_host_fn(ks_tu *pTu, unsigned iStart, unsigned iEnd) {
  fn_find f = {pTu, iStart, iEnd, clang_getNullCursor()};
  clang_visitChildren(clang_getTranslationUnitCursor(pTu->pTu), fn_find_visit, &f);
  return f.fn;
}

/* Every reference to decl in fn is a plain read (its first non-paren parent
 * is an implicit conversion): nothing assigns it, increments it, takes its
 * address or binds a reference to it. */
typedef struct write_scan {
  CXCursor decl;
  int bWritten;
  ks_tu *pTu;
  unsigned iHorizon; /* writes at or after this offset cannot reach the launch */
} write_scan;

static int write_visit(CXCursor c, const CXCursor *aAnc, int nAnc, void *pArg) {
  write_scan *w = pArg;
  if (clang_getCursorKind(c) != CXCursor_DeclRefExpr || !clang_equalCursors(clang_getCursorReferenced(c), w->decl))
    return 0;
  int j = nAnc - 1;
  while (j >= 0 && clang_getCursorKind(aAnc[j]) == CXCursor_ParenExpr) j--;
  if (j < 0 || clang_getCursorKind(aAnc[j]) != CXCursor_UnexposedExpr) {
    unsigned cs, ce;
    if (w->iHorizon != (unsigned)-1 && ks_ast_extent(w->pTu, c, &cs, &ce) == 0 && cs >= w->iHorizon)
      return 1; /* after the launch, as `void *args[] = {&rows};` for a later cudaLaunchKernel */
    w->bWritten = 1;
    return -1;
  }
  return 1;
}

/* Which writes of host variables may reach launch pL in fn: those before its
 * end, when the launch sits in no loop of fn and fn has no goto (straight
 * order); else all of them ((unsigned)-1). */
typedef struct horizon_scan {
  ks_tu *pTu;
  unsigned iAt;
  int bLoopOrGoto;
} horizon_scan;

static int horizon_visit(CXCursor c, const CXCursor *aAnc, int nAnc, void *pArg) {
  (void)aAnc;
  (void)nAnc;
  horizon_scan *h = pArg;
  enum CXCursorKind e = clang_getCursorKind(c);
  unsigned cs, ce;
  if (e == CXCursor_GotoStmt || e == CXCursor_IndirectGotoStmt || e == CXCursor_LabelStmt) h->bLoopOrGoto = 1;
  else if ((e == CXCursor_ForStmt || e == CXCursor_WhileStmt || e == CXCursor_DoStmt) &&
           ks_ast_extent(h->pTu, c, &cs, &ce) == 0 && cs <= h->iAt && h->iAt < ce)
    h->bLoopOrGoto = 1;
  return h->bLoopOrGoto ? -1 : 0;
}

static unsigned launch_horizon(ks_tu *pTu, CXCursor fn, const ks_launch *pL) {
  horizon_scan h = {pTu, pL->iStart, 0};
  ks_rw_walk(fn, horizon_visit, &h);
  return h.bLoopOrGoto ? (unsigned)-1 : pL->iEnd;
}

/* Checks on a host variable or parameter the launch relies on: declared in fn
 * (not static, not global), never written in fn, and no other declaration in fn
 * with its name (so the name means it wherever it is written). */
typedef struct name_scan {
  CXCursor decl;
  char *zName;
  int bClash;
} name_scan;

static int name_visit(CXCursor c, const CXCursor *aAnc, int nAnc, void *pArg) {
  (void)aAnc;
  (void)nAnc;
  name_scan *n = pArg;
  enum CXCursorKind e = clang_getCursorKind(c);
  if ((e == CXCursor_VarDecl || e == CXCursor_ParmDecl) && !clang_equalCursors(c, n->decl)) {
    char *z = ks_rw_spelling(c);
    if (z && strcmp(z, n->zName) == 0) n->bClash = 1;
    free(z);
  }
  return n->bClash ? -1 : 0;
}

static int stable_var(ks_tu *pTu, CXCursor fn, CXCursor decl, unsigned iHorizon) {
  enum CXCursorKind e = clang_getCursorKind(decl);
  if (e != CXCursor_VarDecl && e != CXCursor_ParmDecl) return 0;
  unsigned fs, fe, ds, de;
  if (ks_ast_extent(pTu, fn, &fs, &fe) < 0 || ks_ast_extent(pTu, decl, &ds, &de) < 0 || ds < fs || de > fe) return 0;
  if (clang_Cursor_getStorageClass(decl) == CX_SC_Static || clang_Cursor_getStorageClass(decl) == CX_SC_Extern) return 0;
  CXType t = clang_getCanonicalType(clang_getCursorType(decl));
  if (t.kind == CXType_LValueReference || t.kind == CXType_RValueReference) return 0;
  write_scan w = {decl, 0, pTu, iHorizon};
  ks_rw_walk(fn, write_visit, &w);
  if (w.bWritten) return 0;
  name_scan n = {decl, ks_rw_spelling(decl), 0};
  ks_rw_walk(fn, name_visit, &n);
  free(n.zName);
  return !n.bClash;
}

/* Every identifier of [lo, hi) that names a variable names a stable one. */
static int span_stable(ks_tu *pTu, CXCursor fn, const tok_span *s, int lo, int hi, unsigned iHorizon) {
  for (int i = lo; i < hi; i++) {
    if (s->a[i].eKind != CXToken_Identifier) continue;
    CXCursor d = clang_getCursorReferenced(cursor_at(pTu, s->a[i].iStart));
    enum CXCursorKind e = clang_getCursorKind(d);
    if (e == CXCursor_VarDecl || e == CXCursor_ParmDecl) {
      if (!stable_var(pTu, fn, d, iHorizon)) return 0;
    } else if (e == CXCursor_FieldDecl || e == CXCursor_FunctionDecl || e == CXCursor_CXXMethod || clang_Cursor_isNull(d) ||
               e == CXCursor_InvalidFile || e == CXCursor_NoDeclFound) {
      return 0; /* members, calls and unknowns: not a value we can follow */
    }
  }
  return 1;
}

/* The initializer of the local variable named by the single identifier token
 * i, when it is stable: its token span (in *pInit, tokens owned by the caller
 * through *paTok and *pnTok). 0 when the token is not such a variable. */
static int var_init_span(ks_tu *pTu, CXCursor fn, const tok_span *s, int i, unsigned iBefore, unsigned iHorizon,
                         ks_rw_tok **paTok, int *pnTok, tok_span *pInit) {
  CXCursor d = clang_getCursorReferenced(cursor_at(pTu, s->a[i].iStart));
  if (clang_getCursorKind(d) != CXCursor_VarDecl || !ks_rw_is_integer_type(clang_getCursorType(d))) return 0;
  unsigned ds, de;
  if (ks_ast_extent(pTu, d, &ds, &de) < 0 || de > iBefore || !stable_var(pTu, fn, d, iHorizon)) return 0;
  CXCursor *a;
  int n, iInit = -1;
  ks_rw_children(d, &a, &n);
  for (int k = 0; k < n; k++)
    if (clang_isExpression(clang_getCursorKind(a[k]))) iInit = k;
  unsigned is = 0, ie = 0;
  int bOk = iInit >= 0 && ks_ast_extent(pTu, a[iInit], &is, &ie) == 0;
  free(a);
  if (!bOk || ks_rw_tokens(pTu, is, ie, paTok, pnTok) < 0 || *pnTok == 0) return 0;
  pInit->a = *paTok;
  pInit->lo = 0;
  pInit->hi = *pnTok;
  return 1;
}

/* A cast written around the grid: `(unsigned)`, `(unsigned int)`, `(int)`,
 * `(long long)`..., or static_cast<...>( ). *piRest: the first token after it
 * (static_cast: the span shrinks to the parenthesized operand). 1 when one
 * was found. The cast must name a 32- or 64-bit integer type: a grid that
 * fits it (as any launchable grid does) is not changed by it. */
static int grid_cast(ks_tu *pTu, tok_span *s) {
  static const char *const azType[] = {"unsigned", "unsignedint", "int", "longlong", "unsignedlonglong", "long",
                                       "unsignedlong", "size_t", "uint32_t", "int64_t", "uint64_t", "int32_t", 0};
  int j = -1;
  if (tok_is(s, s->lo, "(")) {
    j = tok_close(s, s->lo);
    if (j < 0 || j == s->hi - 1) return 0;
  } else if (tok_is(s, s->lo, "static_cast") && tok_is(s, s->lo + 1, "<")) {
    for (j = s->lo + 2; j < s->hi && !tok_is(s, j, ">"); j++) {
    }
    if (!tok_is(s, j + 1, "(") || tok_close(s, j + 1) != s->hi - 1) return 0;
  } else {
    return 0;
  }
  int lo = s->lo + (tok_is(s, s->lo, "(") ? 1 : 2);
  char *z = tok_squash(s, lo, j);
  int bType = 0;
  for (int k = 0; azType[k] && !bType; k++) bType = strcmp(z, azType[k]) == 0;
  free(z);
  if (!bType) return 0;
  (void)pTu;
  s->lo = j + 1;
  return 1;
}

void ks_rw_cover_free(ks_rw_cover *p) {
  free(p->zN);
  free(p->zB);
  free(p->zCast);
  memset(p, 0, sizeof *p);
}

/* Tokens of the launch's argument iArg: *pSpan over *paTok (caller frees). */
static int launch_arg_span(ks_tu *pTu, const ks_launch *pL, int iArg, ks_rw_tok **paTok, int *pnTok, tok_span *pSpan) {
  *paTok = NULL;
  *pnTok = 0;
  if (ks_rw_tokens(pTu, pL->iCfgEnd, pL->iEnd, paTok, pnTok) < 0) return 0;
  ks_rw_tok *a = *paTok;
  int n = *pnTok, i = 0;
  while (i < n && strcmp(a[i].z, "(") != 0) i++; /* past `>>>` */
  int nDepth = 0, iCur = 0, lo = i + 1;
  for (; i < n; i++) {
    const char *z = a[i].z;
    if (strcmp(z, "(") == 0 || strcmp(z, "[") == 0 || strcmp(z, "{") == 0) nDepth++;
    else if (strcmp(z, ")") == 0 || strcmp(z, "]") == 0 || strcmp(z, "}") == 0) {
      if (--nDepth == 0) break;
    } else if (nDepth == 1 && strcmp(z, ",") == 0) {
      if (iCur == iArg) break;
      iCur++;
      lo = i + 1;
    }
  }
  if (iCur != iArg || i <= lo) return 0;
  pSpan->a = a;
  pSpan->lo = lo;
  pSpan->hi = i;
  return 1;
}

/* The kernel's bound with its parameters replaced by the launch's arguments,
 * squashed; NULL when the bound names anything else, or an argument is not a
 * single identifier or literal of the parameter's type (so the bound computed
 * in the kernel is the same expression, in the same types, as on the host).
 * *pbStable: every variable so substituted is stable in fn. */
static char *bound_at_launch(ks_tu *pTu, CXCursor kernel, const ks_rw_pointwise *pPw, const ks_launch *pL,
                             CXCursor fn, unsigned iHorizon, int *pbStable) {
  unsigned bs, be;
  ks_rw_tok *a = NULL;
  int n = 0, bOk = 1;
  ks_buf b = KS_BUF_INIT;
  *pbStable = 1;
  if (clang_Cursor_isNull(pPw->bound) || ks_ast_extent(pTu, pPw->bound, &bs, &be) < 0 ||
      ks_rw_tokens(pTu, bs, be, &a, &n) < 0)
    return NULL;
  CXCursor *aK;
  int nK;
  ks_rw_children(kernel, &aK, &nK);
  for (int i = 0; i < n && bOk; i++) {
    if (a[i].eKind != CXToken_Identifier) {
      if (a[i].eKind != CXToken_Keyword && a[i].eKind != CXToken_Punctuation && a[i].eKind != CXToken_Literal) bOk = 0;
      ks_buf_puts(&b, a[i].z);
      continue;
    }
    CXCursor d = clang_getCursorReferenced(cursor_at(pTu, a[i].iStart));
    enum CXCursorKind e = clang_getCursorKind(d);
    if (e == CXCursor_TypedefDecl || e == CXCursor_TypeAliasDecl) { /* (size_t)n */
      ks_buf_puts(&b, a[i].z);
      continue;
    }
    int iP = -1, iSeen = 0;
    for (int k = 0; k < nK; k++)
      if (clang_getCursorKind(aK[k]) == CXCursor_ParmDecl) {
        if (clang_equalCursors(aK[k], d)) iP = iSeen;
        iSeen++;
      }
    if (iP < 0 || clang_getCanonicalType(clang_getCursorType(d)).kind == CXType_Pointer) {
      bOk = 0;
      break;
    }
    ks_rw_tok *aA = NULL;
    int nA = 0;
    tok_span sa;
    bOk = launch_arg_span(pTu, pL, iP, &aA, &nA, &sa) && sa.hi - sa.lo == 1;
    if (bOk) {
      CXCursor ca = cursor_at(pTu, sa.a[sa.lo].iStart);
      CXType tArg;
      tArg.kind = CXType_Invalid;
      if (clang_getCursorKind(ca) == CXCursor_DeclRefExpr) {
        CXCursor da = clang_getCursorReferenced(ca);
        tArg = clang_getCursorType(da);
        if (!stable_var(pTu, fn, da, iHorizon)) *pbStable = 0;
      } else if (clang_getCursorKind(ca) == CXCursor_IntegerLiteral) {
        tArg = clang_getCursorType(ca);
      }
      bOk = tArg.kind != CXType_Invalid &&
            clang_equalTypes(clang_getCanonicalType(tArg), clang_getCanonicalType(clang_getCursorType(d)));
      if (bOk) ks_buf_puts(&b, sa.a[sa.lo].z);
    }
    ks_rw_tokens_free(aA, nA);
  }
  free(aK);
  ks_rw_tokens_free(a, n);
  char *z = ks_buf_detach(&b);
  if (!bOk) {
    free(z);
    return NULL;
  }
  if (z) strip_parens(z);
  return z;
}

/* ---- a grid written as a function-like macro use ---- */

typedef struct mac_find {
  const char *zName;
  CXCursor def;
  int n;
} mac_find;

static enum CXChildVisitResult mac_find_visit(CXCursor c, CXCursor parent, CXClientData pData) {
  (void)parent;
  mac_find *m = pData;
  if (clang_getCursorKind(c) != CXCursor_MacroDefinition) return CXChildVisit_Continue;
  CXString s = clang_getCursorSpelling(c);
  if (strcmp(clang_getCString(s), m->zName) == 0) {
    m->def = c;
    m->n++;
  }
  clang_disposeString(s);
  return CXChildVisit_Continue;
}

static int tok_push(ks_rw_tok **pa, int *pn, int *pnAlloc, const ks_rw_tok *t, int bMain) {
  if (*pn >= *pnAlloc) {
    int nNew = *pnAlloc ? 2 * *pnAlloc : 32;
    ks_rw_tok *a = realloc(*pa, sizeof(ks_rw_tok) * (size_t)nNew);
    if (!a) return -1;
    *pa = a;
    *pnAlloc = nNew;
  }
  ks_rw_tok *d = &(*pa)[(*pn)++];
  d->eKind = t->eKind;
  d->z = ks_strdup(t->z);
  d->iStart = bMain ? t->iStart : 0; /* the definition's tokens have no main-file place */
  d->iEnd = bMain ? t->iEnd : 0;
  return d->z ? 0 : -1;
}

/* When span e is exactly NAME(args) and NAME is the one function-like macro
 * of that name in the translation unit (no #, ##, variadics), the tokens of
 * its expansion, one level deep: the parameters replaced by the arguments'
 * own tokens (they keep their places in the file; the definition's tokens get
 * place 0). 1 and *paX (ks_rw_tokens_free), else 0. The grid check then reads
 * what the compiler reads; the edit still replaces the macro use whole. */
static int expand_macro_span(ks_tu *pTu, const tok_span *e, ks_rw_tok **paX, int *pnX) {
  ks_rw_tok *aDef = NULL, *aX = NULL;
  int nDef = 0, nX = 0, nXAlloc = 0, bOk = 0;
  int aArgLo[16], aArgHi[16], nArg = 0;
  *paX = NULL;
  *pnX = 0;
  if (e->hi - e->lo < 3 || e->a[e->lo].eKind != CXToken_Identifier || !tok_is(e, e->lo + 1, "(") ||
      tok_close(e, e->lo + 1) != e->hi - 1)
    return 0;
  /* the arguments: split at commas of depth 1 */
  int nDepth = 0, iArg0 = e->lo + 2;
  for (int i = e->lo + 1; i < e->hi; i++) {
    const char *z = e->a[i].z;
    if (strcmp(z, "(") == 0 || strcmp(z, "[") == 0 || strcmp(z, "{") == 0) nDepth++;
    else if (strcmp(z, ")") == 0 || strcmp(z, "]") == 0 || strcmp(z, "}") == 0) nDepth--;
    if ((nDepth == 1 && strcmp(z, ",") == 0) || (nDepth == 0 && i == e->hi - 1)) {
      if (nArg == 16 || i == iArg0) return 0;
      aArgLo[nArg] = iArg0;
      aArgHi[nArg++] = i;
      iArg0 = i + 1;
    }
  }
  mac_find m = {e->a[e->lo].z, clang_getNullCursor(), 0};
  clang_visitChildren(clang_getTranslationUnitCursor(pTu->pTu), mac_find_visit, &m);
  if (m.n != 1 || !clang_Cursor_isMacroFunctionLike(m.def)) return 0;
  CXToken *aTok = NULL;
  unsigned nTok = 0;
  clang_tokenize(pTu->pTu, clang_getCursorExtent(m.def), &aTok, &nTok);
  aDef = calloc((size_t)nTok + 1, sizeof(ks_rw_tok));
  for (unsigned i = 0; aDef && i < nTok; i++) {
    CXString sp = clang_getTokenSpelling(pTu->pTu, aTok[i]);
    aDef[nDef].eKind = clang_getTokenKind(aTok[i]);
    aDef[nDef].z = ks_strdup(clang_getCString(sp));
    clang_disposeString(sp);
    if (aDef[nDef].eKind != CXToken_Comment) nDef++;
    else free(aDef[nDef].z);
  }
  clang_disposeTokens(pTu->pTu, aTok, nTok);
  if (!aDef) return 0;
  /* NAME ( P1 , P2 ... ) BODY */
  tok_span d = {aDef, 0, nDef};
  int iParamEnd = tok_close(&d, 1);
  if (nDef < 3 || !tok_is(&d, 1, "(") || iParamEnd < 0) goto done;
  int nParam = 0;
  for (int i = 2; i < iParamEnd; i += 2) {
    if (aDef[i].eKind != CXToken_Identifier || !(tok_is(&d, i + 1, ",") || i + 1 == iParamEnd)) goto done;
    nParam++;
  }
  if (nParam != nArg) goto done;
  for (int i = iParamEnd + 1; i < nDef; i++) {
    if (strcmp(aDef[i].z, "#") == 0 || strcmp(aDef[i].z, "##") == 0 || strcmp(aDef[i].z, "__VA_ARGS__") == 0)
      goto done;
    int iP = -1;
    for (int k = 0; k < nParam && aDef[i].eKind == CXToken_Identifier; k++)
      if (strcmp(aDef[i].z, aDef[2 + 2 * k].z) == 0) iP = k;
    if (iP < 0) {
      if (tok_push(&aX, &nX, &nXAlloc, &aDef[i], 0) < 0) goto done;
    } else {
      for (int j = aArgLo[iP]; j < aArgHi[iP]; j++)
        if (tok_push(&aX, &nX, &nXAlloc, &e->a[j], 1) < 0) goto done;
    }
  }
  bOk = nX > 0;
done:
  ks_rw_tokens_free(aDef, nDef);
  if (!bOk) {
    ks_rw_tokens_free(aX, nX);
    return 0;
  }
  *paX = aX;
  *pnX = nX;
  return 1;
}

int ks_rw_launch_covers(ks_tu *pTu, CXCursor kernel, const ks_rw_pointwise *pPw, const ks_launch *pL,
                        ks_rw_cover *pOut) {
  ks_rw_tok *aG = NULL, *aV = NULL, *aN = NULL, *aBt = NULL, *aA = NULL, *aX = NULL;
  int nG = 0, nV = 0, nN = 0, nBt = 0, nA = 0, nX = 0, bOk = 0, bViaVar = 0;
  char *zB = NULL, *zDen = NULL, *zTarget = NULL, *zNsq = NULL, *zNinit = NULL;
  memset(pOut, 0, sizeof *pOut);
  unsigned gs, ge, bs, be;
  if (!pL->azCfg[0] || !pL->azCfg[1] || ks_rw_cfg_slot(pTu, pL, 0, &gs, &ge) < 0 ||
      ks_rw_cfg_slot(pTu, pL, 1, &bs, &be) < 0)
    return 0;
  CXCursor fn = ks_rw_host_fn(pTu, pL->iStart, pL->iEnd);
  if (clang_Cursor_isNull(fn)) return 0;
  unsigned iHz = launch_horizon(pTu, fn, pL);
  if (ks_rw_tokens(pTu, gs, ge, &aG, &nG) < 0 || nG == 0) goto done;
  tok_span g = {aG, 0, nG};
  tok_strip_parens(&g);
  unsigned iCastStart = aG[g.lo].iStart;
  int bCast = grid_cast(pTu, &g);
  unsigned iRest = aG[g.lo].iStart;
  tok_strip_parens(&g);
  /* The grid as written, or the stable local variable it names. */
  tok_span e = g;
  if (g.hi - g.lo == 1 && aG[g.lo].eKind == CXToken_Identifier) {
    if (!var_init_span(pTu, fn, &g, g.lo, pL->iStart, iHz, &aV, &nV, &e)) goto done;
    bViaVar = 1;
    tok_strip_parens(&e);
  }
  /* CEIL_DIV(N, B): what the macro expands to */
  if (expand_macro_span(pTu, &e, &aX, &nX)) {
    e.a = aX;
    e.lo = 0;
    e.hi = nX;
    tok_strip_parens(&e);
  }
  /* (N + B - 1) / B and its spellings. */
  int iSlash = -1, nDepth = 0;
  for (int i = e.lo; i < e.hi; i++) {
    const char *z = e.a[i].z;
    if (strcmp(z, "(") == 0) nDepth++;
    else if (strcmp(z, ")") == 0) nDepth--;
    else if (nDepth == 0 && strcmp(z, "/") == 0) {
      if (iSlash >= 0) goto done;
      iSlash = i;
    } else if (nDepth == 0 && e.a[i].eKind == CXToken_Punctuation) goto done; /* `(a+b)/c + 1` and friends */
  }
  if (iSlash < 0 || !tok_is(&e, e.lo, "(") || tok_close(&e, e.lo) != iSlash - 1) goto done;
  zB = squash_stripped(pL->azCfg[1]);
  {
    tok_span d = {e.a, iSlash + 1, e.hi};
    tok_strip_parens(&d);
    zDen = tok_squash(&d, d.lo, d.hi);
  }
  char zLit[32];
  snprintf(zLit, sizeof zLit, "%lld", pL->nBlockThreads);
  if (!zB || !zDen || !(strcmp(zDen, zB) == 0 || (pL->nBlockThreads > 0 && strcmp(zDen, zLit) == 0))) goto done;
  tok_span num = {e.a, e.lo + 1, iSlash - 1};
  int iSplit = -1;
  for (int j = num.hi - 1; j > num.lo && iSplit < 0; j--) {
    char *zSuf = tok_squash(&num, j, num.hi);
    const char *azD[2] = {zDen, zB};
    ks_buf c = KS_BUF_INIT;
    for (int k = 0; k < 2 && iSplit < 0; k++) {
      const char *azForm[4] = {"+%s-1", "+(%s-1)", "-1+%s", "+(%s)-1"};
      for (int m = 0; m < 4 && iSplit < 0; m++) {
        ks_buf_clear(&c);
        ks_buf_printf(&c, azForm[m], azD[k]);
        if (strcmp(zSuf, ks_buf_cstr(&c)) == 0) iSplit = j;
      }
    }
    if (iSplit < 0 && pL->nBlockThreads > 0) {
      ks_buf_clear(&c);
      ks_buf_printf(&c, "+%lld", pL->nBlockThreads - 1);
      if (strcmp(zSuf, ks_buf_cstr(&c)) == 0) iSplit = j;
    }
    ks_buf_free(&c);
    free(zSuf);
  }
  if (iSplit < 0) goto done;
  tok_span nsp = {e.a, num.lo, iSplit};
  tok_strip_parens(&nsp);
  if (nsp.hi <= nsp.lo) goto done;
  zNsq = tok_squash(&nsp, nsp.lo, nsp.hi);
  /* N may itself be a stable local (`long long n = (long long)rows * cols;`). */
  tok_span ninit = {NULL, 0, 0};
  if (nsp.hi - nsp.lo == 1 && nsp.a[nsp.lo].eKind == CXToken_Identifier &&
      var_init_span(pTu, fn, &nsp, nsp.lo, pL->iStart, iHz, &aN, &nN, &ninit)) {
    tok_strip_parens(&ninit);
    zNinit = tok_squash(&ninit, ninit.lo, ninit.hi);
  }
  /* What the kernel's guard compares with, seen from the launch. */
  int bArgsStable = 1;
  if (pPw->iBoundParam >= 0) {
    tok_span sa;
    if (!launch_arg_span(pTu, pL, pPw->iBoundParam, &aA, &nA, &sa)) goto done;
    zTarget = tok_squash(&sa, sa.lo, sa.hi);
    strip_parens(zTarget);
    bArgsStable = span_stable(pTu, fn, &sa, sa.lo, sa.hi, iHz);
  } else {
    zTarget = bound_at_launch(pTu, kernel, pPw, pL, fn, iHz, &bArgsStable);
  }
  if (!zTarget) goto done;
  int bDirect = strcmp(zNsq, zTarget) == 0;
  int bViaInit = !bDirect && zNinit && strcmp(zNinit, zTarget) == 0;
  if (!bDirect && !bViaInit) goto done;
  /* Values computed before the launch must still hold there: the grid's
   * variable and what it was computed from, N's variable, the block, and the
   * arguments the kernel's bound is made of. Everything written inline in the
   * launch is evaluated there, as before. */
  if (bViaVar || bViaInit) {
    if (!bArgsStable) goto done;
    if (bViaVar && !span_stable(pTu, fn, &e, e.lo, e.hi, iHz)) goto done;
    if (bViaInit && !span_stable(pTu, fn, &ninit, ninit.lo, ninit.hi, iHz)) goto done;
    if (ks_rw_tokens(pTu, bs, be, &aBt, &nBt) < 0) goto done;
    tok_span sb = {aBt, 0, nBt};
    if (!span_stable(pTu, fn, &sb, 0, nBt, iHz)) goto done;
  }
  bOk = 1;
  if (pPw->iBoundParam >= 0 && !bViaVar && bDirect) pOut->zN = ks_strdup(pL->azArg[pPw->iBoundParam]);
  else {
    /* N as written in the file: its tokens must be one run of it (a macro's
     * definition tokens have no place here) */
    unsigned ns = nsp.a[nsp.lo].iStart, ne = nsp.a[nsp.hi - 1].iEnd;
    char *zRun = ne > ns ? ks_rw_squash(pTu, ns, ne) : NULL;
    int bRun = zRun && strcmp(zRun, zNsq) == 0;
    free(zRun);
    if (!bRun) {
      bOk = 0;
      goto done;
    }
    pOut->zN = ks_strdup(pTu->zSrc + ns);
    if (pOut->zN) pOut->zN[ne - ns] = 0;
  }
  pOut->zB = ks_strdup(pL->azCfg[1]);
  pOut->zCast = ks_strdup(pTu->zSrc + iCastStart);
  if (pOut->zCast) pOut->zCast[bCast ? iRest - iCastStart : 0] = 0;
  if (!pOut->zN || !pOut->zB || !pOut->zCast) bOk = 0;
done:
  if (!bOk) ks_rw_cover_free(pOut);
  ks_rw_tokens_free(aG, nG);
  ks_rw_tokens_free(aV, nV);
  ks_rw_tokens_free(aN, nN);
  ks_rw_tokens_free(aBt, nBt);
  ks_rw_tokens_free(aA, nA);
  ks_rw_tokens_free(aX, nX);
  free(zB);
  free(zDen);
  free(zTarget);
  free(zNsq);
  free(zNinit);
  return bOk;
}

char *ks_rw_cover_grid(const ks_rw_cover *pC, const char *zGrid) {
  ks_buf b = KS_BUF_INIT;
  if (pC->zCast && pC->zCast[0]) ks_buf_printf(&b, "%s(%s)", pC->zCast, zGrid);
  else ks_buf_puts(&b, zGrid);
  return ks_buf_detach(&b);
}

int ks_rw_covered_launches(ks_rewrite *p, CXCursor kernel, const ks_rw_pointwise *pPw, const char *zWhyNeeded,
                           ks_launch **paL, int *pnL, ks_rw_cover **paCov) {
  ks_tu *pTu = ks_rewrite_tu(p);
  ks_launch *aL = NULL;
  ks_rw_cover *aCov = NULL;
  int nL = 0;
  int rc = ks_rw_launch_contract(p, ks_rewrite_kernel_name(p));
  if (rc < 0) return rc;
  rc = ks_ast_launches(pTu, ks_rewrite_kernel_name(p), &aL, &nL);
  if (rc < 0) return rc;
  if (nL == 0) {
    rc = ks_rewrite_refuse(p, "no launch site of the kernel in this file (%s)", zWhyNeeded);
    goto fail;
  }
  aCov = calloc((size_t)nL, sizeof(ks_rw_cover));
  if (!aCov) {
    rc = ks_error_set(KS_ENOMEM, "out of memory");
    goto fail;
  }
  for (int i = 0; i < nL; i++) {
    if (!ks_rw_launch_covers(pTu, kernel, pPw, &aL[i], &aCov[i])) {
      rc = ks_rewrite_refuse(p, "%s:%u: cannot tell that the grid '%s' covers the guard's bound '%s' (expected (N + B - 1) / B)",
                             pTu->zFile, aL[i].iLine, aL[i].azCfg[0] ? aL[i].azCfg[0] : "?", pPw->zBound);
      goto fail;
    }
  }
  *paL = aL;
  *pnL = nL;
  *paCov = aCov;
  return KS_OK;
fail:
  ks_rw_covers_free(aCov, nL);
  ks_ast_launches_free(aL, nL);
  return rc;
}

void ks_rw_covers_free(ks_rw_cover *a, int n) {
  for (int i = 0; a && i < n; i++) ks_rw_cover_free(&a[i]);
  free(a);
}

int ks_rw_other_use(ks_tu *pTu, const char *zKernel, unsigned *piLine, char *zHow, size_t nHow) {
  ks_shape_use *aU = NULL;
  int nU = 0, rc = ks_shape_uses(pTu, zKernel, &aU, &nU);
  if (rc < 0) return rc;
  for (int i = 0; i < nU && rc == 0; i++) {
    if (aU[i].eKind == KS_USE_LAUNCH || aU[i].eKind == KS_USE_QUERY) continue;
    *piLine = aU[i].iLine;
    snprintf(zHow, nHow, "%s", aU[i].zHow ? aU[i].zHow : "reference");
    rc = 1;
  }
  ks_shape_uses_free(aU, nU);
  return rc;
}

int ks_rw_launch_contract(ks_rewrite *p, const char *zKernel) {
  ks_tu *pTu = ks_rewrite_tu(p);
  unsigned iLine = 0;
  char zHow[64];
  int rc = ks_rw_other_use(pTu, zKernel, &iLine, zHow, sizeof zHow);
  if (rc <= 0) return rc;
  return ks_rewrite_refuse(p, "%s:%u: '%s' is also used here (%s), which this rule cannot rewrite; it changes the "
                              "kernel's launch contract, so every use must be a <<<>>> launch it can update",
                           pTu->zFile, iLine, zKernel, zHow);
}

int ks_rw_kernel_launches(ks_rewrite *p, const char *zKernel, ks_launch **paOut, int *pnOut) {
  *paOut = NULL;
  *pnOut = 0;
  int rc = ks_rw_launch_contract(p, zKernel);
  if (rc < 0) return rc;
  rc = ks_ast_launches(ks_rewrite_tu(p), zKernel, paOut, pnOut);
  if (rc < 0 || *pnOut > 0) return rc;
  ks_ast_launches_free(*paOut, *pnOut);
  *paOut = NULL;
  return ks_rewrite_refuse(p, "no launch of '%s' in this file: the launch configuration must change with the kernel",
                           zKernel);
}

int ks_rw_require_class(ks_rewrite *p, CXCursor kernel, int eClass) {
  ks_shape *pS = NULL;
  int rc = ks_shape_build(ks_rewrite_tu(p), kernel, &pS);
  if (rc < 0) return rc;
  if ((int)pS->eClass != eClass)
    rc = ks_rewrite_refuse(p, "the kernel-shape model classes '%s' as %s (%s); this rule needs the %s shape",
                           pS->zKernel, ks_shape_class_name(pS->eClass), pS->zWhy ? pS->zWhy : "",
                           ks_shape_class_name((ks_shape_class)eClass));
  ks_shape_free(pS);
  return rc;
}

int ks_rw_refuse_class(ks_rewrite *p, CXCursor kernel, int eClass) {
  ks_shape *pS = NULL;
  int rc = ks_shape_build(ks_rewrite_tu(p), kernel, &pS);
  if (rc < 0) return rc;
  if ((int)pS->eClass == eClass)
    rc = ks_rewrite_refuse(p, "the kernel-shape model classes '%s' as %s (%s), which this rule must not rewrite",
                           pS->zKernel, ks_shape_class_name(pS->eClass), pS->zWhy ? pS->zWhy : "");
  ks_shape_free(pS);
  return rc;
}

static int no_jump(CXCursor c, const CXCursor *aAnc, int nAnc, void *pArg) {
  (void)aAnc;
  (void)nAnc;
  enum CXCursorKind e = clang_getCursorKind(c);
  if (e == CXCursor_BreakStmt || e == CXCursor_ContinueStmt) {
    *(int *)pArg = 1;
    return -1;
  }
  return 0;
}

int ks_rw_gridstride_match(ks_tu *pTu, CXCursor kernel, ks_rw_pointwise *pOut, char **pzWhy) {
  const char *zWhy = NULL;
  CXCursor aSt[2], aFor[5], aDecl[2], aInit[4], aCond[3];
  body_check bc;
  memset(&bc, 0, sizeof bc);
  memset(pOut, 0, sizeof *pOut);
  pOut->iBoundParam = -1;
  CXCursor body = ks_rw_body(kernel), *aAll = NULL;
  unsigned s, e;
  int nAll = 0, iFor = 0;
  /* Index temporaries may come first (const int tid = ...; const int stride =
   * blockDim.x * gridDim.x;): they stay, and the body must not read them. */
  if (!clang_Cursor_isNull(body)) ks_rw_children(body, &aAll, &nAll);
  while (iFor + 1 < nAll && clang_getCursorKind(aAll[iFor]) == CXCursor_DeclStmt) {
    CXCursor aD[8], aI[4];
    int nD = ks_rw_kids(aAll[iFor], aD, 8), bOk = nD >= 1 && nD <= 8;
    for (int d = 0; d < nD && bOk; d++) {
      int nI = clang_getCursorKind(aD[d]) == CXCursor_VarDecl ? ks_rw_kids(aD[d], aI, 4) : 0;
      bOk = nI >= 1 && nI <= 4 && bc.nTemp < 8 && ks_rw_is_integer_type(clang_getCursorType(aD[d])) &&
            clang_isExpression(clang_getCursorKind(aI[nI - 1])) && ks_rw_pure_expr(aI[nI - 1]);
      if (bOk) bc.aTemp[bc.nTemp++] = aD[d];
    }
    if (!bOk) break;
    iFor++;
  }
  aSt[0] = iFor < nAll ? aAll[iFor] : clang_getNullCursor();
  free(aAll);
  if (clang_Cursor_isNull(body) || iFor + 1 != nAll || clang_getCursorKind(aSt[0]) != CXCursor_ForStmt ||
      ks_rw_kids(aSt[0], aFor, 5) != 4) {
    zWhy = "the kernel body is not one grid-stride loop";
    goto done;
  }
  if (ks_ast_extent(pTu, body, &s, &e) == 0 && ks_rw_has_word(pTu, s, e, "__shared__")) {
    zWhy = "the kernel uses __shared__ memory";
    goto done;
  }
  int nInit = 0;
  if (clang_getCursorKind(aFor[0]) != CXCursor_DeclStmt || ks_rw_kids(aFor[0], aDecl, 2) != 1 ||
      clang_getCursorKind(aDecl[0]) != CXCursor_VarDecl || !ks_rw_is_integer_type(clang_getCursorType(aDecl[0])) ||
      (nInit = ks_rw_kids(aDecl[0], aInit, 4)) < 1 || nInit > 4 ||
      ks_rw_thread_index(pTu, kernel, aInit[nInit - 1], &pOut->bWideIndex) != 0) {
    zWhy = "the loop does not start at the global index (for (T i = blockIdx.x * blockDim.x + threadIdx.x; ...))";
    goto done;
  }
  pOut->idx = aDecl[0];
  CXCursor cond = ks_rw_strip(aFor[1]);
  if (clang_getCursorKind(cond) != CXCursor_BinaryOperator || clang_getCursorBinaryOperatorKind(cond) != CXBinaryOperator_LT ||
      ks_rw_kids(cond, aCond, 3) != 2 || !ks_rw_is_ref_to(aCond[0], pOut->idx) || !ks_rw_pure_expr(aCond[1])) {
    zWhy = "the loop condition is not i < N with N free of loads and calls";
    goto done;
  }
  /* The step is the kernel-shape model's call: blockDim.x * gridDim.x through
   * temporaries and casts ((size_t)blockDim.x * gridDim.x), x dimension. */
  int bStep = 0;
  ks_shape *pS = NULL;
  if (ks_shape_build(pTu, kernel, &pS) == 0)
    for (int i = 0; i < pS->nLoop; i++)
      if (clang_equalCursors(pS->aLoop[i].cursor, aSt[0]) && pS->aLoop[i].bGridStride && pS->aLoop[i].iDim == 0)
        bStep = 1;
  ks_shape_free(pS);
  if (!bStep) {
    zWhy = "the loop does not step by blockDim.x * gridDim.x";
    goto done;
  }
  unsigned bs, be, ts, te;
  if (ks_ast_extent(pTu, aCond[1], &bs, &be) < 0 || ks_ast_extent(pTu, aFor[3], &ts, &te) < 0 ||
      ks_ast_extent(pTu, aSt[0], &pOut->iHeadStart, &pOut->iRegionEnd) < 0) {
    zWhy = "the loop is not in the file";
    goto done;
  }
  /* A loop header spelled by a macro (CUDA_1D_KERNEL_LOOP(i, n)): N must be
   * a parameter, named as such; the rewrite replaces the macro's use whole. */
  int bMacroHead;
  {
    CXSourceLocation loc = clang_getRangeStart(clang_getCursorExtent(aCond[1]));
    CXFile fE, fS;
    unsigned oE, oS;
    clang_getExpansionLocation(loc, &fE, NULL, NULL, &oE);
    clang_getSpellingLocation(loc, &fS, NULL, NULL, &oS);
    bMacroHead = !fE || !fS || !clang_File_isEqual(fE, fS) || oE != oS;
  }
  if (bMacroHead) {
    CXCursor d = ks_rw_ref_decl(aCond[1]);
    int iP = clang_Cursor_isNull(d) ? -1 : ks_rw_param_index(kernel, d);
    char *zN = iP >= 0 ? ks_rw_spelling(d) : NULL;
    if (!zN || ks_rw_has_word(pTu, ts, te, zN)) {
      free(zN);
      zWhy = "the loop bound is written in a macro and is not a parameter the body leaves alone";
      goto done;
    }
    pOut->bound = aCond[1];
    pOut->zBound = zN;
    pOut->iBoundParam = iP;
  } else {
  /* N is evaluated once by the rewrite: none of its names may change in the body. */
  {
    ks_rw_tok *aT = NULL;
    int nT = 0;
    if (ks_rw_tokens(pTu, bs, be, &aT, &nT) < 0) {
      zWhy = "out of memory";
      goto done;
    }
    for (int i = 0; i < nT && !zWhy; i++)
      if (aT[i].eKind == CXToken_Identifier && ks_rw_has_word(pTu, ts, te, aT[i].z))
        zWhy = "a name of the loop bound N is used in the loop body";
    ks_rw_tokens_free(aT, nT);
    if (zWhy) goto done;
  }
  pOut->bound = aCond[1];
  pOut->zBound = ks_strdup(pTu->zSrc + bs);
  if (pOut->zBound) pOut->zBound[be - bs] = 0;
  CXCursor d = ks_rw_ref_decl(aCond[1]);
  if (!clang_Cursor_isNull(d)) pOut->iBoundParam = ks_rw_param_index(kernel, d);
  }
  pOut->zIdx = ks_rw_spelling(aDecl[0]);
  {
    CXString st = clang_getTypeSpelling(clang_getCursorType(aDecl[0]));
    pOut->zIdxType = ks_strdup(clang_getCString(st));
    clang_disposeString(st);
  }
  if (!pOut->zIdx || !pOut->zIdxType || !pOut->zBound) {
    zWhy = "out of memory";
    goto done;
  }
  pOut->body = aFor[3];
  pOut->bGridStride = 1;
  if (clang_getCursorKind(aFor[3]) == CXCursor_CompoundStmt) {
    pOut->iHeadEnd = pOut->iBodyStart = ts + 1;
    pOut->iBodyEnd = te - 1;
  } else {
    pOut->iHeadEnd = pOut->iBodyStart = ts;
    pOut->iBodyEnd = stmt_end(pTu, aFor[3]);
  }
  bc.idx = pOut->idx;
  ks_rw_walk(aFor[3], check_body, &bc);
  if (clang_getCursorKind(aFor[3]) != CXCursor_CompoundStmt && !bc.zWhy) check_body(aFor[3], NULL, 0, &bc);
  int bJump = 0;
  ks_rw_walk(aFor[3], no_jump, &bJump);
  if (bc.zWhy) zWhy = bc.zWhy;
  else if (bJump) zWhy = "the grid-stride loop's body has a break or continue";
done:
  if (zWhy) {
    ks_rw_pointwise_free(pOut);
    if (pzWhy) *pzWhy = ks_strdup(zWhy);
    return -1;
  }
  return 0;
}

int ks_rw_pointwise_kernel(ks_rewrite *p, const char *zAlready, CXCursor *pKernel, ks_rw_pointwise *pPw) {
  ks_tu *pTu = ks_rewrite_tu(p);
  unsigned iStart, iEnd;
  char *zWhy = NULL;
  memset(pPw, 0, sizeof *pPw);
  *pKernel = ks_ast_find_kernel(pTu, ks_rewrite_kernel_name(p));
  if (ks_ast_extent(pTu, *pKernel, &iStart, &iEnd) < 0) return ks_rewrite_refuse(p, "the kernel is not in the main file");
  if (zAlready && ks_rewrite_has_note(p, iStart, iEnd, NULL)) return ks_rewrite_already(p, "%s", zAlready);
  if (ks_rw_pointwise_match(pTu, *pKernel, pPw, &zWhy) == 0) return KS_OK;
  int rc = ks_rewrite_refuse(p, "not a pointwise kernel: %s", zWhy ? zWhy : "out of memory");
  free(zWhy);
  return rc;
}

int ks_rw_int_param(ks_rewrite *p, const char *zRule, const char *zName, const char *zDefault, long nMin, long nMax,
                    long *pn) {
  const char *z = ks_rewrite_param(p, zName, zDefault);
  if (!z) return ks_error_set(KS_EUSAGE, "rule %s: the parameter %s=N is required", zRule, zName);
  char *zEndNum;
  errno = 0;
  long n = strtol(z, &zEndNum, 10);
  if (!z[0] || *zEndNum || errno || n < nMin || n > nMax)
    return ks_error_set(KS_EUSAGE, "rule %s: %s must be %ld..%ld, not '%s'", zRule, zName, nMin, nMax, z);
  *pn = n;
  return KS_OK;
}

int ks_rw_scale_grids(ks_rewrite *p, const ks_launch *aL, int nL, const ks_rw_cover *aCov, long nPer, const char *zNote) {
  ks_tu *pTu = ks_rewrite_tu(p);
  ks_buf b = KS_BUF_INIT;
  int rc = KS_OK;
  for (int i = 0; i < nL && rc >= 0; i++) {
    unsigned gs, ge;
    if (ks_rw_cfg_slot(pTu, &aL[i], 0, &gs, &ge) < 0) continue;
    char *zN = ks_rw_paren(aCov[i].zN), *zB = ks_rw_paren(aCov[i].zB);
    ks_buf_clear(&b);
    if (zN && zB) ks_buf_printf(&b, "(%s + %s * %ld - 1) / (%s * %ld)", zN, zB, nPer, zB, nPer);
    free(zN);
    free(zB);
    char *zGrid = b.n ? ks_rw_cover_grid(&aCov[i], ks_buf_cstr(&b)) : NULL;
    rc = zGrid ? ks_rewrite_replace(p, gs, ge, zGrid) : ks_error_set(KS_ENOMEM, "out of memory");
    free(zGrid);
    if (rc >= 0) rc = ks_rewrite_note(p, aL[i].iStart, zNote);
  }
  ks_buf_free(&b);
  return rc;
}

unsigned ks_rw_after_stmt(ks_tu *pTu, unsigned iEnd) {
  const char *z = pTu->zSrc;
  unsigned i = iEnd, n = (unsigned)pTu->nSrc;
  while (i < n && (z[i] == ' ' || z[i] == '\t')) i++;
  if (i < n && z[i] == ';') iEnd = ++i;
  while (i < n && (z[i] == ' ' || z[i] == '\t')) i++;
  if (i + 1 < n && z[i] == '/' && z[i + 1] == '/')
    while (i < n && z[i] != '\n') i++;
  if (i >= n || z[i] == '\n' || z[i] == '\r') return i;
  return iEnd;
}

int ks_rw_kids(CXCursor c, CXCursor *a, int nMax) {
  CXCursor *aAll;
  int n;
  ks_rw_children(c, &aAll, &n);
  for (int i = 0; i < n && i < nMax; i++) a[i] = aAll[i];
  free(aAll);
  return n;
}

char *ks_rw_squash_cursor(ks_tu *pTu, CXCursor c) {
  unsigned s, e;
  if (ks_ast_extent(pTu, c, &s, &e) < 0) return NULL;
  return ks_rw_squash(pTu, s, e);
}

int ks_rw_shipped_block(ks_rewrite *p, const char *zGuard, const char *zName, const char *zLabel, const char *zWhat,
                        ks_buf *pOut) {
  return ks_rw_shipped_block_before(p, zGuard, zName, zLabel, zWhat, (unsigned)-1, pOut);
}

int ks_rw_shipped_block_before(ks_rewrite *p, const char *zGuard, const char *zName, const char *zLabel,
                               const char *zWhat, unsigned iBefore, ks_buf *pOut) {
  ks_tu *pTu = ks_rewrite_tu(p);
  ks_buf rel = KS_BUF_INIT;
  char *zData = NULL, *zPath = NULL, *zTmpl = NULL;
  size_t nTmpl = 0;
  int rc = KS_OK;
  const char *zAt = strstr(pTu->zSrc, zGuard);
  if (zAt && (unsigned)(zAt - pTu->zSrc) < iBefore) return KS_OK;
  if ((rc = ks_path_datadir(&zData)) < 0) goto done;
  if ((rc = ks_buf_printf(&rel, "templates/%s", zName)) < 0) goto done;
  if (!(zPath = ks_path_join(zData, rel.z))) {
    rc = ks_error_set(KS_ENOMEM, "out of memory");
    goto done;
  }
  if ((rc = ks_file_read(zPath, &zTmpl, &nTmpl)) < 0) {
    rc = ks_error_set(KS_EUNAVAIL, "%s: cannot read the %s (reinstall, or set KS_DATADIR)", zPath, zLabel);
    goto done;
  }
  /* A provenance note like the others (skill first): readers of the
   * `// kernelskill:` marks take their first word for a skill id. */
  char *zTn = ks_rewrite_note_text(p, zWhat);
  rc = zTn ? ks_buf_printf(pOut, "%s\n", zTn) : ks_error_set(KS_ENOMEM, "out of memory");
  free(zTn);
  if (rc >= 0) rc = ks_buf_append(pOut, zTmpl, nTmpl);
  if (rc >= 0 && nTmpl && zTmpl[nTmpl - 1] != '\n') rc = ks_buf_puts(pOut, "\n");
  if (rc >= 0) rc = ks_buf_puts(pOut, "\n");
done:
  ks_buf_free(&rel);
  free(zData);
  free(zPath);
  free(zTmpl);
  return rc;
}

/* The namespace or linkage block at file scope that holds main-file offset
 * iAt: its extent's start into *piStart; 0 when iAt is at file scope. */
typedef struct outer_find {
  ks_tu *pTu;
  unsigned iAt, iStart;
  int bFound;
} outer_find;

static enum CXChildVisitResult outer_find_visit(CXCursor c, CXCursor parent, CXClientData pData) {
  (void)parent;
  outer_find *f = pData;
  enum CXCursorKind e = clang_getCursorKind(c);
  unsigned s, t;
  if (e != CXCursor_Namespace && e != CXCursor_LinkageSpec) return CXChildVisit_Continue;
  if (ks_ast_extent(f->pTu, c, &s, &t) < 0 || f->iAt < s || f->iAt >= t) return CXChildVisit_Continue;
  f->iStart = s;
  f->bFound = 1;
  return CXChildVisit_Break;
}

unsigned ks_rw_file_scope_at(ks_rewrite *p, unsigned iLine0, unsigned iDefault) {
  ks_tu *pTu = ks_rewrite_tu(p);
  outer_find of = {pTu, iLine0, 0, 0};
  ks_ast_visit_top(pTu, outer_find_visit, &of);
  unsigned nIgnore = 0;
  return of.bFound ? ks_rewrite_comments_above(p, ks_rewrite_line_start(p, of.iStart, &nIgnore)) : iDefault;
}

int ks_rw_kernel_in_namespaces(CXCursor kernel) {
  for (CXCursor c = clang_getCursorSemanticParent(kernel);; c = clang_getCursorSemanticParent(c)) {
    enum CXCursorKind e = clang_getCursorKind(c);
    if (e == CXCursor_TranslationUnit) return 1;
    if (e != CXCursor_Namespace && e != CXCursor_LinkageSpec) return 0;
  }
}

int ks_rw_insert_shipped(ks_rewrite *p, unsigned iLine0, unsigned nIndent, const char *zGuard, const char *zName,
                         const char *zLabel, const char *zWhat, const char *zNote) {
  ks_tu *pTu = ks_rewrite_tu(p);
  ks_buf ins = KS_BUF_INIT, kn = KS_BUF_INIT;
  /* the header goes above the comments that belong to the kernel, so that an
   * earlier rule's note stays attached to it; for a kernel in a namespace (or
   * an extern "C" block), above the outermost one, at file scope, where the
   * header's includes and namespace may stand */
  unsigned iTop = ks_rw_file_scope_at(p, iLine0, ks_rewrite_comments_above(p, iLine0));
  int rc = ks_rw_shipped_block(p, zGuard, zName, zLabel, zWhat, &ins);
  char *zKn = rc >= 0 ? ks_rewrite_note_text(p, zNote) : NULL;
  if (rc >= 0 && !zKn) rc = ks_error_set(KS_ENOMEM, "out of memory");
  if (rc >= 0) rc = ks_buf_printf(iTop < iLine0 ? &kn : &ins, "%.*s%s\n", (int)nIndent, pTu->zSrc + iLine0, zKn);
  free(zKn);
  if (rc >= 0 && ins.n) rc = ks_rewrite_replace(p, iTop, iTop, ins.z);
  if (rc >= 0 && kn.n) rc = ks_rewrite_replace(p, iLine0, iLine0, kn.z);
  ks_buf_free(&ins);
  ks_buf_free(&kn);
  return rc;
}

int ks_rw_launch_stmt_end(ks_rewrite *p, const ks_launch *pL, const char *zKernel, const char *zWhy,
                          unsigned *piSemi) {
  ks_tu *pTu = ks_rewrite_tu(p);
  unsigned iSemi = pL->iEnd;
  while (iSemi < pTu->nSrc && (pTu->zSrc[iSemi] == ' ' || pTu->zSrc[iSemi] == '\t')) iSemi++;
  if (!pL->bStmt || iSemi >= pTu->nSrc || pTu->zSrc[iSemi] != ';')
    return ks_rewrite_refuse(p, "%s:%u: the launch of '%s' is not a statement of its own; %s", pTu->zFile, pL->iLine,
                             zKernel, zWhy);
  *piSemi = iSemi;
  return KS_OK;
}

int ks_rw_launch_arity(ks_rewrite *p, const ks_launch *pL, CXCursor kernel, const char *zKernel) {
  int nParams = ks_rw_param_count(kernel);
  if (pL->nArgs == nParams) return KS_OK;
  return ks_rewrite_refuse(p, "%s:%u: launch of '%s' passes %d arguments for %d parameters", ks_rewrite_tu(p)->zFile,
                           pL->iLine, zKernel, pL->nArgs, nParams);
}

int ks_rw_cfg_tail(ks_buf *pCfg, const ks_launch *pL) {
  int rc = KS_OK;
  if (pL->azCfg[2]) rc = ks_buf_printf(pCfg, ", %s", pL->azCfg[2]);
  if (rc >= 0 && pL->azCfg[3]) rc = ks_buf_printf(pCfg, ", %s", pL->azCfg[3]);
  return rc;
}

int ks_rw_arg_pure(const char *z) {
  static const char *const azOk[] = {"sizeof", "alignof", "int", "long", "unsigned", "signed", "size_t", 0};
  for (const char *q = z; *q; q++) {
    if (*q == '=' || (q[0] == '+' && q[1] == '+') || (q[0] == '-' && q[1] == '-')) return 0;
    if (!isalnum((unsigned char)*q) && !strchr("_ \t\n()*+-/%.:<>", *q)) return 0; /* no ?, [, ->, , */
    if (*q != '(') continue;
    const char *e = q;
    while (e > z && (e[-1] == ' ' || e[-1] == '\t')) e--;
    const char *b = e;
    while (b > z && (isalnum((unsigned char)b[-1]) || b[-1] == '_')) b--;
    if (b == e) continue;
    int bOk = 0; /* a cast's type keyword or sizeof / alignof, else a call */
    for (int i = 0; azOk[i]; i++) bOk |= (size_t)(e - b) == strlen(azOk[i]) && !strncmp(b, azOk[i], (size_t)(e - b));
    if (!bOk) return 0;
  }
  return 1;
}

/* ---- a new last parameter (ks_rw_new_param_why, rwutil.h) ---- */

const char *ks_rw_new_param_why(ks_rewrite *p, CXCursor k, char *zBuf, size_t nBuf, ks_launch **paL, int *pnL) {
  ks_tu *pTu = ks_rewrite_tu(p);
  const char *zK = ks_rewrite_kernel_name(p);
  ks_shape_use *aU = NULL;
  ks_launch *aL = NULL;
  int nU = 0, nL = 0, nLaunchUses = 0;
  *paL = NULL;
  *pnL = 0;
  if (!clang_equalCursors(clang_getCanonicalCursor(k), k))
    return "the kernel is declared before its definition (the declaration would keep the old parameters)";
  CXString m = clang_Cursor_getMangling(k);
  int bC = strcmp(clang_getCString(m), zK) == 0;
  clang_disposeString(m);
  if (bC) return "the kernel has C linkage (another file could launch it without the new parameter)";
  int nArg = ks_rw_param_count(k);
  for (int i = 0; i < nArg; i++) {
    CXCursor a[2];
    if (ks_rw_kids(ks_rw_param_at(k, i), a, 2) > 0 && clang_isExpression(clang_getCursorKind(a[0])))
      return "a parameter has a default argument";
  }
  if (nArg <= 0) return "the kernel has no parameters the new one could follow";
  if (ks_shape_uses(pTu, zK, &aU, &nU) < 0 || ks_ast_launches(pTu, zK, &aL, &nL) < 0) {
    snprintf(zBuf, nBuf, "the kernel's uses could not be listed");
    goto fail;
  }
  for (int i = 0; i < nU; i++) {
    if (aU[i].eKind == KS_USE_LAUNCH) nLaunchUses++;
    else if (aU[i].eKind != KS_USE_QUERY) {
      snprintf(zBuf, nBuf, "%s:%u: the kernel is also used here (%s)", pTu->zFile, aU[i].iLine,
               aU[i].zHow ? aU[i].zHow : "reference");
      goto fail;
    }
  }
  if (nL == 0 || nL != nLaunchUses) {
    snprintf(zBuf, nBuf, nL ? "not every launch is a <<<>>> launch written in this file" : "no launch in this file");
    goto fail;
  }
  for (int i = 0; i < nL; i++) {
    const ks_launch *pL = &aL[i];
    const char *z = pTu->zSrc;
    unsigned e = pL->iEnd, gs, ge;
    while (z[e] == ' ' || z[e] == '\t' || z[e] == '\n' || z[e] == '\r') e++;
    const char *zNo = NULL;
    if (!pL->bStmt || z[e] != ';' || pL->iEnd == 0 || z[pL->iEnd - 1] != ')') zNo = "is not a statement of its own";
    else if (pL->nArgs != nArg) zNo = "passes another number of arguments than the kernel has parameters";
    else if (ks_rw_cfg_slot(pTu, pL, 0, &gs, &ge) < 0 || z[gs] == '{') zNo = "has no grid the rule can read";
    else if (ks_rw_has_word(pTu, pL->iStart, pL->iEnd, "ks_g") || ks_rw_has_word(pTu, pL->iStart, pL->iEnd, "ks_b"))
      zNo = "already names ks_g or ks_b";
    if (zNo) {
      snprintf(zBuf, nBuf, "%s:%u: the launch %s", pTu->zFile, pL->iLine, zNo);
      goto fail;
    }
  }
  ks_shape_uses_free(aU, nU);
  *paL = aL;
  *pnL = nL;
  return NULL;
fail:
  ks_shape_uses_free(aU, nU);
  ks_ast_launches_free(aL, nL);
  return zBuf;
}

/* ---- a launch's block as constants (ks_rw_launch_block_dims, rwutil.h) ---- */

typedef struct blk_find {
  ks_tu *pTu;
  unsigned iAt;     /* an offset inside the launch */
  CXCursor fn;      /* the host function around it */
  CXCursor aCfg[16]; /* the function's launch configurations (__cudaPushCallConfiguration) */
  int nCfg;
  CXCursor var;     /* the block variable */
  int bBad;         /* a use of var that is not a whole grid or block argument */
} blk_find;

static enum CXChildVisitResult blk_find_fn(CXCursor c, CXCursor parent, CXClientData d) {
  (void)parent;
  blk_find *pF = d;
  enum CXCursorKind e = clang_getCursorKind(c);
  unsigned s, t;
  if (!ks_ast_in_main_file(c) || ks_ast_extent(pF->pTu, c, &s, &t) < 0 || pF->iAt < s || pF->iAt >= t)
    return CXChildVisit_Continue;
  if (e == CXCursor_FunctionDecl || e == CXCursor_FunctionTemplate || e == CXCursor_CXXMethod) {
    pF->fn = c;
    return CXChildVisit_Break;
  }
  return CXChildVisit_Recurse; /* namespaces, classes, extern "C" blocks */
}

static enum CXChildVisitResult blk_cfgs(CXCursor c, CXCursor parent, CXClientData d) {
  (void)parent;
  blk_find *pF = d;
  if (clang_getCursorKind(c) == CXCursor_CallExpr) {
    char *z = ks_rw_spelling(c);
    if (z && !strcmp(z, "__cudaPushCallConfiguration")) {
      if (pF->nCfg < 16) pF->aCfg[pF->nCfg++] = c;
      else pF->bBad = 1;
    }
    free(z);
  }
  return CXChildVisit_Recurse;
}

/* Is c (its extent) a whole grid or block argument of one of the function's launches? */
static int blk_is_cfg_arg(const blk_find *pF, CXCursor c) {
  unsigned s, t, as, at;
  if (ks_ast_extent(pF->pTu, c, &s, &t) < 0) return 0;
  for (int i = 0; i < pF->nCfg; i++)
    for (unsigned j = 0; j < 2 && (int)j < clang_Cursor_getNumArguments(pF->aCfg[i]); j++)
      if (ks_ast_extent(pF->pTu, clang_Cursor_getArgument(pF->aCfg[i], j), &as, &at) == 0 && as == s && at == t)
        return 1;
  return 0;
}

static enum CXChildVisitResult blk_uses(CXCursor c, CXCursor parent, CXClientData d) {
  (void)parent;
  blk_find *pF = d;
  if (clang_getCursorKind(c) == CXCursor_DeclRefExpr && clang_equalCursors(clang_getCursorReferenced(c), pF->var) &&
      !blk_is_cfg_arg(pF, c))
    pF->bBad = 1;
  return pF->bBad ? CXChildVisit_Break : CXChildVisit_Recurse;
}

/* A dim3 expression's constant extents: dim3(a[, b[, c]]) of integer
 * constants (the constructor's default arguments count: 1), an integer
 * constant (x only), or a copy of a variable (*pVar, aDim untouched).
 * 0, or -1 when it is none of these. */
static int blk_consts(CXCursor c, long long aDim[3], CXCursor *pVar) {
  for (int nDepth = 0; nDepth < 8; nDepth++) {
    c = ks_rw_strip(c);
    enum CXCursorKind e = clang_getCursorKind(c);
    if (e == CXCursor_DeclRefExpr) {
      *pVar = clang_getCursorReferenced(c);
      return 0;
    }
    if (e == CXCursor_CXXFunctionalCastExpr) { /* `dim3(n)` written in the launch: the constructor it casts with */
      CXCursor *aK, x = clang_getNullCursor();
      int nK;
      ks_rw_children(c, &aK, &nK);
      for (int i = 0; i < nK; i++)
        if (clang_isExpression(clang_getCursorKind(aK[i]))) x = aK[i];
      free(aK);
      if (clang_Cursor_isNull(x)) return -1;
      c = x;
      continue;
    }
    if (ks_rw_is_integer_type(clang_getCursorType(c))) {
      CXEvalResult r = clang_Cursor_Evaluate(c);
      long long v = r && clang_EvalResult_getKind(r) == CXEval_Int ? clang_EvalResult_getAsLongLong(r) : 0;
      if (r) clang_EvalResult_dispose(r);
      if (v <= 0) return -1;
      aDim[0] = v, aDim[1] = aDim[2] = 1;
      return 0;
    }
    char *z = ks_rw_spelling(c);
    int bDim3 = e == CXCursor_CallExpr && z && !strcmp(z, "dim3");
    free(z);
    if (!bDim3) return -1;
    int n = clang_Cursor_getNumArguments(c);
    if (n == 1 && clang_getCanonicalType(clang_getCursorType(clang_Cursor_getArgument(c, 0))).kind == CXType_Record) {
      c = clang_Cursor_getArgument(c, 0); /* a copy */
      continue;
    }
    if (n < 1 || n > 3) return -1;
    for (int i = 0; i < 3; i++) {
      long long v = 1;
      if (i < n) {
        CXEvalResult r = clang_Cursor_Evaluate(clang_Cursor_getArgument(c, (unsigned)i));
        v = r && clang_EvalResult_getKind(r) == CXEval_Int ? clang_EvalResult_getAsLongLong(r) : 0;
        if (r) clang_EvalResult_dispose(r);
      }
      if (v <= 0) return -1;
      aDim[i] = v;
    }
    return 0;
  }
  return -1;
}

int ks_rw_launch_block_dims(ks_tu *pTu, const ks_launch *pL, long long aDim[3]) {
  blk_find f;
  memset(&f, 0, sizeof f);
  f.pTu = pTu;
  f.iAt = pL->iStart;
  f.fn = clang_getNullCursor();
  f.var = clang_getNullCursor();
  ks_ast_visit_top(pTu, blk_find_fn, &f);
  if (clang_Cursor_isNull(f.fn)) return -1;
  clang_visitChildren(f.fn, blk_cfgs, &f);
  CXCursor cfg = clang_getNullCursor();
  for (int i = 0; i < f.nCfg; i++) {
    unsigned s, t;
    if (ks_ast_extent(pTu, f.aCfg[i], &s, &t) == 0 && s >= pL->iStart && t <= pL->iEnd) cfg = f.aCfg[i];
  }
  if (f.bBad || clang_Cursor_isNull(cfg) || clang_Cursor_getNumArguments(cfg) < 2) return -1;
  if (blk_consts(clang_Cursor_getArgument(cfg, 1), aDim, &f.var) < 0) return -1;
  if (clang_Cursor_isNull(f.var)) return 0;
  /* a local dim3 of constants, only ever a whole launch argument */
  CXCursor v = f.var, init = clang_getNullCursor(), none = clang_getNullCursor();
  if (clang_getCursorKind(v) != CXCursor_VarDecl || !clang_equalCursors(clang_getCursorSemanticParent(v), f.fn))
    return -1;
  CXCursor *aK;
  int nK;
  ks_rw_children(v, &aK, &nK);
  for (int i = 0; i < nK; i++)
    if (clang_isExpression(clang_getCursorKind(aK[i]))) init = aK[i];
  free(aK);
  if (clang_Cursor_isNull(init) || blk_consts(init, aDim, &none) < 0 || !clang_Cursor_isNull(none)) return -1;
  clang_visitChildren(f.fn, blk_uses, &f);
  return f.bBad ? -1 : 0;
}

/* ---- a launch's template arguments, cache-hinted loads (rwutil.h) ---- */

char *ks_rw_launch_targ(ks_tu *pTu, const ks_launch *pL, int iArg, unsigned *piName) {
  const char *z = pTu->zSrc, *zK = pL->zKernel;
  size_t nK = strlen(zK);
  unsigned iEnd = pL->iCfgStart >= 3 ? pL->iCfgStart - 3 : pL->iStart, iName = (unsigned)-1;
  for (unsigned i = pL->iStart; i + nK <= iEnd; i++) /* the last whole-word use of the name */
    if (memcmp(z + i, zK, nK) == 0 && (i == pL->iStart || !(isalnum((unsigned char)z[i - 1]) || z[i - 1] == '_')) &&
        !(isalnum((unsigned char)z[i + nK]) || z[i + nK] == '_'))
      iName = i;
  *piName = iName == (unsigned)-1 ? pL->iStart : iName;
  if (iName == (unsigned)-1) return NULL;
  unsigned i = iName + (unsigned)nK;
  while (i < iEnd && isspace((unsigned char)z[i])) i++;
  if (i >= iEnd || z[i] != '<') return NULL;
  int nDepth = 0, iCur = 0;
  unsigned iPart = i + 1;
  for (; i < iEnd; i++) {
    char ch = z[i];
    if (ch == '<' || ch == '(') nDepth++;
    else if ((ch == '>' || ch == ')') && --nDepth == 0) break;
    else if (ch == ',' && nDepth == 1) { /* the end of argument iCur */
      if (iCur == iArg) break;
      iCur++;
      iPart = i + 1;
    }
  }
  if (i >= iEnd || iCur != iArg) return NULL;
  while (iPart < i && isspace((unsigned char)z[iPart])) iPart++;
  unsigned e = i;
  while (e > iPart && isspace((unsigned char)z[e - 1])) e--;
  if (e <= iPart) return NULL;
  char *zArg = malloc(e - iPart + 1);
  if (zArg) {
    memcpy(zArg, z + iPart, e - iPart);
    zArg[e - iPart] = 0;
  }
  return zArg;
}

CXCursor ks_rw_cache_load_elem(CXCursor call) {
  CXCursor none = clang_getNullCursor(), a = ks_rw_strip(call), k[2];
  if (clang_getCursorKind(a) != CXCursor_CallExpr || clang_Cursor_getNumArguments(a) != 1) return none;
  char *z = ks_rw_spelling(a);
  int bLd = z && ks_shape_is_cache_load(z);
  free(z);
  a = ks_rw_strip(clang_Cursor_getArgument(a, 0));
  if (!bLd || clang_getCursorKind(a) != CXCursor_UnaryOperator ||
      clang_getCursorUnaryOperatorKind(a) != CXUnaryOperator_AddrOf || ks_rw_kids(a, k, 2) != 1)
    return none;
  a = ks_rw_strip(k[0]);
  return clang_getCursorKind(a) == CXCursor_ArraySubscriptExpr ? a : none;
}

/* ---- templates around a place ---- */

typedef struct tmpl_find {
  ks_tu *pTu;
  unsigned iAt;
  int bInTemplate;
  CXCursor host;
} tmpl_find;

static enum CXChildVisitResult tmpl_find_visit(CXCursor c, CXCursor parent, CXClientData pData) {
  (void)parent;
  tmpl_find *f = pData;
  enum CXCursorKind e = clang_getCursorKind(c);
  unsigned s, t;
  if (e != CXCursor_Namespace && e != CXCursor_LinkageSpec && e != CXCursor_UnexposedDecl &&
      e != CXCursor_ClassTemplate && e != CXCursor_ClassTemplatePartialSpecialization && e != CXCursor_StructDecl &&
      e != CXCursor_ClassDecl && e != CXCursor_FunctionTemplate)
    return CXChildVisit_Continue;
  if (ks_ast_extent(f->pTu, c, &s, &t) < 0 || f->iAt < s || f->iAt >= t) return CXChildVisit_Continue;
  if (e == CXCursor_FunctionTemplate) f->host = c;
  if (e == CXCursor_FunctionTemplate || e == CXCursor_ClassTemplate || e == CXCursor_ClassTemplatePartialSpecialization)
    f->bInTemplate = 1;
  return e == CXCursor_FunctionTemplate ? CXChildVisit_Break : CXChildVisit_Recurse;
}

int ks_rw_enclosing_template(ks_tu *pTu, unsigned iAt, CXCursor *pHost) {
  tmpl_find f = {pTu, iAt, 0, clang_getNullCursor()};
  ks_ast_visit_top(pTu, tmpl_find_visit, &f);
  if (pHost) *pHost = f.host;
  return f.bInTemplate;
}

/* ---- where an #include goes (ks_rw_include_point, rwutil.h) ---- */

typedef struct inc_find {
  ks_tu *pTu;
  const char *zHeader;
  long iAfterLast;
  long iFirstDecl;
  int bHave;
} inc_find;

static enum CXChildVisitResult find_inc(CXCursor c, CXCursor parent, CXClientData d) {
  (void)parent;
  inc_find *pI = d;
  if (!ks_ast_in_main_file(c)) return CXChildVisit_Continue;
  unsigned s, e;
  if (ks_ast_extent(pI->pTu, c, &s, &e) < 0) return CXChildVisit_Continue;
  if (clang_getCursorKind(c) == CXCursor_InclusionDirective) {
    CXString z = clang_getCursorSpelling(c);
    if (strcmp(clang_getCString(z), pI->zHeader) == 0) pI->bHave = 1;
    clang_disposeString(z);
    while (e < pI->pTu->nSrc && pI->pTu->zSrc[e] != '\n') e++;
    if (e < pI->pTu->nSrc) e++;
    if ((long)e > pI->iAfterLast) pI->iAfterLast = (long)e;
  } else if (clang_isDeclaration(clang_getCursorKind(c)) && (pI->iFirstDecl < 0 || (long)s < pI->iFirstDecl)) {
    pI->iFirstDecl = (long)s;
  }
  return CXChildVisit_Continue;
}

unsigned ks_rw_include_point(ks_rewrite *p, const char *zHeader, int *pbHave) {
  ks_tu *pTu = ks_rewrite_tu(p);
  inc_find inc = {pTu, zHeader, -1, -1, 0};
  clang_visitChildren(clang_getTranslationUnitCursor(pTu->pTu), find_inc, &inc);
  *pbHave = inc.bHave;
  long iAt = inc.iAfterLast >= 0 ? inc.iAfterLast : inc.iFirstDecl;
  if (iAt < 0) iAt = 0;
  return ks_rewrite_line_start(p, (unsigned)iAt, NULL);
}
