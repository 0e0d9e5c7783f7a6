/* kernelskill/skills.h — long-term memory: the skill corpus, the condition
 * language skills are written in, the evidence those conditions read
 * (features.*, profile.*, derived.*, task.*), and the deterministic planner
 * policy that maps evidence to ranked candidate skills with an audit trail.
 * docs/planner.md describes the language and the policy for users. */
#ifndef KERNELSKILL_SKILLS_H
#define KERNELSKILL_SKILLS_H

#include <stddef.h>

#include "kernelskill/common.h"
#include "kernelskill/journal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Values and evidence fields ---- */

enum { KS_VAL_UNKNOWN = 0, KS_VAL_BOOL = 1, KS_VAL_NUM = 2, KS_VAL_STR = 3 };

/* A value of the condition language. KS_VAL_UNKNOWN: evidence is missing
 * (no profile, field not reported); logic over unknowns is three-valued. */
typedef struct ks_value {
  int eType;
  int b;
  double r;
  const char *z;
} ks_value;

/* One evidence field the language knows. String fields list their values. */
typedef struct ks_field_def {
  const char *zName;            /* "profile.dram_pct" */
  int eType;                    /* KS_VAL_BOOL / NUM / STR */
  const char *const *azValues;  /* allowed strings (STR), NULL-terminated */
  const char *zDoc;             /* one line */
} ks_field_def;

/* The field table (NULL-terminated by a zero entry) and lookup by name. */
const ks_field_def *ks_field_table(void);
const ks_field_def *ks_field_find(const char *zName);

/* ---- The condition language ---- */

typedef struct ks_cond ks_cond;

/* Where a condition's text sits, so errors read FILE:LINE:COL.
 * zRaw, when set, points at the opening quote of the JSON string the text was
 * decoded from (iLine/iCol are that quote's); offsets are mapped through the
 * JSON escapes. Without zRaw, the text itself starts at iLine/iCol. */
typedef struct ks_cond_loc {
  unsigned version;
  const char *zFile;
  int iLine, iCol;
  const char *zRaw;
} ks_cond_loc;

#define KS_COND_LOC_VERSION 1
#define KS_COND_LOC_INIT {.version = KS_COND_LOC_VERSION, .zFile = "<condition>", .iLine = 1, .iCol = 1, .zRaw = 0}

/* Parse and type-check. KS_EPARSE with "file:line:col: message" on a syntax
 * error, an unknown field, an unknown string value or a type error. */
int ks_cond_parse(const char *zText, const ks_cond_loc *pLoc, ks_cond **ppCond);
void ks_cond_free(ks_cond *p);
const char *ks_cond_text(const ks_cond *p);
/* Number of top-level && conjuncts (the skill's specificity). */
int ks_cond_conjuncts(const ks_cond *p);

typedef struct ks_evidence ks_evidence;

/* Evaluate: *pResult is KS_VAL_BOOL, or KS_VAL_UNKNOWN when missing evidence
 * decides the outcome. */
int ks_cond_eval(const ks_cond *p, const ks_evidence *pEv, ks_value *pResult);
/* Append the atoms that decided the outcome, with their evidence values, as
 * "derived.bottleneck=memory [why]; features.pointwise; !features.uses_vector_types".
 * For an unknown outcome, the fields that were missing. */
int ks_cond_explain(const ks_cond *p, const ks_evidence *pEv, ks_buf *pOut);

/* ---- Evidence ---- */

int ks_evidence_new(ks_evidence **pp);
void ks_evidence_free(ks_evidence *p);
/* Set a field (must be in the field table with that type). zWhy (may be NULL)
 * is the reason shown in evidence chains (derived fields). */
int ks_evidence_set(ks_evidence *p, const char *zName, const ks_value *pVal, const char *zWhy);
/* The field's value (KS_VAL_UNKNOWN when not set); *pzWhy its reason or NULL. */
ks_value ks_evidence_get(const ks_evidence *p, const char *zName, const char **pzWhy);
/* Add every field of a JSON object under zPrefix ("features", "profile").
 * Fields the table does not know are ignored (reported in *pnIgnored); known
 * fields of the wrong JSON type are an error; null means unknown. */
int ks_evidence_add_json(ks_evidence *p, const char *zPrefix, const char *zJson, size_t nJson,
                         const char *zSource, int *pnIgnored);
/* Compute derived.* from profile.* (and features.*), following Nsight
 * Compute's speed-of-light and occupancy rules (thresholds in docs/planner.md). */
int ks_evidence_derive(ks_evidence *p);
/* task.* from a task: the libraries it allows (task.allows_cublas,
 * task.allows_cub) and task.rtol, the smallest rtol over its floating-point
 * outputs (unset when it has none). */
struct ks_task;
/* task.allows_cublas (cublas, cublasLt) or task.allows_cub (cub) for one
 * library the task allows; other names set nothing. */
int ks_evidence_allow_lib(ks_evidence *p, const char *zLib);
int ks_evidence_set_task(ks_evidence *p, const struct ks_task *pTask);
/* Append "name = value  (why)" lines for every set field with prefix
 * (NULL: all). */
int ks_evidence_dump(const ks_evidence *p, const char *zPrefix, ks_buf *pOut);

/* Pick the per-kernel object out of documents:
 *  features: a `kernelskill features --json` document -> kernels[name].summary;
 *  profile: evidence JSON -> kernels[name].profile, or a top-level "profile".
 * *pzOut is the object's JSON text (malloc'd). KS_ENOTFOUND if no such kernel. */
int ks_evidence_pick_features(const char *zDoc, size_t nDoc, const char *zSource, const char *zKernel,
                              char **pzOut);
int ks_evidence_pick_profile(const char *zDoc, size_t nDoc, const char *zSource, const char *zKernel,
                             char **pzOut);

/* ---- Skills ---- */

typedef struct ks_skill_unless {
  char *zIf;       /* condition text */
  ks_cond *pIf;
  char *zWhy;      /* why the skill is ruled out when it holds */
} ks_skill_unless;

typedef struct ks_skill_effect {
  char *zMetric;   /* "profile.dram_pct" */
  char *zDir;      /* "up" | "down" */
} ks_skill_effect;

typedef struct ks_skill {
  char *zId;        /* "mem.vectorize-128" */
  int iVersion;
  char *zTitle, *zCategory, *zSummary;
  char *zWhen;
  ks_cond *pWhen;
  ks_skill_unless *aUnless;
  int nUnless;
  int iPriority;    /* 0..100, higher first */
  double rGain;     /* expected speedup when it applies (>= 1) */
  ks_skill_effect *aEffect;
  int nEffect;
  char *zRule;      /* rewrite rule id, or NULL (guidance only) */
  char **azParams;  /* "k=v" */
  int nParams;
  char *zGuidance, *zBefore, *zAfter;
  char **azRisks;
  int nRisks;
  char **azRefs;
  int nRefs;
  char **azTags;    /* policy tags the vetoes key on: caching, vectorize, ... */
  int nTags;
  char *zPath;      /* the file it came from */
  char *zOverrides; /* the file of the skill it overrides, or NULL */
} ks_skill;

typedef struct ks_skillset {
  ks_skill **a;     /* sorted by id */
  int n;
} ks_skillset;

/* The corpus categories: folder names under skills/ and `category` values. */
const char *const *ks_skill_categories(void);
/* Tags that policy vetoes key on. */
const char *const *ks_skill_tags(void);

typedef struct ks_skills_opts {
  unsigned version;
  int bNoBuiltin;              /* skip the data folder's corpus */
  const char *const *azDirs;   /* more folders, in override order (later wins) */
  int nDirs;
  int bNoEnv;                  /* ignore KS_SKILLS_PATH */
  /* ks_skills_check only: the rewrite rules a skill may name, injected by
   * the caller (the rule registry sits above this module): the parameter
   * names of rule zRule (NULL-terminated, maybe empty), or NULL when there is
   * no such rule. NULL: rule ids and parameters are not checked. */
  const char *const *(*xRuleParams)(void *pCtx, const char *zRule, int *pbFound);
  void *pRuleCtx;
} ks_skills_opts;

#define KS_SKILLS_OPTS_VERSION 1
#define KS_SKILLS_OPTS_INIT                                                                                     \
  {.version = KS_SKILLS_OPTS_VERSION, .bNoBuiltin = 0, .azDirs = 0, .nDirs = 0, .bNoEnv = 0, .xRuleParams = 0, \
   .pRuleCtx = 0}

/* Load: built-in corpus (ks_path_datadir()/skills), then KS_SKILLS_PATH
 * (colon-separated), then azDirs. A later skill with the same id overrides
 * the earlier one (zOverrides says which file). The same id twice within one
 * folder is an error. Any malformed skill fails the load (file:line:col). */
int ks_skills_load(const ks_skills_opts *pOpts, ks_skillset **ppSet);
void ks_skills_free(ks_skillset *p);
const ks_skill *ks_skills_find(const ks_skillset *p, const char *zId);
/* Load one file. */
int ks_skill_load_file(const char *zPath, ks_skill **ppSkill);
void ks_skill_free(ks_skill *p);

/* Validate a whole folder tree (or the search path when nDirs == 0 and
 * bCorpus): every problem is appended to pOut as "file[:line:col]: message"
 * lines (syntax, unknown fields, unknown rewrite ids and parameters,
 * duplicate ids, file name vs id, folder vs category). *pnProblems counts
 * them; *pnSkills counts skills read. */
int ks_skills_check(const ks_skills_opts *pOpts, ks_buf *pOut, int *pnProblems, int *pnSkills);

/* Catalogue: a markdown table of every skill (docs/skills.md), and one
 * skill's full description. */
int ks_skills_markdown(const ks_skillset *p, ks_buf *pOut);
int ks_skill_describe(const ks_skill *p, ks_buf *pOut);
int ks_skill_json(const ks_skill *p, ks_buf *pOut);

/* ---- The policy ---- */

enum {
  KS_PLAN_CANDIDATE = 0, /* holds, not vetoed: ranked */
  KS_PLAN_UNLESS,        /* `when` holds but one of its `unless` holds */
  KS_PLAN_VETO,          /* `when` holds but a policy veto rules it out */
  KS_PLAN_JOURNAL,       /* `when` holds but the journal says tried/applied */
  KS_PLAN_UNKNOWN,       /* missing evidence decides `when` */
  KS_PLAN_NO             /* `when` is false */
};

typedef struct ks_plan_item {
  const ks_skill *pSkill;
  int eStatus;
  int nSpecificity;
  int iRank;        /* 1-based among candidates; 0 otherwise */
  char *zWhy;       /* evidence chain of `when` (or missing fields) */
  char *zRuledOut;  /* "unless: <why> [<chain>]" / "veto <name>: ..." / "journal: ..." */
} ks_plan_item;

typedef struct ks_plan {
  ks_plan_item *a;  /* candidates in rank order first, then the rest by id */
  int n;
  int nCandidates;
  int bHasProfile;
  char *zClass;     /* one-line classification summary */
  char *zKernel, *zSource, *zParent;
} ks_plan;

typedef struct ks_plan_opts {
  unsigned version;
  const char *zParent;          /* hash of the current source (journal filter) */
  const ks_journal *pJournal;   /* NULL: no filter */
  const char *zKernel;          /* for the report */
  const char *zSource;          /* for the report: the .cu or features file */
} ks_plan_opts;

#define KS_PLAN_OPTS_VERSION 1
#define KS_PLAN_OPTS_INIT {.version = KS_PLAN_OPTS_VERSION, .zParent = 0, .pJournal = 0, .zKernel = 0, .zSource = 0}

/* The policy vetoes: a name, the tag it keys on, a condition, a reason. */
typedef struct ks_veto {
  const char *zName;
  const char *zTag;
  const char *zCond;
  const char *zWhy;
} ks_veto;
const ks_veto *ks_plan_vetoes(void); /* terminated by a zero entry */

/* Evaluate every skill against the evidence (already derived) and rank. */
int ks_plan_run(const ks_skillset *pSet, const ks_evidence *pEv, const ks_plan_opts *pOpts, ks_plan **ppPlan);
void ks_plan_free(ks_plan *p);
/* Human-readable (top N candidates; nTop <= 0: all) and JSON reports. */
int ks_plan_text(const ks_plan *p, int nTop, int bVerbose, ks_buf *pOut);
int ks_plan_json(const ks_plan *p, const ks_evidence *pEv, int nTop, ks_buf *pOut);

#ifdef __cplusplus
}
#endif
#endif
