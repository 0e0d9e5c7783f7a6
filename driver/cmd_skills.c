/* cmd_skills.c — `kernelskill skills list|show ID|check`: browse the skill
 * corpus (built-in + KS_SKILLS_PATH + --skills folders), write the catalogue
 * (docs/skills.md), and validate every skill file (CI runs `skills check`). */
#include "cli.h"
#include "kernelskill/rewrite.h"
#include "kernelskill/skills.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char zUsage[] =
    "usage: kernelskill skills list [--json | --markdown] [--skills DIR]...\n"
    "       kernelskill skills show ID [--json] [--skills DIR]...\n"
    "       kernelskill skills check [--skills DIR]... [--only DIR]...\n"
    "\n"
    "The skill corpus: the built-in skills (share/kernelskill/skills), then the\n"
    "folders of KS_SKILLS_PATH (colon-separated), then each --skills DIR; a later\n"
    "skill with the same id overrides an earlier one (`show` says so).\n"
    "\n"
    "  list        one line per skill; --markdown writes the catalogue (docs/skills.md)\n"
    "  show ID     everything about one skill\n"
    "  check       validate every skill file: JSON, members, conditions (unknown\n"
    "              fields, type errors, with file:line:col), rewrite rule ids and\n"
    "              parameters against the rule table, duplicate ids, file and\n"
    "              folder names. --only DIR checks just that folder.\n"
    "\n"
    "Exit codes: 0 ok; 1 a skill has a problem, or no such skill; 2 usage or\n"
    "environment error.\n";

extern const ks_cmd ks_cmd_skills;

#define MAX_DIRS 16

/* The rule registry, injected into `skills check` (skills sit below rewrite). */
static const char *const *rule_params(void *pCtx, const char *zRule, int *pbFound) {
  (void)pCtx;
  const ks_rule *pRule = ks_rule_find(zRule);
  *pbFound = pRule != NULL;
  return pRule ? pRule->azParams : NULL;
}

static int note_only(const ks_cli_opt *pOpt, const ks_cmd *pCmd, const char *zVal) {
  (void)pCmd, (void)zVal;
  *(int *)pOpt->pCtx = 1;
  return 0;
}

static int run_skills(int argc, char **argv) {
  const char *azDirs[MAX_DIRS];
  int nDirs = 0, bJson = 0, bMarkdown = 0, bOnly = 0;
  const char *zVerb = NULL, *zId = NULL;
  const ks_cli_opt aOpts[] = {
      KS_CLI_FLAG_OPT("--json", &bJson),
      KS_CLI_FLAG_OPT("--markdown", &bMarkdown),
      KS_CLI_LIST_OPT("--skills", azDirs, &nDirs, MAX_DIRS, "a folder", "at most %d folders"),
      {.zName = "--only", .eKind = KS_CLI_LIST, .pVar = azDirs, .pnList = &nDirs, .nMax = MAX_DIRS, .zNeeds = "a folder",
       .zFull = "at most %d folders", .xFn = note_only, .pCtx = &bOnly},
      {0}};
  for (int i = 1; i < argc; i++) {
    int m = ks_cli_match(&ks_cmd_skills, argc, argv, &i, aOpts);
    if (m < 0) return KS_EXIT_ENV;
    if (m > 0) continue;
    if (argv[i][0] == '-' && argv[i][1]) return ks_cli_usage_error(&ks_cmd_skills, "unknown option '%s'", argv[i]);
    if (!zVerb) zVerb = argv[i];
    else if (!zId && strcmp(zVerb, "show") == 0) zId = argv[i];
    else return ks_cli_usage_error(&ks_cmd_skills, "unexpected argument '%s'", argv[i]);
  }
  if (!zVerb) return ks_cli_usage_error(&ks_cmd_skills, "say list, show ID or check");
  if (bJson && bMarkdown) return ks_cli_usage_error(&ks_cmd_skills, "--json or --markdown, not both");
  if (bOnly && strcmp(zVerb, "check") != 0) return ks_cli_usage_error(&ks_cmd_skills, "--only goes with check");

  ks_skills_opts so = KS_SKILLS_OPTS_INIT;
  so.azDirs = azDirs;
  so.nDirs = nDirs;
  so.bNoBuiltin = bOnly;
  so.bNoEnv = bOnly;
  so.xRuleParams = rule_params;
  ks_buf out = KS_BUF_INIT;
  ks_skillset *pSet = NULL;
  int rc = KS_OK, ec = KS_EXIT_OK;

  if (strcmp(zVerb, "check") == 0) {
    int nProblems = 0, nSkills = 0;
    if ((rc = ks_skills_check(&so, &out, &nProblems, &nSkills)) < 0) goto done;
    fputs(ks_buf_cstr(&out), stderr);
    if (nProblems) {
      fprintf(stderr, "kernelskill skills check: %d problem%s in %d skill file%s\n", nProblems,
              nProblems == 1 ? "" : "s", nSkills + 0, nSkills == 1 ? "" : "s");
      ec = KS_EXIT_INPUT;
    } else {
      printf("kernelskill skills check: %d skill%s, no problems\n", nSkills, nSkills == 1 ? "" : "s");
    }
    goto done;
  }
  if (strcmp(zVerb, "list") && strcmp(zVerb, "show"))
    return ks_cli_usage_error(&ks_cmd_skills, "unknown action '%s' (list, show, check)", zVerb);
  if (strcmp(zVerb, "show") == 0 && !zId) return ks_cli_usage_error(&ks_cmd_skills, "show needs a skill id");
  if (bMarkdown && strcmp(zVerb, "list") != 0) return ks_cli_usage_error(&ks_cmd_skills, "--markdown goes with list");
  if ((rc = ks_skills_load(&so, &pSet)) < 0) goto done;
  if (strcmp(zVerb, "show") == 0) {
    const ks_skill *s = ks_skills_find(pSet, zId);
    if (!s) {
      rc = ks_error_set(KS_ENOTFOUND, "no skill '%s' (see 'kernelskill skills list')", zId);
      goto done;
    }
    if (bJson) {
      ks_skill_json(s, &out);
      ks_buf_puts(&out, "\n");
    } else {
      ks_skill_describe(s, &out);
    }
  } else if (bMarkdown) {
    ks_skills_markdown(pSet, &out);
  } else if (bJson) {
    ks_buf_puts(&out, "[");
    for (int i = 0; i < pSet->n; i++) {
      ks_buf_puts(&out, i ? ",\n " : "");
      ks_skill_json(pSet->a[i], &out);
    }
    ks_buf_puts(&out, "]\n");
  } else {
    for (int i = 0; i < pSet->n; i++) {
      const ks_skill *s = pSet->a[i];
      ks_buf_printf(&out, "%-28s %-17s %3d  %s%s\n", s->zId, s->zCategory, s->iPriority, s->zTitle,
                    s->zOverrides ? "  (user override)" : "");
    }
  }
  fputs(ks_buf_cstr(&out), stdout);
done:
  if (rc < 0) ec = ks_cli_fail(rc);
  ks_buf_free(&out);
  ks_skills_free(pSet);
  return ec;
}

const ks_cmd ks_cmd_skills = {"skills", "list, show and check the skill corpus", zUsage, run_skills, 31};
