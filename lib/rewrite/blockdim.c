/* blockdim.c — a kernel's indices with the block size written as a constant.
 * `int i = blockIdx.x * BLOCK_SIZE + threadIdx.x;` launched as
 * `k<<<n / BLOCK_SIZE, BLOCK_SIZE>>>` is the thread index, but only because
 * every launch passes that block; rules recognise the index by blockDim
 * (the shape model's thread index) and refuse it. When a rule does, the engine
 * (rewrite.c) reads the constant as blockDim where the launches prove it
 * equal: each launch of the kernel in the file has a constant block
 * (ks_rw_launch_block_dims: an integer, dim3 of constants, or a local dim3 so
 * initialized and only ever a whole launch argument) whose dimension is the
 * constant, and the constant appears nowhere else in the kernel (an
 * array sized BLOCK_SIZE or a loop bound would not follow a rule that
 * changes the block). The edit keeps the file's lines. */
#include "rewrite/blockdim.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "features/ast.h"
#include "rewrite/rwutil.h"

#define BD_MAX 16

typedef struct bd_use {
  unsigned iStart, iEnd; /* the constant's text */
  int iDim;              /* 0 x, 1 y, 2 z */
  long long v;
} bd_use;

typedef struct bd_walk {
  ks_tu *pTu;
  bd_use a[BD_MAX];
  int n;
  int bOver; /* more products than BD_MAX */
} bd_walk;

/* The text [s, e) without whitespace into z (NUL-terminated), or 0 if longer than n-1. */
static int squeeze(const ks_tu *pTu, unsigned s, unsigned e, char *z, size_t n) {
  size_t k = 0;
  for (unsigned i = s; i < e; i++) {
    if (isspace((unsigned char)pTu->zSrc[i])) continue;
    if (k + 1 >= n) return 0;
    z[k++] = pTu->zSrc[i];
  }
  z[k] = 0;
  return 1;
}

/* blockIdx.d or gridDim.d, possibly under one C-style cast: d, else -1. */
static int builtin_dim(const ks_tu *pTu, CXCursor c) {
  unsigned s, e;
  char z[96];
  if (ks_ast_extent((ks_tu *)pTu, c, &s, &e) < 0 || !squeeze(pTu, s, e, z, sizeof z)) return -1;
  const char *p = z;
  if (*p == '(') { /* (long long)blockIdx.x */
    const char *q = strchr(p, ')');
    if (!q) return -1;
    for (const char *r = p + 1; r < q; r++)
      if (!isalnum((unsigned char)*r) && *r != '_' && *r != ':') return -1;
    p = q + 1;
  }
  size_t n = strlen(p);
  if ((strncmp(p, "blockIdx.", 9) != 0 || n != 10) && (strncmp(p, "gridDim.", 8) != 0 || n != 9)) return -1;
  const char *zDim = strchr("xyz", p[n - 1]);
  return zDim && p[n - 1] ? (int)(zDim - "xyz") : -1;
}

/* A constant written as one name or number, of a type no wider than 32
 * bits (the product keeps blockIdx's unsigned int type once it is blockDim). */
static int constant_operand(const ks_tu *pTu, CXCursor c, unsigned *piS, unsigned *piE, long long *pV) {
  if (ks_ast_extent((ks_tu *)pTu, c, piS, piE) < 0 || *piE <= *piS) return 0;
  unsigned s = *piS, e = *piE; /* (128): a template's value in an instantiation's copy */
  while (e - s > 2 && pTu->zSrc[s] == '(' && pTu->zSrc[e - 1] == ')') s++, e--;
  for (unsigned i = s; i < e; i++)
    if (!isalnum((unsigned char)pTu->zSrc[i]) && pTu->zSrc[i] != '_') return 0;
  static const char *const azBuiltin[] = {"threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", NULL};
  for (int i = 0; azBuiltin[i]; i++)
    if (e - s == strlen(azBuiltin[i]) && strncmp(pTu->zSrc + s, azBuiltin[i], e - s) == 0) return 0;
  CXType t = clang_getCanonicalType(clang_getCursorType(c));
  if (clang_Type_getSizeOf(t) > 4) return 0;
  return ks_ast_const_int(c, pV) && *pV > 0;
}

static enum CXChildVisitResult find_products(CXCursor c, CXCursor parent, CXClientData pData) {
  (void)parent;
  bd_walk *pW = pData;
  if (clang_getCursorKind(c) != CXCursor_BinaryOperator || clang_getCursorBinaryOperatorKind(c) != CXBinaryOperator_Mul)
    return CXChildVisit_Recurse;
  CXCursor *k = NULL;
  int n = 0;
  if (ks_ast_children(c, &k, &n) < 0) return CXChildVisit_Break;
  for (int i = 0; n == 2 && i < 2; i++) {
    int iDim = builtin_dim(pW->pTu, k[i]);
    bd_use u;
    if (iDim < 0 || !constant_operand(pW->pTu, k[1 - i], &u.iStart, &u.iEnd, &u.v)) continue;
    u.iDim = iDim;
    if (pW->n == BD_MAX) pW->bOver = 1;
    else pW->a[pW->n++] = u;
    free(k);
    return CXChildVisit_Continue;
  }
  free(k);
  return CXChildVisit_Recurse;
}

/* Every launch of zKernel in the file has a constant block whose dimension
 * d is v for each use; else KS_EPRECOND saying which launch does not. */
static int check_launches(ks_tu *pTu, const char *zKernel, const bd_walk *pW, int *pnL) {
  ks_launch *aL = NULL;
  int nL = 0;
  /* a use other than <<< >>> (cudaLaunchKernel, a function pointer) launches with a block not seen here */
  unsigned iLine = 0;
  char zHow[64];
  int rc = ks_rw_other_use(pTu, zKernel, &iLine, zHow, sizeof zHow);
  if (rc < 0) return rc;
  if (rc > 0)
    return ks_error_set(KS_EPRECOND, "%s:%u: '%s' is also used here (%s), with a block not written in a launch",
                        pTu->zFile, iLine, zKernel, zHow);
  rc = ks_ast_launches(pTu, zKernel, &aL, &nL);
  if (rc < 0) return rc;
  if (nL == 0) rc = ks_error_set(KS_EPRECOND, "the file does not launch '%s'", zKernel);
  for (int i = 0; i < nL && rc >= 0; i++) {
    long long aDim[3];
    if (ks_rw_launch_block_dims(pTu, &aL[i], aDim) < 0) {
      rc = ks_error_set(KS_EPRECOND, "%s:%u: the launch's block is not a constant", pTu->zFile, aL[i].iLine);
      break;
    }
    for (int j = 0; j < pW->n && rc >= 0; j++)
      if (aDim[pW->a[j].iDim] != pW->a[j].v)
        rc = ks_error_set(KS_EPRECOND, "%s:%u: the launch's blockDim.%c is %lld, not %.*s (%lld)", pTu->zFile,
                          aL[i].iLine, "xyz"[pW->a[j].iDim], aDim[pW->a[j].iDim],
                          (int)(pW->a[j].iEnd - pW->a[j].iStart), pTu->zSrc + pW->a[j].iStart, pW->a[j].v);
  }
  *pnL = nL;
  ks_ast_launches_free(aL, nL);
  return rc;
}

/* The constant's name or number nowhere in the body [iBs, iBe) outside the products. */
static int check_elsewhere(ks_tu *pTu, const bd_walk *pW, unsigned iBs, unsigned iBe) {
  const char *z = pTu->zSrc;
  for (int j = 0; j < pW->n; j++) {
    size_t n = pW->a[j].iEnd - pW->a[j].iStart;
    for (unsigned i = iBs; i + n <= iBe; i++) {
      if (strncmp(z + i, z + pW->a[j].iStart, n) != 0) continue;
      if ((i > 0 && (isalnum((unsigned char)z[i - 1]) || z[i - 1] == '_' || z[i - 1] == '.')) ||
          isalnum((unsigned char)z[i + n]) || z[i + n] == '_' || z[i + n] == '.')
        continue;
      int bUse = 0;
      for (int k = 0; k < pW->n; k++) bUse |= pW->a[k].iStart == i;
      if (bUse) continue;
      unsigned iLine;
      ks_ast_line_col(pTu, i, &iLine, NULL);
      return ks_error_set(KS_EPRECOND, "%s:%u: '%.*s' is used in the kernel beside the block index, where a block "
                                       "size that a rule changes would not follow it",
                          pTu->zFile, iLine, (int)n, z + i);
    }
  }
  return KS_OK;
}

static int cmp_use(const void *a, const void *b) {
  const bd_use *x = a, *y = b;
  return x->iStart < y->iStart ? -1 : x->iStart > y->iStart;
}

static int build(ks_tu *pTu, bd_walk *pW, int nL, ks_blockdim *pOut) {
  ks_buf src = KS_BUF_INIT, what = KS_BUF_INIT;
  int rc = KS_OK;
  unsigned iPos = 0;
  qsort(pW->a, (size_t)pW->n, sizeof pW->a[0], cmp_use);
  for (int j = 0; j < pW->n && rc >= 0; j++) {
    const bd_use *u = &pW->a[j];
    int n = (int)(u->iEnd - u->iStart);
    const char *zE = pTu->zSrc + u->iStart;
    rc = ks_buf_append(&src, pTu->zSrc + iPos, u->iStart - iPos);
    if (rc >= 0) rc = ks_buf_printf(&src, "blockDim.%c /* %.*s */", "xyz"[u->iDim], n, zE);
    iPos = u->iEnd;
  }
  /* "BLOCK_SIZE read as blockDim.x (256), ...": the first constant of each dimension */
  for (int d = 0; d < 3 && rc >= 0; d++)
    for (int j = 0; j < pW->n; j++)
      if (pW->a[j].iDim == d) {
        rc = ks_buf_printf(&what, "%s%.*s read as blockDim.%c (%lld)", what.n ? ", " : "",
                           (int)(pW->a[j].iEnd - pW->a[j].iStart), pTu->zSrc + pW->a[j].iStart, "xyz"[d], pW->a[j].v);
        break;
      }
  if (rc >= 0) rc = ks_buf_printf(&what, ": the block of each of the file's %d launch%s", nL, nL == 1 ? "" : "es");
  if (rc >= 0) rc = ks_buf_append(&src, pTu->zSrc + iPos, pTu->nSrc - iPos);
  if (rc >= 0) {
    pOut->nSrc = src.n;
    pOut->zSrc = ks_buf_detach(&src);
    pOut->zWhat = ks_buf_detach(&what);
    if (!pOut->zSrc || !pOut->zWhat) rc = ks_error_set(KS_ENOMEM, "out of memory");
  }
  ks_buf_free(&src);
  ks_buf_free(&what);
  return rc;
}

int ks_rewrite_blockdim(ks_tu *pTu, const char *zKernel, ks_blockdim *pOut) {
  memset(pOut, 0, sizeof *pOut);
  CXCursor kernel = ks_ast_find_kernel(pTu, zKernel);
  CXCursor body = clang_getCursorKind(kernel) == CXCursor_FunctionDecl ? ks_rw_body(kernel) : clang_getNullCursor();
  unsigned iBs, iBe;
  if (clang_Cursor_isNull(body) || ks_ast_extent(pTu, body, &iBs, &iBe) < 0) return KS_EPRECOND;
  bd_walk w;
  memset(&w, 0, sizeof w);
  w.pTu = pTu;
  clang_visitChildren(body, find_products, &w);
  if (w.n == 0) return KS_EPRECOND;
  if (w.bOver) return ks_error_set(KS_EPRECOND, "more than %d products of the block index with a constant", BD_MAX);
  int nL = 0;
  int rc = check_launches(pTu, zKernel, &w, &nL);
  if (rc >= 0) rc = check_elsewhere(pTu, &w, iBs, iBe);
  if (rc >= 0) rc = build(pTu, &w, nL, pOut);
  if (rc < 0) ks_rewrite_blockdim_free(pOut);
  return rc;
}

void ks_rewrite_blockdim_free(ks_blockdim *p) {
  free(p->zSrc);
  free(p->zWhat);
  memset(p, 0, sizeof *p);
}
