/* kernelskill/capture.h — program mode (docs/capture.md): read what the
 * injection library (libks-capture.so) recorded while a CUDA program ran —
 * every launch's kernel, grid, block, shared memory, stream, parameter bytes
 * and the allocations its pointers reach, with snapshots before and after the
 * chosen launches — and turn it into task files (format v1) with a generated
 * replay entry, a ranking of kernels by GPU time, and comparisons of two
 * captures launch by launch. CPU-side only: no CUDA is linked here. */
#ifndef KERNELSKILL_CAPTURE_H
#define KERNELSKILL_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

#include "kernelskill/common.h"
#include "kernelskill/task.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KS_CAPTURE_FORMAT 1
#define KS_CAPTURE_MAX_PARAMS 256

typedef struct ks_capture_param {
  size_t nOffset, nSize;   /* in the kernel's parameter buffer (cuFuncGetParamInfo) */
  unsigned char *aBytes;   /* the value as passed (nSize bytes) */
  int iAlloc;              /* index into the launch's aAlloc, or -1 (not a device pointer) */
  uint64_t nPtrOffset;     /* pointer - allocation base */
} ks_capture_param;

typedef struct ks_capture_alloc {
  uint64_t iBase, nSize;
  char *zBefore, *zAfter;  /* snapshot files, relative to the capture folder; NULL: none */
} ks_capture_alloc;

typedef struct ks_capture_launch {
  int iLaunch;             /* in program order */
  int iNth;                /* the how-manyth launch of this kernel, from 0 */
  char *zMangled, *zName;  /* zName: demangled (the mangled name for extern "C" kernels) */
  unsigned aGrid[3], aBlock[3], nSmem;
  char *zStream;
  char *zApi;              /* cuLaunchKernel, cuLaunchKernelEx, ... */
  uint32_t iCorrelation;
  int nParam;
  ks_capture_param *aParam;
  int nAlloc;
  ks_capture_alloc *aAlloc;
  int bSnapshot;           /* before and after snapshots exist */
  char *zSkipped;          /* why a selected launch has no snapshot (limit, dry run); or NULL */
  int iResult;             /* the launch call's CUresult */
  double rGpuNs;           /* the kernel's duration (CUPTI activity), or -1 when unknown */
} ks_capture_launch;

typedef struct ks_capture_kernel_time {
  char *zMangled;
  int nLaunch;
  double rTotalNs;
} ks_capture_kernel_time;

typedef struct ks_capture {
  char *zDir;
  int nLaunch;
  ks_capture_launch *aLaunch;
  int nKernel;             /* per kernel, from the activity records */
  ks_capture_kernel_time *aKernel;
  int bComplete;           /* done.json: the program reached exit */
} ks_capture;

/* Read a capture folder (launches.jsonl, timing.jsonl, done.json). Errors
 * name FILE:LINE: KS_ENOTFOUND (no launches.jsonl), KS_EPARSE, KS_EINVAL. */
int ks_capture_load(const char *zDir, ks_capture **ppCap);
void ks_capture_free(ks_capture *p);

/* The JSON index ("ks_capture": 1) of a loaded capture: every launch, its
 * parameters and allocations with their snapshot files and sizes. */
int ks_capture_index_json(const ks_capture *p, ks_buf *pOut);

/* The kernels ranked by total GPU time (then launches), as text. */
int ks_capture_summary_text(const ks_capture *p, ks_buf *pOut);

/* ---- parameter types ---------------------------------------------------- */

typedef enum ks_ptype_kind {
  KS_PT_UNKNOWN,   /* opaque: passed as captured bytes */
  KS_PT_POINTER,   /* pointer to eType (nLanes per element: float4 = 4 x f32) */
  KS_PT_SCALAR     /* a number the task can carry (eType) */
} ks_ptype_kind;

typedef struct ks_ptype {
  ks_ptype_kind eKind;
  ks_dtype eType;
  int nLanes;      /* pointers: dtype elements per pointee (1, 2, 4) */
  int bConst;      /* pointer to const */
  int bUnsigned;   /* scalar integer spelled unsigned */
  size_t nSize;    /* scalars: the C type's size */
} ks_ptype;

/* Classify one C/C++ type spelling ("const float *", "float const*",
 * "__half*", "unsigned int", "long long", "float4*", "MyStruct"). */
void ks_capture_type(const char *zSpelling, ks_ptype *pOut);

/* Split a demangled kernel name "void ns::k<float>(float*, int)" into the
 * C++ expression naming the kernel ("ns::k<float>", "(anonymous
 * namespace)::" dropped) and its parameter types. *pnParam = -1 when the
 * name carries no parameter list (an extern "C" kernel). The strings are
 * malloc'd: free *pzCallee and each (*pazParam)[i], then *pazParam. */
int ks_capture_split_name(const char *zDemangled, char **pzCallee, char ***pazParam, int *pnParam);

/* ---- what a launch did to its buffers ------------------------------------ */

/* Intent of one allocation from its bytes before and after the launch:
 * unchanged -> in; every element (nElemSize bytes) changed -> out; some ->
 * inout. *pnChanged counts changed elements. */
ks_intent ks_capture_infer_intent(const void *pBefore, const void *pAfter, size_t nBytes, size_t nElemSize,
                                  size_t *pnChanged);

/* ---- tasks --------------------------------------------------------------- */

typedef enum ks_capture_init_mode {
  KS_CAPTURE_INIT_AUTO,  /* the default: "file" */
  KS_CAPTURE_INIT_FILE,  /* "init": {"file": "inputs/NAME.bin"}: the captured bytes; outputs
                            get "expect": {"file": "expected/NAME.bin"} */
  KS_CAPTURE_INIT_DIST   /* a distribution over the captured range (uniform / randint) */
} ks_capture_init_mode;

typedef struct ks_capture_task_opts {
  unsigned version;
  const char *zOutDir;            /* tasks go to OUT/tasks/<kernel>/ */
  const char *const *azSource;    /* the program's CUDA sources (where the kernels are defined) */
  int nSource;
  ks_capture_init_mode eInit;
  const char *zProgram;           /* for the task's description */
} ks_capture_task_opts;

#define KS_CAPTURE_TASK_OPTS_VERSION 1
#define KS_CAPTURE_TASK_OPTS_INIT {KS_CAPTURE_TASK_OPTS_VERSION, 0, 0, 0, KS_CAPTURE_INIT_AUTO, 0}

/* The replay entry for launch pL: an extern "C" function zEntry taking one
 * pointer per allocation (tensor) and one value per task scalar, which
 * launches the kernel with the captured grid, block and dynamic shared
 * memory on the default stream. aType classifies each parameter
 * (KS_PT_UNKNOWN: passed as the captured bytes). With azSpelling (each
 * parameter's C++ type, e.g. from the demangled name) the launch is a
 * `zCallee<<<...>>>(...)` with typed arguments, so rules that rewrite launch
 * sites see it like the program's own; without, it goes through
 * cudaLaunchKernel on &zCallee. zCallee names the kernel ("ns::k<float>"). */
int ks_capture_replay_source(const ks_capture_launch *pL, const ks_ptype *aType, const char *const *azSpelling,
                             const char *zCallee, const char *zEntry, ks_buf *pOut);

/* Undo what the task's source adds to the original file (the capture's
 * header lines, its -I flag and the replay entry), so an optimized task
 * source becomes an optimized version of the program's file. zOrigDir is the
 * original's folder. malloc'd result in *pzOut. */
int ks_capture_strip_source(const char *zText, const char *zOrigDir, char **pzOut);

/* Marks the start of the generated replay entry in a task source. */
#define KS_CAPTURE_REPLAY_MARK "// ---- generated by kernelskill capture: replays launch"

/* Write one task per kernel with a snapshot (its first snapshotted launch):
 * OUT/tasks/<kernel>/{<kernel>.cu, <kernel>.json, inputs/, expected/,
 * capture.json}. Appends a line per task, and notes, to pReport. */
int ks_capture_write_tasks(const ks_capture *p, const ks_capture_task_opts *pOpts, ks_buf *pReport);

/* ---- promote ------------------------------------------------------------ */

typedef struct ks_capture_promote_opts {
  unsigned version;
  const char *zTaskDir;   /* OUT/tasks/K (holds capture.json) */
  const char *zFromStore; /* where optimize --commit stored the task's entry (NULL: above the task, then the cwd) */
  const char *zStore;     /* where to store the program's entry (NULL: the store kernelskill-nvcc finds
                             above the program's source, created there when there is none) */
  int bForce;             /* replace an existing entry */
} ks_capture_promote_opts;

#define KS_CAPTURE_PROMOTE_OPTS_VERSION 1
#define KS_CAPTURE_PROMOTE_OPTS_INIT {KS_CAPTURE_PROMOTE_OPTS_VERSION, 0, 0, 0, 0}

/* Store the verified version of a captured task's source (from its store
 * entry, made by `kernelskill optimize TASK --commit`) as a version of the
 * program's own file: the capture's header lines and replay entry removed
 * (ks_capture_strip_source), keyed on the original's bytes, with the same
 * arch and evidence. One line per stored entry in pReport. */
int ks_capture_promote(const ks_capture_promote_opts *pOpts, ks_buf *pReport);

/* ---- compare ------------------------------------------------------------- */

/* Compare two captures of the same program: the same launch sequence, and
 * each snapshotted launch's allocations after it, element by element (dtype
 * from the kernel's parameter types, default tolerances; bytes when unknown).
 * *pnBad counts mismatches; pReport gets one line per launch compared. */
int ks_capture_compare(const ks_capture *pBefore, const ks_capture *pAfter, ks_buf *pReport, int *pnBad);

#ifdef __cplusplus
}
#endif
#endif
