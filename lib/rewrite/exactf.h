/* exactf.h — integer expressions that a float evaluation computes exactly.
 * An `int` expression built from small integers (8- and 16-bit image
 * elements, literals) by +, - and * has an integer value at every node; while
 * every such value stays within +-2^22, the same expression evaluated in
 * `float` gives the same value at every node (a float holds every integer up
 * to 2^24 exactly, and +, -, * of exact integers round only beyond that).
 * The vectorize rule's stencil path uses this to do an 8-bit Sobel's
 * arithmetic on the FMA pipe, which issues twice the integer pipe's rate on
 * sm_80+. One analysis, by interval arithmetic, refusing anything else.
 * Library-internal: it exposes libclang. */
#ifndef KS_REWRITE_EXACTF_H
#define KS_REWRITE_EXACTF_H
#include <clang-c/Index.h>

/* The bound every node's value must keep (magnitude), so that the value and
 * the magic-number conversions of ks_exactf (KS_XF_I2F/KS_XF_F2I) are exact. */
#define KS_XF_LIMIT (1LL << 22)

/* A leaf's range: 1 and [*pLo, *pHi] when c is a leaf the caller evaluates in
 * float (a windowed element), else 0. */
typedef int (*ks_xf_leaf_fn)(CXCursor c, long long *pLo, long long *pHi, void *pArg);

/* The range of expression c when a float evaluation of it is exact: c and
 * each node under it is an `int` +, -, * (binary), unary - or +, a
 * parenthesis, a cast to `int` (implicit or written), an integer constant, or
 * a leaf of xLeaf; every node's range within +-KS_XF_LIMIT. Returns 1 with
 * [*pLo, *pHi] and the number of binary operators (*pnOps) and leaves
 * (*pnLeaves) under it; else 0. */
int ks_xf_range(CXCursor c, ks_xf_leaf_fn xLeaf, void *pArg, long long *pLo, long long *pHi, int *pnOps,
                int *pnLeaves);

/* The range of a narrow integer element type's values (unsigned char,
 * signed char, char, unsigned short, short and their fixed-width names):
 * 1 with [*pLo, *pHi], else 0. */
int ks_xf_elem_range(const char *zType, long long *pLo, long long *pHi);

#endif
