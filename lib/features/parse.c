/* parse.c — libclang set up as a CUDA compile sees the file: CUDA 13 headers
 * under clang 19 (stub for the header CUDA 13 removed, -Wno-unknown-cuda-version,
 * -resource-dir when libclang is relocated), with the CUDA prefix from a
 * cached PCH (pch.c) and a precompiled preamble so that the loop's re-parse
 * after each edit is cheap. */
#define _GNU_SOURCE
#include "features/ast.h"
#include "features/pch.h"
#include "kernelskill/proc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef KS_DEFAULT_CUDA_PATH
#define KS_DEFAULT_CUDA_PATH "/usr/local/cuda"
#endif

static double now_sec(void) { return ks_clock_now(NULL); }

static void free_diags(ks_tu *pTu) {
  for (int i = 0; i < pTu->nDiag; i++) {
    free(pTu->aDiag[i].zFile);
    free(pTu->aDiag[i].zMsg);
  }
  free(pTu->aDiag);
  pTu->aDiag = NULL;
  pTu->nDiag = pTu->nError = pTu->nSysError = 0;
}

/* Keep diagnostics in the user's files; count those in system headers (CUDA 13
 * headers trip clang 19 in places that do not matter to the user's code). */
static int collect_diags(ks_tu *pTu) {
  free_diags(pTu);
  pTu->nSysError = pTu->nPchSysError;
  unsigned n = clang_getNumDiagnostics(pTu->pTu);
  if (n == 0) return KS_OK;
  pTu->aDiag = calloc(n, sizeof(ks_diag));
  if (!pTu->aDiag) return ks_error_set(KS_ENOMEM, "out of memory");
  for (unsigned i = 0; i < n; i++) {
    CXDiagnostic d = clang_getDiagnostic(pTu->pTu, i);
    enum CXDiagnosticSeverity eSev = clang_getDiagnosticSeverity(d);
    if (eSev < CXDiagnostic_Warning) {
      clang_disposeDiagnostic(d);
      continue;
    }
    int bError = eSev >= CXDiagnostic_Error;
    CXSourceLocation loc = clang_getDiagnosticLocation(d);
    CXFile file;
    unsigned iLine, iCol;
    clang_getExpansionLocation(loc, &file, &iLine, &iCol, NULL);
    if (!file || clang_Location_isInSystemHeader(loc)) {
      if (bError) pTu->nSysError++;
      clang_disposeDiagnostic(d);
      continue;
    }
    CXString sFile = clang_getFileName(file);
    CXString sMsg = clang_getDiagnosticSpelling(d);
    ks_diag *pD = &pTu->aDiag[pTu->nDiag++];
    pD->zFile = ks_strdup(clang_getCString(sFile) ? clang_getCString(sFile) : "");
    pD->zMsg = ks_strdup(clang_getCString(sMsg));
    pD->iLine = iLine;
    pD->iCol = iCol;
    pD->bError = bError;
    if (bError) pTu->nError++;
    clang_disposeString(sFile);
    clang_disposeString(sMsg);
    clang_disposeDiagnostic(d);
  }
  return KS_OK;
}

static int push_arg(ks_tu *pTu, const char *z) {
  char **a = realloc(pTu->azArgs, sizeof(char *) * (size_t)(pTu->nArgs + 2));
  if (!a) return ks_error_set(KS_ENOMEM, "out of memory");
  pTu->azArgs = a;
  a[pTu->nArgs] = ks_strdup(z);
  if (!a[pTu->nArgs]) return KS_ENOMEM;
  a[++pTu->nArgs] = NULL;
  return KS_OK;
}

static int build_args(ks_tu *pTu, const ks_parse_opts *pOpts) {
  int rc = KS_OK;
  char *zDataDir = NULL, *zStub = NULL;
  ks_buf b = KS_BUF_INIT;
  const char *zCuda = pOpts->zCudaPath;
  if (!zCuda || !zCuda[0]) zCuda = getenv("CUDA_PATH");
  if (!zCuda || !zCuda[0]) zCuda = KS_DEFAULT_CUDA_PATH;
  const char *zRes = pOpts->zResourceDir;
  if (!zRes || !zRes[0]) zRes = getenv("KS_CLANG_RESOURCE_DIR");

  if ((rc = push_arg(pTu, "-x")) < 0 || (rc = push_arg(pTu, "cuda")) < 0) goto done;
  if ((rc = push_arg(pTu, "-std=c++17")) < 0) goto done;
  if ((rc = ks_buf_printf(&b, "--cuda-gpu-arch=%s", pOpts->zGpuArch ? pOpts->zGpuArch : "sm_90")) < 0) goto done;
  if ((rc = push_arg(pTu, b.z)) < 0) goto done;
  ks_buf_clear(&b);
  if ((rc = ks_buf_printf(&b, "--cuda-path=%s", zCuda)) < 0) goto done;
  if ((rc = push_arg(pTu, b.z)) < 0) goto done;
  if ((rc = push_arg(pTu, "-Wno-unknown-cuda-version")) < 0) goto done;
  /* CUDA 13 keeps CUB, Thrust and libcu++ under include/cccl, which nvcc
   * searches and clang does not. */
  ks_buf_clear(&b);
  if ((rc = ks_buf_printf(&b, "%s/include/cccl", zCuda)) < 0) goto done;
  if (ks_dir_exists(b.z) && ((rc = push_arg(pTu, "-isystem")) < 0 || (rc = push_arg(pTu, b.z)) < 0)) goto done;
  if (zRes && zRes[0]) {
    if ((rc = push_arg(pTu, "-resource-dir")) < 0 || (rc = push_arg(pTu, zRes)) < 0) goto done;
  }
  if (ks_path_datadir(&zDataDir) == KS_OK) {
    zStub = ks_path_join(zDataDir, "cuda-stub");
    if (zStub && ks_dir_exists(zStub)) {
      if ((rc = push_arg(pTu, "-isystem")) < 0 || (rc = push_arg(pTu, zStub)) < 0) goto done;
    }
  }
  ks_error_clear();
  if (pOpts->bDeviceSide && (rc = push_arg(pTu, "--cuda-device-only")) < 0) goto done;
  for (int i = 0; i < pOpts->nExtraArgs; i++)
    if ((rc = push_arg(pTu, pOpts->azExtraArgs[i])) < 0) goto done;
done:
  free(zDataDir);
  free(zStub);
  ks_buf_free(&b);
  return rc;
}

static int load_source(ks_tu *pTu, const char *zContents, size_t nContents) {
  free(pTu->zSrc);
  pTu->zSrc = NULL;
  if (zContents) {
    pTu->zSrc = malloc(nContents + 1);
    if (!pTu->zSrc) return ks_error_set(KS_ENOMEM, "out of memory");
    memcpy(pTu->zSrc, zContents, nContents);
    pTu->zSrc[nContents] = 0;
    pTu->nSrc = nContents;
    return KS_OK;
  }
  return ks_file_read(pTu->zFile, &pTu->zSrc, &pTu->nSrc);
}

/* The index of every TU: preambles kept in memory. In temporary files
 * (libclang's default) a re-parse fails with error 1 once the file is gone,
 * and another process can remove it (a /tmp cleaner, a forked child's exit
 * handlers); a killed process also leaves them behind. */
static CXIndex index_new(void) {
#if CINDEX_VERSION_MINOR >= 64
  CXIndexOptions o;
  memset(&o, 0, sizeof o);
  o.Size = sizeof o;
  o.StorePreamblesInMemory = 1;
  CXIndex p = clang_createIndexWithOptions(&o);
  if (p) return p;
#endif
  return clang_createIndex(0, 0);
}

/* Drop the cached prefix from the TU's arguments: clang refused it. */
static void pch_drop(ks_tu *pTu) {
  if (!pTu->zPch) return;
  if (pTu->nPchPid == (long)getpid()) ks_pch_forget(pTu->zPch);
  free(pTu->zPch);
  pTu->zPch = NULL;
  for (int i = 0; i < 2; i++) free(pTu->azArgs[--pTu->nArgs]);
  pTu->azArgs[pTu->nArgs] = NULL;
  pTu->nPchSysError = 0;
}

/* A full parse into pTu->pTu (any old TU disposed first). A prefix clang
 * refuses (another clang, options that differ, a damaged file) is dropped
 * and the file parsed the usual way. */
static enum CXErrorCode parse_full(ks_tu *pTu, struct CXUnsavedFile *pUnsaved) {
  for (int bRetry = 0;; bRetry = 1) {
    if (pTu->pTu) clang_disposeTranslationUnit(pTu->pTu);
    pTu->pTu = NULL;
    enum CXErrorCode e = clang_parseTranslationUnit2(pTu->pIndex, pTu->zFile, (const char *const *)pTu->azArgs,
                                                     pTu->nArgs, pUnsaved, 1, pTu->flags, &pTu->pTu);
    if ((e == CXError_Success && pTu->pTu) || !pTu->zPch || bRetry) return e;
    pch_drop(pTu); /* libclang: CXError_ASTReadError */
  }
}

int ks_tu_parse(const char *zFile, const ks_parse_opts *pOpts, ks_tu **ppTu) {
  ks_parse_opts dflt = KS_PARSE_OPTS_INIT;
  if (!pOpts) pOpts = &dflt;
  if (pOpts->version != KS_PARSE_OPTS_VERSION)
    return ks_error_set(KS_EUSAGE, "ks_parse_opts: unsupported version %u", pOpts->version);
  *ppTu = NULL;
  int rc;
  ks_tu *pTu = calloc(1, sizeof *pTu);
  if (!pTu) return ks_error_set(KS_ENOMEM, "out of memory");
  pTu->zFile = ks_strdup(zFile);
  if (!pTu->zFile) { rc = KS_ENOMEM; goto fail; }
  if ((rc = load_source(pTu, pOpts->zContents, pOpts->nContents)) < 0) goto fail;
  if (memchr(pTu->zSrc, 0, pTu->nSrc)) {
    rc = ks_error_set(KS_EINVAL, "%s: binary file, not CUDA source", zFile);
    goto fail;
  }
  if ((rc = build_args(pTu, pOpts)) < 0) goto fail;

  pTu->pIndex = index_new();
  struct CXUnsavedFile unsaved = {pTu->zFile, pTu->zSrc, (unsigned long)pTu->nSrc};
  /* A one-shot parse skips building the preamble (it would cost more than it
   * saves); a TU that the loop re-parses every round keeps one. */
  pTu->flags = CXTranslationUnit_DetailedPreprocessingRecord | CXTranslationUnit_KeepGoing |
               CXTranslationUnit_PrecompiledPreamble;
  if (pOpts->bReparse) pTu->flags |= CXTranslationUnit_CreatePreambleOnFirstParse;
  double t0 = now_sec();
  /* The CUDA prefix from the cache when there is one (pch.h). */
  char *zPch = NULL;
  if ((rc = ks_pch_find(pTu->pIndex, pTu->azArgs, pTu->nArgs, &zPch, &pTu->nPchSysError)) < 0) goto fail;
  if (zPch && ((rc = push_arg(pTu, "-include-pch")) < 0 || (rc = push_arg(pTu, zPch)) < 0)) {
    ks_pch_release(zPch);
    free(zPch);
    goto fail;
  }
  pTu->zPch = zPch; /* released with the TU: a re-parse reads it again */
  pTu->nPchPid = (long)getpid();
  enum CXErrorCode e = parse_full(pTu, &unsaved);
  pTu->rParseSec = now_sec() - t0;
  if (e != CXError_Success || !pTu->pTu) {
    rc = ks_error_set(KS_EPARSE, "%s: libclang could not parse the file (error %d)", zFile, (int)e);
    goto fail;
  }
  if ((rc = collect_diags(pTu)) < 0) goto fail;
  *ppTu = pTu;
  return KS_OK;
fail:
  ks_tu_free(pTu);
  return rc;
}

int ks_tu_reparse(ks_tu *pTu, const char *zContents, size_t nContents) {
  int rc = load_source(pTu, zContents, nContents);
  if (rc < 0) return rc;
  struct CXUnsavedFile unsaved = {pTu->zFile, pTu->zSrc, (unsigned long)pTu->nSrc};
  free(pTu->aTop); /* the cursors die with the old TU */
  pTu->aTop = NULL;
  pTu->nTop = pTu->bTop = 0;
  double t0 = now_sec();
  int e = clang_reparseTranslationUnit(pTu->pTu, 1, &unsaved, clang_defaultReparseOptions(pTu->pTu));
  /* libclang disposes of nothing on failure, but the TU is unusable: parse
   * the text afresh (a cheap re-parse is an optimisation, not a contract). */
  if (e != 0) e = (int)parse_full(pTu, &unsaved);
  pTu->rParseSec = now_sec() - t0;
  if (e != 0 || !pTu->pTu)
    return ks_error_set(KS_EPARSE, "%s: libclang could not re-parse the file (error %d)", pTu->zFile, e);
  return collect_diags(pTu);
}

void ks_tu_free(ks_tu *pTu) {
  if (!pTu) return;
  free_diags(pTu);
  if (pTu->pTu && !pTu->bBorrowed) clang_disposeTranslationUnit(pTu->pTu);
  if (pTu->pIndex && !pTu->bBorrowed) clang_disposeIndex(pTu->pIndex);
  /* Not from a forked child: the parent's TU still reads the link. */
  if (pTu->zPch && pTu->nPchPid == (long)getpid()) ks_pch_release(pTu->zPch);
  free(pTu->zPch);
  for (int i = 0; i < pTu->nArgs; i++) free(pTu->azArgs[i]);
  free(pTu->azArgs);
  free(pTu->aTop);
  free(pTu->zFile);
  free(pTu->zSrc);
  free(pTu);
}

int ks_tu_error_count(const ks_tu *pTu) { return pTu->nError; }

int ks_tu_diagnostics(const ks_tu *pTu, ks_buf *pOut) {
  for (int i = 0; i < pTu->nDiag; i++) {
    const ks_diag *d = &pTu->aDiag[i];
    int rc = ks_buf_printf(pOut, "%s:%u:%u: %s: %s\n", d->zFile, d->iLine, d->iCol,
                           d->bError ? "error" : "warning", d->zMsg);
    if (rc < 0) return rc;
  }
  return KS_OK;
}

const char *ks_tu_source(const ks_tu *pTu, size_t *pnSrc) {
  if (pnSrc) *pnSrc = pTu->nSrc;
  return pTu->zSrc;
}

double ks_tu_parse_seconds(const ks_tu *pTu) { return pTu->rParseSec; }
