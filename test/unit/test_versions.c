/* test_versions.c — every versioned option struct of the store, nvccargs,
 * sandbox, llm and plugin-support modules: its *_INIT macro names the
 * current version and the defaults, and an entry point refuses a struct of
 * another version (KS_EUSAGE, naming the struct) before it reads any other
 * field or touches anything. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kernelskill/llm.h"
#include "kernelskill/nvccargs.h"
#include "kernelskill/plugin.h"
#include "kernelskill/sandbox.h"
#include "kernelskill/store.h"

static void refused(int rc, const char *zStruct) {
  assert_int_equal(rc, KS_EUSAGE);
  assert_non_null(strstr(ks_error_msg(), zStruct));
  assert_non_null(strstr(ks_error_msg(), "unsupported version 99"));
  ks_error_clear();
}

static void test_init_macros(void **state) {
  (void)state;
  ks_store_add_opts a = KS_STORE_ADD_OPTS_INIT;
  assert_int_equal(a.version, KS_STORE_ADD_OPTS_VERSION);
  assert_null(a.zOriginal);
  assert_int_equal(a.bForce, 0);
  ks_nvcc_parse_opts n = KS_NVCC_PARSE_OPTS_INIT;
  assert_int_equal(n.version, KS_NVCC_PARSE_OPTS_VERSION);
  assert_null(n.zCwd);
  ks_sandbox_opts s = KS_SANDBOX_OPTS_INIT;
  assert_int_equal(s.version, KS_SANDBOX_OPTS_VERSION);
  assert_int_equal(s.nExtraArgs, 0);
  ks_llm_opts l = KS_LLM_OPTS_INIT;
  assert_int_equal(l.version, KS_LLM_OPTS_VERSION);
  assert_true(l.rTemperature < 0); /* not sent by default */
  assert_int_equal(l.bDebug, 0);
  ks_llm_check_opts c = KS_LLM_CHECK_OPTS_INIT;
  assert_int_equal(c.version, KS_LLM_CHECK_OPTS_VERSION);
  assert_int_equal(c.nExtraArgs, 0);
  ks_plugin_pass p = KS_PLUGIN_PASS_INIT;
  assert_int_equal(p.version, KS_PLUGIN_PASS_VERSION);
  assert_null(p.zAstFile);
  assert_int_equal(p.nTop, -1);
  assert_null(p.pSharedTu);
}

static void test_unknown_versions_refused(void **state) {
  (void)state;
  ks_store_add_opts a = KS_STORE_ADD_OPTS_INIT;
  a.version = 99;
  ks_store_entry *pE = (ks_store_entry *)&a; /* must be reset, not used */
  refused(ks_store_add(NULL, &a, &pE), "ks_store_add_opts");
  assert_null(pE);
  char **az = (char **)&a;
  refused(ks_store_read_run("/nonexistent/run", &a, &az), "ks_store_add_opts");
  assert_null(az);

  ks_nvcc_parse_opts n = KS_NVCC_PARSE_OPTS_INIT;
  n.version = 99;
  char *azArgv[] = {"nvcc", "-c", "x.cu", NULL};
  ks_nvcc_cmd *pCmd = (ks_nvcc_cmd *)&n;
  refused(ks_nvcc_parse(3, azArgv, &n, &pCmd), "ks_nvcc_parse_opts");
  assert_null(pCmd);

  ks_plugin_pass p = KS_PLUGIN_PASS_INIT;
  p.version = 99;
  p.zMainFile = "/nonexistent/x.cu";
  ks_plugin_apply ap;
  refused(ks_plugin_apply_lookup(NULL, &p, &ap), "ks_plugin_pass");
  ks_plugin_apply_clear(&ap);
  ks_buf b = KS_BUF_INIT;
  refused(ks_plugin_features(NULL, &p, &b), "ks_plugin_pass");
  ks_buf_free(&b);

  ks_sandbox_opts s = KS_SANDBOX_OPTS_INIT;
  s.version = 99;
  refused(ks_sandbox_check("c.cu", "", 0, &s, &b), "ks_sandbox_opts");
  ks_llm_opts l = KS_LLM_OPTS_INIT;
  l.version = 99;
  ks_llm *pL = NULL;
  refused(ks_llm_open(&l, &pL), "ks_llm_opts");
  assert_null(pL);
  ks_llm_check_opts c = KS_LLM_CHECK_OPTS_INIT;
  c.version = 99;
  refused(ks_llm_check_code("", 0, &c, &b), "ks_llm_check_opts");
  ks_buf_free(&b);
}

static void test_target_repeats(void **state) {
  (void)state;
  char *azArgv[] = {"nvcc", "-gencode", "arch=compute_90,code=sm_90", "-arch=sm_80", "-gencode",
                    "arch=compute_90,code=compute_90", "-c", "x.cu", NULL};
  ks_nvcc_parse_opts o = KS_NVCC_PARSE_OPTS_INIT;
  o.bNoEnv = 1;
  ks_nvcc_cmd *pCmd = NULL;
  assert_int_equal(ks_nvcc_parse(8, azArgv, &o, &pCmd), KS_OK);
  int nDistinct = 0;
  for (int i = 0; i < pCmd->nTargets; i++) nDistinct += !ks_nvcc_target_repeats(pCmd, i);
  assert_true(pCmd->nTargets >= 3);
  assert_int_equal(ks_nvcc_target_repeats(pCmd, 0), 0);
  assert_int_equal(nDistinct, 2); /* 90 and 80 */
  ks_nvcc_cmd_free(pCmd);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_init_macros),
      cmocka_unit_test(test_unknown_versions_refused),
      cmocka_unit_test(test_target_repeats),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
