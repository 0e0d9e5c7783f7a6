/* kernelskill/proc.h — the one monotonic clock and the one way to run a child
 * process (part of the common module, below every other one).
 *
 * The clock is injectable: a module that waits or measures takes a
 * `const ks_clock *` (NULL: the real monotonic clock), so a test can drive a
 * timeout by advancing a fake clock instead of sleeping on the wall clock.
 *
 * A child is spawned with an argv, an optional environment, working folder
 * and redirections; it runs in its own process group when asked, so that a
 * timeout or ks_proc_kill() ends the whole tree (a compiler and its cc1, a
 * harness and what it forked). Every wait retries on EINTR. */
#ifndef KERNELSKILL_PROC_H
#define KERNELSKILL_PROC_H

#include <sys/types.h>

#include "kernelskill/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the clock ---- */

typedef struct ks_clock {
  unsigned version;
  double (*xNow)(void *pCtx);              /* seconds, monotonic; NULL: the real clock */
  void (*xSleep)(void *pCtx, double rSec); /* NULL: nanosleep */
  void *pCtx;
} ks_clock;

#define KS_CLOCK_VERSION 1
#define KS_CLOCK_INIT {.version = KS_CLOCK_VERSION, .xNow = 0, .xSleep = 0, .pCtx = 0}

/* Seconds on pClock (NULL: CLOCK_MONOTONIC). */
double ks_clock_now(const ks_clock *pClock);
/* Sleep rSec on pClock (a fake clock may just advance itself). */
void ks_clock_sleep(const ks_clock *pClock, double rSec);

/* ---- child processes ---- */

typedef struct ks_proc_opts {
  unsigned version;
  char *const *azEnv;          /* the child's whole environment; NULL: ours */
  const char *const *azSetEnv; /* "NAME=VALUE" set on top of it (before exec) */
  const char *zCwd;            /* folder the child starts in; NULL: ours */
  const char *zStdin;          /* file for stdin (e.g. "/dev/null"); NULL: ours */
  const char *zStdout;         /* file that receives stdout (truncated); NULL: ours */
  const char *zStderr;         /* same for stderr */
  int bPipe;                   /* stdout and stderr into one pipe: ks_proc_fd() */
  int bDiscard;                /* stdout and stderr to /dev/null */
  int bNewGroup;               /* own process group: kill and timeout end the tree */
  int bSearchPath;             /* argv[0] without '/' is looked up on PATH */
  double rTimeout;             /* seconds from the spawn; <= 0: none */
  const ks_clock *pClock;      /* the clock of the timeout; NULL: the real one */
} ks_proc_opts;

#define KS_PROC_OPTS_VERSION 1
#define KS_PROC_OPTS_INIT                                                                                        \
  {.version = KS_PROC_OPTS_VERSION, .azEnv = 0, .azSetEnv = 0, .zCwd = 0, .zStdin = 0, .zStdout = 0,              \
   .zStderr = 0, .bPipe = 0, .bDiscard = 0, .bNewGroup = 0, .bSearchPath = 0, .rTimeout = 0, .pClock = 0}

/* How a child ended. */
typedef struct ks_proc_status {
  int bTimedOut;   /* killed because rTimeout passed */
  int iExit;       /* exit code, or -1 when it did not exit */
  int iSignal;     /* the signal that ended it, or 0 */
  int iRaw;        /* the waitpid status */
  double rSeconds; /* from spawn to end, on the options' clock */
} ks_proc_status;

typedef struct ks_proc ks_proc;

/* Start argv[0] with argv. The child's own failure to start (no such file,
 * a redirection that cannot be opened) is exit 127 with a line on its
 * stderr. Errors: KS_EUNAVAIL fork/pipe failed, KS_ENOMEM, KS_EINVAL. */
int ks_proc_spawn(char *const *argv, const ks_proc_opts *pOpts, ks_proc **ppProc);
/* The read end of the child's pipe (bPipe), or -1. */
int ks_proc_fd(const ks_proc *p);
pid_t ks_proc_pid(const ks_proc *p);
/* Wait for the end (killing the tree at the timeout) and free p. */
int ks_proc_wait(ks_proc *p, ks_proc_status *pSt);
/* SIGKILL the child (its group with bNewGroup); ks_proc_wait still reaps. */
void ks_proc_kill(ks_proc *p);

/* Spawn and wait: the common case. */
int ks_proc_run(char *const *argv, const ks_proc_opts *pOpts, ks_proc_status *pSt);

#ifdef __cplusplus
}
#endif
#endif
