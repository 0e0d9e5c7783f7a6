/* cmd_bench.c — `kernelskill bench`: the Reviewer from the command line. */
#include "cli.h"
#include "kernelskill/review.h"
#include "kernelskill/task.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char zUsage[] =
    "usage: kernelskill bench TASK.json [--candidate FILE.cu] [--json] [--runs N] [--trials N]\n"
    "                         [--timeout S] [--no-metrics] [--compile-only] [--arch SM] [-o EVIDENCE.json]\n"
    "                         [--work DIR] [-v]\n"
    "\n"
    "Review the task's seed (or --candidate) on the GPU: build seed, reference and\n"
    "candidate with nvcc as separate shared objects, run each in a child process\n"
    "with a timeout, check correctness against the reference (>= 5 trials, fresh\n"
    "inputs, poisoned outputs, inputs unchanged, no constant/NaN outputs, default\n"
    "stream only), time seed, candidate and seed again with a cold L2 (>= 50 runs,\n"
    "median, IQR, min/max, noise), read CUPTI metrics, and place the result on the\n"
    "device's measured roofline.\n"
    "\n"
    "Options:\n"
    "  --candidate F   the version to review (default: the seed itself)\n"
    "  --json          print the evidence record (\"ks_evidence\": 1) instead of the table\n"
    "  -o FILE         also write the evidence record to FILE\n"
    "  --runs N        timed runs per version (default 100, at least 50)\n"
    "  --trials N      correctness trials (default: the task's, at least 5)\n"
    "  --timeout S     seconds per child process (default: the task's timeout_s, 60)\n"
    "  --no-metrics    only the verified core CUPTI metrics\n"
    "  --compile-only  build seed, reference and candidate; no GPU needed\n"
    "  --arch SM       nvcc architecture (default: the device's; sm_90 with --compile-only)\n"
    "  --work DIR      keep builds, outputs and harness logs in DIR\n"
    "  -v              progress on stderr\n"
    "\n"
    "Exit codes: 0 the reviewed version is correct (any speed); 1 it is not\n"
    "(compile error, wrong result, runtime error, timeout) or the task is invalid;\n"
    "2 usage or environment (\"no CUDA device: skipped\" without a GPU).\n";

extern const ks_cmd ks_cmd_bench;

static int take_timeout(const ks_cli_opt *pOpt, const ks_cmd *pCmd, const char *zVal) {
  if (atof(zVal) <= 0) return ks_cli_usage_error(pCmd, "%s needs %s", pOpt->zName, pOpt->zNeeds);
  *(double *)pOpt->pVar = atof(zVal);
  return 0;
}

static int run_bench(int argc, char **argv) {
  const char *zTask = NULL, *zOut = NULL;
  int bJson = 0;
  ks_review_opts o = KS_REVIEW_OPTS_INIT;
  const ks_cli_opt aOpts[] = {
      KS_CLI_FLAG_OPT("--json", &bJson),
      {.zName = "--no-metrics", .eKind = KS_CLI_CLEAR, .pVar = &o.bMetrics},
      KS_CLI_FLAG_OPT("--compile-only", &o.bCompileOnly),
      KS_CLI_FLAG_OPT("-v", &o.bVerbose),
      KS_CLI_STR_OPT("--candidate", &o.zCandidate, "a file"),
      KS_CLI_STR_OPT("--arch", &o.zArch, "a value (sm_90)"),
      KS_CLI_STR_OPT("--work", &o.zWorkDir, "a folder"),
      KS_CLI_STR_OPT("-o", &zOut, "a file"),
      KS_CLI_INT_OPT("--runs", &o.nRuns, 50, 100000, "a count of at least 50"),
      KS_CLI_INT_OPT("--trials", &o.nTrials, 5, 10000, "a count of at least 5"),
      {.zName = "--timeout", .eKind = KS_CLI_FN, .pVar = &o.rTimeoutS, .zNeeds = "seconds > 0", .xFn = take_timeout},
      {0}};
  int ec = ks_cli_parse(&ks_cmd_bench, argc, argv, 1, aOpts, &zTask, "task", NULL);
  if (ec) return ec;
  if (!zTask) return ks_cli_usage_error(&ks_cmd_bench, "no task file");
  ks_task *pTask = NULL;
  int rc = ks_task_load(zTask, &pTask);
  if (rc < 0) return ks_cli_fail(rc);
  ks_review_result *pRes = NULL;
  rc = ks_review_run(pTask, &o, &pRes);
  ks_task_free(pTask);
  if (rc == KS_EUNAVAIL && strstr(ks_error_msg(), "no CUDA device")) {
    fprintf(stderr, "kernelskill bench: no CUDA device: skipped\n");
    return KS_EXIT_ENV;
  }
  if (rc < 0) return ks_cli_fail(rc);
  switch (pRes->eVerdict) {
  case KS_VERDICT_COMPILE_ERROR:
  case KS_VERDICT_WRONG_RESULT:
  case KS_VERDICT_RUNTIME_ERROR:
  case KS_VERDICT_TIMEOUT: ec = KS_EXIT_INPUT; break;
  default: break;
  }
  if (zOut && ks_file_write_atomic(zOut, pRes->zEvidence, strlen(pRes->zEvidence)) < 0) ec = ks_cli_fail(KS_EIO);
  if (bJson) {
    printf("%s\n", pRes->zEvidence);
  } else {
    ks_buf b = KS_BUF_INIT;
    ks_review_text(pRes, &b);
    fputs(ks_buf_cstr(&b), stdout);
    ks_buf_free(&b);
  }
  ks_review_result_free(pRes);
  return ec;
}

const ks_cmd ks_cmd_bench = {"bench", "review a task's seed or a candidate on the GPU (correctness, timing, CUPTI)",
                             zUsage, run_bench, 30};
