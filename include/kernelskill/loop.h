/* kernelskill/loop.h — the agent loop behind `kernelskill optimize`: review the
 * seed, then per round plan from features + profile + journal, apply the chosen
 * skill's rewrite rule (parameter sweeps inside one round), review every
 * candidate against the current best, accept only what is correct and faster
 * beyond the measured noise, and journal every step so a killed run resumes
 * with nothing re-evaluated. The Diagnoser (diagnose.h), the LLM agents
 * (llmagent.h) and the run report (report.h) have their own headers, included
 * here for the loop's callers. With an LLM client:
 * the Optimizer agent for skills with guidance only, the Diagnoser's repairs
 * of its failing candidates, and the Generator's seed for a task that gives
 * only a spec and a reference. docs/optimize.md. */
#ifndef KERNELSKILL_LOOP_H
#define KERNELSKILL_LOOP_H

#include <stdio.h>

#include "kernelskill/common.h"
#include "kernelskill/agents.h"
#include "kernelskill/diagnose.h"
#include "kernelskill/llmagent.h"
#include "kernelskill/report.h"
#include "kernelskill/journal.h"
#include "kernelskill/llm.h"
#include "kernelskill/proc.h"
#include "kernelskill/review.h"
#include "kernelskill/task.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How the loop reviews a version. The CLI always uses ks_review_run; tests
 * pass a function that returns recorded results. pTask->zSource is the
 * version the candidate is compared with (the current best). */
typedef int (*ks_loop_review_fn)(void *pCtx, const ks_task *pTask, const ks_review_opts *pOpts,
                                 ks_review_result **ppRes);

typedef struct ks_loop_opts {
  unsigned version;
  int nRounds;                 /* round budget (default 15) */
  const char *zOutDir;         /* run folder (required by ks_loop_run) */
  int bResume;                 /* continue the run journaled in zOutDir */
  FILE *pLog;                  /* progress lines; NULL: quiet */
  int nRuns;                   /* timed runs per review (0: the Reviewer's default) */
  int nTrials;                 /* correctness trials (0: the task's) */
  double rRooflinePct;         /* stop at or above this share of the roofline (default 95) */
  int nSweep;                  /* most sweep points of a parameterized rule per round (default 3) */
  const char *const *azSkillDirs; /* more skill folders (override built-ins) */
  int nSkillDirs;
  ks_loop_review_fn xReview;   /* NULL: ks_review_run (and the GPU probe) */
  void *pReviewCtx;
  int bNoFinal;                /* skip the closing review of best against the seed */
  ks_llm *pLlm;                /* LLM agents (the caller's client); NULL: offline */
  int nMaxRepairs;             /* Diagnoser repairs per LLM candidate (0: KS_AGENT_MAX_REPAIRS) */
  const ks_clock *pClock;      /* the journal's "seconds"; NULL: the monotonic clock */
  const char *zTuning;         /* the tuning memory (JSON Lines, "tuned" records); NULL: off */
} ks_loop_opts;

#define KS_LOOP_OPTS_VERSION 1
#define KS_LOOP_OPTS_INIT                                                                                   \
  {.version = KS_LOOP_OPTS_VERSION, .nRounds = 15, .zOutDir = 0, .bResume = 0, .pLog = 0, .nRuns = 0,       \
   .nTrials = 0, .rRooflinePct = 95.0, .nSweep = 3, .azSkillDirs = 0, .nSkillDirs = 0, .xReview = 0,         \
   .pReviewCtx = 0, .bNoFinal = 0, .pLlm = 0, .nMaxRepairs = 0, .pClock = 0,     \
   .zTuning = 0}

enum {
  KS_LOOP_DONE = 0,       /* ran to the end; the result is correct (maybe no faster) */
  KS_LOOP_SEED_FAILED = 1 /* the seed failed its review: zDiagnosis says why */
};

typedef struct ks_loop_result {
  int eStatus;
  char azSeedHash[17], azBestHash[17];
  double rSeedUs;       /* median of the seed (round 0) */
  double rBestUs;       /* median of the best at its acceptance (or the seed) */
  double rSpeedup;      /* the closing review's seed/best, else the product of accepted gains */
  int bFinalPassed;     /* the closing review found best correct (1 also when best == seed) */
  int nRounds;          /* rounds that evaluated candidates */
  int nAccepted;
  char *zAccepted;      /* accepted skill ids, "a, b" ("" if none) */
  char *zStop;          /* why the loop stopped */
  char *zDiagnosis;     /* the seed's failure (eStatus == KS_LOOP_SEED_FAILED) */
  char *zBestPath;      /* best source with the provenance comments, in zOutDir */
} ks_loop_result;

/* Run (or with bResume continue) the loop. KS_OK with *ppRes when the loop
 * ran, including a failed seed (eStatus). Errors: KS_EUNAVAIL no GPU (nothing
 * written), KS_EUSAGE a fresh run into a folder that holds a journal, or
 * --resume without one; anything from the parts. */
int ks_loop_run(const ks_task *pTask, const ks_loop_opts *pOpts, ks_loop_result **ppRes);
void ks_loop_result_free(ks_loop_result *p);
/* The result as one JSON object ("ks_optimize": 1). */
int ks_loop_result_json(const ks_task *pTask, const ks_loop_result *p, const char *zOutDir, ks_buf *pOut);

/* Without a GPU: the static plan for the seed and the rewrites the first
 * round would try, as unified diffs (bJson: one JSON document). */
int ks_loop_dry_run(const ks_task *pTask, const ks_loop_opts *pOpts, int bJson, ks_buf *pOut);

/* The sweep a parameterized rule gets: "k=v" parameter sets, the skill's own
 * values first, at most nMax sets. *pazSets is an array of nSets arrays of
 * *pnParams strings each; free with ks_loop_sweep_free. */
int ks_loop_sweep(const char *zRule, const char *const *azSkillParams, int nSkillParams, int nMax,
                  char ****pazSets, int **panParams, int *pnSets);
void ks_loop_sweep_free(char ***azSets, int *anParams, int nSets);

/* ks_loop_sweep with options. zFirst: a value tried first (the tuning
 * memory's winner), then the skill's own, then the table's; used only when
 * the sweep table lists it for the swept parameter or it is the skill's own
 * value, else ignored (it may come from a file). */
typedef struct ks_sweep_opts {
  unsigned version;
  const char *zFirst;
} ks_sweep_opts;

#define KS_SWEEP_OPTS_VERSION 1
#define KS_SWEEP_OPTS_INIT {.version = KS_SWEEP_OPTS_VERSION, .zFirst = 0}

int ks_loop_sweep_ex(const char *zRule, const char *const *azSkillParams, int nSkillParams, int nMax,
                     const ks_sweep_opts *pOpts, char ****pazSets, int **panParams, int *pnSets);

/* ---- the tuning memory (docs/optimize.md, "Tuning memory") ----
 * Sweep winners kept across runs in a JSON Lines file of "tuned" records
 * (the journal's format, ks_journal_append): the first guess of a later
 * sweep of the same rule on a similar shape.
 *
 * The key of similar shapes: "RULE|PARAM|GPU|SHAPE_CLASS|threads~2^K", GPU
 * the evidence's gpu.name, K = round(log2(grid_size * block_size)) of
 * zKernel's profile in zEvidence. NULL (nothing to key on) without either. */
char *ks_tuning_key(const char *zRule, const char *zParam, const char *zEvidence, const char *zKernel,
                    const char *zShapeClass);

/* The last "tuned" record of zPath with key zKey whose value the sweep of
 * zRule (with the skill's parameters) may take: *pzValue and *pzFrom
 * ("path:line") malloc'd, or both NULL. A missing file is an empty memory; a
 * malformed one, and records with a value the sweep does not list, are
 * warnings appended to pWarn ("path:line: ..."), never errors. */
int ks_tuning_lookup(const char *zPath, const char *zKey, const char *zRule, const char *const *azSkillParams,
                     int nSkillParams, char **pzValue, char **pzFrom, ks_buf *pWarn);

/* One winner, appended to zPath (its folder created) as a "tuned" record. */
typedef struct ks_tuning_rec {
  const char *zKey, *zRule, *zParam, *zValue;
  const char *zTask, *zGpu; /* may be NULL */
  int bHasSpeedup;          /* rSpeedup: the winner over the sweep's first value */
  double rSpeedup;
} ks_tuning_rec;

int ks_tuning_record(const char *zPath, const ks_tuning_rec *pRec);

/* Insert evidence and gain into an accepted change's provenance comments:
 * "// kernelskill: SKILL (rule R, round N) what" becomes
 * "// kernelskill: SKILL (rule R, round N) zEvidence — what". *pzOut malloc'd. */
int ks_loop_annotate(const char *zSrc, const char *zSkill, const char *zRule, int iRound, const char *zEvidence,
                     char **pzOut);

#ifdef __cplusplus
}
#endif
#endif
