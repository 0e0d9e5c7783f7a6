/* task.c — task files v1: parse with cJSON, validate every field with a precise
 * message ("FILE: FIELD: what is wrong"), evaluate size expressions over dims. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "kernelskill/task.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- dtypes, names ------------------------------------------------------ */

static const char *const azDtype[] = {"f32", "f16", "bf16", "f64", "i32", "i64", "u8"};
static const size_t anDtypeSize[] = {4, 2, 2, 8, 4, 8, 1};

const char *ks_dtype_name(ks_dtype e) { return (unsigned)e < 7 ? azDtype[e] : "?"; }
size_t ks_dtype_size(ks_dtype e) { return (unsigned)e < 7 ? anDtypeSize[e] : 0; }
int ks_dtype_is_float(ks_dtype e) { return e <= KS_DT_F64; }

int ks_dtype_from_name(const char *z, ks_dtype *pe) {
  for (int i = 0; i < 7; i++) {
    if (strcmp(z, azDtype[i]) == 0) {
      *pe = (ks_dtype)i;
      return KS_OK;
    }
  }
  return KS_EINVAL;
}

void ks_dtype_default_tol(ks_dtype e, double *prRtol, double *prAtol) {
  switch (e) {
  case KS_DT_F32: *prRtol = 1e-4; *prAtol = 1e-4; break;
  case KS_DT_F16:
  case KS_DT_BF16: *prRtol = 1e-2; *prAtol = 1e-2; break;
  case KS_DT_F64: *prRtol = 1e-8; *prAtol = 1e-8; break;
  default: *prRtol = 0; *prAtol = 0; break;
  }
}

void ks_task_arg_tol(const ks_task *pTask, int i, double *prRtol, double *prAtol) {
  const ks_task_arg *pArg = &pTask->aArg[i];
  if (pArg->bHasTol) {
    *prRtol = pArg->rRtol;
    *prAtol = pArg->rAtol;
  } else if (pTask->bHasTol && ks_dtype_is_float(pArg->eType)) {
    *prRtol = pTask->rRtol;
    *prAtol = pTask->rAtol;
  } else {
    ks_dtype_default_tol(pArg->eType, prRtol, prAtol);
  }
}

const char *ks_intent_name(ks_intent e) {
  return e == KS_INTENT_IN ? "in" : e == KS_INTENT_OUT ? "out" : "inout";
}

static const char *const azDist[] = {"normal", "uniform", "randint", "positive", "file"};
const char *ks_dist_name(ks_dist e) { return (unsigned)e < 5 ? azDist[e] : "?"; }

/* ---- expressions -------------------------------------------------------- */

typedef struct expr_ctx {
  const char *z;   /* whole expression, for messages */
  const char *p;   /* cursor */
  int nDim;
  char *const *azName;
  const int64_t *aValue;
  int rc;
  int iDepth; /* nesting of parentheses and unary minus: bounded, so a
                 hostile expression is an error, not a stack overflow */
} expr_ctx;

/* Deeper than any real size expression, far below what the stack holds. */
#define KS_EXPR_MAX_DEPTH 200

static int expr_fail(expr_ctx *c, const char *zFmt, const char *zArg) {
  if (c->rc == KS_OK) {
    char zMsg[256];
    snprintf(zMsg, sizeof zMsg, zFmt, zArg);
    /* A hostile expression may be huge: quote its start only. */
    size_t n = strlen(c->z);
    ks_error_set(KS_EINVAL, "%s (in expression '%.60s%s', at column %d)", zMsg, c->z, n > 60 ? "..." : "",
                 (int)(c->p - c->z) + 1);
    c->rc = KS_EINVAL;
  }
  return 0;
}

static void expr_ws(expr_ctx *c) {
  while (*c->p && isspace((unsigned char)*c->p)) c->p++;
}

static int64_t expr_sum(expr_ctx *c);

static int64_t expr_atom(expr_ctx *c) {
  expr_ws(c);
  if (c->rc) return 0;
  if (*c->p == '(' || *c->p == '-') {
    if (c->iDepth >= KS_EXPR_MAX_DEPTH) return expr_fail(c, "nested more than %s levels deep", "200");
    c->iDepth++;
  }
  if (*c->p == '(') {
    c->p++;
    int64_t v = expr_sum(c);
    expr_ws(c);
    c->iDepth--;
    if (c->rc) return 0;
    if (*c->p != ')') return expr_fail(c, "%s", "expected ')'");
    c->p++;
    return v;
  }
  if (*c->p == '-') {
    c->p++;
    int64_t v = expr_atom(c);
    c->iDepth--;
    if (c->rc) return 0;
    if (v == INT64_MIN) return expr_fail(c, "%s", "integer overflow");
    return -v;
  }
  if (isdigit((unsigned char)*c->p)) {
    int64_t v = 0;
    while (isdigit((unsigned char)*c->p)) {
      int d = *c->p++ - '0';
      if (v > (INT64_MAX - d) / 10) return expr_fail(c, "%s", "integer literal too large");
      v = v * 10 + d;
    }
    if (*c->p == '.' || *c->p == 'e' || *c->p == 'E') return expr_fail(c, "%s", "sizes are integers");
    return v;
  }
  if (isalpha((unsigned char)*c->p) || *c->p == '_') {
    const char *zStart = c->p;
    while (isalnum((unsigned char)*c->p) || *c->p == '_') c->p++;
    size_t n = (size_t)(c->p - zStart);
    for (int i = 0; i < c->nDim; i++) {
      if (strlen(c->azName[i]) == n && memcmp(c->azName[i], zStart, n) == 0) return c->aValue[i];
    }
    char zName[64];
    snprintf(zName, sizeof zName, "%.*s", (int)(n < 63 ? n : 63), zStart);
    c->p = zStart;
    return expr_fail(c, "unknown dim '%s'", zName);
  }
  if (!*c->p) return expr_fail(c, "%s", "unexpected end");
  char zTok[2] = {*c->p, 0};
  return expr_fail(c, "unexpected '%s'", zTok);
}

static int64_t expr_prod(expr_ctx *c) {
  int64_t v = expr_atom(c);
  for (;;) {
    expr_ws(c);
    char op = *c->p;
    if (c->rc || (op != '*' && op != '/' && op != '%')) return v;
    c->p++;
    int64_t w = expr_atom(c);
    if (c->rc) return 0;
    if (op == '*') {
      if (__builtin_mul_overflow(v, w, &v)) return expr_fail(c, "%s", "integer overflow");
    } else {
      if (w == 0) return expr_fail(c, "%s", "division by zero");
      if (v == INT64_MIN && w == -1) return expr_fail(c, "%s", "integer overflow");
      v = op == '/' ? v / w : v % w;
    }
  }
}

static int64_t expr_sum(expr_ctx *c) {
  int64_t v = expr_prod(c);
  for (;;) {
    expr_ws(c);
    char op = *c->p;
    if (c->rc || (op != '+' && op != '-')) return v;
    c->p++;
    int64_t w = expr_prod(c);
    if (c->rc) return 0;
    if (op == '+' ? __builtin_add_overflow(v, w, &v) : __builtin_sub_overflow(v, w, &v))
      return expr_fail(c, "%s", "integer overflow");
  }
}

int ks_task_eval(const char *zExpr, int nDim, char *const *azDimName, const int64_t *aDimValue,
                 int64_t *piOut) {
  expr_ctx c = {zExpr, zExpr, nDim, azDimName, aDimValue, KS_OK, 0};
  int64_t v = expr_sum(&c);
  expr_ws(&c);
  if (c.rc == KS_OK && *c.p) expr_fail(&c, "unexpected '%s'", (char[2]){*c.p, 0});
  if (c.rc == KS_OK && c.p == zExpr) expr_fail(&c, "%s", "empty expression");
  if (c.rc) return c.rc;
  *piOut = v;
  return KS_OK;
}

/* ---- validation --------------------------------------------------------- */

typedef struct vctx {
  const char *zFile;
  ks_task *pTask;
  int bAllowOutside; /* source/reference may lie outside the task's folder tree */
} vctx;

#define VFAIL(v, ...) vfail(v, __VA_ARGS__)
static int vfail(vctx *v, const char *zField, const char *zFmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int vfail(vctx *v, const char *zField, const char *zFmt, ...) {
  char zMsg[1024];
  va_list ap;
  va_start(ap, zFmt);
  vsnprintf(zMsg, sizeof zMsg, zFmt, ap);
  va_end(ap);
  return ks_error_set(KS_EINVAL, "%s: %s: %s", v->zFile, zField, zMsg);
}

static const char *json_kind(const cJSON *p) {
  if (cJSON_IsString(p)) return "a string";
  if (cJSON_IsNumber(p)) return "a number";
  if (cJSON_IsBool(p)) return "a boolean";
  if (cJSON_IsNull(p)) return "null";
  if (cJSON_IsArray(p)) return "an array";
  if (cJSON_IsObject(p)) return "an object";
  return "invalid";
}

/* Unknown keys are errors: a misspelt optional field must not be ignored. */
static int check_keys(vctx *v, const cJSON *pObj, const char *zWhere, const char *const *azAllowed) {
  for (const cJSON *p = pObj->child; p; p = p->next) {
    int bOk = 0;
    for (int i = 0; azAllowed[i]; i++) bOk |= strcmp(p->string, azAllowed[i]) == 0;
    if (!bOk) {
      ks_buf b = KS_BUF_INIT;
      for (int i = 0; azAllowed[i]; i++) ks_buf_printf(&b, "%s%s", i ? ", " : "", azAllowed[i]);
      int rc = VFAIL(v, zWhere, "unknown field '%s' (known: %s)", p->string, ks_buf_cstr(&b));
      ks_buf_free(&b);
      return rc;
    }
  }
  return KS_OK;
}

static int get_string(vctx *v, const cJSON *pObj, const char *zKey, const char *zField, int bRequired,
                      const char **pz) {
  const cJSON *p = cJSON_GetObjectItemCaseSensitive(pObj, zKey);
  *pz = NULL;
  if (!p) return bRequired ? VFAIL(v, zField, "missing (required)") : KS_OK;
  if (!cJSON_IsString(p)) return VFAIL(v, zField, "must be a string, not %s", json_kind(p));
  if (!p->valuestring[0]) return VFAIL(v, zField, "must not be empty");
  *pz = p->valuestring;
  return KS_OK;
}

static int get_number(vctx *v, const cJSON *pObj, const char *zKey, const char *zField, double *pr, int *pbHas) {
  const cJSON *p = cJSON_GetObjectItemCaseSensitive(pObj, zKey);
  if (pbHas) *pbHas = p != NULL;
  if (!p) return KS_OK;
  if (!cJSON_IsNumber(p)) return VFAIL(v, zField, "must be a number, not %s", json_kind(p));
  if (!isfinite(p->valuedouble)) return VFAIL(v, zField, "must be finite");
  *pr = p->valuedouble;
  return KS_OK;
}

static int is_ident(const char *z) {
  if (!isalpha((unsigned char)z[0]) && z[0] != '_') return 0;
  for (; *z; z++)
    if (!isalnum((unsigned char)*z) && *z != '_') return 0;
  return 1;
}

/* A size: an integer JSON number, or a string expression over dims. */
static int eval_size(vctx *v, const cJSON *p, const char *zField, int64_t *piOut) {
  ks_task *t = v->pTask;
  if (cJSON_IsNumber(p)) {
    double r = p->valuedouble;
    if (r != floor(r) || fabs(r) > 9.0e15) return VFAIL(v, zField, "must be an integer, not %g", r);
    *piOut = (int64_t)r;
    return KS_OK;
  }
  if (!cJSON_IsString(p)) return VFAIL(v, zField, "must be an integer or an expression over dims, not %s", json_kind(p));
  int rc = ks_task_eval(p->valuestring, t->nDim, t->azDimName, t->aDimValue, piOut);
  if (rc < 0) {
    char zMsg[1024];
    snprintf(zMsg, sizeof zMsg, "%s", ks_error_msg());
    return VFAIL(v, zField, "%s", zMsg);
  }
  return KS_OK;
}

static int parse_tol(vctx *v, const cJSON *p, const char *zField, double *prRtol, double *prAtol) {
  static const char *const azKeys[] = {"rtol", "atol", NULL};
  char zSub[256];
  int bR = 0, bA = 0, rc;
  if (!cJSON_IsObject(p)) return VFAIL(v, zField, "must be an object {\"rtol\": R, \"atol\": A}, not %s", json_kind(p));
  if ((rc = check_keys(v, p, zField, azKeys)) < 0) return rc;
  snprintf(zSub, sizeof zSub, "%s.rtol", zField);
  if ((rc = get_number(v, p, "rtol", zSub, prRtol, &bR)) < 0) return rc;
  if (bR && *prRtol < 0) return VFAIL(v, zSub, "must be >= 0");
  snprintf(zSub, sizeof zSub, "%s.atol", zField);
  if ((rc = get_number(v, p, "atol", zSub, prAtol, &bA)) < 0) return rc;
  if (bA && *prAtol < 0) return VFAIL(v, zSub, "must be >= 0");
  if (!bR && !bA) return VFAIL(v, zField, "give rtol, atol or both");
  if (!bR) *prRtol = 0;
  if (!bA) *prAtol = 0;
  return KS_OK;
}

static char *resolve(const char *zTaskFile, const char *zRel);
static int inside_task_folder(const char *zTaskFile, const char *zPath);

/* {"file": PATH}: a data file of exactly the tensor's bytes, PATH relative to
 * the task file and inside its folder tree (unless allowed outside). Checked
 * here, so a wrong capture or a truncated copy is a task error at load, not a
 * harness failure later. The path is made absolute (the harness runs
 * elsewhere); a newline in it is refused (the harness's spec is line-based). */
static int parse_data_file(vctx *v, const cJSON *p, const char *zField, const ks_task_arg *pArg, char **pzOut) {
  static const char *const azKeys[] = {"file", NULL};
  char zSub[256], aReal[PATH_MAX];
  const char *z;
  int rc;
  if ((rc = check_keys(v, p, zField, azKeys)) < 0) return rc;
  snprintf(zSub, sizeof zSub, "%s.file", zField);
  if ((rc = get_string(v, p, "file", zSub, 1, &z)) < 0) return rc;
  if (strchr(z, '\n') || strchr(z, '\r')) return VFAIL(v, zSub, "the path contains a line break");
  char *zPath = resolve(v->pTask->zPath, z);
  if (!zPath) return ks_error_set(KS_ENOMEM, "out of memory");
  struct stat st;
  uint64_t nWant = (uint64_t)pArg->nElem * ks_dtype_size(pArg->eType);
  if (stat(zPath, &st) != 0) rc = VFAIL(v, zSub, "file '%s' not found", zPath);
  else if (!S_ISREG(st.st_mode)) rc = VFAIL(v, zSub, "'%s' is not a regular file", zPath);
  else if (!v->bAllowOutside && !inside_task_folder(v->pTask->zPath, zPath))
    rc = VFAIL(v, zSub, "'%s' lies outside the task file's folder tree (allow it explicitly: --allow-outside or "
                        "KS_TASK_ALLOW_OUTSIDE=1)", z);
  else if ((uint64_t)st.st_size != nWant)
    rc = VFAIL(v, zSub, "'%s' has %lld bytes; the shape needs %llu (%lld %s elements)", z, (long long)st.st_size,
               (unsigned long long)nWant, (long long)pArg->nElem, ks_dtype_name(pArg->eType));
  else if (!realpath(zPath, aReal)) rc = VFAIL(v, zSub, "cannot resolve '%s'", zPath);
  else if (strchr(aReal, '\n') || strchr(aReal, '\r')) rc = VFAIL(v, zSub, "the path contains a line break");
  else if (!(*pzOut = ks_strdup(aReal))) rc = ks_error_set(KS_ENOMEM, "out of memory");
  free(zPath);
  return rc;
}

static int parse_init(vctx *v, const cJSON *p, const char *zField, ks_task_arg *pArg) {
  static const char *const azKeys[] = {"dist", "mean", "std", "low", "high", "min", NULL};
  char zSub[256];
  int rc;
  const char *zDist;
  if (!cJSON_IsObject(p)) return VFAIL(v, zField, "must be an object {\"dist\": ...} or {\"file\": PATH}, not %s", json_kind(p));
  if (cJSON_GetObjectItemCaseSensitive(p, "file")) {
    pArg->init.eDist = KS_DIST_FILE;
    pArg->init.rA = pArg->init.rB = 0;
    return parse_data_file(v, p, zField, pArg, &pArg->init.zFile);
  }
  if ((rc = check_keys(v, p, zField, azKeys)) < 0) return rc;
  snprintf(zSub, sizeof zSub, "%s.dist", zField);
  if ((rc = get_string(v, p, "dist", zSub, 1, &zDist)) < 0) return rc;
  int e = -1;
  for (int i = 0; i < 4; i++)
    if (strcmp(zDist, azDist[i]) == 0) e = i;
  if (e < 0) return VFAIL(v, zSub, "unknown distribution '%s' (known: normal, uniform, randint, positive)", zDist);
  pArg->init.eDist = (ks_dist)e;
  /* Which parameters belong to which distribution, and their defaults. */
  static const char *const aazParam[4][2] = {{"mean", "std"}, {"low", "high"}, {"low", "high"}, {"std", "min"}};
  static const double aarDefault[4][2] = {{0, 1}, {-1, 1}, {0, 10}, {1, 1e-3}};
  for (const cJSON *q = p->child; q; q = q->next) {
    if (strcmp(q->string, "dist") == 0) continue;
    if (strcmp(q->string, aazParam[e][0]) && strcmp(q->string, aazParam[e][1])) {
      snprintf(zSub, sizeof zSub, "%s.%s", zField, q->string);
      return VFAIL(v, zSub, "not a parameter of '%s' (it takes %s and %s)", zDist, aazParam[e][0], aazParam[e][1]);
    }
  }
  double ar[2];
  for (int k = 0; k < 2; k++) {
    int bHas = 0;
    ar[k] = aarDefault[e][k];
    snprintf(zSub, sizeof zSub, "%s.%s", zField, aazParam[e][k]);
    if ((rc = get_number(v, p, aazParam[e][k], zSub, &ar[k], &bHas)) < 0) return rc;
  }
  snprintf(zSub, sizeof zSub, "%s", zField);
  if ((e == KS_DIST_NORMAL || e == KS_DIST_POSITIVE) && ar[e == KS_DIST_NORMAL ? 1 : 0] <= 0)
    return VFAIL(v, zSub, "std must be > 0");
  if ((e == KS_DIST_UNIFORM || e == KS_DIST_RANDINT) && !(ar[0] < ar[1]))
    return VFAIL(v, zSub, "low (%g) must be less than high (%g)", ar[0], ar[1]);
  if (e == KS_DIST_RANDINT && (ar[0] != floor(ar[0]) || ar[1] != floor(ar[1])))
    return VFAIL(v, zSub, "randint bounds must be integers");
  if (e == KS_DIST_POSITIVE && ar[1] <= 0) return VFAIL(v, zSub, "min must be > 0");
  if (pArg->eType == KS_DT_U8 && e != KS_DIST_RANDINT)
    return VFAIL(v, zSub, "u8 tensors take 'randint' (got '%s')", zDist);
  if (pArg->eType == KS_DT_U8 && (ar[0] < 0 || ar[1] > 256))
    return VFAIL(v, zSub, "randint bounds for u8 must lie in [0, 256]");
  pArg->init.rA = ar[0];
  pArg->init.rB = ar[1];
  return KS_OK;
}

static int parse_arg(vctx *v, const cJSON *p, int i, ks_task_arg *pArg) {
  static const char *const azKeys[] = {"name", "kind", "dtype", "shape", "intent", "init", "expect", "value",
                                       "tolerance", "description", NULL};
  ks_task *t = v->pTask;
  char zF[96], zSub[160];
  int rc;
  const char *z;
  snprintf(zF, sizeof zF, "args[%d]", i);
  if (!cJSON_IsObject(p)) return VFAIL(v, zF, "must be an object, not %s", json_kind(p));
  if ((rc = check_keys(v, p, zF, azKeys)) < 0) return rc;
  snprintf(zSub, sizeof zSub, "%s.name", zF);
  if ((rc = get_string(v, p, "name", zSub, 1, &z)) < 0) return rc;
  if (!is_ident(z)) return VFAIL(v, zSub, "'%s' is not an identifier", z);
  for (int j = 0; j < i; j++)
    if (strcmp(t->aArg[j].zName, z) == 0) return VFAIL(v, zSub, "'%s' is also the name of args[%d]", z, j);
  if (!(pArg->zName = ks_strdup(z))) return KS_ENOMEM;
  snprintf(zF, sizeof zF, "args[%d] (%s)", i, pArg->zName);

  snprintf(zSub, sizeof zSub, "%s.kind", zF);
  if ((rc = get_string(v, p, "kind", zSub, 1, &z)) < 0) return rc;
  if (strcmp(z, "tensor") == 0) pArg->eKind = KS_ARG_TENSOR;
  else if (strcmp(z, "scalar") == 0) pArg->eKind = KS_ARG_SCALAR;
  else return VFAIL(v, zSub, "must be 'tensor' or 'scalar', not '%s'", z);

  snprintf(zSub, sizeof zSub, "%s.dtype", zF);
  if ((rc = get_string(v, p, "dtype", zSub, 1, &z)) < 0) return rc;
  if (ks_dtype_from_name(z, &pArg->eType) < 0)
    return VFAIL(v, zSub, "unknown dtype '%s' (known: f32 f16 bf16 f64 i32 i64 u8)", z);

  const cJSON *pTol = cJSON_GetObjectItemCaseSensitive(p, "tolerance");
  if (pTol) {
    snprintf(zSub, sizeof zSub, "%s.tolerance", zF);
    if ((rc = parse_tol(v, pTol, zSub, &pArg->rRtol, &pArg->rAtol)) < 0) return rc;
    pArg->bHasTol = 1;
  }

  if (pArg->eKind == KS_ARG_SCALAR) {
    static const char *const azBad[] = {"shape", "intent", "init", "expect"};
    for (int k = 0; k < 4; k++) {
      if (cJSON_GetObjectItemCaseSensitive(p, azBad[k])) {
        snprintf(zSub, sizeof zSub, "%s.%s", zF, azBad[k]);
        return VFAIL(v, zSub, "only tensors have '%s'", azBad[k]);
      }
    }
    if (pArg->eType == KS_DT_F16 || pArg->eType == KS_DT_BF16)
      return VFAIL(v, zSub, "f16/bf16 scalars are not supported (pass an f32)");
    const cJSON *pVal = cJSON_GetObjectItemCaseSensitive(p, "value");
    snprintf(zSub, sizeof zSub, "%s.value", zF);
    if (!pVal) return VFAIL(v, zSub, "missing (required for scalars: a number or an expression over dims)");
    /* A float scalar may be a JSON number or a numeric string ("0.5"), as
     * bench/suite reads it; other strings are integer expressions over dims. */
    char *zEnd = NULL;
    double rStr = 0;
    int bNumStr = ks_dtype_is_float(pArg->eType) && cJSON_IsString(pVal) && pVal->valuestring[0] &&
                  (rStr = strtod(pVal->valuestring, &zEnd), zEnd && *zEnd == '\0');
    if (ks_dtype_is_float(pArg->eType) && (cJSON_IsNumber(pVal) || bNumStr)) {
      double r = bNumStr ? rStr : pVal->valuedouble;
      if (!isfinite(r)) return VFAIL(v, zSub, "must be finite");
      pArg->rValue = r;
      pArg->iValue = (r >= -9.2e18 && r <= 9.2e18) ? (int64_t)r : 0;
    } else {
      if ((rc = eval_size(v, pVal, zSub, &pArg->iValue)) < 0) return rc;
      pArg->rValue = (double)pArg->iValue;
      if (pArg->eType == KS_DT_I32 && (pArg->iValue > INT32_MAX || pArg->iValue < INT32_MIN))
        return VFAIL(v, zSub, "%lld does not fit an i32", (long long)pArg->iValue);
      if (pArg->eType == KS_DT_U8 && (pArg->iValue > 255 || pArg->iValue < 0))
        return VFAIL(v, zSub, "%lld does not fit a u8", (long long)pArg->iValue);
    }
    pArg->zValue = cJSON_IsString(pVal) ? ks_strdup(pVal->valuestring) : NULL;
    if (!pArg->zValue) {
      char zNum[64];
      snprintf(zNum, sizeof zNum, "%.17g", pArg->rValue);
      if (!(pArg->zValue = ks_strdup(zNum))) return KS_ENOMEM;
    }
    return KS_OK;
  }

  /* Tensor. */
  if (cJSON_GetObjectItemCaseSensitive(p, "value")) {
    snprintf(zSub, sizeof zSub, "%s.value", zF);
    return VFAIL(v, zSub, "only scalars have 'value'");
  }
  snprintf(zSub, sizeof zSub, "%s.intent", zF);
  if ((rc = get_string(v, p, "intent", zSub, 1, &z)) < 0) return rc;
  if (strcmp(z, "in") == 0) pArg->eIntent = KS_INTENT_IN;
  else if (strcmp(z, "out") == 0) pArg->eIntent = KS_INTENT_OUT;
  else if (strcmp(z, "inout") == 0) pArg->eIntent = KS_INTENT_INOUT;
  else return VFAIL(v, zSub, "must be 'in', 'out' or 'inout', not '%s'", z);

  const cJSON *pShape = cJSON_GetObjectItemCaseSensitive(p, "shape");
  snprintf(zSub, sizeof zSub, "%s.shape", zF);
  if (!pShape) return VFAIL(v, zSub, "missing (required for tensors)");
  if (!cJSON_IsArray(pShape)) return VFAIL(v, zSub, "must be an array of sizes, not %s", json_kind(pShape));
  int n = cJSON_GetArraySize(pShape);
  if (n < 1 || n > KS_TASK_MAX_RANK) return VFAIL(v, zSub, "must have 1 to %d sizes (has %d)", KS_TASK_MAX_RANK, n);
  pArg->nRank = n;
  pArg->nElem = 1;
  int k = 0;
  for (const cJSON *q = pShape->child; q; q = q->next, k++) {
    snprintf(zSub, sizeof zSub, "%s.shape[%d]", zF, k);
    if ((rc = eval_size(v, q, zSub, &pArg->aShape[k])) < 0) return rc;
    if (pArg->aShape[k] <= 0) return VFAIL(v, zSub, "size must be positive (is %lld)", (long long)pArg->aShape[k]);
    if (__builtin_mul_overflow(pArg->nElem, pArg->aShape[k], &pArg->nElem) || pArg->nElem > ((int64_t)1 << 40))
      return VFAIL(v, zSub, "tensor too large");
    char zNum[32];
    snprintf(zNum, sizeof zNum, "%lld", (long long)pArg->aShape[k]);
    if (!(pArg->azShape[k] = ks_strdup(cJSON_IsString(q) ? q->valuestring : zNum))) return KS_ENOMEM;
  }

  const cJSON *pExpect = cJSON_GetObjectItemCaseSensitive(p, "expect");
  if (pExpect) {
    snprintf(zSub, sizeof zSub, "%s.expect", zF);
    if (pArg->eIntent == KS_INTENT_IN) return VFAIL(v, zSub, "an 'in' tensor has no expected output");
    if (!cJSON_IsObject(pExpect)) return VFAIL(v, zSub, "must be an object {\"file\": PATH}, not %s", json_kind(pExpect));
    if ((rc = parse_data_file(v, pExpect, zSub, pArg, &pArg->zExpect)) < 0) return rc;
  }
  const cJSON *pInit = cJSON_GetObjectItemCaseSensitive(p, "init");
  snprintf(zSub, sizeof zSub, "%s.init", zF);
  if (pInit && pArg->eIntent == KS_INTENT_OUT) return VFAIL(v, zSub, "an 'out' tensor has no init (it is poisoned before each run)");
  if (pInit) return parse_init(v, pInit, zSub, pArg);
  /* Defaults: normal(0,1) for floats, randint[0,10) for integers. */
  pArg->init.eDist = ks_dtype_is_float(pArg->eType) ? KS_DIST_NORMAL : KS_DIST_RANDINT;
  pArg->init.rA = 0;
  pArg->init.rB = ks_dtype_is_float(pArg->eType) ? 1 : 10;
  return KS_OK;
}

/* A task name becomes a folder name (.kernelskill/runs/<name>-...): letters,
 * digits, '.', '_', '-', not starting with '.' or '-', at most 100 bytes. */
static int is_safe_name(const char *z) {
  size_t n = strlen(z);
  if (n == 0 || n > 100 || z[0] == '.' || z[0] == '-') return 0;
  for (; *z; z++)
    if (!isalnum((unsigned char)*z) && *z != '_' && *z != '-' && *z != '.') return 0;
  return 1;
}

/* Is zPath (an existing file) inside the folder tree of the task file? */
static int inside_task_folder(const char *zTaskFile, const char *zPath) {
  char aDir[PATH_MAX], aFile[PATH_MAX];
  char *zDir = ks_path_dirname(zTaskFile);
  int bIn = 0;
  if (zDir && realpath(zDir, aDir) && realpath(zPath, aFile)) {
    size_t n = strlen(aDir);
    bIn = strcmp(aDir, "/") == 0 || (strncmp(aFile, aDir, n) == 0 && aFile[n] == '/');
  }
  free(zDir);
  return bIn;
}

static char *resolve(const char *zTaskFile, const char *zRel) {
  char *zDir = ks_path_dirname(zTaskFile);
  if (!zDir) return NULL;
  char *z = ks_path_join(zDir, zRel);
  free(zDir);
  return z;
}

/* The file a task's field zField names (zRel, relative to the task file): resolved
 * into *pzOut, and refused when it does not exist or (unless allowed) lies
 * outside the task file's folder tree. */
static int task_file(vctx *v, const char *zTaskFile, const char *zField, const char *zRel, char **pzOut) {
  if (!(*pzOut = resolve(zTaskFile, zRel))) return KS_ENOMEM;
  if (!ks_file_exists(*pzOut)) return VFAIL(v, zField, "file '%s' not found", *pzOut);
  if (!v->bAllowOutside && !inside_task_folder(zTaskFile, *pzOut))
    return VFAIL(v, zField, "'%s' lies outside the task file's folder tree (allow it explicitly: "
                            "--allow-outside or KS_TASK_ALLOW_OUTSIDE=1)", zRel);
  return KS_OK;
}

static int validate(vctx *v, const cJSON *pRoot) {
  static const char *const azKeys[] = {"ks_task", "name", "description", "source", "reference", "entry", "dims",
                                       "args", "tolerance", "cost", "libraries", "trials", "timeout_s", "seed",
                                       "spec", NULL};
  ks_task *t = v->pTask;
  int rc;
  const char *z;
  if (!cJSON_IsObject(pRoot)) return VFAIL(v, "(top level)", "must be a JSON object, not %s", json_kind(pRoot));
  const cJSON *pVer = cJSON_GetObjectItemCaseSensitive(pRoot, "ks_task");
  if (!pVer) return VFAIL(v, "ks_task", "missing: a task file starts with \"ks_task\": 1");
  if (!cJSON_IsNumber(pVer) || pVer->valuedouble != KS_TASK_FORMAT)
    return VFAIL(v, "ks_task", "unsupported format version (this build reads 1)");
  if ((rc = check_keys(v, pRoot, "(top level)", azKeys)) < 0) return rc;

  if ((rc = get_string(v, pRoot, "name", "name", 1, &z)) < 0) return rc;
  if (!is_safe_name(z))
    return VFAIL(v, "name", "'%.100s' is not a plain name (letters, digits, '.', '_', '-'; no '/'; not starting "
                            "with '.' or '-'; at most 100 characters): it names the run's folder", z);
  if (!(t->zName = ks_strdup(z))) return KS_ENOMEM;
  if ((rc = get_string(v, pRoot, "entry", "entry", 1, &z)) < 0) return rc;
  if (!is_ident(z)) return VFAIL(v, "entry", "'%s' is not a C identifier", z);
  if (!(t->zEntry = ks_strdup(z))) return KS_ENOMEM;
  /* `spec` (text) with a `reference` may stand in for `source`: the
   * Generator writes the seed (kernelskill optimize --llm). */
  if ((rc = get_string(v, pRoot, "spec", "spec", 0, &z)) < 0) return rc;
  if (z && !(t->zSpec = ks_strdup(z))) return KS_ENOMEM;
  int bSource = cJSON_GetObjectItemCaseSensitive(pRoot, "source") != NULL;
  if ((rc = get_string(v, pRoot, "source", "source", t->zSpec == NULL, &z)) < 0) return rc;
  if (bSource && (rc = task_file(v, t->zPath, "source", z, &t->zSource)) < 0) return rc;
  if ((rc = get_string(v, pRoot, "reference", "reference", 0, &z)) < 0) return rc;
  if (z && (rc = task_file(v, t->zPath, "reference", z, &t->zReference)) < 0) return rc;
  if (!t->zSource && !t->zReference)
    return VFAIL(v, "reference", "missing: a task with a `spec` and no `source` needs a reference to check the "
                                 "generated seed against");
  if (!(t->zSourceDir = ks_path_dirname(t->zSource ? t->zSource : t->zPath))) return KS_ENOMEM;

  /* dims: name -> positive integer, in file order (earlier dims may be used later). */
  const cJSON *pDims = cJSON_GetObjectItemCaseSensitive(pRoot, "dims");
  if (pDims && !cJSON_IsObject(pDims)) return VFAIL(v, "dims", "must be an object {\"N\": 1024, ...}, not %s", json_kind(pDims));
  int nDims = pDims ? cJSON_GetArraySize(pDims) : 0;
  t->azDimName = calloc((size_t)nDims + 1, sizeof(char *));
  t->aDimValue = calloc((size_t)nDims + 1, sizeof(int64_t));
  if (!t->azDimName || !t->aDimValue) return ks_error_set(KS_ENOMEM, "out of memory");
  for (const cJSON *q = pDims ? pDims->child : NULL; q; q = q->next) {
    char zSub[128];
    snprintf(zSub, sizeof zSub, "dims.%s", q->string);
    if (!is_ident(q->string)) return VFAIL(v, zSub, "dim name '%s' is not an identifier", q->string);
    for (int j = 0; j < t->nDim; j++)
      if (strcmp(t->azDimName[j], q->string) == 0) return VFAIL(v, zSub, "defined twice");
    int64_t val;
    if ((rc = eval_size(v, q, zSub, &val)) < 0) return rc;
    if (val <= 0) return VFAIL(v, zSub, "must be positive (is %lld)", (long long)val);
    if (!(t->azDimName[t->nDim] = ks_strdup(q->string))) return KS_ENOMEM;
    t->aDimValue[t->nDim++] = val;
  }

  const cJSON *pArgs = cJSON_GetObjectItemCaseSensitive(pRoot, "args");
  if (!pArgs) return VFAIL(v, "args", "missing (required): the entry's arguments in order");
  if (!cJSON_IsArray(pArgs)) return VFAIL(v, "args", "must be an array, not %s", json_kind(pArgs));
  int nArgs = cJSON_GetArraySize(pArgs);
  if (nArgs == 0) return VFAIL(v, "args", "is empty: the entry needs at least one output tensor");
  if (nArgs > 64) return VFAIL(v, "args", "has %d entries; the harness passes at most 64", nArgs);
  if (!(t->aArg = calloc((size_t)nArgs, sizeof(ks_task_arg)))) return ks_error_set(KS_ENOMEM, "out of memory");
  int i = 0, nOut = 0;
  for (const cJSON *q = pArgs->child; q; q = q->next, i++) {
    t->nArg = i + 1;
    if ((rc = parse_arg(v, q, i, &t->aArg[i])) < 0) return rc;
    if (t->aArg[i].eKind == KS_ARG_TENSOR && t->aArg[i].eIntent != KS_INTENT_IN) nOut++;
  }
  if (nOut == 0) return VFAIL(v, "args", "no tensor with intent 'out' or 'inout': nothing to check");
  /* An expected output is right only for the inputs it was made from: every
   * input tensor must then come from a file (scalars are fixed values). */
  for (int a = 0; a < t->nArg; a++) {
    if (!t->aArg[a].zExpect) continue;
    for (int b = 0; b < t->nArg; b++) {
      const ks_task_arg *q = &t->aArg[b];
      if (q->eKind == KS_ARG_TENSOR && q->eIntent != KS_INTENT_OUT && q->init.eDist != KS_DIST_FILE) {
        char zSub[160];
        snprintf(zSub, sizeof zSub, "args[%d] (%s).expect", a, t->aArg[a].zName);
        return VFAIL(v, zSub, "needs every input tensor to have init {\"file\": ...}; args[%d] (%s) is drawn from "
                              "'%s'", b, q->zName, ks_dist_name(q->init.eDist));
      }
    }
  }

  const cJSON *pTol = cJSON_GetObjectItemCaseSensitive(pRoot, "tolerance");
  if (pTol) {
    if ((rc = parse_tol(v, pTol, "tolerance", &t->rRtol, &t->rAtol)) < 0) return rc;
    t->bHasTol = 1;
  }

  const cJSON *pCost = cJSON_GetObjectItemCaseSensitive(pRoot, "cost");
  if (pCost) {
    static const char *const azCostKeys[] = {"flops", "bytes", NULL};
    if (!cJSON_IsObject(pCost)) return VFAIL(v, "cost", "must be an object {\"flops\": ..., \"bytes\": ...}, not %s", json_kind(pCost));
    if ((rc = check_keys(v, pCost, "cost", azCostKeys)) < 0) return rc;
    const cJSON *pF = cJSON_GetObjectItemCaseSensitive(pCost, "flops");
    const cJSON *pB = cJSON_GetObjectItemCaseSensitive(pCost, "bytes");
    int64_t iv;
    if (!pF && !pB) return VFAIL(v, "cost", "give flops, bytes or both");
    if (pF) {
      if ((rc = eval_size(v, pF, "cost.flops", &iv)) < 0) return rc;
      if (iv < 0) return VFAIL(v, "cost.flops", "must be >= 0");
      t->rFlops = (double)iv;
    }
    if (pB) {
      if ((rc = eval_size(v, pB, "cost.bytes", &iv)) < 0) return rc;
      if (iv < 0) return VFAIL(v, "cost.bytes", "must be >= 0");
      t->rBytes = (double)iv;
    }
    t->bHasCost = 1;
  }

  const cJSON *pLibs = cJSON_GetObjectItemCaseSensitive(pRoot, "libraries");
  if (pLibs) {
    static const char *const azKnown[] = {"cublas", "cublasLt", "cufft", "curand", "cusparse", "cusolver", "cub", NULL};
    if (!cJSON_IsArray(pLibs)) return VFAIL(v, "libraries", "must be an array of names, not %s", json_kind(pLibs));
    t->azLib = calloc((size_t)cJSON_GetArraySize(pLibs) + 1, sizeof(char *));
    if (!t->azLib) return ks_error_set(KS_ENOMEM, "out of memory");
    int k = 0;
    for (const cJSON *q = pLibs->child; q; q = q->next, k++) {
      char zSub[64];
      snprintf(zSub, sizeof zSub, "libraries[%d]", k);
      if (!cJSON_IsString(q)) return VFAIL(v, zSub, "must be a string, not %s", json_kind(q));
      int bOk = 0;
      for (int m = 0; azKnown[m]; m++) bOk |= strcmp(q->valuestring, azKnown[m]) == 0;
      if (!bOk) return VFAIL(v, zSub, "unknown library '%s' (known: cublas cublasLt cufft curand cusparse cusolver cub)", q->valuestring);
      if (!(t->azLib[t->nLib++] = ks_strdup(q->valuestring))) return KS_ENOMEM;
    }
  }

  double r;
  int bHas;
  t->nTrials = 5;
  if ((rc = get_number(v, pRoot, "trials", "trials", &r, &bHas)) < 0) return rc;
  if (bHas) {
    if (r != floor(r) || r < 5 || r > 1000) return VFAIL(v, "trials", "must be an integer from 5 to 1000 (is %g)", r);
    t->nTrials = (int)r;
  }
  t->rTimeoutS = 60;
  if ((rc = get_number(v, pRoot, "timeout_s", "timeout_s", &r, &bHas)) < 0) return rc;
  if (bHas) {
    if (r <= 0 || r > 3600) return VFAIL(v, "timeout_s", "must be in (0, 3600] (is %g)", r);
    t->rTimeoutS = r;
  }
  t->iSeed = 1;
  if ((rc = get_number(v, pRoot, "seed", "seed", &r, &bHas)) < 0) return rc;
  if (bHas) {
    if (r != floor(r) || r < 0 || r > 9.0e15) return VFAIL(v, "seed", "must be a non-negative integer");
    t->iSeed = (uint64_t)r;
  }
  return KS_OK;
}

static int allow_outside_default(void) {
  const char *z = getenv("KS_TASK_ALLOW_OUTSIDE");
  return z && strcmp(z, "1") == 0;
}

int ks_task_parse(const char *zPath, const char *zText, size_t nText, ks_task **ppTask) {
  ks_task_load_opts o = KS_TASK_LOAD_OPTS_INIT;
  o.bAllowOutside = allow_outside_default();
  return ks_task_parse_ex(zPath, zText, nText, &o, ppTask);
}

int ks_task_parse_ex(const char *zPath, const char *zText, size_t nText, const ks_task_load_opts *pOpts,
                     ks_task **ppTask) {
  int rc = KS_OK;
  cJSON *pRoot = NULL;
  ks_task *t = calloc(1, sizeof *t);
  *ppTask = NULL;
  if (!t || !(t->zPath = ks_strdup(zPath))) {
    rc = ks_error_set(KS_ENOMEM, "out of memory");
    goto fail;
  }
  const char *zEnd = NULL;
  pRoot = cJSON_ParseWithLengthOpts(zText, nText, &zEnd, 0);
  if (!pRoot) {
    /* cJSON points at where it stopped: turn that into line:col. */
    const char *zErr = zEnd ? zEnd : cJSON_GetErrorPtr();
    int iLine = 1, iCol = 1;
    if (zErr && zErr >= zText && zErr <= zText + nText) {
      for (const char *q = zText; q < zErr; q++) {
        if (*q == '\n') iLine++, iCol = 1;
        else iCol++;
      }
    }
    rc = ks_error_set(KS_EPARSE, "%s:%d:%d: not valid JSON", zPath, iLine, iCol);
    goto fail;
  }
  /* One document: anything but white space after it is an error (a second
   * object, a pasted tail), not silently ignored. */
  for (const char *q = zEnd; q && q < zText + nText; q++) {
    if (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r') continue;
    int iLine = 1, iCol = 1;
    for (const char *r = zText; r < q; r++) {
      if (*r == '\n') iLine++, iCol = 1;
      else iCol++;
    }
    rc = ks_error_set(KS_EPARSE, "%s:%d:%d: data after the JSON document", zPath, iLine, iCol);
    goto fail;
  }
  vctx v = {zPath, t, pOpts && pOpts->bAllowOutside};
  if ((rc = validate(&v, pRoot)) < 0) goto fail;
  cJSON_Delete(pRoot);
  *ppTask = t;
  return KS_OK;
fail:
  cJSON_Delete(pRoot);
  ks_task_free(t);
  return rc;
}

int ks_task_load(const char *zPath, ks_task **ppTask) {
  ks_task_load_opts o = KS_TASK_LOAD_OPTS_INIT;
  o.bAllowOutside = allow_outside_default();
  return ks_task_load_ex(zPath, &o, ppTask);
}

int ks_task_load_ex(const char *zPath, const ks_task_load_opts *pOpts, ks_task **ppTask) {
  char *z = NULL;
  size_t n = 0;
  *ppTask = NULL;
  /* Missing: say so; anything else that is not a regular file gets
   * ks_file_read's message (a FIFO or device is refused, not waited on). */
  if (access(zPath, F_OK) != 0) return ks_error_set(KS_ENOTFOUND, "%s: no such task file", zPath);
  int rc = ks_file_read(zPath, &z, &n);
  if (rc < 0) return rc;
  rc = ks_task_parse_ex(zPath, z, n, pOpts, ppTask);
  free(z);
  return rc;
}

void ks_task_free(ks_task *t) {
  if (!t) return;
  free(t->zPath);
  free(t->zName);
  free(t->zSource);
  free(t->zReference);
  free(t->zEntry);
  for (int i = 0; i < t->nDim; i++) free(t->azDimName[i]);
  free(t->azDimName);
  free(t->aDimValue);
  for (int i = 0; i < t->nArg; i++) {
    free(t->aArg[i].zName);
    free(t->aArg[i].zValue);
    free(t->aArg[i].init.zFile);
    free(t->aArg[i].zExpect);
    for (int k = 0; k < KS_TASK_MAX_RANK; k++) free(t->aArg[i].azShape[k]);
  }
  free(t->aArg);
  for (int i = 0; i < t->nLib; i++) free(t->azLib[i]);
  free(t->azLib);
  free(t->zSpec);
  free(t->zSourceDir);
  free(t);
}
