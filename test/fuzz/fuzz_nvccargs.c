/* fuzz_nvccargs.c — libFuzzer target for the nvcc command-line parser (what
 * the drop-in parses on every compile) and the kernelskill-flags allowlist:
 * any argument words must parse or fail cleanly, the classification must be
 * self-consistent, and the targets text must be printable (the use-after-free
 * of `code=bogus` read freed memory here).
 *
 * The input is split at NUL bytes into argv words; the first word also serves
 * as NVCC_PREPEND_FLAGS text and as a kernelskill-flags line. */
// fuzz-sources: lib/nvccargs/nvccargs.c lib/nvccargs/flags.c lib/common/buf.c lib/common/error.c lib/common/fs.c
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernelskill/nvccargs.h"

int LLVMFuzzerTestOneInput(const uint8_t *aData, size_t nData) {
  if (nData > 4096) return 0;
  char *z = malloc(nData + 1);
  if (!z) return 0;
  memcpy(z, aData, nData);
  z[nData] = 0;
  char *azArgv[64];
  int nArgv = 0;
  for (char *p = z; p < z + nData && nArgv < 64; p += strlen(p) + 1) azArgv[nArgv++] = p;
  ks_nvcc_parse_opts o = KS_NVCC_PARSE_OPTS_INIT;
  o.bNoEnv = 1;
  o.zPrepend = nArgv ? azArgv[0] : "";
  o.zCwd = "/nonexistent-ks-fuzz"; /* options files: never read real ones */
  ks_nvcc_cmd *pCmd = NULL;
  if (ks_nvcc_parse(nArgv, azArgv, &o, &pCmd) == KS_OK) {
    for (int i = 0; i < pCmd->nInputs; i++)
      if (pCmd->aiInputs[i] < 0 || pCmd->aiInputs[i] >= pCmd->n) abort();
    char *zT = ks_nvcc_targets_text(pCmd);
    if (zT) {
      volatile size_t n = strlen(zT); /* reads every byte: ASan sees a stale pointer */
      (void)n;
    }
    free(zT);
    ks_nvcc_cmd_free(pCmd);
  }
  ks_buf why = KS_BUF_INIT;
  int rc = ks_nvcc_flags_check(nArgv ? azArgv[0] : "", "fuzz", &why);
  /* Never allowed, whatever surrounds them. */
  if (rc == KS_OK && nArgv && (strstr(azArgv[0], "-ccbin") || strstr(azArgv[0], "-include") || strstr(azArgv[0], "-I")))
    abort();
  ks_buf_free(&why);
  ks_error_clear();
  free(z);
  return 0;
}
