/* kernelskill/task.h — task files (format v1, docs/tasks.md): a CUDA source with
 * an extern "C" host entry function and a description of its arguments, so the
 * Reviewer can call it on random inputs with no per-task code. Parsing with
 * cJSON, validation with precise errors ("FILE: FIELD: what is wrong"), integer
 * size expressions over `dims`, and drafting a task from an entry's signature. */
#ifndef KERNELSKILL_TASK_H
#define KERNELSKILL_TASK_H

#include <stddef.h>
#include <stdint.h>

#include "kernelskill/common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KS_TASK_FORMAT 1
#define KS_TASK_MAX_RANK 8

typedef enum ks_dtype {
  KS_DT_F32, KS_DT_F16, KS_DT_BF16, KS_DT_F64, KS_DT_I32, KS_DT_I64, KS_DT_U8
} ks_dtype;

typedef enum ks_arg_kind { KS_ARG_TENSOR, KS_ARG_SCALAR } ks_arg_kind;
typedef enum ks_intent { KS_INTENT_IN, KS_INTENT_OUT, KS_INTENT_INOUT } ks_intent;

/* Input distributions. normal(mean, std); uniform[low, high); randint[low, high)
 * integers; positive = |normal(0, std)| + min (strictly positive values);
 * file = the raw little-endian bytes of a file (captured data), every trial. */
typedef enum ks_dist { KS_DIST_NORMAL, KS_DIST_UNIFORM, KS_DIST_RANDINT, KS_DIST_POSITIVE, KS_DIST_FILE } ks_dist;

typedef struct ks_task_init {
  ks_dist eDist;
  double rA, rB; /* normal: mean,std; uniform/randint: low,high; positive: std,min */
  char *zFile;   /* file: the data file, absolute (checked: regular, exactly the tensor's bytes) */
} ks_task_init;

typedef struct ks_task_arg {
  char *zName;
  ks_arg_kind eKind;
  ks_dtype eType;
  ks_intent eIntent;          /* tensors only */
  int nRank;                  /* tensors: number of dims in shape */
  char *azShape[KS_TASK_MAX_RANK]; /* the expressions as written */
  int64_t aShape[KS_TASK_MAX_RANK]; /* evaluated */
  int64_t nElem;              /* tensors: product of aShape */
  ks_task_init init;          /* tensors with intent in/inout */
  char *zExpect;              /* out/inout tensors: `expect.file`, the right output for
                                 the file inputs (absolute, size checked), or NULL */
  int bHasTol;                /* per-argument tolerance override */
  double rRtol, rAtol;
  char *zValue;               /* scalars: the value as written */
  double rValue;              /* scalars: evaluated (integers exactly) */
  int64_t iValue;
} ks_task_arg;

typedef struct ks_task {
  char *zPath;      /* the task file */
  char *zName;
  char *zSource;    /* resolved against the task file's folder; NULL when the
                       task gives only a `spec` (the Generator writes the seed) */
  char *zReference; /* resolved; NULL: the seed is the reference */
  char *zEntry;
  int nDim;
  char **azDimName;
  int64_t *aDimValue;
  int nArg;
  ks_task_arg *aArg;
  int bHasTol;      /* task-wide tolerance given */
  double rRtol, rAtol;
  int bHasCost;
  double rFlops, rBytes; /* evaluated cost; 0 if not given */
  int nLib;
  char **azLib;     /* allowed vendor libraries ("cublas", ...) */
  int nTrials;      /* correctness trials (default 5, at least 5) */
  double rTimeoutS; /* per child process (default 60) */
  uint64_t iSeed;   /* base seed for the trials (default 1) */
  char *zSpec;      /* `spec`: what the entry computes, in words (Generator), or NULL */
  char *zSourceDir; /* the folder of `source` (of the task file without one):
                       candidates compiled elsewhere get it as -I, so the
                       seed's local #includes still resolve */
} ks_task;

/* Parse and validate a task file. Errors: KS_ENOTFOUND (no file), KS_EPARSE
 * (not JSON; message has FILE:LINE:COL), KS_EINVAL (FILE: FIELD: what is wrong). */
int ks_task_load(const char *zPath, ks_task **ppTask);
/* The same from text; zPath names the file in messages and anchors relative paths. */
int ks_task_parse(const char *zPath, const char *zText, size_t nText, ks_task **ppTask);
void ks_task_free(ks_task *pTask);

/* Loading options. Without an explicit bAllowOutside, `source` and
 * `reference` must lie inside the task file's folder tree (a task file from
 * elsewhere must not make the tools read, compile or send arbitrary files);
 * ks_task_load/ks_task_parse allow it when KS_TASK_ALLOW_OUTSIDE=1. The task
 * `name` is always a plain name (it names the run folder). */
typedef struct ks_task_load_opts {
  unsigned version;
  int bAllowOutside;
} ks_task_load_opts;

#define KS_TASK_LOAD_OPTS_VERSION 1
#define KS_TASK_LOAD_OPTS_INIT {KS_TASK_LOAD_OPTS_VERSION, 0}

int ks_task_load_ex(const char *zPath, const ks_task_load_opts *pOpts, ks_task **ppTask);
int ks_task_parse_ex(const char *zPath, const char *zText, size_t nText, const ks_task_load_opts *pOpts,
                     ks_task **ppTask);

/* Evaluate an integer expression (+ - * / % parentheses, integer literals,
 * dim names) over the task's dims. KS_EINVAL with a message on error
 * (unknown name, division by zero, overflow, syntax). */
int ks_task_eval(const char *zExpr, int nDim, char *const *azDimName, const int64_t *aDimValue,
                 int64_t *piOut);

const char *ks_dtype_name(ks_dtype e);
int ks_dtype_from_name(const char *z, ks_dtype *pe);
size_t ks_dtype_size(ks_dtype e);
int ks_dtype_is_float(ks_dtype e);
/* Default tolerances: f32 1e-4, f16/bf16 1e-2, f64 1e-8, integers exact. */
void ks_dtype_default_tol(ks_dtype e, double *prRtol, double *prAtol);
/* The tolerance that applies to argument i (argument, then task, then dtype). */
void ks_task_arg_tol(const ks_task *pTask, int i, double *prRtol, double *prAtol);
const char *ks_intent_name(ks_intent e);
const char *ks_dist_name(ks_dist e);

typedef struct ks_task_init_opts {
  unsigned version;
  const char *zOutPath; /* where the draft will be written (source path is made relative to it); NULL: cwd */
  int bAllowOutside;    /* (v2) the source may lie outside the draft's folder tree */
} ks_task_init_opts;

#define KS_TASK_INIT_OPTS_VERSION 2
#define KS_TASK_INIT_OPTS_INIT {KS_TASK_INIT_OPTS_VERSION, 0, 0}

/* Draft a task file from the signature of extern "C" function zEntry in
 * zSource: pointers become tensors (const: in, else out), integers become dims
 * and scalars, floating-point values scalars. The draft passes ks_task_load
 * (with the same bAllowOutside) or the draft is refused; the
 * notes (what to check by hand) are appended to pNotes, one per line. */
int ks_task_draft(const char *zSource, const char *zEntry, const ks_task_init_opts *pOpts,
                  ks_buf *pOut, ks_buf *pNotes);

#ifdef __cplusplus
}
#endif
#endif
