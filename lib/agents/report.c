/* report.c — the run report of `kernelskill optimize`, built from the journal
 * alone (so a resumed or copied run folder regenerates it): report.md with a
 * table per round, the accepted changes, the Diagnoser's failures and the
 * skipped skills, and speedup.svg, a plot of the speedup over the seed after
 * each round, written as plain SVG text (no plotting library). */
#include "kernelskill/loop.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- SVG ----------------------------------------------------------------- */

static void xml_text(ks_buf *b, const char *z) {
  for (; z && *z; z++) {
    switch (*z) {
      case '<': ks_buf_puts(b, "&lt;"); break;
      case '>': ks_buf_puts(b, "&gt;"); break;
      case '&': ks_buf_puts(b, "&amp;"); break;
      case '"': ks_buf_puts(b, "&quot;"); break;
      default: ks_buf_append(b, z, 1);
    }
  }
}

/* A tick step of 1, 2 or 5 times a power of ten giving about 5 ticks. */
static double nice_step(double rSpan) {
  if (rSpan <= 0) return 1;
  double rRaw = rSpan / 5, rPow = pow(10, floor(log10(rRaw))), rF = rRaw / rPow;
  return (rF <= 1 ? 1 : rF <= 2 ? 2 : rF <= 5 ? 5 : 10) * rPow;
}

int ks_report_svg(const char *zTitle, const int *aiRound, const double *arSpeedup, const int *abAccepted, int n,
                  ks_buf *pOut) {
  const double rW = 640, rH = 360, rL = 60, rR = 20, rT = 40, rB = 50;
  int iMaxRound = 1;
  double rMax = 1.0;
  for (int i = 0; i < n; i++) {
    if (aiRound[i] > iMaxRound) iMaxRound = aiRound[i];
    if (isfinite(arSpeedup[i]) && arSpeedup[i] > rMax) rMax = arSpeedup[i];
  }
  double rStep = nice_step(rMax);
  double rTop = ceil(rMax * 1.05 / rStep) * rStep;
#define X(r) (rL + (rW - rL - rR) * (double)(r) / iMaxRound)
#define Y(v) (rH - rB - (rH - rT - rB) * (v) / rTop)
  ks_buf_printf(pOut,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
                "font-family=\"sans-serif\" font-size=\"12\">\n",
                rW, rH, rW, rH);
  ks_buf_printf(pOut, "<rect width=\"%.0f\" height=\"%.0f\" fill=\"white\"/>\n", rW, rH);
  ks_buf_printf(pOut, "<text x=\"%.0f\" y=\"22\" text-anchor=\"middle\" font-size=\"14\">", rW / 2);
  xml_text(pOut, zTitle);
  ks_buf_puts(pOut, "</text>\n");
  /* Grid and y ticks. */
  for (double v = 0; v <= rTop + 1e-9; v += rStep) {
    ks_buf_printf(pOut, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", rL, Y(v),
                  rW - rR, Y(v));
    ks_buf_printf(pOut, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%gx</text>\n", rL - 6, Y(v) + 4, v);
  }
  /* The seed's level. */
  ks_buf_printf(pOut,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#999\" stroke-dasharray=\"4 3\"/>\n",
                rL, Y(1.0), rW - rR, Y(1.0));
  int iXStep = iMaxRound <= 15 ? 1 : (iMaxRound + 14) / 15;
  for (int r = 0; r <= iMaxRound; r += iXStep)
    ks_buf_printf(pOut, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%d</text>\n", X(r), rH - rB + 18, r);
  ks_buf_printf(pOut, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n", rL, rH - rB,
                rW - rR, rH - rB);
  ks_buf_printf(pOut, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n", rL, rT, rL,
                rH - rB);
  ks_buf_printf(pOut, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">round</text>\n", (rL + rW - rR) / 2,
                rH - 12);
  ks_buf_printf(pOut,
                "<text x=\"16\" y=\"%.1f\" text-anchor=\"middle\" transform=\"rotate(-90 16 %.1f)\">speedup over the "
                "seed</text>\n",
                (rT + rH - rB) / 2, (rT + rH - rB) / 2);
  /* The trajectory: a step line (the best only changes when a round accepts). */
  if (n > 0) {
    ks_buf_puts(pOut, "<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2\" points=\"");
    for (int i = 0; i < n; i++) {
      if (i > 0) ks_buf_printf(pOut, "%.1f,%.1f ", X(aiRound[i]), Y(arSpeedup[i - 1]));
      ks_buf_printf(pOut, "%.1f,%.1f ", X(aiRound[i]), Y(arSpeedup[i]));
    }
    ks_buf_puts(pOut, "\"/>\n");
  }
  for (int i = 0; i < n; i++) {
    ks_buf_printf(pOut, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%d\" fill=\"%s\"><title>round %d: %.2fx%s</title></circle>\n",
                  X(aiRound[i]), Y(arSpeedup[i]), abAccepted[i] ? 5 : 3, abAccepted[i] ? "#2ca02c" : "#888",
                  aiRound[i], arSpeedup[i], abAccepted[i] ? " (accepted)" : "");
    if (abAccepted[i])
      ks_buf_printf(pOut, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"10\">%.2fx</text>\n",
                    X(aiRound[i]), Y(arSpeedup[i]) - 9, arSpeedup[i]);
  }
  ks_buf_puts(pOut, "</svg>\n");
#undef X
#undef Y
  return KS_OK;
}

/* ---- markdown ------------------------------------------------------------ */

/* Markdown table cells: no pipes or newlines. */
static void md_cell(ks_buf *b, const char *z) {
  for (; z && *z; z++) {
    if (*z == '|') ks_buf_puts(b, "\\|");
    else if (*z == '\n' || *z == '\r') ks_buf_puts(b, " ");
    else ks_buf_append(b, z, 1);
  }
}

static void params_inline(const ks_journal_entry *e, ks_buf *b) {
  char *z = ks_journal_entry_member(e, "params");
  if (!z || !strcmp(z, "{}")) {
    free(z);
    return;
  }
  /* {"threads":"128"} -> threads=128 (values are plain strings written by the loop) */
  for (char *p = z; *p; p++) {
    if (*p == '{' || *p == '}' || *p == '"') continue;
    ks_buf_append(b, *p == ':' ? "=" : p, 1);
  }
  free(z);
}

static double num(const ks_journal_entry *e, const char *zKey, double rDefault) {
  double r;
  return ks_journal_entry_number(e, zKey, &r) == KS_OK ? r : rDefault;
}

int ks_report_write(const char *zOutDir) {
  int rc = KS_OK;
  char *zJournal = ks_path_join(zOutDir, "journal.jsonl");
  char *zMd = ks_path_join(zOutDir, "report.md"), *zSvg = ks_path_join(zOutDir, "speedup.svg");
  ks_journal *pJ = NULL;
  ks_buf md = KS_BUF_INIT, svg = KS_BUF_INIT, acc = KS_BUF_INIT, fail = KS_BUF_INIT, skip = KS_BUF_INIT;
  int *aiRound = NULL, *abAcc = NULL, nPts = 0;
  double *arSp = NULL;
  char *zTask = NULL, *zSource = NULL;
  if (!zJournal || !zMd || !zSvg) {
    rc = ks_error_set(KS_ENOMEM, "out of memory");
    goto done;
  }
  if (!ks_file_exists(zJournal)) {
    rc = ks_error_set(KS_ENOTFOUND, "%s: no journal", zJournal);
    goto done;
  }
  if ((rc = ks_journal_read(zJournal, &pJ)) < 0) goto done;
  int iStart = ks_journal_find(pJ, "start", -1, NULL);
  if (iStart < 0) {
    rc = ks_error_set(KS_EINVAL, "%s: no \"start\" record: not a kernelskill optimize journal", zJournal);
    goto done;
  }
  zTask = ks_journal_entry_string(&pJ->a[iStart], "task");
  zSource = ks_journal_entry_string(&pJ->a[iStart], "source");
  aiRound = calloc((size_t)pJ->n + 1, sizeof *aiRound);
  abAcc = calloc((size_t)pJ->n + 1, sizeof *abAcc);
  arSp = calloc((size_t)pJ->n + 1, sizeof *arSp);
  if (!aiRound || !abAcc || !arSp) {
    rc = ks_error_set(KS_ENOMEM, "out of memory");
    goto done;
  }
  int iRev = ks_journal_find(pJ, "review", 0, NULL);
  double rSeedUs = iRev >= 0 ? num(&pJ->a[iRev], "median_us", 0) : 0;
  ks_buf_printf(&md, "# kernelskill optimize: %s\n\n", zTask ? zTask : "?");
  ks_buf_printf(&md, "Seed: `%s` (hash `%s`)", zSource ? zSource : "?",
                pJ->a[iStart].zJson && iRev >= 0 && pJ->a[iRev].zHash ? pJ->a[iRev].zHash : "?");
  if (iRev >= 0 && pJ->a[iRev].zVerdict && strcmp(pJ->a[iRev].zVerdict, "ok") != 0) {
    char *zDiag = ks_journal_entry_string(&pJ->a[iRev], "diagnosis");
    ks_buf_printf(&md, ".\n\n**The seed failed its review** (%s): %s\n", pJ->a[iRev].zVerdict, zDiag ? zDiag : "");
    free(zDiag);
    goto write;
  }
  if (rSeedUs > 0) ks_buf_printf(&md, ", %.2f us.\n", rSeedUs);
  else ks_buf_puts(&md, ".\n");
  int iStop = ks_journal_find(pJ, "stop", -1, NULL), iFinal = ks_journal_find(pJ, "final", -1, NULL);
  int iLastDec = ks_journal_find(pJ, "decision", -1, NULL);
  double rTotal = iLastDec >= 0 ? num(&pJ->a[iLastDec], "total_speedup", 1) : 1;
  double rBestUs = iLastDec >= 0 ? num(&pJ->a[iLastDec], "best_us", rSeedUs) : rSeedUs;
  if (iFinal >= 0) {
    const ks_journal_entry *f = &pJ->a[iFinal];
    ks_buf_printf(&md, "Result: best `%s`, %.2f us; the closing review against the seed: **%s**", f->zHash ? f->zHash : "?",
                  num(f, "median_us", rBestUs), f->zVerdict ? f->zVerdict : "?");
    if (f->bHasSpeedup) ks_buf_printf(&md, ", **%.2fx**", f->rSpeedup);
    ks_buf_printf(&md, " (%s).\n", f->zReason ? f->zReason : "");
  } else if (iStop >= 0) {
    ks_buf_printf(&md, "Result: %s (%.2f us, %.2fx).\n", rTotal > 1 ? "improved" : "no faster version found", rBestUs,
                  rTotal);
  } else {
    ks_buf_printf(&md, "The run has not finished (resume it with `kernelskill optimize TASK --resume --out %s`).\n",
                  zOutDir);
  }
  if (iStop >= 0) ks_buf_printf(&md, "Stopped: %s.\n", pJ->a[iStop].zReason ? pJ->a[iStop].zReason : "");
  ks_buf_puts(&md, "\n![speedup over the seed per round](speedup.svg)\n\n## Rounds\n\n");
  ks_buf_puts(&md, "| round | kernel | skill | candidates (params: verdict, gain vs best) | decision | best us | vs seed |\n");
  ks_buf_puts(&md, "|---|---|---|---|---|---|---|\n");
  if (rSeedUs > 0) ks_buf_printf(&md, "| 0 | | seed review | | ok | %.2f | 1.00x |\n", rSeedUs);
  aiRound[nPts] = 0;
  arSp[nPts] = 1.0;
  abAcc[nPts++] = 0;
  for (int i = 0; i < pJ->n; i++) {
    const ks_journal_entry *d = &pJ->a[i];
    if (strcmp(d->zEvent, "decision") != 0) continue;
    ks_buf cands = KS_BUF_INIT;
    for (int j = 0; j < i; j++) {
      const ks_journal_entry *c = &pJ->a[j];
      if (strcmp(c->zEvent, "candidate") || c->iRound != d->iRound || !c->zVerdict) continue;
      if (!strcmp(c->zVerdict, "refused")) {
        ks_buf_printf(&skip, "- round %d: `%s`: %s\n", c->iRound, c->zSkill, c->zReason ? c->zReason : "");
        continue;
      }
      ks_buf pt = KS_BUF_INIT;
      params_inline(c, &pt);
      ks_buf_printf(&cands, "%s%s%s%s", cands.n ? "; " : "", ks_buf_cstr(&pt), pt.n ? ": " : "", c->zVerdict);
      ks_buf_free(&pt);
      if (c->bHasSpeedup) ks_buf_printf(&cands, " %.3fx", c->rSpeedup);
      if (strcmp(c->zVerdict, "accepted") && strcmp(c->zVerdict, "slower") && strcmp(c->zVerdict, "noise")) {
        char *zDiag = ks_journal_entry_string(c, "diagnosis");
        ks_buf pf = KS_BUF_INIT;
        params_inline(c, &pf);
        ks_buf_printf(&fail, "- round %d, `%s`%s%s%s: %s\n", c->iRound, c->zSkill, pf.n ? " [" : "", ks_buf_cstr(&pf),
                      pf.n ? "]" : "", zDiag ? zDiag : (c->zReason ? c->zReason : c->zVerdict));
        ks_buf_free(&pf);
        free(zDiag);
      }
    }
    char *zKernel = ks_journal_entry_string(d, "kernel");
    int bAcc = d->zVerdict && !strcmp(d->zVerdict, "accepted");
    double rTot = num(d, "total_speedup", 1), rUs = num(d, "best_us", 0);
    ks_buf_printf(&md, "| %d | %s | %s | ", d->iRound, zKernel ? zKernel : "", d->zSkill ? d->zSkill : "");
    md_cell(&md, ks_buf_cstr(&cands));
    ks_buf_printf(&md, " | %s | %.2f | %.2fx |\n", bAcc ? "**accepted**" : "kept best", rUs, rTot);
    if (bAcc) {
      char *zEv = ks_journal_entry_string(d, "evidence");
      ks_buf tmp = KS_BUF_INIT;
      params_inline(d, &tmp);
      if (d->zRule) {
        ks_buf_printf(&acc, "- round %d: `%s` (rule %s", d->iRound, d->zSkill, d->zRule);
        if (tmp.n) ks_buf_printf(&acc, ", %s", ks_buf_cstr(&tmp));
      } else {
        /* An LLM agent's candidate: its one parameter names the agent. */
        const char *zAgent = tmp.n && !strncmp(tmp.z, "llm=", 4) ? tmp.z + 4 : "agent";
        ks_buf_printf(&acc, "- round %d: `%s` (LLM %s", d->iRound, d->zSkill, zAgent);
      }
      ks_buf_free(&tmp);
      ks_buf_printf(&acc, ") on `%s`: %s\n", zKernel ? zKernel : "?", zEv ? zEv : "");
      free(zEv);
    }
    free(zKernel);
    ks_buf_free(&cands);
    aiRound[nPts] = d->iRound;
    arSp[nPts] = rTot;
    abAcc[nPts++] = bAcc;
  }
  /* Refusals of the round that found nothing left (no decision follows them). */
  for (int j = 0; j < pJ->n; j++) {
    const ks_journal_entry *c = &pJ->a[j];
    if (strcmp(c->zEvent, "candidate") || !c->zVerdict || strcmp(c->zVerdict, "refused")) continue;
    if (ks_journal_find(pJ, "decision", c->iRound, NULL) >= 0) continue;
    ks_buf_printf(&skip, "- round %d: `%s`: %s\n", c->iRound, c->zSkill, c->zReason ? c->zReason : "");
  }
  ks_buf_puts(&md, "\n## Accepted changes\n\n");
  ks_buf_puts(&md, acc.n ? ks_buf_cstr(&acc) : "None.\n");
  ks_buf_puts(&md, "\n## Failed candidates (Diagnoser)\n\nEach was reverted to its parent and recorded against its "
                   "skill and parameters.\n\n");
  ks_buf_puts(&md, fail.n ? ks_buf_cstr(&fail) : "None.\n");
  ks_buf_puts(&md, "\n## Skills skipped\n\n");
  ks_buf_puts(&md, skip.n ? ks_buf_cstr(&skip) : "None.\n");
write:
  ks_buf_puts(&md, "\nThe journal (`journal.jsonl`) holds every record; candidates' sources are in `candidates/`, "
                   "their evidence in `evidence/`.\n");
  {
    char *zTitle = NULL;
    ks_buf t = KS_BUF_INIT;
    ks_buf_printf(&t, "%s: speedup over the seed per round", zTask ? zTask : "?");
    zTitle = ks_buf_detach(&t);
    if (nPts == 0) {
      aiRound[0] = 0;
      arSp[0] = 1.0;
      abAcc[0] = 0;
      nPts = 1;
    }
    rc = ks_report_svg(zTitle ? zTitle : "", aiRound, arSp, abAcc, nPts, &svg);
    free(zTitle);
  }
  if (rc == KS_OK) rc = ks_file_write_atomic(zMd, md.z, md.n);
  if (rc == KS_OK) rc = ks_file_write_atomic(zSvg, svg.z, svg.n);
done:
  ks_journal_free(pJ);
  ks_buf_free(&md);
  ks_buf_free(&svg);
  ks_buf_free(&acc);
  ks_buf_free(&fail);
  ks_buf_free(&skip);
  free(aiRound);
  free(abAcc);
  free(arSp);
  free(zTask);
  free(zSource);
  free(zJournal);
  free(zMd);
  free(zSvg);
  return rc;
}
