/* test_common.c — unit tests of lib/common: buffers, JSON string escaping,
 * error codes and exit-code mapping, whole-file reads, atomic writes, paths,
 * the shared printers (ks_vmprintf, ks_buf_json) and text positions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "kernelskill/common.h"

static void test_buf_grows_and_stays_terminated(void **state) {
  (void)state;
  ks_buf b = KS_BUF_INIT;
  assert_string_equal(ks_buf_cstr(&b), "");
  for (int i = 0; i < 1000; i++) assert_int_equal(ks_buf_printf(&b, "%d,", i % 10), KS_OK);
  assert_int_equal(b.n, 2000);
  assert_int_equal(b.z[b.n], 0);
  assert_memory_equal(b.z, "0,1,2,", 6);
  ks_buf_clear(&b);
  assert_int_equal(b.n, 0);
  assert_string_equal(ks_buf_cstr(&b), "");
  ks_buf_free(&b);
  assert_null(b.z);
}

static void test_buf_append_binary(void **state) {
  (void)state;
  ks_buf b = KS_BUF_INIT;
  assert_int_equal(ks_buf_append(&b, "a\0b", 3), KS_OK);
  assert_int_equal(b.n, 3);
  assert_memory_equal(b.z, "a\0b", 3);
  char *z = ks_buf_detach(&b);
  assert_null(b.z);
  assert_int_equal(b.n, 0);
  free(z);
  z = ks_buf_detach(&b); /* an empty buffer detaches as "" */
  assert_string_equal(z, "");
  free(z);
}

static void test_json_string_escapes(void **state) {
  (void)state;
  ks_buf b = KS_BUF_INIT;
  assert_int_equal(ks_buf_json_string(&b, "a\"b\\c\nd\te\x01"), KS_OK);
  assert_string_equal(b.z, "\"a\\\"b\\\\c\\nd\\te\\u0001\"");
  ks_buf_free(&b);
}

static char *vfmt(const char *zFmt, ...) {
  va_list ap;
  va_start(ap, zFmt);
  char *z = ks_vmprintf(zFmt, ap);
  va_end(ap);
  return z;
}

static void test_printers(void **state) {
  (void)state;
  char *z = vfmt("%s=%d", "n", 42);
  assert_string_equal(z, "n=42");
  free(z);
  z = ks_mprintf("%05.1f|", 2.5);
  assert_string_equal(z, "002.5|");
  free(z);
  /* Out of memory: NULL, never a truncated string. */
  ks_buf_fault_after(0);
  assert_null(vfmt("%s", "x"));
  ks_buf_fault_after(-1);

  cJSON *pDoc = cJSON_CreateObject();
  cJSON_AddNumberToObject(pDoc, "a", 1);
  ks_buf b = KS_BUF_INIT;
  assert_int_equal(ks_buf_puts(&b, "> "), KS_OK);
  assert_int_equal(ks_buf_json(&b, pDoc), KS_OK);
  assert_string_equal(ks_buf_cstr(&b), "> {\n\t\"a\":\t1\n}\n");
  ks_buf_free(&b);
  ks_buf_fault_after(0);
  assert_true(ks_buf_json(&b, pDoc) < 0);
  ks_buf_fault_after(-1);
  assert_true(ks_buf_error(&b) < 0);
  ks_buf_free(&b);
  cJSON_Delete(pDoc);
}

static void test_text_advance(void **state) {
  (void)state;
  const char *z = "ab\ncd\n\nx";
  int iLine = 1, iCol = 1;
  ks_text_advance(z, 0, &iLine, &iCol);
  assert_int_equal(iLine, 1);
  assert_int_equal(iCol, 1);
  ks_text_advance(z, 2, &iLine, &iCol); /* before the first newline */
  assert_int_equal(iLine, 1);
  assert_int_equal(iCol, 3);
  iLine = iCol = 1;
  ks_text_advance(z, 4, &iLine, &iCol); /* on 'd' */
  assert_int_equal(iLine, 2);
  assert_int_equal(iCol, 2);
  iLine = iCol = 1;
  ks_text_advance(z, 1000, &iLine, &iCol); /* stops at the NUL: after 'x' */
  assert_int_equal(iLine, 4);
  assert_int_equal(iCol, 2);
  iLine = 7, iCol = 5; /* from a starting position (a JSON string's) */
  ks_text_advance("q\nr", 3, &iLine, &iCol);
  assert_int_equal(iLine, 8);
  assert_int_equal(iCol, 2);
}

static void test_error_message_and_codes(void **state) {
  (void)state;
  ks_error_clear();
  assert_string_equal(ks_error_msg(), "");
  assert_int_equal(ks_error_set(KS_EINVAL, "%s:%d: bad", "f.cu", 7), KS_EINVAL);
  assert_string_equal(ks_error_msg(), "f.cu:7: bad");
  assert_int_equal(ks_error_exit_code(KS_OK), 0);
  assert_int_equal(ks_error_exit_code(KS_ENOCHANGE), 0);
  assert_int_equal(ks_error_exit_code(KS_EINVAL), 1);
  assert_int_equal(ks_error_exit_code(KS_EPARSE), 1);
  assert_int_equal(ks_error_exit_code(KS_ENOTFOUND), 1);
  assert_int_equal(ks_error_exit_code(KS_EPRECOND), 1);
  assert_int_equal(ks_error_exit_code(KS_EUSAGE), 2);
  assert_int_equal(ks_error_exit_code(KS_EUNAVAIL), 2);
  assert_int_equal(ks_error_exit_code(KS_EIO), 2);
  assert_int_equal(ks_error_exit_code(KS_ERROR), 2);
  assert_string_equal(ks_error_name(KS_EPRECOND), "precondition failed");
}

static char g_zDir[256];

static int make_tmpdir(void **state) {
  (void)state;
  snprintf(g_zDir, sizeof g_zDir, "%s/ks-test-common-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  return mkdtemp(g_zDir) ? 0 : -1;
}

static int remove_tmpdir(void **state) {
  (void)state;
  char zCmd[512];
  snprintf(zCmd, sizeof zCmd, "rm -rf '%s'", g_zDir);
  return system(zCmd) == 0 ? 0 : -1;
}

static void test_file_read_missing(void **state) {
  (void)state;
  char *z = NULL;
  char zPath[512];
  snprintf(zPath, sizeof zPath, "%s/nope.cu", g_zDir);
  assert_int_equal(ks_file_read(zPath, &z, NULL), KS_ENOTFOUND);
  assert_non_null(strstr(ks_error_msg(), "no such file"));
  assert_null(z);
}

/* The size bound is the caller's: 256 MiB for sources and JSON, larger for the
 * tensor files the Reviewer writes itself (a 256 MiB output must compare). */
static void test_file_read_limit(void **state) {
  (void)state;
  char zPath[512], *z = NULL;
  size_t n = 0;
  snprintf(zPath, sizeof zPath, "%s/twenty.bin", g_zDir);
  assert_int_equal(ks_file_write_atomic(zPath, "0123456789abcdefghij", 20), KS_OK);
  assert_int_equal(ks_file_read_limit(zPath, 10, &z, &n), KS_EINVAL);
  assert_non_null(strstr(ks_error_msg(), "20 bytes, more than"));
  assert_null(z);
  assert_int_equal(ks_file_read_limit(zPath, 20, &z, &n), KS_OK);
  assert_int_equal(n, 20);
  free(z);
  assert_true(KS_FILE_DATA_MAX > ((size_t)256 << 20));
}

static void test_atomic_write_replaces_and_keeps_mode(void **state) {
  (void)state;
  char zPath[512];
  snprintf(zPath, sizeof zPath, "%s/sub/dir/out.cu", g_zDir);
  char *zDir = ks_path_dirname(zPath);
  assert_int_equal(ks_dir_make(zDir), KS_OK);
  assert_true(ks_dir_exists(zDir));
  free(zDir);
  assert_int_equal(ks_file_write_atomic(zPath, "old\n", 4), KS_OK);
  assert_int_equal(chmod(zPath, 0750), 0);
  assert_int_equal(ks_file_write_atomic(zPath, "new contents\n", 13), KS_OK);
  char *z = NULL;
  size_t n = 0;
  assert_int_equal(ks_file_read(zPath, &z, &n), KS_OK);
  assert_int_equal(n, 13);
  assert_string_equal(z, "new contents\n");
  free(z);
  struct stat st;
  assert_int_equal(stat(zPath, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0750);
  /* No temp file left behind. */
  char zCmd[600];
  snprintf(zCmd, sizeof zCmd, "ls '%s/sub/dir' | grep -q ks-tmp", g_zDir);
  assert_int_not_equal(system(zCmd), 0);
}

static void test_atomic_write_fails_cleanly(void **state) {
  (void)state;
  char zPath[512];
  snprintf(zPath, sizeof zPath, "%s/no/such/folder/x.cu", g_zDir);
  assert_int_equal(ks_file_write_atomic(zPath, "x", 1), KS_EIO);
  assert_non_null(strstr(ks_error_msg(), "cannot create"));
}

static void test_paths(void **state) {
  (void)state;
  char *z = ks_path_dirname("a/b/c.cu");
  assert_string_equal(z, "a/b");
  free(z);
  z = ks_path_dirname("c.cu");
  assert_string_equal(z, ".");
  free(z);
  z = ks_path_dirname("/c.cu");
  assert_string_equal(z, "/");
  free(z);
  z = ks_path_join("a/b", "c.cu");
  assert_string_equal(z, "a/b/c.cu");
  free(z);
  z = ks_path_join("a/b/", "c.cu");
  assert_string_equal(z, "a/b/c.cu");
  free(z);
  z = ks_path_join("a/b", "/abs/c.cu");
  assert_string_equal(z, "/abs/c.cu");
  free(z);
}

static void test_datadir_from_env(void **state) {
  (void)state;
  char *z = NULL;
  setenv("KS_DATADIR", g_zDir, 1);
  assert_int_equal(ks_path_datadir(&z), KS_OK);
  assert_string_equal(z, g_zDir);
  free(z);
  setenv("KS_DATADIR", "/definitely/not/here", 1);
  assert_int_equal(ks_path_datadir(&z), KS_EUNAVAIL);
  assert_non_null(strstr(ks_error_msg(), "KS_DATADIR"));
  unsetenv("KS_DATADIR");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_buf_grows_and_stays_terminated),
      cmocka_unit_test(test_buf_append_binary),
      cmocka_unit_test(test_json_string_escapes),
      cmocka_unit_test(test_printers),
      cmocka_unit_test(test_text_advance),
      cmocka_unit_test(test_error_message_and_codes),
      cmocka_unit_test(test_file_read_missing),
      cmocka_unit_test(test_file_read_limit),
      cmocka_unit_test(test_atomic_write_replaces_and_keeps_mode),
      cmocka_unit_test(test_atomic_write_fails_cleanly),
      cmocka_unit_test(test_paths),
      cmocka_unit_test(test_datadir_from_env),
  };
  return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
