/* conv-igemm.c — rule `conv-igemm`: a direct FP32 convolution written one
 * thread per output (NCHW input [batch][cin][H][W], weights
 * [cout][cin][KH][KW], output [batch][cout][OH][OW], the output index
 * flattened and split by / and %, loops ci, ky, kx, the input bounds checked
 * by `continue` or by an `if` around the tap) becomes a call of the shipped
 * template share/kernelskill/templates/ks_conv_f32.cuh (ks_conv::conv_block:
 * an implicit GEMM, M = cout, N = batch*OH*OW, K = cin*KH*KW, im2col gathered
 * into shared memory with cp.async, register tiles), with the tile
 * configuration of param config; its launches get the template's grid and
 * block.
 *
 * Recognition is on the kernel-shape model (features/shape.h): the loops, the
 * accesses' index polynomials, the guards' compared polynomials, the split of
 * the flat index. The geometry (stride, padding, dilation, sizes; constants
 * or parameters) is read off those polynomials, then checked: every index
 * polynomial is evaluated against the NCHW formulas at every thread and tap
 * of several random draws of the parameters, and the output index must hit
 * every output once. NHWC convolutions (x[nb][iy][ix][ci], weights
 * [co][ky][kx][ci], loops ky, kx, ci) get the template's NHWC form, the
 * layout told by the loop the bound checks never name (the channel's: the
 * outermost, or the innermost). Each output's sum keeps the kernel's order (ci, ky, kx; NHWC ky, kx, ci),
 * so results are bitwise the original's (docs/rules/conv-igemm.md). Also
 * taken: a loop over the images around the nest on a 2-D grid (blockIdx.z
 * the channel; the batch one more output coordinate), and taps without bound
 * checks whose window is proven inside the input (a valid convolution, its
 * output size computed from the input's). */
#include "features/ast.h"
#include "features/shape.h"
#include "kernelskill/rewrite.h"
#include "rewrite/rwutil.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A tile configuration: the template's parameters. */
typedef struct cv_cfg {
  int BM, BN, BK, WM, WN, TM, TN, S;
} cv_cfg;

#define CV_DEFAULT_CONFIG "64x128x16_w32x64_t8x8_s3"
#define CV_STATIC_SMEM (48 * 1024)

/* ks_conv::config::SMEM: the stages of both operands, and the B row table (a long long and an int per entry) */
static long cfg_smem(const cv_cfg *c) { return (long)c->S * c->BK * ((c->BM + 4 + c->BN + 4) * 4 + 12); }
static int cfg_threads(const cv_cfg *c) { return (c->BM / c->WM) * (c->BN / c->WN) * 32; }

/* Parse "BMxBNxBK_wWMxWN_tTMxTN_sS" and check it against ks_conv::config's
 * constraints. NULL, or why it is refused. */
static const char *parse_cfg(const char *z, cv_cfg *c) {
  char cEnd = 0;
  if (sscanf(z, "%dx%dx%d_w%dx%d_t%dx%d_s%d%c", &c->BM, &c->BN, &c->BK, &c->WM, &c->WN, &c->TM, &c->TN, &c->S,
             &cEnd) != 8)
    return "not of the form BMxBNxBK_wWMxWN_tTMxTN_sS (e.g. 64x128x16_w32x64_t8x8_s3)";
  if (c->BM < 16 || c->BM > 256 || c->BN < 16 || c->BN > 256 || c->BK < 4 || c->BK > 32 || c->BK % 4)
    return "BM and BN must be 16..256, BK 4..32 and a multiple of 4";
  if (c->WM <= 0 || c->WN <= 0 || c->TM <= 0 || c->TN <= 0 || c->BM % c->WM || c->BN % c->WN || c->WM % c->TM ||
      c->WN % c->TN)
    return "the block tile must be whole warp tiles, a warp tile whole thread tiles";
  if (c->TM % 4 || c->TN % 4 || c->TM * c->TN > 128) return "TM and TN must be multiples of 4, TM*TN at most 128";
  if ((c->WM / c->TM) * (c->WN / c->TN) != 32) return "a warp tile must hold exactly 32 thread tiles";
  int nT = cfg_threads(c);
  if (nT > 1024) return "more than 1024 threads per block";
  if (nT % c->BN || (c->BK * c->BN) % nT || (c->BK * c->BM) % nT)
    return "the threads must be a multiple of BN and divide BK*BN and BK*BM (whole rows of one B column each)";
  if (c->S < 2 || c->S > 8) return "stages must be 2..8";
  if (cfg_smem(c) > CV_STATIC_SMEM) return "over 48 KB of shared memory (this rule uses static shared memory)";
  return NULL;
}

/* ---- polynomials of the shape model, as this rule reads them ---- */

static int is_param_atom(const ks_shape *pS, int a) {
  return pS->aAtom[a].eKind == KS_ATOM_UNIFORM && pS->aAtom[a].iRef >= 0;
}

/* Every atom of p is a kernel parameter (so its text is valid in the new body and at the launches). */
static int poly_of_params(const ks_shape *pS, const ks_poly *p) {
  if (p->bIrregular || p->bIndirect) return 0;
  for (int i = 0; i < p->n; i++)
    for (int j = 0; j < p->t[i].n; j++)
      if (!is_param_atom(pS, p->t[i].a[j])) return 0;
  return 1;
}

static int mono_has(const ks_mono *m, int a) {
  int n = 0;
  for (int j = 0; j < m->n; j++) n += m->a[j] == a;
  return n;
}

/* The monomials of p holding atom a, a taken out (*pbOk = 0 when a appears squared). */
static ks_poly poly_coef(const ks_poly *p, int a, int *pbOk) {
  ks_poly r;
  memset(&r, 0, sizeof r);
  for (int i = 0; i < p->n; i++) {
    int n = mono_has(&p->t[i], a);
    if (n > 1) *pbOk = 0;
    if (n != 1) continue;
    ks_mono m = p->t[i];
    int k = 0;
    for (int j = 0; j < m.n; j++)
      if (m.a[j] != a) m.a[k++] = m.a[j];
    m.n = k;
    r.t[r.n++] = m;
  }
  return r;
}

/* The monomials of p holding none of the atoms in aA[0..nA). */
static ks_poly poly_without(const ks_poly *p, const int *aA, int nA) {
  ks_poly r;
  memset(&r, 0, sizeof r);
  for (int i = 0; i < p->n; i++) {
    int bHas = 0;
    for (int j = 0; j < nA; j++) bHas |= aA[j] >= 0 && mono_has(&p->t[i], aA[j]);
    if (!bHas) r.t[r.n++] = p->t[i];
  }
  return r;
}

static ks_poly poly_neg(ks_poly p) {
  for (int i = 0; i < p.n; i++) p.t[i].coef = -p.t[i].coef;
  return p;
}

/* ---- exact polynomial arithmetic (atoms sorted in a monomial, like
 * monomials merged); -1 when a result outgrows ks_poly ---- */

static int mono_same_atoms(const ks_mono *a, const ks_mono *b) {
  if (a->n != b->n) return 0;
  for (int j = 0; j < a->n; j++)
    if (a->a[j] != b->a[j]) return 0;
  return 1;
}

/* *p += m */
static int poly_add_mono(ks_poly *p, const ks_mono *m) {
  for (int i = 0; i < p->n; i++)
    if (mono_same_atoms(&p->t[i], m)) {
      p->t[i].coef += m->coef;
      if (p->t[i].coef == 0) p->t[i] = p->t[--p->n];
      return 0;
    }
  if (m->coef == 0) return 0;
  if (p->n >= KS_POLY_MAX) return -1;
  p->t[p->n++] = *m;
  return 0;
}

/* *pOut = a + k * b */
static int poly_lin(const ks_poly *a, const ks_poly *b, long long k, ks_poly *pOut) {
  ks_poly r = *a;
  for (int i = 0; i < b->n; i++) {
    ks_mono m = b->t[i];
    m.coef *= k;
    if (poly_add_mono(&r, &m) < 0) return -1;
  }
  *pOut = r;
  return 0;
}

/* *pOut = a * b */
static int poly_mul(const ks_poly *a, const ks_poly *b, ks_poly *pOut) {
  ks_poly r;
  memset(&r, 0, sizeof r);
  for (int i = 0; i < a->n; i++)
    for (int j = 0; j < b->n; j++) {
      const ks_mono *x = &a->t[i], *y = &b->t[j];
      if (x->n + y->n > KS_MONO_MAX) return -1;
      ks_mono m = {x->coef * y->coef, 0, {0}};
      int u = 0, v = 0;
      while (u < x->n || v < y->n) /* merge the sorted atoms */
        m.a[m.n++] = v >= y->n || (u < x->n && x->a[u] <= y->a[v]) ? x->a[u++] : y->a[v++];
      if (poly_add_mono(&r, &m) < 0) return -1;
    }
  *pOut = r;
  return 0;
}

static int poly_equal(const ks_poly *a, const ks_poly *b) {
  ks_poly d;
  return poly_lin(a, b, -1, &d) == 0 && d.n == 0;
}

/* m / q for a monomial q dividing m (its atoms among m's, its coefficient
 * dividing m's): 0, else -1. */
static int mono_div(const ks_mono *m, const ks_mono *q, ks_mono *pOut) {
  if (q->coef == 0 || m->coef % q->coef) return -1;
  ks_mono r = *m;
  r.coef /= q->coef;
  for (int j = 0; j < q->n; j++) {
    int k = 0;
    while (k < r.n && r.a[k] != q->a[j]) k++;
    if (k == r.n) return -1;
    memmove(&r.a[k], &r.a[k + 1], (size_t)(r.n - k - 1) * sizeof r.a[0]);
    r.n--;
  }
  *pOut = r;
  return 0;
}

/* The atoms of p that are neither parameters nor constants nor in aSkip: the
 * thread-variant ones. Returns how many distinct; *piOne the first. */
static int variant_atoms(const ks_shape *pS, const ks_poly *p, const int *aSkip, int nSkip, int *piOne) {
  int aSeen[16], n = 0;
  for (int i = 0; i < p->n; i++)
    for (int j = 0; j < p->t[i].n; j++) {
      int a = p->t[i].a[j], bSkip = is_param_atom(pS, a);
      for (int s = 0; s < nSkip; s++) bSkip |= aSkip[s] == a;
      for (int s = 0; s < n; s++) bSkip |= aSeen[s] == a;
      if (!bSkip && n < 16) aSeen[n++] = a;
    }
  if (piOne) *piOne = n ? aSeen[0] : -1;
  return n;
}

/* Text of a polynomial over parameters: each parameter as zArg[iRef]
 * parenthesized when azArg is given (a launch's arguments), else its name. */
static int poly_text(ks_buf *pB, const ks_shape *pS, const ks_poly *p, char *const *azArg) {
  int rc = ks_buf_puts(pB, "(");
  if (p->n == 0) rc = ks_buf_puts(pB, "0");
  for (int i = 0; rc >= 0 && i < p->n; i++) {
    const ks_mono *m = &p->t[i];
    long long c = m->coef;
    if (i > 0) rc = ks_buf_puts(pB, c < 0 ? " - " : " + ");
    else if (c < 0) rc = ks_buf_puts(pB, "-");
    if (c < 0) c = -c;
    if (rc >= 0 && (c != 1 || m->n == 0)) rc = ks_buf_printf(pB, "%lld%s", c, m->n ? " * " : "");
    for (int j = 0; rc >= 0 && j < m->n; j++) {
      const ks_atom *a = &pS->aAtom[m->a[j]];
      if (azArg) rc = ks_buf_printf(pB, "%s(%s)", j ? " * " : "", azArg[a->iRef]);
      else rc = ks_buf_printf(pB, "%s%s", j ? " * " : "", a->zName);
    }
  }
  if (rc >= 0) rc = ks_buf_puts(pB, ")");
  return rc;
}

/* ---- numeric evaluation: the check of what was read off ---- */

typedef struct cv_vals {
  const ks_shape *pS;
  long long *aV;  /* per atom: its value, for parameters, loop variables and PAR.x */
  int bBad;       /* an atom with no value, a division by zero */
} cv_vals;

static long long eval_poly(cv_vals *pV, const ks_poly *p);

static long long eval_atom(cv_vals *pV, int a) {
  const ks_atom *pA = &pV->pS->aAtom[a];
  if (pA->eKind == KS_ATOM_DERIVED) {
    if (!pA->pNum || !pA->pDen) return pV->bBad = 1, 0;
    long long n = eval_poly(pV, pA->pNum), d = eval_poly(pV, pA->pDen);
    if (d == 0) return pV->bBad = 1, 0;
    return pA->bRem ? n % d : n / d;
  }
  return pV->aV[a];
}

static long long eval_poly(cv_vals *pV, const ks_poly *p) {
  if (p->bIrregular) return pV->bBad = 1, 0;
  unsigned long long r = 0; /* wraps like the machine would; equality is what is checked */
  for (int i = 0; i < p->n; i++) {
    unsigned long long m = (unsigned long long)p->t[i].coef;
    for (int j = 0; j < p->t[i].n; j++) m *= (unsigned long long)eval_atom(pV, p->t[i].a[j]);
    r += m;
  }
  return (long long)r;
}

/* ---- the match ---- */

typedef struct cv_match {
  int iX, iW, iY;                 /* parameters: input, weights, output */
  int iBias;                      /* the accumulator starts from bias[co]: its parameter, or -1 */
  int aLoopAtom[3];               /* ci, ky, kx */
  int iOx, iOy, iCo;              /* output-coordinate atoms */
  ks_poly pxIdx, pwIdx, pyIdx;    /* the three accesses' indices */
  ks_poly total;                  /* the flat index's bound */
  ks_poly cin, kh, kw, H, W, OH, OW, cout, batch, sy, sx, py, px, dy, dx;
  ks_poly ey, ex;                 /* the bounded row and column of the input */
  int b3D;                        /* ox, oy on a 2-D grid, co = blockIdx.z % cout, nb = blockIdx.z / cout */
  int bRelu;                      /* the store is `y[index] = fmaxf(acc, 0.0f)` */
  int bNHWC;                      /* x[nb][iy][ix][ci], w[co][ky][kx][ci], y[nb][oy][ox][co], loops ky, kx, ci */
  int iCoutParam;                 /* 3-D: cout's parameter (the launch's grid z is batch times its argument) */
  int iBatchAtom;                 /* a loop over the images around the nest (blockIdx.z the channel): its atom, or -1 */
  int bUnchecked;                 /* no bound checks: the window proven inside the input (a valid convolution) */
  unsigned iBodyStart, iBodyEnd, iKernelStart;
} cv_match;

/* A comparison the tap is under: guard pG, negated (a `continue` guard). */
typedef struct cv_cons {
  const ks_shape_guard *pG;
  int bNeg;
} cv_cons;

typedef struct cv_walk {
  ks_rewrite *p;
  ks_tu *pTu;
  ks_shape *pS;
  CXCursor kernel;
  cv_cons aC[16];
  int nC;
  int nDepth;           /* loops entered */
  int nBase;            /* loops around the nest ci, ky, kx: 1 with a loop over the images, else 0 */
  int nLoopsSeen;
  CXCursor acc;         /* the accumulator's VarDecl */
  CXCursor accInit;     /* its initializer when not 0 (a load, the bias), else null */
  int bAcc, bStore, bTotal;
  cv_cons aAccC[16];
  int nAccC;
  const ks_poly *pTotal;
  int b3D;              /* a 2-D grid (x, y) over the output plane, blockIdx.z the image and channel */
  const ks_poly *apPlane[2]; /* 3-D: the guards' bounds on PAR.x (OW) and PAR.y (OH) */
  int rc;               /* a refusal already set */
  int bRelu;            /* the store is `y[index] = fmaxf(acc, 0.0f)` (either order) */
  struct {              /* a tap's factor loaded into a float local first (`float v = x[..];`, */
    CXCursor decl, load; /* `float v = in ? x[..] : 0.0f;`): the load, and the bounds it is under */
    cv_cons aC[16];
    int nC;
  } aTmp[4];
  int nTmp;
} cv_walk;

/* Is c `fmaxf(acc, 0.0f)` or `fmaxf(0.0f, acc)` (a ReLU of the accumulator)? */
static int relu_of(ks_tu *pTu, CXCursor c, CXCursor acc) {
  c = ks_rw_strip(c);
  if (clang_getCursorKind(c) != CXCursor_CallExpr || clang_Cursor_getNumArguments(c) != 2) return 0;
  char *z = ks_rw_spelling(c);
  int bMax = z && !strcmp(z, "fmaxf");
  free(z);
  for (int i = 0; bMax && i < 2; i++) {
    CXCursor a = clang_Cursor_getArgument(c, (unsigned)i), o = ks_rw_strip(clang_Cursor_getArgument(c, (unsigned)(1 - i)));
    if (!ks_rw_is_ref_to(a, acc) || clang_getCursorKind(o) != CXCursor_FloatingLiteral) continue;
    char *zo = ks_rw_squash_cursor(pTu, o);
    int bZero = zo && (!strcmp(zo, "0.0f") || !strcmp(zo, "0.f") || !strcmp(zo, "0.0F"));
    free(zo);
    if (bZero) return 1;
  }
  return 0;
}

static int cv_refuse_at(cv_walk *pW, CXCursor c, const char *zWhat) {
  unsigned s = 0, e = 0, iLine = 0;
  if (ks_ast_extent(pW->pTu, c, &s, &e) == 0) ks_ast_line_col(pW->pTu, s, &iLine, NULL);
  pW->rc = ks_rewrite_refuse(pW->p, "%s:%u: kernel '%s' is not a direct convolution this rule rewrites: %s",
                             pW->pTu->zFile, iLine, ks_rewrite_kernel_name(pW->p), zWhat);
  return -1;
}

static const ks_shape_guard *guard_at(cv_walk *pW, CXCursor c) {
  unsigned s, e;
  if (ks_ast_extent(pW->pTu, c, &s, &e) != 0) return NULL;
  for (int i = 0; i < pW->pS->nGuard; i++)
    if (pW->pS->aGuard[i].iOffset == s) return &pW->pS->aGuard[i];
  for (int i = 0; i < pW->pS->nSel; i++) /* a padded read's `in ? x[i] : 0.0f` */
    if (pW->pS->aSel[i].iOffset == s) return &pW->pS->aSel[i];
  return NULL;
}

/* Push the comparisons of cond, a tree of eJoin (|| or &&) over comparisons
 * the model recorded as guards. */
static int push_leaves(cv_walk *pW, CXCursor cond, enum CXBinaryOperatorKind eJoin, int bNeg) {
  cond = ks_rw_strip(cond);
  if (clang_getCursorKind(cond) == CXCursor_BinaryOperator && clang_getCursorBinaryOperatorKind(cond) == eJoin) {
    CXCursor k[2];
    if (ks_rw_kids(cond, k, 2) != 2) return cv_refuse_at(pW, cond, "a condition it cannot read");
    if (push_leaves(pW, k[0], eJoin, bNeg) < 0) return -1;
    return push_leaves(pW, k[1], eJoin, bNeg);
  }
  const ks_shape_guard *pG = guard_at(pW, cond);
  if (!pG || pG->expr.bIrregular || pG->bound.bIrregular)
    return cv_refuse_at(pW, cond,
                        eJoin == CXBinaryOperator_LOr
                            ? "a `continue` condition that is not an || of comparisons of an index with a bound"
                            : "an `if` condition that is not an && of comparisons of an index with a bound");
  if (pW->nC >= 16) return cv_refuse_at(pW, cond, "more than 16 bound checks");
  pW->aC[pW->nC].pG = pG;
  pW->aC[pW->nC].bNeg = bNeg;
  pW->nC++;
  return 0;
}

static int is_zero_literal(ks_tu *pTu, CXCursor c) {
  c = ks_rw_strip(c);
  enum CXCursorKind e = clang_getCursorKind(c);
  if (e != CXCursor_FloatingLiteral && e != CXCursor_IntegerLiteral) return 0;
  char *z = ks_rw_squash_cursor(pTu, c);
  int b = z && strspn(z, "0.") == strcspn(z, "fF") && strcspn(z, "fF") > 0;
  free(z);
  return b;
}

static int walk_stmt(cv_walk *pW, CXCursor c);

/* The guard compares the flat index itself (PAR.x, not i + 1 or 2 * i) with its bound. */
static int is_flat_guard(const ks_shape *pS, const ks_shape_guard *pG) {
  const ks_poly *e = &pG->expr;
  return pG->iDim == 0 && e->n == 1 && e->t[0].n == 1 && e->t[0].coef == 1 &&
         pS->aAtom[e->t[0].a[0]].eKind == KS_ATOM_PAR && pS->aAtom[e->t[0].a[0]].iDim == 0;
}

/* 3-D: the guard on the output plane, `ox >= OW || oy >= OH` (eJoin ||, eOp
 * >=, before a return) or `ox < OW && oy < OH` (&&, <, around the body): each
 * of PAR.x and PAR.y compared once, by itself, with a bound of the parameters. */
static int plane_guard(cv_walk *pW, CXCursor cond, enum CXBinaryOperatorKind eJoin, int eOp) {
  CXCursor k[2];
  cond = ks_rw_strip(cond);
  if (clang_getCursorKind(cond) != CXCursor_BinaryOperator || clang_getCursorBinaryOperatorKind(cond) != eJoin ||
      ks_rw_kids(cond, k, 2) != 2)
    return 0;
  for (int i = 0; i < 2; i++) {
    const ks_shape_guard *pG = guard_at(pW, ks_rw_strip(k[i]));
    const ks_poly *e = pG ? &pG->expr : NULL;
    if (!pG || pG->eOp != eOp || e->n != 1 || e->t[0].n != 1 || e->t[0].coef != 1 ||
        pW->pS->aAtom[e->t[0].a[0]].eKind != KS_ATOM_PAR || !poly_of_params(pW->pS, &pG->bound))
      return 0;
    int d = pW->pS->aAtom[e->t[0].a[0]].iDim;
    if (d < 0 || d > 1 || pW->apPlane[d]) return 0;
    pW->apPlane[d] = &pG->bound;
  }
  return 1;
}

static int walk_if(cv_walk *pW, CXCursor c) {
  CXCursor k[3];
  int nK = ks_rw_kids(c, k, 3);
  if (nK != 2) return cv_refuse_at(pW, c, "an `if` with an `else` or a declaration");
  CXCursor th = k[1];
  if (clang_getCursorKind(th) == CXCursor_CompoundStmt) {
    CXCursor one[2];
    if (ks_rw_kids(th, one, 2) == 1 &&
        (clang_getCursorKind(one[0]) == CXCursor_ContinueStmt || clang_getCursorKind(one[0]) == CXCursor_ReturnStmt))
      th = one[0];
  }
  enum CXCursorKind eT = clang_getCursorKind(th);
  if (eT == CXCursor_ReturnStmt && pW->b3D) {
    CXCursor r0[1];
    if (pW->nDepth || pW->nLoopsSeen || pW->bTotal || ks_rw_kids(th, r0, 1) != 0 ||
        !plane_guard(pW, k[0], CXBinaryOperator_LOr, CXBinaryOperator_GE))
      return cv_refuse_at(pW, c, "a `return` other than `if (ox >= OW || oy >= OH) return;` on the output plane first");
    pW->bTotal = 1;
    return 0;
  }
  if (eT == CXCursor_ReturnStmt) {
    /* the flat index's bound: `if (i >= total) return;` before the loops */
    const ks_shape_guard *pG = guard_at(pW, ks_rw_strip(k[0]));
    if (pW->nDepth || pW->nLoopsSeen || pW->bTotal || !pG || !is_flat_guard(pW->pS, pG) || pG->eOp != CXBinaryOperator_GE ||
        ks_rw_kids(th, k, 1) != 0)
      return cv_refuse_at(pW, c, "a `return` other than `if (i >= total) return;` on the flat index first");
    pW->bTotal = 1;
    pW->pTotal = &pG->bound;
    return 0;
  }
  if (eT == CXCursor_ContinueStmt) {
    if (pW->nDepth <= pW->nBase) return cv_refuse_at(pW, c, "a `continue` outside the loops ci, ky, kx");
    return push_leaves(pW, k[0], CXBinaryOperator_LOr, 1); /* popped at the end of the enclosing block */
  }
  /* `if (i < total) { ... }` around the whole body, or a bound check around the tap */
  if (pW->b3D && !pW->nDepth && !pW->nLoopsSeen && !pW->bTotal) {
    if (!plane_guard(pW, k[0], CXBinaryOperator_LAnd, CXBinaryOperator_LT))
      return cv_refuse_at(pW, c, "the first `if` is not `if (ox < OW && oy < OH)` on the output plane");
    pW->bTotal = 1;
    return walk_stmt(pW, k[1]);
  }
  const ks_shape_guard *pG = guard_at(pW, ks_rw_strip(k[0]));
  if (!pW->nDepth && !pW->nLoopsSeen && !pW->bTotal && pG && is_flat_guard(pW->pS, pG) && pG->eOp == CXBinaryOperator_LT) {
    pW->bTotal = 1;
    pW->pTotal = &pG->bound;
    return walk_stmt(pW, k[1]);
  }
  int nC = pW->nC;
  if (push_leaves(pW, k[0], CXBinaryOperator_LAnd, 0) < 0) return -1;
  int rc = walk_stmt(pW, k[1]);
  pW->nC = nC;
  return rc;
}

/* A load as written, or the element a cache-hinted load reads
 * (`__ldg(&x[..])`, ks_rw_cache_load_elem): the same value. */
static CXCursor load_of(CXCursor s) {
  CXCursor e = ks_rw_cache_load_elem(s);
  return clang_Cursor_isNull(e) ? s : e;
}

/* A padded read `cond ? x[..] : 0.0f`: the load, its condition pushed as
 * the bounds the tap is under (an && of comparisons, as an `if` around the
 * tap). The padding taps then add fma(w, 0, acc), as the template's
 * zero-filled taps do. Null when s is not one. */
static CXCursor padded_read(cv_walk *pW, CXCursor s) {
  CXCursor k[3];
  if (clang_getCursorKind(s) != CXCursor_ConditionalOperator || ks_rw_kids(s, k, 3) != 3 ||
      !is_zero_literal(pW->pTu, k[2]))
    return clang_getNullCursor();
  if (push_leaves(pW, k[0], CXBinaryOperator_LAnd, 0) < 0) return clang_getNullCursor();
  return load_of(ks_rw_strip(k[1]));
}

/* A float local of the innermost loop that holds a tap's factor: its load
 * (or padded read) and the bounds it was read under, for walk_accumulate.
 * The product is its only use: any other statement or product refuses a
 * float local, and the loads are counted on the model. */
static int tap_local(cv_walk *pW, CXCursor d, CXCursor init) {
  CXCursor s = load_of(ks_rw_strip(init));
  int nC = pW->nC;
  if (clang_getCursorKind(s) == CXCursor_ConditionalOperator) {
    s = padded_read(pW, s);
    if (pW->rc < 0) return -1;
  }
  enum CXCursorKind e = clang_Cursor_isNull(s) ? CXCursor_InvalidCode : clang_getCursorKind(s);
  if (pW->nTmp >= 4 || (e != CXCursor_ArraySubscriptExpr &&
                        !(e == CXCursor_UnaryOperator && clang_getCursorUnaryOperatorKind(s) == CXUnaryOperator_Deref))) {
    pW->nC = nC;
    return cv_refuse_at(pW, d, "a float local in the taps' loop that is not one load or `in_bounds ? input : 0.0f`");
  }
  pW->aTmp[pW->nTmp].decl = d;
  pW->aTmp[pW->nTmp].load = s;
  memcpy(pW->aTmp[pW->nTmp].aC, pW->aC, sizeof pW->aC);
  pW->aTmp[pW->nTmp].nC = pW->nC;
  pW->nTmp++;
  pW->nC = nC;
  return 0;
}

/* `acc += a * b` with a and b the two loads (one of them may be a padded
 * read, either may come through a tap_local), in the innermost loop. */
static int walk_accumulate(cv_walk *pW, CXCursor c) {
  CXCursor k[2];
  if (ks_rw_kids(c, k, 2) != 2 || clang_Cursor_isNull(pW->acc) || !ks_rw_is_ref_to(k[0], pW->acc))
    return cv_refuse_at(pW, c, "an update that is not `acc += input * weight` on the float accumulator");
  CXCursor r = ks_rw_strip(k[1]), m[2];
  if (clang_getCursorKind(r) != CXCursor_BinaryOperator || clang_getCursorBinaryOperatorKind(r) != CXBinaryOperator_Mul ||
      ks_rw_kids(r, m, 2) != 2)
    return cv_refuse_at(pW, c, "an update that is not `acc += input * weight`");
  int nC = pW->nC;
  for (int i = 0; i < 2; i++) {
    CXCursor s = load_of(ks_rw_strip(m[i]));
    for (int t = 0; t < pW->nTmp; t++)
      if (ks_rw_is_ref_to(s, pW->aTmp[t].decl)) {
        /* the local's load, under the bounds it was read under (those of
         * the statements around it are pW->aC's first entries) */
        for (int j = 0; j < pW->aTmp[t].nC; j++) {
          int bHave = 0;
          for (int q = 0; q < pW->nC; q++) bHave |= pW->aC[q].pG == pW->aTmp[t].aC[j].pG;
          if (bHave) continue;
          if (pW->nC >= 16) return cv_refuse_at(pW, c, "more than 16 bound checks");
          pW->aC[pW->nC++] = pW->aTmp[t].aC[j];
        }
        s = pW->aTmp[t].load;
      }
    if (clang_getCursorKind(s) == CXCursor_ConditionalOperator) {
      if (pW->nC != nC) return cv_refuse_at(pW, c, "two padded reads in one product");
      s = padded_read(pW, s);
      if (pW->rc < 0) return -1;
      if (clang_Cursor_isNull(s)) return cv_refuse_at(pW, c, "a selection other than `in_bounds ? input : 0.0f`");
    }
    enum CXCursorKind e = clang_getCursorKind(s);
    if (e != CXCursor_ArraySubscriptExpr && !(e == CXCursor_UnaryOperator &&
                                              clang_getCursorUnaryOperatorKind(s) == CXUnaryOperator_Deref))
      return cv_refuse_at(pW, c, "a product whose factors are not two loads");
  }
  if (pW->nDepth != pW->nBase + 3 || pW->bAcc) return cv_refuse_at(pW, c, "an accumulation outside the innermost of the three loops");
  pW->bAcc = 1;
  memcpy(pW->aAccC, pW->aC, sizeof pW->aC);
  pW->nAccC = pW->nC;
  pW->nC = nC; /* a padded read's bounds hold for this tap only */
  return 0;
}

static int walk_stmt(cv_walk *pW, CXCursor c) {
  enum CXCursorKind e = clang_getCursorKind(c);
  switch (e) {
  case CXCursor_CompoundStmt: {
    CXCursor *a;
    int n, rc = 0, nC = pW->nC;
    ks_rw_children(c, &a, &n);
    for (int i = 0; i < n && rc == 0; i++) rc = walk_stmt(pW, a[i]);
    free(a);
    pW->nC = nC;
    return rc;
  }
  case CXCursor_NullStmt:
    return 0;
  case CXCursor_DeclStmt: {
    CXCursor *a;
    int n, rc = 0;
    ks_rw_children(c, &a, &n);
    for (int i = 0; i < n && rc == 0; i++) {
      CXCursor d = a[i], in[2];
      CXType t = clang_getCanonicalType(clang_getCursorType(d));
      int nIn = ks_rw_kids(d, in, 2);
      CXCursor init = nIn ? in[nIn - 1] : clang_getNullCursor();
      if (clang_getCursorKind(d) != CXCursor_VarDecl || clang_Cursor_isNull(init) || !clang_isExpression(clang_getCursorKind(init)))
        rc = cv_refuse_at(pW, d, "a declaration without an initializer");
      else if (t.kind == CXType_Float && is_zero_literal(pW->pTu, init) && clang_Cursor_isNull(pW->acc) &&
               pW->nDepth == pW->nBase) /* inside a loop over the images: one sum per image */
        pW->acc = d;
      else if (t.kind == CXType_Float && clang_getCursorKind(ks_rw_strip(init)) == CXCursor_ArraySubscriptExpr &&
               clang_Cursor_isNull(pW->acc) && pW->nDepth == pW->nBase && pW->nLoopsSeen == pW->nBase) {
        /* `float acc = bias[co];`: which load, and at which index, is checked on the model */
        pW->acc = d;
        pW->accInit = ks_rw_strip(init);
      }
      else if (t.kind == CXType_Float && pW->nDepth == pW->nBase + 3)
        rc = tap_local(pW, d, init);
      else if (t.kind == CXType_Float && pW->nDepth < pW->nBase)
        rc = cv_refuse_at(pW, d, "a float local outside the loop over the images (the sum must start again for "
                                 "each image)");
      else if (!(ks_rw_is_integer_type(t) || t.kind == CXType_Pointer) || !ks_rw_pure_expr(init))
        rc = cv_refuse_at(pW, d, "a local that is not an index, a pointer into a tensor or the float accumulator from 0 "
                                 "or from a bias");
    }
    free(a);
    return rc;
  }
  case CXCursor_ForStmt: {
    int iL = -1;
    for (int i = 0; i < pW->pS->nLoop; i++)
      if (clang_equalCursors(pW->pS->aLoop[i].cursor, c)) iL = i;
    if (iL < 0 || iL != pW->nDepth) return cv_refuse_at(pW, c, "a loop other than the nest ci, ky, kx");
    CXCursor k[4];
    int nK = ks_rw_kids(c, k, 4);
    pW->nDepth++;
    pW->nLoopsSeen++;
    int nC = pW->nC, rc = nK > 0 ? walk_stmt(pW, k[nK - 1]) : cv_refuse_at(pW, c, "an empty loop");
    pW->nC = nC;
    pW->nDepth--;
    return rc;
  }
  case CXCursor_IfStmt:
    return walk_if(pW, c);
  case CXCursor_UnexposedStmt: {
    /* `#pragma unroll` on a loop of the nest (an attributed statement): the loop itself */
    CXCursor k[2];
    if (ks_rw_kids(c, k, 2) == 1 && clang_getCursorKind(k[0]) == CXCursor_ForStmt) return walk_stmt(pW, k[0]);
    return cv_refuse_at(pW, c, "a statement a direct convolution does not have");
  }
  case CXCursor_CompoundAssignOperator: {
    char *z = ks_rw_squash_cursor(pW->pTu, c);
    CXCursor k[2];
    int bAdd = 0;
    if (z && ks_rw_kids(c, k, 2) == 2) {
      char *zL = ks_rw_squash_cursor(pW->pTu, k[0]);
      bAdd = zL && !strncmp(z + strlen(zL), "+=", 2);
      free(zL);
    }
    free(z);
    if (!bAdd) return cv_refuse_at(pW, c, "a compound assignment other than `acc += ...`");
    return walk_accumulate(pW, c);
  }
  case CXCursor_BinaryOperator: {
    CXCursor k[2];
    if (clang_getCursorBinaryOperatorKind(c) != CXBinaryOperator_Assign || ks_rw_kids(c, k, 2) != 2)
      return cv_refuse_at(pW, c, "an expression statement that is not the store of the accumulator");
    CXCursor l = ks_rw_strip(k[0]);
    int bRelu = !clang_Cursor_isNull(pW->acc) && relu_of(pW->pTu, k[1], pW->acc);
    if (pW->nDepth != pW->nBase || !pW->bAcc || pW->bStore || clang_getCursorKind(l) != CXCursor_ArraySubscriptExpr ||
        clang_Cursor_isNull(pW->acc) || (!ks_rw_is_ref_to(k[1], pW->acc) && !bRelu))
      return cv_refuse_at(pW, c, "an assignment other than `y[index] = acc;` (or `fmaxf(acc, 0.0f)`) after the loops");
    pW->bRelu = bRelu;
    pW->bStore = 1;
    return 0;
  }
  default:
    return cv_refuse_at(pW, c, "a statement a direct convolution does not have");
  }
}

/* The bounds the tap is under, as E >= 0 and E < U for its row and column. */
static int read_bounds(cv_walk *pW, cv_match *pM, const char **pzWhy) {
  const ks_shape *pS = pW->pS;
  int nRowLo = 0, nRowHi = 0, nColLo = 0, nColHi = 0;
  for (int i = 0; i < pW->nAccC; i++) {
    const ks_shape_guard *pG = pW->aAccC[i].pG;
    int eOp = pG->eOp;
    if (pW->aAccC[i].bNeg)
      eOp = eOp == CXBinaryOperator_LT ? CXBinaryOperator_GE : eOp == CXBinaryOperator_GE ? CXBinaryOperator_LT
            : eOp == CXBinaryOperator_LE ? CXBinaryOperator_GT : CXBinaryOperator_LE;
    ks_poly b = pG->bound;
    long long v = 0;
    int bConst = b.n == 0 || (b.n == 1 && b.t[0].n == 0);
    if (bConst && b.n) v = b.t[0].coef;
    int bLow = eOp == CXBinaryOperator_GE || eOp == CXBinaryOperator_GT;
    /* integers: E > -1 is E >= 0, E <= U - 1 is E < U (a constant U only) */
    if (bLow && !(bConst && ((eOp == CXBinaryOperator_GE && v == 0) || (eOp == CXBinaryOperator_GT && v == -1))))
      return *pzWhy = "a lower bound on the input row or column other than 0", -1;
    if (!bLow && eOp != CXBinaryOperator_LT) return *pzWhy = "an upper bound on the input not written `< bound`", -1;
    if (!bLow && !poly_of_params(pS, &b))
      return *pzWhy = "an upper bound on the input row or column that is not an expression of the parameters", -1;
    int bKy = 0, bKx = 0;
    for (int t = 0; t < pG->expr.n; t++) {
      bKy |= mono_has(&pG->expr.t[t], pM->aLoopAtom[1]) > 0;
      bKx |= mono_has(&pG->expr.t[t], pM->aLoopAtom[2]) > 0;
    }
    if (bKy == bKx)
      return *pzWhy = "a bound check on an expression that is not the input row (ky) or column (kx) (the loops must "
                      "nest ci, ky, kx in that order, the weights' order; NHWC: ky, kx, ci)",
             -1;
    if (bKy) {
      if (bLow ? nRowLo++ : nRowHi++) return *pzWhy = "the input row checked twice", -1;
      if (!bLow) pM->H = b;
      pM->ey = pG->expr;
    } else {
      if (bLow ? nColLo++ : nColHi++) return *pzWhy = "the input column checked twice", -1;
      if (!bLow) pM->W = b;
      pM->ex = pG->expr;
    }
  }
  if (!nRowLo || !nRowHi || !nColLo || !nColHi)
    return *pzWhy = "the tap is not under the bound checks 0 <= row < H and 0 <= column < W (a padded input is not taken)", -1;
  return 0;
}

/* Read E = s*o + d*k + c: the output coordinate's atom, s, d, and -c. */
static int read_window(const ks_shape *pS, const ks_poly *pE, int iK, int iCi, int *piO, ks_poly *pS_, ks_poly *pD,
                       ks_poly *pP) {
  int bOk = 1, aSkip[2] = {iK, iCi};
  if (variant_atoms(pS, pE, aSkip, 2, piO) != 1) return -1;
  *pD = poly_coef(pE, iK, &bOk);
  *pS_ = poly_coef(pE, *piO, &bOk);
  int aBoth[2] = {iK, *piO};
  *pP = poly_neg(poly_without(pE, aBoth, 2));
  if (!bOk || !poly_of_params(pS, pD) || !poly_of_params(pS, pS_) || !poly_of_params(pS, pP)) return -1;
  for (int i = 0; i < pE->n; i++)
    if (mono_has(&pE->t[i], iK) && mono_has(&pE->t[i], *piO)) return -1;
  return 0;
}

/* A derived atom a = PAR-something % den: den, when a parameter polynomial. */
static int rem_den(const ks_shape *pS, int a, ks_poly *pDen) {
  const ks_atom *pA = &pS->aAtom[a];
  if (pA->eKind != KS_ATOM_DERIVED || !pA->bRem || pA->iDimOf != 0 || !pA->pDen || !poly_of_params(pS, pA->pDen))
    return -1;
  *pDen = *pA->pDen;
  return 0;
}

/* total / (cout * OH * OW) when every monomial of total holds those atoms (single parameters). */
static int div_factors(const ks_shape *pS, const ks_poly *pTotal, const ks_poly *aF[3], ks_poly *pOut) {
  *pOut = *pTotal;
  for (int f = 0; f < 3; f++) {
    const ks_poly *pF = aF[f];
    if (pF->n != 1) return -1;
    if (pF->t[0].n == 0) { /* a constant */
      for (int i = 0; i < pOut->n; i++) {
        if (pF->t[0].coef == 0 || pOut->t[i].coef % pF->t[0].coef) return -1;
        pOut->t[i].coef /= pF->t[0].coef;
      }
      continue;
    }
    if (pF->t[0].coef != 1) return -1;
    for (int j = 0; j < pF->t[0].n; j++) {
      int bOk = 1;
      ks_poly q = poly_coef(pOut, pF->t[0].a[j], &bOk);
      if (!bOk || q.n != pOut->n) return -1;
      *pOut = q;
    }
  }
  return poly_of_params(pS, pOut) ? 0 : -1;
}

/* total / (cout * OH * OW): divided factor by factor when each is one
 * monomial, else (OH = H - KH + 1, say) the one parameter or constant whose
 * product with them is total. */
static int div_batch(const ks_shape *pS, const ks_poly *pTotal, const ks_poly *aF[3], ks_poly *pOut) {
  ks_poly prod, t;
  if (div_factors(pS, pTotal, aF, pOut) == 0) return 0;
  if (poly_mul(aF[0], aF[1], &t) < 0 || poly_mul(&t, aF[2], &prod) < 0 || prod.n == 0) return -1;
  memset(pOut, 0, sizeof *pOut);
  pOut->n = 1;
  pOut->t[0].coef = pTotal->n && pTotal->t[0].coef % prod.t[0].coef == 0 ? pTotal->t[0].coef / prod.t[0].coef : 0;
  for (int a = -1; a < pS->nAtom; a++) {
    if (a >= 0 && !is_param_atom(pS, a)) continue;
    if (a >= 0) pOut->t[0] = (ks_mono){1, 1, {a}};
    if (poly_mul(pOut, &prod, &t) == 0 && poly_equal(&t, pTotal)) return 0;
  }
  return -1;
}

/* The constant value of p in *pv (0 for the empty polynomial): 1, else 0. */
static int poly_const_value(const ks_poly *p, long long *pv) {
  *pv = p->n ? p->t[0].coef : 0;
  return p->n == 0 || (p->n == 1 && p->t[0].n == 0);
}

/* No bound checks (a valid convolution): of the two loads, the input is the
 * one holding more of the output's coordinates than the weights' channel.
 * It is read as ((nb*cin + ci)*H + row)*W + column with a dilation of 1
 * (dilations are not told apart from the row length here): W is ky's
 * coefficient, H ci's over W (both one monomial: parameters or constants),
 * the column the terms W does not divide, the row the others over W, less
 * those H divides (the image's). verify checks the reading; window_inside
 * proves every tap inside H x W. */
static int read_unchecked(const ks_shape *pS, cv_match *pM, const ks_poly *apIdx[2], const char **pzWhy) {
  int aSkip[3] = {pM->aLoopAtom[0], pM->aLoopAtom[1], pM->aLoopAtom[2]}, bOk = 1;
  const ks_poly *pX = variant_atoms(pS, apIdx[0], aSkip, 3, NULL) > variant_atoms(pS, apIdx[1], aSkip, 3, NULL)
                          ? apIdx[0] : apIdx[1];
  ks_poly cKx = poly_coef(pX, pM->aLoopAtom[2], &bOk), cKy = poly_coef(pX, pM->aLoopAtom[1], &bOk),
          cCi = poly_coef(pX, pM->aLoopAtom[0], &bOk);
  long long v;
  const ks_poly *apOuter[2] = {&cCi, &cKy};
  for (int l = 0; l < 2; l++) { /* the column's loop (coefficient 1) is not the innermost: another sum order */
    if (poly_const_value(apOuter[l], &v) && v == 1)
      return *pzWhy = "no bound checks on the taps, and the loops do not nest ci, ky, kx (the input column's loop "
                      "is not the innermost): the template sums NCHW data in the order ci, ky, kx only, and another "
                      "order would change the results", -1;
  }
  *pzWhy = "no bound checks on the taps, and the input is not read at row + ky, column + kx (a dilation of 1) of an "
           "H x W plane of parameters or constants (a padded input is not taken)";
  if (!bOk || !poly_const_value(&cKx, &v) || v != 1 || cKy.n != 1 || cCi.n != 1 || !poly_of_params(pS, &cKy))
    return -1;
  ks_mono mW = cKy.t[0], mH, q;
  if (mono_div(&cCi.t[0], &mW, &mH) < 0 || !poly_of_params(pS, &cCi)) return -1;
  memset(&pM->W, 0, sizeof pM->W), memset(&pM->H, 0, sizeof pM->H);
  memset(&pM->ey, 0, sizeof pM->ey), memset(&pM->ex, 0, sizeof pM->ex);
  pM->W.n = pM->H.n = 1, pM->W.t[0] = mW, pM->H.t[0] = mH;
  for (int i = 0; i < pX->n; i++) {
    ks_mono r;
    if (mono_div(&pX->t[i], &mW, &q) < 0) pM->ex.t[pM->ex.n++] = pX->t[i];
    else if (mono_div(&q, &mH, &r) < 0 && !mono_has(&q, pM->aLoopAtom[0])) pM->ey.t[pM->ey.n++] = q;
  }
  pM->dy = pM->dx = cKx; /* 1 */
  pM->bUnchecked = 1;
  return 0;
}

/* Unchecked taps lie inside the input: for every output 0 <= o < O and tap
 * 0 <= k < KK, 0 <= o*s - pad + k*d < E holds for every value of the
 * parameters when s, d are constants >= 1, pad a constant <= 0 and
 * (O - 1)*s + (KK - 1)*d - pad - (E - 1) a constant <= 0 (O = H - KH + 1
 * at stride 1, say). The template's bounds then never fail: it reads every
 * tap the original reads. */
static int window_inside(const ks_poly *pO, const ks_poly *pKK, const ks_poly *pS_, const ks_poly *pD,
                         const ks_poly *pPad, const ks_poly *pE) {
  long long s, d, pad, c;
  ks_poly t, u, zero;
  memset(&zero, 0, sizeof zero);
  if (!poly_const_value(pS_, &s) || !poly_const_value(pD, &d) || !poly_const_value(pPad, &pad) || s < 1 || d < 1 ||
      pad > 0)
    return 0;
  ks_mono k = {1 - s - d - pad, 0, {0}};
  if (poly_lin(&zero, pO, s, &t) < 0 || poly_lin(&t, pKK, d, &u) < 0 || poly_lin(&u, pE, -1, &t) < 0 ||
      poly_add_mono(&t, &k) < 0)
    return 0;
  return poly_const_value(&t, &c) && c <= 0;
}

/* Check the reading on nDraws random draws of the parameters, every thread
 * and tap: NULL, or what does not hold. */
static const char *verify(const ks_shape *pS, const cv_match *pM) {
  long long *aV = calloc((size_t)pS->nAtom + 1, sizeof *aV);
  unsigned char *aSeen = NULL;
  const char *zWhy = NULL;
  if (!aV) return "out of memory";
  cv_vals V = {pS, aV, 0};
  unsigned long long seed = 0x9e3779b97f4a7c15ULL;
  int iPar = -1, iParY = -1, iBidZ = -1;
  for (int a = 0; a < pS->nAtom; a++) {
    if (pS->aAtom[a].eKind == KS_ATOM_PAR && pS->aAtom[a].iDim == 0) iPar = a;
    if (pS->aAtom[a].eKind == KS_ATOM_PAR && pS->aAtom[a].iDim == 1) iParY = a;
    if (pS->aAtom[a].eKind == KS_ATOM_BID && pS->aAtom[a].iDim == 2) iBidZ = a;
  }
  if (pM->b3D && (iPar < 0 || iParY < 0 || iBidZ < 0)) {
    free(aV);
    return "the output coordinates are not the grid's x, y and blockIdx.z";
  }
  /* an unchecked window's draws with no output (H < KH) check nothing: more draws, two at least that check */
  int nDraws = pM->bUnchecked ? 16 : 6, nChecked = 0;
  for (int iDraw = 0; iDraw < nDraws && !zWhy; iDraw++) {
    for (int a = 0; a < pS->nAtom; a++) {
      seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
      /* parameters 2..4; any other atom gets 0 (an index that reads one then fails the checks) */
      aV[a] = is_param_atom(pS, a) ? 2 + (long long)((seed >> 33) % 3) : 0;
    }
    if (pM->bUnchecked) /* OH = H - c: the sizes in it c larger, so that most draws have outputs */
      for (int d = 0; d < 2; d++) {
        const ks_poly *q = d ? &pM->OW : &pM->OH;
        long long c = 0;
        for (int t = 0; t < q->n; t++) c = q->t[t].n == 0 ? llabs(q->t[t].coef) : c;
        for (int t = 0; t < q->n; t++)
          for (int j = 0; j < q->t[t].n; j++) aV[q->t[t].a[j]] += is_param_atom(pS, q->t[t].a[j]) ? c : 0;
      }
    V.bBad = 0;
    long long nCo = eval_poly(&V, &pM->cout);
    /* 3-D: the batch is the launch's (grid z / cout); 2 or 3 images here */
    long long nB = pM->b3D && pM->iBatchAtom < 0 ? 2 + iDraw % 2 : eval_poly(&V, &pM->batch);
    long long nOH = eval_poly(&V, &pM->OH), nOW = eval_poly(&V, &pM->OW), nCi = eval_poly(&V, &pM->cin);
    long long nKH = eval_poly(&V, &pM->kh), nKW = eval_poly(&V, &pM->kw), nH = eval_poly(&V, &pM->H),
              nW = eval_poly(&V, &pM->W);
    long long sy = eval_poly(&V, &pM->sy), sx = eval_poly(&V, &pM->sx), py = eval_poly(&V, &pM->py),
              px = eval_poly(&V, &pM->px), dy = eval_poly(&V, &pM->dy), dx = eval_poly(&V, &pM->dx);
    /* a flat index with a loop over the images: the index covers one image, the loop the batch */
    long long nTotal = pM->b3D ? nB * nCo * nOH * nOW : eval_poly(&V, &pM->total) * (pM->iBatchAtom >= 0 ? nB : 1);
    if (pM->bUnchecked && !V.bBad && (nOH <= 0 || nOW <= 0)) continue;
    nChecked++;
    if (V.bBad || nTotal != nB * nCo * nOH * nOW || nTotal <= 0 || nTotal > 200000 || nKH <= 0 || nKW <= 0 ||
        nKH > 8 || nKW > 8) {
      zWhy = pM->iBatchAtom >= 0 && !pM->b3D
                 ? "the flat index's bound is not cout * OH * OW (one image's outputs: the loop runs over the images)"
                 : "the flat index's bound is not batch * cout * OH * OW";
      break;
    }
    free(aSeen);
    aSeen = calloc((size_t)nTotal, 1);
    if (!aSeen) {
      zWhy = "out of memory";
      break;
    }
    for (long long i = 0; i < nTotal && !zWhy; i++) {
      long long eox = i % nOW, eoy = i / nOW % nOH, ez = i / (nOW * nOH);
      if (pM->b3D && pM->iBatchAtom >= 0) /* blockIdx.z the channel, the loop the image */
        aV[iPar] = eox, aV[iParY] = eoy, aV[iBidZ] = ez % nCo, aV[pM->iBatchAtom] = ez / nCo;
      else if (pM->b3D) aV[iPar] = eox, aV[iParY] = eoy, aV[iBidZ] = ez;
      else if (iPar >= 0 && pM->iBatchAtom >= 0)
        aV[iPar] = i % (nCo * nOH * nOW), aV[pM->iBatchAtom] = i / (nCo * nOH * nOW);
      else if (iPar >= 0) aV[iPar] = i;
      long long ox = eval_atom(&V, pM->iOx), oy = eval_atom(&V, pM->iOy), co = eval_atom(&V, pM->iCo);
      /* nb: what the input index holds beyond the channel, row and column */
      for (int l = 0; l < 3; l++) aV[pM->aLoopAtom[l]] = 0;
      long long ey0 = eval_poly(&V, &pM->ey), ex0 = eval_poly(&V, &pM->ex), x0 = eval_poly(&V, &pM->pxIdx);
      long long nPlane = nCi * nH * nW, rem = pM->bNHWC ? x0 - (ey0 * nW + ex0) * nCi : x0 - ey0 * nW - ex0;
      long long nb = nPlane ? rem / nPlane : -1;
      long long yi = eval_poly(&V, &pM->pyIdx);
      if (pM->b3D && (ox != eox || oy != eoy || co != ez % nCo || nb != ez / nCo)) {
        zWhy = "the output coordinates are not (blockIdx.z / K, blockIdx.z % K, grid y, grid x)";
        break;
      }
      if (V.bBad || ox < 0 || ox >= nOW || oy < 0 || oy >= nOH || co < 0 || co >= nCo || nb < 0 || nb >= nB ||
          rem != nb * nPlane) {
        zWhy = "the output coordinates are not a split of the flat index into batch, cout, OH, OW";
        break;
      }
      long long yWant = pM->bNHWC ? ((nb * nOH + oy) * nOW + ox) * nCo + co : ((nb * nCo + co) * nOH + oy) * nOW + ox;
      if (yi != yWant || yi < 0 || yi >= nTotal || aSeen[yi]) {
        zWhy = pM->bNHWC ? "the output index is not y[nb][oy][ox][co] (NHWC, as the input), once per output"
                         : "the output index is not y[nb][co][oy][ox] (NCHW), once per output";
        break;
      }
      aSeen[yi] = 1;
      for (long long ci = 0; ci < nCi && !zWhy; ci++)
        for (long long ky = 0; ky < nKH && !zWhy; ky++)
          for (long long kx = 0; kx < nKW && !zWhy; kx++) {
            aV[pM->aLoopAtom[0]] = ci, aV[pM->aLoopAtom[1]] = ky, aV[pM->aLoopAtom[2]] = kx;
            long long iy = eval_poly(&V, &pM->ey), ix = eval_poly(&V, &pM->ex);
            if (iy != oy * sy - py + ky * dy || ix != ox * sx - px + kx * dx)
              zWhy = "the input row and column are not oy*stride - pad + ky*dilation (and likewise for x)";
            else if (!pM->bNHWC && eval_poly(&V, &pM->pwIdx) != ((co * nCi + ci) * nKH + ky) * nKW + kx)
              zWhy = "the weights are not read as w[co][ci][ky][kx] (grouped, depthwise or transposed layouts are "
                     "not taken)";
            else if (!pM->bNHWC && eval_poly(&V, &pM->pxIdx) != ((nb * nCi + ci) * nH + iy) * nW + ix)
              zWhy = "the input is not read as x[nb][ci][row][column] (NCHW) of the bounds checked";
            else if (pM->bNHWC && eval_poly(&V, &pM->pwIdx) != ((co * nKH + ky) * nKW + kx) * nCi + ci)
              zWhy = "the weights are not read as w[co][ky][kx][ci] (OHWI, for an input in NHWC)";
            else if (pM->bNHWC && eval_poly(&V, &pM->pxIdx) != ((nb * nH + iy) * nW + ix) * nCi + ci)
              zWhy = "the input is not read as x[nb][row][column][ci] (NHWC) of the bounds checked";
            else if (pM->bUnchecked && (iy < 0 || iy >= nH || ix < 0 || ix >= nW))
              zWhy = "a tap outside the input, and no bound checks";
            else if (V.bBad)
              zWhy = "an index it cannot evaluate";
          }
    }
  }
  if (!zWhy && nChecked < 2) zWhy = "too few sizes with an output to check the reading on";
  free(aSeen);
  free(aV);
  return zWhy;
}

/* The reading, checked: an unchecked window proven inside the input, then verify. */
static const char *check(const ks_shape *pS, const cv_match *pM) {
  if (pM->bUnchecked && (!window_inside(&pM->OH, &pM->kh, &pM->sy, &pM->dy, &pM->py, &pM->H) ||
                         !window_inside(&pM->OW, &pM->kw, &pM->sx, &pM->dx, &pM->px, &pM->W)))
    return "no bound checks on the taps, and the window is not provably inside the input (OH = H - KH + 1 and OW = W "
           "- KW + 1 or less at stride 1, constant strides >= 1, no padding; sizes passed apart from H and W are not "
           "taken)";
  return verify(pS, pM);
}

/* The loops: the nest ci, ky, kx (loops nB..nB+2, each inside the one
 * before), or that nest inside a loop over the images (nB = 1: one sum and
 * one store per image, the batch just another output coordinate). Each from
 * 0 by 1 to a bound of the parameters. nB, or a refusal. */
static int match_loops(ks_rewrite *p, const ks_shape *pS, cv_match *pM) {
  ks_tu *pTu = ks_rewrite_tu(p);
  const char *zK = ks_rewrite_kernel_name(p);
  int nB = pS->nLoop == 4 ? 1 : 0;
  pM->iBatchAtom = -1;
  if (pS->nLoop != 3 + nB || pS->aLoop[0].iParent != -1 || pS->aLoop[1].iParent != 0 || pS->aLoop[2].iParent != 1 ||
      (nB && pS->aLoop[3].iParent != 2))
    return ks_rewrite_refuse(p, "kernel '%s' does not have the three nested loops ci, ky, kx of a direct convolution "
                                "(alone, or inside one loop over the images)", zK);
  for (int i = 0; i < 3 + nB; i++) {
    const ks_shape_loop *pL = &pS->aLoop[i];
    long long vInit;
    int bZero = poly_const_value(&pL->init, &vInit) && vInit == 0;
    if (pL->iAtom < 0 || pL->nStep != 1 || !bZero || !poly_of_params(pS, &pL->bound) || pL->bGridStride ||
        pL->bHasSync || (pL->bStoresGlobal && i >= nB))
      return ks_rewrite_refuse(p, "%s:%u: the loop over '%s' does not run from 0 by 1 to a bound of the parameters",
                               pTu->zFile, pL->iLine, pL->zVar ? pL->zVar : "?");
    if (i >= nB) pM->aLoopAtom[i - nB] = pL->iAtom; /* nest order; (ci, ky, kx) once the bounds say which is which */
  }
  if (nB) pM->iBatchAtom = pS->aLoop[0].iAtom, pM->batch = pS->aLoop[0].bound;
  if (pS->aLoop[nB + 2].nAccum != 1 || pS->aLoop[nB + 2].aOp[0] != KS_ACC_OP_ADD)
    return ks_rewrite_refuse(p, "kernel '%s': its innermost loop does not sum into one accumulator", zK);
  return nB;
}

/* With a loop over the images: cout is the one parameter K whose product
 * with the channel's coefficient in the output index is the image's
 * (y[((n*K + k)*OH + oy)*OW + ox]). On the 2-D grid the channel must be
 * blockIdx.z itself, and the launch's grid z K's argument (grid_images); on
 * a flat index, whatever the split gives (verify checks it). */
static int read_cout(const ks_shape *pS, cv_match *pM) {
  const ks_atom *pCo = &pS->aAtom[pM->iCo];
  int bOk = 1;
  if (pM->b3D && (pCo->eKind != KS_ATOM_BID || pCo->iDim != 2)) return -1;
  ks_poly cN = poly_coef(&pM->pyIdx, pM->iBatchAtom, &bOk), cK = poly_coef(&pM->pyIdx, pM->iCo, &bOk), t;
  for (int a = 0; bOk && a < pS->nAtom; a++) {
    if (!is_param_atom(pS, a)) continue;
    memset(&pM->cout, 0, sizeof pM->cout);
    pM->cout.n = 1, pM->cout.t[0] = (ks_mono){1, 1, {a}};
    if (poly_mul(&pM->cout, &cK, &t) == 0 && cK.n && poly_equal(&t, &cN)) {
      pM->iCoutParam = pS->aAtom[a].iRef;
      return 0;
    }
  }
  return -1;
}

/* check, refusing with its reason. Loops ky, kx, ci over NCHW data (the
 * indices NCHW's): the template's k runs (ky, kx, ci) over NHWC data only,
 * where the weights are a contiguous M x K matrix; over OIHW weights that
 * order reads A at a stride of KH*KW (no fast path), and summing in (ci, ky,
 * kx) instead would change the results. */
static int check_match(ks_rewrite *p, const ks_shape *pS, const cv_match *pM) {
  const char *zK = ks_rewrite_kernel_name(p), *zWhy = check(pS, pM);
  if (!zWhy) return KS_OK;
  if (!pM->bNHWC) return ks_rewrite_refuse(p, "kernel '%s': %s", zK, zWhy);
  cv_match m = *pM;
  m.bNHWC = 0;
  if (!check(pS, &m))
    return ks_rewrite_refuse(p, "kernel '%s': an NCHW convolution whose loops nest ky, kx, ci (channels innermost): "
                                "the template sums NCHW data in the order ci, ky, kx only (its weights read as a "
                                "contiguous M x K matrix; in the order ky, kx, ci they would be read at a stride of "
                                "KH*KW, a slow path), and another order would change the results", zK);
  return ks_rewrite_refuse(p, "kernel '%s': its loops nest ky, kx, ci (channels innermost), the order of an NHWC "
                              "convolution's sums, but %s (an NCHW convolution: the loops must nest ci, ky, kx, "
                              "the weights' order)", zK, zWhy);
}

static int cv_match_kernel(ks_rewrite *p, CXCursor kernel, ks_shape *pS, cv_match *pM) {
  ks_tu *pTu = ks_rewrite_tu(p);
  const char *zK = ks_rewrite_kernel_name(p);
  memset(pM, 0, sizeof *pM);
  if (pS->bTruncated) return ks_rewrite_refuse(p, "kernel '%s' nests deeper than the shape model reads", zK);
  if (pS->bShared || pS->bSync || pS->bAtomic || pS->bWarp)
    return ks_rewrite_refuse(p, "kernel '%s' uses shared memory, barriers, atomics or warp primitives", zK);
  /* one fmaxf may be the store's ReLU (the walk below checks it is); cache-hinted loads are loads */
  int bMaxCall = 0;
  for (int i = 0; i < pS->nCall; i++) {
    const char *z = pS->azCall[i];
    if (!strcmp(z, "fmaxf")) bMaxCall = 1;
    else if (!ks_shape_is_cache_load(z))
      return ks_rewrite_refuse(p, "kernel '%s' calls '%s' in its computation", zK, z);
  }
  /* 3-D: the grid's x and y thread indices, blockIdx.z by itself (no threadIdx.z) */
  int nXY = 0, bZThread = 0;
  for (int i = 0; i < pS->nPar; i++)
    nXY += pS->aPar[i].iDim < 2 && !pS->aPar[i].bGridStride;
  for (int a = 0; a < pS->nAtom; a++)
    bZThread |= (pS->aAtom[a].eKind == KS_ATOM_PAR || pS->aAtom[a].eKind == KS_ATOM_TID) && pS->aAtom[a].iDim == 2;
  pM->b3D = nXY == 2 && !bZThread && (pS->nPar == 2 || (pS->nPar == 3 && pS->aPar[2].iDim == 2 &&
                                                         !pS->aPar[2].bGridStride));
  if (!pM->b3D && (pS->nPar != 1 || pS->aPar[0].iDim != 0 || pS->aPar[0].bGridStride))
    return ks_rewrite_refuse(p, "kernel '%s' is not one thread per output on a flat x index or on a 2-D grid (x, y) "
                                "over the output plane (a grid-stride loop, a z thread index are not taken)", zK);
  int nB = match_loops(p, pS, pM);
  if (nB < 0) return nB;

  /* The accesses: two float loads in the innermost loop, one store after. */
  int aLoad[2], nLoad = 0, iStore = -1, iBiasA = -1;
  for (int i = 0; i < pS->nAccess; i++) {
    const ks_shape_access *pA = &pS->aAccess[i];
    if (pA->nElemSize != 4 || !pA->zElemType || !strstr(pA->zElemType, "float") || pA->index.bIrregular ||
        pA->index.bIndirect)
      return ks_rewrite_refuse(p, "%s:%u: an access that is not a float at an index of the threads and loops",
                               pTu->zFile, pA->iLine);
    if (pA->eKind == KS_SHAPE_LOAD && pA->iLoop == nB + 2 && nLoad < 2) aLoad[nLoad++] = i;
    else if (pA->eKind == KS_SHAPE_STORE && pA->iLoop == nB - 1 && iStore < 0) iStore = i;
    else if (pA->eKind == KS_SHAPE_LOAD && pA->iLoop == nB - 1 && iBiasA < 0) iBiasA = i; /* a bias, checked below */
    else
      return ks_rewrite_refuse(p, "%s:%u: an access a direct convolution does not have (only the input and weight "
                                  "loads of the tap and the output's store)", pTu->zFile, pA->iLine);
  }
  if (nLoad != 2 || iStore < 0)
    return ks_rewrite_refuse(p, "kernel '%s' does not load an input and a weight per tap and store one output", zK);

  /* The statements, the accumulator, the bounds the tap is under. */
  cv_walk w;
  memset(&w, 0, sizeof w);
  w.p = p, w.pTu = pTu, w.pS = pS, w.kernel = kernel, w.acc = clang_getNullCursor(), w.accInit = clang_getNullCursor();
  w.b3D = pM->b3D;
  w.nBase = nB;
  CXCursor body = ks_rw_body(kernel);
  if (clang_Cursor_isNull(body)) return ks_rewrite_refuse(p, "kernel '%s' has no body", zK);
  if (walk_stmt(&w, body) < 0) return w.rc < 0 ? w.rc : ks_rewrite_refuse(p, "kernel '%s' is not taken", zK);
  if (!w.bAcc || !w.bStore || !w.bTotal)
    return ks_rewrite_refuse(p, "kernel '%s' lacks the bound on its flat index, the accumulation or the store", zK);
  if (bMaxCall && !w.bRelu) return ks_rewrite_refuse(p, "kernel '%s' calls 'fmaxf' in its computation", zK);
  pM->bRelu = w.bRelu;
  if (pM->b3D) {
    pM->OW = *w.apPlane[0], pM->OH = *w.apPlane[1];
  } else {
    if (!poly_of_params(pS, w.pTotal))
      return ks_rewrite_refuse(p, "kernel '%s': the flat index's bound is not an expression of the parameters", zK);
    pM->total = *w.pTotal;
  }
  /* The loop the input's bound checks never name is the channel's: the
   * outermost (NCHW, loops ci, ky, kx) or the innermost (NHWC, ky, kx, ci,
   * the order its sums run in the template's k) */
  int abInGuard[3] = {0, 0, 0};
  for (int i = 0; i < w.nAccC; i++)
    for (int t = 0; t < w.aAccC[i].pG->expr.n; t++)
      for (int l = 0; l < 3; l++) abInGuard[l] |= mono_has(&w.aAccC[i].pG->expr.t[t], pS->aLoop[nB + l].iAtom) > 0;
  pM->bNHWC = abInGuard[0] && abInGuard[1] && !abInGuard[2];
  const int aOrder[3] = {pM->bNHWC ? 2 : 0, pM->bNHWC ? 0 : 1, pM->bNHWC ? 1 : 2}; /* loops of ci, ky, kx */
  const ks_shape_loop *aNest = pS->aLoop + nB;
  for (int i = 0; i < 3; i++) pM->aLoopAtom[i] = aNest[aOrder[i]].iAtom;
  pM->cin = aNest[aOrder[0]].bound, pM->kh = aNest[aOrder[1]].bound, pM->kw = aNest[aOrder[2]].bound;
  const char *zWhy = NULL;
  const ks_poly *apLoad[2] = {&pS->aAccess[aLoad[0]].index, &pS->aAccess[aLoad[1]].index};
  if (w.nAccC == 0 && read_unchecked(pS, pM, apLoad, &zWhy) < 0)
    return ks_rewrite_refuse(p, "kernel '%s': %s", zK, zWhy);
  if (w.nAccC && read_bounds(&w, pM, &zWhy) < 0) return ks_rewrite_refuse(p, "kernel '%s': %s", zK, zWhy);

  /* Which load is the input: the one at the bounded row. */
  int iOy = -1, iOx = -1;
  if (read_window(pS, &pM->ey, pM->aLoopAtom[1], pM->aLoopAtom[0], &iOy, &pM->sy, &pM->dy, &pM->py) < 0 ||
      read_window(pS, &pM->ex, pM->aLoopAtom[2], pM->aLoopAtom[0], &iOx, &pM->sx, &pM->dx, &pM->px) < 0)
    return ks_rewrite_refuse(p, "kernel '%s': the checked input row and column are not output coordinate * stride - "
                                "pad + tap * dilation of the parameters", zK);
  pM->iOy = iOy, pM->iOx = iOx;
  int bX0 = 0;
  for (int t = 0; t < pS->aAccess[aLoad[0]].index.n; t++) bX0 |= mono_has(&pS->aAccess[aLoad[0]].index.t[t], iOx) > 0;
  const ks_shape_access *pX = &pS->aAccess[aLoad[bX0 ? 0 : 1]], *pWt = &pS->aAccess[aLoad[bX0 ? 1 : 0]];
  pM->iX = pX->iParam, pM->iW = pWt->iParam, pM->iY = pS->aAccess[iStore].iParam;
  pM->pxIdx = pX->index, pM->pwIdx = pWt->index, pM->pyIdx = pS->aAccess[iStore].index;
  if (pM->iX == pM->iW || pM->iX == pM->iY || pM->iW == pM->iY || pM->iX < 0 || pM->iW < 0 || pM->iY < 0)
    return ks_rewrite_refuse(p, "kernel '%s': the input, the weights and the output are not three distinct parameters", zK);
  /* Beyond its window, the input index may depend on the batch index only. */
  int aWin[5] = {pM->aLoopAtom[0], pM->aLoopAtom[1], pM->aLoopAtom[2], iOx, iOy};
  if (variant_atoms(pS, &pM->pxIdx, aWin, 5, NULL) > 1)
    return ks_rewrite_refuse(p, "kernel '%s': the input index depends on more than the batch index and the window "
                                "(a grouped or depthwise convolution is not taken)", zK);
  /* The output channel: the one thread-variant atom of the weights' index. */
  int aSkip[3] = {pM->aLoopAtom[0], pM->aLoopAtom[1], pM->aLoopAtom[2]}, iCo = -1;
  if (variant_atoms(pS, &pM->pwIdx, aSkip, 3, &iCo) != 1)
    return ks_rewrite_refuse(p, "kernel '%s': the weights' index does not depend on one output channel", zK);
  pM->iCo = iCo;
  /* A bias: the one load outside the loops is the accumulator's start, at
   * the output channel, from a buffer the kernel does not write. */
  pM->iBias = -1;
  if (iBiasA >= 0 || !clang_Cursor_isNull(w.accInit)) {
    const ks_shape_access *pB = iBiasA >= 0 ? &pS->aAccess[iBiasA] : NULL;
    unsigned iS = 0, iE = 0;
    if (!pB || clang_Cursor_isNull(w.accInit) || ks_ast_extent(pTu, w.accInit, &iS, &iE) < 0 || iS != pB->iStart ||
        iE != pB->iEnd)
      return ks_rewrite_refuse(p, "%s:%u: an access a direct convolution does not have (only the input and weight "
                                  "loads of the tap, the output's store and a bias the sum starts from)",
                               pTu->zFile, pB ? pB->iLine : 0);
    const ks_poly *q = &pB->index;
    if (q->n != 1 || q->t[0].n != 1 || q->t[0].coef != 1 || q->t[0].a[0] != iCo)
      return ks_rewrite_refuse(p, "%s:%u: the bias the sum starts from is not read at the output channel", pTu->zFile,
                               pB->iLine);
    if (pB->iParam < 0 || pB->iParam == pM->iY)
      return ks_rewrite_refuse(p, "%s:%u: the bias is not a parameter of its own", pTu->zFile, pB->iLine);
    pM->iBias = pB->iParam;
  }
  if (pM->b3D) {
    /* ox, oy: the grid's x and y themselves; co = blockIdx.z % cout (cout one parameter: the launch's grid z must
     * be the batch times its argument) */
    const ks_atom *pCo = &pS->aAtom[iCo];
    const ks_poly *q = pCo->pNum;
    if (pS->aAtom[iOx].eKind != KS_ATOM_PAR || pS->aAtom[iOx].iDim != 0 || pS->aAtom[iOy].eKind != KS_ATOM_PAR ||
        pS->aAtom[iOy].iDim != 1)
      return ks_rewrite_refuse(p, "kernel '%s': the input's row and column are not read at the grid's y and x "
                                  "thread indices", zK);
    if (pM->iBatchAtom >= 0) {
      if (read_cout(pS, pM) < 0)
        return ks_rewrite_refuse(p, "kernel '%s': in its loop over the images, the output channel is not blockIdx.z "
                                    "itself with the output at y[((n * K + k) * OH + oy) * OW + ox], K a parameter "
                                    "(the launch's grid z)", zK);
      return check_match(p, pS, pM);
    }
    /* blockIdx.z % K runs in unsigned arithmetic (bWrap): exact for K >= 1, blockIdx.z < 65536 */
    if (pCo->eKind != KS_ATOM_DERIVED || !pCo->bRem || !q || !pCo->pDen || q->n != 1 ||
        q->t[0].n != 1 || q->t[0].coef != 1 || pS->aAtom[q->t[0].a[0]].eKind != KS_ATOM_BID ||
        pS->aAtom[q->t[0].a[0]].iDim != 2 || pCo->pDen->n != 1 || pCo->pDen->t[0].n != 1 ||
        pCo->pDen->t[0].coef != 1 || !is_param_atom(pS, pCo->pDen->t[0].a[0]))
      return ks_rewrite_refuse(p, "kernel '%s': the output channel is not blockIdx.z %% K with K a parameter (the "
                                  "image blockIdx.z / K)", zK);
    pM->cout = *pCo->pDen;
    memset(&pM->batch, 0, sizeof pM->batch); /* one image per blockIdx.z in the new kernel */
    pM->batch.n = 1;
    pM->batch.t[0].coef = 1;
    pM->iCoutParam = pS->aAtom[pCo->pDen->t[0].a[0]].iRef;
    return check_match(p, pS, pM);
  }
  if (pM->iBatchAtom >= 0) { /* the flat index over cout * OH * OW, the loop over the images */
    if (rem_den(pS, iOx, &pM->OW) < 0 || rem_den(pS, iOy, &pM->OH) < 0 || read_cout(pS, pM) < 0)
      return ks_rewrite_refuse(p, "kernel '%s': in its loop over the images, the output column and row are not the "
                                  "flat index split by %% of the parameters, or the output is not at y[((n * K + k) * "
                                  "OH + oy) * OW + ox] with K a parameter", zK);
    return check_match(p, pS, pM);
  }
  if (rem_den(pS, iOx, &pM->OW) < 0 || rem_den(pS, iOy, &pM->OH) < 0 || rem_den(pS, iCo, &pM->cout) < 0)
    return ks_rewrite_refuse(p, "kernel '%s': the output column, row and channel are not the flat index split by %% "
                                "of the parameters", zK);
  const ks_poly *aF[3] = {&pM->cout, &pM->OH, &pM->OW};
  if (div_batch(pS, &pM->total, aF, &pM->batch) < 0)
    return ks_rewrite_refuse(p, "kernel '%s': the flat index's bound is not batch * cout * OH * OW", zK);
  return check_match(p, pS, pM);
}

/* A constant polynomial's value, or 0 when it is not one. */
static long long poly_constant(const ks_poly *p) {
  long long v;
  return poly_const_value(p, &v) ? v : 0;
}

/* The geometry's initializer: the kernel's names (azArg NULL). */
static int geom_text(ks_buf *pB, const ks_shape *pS, const cv_match *pM) {
  const ks_poly *a[] = {&pM->batch, &pM->cin, &pM->cout, &pM->H, &pM->W, &pM->OH, &pM->OW, &pM->kh,
                        &pM->kw,    &pM->sy,  &pM->sx,   &pM->py, &pM->px, &pM->dy, &pM->dx};
  int rc = ks_buf_puts(pB, "{");
  for (unsigned i = 0; rc >= 0 && i < sizeof a / sizeof a[0]; i++) {
    if (i) rc = ks_buf_puts(pB, ", ");
    if (rc >= 0) rc = ks_buf_puts(pB, "(int)");
    if (rc >= 0) rc = poly_text(pB, pS, a[i], NULL);
  }
  if (rc >= 0) rc = ks_buf_puts(pB, "}");
  return rc;
}

/* Whether polynomial p reads parameter iParam. */
static int poly_has_param(const ks_shape *pS, const ks_poly *p, int iParam) {
  for (int i = 0; i < p->n; i++)
    for (int j = 0; j < p->t[i].n; j++)
      if (is_param_atom(pS, p->t[i].a[j]) && pS->aAtom[p->t[i].a[j]].iRef == iParam) return 1;
  return 0;
}

/* 3-D: launch pL's grid is written `dim3(X, Y, Z)` with Z the images times
 * the launch's argument for cout (parameter iCout), as a product in any
 * order: the images' text (malloc'd, "1" when Z is that argument alone). */
static int grid_images(ks_rewrite *p, const ks_launch *pL, int iCout, char **pzOut) {
  ks_tu *pTu = ks_rewrite_tu(p);
  *pzOut = NULL;
  char *zG = pL->azCfg[0] ? ks_rw_squash_text(pL->azCfg[0]) : NULL;
  char *zK = iCout < pL->nArgs ? ks_rw_squash_text(pL->azArg[iCout]) : NULL;
  const char *zWhy = NULL;
  char *aPart[3] = {0}, *zImg = NULL;
  int nPart = 0;
  size_t nG = zG ? strlen(zG) : 0;
  if (!zG || !zK) zWhy = "out of memory";
  else if (strncmp(zG, "dim3(", 5) != 0 || zG[nG - 1] != ')')
    zWhy = "the grid is not written dim3(X, Y, Z) at the launch";
  else {
    /* the three components, split at top-level commas */
    int d = 0;
    char *q = zG + 5;
    zG[nG - 1] = 0;
    aPart[nPart++] = q;
    for (; *q && nPart <= 3; q++) {
      if (*q == '(') d++;
      else if (*q == ')') d--;
      else if (*q == ',' && d == 0) {
        *q = 0;
        if (nPart == 3) nPart++;
        else aPart[nPart++] = q + 1;
      }
    }
    if (nPart != 3) zWhy = "the grid is not written dim3(X, Y, Z) at the launch";
  }
  if (!zWhy) {
    /* Z: a product; one top-level factor is cout's argument */
    char *z = aPart[2], *aF[8];
    int nF = 0, d = 0, iK = -1;
    aF[nF++] = z;
    for (char *q = z; *q && nF < 8; q++) {
      if (*q == '(') d++;
      else if (*q == ')') d--;
      else if (*q == '*' && d == 0) *q = 0, aF[nF++] = q + 1;
      else if (d == 0 && strchr("+-/%?<>&|^,", *q)) nF = 8;
    }
    for (int i = 0; i < nF && nF < 8 && iK < 0; i++)
      if (strcmp(aF[i], zK) == 0) iK = i;
    if (nF >= 8 || iK < 0) zWhy = "the grid's z extent is not the images times the launch's argument for K";
    else {
      ks_buf b = KS_BUF_INIT;
      int rc = KS_OK, n = 0;
      for (int i = 0; i < nF && rc >= 0; i++)
        if (i != iK) rc = ks_buf_printf(&b, "%s(%s)", n++ ? " * " : "", aF[i]);
      if (rc >= 0 && n == 0) rc = ks_buf_puts(&b, "1");
      zImg = rc >= 0 ? ks_buf_detach(&b) : NULL;
      ks_buf_free(&b);
      if (!zImg) zWhy = "out of memory";
      else if (!ks_rw_arg_pure(zImg)) zWhy = "the grid's z extent may have an effect (the new grid would evaluate it again)";
    }
  }
  int rc = KS_OK;
  if (zWhy && strcmp(zWhy, "out of memory") == 0) rc = ks_error_set(KS_ENOMEM, "out of memory");
  else if (zWhy)
    rc = ks_rewrite_refuse(p, "%s:%u: the launch of '%s' with grid '%s': %s ('%s'); the new grid needs the number of "
                              "images (blockIdx.z / K)",
                           pTu->zFile, pL->iLine, ks_rewrite_kernel_name(p), pL->azCfg[0] ? pL->azCfg[0] : "?", zWhy,
                           iCout < pL->nArgs ? pL->azArg[iCout] : "?");
  free(zG);
  free(zK);
  if (rc < 0) free(zImg);
  else *pzOut = zImg;
  return rc;
}

static int apply_conv_igemm(ks_rewrite *p) {
  ks_tu *pTu = ks_rewrite_tu(p);
  const char *zKernel = ks_rewrite_kernel_name(p);
  const char *zCfg = ks_rewrite_param(p, "config", CV_DEFAULT_CONFIG);
  const char *zWhy;
  cv_cfg c;
  if ((zWhy = parse_cfg(zCfg, &c))) return ks_rewrite_refuse(p, "config=%s: %s", zCfg, zWhy);
  const int nT = cfg_threads(&c);
  CXCursor kernel = ks_ast_find_kernel(pTu, zKernel);
  if (clang_Cursor_isNull(kernel)) return ks_rewrite_refuse(p, "no kernel '%s' in the file", zKernel);
  unsigned iKs, iKe;
  if (ks_ast_extent(pTu, kernel, &iKs, &iKe) != 0)
    return ks_rewrite_refuse(p, "kernel '%s' is not defined in the main file", zKernel);
  if (ks_rewrite_has_note(p, iKs, iKe, NULL))
    return ks_rewrite_already(p, "kernel '%s' already calls the convolution template", zKernel);
  if (!ks_rw_kernel_in_namespaces(kernel))
    return ks_rewrite_refuse(p, "kernel '%s' is not defined at file scope or in namespaces (inside a class or a function)",
                             zKernel);
  CXCursor body = ks_rw_body(kernel);
  unsigned iBs, iBe;
  if (clang_Cursor_isNull(body) || ks_ast_extent(pTu, body, &iBs, &iBe) != 0)
    return ks_rewrite_refuse(p, "kernel '%s' has no body in the main file", zKernel);
  if (ks_rw_has_word(pTu, iKs, iBs, "__launch_bounds__"))
    return ks_rewrite_refuse(p, "kernel '%s' has __launch_bounds__; its block size changes here (apply launch-bounds "
                                "after)", zKernel);

  ks_shape *pS = NULL;
  ks_launch *aL = NULL;
  int nL = 0, rc;
  ks_buf b = KS_BUF_INIT, cfg = KS_BUF_INIT, note = KS_BUF_INIT, geo = KS_BUF_INIT;
  char *zX = NULL, *zW = NULL, *zY = NULL, *zB = NULL;
  cv_match m;
  if ((rc = ks_shape_build(pTu, kernel, &pS)) < 0) goto done;
  if ((rc = cv_match_kernel(p, kernel, pS, &m)) < 0) goto done;
  /* The rule changes the grid and block: every use must be a launch it rewrites. */
  if ((rc = ks_rw_launch_contract(p, zKernel)) < 0) goto done;
  if ((rc = ks_rw_kernel_launches(p, zKernel, &aL, &nL)) < 0) goto done;
  zX = ks_rw_spelling(clang_Cursor_getArgument(kernel, (unsigned)m.iX));
  zW = ks_rw_spelling(clang_Cursor_getArgument(kernel, (unsigned)m.iW));
  zY = ks_rw_spelling(clang_Cursor_getArgument(kernel, (unsigned)m.iY));
  /* the bias goes in as the template's last argument: ", bias" */
  zB = m.iBias >= 0 ? ks_rw_spelling(clang_Cursor_getArgument(kernel, (unsigned)m.iBias)) : NULL;
  if (m.iBias >= 0 && zB) {
    char *z = ks_mprintf(", %s", zB);
    free(zB);
    zB = z;
  }
  if (m.iBias >= 0 && !zB) {
    rc = ks_error_set(KS_ENOMEM, "out of memory");
    goto done;
  }
  if (!zX || !zW || !zY) {
    rc = ks_error_set(KS_ENOMEM, "out of memory");
    goto done;
  }
  if (m.b3D && m.iBatchAtom < 0) { /* one image per blockIdx.z: the input and output pointers move to it */
    ks_buf bx = KS_BUF_INIT, by = KS_BUF_INIT;
    rc = ks_buf_printf(&bx, "%s + (long long)blockIdx.z", zX);
    const ks_poly *aPx[] = {&m.cin, &m.H, &m.W}, *aPy[] = {&m.cout, &m.OH, &m.OW};
    for (int i = 0; i < 3 && rc >= 0; i++) {
      rc = ks_buf_puts(&bx, " * ");
      if (rc >= 0) rc = poly_text(&bx, pS, aPx[i], NULL);
    }
    if (rc >= 0) rc = ks_buf_printf(&by, "%s + (long long)blockIdx.z", zY);
    for (int i = 0; i < 3 && rc >= 0; i++) {
      rc = ks_buf_puts(&by, " * ");
      if (rc >= 0) rc = poly_text(&by, pS, aPy[i], NULL);
    }
    if (rc >= 0) {
      free(zX);
      free(zY);
      zX = ks_buf_detach(&bx);
      zY = ks_buf_detach(&by);
    }
    ks_buf_free(&bx);
    ks_buf_free(&by);
    if (rc < 0 || !zX || !zY) {
      rc = rc < 0 ? rc : ks_error_set(KS_ENOMEM, "out of memory");
      goto done;
    }
  }

  unsigned nIndent = 0;
  unsigned iLine0 = ks_rewrite_line_start(p, iKs, &nIndent);
  char zI[64];
  snprintf(zI, sizeof zI, "%.*s  ", (int)(nIndent < 60 ? nIndent : 60), pTu->zSrc + iLine0);
  char zT[128];
  const long long nKH = poly_constant(&m.kh), nKW = poly_constant(&m.kw);
  snprintf(zT, sizeof zT, "%d, %d, %d, %d, %d, %d, %d, %d, %lld, %lld", c.BM, c.BN, c.BK, c.WM, c.WN, c.TM, c.TN, c.S,
           nKH > 0 ? nKH : 0, nKW > 0 ? nKW : 0);
  if ((rc = geom_text(&geo, pS, &m)) < 0) goto done;
  /* the template's RELU and NHWC arguments, where not their defaults */
  const char *zFlags = m.bNHWC ? (m.bRelu ? ", true, true" : ", false, true") : m.bRelu ? ", true" : "";
  rc = ks_buf_printf(&b,
                     "\n"
                     "%s__shared__ __align__(16) float ks_smem[ks_conv::config<%d, %d, %d, %d, %d, %d, %d, %d>::SMEM / "
                     "sizeof(float)];\n"
                     "%sconst ks_conv::geom ks_g = %s;\n"
                     "%s%s"
                     "%sif (ks_conv::fits_int(ks_g))\n"
                     "%s  ks_conv::conv_block<%s, int%s>(ks_g, %s, %s, %s, ks_smem, (int)blockIdx.y, (int)blockIdx.x%s);\n"
                     "%selse\n"
                     "%s  ks_conv::conv_block_wide<%s%s>(ks_g, %s, %s, %s, ks_smem, (int)blockIdx.y, "
                     "(int)blockIdx.x%s);\n",
                     zI, c.BM, c.BN, c.BK, c.WM, c.WN, c.TM, c.TN, c.S, zI, geo.z, m.bUnchecked ? zI : "",
                     /* sizes H - KH + 1 below 1: the original's guard passes no thread, OH * OW may still be > 0 */
                     m.bUnchecked ? "if (ks_g.OH <= 0 || ks_g.OW <= 0) return; /* no output */\n" : "", zI, zI, zT,
                     zFlags, zX, zW, zY,
                     zB ? zB : "", zI, zI, zT, zFlags, zX, zW, zY, zB ? zB : "");
  if (rc < 0) goto done;
  if ((rc = ks_rewrite_replace(p, iBs + 1, iBe - 1, b.z)) < 0) goto done;

  /* __launch_bounds__ before the name: the block size, and up to 8x8 per thread two 256-thread blocks' worth of
   * registers (128 per thread), as the GEMM template has it. */
  {
    CXFile file;
    unsigned iName = 0;
    clang_getSpellingLocation(clang_getCursorLocation(kernel), &file, NULL, NULL, &iName);
    if (iName <= iKs || iName >= iBs || strncmp(pTu->zSrc + iName, zKernel, strlen(zKernel)) != 0) {
      rc = ks_rewrite_refuse(p, "the name of kernel '%s' is not written where its declaration is", zKernel);
      goto done;
    }
    char zLb[64];
    snprintf(zLb, sizeof zLb, "__launch_bounds__(%d, %d) ", nT, c.TM * c.TN <= 64 && nT <= 512 ? 512 / nT : 1);
    if ((rc = ks_rewrite_replace(p, iName, iName, zLb)) < 0) goto done;
  }

  rc = ks_buf_printf(&note,
                     "ks_conv::conv_block implicit GEMM (M = cout, N = batch*OH*OW, K = cin*KH*KW, im2col gathered "
                     "into shared memory), %dx%dx%d tiles, %dx%d warps, %dx%d per thread, %d stages, %d threads; sums "
                     "in the kernel's order %s",
                     c.BM, c.BN, c.BK, c.WM, c.WN, c.TM, c.TN, c.S, nT,
                     m.bNHWC ? "(ky, kx, ci); NHWC input and output, OHWI weights" : "(ci, ky, kx)");
  if (rc < 0) goto done;
  rc = ks_rw_insert_shipped(p, iLine0, nIndent, "#define KS_CONV_F32_CUH", "ks_conv_f32.cuh", "convolution template",
                            "the shipped convolution template (share/kernelskill/templates/ks_conv_f32.cuh)", note.z);
  if (rc < 0) goto done;

  /* Every launch: ceil(N / BN) x ceil(cout / BM) blocks of NT threads, N = batch * OH * OW at the launch's arguments. */
  for (int i = 0; i < nL; i++) {
    ks_launch *pL = &aL[i];
    if ((rc = ks_rw_launch_arity(p, pL, kernel, zKernel)) < 0) goto done;
    for (int a = 0; a < pL->nArgs; a++)
      if ((poly_has_param(pS, &m.batch, a) || poly_has_param(pS, &m.OH, a) || poly_has_param(pS, &m.OW, a) ||
           poly_has_param(pS, &m.cout, a)) &&
          !ks_rw_arg_pure(pL->azArg[a])) {
        rc = ks_rewrite_refuse(p, "%s:%u: the launch of '%s' passes '%s', which the new grid would evaluate again",
                               pTu->zFile, pL->iLine, zKernel, pL->azArg[a]);
        goto done;
      }
    ks_buf n = KS_BUF_INIT, mm = KS_BUF_INIT;
    char *zZ = NULL; /* 3-D: the images, from the launch's grid z */
    if (m.b3D && (rc = grid_images(p, pL, m.iCoutParam, &zZ)) < 0) goto done;
    if (m.b3D && m.iBatchAtom >= 0 && strcmp(zZ, "1") != 0) { /* its grid z is the channels alone: the images are the loop's */
      rc = ks_rewrite_refuse(p, "%s:%u: the launch of '%s' has grid z '%s' times the channels; its loop runs over "
                                "the images, so the grid's z must be the launch's argument for K alone",
                             pTu->zFile, pL->iLine, zKernel, zZ);
      free(zZ);
      goto done;
    }
    if (m.iBatchAtom >= 0) free(zZ), zZ = NULL;
    rc = ks_buf_puts(&n, "(long long)");
    if (rc >= 0) rc = poly_text(&n, pS, &m.batch, pL->azArg);
    if (rc >= 0) rc = ks_buf_puts(&n, " * ");
    if (rc >= 0) rc = poly_text(&n, pS, &m.OH, pL->azArg);
    if (rc >= 0) rc = ks_buf_puts(&n, " * ");
    if (rc >= 0) rc = poly_text(&n, pS, &m.OW, pL->azArg);
    if (rc >= 0) rc = poly_text(&mm, pS, &m.cout, pL->azArg);
    ks_buf_clear(&cfg);
    if (rc >= 0)
      rc = ks_buf_printf(&cfg, "dim3((unsigned)((%s + %d) / %d), (unsigned)((%s + %d) / %d)%s%s%s), dim3(%d)", n.z,
                         c.BN - 1, c.BN, mm.z, c.BM - 1, c.BM, zZ ? ", (unsigned)(" : "", zZ ? zZ : "", zZ ? ")" : "",
                         nT);
    free(zZ);
    if (rc >= 0) rc = ks_rw_cfg_tail(&cfg, pL);
    ks_buf_free(&n);
    ks_buf_free(&mm);
    if (rc < 0 || (rc = ks_rewrite_replace(p, pL->iCfgStart, pL->iCfgEnd, cfg.z)) < 0) goto done;
    ks_buf_clear(&note);
    if ((rc = ks_buf_printf(&note, "grid of %dx%d tiles over cout x batch*OH*OW, %d threads", c.BM, c.BN, nT)) < 0 ||
        (rc = ks_rewrite_note(p, pL->iStart, note.z)) < 0)
      goto done;
  }
done:
  ks_shape_free(pS);
  ks_ast_launches_free(aL, nL);
  ks_buf_free(&b);
  ks_buf_free(&cfg);
  ks_buf_free(&note);
  ks_buf_free(&geo);
  free(zX);
  free(zW);
  free(zY);
  free(zB);
  return rc;
}

static const char *const azParams[] = {"config", NULL};

const ks_rule ks_rule_conv_igemm = {
    "conv-igemm",
    "direct FP32 convolution (NCHW, one thread per output on a flat index, loops ci/ky/kx, bounds by continue or "
    "if; KxK, stride, padding, dilation constants or parameters; also on a 2-D grid, with a loop over the images, "
    "or valid with its output size computed from the input's) to the shipped implicit-GEMM template "
    "ks_conv_f32.cuh (config=BMxBNxBK_wWMxWN_tTMxTN_sS), bitwise the original",
    azParams, apply_conv_igemm};
