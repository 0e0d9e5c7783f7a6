/* fuzz_journal.c — libFuzzer target for journals as `--resume` reads them: the
 * input is written as a journal.jsonl, ks_journal_read must parse it or fail
 * with a clean error (KS_EPARSE/KS_EINVAL, a message naming path:line), and a
 * journal it returns must survive every reader the loop uses on it (the
 * invariant check, field lookups, find). */
// fuzz-sources: lib/journal/journal.c lib/common/buf.c lib/common/error.c lib/common/fs.c lib/common/json.c lib/common/path.c
// fuzz-libs: -lcjson -lm
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernelskill/journal.h"

static char g_zPath[96];

int LLVMFuzzerInitialize(int *pArgc, char ***pArgv) {
  (void)pArgc, (void)pArgv;
  snprintf(g_zPath, sizeof g_zPath, "/tmp/ks-fuzz-journal-%d.jsonl", (int)getpid());
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *aData, size_t nData) {
  if (nData > 16384) return 0;
  FILE *f = fopen(g_zPath, "wb");
  if (!f) return 0;
  fwrite(aData, 1, nData, f);
  fclose(f);
  ks_journal *pJ = NULL;
  int rc = ks_journal_read(g_zPath, &pJ);
  if (rc == KS_OK) {
    if (!pJ) abort();
    ks_buf b = KS_BUF_INIT;
    ks_journal_check(pJ, &b);
    ks_buf_free(&b);
    for (int i = 0; i < pJ->n; i++) {
      const ks_journal_entry *e = &pJ->a[i];
      double r;
      ks_journal_entry_number(e, "speedup", &r);
      free(ks_journal_entry_string(e, "reason"));
      free(ks_journal_entry_member(e, "params"));
      ks_journal_find(pJ, e->zEvent ? e->zEvent : "candidate", e->iRound, e->zHash);
    }
    ks_journal_free(pJ);
  } else {
    if (pJ) abort();
    if (rc != KS_EPARSE && rc != KS_EINVAL && rc != KS_ENOMEM) abort();
    const char *zMsg = ks_error_msg();
    if (!zMsg || strncmp(zMsg, g_zPath, strlen(g_zPath)) != 0) abort(); /* errors name the file */
  }
  ks_error_clear();
  return 0;
}
