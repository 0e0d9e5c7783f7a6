/* test_plumbing.c — unit tests of the common module's plumbing: the sticky
 * error of ks_buf under injected allocation failures (no truncated text is
 * ever handed out), the comment grammar (kernelskill/marks.h) and the store
 * reading its flags line by it, and child
 * processes with a timeout driven by an injected clock (no wall-clock
 * assertions: the fake clock decides when the timeout passes). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "kernelskill/common.h"
#include "kernelskill/marks.h"
#include "kernelskill/proc.h"
#include "kernelskill/store.h"

/* ---- ks_buf ---- */

/* Build a long text with unchecked appends; with a failure injected after
 * every possible count of allocations, the result is either the whole text
 * or NULL: never a prefix of it. */
static char *build_text(void) {
  ks_buf b = KS_BUF_INIT;
  for (int i = 0; i < 400; i++) {
    ks_buf_printf(&b, "line %d of the kernel;\n", i);
    ks_buf_puts(&b, "  x = y + z;\n");
  }
  ks_buf_json_string(&b, "tail \"quoted\"");
  return ks_buf_detach(&b);
}

static void test_buf_fault_never_truncates(void **state) {
  (void)state;
  char *zWhole = build_text();
  assert_non_null(zWhole);
  int nFailed = 0;
  for (long n = 0; n < 40; n++) {
    ks_buf_fault_after(n);
    char *z = build_text();
    ks_buf_fault_after(-1);
    if (z) {
      assert_string_equal(z, zWhole);
    } else {
      nFailed++;
      assert_string_equal(ks_error_name(KS_ENOMEM), ks_error_name(KS_ENOMEM));
    }
    free(z);
  }
  assert_true(nFailed > 0); /* the hook did inject failures */
  free(zWhole);
}

static void test_buf_error_is_sticky(void **state) {
  (void)state;
  ks_buf b = KS_BUF_INIT;
  assert_int_equal(ks_buf_puts(&b, "ok"), KS_OK);
  ks_buf_fault_after(0);
  assert_int_equal(ks_buf_puts(&b, "this needs more room than the first 64 bytes: .........................."),
                   KS_ENOMEM);
  ks_buf_fault_after(-1);
  assert_int_equal(ks_buf_error(&b), KS_ENOMEM);
  /* Later appends are no-ops even though memory is back. */
  assert_int_equal(ks_buf_puts(&b, "more"), KS_ENOMEM);
  assert_int_equal(ks_buf_printf(&b, "%d", 5), KS_ENOMEM);
  assert_int_equal(b.n, 0);
  assert_string_equal(ks_buf_cstr(&b), "");
  assert_null(ks_buf_detach(&b));
  /* Detach freed it: a fresh buffer again. */
  assert_int_equal(ks_buf_error(&b), 0);
  assert_int_equal(ks_buf_puts(&b, "again"), KS_OK);
  ks_buf_free(&b);
}

static void test_mprintf_fault(void **state) {
  (void)state;
  ks_buf_fault_after(0);
  char *z = ks_mprintf("%s-%d", "abc", 7);
  ks_buf_fault_after(-1);
  assert_null(z);
  z = ks_mprintf("%s-%d", "abc", 7);
  assert_string_equal(z, "abc-7");
  free(z);
}

/* ---- marks ---- */

static void test_marks_read_one_rule(void **state) {
  (void)state;
  const char *z = "#include <x.h>\n"
                  "  // kernelskill-flags:   -use_fast_math  -lineinfo \t\r\n"
                  "// kernelskill: fast-math (rule fast-math, round 2) expf -> __expf\n"
                  "int x; // kernelskill: not a mark (not at the line start)\n"
                  "//kernelskill: not a mark either\n"
                  "\t//  kernelskill:   tabbed (rule r)  \n";
  size_t n = strlen(z), i = 0;
  int iLine = 1;
  ks_mark m;
  assert_int_equal(ks_mark_next(z, n, KS_MARK_ANY, &i, &iLine, &m), 1);
  assert_int_equal(m.eKind, KS_MARK_FLAGS);
  assert_int_equal(m.iLine, 2);
  assert_int_equal(m.nValue, strlen("-use_fast_math  -lineinfo"));
  assert_memory_equal(m.zValue, "-use_fast_math  -lineinfo", m.nValue);
  assert_int_equal(ks_mark_next(z, n, KS_MARK_ANY, &i, &iLine, &m), 1);
  assert_int_equal(m.eKind, KS_MARK_NOTE);
  assert_int_equal(m.iLine, 3);
  assert_true(ks_mark_has_prefix(&m, "fast-math (rule fast-math, round 2)"));
  assert_int_equal(ks_mark_next(z, n, KS_MARK_ANY, &i, &iLine, &m), 1);
  assert_int_equal(m.iLine, 6);
  assert_memory_equal(m.zValue, "tabbed (rule r)", m.nValue);
  assert_int_equal(m.nValue, strlen("tabbed (rule r)"));
  assert_int_equal(ks_mark_next(z, n, KS_MARK_ANY, &i, &iLine, &m), 0);
  assert_int_equal(ks_mark_count(z, n, KS_MARK_NOTE), 2);
  assert_int_equal(ks_mark_count(z, n, KS_MARK_FLAGS), 1);
  char *zFlags = ks_mark_value(z, n, KS_MARK_FLAGS, NULL);
  assert_string_equal(zFlags, "-use_fast_math  -lineinfo");
  free(zFlags);
  assert_null(ks_mark_value("int x;\n", 7, KS_MARK_FLAGS, NULL));
}

/* The store (the drop-in, the plugin) reads a flags line by the same rule as
 * the Reviewer: blanks around the tag, the value trimmed, "//kernelskill-flags:"
 * and a tag after code are not marks. */
static void test_store_flags_by_marks(void **state) {
  (void)state;
  const char *z = "int a; // kernelskill-flags: -G\n//kernelskill-flags: -g\n  //  kernelskill-flags:  -O3 -lineinfo \r\n";
  char *zF = ks_store_source_flags(z, strlen(z));
  assert_non_null(zF);
  assert_string_equal(zF, "-O3 -lineinfo");
  free(zF);
  assert_null(ks_store_source_flags("// kernelskill: a note\n", 22));
}

static void test_marks_write_reads_back(void **state) {
  (void)state;
  ks_buf b = KS_BUF_INIT;
  assert_int_equal(ks_mark_write(&b, KS_MARK_NOTE, "skill (rule r, round 1) two\nlines"), KS_OK);
  assert_string_equal(ks_buf_cstr(&b), "// kernelskill: skill (rule r, round 1) two lines");
  ks_mark m;
  size_t i = 0;
  assert_int_equal(ks_mark_next(b.z, b.n, KS_MARK_NOTE, &i, NULL, &m), 1);
  assert_int_equal(m.nValue, strlen("skill (rule r, round 1) two lines"));
  ks_buf_clear(&b);
  assert_int_equal(ks_mark_write(&b, KS_MARK_FLAGS, "-O3"), KS_OK);
  assert_string_equal(ks_buf_cstr(&b), "// kernelskill-flags: -O3");
  ks_buf_free(&b);
}

/* ---- processes and the clock ---- */

typedef struct fake_clock {
  double rNow;
  int nSleeps;
} fake_clock;

static double fake_now(void *p) { return ((fake_clock *)p)->rNow; }
static void fake_sleep(void *p, double r) {
  fake_clock *c = p;
  c->rNow += r < 1 ? 1 : r; /* a second per poll: a hung child times out at once */
  c->nSleeps++;
}

static void test_proc_exit_and_capture(void **state) {
  (void)state;
  char aOut[] = "/tmp/ks-test-proc-XXXXXX";
  int fd = mkstemp(aOut);
  assert_true(fd >= 0);
  close(fd);
  char *azArgv[] = {"sh", "-c", "echo hello; echo $KS_PROBE; exit 3", NULL};
  static const char *const azSet[] = {"KS_PROBE=set", NULL};
  ks_proc_opts o = KS_PROC_OPTS_INIT;
  o.bSearchPath = 1;
  o.zStdout = aOut;
  o.azSetEnv = azSet;
  ks_proc_status st;
  assert_int_equal(ks_proc_run(azArgv, &o, &st), KS_OK);
  assert_int_equal(st.iExit, 3);
  assert_false(st.bTimedOut);
  char *z = NULL;
  size_t n;
  assert_int_equal(ks_file_read(aOut, &z, &n), KS_OK);
  assert_string_equal(z, "hello\nset\n");
  free(z);
  unlink(aOut);
}

static void test_proc_timeout_on_fake_clock(void **state) {
  (void)state;
  fake_clock fc = {100.0, 0};
  ks_clock clk = KS_CLOCK_INIT;
  clk.xNow = fake_now;
  clk.xSleep = fake_sleep;
  clk.pCtx = &fc;
  /* The child and its own child sleep "forever"; the tree is killed. */
  char *azArgv[] = {"sh", "-c", "sleep 1000 & sleep 1000", NULL};
  ks_proc_opts o = KS_PROC_OPTS_INIT;
  o.bSearchPath = 1;
  o.bNewGroup = 1;
  o.bDiscard = 1;
  o.rTimeout = 5;
  o.pClock = &clk;
  ks_proc_status st;
  assert_int_equal(ks_proc_run(azArgv, &o, &st), KS_OK);
  assert_true(st.bTimedOut);
  assert_int_equal(st.iExit, -1);
  assert_true(fc.nSleeps >= 5);
  assert_true(st.rSeconds > 5);
}

static void test_proc_pipe_and_missing_program(void **state) {
  (void)state;
  char *azArgv[] = {"sh", "-c", "echo out; echo err >&2", NULL};
  ks_proc_opts o = KS_PROC_OPTS_INIT;
  o.bSearchPath = 1;
  o.bPipe = 1;
  o.zCwd = "/";
  ks_proc *p = NULL;
  assert_int_equal(ks_proc_spawn(azArgv, &o, &p), KS_OK);
  char aBuf[64] = {0};
  size_t nGot = 0;
  ssize_t r;
  while ((r = read(ks_proc_fd(p), aBuf + nGot, sizeof aBuf - 1 - nGot)) > 0) nGot += (size_t)r;
  ks_proc_status st;
  assert_int_equal(ks_proc_wait(p, &st), KS_OK);
  assert_int_equal(st.iExit, 0);
  assert_string_equal(aBuf, "out\nerr\n");
  char *azNo[] = {"/nonexistent/kernelskill-no-such-tool", NULL};
  ks_proc_opts o2 = KS_PROC_OPTS_INIT;
  o2.bDiscard = 1;
  assert_int_equal(ks_proc_run(azNo, &o2, &st), KS_OK);
  assert_int_equal(st.iExit, 127);
  ks_proc_opts o3 = KS_PROC_OPTS_INIT;
  o3.version = 99;
  assert_int_equal(ks_proc_run(azNo, &o3, &st), KS_EUSAGE);
}

static void test_path_helpers(void **state) {
  (void)state;
  char *z = ks_path_search("sh", NULL);
  assert_non_null(z);
  assert_true(ks_file_is_exec(z));
  assert_true(ks_file_same(z, z));
  char *zSkip = ks_path_search("sh", z); /* skipping itself: another sh or none */
  if (zSkip) assert_false(ks_file_same(zSkip, z));
  free(zSkip);
  free(z);
  assert_false(ks_file_is_exec("/"));
  assert_null(ks_path_search("kernelskill-surely-not-on-path", NULL));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_buf_fault_never_truncates),
      cmocka_unit_test(test_buf_error_is_sticky),
      cmocka_unit_test(test_mprintf_fault),
      cmocka_unit_test(test_marks_read_one_rule),
      cmocka_unit_test(test_marks_write_reads_back),
      cmocka_unit_test(test_store_flags_by_marks),
      cmocka_unit_test(test_proc_exit_and_capture),
      cmocka_unit_test(test_proc_timeout_on_fake_clock),
      cmocka_unit_test(test_proc_pipe_and_missing_program),
      cmocka_unit_test(test_path_helpers),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
