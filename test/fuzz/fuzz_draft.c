/* fuzz_draft.c — libFuzzer target for `kernelskill task init`: the input is a
 * CUDA source; ks_task_draft drafts a task from the signature of its entry
 * `entry` or refuses cleanly, and a draft it returns must load (`task check`
 * accepts every draft `task init` writes). */
// fuzz-sources: lib/task/draft.c lib/task/task.c lib/common/buf.c lib/common/error.c lib/common/fs.c lib/common/path.c
// fuzz-libs: -lcjson -lm
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernelskill/task.h"

static char g_zDir[64], g_zSrc[96], g_zTask[96];

int LLVMFuzzerInitialize(int *pArgc, char ***pArgv) {
  (void)pArgc, (void)pArgv;
  snprintf(g_zDir, sizeof g_zDir, "/tmp/ks-fuzz-draft-%d", (int)getpid());
  mkdir(g_zDir, 0700);
  snprintf(g_zSrc, sizeof g_zSrc, "%s/s.cu", g_zDir);
  snprintf(g_zTask, sizeof g_zTask, "%s/t.json", g_zDir);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *aData, size_t nData) {
  if (nData > 8192) return 0;
  FILE *f = fopen(g_zSrc, "wb");
  if (!f) return 0;
  fwrite(aData, 1, nData, f);
  fclose(f);
  ks_task_init_opts o = KS_TASK_INIT_OPTS_INIT;
  o.zOutPath = g_zTask;
  ks_buf out = KS_BUF_INIT, notes = KS_BUF_INIT;
  int rc = ks_task_draft(g_zSrc, "entry", &o, &out, &notes);
  if (rc == KS_OK) {
    f = fopen(g_zTask, "wb");
    if (f) {
      fwrite(out.z, 1, out.n, f);
      fclose(f);
      ks_task *t = NULL;
      if (ks_task_load(g_zTask, &t) != KS_OK) {
        fprintf(stderr, "a draft that does not load: %s\n%s\n", ks_error_msg(), ks_buf_cstr(&out));
        abort();
      }
      ks_task_free(t);
    }
  } else if (rc != KS_EINVAL && rc != KS_EPARSE && rc != KS_ENOTFOUND && rc != KS_ENOMEM) {
    abort();
  }
  ks_buf_free(&out);
  ks_buf_free(&notes);
  ks_error_clear();
  return 0;
}
