/* plugin_support.c — the logic behind `clang -fplugin=kernelskill.so`, in C so
 * the C++ shim (plugin/) stays thin: reading the clang driver's command line
 * (which pass acts, which archs the compile targets), the store lookup for
 * `apply`, the per-kernel advice for `report` and the features document. */
#define _GNU_SOURCE
#include "kernelskill/plugin.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kernelskill/features.h"
#include "kernelskill/skills.h"
#include "kernelskill/store.h"

/* ---- The driver's command line ---- */

static const char *base_name(const char *z) {
  const char *p = strrchr(z, '/');
  return p ? p + 1 : z;
}

static int push_str(char ***paz, int *pn, const char *z) {
  char **a = realloc(*paz, sizeof(char *) * (size_t)(*pn + 1));
  if (!a) return ks_error_set(KS_ENOMEM, "out of memory");
  *paz = a;
  if (!(a[*pn] = ks_strdup(z))) return KS_ENOMEM;
  (*pn)++;
  return KS_OK;
}

static void free_strs(char **az, int n) {
  for (int i = 0; i < n; i++) free(az[i]);
  free(az);
}

/* Add or (bRemove) drop each arch of a comma list. */
static int arch_list(ks_plugin_compile *p, char ***paz, int *pn, const char *zList, int bRemove) {
  int rc = KS_OK;
  char *zCopy = ks_strdup(zList), *zSave = NULL;
  if (!zCopy) return KS_ENOMEM;
  for (char *z = strtok_r(zCopy, ",", &zSave); z && rc >= 0; z = strtok_r(NULL, ",", &zSave)) {
    if (strcmp(z, "all") == 0 && bRemove) {
      free_strs(*paz, *pn);
      *paz = NULL;
      *pn = 0;
      continue;
    }
    char *zArch = ks_store_arch_name(z);
    if (!zArch) {
      if (!bRemove) p->bArchUnknown = 1;
      continue;
    }
    int iAt = -1;
    for (int i = 0; i < *pn; i++)
      if (strcmp((*paz)[i], zArch) == 0) iAt = i;
    if (bRemove && iAt >= 0) {
      free((*paz)[iAt]);
      memmove(*paz + iAt, *paz + iAt + 1, sizeof(char *) * (size_t)(*pn - iAt - 1));
      (*pn)--;
    } else if (!bRemove && iAt < 0) {
      rc = push_str(paz, pn, zArch);
    }
    free(zArch);
  }
  free(zCopy);
  return rc;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The value of `--opt=V` or `--opt V` at azArgv[*pi], or NULL. */
static const char *opt_value(const char *const *azArgv, int nArgv, int *pi, const char *zOpt) {
  size_t n = strlen(zOpt);
  const char *z = azArgv[*pi];
  if (strncmp(z, zOpt, n) != 0) return NULL;
  if (z[n] == '=') return z + n + 1;
  if (z[n] == 0 && *pi + 1 < nArgv) return azArgv[++*pi];
  return NULL;
}

int ks_plugin_compile_from_argv(const char *const *azArgv, int nArgv, const char *zMainFile, ks_plugin_compile **pp) {
  ks_plugin_compile *p = calloc(1, sizeof *p);
  int rc = KS_OK, bNamesMain = 0;
  *pp = NULL;
  if (!p) return ks_error_set(KS_ENOMEM, "out of memory");
  if (nArgv < 2 || !strstr(base_name(azArgv[0]), "clang") || strcmp(azArgv[1], "-cc1") == 0) goto done;
  for (int i = 1; i < nArgv && rc >= 0; i++) {
    const char *z = azArgv[i], *zV;
    if (zMainFile && !bNamesMain && (strcmp(z, zMainFile) == 0 || strcmp(base_name(z), base_name(zMainFile)) == 0)) {
      bNamesMain = 1;
      free(p->zMainPath);
      if (!(p->zMainPath = ks_strdup(z))) rc = KS_ENOMEM;
    }
    if (!strcmp(z, "--cuda-device-only") || !strcmp(z, "--offload-device-only")) {
      p->bDeviceOnly = 1;
      p->bHostOnly = 0;
    } else if (!strcmp(z, "--cuda-host-only") || !strcmp(z, "--offload-host-only")) {
      p->bHostOnly = 1;
      p->bDeviceOnly = 0;
    } else if (!strcmp(z, "--cuda-compile-host-device") || !strcmp(z, "--offload-host-device")) {
      p->bHostOnly = p->bDeviceOnly = 0;
    } else if ((zV = opt_value(azArgv, nArgv, &i, "--cuda-gpu-arch")) ||
               (zV = opt_value(azArgv, nArgv, &i, "--offload-arch"))) {
      rc = arch_list(p, &p->azArchs, &p->nArchs, zV, 0);
    } else if ((zV = opt_value(azArgv, nArgv, &i, "--no-cuda-gpu-arch")) ||
               (zV = opt_value(azArgv, nArgv, &i, "--no-offload-arch"))) {
      rc = arch_list(p, &p->azArchs, &p->nArchs, zV, 1);
    } else if ((zV = opt_value(azArgv, nArgv, &i, "--cuda-path"))) {
      free(p->zCudaPath);
      if (!(p->zCudaPath = ks_strdup(zV))) rc = KS_ENOMEM;
    }
  }
  if (rc < 0) goto done;
  if (zMainFile && !bNamesMain) {
    /* Not this compile's driver: forget what was read. */
    free_strs(p->azArchs, p->nArchs);
    free(p->zCudaPath);
    free(p->zMainPath);
    memset(p, 0, sizeof *p);
    goto done;
  }
  p->bDriver = 1;
  if (p->nArchs == 0 && !p->bArchUnknown) rc = push_str(&p->azArchs, &p->nArchs, KS_PLUGIN_DEFAULT_ARCH);
  if (p->nArchs > 1) qsort(p->azArchs, (size_t)p->nArchs, sizeof(char *), cmp_str);
done:
  if (rc < 0) {
    ks_plugin_compile_free(p);
    return rc;
  }
  *pp = p;
  return KS_OK;
}

/* /proc/<pid>/cmdline as an argv (NUL-separated words). */
static int read_cmdline(long iPid, char **pzBuf, char ***pazArgv, int *pnArgv) {
  char aPath[64];
  char *zBuf = NULL;
  size_t nBuf = 0;
  *pzBuf = NULL;
  *pazArgv = NULL;
  *pnArgv = 0;
  if (iPid > 0) snprintf(aPath, sizeof aPath, "/proc/%ld/cmdline", iPid);
  else snprintf(aPath, sizeof aPath, "/proc/self/cmdline");
  if (ks_file_read(aPath, &zBuf, &nBuf) < 0) {
    ks_error_clear();
    return KS_OK; /* no /proc: no driver known */
  }
  int n = 0;
  for (size_t i = 0; i < nBuf; i++)
    if (zBuf[i] == 0) n++;
  char **az = calloc((size_t)n + 1, sizeof(char *));
  if (!az) {
    free(zBuf);
    return ks_error_set(KS_ENOMEM, "out of memory");
  }
  int k = 0;
  for (size_t i = 0; i < nBuf && k < n; i += strlen(zBuf + i) + 1) az[k++] = zBuf + i;
  *pzBuf = zBuf;
  *pazArgv = az;
  *pnArgv = k;
  return KS_OK;
}

int ks_plugin_compile_find(const char *zMainFile, ks_plugin_compile **pp) {
  long aPid[2] = {0, (long)getppid()};
  *pp = NULL;
  for (int i = 0; i < 2; i++) {
    char *zBuf = NULL, **azArgv = NULL;
    ks_plugin_compile *pC = NULL;
    int nArgv = 0, rc = read_cmdline(aPid[i], &zBuf, &azArgv, &nArgv);
    if (rc == KS_OK) rc = ks_plugin_compile_from_argv((const char *const *)azArgv, nArgv, zMainFile, &pC);
    /* A spawned cc1 (-fno-integrated-cc1): its parent is the driver. */
    int bCc1 = nArgv >= 2 && strcmp(azArgv[1], "-cc1") == 0;
    free(azArgv);
    free(zBuf);
    if (rc < 0) return rc;
    if (pC->bDriver || i == 1 || !bCc1) {
      *pp = pC;
      return KS_OK;
    }
    ks_plugin_compile_free(pC);
  }
  return KS_OK; /* not reached */
}

void ks_plugin_compile_free(ks_plugin_compile *p) {
  if (!p) return;
  free_strs(p->azArchs, p->nArchs);
  free(p->zCudaPath);
  free(p->zMainPath);
  free(p);
}

int ks_plugin_pass_acts(const ks_plugin_compile *pC, const ks_plugin_pass *pP) {
  if (!pC || !pC->bDriver) return 1;
  if (!pC->bDeviceOnly) return !pP->bDevice;
  if (!pP->bDevice) return 0;
  /* Device-only: the first arch's pass (an unknown arch list: every pass). */
  if (pC->nArchs == 0 || !pP->zArch) return 1;
  char *zArch = ks_store_arch_name(pP->zArch);
  int bFirst = zArch && strcmp(zArch, pC->azArchs[0]) == 0;
  free(zArch);
  return bFirst;
}

/* ---- apply ---- */

void ks_plugin_apply_clear(ks_plugin_apply *p) {
  free(p->zOptimized);
  free(p->zEntry);
  free(p->zNote);
  memset(p, 0, sizeof *p);
}

/* A pass struct of a layout this library knows (the plugin and the library
 * are built together, but a stale plugin may load a newer library). */
static int pass_check(const ks_plugin_pass *pP) {
  if (pP->version != KS_PLUGIN_PASS_VERSION)
    return ks_error_set(KS_EUSAGE, "ks_plugin_pass: unsupported version %u", pP->version);
  return KS_OK;
}

static void set_note(ks_plugin_apply *pOut, int bWarn, const char *zFmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void set_note(ks_plugin_apply *pOut, int bWarn, const char *zFmt, ...) {
  va_list ap;
  free(pOut->zNote);
  va_start(ap, zFmt);
  pOut->zNote = ks_vmprintf(zFmt, ap);
  va_end(ap);
  pOut->bWarn = bWarn;
}

int ks_plugin_apply_lookup(const ks_plugin_compile *pC, const ks_plugin_pass *pP, ks_plugin_apply *pOut) {
  const char *zPath = pP->zMainFile;
  char *zSrc = NULL, *zDir = NULL;
  size_t nSrc = 0;
  ks_store *pStore = NULL;
  ks_store_entry *pHit = NULL, **apPath = NULL;
  int nPath = 0, rc = KS_OK, nMiss = 0;
  const char *azOwn[1];
  const char *const *azArchs;
  int nArchs;
  memset(pOut, 0, sizeof *pOut);
  if ((rc = pass_check(pP)) < 0) return rc;
  if (!(zDir = ks_path_dirname(zPath))) return KS_ENOMEM;
  rc = ks_store_open(zDir, 0, &pStore);
  if (rc == KS_ENOTFOUND) {
    ks_error_clear();
    rc = KS_OK;
    goto done;
  }
  if (rc < 0) goto done;
  /* The store keys on the file's bytes on disk. */
  if ((rc = ks_file_read(zPath, &zSrc, &nSrc)) < 0) goto done;
  /* Every pass must decide alike: the compile's archs from the driver; a
   * lone device cc1 has its own arch; a lone host cc1 cannot know. */
  if (pC && pC->bDriver) {
    azArchs = (const char *const *)pC->azArchs;
    nArchs = pC->nArchs;
    if (pC->bArchUnknown) {
      set_note(pOut, 0, "%s: the compile targets an arch the store cannot name; compiling the original", zPath);
      goto done;
    }
  } else if (pP->bDevice && pP->zArch) {
    azOwn[0] = pP->zArch;
    azArchs = azOwn;
    nArchs = 1;
  } else {
    set_note(pOut, 0, "%s: no clang driver command line to learn the GPU archs from; compiling the original", zPath);
    goto done;
  }
  for (int i = 0; i < nArchs; i++) {
    ks_store_entry *pE = NULL;
    int r = ks_store_select(pStore, base_name(zPath), zSrc, nSrc, azArchs[i], &pE);
    if (r == KS_ENOTFOUND) {
      ks_error_clear();
      nMiss++;
      continue;
    }
    if (r == KS_EPRECOND) { /* an entry without consistent evidence: said, never compiled */
      set_note(pOut, 0, "%s: %s; compiling the original", zPath, ks_error_msg());
      ks_error_clear();
      nMiss++;
      continue;
    }
    if (r < 0) {
      rc = r;
      goto done;
    }
    if (pHit && strcmp(pHit->zOptHash, pE->zOptHash) != 0) {
      set_note(pOut, 0, "%s: the store has different verified versions for the archs of this compile; compiling the original",
               zPath);
      ks_store_entry_free(pE);
      nMiss++;
      continue;
    }
    if (!pHit) pHit = pE;
    else ks_store_entry_free(pE);
  }
  if (pHit && nMiss == 0) {
    if ((rc = ks_store_entry_optimized(pHit, &pOut->zOptimized, &pOut->nOptimized)) < 0) goto done;
    if (!(pOut->zEntry = ks_strdup(pHit->zName))) rc = KS_ENOMEM;
    char *zFlags = ks_store_source_flags(pOut->zOptimized, pOut->nOptimized);
    if (zFlags && rc >= 0)
      set_note(pOut, 0, "%s: the verified version records nvcc flags (%s) that a clang compile does not take", zPath,
               zFlags);
    free(zFlags);
    goto done;
  }
  if (pHit) {
    /* Some archs lack an entry (or differ, noted above). */
    if (!pOut->zNote)
      set_note(pOut, 0, "%s: the store has a verified version for %s but not for every arch of this compile; compiling "
               "the original", zPath, pHit->zArch);
    goto done;
  }
  /* No entry for these bytes: one for this path means the source changed. */
  if ((rc = ks_store_entries_for_path(pStore, zPath, &apPath, &nPath)) < 0) goto done;
  char azHash[17];
  ks_store_hash(zSrc, nSrc, azHash);
  int nStale = 0, nOtherArch = 0;
  for (int i = 0; i < nPath; i++) {
    if (strcmp(apPath[i]->zOrigHash, azHash) != 0) nStale++;
    else nOtherArch++;
  }
  if (nStale)
    set_note(pOut, 1,
             "%s: the store's verified version is stale (the source changed since it was optimized): compiling the "
             "source as it is; refresh it with `kernelskill optimize --commit` on its task, or drop it with "
             "`kernelskill store rm %s`",
             zPath, apPath[0]->zName);
  else if (nOtherArch)
    set_note(pOut, 0, "%s: the store has a verified version for %s, not for the archs of this compile; compiling the original",
             zPath, apPath[0]->zArch);
done:
  if (rc < 0) {
    /* Never a failed build because of us: say what broke, compile as is. */
    char *zMsg = ks_strdup(ks_error_msg());
    ks_plugin_apply_clear(pOut);
    set_note(pOut, 1, "%s: store lookup failed (%s); compiling the original", zPath, zMsg ? zMsg : "");
    free(zMsg);
    rc = KS_OK;
  }
  ks_store_entries_free(apPath, nPath);
  ks_store_entry_free(pHit);
  ks_store_close(pStore);
  free(zSrc);
  free(zDir);
  return rc;
}

/* ---- profile ---- */

void ks_plugin_profile(const char *zPhase) {
  static int bOn = -1;
  static double rLast;
  if (bOn < 0) {
    const char *z = getenv("KS_PLUGIN_PROFILE");
    bOn = z && *z && strcmp(z, "0") != 0;
  }
  if (!bOn) return;
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  double r = (double)t.tv_sec + (double)t.tv_nsec / 1e9;
  fprintf(stderr, "kernelskill profile: %-14s %7.3f s cpu\n", zPhase, r - rLast);
  rLast = r;
}

/* ---- features and report ---- */

static int parse_pass(const ks_plugin_compile *pC, const ks_plugin_pass *pP, ks_tu **ppTu) {
  int rc = pass_check(pP);
  if (rc < 0) return rc;
  if (pP->pSharedTu || pP->zAstFile) {
    /* The compile's own AST: borrowed in this process, or deserialized; not
     * parsed again. */
    ks_tu_load_opts lo = KS_TU_LOAD_OPTS_INIT;
    lo.bDeviceSide = pP->bDevice;
    lo.zContents = pP->zContents;
    lo.nContents = pP->nContents;
    lo.nErrors = pP->nErrors;
    lo.aTop = pP->aTop;
    lo.nTop = pP->nTop;
    lo.aTopTemplate = pP->aTopTemplate;
    if (pP->pSharedTu) {
      rc = ks_tu_adopt(pP->zMainFile, pP->pSharedTu, &lo, ppTu);
      ks_plugin_profile("ast-adopt");
    } else {
      rc = ks_tu_load_ast(pP->zMainFile, pP->zAstFile, &lo, ppTu);
      ks_plugin_profile("ast-load");
    }
    return rc;
  }
  ks_parse_opts po = KS_PARSE_OPTS_INIT;
  char *zArch = NULL;
  po.azExtraArgs = pP->azArgs;
  po.nExtraArgs = pP->nArgs;
  po.bDeviceSide = pP->bDevice;
  po.zResourceDir = pP->zResourceDir;
  po.zContents = pP->zContents;
  po.nContents = pP->nContents;
  if (pC && pC->zCudaPath) po.zCudaPath = pC->zCudaPath;
  if (pP->bDevice && pP->zArch) zArch = ks_store_arch_name(pP->zArch);
  else if (pC && pC->nArchs > 0) zArch = ks_strdup(pC->azArchs[0]);
  po.zGpuArch = zArch;
  rc = ks_tu_parse(pP->zMainFile, &po, ppTu);
  free(zArch);
  ks_plugin_profile("reparse");
  return rc;
}

int ks_plugin_features(const ks_plugin_compile *pC, const ks_plugin_pass *pP, ks_buf *pOut) {
  ks_tu *pTu = NULL;
  int rc = parse_pass(pC, pP, &pTu);
  if (rc < 0) return rc;
  ks_features_opts fo = KS_FEATURES_OPTS_INIT;
  rc = ks_features_json(pTu, &fo, pOut);
  ks_plugin_profile("features");
  ks_tu_free(pTu);
  ks_plugin_profile("tu-free");
  return rc;
}

static double num_field(const cJSON *p, const char *zName) {
  const cJSON *q = cJSON_GetObjectItemCaseSensitive(p, zName);
  return cJSON_IsNumber(q) ? q->valuedouble : 0;
}

static int bool_field(const cJSON *p, const char *zName) {
  return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, zName));
}

int ks_plugin_guess(const char *zSummary, size_t nSummary, char **pzOut) {
  cJSON *p = cJSON_ParseWithLength(zSummary, nSummary);
  ks_buf b = KS_BUF_INIT;
  *pzOut = NULL;
  if (!cJSON_IsObject(p)) {
    cJSON_Delete(p);
    return ks_error_set(KS_EPARSE, "kernel summary is not a JSON object");
  }
  double rLoads = num_field(p, "global_loads"), rStores = num_field(p, "global_stores");
  double rMem = rLoads + rStores, rTrans = num_field(p, "transcendentals");
  double rStrided = num_field(p, "strided_accesses"), rIndirect = num_field(p, "indirect_accesses");
  const cJSON *pStruct = cJSON_GetObjectItemCaseSensitive(p, "structure");
  const char *zStruct = cJSON_IsString(pStruct) ? pStruct->valuestring : "unknown";
  /* The first that applies; the order puts the surest signs first. */
  if (rIndirect > 0)
    ks_buf_printf(&b, "memory latency (%g indirect access%s: gathers the caches cannot predict)", rIndirect,
                  rIndirect == 1 ? "" : "es");
  else if (bool_field(p, "tiled_gemm"))
    ks_buf_puts(&b, "compute (shared-memory tiled GEMM: data reuse is already on chip)");
  else if (bool_field(p, "naive_gemm"))
    ks_buf_puts(&b, "memory (naive GEMM: every product re-reads global memory; tile it for reuse)");
  else if (rStrided > 0)
    ks_buf_printf(&b, "memory bandwidth, uncoalesced (%g strided access%s waste sectors)", rStrided,
                  rStrided == 1 ? "" : "es");
  else if (bool_field(p, "stencil"))
    ks_buf_puts(&b, "memory bandwidth (stencil: neighbour reads reuse data through the caches)");
  else if (!strcmp(zStruct, "reduction"))
    ks_buf_printf(&b, "memory bandwidth (reduction: %g global load%s per element folded into few outputs)", rLoads,
                  rLoads == 1 ? "" : "s");
  else if (rTrans > 0 && rTrans >= rMem)
    ks_buf_printf(&b, "compute (%g transcendental call%s against %g global access%s)", rTrans, rTrans == 1 ? "" : "s",
                  rMem, rMem == 1 ? "" : "es");
  else if (rMem > 0)
    ks_buf_printf(&b, "memory bandwidth (%s: %g global load%s, %g store%s, little arithmetic per byte)", zStruct, rLoads,
                  rLoads == 1 ? "" : "s", rStores, rStores == 1 ? "" : "s");
  else
    ks_buf_puts(&b, "latency (no global memory traffic seen in the kernel's text)");
  ks_buf_puts(&b, "; a guess from static features: measure with `kernelskill bench`");
  cJSON_Delete(p);
  if (!(*pzOut = ks_buf_detach(&b))) return ks_error_set(KS_ENOMEM, "out of memory");
  return KS_OK;
}

void ks_plugin_report_free(ks_plugin_report *p) {
  if (!p) return;
  for (int i = 0; i < p->n; i++) {
    free(p->a[i].zKernel);
    free_strs(p->a[i].azMsg, p->a[i].nMsg);
  }
  free(p->a);
  free(p);
}

/* The advice for one kernel of the features document. */
static int advise_kernel(const ks_skillset *pSet, const char *zDoc, size_t nDoc, const char *zFile, const char *zKernel,
                         int nTop, ks_plugin_advice *pA) {
  char *zSummary = NULL, *zGuess = NULL;
  ks_evidence *pEv = NULL;
  ks_plan *pPlan = NULL;
  ks_buf b = KS_BUF_INIT;
  int rc;
  if ((rc = ks_evidence_pick_features(zDoc, nDoc, zFile, zKernel, &zSummary)) < 0) goto done;
  if ((rc = ks_plugin_guess(zSummary, strlen(zSummary), &zGuess)) < 0) goto done;
  ks_buf_printf(&b, "kernelskill: kernel '%s': bottleneck guess: %s", zKernel, zGuess);
  if ((rc = push_str(&pA->azMsg, &pA->nMsg, ks_buf_cstr(&b))) < 0) goto done;
  if ((rc = ks_evidence_new(&pEv)) < 0) goto done;
  if ((rc = ks_evidence_add_json(pEv, "features", zSummary, strlen(zSummary), zFile, NULL)) < 0) goto done;
  if ((rc = ks_evidence_derive(pEv)) < 0) goto done;
  ks_plan_opts plo = KS_PLAN_OPTS_INIT;
  plo.zKernel = zKernel;
  plo.zSource = zFile;
  if ((rc = ks_plan_run(pSet, pEv, &plo, &pPlan)) < 0) goto done;
  int nShown = 0;
  for (int i = 0; i < pPlan->n && nShown < nTop && rc >= 0; i++) {
    const ks_plan_item *pI = &pPlan->a[i];
    if (pI->eStatus != KS_PLAN_CANDIDATE) continue;
    ks_buf_clear(&b);
    ks_buf_printf(&b, "kernelskill: kernel '%s': consider %s - %s [%s]", zKernel, pI->pSkill->zId,
                  pI->pSkill->zTitle ? pI->pSkill->zTitle : "", pI->zWhy ? pI->zWhy : "");
    rc = push_str(&pA->azMsg, &pA->nMsg, ks_buf_cstr(&b));
    nShown++;
  }
  if (rc >= 0 && nShown == 0 && nTop > 0) {
    ks_buf_clear(&b);
    ks_buf_printf(&b, "kernelskill: kernel '%s': no skill fits on static features alone (profile it: kernelskill bench, "
                      "then kernelskill plan --profile)", zKernel);
    rc = push_str(&pA->azMsg, &pA->nMsg, ks_buf_cstr(&b));
  }
done:
  ks_buf_free(&b);
  ks_plan_free(pPlan);
  ks_evidence_free(pEv);
  free(zSummary);
  free(zGuess);
  return rc;
}

int ks_plugin_report_run(const ks_plugin_compile *pC, const ks_plugin_pass *pP, int nTop, ks_plugin_report **pp) {
  ks_buf doc = KS_BUF_INIT;
  ks_skillset *pSet = NULL;
  cJSON *pDoc = NULL;
  ks_plugin_report *pR = calloc(1, sizeof *pR);
  int rc;
  *pp = NULL;
  if (!pR) return ks_error_set(KS_ENOMEM, "out of memory");
  ks_skills_opts so = KS_SKILLS_OPTS_INIT;
  if ((rc = ks_skills_load(&so, &pSet)) < 0) goto done;
  ks_plugin_profile("skills-load");
  if ((rc = ks_plugin_features(pC, pP, &doc)) < 0) goto done;
  if (!(pDoc = cJSON_ParseWithLength(doc.z, doc.n))) {
    rc = ks_error_set(KS_ERROR, "the features document does not parse");
    goto done;
  }
  const cJSON *pKernels = cJSON_GetObjectItemCaseSensitive(pDoc, "kernels"), *pK;
  int nK = cJSON_GetArraySize(pKernels);
  if (nK > 0 && !(pR->a = calloc((size_t)nK, sizeof *pR->a))) {
    rc = ks_error_set(KS_ENOMEM, "out of memory");
    goto done;
  }
  cJSON_ArrayForEach(pK, pKernels) {
    const cJSON *pName = cJSON_GetObjectItemCaseSensitive(pK, "name");
    if (!cJSON_IsString(pName)) continue;
    ks_plugin_advice *pA = &pR->a[pR->n++];
    pA->iLine = (int)num_field(pK, "line");
    if (!(pA->zKernel = ks_strdup(pName->valuestring))) {
      rc = KS_ENOMEM;
      goto done;
    }
    if ((rc = advise_kernel(pSet, doc.z, doc.n, pP->zMainFile, pName->valuestring, nTop, pA)) < 0) goto done;
  }
  ks_plugin_profile("planner");
done:
  cJSON_Delete(pDoc);
  ks_buf_free(&doc);
  ks_skills_free(pSet);
  if (rc < 0) ks_plugin_report_free(pR);
  else *pp = pR;
  return rc;
}

int ks_plugin_write_out(const char *zPath, const char *z, size_t n) {
  if (strcmp(zPath, "-") == 0) {
    if (fwrite(z, 1, n, stdout) != n || fflush(stdout) != 0) return ks_error_set(KS_EIO, "<stdout>: write failed");
    return KS_OK;
  }
  return ks_file_write_atomic(zPath, z, n);
}
