/* ast.h — the library-internal view of a parsed CUDA file: libclang set up as a
 * CUDA compile sees it (CUDA 13 headers, clang 19, the stub header), plus the
 * cursor helpers every AST-reading module needs (features, rewrite, plugin
 * advice). Not installed: it exposes libclang types. */
#ifndef KS_FEATURES_AST_H
#define KS_FEATURES_AST_H

#include <clang-c/Index.h>

#include "kernelskill/common.h"
#include "kernelskill/features.h"

/* One diagnostic clang reported in the user's code (system-header noise from
 * CUDA 13 + clang 19 incompatibilities is counted, not listed). */
typedef struct ks_diag {
  char *zFile;
  unsigned iLine, iCol;
  int bError; /* error or fatal; else warning */
  char *zMsg;
} ks_diag;

struct ks_tu {
  CXIndex pIndex;
  CXTranslationUnit pTu;
  char *zFile;     /* the main file, as given */
  char *zSrc;      /* the main file's bytes as parsed (unsaved text if any) */
  size_t nSrc;
  ks_diag *aDiag;
  int nDiag;
  int nError;      /* errors in user code */
  int nSysError;   /* errors inside system headers (ignored) */
  int nPchSysError;/* of those, the ones the cached prefix had (not reported again) */
  double rParseSec;
  char **azArgs;   /* the clang arguments used, for reparse and reports */
  int nArgs;
  char *zPch;      /* the cached prefix's private link (pch.h), or NULL */
  long nPchPid;    /* the process that made it, the one to remove it */
  unsigned flags;  /* the CXTranslationUnit_ flags of the parse, for a fresh one */
  CXCursor *aTop;  /* a shared AST's main-file top-level declarations, in */
  int nTop;        /* order (bTop); else every walk visits the whole TU */
  int bTop;
  int bBorrowed;   /* pTu and pIndex are the caller's (ks_tu_adopt): not disposed */
};

/* File offsets [*piStart, *piEnd) of a cursor's extent in the main file,
 * through expansion locations (so `__global__ void k()` starting inside a
 * macro still maps to the file). Returns 0 on success, -1 if the cursor is
 * not in the main file. */
int ks_ast_extent(ks_tu *pTu, CXCursor c, unsigned *piStart, unsigned *piEnd);
/* Expansion file offset of a location; -1 if not in the main file. */
long ks_ast_offset(ks_tu *pTu, CXSourceLocation loc);
/* Line and column (1-based) of a main-file offset. */
void ks_ast_line_col(ks_tu *pTu, unsigned iOffset, unsigned *piLine, unsigned *piCol);
/* Copy of the main file's text for a cursor (malloc'd), or NULL. */
char *ks_ast_text(ks_tu *pTu, CXCursor c);
/* The value of an integer constant expression (literals, macros, enumerators,
 * constexpr and const locals, casts): 1 and *pv set, else 0. */
int ks_ast_const_int(CXCursor c, long long *pv);

/* The direct children of a cursor, in order, in a malloc'd array (*paOut NULL
 * when there are none; a short list if memory runs out). The one collector
 * every AST-reading module uses (features, shape model, rewrite rules). */
int ks_ast_children(CXCursor c, CXCursor **paOut, int *pnOut);

/* The same into a fixed array, for the many matchers that look at a node's
 * few operands without allocating: returns the count, or -1 when there are
 * more than KS_AST_KIDS_MAX (a[] then holds the first KS_AST_KIDS_MAX, n too). */
#define KS_AST_KIDS_MAX 64
typedef struct ks_ast_kids {
  CXCursor a[KS_AST_KIDS_MAX];
  int n;     /* children held in a[] */
  int bMore; /* there were more than KS_AST_KIDS_MAX */
} ks_ast_kids;
int ks_ast_kids_get(CXCursor c, ks_ast_kids *pK);

/* clang_visitChildren(translation unit cursor, xFn, pData), for visitors
 * that skip whatever is not in the main file: with pTu->bTop only the main
 * file's top-level declarations are offered, so header declarations of a
 * loaded AST are never deserialized. Nonzero when xFn broke off. */
unsigned ks_ast_visit_top(ks_tu *pTu, CXCursorVisitor xFn, CXClientData pData);

/* Is this cursor a __global__ function (declaration or template)? */
int ks_ast_is_kernel(CXCursor c);
/* Is it a __device__ function (not __global__)? */
int ks_ast_is_device_fn(CXCursor c);
/* Does the function carry __host__ (a __host__ __device__ helper)? */
int ks_ast_is_host_fn(CXCursor c);
/* Does the cursor lie in the main file? */
int ks_ast_in_main_file(CXCursor c);

/* The definition of kernel zName in the main file (clang_Cursor_isNull on
 * failure). For templates, the template cursor. */
CXCursor ks_ast_find_kernel(ks_tu *pTu, const char *zName);

/* Call a visitor for every kernel definition in the main file. */
typedef void (*ks_ast_kernel_fn)(ks_tu *pTu, CXCursor kernel, void *pArg);
void ks_ast_each_kernel(ks_tu *pTu, ks_ast_kernel_fn xFn, void *pArg);

/* A host-side launch `k<<<grid, block, smem, stream>>>(args)`. Offsets are
 * main-file bytes. */
typedef struct ks_launch {
  char *zKernel;      /* the kernel launched (template args dropped) */
  char *zHostFn;      /* enclosing host function, or "" */
  unsigned iLine;
  unsigned iStart, iEnd;       /* the whole launch expression */
  unsigned iCfgStart, iCfgEnd; /* text between <<< and >>> */
  char *zText;        /* the whole launch expression's text */
  char *azCfg[4];     /* grid, block, smem, stream: text, or NULL if absent */
  long long nBlockThreads; /* threads per block when constant (dim3 product), else 0 */
  int nArgs;          /* kernel arguments */
  char **azArg;       /* their text */
  int bStmt;          /* a whole statement: in a block, or an if / loop / case body (not in a
                         larger expression, a cast or a full-expression with temporaries) */
} ks_launch;

/* All launch sites in the main file (zKernel NULL) or of one kernel. */
int ks_ast_launches(ks_tu *pTu, const char *zKernel, ks_launch **paOut, int *pnOut);
void ks_ast_launches_free(ks_launch *a, int n);

#endif
