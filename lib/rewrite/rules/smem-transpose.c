/* smem-transpose.c — rule `smem-transpose`: an out-of-place matrix transpose
 * with one thread per element (1-D flattened index split by / and %, or a 2-D
 * thread grid) becomes the classic 32x32 shared-memory tiled transpose: block
 * 32x8, a padded [32][33] tile, coalesced loads and coalesced stores, bounds
 * guards on both sides, and a grid-stride loop over tile rows so that any
 * number of rows fits under gridDim.y's 65535. Every launch of the kernel in
 * the file gets the tiled grid and block.
 *
 * The matcher accounts for every statement of the kernel: it proves the body
 * computes out[v * S' + u] = in[u * S + v] for every (u, v) in [0, U) x [0, V)
 * and nothing else; the tiled kernel does exactly those copies
 * (docs/rules/smem-transpose.md). */
#include "../rwutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- small AST helpers ---- */

static int kind(CXCursor c) { return (int)clang_getCursorKind(c); }

/* The two operands of binary operator c when its operator is eOp. */
static int binop(CXCursor c, enum CXBinaryOperatorKind eOp, CXCursor *pL, CXCursor *pR) {
  c = ks_rw_strip(c);
  if (kind(c) != CXCursor_BinaryOperator || clang_getCursorBinaryOperatorKind(c) != eOp) return 0;
  CXCursor *a;
  int n;
  ks_rw_children(c, &a, &n);
  if (n == 2) {
    *pL = a[0];
    *pR = a[1];
  }
  free(a);
  return n == 2;
}

/* Through parentheses, implicit conversions and integer casts written in the
 * source that do not narrow (`(long long)rows`, `(size_t)r`): the value is the
 * operand's; only the type the arithmetic runs in widens. */
static CXCursor strip_widening(CXCursor c) {
  for (;;) {
    c = ks_rw_strip(c);
    int e = kind(c);
    if (e != CXCursor_CStyleCastExpr && e != CXCursor_CXXStaticCastExpr && e != CXCursor_CXXFunctionalCastExpr)
      return c;
    CXCursor *a;
    int n, iExpr = -1, nExpr = 0;
    ks_rw_children(c, &a, &n);
    for (int i = 0; i < n; i++) /* a TypeRef comes first for typedef names */
      if (clang_isExpression(clang_getCursorKind(a[i]))) iExpr = i, nExpr++;
    CXCursor op = nExpr == 1 ? a[iExpr] : clang_getNullCursor();
    free(a);
    if (nExpr != 1) return c;
    CXType tTo = clang_getCursorType(c), tFrom = clang_getCursorType(op);
    if (!ks_rw_is_integer_type(tTo) || !ks_rw_is_integer_type(tFrom) || clang_Type_getSizeOf(tTo) < clang_Type_getSizeOf(tFrom))
      return c;
    c = op;
  }
}

/* Index of the kernel parameter that c names (through widening casts), -1 else. */
static int param_of(CXCursor kernel, CXCursor c) { return ks_rw_param_of(kernel, strip_widening(c)); }

/* The one variable of a DeclStmt and its initializer (null when none). */
static int single_var(CXCursor stmt, CXCursor *pVar, CXCursor *pInit) {
  CXCursor *a, *v;
  int n, nV;
  if (kind(stmt) != CXCursor_DeclStmt) return 0;
  ks_rw_children(stmt, &a, &n);
  int bOk = n == 1 && kind(a[0]) == CXCursor_VarDecl;
  if (bOk) {
    *pVar = a[0];
    *pInit = clang_getNullCursor();
    ks_rw_children(a[0], &v, &nV);
    for (int i = 0; i < nV; i++)
      if (clang_isExpression(clang_getCursorKind(v[i]))) *pInit = v[i];
    free(v);
  }
  free(a);
  return bOk;
}

/* A subscript P[index] whose base is a pointer parameter: its index, else -1. */
static int subscript(CXCursor kernel, CXCursor c, CXCursor *pIndex) {
  CXCursor *a;
  int n, iP = -1;
  c = ks_rw_strip(c);
  if (kind(c) != CXCursor_ArraySubscriptExpr) return -1;
  ks_rw_children(c, &a, &n);
  if (n == 2) {
    CXCursor base = ks_rw_strip(a[0]);
    if (kind(base) == CXCursor_DeclRefExpr && clang_getCanonicalType(clang_getCursorType(base)).kind == CXType_Pointer) {
      CXCursor d = clang_getCursorReferenced(base);
      int nP = clang_Cursor_getNumArguments(kernel);
      for (int i = 0; i < nP; i++)
        if (clang_equalCursors(clang_Cursor_getArgument(kernel, (unsigned)i), d)) iP = i;
    }
    *pIndex = a[1];
  }
  free(a);
  return iP;
}

/* An expression built only from the kernel's scalar parameters, integer
 * literals, + - * / and widening casts: the same value in every thread. */
static int is_pure(CXCursor kernel, CXCursor c) {
  CXCursor l, r;
  c = strip_widening(c);
  if (kind(c) == CXCursor_IntegerLiteral) return 1;
  if (kind(c) == CXCursor_DeclRefExpr)
    return param_of(kernel, c) >= 0 && ks_rw_is_integer_type(clang_getCursorType(c));
  enum CXBinaryOperatorKind aOps[] = {CXBinaryOperator_Add, CXBinaryOperator_Sub, CXBinaryOperator_Mul,
                                       CXBinaryOperator_Div};
  for (int i = 0; i < 4; i++)
    if (binop(c, aOps[i], &l, &r)) return is_pure(kernel, l) && is_pure(kernel, r);
  return 0;
}

/* ---- the element terms u and v ----
 * In the 2-D form a term is a reference to one of the two thread-index
 * variables; in the 1-D form it is `i / X` or `i % X`, written in place or
 * through a local variable initialized to it. */

typedef struct term_ctx {
  int b1D;
  CXCursor kernel;
  CXCursor idx;          /* 1-D: the global index variable */
  CXCursor aVar[8];      /* 1-D: locals of the body; 2-D: the two thread indices */
  CXCursor aInit[8];
  int nVar;
  CXCursor aTmp[4];      /* 2-D: element-index temporaries before the copy (int in = x + w * y;) */
  CXCursor aTmpInit[4];
  int nTmp;
  CXCursor batch;        /* 2-D: the batch index `b = blockIdx.z`, or null */
} term_ctx;

/* What term c is: 2-D: 1 + the thread-index variable's slot; 1-D: 1 for
 * i / X, 2 for i % X, with *piDivisor the parameter X. 0: not a term. */
static int term(const term_ctx *pC, CXCursor c, int *piDivisor) {
  CXCursor e = strip_widening(c);
  for (int iDepth = 0; iDepth < 2; iDepth++) {
    CXCursor d = kind(e) == CXCursor_DeclRefExpr ? clang_getCursorReferenced(e) : clang_getNullCursor();
    int iVar = -1;
    for (int i = 0; i < pC->nVar && !clang_Cursor_isNull(d); i++)
      if (clang_equalCursors(pC->aVar[i], d)) iVar = i;
    if (!pC->b1D) return iVar >= 0 ? 1 + iVar : 0;
    if (iVar >= 0) {
      if (iDepth > 0) return 0;
      e = strip_widening(pC->aInit[iVar]);
      continue;
    }
    CXCursor l, r;
    int eOp = binop(e, CXBinaryOperator_Div, &l, &r) ? 1 : binop(e, CXBinaryOperator_Rem, &l, &r) ? 2 : 0;
    if (!eOp || !ks_rw_is_ref_to(strip_widening(l), pC->idx)) return 0;
    if ((*piDivisor = param_of(pC->kernel, r)) < 0) return 0;
    return eOp;
  }
  return 0;
}

/* `U * S + V` (either order of the product and of the sum), U and V terms:
 * 1 and the term codes, the stride S and the divisors (1-D). */
static int linear(const term_ctx *pC, CXCursor idx, int *peU, int *peV, CXCursor *pStride, int *piDivU, int *piDivV) {
  CXCursor l, r, ml, mr;
  CXCursor d = kind(strip_widening(idx)) == CXCursor_DeclRefExpr ? clang_getCursorReferenced(strip_widening(idx))
                                                                 : clang_getNullCursor();
  for (int i = 0; i < pC->nTmp && !clang_Cursor_isNull(d); i++)
    if (clang_equalCursors(pC->aTmp[i], d)) idx = pC->aTmpInit[i]; /* the temporary's value */
  if (!binop(strip_widening(idx), CXBinaryOperator_Add, &l, &r)) return 0;
  for (int iSwap = 0; iSwap < 2; iSwap++) {
    CXCursor prod = iSwap ? r : l, add = iSwap ? l : r;
    if (!(*peV = term(pC, add, piDivV))) continue;
    if (!binop(strip_widening(prod), CXBinaryOperator_Mul, &ml, &mr)) continue;
    for (int iM = 0; iM < 2; iM++) {
      CXCursor u = iM ? mr : ml, s = iM ? ml : mr;
      int iDummy;
      if ((*peU = term(pC, u, piDivU)) && !term(pC, s, &iDummy)) {
        *pStride = s;
        return 1;
      }
    }
  }
  return 0;
}

/* Is c (through widening casts) the batch index variable? */
static int is_batch(const term_ctx *pC, CXCursor c) {
  return !clang_Cursor_isNull(pC->batch) && ks_rw_is_ref_to(strip_widening(c), pC->batch);
}

/* A batch offset: a product of the batch index (once) and scalar-parameter
 * factors (`b * R * C`, `(size_t)b * rows * cols`), or the batch index alone. */
static int batch_offset(const term_ctx *pC, CXCursor c, int *pnBatch) {
  CXCursor l, r;
  c = strip_widening(c);
  if (is_batch(pC, c)) {
    (*pnBatch)++;
    return 1;
  }
  if (binop(c, CXBinaryOperator_Mul, &l, &r)) return batch_offset(pC, l, pnBatch) && batch_offset(pC, r, pnBatch);
  return is_pure(pC->kernel, c);
}

/* The batched form of linear(): `OFF + U * S + V` in any order and grouping of
 * the three terms, OFF a batch offset (batch_offset, with the batch index
 * once). *pOff: OFF's cursor. */
static int linear_batched(const term_ctx *pC, CXCursor idx, int *peU, int *peV, CXCursor *pStride, int *piDivU,
                          int *piDivV, CXCursor *pOff) {
  CXCursor d = kind(strip_widening(idx)) == CXCursor_DeclRefExpr ? clang_getCursorReferenced(strip_widening(idx))
                                                                 : clang_getNullCursor();
  for (int i = 0; i < pC->nTmp && !clang_Cursor_isNull(d); i++)
    if (clang_equalCursors(pC->aTmp[i], d)) idx = pC->aTmpInit[i];
  /* the sum's terms (at most 3) */
  CXCursor aT[4], stack[8];
  int nT = 0, nS = 0;
  stack[nS++] = idx;
  while (nS > 0) {
    CXCursor c = strip_widening(stack[--nS]), l, r;
    if (binop(c, CXBinaryOperator_Add, &l, &r)) {
      if (nS + 2 > 8) return 0;
      stack[nS++] = r;
      stack[nS++] = l;
    } else {
      if (nT == 3) return 0;
      aT[nT++] = c;
    }
  }
  if (nT != 3) return 0;
  for (int iOff = 0; iOff < 3; iOff++) {
    int nBatch = 0;
    if (!batch_offset(pC, aT[iOff], &nBatch) || nBatch != 1) continue;
    CXCursor a = aT[(iOff + 1) % 3], b = aT[(iOff + 2) % 3], ml, mr;
    for (int iSwap = 0; iSwap < 2; iSwap++) {
      CXCursor prod = iSwap ? b : a, add = iSwap ? a : b;
      if (!(*peV = term(pC, add, piDivV))) continue;
      if (!binop(strip_widening(prod), CXBinaryOperator_Mul, &ml, &mr)) continue;
      for (int iM = 0; iM < 2; iM++) {
        CXCursor u = iM ? mr : ml, s = iM ? ml : mr;
        int iDummy;
        if ((*peU = term(pC, u, piDivU)) && !term(pC, s, &iDummy) && !is_batch(pC, s)) {
          *pStride = s;
          *pOff = aT[iOff];
          return 1;
        }
      }
    }
  }
  return 0;
}

/* ---- N-D form: a flat index split into digits, a permuted copy ----
 * The body: integer locals with pure initializers (the flat index i =
 * blockIdx.x * blockDim.x + threadIdx.x, a total, the digits (i / P) % S),
 * the guard if (i >= TOTAL) return; (or if (i < TOTAL) { ... }), and one copy
 * out[O] = in[L]. Read on the kernel-shape model: the digits are the mixed
 * radix decomposition of i (place values P_0 = 1, P_k+1 = P_k * S_k, the
 * outermost i / P without %, TOTAL the product of the radices); L and O are
 * sums of every digit once times a product of integer parameters (O may be i
 * itself: the digits times their place values). The load's unit-stride
 * digit a and the store's b differ (a real transpose): (b, a) is the tile,
 * the other digits are batch digits, one batch per blockIdx.z. */

#define ND_MAX 8

typedef struct nd_mono { /* coef * the product of parameters aParam (sorted) */
  long long coef;
  int n;
  int aParam[2 * KS_MONO_MAX];
} nd_mono;

typedef struct nd_digit {
  int iAtom;
  nd_mono P, S;    /* place value, radix (S.coef 0: the outermost, i / P) */
  nd_mono L, O;    /* strides in the load and the store (coef 0: absent) */
} nd_digit;

typedef struct nd_form {
  nd_digit aD[ND_MAX];
  int nD;
  int iA, iB;      /* the load's and the store's unit-stride digits */
} nd_form;


/* ---- the match ---- */

typedef struct tr_match {
  int iIn, iOut;             /* pointer parameters */
  int iRows, iCols;          /* parameters bounding the input's rows (u) and columns (v) */
  char *zRows, *zCols;       /* their names */
  char *zInStride, *zOutStride; /* in[u * S + v], out[v * S' + u], as written (1-D: the bounds) */
  char *zIdxType;            /* type the element index arithmetic runs in */
  char *zBatchDecl;          /* 2-D batched: the batch index declaration as written, else NULL */
  char *zInOff, *zOutOff;    /* 2-D batched: the batch offsets of in and out, as written */
  char *zElem;               /* element type */
  int b1D;
  int bNd;                   /* N-D: the digits below */
  nd_form nd;
  unsigned iKernelStart, iBodyStart, iBodyEnd; /* the body's braces */
} tr_match;

static void tr_match_free(tr_match *pM) {
  free(pM->zRows);
  free(pM->zCols);
  free(pM->zInStride);
  free(pM->zOutStride);
  free(pM->zIdxType);
  free(pM->zElem);
  free(pM->zBatchDecl);
  free(pM->zInOff);
  free(pM->zOutOff);
  pM->zRows = pM->zCols = pM->zInStride = pM->zOutStride = pM->zIdxType = pM->zElem = NULL;
  pM->zBatchDecl = pM->zInOff = pM->zOutOff = NULL;
}

static char *type_of(CXCursor c) {
  CXString s = clang_getTypeSpelling(clang_getCursorType(c));
  char *z = ks_strdup(clang_getCString(s));
  clang_disposeString(s);
  if (z && strncmp(z, "const ", 6) == 0) memmove(z, z + 6, strlen(z + 6) + 1);
  return z;
}

/* Does main-file range [iStart, iEnd) use a macro? Texts are copied from it. */
static int has_macro(ks_tu *pTu, unsigned iStart, unsigned iEnd) {
  ks_rw_tok *a;
  int n, bHit = 0;
  if (ks_rw_tokens(pTu, iStart, iEnd, &a, &n) < 0) return 1;
  CXFile file = clang_getFile(pTu->pTu, pTu->zFile);
  for (int i = 0; i < n && !bHit; i++) {
    if (a[i].eKind != CXToken_Identifier) continue;
    CXCursor c = clang_getCursor(pTu->pTu, clang_getLocationForOffset(pTu->pTu, file, a[i].iStart));
    bHit = clang_getCursorKind(c) == CXCursor_MacroExpansion;
  }
  ks_rw_tokens_free(a, n);
  return bHit;
}

/* The copy statement `out[W] = in[R]`: the parameter indices and index
 * expressions, else 0. */
static int copy_stmt(CXCursor kernel, CXCursor st, int *piOut, CXCursor *pW, int *piIn, CXCursor *pR) {
  CXCursor l, r;
  if (kind(st) == CXCursor_CallExpr) {
    /* A class element (__half, a struct): its copy assignment, which must be the
     * compiler's (defaulted) one, so that it only copies. */
    char *zName = ks_rw_spelling(st);
    int bAssign = zName && strcmp(zName, "operator=") == 0;
    free(zName);
    CXCursor m = clang_getCursorReferenced(st);
    if (!bAssign || clang_Cursor_isNull(m) || !clang_CXXMethod_isCopyAssignmentOperator(m) ||
        !clang_CXXMethod_isDefaulted(m) || clang_Cursor_getNumArguments(st) != 2) /* the object and the source */
      return 0;
    CXCursor *a;
    int n, nSub = 0;
    CXCursor aSub[2];
    ks_rw_children(st, &a, &n);
    for (int i = 0; i < n; i++) { /* the operands in source order, the callee between them */
      CXCursor c = ks_rw_strip(a[i]);
      if (kind(c) == CXCursor_ArraySubscriptExpr && nSub < 2) aSub[nSub++] = c;
      else if (kind(c) != CXCursor_DeclRefExpr) nSub = 3;
    }
    free(a);
    if (nSub != 2) return 0;
    l = aSub[0];
    r = aSub[1];
  } else if (kind(st) != CXCursor_BinaryOperator || !binop(st, CXBinaryOperator_Assign, &l, &r)) {
    return 0;
  }
  *piOut = subscript(kernel, l, pW);
  *piIn = subscript(kernel, r, pR); /* through the implicit load only: no arithmetic, no conversion */
  if (*piOut < 0 || *piIn < 0 || *piOut == *piIn) return 0;
  /* the same element type: a copy, no conversion */
  return clang_equalTypes(clang_getUnqualifiedType(clang_getCanonicalType(clang_getCursorType(ks_rw_strip(l)))),
                          clang_getUnqualifiedType(clang_getCanonicalType(clang_getCursorType(ks_rw_strip(r)))));
}

/* The statements a guard leads to: the then-branch's (compound or one), or
 * for an early return the kernel's statements after it. */
static int branch_stmts(CXCursor then, CXCursor **paOut, int *pnOut) {
  if (kind(then) == CXCursor_CompoundStmt) return ks_rw_children(then, paOut, pnOut);
  *paOut = malloc(sizeof(CXCursor));
  if (!*paOut) return KS_ENOMEM;
  (*paOut)[0] = then;
  *pnOut = 1;
  return KS_OK;
}

#define WHY_1D_BOUND "the guard's bound is not rows * cols (two integer parameters)"

/* 1-D: the pointwise shape (rwutil) with bound P * Q, then locals
 * `q = i / X`, `m = i % X` (in place or named), and one copy
 *   out[i] = in[m * Y + q]   (reads strided)  or  out[m * Y + q] = in[i]
 * with {X, Y} = {P, Q}. i = q * X + m, so either way the input is a matrix
 * with U rows and V columns, U = X when the write is unit-stride. Returns NULL
 * on a match, else why not (a constant, or zBuf). */
static const char *match_1d(ks_tu *pTu, CXCursor kernel, tr_match *pM, char *zBuf, size_t nBuf) {
  ks_rw_pointwise pw;
  char *zWhy = NULL;
  CXCursor *aStmt = NULL, *aIf = NULL;
  int nStmt = 0, nIf = 0;
  const char *zErr = NULL;
  if (ks_rw_pointwise_match(pTu, kernel, &pw, &zWhy) < 0) {
    snprintf(zBuf, nBuf, "%s", zWhy ? zWhy : "not a one-thread-per-element kernel");
    free(zWhy);
    return zBuf;
  }
  term_ctx tc;
  memset(&tc, 0, sizeof tc);
  tc.b1D = 1;
  tc.batch = clang_getNullCursor();
  tc.kernel = kernel;
  tc.idx = pw.idx;
  CXCursor p1, p2;
  int iP = -1, iQ = -1;
  if (!binop(strip_widening(pw.bound), CXBinaryOperator_Mul, &p1, &p2) || (iP = param_of(kernel, p1)) < 0 ||
      (iQ = param_of(kernel, p2)) < 0) {
    zErr = WHY_1D_BOUND;
    goto done;
  }
  /* The element's statements. */
  CXCursor body = ks_rw_body(kernel);
  ks_rw_children(body, &aStmt, &nStmt);
  CXCursor *aEl = NULL;
  int nEl = 0;
  if (pw.bEarlyReturn) {
    aEl = aStmt + 2;
    nEl = nStmt - 2;
  } else {
    ks_rw_children(aStmt[1], &aIf, &nIf);
    CXCursor *aThen;
    if (nIf != 2 || branch_stmts(aIf[1], &aThen, &nEl) < 0) {
      zErr = "out of memory";
      goto done;
    }
    free(aIf);
    aIf = aThen;
    aEl = aThen;
  }
  int iOut = -1, iIn = -1;
  CXCursor w, r;
  for (int i = 0; i < nEl; i++) {
    CXCursor var, init;
    if (i < nEl - 1) {
      if (!single_var(aEl[i], &var, &init) || clang_Cursor_isNull(init) || !ks_rw_is_integer_type(clang_getCursorType(var)) ||
          tc.nVar >= 8) {
        zErr = "the element's statements are not index locals (T c = i / rows; T r = i % rows;) and one copy";
        goto done;
      }
      tc.aVar[tc.nVar] = var;
      tc.aInit[tc.nVar++] = init;
      int iDiv;
      if (!term(&tc, init, &iDiv)) {
        zErr = "a local of the element is not i / X or i % X";
        goto done;
      }
      continue;
    }
    if (!copy_stmt(kernel, aEl[i], &iOut, &w, &iIn, &r)) {
      zErr = "the element's last statement is not a plain copy out[...] = in[...] between two pointer parameters";
      goto done;
    }
  }
  if (iOut < 0) {
    zErr = "the element has no copy out[...] = in[...]";
    goto done;
  }
  /* One side is i itself, the other m * Y + q. */
  int bWriteUnit = ks_rw_is_ref_to(strip_widening(w), pw.idx), bReadUnit = ks_rw_is_ref_to(strip_widening(r), pw.idx);
  if (bWriteUnit == bReadUnit) {
    zErr = "neither (or both) of the copy's sides is indexed by the global index itself";
    goto done;
  }
  int eU, eV, iDivU = -1, iDivV = -1;
  CXCursor stride;
  if (!linear(&tc, bWriteUnit ? r : w, &eU, &eV, &stride, &iDivU, &iDivV) || eU != 2 || eV != 1 || iDivU != iDivV) {
    zErr = "the strided side's index is not (i % X) * Y + i / X";
    goto done;
  }
  int iX = iDivU, iY = param_of(kernel, stride);
  if (!((iX == iP && iY == iQ) || (iX == iQ && iY == iP))) {
    zErr = "X and Y of (i % X) * Y + i / X are not the two factors of the guard's bound";
    goto done;
  }
  pM->iOut = iOut;
  pM->iIn = iIn;
  pM->iRows = bWriteUnit ? iX : iY;
  pM->iCols = bWriteUnit ? iY : iX;
  pM->zRows = ks_rw_spelling(clang_Cursor_getArgument(kernel, (unsigned)pM->iRows));
  pM->zCols = ks_rw_spelling(clang_Cursor_getArgument(kernel, (unsigned)pM->iCols));
  pM->zInStride = ks_strdup(pM->zCols);
  pM->zOutStride = ks_strdup(pM->zRows);
  /* The strided index's type, or the global index's when wider. */
  CXType tS = clang_getCursorType(bWriteUnit ? r : w);
  pM->zIdxType = clang_Type_getSizeOf(tS) >= clang_Type_getSizeOf(clang_getCursorType(pw.idx))
                     ? type_of(ks_rw_strip(bWriteUnit ? r : w))
                     : ks_strdup(pw.zIdxType);
  pM->b1D = 1;
done:
  free(aStmt);
  free(aIf);
  ks_rw_pointwise_free(&pw);
  return zErr;
}

/* A guard `a < A && b < B` (bEarly: `a >= A || b >= B`) on the two thread
 * indices: their slots and bounds. */
static int guard_2d(const term_ctx *pC, CXCursor cond, int bEarly, int aiVar[2], CXCursor aBound[2]) {
  CXCursor l, r, v, b;
  enum CXBinaryOperatorKind eJoin = bEarly ? CXBinaryOperator_LOr : CXBinaryOperator_LAnd;
  enum CXBinaryOperatorKind eCmp = bEarly ? CXBinaryOperator_GE : CXBinaryOperator_LT;
  if (!binop(cond, eJoin, &l, &r)) return 0;
  for (int i = 0; i < 2; i++) {
    int iDummy;
    if (!binop(i ? r : l, eCmp, &v, &b)) return 0;
    aiVar[i] = term(pC, v, &iDummy) - 1;
    if (aiVar[i] < 0 || kind(strip_widening(v)) != CXCursor_DeclRefExpr) return 0;
    aBound[i] = b;
  }
  return aiVar[0] != aiVar[1];
}

#define WHY_NO_2D_INDEX "the kernel does not start with two thread indices blockIdx.D * blockDim.D + threadIdx.D, D = x and y"

/* 2-D: c = blockIdx.x * blockDim.x + threadIdx.x; r = ... .y ...; (any order)
 * then if (a < A && b < B) out[v * S' + u] = in[u * S + v]; (a block with that
 * one statement, or the early-return guard followed by it), {u, v} = {a, b}. */
static const char *match_2d(ks_tu *pTu, CXCursor kernel, tr_match *pM) {
  CXCursor *aStmt = NULL, *aIf = NULL, *aThen = NULL;
  int nStmt = 0, nIf = 0, nThen = 0;
  const char *zErr = NULL;
  term_ctx tc;
  char acDim[2] = {0, 0};
  memset(&tc, 0, sizeof tc);
  tc.kernel = kernel;
  tc.batch = clang_getNullCursor(); /* a zeroed cursor is not the null cursor */
  CXCursor body = ks_rw_body(kernel);
  ks_rw_children(body, &aStmt, &nStmt);
  int i = 0;
  for (; i < nStmt && tc.nVar < 2; i++) {
    CXCursor var, init;
    if (!single_var(aStmt[i], &var, &init) || clang_Cursor_isNull(init) || !ks_rw_is_integer_type(clang_getCursorType(var)))
      break;
    int iDim = ks_rw_thread_index(pTu, kernel, init, NULL);
    if (iDim != 0 && iDim != 1) break;
    acDim[tc.nVar] = "xy"[iDim];
    tc.aVar[tc.nVar++] = var;
  }
  if (tc.nVar != 2 || acDim[0] == acDim[1]) {
    zErr = WHY_NO_2D_INDEX;
    goto done;
  }
  /* a batch index `T b = blockIdx.z;` (one matrix per blockIdx.z) */
  {
    CXCursor var, init;
    int iDim = -1;
    if (i < nStmt && single_var(aStmt[i], &var, &init) && !clang_Cursor_isNull(init) &&
        ks_rw_is_integer_type(clang_getCursorType(var)) &&
        ks_shape_builtin(strip_widening(init), &iDim) == KS_ATOM_BID && iDim == 2) {
      unsigned s, e;
      if (ks_ast_extent(pTu, aStmt[i], &s, &e) < 0) {
        zErr = "the batch index is not written in the file";
        goto done;
      }
      tc.batch = var;
      pM->zBatchDecl = malloc(e - s + 2);
      if (!pM->zBatchDecl) {
        zErr = "out of memory";
        goto done;
      }
      memcpy(pM->zBatchDecl, pTu->zSrc + s, e - s);
      pM->zBatchDecl[e - s] = 0;
      if (pTu->zSrc[e - s > 0 ? e - 1 : s] != ';') strcat(pM->zBatchDecl, ";");
      i++;
    }
  }
  if (i >= nStmt || kind(aStmt[i]) != CXCursor_IfStmt) {
    zErr = "the thread indices are not followed by the guard if (r < rows && c < cols)";
    goto done;
  }
  ks_rw_children(aStmt[i], &aIf, &nIf);
  int aiVar[2];
  CXCursor aBound[2];
  int bEarly = 0;
  if (nIf != 2) {
    zErr = "the guard must be a plain if without else";
    goto done;
  }
  CXCursor *aR;
  int nR;
  ks_rw_children(aIf[1], &aR, &nR);
  bEarly = kind(aIf[1]) == CXCursor_ReturnStmt && nR == 0;
  free(aR);
  if (kind(aIf[1]) == CXCursor_CompoundStmt) { /* `{ return; }` counts as an early return too */
    CXCursor *aB;
    int nB;
    ks_rw_children(aIf[1], &aB, &nB);
    if (nB == 1 && kind(aB[0]) == CXCursor_ReturnStmt) {
      ks_rw_children(aB[0], &aR, &nR);
      bEarly = nR == 0;
      free(aR);
    }
    free(aB);
  }
  if (!guard_2d(&tc, aIf[0], bEarly, aiVar, aBound)) {
    zErr = "the guard is not if (r < rows && c < cols) (or if (r >= rows || c >= cols) return;) on the two indices";
    goto done;
  }
  CXCursor st;
  /* The copy may be preceded by integer temporaries holding its element
   * indices; nothing else can write them (the copy is the last statement). */
  const CXCursor *aRest;
  int nRest;
  if (bEarly) {
    aRest = aStmt + i + 1;
    nRest = nStmt - i - 1;
  } else {
    if (i + 1 != nStmt || branch_stmts(aIf[1], &aThen, &nThen) < 0) {
      zErr = "the guard must hold the copy and end the kernel";
      goto done;
    }
    aRest = aThen;
    nRest = nThen;
  }
  for (int t = 0; t + 1 < nRest; t++) {
    CXCursor var, init;
    if (tc.nTmp == 4 || !single_var(aRest[t], &var, &init) || clang_Cursor_isNull(init) ||
        !ks_rw_is_integer_type(clang_getCursorType(var))) {
      zErr = bEarly ? "the early-return guard must be followed by the copy (after integer index temporaries only)"
                    : "the guard must hold the copy (after integer index temporaries only) and end the kernel";
      goto done;
    }
    tc.aTmp[tc.nTmp] = var;
    tc.aTmpInit[tc.nTmp++] = init;
  }
  if (nRest < 1) {
    zErr = "the guard is not followed by the copy";
    goto done;
  }
  st = aRest[nRest - 1];
  int iOut, iIn, eUr, eVr, eUw, eVw, iD1, iD2;
  CXCursor w, r, sIn, sOut;
  if (!copy_stmt(kernel, st, &iOut, &w, &iIn, &r)) {
    zErr = "the guarded statement is not a plain copy out[...] = in[...] between two pointer parameters";
    goto done;
  }
  CXCursor offIn, offOut;
  int bLin = clang_Cursor_isNull(tc.batch)
                 ? linear(&tc, r, &eUr, &eVr, &sIn, &iD1, &iD2) && linear(&tc, w, &eUw, &eVw, &sOut, &iD1, &iD2)
                 : linear_batched(&tc, r, &eUr, &eVr, &sIn, &iD1, &iD2, &offIn) &&
                       linear_batched(&tc, w, &eUw, &eVw, &sOut, &iD1, &iD2, &offOut);
  if (!bLin || eUr == eVr || eUw != eVr || eVw != eUr) {
    zErr = clang_Cursor_isNull(tc.batch)
               ? "the copy is not out[v * S2 + u] = in[u * S1 + v] on the two thread indices u, v"
               : "the copy is not out[B2 + v * S2 + u] = in[B1 + u * S1 + v] (B1, B2: the batch index times scalar "
                 "parameters)";
    goto done;
  }
  if (!clang_Cursor_isNull(tc.batch) &&
      (!(pM->zInOff = ks_ast_text(pTu, offIn)) || !(pM->zOutOff = ks_ast_text(pTu, offOut)))) {
    zErr = "out of memory";
    goto done;
  }
  if (!is_pure(kernel, sIn) || !is_pure(kernel, sOut)) {
    zErr = "a row stride of the copy is not built from scalar parameters";
    goto done;
  }
  /* u (the input's row) is bounded by the guard's bound on u's variable. */
  int iU = eUr - 1;
  CXCursor bRows = aiVar[0] == iU ? aBound[0] : aBound[1], bCols = aiVar[0] == iU ? aBound[1] : aBound[0];
  pM->iRows = param_of(kernel, bRows);
  pM->iCols = param_of(kernel, bCols);
  if (pM->iRows < 0 || pM->iCols < 0 || !ks_rw_is_integer_type(clang_getCursorType(strip_widening(bRows))) ||
      !ks_rw_is_integer_type(clang_getCursorType(strip_widening(bCols)))) {
    zErr = "the guard's bounds are not integer parameters (the grid is sized from the launch's arguments for them)";
    goto done;
  }
  pM->iIn = iIn;
  pM->iOut = iOut;
  pM->zRows = ks_rw_spelling(clang_Cursor_getArgument(kernel, (unsigned)pM->iRows));
  pM->zCols = ks_rw_spelling(clang_Cursor_getArgument(kernel, (unsigned)pM->iCols));
  pM->zInStride = ks_ast_text(pTu, sIn);
  pM->zOutStride = ks_ast_text(pTu, sOut);
  CXCursor rs = ks_rw_strip(r), ws = ks_rw_strip(w);
  pM->zIdxType = type_of(clang_Type_getSizeOf(clang_getCursorType(ws)) > clang_Type_getSizeOf(clang_getCursorType(rs))
                             ? ws
                             : rs);
done:
  free(aStmt);
  free(aIf);
  free(aThen);
  return zErr;
}

static int mono_eq(const nd_mono *a, const nd_mono *b) {
  if (a->coef != b->coef || a->n != b->n) return 0;
  for (int i = 0; i < a->n; i++)
    if (a->aParam[i] != b->aParam[i]) return 0;
  return 1;
}

static int mono_mul(const nd_mono *a, const nd_mono *b, nd_mono *pOut) {
  nd_mono r;
  if (a->n + b->n > 2 * KS_MONO_MAX || a->coef > (1LL << 30) || b->coef > (1LL << 30)) return 0;
  r.coef = a->coef * b->coef;
  r.n = 0;
  int i = 0, j = 0;
  while (i < a->n || j < b->n)
    r.aParam[r.n++] = j >= b->n || (i < a->n && a->aParam[i] <= b->aParam[j]) ? a->aParam[i++] : b->aParam[j++];
  *pOut = r;
  return 1;
}

/* a / b when b divides a exactly as a monomial. */
static int mono_div(const nd_mono *a, const nd_mono *b, nd_mono *pOut) {
  nd_mono r;
  if (b->coef <= 0 || a->coef % b->coef) return 0;
  r.coef = a->coef / b->coef;
  r.n = 0;
  int j = 0;
  for (int i = 0; i < a->n; i++) {
    if (j < b->n && a->aParam[i] == b->aParam[j]) j++;
    else r.aParam[r.n++] = a->aParam[i];
  }
  if (j != b->n) return 0;
  *pOut = r;
  return 1;
}

/* A uniform factor of the model: an integer parameter (its index), else -1. */
static int nd_param_atom(const ks_shape *pS, CXCursor kernel, int iAtom) {
  const ks_atom *a = &pS->aAtom[iAtom];
  if (a->eKind != KS_ATOM_UNIFORM || a->iRef < 0 || a->iRef >= clang_Cursor_getNumArguments(kernel)) return -1;
  CXType t = clang_getCursorType(clang_Cursor_getArgument(kernel, (unsigned)a->iRef));
  return ks_rw_is_integer_type(t) ? a->iRef : -1;
}

/* Poly p as a monomial of integer parameters with a positive coefficient. */
static int nd_poly_mono(const ks_shape *pS, CXCursor kernel, const ks_poly *p, nd_mono *pOut) {
  if (p->bIrregular || p->bIndirect || p->n != 1 || p->t[0].coef <= 0) return 0;
  nd_mono m = {p->t[0].coef, 0, {0}};
  for (int x = 0; x < p->t[0].n; x++) {
    int iP = nd_param_atom(pS, kernel, p->t[0].a[x]);
    if (iP < 0) return 0;
    m.aParam[m.n++] = iP;
  }
  for (int i = 1; i < m.n; i++) /* sort */
    for (int j = i; j > 0 && m.aParam[j - 1] > m.aParam[j]; j--) {
      int t = m.aParam[j];
      m.aParam[j] = m.aParam[j - 1];
      m.aParam[j - 1] = t;
    }
  *pOut = m;
  return 1;
}

/* Is atom iAtom the flat index PAR.x? */
static int nd_is_par(const ks_shape *pS, int iAtom) {
  return pS->aAtom[iAtom].eKind == KS_ATOM_PAR && pS->aAtom[iAtom].iDim == 0;
}

/* The place value of quotient atom iAtom (PAR.x: 1; (q) / D: q's times D). */
static int nd_place(const ks_shape *pS, CXCursor kernel, int iAtom, nd_mono *pP, int nDepth) {
  const ks_atom *a = &pS->aAtom[iAtom];
  if (nd_is_par(pS, iAtom)) {
    *pP = (nd_mono){1, 0, {0}};
    return 1;
  }
  if (nDepth > 8 || a->eKind != KS_ATOM_DERIVED || a->bRem || a->iDimOf != 0 || !a->pNum || !a->pDen) return 0;
  const ks_poly *q = a->pNum;
  nd_mono inner, den;
  if (q->bIrregular || q->n != 1 || q->t[0].n != 1 || q->t[0].coef != 1 ||
      !nd_place(pS, kernel, q->t[0].a[0], &inner, nDepth + 1) || !nd_poly_mono(pS, kernel, a->pDen, &den))
    return 0;
  return mono_mul(&inner, &den, pP);
}

/* Digit atom iAtom: its place value and radix. */
static const char *nd_digit_of(const ks_shape *pS, CXCursor kernel, int iAtom, nd_digit *pD) {
  const ks_atom *a = &pS->aAtom[iAtom];
  memset(pD, 0, sizeof *pD);
  pD->iAtom = iAtom;
  if (a->eKind != KS_ATOM_DERIVED || a->iDimOf != 0 || !a->pNum || !a->pDen)
    return "a term of an index is not a digit (i / P) % S of the flat index";
  if (!a->bRem) return nd_place(pS, kernel, iAtom, &pD->P, 0) ? NULL : "a digit's divisor is not a product of integer parameters";
  const ks_poly *q = a->pNum;
  if (q->bIrregular || q->n != 1 || q->t[0].n != 1 || q->t[0].coef != 1 ||
      !nd_place(pS, kernel, q->t[0].a[0], &pD->P, 0) || !nd_poly_mono(pS, kernel, a->pDen, &pD->S))
    return "a digit is not (i / P) % S with P and S products of integer parameters";
  return NULL;
}

/* Index poly q as the sum of digits times strides: fills aD[].L (bStore:
 * .O), adding digits as met. */
static const char *nd_strides(const ks_shape *pS, CXCursor kernel, const ks_poly *q, int bStore, nd_form *pF) {
  if (q->bIrregular || q->bIndirect) return "an index is not a polynomial of the thread's position";
  for (int i = 0; i < q->n; i++) {
    const ks_mono *m = &q->t[i];
    int iDigit = -1;
    nd_mono st = {m->coef, 0, {0}};
    if (m->coef <= 0) return "an index has a constant or negative term";
    for (int x = 0; x < m->n; x++) {
      int iP = nd_param_atom(pS, kernel, m->a[x]);
      if (iP >= 0) {
        st.aParam[st.n++] = iP;
        continue;
      }
      if (iDigit >= 0) return "an index has a product of two thread-variant values";
      iDigit = m->a[x];
    }
    if (iDigit < 0) return "an index has a term that is the same for every thread";
    int k = 0;
    while (k < pF->nD && pF->aD[k].iAtom != iDigit) k++;
    if (k == pF->nD) {
      if (pF->nD == ND_MAX) return "more digits than this rule handles";
      const char *zWhy = nd_digit_of(pS, kernel, iDigit, &pF->aD[pF->nD]);
      if (zWhy) return zWhy;
      pF->nD++;
    }
    nd_mono *pSt = bStore ? &pF->aD[k].O : &pF->aD[k].L;
    if (pSt->coef) return "a digit appears twice in an index";
    for (int a = 1; a < st.n; a++)
      for (int b = a; b > 0 && st.aParam[b - 1] > st.aParam[b]; b--) {
        int t = st.aParam[b];
        st.aParam[b] = st.aParam[b - 1];
        st.aParam[b - 1] = t;
      }
    *pSt = st;
  }
  return NULL;
}

/* The body's statements: integer locals with pure initializers, the guard on
 * the flat index, one copy last. The copy's parameters. */
static const char *nd_statements(CXCursor kernel, int *piOut, int *piIn) {
  CXCursor *aStmt = NULL, *aThen = NULL;
  int nStmt = 0, nThen = 0, nIf = 0;
  const char *zErr = NULL;
  ks_rw_children(ks_rw_body(kernel), &aStmt, &nStmt);
  const CXCursor *aList = aStmt;
  int nList = nStmt, bGuard = 0;
  for (int i = 0; i < nList && !zErr; i++) {
    CXCursor st = aList[i];
    if (kind(st) == CXCursor_DeclStmt) {
      CXCursor *aD;
      int nD;
      ks_rw_children(st, &aD, &nD);
      for (int d = 0; d < nD && !zErr; d++) {
        CXCursor *aI;
        int nI;
        if (kind(aD[d]) != CXCursor_VarDecl || !ks_rw_is_integer_type(clang_getCursorType(aD[d]))) {
          zErr = "a declaration is not an integer local";
          break;
        }
        ks_rw_children(aD[d], &aI, &nI);
        if (nI < 1 || !clang_isExpression(clang_getCursorKind(aI[nI - 1])) || !ks_rw_pure_expr(aI[nI - 1]))
          zErr = "an integer local has no initializer free of loads and effects";
        free(aI);
      }
      free(aD);
    } else if (kind(st) == CXCursor_IfStmt && !bGuard && !aThen) {
      CXCursor *aIf;
      ks_rw_children(st, &aIf, &nIf);
      bGuard = 1;
      if (nIf != 2 || !ks_rw_pure_expr(aIf[0])) zErr = "the guard is not a plain if on a pure condition";
      else if (kind(aIf[1]) == CXCursor_ReturnStmt) ; /* early return */
      else if (i + 1 != nList || branch_stmts(aIf[1], &aThen, &nThen) < 0) zErr = "the guard must hold the copy and end the kernel";
      else {
        CXCursor *aR;
        int nR;
        ks_rw_children(aIf[1], &aR, &nR);
        int bRet = nR == 1 && kind(aR[0]) == CXCursor_ReturnStmt;
        free(aR);
        if (bRet) { /* `{ return; }` */
          free(aThen);
          aThen = NULL;
          if (i + 1 == nList) zErr = "the guard returns and nothing follows";
        } else {
          aList = aThen;
          nList = nThen;
          i = -1;
        }
      }
      free(aIf);
    } else if (i + 1 == nList && bGuard) {
      CXCursor w, r;
      if (!copy_stmt(kernel, st, piOut, &w, piIn, &r)) zErr = "the last statement is not a plain copy out[...] = in[...] between two pointer parameters";
      else if (!ks_rw_pure_expr(w) || !ks_rw_pure_expr(r)) zErr = "an index of the copy has effects or loads";
    } else {
      zErr = bGuard ? "a statement other than integer locals before the copy" : "no guard on the flat index before the copy";
    }
  }
  if (!zErr && (nList == 0 || !bGuard)) zErr = "no guard and copy";
  free(aStmt);
  free(aThen);
  return zErr;
}

/* The digits' chain: place values 1, S_0, S_0 S_1, ... and the total; fills
 * the outermost radix. */
static const char *nd_chain(nd_form *pF, const nd_mono *pTotal) {
  nd_mono cur = {1, 0, {0}};
  int nUsed = 0, bLast = 0;
  char aUsed[ND_MAX] = {0};
  while (nUsed < pF->nD && !bLast) {
    int k = -1;
    for (int j = 0; j < pF->nD; j++)
      if (!aUsed[j] && mono_eq(&pF->aD[j].P, &cur)) {
        if (k >= 0) return "two digits have the same place value";
        k = j;
      }
    if (k < 0) return "the digits are not a mixed-radix split of the flat index (a place value has no digit)";
    aUsed[k] = 1;
    nUsed++;
    if (!pF->aD[k].S.coef) {
      if (!mono_div(pTotal, &cur, &pF->aD[k].S)) return "the outermost digit's range is not the guard's total over its place value";
      bLast = 1;
    } else if (!mono_mul(&cur, &pF->aD[k].S, &cur)) {
      return "too many factors in a place value";
    }
  }
  if (nUsed < pF->nD) return "a digit lies beyond the outermost one";
  if (!bLast && !mono_eq(&cur, pTotal)) return "the product of the digits' radices is not the guard's total";
  return NULL;
}


/* Are one side's strides (bStore: the store's) a layout of the digits: the
 * innermost 1, each next the previous times the previous digit's radix (a
 * permutation of the digits: each element once)? */
static int nd_layout(const nd_form *pF, int bStore) {
  nd_mono cur = {1, 0, {0}};
  char aUsed[ND_MAX] = {0};
  for (int n = 0; n < pF->nD; n++) {
    int k = -1;
    for (int j = 0; j < pF->nD; j++)
      if (!aUsed[j] && mono_eq(bStore ? &pF->aD[j].O : &pF->aD[j].L, &cur)) k = k < 0 ? j : ND_MAX;
    if (k < 0 || k == ND_MAX) return 0;
    aUsed[k] = 1;
    if (n + 1 < pF->nD && !mono_mul(&cur, &pF->aD[k].S, &cur)) return 0;
  }
  return 1;
}

/* Narrowing integer conversions in the body (a 64-bit digit stored in an int
 * local: `int c = idx % C;`) are safe when what they narrow is a digit whose
 * radix is one integer parameter no wider than the target: the digit lies in
 * [0, S). Anything else narrowed may wrap: refused. */
typedef struct nd_narrow {
  ks_tu *pTu;
  CXCursor kernel;
  const ks_shape *pS;
  const nd_form *pF;
  const char *zWhy;
} nd_narrow;

static int nd_narrow_visit(CXCursor c, const CXCursor *aAnc, int nAnc, void *pArg) {
  nd_narrow *pN = pArg;
  (void)aAnc;
  (void)nAnc;
  int e = kind(c);
  if (e != CXCursor_UnexposedExpr && e != CXCursor_CStyleCastExpr && e != CXCursor_CXXStaticCastExpr &&
      e != CXCursor_CXXFunctionalCastExpr)
    return 0;
  CXCursor *a;
  int n, nExpr = 0;
  CXCursor op = clang_getNullCursor();
  ks_rw_children(c, &a, &n);
  for (int i = 0; i < n; i++)
    if (clang_isExpression(clang_getCursorKind(a[i]))) op = a[i], nExpr++;
  free(a);
  if (nExpr != 1) return 0;
  CXType tTo = clang_getCanonicalType(clang_getCursorType(c)), tFrom = clang_getCanonicalType(clang_getCursorType(op));
  if (!ks_rw_is_integer_type(tTo) || !ks_rw_is_integer_type(tFrom)) return 0;
  long long nTo = clang_Type_getSizeOf(tTo), nFrom = clang_Type_getSizeOf(tFrom);
  int bToU = tTo.kind == CXType_UInt || tTo.kind == CXType_ULong || tTo.kind == CXType_ULongLong;
  int bFromU = tFrom.kind == CXType_UInt || tFrom.kind == CXType_ULong || tFrom.kind == CXType_ULongLong;
  if (bToU && !bFromU && nTo < 8) {
    /* 32-bit unsigned arithmetic on a signed value: wraps at 2^32 */
    pN->zWhy = "the index arithmetic is 32-bit unsigned (it may wrap)";
    return -1;
  }
  /* Widening, or the same width (unsigned 64-bit arithmetic on sizes and the
   * flat index: the values are nonnegative and far below 2^63). */
  if (nTo >= nFrom) return 0;
  char *z = ks_rw_squash_cursor(pN->pTu, op);
  int bOk = 0;
  for (int k = 0; k < pN->pF->nD && z && !bOk; k++) {
    const nd_digit *d = &pN->pF->aD[k];
    const char *zA = pN->pS->aAtom[d->iAtom].zName;
    if (!zA || strcmp(zA, z) != 0 || d->S.coef != 1 || d->S.n != 1) continue;
    CXType tS = clang_getCanonicalType(clang_getCursorType(clang_Cursor_getArgument(pN->kernel, (unsigned)d->S.aParam[0])));
    int bSU = tS.kind == CXType_UInt || tS.kind == CXType_ULong || tS.kind == CXType_ULongLong;
    long long nS = clang_Type_getSizeOf(tS);
    bOk = nS < nTo || (nS == nTo && (bToU || !bSU));
  }
  free(z);
  if (!bOk) {
    pN->zWhy = "an integer conversion narrows a value that is not a digit bounded by a parameter of the narrow type "
               "(it may wrap)";
    return -1;
  }
  return 1;
}

/* The N-D match on the model; *pbDeep: the kernel has the form's statements
 * (the reason is worth reporting). */
static const char *match_nd(ks_tu *pTu, CXCursor kernel, tr_match *pM, nd_form *pF, int *pbDeep) {
  ks_shape *pS = NULL;
  const char *zErr = NULL;
  int iOut = -1, iIn = -1;
  *pbDeep = 0;
  memset(pF, 0, sizeof *pF);
  if ((zErr = nd_statements(kernel, &iOut, &iIn))) return zErr;
  if (ks_shape_build(pTu, kernel, &pS) < 0) return "the kernel-shape model failed";
  *pbDeep = 1;
  const ks_shape_access *pLd = NULL, *pSt = NULL;
  for (int i = 0; i < pS->nAccess; i++) {
    if (pS->aAccess[i].eKind == KS_SHAPE_LOAD && pS->aAccess[i].iParam == iIn && !pLd) pLd = &pS->aAccess[i];
    else if (pS->aAccess[i].eKind == KS_SHAPE_STORE && pS->aAccess[i].iParam == iOut && !pSt) pSt = &pS->aAccess[i];
    else pLd = pSt = NULL, i = pS->nAccess;
  }
  nd_mono total;
  const ks_shape_guard *pG = pS->nGuard == 1 ? &pS->aGuard[0] : NULL;
  if (pS->bTruncated || pS->nLoop || pS->bShared || pS->bSync || pS->bAtomic || pS->bWarp || pS->nCall || pS->nPtr)
    zErr = "the model sees more than one copy per thread (loops, shared memory, calls, local pointers)";
  else if (pS->nPar != 1 || pS->aPar[0].iDim != 0 || pS->aPar[0].bGridStride)
    zErr = "the flat index is not one x index without a grid-stride loop";
  else if (!pLd || !pSt || pS->nAccess != 2)
    zErr = "the model does not see exactly the copy's load and store";
  else if (!pG || pG->iDim != 0 || pG->expr.n != 1 || pG->expr.t[0].n != 1 || pG->expr.t[0].coef != 1 ||
           !nd_is_par(pS, pG->expr.t[0].a[0]) ||
           !(pG->bEarlyReturn ? pG->eOp == CXBinaryOperator_GE : pG->eOp == CXBinaryOperator_LT))
    zErr = "the guard is not if (i >= TOTAL) return; (or if (i < TOTAL)) on the flat index";
  else if (!nd_poly_mono(pS, kernel, &pG->bound, &total))
    zErr = "the guard's total is not a product of integer parameters";
  if (zErr) goto done;
  /* A side indexed by the flat index itself: the digits at their place values. */
  int bLoadFlat = pLd->index.n == 1 && pLd->index.t[0].n == 1 && pLd->index.t[0].coef == 1 &&
                  nd_is_par(pS, pLd->index.t[0].a[0]) && !pLd->index.bWrap;
  int bStoreFlat = pSt->index.n == 1 && pSt->index.t[0].n == 1 && pSt->index.t[0].coef == 1 &&
                   nd_is_par(pS, pSt->index.t[0].a[0]) && !pSt->index.bWrap;
  if (!bLoadFlat && (zErr = nd_strides(pS, kernel, &pLd->index, 0, pF))) goto done;
  if (!bStoreFlat && (zErr = nd_strides(pS, kernel, &pSt->index, 1, pF))) goto done;
  if (bLoadFlat && bStoreFlat) {
    zErr = "both sides are indexed by the flat index (a copy, not a transpose)";
    goto done;
  }
  if ((zErr = nd_chain(pF, &total))) goto done;
  pF->iA = pF->iB = -1;
  for (int k = 0; k < pF->nD; k++) {
    nd_digit *d = &pF->aD[k];
    if (bStoreFlat) d->O = d->P;
    if (bLoadFlat) d->L = d->P;
    if (!d->L.coef || !d->O.coef) {
      zErr = "a digit of the flat index is missing from one side of the copy (not a permutation)";
      goto done;
    }
    if (d->L.coef == 1 && d->L.n == 0) pF->iA = pF->iA < 0 ? k : ND_MAX;
    if (d->O.coef == 1 && d->O.n == 0) pF->iB = pF->iB < 0 ? k : ND_MAX;
  }
  if (!nd_layout(pF, 0) || !nd_layout(pF, 1)) {
    zErr = nd_layout(pF, 0) ? "the store's strides are not a permutation of the digits' radices"
                            : "the load's strides are not a permutation of the digits' radices";
    goto done;
  }
  if (pF->iA < 0 || pF->iB < 0 || pF->iA == ND_MAX || pF->iB == ND_MAX) {
    zErr = "one side of the copy has no single unit-stride digit";
    goto done;
  }
  if (pF->iA == pF->iB) {
    zErr = "the innermost digit keeps its place on both sides (the accesses are already coalesced: nothing to "
           "transpose)";
    goto done;
  }
  int bWrap = pLd->index.bWrap || pSt->index.bWrap;
  for (int k = 0; k < pF->nD; k++) bWrap |= pS->aAtom[pF->aD[k].iAtom].bWrap;
  if (bWrap) { /* narrowed digits and 64-bit unsigned arithmetic are fine */
    nd_narrow nw = {pTu, kernel, pS, pF, NULL};
    ks_rw_walk(ks_rw_body(kernel), nd_narrow_visit, &nw);
    if ((zErr = nw.zWhy)) goto done;
  }
  pM->iIn = iIn;
  pM->iOut = iOut;
  pM->bNd = 1;
done:
  ks_shape_free(pS);
  return zErr;
}

/* Monomial m as C text over the names azName (parameters, or a launch's
 * arguments), in long long. */
static int nd_text(ks_buf *pB, const nd_mono *m, char *const *azName) {
  int rc = KS_OK;
  if (m->n == 0 || m->coef != 1) rc = ks_buf_printf(pB, "%lldLL", m->coef);
  for (int i = 0; i < m->n && rc >= 0; i++)
    rc = ks_buf_printf(pB, "%s(long long)(%s)", i > 0 || m->coef != 1 ? " * " : "", azName[m->aParam[i]]);
  return rc;
}

static char *nd_text_dup(const nd_mono *m, char *const *azName) {
  ks_buf b = KS_BUF_INIT;
  char *z = nd_text(&b, m, azName) >= 0 ? ks_buf_detach(&b) : NULL;
  ks_buf_free(&b);
  return z;
}

/* The number of batches (the product of the batch digits' radices) over azName. */
static int nd_batches(ks_buf *pB, const nd_form *pF, char *const *azName) {
  int rc = KS_OK, n = 0;
  for (int k = 0; k < pF->nD && rc >= 0; k++) {
    if (k == pF->iA || k == pF->iB) continue;
    rc = ks_buf_printf(pB, "%s(", n++ ? " * " : "");
    if (rc >= 0) rc = nd_text(pB, &pF->aD[k].S, azName);
    if (rc >= 0) rc = ks_buf_printf(pB, ")");
  }
  if (rc >= 0 && n == 0) rc = ks_buf_printf(pB, "1LL");
  return rc;
}

/* The batch loop's head: batch digits from ks_bz (innermost first), the
 * offsets ks_ib and ks_ob of the batch in in and out. */
static int nd_batch_head(ks_buf *pB, const nd_form *pF, char *const *azName, const char *zI) {
  int rc = ks_buf_printf(pB, "\n%sfor (long long ks_bz = blockIdx.z; ks_bz < ", zI);
  if (rc >= 0) rc = nd_batches(pB, pF, azName);
  if (rc >= 0) rc = ks_buf_printf(pB, "; ks_bz += gridDim.z) {\n%s  long long ks_rest = ks_bz;\n", zI);
  int aOrder[ND_MAX], nB = 0;
  for (int k = 0; k < pF->nD; k++) /* batch digits by place value: the chain's order */
    if (k != pF->iA && k != pF->iB) aOrder[nB++] = k;
  for (int i = 1; i < nB; i++) {
    nd_mono dummy;
    for (int j = i; j > 0 && mono_div(&pF->aD[aOrder[j - 1]].P, &pF->aD[aOrder[j]].P, &dummy) &&
                    !mono_eq(&pF->aD[aOrder[j - 1]].P, &pF->aD[aOrder[j]].P);
         j--) {
      int t = aOrder[j];
      aOrder[j] = aOrder[j - 1];
      aOrder[j - 1] = t;
    }
  }
  for (int i = 0; i < nB && rc >= 0; i++) {
    rc = ks_buf_printf(pB, "%s  const long long ks_d%d = ks_rest", zI, i);
    if (rc >= 0 && i + 1 < nB) {
      rc = ks_buf_printf(pB, " %% (");
      if (rc >= 0) rc = nd_text(pB, &pF->aD[aOrder[i]].S, azName);
      if (rc >= 0) rc = ks_buf_printf(pB, ");\n%s  ks_rest /= (", zI);
      if (rc >= 0) rc = nd_text(pB, &pF->aD[aOrder[i]].S, azName);
      if (rc >= 0) rc = ks_buf_printf(pB, ")");
    }
    if (rc >= 0) rc = ks_buf_printf(pB, ";\n");
  }
  for (int s = 0; s < 2 && rc >= 0; s++) {
    rc = ks_buf_printf(pB, "%s  const long long %s = ", zI, s ? "ks_ob" : "ks_ib");
    for (int i = 0; i < nB && rc >= 0; i++) {
      rc = ks_buf_printf(pB, "%sks_d%d * ", i ? " + " : "", i);
      if (rc >= 0) rc = nd_text(pB, s ? &pF->aD[aOrder[i]].O : &pF->aD[aOrder[i]].L, azName);
    }
    if (rc >= 0) rc = ks_buf_printf(pB, "%s;\n", nB ? "" : "0");
  }
  return rc;
}

/* The N-D form's texts over the kernel's parameter names; NULL, else why not. */
static const char *nd_names(CXCursor kernel, tr_match *pM) {
  int nP = clang_Cursor_getNumArguments(kernel);
  char *azName[64];
  const nd_form *pF = &pM->nd;
  if (nP > 64) return "too many parameters";
  for (int i = 0; i < nP; i++) azName[i] = ks_rw_spelling(clang_Cursor_getArgument(kernel, (unsigned)i));
  pM->zRows = nd_text_dup(&pF->aD[pF->iB].S, azName);
  pM->zCols = nd_text_dup(&pF->aD[pF->iA].S, azName);
  pM->zInStride = nd_text_dup(&pF->aD[pF->iB].L, azName);
  pM->zOutStride = nd_text_dup(&pF->aD[pF->iA].O, azName);
  pM->zIdxType = ks_strdup("long long");
  pM->zInOff = ks_strdup("ks_ib");
  pM->zOutOff = ks_strdup("ks_ob");
  for (int i = 0; i < nP; i++) free(azName[i]);
  return NULL;
}

static int match(ks_rewrite *p, CXCursor kernel, tr_match *pM) {
  ks_tu *pTu = ks_rewrite_tu(p);
  const char *zKernel = ks_rewrite_kernel_name(p);
  unsigned iKe;
  memset(pM, 0, sizeof *pM);
  if (kind(kernel) != CXCursor_FunctionDecl) return ks_rewrite_refuse(p, "kernel '%s' is a template", zKernel);
  CXCursor body = ks_rw_body(kernel);
  if (ks_ast_extent(pTu, kernel, &pM->iKernelStart, &iKe) < 0 || clang_Cursor_isNull(body) ||
      ks_ast_extent(pTu, body, &pM->iBodyStart, &pM->iBodyEnd) < 0 || pTu->zSrc[pM->iBodyStart] != '{' ||
      pTu->zSrc[pM->iBodyEnd - 1] != '}')
    return ks_rewrite_refuse(p, "kernel '%s' has no body written in the file", zKernel);
  if (has_macro(pTu, pM->iBodyStart, pM->iBodyEnd))
    return ks_rewrite_refuse(p, "the body of '%s' uses a macro; not a transpose this rule can read", zKernel);
  char zWhyBuf[320];
  const char *zWhy1 = match_1d(pTu, kernel, pM, zWhyBuf, sizeof zWhyBuf);
  if (zWhy1) {
    char *zWhy1Copy = ks_strdup(zWhy1);
    tr_match_free(pM);
    const char *zWhy2 = match_2d(pTu, kernel, pM);
    int bDeep = 0;
    const char *zWhy3 = NULL;
    if (zWhy2 && strcmp(zWhy2, WHY_NO_2D_INDEX) == 0) {
      tr_match_free(pM);
      if (!(zWhy3 = match_nd(pTu, kernel, pM, &pM->nd, &bDeep)) && (zWhy3 = nd_names(kernel, pM)))
        bDeep = 1;
      zWhy2 = zWhy3 ? zWhy2 : NULL;
      /* two digits and the 1-D form got past its pointwise shape and bound: its reason */
      if (zWhy1 != zWhyBuf && strcmp(zWhy1, WHY_1D_BOUND) != 0 && pM->nd.nD <= 2) bDeep = 0;
    }
    if (zWhy2) {
      /* Report the form the kernel got further in: 2-D once it has the two thread
       * indices, N-D once it has the flat index's digit statements. */
      int b2D = strcmp(zWhy2, WHY_NO_2D_INDEX) != 0;
      int rc = ks_rewrite_refuse(p, "kernel '%s' is not an out-of-place transpose this rule understands (%s form: %s)",
                                 zKernel, b2D ? "2-D" : bDeep ? "N-D flat-index permutation" : "1-D",
                                 b2D ? zWhy2 : bDeep ? zWhy3 : zWhy1Copy ? zWhy1Copy : "?");
      free(zWhy1Copy);
      tr_match_free(pM);
      return rc;
    }
    free(zWhy1Copy);
  }
  {
    ks_rw_param *aP = NULL;
    int nP = 0, rc;
    if ((rc = ks_rw_params(pTu, kernel, &aP, &nP)) < 0) {
      tr_match_free(pM);
      return rc;
    }
    const char *zWhy = NULL;
    if (!aP[pM->iIn].zElemType || !aP[pM->iOut].zElemType) zWhy = "the element type is unknown";
    else if (aP[pM->iOut].bConstPointee) zWhy = "the output points to const";
    for (int i = 0; i < nP && !zWhy; i++)
      if (strncmp(aP[i].zName, "ks_", 3) == 0) zWhy = "a parameter starts with ks_ (names this rule uses)";
    if (!zWhy) pM->zElem = ks_strdup(aP[pM->iIn].zElemType);
    ks_rw_params_free(aP, nP);
    if (zWhy) {
      tr_match_free(pM);
      return ks_rewrite_refuse(p, "kernel '%s': %s", zKernel, zWhy);
    }
  }
  if (!pM->zRows || !pM->zCols || !pM->zInStride || !pM->zOutStride || !pM->zIdxType || !pM->zElem) {
    tr_match_free(pM);
    return ks_error_set(KS_ENOMEM, "out of memory");
  }
  return KS_OK;
}

/* ---- the rule ---- */

#define TILE 32
#define ROWS_PER_PASS 8
#define GRID_Y_MAX 65535

/* An N-D launch: tiles over the two tile digits on x and y (y capped), one
 * batch per z (capped; the kernel loops over the rest). */
static int nd_launch(ks_rewrite *p, const ks_launch *pL, const nd_form *pF, ks_buf *pCfg, ks_buf *pNote) {
  ks_buf c = KS_BUF_INIT, r = KS_BUF_INIT, z = KS_BUF_INIT;
  char *const *azArg = pL->azArg;
  int rc = KS_OK;
  for (int k = 0; k < pF->nD && rc >= 0; k++)
    for (int j = 0; j < pF->aD[k].S.n && rc >= 0; j++)
      if (!ks_rw_arg_pure(azArg[pF->aD[k].S.aParam[j]]))
        rc = ks_rewrite_refuse(p, "%s:%u: the launch's argument '%s' (a size of the grid) is not a plain expression",
                               ks_rewrite_tu(p)->zFile, pL->iLine, azArg[pF->aD[k].S.aParam[j]]);
  if (rc >= 0) rc = nd_text(&c, &pF->aD[pF->iA].S, azArg);
  if (rc >= 0) rc = nd_text(&r, &pF->aD[pF->iB].S, azArg);
  if (rc >= 0) rc = nd_batches(&z, pF, azArg);
  ks_buf_clear(pCfg);
  if (rc >= 0)
    rc = ks_buf_printf(pCfg,
                       "dim3((unsigned)((%s + %d) / %d), (unsigned)((%s + %d) / %d < %d ? (%s + %d) / %d : %d), "
                       "(unsigned)(%s < %d ? %s : %d)), dim3(%d, %d)",
                       c.z, TILE - 1, TILE, r.z, TILE - 1, TILE, GRID_Y_MAX, r.z, TILE - 1, TILE, GRID_Y_MAX, z.z,
                       GRID_Y_MAX, z.z, GRID_Y_MAX, TILE, ROWS_PER_PASS);
  if (rc >= 0) rc = ks_rw_cfg_tail(pCfg, pL);
  if (rc >= 0) rc = ks_rewrite_replace(p, pL->iCfgStart, pL->iCfgEnd, pCfg->z);
  ks_buf_clear(pNote);
  if (rc >= 0)
    rc = ks_buf_printf(pNote, "grid of %dx%d tiles over %s x %s (y capped at %d), %s batches on z (capped at %d), "
                              "block %dx%d",
                       TILE, TILE, r.z, c.z, GRID_Y_MAX, z.z, GRID_Y_MAX, TILE, ROWS_PER_PASS);
  if (rc >= 0) rc = ks_rewrite_note(p, pL->iStart, pNote->z);
  ks_buf_free(&c);
  ks_buf_free(&r);
  ks_buf_free(&z);
  return rc;
}

static int apply_smem_transpose(ks_rewrite *p) {
  ks_tu *pTu = ks_rewrite_tu(p);
  const char *zKernel = ks_rewrite_kernel_name(p);
  tr_match m;
  ks_launch *aL = NULL;
  int nL = 0, rc;
  ks_buf body = KS_BUF_INIT, cfg = KS_BUF_INIT, note = KS_BUF_INIT;
  memset(&m, 0, sizeof m);

  CXCursor kernel = ks_ast_find_kernel(pTu, zKernel);
  if (clang_Cursor_isNull(kernel)) return ks_rewrite_refuse(p, "no kernel '%s'", zKernel);
  unsigned iKs, iKe;
  if (ks_ast_extent(pTu, kernel, &iKs, &iKe) == 0 && ks_rewrite_has_note(p, iKs, iKe, NULL))
    return ks_rewrite_already(p, "kernel '%s' is already a shared-memory tiled transpose by this rule", zKernel);
  if ((rc = match(p, kernel, &m)) < 0) return rc;
  if (ks_rw_has_word(pTu, m.iKernelStart, m.iBodyStart, "__launch_bounds__")) {
    rc = ks_rewrite_refuse(p, "kernel '%s' has __launch_bounds__; its block size changes here (apply launch-bounds after)",
                           zKernel);
    goto done;
  }
  if ((rc = ks_rw_require_class(p, kernel, KS_CLASS_TRANSPOSE)) < 0) goto done;
  if ((rc = ks_rw_kernel_launches(p, zKernel, &aL, &nL)) < 0) goto done;
  for (int i = 0; i < nL; i++)
    if (aL[i].nArgs != clang_Cursor_getNumArguments(kernel)) {
      rc = ks_rewrite_refuse(p, "%s:%u: launch of '%s' passes %d arguments for %d parameters", pTu->zFile, aL[i].iLine,
                             zKernel, aL[i].nArgs, clang_Cursor_getNumArguments(kernel));
      goto done;
    }

  /* The tiled body: block (32, 8); tile (by, blockIdx.x) of the input's
   * rows x cols is read row-wise (threadIdx.x along the input's unit-stride
   * columns) and written from the tile column-wise (threadIdx.x along the
   * output's unit-stride dimension, the input's rows). */
  char *zIn = ks_rw_spelling(clang_Cursor_getArgument(kernel, (unsigned)m.iIn));
  char *zOut = ks_rw_spelling(clang_Cursor_getArgument(kernel, (unsigned)m.iOut));
  unsigned nIndent = 0;
  unsigned iLine = ks_rewrite_line_start(p, m.iKernelStart, &nIndent);
  char zI[72];
  snprintf(zI, sizeof zI, "%.*s  ", (int)(nIndent < 60 ? nIndent : 60), pTu->zSrc + iLine);
  const char *zT = m.zIdxType;
  rc = KS_OK;
  if (m.bNd) { /* N-D: the batch loop around the tile */
    int nP = clang_Cursor_getNumArguments(kernel);
    char *azName[64];
    for (int i = 0; i < nP && i < 64; i++) azName[i] = ks_rw_spelling(clang_Cursor_getArgument(kernel, (unsigned)i));
    rc = nd_batch_head(&body, &m.nd, azName, zI);
    for (int i = 0; i < nP && i < 64; i++) free(azName[i]);
    strcat(zI, "  ");
  } else if (m.zBatchDecl)
    rc = ks_buf_printf(&body, "\n%s%s", zI, m.zBatchDecl);
  /* the tile loop: ks_transpose::tile of the shipped header, with the
   * kernel's own pointers, batch offsets, sizes and strides */
  if (rc >= 0)
    rc = ks_buf_printf(&body, "\n%sks_transpose::tile<%d, %d, %s, %s>(%s, %s, %s%s%s, %s%s%s, (%s), (%s), (%s), (%s));\n",
                       zI, TILE, ROWS_PER_PASS, m.zElem, zT, zIn, zOut, m.zInOff ? "(" : "", m.zInOff ? m.zInOff : "0",
                       m.zInOff ? ")" : "", m.zOutOff ? "(" : "", m.zOutOff ? m.zOutOff : "0", m.zOutOff ? ")" : "",
                       m.zRows, m.zCols, m.zInStride, m.zOutStride);
  free(zIn);
  free(zOut);
  if (rc >= 0 && m.bNd) rc = ks_buf_printf(&body, "%.*s}\n", (int)strlen(zI) - 2, zI);
  if (rc < 0) goto done;
  if ((rc = ks_rewrite_replace(p, m.iBodyStart + 1, m.iBodyEnd - 1, body.z)) < 0) goto done;
  if ((rc = ks_buf_printf(&note, "%dx%d shared-memory tile [%d][%d] (padded against bank conflicts), block %dx%d, "
                                 "coalesced loads and stores (%s form)",
                          TILE, TILE, TILE, TILE + 1, TILE, ROWS_PER_PASS,
                          m.bNd ? "N-D flat-index permutation, one batch per blockIdx.z"
                          : m.b1D ? "1-D" : m.zBatchDecl ? "2-D, one matrix per blockIdx.z" : "2-D")) < 0 ||
      (rc = ks_rw_insert_shipped(p, iLine, nIndent, "#define KS_TRANSPOSE_CUH", "ks_transpose.cuh",
                                 "transpose header",
                                 "the shipped tiled transpose (share/kernelskill/templates/ks_transpose.cuh)", note.z)) < 0)
    goto done;

  /* Every launch: tiles over the input's columns on x, rows on y (capped at
   * gridDim.y's limit; the kernel loops over the rest). */
  for (int i = 0; i < nL && m.bNd; i++) {
    if ((rc = nd_launch(p, &aL[i], &m.nd, &cfg, &note)) < 0) goto done;
  }
  for (int i = 0; i < nL && !m.bNd; i++) {
    ks_launch *pL = &aL[i];
    char *zR = ks_rw_paren(pL->azArg[m.iRows]), *zC = ks_rw_paren(pL->azArg[m.iCols]);
    if (!zR || !zC) {
      free(zR);
      free(zC);
      rc = ks_error_set(KS_ENOMEM, "out of memory");
      goto done;
    }
    ks_buf_clear(&cfg);
    /* batched: the grid's z (one matrix per blockIdx.z) stays the launch's */
    char *zZ = NULL;
    if (m.zBatchDecl) {
      ks_buf t = KS_BUF_INIT;
      zZ = ks_buf_printf(&t, ", dim3(%s).z", pL->azCfg[0]) >= 0 ? ks_buf_detach(&t) : NULL;
      ks_buf_free(&t);
    }
    rc = ks_buf_printf(&cfg, "dim3((unsigned)((%s + %d) / %d), (unsigned)((%s + %d) / %d < %d ? (%s + %d) / %d : %d)%s), dim3(%d, %d)",
                       zC, TILE - 1, TILE, zR, TILE - 1, TILE, GRID_Y_MAX, zR, TILE - 1, TILE, GRID_Y_MAX,
                       zZ ? zZ : "", TILE, ROWS_PER_PASS);
    if (m.zBatchDecl && !zZ) rc = ks_error_set(KS_ENOMEM, "out of memory");
    free(zZ);
    if (rc >= 0 && pL->azCfg[2]) rc = ks_buf_printf(&cfg, ", %s", pL->azCfg[2]);
    if (rc >= 0 && pL->azCfg[3]) rc = ks_buf_printf(&cfg, ", %s", pL->azCfg[3]);
    if (rc >= 0) rc = ks_rewrite_replace(p, pL->iCfgStart, pL->iCfgEnd, cfg.z);
    ks_buf_clear(&note);
    if (rc >= 0)
      rc = ks_buf_printf(&note, "grid of %dx%d tiles over %s x %s (y capped at %d), block %dx%d", TILE, TILE,
                         pL->azArg[m.iRows], pL->azArg[m.iCols], GRID_Y_MAX, TILE, ROWS_PER_PASS);
    free(zR);
    free(zC);
    if (rc < 0 || (rc = ks_rewrite_note(p, pL->iStart, note.z)) < 0) goto done;
  }
  rc = KS_OK;
done:
  tr_match_free(&m);
  ks_ast_launches_free(aL, nL);
  ks_buf_free(&body);
  ks_buf_free(&cfg);
  ks_buf_free(&note);
  return rc;
}

const ks_rule ks_rule_smem_transpose = {
    "smem-transpose",
    "one-thread-per-element transpose (1-D i / rows, i % rows or 2-D) to a 32x32 shared-memory tiled transpose", NULL,
    apply_smem_transpose};
