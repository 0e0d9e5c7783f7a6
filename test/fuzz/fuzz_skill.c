/* fuzz_skill.c — libFuzzer target for skill files (skills/<cat>/<id>.json and
 * a user's --skills folders): the input is written as a skill file;
 * ks_skill_load_file must load it or refuse it with a message naming the
 * file, and a loaded skill must describe and serialize itself. */
// fuzz-sources: lib/skills/skills.c lib/skills/cond.c lib/skills/evidence.c lib/common/buf.c lib/common/error.c lib/common/fs.c lib/common/json.c lib/common/path.c
// fuzz-libs: -lcjson -lm
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernelskill/skills.h"

static char g_zPath[96];

int LLVMFuzzerInitialize(int *pArgc, char ***pArgv) {
  (void)pArgc, (void)pArgv;
  snprintf(g_zPath, sizeof g_zPath, "/tmp/ks-fuzz-skill-%d.json", (int)getpid());
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *aData, size_t nData) {
  if (nData > 16384) return 0;
  FILE *f = fopen(g_zPath, "wb");
  if (!f) return 0;
  fwrite(aData, 1, nData, f);
  fclose(f);
  ks_skill *pS = NULL;
  int rc = ks_skill_load_file(g_zPath, &pS);
  if (rc == KS_OK) {
    if (!pS) abort();
    ks_buf b = KS_BUF_INIT;
    ks_skill_describe(pS, &b);
    ks_skill_json(pS, &b);
    ks_buf_free(&b);
    ks_skill_free(pS);
  } else {
    if (pS) abort();
    if (rc != KS_EPARSE && rc != KS_EINVAL && rc != KS_ENOMEM) abort();
    const char *zMsg = ks_error_msg();
    if (!zMsg || !strstr(zMsg, g_zPath)) abort();
  }
  ks_error_clear();
  return 0;
}
