/* cmd_features.c — `kernelskill features`: the Feature Extractor's CLI. */
#include "cli.h"
#include "kernelskill/features.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char zUsage[] =
    "usage: kernelskill features FILE.cu [--kernel NAME] [--json] [--device] [-- CLANG_ARGS...]\n"
    "\n"
    "Parse FILE.cu with libclang as a CUDA compile sees it (CUDA headers, clang 19)\n"
    "and report static features of each __global__ kernel, and the file's launch sites.\n"
    "\n"
    "Options:\n"
    "  --kernel NAME   only this kernel (exit 1 if the file has no such kernel)\n"
    "  --json          versioned JSON (\"ks_features\": 1; see docs/features.md)\n"
    "  --device        parse the device side (--cuda-device-only) instead of the host side\n"
    "  --arch SM       GPU architecture to parse for (default sm_90)\n"
    "  -- ARGS...      more clang arguments (-I, -D, -std=...)\n"
    "\n"
    "Exit codes: 0 parsed cleanly (a file with no kernels is fine); 1 missing file,\n"
    "not CUDA, syntax errors (diagnostics on stderr; kernels that parsed are still\n"
    "reported), or unknown --kernel; 2 usage or environment error.\n";

extern const ks_cmd ks_cmd_features;

static int run_features(int argc, char **argv) {
  const char *zFile = NULL, *zKernel = NULL, *zArch = NULL;
  int bJson = 0, bDevice = 0, iExtra = argc;
  const ks_cli_opt aOpts[] = {KS_CLI_FLAG_OPT("--json", &bJson), KS_CLI_FLAG_OPT("--device", &bDevice),
                              KS_CLI_STR_OPT("--kernel", &zKernel, 0), KS_CLI_STR_OPT("--arch", &zArch, 0), {0}};
  int ec = ks_cli_parse(&ks_cmd_features, argc, argv, 1, aOpts, &zFile, "file", &iExtra);
  if (ec) return ec;
  if (!zFile) return ks_cli_usage_error(&ks_cmd_features, "no input file");

  ks_parse_opts po = KS_PARSE_OPTS_INIT;
  po.azExtraArgs = (const char *const *)(argv + iExtra);
  po.nExtraArgs = argc - iExtra;
  po.bDeviceSide = bDevice;
  po.zGpuArch = zArch;
  ks_tu *pTu = NULL;
  ks_buf out = KS_BUF_INIT, diags = KS_BUF_INIT;
  int rc = ks_tu_parse(zFile, &po, &pTu);
  if (rc < 0) {
    ec = ks_cli_fail(rc);
    ks_buf_free(&out);
    return ec;
  }
  ks_features_opts fo = KS_FEATURES_OPTS_INIT;
  fo.zKernel = zKernel;
  rc = bJson ? ks_features_json(pTu, &fo, &out) : ks_features_text(pTu, &fo, &out);
  int nErr = ks_tu_error_count(pTu);
  ks_tu_diagnostics(pTu, &diags);
  fputs(ks_buf_cstr(&diags), stderr);
  if (rc < 0) {
    ec = ks_cli_fail(rc);
  } else {
    fputs(ks_buf_cstr(&out), stdout);
    if (nErr > 0) {
      fprintf(stderr, "kernelskill: error: %s: %d error%s in the source; kernels that parsed are reported\n",
              zFile, nErr, nErr == 1 ? "" : "s");
      ec = KS_EXIT_INPUT;
    }
  }
  ks_buf_free(&out);
  ks_buf_free(&diags);
  ks_tu_free(pTu);
  return ec;
}

const ks_cmd ks_cmd_features = {"features", "static features of each kernel in a .cu file (libclang)", zUsage,
                                run_features, 10};
