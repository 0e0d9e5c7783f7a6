/* exactf.c — integer expressions that a float evaluation computes exactly
 * (exactf.h): interval arithmetic over +, -, *, unary minus, parentheses and
 * casts to int, with narrow integer leaves. */
#include "rewrite/exactf.h"

#include <string.h>

#include "features/ast.h"

int ks_xf_elem_range(const char *zType, long long *pLo, long long *pHi) {
  static const struct { const char *z; long long lo, hi; } a[] = {
    {"unsigned char", 0, 255},        {"uint8_t", 0, 255},          {"uchar", 0, 255},
    /* plain char: signed on x86-64, unsigned on aarch64 hosts (Grace, Jetson) and under
       -funsigned-char; both ranges */
    {"signed char", -128, 127},       {"char", -128, 255},          {"int8_t", -128, 127},
    {"unsigned short", 0, 65535},     {"uint16_t", 0, 65535},       {"ushort", 0, 65535},
    {"short", -32768, 32767},         {"int16_t", -32768, 32767},   {"signed short", -32768, 32767},
  };
  if (!zType) return 0;
  if (!strncmp(zType, "const ", 6)) zType += 6;
  for (size_t i = 0; i < sizeof a / sizeof a[0]; i++)
    if (!strcmp(zType, a[i].z)) {
      *pLo = a[i].lo, *pHi = a[i].hi;
      return 1;
    }
  return 0;
}

static int in_limit(long long lo, long long hi) {
  return lo >= -KS_XF_LIMIT && hi <= KS_XF_LIMIT && lo <= hi;
}

static int is_int(CXCursor c) {
  return clang_getCanonicalType(clang_getCursorType(c)).kind == CXType_Int;
}

static long long min4(long long a, long long b, long long c, long long d) {
  long long m = a < b ? a : b;
  m = m < c ? m : c;
  return m < d ? m : d;
}

static long long max4(long long a, long long b, long long c, long long d) {
  long long m = a > b ? a : b;
  m = m > c ? m : c;
  return m > d ? m : d;
}

typedef struct xf {
  ks_xf_leaf_fn xLeaf;
  void *pArg;
  int nOps, nLeaves;
} xf;

static int range(xf *p, CXCursor c, long long *pLo, long long *pHi);

/* The one child of c (a parenthesis, a cast, a unary operator). */
static int only_child(CXCursor c, CXCursor *pK) {
  ks_ast_kids k;
  if (ks_ast_kids_get(c, &k) != 1) return 0;
  *pK = k.a[0];
  return 1;
}

/* Binary +, -, * of int operands. */
static int binary(xf *p, CXCursor c, long long *pLo, long long *pHi) {
  enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(c);
  ks_ast_kids k;
  if (op != CXBinaryOperator_Add && op != CXBinaryOperator_Sub && op != CXBinaryOperator_Mul) return 0;
  if (ks_ast_kids_get(c, &k) != 2) return 0;
  long long l0, l1, r0, r1;
  if (!range(p, k.a[0], &l0, &l1) || !range(p, k.a[1], &r0, &r1)) return 0;
  if (op == CXBinaryOperator_Add) *pLo = l0 + r0, *pHi = l1 + r1;
  else if (op == CXBinaryOperator_Sub) *pLo = l0 - r1, *pHi = l1 - r0;
  else *pLo = min4(l0 * r0, l0 * r1, l1 * r0, l1 * r1), *pHi = max4(l0 * r0, l0 * r1, l1 * r0, l1 * r1);
  p->nOps++;
  return in_limit(*pLo, *pHi);
}

static int range(xf *p, CXCursor c, long long *pLo, long long *pHi) {
  long long v;
  enum CXCursorKind e = clang_getCursorKind(c);
  if (p->xLeaf(c, pLo, pHi, p->pArg)) {
    p->nLeaves++;
    return in_limit(*pLo, *pHi);
  }
  if (e == CXCursor_IntegerLiteral || e == CXCursor_CharacterLiteral) {
    if (!ks_ast_const_int(c, &v)) return 0;
    *pLo = *pHi = v;
    return in_limit(v, v);
  }
  CXCursor k;
  switch (e) {
  case CXCursor_ParenExpr:
    return only_child(c, &k) && range(p, k, pLo, pHi);
  case CXCursor_UnexposedExpr: /* an implicit cast (the promotion of an 8-bit element to int) */
  case CXCursor_CStyleCastExpr:
    /* to int only: a cast to a narrower or unsigned type wraps, which float would not */
    return is_int(c) && only_child(c, &k) && range(p, k, pLo, pHi);
  case CXCursor_UnaryOperator: {
    enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(c);
    if (!is_int(c) || (op != CXUnaryOperator_Minus && op != CXUnaryOperator_Plus) || !only_child(c, &k) ||
        !range(p, k, pLo, pHi))
      return 0;
    if (op == CXUnaryOperator_Minus) {
      long long t = *pLo;
      *pLo = -*pHi, *pHi = -t;
    }
    return 1;
  }
  case CXCursor_BinaryOperator:
    return is_int(c) && binary(p, c, pLo, pHi);
  default:
    return 0;
  }
}

int ks_xf_range(CXCursor c, ks_xf_leaf_fn xLeaf, void *pArg, long long *pLo, long long *pHi, int *pnOps,
                int *pnLeaves) {
  xf x = {xLeaf, pArg, 0, 0};
  long long lo, hi;
  if (!is_int(c) || !range(&x, c, &lo, &hi)) return 0;
  *pLo = lo, *pHi = hi;
  if (pnOps) *pnOps = x.nOps;
  if (pnLeaves) *pnLeaves = x.nLeaves;
  return 1;
}
