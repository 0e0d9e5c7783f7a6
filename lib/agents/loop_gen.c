/* loop_gen.c — the Generator: a seed written by the LLM from a task's spec and
 * reference, reviewed before the loop starts from it. */
#include "agents/loop_int.h"

/* ---- the Generator: a seed from a spec ------------------------------------ */

/* The task's arguments as prompt text, one per line. */
static char *args_text(const ks_task *t) {
  ks_buf b = KS_BUF_INIT;
  for (int i = 0; i < t->nArg; i++) {
    const ks_task_arg *a = &t->aArg[i];
    if (a->eKind == KS_ARG_TENSOR) {
      ks_buf_printf(&b, "- %s: %s tensor, intent %s, shape [", a->zName, ks_dtype_name(a->eType),
                    ks_intent_name(a->eIntent));
      for (int k = 0; k < a->nRank; k++) ks_buf_printf(&b, "%s%s", k ? ", " : "", a->azShape[k]);
      ks_buf_printf(&b, "] = %lld elements\n", (long long)a->nElem);
    } else {
      ks_buf_printf(&b, "- %s: %s scalar = %s\n", a->zName, ks_dtype_name(a->eType), a->zValue ? a->zValue : "?");
    }
  }
  char *z = ks_buf_detach(&b);
  return z ? z : ks_strdup("");
}

/* The seed of a task that gives only a spec: the Generator writes it, the
 * Reviewer checks it against the reference, the Diagnoser repairs it (at most
 * nMaxRepairs times). Each attempt is a "generate" record; the seed that
 * passes is generated/<hash>.cu in the run folder, its review kept for
 * round 0. A resumed run takes the seed its "start" record names. */
int seed_from_spec(loop *L, char **pzPath) {
  const ks_task *t = L->pTask;
  int rc = KS_OK, nMax = L->o.nMaxRepairs > 0 ? L->o.nMaxRepairs : KS_AGENT_MAX_REPAIRS;
  char *zRef = NULL, *zArgs = NULL, *zDir = NULL, *zFailSrc = NULL, *zFailWhy = NULL;
  ks_buf hist = KS_BUF_INIT;
  ks_agent_result ar;
  memset(&ar, 0, sizeof ar);
  *pzPath = NULL;
  int iStart = ks_journal_find(L->pJ, "start", -1, NULL);
  if (iStart >= 0) {
    char *z = ks_journal_entry_string(&L->pJ->a[iStart], "source");
    if (z && ks_file_exists(z)) {
      *pzPath = z;
      return KS_OK;
    }
    free(z);
    return ks_error_set(KS_EINVAL, "%s: cannot resume: the generated seed is missing", L->zJournal);
  }
  if (!L->o.pLlm)
    return ks_error_set(KS_EUNAVAIL,
                        "%s: the task gives no source, only a spec: the Generator needs an LLM (--llm URL or "
                        "KS_LLM_URL)",
                        t->zPath);
  if ((rc = ks_agent_entry_decl(t, NULL, &L->zEntryDecl)) < 0) goto done;
  size_t n;
  if ((rc = ks_file_read(t->zReference, &zRef, &n)) < 0) goto done;
  if (!(zArgs = args_text(t)) || !(zDir = ks_path_join(L->o.zOutDir, "generated"))) {
    rc = ks_error_set(KS_ENOMEM, "out of memory");
    goto done;
  }
  if ((rc = ks_dir_make(zDir)) < 0) goto done;
  ks_agent_ctx ctx = KS_AGENT_CTX_INIT;
  ctx.pLlm = L->o.pLlm;
  ctx.zEntryName = t->zEntry;
  ctx.zEntryDecl = L->zEntryDecl;
  ctx.azLibraries = (const char *const *)t->azLib;
  ctx.nLibraries = t->nLib;
  for (int k = 0; k <= nMax; k++) {
    const char *zAgent = k ? "diagnoser" : "generator";
    char zAttempt[16], zMaxA[16];
    snprintf(zAttempt, sizeof zAttempt, "%d", k);
    snprintf(zMaxA, sizeof zMaxA, "%d", nMax);
    say(L, "generating the seed: asking the LLM %s%s", zAgent, k ? " for a repair" : "");
    ks_prompt_var aVarG[] = {{"task_name", t->zName},         {"spec", t->zSpec},
                             {"reference_source", zRef},       {"entry_signature", L->zEntryDecl},
                             {"kernels", ""},                  {"args", zArgs}};
    ks_prompt_var aVarD[] = {{"task_name", t->zName},
                             {"kernel_source", zFailSrc},
                             {"error", zFailWhy},
                             {"repair_history", hist.n ? ks_buf_cstr(&hist) : ""},
                             {"attempt", zAttempt},
                             {"max_attempts", zMaxA},
                             {"kernels", "the kernels it defines"},
                             {"entry_signature", L->zEntryDecl}};
    ks_agent_result_free(&ar);
    rc = k ? ks_agent_run(&ctx, zAgent, aVarD, (int)(sizeof aVarD / sizeof aVarD[0]), &ar)
           : ks_agent_run(&ctx, zAgent, aVarG, (int)(sizeof aVarG / sizeof aVarG[0]), &ar);
    if (rc < 0) goto done;
    char *zStem = fmt("seed-%d-%s", k, zAgent), *zReply = NULL;
    if (ar.zReply && zStem) rc = save_reply(L, zStem, ar.zReply, &zReply);
    free(zStem);
    if (rc < 0) goto done;
    cJSON *pRec = new_record("generate", 0);
    cJSON_AddStringToObject(pRec, "agent", zAgent);
    cJSON_AddNumberToObject(pRec, "attempt", k);
    cJSON_AddStringToObject(pRec, "outcome", ks_agent_outcome_name(ar.eOutcome));
    if (ar.zModel) cJSON_AddStringToObject(pRec, "model", ar.zModel);
    cJSON_AddNumberToObject(pRec, "tokens", (double)ar.nTokens);
    if (zReply) cJSON_AddStringToObject(pRec, "reply", zReply);
    free(zReply);
    if (ar.eOutcome != KS_AGENT_CODE && ar.eOutcome != KS_AGENT_UNPARSED) {
      cJSON_AddStringToObject(pRec, "verdict", "refused");
      cJSON_AddStringToObject(pRec, "reason", ar.zWhy ? ar.zWhy : "");
      if ((rc = record(L, pRec)) < 0) goto done;
      rc = ks_error_set(ar.eOutcome == KS_AGENT_NO_REPLY ? KS_EUNAVAIL : KS_EINVAL, "%s: no seed: %s", t->zPath,
                        ar.zWhy ? ar.zWhy : "");
      goto done;
    }
    char *zSrc = NULL, *zNote = fmt("seed written by the LLM %s (%s) from the spec of task %s", zAgent,
                                    ar.zModel ? ar.zModel : "?", t->zName);
    if (zNote) {
      ks_buf seed = KS_BUF_INIT;
      ks_mark_write(&seed, KS_MARK_NOTE, zNote);
      ks_buf_printf(&seed, "\n%s", ar.zCode);
      zSrc = ks_buf_detach(&seed);
      free(zNote);
    }
    char azHash[17];
    if (!zSrc) {
      cJSON_Delete(pRec);
      rc = ks_error_set(KS_ENOMEM, "out of memory");
      goto done;
    }
    ks_journal_hash(zSrc, strlen(zSrc), "", azHash);
    char *zPath = fmt("%s/%s.cu", zDir, azHash);
    rc = zPath ? save_text(zPath, zSrc, strlen(zSrc)) : KS_ENOMEM;
    cJSON_AddStringToObject(pRec, "hash", azHash);
    ks_task tt = *t;
    tt.zSource = zPath;
    ks_review_result *pRev = NULL;
    if (rc == KS_OK && ar.eOutcome == KS_AGENT_UNPARSED) {
      /* Never compiled: the untrusted-code check could not pass it. */
      rc = ks_error_set(KS_EINVAL, KS_UNPARSED_WHY "\n%s", ar.zWhy ? ar.zWhy : "");
    } else if (rc == KS_OK) {
      say(L, "generating the seed: reviewing %s", zPath);
      rc = review(L, &tt, NULL, &pRev);
    }
    ks_buf diag = KS_BUF_INIT;
    const char *zV = NULL;
    if (rc == KS_EINVAL) {
      /* It does not build (or the reference fails): the Diagnoser gets the message. */
      zV = "compile_error";
      ks_buf_printf(&diag, "compile_error: %s", ks_error_msg());
      ks_error_clear();
      rc = KS_OK;
    } else if (rc == KS_OK) {
      zV = ks_verdict_name(pRev->eVerdict);
      if (pRev->eVerdict != KS_VERDICT_OK) {
        ks_diagnose(pRev, "llm", &diag);
        if (pRev->zDetail) ks_buf_printf(&diag, "\n%.2000s", pRev->zDetail);
      }
    }
    if (rc < 0) {
      cJSON_Delete(pRec);
      free(zPath);
      free(zSrc);
      ks_buf_free(&diag);
      goto done;
    }
    cJSON_AddStringToObject(pRec, "verdict", zV);
    if (diag.n) cJSON_AddStringToObject(pRec, "diagnosis", ks_buf_cstr(&diag));
    if ((rc = record(L, pRec)) < 0) {
      free(zPath);
      free(zSrc);
      ks_buf_free(&diag);
      ks_review_result_free(pRev);
      goto done;
    }
    say(L, "generating the seed: %s%s%s", zV, diag.n ? ": " : "", diag.n ? ks_buf_cstr(&diag) : "");
    if (pRev && pRev->eVerdict == KS_VERDICT_OK) {
      L->pSeedRev = pRev;
      *pzPath = zPath;
      free(zSrc);
      ks_buf_free(&diag);
      goto done;
    }
    ks_review_result_free(pRev);
    ks_buf_printf(&hist, "- attempt %d: %.300s\n", k, ks_buf_cstr(&diag));
    free(zFailSrc);
    free(zFailWhy);
    zFailSrc = zSrc;
    zFailWhy = ks_buf_detach(&diag);
    free(zPath);
  }
  rc = ks_error_set(KS_EINVAL, "%s: the generated seed still fails after %d repairs: %s", t->zPath, nMax,
                    zFailWhy ? zFailWhy : "?");
done:
  ks_agent_result_free(&ar);
  free(zRef);
  free(zArgs);
  free(zDir);
  free(zFailSrc);
  free(zFailWhy);
  ks_buf_free(&hist);
  return rc;
}
