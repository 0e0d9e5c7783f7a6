/* loop_dry.c — the dry run of the agent loop (ks_loop_dry_run): the static plan
 * and the rewrites the first round would try, no GPU needed. */
#include "agents/loop_int.h"

/* ---- dry run -------------------------------------------------------------- */

int ks_loop_dry_run(const ks_task *pTask, const ks_loop_opts *pOpts, int bJson, ks_buf *pOut) {
  if (pOpts && pOpts->version != KS_LOOP_OPTS_VERSION)
    return ks_error_set(KS_EUSAGE, "ks_loop_opts: unsupported version %u", pOpts->version);
  loop L;
  int rc = KS_OK;
  round_plan r;
  memset(&L, 0, sizeof L);
  memset(&r, 0, sizeof r);
  L.pTask = pTask;
  L.o = *pOpts;
  if (L.o.nSweep <= 0) L.o.nSweep = 3;
  if ((rc = ks_file_read(pTask->zSource, &L.zBestSrc, &L.nBestSrc)) < 0) goto done;
  ks_journal_hash(L.zBestSrc, L.nBestSrc, "", L.azSeed);
  memcpy(L.azBest, L.azSeed, 17);
  if ((rc = load_skills_and_seed(&L)) < 0) goto done;
  if ((rc = plan_round(&L, 1, NULL, NULL, 1, &r)) < 0) goto done;
  cJSON *pO = NULL, *pArr = NULL;
  if (bJson) {
    pO = cJSON_CreateObject();
    cJSON_AddNumberToObject(pO, "ks_optimize_dry_run", 1);
    cJSON_AddStringToObject(pO, "task", pTask->zName);
    cJSON_AddStringToObject(pO, "source", pTask->zSource);
    cJSON_AddStringToObject(pO, "seed_hash", L.azSeed);
    cJSON_AddStringToObject(pO, "plan", r.zPlanText ? r.zPlanText : "");
    cJSON *pRef = cJSON_AddArrayToObject(pO, "refused");
    for (int i = 0; i < r.nRef; i++) {
      cJSON *pI = cJSON_CreateObject();
      cJSON_AddStringToObject(pI, "skill", r.aRef[i].pSkill->zId);
      cJSON_AddStringToObject(pI, "why", r.aRef[i].zWhy);
      cJSON_AddItemToArray(pRef, pI);
    }
    if (r.pSkill) {
      cJSON_AddStringToObject(pO, "skill", r.pSkill->zId);
      cJSON_AddStringToObject(pO, "rule", r.pSkill->zRule);
      cJSON_AddStringToObject(pO, "kernel", r.zKernel);
    }
    pArr = cJSON_AddArrayToObject(pO, "candidates");
  } else {
    ks_buf_printf(pOut, "kernelskill optimize --dry-run: task %s, seed %s (%s)\n", pTask->zName, pTask->zSource,
                  L.azSeed);
    ks_buf_puts(pOut, "No profile: the plan rests on static features; on a GPU, round 0 measures the seed first\n"
                      "and later rounds plan from its profile, so they may choose differently.\n\n");
    ks_buf_puts(pOut, r.zPlanText ? r.zPlanText : "");
    ks_buf_puts(pOut, "\n");
    for (int i = 0; i < r.nRef; i++)
      ks_buf_printf(pOut, "skipped %s: %s\n", r.aRef[i].pSkill->zId, r.aRef[i].zWhy);
    if (!r.pSkill) ks_buf_puts(pOut, "round 1 would try nothing: no skill applies\n");
    else
      ks_buf_printf(pOut, "round 1 would try %s on %s (rule %s), %d candidate%s:\n", r.pSkill->zId, r.zKernel,
                    r.pSkill->zRule, r.nCand, r.nCand == 1 ? "" : "s");
  }
  for (int i = 0; i < r.nCand; i++) {
    ks_buf d = KS_BUF_INIT, pt = KS_BUF_INIT;
    params_text(r.aCand[i].azParams, r.aCand[i].nParams, &pt);
    /* The first candidate against the seed; the other sweep points against
     * the first (they differ only where the parameter shows). */
    const char *zFrom = i ? r.aCand[0].zSrc : L.zBestSrc;
    size_t nFrom = i ? r.aCand[0].nSrc : L.nBestSrc;
    if ((rc = ks_rewrite_diff(pTask->zSource, zFrom, nFrom, r.aCand[i].zSrc, r.aCand[i].nSrc, &d)) < 0) {
      ks_buf_free(&d);
      ks_buf_free(&pt);
      cJSON_Delete(pO);
      goto done;
    }
    if (bJson) {
      cJSON *pC = cJSON_CreateObject();
      cJSON_AddItemToObject(pC, "params", params_json(r.aCand[i].azParams, r.aCand[i].nParams));
      cJSON_AddStringToObject(pC, "hash", r.aCand[i].azHash);
      cJSON_AddStringToObject(pC, i ? "diff_from_first" : "diff", ks_buf_cstr(&d));
      cJSON_AddItemToArray(pArr, pC);
    } else {
      ks_buf_printf(pOut, "\n== candidate %d/%d: %s [%s] (hash %s)%s\n", i + 1, r.nCand, r.pSkill->zId,
                    pt.n ? ks_buf_cstr(&pt) : "default parameters", r.aCand[i].azHash,
                    i ? ": the change from candidate 1" : "");
      ks_buf_puts(pOut, ks_buf_cstr(&d));
    }
    ks_buf_free(&d);
    ks_buf_free(&pt);
  }
  if (bJson) {
    rc = ks_buf_json(pOut, pO);
    cJSON_Delete(pO);
    if (rc < 0) goto done;
  }
done:
  round_plan_free(&r);
  free(L.zBestSrc);
  ks_skills_free(L.pSet);
  ks_tu_free(L.pTu);
  return rc;
}
