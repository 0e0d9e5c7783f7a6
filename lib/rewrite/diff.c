/* diff.c — unified diff between two texts (for `kernelskill rewrite --diff` and
 * the loop's logs): Myers' O(ND) shortest edit script over lines, after
 * trimming the common head and tail, printed as hunks with 3 lines of context. */
#include "kernelskill/rewrite.h"

#include <stdlib.h>
#include <string.h>

typedef struct dline {
  const char *z;
  size_t n; /* bytes, without the newline */
  int bNl;  /* ends with a newline */
} dline;

static int split_lines(const char *z, size_t n, dline **paOut, int *pnOut) {
  int nLine = 0, nAlloc = 16;
  dline *a = malloc(sizeof(dline) * (size_t)nAlloc);
  if (!a) return ks_error_set(KS_ENOMEM, "out of memory");
  size_t i = 0;
  while (i < n) {
    size_t j = i;
    while (j < n && z[j] != '\n') j++;
    if (nLine == nAlloc) {
      nAlloc *= 2;
      dline *aNew = realloc(a, sizeof(dline) * (size_t)nAlloc);
      if (!aNew) {
        free(a);
        return ks_error_set(KS_ENOMEM, "out of memory");
      }
      a = aNew;
    }
    a[nLine].z = z + i;
    a[nLine].n = j - i;
    a[nLine].bNl = j < n;
    nLine++;
    i = j < n ? j + 1 : j;
  }
  *paOut = a;
  *pnOut = nLine;
  return KS_OK;
}

static int line_eq(const dline *a, const dline *b) {
  return a->n == b->n && a->bNl == b->bNl && memcmp(a->z, b->z, a->n) == 0;
}

/* Edit script op per line pair: 0 keep, 1 delete old, 2 insert new. */
typedef struct dop {
  char eOp;
  int iOld, iNew;
} dop;

/* Myers' greedy algorithm on a[0..n) vs b[0..m), keeping every round's V
 * (O(D^2) memory after trimming), then walking back for the script. */
static int myers(const dline *a, int n, const dline *b, int m, dop **paOps, int *pnOps) {
  int nMax = n + m;
  int **aV = calloc((size_t)nMax + 1, sizeof(int *));
  dop *aOps = NULL;
  int rc = KS_OK, dFound = -1;
  if (!aV) return ks_error_set(KS_ENOMEM, "out of memory");
  int *vPrev = NULL;
  for (int d = 0; d <= nMax; d++) {
    int *v = malloc(sizeof(int) * (size_t)(2 * d + 1)); /* index k + d for k in [-d, d] */
    if (!v) {
      rc = ks_error_set(KS_ENOMEM, "out of memory");
      goto done;
    }
    aV[d] = v;
    for (int k = -d; k <= d; k += 2) {
      int x;
      if (d == 0) x = 0;
      else if (k == -d || (k != d && vPrev[k - 1 + (d - 1)] < vPrev[k + 1 + (d - 1)]))
        x = vPrev[k + 1 + (d - 1)]; /* down: insertion */
      else
        x = vPrev[k - 1 + (d - 1)] + 1; /* right: deletion */
      int y = x - k;
      while (x < n && y < m && line_eq(&a[x], &b[y])) x++, y++;
      v[k + d] = x;
      if (x >= n && y >= m) {
        dFound = d;
        break;
      }
    }
    vPrev = v;
    if (dFound >= 0) break;
  }
  /* Walk back from (n, m). */
  int nOps = 0, nAlloc = n + m + 1;
  aOps = malloc(sizeof(dop) * (size_t)nAlloc);
  if (!aOps) {
    rc = ks_error_set(KS_ENOMEM, "out of memory");
    goto done;
  }
  int x = n, y = m;
  for (int d = dFound; d >= 0; d--) {
    int k = x - y;
    int xStart;
    int kPrev = 0;
    if (d > 0) {
      int *vp = aV[d - 1];
      if (k == -d || (k != d && vp[k - 1 + (d - 1)] < vp[k + 1 + (d - 1)])) kPrev = k + 1;
      else kPrev = k - 1;
      int xPrev = vp[kPrev + (d - 1)];
      xStart = kPrev == k + 1 ? xPrev : xPrev + 1;
    } else {
      xStart = 0;
    }
    while (x > xStart) { /* the snake */
      x--, y--;
      aOps[nOps++] = (dop){0, x, y};
    }
    if (d > 0) {
      if (kPrev == k + 1) {
        y--;
        aOps[nOps++] = (dop){2, x, y};
      } else {
        x--;
        aOps[nOps++] = (dop){1, x, y};
      }
    }
  }
  /* Reverse into forward order. */
  for (int i = 0; i < nOps / 2; i++) {
    dop t = aOps[i];
    aOps[i] = aOps[nOps - 1 - i];
    aOps[nOps - 1 - i] = t;
  }
  *paOps = aOps;
  *pnOps = nOps;
  aOps = NULL;
done:
  for (int d = 0; d <= nMax; d++) free(aV[d]);
  free(aV);
  free(aOps);
  return rc;
}

static int put_line(ks_buf *pOut, char cTag, const dline *l) {
  int rc = ks_buf_append(pOut, &cTag, 1);
  if (rc == KS_OK) rc = ks_buf_append(pOut, l->z, l->n);
  if (rc == KS_OK) rc = ks_buf_puts(pOut, "\n");
  if (rc == KS_OK && !l->bNl) rc = ks_buf_puts(pOut, "\\ No newline at end of file\n");
  return rc;
}

#define KS_DIFF_CONTEXT 3

int ks_rewrite_diff(const char *zPath, const char *zOld, size_t nOld, const char *zNew, size_t nNew, ks_buf *pOut) {
  dline *a = NULL, *b = NULL;
  dop *aOps = NULL;
  int n = 0, m = 0, nOps = 0;
  int rc = split_lines(zOld, nOld, &a, &n);
  if (rc < 0) goto done;
  if ((rc = split_lines(zNew, nNew, &b, &m)) < 0) goto done;
  /* Common head and tail need no search. */
  int nHead = 0;
  while (nHead < n && nHead < m && line_eq(&a[nHead], &b[nHead])) nHead++;
  int nTail = 0;
  while (nTail < n - nHead && nTail < m - nHead && line_eq(&a[n - 1 - nTail], &b[m - 1 - nTail])) nTail++;
  if (nHead == n && nHead == m) goto done; /* identical: empty diff */
  dop *aMid = NULL;
  int nMid = 0;
  if ((rc = myers(a + nHead, n - nHead - nTail, b + nHead, m - nHead - nTail, &aMid, &nMid)) < 0) goto done;
  nOps = nHead + nMid + nTail;
  aOps = malloc(sizeof(dop) * (size_t)(nOps + 1));
  if (!aOps) {
    free(aMid);
    rc = ks_error_set(KS_ENOMEM, "out of memory");
    goto done;
  }
  for (int i = 0; i < nHead; i++) aOps[i] = (dop){0, i, i};
  for (int i = 0; i < nMid; i++) aOps[nHead + i] = (dop){aMid[i].eOp, aMid[i].iOld + nHead, aMid[i].iNew + nHead};
  for (int i = 0; i < nTail; i++) aOps[nHead + nMid + i] = (dop){0, n - nTail + i, m - nTail + i};
  free(aMid);

  /* git-style a/ b/ prefixes for relative paths; absolute paths as they are. */
  if (zPath[0] == '/') rc = ks_buf_printf(pOut, "--- %s\n+++ %s\n", zPath, zPath);
  else rc = ks_buf_printf(pOut, "--- a/%s\n+++ b/%s\n", zPath, zPath);
  if (rc < 0) goto done;
  int i = 0;
  while (i < nOps) {
    while (i < nOps && aOps[i].eOp == 0) i++;
    if (i >= nOps) break;
    /* A hunk: from KS_DIFF_CONTEXT keeps before the change to the point where
     * more than 2*context keeps separate it from the next change. */
    int iFirst = i - KS_DIFF_CONTEXT < 0 ? 0 : i - KS_DIFF_CONTEXT;
    while (iFirst < i && aOps[iFirst].eOp != 0) iFirst++;
    int iLast = i; /* one past */
    for (;;) {
      while (iLast < nOps && aOps[iLast].eOp != 0) iLast++;
      int nKeep = 0;
      while (iLast + nKeep < nOps && aOps[iLast + nKeep].eOp == 0) nKeep++;
      if (iLast + nKeep < nOps && nKeep <= 2 * KS_DIFF_CONTEXT) {
        iLast += nKeep;
        continue;
      }
      iLast += nKeep < KS_DIFF_CONTEXT ? nKeep : KS_DIFF_CONTEXT;
      break;
    }
    int nOldLen = 0, nNewLen = 0;
    for (int k = iFirst; k < iLast; k++) {
      if (aOps[k].eOp != 2) nOldLen++;
      if (aOps[k].eOp != 1) nNewLen++;
    }
    /* Hunk start lines: the first old/new line of the hunk (1-based); an
     * empty side names the line before it. */
    int iOldStart = aOps[iFirst].iOld + (nOldLen ? 1 : 0);
    int iNewStart = aOps[iFirst].iNew + (nNewLen ? 1 : 0);
    if ((rc = ks_buf_printf(pOut, "@@ -%d", iOldStart)) < 0) goto done;
    if (nOldLen != 1 && (rc = ks_buf_printf(pOut, ",%d", nOldLen)) < 0) goto done;
    if ((rc = ks_buf_printf(pOut, " +%d", iNewStart)) < 0) goto done;
    if (nNewLen != 1 && (rc = ks_buf_printf(pOut, ",%d", nNewLen)) < 0) goto done;
    if ((rc = ks_buf_puts(pOut, " @@\n")) < 0) goto done;
    for (int k = iFirst; k < iLast; k++) {
      if (aOps[k].eOp == 0) rc = put_line(pOut, ' ', &a[aOps[k].iOld]);
      else if (aOps[k].eOp == 1) rc = put_line(pOut, '-', &a[aOps[k].iOld]);
      else rc = put_line(pOut, '+', &b[aOps[k].iNew]);
      if (rc < 0) goto done;
    }
    i = iLast;
  }
done:
  free(a);
  free(b);
  free(aOps);
  return rc;
}
