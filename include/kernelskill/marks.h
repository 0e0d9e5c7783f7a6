/* kernelskill/marks.h — the comment grammar KernelSkill writes into and reads
 * from CUDA sources (part of the common module):
 *
 *   // kernelskill: SKILL (rule R, round N) what       a provenance note
 *   // kernelskill-flags: -use_fast_math ...           nvcc flags the file needs
 *
 * A mark is a line whose first non-blank characters are the tag ("//", one
 * or more blanks, "kernelskill:" or "kernelskill-flags:"); its value is the
 * rest of the line with blanks (space, tab, CR) trimmed on both ends. One
 * reader (ks_mark_next) and one writer (ks_mark_write) keep that rule. */
#ifndef KERNELSKILL_MARKS_H
#define KERNELSKILL_MARKS_H

#include <stddef.h>

#include "kernelskill/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ks_mark_kind { KS_MARK_NOTE = 1, KS_MARK_FLAGS = 2, KS_MARK_ANY = 3 } ks_mark_kind;

typedef struct ks_mark {
  ks_mark_kind eKind;
  int iLine;          /* 1-based */
  size_t iStart;      /* offset of the line's first byte */
  size_t iEnd;        /* offset of its '\n' (or the end of the text) */
  const char *zValue; /* the trimmed value, inside the text (not NUL-terminated) */
  size_t nValue;
} ks_mark;

/* The next mark of a kind in eMask at or after the line starting at *piPos
 * of z[0..n). 1 and *pOut when found (*piPos moves past its line), 0 when
 * there is none. *piLine (may be NULL) counts lines: start it at 1 with
 * *piPos = 0. */
int ks_mark_next(const char *z, size_t n, unsigned eMask, size_t *piPos, int *piLine, ks_mark *pOut);
/* How many marks of kind e the text holds. */
int ks_mark_count(const char *z, size_t n, ks_mark_kind e);
/* The value of the first mark of kind e, malloc'd; NULL when there is none
 * (or no memory: then ks_error_msg() says so and *pbOom, if given, is 1). */
char *ks_mark_value(const char *z, size_t n, ks_mark_kind e, int *pbOom);
/* Does this mark's value start with zPrefix? */
int ks_mark_has_prefix(const ks_mark *p, const char *zPrefix);
/* Append "// kernelskill: VALUE" (or "// kernelskill-flags: VALUE") without
 * a newline; newlines in zValue become spaces (a mark is one line). */
int ks_mark_write(ks_buf *pOut, ks_mark_kind e, const char *zValue);

#ifdef __cplusplus
}
#endif
#endif
