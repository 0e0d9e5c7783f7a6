/* rwutil.h — library-internal AST helpers shared by the rewrite rules: tokens
 * of a main-file byte range, a walk with the ancestor chain, the "pointwise
 * kernel" shape (global index, bound guard, per-element body), and launch-site
 * checks (scalar block, grid that covers the guarded range). */
#ifndef KS_REWRITE_RWUTIL_H
#define KS_REWRITE_RWUTIL_H

#include "features/ast.h"
#include "features/shape.h"
#include "kernelskill/rewrite.h"

/* One token of the main file with its byte range. */
typedef struct ks_rw_tok {
  CXTokenKind eKind;
  char *z;
  unsigned iStart, iEnd;
} ks_rw_tok;

/* Tokens of main-file bytes [iStart, iEnd) (comments not included). */
int ks_rw_tokens(ks_tu *pTu, unsigned iStart, unsigned iEnd, ks_rw_tok **paOut, int *pnOut);
void ks_rw_tokens_free(ks_rw_tok *a, int n);
/* int, long, long long, signed or unsigned (not short, not char). */
int ks_rw_is_integer_type(CXType t);
/* Refuse (KS_EPRECOND) unless the kernel-shape model (features/shape.h)
 * gives the kernel class eClass (a ks_shape_class): the rules and the Feature
 * Extractor agree on what a kernel is. */
int ks_rw_require_class(ks_rewrite *p, CXCursor kernel, int eClass);
/* Refuse when the model gives class eClass (row-reduce: never a column walk). */
int ks_rw_refuse_class(ks_rewrite *p, CXCursor kernel, int eClass);
/* Refuse (KS_EPRECOND) when the kernel has a use other than a <<<>>> launch
 * the tools can rewrite (cudaLaunchKernel, a function pointer, a launch
 * through a macro): for rules that change its launch contract. */
int ks_rw_launch_contract(ks_rewrite *p, const char *zKernel);
/* The first use of kernel zKernel other than a <<<>>> launch or an attribute
 * query (cudaLaunchKernel, a function pointer): 1 with its line and how
 * ("cudaLaunchKernel", "address", ...), 0 when none, or an error. */
int ks_rw_other_use(ks_tu *pTu, const char *zKernel, unsigned *piLine, char *zHow, size_t nHow);
/* The kernel's launches in this file (after ks_rw_launch_contract); none is a refusal (for rules that
 * change the launch configuration with the kernel). */
int ks_rw_kernel_launches(ks_rewrite *p, const char *zKernel, ks_launch **paOut, int *pnOut);
/* Does [iStart, iEnd) hold an identifier/keyword token equal to zWord? */
int ks_rw_has_word(ks_tu *pTu, unsigned iStart, unsigned iEnd, const char *zWord);
/* Token spellings of [iStart, iEnd) joined without spaces (for comparing
 * expressions as written), malloc'd. */
char *ks_rw_squash(ks_tu *pTu, unsigned iStart, unsigned iEnd);
char *ks_rw_squash_text(const char *z); /* same for a text: drops whitespace */

/* Direct children of a cursor (malloc'd array). */
int ks_rw_children(CXCursor c, CXCursor **paOut, int *pnOut);
/* Up to nMax direct children into a[]; returns how many there are (all). */
int ks_rw_kids(CXCursor c, CXCursor *a, int nMax);
/* ks_rw_squash of a cursor's extent; NULL when it is not in the main file. */
char *ks_rw_squash_cursor(ks_tu *pTu, CXCursor c);
/* The kernel's body (CompoundStmt), or a null cursor. */
CXCursor ks_rw_body(CXCursor kernel);
/* Skip implicit casts (UnexposedExpr) and parentheses. */
CXCursor ks_rw_strip(CXCursor c);
/* The declaration a DeclRefExpr (through casts/parens) names, else null. */
CXCursor ks_rw_ref_decl(CXCursor c);
int ks_rw_is_ref_to(CXCursor c, CXCursor decl);
/* The spelling of a cursor (malloc'd). */
char *ks_rw_spelling(CXCursor c);

/* Walk every cursor under root (pre-order). The visitor sees the ancestor
 * chain aAnc[0] = root ... aAnc[nAnc-1] = parent; it returns 0 to descend,
 * 1 to skip the children, -1 to stop. */
typedef int (*ks_rw_visit_fn)(CXCursor c, const CXCursor *aAnc, int nAnc, void *pArg);
void ks_rw_walk(CXCursor root, ks_rw_visit_fn xFn, void *pArg);

/* Index of parameter declaration decl in the kernel's parameter list
 * (templates too), else -1. */
int ks_rw_param_index(CXCursor kernel, CXCursor decl);
/* The number of parameters of a function or function template (libclang's
 * argument list is empty for a template: its ParmDecl children count), and
 * the i-th one's declaration (a null cursor past the end). */
int ks_rw_param_count(CXCursor kernel);
CXCursor ks_rw_param_at(CXCursor kernel, int i);
/* The kernel parameter that expression c names (a DeclRefExpr through
 * implicit casts and parentheses), else -1. */
int ks_rw_param_of(CXCursor kernel, CXCursor c);
/* The parallel dimension (0 x, 1 y, 2 z) whose logical index
 * blockIdx.d * blockDim.d + threadIdx.d expression init computes, or -1: the
 * kernel-shape model's one recognizer (ks_shape_thread_index: any operand
 * order, casts, macros, never-written locals), init's implicit conversion to
 * its variable's type looked through (a 32-bit sum widened as a whole is the
 * value a rewrite's own index computes). -1 too when the value may have
 * wrapped (a 32-bit product added in 64 bits). *pbWide (may be NULL): the
 * product is computed in 64 bits. */
int ks_rw_thread_index(ks_tu *pTu, CXCursor kernel, CXCursor init, int *pbWide);

/* Is expression c free of effects and loads (built-ins, parameters, locals,
 * literals, casts, arithmetic, ?:; no call, subscript, dereference,
 * assignment or increment)? */
int ks_rw_pure_expr(CXCursor c);
/* Does statement st only declare int/float scalars with such initializers
 * (`const float eps = 1e-6f;`)? It may then run anywhere before its uses. */
int ks_rw_pure_decls(CXCursor st);
/* Does statement st only declare const local arrays of integers or floats
 * initialized by braces of literals (`const int Gx[3][3] = {{-1, 0, 1}, ...};`,
 * a filter's weights)? Their reads are then pure and the same in every
 * thread and lane. */
int ks_rw_const_tables(CXCursor st);

/* Kernel parameters. */
typedef struct ks_rw_param {
  CXCursor decl;
  char *zName;
  int bPointer;
  int bConstPointee;
  int bRestrict;
  long long nElemSize; /* sizeof the pointee, or -1 */
  char *zElemType;     /* pointee type without qualifiers ("float"), or NULL */
  unsigned iStart, iEnd; /* extent of the declaration in the file */
  unsigned iNameStart;   /* offset of the name (iEnd when unnamed) */
} ks_rw_param;
int ks_rw_params(ks_tu *pTu, CXCursor kernel, ks_rw_param **paOut, int *pnOut);
void ks_rw_params_free(ks_rw_param *a, int n);

/* Why call c of an element body does not keep to its thread (features/pure.h
 * ks_own_thread_call: a helper's shuffle, threadIdx, asm), written into zBuf
 * naming the call; NULL when it does. A rule that makes the body's calls once
 * per lane on one thread, or on another thread, refuses it. */
const char *ks_rw_own_thread_why(CXCursor c, char *zBuf, size_t nBuf);

/* The pointwise shape:
 *     T i = blockIdx.x * blockDim.x + threadIdx.x;   (any operand order;
 *           blockIdx.x or blockDim.x may be cast to a 64-bit integer type)
 *     if (i < N) { BODY }          -- or --   if (i >= N) return; BODY...
 * as the whole kernel body; BODY has no return, barrier, warp primitive,
 * __shared__, goto, thread/block built-in, and does not change i. */
typedef struct ks_rw_pointwise {
  CXCursor idx;          /* VarDecl of i */
  char *zIdx, *zIdxType; /* "i", "int" */
  unsigned iHeadStart;   /* start of the index declaration statement */
  unsigned iHeadEnd;     /* end of the guard (start of BODY region) */
  unsigned iBodyStart, iBodyEnd; /* BODY's text (between the braces, or the statements) */
  unsigned iRegionEnd;   /* end of what the shape covers (closing brace of the if, or last statement) */
  char *zBound;          /* N as written */
  int iBoundParam;       /* kernel parameter N names (-1: another expression) */
  int bEarlyReturn;
  int bWideIndex;        /* the index is computed in 64 bits ((long long)blockIdx.x * ...) */
  CXCursor bound;        /* the guard's N */
  int bGridStride;       /* ks_rw_gridstride_match: the body is a grid-stride loop's */
  CXCursor body;         /* grid-stride: the loop's body statement */
} ks_rw_pointwise;
/* 0 and *pOut filled when the kernel has the shape; else -1 with *pzWhy
 * (malloc'd) saying what differs. */
int ks_rw_pointwise_match(ks_tu *pTu, CXCursor kernel, ks_rw_pointwise *pOut, char **pzWhy);
void ks_rw_pointwise_free(ks_rw_pointwise *p);
/* The grid-stride form of the pointwise shape, as the whole kernel body:
 *     for (T i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += blockDim.x * gridDim.x) BODY
 * BODY as for ks_rw_pointwise_match, and no break or continue; N's names are
 * not in BODY (it is evaluated once). Fills *pOut with bGridStride set
 * (iHeadStart: the for, iRegionEnd: its end). */
int ks_rw_gridstride_match(ks_tu *pTu, CXCursor kernel, ks_rw_pointwise *pOut, char **pzWhy);

/* The start of a rule on a pointwise kernel: the kernel (in the main file),
 * no note of this rule in it yet (zAlready: the "already" message; NULL: no
 * such check) and its pointwise shape (*pPw, ks_rw_pointwise_free by the
 * caller on any return). KS_OK, or the refusal (through p). */
int ks_rw_pointwise_kernel(ks_rewrite *p, const char *zAlready, CXCursor *pKernel, ks_rw_pointwise *pPw);
/* Integer rule parameter zName (zDefault when not given) in [nMin, nMax], in
 * *pn; else KS_EUSAGE naming the rule zRule. */
int ks_rw_int_param(ks_rewrite *p, const char *zRule, const char *zName, const char *zDefault, long nMin, long nMax,
                    long *pn);
/* Byte range of <<< >>> slot iSlot (0 grid, 1 block, 2 smem, 3 stream),
 * trimmed; -1 when absent. */
int ks_rw_cfg_slot(ks_tu *pTu, const ks_launch *pL, int iSlot, unsigned *piStart, unsigned *piEnd);
/* How an element lvalue (P[i], *P, P[i].m) at aAnc[nAnc-1]'s child c is used:
 * KS_RW_READ, KS_RW_WRITE (assigned, incremented, address or reference
 * taken: anything that is not a plain read). *pWriteExpr: the assignment. */
enum { KS_RW_READ = 1, KS_RW_WRITE = 2, KS_RW_READWRITE = 3 };
int ks_rw_elem_use(CXCursor c, const CXCursor *aAnc, int nAnc, CXCursor *pWriteExpr);
/* Launch checks. Block: a scalar (not dim3) whose value is a compile-time
 * constant (*pnThreads), else 0. */
int ks_rw_launch_block_scalar(ks_tu *pTu, const ks_launch *pL, long long *pnThreads);
/* Is the grid `(N + B - 1) / B` (or `(N + K) / B` with K = B - 1) where N is the
 * launch's argument iArg and B its block expression? Returns 1 and the N and B
 * texts (malloc'd) when so. */
int ks_rw_grid_covers(ks_tu *pTu, const ks_launch *pL, int iArg, char **pzN, char **pzB);
/* Does launch pL cover the pointwise kernel's guarded range [0, N)? Like
 * ks_rw_grid_covers, and further:
 *  - the grid may be under a cast to a 32/64-bit integer type (`(unsigned)g`,
 *    kept in *zCast: any grid that launches fits it, so it changes nothing);
 *  - it may name a local variable initialized to (N + B - 1) / B, and N may
 *    name a local initialized to the launch argument or bound expression;
 *    every variable so followed (and the ones their initializers, the block
 *    and the bound's arguments read) is declared in the launching function,
 *    neither static nor a reference, never written there (only plain reads),
 *    and its name declared nowhere else in the function;
 *  - the guard's bound may be an expression of the kernel's scalar parameters
 *    (`(long long)rows * cols`), matched once each parameter is replaced by
 *    its argument, which must be one identifier or literal of the same type.
 * On 1, *pOut holds N as written at the launch (or in the variable the grid
 * reads: in scope at the launch), the block text and the cast. */
typedef struct ks_rw_cover {
  char *zN, *zB;
  char *zCast; /* e.g. "(unsigned)", or "" */
} ks_rw_cover;
int ks_rw_launch_covers(ks_tu *pTu, CXCursor kernel, const ks_rw_pointwise *pPw, const ks_launch *pL,
                        ks_rw_cover *pOut);
void ks_rw_cover_free(ks_rw_cover *p);
/* Every launch of the kernel, each proven to cover the guard's bound: refuses
 * (KS_EPRECOND, through p) when the file has no launch (zWhyNeeded says why one
 * is needed) or a launch's grid cannot be shown to cover N. On KS_OK the caller
 * owns *paL (ks_ast_launches_free) and *paCov (ks_rw_covers_free). */
int ks_rw_covered_launches(ks_rewrite *p, CXCursor kernel, const ks_rw_pointwise *pPw, const char *zWhyNeeded,
                           ks_launch **paL, int *pnL, ks_rw_cover **paCov);
void ks_rw_covers_free(ks_rw_cover *a, int n);
/* Each covered launch (aCov from ks_rw_covered_launches) gets the grid
 * (N + B * nPer - 1) / (B * nPer), for nPer elements per thread, noted zNote. */
int ks_rw_scale_grids(ks_rewrite *p, const ks_launch *aL, int nL, const ks_rw_cover *aCov, long nPer, const char *zNote);
/* A new grid expression with the launch's cast put back around it (malloc'd). */
char *ks_rw_cover_grid(const ks_rw_cover *pC, const char *zGrid);
/* Where a line goes after a statement ending at iEnd: past its ';' (a
 * statement's extent stops before it) and a trailing // comment. */
unsigned ks_rw_after_stmt(ks_tu *pTu, unsigned iEnd);
/* Parenthesize an expression text unless it is one token-ish word. */
char *ks_rw_paren(const char *zExpr);

/* Append to pOut, unless the file already defines zGuard (the shipped header's
 * include guard, e.g. "#define KS_GEMM_F32_CUH"), a provenance note saying
 * zWhat, the header templates/<zName> of the data folder (zLabel names it when
 * it cannot be read) and a blank line. */
int ks_rw_shipped_block(ks_rewrite *p, const char *zGuard, const char *zName, const char *zLabel, const char *zWhat,
                        ks_buf *pOut);
/* The same, unless the file defines zGuard before offset iBefore (a copy
 * below the code that needs it does not count; its guard keeps the two one). */
int ks_rw_shipped_block_before(ks_rewrite *p, const char *zGuard, const char *zName, const char *zLabel,
                               const char *zWhat, unsigned iBefore, ks_buf *pOut);
/* Above a kernel, one edit at iLine0 (the start of the kernel's first line,
 * indented by nIndent): unless the file already defines zGuard (the shipped
 * header's include guard, e.g. "#define KS_GEMM_F32_CUH"), a provenance note
 * saying zWhat and the header templates/<zName> of the data folder (zLabel
 * names it when it cannot be read); then the kernel's note zNote, made a
 * provenance comment (ks_rewrite_note_text), at the kernel's indentation. A
 * kernel in a namespace or extern "C" block gets the header above the
 * outermost one, at file scope, and its note at iLine0. */
/* The function definition whose body holds main-file range [iStart, iEnd)
 * (a launch's host function), or a null cursor. */
CXCursor ks_rw_host_fn(ks_tu *pTu, unsigned iStart, unsigned iEnd);
/* Where `#include <zHeader>` goes: the start of the line after the main
 * file's last #include (or of its first declaration's line, or 0); *pbHave:
 * the file already includes zHeader (as spelled, "cooperative_groups/reduce.h"). */
unsigned ks_rw_include_point(ks_rewrite *p, const char *zHeader, int *pbHave);
/* Where a file-scope block (a shipped header, host helpers) goes for code at
 * iLine0: above the outermost namespace or extern "C" block holding it and the
 * comments attached to that block; iDefault where iLine0 is at file scope. */
unsigned ks_rw_file_scope_at(ks_rewrite *p, unsigned iLine0, unsigned iDefault);
/* Is the kernel at file scope, or inside namespaces and extern "C" blocks
 * only (where ks_rw_insert_shipped puts a shipped header above the outermost
 * one)? */
int ks_rw_kernel_in_namespaces(CXCursor kernel);
int ks_rw_insert_shipped(ks_rewrite *p, unsigned iLine0, unsigned nIndent, const char *zGuard, const char *zName,
                         const char *zLabel, const char *zWhat, const char *zNote);
/* KS_OK when the launch passes as many arguments as the kernel has
 * parameters; else refused through p, naming the launch's file:line. */
/* Whether a launch argument's text has no effect, so that it may be dropped
 * or evaluated once more: names, numbers, arithmetic, comparisons, `::`,
 * casts and sizeof / alignof; no call, assignment, ++ or --. */
int ks_rw_arg_pure(const char *z);
int ks_rw_launch_arity(ks_rewrite *p, const ks_launch *pL, CXCursor kernel, const char *zKernel);
/* Where launch pL's statement ends (*piSemi: its ';') when the launch is a
 * statement of its own, so that a rule may replace it with a block; else
 * refused through p: "FILE:LINE: the launch of 'K' is not a statement of its
 * own; <zWhy>". */
int ks_rw_launch_stmt_end(ks_rewrite *p, const ks_launch *pL, const char *zKernel, const char *zWhy,
                          unsigned *piSemi);
/* Append the launch's own shared-memory size and stream, as written
 * (", smem", ", stream"; nothing for those absent), to a new configuration. */
int ks_rw_cfg_tail(ks_buf *pCfg, const ks_launch *pL);

/* Why kernel k cannot take a new last parameter (its launches passing what
 * the kernel can no longer read from the grid as written): every use must be
 * a <<<>>> launch written in this file as a statement of its own, with one
 * argument per parameter, a grid the rule can read and no name ks_g / ks_b
 * (the launch's new block declares them); the kernel declared only where it
 * is defined, not extern "C", no default arguments. NULL with the launches
 * in *paL / *pnL (templates too: their launches name an instantiation), or
 * the reason (zBuf's text, or a static one). */
const char *ks_rw_new_param_why(ks_rewrite *p, CXCursor k, char *zBuf, size_t nBuf, ks_launch **paL, int *pnL);

/* The block of launch pL as constants, where nothing can make it another:
 * dim3(a[, b[, c]]) or an integer, of integer constants, written in the
 * launch; or a dim3 variable of the launching function so initialized whose
 * every use is a whole grid or block argument of a launch there (no
 * assignment, no reference taken). aDim: x, y, z (missing ones 1). 0, or -1
 * when it cannot be shown. */
int ks_rw_launch_block_dims(ks_tu *pTu, const ks_launch *pL, long long aDim[3]);

/* The explicit template argument iArg of the launch's kernel name as
 * written (`vec_add<__half>`, `scale_t<T>`), malloc'd; NULL when the launch
 * gives fewer (deduced). *piName: offset of the kernel's name. */
char *ks_rw_launch_targ(ks_tu *pTu, const ks_launch *pL, int iArg, unsigned *piName);

/* Is main-file offset iAt inside a template (function or class), where a
 * launch's template arguments may depend on its parameters? *pHost (may be
 * NULL): the innermost function template holding it, or a null cursor. */
int ks_rw_enclosing_template(ks_tu *pTu, unsigned iAt, CXCursor *pHost);

/* The element a cache-hinted load reads: for `__ldg(&X[i])` (__ldca, __ldcg,
 * __ldcs, __ldlu, __ldcv; parentheses and implicit casts looked through) the
 * subscript X[i], else a null cursor. Such a load is a plain read of X[i]: a
 * rewrite that replaces the read replaces the whole call. */
CXCursor ks_rw_cache_load_elem(CXCursor call);

#endif
