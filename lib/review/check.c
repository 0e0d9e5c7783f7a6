/* check.c — the Reviewer's CPU-side judgement: compare a candidate's output with
 * the reference's (poison left, NaN, constant output, tolerance, worst element),
 * order statistics of timings, and the `// kernelskill-flags:` line. */
#include "kernelskill/marks.h"
#include "kernelskill/review.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double f16_to_double(uint16_t h) {
  int s = h >> 15, e = (h >> 10) & 0x1F, m = h & 0x3FF;
  double v;
  if (e == 0) v = ldexp(m, -24);
  else if (e == 31) v = m ? NAN : INFINITY;
  else v = ldexp(m + 1024, e - 25);
  return s ? -v : v;
}

static double bf16_to_double(uint16_t h) {
  uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

double ks_review_elem(ks_dtype eType, const void *p, size_t i) {
  switch (eType) {
  case KS_DT_F32: { float f; memcpy(&f, (const char *)p + 4 * i, 4); return f; }
  case KS_DT_F16: { uint16_t h; memcpy(&h, (const char *)p + 2 * i, 2); return f16_to_double(h); }
  case KS_DT_BF16: { uint16_t h; memcpy(&h, (const char *)p + 2 * i, 2); return bf16_to_double(h); }
  case KS_DT_F64: { double d; memcpy(&d, (const char *)p + 8 * i, 8); return d; }
  case KS_DT_I32: { int32_t v; memcpy(&v, (const char *)p + 4 * i, 4); return v; }
  case KS_DT_I64: { int64_t v; memcpy(&v, (const char *)p + 8 * i, 8); return (double)v; }
  case KS_DT_U8: return ((const uint8_t *)p)[i];
  }
  return NAN;
}

static int is_poison(ks_dtype eType, const void *p, size_t i) {
  size_t es = ks_dtype_size(eType);
  const unsigned char *q = (const unsigned char *)p + es * i;
  for (size_t k = 0; k < es; k++)
    if (q[k] != 0xFF) return 0;
  return 1;
}

int ks_review_compare(ks_dtype eType, size_t nElem, const void *pRef, const void *pGot, double rRtol, double rAtol,
                      char **pzWhy) {
  size_t nBad = 0, nUnwritten = 0, nNan = 0, iWorst = 0, iFirstUnwritten = 0, iFirstNan = 0;
  double rWorst = -1;
  int bRefConst = 1, bGotConst = 1;
  double rRef0 = nElem ? ks_review_elem(eType, pRef, 0) : 0, rGot0 = nElem ? ks_review_elem(eType, pGot, 0) : 0;
  size_t es = ks_dtype_size(eType);
  *pzWhy = NULL;
  for (size_t i = 0; i < nElem; i++) {
    double e = ks_review_elem(eType, pRef, i), g = ks_review_elem(eType, pGot, i);
    if (bRefConst && memcmp((const char *)pRef + i * es, pRef, es) != 0) bRefConst = 0;
    if (bGotConst && memcmp((const char *)pGot + i * es, pGot, es) != 0) bGotConst = 0;
    /* Unwritten: still the poison bytes where the reference has something else. */
    if (is_poison(eType, pGot, i) && !is_poison(eType, pRef, i)) {
      if (!nUnwritten++) iFirstUnwritten = i;
      nBad++;
      continue;
    }
    if (!isfinite(g) && !(isinf(e) && g == e)) {
      if (!nNan++) iFirstNan = i;
      nBad++;
      continue;
    }
    double rErr = fabs(g - e), rAllowed = rAtol + rRtol * fabs(e);
    double rScore = rAllowed > 0 ? rErr / rAllowed : (rErr > 0 ? INFINITY : 0);
    if (rErr > rAllowed) nBad++;
    if (rScore > rWorst) rWorst = rScore, iWorst = i;
  }
  ks_buf b = KS_BUF_INIT;
  if (nUnwritten) {
    ks_buf_printf(&b, "%zu of %zu elements not written (still 0xFF poison), first at index %zu", nUnwritten, nElem,
                  iFirstUnwritten);
  } else if (nNan) {
    ks_buf_printf(&b, "%zu elements are NaN/Inf where the reference is finite, first at index %zu (expected %.9g)",
                  nNan, iFirstNan, ks_review_elem(eType, pRef, iFirstNan));
  } else if (nElem > 1 && bGotConst && !bRefConst) {
    ks_buf_printf(&b, "output is constant (every element %.9g) where the reference's is not", rGot0);
  } else if (nBad) {
    ks_buf_printf(&b, "%zu of %zu elements outside tolerance (rtol %g, atol %g); worst at index %zu: expected %.9g, "
                  "got %.9g", nBad, nElem, rRtol, rAtol, iWorst, ks_review_elem(eType, pRef, iWorst),
                  ks_review_elem(eType, pGot, iWorst));
  }
  (void)rRef0;
  if (b.n) {
    *pzWhy = ks_buf_detach(&b);
    return KS_EINVAL;
  }
  return KS_OK;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double quantile(const double *ar, int n, double q) {
  double pos = q * (n - 1);
  int i = (int)pos;
  if (i + 1 >= n) return ar[n - 1];
  return ar[i] + (pos - i) * (ar[i + 1] - ar[i]);
}

void ks_review_stats(const double *arMs, int n, ks_timing_stats *p) {
  memset(p, 0, sizeof *p);
  if (n <= 0) return;
  double *a = malloc(sizeof(double) * (size_t)n);
  if (!a) return;
  double rSum = 0;
  for (int i = 0; i < n; i++) a[i] = arMs[i] * 1000.0, rSum += a[i];
  qsort(a, (size_t)n, sizeof(double), cmp_double);
  p->n = n;
  p->rMinUs = a[0];
  p->rMaxUs = a[n - 1];
  p->rMedianUs = quantile(a, n, 0.5);
  p->rQ1Us = quantile(a, n, 0.25);
  p->rQ3Us = quantile(a, n, 0.75);
  p->rMeanUs = rSum / n;
  free(a);
}

char *ks_review_source_flags(const char *zSource) {
  char *zText = NULL;
  size_t n;
  if (ks_file_read(zSource, &zText, &n) < 0) return NULL;
  char *zOut = ks_mark_value(zText, n, KS_MARK_FLAGS, NULL);
  free(zText);
  return zOut;
}
