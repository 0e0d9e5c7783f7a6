/* kernelskill/llm.h — the LLM client the agents use: OpenAI-compatible
 * /v1/chat/completions over libcurl with cJSON, configured from the environment
 * (KS_LLM_URL, KS_LLM_MODEL, KS_LLM_API_KEY or KS_LLM_API_KEY_FILE), with
 * timeouts, retries with exponential backoff on 429/5xx (honouring
 * Retry-After), a token budget per client (= per run), and the checks a reply
 * must pass before its code is used: exactly one fenced code block, defining
 * the expected kernels and the task's entry with its exact signature.
 *
 * The API key is never printed, logged or written: every message this module
 * produces (errors, debug output) has it replaced by "[REDACTED]".
 * docs/llm.md is the user's view. */
#ifndef KERNELSKILL_LLM_H
#define KERNELSKILL_LLM_H

#include <stddef.h>

#include "kernelskill/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ks_tu ks_tu;

/* Settings. Zero / NULL fields take the environment's value, else a default:
 *   zUrl          KS_LLM_URL (required). A base ".../v1" or a host gets
 *                 "/v1/chat/completions" appended as needed; a URL ending in
 *                 "/chat/completions" is used as is.
 *   zModel        KS_LLM_MODEL (required)
 *   zApiKey       KS_LLM_API_KEY, else the first line of KS_LLM_API_KEY_FILE;
 *                 none: no Authorization header (local servers)
 *   rConnectTimeoutS  KS_LLM_CONNECT_TIMEOUT_S, default 10
 *   rTimeoutS         KS_LLM_TIMEOUT_S, default 300 (whole request)
 *   nMaxRetries       KS_LLM_MAX_RETRIES, default 4 (-1 in the struct: 0 retries)
 *   rBackoffS         KS_LLM_BACKOFF_S, default 1 (doubles per retry)
 *   rRetryAfterCapS   KS_LLM_RETRY_AFTER_MAX_S, default 60 (cap on any wait)
 *   nTokenBudget      KS_LLM_TOKEN_BUDGET, default 0 = unlimited
 *   nMaxTokens        KS_LLM_MAX_TOKENS, default 0 = not sent
 *   bDebug            KS_LLM_DEBUG=1: one line per attempt on stderr */
typedef struct ks_llm_opts {
  unsigned version;
  const char *zUrl;
  const char *zModel;
  const char *zApiKey;
  const char *zApiKeyFile;
  double rConnectTimeoutS;
  double rTimeoutS;
  int nMaxRetries;
  double rBackoffS;
  double rRetryAfterCapS;
  long nTokenBudget;
  int nMaxTokens;
  double rTemperature; /* < 0: not sent (the default) */
  int bDebug;
} ks_llm_opts;

#define KS_LLM_OPTS_VERSION 1
#define KS_LLM_OPTS_INIT                                                                                      \
  {.version = KS_LLM_OPTS_VERSION, .zUrl = 0, .zModel = 0, .zApiKey = 0, .zApiKeyFile = 0, .rConnectTimeoutS = 0, \
   .rTimeoutS = 0, .nMaxRetries = 0, .rBackoffS = 0, .rRetryAfterCapS = 0, .nTokenBudget = 0, .nMaxTokens = 0,    \
   .rTemperature = -1.0, .bDebug = 0}

typedef struct ks_llm ks_llm;

/* Is an LLM configured (KS_LLM_URL set and non-empty)? */
int ks_llm_configured(void);

/* Create a client. KS_EUNAVAIL when KS_LLM_URL or KS_LLM_MODEL is missing or
 * the key file cannot be read; KS_EINVAL for a malformed setting. */
int ks_llm_open(const ks_llm_opts *pOpts, ks_llm **ppLlm);
void ks_llm_close(ks_llm *p);

typedef struct ks_llm_msg {
  const char *zRole; /* "system", "user", "assistant" */
  const char *zContent;
} ks_llm_msg;

/* Why the last ks_llm_chat failed (KS_LLM_FAIL_NONE after a success). */
typedef enum ks_llm_fail {
  KS_LLM_FAIL_NONE,
  KS_LLM_FAIL_CONNECT,  /* could not connect (after retries) */
  KS_LLM_FAIL_TIMEOUT,  /* no complete answer in time (after retries) */
  KS_LLM_FAIL_HTTP,     /* an HTTP error status (after retries for 429/5xx) */
  KS_LLM_FAIL_REPLY,    /* 200 but not a chat completion (garbage, no content) */
  KS_LLM_FAIL_BUDGET    /* the token budget is spent: no request was made */
} ks_llm_fail;

const char *ks_llm_fail_name(ks_llm_fail e);

typedef struct ks_llm_reply {
  char *zContent;      /* the assistant message's text */
  char *zModel;        /* the model the server says answered, or the one asked */
  char *zFinishReason; /* "stop", "length", ... or NULL */
  long nPromptTokens, nCompletionTokens;
  int bUsageEstimated; /* the server sent no `usage`: estimated as bytes/4 */
  int nAttempts;       /* HTTP requests made, retries included */
  int iHttpStatus;     /* of the last attempt */
} ks_llm_reply;

#define KS_LLM_REPLY_INIT {0, 0, 0, 0, 0, 0, 0, 0}

/* One chat completion. Retries 429, 5xx, 408, connection failures and
 * timeouts up to nMaxRetries times, waiting rBackoffS * 2^k, or the server's
 * Retry-After (seconds), capped at rRetryAfterCapS. Errors: KS_EUNAVAIL
 * (connect, timeout, HTTP error, budget spent), KS_EPARSE (the reply is not a
 * chat completion); ks_llm_last_failure() says which. The reply's tokens are
 * counted against the budget. */
int ks_llm_chat(ks_llm *p, const ks_llm_msg *aMsg, int nMsg, ks_llm_reply *pReply);
void ks_llm_reply_free(ks_llm_reply *pReply);

ks_llm_fail ks_llm_last_failure(const ks_llm *p);
/* Tokens counted so far (prompt + completion, all calls) and the budget (0: none). */
long ks_llm_tokens_used(const ks_llm *p);
long ks_llm_token_budget(const ks_llm *p);
const char *ks_llm_model(const ks_llm *p);
/* The endpoint requests go to. */
const char *ks_llm_endpoint(const ks_llm *p);

/* Append z to pOut with every occurrence of the client's API key replaced by
 * "[REDACTED]" (also any key-looking "Bearer ..." token). */
int ks_llm_redact(const ks_llm *p, const char *z, ks_buf *pOut);

/* ---- What a reply must contain ----------------------------------------- */

/* The one fenced code block of a reply (```cuda, ```cpp, ```c++, ```cu, ```c
 * or a bare ```). KS_EINVAL "no code block" / "N code blocks, expected
 * exactly one" / "unterminated code block". *pzCode is malloc'd; *piLine is
 * the reply line of the block's first code line (may be NULL). */
int ks_llm_extract_code(const char *zReply, char **pzCode, int *piLine);

/* What the extracted code must define. */
typedef struct ks_llm_check_opts {
  unsigned version;
  const char *zFile;               /* name for messages and the parse ("candidate.cu") */
  const char *const *azKernel;     /* __global__ kernels that must be defined */
  int nKernel;
  const char *zEntry;              /* the entry: a name, or a declaration
                                      "void f(const float *x, float *y, int n)"
                                      whose parameter types must match exactly */
  const char *zEntryType;          /* or the entry's canonical type as
                                      ks_llm_function_type() gives it for the
                                      seed: "void (const float *, float *, int)" */
  const char *const *azExtraArgs;  /* more clang arguments */
  int nExtraArgs;
} ks_llm_check_opts;

#define KS_LLM_CHECK_OPTS_VERSION 1
#define KS_LLM_CHECK_OPTS_INIT                                                                                \
  {.version = KS_LLM_CHECK_OPTS_VERSION, .zFile = 0, .azKernel = 0, .nKernel = 0, .zEntry = 0, .zEntryType = 0, \
   .azExtraArgs = 0, .nExtraArgs = 0}

/* Parse zCode with libclang (in memory) and check: every kernel of azKernel
 * is defined as __global__; the entry is defined, host-side, with C linkage
 * and (when zEntry is a declaration, or zEntryType is given) the same return
 * and parameter types as expected (top-level const/__restrict__ and parameter names do not matter).
 * KS_OK: fine. KS_EINVAL: a problem, described in pWhy as "FILE:LINE: ..."
 * lines (clang's first errors are added when they may be the cause).
 * KS_EPARSE / KS_EUSAGE: the expected declaration itself does not parse. */
int ks_llm_check_code(const char *zCode, size_t nCode, const ks_llm_check_opts *pOpts, ks_buf *pWhy);

/* The canonical type of function zName in a parsed file as
 * "void (const float *, float *, int)" (malloc'd); KS_ENOTFOUND if the file
 * does not define it. The loop takes the entry's signature from the seed. */
int ks_llm_function_type(ks_tu *pTu, const char *zName, char **pzType);

#ifdef __cplusplus
}
#endif
#endif
