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
#include <stdio.h>
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
  unsigned aIncLine[256];       /* lines of the includes the parse saw */
  int nIncLine;
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

/* Is the name an overload-set reference spells qualified (`::f`, `ns::f`)?
 * Qualified names get no argument-dependent lookup. */
static int qualified(sandbox_walk *pW, CXCursor ref) {
  CXToken *aTok = NULL;
  unsigned nTok = 0;
  clang_tokenize(pW->pTu->pTu, clang_getCursorExtent(ref), &aTok, &nTok);
  int b = 0;
  for (unsigned i = 0; i < nTok && !b; i++) {
    CXString s = clang_getTokenSpelling(pW->pTu->pTu, aTok[i]);
    b = strcmp(clang_getCString(s), "::") == 0;
    clang_disposeString(s);
  }
  clang_disposeTokens(pW->pTu->pTu, aTok, nTok);
  return b;
}

static void check_reference(sandbox_walk *pW, CXCursor site, CXCursor ref, int bCall) {
  enum CXCursorKind e = clang_getCursorKind(ref);
  if (e == CXCursor_OverloadedDeclRef) {
    /* An unresolved overload (in a template): every candidate must be fine. */
    unsigned n = clang_getNumOverloadedDecls(ref);
    int bDevice = n > 0;
    for (unsigned i = 0; i < n; i++) {
      CXCursor d = clang_getOverloadedDecl(ref, i);
      if (!function_ok(pW, d)) {
        CXString s = clang_getCursorSpelling(d);
        problem(pW, site, "host code may not call '%s' (not an allowed function)", clang_getCString(s));
        clang_disposeString(s);
        return;
      }
      if (!device_only(d)) bDevice = 0;
    }
    /* An unqualified call with dependent arguments also gets, at
     * instantiation, what argument-dependent lookup finds (std::remove
     * through a std type): only names allowed whatever they resolve to, or
     * kernels and device functions (a launch, device code). */
    if (bCall && !bDevice && !qualified(pW, ref)) {
      CXString s = clang_getCursorSpelling(ref);
      const char *zName = clang_getCString(s);
      if (!(match_list(azRuntimeOk, zName) || math_name(zName) || match_list(azLibcOk, zName) ||
            library_fn(zName, pW->pOpts)))
        problem(pW, site, "host code in a template calls '%s' unqualified: lookup at instantiation may find "
                          "another function; qualify it (::name) or call it outside the template", zName);
      clang_disposeString(s);
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
    unsigned iLine = 0;
    clang_getExpansionLocation(clang_getCursorLocation(c), NULL, &iLine, NULL, NULL);
    if (pW->nIncLine < (int)(sizeof pW->aIncLine / sizeof pW->aIncLine[0])) pW->aIncLine[pW->nIncLine++] = iLine;
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

/* ---- the lexical pass: what the parse cannot see ----------------------------
 *
 * The parse shows the checks one view of the file: clang's host side. nvcc
 * compiles the host side with other predefined macros (__NVCC__, __GNUC__ of
 * the host compiler, no __clang__), so any branch on them, or an identifier
 * pasted from their values, could hide code the walk never saw. Hence, over
 * the whole text, all branches included:
 *   - conditionals may test only __CUDA_ARCH__ and __CUDACC__ (the same for
 *     clang's and nvcc's host sides; regions that need __CUDA_ARCH__ reach only
 *     device code), literals and `defined`, plus the `#ifndef X` / `#define X`
 *     include guard;
 *   - every #include, in every branch, names an allowed header, spelled
 *     literally;
 *   - no `##` token pasting, no _Pragma operator, no `%:` digraph or `?\?=`
 *     trigraph (a `#` the directive scan would not see), no raw string
 *     literals (whose quotes this scan does not follow);
 *   - only the usual directives, and no pragma that hides diagnostics. */

typedef struct lexed {
  char *zS;        /* the code with line splices removed */
  char *zB;        /* the same, comments and literal contents blanked */
  unsigned *aLine; /* original line of each byte */
  size_t n;
} lexed;

static void lexed_free(lexed *p) {
  free(p->zS);
  free(p->zB);
  free(p->aLine);
}

static int is_ident_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

static int lex(const char *zCode, size_t nCode, lexed *p) {
  memset(p, 0, sizeof *p);
  p->zS = malloc(nCode + 1);
  p->zB = malloc(nCode + 1);
  p->aLine = malloc((nCode + 1) * sizeof *p->aLine);
  if (!p->zS || !p->zB || !p->aLine) return KS_ENOMEM;
  unsigned iLine = 1;
  for (size_t i = 0; i < nCode; i++) {
    if (zCode[i] == '\\' && (i + 1 < nCode && (zCode[i + 1] == '\n' || (zCode[i + 1] == '\r' && i + 2 < nCode &&
                                                                          zCode[i + 2] == '\n')))) {
      i += zCode[i + 1] == '\r' ? 2 : 1;
      iLine++;
      continue;
    }
    p->aLine[p->n] = iLine;
    p->zS[p->n++] = zCode[i];
    if (zCode[i] == '\n') iLine++;
  }
  p->zS[p->n] = 0;
  memcpy(p->zB, p->zS, p->n + 1);
  ks_text_blank_code(p->zB);
  return KS_OK;
}

static void lex_problem(sandbox_walk *pW, const lexed *pL, size_t i, const char *zFmt, const char *zArg) {
  pW->nProblems++;
  if (pW->nProblems > KS_SANDBOX_MAX_REPORTED) return;
  size_t k = i;
  while (k > 0 && pL->zS[k - 1] != '\n') k--;
  ks_buf_printf(pW->pWhy, "%s:%u:%zu: ", pW->pTu->zFile, pL->aLine[i], i - k + 1);
  ks_buf_printf(pW->pWhy, zFmt, zArg);
  ks_buf_puts(pW->pWhy, "\n");
}

/* The identifier at z[i] into zOut (cut to nOut - 1); its end. */
static size_t ident_at(const char *z, size_t i, size_t n, char *zOut, size_t nOut) {
  size_t j = i;
  while (j < n && is_ident_char(z[j])) j++;
  size_t m = j - i < nOut - 1 ? j - i : nOut - 1;
  memcpy(zOut, z + i, m);
  zOut[m] = 0;
  return j;
}

static int include_seen(const sandbox_walk *pW, unsigned iLine) {
  for (int i = 0; i < pW->nIncLine; i++)
    if (pW->aIncLine[i] == iLine) return 1;
  return 0;
}

/* A conditional's identifiers: only __CUDA_ARCH__, __CUDACC__ and `defined`.
 * The first other one into zBad. */
static int condition_ok(const char *zB, size_t i, size_t iEnd, char *zBad, size_t nBad) {
  while (i < iEnd) {
    if (isdigit((unsigned char)zB[i]) || (zB[i] == '.' && i + 1 < iEnd && isdigit((unsigned char)zB[i + 1]))) {
      while (i < iEnd && (is_ident_char(zB[i]) || zB[i] == '.' ||
                          ((zB[i] == '+' || zB[i] == '-') && strchr("eEpP", zB[i - 1]))))
        i++; /* a pp-number: 800, 0x10, 1e5, 700ULL */
    } else if (is_ident_char(zB[i])) {
      char zId[64];
      i = ident_at(zB, i, iEnd, zId, sizeof zId);
      if (strcmp(zId, "defined") && strcmp(zId, "__CUDA_ARCH__") && strcmp(zId, "__CUDACC__")) {
        snprintf(zBad, nBad, "%s", zId);
        return 0;
      }
    } else {
      i++;
    }
  }
  return 1;
}

static void not_a_guard(sandbox_walk *pW, const lexed *pL, size_t i, const char *zName) {
  lex_problem(pW, pL, i, "#ifndef %s is not an include guard: untrusted code may branch only on __CUDA_ARCH__ (the "
                         "check sees clang's side; nvcc may take the other)", zName);
}

static void check_lexical(sandbox_walk *pW, const char *zCode, size_t nCode) {
  static const char *const azOk[] = {"include", "define", "undef", "if", "ifdef", "ifndef", "elif", "elifdef",
                                     "elifndef", "else", "endif", "pragma", "error", "warning", "line", NULL};
  lexed L;
  if (lex(zCode, nCode, &L) < 0) {
    lexed_free(&L);
    pW->nProblems++;
    ks_buf_printf(pW->pWhy, "%s: out of memory while checking\n", pW->pTu->zFile);
    return;
  }
  const char *zB = L.zB, *zS = L.zS;
  char zGuard[64] = ""; /* an #ifndef waiting for its #define */
  size_t iGuard = 0;
  for (size_t i = 0; i < L.n;) {
    size_t iEol = i;
    while (iEol < L.n && zB[iEol] != '\n') iEol++;
    size_t j = i;
    while (j < iEol && (zB[j] == ' ' || zB[j] == '\t' || zB[j] == '\r')) j++;
    /* Tokens refused anywhere. */
    for (size_t k = i; k < iEol; k++) {
      if (zB[k] == '#' && zB[k + 1] == '#') {
        lex_problem(pW, &L, k, "token pasting (##) is not allowed%s", "");
        k++;
      } else if (zB[k] == '%' && zB[k + 1] == ':') {
        lex_problem(pW, &L, k, "the digraph %%: is not allowed%s", "");
      } else if (zB[k] == '?' && zB[k + 1] == '?' && zB[k + 2] == '=') {
        lex_problem(pW, &L, k, "the trigraph ?\?= is not allowed%s", "");
      } else if (is_ident_char(zB[k]) && (k == i || !is_ident_char(zB[k - 1]))) {
        char zId[64];
        size_t e = ident_at(zB, k, iEol, zId, sizeof zId);
        if (!strcmp(zId, "_Pragma")) lex_problem(pW, &L, k, "the _Pragma operator is not allowed%s", "");
        if (e < iEol && zB[e] == '"' &&
            (!strcmp(zId, "R") || !strcmp(zId, "LR") || !strcmp(zId, "uR") || !strcmp(zId, "UR") || !strcmp(zId, "u8R")))
          lex_problem(pW, &L, k, "raw string literals are not allowed%s", "");
        k = e - 1;
      }
    }
    if (j < iEol && zB[j] == '#') {
      size_t iHash = j++;
      while (j < iEol && (zB[j] == ' ' || zB[j] == '\t')) j++;
      char zDir[32];
      size_t k = ident_at(zB, j, iEol, zDir, sizeof zDir);
      if (zGuard[0]) {
        char zName[64] = "";
        size_t m = k;
        while (m < iEol && (zB[m] == ' ' || zB[m] == '\t')) m++;
        ident_at(zB, m, iEol, zName, sizeof zName);
        if (strcmp(zDir, "define") || strcmp(zName, zGuard)) not_a_guard(pW, &L, iGuard, zGuard);
        zGuard[0] = 0;
      }
      int bBad = k > j && !match_list(azOk, zDir);
      if (!strcmp(zDir, "pragma")) {
        char zLine[256];
        size_t nL = iEol - k < sizeof zLine - 1 ? iEol - k : sizeof zLine - 1;
        memcpy(zLine, zS + k, nL);
        zLine[nL] = 0;
        bBad = strstr(zLine, "system_header") || strstr(zLine, "include_alias") || strstr(zLine, "comment");
      }
      if (bBad)
        lex_problem(pW, &L, iHash, !strcmp(zDir, "pragma") ? "the directive #%s (this form) is not allowed"
                                                           : "the directive #%s is not allowed", zDir);
      if (!strcmp(zDir, "if") || !strcmp(zDir, "elif") || !strcmp(zDir, "ifdef") || !strcmp(zDir, "ifndef") ||
          !strcmp(zDir, "elifdef") || !strcmp(zDir, "elifndef")) {
        char zBad[64];
        if (!condition_ok(zB, k, iEol, zBad, sizeof zBad)) {
          if (!strcmp(zDir, "ifndef")) {
            snprintf(zGuard, sizeof zGuard, "%s", zBad);
            iGuard = iHash;
          } else {
            char zMsg[160];
            snprintf(zMsg, sizeof zMsg, "#%s depends on '%s'", zDir, zBad);
            lex_problem(pW, &L, iHash, "%s: untrusted code may branch only on __CUDA_ARCH__ (the check sees "
                                       "clang's side; nvcc may take the other)", zMsg);
          }
        }
      } else if (!strcmp(zDir, "include")) {
        size_t m = k;
        while (m < iEol && (zS[m] == ' ' || zS[m] == '\t')) m++;
        char cEnd = m < iEol && zS[m] == '<' ? '>' : (m < iEol && zS[m] == '"' ? '"' : 0);
        size_t e = m + 1;
        while (cEnd && e < iEol && zS[e] != cEnd) e++;
        if (!cEnd || e >= iEol) {
          lex_problem(pW, &L, iHash, "a computed #include is not allowed%s", "");
        } else if (!include_seen(pW, L.aLine[iHash])) {
          /* One the parse did not see (another branch): checked here. */
          char zName[256];
          size_t nN = e - m - 1 < sizeof zName - 1 ? e - m - 1 : sizeof zName - 1;
          memcpy(zName, zS + m + 1, nN);
          zName[nN] = 0;
          if (!header_ok(zName, pW->pOpts))
            lex_problem(pW, &L, iHash, "#include <%s> is not allowed (CUDA runtime, CUDA types, cub, libcu++, math "
                                       "and fixed-width headers only)", zName);
        }
      }
    }
    i = iEol + 1;
  }
  if (zGuard[0]) not_a_guard(pW, &L, iGuard, zGuard);
  lexed_free(&L);
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
  sandbox_walk w = {.pTu = pTu, .pOpts = pOpts, .pWhy = pWhy, .bIncludesOnly = 1};
  clang_visitChildren(clang_getTranslationUnitCursor(pTu->pTu), walk_top, &w);
  check_lexical(&w, zCode, nCode);
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
