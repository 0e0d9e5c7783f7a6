/* isolate.c — OS-level isolation of untrusted builds and runs (isolate.h):
 * namespaces, a read-only file system but for named folders, rlimits, no
 * capabilities, seccomp filters written as raw BPF (no library), and the
 * parent's own protections (its secret out of its environment block, not
 * dumpable). Linux only; libc and kernel headers only, because the harness
 * compiles this file too. Every step says what failed; optional steps that
 * the machine refuses (no user namespaces in a container) are skipped and
 * show as missing bits, which the launcher reports. */
#define _GNU_SOURCE
#include "kernelskill/isolate.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SECBIT_NOROOT
#define SECBIT_NOROOT (1 << 0)
#define SECBIT_NOROOT_LOCKED (1 << 1)
#define SECBIT_NO_SETUID_FIXUP (1 << 2)
#define SECBIT_NO_SETUID_FIXUP_LOCKED (1 << 3)
#endif
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif
#define KS_MOUNT_ATTR_RDONLY 0x00000001ull

/* struct mount_attr (linux/mount.h, 5.12+), spelled out for older headers. */
struct ks_mount_attr {
  unsigned long long attr_set, attr_clr, propagation, userns_fd;
};

#if defined(__x86_64__)
#define KS_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define KS_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

static int fail(char *zErr, size_t nErr, const char *zWhat) {
  if (zErr && nErr) snprintf(zErr, nErr, "%s: %s", zWhat, strerror(errno));
  return -1;
}

static int write_file(const char *zPath, const char *z) {
  int fd = open(zPath, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t n = write(fd, z, strlen(z));
  int e = errno;
  close(fd);
  errno = e;
  return n == (ssize_t)strlen(z) ? 0 : -1;
}

static int set_rdonly(const char *zPath, int bSet) {
  struct ks_mount_attr a = {0, 0, 0, 0};
  if (bSet) a.attr_set = KS_MOUNT_ATTR_RDONLY;
  else a.attr_clr = KS_MOUNT_ATTR_RDONLY;
  return (int)syscall(SYS_mount_setattr, AT_FDCWD, zPath, AT_RECURSIVE, &a, sizeof a);
}

/* The mount namespace's view: everything read-only, and the rw folders (and
 * /dev/shm, for CUDA's IPC) bound back writable. /tmp stays as it is, read-
 * only: sources and task folders there must stay visible (a private /tmp
 * hid them: measured, every review of a task under /tmp failed to compile);
 * temporary files go to the first rw folder (ks-isolate sets TMPDIR). */
static int setup_mounts(const ks_isolate_opts *o, char *zErr, size_t nErr) {
  const char *az[KS_ISOLATE_MAX_RW + 1];
  int n = 0;
  char aReal[KS_ISOLATE_MAX_RW + 1][4096];
  for (int i = 0; i < o->nRw && i < KS_ISOLATE_MAX_RW; i++) az[n++] = o->azRw[i];
  struct stat st;
  if (stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode)) az[n++] = "/dev/shm";
  for (int i = 0; i < n; i++)
    if (!realpath(az[i], aReal[i])) return fail(zErr, nErr, az[i]);
  if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) return fail(zErr, nErr, "making / private");
  if (set_rdonly("/", 1) < 0) return fail(zErr, nErr, "making / read-only");
  for (int i = 0; i < n; i++) {
    if (mount(aReal[i], aReal[i], NULL, MS_BIND | MS_REC, NULL) < 0) return fail(zErr, nErr, aReal[i]);
    if (set_rdonly(aReal[i], 0) < 0) return fail(zErr, nErr, aReal[i]);
  }
  /* CUDA cannot initialise with /proc read-only (cudaErrorOperatingSystem,
   * measured on an H200): /proc is writable again, but for the parts through
   * which uid 0 without capabilities could still change the machine (sysctls
   * such as kernel.core_pattern, sysrq) — the set container runtimes close. */
  static const char *const azProcRo[] = {"/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus", "/proc/fs",
                                         "/proc/acpi", "/proc/scsi", NULL};
  if (mount("/proc", "/proc", NULL, MS_BIND | MS_REC, NULL) < 0 || set_rdonly("/proc", 0) < 0)
    return fail(zErr, nErr, "/proc");
  for (int i = 0; azProcRo[i]; i++) {
    if (access(azProcRo[i], F_OK) != 0) continue;
    if (mount(azProcRo[i], azProcRo[i], NULL, MS_BIND | MS_REC, NULL) < 0 || set_rdonly(azProcRo[i], 1) < 0)
      return fail(zErr, nErr, azProcRo[i]);
  }
  if (chdir(".") < 0 && o->nRw > 0 && chdir(aReal[0]) < 0) return fail(zErr, nErr, "chdir");
  return 0;
}

static void set_limit(int iRes, unsigned long long n) {
  struct rlimit r = {(rlim_t)n, (rlim_t)n};
  struct rlimit cur;
  if (getrlimit(iRes, &cur) == 0 && cur.rlim_max != RLIM_INFINITY && cur.rlim_max < r.rlim_max)
    r.rlim_cur = r.rlim_max = cur.rlim_max; /* never raise: lowering only */
  setrlimit(iRes, &r);
}

static int drop_caps(char *zErr, size_t nErr) {
  for (int i = 0; i <= 63; i++)
    if (prctl(PR_CAPBSET_DROP, i, 0, 0, 0) < 0 && errno != EINVAL) return fail(zErr, nErr, "emptying the capability bounding set");
  prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  /* uid 0 would get its capabilities back at exec without these bits. */
  prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP | SECBIT_NO_SETUID_FIXUP_LOCKED,
        0, 0, 0);
  struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct d[2];
  memset(d, 0, sizeof d);
  if (syscall(SYS_capset, &h, d) < 0) return fail(zErr, nErr, "dropping capabilities");
  return 0;
}

/* ---- seccomp ---------------------------------------------------------------- */

#define KS_LD_NR BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr))
#define KS_LD_ARG0 BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]))
#define KS_RET(v) BPF_STMT(BPF_RET | BPF_K, (v))
#define KS_ERRNO(e) KS_RET(SECCOMP_RET_ERRNO | ((e) & SECCOMP_RET_DATA))

static int install_filter(struct sock_filter *aF, unsigned short n, char *zErr, size_t nErr) {
#ifndef KS_AUDIT_ARCH
  (void)aF, (void)n;
  errno = ENOSYS;
  return fail(zErr, nErr, "seccomp (unsupported architecture)");
#else
  struct sock_fprog p = {n, aF};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) return fail(zErr, nErr, "no_new_privs");
  if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &p) < 0) return fail(zErr, nErr, "installing the seccomp filter");
  return 0;
#endif
}

#ifdef KS_AUDIT_ARCH
/* Another architecture's system call numbers mean other calls: refuse them. */
#define KS_CHECK_ARCH                                                                                              \
  BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),                                       \
  BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, KS_AUDIT_ARCH, 1, 0), KS_RET(SECCOMP_RET_KILL_PROCESS)
#endif

static int filter_sockets(char *zErr, size_t nErr) {
#ifndef KS_AUDIT_ARCH
  return install_filter(NULL, 0, zErr, nErr);
#else
  struct sock_filter a[] = {
      KS_CHECK_ARCH,
      KS_LD_NR,
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_socket, 1, 0),
      KS_RET(SECCOMP_RET_ALLOW),
      KS_LD_ARG0,
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 0, 1),
      KS_RET(SECCOMP_RET_ALLOW),
      KS_ERRNO(EACCES),
  };
  return install_filter(a, (unsigned short)(sizeof a / sizeof a[0]), zErr, nErr);
#endif
}

int ks_isolate_seal(char *zErr, size_t nErr) {
#ifndef KS_AUDIT_ARCH
  return install_filter(NULL, 0, zErr, nErr);
#else
  static const unsigned aDeny[] = {
#ifdef __NR_fork
      __NR_fork,
#endif
#ifdef __NR_vfork
      __NR_vfork,
#endif
      __NR_execve, __NR_execveat, __NR_ptrace, __NR_process_vm_readv, __NR_process_vm_writev};
  struct sock_filter a[48] = {KS_CHECK_ARCH, KS_LD_NR};
  int n = 4, aiToEnd[16], nToEnd = 0;
#if defined(__x86_64__)
  aiToEnd[nToEnd++] = n; /* x32 system calls */
  a[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 0);
#endif
  for (size_t i = 0; i < sizeof aDeny / sizeof aDeny[0]; i++) {
    aiToEnd[nToEnd++] = n;
    a[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, aDeny[i], 0, 0);
  }
  /* clone3 passes its flags in memory a filter cannot read: ENOSYS makes
   * glibc fall back to clone, whose flags it can. */
  a[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone3, 0, 1);
  a[n++] = (struct sock_filter)KS_ERRNO(ENOSYS);
  a[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 0, 3);
  a[n++] = (struct sock_filter)KS_LD_ARG0;
  a[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 1, 0);
  a[n++] = (struct sock_filter)KS_ERRNO(EPERM); /* a new process */
  a[n++] = (struct sock_filter)KS_RET(SECCOMP_RET_ALLOW);
  int iEnd = n;
  a[n++] = (struct sock_filter)KS_ERRNO(EPERM);
  for (int i = 0; i < nToEnd; i++) a[aiToEnd[i]].jt = (unsigned char)(iEnd - aiToEnd[i] - 1);
  return install_filter(a, (unsigned short)n, zErr, nErr);
#endif
}

/* ---- entering ----------------------------------------------------------------- */

/* In a new user namespace: the same ids inside, so files keep their owners;
 * no capability outside. */
static int map_ids(uid_t u, gid_t g, char *zErr, size_t nErr) {
  char z[64];
  snprintf(z, sizeof z, "%u %u 1\n", (unsigned)u, (unsigned)u);
  if (write_file("/proc/self/setgroups", "deny") < 0 && errno != ENOENT) return fail(zErr, nErr, "setgroups");
  if (write_file("/proc/self/uid_map", z) < 0) return fail(zErr, nErr, "uid_map");
  snprintf(z, sizeof z, "%u %u 1\n", (unsigned)g, (unsigned)g);
  if (write_file("/proc/self/gid_map", z) < 0) return fail(zErr, nErr, "gid_map");
  return 0;
}

int ks_isolate_enter(const ks_isolate_opts *o, char *zErr, size_t nErr) {
  int iBits = 0;
  if (zErr && nErr) zErr[0] = 0;
  if (!o || o->version != KS_ISOLATE_OPTS_VERSION) {
    errno = EINVAL;
    return fail(zErr, nErr, "ks_isolate_enter: options version mismatch");
  }
  uid_t u = getuid();
  gid_t g = getgid();
  int bNs = 0, k = o->iSkip;
  if (k & (KS_ISO_USERNS | KS_ISO_NETNS | KS_ISO_RDONLY)) {
    /* a namespace part skipped: what remains is made without user namespace */
    int f = ((k & KS_ISO_RDONLY) ? 0 : CLONE_NEWNS) | ((k & KS_ISO_NETNS) ? 0 : CLONE_NEWNET);
    if (!(k & KS_ISO_USERNS)) f |= CLONE_NEWUSER;
    if (f && unshare(f) == 0) {
      if (f & CLONE_NEWUSER) {
        if (map_ids(u, g, zErr, nErr) < 0) return -1;
        iBits |= KS_ISO_USERNS;
      }
      if (f & CLONE_NEWNET) iBits |= KS_ISO_NETNS;
      bNs = (f & CLONE_NEWNS) != 0;
    }
  } else if (unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET) == 0) {
    if (map_ids(u, g, zErr, nErr) < 0) return -1;
    iBits |= KS_ISO_USERNS | KS_ISO_NETNS;
    bNs = 1;
  } else if (unshare(CLONE_NEWNS | CLONE_NEWNET) == 0) { /* privileged, without user namespaces */
    iBits |= KS_ISO_NETNS;
    bNs = 1;
  } else if (o->bRequireNs) {
    return fail(zErr, nErr, "creating namespaces");
  }
  if (bNs) {
    if (setup_mounts(o, zErr, nErr) < 0) return -1;
    iBits |= KS_ISO_RDONLY;
  }
  if (!(k & KS_ISO_RLIMITS)) {
    set_limit(RLIMIT_CORE, 0);
#if !defined(__SANITIZE_ADDRESS__)
    /* Not in a KS_SANITIZE build: ASan reserves terabytes of shadow memory,
     * which RLIMIT_DATA counts, so every sanitized child would fail to start. */
    if (o->nMemBytes) set_limit(RLIMIT_DATA, o->nMemBytes);
#endif
    if (o->nFileBytes) set_limit(RLIMIT_FSIZE, o->nFileBytes);
    if (o->nProc && (iBits & KS_ISO_USERNS)) set_limit(RLIMIT_NPROC, o->nProc);
    iBits |= KS_ISO_RLIMITS;
  }
  if (!(k & KS_ISO_NOCAPS)) {
    if (drop_caps(zErr, nErr) < 0) return -1;
    iBits |= KS_ISO_NOCAPS;
  }
  if (!(k & KS_ISO_NOSOCKET)) {
    if (filter_sockets(zErr, nErr) < 0) return -1;
    iBits |= KS_ISO_NONEWPRIVS | KS_ISO_NOSOCKET;
  }
  return iBits;
}

/* ---- the parent ----------------------------------------------------------------- */

/* The initial environment block, [env_start, env_end) of /proc/self/stat
 * (fields 50 and 51): the memory /proc/PID/environ shows. */
static int env_block(char **ppStart, char **ppEnd) {
  char z[4096];
  int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t n = read(fd, z, sizeof z - 1);
  close(fd);
  if (n <= 0) return -1;
  z[n] = 0;
  char *p = strrchr(z, ')'); /* the command name may hold spaces */
  if (!p) return -1;
  p++;
  unsigned long long aF[64];
  int k = 0;
  /* After ')' come fields 3, 4, ...: env_start is field 50. */
  for (char *q = strtok(p, " "); q && k < 60; q = strtok(NULL, " ")) aF[k++] = strtoull(q, NULL, 10);
  if (k < 49) return -1;
  *ppStart = (char *)(uintptr_t)aF[47];
  *ppEnd = (char *)(uintptr_t)aF[48];
  return *ppStart && *ppEnd > *ppStart ? 0 : -1;
}

int ks_isolate_scrub_env(const char *zName) {
  size_t nName = strlen(zName);
  const char *zVal = getenv(zName);
  if (!zVal) return 0;
  char *zCopy = strdup(zVal);
  char *pS = NULL, *pE = NULL;
  if (env_block(&pS, &pE) == 0) {
    for (char *p = pS; p < pE;) {
      size_t n = strnlen(p, (size_t)(pE - p));
      if (n > nName && strncmp(p, zName, nName) == 0 && p[nName] == '=') memset(p + nName + 1, 0, n - nName - 1);
      p += n + 1;
    }
  }
  /* The value lives on in the heap copy setenv makes (getenv still finds it;
   * children get environments without secrets from the sandbox). */
  unsetenv(zName);
  if (zCopy) {
    setenv(zName, zCopy, 1);
    memset(zCopy, 0, strlen(zCopy));
    free(zCopy);
  }
  return 1;
}

int ks_isolate_protect_self(void) { return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0 ? 0 : -1; }

static const char *const azPart[] = {"userns", "netns", "rdonly", "rlimits", "nocaps", "nonewprivs", "nosocket"};

int ks_isolate_parse_parts(const char *zList) {
  int iBits = 0;
  for (const char *p = zList; *p;) {
    size_t n = strcspn(p, ",");
    int b = -1;
    for (int i = 0; i < 7; i++)
      if (strlen(azPart[i]) == n && strncmp(p, azPart[i], n) == 0) b = 1 << i;
    if (b < 0) return -1;
    iBits |= b;
    p += n + (p[n] == ',');
  }
  return iBits;
}

void ks_isolate_describe(int iBits, char *z, size_t n) {
  const char *const *az = azPart;
  size_t k = 0;
  if (n) z[0] = 0;
  for (int i = 0; i < 7; i++)
    if (iBits & (1 << i)) k += (size_t)snprintf(z + k, k < n ? n - k : 0, "%s%s", k ? " " : "", az[i]);
  if (k == 0 && n) snprintf(z, n, "none");
}
