/* kernelskill_nvcc.c — `kernelskill-nvcc`, a drop-in for nvcc (as
 * CMAKE_CUDA_COMPILER, or as CMAKE_CUDA_COMPILER_LAUNCHER in front of nvcc).
 *
 * Where the project's store holds a verified version of a .cu input for the
 * compile's target arch, the real nvcc compiles that version instead (through
 * a temp copy that starts with `#line 1 "<original>"`, so diagnostics,
 * __FILE__, debug info and dependency files name the original). Everywhere
 * else it is an exact passthrough: exec of the real nvcc with the same argv
 * and environment. Any failure of ours falls back to that passthrough with a
 * warning; a build nvcc would pass never fails because of us.
 *
 * KS_MODE=off|apply|report|optimize (default apply; optimize runs the agent
 * loop first for sources with a task file, optimize.c); KS_NVCC names the
 * real nvcc; KS_QUIET=1 silences the substitution lines and notes. docs/nvcc.md. */
#define _GNU_SOURCE
#include "kernelskill/nvccargs.h"
#include "kernelskill/proc.h"
#include "kernelskill/store.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "optimize.h"
#include "report.h"

#define TAG "kernelskill-nvcc"

typedef enum { MODE_OFF, MODE_APPLY, MODE_REPORT, MODE_OPTIMIZE, MODE_EXPLAIN } run_mode;

/* KS_MODE's values: the one table that both reading and the warning use. */
static const struct {
  const char *zName;
  run_mode e;
} aModes[] = {{"off", MODE_OFF}, {"apply", MODE_APPLY}, {"report", MODE_REPORT}, {"optimize", MODE_OPTIMIZE},
              {"explain", MODE_EXPLAIN}};

/* One substituted input. */
typedef struct subst {
  int iArgv;            /* index into the nvcc argument list */
  const char *zOrig;    /* the path as written on the command line */
  char *zTemp;          /* the temp copy compiled instead */
  char *zEntry;         /* the store entry's name */
  char *zArch;          /* "sm_90" (the archs, comma-separated) */
  char *zWhy;           /* "1.84x on NVIDIA H200" */
  char *zFlags;         /* kernelskill-flags of the verified source, or NULL */
} subst;

typedef struct state {
  char **azPrefix;      /* the real nvcc (and, as a launcher, what came before it) */
  int nPrefix;
  char **azArgs;        /* nvcc's arguments */
  int nArgs;
  int bQuiet;
  ks_nvcc_cmd *pCmd;
  subst *aSub;
  int nSub;
  char *zTempDir;
} state;

static int quiet(void) {
  const char *z = getenv("KS_QUIET");
  return z && z[0] && strcmp(z, "0") != 0;
}

void ks_nvcc_vsay(const char *zKind, const char *zFmt, va_list ap) {
  fprintf(stderr, TAG ": %s: ", zKind);
  vfprintf(stderr, zFmt, ap);
  fputc('\n', stderr);
}

#define warn ks_nvcc_warn
void ks_nvcc_warn(const char *zFmt, ...) {
  va_list ap;
  va_start(ap, zFmt);
  ks_nvcc_vsay("warning", zFmt, ap);
  va_end(ap);
}

/* ---- finding the real nvcc ---- */

#define same_file ks_file_same
/* A bare name resolved through PATH, skipping ourselves. malloc'd or NULL. */
#define path_lookup ks_path_search

static int has_suffix(const char *z, const char *zSuf) {
  size_t n = strlen(z), m = strlen(zSuf);
  return n >= m && strcmp(z + n - m, zSuf) == 0;
}

static const char *base_name(const char *z) {
  const char *p = strrchr(z, '/');
  return p ? p + 1 : z;
}

/* Used as a launcher: argv[1] is the compiler command CMake put after us. */
static int looks_like_command(const char *zArg, const char *zSelf) {
  static const char *azInputs[] = {".cu", ".c", ".cc", ".cpp", ".cxx", ".o", ".a", ".so", ".ptx", ".cubin",
                                   ".fatbin", ".obj", ".lib", ".h", ".cuh", NULL};
  if (!zArg[0] || zArg[0] == '-') return 0;
  for (int i = 0; azInputs[i]; i++)
    if (has_suffix(zArg, azInputs[i])) return 0;
  char *z = path_lookup(zArg, NULL);
  int b = z != NULL && !(zSelf && same_file(z, zSelf));
  free(z);
  return b;
}

/* ---- exec / spawn ---- */

static void do_exec(state *pS) __attribute__((noreturn));
static void do_exec(state *pS) {
  char **azArgv = calloc((size_t)(pS->nPrefix + pS->nArgs + 1), sizeof(char *));
  if (azArgv) {
    memcpy(azArgv, pS->azPrefix, sizeof(char *) * (size_t)pS->nPrefix);
    memcpy(azArgv + pS->nPrefix, pS->azArgs, sizeof(char *) * (size_t)pS->nArgs);
    fflush(stdout);
    fflush(stderr);
    execvp(azArgv[0], azArgv);
  }
  fprintf(stderr, TAG ": error: cannot run %s: %s\n", pS->azPrefix[0], strerror(errno));
  exit(127);
}

/* Run argv with stdout/stderr into files; returns the wait status or -1. */
static int spawn_captured(char **azArgv, const char *zOut, const char *zErr) {
  ks_proc_opts po = KS_PROC_OPTS_INIT;
  po.zStdout = zOut;
  po.zStderr = zErr;
  po.bSearchPath = 1;
  ks_proc_status st;
  if (ks_proc_run(azArgv, &po, &st) < 0) return -1;
  return st.iRaw;
}

/* ---- text rewriting: temp paths back to the original ---- */

/* Replace every zFrom by zTo in z[0..n). */
static char *replace_all(const char *z, size_t n, const char *zFrom, const char *zTo, size_t *pnOut) {
  ks_buf b = KS_BUF_INIT;
  size_t nFrom = strlen(zFrom);
  const char *p = z, *zEnd = z + n;
  while (p < zEnd) {
    const char *zHit = nFrom ? memmem(p, (size_t)(zEnd - p), zFrom, nFrom) : NULL;
    if (!zHit) {
      ks_buf_append(&b, p, (size_t)(zEnd - p));
      break;
    }
    ks_buf_append(&b, p, (size_t)(zHit - p));
    ks_buf_puts(&b, zTo);
    p = zHit + nFrom;
  }
  if (pnOut) *pnOut = b.n;
  if (!b.z) return strdup("");
  return ks_buf_detach(&b);
}

/* Make's escaping of a path in a dependency file (spaces, '#', '$'). */
static char *make_escape(const char *z) {
  ks_buf b = KS_BUF_INIT;
  for (const char *p = z; *p; p++) {
    if (*p == ' ' || *p == '#') ks_buf_append(&b, "\\", 1);
    if (*p == '$') ks_buf_append(&b, "$", 1);
    ks_buf_append(&b, p, 1);
  }
  return ks_buf_detach(&b);
}

static char *rewrite_text(const state *pS, const char *z, size_t n, int bMake, size_t *pnOut) {
  char *zCur = malloc(n + 1);
  size_t nCur = n;
  if (!zCur) return NULL;
  memcpy(zCur, z, n);
  zCur[n] = 0;
  for (int i = 0; i < pS->nSub; i++) {
    char *zTo = bMake ? make_escape(pS->aSub[i].zOrig) : strdup(pS->aSub[i].zOrig);
    char *zNext = zTo ? replace_all(zCur, nCur, pS->aSub[i].zTemp, zTo, &nCur) : NULL;
    free(zTo);
    free(zCur);
    if (!zNext) return NULL;
    zCur = zNext;
  }
  *pnOut = nCur;
  return zCur;
}

static void copy_out(const state *pS, const char *zFile, FILE *pTo) {
  char *z = NULL;
  size_t n = 0, nOut = 0;
  if (ks_file_read(zFile, &z, &n) < 0) return;
  char *zNew = rewrite_text(pS, z, n, 0, &nOut);
  if (zNew) fwrite(zNew, 1, nOut, pTo);
  else fwrite(z, 1, n, pTo);
  fflush(pTo);
  free(zNew);
  free(z);
}

/* A captured output as it is (the original's compile: nothing to rename). */
static void copy_raw(const char *zFile, FILE *pTo) {
  char *z = NULL;
  size_t n = 0;
  if (ks_file_read(zFile, &z, &n) < 0) {
    ks_error_clear();
    return;
  }
  fwrite(z, 1, n, pTo);
  fflush(pTo);
  free(z);
}

/* The dependency file nvcc wrote (-MD/-MMD: -MF, else <output stem>.d, else
 * <input stem>.d in the cwd; -M/-MM: -MF, else -o), or NULL (stdout). */
static char *dep_file(const state *pS, const char *zInput) {
  const ks_nvcc_cmd *p = pS->pCmd;
  if (p->zDepFile) return strdup(p->zDepFile);
  if (p->bDepOnly) return p->zOutput ? strdup(p->zOutput) : NULL;
  const char *zFrom = p->zOutput ? p->zOutput : base_name(zInput);
  const char *zDot = strrchr(zFrom, '.'), *zSlash = strrchr(zFrom, '/');
  size_t n = (zDot && (!zSlash || zDot > zSlash)) ? (size_t)(zDot - zFrom) : strlen(zFrom);
  char *z = malloc(n + 3);
  if (!z) return NULL;
  memcpy(z, zFrom, n);
  memcpy(z + n, ".d", 3);
  return z;
}

static int write_file(const char *zPath, const char *z, size_t n);

/* Does the line [z, zEnd) name zWord as a whole word (space-separated)? */
static int line_has_word(const char *z, const char *zEnd, const char *zWord) {
  size_t n = strlen(zWord);
  for (const char *p = z; n && p + n <= zEnd; p++) {
    if (memcmp(p, zWord, n) != 0) continue;
    int bLeft = p == z || p[-1] == ' ' || p[-1] == '\t';
    int bRight = p + n == zEnd || p[n] == ' ' || p[n] == '\t' || p[n] == '\r';
    if (bLeft && bRight && !(p > z + 1 && p[-1] == ' ' && p[-2] == '\\')) return 1;
  }
  return 0;
}

/* The host compiler lists the original a second time (the temp copy's
 * `#line 1 "<original>"` names it): after the temp name became the original's,
 * drop a continuation line that is only the original when its rule already
 * names it, keeping the rule's line ends well formed. In place; returns the
 * new length. */
static size_t dedupe_dep(char *z, size_t n, const char *zEsc) {
  size_t o = 0, iPrevEnd = 0;
  int bSeen = 0, bHavePrev = 0;
  const char *zEnd = z + n;
  for (const char *p = z; p < zEnd;) {
    const char *q = memchr(p, '\n', (size_t)(zEnd - p));
    const char *zLineEnd = q ? q : zEnd;
    const char *zBody = p, *zBodyEnd = zLineEnd;
    while (zBody < zBodyEnd && (*zBody == ' ' || *zBody == '\t')) zBody++;
    int bCont = zBodyEnd > zBody && zBodyEnd[-1] == '\\';
    if (bCont) zBodyEnd--;
    while (zBodyEnd > zBody && (zBodyEnd[-1] == ' ' || zBodyEnd[-1] == '\t')) zBodyEnd--;
    int bIndented = zBody > p;
    size_t nLine = (size_t)(zLineEnd - p) + (q ? 1 : 0);
    if (!bIndented) bSeen = 0; /* a new rule */
    /* -MP's phony rule for the original (`orig:` and its blank line): the
     * original is the main file, which gets none. */
    size_t nEsc = strlen(zEsc);
    if (!bIndented && (size_t)(zLineEnd - p) == nEsc + 1 && memcmp(p, zEsc, nEsc) == 0 && p[nEsc] == ':') {
      p = zLineEnd + (q ? 1 : 0);
      if (p < zEnd && *p == '\n') p++;
      continue;
    }
    int bOnlyOrig = bIndented && (size_t)(zBodyEnd - zBody) == strlen(zEsc) && memcmp(zBody, zEsc, strlen(zEsc)) == 0;
    if (bOnlyOrig && bSeen) {
      /* Dropped. The rule's last line: the previous line now ends it. */
      if (!bCont && bHavePrev) {
        size_t e = iPrevEnd;
        while (e > 0 && (z[e - 1] == ' ' || z[e - 1] == '\\')) e--;
        memmove(z + e, z + iPrevEnd, o - iPrevEnd);
        o -= iPrevEnd - e;
      }
      p = zLineEnd + (q ? 1 : 0);
      continue;
    }
    if (line_has_word(zBody, zBodyEnd, zEsc)) bSeen = 1;
    memmove(z + o, p, nLine);
    iPrevEnd = o + (size_t)(zLineEnd - p); /* before the newline */
    bHavePrev = 1;
    o += nLine;
    p = zLineEnd + (q ? 1 : 0);
  }
  return o;
}

/* A file nvcc wrote, read into *pz (*pn bytes), and its text with the temp
 * copies' names turned back into the originals' (bMake: a dependency file,
 * Make-escaped, whose repeated entries are dropped too): malloc'd, *pnNew
 * bytes. NULL when out of memory, or when the file cannot be read (*pz NULL
 * then: nothing to pass on). */
static char *read_fixed(const state *pS, const char *zPath, int bMake, char **pz, size_t *pn, size_t *pnNew) {
  *pz = NULL;
  *pn = *pnNew = 0;
  if (ks_file_read(zPath, pz, pn) < 0) {
    ks_error_clear();
    return NULL;
  }
  char *zNew = rewrite_text(pS, *pz, *pn, bMake, pnNew);
  for (int i = 0; bMake && zNew && i < pS->nSub; i++) {
    char *zEsc = make_escape(pS->aSub[i].zOrig);
    if (zEsc) *pnNew = dedupe_dep(zNew, *pnNew, zEsc);
    free(zEsc);
  }
  return zNew;
}

/* -M/-MM to stdout: a dependency file written there. */
static void copy_deps_out(const state *pS, const char *zFile, FILE *pTo) {
  char *z;
  size_t n, nNew;
  char *zNew = read_fixed(pS, zFile, 1, &z, &n, &nNew);
  if (zNew) fwrite(zNew, 1, nNew, pTo);
  else if (z) fwrite(z, 1, n, pTo);
  fflush(pTo);
  free(z);
  free(zNew);
}

/* An output nvcc wrote to a file: a dependency file (-MD, -MF: bMake), or a
 * text output (-E -o FILE), whose line markers get the original's name as for
 * -E to stdout. Rewritten in place only when something changed. */
static void fix_file(const state *pS, const char *zPath, int bMake) {
  char *z;
  size_t n, nNew;
  char *zNew = read_fixed(pS, zPath, bMake, &z, &n, &nNew);
  if (zNew && (nNew != n || memcmp(z, zNew, n) != 0) && write_file(zPath, zNew, nNew) < 0)
    warn("cannot rewrite %s: %s", zPath, ks_error_msg());
  free(z);
  free(zNew);
}

/* Write a build-output file: temp name + rename (readers never see half of
 * it), no fsync (a build re-creates it; fsync costs milliseconds a call). */
static int write_file(const char *zPath, const char *z, size_t n) {
  ks_buf tmp = KS_BUF_INIT;
  int rc = ks_buf_printf(&tmp, "%s.ks-tmp-%ld", zPath, (long)getpid());
  FILE *f = rc < 0 ? NULL : fopen(tmp.z, "wb");
  if (!f) {
    rc = ks_error_set(KS_EIO, "%s: cannot create: %s", zPath, strerror(errno));
  } else {
    int bOk = fwrite(z, 1, n, f) == n;
    bOk = (fclose(f) == 0) && bOk;
    if (!bOk || rename(tmp.z, zPath) != 0) {
      rc = ks_error_set(KS_EIO, "%s: cannot write: %s", zPath, strerror(errno));
      unlink(tmp.z);
    }
  }
  ks_buf_free(&tmp);
  return rc;
}

/* ---- the store ---- */

static void subst_free(subst *p) {
  free(p->zTemp);
  free(p->zEntry);
  free(p->zArch);
  free(p->zWhy);
  free(p->zFlags);
}

static void cleanup(state *pS) {
  for (int i = 0; i < pS->nSub; i++) {
    if (pS->aSub[i].zTemp) {
      unlink(pS->aSub[i].zTemp);
      char *zDir = ks_path_dirname(pS->aSub[i].zTemp);
      if (zDir) rmdir(zDir);
      free(zDir);
    }
    subst_free(&pS->aSub[i]);
  }
  pS->nSub = 0;
  if (pS->zTempDir) {
    char *zO = ks_path_join(pS->zTempDir, "stdout"), *zE = ks_path_join(pS->zTempDir, "stderr");
    if (zO) unlink(zO);
    if (zE) unlink(zE);
    free(zO);
    free(zE);
    rmdir(pS->zTempDir);
    free(pS->zTempDir);
    pS->zTempDir = NULL;
  }
}

static char *c_escape(const char *z) {
  ks_buf b = KS_BUF_INIT;
  for (const char *p = z; *p; p++) {
    if (*p == '"' || *p == '\\') ks_buf_append(&b, "\\", 1);
    ks_buf_append(&b, p, 1);
  }
  return ks_buf_detach(&b);
}

/* "1.84x on NVIDIA H200" from entry.json (best effort). */
static char *entry_why(const ks_store_entry *pE) {
  ks_buf b = KS_BUF_INIT;
  const char *zSp = strstr(pE->zJson, "\"speedup\":");
  const char *zGpu = strstr(pE->zJson, "\"gpu\":");
  if (zSp) ks_buf_printf(&b, "%.2fx", atof(zSp + 10));
  if (zGpu) {
    const char *zName = strstr(zGpu, "\"name\":");
    const char *q = zName ? strchr(zName + 7, '"') : NULL;
    const char *r = q ? strchr(q + 1, '"') : NULL;
    if (r && r - q < 80) ks_buf_printf(&b, "%son %.*s", b.n ? " " : "", (int)(r - q - 1), q + 1);
  }
  if (!b.n) ks_buf_puts(&b, strstr(pE->zJson, "\"verified\"") ? "verified" : "unverified entry");
  return ks_buf_detach(&b);
}

/* Decide for one input. Returns 1 substituted (pSub filled), 0 not, <0 an
 * internal failure (message set). */
static int consider_input(state *pS, const ks_nvcc_item *pIt, subst *pSub) {
  const ks_nvcc_cmd *pCmd = pS->pCmd;
  const char *zPath = pIt->zInput;
  char *zSrc = NULL, *zDir = NULL, *zOpt = NULL, *zArchs = NULL;
  size_t nSrc = 0, nOpt = 0;
  ks_store *pStore = NULL;
  ks_store_entry *pHit = NULL, **apPath = NULL;
  int nPath = 0, rc = 0, nMiss = 0, nHit = 0, bNoted = 0;
  memset(pSub, 0, sizeof *pSub);
  if (!(zDir = ks_path_dirname(zPath))) return KS_ENOMEM;
  rc = ks_store_open(zDir, 0, &pStore);
  if (rc == KS_ENOTFOUND) {
    ks_error_clear();
    rc = 0;
    goto done;
  }
  if (rc < 0) goto done;
  if ((rc = ks_file_read(zPath, &zSrc, &nSrc)) < 0) {
    /* nvcc will say the input is missing; that is not ours to report. */
    ks_error_clear();
    rc = 0;
    goto done;
  }
  zArchs = ks_nvcc_targets_text(pCmd);
  /* Every arch the compile targets must have the same verified version. */
  if (pCmd->nTargets > 0 && !pCmd->bArchSpecial) {
    for (int i = 0; i < pCmd->nTargets; i++) {
      if (ks_nvcc_target_repeats(pCmd, i)) continue;
      ks_store_entry *pE = NULL;
      int r = ks_store_select(pStore, base_name(zPath), zSrc, nSrc, pCmd->aTargets[i].zArch, &pE);
      if (r == KS_ENOTFOUND || r == KS_EPRECOND) {
        /* No entry, or one without consistent evidence: the original. */
        if (r == KS_EPRECOND) warn("%s: %s; compiling the original", zPath, ks_error_msg());
        ks_error_clear();
        nMiss++;
        continue;
      }
      if (r < 0) {
        rc = r;
        goto done;
      }
      if (pHit && strcmp(pHit->zOptHash, pE->zOptHash) != 0) {
        if (!pS->bQuiet && !bNoted)
          fprintf(stderr, TAG ": note: %s: the store has different verified versions for the archs of this compile (%s); compiling the original\n",
                  zPath, zArchs);
        bNoted = 1; /* said why; the per-path note below would contradict it */
        ks_store_entry_free(pE);
        nMiss++;
        continue;
      }
      if (!pHit) pHit = pE;
      else ks_store_entry_free(pE);
      nHit++;
    }
  }
  if (pHit && nMiss == 0) {
    if ((rc = ks_store_entry_optimized(pHit, &zOpt, &nOpt)) < 0) goto done;
    pSub->zFlags = ks_store_source_flags(zOpt, nOpt);
    if (pSub->zFlags && pCmd->nInputs > 1) {
      warn("%s: the verified version needs compile flags (%s) and this command compiles %d files; "
           "compiling the original (compile it on its own to get the verified version)",
           zPath, pSub->zFlags, pCmd->nInputs);
      rc = 0;
      goto done;
    }
    char *zOrigDir = ks_path_dirname(zPath);
    if (!zOrigDir || strchr(zOrigDir, ',')) {
      warn("%s: its folder name has a comma, which nvcc's -Xcompiler cannot pass; compiling the original", zPath);
      free(zOrigDir);
      rc = 0;
      goto done;
    }
    free(zOrigDir);
    /* The temp copy: <tempdir>/<i>/<same base name>, so outputs and
     * dependency targets nvcc derives from the input's name are unchanged. */
    if (!pS->zTempDir) {
      const char *zTmp = getenv("TMPDIR");
      ks_buf b = KS_BUF_INIT;
      ks_buf_printf(&b, "%s/ks-nvcc-XXXXXX", zTmp && zTmp[0] ? zTmp : "/tmp");
      char *zTpl = ks_buf_detach(&b);
      if (!zTpl || !mkdtemp(zTpl)) {
        rc = ks_error_set(KS_EIO, "cannot make a temp folder: %s", strerror(errno));
        free(zTpl);
        goto done;
      }
      pS->zTempDir = zTpl;
    }
    ks_buf b = KS_BUF_INIT;
    ks_buf_printf(&b, "%s/%d", pS->zTempDir, pS->nSub);
    if (mkdir(b.z, 0700) != 0) {
      rc = ks_error_set(KS_EIO, "%s: %s", b.z, strerror(errno));
      ks_buf_free(&b);
      goto done;
    }
    ks_buf_printf(&b, "/%s", base_name(zPath));
    pSub->zTemp = ks_buf_detach(&b);
    char *zEsc = c_escape(zPath);
    ks_buf text = KS_BUF_INIT;
    ks_buf_printf(&text, "#line 1 \"%s\"\n", zEsc ? zEsc : zPath);
    ks_buf_append(&text, zOpt, nOpt);
    free(zEsc);
    rc = pSub->zTemp ? write_file(pSub->zTemp, ks_buf_cstr(&text), text.n) : KS_ENOMEM;
    ks_buf_free(&text);
    if (rc < 0) goto done;
    pSub->iArgv = pIt->iArgv;
    pSub->zOrig = zPath;
    pSub->zEntry = strdup(pHit->zName);
    pSub->zArch = zArchs;
    zArchs = NULL;
    pSub->zWhy = entry_why(pHit);
    rc = 1;
    goto done;
  }
  /* No entry for these bytes: is there one for this path (the source changed)? */
  if ((rc = ks_store_entries_for_path(pStore, zPath, &apPath, &nPath)) < 0) goto done;
  char azHash[17];
  ks_store_hash(zSrc, nSrc, azHash);
  int nStale = 0, nOtherArch = 0;
  for (int i = 0; i < nPath; i++) {
    if (strcmp(apPath[i]->zOrigHash, azHash) != 0) nStale++;
    else nOtherArch++;
  }
  if (nStale)
    warn("%s: the store's verified version is stale (the source changed since it was optimized): compiling the "
         "source as it is; refresh it with `kernelskill optimize --commit` on its task, or drop it with "
         "`kernelskill store rm %s`",
         zPath, apPath[0]->zName);
  else if (nOtherArch && !pS->bQuiet && !bNoted)
    fprintf(stderr, TAG ": note: %s: the store has a verified version for %s, this compile targets %s; compiling the original\n",
            zPath, apPath[0]->zArch, zArchs);
  rc = 0;
done:
  ks_store_entries_free(apPath, nPath);
  ks_store_entry_free(pHit);
  ks_store_close(pStore);
  free(zSrc);
  free(zDir);
  free(zOpt);
  free(zArchs);
  if (rc <= 0) subst_free(pSub);
  return rc;
}

/* ---- KS_MODE=explain: how the command line was read (nothing runs) ---- */

static const char *origin_name(int e) {
  return e == KS_NVCC_FROM_OPTF ? "options-file" : e == KS_NVCC_FROM_PREPEND ? "NVCC_PREPEND_FLAGS"
                                                : e == KS_NVCC_FROM_APPEND  ? "NVCC_APPEND_FLAGS"
                                                                            : "argv";
}

static int explain(const state *pS) {
  const ks_nvcc_cmd *p = pS->pCmd;
  printf("nvcc: %s\n", pS->azPrefix[pS->nPrefix - 1]);
  for (int i = 0; i < p->n; i++) {
    const ks_nvcc_item *pIt = &p->a[i];
    if (pIt->eType == KS_NVCC_INPUT)
      printf("input %s%s (%s)\n", pIt->zInput, pIt->bCudaSource ? " [cuda]" : "", origin_name(pIt->eOrigin));
    else if (pIt->eType == KS_NVCC_UNKNOWN)
      printf("unknown %s (%s)\n", pIt->zSpelling, origin_name(pIt->eOrigin));
    else if (pIt->zValue)
      printf("option --%s = '%s' as %s (%s, %d word%s)\n", pIt->pOpt->zLong, pIt->zValue, pIt->zSpelling,
             origin_name(pIt->eOrigin), pIt->nWords, pIt->nWords == 1 ? "" : "s");
    else
      printf("option --%s as %s (%s)\n", pIt->pOpt->zLong, pIt->zSpelling, origin_name(pIt->eOrigin));
  }
  char *zT = ks_nvcc_targets_text(p);
  printf("targets: %s\n", zT ? zT : "?");
  free(zT);
  printf("output: %s\n", p->zOutput ? p->zOutput : "-");
  printf("phase:%s%s%s%s%s%s%s%s%s\n", p->bCompile ? " compile" : "", p->bDeviceC ? " device-c" : "",
         p->bPreprocess ? " preprocess" : "", p->bLink ? " link" : "", p->bPtx ? " ptx" : "", p->bCubin ? " cubin" : "",
         p->bFatbin ? " fatbin" : "", p->bDepOnly ? " dependencies" : "", p->bInfoOnly ? " info" : "");
  printf("deps: %s file=%s target=%s\n", p->bDepWithCompile ? "with-compile" : p->bDepOnly ? "only" : "none",
         p->zDepFile ? p->zDepFile : "-", p->zDepTarget ? p->zDepTarget : "-");
  printf("flags:%s%s%s%s\n", p->bDryrun ? " dryrun" : "", p->bVerbose ? " verbose" : "", p->bKeep ? " keep" : "",
         p->bForwardUnknown ? " forward-unknown" : "");
  if (p->zKeepDir) printf("keep-dir: %s\n", p->zKeepDir);
  printf("unknown options: %d\n", p->nUnknown);
  if (p->zProblem) printf("problem: %s\n", p->zProblem);
  return 0;
}

/* ---- main ---- */

static run_mode read_mode(void) {
  const char *z = getenv("KS_MODE");
  const size_t nModes = sizeof aModes / sizeof aModes[0];
  if (!z || !z[0]) return MODE_APPLY;
  for (size_t i = 0; i < nModes; i++)
    if (strcmp(z, aModes[i].zName) == 0) return aModes[i].e;
  ks_buf b = KS_BUF_INIT;
  for (size_t i = 0; i < nModes; i++) ks_buf_printf(&b, "%s%s", i ? ", " : "", aModes[i].zName);
  warn("KS_MODE=%s is not one of %s; using apply", z, b.z ? b.z : "");
  ks_buf_free(&b);
  return MODE_APPLY;
}

static void fallback(state *pS, const char *zWhat) __attribute__((noreturn));
static void fallback(state *pS, const char *zWhat) {
  const char *zMsg = ks_error_msg();
  warn("%s%s%s; compiling as plain nvcc", zWhat, zMsg[0] ? ": " : "", zMsg);
  cleanup(pS);
  do_exec(pS);
}

int main(int argc, char **argv) {
  state S;
  memset(&S, 0, sizeof S);
  S.bQuiet = quiet();
  char aSelf[PATH_MAX];
  ssize_t nSelf = readlink("/proc/self/exe", aSelf, sizeof aSelf - 1);
  const char *zSelf = nSelf > 0 ? (aSelf[nSelf] = 0, aSelf) : NULL;
  static char *azPrefix[3];

  /* Both launcher and compiler (`kernelskill-nvcc kernelskill-nvcc ARGS`): once is enough. */
  char *zFirst = argc > 1 && argv[1][0] && argv[1][0] != '-' ? path_lookup(argv[1], NULL) : NULL;
  if (zFirst && zSelf && same_file(zFirst, zSelf)) {
    argv++;
    argc--;
  }
  free(zFirst);
  /* Launcher (`kernelskill-nvcc /path/to/nvcc ARGS`) or compiler (`kernelskill-nvcc ARGS`)? */
  if (argc > 1 && looks_like_command(argv[1], zSelf)) {
    int n = 1;
    /* `kernelskill-nvcc sccache nvcc ARGS`: the nvcc is the last command word. */
    if (strncmp(base_name(argv[1]), "nvcc", 4) != 0 && argc > 2 && strncmp(base_name(argv[2]), "nvcc", 4) == 0 &&
        looks_like_command(argv[2], zSelf))
      n = 2;
    for (int i = 0; i < n; i++) azPrefix[i] = argv[1 + i];
    S.azPrefix = azPrefix;
    S.nPrefix = n;
    S.azArgs = argv + 1 + n;
    S.nArgs = argc - 1 - n;
  } else {
    const char *zEnv = getenv("KS_NVCC");
    char *zNvcc = NULL;
    if (zEnv && zEnv[0]) {
      zNvcc = path_lookup(zEnv, NULL);
      if (!zNvcc || (zSelf && same_file(zNvcc, zSelf))) {
        fprintf(stderr, TAG ": error: KS_NVCC=%s is %s\n", zEnv, zNvcc ? "kernelskill-nvcc itself" : "not an executable");
        return 127;
      }
    } else if (!(zNvcc = path_lookup("nvcc", zSelf))) {
      fprintf(stderr, TAG ": error: cannot find the real nvcc: set KS_NVCC, or put nvcc on PATH\n");
      return 127;
    }
    azPrefix[0] = zNvcc;
    S.azPrefix = azPrefix;
    S.nPrefix = 1;
    S.azArgs = argv + 1;
    S.nArgs = argc - 1;
  }

  run_mode eMode = read_mode();
  if (eMode == MODE_OFF) do_exec(&S);

  ks_nvcc_parse_opts po = KS_NVCC_PARSE_OPTS_INIT;
  if (ks_nvcc_parse(S.nArgs, S.azArgs, &po, &S.pCmd) < 0) fallback(&S, "cannot read the command line");
  const ks_nvcc_cmd *pCmd = S.pCmd;
  if (eMode == MODE_EXPLAIN) return explain(&S);
  int nCuda = 0;
  for (int i = 0; i < pCmd->nInputs; i++) nCuda += pCmd->a[pCmd->aiInputs[i]].bCudaSource;
  /* Nothing to do: configure-time probes (-v, --dryrun, --version), links,
   * commands nvcc will reject anyway. */
  if (!nCuda || pCmd->bInfoOnly || pCmd->bDryrun || pCmd->zProblem) do_exec(&S);

  if (eMode == MODE_REPORT) {
    if (ks_nvcc_report(pCmd) < 0) {
      warn("report failed: %s", ks_error_msg());
    }
    do_exec(&S);
  }
  /* optimize: the loop stores verified versions first; apply then compiles them. */
  if (eMode == MODE_OPTIMIZE) ks_nvcc_optimize(pCmd, S.bQuiet);

  /* apply */
  if (!(S.aSub = calloc((size_t)pCmd->nInputs, sizeof(subst)))) fallback(&S, "out of memory");
  for (int i = 0; i < pCmd->nInputs; i++) {
    const ks_nvcc_item *pIt = &pCmd->a[pCmd->aiInputs[i]];
    if (!pIt->bCudaSource || !has_suffix(pIt->zInput, ".cu")) continue;
    if (pIt->eOrigin != KS_NVCC_FROM_ARGV) continue; /* from an options file or NVCC_*_FLAGS: leave it */
    int r = consider_input(&S, pIt, &S.aSub[S.nSub]);
    if (r < 0) fallback(&S, "the store could not be read");
    if (r > 0) S.nSub++;
  }
  if (S.nSub == 0) {
    cleanup(&S);
    do_exec(&S);
  }

  /* The substituted command: same arguments, inputs replaced by the temp
   * copies, the originals' folders searched for "quoted" includes first (as
   * they were when the original was the main file), the verified version's
   * own flags last. */
  char **azFlagWords = NULL;
  int nFlagWords = 0;
  for (int i = 0; i < S.nSub; i++)
    if (S.aSub[i].zFlags && ks_nvcc_split_words(S.aSub[i].zFlags, &azFlagWords, &nFlagWords) < 0)
      fallback(&S, "cannot read the kernelskill-flags line");
  int nNew = S.nPrefix + S.nArgs + 2 * S.nSub + nFlagWords + 1;
  char **azNew = calloc((size_t)nNew, sizeof(char *));
  char **azOwned = calloc(2 * (size_t)S.nSub + 1, sizeof(char *));
  if (!azNew || !azOwned) fallback(&S, "out of memory");
  int k = 0;
  for (int i = 0; i < S.nPrefix; i++) azNew[k++] = S.azPrefix[i];
  for (int i = 0; i < S.nArgs; i++) {
    char *zArg = S.azArgs[i];
    for (int j = 0; j < S.nSub; j++)
      if (S.aSub[j].iArgv == i) zArg = S.aSub[j].zTemp;
    azNew[k++] = zArg;
  }
  for (int j = 0; j < S.nSub; j++) {
    char *zDir = ks_path_dirname(S.aSub[j].zOrig);
    ks_buf b = KS_BUF_INIT;
    ks_buf_printf(&b, "-Xcompiler=-iquote,%s", zDir ? zDir : ".");
    free(zDir);
    azOwned[j] = ks_buf_detach(&b);
    azNew[k++] = azOwned[j];
  }
  /* With debug info, map the temp folder to the original's in the host
   * object's DWARF (the line table otherwise names the temp copy). */
  int bDebug = 0;
  for (int i = 0; i < pCmd->n; i++)
    if (pCmd->a[i].eType == KS_NVCC_OPTION &&
        (!strcmp(pCmd->a[i].pOpt->zLong, "debug") || !strcmp(pCmd->a[i].pOpt->zLong, "device-debug") ||
         !strcmp(pCmd->a[i].pOpt->zLong, "generate-line-info")))
      bDebug = 1;
  for (int j = 0; bDebug && j < S.nSub; j++) {
    char *zDir = ks_path_dirname(S.aSub[j].zOrig), *zTmpDir = ks_path_dirname(S.aSub[j].zTemp);
    char aReal[PATH_MAX];
    if (zDir && zTmpDir && realpath(zDir, aReal) && !strchr(aReal, ',')) {
      ks_buf b = KS_BUF_INIT;
      ks_buf_printf(&b, "-Xcompiler=-fdebug-prefix-map=%s=%s", zTmpDir, aReal);
      azOwned[S.nSub + j] = ks_buf_detach(&b);
      azNew[k++] = azOwned[S.nSub + j];
    }
    free(zDir);
    free(zTmpDir);
  }
  for (int j = 0; j < nFlagWords; j++) azNew[k++] = azFlagWords[j];
  azNew[k] = NULL;

  char *zOut = ks_path_join(S.zTempDir, "stdout"), *zErr = ks_path_join(S.zTempDir, "stderr");
  if (!zOut || !zErr) fallback(&S, "out of memory");
  int st = spawn_captured(azNew, zOut, zErr);
  if (st < 0) fallback(&S, "cannot run nvcc on the verified version");
  if (WIFSIGNALED(st)) {
    /* Interrupted (Ctrl-C, a build tool's kill): stop as nvcc would have. */
    int sig = WTERMSIG(st);
    cleanup(&S);
    signal(sig, SIG_DFL);
    raise(sig);
    return 128 + sig;
  }
  if (WEXITSTATUS(st) != 0) {
    /* Compile the original, captured as well: when it fails too, the failure
     * is nvcc's own (a missing output folder, a bad flag) and the user gets
     * exactly what plain nvcc says and its exit code, with no word of ours. */
    int stVer = WEXITSTATUS(st);
    char *zVerErr = NULL;
    size_t nVerErr = 0;
    if (ks_file_read(zErr, &zVerErr, &nVerErr) < 0) ks_error_clear();
    char **azOrig = calloc((size_t)(S.nPrefix + S.nArgs + 1), sizeof(char *));
    int st2 = -1;
    if (azOrig) {
      memcpy(azOrig, S.azPrefix, sizeof(char *) * (size_t)S.nPrefix);
      memcpy(azOrig + S.nPrefix, S.azArgs, sizeof(char *) * (size_t)S.nArgs);
      st2 = spawn_captured(azOrig, zOut, zErr);
      free(azOrig);
    }
    if (st2 < 0) {
      free(zVerErr);
      warn("the verified version%s of %s did not compile here (nvcc exit %d); compiling the original",
           S.nSub > 1 ? "s" : "", S.aSub[0].zOrig, stVer);
      cleanup(&S);
      do_exec(&S);
    }
    if (WIFSIGNALED(st2)) {
      int sig = WTERMSIG(st2);
      free(zVerErr);
      cleanup(&S);
      signal(sig, SIG_DFL);
      raise(sig);
      return 128 + sig;
    }
    int rc2 = WEXITSTATUS(st2);
    if (rc2 == 0) {
      const char *zV = getenv("KS_VERBOSE");
      warn("the verified version%s of %s did not compile here (nvcc exit %d); compiling the original",
           S.nSub > 1 ? "s" : "", S.aSub[0].zOrig, stVer);
      if (zV && zV[0] && strcmp(zV, "0") != 0 && zVerErr) {
        size_t nV = 0;
        char *zV2 = rewrite_text(&S, zVerErr, nVerErr, 0, &nV);
        if (zV2) fwrite(zV2, 1, nV, stderr);
        free(zV2);
      }
    }
    free(zVerErr);
    copy_raw(zOut, stdout);
    copy_raw(zErr, stderr);
    cleanup(&S);
    return rc2;
  }
  if (pCmd->bDepOnly && !pCmd->zDepFile && !pCmd->zOutput) copy_deps_out(&S, zOut, stdout);
  else copy_out(&S, zOut, stdout);
  copy_out(&S, zErr, stderr);
  if (pCmd->bPreprocess && pCmd->zOutput && strcmp(pCmd->zOutput, "-") != 0) fix_file(&S, pCmd->zOutput, 0);
  if (pCmd->bDepOnly || pCmd->bDepWithCompile) {
    for (int j = 0; j < S.nSub; j++) {
      char *zDep = dep_file(&S, S.aSub[j].zOrig);
      if (zDep) fix_file(&S, zDep, 1);
      free(zDep);
      if (pCmd->zDepFile) break;
    }
  }
  if (!S.bQuiet)
    for (int j = 0; j < S.nSub; j++)
      fprintf(stderr, TAG ": %s: compiled the verified version from the store (%s, %s; entry %s)\n", S.aSub[j].zOrig,
              S.aSub[j].zArch, S.aSub[j].zWhy, S.aSub[j].zEntry);
  free(zOut);
  free(zErr);
  for (int j = 0; j < 2 * S.nSub; j++) free(azOwned[j]);
  free(azOwned);
  free(azNew);
  ks_nvcc_free_words(azFlagWords, nFlagWords);
  cleanup(&S);
  free(S.aSub);
  ks_nvcc_cmd_free(S.pCmd);
  return 0;
}
