/* kernelskill/isolate.h — OS-level isolation of the children that build and
 * run untrusted code (LLM candidates, --candidate files, repairs): the
 * sandbox module's boundary, below review. The static check (sandbox.h) is an
 * early, explained refusal; this is what holds when it is bypassed.
 *
 * Three pieces, each usable alone (docs/security.md says what each gives and
 * what is left on a machine without user namespaces):
 *   ks_isolate_enter  in a child before exec (the ks-isolate launcher): new
 *                     user, mount and network namespaces, the file system
 *                     read-only but for the given folders (and /dev/shm),
 *                     resource limits, no capabilities, no new privileges, and
 *                     a seccomp filter refusing every socket but AF_UNIX;
 *   ks_isolate_seal   in the harness after CUDA is up, before the untrusted
 *                     library is loaded: no process creation, no exec, no
 *                     ptrace or cross-process memory access (threads stay);
 *   ks_isolate_scrub_env / ks_isolate_protect_self  in the parent: the secret
 *                     leaves the process's own environment block (what
 *                     /proc/PID/environ shows) and the process is not dumpable
 *                     (its memory and environ are closed to same-uid readers).
 * Self-contained: libc and Linux headers only, so the harness (which does not
 * link libkernelskill) compiles this module's source too. */
#ifndef KS_ISOLATE_H
#define KS_ISOLATE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KS_ISOLATE_MAX_RW 8

typedef struct ks_isolate_opts {
  unsigned version;
  const char *azRw[KS_ISOLATE_MAX_RW]; /* folders that stay writable (the work folder, an output folder) */
  int nRw;
  unsigned long long nMemBytes;  /* RLIMIT_DATA (private writable memory); 0: none */
  unsigned long long nFileBytes; /* RLIMIT_FSIZE (largest file written); 0: none */
  unsigned long nProc;           /* RLIMIT_NPROC, applied only inside a user namespace (where it counts
                                    this namespace's processes); 0: none */
  int bRequireNs;                /* fail when the namespaces cannot be made (default: go on without) */
  int iSkip;                     /* KS_ISO_* bits not to apply (diagnosis: which part a program cannot live with) */
} ks_isolate_opts;

#define KS_ISOLATE_OPTS_VERSION 1
#define KS_ISOLATE_OPTS_INIT {KS_ISOLATE_OPTS_VERSION, {0}, 0, 0, 0, 0, 0, 0}

/* What ks_isolate_enter applied (bits), for reports and tests. */
enum {
  KS_ISO_USERNS = 1 << 0,  /* a new user namespace (no capability over the host) */
  KS_ISO_NETNS = 1 << 1,   /* a new network namespace: no interface but a down loopback */
  KS_ISO_RDONLY = 1 << 2,  /* the file system read-only except the rw folders, /dev/shm and /proc (less sysctls) */
  KS_ISO_RLIMITS = 1 << 3, /* core 0, data, file size, process limits */
  KS_ISO_NOCAPS = 1 << 4,  /* every capability dropped, the bounding set emptied */
  KS_ISO_NONEWPRIVS = 1 << 5,
  KS_ISO_NOSOCKET = 1 << 6 /* seccomp: socket() other than AF_UNIX fails with EACCES */
};

/* Isolate the calling process (a child about to exec). Returns the KS_ISO_*
 * bits applied (>= 0), or -1 with a message in zErr when a required part
 * failed. Writes no more than nErr bytes to zErr; allocates nothing after
 * the namespaces exist. */
int ks_isolate_enter(const ks_isolate_opts *pOpts, char *zErr, size_t nErr);

/* Seal the calling process: fork, vfork, clone without CLONE_THREAD, execve,
 * execveat, ptrace, process_vm_readv/writev fail with EPERM; clone3 with
 * ENOSYS (glibc then creates threads with clone). Sets no_new_privs.
 * 0, or -1 with a message. */
int ks_isolate_seal(char *zErr, size_t nErr);

/* Remove NAME from the environment: its value is overwritten in place (the
 * process's initial environment block, which /proc/PID/environ reads, is
 * that memory) and the variable unset. Returns 1 when it was set, else 0. */
int ks_isolate_scrub_env(const char *zName);

/* Not dumpable: /proc/PID/{mem,environ,...} of this process are closed to
 * other processes of the same uid that lack CAP_SYS_PTRACE, and it leaves
 * no core. 0, or -1. */
int ks_isolate_protect_self(void);

/* A text of the KS_ISO_* bits ("userns netns rdonly ..."), into z. */
void ks_isolate_describe(int iBits, char *z, size_t n);
/* The bits of a comma-separated list of those names; -1 on an unknown name. */
int ks_isolate_parse_parts(const char *zList);

#ifdef __cplusplus
}
#endif

#endif
