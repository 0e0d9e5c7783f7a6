/* gemm-tiled.c — rule `gemm-tiled`: a naive FP32 GEMM kernel (the matcher of
 * smem-tile-gemm, with A and/or B transposed, an epilogue per output that may
 * read the output's own C element (alpha/beta), or a k-loop accumulating into
 * C itself; indexes written through function-like macros and batches on
 * blockIdx.z through per-batch pointers, both read from the kernel-shape
 * model) becomes a call of the shipped template
 * share/kernelskill/templates/ks_gemm_f32.cuh (ks_gemm::gemm_block: block,
 * warp and thread tiles, cp.async stages, 16-byte loads, conflict-free shared
 * layouts, predicated edges), instantiated with the shape found and the tile
 * configuration of param config; its launches get the template's grid and
 * block (a batched kernel's keep their grid's z). The template's text is inserted once per file above the kernel, so
 * the result compiles on its own (no include path to carry to the reviewer).
 * A configuration over 48 KB of shared memory (the default's 66 KB) runs on
 * dynamic shared memory: every launch passes the bytes and opts the kernel in
 * to them, up to the target architecture's maximum (smem_limit).
 * Each output's k sum keeps the original order and operations, so results
 * are bitwise those of the original (docs/rules/gemm-tiled.md). */
#include "features/ast.h"
#include "kernelskill/rewrite.h"
#include "gemm_match.h"
#include "rewrite/rwutil.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A tile configuration: the template's parameters. */
typedef struct gt_cfg {
  int BM, BN, BK, WM, WN, TM, TN, S;
} gt_cfg;

/* The default configuration: the fastest at 4096^3 on the H200
 * (bench/gemm/h200-run4.txt: 0.871x cublasSgemm, 66 KB of dynamic shared
 * memory), and the one taken where the GPU cannot give it that much. */
#define GT_DEFAULT_CONFIG "128x128x16_w64x32_t8x8_s4"
#define GT_SMALL_CONFIG "128x128x16_w64x32_t8x8_s2"
/* math=tf32 where wgmma runs (sm_90, 221 KB of the 227): the fastest TF32
 * block measured on the H100 (bench/gemm/h100-run6.txt: 165 TFLOP/s at 4096,
 * against 135 for the best mma.sync block); elsewhere the FP32 defaults. */
#define GT_TF32_WGMMA_CONFIG "128x256x32_w64x32_t8x8_s4"

/* Static shared memory per block: above it the kernel declares its array
 * extern and every launch passes the size (and opts the kernel in to it). */
#define GT_STATIC_SMEM (48 * 1024)

/* The most dynamic shared memory a block may opt in to on the lowest GPU
 * architecture the file is parsed for (clang compiles for every
 * --cuda-gpu-arch / --offload-arch it is given); *pnSm: that architecture,
 * 0 when the arguments name none (an AST loaded from the compiler plugin:
 * the parser's default sm_90 is assumed; a GPU with less fails the launch,
 * which the review sees). Architectures this table does not know get the
 * static 48 KB. */
static long smem_limit(const ks_tu *pTu, int *pnSm) {
  int nSm = 0;
  for (int i = 0; pTu && i < pTu->nArgs; i++) {
    const char *z = pTu->azArgs[i], *zV = NULL;
    if (!strncmp(z, "--cuda-gpu-arch=", 16)) zV = z + 16;
    else if (!strncmp(z, "--offload-arch=", 15)) zV = z + 15;
    if (!zV || strncmp(zV, "sm_", 3) != 0) continue;
    int n = atoi(zV + 3);
    if (n > 0 && (nSm == 0 || n < nSm)) nSm = n;
  }
  *pnSm = nSm;
  if (nSm == 0 || nSm == 90 || nSm == 100) return 227 * 1024; /* sm_90, sm_100: 227 KB */
  if (nSm == 80 || nSm == 87) return 163 * 1024;
  if (nSm == 86 || nSm == 89) return 99 * 1024;
  return GT_STATIC_SMEM;
}

/* Shared memory of a configuration, in bytes: config<>::SMEM (both operands
 * k-major, the template's default layout) or config_tf32<>::SMEM. */
static long cfg_smem(const gt_cfg *c, int bTf32) {
  if (bTf32) {
    long nA = c->BK * (c->BM + 8) > c->BM * (c->BK + 4) ? c->BK * (c->BM + 8) : c->BM * (c->BK + 4);
    long nB = c->BK * (c->BN + 8) > c->BN * (c->BK + 4) ? c->BK * (c->BN + 8) : c->BN * (c->BK + 4);
    return (long)c->S * (nA + nB) * 4;
  }
  return (long)c->S * c->BK * (c->BM + 4 + c->BN + 4) * 4;
}

/* Whether a configuration's shared memory fits the limit; NULL, or why not
 * (in zBuf). */
static const char *check_smem(const gt_cfg *c, int bTf32, long nLimit, int nSm, char *zBuf, size_t nBuf) {
  long n = cfg_smem(c, bTf32);
  if (n <= nLimit) return NULL;
  if (nLimit > GT_STATIC_SMEM)
    snprintf(zBuf, nBuf, "%s%ld bytes of shared memory, over sm_%d's %ld KB per block", bTf32 ? "math=tf32: " : "", n,
             nSm ? nSm : 90, nLimit / 1024);
  else
    snprintf(zBuf, nBuf,
             "%s%ld bytes of shared memory, over 48 KB (sm_%d: no opt-in maximum known to this rule, static shared "
             "memory only)",
             bTf32 ? "math=tf32: " : "", n, nSm);
  return zBuf;
}

/* Parse "BMxBNxBK_wWMxWN_tTMxTN_sS" (a preset's name or any such spec) and
 * check it against the template's constraints (shared memory: check_smem).
 * NULL, or why it is refused. */
static const char *parse_cfg(const char *z, gt_cfg *pC) {
  char cEnd = 0;
  if (sscanf(z, "%dx%dx%d_w%dx%d_t%dx%d_s%d%c", &pC->BM, &pC->BN, &pC->BK, &pC->WM, &pC->WN, &pC->TM, &pC->TN,
             &pC->S, &cEnd) != 8)
    return "not of the form BMxBNxBK_wWMxWN_tTMxTN_sS (e.g. 128x128x8_w32x64_t8x8_s3)";
  const gt_cfg *c = pC;
  if (c->BM < 16 || c->BM > 256 || c->BN < 16 || c->BN > 256 || c->BK < 4 || c->BK > 32 || c->BK % 4)
    return "BM and BN must be 16..256, BK 4..32 and a multiple of 4";
  if (c->WM <= 0 || c->WN <= 0 || c->TM <= 0 || c->TN <= 0 || c->BM % c->WM || c->BN % c->WN || c->WM % c->TM ||
      c->WN % c->TN)
    return "the block tile must be whole warp tiles, a warp tile whole thread tiles";
  if (c->TM % 4 || c->TN % 4 || c->TM * c->TN > 128) return "TM and TN must be multiples of 4, TM*TN at most 128";
  if ((c->WM / c->TM) * (c->WN / c->TN) != 32) return "a warp tile must hold exactly 32 thread tiles";
  int nT = (c->BM / c->WM) * (c->BN / c->WN) * 32;
  if (nT > 1024) return "more than 1024 threads per block";
  if (c->S < 2 || c->S > 8) return "stages must be 2..8";
  return NULL;
}

/* The TF32 path (math=tf32) takes BM, BN, BK, WM, WN, S of the same spec
 * (TM, TN do not apply: the warp's tile is 16x8 mma tiles) with
 * config_tf32's constraints. NULL, or why it is refused. */
static const char *check_tf32(const gt_cfg *c) {
  if (c->BM % 32 || c->BN % 32 || c->BK % 8) return "math=tf32: BM and BN must be multiples of 32, BK of 8";
  if (c->WM % 16 || c->WN % 8) return "math=tf32: WM must be a multiple of 16, WN of 8 (16x8 mma tiles)";
  return NULL;
}

/* Does gemm_block_tf32 take its wgmma path for this configuration when built
 * for sm_90a? The template's own test (wg_plan and the conditions of
 * gemm_block_tf32 in ks_gemm_f32.cuh), restated: 3 stages or more, A
 * contiguous along k and unscaled, whole warpgroups that can share the block
 * tile as 64-column slices by 64 or 128 rows. test/rewrite/gemm-tiled.test
 * compiles both answers to PTX and looks for the instruction. */
static int tf32_wgmma(const gt_cfg *c, int bATrans, int bScaled) {
  const int nT = (c->BM / c->WM) * (c->BN / c->WN) * 32, nWg = nT / 128;
  if (c->S < 3 || bATrans || bScaled || nT % 128 || nWg == 0 || c->BN % 64) return 0;
  const int nPer = (c->BN / 64) * c->BM / nWg;
  const int n64 = nPer > c->BM ? nPer / c->BM : 1, nRows = nPer > c->BM ? c->BM : nPer;
  if (nPer == 0 || (nPer % c->BM && c->BM % nPer) || (nRows != 64 && nRows != 128) || n64 * nRows > 128) return 0;
  return (c->BM / nRows) * (c->BN / 64 / n64) == nWg;
}

/* A TF32 kernel whose block can run on wgmma, on sm_90 (or the parser's
 * default, sm_90): the file's kernelskill-flags line gets -arch=sm_90a, so
 * that the Reviewer and the drop-in build what the Reviewer measured (nvcc
 * lets the last -arch win). *pzHow says which instruction the note names. */
static int tf32_arch(ks_rewrite *p, const gt_cfg *c, int bATrans, int bScaled, int nSm, const char **pzHow) {
  int bChanged = 0;
  *pzHow = "mma.sync m16n8k8";
  if ((nSm != 0 && nSm != 90) || !tf32_wgmma(c, bATrans, bScaled)) return KS_OK;
  *pzHow = "wgmma m64nNk8 on sm_90a, -arch=sm_90a recorded in the kernelskill-flags line";
  return ks_rule_nvcc_flags_add(p, "-arch=sm_90a", &bChanged);
}

static char *param_name(CXCursor kernel, int i) {
  CXString s = clang_getCursorSpelling(ks_rw_param_at(kernel, i));
  char *z = ks_strdup(clang_getCString(s));
  clang_disposeString(s);
  return z;
}

/* The epilogue as a device lambda on the kernel's names: (acc, row, col) ->
 * the value stored, the kernel's statements as written (they may read the
 * parameters, C's own element included, by capture). */
static int emit_epilogue(ks_buf *pB, const ks_gemm_match *pG, const char *zI) {
  int rc = 0;
  if (pG->zCScale)
    /* `C[..] *= s;` before the k-loop: the sum starts from the thread's own C times s */
    rc = ks_buf_printf(pB, "%sconst auto ks_init = [&](int, int, const float *ks_pc) -> float { return ks_pc[0] * (%s); };\n",
                       zI, pG->zCScale);
  else if (pG->zInit)
    /* the accumulator's start, as the kernel wrote it (a bias, a NULL-checked bias) */
    rc = ks_buf_printf(pB,
                       "%sconst auto ks_init = [&](%s %s, %s %s, const float *) -> float {\n"
                       "%s  (void)%s, (void)%s;\n%s  return %s;\n%s};\n",
                       zI, pG->zRowType, pG->zRowName, pG->zColType, pG->zColName, zI, pG->zRowName, pG->zColName, zI,
                       pG->zInit, zI);
  if (rc < 0) return rc;
  if (pG->bInitC || !pG->zStore) return ks_buf_printf(pB, "%sconst ks_gemm::epi_store ks_epi{};\n", zI);
  rc = ks_buf_printf(pB, "%sconst auto ks_epi = [&](float %s, %s %s, %s %s, const float *ks_pc) -> float {\n", zI,
                     pG->zAccName, pG->zRowType, pG->zRowName, pG->zColType, pG->zColName);
  for (const char *z = pG->zEpilogue; rc >= 0 && z && *z;) {
    const char *zNl = strchr(z, '\n');
    rc = ks_buf_printf(pB, "%s  %.*s\n", zI, (int)(zNl - z), z);
    z = zNl + 1;
  }
  /* `C[..] += value`: the thread's own C element, read where it is written */
  if (rc >= 0)
    rc = ks_buf_printf(pB, "%s  (void)%s, (void)%s, (void)ks_pc;\n%s  return %s%s%s;\n%s};\n", zI, pG->zRowName,
                       pG->zColName, zI, pG->bStoreAdd ? "ks_pc[0] + (" : "", pG->zStore, pG->bStoreAdd ? ")" : "", zI);
  return rc;
}

/* math=tf32 on a kernel on dynamic shared memory: the byte count nOld of
 * its assertion (after zAt) and of each launch, as apply_gemm_tiled wrote
 * them, becomes nNew. */
static int tf32_dyn_size(ks_rewrite *p, const char *zSrc, const char *zAt, const char *zKEnd, const char *zKernel,
                         long nOld, long nNew) {
  char zOld[128], zRep[128];
  snprintf(zOld, sizeof zOld, "::SMEM == %ld, \"the launches pass %ld bytes", nOld, nOld);
  snprintf(zRep, sizeof zRep, "::SMEM == %ld, \"the launches pass %ld bytes", nNew, nNew);
  const char *zA = strstr(zAt, zOld);
  if (!zA || zA >= zKEnd)
    return ks_rewrite_refuse(p, "kernel '%s' has this rule's note but not its shared-memory assertion as written",
                             zKernel);
  int rc = ks_rewrite_replace(p, (unsigned)(zA - zSrc), (unsigned)(zA - zSrc + strlen(zOld)), zRep);
  ks_launch *aL = NULL;
  int nL = 0;
  ks_buf cfg = KS_BUF_INIT;
  if (rc >= 0) rc = ks_rw_kernel_launches(p, zKernel, &aL, &nL);
  snprintf(zOld, sizeof zOld, "cudaFuncAttributeMaxDynamicSharedMemorySize, %ld), ", nOld);
  snprintf(zRep, sizeof zRep, "%ld", nOld);
  for (int i = 0; rc >= 0 && i < nL; i++) {
    const ks_launch *pL = &aL[i];
    const char *zG = pL->azCfg[0] ? strstr(pL->azCfg[0], zOld) : NULL;
    if (!zG || !pL->azCfg[1] || !pL->azCfg[2] || strcmp(pL->azCfg[2], zRep) != 0) {
      rc = ks_rewrite_refuse(p, "%s:%u: the launch of '%s' does not pass the %ld bytes this rule gave it",
                             ks_rewrite_tu(p)->zFile, pL->iLine, zKernel, nOld);
      break;
    }
    ks_buf_clear(&cfg);
    rc = ks_buf_printf(&cfg, "%.*scudaFuncAttributeMaxDynamicSharedMemorySize, %ld), %s, %s, %ld",
                       (int)(zG - pL->azCfg[0]), pL->azCfg[0], nNew, zG + strlen(zOld), pL->azCfg[1], nNew);
    if (rc >= 0 && pL->azCfg[3]) rc = ks_buf_printf(&cfg, ", %s", pL->azCfg[3]);
    if (rc >= 0) rc = ks_rewrite_replace(p, pL->iCfgStart, pL->iCfgEnd, cfg.z);
  }
  ks_ast_launches_free(aL, nL);
  ks_buf_free(&cfg);
  return rc;
}

/* math=tf32 on a kernel this rule already tiled in FP32 (the loop's later
 * round, when the FP32 version was accepted first): its gemm_block call and
 * shared array become the TF32 block's, on the same block tile, warp tile,
 * stages and threads (so the launches, the epilogue and the other arguments
 * stay as they are). */
static int to_tf32(ks_rewrite *p, const char *zSrc, unsigned iStart, unsigned iEnd, const char *zKernel) {
  static const char zCall[] = "ks_gemm::gemm_block<", zCfgT[] = "ks_gemm::config<";
  const char *zK = zSrc + iStart, *zKEnd = zSrc + iEnd;
  const char *zT = NULL, *zC = NULL;
  for (const char *z = zK; z + sizeof zCall - 1 <= zKEnd && !zT; z++)
    if (!strncmp(z, "ks_gemm::gemm_block_tf32<", 25)) return ks_rewrite_already(p, "kernel '%s' already computes in TF32", zKernel);
    else if (!strncmp(z, zCall, sizeof zCall - 1)) zT = z;
  for (const char *z = zK; z + sizeof zCfgT - 1 <= zKEnd && !zC; z++)
    if (!strncmp(z, zCfgT, sizeof zCfgT - 1)) zC = z;
  for (const char *z = zK; z + 5 <= zKEnd; z++)
    if (!strncmp(z, "ks_pk", 5))
      return ks_rewrite_refuse(p, "kernel '%s' reads packed operands (pack=on); math=tf32 takes the unpacked form",
                               zKernel);
  gt_cfg c, c2;
  char zTA[8], zTB[8];
  int nT = 0, nC = 0;
  if (!zT || !zC ||
      sscanf(zT + sizeof zCall - 1, "%d, %d, %d, %d, %d, %d, %d, %d, %5[a-z], %5[a-z]>%n", &c.BM, &c.BN, &c.BK, &c.WM,
             &c.WN, &c.TM, &c.TN, &c.S, zTA, zTB, &nT) != 10 || nT == 0 ||
      sscanf(zC + sizeof zCfgT - 1, "%d, %d, %d, %d, %d, %d, %d, %d>%n", &c2.BM, &c2.BN, &c2.BK, &c2.WM, &c2.WN, &c2.TM,
             &c2.TN, &c2.S, &nC) != 8 || nC == 0 || memcmp(&c, &c2, sizeof c) != 0)
    return ks_rewrite_refuse(p, "kernel '%s' has this rule's note but not its gemm_block call as written", zKernel);
  const char *zWhy = check_tf32(&c);
  if (zWhy) return ks_rewrite_refuse(p, "kernel '%s' is tiled %dx%dx%d_w%dx%d: %s", zKernel, c.BM, c.BN, c.BK, c.WM, c.WN, zWhy);
  /* The TF32 stages are larger (rows padded by 8 along m / n): a kernel on
   * dynamic shared memory gets the new size in its assertion and launches;
   * one on a static array must stay within 48 KB. */
  static const char zDyn[] = "extern __shared__ __align__(16) float ks_smem[];";
  const long nOld = cfg_smem(&c, 0), nNew = cfg_smem(&c, 1);
  const char *zDecl = NULL;
  for (const char *z = zK; z + sizeof zDyn - 1 <= zKEnd && !zDecl; z++)
    if (!strncmp(z, zDyn, sizeof zDyn - 1)) zDecl = z;
  int nSm = 0;
  const long nLimit = smem_limit(ks_rewrite_tu(p), &nSm);
  char zWhyBuf[160];
  if ((zWhy = check_smem(&c, 1, zDecl ? nLimit : GT_STATIC_SMEM, nSm, zWhyBuf,
                         sizeof zWhyBuf)))
    return ks_rewrite_refuse(p, "kernel '%s' is tiled %dx%dx%d_w%dx%d_s%d%s: %s", zKernel, c.BM, c.BN, c.BK, c.WM,
                             c.WN, c.S, zDecl ? "" : " on static shared memory (rewrite the original with math=tf32)",
                             zWhy);
  char zNew[160];
  int rc;
  if (zDecl && (rc = tf32_dyn_size(p, zSrc, zC, zKEnd, zKernel, nOld, nNew)) < 0) return rc;
  snprintf(zNew, sizeof zNew, "ks_gemm::config_tf32<%d, %d, %d, %d, %d, %d>", c.BM, c.BN, c.BK, c.WM, c.WN, c.S);
  if ((rc = ks_rewrite_replace(p, (unsigned)(zC - zSrc), (unsigned)(zC - zSrc) + sizeof zCfgT - 1 + (unsigned)nC, zNew)) < 0)
    return rc;
  snprintf(zNew, sizeof zNew, "ks_gemm::gemm_block_tf32<%d, %d, %d, %d, %d, %d, %s, %s>", c.BM, c.BN, c.BK, c.WM, c.WN,
           c.S, zTA, zTB);
  if ((rc = ks_rewrite_replace(p, (unsigned)(zT - zSrc), (unsigned)(zT - zSrc) + sizeof zCall - 1 + (unsigned)nT, zNew)) < 0)
    return rc;
  const char *zHow;
  const int bScaled = strstr(zT, "ks_gemm::scale_by{") && strstr(zT, "ks_gemm::scale_by{") < zKEnd;
  if ((rc = tf32_arch(p, &c, strcmp(zTA, "true") == 0, bScaled, nSm, &zHow)) < 0) return rc;
  char zNote[320];
  snprintf(zNote, sizeof zNote,
           "the tiled GEMM now computes in TF32 on tensor cores (ks_gemm::gemm_block_tf32, %s, operands "
           "reduced to TF32, FP32 sums: not bitwise the original, within the task's tolerance only)", zHow);
  return ks_rewrite_note(p, iStart, zNote);
}

/* The launch configuration of a kernel on dynamic shared memory: the grid
 * behind a comma expression that first opts the kernel in to nSmem bytes
 * (cudaFuncSetAttribute, on every launch: a host call, and right on
 * every device and in every statement position, a braceless if or for body
 * included), the block, the bytes, the launch's stream. The kernel is named as
 * the launch names it (a template-id keeps its arguments). */
static int dyn_launch_cfg(ks_rewrite *p, const ks_launch *pL, const char *zKernel, const char *zMArg,
                          const char *zNArg, const char *zZ, const gt_cfg *c, int nT, long nSmem, ks_buf *pCfg) {
  const char *zCall = pL->zText, *zOpen = zCall ? strstr(zCall, "<<<") : NULL;
  if (!zOpen)
    return ks_rewrite_refuse(p, "%s:%u: the launch of '%s' is not written as name<<<...>>>", ks_rewrite_tu(p)->zFile,
                             pL->iLine, zKernel);
  int nCallee = (int)(zOpen - zCall);
  while (nCallee > 0 && strchr(" \t\n", zCall[nCallee - 1])) nCallee--;
  if (pL->azCfg[2] && !ks_rw_arg_pure(pL->azCfg[2]))
    return ks_rewrite_refuse(p,
                             "%s:%u: the launch of '%s' passes a shared-memory size '%s' that may have an effect; the "
                             "tiled kernel needs %ld bytes there",
                             ks_rewrite_tu(p)->zFile, pL->iLine, zKernel, pL->azCfg[2], nSmem);
  int rc = ks_buf_printf(pCfg,
                         "(cudaFuncSetAttribute(%.*s, cudaFuncAttributeMaxDynamicSharedMemorySize, %ld), "
                         "dim3(((%s) + %d) / %d, ((%s) + %d) / %d%s)), dim3(%d), %ld",
                         nCallee, zCall, nSmem, zNArg, c->BN - 1, c->BN, zMArg, c->BM - 1, c->BM, zZ, nT, nSmem);
  if (rc >= 0 && pL->azCfg[3]) rc = ks_buf_printf(pCfg, ", %s", pL->azCfg[3]);
  return rc;
}

/* A batched kernel's launch keeps its grid's z dimension (the batch): into
 * pZ ", z" as written (dim3(x, y, z)), ", (g).z" for a grid variable g, or
 * nothing for a grid of z 1 (dim3(x, y), dim3(x)). KS_EPRECOND for a grid
 * written otherwise. */
static int grid_z(ks_rewrite *p, const ks_launch *pL, const char *zKernel, ks_buf *pZ) {
  const char *z = pL->azCfg[0] ? pL->azCfg[0] : "";
  size_t n = strlen(z);
  while (n > 0 && isspace((unsigned char)z[n - 1])) n--;
  while (n > 0 && isspace((unsigned char)*z)) z++, n--;
  size_t nId = 0;
  while (nId < n && (isalnum((unsigned char)z[nId]) || z[nId] == '_')) nId++;
  if (nId == n && n > 0 && !isdigit((unsigned char)z[0])) return ks_buf_printf(pZ, ", (%.*s).z", (int)n, z);
  const char *zOpen = nId == 4 && !strncmp(z, "dim3", 4) ? z + 4 : NULL;
  while (zOpen && isspace((unsigned char)*zOpen)) zOpen++;
  if (zOpen && *zOpen == '(' && z[n - 1] == ')') {
    /* the top-level commas of dim3(...), its parentheses balanced up to the last */
    int nDepth = 0, nComma = 0;
    const char *zThird = NULL, *zEnd = z + n - 1, *q;
    for (q = zOpen + 1; q < zEnd && nDepth >= 0; q++) {
      if (*q == '(' || *q == '[' || *q == '{') nDepth++;
      else if (*q == ')' || *q == ']' || *q == '}') nDepth--;
      else if (*q == ',' && nDepth == 0 && ++nComma == 2) zThird = q + 1;
    }
    if (nDepth == 0 && nComma < 2) return 0;
    while (zThird && zThird < zEnd && isspace((unsigned char)*zThird)) zThird++;
    if (nDepth == 0 && nComma == 2) return ks_buf_printf(pZ, ", %.*s", (int)(zEnd - zThird), zThird);
  }
  return ks_rewrite_refuse(p,
                           "%s:%u: the grid '%s' of the launch of '%s' is neither dim3(x, y, z) nor a variable; the "
                           "batch on its z dimension cannot be kept",
                           ks_rewrite_tu(p)->zFile, pL->iLine, pL->azCfg[0] ? pL->azCfg[0] : "", zKernel);
}

/* GRID: template argument i of the kernel a launch names (`K<16><<<...`,
 * ks_rw_launch_targ) when an integer literal, else -1. */
static long long launch_tpl_int(ks_tu *pTu, const ks_launch *pL, int i) {
  unsigned iName;
  char *zArg = ks_rw_launch_targ(pTu, pL, i, &iName), *zEnd = NULL;
  long long v = zArg && isdigit((unsigned char)zArg[0]) ? strtoll(zArg, &zEnd, 0) : -1;
  while (v >= 0 && *zEnd && strchr("uUlL", *zEnd)) zEnd++;
  if (v >= 0 && *zEnd) v = -1;
  free(zArg);
  return v;
}

/* GRID: a thread index `blockIdx.d * E + threadIdx.d` covers a range of rows
 * (columns), each once, only with blockDim.d == E: every launch must show
 * it (ks_rw_launch_block_dims). */
static int check_tiles(ks_rewrite *p, const ks_gemm_match *pG, const ks_launch *pL, const char *zKernel) {
  long long aDim[3];
  int bDims = -1;
  for (int t = 0; t < 2; t++) { /* 0 the row, 1 the column */
    if (pG->anTile[t] == 0 && pG->aiTileTpl[t] < 0) continue; /* blockDim.d: any block */
    const int iD = (t == 0) == (pG->bRowOnY != 0) ? 1 : 0;
    const char cD = "xy"[iD];
    long long nE = pG->aiTileTpl[t] >= 0 ? launch_tpl_int(ks_rewrite_tu(p), pL, pG->aiTileTpl[t]) : pG->anTile[t];
    if (nE <= 0)
      return ks_rewrite_refuse(p, "%s:%u: the launch of '%s' does not give the template parameter its index steps by "
                                  "as an integer literal",
                               ks_rewrite_tu(p)->zFile, pL->iLine, zKernel);
    if (bDims < 0) bDims = ks_rw_launch_block_dims(ks_rewrite_tu(p), pL, aDim);
    if (bDims < 0)
      return ks_rewrite_refuse(p, "%s:%u: the block of this launch of '%s' is not a constant the rule can see (dim3 of "
                                  "constants, or a dim3 variable used only as a launch's block or grid); its index "
                                  "blockIdx.%c * %lld + threadIdx.%c needs blockDim.%c == %lld",
                               ks_rewrite_tu(p)->zFile, pL->iLine, zKernel, cD, nE, cD, cD, nE);
    if (aDim[iD] != nE)
      return ks_rewrite_refuse(p, "%s:%u: this launch of '%s' has blocks of %lld threads on %c, but its index "
                                  "blockIdx.%c * %lld + threadIdx.%c steps by %lld: the %s it covers are not one range",
                               ks_rewrite_tu(p)->zFile, pL->iLine, zKernel, aDim[iD], cD, cD, nE, cD, nE,
                               t == 0 ? "rows" : "columns");
  }
  return KS_OK;
}

/* A launch's M and N as the new grid and the kernel see them: the launch's
 * arguments for the guard's bounds; GRID, no guard: what the grid and block as
 * written covered (ks_g, ks_b: grid_launch declares them); a block per row
 * and a thread per column (acBare): the grid's or block's extent, cut by the
 * guard's bound when there is one. */
static int launch_extents(ks_rewrite *p, const ks_gemm_match *pG, const ks_launch *pL, ks_buf *pM, ks_buf *pN) {
  ks_buf *ab[2] = {pM, pN};
  for (int t = 0; t < 2; t++) {
    const int iP = t == 0 ? pG->iM : pG->iN;
    const char *zArg = !pG->bGrid && iP >= 0 && iP < pL->nArgs ? pL->azArg[iP] : NULL;
    const char *zMember = t == 0 ? pG->zMMember : pG->zNMember;
    char *zArgM = NULL;
    int rc;
    if (zArg && zMember) {
      /* IDIOMS: the bound `d.M` of a struct passed by value: the launch's argument's member, read twice */
      if (!ks_rw_arg_pure(zArg))
        return ks_rewrite_refuse(p, "%s:%u: the launch passes '%s', whose member %s bounds the GEMM; it may have an "
                                    "effect, and the grid would evaluate it again",
                                 ks_rewrite_tu(p)->zFile, pL->iLine, zArg, zMember);
      ks_buf bm = KS_BUF_INIT;
      if (ks_buf_printf(&bm, "(%s).%s", zArg, zMember) < 0) return KS_ENOMEM;
      zArg = zArgM = ks_buf_detach(&bm);
      ks_buf_free(&bm);
      if (!zArgM) return KS_ENOMEM;
    }
    if (!pG->acBare[t]) {
      const int bY = (t == 0) == (pG->bRowOnY != 0);
      rc = pG->bGrid ? ks_buf_printf(ab[t], bY ? "ks_g.y * ks_b.y" : "ks_g.x * ks_b.x") : ks_buf_puts(ab[t], zArg);
    } else {
      char zExt[16];
      snprintf(zExt, sizeof zExt, "ks_%c.%c", pG->acBare[t] == 'b' ? 'g' : 'b', "xy"[pG->aiBareDim[t] & 1]);
      if (zArg && !ks_rw_arg_pure(zArg)) {
        rc = ks_rewrite_refuse(p, "%s:%u: the launch passes the bound '%s', which may have an effect; the kernel's "
                                  "extent is the smaller of it and the launch's, read twice",
                               ks_rewrite_tu(p)->zFile, pL->iLine, zArg);
        free(zArgM);
        return rc;
      }
      rc = zArg ? ks_buf_printf(ab[t], "((long long)(%s) < (long long)(%s) ? (long long)(%s) : (long long)(%s))", zExt,
                                zArg, zExt, zArg)
                : ks_buf_puts(ab[t], zExt);
    }
    free(zArgM);
    if (rc < 0) return rc;
  }
  return KS_OK;
}

/* The kernel's new parameters zText (GRID: ", int ks_M, int ks_N", the rows
 * and columns its launches covered; PACK: the workspace), after its last. */
static int new_params(ks_rewrite *p, CXCursor kernel, const char *zText) {
  unsigned ps, pe;
  int n = ks_rw_param_count(kernel), rc;
  if (n <= 0) return ks_rewrite_refuse(p, "the kernel has no parameters the new ones could follow");
  if ((rc = ks_ast_extent(ks_rewrite_tu(p), ks_rw_param_at(kernel, n - 1), &ps, &pe)) < 0) return rc;
  return ks_rewrite_replace(p, pe, pe, zText);
}

/* GRID: launch `K<<<G, B, ...>>>(args);` becomes `{ const dim3 ks_g = (G),
 * ks_b = (B); K<<<cfg>>>(args, M, N); }`, M and N the rows and columns that
 * G and B covered (zCfg: the new configuration over them). */
static int grid_launch(ks_rewrite *p, const ks_launch *pL, const char *zCfg, const char *zM, const char *zN) {
  ks_tu *pTu = ks_rewrite_tu(p);
  const char *z = pTu->zSrc;
  unsigned gs = 0, ge = 0, bs = 0, be = 0, e = pL->iEnd;
  if (ks_rw_cfg_slot(pTu, pL, 0, &gs, &ge) < 0 || ks_rw_cfg_slot(pTu, pL, 1, &bs, &be) < 0)
    return ks_rewrite_refuse(p, "%s:%u: the launch has no grid and block the rule can read", pTu->zFile, pL->iLine);
  while (z[e] != ';') e++;
  ks_buf b = KS_BUF_INIT;
  int rc = ks_buf_printf(&b, "{ const dim3 ks_g = (%.*s), ks_b = (%.*s); %.*s%s%.*s, (int)(%s), (int)(%s)); }",
                         (int)(ge - gs), z + gs, (int)(be - bs), z + bs, (int)(pL->iCfgStart - pL->iStart),
                         z + pL->iStart, zCfg, (int)(pL->iEnd - 1 - pL->iCfgEnd), z + pL->iCfgEnd, zM, zN);
  if (rc >= 0) rc = ks_rewrite_replace(p, pL->iStart, e + 1, ks_buf_cstr(&b));
  ks_buf_free(&b);
  return rc;
}

/* The gemm_block call's trailing arguments into pScale: the accumulators'
 * start, the scalar on A's values, DUAL's second pair (every one up to the
 * last needed); into pVec what its vector mask adds (DUAL: the second pair's
 * alignment too). */
static int call_args(const ks_gemm_match *pG, CXCursor kernel, const char *zC, ks_buf *pScale, ks_buf *pVec) {
  const int bMore = pG->bDual || pG->bFma; /* arguments after the scale follow */
  const char *zInit = pG->zCScale || pG->zInit ? ", ks_init"
                      : pG->bInitC            ? ", ks_gemm::init_c()"
                      : pG->zAScale || bMore  ? ", ks_gemm::init_zero()"
                                              : "";
  int rc = pG->zAScale ? ks_buf_printf(pScale, "%s, ks_gemm::scale_by{(float)(%s)}", zInit, pG->zAScale)
                       : ks_buf_printf(pScale, "%s%s", zInit, bMore ? ", ks_gemm::scale_none()" : "");
  /* FMA: `acc = fmaf(a, b, acc)` in the kernel, so in the template (DUAL: refused in the matcher) */
  if (rc >= 0 && pG->bFma) rc = ks_buf_puts(pScale, ", ks_gemm::no_pair(), ks_gemm::mac_fma()");
  if (rc >= 0 && pG->bDual) {
    char *zA2 = param_name(kernel, pG->iA2), *zB2 = param_name(kernel, pG->iB2);
    rc = zA2 && zB2 ? ks_buf_printf(pScale, ", ks_gemm::pair2{%s, (long long)(%s), %s, (long long)(%s)}", zA2,
                                    pG->zX2, zB2, pG->zY2)
                    : KS_ENOMEM;
    if (rc >= 0)
      rc = ks_buf_printf(pVec, " & ks_gemm::vec_mask(%s, (%s), %s, (%s), %s, (%s))", zA2, pG->zX2, zB2, pG->zY2, zC,
                         pG->zZ);
    free(zA2);
    free(zB2);
  }
  return rc >= 0 ? ks_buf_puts(pVec, "") : rc;
}

/* DUAL: two products per k need the second pair's stages (twice the shared
 * memory) and the FP32 path. KS_OK with *pnSmem doubled, or a refusal. */
static int dual_smem(ks_rewrite *p, const char *zKernel, const char *zCfg, int bTf32, long nSmemMax, long *pnSmem) {
  if (bTf32)
    return ks_rewrite_refuse(p, "math=tf32: kernel '%s' sums two products per k; the TF32 path computes one", zKernel);
  *pnSmem *= 2;
  if (*pnSmem <= nSmemMax) return KS_OK;
  return ks_rewrite_refuse(p, "config=%s: two products per k need %ld bytes of shared memory, over the %ld this "
                              "architecture gives a block (a config with fewer stages or a smaller tile fits)",
                           zCfg, *pnSmem, nSmemMax);
}

/* PACK (pack=on): the operands contiguous along k (A unless given
 * transposed, B when given transposed) are copied before each launch into a
 * workspace, transposed (ks_gemm::pack), and the kernel reads them there with
 * both tiles on cp.async; without a workspace it takes the path as written.
 * The copies run in host code at every launch: sizes and leading dimensions
 * must be parameters the launches pass (no grid-derived extents, batches,
 * struct members or second products). *pbA, *pbB: which operands; KS_OK or a
 * refusal. */
static int pack_check(ks_rewrite *p, const ks_gemm_match *pG, int bTf32, int bParams, int *pbA, int *pbB) {
  *pbA = !pG->bATrans;
  *pbB = pG->bBTrans;
  if (bTf32) return ks_rewrite_refuse(p, "pack=on: the FP32 path only (math=fp32)");
  if (!*pbA && !*pbB)
    return ks_rewrite_refuse(p, "pack=on: A is given K x M and B K x N, already contiguous along m and n: nothing to pack");
  const char *zWhy = bParams         ? "its rows and columns come from the launch's grid"
                     : pG->bBatch    ? "it is batched on blockIdx.z"
                     : pG->bDual     ? "it sums two products per k"
                     : pG->zMMember || pG->zNMember ? "its sizes are members of a struct"
                     : pG->iM < 0 || pG->iN < 0 || pG->iK < 0 ? "M, N and K are not each one parameter"
                     : (*pbA && pG->iX < 0) || (*pbB && pG->iY < 0) ? "a packed operand's leading dimension is not one parameter"
                                                                    : NULL;
  if (zWhy)
    return ks_rewrite_refuse(p, "pack=on: the operands' copies run at each launch, from the arguments it passes, but %s",
                             zWhy);
  return KS_OK;
}

/* PACK: the operands packed, as the notes name them. */
static const char *pack_what(int bPA, int bPB) { return bPA && bPB ? "A and B" : bPA ? "A" : "B"; }

/* PACK: launch pL (`K<<<G, B, S, st>>>(args);`, a statement of its own)
 * becomes `{ float *ks_pk = ks_gemm::pack<PA, PB>(A, lda, B, ldb, M, N, K,
 * st); K<<<cfg>>>(args, ks_pk); ks_gemm::pack_release(ks_pk, st); }`, the
 * arguments it evaluates twice free of effects. */
static int pack_launch(ks_rewrite *p, const ks_launch *pL, const ks_gemm_match *pG, const char *zKernel,
                       const char *zCfg, int bPA, int bPB) {
  ks_tu *pTu = ks_rewrite_tu(p);
  const char *z = pTu->zSrc, *zS = pL->azCfg[3] ? pL->azCfg[3] : "0";
  unsigned iSemi;
  int rc = ks_rw_launch_stmt_end(p, pL, zKernel, "pack=on puts the operands' copies before it", &iSemi);
  if (rc < 0) return rc;
  const int ai[] = {pG->iM, pG->iN, pG->iK, pG->iA, pG->iB, bPA ? pG->iX : -1, bPB ? pG->iY : -1};
  for (size_t i = 0; i < sizeof ai / sizeof ai[0]; i++)
    if (ai[i] >= 0 && !ks_rw_arg_pure(pL->azArg[ai[i]]))
      return ks_rewrite_refuse(p, "%s:%u: argument '%s' of the launch of '%s' may have an effect; pack=on evaluates it "
                                  "again for the operands' copies",
                               pTu->zFile, pL->iLine, pL->azArg[ai[i]], zKernel);
  if (!ks_rw_arg_pure(zS))
    return ks_rewrite_refuse(p, "%s:%u: the stream '%s' of the launch of '%s' may have an effect; pack=on uses it "
                                "three times",
                             pTu->zFile, pL->iLine, zS, zKernel);
  char **a = pL->azArg;
  ks_buf b = KS_BUF_INIT;
  rc = ks_buf_printf(&b,
                     "{ float *ks_pk = ks_gemm::pack<%s, %s>((%s), (long long)(%s), (%s), (long long)(%s), "
                     "(int)(%s), (int)(%s), (int)(%s), (%s)); %.*s%s%.*s, ks_pk); "
                     "ks_gemm::pack_release(ks_pk, (%s)); }",
                     bPA ? "true" : "false", bPB ? "true" : "false", a[pG->iA], bPA ? a[pG->iX] : "0", a[pG->iB],
                     bPB ? a[pG->iY] : "0", a[pG->iM], a[pG->iN], a[pG->iK], zS, (int)(pL->iCfgStart - pL->iStart),
                     z + pL->iStart, zCfg, (int)(pL->iEnd - 1 - pL->iCfgEnd), z + pL->iCfgEnd, zS);
  if (rc >= 0) rc = ks_rewrite_replace(p, pL->iStart, iSemi + 1, ks_buf_cstr(&b));
  ks_buf_free(&b);
  return rc;
}

/* One gemm_block call (the body's, or PACK's two: the packed path and the
 * path as written) at indent zI. */
typedef struct gt_call {
  const char *zTArgs, *zM, *zN, *zK, *zA, *zLda, *zB, *zLdb, *zC, *zLdc, *zVecMore, *zInit;
  int bTf32, bTA, bTB, bCold; /* bCold: gemm_block_cold (not inlined) */
} gt_call;

static int emit_call(ks_buf *pB, const char *zI, const gt_call *c) {
  return ks_buf_printf(
      pB,
      "%sks_gemm::gemm_block%s<%s, %s, %s>(\n"
      "%s    (int)(%s), (int)(%s), (int)(%s), %s, (long long)(%s), %s, (long long)(%s), %s, (long long)(%s), ks_epi,\n"
      "%s    ks_gemm::vec_mask(%s, (%s), %s, (%s), %s, (%s))%s, ks_smem, (int)blockIdx.y, (int)blockIdx.x%s);\n",
      zI, c->bTf32 ? "_tf32" : c->bCold ? "_cold" : "", c->zTArgs, c->bTA ? "true" : "false", c->bTB ? "true" : "false", zI, c->zM, c->zN,
      c->zK, c->zA, c->zLda, c->zB, c->zLdb, c->zC, c->zLdc, zI, c->zA, c->zLda, c->zB, c->zLdb, c->zC, c->zLdc,
      c->zVecMore, c->zInit);
}

/* The body's call: as written, or (PACK) the packed path when the launch
 * passed a workspace and the path as written when it did not. */
static int emit_calls(ks_buf *pB, const char *zI, const gt_call *c, int bPA, int bPB) {
  if (!bPA && !bPB) return emit_call(pB, zI, c);
  char zI2[72];
  snprintf(zI2, sizeof zI2, "%s  ", zI);
  gt_call k = *c;
  ks_buf off = KS_BUF_INIT;
  int rc = ks_buf_printf(&off, "ks_pk + ks_gemm::pack_offset(%s, (int)(%s), (int)(%s))", bPA ? "true" : "false", c->zM,
                         c->zK);
  k.zA = bPA ? "ks_pk" : c->zA;
  k.zLda = bPA ? c->zM : c->zLda;
  k.zB = bPB ? ks_buf_cstr(&off) : c->zB;
  k.zLdb = bPB ? c->zN : c->zLdb;
  k.bTA = 1; /* A: K x M, given so or packed */
  k.bTB = 0; /* B: K x N, given so or packed */
  if (rc >= 0)
    rc = ks_buf_printf(pB, "%sif (ks_pk) { /* pack=on: %s copied transposed before the launch (ks_gemm::pack) */\n",
                       zI, pack_what(bPA, bPB));
  if (rc >= 0) rc = emit_call(pB, zI2, &k);
  gt_call cold = *c;
  cold.bCold = 1;
  if (rc >= 0) rc = ks_buf_printf(pB, "%s} else { /* no workspace: the operands as given, not inlined */\n", zI);
  if (rc >= 0) rc = emit_call(pB, zI2, &cold);
  if (rc >= 0) rc = ks_buf_printf(pB, "%s}\n", zI);
  ks_buf_free(&off);
  return rc;
}

static int apply_gemm_tiled(ks_rewrite *p) {
  ks_tu *pTu = ks_rewrite_tu(p);
  const char *zKernel = ks_rewrite_kernel_name(p);
  const char *zCfg = ks_rewrite_param(p, "config", NULL);
  ks_gemm_match g;
  ks_launch *aL = NULL;
  int nL = 0, rc;
  ks_buf body = KS_BUF_INIT, cfg = KS_BUF_INIT, note = KS_BUF_INIT, scale = KS_BUF_INIT, gz = KS_BUF_INIT;
  ks_buf mArg = KS_BUF_INIT, nArg = KS_BUF_INIT;
  char *zA = NULL, *zB = NULL, *zC = NULL;
  gt_cfg c;
  memset(&g, 0, sizeof g);
  const char *zMath = ks_rewrite_param(p, "math", "fp32");
  if (strcmp(zMath, "fp32") != 0 && strcmp(zMath, "tf32") != 0)
    return ks_rewrite_refuse(p, "math=%s: fp32 (bitwise the original) or tf32 (tensor cores, within a tolerance)",
                             zMath);
  const int bTf32 = strcmp(zMath, "tf32") == 0;
  const char *zPack = ks_rewrite_param(p, "pack", "off");
  if (strcmp(zPack, "off") != 0 && strcmp(zPack, "on") != 0)
    return ks_rewrite_refuse(p, "pack=%s: on (operands contiguous along k copied transposed before each launch) or off",
                             zPack);
  const int bPack = strcmp(zPack, "on") == 0;
  int bPA = 0, bPB = 0;
  int nSm = 0;
  const long nSmemMax = smem_limit(pTu, &nSm);
  char zWhyBuf[160];
  const char *zWhy;
  if (!zCfg) {
    /* the first default the GPU can give its shared memory (the 2-stage one last) */
    const char *azTry[] = {bTf32 && (nSm == 0 || nSm == 90) ? GT_TF32_WGMMA_CONFIG : GT_DEFAULT_CONFIG,
                           GT_DEFAULT_CONFIG};
    for (int i = 0; i < 2 && !zCfg; i++)
      if (!parse_cfg(azTry[i], &c) && !check_smem(&c, bTf32, nSmemMax, nSm, zWhyBuf, sizeof zWhyBuf)) zCfg = azTry[i];
    if (!zCfg) zCfg = GT_SMALL_CONFIG;
  }
  if ((zWhy = parse_cfg(zCfg, &c))) return ks_rewrite_refuse(p, "config=%s: %s", zCfg, zWhy);
  if (bTf32 && (zWhy = check_tf32(&c))) return ks_rewrite_refuse(p, "config=%s: %s", zCfg, zWhy);
  if ((zWhy = check_smem(&c, bTf32, nSmemMax, nSm, zWhyBuf, sizeof zWhyBuf)))
    return ks_rewrite_refuse(p, "config=%s: %s", zCfg, zWhy);
  int nT = (c.BM / c.WM) * (c.BN / c.WN) * 32;
  /* over 48 KB: dynamic shared memory, passed and opted in to by every launch */
  long nSmem = cfg_smem(&c, bTf32);
  int bDyn = nSmem > GT_STATIC_SMEM;

  CXCursor kernel = ks_ast_find_kernel(pTu, zKernel);
  unsigned iKs, iKe;
  if (!clang_Cursor_isNull(kernel) && ks_ast_extent(pTu, kernel, &iKs, &iKe) == 0 &&
      ks_rewrite_has_note(p, iKs, iKe, NULL)) {
    if (bTf32) return to_tf32(p, pTu->zSrc, iKs, iKe, zKernel);
    return ks_rewrite_already(p, "kernel '%s' already calls the tiled GEMM template", zKernel);
  }
  unsigned mAccept = KS_GEMM_ACCEPT_LINEAR | KS_GEMM_ACCEPT_TRANS_A | KS_GEMM_ACCEPT_OWN_C | KS_GEMM_ACCEPT_ACC_C |
                     KS_GEMM_ACCEPT_IDIOMS | KS_GEMM_ACCEPT_MODEL | KS_GEMM_ACCEPT_GRID | KS_GEMM_ACCEPT_DUAL;
  if ((rc = ks_rule_gemm_match_ex(p, mAccept, &g)) < 0) return rc;
  if (g.bDual) {
    if ((rc = dual_smem(p, zKernel, zCfg, bTf32, nSmemMax, &nSmem)) < 0) goto done;
    bDyn = nSmem > GT_STATIC_SMEM;
  }
  if (g.bDouble) {
    rc = ks_rewrite_refuse(p, "kernel '%s' is a double GEMM; the template is FP32 (smem-tile-gemm tiles double)", zKernel);
    goto done;
  }
  if (!ks_rw_kernel_in_namespaces(kernel)) {
    rc = ks_rewrite_refuse(p, "kernel '%s' is not defined at file scope or in namespaces (inside a class or a function)",
                           zKernel);
    goto done;
  }
  if (ks_rw_has_word(pTu, g.iKernelStart, g.iBodyStart, "__launch_bounds__")) {
    rc = ks_rewrite_refuse(p, "kernel '%s' has __launch_bounds__; its block size changes here (apply launch-bounds after)",
                           zKernel);
    goto done;
  }
  if (!g.bGrid && (g.iM < 0 || g.iN < 0)) {
    rc = ks_rewrite_refuse(p, "the row/column bounds of '%s' are not single parameters; cannot size the grid", zKernel);
    goto done;
  }
  if ((rc = ks_rw_kernel_launches(p, zKernel, &aL, &nL)) < 0) goto done;
  /* GRID: no bounds guard, or a block per row and a thread per column: the
   * rows and columns the launches cover become parameters */
  const int bParams = g.bGrid || g.acBare[0] || g.acBare[1];
  if (bPack && (rc = pack_check(p, &g, bTf32, bParams, &bPA, &bPB)) < 0) goto done;
  if (bParams || bPack) {
    char zNo[400];
    const char *zWhyNo;
    ks_ast_launches_free(aL, nL);
    if ((zWhyNo = ks_rw_new_param_why(p, kernel, zNo, sizeof zNo, &aL, &nL))) {
      rc = bPack ? ks_rewrite_refuse(p, "pack=on: the launches must pass the workspace as a new parameter, but %s",
                                     zWhyNo)
                 : ks_rewrite_refuse(p, "kernel '%s' %s, so its launches must pass the rows and columns they cover as "
                                        "new parameters, but %s",
                                     zKernel, g.bGrid ? "has no bounds guard" : "takes a block per row and a thread per column",
                                     zWhyNo);
      goto done;
    }
  }

  /* The body: one call of gemm_block on the matched shape. */
  /* per-batch pointers (`Ab = A + bz * M * K`) stand for their parameters */
  zA = g.zAPtr ? ks_strdup(g.zAPtr) : param_name(kernel, g.iA);
  zB = g.zBPtr ? ks_strdup(g.zBPtr) : param_name(kernel, g.iB);
  zC = g.zCPtr ? ks_strdup(g.zCPtr) : param_name(kernel, g.iC);
  if (!zA || !zB || !zC) {
    rc = ks_error_set(KS_ENOMEM, "out of memory");
    goto done;
  }
  unsigned nIndent = 0;
  unsigned iLine0 = ks_rewrite_line_start(p, g.iKernelStart, &nIndent);
  char zI[64];
  snprintf(zI, sizeof zI, "%.*s  ", (int)(nIndent < 60 ? nIndent : 60), pTu->zSrc + iLine0);
  char zTArgs[96];
  if (bTf32) snprintf(zTArgs, sizeof zTArgs, "%d, %d, %d, %d, %d, %d", c.BM, c.BN, c.BK, c.WM, c.WN, c.S);
  else snprintf(zTArgs, sizeof zTArgs, "%d, %d, %d, %d, %d, %d, %d, %d", c.BM, c.BN, c.BK, c.WM, c.WN, c.TM, c.TN, c.S);
  /* the accumulators' start (and the products' scalar on A, after it) */
  ks_buf vec = KS_BUF_INIT;
  if ((rc = call_args(&g, kernel, zC, &scale, &vec)) < 0) {
    ks_buf_free(&vec);
    goto done;
  }
  const char *zInitArg = scale.z;
  if (bDyn)
    /* the size is the launches' third argument; the assertion keeps the two equal (a build with
     * -DKS_GEMM_JMAJOR_A=1, whose A tile is larger, stops here) */
    rc = ks_buf_printf(&body,
                       "\n"
                       "%sextern __shared__ __align__(16) float ks_smem[];\n"
                       "%sstatic_assert(ks_gemm::config%s<%s>::SMEM%s == %ld, \"the launches pass %ld bytes of dynamic "
                       "shared memory\");\n",
                       zI, zI, bTf32 ? "_tf32" : "", zTArgs, g.bDual ? " * 2" : "", nSmem, nSmem);
  else
    rc = ks_buf_printf(&body,
                       "\n"
                       "%s__shared__ __align__(16) float ks_smem[ks_gemm::config%s<%s>::SMEM%s / sizeof(float)];\n",
                       zI, bTf32 ? "_tf32" : "", zTArgs, g.bDual ? " * 2" : "");
  /* the batch index and the per-batch pointers, as written */
  for (const char *z = g.zBatchDecls; rc >= 0 && z && *z;) {
    const char *zNl = strchr(z, '\n');
    rc = ks_buf_printf(&body, "%s%.*s\n", zI, (int)(zNl - z), z);
    z = zNl + 1;
  }
  if (rc >= 0) rc = emit_epilogue(&body, &g, zI);
  if (rc >= 0) {
    const gt_call call = {zTArgs, bParams ? "ks_M" : g.zM, bParams ? "ks_N" : g.zN, g.zK, zA, g.zX, zB, g.zY, zC,
                          g.zZ, vec.z, zInitArg, bTf32, g.bATrans, g.bBTrans, 0};
    rc = emit_calls(&body, zI, &call, bPA, bPB);
  }
  ks_buf_free(&vec);
  if (rc < 0) goto done;
  if ((rc = ks_rewrite_replace(p, g.iBodyStart + 1, g.iBodyEnd - 1, body.z)) < 0) goto done;
  if (bParams && (rc = new_params(p, kernel, ", int ks_M, int ks_N")) < 0) goto done;
  if (bPack && (rc = new_params(p, kernel, ", const float *ks_pk")) < 0) goto done;

  /* __launch_bounds__ before the kernel's name, as the template's own kernel
   * has it: the block size, and (thread tiles up to 8x8) enough blocks per SM
   * to cap registers at 128, two blocks of 256 threads per SM. */
  {
    CXFile file;
    unsigned iName = 0;
    clang_getSpellingLocation(clang_getCursorLocation(kernel), &file, NULL, NULL, &iName);
    size_t nName = strlen(zKernel);
    if (iName <= g.iKernelStart || iName >= g.iBodyStart || strncmp(pTu->zSrc + iName, zKernel, nName) != 0) {
      rc = ks_rewrite_refuse(p, "the name of kernel '%s' is not written where its declaration is", zKernel);
      goto done;
    }
    char zLb[64];
    int nMinB = bTf32 ? (nT <= 512 && (c.WM / 16) * (c.WN / 8) <= 16 ? 512 / nT : 1)
                      : (c.TM * c.TN <= 64 && nT <= 512 ? 512 / nT : 1);
    snprintf(zLb, sizeof zLb, "__launch_bounds__(%d, %d) ", nT, nMinB);
    if ((rc = ks_rewrite_replace(p, iName, iName, zLb)) < 0) goto done;
  }

  /* Above the kernel: the template (once per file), then the kernel's note. */
  const char *zHow = NULL;
  if (bTf32 && (rc = tf32_arch(p, &c, g.bATrans, g.zAScale != NULL, nSm, &zHow)) < 0) goto done;
  if (bTf32)
    rc = ks_buf_printf(&note, "ks_gemm::gemm_block_tf32 %dx%dx%d tiles, %dx%d warps, %d stages, %d threads, computes "
                              "in TF32 on tensor cores (%s, operands reduced to TF32, FP32 sums: not "
                              "bitwise the original, within the task's tolerance only)%s%s%s%s",
                       c.BM, c.BN, c.BK, c.WM, c.WN, c.S, nT, zHow, g.bATrans ? ", A transposed" : "",
                       g.bBTrans ? ", B transposed" : "", g.zStore ? ", epilogue kept" : "",
                       g.bInitC ? ", accumulating into C" : "");
  else
    rc = ks_buf_printf(&note,
                       "ks_gemm::gemm_block %dx%dx%d tiles, %dx%d warps, %dx%d per thread, %d stages, %d threads%s%s%s%s",
                       c.BM, c.BN, c.BK, c.WM, c.WN, c.TM, c.TN, c.S, nT, g.bATrans ? ", A transposed" : "",
                       g.bBTrans ? ", B transposed" : "", g.zStore ? ", epilogue kept" : "",
                       g.bInitC ? ", accumulating into C" : "");
  if (rc >= 0 && g.bBatch) rc = ks_buf_printf(&note, ", batched on blockIdx.z");
  if (rc >= 0 && bParams) rc = ks_buf_printf(&note, ", M and N the rows and columns the launch's grid covered (ks_M, ks_N)");
  if (rc >= 0 && g.bDual) rc = ks_buf_printf(&note, ", two products per k (ks_gemm::pair2)");
  if (rc >= 0 && g.bFma) rc = ks_buf_printf(&note, ", products as explicit fmaf (ks_gemm::mac_fma)");
  if (rc >= 0 && bDyn) rc = ks_buf_printf(&note, ", %ld bytes of dynamic shared memory", nSmem);
  if (rc >= 0 && bPack)
    rc = ks_buf_printf(&note,
                       ", %s packed (copied transposed into a workspace before each launch: both tiles on cp.async; "
                       "the operands as given where no workspace is had)",
                       pack_what(bPA, bPB));
  if (rc < 0) goto done;
  rc = ks_rw_insert_shipped(p, iLine0, nIndent, "#define KS_GEMM_F32_CUH", "ks_gemm_f32.cuh", "GEMM template",
                            "the shipped GEMM template (share/kernelskill/templates/ks_gemm_f32.cuh)", note.z);
  if (rc < 0) goto done;

  /* Every launch: the grid covers M x N in BM x BN tiles, a 1-D block. */
  for (int i = 0; i < nL; i++) {
    ks_launch *pL = &aL[i];
    if ((rc = ks_rw_launch_arity(p, pL, kernel, zKernel)) < 0 || (rc = check_tiles(p, &g, pL, zKernel)) < 0) goto done;
    ks_buf_clear(&mArg);
    ks_buf_clear(&nArg);
    if ((rc = launch_extents(p, &g, pL, &mArg, &nArg)) < 0) goto done;
    const char *zMArg = mArg.z, *zNArg = nArg.z;
    ks_buf_clear(&cfg);
    ks_buf_clear(&gz);
    if ((g.bBatch && (rc = grid_z(p, pL, zKernel, &gz)) < 0)) goto done;
    if (bDyn) {
      if ((rc = dyn_launch_cfg(p, pL, zKernel, zMArg, zNArg, gz.z ? gz.z : "", &c, nT, nSmem, &cfg)) < 0) goto done;
    } else {
      rc = ks_buf_printf(&cfg, "dim3(((%s) + %d) / %d, ((%s) + %d) / %d%s), dim3(%d)", zNArg, c.BN - 1, c.BN, zMArg,
                         c.BM - 1, c.BM, gz.z ? gz.z : "", nT);
      if (rc >= 0) rc = ks_rw_cfg_tail(&cfg, pL);
    }
    if (rc < 0) goto done;
    if (bParams) rc = grid_launch(p, pL, cfg.z, zMArg, zNArg);
    else if (bPack) rc = pack_launch(p, pL, &g, zKernel, cfg.z, bPA, bPB);
    else rc = ks_rewrite_replace(p, pL->iCfgStart, pL->iCfgEnd, cfg.z);
    if (rc < 0) goto done;
    ks_buf_clear(&note);
    if ((rc = ks_buf_printf(&note, "grid of %dx%d tiles over %s x %s, %d threads", c.BM, c.BN, zMArg, zNArg, nT)) < 0)
      goto done;
    if (g.bBatch && (rc = ks_buf_printf(&note, ", the batch on z kept")) < 0) goto done;
    if (bDyn && (rc = ks_buf_printf(&note, ", %ld bytes of dynamic shared memory (opted in to first)", nSmem)) < 0)
      goto done;
    if (bPack && (rc = ks_buf_printf(&note, ", %s packed first (ks_gemm::pack, stream-ordered workspace)",
                                     pack_what(bPA, bPB))) < 0)
      goto done;
    if ((rc = ks_rewrite_note(p, pL->iStart, note.z)) < 0) goto done;
  }
done:
  ks_rule_gemm_match_free(&g);
  ks_ast_launches_free(aL, nL);
  ks_buf_free(&body);
  ks_buf_free(&cfg);
  ks_buf_free(&note);
  ks_buf_free(&scale);
  ks_buf_free(&gz);
  ks_buf_free(&mArg);
  ks_buf_free(&nArg);
  free(zA);
  free(zB);
  free(zC);
  return rc;
}

static const char *const azParams[] = {"config", "math", "pack", NULL};

const ks_rule ks_rule_gemm_tiled = {
    "gemm-tiled",
    "naive FP32 GEMM (NN/NT/TN/TT, alpha/beta or elementwise epilogue, C += in the k-loop, indexes through "
    "function-like macros, batched on blockIdx.z) to the shipped tiled "
    "template ks_gemm_f32.cuh (config=BMxBNxBK_wWMxWN_tTMxTN_sS; math=tf32: TF32 tensor cores, not bitwise, for "
    "tasks whose tolerance admits it; pack=on: operands contiguous along k copied transposed before each launch)",
    azParams, apply_gemm_tiled};
