/* fuzz_store.c — libFuzzer target for store entries as the drop-in reads
 * them: entry.json (and evidence.json) written from the input into an entry
 * folder whose original/optimized files are consistent, then ks_store_select
 * must decide cleanly (KS_OK only for a verified entry with matching
 * evidence) and never crash.
 *
 * The input is entry.json text; after a NUL byte, evidence.json text. */
// fuzz-sources: lib/store/store.c lib/nvccargs/nvccargs.c lib/nvccargs/flags.c lib/common/buf.c lib/common/error.c lib/common/fs.c lib/common/marks.c
// fuzz-libs: -lcjson
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernelskill/store.h"

static char g_zStore[96], g_zEntry[192];
static const char zOrig[] = "__global__ void k() {}\n";
static const char zOpt[] = "__global__ void k() { }\n";

static void put(const char *zDir, const char *zName, const char *z, size_t n) {
  char a[256];
  snprintf(a, sizeof a, "%s/%s", zDir, zName);
  FILE *f = fopen(a, "wb");
  if (f) fwrite(z, 1, n, f), fclose(f);
}

int LLVMFuzzerInitialize(int *pArgc, char ***pArgv) {
  (void)pArgc, (void)pArgv;
  char azH[17];
  snprintf(g_zStore, sizeof g_zStore, "/tmp/ks-fuzz-store-%d", (int)getpid());
  mkdir(g_zStore, 0700);
  ks_store_hash(zOrig, sizeof zOrig - 1, azH);
  snprintf(g_zEntry, sizeof g_zEntry, "%s/k.cu.%s.sm_90", g_zStore, azH);
  mkdir(g_zEntry, 0700);
  put(g_zEntry, "original.cu", zOrig, sizeof zOrig - 1);
  put(g_zEntry, "optimized.cu", zOpt, sizeof zOpt - 1);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *aData, size_t nData) {
  if (nData > 8192) return 0;
  const char *z = (const char *)aData;
  const char *zNul = memchr(z, 0, nData);
  size_t nJson = zNul ? (size_t)(zNul - z) : nData;
  put(g_zEntry, "entry.json", z, nJson);
  if (zNul) put(g_zEntry, "evidence.json", zNul + 1, nData - nJson - 1);
  ks_store *pS = NULL;
  if (ks_store_open_dir(g_zStore, 0, &pS) < 0) return 0;
  ks_store_entry *pE = NULL;
  int rc = ks_store_select(pS, "k.cu", zOrig, sizeof zOrig - 1, "sm_90", &pE);
  if (rc == KS_OK) {
    /* Substituted: the bytes it hands over are the checked optimized bytes. */
    if (!pE || pE->nOptSrc != sizeof zOpt - 1 || memcmp(pE->zOptSrc, zOpt, pE->nOptSrc) != 0) abort();
  } else if (pE) {
    abort();
  }
  ks_store_entry_free(pE);
  ks_store_close(pS);
  ks_error_clear();
  return 0;
}
