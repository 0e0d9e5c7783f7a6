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
#include "kernelskill/sandbox.h"

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

#ifdef __cplusplus
}
#endif
#endif
