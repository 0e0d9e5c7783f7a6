/* sandbox.h — the checks every untrusted source passes before it is compiled
 * (LLM replies, --candidate files, repairs) and the environment its children
 * get. Below review and llm, which both use it; docs/security.md says what it
 * does and does not guarantee. */
#ifndef KS_SANDBOX_H
#define KS_SANDBOX_H

#include <stddef.h>

#include "kernelskill/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ks_sandbox_opts {
  unsigned version;
  const char *const *azLibraries; /* the task's allowed vendor libraries ("cublas") */
  int nLibraries;
  const char *const *azExtraArgs; /* more clang arguments */
  int nExtraArgs;
} ks_sandbox_opts;

#define KS_SANDBOX_OPTS_VERSION 1
#define KS_SANDBOX_OPTS_INIT \
  {.version = KS_SANDBOX_OPTS_VERSION, .azLibraries = 0, .nLibraries = 0, .azExtraArgs = 0, .nExtraArgs = 0}

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
 * host code, calls through pointers or unresolved names, unqualified calls
 * in host templates to names not allowed whatever they resolve to; and, over
 * the whole text (every preprocessor branch), conditionals on anything but
 * __CUDA_ARCH__/__CUDACC__, includes not allowed or not spelled literally,
 * `##`, _Pragma, digraph/trigraph `#`, raw strings (docs/security.md).
 * KS_OK: allowed. KS_EINVAL: rejected. KS_EPARSE: clang cannot parse it, so
 * it cannot be checked and must not be compiled. Other errors: could not
 * check. */
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
