/* restrict-const.c — rule `restrict-const`: `const` on pointer parameters the
 * kernel only reads through, and `__restrict__` on all pointer parameters when
 * every launch site in the file passes distinct buffers (or one buffer to
 * parameters the kernel only reads), so the compiler may keep loads in
 * registers and use the read-only data path. Not when the kernel has a use
 * whose buffers the rule cannot see (cudaLaunchKernel, a function pointer):
 * __restrict__ binds every caller. */
#include "features/shape.h"
#include "rewrite/rwutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const azParams[] = {"restrict", 0};

typedef struct use_scan {
  ks_rw_param *aP;
  int nP;
  int *abWritten; /* per parameter: written through, or escapes where we cannot follow */
} use_scan;

static int param_of(use_scan *s, CXCursor ref) {
  CXCursor d = clang_getCursorReferenced(ref);
  for (int i = 0; i < s->nP; i++)
    if (s->aP[i].bPointer && clang_equalCursors(d, s->aP[i].decl)) return i;
  return -1;
}

static int type_has_const_pointee(CXType t) {
  t = clang_getCanonicalType(t);
  return t.kind == CXType_Pointer && clang_isConstQualifiedType(clang_getPointeeType(t));
}

/* Does the pointer value `cur` (child of aAnc[j]) only ever get read through? */
static int pointer_read_only(CXCursor cur, const CXCursor *aAnc, int j) {
  while (j >= 0) {
    CXCursor a = aAnc[j];
    enum CXCursorKind e = clang_getCursorKind(a);
    if (e == CXCursor_UnexposedExpr || e == CXCursor_ParenExpr) {
      cur = a;
      j--;
      continue;
    }
    if (e == CXCursor_ArraySubscriptExpr) {
      CXCursor *aK;
      int nK;
      ks_rw_children(a, &aK, &nK);
      int bBase = nK >= 1 && clang_equalCursors(aK[0], cur);
      free(aK);
      if (!bBase) return 1; /* used as the index (i[p] is legal C): a read */
      return ks_rw_elem_use(a, aAnc, j, NULL) == KS_RW_READ;
    }
    if (e == CXCursor_UnaryOperator) {
      enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(a);
      if (op == CXUnaryOperator_Deref) return ks_rw_elem_use(a, aAnc, j, NULL) == KS_RW_READ;
      if (op == CXUnaryOperator_PostInc || op == CXUnaryOperator_PreInc || op == CXUnaryOperator_PostDec ||
          op == CXUnaryOperator_PreDec)
        return 1; /* moves the pointer, not the data */
      if (op == CXUnaryOperator_LNot) return 1;
      return 0; /* &p and the like */
    }
    if (e == CXCursor_BinaryOperator) {
      enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(a);
      if (op == CXBinaryOperator_Add || op == CXBinaryOperator_Sub) {
        enum CXTypeKind eT = clang_getCanonicalType(clang_getCursorType(a)).kind;
        if (eT >= CXType_FirstBuiltin && eT <= CXType_LastBuiltin && eT != CXType_Dependent) return 1; /* p - q */
        /* a derived pointer, or in a template's pattern a type not known yet
         * (`output + row * cols` of a scalar_t *): follow it */
        cur = a;
        j--;
        continue;
      }
      if (op >= CXBinaryOperator_LT && op <= CXBinaryOperator_NE) return 1;
      if (op == CXBinaryOperator_LAnd || op == CXBinaryOperator_LOr) return 1;
      if (op == CXBinaryOperator_Assign) {
        CXCursor *aK;
        int nK;
        ks_rw_children(a, &aK, &nK);
        int bLhs = nK >= 1 && clang_equalCursors(aK[0], cur);
        free(aK);
        return bLhs; /* p = ... changes p only; q = p copies it (not followed) */
      }
      return 0;
    }
    if (e == CXCursor_CompoundAssignOperator) return 1; /* p += k */
    if (e == CXCursor_CStyleCastExpr || e == CXCursor_CXXStaticCastExpr || e == CXCursor_CXXReinterpretCastExpr ||
        e == CXCursor_CXXFunctionalCastExpr) {
      CXType t = clang_getCursorType(a);
      if (type_has_const_pointee(t)) return 1;
      if (clang_getCanonicalType(t).kind == CXType_Bool) return 1;
      return 0;
    }
    if (e == CXCursor_VarDecl) return type_has_const_pointee(clang_getCursorType(a));
    if (e == CXCursor_CallExpr) {
      CXCursor fn = clang_getCursorReferenced(a);
      int nArgs = clang_Cursor_getNumArguments(a);
      for (int i = 0; i < nArgs; i++) {
        if (!clang_equalCursors(clang_Cursor_getArgument(a, (unsigned)i), cur)) continue;
        if (clang_Cursor_isNull(fn) || i >= clang_Cursor_getNumArguments(fn)) return 0;
        return type_has_const_pointee(clang_getCursorType(clang_Cursor_getArgument(fn, (unsigned)i)));
      }
      return 0;
    }
    if (e == CXCursor_IfStmt || e == CXCursor_ConditionalOperator) return 1; /* if (p) */
    return 0;
  }
  return 0;
}

static int scan_use(CXCursor c, const CXCursor *aAnc, int nAnc, void *pArg) {
  use_scan *s = pArg;
  if (clang_getCursorKind(c) != CXCursor_DeclRefExpr) return 0;
  int iP = param_of(s, c);
  if (iP < 0 || s->abWritten[iP]) return 0;
  if (!pointer_read_only(c, aAnc, nAnc - 1)) s->abWritten[iP] = 1;
  return 0;
}

/* A buffer expression whose identity we can compare: `name` or
 * `name.data_ptr<T>()` / `name.data()`; returns the base name (malloc'd). */
static char *buffer_base(const char *zArg) {
  char *z = ks_rw_squash_text(zArg);
  if (!z) return NULL;
  /* (const float*)a: a cast to a pointer type names the same buffer */
  char *zClose = z[0] == '(' ? strchr(z, ')') : NULL;
  if (zClose && zClose > z + 1 && zClose[-1] == '*' && memchr(z + 1, '(', (size_t)(zClose - z - 1)) == NULL)
    memmove(z, zClose + 1, strlen(zClose + 1) + 1);
  size_t n = 0;
  while ((z[n] >= 'a' && z[n] <= 'z') || (z[n] >= 'A' && z[n] <= 'Z') || z[n] == '_' ||
         (n > 0 && z[n] >= '0' && z[n] <= '9'))
    n++;
  if (n == 0) goto fail;
  if (z[n] == 0) return z;
  if (strncmp(z + n, ".data_ptr<", 10) == 0 || strcmp(z + n, ".data()") == 0 || strncmp(z + n, ".data<", 6) == 0) {
    const char *zTail = strrchr(z, '(');
    if (zTail && strcmp(zTail, "()") == 0) {
      z[n] = 0;
      return z;
    }
  }
fail:
  free(z);
  return NULL;
}

/* Does one launch's argument list (azArg, as written) pass distinct buffers
 * to the pointer parameters, or one buffer only to parameters the kernel
 * reads? 1, or 0 with the reason appended to pWhy. */
static int args_distinct(ks_tu *pTu, const ks_rw_param *aP, int nP, const int *abWritten, const char *const *azArg,
                         int nArgs, unsigned iLine, ks_buf *pWhy) {
  char *azBase[64] = {0};
  int aiBase[64]; /* the parameter each base went to */
  int nBase = 0, bOk = 1;
  for (int i = 0; i < nP && i < nArgs && bOk; i++) {
    if (!aP[i].bPointer) continue;
    char *zB = buffer_base(azArg[i]);
    if (!zB) {
      ks_buf_printf(pWhy, "%s:%u: argument '%s' is not a plain buffer name", pTu->zFile, iLine, azArg[i]);
      bOk = 0;
      break;
    }
    /* One buffer behind two parameters is fine for __restrict__ while the
     * kernel only reads through both (C11 6.7.3.1 constrains only objects
     * that are modified); a written one must be the only way in. */
    for (int m = 0; m < nBase && bOk; m++)
      if (strcmp(azBase[m], zB) == 0 && (abWritten[i] || abWritten[aiBase[m]])) {
        ks_buf_printf(pWhy, "%s:%u: buffer '%s' is passed twice and written through %s", pTu->zFile, iLine, zB,
                      aP[abWritten[i] ? i : aiBase[m]].zName);
        bOk = 0;
      }
    if (nBase < 64) {
      aiBase[nBase] = i;
      azBase[nBase++] = zB;
    } else {
      free(zB);
      ks_buf_printf(pWhy, "%s:%u: too many pointer arguments to compare", pTu->zFile, iLine);
      bOk = 0;
    }
  }
  for (int m = 0; m < nBase; m++) free(azBase[m]);
  return bOk;
}

static int apply(ks_rewrite *p) {
  ks_tu *pTu = ks_rewrite_tu(p);
  const char *zKernel = ks_rewrite_kernel_name(p);
  CXCursor k = ks_ast_find_kernel(pTu, zKernel);
  ks_rw_param *aP = NULL;
  ks_launch *aL = NULL;
  int nP = 0, nL = 0, rc;
  int *abWritten = NULL;
  ks_buf what = KS_BUF_INIT, why = KS_BUF_INIT;
  unsigned iStart, iEnd;
  if (ks_ast_extent(pTu, k, &iStart, &iEnd) < 0) return ks_rewrite_refuse(p, "the kernel is not in the main file");
  const char *zMode = ks_rewrite_param(p, "restrict", "auto");
  if (strcmp(zMode, "auto") != 0 && strcmp(zMode, "no") != 0)
    return ks_error_set(KS_EUSAGE, "rule restrict-const: restrict must be auto or no, not '%s'", zMode);
  if ((rc = ks_rw_params(pTu, k, &aP, &nP)) < 0) return rc;
  abWritten = calloc((size_t)nP + 1, sizeof(int));
  if (!abWritten) {
    rc = ks_error_set(KS_ENOMEM, "out of memory");
    goto done;
  }
  int nPtr = 0;
  for (int i = 0; i < nP; i++) nPtr += aP[i].bPointer;
  if (nPtr == 0) {
    rc = ks_rewrite_refuse(p, "the kernel has no pointer parameters");
    goto done;
  }
  CXCursor body = ks_rw_body(k);
  if (clang_Cursor_isNull(body)) {
    rc = ks_rewrite_refuse(p, "the kernel has no body");
    goto done;
  }
  use_scan s = {aP, nP, abWritten};
  ks_rw_walk(body, scan_use, &s);

  /* __restrict__ only when every launch in this file passes distinct buffers. */
  int bRestrict = strcmp(zMode, "auto") == 0;
  if (bRestrict) {
    if ((rc = ks_ast_launches(pTu, zKernel, &aL, &nL)) < 0) goto done;
    /* __restrict__ binds every caller: a use the launches above do not show
     * (cudaLaunchKernel, a function pointer) may pass one buffer twice */
    ks_shape_use *aU = NULL;
    int nU = 0;
    if (bRestrict && (rc = ks_shape_uses(pTu, zKernel, &aU, &nU)) < 0) goto done;
    int nSeen = nL;
    for (int i = 0; i < nU && bRestrict; i++) {
      if (aU[i].eKind == KS_USE_LAUNCH || aU[i].eKind == KS_USE_QUERY) continue;
      if (aU[i].eKind == KS_USE_API && aU[i].nArg == nP) { /* the arguments the call shows */
        bRestrict = args_distinct(pTu, aP, nP, abWritten, (const char *const *)aU[i].azArg, aU[i].nArg, aU[i].iLine,
                                  &why);
        nSeen++;
        continue;
      }
      ks_buf_printf(&why, "%s:%u: the kernel is also used here (%s), where the buffers passed are not seen",
                    pTu->zFile, aU[i].iLine, aU[i].zHow ? aU[i].zHow : "?");
      bRestrict = 0;
    }
    ks_shape_uses_free(aU, nU);
    if (bRestrict && nSeen == 0) {
      bRestrict = 0;
      ks_buf_puts(&why, "no launch site in this file shows the pointers are distinct");
    }
    for (int l = 0; l < nL && bRestrict; l++)
      bRestrict = args_distinct(pTu, aP, nP, abWritten, (const char *const *)aL[l].azArg, aL[l].nArgs, aL[l].iLine,
                                &why);
  }

  int nConst = 0, nRestrict = 0, nHad = 0;
  for (int i = 0; i < nP; i++) {
    ks_rw_param *q = &aP[i];
    if (!q->bPointer) continue;
    int bAddConst = !q->bConstPointee && !abWritten[i];
    int bAddRestrict = bRestrict && !q->bRestrict && q->iNameStart < q->iEnd;
    if (q->bConstPointee || abWritten[i]) nHad++;
    if (bAddConst) {
      /* `float *a` -> `const float *a`: the pointee type comes first. */
      if ((rc = ks_rewrite_replace(p, q->iStart, q->iStart, "const ")) < 0) goto done;
      ks_buf_printf(&what, "%sconst %s", nConst + nRestrict ? ", " : "", q->zName);
      nConst++;
    }
    if (bAddRestrict) {
      if ((rc = ks_rewrite_replace(p, q->iNameStart, q->iNameStart, "__restrict__ ")) < 0) goto done;
      ks_buf_printf(&what, "%s__restrict__ %s", nConst + nRestrict ? ", " : "", q->zName);
      nRestrict++;
    }
  }
  if (nConst + nRestrict == 0) {
    if (ks_rewrite_has_note(p, iStart, iEnd, NULL)) {
      rc = ks_rewrite_already(p, "every read-only pointer is const%s", bRestrict ? " and every pointer __restrict__" : "");
    } else {
      rc = ks_rewrite_refuse(p, "nothing to add: every pointer parameter is written or already const%s%s",
                             why.n ? "; no __restrict__: " : "", ks_buf_cstr(&why));
    }
    goto done;
  }
  if (!bRestrict && why.n) ks_buf_printf(&what, " (no __restrict__: %s)", why.z);
  rc = ks_rewrite_note(p, iStart, ks_buf_cstr(&what));
done:
  ks_buf_free(&what);
  ks_buf_free(&why);
  free(abWritten);
  ks_rw_params_free(aP, nP);
  ks_ast_launches_free(aL, nL);
  return rc;
}

const ks_rule ks_rule_restrict_const = {
    "restrict-const", "const on read-only pointer parameters; __restrict__ when the launches pass distinct buffers",
    azParams, apply};
