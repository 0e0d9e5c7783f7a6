/* kernelskill/plugin.h — what the clang plugin (plugin/, a thin C++17 shim
 * over clang's API) asks of the library: which clang pass of a CUDA compile
 * acts, the store lookup for `apply`, the advice for `report` and the
 * Feature Extractor's document for `features`. docs/plugin.md explains the
 * rules for users. */
#ifndef KERNELSKILL_PLUGIN_H
#define KERNELSKILL_PLUGIN_H

#include <stddef.h>

#include "kernelskill/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* clang 19 compiles CUDA for this arch when the command names none. */
#define KS_PLUGIN_DEFAULT_ARCH "sm_52"

/* The whole compile a pass belongs to, read from the clang driver's command
 * line: the plugin process's own (clang runs cc1 in-process by default) or
 * its parent's (-fno-integrated-cc1). */
typedef struct ks_plugin_compile {
  int bDriver;      /* the driver's command line was found */
  int bDeviceOnly;  /* --cuda-device-only / --offload-device-only */
  int bHostOnly;    /* --cuda-host-only / --offload-host-only */
  char **azArchs;   /* GPU archs ("sm_90"), sorted, no duplicates; the
                       default arch when the command names none */
  int nArchs;
  int bArchUnknown; /* an arch the store cannot name (native, all, gfx...) */
  char *zCudaPath;  /* --cuda-path, or NULL */
  char *zMainPath;  /* the driver's word that names the main file, or NULL */
} ks_plugin_compile;

/* Read a driver command line (argv[0] first). zMainFile: the input this pass
 * compiles; a command that does not name it is not its driver (*pp gets a
 * compile with bDriver == 0). */
int ks_plugin_compile_from_argv(const char *const *azArgv, int nArgv, const char *zMainFile, ks_plugin_compile **pp);
/* The same from /proc: this process, else its parent. Never fails for lack
 * of a driver (bDriver == 0 then); only KS_ENOMEM. */
int ks_plugin_compile_find(const char *zMainFile, ks_plugin_compile **pp);
void ks_plugin_compile_free(ks_plugin_compile *p);

/* One clang pass (cc1 job) as the plugin sees it. */
typedef struct ks_plugin_pass {
  unsigned version;
  const char *zMainFile;         /* the main file as the compile names it */
  int bDevice;                   /* LangOpts.CUDAIsDevice */
  const char *zArch;             /* device pass: its target CPU ("sm_90"); host: NULL */
  const char *const *azArgs;     /* the compile's -I -iquote -isystem -idirafter -D -U
                                    -include -std, as clang arguments */
  int nArgs;
  const char *zResourceDir;      /* the compiling clang's resource dir, or NULL */
  const char *zContents;         /* the main file as this pass compiles it (NULL: read it) */
  size_t nContents;
  const char *zAstFile;          /* clang's AST of this pass, serialized: analysed
                                    instead of a libclang parse (NULL: parse) */
  int nErrors;                   /* errors this pass reported (with zAstFile) */
  const unsigned *aTop;          /* with zAstFile: main-file offsets of the main
                                    file's top-level declarations, in order, so
                                    that only they are analysed; nTop < 0: unknown */
  int nTop;
  const unsigned char *aTopTemplate; /* per offset: 1 for a template declaration */
  void *pSharedTu;               /* a libclang CXTranslationUnit of this pass's own AST,
                                    in this process (ks_tu_adopt): analysed instead of
                                    zAstFile or a parse; aTop as for zAstFile */
} ks_plugin_pass;

#define KS_PLUGIN_PASS_VERSION 4
#define KS_PLUGIN_PASS_INIT {KS_PLUGIN_PASS_VERSION, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, 0}

/* Whether this pass is the one that reports, writes features and warns: the
 * host pass, or in a device-only compile the device pass of the first arch;
 * every pass when no driver was found (a lone cc1 is its whole compile). */
int ks_plugin_pass_acts(const ks_plugin_compile *pC, const ks_plugin_pass *pP);

/* `apply`: the store's verified version for the main file, if every arch of
 * the compile has an entry for its bytes with the same verified version (all
 * passes must compile the same source). zOptimized NULL: compile as is;
 * zNote then may say why (stale entry: bWarn). */
typedef struct ks_plugin_apply {
  char *zOptimized;  /* malloc'd, or NULL */
  size_t nOptimized;
  char *zEntry;      /* the entry's name when substituted */
  char *zNote;       /* malloc'd message, or NULL */
  int bWarn;         /* zNote asks for action (stale or damaged entry) */
} ks_plugin_apply;

int ks_plugin_apply_lookup(const ks_plugin_compile *pC, const ks_plugin_pass *pP, ks_plugin_apply *pOut);
void ks_plugin_apply_clear(ks_plugin_apply *p);

/* `report`: per kernel of the main file, messages (a bottleneck guess from the
 * static features, then up to nTop planner candidates). */
typedef struct ks_plugin_advice {
  char *zKernel;
  int iLine;         /* the kernel's line in the main file */
  char **azMsg;
  int nMsg;
} ks_plugin_advice;

typedef struct ks_plugin_report {
  ks_plugin_advice *a;
  int n;
} ks_plugin_report;

int ks_plugin_report_run(const ks_plugin_compile *pC, const ks_plugin_pass *pP, int nTop, ks_plugin_report **pp);
void ks_plugin_report_free(ks_plugin_report *p);

/* The bottleneck guess for one kernel's `summary` object (JSON text):
 * "memory bandwidth (streaming: ...)" etc. Malloc'd. */
int ks_plugin_guess(const char *zSummary, size_t nSummary, char **pzOut);

/* `features`: the Feature Extractor's JSON for the main file as this pass
 * sees it (its side, arch, include paths, macros and language standard). */
int ks_plugin_features(const ks_plugin_compile *pC, const ks_plugin_pass *pP, ks_buf *pOut);

/* KS_PLUGIN_PROFILE=1 in the environment: print to stderr the process CPU
 * time spent since the previous mark, labelled zPhase (a diagnosis aid for
 * the plugin's cost; nothing is printed otherwise). */
void ks_plugin_profile(const char *zPhase);
/* Write text to zPath atomically, or to stdout when zPath is "-". */
int ks_plugin_write_out(const char *zPath, const char *z, size_t n);

#ifdef __cplusplus
}
#endif
#endif
