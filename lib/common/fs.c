/* fs.c — file and path helpers: whole-file reads, atomic writes, the data folder. */
#define _GNU_SOURCE
#include "kernelskill/common.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef KS_INSTALL_DATADIR
#define KS_INSTALL_DATADIR "/usr/local/share/kernelskill"
#endif

/* The largest file any reader takes (sources, task files, journals, store
 * entries): a bound, so a huge or endless input is an error, not an OOM. */
#ifndef KS_FILE_MAX
#define KS_FILE_MAX ((size_t)256 << 20)
#endif

int ks_file_read(const char *zPath, char **pzOut, size_t *pnOut) {
  return ks_file_read_limit(zPath, KS_FILE_MAX, pzOut, pnOut);
}

int ks_file_read_limit(const char *zPath, size_t nMax, char **pzOut, size_t *pnOut) {
  int rc = KS_OK;
  ks_buf b = KS_BUF_INIT;
  /* O_NONBLOCK: opening a FIFO must not wait for a writer; then only a
   * regular file is read (a FIFO, /dev/zero or a tty would hang or never end). */
  int fd = open(zPath, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    if (errno == ENOENT) return ks_error_set(KS_ENOTFOUND, "%s: no such file", zPath);
    return ks_error_set(KS_EIO, "%s: cannot open: %s", zPath, strerror(errno));
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    rc = ks_error_set(KS_EIO, "%s: cannot stat: %s", zPath, strerror(errno));
    goto done;
  }
  if (!S_ISREG(st.st_mode)) {
    rc = ks_error_set(KS_EINVAL, "%s: not a regular file (%s); refusing to read it", zPath,
                      S_ISDIR(st.st_mode)    ? "a folder"
                      : S_ISFIFO(st.st_mode) ? "a FIFO"
                      : S_ISCHR(st.st_mode)  ? "a character device"
                      : S_ISBLK(st.st_mode)  ? "a block device"
                      : S_ISSOCK(st.st_mode) ? "a socket"
                                             : "not a file");
    goto done;
  }
  if ((size_t)st.st_size > nMax) {
    rc = ks_error_set(KS_EINVAL, "%s: %lld bytes, more than the %zu MiB this tool reads", zPath,
                      (long long)st.st_size, nMax >> 20);
    goto done;
  }
  /* Back to blocking reads (the flag is meaningless for regular files, but
   * keep the descriptor ordinary). */
  int fl = fcntl(fd, F_GETFL);
  if (fl >= 0) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
  char aChunk[65536];
  for (;;) {
    ssize_t n = read(fd, aChunk, sizeof aChunk);
    if (n < 0) {
      if (errno == EINTR) continue;
      rc = ks_error_set(KS_EIO, "%s: read error: %s", zPath, strerror(errno));
      goto done;
    }
    if (n == 0) break;
    /* The file may grow while it is read: the bound holds regardless. */
    if (b.n + (size_t)n > nMax) {
      rc = ks_error_set(KS_EINVAL, "%s: more than the %zu MiB this tool reads", zPath, nMax >> 20);
      goto done;
    }
    if ((rc = ks_buf_append(&b, aChunk, (size_t)n)) < 0) goto done;
  }
  if ((rc = ks_buf_grow(&b, 1)) < 0) goto done; /* an empty file still gets a "" */
  b.z[b.n] = 0;
  if (pnOut) *pnOut = b.n;
  *pzOut = ks_buf_detach(&b);
done:
  close(fd);
  ks_buf_free(&b);
  return rc;
}

/* May zPath be replaced by a new regular file? Missing: yes. A regular file
 * (or a link to one): yes. Anything else (a device such as /dev/full, a FIFO,
 * a folder, a dangling link): no, with a message. */
int ks_file_check_replaceable(const char *zPath) {
  struct stat st;
  if (lstat(zPath, &st) != 0) {
    if (errno == ENOENT) return KS_OK;
    return ks_error_set(KS_EIO, "%s: %s", zPath, strerror(errno));
  }
  if (S_ISLNK(st.st_mode) && stat(zPath, &st) != 0)
    return ks_error_set(KS_EINVAL, "%s: a link to nothing; refusing to replace it", zPath);
  if (!S_ISREG(st.st_mode))
    return ks_error_set(KS_EINVAL, "%s: exists and is not a regular file; refusing to replace it", zPath);
  return KS_OK;
}

int ks_file_write_atomic(const char *zPath, const char *z, size_t n) {
  int rc = KS_OK;
  int fd = -1;
  ks_buf tmp = KS_BUF_INIT;
  if ((rc = ks_file_check_replaceable(zPath)) < 0) return rc;
  if ((rc = ks_buf_printf(&tmp, "%s.ks-tmp-%ld", zPath, (long)getpid())) < 0) goto done;
  /* O_EXCL (after removing a leftover of ours): never write through a link
   * someone planted at the temp name. */
  unlink(tmp.z);
  fd = open(tmp.z, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) {
    rc = ks_error_set(KS_EIO, "%s: cannot create: %s", tmp.z, strerror(errno));
    goto done;
  }
  /* Keep the permissions of a file being replaced. */
  struct stat st;
  if (stat(zPath, &st) == 0) fchmod(fd, st.st_mode & 07777);
  size_t nDone = 0;
  while (nDone < n) {
    ssize_t w = write(fd, z + nDone, n - nDone);
    if (w < 0) {
      if (errno == EINTR) continue;
      rc = ks_error_set(KS_EIO, "%s: write error: %s", tmp.z, strerror(errno));
      goto done;
    }
    nDone += (size_t)w;
  }
  if (fsync(fd) != 0) {
    rc = ks_error_set(KS_EIO, "%s: fsync: %s", tmp.z, strerror(errno));
    goto done;
  }
  close(fd);
  fd = -1;
  if (rename(tmp.z, zPath) != 0) {
    rc = ks_error_set(KS_EIO, "%s: rename: %s", zPath, strerror(errno));
    goto done;
  }
done:
  if (fd >= 0) close(fd);
  if (rc < 0 && tmp.z) unlink(tmp.z);
  ks_buf_free(&tmp);
  return rc;
}

int ks_file_exists(const char *zPath) {
  struct stat st;
  return stat(zPath, &st) == 0 && S_ISREG(st.st_mode);
}

int ks_dir_exists(const char *zPath) {
  struct stat st;
  return stat(zPath, &st) == 0 && S_ISDIR(st.st_mode);
}

int ks_dir_make(const char *zPath) {
  char *z = ks_strdup(zPath);
  if (!z) return KS_ENOMEM;
  int rc = KS_OK;
  for (char *p = z + 1;; p++) {
    if (*p == '/' || *p == 0) {
      char c = *p;
      *p = 0;
      if (mkdir(z, 0755) != 0 && errno != EEXIST) {
        rc = ks_error_set(KS_EIO, "%s: cannot create folder: %s", z, strerror(errno));
        break;
      }
      *p = c;
      if (c == 0) break;
    }
  }
  free(z);
  return rc;
}

char *ks_path_dirname(const char *zPath) {
  const char *zSlash = strrchr(zPath, '/');
  if (!zSlash) return ks_strdup(".");
  if (zSlash == zPath) return ks_strdup("/");
  size_t n = (size_t)(zSlash - zPath);
  char *z = malloc(n + 1);
  if (!z) return NULL;
  memcpy(z, zPath, n);
  z[n] = 0;
  return z;
}

char *ks_path_join(const char *zDir, const char *zRel) {
  if (zRel[0] == '/' || !zDir || !zDir[0]) return ks_strdup(zRel);
  ks_buf b = KS_BUF_INIT;
  size_t nDir = strlen(zDir);
  if (ks_buf_printf(&b, "%s%s%s", zDir, zDir[nDir - 1] == '/' ? "" : "/", zRel) < 0) {
    ks_buf_free(&b);
    return NULL;
  }
  return ks_buf_detach(&b);
}

char *ks_path_exe_dir(void) {
  char aPath[4096];
  ssize_t n = readlink("/proc/self/exe", aPath, sizeof aPath - 1);
  if (n <= 0) return NULL;
  aPath[n] = 0;
  return ks_path_dirname(aPath);
}

int ks_path_datadir(char **pzOut) {
  const char *zEnv = getenv("KS_DATADIR");
  if (zEnv && zEnv[0]) {
    if (!ks_dir_exists(zEnv))
      return ks_error_set(KS_EUNAVAIL, "KS_DATADIR=%s is not a folder", zEnv);
    *pzOut = ks_strdup(zEnv);
    return *pzOut ? KS_OK : KS_ENOMEM;
  }
  char *zExe = ks_path_exe_dir();
  if (zExe) {
    char *zCand = ks_path_join(zExe, "../share/kernelskill");
    free(zExe);
    if (zCand && ks_dir_exists(zCand)) {
      *pzOut = zCand;
      return KS_OK;
    }
    free(zCand);
  }
  /* Loaded into another program (the clang plugin runs inside clang): the
   * folder of the library holding this code, ../share/kernelskill. */
  Dl_info info;
  if (dladdr((void *)&ks_path_datadir, &info) && info.dli_fname && strchr(info.dli_fname, '/')) {
    char *zLib = ks_path_dirname(info.dli_fname);
    char *zCand = zLib ? ks_path_join(zLib, "../share/kernelskill") : NULL;
    free(zLib);
    if (zCand && ks_dir_exists(zCand)) {
      *pzOut = zCand;
      return KS_OK;
    }
    free(zCand);
  }
  if (ks_dir_exists(KS_INSTALL_DATADIR)) {
    *pzOut = ks_strdup(KS_INSTALL_DATADIR);
    return *pzOut ? KS_OK : KS_ENOMEM;
  }
  return ks_error_set(KS_EUNAVAIL,
                      "cannot find KernelSkill's data folder (share/kernelskill); "
                      "set KS_DATADIR or reinstall");
}

static int remove_entry(const char *zPath, const struct stat *pSt, int iFlag, struct FTW *pFtw) {
  (void)pSt;
  (void)iFlag;
  (void)pFtw;
  return remove(zPath) == 0 || errno == ENOENT ? 0 : -1;
}

int ks_dir_remove_tree(const char *zPath) {
  if (!ks_dir_exists(zPath)) return KS_OK;
  if (nftw(zPath, remove_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
    return ks_error_set(KS_EIO, "%s: cannot remove: %s", zPath, strerror(errno));
  return KS_OK;
}
