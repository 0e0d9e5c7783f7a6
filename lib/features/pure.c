/* pure.c — calls that only compute a value (pure.h): the math and conversion
 * functions CUDA ships, by name, and `__device__` helpers of the translation
 * unit, by reading their bodies. A helper is pure when nothing it does can be
 * seen outside it: its parameters are values (no pointer, reference or array
 * can reach memory), it writes only its own locals, reads nothing global but
 * constants, and calls only pure functions. Such a call computes the same
 * value in whichever thread, and in whatever order, a rule moves it to.
 * Second, weaker: calls that keep to their thread (ks_own_thread_call), which
 * may touch memory but run no barrier, collective or assembly and read no
 * thread built-in, so that a rule may make them once per lane on one thread. */
#include "features/pure.h"

#include "features/shape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A CUDA conversion intrinsic, __<from>2<to>[_rn|_rz|_rd|_ru]
 * (__half2float, __float2bfloat16_rn, __int2float_rn, __double2ll_rz, ...)
 * or one of the half/bf16 pair conversions. */
static int conversion_name(const char *z) {
  static const char *const azType[] = {"float", "half", "bfloat16", "double", "int", "uint", "ll", "ull", "short",
                                       "ushort", NULL};
  static const char *const azPair[] = {"__low2float", "__high2float", "__half22float2", "__float22half2_rn",
                                       "__bfloat1622float2", "__float22bfloat162_rn", "__floats2half2_rn",
                                       "__floats2bfloat162_rn", "__low2bfloat16", "__high2bfloat16", "__low2half",
                                       "__high2half", NULL};
  for (int i = 0; azPair[i]; i++)
    if (strcmp(z, azPair[i]) == 0) return 1;
  if (strncmp(z, "__", 2) != 0) return 0;
  z += 2;
  for (int a = 0; azType[a]; a++) {
    size_t nA = strlen(azType[a]);
    if (strncmp(z, azType[a], nA) != 0 || z[nA] != '2') continue;
    for (int b = 0; azType[b]; b++) {
      size_t nB = strlen(azType[b]);
      const char *zRest = z + nA + 1 + nB;
      if (b == a || strncmp(z + nA + 1, azType[b], nB) != 0) continue;
      if (!*zRest || strcmp(zRest, "_rn") == 0 || strcmp(zRest, "_rz") == 0 || strcmp(zRest, "_rd") == 0 ||
          strcmp(zRest, "_ru") == 0)
        return 1;
    }
  }
  return 0;
}

int ks_pure_math(const char *z) {
  if (!z) return 0;
  if (conversion_name(z)) return 1;
  static const char *const azBase[] = {
      "exp", "exp2", "exp10", "expm1", "log", "log2", "log10", "log1p", "pow", "sqrt", "rsqrt", "cbrt", "rcbrt",
      "sin", "cos", "tan", "sinh", "cosh", "tanh", "asin", "acos", "atan", "atan2", "asinh", "acosh", "atanh", "erf",
      "erfc", "fabs", "fmax", "fmin", "fma", "floor", "ceil", "trunc", "round", "rint", "nearbyint", "copysign",
      "hypot", "fdim", "fmod", "remainder", "ldexp", "sinpi", "cospi", "normcdf", NULL};
  static const char *const azExact[] = {"max", "min", "abs", "__fdividef", "__frcp_rn", "__fsqrt_rn", "__fmaf_rn",
                                        "__fadd_rn", "__fmul_rn", "__fsub_rn", "__saturatef", "__ldg",
                                        "__builtin_huge_valf", "__builtin_huge_val", "__builtin_inff",
                                        "__builtin_inf", "__builtin_nanf", "__builtin_nan", NULL};
  char zBuf[64];
  for (int i = 0; azExact[i]; i++)
    if (strcmp(z, azExact[i]) == 0) return 1;
  for (int i = 0; azBase[i]; i++) {
    if (strcmp(z, azBase[i]) == 0) return 1;
    snprintf(zBuf, sizeof zBuf, "%sf", azBase[i]);
    if (strcmp(z, zBuf) == 0) return 1;
    snprintf(zBuf, sizeof zBuf, "__%sf", azBase[i]);
    if (strcmp(z, zBuf) == 0) return 1;
  }
  return 0;
}

#define PURE_MAX_NEST 4    /* helpers calling helpers */
#define PURE_MAX_DEPTH 200 /* statement and expression nesting inside one helper */

typedef struct pure_ctx {
  CXCursor aFn[PURE_MAX_NEST]; /* the helpers being read, outermost first */
  int nFn;
  const char *zWhy;
} pure_ctx;

static int kind(CXCursor c) { return (int)clang_getCursorKind(c); }

static char *spelling(CXCursor c) {
  CXString s = clang_getCursorSpelling(c);
  char *z = ks_strdup(clang_getCString(s) ? clang_getCString(s) : "");
  clang_disposeString(s);
  return z;
}

/* A type a value of which reaches no memory: not a pointer, reference or array. */
static int value_type(CXType t) {
  enum CXTypeKind e = clang_getCanonicalType(t).kind;
  return e != CXType_Pointer && e != CXType_LValueReference && e != CXType_RValueReference &&
         e != CXType_ConstantArray && e != CXType_IncompleteArray && e != CXType_VariableArray &&
         e != CXType_DependentSizedArray && e != CXType_MemberPointer && e != CXType_BlockPointer;
}

/* Is d declared inside helper fn (a parameter or a local)? */
static int declared_in(CXCursor d, CXCursor fn) {
  for (CXCursor p = clang_getCursorSemanticParent(d); !clang_Cursor_isNull(p) && !clang_isInvalid(kind(p));
       p = clang_getCursorSemanticParent(p)) {
    if (clang_equalCursors(p, fn)) return 1;
    if (kind(p) == CXCursor_TranslationUnit) break;
  }
  return 0;
}

static int call_ok(pure_ctx *pC, CXCursor call);

static int fail(pure_ctx *pC, const char *zWhy) {
  if (!pC->zWhy) pC->zWhy = zWhy;
  return 0;
}

/* Node c of the body of helper fn. */
static int node_ok(pure_ctx *pC, CXCursor fn, CXCursor c, int nDepth) {
  if (nDepth > PURE_MAX_DEPTH) return fail(pC, "a helper it calls nests too deep to read");
  enum CXCursorKind e = clang_getCursorKind(c);
  switch (e) {
  case CXCursor_AsmStmt: case CXCursor_MSAsmStmt:
    return fail(pC, "a helper it calls has inline assembly");
  case CXCursor_GotoStmt: case CXCursor_IndirectGotoStmt: case CXCursor_CXXThrowExpr: case CXCursor_CXXTryStmt:
  case CXCursor_LambdaExpr: case CXCursor_CXXNewExpr: case CXCursor_CXXDeleteExpr:
    return fail(pC, "a helper it calls has a goto, exception, lambda or allocation");
  case CXCursor_ArraySubscriptExpr:
    return fail(pC, "a helper it calls reads or writes memory through a subscript");
  case CXCursor_UnaryOperator: {
    enum CXUnaryOperatorKind u = clang_getCursorUnaryOperatorKind(c);
    if (u == CXUnaryOperator_Deref || u == CXUnaryOperator_AddrOf)
      return fail(pC, "a helper it calls dereferences or takes an address");
    break;
  }
  case CXCursor_VarDecl: {
    if (clang_Cursor_getStorageClass(c) == CX_SC_Static || clang_Cursor_getStorageClass(c) == CX_SC_Extern)
      return fail(pC, "a helper it calls declares a static or extern variable");
    if (!value_type(clang_getCursorType(c)))
      return fail(pC, "a helper it calls declares a pointer, reference or array");
    CXCursor *aK;
    int nK;
    ks_ast_children(c, &aK, &nK);
    for (int i = 0; i < nK; i++)
      if (kind(aK[i]) == CXCursor_CUDASharedAttr || kind(aK[i]) == CXCursor_CUDAConstantAttr ||
          kind(aK[i]) == CXCursor_CUDADeviceAttr) {
        free(aK);
        return fail(pC, "a helper it calls declares a __shared__, __constant__ or __device__ variable");
      }
    free(aK);
    break;
  }
  case CXCursor_MemberRefExpr:
    if (ks_shape_builtin(c, NULL) >= 0) return fail(pC, "a helper it calls reads threadIdx, blockIdx, blockDim or gridDim");
    break;
  case CXCursor_DeclRefExpr: {
    CXCursor d = clang_getCursorReferenced(c);
    enum CXCursorKind eD = clang_getCursorKind(d);
    if (eD == CXCursor_FunctionDecl || eD == CXCursor_FunctionTemplate || eD == CXCursor_CXXMethod ||
        eD == CXCursor_EnumConstantDecl || eD == CXCursor_NonTypeTemplateParameter || eD == CXCursor_OverloadedDeclRef)
      break; /* callees are read at their call */
    if ((eD == CXCursor_ParmDecl || eD == CXCursor_VarDecl) && declared_in(d, fn)) break;
    if (eD == CXCursor_VarDecl && clang_isConstQualifiedType(clang_getCursorType(d)) &&
        value_type(clang_getCursorType(d))) {
      CXEvalResult r = clang_Cursor_Evaluate(d);
      int bConst = r != NULL;
      if (r) clang_EvalResult_dispose(r);
      if (bConst) break; /* a constant: const float kAlpha = 1.702f; */
    }
    return fail(pC, "a helper it calls reads a variable that is not its own or a constant");
  }
  case CXCursor_CallExpr:
    if (!call_ok(pC, c)) return 0;
    break; /* its arguments are read below */
  default:
    break;
  }
  /* Statements and expressions the analysis reads through; anything else
   * (a kind libclang does not expose, an Objective-C or OpenMP node) refuses. */
  if (!(clang_isStatement(e) || clang_isExpression(e) || clang_isDeclaration(e) || e == CXCursor_TypeRef ||
        e == CXCursor_TemplateRef || e == CXCursor_NamespaceRef || e == CXCursor_OverloadedDeclRef ||
        clang_isAttribute(e)))
    return fail(pC, "a helper it calls has code the analysis does not read");
  CXCursor *aK;
  int nK, bOk = 1;
  ks_ast_children(c, &aK, &nK);
  for (int i = 0; i < nK && bOk; i++) bOk = node_ok(pC, fn, aK[i], nDepth + 1);
  free(aK);
  return bOk;
}

/* The 16-bit float and pair types' constructors: a copy or conversion of a value. */
static int value_constructor(const char *z) {
  static const char *const az[] = {"__half", "half", "__nv_bfloat16", "nv_bfloat16", "__half2", "half2",
                                   "__nv_bfloat162", "nv_bfloat162", NULL};
  for (int i = 0; az[i]; i++)
    if (strcmp(z, az[i]) == 0) return 1;
  return 0;
}

static int call_ok(pure_ctx *pC, CXCursor call) {
  char *zName = spelling(call);
  int bMath = ks_pure_math(zName);
  CXCursor f = clang_getCursorReferenced(call);
  int bCtor = !clang_Cursor_isNull(f) && kind(f) == CXCursor_Constructor && zName && value_constructor(zName);
  free(zName);
  if (bMath || bCtor) return 1;
  if (clang_Cursor_isNull(f) || (kind(f) != CXCursor_FunctionDecl && kind(f) != CXCursor_FunctionTemplate))
    return fail(pC, "it calls something that is not a function the analysis can read");
  CXCursor def = clang_getCursorDefinition(f);
  if (clang_Cursor_isNull(def)) return fail(pC, "it calls a function whose body is not in the translation unit");
  if (!ks_ast_is_device_fn(def)) return fail(pC, "it calls a function that is not __device__");
  for (int i = 0; i < pC->nFn; i++)
    if (clang_equalCursors(pC->aFn[i], def)) return fail(pC, "it calls a recursive helper");
  if (pC->nFn >= PURE_MAX_NEST) return fail(pC, "it calls helpers nested more than 4 deep");
  /* The arguments as passed and the parameters as declared: values only. */
  int nArg = clang_Cursor_getNumArguments(call);
  for (int i = 0; i < nArg; i++)
    if (!value_type(clang_getCursorType(clang_Cursor_getArgument(call, (unsigned)i))))
      return fail(pC, "it passes a pointer, reference or array to a helper");
  CXCursor *aK;
  int nK, bOk = 1;
  ks_ast_children(def, &aK, &nK);
  CXCursor body = clang_getNullCursor();
  for (int i = 0; i < nK; i++) {
    if (kind(aK[i]) == CXCursor_ParmDecl && !value_type(clang_getCursorType(aK[i]))) bOk = 0;
    if (kind(aK[i]) == CXCursor_CompoundStmt) body = aK[i];
  }
  free(aK);
  if (!bOk) return fail(pC, "it calls a helper that takes a pointer, reference or array");
  if (clang_Cursor_isNull(body)) return fail(pC, "it calls a function whose body is not in the translation unit");
  pC->aFn[pC->nFn++] = def;
  bOk = node_ok(pC, def, body, 0);
  pC->nFn--;
  return bOk;
}

/* One analysis (call_ok, own_call) of call c: NULL, or why not (zDefault
 * where it gave no reason). */
static const char *run_call(int (*xOk)(pure_ctx *, CXCursor), CXCursor c, const char *zDefault) {
  pure_ctx ctx;
  memset(&ctx, 0, sizeof ctx);
  if (kind(c) != CXCursor_CallExpr) return "not a call";
  if (xOk(&ctx, c)) return NULL;
  return ctx.zWhy ? ctx.zWhy : zDefault;
}

const char *ks_pure_call(CXCursor c) { return run_call(call_ok, c, "it calls a function the analysis cannot show pure"); }

/* ---- calls that keep to their thread (ks_own_thread_call) ---- */

int ks_warp_collective(const char *z) {
  static const char *const azPrefix[] = {"__sync", "__shfl", "__ballot", "__any", "__all", "__activemask",
                                         "__reduce", "__match", NULL};
  for (int i = 0; z && azPrefix[i]; i++)
    if (strncmp(z, azPrefix[i], strlen(azPrefix[i])) == 0) return 1;
  return 0;
}

static int own_call(pure_ctx *pC, CXCursor call);

/* Is d declared in namespace cooperative_groups (its groups synchronize and
 * shuffle across threads)? */
static int in_cooperative_groups(CXCursor d) {
  for (CXCursor p = clang_getCursorSemanticParent(d); !clang_Cursor_isNull(p) && !clang_isInvalid(kind(p));
       p = clang_getCursorSemanticParent(p)) {
    if (kind(p) == CXCursor_Namespace) {
      char *z = spelling(p);
      int b = z && strcmp(z, "cooperative_groups") == 0;
      free(z);
      if (b) return 1;
    }
    if (kind(p) == CXCursor_TranslationUnit) break;
  }
  return 0;
}

static enum CXChildVisitResult own_visit(CXCursor c, CXCursor parent, CXClientData p) {
  (void)parent;
  pure_ctx *pC = p;
  enum CXCursorKind e = clang_getCursorKind(c);
  if (e == CXCursor_AsmStmt || e == CXCursor_MSAsmStmt) fail(pC, "a helper it calls has inline assembly");
  else if (ks_shape_builtin_ref(c) >= 0) /* whole (`uint3 t = threadIdx;`) or under a member */
    fail(pC, "a helper it calls reads threadIdx, blockIdx, blockDim or gridDim");
  else if (e == CXCursor_CallExpr)
    own_call(pC, c);
  return pC->zWhy ? CXChildVisit_Break : CXChildVisit_Recurse;
}

static int own_decl(pure_ctx *pC, CXCursor f);

static enum CXChildVisitResult own_ctor_visit(CXCursor c, CXCursor parent, CXClientData p) {
  (void)parent;
  pure_ctx *pC = p;
  if (kind(c) == CXCursor_Constructor || kind(c) == CXCursor_FunctionTemplate) own_decl(pC, c);
  return pC->zWhy ? CXChildVisit_Break : CXChildVisit_Continue;
}

/* A call a template leaves unresolved (`add_op<T>(a, b)`, a dependent `a +
 * b` that may take a declared operator+, `T(0)`): every function its callee
 * may denote (the overload sets of the children that are not its arguments,
 * a class's constructors) is read; a template parameter's construction is a
 * value; none found, it is not kept. */
static int own_unresolved(pure_ctx *pC, CXCursor call) {
  CXCursor *aK = NULL;
  int nK = 0, nArg = clang_Cursor_getNumArguments(call), nFound = 0;
  ks_ast_children(call, &aK, &nK);
  for (int k = 0; k < nK && !pC->zWhy; k++) {
    int bArg = 0;
    for (int a = 0; a < nArg && !bArg; a++) bArg = clang_equalCursors(aK[k], clang_Cursor_getArgument(call, (unsigned)a));
    CXCursor r = bArg ? clang_getNullCursor() : clang_getCursorReferenced(aK[k]);
    if (clang_Cursor_isNull(r)) continue;
    if (kind(aK[k]) == CXCursor_TypeRef) { /* `T(0)`: a type's construction */
      nFound++;
      if (kind(r) == CXCursor_StructDecl || kind(r) == CXCursor_ClassDecl || kind(r) == CXCursor_ClassTemplate)
        clang_visitChildren(r, own_ctor_visit, pC); /* its constructors, read */
      continue;
    }
    if (kind(r) == CXCursor_OverloadedDeclRef) {
      unsigned nD = clang_getNumOverloadedDecls(r);
      for (unsigned i = 0; i < nD && !pC->zWhy; i++, nFound++) own_decl(pC, clang_getOverloadedDecl(r, i));
    } else if (kind(r) == CXCursor_FunctionDecl || kind(r) == CXCursor_FunctionTemplate) {
      own_decl(pC, r);
      nFound++;
    }
  }
  free(aK);
  if (!nFound) fail(pC, "it calls something the analysis cannot resolve (a dependent name, a function pointer)");
  return pC->zWhy == NULL;
}

/* A function of a system header (CUDA's, the C++ library's) known to keep to
 * its thread: the math and conversion functions (ks_pure_math), loads and
 * stores with cache hints, atomics, operators and constructors of the vector
 * and 16-bit types, the integer, half, float and double intrinsics, fences,
 * printf and the like. Anything else (a barrier under another name, the lane
 * id through cuda::ptx, cub's warp primitives) is not known to. */
static int own_system_ok(const char *z) {
  static const char *const azPrefix[] = {
      "__ld", "__st", "atomic", "operator", "__h", "__float", "__int", "__uint", "__double", "__ll", "__ull",
      "__bfloat", "__nv_", "__popc", "__clz", "__ffs", "__fns", "__brev", "__byte_perm", "__funnelshift",
      "__mul", "__umul", "__sad", "__usad", "__vadd", "__vsub", "__vabs", "__vmax", "__vmin", "__vset", "__vcmp",
      "__vavg", "__vhadd", "__vneg", "__vsad", "__viadd", "__vimax", "__vimin", "__vibmax", "__vibmin", "__dp4a",
      "__dp2a", "__fadd", "__fsub", "__fmul", "__fmaf", "__fdiv", "__frcp", "__fsqrt", "__frsqrt", "__dadd", "__dsub",
      "__dmul", "__fma_r", "__ddiv", "__drcp", "__dsqrt", "__finite", "__isnan", "__isinf", "__signbit",
      "make_", "isnan", "isinf", "isfinite", "signbit", "__threadfence", "__trap", "__brkpt", "__assert", "printf",
      "memcpy", "memset", "__nanosleep", "clock", "__isGlobal", "__isShared", "__isConstant", "__isLocal", "__cvta",
      "__expf", "__logf", "__log2f", "__log10f", "__exp10f", "__powf", "__sinf", "__cosf", "__tanf", "__sincosf",
      "__tanhf", "hexp", "hlog", "hsqrt", "hrsqrt", "hrcp", "hsin", "hcos", "hceil", "hfloor", "htrunc",
      "hrint", "h2", "erfinv", "erfcinv", "lgamma", "tgamma", "frexp", "modf", "logb", "ilogb", "scalb",
      "remquo", "lrint", "llrint", "lround", "llround", "nan", "exp", "log", "pow", "sqrt", "sin", "cos", "tan",
      "fabs", "fmin", "fmax", "fdim", "floor", "ceil", "round", "trunc", "rint", "abs", "labs", "llabs", "min", "max",
      "umin", "umax", "llmin", "llmax", "ullmin", "ullmax", "__rhadd", "__uhadd", "__urhadd", "__longlong", "norm",
      "rnorm", "rhypot", "__builtin", NULL};
  if (!z || ks_pure_math(z)) return z != NULL;
  for (int i = 0; azPrefix[i]; i++)
    if (strncmp(z, azPrefix[i], strlen(azPrefix[i])) == 0) return 1;
  return 0;
}

/* Is c (a call or a function) named as a barrier or warp collective? Says so in pC. */
static int own_collective(pure_ctx *pC, CXCursor c) {
  char *zName = spelling(c);
  int bColl = ks_warp_collective(zName);
  free(zName);
  return bColl && !fail(pC, "it runs a barrier or warp collective");
}

static int own_call(pure_ctx *pC, CXCursor call) {
  if (own_collective(pC, call)) return 0;
  CXCursor f = clang_getCursorReferenced(call);
  if (clang_Cursor_isNull(f) || kind(f) == CXCursor_OverloadedDeclRef) return own_unresolved(pC, call);
  enum CXCursorKind eF = kind(f);
  if (eF == CXCursor_Constructor && clang_Location_isInSystemHeader(clang_getCursorLocation(f))) return 1;
  return own_decl(pC, f);
}

/* Function f, called: judged by name and namespace where CUDA's, else read
 * through its definition. */
static int own_decl(pure_ctx *pC, CXCursor f) {
  enum CXCursorKind eF = kind(f);
  if (eF == CXCursor_UsingDeclaration || eF == CXCursor_Namespace) return 1; /* names, not calls */
  if (eF != CXCursor_FunctionDecl && eF != CXCursor_FunctionTemplate && eF != CXCursor_CXXMethod &&
      eF != CXCursor_Constructor && eF != CXCursor_ConversionFunction)
    return fail(pC, "it calls something the analysis cannot resolve (a dependent name, a function pointer)");
  if (own_collective(pC, f)) return 0;
  if (in_cooperative_groups(f)) return fail(pC, "it calls cooperative groups");
  if (clang_Location_isInSystemHeader(clang_getCursorLocation(f))) { /* CUDA's, judged by name */
    char *zName = spelling(f);
    int bOk = own_system_ok(zName);
    free(zName);
    return bOk || fail(pC, "it calls a function of a system header not known to keep to its thread");
  }
  CXCursor def = clang_getCursorDefinition(f);
  if (clang_Cursor_isNull(def)) return fail(pC, "it calls a function whose body is not in the translation unit");
  for (int i = 0; i < pC->nFn; i++)
    if (clang_equalCursors(pC->aFn[i], def)) return 1; /* recursion: read once */
  if (pC->nFn >= PURE_MAX_NEST) return fail(pC, "it calls helpers nested more than 4 deep");
  pC->aFn[pC->nFn++] = def;
  clang_visitChildren(def, own_visit, pC);
  pC->nFn--;
  return pC->zWhy == NULL;
}

const char *ks_own_thread_call(CXCursor c) { return run_call(own_call, c, "it calls a function the analysis cannot read"); }
