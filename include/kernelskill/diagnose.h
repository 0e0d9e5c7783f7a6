/* kernelskill/diagnose.h — the rule-path Diagnoser (lib/agents/diagnose.c,
 * part of the agents module): why a reviewed version failed, from its review
 * alone. */
#ifndef KERNELSKILL_DIAGNOSE_H
#define KERNELSKILL_DIAGNOSE_H

#include "kernelskill/common.h"
#include "kernelskill/review.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Why a reviewed version failed: the verdict, the decisive evidence (first
 * compiler error with file:line, worst element, crash reason), and what the
 * rule that produced it is known to break. zRule NULL: the seed itself;
 * "llm": code an LLM agent wrote. */
int ks_diagnose(const ks_review_result *pRes, const char *zRule, ks_buf *pOut);

#ifdef __cplusplus
}
#endif
#endif
