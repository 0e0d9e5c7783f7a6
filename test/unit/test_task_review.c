/* test_task_review.c — the Reviewer's CPU-side judgement, without a GPU: output
 * comparison (poison left, NaN, constant output, tolerance and the worst
 * element, integer exactness, f16/bf16 decoding), timing order statistics, the
 * `// kernelskill-flags:` line, and compile-only review of a task. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernelskill/review.h"

static void expect_fail(ks_dtype e, size_t n, const void *pRef, const void *pGot, double rR, double rA,
                        const char *zWant) {
  char *zWhy = NULL;
  assert_int_equal(ks_review_compare(e, n, pRef, pGot, rR, rA, &zWhy), KS_EINVAL);
  assert_non_null(zWhy);
  if (!strstr(zWhy, zWant)) fail_msg("got '%s', want '%s'", zWhy, zWant);
  free(zWhy);
}

static void test_compare_f32(void **state) {
  (void)state;
  float aRef[8] = {1, 2, 3, 4, 5, 6, 7, 8}, aGot[8];
  char *zWhy = NULL;
  memcpy(aGot, aRef, sizeof aGot);
  aGot[3] += 1e-5f;
  assert_int_equal(ks_review_compare(KS_DT_F32, 8, aRef, aGot, 1e-4, 1e-5, &zWhy), KS_OK);
  assert_null(zWhy);
  /* Worst element named with index, expected and got. */
  aGot[5] = 6.5f;
  aGot[6] = 7.01f;
  expect_fail(KS_DT_F32, 8, aRef, aGot, 1e-4, 1e-5,
              "2 of 8 elements outside tolerance (rtol 0.0001, atol 1e-05); worst at index 5: expected 6, got 6.5");
  /* Poison left: 0xFF bytes are unwritten elements. */
  memcpy(aGot, aRef, sizeof aGot);
  memset(aGot + 4, 0xFF, 4 * sizeof(float));
  expect_fail(KS_DT_F32, 8, aRef, aGot, 1e-4, 1e-5, "4 of 8 elements not written (still 0xFF poison), first at index 4");
  /* NaN never passes, even with a huge tolerance. */
  memcpy(aGot, aRef, sizeof aGot);
  aGot[2] = NAN;
  expect_fail(KS_DT_F32, 8, aRef, aGot, 1e30, 1e30, "1 elements are NaN/Inf where the reference is finite, first at index 2");
  /* All zeros where the reference varies, even within a loose tolerance. */
  memset(aGot, 0, sizeof aGot);
  expect_fail(KS_DT_F32, 8, aRef, aGot, 1e30, 1e30, "output is constant (every element 0) where the reference's is not");
  /* A constant reference makes a constant output fine. */
  float aConst[4] = {2, 2, 2, 2};
  assert_int_equal(ks_review_compare(KS_DT_F32, 4, aConst, aConst, 0, 0, &zWhy), KS_OK);
  /* Matching infinities pass; a finite value against inf does not. */
  float aInf[2] = {INFINITY, 1}, aInf2[2] = {INFINITY, 1};
  assert_int_equal(ks_review_compare(KS_DT_F32, 2, aInf, aInf2, 0, 0, &zWhy), KS_OK);
}

static void test_compare_ints_halves(void **state) {
  (void)state;
  int32_t aRef[4] = {1, -1, 3, 4}, aGot[4] = {1, -1, 3, 5};
  expect_fail(KS_DT_I32, 4, aRef, aGot, 0, 0, "1 of 4 elements outside tolerance");
  aGot[3] = 4;
  char *zWhy = NULL;
  /* -1 equals the poison pattern, but the reference has -1 there too: written. */
  assert_int_equal(ks_review_compare(KS_DT_I32, 4, aRef, aGot, 0, 0, &zWhy), KS_OK);
  aGot[2] = -1;
  expect_fail(KS_DT_I32, 4, aRef, aGot, 0, 0, "1 of 4 elements not written");
  /* f16: 0x3C00 = 1.0, 0x4000 = 2.0, 0x3555 ~ 0.333; bf16: 0x3F80 = 1.0. */
  uint16_t aH[3] = {0x3C00, 0x4000, 0x3555};
  assert_true(ks_review_elem(KS_DT_F16, aH, 0) == 1.0);
  assert_true(ks_review_elem(KS_DT_F16, aH, 1) == 2.0);
  assert_true(fabs(ks_review_elem(KS_DT_F16, aH, 2) - 1.0 / 3) < 1e-3);
  uint16_t aB[2] = {0x3F80, 0xC000};
  assert_true(ks_review_elem(KS_DT_BF16, aB, 0) == 1.0);
  assert_true(ks_review_elem(KS_DT_BF16, aB, 1) == -2.0);
  uint16_t aH2[3] = {0x3C00, 0x4000, 0x3556};
  assert_int_equal(ks_review_compare(KS_DT_F16, 3, aH, aH2, 1e-2, 1e-2, &zWhy), KS_OK);
  uint8_t aU[3] = {0, 7, 255}, aU2[3] = {0, 7, 254};
  expect_fail(KS_DT_U8, 3, aU, aU2, 0, 0, "worst at index 2: expected 255, got 254");
}

static void test_stats(void **state) {
  (void)state;
  double ar[] = {0.005, 0.001, 0.003, 0.002, 0.004}; /* ms */
  ks_timing_stats s;
  ks_review_stats(ar, 5, &s);
  assert_int_equal(s.n, 5);
  assert_true(fabs(s.rMedianUs - 3) < 1e-9);
  assert_true(fabs(s.rMinUs - 1) < 1e-9 && fabs(s.rMaxUs - 5) < 1e-9);
  assert_true(fabs(s.rQ1Us - 2) < 1e-9 && fabs(s.rQ3Us - 4) < 1e-9);
  assert_true(fabs(s.rMeanUs - 3) < 1e-9);
  double ar2[] = {0.001, 0.002};
  ks_review_stats(ar2, 2, &s);
  assert_true(fabs(s.rMedianUs - 1.5) < 1e-9);
}

static void test_flags(void **state) {
  (void)state;
  char zPath[] = "/tmp/test_task_review_XXXXXX";
  int fd = mkstemp(zPath);
  assert_true(fd >= 0);
  const char *z = "#include <x.h>\n  // kernelskill-flags:  --use_fast_math -Xptxas -O3   \n__global__ void k() {}\n";
  assert_int_equal(ks_file_write_atomic(zPath, z, strlen(z)), KS_OK);
  char *zFlags = ks_review_source_flags(zPath);
  assert_non_null(zFlags);
  assert_string_equal(zFlags, "--use_fast_math -Xptxas -O3");
  free(zFlags);
  const char *z2 = "__global__ void k() {}\n";
  assert_int_equal(ks_file_write_atomic(zPath, z2, strlen(z2)), KS_OK);
  assert_null(ks_review_source_flags(zPath));
  remove(zPath);
}

static void test_verdict_names(void **state) {
  (void)state;
  /* The journal's vocabulary. */
  assert_string_equal(ks_verdict_name(KS_VERDICT_ACCEPTED), "accepted");
  assert_string_equal(ks_verdict_name(KS_VERDICT_SLOWER), "slower");
  assert_string_equal(ks_verdict_name(KS_VERDICT_NOISE), "noise");
  assert_string_equal(ks_verdict_name(KS_VERDICT_COMPILE_ERROR), "compile_error");
  assert_string_equal(ks_verdict_name(KS_VERDICT_WRONG_RESULT), "wrong_result");
  assert_string_equal(ks_verdict_name(KS_VERDICT_RUNTIME_ERROR), "runtime_error");
  assert_string_equal(ks_verdict_name(KS_VERDICT_TIMEOUT), "timeout");
}

/* The library API without a GPU: compile-only review of the fixture task. */
static void test_review_compile_only(void **state) {
  (void)state;
  ks_task *t = NULL;
  int rc = ks_task_load(KS_TEST_SOURCE_DIR "/review/Inputs/vadd_small.json", &t);
  if (rc != KS_OK) fail_msg("%s", ks_error_msg());
  ks_review_opts o = KS_REVIEW_OPTS_INIT;
  o.bCompileOnly = 1;
  o.zCandidate = KS_TEST_SOURCE_DIR "/review/Inputs/bad_cxx_entry.cu";
  ks_review_result *r = NULL;
  rc = ks_review_run(t, &o, &r);
  if (rc != KS_OK) fail_msg("%s", ks_error_msg());
  assert_int_equal(r->eVerdict, KS_VERDICT_COMPILE_ERROR);
  assert_non_null(strstr(r->zDetail, "not defined with extern \"C\" linkage"));
  assert_non_null(strstr(r->zEvidence, "\"verdict\":\t\"compile_error\""));
  ks_review_result_free(r);
  ks_task_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_compare_f32),      cmocka_unit_test(test_compare_ints_halves),
      cmocka_unit_test(test_stats),            cmocka_unit_test(test_flags),
      cmocka_unit_test(test_verdict_names),    cmocka_unit_test(test_review_compile_only),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
