/* cmd_llm.c — `kernelskill llm`: manual checks of the LLM side. `ping` sends one
 * tiny request; `extract` pulls the code out of a saved reply and checks it
 * defines the task's kernels and entry; `sandbox` runs the untrusted-code check
 * on a file; `prompt` renders an agent's prompt template; `child-env` lists the
 * environment the harness child would get. */
#include "cli.h"
#include "kernelskill/agents.h"
#include "kernelskill/llm.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

static const char zUsage[] =
    "usage: kernelskill llm ping\n"
    "       kernelskill llm extract [--kernel K]... [--entry SIGNATURE] [-o OUT] FILE\n"
    "       kernelskill llm sandbox [--library LIB]... FILE.cu\n"
    "       kernelskill llm prompt AGENT [--set NAME=VALUE]... [--set-file NAME=FILE]...\n"
    "       kernelskill llm child-env\n"
    "\n"
    "ping      one tiny chat request to the configured endpoint; prints the model\n"
    "          and the token usage. Needs KS_LLM_URL and KS_LLM_MODEL, and\n"
    "          KS_LLM_API_KEY or KS_LLM_API_KEY_FILE if the endpoint wants a key.\n"
    "extract   FILE holds a reply: the assistant's text, or a whole chat-completion\n"
    "          JSON body. Prints its one code block, after checking that it defines\n"
    "          each kernel K and the entry (a name, or a declaration such as\n"
    "          'void saxpy(int n, float a, const float *x, float *y)' whose types\n"
    "          must match exactly).\n"
    "sandbox   the untrusted-code check: host code may only launch kernels and call\n"
    "          allowed CUDA runtime functions; only allowed headers. --library names\n"
    "          a vendor library the task allows (cublas, ...).\n"
    "prompt    render share/kernelskill/prompts/AGENT.txt (optimizer, diagnoser,\n"
    "          generator) with the given values.\n"
    "child-env the names of the environment variables the harness child keeps.\n"
    "\n"
    "Settings (environment): KS_LLM_TIMEOUT_S, KS_LLM_CONNECT_TIMEOUT_S,\n"
    "KS_LLM_MAX_RETRIES, KS_LLM_BACKOFF_S, KS_LLM_RETRY_AFTER_MAX_S,\n"
    "KS_LLM_TOKEN_BUDGET, KS_LLM_MAX_TOKENS, KS_LLM_DEBUG=1 (see docs/llm.md).\n"
    "\n"
    "Exit codes: 0 ok; 1 the reply or the file has a problem (no code block, wrong\n"
    "signature, refused by the sandbox); 2 usage, or the endpoint is unavailable.\n";

extern const ks_cmd ks_cmd_llm;

static int run_ping(int argc, char **argv) {
  if (argc > 2) return ks_cli_usage_error(&ks_cmd_llm, "ping takes no arguments (got '%s')", argv[2]);
  ks_llm *pLlm = NULL;
  int rc = ks_llm_open(NULL, &pLlm);
  if (rc < 0) return ks_cli_fail(rc);
  ks_llm_msg aMsg[2] = {{"system", "You answer with one word."}, {"user", "Reply with the single word: pong"}};
  ks_llm_reply r = KS_LLM_REPLY_INIT;
  rc = ks_llm_chat(pLlm, aMsg, 2, &r);
  int ec = KS_EXIT_OK;
  if (rc < 0) {
    ec = ks_cli_fail(rc);
  } else {
    ks_buf clean = KS_BUF_INIT;
    ks_llm_redact(pLlm, r.zContent, &clean);
    size_t n = clean.n;
    while (n > 0 && (clean.z[n - 1] == '\n' || clean.z[n - 1] == ' ')) n--;
    printf("endpoint: %s\n", ks_llm_endpoint(pLlm));
    printf("model: %s\n", r.zModel);
    printf("reply: %.*s%s\n", n > 200 ? 200 : (int)n, ks_buf_cstr(&clean), n > 200 ? "..." : "");
    printf("tokens: %ld prompt + %ld completion%s\n", r.nPromptTokens, r.nCompletionTokens,
           r.bUsageEstimated ? " (estimated: no usage in the reply)" : "");
    printf("attempts: %d\n", r.nAttempts);
    ks_buf_free(&clean);
  }
  ks_llm_reply_free(&r);
  ks_llm_close(pLlm);
  return ec;
}

/* The reply text of a file: a chat-completion body's content, or the file. */
static char *reply_text(char *zFile) {
  cJSON *pDoc = cJSON_Parse(zFile);
  const cJSON *pChoices = pDoc ? cJSON_GetObjectItemCaseSensitive(pDoc, "choices") : NULL;
  const cJSON *pFirst = cJSON_IsArray(pChoices) ? cJSON_GetArrayItem(pChoices, 0) : NULL;
  const cJSON *pMsg = pFirst ? cJSON_GetObjectItemCaseSensitive(pFirst, "message") : NULL;
  const cJSON *pContent = pMsg ? cJSON_GetObjectItemCaseSensitive(pMsg, "content") : NULL;
  char *z = cJSON_IsString(pContent) ? ks_strdup(pContent->valuestring) : ks_strdup(zFile);
  cJSON_Delete(pDoc);
  return z;
}

#define KS_LLM_CLI_MAX 32

static int run_extract(int argc, char **argv) {
  const char *azKernel[KS_LLM_CLI_MAX];
  int nKernel = 0;
  const char *zEntry = NULL, *zOut = NULL, *zFile = NULL;
  const ks_cli_opt aOpts[] = {
      KS_CLI_LIST_OPT("--kernel", azKernel, &nKernel, KS_LLM_CLI_MAX, 0, 0),
      KS_CLI_STR_OPT("--entry", &zEntry, 0),
      KS_CLI_STR_OPT("-o", &zOut, "a file"),
      {0}};
  int ec = ks_cli_parse(&ks_cmd_llm, argc, argv, 2, aOpts, &zFile, "reply file", NULL);
  if (ec) return ec;
  if (!zFile) return ks_cli_usage_error(&ks_cmd_llm, "extract: no reply file");
  char *zRaw = NULL, *zReply = NULL, *zCode = NULL;
  ks_buf why = KS_BUF_INIT;
  int iLine = 0;
  int rc = ks_file_read(zFile, &zRaw, NULL);
  if (rc < 0) {
    ec = ks_cli_fail(rc);
    goto done;
  }
  if (!(zReply = reply_text(zRaw))) {
    ec = ks_cli_fail(KS_ENOMEM);
    goto done;
  }
  if ((rc = ks_llm_extract_code(zReply, &zCode, &iLine)) < 0) {
    fprintf(stderr, "kernelskill: error: %s: %s\n", zFile, ks_error_msg());
    ec = ks_error_exit_code(rc);
    goto done;
  }
  if (nKernel || zEntry) {
    ks_llm_check_opts co = KS_LLM_CHECK_OPTS_INIT;
    co.zFile = "candidate.cu";
    co.azKernel = azKernel;
    co.nKernel = nKernel;
    co.zEntry = zEntry;
    rc = ks_llm_check_code(zCode, strlen(zCode), &co, &why);
    fputs(ks_buf_cstr(&why), stderr);
    if (rc < 0) {
      ec = ks_cli_fail(rc);
      goto done;
    }
  }
  if (zOut) {
    if ((rc = ks_file_write_atomic(zOut, zCode, strlen(zCode))) < 0) ec = ks_cli_fail(rc);
  } else {
    fputs(zCode, stdout);
  }
done:
  free(zRaw);
  free(zReply);
  free(zCode);
  ks_buf_free(&why);
  return ec;
}

static int run_sandbox(int argc, char **argv) {
  const char *azLib[KS_LLM_CLI_MAX];
  int nLib = 0;
  const char *zFile = NULL;
  const ks_cli_opt aOpts[] = {KS_CLI_LIST_OPT("--library", azLib, &nLib, KS_LLM_CLI_MAX, 0, 0), {0}};
  int ec = ks_cli_parse(&ks_cmd_llm, argc, argv, 2, aOpts, &zFile, "file", NULL);
  if (ec) return ec;
  if (!zFile) return ks_cli_usage_error(&ks_cmd_llm, "sandbox: no file");
  char *zCode = NULL;
  size_t nCode = 0;
  int rc = ks_file_read(zFile, &zCode, &nCode);
  if (rc < 0) return ks_cli_fail(rc);
  ks_sandbox_opts so = KS_SANDBOX_OPTS_INIT;
  so.azLibraries = azLib;
  so.nLibraries = nLib;
  ks_buf why = KS_BUF_INIT;
  rc = ks_sandbox_check(zFile, zCode, nCode, &so, &why);
  fputs(ks_buf_cstr(&why), stderr);
  if (rc < 0)
    ec = ks_cli_fail(rc);
  else
    printf("%s: allowed\n", zFile);
  free(zCode);
  ks_buf_free(&why);
  return ec;
}

static int run_prompt(int argc, char **argv) {
  if (argc < 3 || argv[2][0] == '-') return ks_cli_usage_error(&ks_cmd_llm, "prompt: name the agent");
  ks_prompt_var aVar[KS_LLM_CLI_MAX];
  char *azOwned[KS_LLM_CLI_MAX];
  int nVar = 0, nOwned = 0, ec = KS_EXIT_OK, rc;
  for (int i = 3; i < argc; i++) {
    const char *zVal;
    int m, bFile = 0;
    if ((m = ks_cli_opt_value(argc, argv, &i, "--set", &zVal)) == 0 &&
        (m = ks_cli_opt_value(argc, argv, &i, "--set-file", &zVal)) != 0)
      bFile = 1;
    if (m == 0) {
      ec = ks_cli_usage_error(&ks_cmd_llm, "unknown argument '%s'", argv[i]);
      goto done;
    }
    const char *zEq = m > 0 ? strchr(zVal, '=') : NULL;
    if (!zEq || nVar == KS_LLM_CLI_MAX) {
      ec = ks_cli_usage_error(&ks_cmd_llm, "--set/--set-file take NAME=VALUE (at most %d)", KS_LLM_CLI_MAX);
      goto done;
    }
    char *zName = ks_strdup(zVal);
    azOwned[nOwned++] = zName;
    zName[zEq - zVal] = 0;
    aVar[nVar].zName = zName;
    aVar[nVar].zValue = zEq + 1;
    if (bFile) {
      char *zText = NULL;
      if ((rc = ks_file_read(zEq + 1, &zText, NULL)) < 0) {
        ec = ks_cli_fail(rc);
        goto done;
      }
      azOwned[nOwned++] = zText;
      aVar[nVar].zValue = zText;
    }
    nVar++;
    if (nOwned >= KS_LLM_CLI_MAX - 1) {
      ec = ks_cli_usage_error(&ks_cmd_llm, "too many values");
      goto done;
    }
  }
  ks_prompt pr = KS_PROMPT_INIT;
  if ((rc = ks_prompt_build(argv[2], aVar, nVar, &pr)) < 0) {
    ec = ks_cli_fail(rc);
    goto done;
  }
  printf("=== system ===\n%s=== user ===\n%s", pr.zSystem, pr.zUser);
  ks_prompt_free(&pr);
done:
  for (int i = 0; i < nOwned; i++) free(azOwned[i]);
  return ec;
}

static int run_child_env(int argc, char **argv) {
  if (argc > 2) return ks_cli_usage_error(&ks_cmd_llm, "child-env takes no arguments (got '%s')", argv[2]);
  char **azEnv = NULL;
  int rc = ks_sandbox_child_env(environ, &azEnv);
  if (rc < 0) return ks_cli_fail(rc);
  /* Names only: values may be private even when they are not secrets. */
  for (int i = 0; azEnv[i]; i++) printf("%.*s\n", (int)(strchr(azEnv[i], '=') - azEnv[i]), azEnv[i]);
  ks_sandbox_env_free(azEnv);
  return KS_EXIT_OK;
}

static int run_llm(int argc, char **argv) {
  if (argc < 2) return ks_cli_usage_error(&ks_cmd_llm, "name an action: ping, extract, sandbox, prompt, child-env");
  const char *zAct = argv[1];
  if (ks_cli_is_help(zAct)) {
    fputs(zUsage, stdout);
    return KS_EXIT_OK;
  }
  if (strcmp(zAct, "ping") == 0) return run_ping(argc, argv);
  if (strcmp(zAct, "extract") == 0) return run_extract(argc, argv);
  if (strcmp(zAct, "sandbox") == 0) return run_sandbox(argc, argv);
  if (strcmp(zAct, "prompt") == 0) return run_prompt(argc, argv);
  if (strcmp(zAct, "child-env") == 0) return run_child_env(argc, argv);
  return ks_cli_usage_error(&ks_cmd_llm, "unknown action '%s'", zAct);
}

const ks_cmd ks_cmd_llm = {"llm", "LLM endpoint check, reply extraction, sandbox check, prompts", zUsage, run_llm, 80};
