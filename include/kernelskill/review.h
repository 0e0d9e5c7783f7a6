/* kernelskill/review.h — the Reviewer: compile a task's seed, reference and a
 * candidate with nvcc (separate shared objects), run each in a child process
 * (ks-harness) with a timeout, check correctness strictly against the
 * reference, time with a cold L2, read CUPTI metrics, place the result on the
 * device's roofline, and write the evidence record the planner reads
 * ("ks_evidence": 1). Usable from the agent loop (ks_review_run) and the CLI
 * (`kernelskill bench`). */
#ifndef KERNELSKILL_REVIEW_H
#define KERNELSKILL_REVIEW_H

#include <stddef.h>
#include <stdint.h>

#include "kernelskill/common.h"
#include "kernelskill/task.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The outcome, in the journal's vocabulary. */
typedef enum ks_verdict {
  KS_VERDICT_OK,            /* the seed reviewed alone: correct */
  KS_VERDICT_ACCEPTED,      /* correct and faster than the seed beyond noise */
  KS_VERDICT_SLOWER,        /* correct, slower beyond noise */
  KS_VERDICT_NOISE,         /* correct, within noise */
  KS_VERDICT_COMPILE_ERROR,
  KS_VERDICT_WRONG_RESULT,
  KS_VERDICT_RUNTIME_ERROR,
  KS_VERDICT_TIMEOUT,
  KS_VERDICT_COMPILED       /* --compile-only: built, not run */
} ks_verdict;

const char *ks_verdict_name(ks_verdict e);

typedef struct ks_review_opts {
  unsigned version;
  const char *zCandidate; /* candidate source (NULL: review the seed) */
  int nRuns;              /* timed runs per version (default 100, at least 50) */
  int nTrials;            /* correctness trials (default: the task's, at least 5) */
  double rTimeoutS;       /* per child process (default: the task's) */
  int bMetrics;           /* CUPTI metrics (default on) */
  int bCompileOnly;       /* build only: no GPU needed */
  const char *zArch;      /* "sm_90"; default from the device (sm_90 with --compile-only) */
  const char *zWorkDir;   /* keep builds and outputs here (default: a temp dir, removed) */
  const char *zHarness;   /* ks-harness path (default: $KS_HARNESS, else next to the executable) */
  int bVerbose;           /* progress on stderr */
  int bProfileBestOnly;   /* profile (CUPTI) only a version that can become the best: the seed
                             reviewed alone, or an accepted candidate (the loop plans from these) */
  const char *zRefCache;  /* keep the reference's correctness outputs here, keyed by its build, the
                             spec, seed and trials, and reuse them (NULL: run the reference each time) */
} ks_review_opts;

#define KS_REVIEW_OPTS_VERSION 1
#define KS_REVIEW_OPTS_INIT                                                                                  \
  {.version = KS_REVIEW_OPTS_VERSION, .zCandidate = 0, .nRuns = 100, .nTrials = 0, .rTimeoutS = 0, .bMetrics = 1, \
   .bCompileOnly = 0, .zArch = 0, .zWorkDir = 0, .zHarness = 0, .bVerbose = 0, .bProfileBestOnly = 0,            \
   .zRefCache = 0}

typedef struct ks_timing_stats {
  int n;
  double rMedianUs, rMinUs, rMaxUs, rQ1Us, rQ3Us, rMeanUs;
} ks_timing_stats;

typedef struct ks_review_result {
  ks_verdict eVerdict;
  char *zReason;      /* one line: why (failures), or the figures (success) */
  char *zDetail;      /* nvcc output, harness message; may be NULL */
  int bTimed;
  ks_timing_stats seed, seed2, cand; /* seed timed twice (noise) and the candidate */
  double rNoisePct;   /* |median(seed) - median(seed2)| / median(seed), percent */
  double rThresholdPct; /* what counts as a real change (max(noise, 1%)) */
  double rSpeedup;    /* median(seed) / median(candidate) */
  char *zEvidence;    /* the evidence JSON ("ks_evidence": 1) */
} ks_review_result;

/* Review a candidate (or the seed) against the task. Returns KS_OK with a
 * result whenever the review itself worked — a failing candidate is a verdict,
 * not an error. Errors: KS_EUNAVAIL "no CUDA device" (unless bCompileOnly),
 * KS_EINVAL when the seed or the reference itself fails to build or run. */
int ks_review_run(const ks_task *pTask, const ks_review_opts *pOpts, ks_review_result **ppRes);
void ks_review_result_free(ks_review_result *p);

/* The ks-harness to run: zOverride, else $KS_HARNESS, else next to the
 * executable when it is there; malloc'd, or NULL. */
char *ks_review_harness_path(const char *zOverride);
/* Is a CUDA device there? KS_OK, or KS_EUNAVAIL with the reason (ks-harness
 * missing, "no CUDA device"). */
int ks_review_probe_gpu(void);
/* A short human-readable table of the result. */
int ks_review_text(const ks_review_result *p, ks_buf *pOut);

/* ---- parts, exposed for tests and the loop ------------------------------ */

/* Compare one output tensor (raw bytes of nElem elements of eType) against
 * the reference. Fails on: any NaN/Inf where the reference is finite; elements
 * left at the 0xFF poison; all-constant output where the reference varies;
 * |got - exp| > atol + rtol * |exp|. On failure *pzWhy (malloc'd) names the
 * worst element (index, expected, got). KS_OK = pass, KS_EINVAL = fail. */
int ks_review_compare(ks_dtype eType, size_t nElem, const void *pRef, const void *pGot, double rRtol, double rAtol,
                      char **pzWhy);
/* Order statistics of n samples (ms in, us out). */
void ks_review_stats(const double *arMs, int n, ks_timing_stats *pOut);
/* Element of a raw tensor as a double (f16/bf16 decoded). */
double ks_review_elem(ks_dtype eType, const void *p, size_t i);
/* The nvcc command line parts from a "// kernelskill-flags: ..." line of the
 * source (NULL when there is none); malloc'd. */
char *ks_review_source_flags(const char *zSource);

#ifdef __cplusplus
}
#endif
#endif
