/* evidence.c — the named evidence fields skill conditions read: the field
 * table (features.* from docs/features.md, profile.* from the evidence
 * contract, derived.*, task.*), the per-kernel evidence store, loading it from
 * features / profile JSON documents, and the deterministic derived.*
 * classification that follows Nsight Compute's rules (thresholds below are
 * the ones docs/planner.md documents). */
#include "kernelskill/skills.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define B KS_VAL_BOOL
#define N KS_VAL_NUM
#define S KS_VAL_STR

static const char *const azStructure[] = {"streaming", "reuse", "irregular", "reduction", "multi_kernel", 0};
/* ks_shape_class_name()'s names (features/shape.h). */
static const char *const azShapeClass[] = {"map",   "row-reduce", "column-walk", "gemm", "stencil",
                                           "transpose", "gather", "other", 0};
static const char *const azBottleneck[] = {"latency", "memory", "compute", "balanced", "small_grid", 0};
static const char *const azHeadroom[] = {"high", "medium", "low", 0};
static const char *const azLimiter[] = {"registers", "shared", "warps", "blocks", "none", 0};
static const char *const azStall[] = {"long_scoreboard", "short_scoreboard", "barrier", "mio_throttle",
                                      "lg_throttle", "math_throttle", "none", 0};

static const ks_field_def aFields[] = {
    /* features.* — static, from the Feature Extractor (docs/features.md) */
    {"features.is_template", B, 0, "the kernel is a template"},
    {"features.has_launch_bounds", B, 0, "__launch_bounds__ present"},
    {"features.num_params", N, 0, "parameters"},
    {"features.num_pointer_params", N, 0, "pointer parameters"},
    {"features.all_inputs_const", B, 0, "every read-only pointer is const-qualified"},
    {"features.all_pointers_restrict", B, 0, "every pointer parameter is __restrict__"},
    {"features.loop_count", N, 0, "loops in the kernel body"},
    {"features.max_loop_depth", N, 0, "deepest loop nesting"},
    {"features.has_unroll_pragma", B, 0, "a #pragma unroll in the kernel"},
    {"features.has_const_trip_loop", B, 0, "a loop with a constant trip count"},
    {"features.global_loads", N, 0, "global memory reads (by text)"},
    {"features.global_stores", N, 0, "global memory writes (by text)"},
    {"features.contiguous_accesses", N, 0, "accesses where consecutive threads touch consecutive elements"},
    {"features.strided_accesses", N, 0, "accesses with a non-unit stride between threads"},
    {"features.uniform_accesses", N, 0, "accesses where a warp reads one element"},
    {"features.indirect_accesses", N, 0, "accesses whose index comes from memory"},
    {"features.min_elem_bytes", N, 0, "the narrowest element a global access moves, in bytes (0: unknown)"},
    {"features.uses_vector_types", B, 0, "float2/float4/half2/... used"},
    {"features.uses_ldg", B, 0, "__ldg used"},
    {"features.uses_shared", B, 0, "a __shared__ array"},
    {"features.shared_bytes", N, 0, "static shared memory by declaration"},
    {"features.syncthreads", N, 0, "__syncthreads() calls"},
    {"features.atomics", N, 0, "atomic calls"},
    {"features.warp_shuffles", N, 0, "__shfl*_sync calls"},
    {"features.warp_votes", N, 0, "__ballot/__any/__all_sync calls"},
    {"features.transcendentals", N, 0, "transcendental math calls"},
    {"features.nonconst_div", N, 0, "divisions/modulo by a non-constant"},
    {"features.int_div", N, 0, "integer divisions/modulo by a non-constant (index arithmetic)"},
    {"features.uses_double", B, 0, "double-precision arithmetic"},
    {"features.fma_candidates", N, 0, "a*b + c shapes left unfused"},
    {"features.thread_branches", N, 0, "conditions that depend on threadIdx"},
    {"features.bounds_check", B, 0, "an if (i < n) guard on the global index"},
    {"features.grid_stride", B, 0, "a grid-stride loop"},
    {"features.pointwise", B, 0, "each output depends only on inputs at the same index"},
    {"features.reduction", B, 0, "a loop accumulating into a scalar that is stored"},
    {"features.row_loop", B, 0, "each thread loops over a whole row"},
    {"features.naive_gemm", B, 0, "one output per thread, k-loop over a[row,k]*b[k,col]"},
    {"features.stencil", B, 0, "reads of neighbouring elements"},
    {"features.smem_tree_reduction", B, 0, "shared-memory tree reduction with __syncthreads"},
    {"features.has_reuse", B, 0, "some global element is read by more than one thread"},
    {"features.structure", S, azStructure, "streaming | reuse | irregular | reduction | multi_kernel"},
    {"features.shape_class", S, azShapeClass,
     "the kernel-shape model's class: map | row-reduce | column-walk | gemm | stencil | transpose | gather | other"},
    {"features.launch_sites", N, 0, "launch sites of this kernel in the file"},
    {"features.block_size", N, 0, "constant block size at the launch site (0: unknown)"},
    /* profile.* — normalized Nsight Compute metrics (evidence contract) */
    {"profile.duration_us", N, 0, "gpu__time_duration in microseconds"},
    {"profile.dram_pct", N, 0, "dram__throughput.avg.pct_of_peak_sustained_elapsed"},
    {"profile.l2_pct", N, 0, "lts__throughput.avg.pct_of_peak_sustained_elapsed"},
    {"profile.sm_pct", N, 0, "sm__throughput.avg.pct_of_peak_sustained_elapsed"},
    {"profile.achieved_occupancy_pct", N, 0, "sm__warps_active.avg.pct_of_peak_sustained_active"},
    {"profile.theoretical_occupancy_pct", N, 0, "theoretical occupancy %"},
    {"profile.registers", N, 0, "registers per thread"},
    {"profile.shared_bytes", N, 0, "shared memory per block (static + dynamic)"},
    {"profile.block_size", N, 0, "threads per block"},
    {"profile.grid_size", N, 0, "blocks per grid"},
    {"profile.num_sms", N, 0, "SMs on the device"},
    {"profile.waves", N, 0, "waves of blocks per SM"},
    {"profile.l1_hit_pct", N, 0, "l1tex__t_sector_hit_rate.pct"},
    {"profile.l2_hit_pct", N, 0, "lts__t_sector_hit_rate.pct"},
    {"profile.stall_long_scoreboard", N, 0, "long-scoreboard stall share (0..1)"},
    {"profile.stall_short_scoreboard", N, 0, "short-scoreboard stall share (0..1)"},
    {"profile.stall_barrier", N, 0, "barrier stall share (0..1)"},
    {"profile.stall_mio_throttle", N, 0, "MIO-throttle stall share (0..1)"},
    {"profile.stall_lg_throttle", N, 0, "LG-throttle stall share (0..1)"},
    {"profile.stall_math_throttle", N, 0, "math-pipe-throttle stall share (0..1)"},
    {"profile.branch_divergence_pct", N, 0, "divergent branches %"},
    {"profile.launches", N, 0, "kernel launches per call of the entry"},
    {"profile.inst_executed", N, 0, "smsp__inst_executed.sum"},
    {"profile.blocks_per_sm_limit_registers", N, 0, "blocks per SM allowed by registers"},
    {"profile.blocks_per_sm_limit_shared", N, 0, "blocks per SM allowed by shared memory"},
    {"profile.blocks_per_sm_limit_warps", N, 0, "blocks per SM allowed by warps"},
    {"profile.blocks_per_sm_limit_blocks", N, 0, "blocks per SM allowed by the block limit"},
    {"profile.achieved_dram_gbps", N, 0, "achieved DRAM bandwidth GB/s"},
    {"profile.achieved_gflops", N, 0, "achieved GFLOP/s"},
    {"profile.roofline_pct", N, 0, "% of the roofline bound"},
    /* derived.* — computed by ks_evidence_derive() */
    {"derived.bottleneck", S, azBottleneck, "speed-of-light class: latency | memory | compute | balanced | small_grid"},
    {"derived.memory_pct", N, 0, "max(profile.dram_pct, profile.l2_pct)"},
    {"derived.peak_pct", N, 0, "max of dram, l2 and sm throughput %"},
    {"derived.headroom", S, azHeadroom, "high (peak < 60) | medium (60..80) | low (>= 80)"},
    {"derived.occupancy_limiter", S, azLimiter, "what caps theoretical occupancy when it is under 80%"},
    {"derived.occupancy_gap", B, 0, "achieved occupancy more than 10 points under theoretical"},
    {"derived.register_pressure", B, 0, ">= 96 registers and occupancy limited by registers"},
    {"derived.memory_latency_bound", B, 0, "long + short scoreboard stalls >= 0.30"},
    {"derived.divergent", B, 0, "branch divergence >= 5%"},
    {"derived.launch_overhead", B, 0, "duration <= 10 us and >= 10 launches per call"},
    {"derived.small_grid", B, 0, "fewer blocks than SMs (under one wave)"},
    {"derived.tail_effect", B, 0, "a partial last wave (at most half full) after 1..8 full waves"},
    {"derived.block_not_warp_multiple", B, 0, "block size not a multiple of 32"},
    {"derived.top_stall", S, azStall, "the stall reason above 0.30 of cycles, or none"},
    /* task.* — what the task's owner allows */
    {"task.allows_cublas", B, 0, "the task allows calling and linking cuBLAS"},
    {"task.allows_cub", B, 0, "the task allows CUB (header-only, from the toolkit)"},
    {"task.rtol", N, 0, "the strictest relative tolerance over the task's floating-point outputs"},
    {0, 0, 0, 0}};

#undef B
#undef N
#undef S

#define KS_NFIELDS ((int)(sizeof aFields / sizeof aFields[0]) - 1)

const ks_field_def *ks_field_table(void) { return aFields; }

static int field_index(const char *zName) {
  for (int i = 0; i < KS_NFIELDS; i++)
    if (strcmp(aFields[i].zName, zName) == 0) return i;
  return -1;
}

const ks_field_def *ks_field_find(const char *zName) {
  int i = field_index(zName);
  return i < 0 ? NULL : &aFields[i];
}

typedef struct ev_slot {
  ks_value v;
  char *zStr;
  char *zWhy;
} ev_slot;

struct ks_evidence {
  ev_slot a[KS_NFIELDS];
};

int ks_evidence_new(ks_evidence **pp) {
  *pp = calloc(1, sizeof **pp);
  return *pp ? KS_OK : ks_error_set(KS_ENOMEM, "out of memory");
}

void ks_evidence_free(ks_evidence *p) {
  if (!p) return;
  for (int i = 0; i < KS_NFIELDS; i++) {
    free(p->a[i].zStr);
    free(p->a[i].zWhy);
  }
  free(p);
}

int ks_evidence_set(ks_evidence *p, const char *zName, const ks_value *pVal, const char *zWhy) {
  int i = field_index(zName);
  if (i < 0) return ks_error_set(KS_EINVAL, "unknown evidence field '%s'", zName);
  ev_slot *s = &p->a[i];
  if (pVal->eType != KS_VAL_UNKNOWN && pVal->eType != aFields[i].eType)
    return ks_error_set(KS_EINVAL, "evidence field '%s' is a %s", zName,
                        aFields[i].eType == KS_VAL_NUM ? "number" : aFields[i].eType == KS_VAL_BOOL ? "boolean" : "string");
  char *zStr = NULL, *zW = NULL;
  if (pVal->eType == KS_VAL_STR && !(zStr = ks_strdup(pVal->z))) return KS_ENOMEM;
  if (zWhy && !(zW = ks_strdup(zWhy))) {
    free(zStr);
    return KS_ENOMEM;
  }
  free(s->zStr);
  free(s->zWhy);
  s->v = *pVal;
  s->zStr = zStr;
  s->v.z = zStr;
  s->zWhy = zW;
  return KS_OK;
}

ks_value ks_evidence_get(const ks_evidence *p, const char *zName, const char **pzWhy) {
  ks_value v = {KS_VAL_UNKNOWN, 0, 0, NULL};
  int i = field_index(zName);
  if (pzWhy) *pzWhy = NULL;
  if (i < 0 || !p) return v;
  if (pzWhy) *pzWhy = p->a[i].zWhy;
  return p->a[i].v;
}

int ks_evidence_add_json(ks_evidence *p, const char *zPrefix, const char *zJson, size_t nJson, const char *zSource,
                         int *pnIgnored) {
  int rc = KS_OK, nIgnored = 0;
  cJSON *pDoc = cJSON_ParseWithLength(zJson, nJson);
  if (!pDoc || !cJSON_IsObject(pDoc)) {
    rc = ks_error_set(KS_EPARSE, "%s: %s evidence is not a JSON object", zSource, zPrefix);
    goto done;
  }
  for (cJSON *pI = pDoc->child; pI; pI = pI->next) {
    char zName[256];
    snprintf(zName, sizeof zName, "%s.%s", zPrefix, pI->string ? pI->string : "");
    int i = field_index(zName);
    if (i < 0) {
      nIgnored++;
      continue;
    }
    ks_value v = {KS_VAL_UNKNOWN, 0, 0, NULL};
    int eT = aFields[i].eType;
    if (cJSON_IsNull(pI)) {
      /* unknown */
    } else if (eT == KS_VAL_NUM && cJSON_IsNumber(pI) && isfinite(pI->valuedouble)) {
      v.eType = eT;
      v.r = pI->valuedouble;
    } else if (eT == KS_VAL_BOOL && cJSON_IsBool(pI)) {
      v.eType = eT;
      v.b = cJSON_IsTrue(pI);
    } else if (eT == KS_VAL_STR && cJSON_IsString(pI)) {
      int bOk = !aFields[i].azValues;
      for (const char *const *az = aFields[i].azValues; az && *az; az++)
        if (strcmp(*az, pI->valuestring) == 0) bOk = 1;
      if (!bOk) {
        rc = ks_error_set(KS_EINVAL, "%s: %s: unexpected value \"%s\"", zSource, zName, pI->valuestring);
        goto done;
      }
      v.eType = eT;
      v.z = pI->valuestring;
    } else {
      rc = ks_error_set(KS_EINVAL, "%s: %s should be a %s", zSource, zName,
                        eT == KS_VAL_NUM ? "number" : eT == KS_VAL_BOOL ? "boolean" : "string");
      goto done;
    }
    if ((rc = ks_evidence_set(p, zName, &v, NULL)) < 0) goto done;
  }
done:
  if (pnIgnored) *pnIgnored = nIgnored;
  cJSON_Delete(pDoc);
  return rc;
}

/* ---- picking one kernel's object out of a document ---- */

static int pick(const char *zDoc, size_t nDoc, const char *zSource, const char *zKernel, const char *zMember,
                int bTopLevel, char **pzOut) {
  int rc = KS_OK;
  *pzOut = NULL;
  cJSON *pDoc = cJSON_ParseWithLength(zDoc, nDoc);
  if (!pDoc || !cJSON_IsObject(pDoc)) {
    rc = ks_error_set(KS_EPARSE, "%s: not a JSON object", zSource);
    goto done;
  }
  cJSON *pObj = NULL;
  if (bTopLevel) {
    pObj = cJSON_GetObjectItemCaseSensitive(pDoc, zMember);
    if (pObj && !cJSON_IsObject(pObj)) {
      rc = ks_error_set(KS_EINVAL, "%s: \"%s\" is not an object", zSource, zMember);
      goto done;
    }
  }
  if (!pObj) {
    cJSON *pK = cJSON_GetObjectItemCaseSensitive(pDoc, "kernels");
    if (!cJSON_IsArray(pK)) {
      rc = ks_error_set(KS_EINVAL, "%s: no \"kernels\" array%s", zSource, bTopLevel ? " and no top-level \"profile\"" : "");
      goto done;
    }
    cJSON *pI;
    cJSON_ArrayForEach(pI, pK) {
      cJSON *pName = cJSON_GetObjectItemCaseSensitive(pI, "name");
      if (cJSON_IsString(pName) && zKernel && strcmp(pName->valuestring, zKernel) == 0) {
        pObj = cJSON_GetObjectItemCaseSensitive(pI, zMember);
        if (!cJSON_IsObject(pObj)) {
          rc = ks_error_set(KS_EINVAL, "%s: kernel '%s' has no \"%s\" object", zSource, zKernel, zMember);
          goto done;
        }
        break;
      }
    }
    if (!pObj) {
      rc = ks_error_set(KS_ENOTFOUND, "%s: no kernel named '%s'", zSource, zKernel ? zKernel : "(none given)");
      goto done;
    }
  }
  *pzOut = cJSON_PrintUnformatted(pObj);
  if (!*pzOut) rc = ks_error_set(KS_ENOMEM, "out of memory");
done:
  cJSON_Delete(pDoc);
  return rc;
}

int ks_evidence_pick_features(const char *zDoc, size_t nDoc, const char *zSource, const char *zKernel, char **pzOut) {
  return pick(zDoc, nDoc, zSource, zKernel, "summary", 0, pzOut);
}

int ks_evidence_pick_profile(const char *zDoc, size_t nDoc, const char *zSource, const char *zKernel, char **pzOut) {
  return pick(zDoc, nDoc, zSource, zKernel, "profile", 1, pzOut);
}

/* ---- derived.* ---- */

static int num(const ks_evidence *p, const char *zName, double *pr) {
  ks_value v = ks_evidence_get(p, zName, NULL);
  if (v.eType != KS_VAL_NUM) return 0;
  *pr = v.r;
  return 1;
}

static int set_num(ks_evidence *p, const char *zName, double r, const char *zWhy) {
  ks_value v = {KS_VAL_NUM, 0, r, NULL};
  return ks_evidence_set(p, zName, &v, zWhy);
}
static int set_bool(ks_evidence *p, const char *zName, int b, const char *zWhy) {
  ks_value v = {KS_VAL_BOOL, b, 0, NULL};
  return ks_evidence_set(p, zName, &v, zWhy);
}
static int set_str(ks_evidence *p, const char *zName, const char *z, const char *zWhy) {
  ks_value v = {KS_VAL_STR, 0, 0, z};
  return ks_evidence_set(p, zName, &v, zWhy);
}

/* %g without trailing noise for percentages and ratios */
static const char *fmt(char *z, double r) {
  if (r == floor(r) && fabs(r) < 1e15) sprintf(z, "%.0f", r);
  else sprintf(z, "%.4g", r);
  return z;
}

int ks_evidence_derive(ks_evidence *p) {
  int rc = KS_OK;
  char zWhy[256], a1[32], a2[32], a3[32];
  double rDram = 0, rL2 = 0, rSm = 0, rMem = 0, rGrid = 0, rSms = 0, rWaves = 0;
  int bDram = num(p, "profile.dram_pct", &rDram), bL2 = num(p, "profile.l2_pct", &rL2);
  int bSm = num(p, "profile.sm_pct", &rSm);
  int bGrid = num(p, "profile.grid_size", &rGrid), bSms = num(p, "profile.num_sms", &rSms);
  int bWaves = num(p, "profile.waves", &rWaves);
  const char *zMem = "dram";
  if (bDram || bL2) {
    rMem = bDram ? rDram : rL2;
    if (bL2 && (!bDram || rL2 > rDram)) {
      rMem = rL2;
      zMem = "l2";
    }
    snprintf(zWhy, sizeof zWhy, "%s %s%%", zMem, fmt(a1, rMem));
    if ((rc = set_num(p, "derived.memory_pct", rMem, zWhy)) < 0) return rc;
  }

  /* small grid: fewer blocks than SMs, or under one wave */
  int bSmallKnown = 0, bSmall = 0;
  if (bGrid && bSms) {
    bSmallKnown = 1;
    bSmall = rGrid < rSms;
    snprintf(zWhy, sizeof zWhy, "grid %s blocks %s %s SMs", fmt(a1, rGrid), bSmall ? "<" : ">=", fmt(a2, rSms));
  } else if (bWaves) {
    bSmallKnown = 1;
    bSmall = rWaves < 1;
    snprintf(zWhy, sizeof zWhy, "%s waves %s 1", fmt(a1, rWaves), bSmall ? "<" : ">=");
  }
  char zSmallWhy[256];
  snprintf(zSmallWhy, sizeof zSmallWhy, "%s", zWhy);
  if (bSmallKnown && (rc = set_bool(p, "derived.small_grid", bSmall, zSmallWhy)) < 0) return rc;

  /* speed of light: both under 60 -> latency (small_grid under one wave);
   * one at >= 80 -> that unit; else the higher if 10+ points ahead, else balanced */
  if (bSm && (bDram || bL2)) {
    const char *zClass;
    double rPeak = rSm > rMem ? rSm : rMem;
    if (rSm < 60 && rMem < 60) {
      if (bSmallKnown && bSmall) {
        zClass = "small_grid";
        snprintf(zWhy, sizeof zWhy, "sm %s%% and %s %s%% both < 60; %.120s", fmt(a1, rSm), zMem, fmt(a2, rMem), zSmallWhy);
      } else {
        zClass = "latency";
        snprintf(zWhy, sizeof zWhy, "sm %s%% and %s %s%% both < 60", fmt(a1, rSm), zMem, fmt(a2, rMem));
      }
    } else if (rPeak >= 80) {
      if (rMem >= rSm) {
        zClass = "memory";
        snprintf(zWhy, sizeof zWhy, "%s %s%% >= 80, sm %s%%", zMem, fmt(a1, rMem), fmt(a2, rSm));
      } else {
        zClass = "compute";
        snprintf(zWhy, sizeof zWhy, "sm %s%% >= 80, %s %s%%", fmt(a1, rSm), zMem, fmt(a2, rMem));
      }
    } else if (fabs(rSm - rMem) >= 10) {
      zClass = rMem > rSm ? "memory" : "compute";
      snprintf(zWhy, sizeof zWhy, "%s %s%% leads %s %s%% by >= 10 points", rMem > rSm ? zMem : "sm",
               fmt(a1, rMem > rSm ? rMem : rSm), rMem > rSm ? "sm" : zMem, fmt(a2, rMem > rSm ? rSm : rMem));
    } else {
      zClass = "balanced";
      snprintf(zWhy, sizeof zWhy, "sm %s%% and %s %s%% within 10 points (60..80)", fmt(a1, rSm), zMem, fmt(a2, rMem));
    }
    if ((rc = set_str(p, "derived.bottleneck", zClass, zWhy)) < 0) return rc;
  }

  /* headroom tier from the highest throughput */
  if (bSm || bDram || bL2) {
    double rPeak = -1;
    const char *zPeak = "sm";
    if (bSm) rPeak = rSm;
    if (bDram && rDram > rPeak) { rPeak = rDram; zPeak = "dram"; }
    if (bL2 && rL2 > rPeak) { rPeak = rL2; zPeak = "l2"; }
    snprintf(zWhy, sizeof zWhy, "peak %s %s%%", zPeak, fmt(a1, rPeak));
    if ((rc = set_num(p, "derived.peak_pct", rPeak, zWhy)) < 0) return rc;
    snprintf(zWhy, sizeof zWhy, "peak %s %s%% %s", zPeak, fmt(a1, rPeak),
             rPeak < 60 ? "< 60" : rPeak < 80 ? "in 60..80" : ">= 80");
    if ((rc = set_str(p, "derived.headroom", rPeak < 60 ? "high" : rPeak < 80 ? "medium" : "low", zWhy)) < 0) return rc;
  }

  /* occupancy: the limiter when theoretical < 80 (fewest blocks per SM wins) */
  double rTheo = 0, rAch = 0, rRegs = 0;
  int bTheo = num(p, "profile.theoretical_occupancy_pct", &rTheo);
  int bAch = num(p, "profile.achieved_occupancy_pct", &rAch);
  int bRegs = num(p, "profile.registers", &rRegs);
  const char *zLimiter = NULL;
  if (bTheo) {
    if (rTheo >= 80) {
      zLimiter = "none";
      snprintf(zWhy, sizeof zWhy, "theoretical occupancy %s%% >= 80", fmt(a1, rTheo));
    } else {
      static const char *const azLim[] = {"registers", "shared", "warps", "blocks"};
      double rBest = 0;
      int iBest = -1;
      ks_buf b = KS_BUF_INIT;
      for (int i = 0; i < 4; i++) {
        char zF[64];
        double r;
        snprintf(zF, sizeof zF, "profile.blocks_per_sm_limit_%s", azLim[i]);
        if (!num(p, zF, &r)) continue;
        ks_buf_printf(&b, "%s%s %s", b.n ? ", " : "", azLim[i], fmt(a1, r));
        if (iBest < 0 || r < rBest) {
          iBest = i;
          rBest = r;
        }
      }
      if (iBest >= 0) {
        zLimiter = azLim[iBest];
        snprintf(zWhy, sizeof zWhy, "theoretical occupancy %s%% < 80; blocks/SM limits: %s", fmt(a2, rTheo),
                 ks_buf_cstr(&b));
      }
      ks_buf_free(&b);
    }
    if (zLimiter && (rc = set_str(p, "derived.occupancy_limiter", zLimiter, zWhy)) < 0) return rc;
  }
  if (bTheo && bAch) {
    int bGap = rAch < rTheo - 10;
    snprintf(zWhy, sizeof zWhy, "achieved %s%% vs theoretical %s%%", fmt(a1, rAch), fmt(a2, rTheo));
    if ((rc = set_bool(p, "derived.occupancy_gap", bGap, zWhy)) < 0) return rc;
  }
  if (bRegs && zLimiter) {
    int bPress = rRegs >= 96 && strcmp(zLimiter, "registers") == 0;
    snprintf(zWhy, sizeof zWhy, "%s registers/thread, occupancy limiter %s", fmt(a1, rRegs), zLimiter);
    if ((rc = set_bool(p, "derived.register_pressure", bPress, zWhy)) < 0) return rc;
  }

  /* stalls */
  double rLong = 0, rShort = 0;
  int bLong = num(p, "profile.stall_long_scoreboard", &rLong), bShort = num(p, "profile.stall_short_scoreboard", &rShort);
  if (bLong || bShort) {
    double r = rLong + rShort;
    snprintf(zWhy, sizeof zWhy, "long+short scoreboard stalls %s %s 0.30", fmt(a1, r), r >= 0.30 ? ">=" : "<");
    if ((rc = set_bool(p, "derived.memory_latency_bound", r >= 0.30, zWhy)) < 0) return rc;
  }
  {
    static const char *const azSt[] = {"long_scoreboard", "short_scoreboard", "barrier", "mio_throttle", "lg_throttle",
                                       "math_throttle"};
    int iBest = -1, nKnown = 0;
    double rBest = 0;
    for (int i = 0; i < 6; i++) {
      char zF[64];
      double r;
      snprintf(zF, sizeof zF, "profile.stall_%s", azSt[i]);
      if (!num(p, zF, &r)) continue;
      nKnown++;
      if (r >= 0.30 && (iBest < 0 || r > rBest)) {
        iBest = i;
        rBest = r;
      }
    }
    if (nKnown) {
      if (iBest >= 0) snprintf(zWhy, sizeof zWhy, "%s stalls %s >= 0.30", azSt[iBest], fmt(a1, rBest));
      else snprintf(zWhy, sizeof zWhy, "no stall reason >= 0.30");
      if ((rc = set_str(p, "derived.top_stall", iBest >= 0 ? azSt[iBest] : "none", zWhy)) < 0) return rc;
    }
  }

  double r;
  if (num(p, "profile.branch_divergence_pct", &r)) {
    snprintf(zWhy, sizeof zWhy, "branch divergence %s%% %s 5", fmt(a1, r), r >= 5 ? ">=" : "<");
    if ((rc = set_bool(p, "derived.divergent", r >= 5, zWhy)) < 0) return rc;
  }
  double rDur, rLaunch;
  if (num(p, "profile.duration_us", &rDur) && num(p, "profile.launches", &rLaunch)) {
    int b = rDur <= 10 && rLaunch >= 10;
    snprintf(zWhy, sizeof zWhy, "%s us per launch %s 10, %s launches %s 10", fmt(a1, rDur), rDur <= 10 ? "<=" : ">",
             fmt(a2, rLaunch), rLaunch >= 10 ? ">=" : "<");
    if ((rc = set_bool(p, "derived.launch_overhead", b, zWhy)) < 0) return rc;
  }
  if (bWaves) {
    double rFrac = rWaves - floor(rWaves);
    /* a half-empty last wave costs little once there are many full ones */
    int b = rWaves >= 1 && rWaves < 8 && rFrac > 0 && rFrac <= 0.5;
    snprintf(zWhy, sizeof zWhy, "%s waves: last wave %s%% full%s", fmt(a1, rWaves), fmt(a3, floor(rFrac * 100 + 0.5)),
             rWaves >= 8 ? ", >= 8 full waves" : "");
    if ((rc = set_bool(p, "derived.tail_effect", b, zWhy)) < 0) return rc;
  }
  double rBlock = 0;
  int bBlock = num(p, "profile.block_size", &rBlock);
  const char *zBlockSrc = "profile";
  if (!bBlock && num(p, "features.block_size", &rBlock) && rBlock > 0) {
    bBlock = 1;
    zBlockSrc = "launch site";
  }
  if (bBlock && rBlock > 0) {
    int b = fmod(rBlock, 32) != 0;
    snprintf(zWhy, sizeof zWhy, "block %s threads (%s) %s a multiple of 32", fmt(a1, rBlock), zBlockSrc, b ? "not" : "is");
    if ((rc = set_bool(p, "derived.block_not_warp_multiple", b, zWhy)) < 0) return rc;
  }

  /* a task that says nothing allows no library */
  if (ks_evidence_get(p, "task.allows_cublas", NULL).eType == KS_VAL_UNKNOWN &&
      (rc = set_bool(p, "task.allows_cublas", 0, "task allows no cuBLAS")) < 0)
    return rc;
  if (ks_evidence_get(p, "task.allows_cub", NULL).eType == KS_VAL_UNKNOWN &&
      (rc = set_bool(p, "task.allows_cub", 0, "task allows no CUB")) < 0)
    return rc;
  return KS_OK;
}

int ks_evidence_dump(const ks_evidence *p, const char *zPrefix, ks_buf *pOut) {
  size_t nPre = zPrefix ? strlen(zPrefix) : 0;
  for (int i = 0; i < KS_NFIELDS; i++) {
    const ev_slot *s = &p->a[i];
    if (s->v.eType == KS_VAL_UNKNOWN) continue;
    if (nPre && strncmp(aFields[i].zName, zPrefix, nPre) != 0) continue;
    char a[64];
    const char *zV = s->v.eType == KS_VAL_NUM ? fmt(a, s->v.r) : s->v.eType == KS_VAL_BOOL ? (s->v.b ? "true" : "false") : s->v.z;
    int rc = ks_buf_printf(pOut, "  %s = %s%s%s%s\n", aFields[i].zName, zV, s->zWhy ? "  (" : "", s->zWhy ? s->zWhy : "",
                           s->zWhy ? ")" : "");
    if (rc < 0) return rc;
  }
  return KS_OK;
}
