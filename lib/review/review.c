/* review.c — the Reviewer's orchestration (no CUDA in this process): build the
 * seed, reference and candidate as separate shared objects with nvcc, run each
 * in its own ks-harness child with a timeout, compare outputs, time seed and
 * candidate in one process with a cold L2, profile with CUPTI, measure (and
 * cache) the device's ceilings, and write the evidence record. */
#define _XOPEN_SOURCE 700
#define _DEFAULT_SOURCE /* flock */
#include "kernelskill/review.h"
#include "kernelskill/sandbox.h"
#include "kernelskill/proc.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#ifndef KS_DEFAULT_NVCC
#define KS_DEFAULT_NVCC "nvcc"
#endif

const char *ks_verdict_name(ks_verdict e) {
  static const char *const az[] = {"ok", "accepted", "slower", "noise", "compile_error", "wrong_result",
                                   "runtime_error", "timeout", "compiled"};
  return (unsigned)e < sizeof az / sizeof az[0] ? az[e] : "?";
}

/* Hardware metrics asked of the range profiler. The first seven were verified
 * on the H200 (FACTS.md); if the full list is refused, the core list is tried. */
static const char *const azCoreMetrics[] = {
    "gpu__time_duration.sum",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "l1tex__t_sector_hit_rate.pct",
    "lts__t_sector_hit_rate.pct",
    "smsp__inst_executed.sum",
    NULL};
static const char *const azExtraMetrics[] = {
    "lts__throughput.avg.pct_of_peak_sustained_elapsed",
    "dram__bytes.sum",
    "sm__maximum_warps_per_active_cycle_pct",
    "smsp__average_warp_latency_per_inst_issued.ratio",
    "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio",
    "smsp__sass_average_branch_targets_threads_uniform.pct",
    NULL};

/* ---- small helpers ------------------------------------------------------- */


#define fmt ks_mprintf /* short: used on most lines that build a path or message */

/* ---- child processes ----------------------------------------------------- */

typedef struct child_res {
  int bTimedOut;
  int iExit;   /* exit code, or -1 when killed by a signal */
  int iSignal;
  double rSeconds;
  char *zOut, *zErr;
} child_res;

static void child_res_free(child_res *r) {
  free(r->zOut);
  free(r->zErr);
  memset(r, 0, sizeof *r);
}

/* The GPU lock. Children that run code on the GPU hold a lock on one file:
 * timing and profiling exclusively, correctness runs shared. So concurrent
 * reviews (parallel optimize runs, a `make -j` under KS_MODE=optimize) never
 * time a kernel while another runs, yet their correctness runs (mostly host
 * work: input generation, read-back) overlap each other. A second "gate" file
 * taken briefly before the main lock keeps a waiting timer from starving
 * behind a stream of shared holders. KS_GPU_LOCK names the file ("off"
 * disables); the default is per user and per CUDA_VISIBLE_DEVICES. */
enum { GPU_NONE, GPU_SHARED, GPU_EXCLUSIVE };

static int lock_fd(const char *zPath, int iOp) {
  int fd = open(zPath, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return -1; /* an unwritable lock only costs the serialization */
  while (flock(fd, iOp) < 0) {
    if (errno != EINTR) {
      close(fd);
      return -1;
    }
  }
  return fd;
}

/* Returns the locked fd, or -1 (run unlocked). */
static int gpu_lock_acquire(int eMode) {
  const char *zEnv = getenv("KS_GPU_LOCK");
  if (eMode == GPU_NONE || (zEnv && (strcmp(zEnv, "off") == 0 || !*zEnv))) return -1;
  char *zPath = NULL;
  if (zEnv) zPath = ks_strdup(zEnv);
  else {
    const char *zDev = getenv("CUDA_VISIBLE_DEVICES");
    char zSafe[64] = "all";
    if (zDev && *zDev) {
      size_t i = 0;
      for (; zDev[i] && i < sizeof zSafe - 1; i++) zSafe[i] = isalnum((unsigned char)zDev[i]) ? zDev[i] : '_';
      zSafe[i] = 0;
    }
    zPath = fmt("/tmp/kernelskill-gpu-%u-%s.lock", (unsigned)getuid(), zSafe);
  }
  char *zGate = fmt("%s.gate", zPath);
  int fdGate = lock_fd(zGate, LOCK_EX);
  int fd = lock_fd(zPath, eMode == GPU_EXCLUSIVE ? LOCK_EX : LOCK_SH);
  if (fdGate >= 0) close(fdGate);
  free(zGate);
  free(zPath);
  return fd;
}

static void gpu_lock_release(int fd) {
  if (fd >= 0) close(fd); /* closing drops the flock */
}

/* Run argv in its own process group with stdout/stderr in files; kill the
 * whole group after rTimeout seconds (counted from the start, not from the
 * wait for the GPU lock that eGpu names). */
/* ks-isolate, next to the executable (or KS_ISOLATE_BIN); NULL when
 * KS_ISOLATE=0 turns isolation off. KS_EUNAVAIL when it is on and missing. */
static int isolate_path(char **pz) {
  *pz = NULL;
  const char *zOff = getenv("KS_ISOLATE");
  if (zOff && strcmp(zOff, "0") == 0) return KS_OK;
  const char *z = getenv("KS_ISOLATE_BIN");
  char *zDir = z && *z ? NULL : ks_path_exe_dir();
  *pz = z && *z ? ks_strdup(z) : zDir ? ks_path_join(zDir, "ks-isolate") : NULL;
  free(zDir);
  if (*pz && access(*pz, X_OK) == 0) return KS_OK;
  free(*pz);
  *pz = NULL;
  return ks_error_set(KS_EUNAVAIL, "ks-isolate not found next to the executable: the Reviewer runs every build and "
                                   "run under it (set KS_ISOLATE_BIN, or KS_ISOLATE=0 to run children unisolated)");
}

/* Run argv in its own process group with stdout/stderr in files; kill the
 * whole group after rTimeout seconds (counted from the start, not from the
 * wait for the GPU lock that eGpu names). Under ks-isolate (docs/security.md):
 * only zWork and zRw (an output folder, or NULL) stay writable; no network,
 * no capabilities, memory and process limits. */
static int run_child_rw(char *const *argv, double rTimeout, const char *zWork, const char *zRw, const char *zTag,
                        int eGpu, child_res *r) {
  char *zOutPath = fmt("%s/%s.out", zWork, zTag), *zErrPath = fmt("%s/%s.err", zWork, zTag);
  int rc = KS_OK;
  int fdLock = -1;
  char *zIso = NULL, *azIso[128];
  char zMem[32];
  memset(r, 0, sizeof *r);
  r->iExit = -1;
  if ((rc = isolate_path(&zIso)) < 0) goto done;
  if (zIso) {
    /* Private writable memory: half the machine, at least 8 GiB (the device's
     * memory is not counted: it is mapped shared). */
    long nPages = sysconf(_SC_PHYS_PAGES), nPage = sysconf(_SC_PAGESIZE);
    unsigned long long nMem = nPages > 0 && nPage > 0 ? (unsigned long long)nPages * (unsigned long long)nPage / 2 : 0;
    if (nMem < (8ull << 30)) nMem = 8ull << 30;
    snprintf(zMem, sizeof zMem, "%llu", nMem);
    int n = 0;
    azIso[n++] = zIso;
    azIso[n++] = "--rw";
    azIso[n++] = (char *)zWork;
    if (zRw) {
      azIso[n++] = "--rw";
      azIso[n++] = (char *)zRw;
    }
    azIso[n++] = "--mem";
    azIso[n++] = zMem;
    azIso[n++] = "--nproc";
    azIso[n++] = "4096";
    azIso[n++] = "--";
    for (int i = 0; argv[i] && n < 127; i++) azIso[n++] = argv[i];
    azIso[n] = NULL;
    argv = azIso;
  }
  /* Children (nvcc, the harness running candidate code) never see the LLM
   * key or other secrets: built before fork, no allocation in the child. */
  char **azEnv = NULL;
  if ((rc = ks_sandbox_child_env(environ, &azEnv)) < 0) goto done;
  double tWait = ks_clock_now(NULL);
  fdLock = gpu_lock_acquire(eGpu);
  double t0 = ks_clock_now(NULL);
  ks_proc_opts po = KS_PROC_OPTS_INIT;
  po.azEnv = azEnv;
  po.zStdout = zOutPath;
  po.zStderr = zErrPath;
  po.bNewGroup = 1;
  po.rTimeout = rTimeout;
  ks_proc_status st;
  rc = ks_proc_run(argv, &po, &st);
  ks_sandbox_env_free(azEnv);
  if (rc < 0) goto done;
  r->bTimedOut = st.bTimedOut;
  r->rSeconds = st.rSeconds;
  /* KS_TRACE_CHILDREN=FILE: one line per child (tag, lock mode, seconds waiting
   * for the GPU lock, seconds run), to see where a review's time goes. */
  const char *zTrace = getenv("KS_TRACE_CHILDREN");
  if (zTrace && *zTrace) {
    FILE *fT = fopen(zTrace, "a");
    if (fT) {
      fprintf(fT, "%d %s %s wait %.3f run %.3f\n", (int)getpid(), zTag, eGpu == GPU_EXCLUSIVE ? "ex" : eGpu ? "sh" : "-",
              t0 - tWait, r->rSeconds);
      fclose(fT);
    }
  }
  if (!r->bTimedOut) {
    r->iExit = st.iExit;
    r->iSignal = st.iSignal;
  }
  size_t n;
  if (ks_file_read(zOutPath, &r->zOut, &n) < 0) r->zOut = ks_strdup("");
  if (ks_file_read(zErrPath, &r->zErr, &n) < 0) r->zErr = ks_strdup("");
done:
  gpu_lock_release(fdLock);
  free(zIso);
  free(zOutPath);
  free(zErrPath);
  return rc;
}

static int run_child(char *const *argv, double rTimeout, const char *zWork, const char *zTag, int eGpu,
                     child_res *r) {
  return run_child_rw(argv, rTimeout, zWork, NULL, zTag, eGpu, r);
}

/* The last JSON object a harness printed. */
static cJSON *child_json(const child_res *r) {
  if (!r->zOut) return NULL;
  const char *p = r->zOut + strlen(r->zOut);
  while (p > r->zOut && (p[-1] == '\n' || p[-1] == ' ')) p--;
  const char *q = p;
  while (q > r->zOut && q[-1] != '\n') q--;
  return cJSON_ParseWithLength(q, (size_t)(p - q));
}

static const char *signal_text(int iSig) {
  switch (iSig) {
  case SIGSEGV: return "segmentation fault (SIGSEGV)";
  case SIGBUS: return "bus error (SIGBUS)";
  case SIGABRT: return "aborted (SIGABRT)";
  case SIGFPE: return "floating-point exception (SIGFPE)";
  case SIGILL: return "illegal instruction (SIGILL)";
  case SIGKILL: return "killed (SIGKILL; out of host memory?)";
  default: return "killed by a signal";
  }
}

/* ---- the review state ---------------------------------------------------- */

typedef struct review {
  const ks_task *pTask;
  ks_review_opts o;
  char *zWork;
  int bOwnWork;
  char *zHarness;
  char *zSpec;
  char *zArch;
  cJSON *pInfo;       /* harness info */
  ks_review_result *pRes;
  cJSON *pEv;         /* evidence under construction */
} review;

char *ks_review_harness_path(const char *zOverride) {
  if (zOverride) return ks_strdup(zOverride);
  const char *z = getenv("KS_HARNESS");
  if (z && *z) return ks_strdup(z);
  char *zDir = ks_path_exe_dir();
  if (zDir) {
    char *zPath = ks_path_join(zDir, "ks-harness");
    free(zDir);
    if (zPath && access(zPath, X_OK) == 0) return zPath;
    free(zPath);
  }
  return NULL;
}

static char *find_harness(const ks_review_opts *o) { return ks_review_harness_path(o->zHarness); }

int ks_review_probe_gpu(void) {
  char *zHarness = ks_review_harness_path(NULL);
  if (!zHarness || access(zHarness, X_OK) != 0) {
    free(zHarness);
    return ks_error_set(KS_EUNAVAIL, "ks-harness not found next to the executable (set KS_HARNESS)");
  }
  char *azArgv[] = {zHarness, "info", NULL};
  ks_proc_opts po = KS_PROC_OPTS_INIT;
  po.bDiscard = 1;
  ks_proc_status st;
  int rc = ks_proc_run(azArgv, &po, &st);
  free(zHarness);
  if (rc < 0) return rc;
  if (st.iExit == 0) return KS_OK;
  if (st.iExit == 3) return ks_error_set(KS_EUNAVAIL, "no CUDA device");
  return ks_error_set(KS_EUNAVAIL, "ks-harness info failed (status %d)", st.iRaw);
}

static const char *nvcc_path(void) {
  const char *z = getenv("KS_NVCC");
  if (z && *z) return z;
  return KS_DEFAULT_NVCC;
}

static const char *c_type(ks_dtype e) {
  switch (e) {
  case KS_DT_F32: return "float";
  case KS_DT_F64: return "double";
  case KS_DT_I32: return "int";
  case KS_DT_I64: return "long long";
  case KS_DT_U8: return "unsigned char";
  default: return "void *";
  }
}

/* ks_invoke: the bridge from the harness's argument array to the entry's
 * C signature, compiled into every build of the task. */
static int write_shim(review *rv) {
  const ks_task *t = rv->pTask;
  ks_buf b = KS_BUF_INIT;
  ks_buf_printf(&b, "/* generated by kernelskill: calls the task's entry from the harness */\nextern void %s(", t->zEntry);
  for (int i = 0; i < t->nArg; i++) {
    const ks_task_arg *a = &t->aArg[i];
    ks_buf_printf(&b, "%s%s", i ? ", " : "", a->eKind == KS_ARG_TENSOR ? "void *" : c_type(a->eType));
  }
  ks_buf_printf(&b, ");\nvoid ks_invoke(void *const *ap) {\n  %s(", t->zEntry);
  for (int i = 0; i < t->nArg; i++) {
    const ks_task_arg *a = &t->aArg[i];
    if (a->eKind == KS_ARG_TENSOR) ks_buf_printf(&b, "%sap[%d]", i ? ", " : "", i);
    else ks_buf_printf(&b, "%s*(const %s *)ap[%d]", i ? ", " : "", c_type(a->eType), i);
  }
  ks_buf_puts(&b, ");\n}\n");
  char *zPath = fmt("%s/ks_shim.c", rv->zWork);
  int rc = ks_file_write_atomic(zPath, b.z, b.n);
  free(zPath);
  ks_buf_free(&b);
  return rc;
}

static int write_spec(review *rv) {
  const ks_task *t = rv->pTask;
  ks_buf b = KS_BUF_INIT;
  ks_buf_printf(&b, "ks_spec 1 %s\n", t->zName);
  for (int i = 0; i < t->nArg; i++) {
    const ks_task_arg *a = &t->aArg[i];
    /* A file input's path ends the line (absolute, no line break: the task
     * module checked both). */
    if (a->eKind == KS_ARG_TENSOR)
      ks_buf_printf(&b, "arg tensor %s %s %lld %d %.17g %.17g%s%s\n", ks_dtype_name(a->eType), ks_intent_name(a->eIntent),
                    (long long)a->nElem, (int)a->init.eDist, a->init.rA, a->init.rB,
                    a->init.eDist == KS_DIST_FILE && a->eIntent != KS_INTENT_OUT ? " " : "",
                    a->init.eDist == KS_DIST_FILE && a->eIntent != KS_INTENT_OUT ? a->init.zFile : "");
    else
      ks_buf_printf(&b, "arg scalar %s %lld %.17g\n", ks_dtype_name(a->eType), (long long)a->iValue, a->rValue);
  }
  rv->zSpec = fmt("%s/task.spec", rv->zWork);
  int rc = ks_file_write_atomic(rv->zSpec, b.z, b.n);
  ks_buf_free(&b);
  return rc;
}

/* Build one source into a shared object. *pzLog gets nvcc's output on failure. */
static int compile_one(review *rv, const char *zSource, const char *zTag, char **pzSo, char **pzLog) {
  const ks_task *t = rv->pTask;
  char *azArgv[96];
  int n = 0, rc = KS_OK;
  char *zSo = fmt("%s/%s.so", rv->zWork, zTag), *zShim = fmt("%s/ks_shim.c", rv->zWork);
  char *zArchFlag = fmt("-arch=%s", rv->zArch);
  char *zFlags = ks_review_source_flags(zSource);
  char *azLibs[16];
  int nLibs = 0;
  azArgv[n++] = (char *)nvcc_path();
  azArgv[n++] = "-shared";
  azArgv[n++] = "-Xcompiler";
  azArgv[n++] = "-fPIC";
  azArgv[n++] = "-cudart";
  azArgv[n++] = "shared"; /* one CUDA runtime with the harness: errors are visible to it */
  azArgv[n++] = "-O3";
  azArgv[n++] = zArchFlag;
  azArgv[n++] = "-Xlinker";
  azArgv[n++] = "--no-undefined"; /* a missing or C++-mangled entry fails here, clearly */
  azArgv[n++] = "-o";
  azArgv[n++] = zSo;
  azArgv[n++] = (char *)zSource;
  azArgv[n++] = zShim;
  for (int i = 0; i < t->nLib && nLibs < 16; i++) {
    if (!strcmp(t->azLib[i], "cub")) continue; /* header-only, from the toolkit: nothing to link */
    azLibs[nLibs] = fmt("-l%s", t->azLib[i]), azArgv[n++] = azLibs[nLibs++];
  }
  /* A version compiled outside the seed's folder (the loop's run folder)
   * still finds the seed's local #includes. */
  char *zSrcDir = ks_path_dirname(zSource), *zIncDir = NULL;
  if (t->zSourceDir && zSrcDir && strcmp(zSrcDir, t->zSourceDir) != 0) {
    zIncDir = fmt("-I%s", t->zSourceDir);
    if (zIncDir) azArgv[n++] = zIncDir;
  }
  free(zSrcDir);
  /* The source's recorded flags (`// kernelskill-flags:`), split at blanks. */
  for (char *p = zFlags ? strtok(zFlags, " \t") : NULL; p && n < 90; p = strtok(NULL, " \t")) azArgv[n++] = p;
  azArgv[n] = NULL;
  /* Build cache: the same source, shim and command line give the same
   * object; the loop and repeated benches rebuild nothing. */
  char *zCached = NULL;
  if (!getenv("KS_NO_BUILD_CACHE")) {
    uint64_t h = 0xcbf29ce484222325ull;
    char *zText = NULL;
    size_t nText = 0;
    for (int i = 0; i < n; i++) {
      /* The output and the shim live in the review's temporary folder: their
       * paths change every review (the shim's bytes are hashed below). */
      if (azArgv[i] == zSo || azArgv[i] == zShim) continue;
      for (const char *q = azArgv[i]; *q; q++) h = (h ^ (unsigned char)*q) * 0x100000001b3ull;
      h = (h ^ 0xFF) * 0x100000001b3ull;
    }
    for (int k = 0; k < 2; k++) {
      if (ks_file_read(k ? zShim : zSource, &zText, &nText) == KS_OK)
        for (size_t i = 0; i < nText; i++) h = (h ^ (unsigned char)zText[i]) * 0x100000001b3ull;
      free(zText);
      zText = NULL;
    }
    const char *zBase = getenv("XDG_CACHE_HOME"), *zHome = getenv("HOME");
    char *zDir = zBase && *zBase ? fmt("%s/kernelskill/builds", zBase)
                                 : fmt("%s/.cache/kernelskill/builds", zHome ? zHome : "/tmp");
    if (ks_dir_make(zDir) == KS_OK) zCached = fmt("%s/%016llx.so", zDir, (unsigned long long)h);
    free(zDir);
    if (zCached && ks_file_exists(zCached)) {
      if (rv->o.bVerbose) fprintf(stderr, "kernelskill: %s: cached build %s\n", zSource, zCached);
      *pzSo = zCached;
      zCached = NULL;
      goto done;
    }
  }
  child_res r;
  if (rv->o.bVerbose) fprintf(stderr, "kernelskill: nvcc %s -> %s\n", zSource, zSo);
  if ((rc = run_child(azArgv, 600, rv->zWork, zTag, GPU_NONE, &r)) < 0) goto done;
  if (r.iExit != 0) {
    ks_buf b = KS_BUF_INIT;
    ks_buf_puts(&b, r.zErr);
    ks_buf_puts(&b, r.zOut);
    char *zUndef = fmt("undefined reference to `%s'", t->zEntry);
    if (strstr(ks_buf_cstr(&b), zUndef))
      ks_buf_printf(&b, "note: the entry '%s' is not defined with extern \"C\" linkage (or has another name)\n",
                    t->zEntry);
    free(zUndef);
    if (r.bTimedOut) ks_buf_puts(&b, "nvcc did not finish within 600 s\n");
    *pzLog = ks_buf_detach(&b);
    rc = KS_EINVAL;
  } else if (zCached) {
    /* Publish atomically: copy into the cache under a temp name, rename. */
    char *zBuf = NULL;
    size_t nBuf = 0;
    if (ks_file_read(zSo, &zBuf, &nBuf) == KS_OK && ks_file_write_atomic(zCached, zBuf, nBuf) == KS_OK) {
      chmod(zCached, 0755);
      *pzSo = zCached;
      zCached = NULL;
    } else {
      *pzSo = zSo;
      zSo = NULL;
    }
    free(zBuf);
  } else {
    *pzSo = zSo;
    zSo = NULL;
  }
  child_res_free(&r);
done:
  free(zCached);
  for (int i = 0; i < nLibs; i++) free(azLibs[i]);
  free(zSo);
  free(zShim);
  free(zArchFlag);
  free(zFlags);
  free(zIncDir);
  return rc;
}

/* A child failure as (verdict, reason). */
static ks_verdict classify(const child_res *r, const cJSON *pJ, double rTimeout, char **pzWhy) {
  if (r->bTimedOut) {
    *pzWhy = fmt("did not finish within %.0f s (hang?); the process was killed", rTimeout);
    return KS_VERDICT_TIMEOUT;
  }
  if (r->iSignal) {
    *pzWhy = fmt("the process died: %s", signal_text(r->iSignal));
    return KS_VERDICT_RUNTIME_ERROR;
  }
  const cJSON *pKind = cJSON_GetObjectItemCaseSensitive(pJ, "kind");
  const cJSON *pMsg = cJSON_GetObjectItemCaseSensitive(pJ, "message");
  if (cJSON_IsString(pKind) && cJSON_IsString(pMsg)) {
    *pzWhy = fmt("%s: %s", pKind->valuestring, pMsg->valuestring);
    return strcmp(pKind->valuestring, "timeout") == 0 ? KS_VERDICT_TIMEOUT : KS_VERDICT_RUNTIME_ERROR;
  }
  const char *zErr = r->zErr && *r->zErr ? r->zErr : "no output";
  *pzWhy = fmt("the harness exited with %d: %.300s", r->iExit, zErr);
  return KS_VERDICT_RUNTIME_ERROR;
}

/* Run `check` for one build into zOutDir. Returns 1 on success, 0 on a failure
 * of the code under test (verdict/reason set), < 0 on an error of ours. */
static int run_check(review *rv, const char *zSo, const char *zTag, const char *zOutDir, ks_verdict *peV,
                     char **pzWhy, cJSON **ppJson) {
  char zSeed[32], zTrials[16];
  int nTrials = rv->o.nTrials > 0 ? rv->o.nTrials : rv->pTask->nTrials;
  if (nTrials < 5) nTrials = 5;
  snprintf(zSeed, sizeof zSeed, "%llu", (unsigned long long)rv->pTask->iSeed);
  snprintf(zTrials, sizeof zTrials, "%d", nTrials);
  if (mkdir(zOutDir, 0700) < 0 && errno != EEXIST) return ks_error_set(KS_EIO, "mkdir %s: %s", zOutDir, strerror(errno));
  char *azArgv[] = {rv->zHarness, "check", rv->zSpec, (char *)zSo, zSeed, zTrials, (char *)zOutDir, NULL};
  double rTimeout = rv->o.rTimeoutS > 0 ? rv->o.rTimeoutS : rv->pTask->rTimeoutS;
  child_res r;
  if (rv->o.bVerbose) fprintf(stderr, "kernelskill: checking %s (%d trials)\n", zTag, nTrials);
  int rc = run_child_rw(azArgv, rTimeout, rv->zWork, zOutDir, zTag, GPU_SHARED, &r);
  if (rc < 0) return rc;
  cJSON *pJ = child_json(&r);
  const cJSON *pOk = cJSON_GetObjectItemCaseSensitive(pJ, "ok");
  if (!r.bTimedOut && !r.iSignal && r.iExit == 0 && cJSON_IsTrue(pOk)) {
    *ppJson = pJ;
    child_res_free(&r);
    return 1;
  }
  if (r.iExit == 2 && !r.bTimedOut && !r.iSignal) {
    /* The harness's own problem (cannot load the build, ...). */
    const cJSON *pMsg = cJSON_GetObjectItemCaseSensitive(pJ, "message");
    rc = ks_error_set(KS_EUNAVAIL, "ks-harness failed: %s",
                      cJSON_IsString(pMsg) ? pMsg->valuestring : (r.zErr ? r.zErr : "?"));
    cJSON_Delete(pJ);
    child_res_free(&r);
    return rc;
  }
  *peV = classify(&r, pJ, rTimeout, pzWhy);
  cJSON_Delete(pJ);
  child_res_free(&r);
  return 0;
}

/* Compare every output of every trial. Returns 1 pass, 0 fail (reason set). */
static int compare_outputs(review *rv, const char *zRefDir, const char *zGotDir, int nTrials, char **pzWhy,
                           cJSON *pChecks) {
  const ks_task *t = rv->pTask;
  /* An expected output (captured) is the right answer itself, the same in
   * every trial: read once (the reference was checked against it, in
   * check_expected). */
  char **apExp = calloc((size_t)t->nArg + 1, sizeof(char *));
  size_t *anExp = calloc((size_t)t->nArg + 1, sizeof(size_t));
  int bOk = apExp && anExp, bExpect = 0;
  if (!bOk) *pzWhy = fmt("out of memory");
  for (int tr = 0; bOk && tr < nTrials; tr++) {
    for (int i = 0; bOk && i < t->nArg; i++) {
      const ks_task_arg *a = &t->aArg[i];
      if (a->eKind != KS_ARG_TENSOR || a->eIntent == KS_INTENT_IN) continue;
      char *zA = a->zExpect ? NULL : fmt("%s/t%d_a%d.bin", zRefDir, tr, i);
      char *zB = fmt("%s/t%d_a%d.bin", zGotDir, tr, i);
      char *pRefRead = NULL, *pGot = NULL, *zWhy = NULL;
      size_t nRef = 0, nGot = 0, nWant = (size_t)a->nElem * ks_dtype_size(a->eType);
      int rcRef = KS_OK;
      if (a->zExpect && !apExp[i]) rcRef = ks_file_read_limit(a->zExpect, KS_FILE_DATA_MAX, &apExp[i], &anExp[i]);
      else if (!a->zExpect) rcRef = ks_file_read_limit(zA, KS_FILE_DATA_MAX, &pRefRead, &nRef);
      const char *pRef = a->zExpect ? apExp[i] : pRefRead;
      if (a->zExpect) nRef = anExp[i];
      bOk = 0;
      if (rcRef < 0 || ks_file_read_limit(zB, KS_FILE_DATA_MAX, &pGot, &nGot) < 0) {
        *pzWhy = fmt("trial %d: output %s missing", tr, a->zName);
      } else if (nRef != nWant || nGot != nWant) {
        *pzWhy = fmt("trial %d: output %s has %zu bytes, expected %zu", tr, a->zName, nGot, nWant);
      } else {
        double rR, rA;
        ks_task_arg_tol(t, i, &rR, &rA);
        if (ks_review_compare(a->eType, (size_t)a->nElem, pRef, pGot, rR, rA, &zWhy) == KS_OK) bOk = 1;
        else if (a->zExpect) *pzWhy = fmt("trial %d: output %s differs from its expected output (%s): %s", tr, a->zName,
                                          a->zExpect, zWhy ? zWhy : "mismatch");
        else *pzWhy = fmt("trial %d (seed %llu): output %s: %s", tr, (unsigned long long)(t->iSeed + (uint64_t)tr),
                          a->zName, zWhy ? zWhy : "mismatch");
      }
      bExpect |= a->zExpect != NULL;
      free(zWhy);
      free(pRefRead);
      free(pGot);
      free(zA);
      free(zB);
    }
  }
  for (int i = 0; apExp && i < t->nArg; i++) free(apExp[i]);
  free(apExp);
  free(anExp);
  if (!bOk) return 0;
  cJSON_AddItemToArray(pChecks, cJSON_CreateString(bExpect ? "outputs match the expected outputs (task files) and the "
                                                             "reference within tolerance in every trial"
                                                           : "outputs match the reference within tolerance in every trial"));
  return 1;
}

/* A task that gives expected outputs (a capture) is only sound if its
 * reference reproduces them on the file inputs: a replay that misses state
 * the program had (a buffer not captured, a stream dependency) shows here,
 * as a task error, before any candidate is judged against it. */
static int check_expected(review *rv, const char *zRefDir, cJSON *pNotes) {
  const ks_task *t = rv->pTask;
  int nChecked = 0;
  for (int i = 0; i < t->nArg; i++) {
    const ks_task_arg *a = &t->aArg[i];
    if (a->eKind != KS_ARG_TENSOR || !a->zExpect) continue;
    char *zA = fmt("%s/t0_a%d.bin", zRefDir, i), *pRef = NULL, *pExp = NULL, *zWhy = NULL;
    size_t nRef = 0, nExp = 0, nWant = (size_t)a->nElem * ks_dtype_size(a->eType);
    int rc = ks_file_read_limit(zA, KS_FILE_DATA_MAX, &pRef, &nRef);
    if (rc == KS_OK) rc = ks_file_read_limit(a->zExpect, KS_FILE_DATA_MAX, &pExp, &nExp);
    if (rc == KS_OK && (nRef != nWant || nExp != nWant))
      rc = ks_error_set(KS_EINVAL, "%s: output %s: %zu bytes from the reference, %zu expected, the shape needs %zu",
                        t->zPath, a->zName, nRef, nExp, nWant);
    if (rc == KS_OK) {
      double rR, rA;
      ks_task_arg_tol(t, i, &rR, &rA);
      if (ks_review_compare(a->eType, (size_t)a->nElem, pExp, pRef, rR, rA, &zWhy) != KS_OK)
        rc = ks_error_set(KS_EINVAL, "%s: the reference does not reproduce args[%d] (%s).expect (%s): %s; the task's "
                          "inputs do not determine this output (state the replay does not capture?)",
                          t->zPath, i, a->zName, a->zExpect, zWhy ? zWhy : "mismatch");
    }
    free(zWhy);
    free(pRef);
    free(pExp);
    free(zA);
    if (rc < 0) return rc;
    nChecked++;
  }
  if (nChecked) {
    char *zN = fmt("the reference reproduces the task's %d expected output(s) on its file inputs", nChecked);
    cJSON_AddItemToArray(pNotes, cJSON_CreateString(zN));
    free(zN);
  }
  return KS_OK;
}

/* The reference's outputs must be usable: finite, and noted when constant. */
static int check_reference(review *rv, const char *zRefDir, cJSON *pNotes) {
  const ks_task *t = rv->pTask;
  for (int i = 0; i < t->nArg; i++) {
    const ks_task_arg *a = &t->aArg[i];
    if (a->eKind != KS_ARG_TENSOR || a->eIntent == KS_INTENT_IN) continue;
    char *zA = fmt("%s/t0_a%d.bin", zRefDir, i), *p = NULL;
    size_t n = 0;
    int rc = ks_file_read_limit(zA, KS_FILE_DATA_MAX, &p, &n);
    free(zA);
    if (rc < 0) return rc;
    size_t es = ks_dtype_size(a->eType);
    int bConst = 1;
    for (size_t j = 0; j < (size_t)a->nElem; j++) {
      double v = ks_review_elem(a->eType, p, j);
      if (ks_dtype_is_float(a->eType) && !isfinite(v)) {
        free(p);
        return ks_error_set(KS_EINVAL, "%s: the reference's output %s is not finite at index %zu: fix the task "
                            "(inputs, init) before reviewing", t->zPath, a->zName, j);
      }
      if (bConst && memcmp(p + j * es, p, es) != 0) bConst = 0;
    }
    if (bConst && a->nElem > 1) {
      char *zN = fmt("the reference's output %s is constant: the constant-output check cannot apply", a->zName);
      cJSON_AddItemToArray(pNotes, cJSON_CreateString(zN));
      free(zN);
    }
    free(p);
  }
  return KS_OK;
}

/* ---- timing, profile, ceilings ------------------------------------------ */

static cJSON *stats_json(const ks_timing_stats *s) {
  cJSON *p = cJSON_CreateObject();
  cJSON_AddNumberToObject(p, "runs", s->n);
  cJSON_AddNumberToObject(p, "median_us", s->rMedianUs);
  cJSON_AddNumberToObject(p, "q1_us", s->rQ1Us);
  cJSON_AddNumberToObject(p, "q3_us", s->rQ3Us);
  cJSON_AddNumberToObject(p, "iqr_us", s->rQ3Us - s->rQ1Us);
  cJSON_AddNumberToObject(p, "min_us", s->rMinUs);
  cJSON_AddNumberToObject(p, "max_us", s->rMaxUs);
  cJSON_AddNumberToObject(p, "mean_us", s->rMeanUs);
  return p;
}

static int samples(const cJSON *pJ, const char *zKey, ks_timing_stats *pOut) {
  const cJSON *pA = cJSON_GetObjectItemCaseSensitive(pJ, zKey);
  int n = cJSON_GetArraySize(pA), i = 0;
  if (n <= 0) return 0;
  double *ar = malloc(sizeof(double) * (size_t)n);
  if (!ar) return 0;
  for (const cJSON *q = pA->child; q; q = q->next) ar[i++] = q->valuedouble;
  ks_review_stats(ar, n, pOut);
  free(ar);
  return 1;
}

static int run_timing(review *rv, const char *zSeedSo, const char *zCandSo, cJSON *pTiming, char **pzWhy) {
  ks_review_result *res = rv->pRes;
  char zRuns[16];
  int nRuns = rv->o.nRuns < 50 ? 50 : rv->o.nRuns;
  snprintf(zRuns, sizeof zRuns, "%d", nRuns);
  char *azArgv[] = {rv->zHarness, "time", rv->zSpec, zRuns, (char *)zSeedSo, (char *)zCandSo, NULL};
  double rTimeout = 4 * (rv->o.rTimeoutS > 0 ? rv->o.rTimeoutS : rv->pTask->rTimeoutS) + 60;
  child_res r;
  if (rv->o.bVerbose) fprintf(stderr, "kernelskill: timing (%d runs each, cold L2)\n", nRuns);
  int rc = run_child(azArgv, rTimeout, rv->zWork, "time", GPU_EXCLUSIVE, &r);
  if (rc < 0) return rc;
  cJSON *pJ = child_json(&r);
  if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(pJ, "ok")) || r.bTimedOut || r.iSignal) {
    classify(&r, pJ, rTimeout, pzWhy);
    cJSON_Delete(pJ);
    child_res_free(&r);
    return 0;
  }
  samples(pJ, "a1", &res->seed);
  samples(pJ, "a2", &res->seed2);
  if (zCandSo) samples(pJ, "b", &res->cand);
  else res->cand = res->seed;
  res->bTimed = 1;
  double rM = res->seed.rMedianUs;
  res->rNoisePct = rM > 0 ? 100.0 * fabs(res->seed.rMedianUs - res->seed2.rMedianUs) / rM : 0;
  res->rThresholdPct = res->rNoisePct > 1.0 ? res->rNoisePct : 1.0;
  /* Baseline: the seed's two series together. */
  double rBase = 0.5 * (res->seed.rMedianUs + res->seed2.rMedianUs);
  res->rSpeedup = res->cand.rMedianUs > 0 ? rBase / res->cand.rMedianUs : 0;
  cJSON_AddNumberToObject(pTiming, "runs", nRuns);
  cJSON_AddStringToObject(pTiming, "method", "CUDA events around the entry call on the default stream; L2 flushed "
                                             "(memset larger than L2) before every run; 10 warm-up calls; seed, "
                                             "candidate, seed again interleaved with rotating order");
  const cJSON *pFl = cJSON_GetObjectItemCaseSensitive(pJ, "flush_bytes");
  if (cJSON_IsNumber(pFl)) cJSON_AddNumberToObject(pTiming, "l2_flush_bytes", pFl->valuedouble);
  cJSON_AddItemToObject(pTiming, "seed", stats_json(&res->seed));
  cJSON_AddItemToObject(pTiming, "seed_again", stats_json(&res->seed2));
  if (zCandSo) cJSON_AddItemToObject(pTiming, "candidate", stats_json(&res->cand));
  cJSON_AddNumberToObject(pTiming, "noise_pct", res->rNoisePct);
  cJSON_AddNumberToObject(pTiming, "threshold_pct", res->rThresholdPct);
  if (zCandSo) cJSON_AddNumberToObject(pTiming, "speedup", res->rSpeedup);
  cJSON_Delete(pJ);
  child_res_free(&r);
  return 1;
}

/* "_Z10vec_kernelPfi" -> "vec_kernel"; plain names unchanged. */
static char *short_kernel_name(const char *z) {
  if (strncmp(z, "_Z", 2) == 0) {
    const char *p = z + 2;
    if (*p == 'N') p++; /* nested name: take the first part */
    int n = 0;
    while (*p >= '0' && *p <= '9') n = n * 10 + (*p++ - '0');
    if (n > 0 && (int)strlen(p) >= n) {
      char *zOut = malloc((size_t)n + 1);
      if (zOut) memcpy(zOut, p, (size_t)n), zOut[n] = 0;
      return zOut;
    }
  }
  return ks_strdup(z);
}

static double metric(const cJSON *pM, const char *zName, int *pbHas) {
  const cJSON *p = cJSON_GetObjectItemCaseSensitive(pM, zName);
  if (cJSON_IsNumber(p)) {
    *pbHas = 1;
    return p->valuedouble;
  }
  *pbHas = 0;
  return 0;
}

/* Normalized profile fields (the planner's vocabulary) from raw metrics and
 * the activity record of one kernel. */
static void kernel_profile(review *rv, const cJSON *pK, const cJSON *pM, int nLaunches, cJSON *pProf) {
  int b;
  double v;
  const cJSON *pInfo = rv->pInfo;
  const cJSON *pDur = cJSON_GetObjectItemCaseSensitive(pK, "duration_ns");
  if (pM && (v = metric(pM, "gpu__time_duration.sum", &b), b)) cJSON_AddNumberToObject(pProf, "duration_us", v / 1000.0);
  else if (cJSON_IsNumber(pDur)) cJSON_AddNumberToObject(pProf, "duration_us", pDur->valuedouble / 1000.0);
  static const struct { const char *zRaw, *zField; } aMap[] = {
      {"dram__throughput.avg.pct_of_peak_sustained_elapsed", "dram_pct"},
      {"sm__throughput.avg.pct_of_peak_sustained_elapsed", "sm_pct"},
      {"lts__throughput.avg.pct_of_peak_sustained_elapsed", "l2_pct"},
      {"sm__warps_active.avg.pct_of_peak_sustained_active", "achieved_occupancy_pct"},
      {"sm__maximum_warps_per_active_cycle_pct", "theoretical_occupancy_pct"},
      {"l1tex__t_sector_hit_rate.pct", "l1_hit_pct"},
      {"lts__t_sector_hit_rate.pct", "l2_hit_pct"},
      {"smsp__inst_executed.sum", "inst_executed"},
  };
  for (size_t i = 0; pM && i < sizeof aMap / sizeof aMap[0]; i++)
    if ((v = metric(pM, aMap[i].zRaw, &b), b)) cJSON_AddNumberToObject(pProf, aMap[i].zField, v);
  /* Stall reasons as shares of the cycles per issued instruction. */
  double rTotal = pM ? metric(pM, "smsp__average_warp_latency_per_inst_issued.ratio", &b) : 0;
  if (pM && b && rTotal > 0) {
    static const char *const azStall[] = {"long_scoreboard", "short_scoreboard", "barrier", "mio_throttle",
                                          "lg_throttle", "math_pipe_throttle"};
    static const char *const azField[] = {"stall_long_scoreboard", "stall_short_scoreboard", "stall_barrier",
                                          "stall_mio_throttle", "stall_lg_throttle", "stall_math_throttle"};
    for (int i = 0; i < 6; i++) {
      char zName[160];
      snprintf(zName, sizeof zName, "smsp__average_warps_issue_stalled_%s_per_issue_active.ratio", azStall[i]);
      if ((v = metric(pM, zName, &b), b)) cJSON_AddNumberToObject(pProf, azField[i], v / rTotal);
    }
  }
  /* Branch efficiency reads 0 on kernels whose only branches are trivially
   * uniform (seen on the H200 for vadd): 0 is "no data", not "all divergent". */
  if (pM && (v = metric(pM, "smsp__sass_average_branch_targets_threads_uniform.pct", &b), b) && v > 0)
    cJSON_AddNumberToObject(pProf, "branch_divergence_pct", 100.0 - v);
  double rDur = pM ? metric(pM, "gpu__time_duration.sum", &b) : 0;
  int bDur = b;
  double rBytes = pM ? metric(pM, "dram__bytes.sum", &b) : 0;
  if (pM && b && bDur && rDur > 0) cJSON_AddNumberToObject(pProf, "achieved_dram_gbps", rBytes / rDur);
  /* Launch shape from the activity record. */
  const cJSON *pRegs = cJSON_GetObjectItemCaseSensitive(pK, "registers");
  if (cJSON_IsNumber(pRegs)) cJSON_AddNumberToObject(pProf, "registers", pRegs->valuedouble);
  const cJSON *pS = cJSON_GetObjectItemCaseSensitive(pK, "static_smem"), *pD = cJSON_GetObjectItemCaseSensitive(pK, "dynamic_smem");
  if (cJSON_IsNumber(pS) && cJSON_IsNumber(pD)) cJSON_AddNumberToObject(pProf, "shared_bytes", pS->valuedouble + pD->valuedouble);
  const cJSON *pG = cJSON_GetObjectItemCaseSensitive(pK, "grid"), *pB = cJSON_GetObjectItemCaseSensitive(pK, "block");
  double rGrid = 1, rBlock = 1;
  for (const cJSON *q = pG ? pG->child : NULL; q; q = q->next) rGrid *= q->valuedouble;
  for (const cJSON *q = pB ? pB->child : NULL; q; q = q->next) rBlock *= q->valuedouble;
  if (pG && pB) {
    cJSON_AddNumberToObject(pProf, "grid_size", rGrid);
    cJSON_AddNumberToObject(pProf, "block_size", rBlock);
  }
  const cJSON *pSms = cJSON_GetObjectItemCaseSensitive(pInfo, "sm_count");
  if (cJSON_IsNumber(pSms)) cJSON_AddNumberToObject(pProf, "num_sms", pSms->valuedouble);
  /* The occupancy calculator (what limits resident blocks per SM), from the
   * launch record and the device's limits. */
  const cJSON *pMaxT = cJSON_GetObjectItemCaseSensitive(pInfo, "max_threads_per_sm");
  const cJSON *pRegsSm = cJSON_GetObjectItemCaseSensitive(pInfo, "regs_per_sm");
  const cJSON *pSmemSm = cJSON_GetObjectItemCaseSensitive(pInfo, "smem_per_sm");
  const cJSON *pMaxB = cJSON_GetObjectItemCaseSensitive(pInfo, "max_blocks_per_sm");
  const cJSON *pResv = cJSON_GetObjectItemCaseSensitive(pInfo, "reserved_smem_per_block");
  if (pG && pB && cJSON_IsNumber(pMaxT) && cJSON_IsNumber(pRegsSm) && cJSON_IsNumber(pSmemSm) &&
      cJSON_IsNumber(pMaxB) && cJSON_IsNumber(pRegs) && cJSON_IsNumber(pS) && cJSON_IsNumber(pD)) {
    double rWarps = ceil(rBlock / 32.0), rMaxWarps = pMaxT->valuedouble / 32.0;
    double rLimWarps = floor(rMaxWarps / rWarps);
    double rRegsPerWarp = ceil(pRegs->valuedouble * 32.0 / 256.0) * 256.0; /* allocation unit: 256 per warp */
    double rLimRegs = rRegsPerWarp > 0 ? floor(pRegsSm->valuedouble / (rRegsPerWarp * rWarps)) : pMaxB->valuedouble;
    double rSmem = pS->valuedouble + pD->valuedouble;
    double rResv = cJSON_IsNumber(pResv) ? pResv->valuedouble : 0;
    double rLimSmem = rSmem > 0 ? floor(pSmemSm->valuedouble / (rSmem + rResv)) : pMaxB->valuedouble;
    double rLimBlocks = pMaxB->valuedouble;
    cJSON_AddNumberToObject(pProf, "blocks_per_sm_limit_registers", rLimRegs);
    cJSON_AddNumberToObject(pProf, "blocks_per_sm_limit_shared", rLimSmem);
    cJSON_AddNumberToObject(pProf, "blocks_per_sm_limit_warps", rLimWarps);
    cJSON_AddNumberToObject(pProf, "blocks_per_sm_limit_blocks", rLimBlocks);
    double rBlocksPerSm = fmin(fmin(rLimRegs, rLimSmem), fmin(rLimWarps, rLimBlocks));
    if (!cJSON_GetObjectItemCaseSensitive(pProf, "theoretical_occupancy_pct"))
      cJSON_AddNumberToObject(pProf, "theoretical_occupancy_pct", 100.0 * rBlocksPerSm * rWarps / rMaxWarps);
    if (rBlocksPerSm >= 1 && cJSON_IsNumber(pSms))
      cJSON_AddNumberToObject(pProf, "waves", rGrid / (rBlocksPerSm * pSms->valuedouble));
  }
  cJSON_AddNumberToObject(pProf, "launches", nLaunches);
}

static cJSON *run_profile_once(review *rv, const char *zSo, const char *const *azM, int nM, child_res *pR) {
  char *azArgv[64];
  int n = 0;
  azArgv[n++] = rv->zHarness;
  azArgv[n++] = "profile";
  azArgv[n++] = rv->zSpec;
  azArgv[n++] = (char *)zSo;
  for (int i = 0; i < nM && n < 62; i++) azArgv[n++] = (char *)azM[i];
  azArgv[n] = NULL;
  double rTimeout = 10 * (rv->o.rTimeoutS > 0 ? rv->o.rTimeoutS : rv->pTask->rTimeoutS) + 60;
  if (run_child(azArgv, rTimeout, rv->zWork, "profile", GPU_EXCLUSIVE, pR) < 0) return NULL;
  return child_json(pR);
}

static void run_profile(review *rv, const char *zSo, cJSON *pKernels, cJSON *pNotes) {
  const char *azAll[40];
  int nAll = 0, nCore = 0;
  for (int i = 0; azCoreMetrics[i]; i++) azAll[nAll++] = azCoreMetrics[i];
  nCore = nAll;
  if (rv->o.bMetrics)
    for (int i = 0; azExtraMetrics[i]; i++) azAll[nAll++] = azExtraMetrics[i];
  child_res r;
  if (rv->o.bVerbose) fprintf(stderr, "kernelskill: profiling (CUPTI)\n");
  cJSON *pJ = run_profile_once(rv, zSo, azAll, nAll, &r);
  const cJSON *pErr = cJSON_GetObjectItemCaseSensitive(pJ, "metrics_error");
  if (rv->o.bMetrics && cJSON_IsString(pErr)) {
    /* Some metric of the extended list was refused: the verified core list. */
    char *zN = fmt("extended metrics refused (%s); retried with the core metrics", pErr->valuestring);
    cJSON_AddItemToArray(pNotes, cJSON_CreateString(zN));
    free(zN);
    cJSON_Delete(pJ);
    child_res_free(&r);
    pJ = run_profile_once(rv, zSo, azAll, nCore, &r);
    pErr = cJSON_GetObjectItemCaseSensitive(pJ, "metrics_error");
  }
  if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(pJ, "ok"))) {
    char *zWhy = NULL;
    classify(&r, pJ, 0, &zWhy);
    char *zN = fmt("profiling failed (%s): timings only", zWhy ? zWhy : "?");
    cJSON_AddItemToArray(pNotes, cJSON_CreateString(zN));
    free(zN);
    free(zWhy);
    cJSON_Delete(pJ);
    child_res_free(&r);
    return;
  }
  if (cJSON_IsString(pErr)) {
    char *zN = fmt("hardware counters unavailable (%s): durations and launch shapes only", pErr->valuestring);
    cJSON_AddItemToArray(pNotes, cJSON_CreateString(zN));
    free(zN);
  }
  const cJSON *pRef = cJSON_GetObjectItemCaseSensitive(pJ, "metrics_refused");
  if (cJSON_GetArraySize(pRef) > 0) {
    ks_buf b = KS_BUF_INIT;
    for (const cJSON *q = pRef->child; q; q = q->next)
      if (cJSON_IsString(q)) ks_buf_printf(&b, "%s%s", b.n ? ", " : "", q->valuestring);
    char *zN = fmt("metrics not available on this chip: %s", ks_buf_cstr(&b));
    cJSON_AddItemToArray(pNotes, cJSON_CreateString(zN));
    free(zN);
    ks_buf_free(&b);
  }
  const cJSON *pAct = cJSON_GetObjectItemCaseSensitive(pJ, "activity_error");
  if (cJSON_IsString(pAct)) {
    char *zN = fmt("CUPTI activity unavailable (%s)", pAct->valuestring);
    cJSON_AddItemToArray(pNotes, cJSON_CreateString(zN));
    free(zN);
  }
  const cJSON *pK = cJSON_GetObjectItemCaseSensitive(pJ, "kernels");
  const cJSON *pMs = cJSON_GetObjectItemCaseSensitive(pJ, "metrics");
  int nK = cJSON_GetArraySize(pK), nR = cJSON_GetArraySize(pMs);
  if (pMs && nR != nK && nK > 0) {
    char *zN = fmt("%d profiled ranges for %d kernel launches: metrics matched by order", nR, nK);
    cJSON_AddItemToArray(pNotes, cJSON_CreateString(zN));
    free(zN);
  }
  for (int i = 0; i < nK; i++) {
    const cJSON *pOne = cJSON_GetArrayItem(pK, i);
    const cJSON *pM = i < nR ? cJSON_GetArrayItem(pMs, i) : NULL;
    cJSON *pOut = cJSON_CreateObject(), *pProf = cJSON_CreateObject(), *pRaw = cJSON_CreateObject();
    const cJSON *pName = cJSON_GetObjectItemCaseSensitive(pOne, "name");
    char *zShort = short_kernel_name(cJSON_IsString(pName) ? pName->valuestring : "?");
    cJSON_AddStringToObject(pOut, "name", zShort ? zShort : "?");
    if (cJSON_IsString(pName) && zShort && strcmp(zShort, pName->valuestring))
      cJSON_AddStringToObject(pOut, "mangled", pName->valuestring);
    free(zShort);
    kernel_profile(rv, pOne, pM, nK, pProf);
    for (const cJSON *q = pM ? pM->child : NULL; q; q = q->next)
      if (cJSON_IsNumber(q)) cJSON_AddNumberToObject(pRaw, q->string, q->valuedouble);
    /* ncu's names for what the activity record gives. */
    const cJSON *pRegs = cJSON_GetObjectItemCaseSensitive(pOne, "registers");
    if (cJSON_IsNumber(pRegs)) cJSON_AddNumberToObject(pRaw, "launch__registers_per_thread", pRegs->valuedouble);
    cJSON_AddItemToObject(pOut, "profile", pProf);
    cJSON_AddItemToObject(pOut, "metrics", pRaw);
    cJSON_AddItemToObject(pOut, "activity", cJSON_Duplicate(pOne, 1));
    cJSON_AddItemToArray(pKernels, pOut);
  }
  cJSON_Delete(pJ);
  child_res_free(&r);
}

static char *cache_path(const char *zUuid) {
  const char *zBase = getenv("XDG_CACHE_HOME");
  const char *zHome = getenv("HOME");
  char *zDir = zBase && *zBase ? fmt("%s/kernelskill", zBase) : fmt("%s/.cache/kernelskill", zHome ? zHome : "/tmp");
  ks_dir_make(zDir);
  char *z = fmt("%s/ceilings-%s.json", zDir, zUuid);
  free(zDir);
  return z;
}

static cJSON *ceilings_cached(const char *zPath) {
  char *zText = NULL;
  size_t n;
  if (ks_file_read(zPath, &zText, &n) != KS_OK) return NULL;
  cJSON *pC = cJSON_Parse(zText);
  free(zText);
  if (pC && cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(pC, "dram_gbps"))) {
    cJSON_AddBoolToObject(pC, "cached", 1);
    return pC;
  }
  cJSON_Delete(pC);
  return NULL;
}

/* Measured once per device and cached ($XDG_CACHE_HOME/kernelskill). The
 * measurement holds the GPU lock exclusively and looks at the cache again
 * once it has it: concurrent first reviews measure once, not once each. */
static cJSON *ceilings(review *rv, cJSON *pNotes) {
  const cJSON *pUuid = cJSON_GetObjectItemCaseSensitive(rv->pInfo, "uuid");
  char *zPath = cache_path(cJSON_IsString(pUuid) ? pUuid->valuestring : "unknown");
  cJSON *pC = ceilings_cached(zPath);
  if (pC) {
    free(zPath);
    return pC;
  }
  int fdLock = gpu_lock_acquire(GPU_EXCLUSIVE);
  if ((pC = ceilings_cached(zPath))) goto done;
  char *azArgv[] = {rv->zHarness, "ceilings", NULL};
  child_res r;
  if (rv->o.bVerbose) fprintf(stderr, "kernelskill: measuring the device's ceilings (once per device)\n");
  if (run_child(azArgv, 300, rv->zWork, "ceilings", GPU_NONE, &r) == KS_OK) {
    pC = child_json(&r);
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(pC, "ok"))) {
      cJSON_DeleteItemFromObject(pC, "ok");
      char *zOut = cJSON_Print(pC);
      if (zOut) ks_file_write_atomic(zPath, zOut, strlen(zOut));
      free(zOut);
      cJSON_AddBoolToObject(pC, "cached", 0);
    } else {
      cJSON_Delete(pC);
      pC = NULL;
      cJSON_AddItemToArray(pNotes, cJSON_CreateString("measuring the ceilings failed: no roofline"));
    }
    child_res_free(&r);
  }
done:
  gpu_lock_release(fdLock);
  free(zPath);
  return pC;
}

static void roofline(review *rv, cJSON *pC, cJSON *pRoof, cJSON *pKernels) {
  const ks_task *t = rv->pTask;
  const ks_review_result *res = rv->pRes;
  if (!pC) return;
  double rBw = cJSON_GetObjectItemCaseSensitive(pC, "dram_gbps")->valuedouble;
  const cJSON *pF = cJSON_GetObjectItemCaseSensitive(pC, "fp32_gflops");
  double rPeak = cJSON_IsNumber(pF) ? pF->valuedouble : 0;
  cJSON_AddNumberToObject(pRoof, "dram_gbps_ceiling", rBw);
  cJSON_AddNumberToObject(pRoof, "fp32_gflops_ceiling", rPeak);
  cJSON_AddBoolToObject(pRoof, "ceilings_cached", cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(pC, "cached")));
  if (!t->bHasCost || !res->bTimed || res->cand.rMedianUs <= 0) {
    cJSON_AddStringToObject(pRoof, "note", t->bHasCost ? "not timed" : "the task has no cost: no roofline position");
    return;
  }
  double rS = res->cand.rMedianUs * 1e-6;
  double rGbps = t->rBytes / rS / 1e9, rGflops = t->rFlops / rS / 1e9;
  double rTMem = rBw > 0 ? t->rBytes / (rBw * 1e9) : 0, rTComp = rPeak > 0 ? t->rFlops / (rPeak * 1e9) : 0;
  double rTMin = rTMem > rTComp ? rTMem : rTComp;
  cJSON_AddNumberToObject(pRoof, "cost_flops", t->rFlops);
  cJSON_AddNumberToObject(pRoof, "cost_bytes", t->rBytes);
  cJSON_AddNumberToObject(pRoof, "achieved_gbps", rGbps);
  cJSON_AddNumberToObject(pRoof, "achieved_gflops", rGflops);
  cJSON_AddNumberToObject(pRoof, "arithmetic_intensity", t->rBytes > 0 ? t->rFlops / t->rBytes : 0);
  cJSON_AddStringToObject(pRoof, "bound", rTMem >= rTComp ? "memory" : "compute");
  cJSON_AddNumberToObject(pRoof, "roofline_time_us", rTMin * 1e6);
  double rPct = rTMin > 0 ? 100.0 * rTMin / rS : 0;
  cJSON_AddNumberToObject(pRoof, "roofline_pct", rPct);
  /* The compute ceiling is the FP32 CUDA cores': a TF32 (tensor-core) candidate
   * can pass it, which is no measuring error but another ceiling, unmeasured. */
  if (rTComp > rTMem && rPct > 100.0)
    cJSON_AddStringToObject(pRoof, "ceiling_note",
                            "above the FP32 CUDA-core ceiling: the version computes on tensor cores, whose ceiling "
                            "the Reviewer does not measure");
  /* The entry's figures on every kernel's profile (single-kernel tasks: exact). */
  for (cJSON *k = pKernels ? pKernels->child : NULL; k; k = k->next) {
    cJSON *pProf = cJSON_GetObjectItemCaseSensitive(k, "profile");
    if (!pProf) continue;
    if (!cJSON_GetObjectItemCaseSensitive(pProf, "achieved_dram_gbps"))
      cJSON_AddNumberToObject(pProf, "achieved_dram_gbps", rGbps);
    cJSON_AddNumberToObject(pProf, "achieved_gflops", rGflops);
    cJSON_AddNumberToObject(pProf, "roofline_pct", rPct);
  }
}

/* ---- the review ---------------------------------------------------------- */

static void set_verdict(review *rv, ks_verdict e, const char *zReason, const char *zDetail) {
  rv->pRes->eVerdict = e;
  free(rv->pRes->zReason);
  rv->pRes->zReason = ks_strdup(zReason ? zReason : "");
  if (zDetail) {
    free(rv->pRes->zDetail);
    rv->pRes->zDetail = ks_strdup(zDetail);
  }
}

/* The reference's outputs depend only on its build, the spec (shapes, inits),
 * the seed and the trial count: with opts.zRefCache, a folder keyed by them
 * holds them for later reviews (the loop reviews many candidates against one
 * reference). Only builds from the content-addressed build cache have a
 * stable identity; anything else is run every time (NULL). */
static char *ref_cache_dir(review *rv, const char *zRefSo, int nTrials) {
  if (!rv->o.zRefCache || !zRefSo || !strstr(zRefSo, "/kernelskill/builds/")) return NULL;
  uint64_t h = 0xcbf29ce484222325ull;
  char *zSpec = NULL;
  size_t nSpec = 0;
  if (ks_file_read(rv->zSpec, &zSpec, &nSpec) < 0) return NULL;
  /* The harness generates the inputs: another build of it may generate others. */
  struct stat stH;
  memset(&stH, 0, sizeof stH);
  if (rv->zHarness) stat(rv->zHarness, &stH);
  char *zKey = fmt("%s|%llu|%d|%s|%lld|%lld", zRefSo, (unsigned long long)rv->pTask->iSeed, nTrials, rv->zArch,
                   (long long)stH.st_size, (long long)stH.st_mtime);
  for (const char *q = zKey; q && *q; q++) h = (h ^ (unsigned char)*q) * 0x100000001b3ull;
  for (size_t i = 0; i < nSpec; i++) h = (h ^ (unsigned char)zSpec[i]) * 0x100000001b3ull;
  free(zSpec);
  free(zKey);
  /* The spec names file inputs by path: their identity is part of the key
   * (device, inode, size, modification and change times: any write to the
   * file changes its ctime), without rereading the data for every review. */
  for (int i = 0; i < rv->pTask->nArg; i++) {
    const ks_task_arg *a = &rv->pTask->aArg[i];
    if (a->eKind != KS_ARG_TENSOR || a->eIntent == KS_INTENT_OUT || a->init.eDist != KS_DIST_FILE) continue;
    struct stat st;
    if (stat(a->init.zFile, &st) != 0) return NULL;
    unsigned long long aId[] = {(unsigned long long)st.st_dev, (unsigned long long)st.st_ino,
                                (unsigned long long)st.st_size, (unsigned long long)st.st_mtim.tv_sec,
                                (unsigned long long)st.st_mtim.tv_nsec, (unsigned long long)st.st_ctim.tv_sec,
                                (unsigned long long)st.st_ctim.tv_nsec};
    const unsigned char *q = (const unsigned char *)aId;
    for (size_t j = 0; j < sizeof aId; j++) h = (h ^ q[j]) * 0x100000001b3ull;
  }
  if (ks_dir_make(rv->o.zRefCache) < 0) return NULL;
  return fmt("%s/%016llx", rv->o.zRefCache, (unsigned long long)h);
}

static cJSON *ref_cache_load(const char *zDone) {
  char *z = NULL;
  size_t n = 0;
  if (ks_file_read(zDone, &z, &n) < 0) return NULL;
  cJSON *p = cJSON_ParseWithLength(z, n);
  free(z);
  if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "ok"))) {
    cJSON_Delete(p);
    return NULL;
  }
  return p;
}

/* The device (ks-harness info) and the arch the builds target, into the
 * evidence; KS_EUNAVAIL when there is no CUDA device. */
static int device_info(review *pRv, cJSON *pEv) {
  int rc = KS_OK;
  if (!pRv->o.bCompileOnly) {
    char *azArgv[] = {pRv->zHarness, "info", NULL};
    child_res r;
    if ((rc = run_child(azArgv, 120, pRv->zWork, "info", GPU_SHARED, &r)) < 0) return rc;
    pRv->pInfo = child_json(&r);
    int iExit = r.iExit;
    child_res_free(&r);
    if (iExit == 3) return ks_error_set(KS_EUNAVAIL, "no CUDA device: skipped");
    if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(pRv->pInfo, "ok")))
      return ks_error_set(KS_EUNAVAIL, "ks-harness info failed (exit %d)", iExit);
    const cJSON *pCc = cJSON_GetObjectItemCaseSensitive(pRv->pInfo, "cc");
    int iMaj = 0, iMin = 0;
    if (cJSON_IsString(pCc)) sscanf(pCc->valuestring, "%d.%d", &iMaj, &iMin);
    pRv->zArch = pRv->o.zArch ? ks_strdup(pRv->o.zArch) : fmt("sm_%d%d", iMaj, iMin);
    cJSON *pGpu = cJSON_Duplicate(pRv->pInfo, 1);
    cJSON_DeleteItemFromObject(pGpu, "ok");
    cJSON_AddItemToObject(pEv, "gpu", pGpu);
  } else {
    pRv->zArch = ks_strdup(pRv->o.zArch ? pRv->o.zArch : "sm_90");
  }
  if (!pRv->zArch) return ks_error_set(KS_ENOMEM, "out of memory");
  cJSON_AddStringToObject(pEv, "arch", pRv->zArch);
  return rc;
}

int ks_review_run(const ks_task *pTask, const ks_review_opts *pOpts, ks_review_result **ppRes) {
  *ppRes = NULL;
  if (pOpts && pOpts->version != KS_REVIEW_OPTS_VERSION)
    return ks_error_set(KS_EUSAGE, "ks_review_opts: unsupported version %u", pOpts->version);
  review rv;
  int rc = KS_OK;
  char *zSeedSo = NULL, *zRefSo = NULL, *zCandSo = NULL, *zLog = NULL, *zWhy = NULL;
  cJSON *pCheckRef = NULL, *pCheckCand = NULL, *pCeil = NULL;
  memset(&rv, 0, sizeof rv);
  *ppRes = NULL;
  rv.pTask = pTask;
  if (pOpts) rv.o = *pOpts;
  else rv.o = (ks_review_opts)KS_REVIEW_OPTS_INIT;
  rv.pRes = calloc(1, sizeof *rv.pRes);
  rv.pEv = cJSON_CreateObject();
  if (!rv.pRes || !rv.pEv) {
    rc = ks_error_set(KS_ENOMEM, "out of memory");
    goto done;
  }
  if (!pTask->zSource) {
    rc = ks_error_set(KS_EUSAGE, "%s: the task has no source, only a spec: kernelskill optimize --llm URL generates "
                                 "a seed",
                      pTask->zPath);
    goto done;
  }
  if (rv.o.zCandidate && !ks_file_exists(rv.o.zCandidate)) {
    rc = ks_error_set(KS_ENOTFOUND, "%s: no such candidate file", rv.o.zCandidate);
    goto done;
  }
  cJSON *pEv = rv.pEv;
  cJSON_AddNumberToObject(pEv, "ks_evidence", 1);
  cJSON_AddStringToObject(pEv, "task", pTask->zName);
  cJSON_AddStringToObject(pEv, "source", rv.o.zCandidate ? rv.o.zCandidate : pTask->zSource);
  cJSON_AddStringToObject(pEv, "seed", pTask->zSource);
  cJSON_AddStringToObject(pEv, "reference", pTask->zReference ? pTask->zReference : pTask->zSource);
  cJSON *pNotes = cJSON_CreateArray();

  /* The device first: without one, only --compile-only makes sense. */
  if (!rv.o.bCompileOnly) {
    if (!(rv.zHarness = find_harness(&rv.o))) {
      rc = ks_error_set(KS_EUNAVAIL, "ks-harness not found next to the executable (set KS_HARNESS)");
      goto done_notes;
    }
  }
  if (rv.o.zWorkDir) {
    rv.zWork = ks_strdup(rv.o.zWorkDir);
    if (ks_dir_make(rv.zWork) < 0) {
      rc = KS_EIO;
      goto done_notes;
    }
  } else {
    const char *zTmp = getenv("TMPDIR");
    rv.zWork = fmt("%s/ks-review-XXXXXX", zTmp && *zTmp ? zTmp : "/tmp");
    if (!mkdtemp(rv.zWork)) {
      rc = ks_error_set(KS_EIO, "mkdtemp %s: %s", rv.zWork, strerror(errno));
      goto done_notes;
    }
    rv.bOwnWork = 1;
  }
  if ((rc = device_info(&rv, pEv)) < 0) goto done_notes;

  /* Build: separate shared objects, so symbols of seed, reference and candidate cannot clash. */
  if ((rc = write_shim(&rv)) < 0 || (rc = write_spec(&rv)) < 0) goto done_notes;
  /* KS_EINVAL from compile_one is nvcc refusing the file; other errors are
   * ours and keep their own message. */
  if ((rc = compile_one(&rv, pTask->zSource, "seed", &zSeedSo, &zLog)) < 0) {
    if (rc == KS_EINVAL)
      rc = ks_error_set(KS_EINVAL, "%s: the seed does not compile:\n%s", pTask->zSource, zLog ? zLog : "");
    goto done_notes;
  }
  if (pTask->zReference && (rc = compile_one(&rv, pTask->zReference, "reference", &zRefSo, &zLog)) < 0) {
    if (rc == KS_EINVAL)
      rc = ks_error_set(KS_EINVAL, "%s: the reference does not compile:\n%s", pTask->zReference, zLog ? zLog : "");
    goto done_notes;
  }
  if (rv.o.zCandidate && (rc = compile_one(&rv, rv.o.zCandidate, "candidate", &zCandSo, &zLog)) < 0) {
    /* KS_EINVAL: nvcc refused the candidate (its verdict); anything else is
     * ours (no ks-isolate, no memory) and no verdict on the candidate. */
    if (rc != KS_EINVAL) goto done_notes;
    rc = KS_OK;
    set_verdict(&rv, KS_VERDICT_COMPILE_ERROR, "nvcc failed", zLog);
    goto finish;
  }
  if (rv.o.bCompileOnly) {
    /* the candidate's recorded flags come after -arch: nvcc keeps the last -arch */
    char *zFl = zCandSo ? ks_review_source_flags(rv.o.zCandidate) : NULL;
    char *z = fmt("built for %s: seed%s%s%s%s%s", rv.zArch, zRefSo ? ", reference" : "", zCandSo ? ", candidate" : "",
                  zFl ? " (with its kernelskill-flags: " : "", zFl ? zFl : "", zFl ? ")" : "");
    free(zFl);
    set_verdict(&rv, KS_VERDICT_COMPILED, z, NULL);
    free(z);
    goto finish;
  }

  /* Correctness. */
  cJSON *pCorr = cJSON_CreateObject(), *pChecks = cJSON_CreateArray();
  cJSON_AddItemToObject(pEv, "correctness", pCorr);
  int nTrials = rv.o.nTrials > 0 ? rv.o.nTrials : pTask->nTrials;
  if (nTrials < 5) nTrials = 5;
  cJSON_AddNumberToObject(pCorr, "trials", nTrials);
  cJSON_AddNumberToObject(pCorr, "first_seed", (double)pTask->iSeed);
  char *zRefDir = ref_cache_dir(&rv, zRefSo ? zRefSo : zSeedSo, nTrials);
  char *zRefDone = zRefDir ? fmt("%s/check.json", zRefDir) : NULL;
  char *zCandDir = fmt("%s/out-candidate", rv.zWork);
  ks_verdict eV = KS_VERDICT_OK;
  int k;
  if (zRefDone && (pCheckRef = ref_cache_load(zRefDone))) {
    k = 2; /* the same build, spec, seed and trials ran before: its outputs stand */
    cJSON_AddItemToArray(pNotes, cJSON_CreateString("reference outputs reused from an earlier review"));
  } else {
    if (!zRefDir) zRefDir = fmt("%s/out-reference", rv.zWork);
    k = run_check(&rv, zRefSo ? zRefSo : zSeedSo, "check-reference", zRefDir, &eV, &zWhy, &pCheckRef);
  }
  if (k == 0) {
    rc = ks_error_set(KS_EINVAL, "%s: the reference fails its own run: %s", zRefSo ? pTask->zReference : pTask->zSource,
                      zWhy);
  } else if (k == 1) {
    rc = check_reference(&rv, zRefDir, pNotes);
    if (rc == KS_OK) rc = check_expected(&rv, zRefDir, pNotes);
    /* Marked done last, so an interrupted run is never reused. */
    if (rc == KS_OK && zRefDone) {
      char *zJ = cJSON_PrintUnformatted(pCheckRef);
      if (zJ) ks_file_write_atomic(zRefDone, zJ, strlen(zJ));
      free(zJ);
    }
  } else if (k == 2) {
    rc = check_expected(&rv, zRefDir, pNotes); /* the expected files are not part of the cache key */
  } else if (k < 0) {
    rc = k;
  }
  free(zRefDone);
  if (rc < 0) {
    free(zRefDir);
    free(zCandDir);
    goto done_notes;
  }
  const char *zUnder = zCandSo ? zCandSo : zSeedSo;
  k = run_check(&rv, zUnder, "check-candidate", zCandDir, &eV, &zWhy, &pCheckCand);
  if (k < 0) {
    rc = k;
    free(zRefDir);
    free(zCandDir);
    goto done_notes;
  }
  if (k == 0) {
    cJSON_AddBoolToObject(pCorr, "passed", 0);
    cJSON_AddStringToObject(pCorr, "reason", zWhy);
    set_verdict(&rv, eV, zWhy, NULL);
  } else {
    cJSON_AddItemToArray(pChecks, cJSON_CreateString("no CUDA error, no crash, finished within the timeout"));
    cJSON_AddItemToArray(pChecks, cJSON_CreateString("inputs unchanged (bitwise) after every trial"));
    cJSON_AddItemToArray(pChecks, cJSON_CreateString("outputs poisoned (0xFF) before every trial"));
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(pCheckCand, "guarded")))
      cJSON_AddItemToArray(pChecks, cJSON_CreateString("tensors end at unmapped guard pages (out-of-bounds faults)"));
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(pCheckCand, "activity")))
      cJSON_AddItemToArray(pChecks, cJSON_CreateString("every kernel ran on the default stream (CUPTI)"));
    cJSON_AddItemToArray(pChecks, cJSON_CreateString("outputs identical right after return and after device sync"));
    char *zCmp = NULL;
    if (compare_outputs(&rv, zRefDir, zCandDir, nTrials, &zCmp, pChecks)) {
      cJSON_AddBoolToObject(pCorr, "passed", 1);
      set_verdict(&rv, KS_VERDICT_OK, "correct", NULL);
    } else {
      cJSON_AddBoolToObject(pCorr, "passed", 0);
      cJSON_AddStringToObject(pCorr, "reason", zCmp);
      set_verdict(&rv, KS_VERDICT_WRONG_RESULT, zCmp, NULL);
    }
    free(zCmp);
  }
  cJSON_AddItemToObject(pCorr, "checks", pChecks);
  free(zRefDir);
  free(zCandDir);
  if (rv.pRes->eVerdict != KS_VERDICT_OK) goto finish;

  /* Timing: seed, candidate, seed again in one process, interleaved. */
  cJSON *pTiming = cJSON_CreateObject();
  cJSON_AddItemToObject(pEv, "timing", pTiming);
  free(zWhy);
  zWhy = NULL;
  k = run_timing(&rv, zSeedSo, zCandSo, pTiming, &zWhy);
  if (k < 0) {
    rc = k;
    goto done_notes;
  }
  if (k == 0) {
    char *z = fmt("timing run failed: %s", zWhy);
    set_verdict(&rv, KS_VERDICT_RUNTIME_ERROR, z, NULL);
    free(z);
    goto finish;
  }
  ks_review_result *res = rv.pRes;
  if (zCandSo) {
    char *z = fmt("%.3f us vs seed %.3f us: %.3fx (noise %.2f%%, threshold %.2f%%)", res->cand.rMedianUs,
                  0.5 * (res->seed.rMedianUs + res->seed2.rMedianUs), res->rSpeedup, res->rNoisePct,
                  res->rThresholdPct);
    double rThr = 1.0 + res->rThresholdPct / 100.0;
    ks_verdict e = res->rSpeedup > rThr ? KS_VERDICT_ACCEPTED
                   : res->rSpeedup < 1.0 / rThr ? KS_VERDICT_SLOWER
                                                : KS_VERDICT_NOISE;
    set_verdict(&rv, e, z, NULL);
    free(z);
  } else {
    char *z = fmt("correct; %.3f us median (noise %.2f%%)", res->seed.rMedianUs, res->rNoisePct);
    set_verdict(&rv, KS_VERDICT_OK, z, NULL);
    free(z);
  }

  /* Metrics and roofline. */
  cJSON *pKernels = cJSON_CreateArray();
  cJSON_AddItemToObject(pEv, "kernels", pKernels);
  if (rv.o.bProfileBestOnly && zCandSo && rv.pRes->eVerdict != KS_VERDICT_ACCEPTED)
    cJSON_AddItemToArray(pNotes, cJSON_CreateString("not profiled: the candidate was not accepted"));
  else
    run_profile(&rv, zUnder, pKernels, pNotes);
  pCeil = ceilings(&rv, pNotes);
  cJSON *pRoof = cJSON_CreateObject();
  cJSON_AddItemToObject(pEv, "roofline", pRoof);
  roofline(&rv, pCeil, pRoof, pKernels);

finish:
  cJSON_AddStringToObject(pEv, "verdict", ks_verdict_name(rv.pRes->eVerdict));
  cJSON_AddStringToObject(pEv, "reason", rv.pRes->zReason ? rv.pRes->zReason : "");
  if (rv.pRes->zDetail) cJSON_AddStringToObject(pEv, "detail", rv.pRes->zDetail);
  if (rv.pRes->bTimed) cJSON_AddNumberToObject(pEv, "speedup", rv.pRes->rSpeedup);
  rc = KS_OK;
done_notes:
  cJSON_AddItemToObject(pEv, "notes", pNotes);
  if (rc == KS_OK) {
    rv.pRes->zEvidence = cJSON_Print(pEv);
    *ppRes = rv.pRes;
    rv.pRes = NULL;
  }
done:
  if (rv.bOwnWork && rv.zWork && !getenv("KS_KEEP_WORK")) ks_dir_remove_tree(rv.zWork);
  free(rv.zWork);
  free(rv.zHarness);
  free(rv.zSpec);
  free(rv.zArch);
  cJSON_Delete(rv.pInfo);
  cJSON_Delete(rv.pEv);
  cJSON_Delete(pCheckRef);
  cJSON_Delete(pCheckCand);
  cJSON_Delete(pCeil);
  ks_review_result_free(rv.pRes);
  free(zSeedSo);
  free(zRefSo);
  free(zCandSo);
  free(zLog);
  free(zWhy);
  return rc;
}

void ks_review_result_free(ks_review_result *p) {
  if (!p) return;
  free(p->zReason);
  free(p->zDetail);
  free(p->zEvidence);
  free(p);
}

static void stats_line(ks_buf *b, const char *zName, const ks_timing_stats *s) {
  ks_buf_printf(b, "  %-12s %10.3f %10.3f %10.3f %10.3f %10.3f\n", zName, s->rMedianUs, s->rQ1Us, s->rQ3Us, s->rMinUs,
                s->rMaxUs);
}

int ks_review_text(const ks_review_result *p, ks_buf *pOut) {
  ks_buf_printf(pOut, "verdict: %s\n", ks_verdict_name(p->eVerdict));
  if (p->zReason && *p->zReason) ks_buf_printf(pOut, "reason:  %s\n", p->zReason);
  if (p->bTimed) {
    ks_buf_puts(pOut, "timing (us, cold L2):\n  version          median         q1         q3        min        max\n");
    stats_line(pOut, "seed", &p->seed);
    stats_line(pOut, "seed again", &p->seed2);
    if (p->eVerdict != KS_VERDICT_OK) stats_line(pOut, "candidate", &p->cand);
    ks_buf_printf(pOut, "noise (seed vs seed again, at the median): %.2f%%; threshold %.2f%%\n", p->rNoisePct,
                  p->rThresholdPct);
    if (p->eVerdict != KS_VERDICT_OK) ks_buf_printf(pOut, "speedup: %.3fx\n", p->rSpeedup);
  }
  if (p->zDetail && *p->zDetail) ks_buf_printf(pOut, "detail:\n%s%s", p->zDetail,
                                               p->zDetail[strlen(p->zDetail) - 1] == '\n' ? "" : "\n");
  cJSON *pEv = p->zEvidence ? cJSON_Parse(p->zEvidence) : NULL;
  const cJSON *pK = cJSON_GetObjectItemCaseSensitive(pEv, "kernels");
  for (const cJSON *k = pK ? pK->child : NULL; k; k = k->next) {
    const cJSON *pProf = cJSON_GetObjectItemCaseSensitive(k, "profile");
    ks_buf_printf(pOut, "kernel %s:", cJSON_GetObjectItemCaseSensitive(k, "name")->valuestring);
    static const char *const az[] = {"duration_us", "dram_pct", "sm_pct", "achieved_occupancy_pct", "l2_hit_pct",
                                     "registers", "block_size", "grid_size", "roofline_pct"};
    for (size_t i = 0; i < sizeof az / sizeof az[0]; i++) {
      const cJSON *q = cJSON_GetObjectItemCaseSensitive(pProf, az[i]);
      if (cJSON_IsNumber(q)) ks_buf_printf(pOut, " %s=%.4g", az[i], q->valuedouble);
    }
    ks_buf_puts(pOut, "\n");
  }
  const cJSON *pRoof = cJSON_GetObjectItemCaseSensitive(pEv, "roofline");
  const cJSON *pPct = cJSON_GetObjectItemCaseSensitive(pRoof, "roofline_pct");
  if (cJSON_IsNumber(pPct))
    ks_buf_printf(pOut, "roofline: %.1f%% of the %s-bound limit (%.0f GB/s, %.0f GFLOP/s achieved)\n", pPct->valuedouble,
                  cJSON_GetObjectItemCaseSensitive(pRoof, "bound")->valuestring,
                  cJSON_GetObjectItemCaseSensitive(pRoof, "achieved_gbps")->valuedouble,
                  cJSON_GetObjectItemCaseSensitive(pRoof, "achieved_gflops")->valuedouble);
  const cJSON *pCeil = cJSON_GetObjectItemCaseSensitive(pRoof, "ceiling_note");
  if (cJSON_IsString(pCeil)) ks_buf_printf(pOut, "roofline: %s\n", pCeil->valuestring);
  const cJSON *pNotes = cJSON_GetObjectItemCaseSensitive(pEv, "notes");
  for (const cJSON *q = pNotes ? pNotes->child : NULL; q; q = q->next)
    if (cJSON_IsString(q)) ks_buf_printf(pOut, "note: %s\n", q->valuestring);
  cJSON_Delete(pEv);
  return KS_OK;
}
