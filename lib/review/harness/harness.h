/* harness.h — shared between the parts of ks-harness, the child process that
 * loads one compiled task (a shared object with ks_invoke) and runs it on the
 * GPU. Everything it finds is printed as one JSON object on stdout. */
#ifndef KS_HARNESS_H
#define KS_HARNESS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Calls the task's entry: tensors as device pointers, scalars as pointers to
 * their host value. Generated per task (lib/review/compile.c). */
typedef void (*ks_invoke_fn)(void *const *ap);

typedef struct hk_kernel {
  char zName[256];
  uint64_t nStartNs, nEndNs;
  int aGrid[3], aBlock[3];
  int nRegs, nStaticSmem, nDynSmem;
  uint32_t iStream;
} hk_kernel;

#define HK_MAX_KERNELS 256

typedef struct hk_activity {
  int nKernel;
  hk_kernel aKernel[HK_MAX_KERNELS];
  int nDropped;
  uint32_t iDefaultStream; /* stream id of our memset on the legacy default stream */
  int bHaveDefault;
} hk_activity;

/* CUPTI activity: start collecting kernel and memset records; stop, flush and
 * move them into *p. Return 0, or -1 with a message in zErr. */
int hk_activity_start(char *zErr, size_t nErr);
int hk_activity_stop(hk_activity *p, char *zErr, size_t nErr);

/* CUPTI range profiler: one range per kernel launched by xCall(pArg). Writes
 * "metrics": [ {name: value...} per range ] into f, or "metrics_error". */
int hk_profile_ranges(FILE *f, void (*xCall)(void *), void *pArg, const char *const *azMetric, int nMetric);

/* Built with nvcc (ceil.cu): fp32 FMA throughput in FLOP/s, or < 0. */
double ks_ceil_fp32_flops(int nSm);

#endif
