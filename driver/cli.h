/* cli.h — what every `kernelskill` subcommand shares: its descriptor, and small
 * helpers for option parsing and error reporting with the CLI's exit codes. */
#ifndef KS_DRIVER_CLI_H
#define KS_DRIVER_CLI_H

#include "kernelskill/common.h"

typedef struct ks_cmd {
  const char *zName;    /* "features" */
  const char *zSummary; /* one line for `kernelskill --help` */
  const char *zUsage;   /* full text for `kernelskill NAME --help` */
  int (*xRun)(int argc, char **argv); /* argv[0] is the subcommand; returns an exit code */
  int iOrder;           /* position in the help listing (lower first) */
} ks_cmd;

extern const ks_cmd *const ks_cmd_table[];

/* Print "kernelskill: error: MSG" to stderr; returns exit code 2 (usage). */
int ks_cli_usage_error(const ks_cmd *pCmd, const char *zFmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Report a library error (rc < 0, message from ks_error_msg()) and return
 * the exit code it maps to. */
int ks_cli_fail(int rc);
/* True if arg is -h or --help. */
int ks_cli_is_help(const char *zArg);
/* Match "--name" (value in next argv) or "--name=value". Advances *pi when
 * the value is separate. Returns 1 on match (value in *pzVal), 0 if not the
 * option, -1 if the value is missing. */
int ks_cli_opt_value(int argc, char **argv, int *pi, const char *zName, const char **pzVal);

#endif
