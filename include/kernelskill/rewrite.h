/* kernelskill/rewrite.h — the offline Optimizer: deterministic source rewrites.
 * A rule reads the libclang AST of one kernel (and its launch sites), and
 * queues byte-range edits of the main file; the engine applies them, adds the
 * provenance comment, and leaves every other byte of the file as it was. */
#ifndef KERNELSKILL_REWRITE_H
#define KERNELSKILL_REWRITE_H

#include "kernelskill/common.h"
#include "kernelskill/features.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ks_rewrite ks_rewrite; /* one rule application in progress */

/* A rule. One per file lib/rewrite/rules/<id>.c defining `ks_rule_<id>` (dashes
 * become underscores); docs/rules/<id>.md and test/rewrite/<id>.cu go with it. */
typedef struct ks_rule {
  const char *zId;       /* "vectorize" */
  const char *zSummary;  /* one line */
  const char *const *azParams; /* accepted parameter names, NULL-terminated (may be NULL) */
  /* Check preconditions and queue edits through ks_rewrite_* calls. Returns
   * KS_OK (edits queued), KS_EPRECOND (message says which precondition failed),
   * KS_ENOCHANGE (already applied: message says so). */
  int (*xApply)(ks_rewrite *p);
} ks_rule;

/* The rule table (generated from lib/rewrite/rules/), NULL-terminated. */
extern const ks_rule *const ks_rule_table[];
const ks_rule *ks_rule_find(const char *zId);

typedef struct ks_rewrite_opts {
  unsigned version;
  const char *zKernel;   /* the kernel to rewrite (required) */
  const char *zRule;     /* rule id (required) */
  const char *const *azParams; /* "k=v" strings */
  int nParams;
  const char *zSkill;    /* skill id for the provenance comment (default: "rule:<id>") */
  int iRound;            /* loop round for the provenance comment (0: none) */
} ks_rewrite_opts;

#define KS_REWRITE_OPTS_VERSION 1
#define KS_REWRITE_OPTS_INIT {KS_REWRITE_OPTS_VERSION, 0, 0, 0, 0, 0, 0}

/* Apply one rule to the parsed file pTu. On KS_OK *pzOut (malloc'd) holds the
 * whole new file. KS_EPRECOND / KS_ENOCHANGE: nothing is produced, and
 * ks_error_msg() says why. */
int ks_rewrite_apply(ks_tu *pTu, const ks_rewrite_opts *pOpts, char **pzOut, size_t *pnOut);

/* The same with a rule given directly (tests, rules outside the table);
 * pOpts->zRule is not consulted. */
int ks_rewrite_apply_rule(ks_tu *pTu, const ks_rule *pRule, const ks_rewrite_opts *pOpts, char **pzOut,
                          size_t *pnOut);

/* ---- For rules (called from xApply) ---- */

ks_tu *ks_rewrite_tu(ks_rewrite *p);
const char *ks_rewrite_kernel_name(ks_rewrite *p);
const char *ks_rewrite_source(ks_rewrite *p, size_t *pnSrc);
/* A parameter's value, or zDefault when not given. */
const char *ks_rewrite_param(ks_rewrite *p, const char *zName, const char *zDefault);
/* Replace main-file bytes [iStart, iEnd) by zText (iStart == iEnd inserts).
 * Edits must not overlap; KS_EINVAL if they do. */
int ks_rewrite_replace(ks_rewrite *p, unsigned iStart, unsigned iEnd, const char *zText);
/* Put one provenance comment line above the line holding iOffset, with that
 * line's indentation:  // kernelskill: <skill> (rule <id>[, round N]) <zWhat>
 * (several notes above one line merge into one comment line). */
int ks_rewrite_note(ks_rewrite *p, unsigned iOffset, const char *zWhat);
/* Refuse: set the message and return KS_EPRECOND / KS_ENOCHANGE. */
int ks_rewrite_refuse(ks_rewrite *p, const char *zFmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
int ks_rewrite_already(ks_rewrite *p, const char *zFmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* ---- Additions for rules (engine helpers) ---- */

/* The rule being applied. */
const ks_rule *ks_rewrite_rule(ks_rewrite *p);
/* The provenance comment text for this application, without indentation or
 * newline: "// kernelskill: <skill> (rule <id>[, round N]) <zWhat>" (malloc'd).
 * For rules that insert whole new lines (helper functions) and write the
 * comment themselves. */
char *ks_rewrite_note_text(ks_rewrite *p, const char *zWhat);
/* Does main-file range [iStart, iEnd), or the comment lines directly above
 * iStart, hold a provenance comment of rule zRule (NULL: this rule)? Rules use
 * it for idempotence: "already applied" when their own note is there. */
int ks_rewrite_has_note(ks_rewrite *p, unsigned iStart, unsigned iEnd, const char *zRule);
/* Offset of the start of the line holding iOffset, and the length of that
 * line's leading whitespace (*pnIndent may be NULL). */
unsigned ks_rewrite_line_start(ks_rewrite *p, unsigned iOffset, unsigned *pnIndent);
/* Offset of the first of the `//` comment lines directly above the line
 * holding iOffset (a kernel's notes and doc comment), or of that line itself
 * when there are none. */
unsigned ks_rewrite_comments_above(ks_rewrite *p, unsigned iOffset);
/* Does main-file range [iStart, iEnd) lie partly inside a macro use (not
 * holding it whole)? ks_rewrite_replace refuses such edits itself; rules that
 * copy source text between ranges ask first. */
int ks_rewrite_in_macro(ks_rewrite *p, unsigned iStart, unsigned iEnd);
/* Number of edits queued so far (notes not counted). */
int ks_rewrite_edit_count(ks_rewrite *p);

/* A unified diff (---/+++ headers naming zPath) between two texts. */
int ks_rewrite_diff(const char *zPath, const char *zOld, size_t nOld, const char *zNew, size_t nNew, ks_buf *pOut);

#ifdef __cplusplus
}
#endif
#endif
