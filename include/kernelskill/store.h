/* kernelskill/store.h — the verified-rewrite store: plain files under
 * `.kernelskill/store/` in the user's project (or $KS_STORE) that a user can
 * review and commit. One entry per (original file bytes, target arch): a
 * folder `<basename>.<hash16>.<sm_XX>/` holding entry.json (provenance and
 * the verification record), original.cu (the exact bytes it replaces),
 * optimized.cu (the verified version) and, when given, evidence.json.
 * docs/store.md describes the layout for users. */
#ifndef KERNELSKILL_STORE_H
#define KERNELSKILL_STORE_H

#include <stddef.h>

#include "kernelskill/common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KS_STORE_FORMAT 1

/* One entry, as read from its entry.json. */
typedef struct ks_store_entry {
  char *zDir;        /* the entry's folder */
  char *zName;       /* folder name: "saxpy.cu.0123456789abcdef.sm_90" */
  char *zOrigPath;   /* original file as recorded (relative to the project root, or absolute) */
  char *zOrigHash;   /* hash of the original bytes (16 hex) */
  char *zArch;       /* "sm_90" */
  char *zOptHash;    /* hash of optimized.cu as recorded */
  char *zFlags;      /* the optimized source's `// kernelskill-flags:` line, or NULL */
  char *zCreated;    /* ISO 8601 UTC */
  char *zJson;       /* entry.json text */
  char *zOptSrc;     /* after a lookup: the optimized.cu bytes it checked, or NULL */
  size_t nOptSrc;
} ks_store_entry;

typedef struct ks_store {
  char *zDir;        /* the store folder */
  char *zRoot;       /* the project root recorded paths are relative to, or NULL */
} ks_store;

/* Find the store: $KS_STORE when set (it must be a folder when it exists),
 * else the nearest `.kernelskill/store` found walking up from zStartDir.
 * KS_ENOTFOUND when there is none; KS_EINVAL when KS_STORE names a file.
 * With bCreate, a missing store is created ($KS_STORE, else zStartDir/.kernelskill/store). */
int ks_store_open(const char *zStartDir, int bCreate, ks_store **ppStore);
/* Open a given folder as the store (created with bCreate). */
int ks_store_open_dir(const char *zDir, int bCreate, ks_store **ppStore);
void ks_store_close(ks_store *p);

/* Hash of a file's bytes: 64-bit FNV-1a as 16 hex digits. */
void ks_store_hash(const char *z, size_t n, char azOut[17]);
/* "90" / "sm_90" / "compute_90" -> "sm_90" (malloc'd); NULL if not an arch. */
char *ks_store_arch_name(const char *zArch);

/* The entry for these original bytes (zBase = the file's base name) and arch.
 * KS_OK: found, original.cu equals the bytes, optimized.cu matches its
 * recorded hash. KS_ENOTFOUND: no entry. KS_EINVAL/KS_EPARSE/KS_EIO: the entry
 * exists but is damaged (message says what). */
int ks_store_lookup(const ks_store *p, const char *zBase, const char *zSrc, size_t nSrc, const char *zArch,
                    ks_store_entry **ppEntry);
/* The drop-in's decision: may these original bytes be compiled as the
 * entry's verified version for zArch? KS_OK only when ks_store_lookup finds
 * the entry intact AND its recorded evidence is present and consistent:
 * verification status "verified", evidence.json with the recorded hash, a
 * correctness pass, measured on this arch (gpu.cc), and optimized.cu's
 * kernelskill-flags line as recorded and on the one allowlist
 * (ks_nvcc_flags_check). The entry then holds the optimized bytes it checked
 * (zOptSrc/nOptSrc; ks_store_entry_optimized returns them): compile exactly
 * those. KS_ENOTFOUND: no entry. KS_EPRECOND: an entry exists but must not be
 * substituted (message says why: report it, compile the original). Other
 * negatives: damage, as ks_store_lookup. */
int ks_store_select(const ks_store *p, const char *zBase, const char *zSrc, size_t nSrc, const char *zArch,
                    ks_store_entry **ppEntry);
/* Entries whose recorded original path is zPath (compared after resolving
 * against the project root; zPath relative to the cwd), any hash, any arch. */
int ks_store_entries_for_path(const ks_store *p, const char *zPath, ks_store_entry ***papEntries, int *pnEntries);
/* Every entry, sorted by name. Damaged entries are skipped and counted in *pnBad. */
int ks_store_list(const ks_store *p, ks_store_entry ***papEntries, int *pnEntries, int *pnBad);
/* Find one entry by folder name, or by a unique prefix of it, or by
 * original path (when exactly one entry has it). */
int ks_store_find(const ks_store *p, const char *zKey, ks_store_entry **ppEntry);
int ks_store_entry_read(const char *zDir, ks_store_entry **ppEntry);
void ks_store_entry_free(ks_store_entry *p);
void ks_store_entries_free(ks_store_entry **ap, int n);
/* The verified source (malloc'd): the bytes a lookup kept, else read. */
int ks_store_entry_optimized(const ks_store_entry *p, char **pzSrc, size_t *pnSrc);
/* The original file as recorded, resolved against the project root (malloc'd). */
char *ks_store_entry_orig_abspath(const ks_store *p, const ks_store_entry *pE);

typedef struct ks_store_add_opts {
  unsigned version;
  const char *zOriginal;   /* the original .cu (its current bytes are the key) */
  const char *zOptimized;  /* the verified version */
  const char *zArch;       /* "sm_90" */
  const char *zEvidence;   /* `kernelskill bench --json` of the optimized version, or NULL */
  const char *zTask;       /* the task file (tolerances), or NULL */
  const char *zRunDir;     /* the optimize run it came from, or NULL */
  const char *zMadeBy;     /* "store add" / "optimize --commit" */
  int bForce;              /* replace an existing entry; accept evidence without a pass */
} ks_store_add_opts;

#define KS_STORE_ADD_OPTS_VERSION 1
#define KS_STORE_ADD_OPTS_INIT                                                                               \
  {.version = KS_STORE_ADD_OPTS_VERSION, .zOriginal = 0, .zOptimized = 0, .zArch = 0, .zEvidence = 0, .zTask = 0, \
   .zRunDir = 0, .zMadeBy = 0, .bForce = 0}

/* Write an entry (atomically per file; the folder appears complete or not at
 * all). KS_EINVAL if one exists and !bForce, or the evidence says the
 * optimized version did not pass. *ppEntry (may be NULL) gets the entry. */
int ks_store_add(const ks_store *p, const ks_store_add_opts *pOpts, ks_store_entry **ppEntry);
/* Read an optimize run folder's result.json (or that file itself) into add
 * options; the strings are malloc'd in *pazOwned (free with ks_store_run_free). */
int ks_store_read_run(const char *zRun, ks_store_add_opts *pOpts, char ***pazOwned);
void ks_store_run_free(char **azOwned);
int ks_store_remove(const ks_store_entry *p);

/* Check an entry: files present, hashes as recorded, entry.json well formed,
 * and whether the project's original still has the recorded bytes.
 * Appends "ok: ..." / "problem: ..." / "stale: ..." lines; *pnProblems counts
 * damage (a stale entry is not damage). *pbStale: the original changed or is gone. */
int ks_store_verify(const ks_store *p, const ks_store_entry *pE, ks_buf *pOut, int *pnProblems, int *pbStale);

/* The flags of a source's `// kernelskill-flags: ...` line (malloc'd), or NULL. */
char *ks_store_source_flags(const char *zSrc, size_t nSrc);

#ifdef __cplusplus
}
#endif
#endif
