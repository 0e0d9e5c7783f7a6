/* loop.c — the agent loop of `kernelskill optimize` (docs/optimize.md).
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

/* ---- small helpers -------------------------------------------------------- */

#define fmt ks_mprintf /* short: used on most lines that build a path or message */

static const char *base_name(const char *zPath) {
  const char *z = strrchr(zPath, '/');
  return z ? z + 1 : zPath;
}

static double json_num(const cJSON *p, const char *zKey, double rDefault) {
  const cJSON *q = cJSON_GetObjectItemCaseSensitive(p, zKey);
  return cJSON_IsNumber(q) ? q->valuedouble : rDefault;
}

/* ---- sweeps --------------------------------------------------------------- */

/* A parameterized rule is tried at a few values inside one round; the best
 * correct one wins. bOnlyIfGiven: sweep this parameter only when the skill
 * sets it (smem-tile-gemm sweeps regs for register blocking, tile otherwise). */
typedef struct sweep_def {
  const char *zRule, *zParam;
  const char *azValues[4];
  int bOnlyIfGiven;
} sweep_def;

static const sweep_def aSweep[] = {{"block-size", "threads", {"128", "256", "512", 0}, 0},
                                   {"coarsen", "factor", {"2", "4", "8", 0}, 0},
                                   {"smem-tile-gemm", "regs", {"2", "4", "8", 0}, 1},
                                   {"smem-tile-gemm", "tile", {"16", "32", 0, 0}, 0},
                                   {"unroll", "factor", {"4", "8", 0, 0}, 1},
                                   {"row-reduce", "threads", {"256", "512", "128", 0}, 0},
                                   {0, 0, {0}, 0}};

static int param_is(const char *zKV, const char *zName) {
  size_t n = strlen(zName);
  return strncmp(zKV, zName, n) == 0 && zKV[n] == '=';
}

void ks_loop_sweep_free(char ***azSets, int *anParams, int nSets) {
  for (int i = 0; azSets && i < nSets; i++) {
    for (int k = 0; azSets[i] && k < anParams[i]; k++) free(azSets[i][k]);
    free(azSets[i]);
  }
  free(azSets);
  free(anParams);
}

int ks_loop_sweep(const char *zRule, const char *const *azSkillParams, int nSkillParams, int nMax, char ****pazSets,
                  int **panParams, int *pnSets) {
  const sweep_def *d = NULL;
  const char *zOwn = NULL;
  if (nMax < 1) nMax = 1;
  for (int i = 0; zRule && aSweep[i].zRule && !d; i++) {
    if (strcmp(aSweep[i].zRule, zRule) != 0) continue;
    const char *zGiven = NULL;
    for (int k = 0; k < nSkillParams; k++)
      if (param_is(azSkillParams[k], aSweep[i].zParam)) zGiven = azSkillParams[k] + strlen(aSweep[i].zParam) + 1;
    if (aSweep[i].bOnlyIfGiven && !zGiven) continue;
    d = &aSweep[i];
    zOwn = zGiven;
  }
  /* The values: the skill's own first, then the table's, no duplicates. */
  const char *azVal[8];
  int nVal = 0;
  if (!d) {
    azVal[nVal++] = NULL; /* one set: the skill's parameters as they are */
  } else {
    if (zOwn) azVal[nVal++] = zOwn;
    for (int i = 0; d->azValues[i] && nVal < 8; i++)
      if (!zOwn || strcmp(zOwn, d->azValues[i]) != 0) azVal[nVal++] = d->azValues[i];
  }
  if (nVal > nMax) nVal = nMax;
  char ***azSets = calloc((size_t)nVal, sizeof *azSets);
  int *anParams = calloc((size_t)nVal, sizeof *anParams);
  if (!azSets || !anParams) {
    free(azSets);
    free(anParams);
    return ks_error_set(KS_ENOMEM, "out of memory");
  }
  for (int s = 0; s < nVal; s++) {
    azSets[s] = calloc((size_t)nSkillParams + 1, sizeof(char *));
    if (!azSets[s]) goto oom;
    int n = 0, bSet = 0;
    for (int k = 0; k < nSkillParams; k++) {
      if (d && azVal[s] && param_is(azSkillParams[k], d->zParam)) {
        azSets[s][n] = fmt("%s=%s", d->zParam, azVal[s]);
        bSet = 1;
      } else {
        azSets[s][n] = ks_strdup(azSkillParams[k]);
      }
      if (!azSets[s][n++]) goto oom;
      anParams[s] = n;
    }
    if (d && azVal[s] && !bSet) {
      if (!(azSets[s][n++] = fmt("%s=%s", d->zParam, azVal[s]))) goto oom;
    }
    anParams[s] = n;
  }
  *pazSets = azSets;
  *panParams = anParams;
  *pnSets = nVal;
  return KS_OK;
oom:
  ks_loop_sweep_free(azSets, anParams, nVal);
  return ks_error_set(KS_ENOMEM, "out of memory");
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

typedef struct loop {
  const ks_task *pTask;
  ks_loop_opts o;
  char *zJournal, *zCandDir, *zEvDir;
  char *zRefCache; /* the reference's outputs, reused by every review of the run */
  ks_skillset *pSet;
  ks_tu *pTu;
  ks_journal *pJ;
  char azSeed[17], azBest[17];
  char *zBestSrc;
  size_t nBestSrc;
  char *zBestEv; /* evidence JSON of the best (its last review), or NULL */
  double rSeedUs, rBestUs, rTotal;
  int iRound;    /* last finished round */
  int nEvaluated;
  ks_loop_result *pRes;
  char *zEntryType;  /* the entry's canonical type (from the seed): LLM code keeps it */
  char *zEntryDecl;  /* the same as a declaration, for prompts */
  ks_review_result *pSeedRev; /* the generated seed's review, reused by round 0 */
  ks_task gen;       /* the task with the generated seed as its source */
} loop;

static void say(loop *L, const char *zFmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void say(loop *L, const char *zFmt, ...) {
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
static int record(loop *L, cJSON *pObj) {
  char *z = pObj ? cJSON_PrintUnformatted(pObj) : NULL;
  cJSON_Delete(pObj);
  if (!z) return ks_error_set(KS_ENOMEM, "out of memory");
  int rc = ks_journal_append(L->zJournal, z);
  free(z);
  return rc < 0 ? rc : journal_reload(L);
}

static cJSON *new_record(const char *zEvent, int iRound) {
  cJSON *p = cJSON_CreateObject();
  if (!p) return NULL;
  cJSON_AddNumberToObject(p, "ks_journal", KS_JOURNAL_FORMAT);
  cJSON_AddStringToObject(p, "event", zEvent);
  cJSON_AddNumberToObject(p, "round", iRound);
  return p;
}

static cJSON *params_json(char *const *az, int n) {
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

static void params_text(char *const *az, int n, ks_buf *pOut) {
  for (int i = 0; i < n; i++) ks_buf_printf(pOut, "%s%s", i ? "," : "", az[i]);
}

/* " [k=v,...]" for progress lines, "" without parameters. */
static char *params_tag(const ks_buf *p) { return p->n ? fmt(" [%s]", p->z) : ks_strdup(""); }

static char *cand_path(loop *L, const char *zHash) { return fmt("%s/%s.cu", L->zCandDir, zHash); }
static char *ev_path(loop *L, const char *zHash) { return fmt("%s/%s.json", L->zEvDir, zHash); }

/* The review, through the options' function or the real Reviewer. */
static int review(loop *L, const ks_task *pTask, const char *zCandidate, ks_review_result **ppRes) {
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
static cJSON *ev_profile(const char *zEv, const char *zKernel) {
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

/* ---- planning one round --------------------------------------------------- */

typedef struct cand {
  char **azParams;
  int nParams;
  char azHash[17];
  char *zSrc;
  size_t nSrc;
  int iRecorded;     /* index of its journal record (resume), or -1 */
  /* LLM candidates: which agent wrote it, and at what cost. */
  const char *zAgent; /* "optimizer", "diagnoser" or NULL (a rule's) */
  int iAttempt;
  char azRepairOf[17];
  long nTokens;
  int nRequests;
  char *zModel, *zReply;
} cand;

typedef struct refusal {
  const ks_skill *pSkill;
  char *zWhy;
} refusal;

typedef struct round_plan {
  char *zKernel;
  const ks_skill *pSkill;
  cand *aCand;
  int nCand;
  refusal *aRef;
  int nRef;
  cJSON *pRanked;    /* [{"skill","rank","why"}] of the chosen kernel's plan */
  char *zClass;
  char *zPlanText;   /* the planner's text report (dry run) */
  int nSkipped;      /* candidates skipped: evaluated before */
  int bLlm;          /* the chosen skill goes to the LLM Optimizer */
  char **azKernels;  /* the best's kernels (what LLM code must keep) */
  int nKernels;
  char *zEvidence;   /* the chosen kernel's features and profile, for the Optimizer */
} round_plan;

static void round_plan_free(round_plan *r) {
  for (int i = 0; i < r->nCand; i++) {
    for (int k = 0; k < r->aCand[i].nParams; k++) free(r->aCand[i].azParams[k]);
    free(r->aCand[i].azParams);
    free(r->aCand[i].zSrc);
    free(r->aCand[i].zModel);
    free(r->aCand[i].zReply);
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

static int allow_libs(const ks_task *pTask, ks_evidence *pEv) {
  ks_value v = {KS_VAL_BOOL, 1, 0, NULL};
  int rc = KS_OK;
  for (int i = 0; rc == KS_OK && i < pTask->nLib; i++) {
    const char *z = pTask->azLib[i];
    if (!strcmp(z, "cublas") || !strcmp(z, "cublasLt") || !strcmp(z, "cublaslt"))
      rc = ks_evidence_set(pEv, "task.allows_cublas", &v, "task allows cublas");
    else if (!strcmp(z, "cub"))
      rc = ks_evidence_set(pEv, "task.allows_cub", &v, "task allows cub");
  }
  return rc;
}

/* Is zHash the best or one of its ancestors (following accepted decisions)? */
static int is_ancestor(loop *L, const char *zHash) {
  if (!strcmp(zHash, L->azBest) || !strcmp(zHash, L->azSeed)) return 1;
  for (int i = 0; L->pJ && i < L->pJ->n; i++) {
    const ks_journal_entry *e = &L->pJ->a[i];
    if (strcmp(e->zEvent, "decision") || !e->zParent) continue;
    if (!strcmp(e->zParent, zHash)) return 1;
  }
  return 0;
}

/* Try one skill: its rule over the sweep. Adds candidates (new hashes) to r,
 * or returns the reason there are none in *pzWhy (malloc'd). */
static int try_skill(loop *L, const ks_skill *pSkill, const char *zKernel, int iRound, round_plan *r, char **pzWhy) {
  int rc = KS_OK;
  char ***azSets = NULL;
  int *anParams = NULL, nSets = 0;
  *pzWhy = NULL;
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
  rc = ks_loop_sweep(pSkill->zRule, (const char *const *)pSkill->azParams, pSkill->nParams, L->o.nSweep, &azSets,
                     &anParams, &nSets);
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

/* Kernels of the features document, the slowest (by the best's profile) first. */
static int kernel_order(const char *zFeatures, const char *zEv, char ***pazNames, int *pn) {
  cJSON *pDoc = cJSON_Parse(zFeatures), *pK, *pI;
  int n = 0;
  pK = cJSON_GetObjectItemCaseSensitive(pDoc, "kernels");
  char **az = calloc((size_t)cJSON_GetArraySize(pK) + 1, sizeof(char *));
  double *ar = calloc((size_t)cJSON_GetArraySize(pK) + 1, sizeof(double));
  if (!az || !ar) {
    free(az);
    free(ar);
    cJSON_Delete(pDoc);
    return ks_error_set(KS_ENOMEM, "out of memory");
  }
  cJSON_ArrayForEach(pI, pK) {
    cJSON *pName = cJSON_GetObjectItemCaseSensitive(pI, "name");
    if (!cJSON_IsString(pName)) continue;
    cJSON *pProf = ev_profile(zEv, pName->valuestring);
    double r = json_num(pProf, "duration_us", -1);
    cJSON_Delete(pProf);
    int i = n;
    while (i > 0 && ar[i - 1] < r) {
      az[i] = az[i - 1];
      ar[i] = ar[i - 1];
      i--;
    }
    az[i] = ks_strdup(pName->valuestring);
    ar[i] = r;
    n++;
  }
  free(ar);
  cJSON_Delete(pDoc);
  *pazNames = az;
  *pn = n;
  return KS_OK;
}

/* Choose this round's skill and produce its candidates. zForceSkill (a
 * resumed round) takes that skill on that kernel without re-planning. With
 * bDry, the journal is not consulted. r->pSkill NULL: nothing left. */
static int plan_round(loop *L, int iRound, const char *zForceSkill, const char *zForceKernel, int bDry,
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
  if ((rc = kernel_order(ks_buf_cstr(&feat), L->zBestEv, &azKernels, &nKernels)) < 0) goto done;

  if (zForceSkill) {
    const ks_skill *pSkill = ks_skills_find(L->pSet, zForceSkill);
    if (!pSkill) {
      rc = ks_error_set(KS_EINVAL, "%s: round %d planned skill '%s', which is not in the corpus", L->zJournal, iRound,
                        zForceSkill);
      goto done;
    }
    char *zWhy = NULL;
    if ((rc = try_skill(L, pSkill, zForceKernel, iRound, r, &zWhy)) < 0) goto done;
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
    if ((rc = allow_libs(L->pTask, pEv)) < 0 || (rc = ks_evidence_derive(pEv)) < 0) goto kernel_done;
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
      if ((rc = try_skill(L, it->pSkill, zKernel, iRound, r, &zWhy)) < 0) goto kernel_done;
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

static int save_text(const char *zPath, const char *z, size_t n) {
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
  cJSON_AddStringToObject(pRec, "verdict", ks_verdict_name(pRev->eVerdict));
  cJSON_AddStringToObject(pRec, "reason", pRev->zReason ? pRev->zReason : "");
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

typedef struct outcome {
  char *zVerdict;
  double rSpeedup; /* vs the best */
  double rUs;      /* candidate median */
  char *zEv;       /* evidence JSON */
} outcome;

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
static int eval_cand(loop *L, int iRound, const round_plan *r, const cand *c, outcome *pOut) {
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
  if ((rc = review(L, &t, zPath, &pRev)) < 0) goto done;
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
  cJSON_AddStringToObject(pRec, "verdict", zVerdict);
  cJSON_AddStringToObject(pRec, "reason", pRev->zReason ? pRev->zReason : "");
  if (pRev->bTimed) {
    cJSON_AddNumberToObject(pRec, "speedup", pRev->rSpeedup);
    cJSON_AddNumberToObject(pRec, "median_us", pRev->cand.rMedianUs);
    cJSON_AddNumberToObject(pRec, "parent_us", 0.5 * (pRev->seed.rMedianUs + pRev->seed2.rMedianUs));
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

/* ---- the LLM branch of a round -------------------------------------------- */

/* Has a version with this hash been reviewed in this run (refusals aside)? */
static int evaluated(loop *L, const char *zHash) {
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
static int save_reply(loop *L, const char *zStem, const char *zText, char **pzRel) {
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
static int llm_branch(loop *L, int iRound, round_plan *r, outcome **paOut) {
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
    if (ar.eOutcome == KS_AGENT_CODE) {
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
    if (ar.eOutcome != KS_AGENT_CODE || evaluated(L, azHash) || is_ancestor(L, azHash)) {
      char *zWhy = ar.eOutcome != KS_AGENT_CODE ? NULL : fmt("the reply repeats version %s, evaluated before", azHash);
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
    say(L, "round %d: resuming %s", iRound, zForce ? zForce : "?");
  }
  if ((rc = plan_round(L, iRound, zForce, zForceKernel, 0, &r)) < 0) goto done;
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
      cJSON_AddStringToObject(pRec, "verdict", zV);
      cJSON_AddStringToObject(pRec, "reason", pRev->zReason ? pRev->zReason : "");
      if (pRev->bTimed) {
        cJSON_AddNumberToObject(pRec, "speedup", pRev->rSpeedup);
        cJSON_AddNumberToObject(pRec, "median_us", pRev->cand.rMedianUs);
        cJSON_AddNumberToObject(pRec, "seed_us", 0.5 * (pRev->seed.rMedianUs + pRev->seed2.rMedianUs));
        R->rSpeedup = pRev->rSpeedup;
      }
      cJSON_AddNumberToObject(pRec, "seconds", ks_clock_now(L->o.pClock) - rT);
      R->bFinalPassed = is_correct(zV);
      say(L, "closing review: %s%s%s", zV, pRev->zReason ? ": " : "", pRev->zReason ? pRev->zReason : "");
      ks_review_result_free(pRev);
      if ((rc = record(L, pRec)) < 0) return rc;
    }
  }
  return ks_report_write(L->o.zOutDir);
}

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
static int seed_from_spec(loop *L, char **pzPath) {
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
    if (ar.eOutcome != KS_AGENT_CODE) {
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
    if (rc == KS_OK) {
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

/* ---- the entry point ------------------------------------------------------ */

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
  if (L.o.rRooflinePct <= 0) L.o.rRooflinePct = 90;
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

  ks_skills_opts so = KS_SKILLS_OPTS_INIT;
  so.azDirs = L.o.azSkillDirs;
  so.nDirs = L.o.nSkillDirs;
  if ((rc = ks_skills_load(&so, &L.pSet)) < 0) goto done;
  ks_parse_opts po = KS_PARSE_OPTS_INIT;
  po.bReparse = 1;
  if ((rc = ks_tu_parse(pTask->zSource, &po, &L.pTu)) < 0) goto done;
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
  char *z = cJSON_Print(pO);
  cJSON_Delete(pO);
  if (!z) return ks_error_set(KS_ENOMEM, "out of memory");
  int rc = ks_buf_puts(pOut, z);
  if (rc == KS_OK) rc = ks_buf_puts(pOut, "\n");
  free(z);
  return rc;
}

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
  ks_skills_opts so = KS_SKILLS_OPTS_INIT;
  so.azDirs = L.o.azSkillDirs;
  so.nDirs = L.o.nSkillDirs;
  if ((rc = ks_skills_load(&so, &L.pSet)) < 0) goto done;
  ks_parse_opts po = KS_PARSE_OPTS_INIT;
  po.bReparse = 1;
  if ((rc = ks_tu_parse(pTask->zSource, &po, &L.pTu)) < 0) goto done;
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
    char *z = cJSON_Print(pO);
    cJSON_Delete(pO);
    if (!z) {
      rc = ks_error_set(KS_ENOMEM, "out of memory");
      goto done;
    }
    ks_buf_puts(pOut, z);
    ks_buf_puts(pOut, "\n");
    free(z);
  }
done:
  round_plan_free(&r);
  free(L.zBestSrc);
  ks_skills_free(L.pSet);
  ks_tu_free(L.pTu);
  return rc;
}
