/* path.c — what a file is and where a program lives: ks_file_same,
 * ks_file_is_exec, ks_path_search (the PATH lookup of the tools). */
#include "kernelskill/common.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int ks_file_same(const char *zA, const char *zB) {
  struct stat a, b;
  return zA && zB && stat(zA, &a) == 0 && stat(zB, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int ks_file_is_exec(const char *zPath) {
  struct stat st;
  return zPath && stat(zPath, &st) == 0 && S_ISREG(st.st_mode) && access(zPath, X_OK) == 0;
}

char *ks_path_search(const char *zName, const char *zSkip) {
  if (!zName || !zName[0]) return NULL;
  if (strchr(zName, '/')) return ks_file_is_exec(zName) ? ks_strdup(zName) : NULL;
  const char *zPath = getenv("PATH");
  for (const char *p = zPath; p && *p;) {
    const char *q = strchr(p, ':');
    size_t n = q ? (size_t)(q - p) : strlen(p);
    if (n > 0) {
      char *zCand = ks_mprintf("%.*s/%s", (int)n, p, zName);
      if (!zCand) return NULL;
      if (ks_file_is_exec(zCand) && !(zSkip && ks_file_same(zCand, zSkip))) return zCand;
      free(zCand);
    }
    if (!q) break;
    p = q + 1;
  }
  return NULL;
}
