/* test_cond.c — the condition language: every parse/type error path with its
 * position, three-valued evaluation, specificity, and explanations. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "kernelskill/skills.h"

typedef struct err_case {
  const char *zText;
  const char *zWant; /* "<condition>:1:COL: message prefix" */
} err_case;

static const err_case aErr[] = {
    {"", "<condition>:1:1: empty condition"},
    {"features.pointwise @", "<condition>:1:20: unexpected character '@'"},
    {"features.structure == \"abc", "<condition>:1:23: unterminated string"},
    {"features.structure == \"a\\b\"", "<condition>:1:25: escapes are not allowed"},
    {"profile.dram_pct >= 1e", "<condition>:1:21: malformed number: exponent"},
    {"profile.dram_pct >= 1.2.3", "<condition>:1:21: malformed number"},
    {"profile.dram_pct >= 1x", "<condition>:1:21: malformed number"},
    {"features. && true", "<condition>:1:9: malformed field name"},
    {"pointwise", "<condition>:1:1: unknown field 'pointwise' (fields are"},
    {"metrics.dram >= 1", "<condition>:1:1: unknown field 'metrics.dram': no evidence source 'metrics'"},
    {"profile.dram >= 1", "<condition>:1:1: unknown field 'profile.dram'"},
    {"&& features.pointwise", "<condition>:1:1: expected a value"},
    {"(features.pointwise", "<condition>:1:20: expected ')'"},
    {"features.pointwise features.stencil", "<condition>:1:20: unexpected field after a complete condition"},
    {"features.pointwise & features.stencil", "<condition>:1:20: '&' is not an operator"},
    {"features.pointwise | features.stencil", "<condition>:1:20: '|' is not an operator"},
    {"profile.dram_pct = 3", "<condition>:1:18: '=' is not an operator"},
    {"1 < profile.dram_pct < 3", "<condition>:1:22: comparisons do not chain"},
    {"features.atomics && true", "<condition>:1:1: type error: '&&' needs a boolean"},
    {"true || features.atomics", "<condition>:1:9: type error: '||' needs a boolean"},
    {"!features.atomics", "<condition>:1:2: type error: '!' needs a boolean"},
    {"features.pointwise == 1", "<condition>:1:20: type error: '==' compares a boolean with a number"},
    {"features.structure < \"reuse\"", "<condition>:1:20: type error: '<' orders numbers only"},
    {"features.pointwise > true", "<condition>:1:20: type error: '>' orders numbers only"},
    {"derived.bottleneck == \"memroy\"", "<condition>:1:23: 'derived.bottleneck' is never \"memroy\""},
    {"\"memroy\" == derived.bottleneck", "<condition>:1:1: 'derived.bottleneck' is never \"memroy\""},
    {"profile.dram_pct", "<condition>:1:1: type error: a condition must be boolean"},
    {"features.pointwise\n&& features.atomics", "<condition>:2:4: type error: '&&' needs a boolean"},
    {"1e999 > 0", "<condition>:1:1: number out of range"},
    {"features.pointwise \x01", "<condition>:1:20: unexpected character (byte 0x01)"},
};

static void test_errors(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof aErr / sizeof aErr[0]; i++) {
    ks_cond *p = NULL;
    int rc = ks_cond_parse(aErr[i].zText, NULL, &p);
    if (rc != KS_EPARSE || strncmp(ks_error_msg(), aErr[i].zWant, strlen(aErr[i].zWant)) != 0)
      fail_msg("case %zu '%s': rc %d, message '%s', wanted '%s'", i, aErr[i].zText, rc, ks_error_msg(), aErr[i].zWant);
    assert_null(p);
  }
}

static void test_depth(void **state) {
  (void)state;
  char z[400];
  memset(z, '(', 100);
  strcpy(z + 100, "true");
  ks_cond *p = NULL;
  assert_int_equal(ks_cond_parse(z, NULL, &p), KS_EPARSE);
  assert_non_null(strstr(ks_error_msg(), "nested too deeply"));
  memset(z, '!', 100);
  strcpy(z + 100, "true");
  assert_int_equal(ks_cond_parse(z, NULL, &p), KS_EPARSE);
  assert_non_null(strstr(ks_error_msg(), "nested too deeply"));
}

static void test_json_position(void **state) {
  (void)state;
  /* the text decoded from "a \"x\" ..." : escapes shift columns in the file */
  const char *zRaw = "\"features.structure == \\\"x\\\"\"";
  ks_cond_loc loc = KS_COND_LOC_INIT;
  loc.zFile = "s.json";
  loc.iLine = 4;
  loc.iCol = 11;
  loc.zRaw = zRaw;
  ks_cond *p = NULL;
  assert_int_equal(ks_cond_parse("features.structure == \"x\"", &loc, &p), KS_EPARSE);
  assert_string_equal(ks_error_msg(), "s.json:4:34: 'features.structure' is never \"x\" (values: \"streaming\", \"reuse\", "
                                      "\"irregular\", \"reduction\", \"multi_kernel\")");
}

static ks_value eval(const char *z, ks_evidence *pEv) {
  ks_cond *p = NULL;
  ks_value v = {-1, 0, 0, 0};
  if (ks_cond_parse(z, NULL, &p) != KS_OK) fail_msg("parse '%s': %s", z, ks_error_msg());
  ks_cond_eval(p, pEv, &v);
  ks_cond_free(p);
  return v;
}

static void test_eval(void **state) {
  (void)state;
  ks_evidence *pEv = NULL;
  assert_int_equal(ks_evidence_new(&pEv), KS_OK);
  ks_value t = {KS_VAL_BOOL, 1, 0, 0}, n = {KS_VAL_NUM, 0, 82, 0};
  assert_int_equal(ks_evidence_set(pEv, "features.pointwise", &t, NULL), KS_OK);
  assert_int_equal(ks_evidence_set(pEv, "profile.dram_pct", &n, NULL), KS_OK);
  assert_int_equal(ks_evidence_set(pEv, "features.pointwise", &n, NULL), KS_EINVAL);
  ks_value v = eval("profile.dram_pct >= 80 && features.pointwise", pEv);
  assert_true(v.eType == KS_VAL_BOOL && v.b);
  v = eval("profile.dram_pct < 80 || !features.pointwise", pEv);
  assert_true(v.eType == KS_VAL_BOOL && !v.b);
  /* Kleene logic over missing evidence */
  v = eval("profile.sm_pct > 10", pEv);
  assert_int_equal(v.eType, KS_VAL_UNKNOWN);
  v = eval("profile.sm_pct > 10 && false", pEv);
  assert_true(v.eType == KS_VAL_BOOL && !v.b);
  v = eval("profile.sm_pct > 10 || features.pointwise", pEv);
  assert_true(v.eType == KS_VAL_BOOL && v.b);
  v = eval("!(profile.sm_pct > 10)", pEv);
  assert_int_equal(v.eType, KS_VAL_UNKNOWN);
  ks_cond *p = NULL;
  assert_int_equal(ks_cond_parse("(a.b || true) && features.pointwise", NULL, &p), KS_EPARSE);
  assert_int_equal(ks_cond_parse("profile.dram_pct >= 80 && features.pointwise && !features.uses_vector_types", NULL, &p), KS_OK);
  assert_int_equal(ks_cond_conjuncts(p), 3);
  ks_buf b = KS_BUF_INIT;
  ks_cond_explain(p, pEv, &b);
  /* an unknown outcome names only what is missing */
  assert_string_equal(ks_buf_cstr(&b), "features.uses_vector_types unknown");
  ks_buf_free(&b);
  ks_cond_free(p);
  ks_evidence_free(pEv);
}

static void test_vetoes_parse(void **state) {
  (void)state;
  for (const ks_veto *v = ks_plan_vetoes(); v->zName; v++) {
    ks_cond *p = NULL;
    if (ks_cond_parse(v->zCond, NULL, &p) != KS_OK) fail_msg("veto '%s': %s", v->zName, ks_error_msg());
    ks_cond_free(p);
  }
}

int main(void) {
  const struct CMUnitTest aTests[] = {cmocka_unit_test(test_errors), cmocka_unit_test(test_depth),
                                      cmocka_unit_test(test_json_position), cmocka_unit_test(test_eval),
                                      cmocka_unit_test(test_vetoes_parse)};
  return cmocka_run_group_tests(aTests, NULL, NULL);
}
