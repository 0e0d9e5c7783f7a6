/* cli.c — option and error helpers shared by the subcommands. */
#include "cli.h"

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

int ks_cli_value_opts(const ks_cmd *pCmd, int argc, char **argv, int *pi, const ks_cli_value_opt *aOpts) {
  for (int k = 0; aOpts[k].zName; k++) {
    const char *zVal;
    int m = ks_cli_opt_value(argc, argv, pi, aOpts[k].zName, &zVal);
    if (m < 0) {
      ks_cli_usage_error(pCmd, "%s needs %s", aOpts[k].zName, aOpts[k].zWhat ? aOpts[k].zWhat : "a value");
      return -1;
    }
    if (m > 0) {
      *aOpts[k].pzVar = zVal;
      return 1;
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
