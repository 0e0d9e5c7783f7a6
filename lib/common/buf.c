/* buf.c — growable NUL-terminated byte buffers (ks_buf) with a sticky error:
 * the first failed allocation frees the contents and marks the buffer, every
 * later append is a no-op that returns the same error, and ks_buf_detach()
 * returns NULL. So a caller that ignores the results of a run of appends and
 * checks once at the end (ks_buf_error, or the detach) never gets truncated
 * text. A fault-injection hook (ks_buf_fault_after) makes allocations fail
 * on purpose for the tests that prove it. Also the small string helpers built
 * on it (ks_strdup, ks_mprintf) and text positions (ks_text_advance). */
#include "kernelskill/common.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Allocations left before injected failures begin; -1: no injection. */
static _Thread_local long g_nFaultAfter = -1;

void ks_buf_fault_after(long nOk) { g_nFaultAfter = nOk < 0 ? -1 : nOk; }

/* The sticky error: nothing of the contents survives it. */
static int buf_fail(ks_buf *p, int rc) {
  free(p->z);
  p->z = NULL;
  p->n = p->nAlloc = 0;
  p->rcErr = rc;
  return rc;
}

int ks_buf_grow(ks_buf *p, size_t nExtra) {
  if (p->rcErr) return p->rcErr;
  if (nExtra > (size_t)-1 / 2 - p->n) return buf_fail(p, ks_error_set(KS_ENOMEM, "out of memory (buffer too large)"));
  size_t nNeed = p->n + nExtra + 1;
  if (nNeed <= p->nAlloc) return KS_OK;
  size_t nNew = p->nAlloc ? p->nAlloc : 64;
  while (nNew < nNeed) nNew *= 2;
  char *z = NULL;
  if (g_nFaultAfter != 0) z = realloc(p->z, nNew);
  if (g_nFaultAfter > 0) g_nFaultAfter--;
  if (!z) return buf_fail(p, ks_error_set(KS_ENOMEM, "out of memory (%zu bytes)", nNew));
  p->z = z;
  p->nAlloc = nNew;
  return KS_OK;
}

int ks_buf_error(const ks_buf *p) { return p->rcErr; }

int ks_buf_append(ks_buf *p, const char *z, size_t n) {
  int rc = ks_buf_grow(p, n);
  if (rc < 0) return rc;
  assert(p->z && (n == 0 || z));
  if (n) memcpy(p->z + p->n, z, n);
  p->n += n;
  p->z[p->n] = 0;
  return KS_OK;
}

int ks_buf_puts(ks_buf *p, const char *z) { return ks_buf_append(p, z, strlen(z)); }

int ks_buf_vprintf(ks_buf *p, const char *zFmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, zFmt, ap2);
  va_end(ap2);
  if (p->rcErr) return p->rcErr;
  if (n < 0) return buf_fail(p, ks_error_set(KS_ERROR, "bad format string"));
  int rc = ks_buf_grow(p, (size_t)n);
  if (rc < 0) return rc;
  vsnprintf(p->z + p->n, (size_t)n + 1, zFmt, ap);
  p->n += (size_t)n;
  return KS_OK;
}

int ks_buf_printf(ks_buf *p, const char *zFmt, ...) {
  va_list ap;
  va_start(ap, zFmt);
  int rc = ks_buf_vprintf(p, zFmt, ap);
  va_end(ap);
  return rc;
}

int ks_buf_json_string(ks_buf *p, const char *z) {
  int rc = ks_buf_append(p, "\"", 1);
  for (const unsigned char *u = (const unsigned char *)z; rc == KS_OK && *u; u++) {
    switch (*u) {
    case '"': rc = ks_buf_puts(p, "\\\""); break;
    case '\\': rc = ks_buf_puts(p, "\\\\"); break;
    case '\n': rc = ks_buf_puts(p, "\\n"); break;
    case '\r': rc = ks_buf_puts(p, "\\r"); break;
    case '\t': rc = ks_buf_puts(p, "\\t"); break;
    default:
      if (*u < 0x20) rc = ks_buf_printf(p, "\\u%04x", *u);
      else rc = ks_buf_append(p, (const char *)u, 1);
    }
  }
  if (rc == KS_OK) rc = ks_buf_append(p, "\"", 1);
  return rc;
}

const char *ks_buf_cstr(const ks_buf *p) { return p->z ? p->z : ""; }

/* The error stays: what was lost is lost until ks_buf_free. */
void ks_buf_clear(ks_buf *p) {
  p->n = 0;
  if (p->z) p->z[0] = 0;
}

void ks_buf_free(ks_buf *p) {
  free(p->z);
  p->z = NULL;
  p->n = p->nAlloc = 0;
  p->rcErr = 0;
}

char *ks_buf_detach(ks_buf *p) {
  if (p->rcErr) {
    int rc = p->rcErr;
    ks_buf_free(p);
    ks_error_set(rc, "out of memory (a text could not be built)");
    return NULL;
  }
  char *z = p->z;
  if (!z) z = calloc(1, 1);
  if (!z) ks_error_set(KS_ENOMEM, "out of memory");
  p->z = NULL;
  p->n = p->nAlloc = 0;
  return z;
}

char *ks_strdup(const char *z) {
  size_t n = strlen(z) + 1;
  char *zCopy = malloc(n);
  if (!zCopy) {
    ks_error_set(KS_ENOMEM, "out of memory");
    return NULL;
  }
  memcpy(zCopy, z, n);
  return zCopy;
}

char *ks_vmprintf(const char *zFmt, va_list ap) {
  ks_buf b = KS_BUF_INIT;
  if (ks_buf_vprintf(&b, zFmt, ap) < 0) {
    ks_buf_free(&b);
    return NULL;
  }
  return ks_buf_detach(&b);
}

char *ks_mprintf(const char *zFmt, ...) {
  va_list ap;
  va_start(ap, zFmt);
  char *z = ks_vmprintf(zFmt, ap);
  va_end(ap);
  return z;
}

void ks_text_advance(const char *z, size_t nOff, int *piLine, int *piCol) {
  for (size_t i = 0; i < nOff && z[i]; i++) {
    if (z[i] == '\n') {
      ++*piLine;
      *piCol = 1;
    } else {
      ++*piCol;
    }
  }
}

void ks_text_blank_code(char *z) {
  for (char *p = z; *p;) {
    if (p[0] == '/' && p[1] == '/') {
      while (*p && *p != '\n') *p++ = ' ';
    } else if (p[0] == '/' && p[1] == '*') {
      *p++ = ' ';
      *p++ = ' ';
      while (*p && !(p[0] == '*' && p[1] == '/')) {
        if (*p != '\n') *p = ' ';
        p++;
      }
      if (*p) *p++ = ' ', *p++ = ' ';
    } else if (*p == '"' || *p == '\'') {
      char q = *p++;
      while (*p && *p != q && *p != '\n') {
        if (*p == '\\' && p[1]) *p++ = ' ';
        *p++ = ' ';
      }
      if (*p == q) p++;
    } else {
      p++;
    }
  }
}

void ks_text_hash16(const char *z, size_t n, char azOut[17]) {
  unsigned long long h = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < n; i++) {
    h ^= (unsigned char)z[i];
    h *= 0x100000001b3ULL;
  }
  snprintf(azOut, 17, "%016llx", h);
}
