/* flags.c — the one allowlist of nvcc flags that source files may carry in
 * their `// kernelskill-flags:` line, for every source of such a line: LLM
 * replies, store entries (at `store add` and again when the drop-in
 * substitutes), rewrite rules. Whoever compiles the file appends these flags to
 * its nvcc command, so anything that selects the host compiler (-ccbin),
 * reads files (-I, -include, -Xcompiler=-include,..., -optf), loads plugins,
 * runs programs or names outputs (-o, -odir, -MF, --keep-dir) stays out: only
 * code-generation flags with checked values are in. */
#include "kernelskill/nvccargs.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

static int all_digits(const char *z) {
  if (!*z) return 0;
  for (; *z; z++)
    if (!isdigit((unsigned char)*z)) return 0;
  return 1;
}

/* sm_90, sm_90a, compute_100f ... */
static int arch_value(const char *z) {
  if (!strncmp(z, "sm_", 3)) z += 3;
  else if (!strncmp(z, "compute_", 8)) z += 8;
  else return 0;
  int n = 0;
  while (isdigit((unsigned char)*z)) z++, n++;
  if (n < 2 || n > 3) return 0;
  if (*z == 'a' || *z == 'f') z++;
  return *z == 0;
}

int ks_nvcc_flag_allowed(const char *z, const char *zPrev) {
  static const char *const azExact[] = {"--use_fast_math", "-use_fast_math", "-lineinfo", "--extra-device-vectorization",
                                        "-Xptxas", "--restrict", "-ftz=true", "-ftz=false", "-prec-div=true",
                                        "-prec-div=false", "-prec-sqrt=true", "-prec-sqrt=false", "-fmad=true",
                                        "-fmad=false", "-O3", "-O2", NULL};
  static const char *const azPtxas[] = {"-O0", "-O1", "-O2", "-O3", "-v", "-dlcm=ca", "-dlcm=cg", NULL};
  /* The task format's vendor libraries (docs/tasks.md, "libraries"). */
  static const char *const azLib[] = {"-lcublas", "-lcublasLt", "-lcufft", "-lcurand", "-lcusparse", "-lcusolver", NULL};
  if (zPrev && !strcmp(zPrev, "-Xptxas")) {
    for (int i = 0; azPtxas[i]; i++)
      if (!strcmp(z, azPtxas[i])) return 1;
    return 0;
  }
  for (int i = 0; azExact[i]; i++)
    if (!strcmp(z, azExact[i])) return 1;
  for (int i = 0; azLib[i]; i++)
    if (!strcmp(z, azLib[i])) return 1;
  const char *zNum = !strncmp(z, "-maxrregcount=", 14) ? z + 14 : !strncmp(z, "--maxrregcount=", 15) ? z + 15 : NULL;
  if (zNum) return all_digits(zNum) && strlen(zNum) <= 4;
  const char *zArch = !strncmp(z, "-arch=", 6) ? z + 6 : !strncmp(z, "--gpu-architecture=", 19) ? z + 19 : NULL;
  if (zArch) return arch_value(zArch);
  return 0;
}

int ks_nvcc_flags_check(const char *zFlags, const char *zWhere, ks_buf *pWhy) {
  char **az = NULL;
  int n = 0, nBad = 0;
  int rc = ks_nvcc_split_words(zFlags, &az, &n);
  if (rc < 0) return rc;
  for (int i = 0; i < n; i++) {
    /* "-Xptxas" needs its value: a trailing one is refused too. */
    if (!ks_nvcc_flag_allowed(az[i], i ? az[i - 1] : NULL) || (!strcmp(az[i], "-Xptxas") && (i + 1 == n))) {
      if (pWhy) ks_buf_printf(pWhy, "%s%s: nvcc flag '%s' is not allowed in a kernelskill-flags line", nBad ? "; " : "",
                              zWhere ? zWhere : "flags", az[i]);
      nBad++;
    }
  }
  /* "-Xptxas -Xptxas": the second is a value the first takes, never a flag. */
  ks_nvcc_free_words(az, n);
  return nBad ? KS_EINVAL : KS_OK;
}
