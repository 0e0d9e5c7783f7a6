/* vectorize.c — rule `vectorize`: a pointwise kernel whose pointer accesses
 * are all P[i] loads and stores of one 4- or 8-byte element type handles
 * 16 bytes per pointer per thread: one 128-bit load per input, the element
 * body once per lane on registers, one 128-bit store per output; a scalar
 * loop covers the tail and misaligned pointers. Launch grids shrink to match. */
#include "rewrite/rwutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct vacc {
  unsigned iStart, iEnd; /* the P[i] expression */
  int iParam;
  int eUse;
  int bTop;              /* the store is a statement of the body itself */
  unsigned iStoreEnd;    /* end of the assigning expression (writes) */
} vacc;

typedef struct vscan {
  ks_tu *pTu;
  ks_rw_param *aP;
  int nP;
  CXCursor idx;
  CXCursor container; /* the body's compound statement (or null: single statement) */
  vacc *a;
  int n, nAlloc;
  const char *zWhy;
  int nLoopDepth;
  int nIdxUses; /* uses of the index outside P[i] */
  int bRootsAreStmts; /* the walks start at the body's own statements (early return) */
  int abNullTest[64];  /* per parameter: compared with null (`p != NULL`, `!p`, `if (p)`) */
  int abOther[64];     /* per parameter: read at an index other than i (`bias[i % cols]`) */
} vscan;

static int param_index(vscan *s, CXCursor d) {
  for (int i = 0; i < s->nP; i++)
    if (s->aP[i].bPointer && clang_equalCursors(d, s->aP[i].decl)) return i;
  return -1;
}

/* Is c a null pointer constant (NULL, nullptr, 0)? */
static int is_null_const(CXCursor c) {
  c = ks_rw_strip(c);
  enum CXCursorKind e = clang_getCursorKind(c);
  if (e == CXCursor_CXXNullPtrLiteralExpr || e == CXCursor_GNUNullExpr) return 1;
  if (e == CXCursor_IntegerLiteral || e == CXCursor_CStyleCastExpr) {
    CXEvalResult r = clang_Cursor_Evaluate(c);
    int b = r && clang_EvalResult_getKind(r) == CXEval_Int && clang_EvalResult_getAsLongLong(r) == 0;
    if (r) clang_EvalResult_dispose(r);
    return b;
  }
  return 0;
}

/* Pointer parameter reference c (ancestors aAnc) only tested against null:
 * `p != NULL`, `p == nullptr`, `!p`, or p in a boolean context. The test is
 * the same for every lane, so the body's copies keep it as written. */
static int is_null_test(CXCursor c, const CXCursor *aAnc, int nAnc) {
  CXCursor cur = c;
  int j = nAnc - 1;
  while (j >= 0) {
    enum CXCursorKind e = clang_getCursorKind(aAnc[j]);
    if (e == CXCursor_UnexposedExpr &&
        clang_getCanonicalType(clang_getCursorType(aAnc[j])).kind == CXType_Bool)
      return 1; /* if (p), p ? a : b, p && q */
    if (e != CXCursor_UnexposedExpr && e != CXCursor_ParenExpr) break;
    cur = aAnc[j--];
  }
  if (j < 0) return 0;
  CXCursor a = aAnc[j];
  enum CXCursorKind e = clang_getCursorKind(a);
  if (e == CXCursor_UnaryOperator) return clang_getCursorUnaryOperatorKind(a) == CXUnaryOperator_LNot;
  if (e != CXCursor_BinaryOperator) return 0;
  enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(a);
  if (op != CXBinaryOperator_EQ && op != CXBinaryOperator_NE) return 0;
  CXCursor aK[2];
  if (ks_rw_kids(a, aK, 2) != 2) return 0;
  return is_null_const(clang_equalCursors(aK[0], cur) ? aK[1] : aK[0]);
}

typedef struct ref_count {
  CXCursor decl;
  int n;
} ref_count;

static enum CXChildVisitResult ref_count_visit(CXCursor c, CXCursor parent, CXClientData pData) {
  (void)parent;
  ref_count *pR = pData;
  if (clang_getCursorKind(c) == CXCursor_DeclRefExpr && clang_equalCursors(clang_getCursorReferenced(c), pR->decl))
    pR->n++;
  return CXChildVisit_Recurse;
}

/* How many times expression c refers to declaration d. */
static int count_refs(CXCursor c, CXCursor d) {
  ref_count r = {d, 0};
  ref_count_visit(c, c, &r);
  clang_visitChildren(c, ref_count_visit, &r);
  return r.n;
}

static int scan(CXCursor c, const CXCursor *aAnc, int nAnc, void *pArg) {
  vscan *s = pArg;
  enum CXCursorKind e = clang_getCursorKind(c);
  if (e == CXCursor_DeclRefExpr) {
    if (clang_equalCursors(clang_getCursorReferenced(c), s->idx)) s->nIdxUses++;
    int iP = param_index(s, clang_getCursorReferenced(c));
    if (iP < 0) return 0;
    /* Must be the base of P[i] with i exactly the index variable. */
    int j = nAnc - 1;
    while (j >= 0 && clang_getCursorKind(aAnc[j]) == CXCursor_UnexposedExpr) j--;
    CXCursor *aK = NULL;
    int nK = 0;
    if (j >= 0 && clang_getCursorKind(aAnc[j]) == CXCursor_ArraySubscriptExpr) ks_rw_children(aAnc[j], &aK, &nK);
    int bBase = nK == 2 && clang_equalCursors(ks_rw_strip(aK[0]), c);
    int bOk = bBase && ks_rw_is_ref_to(aK[1], s->idx);
    free(aK);
    if (!bOk && bBase && iP < 64) {
      /* P[f(i)] read-only (a broadcast such as bias[i % cols], a gather):
       * it stays a scalar load in each lane's copy of the body, where i is
       * that lane's index. */
      if (ks_rw_elem_use(aAnc[j], aAnc, j, NULL) != KS_RW_READ) {
        s->zWhy = "an element is written at an index other than the global index";
        return -1;
      }
      /* Not a map: a read in a loop of the body (a thread walking a row),
       * or a gather at an index that uses i more than once (in[i * i % n]). */
      for (int k = 0; k < j; k++) {
        enum CXCursorKind ek = clang_getCursorKind(aAnc[k]);
        if (ek == CXCursor_ForStmt || ek == CXCursor_WhileStmt || ek == CXCursor_DoStmt) {
          s->zWhy = "a pointer is read in a loop of the element body";
          return -1;
        }
      }
      CXCursor aSub[2];
      if (ks_rw_kids(aAnc[j], aSub, 2) == 2 && count_refs(aSub[1], s->idx) > 1) {
        s->zWhy = "a pointer is read at an index that uses the global index more than once (a gather)";
        return -1;
      }
      s->abOther[iP] = 1;
      return 0;
    }
    if (!bOk && iP < 64 && is_null_test(c, aAnc, nAnc)) {
      s->abNullTest[iP] = 1;
      return 0;
    }
    if (!bOk) {
      s->zWhy = "a pointer parameter is used other than as P[i] with the global index";
      return -1;
    }
    for (int k = j + 1; k < nAnc; k++) { /* inside a loop of the body? */
      enum CXCursorKind ek = clang_getCursorKind(aAnc[k]);
      if (ek == CXCursor_ForStmt || ek == CXCursor_WhileStmt || ek == CXCursor_DoStmt) s->nLoopDepth++;
    }
    for (int k = 0; k < j; k++) {
      enum CXCursorKind ek = clang_getCursorKind(aAnc[k]);
      if (ek == CXCursor_ForStmt || ek == CXCursor_WhileStmt || ek == CXCursor_DoStmt) {
        s->zWhy = "a P[i] access sits in a loop of the element body";
        return -1;
      }
    }
    if (s->n == s->nAlloc) {
      int nNew = s->nAlloc ? s->nAlloc * 2 : 16;
      vacc *a = realloc(s->a, sizeof(vacc) * (size_t)nNew);
      if (!a) return -1;
      s->a = a;
      s->nAlloc = nNew;
    }
    vacc *v = &s->a[s->n++];
    memset(v, 0, sizeof *v);
    v->iParam = iP;
    ks_ast_extent(s->pTu, aAnc[j], &v->iStart, &v->iEnd);
    CXCursor w;
    v->eUse = ks_rw_elem_use(aAnc[j], aAnc, j, &w);
    if (v->eUse != KS_RW_READ) {
      if (clang_Cursor_isNull(w) || (clang_getCursorKind(w) != CXCursor_BinaryOperator &&
                                     clang_getCursorKind(w) != CXCursor_CompoundAssignOperator &&
                                     clang_getCursorKind(w) != CXCursor_CallExpr /* T::operator= */)) {
        s->zWhy = "an element is written other than by assignment (++, &, reference)";
        return -1;
      }
      unsigned ws, we;
      ks_ast_extent(s->pTu, w, &ws, &we);
      v->iStoreEnd = we;
      /* Unconditional: the assignment's parent is the body's compound statement. */
      int jw = -1;
      for (int k = 0; k < nAnc; k++)
        if (clang_equalCursors(aAnc[k], w)) jw = k;
      if (jw < 0) jw = j; /* w is aAnc[j-1]... */
      /* through the cleanups of a class-type assignment (c[i] = __float2half(...)) */
      while (jw > 0 && clang_getCursorKind(aAnc[jw - 1]) == CXCursor_UnexposedExpr) jw--;
      CXCursor par = jw > 0 ? aAnc[jw - 1] : clang_getNullCursor();
      /* jw == 0: the assignment is the walk's root, a statement of the body
       * itself (the single then-statement, or one after an early return). */
      v->bTop = jw == 0 ? clang_Cursor_isNull(s->container) || s->bRootsAreStmts : clang_equalCursors(par, s->container);
    }
    return 1;
  }
  return 0;
}

/* 16 bytes of 2-byte float elements: 8 lanes, four __half2 / __nv_bfloat162
 * worth, as one aligned struct so that a load or store is one 128-bit access;
 * the body runs per lane in the arithmetic it was written in (f32 through
 * __half2float when that is what the kernel does). */
static const char *pack_type(const char *zElem) {
  if (strcmp(zElem, "__half") == 0 || strcmp(zElem, "half") == 0) return "ks_pack8_half";
  if (strcmp(zElem, "__nv_bfloat16") == 0 || strcmp(zElem, "nv_bfloat16") == 0) return "ks_pack8_bf16";
  return NULL;
}

static const char *vec_type(const char *zElem, long long nSize, int *pnLanes) {
  *pnLanes = nSize == 4 ? 4 : nSize == 8 ? 2 : nSize == 2 ? 8 : 0;
  if (nSize == 2 && pack_type(zElem)) return pack_type(zElem);
  if (strcmp(zElem, "float") == 0) return "float4";
  if (strcmp(zElem, "int") == 0) return "int4";
  if (strcmp(zElem, "unsigned int") == 0) return "uint4";
  if (strcmp(zElem, "double") == 0) return "double2";
  if (strcmp(zElem, "long long") == 0) return "longlong2";
  *pnLanes = 0;
  return NULL;
}

/* The vector of nLanes elements of type zElem (nSize bytes each) when that is
 * less than 16 bytes: the narrower buffers of a kernel whose widest element
 * sets the lane count (a float -> __nv_bfloat16 cast: float4 and 4 bf16). */
static const char *narrow_vec_type(const char *zElem, long long nSize, int nLanes) {
  static const struct {
    const char *zElem;
    int nSize, nLanes;
    const char *zVec;
  } aVec[] = {{"float", 4, 2, "float2"},       {"int", 4, 2, "int2"},
              {"unsigned int", 4, 2, "uint2"}, {"__half", 2, 4, "ks_pack4_half"},
              {"half", 2, 4, "ks_pack4_half"}, {"__nv_bfloat16", 2, 4, "ks_pack4_bf16"},
              {"nv_bfloat16", 2, 4, "ks_pack4_bf16"}, {"__half", 2, 2, "ks_pack2_half"},
              {"half", 2, 2, "ks_pack2_half"}, {"__nv_bfloat16", 2, 2, "ks_pack2_bf16"},
              {"nv_bfloat16", 2, 2, "ks_pack2_bf16"}, {"unsigned char", 1, 4, "uchar4"},
              {"signed char", 1, 4, "char4"},  {"unsigned char", 1, 2, "uchar2"},
              {"signed char", 1, 2, "char2"}};
  for (size_t i = 0; i < sizeof aVec / sizeof aVec[0]; i++)
    if (aVec[i].nSize == nSize && aVec[i].nLanes == nLanes && strcmp(aVec[i].zElem, zElem) == 0) return aVec[i].zVec;
  return NULL;
}

static const char *const azLane = "xyzw";

/* Lane l of vector variable ks_v_<name> of type zVec, appended to pB. */
static void put_lane(ks_buf *pB, const char *zVec, const char *zName, int l) {
  if (strncmp(zVec, "ks_pack", 7) == 0) ks_buf_printf(pB, "ks_v_%s.e[%d]", zName, l);
  else ks_buf_printf(pB, "ks_v_%s.%c", zName, azLane[l]);
}

/* What the rewrite emits for one kernel: the vector type and its lanes, and
 * per pointer parameter whether it is used, loaded and stored. */
typedef struct vplan {
  const char *zVec, *zElem; /* the widest element's vector type and element */
  int nLanes;
  int bMixed;               /* buffers of more than one vector type */
  const char *azVec[64];    /* per buffer: its vector type (nLanes elements) */
  int anAlign[64];          /* per buffer: the bytes of that vector */
  int abLoad[64], abStore[64], abUsed[64];
} vplan;

/* The kernel, if it has the pointwise shape or its grid-stride form (the grid
 * then stays) and is not vectorized yet. */
static int match_kernel(ks_rewrite *p, CXCursor *pK, ks_rw_pointwise *pPw) {
  ks_tu *pTu = ks_rewrite_tu(p);
  unsigned ks0, ke0;
  char *zWhy = NULL, *zWhy2 = NULL;
  int rc = KS_OK;
  *pK = ks_ast_find_kernel(pTu, ks_rewrite_kernel_name(p));
  if (ks_ast_extent(pTu, *pK, &ks0, &ke0) < 0) return ks_rewrite_refuse(p, "the kernel is not in the main file");
  if (ks_rewrite_has_note(p, ks0, ke0, NULL)) return ks_rewrite_already(p, "the kernel is already vectorized");
  if (ks_rw_pointwise_match(pTu, *pK, pPw, &zWhy) < 0 && ks_rw_gridstride_match(pTu, *pK, pPw, &zWhy2) < 0)
    rc = ks_rewrite_refuse(p, "not a pointwise kernel: %s (nor a grid-stride loop: %s)", zWhy ? zWhy : "out of memory",
                           zWhy2 ? zWhy2 : "out of memory");
  free(zWhy);
  free(zWhy2);
  return rc;
}

/* Every pointer access of the element body into pS: the if's then-branch, the
 * statements after the early return, or the grid-stride loop's body. */
static void scan_body(CXCursor k, const ks_rw_pointwise *pPw, vscan *pS) {
  CXCursor body = ks_rw_body(k);
  CXCursor *aStmt;
  int nStmt;
  ks_rw_children(body, &aStmt, &nStmt);
  if (pPw->bGridStride) {
    pS->container = clang_getCursorKind(pPw->body) == CXCursor_CompoundStmt ? pPw->body : clang_getNullCursor();
    ks_rw_walk(pPw->body, scan, pS);
  } else if (pPw->bEarlyReturn) {
    pS->container = body;
    pS->bRootsAreStmts = 1;
    for (int i = 2; i < nStmt && !pS->zWhy; i++) {
      CXCursor anc[1] = {body};
      if (scan(aStmt[i], anc, 1, pS) == 0) {
        /* ks_rw_walk roots at the statement; prepend the body as ancestor */
        ks_rw_walk(aStmt[i], scan, pS);
      }
    }
  } else {
    CXCursor *aIf;
    int nIf;
    ks_rw_children(aStmt[1], &aIf, &nIf);
    CXCursor then = aIf[1];
    free(aIf);
    pS->container = clang_getCursorKind(then) == CXCursor_CompoundStmt ? then : clang_getNullCursor();
    ks_rw_walk(then, scan, pS);
  }
  free(aStmt);
}

/* The accesses found are ones the rewrite can vectorize: written in the
 * kernel (not a macro), of one element type with a 128-bit vector type, at
 * least one store, and no read of a buffer after a store to another (they
 * would see a different order if they alias). Fills the plan's type. */
static int check_accesses(ks_rewrite *p, const vscan *pS, const ks_rw_param *aP, const ks_rw_pointwise *pPw,
                          vplan *pPlan) {
  ks_tu *pTu = ks_rewrite_tu(p);
  if (pS->zWhy) return ks_rewrite_refuse(p, "%s", pS->zWhy);
  if (pS->n == 0) return ks_rewrite_refuse(p, "the element body accesses no pointer parameter");
  /* The body is copied once per lane with each P[i] replaced: an access
   * spelled inside a macro (several P[i] at one expansion location) has no
   * text of its own to replace. */
  for (int i = 0; i < pS->n; i++) {
    const vacc *a = &pS->a[i];
    if (ks_rewrite_in_macro(p, a->iStart, a->iEnd) || (i && a->iStart < pS->a[i - 1].iEnd) ||
        a->iStart < pPw->iBodyStart || a->iEnd > pPw->iBodyEnd || a->iEnd <= a->iStart) {
      unsigned iLine, iCol;
      ks_ast_line_col(pTu, a->iStart, &iLine, &iCol);
      return ks_rewrite_refuse(p, "%s:%u:%u: an element access is written inside a macro expansion; expand the macro "
                                  "or write the access in the kernel",
                               pTu->zFile, iLine, iCol);
    }
  }
  /* The widest element sets the lanes (16 bytes of it); each buffer gets the
   * vector of that many of its own elements. */
  unsigned iFirstStore = (unsigned)-1;
  int bAnyStore = 0;
  long long nMax = 0;
  for (int i = 0; i < pS->n; i++) {
    const ks_rw_param *q = &aP[pS->a[i].iParam];
    if (q->nElemSize > nMax) {
      nMax = q->nElemSize;
      pPlan->zElem = q->zElemType;
    }
    if (pS->a[i].eUse != KS_RW_READ) {
      bAnyStore = 1;
      if (pS->a[i].iStoreEnd < iFirstStore) iFirstStore = pS->a[i].iStoreEnd;
    }
  }
  for (int i = 0; i < pS->n; i++) {
    const ks_rw_param *q = &aP[pS->a[i].iParam];
    const char *zE = q->zElemType ? q->zElemType : "";
    int nL2 = 0;
    const char *zV = q->nElemSize == nMax ? vec_type(zE, q->nElemSize, &nL2) : NULL;
    if (q->nElemSize == nMax && !zV)
      return ks_rewrite_refuse(p, "parameter %s: element type '%s' has no 128-bit vector type here (float, int, "
                                  "unsigned, double, long long, __half, __nv_bfloat16)",
                               q->zName, q->zElemType ? q->zElemType : "?");
    if (zV) pPlan->nLanes = nL2;
  }
  if (pPlan->nLanes == 0) { /* no element size known (a template parameter) */
    const ks_rw_param *q = &aP[pS->a[0].iParam];
    return ks_rewrite_refuse(p, "parameter %s: element type '%s' has no 128-bit vector type here (float, int, "
                                "unsigned, double, long long, __half, __nv_bfloat16)",
                             q->zName, q->zElemType ? q->zElemType : "?");
  }
  for (int i = 0; i < pS->n; i++) {
    const ks_rw_param *q = &aP[pS->a[i].iParam];
    const char *zE = q->zElemType ? q->zElemType : "";
    int nL2 = 0, iP = pS->a[i].iParam;
    const char *zV = q->nElemSize == nMax ? vec_type(zE, q->nElemSize, &nL2)
                                          : narrow_vec_type(zE, q->nElemSize, pPlan->nLanes);
    if (!zV)
      return ks_rewrite_refuse(p, "pointer parameters of different element types (%s and %s): %s has no %d-lane "
                                  "vector type here",
                               pPlan->zElem, q->zElemType, q->zName, pPlan->nLanes);
    if (iP < 64) {
      pPlan->azVec[iP] = zV;
      pPlan->anAlign[iP] = (int)(q->nElemSize * pPlan->nLanes);
    }
    if (pPlan->zVec && strcmp(pPlan->zVec, zV) != 0) pPlan->bMixed = 1;
    if (!pPlan->zVec || q->nElemSize == nMax) pPlan->zVec = zV;
  }
  if (!bAnyStore) return ks_rewrite_refuse(p, "the element body stores through no pointer parameter");
  for (int i = 0; i < pS->n; i++) {
    if (pS->a[i].eUse != KS_RW_READ || pS->a[i].iStart < iFirstStore) continue;
    int bSame = 0;
    for (int m = 0; m < pS->n; m++)
      if (pS->a[m].eUse != KS_RW_READ && pS->a[m].iParam == pS->a[i].iParam) bSame = 1;
    if (!bSame)
      return ks_rewrite_refuse(p, "%s[%s] is read after a store through another pointer (they may alias)",
                               aP[pS->a[i].iParam].zName, pPw->zIdx);
  }
  return KS_OK;
}

/* Per buffer: used, loaded (read anywhere, or a store that is not
 * unconditional), stored. */
static int buffer_roles(ks_rewrite *p, const vscan *pS, const ks_rw_param *aP, int nP, vplan *pPlan) {
  if (nP > 64) return ks_rewrite_refuse(p, "too many parameters");
  for (int i = 0; i < nP; i++)
    if (pS->abNullTest[i] && pS->abOther[i])
      return ks_rewrite_refuse(p, "%s is both tested against null and read at another index", aP[i].zName);
  for (int i = 0; i < pS->n; i++) {
    int iP = pS->a[i].iParam;
    if ((pS->abNullTest[iP] || pS->abOther[iP]) && pS->a[i].eUse != KS_RW_READ)
      return ks_rewrite_refuse(p, "%s is written and %s", aP[iP].zName,
                               pS->abNullTest[iP] ? "tested against null"
                                                  : "read at another index than the global index");
    pPlan->abUsed[iP] = 1;
    if (pS->a[i].eUse & KS_RW_READ) pPlan->abLoad[iP] = 1;
    if (pS->a[i].eUse & KS_RW_WRITE) {
      pPlan->abStore[iP] = 1;
      if (!pS->a[i].bTop) pPlan->abLoad[iP] = 1; /* keep lanes the body may leave unwritten */
    }
  }
  return KS_OK;
}

/* The pack type of 2-byte elements (ks_pack<N>_half, ks_pack<N>_bf16: N
 * elements, aligned to their size), above the kernel, once per file whatever
 * the number of kernels given it. */
static int put_pack_type(ks_rewrite *p, CXCursor k, const char *zVec) {
  unsigned ks, ke;
  int rc, nLanes = zVec[7] - '0';
  ks_buf b = KS_BUF_INIT;
  if ((rc = ks_ast_extent(ks_rewrite_tu(p), k, &ks, &ke)) < 0) return rc;
  unsigned iKLine = ks_rewrite_line_start(p, ks, NULL);
  const char *zE = zVec[9] == 'h' ? "__half" : "__nv_bfloat16";
  ks_buf_printf(&b, "#ifndef %s_defined\n#define %s_defined\nstruct __align__(%d) %s { %s e[%d]; };\n#endif\n",
                zVec, zVec, nLanes * 2, zVec, zE, nLanes);
  rc = ks_rewrite_replace(p, iKLine, iKLine, ks_buf_cstr(&b));
  ks_buf_free(&b);
  return rc;
}

/* The element body once per lane of the vector, P[i] -> ks_v_P.<lane>, each
 * copy in a block of its own at indentation zIn. */
static void put_lanes(ks_buf *pB, const char *zSrc, const vscan *pS, const ks_rw_param *aP,
                      const ks_rw_pointwise *pPw, const vplan *pPlan, int nIn, const char *zIn) {
  ks_buf lane = KS_BUF_INIT;
  for (int l = 0; l < pPlan->nLanes; l++) {
    ks_buf_clear(&lane);
    unsigned iPos = pPw->iBodyStart;
    /* accesses are found in source order by the walk */
    for (int i = 0; i < pS->n; i++) {
      ks_buf_append(&lane, zSrc + iPos, pS->a[i].iStart - iPos);
      put_lane(&lane, pPlan->azVec[pS->a[i].iParam], aP[pS->a[i].iParam].zName, l);
      iPos = pS->a[i].iEnd;
    }
    ks_buf_append(&lane, zSrc + iPos, pPw->iBodyEnd - iPos);
    const char *zL = ks_buf_cstr(&lane);
    size_t nLane = strlen(zL);
    while (*zL == ' ' || *zL == '\n' || *zL == '\t') zL++, nLane--;
    while (nLane > 0 && (zL[nLane - 1] == ' ' || zL[nLane - 1] == '\n' || zL[nLane - 1] == '\t')) nLane--;
    ks_buf_printf(pB, "%.*s  {\n", nIn, zIn);
    if (pS->nIdxUses > pS->n) /* each P[i] holds one use */
      ks_buf_printf(pB, "%.*s    %s %s = (%s)(ks_base + %d);\n", nIn, zIn, pPw->zIdxType, pPw->zIdx, pPw->zIdxType, l);
    ks_buf_printf(pB, "%.*s    %.*s\n%.*s  }\n", nIn, zIn, (int)nLane, zL, nIn, zIn);
  }
  ks_buf_free(&lane);
}

/* The replacement of the guarded region (or grid-stride loop): vector loads
 * under an alignment and bounds guard, the body per lane, vector stores, and
 * the body as written in a scalar loop for the tail. */
static void put_vector_region(ks_buf *pB, ks_rewrite *p, const vscan *pS, const ks_rw_param *aP, int nP,
                              const ks_rw_pointwise *pPw, const vplan *pPlan) {
  const char *zSrc = ks_rewrite_source(p, NULL);
  int nLanes = pPlan->nLanes;
  unsigned nIndent = 0;
  unsigned iLine = ks_rewrite_line_start(p, pPw->iHeadStart, &nIndent);
  const char *zIn = zSrc + iLine;
  int nIn = (int)nIndent;
  if (pPw->bGridStride) {
    ks_buf_printf(pB, "const long long ks_n = (long long)(%s);\n", pPw->zBound);
    ks_buf_printf(pB,
                  "%.*sfor (long long ks_base = ((long long)blockIdx.x * blockDim.x + threadIdx.x) * %d; ks_base < "
                  "ks_n;\n"
                  "%.*s     ks_base += (long long)blockDim.x * gridDim.x * %d) {\n%.*s",
                  nIn, zIn, nLanes, nIn, zIn, nLanes, nIn, zIn);
  } else {
    ks_buf_printf(pB, "const long long ks_base = ((long long)blockIdx.x * blockDim.x + threadIdx.x) * %d;\n", nLanes);
    ks_buf_printf(pB, "%.*sconst long long ks_n = (long long)(%s);\n%.*s", nIn, zIn, pPw->zBound, nIn, zIn);
  }
  ks_buf_printf(pB, "if (ks_base + %d <= ks_n && ", nLanes);
  if (!pPlan->bMixed) {
    int bFirst = 1;
    ks_buf_printf(pB, "((");
    for (int i = 0; i < nP; i++) {
      if (!pPlan->abUsed[i]) continue;
      ks_buf_printf(pB, "%s(unsigned long long)(const void *)%s", bFirst ? "" : " | ", aP[i].zName);
      bFirst = 0;
    }
    ks_buf_printf(pB, ") %% 16) == 0) {\n");
  } else {
    /* each pointer aligned to its own vector */
    int bFirst = 1;
    for (int i = 0; i < nP; i++) {
      if (!pPlan->abUsed[i]) continue;
      ks_buf_printf(pB, "%s(unsigned long long)(const void *)%s %% %d == 0", bFirst ? "" : " && ", aP[i].zName,
                    pPlan->anAlign[i]);
      bFirst = 0;
    }
    ks_buf_printf(pB, ") {\n");
  }
  for (int i = 0; i < nP; i++) {
    const char *zVec = pPlan->azVec[i];
    if (!pPlan->abUsed[i]) continue;
    if (pPlan->abLoad[i] && pS->abNullTest[i]) /* read only where the body's own test lets it */
      ks_buf_printf(pB, "%.*s  const %s ks_v_%s = %s != nullptr ? *reinterpret_cast<const %s *>(%s + ks_base) : %s();\n",
                    nIn, zIn, zVec, aP[i].zName, aP[i].zName, zVec, aP[i].zName, zVec);
    else if (pPlan->abLoad[i])
      ks_buf_printf(pB, "%.*s  %s%s ks_v_%s = *reinterpret_cast<const %s *>(%s + ks_base);\n", nIn, zIn,
                    pPlan->abStore[i] ? "" : "const ", zVec, aP[i].zName, zVec, aP[i].zName);
    else
      ks_buf_printf(pB, "%.*s  %s ks_v_%s;\n", nIn, zIn, zVec, aP[i].zName);
  }
  put_lanes(pB, zSrc, pS, aP, pPw, pPlan, nIn, zIn);
  for (int i = 0; i < nP; i++)
    if (pPlan->abStore[i])
      ks_buf_printf(pB, "%.*s  *reinterpret_cast<%s *>(%s + ks_base) = ks_v_%s;\n", nIn, zIn, pPlan->azVec[i],
                    aP[i].zName, aP[i].zName);
  ks_buf_printf(pB, "%.*s} else {\n", nIn, zIn);
  ks_buf_printf(pB, "%.*s  for (long long ks_i = ks_base; ks_i < ks_base + %d && ks_i < ks_n; ++ks_i) {\n", nIn, zIn,
                nLanes);
  ks_buf_printf(pB, "%.*s    %s %s = (%s)ks_i;\n%.*s    ", nIn, zIn, pPw->zIdxType, pPw->zIdx, pPw->zIdxType, nIn, zIn);
  {
    unsigned bs = pPw->iBodyStart, be = pPw->iBodyEnd; /* the body as written, minus surrounding blank space */
    while (bs < be && (zSrc[bs] == ' ' || zSrc[bs] == '\n' || zSrc[bs] == '\t')) bs++;
    while (be > bs && (zSrc[be - 1] == ' ' || zSrc[be - 1] == '\n' || zSrc[be - 1] == '\t')) be--;
    ks_buf_append(pB, zSrc + bs, be - bs);
  }
  ks_buf_printf(pB, "\n%.*s  }\n%.*s}", nIn, zIn, nIn, zIn);
  if (pPw->bGridStride) ks_buf_printf(pB, "\n%.*s}", nIn, zIn);
}

static int apply(ks_rewrite *p) {
  ks_tu *pTu = ks_rewrite_tu(p);
  CXCursor k;
  ks_rw_pointwise pw;
  ks_rw_param *aP = NULL;
  ks_launch *aL = NULL;
  int nP = 0, nL = 0, rc = KS_OK;
  ks_rw_cover *aCov = NULL;
  ks_buf b = KS_BUF_INIT;
  vscan s;
  vplan plan;
  memset(&pw, 0, sizeof pw);
  memset(&s, 0, sizeof s);
  memset(&plan, 0, sizeof plan);
  if ((rc = match_kernel(p, &k, &pw)) < 0) goto done;
  if ((rc = ks_rw_require_class(p, k, KS_CLASS_MAP)) < 0) goto done;
  if ((rc = ks_rw_params(pTu, k, &aP, &nP)) < 0) goto done;
  s.pTu = pTu;
  s.aP = aP;
  s.nP = nP;
  s.idx = pw.idx;
  scan_body(k, &pw, &s);
  if ((rc = check_accesses(p, &s, aP, &pw, &plan)) < 0) goto done;
  /* A grid-stride loop covers its range with any grid: the launches stay. */
  if (!pw.bGridStride &&
      (rc = ks_rw_covered_launches(p, k, &pw, "its grid must shrink with the vector width", &aL, &nL, &aCov)) < 0)
    goto done;
  if ((rc = buffer_roles(p, &s, aP, nP, &plan)) < 0) goto done;
  for (int i = 0; i < nP; i++) {
    /* each pack type once: at its first buffer */
    const char *zV = plan.abUsed[i] ? plan.azVec[i] : NULL;
    int bFirst = zV && strncmp(zV, "ks_pack", 7) == 0;
    for (int m = 0; bFirst && m < i; m++)
      if (plan.abUsed[m] && strcmp(plan.azVec[m], zV) == 0) bFirst = 0;
    if (bFirst && (rc = put_pack_type(p, k, zV)) < 0) goto done;
  }
  put_vector_region(&b, p, &s, aP, nP, &pw, &plan);
  if ((rc = ks_rewrite_replace(p, pw.iHeadStart, pw.iRegionEnd, ks_buf_cstr(&b))) < 0) goto done;
  ks_buf_clear(&b);
  if (plan.bMixed) {
    /* every vector type, in parameter order */
    for (int i = 0; i < nP; i++) {
      int bNew = plan.abUsed[i];
      for (int m = 0; bNew && m < i; m++)
        if (plan.abUsed[m] && strcmp(plan.azVec[m], plan.azVec[i]) == 0) bNew = 0;
      if (bNew) ks_buf_printf(&b, "%s%s", b.n ? " + " : "", plan.azVec[i]);
    }
    ks_buf_printf(&b, " loads/stores (%d elements per thread), alignment guard, scalar tail", plan.nLanes);
  } else {
    ks_buf_printf(&b, "%s loads/stores (%d x %s per thread), alignment guard, scalar tail", plan.zVec, plan.nLanes,
                  plan.zElem);
  }
  if ((rc = ks_rewrite_note(p, pw.iHeadStart, ks_buf_cstr(&b))) < 0) goto done;
  ks_buf_clear(&b);
  ks_buf_printf(&b, "grid for %d elements per thread (%s)", plan.nLanes, plan.zVec);
  if (!pw.bGridStride) rc = ks_rw_scale_grids(p, aL, nL, aCov, plan.nLanes, ks_buf_cstr(&b));
done:
  ks_rw_covers_free(aCov, nL);
  free(s.a);
  ks_buf_free(&b);
  ks_rw_pointwise_free(&pw);
  ks_rw_params_free(aP, nP);
  ks_ast_launches_free(aL, nL);
  return rc;
}

const ks_rule ks_rule_vectorize = {
    "vectorize", "pointwise kernel: 128-bit loads/stores (float4, int4, double2), alignment guard, scalar tail", 0,
    apply};
