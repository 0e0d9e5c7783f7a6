/* vectorize.c — rule `vectorize`: a pointwise kernel whose pointer accesses
 * are all P[i] loads and stores of one 4- or 8-byte element type handles
 * 16 bytes per pointer per thread: one 128-bit load per input, the element
 * body once per lane on registers, one 128-bit store per output; a scalar
 * loop covers the tail and misaligned pointers. Launch grids shrink to match.
 * The n-dimensional form does the same along x of a 2-D/3-D grid, and for a
 * stencil reads each row of neighbours once into a window of registers. */
#include "rewrite/rwutil.h"
#include "features/pure.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An access of the n-dimensional form in terms of x: its index's constant k
 * plus, per loop around it whose counter L is added along x (c * L), its
 * coefficient (the constants it reads at: [lo, hi] over the loops' ranges),
 * and the loops whose counters pick its row (L * pitch). */
typedef struct ndterms {
  long long k, lo, hi;
  int aCol[2], nCol;     /* loops (ks_shape.aLoop) along x, and their coefficients */
  long long aColC[2];
  int aRow[2], nRow;     /* loops picking the row, ascending */
} ndterms;

typedef struct vacc {
  unsigned iStart, iEnd; /* the P[i] expression */
  int iParam;
  int eUse;
  int bTop;              /* the store is a statement of the body itself */
  unsigned iStoreEnd;    /* end of the assigning expression (writes) */
  /* the n-dimensional form's stencils: a buffer read at x plus several
   * constants (its neighbours along x) reads them from a window */
  const ks_poly *pIdx;   /* the model's index (unit in x), or NULL */
  unsigned iSubStart, iSubEnd; /* the subscript as written */
  int bCond;             /* read only on some paths of the body */
  int bCondLanes;        /* ... whose conditions the lanes' test can require: */
  int bDead;             /* ... on the path the lanes' test excludes (nd_dead_reads) */
  CXCursor aCond[4];     /* ... they, each negated where abNeg (nd_lane_conds) */
  unsigned char abNeg[4];
  int nCond;
  int iWin;              /* its window (ndscan.aWin), or -1 */
  const char *zBase;     /* the pointer subscripted: the parameter's or a row pointer's name */
  unsigned mLocal;       /* the loops' locals its index names (ndscan.aLoc bits) */
  unsigned char abLoopCond[4]; /* 1: aCond[i] is in a loop around it: required on every trip; 2: it is
                                  outside loops and names the body's locals (nd_local), declared again */
  ndterms t;             /* its terms along x: the index's constant, the loops (nd_windows) */
  int iLoop;             /* the innermost loop around it (ks_shape.aLoop), or -1 */
  int iStk;              /* in a stack of rows (ndwin.bStk): its row there, and its */
  long long kStk;        /* ... constant with that row's offset taken out */
} vacc;

typedef struct vscan {
  ks_tu *pTu;
  ks_rw_param *aP;
  int nP;
  CXCursor idx;
  CXCursor container; /* the body's compound statement (or null: single statement) */
  vacc *a;
  int n, nAlloc;
  const char *zWhy;
  int nLoopDepth;
  int nIdxUses; /* uses of the index outside the accesses replaced by lanes */
  int bRootsAreStmts; /* the walks start at the body's own statements (early return) */
  int abNullTest[64];  /* per parameter: compared with null (`p != NULL`, `!p`, `if (p)`) */
  int abOther[64];     /* per parameter: read at an index other than i (`bias[i % cols]`) */
  /* `i % X`, `i / X` and `(i / X) % Y` (a row broadcast's column, the
   * digits of a flat index) with X and Y of parameters and constants: per
   * pack, X's remainder and quotient of ks_base once, then a compare per
   * lane. eOp: 0 `i % X`, 1 `i / X`, 2 `(i / X) % Y` (zY: Y). */
  struct { unsigned iStart, iEnd; int iDiv, eOp; char *zY; } aMod[16];
  int nMod;
  char *azDiv[4];      /* the divisors' text */
  char *azModType[4];  /* the remainder's type ("int", "long long") */
  int abQuot[4];       /* some unit needs X's quotient */
  int nDiv;
  const ks_shape *pShape; /* the kernel-shape model: derived pointers, access indices */
  char zWhyBuf[320];      /* a refusal that names the pointer */
} vscan;

static int param_index(vscan *s, CXCursor d) {
  for (int i = 0; i < s->nP; i++)
    if (s->aP[i].bPointer && clang_equalCursors(d, s->aP[i].decl)) return i;
  return -1;
}

/* Is c a null pointer constant (NULL, nullptr, 0)? */
static int is_null_const(CXCursor c) {
  c = ks_rw_strip(c);
  enum CXCursorKind e = clang_getCursorKind(c);
  if (e == CXCursor_CXXNullPtrLiteralExpr || e == CXCursor_GNUNullExpr) return 1;
  if (e == CXCursor_IntegerLiteral || e == CXCursor_CStyleCastExpr) {
    CXEvalResult r = clang_Cursor_Evaluate(c);
    int b = r && clang_EvalResult_getKind(r) == CXEval_Int && clang_EvalResult_getAsLongLong(r) == 0;
    if (r) clang_EvalResult_dispose(r);
    return b;
  }
  return 0;
}

/* Pointer parameter reference c (ancestors aAnc) only tested against null:
 * `p != NULL`, `p == nullptr`, `!p`, or p in a boolean context. The test is
 * the same for every lane, so the body's copies keep it as written. */
static int is_null_test(CXCursor c, const CXCursor *aAnc, int nAnc) {
  CXCursor cur = c;
  int j = nAnc - 1;
  while (j >= 0) {
    enum CXCursorKind e = clang_getCursorKind(aAnc[j]);
    if (e == CXCursor_UnexposedExpr &&
        clang_getCanonicalType(clang_getCursorType(aAnc[j])).kind == CXType_Bool)
      return 1; /* if (p), p ? a : b, p && q */
    if (e != CXCursor_UnexposedExpr && e != CXCursor_ParenExpr) break;
    cur = aAnc[j--];
  }
  if (j < 0) return 0;
  CXCursor a = aAnc[j];
  enum CXCursorKind e = clang_getCursorKind(a);
  if (e == CXCursor_UnaryOperator) return clang_getCursorUnaryOperatorKind(a) == CXUnaryOperator_LNot;
  if (e != CXCursor_BinaryOperator) return 0;
  enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(a);
  if (op != CXBinaryOperator_EQ && op != CXBinaryOperator_NE) return 0;
  CXCursor aK[2];
  if (ks_rw_kids(a, aK, 2) != 2) return 0;
  return is_null_const(clang_equalCursors(aK[0], cur) ? aK[1] : aK[0]);
}

typedef struct ref_count {
  CXCursor decl;
  int n;
} ref_count;

static enum CXChildVisitResult ref_count_visit(CXCursor c, CXCursor parent, CXClientData pData) {
  (void)parent;
  ref_count *pR = pData;
  if (clang_getCursorKind(c) == CXCursor_DeclRefExpr && clang_equalCursors(clang_getCursorReferenced(c), pR->decl))
    pR->n++;
  return CXChildVisit_Recurse;
}

/* How many times expression c refers to declaration d. */
static int count_refs(CXCursor c, CXCursor d) {
  ref_count r = {d, 0};
  ref_count_visit(c, c, &r);
  clang_visitChildren(c, ref_count_visit, &r);
  return r.n;
}

/* Is subscript aAnc[j] read through a cache-hinted load, `__ldg(&P[i])`
 * (ks_rw_cache_load_elem)? *pCall: that call, whose whole text a rewritten
 * read replaces (a plain load of the element is what the hint asks for, minus
 * the hint). */
static int cache_load(const CXCursor *aAnc, int j, CXCursor *pCall) {
  int k = j - 1;
  while (k >= 0 && (clang_getCursorKind(aAnc[k]) == CXCursor_ParenExpr ||
                    clang_getCursorKind(aAnc[k]) == CXCursor_UnexposedExpr ||
                    (clang_getCursorKind(aAnc[k]) == CXCursor_UnaryOperator &&
                     clang_getCursorUnaryOperatorKind(aAnc[k]) == CXUnaryOperator_AddrOf)))
    k--;
  if (k < 0 || !clang_equalCursors(ks_rw_cache_load_elem(aAnc[k]), aAnc[j])) return 0;
  if (pCall) *pCall = aAnc[k];
  return 1;
}

/* How subscript aAnc[j] is used (ks_rw_elem_use), a cache-hinted load a read. */
static int elem_use(const CXCursor *aAnc, int j, CXCursor *pW) {
  if (cache_load(aAnc, j, NULL)) {
    if (pW) *pW = clang_getNullCursor();
    return KS_RW_READ;
  }
  return ks_rw_elem_use(aAnc[j], aAnc, j, pW);
}

/* Is parameter parm written anywhere under c? Any use that is not a plain
 * read counts (assigned, ++/--, address or reference taken: ks_rw_elem_use). */
typedef struct pw_scan {
  CXCursor parm;
  int bWritten;
} pw_scan;

static int pw_visit(CXCursor c, const CXCursor *aAnc, int nAnc, void *pArg) {
  pw_scan *w = pArg;
  if (clang_getCursorKind(c) == CXCursor_DeclRefExpr && clang_equalCursors(clang_getCursorReferenced(c), w->parm) &&
      nAnc > 0 && ks_rw_elem_use(c, aAnc, nAnc, NULL) != KS_RW_READ)
    w->bWritten = 1;
  return w->bWritten ? -1 : 0;
}

/* A divisor the pack can evaluate once: integer literals and parameters
 * the kernel never writes, combined by + - * and casts; nothing else. */
static int divisor_ok(CXCursor c, CXCursor body) {
  enum CXCursorKind e = clang_getCursorKind(c);
  if (e == CXCursor_IntegerLiteral) return 1;
  if (e == CXCursor_DeclRefExpr) {
    CXCursor d = clang_getCursorReferenced(c);
    if (clang_getCursorKind(d) != CXCursor_ParmDecl) return 0;
    pw_scan w = {d, 0};
    ks_rw_walk(body, pw_visit, &w);
    return !w.bWritten;
  }
  if (e == CXCursor_BinaryOperator) {
    enum CXBinaryOperatorKind b = clang_getCursorBinaryOperatorKind(c);
    if (b != CXBinaryOperator_Add && b != CXBinaryOperator_Sub && b != CXBinaryOperator_Mul) return 0;
  } else if (e != CXCursor_UnexposedExpr && e != CXCursor_ParenExpr && e != CXCursor_CStyleCastExpr &&
             e != CXCursor_CXXStaticCastExpr && e != CXCursor_CXXFunctionalCastExpr) {
    return 0;
  }
  CXCursor *aK = NULL;
  int nK = 0, bOk = 1;
  ks_rw_children(c, &aK, &nK);
  for (int i = 0; i < nK && bOk; i++)
    bOk = clang_getCursorKind(aK[i]) == CXCursor_TypeRef || divisor_ok(aK[i], body);
  free(aK);
  return bOk && nK > 0;
}

static int signed_int_type(const char *z) {
  return !strcmp(z, "int") || !strcmp(z, "long") || !strcmp(z, "long long");
}

static int cursor_signed(CXCursor c) {
  CXString sT = clang_getTypeSpelling(clang_getCanonicalType(clang_getCursorType(c)));
  int b = signed_int_type(clang_getCString(sT));
  clang_disposeString(sT);
  return b;
}

/* Does c lie inside a unit already recorded (the `i / X` of `(i / X) % Y`)? */
static int in_mod(const vscan *s, CXCursor c) {
  unsigned cs, ce;
  if (ks_ast_extent(s->pTu, c, &cs, &ce) < 0) return 0;
  for (int m = 0; m < s->nMod; m++)
    if (cs >= s->aMod[m].iStart && ce <= s->aMod[m].iEnd) return 1;
  return 0;
}

/* `i % X`, `i / X` or `(i / X) % Y` (i the global index, X and Y
 * divisor_ok, every operand of a signed integer type): recorded for the
 * lanes; anything else is left as written. bDiv: c is a division. */
static void note_mod(vscan *s, CXCursor c, int bDiv) {
  CXCursor aSub[2], aIn[2], y = clang_getNullCursor();
  int eOp = bDiv;
  if (s->nMod >= 16 || in_mod(s, c) || ks_rw_kids(c, aSub, 2) != 2) return;
  if (!bDiv && !ks_rw_is_ref_to(aSub[0], s->idx)) {
    /* the digit (i / X) % Y */
    CXCursor q = ks_rw_strip(aSub[0]);
    if (clang_getCursorKind(q) != CXCursor_BinaryOperator ||
        clang_getCursorBinaryOperatorKind(q) != CXBinaryOperator_Div || ks_rw_kids(q, aIn, 2) != 2 ||
        !ks_rw_is_ref_to(aIn[0], s->idx) || !cursor_signed(q))
      return;
    y = aSub[1];
    aSub[1] = aIn[1];
    eOp = 2;
  } else if (!ks_rw_is_ref_to(aSub[0], s->idx)) {
    return;
  }
  CXCursor kernel = clang_getCursorSemanticParent(s->idx);
  while (!clang_Cursor_isNull(kernel) && clang_getCursorKind(kernel) != CXCursor_FunctionDecl &&
         clang_getCursorKind(kernel) != CXCursor_FunctionTemplate)
    kernel = clang_getCursorSemanticParent(kernel);
  if (clang_Cursor_isNull(kernel) || !divisor_ok(aSub[1], kernel)) return;
  if (eOp == 2 && (!divisor_ok(y, kernel) || !cursor_signed(y))) return;
  CXString sT = clang_getTypeSpelling(clang_getCanonicalType(clang_getCursorType(c)));
  int bTypes = signed_int_type(clang_getCString(sT)) && cursor_signed(aSub[1]);
  char *zT = ks_strdup(clang_getCString(sT));
  clang_disposeString(sT);
  char *zX = ks_ast_text(s->pTu, aSub[1]), *zY = eOp == 2 ? ks_ast_text(s->pTu, y) : NULL;
  unsigned iS, iE;
  if (!bTypes || !zT || !zX || (eOp == 2 && !zY) || ks_ast_extent(s->pTu, c, &iS, &iE) < 0) {
    free(zT);
    free(zX);
    free(zY);
    return;
  }
  int d = 0;
  while (d < s->nDiv && strcmp(s->azDiv[d], zX) != 0) d++;
  if (d == s->nDiv) {
    if (s->nDiv == 4) {
      free(zT);
      free(zX);
      free(zY);
      return;
    }
    s->azDiv[d] = zX;
    s->azModType[d] = zT;
    s->nDiv++;
  } else {
    int bSame = strcmp(s->azModType[d], zT) == 0;
    free(zX);
    free(zT);
    if (!bSame) {
      free(zY);
      return;
    }
  }
  s->abQuot[d] |= eOp != 0;
  s->aMod[s->nMod].iStart = iS;
  s->aMod[s->nMod].iEnd = iE;
  s->aMod[s->nMod].iDiv = d;
  s->aMod[s->nMod].eOp = eOp;
  s->aMod[s->nMod].zY = zY;
  s->nMod++;
}

/* Does c lie inside the last access recorded (the index of a P[i] the lanes
 * replace: its uses of i and its remainders go with it)? */
static int in_last_access(const vscan *s, CXCursor c) {
  unsigned cs, ce;
  return s->n > 0 && ks_ast_extent(s->pTu, c, &cs, &ce) == 0 && cs >= s->a[s->n - 1].iStart &&
         ce <= s->a[s->n - 1].iEnd;
}

/* The model's local pointer declared by d (`T *q = P + off;`), or -1. */
static int ptr_index(const vscan *s, CXCursor d) {
  for (int i = 0; s->pShape && i < s->pShape->nPtr; i++)
    if (clang_equalCursors(s->pShape->aPtr[i].decl, d)) return i;
  return -1;
}

/* Is reference c (ancestors aAnc) the pointer operand of a derived pointer's
 * initializer, `T *q = P + off;` through parentheses and casts? Such a
 * reference computes an address only; q's own uses are checked. */
static int is_derivation(const vscan *s, CXCursor c, const CXCursor *aAnc, int nAnc) {
  CXCursor cur = c;
  for (int k = nAnc - 1; k >= 0; cur = aAnc[k--]) {
    CXCursor a = aAnc[k];
    enum CXCursorKind e = clang_getCursorKind(a);
    if (e == CXCursor_VarDecl) return ptr_index(s, a) >= 0;
    if (e == CXCursor_BinaryOperator) {
      enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(a);
      if ((op != CXBinaryOperator_Add && op != CXBinaryOperator_Sub) ||
          clang_getCanonicalType(clang_getCursorType(cur)).kind != CXType_Pointer)
        return 0;
    } else if (e != CXCursor_ParenExpr && e != CXCursor_UnexposedExpr && e != CXCursor_CStyleCastExpr &&
               e != CXCursor_CXXStaticCastExpr && e != CXCursor_CXXConstCastExpr) {
      return 0;
    }
  }
  return 0;
}

/* The model's access of subscript sub, or NULL. */
static const ks_shape_access *model_access(const vscan *s, CXCursor sub) {
  unsigned as, ae;
  if (!s->pShape || ks_ast_extent(s->pTu, sub, &as, &ae) < 0) return NULL;
  for (int i = 0; i < s->pShape->nAccess; i++)
    if (s->pShape->aAccess[i].iStart == as && s->pShape->aAccess[i].iEnd == ae) return &s->pShape->aAccess[i];
  return NULL;
}

/* Does subscript sub read parameter q's elements as their own type (not
 * reinterpreted through a cast pointer of the same size)? */
static int same_elem(const ks_rw_param *q, CXCursor sub) {
  CXString st = clang_getTypeSpelling(clang_getUnqualifiedType(clang_getCanonicalType(clang_getCursorType(sub))));
  int b = q->zElemType && strcmp(clang_getCString(st), q->zElemType) == 0;
  clang_disposeString(st);
  return b;
}

/* Refuse naming subscript sub (its text) with zFmt's %s for it and zWhy. */
static int refuse_sub(vscan *s, CXCursor sub, const char *zFmt, const char *zArg) {
  char *z = ks_ast_text(s->pTu, sub);
  snprintf(s->zWhyBuf, sizeof s->zWhyBuf, zFmt, z ? z : "?", zArg);
  free(z);
  s->zWhy = s->zWhyBuf;
  return -1;
}

static int scan(CXCursor c, const CXCursor *aAnc, int nAnc, void *pArg) {
  vscan *s = pArg;
  enum CXCursorKind e = clang_getCursorKind(c);
  if (e == CXCursor_BinaryOperator && !in_last_access(s, c) &&
      (clang_getCursorBinaryOperatorKind(c) == CXBinaryOperator_Rem ||
       clang_getCursorBinaryOperatorKind(c) == CXBinaryOperator_Div))
    note_mod(s, c, clang_getCursorBinaryOperatorKind(c) == CXBinaryOperator_Div);
  if (e == CXCursor_DeclRefExpr) {
    if (clang_equalCursors(clang_getCursorReferenced(c), s->idx) && !in_last_access(s, c)) s->nIdxUses++;
    int iP = param_index(s, clang_getCursorReferenced(c));
    /* a local pointer into a parameter (`float *q = P + b * T * V + t * V;`) */
    int iPtr = iP < 0 ? ptr_index(s, clang_getCursorReferenced(c)) : -1;
    if (iPtr >= 0) iP = s->pShape->aPtr[iPtr].iParam;
    if (iP < 0 || iP >= s->nP) return 0;
    if (is_derivation(s, c, aAnc, nAnc)) return 0;
    char *zQ = iPtr >= 0 ? ks_rw_spelling(clang_getCursorReferenced(c)) : NULL;
    if (iPtr >= 0 && s->pShape->aPtr[iPtr].bWritten) {
      snprintf(s->zWhyBuf, sizeof s->zWhyBuf,
               "%s, a pointer derived from parameter %s, is written after its declaration (re-seated, or its address "
               "taken)",
               zQ ? zQ : "?", s->aP[iP].zName);
      free(zQ);
      s->zWhy = s->zWhyBuf;
      return -1;
    }
    /* Must be the base of P[i] with i exactly the index variable, or of an
     * access whose index the model proves is i (P[b * T * V + t * V + v],
     * q[v] with q = P + b * T * V + t * V: the digits of i recombined). */
    int j = nAnc - 1;
    while (j >= 0 && clang_getCursorKind(aAnc[j]) == CXCursor_UnexposedExpr) j--;
    CXCursor *aK = NULL;
    int nK = 0;
    if (j >= 0 && clang_getCursorKind(aAnc[j]) == CXCursor_ArraySubscriptExpr) ks_rw_children(aAnc[j], &aK, &nK);
    int bBase = nK == 2 && clang_equalCursors(ks_rw_strip(aK[0]), c);
    int bOk = bBase && iPtr < 0 && ks_rw_is_ref_to(aK[1], s->idx);
    free(aK);
    const ks_shape_access *pA = !bOk && bBase ? model_access(s, aAnc[j]) : NULL;
    const char *zNotI = pA ? ks_shape_index_is_par(s->pShape, &pA->index, 0) : "the model has no access there";
    if (!bOk && bBase && !zNotI && same_elem(&s->aP[iP], aAnc[j])) bOk = 1;
    if (!bOk && iPtr >= 0) {
      /* a derived pointer at another index: a read-only broadcast along the
       * digits of i (probs_bt[0]: the row's first element) stays a scalar
       * load in each lane's copy of the body; nothing else. */
      int rc = 0;
      if (!bBase) {
        snprintf(s->zWhyBuf, sizeof s->zWhyBuf,
                 "%s, a pointer derived from parameter %s, is used other than as %s[index] (passed, copied or "
                 "dereferenced)",
                 zQ ? zQ : "?", s->aP[iP].zName, zQ ? zQ : "?");
        s->zWhy = s->zWhyBuf;
        rc = -1;
      } else if (!pA) {
        rc = refuse_sub(s, aAnc[j], "%s: %s", zNotI);
      } else if (!same_elem(&s->aP[iP], aAnc[j])) {
        rc = refuse_sub(s, aAnc[j], "%s reads the elements of parameter %s as another type", s->aP[iP].zName);
      } else if (elem_use(aAnc, j, NULL) != KS_RW_READ) {
        rc = refuse_sub(s, aAnc[j], "%s is written at an index other than the global index: %s", zNotI);
      } else if (!ks_shape_index_digits_only(s->pShape, &pA->index, 0)) {
        rc = refuse_sub(s, aAnc[j],
                        "%s is read at an index that depends on the global index other than through its digits "
                        "(i / n, i %% n): %s",
                        zNotI);
      }
      for (int k = 0; k < j && rc == 0; k++) {
        enum CXCursorKind ek = clang_getCursorKind(aAnc[k]);
        if (ek == CXCursor_ForStmt || ek == CXCursor_WhileStmt || ek == CXCursor_DoStmt) {
          s->zWhy = "a pointer is read in a loop of the element body";
          rc = -1;
        }
      }
      free(zQ);
      if (rc == 0 && iP < 64) s->abOther[iP] = 1;
      return rc;
    }
    free(zQ);
    if (!bOk && bBase && iP < 64) {
      /* P[f(i)] read-only (a broadcast such as bias[i % cols], a gather):
       * it stays a scalar load in each lane's copy of the body, where i is
       * that lane's index. */
      if (elem_use(aAnc, j, NULL) != KS_RW_READ) {
        s->zWhy = "an element is written at an index other than the global index";
        return -1;
      }
      /* Not a map: a read in a loop of the body (a thread walking a row),
       * or a gather at an index that uses i more than once (in[i * i % n]). */
      for (int k = 0; k < j; k++) {
        enum CXCursorKind ek = clang_getCursorKind(aAnc[k]);
        if (ek == CXCursor_ForStmt || ek == CXCursor_WhileStmt || ek == CXCursor_DoStmt) {
          s->zWhy = "a pointer is read in a loop of the element body";
          return -1;
        }
      }
      CXCursor aSub[2];
      if (ks_rw_kids(aAnc[j], aSub, 2) == 2 && count_refs(aSub[1], s->idx) > 1) {
        s->zWhy = "a pointer is read at an index that uses the global index more than once (a gather)";
        return -1;
      }
      s->abOther[iP] = 1;
      return 0;
    }
    if (!bOk && iP < 64 && is_null_test(c, aAnc, nAnc)) {
      s->abNullTest[iP] = 1;
      return 0;
    }
    if (!bOk) {
      s->zWhy = "a pointer parameter is used other than as P[i] with the global index";
      return -1;
    }
    for (int k = j + 1; k < nAnc; k++) { /* inside a loop of the body? */
      enum CXCursorKind ek = clang_getCursorKind(aAnc[k]);
      if (ek == CXCursor_ForStmt || ek == CXCursor_WhileStmt || ek == CXCursor_DoStmt) s->nLoopDepth++;
    }
    for (int k = 0; k < j; k++) {
      enum CXCursorKind ek = clang_getCursorKind(aAnc[k]);
      if (ek == CXCursor_ForStmt || ek == CXCursor_WhileStmt || ek == CXCursor_DoStmt) {
        s->zWhy = "a P[i] access sits in a loop of the element body";
        return -1;
      }
    }
    if (s->n == s->nAlloc) {
      int nNew = s->nAlloc ? s->nAlloc * 2 : 16;
      vacc *a = realloc(s->a, sizeof(vacc) * (size_t)nNew);
      if (!a) return -1;
      s->a = a;
      s->nAlloc = nNew;
    }
    vacc *v = &s->a[s->n++];
    memset(v, 0, sizeof *v);
    v->iParam = iP;
    CXCursor w, ld;
    /* `__ldg(&P[i])`: the call is the read the rewrite replaces */
    ks_ast_extent(s->pTu, cache_load(aAnc, j, &ld) ? ld : aAnc[j], &v->iStart, &v->iEnd);
    v->eUse = elem_use(aAnc, j, &w);
    if (v->eUse != KS_RW_READ) {
      if (clang_Cursor_isNull(w) || (clang_getCursorKind(w) != CXCursor_BinaryOperator &&
                                     clang_getCursorKind(w) != CXCursor_CompoundAssignOperator &&
                                     clang_getCursorKind(w) != CXCursor_CallExpr /* T::operator= */)) {
        s->zWhy = "an element is written other than by assignment (++, &, reference)";
        return -1;
      }
      unsigned ws, we;
      ks_ast_extent(s->pTu, w, &ws, &we);
      v->iStoreEnd = we;
      /* Unconditional: the assignment's parent is the body's compound statement. */
      int jw = -1;
      for (int k = 0; k < nAnc; k++)
        if (clang_equalCursors(aAnc[k], w)) jw = k;
      if (jw < 0) jw = j; /* w is aAnc[j-1]... */
      /* through the cleanups of a class-type assignment (c[i] = __float2half(...)) */
      while (jw > 0 && clang_getCursorKind(aAnc[jw - 1]) == CXCursor_UnexposedExpr) jw--;
      CXCursor par = jw > 0 ? aAnc[jw - 1] : clang_getNullCursor();
      /* jw == 0: the assignment is the walk's root, a statement of the body
       * itself (the single then-statement, or one after an early return). */
      v->bTop = jw == 0 ? clang_Cursor_isNull(s->container) || s->bRootsAreStmts : clang_equalCursors(par, s->container);
    }
    return 1;
  }
  return 0;
}

/* 16 bytes of 2-byte float elements: 8 lanes, four __half2 / __nv_bfloat162
 * worth, as one aligned struct so that a load or store is one 128-bit access;
 * the body runs per lane in the arithmetic it was written in (f32 through
 * __half2float when that is what the kernel does). */
static const char *pack_type(const char *zElem) {
  if (strcmp(zElem, "__half") == 0 || strcmp(zElem, "half") == 0) return "ks_pack8_half";
  if (strcmp(zElem, "__nv_bfloat16") == 0 || strcmp(zElem, "nv_bfloat16") == 0) return "ks_pack8_bf16";
  return NULL;
}

static const char *vec_type(const char *zElem, long long nSize, int *pnLanes) {
  *pnLanes = nSize == 4 ? 4 : nSize == 8 ? 2 : nSize == 2 ? 8 : 0;
  if (nSize == 2 && pack_type(zElem)) return pack_type(zElem);
  if (strcmp(zElem, "float") == 0) return "float4";
  if (strcmp(zElem, "int") == 0) return "int4";
  if (strcmp(zElem, "unsigned int") == 0) return "uint4";
  if (strcmp(zElem, "double") == 0) return "double2";
  if (strcmp(zElem, "long long") == 0) return "longlong2";
  *pnLanes = 0;
  return NULL;
}

/* The 16-lane pack of a 1-byte element type (ks_pack16_u8: 16 unsigned
 * char), or NULL. */
static const char *byte_pack_type(const char *zElem) {
  if (!strcmp(zElem, "unsigned char") || !strcmp(zElem, "uint8_t") || !strcmp(zElem, "uchar")) return "ks_pack16_u8";
  if (!strcmp(zElem, "signed char") || !strcmp(zElem, "int8_t")) return "ks_pack16_s8";
  if (!strcmp(zElem, "char")) return "ks_pack16_c8";
  return NULL;
}

/* vec_type, and with bBytes the 16-lane packs of 1-byte elements. */
static const char *plan_vec_type(int bBytes, const char *zElem, long long nSize, int *pnLanes) {
  if (nSize == 1 && bBytes && byte_pack_type(zElem)) {
    *pnLanes = 16;
    return byte_pack_type(zElem);
  }
  return vec_type(zElem, nSize, pnLanes);
}

/* The vector of nLanes elements of type zElem (nSize bytes each) when that is
 * less than 16 bytes: the narrower buffers of a kernel whose widest element
 * sets the lane count (a float -> __nv_bfloat16 cast: float4 and 4 bf16). */
static const char *narrow_vec_type(const char *zElem, long long nSize, int nLanes) {
  static const struct {
    const char *zElem;
    int nSize, nLanes;
    const char *zVec;
  } aVec[] = {{"float", 4, 2, "float2"},       {"int", 4, 2, "int2"},
              {"unsigned int", 4, 2, "uint2"}, {"__half", 2, 4, "ks_pack4_half"},
              {"half", 2, 4, "ks_pack4_half"}, {"__nv_bfloat16", 2, 4, "ks_pack4_bf16"},
              {"nv_bfloat16", 2, 4, "ks_pack4_bf16"}, {"__half", 2, 2, "ks_pack2_half"},
              {"half", 2, 2, "ks_pack2_half"}, {"__nv_bfloat16", 2, 2, "ks_pack2_bf16"},
              {"nv_bfloat16", 2, 2, "ks_pack2_bf16"}, {"unsigned char", 1, 4, "uchar4"},
              {"signed char", 1, 4, "char4"},  {"unsigned char", 1, 2, "uchar2"},
              {"signed char", 1, 2, "char2"}};
  for (size_t i = 0; i < sizeof aVec / sizeof aVec[0]; i++)
    if (aVec[i].nSize == nSize && aVec[i].nLanes == nLanes && strcmp(aVec[i].zElem, zElem) == 0) return aVec[i].zVec;
  return NULL;
}

static const char *const azLane = "xyzw";

/* Lane l of vector variable ks_v_<name> of type zVec, appended to pB; zL:
 * the lane as text instead (a template's loop over its lanes, a pack). */
static void put_lane(ks_buf *pB, const char *zVec, const char *zName, int l, const char *zL) {
  if (zL) ks_buf_printf(pB, "ks_v_%s.e[%s]", zName, zL);
  else if (strncmp(zVec, "ks_pack", 7) == 0) ks_buf_printf(pB, "ks_v_%s.e[%d]", zName, l);
  else ks_buf_printf(pB, "ks_v_%s.%c", zName, azLane[l]);
}

/* What the rewrite emits for one kernel: the vector type and its lanes, and
 * per pointer parameter whether it is used, loaded and stored. */
typedef struct vplan {
  const char *zVec, *zElem; /* the widest element's vector type and element */
  int nLanes;
  int bMixed;               /* buffers of more than one vector type */
  const char *azVec[64];    /* per buffer: its vector type (nLanes elements) */
  int anAlign[64];          /* per buffer: the bytes of that vector */
  int abLoad[64], abStore[64], abUsed[64];
  CXCursor kernel;          /* set by the caller where a template element type may be vectorized */
  char *zTParam;            /* the template element type's name ("T"): lanes ks_lanes<T>() (ks_vec.cuh) */
  int iTParam;              /* ... its index among the kernel's template parameters */
  int bBytes;               /* 1-byte elements may set the lanes (16 a thread; the n-dimensional form) */
} vplan;

/* The kernel, if it has the pointwise shape or its grid-stride form (the grid
 * then stays) and is not vectorized yet. */
static int apply_nd(ks_rewrite *p, CXCursor k, const char *zWhy1, const char *zWhy2);

/* Does the kernel-shape model class kernel k as a stencil? */
static int is_stencil(ks_tu *pTu, CXCursor k) {
  ks_shape *pS = NULL;
  int b = ks_shape_build(pTu, k, &pS) == 0 && pS->eClass == KS_CLASS_STENCIL;
  ks_shape_free(pS);
  return b;
}

static int match_kernel(ks_rewrite *p, CXCursor *pK, ks_rw_pointwise *pPw, int *pbNd) {
  ks_tu *pTu = ks_rewrite_tu(p);
  unsigned ks0, ke0;
  char *zWhy = NULL, *zWhy2 = NULL;
  int rc = KS_OK;
  *pK = ks_ast_find_kernel(pTu, ks_rewrite_kernel_name(p));
  if (ks_ast_extent(pTu, *pK, &ks0, &ke0) < 0) return ks_rewrite_refuse(p, "the kernel is not in the main file");
  if (ks_rewrite_has_note(p, ks0, ke0, NULL)) return ks_rewrite_already(p, "the kernel is already vectorized");
  int b1d = ks_rw_pointwise_match(pTu, *pK, pPw, &zWhy) == 0;
  if (!b1d) b1d = ks_rw_gridstride_match(pTu, *pK, pPw, &zWhy2) == 0;
  if (b1d && is_stencil(pTu, *pK)) { /* the 1-D forms know no neighbours: the n-dimensional form does */
    b1d = 0;
    ks_rw_pointwise_free(pPw);
    memset(pPw, 0, sizeof *pPw);
    free(zWhy);
    free(zWhy2);
    zWhy = ks_strdup("the kernel reads neighbours (a stencil), which the 1-D form does not take");
    zWhy2 = ks_strdup("the kernel reads neighbours (a stencil), which the 1-D form does not take");
  }
  if (!b1d) {
    /* the n-dimensional form (2-D / 3-D grids, other guards, stencils): the rule's own, launches unchanged */
    *pbNd = 1;
    rc = apply_nd(p, *pK, zWhy ? zWhy : "out of memory", zWhy2 ? zWhy2 : "out of memory");
  }
  free(zWhy);
  free(zWhy2);
  return rc;
}

/* Every pointer access of the element body into pS: the if's then-branch, the
 * statements after the early return, or the grid-stride loop's body. The
 * statements are told by their place, not their rank: the index may take
 * several declarations before its guard (`unsigned tid = ..., gid = ...;`). */
static void scan_body(CXCursor k, const ks_rw_pointwise *pPw, vscan *pS) {
  CXCursor body = ks_rw_body(k);
  CXCursor *aStmt;
  int nStmt;
  ks_rw_children(body, &aStmt, &nStmt);
  if (pPw->bGridStride) {
    pS->container = clang_getCursorKind(pPw->body) == CXCursor_CompoundStmt ? pPw->body : clang_getNullCursor();
    ks_rw_walk(pPw->body, scan, pS);
  } else if (pPw->bEarlyReturn) {
    pS->container = body;
    pS->bRootsAreStmts = 1;
    for (int i = 0; i < nStmt && !pS->zWhy; i++) {
      unsigned iS, iE;
      if (ks_ast_extent(pS->pTu, aStmt[i], &iS, &iE) != 0 || iS < pPw->iHeadEnd) continue; /* index and guard */
      CXCursor anc[1] = {body};
      if (scan(aStmt[i], anc, 1, pS) == 0) {
        /* ks_rw_walk roots at the statement; prepend the body as ancestor */
        ks_rw_walk(aStmt[i], scan, pS);
      }
    }
  } else {
    for (int i = 0; i < nStmt; i++) {
      unsigned iS, iE;
      if (clang_getCursorKind(aStmt[i]) != CXCursor_IfStmt || ks_ast_extent(pS->pTu, aStmt[i], &iS, &iE) != 0 ||
          pPw->iBodyStart < iS || pPw->iBodyStart > iE)
        continue;
      CXCursor *aIf;
      int nIf;
      ks_rw_children(aStmt[i], &aIf, &nIf);
      CXCursor then = nIf >= 2 ? aIf[1] : clang_getNullCursor();
      free(aIf);
      pS->container = clang_getCursorKind(then) == CXCursor_CompoundStmt ? then : clang_getNullCursor();
      if (!clang_Cursor_isNull(then)) ks_rw_walk(then, scan, pS);
      break;
    }
  }
  free(aStmt);
}

/* ---- template kernels: the element type is a template parameter ---- */

/* The index I of the kernel's template parameter that a canonical type
 * spelling names ("type-parameter-0-I"), else -1. */
static int tparam_index(const char *z) {
  int d = -1, i = -1, n = 0;
  if (!z || sscanf(z, "type-parameter-%d-%d%n", &d, &i, &n) != 2 || z[n] || d != 0) return -1;
  return i;
}

/* The name of the kernel's template type parameter iIndex (malloc'd), or NULL. */
static char *tparam_name(CXCursor kernel, int iIndex) {
  CXCursor *aK = NULL;
  int nK = 0, iSeen = 0;
  char *z = NULL;
  ks_rw_children(kernel, &aK, &nK);
  for (int i = 0; i < nK; i++) {
    enum CXCursorKind e = clang_getCursorKind(aK[i]);
    if (e != CXCursor_TemplateTypeParameter && e != CXCursor_NonTypeTemplateParameter &&
        e != CXCursor_TemplateTemplateParameter)
      continue;
    if (iSeen++ != iIndex) continue;
    if (e == CXCursor_TemplateTypeParameter) z = ks_rw_spelling(aK[i]);
    break;
  }
  free(aK);
  return z;
}

/* A template element type T: the lanes are ks_lanes<T>() = 16 / sizeof(T) of
 * each instantiation (the shipped ks_vec.cuh), the same T the launches name,
 * so every buffer the body accesses at the index must be of T; one of another
 * type would need its own lane count. */
static int plan_types_tmpl(ks_rewrite *p, const vscan *pS, const ks_rw_param *aP, vplan *pPlan) {
  const char *zCanon = NULL;
  int iT = -1;
  for (int i = 0; i < pS->n && iT < 0; i++)
    if ((iT = tparam_index(aP[pS->a[i].iParam].zElemType)) >= 0) zCanon = aP[pS->a[i].iParam].zElemType;
  if (clang_Cursor_isNull(pPlan->kernel))
    return ks_rewrite_refuse(p, "the element type is a template parameter: only the 1-D and grid-stride forms of a "
                                "template kernel are vectorized");
  char *zT = tparam_name(pPlan->kernel, iT);
  if (!zT) return ks_rewrite_refuse(p, "the element type is a template parameter the rule cannot name");
  for (int i = 0; i < pS->n; i++) {
    const ks_rw_param *q = &aP[pS->a[i].iParam];
    if (q->zElemType && strcmp(q->zElemType, zCanon) == 0) continue;
    int iOther = tparam_index(q->zElemType);
    char *zO = iOther >= 0 ? tparam_name(pPlan->kernel, iOther) : NULL;
    int rc = ks_rewrite_refuse(p, "pointer parameters of different element types (%s and %s): with a template "
                                  "element type every buffer accessed at the index must be of it (the lanes, 16 / "
                                  "sizeof(%s), would differ)",
                               zT, zO ? zO : q->zElemType ? q->zElemType : "?", zT);
    free(zO);
    free(zT);
    return rc;
  }
  pPlan->zTParam = zT;
  pPlan->iTParam = iT;
  pPlan->zElem = zT;
  pPlan->zVec = "ks_vec_t";
  for (int i = 0; i < pS->n; i++)
    if (pS->a[i].iParam < 64) {
      pPlan->azVec[pS->a[i].iParam] = "ks_vec_t";
      pPlan->anAlign[pS->a[i].iParam] = 16;
    }
  return KS_OK;
}

static int plan_types(ks_rewrite *p, const vscan *pS, const ks_rw_param *aP, vplan *pPlan);

/* The accesses found are ones the rewrite can vectorize: written in the
 * kernel (not a macro), of one element type with a 128-bit vector type, at
 * least one store, and no read of a buffer after a store to another (they
 * would see a different order if they alias). Fills the plan's type. */
static int check_accesses(ks_rewrite *p, const vscan *pS, const ks_rw_param *aP, const ks_rw_pointwise *pPw,
                          vplan *pPlan, int *pbAliasGuard) {
  ks_tu *pTu = ks_rewrite_tu(p);
  if (pS->zWhy) return ks_rewrite_refuse(p, "%s", pS->zWhy);
  if (pS->n == 0) return ks_rewrite_refuse(p, "the element body accesses no pointer parameter");
  /* The body is copied once per lane with each P[i] replaced: an access
   * spelled inside a macro (several P[i] at one expansion location) has no
   * text of its own to replace. */
  for (int i = 0; i < pS->n; i++) {
    const vacc *a = &pS->a[i];
    if (ks_rewrite_in_macro(p, a->iStart, a->iEnd) || (i && a->iStart < pS->a[i - 1].iEnd) ||
        a->iStart < pPw->iBodyStart || a->iEnd > pPw->iBodyEnd || a->iEnd <= a->iStart) {
      unsigned iLine, iCol;
      ks_ast_line_col(pTu, a->iStart, &iLine, &iCol);
      return ks_rewrite_refuse(p, "%s:%u:%u: an element access is written inside a macro expansion; expand the macro "
                                  "or write the access in the kernel",
                               pTu->zFile, iLine, iCol);
    }
  }
  /* The widest element sets the lanes (16 bytes of it); each buffer gets the
   * vector of that many of its own elements. */
  unsigned iFirstStore = (unsigned)-1;
  int bAnyStore = 0, rc;
  for (int i = 0; i < pS->n; i++) {
    if (pS->a[i].eUse != KS_RW_READ) {
      bAnyStore = 1;
      if (pS->a[i].iStoreEnd < iFirstStore) iFirstStore = pS->a[i].iStoreEnd;
    }
  }
  int bTmpl = 0;
  for (int i = 0; i < pS->n; i++) bTmpl |= tparam_index(aP[pS->a[i].iParam].zElemType) >= 0;
  if ((rc = bTmpl ? plan_types_tmpl(p, pS, aP, pPlan) : plan_types(p, pS, aP, pPlan)) < 0) return rc;
  if (!bAnyStore) return ks_rewrite_refuse(p, "the element body stores through no pointer parameter");
  for (int i = 0; i < pS->n; i++) {
    /* a dead read (nd_dead_reads) runs on no vector path: the else's `out[i] = in[i];` after the then's store */
    if (pS->a[i].eUse != KS_RW_READ || pS->a[i].iStart < iFirstStore || pS->a[i].bDead) continue;
    int bSame = 0;
    for (int m = 0; m < pS->n; m++)
      if (pS->a[m].eUse != KS_RW_READ && pS->a[m].iParam == pS->a[i].iParam) bSame = 1;
    if (!bSame && pbAliasGuard) { /* the caller tests at run time that the vectors are apart */
      *pbAliasGuard = 1;
      continue;
    }
    if (!bSame)
      return ks_rewrite_refuse(p, "%s[%s] is read after a store through another pointer (they may alias)",
                               aP[pS->a[i].iParam].zName, pPw->zIdx);
  }
  return KS_OK;
}

/* The vector type of each buffer: the widest element sets the lanes (16
 * bytes of it); each buffer gets the vector of that many of its own elements. */
static int plan_types(ks_rewrite *p, const vscan *pS, const ks_rw_param *aP, vplan *pPlan) {
  long long nMax = 0;
  for (int i = 0; i < pS->n; i++) {
    const ks_rw_param *q = &aP[pS->a[i].iParam];
    if (q->nElemSize > nMax) {
      nMax = q->nElemSize;
      pPlan->zElem = q->zElemType;
    }
  }
  for (int i = 0; i < pS->n; i++) {
    const ks_rw_param *q = &aP[pS->a[i].iParam];
    const char *zE = q->zElemType ? q->zElemType : "";
    int nL2 = 0;
    const char *zV = q->nElemSize == nMax ? plan_vec_type(pPlan->bBytes, zE, q->nElemSize, &nL2) : NULL;
    if (q->nElemSize == nMax && !zV)
      return ks_rewrite_refuse(p, "parameter %s: element type '%s' has no 128-bit vector type here (float, int, "
                                  "unsigned, double, long long, __half, __nv_bfloat16)",
                               q->zName, q->zElemType ? q->zElemType : "?");
    if (zV) pPlan->nLanes = nL2;
  }
  if (pPlan->nLanes == 0) { /* no element size known (a template parameter) */
    const ks_rw_param *q = &aP[pS->a[0].iParam];
    return ks_rewrite_refuse(p, "parameter %s: element type '%s' has no 128-bit vector type here (float, int, "
                                "unsigned, double, long long, __half, __nv_bfloat16)",
                             q->zName, q->zElemType ? q->zElemType : "?");
  }
  for (int i = 0; i < pS->n; i++) {
    const ks_rw_param *q = &aP[pS->a[i].iParam];
    const char *zE = q->zElemType ? q->zElemType : "";
    int nL2 = 0, iP = pS->a[i].iParam;
    const char *zV = q->nElemSize == nMax ? plan_vec_type(pPlan->bBytes, zE, q->nElemSize, &nL2)
                                          : narrow_vec_type(zE, q->nElemSize, pPlan->nLanes);
    if (!zV)
      return ks_rewrite_refuse(p, "pointer parameters of different element types (%s and %s): %s has no %d-lane "
                                  "vector type here",
                               pPlan->zElem, q->zElemType, q->zName, pPlan->nLanes);
    if (iP < 64) {
      pPlan->azVec[iP] = zV;
      pPlan->anAlign[iP] = (int)(q->nElemSize * pPlan->nLanes);
    }
    if (pPlan->zVec && strcmp(pPlan->zVec, zV) != 0) pPlan->bMixed = 1;
    if (!pPlan->zVec || q->nElemSize == nMax) pPlan->zVec = zV;
  }
  return KS_OK;
}

/* Per buffer: used, loaded (read anywhere, or a store that is not
 * unconditional), stored. */
static int buffer_roles(ks_rewrite *p, const vscan *pS, const ks_rw_param *aP, int nP, vplan *pPlan) {
  if (nP > 64) return ks_rewrite_refuse(p, "too many parameters");
  for (int i = 0; i < nP; i++)
    if (pS->abNullTest[i] && pS->abOther[i])
      return ks_rewrite_refuse(p, "%s is both tested against null and read at another index", aP[i].zName);
  for (int i = 0; i < pS->n; i++) {
    int iP = pS->a[i].iParam;
    if ((pS->abNullTest[iP] || pS->abOther[iP]) && pS->a[i].eUse != KS_RW_READ)
      return ks_rewrite_refuse(p, "%s is written and %s", aP[iP].zName,
                               pS->abNullTest[iP] ? "tested against null"
                                                  : "read at another index than the global index");
    pPlan->abUsed[iP] = 1;
    if (pS->a[i].eUse & KS_RW_READ) pPlan->abLoad[iP] = 1;
    if (pS->a[i].eUse & KS_RW_WRITE) {
      pPlan->abStore[iP] = 1;
      if (!pS->a[i].bTop) pPlan->abLoad[iP] = 1; /* keep lanes the body may leave unwritten */
    }
  }
  return KS_OK;
}

/* The pack type of 2-byte elements (ks_pack<N>_half, ks_pack<N>_bf16: N
 * elements, aligned to their size), above the kernel, once per file whatever
 * the number of kernels given it. */
static int put_pack_type(ks_rewrite *p, CXCursor k, const char *zVec) {
  unsigned ks, ke;
  char *zEnd = NULL;
  int rc, nLanes = (int)strtol(zVec + 7, &zEnd, 10), nSize = 2;
  ks_buf b = KS_BUF_INIT;
  if ((rc = ks_ast_extent(ks_rewrite_tu(p), k, &ks, &ke)) < 0) return rc;
  unsigned iKLine = ks_rewrite_line_start(p, ks, NULL);
  const char *zE = "__nv_bfloat16";
  if (!strcmp(zEnd, "_half")) zE = "__half";
  else if (zEnd[1] && !strcmp(zEnd + 2, "8")) { /* _u8, _s8, _c8 */
    nSize = 1;
    zE = zEnd[1] == 'u' ? "unsigned char" : zEnd[1] == 's' ? "signed char" : "char";
  }
  ks_buf_printf(&b, "#ifndef %s_defined\n#define %s_defined\nstruct __align__(%d) %s { %s e[%d]; };\n#endif\n",
                zVec, zVec, nLanes * nSize, zVec, zE, nLanes);
  rc = ks_rewrite_replace(p, iKLine, iKLine, ks_buf_cstr(&b));
  ks_buf_free(&b);
  return rc;
}

/* The element body once per lane of the vector, P[i] -> ks_v_P.<lane> and
 * `i % X` -> the pack's remainder plus the lane (nMods of pS->aMod, 0 to
 * leave them as written), each copy in a block of its own at indentation zIn. */
/* The element body for lane l (zLane: the lane as text, a loop's variable),
 * into pLane; for put_lanes. */
static void lane_body(ks_buf *pLane, const char *zSrc, const vscan *pS, const ks_rw_param *aP,
                      const ks_rw_pointwise *pPw, const vplan *pPlan, int nMods, int bFast, int l,
                      const char *zLane) {
  char zNum[16];
  snprintf(zNum, sizeof zNum, "%d", l);
  const char *zL = zLane ? zLane : zNum;
  unsigned iPos = pPw->iBodyStart;
  /* accesses and remainders in source order (they never overlap: an
   * access's index is i itself, a remainder's left side is i) */
  int ia = 0, im = 0;
  while (ia < pS->n || im < nMods) {
    int bMod = im < nMods && (ia >= pS->n || pS->aMod[im].iStart < pS->a[ia].iStart);
    unsigned iS = bMod ? pS->aMod[im].iStart : pS->a[ia].iStart;
    ks_buf_append(pLane, zSrc + iPos, iS - iPos);
    if (bMod) {
      int d = pS->aMod[im].iDiv;
      const char *zX = pS->azDiv[d], *zT = pS->azModType[d];
      /* bFast: the whole pack stays inside X's current block (put_lanes'
       * test), so every lane shares the pack's quotient and digit */
      if (bFast && pS->aMod[im].eOp == 0) ks_buf_printf(pLane, "((%s)(ks_r%d + %s))", zT, d, zL);
      else if (bFast && pS->aMod[im].eOp == 1) ks_buf_printf(pLane, "((%s)ks_q%d)", zT, d);
      else if (bFast) ks_buf_printf(pLane, "((%s)ks_d%d)", zT, im);
      /* else lanes that stay inside X's current block share the pack's quotient */
      else if (pS->aMod[im].eOp == 0)
        ks_buf_printf(pLane, "((%s)(ks_r%d + %s < (%s) ? ks_r%d + %s : (ks_r%d + %s) %% (%s)))", zT, d, zL, zX, d, zL, d,
                      zL, zX);
      else if (pS->aMod[im].eOp == 1)
        ks_buf_printf(pLane, "((%s)(ks_r%d + %s < (%s) ? ks_q%d : (ks_base + %s) / (long long)(%s)))", zT, d, zL, zX, d,
                      zL, zX);
      else
        ks_buf_printf(pLane,
                      "((%s)(ks_r%d + %s < (%s) && (%s) != 0 ? ks_d%d : "
                      "((ks_base + %s) / (long long)(%s)) %% (long long)(%s)))",
                      zT, d, zL, zX, pS->aMod[im].zY, im, zL, zX, pS->aMod[im].zY);
      iPos = pS->aMod[im++].iEnd;
    } else {
      put_lane(pLane, pPlan->azVec[pS->a[ia].iParam], aP[pS->a[ia].iParam].zName, l, zLane);
      iPos = pS->a[ia++].iEnd;
    }
  }
  ks_buf_append(pLane, zSrc + iPos, pPw->iBodyEnd - iPos);
}

static void put_lane_copies(ks_buf *pB, const char *zSrc, const vscan *pS, const ks_rw_param *aP,
                            const ks_rw_pointwise *pPw, const vplan *pPlan, int nMods, int bFast, int nIn,
                            const char *zIn) {
  ks_buf lane = KS_BUF_INIT;
  /* a template's lanes: one copy of the body in a loop the compiler unrolls
   * (ks_L is a constant of each instantiation) */
  int bLoop = pPlan->zTParam != NULL, nCopies = bLoop ? 1 : pPlan->nLanes;
  if (bLoop) ks_buf_printf(pB, "%.*s  #pragma unroll\n%.*s  for (int ks_l = 0; ks_l < ks_L; ++ks_l) {\n", nIn, zIn, nIn, zIn);
  for (int l = 0; l < nCopies; l++) {
    ks_buf_clear(&lane);
    lane_body(&lane, zSrc, pS, aP, pPw, pPlan, nMods, bFast, l, bLoop ? "ks_l" : NULL);
    const char *zL = ks_buf_cstr(&lane);
    size_t nLane = strlen(zL);
    while (*zL == ' ' || *zL == '\n' || *zL == '\t') zL++, nLane--;
    while (nLane > 0 && (zL[nLane - 1] == ' ' || zL[nLane - 1] == '\n' || zL[nLane - 1] == '\t')) nLane--;
    if (!bLoop) ks_buf_printf(pB, "%.*s  {\n", nIn, zIn);
    if (pS->nIdxUses > nMods && bLoop) /* each remainder replaced holds one use */
      ks_buf_printf(pB, "%.*s    %s %s = (%s)(ks_base + ks_l);\n", nIn, zIn, pPw->zIdxType, pPw->zIdx, pPw->zIdxType);
    else if (pS->nIdxUses > nMods)
      ks_buf_printf(pB, "%.*s    %s %s = (%s)(ks_base + %d);\n", nIn, zIn, pPw->zIdxType, pPw->zIdx, pPw->zIdxType, l);
    ks_buf_printf(pB, "%.*s    %.*s\n%.*s  }\n", nIn, zIn, (int)nLane, zL, nIn, zIn);
  }
  ks_buf_free(&lane);
}

/* The lanes of a pack. With remainders (nMods), twice: a pack that stays
 * inside each divisor's current block (ks_r + lanes <= X, and every digit's
 * Y nonzero) takes lanes that use the pack's remainder, quotient and digit
 * directly; the others keep the per-lane selects. In the H200 profiles, an
 * f16 bias + GELU map (`b[i % cols]`) executed 2.3x the instructions of the
 * same GELU without the broadcast, the selects and a 64-bit remainder. */
static void put_lanes(ks_buf *pB, const char *zSrc, const vscan *pS, const ks_rw_param *aP,
                      const ks_rw_pointwise *pPw, const vplan *pPlan, int nMods, const char *zLanes, int nIn,
                      const char *zIn) {
  if (nMods == 0) {
    put_lane_copies(pB, zSrc, pS, aP, pPw, pPlan, 0, 0, nIn, zIn);
    return;
  }
  ks_buf in2 = KS_BUF_INIT;
  ks_buf_append(&in2, zIn, (size_t)nIn);
  ks_buf_append(&in2, "  ", 2);
  const char *zIn2 = ks_buf_cstr(&in2);
  int nIn2 = nIn + 2;
  ks_buf_printf(pB, "%.*s  if (", nIn, zIn);
  for (int d = 0; d < pS->nDiv; d++)
    ks_buf_printf(pB, "%sks_r%d + %s <= (long long)(%s)", d ? " && " : "", d, zLanes, pS->azDiv[d]);
  for (int m = 0; m < nMods; m++)
    if (pS->aMod[m].eOp == 2) ks_buf_printf(pB, " && (%s) != 0", pS->aMod[m].zY);
  ks_buf_printf(pB, ") {\n");
  put_lane_copies(pB, zSrc, pS, aP, pPw, pPlan, nMods, 1, nIn2, zIn2);
  ks_buf_printf(pB, "%.*s  } else {\n", nIn, zIn);
  put_lane_copies(pB, zSrc, pS, aP, pPw, pPlan, nMods, 0, nIn2, zIn2);
  ks_buf_printf(pB, "%.*s  }\n", nIn, zIn);
  ks_buf_free(&in2);
}

/* The run-time test that each written vector lies apart from every other
 * vector the body uses (the body reads after a store to another buffer: the
 * vector path reads everything first). zAddr: the vector's address, one %s
 * for the buffer's name ("(%s + ks_base)", "ks_p_%s"). */
static void put_apart(ks_buf *pB, const vplan *pPlan, const ks_rw_param *aP, int nP, const char *zAddr, int nIn,
                      const char *zIn) {
  char zA[160], zB[160], zSi[16], zSm[16];
  for (int i = 0; i < nP && i < 64; i++) {
    if (!pPlan->abStore[i]) continue;
    for (int m = 0; m < nP && m < 64; m++) {
      if (m == i || !pPlan->abUsed[m] || (pPlan->abStore[m] && m < i)) continue;
      snprintf(zA, sizeof zA, zAddr, aP[i].zName);
      snprintf(zB, sizeof zB, zAddr, aP[m].zName);
      snprintf(zSi, sizeof zSi, "%d", pPlan->anAlign[i]);
      snprintf(zSm, sizeof zSm, "%d", pPlan->anAlign[m]);
      ks_buf_printf(pB,
                    " &&\n%.*s    ((unsigned long long)(const void *)%s + %s <= (unsigned long long)(const void *)%s || "
                    "(unsigned long long)(const void *)%s + %s <= (unsigned long long)(const void *)%s)",
                    nIn, zIn, zA, pPlan->zTParam ? "sizeof(ks_vec_t)" : zSi, zB, zB,
                    pPlan->zTParam ? "sizeof(ks_vec_t)" : zSm, zA);
    }
  }
}

/* `const long long NAME = (Y) != 0 ? N op Y : 0;`, N the pack's first index
 * ks_base or a quotient of it (never larger), op '/' or '%'. For an int Y the
 * division is a 32-bit one while ks_base fits an int: a few instructions, where
 * a 64-bit one is a subroutine (measurable on a map with a broadcast, at 8 f16
 * lanes a thread). */
static void put_pack_div(ks_buf *pB, int nIn, const char *zIn, const char *zName, const char *zN, char cOp,
                         const char *zY, int bInt) {
  if (bInt)
    ks_buf_printf(pB,
                  "%.*s  const long long %s = (%s) != 0 ? (ks_base <= 2147483647LL ? (long long)((int)%s %c (%s)) "
                  ": %s %c (long long)(%s)) : 0;\n",
                  nIn, zIn, zName, zY, zN, cOp, zY, zN, cOp, zY);
  else
    ks_buf_printf(pB, "%.*s  const long long %s = (%s) != 0 ? %s %c (long long)(%s) : 0;\n", nIn, zIn, zName, zY, zN,
                  cOp, zY);
}

/* The replacement of the guarded region (or grid-stride loop): vector loads
 * under an alignment and bounds guard, the body per lane, vector stores, and
 * the body as written in a scalar loop for the tail. */
static void put_vector_region(ks_buf *pB, ks_rewrite *p, const vscan *pS, const ks_rw_param *aP, int nP,
                              const ks_rw_pointwise *pPw, const vplan *pPlan, int bAliasGuard) {
  const char *zSrc = ks_rewrite_source(p, NULL);
  char zLanes[16]; /* the lanes: a number, or a template's constant ks_L */
  snprintf(zLanes, sizeof zLanes, "%d", pPlan->nLanes);
  unsigned nIndent = 0;
  unsigned iLine = ks_rewrite_line_start(p, pPw->iHeadStart, &nIndent);
  const char *zIn = zSrc + iLine;
  int nIn = (int)nIndent;
  if (pPlan->zTParam) {
    snprintf(zLanes, sizeof zLanes, "ks_L");
    ks_buf_printf(pB, "constexpr int ks_L = ks_lanes<%s>();\n", pPlan->zTParam);
    ks_buf_printf(pB, "%.*stypedef ks_pack<%s, ks_L> ks_vec_t;\n%.*s", nIn, zIn, pPlan->zTParam, nIn, zIn);
  }
  if (pPw->bGridStride) {
    ks_buf_printf(pB, "const long long ks_n = (long long)(%s);\n", pPw->zBound);
    ks_buf_printf(pB,
                  "%.*sfor (long long ks_base = ((long long)blockIdx.x * blockDim.x + threadIdx.x) * %s; ks_base < "
                  "ks_n;\n"
                  "%.*s     ks_base += (long long)blockDim.x * gridDim.x * %s) {\n%.*s",
                  nIn, zIn, zLanes, nIn, zIn, zLanes, nIn, zIn);
  } else {
    ks_buf_printf(pB, "const long long ks_base = ((long long)blockIdx.x * blockDim.x + threadIdx.x) * %s;\n", zLanes);
    ks_buf_printf(pB, "%.*sconst long long ks_n = (long long)(%s);\n%.*s", nIn, zIn, pPw->zBound, nIn, zIn);
  }
  ks_buf_printf(pB, "if (ks_base + %s <= ks_n && ", zLanes);
  if (!pPlan->bMixed) {
    int bFirst = 1;
    ks_buf_printf(pB, "((");
    for (int i = 0; i < nP; i++) {
      if (!pPlan->abUsed[i]) continue;
      ks_buf_printf(pB, "%s(unsigned long long)(const void *)%s", bFirst ? "" : " | ", aP[i].zName);
      bFirst = 0;
    }
    ks_buf_printf(pB, ") %% %s) == 0", pPlan->zTParam ? "alignof(ks_vec_t)" : "16");
  } else {
    /* each pointer aligned to its own vector */
    int bFirst = 1;
    for (int i = 0; i < nP; i++) {
      if (!pPlan->abUsed[i]) continue;
      ks_buf_printf(pB, "%s(unsigned long long)(const void *)%s %% %d == 0", bFirst ? "" : " && ", aP[i].zName,
                    pPlan->anAlign[i]);
      bFirst = 0;
    }
  }
  if (bAliasGuard) put_apart(pB, pPlan, aP, nP, "(%s + ks_base)", nIn, zIn);
  ks_buf_printf(pB, ") {\n");
  for (int i = 0; i < nP; i++) {
    const char *zVec = pPlan->azVec[i];
    if (!pPlan->abUsed[i]) continue;
    if (pPlan->abLoad[i] && pS->abNullTest[i]) /* read only where the body's own test lets it */
      ks_buf_printf(pB, "%.*s  const %s ks_v_%s = %s != nullptr ? *reinterpret_cast<const %s *>(%s + ks_base) : %s();\n",
                    nIn, zIn, zVec, aP[i].zName, aP[i].zName, zVec, aP[i].zName, zVec);
    else if (pPlan->abLoad[i])
      ks_buf_printf(pB, "%.*s  %s%s ks_v_%s = *reinterpret_cast<const %s *>(%s + ks_base);\n", nIn, zIn,
                    pPlan->abStore[i] ? "" : "const ", zVec, aP[i].zName, zVec, aP[i].zName);
    else
      ks_buf_printf(pB, "%.*s  %s ks_v_%s;\n", nIn, zIn, zVec, aP[i].zName);
  }
  /* The remainders once per pack (X's value, so never a new division by
   * zero: X == 0 leaves each lane's own `% X` where the body had it). Only
   * for a signed index, where i = ks_base + lane >= 0 makes
   * (ks_base + l) % X == (ks_base % X + l) % X; none inside a macro. */
  int nMods = signed_int_type(pPw->zIdxType) ? pS->nMod : 0;
  for (int m = 0; m < nMods; m++)
    if (ks_rewrite_in_macro(p, pS->aMod[m].iStart, pS->aMod[m].iEnd)) nMods = 0;
  char zName[24], zN[24];
  for (int d = 0; nMods && d < pS->nDiv; d++) {
    const char *zX = pS->azDiv[d];
    int bInt = !strcmp(pS->azModType[d], "int");
    /* one division for quotient and remainder where some unit needs the quotient */
    snprintf(zName, sizeof zName, "ks_%c%d", pS->abQuot[d] ? 'q' : 'r', d);
    put_pack_div(pB, nIn, zIn, zName, "ks_base", pS->abQuot[d] ? '/' : '%', zX, bInt);
    if (pS->abQuot[d])
      ks_buf_printf(pB, "%.*s  const long long ks_r%d = ks_base - ks_q%d * (long long)(%s);\n", nIn, zIn, d, d, zX);
  }
  /* the digits (i / X) % Y of the pack's first index, once (0 <= ks_q <= ks_base) */
  for (int m = 0; m < nMods; m++) {
    int d = pS->aMod[m].iDiv;
    if (pS->aMod[m].eOp != 2) continue;
    snprintf(zName, sizeof zName, "ks_d%d", m);
    snprintf(zN, sizeof zN, "ks_q%d", d);
    put_pack_div(pB, nIn, zIn, zName, zN, '%', pS->aMod[m].zY, !strcmp(pS->azModType[d], "int"));
  }
  put_lanes(pB, zSrc, pS, aP, pPw, pPlan, nMods, zLanes, nIn, zIn);
  for (int i = 0; i < nP; i++)
    if (pPlan->abStore[i])
      ks_buf_printf(pB, "%.*s  *reinterpret_cast<%s *>(%s + ks_base) = ks_v_%s;\n", nIn, zIn, pPlan->azVec[i],
                    aP[i].zName, aP[i].zName);
  ks_buf_printf(pB, "%.*s} else {\n", nIn, zIn);
  ks_buf_printf(pB, "%.*s  for (long long ks_i = ks_base; ks_i < ks_base + %s && ks_i < ks_n; ++ks_i) {\n", nIn, zIn,
                zLanes);
  ks_buf_printf(pB, "%.*s    %s %s = (%s)ks_i;\n%.*s    ", nIn, zIn, pPw->zIdxType, pPw->zIdx, pPw->zIdxType, nIn, zIn);
  {
    unsigned bs = pPw->iBodyStart, be = pPw->iBodyEnd; /* the body as written, minus surrounding blank space */
    while (bs < be && (zSrc[bs] == ' ' || zSrc[bs] == '\n' || zSrc[bs] == '\t')) bs++;
    while (be > bs && (zSrc[be - 1] == ' ' || zSrc[be - 1] == '\n' || zSrc[be - 1] == '\t')) be--;
    ks_buf_append(pB, zSrc + bs, be - bs);
  }
  ks_buf_printf(pB, "\n%.*s  }\n%.*s}", nIn, zIn, nIn, zIn);
  if (pPw->bGridStride) ks_buf_printf(pB, "\n%.*s}", nIn, zIn);
}


/* ---- the n-dimensional map: the x index of a 1-D/2-D/3-D grid ----
 *
 *     T x = blockIdx.x * blockDim.x + threadIdx.x;   (and y, z, temporaries: a prelude of declarations)
 *     if (G) { BODY }        -- or --      if (G) return; BODY...
 *
 * Each thread takes W consecutive x values (x0 = its x index * W, lanes x0 + l
 * below the x extent the launch gives, gridDim.x * blockDim.x): the launches stay
 * as they are, and every (x, y, z) the original covered is covered once. An
 * access whose index is affine in x with coefficient 1 (the kernel-shape model's
 * polynomial: row * pitch + x, (z * H + y) * W + x, x) is one vector access at
 * lane 0's address when every lane passes G and every such address is aligned;
 * other reads stay scalar per lane; anything else runs the body as written per
 * lane. The pitch need not be known: alignment is tested at run time. */

/* A stencil buffer's window: the elements lanes 0 .. W-1 read at x + c for
 * the constants c of one cluster of its accesses (same x-free terms, the
 * constants no more than W apart), [cMin, cMax + W) relative to lane 0's x.
 * The multiples of W in [cMin, cMax] start whole vectors (aligned when lane
 * 0's element at constant 0 is); the rest are scalars. Every element of the
 * window is one that some lane reads as written. */
typedef struct ndwin {
  int iParam;
  int iRep;                  /* the access (ndscan.a) whose address gives the window's */
  long long cMin, cMax;
  long long cAnchor;         /* the window's base: the first vector's start, or cMin */
  int nChunk;                /* whole vectors from the base on */
  /* A window read in loops (bArr): an array ks_w_<P>_w<g>[nRows][cMax - cMin + W]
   * from cMin, a row per value of its row loops' counters. */
  int bArr;
  int aRow[2], nRow;         /* the row loops (ks_shape.aLoop) */
  long long aRowInit[2], aRowTrip[2], nRows;
  /* A stack (bStk, with bArr and rows along y): the windows of one buffer at
   * consecutive constant rows (`in[(y - 1) * w + x]`, `in[y * w + x]`, ...)
   * as one array, row r read by access aiStkRep[r] whose window starts at
   * acStkMin[r]; [cMin, cMax] are row 0's. */
  int bStk;
  int aiStkRep[16];
  long long acStkMin[16];
} ndwin;

/* A condition of a stencil read that the lanes' test (ks_all) proved for
 * every lane, row and trip (nd_add_lane_conds): on the vector path it has a
 * known value, written there before it (`false && (C)`, `true || (C)`), so
 * that the copies do not test again per tap what the test proved once (a
 * 5x5 mean with `if (sx < 0 || ...) continue;` per tap: four comparisons and
 * a select per tap and lane; 22% fewer PTX instructions there). */
typedef struct ndknown {
  unsigned iStart, iEnd;
  int bTrue; /* the read happens where it is true (else where it is false) */
} ndknown;

/* An integer sum of window reads the vector path writes regrouped
 * (nd_sums_plan, sums=paired): its extent, and its terms, each a read (s->a) or a literal
 * (-1), with its weight. */
#define ND_LIN_MAX 8
#define ND_LIN_TERMS 32
typedef struct ndlin {
  unsigned iStart, iEnd;
  int nT;
  int aiAcc[ND_LIN_TERMS];
  long long aC[ND_LIN_TERMS];
} ndlin;

typedef struct ndscan {
  ks_tu *pTu;
  CXCursor kernel;
  const ks_shape *pShape;
  ks_rw_param *aP;
  int nP;
  CXCursor aPre[16];   /* prelude variables (x among them) */
  int abXDep[16];      /* ... computed from threadIdx.x / blockIdx.x (not x itself) */
  int nPre, iX;
  unsigned iLeadEnd;   /* end of the body's leading pure declarations (copied for the addresses) */
  char *azLead[16];    /* ... the variables they declare (a lane whose vector accesses replaced every read */
  unsigned aiLead[16][2]; /*  of one would leave it unread, which nvcc warns of: the lane drops its */
  int nLead;           /*     declaration, [start, end), once none of the statement's variables is read) */
  CXCursor aWritten[32]; /* locals the body writes */
  int nWritten;
  vacc *a;
  int n, nAlloc;
  char *azIdx[64];     /* per buffer: the vector index as written (squashed) */
  unsigned aiIdx[64][2]; /* ... and its extent */
  unsigned iFirstStore, iLastOtherRead;
  unsigned iBodyStart;
  const char *zWhy;
  vscan vs;            /* the null tests and other reads, as for the 1-D form */
  int abXDerived[16];  /* prelude variables computed from x (and other such, parameters,
                          literals): their declarations move into every lane */
  unsigned aiDerived[8][2]; /* ... the statements declaring them, [start, end) */
  CXCursor aDerSt[8];        /* ... those statements */
  int aiDerOf[16];     /* ... per such variable: its statement */
  int nDerived;
  CXCursor aRp[16];    /* row pointers `T *r = P + off;` (off free of x) of the prelude and */
  int aiRpParam[16];   /*   of the body's leading declarations: the parameter each points */
  char *azRp[16];      /*   into, its name */
  int nRp;
  const char *azIdxBase[64]; /* per buffer: the pointer its vector index is applied to */
  unsigned amIdxLocal[64];   /* ... the locals after the leading declarations it names (aLoc bits) */
  int abStencil[64];   /* per buffer: read at several indices along x */
  CXCursor aCounter[4]; /* while scanning an access: the counters of the for loops around it */
  int nCounter;
  ndwin aWin[16];      /* the windows of the stencil buffers */
  int nWin;
  char *azLaneCond[16]; /* the conditions a neighbour read on some paths is under (`x > 0` of
                          `x > 0 ? in[p - 1] : 0.0f`, negated where it is the else's), and
                          those under which a clamped index is unclamped (`x - 1 >= 0`), as
                          written: the vector path requires each of them of every lane */
  int nLaneCond;
  int bInExit;         /* nd_check on an exit (nd_exits): its return is its own */
  int bGs;             /* the element body is a grid-stride loop's (ndform.bGs) */
  char *azLaneStmt[16]; /* ... such a clamp's in loops, at the loops' extreme counters:
                           `{ const int dx = -1; ks_all = ks_all && ((x + dx) >= (0)); }` */
  int nLaneStmt;
  char *azDigit[4];     /* the divisors X of the lanes' test's locals `x % X`, `x / X` (nd_digit_local): */
  int nDigit;           /*   per pack ks_q<k> = ks_x0 / X, ks_r<k> = ks_x0 % X once, no row wrapped */
  /* Locals declared in the body's loops that an index or a lanes' condition names (`int yy =
     min(max(y + dy, 0), h - 1);`, `int iy = row - R + j, ix = col - R + k;`): never written,
     signed integers computed from counters, the prelude and parameters (nd_local). Their
     declarations are copied where lane 0's addresses and the lanes' test evaluate them. */
  struct {
    CXCursor var;
    unsigned iAt;             /* its name's offset (their order) */
    unsigned iStart, iEnd;    /* its declaration statement, when it declares it alone (else 0, 0) */
    char *zText;              /* `T v = init;`, the initializer as written */
    unsigned mDep;            /* the locals (bits of aLoc) it names, through their own */
    unsigned long long mLoop; /* the loops (bits of ks_shape.aLoop) whose counters it names */
  } aLoc[16];
  int nLoc;
  /* Rows along y (nd_rows): each thread also takes nRY consecutive y, its array
   * windows holding nRows + nRY - 1 rows; 1 when off. bYRead: a prelude statement
   * other than an x-derived one reads y (it would need the row's own y). */
  int nRY;
  int bYRead;
  int bLocals;               /* while checking a text: it may name such locals and any counter */
  unsigned mNeed;            /* ... those it named (aLoc bits) */
  unsigned long long mNeedLoop; /* ... and the loops whose counters it named */
  ndknown aKnown[64];        /* the conditions the lanes' test proves, by position (nd_known_conds) */
  int nKnown;
  /* Windows of 1-byte integers every read of which is promoted to int at once
     (nd_prmt_plan): their bytes come out of the 32-bit words one PRMT each,
     zero- or sign-extended, into int (per window: 0, else the element's kind). */
  unsigned char abPrmtWin[16];
  ndlin aLin[ND_LIN_MAX];    /* sums regrouped (sums=paired), by position */
  int nLin;
  CXCursor aTab[8];          /* the prelude's constant tables (read alike by every thread) */
  int nTab;                  /* ... their count, 9 when there are more */
  int abTid[16];             /* prelude variables that may differ between the threads of a warp (nd_tid_dep) */
  int bFbShared;             /* the warp shares the fallback (nd_fb_shared; fallback=warp, or auto on bytes) */
  unsigned mFbShfl;          /* ... the prelude variables it takes from the output's thread */
} ndscan;

static int nd_pre_index(const ndscan *s, CXCursor d) {
  for (int i = 0; i < s->nPre; i++)
    if (clang_equalCursors(d, s->aPre[i])) return i;
  return -1;
}

/* The model's access at main-file offset iStart, or NULL. */
static const ks_shape_access *nd_model_access(const ks_shape *pS, unsigned iStart) {
  for (int i = 0; i < pS->nAccess; i++)
    if (pS->aAccess[i].iStart == iStart) return &pS->aAccess[i];
  return NULL;
}

/* Is index poly x + (terms free of every x-variant atom)? Then lane l's
 * element is lane 0's plus l. */
static int nd_unit_in_x(const ks_shape *pS, const ks_poly *q, int bLoops) {
  if (q->bIrregular || q->bIndirect) return 0;
  int nUnit = 0;
  for (int i = 0; i < q->n; i++) {
    const ks_mono *m = &q->t[i];
    int bX = 0;
    for (int j = 0; j < m->n; j++) {
      const ks_atom *a = &pS->aAtom[m->a[j]];
      if (a->eKind == KS_ATOM_DERIVED || (a->eKind == KS_ATOM_LOOP && !bLoops)) return 0;
      if ((a->eKind == KS_ATOM_PAR || a->eKind == KS_ATOM_TID || a->eKind == KS_ATOM_BID) && a->iDim == 0) bX = 1;
    }
    if (!bX) continue;
    if (m->n != 1 || m->coef != 1 || pS->aAtom[m->a[0]].eKind != KS_ATOM_PAR) return 0;
    nUnit++;
  }
  return nUnit == 1;
}

/* An index that is not affine in the thread indices (i / 2, i % C, a loaded
 * value): a gather or a layout change. */
static int nd_gather(const ks_shape *pS, const ks_poly *q) {
  if (q->bIrregular || q->bIndirect) return 1;
  for (int i = 0; i < q->n; i++)
    for (int j = 0; j < q->t[i].n; j++)
      if (pS->aAtom[q->t[i].a[j]].eKind == KS_ATOM_DERIVED) return 1;
  return 0;
}

static int nd_is_loop(enum CXCursorKind e) {
  return e == CXCursor_ForStmt || e == CXCursor_WhileStmt || e == CXCursor_DoStmt;
}

/* A reference through which its referent may change (`int &`, `int &&`; not `const int &`). */
static int nd_mutable_ref(CXType t) {
  enum CXTypeKind e = clang_getCanonicalType(t).kind;
  return (e == CXType_LValueReference || e == CXType_RValueReference) &&
         !clang_isConstQualifiedType(clang_getPointeeType(t));
}

/* Does function f take its parameter a by non-const reference? */
static int nd_param_by_ref(CXCursor f, int a) {
  CXCursor *aK = NULL;
  int nK = 0, iPar = 0, bRef = 0;
  ks_rw_children(f, &aK, &nK);
  for (int k = 0; k < nK; k++)
    if (clang_getCursorKind(aK[k]) == CXCursor_ParmDecl && iPar++ == a) bRef = nd_mutable_ref(clang_getCursorType(aK[k]));
  free(aK);
  return bRef;
}

/* Is call c's argument a bound to a non-const reference: by its callee, or,
 * a template leaving it unresolved, by any function its name may denote? */
static int nd_arg_by_ref(CXCursor c, int a) {
  CXCursor f = clang_getCursorReferenced(c);
  if (!clang_Cursor_isNull(f) && clang_getCursorKind(f) != CXCursor_OverloadedDeclRef) return nd_param_by_ref(f, a);
  CXCursor *aK = NULL;
  int nK = 0, bRef = 0;
  ks_rw_children(c, &aK, &nK);
  for (int k = 0; k < nK && !bRef; k++) { /* the callee among the children: its overload set */
    CXCursor r = clang_getCursorReferenced(aK[k]);
    if (clang_Cursor_isNull(r) || clang_getCursorKind(r) != CXCursor_OverloadedDeclRef) continue;
    for (unsigned i = 0; i < clang_getNumOverloadedDecls(r) && !bRef; i++)
      bRef = nd_param_by_ref(clang_getOverloadedDecl(r, i), a);
  }
  free(aK);
  return bRef;
}

/* A write of d by the element body: a kernel parameter or a prelude variable
 * refuses; a local is recorded (s->aWritten: nd_local takes none of them). */
static void nd_note_write(ndscan *s, CXCursor d) {
  if (clang_Cursor_isNull(d)) return;
  if (clang_getCursorKind(d) == CXCursor_ParmDecl)
    s->zWhy = "the element body changes a kernel parameter (each output's copy would see the others' changes)";
  else if (clang_getCursorKind(d) == CXCursor_VarDecl) {
    if (nd_pre_index(s, d) >= 0) s->zWhy = "the element body changes an index variable of the prelude";
    else if (s->nWritten < 32) s->aWritten[s->nWritten++] = d;
    else s->zWhy = "the element body writes too many locals";
  }
}

/* What the body must not do (per lane it runs W times, in one thread), and
 * the locals it writes. */
static int nd_check(CXCursor c, const CXCursor *aAnc, int nAnc, void *pArg) {
  (void)aAnc;
  (void)nAnc;
  ndscan *s = pArg;
  enum CXCursorKind e = clang_getCursorKind(c);
  if (e == CXCursor_ReturnStmt) {
    if (!s->bInExit) s->zWhy = "the element body has a return";
  }
  else if (e == CXCursor_GotoStmt || e == CXCursor_LabelStmt) s->zWhy = "the element body has a goto or label";
  else if (e == CXCursor_CallExpr) {
    char *z = ks_rw_spelling(c);
    if (ks_warp_collective(z) || (z && strncmp(z, "atomic", 6) == 0))
      s->zWhy = "the element body has a barrier, warp primitive or atomic";
    else if (!s->zWhy) /* each lane calls it: a helper's __shfl_sync, threadIdx */
      s->zWhy = ks_rw_own_thread_why(c, s->vs.zWhyBuf, sizeof s->vs.zWhyBuf);
    free(z);
  } else if (e == CXCursor_MemberRefExpr) {
    if (ks_shape_builtin(c, NULL) >= 0) s->zWhy = "the element body reads threadIdx/blockIdx/blockDim/gridDim";
  } else if (e == CXCursor_DeclRefExpr) {
    if (ks_shape_builtin_ref(c) >= 0) /* a built-in whole too: `uint3 t = threadIdx;` */
      s->zWhy = "the element body reads threadIdx/blockIdx/blockDim/gridDim";
    int iPre = nd_pre_index(s, clang_getCursorReferenced(c));
    if (iPre >= 0 && s->abXDep[iPre]) s->zWhy = "the element body reads a temporary of the x index other than the index";
  } else if (e == CXCursor_BinaryOperator || e == CXCursor_CompoundAssignOperator || e == CXCursor_UnaryOperator) {
    CXCursor aK[2];
    int nK = ks_rw_kids(c, aK, 2), bWrite = 0;
    if (e == CXCursor_CompoundAssignOperator) bWrite = 1;
    else if (e == CXCursor_BinaryOperator) bWrite = clang_getCursorBinaryOperatorKind(c) == CXBinaryOperator_Assign;
    else {
      enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(c);
      bWrite = op == CXUnaryOperator_PostInc || op == CXUnaryOperator_PostDec || op == CXUnaryOperator_PreInc ||
               op == CXUnaryOperator_PreDec || op == CXUnaryOperator_AddrOf;
    }
    nd_note_write(s, bWrite && nK >= 1 ? ks_rw_ref_decl(aK[0]) : clang_getNullCursor());
  } else if (e == CXCursor_VarDecl && nd_mutable_ref(clang_getCursorType(c))) {
    CXCursor aI[4]; /* `int &r = x;`: r's writes are x's */
    int nI = ks_rw_kids(c, aI, 4);
    if (nI >= 1 && nI <= 4) nd_note_write(s, ks_rw_ref_decl(aI[nI - 1]));
  }
  if (e == CXCursor_CallExpr && !s->zWhy) { /* `bump(x)` with `void bump(int &v)`: a write of x */
    int nArg = clang_Cursor_getNumArguments(c);
    for (int a = 0; a < nArg && !s->zWhy; a++) {
      CXCursor arg = ks_rw_strip(clang_Cursor_getArgument(c, (unsigned)a));
      if (clang_getCursorKind(arg) == CXCursor_DeclRefExpr && nd_arg_by_ref(c, a))
        nd_note_write(s, clang_getCursorReferenced(arg));
    }
  }
  return s->zWhy ? -1 : 0;
}

static int nd_local(ndscan *s, CXCursor d);

/* Does expression c read a local the body writes, or one declared in the
 * body after its leading declarations (not in scope where the addresses are
 * computed) other than a loop's local nd_local takes (into s->mNeed)? */
static int nd_index_ok(ndscan *s, CXCursor c, unsigned iBodyStart) {
  CXCursor d = ks_rw_ref_decl(c);
  if (clang_getCursorKind(c) == CXCursor_DeclRefExpr || !clang_Cursor_isNull(d)) {
    if (clang_Cursor_isNull(d)) d = clang_getCursorReferenced(c);
    int bCounter = 0; /* the counter of a loop around the access (nd_loop checks how it moves) */
    for (int i = 0; i < s->nCounter && !bCounter; i++) bCounter = clang_equalCursors(d, s->aCounter[i]);
    if (clang_getCursorKind(d) == CXCursor_VarDecl && !bCounter) {
      for (int i = 0; i < s->nWritten; i++)
        if (clang_equalCursors(d, s->aWritten[i])) return 0;
      unsigned ds, de;
      if (ks_ast_extent(s->pTu, d, &ds, &de) == 0 && ds >= iBodyStart && ds >= s->iLeadEnd &&
          nd_local(s, d) < 0) /* a local whose declaration can be copied (nd_local) */
        return 0;
    }
  }
  CXCursor *aK;
  int nK, bOk = 1;
  ks_rw_children(c, &aK, &nK);
  for (int i = 0; i < nK && bOk; i++) bOk = nd_index_ok(s, aK[i], iBodyStart);
  free(aK);
  return bOk;
}

/* Is statement st `if (C) continue;` (or `{ continue; }`, no else)? Then
 * *pCond is C: the statements after it in its block run on the trips where
 * C is false (the loop still makes every trip). */
static int nd_continue_if(CXCursor st, CXCursor *pCond) {
  CXCursor aK[3], aB[2];
  if (clang_getCursorKind(st) != CXCursor_IfStmt || ks_rw_kids(st, aK, 3) != 2) return 0;
  CXCursor t = aK[1];
  if (clang_getCursorKind(t) == CXCursor_CompoundStmt) {
    if (ks_rw_kids(t, aB, 2) != 1) return 0;
    t = aB[0];
  }
  if (clang_getCursorKind(t) != CXCursor_ContinueStmt) return 0;
  if (pCond) *pCond = aK[0];
  return 1;
}

/* The conditions C of the `if (C) continue;` statements of block b before
 * its statement `next`, into aCond[*pn] (at most nMax): -1 past nMax. */
static int nd_skips_before(CXCursor b, CXCursor next, CXCursor *aCond, int *pn, int nMax) {
  CXCursor *aS = NULL, c;
  int nS = 0, rc = 0;
  if (clang_getCursorKind(b) != CXCursor_CompoundStmt) return 0;
  ks_rw_children(b, &aS, &nS);
  for (int i = 0; i < nS && !clang_equalCursors(aS[i], next) && rc == 0; i++) {
    if (!nd_continue_if(aS[i], &c)) continue;
    if (*pn == nMax) rc = -1;
    else aCond[(*pn)++] = c;
  }
  free(aS);
  return rc;
}

/* Is c the body of for statement f (which runs on every trip; its condition
 * and step are not that)? */
static int nd_for_body(CXCursor f, CXCursor c) {
  CXCursor aF[4];
  if (clang_getCursorKind(f) != CXCursor_ForStmt) return 0;
  int nF = ks_rw_kids(f, aF, 4);
  return nF >= 1 && nF <= 4 && clang_equalCursors(aF[nF - 1], c);
}

/* Is the expression aAnc[j] evaluated on some paths of its walk's root only
 * (an if's branch, a conditional's arm, the right of && or ||, a switch,
 * after an `if (C) continue;` of a block around it)? */
static int nd_conditional(const CXCursor *aAnc, int j) {
  for (int k = 0; k < j; k++) {
    CXCursor aSkip[1];
    int nSkip = 0;
    if (nd_skips_before(aAnc[k], aAnc[k + 1], aSkip, &nSkip, 1) != 0 || nSkip) return 1;
    enum CXCursorKind e = clang_getCursorKind(aAnc[k]);
    int bBranch = e == CXCursor_IfStmt || e == CXCursor_ConditionalOperator || e == CXCursor_SwitchStmt;
    if (e == CXCursor_ForStmt) {
      if (!nd_for_body(aAnc[k], aAnc[k + 1])) return 1;
      continue;
    }
    if (e == CXCursor_BinaryOperator) {
      enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(aAnc[k]);
      bBranch = op == CXBinaryOperator_LAnd || op == CXBinaryOperator_LOr;
    }
    CXCursor aK[1];
    if (bBranch && (ks_rw_kids(aAnc[k], aK, 1) < 1 || !clang_equalCursors(aK[0], aAnc[k + 1]))) return 1;
  }
  return 0;
}

static int nd_cond_ok(ndscan *s, CXCursor c);
static unsigned nd_stmt_end(ks_tu *pTu, CXCursor c);

static char *nd_text(ks_tu *pTu, unsigned iStart, unsigned iEnd);

/* The one counter for statement f declares (`for (int dy = ...; ...)`) into
 * *pVar: 1, or 0 when f is no for or declares none or several. */
static int nd_for_counter(CXCursor f, CXCursor *pVar) {
  CXCursor aF[1];
  return clang_getCursorKind(f) == CXCursor_ForStmt && ks_rw_kids(f, aF, 1) >= 1 &&
         clang_getCursorKind(aF[0]) == CXCursor_DeclStmt && ks_rw_kids(aF[0], pVar, 1) == 1;
}

/* The loop (ks_shape.aLoop) whose for declares counter d, or -1. */
static int nd_counter_loop(const ndscan *s, CXCursor d) {
  for (int i = 0; i < s->pShape->nLoop && i < 64; i++) {
    CXCursor v;
    if (nd_for_counter(s->pShape->aLoop[i].cursor, &v) && clang_equalCursors(v, d)) return i;
  }
  return -1;
}

typedef struct nd_decl_find {
  CXCursor d, st;
} nd_decl_find;

static int nd_decl_find_visit(CXCursor c, const CXCursor *aAnc, int nAnc, void *pArg) {
  nd_decl_find *pF = pArg;
  if (nAnc < 1 || !clang_equalCursors(c, pF->d)) return 0;
  pF->st = aAnc[nAnc - 1];
  return -1;
}

/* Names only what the address block and the lanes' test have in scope (the
 * kernel's parameters, called functions, names nd_cond_ok takes)? For a
 * clamp's initializer, which the kernel-shape model found pure and affine. */
static int nd_names_ok(ndscan *s, CXCursor c) {
  enum CXCursorKind e = clang_getCursorKind(c);
  if (e == CXCursor_ArraySubscriptExpr) return 0;
  if (e == CXCursor_DeclRefExpr) {
    enum CXCursorKind eD = clang_getCursorKind(clang_getCursorReferenced(c));
    return eD == CXCursor_FunctionDecl || eD == CXCursor_FunctionTemplate || nd_cond_ok(s, c);
  }
  CXCursor *aK;
  int nK, bOk = 1;
  ks_rw_children(c, &aK, &nK);
  for (int i = 0; i < nK && bOk; i++) bOk = nd_names_ok(s, aK[i]);
  free(aK);
  return bOk;
}

/* Local d of the body's loops as one the lanes' test and lane 0's addresses
 * can evaluate by declaring it again (ndscan.aLoc): a never-written signed
 * integer declared after the body's leading declarations, initialized by a
 * pure expression of counters, the prelude, parameters and other such locals,
 * or by a clamp of an index (the model's). Its index in aLoc, its needs added
 * to s->mNeed / s->mNeedLoop; -1 if it is not one. */
static int nd_local(ndscan *s, CXCursor d) {
  for (int i = 0; i < s->nLoc; i++)
    if (clang_equalCursors(s->aLoc[i].var, d)) {
      s->mNeed |= s->aLoc[i].mDep | 1u << i;
      s->mNeedLoop |= s->aLoc[i].mLoop;
      return i;
    }
  CXCursor aV[2], aI[2];
  enum CXTypeKind eT = clang_getCanonicalType(clang_getCursorType(d)).kind; /* const int too */
  int nI = ks_rw_kids(d, aI, 2);
  if (nI < 1 || s->nLoc == 16 || (eT != CXType_Int && eT != CXType_Long && eT != CXType_LongLong)) return -1;
  for (int w = 0; w < s->nWritten; w++)
    if (clang_equalCursors(d, s->aWritten[w])) return -1;
  /* its declaration statement, after the leading ones (a walk of the body: the cheap tests first) */
  nd_decl_find f = {d, clang_getNullCursor()};
  ks_rw_walk(ks_rw_body(s->kernel), nd_decl_find_visit, &f);
  int nV = clang_getCursorKind(f.st) == CXCursor_DeclStmt ? ks_rw_kids(f.st, aV, 2) : 0;
  unsigned ds, de;
  if (nV < 1 || ks_ast_extent(s->pTu, f.st, &ds, &de) < 0 || ds < s->iBodyStart) return -1;
  CXCursor init = aI[nI - 1];
  int i = s->nLoc++, bClamp = 0, bSave = s->bLocals;
  unsigned mSave = s->mNeed;
  unsigned long long mSaveLoop = s->mNeedLoop;
  s->aLoc[i].var = d;
  long iAt = ks_ast_offset(s->pTu, clang_getCursorLocation(d));
  s->aLoc[i].iAt = iAt > 0 ? (unsigned)iAt : ds;
  s->aLoc[i].iStart = nV == 1 ? ds : 0;
  s->aLoc[i].iEnd = nV == 1 ? nd_stmt_end(s->pTu, f.st) : 0;
  s->mNeed = 0;
  s->mNeedLoop = 0;
  s->bLocals = 1;
  for (int k = 0; k < s->pShape->nClampVar && !bClamp; k++) bClamp = clang_equalCursors(d, s->pShape->aClampVar[k]);
  int bOk = bClamp ? nd_names_ok(s, init) : nd_cond_ok(s, init);
  s->aLoc[i].mDep = s->mNeed & ~(1u << i);
  s->aLoc[i].mLoop = s->mNeedLoop;
  s->bLocals = bSave;
  s->mNeed = mSave | (bOk ? s->aLoc[i].mDep | 1u << i : 0);
  s->mNeedLoop = mSaveLoop | (bOk ? s->aLoc[i].mLoop : 0);
  CXString t = clang_getTypeSpelling(clang_getCanonicalType(clang_getCursorType(d))); /* a local typedef's too */
  char *zName = ks_rw_spelling(d), *zInit = bOk ? ks_ast_text(s->pTu, init) : NULL;
  s->aLoc[i].zText = zName && zInit ? ks_mprintf("%s %s = %s;", clang_getCString(t), zName, zInit) : NULL;
  clang_disposeString(t);
  free(zName);
  free(zInit);
  bOk = bOk && s->aLoc[i].zText;
  if (!bOk)
    while (s->nLoc > i) free(s->aLoc[--s->nLoc].zText); /* and any it added on the way */
  return bOk ? i : -1;
}

/* Can a lane's test evaluate c where the guard is: no memory read or call
 * (the body may have stored before it), and only names in scope there with
 * the value they have in the body (parameters, the prelude's variables,
 * enumerators, names declared outside the kernel; with s->bLocals, loop
 * counters and the loops' locals, whose declarations come along)? */
static int nd_cond_ok(ndscan *s, CXCursor c) {
  enum CXCursorKind e = clang_getCursorKind(c);
  if (e == CXCursor_ArraySubscriptExpr || e == CXCursor_CallExpr ||
      (e == CXCursor_UnaryOperator && clang_getCursorUnaryOperatorKind(c) != CXUnaryOperator_Minus &&
       clang_getCursorUnaryOperatorKind(c) != CXUnaryOperator_LNot &&
       clang_getCursorUnaryOperatorKind(c) != CXUnaryOperator_Plus && clang_getCursorUnaryOperatorKind(c) != CXUnaryOperator_Not))
    return 0;
  if (e == CXCursor_DeclRefExpr) {
    CXCursor d = clang_getCursorReferenced(c);
    enum CXCursorKind eD = clang_getCursorKind(d);
    if (eD == CXCursor_ParmDecl || eD == CXCursor_EnumConstantDecl) return 1;
    if (eD != CXCursor_VarDecl) return 0;
    if (nd_pre_index(s, d) >= 0) return 1;
    unsigned ks, ke, ds, de;
    if (ks_ast_extent(s->pTu, s->kernel, &ks, &ke) == 0 && ks_ast_extent(s->pTu, d, &ds, &de) == 0 &&
        (ds < ks || ds >= ke)) /* declared outside the kernel */
      return 1;
    int iLoop = s->bLocals ? nd_counter_loop(s, d) : -1;
    if (iLoop >= 0) s->mNeedLoop |= 1ULL << iLoop;
    return iLoop >= 0 || (s->bLocals && nd_local(s, d) >= 0);
  }
  CXCursor *aK;
  int nK, bOk = ks_rw_pure_expr(c);
  ks_rw_children(c, &aK, &nK);
  for (int i = 0; i < nK && bOk; i++) bOk = nd_cond_ok(s, aK[i]);
  free(aK);
  return bOk;
}

/* nd_cond_ok, where c may also name the loops' counters and the body's
 * locals (nd_local): the locals it names into *pmLocal, whether it names a
 * counter into *pbLoop (either may be NULL); s's needs are left as they were. */
static int nd_cond_ok_locals(ndscan *s, CXCursor c, unsigned *pmLocal, int *pbLoop) {
  int bSave = s->bLocals;
  unsigned mSave = s->mNeed;
  unsigned long long mSaveLoop = s->mNeedLoop;
  s->bLocals = 1;
  s->mNeed = 0;
  s->mNeedLoop = 0;
  int bOk = nd_cond_ok(s, c);
  if (pmLocal) *pmLocal = s->mNeed;
  if (pbLoop) *pbLoop = s->mNeedLoop != 0;
  s->bLocals = bSave;
  s->mNeed = mSave;
  s->mNeedLoop = mSaveLoop;
  return bOk;
}

/* Does c, outside loops, name only what nd_cond_ok takes and the body's
 * locals (nd_local), no loop counter? Those locals into *pmLocal. */
static int nd_cond_locals(ndscan *s, CXCursor c, unsigned *pmLocal) {
  int bLoop = 0;
  return nd_cond_ok_locals(s, c, pmLocal, &bLoop) && !bLoop;
}

/* A read on some paths only (aAnc[j]): the conditions of its path, into
 * v->aCond (negated where it is on the else path or follows `if (C)
 * continue;`), or -1 where a lane's test cannot evaluate one (a switch, a
 * while or do loop, a for's header; outside loops, a read, or a local of the
 * body other than one declared after its leading declarations) or there are
 * more than four. One inside a for loop around the read, or naming such a
 * local (abLoopCond), must hold on every trip (nd_add_loop_cond checks its
 * form). */
static int nd_lane_conds(ndscan *s, const CXCursor *aAnc, int j, vacc *v) {
  int bInLoop = 0;
  v->nCond = 0;
  for (int k = 0; k < j; k++) {
    enum CXCursorKind e = clang_getCursorKind(aAnc[k]);
    CXCursor aK[4];
    int nK = ks_rw_kids(aAnc[k], aK, 4), bNeg;
    if (nd_for_body(aAnc[k], aAnc[k + 1])) {
      bInLoop = 1; /* its body: every trip */
      continue;
    }
    if (e == CXCursor_CompoundStmt) { /* `if (C) continue;` before: read where !C */
      int n0 = v->nCond;
      if (nd_skips_before(aAnc[k], aAnc[k + 1], v->aCond, &v->nCond, 4) < 0 || (v->nCond > n0 && !bInLoop)) return -1;
      for (int i = n0; i < v->nCond; i++) v->abLoopCond[i] = 1, v->abNeg[i] = 1;
      continue;
    }
    if (nd_is_loop(e) || e == CXCursor_SwitchStmt) return -1;
    CXCursor cond;
    if (e == CXCursor_IfStmt || e == CXCursor_ConditionalOperator) {
      if (nK < 2 || nK > 3 || clang_equalCursors(aK[0], aAnc[k + 1])) continue; /* the condition itself: every path */
      cond = aK[0];
      bNeg = nK == 3 && clang_equalCursors(aK[2], aAnc[k + 1]);
    } else if (e == CXCursor_BinaryOperator && (clang_getCursorBinaryOperatorKind(aAnc[k]) == CXBinaryOperator_LAnd ||
                                                clang_getCursorBinaryOperatorKind(aAnc[k]) == CXBinaryOperator_LOr)) {
      if (nK != 2 || clang_equalCursors(aK[0], aAnc[k + 1])) continue;
      cond = aK[0];
      bNeg = clang_getCursorBinaryOperatorKind(aAnc[k]) == CXBinaryOperator_LOr;
    } else
      continue;
    /* outside loops, one naming the body's locals (nd_local) is tested as written with their
       declarations again; one naming a loop's counter too takes the loops' form (nd_add_loop_cond) */
    int bPlain = !bInLoop && nd_cond_ok(s, cond);
    int bLocals = !bInLoop && !bPlain && nd_cond_locals(s, cond, NULL);
    int bLoopForm = bInLoop || (!bPlain && !bLocals && nd_cond_ok_locals(s, cond, NULL, NULL));
    if (v->nCond == 4 || (!bLoopForm && !bPlain && !bLocals)) return -1;
    v->abLoopCond[v->nCond] = (unsigned char)(bLoopForm ? 1 : bLocals ? 2 : 0);
    v->aCond[v->nCond] = cond;
    v->abNeg[v->nCond++] = (unsigned char)bNeg;
  }
  return 0;
}

static const char *nd_loop(const ndscan *s, int iLoop, char **pzType, char **pzName, long long *pInit, long long *pTrip);

/* Adds text z (malloc'd, taken) to list az[*pn] once. NULL, or a refusal reason. */
static const char *nd_add_text(char **az, int *pn, char *z) {
  int bHave = 0;
  if (!z) return "out of memory";
  for (int i = 0; i < *pn && !bHave; i++) bHave = !strcmp(az[i], z);
  if (bHave) free(z);
  else if (*pn < 16) az[(*pn)++] = z;
  else {
    free(z);
    return "neighbours read under more than 16 conditions";
  }
  return NULL;
}

/* Do the locals in mLocal have distinct names (nd_put_locals declares them in
 * one block: a local shadowing another of the same name could not be)? */
static int nd_locals_unique(const ndscan *s, unsigned mLocal) {
  for (int i = 0; i < s->nLoc; i++)
    for (int j = i + 1; j < s->nLoc && (mLocal >> i & 1); j++)
      if ((mLocal >> j & 1) && clang_equalCursors(s->aLoc[i].var, s->aLoc[j].var) == 0) {
        char *zA = ks_rw_spelling(s->aLoc[i].var), *zB = ks_rw_spelling(s->aLoc[j].var);
        int bSame = zA && zB && strcmp(zA, zB) == 0;
        free(zA);
        free(zB);
        if (bSame) return 0;
      }
  return 1;
}

static const char nd_locals_clash[] =
    "a condition names locals of the same name (one shadowing another), which the lanes' test cannot declare "
    "together";

static char *nd_digit_local(ndscan *s, int iLoc);

/* The declarations of the loops' locals in mLocal, in source order,
 * separated by zSep; with pDigits, the lanes' test's, x's digits from the
 * pack's (nd_digit_local). */
static void nd_put_locals(ks_buf *pB, const ndscan *s, unsigned mLocal, const char *zSep, ndscan *pDigits) {
  unsigned iAt = 0;
  for (int n = 0;; n++) {
    int iNext = -1;
    for (int i = 0; i < s->nLoc; i++)
      if ((mLocal >> i & 1) && s->aLoc[i].iAt >= iAt && (iNext < 0 || s->aLoc[i].iAt < s->aLoc[iNext].iAt)) iNext = i;
    if (iNext < 0) break;
    char *zD = pDigits ? nd_digit_local(pDigits, iNext) : NULL; /* the lanes' test: x's digits from the pack's */
    ks_buf_printf(pB, "%s%s", n ? zSep : "", zD ? zD : s->aLoc[iNext].zText);
    free(zD);
    iAt = s->aLoc[iNext].iAt + 1;
  }
}

/* The lanes' test of zCmp (`(operand) OP (bound)`, as written), which must
 * hold on every trip of the loops whose counters move it: with q the
 * polynomial of operand - bound (or of the operand alone, the bound uniform),
 * each counter c * L of q is bound at the extreme that gives q its least
 * (bLow: OP > or >=) or greatest value (q affine in them: the extremes
 * decide), the other counters the text and the copied locals (mLocal) name
 * at their start, in a block: `{ const int dx = -1; ks_all = ks_all &&
 * (...); }`. Without counters or locals it is a plain lane condition. NULL,
 * or a refusal reason. */
static const char *nd_add_trip_cond(ndscan *s, const ks_poly *q, int bLow, const char *zCmp, unsigned mLocal,
                                    unsigned long long mLoop) {
  const ks_shape *pS = s->pShape;
  ks_buf b = KS_BUF_INIT;
  const char *zWhy = NULL;
  unsigned long long mBound = 0;
  for (int pass = 0; pass < 2 && !zWhy; pass++) /* pass 0: q's counters at extremes; 1: the rest at their start */
    for (int i = 0; i < (pass ? pS->nLoop : q->n) && i < 64 && !zWhy; i++) {
      int iLoop = -1;
      long long c = 1;
      if (pass == 0) {
        const ks_mono *m = &q->t[i];
        int nL = 0;
        for (int j = 0; j < m->n; j++) nL += pS->aAtom[m->a[j]].eKind == KS_ATOM_LOOP;
        if (!nL) continue;
        if (m->n != 1) {
          zWhy = "a condition of a neighbour read moves with a loop counter times something other than a constant";
          break;
        }
        iLoop = pS->aAtom[m->a[0]].iRef, c = m->coef;
      } else if (mLoop >> i & 1)
        iLoop = i;
      if (iLoop < 0 || (iLoop < 64 && (mBound >> iLoop & 1))) continue;
      char *zType = NULL, *zName = NULL;
      long long i0, nTrip;
      zWhy = iLoop < pS->nLoop && iLoop < 64 ? nd_loop(s, iLoop, &zType, &zName, &i0, &nTrip)
                                              : "a condition's loop is unknown";
      if (!zWhy) {
        mBound |= 1ULL << iLoop;
        ks_buf_printf(&b, "const %s %s = %lld; ", zType, zName, pass == 0 && (c > 0) != bLow ? i0 + nTrip - 1 : i0);
      }
      free(zType);
      free(zName);
    }
  if (!zWhy && mLocal && !nd_locals_unique(s, mLocal)) zWhy = nd_locals_clash;
  if (!zWhy && mLocal) {
    nd_put_locals(&b, s, mLocal, " ", NULL);
    ks_buf_printf(&b, " ");
  }
  if (!zWhy) {
    int bBlock = mBound || mLocal;
    char *z = bBlock ? ks_mprintf("{ %sks_all = ks_all && %s; }", ks_buf_cstr(&b), zCmp) : ks_strdup(zCmp);
    zWhy = bBlock ? nd_add_text(s->azLaneStmt, &s->nLaneStmt, z) : nd_add_text(s->azLaneCond, &s->nLaneCond, z);
  }
  ks_buf_free(&b);
  return zWhy;
}

/* A refusal of a read's condition in a loop, with the reason (s->vs.zWhyBuf). */
static const char *nd_loop_cond_why(ndscan *s, const char *zWhat) {
  snprintf(s->vs.zWhyBuf, sizeof s->vs.zWhyBuf,
           "a buffer is read at a neighbouring index along x on some paths only, in a loop under a condition %s", zWhat);
  return s->vs.zWhyBuf;
}

/* Comparison c (`a OP b`, OP one of <, <=, >, >=), negated where bNeg, as
 * the lanes' test of a loop condition (nd_add_trip_cond): the model's guard
 * for it (`expr OP bound`), required at the counters' extremes; `!(c)` where
 * negated, whose least-value extreme is that of the opposite comparison.
 * NULL, or a reason. */
static const char *nd_add_loop_cmp(ndscan *s, CXCursor c, const CXCursor *aK, int bNeg) {
  s->bLocals = 1;
  s->mNeed = 0;
  s->mNeedLoop = 0;
  int bOk = nd_cond_ok(s, c);
  s->bLocals = 0;
  if (!bOk) return nd_loop_cond_why(s, "that reads memory, calls a function or names a local the body writes");
  if (!cursor_signed(aK[0]) || !cursor_signed(aK[1]))
    return nd_loop_cond_why(s, "that compares other than signed integers (unsigned arithmetic wraps)");
  unsigned cs, ce;
  const ks_shape_guard *pG = NULL;
  ks_ast_extent(s->pTu, c, &cs, &ce);
  for (int i = 0; i < s->pShape->nGuard + s->pShape->nSel && !pG; i++) {
    const ks_shape_guard *g = i < s->pShape->nGuard ? &s->pShape->aGuard[i] : &s->pShape->aSel[i - s->pShape->nGuard];
    if (g->iOffset == cs) pG = g;
  }
  if (!pG) return nd_loop_cond_why(s, "that compares two thread-variant values, or two the same for every thread");
  if (nd_gather(s->pShape, &pG->expr) || pG->expr.bWrap)
    return nd_loop_cond_why(s, "that compares a value not affine in the thread and loop indices");
  char *zT = ks_ast_text(s->pTu, c), *zC = zT ? ks_mprintf("%s(%s)", bNeg ? "!" : "", zT) : NULL;
  free(zT);
  if (!zC) return "out of memory";
  int bGt = pG->eOp == CXBinaryOperator_GT || pG->eOp == CXBinaryOperator_GE;
  const char *zWhy = nd_add_trip_cond(s, &pG->expr, bNeg ? !bGt : bGt, zC, s->mNeed, s->mNeedLoop);
  free(zC);
  return zWhy;
}

/* Condition c of a neighbour read in a loop (zero padding, `if (iy >= 0 &&
 * iy < h && ix >= 0 && ix < w)`), negated where bNeg (the else path, the
 * trips after `if (xx < 0 || xx >= w) continue;`), into the lanes' test:
 * comparisons joined by && (negated: by ||, De Morgan), each of signed
 * integers, one side uniform and the other affine in the thread and loop
 * indices (the model's guard: `expr OP bound`), each required on every trip
 * (nd_add_trip_cond), so that in the interior every trip reads and the
 * window holds only what is read. NULL, or a reason. */
static const char *nd_add_loop_cond(ndscan *s, CXCursor c, int bNeg, int nDepth) {
  CXCursor aK[2];
  c = ks_rw_strip(c);
  enum CXBinaryOperatorKind op =
      clang_getCursorKind(c) == CXCursor_BinaryOperator ? clang_getCursorBinaryOperatorKind(c) : CXBinaryOperator_Invalid;
  if (nDepth > 16 || ks_rw_kids(c, aK, 2) != 2) op = CXBinaryOperator_Invalid;
  if (op == (bNeg ? CXBinaryOperator_LOr : CXBinaryOperator_LAnd)) {
    const char *zWhy = nd_add_loop_cond(s, aK[0], bNeg, nDepth + 1);
    return zWhy ? zWhy : nd_add_loop_cond(s, aK[1], bNeg, nDepth + 1);
  }
  if (op < CXBinaryOperator_LT || op > CXBinaryOperator_GE)
    return nd_loop_cond_why(s, bNeg ? "that, negated (an else path, a continue before it), is not comparisons (<, <=, "
                                      ">, >=) joined by || (&&, !, ==, !=: its lanes' test would not be one per "
                                      "comparison)"
                                    : "that is not comparisons (<, <=, >, >=) joined by && (||, !, ==, !=: its lanes' "
                                      "test would not be one per comparison)");
  return nd_add_loop_cmp(s, c, aK, bNeg);
}

static int nd_refs_any(CXCursor c, const CXCursor *aD, const int *abOn, int nD);

/* A local `T v = x % X;` or `T v = x / X;` (x the x index, X the same for
 * every lane: parameters, the prelude's variables free of x), as the lanes'
 * test declares it: from the pack's quotient and remainder, computed once
 * (a division per lane costs more than the stencil: the flat-index 8-bit
 * Sobel spent most of its instructions there), valid where the pack wraps no
 * row (nd_put_lanes_test requires ks_r<k> + W <= X). Its text, or NULL. */
static char *nd_digit_local(ndscan *s, int iLoc) {
  CXCursor aI[2], aK[2], d = s->aLoc[iLoc].var;
  int nI = ks_rw_kids(d, aI, 2);
  CXCursor init = nI >= 1 && nI <= 2 ? ks_rw_strip(aI[nI - 1]) : clang_getNullCursor();
  if (clang_Cursor_isNull(init) || clang_getCursorKind(init) != CXCursor_BinaryOperator || ks_rw_kids(init, aK, 2) != 2)
    return NULL;
  enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(init);
  CXCursor lhs = ks_rw_ref_decl(aK[0]);
  if ((op != CXBinaryOperator_Rem && op != CXBinaryOperator_Div) || clang_Cursor_isNull(lhs) ||
      !clang_equalCursors(lhs, s->aPre[s->iX]) || !ks_rw_is_integer_type(clang_getCursorType(aK[1])) ||
      count_refs(aK[1], s->aPre[s->iX]) > 0 || nd_refs_any(aK[1], s->aPre, s->abXDep, s->nPre) ||
      nd_refs_any(aK[1], s->aPre, s->abXDerived, s->nPre))
    return NULL;
  int bSave = s->bLocals;
  s->bLocals = 0; /* parameters, the prelude, globals: no local of the body */
  int bOk = nd_cond_ok(s, aK[1]);
  s->bLocals = bSave;
  char *zX = bOk ? ks_ast_text(s->pTu, aK[1]) : NULL;
  if (!zX) return NULL;
  int k = 0;
  while (k < s->nDigit && strcmp(s->azDigit[k], zX) != 0) k++;
  if (k == s->nDigit && s->nDigit < 4) s->azDigit[s->nDigit++] = ks_strdup(zX);
  free(zX);
  if (k == s->nDigit) return NULL;
  CXType ty = clang_getCanonicalType(clang_getCursorType(d));
  CXString t = clang_getTypeSpelling(ty), tu = clang_getTypeSpelling(clang_getUnqualifiedType(ty)); /* a cast's */
  char *zName = ks_rw_spelling(d);
  char *z = zName ? (op == CXBinaryOperator_Rem ? ks_mprintf("%s %s = (%s)(ks_r%d + ks_l);", clang_getCString(t), zName,
                                                             clang_getCString(tu), k)
                                                : ks_mprintf("%s %s = (%s)ks_q%d;", clang_getCString(t), zName,
                                                             clang_getCString(tu), k))
                  : NULL;
  clang_disposeString(t);
  clang_disposeString(tu);
  free(zName);
  return z;
}

/* Condition c outside loops that names the body's locals, negated where
 * bNeg, into the lanes' test as written, after their declarations, in a
 * block run only where the guard and the conditions before held (as the
 * body computes them: `i % w` on no lane past the extent). NULL, or a reason. */
static const char *nd_add_local_cond(ndscan *s, CXCursor c, int bNeg) {
  unsigned mLocal = 0;
  if (!nd_cond_locals(s, c, &mLocal)) return "a condition of a neighbour read names a local the lanes cannot declare";
  if (!nd_locals_unique(s, mLocal)) return nd_locals_clash;
  ks_buf b = KS_BUF_INIT;
  char *zT = ks_ast_text(s->pTu, ks_rw_strip(c));
  ks_buf_printf(&b, "if (ks_all) { ");
  nd_put_locals(&b, s, mLocal, " ", s);
  ks_buf_printf(&b, " ks_all = ks_all && %s(%s); }", bNeg ? "!" : "", zT ? zT : "false");
  const char *zWhy = zT ? nd_add_text(s->azLaneStmt, &s->nLaneStmt, ks_strdup(ks_buf_cstr(&b))) : "out of memory";
  free(zT);
  ks_buf_free(&b);
  return zWhy;
}

/* A stencil read's conditions (v->aCond) into s->azLaneCond, as written,
 * once each, those in its loops at the counters' extremes (nd_add_loop_cond):
 * the vector path requires each of every lane. With every lane meeting them
 * every lane reads it, so its window loads only what the kernel reads. NULL,
 * or a refusal reason. */
static const char *nd_add_lane_conds(ndscan *s, const vacc *v) {
  const char *zWhy = NULL;
  for (int i = 0; i < v->nCond && !zWhy; i++) {
    if (v->abLoopCond[i] == 1) {
      zWhy = nd_add_loop_cond(s, v->aCond[i], v->abNeg[i], 0);
      continue;
    }
    if (v->abLoopCond[i] == 2) {
      zWhy = nd_add_local_cond(s, v->aCond[i], v->abNeg[i]);
      continue;
    }
    char *zT = ks_ast_text(s->pTu, ks_rw_strip(v->aCond[i])); /* its own parentheses go: ours wrap it */
    char *z = zT ? ks_mprintf("%s(%s)", v->abNeg[i] ? "!" : "", zT) : NULL;
    free(zT);
    zWhy = nd_add_text(s->azLaneCond, &s->nLaneCond, z);
  }
  return zWhy;
}

static const char *nd_op_text(int eOp) {
  return eOp == CXBinaryOperator_LT ? "<" : eOp == CXBinaryOperator_GT ? ">" : eOp == CXBinaryOperator_LE ? "<=" : ">=";
}

/* Clamp k (the kernel-shape model's ks_shape_clamp) as a lane condition:
 * `(operand) OP (bound)`, as written; where the operand moves with loop
 * counters (`x + dx`), on every trip (nd_add_trip_cond). In loops it may
 * name their locals (`int t = x + k;`), whose declarations come along. NULL,
 * or a refusal reason. */
static const char *nd_add_clamp_cond(ndscan *s, const ks_shape_clamp *k) {
  const char *zWhy = NULL;
  s->bLocals = 1; /* a local after the leading declarations, in loops or not */
  s->mNeed = 0;
  s->mNeedLoop = 0;
  if (!nd_cond_ok(s, k->operand) || !nd_cond_ok(s, k->bound))
    zWhy = "a clamp of an index compares a value the lanes' test cannot evaluate (a local of the body, a memory "
           "read or a call)";
  s->bLocals = 0;
  char *zO = zWhy ? NULL : ks_ast_text(s->pTu, k->operand), *zB = zWhy ? NULL : ks_ast_text(s->pTu, k->bound);
  char *zC = zO && zB ? ks_mprintf("(%s) %s (%s)", zO, nd_op_text(k->eOp), zB) : NULL;
  if (!zWhy && !zC) zWhy = "out of memory";
  if (!zWhy)
    zWhy = nd_add_trip_cond(s, &k->diff, k->eOp == CXBinaryOperator_GT || k->eOp == CXBinaryOperator_GE, zC, s->mNeed,
                            s->mNeedLoop);
  free(zO);
  free(zB);
  free(zC);
  return zWhy;
}

/* The conditions under which clamped index q (its mClamp) is its
 * unclamped value, into the lanes' test. NULL, or a refusal reason. */
static const char *nd_add_clamps(ndscan *s, const ks_poly *q) {
  const char *zWhy = NULL;
  for (int i = 0; i < s->pShape->nClamp && !zWhy; i++)
    if (q->mClamp >> i & 1) zWhy = nd_add_clamp_cond(s, &s->pShape->aClamp[i]);
  return zWhy;
}

/* Is st a declaration of integer locals, each one the kernel-shape model
 * found initialized by a clamp of an index (`int xl = max(x - 1, 0);`: pure,
 * min/max, selections and clamp helpers of affine values)? */
static int nd_clamp_decls(const ndscan *s, CXCursor st) {
  CXCursor aD[4];
  int nD = clang_getCursorKind(st) == CXCursor_DeclStmt ? ks_rw_kids(st, aD, 4) : 0, nYes = 0;
  for (int d = 0; d < nD && d < 4; d++)
    for (int i = 0; i < s->pShape->nClampVar; i++)
      if (clang_equalCursors(aD[d], s->pShape->aClampVar[i])) {
        nYes++;
        break;
      }
  return nD > 0 && nD <= 4 && nYes == nD;
}

/* The pointer and index of an access as one text ("r|i * w + x"): two
 * accesses at different texts make the buffer a stencil's. */
static char *nd_index_text(ks_tu *pTu, const char *zBase, CXCursor sub) {
  char *zSub = ks_rw_squash_cursor(pTu, sub);
  char *z = zSub ? ks_mprintf("%s|%s", zBase, zSub) : NULL;
  free(zSub);
  return z;
}

/* Does polynomial q name a thread index along x? */
static int nd_poly_has_x(const ks_shape *pS, const ks_poly *q) {
  for (int i = 0; i < q->n; i++)
    for (int j = 0; j < q->t[i].n; j++) {
      const ks_atom *a = &pS->aAtom[q->t[i].a[j]];
      if ((a->eKind == KS_ATOM_PAR || a->eKind == KS_ATOM_TID || a->eKind == KS_ATOM_BID) && a->iDim == 0) return 1;
    }
  return 0;
}

/* Is the use of a parameter with ancestors aAnc in the initializer of a
 * pointer the model derives from it that is no row pointer (s->aRp), never
 * written, at an offset the rule could take: one declared late? */
static int nd_in_late_pointer(const ndscan *s, const CXCursor *aAnc, int nAnc) {
  for (int k = 0; k < nAnc; k++)
    for (int i = 0; i < s->pShape->nPtr; i++) {
      const ks_shape_ptr *q = &s->pShape->aPtr[i];
      if (clang_equalCursors(aAnc[k], q->decl) && !q->bWritten && !q->off.bIndirect &&
          (!q->off.bIrregular || q->bClamped))
        return !nd_poly_has_x(s->pShape, q->bClamped ? &q->offU : &q->off);
    }
  return 0;
}

static int nd_scan(CXCursor c, const CXCursor *aAnc, int nAnc, void *pArg) {
  ndscan *s = pArg;
  if (clang_getCursorKind(c) != CXCursor_DeclRefExpr) return 0;
  CXCursor d = clang_getCursorReferenced(c);
  int iP = param_index(&s->vs, d), iPtr = -1;
  for (int r = 0; r < s->nRp && iP < 0 && iPtr < 0; r++)
    if (clang_equalCursors(d, s->aRp[r])) iPtr = r, iP = s->aiRpParam[r]; /* r[e]: an access to its parameter */
  if (iP < 0) return 0;
  for (int k = 0; k < nAnc && iPtr < 0; k++) /* P in a row pointer's initializer */
    for (int r = 0; r < s->nRp; r++)
      if (clang_equalCursors(aAnc[k], s->aRp[r])) return 0;
  const char *zBase = iPtr >= 0 ? s->azRp[iPtr] : s->aP[iP].zName;
  if (iP >= 64) {
    s->zWhy = "too many parameters";
    return -1;
  }
  int j = nAnc - 1;
  while (j >= 0 && clang_getCursorKind(aAnc[j]) == CXCursor_UnexposedExpr) j--;
  CXCursor aSub[2];
  int bBase = j >= 0 && clang_getCursorKind(aAnc[j]) == CXCursor_ArraySubscriptExpr && ks_rw_kids(aAnc[j], aSub, 2) == 2 &&
              clang_equalCursors(ks_rw_strip(aSub[0]), c);
  if (!bBase) {
    if (iPtr < 0 && is_null_test(c, aAnc, nAnc)) {
      s->vs.abNullTest[iP] = 1;
      return 0;
    }
    s->zWhy = iPtr >= 0                     ? "a row pointer of the prelude is used other than as r[index]"
              : nd_in_late_pointer(s, aAnc, nAnc) ? "a row pointer is declared after the body's leading declarations "
                                                    "(lane 0's addresses are computed before the body)"
                                                  : "a pointer parameter is used other than as P[index]";
    return -1;
  }
  unsigned as, ae;
  ks_ast_extent(s->pTu, aAnc[j], &as, &ae);
  const ks_shape_access *pA = nd_model_access(s->pShape, as);
  CXCursor w = clang_getNullCursor();
  int eUse = elem_use(aAnc, j, &w);
  int bLoop = 0;
  s->nCounter = 0;
  for (int k = 0; k < j; k++) {
    enum CXCursorKind eK = clang_getCursorKind(aAnc[k]);
    bLoop |= nd_is_loop(eK);
    CXCursor v;
    if (s->nCounter < 4 && nd_for_counter(aAnc[k], &v)) s->aCounter[s->nCounter++] = v;
  }
  if (bLoop && eUse != KS_RW_READ) {
    s->zWhy = "a pointer is written in a loop of the element body";
    return -1;
  }
  /* an index clamped to the edge is, where the lanes' test finds every clamp
   * the identity, its unclamped value (the model's; its border threads take the
   * per-lane fallback) */
  const ks_poly *pIdx = pA && pA->bClamped ? &pA->unclamped : pA ? &pA->index : NULL;
  s->mNeed = 0;
  s->mNeedLoop = 0;
  int bUnit = pA && nd_unit_in_x(s->pShape, pIdx, bLoop) && nd_index_ok(s, aSub[1], s->iBodyStart);
  unsigned mLocal = bUnit ? s->mNeed : 0; /* the loops' locals its index names */
  if (bUnit && pA->bClamped && eUse != KS_RW_READ) {
    s->zWhy = "an element is written at an index clamped to the edge (the border threads would write one element "
              "several times)";
    return -1;
  }
  if (bUnit && pA->bClamped && (s->zWhy = nd_add_clamps(s, pIdx))) return -1;
  if (!bUnit && pA && pA->zClampWhy) {
    snprintf(s->vs.zWhyBuf, sizeof s->vs.zWhyBuf, "an index clamped to the edge is not one the lanes can unclamp: %s",
             pA->zClampWhy);
    s->zWhy = s->vs.zWhyBuf;
    return -1;
  }
  s->nCounter = 0;
  if (bLoop && bUnit) s->abStencil[iP] = 1; /* read from a window: its index names the loop's counter */
  char *zIdx = bUnit ? nd_index_text(s->pTu, zBase, aSub[1]) : NULL;
  if (bUnit && s->azIdx[iP] && (!zIdx || strcmp(zIdx, s->azIdx[iP]) != 0))
    s->abStencil[iP] = 1; /* x[i + 1] - x[i]: neighbours, read from a window (nd_windows) */
  if ((bUnit && s->vs.abOther[iP]) || (!bUnit && s->azIdx[iP])) {
    free(zIdx);
    s->zWhy = "a pointer is accessed at an index along x and at one that is not x plus a term the same for every x";
    return -1;
  }
  if (!bUnit) {
    free(zIdx);
    if (!pA || nd_gather(s->pShape, pIdx)) {
      s->zWhy = "a pointer is read at an index that divides or takes a remainder of a thread index, or is not affine "
                "(a gather, upsample or layout change, not a map)";
      return -1;
    }
    if (eUse != KS_RW_READ) {
      s->zWhy = "an element is written at an index that is not x plus a term the same for every x";
      return -1;
    }
    s->vs.abOther[iP] = 1;
    if (ae > s->iLastOtherRead) s->iLastOtherRead = ae;
    return 1;
  }
  if (!s->azIdx[iP]) {
    s->azIdx[iP] = zIdx;
    s->azIdxBase[iP] = zBase;
    s->amIdxLocal[iP] = mLocal;
    ks_ast_extent(s->pTu, aSub[1], &s->aiIdx[iP][0], &s->aiIdx[iP][1]);
  } else
    free(zIdx);
  if (s->n == s->nAlloc) {
    int nNew = s->nAlloc ? s->nAlloc * 2 : 16;
    vacc *a = realloc(s->a, sizeof(vacc) * (size_t)nNew);
    if (!a) {
      s->zWhy = "out of memory";
      return -1;
    }
    s->a = a;
    s->nAlloc = nNew;
  }
  vacc *v = &s->a[s->n++];
  memset(v, 0, sizeof *v);
  v->iParam = iP;
  v->iStart = as;
  v->iEnd = ae;
  CXCursor ld;
  if (cache_load(aAnc, j, &ld)) ks_ast_extent(s->pTu, ld, &v->iStart, &v->iEnd); /* the call is the read */
  v->eUse = eUse;
  v->pIdx = pIdx;
  v->iLoop = pA->iLoop;
  v->iWin = -1;
  v->zBase = zBase;
  v->mLocal = mLocal;
  v->bCond = nd_conditional(aAnc, j);
  v->bCondLanes = v->bCond && nd_lane_conds(s, aAnc, j, v) == 0;
  ks_ast_extent(s->pTu, aSub[1], &v->iSubStart, &v->iSubEnd);
  if (v->iSubStart <= v->iStart || v->iSubEnd >= v->iEnd) {
    /* `#define IN(dx, dy) in[...]`: the whole access is one macro use, so the
       subscript has no text of its own to copy into lane 0's addresses */
    s->zWhy = "an element access is a macro use as a whole (its subscript has no text of its own); expand the macro";
    return -1;
  }
  if (eUse != KS_RW_READ) {
    if (clang_Cursor_isNull(w) || (clang_getCursorKind(w) != CXCursor_BinaryOperator &&
                                   clang_getCursorKind(w) != CXCursor_CompoundAssignOperator &&
                                   clang_getCursorKind(w) != CXCursor_CallExpr)) {
      s->zWhy = "an element is written other than by assignment (++, &, reference)";
      return -1;
    }
    unsigned ws, we;
    ks_ast_extent(s->pTu, w, &ws, &we);
    v->iStoreEnd = we;
    if (we < s->iFirstStore) s->iFirstStore = we;
    /* unconditional: the assignment is a statement of the body itself */
    int jw = -1;
    for (int k = 0; k < nAnc; k++)
      if (clang_equalCursors(aAnc[k], w)) jw = k;
    if (jw < 0) jw = j;
    while (jw > 0 && clang_getCursorKind(aAnc[jw - 1]) == CXCursor_UnexposedExpr) jw--;
    v->bTop = jw == 0 ? clang_Cursor_isNull(s->vs.container) || s->vs.bRootsAreStmts
                      : clang_equalCursors(aAnc[jw - 1], s->vs.container);
  }
  return 1;
}

/* Is mono m one loop counter alone (c * L, a term along x)? Its loop atom, or -1. */
static int nd_col_mono(const ks_shape *pS, const ks_mono *m) {
  return m->n == 1 && pS->aAtom[m->a[0]].eKind == KS_ATOM_LOOP ? m->a[0] : -1;
}

/* Do polynomials a and b differ only in their constant term and their terms
 * along x of loop counters (the same family of rows)? */
static int nd_same_key(const ks_shape *pS, const ks_poly *a, const ks_poly *b) {
  int nA = 0, nB = 0;
  for (int i = 0; i < b->n; i++) nB += b->t[i].n > 0 && nd_col_mono(pS, &b->t[i]) < 0;
  for (int i = 0; i < a->n; i++) {
    const ks_mono *m = &a->t[i];
    if (m->n == 0 || nd_col_mono(pS, m) >= 0) continue;
    nA++;
    int bFound = 0;
    for (int j = 0; j < b->n && !bFound; j++)
      bFound = b->t[j].n == m->n && b->t[j].coef == m->coef && memcmp(b->t[j].a, m->a, sizeof(int) * (size_t)m->n) == 0;
    if (!bFound) return 0;
  }
  return nA == nB;
}

/* Is c a statement `if (C) continue;` of a for loop's body block (aAnc:
 * its ancestors)? Every statement after it in that block, and so every read
 * there, runs where C is false, which nd_lane_conds requires; one nested
 * deeper (`if (A) { if (C) continue; }`, a bare block) would skip reads it
 * does not see. */
static int nd_body_continue(CXCursor c, const CXCursor *aAnc, int nAnc) {
  return nAnc >= 2 && clang_getCursorKind(aAnc[nAnc - 1]) == CXCursor_CompoundStmt &&
         nd_for_body(aAnc[nAnc - 2], aAnc[nAnc - 1]) && nd_continue_if(c, NULL);
}

static int nd_jump_visit(CXCursor c, const CXCursor *aAnc, int nAnc, void *pArg) {
  enum CXCursorKind e = clang_getCursorKind(c);
  /* it skips the rest of a trip (its reads' condition), and every trip still runs */
  if (nd_body_continue(c, aAnc, nAnc)) return 1;
  if (e == CXCursor_BreakStmt || e == CXCursor_ContinueStmt || e == CXCursor_ReturnStmt || e == CXCursor_GotoStmt) {
    *(int *)pArg = 1;
    return -1;
  }
  return 0;
}

/* The counter of loop iLoop declared in its for (`for (int L = ...`), its
 * type and name (malloc'd), and its constant start and trip count; a refusal
 * reason otherwise. */
static const char *nd_loop(const ndscan *s, int iLoop, char **pzType, char **pzName, long long *pInit, long long *pTrip) {
  const ks_shape_loop *L = &s->pShape->aLoop[iLoop];
  CXCursor aV[1];
  int bJump = 0;
  if (L->nStep != 1 || L->nTrip < 1 || L->nTrip > 32 || !L->zVar || L->bGridStride || L->init.bIrregular ||
      L->init.n > 1 || (L->init.n == 1 && L->init.t[0].n != 0))
    return "a loop around a neighbour read does not count up by one from a constant, 1 to 32 times";
  if (!nd_for_counter(L->cursor, aV)) return "a loop around a neighbour read does not declare its counter";
  ks_rw_walk(L->cursor, nd_jump_visit, &bJump);
  if (bJump) return "a loop around a neighbour read has a break, return, goto or a continue other than a statement if (C) continue; of a for loop's body";
  /* A counter the body also writes is not affine in the model (a DERIVED atom):
   * an index naming it is refused as a gather; one not naming it still runs at
   * least once (the first trip's condition holds, nothing jumps out). */
  *pInit = L->init.n ? L->init.t[0].coef : 0;
  *pTrip = L->nTrip;
  if (pzName) *pzName = ks_rw_spelling(aV[0]);
  if (pzType) {
    CXString t = clang_getTypeSpelling(clang_getCursorType(aV[0]));
    *pzType = ks_strdup(clang_getCString(t));
    clang_disposeString(t);
  }
  return NULL;
}

/* Access a's terms (ndterms) for W lanes, or a refusal reason. */
static const char *nd_access_terms(const ndscan *s, const vacc *a, int W, ndterms *t) {
  const ks_shape *pS = s->pShape;
  memset(t, 0, sizeof *t);
  for (int i = 0; i < a->pIdx->n; i++) {
    const ks_mono *m = &a->pIdx->t[i];
    int nL = 0, iAtom = -1;
    for (int j = 0; j < m->n; j++)
      if (pS->aAtom[m->a[j]].eKind == KS_ATOM_LOOP) nL++, iAtom = m->a[j];
    if (m->n == 0) t->k += m->coef;
    if (nL == 0) continue;
    if (nL > 1) return "a neighbour's index multiplies two loop counters";
    int iLoop = pS->aAtom[iAtom].iRef, bCol = m->n == 1, bSeen = 0;
    for (int c = 0; c < t->nCol; c++) bSeen |= t->aCol[c] == iLoop ? 1 : 0;
    for (int r = 0; r < t->nRow; r++) bSeen |= t->aRow[r] == iLoop ? 2 : 0;
    if (bSeen) return "a loop counter picks both the row and the column of a neighbour";
    if (iLoop < 0 || iLoop >= pS->nLoop) return "a neighbour's loop is unknown";
    if (bCol && (t->nCol == 2 || m->coef < -W || m->coef > W || m->coef == 0))
      return "a neighbour's column moves with a loop counter by more than the lanes' vector";
    if (!bCol && t->nRow == 2) return "a neighbour's row moves with more than two loop counters";
    if (bCol) t->aColC[t->nCol] = m->coef, t->aCol[t->nCol++] = iLoop;
    else t->aRow[t->nRow++] = iLoop;
  }
  if (t->nRow == 2 && t->aRow[0] > t->aRow[1]) {
    int r = t->aRow[0];
    t->aRow[0] = t->aRow[1];
    t->aRow[1] = r;
  }
  t->lo = t->hi = t->k;
  for (int c = 0; c < t->nCol + t->nRow; c++) {
    long long i0, n;
    const char *zWhy = nd_loop(s, c < t->nCol ? t->aCol[c] : t->aRow[c - t->nCol], NULL, NULL, &i0, &n);
    if (zWhy) return zWhy;
    if (c >= t->nCol) continue;
    long long v0 = t->aColC[c] * i0, v1 = t->aColC[c] * (i0 + n - 1);
    t->lo += v0 < v1 ? v0 : v1;
    t->hi += v0 < v1 ? v1 : v0;
  }
  return NULL;
}

static int cmp_lo(const void *a, const void *b) {
  const long long *x = a, *y = b;
  return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* Window pW's rows: those of its representative a's row loops (every access
 * of a family has the same). */
static void nd_win_rows(const ndscan *s, ndwin *pW, const vacc *a) {
  pW->nRow = a->t.nRow;
  pW->nRows = 1;
  for (int r = 0; r < pW->nRow; r++) {
    pW->aRow[r] = a->t.aRow[r];
    nd_loop(s, pW->aRow[r], NULL, NULL, &pW->aRowInit[r], &pW->aRowTrip[r]);
    pW->nRows *= pW->aRowTrip[r];
  }
}

/* Are polynomials a and b the same (the same terms, in any order)? */
static int nd_poly_same(const ks_poly *a, const ks_poly *b) {
  if (a->n != b->n) return 0;
  for (int i = 0; i < a->n; i++) {
    int bFound = 0;
    for (int j = 0; j < b->n && !bFound; j++)
      bFound = a->t[i].coef == b->t[j].coef && a->t[i].n == b->t[j].n &&
               memcmp(a->t[i].a, b->t[j].a, sizeof(int) * (size_t)a->t[i].n) == 0;
    if (!bFound) return 0;
  }
  return 1;
}

/* `if (C) out[i] = <stencil>; else out[i] = in[i];`: the neighbour reads of
 * one branch and a read of the other each ask the lanes' test for their
 * side of C, which no lane could pass. Per condition (outside loops), the
 * side with more reads is the one the test requires; a read on the other
 * side is dead on the vector path (bDead: it asks nothing), provided some
 * live read of its buffer reads its very index, so its window element is
 * one the live reads load anyway. NULL, or a refusal reason. */
static const char *nd_dead_reads(ndscan *s) {
  struct { unsigned cs, ce; int an[2]; } aT[16];
  int nT = 0;
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < s->n; i++) {
      vacc *a = &s->a[i];
      if (a->iParam >= 64 || !s->abStencil[a->iParam] || !a->bCond || !a->bCondLanes || a->iLoop >= 0) continue;
      for (int c = 0; c < a->nCond; c++) {
        unsigned cs, ce;
        int t = 0;
        if (a->abLoopCond[c] == 1 || ks_ast_extent(s->pTu, a->aCond[c], &cs, &ce) < 0) continue;
        while (t < nT && !(aT[t].cs == cs && aT[t].ce == ce)) t++;
        if (pass == 0 && t == nT && nT < 16) aT[nT].cs = cs, aT[nT].ce = ce, aT[nT].an[0] = aT[nT].an[1] = 0, nT++;
        if (t == nT) continue;
        int n = a->abNeg[c] != 0;
        if (pass == 0) aT[t].an[n]++;
        else if (aT[t].an[!n] && (aT[t].an[!n] > aT[t].an[n] || (aT[t].an[!n] == aT[t].an[n] && n)))
          a->bDead = 1; /* the minority side (a tie: the else's) */
      }
    }
  for (int i = 0; i < s->n; i++) {
    vacc *a = &s->a[i];
    if (!a->bDead) continue;
    int bCovered = 0;
    for (int j = 0; j < s->n && !bCovered; j++)
      bCovered = j != i && !s->a[j].bDead && s->a[j].iParam == a->iParam && s->a[j].pIdx && a->pIdx &&
                 nd_poly_same(s->a[j].pIdx, a->pIdx);
    if (!bCovered)
      return "a buffer is read at neighbouring indices along x on both sides of one condition, at an index one side "
             "alone reads (no lane could take the vector path)";
  }
  return NULL;
}

/* The windows of the buffers read at several indices along x (s->abStencil),
 * for W lanes: each buffer's accesses grouped by their x-free terms (a
 * family), each family's constants (with the ranges of the loops along x)
 * cut where two are more than W apart. A refusal reason, or NULL. Every
 * element of a window is read by some lane as written, so the window's loads
 * stay inside what the kernel reads, provided each access runs whenever its
 * lane passes the guard (in a loop: on every trip) and nothing stores before it. */
static const char *nd_windows(ndscan *s, int W) {
  unsigned iFirstStore = (unsigned)-1;
  const char *zWhy;
  for (int i = 0; i < s->n; i++)
    if (s->a[i].eUse != KS_RW_READ && s->a[i].iStoreEnd < iFirstStore) iFirstStore = s->a[i].iStoreEnd;
  for (int i = 0; i < s->n; i++) {
    vacc *a = &s->a[i];
    if (a->iParam >= 64 || !s->abStencil[a->iParam]) continue;
    if (a->eUse != KS_RW_READ) return "a buffer is written and read at neighbouring indices along x (in place)";
    if (s->vs.abNullTest[a->iParam]) return "a buffer read at neighbouring indices along x is tested against null";
    if (a->bCond && !a->bCondLanes)
      return "a buffer is read at a neighbouring index along x on some paths only, under a condition the lanes' test "
             "cannot require (a switch, a while loop, a loop's header; outside loops, reading memory or a local the "
             "lanes cannot declare again): its window would load elements the kernel may not read";
    if (a->bCond && !a->bDead && (zWhy = nd_add_lane_conds(s, a))) return zWhy;
    if (a->iStart > iFirstStore && !a->bDead) /* a dead read does not run on the vector path */
      return "a buffer is read at neighbouring indices along x after a store (the window is loaded before the body)";
    if ((zWhy = nd_access_terms(s, a, W, &a->t))) return zWhy;
    /* every loop around it runs a constant number of times, at least once, even
     * one its index does not name: else the read may not happen at all */
    for (int iL = a->iLoop, n = 0; iL >= 0 && iL < s->pShape->nLoop && !s->pShape->aLoop[iL].bGridStride && n < 64;
         iL = s->pShape->aLoop[iL].iParent, n++) {
      long long i0, nTrip;
      if ((zWhy = nd_loop(s, iL, NULL, NULL, &i0, &nTrip))) return zWhy;
    }
  }
  for (int i = 0; i < s->n; i++) {
    vacc *a = &s->a[i];
    if (a->iParam >= 64 || !s->abStencil[a->iParam] || a->iWin >= 0) continue;
    long long ac[64][2];
    int nc = 0;
    for (int j = i; j < s->n; j++)
      if (s->a[j].iParam == a->iParam && s->a[j].iWin < 0 && nd_same_key(s->pShape, a->pIdx, s->a[j].pIdx)) {
        if (nc == 64) return "a buffer is read at too many indices along x";
        ac[nc][0] = s->a[j].t.lo;
        ac[nc++][1] = s->a[j].t.hi;
      }
    qsort(ac, (size_t)nc, sizeof ac[0], cmp_lo);
    for (int lo = 0; lo < nc;) {
      int hi = lo;
      long long cHi = ac[lo][1];
      while (hi + 1 < nc && ac[hi + 1][0] - cHi <= W) {
        hi++;
        if (ac[hi][1] > cHi) cHi = ac[hi][1];
      }
      if (s->nWin == 16) return "the neighbourhood needs more than 16 windows";
      if (cHi - ac[lo][0] > 8 * W) return "a buffer's neighbours along x span more than 8 vectors";
      ndwin *pW = &s->aWin[s->nWin];
      memset(pW, 0, sizeof *pW);
      pW->iParam = a->iParam;
      pW->cMin = ac[lo][0];
      pW->cMax = cHi;
      long long q = pW->cMin / W;
      if (q * W < pW->cMin) q++;
      pW->cAnchor = q * W;
      pW->nChunk = pW->cAnchor <= pW->cMax ? (int)((pW->cMax - pW->cAnchor) / W + 1) : 0;
      if (!pW->nChunk) pW->cAnchor = pW->cMin;
      pW->iRep = -1;
      for (int j = i; j < s->n; j++) {
        vacc *b = &s->a[j];
        if (b->iParam != a->iParam || b->iWin >= 0 || b->t.lo < pW->cMin || b->t.hi > pW->cMax ||
            !nd_same_key(s->pShape, a->pIdx, b->pIdx))
          continue;
        b->iWin = s->nWin;
        if (pW->iRep < 0) pW->iRep = j;
        pW->bArr |= b->t.nCol > 0 || b->t.nRow > 0 || b->mLocal; /* its base block copies the locals */
      }
      nd_win_rows(s, pW, &s->a[pW->iRep]);
      if (pW->bArr && pW->nRows * (pW->cMax - pW->cMin + W) > 256)
        return "a neighbourhood read in loops needs more than 256 registers a thread";
      s->nWin++;
      lo = hi + 1;
    }
  }
  return NULL;
}

/* The n-dimensional form's pieces, main-file offsets. */
typedef struct ndform {
  unsigned iXStart, iXEnd;     /* the x index's declaration statement */
  char *zXInit, *zX, *zXType;  /* its initializer as written, name, type (no const) */
  unsigned iIfStart, iRegionEnd;
  unsigned iBodyStart, iBodyEnd;
  char *zGuard;                /* G as written */
  int bEarlyReturn;
  /* The body as the fallback runs it: [iFallStart, iFallEnd), with the
   * `return` at each aiRet (an exit's: nd_exit) written `continue`, which
   * goes on to the next lane. The vector path's body [iBodyStart, iBodyEnd)
   * follows the exits (or is the else of one). */
  unsigned iFallStart, iFallEnd;
  unsigned aiRet[8];
  int nRet;
  unsigned aiSkip[10][2];      /* the exits' statements the vector path's lanes leave out */
  int nSkip;
  CXCursor aExitCond[9];       /* the exits' conditions: the first nExitCond of the lanes' conditions */
  int nExitCond;
  CXCursor aExitLocal[9];      /* ... those naming the body's locals (`int x = i % w;` before the exit): */
  int nExitLocal;              /*     tested with their declarations again (nd_add_local_cond), once every
                                      write of the body is known */
  CXCursor guard;
  /* The y index `T y = blockIdx.y * blockDim.y + threadIdx.y;` declared alone
   * (else iYEnd 0): rows along y (nd_rows) replace it as x's is. */
  unsigned iYStart, iYEnd;
  char *zYInit, *zY, *zYType;
  CXCursor yDecl;
  /* A grid-stride loop `for (T i = <x index>; i < N; i += blockDim.x *
   * gridDim.x) { BODY }` as the kernel's last statement (nd_gs_match): i is
   * the x index, `i < N` the guard, BODY the element body, whose exits end
   * in `continue`; [iXStart, iXEnd) is the loop's header through its brace. */
  int bGs;
  char *zGsBound, *zGsStep; /* N and the step as written */
} ndform;

static void nd_form_free(ndform *f) {
  free(f->zXInit);
  free(f->zX);
  free(f->zXType);
  free(f->zGuard);
  free(f->zYInit);
  free(f->zY);
  free(f->zYType);
  free(f->zGsBound);
  free(f->zGsStep);
}

/* `return;` or `{ return; }`. */
static int nd_bare_return(CXCursor c) {
  CXCursor a[2];
  if (clang_getCursorKind(c) == CXCursor_CompoundStmt) return ks_rw_kids(c, a, 2) == 1 && nd_bare_return(a[0]);
  return clang_getCursorKind(c) == CXCursor_ReturnStmt && ks_rw_kids(c, a, 1) == 0;
}

static char *nd_text(ks_tu *pTu, unsigned iStart, unsigned iEnd) {
  char *z = malloc(iEnd - iStart + 1);
  if (z) {
    memcpy(z, pTu->zSrc + iStart, iEnd - iStart);
    z[iEnd - iStart] = 0;
  }
  return z;
}

static unsigned nd_stmt_end(ks_tu *pTu, CXCursor c) {
  unsigned a, b;
  if (ks_ast_extent(pTu, c, &a, &b) < 0) return 0;
  return ks_rw_after_stmt(pTu, b);
}

static int nd_mentions_x(ks_tu *pTu, CXCursor c) {
  char *z = ks_rw_squash_cursor(pTu, c);
  int b = !z || strstr(z, "threadIdx.x") || strstr(z, "blockIdx.x");
  free(z);
  return b;
}

static int nd_refs_any(CXCursor c, const CXCursor *aD, const int *abOn, int nD) {
  for (int i = 0; i < nD; i++)
    if ((!abOn || abOn[i]) && count_refs(c, aD[i]) > 0) return 1;
  return 0;
}

/* Does c (itself or below) read one of the x built-ins in mask (bit k: kind
 * k of ks_shape_builtin, KS_ATOM_TID .. KS_ATOM_GDIM)? */
typedef struct nd_xb_walk {
  unsigned mask;
  int bFound;
} nd_xb_walk;

static int nd_xb_visit(CXCursor c, const CXCursor *aAnc, int nAnc, void *pArg) {
  (void)aAnc;
  (void)nAnc;
  nd_xb_walk *w = pArg;
  int d = -1, e = ks_shape_builtin(c, &d);
  if (e >= 0 && d == 0 && (w->mask >> e) & 1u) {
    w->bFound = 1;
    return -1;
  }
  return 0;
}

static int nd_reads_x(CXCursor c, unsigned mask) {
  nd_xb_walk w = {mask, 0};
  nd_xb_visit(c, NULL, 0, &w);
  if (!w.bFound) ks_rw_walk(c, nd_xb_visit, &w);
  return w.bFound;
}

/* The x index's declaration, pF->iX*, and the prelude's variables. */
static void nd_set_x(ks_tu *pTu, CXCursor st, CXCursor d, CXCursor init, ndform *pF, ndscan *s) {
  unsigned is, ie;
  s->iX = s->nPre;
  ks_ast_extent(pTu, init, &is, &ie);
  ks_ast_extent(pTu, st, &pF->iXStart, &pF->iXEnd);
  pF->iXEnd = nd_stmt_end(pTu, st);
  pF->zXInit = nd_text(pTu, is, ie);
  pF->zX = ks_rw_spelling(d);
  CXString t = clang_getTypeSpelling(clang_getCursorType(d));
  pF->zXType = ks_strdup(clang_getCString(t));
  clang_disposeString(t);
  if (pF->zXType && strncmp(pF->zXType, "const ", 6) == 0)
    memmove(pF->zXType, pF->zXType + 6, strlen(pF->zXType + 6) + 1);
}

/* The y index's declaration (rows along y, nd_rows). */
static void nd_set_y(ks_tu *pTu, CXCursor st, CXCursor d, CXCursor init, ndform *pF) {
  unsigned is, ie;
  ks_ast_extent(pTu, init, &is, &ie);
  ks_ast_extent(pTu, st, &pF->iYStart, &pF->iYEnd);
  pF->iYEnd = nd_stmt_end(pTu, st);
  pF->zYInit = nd_text(pTu, is, ie);
  pF->zY = ks_rw_spelling(d);
  pF->yDecl = d;
  CXString t = clang_getTypeSpelling(clang_getCursorType(d));
  pF->zYType = ks_strdup(clang_getCString(t));
  clang_disposeString(t);
  if (pF->zYType && strncmp(pF->zYType, "const ", 6) == 0)
    memmove(pF->zYType, pF->zYType + 6, strlen(pF->zYType + 6) + 1);
}

/* Does value v (a prelude variable's initializer or assigned value) depend
 * on the x index? *pzWhy: when it reads x itself (it would differ per lane). */
static int nd_x_dep(ks_tu *pTu, CXCursor v, const ndscan *s, const char **pzWhy) {
  if ((s->iX >= 0 && count_refs(v, s->aPre[s->iX]) > 0) || nd_refs_any(v, s->aPre, s->abXDerived, s->nPre)) {
    *pzWhy = "a value after the x index is computed from it (it would differ per element)";
    return 1;
  }
  return nd_mentions_x(pTu, v) || nd_refs_any(v, s->aPre, s->abXDep, s->nPre);
}

/* Is declaration statement st, after the x index, one whose every variable
 * is an integer computed from x or x-derived ones, parameters and literals
 * (`int idx = y * w + x;`)? Then it moves into every lane. -1: it reads x
 * but something else too (a thread built-in of x, another temporary of it). */
static int nd_x_derived(ks_tu *pTu, CXCursor st, const ndscan *s) {
  CXCursor *aD = NULL;
  int nD = 0, nYes = 0, bOther = 0;
  if (s->iX < 0 || clang_getCursorKind(st) != CXCursor_DeclStmt) return 0;
  ks_rw_children(st, &aD, &nD);
  for (int d = 0; d < nD; d++) {
    CXCursor aI[4];
    int nI = clang_getCursorKind(aD[d]) == CXCursor_VarDecl ? ks_rw_kids(aD[d], aI, 4) : 0;
    CXCursor init = nI >= 1 && nI <= 4 ? aI[nI - 1] : clang_getNullCursor();
    if (clang_Cursor_isNull(init) || !clang_isExpression(clang_getCursorKind(init)) ||
        !(count_refs(init, s->aPre[s->iX]) > 0 || nd_refs_any(init, s->aPre, s->abXDerived, s->nPre)))
      continue;
    nYes++;
    bOther |= !ks_rw_is_integer_type(clang_getCursorType(aD[d])) || !(ks_rw_pure_expr(init) || nd_clamp_decls(s, st)) ||
              nd_mentions_x(pTu, init) || nd_refs_any(init, s->aPre, s->abXDep, s->nPre);
  }
  free(aD);
  return nYes == 0 ? 0 : nYes == nD && !bOther ? 1 : -1;
}

/* Is a row pointer's initializer free of effects: pure, or `&P[e]` with P
 * and e pure (the subscript only names the element: nothing is read)? */
static int nd_ptr_init_pure(CXCursor init) {
  CXCursor c = ks_rw_strip(init), aK[2];
  if (clang_getCursorKind(c) != CXCursor_UnaryOperator || clang_getCursorUnaryOperatorKind(c) != CXUnaryOperator_AddrOf)
    return ks_rw_pure_expr(init);
  if (ks_rw_kids(c, aK, 1) != 1) return 0;
  c = ks_rw_strip(aK[0]);
  return clang_getCursorKind(c) == CXCursor_ArraySubscriptExpr && ks_rw_kids(c, aK, 2) == 2 && ks_rw_pure_expr(aK[0]) &&
         ks_rw_pure_expr(aK[1]);
}

/* Why pointer q into a parameter is no row pointer, where that is the
 * reason to refuse (s->vs.zWhyBuf): written after its declaration, or at an
 * offset that reads memory or that clamps the lanes cannot unclamp. NULL
 * otherwise (an offset in other units, not affine: the generic refusal). */
static const char *nd_row_pointer_why(ndscan *s, const ks_shape_ptr *q) {
  const char *zWhat = q->bWritten ? "is written after its declaration (re-seated, or its address taken)"
                      : q->off.bIndirect ? "has an offset that reads memory"
                                         : NULL;
  if (zWhat) snprintf(s->vs.zWhyBuf, sizeof s->vs.zWhyBuf, "a row pointer into a parameter %s", zWhat);
  else if (q->zClampWhy && q->off.bIrregular && !q->bClamped)
    snprintf(s->vs.zWhyBuf, sizeof s->vs.zWhyBuf,
             "a row pointer's offset clamped to the edge is not one the lanes can unclamp: %s", q->zClampWhy);
  else
    return NULL;
  return s->vs.zWhyBuf;
}

/* Is d (initializer init) a row pointer: `T *r = P + off;` (or `&P[off]`), a pointer the
 * kernel-shape model derives from parameter P at an offset free of x, never
 * re-seated? The offset may be clamped to the edge (`in + max(y - 1, 0) *
 * w`: the model's unclamped offset, its clamps required by the lanes' test
 * where it is read). Its parameter's index, or -1 (*pzWhy when it is derived
 * from x, or its clamp is not one the lanes can unclamp). */
static int nd_row_pointer(ks_tu *pTu, CXCursor d, CXCursor init, ndscan *s, const char **pzWhy) {
  if (clang_Cursor_isNull(init)) return -1;
  for (int i = 0; i < s->pShape->nPtr; i++) {
    const ks_shape_ptr *q = &s->pShape->aPtr[i];
    if (!clang_equalCursors(q->decl, d)) continue;
    if ((*pzWhy = nd_row_pointer_why(s, q))) return -1;
    if ((q->off.bIrregular && !q->bClamped) || q->iParam < 0 ||
        q->iParam >= s->nP || !s->aP[q->iParam].bPointer || (!nd_ptr_init_pure(init) && !q->bClamped))
      return -1;
    if (nd_x_dep(pTu, init, s, pzWhy)) {
      if (!*pzWhy) *pzWhy = "a row pointer is computed from a thread index along x";
      return -1;
    }
    /* the model numbers the pointer parameters among all parameters */
    return q->iParam;
  }
  return -1;
}

/* nd_row_pointer, and a row pointer found goes into s->aRp. */
static int nd_add_row_pointer(ks_tu *pTu, CXCursor d, CXCursor init, ndscan *s, const char **pzWhy) {
  int iP = s->nRp < 16 ? nd_row_pointer(pTu, d, init, s, pzWhy) : -1;
  if (iP >= 0) {
    s->aRp[s->nRp] = d;
    s->aiRpParam[s->nRp] = iP;
    s->azRp[s->nRp++] = ks_rw_spelling(d);
  }
  return iP;
}

/* Does statement st declare row pointers only (nd_row_pointer)? Then they
 * go into s->aRp. */
static int nd_lead_row_pointers(ks_tu *pTu, CXCursor st, ndscan *s) {
  CXCursor aD[4], aI[4];
  const char *zWhy = NULL;
  int nD = clang_getCursorKind(st) == CXCursor_DeclStmt ? ks_rw_kids(st, aD, 4) : 0, nOld = s->nRp;
  for (int d = 0; d < nD && d < 4; d++) {
    int nI = clang_getCursorKind(aD[d]) == CXCursor_VarDecl ? ks_rw_kids(aD[d], aI, 4) : 0;
    CXCursor init = nI >= 1 && nI <= 4 ? aI[nI - 1] : clang_getNullCursor();
    if (nD > 4 || clang_getCanonicalType(clang_getCursorType(aD[d])).kind != CXType_Pointer ||
        nd_add_row_pointer(pTu, aD[d], init, s, &zWhy) < 0) {
      s->nRp = nOld; /* not all of them: none */
      if (zWhy) s->zWhy = zWhy; /* a pointer the rule cannot take: that is the reason */
      return 0;
    }
  }
  return nD > 0;
}

/* May expression c differ between the threads of a warp: does it read
 * threadIdx, call a function, or read a prelude variable that may
 * (s->abTid)? blockIdx, blockDim, gridDim, parameters and literals are the
 * same across a warp. */
static enum CXChildVisitResult nd_tid_visit(CXCursor c, CXCursor parent, CXClientData pArg) {
  (void)parent;
  int *pb = pArg;
  if (ks_shape_builtin(c, NULL) == KS_ATOM_TID || clang_getCursorKind(c) == CXCursor_CallExpr) *pb = 1;
  return *pb ? CXChildVisit_Break : CXChildVisit_Recurse;
}

static int nd_tid_dep(CXCursor c, const ndscan *s) {
  int b = 0;
  nd_tid_visit(c, c, &b);
  if (!b) clang_visitChildren(c, nd_tid_visit, &b);
  return b || nd_refs_any(c, s->aPre, s->abTid, s->nPre);
}

/* `v = e;` on a prelude variable other than x, e pure: the index of the
 * prelude variable, or -1. */
static int nd_prelude_assign(CXCursor st, const ndscan *s, CXCursor *pValue) {
  CXCursor aK[2];
  if (clang_getCursorKind(st) != CXCursor_BinaryOperator ||
      clang_getCursorBinaryOperatorKind(st) != CXBinaryOperator_Assign || ks_rw_kids(st, aK, 2) != 2 ||
      !ks_rw_pure_expr(aK[1]))
    return -1;
  CXCursor d = ks_rw_ref_decl(aK[0]);
  int iPre = clang_Cursor_isNull(d) ? -1 : nd_pre_index(s, d);
  if (iPre < 0 || iPre == s->iX) return -1;
  *pValue = aK[1];
  return iPre;
}

/* The statements before the guard: declarations of integer and floating
 * scalars (initialized by pure expressions, or not at all) and pure
 * assignments to them; one declares the x index. The index of the first
 * statement past them; *pzWhy on a refusal. */
static int nd_prelude(ks_tu *pTu, CXCursor k, CXCursor *aSt, int nSt, ndform *pF, ndscan *s, const char **pzWhy) {
  int i;
  for (i = 0; i < nSt && !*pzWhy; i++) {
    CXCursor v;
    int iPre = nd_prelude_assign(aSt[i], s, &v);
    if (iPre >= 0) {
      for (int d = 0; d < s->nDerived && !*pzWhy; d++) /* the lanes declare them later, at the guard */
        if (count_refs(s->aDerSt[d], s->aPre[iPre]) > 0)
          *pzWhy = "a variable an x-derived declaration reads is assigned after it (the lanes would read the new value)";
      s->abXDep[iPre] |= nd_x_dep(pTu, v, s, pzWhy);
      s->abTid[iPre] |= nd_tid_dep(v, s);
      s->bYRead |= pF->iYEnd && count_refs(aSt[i], pF->yDecl) > 0;
      continue;
    }
    if (clang_getCursorKind(aSt[i]) != CXCursor_DeclStmt) break;
    if (ks_rw_const_tables(aSt[i])) { /* a filter's weights: read alike by every lane */
      CXCursor *aV = NULL;
      int nV = 0;
      ks_rw_children(aSt[i], &aV, &nV);
      for (int d = 0; d < nV; d++) {
        if (s->nTab < 8) s->aTab[s->nTab] = aV[d];
        if (s->nTab < 9) s->nTab++;
      }
      free(aV);
      continue;
    }
    int eDer = nd_x_derived(pTu, aSt[i], s);
    if (eDer > 0 && s->nDerived < 8) { /* every lane declares them with its own x */
      CXCursor *aV = NULL;
      int nV = 0;
      ks_rw_children(aSt[i], &aV, &nV);
      for (int d = 0; d < nV && s->nPre < 16; d++) {
        s->abXDerived[s->nPre] = 1;
        s->aiDerOf[s->nPre] = s->nDerived;
        s->aPre[s->nPre++] = aV[d];
      }
      free(aV);
      s->aDerSt[s->nDerived] = aSt[i];
      ks_ast_extent(pTu, aSt[i], &s->aiDerived[s->nDerived][0], &s->aiDerived[s->nDerived][1]);
      s->aiDerived[s->nDerived][1] = nd_stmt_end(pTu, aSt[i]);
      s->nDerived++;
      if (s->nPre == 16) *pzWhy = "too many index declarations";
      continue;
    }
    if (eDer < 0) {
      *pzWhy = "a declaration after the x index is computed from it together with something that is not (a "
               "thread built-in, another temporary of it, a variable declared with it)";
      break;
    }
    CXCursor *aD = NULL;
    int nD = 0;
    s->bYRead |= pF->iYEnd && count_refs(aSt[i], pF->yDecl) > 0;
    ks_rw_children(aSt[i], &aD, &nD);
    for (int d = 0; d < nD && !*pzWhy; d++) {
      CXCursor aI[4];
      int nI = clang_getCursorKind(aD[d]) == CXCursor_VarDecl ? ks_rw_kids(aD[d], aI, 4) : -1;
      CXCursor init = nI >= 1 && nI <= 4 && clang_isExpression(clang_getCursorKind(aI[nI - 1])) ? aI[nI - 1]
                                                                                               : clang_getNullCursor();
      enum CXTypeKind eT = clang_getCanonicalType(clang_getCursorType(aD[d])).kind;
      int bInt = ks_rw_is_integer_type(clang_getCursorType(aD[d]));
      int iPtrParam = nI >= 0 && eT == CXType_Pointer ? nd_add_row_pointer(pTu, aD[d], init, s, pzWhy) : -1;
      if (*pzWhy) break;
      if (s->nPre == 16 || nI < 0 || !(bInt || iPtrParam >= 0 || eT == CXType_Float || eT == CXType_Double) ||
          (!clang_Cursor_isNull(init) && iPtrParam < 0 && !ks_rw_pure_expr(init) && !nd_clamp_decls(s, aSt[i]))) {
        *pzWhy = "the kernel does not start with integer index declarations computed from the thread built-ins";
        break;
      }
      int iDim = bInt && !clang_Cursor_isNull(init) ? ks_rw_thread_index(pTu, k, init, NULL) : -1;
      s->abTid[s->nPre] = !clang_Cursor_isNull(init) && nd_tid_dep(init, s);
      s->aPre[s->nPre] = aD[d];
      if (iPtrParam >= 0) {
        s->nPre++;
        continue;
      }
      if (iDim == 0 && s->iX < 0) {
        if (nD != 1) *pzWhy = "the x index is declared together with other variables";
        else nd_set_x(pTu, aSt[i], aD[d], init, pF, s);
      } else if (iDim == 1 && nD == 1 && !pF->iYEnd) {
        nd_set_y(pTu, aSt[i], aD[d], init, pF);
      } else if (!clang_Cursor_isNull(init))
        s->abXDep[s->nPre] = (iDim < 0 || iDim == 0) && nd_x_dep(pTu, init, s, pzWhy);
      s->nPre++;
    }
    free(aD);
  }
  return *pzWhy ? i - 1 : i;
}

/* A signed integer type no wider than 64 bits: arithmetic on it does not
 * wrap in a program that is defined, so an affine form of it is monotone. */
static int nd_signed_int(CXType t) {
  switch (clang_getCanonicalType(t).kind) {
  case CXType_Short: case CXType_Int: case CXType_Long: case CXType_LongLong:
    return 1;
  default:
    return 0;
  }
}

/* Is e, a side of a comparison of the guard, affine in the lane's x and y:
 * sums, differences and negations of x, y, parameters and literals, products
 * with at most one factor that names x or y, in signed integers throughout
 * (a cast no narrower than its operand)? *pbVar: it names x or y. */
static int nd_affine_side(CXCursor e, const ndscan *s, const ndform *f, int *pbVar) {
  enum CXCursorKind k = clang_getCursorKind(e);
  CXCursor a[3];
  int n = ks_rw_kids(e, a, 3);
  *pbVar = 0;
  if (!nd_signed_int(clang_getCursorType(e))) return 0;
  if (k == CXCursor_IntegerLiteral) return 1;
  if (k == CXCursor_DeclRefExpr) {
    CXCursor d = clang_getCursorReferenced(e);
    *pbVar = clang_equalCursors(d, s->aPre[s->iX]) || (f->iYEnd && clang_equalCursors(d, f->yDecl));
    return *pbVar || clang_getCursorKind(d) == CXCursor_ParmDecl;
  }
  if (k == CXCursor_UnexposedExpr || k == CXCursor_ParenExpr || k == CXCursor_CStyleCastExpr) {
    CXCursor c = a[n - 1]; /* an explicit cast's last child is its operand */
    if (n < 1 || n > 2 || (n == 2 && k != CXCursor_CStyleCastExpr)) return 0;
    if (clang_Type_getSizeOf(clang_getCursorType(c)) > clang_Type_getSizeOf(clang_getCursorType(e))) return 0;
    return nd_affine_side(c, s, f, pbVar);
  }
  if (k == CXCursor_UnaryOperator && n == 1) {
    enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(e);
    return (op == CXUnaryOperator_Minus || op == CXUnaryOperator_Plus) && nd_affine_side(a[0], s, f, pbVar);
  }
  if (k == CXCursor_BinaryOperator && n == 2) {
    enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(e);
    int b0, b1;
    if (op != CXBinaryOperator_Add && op != CXBinaryOperator_Sub && op != CXBinaryOperator_Mul) return 0;
    if (!nd_affine_side(a[0], s, f, &b0) || !nd_affine_side(a[1], s, f, &b1)) return 0;
    *pbVar = b0 || b1;
    return op != CXBinaryOperator_Mul || !(b0 && b1);
  }
  return 0;
}

/* An equality of a condition decided at the box's corners: `A == B` where it
 * makes the lane fail (or `A != B` where it lets it pass), A - B affine in x
 * and y. No lane of the box has A == B when A < B at every corner, or A > B
 * at every corner (an affine function takes its extremes at the corners). */
typedef struct ndeq {
  CXCursor a, b;       /* its sides */
  unsigned iStart, iEnd;
  int bPass;           /* `!=` in the passing sense: the rest of the text reads it as true */
} ndeq;

/* Is guard e, where bFail says whether the lane fails where it is true (an
 * early return's condition), true on a union (bFail) or intersection (!bFail)
 * of half-planes in x and y (<, <=, >, >= of affine sides, ||, &&, !), less
 * the lines of equalities where they make the lane fail (`x == 0 || x == w -
 * 1` in an early return, `x != 0 &&` in an if; each into aEq, at most 8 in
 * all)? Then the lanes' test holds on every lane of a box if it holds at the
 * box's corners and no equality's line crosses the box. */
static int nd_corner_guard(CXCursor e, int bFail, const ndscan *s, const ndform *f, ndeq *aEq, int *pnEq) {
  CXCursor a[2];
  e = ks_rw_strip(e);
  int n = ks_rw_kids(e, a, 2), b;
  if (clang_getCursorKind(e) == CXCursor_UnaryOperator && n == 1 &&
      clang_getCursorUnaryOperatorKind(e) == CXUnaryOperator_LNot)
    return nd_corner_guard(a[0], !bFail, s, f, aEq, pnEq);
  if (clang_getCursorKind(e) != CXCursor_BinaryOperator || n != 2) return 0;
  enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(e);
  if (op == CXBinaryOperator_LOr || op == CXBinaryOperator_LAnd)
    return bFail == (op == CXBinaryOperator_LOr) && nd_corner_guard(a[0], bFail, s, f, aEq, pnEq) &&
           nd_corner_guard(a[1], bFail, s, f, aEq, pnEq);
  if ((op == CXBinaryOperator_EQ && bFail) || (op == CXBinaryOperator_NE && !bFail)) {
    unsigned es, ee, as, ae, bs, be;
    if (*pnEq >= 8 || !nd_affine_side(a[0], s, f, &b) || !nd_affine_side(a[1], s, f, &b)) return 0;
    /* its sides' own text, apart, inside it (not one macro's use for all three) */
    if (ks_ast_extent(s->pTu, e, &es, &ee) < 0 || ks_ast_extent(s->pTu, a[0], &as, &ae) < 0 ||
        ks_ast_extent(s->pTu, a[1], &bs, &be) < 0 || as != es || be != ee || ae >= bs)
      return 0;
    ndeq *q = &aEq[(*pnEq)++];
    q->a = a[0], q->b = a[1], q->bPass = !bFail, q->iStart = es, q->iEnd = ee;
    return 1;
  }
  return op >= CXBinaryOperator_LT && op <= CXBinaryOperator_GE && nd_affine_side(a[0], s, f, &b) &&
         nd_affine_side(a[1], s, f, &b);
}

/* The text of [iStart, iEnd) with each equality of aEq in it read as what
 * the corners' flags decide apart: `false` (failing sense), `true` (passing). */
static char *nd_corner_text(const ndscan *s, unsigned iStart, unsigned iEnd, const ndeq *aEq, int nEq) {
  ks_buf b = KS_BUF_INIT;
  unsigned iPos = iStart;
  for (int k = 0; k < nEq; k++) {
    if (aEq[k].iStart < iPos || aEq[k].iEnd > iEnd) continue;
    ks_buf_append(&b, s->pTu->zSrc + iPos, aEq[k].iStart - iPos);
    ks_buf_printf(&b, "%s", aEq[k].bPass ? "true" : "false");
    iPos = aEq[k].iEnd;
  }
  ks_buf_append(&b, s->pTu->zSrc + iPos, iEnd - iPos);
  char *z = ks_strdup(ks_buf_cstr(&b));
  ks_buf_free(&b);
  return z;
}

/* What an exit's statements may hold (nd_exit): no loop or jump (barriers,
 * built-ins and prelude writes are nd_check's, run on every exit); the
 * offsets of its returns. */
typedef struct ndexitscan {
  ks_tu *pTu;
  int bBad, nRet;
  unsigned aiRet[2];
  int bGs; /* a grid-stride loop's body: its exits end in `continue`, a return is none */
} ndexitscan;

static int nd_exit_visit(CXCursor c, const CXCursor *aAnc, int nAnc, void *pArg) {
  (void)aAnc;
  (void)nAnc;
  ndexitscan *x = pArg;
  enum CXCursorKind e = clang_getCursorKind(c);
  if (x->bGs && e == CXCursor_ReturnStmt) x->bBad = 1; /* it would end the thread's loop: no exit */
  else if (e == (x->bGs ? CXCursor_ContinueStmt : CXCursor_ReturnStmt)) {
    unsigned a, b;
    CXCursor aK[1];
    if (x->nRet < 2 && ks_rw_kids(c, aK, 1) == 0 && ks_ast_extent(x->pTu, c, &a, &b) == 0) x->aiRet[x->nRet] = a;
    else x->bBad = 1;
    x->nRet++;
  } else if (nd_is_loop(e) || e == CXCursor_BreakStmt || e == CXCursor_ContinueStmt || e == CXCursor_ReturnStmt ||
             e == CXCursor_GotoStmt ||
             e == CXCursor_LabelStmt || e == CXCursor_SwitchStmt) {
    x->bBad = 1;
  }
  return x->bBad ? -1 : 0;
}

/* An exit condition: pure, free of thread built-ins along x and of the x
 * index's temporaries (the lanes' test evaluates it with each lane's x). */
static enum CXChildVisitResult nd_arrow_visit(CXCursor c, CXCursor parent, CXClientData p) {
  (void)parent;
  CXCursor aK[1];
  if (clang_getCursorKind(c) == CXCursor_MemberRefExpr && ks_rw_kids(c, aK, 1) == 1 &&
      clang_getCanonicalType(clang_getCursorType(aK[0])).kind == CXType_Pointer) {
    *(int *)p = 1;
    return CXChildVisit_Break;
  }
  return CXChildVisit_Recurse;
}

static int nd_exit_cond_ok(CXCursor c, const ndscan *s) {
  int bArrow = 0; /* `cfg->border`: a load the lanes' test would make ahead of every lane */
  clang_visitChildren(c, nd_arrow_visit, &bArrow);
  return !bArrow && ks_rw_pure_expr(c) && !nd_refs_any(c, s->aPre, s->abXDep, s->nPre) &&
         !nd_reads_x(c, 1u << KS_ATOM_TID | 1u << KS_ATOM_BID);
}

/* Is st an exit of the element body: `if (C) return;` or `if (C) { S; return; }`
 * (the return last, S free of loops and jumps, C pure), or, with bElse,
 * `if (C) S else T` (S likewise, without a return)? A lane for which C holds
 * does S and nothing after (nothing of T); the vector path requires !C of
 * every lane, and runs what follows (T). *pCond: C; the return's offset into
 * *piRet (0 where there is none). */
static int nd_exit(ks_tu *pTu, CXCursor st, const ndscan *s, int bElse, CXCursor *pCond, unsigned *piRet) {
  CXCursor aK[3], aT[64];
  int nK = clang_getCursorKind(st) == CXCursor_IfStmt ? ks_rw_kids(st, aK, 3) : 0;
  if (nK != (bElse ? 3 : 2) || !nd_exit_cond_ok(aK[0], s)) return 0;
  ndexitscan x = {pTu, 0, 0, {0, 0}, s->bGs};
  if (nd_exit_visit(aK[1], NULL, 0, &x) == 0) ks_rw_walk(aK[1], nd_exit_visit, &x); /* the branch itself too */
  if (x.bBad || x.nRet != (bElse ? 0 : 1)) return 0;
  if (bElse && clang_getCursorKind(aK[2]) == CXCursor_CompoundStmt && ks_rw_kids(aK[2], aT, 1) == 0) return 0;
  if (!bElse) { /* the return (continue) is the then-branch, or the last statement of its braces */
    int nT = clang_getCursorKind(aK[1]) == CXCursor_CompoundStmt ? ks_rw_kids(aK[1], aT, 64) : 0;
    CXCursor last = nT > 0 && nT <= 64 ? aT[nT - 1] : aK[1];
    unsigned a, b;
    const char *zJump = s->bGs ? "continue" : "return";
    if (clang_getCursorKind(last) != (s->bGs ? CXCursor_ContinueStmt : CXCursor_ReturnStmt) ||
        ks_ast_extent(pTu, last, &a, &b) < 0 || a != x.aiRet[0])
      return 0;
    /* spelled here (not by a macro): the fallback writes `continue` over a return; a grid-stride
       loop's continue goes on to the next lane there as it is */
    if (b - a != strlen(zJump) || memcmp(pTu->zSrc + a, zJump, b - a) != 0) return 0;
  }
  *pCond = aK[0];
  *piRet = bElse || s->bGs ? 0 : x.aiRet[0];
  return 1;
}

static enum CXChildVisitResult nd_count_subscripts(CXCursor c, CXCursor parent, CXClientData p) {
  (void)parent;
  if (clang_getCursorKind(c) == CXCursor_ArraySubscriptExpr) ++*(int *)p;
  return CXChildVisit_Recurse;
}

/* `if (C) S else T` with more element accesses in S than in T (`if
 * (inside) out[i] = <stencil>; else out[i] = in[i];`): the stencil is S, so
 * this is no exit whose else the vector path runs; the lanes' test requires
 * C instead (nd_dead_reads). */
static int nd_then_reads_more(CXCursor st) {
  CXCursor aK[3];
  int anSub[2] = {0, 0};
  if (clang_getCursorKind(st) != CXCursor_IfStmt || ks_rw_kids(st, aK, 3) != 3) return 0;
  for (int k = 0; k < 2; k++) {
    nd_count_subscripts(aK[k + 1], aK[k + 1], &anSub[k]);
    clang_visitChildren(aK[k + 1], nd_count_subscripts, &anSub[k]);
  }
  return anSub[0] > anSub[1];
}

/* Does c name only parameters, globals and variables declared before the
 * element body (not the body's own locals, which the lanes' test does not
 * declare)? */
typedef struct ndoutside {
  ks_tu *pTu;
  unsigned iBody;
  int bOk;
} ndoutside;

static int nd_outside_visit(CXCursor c, const CXCursor *aAnc, int nAnc, void *pArg) {
  (void)aAnc;
  (void)nAnc;
  ndoutside *o = pArg;
  unsigned a, b;
  if (clang_getCursorKind(c) != CXCursor_DeclRefExpr) return 0;
  CXCursor d = clang_getCursorReferenced(c);
  if (clang_getCursorKind(d) == CXCursor_VarDecl && clang_Cursor_getStorageClass(d) == CX_SC_None &&
      (ks_ast_extent(o->pTu, d, &a, &b) < 0 || a >= o->iBody))
    o->bOk = 0;
  return o->bOk ? 0 : -1;
}

/* The body's exits (nd_exit) among its leading pure declarations: each
 * one's !C into the lanes' test, its return into pF->aiRet, its statement
 * into pF's skipped ranges; an if/else last (the else form): its else's
 * statements instead, the rest of it skipped. *paOwn: the statements the
 * vector path runs (the caller frees it), *pnB their number; 0, or 1 when
 * there are exits; s->zWhy on a failure. */
static int nd_exits(ks_tu *pTu, CXCursor *aB, int nB, CXCursor **paOwn, int *pnOwn, ndform *pF, ndscan *s) {
  CXCursor cond, aK[3], *aT = NULL;
  unsigned iRet, a, b, ts, te;
  int nT = 0, bElse = 0, nExit = 0;
  ndoutside o = {pTu, pF->iFallStart, 1};
  for (int k = 0; k < nB && !s->zWhy; k++) { /* pure declarations and exits, in any order */
    int bLast = k + 1 == nB, bExit = 0;
    if (!bLast && pF->nRet < 8 && pF->nSkip < 8 && nd_exit(pTu, aB[k], s, 0, &cond, &iRet)) bExit = 1;
    else if (bLast && !nd_then_reads_more(aB[k]) && nd_exit(pTu, aB[k], s, 1, &cond, &iRet)) bExit = bElse = 1;
    else if (!ks_rw_pure_decls(aB[k])) break;
    if (!bExit) continue;
    o.bOk = 1;
    o.iBody = pF->iFallStart;
    ks_rw_walk(cond, nd_outside_visit, &o);
    int bLocal = !o.bOk;
    if (bLocal) { /* the body's locals, declared before this exit (nd_local takes or refuses them later) */
      ks_ast_extent(pTu, aB[k], &a, &b);
      o.bOk = 1;
      o.iBody = a;
      ks_rw_walk(cond, nd_outside_visit, &o);
      if (!o.bOk || pF->nExitLocal == 9) break;
    }
    s->bInExit = 1; /* what the body may not do, an exit may not either (built-ins, prelude writes) */
    if (nd_check(aB[k], NULL, 0, s) == 0) ks_rw_walk(aB[k], nd_check, s);
    s->bInExit = 0;
    if (s->zWhy) break;
    if (bLocal)
      pF->aExitLocal[pF->nExitLocal++] = cond;
    else {
      char *zT = ks_ast_text(pTu, ks_rw_strip(cond));
      int nHad = s->nLaneCond;
      s->zWhy = nd_add_text(s->azLaneCond, &s->nLaneCond, zT ? ks_mprintf("!(%s)", zT) : NULL);
      free(zT);
      if (s->nLaneCond > nHad) pF->aExitCond[pF->nExitCond++] = cond;
    }
    ks_ast_extent(pTu, aB[k], &a, &b);
    b = nd_stmt_end(pTu, aB[k]);
    if (!bElse) {
      if (iRet) pF->aiRet[pF->nRet++] = iRet; /* a grid-stride loop's continue stays as written */
      pF->aiSkip[pF->nSkip][0] = a, pF->aiSkip[pF->nSkip++][1] = b;
    } else { /* `if (C) S else {` and the else's closing brace go */
      ks_rw_kids(aB[k], aK, 3);
      ks_ast_extent(pTu, aK[2], &ts, &te);
      int bBraces = clang_getCursorKind(aK[2]) == CXCursor_CompoundStmt;
      if (bBraces) ks_rw_children(aK[2], &aT, &nT);
      pF->aiSkip[pF->nSkip][0] = a, pF->aiSkip[pF->nSkip++][1] = bBraces ? ts + 1 : ts;
      if (bBraces) pF->aiSkip[pF->nSkip][0] = te - 1, pF->aiSkip[pF->nSkip++][1] = b;
      else pF->aiSkip[pF->nSkip][0] = nd_stmt_end(pTu, aK[2]), pF->aiSkip[pF->nSkip++][1] = b;
      if (!bBraces) {
        aT = malloc(sizeof *aT);
        if (aT) aT[0] = aK[2], nT = 1;
      }
    }
    nExit++;
  }
  if (s->zWhy || !nExit) {
    free(aT);
    return 0;
  }
  *paOwn = malloc((size_t)(nB + nT) * sizeof **paOwn);
  if (!*paOwn || (bElse && !aT)) {
    free(aT);
    s->zWhy = "out of memory";
    return 0;
  }
  *pnOwn = 0;
  for (int k = 0; k < nB; k++) {
    unsigned c0, c1;
    ks_ast_extent(pTu, aB[k], &c0, &c1);
    int bSkip = 0;
    for (int e = 0; e < pF->nSkip && !bSkip; e++) bSkip = c0 == pF->aiSkip[e][0];
    if (!bSkip) (*paOwn)[(*pnOwn)++] = aB[k];
  }
  for (int k = 0; k < nT; k++) (*paOwn)[(*pnOwn)++] = aT[k];
  free(aT);
  s->vs.bRootsAreStmts = 1;
  return 1;
}

/* The kernel's last statement as a grid-stride loop over x (ndform.bGs):
 * `for (T i = <x index>; i < N; i += S) { BODY }`, S the kernel-shape
 * model's blockDim.x * gridDim.x (a thread takes i, i + S, ...: with W lanes
 * it takes the packs i, i + S, ... of W elements, the same cover of [0, N)),
 * N pure and free of i, the header written in the file. i joins the prelude
 * as the x index; aIf[0] and aIf[1] get the condition (the guard) and the
 * body. NULL, or why not. */
static const char *nd_gs_match(ks_tu *pTu, CXCursor k, CXCursor st, ndform *pF, ndscan *s, CXCursor *aIf) {
  CXCursor aF[4], aD[2], aI[4], aC[2], aS[2];
  int nI = 0, bStep = 0;
  if (ks_rw_kids(st, aF, 4) != 4 || clang_getCursorKind(aF[0]) != CXCursor_DeclStmt || ks_rw_kids(aF[0], aD, 2) != 1 ||
      clang_getCursorKind(aD[0]) != CXCursor_VarDecl || !ks_rw_is_integer_type(clang_getCursorType(aD[0])) ||
      (nI = ks_rw_kids(aD[0], aI, 4)) < 1 || nI > 4 || ks_rw_thread_index(pTu, k, aI[nI - 1], NULL) != 0)
    return "no declaration of the x index blockIdx.x * blockDim.x + threadIdx.x before the guard (nor a grid-stride "
           "loop from it)";
  CXCursor cond = ks_rw_strip(aF[1]);
  if (clang_getCursorKind(cond) != CXCursor_BinaryOperator ||
      clang_getCursorBinaryOperatorKind(cond) != CXBinaryOperator_LT || ks_rw_kids(cond, aC, 2) != 2 ||
      !ks_rw_is_ref_to(aC[0], aD[0]) || !ks_rw_pure_expr(aC[1]) || count_refs(aC[1], aD[0]) > 0 ||
      nd_reads_x(aC[1], 1u << KS_ATOM_TID | 1u << KS_ATOM_BID))
    return "the grid-stride loop's condition is not i < N with N pure, free of i and the thread built-ins";
  for (int i = 0; i < s->pShape->nLoop; i++)
    bStep |= clang_equalCursors(s->pShape->aLoop[i].cursor, st) && s->pShape->aLoop[i].bGridStride &&
             s->pShape->aLoop[i].iDim == 0;
  if (!bStep || clang_getCursorKind(aF[2]) != CXCursor_CompoundAssignOperator || ks_rw_kids(aF[2], aS, 2) != 2 ||
      !ks_rw_is_ref_to(aS[0], aD[0]))
    return "the grid-stride loop does not step by i += blockDim.x * gridDim.x";
  if (clang_getCursorKind(aF[3]) != CXCursor_CompoundStmt) return "the grid-stride loop's body is not a block { ... }";
  unsigned fs, fe, bs, be, ns, ne, ss, se;
  if (ks_ast_extent(pTu, st, &fs, &fe) < 0 || ks_ast_extent(pTu, aF[3], &bs, &be) < 0 ||
      ks_ast_extent(pTu, aC[1], &ns, &ne) < 0 || ks_ast_extent(pTu, aS[1], &ss, &se) < 0 ||
      memcmp(pTu->zSrc + fs, "for", 3) != 0 || pTu->zSrc[bs] != '{' || ns <= fs || ss <= fs || ne > bs || se > bs)
    return "the grid-stride loop's header is not written in the file (a macro)";
  nd_set_x(pTu, aF[0], aD[0], aI[nI - 1], pF, s);
  pF->iXStart = fs;
  pF->iXEnd = bs + 1;
  s->aPre[s->nPre] = aD[0];
  s->abTid[s->nPre++] = 1;
  pF->bGs = s->bGs = 1;
  pF->zGsBound = nd_text(pTu, ns, ne);
  pF->zGsStep = nd_text(pTu, ss, se);
  aIf[0] = aF[1];
  aIf[1] = aF[3];
  return NULL;
}

/* `for (T y = <y index>; ...; y += blockDim.y * gridDim.y) for (x ...) {...}`
 * (the model's grid-stride loop along y, its body the x loop alone, braced
 * or not): y joins the prelude (a thread's own, as a variable declared before
 * the guard), the y loop stays as written, and the x loop is returned for
 * nd_gs_match; else st itself. */
static CXCursor nd_gs_outer_y(ks_tu *pTu, CXCursor k, CXCursor st, ndscan *s) {
  CXCursor aF[4], aD[2], aI[4], aB[2];
  int nI = 0, bY = 0;
  if (ks_rw_kids(st, aF, 4) != 4 || clang_getCursorKind(aF[0]) != CXCursor_DeclStmt || ks_rw_kids(aF[0], aD, 2) != 1 ||
      clang_getCursorKind(aD[0]) != CXCursor_VarDecl || (nI = ks_rw_kids(aD[0], aI, 4)) < 1 || nI > 4 ||
      ks_rw_thread_index(pTu, k, aI[nI - 1], NULL) != 1 || s->nPre >= 16)
    return st;
  for (int i = 0; i < s->pShape->nLoop; i++)
    bY |= clang_equalCursors(s->pShape->aLoop[i].cursor, st) && s->pShape->aLoop[i].bGridStride &&
          s->pShape->aLoop[i].iDim == 1;
  CXCursor in = aF[3];
  if (clang_getCursorKind(in) == CXCursor_CompoundStmt) in = ks_rw_kids(in, aB, 2) == 1 ? aB[0] : clang_getNullCursor();
  if (!bY || clang_Cursor_isNull(in) || clang_getCursorKind(in) != CXCursor_ForStmt) return st;
  s->aPre[s->nPre] = aD[0];
  s->abTid[s->nPre++] = 1;
  return in;
}

/* A break or continue of a grid-stride loop's body (not of a loop or switch
 * inside it) other than an exit's: on the vector path it would leave the
 * other lanes. */
static int nd_gs_jump_visit(CXCursor c, const CXCursor *aAnc, int nAnc, void *pArg) {
  enum CXCursorKind e = clang_getCursorKind(c);
  if (e != CXCursor_BreakStmt && e != CXCursor_ContinueStmt) return 0;
  for (int k = 0; k < nAnc; k++) {
    enum CXCursorKind eA = clang_getCursorKind(aAnc[k]);
    if (nd_is_loop(eA) || (e == CXCursor_BreakStmt && eA == CXCursor_SwitchStmt)) return 0;
  }
  *(int *)pArg = 1;
  return -1;
}

static const char *nd_gs_jumps(CXCursor *aB, int nB) {
  int bJump = 0;
  for (int b = 0; b < nB && !bJump; b++)
    if (nd_gs_jump_visit(aB[b], NULL, 0, &bJump) == 0) ks_rw_walk(aB[b], nd_gs_jump_visit, &bJump);
  return bJump ? "the grid-stride loop's body has a break, or a continue other than an exit's "
                 "(`if (C) { ...; continue; }` before the body)"
               : NULL;
}

/* 0 and *pF, *pS (prelude, guard, body) when the kernel has the n-dimensional
 * map form; else a refusal reason. */
static const char *nd_match(ks_tu *pTu, CXCursor k, ndform *pF, ndscan *s) {
  CXCursor body = ks_rw_body(k), *aSt = NULL, aIf[3];
  int nSt = 0, i;
  const char *zWhy = NULL;
  unsigned bs, be;
  memset(pF, 0, sizeof *pF);
  s->iX = -1;
  if (clang_Cursor_isNull(body) || ks_ast_extent(pTu, body, &bs, &be) < 0) return "the kernel has no body in the file";
  if (ks_rw_has_word(pTu, bs, be, "__shared__")) return "the kernel uses __shared__ memory";
  ks_rw_children(body, &aSt, &nSt);
  i = nd_prelude(pTu, k, aSt, nSt, pF, s, &zWhy);
  if (zWhy) goto done;
  if (s->iX < 0 && i + 1 == nSt && clang_getCursorKind(aSt[i]) == CXCursor_ForStmt) {
    CXCursor xLoop = nd_gs_outer_y(pTu, k, aSt[i], s); /* for (y ...) for (x ...): the x loop */
    if ((zWhy = nd_gs_match(pTu, k, xLoop, pF, s, aIf))) goto done; /* aIf: its condition and body */
  } else if (s->iX < 0) {
    zWhy = "no declaration of the x index blockIdx.x * blockDim.x + threadIdx.x before the guard";
    goto done;
  } else if (i >= nSt || clang_getCursorKind(aSt[i]) != CXCursor_IfStmt || ks_rw_kids(aSt[i], aIf, 3) != 2) {
    zWhy = "the index declarations are not followed by a guard if (G) { ... } or if (G) return; without else";
    goto done;
  }
  pF->guard = aIf[0];
  if (!ks_rw_pure_expr(aIf[0]) || nd_refs_any(aIf[0], s->aPre, s->abXDep, s->nPre)) {
    zWhy = "the guard has effects or reads a temporary of the x index";
    goto done;
  }
  if (nd_reads_x(aIf[0], 1u << KS_ATOM_TID | 1u << KS_ATOM_BID)) {
    zWhy = "the guard reads threadIdx.x or blockIdx.x (it would not change with the lane)";
    goto done;
  }
  {
    unsigned gs, ge;
    ks_ast_extent(pTu, aIf[0], &gs, &ge);
    pF->zGuard = nd_text(pTu, gs, ge);
  }
  ks_ast_extent(pTu, aSt[i], &pF->iIfStart, &pF->iRegionEnd);
  s->vs.container = clang_getNullCursor();
  if (pF->bGs) { /* the loop's statements, its braces and header stay (nd_gs_match) */
    CXCursor *aBody = NULL;
    int nBody = 0;
    unsigned e0, e1;
    ks_rw_children(aIf[1], &aBody, &nBody);
    if (nBody > 0) {
      ks_ast_extent(pTu, aBody[0], &pF->iIfStart, &e1);
      ks_ast_extent(pTu, aBody[nBody - 1], &e0, &e1);
      pF->iRegionEnd = nd_stmt_end(pTu, aBody[nBody - 1]);
    }
    free(aBody);
    if (nBody == 0) {
      zWhy = "the grid-stride loop's body is empty";
      goto done;
    }
    pF->iBodyStart = pF->iIfStart;
    pF->iBodyEnd = pF->iRegionEnd;
    s->vs.container = aIf[1];
  } else if (nd_bare_return(aIf[1])) {
    if (i + 1 >= nSt) {
      zWhy = "nothing follows the early return";
      goto done;
    }
    pF->bEarlyReturn = 1;
    unsigned le;
    ks_ast_extent(pTu, aSt[i + 1], &pF->iBodyStart, &le);
    pF->iBodyEnd = pF->iRegionEnd = nd_stmt_end(pTu, aSt[nSt - 1]);
    s->vs.container = body;
    s->vs.bRootsAreStmts = 1;
  } else {
    if (i + 1 != nSt) {
      zWhy = "statements follow the guarded block";
      goto done;
    }
    unsigned ts, te;
    ks_ast_extent(pTu, aIf[1], &ts, &te);
    if (clang_getCursorKind(aIf[1]) == CXCursor_CompoundStmt) {
      pF->iBodyStart = ts + 1;
      pF->iBodyEnd = te - 1;
      s->vs.container = aIf[1];
    } else {
      pF->iBodyStart = ts;
      pF->iBodyEnd = pF->iRegionEnd = nd_stmt_end(pTu, aIf[1]);
    }
  }
  pF->iFallStart = pF->iBodyStart;
  pF->iFallEnd = pF->iBodyEnd;
  s->iFirstStore = (unsigned)-1;
  /* the statements of the element body (after its exits), and its leading pure declarations */
  {
    CXCursor *aB = NULL, *aOwn = NULL, *aThen = NULL;
    int nB = 0, bLead = 1;
    if (pF->bEarlyReturn) {
      aB = aSt + i + 1;
      nB = nSt - i - 1;
    } else if (clang_getCursorKind(aIf[1]) == CXCursor_CompoundStmt) {
      ks_rw_children(aIf[1], &aThen, &nB);
      aB = aThen;
    } else {
      aB = &aIf[1];
      nB = 1;
    }
    int nOwn = 0, bExits = nd_exits(pTu, aB, nB, &aOwn, &nOwn, pF, s);
    if (bExits) aB = aOwn, nB = nOwn;
    if (pF->bGs && !s->zWhy) s->zWhy = nd_gs_jumps(aB, nB);
    s->iBodyStart = pF->iBodyStart;
    s->iLeadEnd = pF->iBodyStart;
    for (int b = 0; b < nB && !s->zWhy; b++) {
      nd_check(aB[b], NULL, 0, s);
      if (!s->zWhy) ks_rw_walk(aB[b], nd_check, s);
      if (bLead && (ks_rw_pure_decls(aB[b]) || nd_clamp_decls(s, aB[b]) || nd_lead_row_pointers(pTu, aB[b], s))) {
        s->iLeadEnd = nd_stmt_end(pTu, aB[b]);
        CXCursor aV[4];
        int nV = ks_rw_kids(aB[b], aV, 4);
        /* every variable of the statement has its extent (it goes when all do), where all are recorded */
        int bAll = nV <= 4 && s->nLead + nV <= 16;
        for (int v = 0; v < nV && v < 4 && s->nLead < 16; v++) {
          if (clang_getCursorKind(aV[v]) != CXCursor_VarDecl) continue;
          unsigned e0 = 0, e1 = 0;
          if (bAll) {
            ks_ast_extent(pTu, aB[b], &e0, &e1);
            e1 = nd_stmt_end(pTu, aB[b]);
          }
          s->aiLead[s->nLead][0] = e0;
          s->aiLead[s->nLead][1] = e1;
          s->azLead[s->nLead++] = ks_rw_spelling(aV[v]);
        }
      } else
        bLead = 0;
    }
    for (int e = 0; e < pF->nExitLocal && !s->zWhy; e++) /* every write of the body known: nd_local can tell */
      if (nd_add_local_cond(s, pF->aExitLocal[e], 1))
        s->zWhy = "an exit's condition names a local of the body the lanes' test cannot declare again (a signed "
                  "integer never written, initialized by a pure expression of the index and parameters)";
    if (!s->zWhy && !pF->bEarlyReturn && !bExits) ks_rw_walk(aIf[1], nd_scan, s);
    for (int b = 0; b < nB && !s->zWhy && (pF->bEarlyReturn || bExits); b++) ks_rw_walk(aB[b], nd_scan, s);
    free(aOwn);
    free(aThen);
  }
  zWhy = s->zWhy;
done:
  free(aSt);
  return zWhy;
}

/* How many times text z[0..n) holds identifier zWord (not inside a longer name). */
static int nd_count_word(const char *z, size_t n, const char *zWord) {
  size_t m = strlen(zWord);
  int c = 0;
  for (size_t i = 0; i + m <= n; i++) {
    if (memcmp(z + i, zWord, m) != 0) continue;
    int bL = i > 0 && (z[i - 1] == '_' || z[i - 1] == '.' || isalnum((unsigned char)z[i - 1]));
    int bR = i + m < n && (z[i + m] == '_' || isalnum((unsigned char)z[i + m]));
    if (!bL && !bR) c++;
  }
  return c;
}

/* Does text z[0..n) hold identifier zWord (not inside a longer name)? */
static int nd_has_word(const char *z, size_t n, const char *zWord) { return nd_count_word(z, n, zWord) > 0; }

/* The x-derived declarations (statements in mUse, bit k: s->aiDerived[k]) as
 * written, each on a line at indentation zIn plus zPad. */
static void nd_put_derived(ks_buf *pB, const char *zSrc, const ndscan *s, int nIn, const char *zIn, const char *zPad,
                           unsigned mUse) {
  for (int k = 0; k < s->nDerived; k++)
    if (mUse >> k & 1)
      ks_buf_printf(pB, "%.*s%s%.*s\n", nIn, zIn, zPad, (int)(s->aiDerived[k][1] - s->aiDerived[k][0]),
                    zSrc + s->aiDerived[k][0]);
}

/* The x-derived statements lane text z[0..n) needs: those declaring a
 * variable it reads, and those the needed ones read. */
static unsigned nd_derived_needed(const char *zSrc, const ndscan *s, const char *z, size_t n) {
  unsigned m = 0;
  for (int k = s->nDerived - 1; k >= 0; k--)
    for (int v = 0; v < s->nPre && !(m >> k & 1); v++) {
      if (!s->abXDerived[v] || s->aiDerOf[v] != k) continue;
      char *zV = ks_rw_spelling(s->aPre[v]);
      int bUse = zV && nd_has_word(z, n, zV);
      for (int j = k + 1; j < s->nDerived && zV && !bUse; j++)
        bUse = (m >> j & 1) && nd_has_word(zSrc + s->aiDerived[j][0], s->aiDerived[j][1] - s->aiDerived[j][0], zV);
      free(zV);
      if (bUse) m |= 1u << k;
    }
  return m;
}


/* An array window's element for lane l of access a:
 * ks_w_<P>_w<g>[row][l + k - cMin + c * L ...], the row from its row loops'
 * counters. */
static void nd_put_arr_elem(ks_buf *pB, const ndscan *s, const ndwin *pW, const vacc *a, int l, int ry) {
  ks_buf_printf(pB, "ks_w_%s_w%d[", s->aP[pW->iParam].zName, a->iWin);
  if (s->nRY > 1) ks_buf_printf(pB, "%d + ", ry); /* output row ry: the window's rows from its own */
  if (pW->nRow == 0) ks_buf_printf(pB, "%d", pW->bStk ? a->iStk : 0);
  for (int r = 0; r < pW->nRow; r++) {
    ks_buf_printf(pB, "%s(int)((%s) - (%lld))", r ? " + " : "", s->pShape->aLoop[pW->aRow[r]].zVar, pW->aRowInit[r]);
    if (r == 0 && pW->nRow == 2) ks_buf_printf(pB, " * %lld", pW->aRowTrip[1]);
  }
  ks_buf_printf(pB, "][%lld", (long long)l + (pW->bStk ? a->kStk : a->t.k) - pW->cMin);
  for (int c = 0; c < a->t.nCol; c++) {
    ks_buf_printf(pB, " + (%lld) * (int)(%s)", a->t.aColC[c], s->pShape->aLoop[a->t.aCol[c]].zVar);
  }
  ks_buf_printf(pB, "]");
}

/* An array window's row bases, in lane 0's address block: for each value of
 * its row loops' counters, the representative's element moved to cMin (the
 * column loops' counters at their start). */
static void nd_put_arr_bases(ks_buf *pB, const ndscan *s, const ndwin *pW, int g, int nIn, const char *zIn,
                             const char *zSrc) {
  const vacc *a = &s->a[pW->iRep];
  const char *zN = s->aP[pW->iParam].zName;
  long long kInit = a->t.k;
  unsigned long long mLoop = 0, mDone = 0; /* the loops the copied locals name, those declared */
  for (int i = 0; i < s->nLoc; i++)
    if (a->mLocal >> i & 1) mLoop |= s->aLoc[i].mLoop;
  ks_buf_printf(pB, "%.*s      for (int ks_r = 0; ks_r < %lld; ++ks_r) {\n", nIn, zIn, pW->nRows);
  if (s->nRY > 1) /* output row ks_ry > 0 adds its last row only: the others are row ks_r + ks_ry of row 0 */
    ks_buf_printf(pB, "%.*s        if (ks_ry > 0 && ks_r < %lld) continue;\n", nIn, zIn, pW->nRows - 1);
  for (int c = 0; c < pW->nRow + a->t.nCol + 64; c++) {
    int iLoop = c < pW->nRow ? pW->aRow[c] : c < pW->nRow + a->t.nCol ? a->t.aCol[c - pW->nRow] : -1;
    if (iLoop < 0) { /* one the locals name beside the index's: any trip will do, the first */
      iLoop = c - pW->nRow - a->t.nCol;
      if (!(mLoop >> iLoop & 1) || (mDone >> iLoop & 1)) continue;
    }
    if (iLoop < 64) mDone |= 1ULL << iLoop;
    char *zT = NULL, *zL = NULL;
    long long i0 = 0, n = 1;
    nd_loop(s, iLoop, &zT, &zL, &i0, &n);
    if (c >= pW->nRow) { /* a column's loop, or one only the locals name: its first trip */
      if (c < pW->nRow + a->t.nCol) kInit += a->t.aColC[c - pW->nRow] * i0;
      ks_buf_printf(pB, "%.*s        %s %s = (%s)(%lld);\n", nIn, zIn, zT, zL, zT, i0);
    } else if (c == 0 && pW->nRow == 2)
      ks_buf_printf(pB, "%.*s        %s %s = (%s)(%lld + ks_r / %lld);\n", nIn, zIn, zT, zL, zT, i0, pW->aRowTrip[1]);
    else
      ks_buf_printf(pB, "%.*s        %s %s = (%s)(%lld + ks_r %% %lld);\n", nIn, zIn, zT, zL, zT, i0, n);
    ks_buf_printf(pB, "%.*s        (void)%s;\n", nIn, zIn, zL);
    free(zT);
    free(zL);
  }
  if (a->mLocal) {
    ks_buf_printf(pB, "%.*s        ", nIn, zIn);
    nd_put_locals(pB, s, a->mLocal, " ", NULL);
    ks_buf_printf(pB, "\n");
  }
  ks_buf_printf(pB, "%.*s        ks_p_%s_w%d[ks_r%s] = &%s[%.*s]", nIn, zIn, zN, g, s->nRY > 1 ? " + ks_ry" : "",
                a->zBase ? a->zBase : zN, (int)(a->iSubEnd - a->iSubStart), zSrc + a->iSubStart);
  long long d = pW->cMin - kInit;
  if (d) ks_buf_printf(pB, " %c %lld", d < 0 ? '-' : '+', d < 0 ? -d : d);
  ks_buf_printf(pB, ";\n%.*s      }\n", nIn, zIn);
}

/* A stack's row bases (rows along y), in lane 0's address block of output
 * row ks_ry: each row's window base at the first output row; at each later
 * one only its last row's, the others being row 0's rows ks_ry further down. */
static void nd_put_stk_bases(ks_buf *pB, const ndscan *s, const ndwin *pW, int g, int nIn, const char *zIn,
                             const char *zSrc) {
  const char *zN = s->aP[pW->iParam].zName;
  for (int r = 0; r < pW->nRows; r++) {
    const vacc *a = &s->a[pW->aiStkRep[r]];
    int bLast = r == pW->nRows - 1;
    long long d = pW->acStkMin[r] - a->t.k;
    ks_buf_printf(pB, "%.*s      %sks_p_%s_w%d[%d%s] = &%s[%.*s]", nIn, zIn, bLast ? "" : "if (ks_ry == 0) ", zN, g, r,
                  bLast ? " + ks_ry" : "", a->zBase ? a->zBase : zN, (int)(a->iSubEnd - a->iSubStart),
                  zSrc + a->iSubStart);
    if (d) ks_buf_printf(pB, " %c %lld", d < 0 ? '-' : '+', d < 0 ? -d : d);
    ks_buf_printf(pB, ";\n");
  }
}

/* ---- bytes out of words: one PRMT each (nd_prmt_plan) ----
 * A window of bytes copied from a 16-byte vector into `unsigned char` elements
 * costs nvcc about four integer-pipe instructions a byte (masks, shifts and
 * byte inserts, each use masked again): on an 8-bit Sobel half of the
 * integer-pipe work, and that pipe is what bounds it (ncu, H100: 77% busy).
 * `__byte_perm(w, 0, 0x4440 + k)` is byte k of w zero-extended in one PRMT
 * (nd_prmt_sel: sign-extended for signed bytes). It changes a
 * read's type from the byte type to int, so it is used only where every read
 * of the window is promoted to int at once (arithmetic, comparisons): there
 * the value is the same. */

/* The type of W / 4 32-bit words (W bytes: 16, 8 or 4). */
static const char *nd_word_vec(int W) {
  return W == 16 ? "uint4" : W == 8 ? "uint2" : "unsigned";
}

/* Word j of a W-byte vector variable zV of type nd_word_vec(W): `zV.x` ...,
 * or zV itself for a single word. */
static void nd_put_word(ks_buf *pB, const char *zV, int W, int j) {
  ks_buf_printf(pB, "%s%s%.*s", zV, W > 4 ? "." : "", W > 4 ? 1 : 0, azLane + j);
}

/* The PRMT selector of byte k (0..3), zero-extended (bSigned 0) or
 * sign-extended: the upper three bytes replicate bit 7 of byte k. */
static unsigned nd_prmt_sel(int k, int bSigned) {
  unsigned h = bSigned ? (unsigned)(8 | k) : 4u;
  return (unsigned)k | h << 4 | h << 8 | h << 12;
}

/* 1: unsigned char; 2: signed char; else 0 (plain char too: its sign is the
 * host's, which the parse here need not share). */
static int nd_byte_kind(CXType t) {
  switch (clang_getCanonicalType(t).kind) {
  case CXType_UChar:
    return 1;
  case CXType_SChar:
    return 2;
  default:
    return 0;
  }
}

/* Any byte type, plain char included (a read's own loads, nd_prmt_visit). */
static int nd_is_byte(CXType t) {
  enum CXTypeKind k = clang_getCanonicalType(t).kind;
  return k == CXType_UChar || k == CXType_SChar || k == CXType_Char_U || k == CXType_Char_S;
}

/* Is c a conversion to int (the promotion, implicit, or a cast written)? */
static int nd_to_int(CXCursor c) {
  enum CXCursorKind e = clang_getCursorKind(c);
  return clang_getCanonicalType(clang_getCursorType(c)).kind == CXType_Int &&
         (e == CXCursor_UnexposedExpr || e == CXCursor_CStyleCastExpr);
}

/* Each read of a window (its extent an access's: `in[i]`, `__ldg(&in[i])`, or
 * the promotion around it, which comes first in the walk) is converted to int
 * at once, past the loads of the byte itself; else its window keeps bytes
 * (s->abPrmtWin cleared). */
static int nd_prmt_visit(CXCursor c, const CXCursor *aAnc, int nAnc, void *pArg) {
  ndscan *s = pArg;
  unsigned cs, ce;
  int bHit = 0;
  if (ks_ast_extent(s->pTu, c, &cs, &ce) < 0) return 0;
  for (int i = 0; i < s->n; i++) {
    const vacc *a = &s->a[i];
    if (a->iStart != cs || a->iEnd != ce || a->iWin < 0 || !s->abPrmtWin[a->iWin]) continue;
    bHit = 1;
    if (!nd_is_byte(clang_getCursorType(c))) { /* the node of that extent is already a conversion */
      if (!nd_to_int(c)) s->abPrmtWin[a->iWin] = 0;
      continue;
    }
    int j = nAnc - 1;
    while (j > 0 && nd_is_byte(clang_getCursorType(aAnc[j])) && clang_getCursorKind(aAnc[j]) == CXCursor_UnexposedExpr)
      j--;
    if (j <= 0 || !nd_to_int(aAnc[j])) s->abPrmtWin[a->iWin] = 0;
  }
  return bHit;
}

/* Which windows of 1-byte integers take their bytes by PRMT into int: those
 * (array or vector) every read of which is promoted to int at once. */
static void nd_prmt_plan(ndscan *s) {
  memset(s->abPrmtWin, 0, sizeof s->abPrmtWin);
  for (int g = 0; g < s->nWin; g++) {
    CXType t = clang_getPointeeType(clang_getCursorType(s->aP[s->aWin[g].iParam].decl));
    s->abPrmtWin[g] = (unsigned char)nd_byte_kind(t);
  }
  ks_rw_walk(s->kernel, nd_prmt_visit, s);
}

/* ---- integer sums of window reads regrouped (nd_sums_plan, sums=paired) ----
 * nvcc keeps a sum in the order written (`-a + c - 2 * b + 2 * d - e + f` over
 * a 3x3 window): each lane computes its own six terms. Written as differences
 * of two reads of one row with opposite weights (`(c - a) + 2 * (d - b) + (f -
 * e)`), each difference is the same expression in every output row that reads
 * that row (rows along y), and differences in one column (`(g - a)`) the same
 * in every lane that reads that column, so nvcc computes them once: on the
 * corpus Sobel with rows=4, 12% fewer PTX instructions (1666 to 1474; as a
 * hand-written kernel of this form, 1390 to 1190). The rest is grouped by
 * column. Only where no partial sum in any order can overflow (int sums of
 * reads of at most 16 bits and literals, their weights literals, the
 * bound below INT_MAX): the value is then the same. */

typedef struct nd_flat {
  ndscan *s;
  ndlin *pL;
  enum CXTypeKind eT;   /* the sum's type */
  long long nBound;     /* the largest magnitude any partial sum can take */
  int bBad;
} nd_flat;

static int nd_int_lit(CXCursor c, long long *pV) {
  c = ks_rw_strip(c);
  if (clang_getCursorKind(c) != CXCursor_IntegerLiteral) return 0;
  CXEvalResult r = clang_Cursor_Evaluate(c);
  int b = r && clang_EvalResult_getKind(r) == CXEval_Int;
  if (b) *pV = clang_EvalResult_getAsLongLong(r);
  if (r) clang_EvalResult_dispose(r);
  return b && *pV >= -(1 << 20) && *pV <= (1 << 20);
}

/* A term k * c: a literal, or a window read of an integer of at most 16
 * bits (converted to the sum's type). */
static void nd_lin_leaf(nd_flat *w, CXCursor c, long long k) {
  ndscan *s = w->s;
  long long v;
  unsigned cs, ce;
  int i = 0;
  if (nd_int_lit(c, &v)) {
    i = -1;
    k *= v;
    v = 1;
  } else {
    CXCursor b = ks_rw_strip(c);
    if (ks_ast_extent(s->pTu, b, &cs, &ce) < 0) goto bad;
    while (i < s->n && !(s->a[i].iStart == cs && s->a[i].iEnd == ce)) i++;
    if (i >= s->n || s->a[i].iWin < 0 || s->a[i].t.nCol || s->aWin[s->a[i].iWin].nRow) goto bad;
    CXType t = clang_getCanonicalType(clang_getCursorType(b));
    long long nSize = clang_Type_getSizeOf(t);
    if (!ks_rw_is_integer_type(t) && !nd_is_byte(t) && t.kind != CXType_Short && t.kind != CXType_UShort) goto bad;
    if (nSize < 1 || nSize > 2) goto bad;
    v = (1LL << (8 * nSize)) - 1;
  }
  if (k == 0) return; /* `0 * in[i]`: no term (a zero weight would make a column's gcd 0) */
  if (w->pL->nT >= ND_LIN_TERMS) goto bad;
  w->pL->aiAcc[w->pL->nT] = i;
  w->pL->aC[w->pL->nT++] = k;
  w->nBound += (k < 0 ? -k : k) * (v < 0 ? -v : v);
  if (w->nBound > 0x7fffffffLL) goto bad;
  return;
bad:
  w->bBad = 1;
}

/* The terms of c (weight k): through parentheses, + and -, negation, and
 * products with a literal, every node of the sum's type. */
static void nd_lin_flatten(nd_flat *w, CXCursor c, long long k) {
  CXCursor a[2];
  while (!w->bBad && clang_getCursorKind(c) == CXCursor_ParenExpr && ks_rw_kids(c, a, 2) == 1) c = a[0];
  if (w->bBad) return;
  if (clang_getCanonicalType(clang_getCursorType(c)).kind != w->eT || k < -(1 << 20) || k > (1 << 20)) {
    w->bBad = 1;
    return;
  }
  enum CXCursorKind e = clang_getCursorKind(c);
  int n = ks_rw_kids(c, a, 2);
  long long v;
  if (e == CXCursor_BinaryOperator && n == 2) {
    enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(c);
    if (op == CXBinaryOperator_Add || op == CXBinaryOperator_Sub) {
      nd_lin_flatten(w, a[0], k);
      nd_lin_flatten(w, a[1], op == CXBinaryOperator_Add ? k : -k);
      return;
    }
    if (op == CXBinaryOperator_Mul && (nd_int_lit(a[0], &v) || nd_int_lit(a[1], &v))) {
      nd_lin_flatten(w, nd_int_lit(a[0], &v) ? a[1] : a[0], k * v);
      return;
    }
  }
  if (e == CXCursor_UnaryOperator && n == 1) {
    enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(c);
    if (op == CXUnaryOperator_Minus || op == CXUnaryOperator_Plus) {
      nd_lin_flatten(w, a[0], op == CXUnaryOperator_Minus ? -k : k);
      return;
    }
  }
  nd_lin_leaf(w, c, k);
}

/* A term's column (its constant along x) and row (its window, its row in a
 * stack of rows): the keys the regrouping sorts by. */
static long long nd_lin_col(const ndscan *s, int i) {
  const vacc *a = &s->a[i];
  return s->aWin[a->iWin].bStk ? a->kStk : a->t.k;
}

static long long nd_lin_row(const ndscan *s, int i) {
  const vacc *a = &s->a[i];
  return (long long)a->iWin * 1024 + (s->aWin[a->iWin].bStk ? a->iStk : 0);
}

/* Do two reads share a column, or a row with opposite weights (else nothing
 * is shared)? */
static int nd_lin_shares(const ndscan *s, const ndlin *pL) {
  for (int i = 0; i < pL->nT; i++)
    for (int j = i + 1; j < pL->nT; j++)
      if (pL->aiAcc[i] >= 0 && pL->aiAcc[j] >= 0 &&
          (nd_lin_col(s, pL->aiAcc[i]) == nd_lin_col(s, pL->aiAcc[j]) ||
           (pL->aC[i] == -pL->aC[j] && nd_lin_row(s, pL->aiAcc[i]) == nd_lin_row(s, pL->aiAcc[j]))))
        return 1;
  return 0;
}

static int nd_sums_visit(CXCursor c, const CXCursor *aAnc, int nAnc, void *pArg) {
  (void)aAnc;
  (void)nAnc;
  ndscan *s = pArg;
  unsigned cs, ce;
  enum CXTypeKind eT = clang_getCanonicalType(clang_getCursorType(c)).kind;
  if (clang_getCursorKind(c) != CXCursor_BinaryOperator || s->nLin >= ND_LIN_MAX ||
      eT != CXType_Int || /* the text written is int whatever the sum's own width (`0L + ...`) */
      (clang_getCursorBinaryOperatorKind(c) != CXBinaryOperator_Add &&
       clang_getCursorBinaryOperatorKind(c) != CXBinaryOperator_Sub) ||
      ks_ast_extent(s->pTu, c, &cs, &ce) < 0 || cs < s->iBodyStart)
    return 0;
  nd_flat w = {s, &s->aLin[s->nLin], eT, 0, 0};
  memset(w.pL, 0, sizeof *w.pL);
  nd_lin_flatten(&w, c, 1);
  if (w.bBad || !nd_lin_shares(s, w.pL)) return 0; /* its parts may still be such sums */
  w.pL->iStart = cs;
  w.pL->iEnd = ce;
  s->nLin++;
  return 1;
}

/* The body's integer sums of window reads to regroup by column (the walk is
 * in source order, so s->aLin is by position and no two overlap). */
static void nd_sums_plan(ndscan *s, CXCursor body) {
  s->nLin = 0;
  ks_rw_walk(body, nd_sums_visit, s);
}

/* An array window's loads: per row, the whole vectors (when the row is
 * aligned) and the rest element by element. */
static void nd_put_arr_fill(ks_buf *pB, const ndscan *s, const vplan *pPlan, const ndwin *pW, int g, int nIn,
                            const char *zIn) {
  const char *zN = s->aP[pW->iParam].zName, *zT = s->aP[pW->iParam].zElemType, *zVec = pPlan->azVec[pW->iParam];
  int W = pPlan->nLanes;
  long long nCols = pW->cMax - pW->cMin + W, a0 = pW->cAnchor - pW->cMin, a1 = a0 + (long long)pW->nChunk * W;
  long long nRows = pW->nRows + s->nRY - 1;
  const int eP = s->abPrmtWin[g]; /* bytes by PRMT into int (nd_prmt_plan) */
  ks_buf_printf(pB, "%.*s      %s ks_w_%s_w%d[%lld][%lld];\n", nIn, zIn, eP ? "int" : zT, zN, g, nRows, nCols);
  ks_buf_printf(pB, "%.*s      #pragma unroll\n%.*s      for (int ks_r = 0; ks_r < %lld; ++ks_r) {\n", nIn, zIn, nIn,
                zIn, nRows);
  ks_buf_printf(pB, "%.*s        const %s *ks_b = ks_p_%s_w%d[ks_r];\n", nIn, zIn, zT, zN, g);
  if (pW->nChunk) {
    ks_buf_printf(pB, "%.*s        if ((unsigned long long)(const void *)(ks_b + %lld) %% %d == 0) {\n", nIn, zIn, a0,
                  pPlan->anAlign[pW->iParam]);
    for (int k = 0; k < pW->nChunk; k++) {
      long long c0 = a0 + (long long)k * W;
      if (eP) { /* the words loaded as such: a pack of bytes copied to words is rebuilt from bytes */
        ks_buf_printf(pB, "%.*s          { const %s ks_v = *reinterpret_cast<const %s *>(ks_b + %lld); const unsigned ks_u[%d] = {",
                      nIn, zIn, nd_word_vec(W), nd_word_vec(W), c0, W / 4);
        for (int j = 0; j < W / 4; j++) {
          if (j) ks_buf_printf(pB, ", ");
          nd_put_word(pB, "ks_v", W, j);
        }
        /* nd_prmt_sel(k) = nd_prmt_sel(0) + k * (nd_prmt_sel(1) - nd_prmt_sel(0)) for k < 4 */
        unsigned s0 = nd_prmt_sel(0, eP == 2), sStep = nd_prmt_sel(1, eP == 2) - s0;
        ks_buf_printf(pB,
                      "};\n%.*s            #pragma unroll\n%.*s            for (int ks_q = 0; ks_q < %d; ++ks_q) "
                      "ks_w_%s_w%d[ks_r][%lld + ks_q] = (int)__byte_perm(ks_u[ks_q / 4], 0u, 0x%xu + 0x%xu * "
                      "(unsigned)(ks_q %% 4)); }\n",
                      nIn, zIn, nIn, zIn, W, zN, g, c0, s0, sStep);
      }
      else
        ks_buf_printf(pB,
                      "%.*s          { const %s ks_v = *reinterpret_cast<const %s *>(ks_b + %lld); "
                      "memcpy(&ks_w_%s_w%d[ks_r][%lld], &ks_v, sizeof ks_v); }\n",
                      nIn, zIn, zVec, zVec, c0, zN, g, c0);
    }
    ks_buf_printf(pB, "%.*s          #pragma unroll\n%.*s          for (int ks_j = 0; ks_j < %lld; ++ks_j) "
                      "ks_w_%s_w%d[ks_r][ks_j] = ks_b[ks_j];\n",
                  nIn, zIn, nIn, zIn, a0, zN, g);
    ks_buf_printf(pB, "%.*s          #pragma unroll\n%.*s          for (int ks_j = %lld; ks_j < %lld; ++ks_j) "
                      "ks_w_%s_w%d[ks_r][ks_j] = ks_b[ks_j];\n",
                  nIn, zIn, nIn, zIn, a1, nCols, zN, g);
    ks_buf_printf(pB, "%.*s        } else {\n", nIn, zIn);
  }
  ks_buf_printf(pB, "%.*s          #pragma unroll\n%.*s          for (int ks_j = 0; ks_j < %lld; ++ks_j) "
                    "ks_w_%s_w%d[ks_r][ks_j] = ks_b[ks_j];\n",
                nIn, zIn, nIn, zIn, nCols, zN, g);
  if (pW->nChunk) ks_buf_printf(pB, "%.*s        }\n", nIn, zIn);
  ks_buf_printf(pB, "%.*s      }\n", nIn, zIn);
}

/* Element r (from the window's base) of window g of buffer zName: lane r % W
 * of its vector r / W (ks_v_<P>_w<g>_<k>), or the scalar ks_s_<P>_w<g>_<m> (m:
 * from the window's first element). zVec NULL: the scalar's name. */
static void nd_win_name(ks_buf *pB, const char *zVec, const char *zName, const ndwin *pW, int g, long long r, int W) {
  if (zVec && r >= 0 && r < (long long)pW->nChunk * W) {
    char zV[160];
    snprintf(zV, sizeof zV, "%s_w%d_%lld", zName, g, r / W);
    put_lane(pB, zVec, zV, (int)(r % W), NULL);
  } else
    ks_buf_printf(pB, "ks_s_%s_w%d_%lld", zName, g, r + pW->cAnchor - pW->cMin);
}

/* Lane l's element of windowed access a. */
static void nd_put_win_elem(ks_buf *pB, const ndscan *s, const vplan *pPlan, const vacc *a, int l, int ry) {
  const ndwin *pW = &s->aWin[a->iWin];
  if (pW->bArr) {
    nd_put_arr_elem(pB, s, pW, a, l, ry);
    return;
  }
  long long r = a->t.k + l - pW->cAnchor;
  int W = pPlan->nLanes;
  if (s->abPrmtWin[a->iWin] && r >= 0 && r < (long long)pW->nChunk * W) { /* its word's byte, by PRMT (nd_prmt_plan) */
    int k = (int)(r % W);
    ks_buf_printf(pB, "((int)__byte_perm(ks_u_%s_w%d_%lld[%d], 0u, 0x%xu))", s->aP[a->iParam].zName, a->iWin, r / W,
                  k / 4, nd_prmt_sel(k % 4, s->abPrmtWin[a->iWin] == 2));
    return;
  }
  nd_win_name(pB, pPlan->azVec[a->iParam], s->aP[a->iParam].zName, pW, a->iWin, r, W);
}

static long long nd_gcd(long long a, long long b) {
  a = a < 0 ? -a : a;
  b = b < 0 ? -b : b;
  while (b) {
    long long t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/* ` + k * X`, ` - X`, ... (bFirst: `-k * X`, `X`) with X lane l's element of read i,
 * or (i < 0) the literal k itself. */
/* Weight k's sign (`-` first, else ` - ` / ` + `) and its magnitude as a factor (`3 * `; none for 1). */
static void nd_put_weight(ks_buf *pB, long long k, int bFirst) {
  long long m = k < 0 ? -k : k;
  ks_buf_printf(pB, "%s", bFirst ? (k < 0 ? "-" : "") : (k < 0 ? " - " : " + "));
  if (m != 1) ks_buf_printf(pB, "%lld * ", m);
}

static void nd_put_lin_term(ks_buf *pB, const ndscan *s, const vplan *pPlan, int i, long long k, int bFirst, int l,
                            int ry) {
  if (i < 0) {
    ks_buf_printf(pB, "%s%lld", bFirst ? (k < 0 ? "-" : "") : (k < 0 ? " - " : " + "), k < 0 ? -k : k);
    return;
  }
  nd_put_weight(pB, k, bFirst);
  nd_put_win_elem(pB, s, pPlan, &s->a[i], l, ry);
}

/* Sum pL of lane l, row ry, regrouped: first the differences of two reads of
 * one row with opposite weights (`(c - a) + 2 * (d - b)`: the same difference
 * in every output row that reads that row), then those of one column (`(g -
 * a)`: the same in every lane that reads that column), then the rest by column
 * (each column's weights in lowest terms, the first positive), the literals
 * last. The reads in row, then column order, so that every lane and row
 * writes the same text for the same elements. */
static void nd_put_lin(ks_buf *pB, const ndscan *s, const vplan *pPlan, const ndlin *pL, int l, int ry) {
  int aOrd[ND_LIN_TERMS], n = 0, bFirst = 1;
  unsigned char abUsed[ND_LIN_TERMS] = {0};
  long long kLit = 0, aCol[ND_LIN_TERMS], aRow[ND_LIN_TERMS];
  for (int t = 0; t < pL->nT; t++) {
    if (pL->aiAcc[t] < 0) {
      kLit += pL->aC[t];
      continue;
    }
    const long long c = nd_lin_col(s, pL->aiAcc[t]), r = nd_lin_row(s, pL->aiAcc[t]);
    int j = n++;
    for (; j > 0 && (aRow[j - 1] > r || (aRow[j - 1] == r && aCol[j - 1] > c)); j--)
      aOrd[j] = aOrd[j - 1], aRow[j] = aRow[j - 1], aCol[j] = aCol[j - 1];
    aOrd[j] = t, aRow[j] = r, aCol[j] = c;
  }
  ks_buf_printf(pB, "(");
  for (int bySame = 0; bySame < 2; bySame++) /* 0: pairs in a row, 1: pairs in a column */
    for (int a = 0; a < n; a++) {
      if (abUsed[a] || pL->aC[aOrd[a]] <= 0) continue;
      int b = 0;
      for (; b < n; b++)
        if (!abUsed[b] && b != a && pL->aC[aOrd[b]] == -pL->aC[aOrd[a]] &&
            (bySame ? aCol[b] == aCol[a] : aRow[b] == aRow[a]))
          break;
      if (b == n) continue;
      abUsed[a] = abUsed[b] = 1;
      nd_put_weight(pB, pL->aC[aOrd[a]], bFirst);
      ks_buf_printf(pB, "(");
      nd_put_win_elem(pB, s, pPlan, &s->a[pL->aiAcc[aOrd[a]]], l, ry);
      ks_buf_printf(pB, " - ");
      nd_put_win_elem(pB, s, pPlan, &s->a[pL->aiAcc[aOrd[b]]], l, ry);
      ks_buf_printf(pB, ")");
      bFirst = 0;
    }
  for (int a = 0; a < n; a++) { /* the rest, a column at a time */
    if (abUsed[a]) continue;
    int nG = 0, aG[ND_LIN_TERMS];
    long long g = 0;
    for (int b = a; b < n; b++)
      if (!abUsed[b] && aCol[b] == aCol[a]) aG[nG++] = b, g = nd_gcd(g, pL->aC[aOrd[b]]), abUsed[b] = 1;
    if (nG == 1) {
      nd_put_lin_term(pB, s, pPlan, pL->aiAcc[aOrd[a]], pL->aC[aOrd[a]], bFirst, l, ry);
    } else {
      if (pL->aC[aOrd[a]] < 0) g = -g;
      nd_put_weight(pB, g, bFirst);
      ks_buf_printf(pB, "(");
      for (int t = 0; t < nG; t++)
        nd_put_lin_term(pB, s, pPlan, pL->aiAcc[aOrd[aG[t]]], pL->aC[aOrd[aG[t]]] / g, t == 0, l, ry);
      ks_buf_printf(pB, ")");
    }
    bFirst = 0;
  }
  if (kLit || bFirst) nd_put_lin_term(pB, s, pPlan, -1, kLit, bFirst, l, ry);
  ks_buf_printf(pB, ")");
}

/* The proven conditions, by position, no two overlapping nor holding an
 * access (those are left as written); their count. */
static int nd_known_conds(const ndscan *s, ndknown *aK, int nMax) {
  int n = 0;
  for (int i = 0; i < s->n; i++) {
    const vacc *v = &s->a[i];
    if (v->iParam >= 64 || !s->abStencil[v->iParam] || !v->bCond || !v->bCondLanes || v->bDead || v->iWin < 0)
      continue;
    for (int c = 0; c < v->nCond && n < nMax; c++) {
      unsigned cs, ce;
      if (ks_ast_extent(s->pTu, v->aCond[c], &cs, &ce) < 0 || ce <= cs) continue;
      int bSkip = 0;
      for (int j = 0; j < s->n && !bSkip; j++) bSkip = s->a[j].iStart < ce && s->a[j].iEnd > cs;
      for (int k = 0; k < n && !bSkip; k++) bSkip = aK[k].iStart < ce && aK[k].iEnd > cs;
      if (bSkip) continue;
      int k = n++;
      for (; k > 0 && aK[k - 1].iStart > cs; k--) aK[k] = aK[k - 1];
      aK[k].iStart = cs, aK[k].iEnd = ce, aK[k].bTrue = !v->abNeg[c];
    }
  }
  return n;
}

/* A store on some paths only whose every condition the lanes' test proves
 * (s->aKnown: the vector path writes it `true || (C)`) runs on every lane
 * there, as a store of the body itself does (bTop): either writes the whole
 * output vector, so it need not be loaded first to keep lanes the body
 * leaves unwritten (buffer_roles), whatever other stores of it are
 * conditional, unless the body also reads it. */
static void nd_proven_stores(const ndscan *s, vplan *pPlan) {
  int abRead[64] = {0}, abWhole[64] = {0};
  for (int i = 0; i < s->n; i++) {
    const vacc *v = &s->a[i];
    if (v->iParam >= 64) continue;
    if (v->eUse & KS_RW_READ) abRead[v->iParam] = 1;
    if (v->eUse != KS_RW_WRITE) continue;
    int bWhole = v->bTop || (v->bCond && v->bCondLanes && v->iLoop < 0);
    for (int c = 0; c < v->nCond && bWhole && !v->bTop; c++) {
      unsigned cs, ce;
      int bKnown = 0;
      if (ks_ast_extent(s->pTu, v->aCond[c], &cs, &ce) < 0) break;
      for (int k = 0; k < s->nKnown && !bKnown; k++)
        bKnown = s->aKnown[k].iStart == cs && s->aKnown[k].iEnd == ce && s->aKnown[k].bTrue == !v->abNeg[c];
      bWhole = bKnown;
    }
    if (bWhole) abWhole[v->iParam] = 1;
  }
  for (int i = 0; i < s->nP && i < 64; i++)
    if (pPlan->abStore[i] && abWhole[i] && !abRead[i]) pPlan->abLoad[i] = 0;
}

/* Lane l's body: P[IDX] -> ks_v_P.<lane>, the proven conditions their
 * values (s->aKnown), the leading declarations in mSkip (bit v:
 * s->aiLead[v]) left out. Every caller's text runs under ks_all. */
static void nd_lane_text(ks_buf *pLane, const char *zSrc, const ndscan *s, const ndform *f, const vplan *pPlan, int l,
                         int ry, unsigned mSkip, unsigned iEnd) {
  unsigned iPos = f->iBodyStart;
  int iA = 0, iK = 0, iL = 0;
  const ndknown *aK = s->aKnown;
  const int nK = s->nKnown;
  ks_buf_clear(pLane);
  while (iPos < iEnd) {
    unsigned iNext = iEnd;
    int iSkip = -1;
    unsigned iSkipEnd = 0;
    for (int v = 0; v < s->nLead; v++)
      if ((mSkip >> v & 1) && s->aiLead[v][0] >= iPos && s->aiLead[v][0] < iNext)
        iNext = s->aiLead[v][0], iSkipEnd = s->aiLead[v][1], iSkip = v;
    for (int e = 0; e < f->nSkip; e++) /* an exit's statement: no lane of the vector path takes it */
      if (f->aiSkip[e][0] >= iPos && f->aiSkip[e][0] < iNext) iNext = f->aiSkip[e][0], iSkipEnd = f->aiSkip[e][1], iSkip = 0;
    while (iA < s->n && s->a[iA].iStart < iPos) iA++;
    while (iK < nK && aK[iK].iStart < iPos) iK++;
    if (iK < nK && aK[iK].iEnd <= iEnd && aK[iK].iStart < iNext &&
        (iA >= s->n || aK[iK].iStart < s->a[iA].iStart)) {
      ks_buf_append(pLane, zSrc + iPos, aK[iK].iStart - iPos);
      /* `false && (C)`: folded away by the compiler, C kept for the reader (and its
       * names used: no unused-variable warning) */
      const int bParen = aK[iK].iStart > 0 && zSrc[aK[iK].iStart - 1] == '(' && zSrc[aK[iK].iEnd] == ')';
      ks_buf_printf(pLane, "%s%s (%.*s)%s", bParen ? "" : "(", aK[iK].bTrue ? "true ||" : "false &&",
                    (int)(aK[iK].iEnd - aK[iK].iStart), zSrc + aK[iK].iStart, bParen ? "" : ")");
      iPos = aK[iK++].iEnd;
      continue;
    }
    while (iL < s->nLin && s->aLin[iL].iStart < iPos) iL++;
    if (iL < s->nLin && s->aLin[iL].iEnd <= iEnd && s->aLin[iL].iStart < iNext &&
        (iA >= s->n || s->aLin[iL].iStart <= s->a[iA].iStart)) { /* a sum regrouped by column */
      ks_buf_append(pLane, zSrc + iPos, s->aLin[iL].iStart - iPos);
      nd_put_lin(pLane, s, pPlan, &s->aLin[iL], l, ry);
      iPos = s->aLin[iL++].iEnd;
      continue;
    }
    if (iA < s->n && s->a[iA].iStart < iNext) {
      ks_buf_append(pLane, zSrc + iPos, s->a[iA].iStart - iPos);
      if (s->a[iA].iWin >= 0) nd_put_win_elem(pLane, s, pPlan, &s->a[iA], l, ry);
      else put_lane(pLane, pPlan->azVec[s->a[iA].iParam], s->aP[s->a[iA].iParam].zName, l, NULL);
      iPos = s->a[iA++].iEnd;
      continue;
    }
    ks_buf_append(pLane, zSrc + iPos, iNext - iPos);
    iPos = iSkip >= 0 ? iSkipEnd : iNext;
  }
}

/* Lane l's text of the body up to iEnd (nd_lane_text), less the leading
 * declarations nothing else in it reads (nor zAlso, when given), until none
 * is left: nvcc would warn of them. */
static void nd_lane_text_used(ks_buf *pLane, const char *zSrc, const ndscan *s, const ndform *f, const vplan *pPlan,
                              int l, int ry, unsigned iEnd, const char *zAlso) {
  unsigned mSkip = 0;
  for (;;) {
    nd_lane_text(pLane, zSrc, s, f, pPlan, l, ry, mSkip, iEnd);
    const char *z = ks_buf_cstr(pLane);
    size_t n = strlen(z);
    unsigned mMore = 0;
    for (int v = 0; v < s->nLead; v++)
      if (!(mSkip >> v & 1) && s->aiLead[v][1] > s->aiLead[v][0] && s->azLead[v] &&
          nd_count_word(z, n, s->azLead[v]) == 1 && !(zAlso && nd_has_word(zAlso, strlen(zAlso), s->azLead[v])))
        mMore |= 1u << v;
    for (int v = 0; v < s->nLead; v++) /* a statement declaring several goes only when none of them is read */
      for (int u = 0; u < s->nLead && (mMore >> v & 1); u++)
        if (s->aiLead[u][0] == s->aiLead[v][0] && !((mSkip | mMore) >> u & 1)) mMore &= ~(1u << v);
    if (!mMore) return;
    mSkip |= mMore;
  }
}

/* The body once per lane of output row ry, each copy in its own block
 * declaring its x (and, with rows along y, its y). */
static void nd_put_lanes(ks_buf *pB, const char *zSrc, const ndscan *s, const ndform *f, const vplan *pPlan,
                         int ry, int nIn, const char *zIn) {
  ks_buf lane = KS_BUF_INIT;
  for (int l = 0; l < pPlan->nLanes; l++) {
    nd_lane_text_used(&lane, zSrc, s, f, pPlan, l, ry, f->iBodyEnd, NULL);
    const char *zL = ks_buf_cstr(&lane);
    size_t nL = strlen(zL);
    while (*zL == ' ' || *zL == '\n' || *zL == '\t') zL++, nL--;
    while (nL > 0 && (zL[nL - 1] == ' ' || zL[nL - 1] == '\n' || zL[nL - 1] == '\t')) nL--;
    ks_buf_printf(pB, "%.*s      {\n", nIn, zIn);
    unsigned mDer = nd_derived_needed(zSrc, s, zL, nL);
    if (s->nRY > 1 && (mDer || nd_has_word(zL, nL, f->zY)))
      ks_buf_printf(pB, "%.*s        %s %s = (%s)(ks_y0 + %d);\n", nIn, zIn, f->zYType, f->zY, f->zYType, ry);
    if (mDer || nd_has_word(zL, nL, f->zX)) /* the lane's own x, where the body still reads it */
      ks_buf_printf(pB, "%.*s        %s %s = (%s)(ks_x0 + %d);\n", nIn, zIn, f->zXType, f->zX, f->zXType, l);
    nd_put_derived(pB, zSrc, s, nIn, zIn, "        ", mDer);
    ks_buf_printf(pB, "%.*s        %.*s\n%.*s      }\n", nIn, zIn, (int)nL, zL, nIn, zIn);
  }
  ks_buf_free(&lane);
}

/* The windows' loads: each whole vector from the base, and the scalars
 * before and after them. A window's base need not be aligned (rows of an odd
 * pitch, `ex[i * (NY + 1) + j]`, are aligned one row in four): its vectors
 * are then copied element by element, on the vector path all the same, so
 * that such rows do not send every lane to the one-thread-per-element
 * fallback. */
static void nd_put_win_loads(ks_buf *pB, const ndscan *s, const vplan *pPlan, int nIn, const char *zIn) {
  int W = pPlan->nLanes;
  for (int g = 0; g < s->nWin; g++) {
    const ndwin *pW = &s->aWin[g];
    const char *zN = s->aP[pW->iParam].zName, *zVec = pPlan->azVec[pW->iParam];
    if (pW->bArr) {
      nd_put_arr_fill(pB, s, pPlan, pW, g, nIn, zIn);
      continue;
    }
    if (pW->nChunk)
      ks_buf_printf(pB, "%.*s      const bool ks_a_%s_w%d = (unsigned long long)(const void *)ks_p_%s_w%d %% %d == 0;\n",
                    nIn, zIn, zN, g, zN, g, pPlan->anAlign[pW->iParam]);
    for (int k = 0; k < pW->nChunk && !s->abPrmtWin[g]; k++)
      ks_buf_printf(pB,
                    "%.*s      %s ks_v_%s_w%d_%d;\n"
                    "%.*s      if (ks_a_%s_w%d) ks_v_%s_w%d_%d = *reinterpret_cast<const %s *>(ks_p_%s_w%d + %d);\n"
                    "%.*s      else memcpy(&ks_v_%s_w%d_%d, ks_p_%s_w%d + %d, sizeof ks_v_%s_w%d_%d);\n",
                    nIn, zIn, zVec, zN, g, k, nIn, zIn, zN, g, zN, g, k, zVec, zN, g, k * W, nIn, zIn, zN, g, k, zN,
                    g, k * W, zN, g, k);
    for (int k = 0; k < pW->nChunk && s->abPrmtWin[g]; k++) { /* its words, each byte taken by PRMT */
      ks_buf_printf(pB, "%.*s      unsigned ks_u_%s_w%d_%d[%d];\n%.*s      if (ks_a_%s_w%d) { const %s ks_t = "
                        "*reinterpret_cast<const %s *>(ks_p_%s_w%d + %d);",
                    nIn, zIn, zN, g, k, W / 4, nIn, zIn, zN, g, nd_word_vec(W), nd_word_vec(W), zN, g, k * W);
      for (int j = 0; j < W / 4; j++) {
        ks_buf_printf(pB, " ks_u_%s_w%d_%d[%d] = ", zN, g, k, j);
        nd_put_word(pB, "ks_t", W, j);
        ks_buf_printf(pB, ";");
      }
      ks_buf_printf(pB, " }\n%.*s      else memcpy(ks_u_%s_w%d_%d, ks_p_%s_w%d + %d, sizeof ks_u_%s_w%d_%d);\n", nIn,
                    zIn, zN, g, k, zN, g, k * W, zN, g, k);
    }
    for (long long r = pW->cMin - pW->cAnchor; r < pW->cMax - pW->cAnchor + W; r++) {
      if (r >= 0 && r < (long long)pW->nChunk * W) continue;
      ks_buf_printf(pB, "%.*s      const %s ", nIn, zIn, s->aP[pW->iParam].zElemType);
      nd_win_name(pB, NULL, zN, pW, g, r, W);
      ks_buf_printf(pB, " = ks_p_%s_w%d[%lld];\n", zN, g, r);
    }
  }
}

/* Lane 0's addresses: each vector buffer's (abUsed), each window's base. */
static void nd_put_addresses(ks_buf *pB, const ndscan *s, const int *abUsed, int nIn, const char *zIn,
                             const char *zSrc) {
  for (int i = 0; i < s->nP; i++) {
    if (!abUsed[i] || s->abStencil[i]) continue;
    unsigned mLoc = i < 64 ? s->amIdxLocal[i] : 0; /* a local after the leading declarations: declared again */
    ks_buf_printf(pB, "%.*s      %s", nIn, zIn, mLoc ? "{ " : "");
    if (mLoc) nd_put_locals(pB, s, mLoc, " ", NULL), ks_buf_printf(pB, " ");
    ks_buf_printf(pB, "ks_p_%s%s = &%s[%.*s];%s\n", s->aP[i].zName, s->nRY > 1 ? "[ks_ry]" : "",
                  s->azIdxBase[i] ? s->azIdxBase[i] : s->aP[i].zName,
                  (int)(s->aiIdx[i][1] - s->aiIdx[i][0]), zSrc + s->aiIdx[i][0], mLoc ? " }" : "");
  }
  for (int g = 0; g < s->nWin; g++) { /* the window's base: its representative's element moved to the anchor */
    const ndwin *pW = &s->aWin[g];
    const vacc *a = &s->a[pW->iRep];
    const char *zN = s->aP[pW->iParam].zName;
    long long d = pW->cAnchor - a->t.k;
    if (pW->bStk) {
      nd_put_stk_bases(pB, s, pW, g, nIn, zIn, zSrc);
      continue;
    }
    if (pW->bArr) {
      nd_put_arr_bases(pB, s, pW, g, nIn, zIn, zSrc);
      continue;
    }
    ks_buf_printf(pB, "%.*s      ks_p_%s_w%d = &%s[%.*s]", nIn, zIn, zN, g, a->zBase ? a->zBase : zN,
                  (int)(a->iSubEnd - a->iSubStart), zSrc + a->iSubStart);
    if (d) ks_buf_printf(pB, " %c %lld", d < 0 ? '-' : '+', d < 0 ? -d : d);
    ks_buf_printf(pB, ";\n");
  }
}

/* The body's leading declarations for lane 0's addresses (zAddr), less
 * those nothing there reads (an accumulator's `float s = 0.0f;`: nvcc would
 * warn that it is set but never used). */
static void nd_put_lead(ks_buf *pB, const char *zSrc, const ndscan *s, const ndform *f, const vplan *pPlan,
                        const char *zAddr, int nIn, const char *zIn) {
  ks_buf t = KS_BUF_INIT;
  if (s->iLeadEnd <= f->iBodyStart) return;
  nd_lane_text_used(&t, zSrc, s, f, pPlan, 0, 0, s->iLeadEnd, zAddr); /* pure declarations: no access to replace */
  const char *z = ks_buf_cstr(&t);
  while (*z == ' ' || *z == '\n' || *z == '\t') z++;
  size_t n = strlen(z);
  while (n > 0 && (z[n - 1] == ' ' || z[n - 1] == '\n' || z[n - 1] == '\t')) n--;
  if (n) ks_buf_printf(pB, "%.*s      %.*s\n", nIn, zIn, (int)n, z);
  ks_buf_free(&t);
}

/* With rows along y, the declaration of output row zRow's y (`int y = (int)(ks_y0
 * + ks_ry);`, with (void)y: a guard may not read it), at indent zPad. */
static void nd_put_row_y(ks_buf *pB, const ndscan *s, const ndform *f, const char *zRow, int nIn, const char *zIn,
                         const char *zPad) {
  if (s->nRY > 1)
    ks_buf_printf(pB, "%.*s%s%s %s = (%s)(ks_y0 + %s);\n%.*s%s(void)%s;\n", nIn, zIn, zPad, f->zYType, f->zY,
                  f->zYType, zRow, nIn, zIn, zPad, f->zY);
}

/* The lanes' test: every lane (of every row) passes the guard and the
 * conditions its neighbour reads need. */
static void nd_put_lanes_test(ks_buf *pB, const char *zSrc, const ndscan *s, const ndform *f, int W, int nIn,
                              const char *zIn) {
  const char *zNot = f->bEarlyReturn ? "!" : "";
  unsigned mDer = nd_derived_needed(zSrc, s, f->zGuard, strlen(f->zGuard));
  for (int i = 0; i < s->nLaneCond; i++) mDer |= nd_derived_needed(zSrc, s, s->azLaneCond[i], strlen(s->azLaneCond[i]));
  for (int i = 0; i < s->nLaneStmt; i++) mDer |= nd_derived_needed(zSrc, s, s->azLaneStmt[i], strlen(s->azLaneStmt[i]));
  ks_buf_printf(pB, "%.*s  bool ks_all = true;\n", nIn, zIn);
  for (int k = 0; k < s->nDigit; k++) /* the pack's digits (nd_digit_local): a divisor above 0, no row wrapped */
    ks_buf_printf(pB,
                  "%.*s  const long long ks_m%d = (long long)(%s);\n%.*s  const long long ks_q%d = ks_m%d > 0 ? ks_x0 / "
                  "ks_m%d : 0, ks_r%d = ks_m%d > 0 ? ks_x0 %% ks_m%d : 0;\n%.*s  (void)ks_q%d;\n%.*s  ks_all = ks_all && ks_m%d > "
                  "0 && ks_r%d + %d <= ks_m%d;\n",
                  nIn, zIn, k, s->azDigit[k], nIn, zIn, k, k, k, k, k, k, nIn, zIn, k, nIn, zIn, k, k, W, k);
  ndeq aEq[8];
  int nEq = 0, bCorners = !mDer && s->nLaneCond == f->nExitCond && !s->nLaneStmt &&
                         nd_corner_guard(f->guard, f->bEarlyReturn, s, f, aEq, &nEq);
  for (int i = 0; i < f->nExitCond && bCorners; i++) bCorners = nd_corner_guard(f->aExitCond[i], 1, s, f, aEq, &nEq);
  if (bCorners) {
    /* the lanes that pass form a convex set, less the lines of the equalities: the box's corners
       decide (64 tests become 4) */
    if (nEq) ks_buf_printf(pB, "%.*s  bool ks_lt[%d], ks_gt[%d];\n%.*s  for (int ks_q = 0; ks_q < %d; ++ks_q) ks_lt[ks_q] = ks_gt[ks_q] = true;\n",
                           nIn, zIn, nEq, nEq, nIn, zIn, nEq);
    ks_buf_printf(pB, "%.*s  for (int ks_c = 0; ks_c < %d; ++ks_c) { /* the guard's half-planes hold at the corners, so on every lane */\n",
                  nIn, zIn, s->nRY > 1 ? 4 : 2);
    if (s->nRY > 1)
      ks_buf_printf(pB, "%.*s    %s %s = (%s)(ks_y0 + (ks_c >> 1) * %d);\n%.*s    (void)%s;\n", nIn, zIn, f->zYType,
                    f->zY, f->zYType, s->nRY - 1, nIn, zIn, f->zY);
    ks_buf_printf(pB, "%.*s    %s %s = (%s)(ks_x0 + (ks_c & 1) * %d);\n", nIn, zIn, f->zXType, f->zX, f->zXType, W - 1);
    unsigned gs, ge;
    ks_ast_extent(s->pTu, f->guard, &gs, &ge);
    char *zG = nd_corner_text(s, gs, ge, aEq, nEq);
    ks_buf_printf(pB, "%.*s    ks_all = ks_all && %s(%s)", nIn, zIn, zNot, zG ? zG : "false");
    free(zG);
    for (int i = 0; i < f->nExitCond; i++) {
      ks_ast_extent(s->pTu, ks_rw_strip(f->aExitCond[i]), &gs, &ge);
      char *zC = nd_corner_text(s, gs, ge, aEq, nEq);
      ks_buf_printf(pB, " && !(%s)", zC ? zC : "true");
      free(zC);
    }
    ks_buf_printf(pB, ";\n");
    for (int k = 0; k < nEq; k++) { /* A == B on no lane: A < B at every corner, or A > B at every corner */
      char *zA = ks_ast_text(s->pTu, aEq[k].a), *zB = ks_ast_text(s->pTu, aEq[k].b);
      ks_buf_printf(pB, "%.*s    ks_lt[%d] = ks_lt[%d] && (%s) < (%s);\n%.*s    ks_gt[%d] = ks_gt[%d] && (%s) > (%s);\n", nIn,
                    zIn, k, k, zA ? zA : "0", zB ? zB : "0", nIn, zIn, k, k, zA ? zA : "0", zB ? zB : "0");
      free(zA);
      free(zB);
    }
    ks_buf_printf(pB, "%.*s  }\n", nIn, zIn);
    if (nEq) ks_buf_printf(pB, "%.*s  for (int ks_q = 0; ks_q < %d; ++ks_q) ks_all = ks_all && (ks_lt[ks_q] || ks_gt[ks_q]);\n",
                           nIn, zIn, nEq);
    return;
  }
  if (s->nRY > 1) ks_buf_printf(pB, "%.*s  for (int ks_ry = 0; ks_ry < %d; ++ks_ry)\n", nIn, zIn, s->nRY);
  ks_buf_printf(pB, "%.*s  for (int ks_l = 0; ks_l < %d; ++ks_l) {\n", nIn, zIn, W);
  nd_put_row_y(pB, s, f, "ks_ry", nIn, zIn, "    ");
  ks_buf_printf(pB, "%.*s    %s %s = (%s)(ks_x0 + ks_l);\n", nIn, zIn, f->zXType, f->zX, f->zXType);
  nd_put_derived(pB, zSrc, s, nIn, zIn, "    ", mDer);
  ks_buf_printf(pB, "%.*s    ks_all = ks_all && %s(%s)", nIn, zIn, zNot, f->zGuard);
  for (int i = 0; i < s->nLaneCond; i++) ks_buf_printf(pB, " && %s", s->azLaneCond[i]);
  ks_buf_printf(pB, ";\n");
  for (int i = 0; i < s->nLaneStmt; i++) ks_buf_printf(pB, "%.*s    %s\n", nIn, zIn, s->azLaneStmt[i]);
  ks_buf_printf(pB, "%.*s  }\n", nIn, zIn);
}

/* What the warp-shared fallback must know of the fallback's text (the body
 * as the fallback runs it, the guard): the prelude variables it reads, which
 * come from the thread whose output it is (bits of aPre; x, the variables
 * computed from it and, with rows, y are the lane's own); bNo when it reads
 * threadIdx (the guard may: `threadIdx.y != 3`) or another local declared
 * outside that text, calls a function that is not a value (ks_pure_call: the
 * math functions, and helpers of the file that read only their by-value
 * parameters, locals and constants; not one that reads threadIdx, runs a
 * warp primitive or assembly, nor a functor's or another file's), or has
 * inline assembly itself: such a body stays on its own thread. */
typedef struct nd_fb_walk {
  const ndscan *s;
  const ndform *f;
  unsigned aR[10][2]; /* the fallback's text, the guard, the x-derived declarations the lanes repeat */
  int nR;
  unsigned mShfl;
  int bNo;
} nd_fb_walk;

static int nd_fb_in(const nd_fb_walk *w, unsigned a) {
  for (int i = 0; i < w->nR; i++)
    if (a >= w->aR[i][0] && a < w->aR[i][1]) return 1;
  return 0;
}

static enum CXChildVisitResult nd_fb_visit(CXCursor c, CXCursor parent, CXClientData pArg) {
  (void)parent;
  nd_fb_walk *w = pArg;
  const ndscan *s = w->s;
  unsigned a, b;
  if (ks_ast_extent(s->pTu, c, &a, &b) != 0 || !nd_fb_in(w, a)) return CXChildVisit_Recurse;
  enum CXCursorKind e = clang_getCursorKind(c);
  if (e == CXCursor_AsmStmt || e == CXCursor_MSAsmStmt || ks_shape_builtin_ref(c) == 0) w->bNo = 1;
  else if (e == CXCursor_CallExpr && ks_pure_call(c)) w->bNo = 1; /* values only (features/pure.h) */
  else if (e == CXCursor_DeclRefExpr) {
    CXCursor d = clang_getCursorReferenced(c);
    if (clang_getCursorKind(d) != CXCursor_VarDecl) return CXChildVisit_Recurse;
    int iPre = nd_pre_index(s, d), bTab = 0;
    for (int i = 0; i < s->nTab && i < 8; i++) bTab |= clang_equalCursors(d, s->aTab[i]);
    if (iPre >= 0) {
      if (iPre != s->iX && !s->abXDerived[iPre] && s->abTid[iPre] &&
          !(s->nRY > 1 && clang_equalCursors(d, w->f->yDecl)))
        w->mShfl |= 1u << iPre;
    } else if (bTab) {
      if (s->nTab > 8) w->bNo = 1;
    } else {
      unsigned ds, de;
      enum CXCursorKind eP = clang_getCursorKind(clang_getCursorSemanticParent(d));
      int bGlobal = eP == CXCursor_TranslationUnit || eP == CXCursor_Namespace || eP == CXCursor_LinkageSpec;
      if (!bGlobal && (ks_ast_extent(s->pTu, d, &ds, &de) != 0 || !nd_fb_in(w, ds))) w->bNo = 1;
    }
  }
  return w->bNo ? CXChildVisit_Break : CXChildVisit_Recurse;
}

/* Can the warp share the fallback (ks_fallback.cuh)? *pmShfl: the prelude
 * variables to take from the output's thread. */
static int nd_fb_shared(const ndscan *s, const ndform *f, unsigned *pmShfl) {
  nd_fb_walk w;
  memset(&w, 0, sizeof w);
  w.s = s;
  w.f = f;
  w.aR[0][0] = f->iFallStart;
  w.aR[0][1] = f->iFallEnd;
  if (ks_ast_extent(s->pTu, f->guard, &w.aR[1][0], &w.aR[1][1]) != 0) return 0;
  w.nR = 2;
  for (int k = 0; k < s->nDerived && k < 8; k++, w.nR++) { /* `int i = row + x;`: row is the owner's */
    w.aR[w.nR][0] = s->aiDerived[k][0];
    w.aR[w.nR][1] = s->aiDerived[k][1];
  }
  clang_visitChildren(s->kernel, nd_fb_visit, &w);
  *pmShfl = w.mShfl;
  return !w.bNo;
}

/* The warp-shared fallback's rounds (ks_fallback.cuh): each lane of the
 * warp takes output ks_g of the warp's falling-back threads, that thread's
 * ks_x0 (ks_y0) and prelude variables (shadowed in the round's block), from
 * which the caller declares the output's x (y) and writes the guard and
 * body. */
static void nd_put_fallback_warp(ks_buf *pB, const ndscan *s, unsigned mShfl, int W, int nIn, const char *zIn) {
  const int R = s->nRY, T = W * R;
  ks_buf_printf(pB, "%.*s{ /* the warp shares its threads' fallback outputs (ks_fallback.cuh) */\n", nIn, zIn);
  ks_buf_printf(pB, "%.*s  const ks_fb_warp ks_w(!ks_vec && ks_x0 < ks_nx%s, %d);\n", nIn, zIn,
                R > 1 ? " && ks_y0 < ks_ny" : "", T); /* threads past the extent own nothing */
  ks_buf_printf(pB, "%.*s  for (int ks_g0 = 0; ks_g0 < ks_w.tot; ks_g0 += ks_w.cnt) {\n", nIn, zIn);
  ks_buf_printf(pB, "%.*s    const int ks_g = ks_g0 + ks_w.rank, ks_src = ks_w.src(ks_g);\n", nIn, zIn);
  ks_buf_printf(pB, "%.*s    const long long ks_o_x0 = ks_fb_shfl(ks_w.am, ks_x0, ks_src);\n", nIn, zIn);
  if (R > 1) ks_buf_printf(pB, "%.*s    const long long ks_o_y0 = ks_fb_shfl(ks_w.am, ks_y0, ks_src);\n", nIn, zIn);
  for (int i = 0; i < s->nPre; i++)
    if (mShfl >> i & 1) {
      char *zV = ks_rw_spelling(s->aPre[i]);
      ks_buf_printf(pB, "%.*s    const auto ks_f_%s = ks_fb_shfl(ks_w.am, %s, ks_src);\n", nIn, zIn, zV, zV);
      free(zV);
    }
  ks_buf_printf(pB, "%.*s    if (ks_g >= ks_w.tot) continue;\n", nIn, zIn);
  ks_buf_printf(pB, "%.*s    const long long ks_l = ks_g %% %d;\n", nIn, zIn, W);
  if (R > 1) ks_buf_printf(pB, "%.*s    const long long ks_ry = ks_g %% %d / %d;\n", nIn, zIn, T, W);
  ks_buf_printf(pB, "%.*s    if (ks_o_x0 + ks_l >= ks_nx%s) continue;\n", nIn, zIn,
                R > 1 ? " || ks_o_y0 + ks_ry >= ks_ny" : "");
  ks_buf_printf(pB, "%.*s    const long long ks_x0 = ks_o_x0;\n", nIn, zIn);
  if (R > 1) ks_buf_printf(pB, "%.*s    const long long ks_y0 = ks_o_y0;\n", nIn, zIn);
  for (int i = 0; i < s->nPre; i++)
    if (mShfl >> i & 1) {
      char *zV = ks_rw_spelling(s->aPre[i]);
      ks_buf_printf(pB, "%.*s    decltype(%s) %s = ks_f_%s;\n", nIn, zIn, zV, zV, zV);
      free(zV);
    }
}

/* The fallback: the guard and body as written for each x (and y) of the
 * thread below the extent as written, shared by the warp (s->bFbShared,
 * nd_put_fallback_warp) or run by the thread itself. */
static void nd_put_fallback(ks_buf *pB, const char *zSrc, const ndscan *s, const ndform *f, int W, int nIn,
                            const char *zIn) {
  const char *zNot = f->bEarlyReturn ? "!" : "";
  if (s->bFbShared) nd_put_fallback_warp(pB, s, s->mFbShfl, W, nIn, zIn);
  else {
    ks_buf_printf(pB, "%.*sif (!ks_vec) {\n", nIn, zIn);
    if (s->nRY > 1)
      ks_buf_printf(pB, "%.*s  for (long long ks_ry = 0; ks_ry < %d && ks_y0 + ks_ry < ks_ny; ++ks_ry)\n", nIn, zIn,
                    s->nRY);
    ks_buf_printf(pB, "%.*s  for (long long ks_l = 0; ks_l < %d && ks_x0 + ks_l < ks_nx; ++ks_l) {\n", nIn, zIn, W);
  }
  nd_put_row_y(pB, s, f, "ks_ry", nIn, zIn, "    ");
  ks_buf_printf(pB, "%.*s    %s %s = (%s)(ks_x0 + ks_l);\n", nIn, zIn, f->zXType, f->zX, f->zXType);
  nd_put_derived(pB, zSrc, s, nIn, zIn, "    ",
                 nd_derived_needed(zSrc, s, f->zGuard, strlen(f->zGuard)) |
                     nd_derived_needed(zSrc, s, zSrc + f->iFallStart, f->iFallEnd - f->iFallStart));
  ks_buf_printf(pB, "%.*s    if (%s(%s)) {\n%.*s      ", nIn, zIn, zNot, f->zGuard, nIn, zIn);
  {
    unsigned a = f->iFallStart, b = f->iFallEnd;
    while (a < b && (zSrc[a] == ' ' || zSrc[a] == '\n' || zSrc[a] == '\t')) a++;
    while (b > a && (zSrc[b - 1] == ' ' || zSrc[b - 1] == '\n' || zSrc[b - 1] == '\t')) b--;
    for (int r = 0; r < f->nRet; r++) { /* an exit's return goes on to the next lane */
      if (f->aiRet[r] < a || f->aiRet[r] + 6 > b) continue;
      ks_buf_append(pB, zSrc + a, f->aiRet[r] - a);
      ks_buf_printf(pB, "continue");
      a = f->aiRet[r] + 6;
    }
    ks_buf_append(pB, zSrc + a, b - a);
  }
  ks_buf_printf(pB, "\n%.*s    }\n%.*s  }\n%.*s}", nIn, zIn, nIn, zIn, nIn, zIn);
}

/* The vector path's loads of the buffers other than windows, the lanes and
 * the stores, for output row ry (rows along y: each in its own block, at
 * its row's addresses ks_p_<P>[ry]). */
static void nd_put_row_body(ks_buf *pB, const char *zSrc, const ndscan *s, const ndform *f, const vplan *pPlan, int ry,
                            int nIn, const char *zIn) {
  char zR[24] = "";
  if (s->nRY > 1) {
    snprintf(zR, sizeof zR, "[%d]", ry);
    ks_buf_printf(pB, "%.*s      {\n", nIn, zIn);
  }
  for (int i = 0; i < s->nP; i++) {
    const char *zVec = pPlan->azVec[i];
    const char *zN = s->aP[i].zName;
    if (!pPlan->abUsed[i] || s->abStencil[i]) continue;
    if (pPlan->abLoad[i] && s->vs.abNullTest[i])
      ks_buf_printf(pB, "%.*s      const %s ks_v_%s = %s != nullptr ? *reinterpret_cast<const %s *>(ks_p_%s%s) : %s();\n",
                    nIn, zIn, zVec, zN, zN, zVec, zN, zR, zVec);
    else if (pPlan->abLoad[i])
      ks_buf_printf(pB, "%.*s      %s%s ks_v_%s = *reinterpret_cast<const %s *>(ks_p_%s%s);\n", nIn, zIn,
                    pPlan->abStore[i] ? "" : "const ", zVec, zN, zVec, zN, zR);
    else
      ks_buf_printf(pB, "%.*s      %s ks_v_%s;\n", nIn, zIn, zVec, zN);
  }
  nd_put_lanes(pB, zSrc, s, f, pPlan, ry, nIn, zIn);
  for (int i = 0; i < s->nP; i++)
    if (pPlan->abStore[i])
      ks_buf_printf(pB, "%.*s      *reinterpret_cast<%s *>(ks_p_%s%s) = ks_v_%s;\n", nIn, zIn, pPlan->azVec[i],
                    s->aP[i].zName, zR, s->aP[i].zName);
  if (s->nRY > 1) ks_buf_printf(pB, "%.*s      }\n", nIn, zIn);
}

/* The replacement of the guard and body: the lanes' guard, lane 0's
 * addresses, the alignment (and, where the body reads after a store, the
 * disjointness) test, vector loads, the body per lane, vector stores; else the
 * guard and body as written per lane. With rows along y (s->nRY > 1) the
 * same for each of the thread's rows, the windows shared. */
static void nd_put_region(ks_buf *pB, ks_rewrite *p, const ndscan *s, const ndform *f, const vplan *pPlan,
                          int bAliasGuard) {
  const char *zSrc = ks_rewrite_source(p, NULL);
  unsigned nIndent = 0;
  unsigned iLine = ks_rewrite_line_start(p, f->iIfStart, &nIndent);
  const char *zIn = zSrc + iLine;
  int nIn = (int)nIndent, W = pPlan->nLanes, R = s->nRY;
  char zRows[24] = "";
  if (R > 1) snprintf(zRows, sizeof zRows, "[%d]", R);
  ks_buf_printf(pB, "bool ks_vec = false;\n");
  ks_buf_printf(pB, "%.*sif (ks_x0 + %d <= ks_nx", nIn, zIn, W);
  if (R > 1) ks_buf_printf(pB, " && ks_y0 + %d <= ks_ny", R);
  ks_buf_printf(pB, ") {\n");
  nd_put_lanes_test(pB, zSrc, s, f, W, nIn, zIn);
  ks_buf_printf(pB, "%.*s  if (ks_all) {\n", nIn, zIn);
  for (int i = 0; i < s->nP; i++)
    if (pPlan->abUsed[i] && !s->abStencil[i])
      ks_buf_printf(pB, "%.*s    %s%s *ks_p_%s%s;\n", nIn, zIn, pPlan->abStore[i] ? "" : "const ", s->aP[i].zElemType,
                    s->aP[i].zName, zRows);
  for (int g = 0; g < s->nWin; g++) {
    ks_buf_printf(pB, "%.*s    const %s *ks_p_%s_w%d", nIn, zIn, s->aP[s->aWin[g].iParam].zElemType,
                  s->aP[s->aWin[g].iParam].zName, g);
    if (s->aWin[g].bArr) ks_buf_printf(pB, "[%lld]", s->aWin[g].nRows + R - 1);
    ks_buf_printf(pB, ";\n");
  }
  if (R > 1) ks_buf_printf(pB, "%.*s    for (int ks_ry = 0; ks_ry < %d; ++ks_ry) {\n", nIn, zIn, R);
  else ks_buf_printf(pB, "%.*s    {\n", nIn, zIn);
  nd_put_row_y(pB, s, f, "ks_ry", nIn, zIn, "      ");
  ks_buf_printf(pB, "%.*s      %s %s = (%s)ks_x0;\n", nIn, zIn, f->zXType, f->zX, f->zXType);
  ks_buf lead = KS_BUF_INIT, addr = KS_BUF_INIT;
  nd_put_addresses(&addr, s, pPlan->abUsed, nIn, zIn, zSrc);
  nd_put_lead(&lead, zSrc, s, f, pPlan, ks_buf_cstr(&addr), nIn, zIn);
  nd_put_derived(pB, zSrc, s, nIn, zIn, "      ",
                 nd_derived_needed(zSrc, s, ks_buf_cstr(&lead), strlen(ks_buf_cstr(&lead))) |
                     nd_derived_needed(zSrc, s, ks_buf_cstr(&addr), strlen(ks_buf_cstr(&addr))));
  ks_buf_printf(pB, "%s%s", ks_buf_cstr(&lead), ks_buf_cstr(&addr));
  ks_buf_free(&lead);
  ks_buf_free(&addr);
  ks_buf_printf(pB, "%.*s      (void)%s;\n", nIn, zIn, f->zX);
  ks_buf_printf(pB, "%.*s    }\n", nIn, zIn);
  ks_buf_printf(pB, "%.*s    ks_vec = ", nIn, zIn);
  int bFirst = 1;
  for (int i = 0; i < s->nP; i++) {
    if (!pPlan->abUsed[i] || s->abStencil[i]) continue;
    for (int r = 0; r < R; r++) {
      char zR[24] = "";
      if (R > 1) snprintf(zR, sizeof zR, "[%d]", r);
      ks_buf_printf(pB, "%s(unsigned long long)(const void *)ks_p_%s%s %% %d == 0", bFirst ? "" : " && ",
                    s->aP[i].zName, zR, pPlan->anAlign[i]);
      bFirst = 0;
    }
  }
  /* The windows' bases are tested where they are read (nd_put_win_loads;
   * an array's rows one by one in nd_put_arr_fill). */
  if (bFirst) ks_buf_printf(pB, "true");
  if (bAliasGuard) put_apart(pB, pPlan, s->aP, s->nP, "ks_p_%s", nIn, zIn); /* never with rows (nd_rows) */
  ks_buf_printf(pB, ";\n%.*s    if (ks_vec) {\n", nIn, zIn);
  nd_put_win_loads(pB, s, pPlan, nIn, zIn);
  for (int r = 0; r < R; r++) nd_put_row_body(pB, zSrc, s, f, pPlan, r, nIn, zIn);
  ks_buf_printf(pB, "%.*s    }\n%.*s  }\n%.*s}\n", nIn, zIn, nIn, zIn, nIn, zIn);
  nd_put_fallback(pB, zSrc, s, f, W, nIn, zIn);
}

/* ---- the n-dimensional form's launches: the grid's x divided by W ----
 *
 * With the launches as written, three quarters of the threads along x do
 * nothing, which costs about a fifth of the bandwidth (docs/rules/vectorize.md).
 * Each launch `K<<<G, B, ...>>>(args);` becomes
 *     { const dim3 ks_g = (G); K<<<dim3((ks_g.x + W - 1) / W, ks_g.y, ks_g.z), B, ...>>>(args, ks_g.x); }
 * and the kernel takes the original grid's x as a new last parameter ks_gx: its
 * lanes stay below ks_gx * blockDim.x, the x extent the original covered, so no
 * proof that G covers the guard's bound is needed (macros, dim3 variables and
 * helper calls are all fine). The signature changes, so every use of the kernel
 * must be such a launch in this file, and nothing else may see the old one. */

/* Why the launches of kernel k cannot take the divided grid (zBuf holds the
 * reason), or NULL with the launches in *paL / *pnL. */
static const char *nd_shrink_why(ks_rewrite *p, CXCursor k, char *zBuf, size_t nBuf, ks_launch **paL, int *pnL) {
  *paL = NULL;
  *pnL = 0;
  if (clang_getCursorKind(k) == CXCursor_FunctionTemplate)
    return "the kernel is a template (each instantiation would need the new parameter)";
  if (nd_reads_x(k, 1u << KS_ATOM_GDIM)) return "the kernel reads gridDim.x, which the divided grid would change";
  return ks_rw_new_param_why(p, k, zBuf, nBuf, paL, pnL);
}

/* The y index's declaration becomes the thread's first row and the y extent
 * as written (rows along y, nd_rows). */
static int nd_replace_y(ks_rewrite *p, const ndform *f, int R) {
  ks_buf b = KS_BUF_INIT;
  unsigned nIndent = 0;
  unsigned iLine = ks_rewrite_line_start(p, f->iYStart, &nIndent);
  ks_buf_printf(&b, "const long long ks_y0 = (long long)(%s)(%s) * %d;\n%.*sconst long long ks_ny = (long long)ks_gy * "
                    "blockDim.y;",
                f->zYType, f->zYInit, R, (int)nIndent, ks_rewrite_source(p, NULL) + iLine);
  int rc = ks_rewrite_replace(p, f->iYStart, f->iYEnd, ks_buf_cstr(&b));
  ks_buf_free(&b);
  return rc;
}

/* The kernel's new last parameters (ks_gx, and ks_gy with R rows along y)
 * and each launch with the divided grid. */
static int nd_shrink_launches(ks_rewrite *p, CXCursor k, const ks_launch *aL, int nL, int W, int R) {
  ks_tu *pTu = ks_rewrite_tu(p);
  const char *z = pTu->zSrc;
  ks_buf b = KS_BUF_INIT;
  unsigned ps, pe;
  int nArg = clang_Cursor_getNumArguments(k), rc;
  if ((rc = ks_ast_extent(pTu, clang_Cursor_getArgument(k, (unsigned)nArg - 1), &ps, &pe)) < 0) return rc;
  if ((rc = ks_rewrite_replace(p, pe, pe, R > 1 ? ", unsigned int ks_gx, unsigned int ks_gy" : ", unsigned int ks_gx")) <
      0)
    return rc;
  for (int i = 0; i < nL && rc >= 0; i++) {
    const ks_launch *pL = &aL[i];
    unsigned gs = 0, ge = 0, e = pL->iEnd;
    ks_rw_cfg_slot(pTu, pL, 0, &gs, &ge);
    while (z[e] != ';') e++;
    ks_buf_clear(&b);
    char zGy[48] = "ks_g.y";
    if (R > 1) snprintf(zGy, sizeof zGy, "(ks_g.y + %d) / %d", R - 1, R);
    ks_buf_printf(&b, "{ const dim3 ks_g = (%.*s); %.*sdim3((ks_g.x + %d) / %d, %s, ks_g.z)%.*s%sks_g.x%s); }",
                  (int)(ge - gs), z + gs, (int)(gs - pL->iStart), z + pL->iStart, W - 1, W, zGy,
                  (int)(pL->iEnd - 1 - ge), z + ge, pL->nArgs ? ", " : "", R > 1 ? ", ks_g.y" : "");
    rc = ks_rewrite_replace(p, pL->iStart, e + 1, ks_buf_cstr(&b));
    if (rc >= 0) {
      ks_buf_clear(&b);
      if (R > 1)
        ks_buf_printf(&b,
                      "grid x / %d, y / %d (each thread takes %d x of %d rows); the grid's x and y as written go to the "
                      "kernel as ks_gx, ks_gy",
                      W, R, W, R);
      else
        ks_buf_printf(&b, "grid x / %d (each thread takes %d x); the grid's x as written goes to the kernel as ks_gx",
                      W, W);
      rc = ks_rewrite_note(p, pL->iStart, ks_buf_cstr(&b));
    }
  }
  ks_buf_free(&b);
  return rc;
}

/* ---- rows along y: each thread also takes nRY consecutive y ----
 *
 * A window read in a loop whose counter picks the row (`for (i = -2; i <= 2;
 * ++i) ... in[(y + i) * w + x + j]`) moves down one row with y exactly as
 * with the counter. A thread taking rows y0 .. y0 + nRY - 1 then needs the
 * window's rows plus nRY - 1, each loaded once: row r of output row ry at
 * counter i is window row ry + (i - i0). The launches' grid y is divided
 * by nRY and the grid's y as written comes in as ks_gy, so the rows below
 * ks_gy * blockDim.y are exactly those the original computed. */

/* Reads of the built-ins per dimension and kind (ks_shape_builtin). */
typedef struct nd_dim_count {
  int an[3][4];
} nd_dim_count;

static int nd_dim_visit(CXCursor c, const CXCursor *aAnc, int nAnc, void *pArg) {
  (void)aAnc;
  (void)nAnc;
  int d = -1, e = ks_shape_builtin(c, &d);
  if (e >= 0 && e < 4 && d >= 0 && d < 3) ((nd_dim_count *)pArg)->an[d][e]++;
  return 0;
}

static void nd_dim_reads(CXCursor c, nd_dim_count *pN) {
  memset(pN, 0, sizeof *pN);
  nd_dim_visit(c, NULL, 0, pN);
  ks_rw_walk(c, nd_dim_visit, pN);
}

/* Does the kernel read threadIdx.y and blockIdx.y only in y's initializer,
 * and neither gridDim.y (the divided grid changes it) nor any z built-in
 * but blockDim.z? Another thread's row would see this thread's. */
static int nd_rows_builtins_ok(CXCursor k, CXCursor yInit) {
  nd_dim_count nK, nY;
  nd_dim_reads(ks_rw_body(k), &nK);
  nd_dim_reads(yInit, &nY);
  return nY.an[1][KS_ATOM_TID] == 1 && nY.an[1][KS_ATOM_BID] == 1 &&
         nK.an[1][KS_ATOM_TID] == 1 && nK.an[1][KS_ATOM_BID] == 1 && nK.an[1][KS_ATOM_GDIM] == 0 &&
         nK.an[2][KS_ATOM_TID] == 0 && nK.an[2][KS_ATOM_BID] == 0 && nK.an[2][KS_ATOM_GDIM] == 0;
}

/* Monomial m less one occurrence of atom iAtom (it has one). */
static ks_mono nd_mono_less(const ks_mono *m, int iAtom) {
  ks_mono r = *m;
  int j = 0;
  for (int i = 0; i < m->n; i++)
    if (m->a[i] != iAtom || j != i) r.a[j++] = m->a[i];
  r.n = j;
  return r;
}

/* Is index q's value at (y + 1, counter L) its value at (y, L + 1): its
 * terms with the y index (PAR.y) and those with loop iLoop's counter the
 * same once that factor is taken out, neither both in one term nor twice,
 * and nothing else of y or z (a built-in, a digit) in it? */
static int nd_rows_shift_ok(const ks_shape *pS, const ks_poly *q, int iLoop) {
  int iY = -1, iL = iLoop >= 0 && iLoop < pS->nLoop ? pS->aLoop[iLoop].iAtom : -1, nY = 0, nL = 0;
  ks_mono aY[KS_POLY_MAX], aL[KS_POLY_MAX];
  for (int i = 0; i < pS->nAtom; i++)
    if (pS->aAtom[i].eKind == KS_ATOM_PAR && pS->aAtom[i].iDim == 1) iY = i;
  if (iY < 0 || iL < 0 || q->bIrregular || q->bIndirect) return 0;
  for (int t = 0; t < q->n; t++) {
    const ks_mono *m = &q->t[t];
    int cY = 0, cL = 0;
    for (int j = 0; j < m->n; j++) {
      const ks_atom *a = &pS->aAtom[m->a[j]];
      cY += m->a[j] == iY;
      cL += m->a[j] == iL;
      if (a->eKind == KS_ATOM_DERIVED || (a->eKind <= KS_ATOM_PAR && a->eKind != KS_ATOM_BDIM && a->iDim >= 1 &&
                                          m->a[j] != iY))
        return 0;
    }
    if (cY + cL > 1) return 0;
    if (cY) aY[nY++] = nd_mono_less(m, iY);
    if (cL) aL[nL++] = nd_mono_less(m, iL);
  }
  if (nY == 0 || nY != nL) return 0;
  unsigned mUsed = 0;
  for (int i = 0; i < nY; i++) {
    int bFound = 0;
    for (int j = 0; j < nL && !bFound; j++)
      if (!(mUsed >> j & 1) && aY[i].coef == aL[j].coef && aY[i].n == aL[j].n &&
          memcmp(aY[i].a, aL[j].a, sizeof(int) * (size_t)aY[i].n) == 0)
        mUsed |= 1u << j, bFound = 1;
    if (!bFound) return 0;
  }
  return 1;
}

/* The y index's atom (PAR.y) in the kernel-shape model, or -1. */
static int nd_y_atom(const ks_shape *pS) {
  for (int i = 0; i < pS->nAtom; i++)
    if (pS->aAtom[i].eKind == KS_ATOM_PAR && pS->aAtom[i].iDim == 1) return i;
  return -1;
}

/* Index q's terms with the y index, y taken out: the monomials aC (*pnC) and
 * the sum of the constant ones (*pkC), the row's step. 0 where a term has y
 * twice, or q has something else of y or z (a built-in, a digit), or no y. */
static int nd_y_cofactor(const ks_shape *pS, const ks_poly *q, int iY, ks_mono *aC, int *pnC, long long *pkC) {
  *pnC = 0;
  *pkC = 0;
  if (iY < 0 || q->bIrregular || q->bIndirect) return 0;
  for (int t = 0; t < q->n; t++) {
    const ks_mono *m = &q->t[t];
    int cY = 0;
    for (int j = 0; j < m->n; j++) {
      const ks_atom *a = &pS->aAtom[m->a[j]];
      cY += m->a[j] == iY;
      if (a->eKind == KS_ATOM_DERIVED || (a->eKind <= KS_ATOM_PAR && a->eKind != KS_ATOM_BDIM && a->iDim >= 1 &&
                                          m->a[j] != iY))
        return 0;
    }
    if (cY > 1) return 0;
    if (!cY) continue;
    ks_mono r = nd_mono_less(m, iY);
    if (r.n == 0) *pkC += r.coef;
    else aC[(*pnC)++] = r;
  }
  return *pnC > 0 || *pkC != 0;
}

/* The coefficient of q's term with m's atoms (0: none). */
static long long nd_coef_of(const ks_poly *q, const ks_mono *m) {
  for (int t = 0; t < q->n; t++)
    if (q->t[t].n == m->n && memcmp(q->t[t].a, m->a, sizeof(int) * (size_t)m->n) == 0) return q->t[t].coef;
  return 0;
}

/* Window g's row from window g0 of the same buffer, both at constant rows:
 * *pd, not 0, such that g's elements are g0's at y + *pd, the same columns
 * (its index less g0's is *pd times y's cofactor, its constants shifted by
 * as much). 0, or -1 where there is none. */
static int nd_win_row(const ndscan *s, int g0, int g, int iY, long long *pd) {
  const ndwin *p0 = &s->aWin[g0], *pW = &s->aWin[g];
  const ks_poly *q0 = s->a[p0->iRep].pIdx, *q = s->a[pW->iRep].pIdx;
  ks_mono aC[KS_POLY_MAX];
  int nC = 0, nD = 0;
  long long kC = 0, d = 0;
  if (!nd_y_cofactor(s->pShape, q0, iY, aC, &nC, &kC)) return -1;
  for (int t = 0; t < q->n; t++) nD += q->t[t].n > 0 && q->t[t].coef != nd_coef_of(q0, &q->t[t]);
  for (int t = 0; t < q0->n; t++) nD += q0->t[t].n > 0 && nd_coef_of(q, &q0->t[t]) == 0;
  if (nC) { /* the terms that differ: d times the cofactor's, no other */
    long long c = nd_coef_of(q, &aC[0]) - nd_coef_of(q0, &aC[0]);
    if (nD != nC || c % aC[0].coef) return -1;
    d = c / aC[0].coef;
    for (int i = 0; i < nC; i++)
      if (nd_coef_of(q, &aC[i]) - nd_coef_of(q0, &aC[i]) != d * aC[i].coef) return -1;
  } else { /* a constant pitch: the rows apart in the constants */
    if (nD || (pW->cMin - p0->cMin) % kC) return -1;
    d = (pW->cMin - p0->cMin) / kC;
  }
  if (!d || pW->cMin - p0->cMin != d * kC || pW->cMax - p0->cMax != d * kC) return -1;
  *pd = d;
  return 0;
}

/* Rows along y where the windows are read at constant rows, no loops: a
 * buffer's windows at consecutive rows, each the same columns, are one stack
 * (ndwin.bStk) whose row ry + r output row ry reads at its row r. A refusal
 * reason, or NULL; with bApply, the windows merged (each buffer's at its first
 * window's place). */
static const char *nd_stack(ndscan *s, int R, int W, int bApply) {
  int iY = nd_y_atom(s->pShape), ai0[16], aiTo[16], nNew = 0;
  long long aD[16], akC[16], aMin[16], aMax[16];
  ks_mono aC[KS_POLY_MAX];
  ndwin aNew[16];
  for (int g = 0; g < s->nWin; g++) {
    int g0 = 0, nC = 0;
    while (s->aWin[g0].iParam != s->aWin[g].iParam) g0++;
    ai0[g] = g0;
    aD[g] = 0;
    if (g == g0 && !nd_y_cofactor(s->pShape, s->a[s->aWin[g].iRep].pIdx, iY, aC, &nC, &akC[g]))
      return "a neighbour's index does not move down one row with y (y once, times the row's pitch)";
    if (g != g0 && nd_win_row(s, g0, g, iY, &aD[g]) < 0)
      return "a buffer's neighbours along x at two rows are not the same columns of rows a constant apart";
    aMin[g0] = g == g0 || aD[g] < aMin[g0] ? aD[g] : aMin[g0];
    aMax[g0] = g == g0 || aD[g] > aMax[g0] ? aD[g] : aMax[g0];
  }
  for (int g = 0; g < s->nWin; g++) {
    int n = 0;
    if (ai0[g] != g) continue;
    for (int h = g; h < s->nWin; h++)
      for (int h2 = h + 1; h2 < s->nWin && ai0[h] == g; h2++)
        if (ai0[h2] == g && aD[h2] == aD[h]) return "two windows of a buffer are at one row";
    for (int h = g; h < s->nWin; h++) n += ai0[h] == g;
    if (aMax[g] - aMin[g] + 1 != n) return "a buffer's neighbours are at rows with a gap between them";
    if ((n + R - 1) * (s->aWin[g].cMax - s->aWin[g].cMin + W) > 256)
      return "a buffer's rows for all the thread's output rows need more than 256 registers a thread";
  }
  if (!bApply) return NULL;
  for (int g = 0; g < s->nWin; g++) { /* each buffer's stack: its lowest row's window, then the rows */
    int g0 = ai0[g];
    if (g0 == g) {
      aiTo[g] = nNew++;
      for (int h = g; h < s->nWin; h++)
        if (ai0[h] == g && aD[h] == aMin[g]) aNew[aiTo[g]] = s->aWin[h];
      ndwin *pN = &aNew[aiTo[g]];
      pN->bArr = pN->bStk = 1;
      pN->nRow = 0;
      pN->nRows = aMax[g] - aMin[g] + 1;
    }
    aiTo[g] = aiTo[g0];
    aNew[aiTo[g]].aiStkRep[aD[g] - aMin[g0]] = s->aWin[g].iRep;
    aNew[aiTo[g]].acStkMin[aD[g] - aMin[g0]] = s->aWin[g].cMin;
  }
  for (int i = 0; i < s->n; i++) {
    vacc *a = &s->a[i];
    if (a->iWin < 0) continue;
    int g = a->iWin, g0 = ai0[g];
    a->iStk = (int)(aD[g] - aMin[g0]);
    a->kStk = a->t.k - (aD[g] - aMin[g0]) * akC[g0];
    a->iWin = aiTo[g];
  }
  memcpy(s->aWin, aNew, sizeof aNew[0] * (size_t)nNew);
  s->nWin = nNew;
  return NULL;
}

/* Why the thread's outputs cannot take R rows along y, or NULL: the y index
 * is the plain thread index read nowhere else before the guard, and every
 * window is either an array of one row loop whose accesses move with y as
 * with its counter (nd_rows_shift_ok) or read at constant rows (nd_stack). */
static const char *nd_rows_why(ndscan *s, const ndform *f, int W, int bAlias, int R) {
  CXCursor aI[4];
  int nI, nArr = 0;
  if (bAlias) return "a buffer is read after a store through another (no disjointness test per row)";
  if (!s->nWin) return "no buffer is read at neighbouring indices along x (no window for the rows to share)";
  if (!f->iYEnd || f->iYStart == f->iXStart)
    return "the y index is not declared alone as the global thread index (`int y = blockIdx.y * blockDim.y + "
           "threadIdx.y;`)";
  if (s->bYRead) return "a statement before the guard reads the y index (each row would need its own)";
  nI = ks_rw_kids(f->yDecl, aI, 4);
  if (nI < 1 || nI > 4 || !nd_rows_builtins_ok(s->kernel, aI[nI - 1]))
    return "the y index is not blockIdx.y * blockDim.y + threadIdx.y, or the kernel reads threadIdx.y or "
           "blockIdx.y elsewhere, gridDim.y or a z built-in other than blockDim.z";
  for (int g = 0; g < s->nWin; g++) nArr += s->aWin[g].bArr;
  if (!nArr) return nd_stack(s, R, W, 0);
  for (int g = 0; g < s->nWin; g++) {
    const ndwin *pW = &s->aWin[g];
    if (!pW->bArr || pW->nRow != 1)
      return "a neighbourhood is not read in one loop whose counter picks the row (nor every one at constant rows)";
    if ((pW->nRows + R - 1) * (pW->cMax - pW->cMin + W) > 256)
      return "a window's rows for all the thread's output rows need more than 256 registers a thread";
  }
  for (int i = 0; i < s->n; i++) {
    const vacc *a = &s->a[i];
    if (a->iWin >= 0 && !nd_rows_shift_ok(s->pShape, a->pIdx, s->aWin[a->iWin].aRow[0]))
      return "a neighbour's index does not move down one row with y as with its row loop's counter";
  }
  return NULL;
}

/* The rows each thread takes along y (*pR), from the parameter rows (nForce:
 * 0 auto, else the rows; a refusal where they cannot be). Auto: 4 where
 * every window is an array of one row loop of 5 or more rows and a row has 4
 * lanes (nd_rows_why); else 1 (the form along x alone). Three-row windows
 * stay at 1 there: those stencils reached about 90% of the DRAM bandwidth
 * along x alone. 16 lanes of bytes stay too: a 5x5 box on bytes took 128
 * registers on sm_90 with 4 rows, 130 with 2, 56 along x alone (ptxas), and
 * 8-bit stencils are bound by their arithmetic, not their loads. rows=N
 * leaves that choice to a measurement (the loop's sweep). */
static int nd_rows(ks_rewrite *p, ndscan *s, const ndform *f, int W, int bAlias, const char *zKeep, int nForce,
                   int *pR) {
  const char *zWhy;
  *pR = 1;
  if (!nForce) {
    if (W != 4 || zKeep) return KS_OK;
    for (int g = 0; g < s->nWin; g++)
      if (!s->aWin[g].bArr || s->aWin[g].nRow != 1 || s->aWin[g].nRows < 5) return KS_OK;
    if (!nd_rows_why(s, f, W, bAlias, 4)) *pR = 4;
    return KS_OK;
  }
  if (nForce == 1) return KS_OK;
  if (zKeep) return ks_rewrite_refuse(p, "rows=%d: the launches keep their grid (%s)", nForce, zKeep);
  if ((zWhy = nd_rows_why(s, f, W, bAlias, nForce))) return ks_rewrite_refuse(p, "rows=%d: %s", nForce, zWhy);
  if (!s->aWin[0].bArr) nd_stack(s, nForce, W, 1);
  *pR = nForce;
  return KS_OK;
}

/* The rule's parameter rows: auto (*pn 0, the default) or the rows along y
 * each thread of a stencil takes, 1 to 4. */
static int rows_param(ks_rewrite *p, int *pn) {
  const char *z = ks_rewrite_param(p, "rows", "auto");
  long n = 0;
  *pn = 0;
  if (strcmp(z, "auto") == 0) return KS_OK;
  if (ks_rw_int_param(p, "vectorize", "rows", "auto", 1, 4, &n) < 0)
    return ks_error_set(KS_EUSAGE, "rule vectorize: rows must be auto or 1..4, not '%s'", z);
  *pn = (int)n;
  return KS_OK;
}

static int put_header(ks_rewrite *p, CXCursor k, const char *zGuard, const char *zName, const char *zLabel,
                      const char *zWhat);

/* What replaces the x index's declaration: the thread's first lane ks_x0 and
 * the lanes' bound ks_nx (the x extent as written: the grid's, ks_gx's,
 * where the launches are divided); a grid-stride loop's header becomes a loop
 * over packs of W, its bound N. */
static void nd_put_x_decl(ks_buf *pB, ks_rewrite *p, const ndform *f, int W, const char *zKeep) {
  unsigned nIndent = 0;
  unsigned iLine = ks_rewrite_line_start(p, f->iXStart, &nIndent);
  const char *zIn = ks_rewrite_source(p, NULL) + iLine;
  if (f->bGs) {
    ks_buf_printf(pB,
                  "for (long long ks_x0 = (long long)(%s)(%s) * %d; ks_x0 < (long long)(%s); ks_x0 += (long long)(%s) "
                  "* %d) {\n%.*s  const long long ks_nx = (long long)(%s);",
                  f->zXType, f->zXInit, W, f->zGsBound, f->zGsStep, W, (int)nIndent, zIn, f->zGsBound);
    return;
  }
  ks_buf_printf(pB, "const long long ks_x0 = (long long)(%s)(%s) * %d;\n", f->zXType, f->zXInit, W);
  ks_buf_printf(pB, "%.*sconst long long ks_nx = (long long)%s * blockDim.x;", (int)nIndent, zIn,
                zKeep ? "gridDim.x" : "ks_gx");
}

/* The rule on the n-dimensional form (zWhy1, zWhy2: why the 1-D and
 * grid-stride forms do not fit, for the refusal). */
static int apply_nd(ks_rewrite *p, CXCursor k, const char *zWhy1, const char *zWhy2) {
  ks_tu *pTu = ks_rewrite_tu(p);
  ndscan s;
  ndform f;
  vplan plan;
  ks_shape *pShape = NULL;
  ks_buf b = KS_BUF_INIT;
  ks_rw_pointwise pw;
  int rc = KS_OK, bAlias = 0, nL = 0, nRows = 0;
  ks_launch *aL = NULL;
  char zKeepBuf[400];
  memset(&f, 0, sizeof f);
  memset(&s, 0, sizeof s);
  memset(&plan, 0, sizeof plan);
  memset(&pw, 0, sizeof pw);
  s.nRY = 1;
  if ((rc = rows_param(p, &nRows)) < 0) return rc;
  const char *zBytes = ks_rewrite_param(p, "bytes", "as-written");
  if (strcmp(zBytes, "as-written") && strcmp(zBytes, "words"))
    return ks_error_set(KS_EUSAGE, "rule vectorize: bytes must be as-written or words, not '%s'", zBytes);
  const int bWords = strcmp(zBytes, "words") == 0;
  const char *zSums = ks_rewrite_param(p, "sums", "as-written");
  if (strcmp(zSums, "as-written") && strcmp(zSums, "paired"))
    return ks_error_set(KS_EUSAGE, "rule vectorize: sums must be as-written or paired, not '%s'", zSums);
  const char *zFallback = ks_rewrite_param(p, "fallback", "auto");
  if (strcmp(zFallback, "auto") && strcmp(zFallback, "warp") && strcmp(zFallback, "thread"))
    return ks_error_set(KS_EUSAGE, "rule vectorize: fallback must be auto, warp or thread, not '%s'", zFallback);
  if ((rc = ks_rw_params(pTu, k, &s.aP, &s.nP)) < 0) return rc;
  if (ks_shape_build(pTu, k, &pShape) < 0) {
    rc = ks_rewrite_refuse(p, "no kernel-shape model for the kernel");
    goto done;
  }
  s.pTu = pTu;
  s.kernel = k;
  s.pShape = pShape;
  s.vs.pTu = pTu;
  s.vs.aP = s.aP;
  s.vs.nP = s.nP;
  const char *zWhy = nd_match(pTu, k, &f, &s);
  if (zWhy) {
    rc = ks_rewrite_refuse(p, "not a pointwise kernel: %s (nor a grid-stride loop: %s; nor an n-dimensional map: %s)",
                           zWhy1, zWhy2, zWhy);
    goto done;
  }
  int bStencil = 0;
  for (int i = 0; i < s.nP && i < 64; i++) bStencil |= s.abStencil[i];
  if (!(bStencil && pShape->eClass == KS_CLASS_STENCIL) && (rc = ks_rw_require_class(p, k, KS_CLASS_MAP)) < 0)
    goto done;
  if (s.iLastOtherRead > s.iFirstStore && s.iFirstStore != (unsigned)-1) {
    rc = ks_rewrite_refuse(p, "a pointer is read at another index after a store (they may alias)");
    goto done;
  }
  s.vs.a = s.a;
  s.vs.n = s.n;
  pw.iBodyStart = f.iBodyStart;
  pw.iBodyEnd = f.iBodyEnd;
  pw.zIdx = f.zX;
  plan.bBytes = 1;
  if (bStencil && (zWhy = nd_dead_reads(&s)) != NULL) { /* first: a dead read makes no read after a store */
    rc = ks_rewrite_refuse(p, "%s", zWhy);
    goto done;
  }
  if ((rc = check_accesses(p, &s.vs, s.aP, &pw, &plan, &bAlias)) < 0) goto done;
  if ((rc = buffer_roles(p, &s.vs, s.aP, s.nP, &plan)) < 0) goto done;
  if (bStencil && (zWhy = nd_windows(&s, plan.nLanes)) == NULL && bAlias)
    zWhy = "a buffer is read after a store through another while a third is read at neighbouring indices";
  if (bStencil && zWhy) {
    rc = ks_rewrite_refuse(p, "%s", zWhy);
    goto done;
  }
  if (bStencil) s.nKnown = nd_known_conds(&s, s.aKnown, 64);
  if (bStencil) nd_proven_stores(&s, &plan);
  for (int i = 0; i < s.nLoc && s.nLead < 16; i++) /* a lane drops a loop's local its windows left unread */
    if (s.aLoc[i].iEnd > s.aLoc[i].iStart) {
      s.aiLead[s.nLead][0] = s.aLoc[i].iStart;
      s.aiLead[s.nLead][1] = s.aLoc[i].iEnd;
      s.azLead[s.nLead++] = ks_rw_spelling(s.aLoc[i].var);
    }
  const char *zKeep = nd_shrink_why(p, k, zKeepBuf, sizeof zKeepBuf, &aL, &nL);
  if ((rc = nd_rows(p, &s, &f, plan.nLanes, bAlias, zKeep, nRows, &s.nRY)) < 0) goto done;
  if (bWords && (plan.nLanes == 16 || plan.nLanes == 4)) nd_prmt_plan(&s); /* whole 32-bit words of bytes */
  if (bStencil && strcmp(zSums, "paired") == 0) nd_sums_plan(&s, k);       /* integer sums regrouped */
  for (int i = 0; i < s.nP; i++) {
    const char *zV = plan.abUsed[i] ? plan.azVec[i] : NULL;
    int bFirst = zV && strncmp(zV, "ks_pack", 7) == 0;
    for (int m = 0; bFirst && m < i; m++)
      if (plan.abUsed[m] && strcmp(plan.azVec[m], zV) == 0) bFirst = 0;
    if (bFirst && (rc = put_pack_type(p, k, zV)) < 0) goto done;
  }
  if (s.nRY > 1 && (rc = nd_replace_y(p, &f, s.nRY)) < 0) goto done;
  nd_put_x_decl(&b, p, &f, plan.nLanes, zKeep);
  if ((rc = ks_rewrite_replace(p, f.iXStart, f.iXEnd, ks_buf_cstr(&b))) < 0) goto done;
  for (int k = 0; k < s.nDerived && rc >= 0; k++) { /* moved into the lanes: the line goes */
    const char *zS = ks_rewrite_source(p, NULL);
    unsigned a = ks_rewrite_line_start(p, s.aiDerived[k][0], NULL), e = s.aiDerived[k][1];
    while (a < s.aiDerived[k][0] && (zS[a] == ' ' || zS[a] == '\t')) a++;
    if (a == s.aiDerived[k][0]) a = ks_rewrite_line_start(p, s.aiDerived[k][0], NULL);
    else a = s.aiDerived[k][0];
    while (zS[e] == ' ' || zS[e] == '\t') e++;
    if (zS[e] == '\n' && a == ks_rewrite_line_start(p, s.aiDerived[k][0], NULL)) e++;
    rc = ks_rewrite_replace(p, a, e, "");
  }
  if (rc < 0) goto done;
  ks_buf_clear(&b);
  /* auto: shared where a thread has 16 outputs a row (bytes: the H100's 8-bit Sobel 8% faster), its own
     elsewhere (4-byte lanes measured even, one 5x5 stencil 3% slower: docs/rules/vectorize.md) */
  s.bFbShared = (strcmp(zFallback, "warp") == 0 || (strcmp(zFallback, "auto") == 0 && plan.nLanes == 16)) &&
                !f.bGs && nd_fb_shared(&s, &f, &s.mFbShfl); /* a grid-stride loop's trips differ across a warp */
  nd_put_region(&b, p, &s, &f, &plan, bAlias);
  if ((rc = ks_rewrite_replace(p, f.iIfStart, f.iRegionEnd, ks_buf_cstr(&b))) < 0) goto done;
  if (!zKeep && (rc = nd_shrink_launches(p, k, aL, nL, plan.nLanes, s.nRY)) < 0) goto done;
  if (s.bFbShared &&
      (rc = put_header(p, k, "#define KS_FALLBACK_CUH", "ks_fallback.cuh", "fallback header",
                       "the warp-shared fallback (share/kernelskill/templates/ks_fallback.cuh)")) < 0)
    goto done;
  ks_buf_clear(&b);
  if (f.bGs)
    ks_buf_printf(&b,
                  "%s loads/stores along x (a grid-stride loop over packs of %d elements: the launch unchanged), "
                  "alignment%s guard, scalar fallback",
                  plan.bMixed ? "mixed-width" : plan.zVec, plan.nLanes, bAlias ? " and disjointness" : "");
  else if (zKeep)
    ks_buf_printf(&b,
                  "%s loads/stores along x (%d elements per thread; other dimensions and the launch unchanged, as %s: "
                  "threads past the x extent / %d do nothing), alignment%s guard, scalar fallback",
                  plan.bMixed ? "mixed-width" : plan.zVec, plan.nLanes, zKeep, plan.nLanes,
                  bAlias ? " and disjointness" : "");
  else
    ks_buf_printf(&b,
                  "%s loads/stores along x (%d elements per thread; the launches' grid x divided by %d, the lanes "
                  "below the x extent as written, ks_gx * blockDim.x), alignment%s guard, scalar fallback",
                  plan.bMixed ? "mixed-width" : plan.zVec, plan.nLanes, plan.nLanes, bAlias ? " and disjointness" : "");
  if (s.bFbShared) ks_buf_printf(&b, " shared by the warp (its outputs dealt out to every lane)");
  int nWinRows = 0; /* a stack of rows (nd_stack) counts each of its rows */
  for (int g = 0; g < s.nWin; g++) nWinRows += s.aWin[g].bStk ? (int)s.aWin[g].nRows : 1;
  if (s.nWin)
    ks_buf_printf(&b, "; a stencil: %d row%s of neighbours along x read once into registers (whole vectors, element "
                      "by element where a row is not aligned, and the elements either side)",
                  nWinRows, nWinRows > 1 ? "s" : "");
  if (s.nRY > 1)
    ks_buf_printf(&b, "; rows along y: %d rows per thread (the launches' grid y divided by %d, the rows below the y "
                      "extent as written, ks_gy * blockDim.y), each window row loaded once for all of them",
                  s.nRY, s.nRY);
  rc = ks_rewrite_note(p, f.iXStart, ks_buf_cstr(&b));
done:
  for (int i = 0; i < 64; i++) free(s.azIdx[i]);
  for (int i = 0; i < s.nLaneCond; i++) free(s.azLaneCond[i]);
  for (int i = 0; i < s.nLaneStmt; i++) free(s.azLaneStmt[i]);
  for (int i = 0; i < s.nDigit; i++) free(s.azDigit[i]);
  for (int i = 0; i < s.nRp; i++) free(s.azRp[i]);
  for (int i = 0; i < s.nLead; i++) free(s.azLead[i]);
  for (int i = 0; i < s.nLoc; i++) free(s.aLoc[i].zText);
  free(s.a);
  nd_form_free(&f);
  ks_buf_free(&b);
  ks_shape_free(pShape);
  ks_rw_params_free(s.aP, s.nP);
  ks_ast_launches_free(aL, nL);
  return rc;
}


/* Instantiations of host template `host` the file makes: a T that is its
 * type parameter zName gets each one's argument; refuse one whose size does
 * not divide 16. */
typedef struct host_inst {
  ks_tu *pTu;
  CXCursor host;
  int iArg;
  long long nBad;
  unsigned iBadLine;
  char *zBad;
} host_inst;

static enum CXChildVisitResult host_inst_visit(CXCursor c, CXCursor parent, CXClientData pData) {
  (void)parent;
  host_inst *h = pData;
  if (h->zBad) return CXChildVisit_Break;
  if (!ks_ast_in_main_file(c)) return CXChildVisit_Continue;
  enum CXCursorKind e = clang_getCursorKind(c);
  CXCursor d = e == CXCursor_DeclRefExpr || e == CXCursor_CallExpr ? clang_getCursorReferenced(c) : clang_getNullCursor();
  if (clang_getCursorKind(d) == CXCursor_FunctionDecl &&
      clang_equalCursors(clang_getSpecializedCursorTemplate(d), h->host) &&
      clang_Cursor_getNumTemplateArguments(d) > h->iArg &&
      clang_Cursor_getTemplateArgumentKind(d, (unsigned)h->iArg) == CXTemplateArgumentKind_Type) {
    CXType t = clang_Cursor_getTemplateArgumentType(d, (unsigned)h->iArg);
    long long n = clang_Type_getSizeOf(clang_getCanonicalType(t));
    if (n <= 0 || n > 16 || 16 % n != 0) {
      CXString st = clang_getTypeSpelling(t);
      h->zBad = ks_strdup(clang_getCString(st));
      clang_disposeString(st);
      h->nBad = n;
      long iOff = ks_ast_offset(h->pTu, clang_getCursorLocation(c));
      if (iOff >= 0) ks_ast_line_col(h->pTu, (unsigned)iOff, &h->iBadLine, NULL);
      return CXChildVisit_Break;
    }
  }
  return CXChildVisit_Recurse;
}

/* The element type T of launch pL, as text in scope there (*pzType,
 * malloc'd): the explicit template argument as written, else the one
 * deduced outside any template; *pnSize its size, 0 when it depends on an
 * enclosing template's parameter (any T is right there: the launch computes
 * ks_lanes of that T). Refuses a launch whose T it cannot tell, and an
 * instantiation whose size does not divide 16 (no 128-bit pack of it). */
static int launch_elem_type(ks_rewrite *p, const vplan *pPlan, const ks_launch *pL, char **pzType, long long *pnSize) {
  ks_tu *pTu = ks_rewrite_tu(p);
  unsigned iName;
  char *zArg = ks_rw_launch_targ(pTu, pL, pPlan->iTParam, &iName);
  CXFile file = clang_getFile(pTu->pTu, pTu->zFile);
  CXCursor c = clang_getCursor(pTu->pTu, clang_getLocationForOffset(pTu->pTu, file, iName));
  CXCursor spec = clang_getCursorReferenced(c);
  CXCursor host;
  int bInTemplate = ks_rw_enclosing_template(pTu, pL->iStart, &host);
  *pzType = NULL;
  *pnSize = 0;
  if (bInTemplate && zArg && !clang_Cursor_isNull(host)) {
    /* T as a host template's parameter: check the instantiations the file makes */
    CXCursor *aK = NULL;
    int nK = 0, iSeen = 0, iArg = -1;
    ks_rw_children(host, &aK, &nK);
    for (int i = 0; i < nK; i++) {
      enum CXCursorKind e = clang_getCursorKind(aK[i]);
      if (e != CXCursor_TemplateTypeParameter && e != CXCursor_NonTypeTemplateParameter &&
          e != CXCursor_TemplateTemplateParameter)
        continue;
      char *zN = ks_rw_spelling(aK[i]);
      if (e == CXCursor_TemplateTypeParameter && zN && strcmp(zN, zArg) == 0) iArg = iSeen;
      free(zN);
      iSeen++;
    }
    free(aK);
    host_inst h = {pTu, host, iArg, 0, 0, NULL};
    if (iArg >= 0) ks_ast_visit_top(pTu, host_inst_visit, &h);
    if (h.zBad) {
      char *zHost = ks_rw_spelling(host);
      int rc = ks_rewrite_refuse(p, "%s:%u: %s is instantiated with %s = %s (%lld bytes), which its launch of the "
                                    "kernel at line %u passes on: 16 is not a multiple of its size, so it has no "
                                    "128-bit pack",
                                 pTu->zFile, h.iBadLine, zHost ? zHost : "the host template", zArg, h.zBad, h.nBad,
                                 pL->iLine);
      free(zHost);
      free(h.zBad);
      free(zArg);
      return rc;
    }
  }
  if (!bInTemplate && clang_getCursorKind(spec) == CXCursor_FunctionDecl &&
      clang_Cursor_getNumTemplateArguments(spec) > pPlan->iTParam &&
      clang_Cursor_getTemplateArgumentKind(spec, (unsigned)pPlan->iTParam) == CXTemplateArgumentKind_Type) {
    CXType t = clang_Cursor_getTemplateArgumentType(spec, (unsigned)pPlan->iTParam);
    CXString st = clang_getTypeSpelling(t);
    long long n = clang_Type_getSizeOf(clang_getCanonicalType(t));
    if (n <= 0 || n > 16 || 16 % n != 0) {
      int rc = ks_rewrite_refuse(p, "%s:%u: this launch instantiates the kernel with %s = %s (%lld bytes): 16 is not "
                                    "a multiple of its size, so it has no 128-bit pack",
                                 pTu->zFile, pL->iLine, pPlan->zTParam, clang_getCString(st), n);
      clang_disposeString(st);
      free(zArg);
      return rc;
    }
    *pnSize = n;
    *pzType = zArg ? zArg : ks_strdup(clang_getCString(st));
    clang_disposeString(st);
    return *pzType ? KS_OK : ks_error_set(KS_ENOMEM, "out of memory");
  }
  if (!zArg)
    return ks_rewrite_refuse(p, "%s:%u: cannot tell the kernel's element type %s at this launch (deduced inside a "
                                "template): name it, as in %s<%s><<<...>>>",
                             pTu->zFile, pL->iLine, pPlan->zTParam, pL->zKernel, pPlan->zTParam);
  *pzType = zArg;
  return KS_OK;
}

/* Each covered launch's grid shrinks by its own instantiation's lanes,
 * ks_lanes<T>() with T as the launch names it (a host template's own
 * parameter inside one). The shipped helpers go above the kernel, before
 * every launch. */
static int scale_grids_tmpl(ks_rewrite *p, CXCursor k, const vplan *pPlan, const ks_launch *aL, int nL,
                            const ks_rw_cover *aCov) {
  ks_tu *pTu = ks_rewrite_tu(p);
  ks_buf b = KS_BUF_INIT, note = KS_BUF_INIT;
  char *zT = NULL;
  unsigned ks0, ke0, gs, ge;
  int rc = KS_OK;
  if ((rc = ks_ast_extent(pTu, k, &ks0, &ke0)) < 0) return rc;
  for (int i = 0; i < nL && rc >= 0; i++) {
    long long nSize = 0;
    if (aL[i].iStart < ks0) {
      rc = ks_rewrite_refuse(p, "%s:%u: a launch of the kernel comes before its definition, where the lane helper "
                                "ks_lanes goes",
                             pTu->zFile, aL[i].iLine);
      break;
    }
    if ((rc = launch_elem_type(p, pPlan, &aL[i], &zT, &nSize)) < 0) break;
    if (ks_rw_cfg_slot(pTu, &aL[i], 0, &gs, &ge) < 0) {
      free(zT);
      zT = NULL;
      continue;
    }
    char *zN = ks_rw_paren(aCov[i].zN), *zB = ks_rw_paren(aCov[i].zB);
    ks_buf_clear(&b);
    ks_buf_clear(&note);
    if (zN && zB)
      ks_buf_printf(&b, "(%s + %s * ks_lanes<%s>() - 1) / (%s * ks_lanes<%s>())", zN, zB, zT, zB, zT);
    if (nSize > 0)
      ks_buf_printf(&note, "grid for ks_lanes<%s>() = %lld elements per thread (ks_pack<%s, %lld>)", zT, 16 / nSize,
                    zT, 16 / nSize);
    else
      ks_buf_printf(&note, "grid for ks_lanes<%s>() = 16 / sizeof(%s) elements per thread (this launch's %s)", zT, zT,
                    pPlan->zTParam);
    free(zN);
    free(zB);
    free(zT);
    zT = NULL;
    char *zGrid = b.n && note.n ? ks_rw_cover_grid(&aCov[i], ks_buf_cstr(&b)) : NULL;
    rc = zGrid ? ks_rewrite_replace(p, gs, ge, zGrid) : ks_error_set(KS_ENOMEM, "out of memory");
    free(zGrid);
    if (rc >= 0) rc = ks_rewrite_note(p, aL[i].iStart, ks_buf_cstr(&note));
  }
  ks_buf_free(&b);
  ks_buf_free(&note);
  return rc;
}

/* A shipped header (templates/zName, guard zGuard) above kernel k, unless
 * the file has it above k already. */
static int put_header(ks_rewrite *p, CXCursor k, const char *zGuard, const char *zName, const char *zLabel,
                      const char *zWhat) {
  ks_buf b = KS_BUF_INIT;
  unsigned ks0, ke0;
  int rc = ks_ast_extent(ks_rewrite_tu(p), k, &ks0, &ke0);
  if (rc >= 0) rc = ks_rw_shipped_block_before(p, zGuard, zName, zLabel, zWhat, ks0, &b); /* a copy below: again */
  if (rc >= 0 && b.n) {
    unsigned iLine0 = ks_rewrite_line_start(p, ks0, NULL);
    iLine0 = ks_rw_file_scope_at(p, iLine0, iLine0); /* seen from every namespace */
    rc = ks_rewrite_replace(p, iLine0, iLine0, ks_buf_cstr(&b));
  }
  ks_buf_free(&b);
  return rc;
}

/* The shipped ks_vec.cuh (ks_lanes, ks_pack), once per file. */
static int put_vec_header(ks_rewrite *p, CXCursor k) {
  return put_header(p, k, "#define KS_VEC_CUH", "ks_vec.cuh", "vectorize header",
                    "the shipped vector pack helpers (share/kernelskill/templates/ks_vec.cuh)");
}

/* A grid-stride loop's launches: each grid G becomes ks_grid_fill(G, B)
 * (ks_vec.cuh), raised until the blocks fill the device, when the block B is
 * free of effects (it is evaluated twice) and the launch follows the kernel's
 * definition (where the header goes). Other launches keep their grid: any grid
 * covers the loop's range. Sets *pnDone to the launches changed. */
static int gs_fill_launches(ks_rewrite *p, CXCursor k, int *pnDone) {
  ks_tu *pTu = ks_rewrite_tu(p);
  ks_launch *aL = NULL;
  ks_buf b = KS_BUF_INIT;
  unsigned ks0, ke0;
  int nL = 0, rc;
  *pnDone = 0;
  if ((rc = ks_ast_extent(pTu, k, &ks0, &ke0)) < 0) return rc;
  if ((rc = ks_ast_launches(pTu, ks_rewrite_kernel_name(p), &aL, &nL)) < 0) return rc;
  for (int i = 0; i < nL && rc >= 0; i++) {
    const ks_launch *pL = &aL[i];
    unsigned gs, ge;
    const char *zWhy = NULL;
    if (pL->iStart < ke0) zWhy = "it comes before the kernel's definition, where ks_grid_fill goes";
    else if (!pL->azCfg[1] || !ks_rw_arg_pure(pL->azCfg[1])) zWhy = "its block is not free of effects";
    else if (ks_rw_cfg_slot(pTu, pL, 0, &gs, &ge) < 0 || pTu->zSrc[gs] == '{') zWhy = "its grid cannot be read";
    ks_buf_clear(&b);
    if (zWhy) {
      ks_buf_printf(&b, "grid as written (any grid covers the grid-stride loop; not raised: %s)", zWhy);
      rc = ks_rewrite_note(p, pL->iStart, ks_buf_cstr(&b));
      continue;
    }
    ks_buf_printf(&b, "ks_grid_fill(%.*s, %s)", (int)(ge - gs), pTu->zSrc + gs, pL->azCfg[1]);
    rc = ks_rewrite_replace(p, gs, ge, ks_buf_cstr(&b));
    if (rc >= 0)
      rc = ks_rewrite_note(p, pL->iStart,
                           "grid raised to fill the device (ks_grid_fill: SMs x resident threads per SM; a "
                           "grid-stride loop covers its range with any grid)");
    if (rc >= 0) ++*pnDone;
  }
  ks_buf_free(&b);
  ks_ast_launches_free(aL, nL);
  return rc;
}

static int apply(ks_rewrite *p) {
  ks_tu *pTu = ks_rewrite_tu(p);
  CXCursor k;
  ks_rw_pointwise pw;
  ks_rw_param *aP = NULL;
  ks_launch *aL = NULL;
  int nP = 0, nL = 0, rc = KS_OK, bAlias = 0;
  ks_rw_cover *aCov = NULL;
  ks_buf b = KS_BUF_INIT;
  ks_shape *pShape = NULL;
  vscan s;
  vplan plan;
  memset(&pw, 0, sizeof pw);
  memset(&s, 0, sizeof s);
  memset(&plan, 0, sizeof plan);
  int bNd = 0;
  int nRows = 0;
  if ((rc = rows_param(p, &nRows)) < 0) goto done;
  if ((rc = match_kernel(p, &k, &pw, &bNd)) < 0 || bNd) goto done;
  if (nRows > 1) { /* a 1-D or grid-stride form: no y to take rows along */
    rc = ks_rewrite_refuse(p, "rows=%d: rows along y need the n-dimensional form (a thread per (x, y)); the kernel "
                              "takes the 1-D or grid-stride form",
                           nRows);
    goto done;
  }
  if ((rc = ks_rw_require_class(p, k, KS_CLASS_MAP)) < 0) goto done;
  if ((rc = ks_rw_params(pTu, k, &aP, &nP)) < 0) goto done;
  if ((rc = ks_shape_build(pTu, k, &pShape)) < 0) goto done;
  s.pTu = pTu;
  s.aP = aP;
  s.nP = nP;
  s.idx = pw.idx;
  s.pShape = pShape;
  scan_body(k, &pw, &s);
  plan.kernel = k;
  if ((rc = check_accesses(p, &s, aP, &pw, &plan, &bAlias)) < 0) goto done;
  /* A grid-stride loop covers its range with any grid: the launches stay. */
  if (!pw.bGridStride &&
      (rc = ks_rw_covered_launches(p, k, &pw, "its grid must shrink with the vector width", &aL, &nL, &aCov)) < 0)
    goto done;
  if ((rc = buffer_roles(p, &s, aP, nP, &plan)) < 0) goto done;
  if (plan.zTParam) {
    /* launches first: their refusals leave the file untouched */
    if (!pw.bGridStride && (rc = scale_grids_tmpl(p, k, &plan, aL, nL, aCov)) < 0) goto done;
    if ((rc = put_vec_header(p, k)) < 0) goto done;
    put_vector_region(&b, p, &s, aP, nP, &pw, &plan, bAlias);
    if ((rc = ks_rewrite_replace(p, pw.iHeadStart, pw.iRegionEnd, ks_buf_cstr(&b))) < 0) goto done;
    ks_buf_clear(&b);
    ks_buf_printf(&b,
                  "ks_pack<%s, ks_lanes<%s>()> loads/stores (16 / sizeof(%s) x %s per thread: 8 for 2-byte, 4 for "
                  "4-byte, 2 for 8-byte elements; ks_vec.cuh), alignment%s guard, scalar tail",
                  plan.zTParam, plan.zTParam, plan.zTParam, plan.zTParam, bAlias ? " and disjointness" : "");
    rc = ks_rewrite_note(p, pw.iHeadStart, ks_buf_cstr(&b));
    goto done;
  }
  for (int i = 0; i < nP; i++) {
    /* each pack type once: at its first buffer */
    const char *zV = plan.abUsed[i] ? plan.azVec[i] : NULL;
    int bFirst = zV && strncmp(zV, "ks_pack", 7) == 0;
    for (int m = 0; bFirst && m < i; m++)
      if (plan.abUsed[m] && strcmp(plan.azVec[m], zV) == 0) bFirst = 0;
    if (bFirst && (rc = put_pack_type(p, k, zV)) < 0) goto done;
  }
  put_vector_region(&b, p, &s, aP, nP, &pw, &plan, bAlias);
  if ((rc = ks_rewrite_replace(p, pw.iHeadStart, pw.iRegionEnd, ks_buf_cstr(&b))) < 0) goto done;
  ks_buf_clear(&b);
  if (plan.bMixed) {
    /* every vector type, in parameter order */
    for (int i = 0; i < nP; i++) {
      int bNew = plan.abUsed[i];
      for (int m = 0; bNew && m < i; m++)
        if (plan.abUsed[m] && strcmp(plan.azVec[m], plan.azVec[i]) == 0) bNew = 0;
      if (bNew) ks_buf_printf(&b, "%s%s", b.n ? " + " : "", plan.azVec[i]);
    }
    ks_buf_printf(&b, " loads/stores (%d elements per thread), alignment%s guard, scalar tail", plan.nLanes,
                  bAlias ? " and disjointness" : "");
  } else {
    ks_buf_printf(&b, "%s loads/stores (%d x %s per thread), alignment%s guard, scalar tail", plan.zVec, plan.nLanes,
                  plan.zElem, bAlias ? " and disjointness" : "");
  }
  if ((rc = ks_rewrite_note(p, pw.iHeadStart, ks_buf_cstr(&b))) < 0) goto done;
  ks_buf_clear(&b);
  ks_buf_printf(&b, "grid for %d elements per thread (%s)", plan.nLanes, plan.zVec);
  if (!pw.bGridStride) rc = ks_rw_scale_grids(p, aL, nL, aCov, plan.nLanes, ks_buf_cstr(&b));
  else {
    int nFill = 0;
    if ((rc = gs_fill_launches(p, k, &nFill)) >= 0 && nFill > 0) rc = put_vec_header(p, k);
  }
done:
  ks_rw_covers_free(aCov, nL);
  free(plan.zTParam);
  free(s.a);
  for (int d = 0; d < s.nDiv; d++) {
    free(s.azDiv[d]);
    free(s.azModType[d]);
  }
  for (int m = 0; m < s.nMod; m++) free(s.aMod[m].zY);
  ks_buf_free(&b);
  ks_shape_free(pShape);
  ks_rw_pointwise_free(&pw);
  ks_rw_params_free(aP, nP);
  ks_ast_launches_free(aL, nL);
  return rc;
}

static const char *const azParams[] = {"rows", "bytes", "sums", "fallback", NULL};

const ks_rule ks_rule_vectorize = {
    "vectorize",
    "pointwise kernel: 128-bit loads/stores (float4, int4, double2), alignment guard, scalar tail; on a 2-D stencil "
    "rows=auto|1..4 output rows along y per thread (auto: 4 for windows of 5 or more rows of 4-byte elements); "
    "bytes=as-written|words: a stencil's 1-byte windows as written, or loaded as 32-bit words and each byte taken "
    "by one PRMT into int where every read is promoted to int; sums=as-written|paired: a stencil's integer sums of "
    "window reads as written, or regrouped into differences of reads of one row, then of one column (shared by the "
    "output rows and lanes; exact: no partial sum can overflow)",
    azParams, apply};
