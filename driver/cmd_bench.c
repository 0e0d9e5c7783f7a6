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

static int run_bench(int argc, char **argv) {
  const char *zTask = NULL, *zOut = NULL;
  int bJson = 0;
  ks_review_opts o = KS_REVIEW_OPTS_INIT;
  const ks_cli_value_opt aOpts[] = {{"--candidate", &o.zCandidate, "a file"},
                                    {"--arch", &o.zArch, "a value (sm_90)"},
                                    {"--work", &o.zWorkDir, "a folder"},
                                    {"-o", &zOut, "a file"},
                                    {0, 0, 0}};
  for (int i = 1; i < argc; i++) {
    const char *zVal;
    int m;
    if (strcmp(argv[i], "--json") == 0) {
      bJson = 1;
    } else if (strcmp(argv[i], "--no-metrics") == 0) {
      o.bMetrics = 0;
    } else if (strcmp(argv[i], "--compile-only") == 0) {
      o.bCompileOnly = 1;
    } else if (strcmp(argv[i], "-v") == 0) {
      o.bVerbose = 1;
    } else if ((m = ks_cli_value_opts(&ks_cmd_bench, argc, argv, &i, aOpts)) != 0) {
      if (m < 0) return KS_EXIT_ENV;
    } else if ((m = ks_cli_opt_value(argc, argv, &i, "--runs", &zVal)) != 0) {
      if (m < 0 || ks_cli_count(zVal, 50, 100000, &o.nRuns) < 0)
        return ks_cli_usage_error(&ks_cmd_bench, "--runs needs a count of at least 50");
    } else if ((m = ks_cli_opt_value(argc, argv, &i, "--trials", &zVal)) != 0) {
      if (m < 0 || ks_cli_count(zVal, 5, 10000, &o.nTrials) < 0)
        return ks_cli_usage_error(&ks_cmd_bench, "--trials needs a count of at least 5");
    } else if ((m = ks_cli_opt_value(argc, argv, &i, "--timeout", &zVal)) != 0) {
      if (m < 0 || atof(zVal) <= 0) return ks_cli_usage_error(&ks_cmd_bench, "--timeout needs seconds > 0");
      o.rTimeoutS = atof(zVal);
    } else if (ks_cli_operand(&ks_cmd_bench, argv[i], &zTask, "task") != 0) {
      return KS_EXIT_ENV;
    }
  }
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
  int ec = KS_EXIT_OK;
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
