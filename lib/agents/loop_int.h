/* loop_int.h — internal to the agent loop's files (loop.c, loop_plan.c,
 * loop_llm.c, loop_gen.c, loop_dry.c, sweep.c, tuning.c): the loop's state, a
 * round's plan and candidates, and the functions they share (hidden: not
 * exported). */
#ifndef KS_AGENTS_LOOP_INT_H
#define KS_AGENTS_LOOP_INT_H

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

#define KS_HIDDEN __attribute__((visibility("hidden")))

#define fmt ks_mprintf /* short: used on most lines that build a path or message */

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
  char *zResumeTuning; /* a resumed round: its plan record's "tuning" (JSON), or NULL */
  int bTuneWarned;     /* the tuning memory's warning was said (once a run) */
} loop;

KS_HIDDEN void say(loop *L, const char *zFmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

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
  char *zUnparsed; /* LLM code clang cannot parse: its errors; never compiled (KS_UNPARSED_WHY) */
  const char *zSweepValue; /* the sweep value it was made at (the table's or the skill's), or NULL */
  int iSweep;              /* its index in the sweep */
} cand;

/* Why LLM code clang cannot parse gets no review (its verdict: compile_error). */
#define KS_UNPARSED_WHY "clang cannot parse the code, so the untrusted-code check cannot pass it: not compiled"

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
  /* The tuning memory (tuning.c), for the chosen skill's sweep. */
  const char *zTuneParam; /* the swept parameter, or NULL */
  char *zTuneKey;         /* the key of similar shapes, or NULL: no lookup, no record */
  char *zFirst;           /* the first guess it gave, or NULL */
  char *zFirstFrom;       /* "file:line" of that record */
  int bResumed;           /* a resumed round: the plan record's first guess, no lookup */
} round_plan;

typedef struct outcome {
  char *zVerdict;
  double rSpeedup; /* vs the best */
  double rUs;      /* candidate median */
  char *zEv;       /* evidence JSON */
} outcome;

/* The most values a sweep has: the first guess, the skill's own and the table's. */
#define KS_SWEEP_MAX_VALUES 8

KS_HIDDEN int sweep_values(const char *zRule, const char *const *azSkillParams, int nSkillParams,
                              const char *zFirst, const char **azVal, const char **pzParam);

KS_HIDDEN double json_num(const cJSON *p, const char *zKey, double rDefault);

KS_HIDDEN int record(loop *L, cJSON *pObj);

KS_HIDDEN cJSON *new_record(const char *zEvent, int iRound);

KS_HIDDEN cJSON *params_json(char *const *az, int n);

KS_HIDDEN void params_text(char *const *az, int n, ks_buf *pOut);

KS_HIDDEN char *cand_path(loop *L, const char *zHash);

KS_HIDDEN int review(loop *L, const ks_task *pTask, const char *zCandidate, ks_review_result **ppRes);

KS_HIDDEN cJSON *ev_profile(const char *zEv, const char *zKernel);

KS_HIDDEN void round_plan_free(round_plan *r);

KS_HIDDEN int is_ancestor(loop *L, const char *zHash);

/* Load the skills and parse the seed (L->pTask->zSource) into L. */
KS_HIDDEN int load_skills_and_seed(loop *L);
KS_HIDDEN int plan_round(loop *L, int iRound, const char *zForceSkill, const char *zForceKernel, int bDry,
                      round_plan *r);

KS_HIDDEN int save_text(const char *zPath, const char *z, size_t n);

KS_HIDDEN int eval_cand(loop *L, int iRound, const round_plan *r, const cand *c, outcome *pOut);

KS_HIDDEN int evaluated(loop *L, const char *zHash);

KS_HIDDEN int save_reply(loop *L, const char *zStem, const char *zText, char **pzRel);

KS_HIDDEN int llm_branch(loop *L, int iRound, round_plan *r, outcome **paOut);

/* The tuning memory's first guess for pSkill's sweep on zKernel (zFeatures:
 * its features summary) into r; warnings said, never errors (but ENOMEM). */
KS_HIDDEN int tune_first(loop *L, const ks_skill *pSkill, const char *zKernel, const char *zFeatures,
                         round_plan *r);
/* The plan record's "tuning" member: key, parameter, first guess and its record. */
KS_HIDDEN void tune_plan_json(const round_plan *r, cJSON *pRec);
/* Remember the accepted aCand[iWin] of a swept rule (a warning if it cannot). */
KS_HIDDEN void tune_record(loop *L, const round_plan *r, const outcome *aOut, int iWin);

KS_HIDDEN int seed_from_spec(loop *L, char **pzPath);

#endif
