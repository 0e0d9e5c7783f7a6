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

/* What an option of a subcommand is. A table of them, ended by {0}, declares a
 * subcommand's options; ks_cli_parse (or ks_cli_match, for a command with an
 * argument of its own shape) replaces the loop of strcmp/ks_cli_opt_value. */
typedef enum ks_cli_kind {
  KS_CLI_END = 0,
  KS_CLI_FLAG,  /* --json: *(int *)pVar = 1 */
  KS_CLI_CLEAR, /* --no-metrics: *(int *)pVar = 0 */
  KS_CLI_STR,  /* --kernel K: *(const char **)pVar = K */
  KS_CLI_INT,  /* --runs N: a whole number nMin..nMax (ks_cli_count) into *(int *)pVar */
  KS_CLI_LIST, /* --skills DIR, again and again: ((const char **)pVar)[(*pnList)++], at most nMax;
                * xFn, when set, checks each value first */
  KS_CLI_FN,   /* --init MODE: xFn checks the value and keeps it in pVar */
} ks_cli_kind;

typedef struct ks_cli_opt {
  const char *zName;  /* "--runs" */
  const char *zAlias; /* another spelling ("-v" for "--verbose"), or NULL */
  ks_cli_kind eKind;
  void *pVar;         /* where the value goes (see ks_cli_kind) */
  /* A missing (or, KS_CLI_INT, bad) value is the usage error "NAME needs WHAT";
   * NULL says "a value". */
  const char *zNeeds;
  long nMin, nMax;    /* KS_CLI_INT: the range; KS_CLI_LIST: nMax is the room in pVar */
  int *pnList;        /* KS_CLI_LIST: how many pVar holds */
  const char *zFull;  /* KS_CLI_LIST: printf format (one int, nMax) for a full list; NULL: "too many NAME options" */
  int bNonEmpty;      /* KS_CLI_STR, KS_CLI_LIST, KS_CLI_FN: an empty value counts as missing */
  /* KS_CLI_FN, KS_CLI_LIST: 0, or an exit code with the usage error printed. */
  int (*xFn)(const struct ks_cli_opt *pOpt, const ks_cmd *pCmd, const char *zVal);
  void *pCtx; /* whatever else xFn needs */
} ks_cli_opt;

/* The common entries; a KS_CLI_FN entry or one with more fields is written out. */
#define KS_CLI_FLAG_OPT(NAME, PB) {.zName = (NAME), .eKind = KS_CLI_FLAG, .pVar = (PB)}
#define KS_CLI_STR_OPT(NAME, PZ, NEEDS) {.zName = (NAME), .eKind = KS_CLI_STR, .pVar = (PZ), .zNeeds = (NEEDS)}
#define KS_CLI_INT_OPT(NAME, PN, MIN, MAX, NEEDS) \
  {.zName = (NAME), .eKind = KS_CLI_INT, .pVar = (PN), .nMin = (MIN), .nMax = (MAX), .zNeeds = (NEEDS)}
#define KS_CLI_LIST_OPT(NAME, AZ, PN, MAX, NEEDS, FULL) \
  {.zName = (NAME), .eKind = KS_CLI_LIST, .pVar = (AZ), .pnList = (PN), .nMax = (MAX), .zNeeds = (NEEDS), .zFull = (FULL)}

/* Match argv[*pi] against the table (values as ks_cli_opt_value: "--name V" or
 * "--name=V"; a flag only as itself). Returns 1 when an entry matched and took
 * its value, 0 when none matched, -1 when the value is missing or bad: the usage
 * error is already printed, return KS_EXIT_ENV. */
int ks_cli_match(const ks_cmd *pCmd, int argc, char **argv, int *pi, const ks_cli_opt *aOpts);

/* The whole command line of a subcommand from argv[iFirst] on: every option in
 * aOpts, at most one operand into *pzOperand (ks_cli_operand; pzOperand NULL:
 * none is taken, "unexpected argument"), and, when piRest is not NULL, "--"
 * ending the options (*piRest: the index after it; argc when there is none).
 * Returns 0, or KS_EXIT_ENV with the usage error printed. */
int ks_cli_parse(const ks_cmd *pCmd, int argc, char **argv, int iFirst, const ks_cli_opt *aOpts,
                 const char **pzOperand, const char *zWhat, int *piRest);

/* An argument no option of the command matched: "-x" is an unknown option;
 * anything else fills *pzOperand, once (a second is "one WHAT at a time").
 * Returns 0, or KS_EXIT_ENV with the usage error printed. */
int ks_cli_operand(const ks_cmd *pCmd, const char *zArg, const char **pzOperand, const char *zWhat);

#endif
