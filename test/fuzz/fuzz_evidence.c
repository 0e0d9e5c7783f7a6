/* fuzz_evidence.c — libFuzzer target for evidence documents (a review's
 * evidence.json, `plan --profile` input): the per-kernel profile is picked out
 * of the document, added to an evidence set under "profile", derived
 * (speed-of-light and occupancy rules) and dumped; nothing may crash and
 * errors are clean error codes. */
// fuzz-sources: lib/skills/evidence.c lib/skills/cond.c lib/common/buf.c lib/common/error.c lib/common/json.c
// fuzz-libs: -lcjson -lm
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernelskill/skills.h"

int LLVMFuzzerTestOneInput(const uint8_t *aData, size_t nData) {
  if (nData > 16384) return 0;
  const char *z = (const char *)aData;
  char *zProf = NULL;
  int rc = ks_evidence_pick_profile(z, nData, "evidence.json", "k", &zProf);
  if (rc != KS_OK && zProf) abort();
  ks_evidence *pEv = NULL;
  if (ks_evidence_new(&pEv) < 0) return 0;
  int nIgnored = 0;
  /* Both the picked object and the raw input as a profile object. */
  if (zProf) ks_evidence_add_json(pEv, "profile", zProf, strlen(zProf), "evidence.json", &nIgnored);
  ks_error_clear();
  ks_evidence_add_json(pEv, "features", z, nData, "features.json", &nIgnored);
  ks_error_clear();
  ks_evidence_derive(pEv);
  ks_error_clear();
  ks_buf b = KS_BUF_INIT;
  ks_evidence_dump(pEv, NULL, &b);
  ks_buf_free(&b);
  ks_evidence_free(pEv);
  free(zProf);
  ks_error_clear();
  return 0;
}
