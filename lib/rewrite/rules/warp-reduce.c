/* warp-reduce.c — rule `warp-reduce`: a shared-memory tree reduction
 *     for (s = blockDim.x / 2 | S0; s > 0; s >>= 1) { if (tid < s) buf[tid] OP= buf[tid + s]; __syncthreads(); }
 * stops once s reaches the last warp (s > 32); the steps s = 32 .. 1 run in
 * warp 0 with __shfl_down_sync and no barriers, and lane 0 writes buf[0].
 * OP is +, max or min (fmaxf/fmax/max, fminf/fmin/min). The warp steps pair
 * the same elements in the same order as the tree did, so buf[0] comes out
 * bitwise the same (docs/rules/warp-reduce.md). Every launch must give a
 * constant block size that is a multiple of 32 (a power of two >= 64 where the
 * tree starts at blockDim.x / 2). */
#include "features/ast.h"
#include "features/shape.h"
#include "kernelskill/rewrite.h"
#include "rewrite/rwutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OP_SUM = 1, OP_MAX, OP_MIN };

static int kind(CXCursor c) { return (int)clang_getCursorKind(c); }

static int kids(CXCursor c, CXCursor *a, int nMax) { return ks_rw_kids(c, a, nMax); }

/* Is c (through parentheses and explicit casts to integer types of 16 bits or
 * more, which keep values below 1024) the built-in eAtom's x? shape.h's one
 * recognizer decides, so `(unsigned)threadIdx.x` and a macro's count too. */
static int is_builtin_x(CXCursor c, int eAtom) {
  c = ks_rw_strip(c);
  for (int i = 0; i < 4; i++) {
    enum CXCursorKind e = kind(c);
    if (e != CXCursor_CStyleCastExpr && e != CXCursor_CXXStaticCastExpr && e != CXCursor_CXXFunctionalCastExpr) break;
    CXType t = clang_getCanonicalType(clang_getCursorType(c));
    int bInt = t.kind >= CXType_Char_U && t.kind <= CXType_LongLong && t.kind != CXType_Bool;
    CXCursor a[3];
    int n = kids(c, a, 3);
    if (!bInt || clang_Type_getSizeOf(t) < 2 || n < 1) return 0;
    c = ks_rw_strip(a[n - 1]);
  }
  int iDim = -1;
  return (int)ks_shape_builtin(c, &iDim) == eAtom && iDim == 0;
}

static int is_tid_x(CXCursor c) { return is_builtin_x(c, KS_ATOM_TID); }
static int is_bdim_x(CXCursor c) { return is_builtin_x(c, KS_ATOM_BDIM); }

/* A call of __syncthreads() with no arguments. */
static int is_syncthreads(CXCursor c) {
  c = ks_rw_strip(c);
  if (kind(c) != CXCursor_CallExpr || clang_Cursor_getNumArguments(c) != 0) return 0;
  char *z = ks_rw_spelling(c);
  int b = z && strcmp(z, "__syncthreads") == 0;
  free(z);
  return b;
}

static CXCursor var_init(CXCursor var) {
  CXCursor a[4], init = clang_getNullCursor();
  int n = kids(var, a, 4);
  for (int i = 0; i < n && i < 4; i++)
    if (clang_isExpression(clang_getCursorKind(a[i]))) init = a[i];
  return init;
}

static int is_pow2(long long n) { return n > 0 && (n & (n - 1)) == 0; }

/* What the matcher found: one tree loop. */
typedef struct wr_tree {
  CXCursor loop, cond, var;
  char *zS;        /* the loop variable */
  char *zTid;      /* `tid` or `threadIdx.x` as written */
  CXCursor tidDecl; /* null when threadIdx.x is used directly */
  char *zBuf;      /* the shared array */
  CXCursor bufDecl;
  char *zElem;     /* its element type */
  int eOp;
  char *zFn;       /* fmaxf, max, ... for max/min */
  int bSwap;       /* the combine names buf[tid + s] first */
  long long nStart; /* constant first s, or 0 for blockDim.x / 2 */
  char *zReg;      /* the SDK's register form `buf[tid] = r = r + buf[tid + s]`: r, else NULL */
  CXCursor regDecl;
} wr_tree;

static void tree_free(wr_tree *t) {
  free(t->zS);
  free(t->zTid);
  free(t->zBuf);
  free(t->zElem);
  free(t->zFn);
  free(t->zReg);
  memset(t, 0, sizeof *t);
}

/* c (stripped) is the binary operator eOp: its operands in x[0], x[1]. */
static int binop_pair(CXCursor c, enum CXBinaryOperatorKind eOp, CXCursor *x) {
  return kind(c) == CXCursor_BinaryOperator && clang_getCursorBinaryOperatorKind(c) == eOp && kids(c, x, 2) == 2;
}

/* c is the tree's thread index: its variable, or threadIdx.x where it has none. */
static int is_tid(const wr_tree *t, CXCursor c) {
  return clang_Cursor_isNull(t->tidDecl) ? is_tid_x(c) : ks_rw_is_ref_to(c, t->tidDecl);
}

/* c is an integer constant expression of value v (a literal, a macro, a const). */
static int is_const(CXCursor c, long long v) {
  long long n;
  return ks_ast_const_int(ks_rw_strip(c), &n) && n == v;
}

/* c is A[T] (0) or A[T + s] / A[s + T] (1) of the tree's shared array A; else -1. */
static int elem_at(const wr_tree *t, CXCursor c) {
  CXCursor b[2], x[2];
  c = ks_rw_strip(c);
  if (kind(c) != CXCursor_ArraySubscriptExpr || kids(c, b, 2) != 2 || !ks_rw_is_ref_to(b[0], t->bufDecl)) return -1;
  CXCursor i = ks_rw_strip(b[1]);
  if (is_tid(t, i)) return 0;
  if (binop_pair(i, CXBinaryOperator_Add, x) && ((is_tid(t, x[0]) && ks_rw_is_ref_to(x[1], t->var)) ||
                                                  (ks_rw_is_ref_to(x[0], t->var) && is_tid(t, x[1]))))
    return 1;
  return -1;
}

/* The combine statement `A[T] += A[T+s]` and its spellings, A a __shared__ array. */
static int match_combine(ks_rewrite *p, CXCursor st, wr_tree *t) {
  ks_tu *pTu = ks_rewrite_tu(p);
  CXCursor a[2];
  if (kind(st) == CXCursor_CompoundStmt) {
    if (kids(st, a, 2) != 1) return 0;
    st = a[0];
  }
  if (kind(st) != CXCursor_BinaryOperator && kind(st) != CXCursor_CompoundAssignOperator) return 0;
  if (kids(st, a, 2) != 2) return 0;
  CXCursor lhs = ks_rw_strip(a[0]), b[2];
  if (kind(lhs) != CXCursor_ArraySubscriptExpr || kids(lhs, b, 2) != 2) return 0;
  CXCursor d = ks_rw_ref_decl(b[0]);
  if (clang_Cursor_isNull(d) || kind(d) != CXCursor_VarDecl) return 0;
  CXType ty = clang_getCursorType(d);
  if (ty.kind != CXType_ConstantArray && ty.kind != CXType_IncompleteArray) return 0;
  unsigned iDs, iDe;
  if (ks_ast_extent(pTu, d, &iDs, &iDe) < 0 || !ks_rw_has_word(pTu, iDs, iDe, "__shared__")) {
    /* `__shared__ float buf[256];`: the attribute may precede the declarator's extent. */
    unsigned iLine = ks_rewrite_line_start(p, iDs, NULL);
    if (ks_ast_extent(pTu, d, &iDs, &iDe) < 0 || !ks_rw_has_word(pTu, iLine, iDe, "__shared__")) return 0;
  }
  enum CXTypeKind eE = clang_getCanonicalType(clang_getArrayElementType(ty)).kind;
  if (eE != CXType_Float && eE != CXType_Double && eE != CXType_Int && eE != CXType_UInt && eE != CXType_LongLong &&
      eE != CXType_ULongLong)
    return 0;
  t->bufDecl = d;
  t->zBuf = ks_rw_spelling(d);
  {
    CXString s = clang_getTypeSpelling(clang_getArrayElementType(ty));
    t->zElem = ks_strdup(clang_getCString(s));
    clang_disposeString(s);
  }
  /* `A[T] = R = R + A[T+s]`: R a local of the element type that carries the
   * thread's partial sum beside the array (CUDA samples' reduce3 onwards) */
  CXCursor rhs = ks_rw_strip(a[1]), r2[2];
  if (kind(st) == CXCursor_BinaryOperator && clang_getCursorBinaryOperatorKind(st) == CXBinaryOperator_Assign &&
      kind(rhs) == CXCursor_BinaryOperator && clang_getCursorBinaryOperatorKind(rhs) == CXBinaryOperator_Assign &&
      kids(rhs, r2, 2) == 2) {
    CXCursor rd = ks_rw_ref_decl(r2[0]);
    if (clang_Cursor_isNull(rd) || kind(rd) != CXCursor_VarDecl ||
        !clang_equalTypes(clang_getCanonicalType(clang_getCursorType(rd)),
                          clang_getCanonicalType(clang_getArrayElementType(ty))))
      return 0;
    t->regDecl = rd;
    t->zReg = ks_rw_spelling(rd);
    if (!t->zReg) return 0;
  }
  if (!t->zBuf || !t->zElem) return 0;
  /* The statement's shape on the AST (macros seen expanded, any spacing):
   * A[T] += A[T+s];  A[T] = A[T] + A[T+s] (either order);  A[T] = f(A[T], A[T+s])
   * (either order, f a max or min);  with a register R: A[T] = R = R + A[T+s]. */
  CXCursor lhs2 = ks_rw_strip(a[0]), rhs2 = ks_rw_strip(a[1]), x[2];
  if (elem_at(t, lhs2) != 0) return 0;
  enum CXBinaryOperatorKind eSt = clang_getCursorBinaryOperatorKind(st);
  if (t->zReg) { /* R = R + A[T+s] or R = A[T+s] + R */
    if (kids(rhs2, x, 2) != 2 || !ks_rw_is_ref_to(x[0], t->regDecl)) return 0;
    CXCursor sum = ks_rw_strip(x[1]);
    if (!binop_pair(sum, CXBinaryOperator_Add, x)) return 0;
    if (ks_rw_is_ref_to(x[0], t->regDecl) && elem_at(t, x[1]) == 1) t->eOp = OP_SUM;
    else if (elem_at(t, x[0]) == 1 && ks_rw_is_ref_to(x[1], t->regDecl)) t->eOp = OP_SUM, t->bSwap = 1;
    return t->eOp != 0;
  }
  if (kind(st) == CXCursor_CompoundAssignOperator) {
    if (eSt == CXBinaryOperator_AddAssign && elem_at(t, rhs2) == 1) t->eOp = OP_SUM;
    return t->eOp != 0;
  }
  if (eSt != CXBinaryOperator_Assign) return 0;
  if (binop_pair(rhs2, CXBinaryOperator_Add, x)) {
    if (elem_at(t, x[0]) == 0 && elem_at(t, x[1]) == 1) t->eOp = OP_SUM;
    else if (elem_at(t, x[0]) == 1 && elem_at(t, x[1]) == 0) t->eOp = OP_SUM, t->bSwap = 1;
    return t->eOp != 0;
  }
  if (kind(rhs2) != CXCursor_CallExpr || clang_Cursor_getNumArguments(rhs2) != 2) return 0;
  static const char *const azFn[] = {"fmaxf", "fmax", "max", "fminf", "fmin", "min", NULL};
  char *zFn = ks_rw_spelling(rhs2);
  int iFn = -1;
  for (int f = 0; zFn && azFn[f]; f++)
    if (strcmp(zFn, azFn[f]) == 0) iFn = f;
  free(zFn);
  if (iFn < 0) return 0;
  int e0 = elem_at(t, clang_Cursor_getArgument(rhs2, 0)), e1 = elem_at(t, clang_Cursor_getArgument(rhs2, 1));
  if (!((e0 == 0 && e1 == 1) || (e0 == 1 && e1 == 0))) return 0;
  t->eOp = iFn < 3 ? OP_MAX : OP_MIN;
  t->zFn = ks_strdup(azFn[iFn]);
  t->bSwap = e0 == 1;
  return t->zFn != NULL;
}

/* for (T s = blockDim.x / 2 | S0; s > 0; s >>= 1) { if (tid < s) COMBINE; __syncthreads(); } */
static int match_tree(ks_rewrite *p, CXCursor loop, wr_tree *t) {
  CXCursor a[4], v[2], body[3], f[3];
  memset(t, 0, sizeof *t);
  if (kind(loop) != CXCursor_ForStmt || kids(loop, a, 4) != 4) return 0;
  if (kind(a[0]) != CXCursor_DeclStmt || kids(a[0], v, 2) != 1 || kind(v[0]) != CXCursor_VarDecl) return 0;
  CXCursor init = var_init(v[0]);
  if (clang_Cursor_isNull(init)) return 0;
  t->loop = loop;
  t->var = v[0];
  t->cond = a[1];
  t->zS = ks_rw_spelling(v[0]);
  if (!t->zS) return 0;
  /* the start: blockDim.x / 2 or blockDim.x >> 1 (through integer casts), or a
   * positive constant (a literal, a macro such as BLOCK / 2, a const) */
  CXCursor x[2], s0 = ks_rw_strip(init);
  long long n;
  if (((binop_pair(s0, CXBinaryOperator_Div, x) && is_const(x[1], 2)) ||
       (binop_pair(s0, CXBinaryOperator_Shr, x) && is_const(x[1], 1))) &&
      is_bdim_x(x[0])) {
    t->nStart = 0;
  } else if (ks_ast_const_int(s0, &n) && n > 0) {
    t->nStart = n;
  } else
    return 0;
  /* while s > 0 (s >= 1, s != 0, 0 < s, 1 <= s) */
  CXCursor cond = ks_rw_strip(a[1]);
  int bCond = kind(cond) == CXCursor_BinaryOperator && kids(cond, x, 2) == 2;
  if (bCond) {
    enum CXBinaryOperatorKind e = clang_getCursorBinaryOperatorKind(cond);
    int bL = ks_rw_is_ref_to(x[0], t->var), bR = ks_rw_is_ref_to(x[1], t->var);
    bCond = (bL && (e == CXBinaryOperator_GT || e == CXBinaryOperator_NE) && is_const(x[1], 0)) ||
            (bL && e == CXBinaryOperator_GE && is_const(x[1], 1)) ||
            (bR && e == CXBinaryOperator_LT && is_const(x[0], 0)) || (bR && e == CXBinaryOperator_LE && is_const(x[0], 1));
  }
  if (!bCond) return 0;
  /* halving: s >>= 1, s /= 2, s = s >> 1, s = s / 2 */
  CXCursor inc = ks_rw_strip(a[2]);
  int bInc = 0;
  if (kids(inc, x, 2) == 2 && ks_rw_is_ref_to(x[0], t->var)) {
    enum CXBinaryOperatorKind e = clang_getCursorBinaryOperatorKind(inc);
    CXCursor y[2], r = ks_rw_strip(x[1]);
    if (kind(inc) == CXCursor_CompoundAssignOperator)
      bInc = (e == CXBinaryOperator_ShrAssign && is_const(x[1], 1)) || (e == CXBinaryOperator_DivAssign && is_const(x[1], 2));
    else if (kind(inc) == CXCursor_BinaryOperator && e == CXBinaryOperator_Assign)
      bInc = ((binop_pair(r, CXBinaryOperator_Shr, y) && is_const(y[1], 1)) ||
              (binop_pair(r, CXBinaryOperator_Div, y) && is_const(y[1], 2))) &&
             ks_rw_is_ref_to(y[0], t->var);
  }
  if (!bInc || kind(a[3]) != CXCursor_CompoundStmt || kids(a[3], body, 3) != 2) return 0;
  /* if (tid < s) COMBINE;  then  __syncthreads(); */
  if (kind(body[0]) != CXCursor_IfStmt || kids(body[0], f, 3) != 2) return 0;
  if (!is_syncthreads(body[1])) return 0;
  CXCursor c[2];
  cond = ks_rw_strip(f[0]);
  if (kind(cond) != CXCursor_BinaryOperator || kids(cond, c, 2) != 2) return 0;
  enum CXBinaryOperatorKind eB = clang_getCursorBinaryOperatorKind(cond);
  CXCursor tidSide;
  if (eB == CXBinaryOperator_LT && ks_rw_is_ref_to(c[1], t->var)) tidSide = c[0];
  else if (eB == CXBinaryOperator_GT && ks_rw_is_ref_to(c[0], t->var)) tidSide = c[1];
  else return 0;
  if (is_tid_x(tidSide)) {
    t->zTid = ks_strdup("threadIdx.x");
    t->tidDecl = clang_getNullCursor();
  } else {
    CXCursor d = ks_rw_ref_decl(tidSide);
    if (clang_Cursor_isNull(d) || kind(d) != CXCursor_VarDecl || clang_Cursor_isNull(var_init(d)) ||
        !is_tid_x(var_init(d)))
      return 0;
    t->tidDecl = d;
    t->zTid = ks_rw_spelling(d);
  }
  return t->zTid && match_combine(p, f[1], t);
}

/* Uses of the shared array and of tid after the loop. */
typedef struct after_walk {
  ks_tu *pTu;
  wr_tree *t;
  int bBad;        /* an access other than a read of buf[0] */
  int bUnguarded;  /* a read of buf[0] outside `if (tid == 0)` */
  const char *zWhy;
} after_walk;

/* `if (tid == 0)` (either order; tid the tree's index or threadIdx.x in any
 * spelling the recognizer knows, 0 any constant zero). */
static int is_tid0_guard(wr_tree *t, CXCursor ifStmt) {
  CXCursor a[3], s[2];
  if (kids(ifStmt, a, 3) < 2) return 0;
  CXCursor cond = ks_rw_strip(a[0]);
  if (!binop_pair(cond, CXBinaryOperator_EQ, s)) return 0;
  return ((is_tid(t, s[0]) || is_tid_x(s[0])) && is_const(s[1], 0)) ||
         ((is_tid(t, s[1]) || is_tid_x(s[1])) && is_const(s[0], 0));
}

/* Is the node below ancestors aAnc inside the then-branch of `if (tid == 0)`? */
static int under_tid0(after_walk *w, const CXCursor *aAnc, int nAnc) {
  for (int i = nAnc - 1; i >= 1; i--) {
    CXCursor f[3];
    if (kind(aAnc[i - 1]) == CXCursor_IfStmt && is_tid0_guard(w->t, aAnc[i - 1]) && kids(aAnc[i - 1], f, 3) >= 2 &&
        clang_equalCursors(f[1], aAnc[i]))
      return 1;
  }
  return 0;
}

static int after_visit(CXCursor c, const CXCursor *aAnc, int nAnc, void *pArg) {
  after_walk *w = pArg;
  if (kind(c) != CXCursor_DeclRefExpr || !clang_equalCursors(clang_getCursorReferenced(c), w->t->bufDecl)) return 0;
  int j = nAnc - 1;
  while (j >= 0 && (kind(aAnc[j]) == CXCursor_UnexposedExpr || kind(aAnc[j]) == CXCursor_ParenExpr)) j--;
  CXCursor b[2];
  if (j < 0 || kind(aAnc[j]) != CXCursor_ArraySubscriptExpr || kids(aAnc[j], b, 2) != 2 ||
      !is_const(b[1], 0)) {
    w->bBad = 1;
    w->zWhy = "uses the shared array after the tree other than reading element 0";
    return -1;
  }
  CXCursor sub = aAnc[j];
  int k = j - 1;
  while (k >= 0 && (kind(aAnc[k]) == CXCursor_UnexposedExpr || kind(aAnc[k]) == CXCursor_ParenExpr)) k--;
  if (k >= 0) {
    int e = kind(aAnc[k]);
    CXCursor x[2];
    if ((e == CXCursor_BinaryOperator || e == CXCursor_CompoundAssignOperator) && kids(aAnc[k], x, 2) == 2) {
      enum CXBinaryOperatorKind eB = clang_getCursorBinaryOperatorKind(aAnc[k]);
      if ((eB == CXBinaryOperator_Assign || (eB >= CXBinaryOperator_MulAssign && eB <= CXBinaryOperator_OrAssign)) &&
          clang_equalCursors(ks_rw_strip(x[0]), sub)) {
        w->bBad = 1;
        w->zWhy = "writes the shared array after the tree";
        return -1;
      }
    }
    if (e == CXCursor_UnaryOperator) {
      enum CXUnaryOperatorKind eU = clang_getCursorUnaryOperatorKind(aAnc[k]);
      if (eU != CXUnaryOperator_Plus && eU != CXUnaryOperator_Minus && eU != CXUnaryOperator_Not &&
          eU != CXUnaryOperator_LNot) {
        w->bBad = 1;
        w->zWhy = "changes or takes the address of the shared array's element 0 after the tree";
        return -1;
      }
    }
  }
  if (!under_tid0(w, aAnc, nAnc)) w->bUnguarded = 1;
  return 0;
}

/* The register form's r after the tree: only thread 0's holds the block's
 * result (as in the original, where the other threads stop part way), so
 * every use must sit under `if (tid == 0)`. */
static int reg_after_visit(CXCursor c, const CXCursor *aAnc, int nAnc, void *pArg) {
  after_walk *w = pArg;
  if (kind(c) != CXCursor_DeclRefExpr || !clang_equalCursors(clang_getCursorReferenced(c), w->t->regDecl)) return 0;
  if (under_tid0(w, aAnc, nAnc)) return 0;
  w->bBad = 1;
  w->zWhy = "uses the tree's register sum after the tree outside `if (tid == 0)`";
  return -1;
}

typedef struct assign_walk {
  CXCursor d;
  int bHit;
} assign_walk;

/* Is variable d assigned or incremented anywhere under c? */
static int assign_visit(CXCursor c, const CXCursor *aAnc, int nAnc, void *pArg) {
  (void)aAnc;
  (void)nAnc;
  assign_walk *w = pArg;
  CXCursor x[2];
  int e = kind(c);
  if ((e == CXCursor_BinaryOperator || e == CXCursor_CompoundAssignOperator) && kids(c, x, 2) == 2) {
    enum CXBinaryOperatorKind eB = clang_getCursorBinaryOperatorKind(c);
    if ((eB == CXBinaryOperator_Assign || (eB >= CXBinaryOperator_MulAssign && eB <= CXBinaryOperator_OrAssign)) &&
        ks_rw_is_ref_to(x[0], w->d))
      w->bHit = 1;
  } else if (e == CXCursor_UnaryOperator && kids(c, x, 2) == 1) {
    enum CXUnaryOperatorKind eU = clang_getCursorUnaryOperatorKind(c);
    if ((eU == CXUnaryOperator_PreInc || eU == CXUnaryOperator_PostInc || eU == CXUnaryOperator_PreDec ||
         eU == CXUnaryOperator_PostDec || eU == CXUnaryOperator_AddrOf) &&
        ks_rw_is_ref_to(x[0], w->d))
      w->bHit = 1;
  }
  return w->bHit ? -1 : 0;
}

static int apply_warp_reduce(ks_rewrite *p) {
  ks_tu *pTu = ks_rewrite_tu(p);
  const char *zKernel = ks_rewrite_kernel_name(p);
  CXCursor kernel = ks_ast_find_kernel(pTu, zKernel);
  CXCursor *aTop = NULL;
  int nTop = 0, rc = KS_OK, nL = 0, iTree = -1;
  ks_launch *aL = NULL;
  wr_tree t;
  ks_buf text = KS_BUF_INIT;
  unsigned iKs, iKe;
  memset(&t, 0, sizeof t);
  if (kind(kernel) != CXCursor_FunctionDecl) return ks_rewrite_refuse(p, "kernel '%s' is a template", zKernel);
  if (ks_ast_extent(pTu, kernel, &iKs, &iKe) < 0)
    return ks_rewrite_refuse(p, "kernel '%s' is not laid out in the main file", zKernel);
  if (ks_rewrite_has_note(p, iKs, iKe, NULL))
    return ks_rewrite_already(p, "the tree reduction of '%s' already ends with warp shuffles", zKernel);
  CXCursor body = ks_rw_body(kernel);
  if (clang_Cursor_isNull(body)) return ks_rewrite_refuse(p, "kernel '%s' has no body", zKernel);
  ks_rw_children(body, &aTop, &nTop);
  for (int i = 0; i < nTop && iTree < 0; i++) {
    if (match_tree(p, aTop[i], &t)) iTree = i;
    else tree_free(&t);
  }
  if (iTree < 0) {
    rc = ks_rewrite_refuse(p, "kernel '%s' has no shared-memory tree reduction this rule understands (a statement of "
                              "the kernel body: for (s = blockDim.x / 2 or a constant; s > 0; s >>= 1) { if (tid < s) "
                              "buf[tid] += buf[tid + s] (or fmaxf/fminf/max/min); __syncthreads(); })", zKernel);
    goto done;
  }
  unsigned iLine, iCol, iLs, iLe, iCs, iCe;
  ks_ast_extent(pTu, t.loop, &iLs, &iLe);
  ks_ast_line_col(pTu, iLs, &iLine, &iCol);
  if (ks_ast_extent(pTu, t.cond, &iCs, &iCe) < 0) {
    rc = ks_rewrite_refuse(p, "%s:%u: the tree loop's condition is not in the file", pTu->zFile, iLine);
    goto done;
  }
  if (t.nStart && (!is_pow2(t.nStart) || t.nStart < 32)) {
    rc = ks_rewrite_refuse(p, "%s:%u: the tree starts at s = %lld; this rule needs a power of two of at least 32 "
                              "(the last warp's six steps)", pTu->zFile, iLine, t.nStart);
    goto done;
  }
  /* tid really is threadIdx.x everywhere; the loop variable is only the loop's. */
  if (!clang_Cursor_isNull(t.tidDecl)) {
    assign_walk w = {t.tidDecl, 0};
    ks_rw_walk(body, assign_visit, &w);
    if (w.bHit) {
      rc = ks_rewrite_refuse(p, "kernel '%s' changes '%s' after setting it to threadIdx.x", zKernel, t.zTid);
      goto done;
    }
  }
  /* After the tree: only reads of buf[0]. */
  after_walk aw = {pTu, &t, 0, 0, NULL};
  for (int i = iTree + 1; i < nTop && !aw.bBad; i++) {
    ks_rw_walk(aTop[i], after_visit, &aw);
    if (t.zReg && !aw.bBad) ks_rw_walk(aTop[i], reg_after_visit, &aw);
  }
  if (aw.bBad) {
    rc = ks_rewrite_refuse(p, "kernel '%s' %s: the warp steps leave only element 0 as the tree did", zKernel,
                           aw.zWhy);
    goto done;
  }
  /* The block size, from every launch in the file. */
  if ((rc = ks_ast_launches(pTu, zKernel, &aL, &nL)) < 0) goto done;
  if (nL == 0) {
    rc = ks_rewrite_refuse(p, "no launch of '%s' in this file: its block size must be known to be a multiple of 32 "
                              "(__launch_bounds__ only bounds it)", zKernel);
    goto done;
  }
  for (int i = 0; i < nL; i++) {
    long long nB = 0;
    if (!ks_rw_launch_block_scalar(pTu, &aL[i], &nB) || nB <= 0) {
      rc = ks_rewrite_refuse(p, "%s:%u: the block size of this launch of '%s' is not a constant number of threads",
                             pTu->zFile, aL[i].iLine, zKernel);
      goto done;
    }
    if (nB % 32 != 0) {
      rc = ks_rewrite_refuse(p, "%s:%u: block of %lld threads is not a multiple of 32", pTu->zFile, aL[i].iLine, nB);
      goto done;
    }
    if (t.nStart == 0 && (!is_pow2(nB) || nB < 64)) {
      rc = ks_rewrite_refuse(p, "%s:%u: the tree starts at blockDim.x / 2 and the block of %lld threads is not a power "
                                "of two of at least 64", pTu->zFile, aL[i].iLine, nB);
      goto done;
    }
  }
  for (int i = 0; i < clang_Cursor_getNumArguments(kernel); i++) {
    char *z = ks_rw_spelling(clang_Cursor_getArgument(kernel, (unsigned)i));
    int bClash = z && strncmp(z, "ks_", 3) == 0;
    free(z);
    if (bClash) {
      rc = ks_rewrite_refuse(p, "a parameter of '%s' starts with ks_ (names this rule uses)", zKernel);
      goto done;
    }
  }

  /* Edits: the loop stops above the last warp; the warp finishes with shuffles. */
  ks_buf_clear(&text);
  if ((rc = ks_buf_printf(&text, "%s > 32", t.zS)) < 0) goto done;
  if ((rc = ks_rewrite_replace(p, iCs, iCe, text.z)) < 0) goto done;
  if ((rc = ks_rewrite_note(p, iLs, "the tree stops at the last warp; barriers for s = 32 .. 1 dropped")) < 0)
    goto done;
  unsigned nIndent;
  unsigned iLine0 = ks_rewrite_line_start(p, iLs, &nIndent);
  char zI[64];
  snprintf(zI, sizeof zI, "%.*s", (int)(nIndent < 60 ? nIndent : 60), pTu->zSrc + iLine0);
  char zComb32[512], zCombO[512];
  const char *zO = "__shfl_down_sync(0xffffffffu, ks_v, ks_o)";
  char zB32[256];
  snprintf(zB32, sizeof zB32, "%s[%s + 32]", t.zBuf, t.zTid);
  if (t.eOp == OP_SUM) {
    snprintf(zComb32, sizeof zComb32, t.bSwap ? "ks_v = %s + ks_v;" : "ks_v += %s;", zB32);
    snprintf(zCombO, sizeof zCombO, t.bSwap ? "ks_v = %s + ks_v;" : "ks_v += %s;", zO);
  } else {
    if (t.bSwap) {
      snprintf(zComb32, sizeof zComb32, "ks_v = %s(%s, ks_v);", t.zFn, zB32);
      snprintf(zCombO, sizeof zCombO, "ks_v = %s(%s, ks_v);", t.zFn, zO);
    } else {
      snprintf(zComb32, sizeof zComb32, "ks_v = %s(ks_v, %s);", t.zFn, zB32);
      snprintf(zCombO, sizeof zCombO, "ks_v = %s(ks_v, %s);", t.zFn, zO);
    }
  }
  char *zNote = ks_rewrite_note_text(p, aw.bUnguarded ? "the last warp by __shfl_down_sync, one barrier for the "
                                                         "readers of element 0"
                                                       : "the last warp by __shfl_down_sync, no barriers");
  if (!zNote) {
    rc = ks_error_set(KS_ENOMEM, "out of memory");
    goto done;
  }
  ks_buf_clear(&text);
  char zRegSet[160] = "";
  if (t.zReg) snprintf(zRegSet, sizeof zRegSet, " %s = ks_v; }", t.zReg); /* thread 0's register sum, as the tree left it */
  rc = ks_buf_printf(&text,
                     "\n%s%s\n"
                     "%sif (%s < 32) {\n"
                     "%s  %s ks_v = %s[%s];\n"
                     "%s  %s\n"
                     "%s  for (int ks_o = 16; ks_o > 0; ks_o >>= 1) %s\n"
                     "%s  if (%s == 0)%s %s[0] = ks_v;%s\n"
                     "%s}",
                     zI, zNote, zI, t.zTid, zI, t.zElem, t.zBuf, t.zTid, zI, zComb32, zI, zCombO, zI, t.zTid,
                     t.zReg ? " {" : "", t.zBuf, t.zReg ? zRegSet : "", zI);

  free(zNote);
  if (rc >= 0 && aw.bUnguarded) rc = ks_buf_printf(&text, "\n%s__syncthreads();", zI);
  if (rc < 0) goto done;
  if ((rc = ks_rewrite_replace(p, ks_rw_after_stmt(pTu, iLe), ks_rw_after_stmt(pTu, iLe), text.z)) < 0) goto done;
done:
  tree_free(&t);
  free(aTop);
  ks_ast_launches_free(aL, nL);
  ks_buf_free(&text);
  return rc;
}

const ks_rule ks_rule_warp_reduce = {
    "warp-reduce",
    "shared-memory tree reduction finishes with __shfl_down_sync in the last warp (+, max, min), dropping its barriers",
    NULL, apply_warp_reduce};
