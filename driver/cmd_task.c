/* cmd_task.c — `kernelskill task`: draft a task file from an entry's signature
 * (`task init`) and validate task files (`task check`). */
#include "cli.h"
#include "kernelskill/task.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char zUsage[] =
    "usage: kernelskill task init FILE.cu --entry FN [-o TASK.json] [--force] [--allow-outside]\n"
    "       kernelskill task check [--allow-outside] TASK.json...\n"
    "\n"
    "init   draft a task file from the signature of the extern \"C\" host function FN:\n"
    "       pointers become tensors (const: in, else out), integers become dims and\n"
    "       scalars. The draft validates; notes on stderr say what to check by hand.\n"
    "       Without -o the draft goes to stdout.\n"
    "check  parse and validate task files (format v1, docs/tasks.md); print a summary.\n"
    "--allow-outside  accept a source/reference outside the task file's folder tree\n"
    "       (refused by default; KS_TASK_ALLOW_OUTSIDE=1 allows it for every command).\n"
    "\n"
    "Exit codes: 0 ok; 1 a file has a problem (FILE: FIELD: what is wrong); 2 usage.\n";

extern const ks_cmd ks_cmd_task;

static int task_init(int argc, char **argv) {
  const char *zFile = NULL, *zEntry = NULL, *zOut = NULL;
  int bForce = 0, bOutside = 0;
  const ks_cli_opt aOpts[] = {KS_CLI_STR_OPT("--entry", &zEntry, 0), KS_CLI_STR_OPT("-o", &zOut, "a file"),
                              KS_CLI_FLAG_OPT("--force", &bForce), KS_CLI_FLAG_OPT("--allow-outside", &bOutside), {0}};
  int ec = ks_cli_parse(&ks_cmd_task, argc, argv, 2, aOpts, &zFile, "source file", NULL);
  if (ec) return ec;
  if (!zFile) return ks_cli_usage_error(&ks_cmd_task, "task init: no source file");
  if (!zEntry) return ks_cli_usage_error(&ks_cmd_task, "task init: --entry FN is required");
  if (access(zFile, F_OK) != 0) {
    fprintf(stderr, "kernelskill: error: %s: no such file\n", zFile);
    return KS_EXIT_INPUT;
  }
  if (zOut && ks_file_exists(zOut) && !bForce) {
    fprintf(stderr, "kernelskill: error: %s exists (use --force to overwrite)\n", zOut);
    return KS_EXIT_INPUT;
  }
  /* Only a regular file is ever replaced (not /dev/full, a FIFO, a folder). */
  if (zOut && ks_file_check_replaceable(zOut) < 0) return ks_cli_fail(KS_EINVAL);
  ks_buf out = KS_BUF_INIT, notes = KS_BUF_INIT;
  ks_task_init_opts o = KS_TASK_INIT_OPTS_INIT;
  o.zOutPath = zOut;
  const char *zEnvOut = getenv("KS_TASK_ALLOW_OUTSIDE");
  o.bAllowOutside = bOutside || (zEnvOut && strcmp(zEnvOut, "1") == 0);
  int rc = ks_task_draft(zFile, zEntry, &o, &out, &notes);
  if (rc < 0) {
    ec = ks_cli_fail(rc);
  } else if (zOut) {
    rc = ks_file_write_atomic(zOut, out.z, out.n);
    if (rc < 0) ec = ks_cli_fail(rc);
    else fprintf(stderr, "kernelskill: wrote %s\n", zOut);
  } else {
    fputs(ks_buf_cstr(&out), stdout);
  }
  if (ec == KS_EXIT_OK && notes.n) {
    const char *p = ks_buf_cstr(&notes);
    while (*p) {
      const char *e = strchr(p, '\n');
      int n = e ? (int)(e - p) : (int)strlen(p);
      fprintf(stderr, "note: %.*s\n", n, p);
      p += n + (e != NULL);
    }
  }
  ks_buf_free(&out);
  ks_buf_free(&notes);
  return ec;
}

static int task_check(int argc, char **argv) {
  int nFiles = 0, ec = KS_EXIT_OK;
  ks_task_load_opts lo = KS_TASK_LOAD_OPTS_INIT;
  const char *zEnvOut = getenv("KS_TASK_ALLOW_OUTSIDE");
  lo.bAllowOutside = zEnvOut && strcmp(zEnvOut, "1") == 0;
  for (int i = 2; i < argc; i++) {
    if (strcmp(argv[i], "--allow-outside") == 0) lo.bAllowOutside = 1;
    else if (argv[i][0] == '-' && argv[i][1]) return ks_cli_usage_error(&ks_cmd_task, "unknown option '%s'", argv[i]);
  }
  for (int i = 2; i < argc; i++) {
    ks_task *t = NULL;
    if (strcmp(argv[i], "--allow-outside") == 0) continue;
    nFiles++;
    int rc = ks_task_load_ex(argv[i], &lo, &t);
    if (rc < 0) {
      int e = ks_cli_fail(rc);
      if (e > ec) ec = e;
      continue;
    }
    int nIn = 0, nOut = 0, nScalar = 0;
    for (int k = 0; k < t->nArg; k++) {
      if (t->aArg[k].eKind == KS_ARG_SCALAR) nScalar++;
      else if (t->aArg[k].eIntent == KS_INTENT_IN) nIn++;
      else nOut++;
    }
    printf("%s: ok: task '%s', entry %s, %d input tensor%s, %d output tensor%s, %d scalar%s", argv[i], t->zName,
           t->zEntry, nIn, nIn == 1 ? "" : "s", nOut, nOut == 1 ? "" : "s", nScalar, nScalar == 1 ? "" : "s");
    if (t->bHasCost) printf(", cost %.6g flops %.6g bytes", t->rFlops, t->rBytes);
    printf("\n");
    for (int k = 0; k < t->nArg; k++) {
      const ks_task_arg *a = &t->aArg[k];
      if (a->eKind == KS_ARG_SCALAR) {
        printf("  %s: scalar %s = %s\n", a->zName, ks_dtype_name(a->eType), a->zValue);
      } else {
        double rR, rA;
        ks_task_arg_tol(t, k, &rR, &rA);
        printf("  %s: tensor %s %s [", a->zName, ks_dtype_name(a->eType), ks_intent_name(a->eIntent));
        for (int d = 0; d < a->nRank; d++) printf("%s%lld", d ? ", " : "", (long long)a->aShape[d]);
        printf("] %lld elements", (long long)a->nElem);
        if (a->eIntent != KS_INTENT_IN) printf(", rtol %g atol %g", rR, rA);
        if (a->eIntent != KS_INTENT_OUT && a->init.eDist == KS_DIST_FILE) printf(", init file %s", a->init.zFile);
        else if (a->eIntent != KS_INTENT_OUT)
          printf(", init %s(%g, %g)", ks_dist_name(a->init.eDist), a->init.rA, a->init.rB);
        if (a->zExpect) printf(", expect file %s", a->zExpect);
        printf("\n");
      }
    }
    ks_task_free(t);
  }
  if (nFiles == 0) return ks_cli_usage_error(&ks_cmd_task, "task check: no task file");
  return ec;
}

static int run_task(int argc, char **argv) {
  if (argc < 2 || ks_cli_is_help(argv[1])) {
    fputs(zUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? KS_EXIT_ENV : KS_EXIT_OK;
  }
  if (strcmp(argv[1], "init") == 0) return task_init(argc, argv);
  if (strcmp(argv[1], "check") == 0) return task_check(argc, argv);
  return ks_cli_usage_error(&ks_cmd_task, "unknown action '%s' (init, check)", argv[1]);
}

const ks_cmd ks_cmd_task = {"task", "draft (init) and validate (check) task files", zUsage, run_task, 20};
