/* cmd_optimize.c — `kernelskill optimize`: the agent loop on one task
 * (lib/agents/loop.c), its dry run (static plan + the first round's rewrites
 * as diffs, no GPU needed), resuming a killed run, regenerating a run's
 * report, writing the verified result back over the task's source, storing
 * it in the verified-rewrite store for kernelskill-nvcc (--commit), and the
 * LLM client the agents use (--llm URL or KS_LLM_URL; docs/llm.md). */
#define _GNU_SOURCE /* realpath */
#include "cli.h"
#include "kernelskill/commit.h"
#include "kernelskill/journal.h"
#include "kernelskill/llm.h"
#include "kernelskill/loop.h"
#include "kernelskill/store.h"
#include "kernelskill/task.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char zUsage[] =
    "usage: kernelskill optimize TASK.json [options]\n"
    "\n"
    "Make the task's kernel faster, verified: round 0 reviews the seed; each round\n"
    "plans from the current best's features and profile and the journal, applies\n"
    "the chosen skill's rewrite rule (parameter sweeps inside the round), reviews\n"
    "every candidate against the current best, and accepts only a correct one that\n"
    "is faster beyond the measured noise. Progress goes to stderr.\n"
    "\n"
    "Options:\n"
    "  --rounds N        round budget (default 15); stops earlier when no skill is\n"
    "                    left or the kernel is within 5% of its roofline\n"
    "  --out DIR         run folder (default .kernelskill/runs/<task>-<time>/): the\n"
    "                    best source with provenance comments, journal.jsonl,\n"
    "                    report.md, speedup.svg, candidates/, evidence/\n"
    "  --resume          continue the run in --out (default: the newest run of this\n"
    "                    task) from its journal; nothing is evaluated twice\n"
    "  --write-back      when the result passed, replace the task's source (atomic\n"
    "                    rename) after keeping the original as FILE.cu.orig\n"
    "  --commit          when the closing review found the best correct and faster\n"
    "                    than the seed, write RUN/result.json and add the best (with\n"
    "                    its provenance comments) to the store, keyed by the source's\n"
    "                    bytes and the GPU's arch: kernelskill-nvcc then compiles it\n"
    "                    in place of the source, which stays as it is (docs/store.md)\n"
    "  --store DIR       the store for --commit (default: $KS_STORE, else the nearest\n"
    "                    .kernelskill/store above the source, then above the current\n"
    "                    folder, else ./.kernelskill/store is created)\n"
    "  --dry-run         no GPU needed: print the static plan and the rewrites the\n"
    "                    first round would try, as unified diffs; writes nothing\n"
    "  --llm off|URL     LLM agents: the Optimizer for skills with guidance only,\n"
    "                    the Diagnoser's repairs, the Generator's seed for a task\n"
    "                    with only a spec (default: $KS_LLM_URL if set, else off;\n"
    "                    KS_LLM_MODEL, KS_LLM_API_KEY[_FILE]... as in docs/llm.md)\n"
    "  --runs N          timed runs per review (Reviewer default 100, at least 50)\n"
    "  --trials N        correctness trials per review (default: the task's)\n"
    "  --sweep N         most parameter values a rule is tried at per round (default 3)\n"
    "  --tuning FILE|off the tuning memory: sweep winners kept across runs, tried\n"
    "                    first on a similar shape (same rule, GPU, shape class and\n"
    "                    launch size to a power of two); default: $KS_TUNING if\n"
    "                    set, else .kernelskill/tuning.jsonl\n"
    "  --skills DIR      more skills (override built-in ones with the same id); repeatable\n"
    "  --report-only     rewrite report.md and speedup.svg of --out from its journal\n"
    "  --json            the result (or the dry run) as JSON on stdout\n"
    "  --quiet           no progress lines\n"
    "\n"
    "Exit codes: 0 the run finished and its result passed (even with no speed-up);\n"
    "1 the task or the seed has a problem (the Diagnoser says why), or the result\n"
    "failed its closing review; 2 usage or environment (no CUDA device: nothing is\n"
    "changed; try --dry-run). With --commit: 0 also when nothing was faster, so\n"
    "nothing was stored (stderr says why; --json: \"commit\": {\"stored\": false});\n"
    "1 also when the run cannot be committed (its source changed during the run,\n"
    "the closing review's evidence is missing, the store refused the entry).\n";

extern const ks_cmd ks_cmd_optimize;

#define MAX_DIRS 16

/* The newest run folder of this task under .kernelskill/runs (names sort by time). */
static char *newest_run(const char *zTask) {
  const char *zRoot = ".kernelskill/runs";
  DIR *d = opendir(zRoot);
  char *zBest = NULL;
  size_t nTask = strlen(zTask);
  if (!d) return NULL;
  for (struct dirent *e; (e = readdir(d));) {
    if (strncmp(e->d_name, zTask, nTask) != 0 || e->d_name[nTask] != '-') continue;
    if (!zBest || strcmp(e->d_name, zBest) > 0) {
      free(zBest);
      zBest = ks_strdup(e->d_name);
    }
  }
  closedir(d);
  if (!zBest) return NULL;
  char *zPath = ks_path_join(zRoot, zBest);
  free(zBest);
  return zPath;
}

static char *default_out(const char *zTask) {
  char zTime[32];
  time_t t = time(NULL);
  struct tm tm;
  localtime_r(&t, &tm);
  strftime(zTime, sizeof zTime, "%Y%m%d-%H%M%S", &tm);
  ks_buf b = KS_BUF_INIT;
  ks_buf_printf(&b, ".kernelskill/runs/%s-%s", zTask, zTime);
  return ks_buf_detach(&b);
}

/* Keep FILE.orig (the first original is never overwritten), then replace FILE atomically. */
static int write_back(const ks_task *pTask, const char *zBestPath, FILE *pLog) {
  char *zOrig = NULL, *zOld = NULL, *zNew = NULL;
  size_t nOld = 0, nNew = 0;
  ks_buf b = KS_BUF_INIT;
  int rc = ks_file_read(pTask->zSource, &zOld, &nOld);
  if (rc == KS_OK) rc = ks_file_read(zBestPath, &zNew, &nNew);
  if (rc == KS_OK && ks_buf_printf(&b, "%s.orig", pTask->zSource) == KS_OK) zOrig = ks_buf_detach(&b);
  if (rc == KS_OK && !zOrig) rc = ks_error_set(KS_ENOMEM, "out of memory");
  if (rc == KS_OK && !ks_file_exists(zOrig)) rc = ks_file_write_atomic(zOrig, zOld, nOld);
  else if (rc == KS_OK && pLog) fprintf(pLog, "kernelskill: %s exists: kept as the original\n", zOrig);
  if (rc == KS_OK) rc = ks_file_write_atomic(pTask->zSource, zNew, nNew);
  if (rc == KS_OK && pLog) fprintf(pLog, "kernelskill: wrote %s (original in %s)\n", pTask->zSource, zOrig);
  free(zOrig);
  free(zOld);
  free(zNew);
  ks_buf_free(&b);
  return rc;
}

/* The tuning memory's file: --tuning, else $KS_TUNING, else the default; NULL: off. */
static const char *tuning_path(const char *zOpt) {
  const char *z = zOpt ? zOpt : getenv("KS_TUNING");
  if (!z || !z[0]) z = ".kernelskill/tuning.jsonl";
  return strcmp(z, "off") == 0 ? NULL : z;
}

static int run_optimize(int argc, char **argv) {
  const char *zTaskPath = NULL, *zOut = NULL, *zLlm = NULL, *zStore = NULL, *zTuning = NULL;
  const char *azDirs[MAX_DIRS];
  int nDirs = 0, nRounds = 0, nRuns = 0, nTrials = 0, nSweep = 0;
  int bWriteBack = 0, bResume = 0, bJson = 0, bQuiet = 0, bDry = 0, bReportOnly = 0, bCommit = 0;
  const ks_cli_opt aOpts[] = {
      KS_CLI_FLAG_OPT("--write-back", &bWriteBack),
      KS_CLI_FLAG_OPT("--commit", &bCommit),
      KS_CLI_FLAG_OPT("--resume", &bResume),
      KS_CLI_FLAG_OPT("--json", &bJson),
      {.zName = "--quiet", .zAlias = "-q", .eKind = KS_CLI_FLAG, .pVar = &bQuiet},
      KS_CLI_FLAG_OPT("--dry-run", &bDry),
      KS_CLI_FLAG_OPT("--report-only", &bReportOnly),
      KS_CLI_INT_OPT("--rounds", &nRounds, 1, 1000, "a count 1..1000"),
      KS_CLI_INT_OPT("--runs", &nRuns, 50, 100000, "a count of at least 50"),
      KS_CLI_INT_OPT("--trials", &nTrials, 5, 10000, "a count of at least 5"),
      KS_CLI_INT_OPT("--sweep", &nSweep, 1, 8, "a count 1..8"),
      {.zName = "--out", .eKind = KS_CLI_STR, .pVar = &zOut, .zNeeds = "a folder", .bNonEmpty = 1},
      {.zName = "--store", .eKind = KS_CLI_STR, .pVar = &zStore, .zNeeds = "a folder", .bNonEmpty = 1},
      {.zName = "--llm", .eKind = KS_CLI_STR, .pVar = &zLlm, .zNeeds = "'off' or a URL", .bNonEmpty = 1},
      {.zName = "--tuning", .eKind = KS_CLI_STR, .pVar = &zTuning, .zNeeds = "a file or 'off'", .bNonEmpty = 1},
      KS_CLI_LIST_OPT("--skills", azDirs, &nDirs, MAX_DIRS, "a folder", "at most %d --skills folders"),
      {0}};
  int ec = ks_cli_parse(&ks_cmd_optimize, argc, argv, 1, aOpts, &zTaskPath, "task", NULL);
  if (ec) return ec;
  if (bReportOnly) {
    if (!zOut) return ks_cli_usage_error(&ks_cmd_optimize, "--report-only needs --out DIR");
    int rc = ks_report_write(zOut);
    if (rc < 0) return ks_cli_fail(rc);
    if (!bQuiet) fprintf(stderr, "kernelskill: wrote %s/report.md and %s/speedup.svg\n", zOut, zOut);
    return KS_EXIT_OK;
  }
  if (!zTaskPath) return ks_cli_usage_error(&ks_cmd_optimize, "a task file is required");
  if (bDry && (bResume || bWriteBack || bCommit))
    return ks_cli_usage_error(&ks_cmd_optimize, "--dry-run changes nothing: it takes none of --resume, --write-back, "
                                                "--commit");
  if (zStore && !bCommit) return ks_cli_usage_error(&ks_cmd_optimize, "--store goes with --commit");
  if (bCommit && bWriteBack)
    return ks_cli_usage_error(&ks_cmd_optimize, "--commit keeps the source and stores the verified version for "
                                                "kernelskill-nvcc; --write-back replaces the source: choose one");
  if (zLlm && strcmp(zLlm, "off") != 0 && strncmp(zLlm, "http://", 7) && strncmp(zLlm, "https://", 8))
    return ks_cli_usage_error(&ks_cmd_optimize, "--llm needs 'off' or an http(s) URL (got '%s')", zLlm);
  /* No --llm: the environment decides (KS_LLM_URL). */
  int bLlm = zLlm ? strcmp(zLlm, "off") != 0 : ks_llm_configured();

  int rc = KS_OK;
  ks_task *pTask = NULL;
  ks_loop_result *pRes = NULL;
  ks_llm *pLlm = NULL;
  ks_commit_result commit;
  memset(&commit, 0, sizeof commit);
  char *zOutOwned = NULL;
  ks_buf out = KS_BUF_INIT;
  if ((rc = ks_task_load(zTaskPath, &pTask)) < 0) goto done;
  if (bCommit && !pTask->zSource) {
    rc = ks_error_set(KS_EUSAGE, "%s: --commit: the task has no source file to key a store entry on (its seed is "
                                 "generated into the run folder)",
                      zTaskPath);
    goto done;
  }
  if (bWriteBack && !pTask->zSource) {
    rc = ks_error_set(KS_EUSAGE, "%s: --write-back: the task has no source to write (its seed is generated into the "
                                 "run folder)",
                      zTaskPath);
    goto done;
  }
  if (bDry && !pTask->zSource) {
    rc = ks_error_set(KS_EUSAGE, "%s: --dry-run: the task has no source yet, only a spec (the Generator writes one "
                                 "in a real run with --llm)",
                      zTaskPath);
    goto done;
  }
  if (bLlm && !bDry) {
    ks_llm_opts llo = KS_LLM_OPTS_INIT;
    if (zLlm && strcmp(zLlm, "off") != 0) llo.zUrl = zLlm;
    if ((rc = ks_llm_open(&llo, &pLlm)) < 0) goto done; /* messages are redacted by the client */
  }

  ks_loop_opts lo = KS_LOOP_OPTS_INIT;
  lo.nRounds = nRounds ? nRounds : (bResume ? 0 : 15);
  lo.nRuns = nRuns;
  lo.nTrials = nTrials;
  if (nSweep) lo.nSweep = nSweep;
  lo.zTuning = tuning_path(zTuning);
  lo.azSkillDirs = azDirs;
  lo.nSkillDirs = nDirs;
  lo.pLog = bQuiet ? NULL : stderr;
  lo.pLlm = pLlm;
  if (pLlm && !bQuiet) {
    ks_buf ep = KS_BUF_INIT; /* a key may sit in the URL: redacted like every message */
    ks_llm_redact(pLlm, ks_llm_endpoint(pLlm), &ep);
    fprintf(stderr, "kernelskill: LLM agents on: %s, model %s\n", ks_buf_cstr(&ep), ks_llm_model(pLlm));
    ks_buf_free(&ep);
  }

  if (bDry) {
    if ((rc = ks_loop_dry_run(pTask, &lo, bJson, &out)) < 0) goto done;
    fputs(ks_buf_cstr(&out), stdout);
    goto done;
  }
  if (!zOut) {
    zOutOwned = bResume ? newest_run(pTask->zName) : default_out(pTask->zName);
    if (!zOutOwned) {
      rc = bResume ? ks_error_set(KS_EUSAGE, "--resume: no run of task '%s' under .kernelskill/runs (give --out)",
                                  pTask->zName)
                   : KS_ENOMEM;
      goto done;
    }
    zOut = zOutOwned;
  }
  lo.zOutDir = zOut;
  lo.bResume = bResume;
  rc = ks_loop_run(pTask, &lo, &pRes);
  if (rc == KS_EUNAVAIL) {
    fprintf(stderr, "kernelskill optimize: %s: nothing changed (kernelskill optimize %s --dry-run shows the plan)\n",
            ks_error_msg(), zTaskPath);
    ec = KS_EXIT_ENV;
    rc = KS_OK;
    goto done;
  }
  if (rc < 0) goto done;
  if (pLlm && !bQuiet) {
    long nBudget = ks_llm_token_budget(pLlm);
    fprintf(stderr, "kernelskill: LLM tokens used: %ld", ks_llm_tokens_used(pLlm));
    if (nBudget > 0) fprintf(stderr, " of %ld", nBudget);
    fputc('\n', stderr);
  }
  if (pRes->eStatus == KS_LOOP_SEED_FAILED) {
    fprintf(stderr, "kernelskill optimize: the seed fails its review: %s\n",
            pRes->zDiagnosis ? pRes->zDiagnosis : "(no diagnosis)");
    ec = KS_EXIT_INPUT;
  } else if (!pRes->bFinalPassed) {
    fprintf(stderr, "kernelskill optimize: the best version failed its closing review; the task's source is left "
                    "as it was\n");
    ec = KS_EXIT_INPUT;
  } else if (bWriteBack) {
    if (strcmp(pRes->azBestHash, pRes->azSeedHash) == 0) {
      if (!bQuiet) fprintf(stderr, "kernelskill: no faster version: %s left as it was\n", pTask->zSource);
    } else if ((rc = write_back(pTask, pRes->zBestPath, bQuiet ? NULL : stderr)) < 0) {
      goto done;
    }
  }
  if (bCommit) {
    if ((rc = ks_commit_run(pTask, pRes, zOut, zStore, &commit)) < 0) goto done;
    if (commit.zWhy) {
      fprintf(stderr, "kernelskill optimize: --commit: nothing stored: %s\n", commit.zWhy);
      if (commit.ec > ec) ec = commit.ec;
    }
  }
  if (bJson) {
    if ((rc = ks_loop_result_json(pTask, pRes, zOut, &out)) < 0) goto done;
    if (bCommit) {
      ks_buf full = KS_BUF_INIT;
      rc = ks_commit_result_json(ks_buf_cstr(&out), &commit, &full);
      ks_buf_free(&out);
      out = full;
      if (rc < 0) goto done;
    }
    fputs(ks_buf_cstr(&out), stdout);
  } else if (pRes->eStatus == KS_LOOP_DONE) {
    printf("%s: %.2f us -> %.2f us, %.2fx (%d round%s, accepted: %s)\nbest: %s\nreport: %s/report.md\n",
           pTask->zName, pRes->rSeedUs, pRes->rBestUs, pRes->rSpeedup, pRes->nRounds, pRes->nRounds == 1 ? "" : "s",
           pRes->zAccepted && pRes->zAccepted[0] ? pRes->zAccepted : "none", pRes->zBestPath ? pRes->zBestPath : "",
           zOut);
    if (commit.zStored)
      printf("stored: %s (%s, %.2fx; kernelskill-nvcc compiles it in place of %s)\n", commit.zStored, commit.zArch,
             commit.rSpeedup, pTask->zSource);
  }
done:
  ks_commit_result_free(&commit);
  if (rc < 0) ec = ks_cli_fail(rc);
  ks_buf_free(&out);
  ks_loop_result_free(pRes);
  ks_task_free(pTask);
  ks_llm_close(pLlm);
  free(zOutOwned);
  return ec;
}

const ks_cmd ks_cmd_optimize = {"optimize", "the agent loop: make a task's kernel faster, verified and explained",
                                zUsage, run_optimize, 5};
