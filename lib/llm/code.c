/* code.c — what an LLM reply must contain before its code is used: exactly one
 * fenced code block, and in it the expected __global__ kernels and the task's
 * host entry with C linkage and the exact signature (checked with libclang on
 * the text in memory; types compared canonically, so typedefs, parameter
 * names, top-level const and __restrict__ do not matter). */
#include "kernelskill/llm.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "features/ast.h"
#include "kernelskill/sandbox.h"

/* ---- fenced code blocks ---- */

/* Languages whose blocks count as the candidate's code. */
static int code_lang(const char *z, size_t n) {
  static const char *const azLang[] = {"cuda", "cu", "cpp", "c++", "cxx", "c", "cuh", "cuda-c++", "cuda_cpp", NULL};
  while (n > 0 && isspace((unsigned char)z[n - 1])) n--;
  while (n > 0 && isspace((unsigned char)*z)) z++, n--;
  if (n == 0) return 1; /* a bare ``` */
  /* "cuda title=x.cu": the first word names the language. */
  size_t nWord = 0;
  while (nWord < n && !isspace((unsigned char)z[nWord]) && z[nWord] != '{') nWord++;
  for (int i = 0; azLang[i]; i++)
    if (strlen(azLang[i]) == nWord && strncasecmp(z, azLang[i], nWord) == 0) return 1;
  return 0;
}

/* Does the line [z, zEnd) open or close a fence? Returns the offset of the
 * text after the backticks, or -1. Up to 3 spaces of indentation. */
static long fence_at(const char *z, const char *zEnd) {
  const char *p = z;
  int nSp = 0;
  while (p < zEnd && *p == ' ' && nSp < 3) p++, nSp++;
  if (zEnd - p >= 3 && p[0] == '`' && p[1] == '`' && p[2] == '`') {
    p += 3;
    while (p < zEnd && *p == '`') p++;
    return p - z;
  }
  return -1;
}

int ks_llm_extract_code(const char *zReply, char **pzCode, int *piLine) {
  *pzCode = NULL;
  if (piLine) *piLine = 0;
  int nBlocks = 0, nOther = 0, iLine = 0, iFirstLine = 0, iOpenLine = 0;
  int bIn = 0, bCode = 0;
  const char *zBeg = NULL, *zCodeBeg = NULL, *zCodeEnd = NULL;
  char zOtherLang[32] = "";
  for (const char *p = zReply; *p;) {
    const char *zEol = strchr(p, '\n');
    if (!zEol) zEol = p + strlen(p);
    iLine++;
    long iAfter = fence_at(p, zEol);
    if (!bIn && iAfter >= 0) {
      bIn = 1;
      iOpenLine = iLine;
      bCode = code_lang(p + iAfter, (size_t)(zEol - p - iAfter));
      zBeg = *zEol ? zEol + 1 : zEol;
      if (!bCode && !zOtherLang[0]) {
        size_t n = (size_t)(zEol - p - iAfter);
        if (n >= sizeof zOtherLang) n = sizeof zOtherLang - 1;
        memcpy(zOtherLang, p + iAfter, n);
        zOtherLang[n] = 0;
        for (char *q = zOtherLang; *q; q++)
          if (isspace((unsigned char)*q)) *q = 0;
      }
    } else if (bIn && iAfter >= 0) {
      /* A closing fence has nothing after the backticks. */
      const char *q = p + iAfter;
      while (q < zEol && isspace((unsigned char)*q)) q++;
      if (q == zEol) {
        bIn = 0;
        if (bCode) {
          if (nBlocks++ == 0) {
            zCodeBeg = zBeg;
            zCodeEnd = p;
            iFirstLine = iOpenLine + 1;
          }
        } else {
          nOther++;
        }
      }
    }
    p = *zEol ? zEol + 1 : zEol;
  }
  if (bIn) return ks_error_set(KS_EINVAL, "reply:%d: unterminated code block (no closing ```)", iOpenLine);
  if (nBlocks == 0) {
    if (nOther)
      return ks_error_set(KS_EINVAL, "the reply has no CUDA code block (only ```%s); expected exactly one ```cuda block",
                          zOtherLang);
    return ks_error_set(KS_EINVAL, "the reply has no code block; expected exactly one ```cuda block");
  }
  if (nBlocks > 1)
    return ks_error_set(KS_EINVAL, "the reply has %d code blocks; expected exactly one ```cuda block with the whole file",
                        nBlocks);
  size_t n = (size_t)(zCodeEnd - zCodeBeg);
  char *z = malloc(n + 1);
  if (!z) return ks_error_set(KS_ENOMEM, "out of memory");
  memcpy(z, zCodeBeg, n);
  z[n] = 0;
  *pzCode = z;
  if (piLine) *piLine = iFirstLine;
  return KS_OK;
}

/* ---- kernels and entry ---- */

static unsigned cursor_line(CXCursor c) {
  unsigned iLine = 0;
  clang_getExpansionLocation(clang_getCursorLocation(c), NULL, &iLine, NULL, NULL);
  return iLine;
}

static char *canonical_type(CXCursor c) {
  CXType t = clang_getCanonicalType(clang_getCursorType(c));
  CXString s = clang_getTypeSpelling(t);
  char *z = ks_strdup(clang_getCString(s));
  clang_disposeString(s);
  return z;
}

typedef struct fn_find {
  const char *zName;
  CXCursor decl;      /* any declaration seen */
  CXCursor def;       /* the definition */
  int bInNamespace;   /* look inside namespace zNamespace only */
  const char *zNamespace;
} fn_find;

static enum CXChildVisitResult find_fn(CXCursor c, CXCursor parent, CXClientData pData) {
  (void)parent;
  fn_find *pF = pData;
  enum CXCursorKind e = clang_getCursorKind(c);
  if (!ks_ast_in_main_file(c)) return CXChildVisit_Continue;
  if (e == CXCursor_LinkageSpec) return CXChildVisit_Recurse;
  if (e == CXCursor_Namespace) {
    if (!pF->zNamespace) return CXChildVisit_Continue; /* the entry is at global scope */
    CXString s = clang_getCursorSpelling(c);
    int bMatch = strcmp(clang_getCString(s), pF->zNamespace) == 0;
    clang_disposeString(s);
    return bMatch ? CXChildVisit_Recurse : CXChildVisit_Continue;
  }
  if (e != CXCursor_FunctionDecl) return CXChildVisit_Continue;
  if (pF->zNamespace) {
    CXCursor sem = clang_getCursorSemanticParent(c);
    if (clang_getCursorKind(sem) != CXCursor_Namespace) return CXChildVisit_Continue;
  }
  CXString s = clang_getCursorSpelling(c);
  int bMatch = strcmp(clang_getCString(s), pF->zName) == 0;
  clang_disposeString(s);
  if (!bMatch) return CXChildVisit_Continue;
  if (clang_Cursor_isNull(pF->decl)) pF->decl = c;
  if (clang_isCursorDefinition(c) && clang_Cursor_isNull(pF->def)) pF->def = c;
  return CXChildVisit_Continue;
}

static fn_find find_function(ks_tu *pTu, const char *zName, const char *zNamespace) {
  fn_find f = {zName, clang_getNullCursor(), clang_getNullCursor(), 0, zNamespace};
  clang_visitChildren(clang_getTranslationUnitCursor(pTu->pTu), find_fn, &f);
  return f;
}

int ks_llm_function_type(ks_tu *pTu, const char *zName, char **pzType) {
  *pzType = NULL;
  fn_find f = find_function(pTu, zName, NULL);
  if (clang_Cursor_isNull(f.def)) return ks_error_set(KS_ENOTFOUND, "%s: no function '%s' is defined", pTu->zFile, zName);
  *pzType = canonical_type(f.def);
  return *pzType ? KS_OK : ks_error_set(KS_ENOMEM, "out of memory");
}

/* The entry option is a declaration when it has a parameter list. Splits out
 * the function's name and the declaration to compile (no extern "C", no ';'). */
static int parse_entry_decl(const char *zEntry, char **pzName, char **pzDecl) {
  *pzName = *pzDecl = NULL;
  const char *zParen = strchr(zEntry, '(');
  if (!zParen) {
    const char *p = zEntry;
    while (*p && (isalnum((unsigned char)*p) || *p == '_')) p++;
    if (!zEntry[0] || *p || isdigit((unsigned char)zEntry[0]))
      return ks_error_set(KS_EUSAGE, "entry '%s': give a name or a declaration like 'void f(const float *x, int n)'",
                          zEntry);
    *pzName = ks_strdup(zEntry);
    return *pzName ? KS_OK : KS_ENOMEM;
  }
  if (strchr(zEntry, '{') || strchr(zEntry, '}') || strchr(zEntry, '#'))
    return ks_error_set(KS_EUSAGE, "entry '%s': give the declaration only, without a body", zEntry);
  /* The name: the identifier just before '('. */
  const char *zEnd = zParen;
  while (zEnd > zEntry && isspace((unsigned char)zEnd[-1])) zEnd--;
  const char *zBeg = zEnd;
  while (zBeg > zEntry && (isalnum((unsigned char)zBeg[-1]) || zBeg[-1] == '_')) zBeg--;
  if (zBeg == zEnd) return ks_error_set(KS_EUSAGE, "entry '%s': no function name before '('", zEntry);
  *pzName = malloc((size_t)(zEnd - zBeg) + 1);
  if (!*pzName) return ks_error_set(KS_ENOMEM, "out of memory");
  memcpy(*pzName, zBeg, (size_t)(zEnd - zBeg));
  (*pzName)[zEnd - zBeg] = 0;
  const char *zDecl = zEntry;
  while (isspace((unsigned char)*zDecl)) zDecl++;
  if (strncmp(zDecl, "extern", 6) == 0) {
    const char *q = zDecl + 6;
    while (isspace((unsigned char)*q)) q++;
    if (strncmp(q, "\"C\"", 3) == 0) zDecl = q + 3;
  }
  size_t n = strlen(zDecl);
  while (n > 0 && (isspace((unsigned char)zDecl[n - 1]) || zDecl[n - 1] == ';')) n--;
  *pzDecl = malloc(n + 1);
  if (!*pzDecl) return ks_error_set(KS_ENOMEM, "out of memory");
  memcpy(*pzDecl, zDecl, n);
  (*pzDecl)[n] = 0;
  return KS_OK;
}

static void collect_kernel_name(ks_tu *pTu, CXCursor c, void *pArg) {
  (void)pTu;
  ks_buf *pB = pArg;
  CXString s = clang_getCursorSpelling(c);
  ks_buf_printf(pB, "%s%s", pB->n ? ", " : "", clang_getCString(s));
  clang_disposeString(s);
}

/* Clang's first errors in the candidate, when they may explain a missing
 * definition. */
static void add_first_errors(ks_tu *pTu, unsigned nCodeLines, ks_buf *pWhy) {
  int nShown = 0;
  for (int i = 0; i < pTu->nDiag && nShown < 3; i++) {
    const ks_diag *d = &pTu->aDiag[i];
    if (!d->bError || d->iLine > nCodeLines) continue;
    ks_buf_printf(pWhy, "%s:%u:%u: error: %s\n", d->zFile, d->iLine, d->iCol, d->zMsg);
    nShown++;
  }
}

#define KS_EXPECT_NS "__kernelskill_expected"

int ks_llm_check_code(const char *zCode, size_t nCode, const ks_llm_check_opts *pOpts, ks_buf *pWhy) {
  ks_llm_check_opts dflt = KS_LLM_CHECK_OPTS_INIT;
  if (!pOpts) pOpts = &dflt;
  if (pOpts->version != KS_LLM_CHECK_OPTS_VERSION)
    return ks_error_set(KS_EUSAGE, "ks_llm_check_opts: unsupported version %u", pOpts->version);
  const char *zFile = pOpts->zFile ? pOpts->zFile : "candidate.cu";
  int rc = KS_OK, nProblems = 0;
  char *zName = NULL, *zDecl = NULL, *zGot = NULL, *zWant = NULL;
  ks_buf text = KS_BUF_INIT, names = KS_BUF_INIT;
  ks_tu *pTu = NULL;
  char **azArgs = NULL;
  int nArgs = 0;

  if (pOpts->zEntry && (rc = parse_entry_decl(pOpts->zEntry, &zName, &zDecl)) < 0) goto done;
  unsigned nCodeLines = 1;
  for (size_t i = 0; i < nCode; i++) nCodeLines += zCode[i] == '\n';
  /* The expected declaration is compiled after the candidate, in a namespace
   * of its own (C++ linkage there: no clash with the extern "C" entry), so its
   * types mean what they mean in the candidate (e.g. __half). */
  if ((rc = ks_buf_append(&text, zCode, nCode)) < 0) goto done;
  if (zDecl && (rc = ks_buf_printf(&text, "\nnamespace " KS_EXPECT_NS " { %s; }\n", zDecl)) < 0) goto done;

  ks_parse_opts po = KS_PARSE_OPTS_INIT;
  po.zContents = ks_buf_cstr(&text);
  po.nContents = text.n;
  if ((rc = ks_sandbox_clang_args(pOpts->azExtraArgs, pOpts->nExtraArgs, &azArgs, &nArgs)) < 0) goto done;
  po.azExtraArgs = (const char *const *)azArgs;
  po.nExtraArgs = nArgs;
  if ((rc = ks_tu_parse(zFile, &po, &pTu)) < 0) goto done;

  if (zDecl) {
    for (int i = 0; i < pTu->nDiag; i++) {
      const ks_diag *d = &pTu->aDiag[i];
      if (d->bError && d->iLine > nCodeLines) {
        rc = ks_error_set(KS_EPARSE, "the expected entry declaration '%s' does not parse: %s", pOpts->zEntry, d->zMsg);
        goto done;
      }
    }
    fn_find want = find_function(pTu, zName, KS_EXPECT_NS);
    if (clang_Cursor_isNull(want.decl)) {
      rc = ks_error_set(KS_EPARSE, "the expected entry declaration '%s' does not declare a function", pOpts->zEntry);
      goto done;
    }
    zWant = canonical_type(want.decl);
  } else if (pOpts->zEntryType) {
    zWant = ks_strdup(pOpts->zEntryType);
  }

  for (int i = 0; i < pOpts->nKernel; i++) {
    CXCursor k = ks_ast_find_kernel(pTu, pOpts->azKernel[i]);
    if (!clang_Cursor_isNull(k)) continue;
    ks_buf_clear(&names);
    ks_ast_each_kernel(pTu, collect_kernel_name, &names);
    ks_buf_printf(pWhy, "%s: the kernel '%s' is not defined (kernels defined: %s)\n", zFile, pOpts->azKernel[i],
                  names.n ? names.z : "none");
    nProblems++;
  }

  if (zName) {
    fn_find got = find_function(pTu, zName, NULL);
    if (clang_Cursor_isNull(got.def)) {
      if (!clang_Cursor_isNull(got.decl))
        ks_buf_printf(pWhy, "%s:%u: the entry '%s' is declared but not defined\n", zFile, cursor_line(got.decl), zName);
      else
        ks_buf_printf(pWhy, "%s: the entry '%s' is not defined\n", zFile, zName);
      nProblems++;
    } else {
      CXCursor c = got.def;
      unsigned iLine = cursor_line(c);
      if (ks_ast_is_kernel(c) || ks_ast_is_device_fn(c)) {
        ks_buf_printf(pWhy, "%s:%u: the entry '%s' must be a host function, not %s\n", zFile, iLine, zName,
                      ks_ast_is_kernel(c) ? "__global__" : "__device__");
        nProblems++;
      }
      CXString sMangled = clang_Cursor_getMangling(c);
      const char *zMangled = clang_getCString(sMangled);
      if (zMangled && strcmp(zMangled, zName) != 0) {
        ks_buf_printf(pWhy, "%s:%u: the entry '%s' must have C linkage: declare it extern \"C\"\n", zFile, iLine, zName);
        nProblems++;
      }
      clang_disposeString(sMangled);
      if (zWant) {
        zGot = canonical_type(c);
        if (zGot && strcmp(zGot, zWant) != 0) {
          ks_buf_printf(pWhy, "%s:%u: the entry '%s' has type '%s', expected '%s' (the signature must not change)\n",
                        zFile, iLine, zName, zGot, zWant);
          nProblems++;
        }
      }
    }
  }
  if (nProblems) {
    add_first_errors(pTu, nCodeLines, pWhy);
    rc = ks_error_set(KS_EINVAL, "%s: the code does not define what the task needs (%d problem%s)", zFile, nProblems,
                      nProblems == 1 ? "" : "s");
  }
done:
  ks_tu_free(pTu);
  ks_sandbox_env_free(azArgs);
  free(zName);
  free(zDecl);
  free(zGot);
  free(zWant);
  ks_buf_free(&text);
  ks_buf_free(&names);
  return rc;
}
