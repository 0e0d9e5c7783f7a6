/* marks.c — the `// kernelskill:` / `// kernelskill-flags:` comment grammar
 * (kernelskill/marks.h): the one reader and the one writer. */
#include "kernelskill/marks.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* Is z[i..iEnd) a mark line? Sets the kind and the value. */
static int line_mark(const char *z, size_t i, size_t iEnd, ks_mark *p) {
  static const char zNote[] = "kernelskill:", zFlags[] = "kernelskill-flags:";
  while (i < iEnd && (z[i] == ' ' || z[i] == '\t')) i++;
  if (i + 2 > iEnd || z[i] != '/' || z[i + 1] != '/') return 0;
  i += 2;
  if (i >= iEnd || !is_blank(z[i])) return 0; /* "//kernelskill:" is not ours: the writer puts one space */
  while (i < iEnd && is_blank(z[i])) i++;
  size_t nLeft = iEnd - i;
  if (nLeft >= sizeof zNote - 1 && memcmp(z + i, zNote, sizeof zNote - 1) == 0) {
    p->eKind = KS_MARK_NOTE;
    i += sizeof zNote - 1;
  } else if (nLeft >= sizeof zFlags - 1 && memcmp(z + i, zFlags, sizeof zFlags - 1) == 0) {
    p->eKind = KS_MARK_FLAGS;
    i += sizeof zFlags - 1;
  } else {
    return 0;
  }
  size_t e = iEnd;
  while (i < e && is_blank(z[i])) i++;
  while (e > i && is_blank(z[e - 1])) e--;
  p->zValue = z + i;
  p->nValue = e - i;
  return 1;
}

int ks_mark_next(const char *z, size_t n, unsigned eMask, size_t *piPos, int *piLine, ks_mark *pOut) {
  assert(z || n == 0);
  size_t i = *piPos;
  int iLine = piLine ? *piLine : 0;
  while (i < n) {
    const char *zEol = memchr(z + i, '\n', n - i);
    size_t iEnd = zEol ? (size_t)(zEol - z) : n;
    ks_mark m;
    int bHit = line_mark(z, i, iEnd, &m) && (m.eKind & eMask);
    size_t iNext = iEnd < n ? iEnd + 1 : n;
    if (bHit) {
      m.iLine = iLine;
      m.iStart = i;
      m.iEnd = iEnd;
      *pOut = m;
      *piPos = iNext;
      if (piLine) *piLine = iLine + 1;
      return 1;
    }
    i = iNext;
    iLine++;
  }
  *piPos = n;
  if (piLine) *piLine = iLine;
  return 0;
}

int ks_mark_count(const char *z, size_t n, ks_mark_kind e) {
  size_t i = 0;
  int nHit = 0;
  ks_mark m;
  while (ks_mark_next(z, n, (unsigned)e, &i, NULL, &m)) nHit++;
  return nHit;
}

char *ks_mark_value(const char *z, size_t n, ks_mark_kind e, int *pbOom) {
  size_t i = 0;
  ks_mark m;
  if (pbOom) *pbOom = 0;
  if (!ks_mark_next(z, n, (unsigned)e, &i, NULL, &m)) return NULL;
  char *zOut = malloc(m.nValue + 1);
  if (!zOut) {
    if (pbOom) *pbOom = 1;
    ks_error_set(KS_ENOMEM, "out of memory");
    return NULL;
  }
  memcpy(zOut, m.zValue, m.nValue);
  zOut[m.nValue] = 0;
  return zOut;
}

int ks_mark_has_prefix(const ks_mark *p, const char *zPrefix) {
  size_t n = strlen(zPrefix);
  return p->nValue >= n && memcmp(p->zValue, zPrefix, n) == 0;
}

int ks_mark_write(ks_buf *pOut, ks_mark_kind e, const char *zValue) {
  assert(e == KS_MARK_NOTE || e == KS_MARK_FLAGS);
  size_t n0 = pOut->n;
  int rc = ks_buf_puts(pOut, e == KS_MARK_NOTE ? "// kernelskill: " : "// kernelskill-flags: ");
  if (rc == KS_OK) rc = ks_buf_puts(pOut, zValue ? zValue : "");
  if (rc < 0) return rc;
  for (size_t i = n0; i < pOut->n; i++)
    if (pOut->z[i] == '\n' || pOut->z[i] == '\r') pOut->z[i] = ' ';
  return KS_OK;
}
