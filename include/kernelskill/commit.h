/* kernelskill/commit.h — the commit policy of a finished optimize run (part
 * of the agents module): verify the gain from the closing review's evidence,
 * write RUN/result.json and add the verified best to the store, or say why
 * nothing is stored. `kernelskill optimize --commit` calls it, and so does
 * the drop-in's build-time loop (through that command). docs/nvcc.md. */
#ifndef KERNELSKILL_COMMIT_H
#define KERNELSKILL_COMMIT_H

#include "kernelskill/common.h"
#include "kernelskill/loop.h"
#include "kernelskill/task.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the commit did: an entry stored (zStored), or why not (zWhy, with the
 * exit code that refusal gives: 0 nothing faster, 1 the run cannot be stored). */
typedef struct ks_commit_result {
  char *zStored; /* the entry's folder */
  char *zEntry;  /* its name */
  char *zArch;
  double rSpeedup;
  char *zWhy;
  int ec;
} ks_commit_result;

/* After a run into zOut: store the verified best in zStore (NULL: $KS_STORE
 * or the nearest .kernelskill/store above the source, else ./.kernelskill/
 * store) when the closing review found it correct and faster than the seed;
 * otherwise pC->zWhy says why nothing is stored. Errors (< 0) are only what
 * stops the command (memory, I/O, the store). */
int ks_commit_run(const ks_task *pTask, const ks_loop_result *pRes, const char *zOut, const char *zStore,
                  ks_commit_result *pC);
void ks_commit_result_free(ks_commit_result *p);
/* The loop's JSON result (zJson) with a "commit" object added. */
int ks_commit_result_json(const char *zJson, const ks_commit_result *pC, ks_buf *pOut);

#ifdef __cplusplus
}
#endif
#endif
