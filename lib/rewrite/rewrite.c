/* rewrite.c — the rewrite engine: runs one rule on a parsed file, collects the
 * byte-range edits and provenance notes it queues, checks that they do not
 * overlap, and splices them into a copy of the source. Every byte outside the
 * queued ranges comes out as it went in. */
#include "features/ast.h"
#include "features/shape.h"
#include "kernelskill/rewrite.h"
#include "rewrite/blockdim.h"
#include "rewrite/instcopy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct rw_edit {
  unsigned iStart, iEnd;
  char *zText;
  int iSeq;   /* queue order, to keep insertions at one point in order */
  int bNote;  /* a provenance comment line (goes before edits at the same offset) */
} rw_edit;

typedef struct rw_note {
  unsigned iOffset;
  char *zWhat;
} rw_note;

struct ks_rewrite {
  ks_tu *pTu;
  const ks_rewrite_opts *pOpts;
  const ks_rule *pRule;
  rw_edit *aEdit;
  int nEdit, nEditAlloc;
  rw_note *aNote;
  int nNote, nNoteAlloc;
  int nSeq;
  unsigned *aMacro; /* main-file macro expansions [start, end) pairs, sorted; computed on first use */
  int nMacro;
  int bMacroDone;
};

const ks_rule *ks_rule_find(const char *zId) {
  if (!zId) return NULL;
  for (int i = 0; ks_rule_table[i]; i++)
    if (strcmp(ks_rule_table[i]->zId, zId) == 0) return ks_rule_table[i];
  return NULL;
}

ks_tu *ks_rewrite_tu(ks_rewrite *p) { return p->pTu; }
const char *ks_rewrite_kernel_name(ks_rewrite *p) { return p->pOpts->zKernel; }
const ks_rule *ks_rewrite_rule(ks_rewrite *p) { return p->pRule; }
int ks_rewrite_edit_count(ks_rewrite *p) { return p->nEdit; }

const char *ks_rewrite_source(ks_rewrite *p, size_t *pnSrc) {
  if (pnSrc) *pnSrc = p->pTu->nSrc;
  return p->pTu->zSrc;
}

const char *ks_rewrite_param(ks_rewrite *p, const char *zName, const char *zDefault) {
  size_t n = strlen(zName);
  const char *zVal = zDefault;
  /* The last k=v given wins, as on a command line. */
  for (int i = 0; i < p->pOpts->nParams; i++) {
    const char *z = p->pOpts->azParams[i];
    if (z && strncmp(z, zName, n) == 0 && z[n] == '=') zVal = z + n + 1;
  }
  return zVal;
}

static int edits_overlap(const rw_edit *a, unsigned iStart, unsigned iEnd) {
  if (iStart == iEnd) return a->iStart < iStart && iStart < a->iEnd; /* insertion inside a replacement */
  if (a->iStart == a->iEnd) return iStart < a->iStart && a->iStart < iEnd;
  return iStart < a->iEnd && a->iStart < iEnd;
}

static int push_edit(ks_rewrite *p, unsigned iStart, unsigned iEnd, char *zText, int bNote) {
  if (p->nEdit == p->nEditAlloc) {
    int nNew = p->nEditAlloc ? p->nEditAlloc * 2 : 16;
    rw_edit *a = realloc(p->aEdit, sizeof(rw_edit) * (size_t)nNew);
    if (!a) {
      free(zText);
      return ks_error_set(KS_ENOMEM, "out of memory");
    }
    p->aEdit = a;
    p->nEditAlloc = nNew;
  }
  rw_edit *e = &p->aEdit[p->nEdit++];
  e->iStart = iStart;
  e->iEnd = iEnd;
  e->zText = zText;
  e->iSeq = p->nSeq++;
  e->bNote = bNote;
  return KS_OK;
}

/* The macro expansion [ms, me) that range [iStart, iEnd) lies partly inside,
 * or -1. A range that holds the whole use is not inside it; an insertion is
 * inside when it falls strictly between the macro's first and last byte. */
static int macro_conflict(ks_rewrite *p, unsigned iStart, unsigned iEnd) {
  if (!p->bMacroDone) {
    p->bMacroDone = 1;
    ks_shape_macro_ranges(p->pTu, &p->aMacro, &p->nMacro);
  }
  for (int i = 0; i < p->nMacro; i++) {
    unsigned ms = p->aMacro[2 * i], me = p->aMacro[2 * i + 1];
    if (iStart == iEnd) {
      if (ms < iStart && iStart < me) return i;
    } else if (iStart < me && ms < iEnd && !(iStart <= ms && me <= iEnd)) {
      return i;
    }
  }
  return -1;
}

int ks_rewrite_in_macro(ks_rewrite *p, unsigned iStart, unsigned iEnd) { return macro_conflict(p, iStart, iEnd) >= 0; }

static int refuse_macro(ks_rewrite *p, int iMacro, unsigned iAt) {
  unsigned iLine, iCol;
  unsigned ms = p->aMacro[2 * iMacro], me = p->aMacro[2 * iMacro + 1];
  ks_ast_line_col(p->pTu, iAt, &iLine, &iCol);
  return ks_rewrite_refuse(p, "%s:%u:%u: the edit lies inside the expansion of macro use '%.*s'; the engine edits "
                              "macro uses only as a whole",
                           p->pTu->zFile, iLine, iCol, (int)(me - ms > 60 ? 60 : me - ms), p->pTu->zSrc + ms);
}

int ks_rewrite_replace(ks_rewrite *p, unsigned iStart, unsigned iEnd, const char *zText) {
  if (iEnd < iStart || iEnd > p->pTu->nSrc)
    return ks_error_set(KS_EINVAL, "rule %s: edit [%u, %u) outside the file (%zu bytes)", p->pRule->zId, iStart,
                        iEnd, p->pTu->nSrc);
  int iMacro = macro_conflict(p, iStart, iEnd);
  if (iMacro >= 0) return refuse_macro(p, iMacro, iStart);
  for (int i = 0; i < p->nEdit; i++) {
    if (edits_overlap(&p->aEdit[i], iStart, iEnd)) {
      unsigned iLine, iCol;
      ks_ast_line_col(p->pTu, iStart, &iLine, &iCol);
      return ks_error_set(KS_EINVAL, "%s:%u:%u: rule %s: edit [%u, %u) overlaps an earlier edit [%u, %u)",
                          p->pTu->zFile, iLine, iCol, p->pRule->zId, iStart, iEnd, p->aEdit[i].iStart,
                          p->aEdit[i].iEnd);
    }
  }
  char *z = ks_strdup(zText ? zText : "");
  if (!z) return KS_ENOMEM;
  return push_edit(p, iStart, iEnd, z, 0);
}

int ks_rewrite_note(ks_rewrite *p, unsigned iOffset, const char *zWhat) {
  if (iOffset > p->pTu->nSrc) return ks_error_set(KS_EINVAL, "rule %s: note at %u outside the file", p->pRule->zId, iOffset);
  if (p->nNote == p->nNoteAlloc) {
    int nNew = p->nNoteAlloc ? p->nNoteAlloc * 2 : 8;
    rw_note *a = realloc(p->aNote, sizeof(rw_note) * (size_t)nNew);
    if (!a) return ks_error_set(KS_ENOMEM, "out of memory");
    p->aNote = a;
    p->nNoteAlloc = nNew;
  }
  char *z = ks_strdup(zWhat ? zWhat : "");
  if (!z) return KS_ENOMEM;
  p->aNote[p->nNote].iOffset = iOffset;
  p->aNote[p->nNote].zWhat = z;
  p->nNote++;
  return KS_OK;
}

static int refuse_v(ks_rewrite *p, int rc, const char *zFmt, va_list ap) {
  ks_buf b = KS_BUF_INIT;
  ks_buf_printf(&b, "rule %s, kernel %s: ", p->pRule->zId, p->pOpts->zKernel);
  ks_buf_vprintf(&b, zFmt, ap);
  ks_error_set(rc, "%s", ks_buf_cstr(&b));
  ks_buf_free(&b);
  return rc;
}

int ks_rewrite_refuse(ks_rewrite *p, const char *zFmt, ...) {
  va_list ap;
  va_start(ap, zFmt);
  int rc = refuse_v(p, KS_EPRECOND, zFmt, ap);
  va_end(ap);
  return rc;
}

int ks_rewrite_already(ks_rewrite *p, const char *zFmt, ...) {
  va_list ap;
  va_start(ap, zFmt);
  int rc = refuse_v(p, KS_ENOCHANGE, zFmt, ap);
  va_end(ap);
  return rc;
}

unsigned ks_rewrite_line_start(ks_rewrite *p, unsigned iOffset, unsigned *pnIndent) {
  const char *z = p->pTu->zSrc;
  if (iOffset > p->pTu->nSrc) iOffset = (unsigned)p->pTu->nSrc;
  unsigned i = iOffset;
  while (i > 0 && z[i - 1] != '\n') i--;
  if (pnIndent) {
    unsigned j = i;
    while (j < p->pTu->nSrc && (z[j] == ' ' || z[j] == '\t')) j++;
    *pnIndent = j - i;
  }
  return i;
}

char *ks_rewrite_note_text(ks_rewrite *p, const char *zWhat) {
  ks_buf b = KS_BUF_INIT;
  const char *zSkill = p->pOpts->zSkill;
  int rc = ks_buf_puts(&b, "// kernelskill: ");
  if (rc == KS_OK) rc = zSkill && zSkill[0] ? ks_buf_puts(&b, zSkill) : ks_buf_printf(&b, "rule:%s", p->pRule->zId);
  if (rc == KS_OK) rc = ks_buf_printf(&b, " (rule %s", p->pRule->zId);
  if (rc == KS_OK && p->pOpts->iRound > 0) rc = ks_buf_printf(&b, ", round %d", p->pOpts->iRound);
  if (rc == KS_OK) rc = ks_buf_puts(&b, ")");
  if (rc == KS_OK && zWhat && zWhat[0]) rc = ks_buf_printf(&b, " %s", zWhat);
  if (rc < 0) {
    ks_buf_free(&b);
    return NULL;
  }
  /* A comment must stay on one line. */
  for (size_t i = 0; i < b.n; i++)
    if (b.z[i] == '\n' || b.z[i] == '\r') b.z[i] = ' ';
  return ks_buf_detach(&b);
}

/* Does line [i, iEnd) hold "// kernelskill: ... (rule ID" ? */
static int line_has_note(const char *z, unsigned i, unsigned iEnd, const char *zRule) {
  static const char zTag[] = "// kernelskill: ";
  size_t nTag = sizeof zTag - 1;
  char zNeedle[128];
  snprintf(zNeedle, sizeof zNeedle, "(rule %s", zRule);
  size_t nNeedle = strlen(zNeedle);
  for (; i + nTag <= iEnd; i++) {
    if (memcmp(z + i, zTag, nTag) != 0) continue;
    for (unsigned j = i + (unsigned)nTag; j + nNeedle <= iEnd; j++) {
      if (memcmp(z + j, zNeedle, nNeedle) == 0 && (z[j + nNeedle] == ')' || z[j + nNeedle] == ',')) return 1;
    }
    return 0;
  }
  return 0;
}

int ks_rewrite_has_note(ks_rewrite *p, unsigned iStart, unsigned iEnd, const char *zRule) {
  const char *z = p->pTu->zSrc;
  if (!zRule) zRule = p->pRule->zId;
  if (iEnd > p->pTu->nSrc) iEnd = (unsigned)p->pTu->nSrc;
  /* The comment lines directly above the range (a kernel's notes sit above
   * its first line), then the range's own lines. */
  for (unsigned i = ks_rewrite_comments_above(p, iStart); i < iEnd;) {
    unsigned j = i;
    while (j < p->pTu->nSrc && z[j] != '\n') j++;
    if (line_has_note(z, i, j, zRule)) return 1;
    i = j + 1;
  }
  return 0;
}

unsigned ks_rewrite_comments_above(ks_rewrite *p, unsigned iOffset) {
  const char *z = p->pTu->zSrc;
  unsigned iLine = ks_rewrite_line_start(p, iOffset, NULL);
  while (iLine > 0) {
    unsigned iPrev = ks_rewrite_line_start(p, iLine - 1, NULL), k = iPrev;
    while (k < iLine && (z[k] == ' ' || z[k] == '\t')) k++;
    if (k + 1 >= iLine || z[k] != '/' || z[k + 1] != '/') break;
    iLine = iPrev;
  }
  return iLine;
}

/* Turn the notes into comment-line insertions: one line per line start,
 * several notes there merged with "; " (duplicates dropped). */
static int notes_to_edits(ks_rewrite *p) {
  const char *z = p->pTu->zSrc;
  int rc = KS_OK;
  int nPlain = p->nEdit;
  unsigned *aAt = calloc((size_t)p->nNote + 1, sizeof(unsigned));
  if (!aAt) return ks_error_set(KS_ENOMEM, "out of memory");
  for (int i = 0; i < p->nNote; i++) {
    unsigned iAt = ks_rewrite_line_start(p, p->aNote[i].iOffset, NULL);
    /* A line start inside a replaced range moves up to that edit's line. */
    for (int bMoved = 1; bMoved;) {
      bMoved = 0;
      for (int k = 0; k < nPlain; k++) {
        rw_edit *e = &p->aEdit[k];
        if (e->iStart < iAt && iAt < e->iEnd) {
          iAt = ks_rewrite_line_start(p, e->iStart, NULL);
          bMoved = 1;
        }
      }
    }
    aAt[i] = iAt;
  }
  for (int i = 0; i < p->nNote; i++) {
    int bSeen = 0;
    for (int k = 0; k < i; k++) bSeen |= aAt[k] == aAt[i];
    if (bSeen) continue;
    ks_buf what = KS_BUF_INIT;
    for (int k = i; k < p->nNote; k++) {
      if (aAt[k] != aAt[i]) continue;
      int bDup = 0;
      for (int m = i; m < k; m++)
        if (aAt[m] == aAt[i] && strcmp(p->aNote[m].zWhat, p->aNote[k].zWhat) == 0) bDup = 1;
      if (bDup || !p->aNote[k].zWhat[0]) continue;
      if (what.n) ks_buf_puts(&what, "; ");
      ks_buf_puts(&what, p->aNote[k].zWhat);
    }
    char *zNote = ks_rewrite_note_text(p, ks_buf_cstr(&what));
    ks_buf_free(&what);
    if (!zNote) {
      rc = ks_error_set(KS_ENOMEM, "out of memory");
      break;
    }
    unsigned nIndent = 0;
    ks_rewrite_line_start(p, aAt[i], &nIndent);
    ks_buf line = KS_BUF_INIT;
    ks_buf_append(&line, z + aAt[i], nIndent);
    ks_buf_puts(&line, zNote);
    ks_buf_puts(&line, "\n");
    free(zNote);
    char *zLine = ks_buf_detach(&line);
    if (!zLine) {
      rc = ks_error_set(KS_ENOMEM, "out of memory");
      break;
    }
    if ((rc = push_edit(p, aAt[i], aAt[i], zLine, 1)) < 0) break;
  }
  free(aAt);
  return rc;
}

static int cmp_edit(const void *pA, const void *pB) {
  const rw_edit *a = pA, *b = pB;
  if (a->iStart != b->iStart) return a->iStart < b->iStart ? -1 : 1;
  /* At one offset: notes, then insertions, then the replacement. */
  if (a->bNote != b->bNote) return a->bNote ? -1 : 1;
  int aIns = a->iStart == a->iEnd, bIns = b->iStart == b->iEnd;
  if (aIns != bIns) return aIns ? -1 : 1;
  return a->iSeq < b->iSeq ? -1 : a->iSeq > b->iSeq;
}

static void free_state(ks_rewrite *p) {
  for (int i = 0; i < p->nEdit; i++) free(p->aEdit[i].zText);
  free(p->aEdit);
  for (int i = 0; i < p->nNote; i++) free(p->aNote[i].zWhat);
  free(p->aNote);
  free(p->aMacro);
}

/* After the rule ran: an insertion at the first byte of a macro use that is
 * not a whole line and not half of a wrap of the use (an insertion at its
 * end too) meant a place inside the expansion, which the expansion location
 * collapsed onto the macro's name (`__restrict__` three times before a
 * parameter-list macro). So is any repeated insertion at one macro start. */
static int check_macro_inserts(ks_rewrite *p) {
  if (!p->bMacroDone) {
    p->bMacroDone = 1;
    ks_shape_macro_ranges(p->pTu, &p->aMacro, &p->nMacro);
  }
  for (int m = 0; m < p->nMacro; m++) {
    unsigned ms = p->aMacro[2 * m], me = p->aMacro[2 * m + 1];
    int nAt = 0, bWrap = 0, bBad = 0;
    for (int i = 0; i < p->nEdit; i++) {
      rw_edit *e = &p->aEdit[i];
      if (e->iStart == me && e->iEnd == me) bWrap = 1;
      if (e->iStart != ms || e->iEnd != ms) continue;
      size_t n = strlen(e->zText);
      if (n && e->zText[n - 1] == '\n') continue; /* a line above the use */
      nAt++;
      bBad = 1;
    }
    if (bBad && (nAt > 1 || !bWrap)) return refuse_macro(p, m, ms);
  }
  return KS_OK;
}

static int check_params(const ks_rule *pRule, const ks_rewrite_opts *pOpts) {
  for (int i = 0; i < pOpts->nParams; i++) {
    const char *z = pOpts->azParams[i];
    const char *zEq = z ? strchr(z, '=') : NULL;
    if (!zEq || zEq == z)
      return ks_error_set(KS_EUSAGE, "rule %s: parameter '%s' is not of the form name=value", pRule->zId, z ? z : "");
    int bKnown = 0;
    for (int k = 0; pRule->azParams && pRule->azParams[k]; k++) {
      size_t n = strlen(pRule->azParams[k]);
      if ((size_t)(zEq - z) == n && strncmp(z, pRule->azParams[k], n) == 0) bKnown = 1;
    }
    if (!bKnown) {
      ks_buf b = KS_BUF_INIT;
      for (int k = 0; pRule->azParams && pRule->azParams[k]; k++)
        ks_buf_printf(&b, "%s%s", k ? ", " : "", pRule->azParams[k]);
      ks_error_set(KS_EUSAGE, "rule %s has no parameter '%.*s' (accepted: %s)", pRule->zId, (int)(zEq - z), z,
                   b.n ? b.z : "none");
      ks_buf_free(&b);
      return KS_EUSAGE;
    }
  }
  return KS_OK;
}

int ks_rewrite_apply(ks_tu *pTu, const ks_rewrite_opts *pOpts, char **pzOut, size_t *pnOut) {
  *pzOut = NULL;
  if (pnOut) *pnOut = 0;
  if (!pOpts || pOpts->version != KS_REWRITE_OPTS_VERSION)
    return ks_error_set(KS_EUSAGE, "ks_rewrite_opts: unsupported version %u", pOpts ? pOpts->version : 0);
  if (!pOpts->zRule) return ks_error_set(KS_EUSAGE, "rewrite: a rule is required");
  const ks_rule *pRule = ks_rule_find(pOpts->zRule);
  if (!pRule) return ks_error_set(KS_ENOTFOUND, "no rewrite rule '%s' (see 'kernelskill rewrite --list')", pOpts->zRule);
  return ks_rewrite_apply_rule(pTu, pRule, pOpts, pzOut, pnOut);
}

static int apply_once(ks_tu *pTu, const ks_rule *pRule, const ks_rewrite_opts *pOpts, char **pzOut,
                      size_t *pnOut);
static int apply_norm(ks_tu *pTu, const ks_rule *pRule, const ks_rewrite_opts *pOpts, char **pzOut, size_t *pnOut);

/* Run the rule on zSrc (the file with an engine's edit: a template's copy,
 * a constant read as blockDim; bNorm: the copy may get the second too), then
 * parse pTu back to its own text. */
static int apply_on(ks_tu *pTu, const char *zSrc, size_t nSrc, int bNorm, const ks_rule *pRule,
                    const ks_rewrite_opts *pOpts, char **pzOut, size_t *pnOut) {
  size_t nOrig = pTu->nSrc;
  char *zOrig = malloc(nOrig + 1);
  if (!zOrig) return ks_error_set(KS_ENOMEM, "out of memory");
  memcpy(zOrig, pTu->zSrc, nOrig);
  int rc = ks_tu_reparse(pTu, zSrc, nSrc);
  if (rc >= 0) rc = bNorm ? apply_norm(pTu, pRule, pOpts, pzOut, pnOut) : apply_once(pTu, pRule, pOpts, pzOut, pnOut);
  char *zMsg = ks_strdup(ks_error_msg());
  int rcBack = ks_tu_reparse(pTu, zOrig, nOrig);
  if (rcBack < 0 && rc >= 0) {
    free(*pzOut);
    *pzOut = NULL;
    rc = rcBack;
  } else if (zMsg && rc < 0) {
    ks_error_set(rc, "%s", zMsg); /* the reparse cleared it */
  }
  free(zMsg);
  free(zOrig);
  return rc;
}

/* The rule refused kernel template zKernel: run it on the instantiation the
 * file launches, copied as a kernel of its own (instcopy.c). The first refusal
 * stands when there is no such copy or the rule refuses it too (both
 * reasons are given); pTu is parsed back to its own text afterwards. */
static int apply_mono(ks_tu *pTu, const ks_rule *pRule, const ks_rewrite_opts *pOpts, char **pzOut, size_t *pnOut) {
  char *zFirst = ks_strdup(ks_error_msg());
  ks_buf note = KS_BUF_INIT;
  ks_instcopy m;
  /* not "(rule ID)": the copy is not yet the rule's work (ks_rewrite_has_note) */
  if (pOpts->zSkill) ks_buf_printf(&note, "%s (copy for rule %s)", pOpts->zSkill, pRule->zId);
  else ks_buf_printf(&note, "rule:%s (copy for rule %s)", pRule->zId, pRule->zId);
  int rc = ks_rewrite_instcopy(pTu, pOpts->zKernel, ks_buf_cstr(&note), &m);
  if (rc == KS_EPRECOND) {
    ks_error_set(KS_EPRECOND, "%s (and %s)", zFirst, ks_error_msg());
    goto done;
  }
  if (rc < 0) goto done;
  ks_rewrite_opts o = *pOpts;
  o.zKernel = m.zKernel;
  rc = apply_on(pTu, m.zSrc, m.nSrc, 1, pRule, &o, pzOut, pnOut);
  if (rc == KS_EPARSE) { /* the copy itself: a bug of ours, or a template only its use checks */
    char *zWhy = ks_rewrite_instcopy_lines(&m, pTu->zFile, ks_error_msg());
    rc = ks_error_set(KS_EPRECOND, "%s (and the copy of %s<%s> does not parse: %s)", zFirst, pOpts->zKernel, m.zInst,
                      zWhy ? zWhy : "");
    free(zWhy);
  } else if (rc == KS_EPRECOND) {
    char *zSecond = ks_rewrite_instcopy_lines(&m, pTu->zFile, ks_error_msg());
    ks_error_set(KS_EPRECOND, "%s; and on %s<%s> as a kernel of its own: %s", zFirst, pOpts->zKernel, m.zInst,
                 zSecond ? zSecond : "");
    free(zSecond);
  }
done:
  free(zFirst);
  ks_buf_free(&note);
  ks_rewrite_instcopy_free(&m);
  return rc;
}

/* The rule refused a kernel whose indices write the block size as a
 * constant: run it with the constant read as blockDim where every launch
 * proves them equal (blockdim.c). The first refusal stands when that does
 * not apply (with the reason, where one product was found) or the rule
 * refuses again (both reasons). */
static int apply_blockdim(ks_tu *pTu, const ks_rule *pRule, const ks_rewrite_opts *pOpts, char **pzOut,
                          size_t *pnOut) {
  char *zFirst = ks_strdup(ks_error_msg());
  ks_blockdim b;
  ks_error_clear(); /* a product found but refused sets a reason; none found, none */
  int rc = ks_rewrite_blockdim(pTu, pOpts->zKernel, &b);
  if (rc == KS_EPRECOND) {
    if (*ks_error_msg()) ks_error_set(KS_EPRECOND, "%s (and the block index's constant cannot be read as blockDim: %s)",
                                      zFirst, ks_error_msg());
    else ks_error_set(KS_EPRECOND, "%s", zFirst);
  } else if (rc >= 0) {
    char *zWhat = ks_strdup(b.zWhat);
    rc = apply_on(pTu, b.zSrc, b.nSrc, 0, pRule, pOpts, pzOut, pnOut);
    if (rc == KS_EPRECOND) ks_error_set(KS_EPRECOND, "%s; and with %s: %s", zFirst, zWhat, ks_error_msg());
    free(zWhat);
  }
  free(zFirst);
  ks_rewrite_blockdim_free(&b);
  return rc;
}

int ks_rewrite_apply_rule(ks_tu *pTu, const ks_rule *pRule, const ks_rewrite_opts *pOpts, char **pzOut,
                          size_t *pnOut) {
  /* a template an earlier rewrite copied: its launched instantiation is the copy now */
  char *zCopy = pOpts && pOpts->zKernel && !pTu->bBorrowed ? ks_rewrite_instcopy_existing(pTu, pOpts->zKernel) : NULL;
  if (zCopy) {
    ks_rewrite_opts o = *pOpts;
    o.zKernel = zCopy;
    int rc = apply_norm(pTu, pRule, &o, pzOut, pnOut);
    free(zCopy);
    return rc;
  }
  int rc = apply_norm(pTu, pRule, pOpts, pzOut, pnOut);
  /* a rule that reads concrete kernels refuses a template: offer it the one instantiation launched */
  if (rc == KS_EPRECOND && !pTu->bBorrowed && pOpts && pOpts->zKernel &&
      clang_getCursorKind(ks_ast_find_kernel(pTu, pOpts->zKernel)) == CXCursor_FunctionTemplate)
    rc = apply_mono(pTu, pRule, pOpts, pzOut, pnOut);
  return rc;
}

/* The rule on the kernel as written; where it refuses a kernel (not a
 * template) whose indices name the block size as a constant, on those read
 * as blockDim. */
static int apply_norm(ks_tu *pTu, const ks_rule *pRule, const ks_rewrite_opts *pOpts, char **pzOut, size_t *pnOut) {
  int rc = apply_once(pTu, pRule, pOpts, pzOut, pnOut);
  if (rc == KS_EPRECOND && !pTu->bBorrowed && pOpts && pOpts->zKernel &&
      clang_getCursorKind(ks_ast_find_kernel(pTu, pOpts->zKernel)) == CXCursor_FunctionDecl)
    rc = apply_blockdim(pTu, pRule, pOpts, pzOut, pnOut);
  return rc;
}

static int apply_once(ks_tu *pTu, const ks_rule *pRule, const ks_rewrite_opts *pOpts, char **pzOut,
                      size_t *pnOut) {
  *pzOut = NULL;
  if (pnOut) *pnOut = 0;
  if (!pOpts || pOpts->version != KS_REWRITE_OPTS_VERSION)
    return ks_error_set(KS_EUSAGE, "ks_rewrite_opts: unsupported version %u", pOpts ? pOpts->version : 0);
  if (!pOpts->zKernel) return ks_error_set(KS_EUSAGE, "rewrite: a kernel is required");
  int rc = check_params(pRule, pOpts);
  if (rc < 0) return rc;
  if (pTu->nError > 0) {
    for (int i = 0; i < pTu->nDiag; i++) {
      ks_diag *d = &pTu->aDiag[i];
      if (d->bError)
        return ks_error_set(KS_EPARSE, "%s:%u:%u: the file has errors (%s); not rewriting it", d->zFile, d->iLine,
                            d->iCol, d->zMsg);
    }
    return ks_error_set(KS_EPARSE, "%s: the file has errors; not rewriting it", pTu->zFile);
  }
  if (clang_Cursor_isNull(ks_ast_find_kernel(pTu, pOpts->zKernel)))
    return ks_error_set(KS_ENOTFOUND, "%s: no kernel named '%s'", pTu->zFile, pOpts->zKernel);

  ks_rewrite rw;
  memset(&rw, 0, sizeof rw);
  rw.pTu = pTu;
  rw.pOpts = pOpts;
  rw.pRule = pRule;
  ks_buf out = KS_BUF_INIT;
  ks_error_clear();
  rc = pRule->xApply(&rw);
  if (rc < 0) goto done;
  if (rw.nEdit == 0) {
    rc = ks_error_set(KS_ENOCHANGE, "rule %s, kernel %s: nothing to change", pRule->zId, pOpts->zKernel);
    goto done;
  }
  if ((rc = check_macro_inserts(&rw)) < 0) goto done;
  if ((rc = notes_to_edits(&rw)) < 0) goto done;
  qsort(rw.aEdit, (size_t)rw.nEdit, sizeof(rw_edit), cmp_edit);
  size_t iPos = 0;
  for (int i = 0; i < rw.nEdit && rc == KS_OK; i++) {
    rw_edit *e = &rw.aEdit[i];
    if (e->iStart < iPos) { /* cannot happen after the checks; guard against a bug */
      rc = ks_error_set(KS_ERROR, "rule %s: edits out of order at %u", pRule->zId, e->iStart);
      break;
    }
    if ((rc = ks_buf_append(&out, pTu->zSrc + iPos, e->iStart - iPos)) < 0) break;
    if ((rc = ks_buf_puts(&out, e->zText)) < 0) break;
    iPos = e->iEnd;
  }
  if (rc < 0) goto done;
  if ((rc = ks_buf_append(&out, pTu->zSrc + iPos, pTu->nSrc - iPos)) < 0) goto done;
  if (out.n == pTu->nSrc && memcmp(ks_buf_cstr(&out), pTu->zSrc, out.n) == 0) {
    rc = ks_error_set(KS_ENOCHANGE, "rule %s, kernel %s: nothing to change", pRule->zId, pOpts->zKernel);
    goto done;
  }
  if (pnOut) *pnOut = out.n;
  *pzOut = ks_buf_detach(&out);
  if (!*pzOut) *pzOut = ks_strdup("");
done:
  ks_buf_free(&out);
  free_state(&rw);
  return rc;
}
