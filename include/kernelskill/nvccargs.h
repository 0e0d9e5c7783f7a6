/* kernelskill/nvccargs.h — nvcc's command-line grammar as a library: split an
 * nvcc command (argv, -optf/--options-file files, NVCC_PREPEND_FLAGS and
 * NVCC_APPEND_FLAGS) into options, values and inputs, and classify what the
 * drop-in needs: the .cu inputs, the outputs, the target GPU archs, and the
 * dependency-generation options. The parser never rejects a command: unknown
 * options are recorded (nvcc decides whether they are fatal). */
#ifndef KERNELSKILL_NVCCARGS_H
#define KERNELSKILL_NVCCARGS_H

#include <stddef.h>

#include "kernelskill/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How an option takes its value. */
enum {
  KS_NVO_FLAG = 0,  /* no value */
  KS_NVO_VALUE = 1, /* one value */
  KS_NVO_LIST = 2   /* a value that is a comma list; the option may repeat */
};

/* One option nvcc knows: long name (without "--"), short name (without "-"),
 * value kind. */
typedef struct ks_nvcc_opt {
  const char *zLong;
  const char *zShort; /* NULL when nvcc has none */
  int eKind;
} ks_nvcc_opt;

/* The table (ends with a zero entry) and lookup by long or short name. */
const ks_nvcc_opt *ks_nvcc_opt_table(void);
const ks_nvcc_opt *ks_nvcc_opt_find(const char *zName);

/* Where a word of the command came from. */
enum {
  KS_NVCC_FROM_ARGV = 0,
  KS_NVCC_FROM_OPTF = 1,    /* an -optf / --options-file file */
  KS_NVCC_FROM_PREPEND = 2, /* NVCC_PREPEND_FLAGS */
  KS_NVCC_FROM_APPEND = 3   /* NVCC_APPEND_FLAGS */
};

/* What a parsed item is. */
enum {
  KS_NVCC_OPTION = 0,  /* a known option (pOpt set) */
  KS_NVCC_INPUT = 1,   /* an input file */
  KS_NVCC_UNKNOWN = 2  /* an option nvcc's table does not have */
};

typedef struct ks_nvcc_item {
  int eType;                /* KS_NVCC_OPTION / INPUT / UNKNOWN */
  int eOrigin;              /* KS_NVCC_FROM_* */
  int iArgv;                /* index into argv of its first word (-1 if not from argv) */
  int nWords;               /* words it took (2 for "-o f", 1 for "-o=f") */
  const ks_nvcc_opt *pOpt;  /* the option (KS_NVCC_OPTION) */
  char *zSpelling;          /* the option as written, without value ("-o", "--output-file") */
  char *zValue;             /* the value as written (NULL for flags and inputs) */
  char *zInput;             /* the input path (KS_NVCC_INPUT) */
  int bCudaSource;          /* input compiled as CUDA (.cu suffix, or after -x cu) */
} ks_nvcc_item;

/* One target of the compile: a real (SASS) or virtual (PTX) architecture. */
typedef struct ks_nvcc_target {
  char *zArch;  /* normalized "90", "90a", "100f" */
  int bReal;    /* 1: sm_XX code; 0: compute_XX (PTX) */
} ks_nvcc_target;

typedef struct ks_nvcc_cmd {
  ks_nvcc_item *a;          /* every item, in the order nvcc sees them */
  int n;
  /* classification */
  int *aiInputs;            /* indexes into a[] of the input files */
  int nInputs;
  const char *zOutput;      /* -o value, or NULL */
  const char *zOutputDir;   /* -odir value, or NULL */
  ks_nvcc_target *aTargets; /* target archs (from -arch, -code, -gencode) */
  int nTargets;
  int bArchGiven;           /* some arch option was given */
  int bArchSpecial;         /* -arch=native|all|all-major: the set is not known here */
  char *zArchSpecial;       /* that value (a copy the command owns) */
  /* phases and modes */
  int bCompile, bDeviceC, bPreprocess, bLink, bPtx, bCubin, bFatbin, bCuda;
  int bDryrun, bVerbose, bKeep;
  const char *zKeepDir;
  int bInfoOnly;            /* --version, --help, --list-gpu-arch, ...: no compile */
  /* dependency generation */
  int bDepOnly;             /* -M / -MM: dependencies instead of a compile */
  int bDepWithCompile;      /* -MD / -MMD */
  const char *zDepFile;     /* -MF value, or NULL */
  const char *zDepTarget;   /* -MT value, or NULL */
  int bForwardUnknown;      /* -forward-unknown-to-host-compiler / -opts */
  int nUnknown;             /* unknown options seen */
  /* problems the parser noticed (a missing value, an unreadable -optf file):
   * nvcc will report them itself; the drop-in only passes through. */
  char *zProblem;
} ks_nvcc_cmd;

typedef struct ks_nvcc_parse_opts {
  unsigned version;
  int bNoEnv;               /* ignore NVCC_PREPEND_FLAGS / NVCC_APPEND_FLAGS */
  const char *zPrepend;     /* use these instead of the environment (tests) */
  const char *zAppend;
  const char *zCwd;         /* relative -optf files are read from here (NULL: cwd) */
} ks_nvcc_parse_opts;

#define KS_NVCC_PARSE_OPTS_VERSION 1
#define KS_NVCC_PARSE_OPTS_INIT \
  {.version = KS_NVCC_PARSE_OPTS_VERSION, .bNoEnv = 0, .zPrepend = 0, .zAppend = 0, .zCwd = 0}

/* Parse argv[0..argc-1] (the arguments only, not the program name). Fails only
 * on out-of-memory; grammar problems go to pCmd->zProblem. */
int ks_nvcc_parse(int argc, char *const *argv, const ks_nvcc_parse_opts *pOpts, ks_nvcc_cmd **ppCmd);
void ks_nvcc_cmd_free(ks_nvcc_cmd *p);

/* Split a flags string the way nvcc splits NVCC_*_FLAGS and options files:
 * at white space, with '...' and "..." quoting and backslash escapes. */
int ks_nvcc_split_words(const char *z, char ***pazWords, int *pnWords);
void ks_nvcc_free_words(char **az, int n);

/* Split a list value at commas, keeping commas inside [...] and "..."
 * (for -gencode's code=[sm_90,compute_90]). */
int ks_nvcc_split_list(const char *zValue, char ***pazParts, int *pnParts);

/* Normalize an architecture name: "sm_90" / "compute_90" / "90" -> "90";
 * "sm_90a" -> "90a". *pbReal is 1 for sm_, 0 for compute_. NULL for names that
 * are not a single arch (native, all, all-major, ...). malloc'd. */
char *ks_nvcc_arch_normalize(const char *zName, int *pbReal);

/* The values of every occurrence of an option (by long name), comma lists
 * split, in order. The strings point into pCmd (free only the array). */
int ks_nvcc_values(const ks_nvcc_cmd *pCmd, const char *zLong, const char ***pazVals, int *pnVals);

/* The targets as text: "sm_90,compute_90" style, for messages (malloc'd). */
char *ks_nvcc_targets_text(const ks_nvcc_cmd *pCmd);
/* Does target i name the same arch as an earlier one (sm_90 and compute_90)?
 * A caller that asks one question per arch skips those. */
int ks_nvcc_target_repeats(const ks_nvcc_cmd *pCmd, int i);

/* The one allowlist of flags a `// kernelskill-flags:` line may carry (LLM
 * code, store entries, rewrite rules): code generation only (-O2/-O3,
 * --use_fast_math, -ftz/-prec-div/-prec-sqrt/-fmad=, -maxrregcount=N,
 * -arch=sm_XX, -Xptxas -O<n>/-v/-dlcm=, -lineinfo, --restrict, the task
 * format's vendor -l libraries). Never host-compiler selection, include paths
 * or pre-includes (also through -Xcompiler), plugins, options files or output
 * options. zPrev: the word before (for -Xptxas's value), or NULL. */
int ks_nvcc_flag_allowed(const char *zFlag, const char *zPrev);
/* Check a whole flags line: KS_OK, or KS_EINVAL with "WHERE: nvcc flag 'X' is
 * not allowed ..." appended to pWhy (may be NULL) for each refused word. */
int ks_nvcc_flags_check(const char *zFlags, const char *zWhere, ks_buf *pWhy);

/* A file name nvcc treats as CUDA source by its suffix (.cu). */
int ks_nvcc_is_cuda_source(const char *zPath);

#ifdef __cplusplus
}
#endif
#endif
