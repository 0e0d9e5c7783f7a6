/* sandbox.c — LLM output is untrusted code that will run on the user's machine.
 * Before a candidate is compiled, libclang checks its host code (everything
 * outside __global__ and __device__-only functions, file-scope initializers
 * included): every function it calls or names must be a kernel, a device
 * function, a function the file defines itself, or on an allowlist (CUDA
 * runtime memory/configuration/sync, math, CUDA's vector and half types, cub,
 * libcu++, the task's allowed library); includes must be on an allowlist; asm
 * in host code and unknown preprocessor directives are refused. Plus the
 * environment for the harness child, scrubbed of the LLM key and other
 * secrets. */
#include "kernelskill/sandbox.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "features/ast.h"

/* ---- allowlists ---------------------------------------------------------- */

/* Headers any candidate may include (a trailing '/' allows the folder). */
static const char *const azHeaderOk[] = {
    "cuda_runtime.h", "cuda_runtime_api.h", "device_launch_parameters.h", "cuda_fp16.h", "cuda_bf16.h",
    "cuda_fp8.h", "cuda_fp6.h", "cuda_fp4.h", "vector_types.h", "vector_functions.h", "cuda_pipeline.h",
    "cuda_pipeline_primitives.h", "cuda_awbarrier.h", "cuda_awbarrier_primitives.h", "mma.h",
    "cooperative_groups.h", "cooperative_groups/", "cub/", "cuda/", "math.h", "cmath", "stdint.h", "cstdint",
    "stddef.h", "cstddef", "float.h", "cfloat", "limits.h", "climits", "limits", "stdio.h", "cstdio", "stdlib.h",
    "cstdlib", "assert.h", "cassert", "algorithm", "type_traits", "utility", "stdbool.h", NULL};

/* CUDA runtime functions host code may call: memory, configuration,
 * occupancy, errors, synchronization, streams, events, graphs, launches. A
 * trailing '*' is a prefix. */
static const char *const azRuntimeOk[] = {
    "cudaMalloc", "cudaMallocAsync", "cudaMallocManaged", "cudaMallocPitch", "cudaMalloc3D", "cudaMallocHost",
    "cudaHostAlloc", "cudaFree", "cudaFreeAsync", "cudaFreeHost", "cudaMemcpy*", "cudaMemset*", "cudaMemGetInfo",
    "cudaMemPrefetchAsync", "cudaMemAdvise", "cudaGetLastError", "cudaPeekAtLastError", "cudaGetErrorString",
    "cudaGetErrorName", "cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaStreamCreate",
    "cudaStreamCreateWithFlags", "cudaStreamCreateWithPriority", "cudaStreamDestroy", "cudaStreamWaitEvent",
    "cudaStreamQuery", "cudaStreamBeginCapture", "cudaStreamEndCapture", "cudaStreamIsCapturing",
    "cudaStreamSetAttribute", "cudaStreamGetAttribute", "cudaEventCreate", "cudaEventCreateWithFlags",
    "cudaEventRecord", "cudaEventSynchronize", "cudaEventQuery", "cudaEventDestroy", "cudaEventElapsedTime",
    "cudaFuncSetAttribute", "cudaFuncGetAttributes", "cudaFuncSetCacheConfig", "cudaOccupancy*", "cudaGetDevice",
    "cudaGetDeviceCount", "cudaDeviceGetAttribute", "cudaGetDeviceProperties*", "cudaDeviceGetLimit",
    "cudaDeviceSetLimit", "cudaDeviceSetCacheConfig", "cudaDeviceGetCacheConfig", "cudaCtxResetPersistingL2Cache",
    "cudaLaunchKernel", "cudaLaunchKernelEx*", "cudaLaunchCooperativeKernel", "cudaGraphCreate",
    "cudaGraphInstantiate*", "cudaGraphLaunch", "cudaGraphDestroy", "cudaGraphExecDestroy", "cudaGraphExecUpdate",
    "cudaGraphExecKernelNodeSetParams", "cudaGraphAddKernelNode", "cudaGraphKernelNodeSetParams",
    "cudaGraphGetNodes", "cudaGraphUpload", "cudaDriverGetVersion", "cudaRuntimeGetVersion",
    /* what the compiler itself emits for k<<<...>>>(...) */
    "__cudaPushCallConfiguration", "__cudaPopCallConfiguration", NULL};

/* Math (C and std::), checked with a trailing f or l removed. */
static const char *const azMathOk[] = {
    "sqrt", "rsqrt", "cbrt", "exp", "exp2", "exp10", "expm1", "log", "log2", "log10", "log1p", "pow", "sin", "cos",
    "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "erf", "erfc",
    "tgamma", "lgamma", "fabs", "abs", "labs", "llabs", "fmin", "fmax", "min", "max", "floor", "ceil", "round",
    "lround", "llround", "trunc", "rint", "lrint", "llrint", "nearbyint", "fmod", "remainder", "fma", "fdim",
    "hypot", "frexp", "ldexp", "modf", "nextafter", "copysign", "isnan", "isinf", "isfinite", "isnormal",
    "signbit", "fpclassify", "sincos", "clamp", "swap", "nan", NULL};

/* Other host library calls that only print or end the process. */
static const char *const azLibcOk[] = {"printf", "fprintf", "puts", "fputs", "putchar", "fputc", "snprintf",
                                        "sprintf", "vsnprintf", "fflush", "abort", "exit", "__assert_fail",
                                        "__assert", "__assert_rtn", NULL};

static const char *const azBuiltinOk[] = {
    "__builtin_expect", "__builtin_assume", "__builtin_unreachable", "__builtin_trap", "__builtin_memcpy",
    "__builtin_memset", "__builtin_is*", "__builtin_f*", "__builtin_sqrt*", "__builtin_nan*", "__builtin_inf*",
    "__builtin_huge_val*", "__builtin_clz*", "__builtin_ctz*", "__builtin_popcount*", "__builtin_bswap*",
    "__builtin_abs", "__builtin_constant_p", "__builtin_signbit*", "__builtin_copysign*", NULL};

/* Headers whose declarations (types, operators, helpers) host code may use. */
static const char *const azDeclFileOk[] = {
    "/vector_types.h", "/vector_functions.h", "/vector_functions.hpp", "/cuda_fp16.h", "/cuda_fp16.hpp",
    "/cuda_bf16.h", "/cuda_bf16.hpp", "/cuda_fp8.h", "/cuda_fp8.hpp", "/cuda_fp6.h", "/cuda_fp6.hpp",
    "/cuda_fp4.h", "/cuda_fp4.hpp", "/mma.h", "/crt/mma.h", "/crt/mma.hpp", "/crt/math_functions.h",
    "/crt/math_functions.hpp", "/cub/", "/cuda/std/", "/cuda/__", "/cccl/cuda/", "/cooperative_groups",
    "/nv/", "/__clang_cuda_", "/bits/mathcalls.h", "/bits/std_abs.h", "/bits/stl_algobase.h", "/limits",
    "/cmath", "/math.h", "/type_traits", "/bits/move.h", "/bits/utility.h", NULL};

static int match_list(const char *const *az, const char *z) {
  for (int i = 0; az[i]; i++) {
    size_t n = strlen(az[i]);
    if (az[i][n - 1] == '*') {
      if (strncmp(z, az[i], n - 1) == 0) return 1;
    } else if (strcmp(z, az[i]) == 0) {
      return 1;
    }
  }
  return 0;
}

static int math_name(const char *z) {
  if (match_list(azMathOk, z)) return 1;
  size_t n = strlen(z);
  if (n > 1 && (z[n - 1] == 'f' || z[n - 1] == 'l')) {
    char zBase[64];
    if (n - 1 >= sizeof zBase) return 0;
    memcpy(zBase, z, n - 1);
    zBase[n - 1] = 0;
    return match_list(azMathOk, zBase);
  }
  return 0;
}

static int header_ok(const char *zName, const ks_sandbox_opts *pOpts) {
  if (strstr(zName, "..") || zName[0] == '/') return 0;
  for (int i = 0; azHeaderOk[i]; i++) {
    size_t n = strlen(azHeaderOk[i]);
    if (azHeaderOk[i][n - 1] == '/' ? strncmp(zName, azHeaderOk[i], n) == 0 : strcmp(zName, azHeaderOk[i]) == 0)
      return 1;
  }
  if (strncmp(zName, "cooperative_groups", 18) == 0 && strchr(zName, '/') == NULL) return 1;
  /* A vendor library's headers: cublas_v2.h, cublasLt.h, cufft.h, ... */
  for (int i = 0; i < pOpts->nLibraries; i++) {
    const char *zLib = pOpts->azLibraries[i];
    size_t n = strlen(zLib);
    if (strncmp(zName, zLib, n) == 0 && !strchr(zName, '/')) {
      /* "cublas" allows cublas_v2.h and cublas_api.h but not cublasLt.h. */
      char c = zName[n];
      if (c == '.' || c == '_' || (strcmp(zLib, "cusolver") == 0 && isupper((unsigned char)c))) return 1;
    }
  }
  return 0;
}

static int library_fn(const char *zName, const ks_sandbox_opts *pOpts) {
  for (int i = 0; i < pOpts->nLibraries; i++) {
    const char *zLib = pOpts->azLibraries[i];
    size_t n = strlen(zLib);
    if (strncmp(zName, zLib, n) != 0) continue;
    /* cublas allows cublasSgemm, not cublasLtMatmul (that needs "cublasLt"). */
    if (strcmp(zLib, "cublas") == 0 && strncmp(zName, "cublasLt", 8) == 0) continue;
    return 1;
  }
  return 0;
}

#ifndef KS_DEFAULT_CUDA_PATH
#define KS_DEFAULT_CUDA_PATH "/usr/local/cuda"
#endif

int ks_sandbox_clang_args(const char *const *azExtra, int nExtra, char ***pazArgs, int *pnArgs) {
  *pazArgs = NULL;
  *pnArgs = 0;
  char **a = calloc((size_t)nExtra + 3, sizeof *a);
  if (!a) return ks_error_set(KS_ENOMEM, "out of memory");
  int n = 0;
  /* CUDA 13 keeps cub and libcu++ under include/cccl, which nvcc searches and
   * clang's --cuda-path does not. */
  const char *zCuda = getenv("CUDA_PATH");
  if (!zCuda || !zCuda[0]) zCuda = KS_DEFAULT_CUDA_PATH;
  char *zCccl = ks_path_join(zCuda, "include/cccl");
  if (zCccl && ks_dir_exists(zCccl)) {
    a[n++] = ks_strdup("-isystem");
    a[n++] = zCccl;
  } else {
    free(zCccl);
  }
  for (int i = 0; i < nExtra; i++) a[n++] = ks_strdup(azExtra[i]);
  for (int i = 0; i < n; i++)
    if (!a[i]) {
      ks_sandbox_env_free(a);
      return ks_error_set(KS_ENOMEM, "out of memory");
    }
  *pazArgs = a;
  *pnArgs = n;
  return KS_OK;
}

/* ---- the walk ---------------------------------------------------------------- */

typedef struct sandbox_walk {
  ks_tu *pTu;
  const ks_sandbox_opts *pOpts;
  ks_buf *pWhy;
  int nProblems;
  unsigned iLastLine, iLastCol; /* a call and its callee share a place: one report */
  int bIncludesOnly;            /* first pass: includes only */
} sandbox_walk;

#define KS_SANDBOX_MAX_REPORTED 20

static void problem(sandbox_walk *pW, CXCursor c, const char *zFmt, const char *zArg) {
  unsigned iLine = 0, iCol = 0;
  clang_getExpansionLocation(clang_getCursorLocation(c), NULL, &iLine, &iCol, NULL);
  if (iLine == pW->iLastLine && iCol == pW->iLastCol) return;
  pW->iLastLine = iLine;
  pW->iLastCol = iCol;
  pW->nProblems++;
  if (pW->nProblems > KS_SANDBOX_MAX_REPORTED) return;
  ks_buf_printf(pW->pWhy, "%s:%u:%u: ", pW->pTu->zFile, iLine, iCol);
  ks_buf_printf(pW->pWhy, zFmt, zArg);
  ks_buf_puts(pW->pWhy, "\n");
}

static char *cursor_file(CXCursor c) {
  CXFile f = NULL;
  clang_getExpansionLocation(clang_getCursorLocation(c), &f, NULL, NULL, NULL);
  if (!f) return NULL;
  CXString s = clang_getFileName(f);
  char *z = ks_strdup(clang_getCString(s) ? clang_getCString(s) : "");
  clang_disposeString(s);
  return z;
}

static int decl_file_ok(CXCursor c) {
  char *zFile = cursor_file(c);
  int bOk = 0;
  if (zFile)
    for (int i = 0; azDeclFileOk[i] && !bOk; i++) {
      const char *zHit = strstr(zFile, azDeclFileOk[i]);
      /* "/cmath", "/limits", "/math.h": the whole file name, not a prefix. */
      if (zHit && (azDeclFileOk[i][strlen(azDeclFileOk[i]) - 1] == '/' || strchr(azDeclFileOk[i] + 1, '/') ||
                   strncmp(azDeclFileOk[i], "/__clang_cuda_", 14) == 0 || zHit[strlen(azDeclFileOk[i])] == 0))
        bOk = 1;
    }
  free(zFile);
  return bOk;
}

static enum CXChildVisitResult find_host_attr(CXCursor c, CXCursor parent, CXClientData pData) {
  (void)parent;
  if (clang_getCursorKind(c) == CXCursor_CUDAHostAttr) {
    *(int *)pData = 1;
    return CXChildVisit_Break;
  }
  return CXChildVisit_Continue;
}

/* Device code only: __global__, or __device__ without __host__ (a
 * __host__ __device__ function is host code too). */
static int device_only(CXCursor c) {
  if (ks_ast_is_kernel(c)) return 1;
  if (!ks_ast_is_device_fn(c)) return 0;
  int bHost = 0;
  clang_visitChildren(c, find_host_attr, &bHost);
  return !bHost;
}

static int is_member_kind(enum CXCursorKind e) {
  return e == CXCursor_CXXMethod || e == CXCursor_Constructor || e == CXCursor_Destructor ||
         e == CXCursor_ConversionFunction;
}

/* Is the function (or method) cursor fn allowed to be called or named from
 * host code? */
static int function_ok(sandbox_walk *pW, CXCursor fn) {
  enum CXCursorKind e = clang_getCursorKind(fn);
  if (e == CXCursor_FunctionTemplate) {
    CXCursor t = clang_getCursorDefinition(fn);
    if (!clang_Cursor_isNull(t)) fn = t;
  }
  if (ks_ast_is_kernel(fn) || ks_ast_is_device_fn(fn)) return 1;
  CXString s = clang_getCursorSpelling(fn);
  char *zName = ks_strdup(clang_getCString(s));
  clang_disposeString(s);
  if (!zName) return 0;
  int bOk = 0;
  CXSourceLocation loc = clang_getCursorLocation(fn);
  int bSystem = clang_Location_isInSystemHeader(loc);
  CXFile file = NULL;
  clang_getExpansionLocation(loc, &file, NULL, NULL, NULL);
  if (is_member_kind(e)) {
    /* Members of the file's own classes (their bodies are checked here) and
     * of the CUDA types and libraries allowed. */
    CXCursor cls = clang_getCursorSemanticParent(fn);
    bOk = ks_ast_in_main_file(cls) || decl_file_ok(cls) || decl_file_ok(fn);
  } else if (ks_ast_in_main_file(fn) || (!bSystem && file)) {
    /* The file's own function: it must be defined here (a bare declaration
     * would bind to any library symbol, e.g. `int system(const char *);`). */
    CXCursor def = clang_getCursorDefinition(fn);
    bOk = !clang_Cursor_isNull(def) && ks_ast_in_main_file(def);
  } else if (!file) {
    bOk = match_list(azBuiltinOk, zName);
  } else {
    bOk = match_list(azRuntimeOk, zName) || math_name(zName) || match_list(azLibcOk, zName) ||
          library_fn(zName, pW->pOpts) || decl_file_ok(fn);
  }
  free(zName);
  return bOk;
}

static void check_reference(sandbox_walk *pW, CXCursor site, CXCursor ref, int bCall) {
  enum CXCursorKind e = clang_getCursorKind(ref);
  if (e == CXCursor_OverloadedDeclRef) {
    /* An unresolved overload (in a template): every candidate must be fine. */
    unsigned n = clang_getNumOverloadedDecls(ref);
    for (unsigned i = 0; i < n; i++) {
      CXCursor d = clang_getOverloadedDecl(ref, i);
      if (!function_ok(pW, d)) {
        CXString s = clang_getCursorSpelling(d);
        problem(pW, site, "host code may not call '%s' (not an allowed function)", clang_getCString(s));
        clang_disposeString(s);
        return;
      }
    }
    return;
  }
  if (e == CXCursor_FunctionDecl || e == CXCursor_FunctionTemplate || is_member_kind(e)) {
    if (!function_ok(pW, ref)) {
      CXString s = clang_getCursorSpelling(ref);
      problem(pW, site, bCall ? "host code may not call '%s' (not an allowed function)"
                              : "host code may not refer to function '%s' (not an allowed function)",
              clang_getCString(s));
      clang_disposeString(s);
    }
    return;
  }
  if (!bCall) return;
  if (e == CXCursor_VarDecl || e == CXCursor_ParmDecl || e == CXCursor_FieldDecl) {
    CXString s = clang_getCursorSpelling(ref);
    problem(pW, site, "host code may not call through the function pointer '%s'", clang_getCString(s));
    clang_disposeString(s);
    return;
  }
  if (clang_Cursor_isNull(ref) || clang_isInvalid(e)) {
    CXString s = clang_getCursorSpelling(site);
    problem(pW, site, "host code makes a call the checker cannot resolve%s", "");
    clang_disposeString(s);
  }
}

static enum CXChildVisitResult first_child(CXCursor c, CXCursor parent, CXClientData pData) {
  (void)parent;
  *(CXCursor *)pData = c;
  return CXChildVisit_Break;
}

/* The callee a call names when libclang leaves the call unresolved (a
 * dependent call in a template, `k<BS><<<g, b>>>(...)`): the declaration (or
 * overload set) its callee expression names, or a null cursor when the callee
 * is anything but a name (a pointer, a cast, a dependent member). */
static CXCursor named_callee(CXCursor call) {
  CXCursor c = clang_getNullCursor();
  clang_visitChildren(call, first_child, &c);
  for (int i = 0; i < 8 && !clang_Cursor_isNull(c); i++) {
    enum CXCursorKind e = clang_getCursorKind(c);
    if (e == CXCursor_OverloadedDeclRef) return c;
    if (e == CXCursor_DeclRefExpr) return clang_getCursorReferenced(c);
    if (e != CXCursor_UnexposedExpr && e != CXCursor_ParenExpr) break;
    CXCursor next = clang_getNullCursor();
    clang_visitChildren(c, first_child, &next);
    c = next;
  }
  return clang_getNullCursor();
}

/* File-scope asm is exposed as an unexposed declaration; look at its first token. */
static int starts_with_asm(ks_tu *pTu, CXCursor c) {
  CXToken *aTok = NULL;
  unsigned nTok = 0;
  clang_tokenize(pTu->pTu, clang_getCursorExtent(c), &aTok, &nTok);
  int b = 0;
  if (nTok > 0) {
    CXString s = clang_getTokenSpelling(pTu->pTu, aTok[0]);
    const char *z = clang_getCString(s);
    b = strcmp(z, "asm") == 0 || strcmp(z, "__asm__") == 0 || strcmp(z, "__asm") == 0;
    clang_disposeString(s);
  }
  clang_disposeTokens(pTu->pTu, aTok, nTok);
  return b;
}

static enum CXChildVisitResult walk_host(CXCursor c, CXCursor parent, CXClientData pData);

static void walk_children(sandbox_walk *pW, CXCursor c) { clang_visitChildren(c, walk_host, pW); }

static enum CXChildVisitResult walk_host(CXCursor c, CXCursor parent, CXClientData pData) {
  (void)parent;
  sandbox_walk *pW = pData;
  enum CXCursorKind e = clang_getCursorKind(c);
  switch (e) {
  case CXCursor_FunctionDecl:
  case CXCursor_FunctionTemplate:
  case CXCursor_CXXMethod:
  case CXCursor_Constructor:
  case CXCursor_Destructor:
  case CXCursor_ConversionFunction:
    /* Device code cannot reach the host's system calls: not ours to police. */
    if (device_only(c)) return CXChildVisit_Continue;
    return CXChildVisit_Recurse;
  case CXCursor_GCCAsmStmt:
  case CXCursor_MSAsmStmt:
    problem(pW, c, "asm statement in host code%s", "");
    return CXChildVisit_Continue;
  case CXCursor_AsmLabelAttr:
    problem(pW, c, "asm label (renames a symbol)%s", "");
    return CXChildVisit_Continue;
  case CXCursor_CallExpr: {
    CXCursor ref = clang_getCursorReferenced(c);
    if (clang_Cursor_isNull(ref) || clang_isInvalid(clang_getCursorKind(ref))) ref = named_callee(c);
    check_reference(pW, c, ref, 1);
    return CXChildVisit_Recurse;
  }
  case CXCursor_DeclRefExpr:
  case CXCursor_MemberRefExpr:
  case CXCursor_OverloadedDeclRef: {
    CXCursor ref = e == CXCursor_OverloadedDeclRef ? c : clang_getCursorReferenced(c);
    enum CXCursorKind eRef = clang_getCursorKind(ref);
    if (eRef == CXCursor_FunctionDecl || eRef == CXCursor_FunctionTemplate || is_member_kind(eRef) ||
        eRef == CXCursor_OverloadedDeclRef)
      check_reference(pW, c, ref, 0);
    return CXChildVisit_Recurse;
  }
  case CXCursor_VarDecl:
    if (clang_Cursor_getStorageClass(c) == CX_SC_Extern && !clang_isCursorDefinition(c)) {
      CXString s = clang_getCursorSpelling(c);
      problem(pW, c, "declares the external variable '%s' (host code may only use its own data)",
              clang_getCString(s));
      clang_disposeString(s);
    }
    return CXChildVisit_Recurse;
  case CXCursor_UnexposedDecl:
    if (starts_with_asm(pW->pTu, c)) {
      problem(pW, c, "file-scope asm%s", "");
      return CXChildVisit_Continue;
    }
    return CXChildVisit_Recurse;
  default:
    if (clang_isPreprocessing(e)) return CXChildVisit_Continue;
    return CXChildVisit_Recurse;
  }
}

static enum CXChildVisitResult walk_top(CXCursor c, CXCursor parent, CXClientData pData) {
  (void)parent;
  sandbox_walk *pW = pData;
  if (!ks_ast_in_main_file(c)) return CXChildVisit_Continue;
  enum CXCursorKind e = clang_getCursorKind(c);
  if (e == CXCursor_InclusionDirective) {
    CXString s = clang_getCursorSpelling(c);
    const char *zName = clang_getCString(s);
    if (!header_ok(zName, pW->pOpts))
      problem(pW, c, "#include <%s> is not allowed (CUDA runtime, CUDA types, cub, libcu++, math and "
                     "fixed-width headers only)", zName);
    clang_disposeString(s);
    return CXChildVisit_Continue;
  }
  if (clang_isPreprocessing(e) || pW->bIncludesOnly) return CXChildVisit_Continue;
  /* Everything else at file scope is host code unless it is device code. */
  enum CXChildVisitResult r = walk_host(c, parent, pData);
  if (r == CXChildVisit_Recurse) walk_children(pW, c);
  return CXChildVisit_Continue;
}

/* Preprocessor directives clang would honour but nvcc's pipeline may treat
 * differently, or that read files: only the usual ones are allowed. */
static void check_directives(sandbox_walk *pW, const char *zCode, size_t nCode) {
  static const char *const azOk[] = {"include", "define", "undef", "if", "ifdef", "ifndef", "elif", "elifdef",
                                     "elifndef", "else", "endif", "pragma", "error", "warning", "line", NULL};
  unsigned iLine = 1;
  int bContinued = 0;
  for (size_t i = 0; i < nCode;) {
    size_t iEol = i;
    while (iEol < nCode && zCode[iEol] != '\n') iEol++;
    if (!bContinued) {
      size_t j = i;
      while (j < iEol && (zCode[j] == ' ' || zCode[j] == '\t')) j++;
      if (j < iEol && zCode[j] == '#') {
        j++;
        while (j < iEol && (zCode[j] == ' ' || zCode[j] == '\t')) j++;
        size_t k = j;
        while (k < iEol && isalpha((unsigned char)zCode[k])) k++;
        char zDir[32];
        size_t n = k - j < sizeof zDir - 1 ? k - j : sizeof zDir - 1;
        memcpy(zDir, zCode + j, n);
        zDir[n] = 0;
        int bBad = n > 0 && !match_list(azOk, zDir);
        /* A pragma that hides the file's diagnostics or declarations. */
        if (strcmp(zDir, "pragma") == 0) {
          char zLine[256];
          size_t nL = iEol - k < sizeof zLine - 1 ? iEol - k : sizeof zLine - 1;
          memcpy(zLine, zCode + k, nL);
          zLine[nL] = 0;
          bBad = strstr(zLine, "system_header") || strstr(zLine, "include_alias") || strstr(zLine, "comment");
        }
        if (bBad) {
          pW->nProblems++;
          if (pW->nProblems <= KS_SANDBOX_MAX_REPORTED)
            ks_buf_printf(pW->pWhy, "%s:%u:%zu: the directive #%s%s is not allowed\n", pW->pTu->zFile, iLine,
                          j - i, zDir, strcmp(zDir, "pragma") == 0 ? " (this form)" : "");
        }
      }
    }
    bContinued = iEol > i && zCode[iEol - 1] == '\\';
    i = iEol + 1;
    iLine++;
  }
}

int ks_sandbox_check(const char *zFile, const char *zCode, size_t nCode, const ks_sandbox_opts *pOpts, ks_buf *pWhy) {
  ks_sandbox_opts dflt = KS_SANDBOX_OPTS_INIT;
  if (!pOpts) pOpts = &dflt;
  if (pOpts->version != KS_SANDBOX_OPTS_VERSION)
    return ks_error_set(KS_EUSAGE, "ks_sandbox_opts: unsupported version %u", pOpts->version);
  if (!zFile) zFile = "candidate.cu";
  ks_parse_opts po = KS_PARSE_OPTS_INIT;
  po.zContents = zCode;
  po.nContents = nCode;
  char **azArgs = NULL;
  int nArgs = 0;
  int rc = ks_sandbox_clang_args(pOpts->azExtraArgs, pOpts->nExtraArgs, &azArgs, &nArgs);
  if (rc < 0) return rc;
  po.azExtraArgs = (const char *const *)azArgs;
  po.nExtraArgs = nArgs;
  ks_tu *pTu = NULL;
  rc = ks_tu_parse(zFile, &po, &pTu);
  ks_sandbox_env_free(azArgs);
  if (rc < 0) return rc;
  sandbox_walk w = {pTu, pOpts, pWhy, 0, 0, 0, 0};
  check_directives(&w, zCode, nCode);
  w.bIncludesOnly = 1;
  clang_visitChildren(clang_getTranslationUnitCursor(pTu->pTu), walk_top, &w);
  if (w.nProblems == 0 && pTu->nError > 0) {
    /* What does not parse cannot be checked: the caller compiles it to get
     * the compiler's errors (the includes are known to be safe by now). */
    ks_tu_diagnostics(pTu, pWhy);
    rc = ks_error_set(KS_EPARSE, "%s: %d error%s in the code: it cannot be checked before they are fixed", zFile,
                      pTu->nError, pTu->nError == 1 ? "" : "s");
    goto done;
  }
  w.bIncludesOnly = 0;
  if (w.nProblems == 0) clang_visitChildren(clang_getTranslationUnitCursor(pTu->pTu), walk_top, &w);
  if (w.nProblems > KS_SANDBOX_MAX_REPORTED)
    ks_buf_printf(pWhy, "%s: ... and %d more\n", zFile, w.nProblems - KS_SANDBOX_MAX_REPORTED);
  if (w.nProblems)
    rc = ks_error_set(KS_EINVAL, "%s: refused: LLM-written code may only launch kernels and use allowed CUDA functions and headers "
                      "(%d problem%s)", zFile, w.nProblems, w.nProblems == 1 ? "" : "s");
done:
  ks_tu_free(pTu);
  return rc;
}

/* ---- the harness child's environment ------------------------------------ */

static int has_word(const char *zUpper, const char *zWord) { return strstr(zUpper, zWord) != NULL; }

int ks_sandbox_env_is_secret(const char *zName) {
  static const char *const azPrefix[] = {"KS_LLM_", "AWS_", "AZURE_", "GOOGLE_", "GCP_", "GCLOUD_", "GH_",
                                         "GITHUB_", "GITLAB_", "OPENAI_", "ANTHROPIC_", "HF_", "HUGGING_FACE_",
                                         "HUGGINGFACE_", "SSH_", "GPG_", "GNUPG", "VAULT_", "DOCKER_",
                                         "NPM_", "PYPI_", "TWINE_", "KUBE", "CI_JOB_", "ACTIONS_", NULL};
  static const char *const azWord[] = {"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH",
                                       "COOKIE", "SESSION", "PROXY", "NETRC", NULL};
  char zUp[256];
  size_t n = 0;
  for (; zName[n] && zName[n] != '=' && n < sizeof zUp - 1; n++) zUp[n] = (char)toupper((unsigned char)zName[n]);
  zUp[n] = 0;
  for (int i = 0; azPrefix[i]; i++)
    if (strncmp(zUp, azPrefix[i], strlen(azPrefix[i])) == 0) return 1;
  for (int i = 0; azWord[i]; i++)
    if (has_word(zUp, azWord[i])) return 1;
  return 0;
}

void ks_sandbox_env_free(char **azEnv) {
  if (!azEnv) return;
  for (int i = 0; azEnv[i]; i++) free(azEnv[i]);
  free(azEnv);
}

int ks_sandbox_child_env(char *const *azEnv, char ***pazOut) {
  *pazOut = NULL;
  int n = 0;
  while (azEnv && azEnv[n]) n++;
  char **a = calloc((size_t)n + 1, sizeof *a);
  if (!a) return ks_error_set(KS_ENOMEM, "out of memory");
  int j = 0;
  for (int i = 0; i < n; i++) {
    if (!strchr(azEnv[i], '=') || ks_sandbox_env_is_secret(azEnv[i])) continue;
    if (!(a[j++] = ks_strdup(azEnv[i]))) {
      ks_sandbox_env_free(a);
      return KS_ENOMEM;
    }
  }
  *pazOut = a;
  return KS_OK;
}
