/* journal.c — the per-task journal (short-term memory): the source hash,
 * reading JSON Lines records, and appending one record durably (one write()
 * on an O_APPEND descriptor under a write lock, then fsync). */
#include "kernelskill/journal.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const azVerdicts[] = {"accepted", "slower", "noise", "compile_error", "wrong_result",
                                         "runtime_error", "timeout", "refused", 0};

const char *const *ks_journal_verdicts(void) { return azVerdicts; }

#define FNV_OFFSET 0xcbf29ce484222325ULL
#define FNV_PRIME 0x100000001b3ULL

static uint64_t fnv(uint64_t h, const char *z, size_t n) {
  for (size_t i = 0; i < n; i++) {
    h ^= (unsigned char)z[i];
    h *= FNV_PRIME;
  }
  return h;
}

static int is_trailing_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

void ks_journal_hash(const char *zSrc, size_t nSrc, const char *zFlags, char azOut[17]) {
  uint64_t h = FNV_OFFSET;
  size_t iLine = 0;
  /* Hash line by line: each line without its trailing whitespace (which
   * includes the CR of a CRLF), then the LF if there was one. */
  while (iLine < nSrc) {
    size_t iEnd = iLine;
    while (iEnd < nSrc && zSrc[iEnd] != '\n') iEnd++;
    size_t iTrim = iEnd;
    while (iTrim > iLine && is_trailing_space(zSrc[iTrim - 1])) iTrim--;
    h = fnv(h, zSrc + iLine, iTrim - iLine);
    if (iEnd < nSrc) h = fnv(h, "\n", 1);
    iLine = iEnd + 1;
  }
  h = fnv(h, "", 1); /* the NUL separating text and flags */
  if (zFlags) h = fnv(h, zFlags, strlen(zFlags));
  snprintf(azOut, 17, "%016llx", (unsigned long long)h);
}

static void entry_free(ks_journal_entry *e) {
  free(e->zEvent);
  free(e->zParent);
  free(e->zHash);
  free(e->zSkill);
  free(e->zRule);
  free(e->zVerdict);
  free(e->zReason);
  free(e->zJson);
}

void ks_journal_free(ks_journal *p) {
  if (!p) return;
  for (int i = 0; i < p->n; i++) entry_free(&p->a[i]);
  free(p->a);
  free(p->zPath);
  free(p);
}

/* Copy an optional string member; a present member of another type is an error. */
static int get_str(cJSON *pObj, const char *zKey, char **pz, const char *zPath, int iLine) {
  cJSON *p = cJSON_GetObjectItemCaseSensitive(pObj, zKey);
  if (!p || cJSON_IsNull(p)) return KS_OK;
  if (!cJSON_IsString(p)) return ks_error_set(KS_EINVAL, "%s:%d: \"%s\" should be a string", zPath, iLine, zKey);
  *pz = ks_strdup(p->valuestring);
  return *pz ? KS_OK : KS_ENOMEM;
}

static int parse_line(const char *zPath, int iLine, const char *z, size_t n, ks_journal_entry *e) {
  int rc = KS_OK;
  memset(e, 0, sizeof *e);
  e->iLine = iLine;
  cJSON *pObj = cJSON_ParseWithLength(z, n);
  if (!pObj || !cJSON_IsObject(pObj)) {
    rc = ks_error_set(KS_EPARSE, "%s:%d: not a JSON object", zPath, iLine);
    goto done;
  }
  cJSON *pFmt = cJSON_GetObjectItemCaseSensitive(pObj, "ks_journal");
  if (!cJSON_IsNumber(pFmt) || pFmt->valuedouble != KS_JOURNAL_FORMAT) {
    rc = ks_error_set(KS_EINVAL, "%s:%d: not a journal record (\"ks_journal\": %d missing)", zPath, iLine,
                      KS_JOURNAL_FORMAT);
    goto done;
  }
  if ((rc = get_str(pObj, "event", &e->zEvent, zPath, iLine)) < 0) goto done;
  if (!e->zEvent) {
    rc = ks_error_set(KS_EINVAL, "%s:%d: record without \"event\"", zPath, iLine);
    goto done;
  }
  if ((rc = get_str(pObj, "parent", &e->zParent, zPath, iLine)) < 0) goto done;
  if ((rc = get_str(pObj, "hash", &e->zHash, zPath, iLine)) < 0) goto done;
  if ((rc = get_str(pObj, "skill", &e->zSkill, zPath, iLine)) < 0) goto done;
  if ((rc = get_str(pObj, "rule", &e->zRule, zPath, iLine)) < 0) goto done;
  if ((rc = get_str(pObj, "verdict", &e->zVerdict, zPath, iLine)) < 0) goto done;
  if ((rc = get_str(pObj, "reason", &e->zReason, zPath, iLine)) < 0) goto done;
  cJSON *pRound = cJSON_GetObjectItemCaseSensitive(pObj, "round");
  if (pRound && !cJSON_IsNumber(pRound)) {
    rc = ks_error_set(KS_EINVAL, "%s:%d: \"round\" should be a number", zPath, iLine);
    goto done;
  }
  if (pRound) e->iRound = pRound->valueint;
  cJSON *pSp = cJSON_GetObjectItemCaseSensitive(pObj, "speedup");
  if (pSp && !cJSON_IsNull(pSp)) {
    if (!cJSON_IsNumber(pSp)) {
      rc = ks_error_set(KS_EINVAL, "%s:%d: \"speedup\" should be a number", zPath, iLine);
      goto done;
    }
    e->bHasSpeedup = 1;
    e->rSpeedup = pSp->valuedouble;
  }
  if (strcmp(e->zEvent, "candidate") == 0) {
    int bOk = 0;
    for (int i = 0; e->zVerdict && azVerdicts[i]; i++)
      if (strcmp(azVerdicts[i], e->zVerdict) == 0) bOk = 1;
    if (!bOk) {
      rc = ks_error_set(KS_EINVAL, "%s:%d: candidate record with %s verdict%s%s%s", zPath, iLine,
                        e->zVerdict ? "unknown" : "no", e->zVerdict ? " \"" : "", e->zVerdict ? e->zVerdict : "",
                        e->zVerdict ? "\"" : "");
      goto done;
    }
    if (!e->zParent || !e->zSkill) {
      rc = ks_error_set(KS_EINVAL, "%s:%d: candidate record needs \"parent\" and \"skill\"", zPath, iLine);
      goto done;
    }
  }
  e->zJson = malloc(n + 1);
  if (!e->zJson) {
    rc = ks_error_set(KS_ENOMEM, "out of memory");
    goto done;
  }
  memcpy(e->zJson, z, n);
  e->zJson[n] = 0;
done:
  cJSON_Delete(pObj);
  if (rc < 0) entry_free(e);
  return rc;
}

int ks_journal_read(const char *zPath, ks_journal **ppJournal) {
  int rc = KS_OK;
  char *zText = NULL;
  size_t nText = 0;
  ks_journal *p = calloc(1, sizeof *p);
  *ppJournal = NULL;
  if (!p) return ks_error_set(KS_ENOMEM, "out of memory");
  if (!(p->zPath = ks_strdup(zPath))) {
    rc = KS_ENOMEM;
    goto fail;
  }
  rc = ks_file_read(zPath, &zText, &nText);
  if (rc == KS_ENOTFOUND) {
    ks_error_clear();
    *ppJournal = p;
    return KS_OK;
  }
  if (rc < 0) goto fail;
  int nAlloc = 0, iLine = 0;
  size_t i = 0;
  while (i < nText) {
    size_t iEnd = i;
    while (iEnd < nText && zText[iEnd] != '\n') iEnd++;
    int bTerminated = iEnd < nText;
    iLine++;
    size_t iS = i, iE = iEnd;
    while (iS < iE && (zText[iS] == ' ' || zText[iS] == '\t' || zText[iS] == '\r')) iS++;
    while (iE > iS && (zText[iE - 1] == ' ' || zText[iE - 1] == '\t' || zText[iE - 1] == '\r')) iE--;
    if (iE > iS) {
      if (p->n == nAlloc) {
        nAlloc = nAlloc ? nAlloc * 2 : 16;
        ks_journal_entry *a = realloc(p->a, sizeof *a * (size_t)nAlloc);
        if (!a) {
          rc = ks_error_set(KS_ENOMEM, "out of memory");
          goto fail;
        }
        p->a = a;
      }
      rc = parse_line(zPath, iLine, zText + iS, iE - iS, &p->a[p->n]);
      if (rc == KS_EPARSE && !bTerminated) {
        /* a record cut short by a crash: the write never completed */
        ks_error_clear();
        p->bTornTail = 1;
        rc = KS_OK;
      } else if (rc < 0) {
        goto fail;
      } else {
        p->n++;
      }
    }
    i = iEnd + 1;
  }
  free(zText);
  *ppJournal = p;
  return KS_OK;
fail:
  free(zText);
  ks_journal_free(p);
  return rc;
}

/* A last line without its newline is a record whose write never completed
 * (the reader skips it). Cut it off before appending, or the new record would
 * be glued onto it and the journal would hold a bad line in the middle. */
static int drop_torn_tail(int fd, const char *zPath) {
  struct stat st;
  char aBuf[4096];
  if (fstat(fd, &st) != 0) return ks_error_set(KS_EIO, "%s: stat: %s", zPath, strerror(errno));
  off_t iEnd = st.st_size;
  if (iEnd == 0) return KS_OK;
  if (pread(fd, aBuf, 1, iEnd - 1) != 1) return ks_error_set(KS_EIO, "%s: read error: %s", zPath, strerror(errno));
  if (aBuf[0] == '\n') return KS_OK;
  /* find the last newline, reading backwards a block at a time */
  off_t iKeep = 0;
  while (iEnd > 0 && iKeep == 0) {
    off_t iStart = iEnd > (off_t)sizeof aBuf ? iEnd - (off_t)sizeof aBuf : 0;
    ssize_t n = pread(fd, aBuf, (size_t)(iEnd - iStart), iStart);
    if (n != (ssize_t)(iEnd - iStart)) return ks_error_set(KS_EIO, "%s: read error: %s", zPath, strerror(errno));
    for (ssize_t k = n; k > 0; k--)
      if (aBuf[k - 1] == '\n') {
        iKeep = iStart + k;
        break;
      }
    iEnd = iStart;
  }
  if (ftruncate(fd, iKeep) != 0) return ks_error_set(KS_EIO, "%s: cannot drop a torn last line: %s", zPath, strerror(errno));
  return KS_OK;
}

int ks_journal_append(const char *zPath, const char *zJson) {
  int rc = KS_OK, fd = -1;
  char *zLine = NULL;
  cJSON *pObj = cJSON_Parse(zJson);
  if (!pObj || !cJSON_IsObject(pObj)) {
    rc = ks_error_set(KS_EINVAL, "journal record is not a JSON object");
    goto done;
  }
  cJSON *pFmt = cJSON_GetObjectItemCaseSensitive(pObj, "ks_journal");
  cJSON *pEv = cJSON_GetObjectItemCaseSensitive(pObj, "event");
  if (!cJSON_IsNumber(pFmt) || pFmt->valuedouble != KS_JOURNAL_FORMAT || !cJSON_IsString(pEv)) {
    rc = ks_error_set(KS_EINVAL, "journal record needs \"ks_journal\": %d and an \"event\"", KS_JOURNAL_FORMAT);
    goto done;
  }
  char *zCompact = cJSON_PrintUnformatted(pObj);
  if (!zCompact) {
    rc = ks_error_set(KS_ENOMEM, "out of memory");
    goto done;
  }
  size_t n = strlen(zCompact);
  zLine = malloc(n + 2);
  if (!zLine) {
    free(zCompact);
    rc = ks_error_set(KS_ENOMEM, "out of memory");
    goto done;
  }
  memcpy(zLine, zCompact, n);
  zLine[n] = '\n';
  zLine[n + 1] = 0;
  free(zCompact);
  fd = open(zPath, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    rc = ks_error_set(KS_EIO, "%s: cannot open for appending: %s", zPath, strerror(errno));
    goto done;
  }
  /* Appenders take the write lock so that dropping a torn tail never cuts
   * into another process's record; a crashed holder releases it by exiting. */
  struct flock lk = {0};
  lk.l_type = F_WRLCK;
  lk.l_whence = SEEK_SET;
  while (fcntl(fd, F_SETLKW, &lk) != 0) {
    if (errno == EINTR) continue;
    rc = ks_error_set(KS_EIO, "%s: cannot lock for appending: %s", zPath, strerror(errno));
    goto done;
  }
  if ((rc = drop_torn_tail(fd, zPath)) < 0) goto done;
  /* One write() keeps concurrent appenders from interleaving inside a line. */
  size_t nDone = 0;
  while (nDone < n + 1) {
    ssize_t w = write(fd, zLine + nDone, n + 1 - nDone);
    if (w < 0) {
      if (errno == EINTR) continue;
      rc = ks_error_set(KS_EIO, "%s: write error: %s", zPath, strerror(errno));
      goto done;
    }
    nDone += (size_t)w;
  }
  if (fsync(fd) != 0) {
    rc = ks_error_set(KS_EIO, "%s: fsync: %s", zPath, strerror(errno));
    goto done;
  }
done:
  if (fd >= 0) close(fd);
  free(zLine);
  cJSON_Delete(pObj);
  return rc;
}

int ks_journal_append_candidate(const char *zPath, const ks_journal_entry *e, const char *const *azParams,
                                int nParams) {
  int rc = KS_OK;
  char *zJson = NULL;
  cJSON *pObj = cJSON_CreateObject();
  cJSON *pParams = NULL;
  if (!pObj) return ks_error_set(KS_ENOMEM, "out of memory");
  cJSON_AddNumberToObject(pObj, "ks_journal", KS_JOURNAL_FORMAT);
  cJSON_AddStringToObject(pObj, "event", e->zEvent ? e->zEvent : "candidate");
  cJSON_AddNumberToObject(pObj, "round", e->iRound);
  if (e->zParent) cJSON_AddStringToObject(pObj, "parent", e->zParent);
  if (e->zHash) cJSON_AddStringToObject(pObj, "hash", e->zHash);
  if (e->zSkill) cJSON_AddStringToObject(pObj, "skill", e->zSkill);
  if (e->zRule) cJSON_AddStringToObject(pObj, "rule", e->zRule);
  pParams = cJSON_AddObjectToObject(pObj, "params");
  for (int i = 0; pParams && i < nParams; i++) {
    const char *zEq = strchr(azParams[i], '=');
    if (!zEq) {
      rc = ks_error_set(KS_EINVAL, "parameter '%s' is not k=v", azParams[i]);
      goto done;
    }
    char zKey[128];
    snprintf(zKey, sizeof zKey, "%.*s", (int)(zEq - azParams[i]), azParams[i]);
    cJSON_AddStringToObject(pParams, zKey, zEq + 1);
  }
  if (e->zVerdict) cJSON_AddStringToObject(pObj, "verdict", e->zVerdict);
  if (e->bHasSpeedup && isfinite(e->rSpeedup)) cJSON_AddNumberToObject(pObj, "speedup", e->rSpeedup);
  if (e->zReason) cJSON_AddStringToObject(pObj, "reason", e->zReason);
  zJson = cJSON_PrintUnformatted(pObj);
  if (!zJson) {
    rc = ks_error_set(KS_ENOMEM, "out of memory");
    goto done;
  }
  rc = ks_journal_append(zPath, zJson);
done:
  free(zJson);
  cJSON_Delete(pObj);
  return rc;
}

/* ---- the loop's records ---------------------------------------------------- */

static const char *const azEvents[] = {"start", "review", "plan", "candidate", "decision", "stop", "final", "tuned", 0};

const char *const *ks_journal_events(void) { return azEvents; }

static cJSON *entry_member(const ks_journal_entry *e, const char *zKey, cJSON **ppDoc) {
  *ppDoc = e && e->zJson ? cJSON_Parse(e->zJson) : NULL;
  return *ppDoc ? cJSON_GetObjectItemCaseSensitive(*ppDoc, zKey) : NULL;
}

int ks_journal_entry_number(const ks_journal_entry *e, const char *zKey, double *pr) {
  cJSON *pDoc, *p = entry_member(e, zKey, &pDoc);
  int rc = cJSON_IsNumber(p) ? KS_OK : KS_ENOTFOUND;
  if (rc == KS_OK) *pr = p->valuedouble;
  cJSON_Delete(pDoc);
  return rc;
}

char *ks_journal_entry_string(const ks_journal_entry *e, const char *zKey) {
  cJSON *pDoc, *p = entry_member(e, zKey, &pDoc);
  char *z = cJSON_IsString(p) ? ks_strdup(p->valuestring) : NULL;
  cJSON_Delete(pDoc);
  return z;
}

char *ks_journal_entry_member(const ks_journal_entry *e, const char *zKey) {
  cJSON *pDoc, *p = entry_member(e, zKey, &pDoc);
  char *z = p ? cJSON_PrintUnformatted(p) : NULL;
  cJSON_Delete(pDoc);
  return z;
}

int ks_journal_find(const ks_journal *p, const char *zEvent, int iRound, const char *zHash) {
  for (int i = p ? p->n - 1 : -1; i >= 0; i--) {
    const ks_journal_entry *e = &p->a[i];
    if (strcmp(e->zEvent, zEvent) != 0) continue;
    if (iRound >= 0 && e->iRound != iRound) continue;
    if (zHash && (!e->zHash || strcmp(e->zHash, zHash) != 0)) continue;
    return i;
  }
  return -1;
}

static int is_failure(const char *zVerdict) {
  return zVerdict && (strcmp(zVerdict, "compile_error") == 0 || strcmp(zVerdict, "wrong_result") == 0 ||
                      strcmp(zVerdict, "runtime_error") == 0 || strcmp(zVerdict, "timeout") == 0);
}

int ks_journal_check(const ks_journal *p, ks_buf *pOut) {
  int nProblems = 0;
  const char *zPath = p && p->zPath ? p->zPath : "<journal>";
  for (int i = 0; p && i < p->n; i++) {
    const ks_journal_entry *e = &p->a[i];
    if (strcmp(e->zEvent, "candidate") != 0 || (e->zVerdict && strcmp(e->zVerdict, "refused") == 0)) continue;
    char *zParams = ks_journal_entry_member(e, "params");
    for (int j = 0; j < i; j++) {
      const ks_journal_entry *f = &p->a[j];
      if (strcmp(f->zEvent, "candidate") != 0 || (f->zVerdict && strcmp(f->zVerdict, "refused") == 0)) continue;
      if (e->zHash && f->zHash && strcmp(e->zHash, f->zHash) == 0) {
        ks_buf_printf(pOut, "%s:%d: candidate %s evaluated again (first at line %d)\n", zPath, e->iLine, e->zHash,
                      f->iLine);
        nProblems++;
        break;
      }
      if (!is_failure(f->zVerdict) || strcmp(e->zParent, f->zParent) != 0 || strcmp(e->zSkill, f->zSkill) != 0)
        continue;
      char *zOther = ks_journal_entry_member(f, "params");
      int bSame = (!zParams && !zOther) || (zParams && zOther && strcmp(zParams, zOther) == 0);
      free(zOther);
      if (bSame) {
        ks_buf_printf(pOut, "%s:%d: %s retried on parent %s after it failed (line %d: %s)\n", zPath, e->iLine,
                      e->zSkill, e->zParent, f->iLine, f->zVerdict);
        nProblems++;
        break;
      }
    }
    free(zParams);
  }
  return nProblems;
}
