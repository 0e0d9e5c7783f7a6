/* kernelskill/loop.h — the agent loop behind `kernelskill optimize`: review the
 * seed, then per round plan from features + profile + journal, apply the chosen
 * skill's rewrite rule (parameter sweeps inside one round), review every
 * candidate against the current best, accept only what is correct and faster
 * beyond the measured noise, and journal every step so a killed run resumes
 * with nothing re-evaluated. Also the rule-path Diagnoser and the run report
 * (markdown + SVG), both readable from the journal alone. With an LLM client:
 * the Optimizer agent for skills with guidance only, the Diagnoser's repairs
 * of its failing candidates, and the Generator's seed for a task that gives
 * only a spec and a reference. docs/optimize.md. */
#ifndef KERNELSKILL_LOOP_H
#define KERNELSKILL_LOOP_H

#include <stdio.h>

#include "kernelskill/common.h"
#include "kernelskill/agents.h"
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
  double rRooflinePct;         /* stop at or above this share of the roofline (default 90) */
  int nSweep;                  /* most sweep points of a parameterized rule per round (default 3) */
  const char *const *azSkillDirs; /* more skill folders (override built-ins) */
  int nSkillDirs;
  ks_loop_review_fn xReview;   /* NULL: ks_review_run (and the GPU probe) */
  void *pReviewCtx;
  int bNoFinal;                /* skip the closing review of best against the seed */
  ks_llm *pLlm;                /* LLM agents (the caller's client); NULL: offline */
  int nMaxRepairs;             /* Diagnoser repairs per LLM candidate (0: KS_AGENT_MAX_REPAIRS) */
  const ks_clock *pClock;      /* the journal's "seconds"; NULL: the monotonic clock */
} ks_loop_opts;

#define KS_LOOP_OPTS_VERSION 1
#define KS_LOOP_OPTS_INIT                                                                                   \
  {.version = KS_LOOP_OPTS_VERSION, .nRounds = 15, .zOutDir = 0, .bResume = 0, .pLog = 0, .nRuns = 0,       \
   .nTrials = 0, .rRooflinePct = 90.0, .nSweep = 3, .azSkillDirs = 0, .nSkillDirs = 0, .xReview = 0,         \
   .pReviewCtx = 0, .bNoFinal = 0, .pLlm = 0, .nMaxRepairs = 0, .pClock = 0}

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

/* ---- Diagnoser (rule path) ---- */

/* Why a reviewed version failed: the verdict, the decisive evidence (first
 * compiler error with file:line, worst element, crash reason), and what the
 * rule that produced it is known to break. zRule NULL: the seed itself;
 * "llm": code an LLM agent wrote. */
int ks_diagnose(const ks_review_result *pRes, const char *zRule, ks_buf *pOut);

/* ---- LLM agents (lib/agents/llmagent.c) ---- */

typedef enum ks_agent_outcome {
  KS_AGENT_CODE,      /* code that passed every check: zCode */
  KS_AGENT_NO_REPLY,  /* the request failed: connect, timeout, HTTP error, budget spent */
  KS_AGENT_BAD_REPLY, /* an answer that is not a chat completion (garbage) */
  KS_AGENT_REJECTED   /* a reply whose code was refused: no single code block, wrong
                         kernels or entry signature, nvcc flags, the sandbox */
} ks_agent_outcome;

const char *ks_agent_outcome_name(ks_agent_outcome e);

/* What the agents check replies against. */
typedef struct ks_agent_ctx {
  unsigned version;
  ks_llm *pLlm;
  const char *const *azKernel;    /* kernels the code must define */
  int nKernel;
  const char *zEntryName;         /* the task's entry */
  const char *zEntryType;         /* its canonical type from the seed, or NULL: */
  const char *zEntryDecl;         /* the declaration to match (Generator) */
  const char *const *azLibraries; /* the task's vendor libraries */
  int nLibraries;
} ks_agent_ctx;

#define KS_AGENT_CTX_VERSION 1
#define KS_AGENT_CTX_INIT {KS_AGENT_CTX_VERSION, 0, 0, 0, 0, 0, 0, 0, 0}

typedef struct ks_agent_result {
  ks_agent_outcome eOutcome;
  char *zCode;      /* KS_AGENT_CODE: the checked source */
  char *zWhy;       /* otherwise: why, with file:line where there is one */
  char *zReply;     /* the reply's text, if one came */
  char *zModel;
  long nTokens;     /* tokens this turn counted against the budget */
  int nRequests;    /* HTTP requests, retries included */
} ks_agent_result;

/* One turn of agent zAgent ("optimizer", "diagnoser", "generator"): render
 * its prompt with aVar, ask, extract and check the code. KS_OK whenever the
 * turn happened (pOut->eOutcome says how it went); errors only for what
 * stops the run (no memory, a broken prompt template). Every text in pOut
 * has the API key redacted. */
int ks_agent_run(const ks_agent_ctx *pCtx, const char *zAgent, const ks_prompt_var *aVar, int nVar,
                 ks_agent_result *pOut);
void ks_agent_result_free(ks_agent_result *p);

/* The entry as a declaration for prompts and checks, "void f(const float *x,
 * float *y, int n)": from the seed's canonical type (zEntryType) with the
 * task's argument names, or from the task's arguments when NULL. */
int ks_agent_entry_decl(const ks_task *pTask, const char *zEntryType, char **pzDecl);

/* A `// kernelskill-flags:` line in LLM code may hold only flags of a short
 * safe list (fast math, ptxas -O/-v, -maxrregcount=N, -lineinfo...), at most
 * one line. KS_EINVAL with "candidate.cu:LINE: ..." in pWhy otherwise. */
int ks_agent_flags_ok(const char *zCode, ks_buf *pWhy);

/* ---- Report ---- */

/* Write zOutDir/report.md and zOutDir/speedup.svg from zOutDir/journal.jsonl. */
int ks_report_write(const char *zOutDir);
/* The SVG plot of cumulative speedup per round: arSpeedup[i] after round
 * aiRound[i], abAccepted[i] whether that round accepted a candidate. */
int ks_report_svg(const char *zTitle, const int *aiRound, const double *arSpeedup, const int *abAccepted, int n,
                  ks_buf *pOut);

/* Insert evidence and gain into an accepted change's provenance comments:
 * "// kernelskill: SKILL (rule R, round N) what" becomes
 * "// kernelskill: SKILL (rule R, round N) zEvidence — what". *pzOut malloc'd. */
int ks_loop_annotate(const char *zSrc, const char *zSkill, const char *zRule, int iRound, const char *zEvidence,
                     char **pzOut);

#ifdef __cplusplus
}
#endif
#endif
