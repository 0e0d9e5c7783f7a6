/* fuzz_reply.c — libFuzzer target for the first thing done with an LLM reply:
 * ks_llm_extract_code must find exactly one fenced code block or refuse with
 * KS_EINVAL, and the block it returns must be a substring of the reply that
 * starts at the line it reports. */
// fuzz-sources: lib/llm/code.c lib/sandbox/sandbox.c lib/common/buf.c lib/common/error.c lib/common/fs.c lib/common/marks.c lib/common/path.c lib/common/proc.c lib/features/parse.c lib/features/pch.c lib/features/ast.c
// fuzz-libs: -L/usr/lib/llvm-19/lib -lclang -lcjson -lm -Wl,-rpath,/usr/lib/llvm-19/lib
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernelskill/llm.h"

int LLVMFuzzerTestOneInput(const uint8_t *aData, size_t nData) {
  if (nData > 16384) return 0;
  char *z = malloc(nData + 1);
  if (!z) return 0;
  memcpy(z, aData, nData);
  z[nData] = 0;
  char *zCode = NULL;
  int iLine = -1;
  int rc = ks_llm_extract_code(z, &zCode, &iLine);
  if (rc == KS_OK) {
    if (!zCode || iLine < 1) abort();
    /* The code is the reply's text from line iLine on. */
    const char *p = z;
    for (int i = 1; i < iLine && p; i++) {
      p = strchr(p, '\n');
      if (p) p++;
    }
    if (!p) abort();
    size_t n = strlen(zCode);
    if (n && strncmp(p, zCode, n - (zCode[n - 1] == '\n')) != 0) abort();
  } else {
    if (zCode) abort();
    if (rc != KS_EINVAL && rc != KS_ENOMEM) abort();
  }
  free(zCode);
  free(z);
  ks_error_clear();
  return 0;
}
