/* test_features.c — unit tests of the Feature Extractor's library API: parsing
 * text held in memory, re-parsing after an edit, diagnostics, option versions,
 * unknown kernels, launch sites through the internal AST helpers, and a
 * re-parse that survives another process replacing the cached PCH. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "features/ast.h"
#include "kernelskill/features.h"

static const char zVadd[] =
    "__global__ void vadd(const float *a, const float *b, float *c, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) c[i] = a[i] + b[i];\n"
    "}\n"
    "void go(float *a, float *b, float *c, int n) { vadd<<<(n + 127) / 128, 128>>>(a, b, c, n); }\n";

static ks_tu *parse_text(const char *zText, int bReparse) {
  ks_parse_opts po = KS_PARSE_OPTS_INIT;
  po.zContents = zText;
  po.nContents = strlen(zText);
  po.bReparse = bReparse;
  ks_tu *pTu = NULL;
  assert_int_equal(ks_tu_parse("memory.cu", &po, &pTu), KS_OK);
  return pTu;
}

static void test_parse_from_memory(void **state) {
  (void)state;
  ks_tu *pTu = parse_text(zVadd, 0);
  assert_int_equal(ks_tu_error_count(pTu), 0);
  size_t n = 0;
  assert_string_equal(ks_tu_source(pTu, &n), zVadd);
  assert_int_equal(n, strlen(zVadd));
  ks_buf out = KS_BUF_INIT;
  assert_int_equal(ks_features_json(pTu, NULL, &out), KS_OK);
  assert_non_null(strstr(out.z, "\"ks_features\":\t1"));
  assert_non_null(strstr(out.z, "\"pointwise\":\ttrue"));
  ks_buf_free(&out);
  ks_tu_free(pTu);
}

static void test_reparse_sees_the_edit(void **state) {
  (void)state;
  ks_tu *pTu = parse_text(zVadd, 1);
  const char zEdited[] =
      "__global__ void vadd(const float *a, const float *b, float *c, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < n) c[i] = expf(a[i]) + b[i];\n"
      "}\n"
      "__global__ void extra(float *p) { p[threadIdx.x] = 0.f; }\n";
  assert_int_equal(ks_tu_reparse(pTu, zEdited, strlen(zEdited)), KS_OK);
  ks_features_opts fo = KS_FEATURES_OPTS_INIT;
  fo.zKernel = "extra";
  ks_buf out = KS_BUF_INIT;
  assert_int_equal(ks_features_json(pTu, &fo, &out), KS_OK);
  assert_non_null(strstr(out.z, "\"name\":\t\"extra\""));
  ks_buf_clear(&out);
  fo.zKernel = "vadd";
  assert_int_equal(ks_features_json(pTu, &fo, &out), KS_OK);
  assert_non_null(strstr(out.z, "\"expf\":\t1"));
  ks_buf_free(&out);
  ks_tu_free(pTu);
}

static void test_diagnostics_in_user_code(void **state) {
  (void)state;
  ks_tu *pTu = parse_text("__global__ void k(float *p) { p[0] = nope; }\n", 0);
  assert_int_equal(ks_tu_error_count(pTu), 1);
  ks_buf d = KS_BUF_INIT;
  assert_int_equal(ks_tu_diagnostics(pTu, &d), KS_OK);
  assert_non_null(strstr(d.z, "memory.cu:1:"));
  assert_non_null(strstr(d.z, "error: use of undeclared identifier 'nope'"));
  ks_buf_free(&d);
  ks_tu_free(pTu);
}

static void test_unknown_kernel_and_bad_version(void **state) {
  (void)state;
  ks_tu *pTu = parse_text(zVadd, 0);
  ks_features_opts fo = KS_FEATURES_OPTS_INIT;
  fo.zKernel = "missing";
  ks_buf out = KS_BUF_INIT;
  assert_int_equal(ks_features_json(pTu, &fo, &out), KS_ENOTFOUND);
  assert_non_null(strstr(ks_error_msg(), "no __global__ kernel named 'missing'"));
  fo.version = 99;
  assert_int_equal(ks_features_text(pTu, &fo, &out), KS_EUSAGE);
  ks_parse_opts po = KS_PARSE_OPTS_INIT;
  po.version = 99;
  ks_tu *pOther = NULL;
  assert_int_equal(ks_tu_parse("x.cu", &po, &pOther), KS_EUSAGE);
  assert_null(pOther);
  ks_buf_free(&out);
  ks_tu_free(pTu);
}

static void test_missing_file(void **state) {
  (void)state;
  ks_tu *pTu = NULL;
  assert_int_equal(ks_tu_parse("/nonexistent/k.cu", NULL, &pTu), KS_ENOTFOUND);
  assert_null(pTu);
}

static void test_launch_sites(void **state) {
  (void)state;
  ks_tu *pTu = parse_text(zVadd, 0);
  ks_launch *a = NULL;
  int n = 0;
  assert_int_equal(ks_ast_launches(pTu, "vadd", &a, &n), KS_OK);
  assert_int_equal(n, 1);
  assert_string_equal(a[0].zKernel, "vadd");
  assert_string_equal(a[0].zHostFn, "go");
  assert_string_equal(a[0].azCfg[0], "(n + 127) / 128");
  assert_string_equal(a[0].azCfg[1], "128");
  assert_null(a[0].azCfg[2]);
  assert_int_equal(a[0].nBlockThreads, 128);
  assert_int_equal(a[0].nArgs, 4);
  assert_string_equal(a[0].azArg[3], "n");
  /* The recorded offsets cover exactly the launch text. */
  assert_memory_equal(zVadd + a[0].iStart, "vadd<<<", 7);
  assert_memory_equal(zVadd + a[0].iCfgStart, "(n + 127)", 9);
  ks_ast_launches_free(a, n);
  assert_int_equal(ks_ast_launches(pTu, "other", &a, &n), KS_OK);
  assert_int_equal(n, 0);
  ks_ast_launches_free(a, n);
  ks_tu_free(pTu);
}

/* Names in zDir holding zPart. */
static int count_names(const char *zDir, const char *zPart) {
  DIR *d = opendir(zDir);
  assert_non_null(d);
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)))
    if (strstr(e->d_name, zPart)) n++;
  closedir(d);
  return n;
}

static void remove_names(const char *zDir, const char *zPart) {
  DIR *d = opendir(zDir);
  assert_non_null(d);
  struct dirent *e;
  char aPath[600];
  while ((e = readdir(d)))
    if (strstr(e->d_name, zPart) && strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
      snprintf(aPath, sizeof aPath, "%s/%s", zDir, e->d_name);
      assert_int_equal(unlink(aPath), 0);
    }
  closedir(d);
}

/* clang reads the PCH again on every re-parse: an entry that another
 * process forgets, evicts or rebuilds meanwhile must not break the loop's
 * TU (it did: "libclang could not re-parse the file"). */
static void test_reparse_survives_pch_churn(void **state) {
  (void)state;
  char aDir[] = "/tmp/ks-test-pch-XXXXXX";
  assert_non_null(mkdtemp(aDir));
  setenv("KS_PCH_CACHE", aDir, 1);
  ks_tu *pTu = parse_text(zVadd, 1);
  assert_int_equal(count_names(aDir, ".pch"), 1);
  assert_int_equal(count_names(aDir, ".use-"), 1);
  remove_names(aDir, ".pch"); /* forgotten or evicted by another process */
  remove_names(aDir, ".deps");
  assert_int_equal(ks_tu_reparse(pTu, zVadd, strlen(zVadd)), KS_OK);
  ks_tu *pOther = parse_text(zVadd, 0); /* rebuilt under the same name */
  assert_int_equal(count_names(aDir, ".pch"), 1);
  assert_int_equal(ks_tu_reparse(pTu, zVadd, strlen(zVadd)), KS_OK);
  ks_tu_free(pOther);
  ks_tu_free(pTu);
  assert_int_equal(count_names(aDir, ".use-"), 0);
  /* A process killed while holding a link (or building) leaves it; the
   * next lookup removes it. */
  pid_t pid = fork();
  if (pid == 0) _exit(0);
  assert_true(pid > 0);
  waitpid(pid, NULL, 0);
  char aPath[700];
  snprintf(aPath, sizeof aPath, "%s/0123456789abcdef.use-%ld-0", aDir, (long)pid);
  FILE *f = fopen(aPath, "w");
  assert_non_null(f);
  fclose(f);
  snprintf(aPath, sizeof aPath, "%s/.tmp-%ld-abcdef", aDir, (long)pid);
  assert_non_null(f = fopen(aPath, "w"));
  fclose(f);
  snprintf(aPath, sizeof aPath, "%s/0123456789abcdef.use-%ld-0", aDir, (long)getpid());
  assert_non_null(f = fopen(aPath, "w")); /* a live process's: kept */
  fclose(f);
  pTu = parse_text(zVadd, 0);
  ks_tu_free(pTu);
  assert_int_equal(count_names(aDir, ".use-"), 1);
  assert_int_equal(count_names(aDir, ".tmp-"), 0);
  remove_names(aDir, "");
  assert_int_equal(rmdir(aDir), 0);
  unsetenv("KS_PCH_CACHE");
}

/* The preamble lives in memory: libclang's default, a temporary file,
 * broke the re-parse when anything removed it (error 1) and stayed behind
 * in /tmp when the process was killed. */
static void test_preamble_in_memory(void **state) {
  (void)state;
  char aTmp[] = "/tmp/ks-test-tmpdir-XXXXXX";
  assert_non_null(mkdtemp(aTmp));
  const char *zOld = getenv("TMPDIR");
  char *zKeep = zOld ? strdup(zOld) : NULL;
  setenv("TMPDIR", aTmp, 1);
  /* A preamble needs includes and a main file on disk. */
  static const char zIncl[] = "#include <stdio.h>\n#include <math.h>\n__global__ void k(float *p) { p[0] = 1.0f; }\n";
  char aFile[100];
  snprintf(aFile, sizeof aFile, "%s/k.cu", aTmp);
  FILE *f = fopen(aFile, "w");
  assert_non_null(f);
  fputs(zIncl, f);
  fclose(f);
  ks_parse_opts po = KS_PARSE_OPTS_INIT;
  po.bReparse = 1;
  ks_tu *pTu = NULL;
  assert_int_equal(ks_tu_parse(aFile, &po, &pTu), KS_OK);
  assert_int_equal(ks_tu_reparse(pTu, zIncl, strlen(zIncl)), KS_OK);
  assert_int_equal(count_names(aTmp, "preamble"), 0);
  ks_tu_free(pTu);
  if (zKeep) setenv("TMPDIR", zKeep, 1);
  else unsetenv("TMPDIR");
  free(zKeep);
  remove_names(aTmp, "");
  assert_int_equal(rmdir(aTmp), 0);
}

/* A re-parse libclang fails (here: the prefix it reads again is gone) is
 * done as a fresh parse, without the prefix clang can no longer read. */
static void test_reparse_falls_back_to_a_full_parse(void **state) {
  (void)state;
  char aDir[] = "/tmp/ks-test-pch-XXXXXX";
  assert_non_null(mkdtemp(aDir));
  setenv("KS_PCH_CACHE", aDir, 1);
  ks_tu *pTu = parse_text(zVadd, 1);
  assert_non_null(pTu->zPch);
  remove_names(aDir, ""); /* the entry and the TU's own link */
  const char *zEdit = "__global__ void other(float *p) { p[threadIdx.x] = 0.0f; }\n";
  assert_int_equal(ks_tu_reparse(pTu, zEdit, strlen(zEdit)), KS_OK);
  assert_null(pTu->zPch);
  assert_int_equal(ks_tu_error_count(pTu), 0);
  ks_launch *a = NULL;
  int n = -1;
  assert_int_equal(ks_ast_launches(pTu, "vadd", &a, &n), KS_OK);
  assert_int_equal(n, 0); /* the edit is what was parsed */
  ks_ast_launches_free(a, n);
  ks_tu_free(pTu);
  remove_names(aDir, "");
  assert_int_equal(rmdir(aDir), 0);
  unsetenv("KS_PCH_CACHE");
}

/* ks_tu_adopt borrows a translation unit: the ks_tu reads it as it reads a
 * parse, and freeing the ks_tu leaves it to its owner (under ASan a dispose
 * here would be a double free at the owner's ks_tu_free). */
static void test_adopt_borrows(void **state) {
  (void)state;
  ks_tu *pOwner = parse_text(zVadd, 0);
  ks_tu_load_opts lo = KS_TU_LOAD_OPTS_INIT;
  lo.zContents = zVadd;
  lo.nContents = strlen(zVadd);
  ks_tu *pTu = NULL;
  assert_int_equal(ks_tu_adopt("memory.cu", pOwner->pTu, &lo, &pTu), KS_OK);
  assert_int_equal(pTu->bBorrowed, 1);
  ks_buf out = KS_BUF_INIT;
  assert_int_equal(ks_features_json(pTu, NULL, &out), KS_OK);
  assert_non_null(strstr(out.z, "\"name\":\t\"vadd\""));
  assert_non_null(strstr(out.z, "\"pointwise\":\ttrue"));
  ks_buf_free(&out);
  ks_tu_free(pTu);
  assert_int_equal(ks_features_json(pOwner, NULL, &out), KS_OK); /* still the owner's */
  assert_non_null(strstr(out.z, "\"name\":\t\"vadd\""));
  ks_buf_free(&out);
  /* No unit, or options of another version: refused, nothing made. */
  pTu = (ks_tu *)&lo;
  assert_int_equal(ks_tu_adopt("memory.cu", NULL, &lo, &pTu), KS_EUSAGE);
  assert_null(pTu);
  lo.version = 99;
  assert_int_equal(ks_tu_adopt("memory.cu", pOwner->pTu, &lo, &pTu), KS_EUSAGE);
  assert_non_null(strstr(ks_error_msg(), "unsupported version 99"));
  assert_null(pTu);
  ks_tu_free(pOwner);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_parse_from_memory),
      cmocka_unit_test(test_reparse_sees_the_edit),
      cmocka_unit_test(test_diagnostics_in_user_code),
      cmocka_unit_test(test_unknown_kernel_and_bad_version),
      cmocka_unit_test(test_missing_file),
      cmocka_unit_test(test_launch_sites),
      cmocka_unit_test(test_reparse_survives_pch_churn),
      cmocka_unit_test(test_preamble_in_memory),
      cmocka_unit_test(test_reparse_falls_back_to_a_full_parse),
      cmocka_unit_test(test_adopt_borrows),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
