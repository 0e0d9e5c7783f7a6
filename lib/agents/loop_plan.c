/* loop_plan.c — planning one round of the agent loop: the kernels in order, the
 * skills the planner ranks for each, their rewrites and sweeps as candidates. */
#include "agents/loop_int.h"

/* ---- planning one round --------------------------------------------------- */


void round_plan_free(round_plan *r) {
  for (int i = 0; i < r->nCand; i++) {
    for (int k = 0; k < r->aCand[i].nParams; k++) free(r->aCand[i].azParams[k]);
    free(r->aCand[i].azParams);
    free(r->aCand[i].zSrc);
    free(r->aCand[i].zModel);
    free(r->aCand[i].zReply);
    free(r->aCand[i].zUnparsed);
  }
  for (int i = 0; i < r->nKernels; i++) free(r->azKernels[i]);
  free(r->azKernels);
  free(r->zEvidence);
  free(r->aCand);
  for (int i = 0; i < r->nRef; i++) free(r->aRef[i].zWhy);
  free(r->aRef);
  free(r->zKernel);
  free(r->zClass);
  free(r->zPlanText);
  free(r->zTuneKey);
  free(r->zFirst);
  free(r->zFirstFrom);
  cJSON_Delete(r->pRanked);
  memset(r, 0, sizeof *r);
}

static int add_refusal(round_plan *r, const ks_skill *pSkill, const char *zWhy) {
  refusal *a = realloc(r->aRef, sizeof *a * (size_t)(r->nRef + 1));
  if (!a) return ks_error_set(KS_ENOMEM, "out of memory");
  r->aRef = a;
  a[r->nRef].pSkill = pSkill;
  a[r->nRef].zWhy = ks_strdup(zWhy ? zWhy : "");
  r->nRef++;
  return KS_OK;
}

/* Is zHash the best or one of its ancestors (following accepted decisions)? */
int is_ancestor(loop *L, const char *zHash) {
  if (!strcmp(zHash, L->azBest) || !strcmp(zHash, L->azSeed)) return 1;
  for (int i = 0; L->pJ && i < L->pJ->n; i++) {
    const ks_journal_entry *e = &L->pJ->a[i];
    if (strcmp(e->zEvent, "decision") || !e->zParent) continue;
    if (!strcmp(e->zParent, zHash)) return 1;
  }
  return 0;
}

/* Try one skill: its rule over the sweep, the tuning memory's first guess
 * first (zFeatures: the kernel's features summary, for its key). Adds
 * candidates (new hashes) to r, or returns the reason there are none in
 * *pzWhy (malloc'd). */
static int try_skill(loop *L, const ks_skill *pSkill, const char *zKernel, const char *zFeatures, int iRound,
                     round_plan *r, char **pzWhy) {
  int rc = KS_OK;
  char ***azSets = NULL;
  int *anParams = NULL, nSets = 0;
  *pzWhy = NULL;
  if ((rc = tune_first(L, pSkill, zKernel, zFeatures, r)) < 0) return rc; /* cleared for a skill without a sweep */
  if (!pSkill->zRule) {
    long nBudget = L->o.pLlm ? ks_llm_token_budget(L->o.pLlm) : 0;
    if (!L->o.pLlm)
      *pzWhy = fmt("guidance only (no rewrite rule): the LLM Optimizer would need --llm URL");
    else if (nBudget > 0 && ks_llm_tokens_used(L->o.pLlm) >= nBudget)
      *pzWhy = fmt("guidance only, and the LLM token budget is spent (%ld of %ld)", ks_llm_tokens_used(L->o.pLlm),
                   nBudget);
    else
      r->bLlm = 1;
    return KS_OK;
  }
  if (!ks_rule_find(pSkill->zRule)) {
    *pzWhy = fmt("rewrite rule '%s' is not in this build", pSkill->zRule);
    return KS_OK;
  }
  ks_sweep_opts so = KS_SWEEP_OPTS_INIT;
  so.zFirst = r->zFirst;
  const char *const *azOwn = (const char *const *)pSkill->azParams;
  const char *azVal[KS_SWEEP_MAX_VALUES];
  sweep_values(pSkill->zRule, azOwn, pSkill->nParams, so.zFirst, azVal, NULL); /* the sets' values, in order */
  rc = ks_loop_sweep_ex(pSkill->zRule, azOwn, pSkill->nParams, L->o.nSweep, &so, &azSets, &anParams, &nSets);
  if (rc < 0) return rc;
  ks_buf why = KS_BUF_INIT;
  int nSeen = 0;
  for (int s = 0; s < nSets; s++) {
    ks_rewrite_opts ro = KS_REWRITE_OPTS_INIT;
    ro.zKernel = zKernel;
    ro.zRule = pSkill->zRule;
    ro.azParams = (const char *const *)azSets[s];
    ro.nParams = anParams[s];
    ro.zSkill = pSkill->zId;
    ro.iRound = iRound;
    char *zNew = NULL;
    size_t nNew = 0;
    ks_error_clear();
    int k = ks_rewrite_apply(L->pTu, &ro, &zNew, &nNew);
    if (k == KS_ENOMEM) {
      rc = k;
      break;
    }
    if (k < 0) {
      if (!why.n) ks_buf_puts(&why, ks_error_msg()[0] ? ks_error_msg() : ks_error_name(k));
      ks_error_clear();
      continue;
    }
    char azHash[17];
    ks_journal_hash(zNew, nNew, "", azHash);
    int bDup = 0;
    for (int i = 0; i < r->nCand; i++)
      if (!strcmp(r->aCand[i].azHash, azHash)) bDup = 1;
    int iRec = ks_journal_find(L->pJ, "candidate", -1, azHash);
    if (iRec >= 0 && strcmp(L->pJ->a[iRec].zVerdict, "refused") != 0) {
      /* Evaluated before: reuse only the record of this very round (resume). */
      const ks_journal_entry *e = &L->pJ->a[iRec];
      if (e->iRound != iRound || strcmp(e->zParent, L->azBest) != 0) bDup = 1, r->nSkipped++;
    } else {
      iRec = -1;
    }
    if (!bDup && is_ancestor(L, azHash)) bDup = 1, r->nSkipped++;
    nSeen++;
    if (bDup) {
      free(zNew);
      continue;
    }
    cand *a = realloc(r->aCand, sizeof *a * (size_t)(r->nCand + 1));
    if (!a) {
      free(zNew);
      rc = ks_error_set(KS_ENOMEM, "out of memory");
      break;
    }
    r->aCand = a;
    cand *c = &a[r->nCand++];
    memset(c, 0, sizeof *c);
    memcpy(c->azHash, azHash, 17);
    c->zSrc = zNew;
    c->nSrc = nNew;
    c->iRecorded = iRec;
    c->zSweepValue = azVal[s];
    c->iSweep = s;
    c->azParams = azSets[s];
    c->nParams = anParams[s];
    azSets[s] = NULL;
    anParams[s] = 0;
  }
  if (rc == KS_OK && r->nCand == 0)
    *pzWhy = why.n ? ks_buf_detach(&why)
                   : fmt(nSeen ? "every version it produces was evaluated before" : "no candidate produced");
  ks_buf_free(&why);
  ks_loop_sweep_free(azSets, anParams, nSets);
  return rc;
}

/* Kernels of the features document that the task runs, the slowest (by the
 * best's profile) first. The profile names the kernels that ran; without one
 * (a dry run, a failed review), the ones the entry uses in the source
 * (ks_features_entry_kernels). A file's other kernels are never planned:
 * rewriting a kernel the entry does not launch cannot make the task faster.
 * When neither tells (no entry here, names that match no kernel), all. */
static int kernel_order(loop *L, const char *zFeatures, const char *zEv, char ***pazNames, int *pn) {
  cJSON *pDoc = cJSON_Parse(zFeatures), *pK, *pI;
  int n = 0, nRan = 0, nUsed = 0, rc;
  char **azUsed = NULL;
  pK = cJSON_GetObjectItemCaseSensitive(pDoc, "kernels");
  char **az = calloc((size_t)cJSON_GetArraySize(pK) + 1, sizeof(char *));
  double *ar = calloc((size_t)cJSON_GetArraySize(pK) + 1, sizeof(double));
  if (!az || !ar) {
    rc = ks_error_set(KS_ENOMEM, "out of memory");
    goto done;
  }
  int nShipRan = 0;
  cJSON_ArrayForEach(pI, pK) {
    cJSON *pName = cJSON_GetObjectItemCaseSensitive(pI, "name");
    if (!cJSON_IsString(pName)) continue;
    cJSON *pProf = ev_profile(zEv, pName->valuestring);
    double r = json_num(pProf, "duration_us", -1);
    cJSON_Delete(pProf);
    /* a shipped template's kernel (an accepted rewrite copied it in) is ours, already tuned */
    if (ks_features_kernel_shipped(L->pTu, pName->valuestring)) {
      nShipRan += r >= 0;
      continue;
    }
    int i = n;
    while (i > 0 && ar[i - 1] < r) {
      az[i] = az[i - 1];
      ar[i] = ar[i - 1];
      i--;
    }
    az[i] = ks_strdup(pName->valuestring);
    ar[i] = r;
    n++;
    nRan += r >= 0;
  }
  /* Only shipped kernels ran: the time is in KernelSkill's own code (the
   * user's kernel is a fallback that did not run): nothing to plan. */
  if (!nRan && nShipRan) {
    for (int i = 0; i < n; i++) free(az[i]), az[i] = NULL;
    n = 0;
  }
  /* The source's answer only when the profile has none (a walk of the TU). */
  if (!nRan && !nShipRan && L->pTask->zEntry &&
      (rc = ks_features_entry_kernels(L->pTu, L->pTask->zEntry, &azUsed, &nUsed)) < 0)
    goto done;
  /* Keep the measured ones (sorted first), else those the entry uses; all
   * when that would keep none (the entry launches only a header's kernel). */
  int nKeep = 0;
  for (int pass = 0; pass < 2 && nKeep == 0; pass++) {
    for (int i = 0; i < n; i++) {
      int bKeep = 1;
      if (pass == 0 && nRan) bKeep = ar[i] >= 0;
      else if (pass == 0 && nUsed) {
        bKeep = 0;
        for (int k = 0; k < nUsed && !bKeep; k++) bKeep = !strcmp(azUsed[k], az[i]);
      }
      if (bKeep) {
        char *z = az[i]; /* nKeep <= i: a stable compaction */
        az[i] = NULL;
        az[nKeep++] = z;
      }
    }
    if (nKeep == 0) continue;
    for (int i = nKeep; i < n; i++) free(az[i]), az[i] = NULL;
  }
  *pazNames = az;
  *pn = nKeep;
  az = NULL;
  rc = KS_OK;
done:
  for (int i = 0; az && i < n; i++) free(az[i]); /* an error after the names were copied */
  free(az);
  free(ar);
  for (int i = 0; i < nUsed; i++) free(azUsed[i]);
  free(azUsed);
  cJSON_Delete(pDoc);
  return rc;
}

/* Choose this round's skill and produce its candidates. zForceSkill (a
 * resumed round) takes that skill on that kernel without re-planning. With
 * bDry, the journal is not consulted. r->pSkill NULL: nothing left. */
int plan_round(loop *L, int iRound, const char *zForceSkill, const char *zForceKernel, int bDry,
                      round_plan *r) {
  int rc = KS_OK;
  ks_buf feat = KS_BUF_INIT;
  char **azKernels = NULL;
  int nKernels = 0;
  memset(r, 0, sizeof *r);
  if ((rc = ks_tu_reparse(L->pTu, L->zBestSrc, L->nBestSrc)) < 0) goto done;
  if (ks_tu_error_count(L->pTu) > 0) {
    ks_buf d = KS_BUF_INIT;
    ks_tu_diagnostics(L->pTu, &d);
    rc = ks_error_set(KS_EPARSE, "the current best does not parse:\n%s", ks_buf_cstr(&d));
    ks_buf_free(&d);
    goto done;
  }
  ks_features_opts fo = KS_FEATURES_OPTS_INIT;
  if ((rc = ks_features_json(L->pTu, &fo, &feat)) < 0) goto done;
  if ((rc = kernel_order(L, ks_buf_cstr(&feat), L->zBestEv, &azKernels, &nKernels)) < 0) goto done;

  if (zForceSkill) {
    const ks_skill *pSkill = ks_skills_find(L->pSet, zForceSkill);
    if (!pSkill) {
      rc = ks_error_set(KS_EINVAL, "%s: round %d planned skill '%s', which is not in the corpus", L->zJournal, iRound,
                        zForceSkill);
      goto done;
    }
    char *zWhy = NULL;
    r->bResumed = 1;
    if ((rc = try_skill(L, pSkill, zForceKernel, NULL, iRound, r, &zWhy)) < 0) goto done;
    r->zKernel = ks_strdup(zForceKernel);
    if (r->nCand || r->bLlm) r->pSkill = pSkill;
    else rc = add_refusal(r, pSkill, zWhy);
    free(zWhy);
    goto done;
  }

  for (int iK = 0; iK < nKernels && !r->pSkill; iK++) {
    const char *zKernel = azKernels[iK];
    ks_evidence *pEv = NULL;
    ks_plan *pPlan = NULL;
    char *zSummary = NULL, *zProf = NULL;
    if ((rc = ks_evidence_new(&pEv)) < 0) goto kernel_done;
    if ((rc = ks_evidence_pick_features(feat.z, feat.n, L->pTask->zSource, zKernel, &zSummary)) < 0) goto kernel_done;
    if ((rc = ks_evidence_add_json(pEv, "features", zSummary, strlen(zSummary), L->pTask->zSource, NULL)) < 0)
      goto kernel_done;
    if (L->zBestEv && ks_evidence_pick_profile(L->zBestEv, strlen(L->zBestEv), "evidence", zKernel, &zProf) == KS_OK) {
      if ((rc = ks_evidence_add_json(pEv, "profile", zProf, strlen(zProf), "evidence", NULL)) < 0) goto kernel_done;
    }
    ks_error_clear();
    if ((rc = ks_evidence_set_task(pEv, L->pTask)) < 0 || (rc = ks_evidence_derive(pEv)) < 0) goto kernel_done;
    ks_plan_opts po = KS_PLAN_OPTS_INIT;
    po.zParent = L->azBest;
    po.pJournal = bDry ? NULL : L->pJ;
    po.zKernel = zKernel;
    po.zSource = L->pTask->zSource;
    if ((rc = ks_plan_run(L->pSet, pEv, &po, &pPlan)) < 0) goto kernel_done;
    if (bDry) {
      ks_buf t = KS_BUF_INIT;
      ks_plan_text(pPlan, 5, 0, &t);
      char *zOld = r->zPlanText;
      r->zPlanText = fmt("%s%s", zOld ? zOld : "", ks_buf_cstr(&t));
      free(zOld);
      ks_buf_free(&t);
    }
    for (int i = 0; i < pPlan->n && !r->pSkill; i++) {
      const ks_plan_item *it = &pPlan->a[i];
      if (it->eStatus != KS_PLAN_CANDIDATE) continue;
      char *zWhy = NULL;
      if ((rc = try_skill(L, it->pSkill, zKernel, zSummary, iRound, r, &zWhy)) < 0) goto kernel_done;
      if (r->nCand || r->bLlm) {
        if (r->bLlm)
          r->zEvidence = fmt("features of %s: %s\nprofile: %s", zKernel, zSummary, zProf ? zProf : "(not measured)");
        r->pSkill = it->pSkill;
        r->zKernel = ks_strdup(zKernel);
        r->zClass = ks_strdup(pPlan->zClass ? pPlan->zClass : "");
        r->pRanked = cJSON_CreateArray();
        for (int j = 0; j < pPlan->n && j < 5; j++) {
          if (pPlan->a[j].eStatus != KS_PLAN_CANDIDATE) break;
          cJSON *pO = cJSON_CreateObject();
          cJSON_AddStringToObject(pO, "skill", pPlan->a[j].pSkill->zId);
          cJSON_AddNumberToObject(pO, "rank", pPlan->a[j].iRank);
          cJSON_AddStringToObject(pO, "why", pPlan->a[j].zWhy ? pPlan->a[j].zWhy : "");
          cJSON_AddItemToArray(r->pRanked, pO);
        }
      } else {
        rc = add_refusal(r, it->pSkill, zWhy);
      }
      free(zWhy);
      if (rc < 0) goto kernel_done;
    }
  kernel_done:
    free(zSummary);
    free(zProf);
    ks_plan_free(pPlan);
    ks_evidence_free(pEv);
    if (rc < 0) goto done;
  }
done:
  r->azKernels = azKernels;
  r->nKernels = nKernels;
  ks_buf_free(&feat);
  return rc;
}
