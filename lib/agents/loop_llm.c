/* loop_llm.c — the LLM branch of a loop round: the Optimizer for skills with
 * guidance only, the Diagnoser's repairs of failing LLM candidates, each reply
 * checked and sandboxed, a refusal journaled as a failure. */
#include "agents/loop_int.h"

/* ---- the LLM branch of a round -------------------------------------------- */

/* Has a version with this hash been reviewed in this run (refusals aside)? */
int evaluated(loop *L, const char *zHash) {
  for (int i = 0; L->pJ && i < L->pJ->n; i++) {
    const ks_journal_entry *e = &L->pJ->a[i];
    if (!strcmp(e->zEvent, "candidate") && e->zHash && !strcmp(e->zHash, zHash) &&
        (!e->zVerdict || strcmp(e->zVerdict, "refused") != 0))
      return 1;
  }
  return 0;
}

static int repairable(const char *zVerdict) {
  return zVerdict && (!strcmp(zVerdict, "compile_error") || !strcmp(zVerdict, "wrong_result") ||
                      !strcmp(zVerdict, "runtime_error") || !strcmp(zVerdict, "timeout"));
}

/* LLM code gets one provenance line, which ks_loop_annotate later extends
 * with the evidence and gain: "// kernelskill: SKILL (rule llm, round N) ...".
 * Lines of that tag the model copied from an earlier attempt are dropped. */
static char *with_provenance(const char *zCode, const char *zSkill, int iRound, const char *zWhat) {
  char *zTag = fmt("%s (rule llm, round %d)", zSkill, iRound);
  ks_buf b = KS_BUF_INIT;
  if (!zTag) return NULL;
  char *zLine = fmt("%s %s", zTag, zWhat);
  ks_mark_write(&b, KS_MARK_NOTE, zLine ? zLine : zTag);
  ks_buf_puts(&b, "\n");
  free(zLine);
  size_t n = strlen(zCode), iPos = 0, iDone = 0;
  ks_mark m;
  while (ks_mark_next(zCode, n, KS_MARK_NOTE, &iPos, NULL, &m)) {
    if (!ks_mark_has_prefix(&m, zTag)) continue;
    ks_buf_append(&b, zCode + iDone, m.iStart - iDone);
    iDone = iPos; /* the copied line goes, its newline with it */
  }
  ks_buf_puts(&b, zCode + iDone);
  if (b.n && b.z[b.n - 1] != '\n') ks_buf_puts(&b, "\n");
  free(zTag);
  if (ks_buf_error(&b)) {
    ks_buf_free(&b);
    return NULL;
  }
  return ks_buf_detach(&b);
}

/* Add a candidate (taking zSrc) with one "llm=<agent>" parameter, so each
 * attempt is its own (skill, params) in the journal. */
static cand *add_llm_cand(round_plan *r, const char *zAgent, int iAttempt, char *zSrc, const char *zHash) {
  cand *a = realloc(r->aCand, sizeof *a * (size_t)(r->nCand + 1));
  if (!a) return NULL;
  r->aCand = a;
  cand *c = &a[r->nCand];
  memset(c, 0, sizeof *c);
  c->iRecorded = -1;
  c->zAgent = !strcmp(zAgent, "optimizer") ? "optimizer" : "diagnoser";
  c->iAttempt = iAttempt;
  c->azParams = calloc(1, sizeof(char *));
  if (!c->azParams || !(c->azParams[0] = iAttempt ? fmt("llm=repair-%d", iAttempt) : fmt("llm=optimizer"))) {
    free(c->azParams);
    return NULL;
  }
  c->nParams = 1;
  c->zSrc = zSrc;
  c->nSrc = zSrc ? strlen(zSrc) : 0;
  if (zHash) memcpy(c->azHash, zHash, 17);
  r->nCand++;
  return c;
}

/* An attempt that produced nothing to review: a recorded failure. */
static int record_llm_refusal(loop *L, int iRound, const round_plan *r, const char *zAgent, int iAttempt,
                              const char *zHash, const char *zRepairOf, const ks_agent_result *pAr, const char *zReply,
                              const char *zWhy) {
  cJSON *pRec = new_record("candidate", iRound);
  cJSON_AddStringToObject(pRec, "parent", L->azBest);
  if (zHash) cJSON_AddStringToObject(pRec, "hash", zHash);
  cJSON_AddStringToObject(pRec, "skill", r->pSkill->zId);
  cJSON_AddStringToObject(pRec, "kernel", r->zKernel);
  cJSON *pP = cJSON_AddObjectToObject(pRec, "params");
  char *zP = iAttempt ? fmt("repair-%d", iAttempt) : fmt("optimizer");
  cJSON_AddStringToObject(pP, "llm", zP ? zP : "");
  free(zP);
  cJSON_AddStringToObject(pRec, "agent", zAgent);
  cJSON_AddNumberToObject(pRec, "attempt", iAttempt);
  if (zRepairOf && zRepairOf[0]) cJSON_AddStringToObject(pRec, "repair_of", zRepairOf);
  if (pAr) {
    cJSON_AddStringToObject(pRec, "outcome", ks_agent_outcome_name(pAr->eOutcome));
    if (pAr->zModel) cJSON_AddStringToObject(pRec, "model", pAr->zModel);
    cJSON_AddNumberToObject(pRec, "tokens", (double)pAr->nTokens);
    cJSON_AddNumberToObject(pRec, "requests", pAr->nRequests);
  }
  if (zReply) cJSON_AddStringToObject(pRec, "reply", zReply);
  cJSON_AddStringToObject(pRec, "verdict", "refused");
  cJSON_AddStringToObject(pRec, "reason", zWhy ? zWhy : "");
  say(L, "round %d: %s (LLM %s) refused: %s", iRound, r->pSkill->zId, zAgent, zWhy ? zWhy : "");
  return record(L, pRec);
}

/* Keep the reply next to the run's candidates: llm/round<N>-<k>-<agent>.md.
 * *pzRel is the path relative to the run folder (for the journal). */
int save_reply(loop *L, const char *zStem, const char *zText, char **pzRel) {
  char *zDir = ks_path_join(L->o.zOutDir, "llm"), *zRel = fmt("llm/%s.md", zStem);
  char *zPath = zRel ? ks_path_join(L->o.zOutDir, zRel) : NULL;
  int rc = zDir && zPath ? ks_dir_make(zDir) : ks_error_set(KS_ENOMEM, "out of memory");
  if (rc == KS_OK) rc = ks_file_write_atomic(zPath, zText, strlen(zText));
  free(zDir);
  free(zPath);
  if (rc == KS_OK) *pzRel = zRel;
  else free(zRel);
  return rc;
}

/* The journal's candidates on the current best, for the Optimizer's "do not
 * repeat" list. */
static char *tried_text(loop *L) {
  ks_buf b = KS_BUF_INIT;
  for (int i = 0; L->pJ && i < L->pJ->n; i++) {
    const ks_journal_entry *e = &L->pJ->a[i];
    if (strcmp(e->zEvent, "candidate") || !e->zParent || strcmp(e->zParent, L->azBest) || !e->zSkill) continue;
    ks_buf_printf(&b, "- %s: %s", e->zSkill, e->zVerdict ? e->zVerdict : "?");
    if (e->bHasSpeedup) ks_buf_printf(&b, " (%.2fx)", e->rSpeedup);
    ks_buf_puts(&b, "\n");
  }
  char *z = ks_buf_detach(&b);
  return z ? z : ks_strdup("");
}

/* The Optimizer's candidate for the chosen skill, then Diagnoser repairs of
 * each candidate that fails to build or run, at most nMaxRepairs; every
 * attempt is journaled (reviewed: a candidate record; refused: a refusal),
 * and a resumed round continues from its records. Fills r->aCand and the
 * parallel *paOut (malloc'd). */
int llm_branch(loop *L, int iRound, round_plan *r, outcome **paOut) {
  int rc = KS_OK, nAttempt = 0, bDone = 0, nOut = 0;
  int nMax = L->o.nMaxRepairs > 0 ? L->o.nMaxRepairs : KS_AGENT_MAX_REPAIRS;
  outcome *aOut = NULL;
  char azFail[17] = "";
  char *zFailWhy = NULL, *zKernels = NULL, *zTried = NULL;
  ks_buf hist = KS_BUF_INIT, kb = KS_BUF_INIT;
  ks_agent_result ar;
  memset(&ar, 0, sizeof ar);
  *paOut = NULL;
  for (int i = 0; i < r->nKernels; i++) ks_buf_printf(&kb, "%s%s", i ? ", " : "", r->azKernels[i]);
  zKernels = ks_buf_detach(&kb);

  /* A resumed round: its recorded attempts, in order. */
  for (int i = 0; L->pJ && i < L->pJ->n && !bDone; i++) {
    const ks_journal_entry *e = &L->pJ->a[i];
    if (strcmp(e->zEvent, "candidate") || e->iRound != iRound || !e->zParent || strcmp(e->zParent, L->azBest)) continue;
    char *zAgent = ks_journal_entry_string(e, "agent");
    if (!zAgent) continue;
    nAttempt++;
    if (!strcmp(e->zVerdict, "refused") || !e->zHash) {
      free(zAgent);
      bDone = 1;
      break;
    }
    cand *c = add_llm_cand(r, zAgent, nAttempt - 1, NULL, e->zHash);
    free(zAgent);
    outcome *a = c ? realloc(aOut, sizeof *a * (size_t)r->nCand) : NULL;
    if (!a) {
      rc = ks_error_set(KS_ENOMEM, "out of memory");
      goto done;
    }
    aOut = a;
    memset(&aOut[r->nCand - 1], 0, sizeof *a);
    nOut = r->nCand;
    c->iRecorded = i;
    if ((rc = eval_cand(L, iRound, r, c, &aOut[r->nCand - 1])) < 0) goto done;
    if (!repairable(e->zVerdict)) {
      bDone = 1;
    } else {
      char *zDiag = ks_journal_entry_string(e, "diagnosis"), *zDetail = ks_journal_entry_string(e, "detail");
      memcpy(azFail, e->zHash, 17);
      free(zFailWhy);
      zFailWhy = fmt("%s%s%s", zDiag ? zDiag : e->zVerdict, zDetail ? "\n" : "", zDetail ? zDetail : "");
      ks_buf_printf(&hist, "- attempt %d: %s\n", nAttempt - 1, zDiag ? zDiag : e->zVerdict);
      free(zDiag);
      free(zDetail);
    }
  }

  ks_agent_ctx ctx = KS_AGENT_CTX_INIT;
  ctx.pLlm = L->o.pLlm;
  ctx.azKernel = (const char *const *)r->azKernels;
  ctx.nKernel = r->nKernels;
  ctx.zEntryName = L->pTask->zEntry;
  ctx.zEntryType = L->zEntryType;
  ctx.zEntryDecl = L->zEntryDecl;
  ctx.azLibraries = (const char *const *)L->pTask->azLib;
  ctx.nLibraries = L->pTask->nLib;
  zTried = tried_text(L);
  while (!bDone) {
    if (nAttempt > 0 && !azFail[0]) break;
    if (nAttempt > nMax) {
      say(L, "round %d: %s: giving up this branch after %d repairs", iRound, r->pSkill->zId, nMax);
      break;
    }
    int bRepair = nAttempt > 0;
    const char *zAgent = bRepair ? "diagnoser" : "optimizer";
    char *zFailSrc = NULL, *zAttempt = fmt("%d", nAttempt), *zMaxA = fmt("%d", nMax);
    if (bRepair) {
      char *zPath = cand_path(L, azFail);
      size_t n;
      rc = zPath ? ks_file_read(zPath, &zFailSrc, &n) : KS_ENOMEM;
      free(zPath);
      if (rc < 0) {
        free(zAttempt);
        free(zMaxA);
        goto done;
      }
    }
    say(L, "round %d: asking the LLM %s%s", iRound, zAgent, bRepair ? " for a repair" : "");
    ks_prompt_var aVarO[] = {{"task_name", L->pTask->zName},     {"skill_id", r->pSkill->zId},
                             {"skill_title", r->pSkill->zTitle}, {"skill_guidance", r->pSkill->zGuidance},
                             {"kernel_source", L->zBestSrc},     {"kernels", zKernels},
                             {"entry_signature", L->zEntryDecl}, {"evidence", r->zEvidence},
                             {"history", zTried}};
    ks_prompt_var aVarD[] = {{"task_name", L->pTask->zName}, {"kernel_source", zFailSrc},
                             {"error", zFailWhy},            {"repair_history", hist.n ? ks_buf_cstr(&hist) : ""},
                             {"attempt", zAttempt},          {"max_attempts", zMaxA},
                             {"kernels", zKernels},          {"entry_signature", L->zEntryDecl}};
    rc = bRepair ? ks_agent_run(&ctx, zAgent, aVarD, (int)(sizeof aVarD / sizeof aVarD[0]), &ar)
                 : ks_agent_run(&ctx, zAgent, aVarO, (int)(sizeof aVarO / sizeof aVarO[0]), &ar);
    free(zFailSrc);
    free(zAttempt);
    free(zMaxA);
    if (rc < 0) goto done;
    char *zStem = fmt("round%d-%d-%s", iRound, nAttempt, zAgent), *zReply = NULL;
    if (ar.zReply && zStem && (rc = save_reply(L, zStem, ar.zReply, &zReply)) < 0) {
      free(zStem);
      goto done;
    }
    free(zStem);
    char *zSrc = NULL;
    char azHash[17] = "";
    int bCode = ar.eOutcome == KS_AGENT_CODE || ar.eOutcome == KS_AGENT_UNPARSED;
    if (bCode) {
      char *zWhat = bRepair ? fmt("written by the LLM Optimizer, repair %d by the Diagnoser (%s)", nAttempt,
                                  ar.zModel ? ar.zModel : "?")
                            : fmt("written by the LLM Optimizer (%s)", ar.zModel ? ar.zModel : "?");
      zSrc = zWhat ? with_provenance(ar.zCode, r->pSkill->zId, iRound, zWhat) : NULL;
      free(zWhat);
      if (!zSrc) {
        free(zReply);
        rc = ks_error_set(KS_ENOMEM, "out of memory");
        goto done;
      }
      ks_journal_hash(zSrc, strlen(zSrc), "", azHash);
    }
    if (!bCode || evaluated(L, azHash) || is_ancestor(L, azHash)) {
      char *zWhy = !bCode ? NULL : fmt("the reply repeats version %s, evaluated before", azHash);
      rc = record_llm_refusal(L, iRound, r, zAgent, nAttempt, azHash[0] ? azHash : NULL, bRepair ? azFail : NULL, &ar,
                              zReply, zWhy ? zWhy : ar.zWhy);
      free(zWhy);
      free(zSrc);
      free(zReply);
      if (rc < 0) goto done;
      bDone = 1;
      break;
    }
    cand *c = add_llm_cand(r, zAgent, nAttempt, zSrc, azHash);
    outcome *a = c ? realloc(aOut, sizeof *a * (size_t)r->nCand) : NULL;
    if (!a) {
      if (!c) free(zSrc);
      free(zReply);
      rc = ks_error_set(KS_ENOMEM, "out of memory");
      goto done;
    }
    aOut = a;
    memset(&aOut[r->nCand - 1], 0, sizeof *a);
    nOut = r->nCand;
    if (bRepair) memcpy(c->azRepairOf, azFail, 17);
    c->nTokens = ar.nTokens;
    c->nRequests = ar.nRequests;
    c->zModel = ar.zModel;
    ar.zModel = NULL;
    c->zReply = zReply;
    if (ar.eOutcome == KS_AGENT_UNPARSED) c->zUnparsed = ar.zWhy, ar.zWhy = NULL;
    ks_agent_result_free(&ar);
    if ((rc = eval_cand(L, iRound, r, c, &aOut[r->nCand - 1])) < 0) goto done;
    nAttempt++;
    const char *zV = aOut[r->nCand - 1].zVerdict;
    if (!repairable(zV)) {
      bDone = 1;
    } else {
      const ks_journal_entry *e = &L->pJ->a[L->pJ->n - 1];
      char *zDiag = ks_journal_entry_string(e, "diagnosis"), *zDetail = ks_journal_entry_string(e, "detail");
      memcpy(azFail, c->azHash, 17);
      free(zFailWhy);
      zFailWhy = fmt("%s%s%s", zDiag ? zDiag : zV, zDetail ? "\n" : "", zDetail ? zDetail : "");
      ks_buf_printf(&hist, "- attempt %d: %s\n", nAttempt - 1, zDiag ? zDiag : zV);
      free(zDiag);
      free(zDetail);
    }
  }
done:
  ks_agent_result_free(&ar);
  if (rc < 0) {
    for (int i = 0; aOut && i < nOut; i++) {
      free(aOut[i].zVerdict);
      free(aOut[i].zEv);
    }
    free(aOut);
    aOut = NULL;
    r->nCand = nOut; /* a candidate added without its outcome is dropped */
  }
  *paOut = aOut;
  free(zFailWhy);
  free(zKernels);
  free(zTried);
  ks_buf_free(&hist);
  ks_buf_free(&kb);
  return rc;
}

/* One round. *pbStop with *pzStop (malloc'd) when the loop should end. */
