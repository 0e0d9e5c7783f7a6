/* llmagent.c — one turn of an LLM agent (Optimizer, Diagnoser, Generator) for
 * the loop: render the agent's prompt, ask the model, and take its code only
 * after every check an untrusted reply must pass: exactly one code block, the
 * expected kernels and the task's entry with its exact signature
 * (ks_llm_check_code), compile flags from a short safe list, and the sandbox
 * (host code only launches kernels and calls allowed CUDA runtime functions,
 * allowed headers). Whatever fails is an outcome with a reason, never an
 * error of the run; every text that leaves here has the API key redacted. */
#include "kernelskill/loop.h"

#include <stdlib.h>
#include <string.h>

#include "kernelskill/agents.h"
#include "kernelskill/marks.h"
#include "kernelskill/nvccargs.h"

const char *ks_agent_outcome_name(ks_agent_outcome e) {
  switch (e) {
    case KS_AGENT_CODE: return "code";
    case KS_AGENT_NO_REPLY: return "no_reply";
    case KS_AGENT_BAD_REPLY: return "bad_reply";
    case KS_AGENT_REJECTED: return "rejected";
    case KS_AGENT_UNPARSED: return "unparsed";
  }
  return "?";
}

void ks_agent_result_free(ks_agent_result *p) {
  if (!p) return;
  free(p->zCode);
  free(p->zWhy);
  free(p->zReply);
  free(p->zModel);
  memset(p, 0, sizeof *p);
}

static const char *c_type(ks_dtype e) {
  switch (e) {
    case KS_DT_F32: return "float";
    case KS_DT_F64: return "double";
    case KS_DT_F16: return "__half";
    case KS_DT_BF16: return "__nv_bfloat16";
    case KS_DT_I32: return "int";
    case KS_DT_I64: return "long long";
    case KS_DT_U8: return "unsigned char";
  }
  return "void";
}

/* "void f(const float *x, float *y, int n)": from the seed's canonical type
 * with the task's argument names, or (no seed: the Generator) from the
 * task's arguments alone. */
int ks_agent_entry_decl(const ks_task *pTask, const char *zEntryType, char **pzDecl) {
  ks_buf b = KS_BUF_INIT;
  int rc = KS_OK;
  *pzDecl = NULL;
  const char *zOpen = zEntryType ? strstr(zEntryType, " (") : NULL;
  if (zOpen) {
    const char *zEnd = strrchr(zOpen, ')');
    if (!zEnd) return ks_error_set(KS_EINVAL, "malformed function type '%s'", zEntryType);
    rc = ks_buf_printf(&b, "%.*s %s(", (int)(zOpen - zEntryType), zEntryType, pTask->zEntry);
    /* Parameters split at top-level commas. */
    const char *p = zOpen + 2;
    int iArg = 0;
    while (rc == KS_OK && p < zEnd) {
      const char *q = p;
      int nDepth = 0;
      while (q < zEnd && (nDepth > 0 || *q != ',')) {
        if (*q == '(' || *q == '<' || *q == '[') nDepth++;
        if (*q == ')' || *q == '>' || *q == ']') nDepth--;
        q++;
      }
      size_t n = (size_t)(q - p);
      if (n == 4 && !memcmp(p, "void", 4) && iArg == 0 && q == zEnd) break;
      const char *zName = iArg < pTask->nArg ? pTask->aArg[iArg].zName : NULL;
      int bPtr = n > 0 && p[n - 1] == '*';
      rc = ks_buf_printf(&b, "%s%.*s%s%s", iArg ? ", " : "", (int)n, p, zName && !bPtr ? " " : "", zName ? zName : "");
      iArg++;
      p = q < zEnd ? q + 2 : zEnd; /* ", " */
    }
    if (rc == KS_OK) rc = ks_buf_puts(&b, ")");
  } else {
    rc = ks_buf_printf(&b, "void %s(", pTask->zEntry);
    for (int i = 0; rc == KS_OK && i < pTask->nArg; i++) {
      const ks_task_arg *a = &pTask->aArg[i];
      if (a->eKind == KS_ARG_TENSOR)
        rc = ks_buf_printf(&b, "%s%s%s *%s", i ? ", " : "", a->eIntent == KS_INTENT_IN ? "const " : "",
                           c_type(a->eType), a->zName);
      else
        rc = ks_buf_printf(&b, "%s%s %s", i ? ", " : "", c_type(a->eType), a->zName);
    }
    if (rc == KS_OK) rc = ks_buf_puts(&b, ")");
  }
  if (rc < 0) {
    ks_buf_free(&b);
    return rc;
  }
  *pzDecl = ks_buf_detach(&b);
  return *pzDecl ? KS_OK : ks_error_set(KS_ENOMEM, "out of memory");
}

/* The nvcc flags LLM code may record (`// kernelskill-flags:`): the one
 * allowlist every source of such a line passes (lib/nvccargs/flags.c). */
static int flag_ok(const char *z, const char *zPrev) { return ks_nvcc_flag_allowed(z, zPrev); }

int ks_agent_flags_ok(const char *zCode, ks_buf *pWhy) {
  static const char zTag[] = "kernelskill-flags:";
  int nLines = 0, iLine = 1, bOk = 1;
  for (const char *p = zCode; *p;) {
    const char *zEol = strchr(p, '\n');
    size_t n = zEol ? (size_t)(zEol - p) : strlen(p);
    /* The mark grammar (marks.h) says what a flags line is; any other line
     * naming the tag (after code, in a block comment) is refused too, so no
     * reader with looser rules can find flags that were never checked. */
    size_t iPos = 0;
    ks_mark m;
    int bTag = 0;
    for (size_t k = 0; !bTag && k + sizeof zTag - 1 <= n; k++) bTag = !memcmp(p + k, zTag, sizeof zTag - 1);
    int bMark = bTag && ks_mark_next(p, n, KS_MARK_FLAGS, &iPos, NULL, &m);
    if (bTag && !bMark) {
      ks_buf_printf(pWhy, "candidate.cu:%d: a kernelskill-flags line must read '// kernelskill-flags: FLAGS'\n", iLine);
      bOk = 0;
    } else if (bMark && ++nLines > 1) {
      ks_buf_printf(pWhy, "candidate.cu:%d: a second kernelskill-flags line\n", iLine);
      bOk = 0;
    } else if (bMark) {
      char zTok[128], zPrev[128] = "";
      const char *q = m.zValue, *e = m.zValue + m.nValue;
      while (q < e) {
        while (q < e && (*q == ' ' || *q == '\t' || *q == '\r')) q++;
        const char *s = q;
        while (q < e && *q != ' ' && *q != '\t' && *q != '\r') q++;
        if (q == s) break;
        snprintf(zTok, sizeof zTok, "%.*s", (int)(q - s), s);
        if (!flag_ok(zTok, zPrev[0] ? zPrev : NULL)) {
          ks_buf_printf(pWhy, "candidate.cu:%d: nvcc flag '%s' is not allowed in LLM code\n", iLine, zTok);
          bOk = 0;
        }
        memcpy(zPrev, zTok, sizeof zPrev);
      }
    }
    if (!zEol) break;
    p = zEol + 1;
    iLine++;
  }
  return bOk ? KS_OK : KS_EINVAL;
}

static int set_why(const ks_agent_ctx *pCtx, ks_agent_result *pOut, ks_agent_outcome e, const char *zWhy) {
  ks_buf b = KS_BUF_INIT;
  int rc = ks_llm_redact(pCtx->pLlm, zWhy ? zWhy : "", &b);
  /* One paragraph: trailing newlines of multi-line reasons go. */
  while (rc == KS_OK && b.n && (b.z[b.n - 1] == '\n' || b.z[b.n - 1] == ' ')) b.z[--b.n] = 0;
  pOut->eOutcome = e;
  free(pOut->zWhy);
  pOut->zWhy = rc == KS_OK ? ks_buf_detach(&b) : NULL;
  ks_buf_free(&b);
  if (rc == KS_OK && !pOut->zWhy) pOut->zWhy = ks_strdup("");
  return pOut->zWhy ? KS_OK : ks_error_set(KS_ENOMEM, "out of memory");
}

int ks_agent_run(const ks_agent_ctx *pCtx, const char *zAgent, const ks_prompt_var *aVar, int nVar,
                 ks_agent_result *pOut) {
  if (pCtx->version != KS_AGENT_CTX_VERSION)
    return ks_error_set(KS_EUSAGE, "ks_agent_ctx: unsupported version %u", pCtx->version);
  ks_prompt pr = KS_PROMPT_INIT;
  ks_llm_reply rep = KS_LLM_REPLY_INIT;
  ks_buf why = KS_BUF_INIT, red = KS_BUF_INIT;
  char *zCode = NULL;
  int rc;
  memset(pOut, 0, sizeof *pOut);
  if (!pCtx->pLlm) return ks_error_set(KS_EUSAGE, "ks_agent_run: no LLM client");
  if ((rc = ks_prompt_build(zAgent, aVar, nVar, &pr)) < 0) goto done;
  ks_llm_msg aMsg[2] = {{"system", pr.zSystem}, {"user", pr.zUser}};
  long nBefore = ks_llm_tokens_used(pCtx->pLlm);
  ks_error_clear();
  int k = ks_llm_chat(pCtx->pLlm, aMsg, 2, &rep);
  pOut->nTokens = ks_llm_tokens_used(pCtx->pLlm) - nBefore;
  pOut->nRequests = rep.nAttempts;
  if (k == KS_ENOMEM) {
    rc = k;
    goto done;
  }
  if (k < 0) {
    ks_llm_fail e = ks_llm_last_failure(pCtx->pLlm);
    ks_buf_printf(&why, "LLM %s: %s: %s", zAgent, ks_llm_fail_name(e), ks_error_msg());
    ks_error_clear();
    rc = set_why(pCtx, pOut, e == KS_LLM_FAIL_REPLY ? KS_AGENT_BAD_REPLY : KS_AGENT_NO_REPLY, ks_buf_cstr(&why));
    goto done;
  }
  pOut->zModel = ks_strdup(rep.zModel ? rep.zModel : ks_llm_model(pCtx->pLlm));
  if ((rc = ks_llm_redact(pCtx->pLlm, rep.zContent ? rep.zContent : "", &red)) < 0) goto done;
  pOut->zReply = ks_buf_detach(&red);
  if (!pOut->zReply) pOut->zReply = ks_strdup("");

  int iLine = 0;
  if (ks_llm_extract_code(rep.zContent ? rep.zContent : "", &zCode, &iLine) < 0) {
    ks_buf_printf(&why, "the %s's reply has no usable code: %s", zAgent, ks_error_msg());
    ks_error_clear();
    rc = set_why(pCtx, pOut, KS_AGENT_REJECTED, ks_buf_cstr(&why));
    goto done;
  }
  if (ks_agent_flags_ok(zCode, &why) < 0) {
    rc = set_why(pCtx, pOut, KS_AGENT_REJECTED, ks_buf_cstr(&why));
    goto done;
  }
  ks_llm_check_opts co = KS_LLM_CHECK_OPTS_INIT;
  co.zFile = "candidate.cu";
  co.azKernel = pCtx->azKernel;
  co.nKernel = pCtx->nKernel;
  co.zEntry = pCtx->zEntryType ? pCtx->zEntryName : pCtx->zEntryDecl;
  co.zEntryType = pCtx->zEntryType;
  k = ks_llm_check_code(zCode, strlen(zCode), &co, &why);
  if (k == KS_EINVAL) {
    ks_error_clear();
    rc = set_why(pCtx, pOut, KS_AGENT_REJECTED, ks_buf_cstr(&why));
    goto done;
  }
  if (k < 0) {
    rc = k;
    goto done;
  }
  ks_sandbox_opts so = KS_SANDBOX_OPTS_INIT;
  so.azLibraries = pCtx->azLibraries;
  so.nLibraries = pCtx->nLibraries;
  k = ks_sandbox_check("candidate.cu", zCode, strlen(zCode), &so, &why);
  if (k == KS_ENOMEM) {
    rc = k;
    goto done;
  }
  if (k < 0 && k != KS_EPARSE) {
    /* Refused, or could not be checked: either way it is not compiled. */
    ks_buf b = KS_BUF_INIT;
    ks_buf_printf(&b, "sandbox: %s%s%s", why.n ? ks_buf_cstr(&why) : "", why.n ? "" : "could not check: ",
                  why.n ? "" : ks_error_msg());
    ks_error_clear();
    rc = set_why(pCtx, pOut, KS_AGENT_REJECTED, ks_buf_cstr(&b));
    ks_buf_free(&b);
    goto done;
  }
  ks_error_clear();
  /* KS_EPARSE: clang cannot parse it. What does not parse cannot be checked,
   * so it is never compiled (a deliberate parse error must not smuggle code
   * past the check); clang's errors stand in for the compiler's. */
  if (k == KS_EPARSE && (rc = set_why(pCtx, pOut, KS_AGENT_UNPARSED, ks_buf_cstr(&why))) < 0) goto done;
  pOut->eOutcome = k == KS_EPARSE ? KS_AGENT_UNPARSED : KS_AGENT_CODE;
  pOut->zCode = zCode;
  zCode = NULL;
  rc = KS_OK;
done:
  free(zCode);
  ks_prompt_free(&pr);
  ks_llm_reply_free(&rep);
  ks_buf_free(&why);
  ks_buf_free(&red);
  return rc;
}
