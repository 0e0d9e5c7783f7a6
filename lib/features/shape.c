/* shape.c — the kernel-shape model (shape.h): one pass over a kernel's AST
 * that turns every index into a polynomial over thread built-ins, parallel
 * indices, loop variables and uniform values, lists the guards, loops,
 * accumulators, global accesses, calls and uses of the kernel, and derives
 * the shape class. Every walk is depth-limited: a body nested deeper than
 * SHAPE_MAX_DEPTH gives a partial model (bTruncated), never a stack overflow. */
#include "features/shape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHAPE_MAX_DEPTH 200

/* ---------- small cursor helpers ---------- */

typedef struct kids {
  CXCursor *a;
  int n;
} kids;

static kids get_kids(CXCursor c) {
  kids k = {NULL, 0};
  ks_ast_children(c, &k.a, &k.n);
  return k;
}

static char *spell(CXCursor c) {
  CXString s = clang_getCursorSpelling(c);
  char *z = ks_strdup(clang_getCString(s) ? clang_getCString(s) : "");
  clang_disposeString(s);
  return z;
}

static int spelled(CXCursor c, const char *zName) {
  CXString s = clang_getCursorSpelling(c);
  const char *z = clang_getCString(s);
  int b = z && strcmp(z, zName) == 0;
  clang_disposeString(s);
  return b;
}

static enum CXCursorKind kind(CXCursor c) { return clang_getCursorKind(c); }

static int is_cast(CXCursor c) {
  enum CXCursorKind e = kind(c);
  return e == CXCursor_CStyleCastExpr || e == CXCursor_CXXStaticCastExpr || e == CXCursor_CXXFunctionalCastExpr ||
         e == CXCursor_CXXConstCastExpr;
}

/* The one expression child of a wrapper (cast, paren, implicit), else null. */
static CXCursor only_expr(CXCursor c) {
  kids k = get_kids(c);
  CXCursor r = clang_getNullCursor();
  int n = 0;
  for (int i = 0; i < k.n; i++)
    if (clang_isExpression(kind(k.a[i]))) r = k.a[i], n++;
  free(k.a);
  return n == 1 ? r : clang_getNullCursor();
}

/* Through parentheses and implicit conversions (not written casts). */
static CXCursor strip_parens(CXCursor c) {
  for (int i = 0; i < 64; i++) {
    enum CXCursorKind e = kind(c);
    if (e != CXCursor_ParenExpr && e != CXCursor_UnexposedExpr) return c;
    CXCursor n = only_expr(c);
    if (clang_Cursor_isNull(n)) return c;
    c = n;
  }
  return c;
}

static int int_bits(CXType t) {
  switch (clang_getCanonicalType(t).kind) {
  case CXType_Int: case CXType_UInt: case CXType_Long: case CXType_ULong:
  case CXType_LongLong: case CXType_ULongLong: case CXType_Short: case CXType_UShort:
  case CXType_Char_S: case CXType_Char_U: case CXType_SChar: case CXType_UChar: {
    long long n = clang_Type_getSizeOf(t);
    return n > 0 ? (int)n * 8 : 0;
  }
  default:
    return 0;
  }
}

static int eval_const(CXCursor c, long long *pv) { return ks_ast_const_int(c, pv); }

static const char *const azBuiltinName[] = {"threadIdx", "blockIdx", "blockDim", "gridDim"};

/* threadIdx.x etc: kind (TID..GDIM) and dimension, else -1. */
static int builtin_atom(CXCursor c, int *piDim) {
  if (kind(c) != CXCursor_MemberRefExpr) return -1;
  kids k = get_kids(c);
  int e = -1;
  if (k.n >= 1) {
    CXCursor b = strip_parens(k.a[0]);
    if (kind(b) == CXCursor_DeclRefExpr) {
      static const char *const az[] = {"threadIdx", "blockIdx", "blockDim", "gridDim"};
      for (int i = 0; i < 4; i++)
        if (spelled(b, az[i])) e = i;
    }
  }
  free(k.a);
  if (e < 0) return -1;
  /* The member is an MS property without a spelling: read `base . x` at the
   * expression's spelling location (the base identifier, even inside a macro). */
  int d = -1;
  CXFile file;
  unsigned iOff;
  clang_getSpellingLocation(clang_getRangeStart(clang_getCursorExtent(c)), &file, NULL, NULL, &iOff);
  if (file) {
    size_t n = 0;
    const char *z = clang_getFileContents(clang_Cursor_getTranslationUnit(c), file, &n);
    size_t nBase = strlen(azBuiltinName[e]);
    if (z && iOff + nBase < n && strncmp(z + iOff, azBuiltinName[e], nBase) == 0) {
      size_t i = iOff + nBase;
      while (i < n && (z[i] == ' ' || z[i] == '\t')) i++;
      if (i < n && z[i] == '.') {
        i++;
        while (i < n && (z[i] == ' ' || z[i] == '\t')) i++;
        if (i < n && z[i] >= 'x' && z[i] <= 'z' && (i + 1 >= n || !(z[i + 1] == '_' || (z[i + 1] >= 'a' && z[i + 1] <= 'z'))))
          d = z[i] - 'x';
      }
    }
  }
  if (d < 0) return -1;
  *piDim = d;
  return e;
}

/* ---------- polynomials ---------- */

static ks_poly poly_irregular(void) {
  ks_poly p;
  memset(&p, 0, sizeof p);
  p.bIrregular = 1;
  return p;
}

static ks_poly poly_const(long long v) {
  ks_poly p;
  memset(&p, 0, sizeof p);
  if (v) {
    p.n = 1;
    p.t[0].coef = v;
  }
  return p;
}

static ks_poly poly_atom(int iAtom) {
  ks_poly p = poly_const(1);
  p.t[0].n = 1;
  p.t[0].a[0] = iAtom;
  return p;
}

static int mono_same(const ks_mono *a, const ks_mono *b) {
  if (a->n != b->n) return 0;
  for (int i = 0; i < a->n; i++)
    if (a->a[i] != b->a[i]) return 0;
  return 1;
}

static void poly_add_mono(ks_poly *p, const ks_mono *m) {
  if (p->bIrregular || m->coef == 0) return;
  for (int i = 0; i < p->n; i++) {
    if (mono_same(&p->t[i], m)) {
      p->t[i].coef += m->coef;
      if (p->t[i].coef == 0) {
        p->t[i] = p->t[p->n - 1];
        p->n--;
      }
      return;
    }
  }
  if (p->n == KS_POLY_MAX) {
    p->bIrregular = 1;
    return;
  }
  p->t[p->n++] = *m;
}

static ks_poly poly_add(ks_poly a, ks_poly b, long long nSign) {
  ks_poly r = a;
  r.bIrregular |= b.bIrregular;
  r.bIndirect |= b.bIndirect;
  r.bNarrowMul |= b.bNarrowMul;
  r.bWrap |= b.bWrap;
  r.mClamp |= b.mClamp;
  for (int i = 0; i < b.n && !r.bIrregular; i++) {
    ks_mono m = b.t[i];
    m.coef *= nSign;
    poly_add_mono(&r, &m);
  }
  return r;
}

static ks_poly poly_mul(ks_poly a, ks_poly b) {
  ks_poly r = poly_const(0);
  r.bIrregular = a.bIrregular || b.bIrregular;
  r.bIndirect = a.bIndirect || b.bIndirect;
  r.bNarrowMul = a.bNarrowMul || b.bNarrowMul;
  r.bWrap = a.bWrap || b.bWrap;
  r.mClamp = a.mClamp | b.mClamp;
  for (int i = 0; i < a.n && !r.bIrregular; i++) {
    for (int j = 0; j < b.n && !r.bIrregular; j++) {
      ks_mono m;
      m.coef = a.t[i].coef * b.t[j].coef;
      m.n = a.t[i].n + b.t[j].n;
      if (m.n > KS_MONO_MAX) {
        r.bIrregular = 1;
        break;
      }
      memcpy(m.a, a.t[i].a, sizeof(int) * (size_t)a.t[i].n);
      memcpy(m.a + a.t[i].n, b.t[j].a, sizeof(int) * (size_t)b.t[j].n);
      for (int x = 1; x < m.n; x++) /* sort the atoms */
        for (int y = x; y > 0 && m.a[y - 1] > m.a[y]; y--) {
          int t = m.a[y];
          m.a[y] = m.a[y - 1];
          m.a[y - 1] = t;
        }
      poly_add_mono(&r, &m);
    }
  }
  return r;
}

static int poly_is_const(const ks_poly *p, long long *pv) {
  if (p->bIrregular || p->n > 1 || (p->n == 1 && p->t[0].n)) return 0;
  if (pv) *pv = p->n ? p->t[0].coef : 0;
  return 1;
}

/* ---------- the walk context ---------- */

typedef struct svar {
  CXCursor decl;
  int nWrites;      /* assignments, ++/--, address taken: anywhere in the body */
  int bKnown;       /* val holds its value */
  ks_poly val;
  int iParam;       /* a pointer into parameter iParam (with offset val), else -1 */
  int bShared;
  CXCursor block;   /* the compound statement that declares it (the write pass) */
  int nSeqWrites;   /* plain assignments that are statements of that block */
  int bKnownU;      /* initialized by a clamp of an index: valU its unclamped value, */
  ks_poly valU;     /* plain the clamp-free expression it is then (clamp_plain); a pointer */
  CXCursor plain;   /* (iParam >= 0) at a clamped offset: valU its unclamped offset */
  const char *zClampWhy; /* a pointer at an offset with a clamp that could not be followed */
} svar;

/* Is every write of v a plain assignment in the block that declares it
 * (`rest = rest % (N * d);` beside `int rest = ...;`)? Then the walk, in
 * program order, follows its value from one assignment to the next. */
#define SVAR_SEQUENTIAL(pV) ((pV)->nWrites > 0 && (pV)->nSeqWrites == (pV)->nWrites)

typedef struct sctx {
  ks_tu *pTu;
  ks_shape *pS;
  CXCursor kernel;
  CXCursor *aParam;
  int nParam;
  svar *aVar;
  int nVar, nVarAlloc;
  int aLoop[64];
  int nLoopDepth;
  int nDepth;
  int rc;
  /* Unclamp mode (clamp_eval): clamps of indices evaluate to their operand,
   * recorded in pS->aClamp; zClampWhy: the first clamp that could not be. */
  int bUnclamp;
  const char *zClampWhy;
  struct { CXCursor parm; ks_poly val; CXCursor plain; } aBind[8]; /* a helper's parameters */
  int nBind;
} sctx;

static int atom_find_or_add(sctx *pC, ks_atom_kind e, int iDim, int iRef, const char *zName) {
  ks_shape *pS = pC->pS;
  for (int i = 0; i < pS->nAtom; i++) {
    ks_atom *a = &pS->aAtom[i];
    if (a->eKind == e && a->iDim == iDim && a->iRef == iRef && strcmp(a->zName, zName) == 0) return i;
  }
  ks_atom *aNew = realloc(pS->aAtom, sizeof(ks_atom) * (size_t)(pS->nAtom + 1));
  if (!aNew) {
    pC->rc = ks_error_set(KS_ENOMEM, "out of memory");
    return -1;
  }
  pS->aAtom = aNew;
  ks_atom *a = &pS->aAtom[pS->nAtom];
  memset(a, 0, sizeof *a);
  a->eKind = e;
  a->iDim = iDim;
  a->iRef = iRef;
  a->iDimOf = -1;
  a->zName = ks_strdup(zName ? zName : "");
  return pS->nAtom++;
}

static const char *const azBuiltin[] = {"threadIdx", "blockIdx", "blockDim", "gridDim"};

static ks_poly builtin_poly(sctx *pC, int eKind, int iDim) {
  char z[32];
  snprintf(z, sizeof z, "%s.%c", azBuiltin[eKind], 'x' + iDim);
  int i = atom_find_or_add(pC, (ks_atom_kind)eKind, iDim, -1, z);
  return i < 0 ? poly_irregular() : poly_atom(i);
}

static ks_poly par_poly(sctx *pC, int iDim) {
  char z[16];
  snprintf(z, sizeof z, "PAR.%c", 'x' + iDim);
  int i = atom_find_or_add(pC, KS_ATOM_PAR, iDim, -1, z);
  return i < 0 ? poly_irregular() : poly_atom(i);
}

/* Replace blockIdx.d * blockDim.d * M + threadIdx.d * M by PAR.d * M. */
static ks_poly normalize(sctx *pC, ks_poly p) {
  if (p.bIrregular) return p;
  for (int d = 0; d < 3; d++) {
    for (int pass = 0; pass < KS_POLY_MAX; pass++) {
      int bDone = 1;
      for (int i = 0; i < p.n && bDone; i++) {
        /* Does t[i] contain threadIdx.d? */
        const ks_mono *m = &p.t[i];
        int iT = -1;
        for (int x = 0; x < m->n; x++) {
          ks_atom *a = &pC->pS->aAtom[m->a[x]];
          if (a->eKind == KS_ATOM_TID && a->iDim == d) iT = x;
        }
        if (iT < 0) continue;
        /* rest = m without threadIdx.d; want rest * blockIdx.d * blockDim.d */
        ks_poly rest = poly_const(m->coef);
        for (int x = 0; x < m->n; x++)
          if (x != iT) rest = poly_mul(rest, poly_atom(m->a[x]));
        ks_poly want = poly_mul(poly_mul(rest, builtin_poly(pC, KS_ATOM_BID, d)), builtin_poly(pC, KS_ATOM_BDIM, d));
        if (want.bIrregular || want.n != 1) continue;
        for (int j = 0; j < p.n; j++) {
          if (j == i || !mono_same(&p.t[j], &want.t[0]) || p.t[j].coef != want.t[0].coef) continue;
          ks_poly tid = poly_mul(rest, builtin_poly(pC, KS_ATOM_TID, d));
          ks_poly par = poly_mul(rest, par_poly(pC, d));
          p = poly_add(p, tid, -1);
          p = poly_add(p, want, -1);
          p = poly_add(p, par, 1);
          bDone = 0;
          break;
        }
      }
      if (bDone) break;
    }
  }
  return p;
}

static svar *find_var(sctx *pC, CXCursor decl) {
  for (int i = pC->nVar - 1; i >= 0; i--)
    if (clang_equalCursors(pC->aVar[i].decl, decl)) return &pC->aVar[i];
  return NULL;
}

static svar *add_var(sctx *pC, CXCursor decl) {
  svar *pV = find_var(pC, decl);
  if (pV) return pV;
  if (pC->nVar == pC->nVarAlloc) {
    int nNew = pC->nVarAlloc ? 2 * pC->nVarAlloc : 16;
    svar *a = realloc(pC->aVar, sizeof(svar) * (size_t)nNew);
    if (!a) {
      pC->rc = ks_error_set(KS_ENOMEM, "out of memory");
      return NULL;
    }
    pC->aVar = a;
    pC->nVarAlloc = nNew;
  }
  pV = &pC->aVar[pC->nVar++];
  memset(pV, 0, sizeof *pV);
  pV->decl = decl;
  pV->iParam = -1;
  return pV;
}

static int param_index(sctx *pC, CXCursor decl) {
  for (int i = 0; i < pC->nParam; i++)
    if (clang_equalCursors(pC->aParam[i], decl)) return i;
  return -1;
}

static int is_pointer_type(CXType t) {
  t = clang_getCanonicalType(t);
  return t.kind == CXType_Pointer || t.kind == CXType_IncompleteArray || t.kind == CXType_ConstantArray;
}

/* ---------- pre-pass: how often each local is written ---------- */

typedef struct wpass {
  sctx *pC;
  int nDepth;
} wpass;

static CXCursor ref_decl(CXCursor c) {
  c = strip_parens(c);
  while (is_cast(c)) {
    CXCursor n = only_expr(c);
    if (clang_Cursor_isNull(n)) break;
    c = strip_parens(n);
  }
  if (kind(c) != CXCursor_DeclRefExpr) return clang_getNullCursor();
  return clang_getCursorReferenced(c);
}

static void note_write(sctx *pC, CXCursor lhs, CXCursor stmtParent, int bPlain) {
  CXCursor d = ref_decl(lhs);
  if (clang_Cursor_isNull(d)) return;
  enum CXCursorKind e = kind(d);
  if (e != CXCursor_VarDecl && e != CXCursor_ParmDecl) return;
  svar *pV = add_var(pC, d);
  if (!pV) return;
  pV->nWrites++;
  if (bPlain && e == CXCursor_VarDecl && !clang_Cursor_isNull(pV->block) && clang_equalCursors(pV->block, stmtParent))
    pV->nSeqWrites++;
}

static enum CXChildVisitResult write_cb(CXCursor c, CXCursor parent, CXClientData p) {
  (void)parent;
  wpass *pW = p;
  enum CXCursorKind e = kind(c);
  if (e == CXCursor_BinaryOperator || e == CXCursor_CompoundAssignOperator) {
    enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(c);
    if (e == CXCursor_CompoundAssignOperator || op == CXBinaryOperator_Assign) {
      kids k = get_kids(c);
      if (k.n >= 1) note_write(pW->pC, k.a[0], parent, e == CXCursor_BinaryOperator && kind(parent) == CXCursor_CompoundStmt);
      free(k.a);
    }
  } else if (e == CXCursor_UnaryOperator) {
    enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(c);
    if (op == CXUnaryOperator_PreInc || op == CXUnaryOperator_PostInc || op == CXUnaryOperator_PreDec ||
        op == CXUnaryOperator_PostDec || op == CXUnaryOperator_AddrOf) {
      kids k = get_kids(c);
      if (k.n >= 1) note_write(pW->pC, k.a[0], clang_getNullCursor(), 0);
      free(k.a);
    }
  } else if (e == CXCursor_DeclStmt && kind(parent) == CXCursor_CompoundStmt) {
    kids k = get_kids(c);
    for (int i = 0; i < k.n; i++) {
      svar *pV = kind(k.a[i]) == CXCursor_VarDecl ? add_var(pW->pC, k.a[i]) : NULL;
      if (pV) pV->block = parent;
    }
    free(k.a);
  } else if (e == CXCursor_VarDecl) {
    /* A reference bound to a local can write it: count it as written. */
    CXType t = clang_getCursorType(c);
    if (t.kind == CXType_LValueReference) {
      kids k = get_kids(c);
      for (int i = 0; i < k.n; i++)
        if (clang_isExpression(kind(k.a[i]))) note_write(pW->pC, k.a[i], clang_getNullCursor(), 0);
      free(k.a);
    }
  }
  if (pW->nDepth >= SHAPE_MAX_DEPTH) {
    pW->pC->pS->bTruncated = 1;
    return CXChildVisit_Continue;
  }
  pW->nDepth++;
  clang_visitChildren(c, write_cb, pW);
  pW->nDepth--;
  return CXChildVisit_Continue;
}

/* ---------- expressions to polynomials ---------- */

static ks_poly eval(sctx *pC, CXCursor c, int nDepth);

static ks_poly uniform_named(sctx *pC, CXCursor c, int iRef) {
  unsigned s, e;
  char *z = NULL;
  if (ks_ast_extent(pC->pTu, c, &s, &e) == 0) {
    z = malloc(e - s + 1);
    if (z) {
      size_t n = 0;
      for (unsigned i = s; i < e; i++)
        if (pC->pTu->zSrc[i] != ' ' && pC->pTu->zSrc[i] != '\n' && pC->pTu->zSrc[i] != '\t') z[n++] = pC->pTu->zSrc[i];
      z[n] = 0;
    }
  }
  if (!z) z = spell(c);
  int i = atom_find_or_add(pC, KS_ATOM_UNIFORM, -1, iRef, z ? z : "?");
  free(z);
  return i < 0 ? poly_irregular() : poly_atom(i);
}

static int is_unsigned_int(CXType t) {
  switch (clang_getCanonicalType(t).kind) {
  case CXType_UInt: case CXType_ULong: case CXType_ULongLong: case CXType_UShort: case CXType_UChar:
  case CXType_Char_U:
    return 1;
  default:
    return 0;
  }
}

/* Does p hold an atom other than the thread built-ins (whose own unsigned
 * arithmetic, blockIdx.x * blockDim.x + threadIdx.x, is the index itself)? */
static int beyond_builtins(sctx *pC, const ks_poly *p) {
  for (int i = 0; i < p->n; i++)
    for (int x = 0; x < p->t[i].n; x++)
      if (pC->pS->aAtom[p->t[i].a[x]].eKind > KS_ATOM_GDIM) return 1;
  return 0;
}

static int poly_variant(sctx *pC, const ks_poly *p) {
  if (p->bIrregular) return 1;
  for (int i = 0; i < p->n; i++)
    for (int x = 0; x < p->t[i].n; x++) {
      ks_atom_kind e = pC->pS->aAtom[p->t[i].a[x]].eKind;
      if (e != KS_ATOM_UNIFORM && e != KS_ATOM_BDIM && e != KS_ATOM_GDIM) return 1;
    }
  return 0;
}

/* i / n or i % n with i variant and n uniform: a derived atom (the 2-D split
 * of a flat index); iDimOf is set when i is exactly PAR.d. */
static ks_poly derived(sctx *pC, CXCursor c, const ks_poly *pA, const ks_poly *pB, int bRem, int bWrap) {
  ks_poly r = uniform_named(pC, c, -1);
  if (r.bIrregular) return r;
  int iAtom = r.t[0].a[0];
  ks_atom *a = &pC->pS->aAtom[iAtom];
  a->eKind = KS_ATOM_DERIVED;
  a->bRem = bRem;
  a->bWrap = bWrap || pA->bWrap || pB->bWrap;
  r.bWrap = a->bWrap;
  if (!a->pNum && (a->pNum = malloc(sizeof *a->pNum))) *a->pNum = *pA;
  if (!a->pDen && (a->pDen = malloc(sizeof *a->pDen))) *a->pDen = *pB;
  if (pA->n == 1 && pA->t[0].n == 1 && pA->t[0].coef == 1) {
    ks_atom *b = &pC->pS->aAtom[pA->t[0].a[0]];
    if (b->eKind == KS_ATOM_PAR) a->iDimOf = b->iDim;
    else if (b->eKind == KS_ATOM_DERIVED && b->iDimOf >= 0) a->iDimOf = b->iDimOf;
  }
  r.bIndirect = pA->bIndirect;
  return r;
}

static ks_poly eval_kids_any(sctx *pC, CXCursor c, int nDepth, int *pbVariant) {
  kids k = get_kids(c);
  ks_poly r = poly_const(0);
  *pbVariant = 0;
  for (int i = 0; i < k.n; i++) {
    if (!clang_isExpression(kind(k.a[i]))) continue;
    ks_poly p = eval(pC, k.a[i], nDepth + 1);
    r.bIndirect |= p.bIndirect;
    if (poly_variant(pC, &p)) *pbVariant = 1;
  }
  free(k.a);
  return r;
}

static ks_poly eval_node(sctx *pC, CXCursor c, int nDepth);

/* Does an integer conversion between c and the expression under it (through
 * parentheses and casts) narrow it or make it unsigned? Such a value is the
 * kernel's number modulo a power of two, not the number itself. */
static int conv_wraps(CXCursor c) {
  for (int i = 0; i < 64; i++) {
    enum CXCursorKind e = kind(c);
    if (e != CXCursor_ParenExpr && e != CXCursor_UnexposedExpr && !is_cast(c)) return 0;
    CXCursor n = only_expr(c);
    if (clang_Cursor_isNull(n)) return 0;
    int nTo = int_bits(clang_getCursorType(c)), nFrom = int_bits(clang_getCursorType(n));
    if (nTo && nFrom && (nTo < nFrom || (is_unsigned_int(clang_getCursorType(c)) && !is_unsigned_int(clang_getCursorType(n)))))
      return 1;
    c = n;
  }
  return 0;
}

static ks_poly eval(sctx *pC, CXCursor c, int nDepth) {
  ks_poly p = eval_node(pC, c, nDepth);
  if (!p.bIrregular && beyond_builtins(pC, &p) && conv_wraps(c)) p.bWrap = 1;
  return p;
}

/* ---------- clamps to the edge (unclamp mode) ----------
 * `max(x - 1, 0)`, `min(max(y + dy, 0), h - 1)`, `x > 0 ? x - 1 : 0`, a
 * __device__ helper `return v < lo ? lo : (v > hi ? hi : v);`: in unclamp mode
 * each evaluates to its thread-variant operand and records the condition under
 * which it is that operand (ks_shape_clamp). Normal evaluation keeps them
 * irregular, so no consumer sees an unclamped index unless it asks for it. */

static ks_poly clamp_fail(sctx *pC, const char *zWhy) {
  if (!pC->zClampWhy) pC->zClampWhy = zWhy;
  return poly_irregular();
}

static int is_signed_int(CXType t) { return int_bits(t) > 0 && !is_unsigned_int(t); }

static CXCursor strip_all(CXCursor c) {
  for (int i = 0; i < 64; i++) {
    c = strip_parens(c);
    if (!is_cast(c) || clang_Cursor_isNull(only_expr(c))) return c;
    c = only_expr(c);
  }
  return c;
}

/* A helper parameter's binding (unclamp mode), or -1. */
static int bind_find(const sctx *pC, CXCursor d) {
  for (int i = pC->nBind - 1; i >= 0; i--)
    if (clang_equalCursors(pC->aBind[i].parm, d)) return i;
  return -1;
}

/* Call c's callee as a helper to follow: a function defined in the main
 * file whose body is one `return E;`, with signed integer parameters (by
 * value) and result. Its return expression, or null. */
static CXCursor helper_return(CXCursor c, CXCursor *pDef) {
  CXCursor d = clang_getCursorDefinition(clang_getCursorReferenced(c));
  *pDef = d;
  if (clang_Cursor_isNull(d) || !clang_Location_isFromMainFile(clang_getCursorLocation(d))) return clang_getNullCursor();
  CXCursor r = clang_getNullCursor();
  if (!is_signed_int(clang_getResultType(clang_getCursorType(d)))) return r;
  kids k = get_kids(d);
  int nParm = 0, bOk = 1;
  for (int i = 0; i < k.n; i++) {
    if (kind(k.a[i]) == CXCursor_ParmDecl) {
      bOk &= is_signed_int(clang_getCursorType(k.a[i]));
      nParm++;
    } else if (kind(k.a[i]) == CXCursor_CompoundStmt) {
      kids b = get_kids(k.a[i]);
      kids e = b.n == 1 && kind(b.a[0]) == CXCursor_ReturnStmt ? get_kids(b.a[0]) : (kids){NULL, 0};
      if (e.n == 1) r = e.a[0];
      free(e.a);
      free(b.a);
    }
  }
  free(k.a);
  return bOk && nParm == clang_Cursor_getNumArguments(c) ? r : clang_getNullCursor();
}

/* Does helper def's return expression r name nothing but def's own
 * parameters and literals (`return y * w + x;`: no thread built-in, global,
 * load or call)? Then its value at a call is its text's value wherever the
 * call is copied, and the model may follow it. */
typedef struct helper_own_ctx {
  CXCursor def;
  int bOk;
} helper_own_ctx;

static enum CXChildVisitResult helper_own_cb(CXCursor c, CXCursor parent, CXClientData p) {
  (void)parent;
  helper_own_ctx *pH = p;
  switch (kind(c)) {
  case CXCursor_DeclRefExpr: {
    CXCursor d = clang_getCursorReferenced(c);
    if (kind(d) != CXCursor_ParmDecl || !clang_equalCursors(clang_getCursorSemanticParent(d), pH->def)) pH->bOk = 0;
    break;
  }
  case CXCursor_IntegerLiteral: case CXCursor_ParenExpr: case CXCursor_UnexposedExpr: case CXCursor_CStyleCastExpr:
  case CXCursor_BinaryOperator: case CXCursor_UnaryOperator:
    break;
  default:
    pH->bOk = 0;
  }
  return pH->bOk ? CXChildVisit_Recurse : CXChildVisit_Break;
}

static int helper_own(CXCursor def, CXCursor r) {
  helper_own_ctx h = {def, 1};
  helper_own_cb(r, r, &h);
  if (h.bOk) clang_visitChildren(r, helper_own_cb, &h);
  return h.bOk;
}

static int is_minmax(CXCursor c, int *pbMax) {
  char *z = spell(c);
  int bMin = z && (!strcmp(z, "min") || !strcmp(z, "llmin")), bMax = z && (!strcmp(z, "max") || !strcmp(z, "llmax"));
  free(z);
  *pbMax = bMax;
  return (bMin || bMax) && clang_Cursor_getNumArguments(c) == 2; /* clamp_add tests the types */
}

static CXCursor clamp_plain(sctx *pC, CXCursor c, int nDepth);

/* Bind helper def's parameters to call c's arguments above the caller's
 * bindings (pC->nBind, left as it is), each argument evaluated first at the
 * caller's (a helper call in one binds its own above them). The number
 * bound; *pbVar (may be NULL): an argument is thread-variant. */
static int bind_args(sctx *pC, CXCursor c, CXCursor def, int nArg, int nDepth, int *pbVar) {
  kids k = get_kids(def);
  ks_poly aVal[4];
  CXCursor aPlain[4], aParm[4];
  int iArg = 0;
  for (int i = 0; i < k.n && iArg < nArg && iArg < 4; i++) {
    if (kind(k.a[i]) != CXCursor_ParmDecl) continue;
    CXCursor a = clang_Cursor_getArgument(c, (unsigned)iArg);
    aParm[iArg] = k.a[i];
    aVal[iArg] = eval(pC, a, nDepth + 1);
    aPlain[iArg] = clamp_plain(pC, a, nDepth + 1);
    if (pbVar) *pbVar |= poly_variant(pC, &aVal[iArg]);
    iArg++;
  }
  free(k.a);
  for (int i = 0; i < iArg; i++)
    pC->aBind[pC->nBind + i].parm = aParm[i], pC->aBind[pC->nBind + i].val = aVal[i],
                           pC->aBind[pC->nBind + i].plain = aPlain[i];
  return iArg;
}

/* The clamp-free expression a clamped value is where its clamps are the
 * identity (the variant operand, through nested clamps, clamped locals and
 * helper arguments); c itself when it holds no clamp. */
static CXCursor clamp_plain(sctx *pC, CXCursor c, int nDepth) {
  c = strip_all(c);
  if (nDepth > 16) return clang_getNullCursor();
  enum CXCursorKind e = kind(c);
  if (e == CXCursor_DeclRefExpr) {
    CXCursor d = clang_getCursorReferenced(c);
    int iB = bind_find(pC, d);
    if (iB >= 0) return pC->aBind[iB].plain;
    svar *pV = find_var(pC, d);
    return pV && pV->bKnownU ? pV->plain : c;
  }
  int bMax, nArg = e == CXCursor_CallExpr ? clang_Cursor_getNumArguments(c) : 0;
  CXCursor aOp[2], def;
  if (e == CXCursor_ConditionalOperator) {
    kids k = get_kids(c);
    int bOk = k.n == 3;
    if (bOk) aOp[0] = k.a[1], aOp[1] = k.a[2];
    free(k.a);
    if (!bOk) return c;
  } else if (e == CXCursor_CallExpr && is_minmax(c, &bMax) &&
             clang_Cursor_isNull(helper_return(c, &def))) {
    aOp[0] = clang_Cursor_getArgument(c, 0), aOp[1] = clang_Cursor_getArgument(c, 1);
  } else if (e == CXCursor_CallExpr && nArg > 0 && nArg <= 4 && pC->nBind + nArg <= 8) {
    CXCursor r = helper_return(c, &def);
    if (clang_Cursor_isNull(r)) return c;
    int nB = pC->nBind, iArg = bind_args(pC, c, def, nArg, nDepth, NULL);
    pC->nBind = nB + iArg;
    CXCursor p = clamp_plain(pC, r, nDepth + 1);
    pC->nBind = nB;
    return p;
  } else
    return c;
  ks_poly a = eval(pC, aOp[0], nDepth + 1), b = eval(pC, aOp[1], nDepth + 1);
  int bA = poly_variant(pC, &a), bB = poly_variant(pC, &b);
  if (bA == bB) return bA ? clang_getNullCursor() : c;
  return clamp_plain(pC, bA ? aOp[0] : aOp[1], nDepth + 1);
}

typedef struct parm_leak {
  sctx *pC;
  int bLeak;
} parm_leak;

static enum CXChildVisitResult parm_leak_cb(CXCursor c, CXCursor parent, CXClientData p) {
  (void)parent;
  parm_leak *pL = p;
  if (kind(c) == CXCursor_DeclRefExpr && kind(clang_getCursorReferenced(c)) == CXCursor_ParmDecl &&
      param_index(pL->pC, clang_getCursorReferenced(c)) < 0)
    pL->bLeak = 1;
  return pL->bLeak ? CXChildVisit_Break : CXChildVisit_Recurse;
}

/* Does expression c, kernel text, name a parameter other than the kernel's
 * (a helper's, whose value the text would not have where it is read)? */
static int names_foreign_parm(sctx *pC, CXCursor c) {
  parm_leak l = {pC, 0};
  parm_leak_cb(c, c, &l);
  if (!l.bLeak) clang_visitChildren(c, parm_leak_cb, &l);
  return l.bLeak;
}

static const int aMirror[] = {[CXBinaryOperator_LT] = CXBinaryOperator_GT, [CXBinaryOperator_GT] = CXBinaryOperator_LT,
                              [CXBinaryOperator_LE] = CXBinaryOperator_GE, [CXBinaryOperator_GE] = CXBinaryOperator_LE};
static const int aNegate[] = {[CXBinaryOperator_LT] = CXBinaryOperator_GE, [CXBinaryOperator_GT] = CXBinaryOperator_LE,
                              [CXBinaryOperator_LE] = CXBinaryOperator_GT, [CXBinaryOperator_GE] = CXBinaryOperator_LT};

/* Record the clamp `l OP r` (one side variant and affine, the other
 * uniform): its bit in pS->aClamp, or -1 (pC->zClampWhy). */
static int clamp_add(sctx *pC, CXCursor l, CXCursor r, int eOp, int nDepth, unsigned long long *pmDep) {
  ks_shape *pS = pC->pS;
  if (!is_signed_int(clang_getCursorType(l)) || !is_signed_int(clang_getCursorType(r)))
    return clamp_fail(pC, "a clamp of an index compares other than signed integers (unsigned arithmetic wraps)"), -1;
  ks_poly a = eval(pC, l, nDepth + 1), b = eval(pC, r, nDepth + 1);
  if (a.bIndirect || b.bIndirect) return clamp_fail(pC, "a clamp of an index reads memory (its operand or bound)"), -1;
  if (a.bIrregular || b.bIrregular || a.bWrap || b.bWrap)
    return clamp_fail(pC, "a clamp of an index clamps a value that is not affine in the thread and loop indices"), -1;
  for (int i = 0; i < a.n + b.n; i++) { /* affine: at most one variant atom a term, none derived (x / 2) */
    const ks_mono *m = i < a.n ? &a.t[i] : &b.t[i - a.n];
    int nVar = 0;
    for (int j = 0; j < m->n; j++) {
      ks_atom_kind eK = pS->aAtom[m->a[j]].eKind;
      if (eK == KS_ATOM_DERIVED) nVar += 2;
      else nVar += eK != KS_ATOM_UNIFORM && eK != KS_ATOM_BDIM && eK != KS_ATOM_GDIM;
    }
    if (nVar > 1)
      return clamp_fail(pC, "a clamp of an index clamps a value that is not affine in the thread and loop indices"), -1;
  }
  int bA = poly_variant(pC, &a), bB = poly_variant(pC, &b);
  if (bA == bB)
    return clamp_fail(pC, bA ? "a clamp of an index compares two thread-variant values (its bound is not uniform)"
                             : "a selection in an index is under a condition the same for every thread"), -1;
  if (bB) {
    CXCursor t = l;
    l = r, r = t;
    ks_poly q = a;
    a = b, b = q;
    eOp = aMirror[eOp];
  }
  /* its texts are the sides' operands where their own clamps hold: those too */
  *pmDep = a.mClamp | b.mClamp;
  CXCursor pl = clamp_plain(pC, l, nDepth + 1), pr = clamp_plain(pC, r, nDepth + 1);
  if (clang_Cursor_isNull(pl) || clang_Cursor_isNull(pr) || names_foreign_parm(pC, pl) || names_foreign_parm(pC, pr))
    return clamp_fail(pC, "a clamp helper computes with its parameters before comparing them"), -1;
  int bSave = pC->bUnclamp;
  pC->bUnclamp = 0; /* the texts must be clamp-free: the lanes' test evaluates them as written */
  ks_poly pa = eval(pC, pl, nDepth + 1), pb = eval(pC, pr, nDepth + 1);
  pC->bUnclamp = bSave;
  if (pa.bIrregular || pb.bIrregular)
    return clamp_fail(pC, "a clamp of an index clamps arithmetic on another clamp"), -1;
  for (int i = 0; i < pS->nClamp; i++)
    if (pS->aClamp[i].eOp == eOp && clang_equalCursors(pS->aClamp[i].operand, pl) &&
        clang_equalCursors(pS->aClamp[i].bound, pr))
      return i;
  if (pS->nClamp == 64) return clamp_fail(pC, "more than 64 clamps of indices"), -1;
  ks_shape_clamp *aN = realloc(pS->aClamp, sizeof *aN * (size_t)(pS->nClamp + 1));
  if (!aN) {
    pC->rc = ks_error_set(KS_ENOMEM, "out of memory");
    return -1;
  }
  pS->aClamp = aN;
  ks_shape_clamp *pK = &aN[pS->nClamp];
  pK->operand = pl;
  pK->bound = pr;
  pK->eOp = eOp;
  pK->diff = normalize(pC, poly_add(a, b, -1));
  pK->diff.mClamp = 0;
  return pS->nClamp++;
}

/* In unclamp mode, c (a call or a selection) as a clamp: 1 and *pOut its
 * operand's value with the clamp's bit (or irregular and pC->zClampWhy);
 * 0 when c is not one (a uniform value, another call). */
static int clamp_eval(sctx *pC, CXCursor c, int nDepth, ks_poly *pOut) {
  CXCursor aOp[2], cond = clang_getNullCursor(), def;
  int bMax = 0, bSel = kind(c) == CXCursor_ConditionalOperator;
  if (bSel) {
    kids k = get_kids(c);
    int bOk = k.n == 3;
    if (bOk) cond = strip_parens(k.a[0]), aOp[0] = k.a[1], aOp[1] = k.a[2];
    free(k.a);
    if (!bOk) return 0;
  } else if (is_minmax(c, &bMax) && clang_Cursor_isNull(helper_return(c, &def))) {
    aOp[0] = clang_Cursor_getArgument(c, 0), aOp[1] = clang_Cursor_getArgument(c, 1);
  } else {
    int nArg = clang_Cursor_getNumArguments(c), bVar = 0;
    CXCursor r = nArg > 0 && nArg <= 4 ? helper_return(c, &def) : clang_getNullCursor();
    if (clang_Cursor_isNull(r)) return 0;
    if (pC->nBind + nArg > 8) return *pOut = clamp_fail(pC, "clamp helpers nest too deep"), 1;
    int nB = pC->nBind, iArg = bind_args(pC, c, def, nArg, nDepth, &bVar);
    if (!bVar) return 0;
    pC->nBind = nB + iArg;
    *pOut = eval(pC, r, nDepth + 1);
    pC->nBind = nB;
    if (pOut->bIrregular) *pOut = clamp_fail(pC, "a helper in an index is not a clamp of its parameters");
    return 1;
  }
  ks_poly a = eval(pC, aOp[0], nDepth + 1), b = eval(pC, aOp[1], nDepth + 1);
  int bA = poly_variant(pC, &a), bB = poly_variant(pC, &b);
  if (!bA && !bB) return 0;
  if (a.bIndirect || b.bIndirect)
    return *pOut = clamp_fail(pC, "a clamp of an index reads memory (its operand or bound)"), 1;
  if (bA && bB) return *pOut = clamp_fail(pC, "a min, max or selection in an index picks between two thread-variant values"), 1;
  int iBit;
  unsigned long long mDep = 0;
  if (bSel) {
    kids k = get_kids(cond);
    enum CXBinaryOperatorKind op = kind(cond) == CXCursor_BinaryOperator ? clang_getCursorBinaryOperatorKind(cond) : 0;
    int bCmp = k.n == 2 && op >= CXBinaryOperator_LT && op <= CXBinaryOperator_GE;
    iBit = bCmp ? clamp_add(pC, k.a[0], k.a[1], bA ? (int)op : aNegate[op], nDepth, &mDep) : -1;
    free(k.a);
    if (!bCmp) return *pOut = clamp_fail(pC, "a selection in an index is under a condition that is not one comparison"), 1;
  } else
    iBit = clamp_add(pC, bA ? aOp[0] : aOp[1], bA ? aOp[1] : aOp[0], bMax ? CXBinaryOperator_GE : CXBinaryOperator_LE,
                     nDepth, &mDep);
  if (iBit < 0) return *pOut = poly_irregular(), 1;
  *pOut = bA ? a : b;
  pOut->mClamp |= 1ULL << iBit | mDep;
  return 1;
}

/* a - q * n with q the derived atom a / n is a % n (C11 6.5.5p6): the
 * remainder's derived atom, so that a flat index split as `r = i / n; c = i
 * - r * n;` reads as the split `i / n, i % n`. 1 and *pOut, else 0. */
static int rem_by_sub(sctx *pC, CXCursor c, const ks_poly *pA, const ks_poly *pB, ks_poly *pOut) {
  if (pA->bIrregular || pB->bIrregular || pB->n != 1) return 0;
  for (int i = 0; i < pB->t[0].n; i++) {
    const ks_atom *q = &pC->pS->aAtom[pB->t[0].a[i]];
    if (q->eKind != KS_ATOM_DERIVED || q->bRem || !q->pNum || !q->pDen) continue;
    ks_poly dB = poly_add(*pB, poly_mul(poly_atom(pB->t[0].a[i]), *q->pDen), -1);
    ks_poly dA = poly_add(*pA, *q->pNum, -1);
    if (dB.bIrregular || dB.n || dA.bIrregular || dA.n) continue;
    ks_poly num = *q->pNum, den = *q->pDen;
    *pOut = derived(pC, c, &num, &den, 1, q->bWrap);
    return 1;
  }
  return 0;
}

static ks_poly eval_node(sctx *pC, CXCursor c, int nDepth) {
  if (nDepth > SHAPE_MAX_DEPTH || pC->rc < 0) {
    pC->pS->bTruncated = 1;
    return poly_irregular();
  }
  c = strip_parens(c);
  enum CXCursorKind e = kind(c);
  long long v;
  int iDim;
  if (e == CXCursor_IntegerLiteral || e == CXCursor_CharacterLiteral || e == CXCursor_CXXBoolLiteralExpr)
    return eval_const(c, &v) ? poly_const(v) : poly_irregular();
  if (is_cast(c)) {
    CXCursor n = only_expr(c);
    if (clang_Cursor_isNull(n)) return poly_irregular();
    ks_poly p = eval(pC, n, nDepth + 1);
    /* A cast to a floating type or a narrower integer of a variant value is
     * not the same integer any more. */
    int nTo = int_bits(clang_getCursorType(c)), nFrom = int_bits(clang_getCursorType(n));
    if (nTo == 0 && clang_getCanonicalType(clang_getCursorType(c)).kind != CXType_Pointer) {
      if (poly_variant(pC, &p)) return poly_irregular();
    } else if (nFrom && nTo && nTo < nFrom && nTo < 32 && poly_variant(pC, &p)) {
      return poly_irregular();
    }
    return p;
  }
  switch (e) {
  case CXCursor_MemberRefExpr: {
    int eB = builtin_atom(c, &iDim);
    if (eB >= 0) return builtin_poly(pC, eB, iDim);
    int bVar;
    ks_poly r = eval_kids_any(pC, c, nDepth, &bVar);
    if (bVar) return poly_irregular();
    ks_poly u = uniform_named(pC, c, -1);
    u.bIndirect |= r.bIndirect;
    return u;
  }
  case CXCursor_DeclRefExpr: {
    CXCursor d = clang_getCursorReferenced(c);
    enum CXCursorKind ed = kind(d);
    if (ed == CXCursor_EnumConstantDecl && eval_const(c, &v)) return poly_const(v);
    int iB = bind_find(pC, d);
    if (iB >= 0) return pC->aBind[iB].val;
    svar *pV = find_var(pC, d);
    if (pC->bUnclamp && pV && pV->bKnownU && pV->iParam < 0) return pV->valU;
    if (pV && pV->bKnown && pV->iParam < 0) return pV->val;
    if (ed == CXCursor_ParmDecl) {
      int iP = param_index(pC, d);
      if (pV && pV->nWrites > 0) return poly_irregular();
      return uniform_named(pC, c, iP);
    }
    if (ed == CXCursor_NonTypeTemplateParameter) return uniform_named(pC, c, -1);
    if (ed == CXCursor_VarDecl) {
      if (eval_const(c, &v) && (!pV || pV->nWrites == 0)) return poly_const(v);
      if (!pV || (!pV->bKnown && pV->nWrites == 0)) {
        /* A local not walked yet (the recognizer evaluates out of order):
         * follow its initializer when it is never written. A global or a
         * constant is the same for every thread. */
        unsigned ks, ke, ds, de;
        if (ks_ast_extent(pC->pTu, pC->kernel, &ks, &ke) == 0 && ks_ast_extent(pC->pTu, d, &ds, &de) == 0 &&
            ds >= ks && de <= ke) {
          if (pV && pV->iParam >= 0) return poly_irregular();
          kids kd = get_kids(d);
          CXCursor init = clang_getNullCursor();
          for (int i = 0; i < kd.n; i++)
            if (clang_isExpression(kind(kd.a[i]))) init = kd.a[i];
          free(kd.a);
          if (!clang_Cursor_isNull(init) && int_bits(clang_getCursorType(d))) return eval(pC, init, nDepth + 1);
          ks_poly r = uniform_named(pC, c, -1);
          if (!r.bIrregular) pC->pS->aAtom[r.t[0].a[0]].eKind = KS_ATOM_DERIVED;
          return r;
        }
        return uniform_named(pC, c, -1);
      }
      /* A local we cannot follow: thread-variant, not affine. */
      ks_poly r = uniform_named(pC, c, -1);
      if (!r.bIrregular) pC->pS->aAtom[r.t[0].a[0]].eKind = KS_ATOM_DERIVED;
      return r;
    }
    return poly_irregular();
  }
  case CXCursor_UnaryOperator: {
    enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(c);
    CXCursor n = only_expr(c);
    if (clang_Cursor_isNull(n)) return poly_irregular();
    ks_poly a = eval(pC, n, nDepth + 1);
    if (op == CXUnaryOperator_Plus) return a;
    if (op == CXUnaryOperator_Minus) return poly_mul(a, poly_const(-1));
    if (op == CXUnaryOperator_Deref) {
      ks_poly r = poly_irregular();
      r.bIndirect = 1;
      return r;
    }
    if (!poly_variant(pC, &a)) {
      ks_poly u = uniform_named(pC, c, -1);
      u.bIndirect |= a.bIndirect;
      return u;
    }
    return poly_irregular();
  }
  case CXCursor_ArraySubscriptExpr: {
    ks_poly r = poly_irregular();
    r.bIndirect = 1;
    return r;
  }
  case CXCursor_BinaryOperator: {
    enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(c);
    kids k = get_kids(c);
    if (k.n != 2) {
      free(k.a);
      return poly_irregular();
    }
    CXCursor l = k.a[0], rr = k.a[1];
    free(k.a);
    if (op == CXBinaryOperator_Comma) return eval(pC, rr, nDepth + 1);
    ks_poly a = eval(pC, l, nDepth + 1), b = eval(pC, rr, nDepth + 1);
    /* unsigned arithmetic on anything but the built-ins may wrap */
    if (is_unsigned_int(clang_getCursorType(c)) && (beyond_builtins(pC, &a) || beyond_builtins(pC, &b)))
      a.bWrap = 1;
    if (op == CXBinaryOperator_Add) return poly_add(a, b, 1);
    if (op == CXBinaryOperator_Sub) {
      ks_poly rem;
      if (rem_by_sub(pC, c, &a, &b, &rem)) return rem;
      return poly_add(a, b, -1);
    }
    if (op == CXBinaryOperator_Mul) {
      ks_poly r = poly_mul(a, b);
      if (poly_variant(pC, &a) && poly_variant(pC, &b) == 0 && 0) return r;
      /* Record a product of variant terms computed in 32 bits. */
      if (!r.bIrregular && (poly_variant(pC, &a) || poly_variant(pC, &b)) &&
          int_bits(clang_getCursorType(c)) == 32 && !poly_is_const(&a, NULL) && !poly_is_const(&b, NULL))
        r.bNarrowMul = 1;
      return r;
    }
    if (op == CXBinaryOperator_Shl && poly_is_const(&b, &v) && v >= 0 && v < 62) return poly_mul(a, poly_const(1LL << v));
    if (op == CXBinaryOperator_Div || op == CXBinaryOperator_Rem || op == CXBinaryOperator_Shr ||
        op == CXBinaryOperator_And) {
      long long va, vb;
      if (poly_is_const(&a, &va) && poly_is_const(&b, &vb) && eval_const(c, &v)) return poly_const(v);
      if (!poly_variant(pC, &a) && !poly_variant(pC, &b)) {
        ks_poly u = uniform_named(pC, c, -1);
        u.bIndirect = a.bIndirect || b.bIndirect;
        return u;
      }
      if (!a.bIrregular && !poly_variant(pC, &b) && !b.bIndirect &&
          (op == CXBinaryOperator_Div || op == CXBinaryOperator_Rem))
        return derived(pC, c, &a, &b, op == CXBinaryOperator_Rem, is_unsigned_int(clang_getCursorType(c)));
      ks_poly r = poly_irregular();
      r.bIndirect = a.bIndirect || b.bIndirect;
      return r;
    }
    if (!poly_variant(pC, &a) && !poly_variant(pC, &b)) {
      if (eval_const(c, &v)) return poly_const(v);
      ks_poly u = uniform_named(pC, c, -1);
      u.bIndirect = a.bIndirect || b.bIndirect;
      return u;
    }
    ks_poly r = poly_irregular();
    r.bIndirect = a.bIndirect || b.bIndirect;
    return r;
  }
  case CXCursor_CallExpr:
  case CXCursor_ConditionalOperator:
  default: {
    if (eval_const(c, &v)) return poly_const(v);
    ks_poly k;
    if (pC->bUnclamp && (e == CXCursor_CallExpr || e == CXCursor_ConditionalOperator) && clamp_eval(pC, c, nDepth, &k))
      return k;
    int bVar, nArg = e == CXCursor_CallExpr ? clang_Cursor_getNumArguments(c) : 0;
    CXCursor def, ret = nArg > 0 && nArg <= 4 && pC->nBind + nArg <= 8 ? helper_return(c, &def) : clang_getNullCursor();
    if (!clang_Cursor_isNull(ret) && helper_own(def, ret)) { /* an index helper (`at(x, y, w)`): its value */
      int nB = pC->nBind, iArg = bind_args(pC, c, def, nArg, nDepth, NULL);
      pC->nBind = nB + iArg;
      ks_poly h = eval(pC, ret, nDepth + 1);
      pC->nBind = nB;
      return h;
    }
    ks_poly r = eval_kids_any(pC, c, nDepth, &bVar);
    if (e == CXCursor_CallExpr && clang_Cursor_getNumArguments(c) >= 0) {
      /* min/max/clamps of variant indices: irregular (borders), a call of
       * uniform arguments: uniform. */
      char *z = spell(c);
      int bImpure = z && (strncmp(z, "atomic", 6) == 0 || strncmp(z, "__shfl", 6) == 0 || strncmp(z, "__ldg", 5) == 0);
      free(z);
      if (bImpure) bVar = 1, r.bIndirect = 1;
    }
    if (bVar) {
      ks_poly x = poly_irregular();
      x.bIndirect = r.bIndirect;
      return x;
    }
    ks_poly u = uniform_named(pC, c, -1);
    u.bIndirect |= r.bIndirect;
    return u;
  }
  }
}

/* ---------- the statement walk ---------- */

static int push_loop(sctx *pC, CXCursor c) {
  ks_shape *pS = pC->pS;
  ks_shape_loop *a = realloc(pS->aLoop, sizeof(ks_shape_loop) * (size_t)(pS->nLoop + 1));
  if (!a) {
    pC->rc = ks_error_set(KS_ENOMEM, "out of memory");
    return -1;
  }
  pS->aLoop = a;
  ks_shape_loop *pL = &a[pS->nLoop];
  memset(pL, 0, sizeof *pL);
  pL->cursor = c;
  pL->iParent = pC->nLoopDepth ? pC->aLoop[pC->nLoopDepth - 1] : -1;
  pL->iAtom = -1;
  pL->nTrip = -1;
  pL->iDim = -1;
  pL->bound = poly_irregular();
  pL->init = poly_irregular();
  unsigned s, e;
  if (ks_ast_extent(pC->pTu, c, &s, &e) == 0) ks_ast_line_col(pC->pTu, s, &pL->iLine, NULL);
  return pS->nLoop++;
}

static int cur_loop(sctx *pC) {
  for (int i = pC->nLoopDepth - 1; i >= 0; i--)
    if (!pC->pS->aLoop[pC->aLoop[i]].bGridStride) return pC->aLoop[i];
  return -1;
}

static void walk(sctx *pC, CXCursor c, int nDepth);
static void walk_expr(sctx *pC, CXCursor c, ks_shape_akind eUse, int nDepth);
static void note_guard(sctx *pC, CXCursor cond, int bEarlyReturn, int bSel, int nDepth);
static ks_poly eval_unclamped(sctx *pC, CXCursor c, int nDepth, const char **pzWhy);
static int eval_ptr_unclamped(sctx *pC, CXCursor c, ks_poly *pOff, int nDepth, const char **pzWhy);

/* The pointer an expression designates: parameter index and element offset. */
static int eval_ptr(sctx *pC, CXCursor c, ks_poly *pOff, int nDepth) {
  if (nDepth > SHAPE_MAX_DEPTH) return -1;
  c = strip_parens(c);
  while (is_cast(c)) {
    CXCursor n = only_expr(c);
    if (clang_Cursor_isNull(n)) return -1;
    /* A cast to another element type changes the unit of the offset. */
    CXType tTo = clang_getPointeeType(clang_getCanonicalType(clang_getCursorType(c)));
    CXType tFrom = clang_getPointeeType(clang_getCanonicalType(clang_getCursorType(n)));
    if (tTo.kind != CXType_Invalid && tFrom.kind != CXType_Invalid &&
        clang_Type_getSizeOf(tTo) != clang_Type_getSizeOf(tFrom)) {
      int iP = eval_ptr(pC, n, pOff, nDepth + 1);
      if (iP >= 0) *pOff = poly_irregular();
      return iP;
    }
    c = strip_parens(n);
  }
  enum CXCursorKind e = kind(c);
  if (e == CXCursor_DeclRefExpr) {
    CXCursor d = clang_getCursorReferenced(c);
    svar *pV = find_var(pC, d);
    if (pV && pV->iParam >= 0) { /* in unclamp mode, a row pointer at a clamped offset's unclamped one */
      *pOff = pC->bUnclamp && pV->bKnownU ? pV->valU : pV->val;
      if (pC->bUnclamp && !pV->bKnownU && pV->zClampWhy) clamp_fail(pC, pV->zClampWhy);
      return pV->iParam;
    }
    if (kind(d) == CXCursor_ParmDecl && is_pointer_type(clang_getCursorType(d))) {
      *pOff = poly_const(0);
      return param_index(pC, d);
    }
    return -1;
  }
  if (e == CXCursor_BinaryOperator) {
    enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(c);
    if (op != CXBinaryOperator_Add && op != CXBinaryOperator_Sub) return -1;
    kids k = get_kids(c);
    int iP = -1;
    if (k.n == 2) {
      for (int s = 0; s < 2 && iP < 0; s++) {
        if (!is_pointer_type(clang_getCursorType(k.a[s]))) continue;
        ks_poly off;
        iP = eval_ptr(pC, k.a[s], &off, nDepth + 1);
        if (iP >= 0) {
          ks_poly d = eval(pC, k.a[1 - s], nDepth + 1);
          *pOff = poly_add(off, d, op == CXBinaryOperator_Sub ? -1 : 1);
        }
      }
    }
    free(k.a);
    return iP;
  }
  if (e == CXCursor_UnaryOperator && clang_getCursorUnaryOperatorKind(c) == CXUnaryOperator_AddrOf) {
    CXCursor n = strip_parens(only_expr(c));
    if (kind(n) == CXCursor_ArraySubscriptExpr) {
      kids k = get_kids(n);
      int iP = -1;
      if (k.n == 2) {
        ks_poly off;
        iP = eval_ptr(pC, k.a[0], &off, nDepth + 1);
        if (iP >= 0) *pOff = poly_add(off, eval(pC, k.a[1], nDepth + 1), 1);
      }
      free(k.a);
      return iP;
    }
  }
  return -1;
}

static int is_shared_ref(sctx *pC, CXCursor c) {
  CXCursor d = ref_decl(c);
  if (clang_Cursor_isNull(d)) return 0;
  svar *pV = find_var(pC, d);
  return pV && pV->bShared;
}

static int record_access(sctx *pC, CXCursor c, int iParam, ks_poly idx, ks_shape_akind eUse) {
  ks_shape *pS = pC->pS;
  ks_shape_access *a = realloc(pS->aAccess, sizeof(ks_shape_access) * (size_t)(pS->nAccess + 1));
  if (!a) {
    pC->rc = ks_error_set(KS_ENOMEM, "out of memory");
    return -1;
  }
  pS->aAccess = a;
  ks_shape_access *pA = &a[pS->nAccess++];
  memset(pA, 0, sizeof *pA);
  pA->cursor = c;
  pA->iParam = iParam;
  pA->eKind = eUse;
  pA->index = normalize(pC, idx);
  pA->iLoop = cur_loop(pC);
  CXType t = clang_getCursorType(c);
  CXString st = clang_getTypeSpelling(t);
  pA->zElemType = ks_strdup(clang_getCString(st));
  clang_disposeString(st);
  pA->nElemSize = clang_Type_getSizeOf(t);
  if (ks_ast_extent(pC->pTu, c, &pA->iStart, &pA->iEnd) == 0) ks_ast_line_col(pC->pTu, pA->iStart, &pA->iLine, NULL);
  CXSourceLocation loc = clang_getRangeStart(clang_getCursorExtent(c));
  CXFile fE, fS;
  unsigned oE, oS;
  clang_getExpansionLocation(loc, &fE, NULL, NULL, &oE);
  clang_getSpellingLocation(loc, &fS, NULL, NULL, &oS);
  pA->bInMacro = !fE || !fS || !clang_File_isEqual(fE, fS) || oE != oS;
  if (eUse != KS_SHAPE_LOAD && pA->iLoop >= 0) pS->aLoop[pA->iLoop].bStoresGlobal = 1;
  return 0;
}

/* A subscript P[i] (or A[i][j] on an array-of-arrays parameter). */
static void walk_subscript(sctx *pC, CXCursor c, ks_shape_akind eUse, int nDepth) {
  kids k = get_kids(c);
  if (k.n != 2) {
    free(k.a);
    return;
  }
  CXCursor base = strip_parens(k.a[0]), idx = k.a[1];
  ks_poly off;
  int iP = -1;
  ks_poly full = poly_irregular();
  if (kind(base) == CXCursor_ArraySubscriptExpr) {
    /* A[i][j] with A a pointer to rows of N elements. */
    kids k2 = get_kids(base);
    CXType tRow = clang_getCanonicalType(clang_getCursorType(base));
    if (k2.n == 2 && tRow.kind == CXType_ConstantArray) {
      iP = eval_ptr(pC, k2.a[0], &off, nDepth + 1);
      if (iP >= 0) {
        ks_poly inner = eval(pC, k2.a[1], nDepth + 1);
        full = poly_add(poly_add(off, poly_mul(inner, poly_const(clang_getArraySize(tRow))), 1),
                        eval(pC, idx, nDepth + 1), 1);
      }
      walk_expr(pC, k2.a[1], KS_SHAPE_LOAD, nDepth + 1);
    } else {
      walk_expr(pC, base, KS_SHAPE_LOAD, nDepth + 1);
    }
    free(k2.a);
  } else if (is_shared_ref(pC, base)) {
    pC->pS->bShared = 1;
  } else {
    iP = eval_ptr(pC, base, &off, nDepth + 1);
    if (iP >= 0) full = poly_add(off, eval(pC, idx, nDepth + 1), 1);
    else walk_expr(pC, base, KS_SHAPE_LOAD, nDepth + 1);
    if (iP >= 0 && full.bIrregular) { /* irregular through clamps only (the row pointer's too)? */
      const char *zWhy, *zWhyP;
      ks_poly offU;
      if (eval_ptr_unclamped(pC, base, &offU, nDepth, &zWhyP) != iP) offU = poly_irregular();
      ks_poly u = poly_add(offU, eval_unclamped(pC, idx, nDepth, &zWhy), 1);
      if (zWhyP) zWhy = zWhyP;
      if (record_access(pC, c, iP, full, eUse) == 0) {
        ks_shape_access *pA = &pC->pS->aAccess[pC->pS->nAccess - 1];
        pA->bClamped = !u.bIrregular && !u.bIndirect && u.mClamp != 0;
        if (pA->bClamped) pA->unclamped = normalize(pC, u);
        pA->zClampWhy = zWhy;
      }
      iP = -1;
    }
  }
  if (iP >= 0) record_access(pC, c, iP, full, eUse);
  walk_expr(pC, idx, KS_SHAPE_LOAD, nDepth + 1);
  free(k.a);
}

static void add_call(sctx *pC, const char *z) {
  ks_shape *pS = pC->pS;
  for (int i = 0; i < pS->nCall; i++)
    if (strcmp(pS->azCall[i], z) == 0) return;
  char **a = realloc(pS->azCall, sizeof(char *) * (size_t)(pS->nCall + 1));
  if (!a) {
    pC->rc = ks_error_set(KS_ENOMEM, "out of memory");
    return;
  }
  pS->azCall = a;
  a[pS->nCall] = ks_strdup(z);
  if (a[pS->nCall]) pS->nCall++;
}

/* An accumulation `acc op= x`, `acc = acc op x`, `acc = max(acc, x)` into a
 * local declared outside the innermost loop. */
static void note_accum(sctx *pC, CXCursor lhs, ks_acc_op eOp) {
  int iL = cur_loop(pC);
  if (iL < 0) return;
  CXCursor d = ref_decl(lhs);
  if (clang_Cursor_isNull(d) || kind(d) != CXCursor_VarDecl) return;
  ks_shape_loop *pL = &pC->pS->aLoop[iL];
  /* declared inside the loop: a temporary, not an accumulator */
  unsigned ls, le, ds, de;
  if (ks_ast_extent(pC->pTu, pL->cursor, &ls, &le) == 0 && ks_ast_extent(pC->pTu, d, &ds, &de) == 0 && ds >= ls &&
      ds < le)
    return;
  char *z = spell(d);
  if (!z) return;
  for (int i = 0; i < pL->nAccum; i++)
    if (strcmp(pL->azAccum[i], z) == 0) {
      free(z);
      return;
    }
  if (pL->nAccum == 4 || (pL->zVar && strcmp(pL->zVar, z) == 0)) {
    free(z);
    return;
  }
  pL->aOp[pL->nAccum] = eOp;
  pL->azAccum[pL->nAccum++] = z;
}

/* Does the subtree below c hold a node that xIs matches against d (to
 * SHAPE_MAX_DEPTH levels)? One walker for the questions below. */
typedef int (*node_is)(CXCursor c, CXCursor d);
typedef struct node_find {
  CXCursor d;
  node_is xIs;
  int b, nDepth;
} node_find;
static enum CXChildVisitResult node_find_cb(CXCursor c, CXCursor parent, CXClientData p) {
  (void)parent;
  node_find *pF = p;
  if (pF->xIs(c, pF->d)) {
    pF->b = 1;
    return CXChildVisit_Break;
  }
  if (pF->nDepth > SHAPE_MAX_DEPTH) return CXChildVisit_Continue;
  pF->nDepth++;
  clang_visitChildren(c, node_find_cb, pF);
  pF->nDepth--;
  return pF->b ? CXChildVisit_Break : CXChildVisit_Continue;
}
static int subtree_has(CXCursor c, CXCursor d, node_is xIs, int nDepth) {
  node_find f = {d, xIs, 0, nDepth};
  clang_visitChildren(c, node_find_cb, &f);
  return f.b;
}

/* A reference to d. */
static int is_ref_to(CXCursor c, CXCursor d) {
  return kind(c) == CXCursor_DeclRefExpr && clang_equalCursors(clang_getCursorReferenced(c), d);
}
static int mentions_decl(CXCursor c, CXCursor d, int nDepth) { return subtree_has(c, d, is_ref_to, nDepth); }

static ks_acc_op rhs_op(CXCursor rhs, CXCursor d) {
  rhs = strip_parens(rhs);
  enum CXCursorKind e = kind(rhs);
  if (e == CXCursor_BinaryOperator) {
    enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(rhs);
    if (op == CXBinaryOperator_Add || op == CXBinaryOperator_Sub) return KS_ACC_OP_ADD;
    if (op == CXBinaryOperator_Mul) return KS_ACC_OP_MUL;
  }
  if (e == CXCursor_CallExpr) {
    char *z = spell(rhs);
    ks_acc_op r = KS_ACC_OP_NONE;
    if (z && (strstr(z, "max") || strstr(z, "Max"))) r = KS_ACC_OP_MAX;
    else if (z && (strstr(z, "min") || strstr(z, "Min"))) r = KS_ACC_OP_MIN;
    else if (z && (strstr(z, "fma") || strstr(z, "add"))) r = KS_ACC_OP_ADD;
    free(z);
    return r;
  }
  if (e == CXCursor_ConditionalOperator) {
    kids k = get_kids(rhs);
    ks_acc_op r = KS_ACC_OP_NONE;
    if (k.n == 3 && kind(strip_parens(k.a[0])) == CXCursor_BinaryOperator) {
      enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(strip_parens(k.a[0]));
      if (op == CXBinaryOperator_GT || op == CXBinaryOperator_GE || op == CXBinaryOperator_LT ||
          op == CXBinaryOperator_LE)
        r = KS_ACC_OP_MAX; /* a select against the accumulator: max or min, by argument order */
    }
    free(k.a);
    (void)d;
    return r;
  }
  return KS_ACC_OP_NONE;
}

/* A plain assignment `d = ...`. */
static int is_assign_to(CXCursor c, CXCursor d) {
  if (kind(c) != CXCursor_BinaryOperator || clang_getCursorBinaryOperatorKind(c) != CXBinaryOperator_Assign) return 0;
  kids k = get_kids(c);
  int b = 0;
  if (k.n == 2) {
    CXCursor r = ref_decl(k.a[0]);
    b = !clang_Cursor_isNull(r) && clang_equalCursors(r, d);
  }
  free(k.a);
  return b;
}

/* The select form of a max/min accumulation inside a loop:
 * `if (v > best) { best = v; ... }` (argmax, running extremum): best, a local
 * declared outside the loop, is compared and then assigned. */
static void note_select_accum(sctx *pC, CXCursor cond, CXCursor then) {
  if (cur_loop(pC) < 0) return;
  cond = strip_parens(cond);
  if (kind(cond) != CXCursor_BinaryOperator) return;
  enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(cond);
  if (op != CXBinaryOperator_GT && op != CXBinaryOperator_GE && op != CXBinaryOperator_LT &&
      op != CXBinaryOperator_LE)
    return;
  kids k = get_kids(cond);
  for (int i = 0; i < k.n && k.n == 2; i++) {
    CXCursor d = ref_decl(k.a[i]);
    if (clang_Cursor_isNull(d) || kind(d) != CXCursor_VarDecl) continue;
    /* then itself when it is the assignment, else the statements below it */
    int bAssigned = kind(then) == CXCursor_BinaryOperator
                        ? is_assign_to(then, d) || subtree_has(then, d, is_assign_to, 1)
                        : subtree_has(then, d, is_assign_to, 0);
    /* max when the new value must exceed it, min when it must be below */
    int bMax = (i == 1) == (op == CXBinaryOperator_GT || op == CXBinaryOperator_GE);
    if (bAssigned) note_accum(pC, k.a[i], bMax ? KS_ACC_OP_MAX : KS_ACC_OP_MIN);
  }
  free(k.a);
}

static void walk_kids_expr(sctx *pC, CXCursor c, ks_shape_akind eUse, int nDepth) {
  kids k = get_kids(c);
  for (int i = 0; i < k.n; i++) walk_expr(pC, k.a[i], eUse, nDepth + 1);
  free(k.a);
}

static void walk_expr(sctx *pC, CXCursor c, ks_shape_akind eUse, int nDepth) {
  if (pC->rc < 0) return;
  if (nDepth > SHAPE_MAX_DEPTH) {
    pC->pS->bTruncated = 1;
    return;
  }
  c = strip_parens(c);
  enum CXCursorKind e = kind(c);
  switch (e) {
  case CXCursor_ArraySubscriptExpr:
    walk_subscript(pC, c, eUse, nDepth);
    return;
  case CXCursor_BinaryOperator:
  case CXCursor_CompoundAssignOperator: {
    enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(c);
    kids k = get_kids(c);
    if (k.n == 2 && (e == CXCursor_CompoundAssignOperator || op == CXBinaryOperator_Assign)) {
      CXCursor d = ref_decl(k.a[0]);
      if (e == CXCursor_CompoundAssignOperator) {
        ks_acc_op eOp = op == CXBinaryOperator_AddAssign || op == CXBinaryOperator_SubAssign ? KS_ACC_OP_ADD
                        : op == CXBinaryOperator_MulAssign                                   ? KS_ACC_OP_MUL
                                                                                             : KS_ACC_OP_NONE;
        note_accum(pC, k.a[0], eOp);
        /* p += off on a pointer parameter at the top level: follow it. */
        if (!clang_Cursor_isNull(d) && kind(d) == CXCursor_ParmDecl && is_pointer_type(clang_getCursorType(d)) &&
            pC->nLoopDepth == 0 && op == CXBinaryOperator_AddAssign) {
          svar *pV = find_var(pC, d);
          if (pV && pV->nWrites == 1) {
            pV->iParam = param_index(pC, d);
            pV->val = eval(pC, k.a[1], nDepth + 1);
          }
        }
      } else if (!clang_Cursor_isNull(d) && kind(d) == CXCursor_VarDecl && mentions_decl(k.a[1], d, nDepth)) {
        note_accum(pC, k.a[0], rhs_op(k.a[1], d));
      }
      walk_expr(pC, k.a[0], e == CXCursor_CompoundAssignOperator ? KS_SHAPE_RMW : KS_SHAPE_STORE, nDepth + 1);
      walk_expr(pC, k.a[1], KS_SHAPE_LOAD, nDepth + 1);
      /* the next value of a sequentially reassigned integer local */
      svar *pV = e == CXCursor_BinaryOperator && !clang_Cursor_isNull(d) && kind(d) == CXCursor_VarDecl ? find_var(pC, d) : NULL;
      if (pV && SVAR_SEQUENTIAL(pV) && pV->bKnown && pV->iParam < 0 && int_bits(clang_getCursorType(d))) {
        pV->val = normalize(pC, eval(pC, k.a[1], nDepth + 1));
      }
      free(k.a);
      return;
    }
    free(k.a);
    walk_kids_expr(pC, c, KS_SHAPE_LOAD, nDepth);
    return;
  }
  case CXCursor_UnaryOperator: {
    enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(c);
    CXCursor n = only_expr(c);
    if (clang_Cursor_isNull(n)) return;
    if (op == CXUnaryOperator_Deref) {
      ks_poly off;
      int iP = eval_ptr(pC, n, &off, nDepth + 1);
      if (iP >= 0) record_access(pC, c, iP, off, eUse);
      walk_expr(pC, n, KS_SHAPE_LOAD, nDepth + 1);
      return;
    }
    int bInc = op == CXUnaryOperator_PreInc || op == CXUnaryOperator_PostInc || op == CXUnaryOperator_PreDec ||
               op == CXUnaryOperator_PostDec;
    if (bInc) note_accum(pC, n, KS_ACC_OP_ADD);
    walk_expr(pC, n, bInc || op == CXUnaryOperator_AddrOf ? KS_SHAPE_RMW : KS_SHAPE_LOAD, nDepth + 1);
    return;
  }
  case CXCursor_CallExpr: {
    char *z = spell(c);
    if (z && z[0]) {
      if (strncmp(z, "__syncthreads", 13) == 0 || strcmp(z, "__syncwarp") == 0) {
        pC->pS->bSync = 1;
        for (int i = 0; i < pC->nLoopDepth; i++) pC->pS->aLoop[pC->aLoop[i]].bHasSync = 1;
      } else if (strncmp(z, "atomic", 6) == 0) {
        pC->pS->bAtomic = 1;
      } else if (strncmp(z, "__shfl", 6) == 0 || strncmp(z, "__ballot", 8) == 0 || strncmp(z, "__reduce", 8) == 0) {
        pC->pS->bWarp = 1;
      }
      if (strncmp(z, "__cuda", 6) != 0 && strncmp(z, "operator", 8) != 0) add_call(pC, z);
    }
    int bAtomic = z && strncmp(z, "atomic", 6) == 0;
    /* __ldg(&P[i]) and the other cache-hinted loads only read what they are given the address of */
    int bLdHint = z && ks_shape_is_cache_load(z);
    /* an overloaded assignment (`y[i] = x[i]` on __half): the left operand is written */
    int bOpAssign = z && strncmp(z, "operator", 8) == 0 && strchr(z, '=') && strcmp(z + 8, "==") != 0 &&
                    strcmp(z + 8, "!=") != 0 && strcmp(z + 8, "<=") != 0 && strcmp(z + 8, ">=") != 0;
    int bPlainAssign = bOpAssign && strcmp(z + 8, "=") == 0;
    free(z);
    kids k = get_kids(c);
    int iArg = 0;
    for (int i = 0; i < k.n; i++) {
      if (!clang_isExpression(kind(k.a[i]))) continue;
      /* atomicAdd(&P[i], v): the first argument is read and written */
      ks_shape_akind eArg = bAtomic && iArg == 1 ? KS_SHAPE_RMW : KS_SHAPE_LOAD;
      CXCursor a = strip_parens(k.a[i]);
      if (bOpAssign && iArg == 0 && kind(a) != CXCursor_DeclRefExpr) {
        walk_expr(pC, a, bPlainAssign ? KS_SHAPE_STORE : KS_SHAPE_RMW, nDepth + 1);
        iArg++;
        continue;
      }
      /* A pointer into a parameter handed to a helper: the helper reads it. */
      int bHintAddr = bLdHint && kind(a) == CXCursor_UnaryOperator && clang_getCursorUnaryOperatorKind(a) == CXUnaryOperator_AddrOf;
      if (!bAtomic && !bHintAddr && iArg > 0 && clang_getCanonicalType(clang_getCursorType(a)).kind == CXType_Pointer) {
        ks_poly off;
        int iP = eval_ptr(pC, a, &off, nDepth + 1);
        if (iP >= 0 && (kind(a) != CXCursor_DeclRefExpr || off.n || off.bIrregular)) record_access(pC, a, iP, off, KS_SHAPE_LOAD);
      }
      if (bHintAddr) { /* the element itself, read once (not also as a pointer handed to a helper) */
        walk_expr(pC, only_expr(a), KS_SHAPE_LOAD, nDepth + 1);
      } else if (eArg == KS_SHAPE_RMW && kind(a) == CXCursor_UnaryOperator &&
          clang_getCursorUnaryOperatorKind(a) == CXUnaryOperator_AddrOf) {
        walk_expr(pC, only_expr(a), KS_SHAPE_RMW, nDepth + 1);
      } else if (eArg == KS_SHAPE_RMW) {
        /* atomicAdd(p, v) with p a pointer into a parameter (`float* d = P + off;`):
         * the element it points at is read and written. */
        ks_poly off;
        int iP = eval_ptr(pC, a, &off, nDepth + 1);
        if (iP >= 0) record_access(pC, a, iP, off, KS_SHAPE_RMW);
        walk_expr(pC, k.a[i], KS_SHAPE_LOAD, nDepth + 1);
      } else
        walk_expr(pC, k.a[i], KS_SHAPE_LOAD, nDepth + 1);
      iArg++;
    }
    free(k.a);
    return;
  }
  case CXCursor_LambdaExpr:
    return;
  case CXCursor_ConditionalOperator: {
    kids k = get_kids(c);
    if (k.n == 3) note_guard(pC, k.a[0], 0, 1, 0);
    free(k.a);
    walk_kids_expr(pC, c, KS_SHAPE_LOAD, nDepth);
    return;
  }
  default:
    if (clang_isStatement(e) && !clang_isExpression(e)) {
      walk(pC, c, nDepth);
      return;
    }
    walk_kids_expr(pC, c, KS_SHAPE_LOAD, nDepth);
    return;
  }
}

static int is_shared_decl(ks_tu *pTu, CXCursor d) {
  kids k = get_kids(d);
  int b = 0;
  for (int i = 0; i < k.n; i++)
    if (kind(k.a[i]) == CXCursor_CUDASharedAttr) b = 1;
  free(k.a);
  if (!b) {
    unsigned s, e;
    if (ks_ast_extent(pTu, d, &s, &e) == 0) {
      /* `__shared__ float t[..]` puts the attribute before the extent on some clangs */
      unsigned i0 = s > 64 ? s - 64 : 0;
      for (unsigned i = i0; i + 10 <= e; i++)
        if (memcmp(pTu->zSrc + i, "__shared__", 10) == 0 && i + 10 <= s + 1) b = 1;
    }
  }
  return b;
}

static void add_ptr(sctx *pC, CXCursor d, int iParam, const ks_poly *pOff, const ks_poly *pOffU, const char *zClampWhy,
                    int bWritten) {
  ks_shape *pS = pC->pS;
  ks_shape_ptr *a = realloc(pS->aPtr, sizeof(ks_shape_ptr) * (size_t)(pS->nPtr + 1));
  if (!a) {
    pC->rc = ks_error_set(KS_ENOMEM, "out of memory");
    return;
  }
  pS->aPtr = a;
  ks_shape_ptr *pP = &a[pS->nPtr++];
  pP->decl = d;
  pP->iParam = iParam;
  pP->off = *pOff;
  pP->bClamped = !pOffU->bIrregular;
  pP->offU = *pOffU;
  pP->zClampWhy = zClampWhy;
  pP->bWritten = bWritten;
}

/* Unclamp mode over c: its value and (*pzWhy) why a clamp in it could not
 * be followed. */
static ks_poly eval_unclamped(sctx *pC, CXCursor c, int nDepth, const char **pzWhy) {
  pC->bUnclamp = 1;
  pC->zClampWhy = NULL;
  ks_poly u = normalize(pC, eval(pC, c, nDepth + 1));
  pC->bUnclamp = 0;
  *pzWhy = pC->zClampWhy;
  return u;
}

/* eval_ptr in unclamp mode: a pointer's parameter and (*pOff) its offset
 * where its clamps are the identity; *pzWhy why a clamp could not be followed. */
static int eval_ptr_unclamped(sctx *pC, CXCursor c, ks_poly *pOff, int nDepth, const char **pzWhy) {
  pC->bUnclamp = 1;
  pC->zClampWhy = NULL;
  int iP = eval_ptr(pC, c, pOff, nDepth + 1);
  pC->bUnclamp = 0;
  *pzWhy = pC->zClampWhy;
  if (iP >= 0) *pOff = normalize(pC, *pOff);
  return iP;
}

/* A pointer never re-seated at an offset irregular only through clamps to
 * the edge (`const float *up = in + max(y - 1, 0) * w;`, OpenCV style): its
 * unclamped offset for unclamp mode (pV->valU), into *pOffU; else why not. */
static void note_clamp_ptr(sctx *pC, svar *pV, CXCursor init, int nDepth, ks_poly *pOffU) {
  const char *zWhy;
  ks_poly u;
  *pOffU = poly_irregular();
  if (eval_ptr_unclamped(pC, init, &u, nDepth, &zWhy) != pV->iParam || u.bIrregular || u.bIndirect || !u.mClamp) {
    pV->zClampWhy = zWhy;
    return;
  }
  pV->valU = u;
  pV->bKnownU = 1;
  *pOffU = u;
}

/* A local initialized by a clamp of an index (`int xl = max(x - 1, 0);`):
 * its unclamped value for unclamp mode, and the model lists it. */
static void note_clamp_var(sctx *pC, svar *pV, CXCursor init, int nDepth) {
  const char *zWhy;
  ks_poly u = eval_unclamped(pC, init, nDepth, &zWhy);
  if (u.bIrregular || u.bIndirect || !u.mClamp) return;
  CXCursor plain = clamp_plain(pC, init, nDepth + 1);
  ks_shape *pS = pC->pS;
  CXCursor *a = realloc(pS->aClampVar, sizeof *a * (size_t)(pS->nClampVar + 1));
  if (!a) {
    pC->rc = ks_error_set(KS_ENOMEM, "out of memory");
    return;
  }
  pS->aClampVar = a;
  a[pS->nClampVar++] = pV->decl;
  pV->valU = u;
  pV->plain = plain;
  pV->bKnownU = 1;
}

static void walk_decl(sctx *pC, CXCursor d, int nDepth) {
  svar *pV = add_var(pC, d);
  if (!pV) return;
  if (is_shared_decl(pC->pTu, d)) {
    pV->bShared = 1;
    pC->pS->bShared = 1;
  }
  kids k = get_kids(d);
  CXCursor init = clang_getNullCursor();
  for (int i = 0; i < k.n; i++)
    if (clang_isExpression(kind(k.a[i]))) init = k.a[i];
  free(k.a);
  if (clang_Cursor_isNull(init)) return;
  walk_expr(pC, init, KS_SHAPE_LOAD, nDepth + 1);
  CXType t = clang_getCursorType(d);
  if (clang_getCanonicalType(t).kind == CXType_Pointer) {
    ks_poly off, offU = poly_irregular();
    int iP = eval_ptr(pC, init, &off, nDepth + 1);
    if (iP >= 0 && pV->nWrites == 0) {
      pV->iParam = iP;
      pV->val = off;
      if (off.bIrregular && !off.bIndirect) note_clamp_ptr(pC, pV, init, nDepth, &offU);
    }
    if (iP >= 0) add_ptr(pC, d, iP, &off, &offU, pV->zClampWhy, pV->nWrites > 0);
    return;
  }
  if ((pV->nWrites == 0 || SVAR_SEQUENTIAL(pV)) && (int_bits(t) || clang_getCanonicalType(t).kind == CXType_Unexposed)) {
    pV->val = normalize(pC, eval(pC, init, nDepth + 1));
    pV->bKnown = 1;
  }
  if (pV->nWrites == 0 && pV->bKnown && pV->val.bIrregular && !pV->val.bIndirect && is_signed_int(t))
    note_clamp_var(pC, pV, init, nDepth);
}

/* A comparison `a OP b` with one side variant: guard of that side (of a
 * selection's condition with bSel, into aSel). */
static void note_guard(sctx *pC, CXCursor cond, int bEarlyReturn, int bSel, int nDepth) {
  cond = strip_parens(cond);
  if (nDepth > 32 || kind(cond) != CXCursor_BinaryOperator) return;
  enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(cond);
  kids k = get_kids(cond);
  if (k.n != 2) goto done;
  if (op == CXBinaryOperator_LAnd || op == CXBinaryOperator_LOr) {
    note_guard(pC, k.a[0], bEarlyReturn, bSel, nDepth + 1);
    note_guard(pC, k.a[1], bEarlyReturn, bSel, nDepth + 1);
    goto done;
  }
  if (op < CXBinaryOperator_LT || op > CXBinaryOperator_GE) goto done;
  for (int s = 0; s < 2; s++) {
    ks_poly a = normalize(pC, eval(pC, k.a[s], 0)), b = eval(pC, k.a[1 - s], 0);
    if (!poly_variant(pC, &a) || poly_variant(pC, &b)) continue;
    int iDim = -1;
    for (int i = 0; i < a.n; i++)
      if (a.t[i].n == 1 && a.t[i].coef == 1 && pC->pS->aAtom[a.t[i].a[0]].eKind == KS_ATOM_PAR)
        iDim = pC->pS->aAtom[a.t[i].a[0]].iDim;
    ks_shape *pS = pC->pS;
    ks_shape_guard **paList = bSel ? &pS->aSel : &pS->aGuard;
    int *pnList = bSel ? &pS->nSel : &pS->nGuard;
    ks_shape_guard *aG = realloc(*paList, sizeof(ks_shape_guard) * (size_t)(*pnList + 1));
    if (!aG) {
      pC->rc = ks_error_set(KS_ENOMEM, "out of memory");
      goto done;
    }
    *paList = aG;
    ks_shape_guard *pG = &aG[(*pnList)++];
    memset(pG, 0, sizeof *pG);
    pG->iDim = iDim;
    pG->bEarlyReturn = bEarlyReturn;
    pG->zBound = ks_ast_text(pC->pTu, k.a[1 - s]);
    pG->expr = a;
    pG->bound = normalize(pC, b);
    /* s == 1: `bound OP expr`, written here as `expr OP' bound` */
    pG->eOp = s == 0 ? (int)op : op == CXBinaryOperator_LT ? CXBinaryOperator_GT : op == CXBinaryOperator_GT ? CXBinaryOperator_LT
                                 : op == CXBinaryOperator_LE ? CXBinaryOperator_GE : CXBinaryOperator_LE;
    unsigned st, en;
    if (ks_ast_extent(pC->pTu, cond, &st, &en) == 0) ks_ast_line_col(pC->pTu, st, &pG->iLine, NULL), pG->iOffset = st;
    break;
  }
done:
  free(k.a);
}

static int is_return_only(CXCursor c) {
  c = strip_parens(c);
  if (kind(c) == CXCursor_ReturnStmt) return 1;
  if (kind(c) != CXCursor_CompoundStmt) return 0;
  kids k = get_kids(c);
  int b = k.n == 1 && kind(k.a[0]) == CXCursor_ReturnStmt;
  free(k.a);
  return b;
}

/* The induction variable of a loop header part: `int k = e`, `k = e`. */
static CXCursor header_var(CXCursor c, CXCursor *pInit) {
  *pInit = clang_getNullCursor();
  if (kind(c) == CXCursor_DeclStmt) {
    kids k = get_kids(c);
    CXCursor d = k.n == 1 && kind(k.a[0]) == CXCursor_VarDecl ? k.a[0] : clang_getNullCursor();
    free(k.a);
    if (!clang_Cursor_isNull(d)) {
      kids k2 = get_kids(d);
      for (int i = 0; i < k2.n; i++)
        if (clang_isExpression(kind(k2.a[i]))) *pInit = k2.a[i];
      free(k2.a);
    }
    return d;
  }
  c = strip_parens(c);
  if (kind(c) == CXCursor_BinaryOperator && clang_getCursorBinaryOperatorKind(c) == CXBinaryOperator_Assign) {
    kids k = get_kids(c);
    CXCursor d = k.n == 2 ? ref_decl(k.a[0]) : clang_getNullCursor();
    if (k.n == 2) *pInit = k.a[1];
    free(k.a);
    return d;
  }
  return clang_getNullCursor();
}

/* Kid i of c, or a null cursor. */
static CXCursor get_kid(CXCursor c, int i) {
  kids k = get_kids(c);
  CXCursor r = i < k.n ? k.a[i] : clang_getNullCursor();
  free(k.a);
  return r;
}

/* Is s `d = d + step` (1) or `d = step + d` (2), d the loop's variable? 0 else. */
static int loop_step_assign(CXCursor s, CXCursor d) {
  if (clang_Cursor_isNull(d) || !is_assign_to(s, d)) return 0;
  CXCursor r = strip_parens(get_kid(s, 1));
  if (kind(r) != CXCursor_BinaryOperator || clang_getCursorBinaryOperatorKind(r) != CXBinaryOperator_Add) return 0;
  CXCursor r0 = get_kid(r, 0), r1 = get_kid(r, 1);
  if (!clang_Cursor_isNull(r0) && clang_equalCursors(ref_decl(r0), d)) return 1;
  if (!clang_Cursor_isNull(r1) && clang_equalCursors(ref_decl(r1), d)) return 2;
  return 0;
}

static void walk_for(sctx *pC, CXCursor c, int nDepth) {
  kids k = get_kids(c);
  int iL = push_loop(pC, c);
  if (iL < 0 || k.n < 1) {
    free(k.a);
    return;
  }
  CXCursor body = k.a[k.n - 1], part[3] = {clang_getNullCursor(), clang_getNullCursor(), clang_getNullCursor()};
  /* libclang leaves out absent header parts: place what is there by kind. */
  for (int i = 0; i < k.n - 1; i++) {
    CXCursor x = strip_parens(k.a[i]);
    enum CXCursorKind e = kind(x);
    int bCmp = e == CXCursor_BinaryOperator && clang_getCursorBinaryOperatorKind(x) >= CXBinaryOperator_LT &&
               clang_getCursorBinaryOperatorKind(x) <= CXBinaryOperator_NE;
    if (kind(k.a[i]) == CXCursor_DeclStmt || (i == 0 && !bCmp && k.n == 4)) part[0] = k.a[i];
    else if (bCmp && clang_Cursor_isNull(part[1])) part[1] = k.a[i];
    else part[2] = k.a[i];
  }
  if (clang_Cursor_isNull(part[0]) && k.n == 4) part[0] = k.a[0];
  CXCursor init;
  CXCursor d = clang_Cursor_isNull(part[0]) ? clang_getNullCursor() : header_var(part[0], &init);
  if (!clang_Cursor_isNull(part[0]) && kind(part[0]) != CXCursor_DeclStmt) walk_expr(pC, part[0], KS_SHAPE_LOAD, nDepth + 1);
  else if (!clang_Cursor_isNull(part[0])) {
    kids kd = get_kids(part[0]);
    for (int i = 0; i < kd.n; i++) {
      svar *pV = add_var(pC, kd.a[i]);
      (void)pV;
    }
    free(kd.a);
  }
  ks_shape_loop *pL = &pC->pS->aLoop[iL];
  long long nInit = 0, nBound = 0;
  if (!clang_Cursor_isNull(d) && !clang_Cursor_isNull(init)) {
    pL->zVar = spell(d);
    pL->init = normalize(pC, eval(pC, init, nDepth + 1));
    /* step */
    if (!clang_Cursor_isNull(part[2])) {
      CXCursor s = strip_parens(part[2]);
      int iSum = 0;
      if (kind(s) == CXCursor_UnaryOperator) {
        enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(s);
        pL->nStep = op == CXUnaryOperator_PreInc || op == CXUnaryOperator_PostInc ? 1
                    : op == CXUnaryOperator_PreDec || op == CXUnaryOperator_PostDec ? -1 : 0;
      } else if (kind(s) == CXCursor_CompoundAssignOperator || (iSum = loop_step_assign(s, d)) != 0) {
        kids ks = get_kids(s);
        if (ks.n == 2) {
          /* `i = i + step` reads as `i += step` (iSum: which side d is) */
          CXCursor stepX = iSum ? get_kid(strip_parens(ks.a[1]), iSum == 1 ? 1 : 0) : ks.a[1];
          ks_poly st = eval(pC, stepX, nDepth + 1);
          long long v;
          enum CXBinaryOperatorKind op = kind(s) == CXCursor_CompoundAssignOperator ? clang_getCursorBinaryOperatorKind(s)
                                                                                    : CXBinaryOperator_AddAssign;
          if (poly_is_const(&st, &v) && (op == CXBinaryOperator_AddAssign || op == CXBinaryOperator_SubAssign))
            pL->nStep = op == CXBinaryOperator_SubAssign ? -v : v;
          /* grid stride: the loop's own variable += blockDim.d * gridDim.d */
          CXCursor lhs = ref_decl(ks.a[0]);
          if (op == CXBinaryOperator_AddAssign && !clang_Cursor_isNull(lhs) && clang_equalCursors(lhs, d) && !st.bIrregular && st.n == 1 && st.t[0].n == 2 && st.t[0].coef == 1) {
            ks_atom *a0 = &pC->pS->aAtom[st.t[0].a[0]], *a1 = &pC->pS->aAtom[st.t[0].a[1]];
            if (a0->iDim == a1->iDim && ((a0->eKind == KS_ATOM_BDIM && a1->eKind == KS_ATOM_GDIM) ||
                                         (a0->eKind == KS_ATOM_GDIM && a1->eKind == KS_ATOM_BDIM))) {
              /* the start must be PAR.d */
              for (int i = 0; i < pL->init.n; i++)
                if (pL->init.t[i].n == 1 && pL->init.t[i].coef == 1 &&
                    pC->pS->aAtom[pL->init.t[i].a[0]].eKind == KS_ATOM_PAR &&
                    pC->pS->aAtom[pL->init.t[i].a[0]].iDim == a0->iDim) {
                  pL->bGridStride = 1;
                  pL->iDim = a0->iDim;
                }
            }
          }
        }
        free(ks.a);
      }
    }
    if (!clang_Cursor_isNull(part[1])) {
      kids kc = get_kids(strip_parens(part[1]));
      enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(strip_parens(part[1]));
      if (kc.n == 2 && !clang_Cursor_isNull(ref_decl(kc.a[0])) && clang_equalCursors(ref_decl(kc.a[0]), d)) {
        pL->bound = eval(pC, kc.a[1], nDepth + 1);
        if (poly_is_const(&pL->init, &nInit) && poly_is_const(&pL->bound, &nBound) && pL->nStep > 0) {
          if (op == CXBinaryOperator_LE) nBound++;
          if (op == CXBinaryOperator_LT || op == CXBinaryOperator_LE || op == CXBinaryOperator_NE)
            pL->nTrip = nBound > nInit ? (nBound - nInit + pL->nStep - 1) / pL->nStep : 0;
        }
      }
      free(kc.a);
    }
    svar *pV = add_var(pC, d);
    if (pV) {
      /* header writes: the init assignment (when not a declaration) and the step */
      int nHeader = (kind(part[0]) == CXCursor_DeclStmt ? 0 : 1) + (clang_Cursor_isNull(part[2]) ? 0 : 1);
      if (pL->bGridStride && pV->nWrites <= nHeader) {
        pV->val = pL->init;
        pV->bKnown = 1;
        pC->pS->aPar[pL->iDim].bGridStride = 1;
      } else if (pV->nWrites <= nHeader) {
        char z[64];
        snprintf(z, sizeof z, "%s", pL->zVar ? pL->zVar : "?");
        int iA = atom_find_or_add(pC, KS_ATOM_LOOP, -1, iL, z);
        pL->iAtom = iA;
        if (iA >= 0) {
          pV->val = poly_atom(iA);
          pV->bKnown = 1;
        }
      }
    }
  }
  if (!clang_Cursor_isNull(part[1])) walk_expr(pC, part[1], KS_SHAPE_LOAD, nDepth + 1);
  if (pC->nLoopDepth < 64) pC->aLoop[pC->nLoopDepth++] = iL;
  walk(pC, body, nDepth + 1);
  if (!clang_Cursor_isNull(part[2])) walk_expr(pC, part[2], KS_SHAPE_LOAD, nDepth + 1);
  pC->nLoopDepth--;
  free(k.a);
}

static void walk_while(sctx *pC, CXCursor c, int nDepth) {
  int iL = push_loop(pC, c);
  if (iL < 0) return;
  if (pC->nLoopDepth < 64) pC->aLoop[pC->nLoopDepth++] = iL;
  kids k = get_kids(c);
  for (int i = 0; i < k.n; i++) walk(pC, k.a[i], nDepth + 1);
  free(k.a);
  pC->nLoopDepth--;
}

static void walk(sctx *pC, CXCursor c, int nDepth) {
  if (pC->rc < 0) return;
  if (nDepth > SHAPE_MAX_DEPTH) {
    pC->pS->bTruncated = 1;
    return;
  }
  enum CXCursorKind e = kind(c);
  switch (e) {
  case CXCursor_CompoundStmt: {
    kids k = get_kids(c);
    for (int i = 0; i < k.n; i++) walk(pC, k.a[i], nDepth + 1);
    free(k.a);
    return;
  }
  case CXCursor_DeclStmt: {
    kids k = get_kids(c);
    for (int i = 0; i < k.n; i++)
      if (kind(k.a[i]) == CXCursor_VarDecl) walk_decl(pC, k.a[i], nDepth + 1);
    free(k.a);
    return;
  }
  case CXCursor_IfStmt: {
    kids k = get_kids(c);
    if (k.n >= 2) note_guard(pC, k.a[0], k.n == 2 && is_return_only(k.a[1]), 0, 0);
    if (k.n >= 2) note_select_accum(pC, k.a[0], k.a[1]);
    for (int i = 0; i < k.n; i++) {
      if (i == 0) walk_expr(pC, k.a[i], KS_SHAPE_LOAD, nDepth + 1);
      else walk(pC, k.a[i], nDepth + 1);
    }
    free(k.a);
    return;
  }
  case CXCursor_ForStmt:
    walk_for(pC, c, nDepth);
    return;
  case CXCursor_WhileStmt:
  case CXCursor_DoStmt:
    walk_while(pC, c, nDepth);
    return;
  default:
    if (clang_isExpression(e)) {
      walk_expr(pC, c, KS_SHAPE_LOAD, nDepth + 1);
      return;
    }
    {
      kids k = get_kids(c);
      for (int i = 0; i < k.n; i++) walk(pC, k.a[i], nDepth + 1);
      free(k.a);
    }
    return;
  }
}

/* ---------- classes ---------- */

typedef struct coord_info {
  unsigned mUnit;    /* coordinates with a unit coefficient alone ([c], coef 1) */
  unsigned mAny;     /* coordinates anywhere */
  int bLoopUnit;     /* loop atom iLoopAtom alone with coefficient +-1 */
  int bLoopScaled;   /* loop atom times a stride */
  long long nConst;  /* the constant term */
} coord_info;

/* Bit of a coordinate atom: PAR.d (d), threadIdx.d (3+d), blockIdx.d (6+d),
 * i/n (9+d) and i%n (12+d) of a flat PAR.d; other variant atoms: bit 15. */
static unsigned coord_bit(const ks_atom *a) {
  switch (a->eKind) {
  case KS_ATOM_PAR: return 1u << a->iDim;
  case KS_ATOM_TID: return 1u << (3 + a->iDim);
  case KS_ATOM_BID: return 1u << (6 + a->iDim);
  case KS_ATOM_DERIVED: return a->iDimOf >= 0 ? 1u << ((a->bRem ? 12 : 9) + a->iDimOf) : 1u << 15;
  default: return 0;
  }
}

static int has_split(const ks_shape *pS, int iDim) {
  for (int i = 0; i < pS->nAtom; i++)
    if (pS->aAtom[i].eKind == KS_ATOM_DERIVED && pS->aAtom[i].iDimOf == iDim) return 1;
  return 0;
}

static coord_info coords(const ks_shape *pS, const ks_poly *p, int iLoopAtom) {
  coord_info ci;
  memset(&ci, 0, sizeof ci);
  /* A flat PAR.d that the kernel also splits into i / n and i % n stands for
   * both coordinates, the unit-stride one being i % n. */
  for (int i = 0; i < p->n; i++) {
    const ks_mono *m = &p->t[i];
    if (m->n == 1 && pS->aAtom[m->a[0]].eKind == KS_ATOM_PAR && has_split(pS, pS->aAtom[m->a[0]].iDim)) {
      int d = pS->aAtom[m->a[0]].iDim;
      ci.mAny |= (1u << (9 + d)) | (1u << (12 + d));
      if (m->coef == 1 || m->coef == -1) ci.mUnit |= 1u << (12 + d);
    }
  }
  for (int i = 0; i < p->n; i++) {
    const ks_mono *m = &p->t[i];
    if (m->n == 0) ci.nConst = m->coef;
    if (m->n == 1 && pS->aAtom[m->a[0]].eKind == KS_ATOM_PAR && has_split(pS, pS->aAtom[m->a[0]].iDim)) continue;
    int bLoop = 0;
    unsigned mC = 0;
    for (int x = 0; x < m->n; x++) {
      const ks_atom *a = &pS->aAtom[m->a[x]];
      if (a->eKind == KS_ATOM_LOOP && m->a[x] == iLoopAtom) bLoop = 1;
      mC |= coord_bit(a);
    }
    ci.mAny |= mC;
    if (m->n == 1 && (m->coef == 1 || m->coef == -1) && mC) ci.mUnit |= mC;
    if (bLoop && m->n == 1 && (m->coef == 1 || m->coef == -1)) ci.bLoopUnit = 1;
    else if (bLoop) ci.bLoopScaled = 1;
  }
  return ci;
}

static int loop_var_used(const ks_shape *pS, int iLoop) {
  const ks_shape_loop *pL = &pS->aLoop[iLoop];
  if (pL->iAtom < 0) return 0;
  for (int i = 0; i < pS->nAccess; i++) {
    const ks_poly *p = &pS->aAccess[i].index;
    for (int t = 0; t < p->n; t++)
      for (int x = 0; x < p->t[t].n; x++)
        if (p->t[t].a[x] == pL->iAtom) return 1;
  }
  return 0;
}

static int popcount(unsigned m) {
  int n = 0;
  for (; m; m &= m - 1) n++;
  return n;
}

/* Is delta (the difference of two indices into one array) a step of k
 * positions, 1 <= |k| <= 8, along a coordinate of index p: the coefficient of
 * a monomial of p that holds one coordinate atom (i*NY + j: NY or 1)? A pair
 * of such accesses reads a neighbour (a[i] and a[i + 1], hz[(i - 1) * NY + j]);
 * an offset that is not a multiple of a coordinate's stride (in[2 * i] and
 * in[2 * i + 1], a field of a record; inp[x] and inp[x + NH * d], another
 * slice) is not one. */
static int neighbour_step(const ks_shape *pS, const ks_poly *p, const ks_poly *delta, int bFrac) {
  if (delta->bIrregular || delta->n != 1) return 0;
  const ks_mono *d = &delta->t[0];
  for (int x = 0; x < d->n; x++)
    if (pS->aAtom[d->a[x]].eKind != KS_ATOM_UNIFORM) return 0;
  for (int i = 0; i < p->n; i++) {
    const ks_mono *m = &p->t[i];
    int iCoord = -1, nCoord = 0;
    for (int x = 0; x < m->n; x++)
      if (coord_bit(&pS->aAtom[m->a[x]])) iCoord = x, nCoord++;
      else if (pS->aAtom[m->a[x]].eKind != KS_ATOM_UNIFORM) nCoord = 2;
    if (nCoord != 1 || m->n - 1 != d->n || m->coef == 0) continue;
    /* bFrac: a step of a fraction 1/q (q <= 8) of a coordinate's stride, the
     * cells of a pooling window (p[1], p[W] of in + 2 * oy * W + 2 * ox) */
    long long k = 0;
    for (long long q = 1; q <= (bFrac ? 8 : 1) && !k; q++)
      if ((d->coef * q) % m->coef == 0) k = d->coef * q / m->coef;
    if (k == 0 || k > 8 || k < -8) continue;
    int bSame = 1;
    for (int x = 0, y = 0; x < m->n && bSame; x++) {
      if (x == iCoord) continue;
      if (m->a[x] != d->a[y++]) bSame = 0;
    }
    if (bSame) return 1;
  }
  return 0;
}

/* Is a the variable of a per-thread loop (not a grid-stride one)? */
static int thread_loop_atom(const ks_shape *pS, const ks_atom *a) {
  return a->eKind == KS_ATOM_LOOP && a->iRef >= 0 && a->iRef < pS->nLoop && !pS->aLoop[a->iRef].bGridStride;
}

/* Does index p hold both loop atom iAtom's loop variable and a coordinate
 * of the thread's position, in different terms (oy * s + ky * d)? */
static int position_plus_loop(const ks_shape *pS, const ks_poly *p) {
  int bLoop = 0, bCoord = 0;
  for (int i = 0; i < p->n; i++) {
    const ks_mono *m = &p->t[i];
    int bL = 0, bC = 0;
    for (int x = 0; x < m->n; x++) {
      const ks_atom *a = &pS->aAtom[m->a[x]];
      if (thread_loop_atom(pS, a)) bL = 1;
      if (coord_bit(a)) bC = 1;
    }
    if (bL && !bC) bLoop = 1;
    if (bC && !bL) bCoord = 1;
  }
  return bLoop && bCoord;
}

/* Monomial m as one atom of kind "loop" (bLoop: a per-thread loop's
 * variable) or "coordinate" (a coordinate of the thread's position) times a
 * stride of uniforms: that atom's position in m, else -1. */
static int one_variant(const ks_shape *pS, const ks_mono *m, int bLoop) {
  int iAt = -1;
  for (int x = 0; x < m->n; x++) {
    const ks_atom *a = &pS->aAtom[m->a[x]];
    if (a->eKind == KS_ATOM_UNIFORM) continue;
    if (iAt >= 0 || (bLoop ? !thread_loop_atom(pS, a) : !coord_bit(a))) return -1;
    iAt = x;
  }
  return iAt;
}

/* Does index p add a loop's variable to a coordinate of the thread's
 * position at the same stride ((oy + ky) * W + ox + kx: a window read
 * without border checks, a valid convolution)? A row, column or GEMM loop
 * walks a dimension of its own, at another stride than the position's. */
static int window_offset(const ks_shape *pS, const ks_poly *p) {
  for (int i = 0; i < p->n; i++) {
    int iL = one_variant(pS, &p->t[i], 1);
    for (int j = 0; iL >= 0 && j < p->n; j++) {
      int iC = one_variant(pS, &p->t[j], 0);
      const ks_mono *l = &p->t[i], *c = &p->t[j];
      if (iC < 0 || l->coef != c->coef || l->n != c->n) continue;
      int bSame = 1; /* the strides: the other atoms, sorted in both */
      for (int x = 0, y = 0; x < l->n && bSame; x++, y++) {
        if (x == iL) x++;
        if (y == iC) y++;
        if (x < l->n && y < c->n && l->a[x] != c->a[y]) bSame = 0;
      }
      if (bSame) return 1;
    }
  }
  return 0;
}

/* ---------- the layout of the thread's position: sampled ----------
 *
 * A flat index split into coordinates (c = i % C, w = (i / C) % W, ...) is a
 * mixed-radix number: each coordinate is one digit (i / lo) % radix. The
 * polynomials say which atoms an index holds, not which digit of i each one
 * is, so the layout is read numerically: every uniform gets a distinct small
 * prime, the digits of each parallel dimension are found from their values
 * over a range of positions, and every access's index is checked to be affine
 * in the digits (its coefficient per digit: how far the address moves when
 * that coordinate steps). Same order of coefficients: a map; another order:
 * a permutation (transpose); not affine, or no load covering every coordinate
 * the stores use: none of them. */

#define LAYOUT_T 4096   /* positions sampled per parallel dimension */
#define LAYOUT_DIGITS 8 /* digits per parallel dimension */

typedef struct lay_digit {
  long long lo, radix; /* the digit is (t / lo) % radix; radix 0: t / lo */
} lay_digit;

typedef struct lay {
  const ks_shape *pS;
  long long *aUni;    /* sample value of each uniform atom (by atom id) */
  long long aPar[3];  /* the position sampled */
  int bFail;
  lay_digit aDig[3][LAYOUT_DIGITS];
  int nDig[3];
} lay;

static long long lay_poly(lay *L, const ks_poly *p, int nDepth);

static long long lay_atom(lay *L, int iAtom, int nDepth) {
  const ks_atom *a = &L->pS->aAtom[iAtom];
  if (a->eKind == KS_ATOM_PAR && a->iDim >= 0 && a->iDim < 3) return L->aPar[a->iDim];
  if (a->eKind == KS_ATOM_UNIFORM) return L->aUni[iAtom];
  if (a->eKind == KS_ATOM_DERIVED && a->pNum && a->pDen && nDepth < 16) {
    long long n = lay_poly(L, a->pNum, nDepth + 1), d = lay_poly(L, a->pDen, nDepth + 1);
    if (L->bFail || d <= 0 || n < 0) {
      L->bFail = 1;
      return 0;
    }
    return a->bRem ? n % d : n / d;
  }
  L->bFail = 1;
  return 0;
}

static long long lay_poly(lay *L, const ks_poly *p, int nDepth) {
  if (p->bIrregular) {
    L->bFail = 1;
    return 0;
  }
  long long r = 0;
  for (int i = 0; i < p->n && !L->bFail; i++) {
    long long v = p->t[i].coef;
    for (int x = 0; x < p->t[i].n && !L->bFail; x++) {
      v *= lay_atom(L, p->t[i].a[x], nDepth);
      if (v > (1LL << 40) || v < -(1LL << 40)) L->bFail = 1;
    }
    r += v;
  }
  return r;
}

/* Value of atom iAtom with parallel dimension d at t, the others at 0. */
static long long lay_at(lay *L, int iAtom, int d, long long t) {
  L->aPar[0] = L->aPar[1] = L->aPar[2] = 0;
  L->aPar[d] = t;
  return lay_atom(L, iAtom, 0);
}

static long long lay_digit_val(const lay_digit *g, long long t) {
  return g->radix ? (t / g->lo) % g->radix : t / g->lo;
}

/* The digits of parallel dimension d: the split atoms that nothing splits
 * further, placed by the first position each is nonzero at and the first
 * after it where it is zero again, the gaps filled by implicit digits (i
 * / C when only i % C is written). 0, or -1 when they do not form a
 * mixed-radix number. */
static int lay_digits(lay *L, int d) {
  const ks_shape *pS = L->pS;
  lay_digit aLeaf[LAYOUT_DIGITS];
  int nLeaf = 0;
  for (int i = 0; i < pS->nAtom; i++) {
    const ks_atom *a = &pS->aAtom[i];
    if (a->eKind != KS_ATOM_DERIVED || a->iDimOf != d) continue;
    int bSplit = 0;
    for (int j = 0; j < pS->nAtom && !bSplit; j++) {
      const ks_atom *b = &pS->aAtom[j];
      if (j != i && b->eKind == KS_ATOM_DERIVED && b->pNum && b->pNum->n == 1 && b->pNum->t[0].n == 1 &&
          b->pNum->t[0].coef == 1 && b->pNum->t[0].a[0] == i)
        bSplit = 1;
    }
    if (bSplit) continue;
    long long lo = 0, hi = 0;
    for (long long t = 1; t < LAYOUT_T && !lo; t++)
      if (lay_at(L, i, d, t) != 0) lo = t;
    if (L->bFail) return -1;
    if (!lo) continue; /* constant over the range sampled */
    for (long long t = lo + 1; t < LAYOUT_T && !hi; t++)
      if (lay_at(L, i, d, t) == 0) hi = t;
    if (hi && hi % lo) return -1;
    lay_digit g = {lo, hi ? hi / lo : 0};
    for (long long t = 0; t < LAYOUT_T; t++)
      if (lay_at(L, i, d, t) != lay_digit_val(&g, t)) return -1;
    int bDup = 0;
    for (int x = 0; x < nLeaf; x++)
      if (aLeaf[x].lo == g.lo && aLeaf[x].radix == g.radix) bDup = 1;
    if (bDup) continue;
    if (nLeaf == LAYOUT_DIGITS) return -1;
    aLeaf[nLeaf++] = g;
  }
  /* by lo */
  for (int i = 1; i < nLeaf; i++)
    for (int j = i; j > 0 && aLeaf[j].lo < aLeaf[j - 1].lo; j--) {
      lay_digit t = aLeaf[j];
      aLeaf[j] = aLeaf[j - 1];
      aLeaf[j - 1] = t;
    }
  long long cur = 1;
  int n = 0;
  for (int i = 0; i <= nLeaf; i++) {
    if (cur == 0) return i == nLeaf ? (L->nDig[d] = n, 0) : -1; /* after an unbounded digit */
    long long lo = i < nLeaf ? aLeaf[i].lo : 0;
    if (i == nLeaf || lo > cur) {
      /* an implicit digit from cur up to the next one (or unbounded) */
      if (i < nLeaf && lo % cur) return -1;
      if (n == LAYOUT_DIGITS) return -1;
      L->aDig[d][n++] = (lay_digit){cur, i < nLeaf ? lo / cur : 0};
      cur = i < nLeaf ? lo : 0;
      if (i == nLeaf) break;
    }
    if (lo < cur) return -1; /* overlapping digits */
    if (n == LAYOUT_DIGITS) return -1;
    L->aDig[d][n++] = aLeaf[i];
    cur = aLeaf[i].radix ? aLeaf[i].lo * aLeaf[i].radix : 0;
  }
  L->nDig[d] = n;
  return 0;
}

/* Coefficients of index p per digit (aCoef[d * LAYOUT_DIGITS + k]); 1 when
 * p is affine in the digits over the positions sampled, 0 when not, -1 when
 * it cannot be evaluated. */
static int lay_coefs(lay *L, const ks_poly *p, long long *aCoef) {
  L->aPar[0] = L->aPar[1] = L->aPar[2] = 0;
  long long a0 = lay_poly(L, p, 0);
  for (int d = 0; d < 3; d++)
    for (int k = 0; k < L->nDig[d]; k++) {
      L->aPar[0] = L->aPar[1] = L->aPar[2] = 0;
      L->aPar[d] = L->aDig[d][k].lo;
      aCoef[d * LAYOUT_DIGITS + k] = lay_poly(L, p, 0) - a0;
    }
  if (L->bFail) return -1;
  /* each dimension alone, then a few positions of all of them together */
  for (int d = 0; d < 3; d++) {
    if (!L->nDig[d]) continue;
    for (long long t = 0; t < LAYOUT_T; t += 1 + t / 64) {
      L->aPar[0] = L->aPar[1] = L->aPar[2] = 0;
      L->aPar[d] = t;
      long long v = a0;
      for (int k = 0; k < L->nDig[d]; k++) v += aCoef[d * LAYOUT_DIGITS + k] * lay_digit_val(&L->aDig[d][k], t);
      if (lay_poly(L, p, 0) != v) return L->bFail ? -1 : 0;
    }
  }
  for (long long s = 1; s < 40; s++) {
    long long v = a0;
    for (int d = 0; d < 3; d++) {
      L->aPar[d] = L->nDig[d] ? (s * (7 + 13 * d)) % LAYOUT_T : 0;
      for (int k = 0; k < L->nDig[d]; k++) v += aCoef[d * LAYOUT_DIGITS + k] * lay_digit_val(&L->aDig[d][k], L->aPar[d]);
    }
    if (lay_poly(L, p, 0) != v) return L->bFail ? -1 : 0;
  }
  return 1;
}

/* Do the digits that both a and b use (nonzero coefficients) run in the same
 * order of |coefficient|, strictly? */
static int lay_same_order(const long long *a, const long long *b, int n) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      if (i == j || !a[i] || !a[j] || !b[i] || !b[j]) continue;
      long long ai = a[i] < 0 ? -a[i] : a[i], aj = a[j] < 0 ? -a[j] : a[j];
      long long bi = b[i] < 0 ? -b[i] : b[i], bj = b[j] < 0 ? -b[j] : b[j];
      if (ai == aj || bi == bj || (ai < aj) != (bi < bj)) return 0;
    }
  return 1;
}

/* Map, transpose or other from the sampled layout: 1 when it decided (class
 * and why set), 0 when the accesses are not of the form it reads (thread
 * built-ins apart, loop variables: the caller decides). */
static int layout_class(ks_shape *pS) {
  int rc = 0;
  lay L;
  memset(&L, 0, sizeof L);
  L.pS = pS;
  L.aUni = calloc((size_t)pS->nAtom + 1, sizeof(long long));
  if (!L.aUni) return 0;
  static const long long aPrime[] = {3, 5, 7, 11, 13, 17, 19, 23};
  int nUni = 0;
  for (int i = 0; i < pS->nAtom; i++)
    if (pS->aAtom[i].eKind == KS_ATOM_UNIFORM) L.aUni[i] = aPrime[nUni++ % 8];
  int nCoef = 3 * LAYOUT_DIGITS;
  long long *aC = calloc((size_t)pS->nAccess * (size_t)nCoef + 1, sizeof(long long));
  if (!aC) goto done;
  int abAxis[3] = {0, 0, 0};
  for (int i = 0; i < pS->nAtom; i++) {
    const ks_atom *a = &pS->aAtom[i];
    if (a->eKind == KS_ATOM_PAR && a->iDim >= 0 && a->iDim < 3) abAxis[a->iDim] = 1;
  }
  for (int d = 0; d < 3; d++)
    if (abAxis[d] && lay_digits(&L, d) < 0) goto done;
  int iStore = -1;
  for (int i = 0; i < pS->nAccess; i++) {
    int r = lay_coefs(&L, &pS->aAccess[i].index, aC + (size_t)i * nCoef);
    if (r < 0) goto done;
    if (r == 0) {
      pS->eClass = KS_CLASS_OTHER;
      pS->zWhy = "an index is not affine in the coordinates of the thread's position";
      rc = 1;
      goto done;
    }
    if (pS->aAccess[i].eKind != KS_SHAPE_LOAD && iStore < 0) iStore = i;
  }
  if (iStore < 0) goto done;
  /* every store covers every coordinate (else threads share an element) */
  const long long *pSt = aC + (size_t)iStore * nCoef;
  for (int i = 0; i < pS->nAccess; i++) {
    if (pS->aAccess[i].eKind == KS_SHAPE_LOAD) continue;
    const long long *p = aC + (size_t)i * nCoef;
    for (int d = 0; d < 3; d++)
      for (int k = 0; k < L.nDig[d]; k++)
        if (!p[d * LAYOUT_DIGITS + k]) {
          pS->eClass = KS_CLASS_OTHER;
          pS->zWhy = "a store does not depend on every coordinate of the thread's position";
          rc = 1;
          goto done;
        }
    if (!lay_same_order(pSt, p, nCoef)) {
      pS->eClass = KS_CLASS_OTHER;
      pS->zWhy = "the stores run over the thread's coordinates in different orders";
      rc = 1;
      goto done;
    }
  }
  int bFull = 0, bVariant = 0, bPermuted = 0;
  for (int i = 0; i < pS->nAccess; i++) {
    /* the loads, and the elements updated in place (y[i] += b[i % C]) */
    if (pS->aAccess[i].eKind == KS_SHAPE_STORE) continue;
    const long long *p = aC + (size_t)i * nCoef;
    int nUsed = 0, nAll = 0;
    for (int d = 0; d < 3; d++)
      for (int k = 0; k < L.nDig[d]; k++) {
        nAll++;
        if (p[d * LAYOUT_DIGITS + k]) nUsed++;
      }
    if (!nUsed) continue;
    bVariant = 1;
    if (nUsed == nAll) bFull = 1;
    if (!lay_same_order(pSt, p, nCoef)) {
      if (nUsed < nAll) {
        pS->eClass = KS_CLASS_OTHER;
        pS->zWhy = "a load reads part of the thread's coordinates in another order";
        rc = 1;
        goto done;
      }
      bPermuted = 1;
    }
  }
  rc = 1;
  if (bPermuted) {
    pS->eClass = KS_CLASS_TRANSPOSE;
    pS->zWhy = "a load runs over the thread's coordinates in another order than the stores (a permutation)";
  } else if (bVariant && !bFull) {
    pS->eClass = KS_CLASS_OTHER;
    pS->zWhy = "every load reads a coarser position than the stores write (a resampling or expansion)";
  } else {
    pS->eClass = KS_CLASS_MAP;
    pS->zWhy = "each thread reads and writes at its own position (plus broadcasts)";
  }
done:
  free(aC);
  free(L.aUni);
  return rc;
}

/* Is loop iInner nested (at any depth) inside loop iOuter? */
static int loop_inside(const ks_shape *pS, int iInner, int iOuter) {
  for (int i = pS->aLoop[iInner].iParent, n = 0; i >= 0 && n < pS->nLoop; i = pS->aLoop[i].iParent, n++)
    if (i == iOuter) return 1;
  return 0;
}

static void classify(ks_shape *pS) {
  int nStore = 0, bIndirect = 0, bIrregular = 0;
  for (int i = 0; i < pS->nAccess; i++) {
    const ks_shape_access *a = &pS->aAccess[i];
    if (a->eKind != KS_SHAPE_LOAD) nStore++;
    if (a->index.bIndirect) bIndirect = 1;
    else if (a->index.bIrregular) bIrregular = 1;
  }
  pS->eClass = KS_CLASS_OTHER;
  pS->zWhy = "no global store, or a shape no class describes";
  if (pS->bTruncated) {
    pS->zWhy = "the body nests too deep for the model";
    return;
  }
  if (nStore == 0) return;
  if (bIndirect) {
    pS->eClass = KS_CLASS_GATHER;
    pS->zWhy = "an index comes from memory";
    return;
  }
  /* A kernel that already stages data in shared memory between barriers (a
   * tiled transpose, a tiled stencil) is cooperative: no naive class fits. */
  if (pS->bShared && pS->bSync) {
    pS->zWhy = "shared memory between barriers: already a cooperative kernel";
    return;
  }
  /* A fixed small window (constant-trip loops over neighbour offsets). */
  for (int iL = 0; iL < pS->nLoop; iL++) {
    const ks_shape_loop *pL = &pS->aLoop[iL];
    if (pL->bGridStride || pL->nTrip <= 1 || pL->nTrip > 16 || pL->iAtom < 0) continue;
    for (int i = 0; i < pS->nAccess; i++) {
      const ks_shape_access *a = &pS->aAccess[i];
      if (a->eKind != KS_SHAPE_LOAD || a->index.bIrregular) continue;
      coord_info ci = coords(pS, &a->index, pL->iAtom);
      /* the position: the parallel index, the thread built-ins, or the
       * coordinates split from a flat index (i % W, (i / W) % H) */
      if ((ci.bLoopUnit || ci.bLoopScaled) && (ci.mAny & 0x7fffu)) {
        pS->eClass = KS_CLASS_STENCIL;
        pS->zWhy = "loads over a fixed small window of offsets from the thread's position";
        return;
      }
    }
  }
  /* A window of any size: a per-thread loop offsets the thread's position
   * and the sum is checked against the lower border (h_in = oy * s - pad +
   * ky * d; if (h_in >= 0 ...), or a padded read `h_in >= 0 ... ? x[..] :
   * 0.0f`): a convolution written with its kernel size as a parameter. A row
   * loop never needs that check. */
  for (int i = 0; i < pS->nGuard + pS->nSel; i++) {
    const ks_shape_guard *g = i < pS->nGuard ? &pS->aGuard[i] : &pS->aSel[i - pS->nGuard];
    long long vB;
    if (!poly_is_const(&g->bound, &vB)) continue;
    /* E >= 0, E > -1, or their negations E < 0, E <= -1 (a `continue` on the border) */
    int bLower = (g->eOp == CXBinaryOperator_GE && vB == 0) || (g->eOp == CXBinaryOperator_GT && vB == -1) ||
                 (g->eOp == CXBinaryOperator_LT && vB == 0) || (g->eOp == CXBinaryOperator_LE && vB == -1);
    if (bLower && position_plus_loop(pS, &g->expr)) {
      pS->eClass = KS_CLASS_STENCIL;
      pS->zWhy = "a window loop: the thread's position plus a loop offset, checked at the lower border";
      return;
    }
  }
  /* A window without border checks: a load at the thread's position plus a
   * loop's offset at the same stride (x[((n*C + c)*H + oy + ky)*W + ox +
   * kx]), a convolution with its kernel size as a parameter and no padding. */
  for (int i = 0; i < pS->nAccess; i++)
    if (pS->aAccess[i].eKind == KS_SHAPE_LOAD && !pS->aAccess[i].index.bIrregular &&
        window_offset(pS, &pS->aAccess[i].index)) {
      pS->eClass = KS_CLASS_STENCIL;
      pS->zWhy = "a window loop: the thread's position plus a loop offset at the same stride (no border checks)";
      return;
    }
  /* A loop nest in which an outer loop stores at its own positions and an
   * inner one accumulates (for j2: C[j1][j2] = 0; for i: C[j1][j2] += ...;
   * C[j2][j1] = C[j1][j2]): several outputs per thread, each from its own
   * reduction. Not a row, column or map kernel; gemm-like when two parallel
   * coordinates meet in the products (tested below). */
  int bNest = 0;
  for (int iO = 0; iO < pS->nLoop; iO++) {
    if (pS->aLoop[iO].bGridStride || !pS->aLoop[iO].bStoresGlobal || !loop_var_used(pS, iO)) continue;
    for (int iI = 0; iI < pS->nLoop; iI++) {
      if (!loop_inside(pS, iI, iO) || !loop_var_used(pS, iI)) continue;
      int bAcc = pS->aLoop[iI].nAccum > 0;
      for (int x = 0; x < pS->nAccess; x++)
        if (pS->aAccess[x].iLoop == iI && pS->aAccess[x].eKind == KS_SHAPE_RMW) bAcc = 1;
      if (bAcc) bNest = 1;
    }
  }
  /* Per-thread loops whose variable indexes memory. */
  for (int iL = 0; iL < pS->nLoop; iL++) {
    const ks_shape_loop *pL = &pS->aLoop[iL];
    if (pL->bGridStride || !loop_var_used(pS, iL)) continue;
    if (pL->nTrip >= 0 && pL->nTrip <= 16 && pL->nAccum == 0) continue; /* a fixed neighbourhood: below */
    int bAccum = pL->nAccum > 0;
    for (int i = 0; i < pS->nAccess && !bAccum; i++)
      if (pS->aAccess[i].iLoop == iL && pS->aAccess[i].eKind == KS_SHAPE_RMW) bAccum = 1;
    /* gemm: two loads along the loop with different parallel coordinates */
    unsigned mSeen = 0;
    int bGemm = 0, bRow = 0, bCol = 0;
    for (int i = 0; i < pS->nAccess; i++) {
      const ks_shape_access *a = &pS->aAccess[i];
      if (a->eKind != KS_SHAPE_LOAD || a->index.bIrregular) continue;
      coord_info ci = coords(pS, &a->index, pL->iAtom);
      if (!ci.bLoopUnit && !ci.bLoopScaled) continue;
      if (ci.mAny && mSeen && (ci.mAny & ~mSeen) && (mSeen & ~ci.mAny)) bGemm = 1;
      mSeen |= ci.mAny;
      if (ci.bLoopUnit && ci.mAny && !(ci.mUnit & ci.mAny)) bRow = 1;
      if (ci.bLoopUnit && ci.mAny && (ci.mUnit & (1u | 8u))) bRow = bRow || 0;
      if (ci.bLoopScaled && (ci.mUnit & 0x249u)) bCol = 1; /* PAR.x or threadIdx.x or i%n along the warp */
    }
    if (bGemm && bAccum && popcount(mSeen) >= 2) {
      pS->eClass = KS_CLASS_GEMM;
      pS->zWhy = "a reduction loop over products of two operands indexed by different parallel coordinates";
      return;
    }
    if (bNest) continue;
    if (bRow && (bAccum || pS->nLoop > 1)) {
      pS->eClass = KS_CLASS_ROW_REDUCE;
      pS->zWhy = "a per-thread loop over a contiguous dimension (unit stride in the loop variable)";
      return;
    }
    if (bCol && bAccum) {
      pS->eClass = KS_CLASS_COLUMN_WALK;
      pS->zWhy = "a per-thread loop down a strided dimension, consecutive threads on consecutive addresses";
      return;
    }
  }
  if (bNest) {
    pS->zWhy = "a per-thread loop nest: an outer loop stores several outputs, each from an inner reduction";
    return;
  }
  if (bIrregular) {
    pS->zWhy = "an index is not a polynomial over the parallel and loop indices";
    return;
  }
  /* Stencil: loads from one base at >= 3 offsets of one position. */
  for (int i = 0; i < pS->nAccess; i++) {
    const ks_shape_access *a = &pS->aAccess[i];
    if (a->eKind != KS_SHAPE_LOAD) continue;
    /* another access of the same array (a load, or the store of an in-place
     * shift) a neighbour step away */
    int nNeighbour = 0, nCell = 1;
    ks_poly aCell[8];
    for (int j = 0; j < pS->nAccess; j++) {
      const ks_shape_access *b = &pS->aAccess[j];
      if (j == i || b->iParam != a->iParam || b->index.bIrregular) continue;
      ks_poly dlt = poly_add(a->index, b->index, -1);
      if (neighbour_step(pS, &a->index, &dlt, 0)) {
        nNeighbour++;
      } else if (b->eKind == KS_SHAPE_LOAD && neighbour_step(pS, &a->index, &dlt, 1)) {
        /* distinct cells: z[2 * i + 1] read twice is one field, not two cells */
        int bSeen = 0;
        for (int x = 0; x < nCell - 1 && !bSeen; x++) bSeen = poly_add(aCell[x], dlt, -1).n == 0;
        if (!bSeen && nCell - 1 < 8) aCell[nCell++ - 1] = dlt;
      }
    }
    /* cells of a window combined into fewer outputs (not one slice per
     * output: q[i] = in[x], k[i] = in[x + NH * d], v[i] = ...) */
    if (nCell >= 3 && nCell > nStore) nNeighbour++;
    int bSmallLoop = 0;
    for (int iL = 0; iL < pS->nLoop; iL++)
      if (pS->aLoop[iL].nTrip > 1 && pS->aLoop[iL].nTrip <= 16 && loop_var_used(pS, iL)) bSmallLoop = 1;
    if (nNeighbour || (bSmallLoop && coords(pS, &a->index, -1).mAny)) {
      pS->eClass = KS_CLASS_STENCIL;
      pS->zWhy = "loads of one array at fixed offsets from the thread's position";
      return;
    }
  }
  /* Transpose / map: compare each store with the loads. */
  unsigned mStoreUnit = 0, mStoreAny = 0;
  for (int i = 0; i < pS->nAccess; i++) {
    const ks_shape_access *a = &pS->aAccess[i];
    if (a->eKind == KS_SHAPE_LOAD) continue;
    coord_info ci = coords(pS, &a->index, -1);
    mStoreUnit |= ci.mUnit;
    mStoreAny |= ci.mAny;
  }
  if (!mStoreAny) {
    pS->zWhy = "the stores do not depend on the thread's position";
    return;
  }
  for (int i = 0; i < pS->nAccess; i++) {
    const ks_shape_access *a = &pS->aAccess[i];
    if (a->eKind != KS_SHAPE_LOAD && !coords(pS, &a->index, -1).mAny) {
      pS->zWhy = "every thread writes one address (a reduction to a scalar)";
      return;
    }
  }
  if (pS->bShared || pS->bSync || pS->bWarp) {
    pS->zWhy = "shared memory, barriers or warp primitives: already a cooperative kernel";
    return;
  }
  if (layout_class(pS)) return;
  int bTranspose = 0;
  for (int i = 0; i < pS->nAccess; i++) {
    const ks_shape_access *a = &pS->aAccess[i];
    if (a->eKind != KS_SHAPE_LOAD) continue;
    coord_info ci = coords(pS, &a->index, -1);
    if (popcount(mStoreAny) >= 2 && ci.mAny == mStoreAny && ci.mUnit && mStoreUnit && !(ci.mUnit & mStoreUnit))
      bTranspose = 1;
  }
  if (bTranspose) {
    pS->eClass = KS_CLASS_TRANSPOSE;
    pS->zWhy = "loads and stores run along different unit-stride coordinates";
    return;
  }
  pS->eClass = KS_CLASS_MAP;
  pS->zWhy = "each thread reads and writes at its own position (plus broadcasts)";
}

/* ---------- uses of a kernel ---------- */

typedef struct use_walk {
  ks_tu *pTu;
  const char *zName;
  ks_launch *aL;
  int nL;
  ks_shape_use *a;
  int n;
  unsigned *aApi; /* offsets of references consumed by API launches */
  int nApi;
  int nDepth;
  int rc;
} use_walk;

static int is_kernel_ref(CXCursor c, const char *zName) {
  enum CXCursorKind e = kind(c);
  if (e != CXCursor_DeclRefExpr && e != CXCursor_OverloadedDeclRef) return 0;
  if (!spelled(c, zName)) return 0;
  CXCursor d = e == CXCursor_OverloadedDeclRef ? clang_getOverloadedDecl(c, 0) : clang_getCursorReferenced(c);
  if (clang_Cursor_isNull(d)) return 0;
  if (ks_ast_is_kernel(d)) return 1;
  CXCursor t = clang_getSpecializedCursorTemplate(d);
  return !clang_Cursor_isNull(t) && ks_ast_is_kernel(t);
}

static void push_use(use_walk *pW, ks_use_kind e, unsigned iOff, const char *zHow) {
  for (int i = 0; i < pW->n; i++)
    if (pW->a[i].iOffset == iOff) return;
  ks_shape_use *a = realloc(pW->a, sizeof(ks_shape_use) * (size_t)(pW->n + 1));
  if (!a) {
    pW->rc = ks_error_set(KS_ENOMEM, "out of memory");
    return;
  }
  pW->a = a;
  ks_shape_use *pU = &a[pW->n++];
  memset(pU, 0, sizeof *pU);
  pU->eKind = e;
  pU->iOffset = iOff;
  pU->zHow = ks_strdup(zHow);
  ks_ast_line_col(pW->pTu, iOff, &pU->iLine, NULL);
}

typedef struct ref_find {
  const char *zName;
  CXCursor found;
  int nDepth;
} ref_find;

static enum CXChildVisitResult ref_find_cb(CXCursor c, CXCursor parent, CXClientData p) {
  (void)parent;
  ref_find *pF = p;
  if (is_kernel_ref(c, pF->zName)) {
    pF->found = c;
    return CXChildVisit_Break;
  }
  if (pF->nDepth++ > 64) return CXChildVisit_Continue;
  return CXChildVisit_Recurse;
}

/* ---- the arguments an API launch passes ---- */

/* Through parentheses, implicit conversions and written casts ((void *)&x). */
static CXCursor strip_casts(CXCursor c) {
  for (int i = 0; i < 64; i++) {
    c = strip_parens(c);
    if (kind(c) != CXCursor_CStyleCastExpr && kind(c) != CXCursor_CXXStaticCastExpr &&
        kind(c) != CXCursor_CXXReinterpretCastExpr)
      return c;
    CXCursor n = only_expr(c);
    if (clang_Cursor_isNull(n)) return c;
    c = n;
  }
  return c;
}

typedef struct args_ref {
  CXCursor var;
  int nRefs, nPassed;
} args_ref;

static enum CXChildVisitResult args_ref_cb(CXCursor c, CXCursor parent, CXClientData p) {
  (void)parent;
  args_ref *pR = p;
  if (kind(c) == CXCursor_DeclRefExpr && clang_equalCursors(clang_getCursorReferenced(c), pR->var)) {
    pR->nRefs++;
    return CXChildVisit_Continue;
  }
  /* passed whole: a call's argument is the reference itself, through conversions */
  if (kind(c) == CXCursor_CallExpr) {
    int nA = clang_Cursor_getNumArguments(c);
    for (int i = 0; i < nA; i++) {
      CXCursor a = strip_casts(clang_Cursor_getArgument(c, (unsigned)i));
      if (kind(a) == CXCursor_DeclRefExpr && clang_equalCursors(clang_getCursorReferenced(a), pR->var)) pR->nPassed++;
    }
  }
  return CXChildVisit_Recurse;
}

/* The texts of `&x` elements of the initializer list init ("x"), or -1. */
static int args_of_list(ks_tu *pTu, CXCursor init, char ***pazArg, int *pnArg) {
  CXCursor *aK = NULL;
  int nK = 0, rc = 0;
  ks_ast_children(init, &aK, &nK);
  char **az = nK ? calloc((size_t)nK, sizeof(char *)) : NULL;
  if (nK && !az) rc = -1;
  for (int i = 0; i < nK && rc == 0; i++) {
    CXCursor e = strip_casts(aK[i]);
    CXCursor o = kind(e) == CXCursor_UnaryOperator && clang_getCursorUnaryOperatorKind(e) == CXUnaryOperator_AddrOf
                     ? only_expr(e)
                     : clang_getNullCursor();
    if (clang_Cursor_isNull(o) || kind(strip_parens(o)) != CXCursor_DeclRefExpr ||
        !(az[i] = ks_ast_text(pTu, strip_parens(o))))
      rc = -1;
  }
  free(aK);
  if (rc < 0 || nK == 0) {
    for (int i = 0; az && i < nK; i++) free(az[i]);
    free(az);
    return -1;
  }
  *pazArg = az;
  *pnArg = nK;
  return 0;
}

/* What API launch call passes the kernel (argument iKernel of call), when
 * it shows it (ks_shape_use's azArg). */
static void api_args(use_walk *pW, CXCursor call, const char *zFn, int iKernel, ks_shape_use *pU) {
  int nArgs = clang_Cursor_getNumArguments(call);
  if (!strcmp(zFn, "cudaLaunchKernelEx")) {
    if (nArgs <= iKernel + 1) return;
    char **az = calloc((size_t)(nArgs - iKernel - 1), sizeof(char *));
    if (!az) return;
    int n = 0, bOk = 1;
    for (int i = iKernel + 1; i < nArgs && bOk; i++)
      bOk = (az[n++] = ks_ast_text(pW->pTu, clang_Cursor_getArgument(call, (unsigned)i))) != NULL;
    if (!bOk) {
      for (int i = 0; i < n; i++) free(az[i]);
      free(az);
      return;
    }
    pU->azArg = az;
    pU->nArg = n;
    return;
  }
  if (strcmp(zFn, "cudaLaunchKernel") != 0 && strcmp(zFn, "cudaLaunchCooperativeKernel") != 0) return;
  if (nArgs < 4 || iKernel != 0) return;
  CXCursor a = strip_casts(clang_Cursor_getArgument(call, 3));
  if (kind(a) != CXCursor_DeclRefExpr) return;
  CXCursor v = clang_getCursorReferenced(a), *aK = NULL;
  int nK = 0;
  if (kind(v) != CXCursor_VarDecl) return;
  ks_ast_children(v, &aK, &nK);
  CXCursor init = nK >= 1 ? aK[nK - 1] : clang_getNullCursor();
  free(aK);
  if (clang_Cursor_isNull(init) || kind(init) != CXCursor_InitListExpr) return;
  /* the array is only ever passed whole: no element is re-seated after its initializer */
  CXCursor fn = clang_getCursorSemanticParent(v);
  args_ref r = {v, 0, 0};
  clang_visitChildren(fn, args_ref_cb, &r);
  if (r.nRefs != r.nPassed) return;
  args_of_list(pW->pTu, init, &pU->azArg, &pU->nArg);
}

static enum CXChildVisitResult use_cb(CXCursor c, CXCursor parent, CXClientData p) {
  (void)parent;
  use_walk *pW = p;
  if (pW->rc < 0) return CXChildVisit_Break;
  if (!ks_ast_in_main_file(c)) return CXChildVisit_Continue;
  enum CXCursorKind e = kind(c);
  if (e == CXCursor_CallExpr) {
    char *z = spell(c);
    int bApi = z && (strncmp(z, "cudaLaunch", 10) == 0);
    int bQuery = z && (strncmp(z, "cudaFunc", 8) == 0 || strncmp(z, "cudaOccupancy", 13) == 0);
    if (bApi || bQuery) {
      int nArgs = clang_Cursor_getNumArguments(c);
      for (int i = 0; i < nArgs; i++) {
        ref_find f = {pW->zName, clang_getNullCursor(), 0};
        CXCursor arg = clang_Cursor_getArgument(c, (unsigned)i);
        if (is_kernel_ref(arg, pW->zName)) f.found = arg;
        else clang_visitChildren(arg, ref_find_cb, &f);
        if (!clang_Cursor_isNull(f.found)) {
          long iOff = ks_ast_offset(pW->pTu, clang_getCursorLocation(f.found));
          int n0 = pW->n;
          if (iOff >= 0) push_use(pW, bApi ? KS_USE_API : KS_USE_QUERY, (unsigned)iOff, z);
          if (bApi && pW->n > n0) api_args(pW, c, z, i, &pW->a[pW->n - 1]);
        }
      }
    }
    free(z);
  }
  if (is_kernel_ref(c, pW->zName)) {
    long iOff = ks_ast_offset(pW->pTu, clang_getCursorLocation(c));
    if (iOff >= 0) {
      int bLaunch = 0;
      for (int i = 0; i < pW->nL; i++)
        if (pW->aL[i].iStart <= (unsigned)iOff && (unsigned)iOff < pW->aL[i].iCfgStart) bLaunch = 1;
      /* A reference inside the macro's expansion of a launch is not one we can edit. */
      CXFile fS;
      unsigned oS;
      clang_getSpellingLocation(clang_getCursorLocation(c), &fS, NULL, NULL, &oS);
      if (bLaunch && (unsigned)iOff != oS) bLaunch = 0;
      push_use(pW, bLaunch ? KS_USE_LAUNCH : KS_USE_OTHER, (unsigned)iOff, bLaunch ? "<<<>>>" : "reference");
    }
  }
  if (pW->nDepth > SHAPE_MAX_DEPTH) return CXChildVisit_Continue;
  pW->nDepth++;
  clang_visitChildren(c, use_cb, pW);
  pW->nDepth--;
  return CXChildVisit_Continue;
}

static int cmp_use(const void *a, const void *b) {
  const ks_shape_use *x = a, *y = b;
  return x->iOffset < y->iOffset ? -1 : x->iOffset > y->iOffset;
}

int ks_shape_uses(ks_tu *pTu, const char *zName, ks_shape_use **paOut, int *pnOut) {
  *paOut = NULL;
  *pnOut = 0;
  use_walk w;
  memset(&w, 0, sizeof w);
  w.pTu = pTu;
  w.zName = zName;
  int rc = ks_ast_launches(pTu, zName, &w.aL, &w.nL);
  if (rc < 0) return rc;
  ks_ast_visit_top(pTu, use_cb, &w);
  ks_ast_launches_free(w.aL, w.nL);
  if (w.rc < 0) {
    ks_shape_uses_free(w.a, w.n);
    return w.rc;
  }
  /* an API launch's reference was seen twice: keep the API kind */
  if (w.n > 1) qsort(w.a, (size_t)w.n, sizeof(ks_shape_use), cmp_use);
  *paOut = w.a;
  *pnOut = w.n;
  return KS_OK;
}

void ks_shape_uses_free(ks_shape_use *a, int n) {
  for (int i = 0; i < n; i++) {
    free(a[i].zHow);
    for (int j = 0; j < a[i].nArg; j++) free(a[i].azArg[j]);
    free(a[i].azArg);
  }
  free(a);
}

/* ---------- macro ranges ---------- */

typedef struct mac_walk {
  ks_tu *pTu;
  unsigned *a;
  int n, nAlloc;
} mac_walk;

static enum CXChildVisitResult mac_cb(CXCursor c, CXCursor parent, CXClientData p) {
  (void)parent;
  mac_walk *pM = p;
  if (kind(c) != CXCursor_MacroExpansion) return CXChildVisit_Continue;
  CXSourceRange r = clang_getCursorExtent(c);
  CXFile f1, f2;
  unsigned s, e;
  clang_getSpellingLocation(clang_getRangeStart(r), &f1, NULL, NULL, &s);
  clang_getSpellingLocation(clang_getRangeEnd(r), &f2, NULL, NULL, &e);
  if (!f1 || !clang_Location_isFromMainFile(clang_getRangeStart(r))) return CXChildVisit_Continue;
  if (pM->n + 2 > pM->nAlloc) {
    int nNew = pM->nAlloc ? 2 * pM->nAlloc : 64;
    unsigned *a = realloc(pM->a, sizeof(unsigned) * (size_t)nNew);
    if (!a) return CXChildVisit_Break;
    pM->a = a;
    pM->nAlloc = nNew;
  }
  pM->a[pM->n++] = s;
  pM->a[pM->n++] = e > s ? e : s;
  return CXChildVisit_Continue;
}

int ks_shape_macro_ranges(ks_tu *pTu, unsigned **paRange, int *pnRange) {
  mac_walk m = {pTu, NULL, 0, 0};
  clang_visitChildren(clang_getTranslationUnitCursor(pTu->pTu), mac_cb, &m);
  *paRange = m.a;
  *pnRange = m.n / 2;
  return KS_OK;
}

/* ---------- the model ---------- */

int ks_shape_thread_index(ks_tu *pTu, CXCursor kernel, CXCursor c, int *pbWide, int *pbNarrow) {
  ks_shape *pS = NULL;
  int iDim = -1;
  if (pbWide) *pbWide = 0;
  if (pbNarrow) *pbNarrow = 0;
  pS = calloc(1, sizeof *pS);
  if (!pS) return -1;
  /* Evaluate c in the kernel's context; locals never written are followed
   * through their initializers (eval does it when it meets one). */
  sctx ctx;
  memset(&ctx, 0, sizeof ctx);
  ctx.pTu = pTu;
  ctx.pS = pS;
  ctx.kernel = kernel;
  int nArgs = clang_Cursor_getNumArguments(kernel);
  kids k = get_kids(kernel);
  CXCursor *aP = calloc((size_t)k.n + 1, sizeof(CXCursor));
  CXCursor body = clang_getNullCursor();
  for (int i = 0; aP && i < k.n; i++) {
    if (kind(k.a[i]) == CXCursor_ParmDecl) aP[ctx.nParam++] = k.a[i];
    if (kind(k.a[i]) == CXCursor_CompoundStmt) body = k.a[i];
  }
  (void)nArgs;
  free(k.a);
  ctx.aParam = aP;
  if (!clang_Cursor_isNull(body)) {
    wpass w = {&ctx, 0};
    clang_visitChildren(body, write_cb, &w);
  }
  CXCursor e = strip_parens(c);
  ks_poly p = normalize(&ctx, eval(&ctx, e, 0));
  if (!p.bIrregular && p.n == 1 && p.t[0].n == 1 && p.t[0].coef == 1 &&
      pS->aAtom[p.t[0].a[0]].eKind == KS_ATOM_PAR) {
    iDim = pS->aAtom[p.t[0].a[0]].iDim;
    /* width: the type of the blockIdx * blockDim product */
    if (pbWide || pbNarrow) {
      int bWide = int_bits(clang_getCursorType(e)) == 64 && !p.bNarrowMul;
      if (pbWide) *pbWide = bWide;
      if (pbNarrow) *pbNarrow = p.bNarrowMul && int_bits(clang_getCursorType(e)) == 64;
    }
  }
  free(ctx.aVar);
  free(aP);
  ks_shape_free(pS);
  return iDim;
}

/* The class of a kernel whose indices are clamped to the edge is that of its
 * interior, where every clamp is the identity (a clamp-to-edge blur is a
 * stencil): classify sees the unclamped indices. */
static void classify_interior(ks_shape *pS) {
  for (int i = 0; i < pS->nAccess; i++)
    if (pS->aAccess[i].bClamped) {
      ks_poly t = pS->aAccess[i].index;
      pS->aAccess[i].index = pS->aAccess[i].unclamped;
      pS->aAccess[i].unclamped = t;
    }
  classify(pS);
  for (int i = 0; i < pS->nAccess; i++)
    if (pS->aAccess[i].bClamped) {
      ks_poly t = pS->aAccess[i].index;
      pS->aAccess[i].index = pS->aAccess[i].unclamped;
      pS->aAccess[i].unclamped = t;
    }
}

int ks_shape_build(ks_tu *pTu, CXCursor kernel, ks_shape **ppOut) {
  *ppOut = NULL;
  ks_shape *pS = calloc(1, sizeof *pS);
  if (!pS) return ks_error_set(KS_ENOMEM, "out of memory");
  pS->zKernel = spell(kernel);
  sctx ctx;
  memset(&ctx, 0, sizeof ctx);
  ctx.pTu = pTu;
  ctx.pS = pS;
  ctx.kernel = kernel;
  kids k = get_kids(kernel);
  ctx.aParam = calloc((size_t)k.n + 1, sizeof(CXCursor));
  CXCursor body = clang_getNullCursor();
  for (int i = 0; ctx.aParam && i < k.n; i++) {
    if (kind(k.a[i]) == CXCursor_ParmDecl) ctx.aParam[ctx.nParam++] = k.a[i];
    if (kind(k.a[i]) == CXCursor_CompoundStmt) body = k.a[i];
  }
  free(k.a);
  if (!ctx.aParam) {
    ks_shape_free(pS);
    return ks_error_set(KS_ENOMEM, "out of memory");
  }
  if (!clang_Cursor_isNull(body)) {
    wpass w = {&ctx, 0};
    clang_visitChildren(body, write_cb, &w);
    walk(&ctx, body, 0);
  }
  /* Parallel dimensions used. */
  for (int i = 0; i < pS->nAtom; i++) {
    const ks_atom *a = &pS->aAtom[i];
    if ((a->eKind == KS_ATOM_PAR || a->eKind == KS_ATOM_TID || a->eKind == KS_ATOM_BID) && a->iDim >= 0 &&
        a->iDim < 3 && a->iDim + 1 > pS->nPar)
      pS->nPar = a->iDim + 1;
  }
  for (int d = 0; d < 3; d++) {
    pS->aPar[d].iDim = d;
    for (int i = 0; i < pS->nAtom; i++)
      if (pS->aAtom[i].eKind == KS_ATOM_PAR && pS->aAtom[i].iDim == d) pS->aPar[d].bUsed = 1;
  }
  classify_interior(pS);
  free(ctx.aVar);
  free(ctx.aParam);
  if (ctx.rc < 0) {
    ks_shape_free(pS);
    return ctx.rc;
  }
  *ppOut = pS;
  return KS_OK;
}

int ks_shape_is_cache_load(const char *zName) {
  static const char *const azLd[] = {"__ldg", "__ldca", "__ldcg", "__ldcs", "__ldlu", "__ldcv", NULL};
  for (int i = 0; azLd[i]; i++)
    if (strcmp(zName, azLd[i]) == 0) return 1;
  return 0;
}

void ks_shape_free(ks_shape *p) {
  if (!p) return;
  free(p->zKernel);
  for (int i = 0; i < p->nAtom; i++) free(p->aAtom[i].zName), free(p->aAtom[i].pNum), free(p->aAtom[i].pDen);
  free(p->aAtom);
  for (int i = 0; i < p->nGuard; i++) free(p->aGuard[i].zBound);
  free(p->aGuard);
  for (int i = 0; i < p->nSel; i++) free(p->aSel[i].zBound);
  free(p->aSel);
  for (int i = 0; i < p->nLoop; i++) {
    free(p->aLoop[i].zVar);
    for (int j = 0; j < p->aLoop[i].nAccum; j++) free(p->aLoop[i].azAccum[j]);
  }
  free(p->aLoop);
  for (int i = 0; i < p->nAccess; i++) free(p->aAccess[i].zElemType);
  free(p->aAccess);
  free(p->aPtr);
  free(p->aClamp);
  free(p->aClampVar);
  for (int i = 0; i < p->nCall; i++) free(p->azCall[i]);
  free(p->azCall);
  ks_shape_uses_free(p->aUse, p->nUse);
  free(p);
}

const char *ks_shape_class_name(ks_shape_class e) {
  static const char *const az[] = {"map", "row-reduce", "column-walk", "gemm", "stencil", "transpose", "gather", "other"};
  return (unsigned)e < 8 ? az[e] : "other";
}

char *ks_shape_poly_text(const ks_shape *p, const ks_poly *pPoly) {
  if (pPoly->bIrregular) return ks_strdup(pPoly->bIndirect ? "indirect" : "irregular");
  ks_buf b = KS_BUF_INIT;
  if (pPoly->n == 0) ks_buf_puts(&b, "0");
  for (int i = 0; i < pPoly->n; i++) {
    const ks_mono *m = &pPoly->t[i];
    long long c = m->coef;
    if (i) ks_buf_puts(&b, c < 0 ? " - " : " + ");
    else if (c < 0) ks_buf_puts(&b, "-");
    if (c < 0) c = -c;
    int bCoef = c != 1 || m->n == 0;
    if (bCoef) ks_buf_printf(&b, "%lld", c);
    for (int x = 0; x < m->n; x++) ks_buf_printf(&b, "%s%s", (x || bCoef) ? "*" : "", p->aAtom[m->a[x]].zName);
  }
  return ks_buf_detach(&b);
}

/* ---- appended for rule column-walk: the built-in recognizer, public ---- */

int ks_shape_builtin(CXCursor c, int *piDim) {
  int d = -1, e = builtin_atom(c, &d);
  if (e >= 0 && piDim) *piDim = d;
  return e;
}

int ks_shape_builtin_ref(CXCursor c) {
  static const char *const az[] = {"threadIdx", "blockIdx", "blockDim", "gridDim"};
  if (clang_getCursorKind(c) != CXCursor_DeclRefExpr) return -1;
  CXString s = clang_getCursorSpelling(clang_getCursorReferenced(c));
  const char *z = clang_getCString(s);
  int i = 3;
  while (i >= 0 && !(z && strcmp(z, az[i]) == 0)) i--;
  clang_disposeString(s);
  return i;
}

/* ---- an index that is the parallel index itself ----
 *
 * The digits of a flat index recombined (b = i / (T * V), t = (i / V) % T,
 * v = i % V; b * T * V + t * V + v) are i again. Each digit is rewritten over
 * quotients x / n with two identities of C's truncating division, exact
 * whatever the signs (n, a, b != 0):
 *     x % n = x - (x / n) * n          (C11 6.5.5p6)
 *     (x / a) / b = x / (a * b)        (trunc(trunc(x/a)/b) = trunc(x/(ab)))
 * and the polynomial over the quotients left must be PAR.d alone. The
 * divisors are nonzero and the products do not overflow wherever the kernel
 * computes them (else its own behaviour is undefined): digits computed in
 * unsigned or narrowed arithmetic, where wrapping is defined, are refused. */

#define QUOT_MAX 32

typedef struct quot_ctx {
  const ks_shape *pS;
  ks_poly aNum[QUOT_MAX], aDen[QUOT_MAX]; /* quotient k is atom pS->nAtom + k */
  int nQ;
  const char *zWhy;
} quot_ctx;

static int poly_same(const ks_poly *a, const ks_poly *b) {
  if (a->bIrregular || b->bIrregular) return 0;
  ks_poly d = poly_add(*a, *b, -1);
  return !d.bIrregular && d.n == 0;
}

static ks_poly quot_expand(quot_ctx *X, const ks_poly *p, int nDepth);

/* The atom of num / den, nested quotients folded into one. */
static ks_poly quot_of(quot_ctx *X, ks_poly num, ks_poly den) {
  int nA = X->pS->nAtom;
  if (num.n == 1 && num.t[0].n == 1 && num.t[0].coef == 1 && num.t[0].a[0] >= nA) {
    int k = num.t[0].a[0] - nA;
    den = poly_mul(X->aDen[k], den);
    num = X->aNum[k];
  }
  if (num.bIrregular || den.bIrregular) return poly_irregular();
  for (int k = 0; k < X->nQ; k++)
    if (poly_same(&X->aNum[k], &num) && poly_same(&X->aDen[k], &den)) return poly_atom(nA + k);
  if (X->nQ == QUOT_MAX) return poly_irregular();
  X->aNum[X->nQ] = num;
  X->aDen[X->nQ] = den;
  return poly_atom(nA + X->nQ++);
}

static ks_poly quot_atom(quot_ctx *X, int iAtom, int nDepth) {
  const ks_atom *a = &X->pS->aAtom[iAtom];
  if (a->eKind != KS_ATOM_DERIVED) return poly_atom(iAtom);
  if (!a->pNum || !a->pDen || nDepth > 16) {
    if (!X->zWhy) X->zWhy = "its index holds a thread-variant value the model does not follow (not a digit i / n or i % n)";
    return poly_irregular();
  }
  if (a->bWrap) {
    if (!X->zWhy) X->zWhy = "a digit of its index is computed in unsigned or narrowed arithmetic, which may wrap";
    return poly_irregular();
  }
  ks_poly num = quot_expand(X, a->pNum, nDepth + 1), den = quot_expand(X, a->pDen, nDepth + 1);
  ks_poly q = quot_of(X, num, den);
  return a->bRem ? poly_add(num, poly_mul(q, den), -1) : q;
}

static ks_poly quot_expand(quot_ctx *X, const ks_poly *p, int nDepth) {
  if (p->bIrregular) return poly_irregular();
  ks_poly r = poly_const(0);
  for (int i = 0; i < p->n && !r.bIrregular; i++) {
    ks_poly m = poly_const(p->t[i].coef);
    for (int x = 0; x < p->t[i].n; x++) m = poly_mul(m, quot_atom(X, p->t[i].a[x], nDepth));
    r = poly_add(r, m, 1);
  }
  return r;
}

const char *ks_shape_index_is_par(const ks_shape *pS, const ks_poly *q, int iDim) {
  if (q->bIndirect) return "its index depends on a value loaded from memory";
  if (q->bIrregular) return "its index is not a polynomial of the thread's position";
  if (q->bWrap) return "its index is computed in unsigned or narrowed arithmetic, which may wrap";
  quot_ctx *X = malloc(sizeof *X);
  if (!X) return "out of memory";
  X->pS = pS;
  X->nQ = 0;
  X->zWhy = NULL;
  ks_poly e = quot_expand(X, q, 0);
  const char *zWhy = X->zWhy;
  free(X);
  if (zWhy) return zWhy;
  if (e.bIrregular) return "its index is too large a polynomial for the model";
  if (e.n == 1 && e.t[0].coef == 1 && e.t[0].n == 1 && e.t[0].a[0] < pS->nAtom &&
      pS->aAtom[e.t[0].a[0]].eKind == KS_ATOM_PAR && pS->aAtom[e.t[0].a[0]].iDim == iDim)
    return NULL;
  return "its index is not the global index (its digits do not recombine to it)";
}

int ks_shape_index_digits_only(const ks_shape *pS, const ks_poly *q, int iDim) {
  if (q->bIrregular || q->bIndirect) return 0;
  for (int i = 0; i < q->n; i++)
    for (int x = 0; x < q->t[i].n; x++) {
      const ks_atom *a = &pS->aAtom[q->t[i].a[x]];
      if (a->eKind == KS_ATOM_UNIFORM || a->eKind == KS_ATOM_BDIM || a->eKind == KS_ATOM_GDIM) continue;
      if (a->eKind != KS_ATOM_DERIVED || a->iDimOf != iDim || !a->pNum) return 0;
    }
  return 1;
}
