/* cupti.c — CUPTI in ks-harness: kernel records through the Activity API
 * (duration, grid/block, registers, shared memory, stream) and hardware
 * metrics through the Range Profiler API (auto range per kernel, kernel
 * replay), evaluated with the profiler host API. cupti_profiler_host.h
 * includes <string>; this C file is compiled with an empty `string` header on
 * a private include path (stub/). */
#define _GNU_SOURCE
#include "harness.h"
#include "common/json_file.h"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <stdlib.h>
#include <string.h>

/* ---- activity ------------------------------------------------------------ */

static hk_activity g_act;
static int g_bRegistered;

static void CUPTIAPI buf_requested(uint8_t **ppBuf, size_t *pnSize, size_t *pnMaxRecords) {
  *pnSize = 8 << 20;
  *ppBuf = aligned_alloc(8, *pnSize);
  *pnMaxRecords = 0;
}

static void CUPTIAPI buf_completed(CUcontext ctx, uint32_t iStream, uint8_t *pBuf, size_t nSize, size_t nValid) {
  CUpti_Activity *pRec = NULL;
  (void)ctx, (void)iStream, (void)nSize;
  while (cuptiActivityGetNextRecord(pBuf, nValid, &pRec) == CUPTI_SUCCESS) {
    if (pRec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || pRec->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
      const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)pRec;
      if (g_act.nKernel == HK_MAX_KERNELS) {
        g_act.nDropped++;
        continue;
      }
      hk_kernel *q = &g_act.aKernel[g_act.nKernel++];
      snprintf(q->zName, sizeof q->zName, "%s", k->name ? k->name : "?");
      q->nStartNs = k->start;
      q->nEndNs = k->end;
      q->aGrid[0] = k->gridX, q->aGrid[1] = k->gridY, q->aGrid[2] = k->gridZ;
      q->aBlock[0] = k->blockX, q->aBlock[1] = k->blockY, q->aBlock[2] = k->blockZ;
      q->nRegs = k->registersPerThread;
      q->nStaticSmem = k->staticSharedMemory;
      q->nDynSmem = k->dynamicSharedMemory;
      q->iStream = k->streamId;
    } else if (pRec->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
      /* The harness's 4-byte marker memset on the legacy default stream. */
      const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)pRec;
      if (m->bytes == 4 && !g_act.bHaveDefault) {
        g_act.iDefaultStream = m->streamId;
        g_act.bHaveDefault = 1;
      }
    }
  }
  size_t nDropped = 0;
  if (cuptiActivityGetNumDroppedRecords(ctx, iStream, &nDropped) == CUPTI_SUCCESS) g_act.nDropped += (int)nDropped;
  free(pBuf);
}

static int cupti_err(CUptiResult r, const char *zWhat, char *zErr, size_t nErr) {
  const char *zMsg = NULL;
  cuptiGetResultString(r, &zMsg);
  snprintf(zErr, nErr, "%s: %s", zWhat, zMsg ? zMsg : "CUPTI error");
  return -1;
}

int hk_activity_start(char *zErr, size_t nErr) {
  CUptiResult r;
  memset(&g_act, 0, sizeof g_act);
  if (!g_bRegistered) {
    if ((r = cuptiActivityRegisterCallbacks(buf_requested, buf_completed)) != CUPTI_SUCCESS)
      return cupti_err(r, "cuptiActivityRegisterCallbacks", zErr, nErr);
    g_bRegistered = 1;
  }
  if ((r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)) != CUPTI_SUCCESS)
    return cupti_err(r, "enabling kernel activity", zErr, nErr);
  if ((r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET)) != CUPTI_SUCCESS)
    return cupti_err(r, "enabling memset activity", zErr, nErr);
  return 0;
}

int hk_activity_stop(hk_activity *p, char *zErr, size_t nErr) {
  CUptiResult r;
  cudaDeviceSynchronize();
  cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MEMSET);
  if ((r = cuptiActivityFlushAll(1)) != CUPTI_SUCCESS) return cupti_err(r, "flushing activity", zErr, nErr);
  memcpy(p, &g_act, sizeof g_act);
  return 0;
}

/* ---- range profiler ------------------------------------------------------ */


/* A CUPTI parameter struct: zeroed, with its structSize (CUPTI's versioning). */
#define CUPTI_PARAMS(T, v) T v = {.structSize = T##_STRUCT_SIZE}

#define RP_CHECK(call, what)                     \
  do {                                           \
    CUptiResult r_ = (call);                     \
    if (r_ != CUPTI_SUCCESS) {                   \
      cupti_err(r_, what, zErr, sizeof zErr);    \
      goto done;                                 \
    }                                            \
  } while (0)

int hk_profile_ranges(FILE *f, void (*xCall)(void *), void *pArg, const char *const *azMetric, int nMetric) {
  char zErr[512] = "";
  int rc = -1, bProfInit = 0, nPasses = 0;
  CUpti_Profiler_Host_Object *pHost = NULL;
  CUpti_RangeProfiler_Object *pRp = NULL;
  uint8_t *pConfig = NULL, *pCounter = NULL, *pAvail = NULL;
  size_t nConfig = 0, nCounter = 0, nRanges = 0;
  double *arVal = NULL;
  const size_t nMaxRanges = 64;
  CUcontext ctx = NULL;
  const char **azM = NULL;

  /* The driver API through cudart's entry points: no link against libcuda. */
  CUresult (*xCtxGetCurrent)(CUcontext *) = NULL;
  enum cudaDriverEntryPointQueryResult q;
  cudaFree(0);
  if (cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", (void **)&xCtxGetCurrent, 12000, cudaEnableDefault, &q) !=
          cudaSuccess ||
      !xCtxGetCurrent || xCtxGetCurrent(&ctx) != CUDA_SUCCESS || !ctx) {
    snprintf(zErr, sizeof zErr, "no current CUDA context");
    goto done;
  }
  CUpti_Profiler_Initialize_Params ip = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE, NULL};
  RP_CHECK(cuptiProfilerInitialize(&ip), "cuptiProfilerInitialize");
  bProfInit = 1;
  int iDev = 0;
  cudaGetDevice(&iDev);
  CUPTI_PARAMS(CUpti_Device_GetChipName_Params, cn);
  cn.deviceIndex = (size_t)iDev;
  RP_CHECK(cuptiDeviceGetChipName(&cn), "cuptiDeviceGetChipName");

  CUPTI_PARAMS(CUpti_RangeProfiler_Enable_Params, en);
  en.ctx = ctx;
  RP_CHECK(cuptiRangeProfilerEnable(&en), "cuptiRangeProfilerEnable (hardware counters unavailable?)");
  pRp = en.pRangeProfilerObject;

  /* Counter availability image: which counters this device/session may read. */
  CUPTI_PARAMS(CUpti_Profiler_GetCounterAvailability_Params, ca);
  ca.ctx = ctx;
  RP_CHECK(cuptiProfilerGetCounterAvailability(&ca), "counter availability size");
  pAvail = malloc(ca.counterAvailabilityImageSize);
  if (!pAvail) goto done;
  ca.pCounterAvailabilityImage = pAvail;
  RP_CHECK(cuptiProfilerGetCounterAvailability(&ca), "counter availability");

  CUPTI_PARAMS(CUpti_Profiler_Host_Initialize_Params, hi);
  hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  hi.pChipName = cn.pChipName;
  hi.pCounterAvailabilityImage = pAvail;
  RP_CHECK(cuptiProfilerHostInitialize(&hi), "cuptiProfilerHostInitialize");
  pHost = hi.pHostObject;

  /* Keep the metrics this chip knows; name the others in the output. */
  if (!(azM = calloc((size_t)nMetric + 1, sizeof(char *)))) goto done;
  {
    int nKeep = 0, nRefused = 0;
    for (int m = 0; m < nMetric; m++) {
      CUPTI_PARAMS(CUpti_Profiler_Host_GetMetricProperties_Params, mp);
      mp.pHostObject = pHost;
      mp.pMetricName = azMetric[m];
      if (cuptiProfilerHostGetMetricProperties(&mp) == CUPTI_SUCCESS) {
        azM[nKeep++] = azMetric[m];
      } else {
        fprintf(f, "%s", nRefused++ ? ", " : "\"metrics_refused\": [");
        ks_json_fput_str(f, azMetric[m]);
      }
    }
    if (nRefused) fprintf(f, "], ");
    nMetric = nKeep;
  }
  if (nMetric == 0) {
    snprintf(zErr, sizeof zErr, "no metric of the list is known on this chip");
    goto done;
  }
  CUPTI_PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params, am);
  am.pHostObject = pHost;
  am.ppMetricNames = azM;
  am.numMetrics = (size_t)nMetric;
  RP_CHECK(cuptiProfilerHostConfigAddMetrics(&am), "adding metrics to the config");

  CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params, cs);
  cs.pHostObject = pHost;
  RP_CHECK(cuptiProfilerHostGetConfigImageSize(&cs), "config image size");
  nConfig = cs.configImageSize;
  if (!(pConfig = malloc(nConfig))) goto done;
  CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImage_Params, gi);
  gi.pHostObject = pHost;
  gi.configImageSize = nConfig;
  gi.pConfigImage = pConfig;
  RP_CHECK(cuptiProfilerHostGetConfigImage(&gi), "config image");
  CUPTI_PARAMS(CUpti_Profiler_Host_GetNumOfPasses_Params, np);
  np.configImageSize = nConfig;
  np.pConfigImage = pConfig;
  if (cuptiProfilerHostGetNumOfPasses(&np) == CUPTI_SUCCESS) nPasses = (int)np.numOfPasses;

  CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params, ds);
  ds.pRangeProfilerObject = pRp;
  ds.pMetricNames = azM;
  ds.numMetrics = (size_t)nMetric;
  ds.maxNumOfRanges = nMaxRanges;
  ds.maxNumRangeTreeNodes = (uint32_t)nMaxRanges;
  RP_CHECK(cuptiRangeProfilerGetCounterDataSize(&ds), "counter data size");
  nCounter = ds.counterDataSize;
  if (!(pCounter = malloc(nCounter))) goto done;
  CUPTI_PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params, ci);
  ci.pRangeProfilerObject = pRp;
  ci.counterDataSize = nCounter;
  ci.pCounterData = pCounter;
  RP_CHECK(cuptiRangeProfilerCounterDataImageInitialize(&ci), "counter data image");

  CUPTI_PARAMS(CUpti_RangeProfiler_SetConfig_Params, sc);
  sc.pRangeProfilerObject = pRp;
  sc.configSize = nConfig;
  sc.pConfig = pConfig;
  sc.counterDataImageSize = nCounter;
  sc.pCounterDataImage = pCounter;
  sc.range = CUPTI_AutoRange;
  sc.replayMode = CUPTI_KernelReplay;
  sc.maxRangesPerPass = nMaxRanges;
  sc.numNestingLevels = 1;
  sc.minNestingLevel = 1;
  sc.passIndex = 0;
  sc.targetNestingLevel = 1;
  RP_CHECK(cuptiRangeProfilerSetConfig(&sc), "cuptiRangeProfilerSetConfig");

  /* Kernel replay: CUPTI replays each kernel for every pass inside one call of
   * the entry; loop only in case it asks for more submissions. */
  for (int iPass = 0; iPass < 64; iPass++) {
    CUPTI_PARAMS(CUpti_RangeProfiler_Start_Params, st);
    st.pRangeProfilerObject = pRp;
    RP_CHECK(cuptiRangeProfilerStart(&st), "cuptiRangeProfilerStart");
    xCall(pArg);
    cudaDeviceSynchronize();
    CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params, sp);
    sp.pRangeProfilerObject = pRp;
    RP_CHECK(cuptiRangeProfilerStop(&sp), "cuptiRangeProfilerStop");
    if (sp.isAllPassSubmitted) break;
  }
  CUPTI_PARAMS(CUpti_RangeProfiler_DecodeData_Params, dd);
  dd.pRangeProfilerObject = pRp;
  RP_CHECK(cuptiRangeProfilerDecodeData(&dd), "decoding counter data");

  CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params, di);
  di.pCounterDataImage = pCounter;
  di.counterDataImageSize = nCounter;
  RP_CHECK(cuptiRangeProfilerGetCounterDataInfo(&di), "counter data info");
  nRanges = di.numTotalRanges;

  if (!(arVal = calloc((size_t)nMetric, sizeof(double)))) goto done;
  fprintf(f, "\"metric_passes\": %d, \"metrics\": [", nPasses);
  for (size_t iR = 0; iR < nRanges; iR++) {
    CUPTI_PARAMS(CUpti_RangeProfiler_CounterData_GetRangeInfo_Params, ri);
    ri.pCounterDataImage = pCounter;
    ri.counterDataImageSize = nCounter;
    ri.rangeIndex = iR;
    ri.rangeDelimiter = "/";
    const char *zRange = cuptiRangeProfilerCounterDataGetRangeInfo(&ri) == CUPTI_SUCCESS ? ri.rangeName : "";
    fprintf(f, "%s{\"range\": ", iR ? ", " : "");
    ks_json_fput_str(f, zRange);
    /* Evaluate one metric at a time so one unknown metric does not hide the rest. */
    for (int m = 0; m < nMetric; m++) {
      CUPTI_PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params, ev);
      ev.pHostObject = pHost;
      ev.pCounterDataImage = pCounter;
      ev.counterDataImageSize = nCounter;
      ev.rangeIndex = iR;
      ev.ppMetricNames = &azM[m];
      ev.numMetrics = 1;
      ev.pMetricValues = &arVal[m];
      if (cuptiProfilerHostEvaluateToGpuValues(&ev) == CUPTI_SUCCESS) {
        fprintf(f, ", ");
        ks_json_fput_str(f, azM[m]);
        fprintf(f, ": %.9g", arVal[m]);
      }
    }
    fprintf(f, "}");
  }
  fprintf(f, "]");
  rc = 0;
done:
  if (rc != 0) {
    fprintf(f, "\"metrics_error\": ");
    ks_json_fput_str(f, zErr[0] ? zErr : "out of memory");
  }
  if (pHost) {
    CUpti_Profiler_Host_Deinitialize_Params hd = {CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE, NULL, pHost};
    cuptiProfilerHostDeinitialize(&hd);
  }
  if (pRp) {
    CUpti_RangeProfiler_Disable_Params dp = {CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE, NULL, pRp};
    cuptiRangeProfilerDisable(&dp);
  }
  if (bProfInit) {
    CUpti_Profiler_DeInitialize_Params dp = {CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE, NULL};
    cuptiProfilerDeInitialize(&dp);
  }
  free(pConfig);
  free(pCounter);
  free(pAvail);
  free(arVal);
  free(azM);
  return rc;
}
