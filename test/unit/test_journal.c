/* test_journal.c — the journal (short-term memory): the source hash and its
 * normalization, append/read round trips, durable appends from several
 * processes, torn last lines, malformed lines with their path:line, and
 * empty or missing files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kernelskill/journal.h"

/* ---- helpers ---- */

static char azDir[256];

static int setup_dir(void **state) {
  (void)state;
  snprintf(azDir, sizeof azDir, "%s/test_journal.XXXXXX", KS_TEST_BINARY_DIR);
  if (!mkdtemp(azDir)) return -1;
  return 0;
}

static int teardown_dir(void **state) {
  (void)state;
  char z[512];
  snprintf(z, sizeof z, "rm -rf '%s'", azDir);
  return system(z) == 0 ? 0 : -1;
}

/* A fresh file name in the test folder (the file does not exist yet). */
static const char *path_of(const char *zName) {
  static char z[400];
  snprintf(z, sizeof z, "%s/%s", azDir, zName);
  unlink(z);
  return z;
}

static void write_file(const char *zPath, const char *zText) {
  FILE *f = fopen(zPath, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(zText, 1, strlen(zText), f), strlen(zText));
  assert_int_equal(fclose(f), 0);
}

static char *read_all(const char *zPath) {
  char *z = NULL;
  size_t n = 0;
  assert_int_equal(ks_file_read(zPath, &z, &n), KS_OK);
  return z;
}

static void hash_of(const char *zSrc, const char *zFlags, char az[17]) {
  ks_journal_hash(zSrc, strlen(zSrc), zFlags, az);
}

/* ---- the source hash ---- */

static void test_hash_vectors(void **state) {
  (void)state;
  char az[17];
  /* FNV-1a 64 computed independently (Python) over text, NUL, flags */
  hash_of("", NULL, az);
  assert_string_equal(az, "af63bd4c8601b7df");
  hash_of("__global__ void k() {}\n", "-O3", az);
  assert_string_equal(az, "08a2c16a92387645");
  for (int i = 0; i < 16; i++) assert_true((az[i] >= '0' && az[i] <= '9') || (az[i] >= 'a' && az[i] <= 'f'));
  /* NULL flags hash as "" */
  char azA[17], azB[17];
  hash_of("x\n", NULL, azA);
  hash_of("x\n", "", azB);
  assert_string_equal(azA, azB);
  /* only nSrc bytes count */
  ks_journal_hash("abcdef", 3, "", azA);
  hash_of("abc", "", azB);
  assert_string_equal(azA, azB);
}

static void test_hash_normalization(void **state) {
  (void)state;
  char azA[17], azB[17];
  static const char *const aSame[][2] = {
      {"int a;  \nint b;\t\n", "int a;\nint b;\n"},       /* trailing blanks and tabs */
      {"int a;\r\nint b;\r\n", "int a;\nint b;\n"},       /* CRLF as LF */
      {"int a; \t\r\nint b;", "int a;\nint b;"},          /* both, last line unterminated */
      {"a\n   \n\t\nb\n", "a\n\n\nb\n"},                  /* blank lines keep their place */
      {"a \x0b\x0c\n", "a\n"},                            /* every trailing blank kind */
  };
  for (size_t i = 0; i < sizeof aSame / sizeof aSame[0]; i++) {
    hash_of(aSame[i][0], "", azA);
    hash_of(aSame[i][1], "", azB);
    if (strcmp(azA, azB) != 0) fail_msg("case %zu: '%s' and '%s' should hash the same", i, aSame[i][0], aSame[i][1]);
  }
  static const char *const aDiff[][2] = {
      {" a\n", "a\n"},          /* leading whitespace is code layout */
      {"a b\n", "ab\n"},        /* inner whitespace too */
      {"a\rb\n", "a\nb\n"},     /* a CR inside a line is not a line end */
      {"a\nb", "a\nb\n"},       /* the final newline is part of the text */
      {"a\n\nb\n", "a\nb\n"},   /* line structure */
  };
  for (size_t i = 0; i < sizeof aDiff / sizeof aDiff[0]; i++) {
    hash_of(aDiff[i][0], "", azA);
    hash_of(aDiff[i][1], "", azB);
    if (strcmp(azA, azB) == 0) fail_msg("case %zu: '%s' and '%s' should hash differently", i, aDiff[i][0], aDiff[i][1]);
  }
}

static void test_hash_flags(void **state) {
  (void)state;
  char azA[17], azB[17];
  /* the NUL separator: moving bytes between text and flags changes the hash */
  hash_of("ab", "", azA);
  hash_of("a", "b", azB);
  assert_string_not_equal(azA, azB);
  hash_of("k\n", "--use_fast_math", azA);
  hash_of("k\n", "", azB);
  assert_string_not_equal(azA, azB);
  /* flags are taken as given (not normalized) */
  hash_of("k\n", "-O3 ", azA);
  hash_of("k\n", "-O3", azB);
  assert_string_not_equal(azA, azB);
  hash_of("k\n", "-O3", azA);
  assert_string_equal(azA, azB);
}

/* ---- append and read ---- */

static void test_round_trip(void **state) {
  (void)state;
  const char *zPath = path_of("round.jsonl");
  ks_journal_entry e = {0};
  e.zEvent = "candidate";
  e.iRound = 3;
  e.zParent = "0123456789abcdef";
  e.zHash = "fedcba9876543210";
  e.zSkill = "mem.vectorize-128";
  e.zRule = "vectorize";
  e.zVerdict = "accepted";
  e.bHasSpeedup = 1;
  e.rSpeedup = 1.25;
  e.zReason = "dram 85% -> 91%, \"quoted\"\ttab";
  const char *azParams[] = {"width=4", "tail=scalar"};
  assert_int_equal(ks_journal_append_candidate(zPath, &e, azParams, 2), KS_OK);
  assert_int_equal(ks_journal_append(zPath, "{\"ks_journal\": 1, \"event\": \"round\", \"round\": 4}"), KS_OK);
  ks_journal_entry e2 = {0};
  e2.zEvent = "candidate";
  e2.zParent = "fedcba9876543210";
  e2.zSkill = "lat.coarsen-mlp";
  e2.zVerdict = "compile_error";
  assert_int_equal(ks_journal_append_candidate(zPath, &e2, NULL, 0), KS_OK);

  ks_journal *pJ = NULL;
  assert_int_equal(ks_journal_read(zPath, &pJ), KS_OK);
  assert_int_equal(pJ->n, 3);
  assert_false(pJ->bTornTail);
  assert_string_equal(pJ->zPath, zPath);
  ks_journal_entry *a = pJ->a;
  assert_int_equal(a[0].iLine, 1);
  assert_string_equal(a[0].zEvent, "candidate");
  assert_int_equal(a[0].iRound, 3);
  assert_string_equal(a[0].zParent, "0123456789abcdef");
  assert_string_equal(a[0].zHash, "fedcba9876543210");
  assert_string_equal(a[0].zSkill, "mem.vectorize-128");
  assert_string_equal(a[0].zRule, "vectorize");
  assert_string_equal(a[0].zVerdict, "accepted");
  assert_true(a[0].bHasSpeedup);
  assert_true(a[0].rSpeedup == 1.25);
  assert_string_equal(a[0].zReason, "dram 85% -> 91%, \"quoted\"\ttab");
  assert_non_null(strstr(a[0].zJson, "\"params\":{\"width\":\"4\",\"tail\":\"scalar\"}"));
  assert_int_equal(a[1].iLine, 2);
  assert_string_equal(a[1].zEvent, "round");
  assert_int_equal(a[1].iRound, 4);
  assert_null(a[1].zVerdict);
  assert_false(a[1].bHasSpeedup);
  assert_int_equal(a[2].iLine, 3);
  assert_string_equal(a[2].zVerdict, "compile_error");
  assert_null(a[2].zRule);
  assert_false(a[2].bHasSpeedup);
  ks_journal_free(pJ);

  /* each record is one compact line */
  char *zText = read_all(zPath);
  int nLines = 0;
  for (char *z = zText; *z; z++) nLines += *z == '\n';
  assert_int_equal(nLines, 3);
  assert_int_equal(zText[strlen(zText) - 1], '\n');
  free(zText);
}

static void test_append_rejects(void **state) {
  (void)state;
  const char *zPath = path_of("reject.jsonl");
  assert_int_equal(ks_journal_append(zPath, "[1, 2]"), KS_EINVAL);
  assert_int_equal(ks_journal_append(zPath, "{\"event\": \"x\"}"), KS_EINVAL);
  assert_int_equal(ks_journal_append(zPath, "{\"ks_journal\": 2, \"event\": \"x\"}"), KS_EINVAL);
  assert_int_equal(ks_journal_append(zPath, "{\"ks_journal\": 1}"), KS_EINVAL);
  assert_int_equal(ks_journal_append(zPath, "{\"ks_journal\": 1, \"event\": "), KS_EINVAL);
  assert_false(ks_file_exists(zPath)); /* nothing written for a rejected record */
  const char *azBad[] = {"novalue"};
  ks_journal_entry e = {0};
  e.zParent = "p";
  e.zSkill = "s";
  e.zVerdict = "slower";
  assert_int_equal(ks_journal_append_candidate(zPath, &e, azBad, 1), KS_EINVAL);
  assert_non_null(strstr(ks_error_msg(), "'novalue' is not k=v"));
  assert_int_equal(ks_journal_append("/nonexistent-dir/j.jsonl", "{\"ks_journal\": 1, \"event\": \"x\"}"), KS_EIO);
  assert_non_null(strstr(ks_error_msg(), "/nonexistent-dir/j.jsonl: cannot open"));
}

/* Several processes append at once: every record arrives whole, on its own line. */
static void test_concurrent_appends(void **state) {
  (void)state;
  enum { N_PROC = 4, N_EACH = 25 };
  const char *zPath = path_of("many.jsonl");
  char zCopy[400];
  snprintf(zCopy, sizeof zCopy, "%s", zPath);
  pid_t aPid[N_PROC];
  for (int p = 0; p < N_PROC; p++) {
    aPid[p] = fork();
    assert_true(aPid[p] >= 0);
    if (aPid[p] == 0) {
      for (int i = 0; i < N_EACH; i++) {
        char z[256];
        snprintf(z, sizeof z, "{\"ks_journal\": 1, \"event\": \"note\", \"round\": %d, \"reason\": \"proc %d record %d %s\"}",
                 p * 1000 + i, p, i, "padding-padding-padding-padding-padding-padding");
        if (ks_journal_append(zCopy, z) != KS_OK) _exit(1);
      }
      _exit(0);
    }
  }
  for (int p = 0; p < N_PROC; p++) {
    int st = 0;
    assert_int_equal(waitpid(aPid[p], &st, 0), aPid[p]);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }
  ks_journal *pJ = NULL;
  assert_int_equal(ks_journal_read(zCopy, &pJ), KS_OK);
  assert_int_equal(pJ->n, N_PROC * N_EACH);
  assert_false(pJ->bTornTail);
  /* every (process, record) pair exactly once, each process in order */
  int aNext[N_PROC] = {0};
  for (int i = 0; i < pJ->n; i++) {
    int p = pJ->a[i].iRound / 1000, k = pJ->a[i].iRound % 1000;
    assert_true(p >= 0 && p < N_PROC);
    assert_int_equal(k, aNext[p]);
    aNext[p]++;
    assert_int_equal(pJ->a[i].iLine, i + 1);
  }
  ks_journal_free(pJ);
}

/* ---- damaged files ---- */

static const char zGood1[] =
    "{\"ks_journal\":1,\"event\":\"candidate\",\"round\":1,\"parent\":\"aaaa\",\"skill\":\"mem.vectorize-128\","
    "\"verdict\":\"slower\",\"speedup\":0.9}\n";
static const char zGood2[] =
    "{\"ks_journal\":1,\"event\":\"candidate\",\"round\":2,\"parent\":\"aaaa\",\"skill\":\"lat.coarsen-mlp\","
    "\"verdict\":\"accepted\",\"speedup\":1.3}\n";

static void test_torn_tail(void **state) {
  (void)state;
  const char *zPath = path_of("torn.jsonl");
  char zText[1024];
  snprintf(zText, sizeof zText, "%s%s{\"ks_journal\":1,\"event\":\"candi", zGood1, zGood2);
  write_file(zPath, zText);
  ks_journal *pJ = NULL;
  assert_int_equal(ks_journal_read(zPath, &pJ), KS_OK);
  assert_int_equal(pJ->n, 2);
  assert_true(pJ->bTornTail);
  assert_string_equal(pJ->a[1].zSkill, "lat.coarsen-mlp");
  ks_journal_free(pJ);

  /* the next append drops the torn record instead of gluing onto it */
  assert_int_equal(ks_journal_append(zPath, "{\"ks_journal\": 1, \"event\": \"round\", \"round\": 3}"), KS_OK);
  assert_int_equal(ks_journal_read(zPath, &pJ), KS_OK);
  assert_int_equal(pJ->n, 3);
  assert_false(pJ->bTornTail);
  assert_string_equal(pJ->a[2].zEvent, "round");
  assert_int_equal(pJ->a[2].iLine, 3);
  ks_journal_free(pJ);
  char *zNow = read_all(zPath);
  assert_null(strstr(zNow, "candi{"));
  free(zNow);

  /* a file that is nothing but a torn record */
  zPath = path_of("torn-only.jsonl");
  write_file(zPath, "{\"ks_journal\":1,\"ev");
  assert_int_equal(ks_journal_read(zPath, &pJ), KS_OK);
  assert_int_equal(pJ->n, 0);
  assert_true(pJ->bTornTail);
  ks_journal_free(pJ);
  assert_int_equal(ks_journal_append(zPath, "{\"ks_journal\": 1, \"event\": \"start\"}"), KS_OK);
  zNow = read_all(zPath);
  assert_string_equal(zNow, "{\"ks_journal\":1,\"event\":\"start\"}\n");
  free(zNow);

  /* a complete last record without its newline is kept, and the next append
   * does not cut it (it is whole JSON: the write completed but for the LF) */
  zPath = path_of("no-newline.jsonl");
  snprintf(zText, sizeof zText, "%s%.*s", zGood1, (int)strlen(zGood2) - 1, zGood2);
  write_file(zPath, zText);
  assert_int_equal(ks_journal_read(zPath, &pJ), KS_OK);
  assert_int_equal(pJ->n, 2);
  assert_false(pJ->bTornTail);
  ks_journal_free(pJ);
}

static void expect_bad(const char *zName, const char *zText, int rcWant, const char *zMsg) {
  const char *zPath = path_of(zName);
  char zWant[600];
  write_file(zPath, zText);
  ks_journal *pJ = (ks_journal *)1;
  int rc = ks_journal_read(zPath, &pJ);
  snprintf(zWant, sizeof zWant, "%s:%s", zPath, zMsg);
  if (rc != rcWant || strncmp(ks_error_msg(), zWant, strlen(zWant)) != 0)
    fail_msg("%s: rc %d, message '%s', wanted %d '%s'", zName, rc, ks_error_msg(), rcWant, zWant);
  assert_null(pJ);
}

static void test_bad_lines(void **state) {
  (void)state;
  char z[2048];
  snprintf(z, sizeof z, "%s{\"ks_journal\":1,\"event\":\"candi\n%s", zGood1, zGood2);
  expect_bad("mid.jsonl", z, KS_EPARSE, "2: not a JSON object");
  snprintf(z, sizeof z, "%s\n\n[1,2]\n%s", zGood1, zGood2);
  expect_bad("array.jsonl", z, KS_EPARSE, "4: not a JSON object");
  snprintf(z, sizeof z, "%s{\"event\":\"candidate\"}\n", zGood1);
  expect_bad("nofmt.jsonl", z, KS_EINVAL, "2: not a journal record");
  expect_bad("noevent.jsonl", "{\"ks_journal\":1}\n", KS_EINVAL, "1: record without \"event\"");
  expect_bad("verdict.jsonl", "{\"ks_journal\":1,\"event\":\"candidate\",\"parent\":\"a\",\"skill\":\"s\",\"verdict\":\"meh\"}\n",
             KS_EINVAL, "1: candidate record with unknown verdict \"meh\"");
  expect_bad("noverdict.jsonl", "{\"ks_journal\":1,\"event\":\"candidate\",\"parent\":\"a\",\"skill\":\"s\"}\n", KS_EINVAL,
             "1: candidate record with no verdict");
  expect_bad("noparent.jsonl", "{\"ks_journal\":1,\"event\":\"candidate\",\"skill\":\"s\",\"verdict\":\"noise\"}\n",
             KS_EINVAL, "1: candidate record needs \"parent\" and \"skill\"");
  expect_bad("types.jsonl", "{\"ks_journal\":1,\"event\":\"x\",\"round\":\"3\"}\n", KS_EINVAL,
             "1: \"round\" should be a number");
  expect_bad("types2.jsonl", "{\"ks_journal\":1,\"event\":\"x\",\"skill\":7}\n", KS_EINVAL,
             "1: \"skill\" should be a string");
  expect_bad("types3.jsonl", "{\"ks_journal\":1,\"event\":\"x\",\"speedup\":\"fast\"}\n", KS_EINVAL,
             "1: \"speedup\" should be a number");
  /* a bad terminated last line is an error, not a torn tail */
  snprintf(z, sizeof z, "%s{\"ks_journal\":1,\"ev\n", zGood1);
  expect_bad("badlast.jsonl", z, KS_EPARSE, "2: not a JSON object");
}

static void test_empty(void **state) {
  (void)state;
  ks_journal *pJ = NULL;
  const char *zPath = path_of("missing.jsonl");
  assert_int_equal(ks_journal_read(zPath, &pJ), KS_OK);
  assert_int_equal(pJ->n, 0);
  assert_false(pJ->bTornTail);
  ks_journal_free(pJ);
  static const char *const aEmpty[] = {"", "\n", "\n\n  \n\t\r\n", "  "};
  for (size_t i = 0; i < sizeof aEmpty / sizeof aEmpty[0]; i++) {
    zPath = path_of("empty.jsonl");
    write_file(zPath, aEmpty[i]);
    assert_int_equal(ks_journal_read(zPath, &pJ), KS_OK);
    assert_int_equal(pJ->n, 0);
    assert_false(pJ->bTornTail);
    ks_journal_free(pJ);
  }
  /* blank lines and CRLF between records: line numbers still count them */
  zPath = path_of("blank.jsonl");
  char z[1024];
  snprintf(z, sizeof z, "\n%.*s\r\n\n%s", (int)strlen(zGood1) - 1, zGood1, zGood2);
  write_file(zPath, z);
  assert_int_equal(ks_journal_read(zPath, &pJ), KS_OK);
  assert_int_equal(pJ->n, 2);
  assert_int_equal(pJ->a[0].iLine, 2);
  assert_int_equal(pJ->a[1].iLine, 4);
  ks_journal_free(pJ);
}

static void test_verdicts(void **state) {
  (void)state;
  const char *const *az = ks_journal_verdicts();
  int n = 0;
  while (az[n]) n++;
  assert_int_equal(n, 8);
  assert_string_equal(az[0], "accepted");
  assert_string_equal(az[7], "refused");
}

int main(void) {
  const struct CMUnitTest aTests[] = {
      cmocka_unit_test(test_hash_vectors),     cmocka_unit_test(test_hash_normalization),
      cmocka_unit_test(test_hash_flags),       cmocka_unit_test(test_round_trip),
      cmocka_unit_test(test_append_rejects),   cmocka_unit_test(test_concurrent_appends),
      cmocka_unit_test(test_torn_tail),        cmocka_unit_test(test_bad_lines),
      cmocka_unit_test(test_empty),            cmocka_unit_test(test_verdicts),
  };
  return cmocka_run_group_tests(aTests, setup_dir, teardown_dir);
}
