/* fuzz_cond.c — libFuzzer target for the skill condition parser: any input
 * must parse or fail cleanly, and whatever parses must evaluate and explain. */
// fuzz-sources: lib/skills/cond.c lib/skills/evidence.c lib/common/buf.c lib/common/error.c lib/common/fs.c
// fuzz-libs: -lcjson -lm
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernelskill/skills.h"

int LLVMFuzzerTestOneInput(const uint8_t *aData, size_t nData) {
  char *z = malloc(nData + 1);
  if (!z) return 0;
  memcpy(z, aData, nData);
  z[nData] = 0;
  ks_cond *p = NULL;
  if (ks_cond_parse(z, NULL, &p) == KS_OK) {
    ks_evidence *pEv = NULL;
    ks_value v;
    ks_buf b = KS_BUF_INIT;
    ks_evidence_new(&pEv);
    ks_cond_eval(p, pEv, &v);
    ks_cond_explain(p, pEv, &b);
    ks_buf_free(&b);
    ks_evidence_free(pEv);
    ks_cond_free(p);
  }
  free(z);
  return 0;
}
