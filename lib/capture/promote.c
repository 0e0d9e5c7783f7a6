/* promote.c — `kernelskill capture --promote TASK_DIR`: a captured task's
 * source is the program's file plus a generated replay entry, so the store
 * entry `optimize --commit` made for it is keyed on that copy. Promoting
 * strips the capture's additions from the verified version and stores it
 * again keyed on the program's own file, where kernelskill-nvcc finds it. */
#include "kernelskill/capture.h"
#include "kernelskill/store.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ks_capture_promote(const ks_capture_promote_opts *o, ks_buf *pReport) {
  if (!o || o->version != KS_CAPTURE_PROMOTE_OPTS_VERSION)
    return ks_error_set(KS_EUSAGE, "ks_capture_promote: options version mismatch");
  char *zSide = ks_path_join(o->zTaskDir, "capture.json"), *zText = NULL, *zCopy = NULL, *zCopyPath = NULL;
  char *zTaskPath = NULL, *zOrigDir = NULL, *zStripped = NULL, *zOptPath = NULL, *zOpt = NULL, *zEv = NULL;
  cJSON *pSide = NULL;
  ks_store *pFrom = NULL, *pTo = NULL;
  ks_store_entry **apE = NULL;
  int nE = 0, nDone = 0, rc;
  size_t nText = 0, nCopy = 0;
  if (!zSide) return ks_error_set(KS_ENOMEM, "out of memory");
  if (!ks_file_exists(zSide)) {
    rc = ks_error_set(KS_ENOTFOUND, "%s: not a captured task folder (no capture.json)", o->zTaskDir);
    goto done;
  }
  if ((rc = ks_file_read(zSide, &zText, &nText)) < 0) goto done;
  pSide = cJSON_ParseWithLength(zText, nText);
  const char *zOrig = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(pSide, "source"));
  const char *zTaskSrc = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(pSide, "task_source"));
  const char *zTask = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(pSide, "task"));
  if (!zOrig || !zTaskSrc || !zTask || strchr(zTaskSrc, '/') || strchr(zTask, '/')) {
    rc = ks_error_set(KS_EINVAL, "%s: needs \"source\", \"task_source\" and \"task\" (file names in the folder)", zSide);
    goto done;
  }
  if (!ks_file_exists(zOrig)) {
    rc = ks_error_set(KS_ENOTFOUND, "%s: the program's source %s is gone", zSide, zOrig);
    goto done;
  }
  zCopyPath = ks_path_join(o->zTaskDir, zTaskSrc);
  zTaskPath = ks_path_join(o->zTaskDir, zTask);
  zOrigDir = ks_path_dirname(zOrig);
  if (!zCopyPath || !zTaskPath || !zOrigDir) {
    rc = ks_error_set(KS_ENOMEM, "out of memory");
    goto done;
  }
  if ((rc = ks_file_read(zCopyPath, &zCopy, &nCopy)) < 0) goto done;
  char zHash[17];
  ks_store_hash(zCopy, nCopy, zHash);

  /* The entry optimize --commit made: in the store above the task, else above the cwd. */
  rc = o->zFromStore ? ks_store_open_dir(o->zFromStore, 0, &pFrom) : ks_store_open(o->zTaskDir, 0, &pFrom);
  if (rc == KS_ENOTFOUND && !o->zFromStore) rc = ks_store_open(".", 0, &pFrom);
  if (rc < 0) goto done;
  if ((rc = ks_store_entries_for_path(pFrom, zCopyPath, &apE, &nE)) < 0) goto done;
  rc = o->zStore ? ks_store_open_dir(o->zStore, 1, &pTo) : ks_store_open(zOrigDir, 1, &pTo);
  if (rc < 0) goto done;
  for (int i = 0; i < nE; i++) {
    const ks_store_entry *e = apE[i];
    if (strcmp(e->zOrigHash, zHash)) continue; /* an entry for an older capture of this task */
    size_t nOpt = 0;
    free(zOpt);
    zOpt = NULL;
    if ((rc = ks_store_entry_optimized(e, &zOpt, &nOpt)) < 0) goto done;
    free(zStripped);
    zStripped = NULL;
    if ((rc = ks_capture_strip_source(zOpt, zOrigDir, &zStripped)) < 0) {
      rc = ks_error_set(rc, "%s/optimized.cu: %s", e->zDir, ks_error_msg());
      goto done;
    }
    free(zOptPath);
    zOptPath = ks_mprintf("%s/promoted.%s.cu", o->zTaskDir, e->zArch);
    if (!zOptPath) {
      rc = ks_error_set(KS_ENOMEM, "out of memory");
      goto done;
    }
    if ((rc = ks_file_write_atomic(zOptPath, zStripped, strlen(zStripped))) < 0) goto done;
    free(zEv);
    zEv = ks_path_join(e->zDir, "evidence.json");
    ks_store_add_opts ao = KS_STORE_ADD_OPTS_INIT;
    ao.zOriginal = zOrig;
    ao.zOptimized = zOptPath;
    ao.zArch = e->zArch;
    ao.zEvidence = zEv && ks_file_exists(zEv) ? zEv : NULL;
    ao.zTask = zTaskPath;
    ao.zMadeBy = "capture --promote";
    ao.bForce = o->bForce;
    ks_store_entry *pNew = NULL;
    if ((rc = ks_store_add(pTo, &ao, &pNew)) < 0) goto done;
    ks_buf_printf(pReport, "stored %s/%s: %s for %s (from %s)\n", pTo->zDir, pNew->zName, zOrig, e->zArch, e->zName);
    ks_store_entry_free(pNew);
    nDone++;
  }
  if (nDone == 0)
    rc = ks_error_set(KS_ENOTFOUND, "%s: the store %s has no entry for this task's source (run `kernelskill optimize %s "
                      "--commit` first)", o->zTaskDir, pFrom->zDir, zTaskPath);
done:
  ks_store_entries_free(apE, nE);
  ks_store_close(pFrom);
  ks_store_close(pTo);
  cJSON_Delete(pSide);
  free(zSide);
  free(zText);
  free(zCopy);
  free(zCopyPath);
  free(zTaskPath);
  free(zOrigDir);
  free(zStripped);
  free(zOptPath);
  free(zOpt);
  free(zEv);
  return rc;
}
