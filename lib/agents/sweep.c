/* sweep.c — the parameter sweeps of the agent loop (ks_loop_sweep,
 * ks_loop_sweep_ex): the values a parameterized rule is tried at inside one
 * round, a first guess (the tuning memory's, tuning.c) first when the table
 * lists it. */
#include "agents/loop_int.h"

/* ---- sweeps --------------------------------------------------------------- */

/* A parameterized rule is tried at a few values inside one round; the best
 * correct one wins. bOnlyIfGiven: sweep this parameter only when the skill
 * sets it (smem-tile-gemm sweeps regs for register blocking, tile otherwise).
 * A value may carry more parameters of its own after ';' ("auto;resident=16":
 * threads=auto and resident=16), unless the skill sets them. */
typedef struct sweep_def {
  const char *zRule, *zParam;
  const char *azValues[5];
  int bOnlyIfGiven;
} sweep_def;

static const sweep_def aSweep[] = {{"block-size", "threads", {"128", "256", "512", 0}, 0},
                                   {"coarsen", "factor", {"2", "4", "8", 0}, 0},
                                   {"smem-tile-gemm", "regs", {"2", "4", "8", 0}, 1},
                                   {"smem-tile-gemm", "tile", {"16", "32", 0, 0}, 0},
                                   /* gemm-tiled (the skill gives s2): the 4-stage block with packed operands
                                      (A and/or B copied transposed before the launch, both tiles on
                                      cp.async) next, then 128x64 tiles (the fastest at 1024). rule_bench on
                                      the H100 (bench/gemm/h100-run7.txt), ratio to cublasSgemm: 4096 NN
                                      packed s4 0.875x, packed w32x64 s2 0.865x, s2 0.850x, s4 0.824x; 2048
                                      s2 0.866x, packed 0.75x (the copy's fixed cost); 1024 128x64 s3 0.885x;
                                      NT bias+ReLU packed s4 0.873x, s4 0.837x, s2 0.793x. */
                                   {"gemm-tiled", "config",
                                    {"128x128x16_w64x32_t8x8_s4;pack=on", "128x64x16_w32x32_t4x8_s3",
                                     "128x128x16_w32x64_t8x8_s2;pack=on", "128x128x16_w64x32_t8x8_s4", 0},
                                    0},
                                   {"conv-igemm", "config",
                                    {"64x128x16_w32x64_t8x8_s3", "64x256x16_w32x64_t8x8_s2", "64x128x8_w32x64_t8x8_s4", 0},
                                    0},
                                   {"unroll", "factor", {"4", "8", 0, 0}, 1},
                                   /* row-reduce: resident rows (kept in registers between passes) on and
                                      off at threads=auto. K = 16 holds the power-of-two rows from 512 to
                                      4096 elements with half the registers of K = 32 (which holds every row
                                      under 8192) and was faster on 5 of the corpus' 6 multi-pass row tasks
                                      (bench/results/2026-12-05-run5); 32 comes fourth. */
                                   {"row-reduce", "threads", {"auto", "auto;resident=16", "256", "auto;resident=32", 0},
                                    0},
                                   /* vectorize on stencils (the skill sets rows=auto; mem.vectorize-128 sets
                                      nothing and is not swept): rows along y. Auto gives 4 rows to 5-row
                                      windows of floats (blur5_local 61% -> 90% of DRAM bandwidth on the
                                      H100) and none to 3-row windows or bytes, where the GPU decides. The
                                      first two values also take 1-byte windows' bytes out of 32-bit words
                                      by PRMT and write integer sums of window reads as differences
                                      (sums=paired): the 8-bit Sobel is bound by the integer pipe, half of
                                      whose work was byte extraction, and the differences take 12% of its
                                      PTX instructions off (not yet measured on the GPU). On other stencils
                                      they are the same rewrites as auto and 4, so they keep their three
                                      candidates; the third is as written. */
                                   {"vectorize", "rows", {"auto;bytes=words;sums=paired", "4;bytes=words;sums=paired", "2", 0}, 1},
                                   {0, 0, {0}, 0}};

static int param_is(const char *zKV, const char *zName) {
  size_t n = strlen(zName);
  return strncmp(zKV, zName, n) == 0 && zKV[n] == '=';
}

void ks_loop_sweep_free(char ***azSets, int *anParams, int nSets) {
  for (int i = 0; azSets && i < nSets; i++) {
    for (int k = 0; azSets[i] && k < anParams[i]; k++) free(azSets[i][k]);
    free(azSets[i]);
  }
  free(azSets);
  free(anParams);
}

/* The values of the sweep of zRule for the skill's parameters, in the order
 * they are tried: zFirst when the table lists it for the swept parameter or it
 * is the skill's own (never other text: it may come from a file), then the
 * skill's own (as the table's first value that extends it, if one does), then
 * the table's, no duplicates. The pointers are the table's
 * or the skill's, never zFirst. Returns their count; one NULL value (the
 * skill's parameters as they are) when the rule is not swept. */
int sweep_values(const char *zRule, const char *const *azSkillParams, int nSkillParams, const char *zFirst,
                    const char **azVal, const char **pzParam) {
  const sweep_def *d = NULL;
  const char *zOwn = NULL;
  int nVal = 0;
  for (int i = 0; zRule && aSweep[i].zRule && !d; i++) {
    if (strcmp(aSweep[i].zRule, zRule) != 0) continue;
    const char *zGiven = NULL;
    for (int k = 0; k < nSkillParams; k++)
      if (param_is(azSkillParams[k], aSweep[i].zParam)) zGiven = azSkillParams[k] + strlen(aSweep[i].zParam) + 1;
    if (aSweep[i].bOnlyIfGiven && !zGiven) continue;
    d = &aSweep[i];
    zOwn = zGiven;
  }
  if (pzParam) *pzParam = d ? d->zParam : NULL;
  if (!d) {
    azVal[0] = NULL;
    return 1;
  }
  const char *azAll[KS_SWEEP_MAX_VALUES];
  int nAll = 0;
  /* the skill's own value, or the table's first with that value and extra parameters of
     its own (vectorize: the skill's rows=auto is tried as the table's "auto;bytes=words;sums=paired") */
  const size_t nO = zOwn ? strlen(zOwn) : 0;
  for (int i = 0; zOwn && d->azValues[i]; i++) {
    if (!strncmp(d->azValues[i], zOwn, nO) && (d->azValues[i][nO] == ';' || !d->azValues[i][nO])) {
      zOwn = d->azValues[i];
      break;
    }
  }
  if (zOwn) azAll[nAll++] = zOwn;
  for (int i = 0; d->azValues[i] && nAll < KS_SWEEP_MAX_VALUES; i++) azAll[nAll++] = d->azValues[i];
  for (int i = 0; zFirst && i < nAll; i++)
    if (!strcmp(azAll[i], zFirst)) {
      azVal[nVal++] = azAll[i];
      break;
    }
  for (int i = 0; i < nAll; i++) {
    int bDup = 0;
    for (int k = 0; k < nVal && !bDup; k++) bDup = !strcmp(azVal[k], azAll[i]);
    if (!bDup) azVal[nVal++] = azAll[i];
  }
  return nVal;
}

int ks_loop_sweep(const char *zRule, const char *const *azSkillParams, int nSkillParams, int nMax, char ****pazSets,
                  int **panParams, int *pnSets) {
  return ks_loop_sweep_ex(zRule, azSkillParams, nSkillParams, nMax, NULL, pazSets, panParams, pnSets);
}

int ks_loop_sweep_ex(const char *zRule, const char *const *azSkillParams, int nSkillParams, int nMax,
                     const ks_sweep_opts *pOpts, char ****pazSets, int **panParams, int *pnSets) {
  if (pOpts && pOpts->version != KS_SWEEP_OPTS_VERSION)
    return ks_error_set(KS_EUSAGE, "ks_sweep_opts: unsupported version %u", pOpts->version);
  if (nMax < 1) nMax = 1;
  const char *azVal[KS_SWEEP_MAX_VALUES], *zParam = NULL;
  int nVal = sweep_values(zRule, azSkillParams, nSkillParams, pOpts ? pOpts->zFirst : NULL, azVal, &zParam);
  if (nVal > nMax) nVal = nMax;
  char ***azSets = calloc((size_t)nVal, sizeof *azSets);
  int *anParams = calloc((size_t)nVal, sizeof *anParams);
  if (!azSets || !anParams) {
    free(azSets);
    free(anParams);
    return ks_error_set(KS_ENOMEM, "out of memory");
  }
  for (int s = 0; s < nVal; s++) {
    azSets[s] = calloc((size_t)nSkillParams + 4, sizeof(char *));
    if (!azSets[s]) goto oom;
    int n = 0, bSet = 0;
    const char *zExtra = azVal[s] ? strchr(azVal[s], ';') : NULL;
    int nOwn = zExtra ? (int)(zExtra - azVal[s]) : azVal[s] ? (int)strlen(azVal[s]) : 0;
    for (int k = 0; k < nSkillParams; k++) {
      if (zParam && azVal[s] && param_is(azSkillParams[k], zParam)) {
        azSets[s][n] = fmt("%s=%.*s", zParam, nOwn, azVal[s]);
        bSet = 1;
      } else {
        azSets[s][n] = ks_strdup(azSkillParams[k]);
      }
      if (!azSets[s][n++]) goto oom;
      anParams[s] = n;
    }
    if (zParam && azVal[s] && !bSet) {
      if (!(azSets[s][n++] = fmt("%s=%.*s", zParam, nOwn, azVal[s]))) goto oom;
    }
    anParams[s] = n;
    /* the value's own extra parameters (at most 3), each unless the skill sets it */
    for (int nX = 0; zExtra && nX < 3; nX++) {
      const char *zKV = zExtra + 1, *zEnd = strchr(zKV, ';'), *zEq = strchr(zKV, '=');
      int nKV = zEnd ? (int)(zEnd - zKV) : (int)strlen(zKV), bGiven = 0;
      zExtra = zEnd;
      if (!zEq || zEq - zKV >= nKV) continue;
      for (int k = 0; k < nSkillParams; k++)
        bGiven |= strncmp(azSkillParams[k], zKV, (size_t)(zEq - zKV + 1)) == 0;
      if (bGiven) continue;
      if (!(azSets[s][n++] = fmt("%.*s", nKV, zKV))) goto oom;
      anParams[s] = n;
    }
  }
  *pazSets = azSets;
  *panParams = anParams;
  *pnSets = nVal;
  return KS_OK;
oom:
  ks_loop_sweep_free(azSets, anParams, nVal);
  return ks_error_set(KS_ENOMEM, "out of memory");
}
