/* shape.h — the kernel-shape model: what one __global__ kernel computes, read
 * once from the libclang AST and shared by the Feature Extractor, the planner's
 * features and every rewrite rule (docs/features.md, "shape").
 *
 * Index expressions become polynomials over atoms (thread built-ins, the
 * logical parallel index, loop variables, uniform scalars), seen through
 * local temporaries, casts and macros (the AST is the expanded code). The
 * model lists the parallel iteration space, the guards, the per-thread loops
 * with their accumulators, every global access as such a polynomial (or
 * irregular), the calls in the element computation, and every use of the
 * kernel in the translation unit. Library-internal: it exposes libclang. */
#ifndef KS_FEATURES_SHAPE_H
#define KS_FEATURES_SHAPE_H

#include "features/ast.h"

/* ---- polynomials over atoms ---- */

typedef enum ks_atom_kind {
  KS_ATOM_TID = 0, /* threadIdx.d */
  KS_ATOM_BID,     /* blockIdx.d */
  KS_ATOM_BDIM,    /* blockDim.d */
  KS_ATOM_GDIM,    /* gridDim.d */
  KS_ATOM_PAR,     /* the logical parallel index blockIdx.d * blockDim.d + threadIdx.d */
  KS_ATOM_LOOP,    /* a per-thread loop's induction variable (iRef: loop index) */
  KS_ATOM_UNIFORM, /* a value the same for every thread: scalar parameter, template
                      parameter, uniform local or expression (zName) */
  KS_ATOM_DERIVED  /* a thread-variant value that is not affine (i / n, i % n, a
                      variable written in a loop): zName is its expression */
} ks_atom_kind;

typedef struct ks_atom {
  ks_atom_kind eKind;
  int iDim;    /* 0, 1, 2 for the built-ins and PAR; else -1 */
  int iRef;    /* loop index (LOOP), parameter index (UNIFORM from a parameter), else -1 */
  int iDimOf;  /* DERIVED from PAR_d by i / n or i % n: d, else -1 */
  int bRem;    /* DERIVED: the i % n form */
  int bWrap;   /* DERIVED by i / n or i % n: unsigned, or an operand may have wrapped */
  char *zName; /* "threadIdx.x", "n", "i/cols", ... */
  struct ks_poly *pNum, *pDen; /* DERIVED by i / n or i % n: i and n (malloc'd), else NULL */
} ks_atom;

#define KS_MONO_MAX 4
#define KS_POLY_MAX 16

typedef struct ks_mono {
  long long coef;
  int n;               /* atoms in the product (0: a constant) */
  int a[KS_MONO_MAX];  /* atom ids, sorted */
} ks_mono;

typedef struct ks_poly {
  int bIrregular;  /* not a polynomial over the atoms (data-dependent, nonlinear, too big) */
  int bIndirect;   /* depends on a value loaded from memory */
  int bNarrowMul;  /* a product of thread-variant terms is computed in 32 bits */
  int bWrap;       /* arithmetic on it may wrap: unsigned (other than the built-ins'
                      own), or a conversion to a narrower integer */
  unsigned long long mClamp; /* an unclamped value (ks_shape_access.unclamped): the
                      clamps (bits of ks_shape.aClamp) it assumes are the identity */
  int n;
  ks_mono t[KS_POLY_MAX];
} ks_poly;

/* ---- the model ---- */

typedef struct ks_shape_par {
  int iDim;          /* 0 x, 1 y, 2 z */
  int bWide;         /* blockIdx * blockDim computed in 64 bits */
  int bGridStride;   /* covered by a grid-stride loop */
  int bUsed;         /* some access or guard uses it */
} ks_shape_par;

typedef struct ks_shape_guard {
  unsigned iLine;
  int iDim;          /* the parallel dimension it bounds, or -1 (another variant index) */
  int bEarlyReturn;  /* if (i >= n) return; */
  char *zBound;      /* n as written */
  ks_poly expr, bound; /* the comparison as `expr OP bound`, expr the thread-variant side */
  int eOp;           /* OP: a CXBinaryOperatorKind, LT..GE, with expr on its left */
  unsigned iOffset;  /* main-file start of the comparison */
} ks_shape_guard;

typedef enum ks_acc_op { KS_ACC_OP_NONE = 0, KS_ACC_OP_ADD, KS_ACC_OP_MUL, KS_ACC_OP_MAX, KS_ACC_OP_MIN } ks_acc_op;

typedef struct ks_shape_loop {
  CXCursor cursor;
  unsigned iLine;
  int iParent;        /* enclosing loop, or -1 */
  int iAtom;          /* its induction variable's atom, or -1 */
  char *zVar;         /* induction variable, or NULL */
  ks_poly init, bound;/* from `for (v = init; v < bound; v += step)`; bound irregular when unknown */
  long long nStep;    /* constant step, 0 when unknown */
  long long nTrip;    /* constant trip count, -1 when unknown */
  int bGridStride;    /* a grid-stride loop over parallel dimension iDim */
  int iDim;
  int bHasSync;
  int nAccum;         /* scalars accumulated in the body */
  ks_acc_op aOp[4];
  char *azAccum[4];
  int bStoresGlobal;  /* a global store inside the loop */
} ks_shape_loop;

typedef enum ks_shape_akind { KS_SHAPE_LOAD = 0, KS_SHAPE_STORE, KS_SHAPE_RMW } ks_shape_akind;

typedef struct ks_shape_access {
  CXCursor cursor;    /* the subscript or dereference */
  unsigned iLine;
  unsigned iStart, iEnd; /* main-file extent (expansion locations) */
  int bInMacro;       /* written inside a macro expansion */
  int iParam;         /* the pointer parameter it reads or writes */
  ks_shape_akind eKind;
  char *zElemType;    /* "float", "__half", "T" */
  long long nElemSize;/* bytes, -1 unknown (templates) */
  ks_poly index;      /* in elements of the base parameter */
  int iLoop;          /* innermost enclosing per-thread loop, or -1 */
  /* An index irregular only through clamps to the edge (min/max, a selection
   * `x > 0 ? x - 1 : 0`, a __device__ helper returning one): bClamped, and
   * unclamped, the index wherever every clamp in unclamped.mClamp is the
   * identity (index stays irregular for everyone else). zClampWhy: why a
   * clamp seen in the index could not be followed (static text), or NULL. */
  int bClamped;
  ks_poly unclamped;
  const char *zClampWhy;
} ks_shape_access;

/* A clamp of an index, as the condition under which it is the identity:
 * `operand OP bound`, both sides as written and free of clamps (a nested
 * clamp's or a clamped local's operand, a helper's argument), the operand
 * thread-variant and affine, the bound uniform, both signed integers and free
 * of memory reads. max(e, lo): e >= lo; min(e, hi): e <= hi; c ? e : k: c. */
typedef struct ks_shape_clamp {
  CXCursor operand, bound;
  int eOp;            /* CXBinaryOperator_LT, GT, LE, GE */
  ks_poly diff;       /* operand - bound */
} ks_shape_clamp;

/* A local pointer into a pointer parameter: `T *q = P + off;` (through
 * parentheses, casts that keep the element size, and other such locals). */
typedef struct ks_shape_ptr {
  CXCursor decl;
  int iParam;         /* the parameter it points into */
  ks_poly off;        /* in elements of the parameter (irregular: another element size) */
  int bClamped;       /* off irregular only through clamps to the edge (in + max(y - 1, 0) * w): */
  ks_poly offU;       /* ... offU where the clamps in offU.mClamp are the identity */
  const char *zClampWhy; /* else why a clamp in off could not be followed (static text), or NULL */
  int bWritten;       /* assigned, ++/--, address or reference taken: re-seated or escaping */
} ks_shape_ptr;

typedef enum ks_use_kind {
  KS_USE_LAUNCH = 0,  /* k<<<g, b>>>(...) the tools can rewrite */
  KS_USE_API,         /* cudaLaunchKernel / cudaLaunchKernelEx / cudaLaunchCooperativeKernel */
  KS_USE_QUERY,       /* cudaFuncSetAttribute, cudaOccupancy*: names the kernel, launches nothing */
  KS_USE_OTHER        /* function pointer, launch through a macro, anything else */
} ks_use_kind;

typedef struct ks_shape_use {
  ks_use_kind eKind;
  unsigned iLine, iOffset;
  char *zHow;         /* "<<<>>>", "cudaLaunchKernel", "address", ... */
  /* KS_USE_API: the kernel's arguments as written, when the call shows them:
   * cudaLaunchKernelEx's after the kernel, or cudaLaunchKernel's (and
   * cudaLaunchCooperativeKernel's) `void *args[] = {&a, &b}` array, a local
   * initialized in place and only ever passed as a whole; else NULL, 0. */
  char **azArg;
  int nArg;
} ks_shape_use;

typedef enum ks_shape_class {
  KS_CLASS_MAP = 0,
  KS_CLASS_ROW_REDUCE,
  KS_CLASS_COLUMN_WALK,
  KS_CLASS_GEMM,
  KS_CLASS_STENCIL,
  KS_CLASS_TRANSPOSE,
  KS_CLASS_GATHER,
  KS_CLASS_OTHER
} ks_shape_class;

typedef struct ks_shape {
  char *zKernel;
  ks_shape_class eClass;
  const char *zWhy;      /* one line: what made the class */
  int bTruncated;        /* the body nests deeper than the walk goes: the model is partial */
  ks_atom *aAtom;
  int nAtom;
  ks_shape_par aPar[3];
  int nPar;
  ks_shape_guard *aGuard;
  int nGuard;
  /* The comparisons of selections `cond ? a : b` (a padded read `in ? x[i] :
   * 0.0f`), in the same form: kept apart from aGuard, which holds the
   * statements' conditions that rules and features count as guards. */
  ks_shape_guard *aSel;
  int nSel;
  ks_shape_loop *aLoop;
  int nLoop;
  ks_shape_access *aAccess;
  int nAccess;
  ks_shape_ptr *aPtr;    /* local pointers derived from parameters, in declaration order */
  int nPtr;
  ks_shape_clamp *aClamp; /* the clamps unclamped indices assume (at most 64) */
  int nClamp;
  CXCursor *aClampVar;   /* integer locals initialized by a clamp of an index (never written) */
  int nClampVar;
  char **azCall;         /* distinct callees of the element computation */
  int nCall;
  int bShared, bSync, bAtomic, bWarp;
  ks_shape_use *aUse;
  int nUse;
} ks_shape;

/* The model of kernel `kernel` (a __global__ FunctionDecl or template). */
int ks_shape_build(ks_tu *pTu, CXCursor kernel, ks_shape **ppOut);
void ks_shape_free(ks_shape *p);

/* Is zName a cache-hinted load (__ldg, __ldca, __ldcg, __ldcs, __ldlu,
 * __ldcv): a call that only reads the element whose address it is given?
 * The one list the shape model and the rules share. */
int ks_shape_is_cache_load(const char *zName);

const char *ks_shape_class_name(ks_shape_class e);
/* Text of a polynomial ("PAR.x*cols + k"), malloc'd. */
char *ks_shape_poly_text(const ks_shape *p, const ks_poly *pPoly);

/* ---- the one thread-index recognizer ----
 * Is expression c (through parentheses, casts and const/single-assignment
 * locals of kernel) the logical parallel index blockIdx.d * blockDim.d +
 * threadIdx.d, in any operand order? Returns d (0, 1, 2) or -1. *pbWide
 * (may be NULL): the product is computed in 64 bits (a cast of blockIdx or
 * blockDim to a 64-bit type), so the index cannot wrap. *pbNarrow (may be
 * NULL): threadIdx carries a 64-bit cast while the product is 32-bit, or a
 * 32-bit cast wraps a 64-bit sum: the value may have wrapped. */
int ks_shape_thread_index(ks_tu *pTu, CXCursor kernel, CXCursor c, int *pbWide, int *pbNarrow);

/* Is index q, for every thread that computes it, exactly the parallel index
 * PAR.iDim: a flat index split into digits (i / n, i % n, nested) and
 * recombined (b * T * V + t * V + v)? NULL when the model proves it; else
 * why not, one line. Exact on C's truncating division whatever the signs;
 * the proof assumes what the kernel itself relies on: no division by zero
 * and no signed overflow in the expressions it evaluates (unsigned or
 * narrowed digits are refused: they wrap with defined results). */
const char *ks_shape_index_is_par(const ks_shape *pS, const ks_poly *q, int iDim);
/* Does index q depend on the thread's position only through digits of
 * PAR.iDim (i / n, i % n: the same for a row's elements, a broadcast)? */
int ks_shape_index_digits_only(const ks_shape *pS, const ks_poly *q, int iDim);

/* Every use of kernel zName in the main file (launches, launch APIs,
 * function pointers), in file order. */
int ks_shape_uses(ks_tu *pTu, const char *zName, ks_shape_use **paOut, int *pnOut);
void ks_shape_uses_free(ks_shape_use *a, int n);

/* Main-file ranges [start, end) of macro expansions, sorted. */
int ks_shape_macro_ranges(ks_tu *pTu, unsigned **paRange, int *pnRange);

/* Is c a built-in read threadIdx.d / blockIdx.d / blockDim.d / gridDim.d (a
 * MemberRefExpr)? Returns the kind (KS_ATOM_TID .. KS_ATOM_GDIM) and *piDim
 * (may be NULL) the dimension, or -1. */
int ks_shape_builtin(CXCursor c, int *piDim);
/* Which thread built-in a reference names, whole or under a member
 * (`threadIdx`, the `threadIdx` of `threadIdx.y`, through a macro or in
 * `const uint3 t = threadIdx;`): 0 threadIdx, 1 blockIdx, 2 blockDim,
 * 3 gridDim; -1 for anything else (c not a DeclRefExpr). */
int ks_shape_builtin_ref(CXCursor c);

#endif
