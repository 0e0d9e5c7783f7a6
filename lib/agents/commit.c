/* commit.c — the commit policy (kernelskill/commit.h), shared by
 * `kernelskill optimize --commit` and the drop-in's KS_MODE=optimize: after a
 * run, the verified best goes to RUN/result.json and into the
 * verified-rewrite store only when the closing review (best against the seed,
 * on this GPU) records it correct and faster beyond the noise, and the
 * source still has the bytes the run optimized. */
#define _GNU_SOURCE /* realpath */
#include "kernelskill/commit.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernelskill/journal.h"
#include "kernelskill/store.h"

void ks_commit_result_free(ks_commit_result *p) {
  free(p->zStored);
  free(p->zEntry);
  free(p->zArch);
  free(p->zWhy);
}

static int refuse(ks_commit_result *pC, int ec, const char *zFmt, ...) __attribute__((format(printf, 3, 4)));
static int refuse(ks_commit_result *pC, int ec, const char *zFmt, ...) {
  va_list ap;
  va_start(ap, zFmt);
  pC->zWhy = ks_vmprintf(zFmt, ap);
  va_end(ap);
  pC->ec = ec;
  return pC->zWhy ? KS_OK : ks_error_set(KS_ENOMEM, "out of memory");
}

/* zTo relative to the folder zFromDir (both resolved), or zTo resolved when
 * they share nothing but the root, or zTo itself when it does not resolve. */
static char *rel_path(const char *zFromDir, const char *zTo) {
  char aFrom[PATH_MAX], aTo[PATH_MAX];
  if (!realpath(zFromDir, aFrom) || !realpath(zTo, aTo)) return ks_strdup(zTo);
  size_t n = 0, iCommon;
  while (aFrom[n] && aFrom[n] == aTo[n]) n++;
  if (!aFrom[n] && aTo[n] == '/') {
    iCommon = n; /* zTo is inside zFromDir */
  } else {
    iCommon = n; /* back to the last folder both share */
    while (iCommon > 0 && aFrom[iCommon] != '/') iCommon--;
  }
  if (iCommon == 0) return ks_strdup(aTo);
  ks_buf b = KS_BUF_INIT;
  for (const char *p = aFrom + iCommon; *p; p++)
    if (*p == '/') ks_buf_puts(&b, "../");
  ks_buf_puts(&b, aTo + iCommon + 1);
  return ks_buf_detach(&b);
}

/* The store the commit writes to: --store DIR; else $KS_STORE or the nearest
 * .kernelskill/store above the source (where kernelskill-nvcc looks), then
 * above the current folder; else ./.kernelskill/store, created. */
static int commit_store(const char *zStore, const char *zSource, ks_store **pp) {
  if (zStore) return ks_store_open_dir(zStore, 1, pp);
  char *zDir = ks_path_dirname(zSource);
  if (!zDir) return ks_error_set(KS_ENOMEM, "out of memory");
  int rc = ks_store_open(zDir, 0, pp);
  free(zDir);
  if (rc == KS_ENOTFOUND) {
    ks_error_clear();
    rc = ks_store_open(".", 1, pp);
  }
  return rc;
}

/* Is zFile inside the folder zRoot? */
static int is_under(const char *zRoot, const char *zFile) {
  char aFile[PATH_MAX];
  size_t n = zRoot ? strlen(zRoot) : 0;
  if (!zRoot || !realpath(zFile, aFile)) return 0;
  return strcmp(zRoot, "/") == 0 || (strncmp(aFile, zRoot, n) == 0 && aFile[n] == '/');
}

/* After a run: store the verified best when the closing review found it
 * correct and faster than the seed; otherwise say why nothing is stored.
 * Errors (< 0) are only what stops the command (memory, I/O, the store). */
int ks_commit_run(const ks_task *pTask, const ks_loop_result *pRes, const char *zOut, const char *zStore,
                  ks_commit_result *pC) {
  char *zEvPath = NULL, *zEvText = NULL, *zSrc = NULL, *zRel = NULL, *zResult = NULL, *zJson = NULL;
  char **azOwned = NULL;
  size_t nEv = 0, nSrc = 0;
  cJSON *pEv = NULL, *pOut = NULL;
  ks_store *pS = NULL;
  ks_store_entry *pOld = NULL, *pNew = NULL;
  ks_buf b = KS_BUF_INIT;
  int rc = KS_OK;
  memset(pC, 0, sizeof *pC);
  if (pRes->eStatus == KS_LOOP_SEED_FAILED) {
    rc = refuse(pC, KS_EXIT_INPUT, "the seed fails its review");
    goto done;
  }
  if (!pRes->bFinalPassed) {
    rc = refuse(pC, KS_EXIT_INPUT, "the best version failed its closing review");
    goto done;
  }
  if (!pRes->azBestHash[0] || strcmp(pRes->azBestHash, pRes->azSeedHash) == 0) {
    rc = refuse(pC, KS_EXIT_OK, "no version faster than the seed was found (%s)", pRes->zStop ? pRes->zStop : "");
    goto done;
  }
  /* The closing review (best against the seed, on this GPU) is the verification record. */
  ks_buf_printf(&b, "%s/evidence/final-%s.json", zOut, pRes->azBestHash);
  if (!(zEvPath = ks_buf_detach(&b))) {
    rc = ks_error_set(KS_ENOMEM, "out of memory");
    goto done;
  }
  if (ks_file_read(zEvPath, &zEvText, &nEv) < 0) {
    ks_error_clear();
    rc = refuse(pC, KS_EXIT_INPUT, "%s: the closing review's evidence is missing (a run finished before the commit "
                                   "existed?); run the task again",
                zEvPath);
    goto done;
  }
  pEv = cJSON_ParseWithLength(zEvText, nEv);
  const cJSON *pVerdict = cJSON_GetObjectItemCaseSensitive(pEv, "verdict");
  const cJSON *pArch = cJSON_GetObjectItemCaseSensitive(pEv, "arch");
  const cJSON *pPassed =
      cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(pEv, "correctness"), "passed");
  const cJSON *pSpeed = cJSON_GetObjectItemCaseSensitive(pEv, "speedup");
  pC->rSpeedup = cJSON_IsNumber(pSpeed) ? pSpeed->valuedouble : pRes->rSpeedup;
  if (!cJSON_IsObject(pEv) || !cJSON_GetObjectItemCaseSensitive(pEv, "ks_evidence")) {
    rc = refuse(pC, KS_EXIT_INPUT, "%s: not an evidence document (\"ks_evidence\": 1)", zEvPath);
    goto done;
  }
  if (!cJSON_IsTrue(pPassed)) {
    rc = refuse(pC, KS_EXIT_INPUT, "%s: the closing review records no correctness pass", zEvPath);
    goto done;
  }
  if (!cJSON_IsString(pVerdict) || strcmp(pVerdict->valuestring, "accepted") != 0) {
    rc = refuse(pC, KS_EXIT_OK,
                "the closing review measured no gain beyond the noise against the seed (verdict %s, %.3fx)",
                cJSON_IsString(pVerdict) ? pVerdict->valuestring : "?", pC->rSpeedup);
    goto done;
  }
  if (!cJSON_IsString(pArch) || !(pC->zArch = ks_store_arch_name(pArch->valuestring))) {
    rc = refuse(pC, KS_EXIT_INPUT, "%s: the closing review records no GPU arch", zEvPath);
    goto done;
  }
  /* The entry is keyed by the source's bytes now: they must be the ones optimized. */
  char azNow[17];
  if ((rc = ks_file_read(pTask->zSource, &zSrc, &nSrc)) < 0) goto done;
  ks_journal_hash(zSrc, nSrc, "", azNow);
  if (strcmp(azNow, pRes->azSeedHash) != 0) {
    rc = refuse(pC, KS_EXIT_INPUT, "%s changed since the run started (hash %s, the run optimized %s)",
                pTask->zSource, azNow, pRes->azSeedHash);
    goto done;
  }
  /* RUN/result.json, the contract of `kernelskill store add RUN_DIR`. */
  pOut = cJSON_CreateObject();
  cJSON_AddNumberToObject(pOut, "ks_result", 1);
  zRel = rel_path(zOut, pTask->zSource);
  cJSON_AddStringToObject(pOut, "original", zRel ? zRel : pTask->zSource);
  free(zRel);
  zRel = rel_path(zOut, pRes->zBestPath);
  cJSON_AddStringToObject(pOut, "optimized", zRel ? zRel : pRes->zBestPath);
  free(zRel);
  cJSON_AddStringToObject(pOut, "arch", pC->zArch);
  zRel = rel_path(zOut, zEvPath);
  cJSON_AddStringToObject(pOut, "evidence", zRel ? zRel : zEvPath);
  free(zRel);
  zRel = rel_path(zOut, pTask->zPath);
  cJSON_AddStringToObject(pOut, "task", zRel ? zRel : pTask->zPath);
  free(zRel);
  cJSON_AddNumberToObject(pOut, "speedup", pC->rSpeedup);
  ks_buf_printf(&b, "%s/result.json", zOut);
  if (!(zResult = ks_buf_detach(&b)) || !(zJson = cJSON_Print(pOut))) {
    rc = ks_error_set(KS_ENOMEM, "out of memory");
    goto done;
  }
  if ((rc = ks_file_write_atomic(zResult, zJson, strlen(zJson))) < 0) goto done;
  /* ... then exactly what `store add RUN_DIR` does. */
  ks_store_add_opts o = KS_STORE_ADD_OPTS_INIT;
  if ((rc = ks_store_read_run(zOut, &o, &azOwned)) < 0) goto done;
  if ((rc = commit_store(zStore, pTask->zSource, &pS)) < 0) goto done;
  const char *zBase = strrchr(pTask->zSource, '/');
  zBase = zBase ? zBase + 1 : pTask->zSource;
  int r = ks_store_lookup(pS, zBase, zSrc, nSrc, pC->zArch, &pOld);
  if (r != KS_ENOTFOUND) {
    /* An entry for these bytes and arch (or a damaged one): this run's verified result replaces it. */
    o.bForce = 1;
    fprintf(stderr, "kernelskill: replacing the store's entry for %s, %s (%s)\n", pTask->zSource, pC->zArch,
            r == KS_OK ? pOld->zCreated : "damaged");
  }
  ks_error_clear();
  if ((rc = ks_store_add(pS, &o, &pNew)) < 0) {
    if (rc == KS_EINVAL || rc == KS_EPARSE) rc = refuse(pC, KS_EXIT_INPUT, "the store refused it: %s", ks_error_msg());
    goto done;
  }
  pC->zStored = ks_strdup(pNew->zDir);
  pC->zEntry = ks_strdup(pNew->zName);
  if (!pC->zStored || !pC->zEntry) rc = ks_error_set(KS_ENOMEM, "out of memory");
  if (rc == KS_OK && !getenv("KS_STORE") && !is_under(pS->zRoot, pTask->zSource))
    fprintf(stderr,
            "kernelskill: note: %s is not under the store's project (%s): kernelskill-nvcc looks for the store "
            "walking up from the source's folder; point it there with KS_STORE=%s\n",
            pTask->zSource, pS->zRoot ? pS->zRoot : pS->zDir, pS->zDir);
done:
  ks_buf_free(&b);
  cJSON_Delete(pEv);
  cJSON_Delete(pOut);
  free(zEvPath);
  free(zEvText);
  free(zSrc);
  free(zResult);
  free(zJson);
  ks_store_run_free(azOwned);
  ks_store_entry_free(pOld);
  ks_store_entry_free(pNew);
  ks_store_close(pS);
  return rc;
}

/* The loop's JSON result with what the commit did added. */
int ks_commit_result_json(const char *zJson, const ks_commit_result *pC, ks_buf *pOut) {
  cJSON *pDoc = cJSON_Parse(zJson);
  if (!pDoc) return ks_error_set(KS_ERROR, "the result JSON does not parse");
  cJSON *pCommit = cJSON_AddObjectToObject(pDoc, "commit");
  cJSON_AddBoolToObject(pCommit, "stored", pC->zStored != NULL);
  if (pC->zStored) {
    cJSON_AddStringToObject(pCommit, "entry", pC->zEntry);
    cJSON_AddStringToObject(pCommit, "path", pC->zStored);
    cJSON_AddStringToObject(pCommit, "arch", pC->zArch);
    cJSON_AddNumberToObject(pCommit, "speedup", pC->rSpeedup);
  } else {
    cJSON_AddStringToObject(pCommit, "why", pC->zWhy ? pC->zWhy : "");
  }
  int rc = ks_buf_json(pOut, pDoc);
  cJSON_Delete(pDoc);
  return rc;
}

