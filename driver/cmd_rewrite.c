/* cmd_rewrite.c — `kernelskill rewrite`: apply one deterministic rewrite rule to
 * one kernel of a .cu file and print, write or diff the result. */
#include "cli.h"
#include "kernelskill/rewrite.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char zUsage[] =
    "usage: kernelskill rewrite FILE.cu --kernel K --rule ID [--param k=v ...] [--skill SKILL_ID]\n"
    "                           [--round N] [-o OUT] [--diff] [--json] [-- CLANG_ARGS...]\n"
    "       kernelskill rewrite --list [--json]\n"
    "\n"
    "Apply rule ID to kernel K of FILE.cu. The rule checks its preconditions on the\n"
    "libclang AST and edits only the byte ranges it must; each change carries a\n"
    "provenance comment '// kernelskill: <skill> (rule <id>) <what>' on the line above.\n"
    "\n"
    "Options:\n"
    "  --kernel K      the kernel to rewrite (required)\n"
    "  --rule ID       the rule (see --list)\n"
    "  --param k=v     a rule parameter (repeatable)\n"
    "  --skill ID      skill id named in the provenance comment (default rule:<id>)\n"
    "  --round N       loop round named in the provenance comment\n"
    "  -o OUT          write the result to OUT (atomically); FILE itself only when named\n"
    "                  explicitly. Without -o the result goes to stdout\n"
    "  --diff          print a unified diff instead of the whole file\n"
    "  --json          print {\"ks_rewrite\":1, \"status\", \"message\", \"diff\", ...}\n"
    "  --list          list the rules and their parameters\n"
    "  -- ARGS...      more clang arguments (-I, -D, ...)\n"
    "\n"
    "Exit codes: 0 rewritten, or already applied (says so; nothing written when -o\n"
    "names FILE); 1 the rule refuses (precondition fails: the reason is printed, no file\n"
    "is written), unknown kernel, errors in FILE; 2 usage or environment error.\n";

extern const ks_cmd ks_cmd_rewrite;

static int list_rules(int bJson) {
  if (bJson) {
    cJSON *pRoot = cJSON_CreateObject();
    cJSON *pArr = cJSON_AddArrayToObject(pRoot, "rules");
    for (int i = 0; ks_rule_table[i]; i++) {
      const ks_rule *r = ks_rule_table[i];
      cJSON *pR = cJSON_CreateObject();
      cJSON_AddStringToObject(pR, "id", r->zId);
      cJSON_AddStringToObject(pR, "summary", r->zSummary ? r->zSummary : "");
      cJSON *pP = cJSON_AddArrayToObject(pR, "params");
      for (int k = 0; r->azParams && r->azParams[k]; k++) cJSON_AddItemToArray(pP, cJSON_CreateString(r->azParams[k]));
      cJSON_AddItemToArray(pArr, pR);
    }
    char *z = cJSON_Print(pRoot);
    if (z) puts(z);
    free(z);
    cJSON_Delete(pRoot);
    return KS_EXIT_OK;
  }
  for (int i = 0; ks_rule_table[i]; i++) {
    const ks_rule *r = ks_rule_table[i];
    printf("%-16s %s", r->zId, r->zSummary ? r->zSummary : "");
    if (r->azParams && r->azParams[0]) {
      printf(" [params:");
      for (int k = 0; r->azParams[k]; k++) printf(" %s=", r->azParams[k]);
      printf("]");
    }
    printf("\n");
  }
  return KS_EXIT_OK;
}

static void print_json(const char *zFile, const char *zKernel, const char *zRule, const char *zStatus,
                       const char *zMsg, const char *zOut, const char *zDiff) {
  cJSON *pRoot = cJSON_CreateObject();
  cJSON_AddNumberToObject(pRoot, "ks_rewrite", 1);
  cJSON_AddStringToObject(pRoot, "file", zFile);
  cJSON_AddStringToObject(pRoot, "kernel", zKernel ? zKernel : "");
  cJSON_AddStringToObject(pRoot, "rule", zRule ? zRule : "");
  cJSON_AddStringToObject(pRoot, "status", zStatus);
  cJSON_AddStringToObject(pRoot, "message", zMsg ? zMsg : "");
  if (zOut) cJSON_AddStringToObject(pRoot, "output", zOut);
  else cJSON_AddNullToObject(pRoot, "output");
  if (zDiff) cJSON_AddStringToObject(pRoot, "diff", zDiff);
  char *z = cJSON_Print(pRoot);
  if (z) puts(z);
  free(z);
  cJSON_Delete(pRoot);
}

static int take_round(const ks_cli_opt *pOpt, const ks_cmd *pCmd, const char *zVal) {
  if (ks_cli_count(zVal, 0, 1000000, (int *)pOpt->pVar) < 0)
    return ks_cli_usage_error(pCmd, "%s needs a non-negative number, not '%s'", pOpt->zName, zVal);
  return 0;
}

static int run_rewrite(int argc, char **argv) {
  const char *zFile = NULL, *zKernel = NULL, *zRule = NULL, *zSkill = NULL, *zOut = NULL;
  int bDiff = 0, bJson = 0, bList = 0, iRound = 0, iExtra = argc;
  const char **azParam = calloc((size_t)argc + 1, sizeof(char *));
  int nParam = 0;
  const ks_cli_opt aOpts[] = {
      KS_CLI_FLAG_OPT("--diff", &bDiff),
      KS_CLI_FLAG_OPT("--json", &bJson),
      KS_CLI_FLAG_OPT("--list", &bList),
      KS_CLI_STR_OPT("--kernel", &zKernel, 0),
      KS_CLI_STR_OPT("--rule", &zRule, 0),
      KS_CLI_STR_OPT("--skill", &zSkill, 0),
      KS_CLI_STR_OPT("-o", &zOut, "a file"),
      KS_CLI_LIST_OPT("--param", azParam, &nParam, argc, 0, 0),
      {.zName = "--round", .eKind = KS_CLI_FN, .pVar = &iRound, .xFn = take_round},
      {0}};
  if (!azParam) return ks_cli_fail(ks_error_set(KS_ENOMEM, "out of memory"));
  int ec = ks_cli_parse(&ks_cmd_rewrite, argc, argv, 1, aOpts, &zFile, "file", &iExtra);
  if (ec) goto done;
  if (bList) {
    ec = list_rules(bJson);
    goto done;
  }
  if (!zFile) {
    ec = ks_cli_usage_error(&ks_cmd_rewrite, "no input file");
    goto done;
  }
  if (!zKernel || !zRule) {
    ec = ks_cli_usage_error(&ks_cmd_rewrite, "--kernel and --rule are required");
    goto done;
  }
  if (!ks_rule_find(zRule)) {
    ec = ks_cli_usage_error(&ks_cmd_rewrite, "no rule '%s' (see 'kernelskill rewrite --list')", zRule);
    goto done;
  }

  ks_parse_opts po = KS_PARSE_OPTS_INIT;
  po.azExtraArgs = (const char *const *)(argv + iExtra);
  po.nExtraArgs = argc - iExtra;
  ks_tu *pTu = NULL;
  int rc = ks_tu_parse(zFile, &po, &pTu);
  if (rc < 0) {
    if (bJson) print_json(zFile, zKernel, zRule, "error", ks_error_msg(), NULL, NULL);
    ec = ks_cli_fail(rc);
    goto done;
  }
  ks_rewrite_opts ro = KS_REWRITE_OPTS_INIT;
  ro.zKernel = zKernel;
  ro.zRule = zRule;
  ro.azParams = azParam;
  ro.nParams = nParam;
  ro.zSkill = zSkill;
  ro.iRound = iRound;
  char *zNew = NULL;
  size_t nNew = 0, nSrc = 0;
  const char *zSrc = ks_tu_source(pTu, &nSrc);
  rc = ks_rewrite_apply(pTu, &ro, &zNew, &nNew);
  if (rc == KS_ENOCHANGE) {
    /* Already applied: say so; FILE stays as it is. A distinct -o gets the
     * unchanged text, so that a chain of rules in a script keeps working. */
    char zMsg[2100];
    snprintf(zMsg, sizeof zMsg, "already applied: %s", ks_error_msg());
    int bSame = zOut && strcmp(zOut, zFile) == 0;
    if (zOut && !bSame && (rc = ks_file_write_atomic(zOut, zSrc, nSrc)) < 0) {
      ec = ks_cli_fail(rc);
    } else {
      if (bJson) print_json(zFile, zKernel, zRule, "already", zMsg, zOut, bDiff ? "" : NULL);
      else if (!zOut && !bDiff) fwrite(zSrc, 1, nSrc, stdout);
      fprintf(stderr, "kernelskill: %s\n", zMsg);
      ec = KS_EXIT_OK;
    }
  } else if (rc < 0) {
    if (bJson) print_json(zFile, zKernel, zRule, rc == KS_EPRECOND ? "refused" : "error", ks_error_msg(), NULL, NULL);
    ec = ks_cli_fail(rc);
  } else {
    ks_buf diff = KS_BUF_INIT;
    if (bDiff || bJson) rc = ks_rewrite_diff(zFile, zSrc, nSrc, zNew, nNew, &diff);
    if (rc == KS_OK && zOut) rc = ks_file_write_atomic(zOut, zNew, nNew);
    if (rc < 0) {
      ec = ks_cli_fail(rc);
    } else if (bJson) {
      print_json(zFile, zKernel, zRule, "applied", "", zOut, ks_buf_cstr(&diff));
    } else if (bDiff) {
      fputs(ks_buf_cstr(&diff), stdout);
    } else if (!zOut) {
      fwrite(zNew, 1, nNew, stdout);
    }
    ks_buf_free(&diff);
  }
  free(zNew);
  ks_tu_free(pTu);
done:
  free(azParam);
  return ec;
}

const ks_cmd ks_cmd_rewrite = {"rewrite", "apply a deterministic rewrite rule to a kernel (offline Optimizer)", zUsage,
                               run_rewrite, 40};
