/* compare.c — `kernelskill capture --compare BEFORE AFTER`: two captures of
 * the same program (say, before and after rebuilding it with optimized
 * kernels) must show the same launches, and every snapshotted launch must
 * leave every allocation it reaches with the same contents, within the
 * dtype's default tolerance. A version right on one launch's sizes and wrong
 * on another's fails here even when its task passed. */
#include "kernelskill/capture.h"
#include "kernelskill/review.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The element type of allocation k, from the demangled parameter types. */
static ks_dtype launch_alloc_dtype(const ks_capture_launch *l, int k) {
  char *zCallee = NULL, **az = NULL;
  int nP = -1;
  ks_dtype e = KS_DT_U8;
  if (ks_capture_split_name(l->zName, &zCallee, &az, &nP) < 0) return e;
  if (nP == l->nParam) {
    for (int i = 0; i < nP; i++) {
      if (l->aParam[i].iAlloc != k) continue;
      ks_ptype t;
      ks_capture_type(az[i], &t);
      size_t n = t.eKind == KS_PT_POINTER ? ks_dtype_size(t.eType) : 1;
      if (t.eKind == KS_PT_POINTER && l->aAlloc[k].nSize % n == 0) e = t.eType;
      break;
    }
  }
  for (int i = 0; i < nP; i++) free(az[i]);
  free(az);
  free(zCallee);
  return e;
}

static int elem_equal(ks_dtype e, const void *pA, const void *pB, size_t i) {
  double a = ks_review_elem(e, pA, i), b = ks_review_elem(e, pB, i);
  if (!ks_dtype_is_float(e)) return a == b;
  if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
  if (isinf(a) || isinf(b)) return a == b;
  double rRtol, rAtol;
  ks_dtype_default_tol(e, &rRtol, &rAtol);
  return fabs(a - b) <= rAtol + rRtol * fabs(a);
}

static int read_rel(const ks_capture *c, const char *zRel, uint64_t nSize, char **pz) {
  char *zPath = ks_path_join(c->zDir, zRel);
  size_t n = 0;
  int rc = zPath ? ks_file_read_limit(zPath, KS_FILE_DATA_MAX, pz, &n) : KS_ENOMEM;
  if (rc == KS_OK && n != nSize) {
    free(*pz);
    *pz = NULL;
    rc = ks_error_set(KS_EINVAL, "%s: %zu bytes, its index says %llu", zPath, n, (unsigned long long)nSize);
  }
  free(zPath);
  return rc;
}

int ks_capture_compare(const ks_capture *pA, const ks_capture *pB, ks_buf *pOut, int *pnBad) {
  int nBad = 0, nCompared = 0, rc = KS_OK;
  *pnBad = 0;
  if (pA->nLaunch != pB->nLaunch)
    ks_buf_printf(pOut, "launches: %s has %d, %s has %d\n", pA->zDir, pA->nLaunch, pB->zDir, pB->nLaunch), nBad++;
  int n = pA->nLaunch < pB->nLaunch ? pA->nLaunch : pB->nLaunch;
  for (int i = 0; i < n && rc == KS_OK; i++) {
    const ks_capture_launch *a = &pA->aLaunch[i], *b = &pB->aLaunch[i];
    /* An optimized kernel may have another name or launch configuration;
     * what must match is the work: same parameters into the same buffers. */
    if (a->nAlloc != b->nAlloc) {
      ks_buf_printf(pOut, "launch %d (%s / %s): reaches %d vs %d allocations\n", i, a->zName, b->zName, a->nAlloc, b->nAlloc);
      nBad++;
      continue;
    }
    if (!a->bSnapshot || !b->bSnapshot) continue;
    int bLaunchBad = 0;
    for (int k = 0; k < a->nAlloc && rc == KS_OK; k++) {
      if (a->aAlloc[k].nSize != b->aAlloc[k].nSize) {
        ks_buf_printf(pOut, "launch %d (%s): allocation %d has %llu vs %llu bytes\n", i, a->zName, k,
                      (unsigned long long)a->aAlloc[k].nSize, (unsigned long long)b->aAlloc[k].nSize);
        bLaunchBad = 1;
        continue;
      }
      ks_dtype e = launch_alloc_dtype(a, k);
      size_t nEs = ks_dtype_size(e), nElem = (size_t)a->aAlloc[k].nSize / nEs;
      char *zA = NULL, *zB = NULL, *zA0 = NULL, *zB0 = NULL;
      if ((rc = read_rel(pA, a->aAlloc[k].zAfter, a->aAlloc[k].nSize, &zA)) < 0 ||
          (rc = read_rel(pB, b->aAlloc[k].zAfter, b->aAlloc[k].nSize, &zB)) < 0) {
        free(zA);
        break;
      }
      size_t nDiff = 0, iFirst = 0;
      for (size_t j = 0; j < nElem; j++)
        if (!elem_equal(e, zA, zB, j)) {
          if (!nDiff) iFirst = j;
          nDiff++;
        }
      if (nDiff) {
        /* Were the inputs already different? Then an earlier launch is to blame. */
        int bBefore = 0;
        if (read_rel(pA, a->aAlloc[k].zBefore, a->aAlloc[k].nSize, &zA0) == KS_OK &&
            read_rel(pB, b->aAlloc[k].zBefore, b->aAlloc[k].nSize, &zB0) == KS_OK)
          bBefore = memcmp(zA0, zB0, (size_t)a->aAlloc[k].nSize) != 0;
        ks_buf_printf(pOut,
                      "launch %d (%s): allocation %d (%s, %zu elements): %zu differ, first at %zu: %.9g vs %.9g%s\n", i,
                      a->zName, k, ks_dtype_name(e), nElem, nDiff, iFirst, ks_review_elem(e, zA, iFirst),
                      ks_review_elem(e, zB, iFirst), bBefore ? " (it differed before the launch too)" : "");
        bLaunchBad = 1;
        ks_error_clear();
      }
      free(zA);
      free(zB);
      free(zA0);
      free(zB0);
    }
    if (rc < 0) break;
    nCompared++;
    if (bLaunchBad) nBad++;
    else ks_buf_printf(pOut, "launch %d (%s): %d allocation(s) match\n", i, a->zName, a->nAlloc);
  }
  if (rc < 0) return rc;
  ks_buf_printf(pOut, "%d launch(es) compared, %d mismatch(es)\n", nCompared, nBad);
  if (nCompared == 0) {
    /* Nothing checked is not a pass. */
    ks_buf_puts(pOut, "no launch has snapshots in both captures (capture both with --all-launches)\n");
    nBad++;
  }
  *pnBad = nBad;
  return KS_OK;
}
