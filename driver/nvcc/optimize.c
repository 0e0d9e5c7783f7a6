/* optimize.c — KS_MODE=optimize: the agent loop at build time. For each .cu
 * input with a task file next to it (foo.cu -> foo.task.json, whose "source"
 * is that very file) and no fresh store entry for its bytes and the compile's
 * target archs, run `kernelskill optimize foo.task.json --commit` (a child
 * process: a crash of the loop cannot take the compile with it), its progress
 * on stderr; the apply step that follows compiles what it stored.
 *
 * Never a reason for a build to fail: no GPU is said once per build and the
 * sources compile as they are; any other failure (no CLI, a bad task, a loop
 * that crashed or found nothing faster) is a warning and the source compiles
 * as it is. Two compiles of the same source wait for each other (flock) and
 * the second finds the first's entry; a loop that found nothing is not run
 * again on the same bytes (a note in the store's .nvcc-tried/). docs/nvcc.md. */
#define _GNU_SOURCE
#include "optimize.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kernelskill/proc.h"
#include "kernelskill/store.h"

#define TAG "kernelskill-nvcc"
#define TAIL_LINES 8

typedef struct opt_ctx {
  const ks_nvcc_cmd *pCmd;
  int bQuiet;
  char *zBuild; /* this build's id, for notes said once per build */
  int bNoGpu;   /* a loop found no CUDA device: the other inputs are not tried */
  int nStored;
} opt_ctx;

#define warn ks_nvcc_warn

static void note(const opt_ctx *pC, const char *zFmt, ...) __attribute__((format(printf, 2, 3)));
static void note(const opt_ctx *pC, const char *zFmt, ...) {
  if (pC->bQuiet) return;
  va_list ap;
  va_start(ap, zFmt);
  ks_nvcc_vsay("note", zFmt, ap);
  va_end(ap);
}

#define fmt ks_mprintf /* short: used on most lines that build a path or message */

static const char *tmp_dir(void) {
  const char *z = getenv("TMPDIR");
  return z && z[0] ? z : "/tmp";
}

#define same_file ks_file_same
#define is_exec_file ks_file_is_exec

/* The kernelskill CLI: $KS_KERNELSKILL, else next to kernelskill-nvcc, else on PATH. */
static char *find_kernelskill(void) {
  const char *zEnv = getenv("KS_KERNELSKILL");
  if (zEnv && zEnv[0]) {
    if (is_exec_file(zEnv)) return ks_strdup(zEnv);
    warn("KS_KERNELSKILL=%s is not an executable; KS_MODE=optimize cannot run the loop: compiling as "
         "KS_MODE=apply",
         zEnv);
    return NULL;
  }
  char *zDir = ks_path_exe_dir(), *z = zDir ? ks_path_join(zDir, "kernelskill") : NULL;
  free(zDir);
  if (z && is_exec_file(z)) return z;
  free(z);
  if ((z = ks_path_search("kernelskill", NULL))) return z;
  warn("the kernelskill CLI is neither next to kernelskill-nvcc nor on PATH (set KS_KERNELSKILL); KS_MODE=optimize "
       "cannot run the loop: compiling as KS_MODE=apply");
  return NULL;
}

/* ---- once per build ---- */

/* /proc/<pid>/stat: parent, command name, start time (clock ticks after boot). */
static int proc_stat(long pid, long *pPpid, char *zComm, size_t nComm, unsigned long long *pStart) {
  char aPath[64], aBuf[1024];
  snprintf(aPath, sizeof aPath, "/proc/%ld/stat", pid);
  FILE *f = fopen(aPath, "r");
  if (!f) return -1;
  size_t n = fread(aBuf, 1, sizeof aBuf - 1, f);
  fclose(f);
  aBuf[n] = 0;
  char *zOpen = strchr(aBuf, '('), *zClose = strrchr(aBuf, ')');
  if (!zOpen || !zClose || zClose < zOpen) return -1;
  snprintf(zComm, nComm, "%.*s", (int)(zClose - zOpen - 1), zOpen + 1);
  /* after ")": state ppid pgrp session tty tpgid flags minflt cminflt majflt
   * cmajflt utime stime cutime cstime priority nice threads itreal starttime */
  char *p = zClose + 2;
  int iField = 3;
  *pPpid = 0;
  *pStart = 0;
  while (*p && iField <= 22) {
    if (iField == 4) *pPpid = strtol(p, NULL, 10);
    if (iField == 22) *pStart = strtoull(p, NULL, 10);
    while (*p && *p != ' ') p++;
    while (*p == ' ') p++;
    iField++;
  }
  return iField > 22 ? 0 : -1;
}

static int name_in(const char *z, const char *const *az) {
  for (int i = 0; az[i]; i++)
    if (strcmp(z, az[i]) == 0) return 1;
  return 0;
}

/* The build this compile is part of: $KS_BUILD_ID; else the build tool that
 * started it (make, ninja, cmake --build...: every compile of one build has
 * it), the topmost of a chain of them (recursive make, cmake over make) but
 * not past another program (a test harness running builds); its start time
 * tells a reused pid apart. Else the session (a build's children share it,
 * but so do later builds in the same terminal). */
static char *build_id(void) {
  const char *zEnv = getenv("KS_BUILD_ID");
  if (zEnv && zEnv[0]) {
    char az[17];
    ks_store_hash(zEnv, strlen(zEnv), az);
    return fmt("env-%s", az);
  }
  static const char *const azTools[] = {"make", "gmake", "ninja", "samu", "cmake", "ctest", "meson", NULL};
  static const char *const azShells[] = {"sh", "bash", "dash", "zsh", "ksh", NULL};
  long pid = (long)getppid(), iBest = 0;
  unsigned long long nBestStart = 0;
  for (int nHops = 0; pid > 1 && nHops < 64; nHops++) {
    long ppid = 0;
    unsigned long long nStart = 0;
    char aComm[64];
    if (proc_stat(pid, &ppid, aComm, sizeof aComm, &nStart) < 0) break;
    if (name_in(aComm, azTools)) {
      iBest = pid;
      nBestStart = nStart;
    } else if (iBest && !name_in(aComm, azShells)) {
      break;
    }
    pid = ppid;
  }
  if (iBest) return fmt("build-%ld-%llu", iBest, nBestStart);
  return fmt("session-%ld", (long)getsid(0));
}

static char *nogpu_marker(const opt_ctx *pC) {
  return fmt("%s/kernelskill-nvcc-%ld-nogpu-%s", tmp_dir(), (long)getuid(), pC->zBuild);
}

/* ---- the task file ---- */

/* Does zTask name zInput as its "source"? 1 yes; 0 no (a note says why); -1
 * the task cannot be read (a warning says why). */
static int task_names_input(const opt_ctx *pC, const char *zTask, const char *zInput) {
  char *zText = NULL, *zDir = NULL, *zSrc = NULL;
  size_t nText = 0;
  int r = -1;
  cJSON *pDoc = NULL;
  if (ks_file_read(zTask, &zText, &nText) < 0) {
    warn("%s: %s; not optimizing %s at build time", zTask, ks_error_msg(), zInput);
    ks_error_clear();
    goto done;
  }
  pDoc = cJSON_ParseWithLength(zText, nText);
  const cJSON *pSrc = cJSON_GetObjectItemCaseSensitive(pDoc, "source");
  if (!cJSON_IsObject(pDoc) || !cJSON_GetObjectItemCaseSensitive(pDoc, "ks_task")) {
    warn("%s: not a task file (a JSON object with \"ks_task\": 1); not optimizing %s at build time", zTask, zInput);
    goto done;
  }
  if (!cJSON_IsString(pSrc) || !pSrc->valuestring[0]) {
    note(pC, "%s: the task names no \"source\" (the build-time loop optimizes the file being compiled); not "
             "optimizing %s at build time",
         zTask, zInput);
    r = 0;
    goto done;
  }
  zDir = ks_path_dirname(zTask);
  zSrc = zDir ? ks_path_join(zDir, pSrc->valuestring) : NULL;
  if (zSrc && same_file(zSrc, zInput)) {
    r = 1;
  } else {
    note(pC, "%s names %s as its source, not %s: not optimizing it at build time", zTask, pSrc->valuestring,
         zInput);
    r = 0;
  }
done:
  cJSON_Delete(pDoc);
  free(zText);
  free(zDir);
  free(zSrc);
  return r;
}

/* ---- the store ---- */

/* Where the loop stores when the project has no store yet: $KS_STORE, else
 * <root>/.kernelskill/store for the nearest folder above the source that
 * has .kernelskill/ or .git, else next to the source. */
static char *new_store_dir(const char *zSrcDir) {
  const char *zEnv = getenv("KS_STORE");
  if (zEnv && zEnv[0]) return ks_strdup(zEnv);
  char aDir[PATH_MAX];
  if (!realpath(zSrcDir, aDir)) return fmt("%s/.kernelskill/store", zSrcDir);
  for (char *zEnd = aDir + strlen(aDir);;) {
    char *zK = fmt("%s/.kernelskill", aDir), *zG = fmt("%s/.git", aDir);
    struct stat st;
    int bHit = (zK && stat(zK, &st) == 0) || (zG && stat(zG, &st) == 0); /* .git: a folder, or a file in a worktree */
    free(zK);
    free(zG);
    if (bHit) return fmt("%s/.kernelskill/store", strcmp(aDir, "/") ? aDir : "");
    zEnd = strrchr(aDir, '/');
    if (!zEnd || zEnd == aDir) break;
    *zEnd = 0;
  }
  if (!realpath(zSrcDir, aDir)) return NULL;
  return fmt("%s/.kernelskill/store", aDir);
}

/* Is there a fresh entry for these bytes and every target arch of the
 * compile? 1 yes, 0 no, -1 the store is damaged (a warning says so). With
 * *pzOther: the arch of an entry for these bytes made for another arch. */
static int fresh_entry(const opt_ctx *pC, const ks_store *pS, const char *zInput, const char *zSrc, size_t nSrc,
                       char **pzOther) {
  const ks_nvcc_cmd *pCmd = pC->pCmd;
  const char *zBase = strrchr(zInput, '/');
  zBase = zBase ? zBase + 1 : zInput;
  int nMiss = 0;
  *pzOther = NULL;
  for (int i = 0; i < pCmd->nTargets; i++) {
    if (ks_nvcc_target_repeats(pCmd, i)) continue;
    ks_store_entry *pE = NULL;
    int r = ks_store_lookup(pS, zBase, zSrc, nSrc, pCmd->aTargets[i].zArch, &pE);
    ks_store_entry_free(pE);
    if (r == KS_ENOTFOUND) {
      nMiss++;
    } else if (r < 0) {
      warn("%s: the store could not be read: %s; not optimizing it", zInput, ks_error_msg());
      ks_error_clear();
      return -1;
    }
  }
  ks_error_clear();
  if (nMiss == 0) return 1;
  ks_store_entry **ap = NULL;
  int n = 0;
  char azHash[17];
  ks_store_hash(zSrc, nSrc, azHash);
  if (ks_store_entries_for_path(pS, zInput, &ap, &n) == KS_OK) {
    for (int i = 0; i < n && !*pzOther; i++)
      if (strcmp(ap[i]->zOrigHash, azHash) == 0) *pzOther = ks_strdup(ap[i]->zArch);
  }
  ks_error_clear();
  ks_store_entries_free(ap, n);
  return 0;
}

/* ---- running the loop ---- */

typedef struct loop_out {
  int iStatus;                /* waitpid status, or -1 */
  char *azTail[TAIL_LINES];   /* the last lines it printed */
  int nTail;
  int bNoDevice;              /* it said "no CUDA device" */
  char *zNothing;             /* its "nothing stored: ..." reason */
} loop_out;

static void loop_out_free(loop_out *p) {
  for (int i = 0; i < TAIL_LINES; i++) free(p->azTail[i]);
  free(p->zNothing);
}

/* The last line it printed that says something (not a progress line when
 * there is a better one). */
static const char *last_line(const loop_out *p) {
  for (int i = p->nTail - 1; i >= 0 && i >= p->nTail - TAIL_LINES; i--) {
    const char *z = p->azTail[i % TAIL_LINES];
    if (z && (strstr(z, "error") || strstr(z, "fail") || strstr(z, "nothing"))) return z;
  }
  return p->nTail ? p->azTail[(p->nTail - 1) % TAIL_LINES] : "(no output)";
}

/* Run argv in zCwd with KS_MODE=off (a kernelskill-nvcc the loop's Reviewer
 * runs must not optimize again), its output forwarded line by line. */
static void run_loop(const opt_ctx *pC, char **azArgv, const char *zCwd, const char *zInput, loop_out *pOut) {
  memset(pOut, 0, sizeof *pOut);
  pOut->iStatus = -1;
  static const char *const azSet[] = {"KS_MODE=off", NULL};
  ks_proc_opts po = KS_PROC_OPTS_INIT;
  po.azSetEnv = azSet;
  po.zCwd = zCwd;
  po.zStdin = "/dev/null";
  po.bPipe = 1;
  ks_proc *pProc = NULL;
  if (ks_proc_spawn(azArgv, &po, &pProc) < 0) {
    pOut->azTail[0] = fmt("cannot run %s: %s", azArgv[0], ks_error_msg());
    pOut->nTail = 1;
    ks_error_clear();
    return;
  }
  int fdDup = dup(ks_proc_fd(pProc)); /* ks_proc_wait closes its own */
  FILE *f = fdDup >= 0 ? fdopen(fdDup, "r") : NULL;
  char *zLine = NULL;
  size_t nCap = 0;
  ssize_t n;
  int bHeader = 0;
  while (f && (n = getline(&zLine, &nCap, f)) >= 0) {
    while (n > 0 && (zLine[n - 1] == '\n' || zLine[n - 1] == '\r')) zLine[--n] = 0;
    if (strstr(zLine, "no CUDA device")) {
      pOut->bNoDevice = 1; /* said once per build by us, not per file */
    } else if (!pC->bQuiet) {
      if (!bHeader) /* said with its first line: a loop that finds no GPU says nothing per file */
        fprintf(stderr, TAG ": %s: optimizing it with %s (KS_MODE=optimize)\n", zInput, azArgv[2]);
      bHeader = 1;
      fprintf(stderr, TAG ": %s: %s\n", zInput, zLine);
    }
    const char *zNothing = strstr(zLine, "nothing stored: ");
    if (zNothing) {
      free(pOut->zNothing);
      pOut->zNothing = ks_strdup(zNothing + strlen("nothing stored: "));
    }
    int i = pOut->nTail % TAIL_LINES;
    free(pOut->azTail[i]);
    pOut->azTail[i] = ks_strdup(zLine);
    pOut->nTail++;
  }
  free(zLine);
  if (f) fclose(f);
  else if (fdDup >= 0) close(fdDup);
  ks_proc_status st;
  if (ks_proc_wait(pProc, &st) < 0) {
    ks_error_clear();
    return;
  }
  pOut->iStatus = st.iRaw;
}

/* A note (gitignored) that the loop ran on these bytes and stored nothing,
 * so that later builds do not run it again. */
static void write_tried(const char *zFile, const char *zWhy) {
  char *zDir = ks_path_dirname(zFile), *zIgnore = zDir ? ks_path_join(zDir, ".gitignore") : NULL;
  time_t t = time(NULL);
  struct tm tmv;
  char aDate[32];
  gmtime_r(&t, &tmv);
  strftime(aDate, sizeof aDate, "%Y-%m-%dT%H:%M:%SZ", &tmv);
  char *zText = fmt("%s %s\n", aDate, zWhy);
  if (zDir && ks_dir_make(zDir) == KS_OK && zIgnore && zText) {
    if (!ks_file_exists(zIgnore)) ks_file_write_atomic(zIgnore, "*\n", 2);
    ks_file_write_atomic(zFile, zText, strlen(zText));
  }
  ks_error_clear();
  free(zDir);
  free(zIgnore);
  free(zText);
}

/* ---- one input ---- */

static void optimize_input(opt_ctx *pC, const char *zInput, const char *zKs) {
  const ks_nvcc_cmd *pCmd = pC->pCmd;
  char *zTask = NULL, *zSrc = NULL, *zTaskText = NULL, *zSrcDir = NULL, *zStoreDir = NULL, *zCwd = NULL;
  char *zTried = NULL, *zLock = NULL, *zTaskAbs = NULL, *zOther = NULL, *zMarker = NULL;
  char **azExtra = NULL, **azArgv = NULL;
  size_t nSrc = 0, nTaskText = 0, n = strlen(zInput);
  int nExtra = 0, fLock = -1;
  ks_store *pS = NULL;
  loop_out out;
  memset(&out, 0, sizeof out);

  if (!(zTask = fmt("%.*s.task.json", (int)(n - 3), zInput))) goto done;
  if (!ks_file_exists(zTask)) goto done; /* no task: the apply step as usual */
  if (task_names_input(pC, zTask, zInput) <= 0) goto done;
  if (pCmd->nTargets == 0 || pCmd->bArchSpecial) {
    note(pC, "%s: this compile names no GPU arch (-arch=sm_XX); store entries apply to named archs only: not "
             "optimizing it",
         zInput);
    goto done;
  }
  if (pC->bNoGpu || !(zMarker = nogpu_marker(pC)) || ks_file_exists(zMarker)) goto done;

  /* One compile of this source at a time optimizes it; the next one waits,
   * then finds the entry the first stored. */
  char aReal[PATH_MAX], azPathHash[17];
  if (!realpath(zInput, aReal)) goto done; /* nvcc will say it is missing */
  ks_store_hash(aReal, strlen(aReal), azPathHash);
  if (!(zLock = fmt("%s/kernelskill-nvcc-%ld-%s.lock", tmp_dir(), (long)getuid(), azPathHash))) goto done;
  if ((fLock = open(zLock, O_RDWR | O_CREAT | O_CLOEXEC, 0600)) < 0) {
    warn("%s: cannot open the lock %s: %s; not optimizing it", zInput, zLock, strerror(errno));
    goto done;
  }
  if (flock(fLock, LOCK_EX | LOCK_NB) != 0) {
    note(pC, "%s: another compile is optimizing it: waiting", zInput);
    while (flock(fLock, LOCK_EX) != 0)
      if (errno != EINTR) {
        warn("%s: cannot lock %s: %s; not optimizing it", zInput, zLock, strerror(errno));
        goto done;
      }
  }
  if (ks_file_exists(zMarker)) goto done; /* the compile we waited for found no GPU */

  if (ks_file_read(zInput, &zSrc, &nSrc) < 0 || ks_file_read(zTask, &zTaskText, &nTaskText) < 0) {
    ks_error_clear();
    goto done;
  }
  if (!(zSrcDir = ks_path_dirname(zInput))) goto done;
  int r = ks_store_open(zSrcDir, 0, &pS);
  if (r == KS_OK) {
    int bFresh = fresh_entry(pC, pS, zInput, zSrc, nSrc, &zOther);
    if (bFresh != 0) goto done; /* fresh: the apply step compiles it; damaged: said */
    if (zOther) {
      char *zT = ks_nvcc_targets_text(pCmd);
      note(pC, "%s: the store has a verified version of these bytes for %s (the GPU it was optimized on), this "
               "compile targets %s: not optimizing it again",
           zInput, zOther, zT ? zT : "?");
      free(zT);
      goto done;
    }
    zStoreDir = ks_strdup(pS->zDir);
  } else if (r == KS_ENOTFOUND) {
    ks_error_clear();
    zStoreDir = new_store_dir(zSrcDir);
  } else {
    warn("%s: the store could not be read: %s; not optimizing it", zInput, ks_error_msg());
    ks_error_clear();
    goto done;
  }
  if (!zStoreDir) goto done;

  /* Tried before with these bytes, this task and these options? */
  const char *zArgs = getenv("KS_OPTIMIZE_ARGS");
  ks_buf key = KS_BUF_INIT;
  ks_buf_append(&key, zSrc, nSrc);
  ks_buf_append(&key, "", 1);
  ks_buf_append(&key, zTaskText, nTaskText);
  ks_buf_append(&key, "", 1);
  ks_buf_puts(&key, zArgs ? zArgs : "");
  char azKey[17];
  ks_store_hash(key.z ? key.z : "", key.n, azKey);
  ks_buf_free(&key);
  const char *zBase = strrchr(zInput, '/');
  zBase = zBase ? zBase + 1 : zInput;
  if (!(zTried = fmt("%s/.nvcc-tried/%s.%s", zStoreDir, zBase, azKey))) goto done;
  if (ks_file_exists(zTried)) {
    char *zWhy = NULL;
    size_t nWhy = 0;
    if (ks_file_read(zTried, &zWhy, &nWhy) == KS_OK)
      while (nWhy > 0 && zWhy[nWhy - 1] == '\n') zWhy[--nWhy] = 0;
    ks_error_clear();
    note(pC, "%s: the build-time loop already ran on these bytes and stored nothing (%s); compiling it as it is "
             "(remove %s to try again)",
         zInput, zWhy ? zWhy : "?", zTried);
    free(zWhy);
    goto done;
  }

  /* kernelskill optimize TASK --commit --store DIR [$KS_OPTIMIZE_ARGS], run
   * from the project root so that its run folder lands in .kernelskill/runs. */
  if (zArgs && zArgs[0] && ks_nvcc_split_words(zArgs, &azExtra, &nExtra) < 0) {
    warn("KS_OPTIMIZE_ARGS does not split into words: %s; not optimizing %s", ks_error_msg(), zInput);
    ks_error_clear();
    goto done;
  }
  if (!realpath(zTask, aReal) || !(zTaskAbs = ks_strdup(aReal))) goto done;
  size_t nStoreDir = strlen(zStoreDir);
  const char *zTail = "/.kernelskill/store";
  if (nStoreDir > strlen(zTail) && strcmp(zStoreDir + nStoreDir - strlen(zTail), zTail) == 0)
    zCwd = fmt("%.*s", (int)(nStoreDir - strlen(zTail)), zStoreDir);
  else
    zCwd = ks_strdup(zSrcDir);
  if (!zCwd || !(azArgv = calloc((size_t)nExtra + 8, sizeof(char *)))) goto done;
  int k = 0;
  azArgv[k++] = (char *)zKs;
  azArgv[k++] = "optimize";
  azArgv[k++] = zTaskAbs;
  azArgv[k++] = "--commit";
  azArgv[k++] = "--store";
  azArgv[k++] = zStoreDir;
  if (pC->bQuiet) azArgv[k++] = "--quiet";
  for (int i = 0; i < nExtra; i++) azArgv[k++] = azExtra[i];
  azArgv[k] = NULL;
  run_loop(pC, azArgv, zCwd, zInput, &out);

  int st = out.iStatus;
  if (st < 0) {
    warn("%s: the optimize loop could not run: %s; compiling it as it is", zInput, last_line(&out));
    goto done;
  }
  if (WIFSIGNALED(st)) {
    warn("%s: the optimize loop crashed (%s); compiling it as it is", zInput, strsignal(WTERMSIG(st)));
    goto done;
  }
  int iExit = WEXITSTATUS(st);
  if (iExit == 2 && out.bNoDevice) {
    pC->bNoGpu = 1;
    int f = open(zMarker, O_WRONLY | O_CREAT | O_EXCL, 0600); /* the first compile of the build to see it says it */
    if (f >= 0) {
      close(f);
      note(pC, "KS_MODE=optimize: no CUDA device on this machine: sources with a task file compile as they are "
               "(said once per build)");
    }
    goto done;
  }
  if (iExit != 0) {
    warn("%s: the optimize loop failed (exit %d: %s); compiling it as it is", zInput, iExit, last_line(&out));
    if (iExit == 1) write_tried(zTried, last_line(&out)); /* the task or the seed: same bytes, same outcome */
    goto done;
  }
  /* It finished: did it store a version this compile can use? */
  ks_store_close(pS);
  pS = NULL;
  int bFresh = ks_store_open(zSrcDir, 0, &pS) == KS_OK ? fresh_entry(pC, pS, zInput, zSrc, nSrc, &zOther) : 0;
  ks_error_clear();
  if (bFresh == 1) {
    pC->nStored++;
  } else if (zOther) {
    char *zT = ks_nvcc_targets_text(pCmd);
    note(pC, "%s: the loop stored a version verified on %s; this compile targets %s, so it compiles as it is", zInput,
         zOther, zT ? zT : "?");
    free(zT);
  } else if (bFresh == 0) {
    warn("%s: the optimize loop stored no verified version (%s); compiling it as it is", zInput,
         out.zNothing ? out.zNothing : last_line(&out));
    if (out.zNothing) write_tried(zTried, out.zNothing);
  }

done:
  if (fLock >= 0) close(fLock); /* releases the lock */
  loop_out_free(&out);
  ks_store_close(pS);
  ks_nvcc_free_words(azExtra, nExtra);
  free(azArgv);
  free(zTask);
  free(zSrc);
  free(zTaskText);
  free(zSrcDir);
  free(zStoreDir);
  free(zCwd);
  free(zTried);
  free(zLock);
  free(zTaskAbs);
  free(zOther);
  free(zMarker);
}

int ks_nvcc_optimize(const ks_nvcc_cmd *pCmd, int bQuiet) {
  opt_ctx c;
  char *zKs = NULL;
  memset(&c, 0, sizeof c);
  c.pCmd = pCmd;
  c.bQuiet = bQuiet;
  if (pCmd->bDepOnly || pCmd->bPreprocess) return 0; /* the compile that follows optimizes */
  for (int i = 0; i < pCmd->nInputs; i++) {
    const ks_nvcc_item *pIt = &pCmd->a[pCmd->aiInputs[i]];
    size_t n = strlen(pIt->zInput);
    if (!pIt->bCudaSource || n < 4 || strcmp(pIt->zInput + n - 3, ".cu") != 0) continue;
    if (pIt->eOrigin != KS_NVCC_FROM_ARGV) continue; /* as the apply step: only inputs on the command line */
    char *zTask = fmt("%.*s.task.json", (int)(n - 3), pIt->zInput);
    int bTask = zTask && ks_file_exists(zTask);
    free(zTask);
    if (!bTask) continue;
    if (!c.zBuild && !(c.zBuild = build_id())) break;
    if (!zKs && !(zKs = find_kernelskill())) break;
    optimize_input(&c, pIt->zInput, zKs);
    if (c.bNoGpu) break;
  }
  free(zKs);
  free(c.zBuild);
  return c.nStored;
}
