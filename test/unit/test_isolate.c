/* test_isolate.c — the isolation pieces that need no namespace: the harness's
 * seal (no fork, no exec, no ptrace; threads still work), the socket filter
 * of ks_isolate_enter, and the parent's scrub of a secret from its initial
 * environment block (what /proc/PID/environ shows). Each runs in a forked
 * child, since filters cannot be removed. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kernelskill/isolate.h"

static char *g_zSelf;

/* Run f in a child; its exit status is the test's result (0: all held). */
static int in_child(int (*f)(void)) {
  pid_t p = fork();
  if (p == 0) _exit(f());
  int st = 0;
  waitpid(p, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 100 + WTERMSIG(st);
}

static void *thread_main(void *p) { return p; }

static int sealed(void) {
  char zErr[256];
  if (ks_isolate_seal(zErr, sizeof zErr) < 0) return 1;
  pid_t q = fork();
  if (q == 0) _exit(0);
  if (q >= 0 || errno != EPERM) return 2;
  char *azArgv[] = {"/bin/true", NULL};
  if (execv("/bin/true", azArgv) == 0 || errno != EPERM) return 3;
  pthread_t t;
  void *r = NULL;
  if (pthread_create(&t, NULL, thread_main, (void *)7) != 0 || pthread_join(t, &r) != 0 || r != (void *)7) return 4;
  if (system("true") == 0) return 5; /* system() forks: must fail */
#ifdef SYS_fork
  long iPid = syscall(SYS_fork); /* glibc's fork() is clone(): the raw call too */
  if (iPid == 0) _exit(0);
  if (iPid > 0 || errno != EPERM) return 6;
#endif
  return 0;
}

static void test_seal(void **state) {
  (void)state;
  assert_int_equal(in_child(sealed), 0);
}

/* Without the seal the same child can fork: the check above is not vacuous. */
static int unsealed(void) {
  pid_t q = fork();
  if (q == 0) _exit(0);
  if (q < 0) return 1;
  waitpid(q, NULL, 0);
  return 0;
}

static void test_unsealed_control(void **state) {
  (void)state;
  assert_int_equal(in_child(unsealed), 0);
}

static int no_inet(void) {
  ks_isolate_opts o = KS_ISOLATE_OPTS_INIT;
  char zErr[256];
  if (ks_isolate_enter(&o, zErr, sizeof zErr) < 0) return 1;
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd >= 0 || errno != EACCES) return 2;
  fd = socket(AF_INET6, SOCK_DGRAM, 0);
  if (fd >= 0 || errno != EACCES) return 3;
  fd = socket(AF_UNIX, SOCK_STREAM, 0);
  if (fd < 0) return 4;
  close(fd);
  return 0;
}

static void test_enter_sockets(void **state) {
  (void)state;
  assert_int_equal(in_child(no_inet), 0);
}

static void test_options_version(void **state) {
  (void)state;
  ks_isolate_opts o = KS_ISOLATE_OPTS_INIT;
  o.version = 99;
  char zErr[256];
  assert_int_equal(ks_isolate_enter(&o, zErr, sizeof zErr), -1);
  assert_non_null(strstr(zErr, "version"));
}

static void test_describe(void **state) {
  (void)state;
  char z[128];
  ks_isolate_describe(KS_ISO_USERNS | KS_ISO_NOSOCKET, z, sizeof z);
  assert_string_equal(z, "userns nosocket");
  ks_isolate_describe(0, z, sizeof z);
  assert_string_equal(z, "none");
}

/* The scrub needs the secret in the *initial* block: re-exec with it set. */
static int scrub_child(void) {
  const char *zSecret = "sk-isolate-test-4711";
  if (ks_isolate_scrub_env("KS_TEST_SECRET") != 1) return 1;
  const char *z = getenv("KS_TEST_SECRET");
  if (!z || strcmp(z, zSecret) != 0) return 2; /* still there for getenv */
  char aBuf[65536];
  int fd = open("/proc/self/environ", O_RDONLY);
  if (fd < 0) return 3;
  ssize_t n = read(fd, aBuf, sizeof aBuf);
  close(fd);
  if (n <= 0) return 4;
  if (memmem(aBuf, (size_t)n, zSecret, strlen(zSecret))) return 5;
  if (!memmem(aBuf, (size_t)n, "KS_TEST_OTHER=kept", 18)) return 6; /* only the secret goes */
  return 0;
}

static void test_scrub(void **state) {
  (void)state;
  pid_t p = fork();
  if (p == 0) {
    char *azArgv[] = {g_zSelf, "--scrub-child", NULL};
    char *azEnv[] = {"KS_TEST_SECRET=sk-isolate-test-4711", "KS_TEST_OTHER=kept", NULL};
    execve(g_zSelf, azArgv, azEnv);
    _exit(99);
  }
  int st = 0;
  waitpid(p, &st, 0);
  assert_true(WIFEXITED(st));
  assert_int_equal(WEXITSTATUS(st), 0);
}

int main(int argc, char **argv) {
  g_zSelf = argv[0];
  if (argc == 2 && strcmp(argv[1], "--scrub-child") == 0) return scrub_child();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_seal),           cmocka_unit_test(test_unsealed_control),
      cmocka_unit_test(test_enter_sockets),  cmocka_unit_test(test_options_version),
      cmocka_unit_test(test_describe),       cmocka_unit_test(test_scrub),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
