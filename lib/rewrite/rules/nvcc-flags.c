/* nvcc-flags.c — rule `nvcc-flags`: the flag skills (-arch=sm_XX, -Xptxas -O3,
 * --use_fast_math, -maxrregcount=N, -l<lib>) recorded in the source file's single
 * `// kernelskill-flags: ...` line, which whoever compiles a candidate appends to
 * its nvcc command (docs/rules/nvcc-flags.md). Adds the line or extends it; a flag
 * that takes one value (-arch, -maxrregcount, -Xptxas -O<n>, -O<n>) replaces its
 * earlier value. Also exports ks_rule_nvcc_flags_add() for rules that need a link
 * flag (library-gemm records -lcublas). */
#include "features/ast.h"
#include "kernelskill/rewrite.h"
#include "gemm_match.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FLAGS_PREFIX "// kernelskill-flags:"
#define MAX_UNITS 64

/* One flag as nvcc sees it ("-Xptxas -O3" is one unit), with the key that says
 * which other flag it replaces (same key, different text). */
typedef struct flag_unit {
  char *zText; /* canonical spelling */
  char *zKey;
} flag_unit;

typedef struct flag_set {
  flag_unit a[MAX_UNITS];
  int n;
} flag_set;

static void set_free(flag_set *p) {
  for (int i = 0; i < p->n; i++) {
    free(p->a[i].zText);
    free(p->a[i].zKey);
  }
  p->n = 0;
}

static int all_digits(const char *z) {
  if (!*z) return 0;
  for (; *z; z++)
    if (!isdigit((unsigned char)*z)) return 0;
  return 1;
}

static int valid_arch(const char *z) {
  if (strncmp(z, "sm_", 3) != 0 && strncmp(z, "compute_", 8) != 0) return 0;
  z += z[0] == 's' ? 3 : 8;
  int nDigit = 0;
  while (isdigit((unsigned char)*z)) z++, nDigit++;
  if (nDigit < 2 || nDigit > 3) return 0;
  if (*z == 'a' || *z == 'f') z++;
  return *z == 0;
}

static int valid_lib(const char *z) {
  if (!*z) return 0;
  for (; *z; z++)
    if (!isalnum((unsigned char)*z) && *z != '_' && *z != '+' && *z != '-') return 0;
  return 1;
}

/* "-name V", "-name=V" for the long or short spelling: 1 (value in *pzVal,
 * *pi advanced past a separate value), 0 not this flag, -1 value missing. */
static int take_value(const char *z, const char *zNext, int *pi, const char *zLong, const char *zShort,
                      const char **pzVal) {
  const char *azName[2] = {zLong, zShort};
  for (int i = 0; i < 2; i++) {
    size_t n = strlen(azName[i]);
    if (strncmp(z, azName[i], n) != 0) continue;
    if (z[n] == '=') {
      *pzVal = z + n + 1;
      return 1;
    }
    if (z[n] == 0) {
      if (!zNext) return -1;
      ++*pi;
      *pzVal = zNext;
      return 1;
    }
  }
  return 0;
}

/* Classify the flag at azWord[*pi] (consuming a separate value when the flag
 * takes one). Known flags get a canonical text and a key; bStrict refuses
 * unknown flags (new flags from the caller), otherwise they are kept as they
 * are (flags already in the file, written by someone else). Returns 0, or -1
 * with *pzWhy set. */
static int classify(char **azWord, int nWord, int *pi, int bStrict, flag_unit *pU, const char **pzWhy) {
  const char *z = azWord[*pi];
  const char *zNext = *pi + 1 < nWord ? azWord[*pi + 1] : NULL;
  char zText[256], zKey[64];
  const char *zVal = NULL;
  zText[0] = zKey[0] = 0;
  *pzWhy = NULL;
  int m;
  if ((m = take_value(z, zNext, pi, "--gpu-architecture", "-arch", &zVal)) != 0) {
    if (m < 0 || !valid_arch(zVal)) { *pzWhy = "-arch wants sm_XX or compute_XX"; return -1; }
    snprintf(zText, sizeof zText, "-arch=%s", zVal);
    strcpy(zKey, "arch");
  } else if ((m = take_value(z, zNext, pi, "--maxrregcount", "-maxrregcount", &zVal)) != 0) {
    if (m < 0 || !all_digits(zVal) || atoi(zVal) < 16 || atoi(zVal) > 255) {
      *pzWhy = "-maxrregcount wants a number from 16 to 255";
      return -1;
    }
    snprintf(zText, sizeof zText, "-maxrregcount=%d", atoi(zVal));
    strcpy(zKey, "maxrregcount");
  } else if ((m = take_value(z, zNext, pi, "--ptxas-options", "-Xptxas", &zVal)) != 0) {
    if (m > 0 && zVal[0] == '-' && zVal[1] == 'O' && zVal[2] >= '0' && zVal[2] <= '3' && !zVal[3]) {
      snprintf(zText, sizeof zText, "-Xptxas -O%c", zVal[2]);
      strcpy(zKey, "ptxas-O");
    } else if (m > 0 && !bStrict && strlen(zVal) < 200) {
      snprintf(zText, sizeof zText, "-Xptxas %s", zVal);
      snprintf(zKey, sizeof zKey, "=%.60s", zText);
    } else {
      *pzWhy = "only -Xptxas -O0..-O3 is a known flag skill";
      return -1;
    }
  } else if (strcmp(z, "--use_fast_math") == 0 || strcmp(z, "-use_fast_math") == 0) {
    strcpy(zText, "--use_fast_math");
    strcpy(zKey, "use_fast_math");
  } else if (z[0] == '-' && z[1] == 'O' && z[2] >= '0' && z[2] <= '3' && !z[3]) {
    strcpy(zText, z);
    strcpy(zKey, "O");
  } else if (z[0] == '-' && z[1] == 'l' && valid_lib(z + 2) && strlen(z) < 64) {
    strcpy(zText, z);
    snprintf(zKey, sizeof zKey, "l:%s", z + 2);
  } else if (strcmp(z, "-lineinfo") == 0 || strcmp(z, "--generate-line-info") == 0) {
    strcpy(zText, "-lineinfo");
    strcpy(zKey, "lineinfo");
  } else if (strcmp(z, "--extra-device-vectorization") == 0 || strcmp(z, "-extra-device-vectorization") == 0) {
    strcpy(zText, "--extra-device-vectorization");
    strcpy(zKey, "extra-device-vectorization");
  } else if (!bStrict && strlen(z) < 200) {
    snprintf(zText, sizeof zText, "%s", z);
    snprintf(zKey, sizeof zKey, "=%.60s", z);
  } else {
    *pzWhy = "not a known flag skill (-arch=sm_XX, -Xptxas -O3, --use_fast_math, -maxrregcount=N, -O3, "
             "-l<lib>, -lineinfo, --extra-device-vectorization)";
    return -1;
  }
  pU->zText = ks_strdup(zText);
  pU->zKey = ks_strdup(zKey);
  if (!pU->zText || !pU->zKey) {
    *pzWhy = "out of memory";
    return -1;
  }
  return 0;
}

/* Split z (length n) at white space and classify into pSet. On a bad flag,
 * *pzBad names it (points into a static copy) and -1 is returned. */
static int parse_flags(const char *z, size_t n, int bStrict, flag_set *pSet, char *zBad, size_t nBad,
                       const char **pzWhy) {
  char *zCopy = malloc(n + 1);
  char *azWord[MAX_UNITS];
  int nWord = 0, rc = 0;
  if (!zCopy) return -1;
  memcpy(zCopy, z, n);
  zCopy[n] = 0;
  for (char *zTok = strtok(zCopy, " \t\r\n"); zTok; zTok = strtok(NULL, " \t\r\n")) {
    if (nWord == MAX_UNITS) {
      *pzWhy = "too many flags";
      rc = -1;
      goto done;
    }
    azWord[nWord++] = zTok;
  }
  for (int i = 0; i < nWord; i++) {
    if (pSet->n == MAX_UNITS) {
      *pzWhy = "too many flags";
      rc = -1;
      goto done;
    }
    snprintf(zBad, nBad, "%s", azWord[i]);
    if (classify(azWord, nWord, &i, bStrict, &pSet->a[pSet->n], pzWhy) < 0) {
      rc = -1;
      goto done;
    }
    pSet->n++;
  }
done:
  free(zCopy);
  return rc;
}

/* The `// kernelskill-flags:` comment of the main file: its byte range, or
 * *piStart == *piEnd == 0 if there is none. More than one: -1. Comments come
 * from libclang's tokens (a string literal holding the text does not count). */
static int find_flags_line(ks_tu *pTu, unsigned *piStart, unsigned *piEnd, unsigned *piFirstCode, int *pnFound) {
  CXFile file = clang_getFile(pTu->pTu, pTu->zFile);
  CXSourceRange r = clang_getRange(clang_getLocationForOffset(pTu->pTu, file, 0),
                                   clang_getLocationForOffset(pTu->pTu, file, (unsigned)pTu->nSrc));
  CXToken *aTok = NULL;
  unsigned nTok = 0;
  *piStart = *piEnd = 0;
  *pnFound = 0;
  *piFirstCode = (unsigned)pTu->nSrc;
  clang_tokenize(pTu->pTu, r, &aTok, &nTok);
  for (unsigned i = 0; i < nTok; i++) {
    long iOff = ks_ast_offset(pTu, clang_getTokenLocation(pTu->pTu, aTok[i]));
    if (iOff < 0) continue;
    if (clang_getTokenKind(aTok[i]) != CXToken_Comment) {
      if ((unsigned)iOff < *piFirstCode) *piFirstCode = (unsigned)iOff;
      continue;
    }
    if (strncmp(pTu->zSrc + iOff, FLAGS_PREFIX, strlen(FLAGS_PREFIX)) != 0) continue;
    long iEnd = ks_ast_offset(pTu, clang_getRangeEnd(clang_getTokenExtent(pTu->pTu, aTok[i])));
    if (iEnd < iOff) continue;
    if ((*pnFound)++ == 0) {
      *piStart = (unsigned)iOff;
      *piEnd = (unsigned)iEnd;
    }
  }
  clang_disposeTokens(pTu->pTu, aTok, nTok);
  return *pnFound > 1 ? -1 : 0;
}

/* Exported through gemm_match.h (rules that record link flags). */
int ks_rule_nvcc_flags_add(ks_rewrite *p, const char *zFlags, int *pbChanged) {
  ks_tu *pTu = ks_rewrite_tu(p);
  flag_set have = {{{0, 0}}, 0}, want = {{{0, 0}}, 0};
  ks_buf line = KS_BUF_INIT, what = KS_BUF_INIT;
  char zBad[256];
  const char *zWhy = NULL;
  unsigned iStart, iEnd, iFirstCode;
  int nFound, rc = KS_OK;
  *pbChanged = 0;
  if (find_flags_line(pTu, &iStart, &iEnd, &iFirstCode, &nFound) < 0) {
    unsigned iLine;
    ks_ast_line_col(pTu, iStart, &iLine, NULL);
    rc = ks_rewrite_refuse(p, "%s:%u: the file has %d '// kernelskill-flags:' lines; at most one is allowed",
                           pTu->zFile, iLine, nFound);
    goto done;
  }
  if (parse_flags(zFlags, strlen(zFlags), 1, &want, zBad, sizeof zBad, &zWhy) < 0) {
    rc = ks_rewrite_refuse(p, "flag '%s': %s", zBad, zWhy ? zWhy : "invalid");
    goto done;
  }
  if (want.n == 0) {
    rc = ks_rewrite_refuse(p, "no flags given (param flags=...)");
    goto done;
  }
  if (nFound) {
    size_t nPrefix = strlen(FLAGS_PREFIX);
    if (parse_flags(pTu->zSrc + iStart + nPrefix, iEnd - iStart - nPrefix, 0, &have, zBad, sizeof zBad, &zWhy) < 0) {
      unsigned iLine;
      ks_ast_line_col(pTu, iStart, &iLine, NULL);
      rc = ks_rewrite_refuse(p, "%s:%u: cannot read flag '%s' of the kernelskill-flags line: %s", pTu->zFile, iLine,
                             zBad, zWhy ? zWhy : "invalid");
      goto done;
    }
  }
  /* Merge: same text = present; same key = replace in place; else append. */
  for (int i = 0; i < want.n; i++) {
    int iHit = -1;
    for (int j = 0; j < have.n && iHit < 0; j++)
      if (strcmp(have.a[j].zKey, want.a[i].zKey) == 0) iHit = j;
    if (iHit >= 0 && strcmp(have.a[iHit].zText, want.a[i].zText) == 0) continue;
    if (iHit >= 0) {
      rc = ks_buf_printf(&what, "%s%s (was %s)", what.n ? ", " : "", want.a[i].zText, have.a[iHit].zText);
      free(have.a[iHit].zText);
      have.a[iHit].zText = want.a[i].zText;
      want.a[i].zText = NULL;
    } else {
      if (have.n == MAX_UNITS) {
        rc = ks_rewrite_refuse(p, "too many flags");
        goto done;
      }
      rc = ks_buf_printf(&what, "%s%s", what.n ? ", " : "", want.a[i].zText);
      have.a[have.n].zText = want.a[i].zText;
      have.a[have.n].zKey = want.a[i].zKey;
      want.a[i].zText = want.a[i].zKey = NULL;
      have.n++;
    }
    if (rc < 0) goto done;
  }
  if (what.n == 0) goto done; /* nothing new */
  if ((rc = ks_buf_puts(&line, FLAGS_PREFIX)) < 0) goto done;
  for (int i = 0; i < have.n; i++)
    if ((rc = ks_buf_printf(&line, " %s", have.a[i].zText)) < 0) goto done;
  if (nFound) {
    if ((rc = ks_rewrite_replace(p, iStart, iEnd, line.z)) < 0) goto done;
  } else {
    /* A new line above the first line of code (after the file's header comment). */
    unsigned iAt = iFirstCode;
    while (iAt > 0 && pTu->zSrc[iAt - 1] != '\n') iAt--;
    if ((rc = ks_buf_puts(&line, "\n")) < 0) goto done;
    if ((rc = ks_rewrite_replace(p, iAt, iAt, line.z)) < 0) goto done;
    iStart = iAt;
  }
  {
    ks_buf note = KS_BUF_INIT;
    rc = ks_buf_printf(&note, "nvcc flags %s", what.z);
    if (rc >= 0) rc = ks_rewrite_note(p, iStart, note.z);
    ks_buf_free(&note);
    if (rc < 0) goto done;
  }
  *pbChanged = 1;
done:
  set_free(&have);
  for (int i = 0; i < want.n; i++) {
    free(want.a[i].zText);
    free(want.a[i].zKey);
  }
  ks_buf_free(&line);
  ks_buf_free(&what);
  return rc;
}

static int apply_nvcc_flags(ks_rewrite *p) {
  const char *zFlags = ks_rewrite_param(p, "flags", NULL);
  int bChanged = 0;
  if (!zFlags) return ks_rewrite_refuse(p, "param flags=... is required (e.g. flags=\"-Xptxas -O3\")");
  int rc = ks_rule_nvcc_flags_add(p, zFlags, &bChanged);
  if (rc < 0) return rc;
  if (!bChanged) return ks_rewrite_already(p, "the kernelskill-flags line already has %s", zFlags);
  return KS_OK;
}

static const char *const azParams[] = {"flags", NULL};

const ks_rule ks_rule_nvcc_flags = {
    "nvcc-flags",
    "record nvcc flag skills (-arch, -Xptxas -O3, --use_fast_math, -maxrregcount) in the kernelskill-flags line",
    azParams, apply_nvcc_flags};
