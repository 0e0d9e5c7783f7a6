/* plan.c — the deterministic planner policy: evaluate every skill's `when`
 * against the evidence, rule out by `unless`, by the policy vetoes and by the
 * journal (tried on this version, or applied in its ancestry), rank what
 * remains (priority, specificity, expected gain, id), and report each choice
 * with the evidence chain that made it. */
#include "kernelskill/skills.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Policy vetoes: keyed on skill tags, so a skill opts into the checks that
 * guard its technique. Conditions use the skill language; a veto whose
 * condition is unknown (missing evidence) does not fire. */
static const ks_veto aVetoes[] = {
    {"cache without reuse", "caching", "!features.has_reuse",
     "caching pays only when an element is read more than once; this kernel reads each input once"},
    {"fake vectorization", "vectorize", "features.uses_vector_types",
     "the kernel already moves data in vector types; widening again adds nothing"},
    {"fake vectorization", "vectorize", "features.indirect_accesses > 0 || features.strided_accesses > features.contiguous_accesses",
     "vector loads need contiguous aligned runs per thread; gathers and strided accesses split back into scalar transactions"},
    {"compute fix on a memory-bound kernel", "compute", "derived.bottleneck == \"memory\"",
     "the memory system is the bottleneck; removing instructions does not shorten DRAM time"},
    {"occupancy already high", "occupancy", "profile.achieved_occupancy_pct >= 80",
     "more resident warps cannot hide more latency when occupancy is already high"},
    {"library not allowed", "cublas", "!task.allows_cublas",
     "the task does not list cublas in its libraries; a candidate may not call it"},
    {"library not allowed", "cub", "!task.allows_cub", "the task does not list cub in its libraries"},
    {"approximation on a double-precision kernel", "fast-math", "features.uses_double",
     "the kernel computes in double: its author asked for accuracy that fast-math intrinsics drop"},
    {0, 0, 0, 0}};

const ks_veto *ks_plan_vetoes(void) { return aVetoes; }

void ks_plan_free(ks_plan *p) {
  if (!p) return;
  for (int i = 0; i < p->n; i++) {
    free(p->a[i].zWhy);
    free(p->a[i].zRuledOut);
  }
  free(p->a);
  free(p->zClass);
  free(p->zKernel);
  free(p->zSource);
  free(p->zParent);
  free(p);
}

static int has_tag(const ks_skill *s, const char *zTag) {
  for (int i = 0; i < s->nTags; i++)
    if (strcmp(s->azTags[i], zTag) == 0) return 1;
  return 0;
}

static int is_true(const ks_cond *c, const ks_evidence *pEv) {
  ks_value v;
  ks_cond_eval(c, pEv, &v);
  return v.eType == KS_VAL_BOOL && v.b;
}

/* The journal's word on this skill for this version, or NULL. */
static int journal_reason(const ks_plan_opts *pOpts, const ks_skill *s, ks_buf *pOut) {
  const ks_journal *j = pOpts->pJournal;
  if (!j || !pOpts->zParent) return 0;
  /* tried on this very version: the latest record wins */
  for (int i = j->n - 1; i >= 0; i--) {
    const ks_journal_entry *e = &j->a[i];
    if (strcmp(e->zEvent, "candidate") || !e->zParent || !e->zSkill) continue;
    if (strcmp(e->zParent, pOpts->zParent) || strcmp(e->zSkill, s->zId)) continue;
    const char *zWhat = strcmp(e->zVerdict, "accepted") == 0 ? "already applied"
                        : (strcmp(e->zVerdict, "slower") == 0 || strcmp(e->zVerdict, "noise") == 0) ? "gained nothing"
                                                                                                       : "failed";
    ks_buf_printf(pOut, "journal: %s on this version (round %d, %s", zWhat, e->iRound, e->zVerdict);
    if (e->bHasSpeedup) ks_buf_printf(pOut, ", %.2fx", e->rSpeedup);
    if (e->zReason) ks_buf_printf(pOut, ": %s", e->zReason);
    ks_buf_puts(pOut, ")");
    return 1;
  }
  /* applied in the ancestry of this version: follow accepted candidates back */
  const char *zCur = pOpts->zParent;
  for (int nStep = 0; nStep <= j->n; nStep++) {
    const ks_journal_entry *pAcc = NULL;
    for (int i = j->n - 1; i >= 0 && !pAcc; i--) {
      const ks_journal_entry *e = &j->a[i];
      if (!strcmp(e->zEvent, "candidate") && e->zVerdict && !strcmp(e->zVerdict, "accepted") && e->zHash &&
          !strcmp(e->zHash, zCur))
        pAcc = e;
    }
    if (!pAcc || !pAcc->zParent) break;
    if (!strcmp(pAcc->zSkill, s->zId)) {
      ks_buf_printf(pOut, "journal: already applied to an ancestor of this version (round %d, %s -> %s", pAcc->iRound,
                    pAcc->zParent, pAcc->zHash);
      if (pAcc->bHasSpeedup) ks_buf_printf(pOut, ", %.2fx", pAcc->rSpeedup);
      ks_buf_puts(pOut, ")");
      return 1;
    }
    zCur = pAcc->zParent;
  }
  return 0;
}

static int cmp_rank(const void *pa, const void *pb) {
  const ks_plan_item *a = pa, *b = pb;
  /* candidates first, then ruled out, unknown, not applicable; by id within */
  if (a->eStatus != b->eStatus) {
    int ra = a->eStatus == KS_PLAN_CANDIDATE ? 0 : a->eStatus <= KS_PLAN_JOURNAL ? 1 : a->eStatus == KS_PLAN_UNKNOWN ? 2 : 3;
    int rb = b->eStatus == KS_PLAN_CANDIDATE ? 0 : b->eStatus <= KS_PLAN_JOURNAL ? 1 : b->eStatus == KS_PLAN_UNKNOWN ? 2 : 3;
    if (ra != rb) return ra - rb;
  }
  if (a->eStatus == KS_PLAN_CANDIDATE && b->eStatus == KS_PLAN_CANDIDATE) {
    if (a->pSkill->iPriority != b->pSkill->iPriority) return b->pSkill->iPriority - a->pSkill->iPriority;
    if (a->nSpecificity != b->nSpecificity) return b->nSpecificity - a->nSpecificity;
    if (a->pSkill->rGain != b->pSkill->rGain) return a->pSkill->rGain < b->pSkill->rGain ? 1 : -1;
  }
  return strcmp(a->pSkill->zId, b->pSkill->zId);
}

static int has_profile(const ks_evidence *pEv) {
  for (const ks_field_def *f = ks_field_table(); f->zName; f++)
    if (!strncmp(f->zName, "profile.", 8) && ks_evidence_get(pEv, f->zName, NULL).eType != KS_VAL_UNKNOWN) return 1;
  return 0;
}

static void class_part(ks_buf *b, const ks_evidence *pEv, const char *zField, const char *zLabel) {
  const char *zWhy = NULL;
  ks_value v = ks_evidence_get(pEv, zField, &zWhy);
  if (v.eType == KS_VAL_UNKNOWN) return;
  ks_buf_printf(b, "%s%s ", b->n ? "; " : "", zLabel);
  if (v.eType == KS_VAL_STR) ks_buf_puts(b, v.z);
  else if (v.eType == KS_VAL_BOOL) ks_buf_puts(b, v.b ? "yes" : "no");
  else ks_buf_printf(b, "%g", v.r);
  if (zWhy) ks_buf_printf(b, " (%s)", zWhy);
}

int ks_plan_run(const ks_skillset *pSet, const ks_evidence *pEv, const ks_plan_opts *pOpts, ks_plan **ppPlan) {
  static const ks_plan_opts defOpts = KS_PLAN_OPTS_INIT;
  if (pOpts && pOpts->version != KS_PLAN_OPTS_VERSION)
    return ks_error_set(KS_EUSAGE, "ks_plan_opts: unsupported version %u", pOpts->version);
  int rc = KS_OK;
  ks_cond *apVeto[sizeof aVetoes / sizeof aVetoes[0]] = {0};
  ks_buf b = KS_BUF_INIT;
  ks_plan *p = calloc(1, sizeof *p);
  *ppPlan = NULL;
  if (!pOpts) pOpts = &defOpts;
  if (!p) return ks_error_set(KS_ENOMEM, "out of memory");
  if (pSet->n && !(p->a = calloc((size_t)pSet->n, sizeof *p->a))) {
    rc = ks_error_set(KS_ENOMEM, "out of memory");
    goto fail;
  }
  for (int v = 0; aVetoes[v].zName; v++) {
    ks_cond_loc loc = KS_COND_LOC_INIT;
    loc.zFile = "<veto>";
    if ((rc = ks_cond_parse(aVetoes[v].zCond, &loc, &apVeto[v])) < 0) goto fail;
  }
  if ((pOpts->zKernel && !(p->zKernel = ks_strdup(pOpts->zKernel))) ||
      (pOpts->zSource && !(p->zSource = ks_strdup(pOpts->zSource))) ||
      (pOpts->zParent && !(p->zParent = ks_strdup(pOpts->zParent)))) {
    rc = KS_ENOMEM;
    goto fail;
  }
  p->bHasProfile = has_profile(pEv);
  for (int i = 0; i < pSet->n; i++) {
    const ks_skill *s = pSet->a[i];
    ks_plan_item *it = &p->a[p->n++];
    ks_value v;
    it->pSkill = s;
    it->nSpecificity = ks_cond_conjuncts(s->pWhen);
    ks_cond_eval(s->pWhen, pEv, &v);
    ks_buf_clear(&b);
    if ((rc = ks_cond_explain(s->pWhen, pEv, &b)) < 0) goto fail;
    if (!(it->zWhy = ks_strdup(ks_buf_cstr(&b)))) {
      rc = KS_ENOMEM;
      goto fail;
    }
    if (v.eType == KS_VAL_UNKNOWN) {
      it->eStatus = KS_PLAN_UNKNOWN;
      continue;
    }
    if (!v.b) {
      it->eStatus = KS_PLAN_NO;
      continue;
    }
    ks_buf_clear(&b);
    it->eStatus = KS_PLAN_CANDIDATE;
    for (int u = 0; u < s->nUnless && it->eStatus == KS_PLAN_CANDIDATE; u++) {
      if (!is_true(s->aUnless[u].pIf, pEv)) continue;
      it->eStatus = KS_PLAN_UNLESS;
      ks_buf_printf(&b, "unless: %s [", s->aUnless[u].zWhy);
      ks_cond_explain(s->aUnless[u].pIf, pEv, &b);
      ks_buf_puts(&b, "]");
    }
    for (int t = 0; aVetoes[t].zName && it->eStatus == KS_PLAN_CANDIDATE; t++) {
      if (!has_tag(s, aVetoes[t].zTag) || !is_true(apVeto[t], pEv)) continue;
      it->eStatus = KS_PLAN_VETO;
      ks_buf_printf(&b, "veto \"%s\": %s [", aVetoes[t].zName, aVetoes[t].zWhy);
      ks_cond_explain(apVeto[t], pEv, &b);
      ks_buf_puts(&b, "]");
    }
    if (it->eStatus == KS_PLAN_CANDIDATE && journal_reason(pOpts, s, &b)) it->eStatus = KS_PLAN_JOURNAL;
    if (b.n && !(it->zRuledOut = ks_strdup(ks_buf_cstr(&b)))) {
      rc = KS_ENOMEM;
      goto fail;
    }
  }
  if (p->n) qsort(p->a, (size_t)p->n, sizeof *p->a, cmp_rank);
  for (int i = 0; i < p->n; i++)
    if (p->a[i].eStatus == KS_PLAN_CANDIDATE) p->a[i].iRank = ++p->nCandidates;

  ks_buf_clear(&b);
  if (!p->bHasProfile) ks_buf_puts(&b, "no profile: planning from static features alone");
  class_part(&b, pEv, "derived.bottleneck", "bottleneck");
  class_part(&b, pEv, "derived.headroom", "headroom");
  class_part(&b, pEv, "derived.occupancy_limiter", "occupancy limiter");
  class_part(&b, pEv, "derived.top_stall", "top stall");
  class_part(&b, pEv, "features.structure", "structure");
  if (!(p->zClass = ks_strdup(ks_buf_cstr(&b)))) {
    rc = KS_ENOMEM;
    goto fail;
  }
  ks_buf_free(&b);
  for (int v = 0; aVetoes[v].zName; v++) ks_cond_free(apVeto[v]);
  *ppPlan = p;
  return KS_OK;
fail:
  ks_buf_free(&b);
  for (int v = 0; aVetoes[v].zName; v++) ks_cond_free(apVeto[v]);
  ks_plan_free(p);
  return rc;
}

static const char *status_name(int e) {
  switch (e) {
  case KS_PLAN_CANDIDATE: return "candidate";
  case KS_PLAN_UNLESS: return "unless";
  case KS_PLAN_VETO: return "veto";
  case KS_PLAN_JOURNAL: return "journal";
  case KS_PLAN_UNKNOWN: return "undetermined";
  default: return "not_applicable";
  }
}

static void impl_text(ks_buf *b, const ks_skill *s) {
  if (s->zRule) {
    ks_buf_printf(b, "rule %s", s->zRule);
    for (int k = 0; k < s->nParams; k++) ks_buf_printf(b, " %s", s->azParams[k]);
    if (s->zGuidance) ks_buf_puts(b, " (+ guidance)");
  } else {
    ks_buf_puts(b, "guidance (LLM)");
  }
}

int ks_plan_text(const ks_plan *p, int nTop, int bVerbose, ks_buf *b) {
  if (p->zKernel) ks_buf_printf(b, "plan for kernel %s", p->zKernel);
  else ks_buf_puts(b, "plan");
  if (p->zSource) ks_buf_printf(b, " of %s", p->zSource);
  if (p->zParent) ks_buf_printf(b, " (version %s)", p->zParent);
  ks_buf_printf(b, "\nevidence: %s\n", p->bHasProfile ? "features + profile" : "features only");
  ks_buf_printf(b, "class: %s\n", p->zClass);
  int nShow = nTop > 0 && nTop < p->nCandidates ? nTop : p->nCandidates;
  if (!p->nCandidates) ks_buf_puts(b, "candidates: none\n");
  else if (nShow < p->nCandidates) ks_buf_printf(b, "candidates (top %d of %d):\n", nShow, p->nCandidates);
  else ks_buf_printf(b, "candidates (%d):\n", p->nCandidates);
  for (int i = 0; i < p->n; i++) {
    const ks_plan_item *it = &p->a[i];
    if (it->eStatus != KS_PLAN_CANDIDATE || it->iRank > nShow) continue;
    ks_buf_printf(b, "  %d. %s  [priority %d, specificity %d, gain %.2fx] ", it->iRank, it->pSkill->zId,
                  it->pSkill->iPriority, it->nSpecificity, it->pSkill->rGain);
    impl_text(b, it->pSkill);
    ks_buf_printf(b, "\n     %s -> %s\n", it->zWhy, it->pSkill->zId);
  }
  int nOut = 0, nUnknown = 0, nNo = 0;
  for (int i = 0; i < p->n; i++) {
    int e = p->a[i].eStatus;
    nOut += e == KS_PLAN_UNLESS || e == KS_PLAN_VETO || e == KS_PLAN_JOURNAL;
    nUnknown += e == KS_PLAN_UNKNOWN;
    nNo += e == KS_PLAN_NO;
  }
  if (nOut) {
    ks_buf_printf(b, "ruled out (%d):\n", nOut);
    for (int i = 0; i < p->n; i++) {
      const ks_plan_item *it = &p->a[i];
      int e = it->eStatus;
      if (e != KS_PLAN_UNLESS && e != KS_PLAN_VETO && e != KS_PLAN_JOURNAL) continue;
      ks_buf_printf(b, "  %s: %s\n", it->pSkill->zId, it->zRuledOut);
    }
  }
  if (nUnknown) {
    ks_buf_printf(b, "undetermined, missing evidence (%d):\n", nUnknown);
    for (int i = 0; i < p->n; i++)
      if (p->a[i].eStatus == KS_PLAN_UNKNOWN) ks_buf_printf(b, "  %s: %s\n", p->a[i].pSkill->zId, p->a[i].zWhy);
  }
  if (bVerbose) {
    ks_buf_printf(b, "not applicable (%d):\n", nNo);
    for (int i = 0; i < p->n; i++)
      if (p->a[i].eStatus == KS_PLAN_NO) ks_buf_printf(b, "  %s: %s\n", p->a[i].pSkill->zId, p->a[i].zWhy);
  } else if (nNo) {
    ks_buf_printf(b, "not applicable: %d skill%s (--verbose lists them)\n", nNo, nNo == 1 ? "" : "s");
  }
  return b->n ? KS_OK : KS_ERROR;
}

int ks_plan_json(const ks_plan *p, const ks_evidence *pEv, int nTop, ks_buf *b) {
  int nShow = nTop > 0 && nTop < p->nCandidates ? nTop : p->nCandidates;
  ks_buf_puts(b, "{\"ks_plan\": 1, \"kernel\": ");
  if (p->zKernel) ks_buf_json_string(b, p->zKernel);
  else ks_buf_puts(b, "null");
  ks_buf_puts(b, ", \"source\": ");
  if (p->zSource) ks_buf_json_string(b, p->zSource);
  else ks_buf_puts(b, "null");
  ks_buf_puts(b, ", \"parent\": ");
  if (p->zParent) ks_buf_json_string(b, p->zParent);
  else ks_buf_puts(b, "null");
  ks_buf_printf(b, ", \"has_profile\": %s, \"class\": ", p->bHasProfile ? "true" : "false");
  ks_buf_json_string(b, p->zClass);
  ks_buf_puts(b, ",\n \"derived\": {");
  int nD = 0;
  for (const ks_field_def *f = ks_field_table(); f->zName; f++) {
    if (strncmp(f->zName, "derived.", 8) != 0) continue;
    const char *zWhy = NULL;
    ks_value v = ks_evidence_get(pEv, f->zName, &zWhy);
    if (v.eType == KS_VAL_UNKNOWN) continue;
    ks_buf_printf(b, "%s\n  ", nD++ ? "," : "");
    ks_buf_json_string(b, f->zName + 8);
    ks_buf_puts(b, ": {\"value\": ");
    if (v.eType == KS_VAL_STR) ks_buf_json_string(b, v.z);
    else if (v.eType == KS_VAL_BOOL) ks_buf_puts(b, v.b ? "true" : "false");
    else ks_buf_printf(b, "%.17g", v.r);
    ks_buf_puts(b, ", \"why\": ");
    ks_buf_json_string(b, zWhy ? zWhy : "");
    ks_buf_puts(b, "}");
  }
  ks_buf_puts(b, "},\n \"candidates\": [");
  int nC = 0;
  for (int i = 0; i < p->n; i++) {
    const ks_plan_item *it = &p->a[i];
    if (it->eStatus != KS_PLAN_CANDIDATE || it->iRank > nShow) continue;
    const ks_skill *s = it->pSkill;
    ks_buf_printf(b, "%s\n  {\"rank\": %d, \"skill\": ", nC++ ? "," : "", it->iRank);
    ks_buf_json_string(b, s->zId);
    ks_buf_puts(b, ", \"title\": ");
    ks_buf_json_string(b, s->zTitle);
    ks_buf_printf(b, ", \"priority\": %d, \"specificity\": %d, \"gain\": %g, \"rule\": ", s->iPriority,
                  it->nSpecificity, s->rGain);
    if (s->zRule) ks_buf_json_string(b, s->zRule);
    else ks_buf_puts(b, "null");
    ks_buf_puts(b, ", \"params\": {");
    for (int k = 0; k < s->nParams; k++) {
      const char *zEq = strchr(s->azParams[k], '=');
      char zKey[128];
      snprintf(zKey, sizeof zKey, "%.*s", (int)(zEq - s->azParams[k]), s->azParams[k]);
      ks_buf_puts(b, k ? ", " : "");
      ks_buf_json_string(b, zKey);
      ks_buf_puts(b, ": ");
      ks_buf_json_string(b, zEq + 1);
    }
    ks_buf_printf(b, "}, \"guidance\": %s, \"why\": ", s->zGuidance ? "true" : "false");
    ks_buf_json_string(b, it->zWhy);
    ks_buf_puts(b, "}");
  }
  ks_buf_puts(b, "],\n \"ruled_out\": [");
  int nR = 0;
  for (int i = 0; i < p->n; i++) {
    const ks_plan_item *it = &p->a[i];
    if (it->eStatus == KS_PLAN_CANDIDATE || it->eStatus == KS_PLAN_NO) continue;
    ks_buf_printf(b, "%s\n  {\"skill\": ", nR++ ? "," : "");
    ks_buf_json_string(b, it->pSkill->zId);
    ks_buf_printf(b, ", \"status\": \"%s\", \"reason\": ", status_name(it->eStatus));
    ks_buf_json_string(b, it->eStatus == KS_PLAN_UNKNOWN ? it->zWhy : it->zRuledOut);
    ks_buf_puts(b, "}");
  }
  ks_buf_puts(b, "],\n \"not_applicable\": [");
  int nN = 0;
  for (int i = 0; i < p->n; i++) {
    if (p->a[i].eStatus != KS_PLAN_NO) continue;
    ks_buf_puts(b, nN++ ? ", " : "");
    ks_buf_json_string(b, p->a[i].pSkill->zId);
  }
  return ks_buf_puts(b, "]}\n");
}
