/* proc.c — the monotonic clock and child processes (kernelskill/proc.h): the
 * one fork/exec of the library and the tools. Everything the child needs
 * (argv, the environment, the resolved program) is built before fork, so the
 * child only calls async-signal-safe functions between fork and exec. */
#define _GNU_SOURCE
#include "kernelskill/proc.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* ---- the clock ---- */

double ks_clock_now(const ks_clock *pClock) {
  if (pClock && pClock->xNow) return pClock->xNow(pClock->pCtx);
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void ks_clock_sleep(const ks_clock *pClock, double rSec) {
  if (pClock && pClock->xSleep) {
    pClock->xSleep(pClock->pCtx, rSec);
    return;
  }
  if (rSec <= 0) return;
  struct timespec ts;
  ts.tv_sec = (time_t)rSec;
  ts.tv_nsec = (long)((rSec - (double)ts.tv_sec) * 1e9);
  while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {
  }
}

/* ---- child processes ---- */

struct ks_proc {
  pid_t pid;
  int fdPipe;
  int bGroup;
  double rStart, rTimeout;
  const ks_clock *pClock;
};

/* The environment with azSet's NAME=VALUE entries replacing or adding. The
 * array is malloc'd; its strings are borrowed. */
static char **merge_env(char *const *azBase, const char *const *azSet) {
  size_t nBase = 0, nSet = 0;
  while (azBase && azBase[nBase]) nBase++;
  while (azSet && azSet[nSet]) nSet++;
  char **az = calloc(nBase + nSet + 1, sizeof *az);
  if (!az) return NULL;
  size_t n = 0;
  for (size_t i = 0; i < nBase; i++) {
    const char *zEq = strchr(azBase[i], '=');
    size_t nName = zEq ? (size_t)(zEq - azBase[i]) : strlen(azBase[i]);
    int bOver = 0;
    for (size_t j = 0; j < nSet && !bOver; j++)
      bOver = strncmp(azSet[j], azBase[i], nName) == 0 && azSet[j][nName] == '=';
    if (!bOver) az[n++] = azBase[i];
  }
  for (size_t j = 0; j < nSet; j++) az[n++] = (char *)azSet[j];
  az[n] = NULL;
  return az;
}

/* In the child: open zPath onto fd, or die with 127. */
static void child_redirect(const char *zPath, int fd, int iFlags) {
  int f = open(zPath, iFlags, 0600);
  if (f < 0 || dup2(f, fd) < 0) {
    const char *zMsg = "kernelskill: cannot redirect a child's output\n";
    if (write(2, zMsg, strlen(zMsg)) < 0) {
    }
    _exit(127);
  }
  if (f != fd) close(f);
}

int ks_proc_spawn(char *const *argv, const ks_proc_opts *pOpts, ks_proc **ppProc) {
  static const ks_proc_opts dflt = KS_PROC_OPTS_INIT;
  const ks_proc_opts *o = pOpts ? pOpts : &dflt;
  char **azEnv = NULL;
  char *zProg = NULL;
  int aFd[2] = {-1, -1};
  int rc = KS_OK;
  *ppProc = NULL;
  if (o->version != KS_PROC_OPTS_VERSION) return ks_error_set(KS_EUSAGE, "ks_proc_opts: unsupported version %u", o->version);
  if (!argv || !argv[0]) return ks_error_set(KS_EINVAL, "ks_proc_spawn: no program");
  ks_proc *p = calloc(1, sizeof *p);
  if (!p) return ks_error_set(KS_ENOMEM, "out of memory");
  p->fdPipe = -1;
  if (o->azSetEnv) {
    if (!(azEnv = merge_env(o->azEnv ? o->azEnv : environ, o->azSetEnv))) {
      rc = ks_error_set(KS_ENOMEM, "out of memory");
      goto fail;
    }
  }
  char *const *azChildEnv = azEnv ? azEnv : o->azEnv ? o->azEnv : environ;
  /* PATH lookup in the parent: the child must not allocate. */
  if (o->bSearchPath && !strchr(argv[0], '/')) zProg = ks_path_search(argv[0], NULL);
  const char *zRun = zProg ? zProg : argv[0];
  if (o->bPipe && pipe2(aFd, O_CLOEXEC) != 0) {
    rc = ks_error_set(KS_EUNAVAIL, "pipe: %s", strerror(errno));
    goto fail;
  }
  fflush(stdout);
  fflush(stderr);
  p->pClock = o->pClock;
  p->rTimeout = o->rTimeout;
  p->rStart = ks_clock_now(o->pClock);
  pid_t pid = fork();
  if (pid < 0) {
    rc = ks_error_set(KS_EUNAVAIL, "fork: %s", strerror(errno));
    goto fail;
  }
  if (pid == 0) {
    if (o->bNewGroup) setpgid(0, 0);
    if (o->zStdin) child_redirect(o->zStdin, 0, O_RDONLY);
    if (o->bDiscard) {
      child_redirect("/dev/null", 1, O_WRONLY);
      child_redirect("/dev/null", 2, O_WRONLY);
    }
    if (o->zStdout) child_redirect(o->zStdout, 1, O_WRONLY | O_CREAT | O_TRUNC);
    if (o->zStderr) child_redirect(o->zStderr, 2, O_WRONLY | O_CREAT | O_TRUNC);
    if (o->bPipe) {
      if (dup2(aFd[1], 1) < 0 || dup2(aFd[1], 2) < 0) _exit(127);
    }
    if (o->zCwd && chdir(o->zCwd) != 0) {
      dprintf(2, "cannot enter %s: %s\n", o->zCwd, strerror(errno));
      _exit(127);
    }
    execve(zRun, argv, azChildEnv);
    dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  if (o->bNewGroup) setpgid(pid, pid); /* both sides: no race with an early kill */
  p->pid = pid;
  p->bGroup = o->bNewGroup;
  if (o->bPipe) {
    close(aFd[1]);
    p->fdPipe = aFd[0];
  }
  free(azEnv);
  free(zProg);
  *ppProc = p;
  return KS_OK;
fail:
  if (aFd[0] >= 0) close(aFd[0]);
  if (aFd[1] >= 0) close(aFd[1]);
  free(azEnv);
  free(zProg);
  free(p);
  return rc;
}

int ks_proc_fd(const ks_proc *p) { return p ? p->fdPipe : -1; }
pid_t ks_proc_pid(const ks_proc *p) { return p ? p->pid : -1; }

void ks_proc_kill(ks_proc *p) {
  if (!p || p->pid <= 0) return;
  if (p->bGroup) kill(-p->pid, SIGKILL);
  kill(p->pid, SIGKILL);
}

int ks_proc_wait(ks_proc *p, ks_proc_status *pSt) {
  int rc = KS_OK, st = 0;
  assert(p && p->pid > 0);
  memset(pSt, 0, sizeof *pSt);
  pSt->iExit = -1;
  if (p->rTimeout <= 0) {
    while (waitpid(p->pid, &st, 0) < 0) {
      if (errno != EINTR) {
        rc = ks_error_set(KS_ERROR, "waitpid: %s", strerror(errno));
        goto done;
      }
    }
  } else {
    for (double rSleep = 0.001;;) {
      pid_t w = waitpid(p->pid, &st, WNOHANG);
      if (w == p->pid) break;
      if (w < 0 && errno != EINTR) {
        rc = ks_error_set(KS_ERROR, "waitpid: %s", strerror(errno));
        goto done;
      }
      if (ks_clock_now(p->pClock) - p->rStart > p->rTimeout) {
        pSt->bTimedOut = 1;
        ks_proc_kill(p);
        while (waitpid(p->pid, &st, 0) < 0 && errno == EINTR) {
        }
        break;
      }
      ks_clock_sleep(p->pClock, rSleep);
      if (rSleep < 0.02) rSleep *= 2; /* quick children are reaped quickly */
    }
  }
  pSt->iRaw = st;
  pSt->rSeconds = ks_clock_now(p->pClock) - p->rStart;
  if (!pSt->bTimedOut) {
    if (WIFEXITED(st)) pSt->iExit = WEXITSTATUS(st);
    else if (WIFSIGNALED(st)) pSt->iSignal = WTERMSIG(st);
  } else {
    pSt->iSignal = SIGKILL;
  }
done:
  if (p->fdPipe >= 0) close(p->fdPipe);
  free(p);
  return rc;
}

int ks_proc_run(char *const *argv, const ks_proc_opts *pOpts, ks_proc_status *pSt) {
  ks_proc *p = NULL;
  int rc = ks_proc_spawn(argv, pOpts, &p);
  if (rc < 0) {
    memset(pSt, 0, sizeof *pSt);
    pSt->iExit = -1;
    return rc;
  }
  return ks_proc_wait(p, pSt);
}
