/* capture.c — reading a capture folder written by libks-capture.so
 * (launches.jsonl, timing.jsonl, done.json), its JSON index, the ranking of
 * kernels by GPU time, parameter type spellings and intent inference. */
#include "kernelskill/capture.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- loading ------------------------------------------------------------- */

static void launch_free(ks_capture_launch *l) {
  free(l->zMangled);
  free(l->zName);
  free(l->zStream);
  free(l->zApi);
  free(l->zSkipped);
  for (int i = 0; i < l->nParam; i++) free(l->aParam[i].aBytes);
  free(l->aParam);
  for (int i = 0; i < l->nAlloc; i++) {
    free(l->aAlloc[i].zBefore);
    free(l->aAlloc[i].zAfter);
  }
  free(l->aAlloc);
}

void ks_capture_free(ks_capture *p) {
  if (!p) return;
  for (int i = 0; i < p->nLaunch; i++) launch_free(&p->aLaunch[i]);
  free(p->aLaunch);
  for (int i = 0; i < p->nKernel; i++) free(p->aKernel[i].zMangled);
  free(p->aKernel);
  free(p->zDir);
  free(p);
}

static int hexval(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* A field as a string / number, or an error naming FILE:LINE and the field. */
#define LFAIL(...) ks_error_set(KS_EINVAL, __VA_ARGS__)

static const char *jstr(const cJSON *o, const char *k) {
  const cJSON *p = cJSON_GetObjectItemCaseSensitive(o, k);
  return cJSON_IsString(p) ? p->valuestring : NULL;
}

static int jnum(const cJSON *o, const char *k, double *pr) {
  const cJSON *p = cJSON_GetObjectItemCaseSensitive(o, k);
  if (!cJSON_IsNumber(p)) return 0;
  *pr = p->valuedouble;
  return 1;
}

static int jdim3(const cJSON *o, const char *k, unsigned *a) {
  const cJSON *p = cJSON_GetObjectItemCaseSensitive(o, k);
  if (!cJSON_IsArray(p) || cJSON_GetArraySize(p) != 3) return 0;
  for (int i = 0; i < 3; i++) {
    const cJSON *q = cJSON_GetArrayItem(p, i);
    if (!cJSON_IsNumber(q) || q->valuedouble < 0 || q->valuedouble > 4294967295.0) return 0;
    a[i] = (unsigned)q->valuedouble;
  }
  return 1;
}

/* The array o[k] of a launch record (at most KS_CAPTURE_MAX_PARAMS items) in
 * *ppArr, its size in *pn, and a zeroed C array for it (one element more than
 * it holds); NULL with the error in *prc. */
static void *jarray(const char *zFile, int iLine, const cJSON *o, const char *k, size_t nElem, const cJSON **ppArr,
                    int *pn, int *prc) {
  const cJSON *p = cJSON_GetObjectItemCaseSensitive(o, k);
  void *a = NULL;
  int n = cJSON_GetArraySize(p);
  if (!cJSON_IsArray(p)) *prc = LFAIL("%s:%d: %s: must be an array", zFile, iLine, k);
  else if (n > KS_CAPTURE_MAX_PARAMS) *prc = LFAIL("%s:%d: %s: too many (%d)", zFile, iLine, k, n);
  else if (!(a = calloc((size_t)n + 1, nElem))) *prc = KS_ENOMEM;
  *pn = a ? n : 0; /* the caller frees as many as it says */
  *ppArr = p;
  return a;
}

/* Snapshot file names come from a file we did not write ourselves in this
 * process: keep them inside the capture folder. */
static int safe_rel(const char *z) {
  if (!z || !*z || z[0] == '/' || strstr(z, "..")) return 0;
  for (; *z; z++)
    if (!isalnum((unsigned char)*z) && !strchr("._-/", *z)) return 0;
  return 1;
}

static int parse_launch(const char *zFile, int iLine, const cJSON *o, ks_capture_launch *l) {
  double r;
  const char *z;
  if (!cJSON_IsObject(o)) return LFAIL("%s:%d: a launch record must be a JSON object", zFile, iLine);
  if (!jnum(o, "launch", &r) || r < 0) return LFAIL("%s:%d: launch: missing or not a number", zFile, iLine);
  l->iLaunch = (int)r;
  l->iNth = jnum(o, "nth", &r) ? (int)r : 0;
  if (!(z = jstr(o, "mangled")) || !*z) return LFAIL("%s:%d: mangled: missing", zFile, iLine);
  l->zMangled = ks_strdup(z);
  l->zName = ks_strdup((z = jstr(o, "name")) && *z ? z : l->zMangled);
  l->zStream = ks_strdup((z = jstr(o, "stream")) ? z : "0");
  l->zApi = ks_strdup((z = jstr(o, "api")) ? z : "?");
  if (!l->zMangled || !l->zName || !l->zStream || !l->zApi) return KS_ENOMEM;
  if (!jdim3(o, "grid", l->aGrid)) return LFAIL("%s:%d: grid: must be [x, y, z]", zFile, iLine);
  if (!jdim3(o, "block", l->aBlock)) return LFAIL("%s:%d: block: must be [x, y, z]", zFile, iLine);
  l->nSmem = jnum(o, "smem", &r) ? (unsigned)r : 0;
  l->iCorrelation = jnum(o, "correlation", &r) ? (uint32_t)r : 0;
  l->iResult = jnum(o, "result", &r) ? (int)r : 0;
  l->rGpuNs = -1;
  if ((z = jstr(o, "skipped")) && !(l->zSkipped = ks_strdup(z))) return KS_ENOMEM;
  const cJSON *pSnap = cJSON_GetObjectItemCaseSensitive(o, "snapshot");
  l->bSnapshot = cJSON_IsTrue(pSnap);

  const cJSON *pAllocs, *pParams;
  int rc;
  if (!(l->aAlloc = jarray(zFile, iLine, o, "allocs", sizeof *l->aAlloc, &pAllocs, &l->nAlloc, &rc))) return rc;
  int k = 0;
  for (const cJSON *q = pAllocs->child; q; q = q->next, k++) {
    ks_capture_alloc *a = &l->aAlloc[k];
    if (!(z = jstr(q, "base"))) return LFAIL("%s:%d: allocs[%d].base: missing", zFile, iLine, k);
    a->iBase = strtoull(z, NULL, 0);
    if (!jnum(q, "size", &r) || r < 0) return LFAIL("%s:%d: allocs[%d].size: missing", zFile, iLine, k);
    a->nSize = (uint64_t)r;
    const char *zB = jstr(q, "before"), *zA = jstr(q, "after");
    if ((zB && !safe_rel(zB)) || (zA && !safe_rel(zA)))
      return LFAIL("%s:%d: allocs[%d]: snapshot file names must stay inside the capture folder", zFile, iLine, k);
    if (zB && !(a->zBefore = ks_strdup(zB))) return KS_ENOMEM;
    if (zA && !(a->zAfter = ks_strdup(zA))) return KS_ENOMEM;
    if (l->bSnapshot && (!zB || !zA))
      return LFAIL("%s:%d: allocs[%d]: a snapshotted launch names both snapshot files", zFile, iLine, k);
  }

  if (!(l->aParam = jarray(zFile, iLine, o, "params", sizeof *l->aParam, &pParams, &l->nParam, &rc))) return rc;
  k = 0;
  for (const cJSON *q = pParams->child; q; q = q->next, k++) {
    ks_capture_param *pp = &l->aParam[k];
    if (!jnum(q, "offset", &r) || r < 0) return LFAIL("%s:%d: params[%d].offset: missing", zFile, iLine, k);
    pp->nOffset = (size_t)r;
    if (!jnum(q, "size", &r) || r <= 0 || r > 32768) return LFAIL("%s:%d: params[%d].size: missing or out of range", zFile, iLine, k);
    pp->nSize = (size_t)r;
    const char *zHex = jstr(q, "bytes");
    if (!zHex || strlen(zHex) != 2 * pp->nSize)
      return LFAIL("%s:%d: params[%d].bytes: must hold %zu hex bytes", zFile, iLine, k, pp->nSize);
    if (!(pp->aBytes = malloc(pp->nSize))) return KS_ENOMEM;
    for (size_t b = 0; b < pp->nSize; b++) {
      int hi = hexval(zHex[2 * b]), lo = hexval(zHex[2 * b + 1]);
      if (hi < 0 || lo < 0) return LFAIL("%s:%d: params[%d].bytes: not hex", zFile, iLine, k);
      pp->aBytes[b] = (unsigned char)(hi * 16 + lo);
    }
    pp->iAlloc = -1;
    if (jnum(q, "alloc", &r)) {
      if (r < 0 || r >= l->nAlloc) return LFAIL("%s:%d: params[%d].alloc: no allocation %g", zFile, iLine, k, r);
      pp->iAlloc = (int)r;
      pp->nPtrOffset = jnum(q, "ptr_offset", &r) ? (uint64_t)r : 0;
      if (pp->nPtrOffset > l->aAlloc[pp->iAlloc].nSize)
        return LFAIL("%s:%d: params[%d].ptr_offset: beyond its allocation", zFile, iLine, k);
    }
  }
  return KS_OK;
}

/* Call xLine for each line of a JSON-lines file. */
static int read_lines(const char *zPath, int (*xLine)(void *, const char *, int, const cJSON *), void *pCtx) {
  char *zText = NULL;
  size_t nText = 0;
  int rc = ks_file_read(zPath, &zText, &nText);
  if (rc < 0) return rc;
  int iLine = 0;
  char *p = zText;
  while (p && *p) {
    char *zEnd = strchr(p, '\n');
    if (zEnd) *zEnd = 0;
    iLine++;
    char *q = p;
    while (isspace((unsigned char)*q)) q++;
    if (*q) {
      cJSON *o = cJSON_Parse(q);
      if (!o) {
        /* A last line cut short (the program was killed mid-write) is not fatal. */
        if (!zEnd || !zEnd[1]) break;
        rc = ks_error_set(KS_EPARSE, "%s:%d: not valid JSON", zPath, iLine);
        break;
      }
      rc = xLine(pCtx, zPath, iLine, o);
      cJSON_Delete(o);
      if (rc < 0) break;
    }
    p = zEnd ? zEnd + 1 : NULL;
  }
  free(zText);
  return rc;
}

static int on_launch_line(void *pCtx, const char *zFile, int iLine, const cJSON *o) {
  ks_capture *c = pCtx;
  if (c->nLaunch % 64 == 0) {
    ks_capture_launch *a = realloc(c->aLaunch, (size_t)(c->nLaunch + 64) * sizeof *a);
    if (!a) return ks_error_set(KS_ENOMEM, "out of memory");
    c->aLaunch = a;
  }
  ks_capture_launch *l = &c->aLaunch[c->nLaunch++];
  memset(l, 0, sizeof *l);
  int rc = parse_launch(zFile, iLine, o, l);
  if (rc == KS_ENOMEM) return ks_error_set(KS_ENOMEM, "out of memory");
  return rc;
}

static int on_timing_line(void *pCtx, const char *zFile, int iLine, const cJSON *o) {
  ks_capture *c = pCtx;
  double rCorr, rNs;
  const char *zName = jstr(o, "mangled");
  if (!jnum(o, "correlation", &rCorr) || !jnum(o, "ns", &rNs) || !zName)
    return ks_error_set(KS_EINVAL, "%s:%d: a timing record has correlation, ns and mangled", zFile, iLine);
  int k;
  for (k = 0; k < c->nKernel; k++)
    if (!strcmp(c->aKernel[k].zMangled, zName)) break;
  if (k == c->nKernel) {
    ks_capture_kernel_time *a = realloc(c->aKernel, (size_t)(c->nKernel + 1) * sizeof *a);
    if (!a) return ks_error_set(KS_ENOMEM, "out of memory");
    c->aKernel = a;
    a[k].zMangled = ks_strdup(zName);
    a[k].nLaunch = 0;
    a[k].rTotalNs = 0;
    c->nKernel++;
    if (!a[k].zMangled) return KS_ENOMEM;
  }
  c->aKernel[k].nLaunch++;
  c->aKernel[k].rTotalNs += rNs;
  /* The kernel record carries the launch call's correlation id. */
  for (int i = 0; i < c->nLaunch; i++)
    if (c->aLaunch[i].iCorrelation == (uint32_t)rCorr && !strcmp(c->aLaunch[i].zMangled, zName)) c->aLaunch[i].rGpuNs = rNs;
  return KS_OK;
}

int ks_capture_load(const char *zDir, ks_capture **ppCap) {
  *ppCap = NULL;
  ks_capture *c = calloc(1, sizeof *c);
  char *zPath = NULL;
  int rc = KS_OK;
  if (!c || !(c->zDir = ks_strdup(zDir))) {
    rc = ks_error_set(KS_ENOMEM, "out of memory");
    goto fail;
  }
  zPath = ks_path_join(zDir, "launches.jsonl");
  if (!ks_file_exists(zPath)) {
    rc = ks_error_set(KS_ENOTFOUND, "%s: not a capture folder (no launches.jsonl)", zDir);
    goto fail;
  }
  if ((rc = read_lines(zPath, on_launch_line, c)) < 0) goto fail;
  for (int i = 0; i < c->nLaunch; i++)
    if (c->aLaunch[i].iLaunch != i) {
      rc = ks_error_set(KS_EINVAL, "%s:%d: launch %d out of order (expected %d)", zPath, i + 1, c->aLaunch[i].iLaunch, i);
      goto fail;
    }
  free(zPath);
  zPath = ks_path_join(zDir, "timing.jsonl");
  if (ks_file_exists(zPath) && (rc = read_lines(zPath, on_timing_line, c)) < 0) goto fail;
  free(zPath);
  zPath = ks_path_join(zDir, "done.json");
  c->bComplete = ks_file_exists(zPath);
  free(zPath);
  *ppCap = c;
  return KS_OK;
fail:
  free(zPath);
  ks_capture_free(c);
  return rc;
}

/* ---- index and summary ---------------------------------------------------- */

int ks_capture_index_json(const ks_capture *p, ks_buf *pOut) {
  cJSON *pRoot = cJSON_CreateObject(), *pL = NULL;
  if (!pRoot) return ks_error_set(KS_ENOMEM, "out of memory");
  cJSON_AddNumberToObject(pRoot, "ks_capture", KS_CAPTURE_FORMAT);
  cJSON_AddBoolToObject(pRoot, "complete", p->bComplete);
  double nBytes = 0;
  cJSON_AddItemToObject(pRoot, "launches", pL = cJSON_CreateArray());
  for (int i = 0; i < p->nLaunch; i++) {
    const ks_capture_launch *l = &p->aLaunch[i];
    cJSON *o = cJSON_CreateObject(), *a;
    cJSON_AddItemToArray(pL, o);
    cJSON_AddNumberToObject(o, "launch", l->iLaunch);
    cJSON_AddNumberToObject(o, "nth", l->iNth);
    cJSON_AddStringToObject(o, "kernel", l->zName);
    cJSON_AddStringToObject(o, "mangled", l->zMangled);
    cJSON_AddItemToObject(o, "grid", cJSON_CreateIntArray((const int[]){(int)l->aGrid[0], (int)l->aGrid[1], (int)l->aGrid[2]}, 3));
    cJSON_AddItemToObject(o, "block", cJSON_CreateIntArray((const int[]){(int)l->aBlock[0], (int)l->aBlock[1], (int)l->aBlock[2]}, 3));
    cJSON_AddNumberToObject(o, "smem", l->nSmem);
    cJSON_AddStringToObject(o, "stream", l->zStream);
    if (l->rGpuNs >= 0) cJSON_AddNumberToObject(o, "gpu_ns", l->rGpuNs);
    cJSON_AddItemToObject(o, "params", a = cJSON_CreateArray());
    for (int k = 0; k < l->nParam; k++) {
      cJSON *q = cJSON_CreateObject();
      cJSON_AddItemToArray(a, q);
      cJSON_AddNumberToObject(q, "offset", (double)l->aParam[k].nOffset);
      cJSON_AddNumberToObject(q, "size", (double)l->aParam[k].nSize);
      if (l->aParam[k].iAlloc >= 0) {
        cJSON_AddNumberToObject(q, "alloc", l->aParam[k].iAlloc);
        cJSON_AddNumberToObject(q, "ptr_offset", (double)l->aParam[k].nPtrOffset);
      }
    }
    cJSON_AddItemToObject(o, "allocs", a = cJSON_CreateArray());
    for (int k = 0; k < l->nAlloc; k++) {
      const ks_capture_alloc *al = &l->aAlloc[k];
      cJSON *q = cJSON_CreateObject();
      char zBase[32];
      snprintf(zBase, sizeof zBase, "0x%llx", (unsigned long long)al->iBase);
      cJSON_AddItemToArray(a, q);
      cJSON_AddStringToObject(q, "base", zBase);
      cJSON_AddNumberToObject(q, "size", (double)al->nSize);
      if (l->bSnapshot && al->zBefore) {
        cJSON_AddStringToObject(q, "before", al->zBefore);
        cJSON_AddStringToObject(q, "after", al->zAfter);
        nBytes += 2.0 * (double)al->nSize;
      }
    }
    cJSON_AddBoolToObject(o, "snapshot", l->bSnapshot);
    if (l->zSkipped) cJSON_AddStringToObject(o, "skipped", l->zSkipped);
  }
  cJSON_AddNumberToObject(pRoot, "snapshot_bytes", nBytes);
  char *z = cJSON_Print(pRoot);
  cJSON_Delete(pRoot);
  if (!z) return ks_error_set(KS_ENOMEM, "out of memory");
  int rc = ks_buf_puts(pOut, z);
  ks_buf_puts(pOut, "\n");
  free(z);
  return rc;
}

typedef struct rank_row {
  const char *zName;
  int nLaunch;
  double rNs;
} rank_row;

static int rank_cmp(const void *a, const void *b) {
  const rank_row *x = a, *y = b;
  if (x->rNs != y->rNs) return x->rNs < y->rNs ? 1 : -1;
  if (x->nLaunch != y->nLaunch) return y->nLaunch - x->nLaunch;
  return strcmp(x->zName, y->zName);
}

int ks_capture_summary_text(const ks_capture *p, ks_buf *pOut) {
  /* One row per kernel seen at launch; GPU time from the activity records. */
  rank_row *a = calloc((size_t)p->nLaunch + 1, sizeof *a);
  int n = 0;
  double rTotal = 0;
  if (!a) return ks_error_set(KS_ENOMEM, "out of memory");
  for (int i = 0; i < p->nLaunch; i++) {
    const ks_capture_launch *l = &p->aLaunch[i];
    int k;
    for (k = 0; k < n; k++)
      if (!strcmp(a[k].zName, l->zName)) break;
    if (k == n) {
      a[n].zName = l->zName;
      for (int j = 0; j < p->nKernel; j++)
        if (!strcmp(p->aKernel[j].zMangled, l->zMangled)) a[n].rNs = p->aKernel[j].rTotalNs;
      n++;
    }
    a[k].nLaunch++;
  }
  for (int k = 0; k < n; k++) rTotal += a[k].rNs;
  qsort(a, (size_t)n, sizeof *a, rank_cmp);
  ks_buf_printf(pOut, "%-4s %10s %8s %7s  %s\n", "rank", "gpu_us", "launches", "share", "kernel");
  for (int k = 0; k < n; k++)
    ks_buf_printf(pOut, "%-4d %10.1f %8d %6.1f%%  %s\n", k + 1, a[k].rNs / 1e3, a[k].nLaunch,
                  rTotal > 0 ? 100.0 * a[k].rNs / rTotal : 0.0, a[k].zName);
  if (rTotal <= 0 && n) ks_buf_puts(pOut, "(no GPU timing was recorded: CUPTI activity unavailable)\n");
  free(a);
  return KS_OK;
}

/* ---- types --------------------------------------------------------------- */

/* Remove a whole word from a type spelling; returns 1 if it was there. */
static int drop_word(char *z, const char *zWord) {
  size_t n = strlen(zWord);
  int bFound = 0;
  for (char *p = z; (p = strstr(p, zWord));) {
    int bL = p == z || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
    int bR = !(isalnum((unsigned char)p[n]) || p[n] == '_');
    if (bL && bR) {
      memmove(p, p + n, strlen(p + n) + 1);
      bFound = 1;
    } else {
      p += n;
    }
  }
  return bFound;
}

void ks_capture_type(const char *zSpelling, ks_ptype *pOut) {
  memset(pOut, 0, sizeof *pOut);
  pOut->eKind = KS_PT_UNKNOWN;
  pOut->nLanes = 1;
  char z[256];
  snprintf(z, sizeof z, "%s", zSpelling ? zSpelling : "");
  int nStar = 0;
  for (char *p = z; *p; p++)
    if (*p == '*') nStar++, *p = ' ';
  if (strchr(z, '&') || strchr(z, '[') || strchr(z, '(') || nStar > 1) return;
  int bConst = drop_word(z, "const");
  drop_word(z, "volatile");
  drop_word(z, "__restrict__");
  drop_word(z, "__restrict");
  drop_word(z, "restrict");
  drop_word(z, "struct");
  /* collapse spaces */
  char w[256];
  int n = 0;
  for (char *p = z; *p && n < 255; p++) {
    if (isspace((unsigned char)*p)) {
      if (n && w[n - 1] != ' ') w[n++] = ' ';
    } else {
      w[n++] = *p;
    }
  }
  while (n && w[n - 1] == ' ') n--;
  w[n] = 0;
  const char *b = w;
  if (!strncmp(b, "std::", 5)) b += 5;
  static const struct {
    const char *z;
    ks_dtype e;
    int nLanes;
    size_t nSize;
    int bUnsigned;
  } aMap[] = {
      {"float", KS_DT_F32, 1, 4, 0}, {"double", KS_DT_F64, 1, 8, 0}, {"__half", KS_DT_F16, 1, 2, 0},
      {"half", KS_DT_F16, 1, 2, 0}, {"__nv_bfloat16", KS_DT_BF16, 1, 2, 0}, {"nv_bfloat16", KS_DT_BF16, 1, 2, 0},
      {"int", KS_DT_I32, 1, 4, 0}, {"signed int", KS_DT_I32, 1, 4, 0}, {"signed", KS_DT_I32, 1, 4, 0},
      {"unsigned int", KS_DT_I32, 1, 4, 1}, {"unsigned", KS_DT_I32, 1, 4, 1}, {"int32_t", KS_DT_I32, 1, 4, 0},
      {"uint32_t", KS_DT_I32, 1, 4, 1}, {"long", KS_DT_I64, 1, 8, 0}, {"long int", KS_DT_I64, 1, 8, 0},
      {"long long", KS_DT_I64, 1, 8, 0}, {"long long int", KS_DT_I64, 1, 8, 0}, {"unsigned long", KS_DT_I64, 1, 8, 1},
      {"unsigned long long", KS_DT_I64, 1, 8, 1}, {"int64_t", KS_DT_I64, 1, 8, 0}, {"uint64_t", KS_DT_I64, 1, 8, 1},
      {"size_t", KS_DT_I64, 1, 8, 1}, {"ptrdiff_t", KS_DT_I64, 1, 8, 0}, {"unsigned char", KS_DT_U8, 1, 1, 1},
      {"uint8_t", KS_DT_U8, 1, 1, 1}, {"char", KS_DT_U8, 1, 1, 0}, {"signed char", KS_DT_U8, 1, 1, 0},
      {"int8_t", KS_DT_U8, 1, 1, 0}, {"bool", KS_DT_U8, 1, 1, 1}, {"float2", KS_DT_F32, 2, 8, 0},
      {"float4", KS_DT_F32, 4, 16, 0}, {"double2", KS_DT_F64, 2, 16, 0}, {"int2", KS_DT_I32, 2, 8, 0},
      {"int4", KS_DT_I32, 4, 16, 0}, {"__half2", KS_DT_F16, 2, 4, 0}, {"half2", KS_DT_F16, 2, 4, 0},
      {"__nv_bfloat162", KS_DT_BF16, 2, 4, 0}, {"uchar4", KS_DT_U8, 4, 4, 1},
  };
  for (size_t i = 0; i < sizeof aMap / sizeof aMap[0]; i++) {
    if (strcmp(b, aMap[i].z)) continue;
    if (nStar == 1) {
      pOut->eKind = KS_PT_POINTER;
      pOut->eType = aMap[i].e;
      pOut->nLanes = aMap[i].nLanes;
      pOut->bConst = bConst;
    } else if (aMap[i].nLanes == 1) {
      /* Scalars the task format carries exactly: 4- and 8-byte numbers.
       * Unsigned, 1- and 2-byte values stay captured bytes. */
      if (aMap[i].bUnsigned || aMap[i].nSize < 4) return;
      pOut->eKind = KS_PT_SCALAR;
      pOut->eType = aMap[i].e;
      pOut->nSize = aMap[i].nSize;
    }
    return;
  }
  /* A pointer to anything else (a struct): bytes. */
  if (nStar == 1) {
    pOut->eKind = KS_PT_POINTER;
    pOut->eType = KS_DT_U8;
    pOut->bConst = bConst;
  }
}

int ks_capture_split_name(const char *zDem, char **pzCallee, char ***pazParam, int *pnParam) {
  *pzCallee = NULL;
  *pazParam = NULL;
  *pnParam = -1;
  ks_buf name = KS_BUF_INIT;
  /* Drop "(anonymous namespace)::": the replay entry lives in the same file. */
  const char *zAnon = "(anonymous namespace)::";
  for (const char *p = zDem; *p;) {
    if (!strncmp(p, zAnon, strlen(zAnon))) {
      p += strlen(zAnon);
      continue;
    }
    ks_buf_append(&name, p++, 1);
  }
  char *z = ks_buf_detach(&name);
  if (!z) return ks_error_set(KS_ENOMEM, "out of memory");
  /* The parameter list: the last top-level "(...)". */
  int iDepth = 0, iOpen = -1;
  size_t n = strlen(z);
  for (size_t i = 0; i < n; i++) {
    char c = z[i];
    if (c == '<') iDepth++;
    else if (c == '>') iDepth--;
    else if (c == '(' && iDepth == 0 && iOpen < 0) iOpen = (int)i;
  }
  char *zName = z;
  if (iOpen >= 0 && z[n - 1] == ')') {
    z[n - 1] = 0;
    z[iOpen] = 0;
    char *zList = z + iOpen + 1;
    char **az = calloc(KS_CAPTURE_MAX_PARAMS + 1, sizeof *az);
    int nP = 0;
    if (!az) {
      free(z);
      return ks_error_set(KS_ENOMEM, "out of memory");
    }
    if (strcmp(zList, "") && strcmp(zList, "void")) {
      int d = 0;
      char *zStart = zList;
      for (char *p = zList;; p++) {
        if (*p == '<' || *p == '(') d++;
        else if (*p == '>' || *p == ')') d--;
        if ((*p == ',' && d == 0) || !*p) {
          char c = *p;
          *p = 0;
          while (isspace((unsigned char)*zStart)) zStart++;
          if (nP < KS_CAPTURE_MAX_PARAMS) az[nP++] = ks_strdup(zStart);
          if (!c) break;
          zStart = p + 1;
        }
      }
    }
    *pazParam = az;
    *pnParam = nP;
    /* A template's demangled name starts with its return type ("void "). */
    int d = 0;
    char *zLastSpace = NULL;
    for (char *p = zName; *p; p++) {
      if (*p == '<') d++;
      else if (*p == '>') d--;
      else if (*p == ' ' && d == 0) zLastSpace = p;
    }
    if (zLastSpace) zName = zLastSpace + 1;
  }
  *pzCallee = ks_strdup(zName);
  free(z);
  return *pzCallee ? KS_OK : KS_ENOMEM;
}

/* ---- intents ------------------------------------------------------------- */

ks_intent ks_capture_infer_intent(const void *pBefore, const void *pAfter, size_t nBytes, size_t nElemSize,
                                  size_t *pnChanged) {
  const unsigned char *b = pBefore, *a = pAfter;
  if (nElemSize == 0) nElemSize = 1;
  size_t nElem = nBytes / nElemSize, nChanged = 0;
  for (size_t i = 0; i < nElem; i++)
    if (memcmp(b + i * nElemSize, a + i * nElemSize, nElemSize)) nChanged++;
  /* A tail shorter than an element counts as one more element. */
  if (nBytes % nElemSize) {
    size_t k = nElem * nElemSize;
    if (memcmp(b + k, a + k, nBytes - k)) nChanged++;
    nElem++;
  }
  if (pnChanged) *pnChanged = nChanged;
  if (nChanged == 0) return KS_INTENT_IN;
  /* "out" only when every element changed: an output is poisoned before each
   * trial and must be written everywhere; any element left alone (or written
   * with the value it had) makes it inout, which is always safe. */
  return nChanged == nElem ? KS_INTENT_OUT : KS_INTENT_INOUT;
}
