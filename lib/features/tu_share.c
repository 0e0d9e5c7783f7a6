/* tu_share.c — a ks_tu from the AST a running clang already built, instead of
 * parsing the file a second time: either borrowed in the same process
 * (ks_tu_adopt: the clang plugin hands libclang the compile's own AST) or
 * from an AST file that clang wrote, loaded through libclang's deserializer
 * (ks_tu_load_ast, the plugin's fallback). The analysis modules then read it
 * exactly as they read a ks_tu_parse() result. */
#define _GNU_SOURCE
#include "features/ast.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernelskill/features.h"

/* The cursors of the main file's top-level declarations at offsets aOff, as
 * the TU cursor's children would give them. Each offset must lead (through
 * clang_getCursor and lexical parents) to a distinct top-level declaration
 * located there; if one does not, pTu->bTop stays 0 and every walk visits the
 * whole TU as for a parse: slower, never different. clang_getCursor reads the
 * AST file's per-file declaration index, so headers stay undeserialized. */
static int is_template_kind(enum CXCursorKind e) {
  return e == CXCursor_FunctionTemplate || e == CXCursor_ClassTemplate ||
         e == CXCursor_ClassTemplatePartialSpecialization || e == CXCursor_TypeAliasTemplateDecl;
}

/* The template a pattern declaration belongs to: the index gives a function
 * or class template's pattern (a FunctionDecl, a ClassDecl), and libclang
 * names a template only as the lexical parent of the pattern's members. */
static CXCursor template_of(CXCursor c) {
  CXCursor *aKid = NULL, up = clang_getNullCursor();
  int nKid = 0;
  ks_ast_children(c, &aKid, &nKid);
  for (int i = 0; i < nKid && clang_Cursor_isNull(up); i++)
    if (clang_isDeclaration(clang_getCursorKind(aKid[i]))) {
      CXCursor p = clang_getCursorLexicalParent(aKid[i]);
      if (is_template_kind(clang_getCursorKind(p))) up = p;
    }
  free(aKid);
  return up;
}

static int top_cursors(ks_tu *pTu, const unsigned *aOff, const unsigned char *aTmpl, int nOff) {
  CXFile file = clang_getFile(pTu->pTu, pTu->zFile);
  if (!file || nOff < 0) return KS_OK;
  CXCursor *a = nOff ? calloc((size_t)nOff, sizeof *a) : NULL;
  if (nOff && !a) return ks_error_set(KS_ENOMEM, "out of memory");
  int i = 0;
  for (; i < nOff; i++) {
    if (aOff[i] > pTu->nSrc) goto fallback;
    CXCursor c = clang_getCursor(pTu->pTu, clang_getLocationForOffset(pTu->pTu, file, aOff[i]));
    while (clang_isDeclaration(clang_getCursorKind(c))) {
      CXCursor up = clang_getCursorLexicalParent(c);
      if (clang_getCursorKind(up) == CXCursor_TranslationUnit) break;
      c = up;
    }
    if (!clang_isDeclaration(clang_getCursorKind(c))) goto fallback;
    /* The file's index also holds a template's implicit instantiations, at the
     * template's own location; the TU's children have the template. */
    CXCursor tmpl = clang_getSpecializedCursorTemplate(c);
    if (!clang_Cursor_isNull(tmpl) && ks_ast_offset(pTu, clang_getCursorLocation(tmpl)) == (long)aOff[i]) c = tmpl;
    int bTmpl = aTmpl && aTmpl[i];
    if (bTmpl && !is_template_kind(clang_getCursorKind(c))) c = template_of(c);
    if (bTmpl != is_template_kind(clang_getCursorKind(c))) goto fallback;
    if (ks_ast_offset(pTu, clang_getCursorLocation(c)) != (long)aOff[i]) goto fallback;
    for (int j = 0; j < i; j++)
      if (clang_equalCursors(a[j], c)) goto fallback;
    a[i] = c;
  }
  pTu->aTop = a;
  pTu->nTop = nOff;
  pTu->bTop = 1;
  if (getenv("KS_PLUGIN_PROFILE")) fprintf(stderr, "kernelskill profile: top-level list of %d declarations\n", nOff);
  return KS_OK;
fallback:
  if (getenv("KS_PLUGIN_PROFILE")) fprintf(stderr, "kernelskill profile: top-level list not usable (offset %u), whole-TU walks\n", aOff[i]);
  free(a);
  return KS_OK;
}

/* The ks_tu fields both entries fill the same way: the file's text, the
 * side (read back from the arguments by features.c, as for a parse) and the
 * compile's error count (it reported its own diagnostics; neither an AST
 * file nor a borrowed AST carries them). */
static int tu_new(const char *zFile, const ks_tu_load_opts *pOpts, ks_tu **ppTu) {
  if (pOpts->version != KS_TU_LOAD_OPTS_VERSION)
    return ks_error_set(KS_EUSAGE, "ks_tu_load_opts: unsupported version %u", pOpts->version);
  int rc = KS_OK;
  ks_tu *pTu = calloc(1, sizeof *pTu);
  if (!pTu) return ks_error_set(KS_ENOMEM, "out of memory");
  if (!(pTu->zFile = ks_strdup(zFile))) { rc = KS_ENOMEM; goto fail; }
  if (pOpts->zContents) {
    if (!(pTu->zSrc = malloc(pOpts->nContents + 1))) { rc = ks_error_set(KS_ENOMEM, "out of memory"); goto fail; }
    memcpy(pTu->zSrc, pOpts->zContents, pOpts->nContents);
    pTu->zSrc[pOpts->nContents] = 0;
    pTu->nSrc = pOpts->nContents;
  } else if ((rc = ks_file_read(zFile, &pTu->zSrc, &pTu->nSrc)) < 0) {
    goto fail;
  }
  pTu->azArgs = calloc(2, sizeof(char *));
  if (!pTu->azArgs) { rc = ks_error_set(KS_ENOMEM, "out of memory"); goto fail; }
  if (pOpts->bDeviceSide) {
    if (!(pTu->azArgs[0] = ks_strdup("--cuda-device-only"))) { rc = KS_ENOMEM; goto fail; }
    pTu->nArgs = 1;
  }
  pTu->nError = pOpts->nErrors;
  *ppTu = pTu;
  return KS_OK;
fail:
  ks_tu_free(pTu);
  return rc;
}

static double seconds_since(const struct timespec *t0) {
  struct timespec t1;
  clock_gettime(CLOCK_MONOTONIC, &t1);
  return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* The two entries' common path: a ks_tu around pCxTu (borrowed) or around
 * zAstFile loaded by libclang, its top-level list, the time it took. */
static int tu_open(const char *zFile, const char *zAstFile, void *pCxTu, const ks_tu_load_opts *pOpts, ks_tu **ppTu) {
  ks_tu_load_opts dflt = KS_TU_LOAD_OPTS_INIT;
  if (!pOpts) pOpts = &dflt;
  *ppTu = NULL;
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  ks_tu *pTu = NULL;
  int rc = tu_new(zFile, pOpts, &pTu);
  if (rc < 0) return rc;
  if (pCxTu) {
    pTu->pTu = (CXTranslationUnit)pCxTu;
    pTu->bBorrowed = 1;
  } else {
    pTu->pIndex = clang_createIndex(0, 0);
    enum CXErrorCode e = clang_createTranslationUnit2(pTu->pIndex, zAstFile, &pTu->pTu);
    if (e != CXError_Success || !pTu->pTu) {
      rc = ks_error_set(KS_EPARSE, "%s: libclang could not load the AST file %s (error %d)", zFile, zAstFile, (int)e);
      goto fail;
    }
  }
  if ((rc = top_cursors(pTu, pOpts->aTop, pOpts->aTopTemplate, pOpts->nTop)) < 0) goto fail;
  pTu->rParseSec = seconds_since(&t0);
  *ppTu = pTu;
  return KS_OK;
fail:
  ks_tu_free(pTu);
  return rc;
}

int ks_tu_load_ast(const char *zFile, const char *zAstFile, const ks_tu_load_opts *pOpts, ks_tu **ppTu) {
  return tu_open(zFile, zAstFile, NULL, pOpts, ppTu);
}

int ks_tu_adopt(const char *zFile, void *pCxTu, const ks_tu_load_opts *pOpts, ks_tu **ppTu) {
  *ppTu = NULL;
  if (!pCxTu) return ks_error_set(KS_EUSAGE, "ks_tu_adopt: no translation unit");
  return tu_open(zFile, NULL, pCxTu, pOpts, ppTu);
}
