/* test_features.c — unit tests of the Feature Extractor's library API: parsing
 * text held in memory, re-parsing after an edit, diagnostics, option versions,
 * unknown kernels, and launch sites through the internal AST helpers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

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

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_parse_from_memory),
      cmocka_unit_test(test_reparse_sees_the_edit),
      cmocka_unit_test(test_diagnostics_in_user_code),
      cmocka_unit_test(test_unknown_kernel_and_bad_version),
      cmocka_unit_test(test_missing_file),
      cmocka_unit_test(test_launch_sites),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
