/* rewrite/blockdim.h — a kernel's indices with the block size written as a
 * constant (`blockIdx.x * BLOCK + threadIdx.x`) read as blockDim
 * (blockdim.c), the engine's fallback for rules that recognise the thread
 * index by blockDim. Library-internal. */
#ifndef KS_REWRITE_BLOCKDIM_H
#define KS_REWRITE_BLOCKDIM_H

#include "kernelskill/rewrite.h"

typedef struct ks_blockdim {
  char *zSrc;  /* the whole file, the kernel's constants replaced; same lines */
  size_t nSrc;
  char *zWhat; /* "BLOCK as blockDim.x (256 at the file's 2 launches)" */
} ks_blockdim;

/* In kernel zKernel (a function, not a template), every product
 * blockIdx.d * E or gridDim.d * E with E a positive integer constant written
 * as one name or number, where every launch of the kernel in the file has a
 * constant block whose d is E, and E appears nowhere else in the kernel:
 * E becomes `blockDim.d` with a comment naming E. KS_OK and *pOut filled,
 * or KS_EPRECOND with the reason (no such product: no message). */
int ks_rewrite_blockdim(ks_tu *pTu, const char *zKernel, ks_blockdim *pOut);
void ks_rewrite_blockdim_free(ks_blockdim *p);

#endif
