/* kernelskill/agents.h — what the LLM agents (Optimizer, Diagnoser, Generator)
 * share: prompt templates kept as files (share/kernelskill/prompts/<agent>.txt)
 * rendered by a tiny template engine, and the sandbox for LLM output, which
 * is untrusted code: a libclang check that its host code only launches kernels
 * and calls allowed CUDA runtime functions and includes only allowed headers,
 * and the environment for the harness child without the LLM key or other
 * secrets. docs/llm.md describes both for users. */
#ifndef KERNELSKILL_AGENTS_H
#define KERNELSKILL_AGENTS_H

#include <stddef.h>

#include "kernelskill/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- prompt templates --------------------------------------------------- */

/* A named value for a template. */
typedef struct ks_prompt_var {
  const char *zName;
  const char *zValue; /* NULL is the empty string */
} ks_prompt_var;

/* Render zTemplate into pOut. The language:
 *   {{name}}              the value of name, inserted verbatim (values are
 *                         never expanded again: code may contain braces)
 *   {{#name}}...{{/name}} the text between, only if name is non-empty
 *   {{^name}}...{{/name}} the text between, only if name is empty
 *   {{! comment }}        nothing
 * A line holding only a section tag or a comment disappears whole.
 * KS_EINVAL "NAME:LINE: ..." for a placeholder with no value in aVar (a typo
 * in a template is an error, not an empty string), an unclosed tag or an
 * unbalanced section. */
int ks_prompt_render(const char *zName, const char *zTemplate, const ks_prompt_var *aVar, int nVar, ks_buf *pOut);

/* A rendered agent prompt: the system and the user message. */
typedef struct ks_prompt {
  char *zSystem;
  char *zUser;
  char *zPath; /* the template file used */
} ks_prompt;

#define KS_PROMPT_INIT {.zSystem = 0, .zUser = 0, .zPath = 0}

/* The template file of an agent ("optimizer", "diagnoser", "generator"):
 * $KS_PROMPTS_DIR/<agent>.txt if that variable is set, else
 * <datadir>/prompts/<agent>.txt. *pzPath is malloc'd. */
int ks_prompt_path(const char *zAgent, char **pzPath);

/* Load the agent's template and render it. The file holds two parts, each
 * after a line "=== system ===" / "=== user ===" (text before the first such
 * line is ignored: the file's header comment). */
int ks_prompt_build(const char *zAgent, const ks_prompt_var *aVar, int nVar, ks_prompt *pOut);
void ks_prompt_free(ks_prompt *p);

/* The repair policy of the Diagnoser's LLM path: at most this many repair
 * replies per candidate, then the branch is given up. */
#define KS_AGENT_MAX_REPAIRS 3

/* ---- sandbox for LLM-written code --------------------------------------- */

typedef struct ks_sandbox_opts {
  unsigned version;
  const char *const *azLibraries; /* the task's allowed vendor libraries ("cublas") */
  int nLibraries;
  const char *const *azExtraArgs; /* more clang arguments */
  int nExtraArgs;
} ks_sandbox_opts;

#define KS_SANDBOX_OPTS_VERSION 1
#define KS_SANDBOX_OPTS_INIT {KS_SANDBOX_OPTS_VERSION, 0, 0, 0, 0}

/* Check LLM-written source zCode (named zFile in messages) before it is
 * compiled. Allowed:
 *   - #include of the CUDA runtime, CUDA's vector, half/bf16/fp8 and mma
 *     headers, cooperative_groups, cub and libcu++ (cub/..., cuda/...), C math,
 *     fixed-width and limits headers, stdio/stdlib/assert (their calls are
 *     still checked); docs/llm.md has the list. A vendor library's headers
 *     only when the task allows it (cublas_v2.h for "cublas");
 *   - in host code (everything outside __global__ and __device__-only
 *     functions, file-scope initializers included): kernel launches, calls to
 *     functions defined in the file itself, device functions, the CUDA runtime
 *     functions of an allowlist (memory, configuration, occupancy, errors,
 *     synchronization, streams, events and graphs), math functions, CUDA's
 *     vector/half types, cub and libcu++, and the allowed library's API.
 * Rejected, with "FILE:LINE:COL: reason" lines in pWhy: any other include,
 * any other call (system, fopen, dlopen, socket, fork, getenv, ...), asm in
 * host code, calls through pointers or unresolved names.
 * KS_OK: allowed. KS_EINVAL: rejected. KS_EPARSE etc.: could not check. */
int ks_sandbox_check(const char *zFile, const char *zCode, size_t nCode, const ks_sandbox_opts *pOpts, ks_buf *pWhy);

/* The clang arguments the checks parse LLM code with: CUDA 13's cub and
 * libcu++ folder (include/cccl, searched by nvcc, not by clang) and then
 * azExtra. A NULL-terminated array; free with ks_sandbox_env_free. */
int ks_sandbox_clang_args(const char *const *azExtra, int nExtra, char ***pazArgs, int *pnArgs);

/* Is an environment variable a secret the harness child must not see? The
 * LLM settings (KS_LLM_*), names with KEY, TOKEN, SECRET, PASSWORD, PASSWD,
 * CREDENTIAL, AUTH or COOKIE in them, cloud and forge credentials (AWS_*,
 * AZURE_*, GOOGLE_*, GCP_*, GH_*, GITHUB_*, GITLAB_*, OPENAI_*,
 * ANTHROPIC_*, HF_*, HUGGING_FACE_*), SSH/GPG agents and proxies (which may
 * carry credentials in their URL). zName is the name without "=value". */
int ks_sandbox_env_is_secret(const char *zName);

/* A copy of azEnv (NULL-terminated "NAME=value" strings, e.g. environ)
 * without the secrets: what the harness child gets. Free with
 * ks_sandbox_env_free. */
int ks_sandbox_child_env(char *const *azEnv, char ***pazOut);
void ks_sandbox_env_free(char **azEnv);

#ifdef __cplusplus
}
#endif
#endif
