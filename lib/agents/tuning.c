/* tuning.c — the tuning memory of the agent loop: sweep winners kept across
 * runs as "tuned" records (the journal's JSON Lines, lib/journal), keyed by
 * rule, swept parameter, GPU, shape class and launch size, and given as the
 * first guess of a later sweep with the same key (docs/optimize.md, "Tuning
 * memory"). The file is untrusted input: a malformed one is a warning and a
 * value the sweep table does not list is never used. */
#include "agents/loop_int.h"

char *ks_tuning_key(const char *zRule, const char *zParam, const char *zEvidence, const char *zKernel,
                    const char *zShapeClass) {
  if (!zRule || !zParam || !zEvidence || !zKernel) return NULL;
  cJSON *pEv = cJSON_Parse(zEvidence), *pProf = ev_profile(zEvidence, zKernel);
  const cJSON *pName = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(pEv, "gpu"), "name");
  double rGrid = json_num(pProf, "grid_size", -1), rBlock = json_num(pProf, "block_size", -1);
  char *z = NULL;
  /* threads in powers of two: a naive GEMM's M*N separates 1024^2 from 4096^2 */
  if (cJSON_IsString(pName) && pName->valuestring[0] && rGrid > 0 && rBlock > 0)
    z = fmt("%s|%s|%s|%s|threads~2^%ld", zRule, zParam, pName->valuestring,
            zShapeClass && zShapeClass[0] ? zShapeClass : "other", lround(log2(rGrid * rBlock)));
  cJSON_Delete(pEv);
  cJSON_Delete(pProf);
  return z;
}

/* Is zValue one the sweep of zRule (with the skill's parameters) may take? */
static int sweep_allows(const char *zRule, const char *const *az, int n, const char *zValue) {
  const char *azVal[KS_SWEEP_MAX_VALUES], *zParam = NULL;
  sweep_values(zRule, az, n, zValue, azVal, &zParam);
  return zParam && azVal[0] && !strcmp(azVal[0], zValue);
}

int ks_tuning_lookup(const char *zPath, const char *zKey, const char *zRule, const char *const *azSkillParams,
                     int nSkillParams, char **pzValue, char **pzFrom, ks_buf *pWarn) {
  ks_journal *pJ = NULL;
  *pzValue = *pzFrom = NULL;
  if (!zPath || !zKey || !zRule) return KS_OK;
  int rc = ks_journal_read(zPath, &pJ);
  if (rc == KS_ENOMEM) return rc;
  if (rc < 0) {
    ks_buf_printf(pWarn, "%s (the tuning memory is not used)\n", ks_error_msg());
    ks_error_clear();
    return KS_OK;
  }
  rc = KS_OK;
  for (int i = pJ->n - 1; i >= 0 && !*pzValue && rc == KS_OK; i--) {
    const ks_journal_entry *e = &pJ->a[i];
    if (strcmp(e->zEvent, "tuned") != 0 || !e->zRule || strcmp(e->zRule, zRule) != 0) continue;
    char *zK = ks_journal_entry_string(e, "key"), *zV = ks_journal_entry_string(e, "value");
    if (zK && !strcmp(zK, zKey)) {
      if (zV && sweep_allows(zRule, azSkillParams, nSkillParams, zV)) {
        *pzValue = zV;
        zV = NULL;
        if (!(*pzFrom = fmt("%s:%d", zPath, e->iLine))) rc = ks_error_set(KS_ENOMEM, "out of memory");
      } else {
        ks_buf_printf(pWarn, "%s:%d: tuned value '%s' is not one the sweep of rule %s takes: ignored\n", zPath,
                      e->iLine, zV ? zV : "(none)", zRule);
      }
    }
    free(zK);
    free(zV);
  }
  ks_journal_free(pJ);
  return rc;
}

int ks_tuning_record(const char *zPath, const ks_tuning_rec *p) {
  int rc = KS_OK;
  char *z = NULL;
  if (!zPath || !p || !p->zKey || !p->zRule || !p->zParam || !p->zValue)
    return ks_error_set(KS_EINVAL, "a tuned record needs a path, key, rule, param and value");
  cJSON *pRec = cJSON_CreateObject();
  if (!pRec) return ks_error_set(KS_ENOMEM, "out of memory");
  cJSON_AddNumberToObject(pRec, "ks_journal", KS_JOURNAL_FORMAT);
  cJSON_AddStringToObject(pRec, "event", "tuned");
  cJSON_AddStringToObject(pRec, "rule", p->zRule);
  cJSON_AddStringToObject(pRec, "param", p->zParam);
  cJSON_AddStringToObject(pRec, "value", p->zValue);
  cJSON_AddStringToObject(pRec, "key", p->zKey);
  if (p->zTask) cJSON_AddStringToObject(pRec, "task", p->zTask);
  if (p->zGpu) cJSON_AddStringToObject(pRec, "gpu", p->zGpu);
  if (p->bHasSpeedup) cJSON_AddNumberToObject(pRec, "speedup", p->rSpeedup);
  if (!(z = cJSON_PrintUnformatted(pRec))) {
    rc = ks_error_set(KS_ENOMEM, "out of memory");
    goto done;
  }
  /* the folder that holds it, created when missing (.kernelskill/) */
  char *zDir = ks_path_dirname(zPath);
  rc = zDir ? ks_dir_make(zDir) : ks_error_set(KS_ENOMEM, "out of memory");
  free(zDir);
  if (rc >= 0) rc = ks_journal_append(zPath, z);
done:
  free(z);
  cJSON_Delete(pRec);
  return rc;
}

/* ---- the loop's side ------------------------------------------------------- */

static char *json_str(const cJSON *p, const char *zKey) {
  const cJSON *q = cJSON_GetObjectItemCaseSensitive(p, zKey);
  return cJSON_IsString(q) ? ks_strdup(q->valuestring) : NULL;
}

static void tune_clear(round_plan *r) {
  free(r->zTuneKey);
  free(r->zFirst);
  free(r->zFirstFrom);
  r->zTuneKey = r->zFirst = r->zFirstFrom = NULL;
  r->zTuneParam = NULL;
}

/* A resumed round: the key and first guess its plan record kept, so it plans
 * the sweep it planned before whatever the file holds now. */
static int tune_resumed(loop *L, const ks_skill *pSkill, round_plan *r) {
  cJSON *p = L->zResumeTuning ? cJSON_Parse(L->zResumeTuning) : NULL;
  const char *azVal[KS_SWEEP_MAX_VALUES];
  sweep_values(pSkill->zRule, (const char *const *)pSkill->azParams, pSkill->nParams, NULL, azVal,
                  &r->zTuneParam);
  r->zTuneKey = json_str(p, "key");
  r->zFirst = json_str(p, "first");
  r->zFirstFrom = json_str(p, "from");
  cJSON_Delete(p);
  return KS_OK;
}

int tune_first(loop *L, const ks_skill *pSkill, const char *zKernel, const char *zFeatures, round_plan *r) {
  tune_clear(r);
  if (!pSkill->zRule) return KS_OK;
  if (r->bResumed) return tune_resumed(L, pSkill, r); /* even with the memory off now: the sweep it planned */
  if (!L->o.zTuning) return KS_OK;
  const char *azVal[KS_SWEEP_MAX_VALUES];
  const char *const *az = (const char *const *)pSkill->azParams;
  sweep_values(pSkill->zRule, az, pSkill->nParams, NULL, azVal, &r->zTuneParam);
  if (!r->zTuneParam) return KS_OK;
  cJSON *pF = zFeatures ? cJSON_Parse(zFeatures) : NULL;
  const cJSON *pShape = cJSON_GetObjectItemCaseSensitive(pF, "shape_class");
  r->zTuneKey = ks_tuning_key(pSkill->zRule, r->zTuneParam, L->zBestEv, zKernel,
                              cJSON_IsString(pShape) ? pShape->valuestring : NULL);
  cJSON_Delete(pF);
  ks_buf warn = KS_BUF_INIT;
  int rc = ks_tuning_lookup(L->o.zTuning, r->zTuneKey, pSkill->zRule, az, pSkill->nParams, &r->zFirst,
                            &r->zFirstFrom, &warn);
  if (warn.n && !L->bTuneWarned) {
    L->bTuneWarned = 1; /* once a run: the file does not change under it */
    say(L, "warning: %.*s", (int)warn.n - 1, warn.z);
  }
  ks_buf_free(&warn);
  return rc;
}

void tune_plan_json(const round_plan *r, cJSON *pRec) {
  if (!r->zTuneKey) return;
  cJSON *p = cJSON_AddObjectToObject(pRec, "tuning");
  cJSON_AddStringToObject(p, "key", r->zTuneKey);
  cJSON_AddStringToObject(p, "param", r->zTuneParam ? r->zTuneParam : "");
  if (r->zFirst) cJSON_AddStringToObject(p, "first", r->zFirst);
  if (r->zFirstFrom) cJSON_AddStringToObject(p, "from", r->zFirstFrom);
}

void tune_record(loop *L, const round_plan *r, const outcome *aOut, int iWin) {
  const cand *c = &r->aCand[iWin];
  if (!L->o.zTuning || !r->zTuneKey || !r->zTuneParam || !c->zSweepValue) return;
  /* the winner over the sweep's first value, when both were timed */
  const cand *c0 = &r->aCand[0];
  ks_tuning_rec t = {.zKey = r->zTuneKey, .zRule = r->pSkill->zRule, .zParam = r->zTuneParam,
                     .zValue = c->zSweepValue, .zTask = L->pTask->zName};
  t.bHasSpeedup = c0->iSweep == 0 && aOut[0].rUs > 0 && aOut[iWin].rUs > 0;
  t.rSpeedup = t.bHasSpeedup ? aOut[0].rUs / aOut[iWin].rUs : 0;
  cJSON *pEv = L->zBestEv ? cJSON_Parse(L->zBestEv) : NULL;
  const cJSON *pName = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(pEv, "gpu"), "name");
  t.zGpu = cJSON_IsString(pName) ? pName->valuestring : NULL;
  if (ks_tuning_record(L->o.zTuning, &t) < 0) say(L, "warning: tuning memory %s: %s", L->o.zTuning, ks_error_msg());
  else say(L, "tuning memory: %s=%s recorded for %s", r->zTuneParam, c->zSweepValue, r->zTuneKey);
  ks_error_clear();
  cJSON_Delete(pEv);
}
