/* inject.c — libks-capture.so, the injection library of `kernelskill capture`.
 *
 * The CUDA driver loads it from CUDA_INJECTION64_PATH and calls
 * InitializeInjection() at cuInit, so it sees every launch whether the program
 * links cudart statically or dynamically. It subscribes CUPTI callbacks on the
 * driver's launch calls (cuLaunchKernel, cuLaunchKernelEx and their _ptsz
 * forms) and, for each launch, appends one JSON line to DIR/launches.jsonl:
 * kernel name (mangled, demangled), grid, block, dynamic shared memory,
 * stream, each parameter's offset, size and bytes (cuFuncGetParamInfo), and
 * for 8-byte values that point into device memory the allocation
 * (cuMemGetAddressRange). For the chosen launches it synchronizes and copies
 * every reachable allocation to DIR/snap/ before and after the launch. Kernel
 * durations come from CUPTI activity records (DIR/timing.jsonl).
 *
 * Configuration (environment, set by `kernelskill capture`):
 *   KS_CAPTURE_DIR     output folder (required: without it the library does nothing)
 *   KS_CAPTURE_KERNELS comma-separated kernel names to snapshot (default: all)
 *   KS_CAPTURE_LAUNCH  which launch of each kernel to snapshot, 0-based (default 0)
 *   KS_CAPTURE_EVERY   1: snapshot every launch of the selected kernels
 *   KS_CAPTURE_LIMIT   total snapshot bytes allowed (default 1 GiB)
 *   KS_CAPTURE_DRY     1: record launches and sizes, write no snapshot
 * Nothing is written outside KS_CAPTURE_DIR. Messages go to stderr, prefixed
 * "ks-capture:". */
#define _GNU_SOURCE
#include "common/json_file.h"

#include <cuda.h>
#include <cupti.h>
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define KC_MAX_PARAMS 256
#define KC_MAX_KERNELS 1024
#define KC_MAX_SEL 64

typedef struct kc_kernel_count {
  char *zName;
  int nLaunch;
} kc_kernel_count;

static struct {
  int bOn;
  char zDir[4096];
  FILE *pLaunches, *pTiming;
  char *azSel[KC_MAX_SEL];
  int nSel;
  int iLaunch, bEvery, bDry;
  uint64_t nLimit, nUsed;
  int nGlobal; /* launches seen */
  kc_kernel_count aCount[KC_MAX_KERNELS];
  int nCount;
  CUpti_SubscriberHandle hSub;
  pthread_mutex_t mu;
  char *(*xDemangle)(const char *, char *, size_t *, int *);
  int bFlushed;
} g = {.mu = PTHREAD_MUTEX_INITIALIZER};

static __thread int t_busy; /* our own driver calls must not recurse */

static void msg(const char *zFmt, ...) __attribute__((format(printf, 1, 2)));
static void msg(const char *zFmt, ...) {
  va_list ap;
  va_start(ap, zFmt);
  fputs("ks-capture: ", stderr);
  vfprintf(stderr, zFmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}


static const char *human(uint64_t n, char *zBuf, size_t nBuf) {
  if (n >= (1ull << 30)) snprintf(zBuf, nBuf, "%.1f GiB", (double)n / (1ull << 30));
  else if (n >= (1ull << 20)) snprintf(zBuf, nBuf, "%.1f MiB", (double)n / (1ull << 20));
  else if (n >= 1024) snprintf(zBuf, nBuf, "%.1f KiB", (double)n / 1024);
  else snprintf(zBuf, nBuf, "%" PRIu64 " B", n);
  return zBuf;
}

/* Does the name (mangled or demangled) match a --kernel selection? A selection
 * matches the mangled name, the demangled name, or its bare function name
 * (demangled up to '(' or '<', after the last "::"). */
static void bare_name(const char *zDem, char *zOut, size_t nOut) {
  const char *zEnd = zDem + strcspn(zDem, "(<");
  const char *zStart = zDem;
  for (const char *p = zDem; p + 1 < zEnd; p++)
    if (p[0] == ':' && p[1] == ':') zStart = p + 2;
  /* templates: "void foo<float>(...)" has the return type first */
  for (const char *p = zStart; p < zEnd; p++)
    if (*p == ' ') zStart = p + 1;
  size_t n = (size_t)(zEnd - zStart);
  if (n >= nOut) n = nOut - 1;
  memcpy(zOut, zStart, n);
  zOut[n] = 0;
}

static int selected(const char *zMangled, const char *zDem) {
  if (g.nSel == 0) return 1;
  char zBare[512];
  bare_name(zDem, zBare, sizeof zBare);
  for (int i = 0; i < g.nSel; i++)
    if (!strcmp(g.azSel[i], zMangled) || !strcmp(g.azSel[i], zDem) || !strcmp(g.azSel[i], zBare)) return 1;
  return 0;
}

static int count_launch(const char *zMangled) {
  for (int i = 0; i < g.nCount; i++)
    if (!strcmp(g.aCount[i].zName, zMangled)) return g.aCount[i].nLaunch++;
  if (g.nCount == KC_MAX_KERNELS) return 1 << 30;
  g.aCount[g.nCount].zName = strdup(zMangled);
  g.aCount[g.nCount].nLaunch = 1;
  g.nCount++;
  return 0;
}

/* ---- per launch --------------------------------------------------------- */

typedef struct kc_alloc {
  CUdeviceptr iBase;
  size_t nSize;
} kc_alloc;

typedef struct kc_pending {
  int bActive;
  int iGlobal;
  int bSnap;
  int nAlloc;
  kc_alloc aAlloc[KC_MAX_PARAMS];
  char *zLine; /* the launch's JSON, less the closing fields */
  size_t nLine;
} kc_pending;

static __thread kc_pending t_pend;

static int snapshot(int iGlobal, const kc_alloc *a, int k, const char *zWhen) {
  char zPath[4200];
  snprintf(zPath, sizeof zPath, "%s/snap/L%d_A%d.%s.bin", g.zDir, iGlobal, k, zWhen);
  void *p = malloc(a->nSize ? a->nSize : 1);
  if (!p) {
    msg("out of memory copying %zu bytes", a->nSize);
    return -1;
  }
  CUresult r = cuMemcpyDtoH(p, a->iBase, a->nSize);
  if (r != CUDA_SUCCESS) {
    const char *zErr = "?";
    cuGetErrorString(r, &zErr);
    msg("launch %d: copying allocation %d (%zu bytes): %s", iGlobal, k, a->nSize, zErr);
    free(p);
    return -1;
  }
  FILE *f = fopen(zPath, "wb");
  int rc = f && fwrite(p, 1, a->nSize, f) == a->nSize ? 0 : -1;
  if (f && fclose(f) != 0) rc = -1;
  if (rc) msg("cannot write %s: %s", zPath, strerror(errno));
  free(p);
  return rc;
}

static void on_launch_enter(CUfunction f, const char *zSym, unsigned g0, unsigned g1, unsigned g2, unsigned b0,
                            unsigned b1, unsigned b2, unsigned nSmem, CUstream hStream, void **apParams, void **apExtra,
                            const char *zApi, uint32_t iCorr) {
  const char *zMangled = zSym;
  if (!zMangled || !*zMangled) {
    if (cuFuncGetName(&zMangled, f) != CUDA_SUCCESS && cuKernelGetName(&zMangled, (CUkernel)f) != CUDA_SUCCESS)
      zMangled = "?";
  }
  char *zDem = NULL;
  if (g.xDemangle) {
    int st = 0;
    zDem = g.xDemangle(zMangled, NULL, NULL, &st);
    if (st != 0) zDem = NULL;
  }
  const char *zName = zDem ? zDem : zMangled;

  /* Parameters: offsets and sizes from the function itself (CUDA 12.4+). */
  size_t aOff[KC_MAX_PARAMS], aSize[KC_MAX_PARAMS];
  int nParam = 0;
  while (nParam < KC_MAX_PARAMS && cuFuncGetParamInfo(f, (size_t)nParam, &aOff[nParam], &aSize[nParam]) == CUDA_SUCCESS)
    nParam++;
  /* The runtime may launch a CUkernel handle passed as a CUfunction: ask
   * through the kernel API (cuKernelGetParamInfo) when the function API
   * knows no parameters. */
  if (nParam == 0) {
    while (nParam < KC_MAX_PARAMS &&
           cuKernelGetParamInfo((CUkernel)f, (size_t)nParam, &aOff[nParam], &aSize[nParam]) == CUDA_SUCCESS)
      nParam++;
  }
  /* The values: kernelParams[i] points at param i; or one packed buffer in `extra`. */
  const unsigned char *pPacked = NULL;
  for (int i = 0; apExtra && apExtra[i] != CU_LAUNCH_PARAM_END; i += 2) {
    if (apExtra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER) pPacked = apExtra[i + 1];
  }

  pthread_mutex_lock(&g.mu);
  int iGlobal = g.nGlobal++;
  int iNth = count_launch(zMangled);
  int bSel = selected(zMangled, zName);
  int bSnap = bSel && (g.bEvery || iNth == g.iLaunch);
  pthread_mutex_unlock(&g.mu);

  char *zLine = NULL;
  size_t nLine = 0;
  FILE *m = open_memstream(&zLine, &nLine);
  if (!m) goto done;
  fprintf(m, "{\"launch\": %d, \"nth\": %d, \"api\": ", iGlobal, iNth);
  ks_json_fput_str(m, zApi);
  fprintf(m, ", \"correlation\": %u, \"mangled\": ", iCorr);
  ks_json_fput_str(m, zMangled);
  fprintf(m, ", \"name\": ");
  ks_json_fput_str(m, zName);
  fprintf(m, ", \"grid\": [%u, %u, %u], \"block\": [%u, %u, %u], \"smem\": %u, \"stream\": \"%p\", \"params\": [", g0, g1,
          g2, b0, b1, b2, nSmem, (void *)hStream);
  kc_pending *pp = &t_pend;
  memset(pp, 0, sizeof *pp);
  for (int i = 0; i < nParam; i++) {
    const unsigned char *pv = apParams ? (const unsigned char *)apParams[i] : pPacked ? pPacked + aOff[i] : NULL;
    fprintf(m, "%s{\"offset\": %zu, \"size\": %zu, \"bytes\": \"", i ? ", " : "", aOff[i], aSize[i]);
    for (size_t k = 0; pv && k < aSize[i]; k++) fprintf(m, "%02x", pv[k]);
    fputc('"', m);
    if (pv && aSize[i] == 8) {
      uint64_t v;
      memcpy(&v, pv, 8);
      CUdeviceptr iBase = 0;
      size_t nSize = 0;
      if (v && cuMemGetAddressRange(&iBase, &nSize, (CUdeviceptr)v) == CUDA_SUCCESS) {
        int k;
        for (k = 0; k < pp->nAlloc; k++)
          if (pp->aAlloc[k].iBase == iBase) break;
        if (k == pp->nAlloc) {
          pp->aAlloc[k].iBase = iBase;
          pp->aAlloc[k].nSize = nSize;
          pp->nAlloc++;
        }
        fprintf(m, ", \"alloc\": %d, \"base\": \"0x%llx\", \"alloc_size\": %zu, \"ptr_offset\": %llu", k,
                (unsigned long long)iBase, nSize, (unsigned long long)(v - iBase));
      }
    }
    fputc('}', m);
  }
  fprintf(m, "], \"allocs\": [");
  uint64_t nNeed = 0;
  for (int k = 0; k < pp->nAlloc; k++) {
    fprintf(m, "%s{\"base\": \"0x%llx\", \"size\": %zu", k ? ", " : "", (unsigned long long)pp->aAlloc[k].iBase,
            pp->aAlloc[k].nSize);
    if (bSnap && !g.bDry) fprintf(m, ", \"before\": \"snap/L%d_A%d.before.bin\", \"after\": \"snap/L%d_A%d.after.bin\"", iGlobal, k, iGlobal, k);
    fputc('}', m);
    nNeed += 2 * (uint64_t)pp->aAlloc[k].nSize;
  }
  fputc(']', m);

  if (bSnap) {
    char zH[32];
    int bCapturing = 0;
    CUstreamCaptureStatus cs = CU_STREAM_CAPTURE_STATUS_NONE;
    if (cuStreamIsCapturing(hStream, &cs) == CUDA_SUCCESS && cs != CU_STREAM_CAPTURE_STATUS_NONE) bCapturing = 1;
    pthread_mutex_lock(&g.mu);
    int bFits = g.nUsed + nNeed <= g.nLimit;
    if (bFits && !g.bDry && !bCapturing) g.nUsed += nNeed;
    pthread_mutex_unlock(&g.mu);
    if (bCapturing) {
      fprintf(m, ", \"skipped\": \"the stream is being captured into a graph\"");
      bSnap = 0;
    } else if (g.bDry) {
      msg("launch %d (%s, launch %d of it): would snapshot %d allocation(s), %s before and after", iGlobal, zName,
          iNth, pp->nAlloc, human(nNeed / 2, zH, sizeof zH));
      fprintf(m, ", \"skipped\": \"dry run\", \"snapshot_bytes\": %" PRIu64, nNeed);
      bSnap = 0;
    } else if (!bFits) {
      msg("launch %d (%s): snapshot of %s skipped: over the limit (%" PRIu64 " bytes, %" PRIu64 " used)", iGlobal, zName,
          human(nNeed, zH, sizeof zH), g.nLimit, g.nUsed);
      fprintf(m, ", \"skipped\": \"over --limit\", \"snapshot_bytes\": %" PRIu64, nNeed);
      bSnap = 0;
    } else {
      msg("launch %d (%s, launch %d of it): writing %d allocation(s), %s before and after", iGlobal, zName, iNth,
          pp->nAlloc, human(nNeed / 2, zH, sizeof zH));
      fprintf(m, ", \"snapshot_bytes\": %" PRIu64, nNeed);
      t_busy = 1;
      CUresult r = cuCtxSynchronize();
      if (r != CUDA_SUCCESS) {
        msg("launch %d: cuCtxSynchronize before the launch failed (%d)", iGlobal, (int)r);
        fprintf(m, ", \"error\": \"synchronize before the launch failed\"");
        bSnap = 0;
      }
      for (int k = 0; bSnap && k < pp->nAlloc; k++) {
        if (snapshot(iGlobal, &pp->aAlloc[k], k, "before") < 0) {
          fprintf(m, ", \"error\": \"snapshot before the launch failed\"");
          bSnap = 0;
        }
      }
      t_busy = 0;
    }
  }
  fclose(m);
  pp->bActive = 1;
  pp->iGlobal = iGlobal;
  pp->bSnap = bSnap;
  pp->zLine = zLine;
  pp->nLine = nLine;
  zLine = NULL;
done:
  free(zLine);
  free(zDem);
}

static void on_launch_exit(CUresult rLaunch) {
  kc_pending *pp = &t_pend;
  if (!pp->bActive) return;
  pp->bActive = 0;
  char *zTail = NULL;
  size_t nTail = 0;
  FILE *m = open_memstream(&zTail, &nTail);
  if (!m) goto done;
  fprintf(m, ", \"result\": %d", (int)rLaunch);
  if (pp->bSnap) {
    int bOk = rLaunch == CUDA_SUCCESS;
    t_busy = 1;
    CUresult r = bOk ? cuCtxSynchronize() : rLaunch;
    if (r != CUDA_SUCCESS) {
      const char *zErr = "?";
      cuGetErrorString(r, &zErr);
      msg("launch %d failed: %s (no snapshot after it)", pp->iGlobal, zErr);
      fprintf(m, ", \"error\": ");
      ks_json_fput_str(m, zErr);
      bOk = 0;
    }
    for (int k = 0; bOk && k < pp->nAlloc; k++) {
      if (snapshot(pp->iGlobal, &pp->aAlloc[k], k, "after") < 0) {
        fprintf(m, ", \"error\": \"snapshot after the launch failed\"");
        bOk = 0;
      }
    }
    t_busy = 0;
    fprintf(m, ", \"snapshot\": %s", bOk ? "true" : "false");
  } else {
    fprintf(m, ", \"snapshot\": false");
  }
  fprintf(m, "}\n");
  fclose(m);
  pthread_mutex_lock(&g.mu);
  fwrite(pp->zLine, 1, pp->nLine, g.pLaunches);
  fwrite(zTail, 1, nTail, g.pLaunches);
  fflush(g.pLaunches);
  pthread_mutex_unlock(&g.mu);
done:
  free(zTail);
  free(pp->zLine);
  pp->zLine = NULL;
}

/* ---- CUPTI -------------------------------------------------------------- */

static void flush_activity(void);

static void CUPTIAPI on_callback(void *pUser, CUpti_CallbackDomain eDom, CUpti_CallbackId iCb, const void *pData) {
  (void)pUser;
  if (t_busy) return;
  if (eDom == CUPTI_CB_DOMAIN_RESOURCE) {
    if (iCb == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) flush_activity();
    return;
  }
  if (eDom != CUPTI_CB_DOMAIN_DRIVER_API) return;
  const CUpti_CallbackData *cb = pData;
  if (cb->callbackSite == CUPTI_API_EXIT) {
    on_launch_exit(cb->functionReturnValue ? *(const CUresult *)cb->functionReturnValue : CUDA_SUCCESS);
    return;
  }
  switch (iCb) {
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
    /* The _ptsz parameter struct has the same layout. */
    const cuLaunchKernel_params *p = cb->functionParams;
    on_launch_enter(p->f, cb->symbolName, p->gridDimX, p->gridDimY, p->gridDimZ, p->blockDimX, p->blockDimY,
                    p->blockDimZ, p->sharedMemBytes, p->hStream, p->kernelParams, p->extra, cb->functionName,
                    cb->correlationId);
    break;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
    const cuLaunchKernelEx_params *p = cb->functionParams;
    const CUlaunchConfig *c = p->config;
    on_launch_enter(p->f, cb->symbolName, c->gridDimX, c->gridDimY, c->gridDimZ, c->blockDimX, c->blockDimY,
                    c->blockDimZ, c->sharedMemBytes, c->hStream, p->kernelParams, p->extra, cb->functionName,
                    cb->correlationId);
    break;
  }
  default: break;
  }
}

static void CUPTIAPI buf_requested(uint8_t **ppBuf, size_t *pnSize, size_t *pnMaxRecords) {
  *pnSize = 8 << 20;
  *ppBuf = aligned_alloc(8, *pnSize);
  *pnMaxRecords = 0;
}

static void CUPTIAPI buf_completed(CUcontext ctx, uint32_t iStream, uint8_t *pBuf, size_t nSize, size_t nValid) {
  CUpti_Activity *pRec = NULL;
  (void)ctx, (void)iStream, (void)nSize;
  pthread_mutex_lock(&g.mu);
  while (pBuf && cuptiActivityGetNextRecord(pBuf, nValid, &pRec) == CUPTI_SUCCESS) {
    if (pRec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || pRec->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
      const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)pRec;
      fprintf(g.pTiming, "{\"correlation\": %u, \"ns\": %llu, \"mangled\": ", k->correlationId,
              (unsigned long long)(k->end - k->start));
      ks_json_fput_str(g.pTiming, k->name ? k->name : "?");
      fputs("}\n", g.pTiming);
    }
  }
  fflush(g.pTiming);
  pthread_mutex_unlock(&g.mu);
  free(pBuf);
}

static void flush_activity(void) {
  t_busy = 1;
  cuptiActivityFlushAll(1);
  t_busy = 0;
}

static void at_exit(void) {
  if (!g.bOn) return;
  flush_activity();
  pthread_mutex_lock(&g.mu);
  if (!g.bFlushed) {
    g.bFlushed = 1;
    FILE *f;
    char zPath[4200];
    snprintf(zPath, sizeof zPath, "%s/done.json", g.zDir);
    if ((f = fopen(zPath, "w"))) {
      fprintf(f, "{\"launches\": %d, \"snapshot_bytes\": %" PRIu64 "}\n", g.nGlobal, g.nUsed);
      fclose(f);
    }
    fflush(g.pLaunches);
    fflush(g.pTiming);
  }
  pthread_mutex_unlock(&g.mu);
}

static int cupti_ok(CUptiResult r, const char *zWhat) {
  if (r == CUPTI_SUCCESS) return 1;
  const char *z = "?";
  cuptiGetResultString(r, &z);
  msg("%s: %s", zWhat, z);
  return 0;
}

int InitializeInjection(void) {
  const char *zDir = getenv("KS_CAPTURE_DIR");
  if (!zDir || !*zDir || g.bOn) return 1;
  snprintf(g.zDir, sizeof g.zDir, "%s", zDir);
  char zPath[4200];
  snprintf(zPath, sizeof zPath, "%s/snap", g.zDir);
  if (mkdir(zPath, 0777) != 0 && errno != EEXIST) {
    msg("cannot create %s: %s", zPath, strerror(errno));
    return 0;
  }
  snprintf(zPath, sizeof zPath, "%s/launches.jsonl", g.zDir);
  g.pLaunches = fopen(zPath, "w");
  snprintf(zPath, sizeof zPath, "%s/timing.jsonl", g.zDir);
  g.pTiming = fopen(zPath, "w");
  if (!g.pLaunches || !g.pTiming) {
    msg("cannot write in %s: %s", g.zDir, strerror(errno));
    return 0;
  }
  const char *z = getenv("KS_CAPTURE_KERNELS");
  if (z && *z) {
    char *zCopy = strdup(z), *zSave = NULL;
    for (char *t = strtok_r(zCopy, ",", &zSave); t && g.nSel < KC_MAX_SEL; t = strtok_r(NULL, ",", &zSave))
      g.azSel[g.nSel++] = strdup(t);
    free(zCopy);
  }
  g.iLaunch = (z = getenv("KS_CAPTURE_LAUNCH")) ? atoi(z) : 0;
  g.bEvery = (z = getenv("KS_CAPTURE_EVERY")) && !strcmp(z, "1");
  g.bDry = (z = getenv("KS_CAPTURE_DRY")) && !strcmp(z, "1");
  g.nLimit = (z = getenv("KS_CAPTURE_LIMIT")) ? strtoull(z, NULL, 10) : (1ull << 30);
  g.xDemangle = (char *(*)(const char *, char *, size_t *, int *))dlsym(RTLD_DEFAULT, "__cxa_demangle");
  if (!g.xDemangle) {
    void *h = dlopen("libstdc++.so.6", RTLD_LAZY);
    if (h) g.xDemangle = (char *(*)(const char *, char *, size_t *, int *))dlsym(h, "__cxa_demangle");
  }

  if (!cupti_ok(cuptiSubscribe(&g.hSub, (CUpti_CallbackFunc)on_callback, NULL), "cuptiSubscribe")) return 0;
  static const CUpti_CallbackId aCb[] = {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
                                         CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz};
  for (size_t i = 0; i < sizeof aCb / sizeof aCb[0]; i++)
    if (!cupti_ok(cuptiEnableCallback(1, g.hSub, CUPTI_CB_DOMAIN_DRIVER_API, aCb[i]), "cuptiEnableCallback")) return 0;
  cupti_ok(cuptiEnableCallback(1, g.hSub, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING),
           "cuptiEnableCallback (context destroy)");
  if (cupti_ok(cuptiActivityRegisterCallbacks(buf_requested, buf_completed), "cuptiActivityRegisterCallbacks"))
    cupti_ok(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), "cuptiActivityEnable (kernel timing)");
  g.bOn = 1;
  atexit(at_exit);
  return 1;
}
