/* column-walk.c — rule `column-walk`: a kernel where each thread owns one column
 * and walks all rows (column sums / max / min / mean, A^T x, per-column variance;
 * the kernel-shape model's column-walk class) gets a 2-D block of COLS columns
 * x ROWS row slices: slice ty walks rows ty, ty + ROWS, ... of its column, the
 * slices' partial accumulators are combined through shared memory in a fixed
 * order by the shipped device header templates/ks_colwalk.cuh, and the
 * epilogue (the statements after the row loop) runs once per column, in the
 * slice-0 thread, as before. The column index expression is kept: with
 * blockDim.x = COLS it still names the column. Launches keep their grid with
 * B / COLS times more blocks along x (B: the original constant block size).
 *
 * The matcher reads the kernel statement by statement (docs/rules/column-walk.md):
 * prologue (pure declarations, the column index), a guard, declarations, the row
 * loop whose body only accumulates (acc += E, acc = acc + E, acc = fmaxf(acc, E)
 * ..., or P[col] += E into memory), then the epilogue. Sums are added in a
 * different order (the provenance says so; the Reviewer's tolerance check is
 * what admits it); max and min are exact. */
#include "features/ast.h"
#include "features/pure.h"
#include "features/shape.h"
#include "kernelskill/rewrite.h"
#include "rewrite/rwutil.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CW_ADD = 1, CW_MAX, CW_MIN };
static const char *const azCombine[] = {"", "sum", "max", "min"};

#define CW_MAX_ACC 8
#define CW_MAX_EDIT 32
#define CW_MAX_REFS 256
#define CW_MAX_PARAMS 64

typedef struct cw_acc {
  CXCursor decl; /* the local */
  int eOp;
} cw_acc;

typedef struct cw_edit {
  unsigned s, e;
  char *z;
} cw_edit;

typedef struct cw_state {
  ks_rewrite *p;
  ks_tu *pTu;
  CXCursor kernel;
  CXCursor loop, loopVar;
  unsigned iLoopS, iLoopE;
  cw_acc aAcc[CW_MAX_ACC];
  int nAcc;
  /* the accumulator in memory, P[e] += E: P and the lvalue's squashed text */
  int iMemParam;
  char *zMemLv;
  unsigned iMemS, iMemE; /* one occurrence (text emitted after the combine) */
  CXCursor aRef[CW_MAX_REFS]; /* declarations the loop's expressions read */
  int nRef;
  int abRead[CW_MAX_PARAMS];  /* buffers the loop reads */
  CXCursor aNestVar[8];       /* induction variables of nested loops */
  int nNestVar;
  cw_edit aEdit[CW_MAX_EDIT];
  int nEdit;
  char zWhy[400];
  int bAuto;     /* cols=auto: the launch picks the block's shape */
  long nThreads; /* threads per block */
} cw_state;

static int kind(CXCursor c) { return (int)clang_getCursorKind(c); }

static unsigned line_of(cw_state *pS, CXCursor c) {
  unsigned s = 0, e = 0, l = 0;
  if (ks_ast_extent(pS->pTu, c, &s, &e) == 0) ks_ast_line_col(pS->pTu, s, &l, NULL);
  return l;
}

static int why(cw_state *pS, const char *zFmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static int why(cw_state *pS, const char *zFmt, ...) {
  if (!pS->zWhy[0]) {
    va_list ap;
    va_start(ap, zFmt);
    vsnprintf(pS->zWhy, sizeof pS->zWhy, zFmt, ap);
    va_end(ap);
  }
  return -1;
}

static int add_edit(cw_state *pS, unsigned s, unsigned e, const char *z) {
  if (pS->nEdit == CW_MAX_EDIT) return why(pS, "the row loop needs more than %d edits", CW_MAX_EDIT);
  if (ks_rewrite_in_macro(pS->p, s, e)) return why(pS, "the row loop's header or accumulator is written with a macro");
  cw_edit *pE = &pS->aEdit[pS->nEdit++];
  pE->s = s;
  pE->e = e;
  pE->z = ks_strdup(z);
  return pE->z ? 0 : why(pS, "out of memory");
}

static int is_float_or_int(CXType t) {
  enum CXTypeKind e = clang_getCanonicalType(t).kind;
  return e == CXType_Float || e == CXType_Double || ks_rw_is_integer_type(t);
}

static int same_decl(CXCursor a, CXCursor b) { return !clang_Cursor_isNull(a) && clang_equalCursors(a, b); }

static int is_acc(cw_state *pS, CXCursor decl) {
  for (int i = 0; i < pS->nAcc; i++)
    if (same_decl(pS->aAcc[i].decl, decl)) return i;
  return -1;
}

/* An expression of the loop body: loads of parameters, locals, literals,
 * arithmetic, casts, ?:, calls of pure math. Records what it reads. */
static int check_expr(cw_state *pS, CXCursor c) {
  c = ks_rw_strip(c);
  switch (clang_getCursorKind(c)) {
  case CXCursor_IntegerLiteral: case CXCursor_FloatingLiteral: case CXCursor_CXXBoolLiteralExpr:
  case CXCursor_TypeRef:
    return 0;
  case CXCursor_DeclRefExpr: {
    CXCursor d = clang_getCursorReferenced(c);
    if (kind(d) != CXCursor_VarDecl && kind(d) != CXCursor_ParmDecl && kind(d) != CXCursor_NonTypeTemplateParameter &&
        kind(d) != CXCursor_EnumConstantDecl)
      return why(pS, "line %u: the row loop names something that is not a variable", line_of(pS, c));
    if (pS->nRef == CW_MAX_REFS) return why(pS, "the row loop reads too many names");
    pS->aRef[pS->nRef++] = d;
    return 0;
  }
  case CXCursor_MemberRefExpr:
    if (ks_shape_builtin(c, NULL) >= 0) return 0;
    return why(pS, "line %u: the row loop reads a struct member", line_of(pS, c));
  case CXCursor_ArraySubscriptExpr: {
    CXCursor k[2];
    if (ks_rw_kids(c, k, 2) != 2) return why(pS, "line %u: an unreadable subscript", line_of(pS, c));
    int iP = ks_rw_param_of(pS->kernel, k[0]);
    if (iP < 0 || iP >= CW_MAX_PARAMS)
      return why(pS, "line %u: the row loop loads through a pointer that is not a kernel parameter", line_of(pS, c));
    pS->abRead[iP] = 1;
    return check_expr(pS, k[1]);
  }
  case CXCursor_CallExpr: {
    /* math, or a __device__ helper that only computes a value (features/pure.h) */
    const char *zNot = ks_pure_call(c);
    if (zNot) {
      char *z = ks_rw_spelling(c);
      why(pS, "line %u: the row loop calls '%s', which may have effects: %s", line_of(pS, c), z ? z : "?", zNot);
      free(z);
      return -1;
    }
    int n = clang_Cursor_getNumArguments(c);
    for (int i = 0; i < n; i++)
      if (check_expr(pS, clang_Cursor_getArgument(c, (unsigned)i)) < 0) return -1;
    return 0;
  }
  case CXCursor_BinaryOperator: {
    enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(c);
    if (op == CXBinaryOperator_Assign || op == CXBinaryOperator_Comma)
      return why(pS, "line %u: an assignment inside an expression of the row loop", line_of(pS, c));
    break;
  }
  case CXCursor_UnaryOperator: {
    enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(c);
    if (op != CXUnaryOperator_Minus && op != CXUnaryOperator_Plus && op != CXUnaryOperator_Not &&
        op != CXUnaryOperator_LNot)
      return why(pS, "line %u: the row loop has an increment, dereference or address-of", line_of(pS, c));
    break;
  }
  case CXCursor_ParenExpr: case CXCursor_CStyleCastExpr: case CXCursor_CXXStaticCastExpr:
  case CXCursor_CXXFunctionalCastExpr: case CXCursor_ConditionalOperator: case CXCursor_UnexposedExpr:
    break;
  default:
    return why(pS, "line %u: the row loop has an expression this rule does not read", line_of(pS, c));
  }
  CXCursor *aK;
  int nK, rc = 0;
  ks_rw_children(c, &aK, &nK);
  for (int i = 0; i < nK && rc == 0; i++) rc = check_expr(pS, aK[i]);
  free(aK);
  return rc;
}

/* The target of an accumulation: a float/int local declared before the loop
 * (its index in aAcc, added), or the memory accumulator P[e] (CW_MAX_ACC). */
static int acc_target(cw_state *pS, CXCursor t, int eOp) {
  t = ks_rw_strip(t);
  if (kind(t) == CXCursor_DeclRefExpr) {
    CXCursor d = clang_getCursorReferenced(t);
    unsigned s = 0, e = 0;
    if (kind(d) != CXCursor_VarDecl || !is_float_or_int(clang_getCursorType(d)) ||
        ks_ast_extent(pS->pTu, d, &s, &e) < 0 || s >= pS->iLoopS || same_decl(d, pS->loopVar))
      return why(pS, "line %u: the row loop assigns something other than an accumulator declared before it",
                 line_of(pS, t));
    int i = is_acc(pS, d);
    if (i < 0) {
      if (pS->nAcc == CW_MAX_ACC) return why(pS, "more than %d accumulators", CW_MAX_ACC);
      i = pS->nAcc++;
      pS->aAcc[i].decl = d;
      pS->aAcc[i].eOp = eOp;
    }
    if (pS->aAcc[i].eOp != eOp) return why(pS, "line %u: one accumulator is combined with two operators", line_of(pS, t));
    return i;
  }
  if (kind(t) == CXCursor_ArraySubscriptExpr) {
    CXCursor k[2];
    int iP = ks_rw_kids(t, k, 2) == 2 ? ks_rw_param_of(pS->kernel, k[0]) : -1;
    if (iP < 0) return why(pS, "line %u: the row loop stores through a pointer that is not a parameter", line_of(pS, t));
    if (eOp != CW_ADD)
      return why(pS, "line %u: a max/min accumulated in memory (only sums may accumulate into P[col])", line_of(pS, t));
    char *z = ks_rw_squash_cursor(pS->pTu, t);
    unsigned s, e;
    if (!z || ks_ast_extent(pS->pTu, t, &s, &e) < 0) {
      free(z);
      return why(pS, "line %u: the accumulator is not written in the file", line_of(pS, t));
    }
    if (pS->zMemLv && strcmp(z, pS->zMemLv) != 0) {
      free(z);
      return why(pS, "line %u: the row loop stores into two elements", line_of(pS, t));
    }
    /* Its index: the same for every row (no loop variable, no body local). */
    int nRef0 = pS->nRef;
    if (check_expr(pS, k[1]) < 0) {
      free(z);
      return -1;
    }
    for (int i = nRef0; i < pS->nRef; i++) {
      unsigned ds = 0, de = 0;
      if (same_decl(pS->aRef[i], pS->loopVar) ||
          (ks_ast_extent(pS->pTu, pS->aRef[i], &ds, &de) == 0 && ds >= pS->iLoopS && ds < pS->iLoopE)) {
        free(z);
        return why(pS, "line %u: the row loop stores into an element that changes with the row", line_of(pS, t));
      }
    }
    pS->nRef = nRef0;
    if (!pS->zMemLv) {
      pS->zMemLv = z;
      pS->iMemParam = iP;
      pS->iMemS = s;
      pS->iMemE = e;
    } else
      free(z);
    if (add_edit(pS, s, e, "ks_cw_acc") < 0) return -1;
    return CW_MAX_ACC;
  }
  return why(pS, "line %u: the row loop assigns something other than a local or P[col]", line_of(pS, t));
}

/* Is expression a the accumulation's own target t (the same local, or the same
 * memory element as written)? */
static int same_target(cw_state *pS, CXCursor t, CXCursor a) {
  t = ks_rw_strip(t);
  a = ks_rw_strip(a);
  if (kind(t) == CXCursor_DeclRefExpr)
    return kind(a) == CXCursor_DeclRefExpr && same_decl(clang_getCursorReferenced(t), clang_getCursorReferenced(a));
  if (kind(t) != CXCursor_ArraySubscriptExpr || kind(a) != CXCursor_ArraySubscriptExpr) return 0;
  char *z1 = ks_rw_squash_cursor(pS->pTu, t), *z2 = ks_rw_squash_cursor(pS->pTu, a);
  int b = z1 && z2 && strcmp(z1, z2) == 0;
  free(z1);
  free(z2);
  return b;
}

/* One accumulation statement: acc += E, acc -= E, acc = acc + E, acc = E + acc,
 * acc = acc - E, acc = fmaxf(acc, E) (fmax, max, fminf, fmin, min; either order). */
static int check_accum(cw_state *pS, CXCursor c) {
  c = ks_rw_strip(c);
  CXCursor k[2];
  unsigned l = line_of(pS, c);
  if (kind(c) == CXCursor_CompoundAssignOperator) {
    enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(c);
    if ((op != CXBinaryOperator_AddAssign && op != CXBinaryOperator_SubAssign) || ks_rw_kids(c, k, 2) != 2)
      return why(pS, "line %u: a compound assignment other than += / -= in the row loop", l);
    if (acc_target(pS, k[0], CW_ADD) < 0) return -1;
    return check_expr(pS, k[1]);
  }
  if (kind(c) != CXCursor_BinaryOperator || clang_getCursorBinaryOperatorKind(c) != CXBinaryOperator_Assign ||
      ks_rw_kids(c, k, 2) != 2)
    return why(pS, "line %u: a statement in the row loop that is not an accumulation", l);
  CXCursor r = ks_rw_strip(k[1]), o[2];
  if (kind(r) == CXCursor_BinaryOperator && ks_rw_kids(r, o, 2) == 2) {
    enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(r);
    int bL = same_target(pS, k[0], o[0]), bR = same_target(pS, k[0], o[1]);
    if ((op == CXBinaryOperator_Add && (bL || bR)) || (op == CXBinaryOperator_Sub && bL)) {
      if (acc_target(pS, k[0], CW_ADD) < 0) return -1;
      if (kind(ks_rw_strip(k[0])) == CXCursor_ArraySubscriptExpr) {
        /* the right-hand side's own P[e] becomes ks_cw_acc too */
        unsigned s, e;
        if (ks_ast_extent(pS->pTu, bL ? o[0] : o[1], &s, &e) < 0 || add_edit(pS, s, e, "ks_cw_acc") < 0) return -1;
      }
      return check_expr(pS, bL ? o[1] : o[0]);
    }
  }
  if (kind(r) == CXCursor_CallExpr && clang_Cursor_getNumArguments(r) == 2) {
    CXString s = clang_getCursorSpelling(clang_getCursorReferenced(r));
    const char *z = clang_getCString(s);
    int eOp = 0;
    if (!strcmp(z, "fmaxf") || !strcmp(z, "fmax") || !strcmp(z, "max")) eOp = CW_MAX;
    if (!strcmp(z, "fminf") || !strcmp(z, "fmin") || !strcmp(z, "min")) eOp = CW_MIN;
    clang_disposeString(s);
    CXCursor a0 = clang_Cursor_getArgument(r, 0), a1 = clang_Cursor_getArgument(r, 1);
    int bL = same_target(pS, k[0], a0), bR = same_target(pS, k[0], a1);
    if (eOp && (bL || bR)) {
      if (acc_target(pS, k[0], eOp) < 0) return -1;
      return check_expr(pS, bL ? a1 : a0);
    }
  }
  return why(pS, "line %u: an assignment in the row loop that is not an accumulation (acc += E, acc = fmaxf(acc, E))", l);
}

/* `v++`, `++v`, `v += 1` on declaration v. */
static int unit_step(CXCursor inc, CXCursor v) {
  inc = ks_rw_strip(inc);
  CXCursor k[2];
  if (kind(inc) == CXCursor_UnaryOperator) {
    enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(inc);
    return (op == CXUnaryOperator_PostInc || op == CXUnaryOperator_PreInc) && ks_rw_kids(inc, k, 1) == 1 &&
           ks_rw_is_ref_to(k[0], v);
  }
  if (kind(inc) == CXCursor_CompoundAssignOperator && clang_getCursorBinaryOperatorKind(inc) == CXBinaryOperator_AddAssign &&
      ks_rw_kids(inc, k, 2) == 2 && ks_rw_is_ref_to(k[0], v) && kind(ks_rw_strip(k[1])) == CXCursor_IntegerLiteral) {
    CXEvalResult ev = clang_Cursor_Evaluate(k[1]);
    int b = ev && clang_EvalResult_getKind(ev) == CXEval_Int && clang_EvalResult_getAsLongLong(ev) == 1;
    if (ev) clang_EvalResult_dispose(ev);
    return b;
  }
  return 0;
}

static int check_stmt(cw_state *pS, CXCursor c, int nDepth);

static int check_decl(cw_state *pS, CXCursor st) {
  CXCursor *aD;
  int nD, rc = 0;
  ks_rw_children(st, &aD, &nD);
  for (int i = 0; i < nD && rc == 0; i++) {
    if (kind(aD[i]) != CXCursor_VarDecl || clang_getCursorType(aD[i]).kind == CXType_ConstantArray) {
      rc = why(pS, "line %u: the row loop declares something other than a scalar", line_of(pS, aD[i]));
      break;
    }
    CXCursor k[4];
    int n = ks_rw_kids(aD[i], k, 4);
    if (n >= 1 && n <= 4 && clang_isExpression(clang_getCursorKind(k[n - 1]))) rc = check_expr(pS, k[n - 1]);
  }
  free(aD);
  return rc;
}

static int check_stmt(cw_state *pS, CXCursor c, int nDepth) {
  if (nDepth > 8) return why(pS, "the row loop nests too deep");
  switch (clang_getCursorKind(c)) {
  case CXCursor_CompoundStmt: {
    CXCursor *aK;
    int nK, rc = 0;
    ks_rw_children(c, &aK, &nK);
    for (int i = 0; i < nK && rc == 0; i++) rc = check_stmt(pS, aK[i], nDepth + 1);
    free(aK);
    return rc;
  }
  case CXCursor_NullStmt:
    return 0;
  case CXCursor_DeclStmt:
    return check_decl(pS, c);
  case CXCursor_ForStmt: {
    CXCursor f[5], d[2];
    if (ks_rw_kids(c, f, 5) != 4 || kind(f[0]) != CXCursor_DeclStmt || ks_rw_kids(f[0], d, 2) != 1 ||
        pS->nNestVar == 8)
      return why(pS, "line %u: a nested loop that does not declare its variable", line_of(pS, c));
    if (check_decl(pS, f[0]) < 0 || check_expr(pS, f[1]) < 0) return -1;
    if (!unit_step(f[2], d[0])) return why(pS, "line %u: a nested loop whose step is not ++", line_of(pS, c));
    pS->aNestVar[pS->nNestVar++] = d[0];
    return check_stmt(pS, f[3], nDepth + 1);
  }
  default:
    if (clang_isExpression(clang_getCursorKind(c))) return check_accum(pS, c);
    return why(pS, "line %u: the row loop has a statement other than accumulations, declarations and loops "
                   "(if, return, break ...)", line_of(pS, c));
  }
}

/* Is the initializer of accumulator decl the literal zero? */
static int zero_init(cw_state *pS, CXCursor decl) {
  CXCursor k[4];
  int n = ks_rw_kids(decl, k, 4);
  if (n < 1 || n > 4 || !clang_isExpression(clang_getCursorKind(k[n - 1]))) return 0;
  CXCursor e = ks_rw_strip(k[n - 1]);
  while (kind(e) == CXCursor_CStyleCastExpr || kind(e) == CXCursor_UnexposedExpr || kind(e) == CXCursor_ParenExpr) {
    CXCursor kk[2];
    if (ks_rw_kids(e, kk, 2) < 1) break;
    e = ks_rw_strip(kk[ks_rw_kids(e, kk, 2) - 1]);
  }
  if (kind(e) != CXCursor_IntegerLiteral && kind(e) != CXCursor_FloatingLiteral) return 0;
  char *z = ks_rw_squash_cursor(pS->pTu, e);
  int b = z && strtod(z, NULL) == 0.0 && (z[0] == '0' || z[0] == '.');
  free(z);
  return b;
}

/* The text of statement c as written, up to and with its ';' and a trailing comment. */
static int put_stmt(cw_state *pS, ks_buf *pB, CXCursor c, const char *zI) {
  unsigned s, e;
  if (ks_ast_extent(pS->pTu, c, &s, &e) < 0) return why(pS, "line %u: a statement not written in the file", line_of(pS, c));
  e = ks_rw_after_stmt(pS->pTu, e);
  return ks_buf_printf(pB, "%s%.*s\n", zI, (int)(e - s), pS->pTu->zSrc + s);
}

/* Does the subtree of c name declaration d? */
typedef struct cw_find {
  CXCursor d;
  int bFound;
} cw_find;
static int find_ref(CXCursor c, const CXCursor *aAnc, int nAnc, void *pArg) {
  (void)aAnc;
  (void)nAnc;
  cw_find *pF = pArg;
  if (kind(c) == CXCursor_DeclRefExpr && same_decl(clang_getCursorReferenced(c), pF->d)) {
    pF->bFound = 1;
    return -1;
  }
  return 0;
}
static int names(CXCursor c, CXCursor d) {
  cw_find f = {d, 0};
  find_ref(c, NULL, 0, &f);
  if (!f.bFound) ks_rw_walk(c, find_ref, &f);
  return f.bFound;
}

/* Built-ins outside the index declaration [iIdxS, iIdxE): blockIdx.x, gridDim.x,
 * threadIdx.*, blockDim.* change meaning with the new block. */
typedef struct cw_bi {
  cw_state *pS;
  unsigned iIdxS, iIdxE;
  int bBad;
} cw_bi;
static int builtin_visit(CXCursor c, const CXCursor *aAnc, int nAnc, void *pArg) {
  (void)aAnc;
  (void)nAnc;
  cw_bi *pB = pArg;
  int d = -1, e = ks_shape_builtin(c, &d);
  if (e < 0) return 0;
  unsigned s = 0, x = 0;
  if (ks_ast_extent(pB->pS->pTu, c, &s, &x) == 0 && s >= pB->iIdxS && s < pB->iIdxE) return 1;
  if (e == KS_ATOM_TID || e == KS_ATOM_BDIM || d == 0) {
    static const char *const az[] = {"threadIdx", "blockIdx", "blockDim", "gridDim"};
    why(pB->pS, "line %u: %s.%c is used besides the column index (its value changes with the 2-D block)",
        line_of(pB->pS, c), az[e], 'x' + d);
    pB->bBad = 1;
    return -1;
  }
  return 1;
}

/* Stores of the epilogue (after the loop): into parameters the loop does not read. */
typedef struct cw_st {
  cw_state *pS;
  int bBad;
} cw_st;
static int store_visit(CXCursor c, const CXCursor *aAnc, int nAnc, void *pArg) {
  cw_st *pT = pArg;
  cw_state *pS = pT->pS;
  int bElem = kind(c) == CXCursor_ArraySubscriptExpr ||
              (kind(c) == CXCursor_UnaryOperator && clang_getCursorUnaryOperatorKind(c) == CXUnaryOperator_Deref);
  if (!bElem || nAnc < 1) return 0;
  CXCursor w;
  if (!(ks_rw_elem_use(c, aAnc, nAnc, &w) & KS_RW_WRITE)) return 0;
  CXCursor k[2];
  int iP = ks_rw_kids(c, k, 2) >= 1 ? ks_rw_param_of(pS->kernel, k[0]) : -1;
  if (iP < 0 || iP >= CW_MAX_PARAMS) {
    why(pS, "line %u: the epilogue stores through a pointer that is not a kernel parameter", line_of(pS, c));
    pT->bBad = 1;
    return -1;
  }
  if (pS->abRead[iP]) {
    why(pS, "line %u: the epilogue stores into a buffer the row loop reads (other columns' threads may still read it)",
        line_of(pS, c));
    pT->bBad = 1;
    return -1;
  }
  return 0;
}

static int is_ident_char(char ch) {
  return ch == '_' || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
}

static const char *skip_ws(const char *z, const char *zEnd) {
  while (z < zEnd && (*z == ' ' || *z == '\t' || *z == '\n' || *z == '\r')) z++;
  return z;
}

/* The arguments after the first of dim3(...) / {...} text [z, zEnd) (starting at
 * its bracket): each must be the literal 1. */
static int rest_are_one(const char *z, const char *zEnd) {
  if (z >= zEnd || (*z != '(' && *z != '{')) return 0;
  int nDepth = 0, iArg = 0;
  const char *zArg = z + 1;
  for (const char *q = z; q < zEnd; q++) {
    if (*q == '(' || *q == '{' || *q == '[') nDepth++;
    else if (*q == ')' || *q == '}' || *q == ']') {
      if (--nDepth == 0) {
        if (iArg > 0) {
          const char *a = skip_ws(zArg, q), *b = q;
          while (b > a && (b[-1] == ' ' || b[-1] == '\t' || b[-1] == '\n')) b--;
          if (!(b - a == 1 && *a == '1')) return 0;
        }
        return 1;
      }
    } else if (*q == ',' && nDepth == 1) {
      if (iArg > 0) {
        const char *a = skip_ws(zArg, q), *b = q;
        while (b > a && (b[-1] == ' ' || b[-1] == '\t' || b[-1] == '\n')) b--;
        if (!(b - a == 1 && *a == '1')) return 0;
      }
      iArg++;
      zArg = q + 1;
    }
  }
  return 0;
}

/* The launch's block is one-dimensional with a constant size (*pnX): a constant
 * scalar, dim3(N[, 1[, 1]]), or a dim3 variable declared so above the launch
 * and not assigned after. */
static int block_x(ks_tu *pTu, const ks_launch *pL, long long *pnX) {
  if (ks_rw_launch_block_scalar(pTu, pL, pnX)) return *pnX > 0;
  if (pL->nBlockThreads <= 0 || !pL->azCfg[1]) return 0;
  const char *z = pL->azCfg[1], *zEnd = z + strlen(z);
  if (strncmp(z, "dim3", 4) == 0 && !is_ident_char(z[4])) {
    *pnX = pL->nBlockThreads;
    return rest_are_one(skip_ws(z + 4, zEnd), zEnd);
  }
  size_t n = strlen(z);
  for (size_t i = 0; i < n; i++)
    if (!is_ident_char(z[i])) return 0;
  /* the last `dim3 NAME` before the launch */
  const char *zSrc = pTu->zSrc, *zDecl = NULL;
  for (unsigned i = 0; i + 4 + n < pL->iStart; i++)
    if (strncmp(zSrc + i, "dim3", 4) == 0 && (i == 0 || !is_ident_char(zSrc[i - 1])) && !is_ident_char(zSrc[i + 4])) {
      const char *q = skip_ws(zSrc + i + 4, zSrc + pL->iStart);
      if ((size_t)(zSrc + pL->iStart - q) > n && strncmp(q, z, n) == 0 && !is_ident_char(q[n])) zDecl = q + n;
    }
  if (!zDecl) return 0;
  const char *q = skip_ws(zDecl, zSrc + pL->iStart);
  if (*q == '=') {
    q = skip_ws(q + 1, zSrc + pL->iStart);
    if (strncmp(q, "dim3", 4) == 0 && !is_ident_char(q[4])) q = skip_ws(q + 4, zSrc + pL->iStart);
    else {
      /* dim3 b = 256; */
      const char *e = q;
      while (e < zSrc + pL->iStart && *e != ';' && *e != ',') e++;
      if (*e != ';') return 0;
      q = NULL;
    }
  }
  if (q && !rest_are_one(q, zSrc + pL->iStart)) return 0;
  /* not assigned between the declaration and the launch */
  for (const char *w = zDecl; w + n < zSrc + pL->iStart; w++)
    if (strncmp(w, z, n) == 0 && !is_ident_char(w[-1]) && !is_ident_char(w[n])) {
      const char *a = skip_ws(w + n, zSrc + pL->iStart);
      if (*a == '.') a = skip_ws(skip_ws(a + 1, zSrc + pL->iStart) + 1, zSrc + pL->iStart);
      if (*a == '=' && a[1] != '=') return 0;
    }
  *pnX = pL->nBlockThreads;
  return 1;
}

/* Is the kernel defined at file scope (the helper namespace goes above it)? */
static int at_file_scope(CXCursor kernel) {
  return clang_getCursorKind(clang_getCursorSemanticParent(kernel)) == CXCursor_TranslationUnit;
}

/* The row loop's header and body: `for (T r = A; r < B; r++)` with B
 * loop-invariant, a body that only accumulates (check_stmt). The loop's
 * children in f[], its start in *pInit. */
static int match_row_loop(cw_state *pS, unsigned iBs, CXCursor f[5], CXCursor *pInit) {
  ks_rewrite *p = pS->p;
  ks_tu *pTu = pS->pTu;
  if (ks_rw_kids(pS->loop, f, 5) != 4) {
    return ks_rewrite_refuse(p, "line %u: the row loop lacks an initialization, condition or step", line_of(pS, pS->loop));
  }
  /* init: `T r = A` or `r = A` */
  CXCursor initExpr = clang_getNullCursor();
  {
    CXCursor d[2], k[4];
    int n;
    if (kind(f[0]) == CXCursor_DeclStmt && ks_rw_kids(f[0], d, 2) == 1 && kind(d[0]) == CXCursor_VarDecl &&
        ks_rw_is_integer_type(clang_getCursorType(d[0])) && (n = ks_rw_kids(d[0], k, 4)) >= 1 && n <= 4 &&
        clang_isExpression(clang_getCursorKind(k[n - 1]))) {
      pS->loopVar = d[0];
      initExpr = k[n - 1];
    } else {
      CXCursor a = ks_rw_strip(f[0]);
      if (kind(a) == CXCursor_BinaryOperator && clang_getCursorBinaryOperatorKind(a) == CXBinaryOperator_Assign &&
          ks_rw_kids(a, k, 2) == 2 && kind(ks_rw_strip(k[0])) == CXCursor_DeclRefExpr) {
        CXCursor v = clang_getCursorReferenced(ks_rw_strip(k[0]));
        unsigned s = 0, e = 0;
        if (kind(v) == CXCursor_VarDecl && ks_rw_is_integer_type(clang_getCursorType(v)) &&
            ks_ast_extent(pTu, v, &s, &e) == 0 && s > iBs && s < pS->iLoopS) {
          pS->loopVar = v;
          initExpr = k[1];
        }
      }
    }
  }
  if (clang_Cursor_isNull(pS->loopVar) || !ks_rw_pure_expr(initExpr) || names(initExpr, pS->loopVar)) {
    return ks_rewrite_refuse(p, "line %u: the row loop does not start `for (T r = A; ...)` or `for (r = A; ...)` with "
                              "an integer local", line_of(pS, pS->loop));
  }
  /* condition: r < B or r <= B, B loop-invariant */
  CXCursor cond = ks_rw_strip(f[1]), ck[2];
  enum CXBinaryOperatorKind eCmp = kind(cond) == CXCursor_BinaryOperator ? clang_getCursorBinaryOperatorKind(cond)
                                                                          : CXBinaryOperator_Invalid;
  if ((eCmp != CXBinaryOperator_LT && eCmp != CXBinaryOperator_LE) || ks_rw_kids(cond, ck, 2) != 2 ||
      !ks_rw_is_ref_to(ck[0], pS->loopVar)) {
    return ks_rewrite_refuse(p, "line %u: the row loop's condition is not `r < B` / `r <= B`", line_of(pS, pS->loop));
  }
  if (!ks_rw_pure_expr(ck[1]) || names(ck[1], pS->loopVar)) {
    return ks_rewrite_refuse(p, "line %u: the row loop's bound is not loop-invariant (it loads from memory, calls or "
                              "assigns, or names the row)", line_of(pS, pS->loop));
  }
  if (!unit_step(f[2], pS->loopVar)) {
    return ks_rewrite_refuse(p, "line %u: the row loop's step is not r++ / ++r / r += 1", line_of(pS, pS->loop));
  }
  if (check_stmt(pS, f[3], 0) < 0) {
    return ks_rewrite_refuse(p, "%s", pS->zWhy);
  }
  if (pS->nAcc == 0 && !pS->zMemLv) {
    return ks_rewrite_refuse(p, "the row loop accumulates nothing");
  }
  /* what the loop's expressions read: not an accumulator, not the memory one,
   * no local the loop writes */
  for (int i = 0; i < pS->nRef; i++) {
    CXCursor d = pS->aRef[i];
    if (is_acc(pS, d) >= 0) {
      return ks_rewrite_refuse(p, "line %u: the row loop reads an accumulator besides accumulating it (a running value)",
                             line_of(pS, pS->loop));
    }
  }
  if (pS->iMemParam >= 0 && pS->iMemParam < CW_MAX_PARAMS && pS->abRead[pS->iMemParam]) {
    return ks_rewrite_refuse(p, "line %u: the row loop reads the buffer it accumulates into (aliasing output)",
                           line_of(pS, pS->loop));
  }
  /* the bound names no accumulator */
  for (int i = 0; i < pS->nAcc; i++)
    if (names(ck[1], pS->aAcc[i].decl)) {
      return ks_rewrite_refuse(p, "line %u: the row loop's bound names an accumulator", line_of(pS, pS->loop));
    }
  *pInit = initExpr;
  return KS_OK;
}

/* Before the row loop only declarations and the memory accumulator's first
 * value (marked in abMemInit); after it an epilogue that runs once per
 * column: not the loop variable, no store into what the loop reads. */
static int check_region(cw_state *pS, CXCursor *aReg, int nReg, int iLoop, int abMemInit[64]) {
  ks_rewrite *p = pS->p;
  ks_tu *pTu = pS->pTu;
  /* before the loop: declarations and the memory accumulator's first value */
  for (int i = 0; i < iLoop && i < 64; i++) {
    CXCursor c = aReg[i];
    if (ks_rw_pure_decls(c)) continue;
    if (kind(c) == CXCursor_DeclStmt) {
      CXCursor d[2], k[2];
      if (ks_rw_kids(c, d, 2) == 1 && kind(d[0]) == CXCursor_VarDecl &&
          ks_rw_is_integer_type(clang_getCursorType(d[0])) && ks_rw_kids(d[0], k, 2) == 0)
        continue; /* int i; */
    }
    CXCursor a = ks_rw_strip(c), k[2];
    if (pS->zMemLv && kind(a) == CXCursor_BinaryOperator && clang_getCursorBinaryOperatorKind(a) == CXBinaryOperator_Assign &&
        ks_rw_kids(a, k, 2) == 2 && kind(ks_rw_strip(k[0])) == CXCursor_ArraySubscriptExpr && ks_rw_pure_expr(k[1])) {
      char *z = ks_rw_squash_cursor(pTu, k[0]);
      int bSame = z && strcmp(z, pS->zMemLv) == 0;
      free(z);
      if (bSame) {
        abMemInit[i] = 1;
        continue;
      }
    }
    return ks_rewrite_refuse(p, "line %u: a statement before the row loop other than declarations and the "
                              "accumulator's first value (it writes other memory or has effects)", line_of(pS, c));
  }
  if (iLoop >= 64) {
    return ks_rewrite_refuse(p, "too many statements before the row loop");
  }
  /* after the loop: once per column; not the loop variable, no store into what the loop reads */
  for (int i = iLoop + 1; i < nReg; i++) {
    if (names(aReg[i], pS->loopVar)) {
      return ks_rewrite_refuse(p, "line %u: the epilogue reads the row loop's variable (its final value differs per "
                                "row slice)", line_of(pS, aReg[i]));
    }
    cw_st sv = {pS, 0};
    ks_rw_walk(aReg[i], store_visit, &sv);
    if (sv.bBad) {
      return ks_rewrite_refuse(p, "%s", pS->zWhy);
    }
  }
  return KS_OK;
}

/* Above the kernel the shipped header (once per file) and the kernel's note;
 * at every launch the grid with aK[i] times more blocks along x and a
 * COLS x ROWS block. */
static int emit_header_and_launches(cw_state *pS, unsigned iKs, long nCols, long nRows, ks_launch *aL, int nL,
                                    const long *aK) {
  ks_rewrite *p = pS->p;
  int rc = KS_OK;
  ks_buf cfg = KS_BUF_INIT, note = KS_BUF_INIT;
  {
    int bSum = pS->zMemLv != NULL;
    for (int i = 0; i < pS->nAcc; i++) bSum |= pS->aAcc[i].eOp == CW_ADD;
    if (pS->bAuto)
      rc = ks_buf_printf(&note, "%ld threads per block, 32, 16 or 8 columns chosen by each launch for the device's SMs, "
                                "the rest row slices",
                         pS->nThreads);
    else
      rc = ks_buf_printf(&note, "%ld columns x %ld row slices per block", nCols, nRows);
    if (rc >= 0)
      rc = ks_buf_printf(&note, ", partials combined in shared memory in a fixed order%s",
                       bSum ? "; sums reordered (row slices, then a fixed tree): results differ from the sequential sum in "
                              "the last bits, the Reviewer's tolerance check must admit it"
                            : "; max/min: exact");
  }
  if (rc < 0) goto done;
  unsigned nIndent = 0;
  unsigned iLine0 = ks_rewrite_line_start(p, iKs, &nIndent);
  /* above the kernel: the header (once per file), then the kernel's note */
  rc = ks_rw_insert_shipped(p, iLine0, nIndent, "#define KS_COLWALK_CUH", "ks_colwalk.cuh", "column-walk header",
                            "the shipped column-walk helpers (share/kernelskill/templates/ks_colwalk.cuh)", note.z);
  if (rc < 0) goto done;

  /* every launch: the grid with block / COLS times more blocks along x, a COLS x ROWS block;
   * cols=auto: both from ks_colwalk's host helpers, which evaluate the grid's
   * text twice (a grid with effects: the widest fixed shape at that launch) */
  for (int i = 0; i < nL; i++) {
    ks_launch *pL = &aL[i];
    long nB = aK[i] * nCols;
    int bRt = pS->bAuto && ks_rw_arg_pure(pL->azCfg[0]) && nB <= 0xffffffffL;
    ks_buf_clear(&cfg);
    ks_buf_clear(&note);
    if (bRt) {
      rc = ks_buf_printf(&cfg, "ks_colwalk::grid_auto(%s, %ld), ks_colwalk::block_auto(%s, %ld, %ld)", pL->azCfg[0], nB,
                         pL->azCfg[0], nB, pS->nThreads);
      if (rc >= 0)
        rc = ks_buf_printf(&note, "blocks of %ld threads: 32, 16 or 8 of the %ld columns a block covered, as many blocks "
                                  "more along x, chosen at run time for the device's SMs",
                           pS->nThreads, nB);
    } else {
      /* auto: the widest of 32, 16, 8 that divides the block */
      long nC = !pS->bAuto ? nCols : nB % 32 == 0 ? 32 : nB % 16 == 0 ? 16 : 8, nK = nB / nC;
      rc = ks_buf_printf(&cfg, "ks_colwalk::grid(%s, %ld), dim3(%ld, %ld)", pL->azCfg[0], nK, nC, pS->nThreads / nC);
      if (rc >= 0)
        rc = ks_buf_printf(&note, "%ldx more blocks along x, blocks of %ld columns x %ld row slices%s", nK, nC,
                           pS->nThreads / nC, pS->bAuto ? " (the grid holds a call, evaluated once: not chosen at run time)" : "");
    }
    if (rc >= 0) rc = ks_rw_cfg_tail(&cfg, pL);
    if (rc < 0 || (rc = ks_rewrite_replace(p, pL->iCfgStart, pL->iCfgEnd, cfg.z)) < 0) goto done;
    if ((rc = ks_rewrite_note(p, pL->iStart, note.z)) < 0) goto done;
  }
done:
  ks_buf_free(&cfg);
  ks_buf_free(&note);
  return rc;
}

/* Temporaries of the column index (`const int tid = threadIdx.x;` before it)
 * may read the built-ins, nothing after the index may read such a
 * temporary, and no built-in is read besides the index (*piIdxS: where the
 * index's text starts, with its temporaries). */
static int check_index_temps(cw_state *pS, CXCursor body, CXCursor *aTop, int nTop, int iIdx, unsigned *piIdxS,
                             unsigned iIdxE) {
  ks_rewrite *p = pS->p;
  ks_tu *pTu = pS->pTu;
  int rc = KS_OK;
  /* temporaries of the index (`const int tid = threadIdx.x;` before it) may read
   * the built-ins; nothing after the index may read such a temporary */
  {
    unsigned s0, e0;
    if (ks_ast_extent(pTu, aTop[0], &s0, &e0) == 0) *piIdxS = s0;
    for (int i = 0; i < iIdx; i++) {
      unsigned ts, te;
      if (ks_ast_extent(pTu, aTop[i], &ts, &te) < 0) continue;
      int bBuiltin = ks_rw_has_word(pTu, ts, te, "threadIdx") || ks_rw_has_word(pTu, ts, te, "blockDim") ||
                     ks_rw_has_word(pTu, ts, te, "blockIdx") || ks_rw_has_word(pTu, ts, te, "gridDim");
      CXCursor *aD;
      int nD;
      ks_rw_children(aTop[i], &aD, &nD);
      for (int d = 0; d < nD && bBuiltin && rc == KS_OK; d++)
        for (int k = iIdx + 1; k < nTop && rc == KS_OK; k++)
          if (names(aTop[k], aD[d]))
            return ks_rewrite_refuse(p, "line %u: a temporary of the column index that reads a thread built-in is used "
                                      "after the index (its value changes with the 2-D block)", line_of(pS, aTop[k]));
      free(aD);
      if (rc < 0) return rc;
    }
  }
  {
    cw_bi bi = {pS, *piIdxS, iIdxE, 0};
    ks_rw_walk(body, builtin_visit, &bi);
    if (bi.bBad) {
      rc = ks_rewrite_refuse(p, "%s", pS->zWhy);
    }
  }
  return rc;
}

/* __launch_bounds__ before the kernel's name: the new block size. */
static int add_launch_bounds(cw_state *pS, CXCursor kernel, const char *zKernel, unsigned iKs, unsigned iBs,
                             long nThreads) {
  ks_rewrite *p = pS->p;
  ks_tu *pTu = pS->pTu;
  /* __launch_bounds__ before the kernel's name: the new block size */
  {
    CXFile file;
    unsigned iName = 0;
    clang_getSpellingLocation(clang_getCursorLocation(kernel), &file, NULL, NULL, &iName);
    size_t nName = strlen(zKernel);
    if (iName <= iKs || iName >= iBs || strncmp(pTu->zSrc + iName, zKernel, nName) != 0) {
      return ks_rewrite_refuse(p, "the name of kernel '%s' is not written where its declaration is", zKernel);
    }
    char zLb[48];
    snprintf(zLb, sizeof zLb, "__launch_bounds__(%ld) ", nThreads);
    return ks_rewrite_replace(p, iName, iName, zLb);
  }

}

/* The refusal when the row loop's header cannot be edited. */
static int bad_header(cw_state *pS) {
  return ks_rewrite_refuse(pS->p, "%s", pS->zWhy[0] ? pS->zWhy : "the row loop's header is not written in the file");
}

/* The row loop's header: r starts at A + threadIdx.y and steps by ROWS;
 * then every edit of the loop in file order. */
static int edit_loop_header(cw_state *pS, CXCursor initExpr, CXCursor step, long nRows) {
  char zStep[32];
  if (pS->bAuto) snprintf(zStep, sizeof zStep, "(int)blockDim.y");
  else snprintf(zStep, sizeof zStep, "%ld", nRows);
  ks_tu *pTu = pS->pTu;
  {
    /* the loop's header: r starts at A + threadIdx.y and steps by ROWS */
    unsigned s, e;
    char zT[64];
    if (ks_ast_extent(pTu, initExpr, &s, &e) < 0) return bad_header(pS);
    {
      ks_buf t = KS_BUF_INIT;
      if (ks_buf_printf(&t, "(%.*s) + (int)threadIdx.y", (int)(e - s), pTu->zSrc + s) < 0) return bad_header(pS);
      int r = add_edit(pS, s, e, t.z);
      ks_buf_free(&t);
      if (r < 0) return bad_header(pS);
    }
    if (ks_ast_extent(pTu, step, &s, &e) < 0) return bad_header(pS);
    char *zV = ks_rw_spelling(pS->loopVar);
    snprintf(zT, sizeof zT, "%s += %s", zV ? zV : "", zStep);
    free(zV);
    if (add_edit(pS, s, e, zT) < 0) return bad_header(pS);
  }
  /* edits in file order */
  for (int i = 1; i < pS->nEdit; i++)
    for (int k = i; k > 0 && pS->aEdit[k].s < pS->aEdit[k - 1].s; k--) {
      cw_edit t = pS->aEdit[k];
      pS->aEdit[k] = pS->aEdit[k - 1];
      pS->aEdit[k - 1] = t;
    }
  return KS_OK;
}

/* Each launch passes every argument and has a constant 1-D block, a multiple
 * of nCols: aK[i] = block / nCols, the grid's scale (at most 64 launches). */
static int launch_scales(cw_state *pS, const ks_launch *aL, int nL, long nCols, long *aK) {
  ks_tu *pTu = pS->pTu;
  for (int i = 0; i < nL; i++) {
    long long nB = 0;
    if (aL[i].nArgs != clang_Cursor_getNumArguments(pS->kernel))
      return ks_rewrite_refuse(pS->p, "%s:%u: launch of '%s' passes %d arguments", pTu->zFile, aL[i].iLine,
                               ks_rewrite_kernel_name(pS->p), aL[i].nArgs);
    if (!block_x(pTu, &aL[i], &nB) || nB < nCols || nB % nCols || i >= 64)
      return ks_rewrite_refuse(pS->p, "%s:%u: the launch's block is not one-dimensional with a constant size, a multiple "
                                      "of %ld (the grid is scaled by block / %ld)",
                               pTu->zFile, aL[i].iLine, nCols, nCols);
    aK[i] = (long)(nB / nCols);
  }
  return KS_OK;
}

static int apply_column_walk(ks_rewrite *p) {
  ks_tu *pTu = ks_rewrite_tu(p);
  const char *zKernel = ks_rewrite_kernel_name(p);
  cw_state st, *pS = &st;
  memset(pS, 0, sizeof st);
  pS->p = p;
  pS->pTu = pTu;
  pS->iMemParam = -1;
  CXCursor *aTop = NULL, *aReg = NULL;
  int nTop = 0, nReg = 0, rc = KS_OK;
  ks_launch *aL = NULL;
  int nL = 0;
  ks_rw_param *aP = NULL;
  int nP = 0;
  ks_shape *pShape = NULL;
  ks_buf b = KS_BUF_INIT;
  char *zCond = NULL;
  long nCols = 0, nRows = 0, nUnroll = 1;

  /* cols=auto: each launch picks 32, 16 or 8 columns at run time
   * (ks_colwalk::cols_auto) for blocks of 32 * rows threads; the kernel reads
   * its shape from blockDim. The checks below hold for the narrowest. */
  const char *zCols = ks_rewrite_param(p, "cols", "32");
  int bAuto = zCols && strcmp(zCols, "auto") == 0;
  if (bAuto) nCols = 8;
  else if ((rc = ks_rw_int_param(p, "column-walk", "cols", "32", 8, 32, &nCols)) < 0) return rc;
  if ((rc = ks_rw_int_param(p, "column-walk", "rows", "16", 1, 128, &nRows)) < 0) return rc;
  if ((nCols != 8 && nCols != 16 && nCols != 32) || (nRows & (nRows - 1)) || (bAuto ? 32 : nCols) * nRows > 1024)
    return ks_error_set(KS_EUSAGE, "rule column-walk: cols must be 8, 16, 32 or auto, rows a power of two, cols*rows <= "
                                   "1024 (32*rows with auto)");
  pS->nThreads = bAuto ? 32 * nRows : nCols * nRows;
  pS->bAuto = bAuto;
  /* unroll > 1: the slice's walk keeps that many row loads in flight (nvcc
   * leaves a loop with a run-time trip count rolled: one load at a time).
   * The sums keep their order: only the loads move ahead. */
  if ((rc = ks_rw_int_param(p, "column-walk", "unroll", "1", 1, 16, &nUnroll)) < 0) return rc;

  CXCursor kernel = ks_ast_find_kernel(pTu, zKernel);
  pS->kernel = kernel;
  unsigned iKs, iKe, iBs, iBe;
  if (clang_Cursor_isNull(kernel)) return ks_rewrite_refuse(p, "no kernel '%s' in the file", zKernel);
  if (ks_ast_extent(pTu, kernel, &iKs, &iKe) < 0) return ks_rewrite_refuse(p, "kernel '%s' is not in the file", zKernel);
  if (ks_rewrite_has_note(p, iKs, iKe, NULL))
    return ks_rewrite_already(p, "kernel '%s' already walks its columns in row slices", zKernel);
  if (kind(kernel) == CXCursor_FunctionTemplate)
    return ks_rewrite_refuse(p, "kernel '%s' is a template (its instantiations' launches are not rewritten)", zKernel);
  if (!at_file_scope(kernel))
    return ks_rewrite_refuse(p, "kernel '%s' is not defined at file scope (inside a namespace or extern \"C\" block)",
                             zKernel);
  CXCursor body = ks_rw_body(kernel);
  if (clang_Cursor_isNull(body) || ks_ast_extent(pTu, body, &iBs, &iBe) < 0)
    return ks_rewrite_refuse(p, "kernel '%s' has no body in the file", zKernel);
  if (ks_rw_has_word(pTu, iKs, iBs, "__launch_bounds__"))
    return ks_rewrite_refuse(p, "kernel '%s' has __launch_bounds__; its block size changes here (apply launch-bounds "
                                "after)", zKernel);
  if (ks_rw_has_word(pTu, iBs, iBe, "ks_cw_acc") || ks_rw_has_word(pTu, iBs, iBe, "ks_cw_in") ||
      ks_rw_has_word(pTu, iBs, iBe, "warpSize"))
    return ks_rewrite_refuse(p, "kernel '%s' names ks_cw_acc, ks_cw_in or warpSize", zKernel);
  if ((rc = ks_rw_require_class(p, kernel, KS_CLASS_COLUMN_WALK)) < 0) return rc;
  if ((rc = ks_shape_build(pTu, kernel, &pShape)) < 0) return rc;
  if (pShape->bShared || pShape->bSync || pShape->bAtomic || pShape->bWarp) {
    rc = ks_rewrite_refuse(p, "kernel '%s' already uses shared memory, barriers, atomics or warp primitives", zKernel);
    goto done;
  }

  /* ---- the body: prologue, column index, guard, region ---- */
  ks_rw_children(body, &aTop, &nTop);
  int iIdx = -1;
  for (int i = 0; i < nTop && iIdx < 0; i++) {
    CXCursor d[2], k[4];
    int n;
    if (kind(aTop[i]) == CXCursor_DeclStmt && ks_rw_kids(aTop[i], d, 2) == 1 && kind(d[0]) == CXCursor_VarDecl &&
        ks_rw_is_integer_type(clang_getCursorType(d[0])) && (n = ks_rw_kids(d[0], k, 4)) >= 1 && n <= 4 &&
        clang_isExpression(clang_getCursorKind(k[n - 1])) && ks_rw_thread_index(pTu, kernel, k[n - 1], NULL) == 0) {
      iIdx = i;
      break;
    }
    if (!ks_rw_pure_decls(aTop[i])) {
      rc = ks_rewrite_refuse(p, "line %u: a statement before the column index (blockIdx.x * blockDim.x + threadIdx.x)",
                             line_of(pS, aTop[i]));
      goto done;
    }
  }
  if (iIdx < 0) {
    rc = ks_rewrite_refuse(p, "no column index (T c = blockIdx.x * blockDim.x + threadIdx.x;) among the kernel's first "
                              "statements");
    goto done;
  }
  unsigned iIdxS, iIdxE;
  if (ks_ast_extent(pTu, aTop[iIdx], &iIdxS, &iIdxE) < 0) {
    rc = ks_rewrite_refuse(p, "the column index is not written in the file");
    goto done;
  }
  if ((rc = check_index_temps(pS, body, aTop, nTop, iIdx, &iIdxS, iIdxE)) < 0) goto done;
  int j = iIdx + 1;
  while (j < nTop && ks_rw_pure_decls(aTop[j])) j++;
  unsigned iRegionS; /* where the prologue's text ends */
  int bGuard = 0, bEarly = 0;
  if (j < nTop && kind(aTop[j]) == CXCursor_IfStmt) {
    CXCursor g[3], t[2];
    int nG = ks_rw_kids(aTop[j], g, 3);
    CXCursor th = nG == 2 ? g[1] : clang_getNullCursor();
    if (!clang_Cursor_isNull(th) && (kind(th) == CXCursor_ReturnStmt ||
                                     (kind(th) == CXCursor_CompoundStmt && ks_rw_kids(th, t, 2) == 1 &&
                                      kind(t[0]) == CXCursor_ReturnStmt))) {
      bGuard = bEarly = 1;
      ks_rw_children(body, &aReg, &nReg);
      memmove(aReg, aReg + j + 1, sizeof *aReg * (size_t)(nReg - j - 1));
      nReg -= j + 1;
    } else if (!clang_Cursor_isNull(th) && kind(th) == CXCursor_CompoundStmt && j == nTop - 1) {
      bGuard = 1;
      ks_rw_children(th, &aReg, &nReg);
    } else {
      rc = ks_rewrite_refuse(p, "line %u: the guard is neither `if (...) return;` nor `if (...) { ... }` ending the "
                                "kernel", line_of(pS, aTop[j]));
      goto done;
    }
    unsigned s, e;
    if (!ks_rw_pure_expr(g[0]) || ks_ast_extent(pTu, g[0], &s, &e) < 0 || ks_rewrite_in_macro(p, s, e)) {
      rc = ks_rewrite_refuse(p, "line %u: the guard's condition is not a plain expression", line_of(pS, aTop[j]));
      goto done;
    }
    zCond = ks_rw_squash(pTu, s, e);
    unsigned gs, ge;
    ks_ast_extent(pTu, aTop[j], &gs, &ge);
    iRegionS = gs;
    (void)ge;
    /* the condition as written (not squashed): keeps its spacing */
    free(zCond);
    zCond = malloc(e - s + 1);
    if (zCond) {
      memcpy(zCond, pTu->zSrc + s, e - s);
      zCond[e - s] = 0;
    }
  } else {
    ks_rw_children(body, &aReg, &nReg);
    memmove(aReg, aReg + j, sizeof *aReg * (size_t)(nReg - j));
    nReg -= j;
    iRegionS = 0;
    if (j < nTop) {
      unsigned s, e;
      ks_ast_extent(pTu, aTop[j], &s, &e);
      iRegionS = s;
    } else
      iRegionS = iBe - 1;
  }
  if (bGuard && !zCond) {
    rc = ks_error_set(KS_ENOMEM, "out of memory");
    goto done;
  }

  /* ---- the region: declarations (and P[col] = v), the row loop, the epilogue ---- */
  int iLoop = -1;
  for (int i = 0; i < nReg; i++)
    if (kind(aReg[i]) == CXCursor_ForStmt) {
      iLoop = i;
      break;
    }
  if (iLoop < 0) {
    rc = ks_rewrite_refuse(p, "no row loop (a for statement) in the guarded region");
    goto done;
  }
  pS->loop = aReg[iLoop];
  if (ks_ast_extent(pTu, pS->loop, &pS->iLoopS, &pS->iLoopE) < 0) {
    rc = ks_rewrite_refuse(p, "the row loop is not written in the file");
    goto done;
  }
  CXCursor f[5], initExpr;
  if ((rc = match_row_loop(pS, iBs, f, &initExpr)) < 0) goto done;
  int abMemInit[64] = {0};
  if ((rc = check_region(pS, aReg, nReg, iLoop, abMemInit)) < 0) goto done;
  if ((rc = ks_rw_params(pTu, kernel, &aP, &nP)) < 0) goto done;
  if (pS->zMemLv && (pS->iMemParam >= nP || !aP[pS->iMemParam].zElemType)) {
    rc = ks_rewrite_refuse(p, "the accumulated buffer's element type is unknown");
    goto done;
  }
  if ((rc = ks_rw_kernel_launches(p, zKernel, &aL, &nL)) < 0) goto done;
  long aK[64];
  if ((rc = launch_scales(pS, aL, nL, nCols, aK)) < 0) goto done;

  /* ---- the new body ---- */
  if ((rc = edit_loop_header(pS, initExpr, f[2], nRows)) < 0) goto done;
  {
    const char *zI = "  ";
    const char *zSrc = pTu->zSrc;
    rc = ks_buf_printf(&b, "%.*s", (int)(iRegionS - (iBs + 1)), zSrc + iBs + 1);
    if (rc >= 0) {
      if (!bGuard) rc = ks_buf_printf(&b, "const bool ks_cw_in = true;\n");
      else if (bEarly) rc = ks_buf_printf(&b, "const bool ks_cw_in = !(%s);\n", zCond);
      else rc = ks_buf_printf(&b, "const bool ks_cw_in = (%s);\n", zCond);
    }
    for (int i = 0; i < iLoop && rc >= 0; i++)
      if (!abMemInit[i]) rc = put_stmt(pS, &b, aReg[i], zI) < 0 ? KS_EPRECOND : KS_OK;
    if (rc >= 0 && pS->zMemLv) rc = ks_buf_printf(&b, "%s%s ks_cw_acc = 0;\n", zI, aP[pS->iMemParam].zElemType);
    for (int i = 0; i < pS->nAcc && rc >= 0; i++)
      if (pS->aAcc[i].eOp == CW_ADD && !zero_init(pS, pS->aAcc[i].decl)) {
        char *zA = ks_rw_spelling(pS->aAcc[i].decl);
        rc = ks_buf_printf(&b, "%sif (threadIdx.y != 0) %s = 0; /* one slice keeps the first value */\n", zI, zA);
        free(zA);
      }
    if (rc >= 0 && nUnroll > 1) rc = ks_buf_printf(&b, "%sif (ks_cw_in) {\n#pragma unroll %ld\n%s", zI, nUnroll, zI);
    else if (rc >= 0) rc = ks_buf_printf(&b, "%sif (ks_cw_in) ", zI);
    unsigned iAt = pS->iLoopS, iLoopEnd = ks_rw_after_stmt(pTu, pS->iLoopE);
    for (int i = 0; i < pS->nEdit && rc >= 0; i++) {
      rc = ks_buf_printf(&b, "%.*s%s", (int)(pS->aEdit[i].s - iAt), zSrc + iAt, pS->aEdit[i].z);
      iAt = pS->aEdit[i].e;
    }
    if (rc >= 0) rc = ks_buf_printf(&b, "%.*s\n", (int)(iLoopEnd - iAt), zSrc + iAt);
    if (rc >= 0 && nUnroll > 1) rc = ks_buf_printf(&b, "%s}\n", zI);
    if (rc >= 0) rc = ks_buf_printf(&b, "%s/* the row slices' partial results, combined in a fixed order */\n", zI);
    for (int i = 0; i < pS->nAcc && rc >= 0; i++) {
      char *zA = ks_rw_spelling(pS->aAcc[i].decl);
      if (bAuto) rc = ks_buf_printf(&b, "%s%s = ks_colwalk::%s_rt(%s);\n", zI, zA, azCombine[pS->aAcc[i].eOp], zA);
      else
        rc = ks_buf_printf(&b, "%s%s = ks_colwalk::%s<%ld, %ld>(%s);\n", zI, zA, azCombine[pS->aAcc[i].eOp], nCols,
                           nRows, zA);
      free(zA);
    }
    if (rc >= 0 && pS->zMemLv && bAuto) rc = ks_buf_printf(&b, "%sks_cw_acc = ks_colwalk::sum_rt(ks_cw_acc);\n", zI);
    else if (rc >= 0 && pS->zMemLv)
      rc = ks_buf_printf(&b, "%sks_cw_acc = ks_colwalk::sum<%ld, %ld>(ks_cw_acc);\n", zI, nCols, nRows);
    if (rc >= 0) rc = ks_buf_printf(&b, "%sif (!ks_cw_in || threadIdx.y != 0) return;\n", zI);
    for (int i = 0; i < iLoop && rc >= 0; i++)
      if (abMemInit[i]) rc = put_stmt(pS, &b, aReg[i], zI) < 0 ? KS_EPRECOND : KS_OK;
    if (rc >= 0 && pS->zMemLv)
      rc = ks_buf_printf(&b, "%s%.*s += ks_cw_acc;\n", zI, (int)(pS->iMemE - pS->iMemS), zSrc + pS->iMemS);
    for (int i = iLoop + 1; i < nReg && rc >= 0; i++) rc = put_stmt(pS, &b, aReg[i], zI) < 0 ? KS_EPRECOND : KS_OK;
    if (rc < 0) {
      rc = pS->zWhy[0] ? ks_rewrite_refuse(p, "%s", pS->zWhy) : rc;
      goto done;
    }
    if ((rc = ks_rewrite_replace(p, iBs + 1, iBe - 1, b.z)) < 0) goto done;
  }

  if ((rc = add_launch_bounds(pS, kernel, zKernel, iKs, iBs, pS->nThreads)) < 0) goto done;
  rc = emit_header_and_launches(pS, iKs, nCols, nRows, aL, nL, aK);
done:
  for (int i = 0; i < pS->nEdit; i++) free(pS->aEdit[i].z);
  free(pS->zMemLv);
  free(aTop);
  free(aReg);
  ks_ast_launches_free(aL, nL);
  ks_rw_params_free(aP, nP);
  ks_shape_free(pShape);
  ks_buf_free(&b);
  free(zCond);
  return rc;
}

static const char *const azParams[] = {"cols", "rows", "unroll", NULL};

const ks_rule ks_rule_column_walk = {
    "column-walk",
    "thread-per-column walk down the rows (column sum/max/min/mean, A^T x) to blocks of cols x rows row slices "
    "combined in shared memory (cols=8|16|32, rows=power of two, unroll=1..16 row loads in flight per slice)",
    azParams, apply_column_walk};
