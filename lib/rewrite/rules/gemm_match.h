/* gemm_match.h — what rules share with each other: the naive-GEMM matcher
 * (defined in smem-tile-gemm.c, used by library-gemm.c) and the flags-line
 * helper (defined in nvcc-flags.c, used by rules that record a link flag).
 * Library-internal; lib/CMakeLists.txt compiles only the .c files here. */
#ifndef KS_REWRITE_RULES_GEMM_MATCH_H
#define KS_REWRITE_RULES_GEMM_MATCH_H

#include "kernelskill/rewrite.h"

/* What the GEMM matcher found in a kernel. */
typedef struct ks_gemm_match {
  int bDouble;                 /* element type double (else float) */
  int iA, iB, iC;              /* parameter indices of the matrices */
  int iM, iN, iK, iX, iY, iZ;  /* parameter index of M, N, K, lda, ldb, ldc when one parameter, else -1 */
  char *zM, *zN, *zK;          /* bounds as written in the kernel */
  char *zX, *zY, *zZ;          /* row strides of A, B, C as written */
  char *zRowType, *zColType, *zKType;
  char *zACast, *zBCast, *zCCast; /* widening cast on the row (A, C) or k (B) factor of an index, "(size_t)", or NULL */
  int bRowOnY;                 /* row index from blockIdx.y (col from .x) */
  unsigned iKernelStart, iKernelEnd;
  unsigned iBodyStart, iBodyEnd; /* the body's braces: [iBodyStart] == '{', [iBodyEnd-1] == '}' */
} ks_gemm_match;

/* Match the kernel being rewritten as a naive GEMM. KS_OK and *pG filled, or
 * KS_EPRECOND with the reason (nothing to free then). */
int ks_rule_gemm_match(ks_rewrite *p, ks_gemm_match *pG);
void ks_rule_gemm_match_free(ks_gemm_match *pG);

/* Add the flags in zFlags to the file's `// kernelskill-flags:` line.
 * *pbChanged says whether an edit was queued. KS_OK, or KS_EPRECOND with the
 * message set. */
int ks_rule_nvcc_flags_add(ks_rewrite *p, const char *zFlags, int *pbChanged);

#endif
