/* loop.c — the agent loop proper of `kernelskill optimize` (docs/optimize.md).
 * Round 0 reviews the seed. Each round: features of the current best (one TU,
 * re-parsed) + its profile -> planner (skills + journal) -> the chosen skill's
 * rewrite rule, swept over its parameters -> the Reviewer compares every
 * candidate with the current best -> the best correct candidate faster than
 * the best beyond the measured noise is accepted -> journal. Every step is a
 * journal record written before the next begins, so a killed run resumes from
 * the journal with nothing evaluated twice. With an LLM client, a skill with
 * guidance only goes to the Optimizer agent, a failing LLM candidate to the
 * Diagnoser agent (at most nMaxRepairs repairs), and a task with only a spec
 * gets its seed from the Generator; every reply is checked and sandboxed
 * before it is compiled, and a refused one is a recorded failure. */
#include "kernelskill/loop.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kernelskill/features.h"
#include "kernelskill/marks.h"
#include "kernelskill/proc.h"
#include "kernelskill/rewrite.h"
#include "kernelskill/skills.h"

#include "agents/loop_int.h"

/* ---- small helpers -------------------------------------------------------- */


static const char *base_name(const char *zPath) {
  const char *z = strrchr(zPath, '/');
  return z ? z + 1 : zPath;
}

double json_num(const cJSON *p, const char *zKey, double rDefault) {
  const cJSON *q = cJSON_GetObjectItemCaseSensitive(p, zKey);
  return cJSON_IsNumber(q) ? q->valuedouble : rDefault;
}

/* ---- provenance ----------------------------------------------------------- */

int ks_loop_annotate(const char *zSrc, const char *zSkill, const char *zRule, int iRound, const char *zEvidence,
                     char **pzOut) {
  ks_buf b = KS_BUF_INIT;
  char *zTag = fmt("%s (rule %s, round %d)", zSkill, zRule, iRound);
  if (!zTag) return ks_error_set(KS_ENOMEM, "out of memory");
  size_t nTag = strlen(zTag), n = strlen(zSrc), iPos = 0, iDone = 0;
  ks_mark m;
  while (ks_mark_next(zSrc, n, KS_MARK_NOTE, &iPos, NULL, &m)) {
    if (!ks_mark_has_prefix(&m, zTag)) continue;
    const char *zRest = m.zValue + nTag, *zEnd = m.zValue + m.nValue;
    ks_buf_append(&b, zSrc + iDone, (size_t)(zRest - (zSrc + iDone)));
    iDone = (size_t)(zRest - zSrc);
    /* Already annotated (a resumed finalization) stays as it is. */
    size_t nEv = zEvidence ? strlen(zEvidence) : 0;
    const char *zWhat = zRest + (zRest < zEnd && *zRest == ' ');
    if (nEv && !((size_t)(zEnd - zWhat) >= nEv && memcmp(zWhat, zEvidence, nEv) == 0))
      ks_buf_printf(&b, " %s%s", zEvidence, zWhat < zEnd ? " \xe2\x80\x94" : "");
  }
  ks_buf_puts(&b, zSrc + iDone);
  free(zTag);
  if (ks_buf_error(&b)) {
    ks_buf_free(&b);
    return ks_error_set(KS_ENOMEM, "out of memory");
  }
  *pzOut = ks_buf_detach(&b);
  if (!*pzOut) *pzOut = ks_strdup("");
  return *pzOut ? KS_OK : KS_ENOMEM;
}

/* ---- the loop's state ----------------------------------------------------- */


void say(loop *L, const char *zFmt, ...) {
  if (!L->o.pLog) return;
  va_list ap;
  va_start(ap, zFmt);
  fputs("kernelskill: ", L->o.pLog);
  vfprintf(L->o.pLog, zFmt, ap);
  fputc('\n', L->o.pLog);
  fflush(L->o.pLog);
  va_end(ap);
}

static int journal_reload(loop *L) {
  ks_journal *p = NULL;
  int rc = ks_journal_read(L->zJournal, &p);
  if (rc < 0) return rc;
  ks_journal_free(L->pJ);
  L->pJ = p;
  return KS_OK;
}

/* Append a record (taking ownership of pObj) and keep the in-memory copy current. */
int record(loop *L, cJSON *pObj) {
  char *z = pObj ? cJSON_PrintUnformatted(pObj) : NULL;
  cJSON_Delete(pObj);
  if (!z) return ks_error_set(KS_ENOMEM, "out of memory");
  int rc = ks_journal_append(L->zJournal, z);
  free(z);
  return rc < 0 ? rc : journal_reload(L);
}

cJSON *new_record(const char *zEvent, int iRound) {
  cJSON *p = cJSON_CreateObject();
  if (!p) return NULL;
  cJSON_AddNumberToObject(p, "ks_journal", KS_JOURNAL_FORMAT);
  cJSON_AddStringToObject(p, "event", zEvent);
  cJSON_AddNumberToObject(p, "round", iRound);
  return p;
}

/* A review's verdict in a journal record; with zBaseKey, and when it was timed,
 * its speedup, the candidate's median and the baseline's (named zBaseKey). */
static void add_verdict(cJSON *pRec, const ks_review_result *pRev, const char *zVerdict, const char *zBaseKey) {
  cJSON_AddStringToObject(pRec, "verdict", zVerdict);
  cJSON_AddStringToObject(pRec, "reason", pRev->zReason ? pRev->zReason : "");
  if (!zBaseKey || !pRev->bTimed) return;
  cJSON_AddNumberToObject(pRec, "speedup", pRev->rSpeedup);
  cJSON_AddNumberToObject(pRec, "median_us", pRev->cand.rMedianUs);
  cJSON_AddNumberToObject(pRec, zBaseKey, 0.5 * (pRev->seed.rMedianUs + pRev->seed2.rMedianUs));
}

cJSON *params_json(char *const *az, int n) {
  cJSON *p = cJSON_CreateObject();
  for (int i = 0; p && i < n; i++) {
    const char *zEq = strchr(az[i], '=');
    if (!zEq) continue;
    char zKey[128];
    snprintf(zKey, sizeof zKey, "%.*s", (int)(zEq - az[i]), az[i]);
    cJSON_AddStringToObject(p, zKey, zEq + 1);
  }
  return p;
}

void params_text(char *const *az, int n, ks_buf *pOut) {
  for (int i = 0; i < n; i++) ks_buf_printf(pOut, "%s%s", i ? "," : "", az[i]);
}

/* " [k=v,...]" for progress lines, "" without parameters. */
static char *params_tag(const ks_buf *p) { return p->n ? fmt(" [%s]", p->z) : ks_strdup(""); }

char *cand_path(loop *L, const char *zHash) { return fmt("%s/%s.cu", L->zCandDir, zHash); }
static char *ev_path(loop *L, const char *zHash) { return fmt("%s/%s.json", L->zEvDir, zHash); }

/* The review, through the options' function or the real Reviewer. */
int review(loop *L, const ks_task *pTask, const char *zCandidate, ks_review_result **ppRes) {
  ks_review_opts ro = KS_REVIEW_OPTS_INIT;
  ro.zCandidate = zCandidate;
  ro.bProfileBestOnly = 1; /* the next round plans from the best's profile only */
  ro.zRefCache = L->zRefCache;
  if (L->o.nRuns > 0) ro.nRuns = L->o.nRuns;
  if (L->o.nTrials > 0) ro.nTrials = L->o.nTrials;
  if (L->o.xReview) return L->o.xReview(L->o.pReviewCtx, pTask, &ro, ppRes);
  return ks_review_run(pTask, &ro, ppRes);
}

/* The task as the loop reviews a candidate: compared with the current best,
 * checked against the task's reference (the original seed when it has none).
 * A shallow copy: it borrows every string. */
static ks_task task_vs_best(loop *L, const char *zBestPath) {
  ks_task t = *L->pTask;
  t.zSource = (char *)zBestPath;
  t.zReference = L->pTask->zReference ? L->pTask->zReference : L->pTask->zSource;
  return t;
}

static int is_correct(const char *zVerdict) {
  return zVerdict && (!strcmp(zVerdict, "ok") || !strcmp(zVerdict, "accepted") || !strcmp(zVerdict, "slower") ||
                      !strcmp(zVerdict, "noise"));
}

/* roofline.roofline_pct of an evidence document, or -1. */
static double ev_roofline(const char *zEv) {
  cJSON *p = zEv ? cJSON_Parse(zEv) : NULL;
  double r = json_num(cJSON_GetObjectItemCaseSensitive(p, "roofline"), "roofline_pct", -1);
  cJSON_Delete(p);
  return r;
}

/* The profile object of kernel zKernel in an evidence document (a detached
 * copy), or NULL. */
cJSON *ev_profile(const char *zEv, const char *zKernel) {
  char *z = NULL;
  if (!zEv || ks_evidence_pick_profile(zEv, strlen(zEv), "evidence", zKernel, &z) < 0) {
    ks_error_clear();
    return NULL;
  }
  cJSON *p = cJSON_Parse(z);
  free(z);
  return p;
}

/* "dram 41%->78%, 1.84x": the skill's expected effects as measured (parent ->
 * candidate profile), then the gain. Falls back to the kernel time. */
static char *evidence_text(const ks_skill *pSkill, const char *zKernel, const char *zParentEv, const char *zCandEv,
                           double rParentUs, double rCandUs, double rGain) {
  ks_buf b = KS_BUF_INIT;
  cJSON *pA = ev_profile(zParentEv, zKernel), *pB = ev_profile(zCandEv, zKernel);
  int nShown = 0;
  for (int i = 0; pSkill && i < pSkill->nEffect && nShown < 2; i++) {
    const char *zM = pSkill->aEffect[i].zMetric;
    if (strncmp(zM, "profile.", 8) != 0) continue;
    zM += 8;
    double rA = json_num(pA, zM, NAN), rB = json_num(pB, zM, NAN);
    if (isnan(rA) || isnan(rB)) continue;
    size_t n = strlen(zM);
    int bPct = n > 4 && strcmp(zM + n - 4, "_pct") == 0, bUs = n > 3 && strcmp(zM + n - 3, "_us") == 0;
    if (bPct) ks_buf_printf(&b, "%s%.*s %.0f%%->%.0f%%", nShown ? ", " : "", (int)(n - 4), zM, rA, rB);
    else if (bUs) ks_buf_printf(&b, "%s%.*s %.3g->%.3g us", nShown ? ", " : "", (int)(n - 3), zM, rA, rB);
    else ks_buf_printf(&b, "%s%s %.3g->%.3g", nShown ? ", " : "", zM, rA, rB);
    nShown++;
  }
  if (!nShown && rParentUs > 0 && rCandUs > 0) ks_buf_printf(&b, "%.1f us->%.1f us", rParentUs, rCandUs), nShown++;
  ks_buf_printf(&b, "%s%.2fx", nShown ? ", " : "", rGain);
  cJSON_Delete(pA);
  cJSON_Delete(pB);
  return ks_buf_detach(&b);
}

/* ---- set-up, round 0, resume ---------------------------------------------- */

static int load_best(loop *L, const char *zHash) {
  char *zPath = cand_path(L, zHash), *zSrc = NULL;
  size_t nSrc = 0;
  int rc = ks_file_read(zPath, &zSrc, &nSrc);
  if (rc < 0) {
    char *zWhy = ks_strdup(ks_error_msg()); /* the message below replaces the one it quotes */
    rc = ks_error_set(KS_EINVAL, "%s: cannot resume: the source of version %s is missing (%s)", L->zJournal, zHash,
                      zWhy ? zWhy : "?");
    free(zWhy);
    goto done;
  }
  char azCheck[17];
  ks_journal_hash(zSrc, nSrc, "", azCheck);
  if (strcmp(azCheck, zHash) != 0) {
    rc = ks_error_set(KS_EINVAL, "%s: its hash is %s, not %s: the run folder was edited", zPath, azCheck, zHash);
    goto done;
  }
  free(L->zBestSrc);
  L->zBestSrc = zSrc;
  L->nBestSrc = nSrc;
  zSrc = NULL;
  memcpy(L->azBest, zHash, 17);
  free(L->zBestEv);
  L->zBestEv = NULL;
  char *zEv = ev_path(L, zHash);
  size_t n;
  if (ks_file_read(zEv, &L->zBestEv, &n) < 0) ks_error_clear(); /* plan on features alone */
  free(zEv);
done:
  free(zPath);
  free(zSrc);
  return rc;
}

int save_text(const char *zPath, const char *z, size_t n) {
  if (ks_file_exists(zPath)) return KS_OK; /* content-addressed: already there */
  return ks_file_write_atomic(zPath, z, n);
}

/* Review the seed (round 0). Returns KS_OK; the seed's failure shows in
 * pRes->eStatus. Nothing is written before the review succeeds, so a missing
 * GPU leaves the run folder untouched. */
static int round0(loop *L) {
  ks_review_result *pRev = NULL;
  ks_buf diag = KS_BUF_INIT;
  cJSON *pRec = NULL;
  int rc = KS_OK;
  say(L, "round 0: reviewing the seed %s", L->pTask->zSource);
  double rT = ks_clock_now(L->o.pClock);
  if (L->pSeedRev) {
    pRev = L->pSeedRev; /* the generated seed, reviewed as it was accepted */
    L->pSeedRev = NULL;
  } else if ((rc = review(L, L->pTask, NULL, &pRev)) < 0) {
    if (rc == KS_EINVAL) {
      /* The seed (or the reference) does not build or run: an input problem the Diagnoser reports. */
      L->pRes->eStatus = KS_LOOP_SEED_FAILED;
      L->pRes->zDiagnosis = fmt("the seed cannot be reviewed: %s", ks_error_msg());
      rc = KS_OK;
      pRec = new_record("review", 0);
      cJSON_AddStringToObject(pRec, "hash", L->azSeed);
      cJSON_AddStringToObject(pRec, "verdict", "compile_error");
      cJSON_AddStringToObject(pRec, "diagnosis", L->pRes->zDiagnosis);
    }
    goto done;
  }
  pRec = new_record("review", 0);
  cJSON_AddStringToObject(pRec, "hash", L->azSeed);
  add_verdict(pRec, pRev, ks_verdict_name(pRev->eVerdict), NULL);
  cJSON_AddNumberToObject(pRec, "seconds", ks_clock_now(L->o.pClock) - rT);
  if (pRev->eVerdict != KS_VERDICT_OK) {
    ks_diagnose(pRev, NULL, &diag);
    L->pRes->eStatus = KS_LOOP_SEED_FAILED;
    L->pRes->zDiagnosis = ks_buf_detach(&diag);
    cJSON_AddStringToObject(pRec, "diagnosis", L->pRes->zDiagnosis ? L->pRes->zDiagnosis : "");
    if (pRev->zDetail) cJSON_AddStringToObject(pRec, "detail", pRev->zDetail);
    goto done;
  }
  L->rSeedUs = L->rBestUs = pRev->seed.rMedianUs;
  cJSON_AddNumberToObject(pRec, "median_us", pRev->seed.rMedianUs);
  cJSON_AddNumberToObject(pRec, "noise_pct", pRev->rNoisePct);
  double rRoof = ev_roofline(pRev->zEvidence);
  if (rRoof >= 0) cJSON_AddNumberToObject(pRec, "roofline_pct", rRoof);
  char *zEv = ev_path(L, L->azSeed);
  if (pRev->zEvidence) rc = ks_file_write_atomic(zEv, pRev->zEvidence, strlen(pRev->zEvidence));
  free(zEv);
  if (rc < 0) goto done;
  free(L->zBestEv);
  L->zBestEv = pRev->zEvidence ? ks_strdup(pRev->zEvidence) : NULL;
  say(L, "round 0: seed correct, %.2f us (noise %.2f%%)%s", L->rSeedUs, pRev->rNoisePct,
      rRoof >= 0 ? "" : "; no roofline position (the task has no cost)");
done:
  if (rc == KS_OK && pRec) rc = record(L, pRec), pRec = NULL;
  cJSON_Delete(pRec);
  ks_buf_free(&diag);
  ks_review_result_free(pRev);
  return rc;
}

/* ---- one round ------------------------------------------------------------ */


/* Who wrote an LLM candidate, for its journal record. */
static void add_llm_fields(cJSON *pRec, const cand *c) {
  cJSON_AddStringToObject(pRec, "agent", c->zAgent);
  cJSON_AddNumberToObject(pRec, "attempt", c->iAttempt);
  if (c->azRepairOf[0]) cJSON_AddStringToObject(pRec, "repair_of", c->azRepairOf);
  if (c->zModel) cJSON_AddStringToObject(pRec, "model", c->zModel);
  cJSON_AddNumberToObject(pRec, "tokens", (double)c->nTokens);
  cJSON_AddNumberToObject(pRec, "requests", c->nRequests);
  if (c->zReply) cJSON_AddStringToObject(pRec, "reply", c->zReply);
}

/* Review one candidate (or take its recorded result) and journal it. */
int eval_cand(loop *L, int iRound, const round_plan *r, const cand *c, outcome *pOut) {
  int rc = KS_OK;
  ks_review_result *pRev = NULL;
  ks_buf diag = KS_BUF_INIT, ptxt = KS_BUF_INIT;
  char *zPath = cand_path(L, c->azHash), *zBase = cand_path(L, L->azBest), *zEv = ev_path(L, c->azHash);
  memset(pOut, 0, sizeof *pOut);
  params_text(c->azParams, c->nParams, &ptxt);
  if (c->iRecorded >= 0) {
    const ks_journal_entry *e = &L->pJ->a[c->iRecorded];
    pOut->zVerdict = ks_strdup(e->zVerdict);
    pOut->rSpeedup = e->bHasSpeedup ? e->rSpeedup : 0;
    ks_journal_entry_number(e, "median_us", &pOut->rUs);
    size_t n;
    if (ks_file_read(zEv, &pOut->zEv, &n) < 0) ks_error_clear();
    char *zTag = params_tag(&ptxt);
    say(L, "round %d: %s%s %s (recorded, not re-evaluated)", iRound, r->pSkill->zId, zTag, pOut->zVerdict);
    free(zTag);
    goto done;
  }
  if ((rc = save_text(zPath, c->zSrc, c->nSrc)) < 0) goto done;
  ks_task t = task_vs_best(L, zBase);
  double rT = ks_clock_now(L->o.pClock);
  if (c->zUnparsed) {
    /* Not compiled: the untrusted-code check could not pass it. */
    pRev = calloc(1, sizeof *pRev);
    if (!pRev || !(pRev->zReason = ks_strdup(KS_UNPARSED_WHY)) ||
        !(pRev->zDetail = ks_strdup(c->zUnparsed))) {
      rc = ks_error_set(KS_ENOMEM, "out of memory");
      goto done;
    }
    pRev->eVerdict = KS_VERDICT_COMPILE_ERROR;
  } else if ((rc = review(L, &t, zPath, &pRev)) < 0) {
    goto done;
  }
  double rSecs = ks_clock_now(L->o.pClock) - rT;
  L->nEvaluated++;
  const char *zVerdict = ks_verdict_name(pRev->eVerdict);
  if (pRev->eVerdict == KS_VERDICT_OK || pRev->eVerdict == KS_VERDICT_COMPILED) zVerdict = "noise";
  cJSON *pRec = new_record("candidate", iRound);
  cJSON_AddStringToObject(pRec, "parent", L->azBest);
  cJSON_AddStringToObject(pRec, "hash", c->azHash);
  cJSON_AddStringToObject(pRec, "skill", r->pSkill->zId);
  if (r->pSkill->zRule) cJSON_AddStringToObject(pRec, "rule", r->pSkill->zRule);
  cJSON_AddStringToObject(pRec, "kernel", r->zKernel);
  cJSON_AddItemToObject(pRec, "params", params_json(c->azParams, c->nParams));
  if (c->zAgent) add_llm_fields(pRec, c);
  add_verdict(pRec, pRev, zVerdict, "parent_us");
  if (pRev->bTimed) {
    cJSON_AddNumberToObject(pRec, "noise_pct", pRev->rNoisePct);
    cJSON_AddNumberToObject(pRec, "threshold_pct", pRev->rThresholdPct);
    cJSON *pProf = ev_profile(pRev->zEvidence, r->zKernel);
    if (pProf) cJSON_AddItemToObject(pRec, "profile", pProf);
    double rRoof = ev_roofline(pRev->zEvidence);
    if (rRoof >= 0) cJSON_AddNumberToObject(pRec, "roofline_pct", rRoof);
  }
  if (!is_correct(zVerdict)) {
    /* Diagnoser, rule path: blame (skill, params) on this parent; the loop reverts. */
    ks_diagnose(pRev, c->zAgent ? "llm" : r->pSkill->zRule, &diag);
    cJSON_AddStringToObject(pRec, "diagnosis", ks_buf_cstr(&diag));
    if (pRev->zDetail) {
      size_t n = strlen(pRev->zDetail);
      char *zCut = fmt("%.*s%s", (int)(n > 2000 ? 2000 : n), pRev->zDetail, n > 2000 ? "..." : "");
      if (zCut) cJSON_AddStringToObject(pRec, "detail", zCut);
      free(zCut);
    }
  }
  cJSON_AddNumberToObject(pRec, "seconds", rSecs);
  cJSON_AddStringToObject(pRec, "source", zPath);
  /* The evidence file first: a record in the journal always has its evidence. */
  if (pRev->zEvidence && (rc = ks_file_write_atomic(zEv, pRev->zEvidence, strlen(pRev->zEvidence))) < 0) {
    cJSON_Delete(pRec);
    goto done;
  }
  if ((rc = record(L, pRec)) < 0) goto done;
  pOut->zVerdict = ks_strdup(zVerdict);
  pOut->rSpeedup = pRev->bTimed ? pRev->rSpeedup : 0;
  pOut->rUs = pRev->bTimed ? pRev->cand.rMedianUs : 0;
  pOut->zEv = pRev->zEvidence ? ks_strdup(pRev->zEvidence) : NULL;
  char *zTag = params_tag(&ptxt);
  if (pRev->bTimed)
    say(L, "round %d: %s%s %s %.3fx vs best (%.2f us) in %.1f s", iRound, r->pSkill->zId, zTag, zVerdict,
        pRev->rSpeedup, pRev->cand.rMedianUs, rSecs);
  else
    say(L, "round %d: %s%s %s in %.1f s: %s", iRound, r->pSkill->zId, zTag, zVerdict, rSecs,
        diag.n ? ks_buf_cstr(&diag) : (pRev->zReason ? pRev->zReason : ""));
  free(zTag);
done:
  ks_review_result_free(pRev);
  ks_buf_free(&diag);
  ks_buf_free(&ptxt);
  free(zPath);
  free(zBase);
  free(zEv);
  return rc;
}

static int write_refusals(loop *L, int iRound, const round_plan *r) {
  int rc = KS_OK;
  for (int i = 0; rc == KS_OK && i < r->nRef; i++) {
    cJSON *pRec = new_record("candidate", iRound);
    cJSON_AddStringToObject(pRec, "parent", L->azBest);
    cJSON_AddStringToObject(pRec, "skill", r->aRef[i].pSkill->zId);
    if (r->aRef[i].pSkill->zRule) cJSON_AddStringToObject(pRec, "rule", r->aRef[i].pSkill->zRule);
    cJSON_AddStringToObject(pRec, "verdict", "refused");
    cJSON_AddStringToObject(pRec, "reason", r->aRef[i].zWhy);
    rc = record(L, pRec);
  }
  return rc;
}

static int run_round(loop *L, int iRound, int *pbStop, char **pzStop) {
  int rc = KS_OK;
  round_plan r;
  outcome *aOut = NULL;
  char *zForce = NULL, *zForceKernel = NULL;
  double rT = ks_clock_now(L->o.pClock);
  /* A round whose plan is journaled but not its decision: a run killed mid-round. */
  int iPlan = ks_journal_find(L->pJ, "plan", iRound, NULL);
  if (iPlan >= 0) {
    zForce = ks_journal_entry_string(&L->pJ->a[iPlan], "chosen");
    zForceKernel = ks_journal_entry_string(&L->pJ->a[iPlan], "kernel");
    L->zResumeTuning = ks_journal_entry_member(&L->pJ->a[iPlan], "tuning"); /* the first guess it planned */
    say(L, "round %d: resuming %s", iRound, zForce ? zForce : "?");
  }
  rc = plan_round(L, iRound, zForce, zForceKernel, 0, &r);
  free(L->zResumeTuning);
  L->zResumeTuning = NULL;
  if (rc < 0) goto done;
  if (iPlan < 0 && (rc = write_refusals(L, iRound, &r)) < 0) goto done;
  if (!r.pSkill) {
    *pbStop = 1;
    *pzStop = fmt("no skill left to try");
    goto done;
  }
  if (iPlan < 0) {
    cJSON *pRec = new_record("plan", iRound);
    cJSON_AddStringToObject(pRec, "parent", L->azBest);
    cJSON_AddStringToObject(pRec, "kernel", r.zKernel);
    cJSON_AddStringToObject(pRec, "class", r.zClass ? r.zClass : "");
    cJSON_AddItemToObject(pRec, "ranked", r.pRanked ? r.pRanked : cJSON_CreateArray());
    r.pRanked = NULL;
    cJSON_AddStringToObject(pRec, "chosen", r.pSkill->zId);
    if (r.pSkill->zRule) cJSON_AddStringToObject(pRec, "rule", r.pSkill->zRule);
    if (r.bLlm) cJSON_AddStringToObject(pRec, "agent", "optimizer");
    tune_plan_json(&r, pRec);
    cJSON *pSweep = cJSON_AddArrayToObject(pRec, "sweep");
    for (int i = 0; i < r.nCand; i++) {
      cJSON *pO = cJSON_CreateObject();
      cJSON_AddItemToObject(pO, "params", params_json(r.aCand[i].azParams, r.aCand[i].nParams));
      cJSON_AddStringToObject(pO, "hash", r.aCand[i].azHash);
      cJSON_AddItemToArray(pSweep, pO);
    }
    if ((rc = record(L, pRec)) < 0) goto done;
  }
  int iWin = -1;
  if (r.bLlm) {
    say(L, "round %d/%d: %s on %s (guidance only: the LLM Optimizer)", iRound, L->o.nRounds, r.pSkill->zId,
        r.zKernel);
    if ((rc = llm_branch(L, iRound, &r, &aOut)) < 0) goto done;
  } else {
    say(L, "round %d/%d: %s on %s (rule %s, %d candidate%s)", iRound, L->o.nRounds, r.pSkill->zId, r.zKernel,
        r.pSkill->zRule, r.nCand, r.nCand == 1 ? "" : "s");
    if (r.zFirst)
      say(L, "round %d: first guess %s=%s from the tuning memory (%s)", iRound, r.zTuneParam, r.zFirst,
          r.zFirstFrom ? r.zFirstFrom : "?");
    aOut = calloc((size_t)r.nCand + 1, sizeof *aOut);
    if (!aOut) {
      rc = ks_error_set(KS_ENOMEM, "out of memory");
      goto done;
    }
    for (int i = 0; i < r.nCand; i++)
      if ((rc = eval_cand(L, iRound, &r, &r.aCand[i], &aOut[i])) < 0) goto done;
  }
  for (int i = 0; i < r.nCand; i++) {
    if (aOut[i].zVerdict && !strcmp(aOut[i].zVerdict, "accepted") &&
        (iWin < 0 || aOut[i].rSpeedup > aOut[iWin].rSpeedup))
      iWin = i;
  }
  /* Decision. */
  cJSON *pRec = new_record("decision", iRound);
  cJSON_AddStringToObject(pRec, "parent", L->azBest);
  cJSON_AddStringToObject(pRec, "skill", r.pSkill->zId);
  if (r.pSkill->zRule) cJSON_AddStringToObject(pRec, "rule", r.pSkill->zRule);
  if (r.bLlm) cJSON_AddStringToObject(pRec, "agent", "optimizer");
  cJSON_AddStringToObject(pRec, "kernel", r.zKernel);
  ks_buf ptxt = KS_BUF_INIT;
  if (iWin >= 0) {
    const cand *c = &r.aCand[iWin];
    char *zEvText = evidence_text(r.pSkill, r.zKernel, L->zBestEv, aOut[iWin].zEv, L->rBestUs, aOut[iWin].rUs,
                                  aOut[iWin].rSpeedup);
    L->rTotal *= aOut[iWin].rSpeedup;
    cJSON_AddStringToObject(pRec, "verdict", "accepted");
    cJSON_AddStringToObject(pRec, "best", c->azHash);
    cJSON_AddItemToObject(pRec, "params", params_json(c->azParams, c->nParams));
    cJSON_AddNumberToObject(pRec, "speedup", aOut[iWin].rSpeedup);
    cJSON_AddNumberToObject(pRec, "best_us", aOut[iWin].rUs);
    cJSON_AddNumberToObject(pRec, "total_speedup", L->rTotal);
    cJSON_AddStringToObject(pRec, "evidence", zEvText ? zEvText : "");
    params_text(c->azParams, c->nParams, &ptxt);
    free(zEvText);
  } else {
    cJSON_AddStringToObject(pRec, "verdict", "kept");
    cJSON_AddStringToObject(pRec, "best", L->azBest);
    cJSON_AddNumberToObject(pRec, "best_us", L->rBestUs);
    cJSON_AddNumberToObject(pRec, "total_speedup", L->rTotal);
    cJSON_AddStringToObject(pRec, "reason", "no candidate correct and faster than the best beyond the noise");
  }
  cJSON_AddNumberToObject(pRec, "seconds", ks_clock_now(L->o.pClock) - rT);
  if ((rc = record(L, pRec)) < 0) {
    ks_buf_free(&ptxt);
    goto done;
  }
  L->iRound = iRound;
  if (iWin >= 0) {
    tune_record(L, &r, aOut, iWin);
    char zHash[17];
    memcpy(zHash, r.aCand[iWin].azHash, 17);
    if ((rc = load_best(L, zHash)) < 0) {
      ks_buf_free(&ptxt);
      goto done;
    }
    L->rBestUs = aOut[iWin].rUs;
    char *zTag = params_tag(&ptxt);
    say(L, "round %d: accepted %s%s %.3fx; best so far %.2f us, %.2fx vs seed", iRound, r.pSkill->zId, zTag,
        aOut[iWin].rSpeedup, L->rBestUs, L->rTotal);
    free(zTag);
    double rRoof = ev_roofline(L->zBestEv);
    if (rRoof >= L->o.rRooflinePct) {
      *pbStop = 1;
      *pzStop = fmt("within %.0f%% of the roofline (%.1f%%)", 100 - L->o.rRooflinePct, rRoof);
    }
  } else {
    say(L, "round %d: nothing accepted; best so far %.2f us, %.2fx vs seed", iRound, L->rBestUs, L->rTotal);
  }
  ks_buf_free(&ptxt);
done:
  for (int i = 0; aOut && i < r.nCand; i++) {
    free(aOut[i].zVerdict);
    free(aOut[i].zEv);
  }
  free(aOut);
  round_plan_free(&r);
  free(zForce);
  free(zForceKernel);
  return rc;
}

/* ---- the closing review and outputs --------------------------------------- */

/* The best source with every accepted change's evidence and gain in its
 * provenance comment, written as zOutDir/<source name>. */
static int write_best(loop *L, char **pzPath) {
  int rc = KS_OK;
  char *zSrc = ks_strdup(L->zBestSrc);
  if (!zSrc) return KS_ENOMEM;
  for (int i = 0; rc == KS_OK && i < L->pJ->n; i++) {
    const ks_journal_entry *e = &L->pJ->a[i];
    if (strcmp(e->zEvent, "decision") || !e->zVerdict || strcmp(e->zVerdict, "accepted")) continue;
    char *zEv = ks_journal_entry_string(e, "evidence"), *zNew = NULL;
    rc = ks_loop_annotate(zSrc, e->zSkill, e->zRule ? e->zRule : "llm", e->iRound, zEv, &zNew);
    free(zEv);
    if (rc == KS_OK) {
      free(zSrc);
      zSrc = zNew;
    }
  }
  char *zPath = ks_path_join(L->o.zOutDir, base_name(L->pTask->zSource));
  if (rc == KS_OK) rc = zPath ? ks_file_write_atomic(zPath, zSrc, strlen(zSrc)) : KS_ENOMEM;
  free(zSrc);
  if (rc == KS_OK) *pzPath = zPath;
  else free(zPath);
  return rc;
}

static int finish(loop *L, const char *zStop) {
  int rc = KS_OK;
  ks_loop_result *R = L->pRes;
  ks_review_result *pRev = NULL;
  if (ks_journal_find(L->pJ, "stop", -1, NULL) < 0) {
    cJSON *pRec = new_record("stop", L->iRound);
    cJSON_AddStringToObject(pRec, "reason", zStop);
    cJSON_AddStringToObject(pRec, "best", L->azBest);
    if ((rc = record(L, pRec)) < 0) return rc;
  }
  int iStop = ks_journal_find(L->pJ, "stop", -1, NULL);
  R->zStop = ks_strdup(L->pJ->a[iStop].zReason ? L->pJ->a[iStop].zReason : zStop);
  if ((rc = write_best(L, &R->zBestPath)) < 0) return rc;
  memcpy(R->azBestHash, L->azBest, 17);
  R->rBestUs = L->rBestUs;
  R->rSpeedup = L->rTotal;
  R->bFinalPassed = 1;
  if (strcmp(L->azBest, L->azSeed) != 0 && !L->o.bNoFinal) {
    int iFinal = ks_journal_find(L->pJ, "final", -1, L->azBest);
    if (iFinal >= 0) {
      const ks_journal_entry *e = &L->pJ->a[iFinal];
      R->bFinalPassed = is_correct(e->zVerdict);
      if (e->bHasSpeedup) R->rSpeedup = e->rSpeedup;
    } else {
      say(L, "closing review: %s against the seed", R->zBestPath);
      double rT = ks_clock_now(L->o.pClock);
      if ((rc = review(L, L->pTask, R->zBestPath, &pRev)) < 0) return rc;
      /* Its evidence first (as for candidates): `optimize --commit` stores it. */
      char *zFinalEv = fmt("%s/final-%s.json", L->zEvDir, L->azBest);
      if (!zFinalEv) rc = KS_ENOMEM;
      else if (pRev->zEvidence) rc = ks_file_write_atomic(zFinalEv, pRev->zEvidence, strlen(pRev->zEvidence));
      free(zFinalEv);
      if (rc < 0) {
        ks_review_result_free(pRev);
        return rc;
      }
      const char *zV = ks_verdict_name(pRev->eVerdict);
      cJSON *pRec = new_record("final", L->iRound);
      cJSON_AddStringToObject(pRec, "hash", L->azBest);
      add_verdict(pRec, pRev, zV, "seed_us");
      if (pRev->bTimed) R->rSpeedup = pRev->rSpeedup;
      cJSON_AddNumberToObject(pRec, "seconds", ks_clock_now(L->o.pClock) - rT);
      R->bFinalPassed = is_correct(zV);
      say(L, "closing review: %s%s%s", zV, pRev->zReason ? ": " : "", pRev->zReason ? pRev->zReason : "");
      ks_review_result_free(pRev);
      if ((rc = record(L, pRec)) < 0) return rc;
    }
  }
  return ks_report_write(L->o.zOutDir);
}

/* ---- the entry point ------------------------------------------------------ */

/* The skill set the options name and the seed's parse (reparsed per
 * candidate): what both the loop and its dry run plan with. */
int load_skills_and_seed(loop *L) {
  ks_skills_opts so = KS_SKILLS_OPTS_INIT;
  so.azDirs = L->o.azSkillDirs;
  so.nDirs = L->o.nSkillDirs;
  int rc = ks_skills_load(&so, &L->pSet);
  if (rc < 0) return rc;
  ks_parse_opts po = KS_PARSE_OPTS_INIT;
  po.bReparse = 1;
  return ks_tu_parse(L->pTask->zSource, &po, &L->pTu);
}

void ks_loop_result_free(ks_loop_result *p) {
  if (!p) return;
  free(p->zAccepted);
  free(p->zStop);
  free(p->zDiagnosis);
  free(p->zBestPath);
  free(p);
}

/* The state after the journal's records: seed, best, last finished round. */
static int replay(loop *L) {
  int iStart = ks_journal_find(L->pJ, "start", -1, NULL);
  if (iStart < 0)
    return ks_error_set(KS_EINVAL, "%s: no \"start\" record: not a kernelskill optimize journal", L->zJournal);
  char *zTask = ks_journal_entry_string(&L->pJ->a[iStart], "task");
  char *zSeed = ks_journal_entry_string(&L->pJ->a[iStart], "seed");
  int rc = KS_OK;
  if (!zTask || strcmp(zTask, L->pTask->zName) != 0)
    rc = ks_error_set(KS_EINVAL, "%s: this run is of task '%s', not '%s'", L->zJournal, zTask ? zTask : "?",
                      L->pTask->zName);
  else if (!zSeed || strcmp(zSeed, L->azSeed) != 0)
    rc = ks_error_set(KS_EINVAL, "%s: the task's source changed since this run started (hash %s, journal %s)",
                      L->pTask->zSource, L->azSeed, zSeed ? zSeed : "?");
  if (rc == KS_OK && L->o.nRounds <= 0) {
    double r = 0;
    L->o.nRounds = ks_journal_entry_number(&L->pJ->a[iStart], "rounds", &r) == KS_OK ? (int)r : 15;
  }
  free(zTask);
  free(zSeed);
  if (rc < 0) return rc;
  int iRev = ks_journal_find(L->pJ, "review", 0, NULL);
  if (iRev >= 0) {
    ks_journal_entry_number(&L->pJ->a[iRev], "median_us", &L->rSeedUs);
    L->rBestUs = L->rSeedUs;
  }
  for (int i = 0; i < L->pJ->n; i++) {
    const ks_journal_entry *e = &L->pJ->a[i];
    if (strcmp(e->zEvent, "decision") != 0) continue;
    if (e->iRound > L->iRound) L->iRound = e->iRound;
    if (!e->zVerdict || strcmp(e->zVerdict, "accepted") != 0) continue;
    char *zBest = ks_journal_entry_string(e, "best");
    if (!zBest) return ks_error_set(KS_EINVAL, "%s:%d: accepted decision without \"best\"", L->zJournal, e->iLine);
    memcpy(L->azBest, zBest, strlen(zBest) < 17 ? strlen(zBest) + 1 : 17);
    L->azBest[16] = 0;
    free(zBest);
    ks_journal_entry_number(e, "best_us", &L->rBestUs);
    ks_journal_entry_number(e, "total_speedup", &L->rTotal);
  }
  return KS_OK;
}

int ks_loop_run(const ks_task *pTask, const ks_loop_opts *pOpts, ks_loop_result **ppRes) {
  if (pOpts && pOpts->version != KS_LOOP_OPTS_VERSION)
    return ks_error_set(KS_EUSAGE, "ks_loop_opts: unsupported version %u", pOpts->version);
  loop L;
  int rc = KS_OK;
  char *zSeedSrc = NULL, *zStop = NULL;
  size_t nSeedSrc = 0;
  memset(&L, 0, sizeof L);
  *ppRes = NULL;
  L.pTask = pTask;
  L.o = *pOpts;
  L.rTotal = 1.0;
  if (L.o.nSweep <= 0) L.o.nSweep = 3;
  if (L.o.rRooflinePct <= 0) L.o.rRooflinePct = 95;
  if (!L.o.zOutDir) return ks_error_set(KS_EUSAGE, "no output folder given");
  L.zJournal = ks_path_join(L.o.zOutDir, "journal.jsonl");
  L.zCandDir = ks_path_join(L.o.zOutDir, "candidates");
  L.zEvDir = ks_path_join(L.o.zOutDir, "evidence");
  L.zRefCache = ks_path_join(L.o.zOutDir, "refcache");
  L.pRes = calloc(1, sizeof *L.pRes);
  if (!L.zJournal || !L.zCandDir || !L.zEvDir || !L.pRes) {
    rc = ks_error_set(KS_ENOMEM, "out of memory");
    goto done;
  }
  int bHasJournal = ks_file_exists(L.zJournal);
  if (L.o.bResume && !bHasJournal) {
    rc = ks_error_set(KS_EUSAGE, "--resume: no journal in %s", L.o.zOutDir);
    goto done;
  }
  if (!L.o.bResume && bHasJournal) {
    rc = ks_error_set(KS_EUSAGE, "%s already holds a run: continue it with --resume, or choose another --out",
                      L.o.zOutDir);
    goto done;
  }
  if (!pTask->zSource) {
    /* Only a spec: the Generator's seed (after the GPU check: nothing is
     * asked or written without one). */
    char *zGen = NULL;
    if ((rc = journal_reload(&L)) < 0) goto done;
    if (!L.o.xReview && (rc = ks_review_probe_gpu()) < 0) goto done;
    if ((rc = seed_from_spec(&L, &zGen)) < 0) goto done;
    L.gen = *pTask;
    L.gen.zSource = zGen;
    L.pTask = pTask = &L.gen;
    free(L.zEntryDecl);
    L.zEntryDecl = NULL;
  }
  if ((rc = ks_file_read(pTask->zSource, &zSeedSrc, &nSeedSrc)) < 0) goto done;
  ks_journal_hash(zSeedSrc, nSeedSrc, "", L.azSeed);
  memcpy(L.azBest, L.azSeed, 17);
  if ((rc = journal_reload(&L)) < 0) goto done;
  if (L.o.bResume) {
    if ((rc = replay(&L)) < 0) goto done;
  } else if (L.o.nRounds <= 0) {
    L.o.nRounds = 15;
  }
  /* Nothing is written before the GPU is known to be there. */
  int bNeedGpu = ks_journal_find(L.pJ, "stop", -1, NULL) < 0 || ks_journal_find(L.pJ, "final", -1, NULL) < 0;
  if (bNeedGpu && !L.o.xReview && (rc = ks_review_probe_gpu()) < 0) goto done;
  if (L.o.bResume && ks_journal_find(L.pJ, "stop", -1, NULL) >= 0)
    say(&L, "the run in %s had stopped: finishing it", L.o.zOutDir);
  else if (L.o.bResume)
    say(&L, "resuming %s after round %d", L.o.zOutDir, L.iRound);

  if ((rc = load_skills_and_seed(&L)) < 0) goto done;
  if (L.o.pLlm) {
    /* LLM code must keep the seed's entry exactly. */
    if (ks_llm_function_type(L.pTu, pTask->zEntry, &L.zEntryType) < 0) ks_error_clear();
    if ((rc = ks_agent_entry_decl(pTask, L.zEntryType, &L.zEntryDecl)) < 0) goto done;
  }

  if ((rc = ks_dir_make(L.zCandDir)) < 0 || (rc = ks_dir_make(L.zEvDir)) < 0) goto done;
  char *zSeedCopy = cand_path(&L, L.azSeed);
  rc = save_text(zSeedCopy, zSeedSrc, nSeedSrc);
  free(zSeedCopy);
  if (rc < 0) goto done;
  if (ks_journal_find(L.pJ, "start", -1, NULL) < 0) {
    cJSON *pRec = new_record("start", 0);
    cJSON_AddStringToObject(pRec, "task", pTask->zName);
    cJSON_AddStringToObject(pRec, "task_path", pTask->zPath);
    cJSON_AddStringToObject(pRec, "source", pTask->zSource);
    cJSON_AddStringToObject(pRec, "seed", L.azSeed);
    if (L.gen.zSource) cJSON_AddBoolToObject(pRec, "generated", 1);
    cJSON_AddNumberToObject(pRec, "rounds", L.o.nRounds);
    cJSON_AddNumberToObject(pRec, "time", (double)time(NULL));
    cJSON_AddStringToObject(pRec, "version", KS_VERSION_STRING);
    if ((rc = record(&L, pRec)) < 0) goto done;
  }
  if ((rc = load_best(&L, L.azBest)) < 0) goto done;

  /* Round 0. */
  int iRev = ks_journal_find(L.pJ, "review", 0, NULL);
  if (iRev < 0) {
    if ((rc = round0(&L)) < 0) goto done;
  } else if (!is_correct(L.pJ->a[iRev].zVerdict)) {
    L.pRes->eStatus = KS_LOOP_SEED_FAILED;
    L.pRes->zDiagnosis = ks_journal_entry_string(&L.pJ->a[iRev], "diagnosis");
  }
  if (L.pRes->eStatus == KS_LOOP_SEED_FAILED) {
    say(&L, "the seed fails: %s", L.pRes->zDiagnosis ? L.pRes->zDiagnosis : "?");
    rc = ks_report_write(L.o.zOutDir);
    goto done;
  }

  int bStop = ks_journal_find(L.pJ, "stop", -1, NULL) >= 0;
  if (!bStop && L.iRound == 0) {
    double rRoof = ev_roofline(L.zBestEv);
    if (rRoof >= L.o.rRooflinePct) {
      bStop = 1;
      zStop = fmt("the seed is within %.0f%% of the roofline (%.1f%%)", 100 - L.o.rRooflinePct, rRoof);
    }
  }
  while (!bStop) {
    if (L.iRound >= L.o.nRounds) {
      zStop = fmt("round budget spent (%d)", L.o.nRounds);
      break;
    }
    if ((rc = run_round(&L, L.iRound + 1, &bStop, &zStop)) < 0) goto done;
  }
  if ((rc = finish(&L, zStop ? zStop : "")) < 0) goto done;
  say(&L, "done: %s; best %s (%.2fx vs seed)%s", L.pRes->zStop, L.pRes->zBestPath, L.pRes->rSpeedup,
      L.pRes->bFinalPassed ? "" : " — the closing review FAILED");

done:
  if (L.pRes) {
    ks_buf acc = KS_BUF_INIT;
    for (int i = 0; L.pJ && i < L.pJ->n; i++) {
      const ks_journal_entry *e = &L.pJ->a[i];
      if (!strcmp(e->zEvent, "decision")) {
        L.pRes->nRounds++;
        if (e->zVerdict && !strcmp(e->zVerdict, "accepted")) {
          ks_buf_printf(&acc, "%s%s", L.pRes->nAccepted ? ", " : "", e->zSkill);
          L.pRes->nAccepted++;
        }
      }
    }
    L.pRes->zAccepted = ks_buf_detach(&acc);
    if (!L.pRes->zAccepted) L.pRes->zAccepted = ks_strdup("");
    memcpy(L.pRes->azSeedHash, L.azSeed, 17);
    L.pRes->rSeedUs = L.rSeedUs;
  }
  if (rc == KS_OK) {
    *ppRes = L.pRes;
    L.pRes = NULL;
  }
  ks_loop_result_free(L.pRes);
  free(zSeedSrc);
  free(zStop);
  free(L.zJournal);
  free(L.zCandDir);
  free(L.zEvDir);
  /* Gigabytes of outputs at the suite's sizes: gone with the run (a resumed
   * run rebuilds them once). */
  if (L.zRefCache && !getenv("KS_KEEP_WORK")) ks_dir_remove_tree(L.zRefCache);
  free(L.zRefCache);
  free(L.zBestSrc);
  free(L.zBestEv);
  ks_journal_free(L.pJ);
  ks_skills_free(L.pSet);
  ks_tu_free(L.pTu);
  free(L.zEntryType);
  free(L.zEntryDecl);
  ks_review_result_free(L.pSeedRev);
  free(L.gen.zSource);
  return rc;
}

int ks_loop_result_json(const ks_task *pTask, const ks_loop_result *p, const char *zOutDir, ks_buf *pOut) {
  cJSON *pO = cJSON_CreateObject();
  if (!pO) return ks_error_set(KS_ENOMEM, "out of memory");
  cJSON_AddNumberToObject(pO, "ks_optimize", 1);
  cJSON_AddStringToObject(pO, "task", pTask->zName);
  cJSON_AddStringToObject(pO, "out", zOutDir ? zOutDir : "");
  cJSON_AddStringToObject(pO, "status", p->eStatus == KS_LOOP_SEED_FAILED ? "seed_failed" : "done");
  if (p->zDiagnosis) cJSON_AddStringToObject(pO, "diagnosis", p->zDiagnosis);
  cJSON_AddStringToObject(pO, "seed_hash", p->azSeedHash);
  cJSON_AddStringToObject(pO, "best_hash", p->azBestHash[0] ? p->azBestHash : p->azSeedHash);
  if (p->zBestPath) cJSON_AddStringToObject(pO, "best", p->zBestPath);
  cJSON_AddNumberToObject(pO, "seed_us", p->rSeedUs);
  cJSON_AddNumberToObject(pO, "best_us", p->rBestUs);
  cJSON_AddNumberToObject(pO, "speedup", p->rSpeedup);
  cJSON_AddBoolToObject(pO, "passed", p->eStatus == KS_LOOP_DONE && p->bFinalPassed);
  cJSON_AddNumberToObject(pO, "rounds", p->nRounds);
  cJSON_AddNumberToObject(pO, "accepted", p->nAccepted);
  cJSON_AddStringToObject(pO, "skills", p->zAccepted ? p->zAccepted : "");
  if (p->zStop) cJSON_AddStringToObject(pO, "stop", p->zStop);
  int rc = ks_buf_json(pOut, pO);
  cJSON_Delete(pO);
  return rc;
}
