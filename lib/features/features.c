/* features.c — the Feature Extractor's output: the versioned JSON document
 * ("ks_features": 1, docs/features.md) and the short human summary, built from
 * analyze.c's model of each kernel and ast.c's launch sites. */
#include "features/analyze.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

static int count_pattern(const ks_kernel *pK, ks_pattern e) {
  int n = 0;
  for (int i = 0; i < pK->nAccess; i++)
    if (pK->aAccess[i].ePattern == e) n++;
  return n;
}

static int count_kind(const ks_kernel *pK, ks_access_kind e) {
  int n = 0;
  for (int i = 0; i < pK->nAccess; i++)
    if (pK->aAccess[i].eKind == e) n++;
  return n;
}

static int sum_counts(const ks_count *a, int n) {
  int nSum = 0;
  for (int i = 0; i < n; i++) nSum += a[i].n;
  return nSum;
}

static cJSON *counts_json(const ks_count *a, int n, int bWithCounts) {
  cJSON *p = bWithCounts ? cJSON_CreateObject() : cJSON_CreateArray();
  for (int i = 0; i < n; i++) {
    if (bWithCounts) cJSON_AddNumberToObject(p, a[i].zName, a[i].n);
    else cJSON_AddItemToArray(p, cJSON_CreateString(a[i].zName));
  }
  return p;
}

static cJSON *str_or_null(const char *z) { return z ? cJSON_CreateString(z) : cJSON_CreateNull(); }

static cJSON *summary_json(const ks_kernel *pK) {
  cJSON *s = cJSON_CreateObject();
  int nPtr = 0, bAllRestrict = 1, bInputsConst = 1;
  for (int i = 0; i < pK->nParam; i++) {
    const ks_param *pP = &pK->aParam[i];
    if (!pP->bPointer) continue;
    nPtr++;
    if (!pP->bRestrict) bAllRestrict = 0;
    if (pP->nStores == 0 && pP->nAtomics == 0 && !pP->bConstPointee) bInputsConst = 0;
  }
  int nMaxDepth = 0, bUnroll = 0, bConstTrip = 0;
  for (int i = 0; i < pK->nLoop; i++) {
    if (pK->aLoop[i].iDepth > nMaxDepth) nMaxDepth = pK->aLoop[i].iDepth;
    if (pK->aLoop[i].bPragmaUnroll) bUnroll = 1;
    if (pK->aLoop[i].nTrip >= 0) bConstTrip = 1;
  }
  long long nShared = 0;
  for (int i = 0; i < pK->nShared; i++)
    if (pK->aShared[i].nBytes > 0) nShared += pK->aShared[i].nBytes;

  cJSON_AddBoolToObject(s, "is_template", pK->bTemplate);
  cJSON_AddBoolToObject(s, "has_launch_bounds", pK->bLaunchBounds);
  cJSON_AddNumberToObject(s, "num_params", pK->nParam);
  cJSON_AddNumberToObject(s, "num_pointer_params", nPtr);
  cJSON_AddBoolToObject(s, "all_inputs_const", nPtr > 0 && bInputsConst);
  cJSON_AddBoolToObject(s, "all_pointers_restrict", nPtr > 0 && bAllRestrict);
  cJSON_AddNumberToObject(s, "loop_count", pK->nLoop);
  cJSON_AddNumberToObject(s, "max_loop_depth", nMaxDepth);
  cJSON_AddBoolToObject(s, "has_unroll_pragma", bUnroll);
  cJSON_AddBoolToObject(s, "has_const_trip_loop", bConstTrip);
  cJSON_AddNumberToObject(s, "global_loads", count_kind(pK, KS_ACC_LOAD));
  cJSON_AddNumberToObject(s, "global_stores", count_kind(pK, KS_ACC_STORE));
  cJSON_AddNumberToObject(s, "contiguous_accesses", count_pattern(pK, KS_PAT_CONTIGUOUS));
  cJSON_AddNumberToObject(s, "strided_accesses", count_pattern(pK, KS_PAT_STRIDED));
  cJSON_AddNumberToObject(s, "uniform_accesses", count_pattern(pK, KS_PAT_UNIFORM));
  cJSON_AddNumberToObject(s, "indirect_accesses", count_pattern(pK, KS_PAT_INDIRECT));
  cJSON_AddBoolToObject(s, "uses_vector_types", pK->nVector > 0);
  cJSON_AddBoolToObject(s, "uses_ldg", pK->nLdg > 0);
  cJSON_AddBoolToObject(s, "uses_shared", pK->nShared > 0);
  cJSON_AddNumberToObject(s, "shared_bytes", (double)nShared);
  cJSON_AddNumberToObject(s, "syncthreads", pK->nSync);
  cJSON_AddNumberToObject(s, "atomics", sum_counts(pK->aAtomic, pK->nAtomic));
  cJSON_AddNumberToObject(s, "warp_shuffles", pK->nShuffle);
  cJSON_AddNumberToObject(s, "warp_votes", pK->nVote);
  cJSON_AddNumberToObject(s, "transcendentals", sum_counts(pK->aTrans, pK->nTrans));
  cJSON_AddNumberToObject(s, "nonconst_div", pK->nNonconstDiv);
  cJSON_AddNumberToObject(s, "int_div", pK->nIntDiv);
  cJSON_AddBoolToObject(s, "uses_double", pK->nDoubleOps > 0);
  cJSON_AddNumberToObject(s, "fma_candidates", pK->nFmaCand);
  cJSON_AddNumberToObject(s, "thread_branches", pK->nThreadBranch);
  cJSON_AddBoolToObject(s, "bounds_check", pK->bBoundsCheck);
  cJSON_AddBoolToObject(s, "grid_stride", pK->bGridStride);
  cJSON_AddBoolToObject(s, "pointwise", pK->bPointwise);
  cJSON_AddBoolToObject(s, "reduction", pK->bReduction);
  cJSON_AddBoolToObject(s, "row_loop", pK->bRowLoop);
  cJSON_AddBoolToObject(s, "naive_gemm", pK->bNaiveGemm);
  cJSON_AddBoolToObject(s, "tiled_gemm", pK->bTiledGemm);
  cJSON_AddBoolToObject(s, "stencil", pK->bStencil);
  cJSON_AddBoolToObject(s, "smem_tree_reduction", pK->bSmemTree);
  cJSON_AddBoolToObject(s, "has_reuse", pK->bReuse);
  cJSON_AddStringToObject(s, "structure", pK->zStructure);
  cJSON_AddStringToObject(s, "shape_class", pK->pShape ? ks_shape_class_name(pK->pShape->eClass) : "other");
  /* The narrowest element a global access moves (0: none known, as in a
   * template): 1- and 2-byte accesses are where packing pays most. */
  long long nMinElem = 0;
  for (int i = 0; pK->pShape && i < pK->pShape->nAccess; i++) {
    long long n = pK->pShape->aAccess[i].nElemSize;
    if (n > 0 && (nMinElem == 0 || n < nMinElem)) nMinElem = n;
  }
  cJSON_AddNumberToObject(s, "min_elem_bytes", (double)nMinElem);
  cJSON_AddBoolToObject(s, "multi_kernel_entry", pK->bMultiKernelEntry);
  cJSON_AddNumberToObject(s, "launch_sites", pK->nLaunchSites);
  cJSON_AddNumberToObject(s, "block_size", (double)pK->nBlockSize);
  return s;
}

/* The kernel-shape model (shape.h) as JSON: class, parallel space, guards,
 * loops, accesses as polynomials, calls and uses. */
static cJSON *shape_json(const ks_kernel *pK) {
  const ks_shape *pS = pK->pShape;
  cJSON *s = cJSON_CreateObject();
  if (!pS) {
    cJSON_AddStringToObject(s, "class", "other");
    return s;
  }
  static const char *const azDim[] = {"x", "y", "z"};
  static const char *const azOp[] = {"none", "add", "mul", "max", "min"};
  static const char *const azKind[] = {"load", "store", "rmw"};
  static const char *const azUse[] = {"launch", "api", "query", "other"};
  cJSON_AddStringToObject(s, "class", ks_shape_class_name(pS->eClass));
  cJSON_AddStringToObject(s, "why", pS->zWhy ? pS->zWhy : "");
  cJSON_AddBoolToObject(s, "truncated", pS->bTruncated || pK->bTruncated);
  cJSON *a = cJSON_AddArrayToObject(s, "parallel");
  for (int d = 0; d < pS->nPar; d++) {
    cJSON *x = cJSON_CreateObject();
    cJSON_AddStringToObject(x, "dim", azDim[d]);
    cJSON_AddBoolToObject(x, "global_index", pS->aPar[d].bUsed);
    cJSON_AddBoolToObject(x, "grid_stride", pS->aPar[d].bGridStride);
    cJSON_AddItemToArray(a, x);
  }
  a = cJSON_AddArrayToObject(s, "guards");
  for (int i = 0; i < pS->nGuard; i++) {
    cJSON *x = cJSON_CreateObject();
    cJSON_AddNumberToObject(x, "line", pS->aGuard[i].iLine);
    cJSON_AddItemToObject(x, "dim", pS->aGuard[i].iDim >= 0 ? cJSON_CreateString(azDim[pS->aGuard[i].iDim]) : cJSON_CreateNull());
    cJSON_AddStringToObject(x, "bound", pS->aGuard[i].zBound ? pS->aGuard[i].zBound : "");
    cJSON_AddBoolToObject(x, "early_return", pS->aGuard[i].bEarlyReturn);
    cJSON_AddItemToArray(a, x);
  }
  a = cJSON_AddArrayToObject(s, "loops");
  for (int i = 0; i < pS->nLoop; i++) {
    const ks_shape_loop *pL = &pS->aLoop[i];
    cJSON *x = cJSON_CreateObject();
    cJSON_AddNumberToObject(x, "line", pL->iLine);
    cJSON_AddItemToObject(x, "var", str_or_null(pL->zVar));
    cJSON_AddNumberToObject(x, "parent", pL->iParent);
    if (pL->nTrip >= 0) cJSON_AddNumberToObject(x, "trip_count", (double)pL->nTrip);
    else cJSON_AddNullToObject(x, "trip_count");
    cJSON_AddBoolToObject(x, "grid_stride", pL->bGridStride);
    char *z = ks_shape_poly_text(pS, &pL->bound);
    cJSON_AddStringToObject(x, "bound", z ? z : "");
    free(z);
    cJSON *acc = cJSON_AddArrayToObject(x, "accumulators");
    for (int j = 0; j < pL->nAccum; j++) {
      cJSON *y = cJSON_CreateObject();
      cJSON_AddStringToObject(y, "var", pL->azAccum[j]);
      cJSON_AddStringToObject(y, "op", azOp[pL->aOp[j]]);
      cJSON_AddItemToArray(acc, y);
    }
    cJSON_AddItemToArray(a, x);
  }
  a = cJSON_AddArrayToObject(s, "accesses");
  for (int i = 0; i < pS->nAccess; i++) {
    const ks_shape_access *pA = &pS->aAccess[i];
    cJSON *x = cJSON_CreateObject();
    cJSON_AddStringToObject(x, "param", pA->iParam >= 0 && pA->iParam < pK->nParam ? pK->aParam[pA->iParam].zName : "?");
    cJSON_AddNumberToObject(x, "line", pA->iLine);
    cJSON_AddStringToObject(x, "kind", azKind[pA->eKind]);
    cJSON_AddStringToObject(x, "elem", pA->zElemType ? pA->zElemType : "");
    char *z = ks_shape_poly_text(pS, &pA->index);
    cJSON_AddStringToObject(x, "index", z ? z : "");
    free(z);
    cJSON_AddNumberToObject(x, "loop", pA->iLoop);
    cJSON_AddBoolToObject(x, "in_macro", pA->bInMacro);
    cJSON_AddItemToArray(a, x);
  }
  a = cJSON_AddArrayToObject(s, "calls");
  for (int i = 0; i < pS->nCall; i++) cJSON_AddItemToArray(a, cJSON_CreateString(pS->azCall[i]));
  a = cJSON_AddArrayToObject(s, "uses");
  for (int i = 0; i < pS->nUse; i++) {
    cJSON *x = cJSON_CreateObject();
    cJSON_AddStringToObject(x, "kind", azUse[pS->aUse[i].eKind]);
    cJSON_AddNumberToObject(x, "line", pS->aUse[i].iLine);
    cJSON_AddStringToObject(x, "how", pS->aUse[i].zHow ? pS->aUse[i].zHow : "");
    cJSON_AddItemToArray(a, x);
  }
  return s;
}

static cJSON *kernel_json(const ks_kernel *pK) {
  cJSON *k = cJSON_CreateObject();
  cJSON_AddStringToObject(k, "name", pK->zName);
  cJSON_AddStringToObject(k, "file", pK->zFile);
  cJSON_AddNumberToObject(k, "line", pK->iLine);
  cJSON_AddBoolToObject(k, "is_template", pK->bTemplate);
  cJSON *a = cJSON_AddArrayToObject(k, "template_params");
  for (int i = 0; i < pK->nTemplateParam; i++) cJSON_AddItemToArray(a, cJSON_CreateString(pK->azTemplateParam[i]));
  a = cJSON_AddArrayToObject(k, "instantiations");
  for (int i = 0; i < pK->nInstantiation; i++) cJSON_AddItemToArray(a, cJSON_CreateString(pK->azInstantiation[i]));
  if (pK->bLaunchBounds) {
    cJSON *lb = cJSON_AddObjectToObject(k, "launch_bounds");
    cJSON_AddItemToObject(lb, "max_threads", str_or_null(pK->zLaunchMaxThreads));
    cJSON_AddItemToObject(lb, "min_blocks", str_or_null(pK->zLaunchMinBlocks));
  } else {
    cJSON_AddNullToObject(k, "launch_bounds");
  }
  a = cJSON_AddArrayToObject(k, "params");
  for (int i = 0; i < pK->nParam; i++) {
    const ks_param *pP = &pK->aParam[i];
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "name", pP->zName);
    cJSON_AddStringToObject(p, "type", pP->zType);
    cJSON_AddBoolToObject(p, "pointer", pP->bPointer);
    cJSON_AddBoolToObject(p, "const_pointee", pP->bConstPointee);
    cJSON_AddBoolToObject(p, "restrict", pP->bRestrict);
    if (pP->bPointer) {
      cJSON_AddNumberToObject(p, "loads", pP->nLoads);
      cJSON_AddNumberToObject(p, "stores", pP->nStores);
      cJSON_AddNumberToObject(p, "atomics", pP->nAtomics);
    }
    cJSON_AddItemToArray(a, p);
  }
  a = cJSON_AddArrayToObject(k, "loops");
  for (int i = 0; i < pK->nLoop; i++) {
    const ks_loop *pL = &pK->aLoop[i];
    cJSON *l = cJSON_CreateObject();
    cJSON_AddNumberToObject(l, "line", pL->iLine);
    cJSON_AddStringToObject(l, "kind", pL->zKind);
    cJSON_AddNumberToObject(l, "depth", pL->iDepth);
    if (pL->nTrip >= 0) cJSON_AddNumberToObject(l, "trip_count", (double)pL->nTrip);
    else cJSON_AddNullToObject(l, "trip_count");
    cJSON_AddBoolToObject(l, "pragma_unroll", pL->bPragmaUnroll);
    cJSON_AddBoolToObject(l, "accumulates", pL->bAccumulates);
    cJSON_AddBoolToObject(l, "grid_stride", pL->bGridStride);
    cJSON_AddItemToObject(l, "var", str_or_null(pL->zVar));
    cJSON_AddItemToArray(a, l);
  }
  a = cJSON_AddArrayToObject(k, "accesses");
  static const char *const azKind[] = {"load", "store", "atomic"};
  for (int i = 0; i < pK->nAccess; i++) {
    const ks_access *pA = &pK->aAccess[i];
    cJSON *x = cJSON_CreateObject();
    cJSON_AddStringToObject(x, "param", pK->aParam[pA->iParam].zName);
    cJSON_AddNumberToObject(x, "line", pA->iLine);
    cJSON_AddStringToObject(x, "kind", azKind[pA->eKind]);
    cJSON_AddStringToObject(x, "index", pA->zIndex);
    cJSON_AddStringToObject(x, "pattern", ks_pattern_name(pA->ePattern));
    cJSON_AddItemToArray(a, x);
  }
  a = cJSON_AddArrayToObject(k, "shared");
  for (int i = 0; i < pK->nShared; i++) {
    cJSON *x = cJSON_CreateObject();
    cJSON_AddStringToObject(x, "name", pK->aShared[i].zName);
    cJSON_AddStringToObject(x, "type", pK->aShared[i].zType);
    if (pK->aShared[i].nBytes >= 0) cJSON_AddNumberToObject(x, "bytes", (double)pK->aShared[i].nBytes);
    else cJSON_AddNullToObject(x, "bytes");
    cJSON_AddItemToArray(a, x);
  }
  cJSON_AddItemToObject(k, "vector_types", counts_json(pK->aVector, pK->nVector, 0));
  cJSON_AddItemToObject(k, "transcendentals", counts_json(pK->aTrans, pK->nTrans, 1));
  cJSON_AddItemToObject(k, "atomics", counts_json(pK->aAtomic, pK->nAtomic, 1));
  cJSON_AddItemToObject(k, "summary", summary_json(pK));
  cJSON_AddItemToObject(k, "shape", shape_json(pK));
  return k;
}

static cJSON *launch_json(const ks_tu *pTu, const ks_launch *pL) {
  static const char *const azCfg[] = {"grid", "block", "smem", "stream"};
  cJSON *l = cJSON_CreateObject();
  cJSON_AddStringToObject(l, "kernel", pL->zKernel);
  cJSON_AddStringToObject(l, "host_function", pL->zHostFn);
  cJSON_AddStringToObject(l, "file", pTu->zFile);
  cJSON_AddNumberToObject(l, "line", pL->iLine);
  for (int i = 0; i < 4; i++) cJSON_AddItemToObject(l, azCfg[i], str_or_null(pL->azCfg[i]));
  if (pL->nBlockThreads > 0) cJSON_AddNumberToObject(l, "block_threads", (double)pL->nBlockThreads);
  else cJSON_AddNullToObject(l, "block_threads");
  cJSON *a = cJSON_AddArrayToObject(l, "args");
  for (int i = 0; i < pL->nArgs; i++) cJSON_AddItemToArray(a, str_or_null(pL->azArg[i]));
  cJSON_AddStringToObject(l, "text", pL->zText ? pL->zText : "");
  return l;
}

static int load_model(ks_tu *pTu, const ks_features_opts *pOpts, ks_kernel **paK, int *pnK, ks_launch **paL,
                      int *pnL) {
  ks_features_opts dflt = KS_FEATURES_OPTS_INIT;
  if (!pOpts) pOpts = &dflt;
  if (pOpts->version != KS_FEATURES_OPTS_VERSION)
    return ks_error_set(KS_EUSAGE, "ks_features_opts: unsupported version %u", pOpts->version);
  int rc = ks_analyze_kernels(pTu, pOpts->zKernel, paK, pnK);
  if (rc < 0) return rc;
  if (pOpts->zKernel && *pnK == 0) {
    ks_analyze_free(*paK, *pnK);
    return ks_error_set(KS_ENOTFOUND, "%s: no __global__ kernel named '%s'", pTu->zFile, pOpts->zKernel);
  }
  rc = ks_ast_launches(pTu, pOpts->zKernel, paL, pnL);
  if (rc < 0) ks_analyze_free(*paK, *pnK);
  return rc;
}

int ks_features_json(ks_tu *pTu, const ks_features_opts *pOpts, ks_buf *pOut) {
  ks_kernel *aK = NULL;
  ks_launch *aL = NULL;
  int nK = 0, nL = 0;
  int rc = load_model(pTu, pOpts, &aK, &nK, &aL, &nL);
  if (rc < 0) return rc;
  cJSON *doc = cJSON_CreateObject();
  cJSON_AddNumberToObject(doc, "ks_features", KS_FEATURES_FORMAT);
  cJSON_AddStringToObject(doc, "file", pTu->zFile);
  cJSON *parse = cJSON_AddObjectToObject(doc, "parse");
  int bDevice = 0;
  for (int i = 0; i < pTu->nArgs; i++)
    if (strcmp(pTu->azArgs[i], "--cuda-device-only") == 0) bDevice = 1;
  cJSON_AddStringToObject(parse, "side", bDevice ? "device" : "host");
  cJSON_AddNumberToObject(parse, "seconds", (double)(long)(pTu->rParseSec * 1000 + 0.5) / 1000.0);
  cJSON_AddNumberToObject(parse, "errors", pTu->nError);
  cJSON_AddNumberToObject(parse, "system_errors", pTu->nSysError);
  cJSON *a = cJSON_AddArrayToObject(doc, "diagnostics");
  for (int i = 0; i < pTu->nDiag; i++) {
    const ks_diag *d = &pTu->aDiag[i];
    cJSON *x = cJSON_CreateObject();
    cJSON_AddStringToObject(x, "file", d->zFile);
    cJSON_AddNumberToObject(x, "line", d->iLine);
    cJSON_AddNumberToObject(x, "col", d->iCol);
    cJSON_AddStringToObject(x, "severity", d->bError ? "error" : "warning");
    cJSON_AddStringToObject(x, "message", d->zMsg);
    cJSON_AddItemToArray(a, x);
  }
  a = cJSON_AddArrayToObject(doc, "kernels");
  for (int i = 0; i < nK; i++) cJSON_AddItemToArray(a, kernel_json(&aK[i]));
  a = cJSON_AddArrayToObject(doc, "launches");
  for (int i = 0; i < nL; i++) cJSON_AddItemToArray(a, launch_json(pTu, &aL[i]));
  char *z = cJSON_Print(doc);
  if (!z) rc = ks_error_set(KS_ENOMEM, "out of memory");
  else {
    rc = ks_buf_puts(pOut, z);
    if (rc == KS_OK) rc = ks_buf_puts(pOut, "\n");
    free(z);
  }
  cJSON_Delete(doc);
  ks_analyze_free(aK, nK);
  ks_ast_launches_free(aL, nL);
  return rc;
}

static void text_counts(ks_buf *pB, const ks_count *a, int n) {
  for (int i = 0; i < n; i++) {
    ks_buf_printf(pB, "%s%s", i ? ", " : "", a[i].zName);
    if (a[i].n > 1) ks_buf_printf(pB, " x%d", a[i].n);
  }
}

static void kernel_text(ks_buf *pB, const ks_kernel *pK) {
  ks_buf_printf(pB, "\n%s  %s:%u  %s", pK->zName, pK->zFile, pK->iLine, pK->zStructure);
  const char *azTag[] = {"pointwise", "reduction", "row loop", "naive GEMM", "tiled GEMM", "stencil",
                         "shared-memory tree", "grid-stride"};
  int abTag[] = {pK->bPointwise, pK->bReduction, pK->bRowLoop, pK->bNaiveGemm, pK->bTiledGemm, pK->bStencil,
                 pK->bSmemTree, pK->bGridStride};
  for (int i = 0; i < 8; i++)
    if (abTag[i] && strcmp(azTag[i], pK->zStructure) != 0) ks_buf_printf(pB, ", %s", azTag[i]);
  ks_buf_puts(pB, "\n");
  if (pK->bTemplate) {
    ks_buf_puts(pB, "  template <");
    for (int i = 0; i < pK->nTemplateParam; i++) ks_buf_printf(pB, "%s%s", i ? ", " : "", pK->azTemplateParam[i]);
    ks_buf_puts(pB, ">");
    if (pK->nInstantiation) {
      ks_buf_puts(pB, " instantiated with ");
      for (int i = 0; i < pK->nInstantiation; i++)
        ks_buf_printf(pB, "%s<%s>", i ? ", " : "", pK->azInstantiation[i]);
    }
    ks_buf_puts(pB, "\n");
  }
  if (pK->zLaunchMaxThreads)
    ks_buf_printf(pB, "  __launch_bounds__(%s%s%s)\n", pK->zLaunchMaxThreads, pK->zLaunchMinBlocks ? ", " : "",
                  pK->zLaunchMinBlocks ? pK->zLaunchMinBlocks : "");
  else if (pK->bLaunchBounds)
    ks_buf_puts(pB, "  __launch_bounds__ (through a macro)\n");
  ks_buf_puts(pB, "  params:");
  for (int i = 0; i < pK->nParam; i++) {
    const ks_param *pP = &pK->aParam[i];
    ks_buf_printf(pB, "%s %s (%s%s)", i ? "," : "", pP->zName, pP->zType,
                  pP->bPointer && !pP->bConstPointee && pP->nStores == 0 && pP->nAtomics == 0 ? ", read-only, not const"
                                                                                               : "");
  }
  ks_buf_puts(pB, "\n");
  ks_buf_printf(pB, "  memory: %d loads, %d stores, %d atomics; %d contiguous, %d strided, %d uniform, %d indirect\n",
                count_kind(pK, KS_ACC_LOAD), count_kind(pK, KS_ACC_STORE), count_kind(pK, KS_ACC_ATOMIC),
                count_pattern(pK, KS_PAT_CONTIGUOUS), count_pattern(pK, KS_PAT_STRIDED),
                count_pattern(pK, KS_PAT_UNIFORM), count_pattern(pK, KS_PAT_INDIRECT));
  if (pK->nVector || pK->nLdg || pK->nShared) {
    ks_buf_puts(pB, "         ");
    if (pK->nVector) {
      ks_buf_puts(pB, " vector types: ");
      text_counts(pB, pK->aVector, pK->nVector);
      ks_buf_puts(pB, ";");
    }
    if (pK->nLdg) ks_buf_printf(pB, " __ldg x%d;", pK->nLdg);
    for (int i = 0; i < pK->nShared; i++) {
      if (pK->aShared[i].nBytes >= 0)
        ks_buf_printf(pB, " __shared__ %s (%lld B);", pK->aShared[i].zName, pK->aShared[i].nBytes);
      else ks_buf_printf(pB, " extern __shared__ %s;", pK->aShared[i].zName);
    }
    ks_buf_puts(pB, "\n");
  }
  ks_buf_printf(pB, "  loops: %d", pK->nLoop);
  for (int i = 0; i < pK->nLoop; i++) {
    const ks_loop *pL = &pK->aLoop[i];
    ks_buf_printf(pB, "%s line %u %s depth %d", i ? ";" : " (", pL->iLine, pL->zKind, pL->iDepth);
    if (pL->nTrip >= 0) ks_buf_printf(pB, " trip %lld", pL->nTrip);
    if (pL->bPragmaUnroll) ks_buf_puts(pB, " #pragma unroll");
    if (i == pK->nLoop - 1) ks_buf_puts(pB, ")");
  }
  ks_buf_puts(pB, "\n");
  ks_buf_printf(pB, "  sync: %d __syncthreads, %d shuffles, %d votes", pK->nSync, pK->nShuffle, pK->nVote);
  if (pK->nAtomic) {
    ks_buf_puts(pB, ", atomics: ");
    text_counts(pB, pK->aAtomic, pK->nAtomic);
  }
  ks_buf_puts(pB, "\n");
  ks_buf_printf(pB, "  math: %d transcendental", sum_counts(pK->aTrans, pK->nTrans));
  if (pK->nTrans) {
    ks_buf_puts(pB, " (");
    text_counts(pB, pK->aTrans, pK->nTrans);
    ks_buf_puts(pB, ")");
  }
  ks_buf_printf(pB, ", %d non-constant div/mod, %d unfused a*b+c%s\n", pK->nNonconstDiv, pK->nFmaCand,
                pK->nDoubleOps ? ", uses double" : "");
  ks_buf_printf(pB, "  control: %s, %d thread-dependent branch%s\n", pK->bBoundsCheck ? "bounds check" : "no bounds check",
                pK->nThreadBranch, pK->nThreadBranch == 1 ? "" : "es");
  if (pK->pShape) {
    int nOther = 0;
    for (int i = 0; i < pK->pShape->nUse; i++) nOther += pK->pShape->aUse[i].eKind != KS_USE_LAUNCH;
    ks_buf_printf(pB, "  shape: %s (%s)%s, %d use%s (%d not a <<<>>> launch)\n", ks_shape_class_name(pK->pShape->eClass),
                  pK->pShape->zWhy ? pK->pShape->zWhy : "", pK->pShape->bTruncated || pK->bTruncated ? ", truncated" : "",
                  pK->pShape->nUse, pK->pShape->nUse == 1 ? "" : "s", nOther);
  }
}

int ks_features_text(ks_tu *pTu, const ks_features_opts *pOpts, ks_buf *pOut) {
  ks_kernel *aK = NULL;
  ks_launch *aL = NULL;
  int nK = 0, nL = 0;
  int rc = load_model(pTu, pOpts, &aK, &nK, &aL, &nL);
  if (rc < 0) return rc;
  ks_buf_printf(pOut, "%s: %d kernel%s, %d launch site%s (parsed in %.2f s)\n", pTu->zFile, nK, nK == 1 ? "" : "s",
                nL, nL == 1 ? "" : "s", pTu->rParseSec);
  for (int i = 0; i < nK; i++) kernel_text(pOut, &aK[i]);
  if (nL) ks_buf_puts(pOut, "\nlaunches:\n");
  for (int i = 0; i < nL; i++) {
    const ks_launch *pL = &aL[i];
    ks_buf_printf(pOut, "  %s:%u in %s(): %s<<<%s, %s%s%s%s%s>>>\n", pTu->zFile, pL->iLine,
                  pL->zHostFn[0] ? pL->zHostFn : "?", pL->zKernel, pL->azCfg[0] ? pL->azCfg[0] : "?",
                  pL->azCfg[1] ? pL->azCfg[1] : "?", pL->azCfg[2] ? ", " : "", pL->azCfg[2] ? pL->azCfg[2] : "",
                  pL->azCfg[3] ? ", " : "", pL->azCfg[3] ? pL->azCfg[3] : "");
  }
  rc = pOut->z ? KS_OK : ks_error_set(KS_ENOMEM, "out of memory");
  ks_analyze_free(aK, nK);
  ks_ast_launches_free(aL, nL);
  return rc;
}
