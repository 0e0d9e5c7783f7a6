/* evidence_task.c — the task.* evidence fields from a task file: what the
 * task's owner allows (libraries) and how exact its outputs must be (the
 * tolerance a lower-precision path such as TF32 must fit). Apart from
 * evidence.c so that code reading only conditions and evidence (the fuzzers)
 * does not link the task module. */
#include "kernelskill/skills.h"
#include "kernelskill/task.h"

#include <stdio.h>
#include <string.h>

int ks_evidence_allow_lib(ks_evidence *p, const char *zLib) {
  const ks_value yes = {KS_VAL_BOOL, 1, 0, NULL};
  if (!strcmp(zLib, "cublas") || !strcmp(zLib, "cublasLt") || !strcmp(zLib, "cublaslt"))
    return ks_evidence_set(p, "task.allows_cublas", &yes, "task allows cublas");
  if (!strcmp(zLib, "cub")) return ks_evidence_set(p, "task.allows_cub", &yes, "task allows cub");
  return KS_OK; /* other libraries: no skill asks about them yet */
}

int ks_evidence_set_task(ks_evidence *p, const ks_task *pTask) {
  int rc = KS_OK;
  for (int i = 0; rc == KS_OK && i < pTask->nLib; i++) rc = ks_evidence_allow_lib(p, pTask->azLib[i]);
  /* The output a lower-precision path must satisfy first: the smallest rtol
   * of the floating-point outputs (an integer output is exact: no rtol). */
  double rMin = -1;
  const char *zArg = NULL;
  for (int i = 0; i < pTask->nArg; i++) {
    const ks_task_arg *a = &pTask->aArg[i];
    if (a->eKind != KS_ARG_TENSOR || a->eIntent == KS_INTENT_IN || !ks_dtype_is_float(a->eType)) continue;
    double rRtol, rAtol;
    ks_task_arg_tol(pTask, i, &rRtol, &rAtol);
    if (rMin < 0 || rRtol < rMin) rMin = rRtol, zArg = a->zName;
  }
  if (rc == KS_OK && zArg) {
    char zWhy[160];
    snprintf(zWhy, sizeof zWhy, "the task's rtol for output '%s'", zArg);
    ks_value v = {KS_VAL_NUM, 0, rMin, NULL};
    rc = ks_evidence_set(p, "task.rtol", &v, zWhy);
  }
  return rc;
}
