/* smem-tile-gemm.c — rule `smem-tile-gemm`: a naive GEMM kernel (one output per
 * thread, a k-loop accumulating A[row*lda + k] * B[k*ldb + col]) becomes a
 * shared-memory tiled kernel (param tile=8|16|32|64), optionally with register
 * blocking (param regs=1|2|4|8: outputs per thread along the tile's rows; param
 * cols=1|2|4|8: along its columns, a regs x cols block per thread), and its
 * launch sites get the matching grid and block. It also takes the
 * nn.Linear layout: row pointers (`ar = A + row*lda; ... ar[k]`), B given
 * transposed (B[col*ldb + k]: loaded along k, stored into a padded tile) and an
 * elementwise epilogue before the store (`acc += bias[col]`, relu), kept as
 * written per output.
 *
 * The matcher accepts only a kernel body it understands completely (every
 * statement accounted for) and exports ks_rule_gemm_match() for library-gemm.
 * With KS_GEMM_ACCEPT_MODEL (gemm-tiled) it also asks the kernel-shape model
 * for what the text does not show: indexes written through function-like
 * macros (their polynomials) and per-batch pointers on blockIdx.z.
 * The tiled kernel sums k in the same order with the same types, padding with
 * zeros past K, so its results are bitwise those of the original
 * (docs/rules/smem-tile-gemm.md). library-gemm calls the matcher without the
 * nn.Linear forms (ks_rule_gemm_match), which it cannot map to cuBLAS as is. */
#include "features/ast.h"
#include "kernelskill/rewrite.h"
#include "gemm_match.h"
#include "rewrite/rwutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- cursor helpers ---- */

static int kind(CXCursor c) { return (int)clang_getCursorKind(c); }

/* Look through implicit conversions and parentheses. */
static CXCursor strip(CXCursor c) {
  for (;;) {
    int e = kind(c);
    if (e != CXCursor_UnexposedExpr && e != CXCursor_ParenExpr) return c;
    ks_ast_kids k;
    if (ks_ast_kids_get(c, &k) != 1) return c;
    c = k.a[0];
  }
}

static int binop(CXCursor c, enum CXBinaryOperatorKind eOp, CXCursor *pL, CXCursor *pR) {
  if (kind(c) != CXCursor_BinaryOperator && kind(c) != CXCursor_CompoundAssignOperator) return 0;
  if (clang_getCursorBinaryOperatorKind(c) != eOp) return 0;
  ks_ast_kids k;
  if (ks_ast_kids_get(c, &k) != 2) return 0;
  *pL = k.a[0];
  *pR = k.a[1];
  return 1;
}

/* Is c (stripped) a reference to the declaration d? */
static int refers_to(CXCursor c, CXCursor d) {
  c = strip(c);
  return kind(c) == CXCursor_DeclRefExpr && clang_equalCursors(clang_getCursorReferenced(c), d);
}

/* Main-file ranges of function-like macro uses (MODEL: read through the model). */
typedef struct fn_macros {
  int n;
  unsigned a[2 * 32];   /* [start, end) pairs */
  char *az[32];         /* their names (malloc'd) */
} fn_macros;

/* Normalized token text of main-file bytes [iStart, iEnd): spellings joined by
 * one space. -1 when a macro is used inside (bObjectOk: a function-like one;
 * pFn: a function-like one is recorded there instead, -1 past 32). */
static int tok_text_ex(ks_tu *pTu, unsigned iStart, unsigned iEnd, ks_buf *pOut, int bObjectOk, fn_macros *pFn) {
  CXFile file = clang_getFile(pTu->pTu, pTu->zFile);
  CXSourceRange r = clang_getRange(clang_getLocationForOffset(pTu->pTu, file, iStart),
                                   clang_getLocationForOffset(pTu->pTu, file, iEnd));
  CXToken *aTok = NULL;
  unsigned nTok = 0;
  int rc = 0;
  clang_tokenize(pTu->pTu, r, &aTok, &nTok);
  for (unsigned i = 0; i < nTok && rc == 0; i++) {
    CXTokenKind e = clang_getTokenKind(aTok[i]);
    if (e == CXToken_Comment) continue;
    if (e == CXToken_Identifier) {
      CXCursor m = clang_getCursor(pTu->pTu, clang_getTokenLocation(pTu->pTu, aTok[i]));
      if (clang_getCursorKind(m) == CXCursor_MacroExpansion) {
        CXCursor def = clang_getCursorReferenced(m);
        int bFn = !clang_Cursor_isNull(def) && clang_Cursor_isMacroFunctionLike(def);
        if (bFn && pFn) {
          CXSourceRange er = clang_getCursorExtent(m);
          unsigned iS = 0, iE = 0;
          clang_getExpansionLocation(clang_getRangeStart(er), NULL, NULL, NULL, &iS);
          clang_getExpansionLocation(clang_getRangeEnd(er), NULL, NULL, NULL, &iE);
          if (pFn->n >= 32) rc = -1;
          else if (pFn->n == 0 || iS >= pFn->a[2 * pFn->n - 1]) { /* not an argument of the last one */
            CXString sn = clang_getCursorSpelling(m);
            pFn->az[pFn->n] = ks_strdup(clang_getCString(sn));
            clang_disposeString(sn);
            pFn->a[2 * pFn->n] = iS, pFn->a[2 * pFn->n + 1] = iE > iS ? iE : iS + 1, pFn->n++;
          }
        } else if (!bObjectOk || clang_Cursor_isNull(def) || bFn) {
          rc = -1;
        }
      }
    }
    CXString s = clang_getTokenSpelling(pTu->pTu, aTok[i]);
    if (rc == 0 && ks_buf_printf(pOut, "%s%s", pOut->n ? " " : "", clang_getCString(s)) < 0) rc = -1;
    clang_disposeString(s);
  }
  clang_disposeTokens(pTu->pTu, aTok, nTok);
  return rc;
}

static char *cursor_text(ks_tu *pTu, CXCursor c) { return ks_ast_text(pTu, c); }

/* An expression built only from the kernel's scalar parameters, integer
 * literals and arithmetic: the same value everywhere in the kernel. */
typedef struct pure_walk {
  CXCursor kernel;
  int bPure;
  int bMembers; /* IDIOMS: integer members of a struct parameter passed by value too */
} pure_walk;

/* `d.M`: an integer member of a kernel parameter d of struct type, passed by
 * value (every thread sees the same value): d's parameter index, else -1. */
static int member_param(CXCursor kernel, CXCursor c) {
  ks_ast_kids k;
  c = strip(c);
  if (kind(c) != CXCursor_MemberRefExpr || ks_ast_kids_get(c, &k) != 1 ||
      !ks_rw_is_integer_type(clang_getCursorType(c)))
    return -1;
  CXCursor b = strip(k.a[0]);
  int iP = kind(b) == CXCursor_DeclRefExpr ? ks_rw_param_of(kernel, b) : -1;
  return iP >= 0 && clang_getCanonicalType(clang_getCursorType(b)).kind == CXType_Record ? iP : -1;
}

static enum CXChildVisitResult pure_visit(CXCursor c, CXCursor parent, CXClientData d) {
  (void)parent;
  pure_walk *pW = d;
  switch (kind(c)) {
  case CXCursor_DeclRefExpr:
    if (ks_rw_param_of(pW->kernel, c) < 0 || clang_getCursorType(c).kind == CXType_Pointer) pW->bPure = 0;
    return CXChildVisit_Continue;
  case CXCursor_IntegerLiteral:
    return CXChildVisit_Continue;
  case CXCursor_MemberRefExpr:
    if (!pW->bMembers || member_param(pW->kernel, c) < 0) pW->bPure = 0;
    return CXChildVisit_Continue;
  case CXCursor_UnexposedExpr:
  case CXCursor_ParenExpr:
    return CXChildVisit_Recurse;
  case CXCursor_BinaryOperator: {
    enum CXBinaryOperatorKind e = clang_getCursorBinaryOperatorKind(c);
    if (e != CXBinaryOperator_Add && e != CXBinaryOperator_Sub && e != CXBinaryOperator_Mul &&
        e != CXBinaryOperator_Div)
      pW->bPure = 0;
    return CXChildVisit_Recurse;
  }
  default:
    pW->bPure = 0;
    return CXChildVisit_Break;
  }
}

static int is_pure_ex(CXCursor kernel, CXCursor c, int bMembers) {
  pure_walk w = {kernel, 1, bMembers};
  CXCursor s = strip(c);
  if (kind(s) == CXCursor_DeclRefExpr || kind(s) == CXCursor_IntegerLiteral || kind(s) == CXCursor_MemberRefExpr) {
    pure_walk *pW = &w;
    pure_visit(s, s, pW);
    return w.bPure;
  }
  if (kind(s) != CXCursor_BinaryOperator) return 0;
  pure_visit(s, s, &w);
  if (w.bPure) clang_visitChildren(s, pure_visit, &w);
  return w.bPure;
}

/* c refers to the variable u, directly or through a written cast to an
 * integer type at least as wide as u's (`(size_t)row`): the value is u's, only
 * the type the product is computed in widens. *pzCast gets "(T)" (malloc'd)
 * for a cast, else NULL; pzCast NULL: casts are not accepted. */
static int ref_or_widened(CXCursor c, CXCursor u, char **pzCast) {
  if (pzCast) *pzCast = NULL;
  c = strip(c);
  if (refers_to(c, u)) return 1;
  if (!pzCast || (kind(c) != CXCursor_CStyleCastExpr && kind(c) != CXCursor_CXXStaticCastExpr)) return 0;
  ks_ast_kids k;
  int n = ks_ast_kids_get(c, &k), iExpr = -1, nExpr = 0;
  for (int i = 0; i < n && i < KS_AST_KIDS_MAX; i++) /* a TypeRef comes first for typedef names */
    if (clang_isExpression(clang_getCursorKind(k.a[i]))) iExpr = i, nExpr++;
  if (nExpr != 1 || !refers_to(k.a[iExpr], u)) return 0;
  CXType tCast = clang_getCursorType(c), tVar = clang_getCursorType(u);
  enum CXTypeKind e = clang_getCanonicalType(tCast).kind;
  if (e != CXType_Int && e != CXType_UInt && e != CXType_Long && e != CXType_ULong && e != CXType_LongLong &&
      e != CXType_ULongLong)
    return 0;
  if (clang_Type_getSizeOf(tCast) < clang_Type_getSizeOf(tVar)) return 0; /* a narrowing cast changes values */
  /* A signed variable cast to unsigned of the same width changes negative values: refuse. */
  int bVarSigned = clang_getCanonicalType(tVar).kind == CXType_Int || clang_getCanonicalType(tVar).kind == CXType_Long ||
                   clang_getCanonicalType(tVar).kind == CXType_LongLong;
  int bCastUnsigned = e == CXType_UInt || e == CXType_ULong || e == CXType_ULongLong;
  if (bVarSigned && bCastUnsigned && clang_Type_getSizeOf(tCast) == clang_Type_getSizeOf(tVar)) return 0;
  CXString sp = clang_getTypeSpelling(tCast);
  ks_buf b = KS_BUF_INIT;
  ks_buf_printf(&b, "(%s)", clang_getCString(sp));
  clang_disposeString(sp);
  *pzCast = ks_buf_detach(&b);
  return *pzCast != NULL;
}

/* `u * S` (either order); u may be widened by a cast when pzCast is given
 * (*pzCast: the cast, or NULL). Returns the stride S. */
static int scaled_ref(CXCursor prod, CXCursor u, CXCursor *pStride, char **pzCast) {
  CXCursor ml, mr;
  if (pzCast) *pzCast = NULL;
  if (!binop(strip(prod), CXBinaryOperator_Mul, &ml, &mr)) return 0;
  if (ref_or_widened(ml, u, pzCast) && !ref_or_widened(mr, u, NULL)) {
    *pStride = mr;
    return 1;
  }
  if (pzCast) free(*pzCast);
  if (ref_or_widened(mr, u, pzCast) && !ref_or_widened(ml, u, NULL)) {
    *pStride = ml;
    return 1;
  }
  if (pzCast) {
    free(*pzCast);
    *pzCast = NULL;
  }
  return 0;
}

/* `u * S + v` (the product in either order, the sum in either order) where u
 * and v are references to the local variables given; u may be widened by a
 * cast when pzCast is given (*pzCast: the cast, or NULL). Returns the stride S. */
static int linear_index(CXCursor idx, CXCursor u, CXCursor v, CXCursor *pStride, char **pzCast) {
  CXCursor l, r;
  if (pzCast) *pzCast = NULL;
  if (!binop(strip(idx), CXBinaryOperator_Add, &l, &r)) return 0;
  for (int iSwap = 0; iSwap < 2; iSwap++) {
    CXCursor prod = iSwap ? r : l, add = iSwap ? l : r;
    if (!refers_to(add, v)) continue;
    if (scaled_ref(prod, u, pStride, pzCast)) return 1;
  }
  return 0;
}

/* A subscript P[index] of pointer parameter P: its parameter index. */
static int subscript(CXCursor kernel, CXCursor c, CXCursor *pIndex) {
  c = strip(c);
  ks_ast_kids k;
  if (kind(c) != CXCursor_ArraySubscriptExpr || ks_ast_kids_get(c, &k) != 2) return -1;
  *pIndex = k.a[1];
  return ks_rw_param_of(kernel, k.a[0]);
}

static int is_zero_literal(ks_tu *pTu, CXCursor c) {
  c = strip(c);
  /* float(0), (float)0, static_cast<float>(0): a template's `T(0)` as its copy writes it */
  if (kind(c) == CXCursor_CXXFunctionalCastExpr || kind(c) == CXCursor_CStyleCastExpr ||
      kind(c) == CXCursor_CXXStaticCastExpr) {
    enum CXTypeKind eT = clang_getCanonicalType(clang_getCursorType(c)).kind;
    ks_ast_kids k;
    int n = ks_ast_kids_get(c, &k);
    if (eT != CXType_Float && eT != CXType_Double && eT != CXType_Int) return 0;
    return n >= 1 && is_zero_literal(pTu, k.a[n - 1]);
  }
  if (kind(c) != CXCursor_IntegerLiteral && kind(c) != CXCursor_FloatingLiteral) return 0;
  char *z = cursor_text(pTu, c);
  if (!z) return 0;
  char *zEnd;
  double r = strtod(z, &zEnd);
  int b = zEnd != z && r == 0.0 && z[0] != '-';
  free(z);
  return b;
}

static char *name_of(CXCursor c) {
  CXString s = clang_getCursorSpelling(c);
  char *z = ks_strdup(clang_getCString(s));
  clang_disposeString(s);
  return z;
}

static char *type_text(CXCursor decl) {
  CXString s = clang_getTypeSpelling(clang_getCursorType(decl));
  char *z = ks_strdup(clang_getCString(s));
  clang_disposeString(s);
  return z;
}

/* A VarDecl and its initializer (or null). */
static void var_init(CXCursor decl, CXCursor *pVar, CXCursor *pInit) {
  ks_ast_kids v;
  *pVar = decl;
  int n = ks_ast_kids_get(decl, &v);
  /* Children of a VarDecl: type references, then the initializer last. */
  *pInit = clang_getNullCursor();
  for (int i = 0; i < n; i++)
    if (clang_isExpression(clang_getCursorKind(v.a[i]))) *pInit = v.a[i];
}

/* The one variable of a DeclStmt, with its initializer (or null). */
static int single_var(CXCursor stmt, CXCursor *pVar, CXCursor *pInit) {
  ks_ast_kids k;
  if (kind(stmt) != CXCursor_DeclStmt || ks_ast_kids_get(stmt, &k) != 1 || kind(k.a[0]) != CXCursor_VarDecl) return 0;
  var_init(k.a[0], pVar, pInit);
  return 1;
}

typedef struct gm_state {
  ks_rewrite *p;
  ks_tu *pTu;
  CXCursor kernel;
  CXCursor aThread[2];
  char acDim[2];
  int nThread;
  CXCursor acc;    /* accumulator variable, null until seen */
  int bLoopSeen, bStoreSeen, bGuard;
  CXCursor guardVar[2], guardBound[2];
  CXCursor kVar, kBound;
  CXCursor aSub, bSub, cIdx;  /* the A and B operands (subscripts), C's index expression */
  int iA, iB, iC;
  CXCursor row, col;
  const char *zWhy;           /* a specific reason to refuse, or NULL */
  unsigned mAccept;           /* KS_GEMM_ACCEPT_* */
  int nRowPtr;                /* row pointers `T *p = P + u * S;` (LINEAR) */
  CXCursor aRowPtr[4], aRowPtrInit[4];
  int bBTrans;                /* B[col * ldb + k] */
  int nEpi;                   /* epilogue statements, between the k-loop and the store */
  CXCursor aEpi[16];
  CXCursor storeVal;          /* the stored expression */
  unsigned mEpiThread;        /* bit t: the epilogue or store reads aThread[t] */
  unsigned long long mEpiRead; /* bit i: the epilogue or store reads parameter array i */
  unsigned long long mEpiParams; /* bit i: the epilogue or store names parameter i (any use) */
  int bATrans;                /* A[k * lda + row] (TRANS_A) */
  int bAccC;                  /* the k-loop accumulates into C[row * ldc + col] (ACC_C) */
  /* The readings of the k-loop's product (A and B, row and col): the store's
   * index settles which one the kernel computes. */
  int nCand;
  struct gm_cand {
    CXCursor xa, xb, row, col;
    int iA, iB, bTA, bTB;
  } aCand[16];
  CXCursor accInit;           /* IDIOMS: the accumulator's start when not 0 (null cursor: 0) */
  int bStoreAdd;              /* IDIOMS: the store is C[idx] += value */
  CXCursor kDecl;             /* IDIOMS: `int k;` declared before the loop `for (k = 0; ...)` */
  CXCursor aScale, aScaled;   /* IDIOMS: the product is `s * X * Y`: s, and X (must be A) */
  /* DUAL (else 0): a second product per k, `acc += p1 + p2` */
  int nCand2;
  struct gm_cand aCand2[16];
  CXCursor aScale2, aScaled2;
  int bDual, iA2, iB2;
  CXCursor aSub2, bSub2;
  CXCursor cScale;            /* IDIOMS: `C[idx] *= s;` before the loop accumulating into C: s */
  int bZeroStore;             /* IDIOMS: C[idx] = 0; before the k-loop accumulating into C */
  CXCursor zeroIdx, zeroSub;  /* its index, its subscript */
  int iZeroC;
  int nOwn;                   /* epilogue reads P[u * S + v] of thread indices u, v (OWN_C) */
  CXCursor aOwnIdx[8], aOwnSub[8];
  int aOwnParam[8];
  /* MODEL (else pShape NULL): */
  ks_shape *pShape;           /* the kernel-shape model */
  fn_macros fn;               /* the function-like macro uses in the body */
  CXCursor kLoop;             /* the k-loop being matched (its LOOP atom) */
  CXCursor cSub;              /* C's subscript: the store, or the k-loop's C[..] += */
  int nBatchVar, nBatchPtr, nKeep;
  CXCursor aBatchVar[2];      /* `int bz = blockIdx.z;` */
  CXCursor aBatchPtr[4];      /* `const float *Ab = A + (size_t)bz * M * K;` */
  int aBatchPtrModel[4];      /* their index in pShape->aPtr */
  CXCursor aKeep[6];          /* the declarations the rewrite keeps, in order */
  int bFma;                   /* IDIOMS: acc = fmaf(x, y, acc) */
  int nHalf;                  /* IDIOMS: halves of the guard seen (guard_half) */
  int nIdxTemp;               /* IDIOMS: `int idx = row * N + col;` under the guard, an index only */
  CXCursor aIdxTemp[2];
  int nLoopTemp;              /* IDIOMS: `float a = A[..];` in the k-loop's body, before the update */
  CXCursor aLoopTemp[2], aLoopTempInit[2];
  char acBare[2];             /* GRID: aThread[t] is blockIdx.d ('b') or threadIdx.d ('t') alone, else 0 */
  int aiBareDim[2];
  int nFlat;                  /* IDIOMS: thread indices t / D, t % D (flat_index) */
  int abFlatRem[2];
  char *zFlatD;               /* D, squashed */
  CXCursor flatBase;          /* the variable t, when one */
  CXCursor flatDiv;           /* D as the first split writes it */
  CXCursor flatQuot;          /* the quotient's variable */
  /* IDIOMS: the flat index bounded before its split, `if (t >= X * D) return;`,
   * `if (t < X * D) {..}`, or a grid-stride loop `for (t = PAR.x; t < X * D;
   * t += gridDim.x * blockDim.x)`: each t below X * D once (flat_guard) */
  int bFlatGuard;
  CXCursor flatBound;         /* X * D */
  CXCursor strideVar;         /* `int stride = gridDim.x * blockDim.x;`, when one */
  /* GRID (else 0): */
  int abTile[2];              /* aThread[t] is blockIdx.d * aTileE[t] + threadIdx.d */
  CXCursor aTileE[2];
  int bTemplate;              /* the kernel is a template */
  /* IDIOMS: pointers the k-loop walks or indexes, `const float *b = B + col;`
   * (walk_decl): offset u * s (s null: u alone), u a thread index */
  int nWalk;
  struct gm_walk {
    CXCursor var, u, s, adv; /* adv: the step of its advance statement (null: ++) */
    int iParam, nAdv;        /* nAdv: advance statements after the update */
  } aWalk[4];
  CXCursor failSt;            /* the statement the match failed at, or null */
  const char *zLoopWhy;       /* why the k-loop did not match, when known */
  char zWhyBuf[320];
} gm_state;

/* Built only from scalar parameters (is_pure_ex); IDIOMS: and integer members
 * of struct parameters passed by value (`d.M`). */
static int pure_of(const gm_state *pS, CXCursor c) {
  return is_pure_ex(pS->kernel, c, (pS->mAccept & KS_GEMM_ACCEPT_IDIOMS) != 0);
}

/* ---- MODEL: layouts read from the kernel-shape model's polynomials ---- */

/* Does [iS, iE) overlap a function-like macro use? */
static int fn_overlap(const gm_state *pS, unsigned iS, unsigned iE) {
  for (int i = 0; i < pS->fn.n; i++)
    if (iS < pS->fn.a[2 * i + 1] && pS->fn.a[2 * i] < (iE > iS ? iE : iS + 1)) return 1;
  return 0;
}

/* Is expression c (partly) written through a function-like macro? Such an
 * index is read from the model, never from its text. */
static int in_fn_macro(const gm_state *pS, CXCursor c) {
  unsigned iS, iE;
  if (!pS->pShape || pS->fn.n == 0) return 0;
  if (ks_ast_extent(pS->pTu, c, &iS, &iE) < 0) return 1;
  return fn_overlap(pS, iS, iE);
}

/* May c's text be copied into the rewrite: no function-like macro use starts
 * or ends inside it without being wholly inside it (whole uses only)? */
static int whole_text(const gm_state *pS, CXCursor c) {
  unsigned iS, iE;
  if (!pS->pShape || pS->fn.n == 0) return 1;
  if (ks_ast_extent(pS->pTu, c, &iS, &iE) < 0) return 0;
  for (int i = 0; i < pS->fn.n; i++) {
    unsigned mS = pS->fn.a[2 * i], mE = pS->fn.a[2 * i + 1];
    if (iS < mE && mS < iE && (mS < iS || mE > iE)) return 0;
  }
  return 1;
}

/* The model's index of a per-batch pointer declared by d, or -1. */
static int batch_ptr_of(const gm_state *pS, CXCursor d) {
  for (int i = 0; i < pS->nBatchPtr; i++)
    if (clang_equalCursors(d, pS->aBatchPtr[i])) return i;
  return -1;
}

/* MODEL: a reference to a per-batch pointer: the parameter it points into. */
static int batch_param(const gm_state *pS, CXCursor base) {
  base = strip(base);
  int i = kind(base) == CXCursor_DeclRefExpr ? batch_ptr_of(pS, clang_getCursorReferenced(base)) : -1;
  return i < 0 ? -1 : pS->pShape->aPtr[pS->aBatchPtrModel[i]].iParam;
}

/* Atoms equal for a layout: the same atom, or the same parameter (the model
 * names a parameter read inside a macro use by the use's text). */
static int atom_eq(const ks_shape *pM, int a, int b) {
  const ks_atom *pA = &pM->aAtom[a], *pB = &pM->aAtom[b];
  return a == b || (pA->eKind == KS_ATOM_UNIFORM && pB->eKind == KS_ATOM_UNIFORM && pA->iRef >= 0 && pA->iRef == pB->iRef);
}

static int mono_eq(const ks_shape *pM, const ks_mono *x, const ks_mono *y) {
  unsigned mUsed = 0;
  if (x->coef != y->coef || x->n != y->n) return 0;
  for (int i = 0; i < x->n; i++) {
    int j = 0;
    while (j < y->n && ((mUsed >> j & 1) || !atom_eq(pM, x->a[i], y->a[j]))) j++;
    if (j == y->n) return 0;
    mUsed |= 1u << j;
  }
  return 1;
}

/* q - r, term by term; 0, or -1 when r has a term q lacks. */
static int poly_sub(const ks_shape *pM, ks_poly *q, const ks_poly *r) {
  for (int i = 0; i < r->n; i++) {
    int j = 0;
    while (j < q->n && !mono_eq(pM, &q->t[j], &r->t[i])) j++;
    if (j == q->n) return -1;
    q->t[j] = q->t[--q->n];
  }
  return 0;
}

/* The index of subscript sub as the model reads it, in elements of the
 * pointer the subscript is written on (a per-batch pointer's offset taken
 * off). 0, or -1 when the model has no such access. */
static int sub_poly(const gm_state *pS, CXCursor sub, ks_poly *pQ) {
  const ks_shape *pM = pS->pShape;
  unsigned iS, iE;
  int bExt = ks_ast_extent(pS->pTu, sub, &iS, &iE) == 0;
  const ks_shape_access *pA = NULL;
  sub = strip(sub);
  for (int i = 0; i < pM->nAccess && !pA; i++)
    if (clang_equalCursors(pM->aAccess[i].cursor, sub)) pA = &pM->aAccess[i];
  for (int i = 0; i < pM->nAccess && !pA && bExt; i++)
    if (pM->aAccess[i].iStart == iS && pM->aAccess[i].iEnd == iE) pA = &pM->aAccess[i];
  if (!pA || pA->index.bIrregular || pA->index.bIndirect) return -1;
  *pQ = pA->index;
  ks_ast_kids k;
  if (ks_ast_kids_get(sub, &k) != 2) return -1;
  CXCursor base = strip(k.a[0]);
  int iB = kind(base) == CXCursor_DeclRefExpr ? batch_ptr_of(pS, clang_getCursorReferenced(base)) : -1;
  if (iB >= 0 && poly_sub(pM, pQ, &pM->aPtr[pS->aBatchPtrModel[iB]].off) < 0) return -1;
  return 0;
}

/* The model's atom of local u: its parallel index PAR.d, or the k-loop's
 * induction variable; -1 when the model has none. */
static int var_atom(const gm_state *pS, CXCursor u) {
  const ks_shape *pM = pS->pShape;
  if (clang_equalCursors(u, pS->kVar)) {
    for (int i = 0; i < pM->nLoop; i++)
      if (clang_equalCursors(pM->aLoop[i].cursor, pS->kLoop)) return pM->aLoop[i].iAtom;
    return -1;
  }
  for (int t = 0; t < pS->nThread; t++)
    if (clang_equalCursors(u, pS->aThread[t]))
      for (int i = 0; i < pM->nAtom; i++)
        if (pM->aAtom[i].eKind == KS_ATOM_PAR && pM->aAtom[i].iDim == pS->acDim[t] - 'x') return i;
  return -1;
}

/* Is q exactly u * S + v, S a positive constant times scalar parameters?
 * *pzS (may be NULL): S as text on the parameters' names (malloc'd); *piParam
 * (may be NULL): S's parameter when S is one, else -1. */
static int poly_linear(const gm_state *pS, const ks_poly *q, int aU, int aV, char **pzS, int *piParam) {
  const ks_shape *pM = pS->pShape;
  if (aU < 0 || aV < 0 || q->bIrregular || q->bIndirect || q->n != 2) return 0;
  for (int iV = 0; iV < 2; iV++) {
    const ks_mono *pV = &q->t[iV], *pU = &q->t[1 - iV];
    if (pV->coef != 1 || pV->n != 1 || pV->a[0] != aV || pU->coef < 1) continue;
    int nU = 0, nP = 0, iP = -1, bOk = 1;
    for (int j = 0; j < pU->n; j++) {
      const ks_atom *pA = &pM->aAtom[pU->a[j]];
      if (pU->a[j] == aU) nU++;
      else if (pA->eKind == KS_ATOM_UNIFORM && pA->iRef >= 0) iP = pA->iRef, nP++;
      else bOk = 0;
    }
    if (!bOk || nU != 1) continue;
    if (piParam) *piParam = pU->coef == 1 && nP == 1 ? iP : -1;
    if (!pzS) return 1;
    ks_buf b = KS_BUF_INIT;
    int rc = pU->coef != 1 || nP == 0 ? ks_buf_printf(&b, "%lld", pU->coef) : 0;
    for (int j = 0; j < pU->n && rc >= 0; j++) {
      if (pU->a[j] == aU) continue;
      CXString sp = clang_getCursorSpelling(ks_rw_param_at(pS->kernel, pM->aAtom[pU->a[j]].iRef));
      rc = ks_buf_printf(&b, "%s%s", b.n ? " * " : "", clang_getCString(sp));
      clang_disposeString(sp);
    }
    *pzS = rc < 0 ? NULL : ks_buf_detach(&b);
    ks_buf_free(&b);
    return *pzS != NULL;
  }
  return 0;
}

/* The model's access whose main-file extent holds [iS, iE), or NULL. */
static const ks_shape_access *access_over(const gm_state *pS, unsigned iS, unsigned iE) {
  for (int i = 0; i < pS->pShape->nAccess; i++) {
    const ks_shape_access *pA = &pS->pShape->aAccess[i];
    if (pA->iStart <= iS && iE <= pA->iEnd) return pA;
  }
  return NULL;
}

static const char *param_spelled(const gm_state *pS, int iP, char *zBuf, size_t nBuf) {
  CXString sp = clang_getCursorSpelling(ks_rw_param_at(pS->kernel, iP));
  snprintf(zBuf, nBuf, "%s", clang_getCString(sp));
  clang_disposeString(sp);
  return zBuf;
}

/* MODEL: every function-like macro use in the body is (inside) the subscript
 * of a global access the model reads as a polynomial. NULL, or why not. */
static const char *fn_macro_check(gm_state *pS) {
  char zP[64];
  for (int i = 0; i < pS->fn.n; i++) {
    const ks_shape_access *pA = access_over(pS, pS->fn.a[2 * i], pS->fn.a[2 * i + 1]);
    if (!pA)
      snprintf(pS->zWhyBuf, sizeof pS->zWhyBuf,
               "function-like macro '%s' is used outside the subscript of a global access (only indexes are read "
               "through macros)", pS->fn.az[i] ? pS->fn.az[i] : "?");
    else if (pA->index.bIrregular || pA->index.bIndirect)
      snprintf(pS->zWhyBuf, sizeof pS->zWhyBuf,
               "the index of %s (line %u), written through macro '%s', is not affine in the thread and loop indexes "
               "(the kernel-shape model reads no polynomial)", param_spelled(pS, pA->iParam, zP, sizeof zP),
               pA->iLine, pS->fn.az[i] ? pS->fn.az[i] : "?");
    else
      continue;
    return pS->zWhyBuf;
  }
  return NULL;
}

/* q as text (ks_shape_poly_text's form), a parameter named by its own name
 * (the model names one read inside a macro use by the use's text). */
static char *poly_text(const gm_state *pS, const ks_poly *q) {
  ks_buf b = KS_BUF_INIT;
  int rc = q->n == 0 ? ks_buf_puts(&b, "0") : 0;
  for (int i = 0; i < q->n && rc >= 0; i++) {
    const ks_mono *m = &q->t[i];
    long long c = m->coef < 0 ? -m->coef : m->coef;
    int bCoef = c != 1 || m->n == 0;
    rc = ks_buf_printf(&b, "%s", i ? (m->coef < 0 ? " - " : " + ") : m->coef < 0 ? "-" : "");
    if (rc >= 0 && bCoef) rc = ks_buf_printf(&b, "%lld", c);
    for (int x = 0; x < m->n && rc >= 0; x++) {
      const ks_atom *pA = &pS->pShape->aAtom[m->a[x]];
      char zP[64];
      rc = ks_buf_printf(&b, "%s%s", (x || bCoef) ? "*" : "",
                         pA->eKind == KS_ATOM_UNIFORM && pA->iRef >= 0 ? param_spelled(pS, pA->iRef, zP, sizeof zP)
                                                                        : pA->zName);
    }
  }
  char *z = rc < 0 ? NULL : ks_buf_detach(&b);
  ks_buf_free(&b);
  return z;
}

/* MODEL, the match failed: an index written through a macro that is not
 * u * ld + v, named with its polynomial; NULL when every such index is. */
static const char *fn_macro_why(gm_state *pS) {
  char zP[64];
  for (int i = 0; i < pS->fn.n; i++) {
    const ks_shape_access *pA = access_over(pS, pS->fn.a[2 * i], pS->fn.a[2 * i + 1]);
    const ks_poly *q = pA ? &pA->index : NULL;
    int bForm = q && q->n == 2 && !q->bIrregular;
    for (int t = 0; bForm && t < 2; t++) {
      int nVar = 0;
      for (int j = 0; j < q->t[t].n; j++) {
        ks_atom_kind e = pS->pShape->aAtom[q->t[t].a[j]].eKind;
        if (e == KS_ATOM_PAR || e == KS_ATOM_LOOP) nVar++;
        else if (e != KS_ATOM_UNIFORM) nVar = 9;
      }
      bForm = nVar == 1 && q->t[t].coef > 0;
    }
    if (!q || bForm) continue;
    char *zQ = poly_text(pS, q);
    snprintf(pS->zWhyBuf, sizeof pS->zWhyBuf,
             "the index of %s (line %u), written through macro '%s', is %s in the kernel-shape model, not u * ld + v "
             "(u, v: the row or column index and k; ld a product of scalar parameters)",
             param_spelled(pS, pA->iParam, zP, sizeof zP), pA->iLine, pS->fn.az[i] ? pS->fn.az[i] : "?", zQ ? zQ : "?");
    free(zQ);
    return pS->zWhyBuf;
  }
  return NULL;
}

/* `u * S + v` at subscript sub (index idx): read from the text (linear_index),
 * or, written through a function-like macro, from the model (*pStride then a
 * null cursor: stride_text recomputes S). */
static int lin_at(gm_state *pS, CXCursor sub, CXCursor idx, CXCursor u, CXCursor v, CXCursor *pStride, char **pzCast) {
  if (pS->bFlatGuard && pS->nFlat == 2 && refers_to(idx, pS->flatBase)) {
    /* IDIOMS: the flat index itself, t = (t / D) * D + t % D: the quotient's row, D the stride */
    if (pzCast) *pzCast = NULL;
    *pStride = pS->flatDiv;
    return clang_equalCursors(u, pS->flatQuot) && !clang_equalCursors(v, pS->flatQuot);
  }
  int bTemp = 0; /* IDIOMS: an index temporary (`C[idx]`): the model reads through it */
  for (int i = 0; i < pS->nIdxTemp; i++) bTemp |= refers_to(idx, pS->aIdxTemp[i]);
  if (!in_fn_macro(pS, idx) && !bTemp) return linear_index(idx, u, v, pStride, pzCast);
  ks_poly q;
  if (pzCast) *pzCast = NULL;
  *pStride = clang_getNullCursor();
  return sub_poly(pS, sub, &q) == 0 && poly_linear(pS, &q, var_atom(pS, u), var_atom(pS, v), NULL, NULL);
}


/* ---- IDIOMS: pointers walked by the k-loop ---- */

/* The walker var is, or -1. */
static int walk_of(gm_state *pS, CXCursor c) {
  c = strip(c);
  for (int i = 0; i < pS->nWalk && kind(c) == CXCursor_DeclRefExpr; i++)
    if (refers_to(c, pS->aWalk[i].var)) return i;
  return -1;
}

/* IDIOMS: `T *p = P + u * S;` or `T *p = P + u;` (either order), P a pointer
 * parameter of p's element type, u a thread index, S built from scalar
 * parameters: a pointer the k-loop may walk (walk_operand). 1 registered. */
static int walk_decl(gm_state *pS, CXCursor var, CXCursor init) {
  CXCursor l, r, s;
  CXType tV = clang_getCanonicalType(clang_getCursorType(var));
  if (!(pS->mAccept & KS_GEMM_ACCEPT_IDIOMS) || pS->nWalk >= 4 || tV.kind != CXType_Pointer ||
      !binop(strip(init), CXBinaryOperator_Add, &l, &r))
    return 0;
  for (int iSwap = 0; iSwap < 2; iSwap++) {
    CXCursor ptr = iSwap ? r : l, off = iSwap ? l : r;
    int iP = ks_rw_param_of(pS->kernel, ptr);
    CXType tP = clang_getCanonicalType(clang_getCursorType(strip(ptr)));
    if (iP < 0 || tP.kind != CXType_Pointer ||
        clang_getCanonicalType(clang_getPointeeType(tP)).kind != clang_getCanonicalType(clang_getPointeeType(tV)).kind)
      continue;
    for (int t = 0; t < pS->nThread; t++) {
      struct gm_walk *w = &pS->aWalk[pS->nWalk];
      if (refers_to(off, pS->aThread[t])) s = clang_getNullCursor();
      else if (!scaled_ref(off, pS->aThread[t], &s, NULL) || !pure_of(pS, s)) continue;
      memset(w, 0, sizeof *w);
      w->var = var, w->u = pS->aThread[t], w->s = s, w->iParam = iP, w->adv = clang_getNullCursor();
      pS->nWalk++;
      return 1;
    }
  }
  return 0;
}

/* A walker's read: `*p`, `*p++` (*pbPost), or p[k] / p[k * S2] (*pbSub, the
 * step *pStep, null for 1). The walker, or -1. */
static int walk_read(gm_state *pS, CXCursor c, int *pbPost, int *pbSub, CXCursor *pStep) {
  ks_ast_kids k;
  c = strip(c);
  *pbPost = *pbSub = 0;
  *pStep = clang_getNullCursor();
  if (kind(c) == CXCursor_ArraySubscriptExpr && ks_ast_kids_get(c, &k) == 2) {
    int iW = walk_of(pS, k.a[0]);
    *pbSub = 1;
    if (iW < 0 || refers_to(k.a[1], pS->kVar)) return iW;
    return scaled_ref(k.a[1], pS->kVar, pStep, NULL) && pure_of(pS, *pStep) ? iW : -1;
  }
  if (kind(c) != CXCursor_UnaryOperator || clang_getCursorUnaryOperatorKind(c) != CXUnaryOperator_Deref ||
      ks_ast_kids_get(c, &k) != 1)
    return -1;
  c = strip(k.a[0]);
  if (kind(c) == CXCursor_UnaryOperator && clang_getCursorUnaryOperatorKind(c) == CXUnaryOperator_PostInc &&
      ks_ast_kids_get(c, &k) == 1) {
    *pbPost = 1;
    c = k.a[0];
  }
  int iW = walk_of(pS, c);
  if (iW >= 0 && !*pbPost) *pStep = pS->aWalk[iW].adv;
  return iW;
}

/* IDIOMS: operand c read through a walker as P[u * S + v] (operand's terms):
 * P[u * S + k] from P + u * S read at unit steps (p[k], `*p++`, `*p; ++p;`),
 * P[k * S2 + v] from P + v read at steps of S2 (p[k * S2], `*p; p += S2;`).
 * walk_check makes sure each walker steps once per k. -1 c is no walker's
 * read, 0 not these terms, 1 matched. */
static int walk_operand(gm_state *pS, CXCursor c, CXCursor u, CXCursor v, int *piParam, CXCursor *pStride) {
  int bPost, bSub;
  CXCursor step;
  int iW = walk_read(pS, c, &bPost, &bSub, &step);
  if (iW < 0) return -1;
  const struct gm_walk *w = &pS->aWalk[iW];
  int bUnit = clang_Cursor_isNull(step);
  if (clang_equalCursors(v, pS->kVar) && bUnit && !clang_Cursor_isNull(w->s) && clang_equalCursors(w->u, u))
    *pStride = w->s;
  else if (clang_equalCursors(u, pS->kVar) && !bUnit && clang_Cursor_isNull(w->s) && clang_equalCursors(w->u, v))
    *pStride = step;
  else
    return 0;
  *piParam = w->iParam;
  return 1;
}

/* IDIOMS: a statement advancing a walker after the k-loop's update, `p++;`,
 * `++p;`, `p += S;` (S built from scalar parameters): counted on it. */
static int walk_advance(gm_state *pS, CXCursor st) {
  ks_ast_kids k;
  CXCursor l, r;
  int iW = -1;
  CXCursor step = clang_getNullCursor();
  if (kind(st) == CXCursor_UnaryOperator && ks_ast_kids_get(st, &k) == 1 &&
      (clang_getCursorUnaryOperatorKind(st) == CXUnaryOperator_PostInc ||
       clang_getCursorUnaryOperatorKind(st) == CXUnaryOperator_PreInc))
    iW = walk_of(pS, k.a[0]);
  else if (binop(st, CXBinaryOperator_AddAssign, &l, &r) && pure_of(pS, r))
    iW = walk_of(pS, l), step = r;
  if (iW < 0) return 0;
  pS->aWalk[iW].adv = step;
  pS->aWalk[iW].nAdv++;
  return 1;
}

typedef struct walk_count {
  gm_state *pS;
  int anRef[4], anPost[4], anDeref[4];
  int bBad;
} walk_count;

static enum CXChildVisitResult walk_count_visit(CXCursor c, CXCursor parent, CXClientData d) {
  walk_count *pW = d;
  int iW = walk_of(pW->pS, c);
  (void)parent;
  if (iW >= 0 && kind(c) == CXCursor_DeclRefExpr) pW->anRef[iW]++;
  if (kind(c) == CXCursor_UnaryOperator) {
    ks_ast_kids k;
    enum CXUnaryOperatorKind e = clang_getCursorUnaryOperatorKind(c);
    int iK = ks_ast_kids_get(c, &k) == 1 ? walk_of(pW->pS, k.a[0]) : -1;
    ks_ast_kids kk;
    CXCursor in = iK < 0 && e == CXUnaryOperator_Deref ? strip(k.a[0]) : clang_getNullCursor();
    if (!clang_Cursor_isNull(in) && kind(in) == CXCursor_UnaryOperator &&
        clang_getCursorUnaryOperatorKind(in) == CXUnaryOperator_PostInc && ks_ast_kids_get(in, &kk) == 1)
      iK = walk_of(pW->pS, kk.a[0]); /* *p++ */
    if (iK >= 0 && e == CXUnaryOperator_PostInc) pW->anPost[iK]++;
    else if (iK >= 0 && e == CXUnaryOperator_Deref) pW->anDeref[iK]++;
    else if (iK >= 0) pW->bBad = 1; /* --p, &p, ... */
  }
  if ((kind(c) == CXCursor_BinaryOperator || kind(c) == CXCursor_CompoundAssignOperator) &&
      clang_getCursorBinaryOperatorKind(c) >= CXBinaryOperator_Assign &&
      clang_getCursorBinaryOperatorKind(c) <= CXBinaryOperator_OrAssign) {
    ks_ast_kids k;
    if (ks_ast_kids_get(c, &k) == 2 && walk_of(pW->pS, k.a[0]) >= 0) pW->bBad = 1;
  }
  return CXChildVisit_Recurse;
}

/* IDIOMS: the k-loop's reads of walkers (statements aSt[0..n) but its
 * advances): each walker read at most once per k; one read `*p` advances
 * exactly once (`*p++` or one advance statement), one read p[..] never.
 * NULL, or why not. */
static const char *walk_check(gm_state *pS, const CXCursor *aSt, int n) {
  walk_count wc;
  memset(&wc, 0, sizeof wc);
  wc.pS = pS;
  for (int i = 0; i < n; i++) {
    walk_count_visit(aSt[i], aSt[i], &wc);
    clang_visitChildren(aSt[i], walk_count_visit, &wc);
  }
  if (wc.bBad) return "the k-loop re-seats a pointer it reads other than by one `p++` or `p += step` per k after the read "
                          "(step built from scalar parameters)";
  for (int i = 0; i < pS->nWalk; i++) {
    int nStep = wc.anPost[i] + pS->aWalk[i].nAdv;
    if (wc.anRef[i] > 1) return "the k-loop reads a walked pointer more than once per k";
    if (wc.anRef[i] == 0 && nStep) return "the k-loop advances a pointer it does not read";
    if (wc.anRef[i] && wc.anDeref[i] && nStep != 1)
      return "the k-loop reads `*p` but advances p other than once per k (p++ or p += step after the read)";
    if (wc.anRef[i] && !wc.anDeref[i] && nStep) return "the k-loop indexes a pointer it also advances";
  }
  return NULL;
}

/* A GEMM operand: P[u * S + v] with P a pointer parameter, or (LINEAR) R[v]
 * with R a row pointer `P + u * S`. *piParam: P; *pStride: S; *pzCast as for
 * linear_index. */
static int operand(gm_state *pS, CXCursor c, CXCursor u, CXCursor v, int *piParam, CXCursor *pStride, char **pzCast) {
  ks_ast_kids k;
  if (pzCast) *pzCast = NULL;
  int rcW = pS->nWalk ? walk_operand(pS, c, u, v, piParam, pStride) : -1;
  if (rcW >= 0) return rcW;
  c = strip(c);
  if (kind(c) != CXCursor_ArraySubscriptExpr || ks_ast_kids_get(c, &k) != 2) return 0;
  int iP = ks_rw_param_of(pS->kernel, k.a[0]);
  if (iP < 0 && pS->pShape) iP = batch_param(pS, k.a[0]);
  if (iP >= 0) {
    if (!lin_at(pS, c, k.a[1], u, v, pStride, pzCast)) return 0;
    *piParam = iP;
    return 1;
  }
  CXCursor base = strip(k.a[0]);
  if (!(pS->mAccept & KS_GEMM_ACCEPT_LINEAR) || kind(base) != CXCursor_DeclRefExpr || !refers_to(k.a[1], v)) return 0;
  CXCursor d = clang_getCursorReferenced(base);
  for (int i = 0; i < pS->nRowPtr; i++) {
    CXCursor l, r;
    if (!clang_equalCursors(d, pS->aRowPtr[i])) continue;
    if (!binop(strip(pS->aRowPtrInit[i]), CXBinaryOperator_Add, &l, &r)) return 0;
    for (int iSwap = 0; iSwap < 2; iSwap++) {
      CXCursor ptr = iSwap ? r : l, prod = iSwap ? l : r;
      iP = ks_rw_param_of(pS->kernel, ptr);
      if (iP < 0 || clang_getCanonicalType(clang_getCursorType(strip(ptr))).kind != CXType_Pointer) continue;
      if (scaled_ref(prod, u, pStride, pzCast)) {
        *piParam = iP;
        return 1;
      }
    }
    return 0;
  }
  return 0;
}

/* ---- the epilogue (LINEAR): acc updated from itself, literals, scalar
 * parameters, parameter arrays indexed by row or col, a few math functions ---- */

typedef struct epi_walk {
  gm_state *pS;
  int bBad, bAcc;
} epi_walk;

static int epi_function(CXCursor fn) {
  static const char *const az[] = {"fmaxf", "fminf", "fmax", "fmin", "fabsf", "fabs", "expf", "exp", "tanhf",
                                   "tanh", "sqrtf", "sqrt", "erff", "erf", "__expf", NULL};
  CXString s = clang_getCursorSpelling(fn);
  int bOk = 0;
  for (int i = 0; az[i] && !bOk; i++) bOk = strcmp(az[i], clang_getCString(s)) == 0;
  clang_disposeString(s);
  return bOk;
}

/* A null pointer constant: NULL (__null, ((void *)0)), nullptr, 0. */
static int is_null_ptr(ks_tu *pTu, CXCursor c) {
  c = strip(c);
  if (kind(c) == CXCursor_CStyleCastExpr) {
    ks_ast_kids k;
    int n = ks_ast_kids_get(c, &k);
    if (n < 1) return 0;
    c = strip(k.a[n - 1]);
  }
  return kind(c) == CXCursor_GNUNullExpr || kind(c) == CXCursor_CXXNullPtrLiteralExpr ||
         (kind(c) == CXCursor_IntegerLiteral && is_zero_literal(pTu, c));
}

/* IDIOMS: `P == NULL` / `P != NULL` (either order) of a pointer parameter P. */
static int null_check(gm_state *pS, CXCursor c) {
  ks_ast_kids k;
  if (!(pS->mAccept & KS_GEMM_ACCEPT_IDIOMS) || ks_ast_kids_get(c, &k) != 2) return 0;
  for (int i = 0; i < 2; i++) {
    CXCursor v = strip(k.a[i]);
    if (kind(v) == CXCursor_DeclRefExpr && ks_rw_param_of(pS->kernel, v) >= 0 &&
        clang_getCanonicalType(clang_getCursorType(v)).kind == CXType_Pointer && is_null_ptr(pS->pTu, k.a[1 - i]))
      return 1;
  }
  return 0;
}

/* IDIOMS: a pointer parameter P as a truth value, `P` or `!P` (P != NULL,
 * P == NULL). */
static int ptr_truth(gm_state *pS, CXCursor c) {
  ks_ast_kids k;
  c = strip(c);
  if (kind(c) == CXCursor_UnaryOperator && clang_getCursorUnaryOperatorKind(c) == CXUnaryOperator_LNot &&
      ks_ast_kids_get(c, &k) == 1)
    c = strip(k.a[0]);
  return (pS->mAccept & KS_GEMM_ACCEPT_IDIOMS) && kind(c) == CXCursor_DeclRefExpr && ks_rw_param_of(pS->kernel, c) >= 0 &&
         clang_getCanonicalType(clang_getCursorType(c)).kind == CXType_Pointer;
}

static enum CXChildVisitResult epi_visit(CXCursor c, CXCursor parent, CXClientData d);

/* IDIOMS: `P ? x : y` with P a pointer parameter (a NULL-checked bias): x
 * and y walked as epilogue expressions. */
static enum CXChildVisitResult epi_ptr_cond(epi_walk *pW, CXCursor c, const ks_ast_kids *pK) {
  for (int i = 1; i < 3 && !pW->bBad; i++)
    if (epi_visit(pK->a[i], c, pW) == CXChildVisit_Recurse && !pW->bBad) clang_visitChildren(pK->a[i], epi_visit, pW);
  return pW->bBad ? CXChildVisit_Break : CXChildVisit_Continue;
}

static int epi_thread(gm_state *pS, CXCursor c) {
  for (int t = 0; t < pS->nThread; t++)
    if (refers_to(c, pS->aThread[t])) {
      pS->mEpiThread |= 1u << t;
      return 1;
    }
  return 0;
}

static enum CXChildVisitResult epi_visit(CXCursor c, CXCursor parent, CXClientData d) {
  (void)parent;
  epi_walk *pW = d;
  gm_state *pS = pW->pS;
  ks_ast_kids k;
  switch (kind(c)) {
  case CXCursor_DeclRefExpr: {
    CXCursor r = clang_getCursorReferenced(c);
    if (clang_equalCursors(r, pS->acc)) pW->bAcc = 1;
    else if (epi_thread(pS, c)) {
    } else if (kind(r) == CXCursor_FunctionDecl) {
      if (!epi_function(r)) pW->bBad = 1, pS->zWhy = "the epilogue calls a function this rule does not know";
    } else if (ks_rw_param_of(pS->kernel, c) < 0) {
      pW->bBad = 1, pS->zWhy = "the epilogue reads a local variable other than the accumulator, row and col";
    } else if (clang_getCanonicalType(clang_getCursorType(c)).kind == CXType_Pointer) {
      pW->bBad = 1, pS->zWhy = "the epilogue uses a pointer parameter other than as P[row] or P[col]";
    }
    return pW->bBad ? CXChildVisit_Break : CXChildVisit_Continue;
  }
  case CXCursor_IntegerLiteral:
  case CXCursor_FloatingLiteral:
  case CXCursor_TypeRef:
    return CXChildVisit_Continue;
  case CXCursor_ConditionalOperator:
    if (ks_ast_kids_get(c, &k) == 3 && ptr_truth(pS, k.a[0])) return epi_ptr_cond(pW, c, &k);
    return CXChildVisit_Recurse;
  case CXCursor_UnexposedExpr:
  case CXCursor_ParenExpr:
  case CXCursor_CStyleCastExpr:
  case CXCursor_CallExpr:
    return CXChildVisit_Recurse;
  case CXCursor_UnaryOperator: {
    enum CXUnaryOperatorKind e = clang_getCursorUnaryOperatorKind(c);
    if (e != CXUnaryOperator_Minus && e != CXUnaryOperator_Plus && e != CXUnaryOperator_LNot) break;
    return CXChildVisit_Recurse;
  }
  case CXCursor_BinaryOperator: {
    if ((clang_getCursorBinaryOperatorKind(c) == CXBinaryOperator_EQ ||
         clang_getCursorBinaryOperatorKind(c) == CXBinaryOperator_NE) &&
        null_check(pS, c))
      return CXChildVisit_Continue;
    switch (clang_getCursorBinaryOperatorKind(c)) {
    case CXBinaryOperator_Add: case CXBinaryOperator_Sub: case CXBinaryOperator_Mul: case CXBinaryOperator_Div:
    case CXBinaryOperator_LT: case CXBinaryOperator_GT: case CXBinaryOperator_LE: case CXBinaryOperator_GE:
    case CXBinaryOperator_EQ: case CXBinaryOperator_NE: case CXBinaryOperator_LAnd: case CXBinaryOperator_LOr:
      return CXChildVisit_Recurse;
    default:
      break;
    }
    break;
  }
  case CXCursor_ArraySubscriptExpr: {
    int iP = ks_ast_kids_get(c, &k) == 2 ? ks_rw_param_of(pS->kernel, k.a[0]) : -1;
    CXCursor sOwn;
    if (iP >= 0 && iP < 64 && (pS->mAccept & KS_GEMM_ACCEPT_OWN_C) && pS->nThread == 2 && pS->nOwn < 8 &&
        (linear_index(k.a[1], pS->aThread[0], pS->aThread[1], &sOwn, NULL) ||
         linear_index(k.a[1], pS->aThread[1], pS->aThread[0], &sOwn, NULL))) {
      /* P[row * ld + col]: allowed for C's own output only, checked once C is known */
      pS->aOwnIdx[pS->nOwn] = k.a[1];
      pS->aOwnSub[pS->nOwn] = c;
      pS->aOwnParam[pS->nOwn++] = iP;
      pS->mEpiThread |= 3u;
      return CXChildVisit_Continue;
    }
    if (iP < 0 || iP >= 64) {
      pS->zWhy = "the epilogue reads an array that is not a parameter";
    } else if (!epi_thread(pS, k.a[1])) {
      pS->zWhy = "the epilogue reads a parameter array at an index other than row or col";
    } else {
      pS->mEpiRead |= 1ull << iP;
      return CXChildVisit_Continue;
    }
    pW->bBad = 1;
    return CXChildVisit_Break;
  }
  default:
    break;
  }
  pW->bBad = 1;
  if (!pS->zWhy) pS->zWhy = "the epilogue has an expression this rule does not understand";
  return CXChildVisit_Break;
}

/* ks_rw_walk visitor: every kernel parameter an epilogue statement or the
 * stored value names, into mEpiParams (what a copy of them elsewhere needs). */
static int epi_param_visit(CXCursor c, const CXCursor *aAnc, int nAnc, void *pArg) {
  (void)aAnc, (void)nAnc;
  gm_state *pS = pArg;
  int iP = kind(c) == CXCursor_DeclRefExpr ? ks_rw_param_of(pS->kernel, c) : -1;
  if (iP >= 0 && iP < 64) pS->mEpiParams |= 1ull << iP;
  return 0;
}

/* The parameters the epilogue statements and the stored value name (each
 * root visited too: ks_rw_walk starts below it). */
static unsigned long long epi_params(gm_state *pS) {
  for (int i = 0; i <= pS->nEpi; i++) {
    CXCursor root = i < pS->nEpi ? pS->aEpi[i] : pS->storeVal;
    if (clang_Cursor_isNull(root)) continue;
    epi_param_visit(root, NULL, 0, pS);
    ks_rw_walk(root, epi_param_visit, pS);
  }
  return pS->mEpiParams;
}

/* Is e an epilogue expression? *pbAcc: it reads the accumulator. */
static int epi_expr(gm_state *pS, CXCursor e, int *pbAcc) {
  epi_walk w = {pS, 0, 0};
  /* the walk looks at children: start it from a parent-less visit of e itself */
  enum CXChildVisitResult r = epi_visit(e, e, &w);
  if (r == CXChildVisit_Recurse && !w.bBad) clang_visitChildren(e, epi_visit, &w);
  if (pbAcc) *pbAcc = w.bAcc;
  return !w.bBad;
}

static int epi_update(gm_state *pS, CXCursor st);

/* IDIOMS: `if (cond) update` / `if (cond) { updates }`, no else: cond a
 * pointer parameter's NULL check or an epilogue expression, each update
 * `acc op= e;` (a bias added when given). */
static int epi_if(gm_state *pS, CXCursor st) {
  ks_ast_kids f, b;
  if (ks_ast_kids_get(st, &f) != 2) {
    pS->zWhy = "an if with an else between the k-loop and the store";
    return 0;
  }
  if (!ptr_truth(pS, f.a[0]) && !epi_expr(pS, f.a[0], NULL)) return 0;
  if (kind(f.a[1]) != CXCursor_CompoundStmt) return epi_update(pS, f.a[1]);
  int n = ks_ast_kids_get(f.a[1], &b);
  for (int i = 0; i < n; i++)
    if (!epi_update(pS, b.a[i])) return 0;
  return n >= 0;
}

/* `acc op= e;` or `acc = e;` with e an epilogue expression (IDIOMS: or such
 * statements under an if, epi_if). */
static int epi_update(gm_state *pS, CXCursor st) {
  CXCursor l, r;
  int bOk = 0;
  if (kind(st) == CXCursor_IfStmt && (pS->mAccept & KS_GEMM_ACCEPT_IDIOMS)) return epi_if(pS, st);
  if (kind(st) == CXCursor_CompoundAssignOperator) {
    enum CXBinaryOperatorKind e = clang_getCursorBinaryOperatorKind(st);
    bOk = e == CXBinaryOperator_AddAssign || e == CXBinaryOperator_SubAssign || e == CXBinaryOperator_MulAssign ||
          e == CXBinaryOperator_DivAssign;
  } else if (kind(st) == CXCursor_BinaryOperator) {
    bOk = clang_getCursorBinaryOperatorKind(st) == CXBinaryOperator_Assign;
  }
  if (!bOk || !binop(st, clang_getCursorBinaryOperatorKind(st), &l, &r) || !refers_to(l, pS->acc)) {
    pS->zWhy = "a statement between the k-loop and the store is not an update of the accumulator (acc op= expression)";
    return 0;
  }
  return epi_expr(pS, r, NULL);
}

/* An epilogue statement (epi_update), kept as written. */
static int match_epilogue(gm_state *pS, CXCursor st) {
  if (!epi_update(pS, st)) return 0;
  if (pS->nEpi >= 16) {
    pS->zWhy = "more than 16 epilogue statements";
    return 0;
  }
  pS->aEpi[pS->nEpi++] = st;
  return 1;
}

/* `a < M && b < N` (bEarly: `a >= M || b >= N`). */
static int guard_cond(gm_state *pS, CXCursor cond, int bEarly) {
  CXCursor l, r, vl, bl, vr, br;
  if (pS->nHalf) return 0; /* half a guard already: the other half alone */
  enum CXBinaryOperatorKind eJoin = bEarly ? CXBinaryOperator_LOr : CXBinaryOperator_LAnd;
  enum CXBinaryOperatorKind eCmp = bEarly ? CXBinaryOperator_GE : CXBinaryOperator_LT;
  if (!binop(strip(cond), eJoin, &l, &r)) return 0;
  if (!binop(strip(l), eCmp, &vl, &bl) || !binop(strip(r), eCmp, &vr, &br)) return 0;
  pS->guardVar[0] = strip(vl);
  pS->guardBound[0] = bl;
  pS->guardVar[1] = strip(vr);
  pS->guardBound[1] = br;
  pS->bGuard = 1;
  return 1;
}

/* IDIOMS: one half of the guard, `a < M` (bEarly: `a >= M`), the other in
 * an if nested in this one's body or in the next early return: the guard is
 * whole once both are seen. */
static int guard_half(gm_state *pS, CXCursor cond, int bEarly) {
  CXCursor v, b;
  if (pS->nHalf >= 2 || !binop(strip(cond), bEarly ? CXBinaryOperator_GE : CXBinaryOperator_LT, &v, &b)) return 0;
  pS->guardVar[pS->nHalf] = strip(v);
  pS->guardBound[pS->nHalf++] = b;
  if (pS->nHalf == 2) pS->bGuard = 1;
  return 1;
}

/* The output's subscript P[index] (MODEL: also Pb[index] of a per-batch
 * pointer Pb): P's parameter index, or -1. */
static int out_subscript(gm_state *pS, CXCursor c, CXCursor *pIndex) {
  int iP = subscript(pS->kernel, c, pIndex);
  ks_ast_kids k;
  c = strip(c);
  if (iP >= 0 || !pS->pShape || kind(c) != CXCursor_ArraySubscriptExpr || ks_ast_kids_get(c, &k) != 2) return iP;
  *pIndex = k.a[1];
  return batch_param(pS, k.a[0]);
}

/* The reading of the product whose row and col make idx `row * S + col`
 * (S the C stride); it becomes the match's A, B, row, col. */
static int pick_reading(gm_state *pS, CXCursor sub, CXCursor idx) {
  for (int i = 0; i < pS->nCand; i++) {
    const struct gm_cand *pC = &pS->aCand[i];
    CXCursor s;
    char *zCast = NULL;
    int bHit = lin_at(pS, sub, idx, pC->row, pC->col, &s, &zCast);
    free(zCast);
    if (!bHit) continue;
    pS->aSub = pC->xa;
    pS->bSub = pC->xb;
    pS->iA = pC->iA;
    pS->iB = pC->iB;
    pS->row = pC->row;
    pS->col = pC->col;
    pS->bATrans = pC->bTA;
    pS->bBTrans = pC->bTB;
    /* DUAL: the second product's reading over the same row, col and layouts */
    for (int j = 0; j < pS->nCand2 && pS->bDual; j++) {
      const struct gm_cand *q = &pS->aCand2[j];
      if (clang_equalCursors(q->row, pC->row) && clang_equalCursors(q->col, pC->col) && q->bTA == pC->bTA &&
          q->bTB == pC->bTB) {
        pS->aSub2 = q->xa, pS->bSub2 = q->xb, pS->iA2 = q->iA, pS->iB2 = q->iB;
        return 1;
      }
    }
    if (!pS->bDual) return 1;
    pS->zWhy = "its two products per k are not GEMMs of the same layouts over the same row and column";
  }
  return 0;
}

/* A scalar factor of a product: a floating-point parameter or literal of
 * the type of `other` (no widening: a double alpha times float data computes
 * in double). */
static int scalar_factor(gm_state *pS, CXCursor c, CXCursor other) {
  c = strip(c);
  enum CXTypeKind e = clang_getCanonicalType(clang_getCursorType(c)).kind;
  if ((e != CXType_Float && e != CXType_Double) || e != clang_getCanonicalType(clang_getCursorType(strip(other))).kind)
    return 0;
  return kind(c) == CXCursor_FloatingLiteral || (kind(c) == CXCursor_DeclRefExpr && ks_rw_param_of(pS->kernel, c) >= 0);
}

/* IDIOMS: the element a cache-hinted factor loads (`__ldg(&A[..])`:
 * ks_rw_cache_load_elem), else c itself. */
static CXCursor hinted_load(CXCursor c) {
  CXCursor e = ks_rw_cache_load_elem(c);
  return clang_Cursor_isNull(e) ? c : e;
}

/* The readings of product prod (`x * y`, or IDIOMS `s * x * y`: *pScale s,
 * *pScaled x) over k-loop counter var, into aCand / *pnCand: A indexed row *
 * lda + k (or, TRANS_A, k * lda + row), B indexed k * ldb + col (or, LINEAR,
 * col * ldb + k: given transposed), the factors in either order, row and col
 * either thread index. The store's index (match_store) picks the one the
 * kernel computes. 0 when prod is not a product. */
static int prod_cands(gm_state *pS, CXCursor prod, CXCursor var, struct gm_cand *aCand, int *pnCand, CXCursor *pScale,
                      CXCursor *pScaled) {
  CXCursor l, r, ml, mr, s;
  if (kind(strip(prod)) == CXCursor_CallExpr && pS->bFma) { /* fmaf(x, y, acc): its factors */
    l = clang_Cursor_getArgument(strip(prod), 0);
    r = clang_Cursor_getArgument(strip(prod), 1);
  } else if (!binop(strip(prod), CXBinaryOperator_Mul, &l, &r)) {
    return 0;
  }
  if ((pS->mAccept & KS_GEMM_ACCEPT_IDIOMS) && binop(strip(l), CXBinaryOperator_Mul, &ml, &mr)) {
    if (scalar_factor(pS, ml, mr)) *pScale = ml, l = mr;
    else if (scalar_factor(pS, mr, ml)) *pScale = mr, l = ml;
    if (!clang_Cursor_isNull(*pScale)) *pScaled = l;
  }
  /* IDIOMS: a factor named by a temporary of the loop's body is its load; a
   * cache-hinted load (`__ldg(&A[..])`) is the element's load */
  for (int i = 0; i < pS->nLoopTemp; i++) {
    if (refers_to(l, pS->aLoopTemp[i])) l = pS->aLoopTempInit[i];
    if (refers_to(r, pS->aLoopTemp[i])) r = pS->aLoopTempInit[i];
  }
  if (pS->mAccept & KS_GEMM_ACCEPT_IDIOMS) {
    l = hinted_load(l);
    r = hinted_load(r);
  }
  int nTB = pS->mAccept & KS_GEMM_ACCEPT_LINEAR ? 2 : 1, nTA = pS->mAccept & KS_GEMM_ACCEPT_TRANS_A ? 2 : 1;
  for (int bTB = 0; bTB < nTB; bTB++)
    for (int bTA = 0; bTA < nTA; bTA++)
      for (int iSwap = 0; iSwap < 2; iSwap++) {
        CXCursor xa = iSwap ? r : l, xb = iSwap ? l : r;
        for (int t = 0; t < pS->nThread && pS->nThread == 2 && *pnCand < 16; t++) {
          CXCursor rowV = pS->aThread[t], colV = pS->aThread[1 - t];
          char *zCa = NULL, *zCb = NULL;
          int iPa = -1, iPb = -1;
          int bHit = (bTA ? operand(pS, xa, var, rowV, &iPa, &s, &zCa) : operand(pS, xa, rowV, var, &iPa, &s, &zCa)) &&
                     (bTB ? operand(pS, xb, colV, var, &iPb, &s, &zCb) : operand(pS, xb, var, colV, &iPb, &s, &zCb));
          free(zCa);
          free(zCb);
          if (bHit) {
            struct gm_cand *pC = &aCand[(*pnCand)++];
            pC->xa = xa, pC->xb = xb, pC->row = rowV, pC->col = colV;
            pC->iA = iPa, pC->iB = iPb, pC->bTA = bTA, pC->bTB = bTB;
          }
        }
      }
  return 1;
}

/* IDIOMS: is c `fmaf(x, y, acc)` (fma, __fmaf_rn: one rounding, as the
 * template's mac_fma computes) with acc the accumulator? */
static int fma_call(CXCursor c, CXCursor acc) {
  if (kind(c) != CXCursor_CallExpr || clang_Cursor_getNumArguments(c) != 3) return 0;
  char *z = ks_rw_spelling(c);
  int bFma = z && (!strcmp(z, "fmaf") || !strcmp(z, "fma") || !strcmp(z, "__fmaf_rn"));
  free(z);
  enum CXTypeKind e = clang_getCanonicalType(clang_getCursorType(c)).kind;
  return bFma && e == clang_getCanonicalType(clang_getCursorType(acc)).kind && refers_to(clang_Cursor_getArgument(c, 2), acc);
}

/* The k-loop's increment: the counter's step (*pInc) and, IDIOMS, walkers'
 * advances joined by commas (`++k, b += N`: run after the body, as an
 * advance last in it is). 0 when two parts are not advances. */
static int header_advances(gm_state *pS, CXCursor c, CXCursor *pInc) {
  CXCursor l, r;
  c = strip(c);
  if (pS->nWalk && binop(c, CXBinaryOperator_Comma, &l, &r))
    return header_advances(pS, l, pInc) && header_advances(pS, r, pInc);
  if (pS->nWalk && walk_advance(pS, c)) return 1;
  if (!clang_Cursor_isNull(*pInc)) return 0;
  *pInc = c;
  return 1;
}

/* Why the k-loop did not match, unless a reason is known already (the
 * model's reading of a macro index comes first: match_kernel). 0. */
static int loop_fail(gm_state *pS, const char *zWhy) {
  if (!pS->zLoopWhy) pS->zLoopWhy = zWhy;
  return 0;
}

static int match_loop(gm_state *pS, CXCursor loop) {
  ks_ast_kids k, b;
  CXCursor var, init, l, r, sum = clang_getNullCursor(), prod;
  if (ks_ast_kids_get(loop, &k) != 4) return 0; /* init, cond, inc, body all present */
  CXCursor al, ar;
  if (!clang_Cursor_isNull(pS->kDecl) && binop(k.a[0], CXBinaryOperator_Assign, &al, &ar) && refers_to(al, pS->kDecl) &&
      is_zero_literal(pS->pTu, ar)) {
    var = pS->kDecl; /* IDIOMS: int k; for (k = 0; ...) */
  } else if (!single_var(k.a[0], &var, &init) || clang_Cursor_isNull(init) || !is_zero_literal(pS->pTu, init)) {
    return loop_fail(pS, "the k-loop does not start its counter at 0");
  }
  if (!ks_rw_is_integer_type(clang_getCursorType(var))) return loop_fail(pS, "the k-loop's counter is not an integer");
  if (!binop(strip(k.a[1]), CXBinaryOperator_LT, &l, &r) || !refers_to(l, var) || !pure_of(pS, r))
    return loop_fail(pS, "the k-loop's condition is not `k < K` with K built from scalar parameters");
  /* ++k, k++, k += 1 (IDIOMS: with walkers' advances, `++k, b += N`) */
  CXCursor inc = clang_getNullCursor();
  if (!header_advances(pS, k.a[2], &inc) || clang_Cursor_isNull(inc))
    return loop_fail(pS, "the k-loop's increment is more than the counter's step and advances of walked pointers");
  if (kind(inc) == CXCursor_UnaryOperator) {
    enum CXUnaryOperatorKind e = clang_getCursorUnaryOperatorKind(inc);
    ks_ast_kids u;
    if ((e != CXUnaryOperator_PreInc && e != CXUnaryOperator_PostInc) || ks_ast_kids_get(inc, &u) != 1 ||
        !refers_to(u.a[0], var))
      return loop_fail(pS, "the k-loop does not step its counter by 1");
  } else {
    CXCursor il, ir;
    char *z = NULL;
    if (!binop(inc, CXBinaryOperator_AddAssign, &il, &ir) || !refers_to(il, var))
      return loop_fail(pS, "the k-loop does not step its counter by 1");
    z = cursor_text(pS->pTu, strip(ir));
    int bOne = z && strcmp(z, "1") == 0;
    free(z);
    if (!bOne) return loop_fail(pS, "the k-loop does not step its counter by 1");
  }
  pS->kVar = var;
  pS->kBound = r;
  pS->kLoop = loop;
  CXCursor body = k.a[3];
  if (kind(body) == CXCursor_CompoundStmt) {
    int nB = ks_ast_kids_get(body, &b);
    while (nB > 1 && pS->nWalk && walk_advance(pS, b.a[nB - 1])) nB--; /* IDIOMS: `p += S;` last */
    if (nB < 1 || (nB > 1 && !(pS->mAccept & KS_GEMM_ACCEPT_IDIOMS)) || nB > 3)
      return loop_fail(pS, "the k-loop's body is more than the update (loads of its factors into temporaries first, "
                           "pointer advances last)");
    const char *zWalk = pS->nWalk ? walk_check(pS, b.a, nB) : NULL;
    if (zWalk) return loop_fail(pS, zWalk);
    /* IDIOMS: `float a = A[..]; float b = B[..];` first, the factors by name */
    pS->nLoopTemp = 0;
    for (int i = 0; i + 1 < nB; i++) {
      CXCursor tv, ti;
      enum CXTypeKind eT = CXType_Invalid;
      if (single_var(b.a[i], &tv, &ti)) eT = clang_getCanonicalType(clang_getCursorType(tv)).kind;
      if ((eT != CXType_Float && eT != CXType_Double) || clang_Cursor_isNull(ti) ||
          kind(strip(ti)) != CXCursor_ArraySubscriptExpr ||
          clang_getCanonicalType(clang_getCursorType(strip(ti))).kind != eT)
        return loop_fail(pS, "a statement of the k-loop's body before its update is not a load of a factor into a "
                             "temporary of the accumulator's type (`float a = A[..];`)");
      pS->aLoopTemp[pS->nLoopTemp] = tv;
      pS->aLoopTempInit[pS->nLoopTemp++] = strip(ti);
    }
    body = b.a[nB - 1];
  } else if (pS->nWalk) {
    const char *zWalk = walk_check(pS, &body, 1);
    if (zWalk) return loop_fail(pS, zWalk);
  }
  /* acc += x * y  |  acc = acc + x * y  |  acc = x * y + acc  |  (ACC_C) C[idx] += x * y */
  CXCursor accC = clang_getNullCursor();
  if (clang_Cursor_isNull(pS->acc)) {
    CXCursor idx;
    if (!binop(body, CXBinaryOperator_AddAssign, &l, &r) || out_subscript(pS, l, &idx) < 0) return 0;
    accC = l;
    prod = r;
  } else if (binop(body, CXBinaryOperator_AddAssign, &l, &r)) {
    if (!refers_to(l, pS->acc)) return 0;
    prod = r;
  } else if (binop(body, CXBinaryOperator_Assign, &l, &r) && (pS->mAccept & KS_GEMM_ACCEPT_IDIOMS) &&
             refers_to(l, pS->acc) && fma_call(strip(r), pS->acc)) {
    /* IDIOMS: acc = fmaf(x, y, acc): the template's products as explicit fmaf too */
    pS->bFma = 1;
    prod = strip(r);
    sum = r;
  } else if (binop(body, CXBinaryOperator_Assign, &l, &r)) {
    if (!refers_to(l, pS->acc) || !binop(strip(r), CXBinaryOperator_Add, &sum, &prod)) return 0;
    if (!refers_to(sum, pS->acc)) {
      CXCursor t = sum;
      sum = prod;
      prod = t;
      if (!refers_to(sum, pS->acc)) return 0;
    }
  } else {
    return loop_fail(pS, "the k-loop's body is not `acc += x * y` (acc = acc + x * y, acc = fmaf(x, y, acc))");
  }
  /* DUAL: `acc += p1 + p2`, two products of the same layouts (syr2k) */
  CXCursor p1 = prod, p2 = clang_getNullCursor(), d1, d2, t1, t2;
  if ((pS->mAccept & KS_GEMM_ACCEPT_DUAL) && clang_Cursor_isNull(sum) && binop(strip(prod), CXBinaryOperator_Add, &d1, &d2) &&
      binop(strip(d1), CXBinaryOperator_Mul, &t1, &t2) && binop(strip(d2), CXBinaryOperator_Mul, &t1, &t2))
    p1 = d1, p2 = d2;
  pS->nCand = 0;
  if (!prod_cands(pS, p1, var, pS->aCand, &pS->nCand, &pS->aScale, &pS->aScaled)) return 0;
  if (!clang_Cursor_isNull(p2)) {
    pS->nCand2 = 0;
    if (!prod_cands(pS, p2, var, pS->aCand2, &pS->nCand2, &pS->aScale2, &pS->aScaled2) || pS->nCand2 == 0) return 0;
    pS->bDual = 1;
  }
  if (pS->nCand == 0)
    return loop_fail(pS, "the k-loop's product is not A[row * lda + k] * B[k * ldb + col] of pointer parameters, in "
                         "a layout this rule reads");
  if (!clang_Cursor_isNull(accC)) {
    /* ACC_C: the accumulation target is the store */
    CXCursor idx;
    int iC = out_subscript(pS, accC, &idx);
    if (iC < 0 || !pick_reading(pS, accC, idx)) return 0;
    pS->cSub = accC;
    pS->bAccC = 1;
    pS->bStoreSeen = 1;
    pS->iC = iC;
    pS->cIdx = idx;
    pS->storeVal = clang_getNullCursor();
  }
  return 1;
}

static int match_store(gm_state *pS, CXCursor stmt) {
  CXCursor l, r, idx, s;
  int bAdd = 0;
  if (!binop(stmt, CXBinaryOperator_Assign, &l, &r)) {
    /* IDIOMS: C[idx] += value (the output read by the thread that writes it) */
    if (!(pS->mAccept & KS_GEMM_ACCEPT_IDIOMS) || !binop(stmt, CXBinaryOperator_AddAssign, &l, &r)) return 0;
    bAdd = 1;
  }
  if (!refers_to(r, pS->acc)) {
    /* LINEAR: a function of the accumulator (and row/col-indexed reads) */
    int bAcc = 0;
    if (!(pS->mAccept & KS_GEMM_ACCEPT_LINEAR) || out_subscript(pS, l, &idx) < 0) return 0;
    if (!epi_expr(pS, r, &bAcc)) return 0;
    if (!bAcc) {
      pS->zWhy = "the stored value does not depend on the accumulator";
      return 0;
    }
  }
  int iC = out_subscript(pS, l, &idx);
  (void)s;
  if (iC >= 0 && pS->bFlatGuard && refers_to(idx, pS->flatBase) && !pick_reading(pS, l, idx)) {
    pS->zWhy = "it stores to its flat index t = (t / D) * D + t % D, but its row (A's) is not the quotient t / D: "
               "that C is not row-major with the rows it computes";
    return 0;
  }
  if (iC < 0 || !pick_reading(pS, l, idx)) return 0;
  pS->cSub = l;
  pS->iC = iC;
  pS->cIdx = idx;
  pS->storeVal = r;
  pS->bStoreAdd = bAdd;
  return 1;
}

/* A thread index of dimension x or y (the model's recognizer): 'x', 'y', or 0. */
static char thread_dim(gm_state *pS, CXCursor init) {
  int iDim = ks_rw_thread_index(pS->pTu, pS->kernel, init, NULL);
  return iDim == 0 ? 'x' : iDim == 1 ? 'y' : 0;
}

/* GRID: the block tile E of a thread index `blockIdx.d * E + threadIdx.d`
 * (either order of either operation): an integer constant (a literal, an
 * object-like macro's, a constexpr) or a non-type parameter of the kernel
 * template. */
static int tile_extent(gm_state *pS, CXCursor e) {
  e = strip(e);
  if (kind(e) == CXCursor_DeclRefExpr) {
    CXCursor d = clang_getCursorReferenced(e);
    if (kind(d) == CXCursor_NonTypeTemplateParameter)
      return pS->bTemplate && clang_equalCursors(clang_getCursorSemanticParent(d), pS->kernel);
  }
  if (!ks_rw_is_integer_type(clang_getCursorType(e))) return 0;
  CXEvalResult r = clang_Cursor_Evaluate(e);
  long long v = r && clang_EvalResult_getKind(r) == CXEval_Int ? clang_EvalResult_getAsLongLong(r) : 0;
  if (r) clang_EvalResult_dispose(r);
  return v > 0 && v <= 1024;
}

/* GRID: `blockIdx.d * E + threadIdx.d` for d x or y: 'x' / 'y' and *pE, else 0. */
static char tile_index(gm_state *pS, CXCursor c, CXCursor *pE) {
  CXCursor l, r, ml, mr;
  if (!binop(strip(c), CXBinaryOperator_Add, &l, &r)) return 0;
  for (int iSwap = 0; iSwap < 2; iSwap++) {
    int iT = -1, iB = -1;
    if (ks_shape_builtin(strip(iSwap ? l : r), &iT) != KS_ATOM_TID || iT > 1 ||
        !binop(strip(iSwap ? r : l), CXBinaryOperator_Mul, &ml, &mr))
      continue;
    for (int jSwap = 0; jSwap < 2; jSwap++)
      if (ks_shape_builtin(strip(jSwap ? mr : ml), &iB) == KS_ATOM_BID && iB == iT && tile_extent(pS, jSwap ? ml : mr)) {
        *pE = strip(jSwap ? ml : mr);
        return iT == 0 ? 'x' : 'y';
      }
  }
  return 0;
}

/* GRID: a thread index that is blockIdx.d or threadIdx.d alone (a block per
 * row, a thread per column: `row = blockIdx.x; col = threadIdx.x;`, launched
 * <<<M, N>>>): *pcBare 'b' or 't', *piDim d; the pseudo-dimension the match
 * files it under ('y' for blockIdx, 'x' for threadIdx), else 0. */
static char bare_index(CXCursor init, char *pcBare, int *piDim) {
  int iDim = -1, e = ks_shape_builtin(strip(init), &iDim);
  if ((e != KS_ATOM_BID && e != KS_ATOM_TID) || iDim < 0 || iDim > 1) return 0;
  *pcBare = e == KS_ATOM_BID ? 'b' : 't';
  *piDim = iDim;
  return e == KS_ATOM_BID ? 'y' : 'x';
}

/* IDIOMS: the remainder written `t - q * D` (either order of the product),
 * q the quotient t / D split before it: t % D by C's truncating division
 * (C11 6.5.5p6), as long as q holds t / D unnarrowed. *pT t, *pD D. */
static int flat_rem_sub(gm_state *pS, CXCursor c, CXCursor *pT, CXCursor *pD) {
  CXCursor prod;
  CXCursor q = pS->flatQuot;
  if (pS->nFlat != 1 || pS->abFlatRem[0] || !binop(c, CXBinaryOperator_Sub, pT, &prod)) return 0;
  if (!scaled_ref(prod, q, pD, NULL)) return 0;
  if (clang_Type_getSizeOf(clang_getCursorType(q)) < clang_Type_getSizeOf(clang_getCursorType(c))) {
    pS->zWhy = "the quotient a remainder `t - q * D` is computed from is held in a narrower type";
    return 0;
  }
  return 1;
}

/* IDIOMS: a flat index split in two, `row = t / D; col = t % D;` (t the
 * thread index of x, inline or a variable that holds it, which then stops
 * being a thread index of its own; D a pure expression, the same for both):
 * 'y' for the quotient (the row), 'x' for the remainder, else 0. Every
 * (row, col) with col < D is some thread's, so the kernel computes what a 2-D
 * grid would once the guard bounds col by D itself (match_kernel checks). */
static char flat_index(gm_state *pS, CXCursor var, CXCursor init) {
  CXCursor c = strip(init), t, d;
  int bDiv = binop(c, CXBinaryOperator_Div, &t, &d), bRem = !bDiv && binop(c, CXBinaryOperator_Rem, &t, &d);
  if (!bDiv && !bRem) bRem = flat_rem_sub(pS, c, &t, &d);
  if ((!bDiv && !bRem) || !pure_of(pS, d) || !ks_rw_is_integer_type(clang_getCursorType(strip(t)))) return 0;
  int bBase = 0;
  if (pS->nThread == 1 && pS->acDim[0] == 'x' && !pS->abTile[0] && refers_to(t, pS->aThread[0])) bBase = 1;
  else if (!(clang_Cursor_isNull(pS->flatBase) ? ks_rw_thread_index(pS->pTu, pS->kernel, t, NULL) == 0
                                               : refers_to(t, pS->flatBase)))
    return 0;
  if (pS->nFlat >= 2 || (pS->nFlat == 1 && pS->abFlatRem[0] == bRem)) return 0;
  char *zD = ks_rw_squash_cursor(pS->pTu, d);
  int bSameD = zD && (pS->nFlat == 0 || (pS->zFlatD && !strcmp(zD, pS->zFlatD)));
  if (!bSameD) {
    if (zD) pS->zWhy = "it splits its flat index by two divisors (t / D and t % D need the same D: each output once)";
    free(zD);
    return 0;
  }
  if (bBase) { /* `int idx = ...;` was the flat index, not a thread index */
    pS->flatBase = pS->aThread[0];
    pS->nThread = 0;
  }
  if (pS->nFlat == 0) pS->zFlatD = zD, pS->flatDiv = d;
  else free(zD);
  if (!bRem) pS->flatQuot = var;
  pS->abFlatRem[pS->nFlat++] = bRem;
  return bRem ? 'x' : 'y';
}

/* Is c (through parentheses, implicit and written casts) blockIdx.z? */
static int is_block_z(CXCursor c) {
  c = strip(c);
  ks_ast_kids k;
  int n;
  if ((kind(c) == CXCursor_CStyleCastExpr || kind(c) == CXCursor_CXXStaticCastExpr) && (n = ks_ast_kids_get(c, &k)) > 0)
    c = strip(k.a[n - 1]);
  int iDim = -1;
  return ks_shape_builtin(c, &iDim) == KS_ATOM_BID && iDim == 2;
}

/* MODEL: statement st declaring var is the batch index (`int bz =
 * blockIdx.z;`) or a per-batch pointer (`const float *Ab = A + (size_t)bz *
 * M * K;`, in the model's derived pointers): kept by the rewrite. 1 taken, 0
 * not such a declaration, -1 refused (pS->zWhy). */
static int batch_decl(gm_state *pS, CXCursor st, CXCursor var, CXCursor init) {
  const ks_shape *pM = pS->pShape;
  int iM = -1;
  if (ks_rw_is_integer_type(clang_getCursorType(var)) && is_block_z(init)) {
    if (pS->nBatchVar >= 2) return 0;
    pS->aBatchVar[pS->nBatchVar++] = var;
  } else {
    for (int i = 0; i < pM->nPtr && iM < 0; i++)
      if (clang_equalCursors(pM->aPtr[i].decl, var)) iM = i;
    if (iM < 0) return 0;
    const ks_shape_ptr *q = &pM->aPtr[iM];
    char *zV = name_of(var);
    CXString sp = clang_getCursorSpelling(ks_rw_param_at(pS->kernel, q->iParam));
    const char *zP = clang_getCString(sp);
    pS->zWhyBuf[0] = 0;
    if (q->bWritten)
      snprintf(pS->zWhyBuf, sizeof pS->zWhyBuf,
               "'%s', a pointer derived from parameter %s, is re-seated or escapes (assigned, incremented or its "
               "address taken)", zV ? zV : "?", zP);
    else if (q->off.bIrregular || q->off.bIndirect)
      snprintf(pS->zWhyBuf, sizeof pS->zWhyBuf,
               "the offset of '%s' from parameter %s is not a polynomial of blockIdx.z and parameters (or it changes "
               "the element type)", zV ? zV : "?", zP);
    for (int i = 0; i < q->off.n && !pS->zWhyBuf[0]; i++)
      for (int j = 0; j < q->off.t[i].n && !pS->zWhyBuf[0]; j++) {
        const ks_atom *pA = &pM->aAtom[q->off.t[i].a[j]];
        if (pA->eKind != KS_ATOM_UNIFORM && !(pA->eKind == KS_ATOM_BID && pA->iDim == 2))
          snprintf(pS->zWhyBuf, sizeof pS->zWhyBuf,
                   "the offset of '%s' from parameter %s depends on %s; a per-batch pointer may depend on blockIdx.z "
                   "and scalar parameters only", zV ? zV : "?", zP, pA->zName);
      }
    if (!pS->zWhyBuf[0] && (pS->nBatchPtr >= 4 || pS->nKeep >= 6))
      snprintf(pS->zWhyBuf, sizeof pS->zWhyBuf, "more than 4 per-batch pointers");
    clang_disposeString(sp);
    free(zV);
    if (pS->zWhyBuf[0]) {
      pS->zWhy = pS->zWhyBuf;
      return -1;
    }
    pS->aBatchPtrModel[pS->nBatchPtr] = iM;
    pS->aBatchPtr[pS->nBatchPtr++] = var;
  }
  if (pS->nKeep >= 6) return 0;
  pS->aKeep[pS->nKeep++] = st;
  return 1;
}

/* IDIOMS: gridDim.x * blockDim.x (either order): the threads of a 1-D grid. */
static int grid_step(CXCursor c) {
  CXCursor l, r;
  if (!binop(strip(c), CXBinaryOperator_Mul, &l, &r)) return 0;
  int iL = -1, iR = -1, eL = ks_shape_builtin(strip(l), &iL), eR = ks_shape_builtin(strip(r), &iR);
  return iL == 0 && iR == 0 &&
         ((eL == KS_ATOM_GDIM && eR == KS_ATOM_BDIM) || (eL == KS_ATOM_BDIM && eR == KS_ATOM_GDIM));
}

/* IDIOMS: `t < X * D` (bEarly: `t >= X * D`) on the flat index t, before its
 * split: t covers [0, X * D) once, so t / D, t % D cover X rows of D columns,
 * the guard `row < X && col < D` (flat_bounds, once D is known). 1 taken. */
static int flat_guard(gm_state *pS, CXCursor cond, CXCursor t, int bEarly) {
  CXCursor v, e, x, y;
  if (!binop(strip(cond), bEarly ? CXBinaryOperator_GE : CXBinaryOperator_LT, &v, &e) || !refers_to(v, t)) return 0;
  if (!binop(strip(e), CXBinaryOperator_Mul, &x, &y) || !pure_of(pS, e)) {
    pS->zWhy = "the bound on the flat index is not a product of scalar parameters (rows * columns)";
    return 0;
  }
  pS->flatBase = t;
  pS->nThread = 0; /* t is split below: not a thread index of its own */
  pS->flatBound = e;
  pS->bFlatGuard = pS->bGuard = 1;
  return 1;
}

/* IDIOMS: is `if (cond) return;` / `if (cond) {..}` a guard on the one 1-D
 * index t, declared alone (no tile, no bare index)? */
static int flat_guard_at(gm_state *pS) {
  return (pS->mAccept & KS_GEMM_ACCEPT_IDIOMS) && pS->nThread == 1 && pS->acDim[0] == 'x' && !pS->abTile[0] &&
         !pS->acBare[0] && !pS->nFlat && !pS->bGuard && clang_Cursor_isNull(pS->acc);
}

static int match_stmts(gm_state *pS, CXCursor block, int bTop);

/* IDIOMS: the grid-stride loop over the outputs, `for (int t = PAR.x; t < X *
 * D; t += gridDim.x * blockDim.x) {..}` (PAR.x blockIdx.x * blockDim.x +
 * threadIdx.x, or a variable holding it; the step written inline or in a
 * variable; `t = t + step` too): every t in [0, X * D) is one iteration of
 * one thread (of each y, z: those write the same values), as a flat guard's
 * thread is. Its body is the GEMM's, t split in it. 1 taken, 0 not such a
 * loop, -1 refused (pS->zWhy). */
static int stride_loop(gm_state *pS, CXCursor loop) {
  ks_ast_kids k;
  CXCursor var, init, l, r, step;
  if (ks_ast_kids_get(loop, &k) != 4 || !single_var(k.a[0], &var, &init) || clang_Cursor_isNull(init) ||
      !ks_rw_is_integer_type(clang_getCursorType(var)))
    return 0;
  int bStart = pS->nThread == 0 ? thread_dim(pS, init) == 'x' : flat_guard_at(pS) && refers_to(init, pS->aThread[0]);
  if (!bStart) {
    pS->zWhy = "a loop over the outputs whose start is not the 1-D thread index blockIdx.x * blockDim.x + threadIdx.x";
    return -1;
  }
  CXCursor inc = strip(k.a[2]);
  if (binop(inc, CXBinaryOperator_AddAssign, &l, &step) && refers_to(l, var)) {
  } else if (binop(inc, CXBinaryOperator_Assign, &l, &r) && refers_to(l, var) &&
             binop(strip(r), CXBinaryOperator_Add, &step, &r) && (refers_to(step, var) || refers_to(r, var))) {
    if (refers_to(step, var)) step = r;
  } else {
    pS->zWhy = "a loop over the flat index that does not step by `t += step`";
    return -1;
  }
  if (!grid_step(step) && !(!clang_Cursor_isNull(pS->strideVar) && refers_to(step, pS->strideVar))) {
    pS->zWhy = "a grid-stride loop whose step is not gridDim.x * blockDim.x (some outputs no thread's, or some twice)";
    return -1;
  }
  if (kind(k.a[3]) != CXCursor_CompoundStmt) return 0;
  if (!flat_guard(pS, k.a[1], var, 0)) {
    if (!pS->zWhy) pS->zWhy = "a grid-stride loop not bounded by `t < rows * columns`";
    return -1;
  }
  return match_stmts(pS, k.a[3], 0) ? 1 : -1;
}

/* One variable of a block's declaration, var = init (init null when none):
 * 1 taken, 0 not. st: the declaration when var is all it declares (a kept
 * per-batch pointer keeps it whole), else a null cursor. */
static int match_decl(gm_state *pS, CXCursor st, CXCursor var, CXCursor init, int bTop) {
  const int bInt = ks_rw_is_integer_type(clang_getCursorType(var));
  if (clang_Cursor_isNull(init) && (pS->mAccept & KS_GEMM_ACCEPT_IDIOMS) && !pS->bLoopSeen &&
      clang_Cursor_isNull(pS->kDecl) && bInt) {
    pS->kDecl = var; /* the k-loop's counter, declared before it */
    return 1;
  }
  if (clang_Cursor_isNull(init)) return 0;
  char cDim = bTop && !pS->bGuard && bInt ? thread_dim(pS, init) : 0;
  CXCursor tileE = clang_getNullCursor();
  if (!cDim && bTop && !pS->bGuard && (pS->mAccept & KS_GEMM_ACCEPT_GRID) && pS->nThread < 2 &&
      bInt)
    cDim = tile_index(pS, init, &tileE);
  if (!cDim && ((bTop && !pS->bGuard) || (pS->bFlatGuard && !pS->bLoopSeen)) &&
      (pS->mAccept & KS_GEMM_ACCEPT_IDIOMS) && bInt) {
    const char *zWhy0 = pS->zWhy;
    cDim = flat_index(pS, var, init);
    if (!cDim && pS->zWhy != zWhy0) return 0; /* a split refused */
  }
  char cBare = 0;
  int iBareDim = -1;
  if (!cDim && bTop && !pS->bGuard && (pS->mAccept & KS_GEMM_ACCEPT_GRID) && pS->nThread < 2 &&
      bInt)
    cDim = bare_index(init, &cBare, &iBareDim);
  if (cDim && pS->nThread < 2) {
    pS->acBare[pS->nThread] = cBare;
    pS->aiBareDim[pS->nThread] = iBareDim;
    pS->abTile[pS->nThread] = !clang_Cursor_isNull(tileE);
    pS->aTileE[pS->nThread] = tileE;
    pS->aThread[pS->nThread] = var;
    pS->acDim[pS->nThread++] = cDim;
    return 1;
  }
  /* IDIOMS: `int stride = gridDim.x * blockDim.x;`, the step of a grid-stride loop (stride_loop) */
  if (!cDim && bTop && !pS->bGuard && (pS->mAccept & KS_GEMM_ACCEPT_IDIOMS) && clang_Cursor_isNull(pS->strideVar) &&
      bInt && grid_step(init)) {
    pS->strideVar = var;
    return 1;
  }
  enum CXTypeKind eT = clang_getCanonicalType(clang_getCursorType(var)).kind;
  if (clang_Cursor_isNull(pS->acc) && (eT == CXType_Float || eT == CXType_Double) &&
      is_zero_literal(pS->pTu, init)) {
    pS->acc = var;
    return 1;
  }
  /* IDIOMS: `float acc = bias[col];` (an epilogue expression of row / col) */
  if (clang_Cursor_isNull(pS->acc) && (eT == CXType_Float || eT == CXType_Double) &&
      (pS->mAccept & KS_GEMM_ACCEPT_IDIOMS) && pS->nThread == 2 && !pS->bLoopSeen) {
    int bAcc = 0;
    const char *zWhy0 = pS->zWhy;
    if (epi_expr(pS, init, &bAcc) && !bAcc) {
      pS->acc = var;
      pS->accInit = init;
      return 1;
    }
    pS->zWhy = zWhy0;
  }
  /* LINEAR: a row pointer `P + u * S` (u row or col, S pure), read in the k-loop */
  CXCursor pl, pr, ps;
  int bRowPtr = 0;
  if ((pS->mAccept & KS_GEMM_ACCEPT_LINEAR) && pS->nThread == 2 && !pS->bLoopSeen && eT == CXType_Pointer &&
      pS->nRowPtr < 4 && binop(strip(init), CXBinaryOperator_Add, &pl, &pr))
    for (int iSwap = 0; iSwap < 2; iSwap++)
      for (int t = 0; t < 2; t++) {
        char *zCast = NULL;
        if (ks_rw_param_of(pS->kernel, iSwap ? pr : pl) >= 0 &&
            scaled_ref(iSwap ? pl : pr, pS->aThread[t], &ps, &zCast) && pure_of(pS, ps))
          bRowPtr = 1;
        free(zCast);
      }
  if (bRowPtr) {
    pS->aRowPtr[pS->nRowPtr] = var;
    pS->aRowPtrInit[pS->nRowPtr++] = init;
    walk_decl(pS, var, init); /* also walked, `*p++` */
    return 1;
  }
  if (pS->nThread == 2 && !pS->bLoopSeen && walk_decl(pS, var, init)) return 1;
  if (pS->pShape && !pS->bLoopSeen) {
    int rc = batch_decl(pS, st, var, init);
    if (rc > 0) return 1;
  }
  /* IDIOMS, MODEL: `int idx = row * N + col;` under the guard: the model reads C[idx] through it. It goes
   * with the body; what the rewrite keeps cannot read it (the epilogue reads no local but acc, row, col) */
  if ((pS->mAccept & KS_GEMM_ACCEPT_IDIOMS) && pS->pShape && pS->bGuard && !pS->bLoopSeen && pS->nIdxTemp < 2 &&
      bInt && ks_rw_pure_expr(init)) {
    pS->aIdxTemp[pS->nIdxTemp++] = var;
    return 1;
  }
  return 0;
}

/* Statement st of the body is where the match failed (the innermost one:
 * the first recorded stays). 0. */
static int stmt_fail(gm_state *pS, CXCursor st) {
  if (clang_Cursor_isNull(pS->failSt)) pS->failSt = st;
  return 0;
}

/* The statements of a block, in order; bTop: the kernel body itself. */
static int match_stmts(gm_state *pS, CXCursor block, int bTop) {
  ks_ast_kids k;
  int n = ks_ast_kids_get(block, &k);
  if (n < 0) return 0;
  for (int i = 0; i < n; i++) {
    CXCursor st = k.a[i], var, init;
    if (kind(st) == CXCursor_DeclStmt) {
      ks_ast_kids dk;
      int nD = ks_ast_kids_get(st, &dk);
      if (nD < 1) return stmt_fail(pS, st);
      for (int j = 0; j < nD; j++) {
        if (kind(dk.a[j]) != CXCursor_VarDecl) return stmt_fail(pS, st);
        var_init(dk.a[j], &var, &init);
        if (!match_decl(pS, nD == 1 ? st : clang_getNullCursor(), var, init, bTop)) return stmt_fail(pS, st);
      }
      continue;
    }
    if (kind(st) == CXCursor_IfStmt && flat_guard_at(pS)) {
      /* IDIOMS: the flat index bounded before its split */
      ks_ast_kids f, rr;
      int bRet = 0;
      if (ks_ast_kids_get(st, &f) != 2) return stmt_fail(pS, st); /* no else */
      if (kind(f.a[1]) == CXCursor_ReturnStmt) bRet = ks_ast_kids_get(f.a[1], &rr) == 0;
      else if (kind(f.a[1]) != CXCursor_CompoundStmt) return stmt_fail(pS, st);
      if (!flat_guard(pS, f.a[0], pS->aThread[0], bRet)) return stmt_fail(pS, st);
      if (!bRet && !match_stmts(pS, f.a[1], 0)) return stmt_fail(pS, st);
      continue;
    }
    if (kind(st) == CXCursor_ForStmt && bTop && !pS->bGuard && (pS->mAccept & KS_GEMM_ACCEPT_IDIOMS) &&
        pS->nThread <= 1 && clang_Cursor_isNull(pS->acc)) {
      int rc = stride_loop(pS, st);
      if (rc < 0) return stmt_fail(pS, st);
      if (rc > 0) continue;
    }
    if (kind(st) == CXCursor_IfStmt && !pS->bGuard && pS->nThread == 2) {
      ks_ast_kids f;
      if (ks_ast_kids_get(st, &f) != 2) return stmt_fail(pS, st); /* no else */
      /* IDIOMS: the guard in two halves, nested ifs or two early returns */
      const int bHalfOk = (pS->mAccept & KS_GEMM_ACCEPT_IDIOMS) != 0;
      if (kind(f.a[1]) == CXCursor_ReturnStmt) {
        ks_ast_kids rr;
        if (ks_ast_kids_get(f.a[1], &rr) != 0 || !(guard_cond(pS, f.a[0], 1) || (bHalfOk && guard_half(pS, f.a[0], 1))))
          return stmt_fail(pS, st);
        continue;
      }
      if (!guard_cond(pS, f.a[0], 0) && !(bHalfOk && guard_half(pS, f.a[0], 0))) return stmt_fail(pS, st);
      if (kind(f.a[1]) == CXCursor_CompoundStmt) {
        if (!match_stmts(pS, f.a[1], 0)) return stmt_fail(pS, st);
      } else {
        return stmt_fail(pS, st);
      }
      continue;
    }
    /* IDIOMS: `C[row*ldc + col] = 0;` before a k-loop accumulating into C */
    if ((pS->mAccept & KS_GEMM_ACCEPT_IDIOMS) && (pS->mAccept & KS_GEMM_ACCEPT_ACC_C) && !pS->bLoopSeen &&
        !pS->bZeroStore && pS->bGuard && clang_Cursor_isNull(pS->acc)) {
      CXCursor zl, zr, zi;
      int iZ;
      int bZero = binop(st, CXBinaryOperator_Assign, &zl, &zr) && is_zero_literal(pS->pTu, zr);
      int bScale = !bZero && binop(st, CXBinaryOperator_MulAssign, &zl, &zr) && scalar_factor(pS, zr, zl);
      if ((bZero || bScale) && (iZ = subscript(pS->kernel, zl, &zi)) >= 0) {
        /* `C[idx] *= beta;`: the sum starts from C * beta */
        if (bScale) pS->cScale = zr;
        pS->bZeroStore = 1;
        pS->zeroIdx = zi;
        pS->zeroSub = zl;
        pS->iZeroC = iZ;
        continue;
      }
    }
    /* IDIOMS: `#pragma unroll` before the k-loop (an attributed statement: the rewrite drops it with the loop) */
    ks_ast_kids ka;
    if ((pS->mAccept & KS_GEMM_ACCEPT_IDIOMS) && kind(st) == CXCursor_UnexposedStmt && ks_ast_kids_get(st, &ka) == 1 &&
        kind(ka.a[0]) == CXCursor_ForStmt)
      st = ka.a[0];
    /* GRID: no guard, the k-loop in the body itself (every thread writes) */
    if (kind(st) == CXCursor_ForStmt && !pS->bLoopSeen &&
        (pS->bGuard || (bTop && pS->nThread == 2 && (pS->mAccept & KS_GEMM_ACCEPT_GRID))) &&
        (!clang_Cursor_isNull(pS->acc) || (pS->mAccept & KS_GEMM_ACCEPT_ACC_C))) {
      if (!match_loop(pS, st)) return stmt_fail(pS, st);
      pS->bLoopSeen = 1;
      continue;
    }
    if (pS->bLoopSeen && !pS->bStoreSeen && match_store(pS, st)) {
      pS->bStoreSeen = 1;
      continue;
    }
    if (pS->bLoopSeen && !pS->bStoreSeen && !pS->zWhy && (pS->mAccept & KS_GEMM_ACCEPT_LINEAR) &&
        match_epilogue(pS, st))
      continue;
    if (pS->bStoreSeen && (pS->mAccept & KS_GEMM_ACCEPT_LINEAR))
      pS->zWhy = "a statement follows the store";
    return stmt_fail(pS, st);
  }
  return 1;
}

static int bound_param(CXCursor kernel, CXCursor c) { return ks_rw_param_of(kernel, c); }

int ks_rule_gemm_match(ks_rewrite *p, ks_gemm_match *pG) { return ks_rule_gemm_match_ex(p, 0, pG); }

/* Do subscripts a (index ia) and b (index ib) address the same element? Read
 * from the text (the strides sa, sb of row * S + col, as written), or, either
 * written through a function-like macro, from the model (equal polynomials). */
static int same_index(gm_state *pS, CXCursor a, CXCursor ia, CXCursor sa, CXCursor b, CXCursor ib, CXCursor sb) {
  if (in_fn_macro(pS, ia) || in_fn_macro(pS, ib)) {
    ks_poly qa, qb;
    if (sub_poly(pS, a, &qa) < 0 || sub_poly(pS, b, &qb) < 0 || qa.n != qb.n) return 0;
    return poly_sub(pS->pShape, &qa, &qb) == 0 && qa.n == 0;
  }
  char *zA = cursor_text(pS->pTu, sa), *zB = zA ? cursor_text(pS->pTu, sb) : NULL;
  int bSame = zA && zB && strcmp(zA, zB) == 0;
  free(zA);
  free(zB);
  return bSame;
}

/* A stride as the rewrite writes it: as written (stride s), or, read from the
 * model (s null), on the parameters' names; *piParam its one parameter or -1. */
static char *stride_text(gm_state *pS, CXCursor sub, CXCursor u, CXCursor v, CXCursor s, int *piParam) {
  if (!clang_Cursor_isNull(s)) {
    *piParam = bound_param(pS->kernel, s);
    return cursor_text(pS->pTu, s);
  }
  ks_poly q;
  char *z = NULL;
  *piParam = -1;
  if (sub_poly(pS, sub, &q) < 0 || !poly_linear(pS, &q, var_atom(pS, u), var_atom(pS, v), &z, piParam)) return NULL;
  return z;
}

/* MODEL: the text the rewrite copies (bounds, epilogue, scalars, the kept
 * declarations) holds only whole macro uses. NULL, or why not. */
static const char *texts_whole(gm_state *pS, CXCursor mB, CXCursor nB) {
  CXCursor a[8] = {mB, nB, pS->kBound, pS->storeVal, pS->accInit, pS->cScale, pS->aScale, clang_getNullCursor()};
  for (int i = 0; i < 7; i++)
    if (!clang_Cursor_isNull(a[i]) && !whole_text(pS, a[i]))
      return "a bound, the stored value or a scalar is written partly inside a macro use; its text cannot be kept";
  for (int i = 0; i < pS->nEpi; i++)
    if (!whole_text(pS, pS->aEpi[i])) return "an epilogue statement is written partly inside a macro use";
  for (int i = 0; i < pS->nKeep; i++)
    if (!whole_text(pS, pS->aKeep[i])) return "a per-batch pointer's declaration is written partly inside a macro use";
  return NULL;
}

/* MODEL: the per-batch side of the match: the kept declarations, and the
 * pointer each of A, B, C is indexed through when not its parameter. */
static int batch_fill(gm_state *pS, ks_gemm_match *pG) {
  CXCursor aSub[3] = {pS->aSub, pS->bSub, pS->cSub};
  char **az[3] = {&pG->zAPtr, &pG->zBPtr, &pG->zCPtr};
  ks_buf b = KS_BUF_INIT;
  int rc = 0;
  for (int i = 0; i < 3 && rc >= 0; i++) {
    ks_ast_kids k;
    CXCursor c = strip(aSub[i]);
    if (kind(c) != CXCursor_ArraySubscriptExpr || ks_ast_kids_get(c, &k) != 2 || batch_param(pS, k.a[0]) < 0) continue;
    if (!(*az[i] = name_of(clang_getCursorReferenced(strip(k.a[0]))))) rc = -1;
  }
  for (int i = 0; i < pS->nKeep && rc >= 0; i++) {
    char *z = cursor_text(pS->pTu, pS->aKeep[i]);
    rc = z ? ks_buf_printf(&b, "%s%s\n", z, z[strlen(z) - 1] == ';' ? "" : ";") : -1;
    free(z);
  }
  pG->bBatch = pG->zAPtr || pG->zBPtr || pG->zCPtr;
  if (rc >= 0 && pG->bBatch && !(pG->zBatchDecls = ks_buf_detach(&b))) rc = -1;
  ks_buf_free(&b);
  return rc < 0 ? ks_error_set(KS_ENOMEM, "out of memory") : 0;
}

/* The match of kernel pSt->kernel (pSt set up by ks_rule_gemm_match_ex). */
/* GRID: the block tiles of the row and column indices, as constants or as
 * the template's parameters (pG->anTile, pG->aiTileTpl). */
static void grid_fill(gm_state *pS, ks_gemm_match *pG) {
  for (int t = 0; t < 2; t++) {
    int iRC = clang_equalCursors(pS->aThread[t], pS->row) ? 0 : 1;
    pG->aiTileTpl[iRC] = -1;
    pG->acBare[iRC] = pS->acBare[t];
    pG->aiBareDim[iRC] = pS->aiBareDim[t];
    if (!pS->abTile[t]) continue;
    CXCursor d = clang_getCursorReferenced(pS->aTileE[t]);
    if (kind(pS->aTileE[t]) == CXCursor_DeclRefExpr && kind(d) == CXCursor_NonTypeTemplateParameter) {
      ks_ast_kids tk;
      int nT = ks_ast_kids_get(pS->kernel, &tk), iP = 0;
      for (int i = 0; i < nT; i++) {
        if (clang_equalCursors(tk.a[i], d)) pG->aiTileTpl[iRC] = iP;
        iP += kind(tk.a[i]) == CXCursor_NonTypeTemplateParameter;
      }
    } else {
      CXEvalResult r = clang_Cursor_Evaluate(pS->aTileE[t]);
      pG->anTile[iRC] = r && clang_EvalResult_getKind(r) == CXEval_Int ? clang_EvalResult_getAsLongLong(r) : 0;
      if (r) clang_EvalResult_dispose(r);
    }
  }
}

/* DUAL: the second product's matrices and strides, in A's and B's layouts.
 * KS_OK, or a refusal (pG freed). */
static int dual_fill(gm_state *pS, ks_gemm_match *pG) {
  CXCursor sx2, sy2;
  int iDummy;
  const char *zKernel = ks_rewrite_kernel_name(pS->p);
  if (pG->bBatch || pG->zAPtr || pG->zBPtr) {
    ks_rule_gemm_match_free(pG);
    return ks_rewrite_refuse(pS->p, "'%s' sums two products per k through per-batch pointers; not read",
                             zKernel);
  }
  char *zCast = NULL;
  if (pS->bATrans) operand(pS, pS->aSub2, pS->kVar, pS->row, &iDummy, &sx2, &zCast);
  else operand(pS, pS->aSub2, pS->row, pS->kVar, &iDummy, &sx2, &zCast);
  free(zCast);
  zCast = NULL;
  if (pS->bBTrans) operand(pS, pS->bSub2, pS->col, pS->kVar, &iDummy, &sy2, &zCast);
  else operand(pS, pS->bSub2, pS->kVar, pS->col, &iDummy, &sy2, &zCast);
  free(zCast);
  int iX2, iY2;
  pG->bDual = 1;
  pG->iA2 = pS->iA2;
  pG->iB2 = pS->iB2;
  pG->zX2 = pS->bATrans ? stride_text(pS, pS->aSub2, pS->kVar, pS->row, sx2, &iX2)
                         : stride_text(pS, pS->aSub2, pS->row, pS->kVar, sx2, &iX2);
  pG->zY2 = pS->bBTrans ? stride_text(pS, pS->bSub2, pS->col, pS->kVar, sy2, &iY2)
                         : stride_text(pS, pS->bSub2, pS->kVar, pS->col, sy2, &iY2);
  if (!pG->zX2 || !pG->zY2 || (!clang_Cursor_isNull(sx2) && !pure_of(pS, sx2)) ||
      (!clang_Cursor_isNull(sy2) && !pure_of(pS, sy2))) {
    ks_rule_gemm_match_free(pG);
    return ks_rewrite_refuse(pS->p, "a stride of the second product of '%s' is not built from scalar parameters",
                             zKernel);
  }
  return KS_OK;
}

/* The refusal of a body that is not a naive GEMM: the reason when one is
 * known, and the statement the match stopped at, by line and first words. */
static int refuse_at(gm_state *pS, const char *zKernel) {
  static const char zParts[] = "row/col from blockIdx*blockDim+threadIdx, a bounds guard, acc = 0, for k < K: acc += "
                               "A[row*lda+k] * B[k*ldb+col], C[row*ldc+col] = acc, nothing else";
  if (clang_Cursor_isNull(pS->failSt)) {
    if (pS->zWhy) return ks_rewrite_refuse(pS->p, "kernel '%s' is not a naive GEMM this rule understands: %s", zKernel, pS->zWhy);
    return ks_rewrite_refuse(pS->p, "kernel '%s' is not a naive GEMM this rule understands (%s)", zKernel, zParts);
  }
  unsigned nLine = 0;
  clang_getSpellingLocation(clang_getRangeStart(clang_getCursorExtent(pS->failSt)), NULL, &nLine, NULL, NULL);
  char *z = cursor_text(pS->pTu, pS->failSt);
  size_t nZ = z ? strcspn(z, "\n{") : 0;
  if (nZ > 60) nZ = 60;
  while (nZ > 0 && z[nZ - 1] == ' ') nZ--;
  int rc = pS->zWhy ? ks_rewrite_refuse(pS->p, "kernel '%s' is not a naive GEMM this rule understands: %s (line %u: `%.*s`)",
                                        zKernel, pS->zWhy, nLine, (int)nZ, z ? z : "")
                    : ks_rewrite_refuse(pS->p, "kernel '%s' is not a naive GEMM this rule understands: line %u, `%.*s`, is "
                                               "none of its parts (%s)",
                                        zKernel, nLine, (int)nZ, z ? z : "", zParts);
  free(z);
  return rc;
}

/* IDIOMS: the bounds of a flat guard `t < X * D` split into t / D and t % D:
 * the quotient's X, the remainder's D. NULL, or why not. */
static const char *flat_bounds(gm_state *pS, CXCursor *pmB, CXCursor *pnB) {
  CXCursor x, y;
  if (pS->nFlat != 2) return "bounds a flat index it does not split into t / D and t % D";
  if (!binop(strip(pS->flatBound), CXBinaryOperator_Mul, &x, &y)) return "bounds its flat index by no product";
  char *zX = ks_rw_squash_cursor(pS->pTu, x), *zY = ks_rw_squash_cursor(pS->pTu, y);
  int bY = zY && pS->zFlatD && !strcmp(zY, pS->zFlatD), bX = !bY && zX && pS->zFlatD && !strcmp(zX, pS->zFlatD);
  free(zX);
  free(zY);
  if (!bX && !bY) return "bounds its flat index t by a product without the divisor D of its split t / D, t % D (each "
                         "output once only when t < rows * D)";
  CXCursor dB = bY ? y : x, qB = bY ? x : y;
  int bRowQuot = clang_equalCursors(pS->row, pS->flatQuot);
  *pmB = bRowQuot ? qB : dB;
  *pnB = bRowQuot ? dB : qB;
  return NULL;
}

/* The parameters M and N are (iM, iN), IDIOMS: or the struct parameter whose
 * member they are (`d.M`: zMMember "M"). 0, or KS_ENOMEM. */
static int bounds_fill(gm_state *pS, ks_gemm_match *pG, CXCursor mB, CXCursor nB) {
  CXCursor aB[2] = {mB, nB};
  int *aiP[2] = {&pG->iM, &pG->iN};
  char **azMem[2] = {&pG->zMMember, &pG->zNMember};
  for (int t = 0; t < 2; t++) {
    *aiP[t] = bound_param(pS->kernel, aB[t]);
    if (*aiP[t] >= 0 || clang_Cursor_isNull(aB[t]) || !(pS->mAccept & KS_GEMM_ACCEPT_IDIOMS) ||
        (*aiP[t] = member_param(pS->kernel, aB[t])) < 0)
      continue;
    if (!(*azMem[t] = name_of(strip(aB[t])))) return KS_ENOMEM;
  }
  return KS_OK;
}

static int match_kernel(gm_state *pSt, ks_gemm_match *pG) {
  ks_rewrite *p = pSt->p;
  ks_tu *pTu = pSt->pTu;
  const char *zKernel = ks_rewrite_kernel_name(p);
  CXCursor kernel = pSt->kernel;
  const unsigned mAccept = pSt->mAccept;
  ks_ast_kids k;
  if (clang_Cursor_isNull(kernel)) return ks_rewrite_refuse(p, "no kernel '%s'", zKernel);
  if (kind(kernel) == CXCursor_FunctionTemplate && (mAccept & KS_GEMM_ACCEPT_GRID)) {
    /* GRID: a template of non-type parameters (`template <int BLOCK_SIZE>`): its types are the ones written */
    ks_ast_kids t;
    int nT = ks_ast_kids_get(kernel, &t);
    for (int i = 0; i < nT; i++)
      if (kind(t.a[i]) == CXCursor_TemplateTypeParameter || kind(t.a[i]) == CXCursor_TemplateTemplateParameter)
        return ks_rewrite_refuse(p, "kernel '%s' is a template over a type; only templates of integer parameters "
                                    "(a block tile) are read",
                                 zKernel);
    pSt->bTemplate = pG->bTemplate = 1;
  } else if (kind(kernel) != CXCursor_FunctionDecl) {
    return ks_rewrite_refuse(p, "kernel '%s' is a template", zKernel);
  }
  if (ks_ast_extent(pTu, kernel, &pG->iKernelStart, &pG->iKernelEnd) < 0)
    return ks_rewrite_refuse(p, "kernel '%s' is not laid out in the main file", zKernel);
  int n = ks_ast_kids_get(kernel, &k);
  CXCursor body = clang_getNullCursor();
  for (int i = 0; i < n; i++)
    if (kind(k.a[i]) == CXCursor_CompoundStmt) body = k.a[i];
  if (clang_Cursor_isNull(body) || ks_ast_extent(pTu, body, &pG->iBodyStart, &pG->iBodyEnd) < 0 ||
      pTu->zSrc[pG->iBodyStart] != '{' || pTu->zSrc[pG->iBodyEnd - 1] != '}')
    return ks_rewrite_refuse(p, "kernel '%s' has no body written in the file", zKernel);
  ks_buf b = KS_BUF_INIT;
  int bMacro = tok_text_ex(pTu, pG->iBodyStart, pG->iBodyEnd, &b, (mAccept & KS_GEMM_ACCEPT_IDIOMS) != 0,
                           pSt->pShape ? &pSt->fn : NULL) < 0;
  ks_buf_free(&b);
  if (bMacro && pSt->fn.n >= 32)
    return ks_rewrite_refuse(p, "the body of '%s' uses over 32 function-like macros; not a GEMM this rule can read", zKernel);
  if (bMacro) return ks_rewrite_refuse(p, "the body of '%s' uses a macro; not a GEMM this rule can read", zKernel);
  const char *zMacroWhy = pSt->pShape ? fn_macro_check(pSt) : NULL;
  if (zMacroWhy) return ks_rewrite_refuse(p, "kernel '%s' is not a naive GEMM this rule understands: %s", zKernel, zMacroWhy);
  int bStmts = match_stmts(pSt, body, 1);
  if ((!bStmts || !pSt->bStoreSeen) && !pSt->zWhy && pSt->pShape) pSt->zWhy = fn_macro_why(pSt);
  if ((!bStmts || !pSt->bStoreSeen) && !pSt->zWhy) pSt->zWhy = pSt->zLoopWhy;
  if (!bStmts || !pSt->bStoreSeen) return refuse_at(pSt, zKernel);
  /* The guard bounds row by M and col by N (GRID, no guard: what the launch covers). */
  CXCursor mB = clang_getNullCursor(), nB = clang_getNullCursor();
  if (pSt->bFlatGuard) {
    const char *zWhy = flat_bounds(pSt, &mB, &nB);
    if (zWhy) return ks_rewrite_refuse(p, "'%s' %s", zKernel, zWhy);
  } else if (!pSt->bGuard) {
    pG->bGrid = 1;
  } else if (clang_equalCursors(clang_getCursorReferenced(pSt->guardVar[0]), pSt->row) &&
      clang_equalCursors(clang_getCursorReferenced(pSt->guardVar[1]), pSt->col)) {
    mB = pSt->guardBound[0];
    nB = pSt->guardBound[1];
  } else if (clang_equalCursors(clang_getCursorReferenced(pSt->guardVar[0]), pSt->col) &&
             clang_equalCursors(clang_getCursorReferenced(pSt->guardVar[1]), pSt->row)) {
    mB = pSt->guardBound[1];
    nB = pSt->guardBound[0];
  } else {
    return ks_rewrite_refuse(p, "the guard of '%s' does not bound the row and the column", zKernel);
  }
  if (pSt->nFlat && (pSt->nFlat != 2 || !pSt->bGuard))
    return ks_rewrite_refuse(p, "'%s' splits a flat index %s; its rows and columns are not a rectangle the rule can "
                                "see",
                             zKernel, pSt->nFlat != 2 ? "into one thread index only" : "with no bounds guard");
  if (pSt->nFlat) {
    /* t % D bounded by D itself: every column below it is some thread's */
    int tRem = pSt->abFlatRem[0] ? 0 : 1;
    char *zB = ks_rw_squash_cursor(pTu, clang_equalCursors(pSt->aThread[tRem], pSt->row) ? mB : nB);
    int bSame = zB && pSt->zFlatD && !strcmp(zB, pSt->zFlatD);
    free(zB);
    if (!bSame)
      return ks_rewrite_refuse(p, "'%s' takes its index modulo another value than the bound its guard puts on it "
                                  "(t %% D with D the guard's bound: each output once)",
                               zKernel);
  }
  CXCursor sx, sy, sz;
  char *zCast = NULL; /* the casts are read again below, once nothing can refuse before the match owns them */
  int iDummy;
  if (pSt->bATrans) operand(pSt, pSt->aSub, pSt->kVar, pSt->row, &iDummy, &sx, &zCast);
  else operand(pSt, pSt->aSub, pSt->row, pSt->kVar, &iDummy, &sx, &zCast);
  free(zCast);
  if (pSt->bBTrans) operand(pSt, pSt->bSub, pSt->col, pSt->kVar, &iDummy, &sy, &zCast);
  else operand(pSt, pSt->bSub, pSt->kVar, pSt->col, &iDummy, &sy, &zCast);
  free(zCast);
  lin_at(pSt, pSt->cSub, pSt->cIdx, pSt->row, pSt->col, &sz, &zCast);
  free(zCast);
  CXCursor aExpr[6] = {mB, nB, pSt->kBound, sx, sy, sz};
  const char *zWhole = texts_whole(pSt, mB, nB);
  if (zWhole) return ks_rewrite_refuse(p, "kernel '%s': %s", zKernel, zWhole);
  for (int i = 0; i < 6; i++)
    if (!(i != 2 && clang_Cursor_isNull(aExpr[i])) && !pure_of(pSt, aExpr[i])) /* null: from the model, or GRID */
      return ks_rewrite_refuse(p, "a bound or stride of '%s' is not built from scalar parameters", zKernel);
  if (pSt->iC == pSt->iA || pSt->iC == pSt->iB || (pSt->bDual && (pSt->iC == pSt->iA2 || pSt->iC == pSt->iB2)))
    return ks_rewrite_refuse(p, "C is also an input of '%s'", zKernel);
  if (pSt->bDual) {
    /* both products scaled by the same scalar, on A's factor, or neither */
    int bS1 = !clang_Cursor_isNull(pSt->aScale), bS2 = !clang_Cursor_isNull(pSt->aScale2);
    char *z1 = bS1 ? cursor_text(pTu, pSt->aScale) : NULL, *z2 = bS2 ? cursor_text(pTu, pSt->aScale2) : NULL;
    int bSame = bS1 == bS2 && (!bS1 || (z1 && z2 && !strcmp(z1, z2) && clang_equalCursors(pSt->aScaled2, pSt->aSub2)));
    free(z1);
    free(z2);
    if (!bSame)
      return ks_rewrite_refuse(p, "the two products of '%s' are not scaled alike (the same scalar on A's factor, or none)",
                               zKernel);
  }
  if (pSt->iC < 64 && (pSt->mEpiRead >> pSt->iC & 1))
    return ks_rewrite_refuse(p, "the epilogue of '%s' reads C, which it writes", zKernel);
  /* OWN_C: the epilogue's P[u * S + v] reads are C at the store's own index */
  for (int i = 0; i < pSt->nOwn; i++) {
    CXCursor so = clang_getNullCursor();
    int bSame = pSt->aOwnParam[i] == pSt->iC &&
                (in_fn_macro(pSt, pSt->aOwnIdx[i]) || linear_index(pSt->aOwnIdx[i], pSt->row, pSt->col, &so, NULL)) &&
                same_index(pSt, pSt->aOwnSub[i], pSt->aOwnIdx[i], so, pSt->cSub, pSt->cIdx, sz);
    if (!bSame)
      return ks_rewrite_refuse(p, "the epilogue of '%s' reads an array at row * ld + col other than its own output of C",
                               zKernel);
  }
  /* IDIOMS: `C[idx] = 0;` then the k-loop accumulates into that same C[idx] */
  if (pSt->bZeroStore) {
    int bSame = pSt->bAccC && pSt->iZeroC == pSt->iC &&
                same_index(pSt, pSt->zeroSub, pSt->zeroIdx, pSt->zeroIdx, pSt->cSub, pSt->cIdx, pSt->cIdx);
    if (!bSame)
      return ks_rewrite_refuse(p, "'%s' sets an element of C other than the one its k-loop accumulates into", zKernel);
  }
  if (!clang_Cursor_isNull(pSt->aScale) && !clang_equalCursors(pSt->aScaled, pSt->aSub))
    return ks_rewrite_refuse(p, "the scalar of '%s' multiplies B's factor first ((s * B) * A); not A's", zKernel);
  const int bEpi = (!pSt->bAccC && (pSt->nEpi > 0 || !refers_to(pSt->storeVal, pSt->acc))) || !clang_Cursor_isNull(pSt->accInit) ||
                   pSt->bStoreAdd;
  if (bEpi) {
    /* the epilogue runs on locals of the kernel's names: they must not shadow a parameter or clash with ours */
    CXCursor aName[3] = {pSt->acc, pSt->row, pSt->col};
    for (int i = 0; i < 3; i++) {
      CXString s = clang_getCursorSpelling(aName[i]);
      const char *z = clang_getCString(s);
      int bClash = strncmp(z, "ks_", 3) == 0;
      for (int j = 0; j < ks_rw_param_count(kernel) && !bClash; j++) {
        CXString sp = clang_getCursorSpelling(ks_rw_param_at(kernel, j));
        bClash = strcmp(z, clang_getCString(sp)) == 0;
        clang_disposeString(sp);
      }
      clang_disposeString(s);
      if (bClash)
        return ks_rewrite_refuse(p, "a local of '%s' starts with ks_ or shadows a parameter; the epilogue cannot be kept",
                                 zKernel);
    }
  }
  /* Element types: A, B, C and the accumulator all float, or all double. */
  enum CXTypeKind eAcc =
      pSt->bAccC ? clang_getCanonicalType(clang_getPointeeType(clang_getCursorType(ks_rw_param_at(
                     kernel, pSt->iC))))
                     .kind
               : clang_getCanonicalType(clang_getCursorType(pSt->acc)).kind;
  CXCursor aPtr[5] = {ks_rw_param_at(kernel, pSt->iA), ks_rw_param_at(kernel, pSt->iB),
                      ks_rw_param_at(kernel, pSt->iC), ks_rw_param_at(kernel, pSt->bDual ? pSt->iA2 : pSt->iA),
                      ks_rw_param_at(kernel, pSt->bDual ? pSt->iB2 : pSt->iB)};
  for (int i = 0; i < 5; i++) {
    CXType t = clang_getCanonicalType(clang_getCursorType(aPtr[i]));
    if (t.kind != CXType_Pointer || clang_getCanonicalType(clang_getPointeeType(t)).kind != eAcc)
      return ks_rewrite_refuse(p, "A, B, C and the accumulator of '%s' are not all float or all double", zKernel);
  }
  for (int i = 0; i < ks_rw_param_count(kernel); i++) {
    CXString s = clang_getCursorSpelling(ks_rw_param_at(kernel, i));
    int bClash = strncmp(clang_getCString(s), "ks_", 3) == 0;
    clang_disposeString(s);
    if (bClash) return ks_rewrite_refuse(p, "a parameter of '%s' starts with ks_ (names this rule uses)", zKernel);
  }
  pG->bDouble = eAcc == CXType_Double;
  if (pSt->bATrans) operand(pSt, pSt->aSub, pSt->kVar, pSt->row, &iDummy, &sx, &pG->zACast);
  else operand(pSt, pSt->aSub, pSt->row, pSt->kVar, &iDummy, &sx, &pG->zACast);
  pG->bATrans = pSt->bATrans;
  pG->bInitC = pSt->bAccC && (!pSt->bZeroStore || !clang_Cursor_isNull(pSt->cScale)); /* zeroed first: from 0 */
  if (!clang_Cursor_isNull(pSt->cScale) && !(pG->zCScale = cursor_text(pTu, pSt->cScale))) {
    ks_rule_gemm_match_free(pG);
    return ks_error_set(KS_ENOMEM, "out of memory");
  }
  if (!clang_Cursor_isNull(pSt->aScale) && !(pG->zAScale = cursor_text(pTu, pSt->aScale))) {
    ks_rule_gemm_match_free(pG);
    return ks_error_set(KS_ENOMEM, "out of memory");
  }
  pG->bStoreAdd = pSt->bStoreAdd;
  pG->bFma = pSt->bFma;
  if (pSt->bBTrans) operand(pSt, pSt->bSub, pSt->col, pSt->kVar, &iDummy, &sy, &pG->zBCast);
  else operand(pSt, pSt->bSub, pSt->kVar, pSt->col, &iDummy, &sy, &pG->zBCast);
  pG->bBTrans = pSt->bBTrans;
  if (bEpi) {
    ks_buf e = KS_BUF_INIT;
    int bOom = 0;
    for (int i = 0; i < pSt->nEpi && !bOom; i++) {
      char *z = cursor_text(pTu, pSt->aEpi[i]);
      bOom = !z || ks_buf_printf(&e, "%s;\n", z) < 0;
      free(z);
    }
    pG->zEpilogue = bOom ? NULL : ks_buf_detach(&e);
    ks_buf_free(&e);
    pG->zStore = cursor_text(pTu, pSt->storeVal);
    if (!clang_Cursor_isNull(pSt->accInit) && !(pG->zInit = cursor_text(pTu, pSt->accInit))) bOom = 1;
    pG->zAccName = name_of(pSt->acc);
    pG->zRowName = name_of(pSt->row);
    pG->zColName = name_of(pSt->col);
    pG->mEpiParams = epi_params(pSt);
    for (int t = 0; t < 2; t++)
      if (pSt->mEpiThread >> t & 1) {
        if (clang_equalCursors(pSt->aThread[t], pSt->row)) pG->bEpiRow = 1;
        else pG->bEpiCol = 1;
      }
  }
  lin_at(pSt, pSt->cSub, pSt->cIdx, pSt->row, pSt->col, &sz, &pG->zCCast);
  pG->iA = pSt->iA;
  pG->iB = pSt->iB;
  pG->iC = pSt->iC;
  if (bounds_fill(pSt, pG, mB, nB) < 0) {
    ks_rule_gemm_match_free(pG);
    return ks_error_set(KS_ENOMEM, "out of memory");
  }
  pG->iK = bound_param(kernel, pSt->kBound);
  pG->zX = pSt->bATrans ? stride_text(pSt, pSt->aSub, pSt->kVar, pSt->row, sx, &pG->iX)
                        : stride_text(pSt, pSt->aSub, pSt->row, pSt->kVar, sx, &pG->iX);
  pG->zY = pSt->bBTrans ? stride_text(pSt, pSt->bSub, pSt->col, pSt->kVar, sy, &pG->iY)
                        : stride_text(pSt, pSt->bSub, pSt->kVar, pSt->col, sy, &pG->iY);
  pG->zZ = stride_text(pSt, pSt->cSub, pSt->row, pSt->col, sz, &pG->iZ);
  pG->zM = pG->bGrid ? NULL : cursor_text(pTu, mB);
  pG->zN = pG->bGrid ? NULL : cursor_text(pTu, nB);
  pG->zK = cursor_text(pTu, pSt->kBound);
  if (pSt->pShape && batch_fill(pSt, pG) < 0) {
    ks_rule_gemm_match_free(pG);
    return KS_ENOMEM;
  }
  if (pSt->bDual) {
    int rcD = dual_fill(pSt, pG);
    if (rcD < 0) return rcD;
  }
  pG->zRowType = type_text(pSt->row);
  pG->zColType = type_text(pSt->col);
  pG->zKType = type_text(pSt->kVar);
  pG->bRowOnY = pSt->acDim[clang_equalCursors(pSt->aThread[0], pSt->row) ? 0 : 1] == 'y';
  char cColDim = pSt->acDim[clang_equalCursors(pSt->aThread[0], pSt->col) ? 0 : 1];
  if ((!pG->bGrid && (!pG->zM || !pG->zN)) || !pG->zK || !pG->zX || !pG->zY || !pG->zZ || !pG->zRowType || !pG->zColType ||
      !pG->zKType || (bEpi && (!pG->zEpilogue || !pG->zStore || !pG->zAccName || !pG->zRowName || !pG->zColName))) {
    ks_rule_gemm_match_free(pG);
    return ks_error_set(KS_ENOMEM, "out of memory");
  }
  if ((pG->bRowOnY && cColDim != 'x') || (!pG->bRowOnY && cColDim != 'y')) {
    ks_rule_gemm_match_free(pG);
    return ks_rewrite_refuse(p, "row and column of '%s' come from the same block dimension", zKernel);
  }
  grid_fill(pSt, pG);
  return KS_OK;
}

int ks_rule_gemm_match_ex(ks_rewrite *p, unsigned mAccept, ks_gemm_match *pG) {
  ks_tu *pTu = ks_rewrite_tu(p);
  CXCursor kernel = ks_ast_find_kernel(pTu, ks_rewrite_kernel_name(p));
  gm_state st;
  memset(pG, 0, sizeof *pG);
  memset(&st, 0, sizeof st);
  st.p = p;
  st.pTu = pTu;
  st.kernel = kernel;
  st.acc = clang_getNullCursor();
  st.accInit = clang_getNullCursor();
  st.kDecl = clang_getNullCursor();
  st.aScale = clang_getNullCursor();
  st.aScaled = clang_getNullCursor();
  st.aScale2 = clang_getNullCursor();
  st.flatBase = clang_getNullCursor();
  st.flatDiv = clang_getNullCursor();
  st.flatQuot = clang_getNullCursor();
  st.flatBound = clang_getNullCursor();
  st.strideVar = clang_getNullCursor();
  st.failSt = clang_getNullCursor();
  st.aScaled2 = clang_getNullCursor();
  st.cScale = clang_getNullCursor();
  st.kLoop = clang_getNullCursor();
  st.cSub = clang_getNullCursor();
  st.mAccept = mAccept;
  int rc;
  /* MODEL: the kernel-shape model reads what the text does not (macro uses, derived pointers) */
  if ((mAccept & KS_GEMM_ACCEPT_MODEL) && !clang_Cursor_isNull(kernel) &&
      (kind(kernel) == CXCursor_FunctionDecl || (kind(kernel) == CXCursor_FunctionTemplate && (mAccept & KS_GEMM_ACCEPT_GRID))) &&
      (rc = ks_shape_build(pTu, kernel, &st.pShape)) < 0)
    return rc;
  rc = match_kernel(&st, pG);
  ks_shape_free(st.pShape);
  for (int i = 0; i < st.fn.n; i++) free(st.fn.az[i]);
  free(st.zFlatD);
  return rc;
}

void ks_rule_gemm_match_free(ks_gemm_match *pG) {
  char **az[] = {&pG->zM,       &pG->zN,       &pG->zK,      &pG->zX,      &pG->zY,     &pG->zZ,
                 &pG->zRowType, &pG->zColType, &pG->zKType, &pG->zACast, &pG->zBCast, &pG->zCCast,
                 &pG->zEpilogue, &pG->zStore,   &pG->zAccName, &pG->zRowName, &pG->zColName, &pG->zInit, &pG->zCScale, &pG->zAScale,
                 &pG->zBatchDecls, &pG->zAPtr, &pG->zBPtr, &pG->zCPtr, &pG->zX2, &pG->zY2, &pG->zMMember, &pG->zNMember};
  for (size_t i = 0; i < sizeof az / sizeof az[0]; i++) {
    free(*az[i]);
    *az[i] = NULL;
  }
}

/* ---- the rule ---- */

/* Names and sizes the tiled body is written with. */
typedef struct tile_ctx {
  const ks_gemm_match *pG;
  const char *zI;                 /* the body's indentation */
  const char *zE, *zZero;         /* element type, its zero */
  const char *zRowBlk, *zColBlk;  /* blockIdx.y / blockIdx.x, or swapped */
  const char *zA, *zB, *zC;       /* the matrices' parameter names */
  const char *zAc, *zBc, *zCc;    /* widening casts on their indices, or "" */
  int T, R, C;                    /* tile, outputs per thread along rows, along columns */
} tile_ctx;

/* The bounds-checked store of one output (ks_row, ks_col in scope) from the
 * accumulator element zAcc; with an epilogue, the epilogue as written on
 * locals of the kernel's names. zIn: the indentation of the `if`. */
static int emit_store(ks_buf *pB, const tile_ctx *pX, const char *zIn, const char *zAcc) {
  const ks_gemm_match *pG = pX->pG;
  int rc;
  if (!pG->zStore)
    return ks_buf_printf(pB, "%sif (ks_row < (%s) && ks_col < (%s)) %s[%sks_row * (%s) + ks_col] = %s;\n", zIn, pG->zM,
                         pG->zN, pX->zC, pX->zCc, pG->zZ, zAcc);
  rc = ks_buf_printf(pB, "%sif (ks_row < (%s) && ks_col < (%s)) {\n%s  %s %s = %s;\n", zIn, pG->zM, pG->zN, zIn,
                     pX->zE, pG->zAccName, zAcc);
  if (rc >= 0 && pG->bEpiRow) rc = ks_buf_printf(pB, "%s  const %s %s = ks_row;\n", zIn, pG->zRowType, pG->zRowName);
  if (rc >= 0 && pG->bEpiCol) rc = ks_buf_printf(pB, "%s  const %s %s = ks_col;\n", zIn, pG->zColType, pG->zColName);
  for (const char *z = pG->zEpilogue; rc >= 0 && *z;) {
    const char *zNl = strchr(z, '\n');
    rc = ks_buf_printf(pB, "%s  %.*s\n", zIn, (int)(zNl - z), z);
    z = zNl + 1;
  }
  if (rc >= 0)
    rc = ks_buf_printf(pB, "%s  %s[%sks_row * (%s) + ks_col] = %s;\n%s}\n", zIn, pX->zC, pX->zCc, pG->zZ, pG->zStore,
                       zIn);
  return rc;
}

/* The tiled body: a call of ks_tilegemm::gemm_1d (cols=1) or gemm_2d (cols>1)
 * of the shipped header ks_tilegemm.cuh, with the kernel's own code in three
 * lambdas: A's and B's elements (zero outside the matrices) and the store
 * (its bounds check and epilogue). */
static int body_call(ks_buf *pB, const tile_ctx *pX) {
  const ks_gemm_match *pG = pX->pG;
  const char *zI = pX->zI, *zE = pX->zE, *zZero = pX->zZero;
  char zCols[16] = ""; /* gemm_2d's extra template argument */
  if (pX->C > 1) snprintf(zCols, sizeof zCols, "%d, ", pX->C);
  /* B's element (k, n): B[n * ldb + k] transposed, else B[k * ldb + n] */
  const char *zBo = pG->bBTrans ? "ks_bn" : "ks_bk", *zBi = pG->bBTrans ? "ks_bk" : "ks_bn";
  int rc = ks_buf_printf(pB,
      "\n%sks_tilegemm::gemm_%s<%d, %d, %s%s, %s, %s, %s, %s>(%s, %s, (%s), %s,\n"
      "%s    [&](%s ks_ar, %s ks_ak) { return (ks_ar < (%s) && ks_ak < (%s)) ? %s[%sks_ar * (%s) + ks_ak] : %s; },\n"
      "%s    [&](%s ks_bk, %s ks_bn) { return (ks_bk < (%s) && ks_bn < (%s)) ? %s[%s%s * (%s) + %s] : %s; },\n",
      zI, pX->C > 1 ? "2d" : "1d", pX->T, pX->R, zCols, pG->bBTrans ? "true" : "false", zE, pG->zRowType,
      pG->zColType, pG->zKType, pX->zRowBlk, pX->zColBlk, pG->zK, zZero,
      zI, pG->zRowType, pG->zKType, pG->zM, pG->zK, pX->zA, pX->zAc, pG->zX, zZero,
      zI, pG->zKType, pG->zColType, pG->zK, pG->zN, pX->zB, pX->zBc, zBo, pG->zY, zBi, zZero);
  if (rc >= 0)
    rc = ks_buf_printf(pB, "%s    [&](%s ks_row, %s ks_col, %s ks_v) {\n", zI, pG->zRowType, pG->zColType, zE);
  if (rc < 0) return rc;
  char zIn[72];
  snprintf(zIn, sizeof zIn, "%s      ", zI);
  if ((rc = emit_store(pB, pX, zIn, "ks_v")) < 0) return rc;
  return ks_buf_printf(pB, "%s    });\n", zI);
}

/* A parameter that must be one of 1, 2, 4, 8 and at most the tile. */
static int pow2_param(const char *z, int T) {
  int n = atoi(z);
  if ((n != 1 && n != 2 && n != 4 && n != 8) || strspn(z, "0123456789") != strlen(z) || n > T) return 0;
  return n;
}

static int apply_smem_tile_gemm(ks_rewrite *p) {
  ks_tu *pTu = ks_rewrite_tu(p);
  const char *zKernel = ks_rewrite_kernel_name(p);
  const char *zTile = ks_rewrite_param(p, "tile", "16");
  const char *zRegs = ks_rewrite_param(p, "regs", "1");
  const char *zCols = ks_rewrite_param(p, "cols", "1");
  ks_gemm_match g;
  ks_launch *aL = NULL;
  int nL = 0, rc;
  ks_buf body = KS_BUF_INIT, cfg = KS_BUF_INIT, note = KS_BUF_INIT;
  memset(&g, 0, sizeof g);
  int T = atoi(zTile), R, C;
  if ((T != 8 && T != 16 && T != 32 && T != 64) || strspn(zTile, "0123456789") != strlen(zTile))
    return ks_rewrite_refuse(p, "tile=%s: use 8, 16, 32 or 64", zTile);
  if (!(R = pow2_param(zRegs, T))) return ks_rewrite_refuse(p, "regs=%s: use 1, 2, 4 or 8 (at most the tile)", zRegs);
  if (!(C = pow2_param(zCols, T))) return ks_rewrite_refuse(p, "cols=%s: use 1, 2, 4 or 8 (at most the tile)", zCols);
  int S = T / R, W = T / C; /* the block: W x S threads */
  if (W * S < 32 || W * S > 1024)
    return ks_rewrite_refuse(p, "tile=%d regs=%d cols=%d: a block of %dx%d = %d threads; it must have 32 to 1024", T, R,
                             C, W, S, W * S);

  CXCursor kernel = ks_ast_find_kernel(pTu, zKernel);
  unsigned iKs, iKe;
  if (!clang_Cursor_isNull(kernel) && ks_ast_extent(pTu, kernel, &iKs, &iKe) == 0 &&
      ks_rewrite_has_note(p, iKs, iKe, NULL))
    return ks_rewrite_already(p, "kernel '%s' is already shared-memory tiled by this rule", zKernel);
  if ((rc = ks_rule_gemm_match_ex(p, KS_GEMM_ACCEPT_LINEAR, &g)) < 0) return rc;
  if (ks_rw_has_word(pTu, g.iKernelStart, g.iBodyStart, "__launch_bounds__")) {
    rc = ks_rewrite_refuse(p, "kernel '%s' has __launch_bounds__; its block size changes here (apply launch-bounds after)",
                           zKernel);
    goto done;
  }
  if (g.bDouble && T == 64) {
    /* two 64x64 double tiles are 64 KB, over the 48 KB of static shared memory */
    rc = ks_rewrite_refuse(p, "tile=64 on double ('%s'): its tiles need over 48 KB of shared memory; use tile=32", zKernel);
    goto done;
  }
  if ((rc = ks_rw_require_class(p, kernel, KS_CLASS_GEMM)) < 0) goto done;
  if ((rc = ks_rw_kernel_launches(p, zKernel, &aL, &nL)) < 0) goto done;
  if (g.iM < 0 || g.iN < 0) {
    rc = ks_rewrite_refuse(p, "the row/column bounds of '%s' are not single parameters; cannot size the grid", zKernel);
    goto done;
  }

  /* The tiled body. */
  tile_ctx x;
  memset(&x, 0, sizeof x);
  x.pG = &g;
  x.zE = g.bDouble ? "double" : "float";
  x.zZero = g.bDouble ? "0.0" : "0.0f";
  x.zRowBlk = g.bRowOnY ? "blockIdx.y" : "blockIdx.x";
  x.zColBlk = g.bRowOnY ? "blockIdx.x" : "blockIdx.y";
  x.T = T;
  x.R = R;
  x.C = C;
  /* (size_t)row * lda + k in the original: the same widening on the tile's indices */
  x.zAc = g.zACast ? g.zACast : "";
  x.zBc = g.zBCast ? g.zBCast : "";
  x.zCc = g.zCCast ? g.zCCast : "";
  CXString sA = clang_getCursorSpelling(ks_rw_param_at(kernel, g.iA));
  CXString sB = clang_getCursorSpelling(ks_rw_param_at(kernel, g.iB));
  CXString sC = clang_getCursorSpelling(ks_rw_param_at(kernel, g.iC));
  x.zA = clang_getCString(sA);
  x.zB = clang_getCString(sB);
  x.zC = clang_getCString(sC);
  unsigned nIndent = 0, iLine0 = ks_rewrite_line_start(p, g.iKernelStart, &nIndent);
  char zI[64];
  snprintf(zI, sizeof zI, "%.*s  ", (int)(nIndent < 60 ? nIndent : 60), pTu->zSrc + iLine0);
  x.zI = zI;
  rc = body_call(&body, &x);
  clang_disposeString(sA);
  clang_disposeString(sB);
  clang_disposeString(sC);
  if (rc < 0) goto done;
  if ((rc = ks_rewrite_replace(p, g.iBodyStart + 1, g.iBodyEnd - 1, body.z)) < 0) goto done;
  if (C > 1)
    rc = ks_buf_printf(&note, "%dx%d shared-memory tiles, %dx%d outputs per thread (2-D register blocking), block %dx%d",
                       T, T, R, C, W, S);
  else if (R > 1) rc = ks_buf_printf(&note, "%dx%d shared-memory tiles, %d outputs per thread (register blocking), block %dx%d", T, T, R, T, S);
  else rc = ks_buf_printf(&note, "%dx%d shared-memory tiles, block %dx%d", T, T, T, S);
  if (rc >= 0 && g.bBTrans) rc = ks_buf_printf(&note, ", B transposed");
  if (rc >= 0 && g.zStore) rc = ks_buf_printf(&note, ", epilogue kept");
  if (rc < 0 || (rc = ks_rw_insert_shipped(p, iLine0, nIndent, "#define KS_TILEGEMM_CUH", "ks_tilegemm.cuh",
                                            "tiled GEMM header",
                                            "the shipped shared-memory tiled GEMM "
                                            "(share/kernelskill/templates/ks_tilegemm.cuh)",
                                            note.z)) < 0)
    goto done;

  /* Every launch: the grid covers M x N in T x T tiles. */
  for (int i = 0; i < nL; i++) {
    ks_launch *pL = &aL[i];
    if ((rc = ks_rw_launch_arity(p, pL, kernel, zKernel)) < 0) goto done;
    const char *zMArg = pL->azArg[g.iM], *zNArg = pL->azArg[g.iN];
    ks_buf_clear(&cfg);
    if (g.bRowOnY)
      rc = ks_buf_printf(&cfg, "dim3(((%s) + %d) / %d, ((%s) + %d) / %d), dim3(%d, %d)", zNArg, T - 1, T, zMArg, T - 1,
                         T, W, S);
    else
      rc = ks_buf_printf(&cfg, "dim3(((%s) + %d) / %d, ((%s) + %d) / %d), dim3(%d, %d)", zMArg, T - 1, T, zNArg, T - 1,
                         T, W, S);
    if (rc < 0) goto done;
    if ((rc = ks_rw_cfg_tail(&cfg, pL)) < 0) goto done;
    if ((rc = ks_rewrite_replace(p, pL->iCfgStart, pL->iCfgEnd, cfg.z)) < 0) goto done;
    ks_buf_clear(&note);
    if ((rc = ks_buf_printf(&note, "grid of %dx%d tiles over %s x %s, block %dx%d", T, T, zMArg, zNArg, W, S)) < 0)
      goto done;
    if ((rc = ks_rewrite_note(p, pL->iStart, note.z)) < 0) goto done;
  }
done:
  ks_rule_gemm_match_free(&g);
  ks_ast_launches_free(aL, nL);
  ks_buf_free(&body);
  ks_buf_free(&cfg);
  ks_buf_free(&note);
  return rc;
}

static const char *const azParams[] = {"tile", "regs", "cols", NULL};

const ks_rule ks_rule_smem_tile_gemm = {
    "smem-tile-gemm",
    "naive GEMM k-loop to a shared-memory tiled kernel (tile=8|16|32|64, regs=1|2|4|8 x cols=1|2|4|8 register blocking)",
    azParams, apply_smem_tile_gemm};
