/* tasks.c — from a capture to task files: the generated replay entry (an
 * extern "C" function launching the kernel with the captured configuration
 * through cudaLaunchKernel), the task JSON (format v1; tensors are the
 * allocations the launch reached, intents from what changed, inputs from the
 * snapshot before the launch), and the captured outputs kept beside it. */
#include "kernelskill/capture.h"
#include "kernelskill/features.h"
#include "kernelskill/review.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the replay entry ---------------------------------------------------- */

static const char *c_scalar(ks_dtype e) {
  switch (e) {
  case KS_DT_F32: return "float";
  case KS_DT_F64: return "double";
  case KS_DT_I64: return "long long";
  default: return "int";
  }
}

static const char *c_elem(ks_dtype e) {
  switch (e) {
  case KS_DT_F32: return "float";
  case KS_DT_F64: return "double";
  case KS_DT_I32: return "int";
  case KS_DT_I64: return "long long";
  case KS_DT_F16:
  case KS_DT_BF16: return "unsigned short";
  default: return "unsigned char";
  }
}

/* Is parameter i passed as a task tensor / scalar? (The same rule decides the
 * entry's signature and the task's args, so they always agree.) */
static int is_tensor_param(const ks_capture_launch *l, int i) { return l->aParam[i].iAlloc >= 0; }
static int is_scalar_param(const ks_capture_launch *l, const ks_ptype *t, int i) {
  if (l->aParam[i].iAlloc >= 0 || t[i].eKind != KS_PT_SCALAR || t[i].nSize != l->aParam[i].nSize) return 0;
  if (ks_dtype_is_float(t[i].eType)) {
    double r;
    if (t[i].eType == KS_DT_F32) {
      float f;
      memcpy(&f, l->aParam[i].aBytes, 4);
      r = f;
    } else {
      memcpy(&r, l->aParam[i].aBytes, 8);
    }
    return isfinite(r);
  }
  return 1;
}

/* The tensor's element type: the first pointer parameter into it decides. */
static ks_dtype alloc_dtype(const ks_capture_launch *l, const ks_ptype *t, int k) {
  for (int i = 0; i < l->nParam; i++) {
    if (l->aParam[i].iAlloc != k) continue;
    if (t[i].eKind != KS_PT_POINTER) return KS_DT_U8;
    size_t n = ks_dtype_size(t[i].eType);
    /* The task shape counts whole elements of the allocation. */
    if (l->aAlloc[k].nSize % n || l->aParam[i].nPtrOffset % n) return KS_DT_U8;
    return t[i].eType;
  }
  return KS_DT_U8;
}

int ks_capture_replay_source(const ks_capture_launch *l, const ks_ptype *aType, const char *const *azSpelling,
                             const char *zCallee, const char *zEntry, ks_buf *pOut) {
  ks_buf_printf(pOut,
                "\n" KS_CAPTURE_REPLAY_MARK " %d of %s ----\n"
                "// grid (%u, %u, %u), block (%u, %u, %u), %u bytes of dynamic shared memory; captured on\n"
                "// stream %s (the replay runs on the default stream). Removed again by `kernelskill capture --promote`.\n"
                "extern \"C\" void %s(",
                l->iLaunch, l->zName, l->aGrid[0], l->aGrid[1], l->aGrid[2], l->aBlock[0], l->aBlock[1],
                l->aBlock[2], l->nSmem, l->zStream, zEntry);
  int bFirst = 1;
  for (int k = 0; k < l->nAlloc; k++) {
    ks_buf_printf(pOut, "%s%s *ks_t%d", bFirst ? "" : ", ", c_elem(alloc_dtype(l, aType, k)), k);
    bFirst = 0;
  }
  for (int i = 0; i < l->nParam; i++) {
    if (!is_scalar_param(l, aType, i)) continue;
    ks_buf_printf(pOut, "%s%s ks_s%d", bFirst ? "" : ", ", c_scalar(aType[i].eType), i);
    bFirst = 0;
  }
  if (bFirst) ks_buf_puts(pOut, "void");
  ks_buf_puts(pOut, ") {\n");
  for (int i = 0; azSpelling && i < l->nParam; i++) ks_buf_printf(pOut, "  typedef %s ks_T%d;\n", azSpelling[i], i);
  for (int i = 0; i < l->nParam; i++) {
    const ks_capture_param *p = &l->aParam[i];
    if (is_tensor_param(l, i)) {
      ks_buf_printf(pOut, "  void *ks_p%d = (void *)((char *)ks_t%d + %llu);\n", i, p->iAlloc,
                    (unsigned long long)p->nPtrOffset);
    } else if (!is_scalar_param(l, aType, i)) {
      /* Passed exactly as captured: structs, small or unsigned values, null pointers. */
      ks_buf_printf(pOut, "  alignas(16) static const unsigned char ks_b%d[%zu] = {", i, p->nSize);
      for (size_t b = 0; b < p->nSize; b++) ks_buf_printf(pOut, "%s%u", b ? ", " : "", p->aBytes[b]);
      ks_buf_puts(pOut, "};\n");
    }
  }
  if (azSpelling) {
    if (l->nSmem > 48 * 1024) {
      ks_buf_printf(pOut, "  void (*ks_fn)(");
      for (int i = 0; i < l->nParam; i++) ks_buf_printf(pOut, "%sks_T%d", i ? ", " : "", i);
      ks_buf_printf(pOut, ") = %s;\n  cudaFuncSetAttribute((const void *)ks_fn, cudaFuncAttributeMaxDynamicSharedMemorySize, %u);\n",
                    zCallee, l->nSmem);
    }
    ks_buf_printf(pOut, "  %s<<<dim3(%u, %u, %u), dim3(%u, %u, %u), %u>>>(", zCallee, l->aGrid[0], l->aGrid[1],
                  l->aGrid[2], l->aBlock[0], l->aBlock[1], l->aBlock[2], l->nSmem);
    for (int i = 0; i < l->nParam; i++) {
      const char *zSep = i ? ", " : "";
      if (is_tensor_param(l, i)) ks_buf_printf(pOut, "%s(ks_T%d)ks_p%d", zSep, i, i);
      else if (is_scalar_param(l, aType, i)) ks_buf_printf(pOut, "%s(ks_T%d)ks_s%d", zSep, i, i);
      else ks_buf_printf(pOut, "%s*reinterpret_cast<const ks_T%d *>(ks_b%d)", zSep, i, i);
    }
    ks_buf_puts(pOut, ");\n}\n");
    return KS_OK;
  }
  ks_buf_puts(pOut, "  void *ks_args[] = {");
  for (int i = 0; i < l->nParam; i++) {
    const char *zSep = i ? ", " : "";
    if (is_tensor_param(l, i)) ks_buf_printf(pOut, "%s&ks_p%d", zSep, i);
    else if (is_scalar_param(l, aType, i)) ks_buf_printf(pOut, "%s&ks_s%d", zSep, i);
    else ks_buf_printf(pOut, "%s(void *)ks_b%d", zSep, i);
  }
  if (l->nParam == 0) ks_buf_puts(pOut, "0");
  ks_buf_puts(pOut, "};\n");
  ks_buf_printf(pOut, "  const void *ks_fn = (const void *)&%s;\n", zCallee);
  if (l->nSmem > 48 * 1024)
    ks_buf_printf(pOut, "  cudaFuncSetAttribute(ks_fn, cudaFuncAttributeMaxDynamicSharedMemorySize, %u);\n", l->nSmem);
  ks_buf_printf(pOut, "  cudaLaunchKernel(ks_fn, dim3(%u, %u, %u), dim3(%u, %u, %u), ks_args, %u, 0);\n}\n", l->aGrid[0],
                l->aGrid[1], l->aGrid[2], l->aBlock[0], l->aBlock[1], l->aBlock[2], l->nSmem);
  return KS_OK;
}

/* The flags of the first `// kernelskill-flags:` line of z[0, n), trimmed and
 * with single blanks; malloc'd ("" when none). */
static char *first_flags(const char *z, size_t n, const char *zDrop) {
  static const char zTag[] = "// kernelskill-flags:";
  ks_buf out = KS_BUF_INIT;
  for (const char *p = z; p && p < z + n;) {
    const char *e = memchr(p, '\n', (size_t)(z + n - p));
    size_t m = e ? (size_t)(e - p) : (size_t)(z + n - p);
    const char *q = p;
    while (q < p + m && (*q == ' ' || *q == '\t')) q++;
    if ((size_t)(p + m - q) >= sizeof zTag - 1 && !strncmp(q, zTag, sizeof zTag - 1)) {
      char *zLine = ks_mprintf("%.*s", (int)(p + m - q - (sizeof zTag - 1)), q + sizeof zTag - 1);
      for (char *t = zLine ? strtok(zLine, " \t\r") : NULL; t; t = strtok(NULL, " \t\r"))
        if (!zDrop || strcmp(t, zDrop)) ks_buf_printf(&out, "%s%s", out.n ? " " : "", t);
      free(zLine);
      break;
    }
    p = e ? e + 1 : NULL;
  }
  char *zOut = ks_buf_detach(&out);
  return zOut ? zOut : ks_strdup("");
}

int ks_capture_strip_source(const char *zText, const char *zOrigDir, char **pzOut) {
  static const char zCopied[] = "// copied by kernelskill capture from ";
  *pzOut = NULL;
  const char *zEnd = strstr(zText, "\n" KS_CAPTURE_REPLAY_MARK);
  if (!zEnd) return ks_error_set(KS_EINVAL, "no generated replay entry in this source (was it written by kernelskill capture?)");
  /* The capture's two header lines: its flags line, then the "copied" note. */
  const char *p = zText, *zFlagsLine = NULL;
  size_t nFlagsLine = 0;
  if (!strncmp(p, "// kernelskill-flags:", 21)) {
    const char *e = strchr(p, '\n');
    if (!e || e > zEnd) return ks_error_set(KS_EINVAL, "the capture's header lines are damaged");
    zFlagsLine = p;
    nFlagsLine = (size_t)(e - p);
    p = e + 1;
  }
  if (strncmp(p, zCopied, sizeof zCopied - 1))
    return ks_error_set(KS_EINVAL, "line %d: expected the capture's note '%s...'", zFlagsLine ? 2 : 1, zCopied);
  const char *e = strchr(p, '\n');
  if (!e || e > zEnd) return ks_error_set(KS_EINVAL, "the capture's header lines are damaged");
  const char *zBody = e + 1;
  size_t nBody = (size_t)(zEnd - zBody);
  ks_buf b = KS_BUF_INIT;
  /* Keep the flags the optimizer chose, less the capture's -I, unless they
   * are just the original file's own. */
  char *zInc = ks_mprintf("-I%s", zOrigDir);
  char *zMine = zFlagsLine ? first_flags(zFlagsLine, nFlagsLine, zInc) : ks_strdup("");
  char *zTheirs = first_flags(zBody, nBody, NULL);
  int rc = zInc && zMine && zTheirs ? KS_OK : ks_error_set(KS_ENOMEM, "out of memory");
  if (rc == KS_OK && zMine[0] && strcmp(zMine, zTheirs)) ks_buf_printf(&b, "// kernelskill-flags: %s\n", zMine);
  if (rc == KS_OK) ks_buf_append(&b, zBody, nBody);
  free(zInc);
  free(zMine);
  free(zTheirs);
  if (rc < 0) {
    ks_buf_free(&b);
    return rc;
  }
  *pzOut = ks_buf_detach(&b);
  if (!*pzOut) *pzOut = ks_strdup("");
  return *pzOut ? KS_OK : ks_error_set(KS_ENOMEM, "out of memory");
}

/* ---- sources: which file defines a kernel, and its parameters ------------ */

typedef struct src_kernel {
  char *zName, *zFile;
  int nParam;
  char **azParamName, **azParamType;
  int *aLoads; /* loads through each parameter, from the features (-1: unknown) */
} src_kernel;

typedef struct src_index {
  int n;
  src_kernel *a;
} src_index;

static void src_free(src_index *s) {
  for (int i = 0; i < s->n; i++) {
    free(s->a[i].zName);
    free(s->a[i].zFile);
    for (int k = 0; k < s->a[i].nParam; k++) free(s->a[i].azParamName[k]), free(s->a[i].azParamType[k]);
    free(s->a[i].azParamName);
    free(s->a[i].azParamType);
    free(s->a[i].aLoads);
  }
  free(s->a);
}

static int src_add_file(src_index *s, const char *zFile, ks_buf *pReport) {
  ks_tu *pTu = NULL;
  ks_buf js = KS_BUF_INIT;
  ks_parse_opts po = KS_PARSE_OPTS_INIT;
  ks_features_opts fo = KS_FEATURES_OPTS_INIT;
  char *zDir = ks_path_dirname(zFile), *zInc = zDir ? ks_mprintf("-I%s", zDir) : NULL;
  const char *azArgs[1] = {zInc};
  po.azExtraArgs = azArgs;
  po.nExtraArgs = zInc ? 1 : 0;
  int rc = ks_tu_parse(zFile, &po, &pTu);
  if (rc < 0) goto done;
  if ((rc = ks_features_json(pTu, &fo, &js)) < 0) goto done;
  if (ks_tu_error_count(pTu))
    ks_buf_printf(pReport, "note: %s has %d parse error(s); kernels that parsed are used\n", zFile, ks_tu_error_count(pTu));
  cJSON *pRoot = cJSON_Parse(ks_buf_cstr(&js));
  const cJSON *pK = cJSON_GetObjectItemCaseSensitive(pRoot, "kernels");
  for (const cJSON *k = pK ? pK->child : NULL; k; k = k->next) {
    const cJSON *pName = cJSON_GetObjectItemCaseSensitive(k, "name");
    const cJSON *pParams = cJSON_GetObjectItemCaseSensitive(k, "params");
    if (!cJSON_IsString(pName) || !cJSON_IsArray(pParams)) continue;
    src_kernel *a = realloc(s->a, (size_t)(s->n + 1) * sizeof *a);
    if (!a) break;
    s->a = a;
    src_kernel *sk = &s->a[s->n++];
    memset(sk, 0, sizeof *sk);
    sk->zName = ks_strdup(pName->valuestring);
    sk->zFile = ks_strdup(zFile);
    sk->nParam = cJSON_GetArraySize(pParams);
    sk->azParamName = calloc((size_t)sk->nParam + 1, sizeof(char *));
    sk->azParamType = calloc((size_t)sk->nParam + 1, sizeof(char *));
    sk->aLoads = calloc((size_t)sk->nParam + 1, sizeof(int));
    int j = 0;
    for (const cJSON *q = pParams->child; q && sk->azParamName && sk->azParamType && sk->aLoads; q = q->next, j++) {
      const cJSON *pLoads = cJSON_GetObjectItemCaseSensitive(q, "loads");
      sk->aLoads[j] = cJSON_IsNumber(pLoads) ? (int)pLoads->valuedouble : -1;
      const char *zN = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(q, "name"));
      const char *zT = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(q, "type"));
      sk->azParamName[j] = ks_strdup(zN ? zN : "");
      sk->azParamType[j] = ks_strdup(zT ? zT : "");
    }
  }
  cJSON_Delete(pRoot);
done:
  if (rc < 0) ks_buf_printf(pReport, "note: %s: cannot read its kernels: %s\n", zFile, ks_error_msg());
  ks_tu_free(pTu);
  ks_buf_free(&js);
  free(zDir);
  free(zInc);
  return rc;
}

static const src_kernel *src_find(const src_index *s, const char *zBare) {
  for (int i = 0; i < s->n; i++)
    if (!strcmp(s->a[i].zName, zBare)) return &s->a[i];
  return NULL;
}

/* "ns::k<float>" -> "k" */
static void bare(const char *zCallee, char *zOut, size_t nOut) {
  const char *zEnd = zCallee + strcspn(zCallee, "<");
  const char *zStart = zCallee;
  for (const char *p = zCallee; p + 1 < zEnd; p++)
    if (p[0] == ':' && p[1] == ':') zStart = p + 2;
  snprintf(zOut, nOut, "%.*s", (int)(zEnd - zStart), zStart);
}

/* Copy the local headers a source includes ("X", found next to it) into
 * the task folder, recursively, so the task parses (libclang) and builds
 * with no include path: the folder is self-contained. Only relative names
 * without ".." are followed; what is not found is left to the -I flag. */
static void copy_local_headers(const char *zText, const char *zFromDir, const char *zToDir, const char *zRelDir,
                               int iDepth, int *pnCopied, ks_buf *pNotes) {
  if (iDepth > 8) return;
  for (const char *p = zText; p && *p;) {
    const char *q = p;
    while (*q == ' ' || *q == '\t') q++;
    if (*q == '#') {
      q++;
      while (*q == ' ' || *q == '\t') q++;
      if (!strncmp(q, "include", 7)) {
        q += 7;
        while (*q == ' ' || *q == '\t') q++;
        const char *e = *q == '"' ? strchr(q + 1, '"') : NULL;
        const char *zNl = strchr(q, '\n');
        if (e && (!zNl || e < zNl) && e - q - 1 > 0 && e - q - 1 < 512 && *pnCopied < 64) {
          char zName[520];
          snprintf(zName, sizeof zName, "%s%s%.*s", zRelDir, zRelDir[0] ? "/" : "", (int)(e - q - 1), q + 1);
          char *zSrc = ks_path_join(zFromDir, zName), *zDst = ks_path_join(zToDir, zName);
          char *zText2 = NULL;
          if (zName[0] != '/' && !strstr(zName, "..") && zSrc && zDst && ks_file_exists(zSrc) && !ks_file_exists(zDst) &&
              ks_file_read(zSrc, &zText2, NULL) == KS_OK) {
            char *zDstDir = ks_path_dirname(zDst), *zSub = ks_path_dirname(zName);
            if (zDstDir && ks_dir_make(zDstDir) == KS_OK && ks_file_write_atomic(zDst, zText2, strlen(zText2)) == KS_OK) {
              (*pnCopied)++;
              ks_buf_printf(pNotes, "copied the header %s into the task folder\n", zName);
              copy_local_headers(zText2, zFromDir, zToDir, zSub && strcmp(zSub, ".") ? zSub : "", iDepth + 1, pnCopied,
                                 pNotes);
            }
            free(zDstDir);
            free(zSub);
          }
          free(zText2);
          free(zSrc);
          free(zDst);
        }
      }
    }
    p = strchr(p, '\n');
    if (p) p++;
  }
}

/* ---- writing one task ------------------------------------------------------ */

static int read_snapshot(const ks_capture *c, const char *zRel, uint64_t nSize, char **pz) {
  char *zPath = ks_path_join(c->zDir, zRel);
  size_t n = 0;
  int rc = zPath ? ks_file_read_limit(zPath, KS_FILE_DATA_MAX, pz, &n) : KS_ENOMEM;
  if (rc == KS_OK && n != nSize) {
    rc = ks_error_set(KS_EINVAL, "%s: has %zu bytes, the index says %llu", zPath, n, (unsigned long long)nSize);
    free(*pz);
    *pz = NULL;
  }
  free(zPath);
  return rc;
}

static int write_bytes(const char *zDir, const char *zRel, const char *z, size_t n) {
  char *zPath = ks_path_join(zDir, zRel), *zParent = zPath ? ks_path_dirname(zPath) : NULL;
  int rc = zParent ? ks_dir_make(zParent) : KS_ENOMEM;
  if (rc == KS_OK) rc = ks_file_write_atomic(zPath, z, n);
  free(zPath);
  free(zParent);
  return rc;
}

static void range_init(cJSON *pInit, ks_dtype e, const char *z, size_t nBytes) {
  size_t n = nBytes / ks_dtype_size(e);
  double rLo = INFINITY, rHi = -INFINITY;
  for (size_t i = 0; i < n; i++) {
    double v;
    switch (e) {
    case KS_DT_F32: { float f; memcpy(&f, z + 4 * i, 4); v = f; break; }
    case KS_DT_F64: memcpy(&v, z + 8 * i, 8); break;
    case KS_DT_I32: { int32_t k; memcpy(&k, z + 4 * i, 4); v = k; break; }
    case KS_DT_I64: { int64_t k; memcpy(&k, z + 8 * i, 8); v = (double)k; break; }
    case KS_DT_U8: v = (unsigned char)z[i]; break;
    default: continue; /* f16/bf16: default range */
    }
    if (!isfinite(v)) continue;
    if (v < rLo) rLo = v;
    if (v > rHi) rHi = v;
  }
  if (!(rLo <= rHi)) rLo = -1, rHi = 1;
  if (ks_dtype_is_float(e)) {
    if (rHi <= rLo) rHi = rLo + 1;
    cJSON_AddStringToObject(pInit, "dist", "uniform");
    cJSON_AddNumberToObject(pInit, "low", rLo);
    cJSON_AddNumberToObject(pInit, "high", rHi);
  } else {
    if (e == KS_DT_U8 && rHi > 254) rHi = 254;
    cJSON_AddStringToObject(pInit, "dist", "randint");
    cJSON_AddNumberToObject(pInit, "low", rLo);
    cJSON_AddNumberToObject(pInit, "high", rHi + 1);
  }
}

static void sanitize(const char *z, char *zOut, size_t nOut) {
  size_t n = 0;
  for (; *z && n + 1 < nOut; z++) zOut[n++] = isalnum((unsigned char)*z) || *z == '_' ? *z : '_';
  zOut[n] = 0;
  if (!n || isdigit((unsigned char)zOut[0])) snprintf(zOut, nOut, "k_%.*s", (int)(nOut - 3), n ? zOut : "kernel");
}

/* The launch's scalar parameters as task scalars, named after the source's
 * parameters unless a tensor has that name. */
static void add_scalar_args(cJSON *pArgs, const ks_capture_launch *l, const ks_ptype *aType, const src_kernel *sk,
                            char *const *azTName) {
  for (int i = 0; i < l->nParam; i++) {
    if (!is_scalar_param(l, aType, i)) continue;
    char zName[128];
    if (sk->nParam == l->nParam && sk->azParamName[i][0]) snprintf(zName, sizeof zName, "%s", sk->azParamName[i]);
    else snprintf(zName, sizeof zName, "s%d", i);
    for (int j = 0; j < l->nAlloc; j++)
      if (azTName[j] && !strcmp(azTName[j], zName)) snprintf(zName, sizeof zName, "s%d", i);
    cJSON *a = cJSON_CreateObject();
    cJSON_AddItemToArray(pArgs, a);
    cJSON_AddStringToObject(a, "name", zName);
    cJSON_AddStringToObject(a, "kind", "scalar");
    cJSON_AddStringToObject(a, "dtype", ks_dtype_name(aType[i].eType));
    const unsigned char *b = l->aParam[i].aBytes;
    switch (aType[i].eType) {
    case KS_DT_F32: { float f; memcpy(&f, b, 4); cJSON_AddNumberToObject(a, "value", f); break; }
    case KS_DT_F64: { double r; memcpy(&r, b, 8); cJSON_AddNumberToObject(a, "value", r); break; }
    case KS_DT_I64: {
      /* JSON numbers are doubles: large values go as an expression string. */
      int64_t v;
      memcpy(&v, b, 8);
      char zV[32];
      snprintf(zV, sizeof zV, "%lld", (long long)v);
      if (v > -((int64_t)1 << 52) && v < ((int64_t)1 << 52)) cJSON_AddNumberToObject(a, "value", (double)v);
      else cJSON_AddStringToObject(a, "value", zV);
      break;
    }
    default: { int32_t v; memcpy(&v, b, 4); cJSON_AddNumberToObject(a, "value", v); break; }
    }
  }
}

/* The task's source: the original file (its kernels are what the optimizer
 * rewrites) with its local headers copied next to it, then the replay entry. */
static int write_task_source(const ks_capture_launch *l, const src_kernel *sk, const ks_ptype *aType,
                             const char *const *azPT, const char *zCallee, const char *zEntry, const char *zTaskDir,
                             const char *zSrcName, ks_buf *pNotes) {
  char *zText = NULL, *zOrigDir = NULL, *zOrigFlags = NULL, *zSrcPath = NULL;
  ks_buf src = KS_BUF_INIT;
  int rc, nCopied = 0;
  if ((rc = ks_file_read(sk->zFile, &zText, NULL)) < 0) goto done;
  zOrigDir = ks_path_dirname(sk->zFile);
  if (zOrigDir) copy_local_headers(zText, zOrigDir, zTaskDir, "", 0, &nCopied, pNotes);
  zOrigFlags = ks_review_source_flags(sk->zFile);
  /* No -I of the original folder: the store's flag allowlist refuses include
   * paths (docs/security.md), and the local headers are copied above. */
  if (zOrigFlags && zOrigFlags[0]) ks_buf_printf(&src, "// kernelskill-flags: %s\n", zOrigFlags);
  ks_buf_printf(&src, "// copied by kernelskill capture from %s\n", sk->zFile);
  ks_buf_puts(&src, zText);
  /* Typed launch when every parameter's C++ type is known: the demangled
   * name's (template arguments resolved), else the source's spelling. */
  const char *const *azSpell = azPT;
  if (!azSpell && sk->nParam == l->nParam && !strstr(l->zName, "<")) azSpell = (const char *const *)sk->azParamType;
  if ((rc = ks_capture_replay_source(l, aType, azSpell, zCallee, zEntry, &src)) < 0) goto done;
  zSrcPath = ks_path_join(zTaskDir, zSrcName);
  rc = zSrcPath ? ks_file_write_atomic(zSrcPath, src.z, src.n) : ks_error_set(KS_ENOMEM, "out of memory");
done:
  free(zText);
  free(zOrigDir);
  free(zOrigFlags);
  free(zSrcPath);
  ks_buf_free(&src);
  return rc;
}

static int write_one(const ks_capture *c, const ks_capture_launch *l, const src_index *s, const ks_capture_task_opts *o,
                     int bFileInit, const char *zTaskName, ks_buf *pReport) {
  int rc = KS_OK;
  char *zCallee = NULL, **azPT = NULL, *zTaskDir = NULL;
  char **azBefore = calloc((size_t)l->nAlloc + 1, sizeof(char *)), **azAfter = calloc((size_t)l->nAlloc + 1, sizeof(char *));
  char **azTName = calloc((size_t)l->nAlloc + 1, sizeof(char *));
  ks_ptype *aType = calloc((size_t)l->nParam + 1, sizeof *aType);
  int nPT = -1;
  ks_buf notes = KS_BUF_INIT;
  cJSON *pTask = NULL, *pSide = NULL;
  if (!azBefore || !azAfter || !azTName || !aType) {
    rc = ks_error_set(KS_ENOMEM, "out of memory");
    goto done;
  }
  if ((rc = ks_capture_split_name(l->zName, &zCallee, &azPT, &nPT)) < 0) goto done;
  char zBare[256];
  bare(zCallee, zBare, sizeof zBare);
  const src_kernel *sk = src_find(s, zBare);
  if (!sk) {
    ks_buf_printf(pReport, "%s: skipped: no source given defines kernel '%s' (pass --source FILE.cu)\n", zTaskName, zBare);
    goto done;
  }
  /* Parameter types: the demangled name's (exact, template arguments
   * resolved), else the source's spelling. */
  for (int i = 0; i < l->nParam; i++) {
    if (nPT == l->nParam) ks_capture_type(azPT[i], &aType[i]);
    else if (sk->nParam == l->nParam) ks_capture_type(sk->azParamType[i], &aType[i]);
  }
  if (nPT != l->nParam && sk->nParam != l->nParam)
    ks_buf_printf(&notes, "the kernel has %d parameters at launch, its source %d: all passed as captured bytes\n",
                  l->nParam, sk->nParam);
  /* An opaque 8-byte value that points into device memory is a pointer. */
  int nOut = 0;
  for (int k = 0; k < l->nAlloc; k++) {
    if (!l->aAlloc[k].zBefore) {
      ks_buf_printf(pReport, "%s: skipped: launch %d has no snapshot\n", zTaskName, l->iLaunch);
      goto done;
    }
    if ((rc = read_snapshot(c, l->aAlloc[k].zBefore, l->aAlloc[k].nSize, &azBefore[k])) < 0) goto done;
    if ((rc = read_snapshot(c, l->aAlloc[k].zAfter, l->aAlloc[k].nSize, &azAfter[k])) < 0) goto done;
  }

  zTaskDir = ks_mprintf("%s/tasks/%s", o->zOutDir, zTaskName);
  if (!zTaskDir || (rc = ks_dir_make(zTaskDir)) < 0) goto done;

  /* The task. */
  pTask = cJSON_CreateObject();
  pSide = cJSON_CreateObject();
  cJSON *pArgs = cJSON_CreateArray(), *pExpect = cJSON_CreateObject(), *pInputs = cJSON_CreateObject();
  char *zEntry = ks_mprintf("ks_replay_%s", zTaskName);
  char *zSrcName = ks_mprintf("%s.cu", zTaskName);
  char *zDesc = ks_mprintf("captured by kernelskill capture from %s: launch %d of %s (launch %d of this kernel), "
                           "grid (%u, %u, %u), block (%u, %u, %u), %u bytes of dynamic shared memory",
                           o->zProgram ? o->zProgram : "a program", l->iLaunch, l->zName, l->iNth, l->aGrid[0],
                           l->aGrid[1], l->aGrid[2], l->aBlock[0], l->aBlock[1], l->aBlock[2], l->nSmem);
  cJSON_AddNumberToObject(pTask, "ks_task", 1);
  cJSON_AddStringToObject(pTask, "name", zTaskName);
  cJSON_AddStringToObject(pTask, "description", zDesc ? zDesc : "");
  cJSON_AddStringToObject(pTask, "source", zSrcName ? zSrcName : "");
  cJSON_AddStringToObject(pTask, "entry", zEntry ? zEntry : "");
  cJSON_AddItemToObject(pTask, "args", pArgs);
  double rBytes = 0;
  for (int k = 0; k < l->nAlloc; k++) {
    ks_dtype e = alloc_dtype(l, aType, k);
    size_t nEs = ks_dtype_size(e);
    size_t nChanged = 0;
    ks_intent eI = ks_capture_infer_intent(azBefore[k], azAfter[k], l->aAlloc[k].nSize, nEs, &nChanged);
    /* Every element changed, but a buffer the kernel also reads is an input
     * too: "out" is poisoned before each trial. Without the source's
     * load counts, inout is the safe choice. */
    if (eI == KS_INTENT_OUT) {
      int bRead = sk->nParam != l->nParam || !sk->aLoads;
      for (int i = 0; !bRead && i < l->nParam; i++)
        if (l->aParam[i].iAlloc == k && sk->aLoads[i] != 0) bRead = 1;
      if (bRead) eI = KS_INTENT_INOUT;
    }
    /* Name: the first parameter pointing into it, unique. */
    char zName[128] = "";
    for (int i = 0; i < l->nParam && !zName[0]; i++)
      if (l->aParam[i].iAlloc == k) {
        if (sk->nParam == l->nParam && sk->azParamName[i][0]) snprintf(zName, sizeof zName, "%s", sk->azParamName[i]);
        else snprintf(zName, sizeof zName, "p%d", i);
      }
    for (int j = 0; j < k; j++)
      if (!strcmp(azTName[j], zName)) snprintf(zName + strlen(zName), sizeof zName - strlen(zName), "_%d", k);
    azTName[k] = ks_strdup(zName);
    cJSON *a = cJSON_CreateObject();
    cJSON_AddItemToArray(pArgs, a);
    cJSON_AddStringToObject(a, "name", zName);
    cJSON_AddStringToObject(a, "kind", "tensor");
    cJSON_AddStringToObject(a, "dtype", ks_dtype_name(e));
    cJSON *pShape = cJSON_CreateArray();
    cJSON_AddItemToArray(pShape, cJSON_CreateNumber((double)(l->aAlloc[k].nSize / nEs)));
    cJSON_AddItemToObject(a, "shape", pShape);
    cJSON_AddStringToObject(a, "intent", ks_intent_name(eI));
    char *zIn = ks_mprintf("inputs/%s.bin", zName), *zExp = ks_mprintf("expected/%s.bin", zName);
    if (eI != KS_INTENT_OUT) {
      if ((rc = write_bytes(zTaskDir, zIn, azBefore[k], l->aAlloc[k].nSize)) < 0) goto done_arg;
      cJSON_AddStringToObject(pInputs, zName, zIn);
      cJSON *pInit = cJSON_CreateObject();
      if (bFileInit) cJSON_AddStringToObject(pInit, "file", zIn);
      else range_init(pInit, e, azBefore[k], l->aAlloc[k].nSize);
      cJSON_AddItemToObject(a, "init", pInit);
    }
    if (eI != KS_INTENT_IN) {
      nOut++;
      if ((rc = write_bytes(zTaskDir, zExp, azAfter[k], l->aAlloc[k].nSize)) < 0) goto done_arg;
      cJSON_AddStringToObject(pExpect, zName, zExp);
      /* With the captured inputs, the captured output is the right answer
       * (the Reviewer checks the replayed original reproduces it). */
      if (bFileInit) {
        cJSON *pE = cJSON_CreateObject();
        cJSON_AddStringToObject(pE, "file", zExp);
        cJSON_AddItemToObject(a, "expect", pE);
      }
      if (eI == KS_INTENT_INOUT)
        ks_buf_printf(&notes, "%s: inout: the launch changed %zu of %llu elements\n", zName, nChanged,
                      (unsigned long long)(l->aAlloc[k].nSize / nEs));
    }
    rBytes += (double)l->aAlloc[k].nSize * (eI == KS_INTENT_INOUT ? 2 : 1);
  done_arg:
    free(zIn);
    free(zExp);
    if (rc < 0) goto done_task;
  }
  add_scalar_args(pArgs, l, aType, sk, azTName);
  if (rBytes > 0) {
    cJSON *pCost = cJSON_CreateObject();
    cJSON_AddNumberToObject(pCost, "bytes", rBytes);
    cJSON_AddItemToObject(pTask, "cost", pCost);
  }
  if (nOut == 0) {
    ks_buf_printf(pReport, "%s: skipped: launch %d changed no buffer it can reach (nothing to check)\n", zTaskName,
                  l->iLaunch);
    goto done_task;
  }

  if ((rc = write_task_source(l, sk, aType, nPT == l->nParam ? (const char *const *)azPT : NULL, zCallee, zEntry,
                              zTaskDir, zSrcName, &notes)) < 0)
    goto done_task;

  char *zJson = cJSON_Print(pTask);
  char *zTaskPath = ks_mprintf("%s/%s.json", zTaskDir, zTaskName);
  if (zJson && zTaskPath) {
    ks_buf b = KS_BUF_INIT;
    ks_buf_printf(&b, "%s\n", zJson);
    rc = ks_file_write_atomic(zTaskPath, b.z, b.n);
    ks_buf_free(&b);
  } else {
    rc = ks_error_set(KS_ENOMEM, "out of memory");
  }
  free(zJson);

  /* What the task format cannot say yet: the captured outputs, and where the task came from. */
  cJSON_AddNumberToObject(pSide, "ks_capture_task", 1);
  cJSON_AddStringToObject(pSide, "kernel", l->zName);
  cJSON_AddStringToObject(pSide, "mangled", l->zMangled);
  cJSON_AddNumberToObject(pSide, "launch", l->iLaunch);
  cJSON_AddNumberToObject(pSide, "nth", l->iNth);
  cJSON_AddStringToObject(pSide, "source", sk->zFile);
  cJSON_AddStringToObject(pSide, "task", zTaskPath ? strrchr(zTaskPath, '/') + 1 : "");
  cJSON_AddStringToObject(pSide, "task_source", zSrcName);
  cJSON_AddStringToObject(pSide, "init", bFileInit ? "file" : "dist");
  cJSON_AddItemToObject(pSide, "inputs", pInputs);
  cJSON_AddItemToObject(pSide, "expected", pExpect);
  pInputs = pExpect = NULL;
  cJSON_AddStringToObject(pSide, "notes", ks_buf_cstr(&notes));
  char *zSide = cJSON_Print(pSide), *zSidePath = ks_mprintf("%s/capture.json", zTaskDir);
  if (rc == KS_OK && zSide && zSidePath) rc = ks_file_write_atomic(zSidePath, zSide, strlen(zSide));
  free(zSide);
  free(zSidePath);
  if (rc == KS_OK) {
    ks_buf_printf(pReport, "%s: %s (launch %d, %d tensor(s), %d output(s), init %s)\n", zTaskName, zTaskPath, l->iLaunch,
                  l->nAlloc, nOut, bFileInit ? "from the captured files" : "drawn over the captured range");
    for (const char *p = ks_buf_cstr(&notes); *p;) {
      const char *e = strchr(p, '\n');
      ks_buf_printf(pReport, "  note: %.*s\n", (int)(e ? e - p : (long)strlen(p)), p);
      p = e ? e + 1 : p + strlen(p);
    }
  }
  free(zTaskPath);
done_task:
  cJSON_Delete(pInputs);
  cJSON_Delete(pExpect);
  free(zEntry);
  free(zSrcName);
  free(zDesc);
done:
  for (int k = 0; k < l->nAlloc; k++) {
    if (azBefore) free(azBefore[k]);
    if (azAfter) free(azAfter[k]);
    if (azTName) free(azTName[k]);
  }
  free(azBefore);
  free(azAfter);
  free(azTName);
  free(aType);
  if (azPT) {
    for (int i = 0; i < nPT; i++) free(azPT[i]);
    free(azPT);
  }
  free(zCallee);
  free(zTaskDir);
  ks_buf_free(&notes);
  cJSON_Delete(pTask);
  cJSON_Delete(pSide);
  return rc;
}

int ks_capture_write_tasks(const ks_capture *c, const ks_capture_task_opts *o, ks_buf *pReport) {
  if (!o || o->version != KS_CAPTURE_TASK_OPTS_VERSION)
    return ks_error_set(KS_EUSAGE, "ks_capture_write_tasks: options version mismatch");
  src_index s = {0, NULL};
  int rc = KS_OK, nTask = 0;
  for (int i = 0; i < o->nSource; i++) src_add_file(&s, o->azSource[i], pReport);
  int bFile = o->eInit != KS_CAPTURE_INIT_DIST;
  /* One task per kernel: its first launch with a snapshot. */
  char **azDone = calloc((size_t)c->nLaunch + 1, sizeof(char *));
  char **azNames = calloc((size_t)c->nLaunch + 1, sizeof(char *));
  int nDone = 0;
  if (!azDone || !azNames) {
    rc = ks_error_set(KS_ENOMEM, "out of memory");
    goto done;
  }
  for (int i = 0; i < c->nLaunch && rc == KS_OK; i++) {
    const ks_capture_launch *l = &c->aLaunch[i];
    if (!l->bSnapshot) continue;
    int bSeen = 0;
    for (int j = 0; j < nDone; j++) bSeen |= !strcmp(azDone[j], l->zMangled);
    if (bSeen) continue;
    char *zCallee = NULL, **az = NULL;
    int nP = 0;
    if ((rc = ks_capture_split_name(l->zName, &zCallee, &az, &nP)) < 0) break;
    for (int k = 0; k < nP; k++) free(az[k]);
    free(az);
    char zB[256], zName[256];
    bare(zCallee, zB, sizeof zB);
    free(zCallee);
    sanitize(zB, zName, sizeof zName - 16);
    /* Overloads and template instances share a bare name: number them. */
    int nSame = 0;
    for (int j = 0; j < nDone; j++) nSame += !strncmp(azNames[j], zName, strlen(zName));
    if (nSame) snprintf(zName + strlen(zName), sizeof zName - strlen(zName), "_%d", nSame + 1);
    azDone[nDone] = l->zMangled;
    azNames[nDone++] = ks_strdup(zName);
    rc = write_one(c, l, &s, o, bFile, zName, pReport);
    if (rc == KS_OK) nTask++;
  }
  if (rc == KS_OK && nDone == 0) ks_buf_puts(pReport, "no launch has a snapshot: no task written\n");
done:
  for (int j = 0; j < nDone; j++) free(azNames[j]);
  free(azNames);
  free(azDone);
  src_free(&s);
  (void)nTask;
  return rc;
}
