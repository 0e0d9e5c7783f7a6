/* kernelskill/features.h — the Feature Extractor: parse a CUDA file with libclang
 * exactly as a CUDA compile sees it, and report static features per __global__
 * kernel as versioned JSON ("ks_features": 1; docs/features.md has every field). */
#ifndef KERNELSKILL_FEATURES_H
#define KERNELSKILL_FEATURES_H

#include <stddef.h>

#include "kernelskill/common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KS_FEATURES_FORMAT 1

/* A parsed translation unit, reusable: ks_tu_reparse() after an edit is much
 * faster than a fresh parse (libclang keeps a precompiled preamble). */
typedef struct ks_tu ks_tu;

typedef struct ks_parse_opts {
  unsigned version;
  const char *const *azExtraArgs; /* more clang arguments (-I, -D, ...) */
  int nExtraArgs;
  int bDeviceSide;         /* parse the device side (--cuda-device-only) */
  const char *zGpuArch;    /* "sm_90" by default */
  const char *zCudaPath;   /* default: $CUDA_PATH, else the configured toolkit */
  const char *zResourceDir;/* default: $KS_CLANG_RESOURCE_DIR, else libclang's own */
  const char *zContents;   /* parse this text instead of the file's bytes */
  size_t nContents;
  int bReparse;            /* will be re-parsed after edits: build the
                              precompiled preamble now (slower first parse,
                              much faster ks_tu_reparse) */
} ks_parse_opts;

#define KS_PARSE_OPTS_VERSION 1
#define KS_PARSE_OPTS_INIT {KS_PARSE_OPTS_VERSION, 0, 0, 0, 0, 0, 0, 0, 0, 0}

/* Parse zFile. Fails (KS_ENOTFOUND, KS_EPARSE) only when nothing usable came
 * out; syntax errors in user code are kept as diagnostics (ks_tu_error_count). */
int ks_tu_parse(const char *zFile, const ks_parse_opts *pOpts, ks_tu **ppTu);
/* Re-parse after the main file changed; zContents NULL re-reads the file. */
int ks_tu_reparse(ks_tu *pTu, const char *zContents, size_t nContents);
void ks_tu_free(ks_tu *pTu);
/* Errors clang reported in the user's code. */
int ks_tu_error_count(const ks_tu *pTu);
/* Append the user-code diagnostics as "file:line:col: error: msg" lines. */
int ks_tu_diagnostics(const ks_tu *pTu, ks_buf *pOut);
/* The main file's text as parsed. */
const char *ks_tu_source(const ks_tu *pTu, size_t *pnSrc);
double ks_tu_parse_seconds(const ks_tu *pTu);

typedef struct ks_features_opts {
  unsigned version;
  const char *zKernel; /* only this kernel (NULL: all) */
} ks_features_opts;

#define KS_FEATURES_OPTS_VERSION 1
#define KS_FEATURES_OPTS_INIT {KS_FEATURES_OPTS_VERSION, 0}

/* Write the features document {"ks_features":1, "file":..., "kernels":[...],
 * "launches":[...], "diagnostics":[...]} as JSON into pOut.
 * KS_ENOTFOUND if zKernel names no kernel of the file. */
int ks_features_json(ks_tu *pTu, const ks_features_opts *pOpts, ks_buf *pOut);
/* The same, as a short human-readable summary. */
int ks_features_text(ks_tu *pTu, const ks_features_opts *pOpts, ks_buf *pOut);

/* The kernels host function zEntry of the main file uses: launched, passed to
 * cudaLaunchKernel or taken as a pointer, in its body or in the bodies of the
 * main file's functions it calls (transitively; names, so overloads count
 * together). *pazOut is a malloc'd NULL-terminated list of malloc'd names,
 * NULL with *pnOut 0 when zEntry is not defined here or uses no kernel. */
int ks_features_entry_kernels(ks_tu *pTu, const char *zEntry, char ***pazOut, int *pnOut);

/* 1 when kernel zName is KernelSkill's own: defined in a namespace named
 * ks_* (the shipped templates a rewrite copies into a file, e.g.
 * ks_gemm_sm90), so the planner does not plan it; else 0 (also when no
 * kernel has that name). */
int ks_features_kernel_shipped(ks_tu *pTu, const char *zName);

/* A ks_tu from an AST file written by the clang that compiled the file (the
 * plugin serializes the translation unit it parsed), loaded by libclang's
 * deserializer instead of a second parse (lib/features/tu_share.c). */
typedef struct ks_tu_load_opts {
  unsigned version;
  int bDeviceSide;        /* the AST is of a device pass */
  const char *zContents;  /* the main file's text as compiled (NULL: read it) */
  size_t nContents;
  int nErrors;            /* errors the compile reported in the user's code */
  const unsigned *aTop;   /* main-file offsets of the main file's top-level */
  int nTop;               /* declarations (their locations' expansion), in
                             order: walks visit only these; nTop < 0: unknown */
  const unsigned char *aTopTemplate; /* per offset: 1 for a template */
} ks_tu_load_opts;

#define KS_TU_LOAD_OPTS_VERSION 2
#define KS_TU_LOAD_OPTS_INIT {KS_TU_LOAD_OPTS_VERSION, 0, 0, 0, 0, 0, -1, 0}

/* Load zAstFile (clang's serialized AST of zFile; the same clang version as
 * libclang) as a ks_tu. KS_EPARSE when libclang cannot read it. */
int ks_tu_load_ast(const char *zFile, const char *zAstFile, const ks_tu_load_opts *pOpts, ks_tu **ppTu);

/* A ks_tu around a translation unit the caller already holds in this process:
 * pCxTu is a libclang CXTranslationUnit (void * here, so that this header
 * needs no libclang) whose AST is the running compile's own (the plugin hands
 * clang's AST to libclang without writing it, plugin/shared_tu.cpp). The
 * ks_tu borrows it: ks_tu_free leaves it to the caller, who must keep it
 * alive until then. Options as for ks_tu_load_ast. */
int ks_tu_adopt(const char *zFile, void *pCxTu, const ks_tu_load_opts *pOpts, ks_tu **ppTu);

#ifdef __cplusplus
}
#endif
#endif
