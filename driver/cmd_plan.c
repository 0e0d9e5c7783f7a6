/* cmd_plan.c — `kernelskill plan`: gather the evidence for one kernel
 * (features from the source or a saved features document, a profile, the
 * task's library permissions), run the planner policy over the skill corpus,
 * filter by the journal, and print the ranked candidates with their reasons. */
#include "cli.h"
#include "kernelskill/features.h"
#include "kernelskill/journal.h"
#include "kernelskill/skills.h"
#include "kernelskill/task.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char zUsage[] =
    "usage: kernelskill plan FILE.cu --kernel K [options]\n"
    "       kernelskill plan --features F.json --kernel K [options]\n"
    "\n"
    "Rank the skills that fit kernel K, with the evidence chain for each, and\n"
    "list the skills ruled out (an `unless`, a policy veto, the journal) with why.\n"
    "Without --profile the plan rests on static features alone, and says so.\n"
    "\n"
    "Options:\n"
    "  --kernel K        the kernel to plan for (required)\n"
    "  --features F      a saved `kernelskill features --json` document instead of FILE.cu\n"
    "  --profile P       evidence JSON (`kernelskill bench --json`): kernels[K].profile,\n"
    "                    or a top-level \"profile\" object\n"
    "  --journal J       the task's journal: drop skills tried on this version or\n"
    "                    applied to one of its ancestors\n"
    "  --parent HASH     the version's source hash (default: hash of FILE.cu; needed\n"
    "                    with --features for journal filtering)\n"
    "  --flags STR       compile flags that enter the source hash (default none)\n"
    "  --allow LIB       the task allows library LIB (cublas, cub); repeatable\n"
    "  --task T.json     read task.* from a task file: the allowed libraries\n"
    "                    (\"libraries\") and task.rtol (its outputs' tolerances)\n"
    "  --skills DIR      more skills (override built-in ones with the same id); repeatable\n"
    "  --top N           show the first N candidates (default 5; 0 = all)\n"
    "  --verbose         also list the skills whose conditions are false, with why\n"
    "  --evidence        print every evidence field (with derived reasons) first\n"
    "  --json            JSON report (\"ks_plan\": 1)\n"
    "  -- ARGS...        more clang arguments for parsing FILE.cu\n"
    "\n"
    "Exit codes: 0 planned (even with no candidate); 1 bad input (unknown kernel,\n"
    "malformed evidence, journal or skill); 2 usage or environment error.\n";

extern const ks_cmd ks_cmd_plan;

/* task.* from a task file: its libraries and tolerances (ks_evidence_set_task).
 * Only the task is read, never its source: a source outside the task's folder
 * is no risk here. */
static int read_task(const char *zTask, ks_evidence *pEv) {
  ks_task_load_opts lo = KS_TASK_LOAD_OPTS_INIT;
  lo.bAllowOutside = 1;
  ks_task *pTask = NULL;
  int rc = ks_task_load_ex(zTask, &lo, &pTask);
  if (rc >= 0) rc = ks_evidence_set_task(pEv, pTask);
  ks_task_free(pTask);
  return rc;
}

/* Features of zKernel from a .cu file, through the Feature Extractor. */
static int features_from_source(const char *zFile, const char *zKernel, char **azArgs, int nArgs, char **pzOut) {
  ks_parse_opts po = KS_PARSE_OPTS_INIT;
  po.azExtraArgs = (const char *const *)azArgs;
  po.nExtraArgs = nArgs;
  ks_tu *pTu = NULL;
  ks_buf out = KS_BUF_INIT;
  int rc = ks_tu_parse(zFile, &po, &pTu);
  if (rc < 0) return rc;
  ks_features_opts fo = KS_FEATURES_OPTS_INIT;
  fo.zKernel = zKernel;
  if ((rc = ks_features_json(pTu, &fo, &out)) == KS_OK)
    rc = ks_evidence_pick_features(ks_buf_cstr(&out), out.n, zFile, zKernel, pzOut);
  ks_buf_free(&out);
  ks_tu_free(pTu);
  return rc;
}

#define MAX_DIRS 16

static int check_allow(const ks_cli_opt *pOpt, const ks_cmd *pCmd, const char *zVal) {
  if (strcmp(zVal, "cublas") && strcmp(zVal, "cub"))
    return ks_cli_usage_error(pCmd, "%s: unknown library '%s' (cublas, cub)", pOpt->zName, zVal);
  return 0;
}

static int run_plan(int argc, char **argv) {
  const char *zFile = NULL, *zKernel = NULL, *zFeatures = NULL, *zProfile = NULL, *zJournal = NULL;
  const char *zParent = NULL, *zFlags = "", *zTask = NULL;
  const char *azDirs[MAX_DIRS], *azAllow[MAX_DIRS];
  int nDirs = 0, nAllow = 0, nTop = 5, bJson = 0, bVerbose = 0, bEvidence = 0, iExtra = argc;
  const ks_cli_opt aOpts[] = {
      KS_CLI_FLAG_OPT("--json", &bJson),
      {.zName = "--verbose", .zAlias = "-v", .eKind = KS_CLI_FLAG, .pVar = &bVerbose},
      KS_CLI_FLAG_OPT("--evidence", &bEvidence),
      KS_CLI_STR_OPT("--kernel", &zKernel, 0),
      KS_CLI_STR_OPT("--features", &zFeatures, 0),
      KS_CLI_STR_OPT("--profile", &zProfile, 0),
      KS_CLI_STR_OPT("--journal", &zJournal, 0),
      KS_CLI_STR_OPT("--parent", &zParent, 0),
      KS_CLI_STR_OPT("--flags", &zFlags, 0),
      KS_CLI_STR_OPT("--task", &zTask, 0),
      KS_CLI_LIST_OPT("--skills", azDirs, &nDirs, MAX_DIRS, "a folder", "at most %d --skills folders"),
      {.zName = "--allow", .eKind = KS_CLI_LIST, .pVar = azAllow, .pnList = &nAllow, .nMax = MAX_DIRS,
       .zNeeds = "a library name", .zFull = "too many --allow", .xFn = check_allow},
      KS_CLI_INT_OPT("--top", &nTop, 0, 1000, "a count 0..1000"),
      {0}};
  int ec = ks_cli_parse(&ks_cmd_plan, argc, argv, 1, aOpts, &zFile, "file", &iExtra);
  if (ec) return ec;
  if (!zKernel) return ks_cli_usage_error(&ks_cmd_plan, "--kernel is required");
  if (!zFile == !zFeatures) return ks_cli_usage_error(&ks_cmd_plan, "give either FILE.cu or --features F.json");
  if (zFeatures && iExtra < argc) return ks_cli_usage_error(&ks_cmd_plan, "clang arguments need FILE.cu");

  int rc = KS_OK;
  char *zSummary = NULL, *zText = NULL, *zProf = NULL, *zSrc = NULL;
  size_t nText = 0;
  char azHash[17];
  ks_evidence *pEv = NULL;
  ks_skillset *pSet = NULL;
  ks_journal *pJournal = NULL;
  ks_plan *pPlan = NULL;
  ks_buf out = KS_BUF_INIT;

  if ((rc = ks_evidence_new(&pEv)) < 0) goto done;
  if (zFeatures) {
    if ((rc = ks_file_read(zFeatures, &zText, &nText)) < 0) goto done;
    if ((rc = ks_evidence_pick_features(zText, nText, zFeatures, zKernel, &zSummary)) < 0) goto done;
  } else {
    if ((rc = features_from_source(zFile, zKernel, argv + iExtra, argc - iExtra, &zSummary)) < 0) goto done;
    if (!zParent) {
      size_t nSrc = 0;
      if ((rc = ks_file_read(zFile, &zSrc, &nSrc)) < 0) goto done;
      ks_journal_hash(zSrc, nSrc, zFlags, azHash);
      zParent = azHash;
    }
  }
  if ((rc = ks_evidence_add_json(pEv, "features", zSummary, strlen(zSummary), zFeatures ? zFeatures : zFile, NULL)) < 0)
    goto done;
  if (zProfile) {
    free(zText);
    zText = NULL;
    if ((rc = ks_file_read(zProfile, &zText, &nText)) < 0) goto done;
    if ((rc = ks_evidence_pick_profile(zText, nText, zProfile, zKernel, &zProf)) < 0) goto done;
    if ((rc = ks_evidence_add_json(pEv, "profile", zProf, strlen(zProf), zProfile, NULL)) < 0) goto done;
  }
  for (int i = 0; i < nAllow; i++)
    if ((rc = ks_evidence_allow_lib(pEv, azAllow[i])) < 0) goto done;
  if (zTask && (rc = read_task(zTask, pEv)) < 0) goto done;
  if ((rc = ks_evidence_derive(pEv)) < 0) goto done;

  ks_skills_opts so = KS_SKILLS_OPTS_INIT;
  so.azDirs = azDirs;
  so.nDirs = nDirs;
  if ((rc = ks_skills_load(&so, &pSet)) < 0) goto done;
  if (zJournal) {
    if ((rc = ks_journal_read(zJournal, &pJournal)) < 0) goto done;
    if (!zParent) fprintf(stderr, "kernelskill plan: warning: --journal without --parent: no journal filtering\n");
  }
  ks_plan_opts po = KS_PLAN_OPTS_INIT;
  po.zParent = zParent;
  po.pJournal = pJournal;
  po.zKernel = zKernel;
  po.zSource = zFeatures ? zFeatures : zFile;
  if ((rc = ks_plan_run(pSet, pEv, &po, &pPlan)) < 0) goto done;
  if (bEvidence && !bJson) {
    ks_buf_puts(&out, "evidence:\n");
    ks_evidence_dump(pEv, NULL, &out);
  }
  rc = bJson ? ks_plan_json(pPlan, pEv, nTop, &out) : ks_plan_text(pPlan, nTop, bVerbose, &out);
  if (rc < 0) goto done;
  fputs(ks_buf_cstr(&out), stdout);
done:
  if (rc < 0) ec = ks_cli_fail(rc);
  ks_buf_free(&out);
  ks_plan_free(pPlan);
  ks_journal_free(pJournal);
  ks_skills_free(pSet);
  ks_evidence_free(pEv);
  free(zSummary);
  free(zText);
  free(zProf);
  free(zSrc);
  return ec;
}

const ks_cmd ks_cmd_plan = {"plan", "rank the skills that fit a kernel, with the evidence for each", zUsage, run_plan,
                            30};
