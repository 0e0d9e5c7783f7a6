/* test_llm.c — unit tests of the LLM client against our scripted server
 * (test/llm/Inputs/scripted_server.py, started per test on 127.0.0.1): token
 * budget, Retry-After timing and cap, timeouts, failure kinds, key redaction,
 * and a good reply taken end to end through extraction and the code check;
 * plus the prompt engine's edge cases and the child environment. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "kernelskill/agents.h"
#include "kernelskill/llm.h"

typedef struct server {
  pid_t pid;
  char zUrl[64];
  char zLog[256];
} server;

static double now_sec(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Start the scripted server on zScript (JSON text); wait for its port file. */
static void server_start(server *pS, const char *zScript) {
  static int iSeq = 0;
  char zDir[] = "/tmp/ks-test-llm-XXXXXX";
  assert_non_null(mkdtemp(zDir));
  char zScriptPath[256], zPort[256];
  snprintf(zScriptPath, sizeof zScriptPath, "%s/script%d.json", zDir, iSeq);
  snprintf(zPort, sizeof zPort, "%s/port%d", zDir, iSeq);
  snprintf(pS->zLog, sizeof pS->zLog, "%s/log%d.jsonl", zDir, iSeq++);
  FILE *f = fopen(zScriptPath, "w");
  assert_non_null(f);
  fputs(zScript, f);
  fclose(f);
  pS->pid = fork();
  assert_true(pS->pid >= 0);
  if (pS->pid == 0) {
    execlp("python3", "python3", KS_TEST_SOURCE_DIR "/llm/Inputs/scripted_server.py", "--script", zScriptPath,
           "--log", pS->zLog, "--port-file", zPort, "--lifetime", "3600", (char *)NULL);
    _exit(127);
  }
  /* Wait on events, not a time budget: the port file appears or the server exits. */
  for (;;) {
    if (waitpid(pS->pid, NULL, WNOHANG) == pS->pid) fail_msg("the scripted server exited before it listened");
    FILE *p = fopen(zPort, "r");
    int iPort = 0;
    if (p && fscanf(p, "%d", &iPort) == 1) {
      fclose(p);
      snprintf(pS->zUrl, sizeof pS->zUrl, "http://127.0.0.1:%d/v1", iPort);
      return;
    }
    if (p) fclose(p);
    nanosleep(&(struct timespec){0, 25000000}, NULL);
  }
}

static void server_stop(server *pS) {
  kill(pS->pid, SIGTERM);
  waitpid(pS->pid, NULL, 0);
}

static int server_requests(const server *pS) {
  FILE *f = fopen(pS->zLog, "r");
  if (!f) return 0;
  int n = 0, c;
  while ((c = fgetc(f)) != EOF) n += c == '\n';
  fclose(f);
  return n;
}

static ks_llm *client(const server *pS, double rTimeout, int nRetries, long nBudget) {
  ks_llm_opts o = KS_LLM_OPTS_INIT;
  o.zUrl = pS->zUrl;
  o.zModel = "scripted-model";
  o.zApiKey = "sk-unit-SECRET-99";
  o.rTimeoutS = rTimeout;
  o.rConnectTimeoutS = 60;
  o.nMaxRetries = nRetries ? nRetries : -1; /* 0 in the struct means "the default" */
  o.rBackoffS = 0.05;
  o.nTokenBudget = nBudget;
  ks_llm *p = NULL;
  assert_int_equal(ks_llm_open(&o, &p), KS_OK);
  return p;
}

static const ks_llm_msg aHello[] = {{"user", "hello"}};

static void test_budget_refuses_once_spent(void **state) {
  (void)state;
  server s;
  server_start(&s, "[{\"content\": \"a\", \"usage\": [100, 30]}, {\"content\": \"b\", \"usage\": [100, 30]},"
                   " {\"content\": \"c\"}]");
  ks_llm *p = client(&s, 60, 0, 200);
  ks_llm_reply r = KS_LLM_REPLY_INIT;
  assert_int_equal(ks_llm_chat(p, aHello, 1, &r), KS_OK);
  assert_int_equal(r.nPromptTokens, 100);
  assert_int_equal(r.nCompletionTokens, 30);
  ks_llm_reply_free(&r);
  assert_int_equal(ks_llm_tokens_used(p), 130);
  assert_int_equal(ks_llm_chat(p, aHello, 1, &r), KS_OK); /* 130 < 200: allowed, ends at 260 */
  ks_llm_reply_free(&r);
  assert_int_equal(ks_llm_tokens_used(p), 260);
  assert_int_equal(ks_llm_chat(p, aHello, 1, &r), KS_EUNAVAIL);
  assert_int_equal(ks_llm_last_failure(p), KS_LLM_FAIL_BUDGET);
  assert_non_null(strstr(ks_error_msg(), "token budget spent: 260 of 200"));
  assert_int_equal(server_requests(&s), 2); /* the refused call sent nothing */
  ks_llm_close(p);
  server_stop(&s);
}

static void test_retry_after_is_waited_and_capped(void **state) {
  (void)state;
  server s;
  server_start(&s, "[{\"status\": 429, \"retry_after\": \"1\"}, {\"content\": \"ok\"},"
                   " {\"status\": 503, \"retry_after\": \"1000\"}, {\"content\": \"ok\"}]");
  ks_llm *p = client(&s, 60, 2, 0);
  ks_llm_reply r = KS_LLM_REPLY_INIT;
  double t0 = now_sec();
  assert_int_equal(ks_llm_chat(p, aHello, 1, &r), KS_OK);
  double rSec = now_sec() - t0;
  assert_true(rSec >= 0.95); /* waited what the server asked: a lower bound, true however loaded the machine */
  assert_int_equal(r.nAttempts, 2);
  assert_string_equal(r.zContent, "ok");
  ks_llm_reply_free(&r);
  ks_llm_close(p);
  /* The cap bounds a server's Retry-After. */
  ks_llm_opts o = KS_LLM_OPTS_INIT;
  o.zUrl = s.zUrl;
  o.zModel = "m";
  o.rRetryAfterCapS = 0.1;
  o.nMaxRetries = 1;
  assert_int_equal(ks_llm_open(&o, &p), KS_OK);
  t0 = now_sec();
  assert_int_equal(ks_llm_chat(p, aHello, 1, &r), KS_OK);
  assert_true(now_sec() - t0 < 100); /* capped: the server's 1000 s were not waited (a bound no load reaches) */
  assert_int_equal(r.nAttempts, 2);
  ks_llm_reply_free(&r);
  ks_llm_close(p);
  server_stop(&s);
}

static void test_failure_kinds(void **state) {
  (void)state;
  server s;
  server_start(&s, "[{\"hang\": 600}, {\"raw\": \"not json at all\"}, {\"status\": 500}, {\"status\": 400}]");
  /* The hung request gets a short timeout: its server never answers, so the outcome
   * does not depend on the machine's speed; the answered ones get a minute. */
  ks_llm *p = client(&s, 0.3, 0, 0);
  ks_llm_reply r = KS_LLM_REPLY_INIT;
  assert_int_equal(ks_llm_chat(p, aHello, 1, &r), KS_EUNAVAIL);
  assert_int_equal(ks_llm_last_failure(p), KS_LLM_FAIL_TIMEOUT);
  ks_llm_close(p);
  p = client(&s, 60, 0, 0);
  assert_int_equal(ks_llm_chat(p, aHello, 1, &r), KS_EPARSE);
  assert_int_equal(ks_llm_last_failure(p), KS_LLM_FAIL_REPLY);
  assert_int_equal(ks_llm_chat(p, aHello, 1, &r), KS_EUNAVAIL);
  assert_int_equal(ks_llm_last_failure(p), KS_LLM_FAIL_HTTP);
  assert_int_equal(r.iHttpStatus, 500);
  assert_int_equal(ks_llm_chat(p, aHello, 1, &r), KS_EUNAVAIL);
  assert_int_equal(r.iHttpStatus, 400);
  assert_null(r.zContent);
  assert_int_equal(ks_llm_tokens_used(p), 0);
  ks_llm_close(p);
  server_stop(&s);
  /* Nobody listening any more. */
  p = client(&s, 1, 0, 0);
  assert_int_equal(ks_llm_chat(p, aHello, 1, &r), KS_EUNAVAIL);
  assert_int_equal(ks_llm_last_failure(p), KS_LLM_FAIL_CONNECT);
  ks_llm_close(p);
}

static void test_key_is_redacted(void **state) {
  (void)state;
  server s;
  server_start(&s, "[{\"raw\": \"oops sk-unit-SECRET-99 leaked\"}]");
  ks_llm *p = client(&s, 60, 0, 0);
  ks_llm_reply r = KS_LLM_REPLY_INIT;
  assert_int_equal(ks_llm_chat(p, aHello, 1, &r), KS_EPARSE);
  assert_null(strstr(ks_error_msg(), "SECRET"));
  assert_non_null(strstr(ks_error_msg(), "oops [REDACTED] leaked"));
  ks_buf b = KS_BUF_INIT;
  assert_int_equal(ks_llm_redact(p, "k=sk-unit-SECRET-99; Authorization: Bearer abc.def other", &b), KS_OK);
  assert_string_equal(b.z, "k=[REDACTED]; Authorization: Bearer [REDACTED] other");
  ks_buf_free(&b);
  ks_llm_close(p);
  server_stop(&s);
}

static void test_good_reply_end_to_end(void **state) {
  (void)state;
  server s;
  server_start(&s, "[{\"content_file\": \"" KS_TEST_SOURCE_DIR "/llm/Inputs/good_reply.md\", \"usage\": [900, 200]}, "
                   "{\"content_file\": \"" KS_TEST_SOURCE_DIR "/llm/Inputs/wrong_signature_reply.md\"}]");
  ks_llm *p = client(&s, 60, 0, 0);
  ks_llm_reply r = KS_LLM_REPLY_INIT;
  const char *zEntry = "void saxpy(int n, float a, const float *x, float *y)";
  const char *azKernel[] = {"saxpy_kernel"};
  ks_llm_check_opts co = KS_LLM_CHECK_OPTS_INIT;
  co.azKernel = azKernel;
  co.nKernel = 1;
  co.zEntry = zEntry;
  for (int i = 0; i < 2; i++) {
    assert_int_equal(ks_llm_chat(p, aHello, 1, &r), KS_OK);
    char *zCode = NULL;
    int iLine = 0;
    assert_int_equal(ks_llm_extract_code(r.zContent, &zCode, &iLine), KS_OK);
    ks_buf why = KS_BUF_INIT;
    int rc = ks_llm_check_code(zCode, strlen(zCode), &co, &why);
    if (i == 0) {
      assert_int_equal(iLine, 4);
      assert_int_equal(rc, KS_OK);
      assert_string_equal(ks_buf_cstr(&why), "");
    } else {
      assert_int_equal(rc, KS_EINVAL);
      assert_non_null(strstr(why.z, "expected 'void (int, float, const float *, float *)'"));
    }
    ks_buf_free(&why);
    free(zCode);
    ks_llm_reply_free(&r);
  }
  assert_int_equal(ks_llm_tokens_used(p), 900 + 200 + 10 + 5);
  ks_llm_close(p);
  server_stop(&s);
}

static void test_prompt_render(void **state) {
  (void)state;
  ks_prompt_var a[] = {{"x", "1"}, {"empty", ""}, {"code", "{{x}}"}};
  ks_buf b = KS_BUF_INIT;
  assert_int_equal(ks_prompt_render("t", "a{{x}}b {{ code }}\n{{#empty}}\nno\n{{/empty}}\n{{^empty}}\nyes\n{{/empty}}\n{{! gone }}\nend",
                                    a, 3, &b), KS_OK);
  assert_string_equal(b.z, "a1b {{x}}\nyes\nend");
  ks_buf_clear(&b);
  assert_int_equal(ks_prompt_render("t.txt", "ok\n{{#x}}\n", a, 3, &b), KS_EINVAL);
  assert_string_equal(ks_error_msg(), "t.txt:2: section '{{#x}}' is never closed");
  assert_int_equal(ks_prompt_render("t.txt", "\n\n{{y}}", a, 3, &b), KS_EINVAL);
  assert_string_equal(ks_error_msg(), "t.txt:3: no value for '{{y}}'");
  assert_int_equal(ks_prompt_render("t.txt", "{{/x}}", a, 3, &b), KS_EINVAL);
  assert_int_equal(ks_prompt_render("t.txt", "{{x", a, 3, &b), KS_EINVAL);
  ks_buf_free(&b);
}

static void test_child_env(void **state) {
  (void)state;
  char *azEnv[] = {"PATH=/bin", "KS_LLM_API_KEY=x", "ANTHROPIC_API_KEY=y", "CUDA_HOME=/c", "db_password=z", NULL};
  char **azOut = NULL;
  assert_int_equal(ks_sandbox_child_env(azEnv, &azOut), KS_OK);
  assert_string_equal(azOut[0], "PATH=/bin");
  assert_string_equal(azOut[1], "CUDA_HOME=/c");
  assert_null(azOut[2]);
  ks_sandbox_env_free(azOut);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_budget_refuses_once_spent), cmocka_unit_test(test_retry_after_is_waited_and_capped),
      cmocka_unit_test(test_failure_kinds),             cmocka_unit_test(test_key_is_redacted),
      cmocka_unit_test(test_good_reply_end_to_end),     cmocka_unit_test(test_prompt_render),
      cmocka_unit_test(test_child_env),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
