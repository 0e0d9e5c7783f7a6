/* pch.c — the CUDA prefix (clang's forced __clang_cuda_runtime_wrapper.h) as a
 * precompiled header cached on disk, one per set of compile options (see
 * pch.h). A parse of a small CUDA file drops from about 0.9 s to 0.15 s.
 *
 * The cache is trusted like the user's own files: its folder must belong to
 * this user and be writable by nobody else, and an entry is used only while
 * every file and include folder it was built from is unchanged (size and
 * mtime, recorded next to it), so an upgraded CUDA or clang rebuilds it.
 * Anything unusual turns the cache off for that parse, never the parse.
 *
 * A parse loads its entry through a private hard link (<key>.use-<pid>-<n>),
 * not the entry's name: clang re-reads the PCH on every re-parse, and
 * another process may replace (a rebuild), evict or forget the entry in the
 * meantime. The link keeps the parse's inode; ks_pch_release removes it, and
 * evict() removes those of processes that died without releasing. */
#define _GNU_SOURCE
#include "features/pch.h"

#include "kernelskill/common.h"

#include <dirent.h>
#include <signal.h>
#include <fcntl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PCH_MAGIC "kernelskill-pch 1"
#define PCH_KEEP 32 /* entries kept; the oldest used go first */
#define PCH_DEPS_MAX ((size_t)1 << 20)

/* KS_PCH_TRACE=1: one line on stderr per lookup, to see why a parse is slow. */
static void trace(const char *zWhat, const char *zDetail) {
  const char *z = getenv("KS_PCH_TRACE");
  if (z && z[0] && strcmp(z, "0")) fprintf(stderr, "kernelskill: pch: %s%s%s\n", zWhat, zDetail ? " " : "", zDetail ? zDetail : "");
}

/* The cache folder (malloc'd), or NULL when there is none to use. */
static char *cache_dir(void) {
  const char *z = getenv("KS_PCH_CACHE");
  char *zDir = NULL;
  if (z && (!strcmp(z, "off") || !strcmp(z, "0"))) return trace("off", "(KS_PCH_CACHE)"), NULL;
  if (z && z[0] == '/') zDir = ks_strdup(z);
  else if (z && z[0]) return trace("off", "(KS_PCH_CACHE is not an absolute path)"), NULL;
  else {
    const char *zXdg = getenv("XDG_CACHE_HOME"), *zHome = getenv("HOME");
    if (zXdg && zXdg[0] == '/') zDir = ks_mprintf("%s/kernelskill/pch", zXdg);
    else if (zHome && zHome[0] == '/') zDir = ks_mprintf("%s/.cache/kernelskill/pch", zHome);
  }
  struct stat st;
  if (!zDir || ks_dir_make(zDir) < 0 || lstat(zDir, &st) != 0 || !S_ISDIR(st.st_mode) ||
      st.st_uid != geteuid() || (st.st_mode & 022)) {
    trace("off", zDir ? "(the cache folder is missing, not ours, or writable by others)" : "(no cache folder)");
    ks_error_clear();
    free(zDir);
    return NULL;
  }
  return zDir;
}

/* Arguments the prefix is built with: the parse's, less its -include files
 * (they follow the wrapper, so they stay in the main parse, in order). NULL
 * for arguments this cache does not handle. */
static char **prefix_args(char *const *azArgs, int nArgs, int *pn) {
  char **a = calloc((size_t)nArgs + 1, sizeof(char *));
  int n = 0;
  if (!a) return NULL;
  for (int i = 0; i < nArgs; i++) {
    const char *z = azArgs[i];
    if (!strcmp(z, "-include") && i + 1 < nArgs) {
      i++;
      continue;
    }
    if (!strncmp(z, "-include", 8) || !strncmp(z, "-imacros", 8) || !strncmp(z, "--include", 9) ||
        !strcmp(z, "-x") || !strncmp(z, "-emit", 5)) {
      if (!strcmp(z, "-x") && i + 1 < nArgs && !strcmp(azArgs[i + 1], "cuda")) {
        a[n++] = azArgs[i++];
        a[n++] = azArgs[i];
        continue;
      }
      free(a);
      return NULL;
    }
    a[n++] = azArgs[i];
  }
  *pn = n;
  return a;
}

/* Entry name: clang's version, the working folder (relative include paths)
 * and the prefix arguments. */
static void entry_key(char *const *azArgs, int nArgs, char aKey[17]) {
  ks_buf b = KS_BUF_INIT;
  CXString sVer = clang_getClangVersion();
  char aCwd[4096];
  ks_buf_printf(&b, "%s%c%s%c", clang_getCString(sVer), 0, getcwd(aCwd, sizeof aCwd) ? aCwd : "", 0);
  clang_disposeString(sVer);
  for (int i = 0; i < nArgs; i++) ks_buf_printf(&b, "%s%c", azArgs[i], 0);
  ks_text_hash16(b.z ? b.z : "", b.n, aKey);
  ks_buf_free(&b);
}

static int add_dep(ks_buf *pOut, const char *zPath) {
  struct stat st;
  if (!zPath || zPath[0] != '/' || strchr(zPath, '\n') || stat(zPath, &st) != 0) return -1;
  return ks_buf_printf(pOut, "%lld %lld %ld %s\n", (long long)st.st_size, (long long)st.st_mtim.tv_sec,
                       (long)st.st_mtim.tv_nsec, zPath);
}

typedef struct deps_ctx {
  ks_buf *pOut;
  int bBad;
} deps_ctx;

static void on_inclusion(CXFile f, CXSourceLocation *aStack, unsigned nStack, CXClientData p) {
  (void)aStack;
  (void)nStack;
  deps_ctx *pC = p;
  CXString s = clang_getFileName(f);
  char aReal[4096];
  const char *z = clang_getCString(s);
  /* The empty prefix file itself is not on disk. */
  if (z && nStack > 0 && add_dep(pC->pOut, realpath(z, aReal) ? aReal : z) < 0) pC->bBad = 1;
  clang_disposeString(s);
}

/* The include folders of the arguments: a header added to one could shadow
 * one the prefix found further down the search path. */
static int add_include_dirs(ks_buf *pOut, char *const *azArgs, int nArgs) {
  static const char *const azOpt[] = {"-I", "-isystem", "-idirafter", "-iquote", "-resource-dir"};
  for (int i = 0; i < nArgs; i++)
    for (size_t k = 0; k < sizeof azOpt / sizeof azOpt[0]; k++) {
      size_t n = strlen(azOpt[k]);
      const char *zDir = NULL;
      if (!strcmp(azArgs[i], azOpt[k]) && i + 1 < nArgs) zDir = azArgs[i + 1];
      else if (!strcmp(azOpt[k], "-I") && !strncmp(azArgs[i], "-I", 2) && azArgs[i][2]) zDir = azArgs[i] + n;
      if (!zDir) continue;
      char aReal[4096];
      if (realpath(zDir, aReal) && add_dep(pOut, aReal) < 0) return -1;
      break;
    }
  return 0;
}

/* Is every recorded dependency as it was? Reads "<size> <sec> <nsec> <path>"
 * lines after the magic and the "syserrors N" line. */
static int deps_fresh(const char *zDeps, int *pnSys) {
  char *z = NULL;
  size_t n = 0;
  int bOk = 0;
  if (ks_file_read_limit(zDeps, PCH_DEPS_MAX, &z, &n) < 0) goto done;
  char *p = z, *zEnd = z + n;
  char *zNl = memchr(p, '\n', (size_t)(zEnd - p));
  if (!zNl || (size_t)(zNl - p) != strlen(PCH_MAGIC) || memcmp(p, PCH_MAGIC, strlen(PCH_MAGIC))) goto done;
  p = zNl + 1;
  if (sscanf(p, "syserrors %d\n", pnSys) != 1 || *pnSys < 0) goto done;
  if (!(zNl = memchr(p, '\n', (size_t)(zEnd - p)))) goto done;
  p = zNl + 1;
  int nDeps = 0;
  while (p < zEnd) {
    if (!(zNl = memchr(p, '\n', (size_t)(zEnd - p)))) goto done;
    *zNl = 0;
    long long nSize, nSec;
    long nNsec;
    int iPath = 0;
    struct stat st;
    if (sscanf(p, "%lld %lld %ld %n", &nSize, &nSec, &nNsec, &iPath) != 3 || !iPath || p[iPath] != '/') goto done;
    if (stat(p + iPath, &st) != 0 || st.st_size != nSize || st.st_mtim.tv_sec != nSec ||
        st.st_mtim.tv_nsec != nNsec)
      goto done;
    nDeps++;
    p = zNl + 1;
  }
  bOk = nDeps > 0;
done:
  free(z);
  ks_error_clear();
  return bOk;
}

/* A regular file of ours, not a link: what an entry must be to be loaded. */
static int own_file(const char *zPath) {
  struct stat st;
  return lstat(zPath, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid();
}

/* The process a use link or a temporary file belongs to ("<key>.use-<pid>-n",
 * ".tmp-<pid>-XXXXXX"), or 0 for an entry. */
static long owner_pid(const char *zName) {
  long nPid = 0;
  const char *z = strlen(zName) > 21 && !memcmp(zName + 16, ".use-", 5) ? zName + 21
                  : !strncmp(zName, ".tmp-", 5)                         ? zName + 5
                                                                        : NULL;
  return z && sscanf(z, "%ld-", &nPid) == 1 && nPid > 0 ? nPid : 0;
}

/* Remove the links and temporary files of processes that died holding them
 * (killed mid-parse): a link would keep an evicted entry's space. */
static void sweep_dead(const char *zDir) {
  DIR *d = opendir(zDir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    long nPid = owner_pid(e->d_name);
    if (!nPid || kill((pid_t)nPid, 0) == 0 || errno != ESRCH) continue;
    char *zPath = ks_path_join(zDir, e->d_name);
    if (zPath) unlink(zPath);
    free(zPath);
  }
  closedir(d);
}

/* Keep the folder at PCH_KEEP entries: remove the least recently used. */
static void evict(const char *zDir) {
  for (;;) {
    DIR *d = opendir(zDir);
    if (!d) return;
    struct dirent *e;
    int nPch = 0;
    char aOld[64] = "";
    struct timespec tOld = {0, 0};
    while ((e = readdir(d))) {
      size_t n = strlen(e->d_name);
      if (n != 20 || strcmp(e->d_name + 16, ".pch")) continue;
      nPch++;
      char *zPath = ks_path_join(zDir, e->d_name);
      struct stat st;
      if (zPath && stat(zPath, &st) == 0 &&
          (!aOld[0] || st.st_mtim.tv_sec < tOld.tv_sec ||
           (st.st_mtim.tv_sec == tOld.tv_sec && st.st_mtim.tv_nsec < tOld.tv_nsec))) {
        tOld = st.st_mtim;
        snprintf(aOld, sizeof aOld, "%.16s", e->d_name);
      }
      free(zPath);
    }
    closedir(d);
    if (nPch <= PCH_KEEP || !aOld[0]) return;
    char *zPch = ks_mprintf("%s/%s.pch", zDir, aOld), *zDeps = ks_mprintf("%s/%s.deps", zDir, aOld);
    if (zDeps) unlink(zDeps);
    int bGone = zPch && unlink(zPch) == 0;
    free(zPch);
    free(zDeps);
    if (!bGone) return;
  }
}

/* Parse an empty CUDA file with the prefix arguments and save it as zPch,
 * with its dependency list as zDeps. 0 when the entry was written. */
static int build_entry(CXIndex pIndex, char **azArgs, int nArgs, const char *zDir, const char *zPch,
                       const char *zDeps, int *pnSys) {
  static const char zPrefix[] = "ks-pch-prefix.cu";
  struct CXUnsavedFile u = {zPrefix, "", 0};
  CXTranslationUnit tu = NULL;
  unsigned flags = CXTranslationUnit_Incomplete | CXTranslationUnit_ForSerialization |
                   CXTranslationUnit_DetailedPreprocessingRecord;
  int rc = -1, nSys = 0;
  char *zTmp = NULL;
  ks_buf deps = KS_BUF_INIT;
  if (clang_parseTranslationUnit2(pIndex, zPrefix, (const char *const *)azArgs, nArgs, &u, 1, flags, &tu) !=
          CXError_Success ||
      !tu)
    goto done;
  unsigned nDiag = clang_getNumDiagnostics(tu);
  for (unsigned i = 0; i < nDiag; i++) {
    CXDiagnostic d = clang_getDiagnostic(tu, i);
    if (clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error) nSys++;
    clang_disposeDiagnostic(d);
  }
  ks_buf_printf(&deps, "%s\nsyserrors %d\n", PCH_MAGIC, nSys);
  deps_ctx ctx = {&deps, 0};
  clang_getInclusions(tu, on_inclusion, &ctx);
  if (ctx.bBad || add_include_dirs(&deps, azArgs, nArgs) < 0 || ks_buf_error(&deps)) goto done;
  if (!(zTmp = ks_mprintf("%s/.tmp-%ld-XXXXXX", zDir, (long)getpid()))) goto done;
  int fd = mkstemp(zTmp);
  if (fd < 0) goto done;
  close(fd);
  if (clang_saveTranslationUnit(tu, zTmp, clang_defaultSaveOptions(tu)) != CXSaveError_None) goto done;
  if (ks_file_write_atomic(zDeps, deps.z, deps.n) < 0 || rename(zTmp, zPch) != 0) goto done;
  *pnSys = nSys;
  rc = 0;
done:
  if (zTmp) unlink(zTmp);
  free(zTmp);
  if (tu) clang_disposeTranslationUnit(tu);
  ks_buf_free(&deps);
  ks_error_clear();
  return rc;
}

int ks_pch_find(CXIndex pIndex, char *const *azArgs, int nArgs, char **pzPch, int *pnSysError) {
  *pzPch = NULL;
  *pnSysError = 0;
  char *zDir = cache_dir(), *zPch = NULL, *zDeps = NULL;
  int nPre = 0;
  char **azPre = zDir ? prefix_args(azArgs, nArgs, &nPre) : NULL;
  if (!azPre) {
    if (zDir) trace("off", "(the arguments have -include-pch, -imacros or a language but CUDA)");
    goto done;
  }
  char aKey[17];
  entry_key(azPre, nPre, aKey);
  zPch = ks_mprintf("%s/%s.pch", zDir, aKey);
  zDeps = ks_mprintf("%s/%s.deps", zDir, aKey);
  if (!zPch || !zDeps) goto done;
  int nSys = 0;
  sweep_dead(zDir);
  if (own_file(zPch) && own_file(zDeps) && deps_fresh(zDeps, &nSys)) {
    utimensat(AT_FDCWD, zPch, NULL, 0); /* recently used: kept by evict() */
    trace("hit", zPch);
  } else {
    if (build_entry(pIndex, azPre, nPre, zDir, zPch, zDeps, &nSys) < 0) {
      trace("not built", zPch);
      goto done;
    }
    trace("built", zPch);
    evict(zDir);
  }
  static unsigned nUse;
  for (int iTry = 0; iTry < 100; iTry++) {
    char *zUse = ks_mprintf("%s/%s.use-%ld-%u", zDir, aKey, (long)getpid(), nUse++);
    if (!zUse) break;
    if (link(zPch, zUse) == 0) {
      *pnSysError = nSys;
      *pzPch = zUse;
      break;
    }
    int eErr = errno;
    free(zUse);
    if (eErr != EEXIST) {
      trace("off", "(the entry could not be linked for this parse)");
      break;
    }
  }
done:
  free(azPre);
  free(zDir);
  free(zPch);
  free(zDeps);
  ks_error_clear();
  return KS_OK;
}

/* The entry's name for a use link: "<dir>/<key>.use-..." -> "<dir>/<key>". */
static char *use_entry(const char *zUse) {
  const char *z = strstr(zUse, ".use-");
  return z && z - zUse >= 16 ? ks_mprintf("%.*s", (int)(z - zUse), zUse) : NULL;
}

void ks_pch_release(const char *zUse) {
  if (zUse && strstr(zUse, ".use-")) unlink(zUse);
}

void ks_pch_forget(const char *zUse) {
  char *zBase = use_entry(zUse);
  ks_pch_release(zUse);
  if (!zBase) return;
  char *zPch = ks_mprintf("%s.pch", zBase), *zDeps = ks_mprintf("%s.deps", zBase);
  trace("refused by clang, removed", zPch);
  if (zDeps) unlink(zDeps);
  if (zPch) unlink(zPch);
  free(zPch);
  free(zDeps);
  free(zBase);
}
