/* pure.h — which calls in a kernel's element computation only compute a value
 * (and, weaker, which keep to their thread: ks_own_thread_call):
 * the CUDA math functions and conversion intrinsics by name, and `__device__`
 * helpers of the translation unit by reading their bodies. The rules that move
 * an element's computation to another thread or reorder it (row-reduce,
 * column-walk) accept exactly these calls; one list, one analysis.
 * Library-internal: it exposes libclang. */
#ifndef KS_FEATURES_PURE_H
#define KS_FEATURES_PURE_H
#include "features/ast.h"

/* A math function without side effects (expf, __expf, fmaxf, max, __ldg, ...)
 * or a CUDA conversion intrinsic (__half2float, __float2bfloat16_rn, ...). */
int ks_pure_math(const char *zName);

/* Is call c (a CallExpr) a value without effects? NULL when it is: a function
 * ks_pure_math names, or a `__device__` function defined in the translation
 * unit whose parameters are all passed by value (no pointers, references or
 * arrays), and whose body only declares and assigns its own locals, branches,
 * loops and returns, reading its parameters, its locals, literals and
 * constant-initialized const variables, and calling only such functions
 * (at most 4 deep; no recursion). Else why not, one line (static text). */
const char *ks_pure_call(CXCursor c);

/* Is zName a barrier or warp collective (__syncthreads, __syncwarp,
 * __shfl*_sync, __ballot_sync, __any/__all, __activemask, __reduce*,
 * __match*)? */
int ks_warp_collective(const char *zName);

/* Does call c (a CallExpr) keep to the thread that makes it, so that a rule
 * may make it once per lane on one thread, or on another thread? NULL when
 * it does: neither it nor a helper of the translation unit it reaches (read
 * through, at most 4 deep) runs a barrier, warp collective (ks_warp_collective,
 * or cooperative groups) or inline assembly, or reads threadIdx, blockIdx,
 * blockDim or gridDim. Functions of system headers (CUDA's) are judged by
 * name, a call the analysis cannot resolve (a dependent name, a pointer) is
 * not kept. Else why not, one line (static text). Memory it reads or writes
 * is the caller's to judge. */
const char *ks_own_thread_call(CXCursor c);

#endif
