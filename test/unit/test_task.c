/* test_task.c — task files: size expressions (values and every error), parsing
 * of a full v1 task with the extensions, precise validation messages, default
 * tolerances, and `task init` drafts that validate. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernelskill/task.h"

static char *azDims[] = {"B", "D", "N_2"};
static int64_t aDims[] = {4, 4096, 7};

static void test_eval_values(void **state) {
  (void)state;
  static const struct { const char *z; int64_t v; } a[] = {
      {"B", 4}, {"B*D", 16384}, {"5*B*D", 81920}, {"8 * B * D + 1", 131073}, {"(B+D)*2", 8200},
      {"D/B", 1024}, {"D % 5", 1}, {"-B + 10", 6}, {"N_2 - -1", 8}, {"((((1))))", 1}, {"  B  ", 4},
      {"9223372036854775807", INT64_MAX}};
  for (size_t i = 0; i < sizeof a / sizeof a[0]; i++) {
    int64_t v = -1;
    assert_int_equal(ks_task_eval(a[i].z, 3, azDims, aDims, &v), KS_OK);
    assert_true(v == a[i].v);
  }
}

static void test_eval_errors(void **state) {
  (void)state;
  static const struct { const char *z, *zMsg; } a[] = {
      {"C", "unknown dim 'C' (in expression 'C', at column 1)"},
      {"B*", "unexpected end (in expression 'B*', at column 3)"},
      {"", "unexpected end"},
      {"B/(D-4096)", "division by zero"},
      {"D % (B-4)", "division by zero"},
      {"9223372036854775807 + 1", "integer overflow"},
      {"99999999999999999999", "integer literal too large"},
      {"3000000000 * 3000000000 * 3", "integer overflow"},
      {"1.5 * B", "sizes are integers"},
      {"(B", "expected ')'"},
      {"B D", "unexpected 'D' (in expression 'B D', at column 3)"},
      {"B $ 2", "unexpected '$'"}};
  for (size_t i = 0; i < sizeof a / sizeof a[0]; i++) {
    int64_t v;
    assert_int_equal(ks_task_eval(a[i].z, 3, azDims, aDims, &v), KS_EINVAL);
    if (!strstr(ks_error_msg(), a[i].zMsg)) fail_msg("'%s': got '%s', want '%s'", a[i].z, ks_error_msg(), a[i].zMsg);
  }
}

/* A task file next to a source file in a fresh folder. */
static char g_zDir[256];

static int setup(void **state) {
  (void)state;
  snprintf(g_zDir, sizeof g_zDir, "%s/test_task_XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  if (!mkdtemp(g_zDir)) return -1;
  char zPath[512];
  snprintf(zPath, sizeof zPath, "%s/k.cu", g_zDir);
  const char *zSrc =
      "// k.cu\n#include <cuda_fp16.h>\n"
      "extern \"C\" void run(const float *x, __half *y, unsigned char *mask, int rows, long long cols,\n"
      "                      float eps /* epsilon */, double *acc) {}\n";
  return ks_file_write_atomic(zPath, zSrc, strlen(zSrc));
}

static int teardown(void **state) {
  (void)state;
  char zCmd[600];
  snprintf(zCmd, sizeof zCmd, "rm -rf '%s'", g_zDir);
  return system(zCmd) == 0 ? 0 : -1;
}

static int parse_text(const char *zText, ks_task **pp) {
  char zPath[512];
  snprintf(zPath, sizeof zPath, "%s/t.json", g_zDir);
  return ks_task_parse(zPath, zText, strlen(zText), pp);
}

static void test_parse_full(void **state) {
  (void)state;
  const char *z =
      "{\"ks_task\": 1, \"name\": \"t\", \"source\": \"k.cu\", \"entry\": \"run\",\n"
      " \"dims\": {\"R\": 3, \"C\": 5, \"RC\": \"R*C\"},\n"
      " \"args\": [\n"
      "  {\"name\": \"x\", \"kind\": \"tensor\", \"dtype\": \"f32\", \"shape\": [\"R\", \"C\"], \"intent\": \"in\","
      "   \"init\": {\"dist\": \"uniform\", \"low\": -3, \"high\": 3}},\n"
      "  {\"name\": \"y\", \"kind\": \"tensor\", \"dtype\": \"f16\", \"shape\": [\"RC\"], \"intent\": \"out\"},\n"
      "  {\"name\": \"mask\", \"kind\": \"tensor\", \"dtype\": \"u8\", \"shape\": [15], \"intent\": \"in\","
      "   \"init\": {\"dist\": \"randint\", \"low\": 0, \"high\": 2}},\n"
      "  {\"name\": \"rows\", \"kind\": \"scalar\", \"dtype\": \"i32\", \"value\": \"R\"},\n"
      "  {\"name\": \"cols\", \"kind\": \"scalar\", \"dtype\": \"i64\", \"value\": 5},\n"
      "  {\"name\": \"eps\", \"kind\": \"scalar\", \"dtype\": \"f32\", \"value\": 1e-5},\n"
      "  {\"name\": \"acc\", \"kind\": \"tensor\", \"dtype\": \"f64\", \"shape\": [1], \"intent\": \"inout\","
      "   \"tolerance\": {\"atol\": 1e-3}}\n"
      " ],\n"
      " \"tolerance\": {\"rtol\": 1e-3, \"atol\": 1e-4}, \"cost\": {\"flops\": \"2*RC\", \"bytes\": 100},\n"
      " \"libraries\": [\"cublas\"], \"trials\": 9, \"timeout_s\": 2.5, \"seed\": 77}\n";
  ks_task *t = NULL;
  int rc = parse_text(z, &t);
  if (rc != KS_OK) fail_msg("%s", ks_error_msg());
  assert_string_equal(t->zName, "t");
  assert_non_null(strstr(t->zSource, "/k.cu"));
  assert_null(t->zReference);
  assert_int_equal(t->nDim, 3);
  assert_true(t->aDimValue[2] == 15);
  assert_int_equal(t->nArg, 7);
  assert_int_equal(t->aArg[0].nRank, 2);
  assert_true(t->aArg[0].nElem == 15);
  assert_int_equal(t->aArg[0].init.eDist, KS_DIST_UNIFORM);
  assert_true(t->aArg[0].init.rA == -3 && t->aArg[0].init.rB == 3);
  assert_int_equal(t->aArg[1].eType, KS_DT_F16);
  assert_int_equal(t->aArg[1].eIntent, KS_INTENT_OUT);
  assert_int_equal(t->aArg[2].eType, KS_DT_U8);
  assert_true(t->aArg[3].iValue == 3);
  assert_string_equal(t->aArg[3].zValue, "R");
  assert_true(t->aArg[5].rValue == 1e-5);
  assert_int_equal(t->aArg[6].eIntent, KS_INTENT_INOUT);
  assert_true(t->bHasCost && t->rFlops == 30 && t->rBytes == 100);
  assert_int_equal(t->nLib, 1);
  assert_int_equal(t->nTrials, 9);
  assert_true(t->rTimeoutS == 2.5);
  assert_true(t->iSeed == 77);
  /* Tolerances: argument, then task (floats only), then dtype default. */
  double rR, rA;
  ks_task_arg_tol(t, 6, &rR, &rA);
  assert_true(rR == 0 && rA == 1e-3);
  ks_task_arg_tol(t, 1, &rR, &rA);
  assert_true(rR == 1e-3 && rA == 1e-4);
  ks_task_arg_tol(t, 2, &rR, &rA);
  assert_true(rR == 0 && rA == 0);
  ks_task_free(t);
}

static void test_defaults(void **state) {
  (void)state;
  const char *z = "{\"ks_task\": 1, \"name\": \"t\", \"source\": \"k.cu\", \"entry\": \"run\","
                  " \"args\": [{\"name\": \"a\", \"kind\": \"tensor\", \"dtype\": \"i32\", \"shape\": [4], \"intent\": \"in\"},"
                  "            {\"name\": \"b\", \"kind\": \"tensor\", \"dtype\": \"bf16\", \"shape\": [4], \"intent\": \"out\"}]}";
  ks_task *t = NULL;
  assert_int_equal(parse_text(z, &t), KS_OK);
  assert_int_equal(t->nTrials, 5);
  assert_true(t->rTimeoutS == 60 && t->iSeed == 1);
  assert_int_equal(t->aArg[0].init.eDist, KS_DIST_RANDINT);
  double rR, rA;
  ks_task_arg_tol(t, 1, &rR, &rA);
  assert_true(rR == 1e-2 && rA == 1e-2);
  ks_dtype_default_tol(KS_DT_F32, &rR, &rA);
  assert_true(rR == 1e-4 && rA == 1e-4);
  ks_task_free(t);
}

static void test_errors(void **state) {
  (void)state;
  static const struct { const char *zText, *zMsg; int rc; } a[] = {
      {"{\"ks_task\": 1,\n \"name\": }", "t.json:2:10: not valid JSON", KS_EPARSE},
      {"[1]", "t.json: (top level): must be a JSON object, not an array", KS_EINVAL},
      {"{\"name\": \"x\"}", "t.json: ks_task: missing", KS_EINVAL},
      {"{\"ks_task\": 1, \"source\": \"k.cu\", \"entry\": \"run\", \"args\": []}", "t.json: name: missing (required)",
       KS_EINVAL},
      {"{\"ks_task\": 1, \"name\": 3}", "t.json: name: must be a string, not a number", KS_EINVAL},
      {"{\"ks_task\": 1, \"name\": \"x\", \"entry\": \"a-b\"}", "t.json: entry: 'a-b' is not a C identifier",
       KS_EINVAL},
      {"{\"ks_task\": 1, \"name\": \"x\", \"entry\": \"run\", \"source\": \"k.cu\", \"reference\": \"r.cu\"}",
       "t.json: reference: file", KS_EINVAL},
      {"{\"ks_task\": 1, \"name\": \"x\", \"entry\": \"run\", \"source\": \"k.cu\", \"dims\": {\"N\": 0}, \"args\": []}",
       "t.json: dims.N: must be positive (is 0)", KS_EINVAL},
      {"{\"ks_task\": 1, \"name\": \"x\", \"entry\": \"run\", \"source\": \"k.cu\", \"args\": "
       "[{\"name\": \"y\", \"kind\": \"blob\"}]}",
       "t.json: args[0] (y).kind: must be 'tensor' or 'scalar', not 'blob'", KS_EINVAL},
      {"{\"ks_task\": 1, \"name\": \"x\", \"entry\": \"run\", \"source\": \"k.cu\", \"args\": "
       "[{\"name\": \"y\", \"kind\": \"tensor\", \"dtype\": \"f32\", \"shape\": [2.5], \"intent\": \"out\"}]}",
       "t.json: args[0] (y).shape[0]: must be an integer, not 2.5", KS_EINVAL},
      {"{\"ks_task\": 1, \"name\": \"x\", \"entry\": \"run\", \"source\": \"k.cu\", \"args\": "
       "[{\"name\": \"y\", \"kind\": \"tensor\", \"dtype\": \"f32\", \"shape\": [], \"intent\": \"out\"}]}",
       "t.json: args[0] (y).shape: must have 1 to 8 sizes (has 0)", KS_EINVAL},
      {"{\"ks_task\": 1, \"name\": \"x\", \"entry\": \"run\", \"source\": \"k.cu\", \"args\": "
       "[{\"name\": \"y\", \"kind\": \"tensor\", \"dtype\": \"f32\", \"shape\": [4], \"intent\": \"out\", \"value\": 1}]}",
       "t.json: args[0] (y).value: only scalars have 'value'", KS_EINVAL},
      {"{\"ks_task\": 1, \"name\": \"x\", \"entry\": \"run\", \"source\": \"k.cu\", \"args\": "
       "[{\"name\": \"s\", \"kind\": \"scalar\", \"dtype\": \"f16\", \"value\": 1}]}",
       "f16/bf16 scalars are not supported", KS_EINVAL},
      {"{\"ks_task\": 1, \"name\": \"x\", \"entry\": \"run\", \"source\": \"k.cu\", \"args\": "
       "[{\"name\": \"s\", \"kind\": \"scalar\", \"dtype\": \"u8\", \"value\": 300}]}",
       "t.json: args[0] (s).value: 300 does not fit a u8", KS_EINVAL},
      {"{\"ks_task\": 1, \"name\": \"x\", \"entry\": \"run\", \"source\": \"k.cu\", \"args\": "
       "[{\"name\": \"m\", \"kind\": \"tensor\", \"dtype\": \"u8\", \"shape\": [4], \"intent\": \"in\","
       " \"init\": {\"dist\": \"normal\"}}]}",
       "t.json: args[0] (m).init: u8 tensors take 'randint'", KS_EINVAL},
      {"{\"ks_task\": 1, \"name\": \"x\", \"entry\": \"run\", \"source\": \"k.cu\", \"args\": "
       "[{\"name\": \"y\", \"kind\": \"tensor\", \"dtype\": \"f32\", \"shape\": [4], \"intent\": \"out\"}],"
       " \"tolerance\": {\"rtol\": -1}}",
       "t.json: tolerance.rtol: must be >= 0", KS_EINVAL},
      {"{\"ks_task\": 1, \"name\": \"x\", \"entry\": \"run\", \"source\": \"k.cu\", \"args\": "
       "[{\"name\": \"y\", \"kind\": \"tensor\", \"dtype\": \"f32\", \"shape\": [4], \"intent\": \"out\"}],"
       " \"cost\": {\"flop\": 1}}",
       "t.json: cost: unknown field 'flop' (known: flops, bytes)", KS_EINVAL},
      {"{\"ks_task\": 1, \"name\": \"x\", \"entry\": \"run\", \"source\": \"k.cu\", \"args\": "
       "[{\"name\": \"y\", \"kind\": \"tensor\", \"dtype\": \"f32\", \"shape\": [4], \"intent\": \"out\"}],"
       " \"libraries\": [\"cudnn\"]}",
       "t.json: libraries[0]: unknown library 'cudnn'", KS_EINVAL},
      {"{\"ks_task\": 1, \"name\": \"x\", \"entry\": \"run\", \"source\": \"k.cu\", \"args\": "
       "[{\"name\": \"y\", \"kind\": \"tensor\", \"dtype\": \"f32\", \"shape\": [4], \"intent\": \"out\"}],"
       " \"trials\": 3}",
       "t.json: trials: must be an integer from 5 to 1000 (is 3)", KS_EINVAL},
  };
  for (size_t i = 0; i < sizeof a / sizeof a[0]; i++) {
    ks_task *t = (ks_task *)1;
    int rc = parse_text(a[i].zText, &t);
    if (rc != a[i].rc || !strstr(ks_error_msg(), a[i].zMsg))
      fail_msg("case %zu: rc %d, got '%s', want '%s'", i, rc, ks_error_msg(), a[i].zMsg);
    assert_null(t);
  }
}

static void test_load_missing(void **state) {
  (void)state;
  ks_task *t = NULL;
  assert_int_equal(ks_task_load("/nonexistent/t.json", &t), KS_ENOTFOUND);
  assert_non_null(strstr(ks_error_msg(), "/nonexistent/t.json: no such task file"));
}

static void test_draft(void **state) {
  (void)state;
  char zSrc[512], zOut[512];
  snprintf(zSrc, sizeof zSrc, "%s/k.cu", g_zDir);
  snprintf(zOut, sizeof zOut, "%s/draft.json", g_zDir);
  ks_buf out = KS_BUF_INIT, notes = KS_BUF_INIT;
  ks_task_init_opts o = KS_TASK_INIT_OPTS_INIT;
  o.zOutPath = zOut;
  assert_int_equal(ks_task_draft(zSrc, "run", &o, &out, &notes), KS_OK);
  assert_non_null(strstr(out.z, "\"source\": \"k.cu\""));
  assert_non_null(strstr(out.z, "\"dims\": {\"rows\": 1024, \"cols\": 1024}"));
  assert_non_null(strstr(out.z, "{\"name\": \"y\", \"kind\": \"tensor\", \"dtype\": \"f16\""));
  assert_non_null(strstr(out.z, "{\"name\": \"mask\", \"kind\": \"tensor\", \"dtype\": \"u8\""));
  assert_non_null(strstr(out.z, "\"name\": \"eps\", \"kind\": \"scalar\", \"dtype\": \"f32\", \"value\": 1.0"));
  assert_non_null(strstr(out.z, "\"name\": \"cols\", \"kind\": \"scalar\", \"dtype\": \"i64\", \"value\": \"cols\""));
  assert_non_null(strstr(notes.z, "scalar 'eps': set its value"));
  /* The draft validates as written (u8 inputs get randint). */
  assert_int_equal(ks_file_write_atomic(zOut, out.z, out.n), KS_OK);
  ks_task *t = NULL;
  int rc = ks_task_load(zOut, &t);
  if (rc != KS_OK) fail_msg("draft does not validate: %s\n%s", ks_error_msg(), out.z);
  assert_int_equal(t->nArg, 7);
  ks_task_free(t);
  ks_buf_clear(&out);
  assert_int_equal(ks_task_draft(zSrc, "nope", &o, &out, &notes), KS_ENOTFOUND);
  ks_buf_free(&out);
  ks_buf_free(&notes);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_eval_values),
      cmocka_unit_test(test_eval_errors),
      cmocka_unit_test(test_parse_full),
      cmocka_unit_test(test_defaults),
      cmocka_unit_test(test_errors),
      cmocka_unit_test(test_load_missing),
      cmocka_unit_test(test_draft),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
