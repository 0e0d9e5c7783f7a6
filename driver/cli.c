/* cli.c — option and error helpers shared by the subcommands. */
#include "cli.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ks_cli_usage_error(const ks_cmd *pCmd, const char *zFmt, ...) {
  va_list ap;
  fprintf(stderr, "kernelskill%s%s: error: ", pCmd ? " " : "", pCmd ? pCmd->zName : "");
  va_start(ap, zFmt);
  vfprintf(stderr, zFmt, ap);
  va_end(ap);
  fprintf(stderr, "\n(see 'kernelskill %s%s--help')\n", pCmd ? pCmd->zName : "", pCmd ? " " : "");
  return KS_EXIT_ENV;
}

int ks_cli_fail(int rc) {
  const char *zMsg = ks_error_msg();
  fprintf(stderr, "kernelskill: error: %s\n", zMsg[0] ? zMsg : ks_error_name(rc));
  return ks_error_exit_code(rc);
}

int ks_cli_is_help(const char *zArg) {
  return strcmp(zArg, "-h") == 0 || strcmp(zArg, "--help") == 0;
}

int ks_cli_opt_value(int argc, char **argv, int *pi, const char *zName, const char **pzVal) {
  const char *zArg = argv[*pi];
  size_t n = strlen(zName);
  if (strncmp(zArg, zName, n) != 0) return 0;
  if (zArg[n] == '=') {
    *pzVal = zArg + n + 1;
    return 1;
  }
  if (zArg[n] != 0) return 0;
  if (*pi + 1 >= argc) return -1;
  *pzVal = argv[++*pi];
  return 1;
}

/* The value of a value-taking entry in argv[*pi], under either spelling. */
static int opt_value(int argc, char **argv, int *pi, const ks_cli_opt *pOpt, const char **pzVal) {
  int m = ks_cli_opt_value(argc, argv, pi, pOpt->zName, pzVal);
  if (m == 0 && pOpt->zAlias) m = ks_cli_opt_value(argc, argv, pi, pOpt->zAlias, pzVal);
  return m;
}

static int needs(const ks_cmd *pCmd, const ks_cli_opt *pOpt) {
  return ks_cli_usage_error(pCmd, "%s needs %s", pOpt->zName, pOpt->zNeeds ? pOpt->zNeeds : "a value");
}

/* Give one matched entry its value: 0, or an exit code with the usage error printed. */
static int take_value(const ks_cmd *pCmd, const ks_cli_opt *pOpt, const char *zVal) {
  switch (pOpt->eKind) {
  case KS_CLI_STR:
    *(const char **)pOpt->pVar = zVal;
    return 0;
  case KS_CLI_INT:
    return ks_cli_count(zVal, pOpt->nMin, pOpt->nMax, (int *)pOpt->pVar) < 0 ? needs(pCmd, pOpt) : 0;
  case KS_CLI_LIST: {
    int ec = pOpt->xFn ? pOpt->xFn(pOpt, pCmd, zVal) : 0;
    if (ec) return ec;
    if (*pOpt->pnList >= pOpt->nMax) {
      if (!pOpt->zFull) return ks_cli_usage_error(pCmd, "too many %s options", pOpt->zName);
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#endif
      return ks_cli_usage_error(pCmd, pOpt->zFull, (int)pOpt->nMax);
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
    }
    ((const char **)pOpt->pVar)[(*pOpt->pnList)++] = zVal;
    return 0;
  }
  case KS_CLI_FN:
    return pOpt->xFn(pOpt, pCmd, zVal);
  default:
    assert(!"a flag takes no value");
    return KS_EXIT_ENV;
  }
}

int ks_cli_match(const ks_cmd *pCmd, int argc, char **argv, int *pi, const ks_cli_opt *aOpts) {
  const char *zArg = argv[*pi];
  for (const ks_cli_opt *pOpt = aOpts; pOpt->zName; pOpt++) {
    if (pOpt->eKind == KS_CLI_FLAG || pOpt->eKind == KS_CLI_CLEAR) {
      if (strcmp(zArg, pOpt->zName) && (!pOpt->zAlias || strcmp(zArg, pOpt->zAlias))) continue;
      *(int *)pOpt->pVar = pOpt->eKind == KS_CLI_FLAG;
      return 1;
    }
    const char *zVal;
    int m = opt_value(argc, argv, pi, pOpt, &zVal);
    if (m == 0) continue;
    if (m < 0 || (pOpt->bNonEmpty && !zVal[0])) {
      needs(pCmd, pOpt);
      return -1;
    }
    return take_value(pCmd, pOpt, zVal) ? -1 : 1;
  }
  return 0;
}

int ks_cli_parse(const ks_cmd *pCmd, int argc, char **argv, int iFirst, const ks_cli_opt *aOpts,
                 const char **pzOperand, const char *zWhat, int *piRest) {
  if (piRest) *piRest = argc;
  for (int i = iFirst; i < argc; i++) {
    int m;
    if (piRest && strcmp(argv[i], "--") == 0) {
      *piRest = i + 1;
      break;
    }
    if ((m = ks_cli_match(pCmd, argc, argv, &i, aOpts)) != 0) {
      if (m < 0) return KS_EXIT_ENV;
    } else if (pzOperand) {
      if (ks_cli_operand(pCmd, argv[i], pzOperand, zWhat) != 0) return KS_EXIT_ENV;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      return ks_cli_usage_error(pCmd, "unknown option '%s'", argv[i]);
    } else {
      return ks_cli_usage_error(pCmd, "unexpected argument '%s'", argv[i]);
    }
  }
  return 0;
}

int ks_cli_operand(const ks_cmd *pCmd, const char *zArg, const char **pzOperand, const char *zWhat) {
  if (zArg[0] == '-' && zArg[1]) return ks_cli_usage_error(pCmd, "unknown option '%s'", zArg);
  if (*pzOperand)
    return ks_cli_usage_error(pCmd, "one %s at a time (got '%s' and '%s')", zWhat, *pzOperand, zArg);
  *pzOperand = zArg;
  return 0;
}

int ks_cli_count(const char *zVal, long nMin, long nMax, int *pn) {
  char *zEnd;
  if (!zVal || !zVal[0]) return -1;
  long n = strtol(zVal, &zEnd, 10);
  if (*zEnd || n < nMin || n > nMax) return -1;
  *pn = (int)n;
  return 0;
}
