/* kernelskill/journal.h — short-term memory: the per-task journal, JSON Lines,
 * one object per line, append-only and fsync'd, plus the source hash that ties
 * journal records to a version of a kernel's source. The loop extends the
 * record vocabulary; this module knows the "candidate" records the planner
 * filters on and keeps every other record as raw JSON. */
#ifndef KERNELSKILL_JOURNAL_H
#define KERNELSKILL_JOURNAL_H

#include <stddef.h>

#include "kernelskill/common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KS_JOURNAL_FORMAT 1

/* The source hash: 64-bit FNV-1a over the source text with trailing
 * whitespace removed from each line and CRLF read as LF, then one NUL byte,
 * then zFlags (NULL = ""). Written as 16 lower-case hex digits + NUL. */
void ks_journal_hash(const char *zSrc, size_t nSrc, const char *zFlags, char azOut[17]);

/* One journal record. Fields absent from the line are NULL / 0; zJson is the
 * whole line as read (for fields this module does not know). */
typedef struct ks_journal_entry {
  int iLine;          /* line number in the file */
  char *zEvent;       /* "candidate", ... */
  int iRound;
  char *zParent, *zHash;
  char *zSkill, *zRule;
  char *zVerdict;     /* accepted | slower | noise | compile_error | wrong_result |
                         runtime_error | timeout | refused */
  int bHasSpeedup;
  double rSpeedup;
  char *zReason;
  char *zJson;
} ks_journal_entry;

typedef struct ks_journal {
  ks_journal_entry *a;
  int n;
  char *zPath;
  int bTornTail;      /* the last line had no newline and did not parse: ignored */
} ks_journal;

/* The verdicts a candidate record may carry (NULL-terminated). */
const char *const *ks_journal_verdicts(void);

/* Read a journal. A missing file is an empty journal. A malformed line is
 * KS_EPARSE "path:line: ..." except an unterminated last line (a write cut
 * short by a crash), which is skipped and flagged in bTornTail. */
int ks_journal_read(const char *zPath, ks_journal **ppJournal);
void ks_journal_free(ks_journal *p);

/* Append one record: zJson must be one JSON object with "ks_journal": 1 and
 * an "event"; it is written compactly as one line with a single write() on
 * an O_APPEND descriptor, then fsync'd. */
int ks_journal_append(const char *zPath, const char *zJson);

/* Build and append a candidate record from the entry's fields (iLine and
 * zJson are ignored; azParams are "k=v", may be NULL). */
int ks_journal_append_candidate(const char *zPath, const ks_journal_entry *pEntry,
                                const char *const *azParams, int nParams);


/* ---- The loop's records (kernelskill optimize, docs/optimize.md) ----
 * Besides "candidate": "start" (task, seed hash, budget), "review" (round 0:
 * the seed), "plan" (round, parent, ranked skills with reasons, the chosen
 * skill and its sweep), "decision" (round, parent, best after the round),
 * "stop" (why the loop ended), "final" (best against the seed); and "tuned"
 * (a sweep winner, in the tuning memory's file: loop.h ks_tuning_record). */
const char *const *ks_journal_events(void);

/* Members of a record's JSON that this module does not keep as fields.
 * number: KS_OK, or KS_ENOTFOUND when absent or not a number; string and
 * member (any JSON value as text) are malloc'd, NULL when absent. */
int ks_journal_entry_number(const ks_journal_entry *e, const char *zKey, double *pr);
char *ks_journal_entry_string(const ks_journal_entry *e, const char *zKey);
char *ks_journal_entry_member(const ks_journal_entry *e, const char *zKey);

/* Index of the last record with event zEvent, round iRound (< 0: any) and
 * hash zHash (NULL: any); -1 when there is none. */
int ks_journal_find(const ks_journal *p, const char *zEvent, int iRound, const char *zHash);

/* The loop's invariants: no candidate hash evaluated twice (a "refused"
 * candidate was not evaluated), and no (skill, params) retried on the same
 * parent after it failed. Each problem is appended to pOut as
 * "path:line: ..."; returns the number of problems. */
int ks_journal_check(const ks_journal *p, ks_buf *pOut);

#ifdef __cplusplus
}
#endif
#endif
