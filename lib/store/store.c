/* store.c — the verified-rewrite store: locating `.kernelskill/store`,
 * writing entries (original bytes, optimized source, entry.json with
 * provenance and verification record), the fast lookup the nvcc drop-in does
 * on every compile (one stat + reads, no directory scan), stale detection by
 * path, and the integrity checks behind `kernelskill store verify`. */
#define _GNU_SOURCE
#include "kernelskill/store.h"
#include "kernelskill/marks.h"
#include "kernelskill/nvccargs.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char zEntryJson[] = "entry.json";
static const char zOrigFile[] = "original.cu";
static const char zOptFile[] = "optimized.cu";
static const char zEvFile[] = "evidence.json";

void ks_store_hash(const char *z, size_t n, char azOut[17]) { ks_text_hash16(z, n, azOut); }

char *ks_store_arch_name(const char *zArch) {
  const char *p = zArch;
  if (!p) return NULL;
  if (strncmp(p, "sm_", 3) == 0) p += 3;
  else if (strncmp(p, "compute_", 8) == 0) p += 8;
  if (*p < '0' || *p > '9') return NULL;
  const char *q = p;
  while (*q >= '0' && *q <= '9') q++;
  while (*q >= 'a' && *q <= 'z') q++;
  if (*q) return NULL;
  size_t n = strlen(p) + 4;
  char *z = malloc(n);
  if (z) snprintf(z, n, "sm_%s", p);
  return z;
}

/* ---- opening ---- */

static int open_dir(const char *zDir, int bCreate, ks_store **ppStore) {
  struct stat st;
  *ppStore = NULL;
  if (stat(zDir, &st) == 0) {
    if (!S_ISDIR(st.st_mode)) return ks_error_set(KS_EINVAL, "%s: the store is not a folder", zDir);
  } else if (bCreate) {
    int rc = ks_dir_make(zDir);
    if (rc < 0) return rc;
  } else {
    return ks_error_set(KS_ENOTFOUND, "%s: no such store", zDir);
  }
  ks_store *p = calloc(1, sizeof *p);
  if (!p) return ks_error_set(KS_ENOMEM, "out of memory");
  char aReal[PATH_MAX];
  p->zDir = ks_strdup(realpath(zDir, aReal) ? aReal : zDir);
  /* `<root>/.kernelskill/store`: recorded paths are relative to <root>. */
  size_t n = strlen(p->zDir ? p->zDir : "");
  const char *zTail = "/.kernelskill/store";
  if (p->zDir && n > strlen(zTail) && strcmp(p->zDir + n - strlen(zTail), zTail) == 0) {
    p->zRoot = malloc(n - strlen(zTail) + 1);
    if (p->zRoot) {
      memcpy(p->zRoot, p->zDir, n - strlen(zTail));
      p->zRoot[n - strlen(zTail)] = 0;
      if (!p->zRoot[0]) strcpy(p->zRoot, "/");
    }
  }
  if (!p->zDir) {
    ks_store_close(p);
    return KS_ENOMEM;
  }
  *ppStore = p;
  return KS_OK;
}

int ks_store_open_dir(const char *zDir, int bCreate, ks_store **ppStore) { return open_dir(zDir, bCreate, ppStore); }

int ks_store_open(const char *zStartDir, int bCreate, ks_store **ppStore) {
  const char *zEnv = getenv("KS_STORE");
  *ppStore = NULL;
  if (zEnv && zEnv[0]) return open_dir(zEnv, bCreate, ppStore);
  char aDir[PATH_MAX];
  if (!realpath(zStartDir ? zStartDir : ".", aDir)) return ks_error_set(KS_ENOTFOUND, "%s: %s", zStartDir, strerror(errno));
  for (;;) {
    char aCand[PATH_MAX + 32];
    struct stat st;
    snprintf(aCand, sizeof aCand, "%s%s.kernelskill/store", aDir, strcmp(aDir, "/") ? "/" : "");
    if (stat(aCand, &st) == 0 && S_ISDIR(st.st_mode)) return open_dir(aCand, 0, ppStore);
    char *zSlash = strrchr(aDir, '/');
    if (!zSlash || zSlash == aDir) {
      if (strcmp(aDir, "/") == 0) break;
      strcpy(aDir, "/");
      continue;
    }
    *zSlash = 0;
  }
  if (bCreate) {
    char aCand[PATH_MAX + 32];
    snprintf(aCand, sizeof aCand, "%s/.kernelskill/store", zStartDir ? zStartDir : ".");
    return open_dir(aCand, 1, ppStore);
  }
  return ks_error_set(KS_ENOTFOUND, "no .kernelskill/store above %s (and KS_STORE is not set)", zStartDir ? zStartDir : ".");
}

void ks_store_close(ks_store *p) {
  if (!p) return;
  free(p->zDir);
  free(p->zRoot);
  free(p);
}

/* ---- entries ---- */

void ks_store_entry_free(ks_store_entry *p) {
  if (!p) return;
  free(p->zDir);
  free(p->zName);
  free(p->zOrigPath);
  free(p->zOrigHash);
  free(p->zArch);
  free(p->zOptHash);
  free(p->zFlags);
  free(p->zCreated);
  free(p->zJson);
  free(p->zOptSrc);
  free(p);
}

void ks_store_entries_free(ks_store_entry **ap, int n) {
  for (int i = 0; i < n; i++) ks_store_entry_free(ap[i]);
  free(ap);
}

static char *json_str(const cJSON *pObj, const char *zKey) {
  const cJSON *p = cJSON_GetObjectItemCaseSensitive(pObj, zKey);
  return cJSON_IsString(p) ? ks_strdup(p->valuestring) : NULL;
}

int ks_store_entry_read(const char *zDir, ks_store_entry **ppEntry) {
  char *zPath = ks_path_join(zDir, zEntryJson), *zText = NULL;
  size_t nText = 0;
  cJSON *pDoc = NULL;
  ks_store_entry *pE = NULL;
  int rc;
  *ppEntry = NULL;
  if (!zPath) return KS_ENOMEM;
  if ((rc = ks_file_read(zPath, &zText, &nText)) < 0) goto done;
  pDoc = cJSON_ParseWithLength(zText, nText);
  if (!cJSON_IsObject(pDoc)) {
    rc = ks_error_set(KS_EPARSE, "%s: not a JSON object", zPath);
    goto done;
  }
  const cJSON *pFmt = cJSON_GetObjectItemCaseSensitive(pDoc, "ks_store");
  if (!cJSON_IsNumber(pFmt) || pFmt->valueint != KS_STORE_FORMAT) {
    rc = ks_error_set(KS_EINVAL, "%s: not a store entry (\"ks_store\": %d expected)", zPath, KS_STORE_FORMAT);
    goto done;
  }
  if (!(pE = calloc(1, sizeof *pE))) {
    rc = ks_error_set(KS_ENOMEM, "out of memory");
    goto done;
  }
  const cJSON *pOrig = cJSON_GetObjectItemCaseSensitive(pDoc, "original");
  const cJSON *pOpt = cJSON_GetObjectItemCaseSensitive(pDoc, "optimized");
  pE->zOrigPath = json_str(pOrig, "path");
  pE->zOrigHash = json_str(pOrig, "hash");
  pE->zOptHash = json_str(pOpt, "hash");
  pE->zFlags = json_str(pOpt, "flags");
  pE->zArch = json_str(pDoc, "arch");
  pE->zCreated = json_str(pDoc, "created");
  if (!pE->zOrigPath || !pE->zOrigHash || !pE->zOptHash || !pE->zArch) {
    rc = ks_error_set(KS_EINVAL, "%s: missing original.path, original.hash, optimized.hash or arch", zPath);
    goto done;
  }
  const char *zSlash = strrchr(zDir, '/');
  pE->zDir = ks_strdup(zDir);
  pE->zName = ks_strdup(zSlash ? zSlash + 1 : zDir);
  pE->zJson = zText;
  zText = NULL;
  if (!pE->zDir || !pE->zName) rc = KS_ENOMEM;
done:
  if (rc < 0) {
    ks_store_entry_free(pE);
    pE = NULL;
  }
  *ppEntry = pE;
  cJSON_Delete(pDoc);
  free(zText);
  free(zPath);
  return rc;
}

int ks_store_entry_optimized(const ks_store_entry *p, char **pzSrc, size_t *pnSrc) {
  /* The bytes a lookup checked, when it kept them: the same bytes, not a
   * second read of a file that may have changed since. */
  if (p->zOptSrc) {
    char *z = malloc(p->nOptSrc + 1);
    if (!z) return ks_error_set(KS_ENOMEM, "out of memory");
    memcpy(z, p->zOptSrc, p->nOptSrc);
    z[p->nOptSrc] = 0;
    *pzSrc = z;
    if (pnSrc) *pnSrc = p->nOptSrc;
    return KS_OK;
  }
  char *zPath = ks_path_join(p->zDir, zOptFile);
  if (!zPath) return KS_ENOMEM;
  int rc = ks_file_read(zPath, pzSrc, pnSrc);
  free(zPath);
  return rc;
}

static char *entry_name(const char *zBase, const char *zHash, const char *zArch) {
  ks_buf b = KS_BUF_INIT;
  ks_buf_printf(&b, "%s.%s.%s", zBase, zHash, zArch);
  return ks_buf_detach(&b);
}

/* Compare a file's bytes to a buffer. 1 equal, 0 different, <0 error. */
static int file_equals(const char *zPath, const char *z, size_t n) {
  char *zF = NULL;
  size_t nF = 0;
  int rc = ks_file_read(zPath, &zF, &nF);
  if (rc < 0) return rc;
  rc = nF == n && memcmp(zF, z, n) == 0;
  free(zF);
  return rc;
}

int ks_store_lookup(const ks_store *p, const char *zBase, const char *zSrc, size_t nSrc, const char *zArch,
                    ks_store_entry **ppEntry) {
  char azHash[17], *zArchName = ks_store_arch_name(zArch), *zName = NULL, *zDir = NULL, *zFile = NULL;
  char *zOpt = NULL;
  size_t nOpt = 0;
  ks_store_entry *pE = NULL;
  struct stat st;
  int rc = KS_OK;
  *ppEntry = NULL;
  if (!zArchName) return ks_error_set(KS_ENOTFOUND, "'%s' is not a GPU arch", zArch);
  ks_store_hash(zSrc, nSrc, azHash);
  zName = entry_name(zBase, azHash, zArchName);
  zDir = zName ? ks_path_join(p->zDir, zName) : NULL;
  if (!zDir) {
    rc = KS_ENOMEM;
    goto done;
  }
  if (stat(zDir, &st) != 0) {
    rc = KS_ENOTFOUND; /* the common case: stay quiet, no message */
    goto done;
  }
  if ((rc = ks_store_entry_read(zDir, &pE)) < 0) goto done;
  if (strcmp(pE->zOrigHash, azHash) != 0 || strcmp(pE->zArch, zArchName) != 0) {
    rc = ks_error_set(KS_EINVAL, "%s: entry.json records hash %s / %s, its folder name says %s / %s", zDir,
                      pE->zOrigHash, pE->zArch, azHash, zArchName);
    goto done;
  }
  /* The hash is only an index: the bytes decide. */
  if (!(zFile = ks_path_join(zDir, zOrigFile))) {
    rc = KS_ENOMEM;
    goto done;
  }
  if ((rc = file_equals(zFile, zSrc, nSrc)) < 0) goto done;
  if (rc == 0) {
    rc = ks_error_set(KS_EINVAL, "%s: original.cu differs from the source although the hashes match", zDir);
    goto done;
  }
  if ((rc = ks_store_entry_optimized(pE, &zOpt, &nOpt)) < 0) goto done;
  char azOpt[17];
  ks_store_hash(zOpt, nOpt, azOpt);
  if (strcmp(azOpt, pE->zOptHash) != 0) {
    rc = ks_error_set(KS_EINVAL, "%s: optimized.cu has hash %s, entry.json records %s (edited by hand?)", zDir, azOpt,
                      pE->zOptHash);
    goto done;
  }
  /* Keep the bytes checked: they are the bytes compiled. */
  pE->zOptSrc = zOpt;
  pE->nOptSrc = nOpt;
  zOpt = NULL;
  rc = KS_OK;
done:
  if (rc == KS_OK) *ppEntry = pE;
  else ks_store_entry_free(pE);
  free(zArchName);
  free(zName);
  free(zDir);
  free(zFile);
  free(zOpt);
  return rc;
}

char *ks_store_entry_orig_abspath(const ks_store *p, const ks_store_entry *pE) {
  if (pE->zOrigPath[0] == '/' || !p->zRoot) return ks_strdup(pE->zOrigPath);
  return ks_path_join(p->zRoot, pE->zOrigPath);
}

static int cmp_entry(const void *a, const void *b) {
  return strcmp((*(ks_store_entry *const *)a)->zName, (*(ks_store_entry *const *)b)->zName);
}

/* Read entries whose folder name starts with zPrefix (NULL: all). */
static int scan(const ks_store *p, const char *zPrefix, ks_store_entry ***pap, int *pn, int *pnBad) {
  DIR *pDir = opendir(p->zDir);
  ks_store_entry **ap = NULL;
  int n = 0, nBad = 0, rc = KS_OK;
  *pap = NULL;
  *pn = 0;
  if (!pDir) return ks_error_set(KS_EIO, "%s: cannot list: %s", p->zDir, strerror(errno));
  struct dirent *pD;
  while ((pD = readdir(pDir)) != NULL) {
    if (pD->d_name[0] == '.') continue;
    if (zPrefix && strncmp(pD->d_name, zPrefix, strlen(zPrefix)) != 0) continue;
    char *zDir = ks_path_join(p->zDir, pD->d_name);
    struct stat st;
    if (!zDir) {
      rc = KS_ENOMEM;
      break;
    }
    if (stat(zDir, &st) != 0 || !S_ISDIR(st.st_mode)) {
      free(zDir);
      continue;
    }
    ks_store_entry *pE = NULL;
    if (ks_store_entry_read(zDir, &pE) < 0) {
      nBad++;
      ks_error_clear();
      free(zDir);
      continue;
    }
    free(zDir);
    ks_store_entry **apNew = realloc(ap, sizeof(*ap) * (size_t)(n + 1));
    if (!apNew) {
      ks_store_entry_free(pE);
      rc = ks_error_set(KS_ENOMEM, "out of memory");
      break;
    }
    ap = apNew;
    ap[n++] = pE;
  }
  closedir(pDir);
  if (rc < 0) {
    ks_store_entries_free(ap, n);
    return rc;
  }
  if (n > 1) qsort(ap, (size_t)n, sizeof *ap, cmp_entry);
  *pap = ap;
  *pn = n;
  if (pnBad) *pnBad = nBad;
  return KS_OK;
}

int ks_store_list(const ks_store *p, ks_store_entry ***papEntries, int *pnEntries, int *pnBad) {
  return scan(p, NULL, papEntries, pnEntries, pnBad);
}

int ks_store_entries_for_path(const ks_store *p, const char *zPath, ks_store_entry ***papEntries, int *pnEntries) {
  const char *zBase = strrchr(zPath, '/');
  zBase = zBase ? zBase + 1 : zPath;
  char *zPrefix = NULL, aReal[PATH_MAX], aOther[PATH_MAX];
  ks_store_entry **ap = NULL;
  int n = 0, nKeep = 0, rc;
  *papEntries = NULL;
  *pnEntries = 0;
  ks_buf b = KS_BUF_INIT;
  ks_buf_printf(&b, "%s.", zBase);
  zPrefix = ks_buf_detach(&b);
  if (!zPrefix) return KS_ENOMEM;
  rc = scan(p, zPrefix, &ap, &n, NULL);
  free(zPrefix);
  if (rc < 0) return rc;
  const char *zMine = realpath(zPath, aReal) ? aReal : zPath;
  for (int i = 0; i < n; i++) {
    char *zAbs = ks_store_entry_orig_abspath(p, ap[i]);
    const char *zTheirs = zAbs && realpath(zAbs, aOther) ? aOther : zAbs;
    if (zTheirs && strcmp(zTheirs, zMine) == 0) ap[nKeep++] = ap[i];
    else ks_store_entry_free(ap[i]);
    free(zAbs);
  }
  *papEntries = ap;
  *pnEntries = nKeep;
  if (!nKeep) {
    free(ap);
    *papEntries = NULL;
  }
  return KS_OK;
}

int ks_store_find(const ks_store *p, const char *zKey, ks_store_entry **ppEntry) {
  ks_store_entry **ap = NULL;
  int n = 0, iHit = -1, nHits = 0, rc;
  *ppEntry = NULL;
  if ((rc = scan(p, NULL, &ap, &n, NULL)) < 0) return rc;
  /* An entry folder's path (tab-completed) names it by its last part. */
  char aBase[PATH_MAX];
  snprintf(aBase, sizeof aBase, "%s", zKey);
  size_t nBase = strlen(aBase);
  while (nBase > 1 && aBase[nBase - 1] == '/') aBase[--nBase] = 0;
  const char *zLast = strrchr(aBase, '/') ? strrchr(aBase, '/') + 1 : aBase;
  for (int i = 0; i < n; i++)
    if (strcmp(ap[i]->zName, zKey) == 0 || strcmp(ap[i]->zName, zLast) == 0) iHit = i, nHits = 1;
  if (iHit < 0) {
    for (int i = 0; i < n; i++)
      if (strncmp(ap[i]->zName, zKey, strlen(zKey)) == 0 || strcmp(ap[i]->zOrigPath, zKey) == 0) iHit = i, nHits++;
  }
  if (nHits == 1) {
    *ppEntry = ap[iHit];
    ap[iHit] = NULL;
  } else if (nHits == 0) {
    rc = ks_error_set(KS_ENOTFOUND, "%s: no store entry by that name or path (see `kernelskill store ls`)", zKey);
  } else {
    rc = ks_error_set(KS_EINVAL, "%s: %d entries match; give the full entry name", zKey, nHits);
  }
  ks_store_entries_free(ap, n);
  return rc;
}

/* ---- adding ---- */

char *ks_store_source_flags(const char *zSrc, size_t nSrc) {
  return ks_mark_value(zSrc, nSrc, KS_MARK_FLAGS, NULL);
}

/* Skill ids named by provenance marks ("// kernelskill: <skill> ..."): the
 * first word of each, once. */
static void add_skills(cJSON *pArr, const char *zSrc, size_t nSrc) {
  size_t iPos = 0;
  ks_mark m;
  while (ks_mark_next(zSrc, nSrc, KS_MARK_NOTE, &iPos, NULL, &m)) {
    size_t n = 0;
    while (n < m.nValue && m.zValue[n] != ' ' && m.zValue[n] != '\t') n++;
    if (!n) continue;
    char *z = malloc(n + 1);
    if (!z) continue;
    memcpy(z, m.zValue, n);
    z[n] = 0;
    int bSeen = 0;
    cJSON *pI;
    cJSON_ArrayForEach(pI, pArr) if (strcmp(pI->valuestring, z) == 0) bSeen = 1;
    if (!bSeen) cJSON_AddItemToArray(pArr, cJSON_CreateString(z));
    free(z);
  }
}

/* The original's path as recorded: relative to the project root when inside it. */
static char *record_path(const ks_store *p, const char *zOriginal) {
  char aReal[PATH_MAX];
  if (!realpath(zOriginal, aReal)) return ks_strdup(zOriginal);
  if (p->zRoot) {
    size_t n = strlen(p->zRoot);
    if (strcmp(p->zRoot, "/") != 0 && strncmp(aReal, p->zRoot, n) == 0 && aReal[n] == '/') return ks_strdup(aReal + n + 1);
  }
  return ks_strdup(aReal);
}

/* Build the verification record from evidence (and the task's tolerances). */
static int verification(const ks_store *p, const ks_store_add_opts *pO, cJSON *pEntry, char **pzEv, size_t *pnEv) {
  cJSON *pV = cJSON_AddObjectToObject(pEntry, "verification");
  char *zText = NULL;
  size_t nText = 0;
  int rc = KS_OK;
  cJSON *pDoc = NULL, *pTask = NULL;
  char aDate[32];
  time_t t = time(NULL);
  struct tm tmv;
  gmtime_r(&t, &tmv);
  strftime(aDate, sizeof aDate, "%Y-%m-%dT%H:%M:%SZ", &tmv);
  if (!pO->zEvidence) {
    cJSON_AddStringToObject(pV, "status", "unverified: no evidence given");
    cJSON_AddStringToObject(pV, "date", aDate);
    goto task;
  }
  if ((rc = ks_file_read(pO->zEvidence, &zText, &nText)) < 0) goto done;
  pDoc = cJSON_ParseWithLength(zText, nText);
  if (!cJSON_IsObject(pDoc) || !cJSON_GetObjectItemCaseSensitive(pDoc, "ks_evidence")) {
    rc = ks_error_set(KS_EPARSE, "%s: not an evidence document (\"ks_evidence\": 1)", pO->zEvidence);
    goto done;
  }
  const cJSON *pCorr = cJSON_GetObjectItemCaseSensitive(pDoc, "correctness");
  const cJSON *pPassed = cJSON_GetObjectItemCaseSensitive(pCorr, "passed");
  if (!cJSON_IsTrue(pPassed) && !pO->bForce) {
    rc = ks_error_set(KS_EINVAL, "%s: the evidence does not record a correctness pass (correctness.passed); "
                      "a store entry must be verified (--force to record it anyway)", pO->zEvidence);
    goto done;
  }
  cJSON_AddStringToObject(pV, "status", cJSON_IsTrue(pPassed) ? "verified" : "forced: evidence has no pass");
  const char *azKeys[] = {"task", "gpu", "correctness", "timing", "verdict", "tolerance", NULL};
  for (int i = 0; azKeys[i]; i++) {
    const cJSON *pI = cJSON_GetObjectItemCaseSensitive(pDoc, azKeys[i]);
    if (pI) cJSON_AddItemToObject(pV, azKeys[i], cJSON_Duplicate(pI, 1));
  }
  cJSON_AddStringToObject(pV, "evidence", zEvFile);
  char azEvHash[17];
  ks_store_hash(zText, nText, azEvHash);
  cJSON_AddStringToObject(pV, "evidence_hash", azEvHash);
  cJSON_AddStringToObject(pV, "date", aDate);
  *pzEv = zText;
  *pnEv = nText;
  zText = NULL;
task:
  if (pO->zTask) {
    char *zT = NULL;
    size_t nT = 0;
    if ((rc = ks_file_read(pO->zTask, &zT, &nT)) < 0) goto done;
    pTask = cJSON_ParseWithLength(zT, nT);
    free(zT);
    if (!cJSON_IsObject(pTask)) {
      rc = ks_error_set(KS_EPARSE, "%s: not a JSON object", pO->zTask);
      goto done;
    }
    const cJSON *pTol = cJSON_GetObjectItemCaseSensitive(pTask, "tolerance");
    if (pTol && !cJSON_GetObjectItemCaseSensitive(pV, "tolerance"))
      cJSON_AddItemToObject(pV, "tolerance", cJSON_Duplicate(pTol, 1));
    const cJSON *pName = cJSON_GetObjectItemCaseSensitive(pTask, "name");
    if (cJSON_IsString(pName) && !cJSON_GetObjectItemCaseSensitive(pV, "task"))
      cJSON_AddStringToObject(pV, "task", pName->valuestring);
    char *zRec = record_path(p, pO->zTask);
    cJSON_AddStringToObject(pV, "task_file", zRec ? zRec : pO->zTask);
    free(zRec);
  }
done:
  cJSON_Delete(pDoc);
  cJSON_Delete(pTask);
  free(zText);
  return rc;
}

static int write_in(const char *zDir, const char *zFile, const char *z, size_t n) {
  char *zPath = ks_path_join(zDir, zFile);
  if (!zPath) return KS_ENOMEM;
  int rc = ks_file_write_atomic(zPath, z, n);
  free(zPath);
  return rc;
}

static int remove_tree(const char *zDir) {
  DIR *pDir = opendir(zDir);
  if (!pDir) return errno == ENOENT ? KS_OK : ks_error_set(KS_EIO, "%s: %s", zDir, strerror(errno));
  struct dirent *pD;
  int rc = KS_OK;
  while ((pD = readdir(pDir)) != NULL) {
    if (!strcmp(pD->d_name, ".") || !strcmp(pD->d_name, "..")) continue;
    char *z = ks_path_join(zDir, pD->d_name);
    if (!z) {
      rc = KS_ENOMEM;
      break;
    }
    if (unlink(z) != 0) rc = ks_error_set(KS_EIO, "%s: cannot remove: %s", z, strerror(errno));
    free(z);
  }
  closedir(pDir);
  if (rc == KS_OK && rmdir(zDir) != 0) rc = ks_error_set(KS_EIO, "%s: cannot remove: %s", zDir, strerror(errno));
  return rc;
}

int ks_store_remove(const ks_store_entry *p) { return remove_tree(p->zDir); }

int ks_store_add(const ks_store *p, const ks_store_add_opts *pO, ks_store_entry **ppEntry) {
  char *zOrig = NULL, *zOpt = NULL, *zEv = NULL, *zArch = NULL, *zName = NULL, *zDir = NULL, *zTmp = NULL;
  char *zRec = NULL, *zFlags = NULL, *zJson = NULL;
  size_t nOrig = 0, nOpt = 0, nEv = 0;
  char azOrig[17], azOpt[17];
  cJSON *pEntry = NULL;
  int rc = KS_OK;
  struct stat st;
  if (ppEntry) *ppEntry = NULL;
  if (pO->version != KS_STORE_ADD_OPTS_VERSION)
    return ks_error_set(KS_EUSAGE, "ks_store_add_opts: unsupported version %u", pO->version);
  if (!pO->zOriginal || !pO->zOptimized || !pO->zArch)
    return ks_error_set(KS_EUSAGE, "a store entry needs the original, the optimized source and the arch");
  size_t nOrigName = strlen(pO->zOriginal);
  if (nOrigName < 4 || strcmp(pO->zOriginal + nOrigName - 3, ".cu") != 0)
    return ks_error_set(KS_EINVAL, "%s: the original must be a .cu file (the drop-in substitutes .cu inputs)",
                        pO->zOriginal);
  if (!(zArch = ks_store_arch_name(pO->zArch)))
    return ks_error_set(KS_EINVAL, "'%s' is not a GPU arch (sm_90, compute_90 or 90)", pO->zArch);
  if ((rc = ks_file_read(pO->zOriginal, &zOrig, &nOrig)) < 0) goto done;
  if ((rc = ks_file_read(pO->zOptimized, &zOpt, &nOpt)) < 0) goto done;
  if (nOrig == nOpt && memcmp(zOrig, zOpt, nOrig) == 0) {
    rc = ks_error_set(KS_EINVAL, "%s and %s are identical: nothing to store", pO->zOriginal, pO->zOptimized);
    goto done;
  }
  ks_store_hash(zOrig, nOrig, azOrig);
  ks_store_hash(zOpt, nOpt, azOpt);
  const char *zBase = strrchr(pO->zOriginal, '/');
  zBase = zBase ? zBase + 1 : pO->zOriginal;
  zName = entry_name(zBase, azOrig, zArch);
  zDir = zName ? ks_path_join(p->zDir, zName) : NULL;
  zRec = record_path(p, pO->zOriginal);
  if (!zDir || !zRec) {
    rc = KS_ENOMEM;
    goto done;
  }
  if (stat(zDir, &st) == 0 && !pO->bForce) {
    rc = ks_error_set(KS_EINVAL, "%s: an entry for these bytes and %s exists (--force to replace it)", zDir, zArch);
    goto done;
  }
  pEntry = cJSON_CreateObject();
  cJSON_AddNumberToObject(pEntry, "ks_store", KS_STORE_FORMAT);
  cJSON *pOrigJ = cJSON_AddObjectToObject(pEntry, "original");
  cJSON_AddStringToObject(pOrigJ, "path", zRec);
  cJSON_AddStringToObject(pOrigJ, "hash", azOrig);
  cJSON_AddNumberToObject(pOrigJ, "bytes", (double)nOrig);
  cJSON_AddStringToObject(pOrigJ, "file", zOrigFile);
  cJSON_AddStringToObject(pEntry, "arch", zArch);
  cJSON *pOptJ = cJSON_AddObjectToObject(pEntry, "optimized");
  cJSON_AddStringToObject(pOptJ, "file", zOptFile);
  cJSON_AddStringToObject(pOptJ, "hash", azOpt);
  cJSON_AddNumberToObject(pOptJ, "bytes", (double)nOpt);
  if ((zFlags = ks_store_source_flags(zOpt, nOpt)) != NULL) {
    /* The drop-in passes these to nvcc on every build: the one allowlist
     * (no -ccbin, includes, pre-includes, plugins, outputs), --force or not. */
    ks_buf why = KS_BUF_INIT;
    if (ks_nvcc_flags_check(zFlags, pO->zOptimized, &why) < 0) {
      rc = ks_error_set(KS_EINVAL, "%s", ks_buf_cstr(&why));
      ks_buf_free(&why);
      goto done;
    }
    ks_buf_free(&why);
    cJSON_AddStringToObject(pOptJ, "flags", zFlags);
  }
  cJSON *pProv = cJSON_AddObjectToObject(pEntry, "provenance");
  cJSON_AddStringToObject(pProv, "tool", "kernelskill " KS_VERSION_STRING);
  cJSON_AddStringToObject(pProv, "made_by", pO->zMadeBy ? pO->zMadeBy : "store add");
  /* Paths recorded like the original's: relative to the project root when inside it. */
  char *zFrom = record_path(p, pO->zOptimized), *zRun = pO->zRunDir ? record_path(p, pO->zRunDir) : NULL;
  cJSON_AddStringToObject(pProv, "optimized_from", zFrom ? zFrom : pO->zOptimized);
  if (pO->zRunDir) cJSON_AddStringToObject(pProv, "run", zRun ? zRun : pO->zRunDir);
  free(zFrom);
  free(zRun);
  cJSON *pSkills = cJSON_AddArrayToObject(pProv, "skills");
  add_skills(pSkills, zOpt, nOpt);
  if ((rc = verification(p, pO, pEntry, &zEv, &nEv)) < 0) goto done;
  char aDate[32];
  time_t t = time(NULL);
  struct tm tmv;
  gmtime_r(&t, &tmv);
  strftime(aDate, sizeof aDate, "%Y-%m-%dT%H:%M:%SZ", &tmv);
  cJSON_AddStringToObject(pEntry, "created", aDate);
  if (!(zJson = cJSON_Print(pEntry))) {
    rc = ks_error_set(KS_ENOMEM, "out of memory");
    goto done;
  }
  /* Write into a hidden folder, then rename: readers never see half an entry. */
  ks_buf b = KS_BUF_INIT;
  ks_buf_printf(&b, "%s/.tmp-%s-%ld", p->zDir, zName, (long)getpid());
  zTmp = ks_buf_detach(&b);
  if (!zTmp) {
    rc = KS_ENOMEM;
    goto done;
  }
  remove_tree(zTmp);
  if ((rc = ks_dir_make(zTmp)) < 0) goto done;
  size_t nJson = strlen(zJson);
  if ((rc = write_in(zTmp, zOrigFile, zOrig, nOrig)) < 0 || (rc = write_in(zTmp, zOptFile, zOpt, nOpt)) < 0 ||
      (zEv && (rc = write_in(zTmp, zEvFile, zEv, nEv)) < 0) || (rc = write_in(zTmp, "entry.json.part", zJson, nJson)) < 0)
    goto done;
  {
    char *zA = ks_path_join(zTmp, "entry.json.part"), *zB = ks_path_join(zTmp, zEntryJson);
    int bOk = zA && zB && rename(zA, zB) == 0;
    free(zA);
    free(zB);
    if (!bOk) {
      rc = ks_error_set(KS_EIO, "%s: cannot finish the entry: %s", zTmp, strerror(errno));
      goto done;
    }
  }
  if (stat(zDir, &st) == 0 && (rc = remove_tree(zDir)) < 0) goto done;
  if (rename(zTmp, zDir) != 0) {
    rc = ks_error_set(KS_EIO, "%s: cannot create: %s", zDir, strerror(errno));
    goto done;
  }
  if (ppEntry) rc = ks_store_entry_read(zDir, ppEntry);
done:
  if (rc < 0 && zTmp) remove_tree(zTmp);
  cJSON_Delete(pEntry);
  free(zJson);
  free(zOrig);
  free(zOpt);
  free(zEv);
  free(zArch);
  free(zName);
  free(zDir);
  free(zTmp);
  free(zRec);
  free(zFlags);
  return rc;
}

/* ---- optimize run folders ---- */

void ks_store_run_free(char **azOwned) {
  if (!azOwned) return;
  for (int i = 0; azOwned[i]; i++) free(azOwned[i]);
  free(azOwned);
}

int ks_store_read_run(const char *zRun, ks_store_add_opts *pO, char ***pazOwned) {
  char *zFile = NULL, *zText = NULL, *zBase = NULL;
  char **az = calloc(8, sizeof(char *));
  size_t nText = 0;
  int rc = KS_OK, n = 0;
  cJSON *pDoc = NULL;
  *pazOwned = NULL;
  if (pO->version != KS_STORE_ADD_OPTS_VERSION) {
    free(az);
    return ks_error_set(KS_EUSAGE, "ks_store_add_opts: unsupported version %u", pO->version);
  }
  if (!az) return ks_error_set(KS_ENOMEM, "out of memory");
  zFile = ks_dir_exists(zRun) ? ks_path_join(zRun, "result.json") : ks_strdup(zRun);
  if (!zFile) {
    rc = KS_ENOMEM;
    goto done;
  }
  if ((rc = ks_file_read(zFile, &zText, &nText)) < 0) goto done;
  pDoc = cJSON_ParseWithLength(zText, nText);
  const cJSON *pFmt = cJSON_GetObjectItemCaseSensitive(pDoc, "ks_result");
  if (!cJSON_IsObject(pDoc) || !cJSON_IsNumber(pFmt)) {
    rc = ks_error_set(KS_EPARSE, "%s: not an optimize result (\"ks_result\": 1)", zFile);
    goto done;
  }
  zBase = ks_path_dirname(zFile);
  const char *azKeys[] = {"original", "optimized", "arch", "evidence", "task", NULL};
  const char **apDst[] = {&pO->zOriginal, &pO->zOptimized, &pO->zArch, &pO->zEvidence, &pO->zTask};
  for (int i = 0; azKeys[i]; i++) {
    const cJSON *pI = cJSON_GetObjectItemCaseSensitive(pDoc, azKeys[i]);
    if (!pI) continue;
    if (!cJSON_IsString(pI)) {
      rc = ks_error_set(KS_EINVAL, "%s: \"%s\" should be a string", zFile, azKeys[i]);
      goto done;
    }
    /* Paths are relative to the run folder; the arch is not a path. */
    char *z = i == 2 ? ks_strdup(pI->valuestring) : ks_path_join(zBase, pI->valuestring);
    if (!z) {
      rc = KS_ENOMEM;
      goto done;
    }
    az[n++] = z;
    *apDst[i] = z;
  }
  if (!pO->zOriginal || !pO->zOptimized || !pO->zArch) {
    rc = ks_error_set(KS_EINVAL, "%s: needs \"original\", \"optimized\" and \"arch\"", zFile);
    goto done;
  }
  az[n++] = zBase;
  zBase = NULL;
  pO->zRunDir = az[n - 1];
  pO->zMadeBy = "optimize --commit";
done:
  if (rc < 0) {
    ks_store_run_free(az);
    az = NULL;
  }
  *pazOwned = az;
  cJSON_Delete(pDoc);
  free(zText);
  free(zFile);
  free(zBase);
  return rc;
}

/* ---- verify ---- */

int ks_store_verify(const ks_store *p, const ks_store_entry *pE, ks_buf *pOut, int *pnProblems, int *pbStale) {
  char *zPath = NULL, *zText = NULL, *zAbs = NULL;
  size_t nText = 0;
  char azH[17];
  int nBad = 0;
  *pbStale = 0;
  /* original.cu: the key's bytes. */
  zPath = ks_path_join(pE->zDir, zOrigFile);
  if (!zPath) return KS_ENOMEM;
  if (ks_file_read(zPath, &zText, &nText) < 0) {
    ks_buf_printf(pOut, "problem: %s: %s\n", pE->zName, ks_error_msg());
    nBad++;
  } else {
    ks_store_hash(zText, nText, azH);
    if (strcmp(azH, pE->zOrigHash) != 0) {
      ks_buf_printf(pOut, "problem: %s: original.cu hashes to %s, entry.json records %s\n", pE->zName, azH,
                    pE->zOrigHash);
      nBad++;
    }
  }
  free(zPath);
  free(zText);
  zText = NULL;
  /* optimized.cu */
  if (ks_store_entry_optimized(pE, &zText, &nText) < 0) {
    ks_buf_printf(pOut, "problem: %s: %s\n", pE->zName, ks_error_msg());
    nBad++;
  } else {
    ks_store_hash(zText, nText, azH);
    if (strcmp(azH, pE->zOptHash) != 0) {
      ks_buf_printf(pOut, "problem: %s: optimized.cu hashes to %s, entry.json records %s (edited by hand?)\n",
                    pE->zName, azH, pE->zOptHash);
      nBad++;
    }
  }
  free(zText);
  zText = NULL;
  /* the folder name is the key */
  const char *zBase = strrchr(pE->zOrigPath, '/');
  zBase = zBase ? zBase + 1 : pE->zOrigPath;
  char *zWant = entry_name(zBase, pE->zOrigHash, pE->zArch);
  if (zWant && strcmp(zWant, pE->zName) != 0) {
    ks_buf_printf(pOut, "problem: %s: folder name should be %s\n", pE->zName, zWant);
    nBad++;
  }
  free(zWant);
  /* the project's file: fresh, stale or gone */
  zAbs = ks_store_entry_orig_abspath(p, pE);
  if (zAbs && ks_file_read(zAbs, &zText, &nText) == 0) {
    ks_store_hash(zText, nText, azH);
    if (strcmp(azH, pE->zOrigHash) == 0) {
      ks_buf_printf(pOut, "ok: %s: %s is unchanged; %s verified version applies\n", pE->zName, pE->zOrigPath,
                    pE->zArch);
    } else {
      *pbStale = 1;
      ks_buf_printf(pOut,
                    "stale: %s: %s changed since it was optimized (hash %s, entry has %s); "
                    "re-run `kernelskill optimize --commit` on it, or `kernelskill store rm %s`\n",
                    pE->zName, pE->zOrigPath, azH, pE->zOrigHash, pE->zName);
    }
  } else {
    ks_error_clear();
    *pbStale = 1;
    ks_buf_printf(pOut, "stale: %s: %s no longer exists\n", pE->zName, pE->zOrigPath);
  }
  free(zText);
  free(zAbs);
  *pnProblems = nBad;
  return KS_OK;
}

/* ---- the drop-in's decision ---- */

/* Does the evidence's GPU ("cc": "9.0") match the entry's arch ("sm_90",
 * "sm_90a")? No cc recorded: the evidence says nothing against it. */
static int cc_matches(const cJSON *pEv, const char *zArch) {
  const cJSON *pCc = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(pEv, "gpu"), "cc");
  if (!pCc) return 1;
  if (!cJSON_IsString(pCc)) return 0;
  int iMaj = 0, iMin = 0;
  char c = 0;
  if (sscanf(pCc->valuestring, "%d.%d%c", &iMaj, &iMin, &c) != 2 || iMaj < 0 || iMin < 0 || iMin > 9) return 0;
  char aWant[32];
  snprintf(aWant, sizeof aWant, "sm_%d%d", iMaj, iMin);
  size_t n = strlen(aWant);
  return strncmp(zArch, aWant, n) == 0 && (zArch[n] == 0 || ((zArch[n] == 'a' || zArch[n] == 'f') && !zArch[n + 1]));
}

int ks_store_select(const ks_store *p, const char *zBase, const char *zSrc, size_t nSrc, const char *zArch,
                    ks_store_entry **ppEntry) {
  ks_store_entry *pE = NULL;
  cJSON *pDoc = NULL, *pEv = NULL;
  char *zEvPath = NULL, *zEv = NULL, *zFlags = NULL;
  size_t nEv = 0;
  *ppEntry = NULL;
  /* Found, original.cu equal to the bytes, optimized.cu as recorded (and its
   * bytes kept in the entry: the drop-in compiles those, read once). */
  int rc = ks_store_lookup(p, zBase, zSrc, nSrc, zArch, &pE);
  if (rc < 0) return rc;
#define REFUSE(...)                                                                                                   \
  do {                                                                                                                \
    rc = ks_error_set(KS_EPRECOND, __VA_ARGS__);                                                                      \
    goto done;                                                                                                        \
  } while (0)
  pDoc = cJSON_Parse(pE->zJson);
  const cJSON *pV = cJSON_GetObjectItemCaseSensitive(pDoc, "verification");
  const cJSON *pStatus = cJSON_GetObjectItemCaseSensitive(pV, "status");
  const cJSON *pEvHash = cJSON_GetObjectItemCaseSensitive(pV, "evidence_hash");
  if (!cJSON_IsString(pStatus) || strcmp(pStatus->valuestring, "verified") != 0)
    REFUSE("store entry %s is not verified (%s): only entries with evidence of a correctness pass are compiled; "
           "add it again with --evidence", pE->zName, cJSON_IsString(pStatus) ? pStatus->valuestring : "no status");
  if (!cJSON_IsString(pEvHash))
    REFUSE("store entry %s records no evidence hash: add it again with --evidence", pE->zName);
  /* The evidence itself: present, the bytes recorded, a pass, this GPU arch. */
  if (!(zEvPath = ks_path_join(pE->zDir, zEvFile))) {
    rc = KS_ENOMEM;
    goto done;
  }
  if (ks_file_read(zEvPath, &zEv, &nEv) < 0) REFUSE("store entry %s: its evidence: %s", pE->zName, ks_error_msg());
  char azH[17];
  ks_store_hash(zEv, nEv, azH);
  if (strcmp(azH, pEvHash->valuestring) != 0)
    REFUSE("store entry %s: evidence.json hashes to %s, entry.json records %s (edited?)", pE->zName, azH,
           pEvHash->valuestring);
  pEv = cJSON_ParseWithLength(zEv, nEv);
  const cJSON *pPassed = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(pEv, "correctness"), "passed");
  if (!cJSON_IsObject(pEv) || !cJSON_GetObjectItemCaseSensitive(pEv, "ks_evidence") || !cJSON_IsTrue(pPassed))
    REFUSE("store entry %s: evidence.json records no correctness pass", pE->zName);
  if (!cc_matches(pEv, pE->zArch))
    REFUSE("store entry %s is for %s but its evidence was measured on another GPU (cc %s)", pE->zName, pE->zArch,
           cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(pEv, "gpu"), "cc")));
  /* The flags compiled are the checked bytes' line, as recorded, on the allowlist. */
  zFlags = ks_store_source_flags(pE->zOptSrc, pE->nOptSrc);
  if ((zFlags == NULL) != (pE->zFlags == NULL) || (zFlags && strcmp(zFlags, pE->zFlags) != 0))
    REFUSE("store entry %s: optimized.cu's kernelskill-flags line differs from the one entry.json records", pE->zName);
  if (zFlags) {
    ks_buf why = KS_BUF_INIT;
    if (ks_nvcc_flags_check(zFlags, pE->zName, &why) < 0) {
      rc = ks_error_set(KS_EPRECOND, "store entry refused: %s", ks_buf_cstr(&why));
      ks_buf_free(&why);
      goto done;
    }
    ks_buf_free(&why);
  }
#undef REFUSE
  *ppEntry = pE;
  pE = NULL;
  rc = KS_OK;
done:
  ks_store_entry_free(pE);
  cJSON_Delete(pDoc);
  cJSON_Delete(pEv);
  free(zEvPath);
  free(zEv);
  free(zFlags);
  return rc;
}
