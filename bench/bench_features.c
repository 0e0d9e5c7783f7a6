/* bench_features.c — times the Feature Extractor on one file: a fresh parse +
 * extraction (what `kernelskill features` does), and a re-parse + extraction
 * after an edit (what the loop does every round, with libclang's precompiled
 * preamble). Prints figures; it asserts nothing.
 *
 *   bench_features [FILE.cu] [RUNS]     (default: bench/inputs/features300.cu, 7) */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernelskill/features.h"

static double now_sec(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static void report(const char *zWhat, double *a, int n) {
  qsort(a, (size_t)n, sizeof a[0], cmp_double);
  printf("%-34s median %.3f s  min %.3f s  max %.3f s  (%d runs)\n", zWhat, a[n / 2], a[0], a[n - 1], n);
}

int main(int argc, char **argv) {
  const char *zFile = argc > 1 ? argv[1] : "bench/inputs/features300.cu";
  int nRuns = argc > 2 ? atoi(argv[2]) : 7;
  if (nRuns < 1 || nRuns > 1000) nRuns = 7;
  double *aFresh = calloc((size_t)nRuns, sizeof(double));
  double *aReparse = calloc((size_t)nRuns, sizeof(double));
  char *zSrc = NULL;
  size_t nSrc = 0;
  int rc = ks_file_read(zFile, &zSrc, &nSrc);
  if (rc < 0 || !aFresh || !aReparse) {
    fprintf(stderr, "bench_features: %s\n", ks_error_msg());
    return 2;
  }
  size_t nLines = 0;
  for (size_t i = 0; i < nSrc; i++) nLines += zSrc[i] == '\n';
  printf("file: %s (%zu lines, %zu bytes)\n", zFile, nLines, nSrc);

  ks_features_opts fo = KS_FEATURES_OPTS_INIT;
  for (int i = 0; i < nRuns; i++) {
    double t0 = now_sec();
    ks_tu *pTu = NULL;
    ks_parse_opts po = KS_PARSE_OPTS_INIT;
    ks_buf out = KS_BUF_INIT;
    if ((rc = ks_tu_parse(zFile, &po, &pTu)) < 0 || (rc = ks_features_json(pTu, &fo, &out)) < 0) {
      fprintf(stderr, "bench_features: %s\n", ks_error_msg());
      return 2;
    }
    aFresh[i] = now_sec() - t0;
    if (i == 0) printf("errors in the source: %d\n", ks_tu_error_count(pTu));
    ks_buf_free(&out);
    ks_tu_free(pTu);
  }

  /* The loop's case: one TU kept, the file edited between rounds. */
  ks_parse_opts po = KS_PARSE_OPTS_INIT;
  po.bReparse = 1;
  ks_tu *pTu = NULL;
  double t0 = now_sec();
  if ((rc = ks_tu_parse(zFile, &po, &pTu)) < 0) {
    fprintf(stderr, "bench_features: %s\n", ks_error_msg());
    return 2;
  }
  double rFirst = now_sec() - t0;
  ks_buf edited = KS_BUF_INIT;
  for (int i = 0; i < nRuns; i++) {
    ks_buf_clear(&edited);
    ks_buf_append(&edited, zSrc, nSrc);
    ks_buf_printf(&edited, "\n// edit %d\n__global__ void added_%d(float *p) { p[threadIdx.x] = %d.0f; }\n", i, i, i);
    ks_buf out = KS_BUF_INIT;
    t0 = now_sec();
    if ((rc = ks_tu_reparse(pTu, edited.z, edited.n)) < 0 || (rc = ks_features_json(pTu, &fo, &out)) < 0) {
      fprintf(stderr, "bench_features: %s\n", ks_error_msg());
      return 2;
    }
    aReparse[i] = now_sec() - t0;
    ks_buf_free(&out);
  }
  ks_tu_free(pTu);
  report("fresh parse + extract:", aFresh, nRuns);
  printf("%-34s %.3f s\n", "first parse keeping a preamble:", rFirst);
  report("re-parse after edit + extract:", aReparse, nRuns);
  ks_buf_free(&edited);
  free(zSrc);
  free(aFresh);
  free(aReparse);
  return 0;
}
