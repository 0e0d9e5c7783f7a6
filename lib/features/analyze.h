/* analyze.h — the Feature Extractor's model of one kernel, filled by analyze.c
 * from the libclang AST and written out by features.c (JSON and text). Library-
 * internal; rules may use it for their preconditions. */
#ifndef KS_FEATURES_ANALYZE_H
#define KS_FEATURES_ANALYZE_H

#include "features/ast.h"
#include "features/shape.h"

typedef enum ks_pattern {
  KS_PAT_UNIFORM = 0,
  KS_PAT_CONTIGUOUS,
  KS_PAT_STRIDED,
  KS_PAT_INDIRECT,
  KS_PAT_UNKNOWN
} ks_pattern;

typedef enum ks_access_kind { KS_ACC_LOAD = 0, KS_ACC_STORE, KS_ACC_ATOMIC } ks_access_kind;

typedef struct ks_param {
  char *zName, *zType;
  int bPointer, bConstPointee, bRestrict;
  int nLoads, nStores, nAtomics; /* global accesses through this parameter */
} ks_param;

typedef struct ks_loop {
  unsigned iLine;
  const char *zKind; /* "for", "while", "do" */
  int iDepth;        /* 1 = outermost */
  long long nTrip;   /* -1 when not a constant */
  int bPragmaUnroll;
  int bAccumulates;
  int bGridStride;
  int bHalving;      /* the step halves or doubles (s >>= 1, s /= 2, s <<= 1, s *= 2) */
  int bHasSync;      /* a __syncthreads in its body */
  int bHasShared;    /* a __shared__ access in its body */
  char *zVar;        /* induction variable, or NULL */
} ks_loop;

typedef struct ks_access {
  int iParam;          /* index into aParam */
  unsigned iLine;
  ks_access_kind eKind;
  ks_pattern ePattern;
  int bThreadDep;      /* the index depends on threadIdx (any dimension) */
  int iLoop;           /* innermost enclosing loop (index into aLoop), or -1 */
  int bUsesLoopVar;    /* the index uses the innermost loop's variable */
  int bUsesSmallLoopVar; /* ... or that of an enclosing loop of <= 16 constant trips */
  char *zIndex;        /* the index expression as written */
  char *zShape;        /* zIndex with literals and spaces removed (stencil test) */
  int iProduct;        /* id of the `x * y` this load is an operand of, or 0 */
} ks_access;

typedef struct ks_shared {
  char *zName, *zType;
  long long nBytes; /* -1 when unknown (extern) */
} ks_shared;

typedef struct ks_count {
  char *zName;
  int n;
} ks_count;

typedef struct ks_kernel {
  char *zName;
  char *zFile;
  unsigned iLine;
  int bTemplate;
  char **azTemplateParam;
  int nTemplateParam;
  char **azInstantiation;
  int nInstantiation;
  int bLaunchBounds;  /* __launch_bounds__ present */
  char *zLaunchMaxThreads, *zLaunchMinBlocks; /* as written; NULL when spelled in a user macro */
  ks_param *aParam;
  int nParam;
  ks_loop *aLoop;
  int nLoop;
  ks_access *aAccess;
  int nAccess;
  ks_shared *aShared;
  int nShared;
  ks_count *aVector, *aTrans, *aAtomic;
  int nVector, nTrans, nAtomic;
  int nLdg, nSync, nShuffle, nVote, nNonconstDiv, nIntDiv, nFmaCand, nThreadBranch, nDoubleOps;
  int bBoundsCheck;
  int nSharedAccess;
  /* structure */
  int bPointwise, bReduction, bRowLoop, bNaiveGemm, bStencil, bSmemTree, bReuse, bGridStride;
  int bMultiKernelEntry; /* its host function launches other kernels too */
  int bTiledGemm;        /* shared-memory tiles multiplied in an accumulating loop */
  const char *zStructure;
  int nLaunchSites;
  long long nBlockSize; /* constant block size at the launch sites, 0 when unknown */
  ks_shape *pShape;     /* the kernel-shape model (shape.h), with the kernel's uses */
  int bTruncated;       /* the body nests deeper than the walk goes: counts are partial */
} ks_kernel;

/* Analyze every kernel of the file (or only zKernel). */
int ks_analyze_kernels(ks_tu *pTu, const char *zKernel, ks_kernel **paOut, int *pnOut);
void ks_analyze_free(ks_kernel *a, int n);
const char *ks_pattern_name(ks_pattern e);

#endif
