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
  char *zMMember, *zNMember;   /* IDIOMS: M / N a member of the struct parameter iM / iN (`d.M`: "M"), else NULL */
  char *zM, *zN, *zK;          /* bounds as written in the kernel */
  char *zX, *zY, *zZ;          /* row strides of A, B, C as written */
  char *zRowType, *zColType, *zKType;
  char *zACast, *zBCast, *zCCast; /* widening cast on the row (A, C) or k (B) factor of an index, "(size_t)", or NULL */
  int bRowOnY;                 /* row index from blockIdx.y (col from .x) */
  unsigned iKernelStart, iKernelEnd;
  unsigned iBodyStart, iBodyEnd; /* the body's braces: [iBodyStart] == '{', [iBodyEnd-1] == '}' */
  /* Only with KS_GEMM_ACCEPT_LINEAR (else 0 / NULL): */
  int bBTrans;                 /* B given transposed: B[col*ldb + k] (zY its row stride, zBCast on col) */
  char *zEpilogue;             /* statements between the k-loop and the store, as written, each ending ";\n" */
  char *zStore;                /* the stored expression as written, when not just the accumulator */
  char *zAccName, *zRowName, *zColName; /* the kernel's names, for zEpilogue/zStore (set with either) */
  int bEpiRow, bEpiCol;        /* zEpilogue/zStore read row / col */
  unsigned long long mEpiParams; /* bit i: zEpilogue/zStore read kernel parameter i (i < 64) */
  /* Only with KS_GEMM_ACCEPT_TRANS_A / KS_GEMM_ACCEPT_ACC_C (else 0): */
  int bATrans;                 /* A given transposed: A[k*lda + row] (zX its row stride, zACast on k) */
  int bInitC;                  /* the k-loop accumulates into C[row*ldc + col] itself (no accumulator, no store) */
  /* Only with KS_GEMM_ACCEPT_IDIOMS (else NULL / 0): */
  char *zInit;                 /* the accumulator's start when not 0 (`float acc = bias[col];`), as written */
  int bStoreAdd;               /* the store is `C[row*ldc + col] += value` */
  char *zCScale;               /* with bInitC: `C[..] *= s;` first, s as written (the sum starts from C * s) */
  char *zAScale;               /* the products are `s * A[..] * B[..]`: s as written */
  int bFma;                    /* the k-loop is `acc = fmaf(A[..], B[..], acc)` (fma, __fmaf_rn) */
  /* Only with KS_GEMM_ACCEPT_MODEL (else NULL / 0): */
  int bBatch;                  /* per-batch pointers on blockIdx.z: launches keep their grid's z */
  char *zBatchDecls;           /* the declarations they need (batch index, pointers), as written, each ending "\n" */
  char *zAPtr, *zBPtr, *zCPtr; /* the pointer A, B, C are read / written through when not the parameter */
  /* Only with KS_GEMM_ACCEPT_GRID (else 0 / -1): */
  int bGrid;                   /* no bounds guard: M and N are the rows and columns the launch covers (zM, zN NULL) */
  int bTemplate;               /* the kernel is a template (non-type parameters only) */
  long long anTile[2];         /* row (0) / column (1) index blockIdx * E + threadIdx: E when a constant, else 0 */
  int aiTileTpl[2];            /* ... E the template's parameter of this index (its launches' template argument), else -1 */
  char acBare[2];              /* row (0) / column (1) index blockIdx.d ('b') or threadIdx.d ('t') alone, else 0 */
  int aiBareDim[2];            /* ... its d: the launch's grid or block covers it (with a guard: up to the bound) */
  /* Only with KS_GEMM_ACCEPT_DUAL (else 0 / NULL): */
  int bDual;                   /* two products per k, `acc += s*A[..]*B[..] + s*A2[..]*B2[..]` (syr2k) */
  int iA2, iB2;                /* the second product's matrices (the layouts of A and B) */
  char *zX2, *zY2;             /* their row strides as written */
} ks_gemm_match;

/* ks_rule_gemm_match_ex flags: also accept row pointers (`P + row*lda` indexed
 * by k), B transposed and an elementwise epilogue before the store. */
#define KS_GEMM_ACCEPT_LINEAR 1u
/* Also A transposed: A[k * lda + row] (K x M row-major). */
#define KS_GEMM_ACCEPT_TRANS_A 2u
/* Also an epilogue reading C at the output's own index (C[row*ldc + col] =
 * alpha * acc + beta * C[row*ldc + col]): read by the thread that writes it. */
#define KS_GEMM_ACCEPT_OWN_C 4u
/* Also no accumulator: the k-loop is `C[row*ldc + col] += A[..] * B[..]`, each
 * thread accumulating into its own output in global memory. */
#define KS_GEMM_ACCEPT_ACC_C 8u

/* Also the idioms of GEMMs written by hand: the accumulator starting from an
 * epilogue expression (a bias, a NULL-checked bias), a store `C[..] += acc`,
 * `C[..] = 0;` before a k-loop accumulating into C, pointer parameters
 * compared with NULL in the epilogue, object-like macros in the body (a
 * function-like macro still refuses). */
#define KS_GEMM_ACCEPT_IDIOMS 16u

/* Also what only the kernel-shape model reads (features/shape.h): indexes
 * written through function-like macros (`A[IDX2C(k, i, K)]`: the layout from
 * the access's polynomial, strides as products of parameters) and per-batch
 * pointers on blockIdx.z (`const float *Ab = A + (size_t)bz * M * K;`, never
 * re-seated, the offset of blockIdx.z and parameters only). */
#define KS_GEMM_ACCEPT_MODEL 32u

/* Also the forms of GEMMs written for sizes that are tile multiples (and a
 * block per row with a thread per column, `row = blockIdx.x; col =
 * threadIdx.x;`: the extents the launch covers, cut by the guard's bounds,
 * become parameters): no
 * bounds guard (every thread of the grid writes its output), thread indices
 * `blockIdx.d * E + threadIdx.d` with E an integer constant or a non-type
 * template parameter (the block tile: a launch must show its block is E on
 * d), and kernel templates whose parameters are all non-type
 * (`template <int BLOCK_SIZE>`). */
#define KS_GEMM_ACCEPT_GRID 64u

/* Also two products per k summed into one accumulator, `acc += p1 + p2`
 * (syr2k: `alpha * a[i*m+k] * b[j*m+k] + alpha * b[i*m+k] * a[j*m+k]`): both
 * GEMMs of the same layouts over the same row and column, scaled by the same
 * scalar or neither; in the `+=` forms only. */
#define KS_GEMM_ACCEPT_DUAL 128u

/* Match the kernel being rewritten as a naive GEMM. KS_OK and *pG filled, or
 * KS_EPRECOND with the reason (nothing to free then). */
int ks_rule_gemm_match(ks_rewrite *p, ks_gemm_match *pG);
/* The same with the forms in mAccept (KS_GEMM_ACCEPT_*) also accepted;
 * ks_rule_gemm_match is this with mAccept 0. */
int ks_rule_gemm_match_ex(ks_rewrite *p, unsigned mAccept, ks_gemm_match *pG);
void ks_rule_gemm_match_free(ks_gemm_match *pG);

/* Add the flags in zFlags to the file's `// kernelskill-flags:` line.
 * *pbChanged says whether an edit was queued. KS_OK, or KS_EPRECOND with the
 * message set. */
int ks_rule_nvcc_flags_add(ks_rewrite *p, const char *zFlags, int *pbChanged);

#endif
