/* fuzz_cond.c — libFuzzer target for the skill condition parser: any input
 * must parse or fail cleanly, and whatever parses must evaluate and explain
 * over evidence the input also chooses (known, unknown, derived reasons).
 *
 * Input layout: byte 0 is a mode byte, the rest the condition text.
 *  - mode bit 0: bytes >= 0x80 of the text stand for whole tokens (field
 *    names, string values, operators) so that the fuzzer reaches the type
 *    checker and the evaluator instead of stopping at "unknown field";
 *  - mode bit 1: the text is parsed as if decoded from a JSON string in a
 *    skill file (ks_cond_loc.zRaw), exercising the escape-aware column map;
 *  - the mode byte also seeds which evidence fields are set, and to what.
 * Errors must name "<file>:<line>:<col>: " with a column inside the input. */
// fuzz-sources: lib/skills/cond.c lib/skills/evidence.c lib/common/buf.c lib/common/error.c lib/common/fs.c
// fuzz-libs: -lcjson -lm
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernelskill/skills.h"

static const char *const azOps[] = {" && ", " || ", "!", "(", ")", " < ", " <= ", " > ", " >= ", " == ", " != ",
                                    "true", "false", "0", "60", "1.5e2", "\"\""};

/* The token a high byte stands for: an operator, a field name, or one of a
 * string field's values (quoted). */
static void put_token(ks_buf *b, unsigned char c) {
  const ks_field_def *aF = ks_field_table();
  int nF = 0, nOps = (int)(sizeof azOps / sizeof azOps[0]);
  while (aF[nF].zName) nF++;
  int k = c - 0x80;
  if (k < nOps) {
    ks_buf_puts(b, azOps[k]);
    return;
  }
  k -= nOps;
  const ks_field_def *pF = &aF[k % nF];
  if (k >= nF && pF->azValues) {
    int nV = 0;
    while (pF->azValues[nV]) nV++;
    ks_buf_printf(b, "\"%s\"", pF->azValues[k % nV]);
    return;
  }
  ks_buf_puts(b, pF->zName);
}

/* Fill the evidence from a seed: each field unknown or set, with values near
 * the thresholds skills use. */
static void seed_evidence(ks_evidence *pEv, uint32_t iSeed) {
  static const double arNum[] = {0, 1, 30, 59.9, 60, 80, 1e9};
  const ks_field_def *aF = ks_field_table();
  for (int i = 0; aF[i].zName; i++) {
    iSeed = iSeed * 1103515245u + 12345u;
    unsigned r = (iSeed >> 16) & 0xff;
    if (r % 3 == 0) continue; /* unknown */
    ks_value v = {aF[i].eType, 0, 0, NULL};
    if (aF[i].eType == KS_VAL_BOOL) v.b = (int)(r & 1);
    else if (aF[i].eType == KS_VAL_NUM) v.r = arNum[r % (sizeof arNum / sizeof arNum[0])];
    else if (aF[i].azValues && aF[i].azValues[0]) v.z = aF[i].azValues[r % 2 && aF[i].azValues[1] ? 1 : 0];
    else v.z = "";
    if (ks_evidence_set(pEv, aF[i].zName, &v, (r & 4) ? "why" : NULL) != KS_OK) abort();
  }
}

/* An error must read "<file>:LINE:COL: ..." with COL within the text (JSON
 * form: within the raw string plus its opening column). */
static void check_error(const char *zMsg, const char *zFile, size_t nMax) {
  size_t nFile = strlen(zFile);
  int iLine = 0, iCol = 0, nUsed = 0;
  if (strncmp(zMsg, zFile, nFile) != 0 || zMsg[nFile] != ':') abort();
  if (sscanf(zMsg + nFile, ":%d:%d:%n", &iLine, &iCol, &nUsed) != 2 || nUsed == 0) abort();
  if (iLine < 1 || iCol < 1 || (size_t)iCol > nMax + 2) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *aData, size_t nData) {
  if (nData == 0) return 0;
  unsigned eMode = aData[0];
  ks_buf text = KS_BUF_INIT;
  for (size_t i = 1; i < nData; i++) {
    if ((eMode & 1) && aData[i] >= 0x80) put_token(&text, aData[i]);
    else ks_buf_append(&text, (const char *)aData + i, 1);
  }
  const char *z = ks_buf_cstr(&text);
  size_t nText = strlen(z); /* an embedded NUL ends the condition, as in C */
  char *zRaw = NULL;
  ks_cond_loc loc = KS_COND_LOC_INIT;
  size_t nMax = nText;
  loc.zFile = "f.json";
  if (eMode & 2) {
    /* cJSON escapes '"', '\\' and control bytes, as a skill file would */
    cJSON *pS = cJSON_CreateString(z);
    zRaw = pS ? cJSON_PrintUnformatted(pS) : NULL;
    cJSON_Delete(pS);
    if (zRaw) {
      loc.zRaw = zRaw;
      loc.iCol = 7;
      nMax = strlen(zRaw) + (size_t)loc.iCol;
    }
  } else {
    loc.iLine = 3;
    nMax = nText + 1;
  }
  ks_cond *p = NULL;
  int rc = ks_cond_parse(z, &loc, &p);
  if (rc == KS_OK) {
    ks_evidence *pEv = NULL;
    ks_value v;
    ks_buf b = KS_BUF_INIT;
    if (ks_evidence_new(&pEv) != KS_OK) abort();
    seed_evidence(pEv, eMode * 2654435761u + (uint32_t)nData);
    ks_cond_eval(p, pEv, &v);
    if (v.eType != KS_VAL_BOOL && v.eType != KS_VAL_UNKNOWN) abort();
    if (ks_cond_conjuncts(p) < 1) abort();
    ks_cond_explain(p, pEv, &b);
    /* an outcome always has a reason to show */
    if (b.n == 0) abort();
    ks_buf_free(&b);
    ks_evidence_free(pEv);
    ks_cond_free(p);
  } else {
    if (rc != KS_EPARSE && rc != KS_ENOMEM) abort();
    if (rc == KS_EPARSE) check_error(ks_error_msg(), loc.zFile, nMax);
  }
  free(zRaw);
  ks_buf_free(&text);
  return 0;
}
