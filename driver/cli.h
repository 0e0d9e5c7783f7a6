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

/* A whole decimal number in nMin..nMax (no sign games, no trailing text, not
 * empty) into *pn: 0, or -1 when zVal is not one (NULL included). */
int ks_cli_count(const char *zVal, long nMin, long nMax, int *pn);

/* An option that takes one string value: a table of them, ended by {0},
 * replaces a chain of ks_cli_opt_value calls. */
typedef struct ks_cli_value_opt {
  const char *zName;  /* "--kernel" */
  const char **pzVar; /* where the value goes */
  const char *zWhat;  /* for "--kernel needs a value": NULL says "a value" */
} ks_cli_value_opt;

/* Match argv[*pi] against the table (as ks_cli_opt_value). Returns 1 when an
 * entry matched (its value stored), 0 when none did, -1 when the value is
 * missing: the usage error is already printed, return KS_EXIT_ENV. */
int ks_cli_value_opts(const ks_cmd *pCmd, int argc, char **argv, int *pi, const ks_cli_value_opt *aOpts);

/* An argument no option of the command matched: "-x" is an unknown option;
 * anything else fills *pzOperand, once (a second is "one WHAT at a time").
 * Returns 0, or KS_EXIT_ENV with the usage error printed. */
int ks_cli_operand(const ks_cmd *pCmd, const char *zArg, const char **pzOperand, const char *zWhat);

#endif
