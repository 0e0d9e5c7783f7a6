/* fuzz_task.c — libFuzzer target for the task-file parser and the size
 * expression evaluator: any input must parse or fail cleanly with a message
 * that names the file, and whatever parses must be self-consistent.
 *
 * Byte 0 selects how the rest is used, so random bytes reach deep validation
 * instead of stopping at "not JSON" or "source not found":
 *  - mode 0: the whole task file;
 *  - mode 1: the contents of "args": [ ... ] inside a valid task skeleton;
 *  - mode 2: a size expression (evaluated directly, and as a tensor shape). */
// fuzz-sources: lib/task/task.c lib/common/buf.c lib/common/error.c lib/common/fs.c
// fuzz-libs: -lcjson -lm
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernelskill/task.h"

static char g_zDir[64], g_zPath[96];

int LLVMFuzzerInitialize(int *pArgc, char ***pArgv) {
  (void)pArgc, (void)pArgv;
  snprintf(g_zDir, sizeof g_zDir, "/tmp/ks-fuzz-task-%d", (int)getpid());
  mkdir(g_zDir, 0700);
  char zSrc[128];
  snprintf(zSrc, sizeof zSrc, "%s/s.cu", g_zDir);
  FILE *f = fopen(zSrc, "w");
  if (f) {
    fputs("extern \"C\" void f(float *y) {}\n", f);
    fclose(f);
  }
  snprintf(g_zPath, sizeof g_zPath, "%s/t.json", g_zDir);
  return 0;
}

static void check_task(const ks_task *t) {
  /* Whatever validates must be usable by the harness as is. */
  int nOut = 0;
  for (int i = 0; i < t->nArg; i++) {
    const ks_task_arg *a = &t->aArg[i];
    if (!a->zName || !a->zName[0]) abort();
    if (a->eKind == KS_ARG_TENSOR) {
      int64_t n = 1;
      if (a->nRank < 1 || a->nRank > KS_TASK_MAX_RANK) abort();
      for (int k = 0; k < a->nRank; k++) {
        if (a->aShape[k] <= 0 || !a->azShape[k]) abort();
        n *= a->aShape[k];
      }
      if (n != a->nElem || ks_dtype_size(a->eType) == 0) abort();
      nOut += a->eIntent != KS_INTENT_IN;
    } else if (!a->zValue) {
      abort();
    }
  }
  if (nOut == 0 || t->nTrials < 5 || !t->zSource || !t->zEntry) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *pData, size_t nData) {
  if (nData < 1) return 0;
  int eMode = pData[0] % 3;
  const char *zIn = (const char *)pData + 1;
  size_t nIn = nData - 1;
  ks_buf b = KS_BUF_INIT;
  if (eMode == 0) {
    ks_buf_append(&b, zIn, nIn);
  } else if (eMode == 1) {
    ks_buf_puts(&b, "{\"ks_task\": 1, \"name\": \"f\", \"source\": \"s.cu\", \"entry\": \"f\", "
                    "\"dims\": {\"N\": 8, \"M\": \"N*2\"}, \"args\": [");
    ks_buf_append(&b, zIn, nIn);
    ks_buf_puts(&b, "]}");
  } else {
    /* The expression alone, then inside a shape (as a JSON string). */
    char *zExpr = malloc(nIn + 1);
    if (!zExpr) return 0;
    memcpy(zExpr, zIn, nIn);
    zExpr[nIn] = 0;
    char *azName[] = {"N", "M"};
    int64_t aVal[] = {8, 16}, v;
    int rc = ks_task_eval(zExpr, 2, azName, aVal, &v);
    if (rc != KS_OK && rc != KS_EINVAL) abort();
    if (rc == KS_EINVAL && !strstr(ks_error_msg(), "(in expression")) abort();
    free(zExpr);
    ks_buf_puts(&b, "{\"ks_task\": 1, \"name\": \"f\", \"source\": \"s.cu\", \"entry\": \"f\", \"dims\": {\"N\": 8}, "
                    "\"args\": [{\"name\": \"y\", \"kind\": \"tensor\", \"dtype\": \"f32\", \"shape\": [");
    ks_buf e = KS_BUF_INIT; /* the input up to a NUL, as a JSON string */
    ks_buf_append(&e, zIn, nIn);
    ks_buf_json_string(&b, ks_buf_cstr(&e));
    ks_buf_free(&e);
    ks_buf_puts(&b, "], \"intent\": \"out\"}]}");
  }
  ks_task *t = NULL;
  int rc = ks_task_parse(g_zPath, ks_buf_cstr(&b), b.n, &t);
  if (rc == KS_OK) {
    check_task(t);
    ks_task_free(t);
  } else {
    /* Every message names the file first. */
    if (t || strncmp(ks_error_msg(), g_zPath, strlen(g_zPath)) != 0) abort();
    if (rc != KS_EPARSE && rc != KS_EINVAL && rc != KS_ENOMEM) abort();
  }
  ks_buf_free(&b);
  return 0;
}
