/* ast.c — cursor helpers over a parsed file: main-file offsets through macro
 * expansions, kernel lookup, and host launch sites `k<<<...>>>(...)`. */
#include "features/ast.h"

#include <stdlib.h>
#include <string.h>

int ks_ast_const_int(CXCursor c, long long *pv) {
  CXEvalResult r = clang_Cursor_Evaluate(c);
  if (!r) return 0;
  int b = clang_EvalResult_getKind(r) == CXEval_Int;
  if (b) *pv = clang_EvalResult_getAsLongLong(r);
  clang_EvalResult_dispose(r);
  return b;
}

long ks_ast_offset(ks_tu *pTu, CXSourceLocation loc) {
  CXFile file;
  unsigned iOff;
  clang_getExpansionLocation(loc, &file, NULL, NULL, &iOff);
  if (!file) return -1;
  CXFile mainFile = clang_getFile(pTu->pTu, pTu->zFile);
  if (!mainFile || !clang_File_isEqual(file, mainFile)) return -1;
  return (long)iOff;
}

int ks_ast_extent(ks_tu *pTu, CXCursor c, unsigned *piStart, unsigned *piEnd) {
  CXSourceRange r = clang_getCursorExtent(c);
  long iStart = ks_ast_offset(pTu, clang_getRangeStart(r));
  long iEnd = ks_ast_offset(pTu, clang_getRangeEnd(r));
  if (iStart < 0 || iEnd < 0 || iEnd < iStart || (size_t)iEnd > pTu->nSrc) return -1;
  *piStart = (unsigned)iStart;
  *piEnd = (unsigned)iEnd;
  return 0;
}

void ks_ast_line_col(ks_tu *pTu, unsigned iOffset, unsigned *piLine, unsigned *piCol) {
  unsigned iLine = 1, iCol = 1;
  for (unsigned i = 0; i < iOffset && i < pTu->nSrc; i++) {
    if (pTu->zSrc[i] == '\n') {
      iLine++;
      iCol = 1;
    } else {
      iCol++;
    }
  }
  if (piLine) *piLine = iLine;
  if (piCol) *piCol = iCol;
}

static char *dup_range(ks_tu *pTu, unsigned iStart, unsigned iEnd) {
  if (iEnd < iStart || iEnd > pTu->nSrc) return NULL;
  char *z = malloc(iEnd - iStart + 1);
  if (!z) return NULL;
  memcpy(z, pTu->zSrc + iStart, iEnd - iStart);
  z[iEnd - iStart] = 0;
  return z;
}

char *ks_ast_text(ks_tu *pTu, CXCursor c) {
  unsigned iStart, iEnd;
  if (ks_ast_extent(pTu, c, &iStart, &iEnd) < 0) return NULL;
  return dup_range(pTu, iStart, iEnd);
}

static enum CXChildVisitResult find_attr(CXCursor c, CXCursor parent, CXClientData pData) {
  (void)parent;
  if (clang_getCursorKind(c) == *(enum CXCursorKind *)pData) {
    *(enum CXCursorKind *)pData = CXCursor_InvalidCode;
    return CXChildVisit_Break;
  }
  return CXChildVisit_Continue;
}

static int has_attr(CXCursor c, enum CXCursorKind eAttr) {
  enum CXCursorKind e = eAttr;
  clang_visitChildren(c, find_attr, &e);
  return e == CXCursor_InvalidCode;
}

int ks_ast_is_kernel(CXCursor c) {
  enum CXCursorKind e = clang_getCursorKind(c);
  if (e != CXCursor_FunctionDecl && e != CXCursor_FunctionTemplate) return 0;
  return has_attr(c, CXCursor_CUDAGlobalAttr);
}

int ks_ast_is_device_fn(CXCursor c) {
  enum CXCursorKind e = clang_getCursorKind(c);
  if (e != CXCursor_FunctionDecl && e != CXCursor_FunctionTemplate) return 0;
  return has_attr(c, CXCursor_CUDADeviceAttr) && !has_attr(c, CXCursor_CUDAGlobalAttr);
}

int ks_ast_is_host_fn(CXCursor c) { return has_attr(c, CXCursor_CUDAHostAttr); }

int ks_ast_in_main_file(CXCursor c) {
  CXSourceLocation loc = clang_getCursorLocation(c);
  if (clang_Location_isFromMainFile(loc)) return 1;
  /* A declaration that starts inside a macro (`KERNEL void k()` with KERNEL =
   * extern "C" __global__) counts by its expansion location. Only macro
   * locations can differ between spelling and expansion, so the cheap test
   * above settles every other cursor (the CUDA headers have thousands). */
  CXFile fileExp, fileSpell;
  unsigned iExp, iSpell;
  clang_getExpansionLocation(loc, &fileExp, NULL, NULL, &iExp);
  clang_getSpellingLocation(loc, &fileSpell, NULL, NULL, &iSpell);
  if (!fileExp || (clang_File_isEqual(fileExp, fileSpell) && iExp == iSpell)) return 0;
  CXTranslationUnit tu = clang_Cursor_getTranslationUnit(c);
  CXString sMain = clang_getTranslationUnitSpelling(tu);
  CXFile fileMain = clang_getFile(tu, clang_getCString(sMain));
  clang_disposeString(sMain);
  return fileMain && clang_File_isEqual(fileExp, fileMain);
}

unsigned ks_ast_visit_top(ks_tu *pTu, CXCursorVisitor xFn, CXClientData pData) {
  CXCursor tu = clang_getTranslationUnitCursor(pTu->pTu);
  if (!pTu->bTop) return clang_visitChildren(tu, xFn, pData);
  for (int i = 0; i < pTu->nTop; i++) {
    enum CXChildVisitResult r = xFn(pTu->aTop[i], tu, pData);
    if (r == CXChildVisit_Break) return 1;
    if (r == CXChildVisit_Recurse && clang_visitChildren(pTu->aTop[i], xFn, pData)) return 1;
  }
  return 0;
}

/* Walk namespaces, linkage specs and classes for kernel definitions. */
typedef struct kernel_walk {
  ks_tu *pTu;
  ks_ast_kernel_fn xFn;
  void *pArg;
} kernel_walk;

static enum CXChildVisitResult walk_kernels(CXCursor c, CXCursor parent, CXClientData pData) {
  (void)parent;
  kernel_walk *pW = pData;
  enum CXCursorKind e = clang_getCursorKind(c);
  if (!ks_ast_in_main_file(c)) return CXChildVisit_Continue;
  if (e == CXCursor_Namespace || e == CXCursor_LinkageSpec || e == CXCursor_StructDecl ||
      e == CXCursor_ClassDecl || e == CXCursor_UnexposedDecl)
    return CXChildVisit_Recurse;
  if (ks_ast_is_kernel(c) && clang_isCursorDefinition(c)) pW->xFn(pW->pTu, c, pW->pArg);
  return CXChildVisit_Continue;
}

void ks_ast_each_kernel(ks_tu *pTu, ks_ast_kernel_fn xFn, void *pArg) {
  kernel_walk w = {pTu, xFn, pArg};
  ks_ast_visit_top(pTu, walk_kernels, &w);
}

typedef struct find_kernel {
  const char *zName;
  CXCursor found;
} find_kernel;

static void match_kernel(ks_tu *pTu, CXCursor c, void *pArg) {
  (void)pTu;
  find_kernel *pF = pArg;
  if (!clang_Cursor_isNull(pF->found)) return;
  CXString s = clang_getCursorSpelling(c);
  if (strcmp(clang_getCString(s), pF->zName) == 0) pF->found = c;
  clang_disposeString(s);
}

CXCursor ks_ast_find_kernel(ks_tu *pTu, const char *zName) {
  find_kernel f = {zName, clang_getNullCursor()};
  ks_ast_each_kernel(pTu, match_kernel, &f);
  return f.found;
}

/* ---- launch sites ---- */

typedef struct launch_walk {
  ks_tu *pTu;
  const char *zKernel;
  ks_launch *a;
  int n, nAlloc;
  int rc;
  CXCursor hostFn;
} launch_walk;

/* The __cudaPushCallConfiguration(grid, block, smem, stream) call that clang
 * puts under a `k<<<...>>>(...)` CallExpr; a null cursor if there is none. */
static enum CXChildVisitResult find_config_call(CXCursor c, CXCursor parent, CXClientData pData) {
  (void)parent;
  if (clang_getCursorKind(c) == CXCursor_CallExpr) {
    CXString s = clang_getCursorSpelling(c);
    int bCfg = strcmp(clang_getCString(s), "__cudaPushCallConfiguration") == 0;
    clang_disposeString(s);
    if (bCfg) {
      *(CXCursor *)pData = c;
      return CXChildVisit_Break;
    }
  }
  return CXChildVisit_Continue;
}

static CXCursor config_call(CXCursor launch) {
  CXCursor cfg = clang_getNullCursor();
  if (clang_getCursorKind(launch) == CXCursor_CallExpr) clang_visitChildren(launch, find_config_call, &cfg);
  return cfg;
}

/* Constant value of an integer expression, looking through the implicit
 * conversions and dim3(...) constructor that a launch configuration carries.
 * Returns 0 when it is not a compile-time constant. */
typedef struct child_list {
  CXCursor a[8];
  int n;
} child_list;

static enum CXChildVisitResult collect_child(CXCursor c, CXCursor parent, CXClientData pData) {
  (void)parent;
  child_list *pL = pData;
  if (pL->n < 8) pL->a[pL->n++] = c;
  return CXChildVisit_Continue;
}

static long long eval_threads(CXCursor c);

/* dim3(16, 16): the product of the constructor's expression arguments. */
static long long eval_dim3_args(const child_list *pKids) {
  long long nProd = 1;
  int nArgs = 0;
  for (int i = 0; i < pKids->n; i++) {
    if (!clang_isExpression(clang_getCursorKind(pKids->a[i]))) continue; /* the TypeRef */
    long long v = eval_threads(pKids->a[i]);
    if (v <= 0) return 0;
    nProd *= v;
    nArgs++;
  }
  return nArgs ? nProd : 0;
}

static long long eval_threads(CXCursor c) {
  CXEvalResult r = clang_Cursor_Evaluate(c);
  if (r) {
    long long v = clang_EvalResult_getKind(r) == CXEval_Int ? clang_EvalResult_getAsLongLong(r) : 0;
    clang_EvalResult_dispose(r);
    if (v > 0) return v;
  }
  child_list kids = {{{0}}, 0};
  clang_visitChildren(c, collect_child, &kids);
  if (clang_getCursorKind(c) == CXCursor_CallExpr && kids.n >= 1) {
    CXString s = clang_getCursorSpelling(c);
    int bDim3 = strcmp(clang_getCString(s), "dim3") == 0;
    clang_disposeString(s);
    if (bDim3) return eval_dim3_args(&kids);
  }
  if (clang_getCursorKind(c) == CXCursor_DeclRefExpr) {
    /* `dim3 block(16, 16); k<<<g, block>>>`: the variable's initializer. */
    CXCursor decl = clang_getCursorReferenced(c);
    if (clang_getCursorKind(decl) == CXCursor_VarDecl) {
      child_list init = {{{0}}, 0};
      clang_visitChildren(decl, collect_child, &init);
      for (int i = 0; i < init.n; i++)
        if (clang_isExpression(clang_getCursorKind(init.a[i]))) return eval_threads(init.a[i]);
    }
    return 0;
  }
  int iExpr = -1, nExpr = 0;
  for (int i = 0; i < kids.n; i++)
    if (clang_isExpression(clang_getCursorKind(kids.a[i]))) iExpr = i, nExpr++;
  if (nExpr == 1) return eval_threads(kids.a[iExpr]);
  return 0;
}

static long long launch_block_threads(CXCursor launch) {
  CXCursor cfg = config_call(launch);
  if (clang_Cursor_isNull(cfg) || clang_Cursor_getNumArguments(cfg) < 2) return 0;
  return eval_threads(clang_Cursor_getArgument(cfg, 1));
}

static int is_launch(CXCursor c) { return !clang_Cursor_isNull(config_call(c)); }

/* Split the <<< >>> text of a launch at top-level commas. */
static void split_config(ks_tu *pTu, ks_launch *pL) {
  const char *z = pTu->zSrc;
  unsigned i = pL->iCfgStart, iPart = pL->iCfgStart;
  int nDepth = 0, iSlot = 0;
  for (; i <= pL->iCfgEnd && iSlot < 4; i++) {
    char ch = i < pL->iCfgEnd ? z[i] : ',';
    if (ch == '(' || ch == '[' || ch == '{') nDepth++;
    else if (ch == ')' || ch == ']' || ch == '}') nDepth--;
    else if (ch == ',' && nDepth == 0) {
      unsigned a = iPart, b = i;
      while (a < b && (z[a] == ' ' || z[a] == '\t' || z[a] == '\n')) a++;
      while (b > a && (z[b - 1] == ' ' || z[b - 1] == '\t' || z[b - 1] == '\n')) b--;
      pL->azCfg[iSlot++] = dup_range(pTu, a, b);
      iPart = i + 1;
    }
  }
}

/* The kernel a launch calls. In a template's body the callee may be
 * dependent (`scale_t<T><<<...>>>` in a host template): the call refers to
 * nothing, its first child names the kernel template through an overload
 * reference. */
static CXCursor launch_callee(CXCursor c) {
  CXCursor callee = clang_getCursorReferenced(c);
  if (!clang_Cursor_isNull(callee) && !clang_isInvalid(clang_getCursorKind(callee))) return callee;
  child_list kids = {{{0}}, 0};
  clang_visitChildren(c, collect_child, &kids);
  if (kids.n < 1) return callee;
  CXCursor r = clang_getCursorReferenced(kids.a[0]);
  if (clang_getCursorKind(r) == CXCursor_OverloadedDeclRef && clang_getNumOverloadedDecls(r) == 1) {
    CXCursor d = clang_getOverloadedDecl(r, 0);
    if (clang_getCursorKind(d) == CXCursor_FunctionTemplate) return d;
  }
  return callee;
}

static int record_launch(launch_walk *pW, CXCursor c, CXCursor parent) {
  ks_tu *pTu = pW->pTu;
  CXCursor callee = launch_callee(c);
  CXString sName = clang_getCursorSpelling(callee);
  const char *zName = clang_getCString(sName);
  int rc = KS_OK;
  if (pW->zKernel && strcmp(zName, pW->zKernel) != 0) goto done;
  unsigned iStart, iEnd;
  if (ks_ast_extent(pTu, c, &iStart, &iEnd) < 0) goto done;
  /* Find <<< and >>> by scanning the launch text (tokens of a macro-free
   * launch expression; we only look outside string literals). */
  const char *z = pTu->zSrc;
  unsigned iOpen = 0, iClose = 0;
  for (unsigned i = iStart; i + 2 < iEnd; i++) {
    if (!iOpen && z[i] == '<' && z[i + 1] == '<' && z[i + 2] == '<') iOpen = i + 3;
    else if (iOpen && z[i] == '>' && z[i + 1] == '>' && z[i + 2] == '>') {
      iClose = i;
      break;
    }
  }
  if (!iOpen || !iClose) goto done; /* launch written through a macro: not reported */
  if (pW->n == pW->nAlloc) {
    int nNew = pW->nAlloc ? pW->nAlloc * 2 : 8;
    ks_launch *a = realloc(pW->a, sizeof(ks_launch) * (size_t)nNew);
    if (!a) {
      rc = ks_error_set(KS_ENOMEM, "out of memory");
      goto done;
    }
    pW->a = a;
    pW->nAlloc = nNew;
  }
  ks_launch *pL = &pW->a[pW->n++];
  memset(pL, 0, sizeof *pL);
  pL->zKernel = ks_strdup(zName);
  CXString sHost = clang_getCursorSpelling(pW->hostFn);
  pL->zHostFn = ks_strdup(clang_Cursor_isNull(pW->hostFn) ? "" : clang_getCString(sHost));
  clang_disposeString(sHost);
  pL->iStart = iStart;
  pL->iEnd = iEnd;
  pL->iCfgStart = iOpen;
  pL->iCfgEnd = iClose;
  pL->zText = dup_range(pTu, iStart, iEnd);
  ks_ast_line_col(pTu, iStart, &pL->iLine, NULL);
  split_config(pTu, pL);
  pL->nBlockThreads = launch_block_threads(c);
  switch (clang_getCursorKind(parent)) {
  case CXCursor_CompoundStmt: case CXCursor_IfStmt: case CXCursor_ForStmt: case CXCursor_WhileStmt:
  case CXCursor_DoStmt: case CXCursor_LabelStmt: case CXCursor_CaseStmt: case CXCursor_DefaultStmt:
    pL->bStmt = 1; /* a void call cannot be a condition: under an if or loop it is the body */
    break;
  default:
    break;
  }
  int nArgs = clang_Cursor_getNumArguments(c);
  if (nArgs > 0) {
    pL->azArg = calloc((size_t)nArgs, sizeof(char *));
    for (int i = 0; pL->azArg && i < nArgs; i++) pL->azArg[i] = ks_ast_text(pTu, clang_Cursor_getArgument(c, (unsigned)i));
    pL->nArgs = pL->azArg ? nArgs : 0;
  }
done:
  clang_disposeString(sName);
  return rc;
}

static enum CXChildVisitResult walk_launches(CXCursor c, CXCursor parent, CXClientData pData) {
  launch_walk *pW = pData;
  if (pW->rc < 0) return CXChildVisit_Break;
  if (!ks_ast_in_main_file(c)) return CXChildVisit_Continue;
  enum CXCursorKind e = clang_getCursorKind(c);
  if (e == CXCursor_FunctionDecl || e == CXCursor_FunctionTemplate || e == CXCursor_CXXMethod) {
    CXCursor saved = pW->hostFn;
    pW->hostFn = c;
    clang_visitChildren(c, walk_launches, pW);
    pW->hostFn = saved;
    return CXChildVisit_Continue;
  }
  if (is_launch(c)) {
    pW->rc = record_launch(pW, c, parent);
    /* Launches do not nest in their arguments in practice, but walk on. */
  }
  return CXChildVisit_Recurse;
}

int ks_ast_launches(ks_tu *pTu, const char *zKernel, ks_launch **paOut, int *pnOut) {
  launch_walk w = {pTu, zKernel, NULL, 0, 0, KS_OK, clang_getNullCursor()};
  ks_ast_visit_top(pTu, walk_launches, &w);
  if (w.rc < 0) {
    ks_ast_launches_free(w.a, w.n);
    return w.rc;
  }
  *paOut = w.a;
  *pnOut = w.n;
  return KS_OK;
}

void ks_ast_launches_free(ks_launch *a, int n) {
  for (int i = 0; i < n; i++) {
    free(a[i].zKernel);
    free(a[i].zHostFn);
    free(a[i].zText);
    for (int j = 0; j < 4; j++) free(a[i].azCfg[j]);
    for (int j = 0; j < a[i].nArgs; j++) free(a[i].azArg[j]);
    free(a[i].azArg);
  }
  free(a);
}

typedef struct child_vec {
  CXCursor *a;
  int n, nAlloc;
} child_vec;

static enum CXChildVisitResult child_vec_cb(CXCursor c, CXCursor parent, CXClientData pData) {
  (void)parent;
  child_vec *v = pData;
  if (v->n == v->nAlloc) {
    int nNew = v->nAlloc ? v->nAlloc * 2 : 8;
    CXCursor *a = realloc(v->a, sizeof(CXCursor) * (size_t)nNew);
    if (!a) return CXChildVisit_Break;
    v->a = a;
    v->nAlloc = nNew;
  }
  v->a[v->n++] = c;
  return CXChildVisit_Continue;
}

static enum CXChildVisitResult kids_cb(CXCursor c, CXCursor parent, CXClientData pData) {
  (void)parent;
  ks_ast_kids *pK = pData;
  if (pK->n < KS_AST_KIDS_MAX) pK->a[pK->n++] = c;
  else pK->bMore = 1;
  return CXChildVisit_Continue;
}

int ks_ast_kids_get(CXCursor c, ks_ast_kids *pK) {
  pK->n = 0;
  pK->bMore = 0;
  clang_visitChildren(c, kids_cb, pK);
  return pK->bMore ? -1 : pK->n;
}

int ks_ast_children(CXCursor c, CXCursor **paOut, int *pnOut) {
  child_vec v = {NULL, 0, 0};
  clang_visitChildren(c, child_vec_cb, &v);
  *paOut = v.a;
  *pnOut = v.n;
  return KS_OK;
}

/* ---- the kernels an entry point uses ---- */

/* One main-file function definition and the functions its body names. */
typedef struct fn_refs {
  char *zName;
  char **azRef;   /* names of functions referenced (calls, launches, pointers) */
  unsigned char *abKernel; /* azRef[i] names a __global__ function */
  int nRef, nAlloc;
} fn_refs;

typedef struct refs_walk {
  fn_refs *a;
  int n, nAlloc;
  int iCur; /* the function being walked, or -1 */
  int rc;
} refs_walk;

static int refs_add(fn_refs *f, const char *zName, int bKernel) {
  for (int i = 0; i < f->nRef; i++)
    if (!strcmp(f->azRef[i], zName)) return KS_OK;
  if (f->nRef == f->nAlloc) {
    int nNew = f->nAlloc ? f->nAlloc * 2 : 8;
    char **az = realloc(f->azRef, sizeof(char *) * (size_t)nNew);
    if (!az) return ks_error_set(KS_ENOMEM, "out of memory");
    f->azRef = az;
    unsigned char *ab = realloc(f->abKernel, (size_t)nNew);
    if (!ab) return ks_error_set(KS_ENOMEM, "out of memory");
    f->abKernel = ab;
    f->nAlloc = nNew;
  }
  if (!(f->azRef[f->nRef] = ks_strdup(zName))) return ks_error_set(KS_ENOMEM, "out of memory");
  f->abKernel[f->nRef++] = (unsigned char)(bKernel != 0);
  return KS_OK;
}

static enum CXChildVisitResult walk_refs(CXCursor c, CXCursor parent, CXClientData pData) {
  (void)parent;
  refs_walk *pW = pData;
  if (pW->rc < 0) return CXChildVisit_Break;
  enum CXCursorKind e = clang_getCursorKind(c);
  if (pW->iCur < 0) {
    if (!ks_ast_in_main_file(c)) return CXChildVisit_Continue;
    if (e == CXCursor_Namespace || e == CXCursor_LinkageSpec || e == CXCursor_UnexposedDecl ||
        e == CXCursor_StructDecl || e == CXCursor_ClassDecl)
      return CXChildVisit_Recurse;
    if ((e != CXCursor_FunctionDecl && e != CXCursor_FunctionTemplate && e != CXCursor_CXXMethod) ||
        !clang_isCursorDefinition(c))
      return CXChildVisit_Continue;
    if (pW->n == pW->nAlloc) {
      int nNew = pW->nAlloc ? pW->nAlloc * 2 : 16;
      fn_refs *a = realloc(pW->a, sizeof(fn_refs) * (size_t)nNew);
      if (!a) return pW->rc = ks_error_set(KS_ENOMEM, "out of memory"), CXChildVisit_Break;
      pW->a = a;
      pW->nAlloc = nNew;
    }
    fn_refs *f = &pW->a[pW->n];
    memset(f, 0, sizeof *f);
    CXString s = clang_getCursorSpelling(c);
    f->zName = ks_strdup(clang_getCString(s));
    clang_disposeString(s);
    if (!f->zName) return pW->rc = ks_error_set(KS_ENOMEM, "out of memory"), CXChildVisit_Break;
    pW->iCur = pW->n++;
    clang_visitChildren(c, walk_refs, pW);
    pW->iCur = -1;
    return CXChildVisit_Continue;
  }
  if (e == CXCursor_DeclRefExpr || e == CXCursor_MemberRefExpr || e == CXCursor_OverloadedDeclRef) {
    CXCursor r = clang_getCursorReferenced(c);
    enum CXCursorKind eR = clang_getCursorKind(r);
    if (eR == CXCursor_FunctionDecl || eR == CXCursor_FunctionTemplate || eR == CXCursor_CXXMethod ||
        e == CXCursor_OverloadedDeclRef) {
      CXString s = clang_getCursorSpelling(e == CXCursor_OverloadedDeclRef ? c : r);
      const char *z = clang_getCString(s);
      /* An overload set counts as a kernel when one of its members is. */
      int bKernel = 0;
      if (e == CXCursor_OverloadedDeclRef) {
        unsigned nDecl = clang_getNumOverloadedDecls(c);
        for (unsigned i = 0; i < nDecl && !bKernel; i++) bKernel = ks_ast_is_kernel(clang_getOverloadedDecl(c, i));
      } else {
        CXCursor t = clang_getSpecializedCursorTemplate(r);
        bKernel = ks_ast_is_kernel(r) || (!clang_Cursor_isNull(t) && ks_ast_is_kernel(t));
      }
      if (z && *z) pW->rc = refs_add(&pW->a[pW->iCur], z, bKernel);
      clang_disposeString(s);
    }
  }
  return CXChildVisit_Recurse;
}

int ks_features_kernel_shipped(ks_tu *pTu, const char *zName) {
  CXCursor c = ks_ast_find_kernel(pTu, zName);
  if (clang_Cursor_isNull(c)) return 0;
  for (c = clang_getCursorSemanticParent(c); !clang_Cursor_isNull(c) && !clang_isTranslationUnit(clang_getCursorKind(c));
       c = clang_getCursorSemanticParent(c)) {
    if (clang_getCursorKind(c) != CXCursor_Namespace) continue;
    CXString s = clang_getCursorSpelling(c);
    int bOurs = strncmp(clang_getCString(s), "ks_", 3) == 0;
    clang_disposeString(s);
    if (bOurs) return 1;
  }
  return 0;
}

int ks_features_entry_kernels(ks_tu *pTu, const char *zEntry, char ***pazOut, int *pnOut) {
  refs_walk w = {NULL, 0, 0, -1, KS_OK};
  char **azOut = NULL, **azSeen = NULL;
  int nOut = 0, nSeen = 0, rc;
  *pazOut = NULL;
  *pnOut = 0;
  ks_ast_visit_top(pTu, walk_refs, &w);
  if ((rc = w.rc) < 0) goto done;
  /* Breadth first from the entry over host functions of this file. */
  azSeen = calloc((size_t)w.n + 1, sizeof(char *));
  azOut = calloc(1, sizeof(char *));
  if (!azSeen || !azOut) { rc = ks_error_set(KS_ENOMEM, "out of memory"); goto done; }
  azSeen[nSeen++] = (char *)zEntry;
  for (int iQ = 0; iQ < nSeen; iQ++) {
    for (int i = 0; i < w.n; i++) {
      fn_refs *f = &w.a[i];
      if (strcmp(f->zName, azSeen[iQ]) != 0) continue;
      for (int j = 0; j < f->nRef; j++) {
        const char *z = f->azRef[j];
        char ***paz = f->abKernel[j] ? &azOut : &azSeen;
        int *pn = f->abKernel[j] ? &nOut : &nSeen;
        int bHave = 0;
        for (int k = 0; k < *pn && !bHave; k++) bHave = !strcmp((*paz)[k], z);
        if (bHave) continue;
        if (f->abKernel[j]) {
          char **az = realloc(azOut, sizeof(char *) * (size_t)(nOut + 2));
          if (!az || !(az[nOut] = ks_strdup(z))) {
            if (az) azOut = az;
            rc = ks_error_set(KS_ENOMEM, "out of memory");
            goto done;
          }
          azOut = az;
          azOut[++nOut] = NULL;
        } else {
          /* Only functions defined here extend the walk (a name refers to
           * one of w.a, never to itself through azSeen's storage). */
          int bDefined = 0;
          for (int k = 0; k < w.n && !bDefined; k++) bDefined = !strcmp(w.a[k].zName, z);
          if (!bDefined) continue;
          char **az = realloc(azSeen, sizeof(char *) * (size_t)(nSeen + 2));
          if (!az) { rc = ks_error_set(KS_ENOMEM, "out of memory"); goto done; }
          azSeen = az;
          azSeen[nSeen++] = f->azRef[j];
        }
      }
    }
  }
  *pazOut = azOut;
  *pnOut = nOut;
  azOut = NULL;
done:
  if (azOut) {
    for (int i = 0; i < nOut; i++) free(azOut[i]);
    free(azOut);
  }
  free(azSeen);
  for (int i = 0; i < w.n; i++) {
    for (int j = 0; j < w.a[i].nRef; j++) free(w.a[i].azRef[j]);
    free(w.a[i].azRef);
    free(w.a[i].abKernel);
    free(w.a[i].zName);
  }
  free(w.a);
  return rc;
}
