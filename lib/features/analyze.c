/* analyze.c — static analysis of one __global__ kernel over the libclang AST:
 * parameters, loops, global accesses and how their index depends on threadIdx.x
 * (a small affine analysis), shared memory, sync, math, control and the
 * structure classes the planner reads. Heuristics are documented field by field
 * in docs/features.md; when in doubt a pattern is reported as `unknown`. */
#include "features/analyze.h"

#include <stdlib.h>
#include <string.h>

/* ---------- small utilities ---------- */

static char *cx_dup(CXString s) {
  const char *z = clang_getCString(s);
  char *zCopy = ks_strdup(z ? z : "");
  clang_disposeString(s);
  return zCopy;
}

static int spelled(CXCursor c, const char *zName) {
  CXString s = clang_getCursorSpelling(c);
  int b = strcmp(clang_getCString(s), zName) == 0;
  clang_disposeString(s);
  return b;
}

/* Look through parentheses and implicit/explicit casts. */
static CXCursor strip(CXCursor c) {
  for (;;) {
    enum CXCursorKind e = clang_getCursorKind(c);
    if (e != CXCursor_UnexposedExpr && e != CXCursor_ParenExpr && e != CXCursor_CStyleCastExpr &&
        e != CXCursor_CXXStaticCastExpr && e != CXCursor_CXXReinterpretCastExpr &&
        e != CXCursor_CXXConstCastExpr && e != CXCursor_CXXFunctionalCastExpr)
      return c;
    ks_ast_kids k;
    ks_ast_kids_get(c, &k);
    /* A cast's children may include its type reference; take the expression. */
    int iExpr = -1;
    for (int i = 0; i < k.n; i++) {
      enum CXCursorKind ek = clang_getCursorKind(k.a[i]);
      if (clang_isExpression(ek)) iExpr = i;
    }
    if (iExpr < 0) return c;
    c = k.a[iExpr];
  }
}

static int push_count(ks_count **pa, int *pn, const char *zName) {
  for (int i = 0; i < *pn; i++)
    if (strcmp((*pa)[i].zName, zName) == 0) {
      (*pa)[i].n++;
      return KS_OK;
    }
  ks_count *a = realloc(*pa, sizeof(ks_count) * (size_t)(*pn + 1));
  if (!a) return ks_error_set(KS_ENOMEM, "out of memory");
  *pa = a;
  a[*pn].zName = ks_strdup(zName);
  a[*pn].n = 1;
  (*pn)++;
  return a[*pn - 1].zName ? KS_OK : KS_ENOMEM;
}

/* Grow arr by one zeroed element; on failure record KS_ENOMEM in pC and return. */
#define GROW(pC, arr, n, type)                                                \
  do {                                                                        \
    type *aNew_ = realloc((arr), sizeof(type) * (size_t)((n) + 1));           \
    if (!aNew_) {                                                             \
      (pC)->rc = ks_error_set(KS_ENOMEM, "out of memory");                    \
      return;                                                                 \
    }                                                                         \
    (arr) = aNew_;                                                            \
    memset(&(arr)[(n)], 0, sizeof(type));                                     \
  } while (0)

/* ---------- index classification (affine in threadIdx.x) ---------- */

enum { FORM_AFFINE = 0, FORM_SYMBOLIC, FORM_NONLINEAR };

typedef struct ks_cls {
  int eForm;       /* AFFINE: coefficient known; SYMBOLIC: nonzero unknown coefficient */
  long long coef;  /* coefficient of threadIdx.x when AFFINE */
  int bTid;        /* depends on threadIdx (any dimension) */
  int bIndirect;   /* depends on a memory load */
} ks_cls;

static const ks_cls CLS_UNIFORM = {FORM_AFFINE, 0, 0, 0};

static int cls_xdep(ks_cls c) { return c.eForm != FORM_AFFINE || c.coef != 0; }

static ks_cls cls_join_flags(ks_cls a, ks_cls b, ks_cls r) {
  r.bTid = a.bTid || b.bTid;
  r.bIndirect = a.bIndirect || b.bIndirect;
  return r;
}

/* A variable's classification, keyed by its declaration cursor. */
typedef struct var_cls {
  CXCursor decl;
  ks_cls cls;
  CXCursor init;   /* its initializer, or a null cursor */
  int iAliasParam; /* a local pointer into a parameter: which one, else -1 */
  int bShared;     /* a __shared__ array */
} var_cls;

typedef struct actx {
  ks_tu *pTu;
  ks_kernel *pK;
  CXCursor aParamDecl[64];
  var_cls *aVar;
  int nVar;
  int aLoopStack[32];
  int nLoopDepth;
  int nProduct;  /* ids for `x * y` products */
  int iProduct;  /* current product id while visiting its operands */
  int iSharedProduct, nSharedInProduct; /* shared-memory operands of a product */
  int nDepth;      /* walk()/classify() nesting: bounded by ANALYZE_MAX_DEPTH */
  int bTruncated;  /* something nested deeper than that was not looked at */
  const ks_shape *pShape; /* the kernel's shape model, built before the walk */
  int rc;
} actx;

/* The walks recurse through libclang's visitor; a body nested thousands of
 * levels deep (generated code) must give a partial model, not a stack
 * overflow. */
#define ANALYZE_MAX_DEPTH 256

static var_cls *find_var(actx *pC, CXCursor decl) {
  for (int i = pC->nVar - 1; i >= 0; i--)
    if (clang_equalCursors(pC->aVar[i].decl, decl)) return &pC->aVar[i];
  return NULL;
}

static int param_index(actx *pC, CXCursor decl) {
  for (int i = 0; i < pC->pK->nParam && i < 64; i++)
    if (clang_equalCursors(pC->aParamDecl[i], decl)) return i;
  return -1;
}

static int eval_int(CXCursor c, long long *pv) { return ks_ast_const_int(c, pv); }

/* threadIdx / blockIdx / blockDim / gridDim reads come from shape.h's one
 * recognizer (ks_shape_builtin), so the Feature Extractor and the rules agree
 * on what a built-in is, through macros and parentheses alike. */

static ks_cls classify(actx *pC, CXCursor c);

static ks_cls classify_kids_union(actx *pC, CXCursor c) {
  ks_ast_kids k;
  ks_ast_kids_get(c, &k);
  ks_cls r = CLS_UNIFORM;
  for (int i = 0; i < k.n; i++) {
    ks_cls ci = classify(pC, k.a[i]);
    r = cls_join_flags(r, ci, r);
    if (cls_xdep(ci)) r.eForm = FORM_NONLINEAR;
  }
  return r;
}

static ks_cls classify_inner(actx *pC, CXCursor c);

static ks_cls classify(actx *pC, CXCursor c) {
  if (pC->nDepth >= ANALYZE_MAX_DEPTH) {
    pC->bTruncated = 1;
    ks_cls r = {FORM_NONLINEAR, 0, 0, 0};
    return r;
  }
  pC->nDepth++;
  ks_cls r = classify_inner(pC, c);
  pC->nDepth--;
  return r;
}

static ks_cls classify_inner(actx *pC, CXCursor c) {
  c = strip(c);
  enum CXCursorKind e = clang_getCursorKind(c);
  ks_cls r = CLS_UNIFORM;
  switch (e) {
  case CXCursor_IntegerLiteral:
  case CXCursor_FloatingLiteral:
  case CXCursor_CharacterLiteral:
  case CXCursor_CXXBoolLiteralExpr:
  case CXCursor_SizeOfPackExpr:
    return r;
  case CXCursor_MemberRefExpr: {
    int iDim = -1, eB = ks_shape_builtin(c, &iDim);
    if (eB == KS_ATOM_TID) {
      r.bTid = 1;
      if (iDim == 0) r.coef = 1;
      return r;
    }
    if (eB >= 0) return r; /* blockIdx, blockDim, gridDim: the same for a warp's threads */
    return classify_kids_union(pC, c);
  }
  case CXCursor_DeclRefExpr: {
    CXCursor decl = clang_getCursorReferenced(c);
    var_cls *pV = find_var(pC, decl);
    if (pV) return pV->cls;
    return r; /* parameters, constants, globals: the same for every thread */
  }
  case CXCursor_ArraySubscriptExpr: {
    r = classify_kids_union(pC, c);
    r.eForm = cls_xdep(r) ? FORM_NONLINEAR : FORM_AFFINE;
    r.coef = 0;
    r.bIndirect = 1;
    return r;
  }
  case CXCursor_UnaryOperator: {
    enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(c);
    ks_ast_kids k;
    ks_ast_kids_get(c, &k);
    if (k.n < 1) return r;
    ks_cls a = classify(pC, k.a[0]);
    if (op == CXUnaryOperator_Deref) {
      a.bIndirect = 1;
      if (cls_xdep(a)) a.eForm = FORM_NONLINEAR;
      a.coef = 0;
      return a;
    }
    if (op == CXUnaryOperator_Minus) {
      a.coef = -a.coef;
      return a;
    }
    if (op == CXUnaryOperator_Plus || op == CXUnaryOperator_PreInc || op == CXUnaryOperator_PostInc ||
        op == CXUnaryOperator_PreDec || op == CXUnaryOperator_PostDec)
      return a;
    if (cls_xdep(a)) a.eForm = FORM_NONLINEAR;
    return a;
  }
  case CXCursor_BinaryOperator:
  case CXCursor_CompoundAssignOperator: {
    enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(c);
    ks_ast_kids k;
    ks_ast_kids_get(c, &k);
    if (k.n < 2) return r;
    ks_cls a = classify(pC, k.a[0]), b = classify(pC, k.a[1]);
    r = cls_join_flags(a, b, r);
    switch (op) {
    case CXBinaryOperator_Add:
    case CXBinaryOperator_Sub:
    case CXBinaryOperator_AddAssign:
    case CXBinaryOperator_SubAssign: {
      int bSub = op == CXBinaryOperator_Sub || op == CXBinaryOperator_SubAssign;
      if (a.eForm == FORM_NONLINEAR || b.eForm == FORM_NONLINEAR) r.eForm = FORM_NONLINEAR;
      else if (a.eForm == FORM_AFFINE && b.eForm == FORM_AFFINE) r.coef = bSub ? a.coef - b.coef : a.coef + b.coef;
      else r.eForm = FORM_SYMBOLIC;
      return r;
    }
    case CXBinaryOperator_Mul:
    case CXBinaryOperator_MulAssign:
    case CXBinaryOperator_Shl:
    case CXBinaryOperator_ShlAssign: {
      int bShift = op == CXBinaryOperator_Shl || op == CXBinaryOperator_ShlAssign;
      if (cls_xdep(a) && cls_xdep(b)) {
        r.eForm = FORM_NONLINEAR;
        return r;
      }
      ks_cls dep = cls_xdep(a) ? a : b;
      CXCursor other = cls_xdep(a) ? k.a[1] : k.a[0];
      if (!cls_xdep(dep)) return r; /* uniform * uniform */
      if (bShift && !cls_xdep(a) ) { /* uniform << tid: not affine */
        r.eForm = FORM_NONLINEAR;
        return r;
      }
      long long v;
      if (dep.eForm == FORM_AFFINE && eval_int(other, &v)) {
        r.eForm = FORM_AFFINE;
        r.coef = bShift ? dep.coef * (1LL << (v & 31)) : dep.coef * v;
      } else {
        r.eForm = dep.eForm == FORM_NONLINEAR ? FORM_NONLINEAR : FORM_SYMBOLIC;
      }
      return r;
    }
    case CXBinaryOperator_Assign:
      return b;
    case CXBinaryOperator_Comma:
      return b;
    case CXBinaryOperator_Rem:
    case CXBinaryOperator_Div: {
      /* A flat index split into 2-D coordinates, `i % n` and `i / n`, with n
       * the same for every thread: the 32 consecutive indices of a warp
       * straddle a multiple of n at most once when n >= 32, so across a warp
       * `i % n` steps like i and `i / n` is uniform. A constant n that is
       * small or not a multiple of 32 wraps inside the warp: not affine. */
      long long v;
      if (cls_xdep(a) && a.eForm != FORM_NONLINEAR && !cls_xdep(b) && !b.bIndirect &&
          (!eval_int(k.a[1], &v) || (v >= 32 && v % 32 == 0))) {
        if (op == CXBinaryOperator_Rem) {
          r.eForm = a.eForm;
          r.coef = a.coef;
        } else {
          r.eForm = FORM_AFFINE;
          r.coef = 0;
        }
        return r;
      }
      if (cls_xdep(a) || cls_xdep(b)) r.eForm = FORM_NONLINEAR;
      return r;
    }
    default:
      /* Division, modulo, shifts right, bit ops, comparisons: not affine in x. */
      if (cls_xdep(a) || cls_xdep(b)) r.eForm = FORM_NONLINEAR;
      return r;
    }
  }
  case CXCursor_ConditionalOperator: {
    ks_ast_kids k;
    ks_ast_kids_get(c, &k);
    r = classify_kids_union(pC, c);
    if (k.n == 3) {
      ks_cls a = classify(pC, k.a[1]), b = classify(pC, k.a[2]);
      if (!cls_xdep(classify(pC, k.a[0])) && a.eForm == b.eForm && a.coef == b.coef) {
        a = cls_join_flags(a, b, a);
        a.bTid = r.bTid;
        a.bIndirect = r.bIndirect;
        return a;
      }
    }
    return r;
  }
  default:
    return classify_kids_union(pC, c);
  }
}

static ks_pattern cls_pattern(ks_cls c) {
  if (c.bIndirect) return KS_PAT_INDIRECT;
  if (c.eForm == FORM_NONLINEAR) return KS_PAT_UNKNOWN;
  if (c.eForm == FORM_SYMBOLIC) return KS_PAT_STRIDED;
  if (c.coef == 0) return KS_PAT_UNIFORM;
  if (c.coef == 1 || c.coef == -1) return KS_PAT_CONTIGUOUS;
  return KS_PAT_STRIDED;
}

const char *ks_pattern_name(ks_pattern e) {
  static const char *const az[] = {"uniform", "contiguous", "strided", "indirect", "unknown"};
  return az[e];
}

/* ---------- names we recognize ---------- */

static const char *const azTranscendental[] = {
    "expf", "exp", "exp2f", "exp2", "exp10f", "exp10", "expm1f", "expm1", "logf", "log", "log2f", "log2",
    "log10f", "log10", "log1pf", "log1p", "powf", "pow", "sinf", "sin", "cosf", "cos", "tanf", "tan",
    "sincosf", "sincos", "tanhf", "tanh", "sinhf", "sinh", "coshf", "cosh", "asinf", "asin", "acosf", "acos",
    "atanf", "atan", "atan2f", "atan2", "erff", "erf", "erfcf", "erfc", "cbrtf", "cbrt", "sinpif", "cospif",
    "normcdff", "lgammaf", "tgammaf", 0};
static const char *const azVector[] = {"char2", "char4", "uchar2", "uchar4", "short2", "short4", "int2", "int4",
                                       "uint2", "uint4", "long2", "longlong2", "float2", "float4", "double2",
                                       "half2", "__half2", "__nv_bfloat162", "float3", "int3", 0};

static int in_list(const char *const *az, const char *z) {
  for (int i = 0; az[i]; i++)
    if (strcmp(az[i], z) == 0) return 1;
  return 0;
}

static int starts_with(const char *z, const char *zPrefix) { return strncmp(z, zPrefix, strlen(zPrefix)) == 0; }

/* ---------- the walk ---------- */

enum { MODE_LOAD = 0, MODE_STORE, MODE_RMW, MODE_ATOMIC, MODE_ADDR };

static void walk(actx *pC, CXCursor c, int eMode);

typedef struct walk_arg {
  actx *pC;
  int eMode;
} walk_arg;

static enum CXChildVisitResult walk_cb(CXCursor c, CXCursor parent, CXClientData pData) {
  (void)parent;
  walk_arg *pA = pData;
  walk(pA->pC, c, pA->eMode);
  return pA->pC->rc < 0 ? CXChildVisit_Break : CXChildVisit_Continue;
}

static void walk_kids(actx *pC, CXCursor c, int eMode) {
  walk_arg a = {pC, eMode};
  clang_visitChildren(c, walk_cb, &a);
}

/* The global pointer parameter an expression's base refers to, or -1. */
static int base_param(actx *pC, CXCursor base, int *pbShared) {
  base = strip(base);
  *pbShared = 0;
  enum CXCursorKind e = clang_getCursorKind(base);
  if (e == CXCursor_DeclRefExpr) {
    CXCursor decl = clang_getCursorReferenced(base);
    int i = param_index(pC, decl);
    if (i >= 0) return pC->pK->aParam[i].bPointer ? i : -1;
    var_cls *pV = find_var(pC, decl);
    if (pV) {
      *pbShared = pV->bShared;
      return pV->iAliasParam;
    }
    return -1;
  }
  if (e == CXCursor_BinaryOperator) { /* p + offset */
    ks_ast_kids k;
    ks_ast_kids_get(base, &k);
    if (k.n == 2) {
      int i = base_param(pC, k.a[0], pbShared);
      if (i >= 0 || *pbShared) return i;
      return base_param(pC, k.a[1], pbShared);
    }
  }
  return -1;
}

/* Does expression c use variable zVar, directly or through the initializers of
 * the locals it reads (yy = min(y + dy, H - 1) depends on dy)? */
typedef struct dep_find {
  actx *pC;
  const char *zVar;
  int nDepth;
  int bFound;
} dep_find;

static enum CXChildVisitResult dep_cb(CXCursor c, CXCursor parent, CXClientData pData) {
  (void)parent;
  dep_find *pF = pData;
  if (clang_getCursorKind(c) != CXCursor_DeclRefExpr) return CXChildVisit_Recurse;
  if (spelled(c, pF->zVar)) {
    pF->bFound = 1;
    return CXChildVisit_Break;
  }
  var_cls *pV = find_var(pF->pC, clang_getCursorReferenced(c));
  if (pV && !clang_Cursor_isNull(pV->init) && pF->nDepth < 4) {
    pF->nDepth++;
    clang_visitChildren(pV->init, dep_cb, pF);
    if (!pF->bFound) dep_cb(pV->init, pV->init, pF);
    pF->nDepth--;
    if (pF->bFound) return CXChildVisit_Break;
  }
  return CXChildVisit_Continue;
}

static int depends_on(actx *pC, CXCursor c, const char *zVar) {
  if (!zVar || clang_Cursor_isNull(c)) return 0;
  dep_find f = {pC, zVar, 0, 0};
  if (dep_cb(c, c, &f) == CXChildVisit_Break || f.bFound) return 1;
  clang_visitChildren(c, dep_cb, &f);
  return f.bFound;
}

/* a + b for two classifications (the address of base[index]). */
static ks_cls cls_add(ks_cls a, ks_cls b) {
  ks_cls r = cls_join_flags(a, b, CLS_UNIFORM);
  if (a.eForm == FORM_NONLINEAR || b.eForm == FORM_NONLINEAR) r.eForm = FORM_NONLINEAR;
  else if (a.eForm == FORM_AFFINE && b.eForm == FORM_AFFINE) r.coef = a.coef + b.coef;
  else r.eForm = FORM_SYMBOLIC;
  return r;
}

/* Record a global access base[index]. The pattern is that of the whole
 * address: a local row pointer (xr = x + r * cols) carries its offset. */
static void record_access(actx *pC, int iParam, CXCursor expr, CXCursor base, CXCursor index, int eMode) {
  ks_kernel *pK = pC->pK;
  if (eMode == MODE_ADDR) return; /* &a[i] passed somewhere: not an access here */
  ks_access_kind eKind = eMode == MODE_ATOMIC ? KS_ACC_ATOMIC : eMode == MODE_STORE ? KS_ACC_STORE : KS_ACC_LOAD;
  int nRecords = eMode == MODE_RMW ? 2 : 1;
  ks_cls cls = clang_Cursor_isNull(index) ? CLS_UNIFORM : classify(pC, index);
  if (!clang_Cursor_isNull(base)) cls = cls_add(classify(pC, base), cls);
  for (int r = 0; r < nRecords; r++) {
    if (r == 1) eKind = KS_ACC_STORE;
    GROW(pC, pK->aAccess, pK->nAccess, ks_access);
    ks_access *pA = &pK->aAccess[pK->nAccess++];
    pA->iParam = iParam;
    pA->eKind = eKind;
    pA->ePattern = cls_pattern(cls);
    pA->bThreadDep = cls.bTid;
    pA->iLoop = pC->nLoopDepth > 0 ? pC->aLoopStack[pC->nLoopDepth - 1] : -1;
    /* Which enclosing loops' variables the index uses. */
    for (int d = 0; d < pC->nLoopDepth && d < 32; d++) {
      ks_loop *pL = &pK->aLoop[pC->aLoopStack[d]];
      if (depends_on(pC, index, pL->zVar)) {
        if (d == pC->nLoopDepth - 1) pA->bUsesLoopVar = 1;
        if (pL->nTrip > 0 && pL->nTrip <= 16) pA->bUsesSmallLoopVar = 1;
      }
    }
    pA->iProduct = eKind == KS_ACC_LOAD ? pC->iProduct : 0;
    long iOff = ks_ast_offset(pC->pTu, clang_getCursorLocation(expr));
    if (iOff >= 0) ks_ast_line_col(pC->pTu, (unsigned)iOff, &pA->iLine, NULL);
    pA->zIndex = clang_Cursor_isNull(index) ? ks_strdup("0") : ks_ast_text(pC->pTu, index);
    if (!pA->zIndex) pA->zIndex = ks_strdup("?");
    /* Shape: the index with digits and spaces dropped, so x[i-1] ~ x[i+1]. */
    size_t n = strlen(pA->zIndex);
    pA->zShape = malloc(n + 1);
    if (pA->zShape) {
      size_t j = 0;
      for (size_t i = 0; i < n; i++) {
        char ch = pA->zIndex[i];
        if (ch == ' ' || ch == '\t' || ch == '\n' || (ch >= '0' && ch <= '9') || ch == '+' || ch == '-') continue;
        pA->zShape[j++] = ch;
      }
      pA->zShape[j] = 0;
    }
    ks_param *pP = &pK->aParam[iParam];
    if (eKind == KS_ACC_LOAD) pP->nLoads++;
    else if (eKind == KS_ACC_STORE) pP->nStores++;
    else pP->nAtomics++;
  }
}

/* Is there a `#pragma unroll` on the line(s) just above offset iOff? */
static int pragma_unroll_above(ks_tu *pTu, unsigned iOff) {
  const char *z = pTu->zSrc;
  long i = (long)iOff;
  while (i > 0 && z[i - 1] != '\n') i--; /* start of the loop's line */
  /* Look at up to two previous non-blank lines. */
  for (int nLines = 0; nLines < 2 && i > 0; nLines++) {
    long iEnd = i - 1;
    long iStart = iEnd;
    while (iStart > 0 && z[iStart - 1] != '\n') iStart--;
    long j = iStart;
    while (j < iEnd && (z[j] == ' ' || z[j] == '\t')) j++;
    if (j == iEnd) { /* blank line */
      i = iStart;
      nLines--;
      if (iStart == 0) break;
      continue;
    }
    if (strncmp(z + j, "#pragma", 7) == 0) {
      const char *zRest = z + j + 7;
      while (*zRest == ' ' || *zRest == '\t') zRest++;
      if (strncmp(zRest, "unroll", 6) == 0) return 1;
      i = iStart;
      continue;
    }
    break;
  }
  return 0;
}

static enum CXChildVisitResult find_call_cb(CXCursor c, CXCursor parent, CXClientData pData) {
  (void)parent;
  const char **pz = pData;
  if (clang_getCursorKind(c) == CXCursor_CallExpr && spelled(c, *pz)) {
    *pz = NULL;
    return CXChildVisit_Break;
  }
  return CXChildVisit_Recurse;
}

static int contains_call(CXCursor c, const char *zName) {
  const char *z = zName;
  clang_visitChildren(c, find_call_cb, &z);
  return z == NULL;
}

static enum CXChildVisitResult find_member_cb(CXCursor c, CXCursor parent, CXClientData pData) {
  (void)parent;
  const char **az = pData;
  if (clang_getCursorKind(c) == CXCursor_DeclRefExpr) {
    for (int i = 0; i < 2; i++)
      if (az[i] && spelled(c, az[i])) az[i] = NULL;
  }
  return CXChildVisit_Recurse;
}

static char *decl_name_of_lhs(CXCursor lhs) {
  lhs = strip(lhs);
  if (clang_getCursorKind(lhs) != CXCursor_DeclRefExpr) return NULL;
  return cx_dup(clang_getCursorSpelling(lhs));
}

/* Fill the loop's induction variable, trip count, step kind from its header. */
static void analyze_loop_header(CXCursor c, ks_loop *pL, ks_ast_kids *pK) {
  long long nStart = 0, nEnd = 0, nStep = 0;
  int bStart = 0, bEnd = 0, bStep = 0, bInclusive = 0, bDown = 0;
  for (int i = 0; i + 1 < pK->n; i++) { /* the last child is the body */
    CXCursor k = pK->a[i];
    enum CXCursorKind e = clang_getCursorKind(k);
    if (e == CXCursor_DeclStmt) {
      ks_ast_kids d;
      ks_ast_kids_get(k, &d);
      if (d.n >= 1 && clang_getCursorKind(d.a[0]) == CXCursor_VarDecl) {
        free(pL->zVar);
        pL->zVar = cx_dup(clang_getCursorSpelling(d.a[0]));
        ks_ast_kids v;
        ks_ast_kids_get(d.a[0], &v);
        if (v.n >= 1) bStart = eval_int(v.a[v.n - 1], &nStart);
      }
    } else if (e == CXCursor_BinaryOperator || e == CXCursor_CompoundAssignOperator) {
      enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(k);
      ks_ast_kids b;
      ks_ast_kids_get(k, &b);
      if (b.n < 2) continue;
      if (op == CXBinaryOperator_LT || op == CXBinaryOperator_LE || op == CXBinaryOperator_GT ||
          op == CXBinaryOperator_GE || op == CXBinaryOperator_NE) {
        bEnd = eval_int(b.a[1], &nEnd);
        bInclusive = op == CXBinaryOperator_LE || op == CXBinaryOperator_GE;
        bDown = op == CXBinaryOperator_GT || op == CXBinaryOperator_GE;
        if (!pL->zVar) pL->zVar = decl_name_of_lhs(b.a[0]);
      } else if (op == CXBinaryOperator_Assign && i == 0) {
        if (!pL->zVar) pL->zVar = decl_name_of_lhs(b.a[0]);
        bStart = eval_int(b.a[1], &nStart);
      } else if (op == CXBinaryOperator_AddAssign || op == CXBinaryOperator_SubAssign) {
        bStep = eval_int(b.a[1], &nStep);
        if (op == CXBinaryOperator_SubAssign) nStep = -nStep;
      } else if (op == CXBinaryOperator_ShrAssign || op == CXBinaryOperator_DivAssign ||
                 op == CXBinaryOperator_ShlAssign || op == CXBinaryOperator_MulAssign) {
        long long v;
        if (eval_int(b.a[1], &v) &&
            (((op == CXBinaryOperator_ShrAssign || op == CXBinaryOperator_ShlAssign) && v == 1) || v == 2))
          pL->bHalving = 1;
      } else if (op == CXBinaryOperator_Assign) {
        /* i = i + c, s = s / 2 ... */
        ks_ast_kids r;
        ks_ast_kids_get(strip(b.a[1]), &r);
        enum CXBinaryOperatorKind op2 = clang_getCursorBinaryOperatorKind(strip(b.a[1]));
        if (r.n == 2 && (op2 == CXBinaryOperator_Div || op2 == CXBinaryOperator_Shr || op2 == CXBinaryOperator_Mul ||
                         op2 == CXBinaryOperator_Shl)) {
          long long v;
          if (eval_int(r.a[1], &v) && (v == 2 || v == 1)) pL->bHalving = 1;
        } else if (r.n == 2 && op2 == CXBinaryOperator_Add) {
          bStep = eval_int(r.a[1], &nStep);
        }
      }
    } else if (e == CXCursor_UnaryOperator) {
      enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(k);
      if (op == CXUnaryOperator_PostInc || op == CXUnaryOperator_PreInc) nStep = 1, bStep = 1;
      if (op == CXUnaryOperator_PostDec || op == CXUnaryOperator_PreDec) nStep = -1, bStep = 1;
    }
  }
  pL->nTrip = -1;
  if (bStart && bEnd && bStep && nStep != 0 && clang_getCursorKind(c) == CXCursor_ForStmt) {
    long long nSpan = bDown ? nStart - nEnd : nEnd - nStart;
    long long nAbs = nStep < 0 ? -nStep : nStep;
    if (bInclusive) nSpan += 1;
    if ((nStep > 0) == !bDown) pL->nTrip = nSpan <= 0 ? 0 : (nSpan + nAbs - 1) / nAbs;
  }
}

static int loop_accumulates(actx *pC, CXCursor body);

static void walk_loop(actx *pC, CXCursor c) {
  ks_kernel *pK = pC->pK;
  if (pC->rc < 0) return;
  GROW(pC, pK->aLoop, pK->nLoop, ks_loop);
  int iLoop = pK->nLoop++;
  ks_loop *pL = &pK->aLoop[iLoop];
  memset(pL, 0, sizeof *pL);
  enum CXCursorKind e = clang_getCursorKind(c);
  pL->zKind = e == CXCursor_ForStmt ? "for" : e == CXCursor_WhileStmt ? "while" : "do";
  pL->iDepth = pC->nLoopDepth + 1;
  long iOff = ks_ast_offset(pC->pTu, clang_getCursorLocation(c));
  if (iOff >= 0) {
    ks_ast_line_col(pC->pTu, (unsigned)iOff, &pL->iLine, NULL);
    pL->bPragmaUnroll = pragma_unroll_above(pC->pTu, (unsigned)iOff);
  }
  ks_ast_kids k;
  ks_ast_kids_get(c, &k);
  if (e == CXCursor_ForStmt) analyze_loop_header(c, pL, &k);
  else pL->nTrip = -1;
  /* Grid-stride or not is the kernel-shape model's call (steps through
   * temporaries and casts), so the features and the rules agree. */
  for (int i = 0; pC->pShape && i < pC->pShape->nLoop; i++)
    if (clang_equalCursors(pC->pShape->aLoop[i].cursor, c)) pL->bGridStride = pC->pShape->aLoop[i].bGridStride;
  if (pL->bGridStride) pK->bGridStride = 1;
  if (k.n > 0) {
    CXCursor body = e == CXCursor_DoStmt ? k.a[0] : k.a[k.n - 1];
    pL->bAccumulates = loop_accumulates(pC, body);
    pL->bHasSync = contains_call(body, "__syncthreads");
  }
  if (pC->nLoopDepth < 32) pC->aLoopStack[pC->nLoopDepth] = iLoop;
  pC->nLoopDepth++;
  walk_kids(pC, c, MODE_LOAD);
  pC->nLoopDepth--;
}

/* Does the body accumulate into a scalar local: s += ..., s = s op ..., s = fmaxf(s, ...)? */
typedef struct acc_find {
  actx *pC;
  int bFound;
} acc_find;

static enum CXChildVisitResult acc_cb(CXCursor c, CXCursor parent, CXClientData pData) {
  (void)parent;
  acc_find *pF = pData;
  enum CXCursorKind e = clang_getCursorKind(c);
  if (e == CXCursor_CompoundAssignOperator || e == CXCursor_BinaryOperator) {
    enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(c);
    ks_ast_kids k;
    ks_ast_kids_get(c, &k);
    if (k.n == 2) {
      CXCursor lhs = strip(k.a[0]);
      if (clang_getCursorKind(lhs) == CXCursor_DeclRefExpr) {
        CXCursor decl = clang_getCursorReferenced(lhs);
        CXType t = clang_getCanonicalType(clang_getCursorType(decl));
        int bScalar = t.kind != CXType_Pointer && t.kind != CXType_ConstantArray &&
                      clang_getCursorKind(decl) == CXCursor_VarDecl;
        if (bScalar && (op == CXBinaryOperator_AddAssign || op == CXBinaryOperator_MulAssign ||
                        op == CXBinaryOperator_SubAssign || op == CXBinaryOperator_OrAssign ||
                        op == CXBinaryOperator_AndAssign || op == CXBinaryOperator_XorAssign)) {
          pF->bFound = 1;
          return CXChildVisit_Break;
        }
        if (bScalar && op == CXBinaryOperator_Assign) {
          /* s = f(s, ...) or s = s + ... : the variable appears on the right. */
          char *zName = cx_dup(clang_getCursorSpelling(lhs));
          const char *az[2] = {zName, zName};
          clang_visitChildren(k.a[1], find_member_cb, az);
          int bSelf = !az[0];
          free(zName);
          if (bSelf) {
            pF->bFound = 1;
            return CXChildVisit_Break;
          }
        }
      }
    }
  }
  return CXChildVisit_Recurse;
}

static int loop_accumulates(actx *pC, CXCursor body) {
  acc_find f = {pC, 0};
  if (acc_cb(body, body, &f) == CXChildVisit_Break) return 1; /* a body that is one statement */
  clang_visitChildren(body, acc_cb, &f);
  return f.bFound;
}

static int is_bounds_compare(actx *pC, CXCursor cond) {
  cond = strip(cond);
  enum CXCursorKind e = clang_getCursorKind(cond);
  if (e != CXCursor_BinaryOperator) return 0;
  enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(cond);
  ks_ast_kids k;
  ks_ast_kids_get(cond, &k);
  if (k.n != 2) return 0;
  if (op == CXBinaryOperator_LAnd || op == CXBinaryOperator_LOr)
    return is_bounds_compare(pC, k.a[0]) && is_bounds_compare(pC, k.a[1]);
  if (op != CXBinaryOperator_LT && op != CXBinaryOperator_LE && op != CXBinaryOperator_GT &&
      op != CXBinaryOperator_GE)
    return 0;
  ks_cls a = classify(pC, k.a[0]), b = classify(pC, k.a[1]);
  return (a.bTid && !b.bTid && !b.bIndirect) || (b.bTid && !a.bTid && !a.bIndirect);
}

static void note_condition(actx *pC, CXCursor cond) {
  ks_cls c = classify(pC, cond);
  if (!c.bTid) return;
  if (is_bounds_compare(pC, cond)) pC->pK->bBoundsCheck = 1;
  else pC->pK->nThreadBranch++;
}

/* Transcendental calls inside the file's __device__ helpers that a kernel
 * calls directly: rule fast-math converts a copy of such a helper (one level,
 * as here), so the planner must count them. */
typedef struct helper_math {
  actx *pC;
  int nDepth;
} helper_math;

static void count_helper_math(actx *pC, CXCursor call, int nDepth);

static enum CXChildVisitResult helper_math_cb(CXCursor c, CXCursor parent, CXClientData d) {
  (void)parent;
  helper_math *pH = d;
  if (pH->pC->rc < 0) return CXChildVisit_Break;
  if (clang_getCursorKind(c) != CXCursor_CallExpr) return CXChildVisit_Recurse;
  char *zName = cx_dup(clang_getCursorSpelling(c));
  if (!zName) {
    pH->pC->rc = KS_ENOMEM;
    return CXChildVisit_Break;
  }
  if (in_list(azTranscendental, zName)) {
    CXCursor fn = clang_getCursorReferenced(c);
    if (!clang_Cursor_isNull(fn) && !ks_ast_in_main_file(fn) &&
        push_count(&pH->pC->pK->aTrans, &pH->pC->pK->nTrans, zName) < 0)
      pH->pC->rc = KS_ENOMEM;
  } else {
    count_helper_math(pH->pC, c, pH->nDepth + 1);
  }
  free(zName);
  return CXChildVisit_Recurse;
}

static void count_helper_math(actx *pC, CXCursor call, int nDepth) {
  if (nDepth > 1) return;
  CXCursor fn = clang_getCursorReferenced(call);
  if (clang_Cursor_isNull(fn) || !ks_ast_in_main_file(fn)) return;
  CXCursor def = clang_getCursorDefinition(fn);
  if (clang_Cursor_isNull(def) || clang_getCursorKind(def) != CXCursor_FunctionDecl || !ks_ast_is_device_fn(def))
    return;
  helper_math h = {pC, nDepth};
  clang_visitChildren(def, helper_math_cb, &h);
}

static void walk_call(actx *pC, CXCursor c) {
  ks_kernel *pK = pC->pK;
  char *zName = cx_dup(clang_getCursorSpelling(c));
  if (!zName) {
    pC->rc = KS_ENOMEM;
    return;
  }
  int eArgMode = MODE_LOAD;
  /* Struct assignment (float4 v = ...; out[i] = v) is a call to operator=. */
  if (strcmp(zName, "operator=") == 0 || (starts_with(zName, "operator") && strlen(zName) == 10 && zName[9] == '=' &&
                                          strchr("+-*/", zName[8]))) {
    int nArgs = clang_Cursor_getNumArguments(c);
    if (nArgs == 2) {
      walk(pC, clang_Cursor_getArgument(c, 0), zName[8] == '=' ? MODE_STORE : MODE_RMW);
      walk(pC, clang_Cursor_getArgument(c, 1), MODE_LOAD);
      free(zName);
      return;
    }
  }
  if (strcmp(zName, "__syncthreads") == 0 || strcmp(zName, "__syncthreads_count") == 0 ||
      strcmp(zName, "__syncthreads_and") == 0 || strcmp(zName, "__syncthreads_or") == 0) {
    pK->nSync++;
  } else if (starts_with(zName, "atomic")) {
    if (push_count(&pK->aAtomic, &pK->nAtomic, zName) < 0) pC->rc = KS_ENOMEM;
    eArgMode = MODE_ATOMIC;
  } else if (starts_with(zName, "__shfl")) {
    pK->nShuffle++;
  } else if (strcmp(zName, "__ballot_sync") == 0 || strcmp(zName, "__any_sync") == 0 ||
             strcmp(zName, "__all_sync") == 0 || strcmp(zName, "__match_any_sync") == 0 ||
             strcmp(zName, "__match_all_sync") == 0 || strcmp(zName, "__reduce_add_sync") == 0) {
    pK->nVote++;
  } else if (starts_with(zName, "__ldg") || starts_with(zName, "__ldcs") || starts_with(zName, "__ldca") ||
             starts_with(zName, "__ldcg") || starts_with(zName, "__ldlu")) {
    pK->nLdg++;
  } else if (in_list(azTranscendental, zName)) {
    if (push_count(&pK->aTrans, &pK->nTrans, zName) < 0) pC->rc = KS_ENOMEM;
  } else {
    count_helper_math(pC, c, 1);
  }
  /* Arguments: the first argument of an atomic is its target; __ldg(&a[i])
   * and __ldg(a + i) are loads of a[i]. */
  int nArgs = clang_Cursor_getNumArguments(c);
  if (nArgs < 0) {
    walk_kids(pC, c, MODE_LOAD);
  } else {
    for (int i = 0; i < nArgs; i++) {
      CXCursor arg = clang_Cursor_getArgument(c, (unsigned)i);
      CXCursor s = strip(arg);
      int bAddrOf = clang_getCursorKind(s) == CXCursor_UnaryOperator &&
                    clang_getCursorUnaryOperatorKind(s) == CXUnaryOperator_AddrOf;
      if (i == 0 && (eArgMode == MODE_ATOMIC || pK->nLdg > 0) &&
          (eArgMode == MODE_ATOMIC || starts_with(zName, "__ld"))) {
        int eMode = eArgMode == MODE_ATOMIC ? MODE_ATOMIC : MODE_LOAD;
        if (bAddrOf) {
          ks_ast_kids k;
          ks_ast_kids_get(s, &k);
          if (k.n == 1) walk(pC, k.a[0], eMode);
        } else {
          /* p + i as an address */
          int bShared;
          int iParam = base_param(pC, s, &bShared);
          if (iParam >= 0) {
            ks_ast_kids k;
            ks_ast_kids_get(s, &k);
            CXCursor index = k.n == 2 ? k.a[1] : clang_getNullCursor();
            record_access(pC, iParam, s, k.n == 2 ? k.a[0] : s, index, eMode);
            if (k.n == 2) walk(pC, k.a[1], MODE_LOAD);
          } else {
            walk(pC, arg, MODE_LOAD);
          }
        }
      } else {
        walk(pC, arg, MODE_LOAD);
      }
    }
  }
  free(zName);
}

static void note_types(actx *pC, CXCursor c) {
  CXType t = clang_getCursorType(c);
  if (t.kind == CXType_Invalid) return;
  /* Strip pointers/arrays/qualifiers down to the element type. */
  for (int i = 0; i < 4; i++) {
    CXType u = clang_getCanonicalType(t);
    if (u.kind == CXType_Pointer) t = clang_getPointeeType(u);
    else if (u.kind == CXType_ConstantArray || u.kind == CXType_IncompleteArray) t = clang_getArrayElementType(u);
    else break;
  }
  CXString s = clang_getTypeSpelling(t);
  const char *z = clang_getCString(s);
  if (starts_with(z, "const ")) z += 6;
  if (starts_with(z, "volatile ")) z += 9;
  if (in_list(azVector, z)) {
    int bSeen = 0;
    for (int i = 0; i < pC->pK->nVector; i++)
      if (strcmp(pC->pK->aVector[i].zName, z) == 0) bSeen = 1;
    if (!bSeen && push_count(&pC->pK->aVector, &pC->pK->nVector, z) < 0) pC->rc = KS_ENOMEM;
  }
  clang_disposeString(s);
}

static int is_float_type(CXType t) {
  t = clang_getCanonicalType(t);
  return t.kind == CXType_Float || t.kind == CXType_Double || t.kind == CXType_Half || t.kind == CXType_Float16;
}

static void walk_decl(actx *pC, CXCursor c) {
  ks_kernel *pK = pC->pK;
  CXType t = clang_getCanonicalType(clang_getCursorType(c));
  ks_ast_kids k;
  ks_ast_kids_get(c, &k);
  int bShared = 0;
  CXCursor init = clang_getNullCursor();
  for (int i = 0; i < k.n; i++) {
    enum CXCursorKind e = clang_getCursorKind(k.a[i]);
    if (e == CXCursor_CUDASharedAttr) bShared = 1;
    else if (clang_isExpression(e)) init = k.a[i];
  }
  if (t.kind == CXType_Double) pK->nDoubleOps++;
  GROW(pC, pC->aVar, pC->nVar, var_cls);
  var_cls *pV = &pC->aVar[pC->nVar++];
  pV->decl = c;
  pV->iAliasParam = -1;
  pV->bShared = bShared;
  pV->init = init;
  pV->cls = clang_Cursor_isNull(init) ? CLS_UNIFORM : classify(pC, init);
  if (bShared) {
    GROW(pC, pK->aShared, pK->nShared, ks_shared);
    ks_shared *pS = &pK->aShared[pK->nShared++];
    pS->zName = cx_dup(clang_getCursorSpelling(c));
    CXType el = t;
    while (el.kind == CXType_ConstantArray || el.kind == CXType_IncompleteArray)
      el = clang_getCanonicalType(clang_getArrayElementType(el));
    pS->zType = cx_dup(clang_getTypeSpelling(el));
    long long n = clang_Type_getSizeOf(t);
    pS->nBytes = (t.kind == CXType_IncompleteArray || n < 0) ? -1 : n;
  } else if (t.kind == CXType_Pointer && !clang_Cursor_isNull(init)) {
    int bSh;
    pV->iAliasParam = base_param(pC, init, &bSh);
    pV->bShared = bSh;
  }
  note_types(pC, c);
  if (!clang_Cursor_isNull(init)) walk(pC, init, MODE_LOAD);
}

static void walk_inner(actx *pC, CXCursor c, int eMode);

static void walk(actx *pC, CXCursor c, int eMode) {
  if (pC->rc < 0) return;
  if (pC->nDepth >= ANALYZE_MAX_DEPTH) {
    pC->bTruncated = 1;
    return;
  }
  pC->nDepth++;
  walk_inner(pC, c, eMode);
  pC->nDepth--;
}

static void walk_inner(actx *pC, CXCursor c, int eMode) {
  if (pC->rc < 0) return;
  enum CXCursorKind e = clang_getCursorKind(c);
  ks_kernel *pK = pC->pK;
  switch (e) {
  case CXCursor_ForStmt:
  case CXCursor_WhileStmt:
  case CXCursor_DoStmt:
    walk_loop(pC, c);
    return;
  case CXCursor_VarDecl:
    walk_decl(pC, c);
    return;
  case CXCursor_IfStmt: {
    ks_ast_kids k;
    ks_ast_kids_get(c, &k);
    if (k.n >= 1) note_condition(pC, k.a[0]);
    walk_kids(pC, c, MODE_LOAD);
    return;
  }
  case CXCursor_ConditionalOperator: {
    ks_ast_kids k;
    ks_ast_kids_get(c, &k);
    if (k.n >= 1) note_condition(pC, k.a[0]);
    walk_kids(pC, c, MODE_LOAD);
    return;
  }
  case CXCursor_CallExpr:
    walk_call(pC, c);
    return;
  case CXCursor_ArraySubscriptExpr: {
    ks_ast_kids k;
    ks_ast_kids_get(c, &k);
    if (k.n == 2) {
      int bShared;
      int iParam = base_param(pC, k.a[0], &bShared);
      if (iParam >= 0) record_access(pC, iParam, c, k.a[0], k.a[1], eMode);
      else if (bShared) {
        pK->nSharedAccess++;
        /* As[..][k] * Bs[k][..] in an accumulating loop: a tiled GEMM. */
        if (pC->iProduct) {
          pC->nSharedInProduct = pC->iSharedProduct == pC->iProduct ? pC->nSharedInProduct + 1 : 1;
          pC->iSharedProduct = pC->iProduct;
          if (pC->nSharedInProduct == 2 && pC->nLoopDepth > 0 &&
              pK->aLoop[pC->aLoopStack[pC->nLoopDepth - 1]].bAccumulates)
            pK->bTiledGemm = 1;
        }
      }
      walk(pC, k.a[0], MODE_ADDR);
      walk(pC, k.a[1], MODE_LOAD);
      return;
    }
    break;
  }
  case CXCursor_UnaryOperator: {
    enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(c);
    ks_ast_kids k;
    ks_ast_kids_get(c, &k);
    if (k.n != 1) break;
    if (op == CXUnaryOperator_Deref) {
      CXCursor s = strip(k.a[0]);
      int bShared;
      int iParam = base_param(pC, s, &bShared);
      if (iParam >= 0) {
        ks_ast_kids b;
        ks_ast_kids_get(s, &b);
        int bSum = clang_getCursorKind(s) == CXCursor_BinaryOperator && b.n == 2;
        record_access(pC, iParam, c, bSum ? b.a[0] : s, bSum ? b.a[1] : clang_getNullCursor(), eMode);
      }
      walk(pC, k.a[0], MODE_ADDR);
      return;
    }
    if (op == CXUnaryOperator_PostInc || op == CXUnaryOperator_PreInc || op == CXUnaryOperator_PostDec ||
        op == CXUnaryOperator_PreDec) {
      walk(pC, k.a[0], MODE_RMW);
      return;
    }
    if (op == CXUnaryOperator_AddrOf) {
      walk(pC, k.a[0], MODE_ADDR);
      return;
    }
    walk(pC, k.a[0], MODE_LOAD);
    return;
  }
  case CXCursor_BinaryOperator:
  case CXCursor_CompoundAssignOperator: {
    enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(c);
    ks_ast_kids k;
    ks_ast_kids_get(c, &k);
    if (k.n != 2) break;
    CXType t = clang_getCanonicalType(clang_getCursorType(c));
    if (t.kind == CXType_Double && op != CXBinaryOperator_Assign) pK->nDoubleOps++;
    if (op == CXBinaryOperator_Div || op == CXBinaryOperator_Rem || op == CXBinaryOperator_DivAssign ||
        op == CXBinaryOperator_RemAssign) {
      CXEvalResult r = clang_Cursor_Evaluate(k.a[1]);
      int bConst = r != NULL && (clang_EvalResult_getKind(r) == CXEval_Int || clang_EvalResult_getKind(r) == CXEval_Float);
      if (r) clang_EvalResult_dispose(r);
      if (!bConst) pK->nNonconstDiv++;
      if (!bConst && !is_float_type(t)) pK->nIntDiv++; /* index arithmetic, not a value's division */
    }
    if ((op == CXBinaryOperator_Add || op == CXBinaryOperator_Sub || op == CXBinaryOperator_AddAssign ||
         op == CXBinaryOperator_SubAssign) &&
        is_float_type(t)) {
      for (int i = 0; i < 2; i++) {
        CXCursor s = strip(k.a[i]);
        if (clang_getCursorKind(s) == CXCursor_BinaryOperator &&
            clang_getCursorBinaryOperatorKind(s) == CXBinaryOperator_Mul)
          pK->nFmaCand++;
      }
    }
    if (op == CXBinaryOperator_Assign) {
      walk(pC, k.a[0], MODE_STORE);
      walk(pC, k.a[1], MODE_LOAD);
      /* A local variable re-assigned: merge what it may hold. */
      CXCursor lhs = strip(k.a[0]);
      if (clang_getCursorKind(lhs) == CXCursor_DeclRefExpr) {
        var_cls *pV = find_var(pC, clang_getCursorReferenced(lhs));
        if (pV) {
          ks_cls n = classify(pC, k.a[1]);
          if (n.eForm != pV->cls.eForm || n.coef != pV->cls.coef) {
            int bX = cls_xdep(n) || cls_xdep(pV->cls);
            pV->cls.eForm = bX ? FORM_NONLINEAR : FORM_AFFINE;
            pV->cls.coef = 0;
          }
          pV->cls.bTid |= n.bTid;
          pV->cls.bIndirect |= n.bIndirect;
        }
      }
      return;
    }
    if (e == CXCursor_CompoundAssignOperator) {
      walk(pC, k.a[0], MODE_RMW);
      walk(pC, k.a[1], MODE_LOAD);
      return;
    }
    if (op == CXBinaryOperator_Mul) {
      int iSaved = pC->iProduct;
      pC->iProduct = ++pC->nProduct;
      walk(pC, k.a[0], MODE_LOAD);
      walk(pC, k.a[1], MODE_LOAD);
      pC->iProduct = iSaved;
      return;
    }
    walk_kids(pC, c, MODE_LOAD);
    return;
  }
  case CXCursor_LambdaExpr:
    return;
  default:
    break;
  }
  if (clang_isExpression(e)) note_types(pC, c);
  /* Only a plain store target keeps its mode through wrappers (parens, casts). */
  int eKeep = (e == CXCursor_ParenExpr || e == CXCursor_UnexposedExpr || e == CXCursor_CStyleCastExpr ||
               e == CXCursor_CXXReinterpretCastExpr || e == CXCursor_CXXStaticCastExpr)
                  ? eMode
                  : MODE_LOAD;
  walk_kids(pC, c, eKeep);
}

/* ---------- per-kernel driver ---------- */

typedef struct kernel_list {
  const char *zOnly;
  ks_tu *pTu;
  ks_kernel *a;
  int n;
  int rc;
  ks_launch *aLaunch;
  int nLaunch;
} kernel_list;

static enum CXChildVisitResult tparam_cb(CXCursor c, CXCursor parent, CXClientData pData) {
  (void)parent;
  ks_kernel *pK = pData;
  enum CXCursorKind e = clang_getCursorKind(c);
  if (e == CXCursor_TemplateTypeParameter || e == CXCursor_NonTypeTemplateParameter ||
      e == CXCursor_TemplateTemplateParameter) {
    char **a = realloc(pK->azTemplateParam, sizeof(char *) * (size_t)(pK->nTemplateParam + 1));
    if (!a) return CXChildVisit_Break;
    pK->azTemplateParam = a;
    a[pK->nTemplateParam++] = cx_dup(clang_getCursorSpelling(c));
  }
  return CXChildVisit_Continue;
}

/* __launch_bounds__(a[, b]) between the kernel's start and its name. */
static void find_launch_bounds(ks_tu *pTu, CXCursor c, ks_kernel *pK) {
  unsigned iStart, iEnd;
  if (ks_ast_extent(pTu, c, &iStart, &iEnd) < 0) return;
  long iName = ks_ast_offset(pTu, clang_getCursorLocation(c));
  if (iName < 0 || (unsigned)iName < iStart) return;
  const char *z = pTu->zSrc;
  const char *zKey = "__launch_bounds__";
  size_t nKey = strlen(zKey);
  for (unsigned i = iStart; i + nKey < (unsigned)iName; i++) {
    if (strncmp(z + i, zKey, nKey) != 0) continue;
    unsigned j = i + (unsigned)nKey;
    while (j < (unsigned)iName && z[j] != '(') j++;
    if (j >= (unsigned)iName) return;
    unsigned iArg = ++j;
    int nDepth = 1, iSlot = 0;
    for (; j < (unsigned)iName && nDepth > 0; j++) {
      char ch = z[j];
      if (ch == '(') nDepth++;
      if (ch == ')') nDepth--;
      if ((ch == ',' && nDepth == 1) || nDepth == 0) {
        unsigned a = iArg, b = j;
        while (a < b && z[a] == ' ') a++;
        while (b > a && z[b - 1] == ' ') b--;
        char *zVal = malloc(b - a + 1);
        if (zVal) {
          memcpy(zVal, z + a, b - a);
          zVal[b - a] = 0;
        }
        if (iSlot == 0) pK->zLaunchMaxThreads = zVal, pK->bLaunchBounds = 1;
        else if (iSlot == 1) pK->zLaunchMinBlocks = zVal;
        else free(zVal);
        iSlot++;
        iArg = j + 1;
      }
    }
    return;
  }
}

/* __launch_bounds__ spelled inside a user macro (#define BOUNDED(n) ...
 * __launch_bounds__(n)): the attribute is there but its arguments are not in
 * the file's text. Recognize it by its spelling in the CUDA headers. */
static enum CXChildVisitResult lb_attr_cb(CXCursor c, CXCursor parent, CXClientData pData) {
  (void)parent;
  if (clang_getCursorKind(c) != CXCursor_UnexposedAttr) return CXChildVisit_Continue;
  CXFile file;
  unsigned iOff;
  clang_getSpellingLocation(clang_getCursorLocation(c), &file, NULL, NULL, &iOff);
  if (!file) return CXChildVisit_Continue;
  size_t n = 0;
  const char *z = clang_getFileContents(clang_Cursor_getTranslationUnit(c), file, &n);
  if (z && iOff + 13 <= n && strncmp(z + iOff, "launch_bounds", 13) == 0) {
    *(int *)pData = 1;
    return CXChildVisit_Break;
  }
  return CXChildVisit_Continue;
}

static void add_instantiation(ks_kernel *pK, const char *zArgs);

/* `template __global__ void k<float>(...);` — explicit instantiations, found
 * in the main file's tokens (libclang exposes no cursor for them). */
static void find_explicit_instantiations(ks_tu *pTu, ks_kernel *pK) {
  CXFile file = clang_getFile(pTu->pTu, pTu->zFile);
  if (!file) return;
  CXSourceRange r = clang_getRange(clang_getLocationForOffset(pTu->pTu, file, 0),
                                   clang_getLocationForOffset(pTu->pTu, file, (unsigned)pTu->nSrc));
  CXToken *aTok = NULL;
  unsigned nTok = 0;
  clang_tokenize(pTu->pTu, r, &aTok, &nTok);
  for (unsigned i = 0; i + 1 < nTok; i++) {
    CXString s = clang_getTokenSpelling(pTu->pTu, aTok[i]);
    int bTemplate = strcmp(clang_getCString(s), "template") == 0;
    clang_disposeString(s);
    if (!bTemplate) continue;
    CXString sNext = clang_getTokenSpelling(pTu->pTu, aTok[i + 1]);
    int bAngle = strcmp(clang_getCString(sNext), "<") == 0;
    clang_disposeString(sNext);
    if (bAngle) continue; /* a template declaration, not an instantiation */
    for (unsigned j = i + 1; j + 1 < nTok; j++) {
      CXString sj = clang_getTokenSpelling(pTu->pTu, aTok[j]);
      const char *zj = clang_getCString(sj);
      int bEnd = strcmp(zj, ";") == 0 || strcmp(zj, "{") == 0;
      int bName = strcmp(zj, pK->zName) == 0;
      clang_disposeString(sj);
      if (bEnd) break;
      if (!bName) continue;
      CXString sLt = clang_getTokenSpelling(pTu->pTu, aTok[j + 1]);
      int bLt = strcmp(clang_getCString(sLt), "<") == 0;
      clang_disposeString(sLt);
      if (!bLt) break;
      ks_buf b = KS_BUF_INIT;
      int nDepth = 0;
      for (unsigned t = j + 1; t < nTok; t++) {
        CXString st = clang_getTokenSpelling(pTu->pTu, aTok[t]);
        const char *zt = clang_getCString(st);
        if (strcmp(zt, "<") == 0) nDepth++;
        else if (strcmp(zt, ">") == 0) nDepth--;
        else if (strcmp(zt, ">>") == 0) nDepth -= 2;
        if (nDepth > 0 && !(nDepth == 1 && strcmp(zt, "<") == 0)) {
          if (strcmp(zt, ",") == 0) ks_buf_puts(&b, ", ");
          else {
            if (b.n && b.z[b.n - 1] != ' ' && b.z[b.n - 1] != '<' && strcmp(zt, "*") != 0 && strcmp(zt, ">") != 0)
              ks_buf_puts(&b, " ");
            ks_buf_puts(&b, zt);
          }
        }
        clang_disposeString(st);
        if (nDepth <= 0) break;
      }
      if (b.n) add_instantiation(pK, b.z);
      ks_buf_free(&b);
      break;
    }
  }
  clang_disposeTokens(pTu->pTu, aTok, nTok);
}

static void add_instantiation(ks_kernel *pK, const char *zArgs) {
  for (int i = 0; i < pK->nInstantiation; i++)
    if (strcmp(pK->azInstantiation[i], zArgs) == 0) return;
  char **a = realloc(pK->azInstantiation, sizeof(char *) * (size_t)(pK->nInstantiation + 1));
  if (!a) return;
  pK->azInstantiation = a;
  a[pK->nInstantiation++] = ks_strdup(zArgs);
}

/* Template arguments used by launches of this kernel (`k<float><<<...>>>`) and
 * explicit instantiations (`template __global__ void k<float>(...)`). */
typedef struct inst_walk {
  ks_kernel *pK;
  CXCursor tmpl;
} inst_walk;

static void template_args_text(CXCursor spec, ks_buf *pB) {
  int n = clang_Cursor_getNumTemplateArguments(spec);
  for (int i = 0; i < n; i++) {
    if (i) ks_buf_puts(pB, ", ");
    enum CXTemplateArgumentKind e = clang_Cursor_getTemplateArgumentKind(spec, (unsigned)i);
    if (e == CXTemplateArgumentKind_Type) {
      CXString s = clang_getTypeSpelling(clang_Cursor_getTemplateArgumentType(spec, (unsigned)i));
      ks_buf_puts(pB, clang_getCString(s));
      clang_disposeString(s);
    } else if (e == CXTemplateArgumentKind_Integral) {
      ks_buf_printf(pB, "%lld", clang_Cursor_getTemplateArgumentValue(spec, (unsigned)i));
    } else {
      ks_buf_puts(pB, "?");
    }
  }
}

static enum CXChildVisitResult inst_cb(CXCursor c, CXCursor parent, CXClientData pData) {
  (void)parent;
  inst_walk *pW = pData;
  if (!ks_ast_in_main_file(c)) return CXChildVisit_Continue;
  enum CXCursorKind e = clang_getCursorKind(c);
  CXCursor spec = clang_getNullCursor();
  if (e == CXCursor_CallExpr || e == CXCursor_DeclRefExpr) spec = clang_getCursorReferenced(c);
  else if (e == CXCursor_FunctionDecl) spec = c;
  if (!clang_Cursor_isNull(spec) && clang_getCursorKind(spec) == CXCursor_FunctionDecl &&
      clang_Cursor_getNumTemplateArguments(spec) > 0 &&
      clang_equalCursors(clang_getSpecializedCursorTemplate(spec), pW->tmpl)) {
    ks_buf b = KS_BUF_INIT;
    template_args_text(spec, &b);
    if (b.n) add_instantiation(pW->pK, b.z);
    ks_buf_free(&b);
  }
  return CXChildVisit_Recurse;
}

static void analyze_one(ks_tu *pTu, CXCursor c, void *pArg) {
  kernel_list *pL = pArg;
  if (pL->rc < 0) return;
  char *zName = cx_dup(clang_getCursorSpelling(c));
  if (!zName) {
    pL->rc = KS_ENOMEM;
    return;
  }
  if (pL->zOnly && strcmp(pL->zOnly, zName) != 0) {
    free(zName);
    return;
  }
  ks_kernel *a = realloc(pL->a, sizeof(ks_kernel) * (size_t)(pL->n + 1));
  if (!a) {
    free(zName);
    pL->rc = ks_error_set(KS_ENOMEM, "out of memory");
    return;
  }
  pL->a = a;
  ks_kernel *pK = &a[pL->n++];
  memset(pK, 0, sizeof *pK);
  pK->zName = zName;
  pK->zFile = ks_strdup(pTu->zFile);
  long iOff = ks_ast_offset(pTu, clang_getCursorLocation(c));
  if (iOff >= 0) ks_ast_line_col(pTu, (unsigned)iOff, &pK->iLine, NULL);
  pK->bTemplate = clang_getCursorKind(c) == CXCursor_FunctionTemplate;
  if (pK->bTemplate) {
    clang_visitChildren(c, tparam_cb, pK);
    inst_walk w = {pK, c};
    ks_ast_visit_top(pTu, inst_cb, &w);
    find_explicit_instantiations(pTu, pK);
  }
  find_launch_bounds(pTu, c, pK);
  if (!pK->bLaunchBounds) clang_visitChildren(c, lb_attr_cb, &pK->bLaunchBounds);

  actx ctx;
  memset(&ctx, 0, sizeof ctx);
  ctx.pTu = pTu;
  ctx.pK = pK;
  /* Parameters. */
  ks_ast_kids k;
  ks_ast_kids_get(c, &k);
  CXCursor body = clang_getNullCursor();
  for (int i = 0; i < k.n; i++) {
    enum CXCursorKind e = clang_getCursorKind(k.a[i]);
    if (e == CXCursor_CompoundStmt) body = k.a[i];
  }
  /* get_kids caps at 16; walk the parameters through the function's arguments. */
  int nArgs = clang_Cursor_getNumArguments(c);
  if (nArgs < 0) { /* templates: collect ParmDecl children */
    nArgs = 0;
    for (int i = 0; i < k.n; i++)
      if (clang_getCursorKind(k.a[i]) == CXCursor_ParmDecl && nArgs < 64) ctx.aParamDecl[nArgs++] = k.a[i];
  } else {
    if (nArgs > 64) nArgs = 64;
    for (int i = 0; i < nArgs; i++) ctx.aParamDecl[i] = clang_Cursor_getArgument(c, (unsigned)i);
  }
  pK->aParam = calloc((size_t)(nArgs ? nArgs : 1), sizeof(ks_param));
  if (!pK->aParam) {
    pL->rc = ks_error_set(KS_ENOMEM, "out of memory");
    return;
  }
  pK->nParam = nArgs;
  for (int i = 0; i < nArgs; i++) {
    ks_param *pP = &pK->aParam[i];
    CXCursor p = ctx.aParamDecl[i];
    CXType t = clang_getCursorType(p);
    pP->zName = cx_dup(clang_getCursorSpelling(p));
    pP->zType = cx_dup(clang_getTypeSpelling(t));
    CXType ct = clang_getCanonicalType(t);
    pP->bPointer = ct.kind == CXType_Pointer;
    if (pP->bPointer) pP->bConstPointee = clang_isConstQualifiedType(clang_getPointeeType(ct));
    pP->bRestrict = clang_isRestrictQualifiedType(t) || clang_isRestrictQualifiedType(ct);
    note_types(&ctx, p);
  }
  if ((ctx.rc = ks_shape_build(pTu, c, &pK->pShape)) == KS_OK) {
    ctx.pShape = pK->pShape;
    ctx.rc = ks_shape_uses(pTu, pK->zName, &pK->pShape->aUse, &pK->pShape->nUse);
  }
  if (ctx.rc == KS_OK && !clang_Cursor_isNull(body)) walk(&ctx, body, MODE_LOAD);
  free(ctx.aVar);
  if (ctx.bTruncated) pK->bTruncated = 1;
  if (ctx.rc < 0) pL->rc = ctx.rc;
}

/* Derive the structure classes from what the walk found. */
static void classify_structure(ks_kernel *pK, ks_launch *aLaunch, int nLaunch) {
  int nStores = 0, nLoads = 0;
  for (int i = 0; i < pK->nAccess; i++) {
    if (pK->aAccess[i].eKind == KS_ACC_STORE) nStores++;
    if (pK->aAccess[i].eKind == KS_ACC_LOAD) nLoads++;
  }
  for (int i = 0; i < pK->nLoop; i++)
    if (pK->aLoop[i].bHalving) {
      /* a halving loop with a barrier over shared memory: a tree reduction */
      if (pK->aLoop[i].bHasSync && pK->nShared > 0) pK->bSmemTree = 1;
    }

  /* pointwise: every global access at one contiguous index, no other loops. */
  int bPoint = nStores > 0 && pK->nShared == 0 && pK->nAtomic == 0;
  const char *zIdx = NULL; /* all accesses must share one index */
  for (int i = 0; bPoint && i < pK->nAccess; i++) {
    ks_access *pA = &pK->aAccess[i];
    if (pA->ePattern != KS_PAT_CONTIGUOUS) bPoint = 0;
    else if (!zIdx) zIdx = pA->zShape;
    else if (strcmp(zIdx, pA->zShape) != 0 || strcmp(pK->aAccess[0].zIndex, pA->zIndex) != 0) bPoint = 0;
    if (pA->iLoop >= 0 && !pK->aLoop[pA->iLoop].bGridStride) bPoint = 0;
  }
  for (int i = 0; bPoint && i < pK->nLoop; i++)
    if (!pK->aLoop[i].bGridStride) bPoint = 0;
  pK->bPointwise = bPoint;

  /* Products of two loads in an accumulating loop, both indexed by its variable. */
  for (int i = 0; i < pK->nAccess && !pK->bNaiveGemm; i++) {
    ks_access *pA = &pK->aAccess[i];
    if (!pA->iProduct || pA->iLoop < 0) continue;
    ks_loop *pL = &pK->aLoop[pA->iLoop];
    if (!pL->bAccumulates || !pL->zVar || pL->bGridStride) continue;
    for (int j = i + 1; j < pK->nAccess; j++) {
      ks_access *pB = &pK->aAccess[j];
      if (pB->iProduct != pA->iProduct || pB->iLoop != pA->iLoop) continue;
      /* Two different arrays (x[j] * x[j] is a sum of squares), over a k-loop
       * that is not a small constant window (a 3x3 convolution's taps). */
      if (pA->bUsesLoopVar && pB->bUsesLoopVar && pA->bThreadDep && pB->bThreadDep && pA->iParam != pB->iParam &&
          (pL->nTrip < 0 || pL->nTrip > 16)) {
        pK->bNaiveGemm = 1;
        break;
      }
    }
  }

  /* row loop: a non-constant loop whose variable walks a thread's own row. */
  for (int i = 0; i < pK->nAccess; i++) {
    ks_access *pA = &pK->aAccess[i];
    if (pA->eKind != KS_ACC_LOAD || pA->iLoop < 0) continue;
    ks_loop *pL = &pK->aLoop[pA->iLoop];
    if (pL->bGridStride || pL->nTrip >= 0 || !pL->zVar) continue;
    if ((pA->ePattern == KS_PAT_STRIDED || pA->ePattern == KS_PAT_UNKNOWN) && pA->bUsesLoopVar && !pK->bNaiveGemm)
      pK->bRowLoop = 1;
  }

  int bAccLoop = 0;
  for (int i = 0; i < pK->nLoop; i++)
    if (pK->aLoop[i].bAccumulates && !pK->aLoop[i].bGridStride) bAccLoop = 1;
    else if (pK->aLoop[i].bAccumulates && pK->aLoop[i].bGridStride && (pK->nAtomic > 0 || pK->nShared > 0))
      bAccLoop = 1;
  pK->bReduction = (bAccLoop && !pK->bNaiveGemm && !pK->bTiledGemm && nStores + pK->nAtomic > 0) || pK->bSmemTree;
  for (int i = 0; i < pK->nAccess; i++)
    if (pK->aAccess[i].eKind == KS_ACC_ATOMIC && pK->aAccess[i].ePattern == KS_PAT_UNIFORM) pK->bReduction = 1;

  /* stencil: neighbour reads of one parameter (same shape, different offsets),
   * or a thread-dependent read inside a small constant-trip loop. */
  for (int i = 0; i < pK->nAccess && !pK->bStencil; i++) {
    ks_access *pA = &pK->aAccess[i];
    if (pA->eKind != KS_ACC_LOAD || !pA->bThreadDep) continue;
    for (int j = i + 1; j < pK->nAccess; j++) {
      ks_access *pB = &pK->aAccess[j];
      if (pB->eKind == KS_ACC_LOAD && pB->iParam == pA->iParam && pB->bThreadDep &&
          strcmp(pA->zShape, pB->zShape) == 0 && strcmp(pA->zIndex, pB->zIndex) != 0) {
        pK->bStencil = 1;
        break;
      }
    }
    if (!pK->bNaiveGemm && pA->bUsesSmallLoopVar && pA->ePattern != KS_PAT_INDIRECT) pK->bStencil = 1;
  }

  int bUniformInLoop = 0;
  for (int i = 0; i < pK->nAccess; i++)
    if (pK->aAccess[i].eKind == KS_ACC_LOAD && pK->aAccess[i].ePattern == KS_PAT_UNIFORM &&
        pK->aAccess[i].iLoop >= 0 && !pK->aLoop[pK->aAccess[i].iLoop].bGridStride)
      bUniformInLoop = 1;
  /* Multi-pass: the same element loaded again in another loop (a 3-pass row
   * softmax reads its row three times). */
  int bReread = 0;
  for (int i = 0; i < pK->nAccess && !bReread; i++)
    for (int j = i + 1; j < pK->nAccess; j++) {
      ks_access *pA = &pK->aAccess[i], *pB = &pK->aAccess[j];
      if (pA->eKind == KS_ACC_LOAD && pB->eKind == KS_ACC_LOAD && pA->iParam == pB->iParam &&
          pA->iLoop != pB->iLoop && pA->iLoop >= 0 && pB->iLoop >= 0 && strcmp(pA->zIndex, pB->zIndex) == 0) {
        bReread = 1;
        break;
      }
    }
  pK->bReuse = pK->bNaiveGemm || pK->bTiledGemm || pK->bStencil || bUniformInLoop || bReread;

  /* Launch sites, block size, multi-kernel hosts. */
  int bMulti = 0;
  pK->nBlockSize = 0;
  for (int i = 0; i < nLaunch; i++) {
    if (strcmp(aLaunch[i].zKernel, pK->zName) != 0) continue;
    pK->nLaunchSites++;
    if (aLaunch[i].nBlockThreads > 0) {
      if (pK->nBlockSize == 0) pK->nBlockSize = aLaunch[i].nBlockThreads;
      else if (pK->nBlockSize != aLaunch[i].nBlockThreads) pK->nBlockSize = -1;
    }
    for (int j = 0; j < nLaunch; j++)
      if (j != i && aLaunch[j].zHostFn[0] && strcmp(aLaunch[j].zHostFn, aLaunch[i].zHostFn) == 0 &&
          strcmp(aLaunch[j].zKernel, pK->zName) != 0)
        bMulti = 1;
  }
  if (pK->nBlockSize < 0) pK->nBlockSize = 0;

  int nIndirect = 0;
  for (int i = 0; i < pK->nAccess; i++)
    if (pK->aAccess[i].ePattern == KS_PAT_INDIRECT) nIndirect++;
  /* The kernel's own shape first; multi_kernel only names a streaming kernel
   * whose host function launches other kernels too (a fusion candidate). */
  pK->bMultiKernelEntry = bMulti;
  if (nIndirect > 0) pK->zStructure = "irregular";
  else if (pK->bTiledGemm) pK->zStructure = "reuse";
  else if (pK->bReduction || pK->bRowLoop || pK->bSmemTree) pK->zStructure = "reduction";
  else if (pK->bReuse) pK->zStructure = "reuse";
  else if (bMulti) pK->zStructure = "multi_kernel";
  else pK->zStructure = "streaming";
}

int ks_analyze_kernels(ks_tu *pTu, const char *zKernel, ks_kernel **paOut, int *pnOut) {
  kernel_list l;
  memset(&l, 0, sizeof l);
  l.zOnly = zKernel;
  l.pTu = pTu;
  int rc = ks_ast_launches(pTu, NULL, &l.aLaunch, &l.nLaunch);
  if (rc < 0) return rc;
  ks_ast_each_kernel(pTu, analyze_one, &l);
  if (l.rc < 0) {
    ks_analyze_free(l.a, l.n);
    ks_ast_launches_free(l.aLaunch, l.nLaunch);
    return l.rc;
  }
  for (int i = 0; i < l.n; i++) classify_structure(&l.a[i], l.aLaunch, l.nLaunch);
  ks_ast_launches_free(l.aLaunch, l.nLaunch);
  *paOut = l.a;
  *pnOut = l.n;
  return KS_OK;
}

static void free_counts(ks_count *a, int n) {
  for (int i = 0; i < n; i++) free(a[i].zName);
  free(a);
}

void ks_analyze_free(ks_kernel *a, int n) {
  for (int i = 0; i < n; i++) {
    ks_kernel *pK = &a[i];
    free(pK->zName);
    free(pK->zFile);
    for (int j = 0; j < pK->nTemplateParam; j++) free(pK->azTemplateParam[j]);
    free(pK->azTemplateParam);
    for (int j = 0; j < pK->nInstantiation; j++) free(pK->azInstantiation[j]);
    free(pK->azInstantiation);
    free(pK->zLaunchMaxThreads);
    free(pK->zLaunchMinBlocks);
    ks_shape_free(pK->pShape);
    for (int j = 0; j < pK->nParam; j++) {
      free(pK->aParam[j].zName);
      free(pK->aParam[j].zType);
    }
    free(pK->aParam);
    for (int j = 0; j < pK->nLoop; j++) free(pK->aLoop[j].zVar);
    free(pK->aLoop);
    for (int j = 0; j < pK->nAccess; j++) {
      free(pK->aAccess[j].zIndex);
      free(pK->aAccess[j].zShape);
    }
    free(pK->aAccess);
    for (int j = 0; j < pK->nShared; j++) {
      free(pK->aShared[j].zName);
      free(pK->aShared[j].zType);
    }
    free(pK->aShared);
    free_counts(pK->aVector, pK->nVector);
    free_counts(pK->aTrans, pK->nTrans);
    free_counts(pK->aAtomic, pK->nAtomic);
  }
  free(a);
}
