/* kernelskill/llmagent.h — one turn of an LLM agent (Optimizer, Diagnoser,
 * Generator; lib/agents/llmagent.c, part of the agents module): render its
 * prompt, ask, extract the code and check it before anything compiles it. */
#ifndef KERNELSKILL_LLMAGENT_H
#define KERNELSKILL_LLMAGENT_H

#include "kernelskill/agents.h"
#include "kernelskill/common.h"
#include "kernelskill/llm.h"
#include "kernelskill/task.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ks_agent_outcome {
  KS_AGENT_CODE,      /* code that passed every check: zCode */
  KS_AGENT_NO_REPLY,  /* the request failed: connect, timeout, HTTP error, budget spent */
  KS_AGENT_BAD_REPLY, /* an answer that is not a chat completion (garbage) */
  KS_AGENT_REJECTED,  /* a reply whose code was refused: no single code block, wrong
                         kernels or entry signature, nvcc flags, the sandbox */
  KS_AGENT_UNPARSED   /* code clang cannot parse (zCode, zWhy: clang's errors): the
                         untrusted-code check cannot pass it, so it is never
                         compiled; the loop records it as a compile error, which the
                         Diagnoser may repair */
} ks_agent_outcome;

const char *ks_agent_outcome_name(ks_agent_outcome e);

/* What the agents check replies against. */
typedef struct ks_agent_ctx {
  unsigned version;
  ks_llm *pLlm;
  const char *const *azKernel;    /* kernels the code must define */
  int nKernel;
  const char *zEntryName;         /* the task's entry */
  const char *zEntryType;         /* its canonical type from the seed, or NULL: */
  const char *zEntryDecl;         /* the declaration to match (Generator) */
  const char *const *azLibraries; /* the task's vendor libraries */
  int nLibraries;
} ks_agent_ctx;

#define KS_AGENT_CTX_VERSION 1
#define KS_AGENT_CTX_INIT                                                                                   \
  {.version = KS_AGENT_CTX_VERSION, .pLlm = 0, .azKernel = 0, .nKernel = 0, .zEntryName = 0, .zEntryType = 0,   \
   .zEntryDecl = 0, .azLibraries = 0, .nLibraries = 0}

typedef struct ks_agent_result {
  ks_agent_outcome eOutcome;
  char *zCode;      /* KS_AGENT_CODE: the checked source; KS_AGENT_UNPARSED: the unchecked one */
  char *zWhy;       /* otherwise (KS_AGENT_UNPARSED too): why, with file:line where there is one */
  char *zReply;     /* the reply's text, if one came */
  char *zModel;
  long nTokens;     /* tokens this turn counted against the budget */
  int nRequests;    /* HTTP requests, retries included */
} ks_agent_result;

/* One turn of agent zAgent ("optimizer", "diagnoser", "generator"): render
 * its prompt with aVar, ask, extract and check the code. KS_OK whenever the
 * turn happened (pOut->eOutcome says how it went); errors only for what
 * stops the run (no memory, a broken prompt template). Every text in pOut
 * has the API key redacted. */
int ks_agent_run(const ks_agent_ctx *pCtx, const char *zAgent, const ks_prompt_var *aVar, int nVar,
                 ks_agent_result *pOut);
void ks_agent_result_free(ks_agent_result *p);

/* The entry as a declaration for prompts and checks, "void f(const float *x,
 * float *y, int n)": from the seed's canonical type (zEntryType) with the
 * task's argument names, or from the task's arguments when NULL. */
int ks_agent_entry_decl(const ks_task *pTask, const char *zEntryType, char **pzDecl);

/* A `// kernelskill-flags:` line in LLM code may hold only flags of a short
 * safe list (fast math, ptxas -O/-v, -maxrregcount=N, -lineinfo...), at most
 * one line. KS_EINVAL with "candidate.cu:LINE: ..." in pWhy otherwise. */
int ks_agent_flags_ok(const char *zCode, ks_buf *pWhy);

#ifdef __cplusplus
}
#endif
#endif
