/* rewrite/instcopy.h — a kernel template copied as a kernel of its own for one
 * instantiation (instcopy.c), the engine's fallback for rules that read concrete
 * kernels. Library-internal. */
#ifndef KS_REWRITE_INSTCOPY_H
#define KS_REWRITE_INSTCOPY_H

#include "kernelskill/rewrite.h"

typedef struct ks_instcopy {
  char *zSrc;     /* the whole file with the copy and its launches */
  size_t nSrc;
  char *zKernel;  /* the copy's name, `k_float` */
  char *zInst;    /* the instantiation's arguments, "float" */
  /* Lines, for messages about zSrc: the copy's nAdded lines follow line
   * iAtLine; the template's text from line iTmplLine is copied from the
   * copy's line nHead on (1-based, counted from iAtLine). */
  unsigned iAtLine, nAdded, nHead, iTmplLine;
} ks_instcopy;

/* Message zMsg about pCopy->zSrc with its lines of file zFile ("FILE:N",
 * "line N") given as the user's file has them (malloc'd). */
char *ks_rewrite_instcopy_lines(const ks_instcopy *pCopy, const char *zFile, const char *zMsg);

/* Copy kernel template zKernel for the instantiation the file's first launch
 * outside templates makes; zNote heads the copy's provenance comment. KS_OK
 * and *pOut filled, or KS_EPRECOND with the reason (zKernel not a template:
 * no message of its own). */
int ks_rewrite_instcopy(ks_tu *pTu, const char *zKernel, const char *zNote, ks_instcopy *pOut);
void ks_rewrite_instcopy_free(ks_instcopy *p);

/* The first copy of kernel template zKernel that an earlier rewrite made in
 * this file (malloc'd), or NULL: the kernel the file's launches of that
 * instantiation call, so later rewrites of zKernel go to it. */
char *ks_rewrite_instcopy_existing(ks_tu *pTu, const char *zKernel);

#endif
