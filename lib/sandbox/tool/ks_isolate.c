/* ks-isolate — run a program isolated (kernelskill/isolate.h): the launcher
 * the Reviewer puts in front of every child that builds or runs untrusted
 * code. `ks-isolate --probe` says what this machine allows.
 *
 *   ks-isolate [--rw DIR]... [--mem SIZE] [--fsize SIZE] [--nproc N] [--require]
 *              [--report] -- PROGRAM [ARGS...]
 *   ks-isolate --probe [--json]
 *
 * Exit codes: the program's own; 2 usage; 125 isolation required and not
 * possible; 126 the program cannot be executed; 127 not found. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kernelskill/isolate.h"

static const char zUsage[] =
    "usage: ks-isolate [--rw DIR]... [--mem SIZE] [--fsize SIZE] [--nproc N] [--require] [--skip PARTS] [--report] -- PROGRAM [ARGS...]\n"
    "       ks-isolate --probe [--json]\n"
    "\n"
    "Runs PROGRAM in new user, mount and network namespaces (where the machine\n"
    "allows them), with the file system read-only except each --rw DIR, /dev/shm\n"
    "and a private /tmp; no capabilities; no new privileges; no socket but AF_UNIX;\n"
    "core dumps off and the limits given. docs/security.md says what each part gives.\n"
    "\n"
    "  --rw DIR      a folder that stays writable (repeatable, at most 8)\n"
    "  --mem SIZE    RLIMIT_DATA: most private writable memory (K, M, G suffixes)\n"
    "  --fsize SIZE  RLIMIT_FSIZE: largest file it may write\n"
    "  --nproc N     RLIMIT_NPROC inside the user namespace (processes and threads)\n"
    "  --require     exit 125 unless the namespaces can be made\n"
    "  --skip PARTS  leave out parts (comma-separated: userns netns rdonly rlimits nocaps\n"
    "                nosocket), to find which one a program cannot live with\n"
    "  --report      print what was applied on stderr before running PROGRAM\n"
    "  --probe       report what this machine allows (runs nothing); --json for a script\n"
    "Exit codes: PROGRAM's; 2 usage; 125 isolation not possible (--require); 126 not executable; 127 not found.\n";

static int usage_error(const char *zMsg, const char *zArg) {
  fprintf(stderr, "ks-isolate: error: %s%s%s\n%s", zMsg, zArg ? " " : "", zArg ? zArg : "", zUsage);
  return 2;
}

static int parse_size(const char *z, unsigned long long *pn) {
  char *e = NULL;
  errno = 0;
  unsigned long long n = strtoull(z, &e, 10);
  if (errno || e == z || z[0] == '-') return -1;
  unsigned long long m = 1;
  if (*e == 'K' || *e == 'k') m = 1ull << 10, e++;
  else if (*e == 'M' || *e == 'm') m = 1ull << 20, e++;
  else if (*e == 'G' || *e == 'g') m = 1ull << 30, e++;
  if (*e || n == 0 || n > (~0ull) / m) return -1;
  *pn = n * m;
  return 0;
}

/* In a child: enter, seal, and check that sealing holds (fork must fail). */
static int probe(int bJson) {
  int fd[2];
  if (pipe(fd) < 0) return 1;
  pid_t p = fork();
  if (p < 0) return 1;
  if (p == 0) {
    close(fd[0]);
    ks_isolate_opts o = KS_ISOLATE_OPTS_INIT;
    char zErr[256];
    int iBits = ks_isolate_enter(&o, zErr, sizeof zErr);
    int bSeal = 0;
    if (iBits >= 0 && ks_isolate_seal(zErr, sizeof zErr) == 0) {
      pid_t q = fork();
      if (q == 0) _exit(0);
      bSeal = q < 0 && errno == EPERM;
      if (q > 0) waitpid(q, NULL, 0);
    }
    char z[320];
    int n = snprintf(z, sizeof z, "%d %d %s", iBits, bSeal, iBits < 0 ? zErr : "");
    if (write(fd[1], z, (size_t)n) < 0) _exit(1);
    _exit(0);
  }
  close(fd[1]);
  char z[320] = "";
  ssize_t n = read(fd[0], z, sizeof z - 1);
  close(fd[0]);
  waitpid(p, NULL, 0);
  int iBits = -1, bSeal = 0, k = 0;
  if (n > 0) {
    z[n] = 0;
    sscanf(z, "%d %d %n", &iBits, &bSeal, &k);
  }
  char zD[160];
  ks_isolate_describe(iBits < 0 ? 0 : iBits, zD, sizeof zD);
  if (bJson) {
    printf("{\"applied\": \"%s\", \"userns\": %s, \"rdonly\": %s, \"seal\": %s, \"error\": \"%s\"}\n", zD,
           iBits > 0 && (iBits & KS_ISO_USERNS) ? "true" : "false", iBits > 0 && (iBits & KS_ISO_RDONLY) ? "true" : "false",
           bSeal ? "true" : "false", iBits < 0 ? z + k : "");
  } else {
    printf("applied: %s\nseal (no fork, no exec): %s\n", zD, bSeal ? "yes" : "no");
    if (iBits < 0) printf("error: %s\n", z + k);
  }
  return iBits < 0 ? 1 : 0;
}

int main(int argc, char **argv) {
  ks_isolate_opts o = KS_ISOLATE_OPTS_INIT;
  int bReport = 0, bProbe = 0, bJson = 0, i;
  for (i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--")) {
      i++;
      break;
    } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(zUsage, stdout);
      return 0;
    } else if (!strcmp(a, "--probe")) {
      bProbe = 1;
    } else if (!strcmp(a, "--json")) {
      bJson = 1;
    } else if (!strcmp(a, "--require")) {
      o.bRequireNs = 1;
    } else if (!strcmp(a, "--report")) {
      bReport = 1;
    } else if (!strcmp(a, "--skip")) {
      if (i + 1 >= argc) return usage_error("missing value after", a);
      o.iSkip = ks_isolate_parse_parts(argv[++i]);
      if (o.iSkip < 0) return usage_error("--skip: unknown part in", argv[i]);
    } else if (!strcmp(a, "--rw") || !strcmp(a, "--mem") || !strcmp(a, "--fsize") || !strcmp(a, "--nproc")) {
      if (i + 1 >= argc) return usage_error("missing value after", a);
      const char *v = argv[++i];
      unsigned long long n = 0;
      if (!strcmp(a, "--rw")) {
        if (o.nRw == KS_ISOLATE_MAX_RW) return usage_error("too many --rw folders (at most 8)", NULL);
        if (access(v, W_OK) != 0) return usage_error("--rw: not a writable folder:", v);
        o.azRw[o.nRw++] = v;
      } else if (parse_size(v, &n) < 0) {
        return usage_error("not a positive size:", v);
      } else if (!strcmp(a, "--mem")) {
        o.nMemBytes = n;
      } else if (!strcmp(a, "--fsize")) {
        o.nFileBytes = n;
      } else {
        o.nProc = (unsigned long)n;
      }
    } else {
      return usage_error("unknown option", a);
    }
  }
  if (bProbe) return probe(bJson);
  if (i >= argc) return usage_error("no program (put it after '--')", NULL);
  char zErr[512];
  int iBits = ks_isolate_enter(&o, zErr, sizeof zErr);
  if (iBits < 0) {
    fprintf(stderr, "ks-isolate: cannot isolate: %s\n", zErr);
    return 125;
  }
  /* /tmp and the user's TMPDIR are read-only in here: temporary files
   * (nvcc's) go to .ks-tmp in the first rw folder. */
  if ((iBits & KS_ISO_RDONLY) && o.nRw > 0) {
    char zTmp[4096];
    snprintf(zTmp, sizeof zTmp, "%s/.ks-tmp", o.azRw[0]);
    if (mkdir(zTmp, 0700) < 0 && errno != EEXIST) {
      fprintf(stderr, "ks-isolate: cannot create %s: %s\n", zTmp, strerror(errno));
      return 125;
    }
    setenv("TMPDIR", zTmp, 1);
    unsetenv("TMP");
    unsetenv("TEMP");
  }
  if (bReport) {
    char zD[160];
    ks_isolate_describe(iBits, zD, sizeof zD);
    fprintf(stderr, "ks-isolate: applied: %s\n", zD);
  }
  execvp(argv[i], argv + i);
  int e = errno;
  fprintf(stderr, "ks-isolate: cannot run %s: %s\n", argv[i], strerror(e));
  return e == ENOENT ? 127 : 126;
}
