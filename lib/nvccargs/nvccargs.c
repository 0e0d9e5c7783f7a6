/* nvccargs.c — the nvcc command-line parser: option table (from nvcc 13's
 * --help), every spelling (--long, -short, "=value" or a separate value, glued
 * values for -D -U -I -L -l -O -t), comma lists with [...] kept whole, options
 * files, NVCC_PREPEND_FLAGS / NVCC_APPEND_FLAGS, and the classification the
 * drop-in needs (inputs, outputs, target archs, dependency options). */
#include "kernelskill/nvccargs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* nvcc 13.0 `nvcc --help`, plus the documented-elsewhere -Xcudafe/-Xfatbin. */
static const ks_nvcc_opt aOpts[] = {
    {"cuda", "cuda", KS_NVO_FLAG},
    {"cubin", "cubin", KS_NVO_FLAG},
    {"fatbin", "fatbin", KS_NVO_FLAG},
    {"ptx", "ptx", KS_NVO_FLAG},
    {"optix-ir", "optix-ir", KS_NVO_FLAG},
    {"ltoir", "ltoir", KS_NVO_FLAG},
    {"preprocess", "E", KS_NVO_FLAG},
    {"generate-dependencies", "M", KS_NVO_FLAG},
    {"generate-nonsystem-dependencies", "MM", KS_NVO_FLAG},
    {"generate-dependencies-with-compile", "MD", KS_NVO_FLAG},
    {"generate-nonsystem-dependencies-with-compile", "MMD", KS_NVO_FLAG},
    {"dependency-output", "MF", KS_NVO_VALUE},
    {"generate-dependency-targets", "MP", KS_NVO_FLAG},
    {"compile", "c", KS_NVO_FLAG},
    {"device-c", "dc", KS_NVO_FLAG},
    {"device-w", "dw", KS_NVO_FLAG},
    {"device-link", "dlink", KS_NVO_FLAG},
    {"link", "link", KS_NVO_FLAG},
    {"lib", "lib", KS_NVO_FLAG},
    {"run", "run", KS_NVO_FLAG},
    {"output-file", "o", KS_NVO_VALUE},
    {"pre-include", "include", KS_NVO_LIST},
    {"objdir-as-tempdir", "objtemp", KS_NVO_FLAG},
    {"library", "l", KS_NVO_LIST},
    {"define-macro", "D", KS_NVO_LIST},
    {"undefine-macro", "U", KS_NVO_LIST},
    {"include-path", "I", KS_NVO_LIST},
    {"system-include", "isystem", KS_NVO_LIST},
    {"library-path", "L", KS_NVO_LIST},
    {"output-directory", "odir", KS_NVO_VALUE},
    {"compiler-bindir", "ccbin", KS_NVO_VALUE},
    {"allow-unsupported-compiler", "allow-unsupported-compiler", KS_NVO_FLAG},
    {"archiver-binary", "arbin", KS_NVO_VALUE},
    {"cudart", "cudart", KS_NVO_VALUE},
    {"cudadevrt", "cudadevrt", KS_NVO_VALUE},
    {"libdevice-directory", "ldir", KS_NVO_VALUE},
    {"target-directory", "target-dir", KS_NVO_VALUE},
    {"use-local-env", "use-local-env", KS_NVO_FLAG},
    {"force-cl-env-setup", "force-cl-env-setup", KS_NVO_FLAG},
    {"profile", "pg", KS_NVO_FLAG},
    {"debug", "g", KS_NVO_FLAG},
    {"device-debug", "G", KS_NVO_FLAG},
    {"generate-line-info", "lineinfo", KS_NVO_FLAG},
    {"optimization-info", "opt-info", KS_NVO_LIST},
    {"optimize", "O", KS_NVO_VALUE},
    {"Ofast-compile", "Ofc", KS_NVO_VALUE},
    {"dopt", "dopt", KS_NVO_VALUE},
    {"dlink-time-opt", "dlto", KS_NVO_FLAG},
    {"lto", "lto", KS_NVO_FLAG},
    {"gen-opt-lto", "gen-opt-lto", KS_NVO_FLAG},
    {"ftemplate-backtrace-limit", "ftemplate-backtrace-limit", KS_NVO_VALUE},
    {"ftemplate-depth", "ftemplate-depth", KS_NVO_VALUE},
    {"no-exceptions", "noeh", KS_NVO_FLAG},
    {"shared", "shared", KS_NVO_FLAG},
    {"x", "x", KS_NVO_VALUE},
    {"std", "std", KS_NVO_VALUE},
    {"no-host-device-initializer-list", "nohdinitlist", KS_NVO_FLAG},
    {"no-host-device-move-forward", "nohdmoveforward", KS_NVO_FLAG},
    {"expt-relaxed-constexpr", "expt-relaxed-constexpr", KS_NVO_FLAG},
    {"extended-lambda", "extended-lambda", KS_NVO_FLAG},
    {"expt-extended-lambda", "expt-extended-lambda", KS_NVO_FLAG},
    {"machine", "m", KS_NVO_VALUE},
    {"m64", "m64", KS_NVO_FLAG},
    {"compiler-options", "Xcompiler", KS_NVO_LIST},
    {"linker-options", "Xlinker", KS_NVO_LIST},
    {"archive-options", "Xarchive", KS_NVO_LIST},
    {"ptxas-options", "Xptxas", KS_NVO_LIST},
    {"nvlink-options", "Xnvlink", KS_NVO_LIST},
    {"cudafe-options", "Xcudafe", KS_NVO_LIST},
    {"fatbinary-options", "Xfatbin", KS_NVO_LIST},
    {"static-global-template-stub", "static-global-template-stub", KS_NVO_VALUE},
    {"device-entity-has-hidden-visibility", "device-entity-has-hidden-visibility", KS_NVO_VALUE},
    {"forward-unknown-to-host-compiler", "forward-unknown-to-host-compiler", KS_NVO_FLAG},
    {"forward-unknown-to-host-linker", "forward-unknown-to-host-linker", KS_NVO_FLAG},
    {"forward-unknown-opts", "forward-unknown-opts", KS_NVO_FLAG},
    {"dont-use-profile", "noprof", KS_NVO_FLAG},
    {"dryrun", "dryrun", KS_NVO_FLAG},
    {"verbose", "v", KS_NVO_FLAG},
    {"threads", "t", KS_NVO_VALUE},
    {"split-compile", "split-compile", KS_NVO_VALUE},
    {"split-compile-extended", "split-compile-extended", KS_NVO_VALUE},
    {"fdevice-syntax-only", "fdevice-syntax-only", KS_NVO_FLAG},
    {"fdevice-time-trace", "fdevice-time-trace", KS_NVO_VALUE},
    {"keep", "keep", KS_NVO_FLAG},
    {"keep-dir", "keep-dir", KS_NVO_VALUE},
    {"save-temps", "save-temps", KS_NVO_FLAG},
    {"clean-targets", "clean", KS_NVO_FLAG},
    {"time", "time", KS_NVO_VALUE},
    {"run-args", "run-args", KS_NVO_LIST},
    {"input-drive-prefix", "idp", KS_NVO_VALUE},
    {"dependency-drive-prefix", "ddp", KS_NVO_VALUE},
    {"drive-prefix", "dp", KS_NVO_VALUE},
    {"dependency-target-name", "MT", KS_NVO_VALUE},
    {"no-align-double", NULL, KS_NVO_FLAG},
    {"no-device-link", "nodlink", KS_NVO_FLAG},
    {"gpu-architecture", "arch", KS_NVO_VALUE},
    {"gpu-code", "code", KS_NVO_LIST},
    {"generate-code", "gencode", KS_NVO_LIST},
    {"relocatable-device-code", "rdc", KS_NVO_VALUE},
    {"entries", "e", KS_NVO_LIST},
    {"maxrregcount", "maxrregcount", KS_NVO_VALUE},
    {"use_fast_math", "use_fast_math", KS_NVO_FLAG},
    {"ftz", "ftz", KS_NVO_VALUE},
    {"prec-div", "prec-div", KS_NVO_VALUE},
    {"prec-sqrt", "prec-sqrt", KS_NVO_VALUE},
    {"fmad", "fmad", KS_NVO_VALUE},
    {"extra-device-vectorization", "extra-device-vectorization", KS_NVO_FLAG},
    {"default-stream", "default-stream", KS_NVO_VALUE},
    {"disable-warnings", "w", KS_NVO_FLAG},
    {"keep-device-functions", "keep-device-functions", KS_NVO_FLAG},
    {"source-in-ptx", "src-in-ptx", KS_NVO_FLAG},
    {"restrict", "restrict", KS_NVO_FLAG},
    {"Wreorder", "Wreorder", KS_NVO_FLAG},
    {"Wdefault-stream-launch", "Wdefault-stream-launch", KS_NVO_FLAG},
    {"Wmissing-launch-bounds", "Wmissing-launch-bounds", KS_NVO_FLAG},
    {"Wext-lambda-captures-this", "Wext-lambda-captures-this", KS_NVO_FLAG},
    {"Wno-deprecated-declarations", "Wno-deprecated-declarations", KS_NVO_FLAG},
    {"Wno-deprecated-gpu-targets", "Wno-deprecated-gpu-targets", KS_NVO_FLAG},
    {"Werror", "Werror", KS_NVO_LIST},
    {"resource-usage", "res-usage", KS_NVO_FLAG},
    {"extensible-whole-program", "ewp", KS_NVO_FLAG},
    {"no-compress", "no-compress", KS_NVO_FLAG},
    {"qpp-config", "qpp-config", KS_NVO_FLAG},
    {"compile-as-tools-patch", "astoolspatch", KS_NVO_FLAG},
    {"list-gpu-code", "code-ls", KS_NVO_FLAG},
    {"list-gpu-arch", "arch-ls", KS_NVO_FLAG},
    {"display-error-number", "err-no", KS_NVO_FLAG},
    {"no-display-error-number", "no-err-no", KS_NVO_FLAG},
    {"diag-error", "diag-error", KS_NVO_LIST},
    {"diag-suppress", "diag-suppress", KS_NVO_LIST},
    {"diag-warn", "diag-warn", KS_NVO_LIST},
    {"host-linker-script", "hls", KS_NVO_VALUE},
    {"augment-host-linker-script", "aug-hls", KS_NVO_FLAG},
    {"relocatable-link", "r", KS_NVO_FLAG},
    {"brief-diagnostics", "brief-diag", KS_NVO_VALUE},
    {"jump-table-density", "jtd", KS_NVO_VALUE},
    {"relocatable-ptx", "reloc-ptx", KS_NVO_FLAG},
    {"device-stack-protector", "device-stack-protector", KS_NVO_VALUE},
    {"compress-mode", "compress-mode", KS_NVO_VALUE},
    {"frandom-seed", "frandom-seed", KS_NVO_VALUE},
    {"sanitize", "sanitize", KS_NVO_VALUE},
    {"jobserver", "jobserver", KS_NVO_FLAG},
    {"help", "h", KS_NVO_FLAG},
    {"version", "V", KS_NVO_FLAG},
    {"options-file", "optf", KS_NVO_LIST},
    {NULL, NULL, 0}};

/* Short options whose value may be glued on ("-DX=1", "-I/usr/include", "-O3");
 * nvcc refuses "-ofile" and "-MFfile", so the set is small. */
static const char zGlued[] = "DUILlOt";

#define MAX_OPTF_DEPTH 8

const ks_nvcc_opt *ks_nvcc_opt_table(void) { return aOpts; }

static const ks_nvcc_opt *find_long(const char *z, size_t n) {
  for (const ks_nvcc_opt *p = aOpts; p->zLong; p++)
    if (strlen(p->zLong) == n && memcmp(p->zLong, z, n) == 0) return p;
  return NULL;
}

static const ks_nvcc_opt *find_short(const char *z, size_t n) {
  for (const ks_nvcc_opt *p = aOpts; p->zLong; p++)
    if (p->zShort && strlen(p->zShort) == n && memcmp(p->zShort, z, n) == 0) return p;
  return NULL;
}

const ks_nvcc_opt *ks_nvcc_opt_find(const char *zName) {
  const ks_nvcc_opt *p = find_long(zName, strlen(zName));
  return p ? p : find_short(zName, strlen(zName));
}

int ks_nvcc_is_cuda_source(const char *zPath) {
  size_t n = strlen(zPath);
  return n > 3 && strcmp(zPath + n - 3, ".cu") == 0;
}

/* ---- words ---- */

void ks_nvcc_free_words(char **az, int n) {
  for (int i = 0; i < n; i++) free(az[i]);
  free(az);
}

int ks_nvcc_split_words(const char *z, char ***pazWords, int *pnWords) {
  char **az = NULL;
  int n = 0, nAlloc = 0, rc = KS_OK;
  ks_buf w = KS_BUF_INIT;
  const char *p = z ? z : "";
  *pazWords = NULL;
  *pnWords = 0;
  for (;;) {
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    if (!*p) break;
    int bAny = 0;
    ks_buf_clear(&w);
    while (*p && !(*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) {
      char q = *p;
      if (q == '\'' || q == '"') {
        p++;
        while (*p && *p != q) {
          if (q == '"' && *p == '\\' && p[1]) p++;
          if ((rc = ks_buf_append(&w, p, 1)) < 0) goto fail;
          p++;
        }
        if (*p) p++;
        bAny = 1;
        continue;
      }
      if (q == '\\' && p[1]) p++;
      if ((rc = ks_buf_append(&w, p, 1)) < 0) goto fail;
      p++;
      bAny = 1;
    }
    if (!bAny) continue;
    if (n == nAlloc) {
      int nNew = nAlloc ? 2 * nAlloc : 8;
      char **azNew = realloc(az, sizeof(char *) * (size_t)nNew);
      if (!azNew) {
        rc = ks_error_set(KS_ENOMEM, "out of memory");
        goto fail;
      }
      az = azNew;
      nAlloc = nNew;
    }
    if (!(az[n] = ks_strdup(w.z ? w.z : ""))) {
      rc = KS_ENOMEM;
      goto fail;
    }
    n++;
  }
  ks_buf_free(&w);
  *pazWords = az;
  *pnWords = n;
  return KS_OK;
fail:
  ks_buf_free(&w);
  ks_nvcc_free_words(az, n);
  return rc;
}

int ks_nvcc_split_list(const char *zValue, char ***pazParts, int *pnParts) {
  char **az = NULL;
  int n = 0, nAlloc = 0;
  const char *p = zValue, *zStart = zValue;
  int iDepth = 0, bQuote = 0;
  *pazParts = NULL;
  *pnParts = 0;
  for (;; p++) {
    if (*p == '"') bQuote = !bQuote;
    else if (!bQuote && *p == '[') iDepth++;
    else if (!bQuote && *p == ']' && iDepth > 0) iDepth--;
    if (*p == 0 || (*p == ',' && !bQuote && iDepth == 0)) {
      size_t nPart = (size_t)(p - zStart);
      if (nPart > 0) {
        if (n == nAlloc) {
          int nNew = nAlloc ? 2 * nAlloc : 4;
          char **azNew = realloc(az, sizeof(char *) * (size_t)nNew);
          if (!azNew) goto oom;
          az = azNew;
          nAlloc = nNew;
        }
        if (!(az[n] = malloc(nPart + 1))) goto oom;
        memcpy(az[n], zStart, nPart);
        az[n][nPart] = 0;
        n++;
      }
      if (*p == 0) break;
      zStart = p + 1;
    }
  }
  *pazParts = az;
  *pnParts = n;
  return KS_OK;
oom:
  ks_nvcc_free_words(az, n);
  return ks_error_set(KS_ENOMEM, "out of memory");
}

char *ks_nvcc_arch_normalize(const char *zName, int *pbReal) {
  const char *p = zName;
  int bReal = 1;
  if (strncmp(p, "sm_", 3) == 0) p += 3;
  else if (strncmp(p, "compute_", 8) == 0) p += 8, bReal = 0;
  else if (strncmp(p, "lto_", 4) == 0) p += 4, bReal = 0;
  if (*p < '0' || *p > '9') return NULL;
  const char *q = p;
  while (*q >= '0' && *q <= '9') q++;
  while ((*q >= 'a' && *q <= 'z')) q++; /* 90a, 100f */
  if (*q) return NULL;
  if (pbReal) *pbReal = bReal;
  return ks_strdup(p);
}

/* ---- the parser ---- */

typedef struct parser {
  ks_nvcc_cmd *pCmd;
  int nAlloc;
  int bCudaLang; /* -x cu in effect */
  ks_buf problems;
  const char *zCwd;
} parser;

static int add_item(parser *pP, ks_nvcc_item **ppItem) {
  *ppItem = NULL;
  ks_nvcc_cmd *p = pP->pCmd;
  if (p->n == pP->nAlloc) {
    int nNew = pP->nAlloc ? 2 * pP->nAlloc : 32;
    ks_nvcc_item *aNew = realloc(p->a, sizeof(ks_nvcc_item) * (size_t)nNew);
    if (!aNew) return ks_error_set(KS_ENOMEM, "out of memory");
    p->a = aNew;
    pP->nAlloc = nNew;
  }
  *ppItem = &p->a[p->n++];
  memset(*ppItem, 0, sizeof(ks_nvcc_item));
  return KS_OK;
}

static void problem(parser *pP, const char *zFmt, const char *zArg) {
  if (pP->problems.n) ks_buf_puts(&pP->problems, "; ");
  ks_buf_printf(&pP->problems, zFmt, zArg);
}

static int parse_words(parser *pP, char *const *azW, int nW, int eOrigin, int bArgvIdx, int iDepth);

static int read_options_file(parser *pP, const char *zFile, int iDepth) {
  char *zText = NULL, *zPath = NULL, **azW = NULL;
  int nW = 0, rc = KS_OK;
  if (iDepth >= MAX_OPTF_DEPTH) {
    problem(pP, "options files nested too deep at '%s'", zFile);
    return KS_OK;
  }
  zPath = (pP->zCwd && zFile[0] != '/') ? ks_path_join(pP->zCwd, zFile) : ks_strdup(zFile);
  if (!zPath) return KS_ENOMEM;
  if (ks_file_read(zPath, &zText, NULL) < 0) {
    problem(pP, "cannot read options file '%s'", zFile);
    ks_error_clear();
    goto done;
  }
  if ((rc = ks_nvcc_split_words(zText, &azW, &nW)) < 0) goto done;
  rc = parse_words(pP, azW, nW, KS_NVCC_FROM_OPTF, 0, iDepth + 1);
done:
  ks_nvcc_free_words(azW, nW);
  free(zText);
  free(zPath);
  return rc;
}

/* An option word nvcc's table does not know (or a flag given a value): kept
 * verbatim as one unknown item, so the command line survives a round trip.
 * Returns 1 (the words used) or a negative code. */
static int add_unknown(parser *pP, const char *zW, int eOrigin, int iArgv) {
  ks_nvcc_item *pIt = NULL;
  int rc;
  if ((rc = add_item(pP, &pIt)) < 0) return rc;
  pIt->eType = KS_NVCC_UNKNOWN;
  pIt->eOrigin = eOrigin;
  pIt->iArgv = iArgv;
  pIt->nWords = 1;
  if (!(pIt->zSpelling = ks_strdup(zW))) return KS_ENOMEM;
  pP->pCmd->nUnknown++;
  return 1;
}

/* Parse one option word (and maybe its value word). Returns the number of
 * words used, or a negative code. */
static int parse_option(parser *pP, char *const *azW, int i, int nW, int eOrigin, int bArgvIdx, int iDepth) {
  const char *zW = azW[i];
  const char *zName = zW + 1;
  int bLong = 0;
  if (zW[1] == '-') zName = zW + 2, bLong = 1;
  const char *zEq = strchr(zName, '=');
  size_t nName = zEq ? (size_t)(zEq - zName) : strlen(zName);
  const ks_nvcc_opt *pOpt = bLong ? find_long(zName, nName) : find_short(zName, nName);
  const char *zValue = zEq ? zEq + 1 : NULL;
  size_t nSpelling = (size_t)(zName - zW) + nName;
  int nUsed = 1, rc;
  /* No exact short name: "-DX=1", "-I/usr/include", "-O3" glue the value on
   * (and "-DX=1" is define X=1, not option "DX" with value "1"). */
  if (!bLong && !pOpt && zName[0] && strchr(zGlued, zName[0]) && zName[1]) {
    pOpt = find_short(zName, 1);
    zValue = zName + 1;
    nSpelling = 2;
  }
  /* Unknown, or "--keep=x" (a flag with a value: nvcc rejects it); either
   * stays visible as unknown. */
  if (!pOpt || (pOpt->eKind == KS_NVO_FLAG && zValue)) return add_unknown(pP, zW, eOrigin, bArgvIdx ? i : -1);
  if (pOpt->eKind != KS_NVO_FLAG && !zValue) {
    if (i + 1 < nW) {
      zValue = azW[i + 1];
      nUsed = 2;
    } else {
      problem(pP, "option '%s' needs a value", zW);
    }
  }
  ks_nvcc_item *pIt;
  if ((rc = add_item(pP, &pIt)) < 0) return rc;
  pIt->eType = KS_NVCC_OPTION;
  pIt->eOrigin = eOrigin;
  pIt->iArgv = bArgvIdx ? i : -1;
  pIt->nWords = nUsed;
  pIt->pOpt = pOpt;
  if (!(pIt->zSpelling = malloc(nSpelling + 1))) return ks_error_set(KS_ENOMEM, "out of memory");
  memcpy(pIt->zSpelling, zW, nSpelling);
  pIt->zSpelling[nSpelling] = 0;
  if (zValue && !(pIt->zValue = ks_strdup(zValue))) return KS_ENOMEM;
  if (strcmp(pOpt->zLong, "x") == 0 && zValue) pP->bCudaLang = strcmp(zValue, "cu") == 0;
  if (strcmp(pOpt->zLong, "options-file") == 0 && zValue) {
    char **azF = NULL;
    int nF = 0;
    if ((rc = ks_nvcc_split_list(zValue, &azF, &nF)) < 0) return rc;
    for (int k = 0; k < nF && rc >= 0; k++) rc = read_options_file(pP, azF[k], iDepth);
    ks_nvcc_free_words(azF, nF);
    if (rc < 0) return rc;
  }
  return nUsed;
}

static int parse_words(parser *pP, char *const *azW, int nW, int eOrigin, int bArgvIdx, int iDepth) {
  for (int i = 0; i < nW;) {
    const char *zW = azW[i];
    if (zW[0] == '-' && zW[1]) {
      int n = parse_option(pP, azW, i, nW, eOrigin, bArgvIdx, iDepth);
      if (n < 0) return n;
      i += n;
      continue;
    }
    ks_nvcc_item *pIt;
    int rc = add_item(pP, &pIt);
    if (rc < 0) return rc;
    pIt->eType = KS_NVCC_INPUT;
    pIt->eOrigin = eOrigin;
    pIt->iArgv = bArgvIdx ? i : -1;
    pIt->nWords = 1;
    if (!(pIt->zInput = ks_strdup(zW))) return KS_ENOMEM;
    pIt->bCudaSource = pP->bCudaLang || ks_nvcc_is_cuda_source(zW);
    i++;
  }
  return KS_OK;
}

/* Record a value that is no arch name ("native", "bogus"). The command owns a
 * copy: the value often lives in a list split just for this and freed after
 * (keeping the pointer was a use-after-free). bReplace: the later value wins. */
static int set_special(ks_nvcc_cmd *p, const char *zName, int bReplace) {
  p->bArchSpecial = 1;
  if (p->zArchSpecial && !bReplace) return KS_OK;
  char *z = ks_strdup(zName);
  if (!z) return KS_ENOMEM;
  free(p->zArchSpecial);
  p->zArchSpecial = z;
  return KS_OK;
}

static int add_target(ks_nvcc_cmd *p, const char *zName) {
  int bReal = 0;
  char *zArch = ks_nvcc_arch_normalize(zName, &bReal);
  if (!zArch) return set_special(p, zName, 0);
  for (int i = 0; i < p->nTargets; i++)
    if (p->aTargets[i].bReal == bReal && strcmp(p->aTargets[i].zArch, zArch) == 0) {
      free(zArch);
      return KS_OK;
    }
  ks_nvcc_target *aNew = realloc(p->aTargets, sizeof(ks_nvcc_target) * (size_t)(p->nTargets + 1));
  if (!aNew) {
    free(zArch);
    return ks_error_set(KS_ENOMEM, "out of memory");
  }
  p->aTargets = aNew;
  p->aTargets[p->nTargets].zArch = zArch;
  p->aTargets[p->nTargets].bReal = bReal;
  p->nTargets++;
  return KS_OK;
}

/* Add the codes of a code list value ("sm_90", "[sm_90,compute_90]",
 * "\"sm_90,compute_90\""). */
static int add_code_list(ks_nvcc_cmd *p, const char *zCodes) {
  size_t n = strlen(zCodes);
  char *z = ks_strdup(zCodes);
  if (!z) return KS_ENOMEM;
  char *zBody = z;
  if (n >= 2 && ((z[0] == '[' && z[n - 1] == ']') || (z[0] == '"' && z[n - 1] == '"'))) {
    z[n - 1] = 0;
    zBody = z + 1;
  }
  char **az = NULL;
  int nA = 0, rc = ks_nvcc_split_list(zBody, &az, &nA);
  for (int i = 0; i < nA && rc >= 0; i++) rc = add_target(p, az[i]);
  ks_nvcc_free_words(az, nA);
  free(z);
  return rc;
}

/* One -gencode value: "arch=compute_90,code=[sm_90,compute_90]" (or several
 * such specs in one list). */
static int add_gencode(ks_nvcc_cmd *p, const char *zSpec) {
  char **az = NULL;
  int nA = 0, rc = ks_nvcc_split_list(zSpec, &az, &nA);
  const char *zArch = NULL;
  int bCode = 0;
  for (int i = 0; i < nA && rc >= 0; i++) {
    if (strncmp(az[i], "arch=", 5) == 0) {
      if (zArch && !bCode) rc = add_code_list(p, zArch);
      zArch = az[i] + 5;
      bCode = 0;
    } else if (strncmp(az[i], "code=", 5) == 0) {
      rc = add_code_list(p, az[i] + 5);
      bCode = 1;
    }
  }
  if (rc >= 0 && zArch && !bCode) rc = add_code_list(p, zArch);
  ks_nvcc_free_words(az, nA);
  return rc;
}

static int classify(ks_nvcc_cmd *p) {
  const char *zArch = NULL;
  int bCodeGiven = 0, rc = KS_OK;
  for (int i = 0; i < p->n; i++) {
    ks_nvcc_item *pIt = &p->a[i];
    if (pIt->eType == KS_NVCC_INPUT) {
      int *aNew = realloc(p->aiInputs, sizeof(int) * (size_t)(p->nInputs + 1));
      if (!aNew) return ks_error_set(KS_ENOMEM, "out of memory");
      p->aiInputs = aNew;
      p->aiInputs[p->nInputs++] = i;
      continue;
    }
    if (pIt->eType != KS_NVCC_OPTION) continue;
    const char *zL = pIt->pOpt->zLong, *zV = pIt->zValue;
    if (!strcmp(zL, "output-file")) p->zOutput = zV;
    else if (!strcmp(zL, "output-directory")) p->zOutputDir = zV;
    else if (!strcmp(zL, "gpu-architecture") && zV) zArch = zV, p->bArchGiven = 1;
    else if (!strcmp(zL, "gpu-code") && zV) {
      if ((rc = add_code_list(p, zV)) < 0) return rc;
      bCodeGiven = 1;
      p->bArchGiven = 1;
    } else if (!strcmp(zL, "generate-code") && zV) {
      if ((rc = add_gencode(p, zV)) < 0) return rc;
      p->bArchGiven = 1;
    } else if (!strcmp(zL, "compile")) p->bCompile = 1;
    else if (!strcmp(zL, "device-c")) p->bDeviceC = 1;
    else if (!strcmp(zL, "preprocess")) p->bPreprocess = 1;
    else if (!strcmp(zL, "link") || !strcmp(zL, "device-link") || !strcmp(zL, "lib")) p->bLink = 1;
    else if (!strcmp(zL, "ptx")) p->bPtx = 1;
    else if (!strcmp(zL, "cubin")) p->bCubin = 1;
    else if (!strcmp(zL, "fatbin")) p->bFatbin = 1;
    else if (!strcmp(zL, "cuda")) p->bCuda = 1;
    else if (!strcmp(zL, "dryrun")) p->bDryrun = 1;
    else if (!strcmp(zL, "verbose")) p->bVerbose = 1;
    else if (!strcmp(zL, "keep") || !strcmp(zL, "save-temps")) p->bKeep = 1;
    else if (!strcmp(zL, "keep-dir")) p->zKeepDir = zV;
    else if (!strcmp(zL, "generate-dependencies") || !strcmp(zL, "generate-nonsystem-dependencies"))
      p->bDepOnly = 1;
    else if (!strcmp(zL, "generate-dependencies-with-compile") ||
             !strcmp(zL, "generate-nonsystem-dependencies-with-compile"))
      p->bDepWithCompile = 1;
    else if (!strcmp(zL, "dependency-output")) p->zDepFile = zV;
    else if (!strcmp(zL, "dependency-target-name")) p->zDepTarget = zV;
    else if (!strcmp(zL, "forward-unknown-to-host-compiler") || !strcmp(zL, "forward-unknown-opts"))
      p->bForwardUnknown = 1;
    else if (!strcmp(zL, "version") || !strcmp(zL, "help") || !strcmp(zL, "list-gpu-code") ||
             !strcmp(zL, "list-gpu-arch"))
      p->bInfoOnly = 1;
  }
  if (zArch) {
    if (bCodeGiven) {
      /* -arch names the virtual arch; the codes are the targets. Still check
       * the arch is a real name (native/all make the set unknown). */
      char *z = ks_nvcc_arch_normalize(zArch, NULL);
      if (!z) rc = set_special(p, zArch, 1);
      free(z);
    } else {
      /* -arch=sm_90 is -arch=compute_90 -code=sm_90,compute_90. */
      int bReal = 0;
      char *z = ks_nvcc_arch_normalize(zArch, &bReal);
      if (!z) {
        rc = set_special(p, zArch, 1);
      } else {
        ks_buf b = KS_BUF_INIT;
        if (bReal) ks_buf_printf(&b, "sm_%s,compute_%s", z, z);
        else ks_buf_printf(&b, "compute_%s", z);
        rc = add_code_list(p, ks_buf_cstr(&b));
        ks_buf_free(&b);
      }
      free(z);
    }
  }
  return rc;
}

int ks_nvcc_parse(int argc, char *const *argv, const ks_nvcc_parse_opts *pOpts, ks_nvcc_cmd **ppCmd) {
  ks_nvcc_parse_opts dflt = KS_NVCC_PARSE_OPTS_INIT;
  if (!pOpts) pOpts = &dflt;
  *ppCmd = NULL;
  if (pOpts->version != KS_NVCC_PARSE_OPTS_VERSION)
    return ks_error_set(KS_EUSAGE, "ks_nvcc_parse_opts: unsupported version %u", pOpts->version);
  parser P;
  memset(&P, 0, sizeof P);
  P.zCwd = pOpts->zCwd;
  char **azPre = NULL, **azApp = NULL;
  int nPre = 0, nApp = 0, rc;
  *ppCmd = NULL;
  if (!(P.pCmd = calloc(1, sizeof(ks_nvcc_cmd)))) return ks_error_set(KS_ENOMEM, "out of memory");
  const char *zPre = pOpts->zPrepend, *zApp = pOpts->zAppend;
  if (!pOpts->bNoEnv) {
    if (!zPre) zPre = getenv("NVCC_PREPEND_FLAGS");
    if (!zApp) zApp = getenv("NVCC_APPEND_FLAGS");
  }
  if ((rc = ks_nvcc_split_words(zPre, &azPre, &nPre)) < 0) goto fail;
  if ((rc = ks_nvcc_split_words(zApp, &azApp, &nApp)) < 0) goto fail;
  /* nvcc reads NVCC_PREPEND_FLAGS before the command line and
   * NVCC_APPEND_FLAGS after it. */
  if ((rc = parse_words(&P, azPre, nPre, KS_NVCC_FROM_PREPEND, 0, 0)) < 0) goto fail;
  P.bCudaLang = 0;
  if ((rc = parse_words(&P, argv, argc, KS_NVCC_FROM_ARGV, 1, 0)) < 0) goto fail;
  if ((rc = parse_words(&P, azApp, nApp, KS_NVCC_FROM_APPEND, 0, 0)) < 0) goto fail;
  if ((rc = classify(P.pCmd)) < 0) goto fail;
  if (P.problems.n) P.pCmd->zProblem = ks_buf_detach(&P.problems);
  ks_nvcc_free_words(azPre, nPre);
  ks_nvcc_free_words(azApp, nApp);
  *ppCmd = P.pCmd;
  return KS_OK;
fail:
  ks_buf_free(&P.problems);
  ks_nvcc_free_words(azPre, nPre);
  ks_nvcc_free_words(azApp, nApp);
  ks_nvcc_cmd_free(P.pCmd);
  return rc;
}

void ks_nvcc_cmd_free(ks_nvcc_cmd *p) {
  if (!p) return;
  for (int i = 0; i < p->n; i++) {
    free(p->a[i].zSpelling);
    free(p->a[i].zValue);
    free(p->a[i].zInput);
  }
  for (int i = 0; i < p->nTargets; i++) free(p->aTargets[i].zArch);
  free(p->aTargets);
  free(p->zArchSpecial);
  free(p->a);
  free(p->aiInputs);
  free(p->zProblem);
  free(p);
}

int ks_nvcc_values(const ks_nvcc_cmd *pCmd, const char *zLong, const char ***pazVals, int *pnVals) {
  const char **az = NULL;
  int n = 0;
  *pazVals = NULL;
  *pnVals = 0;
  for (int i = 0; i < pCmd->n; i++) {
    const ks_nvcc_item *pIt = &pCmd->a[i];
    if (pIt->eType != KS_NVCC_OPTION || strcmp(pIt->pOpt->zLong, zLong) != 0 || !pIt->zValue) continue;
    const char **azNew = realloc(az, sizeof(char *) * (size_t)(n + 1));
    if (!azNew) {
      free(az);
      return ks_error_set(KS_ENOMEM, "out of memory");
    }
    az = azNew;
    az[n++] = pIt->zValue;
  }
  *pazVals = az;
  *pnVals = n;
  return KS_OK;
}

int ks_nvcc_target_repeats(const ks_nvcc_cmd *pCmd, int i) {
  for (int j = 0; j < i; j++)
    if (strcmp(pCmd->aTargets[j].zArch, pCmd->aTargets[i].zArch) == 0) return 1;
  return 0;
}

char *ks_nvcc_targets_text(const ks_nvcc_cmd *pCmd) {
  ks_buf b = KS_BUF_INIT;
  for (int i = 0; i < pCmd->nTargets; i++)
    ks_buf_printf(&b, "%s%s_%s", i ? "," : "", pCmd->aTargets[i].bReal ? "sm" : "compute", pCmd->aTargets[i].zArch);
  if (pCmd->bArchSpecial) ks_buf_printf(&b, "%s%s", b.n ? "," : "", pCmd->zArchSpecial);
  if (!b.n) ks_buf_puts(&b, "(nvcc's default)");
  return ks_buf_detach(&b);
}
