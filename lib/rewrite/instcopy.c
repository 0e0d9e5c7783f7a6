/* instcopy.c — a kernel template as a kernel of its own for one instantiation.
 * Most rules read a concrete kernel (float pointers, constant sizes) and
 * refuse `template <typename T> __global__ void k(const T *x, ...)`. When one
 * does, the engine (rewrite.c) copies the template's instantiation that the
 * file launches, `k<float>`, as the ordinary kernel `k_float`, placed right
 * after the template (the names in scope at its definition are the ones the
 * copy sees), points those launches at it, and runs the rule on the copy.
 * The template stays as it was for every other use. */
#include "rewrite/instcopy.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "features/ast.h"
#include "rewrite/rwutil.h"

#define MONO_MAX_PARAMS 8

typedef struct mono_param {
  char *zName;  /* as the template names it */
  char *zText;  /* what the copy writes for it: a type, a (value), or a typedef's name */
  char *zTypedef; /* "typedef unsigned char ks_k_T;\n" for types of several words, else NULL */
  char *zKey;   /* the argument as the instantiation's key reads it: "unsigned char", "256" */
  int bBool;    /* a bool value parameter (written true / false) */
} mono_param;

typedef struct mono_state {
  ks_tu *pTu;
  const char *zKernel;
  CXCursor tmpl;
  unsigned iStart, iEnd;  /* the template's extent */
  unsigned iBody;         /* the offset just past the template header's '>' */
  mono_param a[MONO_MAX_PARAMS];
  int n;
  char *zKey;             /* the instantiation's arguments as one text, "float, 256" */
  char *zNew;             /* the copy's name */
} mono_state;

static void state_free(mono_state *s) {
  for (int i = 0; i < s->n; i++) {
    free(s->a[i].zName);
    free(s->a[i].zText);
    free(s->a[i].zTypedef);
    free(s->a[i].zKey);
  }
  free(s->zKey);
  free(s->zNew);
}

void ks_rewrite_instcopy_free(ks_instcopy *p) {
  if (!p) return;
  free(p->zSrc);
  free(p->zKernel);
  free(p->zInst);
  memset(p, 0, sizeof *p);
}

/* The template's parameters, in order: types and integral values only. */
static int read_params(mono_state *s, char **pzWhy) {
  CXCursor *aK = NULL;
  int nK = 0, rc = 0;
  ks_rw_children(s->tmpl, &aK, &nK);
  for (int i = 0; i < nK && rc == 0; i++) {
    enum CXCursorKind e = clang_getCursorKind(aK[i]);
    if (e == CXCursor_TemplateTemplateParameter) {
      *pzWhy = ks_strdup("it has a template template parameter");
      rc = -1;
    } else if (e == CXCursor_TemplateTypeParameter || e == CXCursor_NonTypeTemplateParameter) {
      if (s->n == MONO_MAX_PARAMS) {
        *pzWhy = ks_strdup("it has more than 8 template parameters");
        rc = -1;
      } else {
        s->a[s->n].bBool = clang_getCanonicalType(clang_getCursorType(aK[i])).kind == CXType_Bool;
        s->a[s->n++].zName = ks_rw_spelling(aK[i]);
      }
    }
  }
  free(aK);
  return rc;
}

/* A type the copy can name right after the template: a builtin, or one
 * declared before it (or in a header). */
static int type_in_scope(mono_state *s, CXType t) {
  CXType c = clang_getCanonicalType(t);
  if (c.kind >= CXType_FirstBuiltin && c.kind <= CXType_LastBuiltin) return 1;
  if (c.kind == CXType_Pointer) return type_in_scope(s, clang_getPointeeType(c));
  CXCursor d = clang_getTypeDeclaration(c);
  if (clang_Cursor_isNull(d)) return 0;
  CXFile f;
  unsigned iOff;
  clang_getExpansionLocation(clang_getCursorLocation(d), &f, NULL, NULL, &iOff);
  CXFile main = clang_getFile(s->pTu->pTu, s->pTu->zFile);
  return !clang_File_isEqual(f, main) || iOff < s->iStart;
}

/* Argument i of specialization spec as the copy writes it, into p (zText
 * and, for a type of several words, zTypedef). */
static int arg_text(mono_state *s, CXCursor spec, int i, mono_param *p, char **pzWhy) {
  enum CXTemplateArgumentKind e = clang_Cursor_getTemplateArgumentKind(spec, (unsigned)i);
  if (e == CXTemplateArgumentKind_Integral) {
    ks_buf b = KS_BUF_INIT;
    long long v = clang_Cursor_getTemplateArgumentValue(spec, (unsigned)i);
    if (s->a[i].bBool) ks_buf_puts(&b, v ? "true" : "false");
    else ks_buf_printf(&b, "%lld", v);
    p->zKey = ks_buf_detach(&b);
    if (s->a[i].bBool) p->zText = ks_strdup(p->zKey ? p->zKey : "");
    else ks_buf_printf(&b, "(%lld)", v), p->zText = ks_buf_detach(&b);
    return p->zText && p->zKey ? 0 : -1;
  }
  if (e != CXTemplateArgumentKind_Type) {
    *pzWhy = ks_strdup("an argument is neither a type nor an integer");
    return -1;
  }
  CXType t = clang_Cursor_getTemplateArgumentType(spec, (unsigned)i);
  CXString st = clang_getTypeSpelling(clang_getCanonicalType(t));
  const char *z = clang_getCString(st);
  int bWord = z && *z;
  for (const char *q = z; q && *q; q++)
    if (!(isalnum((unsigned char)*q) || *q == '_' || *q == ':')) bWord = 0;
  if (!type_in_scope(s, t)) {
    ks_buf b = KS_BUF_INIT;
    ks_buf_printf(&b, "%s = %s is declared after the kernel template", s->a[i].zName, z ? z : "?");
    *pzWhy = ks_buf_detach(&b);
    clang_disposeString(st);
    return -1;
  }
  p->zText = ks_strdup(z ? z : "");
  p->zKey = ks_strdup(z ? z : "");
  if (!bWord) { /* `T(0)` needs one word: name the type through a typedef */
    ks_buf b = KS_BUF_INIT;
    free(p->zText);
    p->zText = NULL;
    ks_buf_printf(&b, "typedef %s ks_%s_%s;\n", z, s->zKernel, s->a[i].zName);
    p->zTypedef = ks_buf_detach(&b);
    ks_buf_printf(&b, "ks_%s_%s", s->zKernel, s->a[i].zName);
    p->zText = ks_buf_detach(&b);
  }
  clang_disposeString(st);
  return p->zText && p->zKey ? 0 : -1;
}

static void params_clear(mono_param *a, int n) {
  for (int i = 0; i < n; i++) {
    free(a[i].zText);
    free(a[i].zTypedef);
    free(a[i].zKey);
    a[i].zText = a[i].zTypedef = a[i].zKey = NULL;
  }
}

/* The instantiation launch pL makes, outside templates: its arguments into
 * aOut[0..s->n) and their text into *pzKey ("float, 256"). 1 when read, 0
 * for a launch to leave alone (inside a template, another callee). */
static int launch_inst(mono_state *s, const ks_launch *pL, mono_param *aOut, char **pzKey, char **pzWhy) {
  *pzKey = NULL;
  if (ks_rw_enclosing_template(s->pTu, pL->iStart, NULL)) return 0; /* a host template's: no one instantiation */
  unsigned iName = pL->iStart;
  free(ks_rw_launch_targ(s->pTu, pL, 0, &iName));
  CXFile file = clang_getFile(s->pTu->pTu, s->pTu->zFile);
  CXCursor c = clang_getCursor(s->pTu->pTu, clang_getLocationForOffset(s->pTu->pTu, file, iName));
  CXCursor spec = clang_getCursorReferenced(c);
  if (clang_getCursorKind(spec) != CXCursor_FunctionDecl || clang_Cursor_getNumTemplateArguments(spec) != s->n)
    return 0;
  ks_buf key = KS_BUF_INIT;
  for (int i = 0; i < s->n; i++) {
    if (arg_text(s, spec, i, &aOut[i], pzWhy) < 0) {
      ks_buf_free(&key);
      return -1;
    }
    ks_buf_printf(&key, "%s%s", i ? ", " : "", aOut[i].zKey);
  }
  *pzKey = ks_buf_detach(&key);
  return *pzKey ? 1 : -1;
}

/* The copy's name: the kernel's and its arguments' (the key's words), as
 * one identifier: k_float, k_unsigned_char_256. */
static char *copy_name(const mono_state *s) {
  ks_buf b = KS_BUF_INIT;
  ks_buf_puts(&b, s->zKernel);
  int bSep = 1;
  for (const char *z = s->zKey; z && *z; z++) {
    int bId = isalnum((unsigned char)*z);
    if (bId && bSep) ks_buf_append(&b, "_", 1);
    if (bId) ks_buf_append(&b, z, 1);
    else if (*z == '-') ks_buf_puts(&b, "_m"), bSep = 0;
    if (*z != '-') bSep = !bId;
  }
  return ks_buf_detach(&b);
}

/* Does identifier z occur as a whole word in the file? */
static int word_in(const char *zSrc, size_t nSrc, const char *z) {
  size_t n = strlen(z);
  for (const char *p = zSrc; (p = strstr(p, z)) != NULL && (size_t)(p - zSrc) < nSrc; p++) {
    int bL = p == zSrc || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
    int bR = !(isalnum((unsigned char)p[n]) || p[n] == '_');
    if (bL && bR) return 1;
  }
  return 0;
}

/* The copy's text: the template from just past its header to its end, the
 * template's parameters written as the instantiation's arguments and its
 * name as the copy's. Refuses what would change meaning (`T::member`, the
 * kernel naming itself). */
static int copy_text(mono_state *s, ks_buf *pOut, char **pzWhy) {
  CXToken *aTok = NULL;
  unsigned nTok = 0;
  ks_tu *pTu = s->pTu;
  CXFile file = clang_getFile(pTu->pTu, pTu->zFile);
  CXSourceRange r = clang_getRange(clang_getLocationForOffset(pTu->pTu, file, s->iBody),
                                   clang_getLocationForOffset(pTu->pTu, file, s->iEnd));
  clang_tokenize(pTu->pTu, r, &aTok, &nTok);
  unsigned iPos = s->iBody;
  int rc = 0, bNamed = 0;
  for (unsigned i = 0; i < nTok && rc == 0; i++) {
    if (clang_getTokenKind(aTok[i]) != CXToken_Identifier) continue;
    unsigned iOff;
    clang_getExpansionLocation(clang_getTokenLocation(pTu->pTu, aTok[i]), NULL, NULL, NULL, &iOff);
    if (iOff < iPos || iOff >= s->iEnd) continue;
    CXString sp = clang_getTokenSpelling(pTu->pTu, aTok[i]);
    const char *z = clang_getCString(sp);
    const char *zBy = NULL;
    if (strcmp(z, s->zKernel) == 0) {
      if (bNamed) {
        *pzWhy = ks_strdup("the kernel names itself in its body");
        rc = -1;
      }
      bNamed = 1;
      zBy = s->zNew;
    }
    for (int k = 0; k < s->n && !zBy && rc == 0; k++) {
      if (strcmp(z, s->a[k].zName) != 0) continue;
      CXString sn = i + 1 < nTok ? clang_getTokenSpelling(pTu->pTu, aTok[i + 1]) : clang_getTokenSpelling(pTu->pTu, aTok[i]);
      CXString sb = i > 0 ? clang_getTokenSpelling(pTu->pTu, aTok[i - 1]) : clang_getTokenSpelling(pTu->pTu, aTok[i]);
      int bMember = i > 0 && (!strcmp(clang_getCString(sb), ".") || !strcmp(clang_getCString(sb), "->") ||
                              !strcmp(clang_getCString(sb), "::"));
      if (i + 1 < nTok && !strcmp(clang_getCString(sn), "::")) {
        ks_buf b = KS_BUF_INIT;
        ks_buf_printf(&b, "it reads a member of its parameter (%s::)", z);
        *pzWhy = ks_buf_detach(&b);
        rc = -1;
      } else if (!bMember) {
        zBy = s->a[k].zText;
      }
      clang_disposeString(sn);
      clang_disposeString(sb);
    }
    clang_disposeString(sp);
    if (zBy && rc == 0) {
      ks_buf_append(pOut, pTu->zSrc + iPos, iOff - iPos);
      ks_buf_puts(pOut, zBy);
      iPos = iOff + (unsigned)strlen(z);
    }
  }
  if (nTok) clang_disposeTokens(pTu->pTu, aTok, nTok);
  if (rc == 0 && !bNamed) {
    *pzWhy = ks_strdup("its name is not where the copy can rename it (a macro?)");
    rc = -1;
  }
  if (rc == 0) ks_buf_append(pOut, pTu->zSrc + iPos, s->iEnd - iPos);
  return rc;
}

/* The offset just past the template header's closing '>'. */
static int header_end(mono_state *s) {
  const char *z = s->pTu->zSrc;
  unsigned i = s->iStart;
  while (i < s->iEnd && z[i] != '<') i++;
  int nAngle = 0, nParen = 0;
  for (; i < s->iEnd; i++) {
    if (z[i] == '(') nParen++;
    else if (z[i] == ')') nParen--;
    else if (z[i] == '<' && nParen == 0) nAngle++;
    else if (z[i] == '>' && nParen == 0 && --nAngle == 0) {
      s->iBody = i + 1;
      while (s->iBody < s->iEnd && isspace((unsigned char)z[s->iBody])) s->iBody++; /* the copy starts at its first word */
      return 0;
    }
  }
  return -1;
}

/* The launch's callee as written, `k`, `k<float>` or `ns::k<float>`: the
 * kernel's name and its template arguments, [*piName, *piEnd). */
static int callee_range(const ks_tu *pTu, const ks_launch *pL, const char *zKernel, unsigned *piName, unsigned *piEnd) {
  if (pL->iCfgStart < pL->iStart + 3) return -1;
  unsigned e = pL->iCfgStart - 3;
  while (e > pL->iStart && isspace((unsigned char)pTu->zSrc[e - 1])) e--;
  size_t n = strlen(zKernel);
  const char *z = pTu->zSrc;
  unsigned i = pL->iStart;
  for (unsigned q = pL->iStart; q + 1 < e && z[q] != '<'; q++) /* past the last `::` before any template argument */
    if (z[q] == ':' && z[q + 1] == ':') i = q + 2;
  if (e - i < n || strncmp(z + i, zKernel, n) != 0) return -1;
  if (e - i > n && (z[i + n] != '<' || z[e - 1] != '>')) return -1;
  *piName = i;
  *piEnd = e;
  return 0;
}

typedef struct mono_edit {
  unsigned iStart, iEnd;
  char *zText;
} mono_edit;

static int cmp_medit(const void *a, const void *b) {
  const mono_edit *x = a, *y = b;
  return x->iStart < y->iStart ? -1 : x->iStart > y->iStart;
}

/* The launches of one instantiation outside templates, redirected to the
 * copy (edits into aE): the first such launch's; the others stay on the
 * template. s->a[].zText and s->zKey: that instantiation. */
static int redirect_launches(mono_state *s, const ks_launch *aL, int nL, mono_edit *aE, int *pnE, char **pzWhy) {
  mono_param aTmp[MONO_MAX_PARAMS];
  memset(aTmp, 0, sizeof aTmp);
  for (int i = 0; i < nL; i++) {
    char *zKey = NULL;
    int r = launch_inst(s, &aL[i], s->zKey ? aTmp : s->a, &zKey, pzWhy);
    params_clear(aTmp, s->n);
    if (r < 0) {
      free(zKey);
      return -1;
    }
    if (r == 0 || (s->zKey && strcmp(zKey, s->zKey) != 0)) { /* another instantiation: the template's */
      free(zKey);
      continue;
    }
    if (!s->zKey) s->zKey = zKey;
    else free(zKey);
    unsigned b, e;
    if (callee_range(s->pTu, &aL[i], s->zKernel, &b, &e) < 0) continue; /* written otherwise: the template's */
    if (aL[i].iStart < s->iEnd) {
      *pzWhy = ks_strdup("a launch comes before the template's definition");
      return -1;
    }
    aE[*pnE].iStart = b; /* a qualifier stays: the copy is in the template's namespace */
    aE[*pnE].iEnd = e;
    aE[*pnE].zText = NULL;
    (*pnE)++;
  }
  if (*pnE == 0) {
    *pzWhy = ks_strdup("no launch outside templates names one of its instantiations as `k<...><<<` or `k<<<`");
    return -1;
  }
  return 0;
}

static unsigned count_lines(const char *z, size_t n) {
  unsigned k = 0;
  for (size_t i = 0; i < n; i++) k += z[i] == '\n';
  return k;
}

/* Line iLine of the copied file as the user's file numbers it. */
static unsigned user_line(const ks_instcopy *c, unsigned iLine) {
  if (iLine <= c->iAtLine) return iLine;
  if (iLine > c->iAtLine + c->nAdded) return iLine - c->nAdded;
  unsigned iIn = iLine - c->iAtLine; /* 1-based within the copy */
  return iIn >= c->nHead ? c->iTmplLine + (iIn - c->nHead) : c->iTmplLine;
}

char *ks_rewrite_instcopy_lines(const ks_instcopy *pCopy, const char *zFile, const char *zMsg) {
  ks_buf b = KS_BUF_INIT;
  size_t nFile = zFile ? strlen(zFile) : 0;
  for (const char *z = zMsg; z && *z;) {
    size_t nTag = 0;
    if (nFile && strncmp(z, zFile, nFile) == 0 && z[nFile] == ':' && isdigit((unsigned char)z[nFile + 1]))
      nTag = nFile + 1;
    else if (strncmp(z, "line ", 5) == 0 && isdigit((unsigned char)z[5]) && (z == zMsg || !isalnum((unsigned char)z[-1])))
      nTag = 5;
    if (!nTag) {
      ks_buf_append(&b, z, 1);
      z++;
      continue;
    }
    char *zEnd;
    unsigned long n = strtoul(z + nTag, &zEnd, 10);
    ks_buf_append(&b, z, nTag);
    ks_buf_printf(&b, "%u", user_line(pCopy, (unsigned)n));
    z = zEnd;
  }
  return ks_buf_detach(&b);
}

/* The copies of template zKernel an earlier rewrite made, in file order,
 * found by their provenance comments: xFn(pArg, the copy's kernel cursor)
 * for each until it returns nonzero. */
static void each_copy(ks_tu *pTu, const char *zKernel, int (*xFn)(void *, CXCursor), void *pArg) {
  static const char zTag[] = "> as a kernel of its own, ";
  ks_buf mark = KS_BUF_INIT;
  ks_buf_printf(&mark, " %s<", zKernel);
  const char *zMark = ks_buf_cstr(&mark);
  for (const char *p = pTu->zSrc; mark.n && (p = strstr(p, zMark)) != NULL; p++) {
    const char *q = strstr(p, zTag), *nl = strchr(p, '\n');
    if (!q || (nl && q > nl)) continue;
    q += sizeof zTag - 1;
    size_t n = strcspn(q, ":\n");
    char *zName = malloc(n + 1);
    if (zName) memcpy(zName, q, n), zName[n] = 0;
    CXCursor k = zName ? ks_ast_find_kernel(pTu, zName) : clang_getNullCursor();
    free(zName);
    if (clang_getCursorKind(k) == CXCursor_FunctionDecl && xFn(pArg, k)) break;
  }
  ks_buf_free(&mark);
}

typedef struct last_end {
  ks_tu *pTu;
  unsigned iAt;
} last_end;

static int copy_end(void *pArg, CXCursor k) {
  last_end *p = pArg;
  unsigned a, b;
  if (ks_ast_extent(p->pTu, k, &a, &b) == 0 && b > p->iAt) p->iAt = b;
  return 0;
}

/* Where the copy goes: right after the template, or after the copies an
 * earlier rewrite made of it, so that what those rewrites put above their
 * copies (shipped helpers) stays above the ones that follow. */
static unsigned copy_place(mono_state *s) {
  last_end e = {s->pTu, s->iEnd};
  each_copy(s->pTu, s->zKernel, copy_end, &e);
  return e.iAt;
}

static int first_copy(void *pArg, CXCursor k) {
  *(char **)pArg = ks_rw_spelling(k);
  return 1;
}

char *ks_rewrite_instcopy_existing(ks_tu *pTu, const char *zKernel) {
  char *zName = NULL;
  if (clang_getCursorKind(ks_ast_find_kernel(pTu, zKernel)) == CXCursor_FunctionTemplate)
    each_copy(pTu, zKernel, first_copy, &zName);
  return zName;
}

static int build_source(mono_state *s, mono_edit *aE, int nE, const char *zNote, ks_instcopy *pOut, char **pzWhy) {
  ks_buf copy = KS_BUF_INIT, out = KS_BUF_INIT;
  int rc = 0;
  ks_buf_printf(&copy, "\n\n// kernelskill: %s %s<%s> as a kernel of its own, %s: the launches of that "
                       "instantiation here call it; the template stays for its other uses\n",
                zNote, s->zKernel, s->zKey, s->zNew);
  for (int i = 0; i < s->n; i++)
    if (s->a[i].zTypedef) ks_buf_puts(&copy, s->a[i].zTypedef);
  pOut->nHead = count_lines(ks_buf_cstr(&copy), copy.n) + 1;
  if (copy_text(s, &copy, pzWhy) < 0) rc = -1;
  unsigned iAt = copy_place(s), iCol;
  ks_ast_line_col(s->pTu, iAt, &pOut->iAtLine, &iCol);
  ks_ast_line_col(s->pTu, s->iBody, &pOut->iTmplLine, &iCol);
  pOut->nAdded = count_lines(ks_buf_cstr(&copy), copy.n);
  for (int i = 0; i < nE && rc == 0; i++) aE[i].zText = ks_strdup(s->zNew);
  aE[nE].iStart = aE[nE].iEnd = iAt;
  aE[nE].zText = ks_buf_detach(&copy);
  nE++;
  if (rc == 0) {
    qsort(aE, (size_t)nE, sizeof *aE, cmp_medit);
    size_t iPos = 0;
    for (int i = 0; i < nE; i++) {
      ks_buf_append(&out, s->pTu->zSrc + iPos, aE[i].iStart - iPos);
      ks_buf_puts(&out, aE[i].zText ? aE[i].zText : "");
      iPos = aE[i].iEnd;
    }
    ks_buf_append(&out, s->pTu->zSrc + iPos, s->pTu->nSrc - iPos);
    pOut->nSrc = out.n;
    pOut->zSrc = ks_buf_detach(&out);
    if (!pOut->zSrc) rc = -1;
  }
  for (int i = 0; i < nE; i++) free(aE[i].zText);
  ks_buf_free(&copy);
  ks_buf_free(&out);
  return rc;
}

int ks_rewrite_instcopy(ks_tu *pTu, const char *zKernel, const char *zNote, ks_instcopy *pOut) {
  mono_state s;
  memset(&s, 0, sizeof s);
  memset(pOut, 0, sizeof *pOut);
  s.pTu = pTu;
  s.zKernel = zKernel;
  s.tmpl = ks_ast_find_kernel(pTu, zKernel);
  char *zWhy = NULL;
  ks_launch *aL = NULL;
  int nL = 0, nE = 0, rc = KS_EPRECOND;
  mono_edit *aE = NULL;
  if (clang_getCursorKind(s.tmpl) != CXCursor_FunctionTemplate) goto done; /* nothing to say: not a template */
  if (!clang_isCursorDefinition(s.tmpl)) { /* declared first, defined below: copy the definition */
    CXCursor d = clang_getCursorDefinition(s.tmpl);
    if (clang_Cursor_isNull(d)) {
      zWhy = ks_strdup("the file does not define it");
      goto done;
    }
    s.tmpl = d;
  }
  if (!ks_rw_kernel_in_namespaces(s.tmpl)) { /* the copy goes beside it, in the same namespace */
    zWhy = ks_strdup("it is not at file scope or in namespaces");
    goto done;
  }
  if (ks_ast_extent(pTu, s.tmpl, &s.iStart, &s.iEnd) != 0 || header_end(&s) < 0) {
    zWhy = ks_strdup("its extent is not in the file (a macro?)");
    goto done;
  }
  if (read_params(&s, &zWhy) < 0) goto done;
  if ((rc = ks_ast_launches(pTu, zKernel, &aL, &nL)) < 0) goto done;
  rc = KS_EPRECOND;
  aE = calloc((size_t)nL + 1, sizeof *aE);
  if (!aE) {
    rc = ks_error_set(KS_ENOMEM, "out of memory");
    goto done;
  }
  if (redirect_launches(&s, aL, nL, aE, &nE, &zWhy) < 0) goto done;
  s.zNew = copy_name(&s);
  if (!s.zNew) goto done;
  pOut->zKernel = ks_strdup(s.zNew);
  pOut->zInst = ks_strdup(s.zKey);
  /* an earlier copy is found by its provenance (ks_rewrite_instcopy_existing):
   * a kernel of this name the file has otherwise is the user's own */
  if (word_in(pTu->zSrc, pTu->nSrc, s.zNew)) {
    ks_buf b = KS_BUF_INIT;
    ks_buf_printf(&b, "the copy's name %s is taken in this file", s.zNew);
    zWhy = ks_buf_detach(&b);
    goto done;
  }
  if (build_source(&s, aE, nE, zNote, pOut, &zWhy) < 0) goto done;
  nE = 0; /* build_source freed the edits' texts */
  rc = KS_OK;
done:
  if (rc == KS_EPRECOND)
    ks_error_set(KS_EPRECOND, "kernel template '%s' cannot be copied as one instantiation: %s", zKernel,
                 zWhy ? zWhy : "it is not a template");
  if (rc < 0) ks_rewrite_instcopy_free(pOut);
  for (int i = 0; i < nE; i++) free(aE[i].zText);
  free(aE);
  free(zWhy);
  ks_ast_launches_free(aL, nL);
  state_free(&s);
  return rc;
}
