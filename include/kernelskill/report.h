/* kernelskill/report.h — the run report of an optimize run (markdown + SVG
 * plot; lib/agents/report.c, part of the agents module), readable from the
 * journal alone. */
#ifndef KERNELSKILL_REPORT_H
#define KERNELSKILL_REPORT_H

#include "kernelskill/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Write zOutDir/report.md and zOutDir/speedup.svg from zOutDir/journal.jsonl. */
int ks_report_write(const char *zOutDir);
/* The SVG plot of cumulative speedup per round: arSpeedup[i] after round
 * aiRound[i], abAccepted[i] whether that round accepted a candidate. */
int ks_report_svg(const char *zTitle, const int *aiRound, const double *arSpeedup, const int *abAccepted, int n,
                  ks_buf *pOut);

#ifdef __cplusplus
}
#endif
#endif
