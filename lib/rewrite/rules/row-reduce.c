/* row-reduce.c — rule `row-reduce`: a kernel where each thread walks a whole row
 * (naive softmax, layernorm, rmsnorm, row sums, matvec rows) becomes one block
 * per row (mode=block, threads=T) or one warp per row (mode=warp): every row
 * loop is strided over the block's (warp's) threads, so neighbouring threads
 * touch neighbouring elements, each loop's accumulators are combined with a
 * warp-shuffle (+ shared memory) reduction, and every launch gets grid = rows,
 * block = T.
 *
 * The matcher accepts only a kernel body it understands statement by
 * statement (docs/rules/row-reduce.md): the row index, the row guard (the row
 * count a parameter or an expression of parameters, `B * T * NH`, which each
 * launch's grid evaluates on its arguments), scalar and row-pointer
 * declarations, row loops (`j < B` or `j <= B`, B the same for the row's
 * threads, `t2 <= t` of a causal row) that accumulate (sum via +=,
 * max/min via fmaxf/fminf/max/min, a ternary or an if, arg-max/arg-min as a
 * value and index pair) and/or store element j of a row (later passes may
 * read what earlier ones stored at the same element: multi-pass rows; stores
 * may sit under an if, the causal mask), scalar
 * assignments and stores of the row's result (plain or atomicAdd/Max/Min).
 * Loop bodies keep their bytes: only loop headers change, and lines are added.
 * Rows of 16-bit floats (pack=on) walk in packs of 8 elements instead, one
 * 16-byte load per pack where it is whole and aligned (templates/ks_rowpack.cuh):
 * the body's text runs once per element on the pack's registers. With
 * resident=K, a row of at most K elements a thread (K/8 packs) stays in
 * registers between passes when every slot a pass stores covers a row range
 * disjoint from the others' (checked per row at run time): each loop gets that
 * form first and keeps the memory form as the fallback. */
#include "features/ast.h"
#include "features/pure.h"
#include "kernelskill/rewrite.h"
#include "rewrite/rwutil.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OP_NONE = 0, OP_SUM, OP_MAX, OP_MIN, OP_ARGMAX, OP_ARGMIN, OP_COUNT };
static const char *const azOpName[] = {"", "sum", "max", "min", "argmax", "argmin"};

#define RR_MAX_VARS 64
#define RR_MAX_LOOPS 32
#define RR_MAX_ACC 8
#define RR_MAX_PARAMS 64
#define RR_MAX_PACKS 8
#define RR_MAX_OCC 64
#define RR_MAX_SLOTS 8

/* A local declared in the row body (outside loops). */
typedef struct rr_var {
  CXCursor decl;
  int bPtr;     /* a pointer into a parameter's buffer */
  int iRoot;    /* for pointers: the parameter it points into */
  int bFloat;   /* float or double scalar: may be an accumulator */
  int bDouble;
  int bZero;    /* still holds the literal zero it was declared with */
  int ePlain;   /* resident rows, plain_local: 0 not asked yet, 1 plain, 2 not */
  int bMem;     /* a sum kept in memory, P[row] += E in a row loop (polybench style): no
                   declaration (decl is null); iRoot is P, mem the first P[row] */
  CXCursor mem;
} rr_var;

/* A buffer access at element j that a packed loop (16-bit rows) keeps in
 * registers, 8 elements a pack: one per distinct subscript of the loop. */
typedef struct rr_pack {
  char *zKey;          /* the subscript, squashed */
  char *zText;         /* the subscript as written: the pack's address is its address */
  const char *zElem;   /* __half, __nv_bfloat16 or float */
  int bLoad, bStore;   /* read before its first store in the body (or never stored); stored */
  unsigned iStoreEnd;  /* end of the first assignment that stores it, 0: none yet */
  char *zRange;        /* resident rows: the access with row pointers replaced by their values, else NULL */
  int bUncond;         /* resident rows: read or stored where the body always evaluates it */
  int bReadAfter;      /* read at or after the end of its first store (in text order) */
  int bFirstUncond;    /* its first store is evaluated on every path (resident walks only) */
  /* resident rows (res_plan_slots): */
  int bMust;           /* the body stores it on every path */
  int bLazy;           /* its register may not hold element j when the pass starts: the reads before
                          its first store load it where no pass in uCov covers j */
  unsigned uCov;       /* the earlier passes whose register holds their whole range [start, bound) */
  int bWriteBack;      /* it is stored, and the pass stores the register to memory after its body */
  unsigned uWbSkip;    /* ... except at j below the bound of one of these later passes (they store it) */
} rr_pack;

/* One row loop and what the rewrite does to it. */
typedef struct rr_loop {
  CXCursor loop, var, init, inc, bound, body;
  int nAcc;
  int aiAcc[RR_MAX_ACC];  /* index into aVar */
  int aeOp[RR_MAX_ACC];
  int aiIdx[RR_MAX_ACC];  /* arg-max/arg-min: the index local paired with the value (aVar), else -1 */
  int abReset[RR_MAX_ACC]; /* sum whose value before the loop is not zero: other threads restart at 0 */
  int bStores;
  int bCondStore;         /* stores under an if on the element (the causal mask's `if (j <= t)`): not packed */
  char *zLimit;           /* `j <= B`: the bound the strided loops compare `<` with, B + 1 in 64 bits; else NULL */
  char *zBoundKey, *zBoundText; /* resident rows: the bound compared (squashed) and as written (`<` form) */
  CXCursor aMemRef[16];   /* the P[row] of `P[row] += E` statements (memory sums), and their aVar */
  int aiMemVar[16];
  int nMemRef;
  char *zUnrolled; /* unroll > 1: the loop's replacement text */
  rr_pack aPack[RR_MAX_PACKS]; /* packed kernels: the loop's packs */
  int nPack;
  unsigned aiOccS[RR_MAX_OCC], aiOccE[RR_MAX_OCC]; /* every packed access in the body: its extent */
  int aiOccPack[RR_MAX_OCC];                       /* and its pack */
  int abOccLoad[RR_MAX_OCC];                       /* a read before its pack's first store ends */
  int nOcc;
  int aiPackSlot[RR_MAX_PACKS]; /* resident rows: the register slot of each of the loop's accesses */
} rr_loop;

/* Resident rows (resident=K): one register slot, K elements a thread, per
 * distinct access P[e + j] of the row loops. */
typedef struct rr_slot {
  const char *zKey; /* the first access's key (owned by its loop's pack) */
  const char *zElem;
  int iFirst;       /* the first loop accessing it */
  int iLastStore;   /* the last loop storing it, or -1 */
} rr_slot;

typedef struct rr_state {
  ks_rewrite *p;
  ks_tu *pTu;
  CXCursor kernel;
  CXCursor row;
  CXCursor aFree[8];      /* integer locals declared without a value (`int j;`): loop variables only */
  int nFree;
  int nParam;
  rr_var aVar[RR_MAX_VARS];
  int nVar;
  rr_loop aLoop[RR_MAX_LOOPS];
  int nLoop;
  int abRead[RR_MAX_PARAMS];     /* buffers read through */
  int abReadOne[RR_MAX_PARAMS];  /* read only by a store of the row's result (one thread runs it) */
  int bOneThread;                /* noting the reads of such a store */
  int abTopStore[RR_MAX_PARAMS]; /* buffers stored outside loops */
  int aiLoopStore[RR_MAX_PARAMS]; /* loop number + 1 storing into the buffer, 0: none */
  /* Multi-pass rows (softmax: store exp, then scale what was stored): a
   * buffer a loop stores into may be read, and stored again, by row loops at
   * element j, when every such access is the same element of the same loop
   * start: the strided loops then give element j to the same thread in every
   * pass. azElem: that element and start ("subscript@start"), abReadJ: read so. */
  int abReadJ[RR_MAX_PARAMS];
  char *azElem[RR_MAX_PARAMS];     /* the first such access */
  unsigned aiElemOther[RR_MAX_PARAMS]; /* line of one at another element or start, 0: none */
  CXCursor atJ;                  /* the subscript of the pointer read being noted, or null */
  CXCursor aTopStore[RR_MAX_VARS]; /* top-level store statements */
  int nTopStore;
  /* context of the loop being checked */
  rr_loop *pCur;
  CXCursor aBodyVar[RR_MAX_VARS];
  int nBodyVar;
  char zWhy[512];
  /* the application: parameters, what matching found, what the edits need */
  const char *zKernel;
  int bWarp, nThreads, nUnroll;
  int bGroup;             /* threads=auto: a group of threads per row, sized at each launch from the
                             row length (blockDim.x threads, blockDim.y rows a block) */
  int iColsParam;         /* auto: the parameter the first row loop's bound names, or -1 */
  const char *zColsLit;   /* auto: else that bound's integer literal, or NULL */
  char zColsBuf[32];
  unsigned iHelpersAt;    /* where the helpers go (launches above it keep a fixed block) */
  unsigned iKs;           /* start of the kernel */
  unsigned iRowS, iRowE;  /* the row index's initializer */
  int iRowsParam;         /* the parameter the row guard compares with, or -1: rowBound */
  CXCursor rowBound;      /* the guard's bound when it is an expression of parameters (`B * T * NH`) */
  int abBoundParam[RR_MAX_PARAMS]; /* the parameters the row count uses */
  ks_launch *aL;          /* the kernel's launches */
  int nL;
  int bReduce;               /* some loop's accumulator needs a row reduction (ks_rowreduce.cuh) */
  int bPack;                 /* 16-bit rows: every row loop walks packs of 8 elements (ks_rowpack.cuh) */
  int nPackU;                /* packs in flight a step: unroll / 4, rounded up */
  int nResK;                 /* resident=K asked for (0: off) */
  int nRes;                  /* K when the rows may stay in registers between passes (plan_resident), else 0 */
  rr_slot aSlot[RR_MAX_SLOTS];
  int nSlot;
} rr_state;

static int kind(CXCursor c) { return (int)clang_getCursorKind(c); }

static int why(rr_state *pS, const char *zFmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static int why(rr_state *pS, const char *zFmt, ...) {
  if (!pS->zWhy[0]) {
    va_list ap;
    va_start(ap, zFmt);
    vsnprintf(pS->zWhy, sizeof pS->zWhy, zFmt, ap);
    va_end(ap);
  }
  return 0;
}

static unsigned line_of(rr_state *pS, CXCursor c) {
  unsigned s, e, iLine = 0, iCol;
  if (ks_ast_extent(pS->pTu, c, &s, &e) == 0) ks_ast_line_col(pS->pTu, s, &iLine, &iCol);
  return iLine;
}

static int kids(CXCursor c, CXCursor *a, int nMax) { return ks_rw_kids(c, a, nMax); }

static int binop(CXCursor c, enum CXBinaryOperatorKind eOp, CXCursor *pL, CXCursor *pR) {
  CXCursor a[2];
  if (kind(c) != CXCursor_BinaryOperator && kind(c) != CXCursor_CompoundAssignOperator) return 0;
  if (clang_getCursorBinaryOperatorKind(c) != eOp || kids(c, a, 2) != 2) return 0;
  *pL = a[0];
  *pR = a[1];
  return 1;
}

static int param_index(rr_state *pS, CXCursor d) {
  for (int i = 0; i < pS->nParam; i++)
    if (clang_equalCursors(clang_Cursor_getArgument(pS->kernel, (unsigned)i), d)) return i;
  return -1;
}

static int var_index(rr_state *pS, CXCursor d) {
  for (int i = 0; i < pS->nVar; i++)
    if (clang_equalCursors(pS->aVar[i].decl, d)) return i;
  return -1;
}

static int is_body_var(rr_state *pS, CXCursor d) {
  for (int i = 0; i < pS->nBodyVar; i++)
    if (clang_equalCursors(pS->aBodyVar[i], d)) return 1;
  return 0;
}

static int is_cur_acc(rr_state *pS, int iVar) {
  if (!pS->pCur || iVar < 0) return 0;
  for (int i = 0; i < pS->pCur->nAcc; i++)
    if (pS->pCur->aiAcc[i] == iVar || pS->pCur->aiIdx[i] == iVar) return 1;
  return 0;
}

static int is_int_type(CXType t) {
  switch (clang_getCanonicalType(t).kind) {
  case CXType_Int: case CXType_UInt: case CXType_Long: case CXType_ULong: case CXType_LongLong:
  case CXType_ULongLong: case CXType_Short: case CXType_UShort:
    return 1;
  default:
    return 0;
  }
}

static int is_signed_type(CXType t) {
  switch (clang_getCanonicalType(t).kind) {
  case CXType_Int: case CXType_Long: case CXType_LongLong: case CXType_Short: case CXType_SChar:
    return 1;
  default:
    return 0;
  }
}

static int is_zero_literal(rr_state *pS, CXCursor c) {
  c = ks_rw_strip(c);
  if (kind(c) != CXCursor_IntegerLiteral && kind(c) != CXCursor_FloatingLiteral) return 0;
  char *z = ks_ast_text(pS->pTu, c);
  if (!z) return 0;
  char *zEnd;
  double r = strtod(z, &zEnd);
  int b = zEnd != z && r == 0.0;
  free(z);
  return b;
}

static char *squash(rr_state *pS, CXCursor c) { return ks_rw_squash_cursor(pS->pTu, c); }

static int same_text(rr_state *pS, CXCursor a, CXCursor b) {
  char *za = squash(pS, a), *zb = squash(pS, b);
  int bSame = za && zb && strcmp(za, zb) == 0;
  free(za);
  free(zb);
  return bSame;
}

/* A constructor of a 16-bit float type (the copy clang makes of a __half
 * that a conversion intrinsic returns): a value, no effect. */
static int half_constructor(CXCursor call, const char *z) {
  static const char *const azType[] = {"__half", "half", "__nv_bfloat16", "nv_bfloat16", NULL};
  if (clang_getCursorKind(clang_getCursorReferenced(call)) != CXCursor_Constructor) return 0;
  for (int i = 0; azType[i]; i++)
    if (strcmp(z, azType[i]) == 0) return 1;
  return 0;
}


/* ---- expressions: reads only ---- */

static int refs_decl(CXCursor c, CXCursor d);
static int extent(rr_state *pS, CXCursor c, unsigned *piS, unsigned *piE);

/* Is idx element j of a row: j, X + j or j + X with X free of j (j the
 * current loop's variable)? */
static int is_elem_j(rr_state *pS, CXCursor idx) {
  CXCursor l, r;
  if (!pS->pCur) return 0;
  idx = ks_rw_strip(idx);
  if (ks_rw_is_ref_to(idx, pS->pCur->var)) return 1;
  if (!binop(idx, CXBinaryOperator_Add, &l, &r)) return 0;
  return (ks_rw_is_ref_to(r, pS->pCur->var) && !refs_decl(l, pS->pCur->var)) ||
         (ks_rw_is_ref_to(l, pS->pCur->var) && !refs_decl(r, pS->pCur->var));
}

/* Buffer iRoot is accessed at element j by subscript sub of the current
 * loop: noted when it is another element or loop start than its first such
 * access (check_params refuses that for a buffer the loops store into). */
static int note_elem(rr_state *pS, int iRoot, CXCursor sub) {
  char *zSub = squash(pS, sub), *zInit = squash(pS, pS->pCur->init);
  ks_buf b = KS_BUF_INIT;
  int bOk = zSub && zInit && ks_buf_printf(&b, "%s@%s", zSub, zInit) >= 0;
  free(zSub);
  free(zInit);
  if (!bOk) {
    ks_buf_free(&b);
    return why(pS, "out of memory");
  }
  if (!pS->azElem[iRoot]) {
    pS->azElem[iRoot] = ks_buf_detach(&b);
    return 1;
  }
  if (strcmp(pS->azElem[iRoot], b.z) != 0 && !pS->aiElemOther[iRoot]) pS->aiElemOther[iRoot] = line_of(pS, sub);
  ks_buf_free(&b);
  return 1;
}

/* A read through buffer iRoot: at element j of the current loop (pS->atJ), or
 * anywhere else. */
static int note_read(rr_state *pS, int iRoot) {
  if (clang_Cursor_isNull(pS->atJ)) {
    if (pS->bOneThread) pS->abReadOne[iRoot] = 1;
    else pS->abRead[iRoot] = 1;
    return 1;
  }
  pS->abReadJ[iRoot] = 1;
  return note_elem(pS, iRoot, pS->atJ);
}

static int note_ref(rr_state *pS, CXCursor ref) {
  CXCursor d = clang_getCursorReferenced(ref);
  int e = kind(d);
  if (e == CXCursor_FunctionDecl || e == CXCursor_EnumConstantDecl) return 1;
  if (pS->pCur && clang_equalCursors(d, pS->pCur->var)) return 1;
  if (is_body_var(pS, d) || clang_equalCursors(d, pS->row)) return 1;
  int iP = param_index(pS, d);
  if (iP >= 0) {
    if (clang_getCanonicalType(clang_getCursorType(d)).kind == CXType_Pointer) return note_read(pS, iP);
    return 1;
  }
  int iV = var_index(pS, d);
  if (iV >= 0) {
    if (is_cur_acc(pS, iV)) {
      char *z = ks_rw_spelling(d);
      why(pS, "line %u reads the accumulator '%s' inside the loop that accumulates it", line_of(pS, ref), z);
      free(z);
      return 0;
    }
    if (pS->aVar[iV].bPtr) return note_read(pS, pS->aVar[iV].iRoot);
    return 1;
  }
  char *z = ks_rw_spelling(d);
  why(pS, "line %u uses '%s', which is not a parameter or a local of the row body", line_of(pS, ref), z);
  free(z);
  return 0;
}

typedef struct expr_walk {
  rr_state *pS;
  int bOk;
} expr_walk;

static int expr_visit(CXCursor c, const CXCursor *aAnc, int nAnc, void *pArg) {
  expr_walk *w = pArg;
  rr_state *pS = w->pS;
  switch (kind(c)) {
  case CXCursor_DeclRefExpr: {
    /* The base of P[j]? */
    int j = nAnc - 1;
    CXCursor a[2];
    while (j >= 0 && (kind(aAnc[j]) == CXCursor_UnexposedExpr || kind(aAnc[j]) == CXCursor_ParenExpr)) j--;
    pS->atJ = clang_getNullCursor();
    if (j >= 0 && kind(aAnc[j]) == CXCursor_ArraySubscriptExpr && kids(aAnc[j], a, 2) == 2 &&
        clang_equalCursors(ks_rw_strip(a[0]), c) && is_elem_j(pS, a[1]))
      pS->atJ = aAnc[j];
    if (!note_ref(pS, c)) w->bOk = 0;
    pS->atJ = clang_getNullCursor();
    return w->bOk ? 0 : -1;
  }
  case CXCursor_CallExpr: {
    char *z = ks_rw_spelling(c);
    /* math, or a __device__ helper that only computes a value (features/pure.h) */
    const char *zNot = z && half_constructor(c, z) ? NULL : ks_pure_call(c);
    int bPure = z && !zNot;
    if (!bPure) why(pS, "line %u calls '%s', which may have effects: %s", line_of(pS, c), z ? z : "?",
                    zNot ? zNot : "unnamed");
    free(z);
    if (!bPure) w->bOk = 0;
    return w->bOk ? 0 : -1;
  }
  case CXCursor_BinaryOperator: {
    enum CXBinaryOperatorKind e = clang_getCursorBinaryOperatorKind(c);
    if (e == CXBinaryOperator_Assign || e == CXBinaryOperator_Comma) {
      why(pS, "line %u has an assignment or comma inside an expression", line_of(pS, c));
      w->bOk = 0;
      return -1;
    }
    return 0;
  }
  case CXCursor_UnaryOperator: {
    enum CXUnaryOperatorKind e = clang_getCursorUnaryOperatorKind(c);
    if (e == CXUnaryOperator_PreInc || e == CXUnaryOperator_PostInc || e == CXUnaryOperator_PreDec ||
        e == CXUnaryOperator_PostDec) {
      why(pS, "line %u increments or decrements inside an expression", line_of(pS, c));
      w->bOk = 0;
      return -1;
    }
    if (e == CXUnaryOperator_AddrOf) {
      /* Only as the argument of __ldg. */
      int j = nAnc - 1;
      while (j >= 0 && (kind(aAnc[j]) == CXCursor_UnexposedExpr || kind(aAnc[j]) == CXCursor_ParenExpr)) j--;
      char *z = j >= 0 && kind(aAnc[j]) == CXCursor_CallExpr ? ks_rw_spelling(aAnc[j]) : NULL;
      int bLdg = z && strcmp(z, "__ldg") == 0;
      free(z);
      if (!bLdg) {
        why(pS, "line %u takes an address", line_of(pS, c));
        w->bOk = 0;
        return -1;
      }
    }
    return 0;
  }
  case CXCursor_UnexposedExpr: case CXCursor_ParenExpr: case CXCursor_IntegerLiteral: case CXCursor_FloatingLiteral:
  case CXCursor_CharacterLiteral: case CXCursor_CXXBoolLiteralExpr: case CXCursor_ArraySubscriptExpr:
  case CXCursor_CStyleCastExpr: case CXCursor_CXXStaticCastExpr: case CXCursor_CXXFunctionalCastExpr:
  case CXCursor_ConditionalOperator: case CXCursor_TypeRef: case CXCursor_UnaryExpr: case CXCursor_MemberRefExpr:
    return 0;
  default: {
    CXString s = clang_getCursorKindSpelling(clang_getCursorKind(c));
    why(pS, "line %u has an expression this rule does not understand (%s)", line_of(pS, c), clang_getCString(s));
    clang_disposeString(s);
    w->bOk = 0;
    return -1;
  }
  }
}

/* Is c an expression that only reads (parameters, row-body locals, the loop
 * variable, math calls)? Records the buffers it reads. */
static int expr_ok(rr_state *pS, CXCursor c) {
  expr_walk w = {pS, 1};
  if (expr_visit(c, NULL, 0, &w) == 0 && w.bOk) ks_rw_walk(c, expr_visit, &w);
  return w.bOk;
}

typedef struct ref_walk {
  CXCursor d;
  int bHit;
} ref_walk;

static int ref_visit(CXCursor c, const CXCursor *aAnc, int nAnc, void *pArg) {
  (void)aAnc;
  (void)nAnc;
  ref_walk *w = pArg;
  if (kind(c) == CXCursor_DeclRefExpr && clang_equalCursors(clang_getCursorReferenced(c), w->d)) {
    w->bHit = 1;
    return -1;
  }
  return 0;
}

/* Does expression c mention declaration d? */
static int refs_decl(CXCursor c, CXCursor d) {
  ref_walk w = {d, 0};
  if (kind(c) == CXCursor_DeclRefExpr) return clang_equalCursors(clang_getCursorReferenced(c), d);
  ks_rw_walk(c, ref_visit, &w);
  return w.bHit;
}

/* ---- statements ---- */

/* `P`, `P + off`, `off + P`: the buffer (parameter index) P points into. */
static int pointer_root(rr_state *pS, CXCursor init) {
  CXCursor c = ks_rw_strip(init), l, r;
  while (kind(c) == CXCursor_CStyleCastExpr) {
    CXCursor a[2];
    int n = kids(c, a, 2);
    c = ks_rw_strip(a[n - 1]);
  }
  if (kind(c) == CXCursor_DeclRefExpr) {
    CXCursor d = clang_getCursorReferenced(c);
    int iP = param_index(pS, d), iV = var_index(pS, d);
    if (iP >= 0 && clang_getCanonicalType(clang_getCursorType(d)).kind == CXType_Pointer) return iP;
    if (iV >= 0 && pS->aVar[iV].bPtr) return pS->aVar[iV].iRoot;
    return -1;
  }
  if (binop(c, CXBinaryOperator_Add, &l, &r)) {
    for (int k = 0; k < 2; k++) {
      CXCursor base = k ? r : l, off = k ? l : r;
      if (clang_getCanonicalType(clang_getCursorType(base)).kind != CXType_Pointer) continue;
      int iRoot = pointer_root(pS, base);
      if (iRoot >= 0 && expr_ok(pS, off)) return iRoot;
      return -1;
    }
  }
  return -1;
}

/* The buffer a store's target P[idx] writes (bLoop: idx must be j, E + j or j + E). */
static int store_target(rr_state *pS, CXCursor lhs, int bLoop) {
  CXCursor a[2], l, r;
  lhs = ks_rw_strip(lhs);
  if (kind(lhs) != CXCursor_ArraySubscriptExpr || kids(lhs, a, 2) != 2) return -1;
  int iRoot = pointer_root(pS, a[0]);
  if (iRoot < 0) return -1;
  CXCursor idx = ks_rw_strip(a[1]);
  if (!bLoop) return expr_ok(pS, idx) ? iRoot : -1;
  if (ks_rw_is_ref_to(idx, pS->pCur->var)) return iRoot;
  if (binop(idx, CXBinaryOperator_Add, &l, &r)) {
    if (ks_rw_is_ref_to(r, pS->pCur->var) && !ks_rw_is_ref_to(l, pS->pCur->var) && expr_ok(pS, l)) return iRoot;
    if (ks_rw_is_ref_to(l, pS->pCur->var) && !ks_rw_is_ref_to(r, pS->pCur->var) && expr_ok(pS, r)) return iRoot;
  }
  why(pS, "line %u stores to an element that is not element j of a row (j the loop variable)", line_of(pS, lhs));
  return -1;
}

/* A float/double local of the row body the statement assigns, or -1. */
static int acc_target(rr_state *pS, CXCursor lhs) {
  CXCursor d = ks_rw_ref_decl(lhs);
  if (clang_Cursor_isNull(d)) return -1;
  int iV = var_index(pS, d);
  return iV >= 0 && pS->aVar[iV].bFloat ? iV : -1;
}

/* `E > acc`, `acc < E` (bGreater: E is the larger) and the like: the E side. */
static int compare_with(rr_state *pS, CXCursor cond, int iAcc, CXCursor *pE, int *pbEGreater) {
  static const enum CXBinaryOperatorKind ae[] = {CXBinaryOperator_GT, CXBinaryOperator_GE, CXBinaryOperator_LT,
                                                 CXBinaryOperator_LE};
  CXCursor l, r;
  cond = ks_rw_strip(cond);
  for (int i = 0; i < 4; i++) {
    if (!binop(cond, ae[i], &l, &r)) continue;
    int bGT = i < 2; /* l > r */
    if (acc_target(pS, r) == iAcc && acc_target(pS, l) != iAcc) {
      *pE = l;
      *pbEGreater = bGT;
      return 1;
    }
    if (acc_target(pS, l) == iAcc && acc_target(pS, r) != iAcc) {
      *pE = r;
      *pbEGreater = !bGT;
      return 1;
    }
  }
  return 0;
}

/* `if (E > acc) { acc = E; iacc = j; }` (either order inside the braces; `<`
 * for arg-min, and the mirrored comparisons): the value accumulator and the
 * int local holding the index of the best element, which the sequential loop
 * keeps at the FIRST j reaching the extreme. Only strict comparisons: with >=
 * or <= the loop keeps the last index, which the start index would break
 * ties with wrongly. Returns OP_ARGMAX / OP_ARGMIN or -1. */
static int match_arg_pair(rr_state *pS, CXCursor cond, const CXCursor *aThen, int *piAcc, CXCursor *pE,
                          int *piIdx) {
  CXCursor l, r, e, vL = clang_getNullCursor(), vR = clang_getNullCursor(), iL = clang_getNullCursor(),
                    iR = clang_getNullCursor();
  int bEGreater;
  for (int k = 0; k < 2; k++) {
    if (!binop(aThen[k], CXBinaryOperator_Assign, &l, &r)) return -1;
    if (acc_target(pS, l) >= 0) { vL = l; vR = r; }
    else { iL = l; iR = r; }
  }
  if (clang_Cursor_isNull(vL) || clang_Cursor_isNull(iL)) return -1;
  *piAcc = acc_target(pS, vL);
  if (!compare_with(pS, cond, *piAcc, &e, &bEGreater) || !same_text(pS, vR, e)) return -1;
  enum CXBinaryOperatorKind eCmp = clang_getCursorBinaryOperatorKind(ks_rw_strip(cond));
  if (eCmp != CXBinaryOperator_GT && eCmp != CXBinaryOperator_LT) {
    /* (Pass 2 refuses this statement too: the reason stays.) */
    why(pS, "line %u keeps the last index on ties (>= or <=); only the strict > / < arg-max/arg-min pair is "
            "understood", line_of(pS, cond));
    return -1;
  }
  CXCursor d = ks_rw_ref_decl(iL);
  int iIdx = clang_Cursor_isNull(d) ? -1 : var_index(pS, d);
  if (iIdx < 0 || pS->aVar[iIdx].bPtr || clang_getCanonicalType(clang_getCursorType(d)).kind != CXType_Int) {
    why(pS, "line %u: the index of an arg-max/arg-min pair must be an int local of the row body",
        line_of(pS, iL));
    return -1;
  }
  if (!ks_rw_is_ref_to(ks_rw_strip(iR), pS->pCur->var)) {
    why(pS, "line %u: the index of an arg-max/arg-min pair must be set to the loop variable itself",
        line_of(pS, iL));
    return -1;
  }
  *piIdx = iIdx;
  *pE = e;
  return bEGreater ? OP_ARGMAX : OP_ARGMIN;
}

/* A sum kept in memory: lhs is P[row] with P a float or double pointer
 * parameter (polybench's `tmp[i] += A[i * n + j] * x[j]`). The rewrite keeps
 * the sum in a register (ks_m<loop>_<var>, from zero in every thread), reduces
 * it after the loop and has one thread add it to P[row]: P is then a buffer
 * one thread stores into, so any other read of it refuses (check_params).
 * Returns its aVar index (made on first sight) or -1. */
static int mem_acc(rr_state *pS, CXCursor lhs) {
  CXCursor m = ks_rw_strip(lhs), a[2];
  if (kind(m) != CXCursor_ArraySubscriptExpr || kids(m, a, 2) != 2 || !ks_rw_is_ref_to(a[1], pS->row)) return -1;
  CXCursor base = ks_rw_strip(a[0]);
  if (kind(base) != CXCursor_DeclRefExpr) return -1;
  CXCursor d = clang_getCursorReferenced(base);
  int iP = param_index(pS, d);
  if (iP < 0 || clang_getCanonicalType(clang_getCursorType(d)).kind != CXType_Pointer) return -1;
  enum CXTypeKind eT = clang_getCanonicalType(clang_getCursorType(m)).kind;
  if (eT != CXType_Float && eT != CXType_Double) return -1;
  for (int i = 0; i < pS->nVar; i++)
    if (pS->aVar[i].bMem && pS->aVar[i].iRoot == iP) return i;
  if (pS->nVar == RR_MAX_VARS) return -1;
  rr_var *pV = &pS->aVar[pS->nVar];
  memset(pV, 0, sizeof *pV);
  pV->decl = clang_getNullCursor();
  pV->bMem = 1;
  pV->iRoot = iP;
  pV->mem = m;
  pV->bFloat = 1;
  pV->bDouble = eT == CXType_Double;
  pV->bZero = 1;
  pS->abTopStore[iP] = 1;
  return pS->nVar++;
}

/* Recognize an accumulation statement of a loop body: the accumulator, the
 * operation and the contributed expression. Returns -1 when the statement
 * is not one (then *piAcc says whether it touched an accumulator candidate). */
static int match_accumulate(rr_state *pS, CXCursor st, int *piAcc, CXCursor *pE, int *piIdx) {
  CXCursor l, r, a[3];
  *piAcc = -1;
  *piIdx = -1;
  if (binop(st, CXBinaryOperator_AddAssign, &l, &r)) {
    if ((*piAcc = acc_target(pS, l)) < 0 && (!pS->pCur || (*piAcc = mem_acc(pS, l)) < 0)) return -1;
    *pE = r;
    return OP_SUM;
  }
  if (binop(st, CXBinaryOperator_Assign, &l, &r)) {
    if ((*piAcc = acc_target(pS, l)) < 0) return -1;
    int iAcc = *piAcc;
    CXCursor v = ks_rw_strip(r), x, y;
    if (binop(v, CXBinaryOperator_Add, &x, &y)) {
      if (acc_target(pS, x) == iAcc && acc_target(pS, y) != iAcc) { *pE = y; return OP_SUM; }
      if (acc_target(pS, y) == iAcc && acc_target(pS, x) != iAcc) { *pE = x; return OP_SUM; }
      return -1;
    }
    if (kind(v) == CXCursor_CallExpr && clang_Cursor_getNumArguments(v) == 2) {
      char *z = ks_rw_spelling(v);
      int eOp = !z ? -1
                : (strcmp(z, "fmaxf") == 0 || strcmp(z, "fmax") == 0 || strcmp(z, "max") == 0) ? OP_MAX
                : (strcmp(z, "fminf") == 0 || strcmp(z, "fmin") == 0 || strcmp(z, "min") == 0) ? OP_MIN
                                                                                                : -1;
      free(z);
      if (eOp < 0) return -1;
      CXCursor a0 = clang_Cursor_getArgument(v, 0), a1 = clang_Cursor_getArgument(v, 1);
      if (acc_target(pS, a0) == iAcc && acc_target(pS, a1) != iAcc) { *pE = a1; return eOp; }
      if (acc_target(pS, a1) == iAcc && acc_target(pS, a0) != iAcc) { *pE = a0; return eOp; }
      return -1;
    }
    if (kind(v) == CXCursor_ConditionalOperator && kids(v, a, 3) == 3) {
      /* c ? t : f with one of t, f the accumulator and the other the E compared. */
      CXCursor e;
      int bEGreater;
      if (!compare_with(pS, a[0], iAcc, &e, &bEGreater)) return -1;
      if (acc_target(pS, a[2]) == iAcc && same_text(pS, a[1], e)) { *pE = e; return bEGreater ? OP_MAX : OP_MIN; }
      if (acc_target(pS, a[1]) == iAcc && same_text(pS, a[2], e)) { *pE = e; return bEGreater ? OP_MIN : OP_MAX; }
      return -1;
    }
    return -1;
  }
  if (kind(st) == CXCursor_IfStmt) {
    /* if (E > acc) acc = E;  (no else) */
    int n = kids(st, a, 3);
    CXCursor e, then, ll, rr;
    int bEGreater;
    if (n != 2) return -1;
    then = a[1];
    if (kind(then) == CXCursor_CompoundStmt) {
      CXCursor b[3];
      int nThen = kids(then, b, 3);
      if (nThen == 2) return match_arg_pair(pS, a[0], b, piAcc, pE, piIdx);
      if (nThen != 1) return -1;
      then = b[0];
    }
    if (!binop(then, CXBinaryOperator_Assign, &ll, &rr) || (*piAcc = acc_target(pS, ll)) < 0) return -1;
    if (!compare_with(pS, a[0], *piAcc, &e, &bEGreater) || !same_text(pS, rr, e)) return -1;
    *pE = e;
    return bEGreater ? OP_MAX : OP_MIN;
  }
  return -1;
}

/* atomicAdd / atomicMax / atomicMin with two arguments. */
static int is_atomic_call(CXCursor st) {
  if (kind(st) != CXCursor_CallExpr || clang_Cursor_getNumArguments(st) != 2) return 0;
  char *z = ks_rw_spelling(st);
  int b = z && (strcmp(z, "atomicAdd") == 0 || strcmp(z, "atomicMax") == 0 || strcmp(z, "atomicMin") == 0);
  free(z);
  return b;
}

/* `atomicAdd(P, E)`, `atomicAdd(&P[e], E)`, `atomicAdd(P + e, E)` (atomicMax,
 * atomicMin) as a statement of the row body: a store of the row's result into
 * P's buffer, like `out[row] = acc;` (one thread executes it). Returns the
 * buffer (parameter index) or -1. */
static int atomic_store_target(rr_state *pS, CXCursor st) {
  CXCursor ptr = ks_rw_strip(clang_Cursor_getArgument(st, 0)), a[2];
  int iRoot = -1;
  if (kind(ptr) == CXCursor_UnaryOperator && clang_getCursorUnaryOperatorKind(ptr) == CXUnaryOperator_AddrOf &&
      kids(ptr, a, 2) == 1)
    iRoot = store_target(pS, a[0], 0);
  else if (clang_getCanonicalType(clang_getCursorType(ptr)).kind == CXType_Pointer)
    iRoot = pointer_root(pS, ptr);
  if (iRoot < 0)
    return why(pS, "line %u: the address of the atomic update is not a parameter's buffer plus an offset",
               line_of(pS, st)) - 1;
  if (!expr_ok(pS, clang_Cursor_getArgument(st, 1))) return -1;
  return iRoot;
}

/* The variables declaration statement stmt declares (at most 16, into a):
 * their number, or 0 with the reason set when it declares anything else. */
static int decl_vars(rr_state *pS, CXCursor stmt, CXCursor *a) {
  int n = kids(stmt, a, 16);
  if (n > 16) return why(pS, "line %u declares too many variables at once", line_of(pS, stmt));
  for (int i = 0; i < n; i++)
    if (kind(a[i]) != CXCursor_VarDecl) return why(pS, "line %u declares something that is not a variable", line_of(pS, stmt));
  return n;
}

/* The initializer of variable v, or a null cursor. */
static CXCursor var_init(CXCursor v) {
  CXCursor init = clang_getNullCursor(), w[8];
  int m = kids(v, w, 8);
  for (int k = 0; k < m && k < 8; k++)
    if (clang_isExpression(clang_getCursorKind(w[k]))) init = w[k];
  return init;
}

/* Statement st is `P[j] = E` on a class-type element (__half, __nv_bfloat16:
 * a call of its operator=, in the cleanups of the temporary E makes). */
static int class_assign(CXCursor st, CXCursor *pL, CXCursor *pR) {
  while (kind(st) == CXCursor_UnexposedExpr) {
    CXCursor a[2];
    if (kids(st, a, 2) != 1) return 0;
    st = a[0];
  }
  if (kind(st) != CXCursor_CallExpr || clang_Cursor_getNumArguments(st) != 2) return 0;
  char *z = ks_rw_spelling(st);
  int bAssign = z && strcmp(z, "operator=") == 0;
  free(z);
  if (!bAssign) return 0;
  *pL = clang_Cursor_getArgument(st, 0);
  *pR = clang_Cursor_getArgument(st, 1);
  return kind(ks_rw_strip(*pL)) == CXCursor_ArraySubscriptExpr;
}

static int add_body_var(rr_state *pS, CXCursor stmt) {
  CXCursor a[16];
  int n = decl_vars(pS, stmt, a);
  if (n == 0) return 0;
  for (int i = 0; i < n; i++) {
    enum CXTypeKind eT = clang_getCanonicalType(clang_getCursorType(a[i])).kind;
    if (eT == CXType_Pointer || eT == CXType_ConstantArray || eT == CXType_Record)
      return why(pS, "line %u declares a pointer, array or struct inside a row loop", line_of(pS, stmt));
    CXCursor init = var_init(a[i]);
    if (clang_Cursor_isNull(init)) return why(pS, "line %u declares a variable without a value", line_of(pS, stmt));
    if (!expr_ok(pS, init)) return 0;
    if (pS->nBodyVar == RR_MAX_VARS) return why(pS, "too many variables in a row loop");
    pS->aBodyVar[pS->nBodyVar++] = a[i];
  }
  return 1;
}

/* A statement of a row loop's body that assigns: to a variable of the body,
 * or a store of element j (P[j] = E, P[j] op= E). 1: understood, 0: refused
 * (the reason set), -1: not such an assignment. */
static int loop_assign(rr_state *pS, CXCursor st) {
  CXCursor l, r;
  rr_loop *pL = pS->pCur;
  enum CXBinaryOperatorKind eB = kind(st) == CXCursor_BinaryOperator || kind(st) == CXCursor_CompoundAssignOperator
                                     ? clang_getCursorBinaryOperatorKind(st)
                                     : CXBinaryOperator_Invalid;
  if (eB != CXBinaryOperator_Invalid) binop(st, eB, &l, &r);
  else if (class_assign(st, &l, &r)) eB = CXBinaryOperator_Assign;
  if (eB != CXBinaryOperator_Assign && !(eB >= CXBinaryOperator_MulAssign && eB <= CXBinaryOperator_OrAssign))
    return -1;
  CXCursor d = ks_rw_ref_decl(l);
  if (!clang_Cursor_isNull(d) && is_body_var(pS, d)) return expr_ok(pS, r);
  if (kind(ks_rw_strip(l)) != CXCursor_ArraySubscriptExpr) return -1;
  /* P[j] = E, or P[j] op= E (a read and a store of element j) */
  int iRoot = store_target(pS, l, 1);
  if (iRoot < 0) return why(pS, "line %u stores through a pointer this rule cannot trace to a parameter",
                            line_of(pS, st));
  if (!expr_ok(pS, r) || (eB != CXBinaryOperator_Assign && !expr_ok(pS, l))) return 0;
  if (!note_elem(pS, iRoot, ks_rw_strip(l))) return 0;
  if (pS->abTopStore[iRoot])
    return why(pS, "line %u stores into a buffer another statement of the row also stores into", line_of(pS, st));
  if (!pS->aiLoopStore[iRoot]) pS->aiLoopStore[iRoot] = pS->nLoop + 1;
  pL->bStores = 1;
  return 1;
}

/* `if (C) S1 else S2` in a row loop's body whose branches only store element j
 * (or assign the body's variables, or are such ifs): the causal mask's
 * `if (j <= t) p[j] *= inv; else p[j] = 0.0f;`. Each element's statements run
 * in the thread that owns element j, whichever branch it takes, so the
 * condition may be anything that only reads. 1, 0 or -1 as loop_assign (-1:
 * a branch holds something else). */
static int loop_if_store(rr_state *pS, CXCursor st) {
  CXCursor a[4], b[64];
  int n = kids(st, a, 4);
  if (n < 2 || n > 3 || !clang_isExpression(clang_getCursorKind(a[0]))) return -1;
  for (int k = 1; k < n; k++) {
    int nB = 1;
    if (kind(a[k]) == CXCursor_CompoundStmt) nB = kids(a[k], b, 64);
    else b[0] = a[k];
    if (nB > 64) return why(pS, "the if at line %u is too long", line_of(pS, st));
    for (int i = 0; i < nB; i++) {
      if (kind(b[i]) == CXCursor_NullStmt) continue;
      int rc = kind(b[i]) == CXCursor_IfStmt ? loop_if_store(pS, b[i]) : loop_assign(pS, b[i]);
      if (rc <= 0) return rc; /* -1: an if this rule does not understand (the caller says so) */
    }
  }
  if (!expr_ok(pS, a[0])) return 0;
  pS->pCur->bCondStore = 1;
  return 1;
}

/* for (T j = A; j < B; ++j | j++ | j += 1) BODY, BODY: declarations, accumulations, stores of element j,
 * assignments to its own variables. */
static int match_loop(rr_state *pS, CXCursor loop) {
  CXCursor a[4], v[4], l, r, body[64];
  int nLine = (int)line_of(pS, loop);
  if (pS->nLoop == RR_MAX_LOOPS) return why(pS, "too many row loops");
  rr_loop *pL = &pS->aLoop[pS->nLoop];
  memset(pL, 0, sizeof *pL);
  pL->loop = loop;
  if (kids(loop, a, 4) != 4)
    return why(pS, "the loop at line %d lacks its initialization, condition or increment", nLine);
  int iFree = -1;
  if (binop(ks_rw_strip(a[0]), CXBinaryOperator_Assign, &l, &r)) {
    /* for (j = A; ...) over `int j;` declared without a value before it */
    CXCursor d = ks_rw_ref_decl(l);
    for (int i = 0; i < pS->nFree && !clang_Cursor_isNull(d); i++)
      if (clang_equalCursors(pS->aFree[i], d)) iFree = i;
  }
  if (iFree >= 0) {
    pL->var = pS->aFree[iFree];
    pL->init = r;
  } else {
    if (kind(a[0]) != CXCursor_DeclStmt || kids(a[0], v, 2) != 1 || kind(v[0]) != CXCursor_VarDecl ||
        !is_int_type(clang_getCursorType(v[0])))
      return why(pS, "the loop at line %d does not declare one integer loop variable", nLine);
    pL->var = v[0];
    CXCursor w[4];
    int m = kids(v[0], w, 4);
    pL->init = clang_getNullCursor();
    for (int i = 0; i < m && i < 4; i++)
      if (clang_isExpression(clang_getCursorKind(w[i]))) pL->init = w[i];
  }
  pS->pCur = pL;
  pS->nBodyVar = 0;
  if (clang_Cursor_isNull(pL->init) || refs_decl(pL->init, pL->var))
    return why(pS, "the loop at line %d does not start from a value computed from the row", nLine);
  int bLE = 0;
  if (!binop(ks_rw_strip(a[1]), CXBinaryOperator_LT, &l, &r) || !ks_rw_is_ref_to(l, pL->var)) {
    if (!binop(ks_rw_strip(a[1]), CXBinaryOperator_LE, &l, &r) || !ks_rw_is_ref_to(l, pL->var))
      return why(pS, "the loop at line %d is not `j < bound` or `j <= bound`", nLine);
    /* j <= B is j < B + 1 computed in 64 bits: exact when j and B are signed */
    if (!is_signed_type(clang_getCursorType(pL->var)) || !is_signed_type(clang_getCursorType(r)))
      return why(pS, "the loop at line %d is `j <= bound` with an unsigned variable or bound", nLine);
    bLE = 1;
  }
  CXCursor bnd = r;
  pL->bound = bnd;
  pL->body = a[3];
  if (refs_decl(bnd, pL->var)) return why(pS, "the bound of the loop at line %d depends on its variable", nLine);
  CXCursor inc = ks_rw_strip(a[2]);
  pL->inc = a[2];
  int bInc = 0;
  if (kind(inc) == CXCursor_UnaryOperator) {
    enum CXUnaryOperatorKind e = clang_getCursorUnaryOperatorKind(inc);
    CXCursor u[2];
    bInc = (e == CXUnaryOperator_PreInc || e == CXUnaryOperator_PostInc) && kids(inc, u, 2) == 1 &&
           ks_rw_is_ref_to(u[0], pL->var);
  } else if (binop(inc, CXBinaryOperator_AddAssign, &l, &r) && ks_rw_is_ref_to(l, pL->var)) {
    char *z = ks_ast_text(pS->pTu, ks_rw_strip(r));
    bInc = z && strcmp(z, "1") == 0;
    free(z);
  }
  if (!bInc) return why(pS, "the loop at line %d does not step by one", nLine);

  /* The body's statements. */
  int nBody;
  if (kind(a[3]) == CXCursor_CompoundStmt) {
    nBody = kids(a[3], body, 64);
    if (nBody > 64) return why(pS, "the loop at line %d is too long", nLine);
  } else {
    body[0] = a[3];
    nBody = 1;
  }
  /* Pass 1: the accumulators of this loop. */
  for (int i = 0; i < nBody; i++) {
    int iAcc, iIdx;
    CXCursor e;
    int eOp = match_accumulate(pS, body[i], &iAcc, &e, &iIdx);
    if (eOp < 0) continue;
    int k;
    for (k = 0; k < pL->nAcc && pL->aiAcc[k] != iAcc; k++) {}
    if (k == pL->nAcc) {
      if (pL->nAcc == RR_MAX_ACC) return why(pS, "the loop at line %d has too many accumulators", nLine);
      pL->aiAcc[k] = iAcc;
      pL->aeOp[k] = eOp;
      pL->aiIdx[k] = iIdx;
      pL->nAcc++;
    } else if (pL->aeOp[k] != eOp || pL->aiIdx[k] != iIdx) {
      return why(pS, "the loop at line %d combines one accumulator in two ways", nLine);
    }
    for (int q = 0; q < pL->nAcc; q++)
      if (q != k && iIdx >= 0 && pL->aiIdx[q] == iIdx)
        return why(pS, "the loop at line %d keeps one index for two arg-max/arg-min values", nLine);
  }
  /* The start and the bound only read (and not this loop's accumulators). */
  if (!expr_ok(pS, pL->init) || !expr_ok(pS, bnd)) return 0;
  /* Pass 2: every statement, with the accumulators now known. */
  for (int i = 0; i < nBody; i++) {
    CXCursor st = body[i], e;
    int iAcc, iIdx;
    int eOp = match_accumulate(pS, st, &iAcc, &e, &iIdx);
    if (eOp > 0) {
      /* (An if's condition repeats E: the same text, so checking E covers it.) */
      if (!expr_ok(pS, e)) return 0;
      if (pS->aVar[iAcc].bMem) {
        if (pL->nMemRef == 16) return why(pS, "the loop at line %d adds to memory too often", nLine);
        binop(st, CXBinaryOperator_AddAssign, &l, &r);
        pL->aMemRef[pL->nMemRef] = ks_rw_strip(l);
        pL->aiMemVar[pL->nMemRef++] = iAcc;
      }
      continue;
    }
    if (iAcc >= 0) {
      char *z = ks_rw_spelling(pS->aVar[iAcc].decl);
      why(pS, "line %u updates '%s' in a way this rule does not understand (sum via +=, max/min via fmaxf/fminf, "
              "max/min, a ternary or an if, arg-max/arg-min `if (E > acc) { acc = E; i = j; }`)",
          line_of(pS, st), z);
      free(z);
      return 0;
    }
    if (kind(st) == CXCursor_DeclStmt) {
      if (!add_body_var(pS, st)) return 0;
      continue;
    }
    if (kind(st) == CXCursor_NullStmt) continue;
    int rc = kind(st) == CXCursor_IfStmt ? loop_if_store(pS, st) : loop_assign(pS, st);
    if (rc == 0) return 0;
    if (rc > 0) continue;
    if (is_atomic_call(st))
      return why(pS, "line %u in the loop at line %d is an atomic update; only a row's result stored after the "
                     "loops is understood", line_of(pS, st), nLine);
    CXString s = clang_getCursorKindSpelling(clang_getCursorKind(st));
    why(pS, "line %u in the loop at line %d is not a declaration, accumulation or store of element j this rule "
            "understands (%s)",
        line_of(pS, st), nLine, clang_getCString(s));
    clang_disposeString(s);
    return 0;
  }
  if (!pL->nAcc && !pL->bStores) return why(pS, "the loop at line %d neither accumulates nor stores", nLine);
  /* Sums whose value before the loop is not a literal zero restart at 0 in all threads but the first. */
  for (int k = 0; k < pL->nAcc; k++) {
    rr_var *pV = &pS->aVar[pL->aiAcc[k]];
    pL->abReset[k] = pL->aeOp[k] == OP_SUM && !pV->bZero && !pV->bMem;
    pV->bZero = 0;
  }
  if (bLE) {
    /* after every refusal: the text is freed with the loop (apply_row_reduce) */
    unsigned iS, iE;
    char *zB = extent(pS, bnd, &iS, &iE) < 0 ? NULL : ks_ast_text(pS->pTu, bnd);
    ks_buf b = KS_BUF_INIT;
    if (!zB) return why(pS, "the bound of the loop at line %d is written with a macro", nLine);
    int bOk = ks_buf_printf(&b, "(long long)(%s) + 1", zB) >= 0;
    free(zB);
    if (!bOk) return why(pS, "out of memory");
    pL->zLimit = ks_buf_detach(&b);
  }
  pS->pCur = NULL;
  pS->nBodyVar = 0;
  pS->nLoop++;
  return 1;
}

static int match_decl(rr_state *pS, CXCursor stmt) {
  CXCursor a[16];
  int n = decl_vars(pS, stmt, a);
  if (n == 0) return 0;
  for (int i = 0; i < n; i++) {
    CXType t = clang_getCanonicalType(clang_getCursorType(a[i]));
    CXCursor init = var_init(a[i]);
    char *zName = ks_rw_spelling(a[i]);
    int bBad = !zName || strncmp(zName, "ks_", 3) == 0;
    free(zName);
    if (bBad) return why(pS, "line %u declares a name starting with ks_ (names this rule uses)", line_of(pS, stmt));
    if (clang_Cursor_isNull(init) && is_int_type(t) && pS->nFree < 8) {
      /* `int j;`: usable only as a row loop's variable (for (j = 0; ...)); any other use is
       * a name the row body does not know (note_ref refuses it) */
      pS->aFree[pS->nFree++] = a[i];
      continue;
    }
    if (clang_Cursor_isNull(init)) return why(pS, "line %u declares a variable without a value", line_of(pS, stmt));
    if (pS->nVar == RR_MAX_VARS) return why(pS, "too many variables in the row body");
    rr_var *pV = &pS->aVar[pS->nVar];
    memset(pV, 0, sizeof *pV);
    pV->decl = a[i];
    if (t.kind == CXType_Pointer) {
      if ((pV->iRoot = pointer_root(pS, init)) < 0)
        return why(pS, "line %u: the pointer is not a parameter plus an offset", line_of(pS, stmt));
      pV->bPtr = 1;
    } else if (t.kind == CXType_ConstantArray || t.kind == CXType_Record || t.kind == CXType_LValueReference) {
      return why(pS, "line %u declares an array, struct or reference", line_of(pS, stmt));
    } else {
      if (!expr_ok(pS, init)) return 0;
      pV->bFloat = t.kind == CXType_Float || t.kind == CXType_Double;
      pV->bDouble = t.kind == CXType_Double;
      pV->bZero = is_zero_literal(pS, init);
    }
    pS->nVar++;
  }
  return 1;
}

static int match_row_body(rr_state *pS, const CXCursor *aSt, int nSt) {
  CXCursor l, r;
  for (int i = 0; i < nSt; i++) {
    CXCursor st = aSt[i];
    switch (kind(st)) {
    case CXCursor_DeclStmt:
      if (!match_decl(pS, st)) return 0;
      continue;
    case CXCursor_ForStmt:
      if (!match_loop(pS, st)) return 0;
      continue;
    case CXCursor_NullStmt:
      continue;
    case CXCursor_CallExpr: {
      if (!is_atomic_call(st)) break;
      int iRoot = atomic_store_target(pS, st);
      if (iRoot < 0) return 0;
      if (pS->aiLoopStore[iRoot])
        return why(pS, "line %u stores into a buffer a row loop also stores into", line_of(pS, st));
      pS->abTopStore[iRoot] = 1;
      if (pS->nTopStore == RR_MAX_VARS) return why(pS, "too many stores of the row's result");
      pS->aTopStore[pS->nTopStore++] = st;
      continue;
    }
    case CXCursor_BinaryOperator:
    case CXCursor_CompoundAssignOperator: {
      enum CXBinaryOperatorKind eB = clang_getCursorBinaryOperatorKind(st);
      if (eB != CXBinaryOperator_Assign && !(eB >= CXBinaryOperator_MulAssign && eB <= CXBinaryOperator_OrAssign))
        break;
      binop(st, eB, &l, &r);
      CXCursor d = ks_rw_ref_decl(l);
      int iV = clang_Cursor_isNull(d) ? -1 : var_index(pS, d);
      if (iV >= 0 && !pS->aVar[iV].bPtr) {
        if (!expr_ok(pS, r)) return 0;
        pS->aVar[iV].bZero = 0;
        continue;
      }
      if (eB == CXBinaryOperator_Assign && kind(ks_rw_strip(l)) == CXCursor_ArraySubscriptExpr) {
        /* one thread runs it: its reads race only with stores by other threads (check_params) */
        pS->bOneThread = 1;
        int iRoot = store_target(pS, l, 0);
        int bOk = iRoot >= 0 && expr_ok(pS, r);
        pS->bOneThread = 0;
        if (iRoot < 0) return why(pS, "line %u stores through a pointer this rule cannot trace to a parameter",
                                  line_of(pS, st));
        if (!bOk) return 0;
        if (pS->aiLoopStore[iRoot])
          return why(pS, "line %u stores into a buffer a row loop also stores into", line_of(pS, st));
        pS->abTopStore[iRoot] = 1;
        if (pS->nTopStore == RR_MAX_VARS) return why(pS, "too many stores of the row's result");
        pS->aTopStore[pS->nTopStore++] = st;
        continue;
      }
      break;
    }
    default:
      break;
    }
    CXString s = clang_getCursorKindSpelling(clang_getCursorKind(st));
    why(pS, "line %u is not a statement this rule understands in a row body (%s)", line_of(pS, st),
        clang_getCString(s));
    clang_disposeString(s);
    return 0;
  }
  return 1;
}

/* The row guard: `if (row >= R) return;` / `if (R <= row) return;` (then the rest of the body), or
 * `if (row < R) { ... }` / `if (R > row) ...` as the last statement. Returns the bound R, *pbEarly. */
static int match_guard(rr_state *pS, CXCursor st, CXCursor *pBound, int *pbEarly, CXCursor *pThen) {
  CXCursor a[3], l, r;
  if (kind(st) != CXCursor_IfStmt || kids(st, a, 3) != 2) return 0;
  CXCursor cond = ks_rw_strip(a[0]);
  int bGE = 0, bLT = 0;
  if (binop(cond, CXBinaryOperator_GE, &l, &r) && ks_rw_is_ref_to(l, pS->row)) { *pBound = r; bGE = 1; }
  else if (binop(cond, CXBinaryOperator_LE, &l, &r) && ks_rw_is_ref_to(r, pS->row)) { *pBound = l; bGE = 1; }
  else if (binop(cond, CXBinaryOperator_LT, &l, &r) && ks_rw_is_ref_to(l, pS->row)) { *pBound = r; bLT = 1; }
  else if (binop(cond, CXBinaryOperator_GT, &l, &r) && ks_rw_is_ref_to(r, pS->row)) { *pBound = l; bLT = 1; }
  else return 0;
  CXCursor then = a[1];
  if (bGE) {
    CXCursor b[2];
    if (kind(then) == CXCursor_CompoundStmt && kids(then, b, 2) == 1) then = b[0];
    if (kind(then) != CXCursor_ReturnStmt || kids(then, b, 2) != 0) return 0;
    *pbEarly = 1;
    return 1;
  }
  (void)bLT;
  *pbEarly = 0;
  *pThen = then;
  return 1;
}

/* ---- the row reductions: the shipped ks_rowreduce.cuh ---- */

/* eKind: HK_BLOCK, HK_WARP, or HK_GROUP (threads=auto: as the block, but a
 * group of one warp returns after its shuffles: no shared slots, no barrier,
 * since blockDim.y rows then share the block). */
enum { HK_BLOCK, HK_WARP, HK_GROUP };
static const char *const azKind[] = {"block", "warp", "group"};

static int helper_kind(const rr_state *pS) { return pS->bWarp ? HK_WARP : pS->bGroup ? HK_GROUP : HK_BLOCK; }

/* The call of the header's reduction: ks_rowred::block_sum<float>. */
static const char *helper_name(int eOp, int bDouble, int eKind, char *zBuf, size_t nBuf) {
  snprintf(zBuf, nBuf, "ks_rowred::%s_%s<%s>", azKind[eKind], azOpName[eOp], bDouble ? "double" : "float");
  return zBuf;
}

typedef struct fn_find {
  ks_tu *pTu;
  const char *zName;
  long iAt; /* offset of a main-file function of that name, -1 */
} fn_find;

static enum CXChildVisitResult find_fn_visit(CXCursor c, CXCursor parent, CXClientData d) {
  (void)parent;
  fn_find *pF = d;
  enum CXCursorKind e = clang_getCursorKind(c);
  if (e == CXCursor_Namespace || e == CXCursor_LinkageSpec) return CXChildVisit_Recurse;
  if (e == CXCursor_FunctionDecl && ks_ast_in_main_file(c)) {
    CXString s = clang_getCursorSpelling(c);
    unsigned iS, iE;
    if (strcmp(clang_getCString(s), pF->zName) == 0 && ks_ast_extent(pF->pTu, c, &iS, &iE) == 0) pF->iAt = iS;
    clang_disposeString(s);
  }
  return CXChildVisit_Continue;
}

/* A launch argument that can be evaluated once more without harm: names,
 * literals, member access, arithmetic and casts; no calls, no assignments. */
static int simple_arg(const char *z) {
  char cPrev = 0;
  for (const char *q = z; *q; q++) {
    if (*q == '=' || (q[0] == '+' && q[1] == '+') || (q[0] == '-' && q[1] == '-') || *q == ',' || *q == '?') return 0;
    if (*q == '(' && cPrev && (cPrev == '_' || (cPrev >= 'a' && cPrev <= 'z') || (cPrev >= 'A' && cPrev <= 'Z') ||
                               (cPrev >= '0' && cPrev <= '9')))
      return 0;
    if (*q != ' ' && *q != '\t' && *q != '\n') cPrev = *q;
  }
  return 1;
}

/* Do [iStart, iEnd) hold a token coming from a macro expansion? With
 * bCopy, a range the rewrite only copies whole (a loop body in the unrolled
 * loops): there a use of a macro defined in the file (NY, DATA_TYPE) expands
 * in each copy as in the original, and only a built-in one (__LINE__,
 * __COUNTER__, whose value changes with the place) counts. */
static int has_macro_ex(ks_tu *pTu, unsigned iStart, unsigned iEnd, int bCopy) {
  ks_rw_tok *a;
  int n, bMacro = 0;
  if (ks_rw_tokens(pTu, iStart, iEnd, &a, &n) < 0) return 1;
  CXFile file = clang_getFile(pTu->pTu, pTu->zFile);
  for (int i = 0; i < n && !bMacro; i++) {
    if (a[i].eKind != CXToken_Identifier) continue;
    CXCursor c = clang_getCursor(pTu->pTu, clang_getLocationForOffset(pTu->pTu, file, a[i].iStart));
    if (clang_getCursorKind(c) != CXCursor_MacroExpansion) continue;
    CXCursor d = clang_getCursorReferenced(c);
    bMacro = !bCopy || clang_Cursor_isNull(d) || clang_Cursor_isMacroBuiltin(d);
  }
  ks_rw_tokens_free(a, n);
  return bMacro;
}

static int has_macro(ks_tu *pTu, unsigned iStart, unsigned iEnd) { return has_macro_ex(pTu, iStart, iEnd, 0); }

static int extent(rr_state *pS, CXCursor c, unsigned *piS, unsigned *piE) {
  if (ks_ast_extent(pS->pTu, c, piS, piE) < 0 || has_macro(pS->pTu, *piS, *piE)) return -1;
  return 0;
}

/* TEXT's lines after the first, moved from indentation zOld to zOld + nMore spaces. */
static int put_reindented(ks_buf *pB, const char *zText, int nText, const char *zOld, int nMore) {
  size_t nOld = strlen(zOld);
  int rc = KS_OK;
  for (int i = 0; i < nText && rc >= 0; i++) {
    rc = ks_buf_printf(pB, "%c", zText[i]);
    if (zText[i] == '\n' && rc >= 0 && (size_t)(nText - i - 1) >= nOld && strncmp(zText + i + 1, zOld, nOld) == 0)
      rc = ks_buf_printf(pB, "%*s", nMore, "");
  }
  return rc;
}

/* The register that holds memory sum iVar in loop pL. */
static const char *mem_name(rr_state *pS, const rr_loop *pL, int iVar, char *zBuf, size_t nBuf) {
  snprintf(zBuf, nBuf, "ks_m%d_%d", (int)(pL - pS->aLoop), iVar);
  return zBuf;
}

/* Resident rows: has a pass before iLoop among uLoops (a bit a pass) the same bound? */
static int bound_seen(const rr_state *pS, int iLoop, unsigned uLoops) {
  for (int q = 0; q < iLoop; q++)
    if ((uLoops >> q & 1u) && strcmp(pS->aLoop[q].zBoundKey, pS->aLoop[iLoop].zBoundKey) == 0) return 1;
  return 0;
}

/* Resident rows: `j < (B_q)` for each pass q in uLoops (a bound once),
 * joined by ||; with bNot `!(j < (B_q))` joined by &&. */
static int put_below(const rr_state *pS, const char *zVar, unsigned uLoops, int bNot, ks_buf *pB) {
  int rc = KS_OK, n = 0;
  for (int q = 0; q < pS->nLoop && rc >= 0; q++) {
    if (!(uLoops >> q & 1u) || bound_seen(pS, q, uLoops)) continue;
    rc = ks_buf_printf(pB, bNot ? "%s!(%s < (%s))" : "%s%s < (%s)", n++ ? (bNot ? " && " : " || ") : "", zVar,
                       pS->aLoop[q].zBoundText);
  }
  return rc;
}

/* Resident rows: a lazy read of slot s at [iS, iE) (res_plan_slots): the
 * register where a covering pass holds element j, else the element loaded
 * into it. */
static int put_lazy(const rr_state *pS, const rr_loop *pL, const rr_pack *pP, int s, unsigned iS, unsigned iE,
                    ks_buf *pB) {
  char *zVar = ks_rw_spelling(pL->var);
  int rc = zVar ? ks_buf_puts(pB, "(") : KS_ENOMEM;
  if (rc >= 0 && pP->uCov) {
    rc = put_below(pS, zVar, pP->uCov, 0, pB);
    if (rc >= 0) rc = ks_buf_printf(pB, " ? ks_r%d[ks_k] : ", s);
  }
  if (rc >= 0) rc = ks_buf_printf(pB, "(ks_r%d[ks_k] = %.*s))", s, (int)(iE - iS), pS->pTu->zSrc + iS);
  free(zVar);
  return rc;
}

/* The loop body's text [iBs, iBe) with every memory sum's P[row] replaced by
 * its register and, with bPacks, every packed access by its pack's element
 * (ks_q<k>[ks_u][ks_e]; bPacks 2: its resident slot, ks_r<s>[ks_k]; 3: its resident pack,
 * ks_r<s>[ks_u][ks_e]); malloc'd, or NULL
 * with the refusal set. */
static char *body_text(rr_state *pS, const rr_loop *pL, unsigned iBs, unsigned iBe, int bPacks) {
  ks_buf b = KS_BUF_INIT;
  unsigned iAt = iBs;
  int rc = KS_OK;
  for (;;) {
    int iNext = -1, bOcc = 0;
    unsigned iNs = iBe, iNe = iBe;
    for (int i = 0; i < pL->nMemRef; i++) {
      unsigned s0, e0;
      if (extent(pS, pL->aMemRef[i], &s0, &e0) < 0) {
        ks_buf_free(&b);
        ks_rewrite_refuse(pS->p, "the sum into memory at line %u is written with a macro", line_of(pS, pL->aMemRef[i]));
        return NULL;
      }
      if (s0 >= iAt && s0 < iNs) {
        iNext = i;
        iNs = s0;
        iNe = e0;
      }
    }
    for (int i = 0; bPacks && i < pL->nOcc; i++) {
      if (pL->aiOccS[i] >= iAt && pL->aiOccS[i] < iNs) {
        iNext = i;
        bOcc = 1;
        iNs = pL->aiOccS[i];
        iNe = pL->aiOccE[i];
      }
    }
    rc = ks_buf_printf(&b, "%.*s", (int)(iNs - iAt), pS->pTu->zSrc + iAt);
    if (rc < 0 || iNext < 0) break;
    char zName[32];
    const rr_pack *pP = bOcc ? &pL->aPack[pL->aiOccPack[iNext]] : NULL;
    if (bOcc && bPacks == 2 && pP->bLazy && pL->abOccLoad[iNext])
      rc = put_lazy(pS, pL, pP, pL->aiPackSlot[pL->aiOccPack[iNext]], iNs, iNe, &b);
    else if (bOcc && bPacks == 2) rc = ks_buf_printf(&b, "ks_r%d[ks_k]", pL->aiPackSlot[pL->aiOccPack[iNext]]);
    else if (bOcc && bPacks == 3) rc = ks_buf_printf(&b, "ks_r%d[ks_u][ks_e]", pL->aiPackSlot[pL->aiOccPack[iNext]]);
    else if (bOcc) rc = ks_buf_printf(&b, "ks_q%d[ks_u][ks_e]", pL->aiOccPack[iNext]);
    else rc = ks_buf_puts(&b, mem_name(pS, pL, pL->aiMemVar[iNext], zName, sizeof zName));
    if (rc < 0) break;
    iAt = iNe;
  }
  if (rc < 0) {
    ks_buf_free(&b);
    ks_error_set(KS_ENOMEM, "out of memory");
    return NULL;
  }
  char *z = ks_buf_detach(&b);
  if (!z) ks_error_set(KS_ENOMEM, "out of memory");
  return z;
}

/* The strided row loop, unrolled U times for memory-level parallelism: its
 * trip count is only known at run time, so nvcc would keep it rolled (or
 * unroll it with an exit test between iterations), one load in flight per
 * thread. Here a main loop runs U whole iterations with no test between them,
 * so their loads issue together, and a remainder loop finishes the row. Each
 * thread still visits its elements in the same order, so every accumulation
 * is the same as in the plain strided loop. The body's text appears in both
 * loops; each copy declares the original loop variable. */
static int unrolled_loop(rr_state *pS, rr_loop *pL, int nUnroll, const char *zType, const char *zVar,
                         const char *zStart, const char *zStep, const char *zInd) {
  unsigned iBs, iBe, iCs, iCe;
  if (ks_ast_extent(pS->pTu, pL->body, &iBs, &iBe) < 0 || has_macro_ex(pS->pTu, iBs, iBe, 1) ||
      extent(pS, pL->bound, &iCs, &iCe) < 0)
    return ks_rewrite_refuse(pS->p, "the row loop at line %u is written with a macro", line_of(pS, pL->loop));
  iBe = ks_rw_after_stmt(pS->pTu, iBe);
  char *zBodyText = body_text(pS, pL, iBs, iBe, 0);
  if (!zBodyText) return -1;
  const char *zSrc = pS->pTu->zSrc, *zBody = zBodyText, *zBound = zSrc + iCs;
  int nBody = (int)strlen(zBodyText), nBound = (int)(iCe - iCs), bBlock = zBody[0] == '{';
  if (pL->zLimit) zBound = pL->zLimit, nBound = (int)strlen(pL->zLimit); /* j <= B */
  ks_buf b = KS_BUF_INIT;
  int rc = ks_buf_printf(&b,
                         "{\n"
                         "%s  %s ks_j = %s;\n"
                         "%s  for (; ks_j + (%s)(%d * %s) < (%.*s); ks_j += (%s)(%d * %s)) {\n"
                         "%s    #pragma unroll\n"
                         "%s    for (int ks_u = 0; ks_u < %d; ks_u++) {\n"
                         "%s      %s %s = ks_j + (%s)(ks_u * %s);\n"
                         "%s      ",
                         zInd, zType, zStart, zInd, zType, nUnroll - 1, zStep, nBound, zBound, zType, nUnroll, zStep,
                         zInd, zInd, nUnroll, zInd, zType, zVar, zType, zStep, zInd);
  if (rc >= 0) rc = put_reindented(&b, zBody, nBody, zInd, 6);
  if (rc >= 0)
    rc = ks_buf_printf(&b, "\n%s    }\n%s  }\n%s  for (%s %s = ks_j; %s < (%.*s); %s += %s)%s", zInd, zInd, zInd, zType,
                       zVar, zVar, nBound, zBound, zVar, zStep, bBlock ? " " : "\n");
  if (rc >= 0 && !bBlock) rc = ks_buf_printf(&b, "%s    ", zInd);
  if (rc >= 0) rc = put_reindented(&b, zBody, nBody, zInd, 2);
  if (rc >= 0) rc = ks_buf_printf(&b, "\n%s}", zInd);
  free(zBodyText);
  if (rc < 0) {
    ks_buf_free(&b);
    return rc;
  }
  free(pL->zUnrolled);
  pL->zUnrolled = ks_buf_detach(&b);
  return pL->zUnrolled ? KS_OK : ks_error_set(KS_ENOMEM, "out of memory");
}

typedef struct var_walk {
  rr_state *pS;
  const rr_loop *pL;
  int bHit;
} var_walk;

static int var_visit(CXCursor c, const CXCursor *aAnc, int nAnc, void *pArg) {
  (void)aAnc;
  (void)nAnc;
  var_walk *w = pArg;
  unsigned iS, iE;
  if (kind(c) != CXCursor_DeclRefExpr || !clang_equalCursors(clang_getCursorReferenced(c), w->pL->var)) return 0;
  if (ks_ast_extent(w->pS->pTu, c, &iS, &iE) < 0) iS = 0;
  int bIn = 0;
  for (int i = 0; i < w->pL->nOcc; i++) bIn |= iS >= w->pL->aiOccS[i] && iS < w->pL->aiOccE[i];
  w->bHit |= !bIn;
  return w->bHit ? -1 : 0;
}

/* Does the loop body use its variable other than in the packed accesses
 * (which become registers)? Then each element declares it. */
static int uses_var_unpacked(rr_state *pS, const rr_loop *pL) {
  var_walk w = {pS, pL, 0};
  if (kind(pL->body) == CXCursor_DeclRefExpr) return 1;
  ks_rw_walk(pL->body, var_visit, &w);
  return w.bHit;
}

/* The row loop of a packed kernel (16-bit rows, ks_rowpack.cuh): thread t
 * walks packs of 8 consecutive elements, the packs at zStart8 + 8*S*i (S the
 * group's threads), U packs a step. The step loads every pack the body reads
 * (16 bytes at once where the pack is whole and aligned, else element by
 * element), runs the body on each element in increasing order with the
 * packed accesses replaced by registers, then stores the packs it wrote.
 * The loop variable is declared again for the addresses (the pack start) and
 * for each element, so the subscripts and the body keep their text. */
static int packed_loop(rr_state *pS, rr_loop *pL, const char *zType, const char *zVar, const char *zStart8,
                       const char *zStep, const char *zInd) {
  unsigned iBs, iBe, iCs, iCe;
  if (ks_ast_extent(pS->pTu, pL->body, &iBs, &iBe) < 0 || has_macro_ex(pS->pTu, iBs, iBe, 1) ||
      extent(pS, pL->bound, &iCs, &iCe) < 0)
    return ks_rewrite_refuse(pS->p, "the row loop at line %u is written with a macro", line_of(pS, pL->loop));
  iBe = ks_rw_after_stmt(pS->pTu, iBe);
  char *zBody = body_text(pS, pL, iBs, iBe, 1);
  if (!zBody) return -1;
  int nU = pS->nPackU, nBound = (int)(iCe - iCs), nBody = (int)strlen(zBody);
  const char *zBound = pS->pTu->zSrc + iCs, *zT = zType;
  if (pL->zLimit) zBound = pL->zLimit, nBound = (int)strlen(pL->zLimit); /* j <= B */
  ks_buf b = KS_BUF_INIT;
  ks_buf_printf(&b, "{\n%s  %s ks_j = %s;\n", zInd, zT, zStart8);
  ks_buf_printf(&b, "%s  for (; ks_j < (%.*s); ks_j += (%s)(%d * 8 * %s)) {\n", zInd, nBound, zBound, zT, nU, zStep);
  for (int k = 0; k < pL->nPack; k++)
    ks_buf_printf(&b, "%s    ks_rowpack::pack<%s> ks_q%d[%d];\n", zInd, pL->aPack[k].zElem, k, nU);
  ks_buf_printf(&b, "%s    int ks_n[%d];\n", zInd, nU);
  ks_buf_printf(&b, "%s    #pragma unroll\n%s    for (int ks_u = 0; ks_u < %d; ks_u++) {\n", zInd, zInd, nU);
  ks_buf_printf(&b, "%s      %s %s = ks_j + (%s)(ks_u * 8 * %s);\n", zInd, zT, zVar, zT, zStep);
  ks_buf_printf(&b, "%s      ks_n[ks_u] = ks_rowpack::count((long long)(%.*s) - (long long)%s);\n", zInd, nBound, zBound,
                zVar);
  for (int k = 0; k < pL->nPack; k++)
    if (pL->aPack[k].bLoad)
      ks_buf_printf(&b, "%s      ks_rowpack::load(ks_q%d[ks_u], &%s, ks_n[ks_u]);\n", zInd, k, pL->aPack[k].zText);
  ks_buf_printf(&b, "%s    }\n%s    #pragma unroll\n%s    for (int ks_u = 0; ks_u < %d; ks_u++) {\n", zInd, zInd, zInd,
                nU);
  ks_buf_printf(&b, "%s      #pragma unroll\n%s      for (int ks_e = 0; ks_e < 8; ks_e++) {\n", zInd, zInd);
  ks_buf_printf(&b, "%s        if (ks_e >= ks_n[ks_u]) break;\n", zInd);
  if (uses_var_unpacked(pS, pL))
    ks_buf_printf(&b, "%s        %s %s = ks_j + (%s)(ks_u * 8 * %s + ks_e);\n", zInd, zT, zVar, zT, zStep);
  ks_buf_printf(&b, "%s        ", zInd);
  put_reindented(&b, zBody, nBody, zInd, 8);
  ks_buf_printf(&b, "\n%s      }\n", zInd);
  int bStores = 0;
  for (int k = 0; k < pL->nPack; k++) bStores |= pL->aPack[k].bStore;
  if (bStores) {
    ks_buf_printf(&b, "%s      {\n%s        %s %s = ks_j + (%s)(ks_u * 8 * %s);\n", zInd, zInd, zT, zVar, zT, zStep);
    for (int k = 0; k < pL->nPack; k++)
      if (pL->aPack[k].bStore)
        ks_buf_printf(&b, "%s        ks_rowpack::store(&%s, ks_q%d[ks_u], ks_n[ks_u]);\n", zInd, pL->aPack[k].zText, k);
    ks_buf_printf(&b, "%s      }\n", zInd);
  }
  ks_buf_printf(&b, "%s    }\n%s  }\n%s}", zInd, zInd, zInd);
  free(zBody);
  free(pL->zUnrolled);
  pL->zUnrolled = ks_buf_detach(&b);
  return pL->zUnrolled ? KS_OK : ks_error_set(KS_ENOMEM, "out of memory");
}

/* The rule's parameters: mode, threads, unroll. */
static int read_params(rr_state *pS) {
  ks_rewrite *p = pS->p;
  const char *zThreads = ks_rewrite_param(p, "threads", "256");
  const char *zMode = ks_rewrite_param(p, "mode", "block");
  const char *zUnroll = ks_rewrite_param(p, "unroll", "4");
  const char *zRes = ks_rewrite_param(p, "resident", "0");
  pS->nResK = atoi(zRes);
  if (strspn(zRes, "0123456789") != strlen(zRes) || !*zRes || pS->nResK > 64)
    return ks_rewrite_refuse(p, "resident=%s: use 0 (off) or the row slots a thread keeps in registers, 1 to 64", zRes);
  pS->nThreads = atoi(zThreads);
  pS->nUnroll = atoi(zUnroll);
  pS->bWarp = strcmp(zMode, "warp") == 0;
  if (!pS->bWarp && strcmp(zMode, "block") != 0)
    return ks_rewrite_refuse(p, "mode=%s: use block (one block per row) or warp (one warp per row)", zMode);
  if (strcmp(zThreads, "auto") == 0) {
    /* Sized at each launch from the row length (ks_row_block; packed rows
     * ks_row_pblock): 16 (32) elements a thread, 32 to 256 threads a row;
     * measured on the H200, one fixed size
     * leaves short rows' threads idle and long rows' loads too few. */
    if (pS->bWarp) return ks_rewrite_refuse(p, "threads=auto goes with mode=block (mode=warp takes a block size)");
    pS->bGroup = 1;
    pS->nThreads = 256;
    zThreads = "256";
  }
  if (strspn(zThreads, "0123456789") != strlen(zThreads) || pS->nThreads < 32 || pS->nThreads > 1024 ||
      pS->nThreads % 32)
    return ks_rewrite_refuse(p, "threads=%s: use a multiple of 32 from 32 to 1024", zThreads);
  if (strspn(zUnroll, "0123456789") != strlen(zUnroll) || pS->nUnroll < 1 || pS->nUnroll > 16)
    return ks_rewrite_refuse(p, "unroll=%s: use 1 (no unrolling) to 16", zUnroll);
  return KS_OK;
}

/* The kernel, laid out in the main file, not rewritten yet, with a body and
 * no __launch_bounds__ (its block size changes here). */
static int find_kernel(rr_state *pS, CXCursor *pBody, unsigned *piBs, unsigned *piBe) {
  ks_rewrite *p = pS->p;
  ks_tu *pTu = pS->pTu;
  const char *zKernel = pS->zKernel;
  CXCursor kernel = ks_ast_find_kernel(pTu, zKernel);
  unsigned iKe;
  if (kind(kernel) != CXCursor_FunctionDecl) return ks_rewrite_refuse(p, "kernel '%s' is a template", zKernel);
  if (ks_ast_extent(pTu, kernel, &pS->iKs, &iKe) < 0)
    return ks_rewrite_refuse(p, "kernel '%s' is not laid out in the main file", zKernel);
  if (ks_rewrite_has_note(p, pS->iKs, iKe, NULL))
    return ks_rewrite_already(p, "kernel '%s' already works one %s per row", zKernel,
                              pS->bWarp ? "warp" : pS->bGroup ? "group of threads" : "block");
  pS->kernel = kernel;
  pS->nParam = clang_Cursor_getNumArguments(kernel);
  if (pS->nParam > RR_MAX_PARAMS) return ks_rewrite_refuse(p, "kernel '%s' has too many parameters", zKernel);
  *pBody = ks_rw_body(kernel);
  if (clang_Cursor_isNull(*pBody) || ks_ast_extent(pTu, *pBody, piBs, piBe) < 0)
    return ks_rewrite_refuse(p, "kernel '%s' has no body written in the file", zKernel);
  if (ks_rw_has_word(pTu, pS->iKs, *piBs, "__launch_bounds__"))
    return ks_rewrite_refuse(p, "kernel '%s' has __launch_bounds__; its block size changes here (apply launch-bounds "
                                "after)", zKernel);
  return KS_OK;
}

/* The body's first statement declares the row index, and nothing else in the
 * body uses the thread/block built-ins: the rewrite owns them. */
static int match_row_index(rr_state *pS, const CXCursor *aTop, int nTop, unsigned iBs, unsigned iBe) {
  ks_rewrite *p = pS->p;
  ks_tu *pTu = pS->pTu;
  const char *zKernel = pS->zKernel;
  CXCursor rowDecl[2];
  if (nTop < 2 || kind(aTop[0]) != CXCursor_DeclStmt || kids(aTop[0], rowDecl, 2) != 1 ||
      kind(rowDecl[0]) != CXCursor_VarDecl || !is_int_type(clang_getCursorType(rowDecl[0])))
    return ks_rewrite_refuse(p, "kernel '%s' does not start with its row index (`int row = blockIdx.x * blockDim.x + "
                                "threadIdx.x;`)", zKernel);
  CXCursor rowInit = var_init(rowDecl[0]);
  if (clang_Cursor_isNull(rowInit) || ks_rw_thread_index(pTu, pS->kernel, rowInit, NULL) != 0)
    return ks_rewrite_refuse(p, "the first statement of '%s' is not a row index `blockIdx.x * blockDim.x + "
                                "threadIdx.x`", zKernel);
  pS->row = rowDecl[0];
  if (extent(pS, rowInit, &pS->iRowS, &pS->iRowE) < 0)
    return ks_rewrite_refuse(p, "the row index of '%s' is written with a macro", zKernel);
  static const char *const azBuiltin[] = {"threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize",
                                          "__shared__", NULL};
  for (int i = 0; azBuiltin[i]; i++)
    if (ks_rw_has_word(pTu, iBs, pS->iRowS, azBuiltin[i]) || ks_rw_has_word(pTu, pS->iRowE, iBe, azBuiltin[i]))
      return ks_rewrite_refuse(p, "kernel '%s' uses %s besides its row index: not a one-thread-per-row kernel this "
                                  "rule understands", zKernel, azBuiltin[i]);
  return KS_OK;
}

/* ---- the row count: an expression of parameters ---- */

/* The guard's bound may be a product of dimensions (`B * T * NH`: a thread per
 * (b, t, h) row), written inline or through integer locals declared between
 * the row index and the guard (only pure declarations stand there, so a
 * local's value at the guard is its initializer). Each launch evaluates it
 * again on its own arguments (rows_text): it may name only integer
 * parameters and literals, with arithmetic and integer casts. */
typedef struct bound_walk {
  rr_state *pS;
  const CXCursor *aPre; /* the statements between the row index and the guard */
  int nPre;
  int nDepth;
  CXCursor bad;         /* the first part it does not understand */
} bound_walk;

static int bound_ok(rr_state *pS, CXCursor e, const CXCursor *aPre, int nPre, int nDepth, CXCursor *pBad);

/* Is d a variable declared by one of the statements aPre? */
static int pre_local(const CXCursor *aPre, int nPre, CXCursor d) {
  for (int i = 0; i < nPre; i++) {
    CXCursor a[16];
    int n = kids(aPre[i], a, 16);
    for (int k = 0; k < n && k < 16; k++)
      if (clang_equalCursors(a[k], d)) return 1;
  }
  return 0;
}

static int bound_visit(CXCursor c, const CXCursor *aAnc, int nAnc, void *pArg) {
  (void)aAnc;
  (void)nAnc;
  bound_walk *w = pArg;
  switch (kind(c)) {
  case CXCursor_DeclRefExpr: {
    CXCursor d = clang_getCursorReferenced(c);
    int iP = param_index(w->pS, d);
    if (!is_int_type(clang_getCursorType(d))) break;
    if (iP >= 0) {
      w->pS->abBoundParam[iP] = 1;
      return 0;
    }
    if (w->nDepth < 4 && pre_local(w->aPre, w->nPre, d) && !clang_Cursor_isNull(var_init(d)) &&
        bound_ok(w->pS, var_init(d), w->aPre, w->nPre, w->nDepth + 1, &w->bad))
      return 0;
    if (!clang_Cursor_isNull(w->bad)) return -1;
    break;
  }
  case CXCursor_BinaryOperator:
    switch (clang_getCursorBinaryOperatorKind(c)) {
    case CXBinaryOperator_Add: case CXBinaryOperator_Sub: case CXBinaryOperator_Mul: case CXBinaryOperator_Div:
    case CXBinaryOperator_Rem: case CXBinaryOperator_Shl: case CXBinaryOperator_Shr:
      return 0;
    default:
      break;
    }
    break;
  case CXCursor_UnaryOperator: {
    enum CXUnaryOperatorKind e = clang_getCursorUnaryOperatorKind(c);
    if (e == CXUnaryOperator_Plus || e == CXUnaryOperator_Minus) return 0;
    break;
  }
  case CXCursor_CStyleCastExpr: case CXCursor_CXXStaticCastExpr:
    if (is_int_type(clang_getCursorType(c))) return 0;
    break;
  case CXCursor_ParenExpr: case CXCursor_UnexposedExpr: case CXCursor_IntegerLiteral: case CXCursor_TypeRef:
    return 0;
  default:
    break;
  }
  w->bad = c;
  return -1;
}

/* Is e such an expression, written without macros? Else *pBad: where not. */
static int bound_ok(rr_state *pS, CXCursor e, const CXCursor *aPre, int nPre, int nDepth, CXCursor *pBad) {
  bound_walk w = {pS, aPre, nPre, nDepth, clang_getNullCursor()};
  unsigned iS, iE;
  if (extent(pS, e, &iS, &iE) < 0) {
    *pBad = e;
    return 0;
  }
  if (bound_visit(e, NULL, 0, &w) == 0) ks_rw_walk(e, bound_visit, &w);
  if (!clang_Cursor_isNull(w.bad)) *pBad = w.bad;
  return clang_Cursor_isNull(w.bad);
}

typedef struct write_walk {
  rr_state *pS;
  CXCursor at;      /* the first write of a row-count parameter (or of target), or null */
  CXCursor target;  /* a local whose writes are wanted, or null: the row count's parameters */
} write_walk;

static int write_visit(CXCursor c, const CXCursor *aAnc, int nAnc, void *pArg) {
  write_walk *w = pArg;
  CXCursor a[2];
  if (kind(c) != CXCursor_DeclRefExpr) return 0;
  CXCursor d = clang_getCursorReferenced(c);
  if (!clang_Cursor_isNull(w->target)) {
    if (!clang_equalCursors(d, w->target)) return 0;
  } else {
    int iP = param_index(w->pS, d);
    if (iP < 0 || !w->pS->abBoundParam[iP]) return 0;
  }
  int j = nAnc - 1;
  while (j >= 0 && (kind(aAnc[j]) == CXCursor_UnexposedExpr || kind(aAnc[j]) == CXCursor_ParenExpr)) j--;
  if (j < 0) return 0;
  CXCursor up = aAnc[j], sub = j + 1 < nAnc ? aAnc[j + 1] : c;
  int bWrite = 0;
  if (kind(up) == CXCursor_UnaryOperator) {
    enum CXUnaryOperatorKind e = clang_getCursorUnaryOperatorKind(up);
    bWrite = e == CXUnaryOperator_PreInc || e == CXUnaryOperator_PostInc || e == CXUnaryOperator_PreDec ||
             e == CXUnaryOperator_PostDec || e == CXUnaryOperator_AddrOf;
  } else if (kind(up) == CXCursor_BinaryOperator || kind(up) == CXCursor_CompoundAssignOperator) {
    enum CXBinaryOperatorKind e = clang_getCursorBinaryOperatorKind(up);
    bWrite = (e == CXBinaryOperator_Assign || (e >= CXBinaryOperator_MulAssign && e <= CXBinaryOperator_OrAssign)) &&
             kids(up, a, 2) >= 1 && clang_equalCursors(a[0], sub);
  }
  if (!bWrite) return 0;
  w->at = c;
  return -1;
}

/* The row count: the parameter the guard compares the row with, or an
 * expression of parameters (rowBound); none of them written in the kernel
 * (the launch computes the count from the arguments). */
static int match_row_count(rr_state *pS, CXCursor bound, const CXCursor *aTop, int iGuard) {
  ks_rewrite *p = pS->p;
  CXCursor boundDecl = ks_rw_ref_decl(bound), bad = clang_getNullCursor();
  pS->iRowsParam = clang_Cursor_isNull(boundDecl) ? -1 : param_index(pS, boundDecl);
  pS->rowBound = clang_getNullCursor();
  if (pS->iRowsParam >= 0) {
    pS->abBoundParam[pS->iRowsParam] = 1;
  } else if (bound_ok(pS, bound, aTop + 1, iGuard - 1, 0, &bad)) {
    pS->rowBound = bound;
  } else {
    char *z = ks_ast_text(pS->pTu, bad);
    int rc = ks_rewrite_refuse(p, "the row guard of '%s' compares the row with a bound that is not an expression "
                                  "of integer parameters (line %u: '%s'; the grid is sized from it)",
                               pS->zKernel, line_of(pS, bad), z ? z : "?");
    free(z);
    return rc;
  }
  write_walk w = {pS, clang_getNullCursor(), clang_getNullCursor()};
  ks_rw_walk(ks_rw_body(pS->kernel), write_visit, &w);
  if (!clang_Cursor_isNull(w.at)) {
    char *z = ks_rw_spelling(clang_getCursorReferenced(w.at));
    int rc = ks_rewrite_refuse(p, "line %u of '%s' writes '%s', which the row count uses (the grid is sized from "
                                  "the launch's argument)", line_of(pS, w.at), pS->zKernel, z ? z : "?");
    free(z);
    return rc;
  }
  return KS_OK;
}

/* The row count's text at launch pL: the bound with each parameter replaced
 * by the launch's argument for it (parenthesized) and each local by its
 * initializer's such text (parenthesized). */
typedef struct text_walk {
  rr_state *pS;
  const ks_launch *pL;
  ks_buf *pOut;
  unsigned iPos;
  int rc;
} text_walk;

static int rows_text_at(rr_state *pS, CXCursor e, const ks_launch *pL, ks_buf *pOut);

static int text_visit(CXCursor c, const CXCursor *aAnc, int nAnc, void *pArg) {
  (void)aAnc;
  (void)nAnc;
  text_walk *w = pArg;
  unsigned iS, iE;
  if (kind(c) != CXCursor_DeclRefExpr) return 0;
  if (extent(w->pS, c, &iS, &iE) < 0) {
    w->rc = ks_error_set(KS_ERROR, "the row count is written with a macro");
    return -1;
  }
  CXCursor d = clang_getCursorReferenced(c);
  int iP = param_index(w->pS, d);
  w->rc = ks_buf_printf(w->pOut, "%.*s", (int)(iS - w->iPos), w->pS->pTu->zSrc + w->iPos);
  if (w->rc >= 0 && iP >= 0) {
    char *z = ks_rw_paren(w->pL->azArg[iP]);
    w->rc = z ? ks_buf_puts(w->pOut, z) : KS_ENOMEM;
    free(z);
  } else if (w->rc >= 0) {
    w->rc = ks_buf_puts(w->pOut, "(");
    if (w->rc >= 0) w->rc = rows_text_at(w->pS, var_init(d), w->pL, w->pOut);
    if (w->rc >= 0) w->rc = ks_buf_puts(w->pOut, ")");
  }
  w->iPos = iE;
  return w->rc < 0 ? -1 : 1;
}

static int rows_text_at(rr_state *pS, CXCursor e, const ks_launch *pL, ks_buf *pOut) {
  unsigned iS, iE;
  CXCursor d = ks_rw_ref_decl(e);
  if (!clang_Cursor_isNull(d) && param_index(pS, d) < 0) return rows_text_at(pS, var_init(d), pL, pOut);
  if (extent(pS, e, &iS, &iE) < 0) return ks_error_set(KS_ERROR, "the row count is written with a macro");
  text_walk w = {pS, pL, pOut, iS, KS_OK};
  if (kind(e) == CXCursor_DeclRefExpr) text_visit(e, NULL, 0, &w);
  else ks_rw_walk(e, text_visit, &w);
  if (w.rc < 0) return w.rc;
  return ks_buf_printf(pOut, "%.*s", (int)(iE - w.iPos), pS->pTu->zSrc + w.iPos);
}

/* The grid's row count at launch pL (malloc'd): the argument, or the bound's
 * text on the launch's arguments, parenthesized unless one word. */
static char *rows_text(rr_state *pS, const ks_launch *pL) {
  if (pS->iRowsParam >= 0) return ks_rw_paren(pL->azArg[pS->iRowsParam]);
  ks_buf b = KS_BUF_INIT;
  if (rows_text_at(pS, pS->rowBound, pL, &b) < 0 || !b.z) {
    ks_buf_free(&b);
    return NULL;
  }
  char *z = ks_rw_paren(b.z);
  ks_buf_free(&b);
  return z;
}

/* The row guard after the row index, then the row body statement by
 * statement. Scalar declarations without effects or loads may sit between the
 * index and the guard (`const float eps = 1e-6f;`): they are read as the
 * first statements of the row body, which they are equivalent to. */
static int match_guarded_body(rr_state *pS, const CXCursor *aTop, int nTop) {
  ks_rewrite *p = pS->p;
  const char *zKernel = pS->zKernel;
  CXCursor *aIn = NULL, *aSt = NULL;
  int nIn = 0, rc = KS_OK;
  int iGuard = 1;
  while (iGuard < nTop - 1 && iGuard < 9 && ks_rw_pure_decls(aTop[iGuard])) iGuard++;
  CXCursor bound, then = clang_getNullCursor();
  int bEarly = 0;
  if (iGuard >= nTop || !match_guard(pS, aTop[iGuard], &bound, &bEarly, &then) || (!bEarly && nTop != iGuard + 1))
    return ks_rewrite_refuse(p, "the second statement of '%s' is not the row guard (`if (row >= rows) return;`, or "
                                "`if (row < rows) { ... }` as the last statement)", zKernel);
  if ((rc = match_row_count(pS, bound, aTop, iGuard)) < 0) return rc;
  const CXCursor *aRest;
  int nRest;
  if (bEarly) {
    aRest = aTop + iGuard + 1;
    nRest = nTop - iGuard - 1;
  } else if (kind(then) == CXCursor_CompoundStmt) {
    ks_rw_children(then, &aIn, &nIn);
    aRest = aIn;
    nRest = nIn;
  } else {
    aRest = &then;
    nRest = 1;
  }
  aSt = calloc((size_t)(iGuard - 1 + nRest) + 1, sizeof(CXCursor));
  if (!aSt) {
    rc = ks_error_set(KS_ENOMEM, "out of memory");
    goto done;
  }
  int nSt = 0;
  for (int i = 1; i < iGuard; i++) aSt[nSt++] = aTop[i];
  for (int i = 0; i < nRest; i++) aSt[nSt++] = aRest[i];
  if (!match_row_body(pS, aSt, nSt))
    rc = ks_rewrite_refuse(p, "kernel '%s' is not a row kernel this rule understands: %s", zKernel, pS->zWhy);
  else if (pS->nLoop == 0)
    rc = ks_rewrite_refuse(p, "kernel '%s' has no loop over its row", zKernel);
done:
  free(aIn);
  free(aSt);
  return rc;
}

/* No buffer both read and stored (the row's threads would race), no
 * parameter named like the rule's own names. */
static int check_params(rr_state *pS) {
  for (int i = 0; i < pS->nParam; i++) {
    char *z = ks_rw_spelling(clang_Cursor_getArgument(pS->kernel, (unsigned)i));
    int rc = KS_OK;
    /* A read by a store of the row's result is thread 0's: it races only with a row loop's stores
     * (all threads); thread 0 itself makes every store outside the loops, in program order. */
    int bReadAll = pS->abRead[i] || (pS->abReadOne[i] && pS->aiLoopStore[i]);
    if (((pS->abTopStore[i] || pS->aiLoopStore[i]) && bReadAll) || (pS->abTopStore[i] && pS->abReadJ[i]))
      rc = ks_rewrite_refuse(pS->p, "kernel '%s' reads '%s', which it also stores into: the row's threads would race",
                             pS->zKernel, z);
    else if (pS->aiLoopStore[i] && pS->aiElemOther[i])
      rc = ks_rewrite_refuse(pS->p, "kernel '%s': line %u accesses a buffer the row's loops store into ('%s') at "
                                    "another element or loop start: the row's threads would race",
                             pS->zKernel, pS->aiElemOther[i], z);
    free(z);
    if (rc < 0) return rc;
  }
  for (int i = 0; i < pS->nParam; i++) {
    char *z = ks_rw_spelling(clang_Cursor_getArgument(pS->kernel, (unsigned)i));
    int bClash = z && strncmp(z, "ks_", 3) == 0;
    free(z);
    if (bClash) return ks_rewrite_refuse(pS->p, "a parameter of '%s' starts with ks_ (names this rule uses)", pS->zKernel);
  }
  return KS_OK;
}

/* Every use of the kernel is a launch this rule can resize: all arguments
 * passed, each one the row count uses a plain expression the grid can repeat. */
static int check_launches(rr_state *pS) {
  ks_rewrite *p = pS->p;
  int rc;
  if ((rc = ks_rw_refuse_class(p, pS->kernel, KS_CLASS_COLUMN_WALK)) < 0) return rc;
  if ((rc = ks_rw_kernel_launches(p, pS->zKernel, &pS->aL, &pS->nL)) < 0) return rc;
  for (int i = 0; i < pS->nL; i++) {
    ks_launch *pL = &pS->aL[i];
    if (pL->nArgs != pS->nParam)
      return ks_rewrite_refuse(p, "%s:%u: launch of '%s' passes %d arguments for %d parameters", pS->pTu->zFile,
                               pL->iLine, pS->zKernel, pL->nArgs, pS->nParam);
    for (int k = 0; k < pS->nParam; k++)
      if (pS->abBoundParam[k] && !simple_arg(pL->azArg[k]))
        return ks_rewrite_refuse(p, "%s:%u: the row count '%s' passed to '%s' is not a plain expression the grid can "
                                    "repeat", pS->pTu->zFile, pL->iLine, pL->azArg[k], pS->zKernel);
  }
  return KS_OK;
}

/* The matcher: the kernel is a thread-per-row kernel it understands and
 * every launch of it can be resized. */
static int match_kernel(rr_state *pS) {
  CXCursor body, *aTop = NULL;
  unsigned iBs, iBe;
  int nTop = 0, rc;
  if ((rc = find_kernel(pS, &body, &iBs, &iBe)) < 0) return rc;
  ks_rw_children(body, &aTop, &nTop);
  if ((rc = match_row_index(pS, aTop, nTop, iBs, iBe)) >= 0 && (rc = match_guarded_body(pS, aTop, nTop)) >= 0 &&
      (rc = check_params(pS)) >= 0)
    rc = check_launches(pS);
  free(aTop);
  return rc;
}

/* ---- packs: 16-bit rows ---- */

/* The buffer (parameter index) a subscript's base names: a pointer parameter
 * or a row pointer, else -1 (the access is left as written). */
static int base_root(rr_state *pS, CXCursor base) {
  CXCursor c = ks_rw_strip(base);
  if (kind(c) != CXCursor_DeclRefExpr) return -1;
  CXCursor d = clang_getCursorReferenced(c);
  int iP = param_index(pS, d), iV = var_index(pS, d);
  if (iP >= 0) return clang_getCanonicalType(clang_getCursorType(d)).kind == CXType_Pointer ? iP : -1;
  return iV >= 0 && pS->aVar[iV].bPtr ? pS->aVar[iV].iRoot : -1;
}

/* The element types a pack holds: 16-bit floats (what packs are for) and
 * float (a layernorm's gamma next to its bf16 row); NULL for any other. */
static const char *pack_elem(CXType t) {
  static const char *const azT[] = {"__half", "__nv_bfloat16", NULL};
  t = clang_getUnqualifiedType(clang_getCanonicalType(t));
  if (t.kind == CXType_Float) return "float";
  if (t.kind != CXType_Record) return NULL;
  CXString s = clang_getTypeSpelling(t);
  const char *z = clang_getCString(s), *zOut = NULL;
  for (int i = 0; azT[i] && z; i++)
    if (strcmp(z, azT[i]) == 0) zOut = azT[i];
  clang_disposeString(s);
  return zOut;
}

typedef struct pack_walk {
  rr_state *pS;
  rr_loop *pL;
  int *abIn, *abOut; /* by buffer: packed somewhere / accessed at element j unpacked */
  int rc;            /* < 0: out of memory; 1: packing not possible */
  int bRes;          /* resident rows: every memory access must be a slot (else rc = 1) */
} pack_walk;

static char *range_text(rr_state *pS, CXCursor access);

/* Resident rows: the element types a register slot holds. */
static const char *res_elem(CXType t) {
  t = clang_getUnqualifiedType(clang_getCanonicalType(t));
  if (t.kind == CXType_Double) return "double";
  return pack_elem(t);
}

/* The element expression x stores into when it is an assignment: the left
 * side of `=` or of a compound assignment (*pbCompound: it also reads it), or
 * the first argument of an operator= call (16-bit elements); else null. */
static CXCursor assign_target(CXCursor x, int *pbCompound) {
  CXCursor a[2];
  *pbCompound = kind(x) == CXCursor_CompoundAssignOperator;
  if (((kind(x) == CXCursor_BinaryOperator && clang_getCursorBinaryOperatorKind(x) == CXBinaryOperator_Assign) ||
       *pbCompound) &&
      kids(x, a, 2) == 2)
    return ks_rw_strip(a[0]);
  if (kind(x) == CXCursor_CallExpr && clang_Cursor_getNumArguments(x) == 2) {
    char *z = ks_rw_spelling(x);
    int bAssign = z && strcmp(z, "operator=") == 0;
    free(z);
    if (bAssign) return ks_rw_strip(clang_Cursor_getArgument(x, 0));
  }
  return clang_getNullCursor();
}

/* Is c evaluated only on some paths of the body aAnc[0]: a branch of an if
 * (not its condition), of a ?: or the right side of && / ||? */
static int under_branch(CXCursor c, const CXCursor *aAnc, int nAnc) {
  CXCursor a[3];
  for (int i = 0; i < nAnc; i++) {
    CXCursor up = aAnc[i], sub = i + 1 < nAnc ? aAnc[i + 1] : c;
    int e = kind(up), n = kids(up, a, 3);
    if ((e == CXCursor_IfStmt || e == CXCursor_ConditionalOperator) && n >= 2 && !clang_equalCursors(a[0], sub))
      return 1;
    if (e == CXCursor_BinaryOperator && n == 2 && clang_equalCursors(a[1], sub) &&
        (clang_getCursorBinaryOperatorKind(up) == CXBinaryOperator_LAnd ||
         clang_getCursorBinaryOperatorKind(up) == CXBinaryOperator_LOr))
      return 1;
  }
  return 0;
}

/* Resident rows: an access the slots cannot hold (a dereference, a subscript
 * other than element j): the rows stay in memory. */
static int res_other(CXCursor c, rr_state *pS) {
  CXCursor a[2];
  if (kind(c) == CXCursor_UnaryOperator && clang_getCursorUnaryOperatorKind(c) == CXUnaryOperator_Deref) return 1;
  return kind(c) == CXCursor_ArraySubscriptExpr && (kids(c, a, 2) != 2 || !is_elem_j(pS, a[1]));
}

/* Every P[e + j] of a loop body: a pack per distinct subscript, and where
 * each occurrence stands. */
static int pack_visit(CXCursor c, const CXCursor *aAnc, int nAnc, void *pArg) {
  pack_walk *w = pArg;
  rr_state *pS = w->pS;
  rr_loop *pL = w->pL;
  CXCursor a[2];
  if (w->bRes && res_other(c, pS)) {
    w->rc = 1;
    return -1;
  }
  if (kind(c) != CXCursor_ArraySubscriptExpr || kids(c, a, 2) != 2 || !is_elem_j(pS, a[1])) return 0;
  int iRoot = base_root(pS, a[0]);
  int j = nAnc - 1;
  while (j >= 0 && (kind(aAnc[j]) == CXCursor_UnexposedExpr || kind(aAnc[j]) == CXCursor_ParenExpr)) j--;
  const char *zElem = w->bRes ? res_elem(clang_getCursorType(c)) : pack_elem(clang_getCursorType(c));
  enum CXUnaryOperatorKind eU = j >= 0 && kind(aAnc[j]) == CXCursor_UnaryOperator
                                   ? clang_getCursorUnaryOperatorKind(aAnc[j])
                                   : CXUnaryOperator_Invalid;
  int bUnary = eU == CXUnaryOperator_AddrOf || eU == CXUnaryOperator_PreInc || eU == CXUnaryOperator_PostInc ||
               eU == CXUnaryOperator_PreDec || eU == CXUnaryOperator_PostDec;
  if (w->bRes && (iRoot < 0 || !zElem || bUnary)) {
    w->rc = 1; /* __ldg(&P[j]), P[j]++, an element type a slot does not hold: the rows stay in memory */
    return -1;
  }
  if (iRoot < 0) return 0;
  if (!zElem || eU == CXUnaryOperator_AddrOf) {
    w->abOut[iRoot] = 1; /* __ldg(&P[j]), or a double: read in place */
    return 0;
  }
  unsigned iS, iE, iAs, iAe;
  /* (A macro of the file in the subscript is fine: its text is copied whole, as the body's.) */
  if (ks_ast_extent(pS->pTu, c, &iS, &iE) < 0 || has_macro_ex(pS->pTu, iS, iE, 1) || pL->nOcc == RR_MAX_OCC) {
    w->rc = 1;
    return -1;
  }
  /* A store: the left side of `=` (an operator= call on 16-bit elements) or of a compound assignment. */
  int bStore = 0, bRead = 1, bCompound = 0;
  if (j >= 0 && clang_equalCursors(assign_target(aAnc[j], &bCompound), c)) {
    bStore = 1;
    bRead = bCompound;
  }
  if (bStore && ks_ast_extent(pS->pTu, aAnc[j], &iAs, &iAe) < 0) iAe = iE;
  char *zKey = squash(pS, c);
  if (!zKey) {
    w->rc = ks_error_set(KS_ENOMEM, "out of memory");
    return -1;
  }
  int k;
  for (k = 0; k < pL->nPack && strcmp(pL->aPack[k].zKey, zKey) != 0; k++) {}
  if (k == pL->nPack) {
    if (k == RR_MAX_PACKS) {
      free(zKey);
      w->rc = 1;
      return -1;
    }
    pL->aPack[k].zKey = zKey;
    pL->aPack[k].zText = ks_ast_text(pS->pTu, c);
    pL->aPack[k].zElem = zElem;
    pL->nPack++;
    if (!pL->aPack[k].zText) {
      w->rc = ks_error_set(KS_ENOMEM, "out of memory");
      return -1;
    }
    if (w->bRes && !(pL->aPack[k].zRange = range_text(pS, c))) {
      w->rc = 1; /* an address the row's first pass cannot compute */
      return -1;
    }
  } else {
    free(zKey);
  }
  rr_pack *pP = &pL->aPack[k];
  /* Body statements run in text order, and a store's right side before the
   * store: a read that starts before the first storing assignment ends reads
   * memory, so the pack is loaded. */
  int bAlways = w->bRes && !under_branch(c, aAnc, nAnc); /* resident walks: evaluated on every path */
  int bLoadRead = bRead && (!pP->iStoreEnd || iS < pP->iStoreEnd);
  if (bLoadRead) pP->bLoad = 1;
  else if (bRead) pP->bReadAfter = 1;
  if (bStore && !pP->iStoreEnd) {
    pP->iStoreEnd = iAe;
    pP->bFirstUncond = bAlways;
  }
  pP->bStore |= bStore;
  pP->bUncond |= bAlways;
  pL->aiOccS[pL->nOcc] = iS;
  pL->aiOccE[pL->nOcc] = iE;
  pL->abOccLoad[pL->nOcc] = bLoadRead;
  pL->aiOccPack[pL->nOcc++] = k;
  w->abIn[iRoot] = 1;
  return 0;
}

/* pack=on (the default) and unroll > 1: a kernel that accesses a buffer of
 * 16-bit floats at element j walks every row loop in packs (bPack). Not when
 * a buffer the loops store into is also accessed at element j unpacked (a
 * read of it would miss the pack's stores), or an access is too odd to pack. */
static int plan_packs(rr_state *pS) {
  const char *zPack = ks_rewrite_param(pS->p, "pack", "on");
  int abIn[RR_MAX_PARAMS] = {0}, abOut[RR_MAX_PARAMS] = {0}, b16 = 0;
  if (strcmp(zPack, "on") != 0 && strcmp(zPack, "off") != 0)
    return ks_rewrite_refuse(pS->p, "pack=%s: use on (16-bit rows in packs of 8 elements) or off", zPack);
  if (strcmp(zPack, "off") == 0 || pS->nUnroll == 1) return KS_OK;
  for (int i = 0; i < pS->nLoop; i++) {
    /* a conditional store leaves elements of its pack as they were: the pack would store stale registers */
    if (pS->aLoop[i].bCondStore) return KS_OK;
  }
  for (int i = 0; i < pS->nLoop; i++) {
    pack_walk w = {pS, &pS->aLoop[i], abIn, abOut, 0, 0};
    pS->pCur = &pS->aLoop[i];
    ks_rw_walk(pS->aLoop[i].body, pack_visit, &w);
    pS->pCur = NULL;
    if (w.rc < 0) return w.rc;
    if (w.rc > 0) return KS_OK;
    for (int k = 0; k < pS->aLoop[i].nPack; k++) b16 |= strcmp(pS->aLoop[i].aPack[k].zElem, "float") != 0;
  }
  for (int i = 0; i < pS->nParam; i++)
    if (abIn[i] && abOut[i] && pS->aiLoopStore[i]) return KS_OK;
  pS->bPack = b16;
  pS->nPackU = (pS->nUnroll + 3) / 4;
  return KS_OK;
}

/* ---- resident rows: the row kept in registers between passes ---- */

/* The names an expression evaluated before the row's first pass may use:
 * parameters (never written in a kernel this rule accepts), the row index,
 * the loop variable var (declared there again), functions, enum constants,
 * integer locals declared before the first pass and never written (plain_local);
 * with bPtr also row pointers whose values use only those (each occurrence
 * noted: range_text replaces it by the value). */
typedef struct plain_walk {
  rr_state *pS;
  CXCursor var;
  int bPtr, bBad, n;
  unsigned aiS[8], aiE[8];
  int aiVar[8];
} plain_walk;

static int plain_run(plain_walk *w, CXCursor root);

/* Is local d written anywhere in the kernel (assigned, stepped, its address taken)? */
static int local_written(rr_state *pS, CXCursor d) {
  write_walk w = {pS, clang_getNullCursor(), d};
  ks_rw_walk(ks_rw_body(pS->kernel), write_visit, &w);
  return !clang_Cursor_isNull(w.at);
}

/* A row-body integer local the first pass may read as it is (a causal row's
 * `t`, a row's coordinates `b`, `h`): declared before the first row loop, its
 * value made of such names, never written. */
static int plain_local(rr_state *pS, int iV) {
  rr_var *pV = &pS->aVar[iV];
  unsigned iD, iDe, iL, iLe;
  if (pV->ePlain) return pV->ePlain == 1;
  pV->ePlain = 2; /* (its own value cannot name it) */
  if (pV->bPtr || pV->bMem || pV->bFloat || !is_int_type(clang_getCursorType(pV->decl))) return 0;
  if (ks_ast_extent(pS->pTu, pV->decl, &iD, &iDe) < 0 || ks_ast_extent(pS->pTu, pS->aLoop[0].loop, &iL, &iLe) < 0 ||
      iDe > iL)
    return 0;
  plain_walk in = {pS, clang_getNullCursor(), 0, 0, 0, {0}, {0}, {0}};
  if (!plain_run(&in, var_init(pV->decl)) && !local_written(pS, pV->decl)) pV->ePlain = 1;
  return pV->ePlain == 1;
}

static int plain_visit(CXCursor c, const CXCursor *aAnc, int nAnc, void *pArg) {
  (void)aAnc;
  (void)nAnc;
  plain_walk *w = pArg;
  rr_state *pS = w->pS;
  if (kind(c) != CXCursor_DeclRefExpr) return 0;
  CXCursor d = clang_getCursorReferenced(c);
  int e = kind(d), iV = var_index(pS, d);
  unsigned iS, iE;
  if (e == CXCursor_FunctionDecl || e == CXCursor_EnumConstantDecl || param_index(pS, d) >= 0 ||
      clang_equalCursors(d, pS->row) || (!clang_Cursor_isNull(w->var) && clang_equalCursors(d, w->var)))
    return 0;
  if (iV >= 0 && plain_local(pS, iV)) return 0;
  if (w->bPtr && iV >= 0 && pS->aVar[iV].bPtr && w->n < 8 && ks_ast_extent(pS->pTu, c, &iS, &iE) >= 0) {
    plain_walk in = {pS, clang_getNullCursor(), 0, 0, 0, {0}, {0}, {0}};
    if (!plain_run(&in, var_init(pS->aVar[iV].decl))) {
      w->aiS[w->n] = iS;
      w->aiE[w->n] = iE;
      w->aiVar[w->n++] = iV;
      return 0;
    }
  }
  w->bBad = 1;
  return -1;
}

/* Walk root (itself included); returns bBad. */
static int plain_run(plain_walk *w, CXCursor root) {
  if (clang_Cursor_isNull(root)) return w->bBad = 1;
  if (plain_visit(root, NULL, 0, w) == 0) ks_rw_walk(root, plain_visit, w);
  return w->bBad;
}

/* The access P[e + j] of the current loop as the row's first pass can
 * evaluate it (the alias check's addresses): row pointers replaced by their
 * values; NULL when it uses anything else (a local computed between passes). */
static char *range_text(rr_state *pS, CXCursor access) {
  plain_walk w = {pS, pS->pCur->var, 1, 0, 0, {0}, {0}, {0}};
  unsigned iS, iE;
  if (ks_ast_extent(pS->pTu, access, &iS, &iE) < 0 || plain_run(&w, access)) return NULL;
  ks_buf b = KS_BUF_INIT;
  unsigned iAt = iS;
  int rc = KS_OK;
  for (int i = 0; i < w.n && rc >= 0; i++) {
    char *zInit = ks_ast_text(pS->pTu, var_init(pS->aVar[w.aiVar[i]].decl));
    rc = zInit && w.aiS[i] >= iAt ? ks_buf_printf(&b, "%.*s(%s)", (int)(w.aiS[i] - iAt), pS->pTu->zSrc + iAt, zInit)
                                  : KS_ERROR;
    free(zInit);
    iAt = w.aiE[i];
  }
  if (rc >= 0) rc = ks_buf_printf(&b, "%.*s", (int)(iE - iAt), pS->pTu->zSrc + iAt);
  if (rc < 0) {
    ks_buf_free(&b);
    return NULL;
  }
  return ks_buf_detach(&b);
}

typedef struct top_walk {
  rr_state *pS;
  unsigned iF, iL;
  int bHit;
} top_walk;

static int top_visit(CXCursor c, const CXCursor *aAnc, int nAnc, void *pArg) {
  (void)aAnc;
  (void)nAnc;
  top_walk *w = pArg;
  unsigned iS, iE;
  if (kind(c) == CXCursor_ForStmt) return 1; /* the row loops: their accesses are the slots */
  int bMem = kind(c) == CXCursor_ArraySubscriptExpr || is_atomic_call(c) ||
             (kind(c) == CXCursor_UnaryOperator && clang_getCursorUnaryOperatorKind(c) == CXUnaryOperator_Deref);
  if (!bMem || ks_ast_extent(w->pS->pTu, c, &iS, &iE) < 0 || iS < w->iF || iS >= w->iL) return 0;
  w->bHit = 1;
  return -1;
}

/* Does a statement between the first and the last row loop read or write
 * memory (a result stored between passes)? It would see memory the resident
 * path has not stored yet, or store under a slot. */
static int top_access_between(rr_state *pS) {
  unsigned iF, iE0, iLs, iL;
  if (ks_ast_extent(pS->pTu, pS->aLoop[0].loop, &iF, &iE0) < 0 ||
      ks_ast_extent(pS->pTu, pS->aLoop[pS->nLoop - 1].loop, &iLs, &iL) < 0)
    return 1;
  top_walk w = {pS, iF, iL, 0};
  ks_rw_walk(ks_rw_body(pS->kernel), top_visit, &w);
  return w.bHit;
}

/* Do all row loops start at the same element (the same text), with a start
 * and bound computable before the first pass, and no sum kept in memory?
 * Element j then belongs to the same thread and slot in every pass. Bounds
 * may differ (a causal row's first passes end at t, its last at T), except on
 * packed rows. Sets each loop's bound key and text. */
static int res_loops_alike(rr_state *pS) {
  char *zI0 = squash(pS, pS->aLoop[0].init);
  int bOk = zI0 != NULL;
  for (int i = 0; i < pS->nLoop && bOk; i++) {
    rr_loop *pL = &pS->aLoop[i];
    char *zI = squash(pS, pL->init);
    plain_walk w = {pS, clang_getNullCursor(), 0, 0, 0, {0}, {0}, {0}};
    pL->zBoundKey = pL->zLimit ? ks_strdup(pL->zLimit) : squash(pS, pL->bound);
    pL->zBoundText = pL->zLimit ? ks_strdup(pL->zLimit) : ks_ast_text(pS->pTu, pL->bound);
    bOk = zI && pL->zBoundKey && pL->zBoundText && strcmp(zI, zI0) == 0 && !pL->nMemRef &&
          (!pS->bPack || strcmp(pL->zBoundKey, pS->aLoop[0].zBoundKey) == 0) && !plain_run(&w, pL->init) &&
          !plain_run(&w, pL->bound);
    free(zI);
  }
  free(zI0);
  return bOk;
}

static void free_packs(rr_loop *pL) {
  for (int k = 0; k < pL->nPack; k++) {
    free(pL->aPack[k].zKey);
    free(pL->aPack[k].zText);
    free(pL->aPack[k].zRange);
  }
  memset(pL->aPack, 0, sizeof pL->aPack);
  pL->nPack = pL->nOcc = 0;
}

/* Resident rows: loop pL's accesses as slots (every access an element j of a
 * type a slot holds), walked into a copy of the loop: a scalar loop takes the
 * copy's accesses; a packed loop keeps its packs (the same accesses in the
 * same order, or the rows stay in memory) and takes their row ranges.
 * Returns 0, 1 (the rows stay in memory) or an error. */
static int res_walk_loop(rr_state *pS, rr_loop *pL) {
  int abIn[RR_MAX_PARAMS] = {0}, abOut[RR_MAX_PARAMS] = {0};
  rr_loop t = *pL;
  memset(t.aPack, 0, sizeof t.aPack);
  t.nPack = t.nOcc = 0;
  pack_walk w = {pS, &t, abIn, abOut, 0, 1};
  pS->pCur = pL;
  ks_rw_walk(pL->body, pack_visit, &w);
  pS->pCur = NULL;
  int rc = w.rc;
  if (rc == 0 && pS->bPack) {
    rc = t.nPack != pL->nPack;
    for (int k = 0; k < t.nPack && !rc; k++)
      rc = strcmp(t.aPack[k].zKey, pL->aPack[k].zKey) != 0 || strcmp(t.aPack[k].zElem, pL->aPack[k].zElem) != 0;
    for (int k = 0; k < t.nPack && !rc; k++) {
      pL->aPack[k].zRange = t.aPack[k].zRange;
      t.aPack[k].zRange = NULL;
      pL->aPack[k].bUncond = t.aPack[k].bUncond;
      pL->aPack[k].bFirstUncond = t.aPack[k].bFirstUncond;
    }
    free_packs(&t);
  } else if (rc == 0) {
    free_packs(pL);
    *pL = t;
  } else {
    free_packs(&t);
  }
  return rc;
}

static int res_first_load(const rr_state *pS, const rr_loop *pL, int iLoop, int k);

/* Does statement st store the access keyed zKey (P[e + j]) on every path:
 * an assignment to it, a block holding one, an if whose branches both do? */
static int must_store(rr_state *pS, CXCursor st, const char *zKey) {
  CXCursor a[64];
  int n, e = kind(st), bCompound;
  if (e == CXCursor_CompoundStmt) {
    n = kids(st, a, 64);
    for (int i = 0; i < n && i < 64; i++)
      if (must_store(pS, a[i], zKey)) return 1;
    return 0;
  }
  if (e == CXCursor_IfStmt) return kids(st, a, 4) == 3 && must_store(pS, a[1], zKey) && must_store(pS, a[2], zKey);
  CXCursor target = assign_target(ks_rw_strip(st), &bCompound);
  if (clang_Cursor_isNull(target) || kind(target) != CXCursor_ArraySubscriptExpr) return 0;
  char *z = squash(pS, target);
  int b = z && strcmp(z, zKey) == 0;
  free(z);
  return b;
}

/* The pack of loop pL that is slot s, or -1. */
static int slot_pack(const rr_loop *pL, int s) {
  for (int k = 0; k < pL->nPack; k++)
    if (pL->aiPackSlot[k] == s) return k;
  return -1;
}

/* Slot by slot, pass by pass: where does a register hold element j? A pass
 * covers a slot when at its end the register holds the whole range
 * [start, bound): it loads the slot ahead of its body, stores it on every
 * path, or an earlier covering pass has the same bound. A pass that reads a
 * slot it does not cover so reads lazily, `(j < B_q ? r : (r = P[j]))` over
 * the covering passes q, where and when the original reads, and only before
 * its first store, unless that store is made on every path (a read after a
 * store that may not have happened would see no value). A pass that stores
 * a slot must cover it; its register goes to memory after the body except at
 * the elements a later pass stores on every path (statically with the same
 * bound, else skipped by `!(j < B_q)`).
 * Returns 0, or 1: the rows stay in memory. */
static int res_plan_slots(rr_state *pS) {
  for (int s = 0; s < pS->nSlot; s++) {
    unsigned uCov = 0;
    for (int i = 0; i < pS->nLoop; i++) {
      rr_loop *pL = &pS->aLoop[i];
      int k = slot_pack(pL, s);
      if (k < 0) continue;
      rr_pack *pP = &pL->aPack[k];
      int bCover = res_first_load(pS, pL, i, k) || bound_seen(pS, i, uCov);
      pP->bMust = pP->bStore && must_store(pS, pL->body, pP->zKey);
      if (!bCover && ((pP->bReadAfter && !pP->bFirstUncond) || (pP->bStore && !pP->bMust) || (pS->bPack && pP->bLoad)))
        return 1;
      pP->bLazy = !bCover && pP->bLoad;
      pP->uCov = uCov;
      if (bCover || pP->bMust) uCov |= 1u << i;
    }
    for (int i = 0; i < pS->nLoop; i++) {
      int k = slot_pack(&pS->aLoop[i], s);
      if (k < 0 || !pS->aLoop[i].aPack[k].bStore) continue;
      rr_pack *pP = &pS->aLoop[i].aPack[k];
      pP->bWriteBack = 1;
      for (int q = i + 1; q < pS->nLoop && pP->bWriteBack; q++) {
        int m = slot_pack(&pS->aLoop[q], s);
        if (m < 0 || !pS->aLoop[q].aPack[m].bMust) continue;
        if (strcmp(pS->aLoop[q].zBoundKey, pS->aLoop[i].zBoundKey) == 0) pP->bWriteBack = 0;
        else pP->uWbSkip |= 1u << q;
      }
    }
  }
  return 0;
}

/* resident=K: the row may stay in registers between passes when every
 * access of the row loops is an element j the slots can hold and some slot
 * is accessed by two passes. Otherwise the rows stay in memory (no refusal:
 * the rewrite is today's). The launch still checks each row's length and
 * aliasing at run time (resident_prelude). */
static int plan_resident(rr_state *pS) {
  int bReuse = 0, rc;
  if (!pS->nResK || pS->nUnroll == 1 || pS->nLoop < 2 || !res_loops_alike(pS) || top_access_between(pS))
    return KS_OK;
  for (int i = 0; i < pS->nLoop; i++)
    if ((rc = res_walk_loop(pS, &pS->aLoop[i])) != 0) return rc < 0 ? rc : KS_OK;
  pS->nSlot = 0;
  for (int i = 0; i < pS->nLoop; i++) {
    rr_loop *pL = &pS->aLoop[i];
    for (int k = 0; k < pL->nPack; k++) {
      int s;
      for (s = 0; s < pS->nSlot && strcmp(pS->aSlot[s].zKey, pL->aPack[k].zKey) != 0; s++) {}
      if (s == pS->nSlot) {
        if (s == RR_MAX_SLOTS) return KS_OK;
        pS->aSlot[s].zKey = pL->aPack[k].zKey;
        pS->aSlot[s].zElem = pL->aPack[k].zElem;
        pS->aSlot[s].iFirst = i;
        pS->aSlot[s].iLastStore = -1;
        pS->nSlot++;
      } else if (pS->aSlot[s].iFirst != i) {
        bReuse = 1;
      }
      /* a slot loaded where the body may not read it: the load could touch memory the original never reads */
      if (pL->aPack[k].bLoad && pS->aSlot[s].iFirst == i && !pL->aPack[k].bUncond) return KS_OK;
      pL->aiPackSlot[k] = s;
      if (pL->aPack[k].bStore) pS->aSlot[s].iLastStore = i;
    }
  }
  if (res_plan_slots(pS)) return KS_OK;
  /* packed rows: whole packs of 8 elements a slot */
  if (bReuse) pS->nRes = pS->bPack ? (pS->nResK + 7) / 8 * 8 : pS->nResK;
  return KS_OK;
}

/* Before the first pass: the slots, and the run-time choice of the resident
 * path (ks_res, the same for the row's threads): the row fits in K elements
 * a thread, and the row range [start, bound) of every slot a pass stores is
 * disjoint from every other slot's (in memory, a store could change what
 * another slot holds; in place, out == inp, takes the memory path). */
static int resident_prelude(rr_state *pS, const char *zStep, const char *zInd, ks_buf *pB) {
  rr_loop *p0 = &pS->aLoop[0];
  char *zStart = ks_ast_text(pS->pTu, p0->init);
  int abPair[RR_MAX_SLOTS] = {0}, rc = zStart ? KS_OK : KS_ENOMEM;
  for (int s = 0; s < pS->nSlot; s++)
    for (int t = 0; t < pS->nSlot; t++)
      if (s != t && pS->aSlot[s].iLastStore >= 0) abPair[s] = abPair[t] = 1;
  for (int s = 0; s < pS->nSlot && rc >= 0; s++)
    rc = pS->bPack ? ks_buf_printf(pB, "ks_rowpack::pack<%s> ks_r%d[%d];\n%s", pS->aSlot[s].zElem, s, pS->nRes / 8, zInd)
                   : ks_buf_printf(pB, "%s ks_r%d[%d];\n%s", pS->aSlot[s].zElem, s, pS->nRes, zInd);
  for (int s = 0; s < pS->nSlot && rc >= 0; s++) {
    if (!abPair[s]) continue;
    rr_loop *pF = &pS->aLoop[pS->aSlot[s].iFirst];
    int k = 0;
    while (k < pF->nPack - 1 && pF->aiPackSlot[k] != s) k++;
    char *zV = ks_rw_spelling(pF->var);
    CXString sT = clang_getTypeSpelling(clang_getCursorType(pF->var));
    const char *zT = clang_getCString(sT), *zR = pF->aPack[k].zRange;
    rc = ks_buf_printf(pB, "unsigned long long ks_lo%d, ks_hi%d;\n%s{ %s %s = (%s)(%s); ks_lo%d = (unsigned long long)&(%s);",
                       s, s, zInd, zT, zV, zT, zStart, s, zR);
    /* the row range's end: the largest of the bounds of the passes accessing the slot */
    unsigned uS = 0;
    for (int i = 0; i < pS->nLoop; i++)
      if (slot_pack(&pS->aLoop[i], s) >= 0) uS |= 1u << i;
    for (int i = 0, bFirst = 1; i < pS->nLoop && rc >= 0; i++) {
      if (!(uS >> i & 1u) || bound_seen(pS, i, uS)) continue;
      const char *zB = pS->aLoop[i].zBoundText;
      rc = bFirst ? ks_buf_printf(pB, " %s = (%s)(%s); ks_hi%d = (unsigned long long)&(%s);", zV, zT, zB, s, zR)
                  : ks_buf_printf(pB, " %s = (%s)(%s); if ((unsigned long long)&(%s) > ks_hi%d) ks_hi%d = (unsigned long long)&(%s);",
                                  zV, zT, zB, zR, s, s, zR);
      bFirst = 0;
    }
    if (rc >= 0) rc = ks_buf_printf(pB, " }\n%s", zInd);
    clang_disposeString(sT);
    free(zV);
  }
  /* every pass's row fits K elements a thread */
  for (int i = 0; i < pS->nLoop && rc >= 0; i++) {
    if (bound_seen(pS, i, ~0u)) continue;
    rc = i ? ks_buf_printf(pB, "\n%s    && ", zInd) : ks_buf_puts(pB, "const bool ks_res = ");
    if (rc >= 0)
      rc = ks_buf_printf(pB, "(long long)(%s) - (long long)(%s) <= (long long)%d * (long long)(%s)",
                         pS->aLoop[i].zBoundText, zStart, pS->nRes, zStep);
  }
  for (int s = 0; s < pS->nSlot && rc >= 0; s++)
    for (int t = s + 1; t < pS->nSlot && rc >= 0; t++)
      if (pS->aSlot[s].iLastStore >= 0 || pS->aSlot[t].iLastStore >= 0)
        rc = ks_buf_printf(pB, "\n%s    && (ks_hi%d <= ks_lo%d || ks_hi%d <= ks_lo%d)", zInd, s, t, t, s);
  if (rc >= 0) rc = ks_buf_printf(pB, ";\n%s", zInd);
  free(zStart);
  return rc < 0 ? ks_error_set(KS_ENOMEM, "out of memory") : KS_OK;
}

/* Does pass iLoop load slot access k (the first pass that accesses the slot,
 * reading it)? And does it load any? */
static int res_first_load(const rr_state *pS, const rr_loop *pL, int iLoop, int k) {
  return pL->aPack[k].bLoad && pS->aSlot[pL->aiPackSlot[k]].iFirst == iLoop;
}

static int res_loads(const rr_state *pS, const rr_loop *pL, int iLoop) {
  for (int k = 0; k < pL->nPack; k++)
    if (res_first_load(pS, pL, iLoop, k)) return 1;
  return 0;
}

/* The head of a resident loop over a thread's K elements: element j (zVar)
 * of slot ks_k, inside the row bound (the block stays open). */
static int res_elem_head(const rr_state *pS, const char *zType, const char *zVar, const char *zStart,
                         const char *zStep, const char *zInd, int nBound, const char *zBound, ks_buf *pB) {
  return ks_buf_printf(pB,
                       "%s  #pragma unroll\n%s  for (int ks_k = 0; ks_k < %d; ks_k++) {\n"
                       "%s    %s %s = %s + (%s)(ks_k * %s);\n%s    if (%s < (%.*s)) {\n",
                       zInd, zInd, pS->nRes, zInd, zType, zVar, zStart, zType, zStep, zInd, zVar, nBound, zBound);
}

/* The head of a resident loop over a thread's K/8 packs: pack ks_u at ks_c,
 * ks_n of its elements inside the row (the block stays open). */
static int res_pack_head(const rr_state *pS, const char *zType, const char *zStart8, const char *zStep,
                         const char *zInd, int nBound, const char *zBound, ks_buf *pB) {
  return ks_buf_printf(pB,
                       "%s  #pragma unroll\n%s  for (int ks_u = 0; ks_u < %d; ks_u++) {\n"
                       "%s    %s ks_c = %s + (%s)(ks_u * 8 * %s);\n"
                       "%s    int ks_n = ks_rowpack::count((long long)(%.*s) - (long long)ks_c);\n",
                       zInd, zInd, pS->nRes / 8, zInd, zType, zStart8, zType, zStep, zInd, nBound, zBound);
}

/* The resident path of a row loop, before today's (pL->zUnrolled, the
 * memory path): K strided elements a thread, the same elements as the memory
 * path's, each access replaced by its slot's register; a slot is loaded by
 * the first pass that accesses it (when that pass reads it before storing
 * it) and stored to memory by the last pass that stores it only (an earlier
 * store is overwritten, and later passes read the register). */
/* The resident pass of a scalar row: element j = start + K-th stride, the
 * body on the slots' registers ks_r<s>[ks_k]. */
static int resident_elems(rr_state *pS, rr_loop *pL, const char *zType, const char *zVar, const char *zStart,
                          const char *zStep, const char *zInd, const char *zBody, int nBound, const char *zBound,
                          ks_buf *pB) {
  int iLoop = (int)(pL - pS->aLoop);
  int rc = ks_buf_printf(pB, "if (ks_res) {\n");
  /* The loads in a loop of their own, ahead of the body: each is one
   * predicated load, so all K are in flight at once; inside the body's
   * branches each would wait for the one before (measured: f32 softmax 347
   * us with the loads in the body against 187 us on the memory path). */
  if (res_loads(pS, pL, iLoop) && rc >= 0) {
    rc = res_elem_head(pS, zType, zVar, zStart, zStep, zInd, nBound, zBound, pB);
    for (int k = 0; k < pL->nPack && rc >= 0; k++)
      if (res_first_load(pS, pL, iLoop, k))
        rc = ks_buf_printf(pB, "%s      ks_r%d[ks_k] = %s;\n", zInd, pL->aiPackSlot[k], pL->aPack[k].zText);
    if (rc >= 0) rc = ks_buf_printf(pB, "%s    }\n%s  }\n", zInd, zInd);
  }
  if (rc >= 0) rc = res_elem_head(pS, zType, zVar, zStart, zStep, zInd, nBound, zBound, pB);
  if (rc >= 0) rc = ks_buf_printf(pB, "%s      ", zInd);
  if (rc >= 0) rc = put_reindented(pB, zBody, (int)strlen(zBody), zInd, 6);
  for (int k = 0; k < pL->nPack && rc >= 0; k++) {
    const rr_pack *pP = &pL->aPack[k];
    if (!pP->bWriteBack) continue;
    rc = ks_buf_printf(pB, "\n%s      ", zInd);
    if (rc >= 0 && pP->uWbSkip) {
      rc = ks_buf_puts(pB, "if (");
      if (rc >= 0) rc = put_below(pS, zVar, pP->uWbSkip, 1, pB);
      if (rc >= 0) rc = ks_buf_puts(pB, ") ");
    }
    if (rc >= 0) rc = ks_buf_printf(pB, "%s = ks_r%d[ks_k];", pP->zText, pL->aiPackSlot[k]);
  }
  if (rc >= 0) rc = ks_buf_printf(pB, "\n%s    }\n%s  }", zInd, zInd);
  return rc;
}

/* The resident pass of a packed row (16-bit elements): the thread's K/8
 * packs, pack u at zStart8 + 8*S*u as on the memory path (ks_rowpack.cuh
 * moves a whole aligned pack as 16 bytes, else element by element), the
 * body once per element on the slots' packs ks_r<s>[ks_u][ks_e]. */
static int resident_packs(rr_state *pS, rr_loop *pL, const char *zType, const char *zVar, const char *zStart8,
                          const char *zStep, const char *zInd, const char *zBody, int nBound, const char *zBound,
                          ks_buf *pB) {
  int iLoop = (int)(pL - pS->aLoop);
  int rc = ks_buf_printf(pB, "if (ks_res) {\n");
  /* Packs loaded in a loop of their own ahead of the body, as in
   * resident_elems: all in flight at once. */
  if (res_loads(pS, pL, iLoop) && rc >= 0) {
    rc = res_pack_head(pS, zType, zStart8, zStep, zInd, nBound, zBound, pB);
    for (int k = 0; k < pL->nPack && rc >= 0; k++)
      if (res_first_load(pS, pL, iLoop, k))
        rc = ks_buf_printf(pB, "%s    { %s %s = ks_c; ks_rowpack::load(ks_r%d[ks_u], &%s, ks_n); }\n", zInd, zType,
                           zVar, pL->aiPackSlot[k], pL->aPack[k].zText);
    if (rc >= 0) rc = ks_buf_printf(pB, "%s  }\n", zInd);
  }
  if (rc >= 0) rc = res_pack_head(pS, zType, zStart8, zStep, zInd, nBound, zBound, pB);
  if (rc >= 0)
    rc = ks_buf_printf(pB,
                       "%s    #pragma unroll\n%s    for (int ks_e = 0; ks_e < 8; ks_e++) {\n%s      if (ks_e >= ks_n) break;\n"
                       "%s      %s %s = ks_c + (%s)ks_e;\n%s      ",
                       zInd, zInd, zInd, zInd, zType, zVar, zType, zInd);
  if (rc >= 0) rc = put_reindented(pB, zBody, (int)strlen(zBody), zInd, 6);
  if (rc >= 0) rc = ks_buf_printf(pB, "\n%s    }", zInd);
  for (int k = 0; k < pL->nPack && rc >= 0; k++)
    if (pL->aPack[k].bWriteBack)
      rc = ks_buf_printf(pB, "\n%s    { %s %s = ks_c; ks_rowpack::store(&%s, ks_r%d[ks_u], ks_n); }", zInd, zType, zVar,
                         pL->aPack[k].zText, pL->aiPackSlot[k]);
  if (rc >= 0) rc = ks_buf_printf(pB, "\n%s  }", zInd);
  return rc;
}

static int resident_loop(rr_state *pS, rr_loop *pL, const char *zType, const char *zVar, const char *zStart,
                         const char *zStep, const char *zInd) {
  unsigned iBs, iBe, iCs, iCe;
  int iLoop = (int)(pL - pS->aLoop), rc = KS_OK;
  if (ks_ast_extent(pS->pTu, pL->body, &iBs, &iBe) < 0 || extent(pS, pL->bound, &iCs, &iCe) < 0)
    return ks_rewrite_refuse(pS->p, "the row loop at line %u is written with a macro", line_of(pS, pL->loop));
  iBe = ks_rw_after_stmt(pS->pTu, iBe);
  char *zBody = body_text(pS, pL, iBs, iBe, pS->bPack ? 3 : 2);
  if (!zBody) return -1;
  const char *zBound = pL->zLimit ? pL->zLimit : pS->pTu->zSrc + iCs;
  int nBound = pL->zLimit ? (int)strlen(pL->zLimit) : (int)(iCe - iCs);
  ks_buf b = KS_BUF_INIT;
  if (iLoop == 0) rc = resident_prelude(pS, zStep, zInd, &b);
  if (rc >= 0 && pS->bPack)
    rc = resident_packs(pS, pL, zType, zVar, zStart, zStep, zInd, zBody, nBound, zBound, &b);
  else if (rc >= 0)
    rc = resident_elems(pS, pL, zType, zVar, zStart, zStep, zInd, zBody, nBound, zBound, &b);
  if (rc >= 0) rc = ks_buf_printf(&b, "\n%s} else %s", zInd, pL->zUnrolled);
  free(zBody);
  if (rc < 0) {
    ks_buf_free(&b);
    return ks_error_set(KS_ENOMEM, "out of memory");
  }
  free(pL->zUnrolled);
  pL->zUnrolled = ks_buf_detach(&b);
  return pL->zUnrolled ? KS_OK : ks_error_set(KS_ENOMEM, "out of memory");
}

/* Loop pL's header strided over the block's (warp's) threads, or the loop
 * replaced by its unrolled form (with zReset, the sums' resets, before it). */
static int edit_loop_header(rr_state *pS, rr_loop *pL, const char *zInd, const char *zLane, const char *zStep) {
  ks_rewrite *p = pS->p;
  ks_tu *pTu = pS->pTu;
  unsigned iIs, iIe, iNs, iNe;
  if (extent(pS, pL->init, &iIs, &iIe) < 0 || extent(pS, pL->inc, &iNs, &iNe) < 0)
    return ks_rewrite_refuse(p, "the row loop at line %u of '%s' is written with a macro", line_of(pS, pL->loop),
                             pS->zKernel);
  char *zVar = ks_rw_spelling(pL->var);
  char *zInit = ks_ast_text(pTu, pL->init);
  char *zType = NULL;
  {
    CXString s = clang_getTypeSpelling(clang_getCursorType(pL->var));
    zType = ks_strdup(clang_getCString(s));
    clang_disposeString(s);
  }
  ks_buf lane = KS_BUF_INIT, text = KS_BUF_INIT;
  int rc;
  if (is_zero_literal(pS, pL->init)) rc = ks_buf_printf(&lane, "%s", zLane);
  else rc = ks_buf_printf(&lane, "%s + (%s)%s", zInit, zType, zLane);
  if (rc >= 0 && pS->nUnroll == 1) {
    rc = ks_rewrite_replace(p, iIs, iIe, lane.z);
    if (rc >= 0) rc = ks_buf_printf(&text, "%s += %s", zVar, zStep);
    if (rc >= 0) rc = ks_rewrite_replace(p, iNs, iNe, text.z);
    for (int i = 0; i < pL->nMemRef && rc >= 0; i++) {
      unsigned s0, e0;
      char zName[32];
      if (extent(pS, pL->aMemRef[i], &s0, &e0) < 0)
        rc = ks_rewrite_refuse(p, "the sum into memory at line %u is written with a macro", line_of(pS, pL->aMemRef[i]));
      else
        rc = ks_rewrite_replace(p, s0, e0, mem_name(pS, pL, pL->aiMemVar[i], zName, sizeof zName));
    }
  } else if (rc >= 0 && pS->bPack) {
    ks_buf_clear(&lane);
    if (is_zero_literal(pS, pL->init)) rc = ks_buf_printf(&lane, "(%s)(8 * %s)", zType, zLane);
    else rc = ks_buf_printf(&lane, "%s + (%s)(8 * %s)", zInit, zType, zLane);
    if (rc >= 0) rc = packed_loop(pS, pL, zType, zVar, lane.z, zStep, zInd);
    if (rc >= 0 && pS->nRes) rc = resident_loop(pS, pL, zType, zVar, lane.z, zStep, zInd);
  } else if (rc >= 0) {
    rc = unrolled_loop(pS, pL, pS->nUnroll, zType, zVar, lane.z, zStep, zInd);
    if (rc >= 0 && pS->nRes) rc = resident_loop(pS, pL, zType, zVar, lane.z, zStep, zInd);
  }
  ks_buf_free(&lane);
  ks_buf_free(&text);
  free(zInit);
  free(zType);
  free(zVar);
  return rc;
}

/* One row loop: its header strided (or unrolled), sums that restart at zero
 * in the other threads, the block-wide (warp-wide) reduction of every
 * accumulator after it, and its provenance note. */
static int edit_loop(rr_state *pS, rr_loop *pL) {
  ks_rewrite *p = pS->p;
  ks_tu *pTu = pS->pTu;
  int bWarp = pS->bWarp, rc;
  const char *zLane = bWarp ? "(threadIdx.x & 31u)" : "threadIdx.x";
  const char *zStep = bWarp ? "32" : "blockDim.x";
  unsigned iLs, iLe, nIndent;
  if (ks_ast_extent(pTu, pL->loop, &iLs, &iLe) < 0)
    return ks_rewrite_refuse(p, "the row loop at line %u of '%s' is written with a macro", line_of(pS, pL->loop),
                             pS->zKernel);
  iLe = ks_rw_after_stmt(pTu, iLe);
  unsigned iLine0 = ks_rewrite_line_start(p, iLs, &nIndent);
  char zInd[64];
  snprintf(zInd, sizeof zInd, "%.*s", (int)(nIndent < 60 ? nIndent : 60), pTu->zSrc + iLine0);
  if ((rc = edit_loop_header(pS, pL, zInd, zLane, zStep)) < 0) return rc;
  ks_buf text = KS_BUF_INIT, note = KS_BUF_INIT, accs = KS_BUF_INIT;
  for (int k = 0; k < pL->nAcc; k++) {
    rr_var *pV = &pS->aVar[pL->aiAcc[k]];
    char zMem[32];
    char *zAcc = pV->bMem ? ks_strdup(mem_name(pS, pL, pL->aiAcc[k], zMem, sizeof zMem)) : ks_rw_spelling(pV->decl);
    char zName[64];
    if (pV->bMem) /* the memory sum's register, from zero in every thread */
      ks_buf_printf(&text, "%s %s = 0;\n%s", pV->bDouble ? "double" : "float", zAcc, zInd);
    helper_name(pL->aeOp[k], pV->bDouble, helper_kind(pS), zName, sizeof zName);
    pS->bReduce = 1;
    if (pL->abReset[k])
      ks_buf_printf(&text, "if (%s != 0) %s = %s;\n%s", zLane, zAcc, pV->bDouble ? "0.0" : "0.0f", zInd);
    if (pL->aiIdx[k] >= 0) {
      /* arg-max / arg-min: the value and its index combined as a pair. */
      char *zIdx = ks_rw_spelling(pS->aVar[pL->aiIdx[k]].decl);
      ks_buf_printf(&accs, "\n%s%s = %s(%s, %s);", zInd, zAcc, zName, zAcc, zIdx);
      ks_buf_printf(&note, "%s%s(%s, %s)", k ? ", " : "", azOpName[pL->aeOp[k]], zAcc, zIdx);
      free(zIdx);
    } else {
      ks_buf_printf(&accs, "\n%s%s = %s(%s);", zInd, zAcc, zName, zAcc);
      ks_buf_printf(&note, "%s%s(%s)", k ? ", " : "", azOpName[pL->aeOp[k]], zAcc);
      if (pV->bMem) {
        char *zM = ks_ast_text(pTu, pV->mem);
        ks_buf_printf(&accs, "\n%s%s%s += %s;", zInd, bWarp ? "if ((threadIdx.x & 31u) == 0) " : "if (threadIdx.x == 0) ",
                      zM ? zM : "?", zAcc);
        free(zM);
      }
    }
    free(zAcc);
  }
  if (pS->nUnroll > 1) {
    /* The resets, then the unrolled loop, replace the loop statement. */
    ks_buf whole = KS_BUF_INIT;
    rc = ks_buf_printf(&whole, "%s%s", text.z ? text.z : "", pL->zUnrolled);
    if (rc >= 0) rc = ks_rewrite_replace(p, iLs, iLe, whole.z);
    ks_buf_free(&whole);
  } else if (text.n) {
    rc = ks_rewrite_replace(p, iLs, iLs, text.z);
  }
  if (rc >= 0 && accs.n) rc = ks_rewrite_replace(p, iLe, iLe, accs.z);
  if (rc >= 0) {
    ks_buf b = KS_BUF_INIT;
    const char *zWalk = pS->bPack ? "row in packs of 8 elements strided over the %s's threads (16-byte loads and "
                                    "stores where a pack is whole and aligned)"
                                  : "row strided over the %s's threads";
    ks_buf_printf(&b, zWalk, azKind[helper_kind(pS)]);
    if (pL->nAcc)
      ks_buf_printf(&b, "%s, then %s-wide %s", pS->bPack ? "" : " (coalesced)", azKind[helper_kind(pS)], note.z);
    else if (!pS->bPack)
      ks_buf_printf(&b, " (coalesced stores)");
    if (pS->nRes) ks_buf_printf(&b, "; the row kept in registers between passes when it fits %d elements a thread", pS->nRes);
    char *zNote = ks_buf_detach(&b);
    rc = zNote ? ks_rewrite_note(p, iLs, zNote) : ks_error_set(KS_ENOMEM, "out of memory");
    free(zNote);
  }
  ks_buf_free(&text);
  ks_buf_free(&note);
  ks_buf_free(&accs);
  return rc;
}

/* Stores of the row's result: one thread. */
static int edit_top_stores(rr_state *pS) {
  const char *zGuard = pS->bWarp ? "if ((threadIdx.x & 31u) == 0) " : "if (threadIdx.x == 0) ";
  int rc;
  for (int i = 0; i < pS->nTopStore; i++) {
    unsigned iSs, iSe;
    if (ks_ast_extent(pS->pTu, pS->aTopStore[i], &iSs, &iSe) < 0)
      return ks_rewrite_refuse(pS->p, "the store at line %u of '%s' is written with a macro",
                               line_of(pS, pS->aTopStore[i]), pS->zKernel);
    if ((rc = ks_rewrite_replace(pS->p, iSs, iSs, zGuard)) < 0) return rc;
    if ((rc = ks_rewrite_note(pS->p, iSs, "one thread stores the row's result")) < 0) return rc;
  }
  return KS_OK;
}

/* threads=auto: the host functions the launches size the row groups with,
 * unless an earlier application wrote them above iAt (where they go: above the
 * kernel; a launch before that keeps a fixed block, edit_launches). A group is
 * 32 to 256 threads, about 16 elements a thread (32 for packed rows, which
 * have their own pair of functions); a group of one warp takes 8
 * rows a block (the helpers' warp path needs no barrier). */
static int put_launch_helpers(rr_state *pS, unsigned iAt, ks_buf *pOut) {
  /* Packed rows (16-bit elements, 8 a pack) get their own pair with about
   * twice the elements a thread: measured on the H200 (bench/row-cache,
   * kernelskill bench, layernorm over 65536 x 2048 bf16), 128 threads 236 us,
   * 64 threads 207 us; f32 rows (softmax 32768 x 2048) the other way, 128
   * threads 186 us, 64 threads 282 us. */
  const char *zBlock = pS->bPack ? "ks_row_pblock" : "ks_row_block", *zGrid = pS->bPack ? "ks_row_pgrid" : "ks_row_grid";
  int nPer = pS->bPack ? 64 : 32;
  fn_find f = {pS->pTu, zBlock, -1};
  clang_visitChildren(clang_getTranslationUnitCursor(pS->pTu->pTu), find_fn_visit, &f);
  if (f.iAt >= 0 && (unsigned)f.iAt < iAt) return KS_OK;
  if (f.iAt >= 0) return ks_rewrite_refuse(pS->p, "%s is defined below '%s'; move it above or rename it", zBlock,
                                           pS->zKernel);
  char *zNote = ks_rewrite_note_text(pS->p, pS->bPack ? "the row groups' size from the row length: about 32 elements "
                                                        "(4 packs) a thread, 32 to 256 threads, a warp per row (8 rows "
                                                        "a block) under 2048 elements"
                                                      : "the row groups' size from the row length: about 16 elements a "
                                                        "thread, 32 to 256 threads, a warp per row (8 rows a block) "
                                                        "under 1024 elements");
  if (!zNote) return ks_error_set(KS_ENOMEM, "out of memory");
  int rc = ks_buf_printf(pOut,
                         "\n%s\n"
                         "static inline dim3 %s(long long cols) {\n"
                         "  unsigned g = 32;\n"
                         "  while (g < 256u && (long long)g * %d <= cols) g *= 2;\n"
                         "  return g == 32u ? dim3(32, 8) : dim3(g, 1);\n"
                         "}\n"
                         "static inline dim3 %s(long long rows, long long cols) {\n"
                         "  long long y = (long long)%s(cols).y;\n"
                         "  return dim3((unsigned)((rows + y - 1) / y));\n"
                         "}\n",
                         zNote, zBlock, nPer, zGrid, zBlock);
  free(zNote);
  return rc;
}

/* The reduction helpers the loops use, above the kernel and the comment lines
 * directly above it, unless an earlier application wrote them there. */
static int put_helpers(rr_state *pS) {
  ks_rewrite *p = pS->p;
  ks_tu *pTu = pS->pTu;
  ks_buf helpers = KS_BUF_INIT;
  int rc = KS_OK;
  /* at file scope: a kernel in a namespace gets them above the outermost
   * one, where a kernel of another namespace sees them too */
  unsigned iAt = ks_rw_file_scope_at(p, pS->iKs, ks_rewrite_comments_above(p, pS->iKs));
  pS->iHelpersAt = iAt;
  /* the shipped header once per file (an earlier application may have put it there) */
  if (pS->bReduce && !strstr(pTu->zSrc, "#define KS_ROWREDUCE_CUH") && (rc = ks_buf_puts(&helpers, "\n")) >= 0)
    rc = ks_rw_shipped_block(p, "#define KS_ROWREDUCE_CUH", "ks_rowreduce.cuh", "row-reduction header",
                             "the shipped row reductions (share/kernelskill/templates/ks_rowreduce.cuh)", &helpers);
  if (rc >= 0 && pS->bGroup) rc = put_launch_helpers(pS, iAt, &helpers);
  if (rc >= 0 && pS->bPack && !strstr(pTu->zSrc, "#define KS_ROWPACK_CUH") && (rc = ks_buf_puts(&helpers, "\n")) >= 0)
    rc = ks_rw_shipped_block(p, "#define KS_ROWPACK_CUH", "ks_rowpack.cuh", "row-pack header",
                             "the shipped row-pack helpers (share/kernelskill/templates/ks_rowpack.cuh)", &helpers);
  if (rc >= 0 && helpers.n) {
    if (iAt > 0) rc = ks_rewrite_replace(p, iAt - 1, iAt - 1, helpers.z);
    else rc = ks_buf_puts(&helpers, "\n") < 0 ? KS_ENOMEM : ks_rewrite_replace(p, 0, 0, helpers.z + 1);
  }
  ks_buf_free(&helpers);
  return rc;
}

/* The kernel's note, and every launch: grid = rows (block) or rows /
 * warps-per-block (warp), block = threads. */
static int edit_launches(rr_state *pS) {
  ks_rewrite *p = pS->p;
  int nThreads = pS->nThreads, bWarp = pS->bWarp, rc;
  ks_buf text = KS_BUF_INIT, note = KS_BUF_INIT;
  if (pS->bGroup)
    rc = ks_buf_printf(&note, "a group of threads per row (blockDim.x threads, blockDim.y rows a block), sized at "
                              "each launch from the row length; cooperative reductions");
  else if (bWarp)
    rc = ks_buf_printf(&note, "one warp per row (%d rows per block of %d threads), cooperative reductions",
                       nThreads / 32, nThreads);
  else
    rc = ks_buf_printf(&note, "one block of %d threads per row, cooperative reductions", nThreads);
  if (rc >= 0) rc = ks_rewrite_note(p, pS->iKs, note.z);
  for (int i = 0; i < pS->nL && rc >= 0; i++) {
    ks_launch *pL = &pS->aL[i];
    char *zRows = rows_text(pS, pL);
    if (!zRows) {
      rc = KS_ERROR; /* rows_text_at's error, or an allocation */
      break;
    }
    ks_buf_clear(&text);
    /* auto: the row length the launch passes, when it can be evaluated again
     * and the helpers stand above the launch; else the fixed block. */
    const char *zCols = pS->iColsParam >= 0 ? pL->azArg[pS->iColsParam] : pS->zColsLit;
    int bGroupHere = pS->bGroup && zCols && simple_arg(zCols) && pL->iStart >= pS->iHelpersAt;
    if (bGroupHere) {
      char *zC = ks_rw_paren(zCols);
      rc = ks_buf_printf(&text, pS->bPack ? "ks_row_pgrid(%s, %s), ks_row_pblock(%s)" : "ks_row_grid(%s, %s), ks_row_block(%s)",
                         zRows, zC, zC);
      free(zC);
    } else if (bWarp) rc = ks_buf_printf(&text, "(%s + %d) / %d, %d", zRows, nThreads / 32 - 1, nThreads / 32, nThreads);
    else rc = ks_buf_printf(&text, "%s, %d", zRows, nThreads);
    free(zRows);
    if (rc >= 0 && pL->azCfg[2]) rc = ks_buf_printf(&text, ", %s", pL->azCfg[2]);
    if (rc >= 0 && pL->azCfg[3]) rc = ks_buf_printf(&text, ", %s", pL->azCfg[3]);
    if (rc < 0 || (rc = ks_rewrite_replace(p, pL->iCfgStart, pL->iCfgEnd, text.z)) < 0) break;
    ks_buf_clear(&note);
    if (bGroupHere) rc = ks_buf_printf(&note, "a group of threads per row, sized from the row length");
    else if (pS->bGroup)
      rc = ks_buf_printf(&note, "one block of %d threads per row (the row length is not an argument the launch can "
                                "repeat, or the launch stands above the kernel)", nThreads);
    else if (bWarp) rc = ks_buf_printf(&note, "one warp per row: %d rows per block of %d threads", nThreads / 32, nThreads);
    else rc = ks_buf_printf(&note, "one block of %d threads per row", nThreads);
    if (rc >= 0) rc = ks_rewrite_note(p, pL->iStart, note.z);
  }
  ks_buf_free(&text);
  ks_buf_free(&note);
  return rc;
}

/* threads=auto: the row length each launch passes, from the bound of the
 * first row loop that names a parameter (the launch's argument for it) or is
 * an integer literal: a causal row's `t2 <= t` passes give way to the last
 * pass's `t2 < T`. Only the group size depends on it (the kernel is right for
 * any), so a bound that is not the longest costs speed, never results. No
 * such loop leaves the launches at the fixed block. And without an
 * unroll= of the caller's, a kernel with a buffer of 16-bit elements (a
 * pointer parameter to 2-byte elements: half and bf16 rows) gets 8 loads in
 * flight a thread instead of 4, about the bytes in flight of 4-byte rows
 * (measured on the H200: half and bf16 rows at 51-65% of the peak with 4). */
static void find_cols(rr_state *pS) {
  pS->iColsParam = -1;
  pS->zColsLit = NULL;
  if (!pS->bGroup || pS->nLoop < 1) return;
  if (!ks_rewrite_param(pS->p, "unroll", NULL)) {
    long long nMin = 0;
    for (int i = 0; i < pS->nParam; i++) {
      CXType t = clang_getCanonicalType(clang_getArgType(clang_getCursorType(pS->kernel), (unsigned)i));
      if (t.kind != CXType_Pointer) continue;
      long long n = clang_Type_getSizeOf(clang_getPointeeType(t));
      if (n > 0 && (nMin == 0 || n < nMin)) nMin = n;
    }
    if (nMin > 0 && nMin <= 2) pS->nUnroll = 8;
  }
  for (int i = 0; i < pS->nLoop; i++) {
    CXCursor b = ks_rw_strip(pS->aLoop[i].bound);
    CXCursor d = ks_rw_ref_decl(b);
    if (!clang_Cursor_isNull(d)) {
      if ((pS->iColsParam = param_index(pS, d)) >= 0) return;
      continue;
    }
    if (kind(b) != CXCursor_IntegerLiteral) continue;
    char *z = ks_ast_text(pS->pTu, b);
    int bLit = z && strlen(z) < sizeof pS->zColsBuf && strspn(z, "0123456789uUlL") == strlen(z);
    if (bLit) {
      snprintf(pS->zColsBuf, sizeof pS->zColsBuf, "%s", z);
      pS->zColsLit = pS->zColsBuf;
    }
    free(z);
    if (bLit) return;
  }
}

/* ---- the rule ---- */

static int apply_row_reduce(ks_rewrite *p) {
  rr_state *pS = calloc(1, sizeof *pS);
  int rc;
  if (!pS) return ks_error_set(KS_ENOMEM, "out of memory");
  pS->p = p;
  pS->pTu = ks_rewrite_tu(p);
  pS->atJ = clang_getNullCursor();
  pS->zKernel = ks_rewrite_kernel_name(p);
  if ((rc = read_params(pS)) < 0 || (rc = match_kernel(pS)) < 0) goto done;
  find_cols(pS);
  if ((rc = plan_packs(pS)) < 0 || (rc = plan_resident(pS)) < 0) goto done;
  /* ---- edits ---- */
  if ((rc = ks_rewrite_replace(p, pS->iRowS, pS->iRowE,
                               pS->bWarp    ? "blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5)"
                               : pS->bGroup ? "blockIdx.x * blockDim.y + threadIdx.y"
                                            : "blockIdx.x")) < 0)
    goto done;
  for (int iLoop = 0; iLoop < pS->nLoop; iLoop++)
    if ((rc = edit_loop(pS, &pS->aLoop[iLoop])) < 0) goto done;
  if ((rc = edit_top_stores(pS)) < 0 || (rc = put_helpers(pS)) < 0) goto done;
  rc = edit_launches(pS);
done:
  ks_ast_launches_free(pS->aL, pS->nL);
  for (int i = 0; i < pS->nLoop; i++) {
    free(pS->aLoop[i].zUnrolled);
    free(pS->aLoop[i].zLimit);
    free(pS->aLoop[i].zBoundKey);
    free(pS->aLoop[i].zBoundText);
    for (int k = 0; k < pS->aLoop[i].nPack; k++) {
      free(pS->aLoop[i].aPack[k].zKey);
      free(pS->aLoop[i].aPack[k].zText);
      free(pS->aLoop[i].aPack[k].zRange);
    }
  }
  for (int i = 0; i < RR_MAX_PARAMS; i++) free(pS->azElem[i]);
  free(pS);
  return rc;
}

static const char *const azParams[] = {"threads", "mode", "unroll", "pack", "resident", NULL};

const ks_rule ks_rule_row_reduce = {
    "row-reduce",
    "thread-per-row loops to one block (mode=block) or warp (mode=warp) per row with cooperative reductions "
    "(threads=256; threads=auto sizes each row's group at the launch from the row length)",
    azParams, apply_row_reduce};
