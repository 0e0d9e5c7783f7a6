/* cmd_store.c — `kernelskill store add|ls|show|rm|verify`: manage the
 * verified-rewrite store that `kernelskill-nvcc` substitutes from. */
#include "cli.h"
#include "kernelskill/rewrite.h"
#include "kernelskill/store.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char zUsage[] =
    "usage: kernelskill store add RUN_DIR|RESULT.json [--force]\n"
    "       kernelskill store add --original ORIG.cu --optimized OPT.cu --arch sm_90\n"
    "                             [--evidence EVIDENCE.json] [--task TASK.json] [--force]\n"
    "       kernelskill store ls [--json]\n"
    "       kernelskill store show ENTRY [--diff]\n"
    "       kernelskill store rm ENTRY...\n"
    "       kernelskill store verify [ENTRY...]\n"
    "\n"
    "The store holds verified optimized versions of CUDA sources, keyed by the\n"
    "original file's bytes and the GPU arch they were verified on. kernelskill-nvcc\n"
    "compiles the verified version instead of a source whose bytes and target arch\n"
    "match an entry. Entries are plain files: review them and commit them to git.\n"
    "\n"
    "add RUN_DIR        what `kernelskill optimize --commit` does: read RUN_DIR/result.json\n"
    "                   ({\"ks_result\":1, \"original\", \"optimized\", \"arch\", \"evidence\", \"task\"};\n"
    "                   paths relative to RUN_DIR)\n"
    "add --original ... make an entry by hand. With --evidence (`kernelskill bench --json`\n"
    "                   of the optimized version) the entry records the verification\n"
    "                   (task, trials, tolerances, timings, GPU, date); evidence that\n"
    "                   does not record a correctness pass is refused (--force records it)\n"
    "ls                 list entries: name, original path, arch, fresh/stale\n"
    "show ENTRY         print entry.json (--diff: the diff original -> optimized)\n"
    "rm ENTRY...        remove entries\n"
    "verify [ENTRY...]  check files and hashes, and whether each original is unchanged\n"
    "\n"
    "ENTRY is an entry folder name, a unique prefix of it, or the original's path.\n"
    "\n"
    "Options:\n"
    "  --store DIR      the store folder (default: $KS_STORE, else the nearest\n"
    "                   .kernelskill/store above the current folder; `add` creates\n"
    "                   ./.kernelskill/store when there is none)\n"
    "\n"
    "Exit codes: 0 ok; 1 bad input (unknown entry, damaged entry, refused evidence;\n"
    "verify: a damaged entry); 2 usage or environment error.\n";

extern const ks_cmd ks_cmd_store;

static int open_store(const char *zStore, int bCreate, ks_store **pp) {
  if (zStore) return ks_store_open_dir(zStore, bCreate, pp);
  return ks_store_open(".", bCreate, pp);
}

static int do_add(int argc, char **argv, const char *zStore) {
  ks_store_add_opts o = KS_STORE_ADD_OPTS_INIT;
  const char *zRun = NULL;
  char **azOwned = NULL;
  int rc = KS_OK;
  ks_store *pStore = NULL;
  ks_store_entry *pE = NULL;
  const ks_cli_opt aOpts[] = {KS_CLI_FLAG_OPT("--force", &o.bForce),
                              KS_CLI_STR_OPT("--original", &o.zOriginal, "a file"),
                              KS_CLI_STR_OPT("--optimized", &o.zOptimized, "a file"),
                              KS_CLI_STR_OPT("--arch", &o.zArch, "an arch (sm_90)"),
                              KS_CLI_STR_OPT("--evidence", &o.zEvidence, "a file"),
                              KS_CLI_STR_OPT("--task", &o.zTask, "a file"),
                              {0}};
  int ec = ks_cli_parse(&ks_cmd_store, argc, argv, 1, aOpts, &zRun, "run folder", NULL);
  if (ec) return ec;
  if (zRun && (o.zOriginal || o.zOptimized || o.zArch))
    return ks_cli_usage_error(&ks_cmd_store, "store add: give RUN_DIR or --original/--optimized/--arch, not both");
  if (!zRun && (!o.zOriginal || !o.zOptimized || !o.zArch))
    return ks_cli_usage_error(&ks_cmd_store, "store add: needs RUN_DIR, or --original, --optimized and --arch");
  if (zRun) {
    int bForce = o.bForce;
    if ((rc = ks_store_read_run(zRun, &o, &azOwned)) < 0) goto done;
    o.bForce = bForce;
  }
  if ((rc = open_store(zStore, 1, &pStore)) < 0) goto done;
  if ((rc = ks_store_add(pStore, &o, &pE)) < 0) goto done;
  printf("stored %s/%s\n  original %s (%s), %s\n", pStore->zDir, pE->zName, pE->zOrigPath, pE->zOrigHash, pE->zArch);
  fflush(stdout);
  if (!o.zEvidence)
    fprintf(stderr, "kernelskill store: warning: no --evidence: the entry records no verification\n");
done:
  if (rc < 0) ec = ks_cli_fail(rc);
  ks_store_entry_free(pE);
  ks_store_close(pStore);
  ks_store_run_free(azOwned);
  return ec;
}

/* "1.84x on NVIDIA H200" from the verification record, if any. */
static void summary(const ks_store_entry *pE, ks_buf *pOut) {
  cJSON *pDoc = cJSON_Parse(pE->zJson);
  const cJSON *pV = cJSON_GetObjectItemCaseSensitive(pDoc, "verification");
  const cJSON *pStatus = cJSON_GetObjectItemCaseSensitive(pV, "status");
  const cJSON *pTiming = cJSON_GetObjectItemCaseSensitive(pV, "timing");
  const cJSON *pSpeed = cJSON_GetObjectItemCaseSensitive(pTiming, "speedup");
  const cJSON *pGpu = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(pV, "gpu"), "name");
  ks_buf_puts(pOut, cJSON_IsString(pStatus) ? pStatus->valuestring : "?");
  if (cJSON_IsNumber(pSpeed)) ks_buf_printf(pOut, ", %.2fx", pSpeed->valuedouble);
  if (cJSON_IsString(pGpu)) ks_buf_printf(pOut, " on %s", pGpu->valuestring);
  cJSON_Delete(pDoc);
}

static int do_ls(int argc, char **argv, const char *zStore) {
  int bJson = 0, n = 0, nBad = 0, rc;
  ks_store *pStore = NULL;
  ks_store_entry **ap = NULL;
  ks_buf out = KS_BUF_INIT;
  const ks_cli_opt aOpts[] = {KS_CLI_FLAG_OPT("--json", &bJson), {0}};
  int ec = ks_cli_parse(&ks_cmd_store, argc, argv, 1, aOpts, NULL, NULL, NULL);
  if (ec) return ec;
  if ((rc = open_store(zStore, 0, &pStore)) < 0) goto done;
  if ((rc = ks_store_list(pStore, &ap, &n, &nBad)) < 0) goto done;
  if (bJson) ks_buf_puts(&out, "[");
  for (int i = 0; i < n; i++) {
    ks_buf tmp = KS_BUF_INIT;
    int nProb = 0, bStale = 0;
    ks_store_verify(pStore, ap[i], &tmp, &nProb, &bStale);
    const char *zState = nProb ? "damaged" : bStale ? "stale" : "fresh";
    ks_buf_clear(&tmp);
    summary(ap[i], &tmp);
    if (bJson) {
      ks_buf_printf(&out, "%s\n {\"name\": ", i ? "," : "");
      ks_buf_json_string(&out, ap[i]->zName);
      ks_buf_puts(&out, ", \"original\": ");
      ks_buf_json_string(&out, ap[i]->zOrigPath);
      ks_buf_printf(&out, ", \"arch\": \"%s\", \"state\": \"%s\", \"verification\": ", ap[i]->zArch, zState);
      ks_buf_json_string(&out, ks_buf_cstr(&tmp));
      ks_buf_puts(&out, "}");
    } else {
      ks_buf_printf(&out, "%-44s %-28s %-7s %-6s %s\n", ap[i]->zName, ap[i]->zOrigPath, ap[i]->zArch, zState,
                    ks_buf_cstr(&tmp));
    }
    ks_buf_free(&tmp);
  }
  if (bJson) ks_buf_puts(&out, n ? "\n]\n" : "]\n");
  else if (!n) ks_buf_printf(&out, "(no entries in %s)\n", pStore->zDir);
  fputs(ks_buf_cstr(&out), stdout);
  if (nBad) fprintf(stderr, "kernelskill store: warning: %d unreadable entr%s skipped (see `kernelskill store verify`)\n",
                    nBad, nBad == 1 ? "y" : "ies");
done:
  if (rc < 0) ec = ks_cli_fail(rc);
  ks_buf_free(&out);
  ks_store_entries_free(ap, n);
  ks_store_close(pStore);
  return ec;
}

static int do_show(int argc, char **argv, const char *zStore) {
  const char *zKey = NULL;
  int bDiff = 0, rc;
  ks_store *pStore = NULL;
  ks_store_entry *pE = NULL;
  char *zOrig = NULL, *zOpt = NULL, *zPath = NULL;
  size_t nOrig = 0, nOpt = 0;
  ks_buf out = KS_BUF_INIT;
  const ks_cli_opt aOpts[] = {KS_CLI_FLAG_OPT("--diff", &bDiff), {0}};
  int ec = ks_cli_parse(&ks_cmd_store, argc, argv, 1, aOpts, &zKey, "entry", NULL);
  if (ec) return ec;
  if (!zKey) return ks_cli_usage_error(&ks_cmd_store, "store show: which entry?");
  if ((rc = open_store(zStore, 0, &pStore)) < 0) goto done;
  if ((rc = ks_store_find(pStore, zKey, &pE)) < 0) goto done;
  if (!bDiff) {
    printf("%s/%s\n%s\n", pStore->zDir, pE->zName, pE->zJson);
    goto done;
  }
  if (!(zPath = ks_path_join(pE->zDir, "original.cu"))) {
    rc = KS_ENOMEM;
    goto done;
  }
  if ((rc = ks_file_read(zPath, &zOrig, &nOrig)) < 0) goto done;
  if ((rc = ks_store_entry_optimized(pE, &zOpt, &nOpt)) < 0) goto done;
  if ((rc = ks_rewrite_diff(pE->zOrigPath, zOrig, nOrig, zOpt, nOpt, &out)) < 0) goto done;
  fputs(ks_buf_cstr(&out), stdout);
done:
  if (rc < 0) ec = ks_cli_fail(rc);
  ks_buf_free(&out);
  free(zOrig);
  free(zOpt);
  free(zPath);
  ks_store_entry_free(pE);
  ks_store_close(pStore);
  return ec;
}

static int do_rm(int argc, char **argv, const char *zStore) {
  int rc = KS_OK, ec = KS_EXIT_OK;
  ks_store *pStore = NULL;
  if (argc < 2) return ks_cli_usage_error(&ks_cmd_store, "store rm: which entries?");
  if ((rc = open_store(zStore, 0, &pStore)) < 0) goto done;
  for (int i = 1; i < argc; i++) {
    ks_store_entry *pE = NULL;
    if ((rc = ks_store_find(pStore, argv[i], &pE)) < 0) goto done;
    rc = ks_store_remove(pE);
    if (rc == KS_OK) printf("removed %s\n", pE->zName);
    ks_store_entry_free(pE);
    if (rc < 0) goto done;
  }
done:
  if (rc < 0) ec = ks_cli_fail(rc);
  ks_store_close(pStore);
  return ec;
}

static int do_verify(int argc, char **argv, const char *zStore) {
  int rc = KS_OK, ec = KS_EXIT_OK, n = 0, nBad = 0, nProblems = 0, nStale = 0;
  ks_store *pStore = NULL;
  ks_store_entry **ap = NULL;
  ks_buf out = KS_BUF_INIT;
  if ((rc = open_store(zStore, 0, &pStore)) < 0) goto done;
  if (argc > 1) {
    if (!(ap = calloc((size_t)argc, sizeof *ap))) {
      rc = ks_error_set(KS_ENOMEM, "out of memory");
      goto done;
    }
    for (int i = 1; i < argc; i++) {
      if ((rc = ks_store_find(pStore, argv[i], &ap[n])) < 0) goto done;
      n++;
    }
  } else {
    if ((rc = ks_store_list(pStore, &ap, &n, &nBad)) < 0) goto done;
  }
  for (int i = 0; i < n; i++) {
    int nP = 0, bStale = 0;
    if ((rc = ks_store_verify(pStore, ap[i], &out, &nP, &bStale)) < 0) goto done;
    nProblems += nP;
    nStale += bStale;
  }
  if (nBad) ks_buf_printf(&out, "problem: %d entr%s with a missing or malformed entry.json\n", nBad, nBad == 1 ? "y" : "ies");
  ks_buf_printf(&out, "%d entr%s checked: %d problem%s, %d stale\n", n, n == 1 ? "y" : "ies", nProblems + nBad,
                nProblems + nBad == 1 ? "" : "s", nStale);
  fputs(ks_buf_cstr(&out), stdout);
  if (nProblems + nBad) ec = KS_EXIT_INPUT;
done:
  if (rc < 0) ec = ks_cli_fail(rc);
  ks_buf_free(&out);
  ks_store_entries_free(ap, n);
  ks_store_close(pStore);
  return ec;
}

static int run_store(int argc, char **argv) {
  const char *zStore = NULL;
  /* --store DIR may come anywhere; take it out before the sub-subcommand sees argv. */
  char **azArgs = calloc((size_t)argc + 1, sizeof(char *));
  int nArgs = 0, ec;
  if (!azArgs) return ks_cli_fail(ks_error_set(KS_ENOMEM, "out of memory"));
  const ks_cli_opt aOpts[] = {KS_CLI_STR_OPT("--store", &zStore, "a folder"), {0}};
  for (int i = 1; i < argc; i++) {
    int m = ks_cli_match(&ks_cmd_store, argc, argv, &i, aOpts);
    if (m < 0) {
      free(azArgs);
      return KS_EXIT_ENV;
    }
    if (m == 0) azArgs[nArgs++] = argv[i];
  }
  if (nArgs == 0) {
    free(azArgs);
    return ks_cli_usage_error(&ks_cmd_store, "store: which action? (add, ls, show, rm, verify)");
  }
  const char *zAct = azArgs[0];
  if (strcmp(zAct, "add") == 0) ec = do_add(nArgs, azArgs, zStore);
  else if (strcmp(zAct, "ls") == 0 || strcmp(zAct, "list") == 0) ec = do_ls(nArgs, azArgs, zStore);
  else if (strcmp(zAct, "show") == 0) ec = do_show(nArgs, azArgs, zStore);
  else if (strcmp(zAct, "rm") == 0) ec = do_rm(nArgs, azArgs, zStore);
  else if (strcmp(zAct, "verify") == 0) ec = do_verify(nArgs, azArgs, zStore);
  else ec = ks_cli_usage_error(&ks_cmd_store, "store: unknown action '%s' (add, ls, show, rm, verify)", zAct);
  free(azArgs);
  return ec;
}

const ks_cmd ks_cmd_store = {"store", "manage the verified-rewrite store that kernelskill-nvcc substitutes from",
                             zUsage, run_store, 70};
