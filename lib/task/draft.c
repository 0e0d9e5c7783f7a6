/* draft.c — `kernelskill task init`: draft a task file from the signature of the
 * entry function, read from the source text (comments and strings skipped), so
 * nobody writes a task file from scratch. The draft validates as written; the
 * user checks the shapes, intents and sizes it had to guess. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "kernelskill/task.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct param {
  char zType[128]; /* the type words without the name, normalized spaces */
  char zName[64];
  int bPointer, bConst;
} param;

/* Split one parameter declaration "const float *__restrict__ x" into parts. */
static int split_param(const char *zBeg, const char *zEnd, param *p, int iPos) {
  char zBuf[256];
  size_t n = (size_t)(zEnd - zBeg);
  if (n >= sizeof zBuf) n = sizeof zBuf - 1;
  memcpy(zBuf, zBeg, n);
  zBuf[n] = 0;
  memset(p, 0, sizeof *p);
  /* Words and '*'s in order; the last identifier is the name. */
  char *azWord[32];
  int nWord = 0;
  for (char *q = zBuf; *q && nWord < 32;) {
    if (isspace((unsigned char)*q)) {
      q++;
    } else if (*q == '*' || *q == '&') {
      if (*q == '*') p->bPointer++;
      q++;
    } else if (isalnum((unsigned char)*q) || *q == '_' || *q == ':') {
      azWord[nWord++] = q;
      while (isalnum((unsigned char)*q) || *q == '_' || *q == ':') q++;
      if (*q) *q++ = 0;
    } else if (*q == '[') {
      p->bPointer++; /* float x[] */
      while (*q && *q != ']') q++;
    } else {
      q++;
    }
  }
  static const char *const azQual[] = {"const", "__restrict__", "__restrict", "restrict", "volatile", "struct", NULL};
  int iName = -1;
  for (int i = nWord - 1; i >= 0; i--) {
    int bQual = 0;
    for (int k = 0; azQual[k]; k++) bQual |= strcmp(azWord[i], azQual[k]) == 0;
    if (!bQual) {
      iName = i;
      break;
    }
  }
  int bHasType = 0;
  for (int i = 0; i < nWord; i++) {
    if (strcmp(azWord[i], "const") == 0) {
      p->bConst = 1;
      continue;
    }
    int bQual = 0;
    for (int k = 0; azQual[k]; k++) bQual |= strcmp(azWord[i], azQual[k]) == 0;
    if (bQual) continue;
    if (i == iName && (bHasType)) continue;
    size_t nT = strlen(p->zType);
    snprintf(p->zType + nT, sizeof p->zType - nT, "%s%s", nT ? " " : "", azWord[i]);
    bHasType = 1;
  }
  if (iName >= 0 && bHasType && strcmp(p->zType, azWord[iName]) != 0) {
    snprintf(p->zName, sizeof p->zName, "%s", azWord[iName]);
  } else {
    snprintf(p->zName, sizeof p->zName, "arg%d", iPos); /* unnamed parameter */
  }
  return p->zType[0] ? KS_OK : KS_EPARSE;
}

/* Map a C type (without pointer) to a dtype. */
static int type_to_dtype(const char *zType, ks_dtype *pe) {
  static const struct { const char *z; ks_dtype e; } aMap[] = {
      {"float", KS_DT_F32}, {"double", KS_DT_F64}, {"__half", KS_DT_F16}, {"half", KS_DT_F16},
      {"__nv_bfloat16", KS_DT_BF16}, {"nv_bfloat16", KS_DT_BF16}, {"int", KS_DT_I32}, {"int32_t", KS_DT_I32},
      {"signed int", KS_DT_I32}, {"unsigned", KS_DT_I32}, {"unsigned int", KS_DT_I32}, {"uint32_t", KS_DT_I32},
      {"long", KS_DT_I64}, {"long long", KS_DT_I64}, {"long int", KS_DT_I64}, {"int64_t", KS_DT_I64},
      {"size_t", KS_DT_I64}, {"uint64_t", KS_DT_I64}, {"unsigned long", KS_DT_I64},
      {"unsigned long long", KS_DT_I64}, {"std::size_t", KS_DT_I64}, {"unsigned char", KS_DT_U8},
      {"uint8_t", KS_DT_U8}, {"char", KS_DT_U8}, {"float4", KS_DT_F32}, {"float2", KS_DT_F32},
  };
  for (size_t i = 0; i < sizeof aMap / sizeof aMap[0]; i++) {
    if (strcmp(zType, aMap[i].z) == 0) {
      *pe = aMap[i].e;
      return KS_OK;
    }
  }
  return KS_ENOTFOUND;
}

/* Path of zTarget relative to the folder of zFrom (both made absolute). */
static char *relative_to(const char *zTarget, const char *zFrom) {
  char zA[PATH_MAX], zB[PATH_MAX];
  if (!realpath(zTarget, zA)) return ks_strdup(zTarget);
  char *zDir = ks_path_dirname(zFrom);
  if (!zDir) return NULL;
  if (!realpath(zDir, zB)) {
    free(zDir);
    return ks_strdup(zA);
  }
  free(zDir);
  size_t nB = strlen(zB);
  if (nB + 2 >= sizeof zB) return ks_strdup(zA);
  if (nB == 0 || zB[nB - 1] != '/') zB[nB++] = '/', zB[nB] = 0;
  size_t nCommon = 0; /* common prefix, up to and including a '/' */
  for (size_t i = 0; zA[i] && zA[i] == zB[i]; i++)
    if (zA[i] == '/') nCommon = i + 1;
  ks_buf b = KS_BUF_INIT;
  for (const char *q = zB + nCommon; *q; q++)
    if (*q == '/') ks_buf_puts(&b, "../");
  ks_buf_puts(&b, zA + nCommon);
  return ks_buf_detach(&b);
}

/* An integer parameter becomes a dim (and the scalar bound to it); a u8 does
 * not (a size of 1024 does not fit it). */
static int is_dim(const param *p, ks_dtype e, int bKnown) {
  return !p->bPointer && bKnown && !ks_dtype_is_float(e) && e != KS_DT_U8;
}

int ks_task_draft(const char *zSource, const char *zEntry, const ks_task_init_opts *pOpts, ks_buf *pOut,
                  ks_buf *pNotes) {
  char *zText = NULL, *zRel = NULL;
  size_t nText = 0;
  param aP[64];
  int nP = 0, rc;
  /* The entry names the task (and so the run folder): an identifier only. */
  int bIdent = (isalpha((unsigned char)zEntry[0]) || zEntry[0] == '_') && strlen(zEntry) <= 100;
  for (const char *q = zEntry; *q && bIdent; q++) bIdent = isalnum((unsigned char)*q) || *q == '_';
  if (!bIdent) return ks_error_set(KS_EINVAL, "--entry '%.100s' is not a C identifier", zEntry);
  if ((rc = ks_file_read(zSource, &zText, &nText)) < 0) return rc;
  ks_text_blank_code(zText);

  /* Find "zEntry (" that is followed by a "{" after its ')': a definition. */
  size_t nEntry = strlen(zEntry);
  const char *zOpen = NULL, *zClose = NULL;
  for (const char *p = zText; (p = strstr(p, zEntry)) != NULL; p += nEntry) {
    if (p > zText && (isalnum((unsigned char)p[-1]) || p[-1] == '_')) continue;
    const char *q = p + nEntry;
    while (isspace((unsigned char)*q)) q++;
    if (*q != '(') continue;
    int nDepth = 0;
    const char *r = q;
    for (; *r; r++) {
      if (*r == '(') nDepth++;
      else if (*r == ')' && --nDepth == 0) break;
    }
    if (!*r) break;
    const char *s = r + 1;
    while (isspace((unsigned char)*s)) s++;
    if (*s != '{' && *s != ';') continue;
    /* Prefer the definition; a prototype also gives the signature. */
    zOpen = q;
    zClose = r;
    if (*s == '{') break;
  }
  if (!zOpen) {
    rc = ks_error_set(KS_ENOTFOUND, "%s: no function '%s' (the entry: an extern \"C\" host function)", zSource, zEntry);
    goto done;
  }
  int iLine = 1;
  for (const char *p = zText; p < zOpen; p++) iLine += *p == '\n';
  {
    /* The declaration must be extern "C" (checked in the original text). */
    char *zOrig = NULL;
    size_t nOrig;
    if ((rc = ks_file_read(zSource, &zOrig, &nOrig)) < 0) goto done;
    int bExternC = strstr(zOrig, "extern \"C\"") != NULL;
    free(zOrig);
    if (!bExternC)
      ks_buf_printf(pNotes, "%s:%d: '%s' should be declared extern \"C\" (the harness looks it up by its C name)\n",
                    zSource, iLine, zEntry);
  }
  /* Split the parameter list at top-level commas. */
  const char *zBeg = zOpen + 1;
  int nDepth = 0;
  for (const char *p = zOpen + 1; p <= zClose; p++) {
    if (*p == '(' || *p == '<' || *p == '[') nDepth++;
    else if ((*p == ')' || *p == '>' || *p == ']') && p != zClose) nDepth--;
    if ((*p == ',' && nDepth == 0) || p == zClose) {
      const char *e = p;
      int bBlank = 1;
      for (const char *s = zBeg; s < e; s++) bBlank &= isspace((unsigned char)*s) != 0;
      if (!bBlank) {
        if (nP == 64) {
          rc = ks_error_set(KS_EINVAL, "%s:%d: '%s' has more than 64 parameters", zSource, iLine, zEntry);
          goto done;
        }
        if (split_param(zBeg, e, &aP[nP], nP) < 0 || strcmp(aP[nP].zType, "void") == 0) {
          if (strcmp(aP[nP].zType, "void") == 0 && !aP[nP].bPointer) {
            zBeg = p + 1;
            continue;
          }
        }
        nP++;
      }
      zBeg = p + 1;
    }
  }
  if (nP == 0) {
    rc = ks_error_set(KS_EINVAL, "%s:%d: '%s' takes no parameters: the harness needs at least one output tensor",
                      zSource, iLine, zEntry);
    goto done;
  }
  /* Names the task check accepts: identifiers, each once (an odd or repeated
   * name becomes argN, itself made unique). */
  for (int i = 0; i < nP; i++) {
    int bOk = isalpha((unsigned char)aP[i].zName[0]) || aP[i].zName[0] == '_';
    for (const char *q = aP[i].zName; *q && bOk; q++) bOk = isalnum((unsigned char)*q) || *q == '_';
    for (int j = 0; j < i && bOk; j++) bOk = strcmp(aP[i].zName, aP[j].zName) != 0;
    for (int k = i; !bOk; k++) {
      snprintf(aP[i].zName, sizeof aP[i].zName, "arg%d", k);
      bOk = 1;
      for (int j = 0; j < nP && bOk; j++) bOk = j == i || strcmp(aP[i].zName, aP[j].zName) != 0;
    }
  }

  zRel = pOpts && pOpts->zOutPath ? relative_to(zSource, pOpts->zOutPath) : ks_strdup(zSource);
  if (!zRel) {
    rc = KS_ENOMEM;
    goto done;
  }
  /* `task check` refuses a source outside the task's folder tree unless told
   * otherwise: the draft must pass it, so say so now. */
  if (!(pOpts && pOpts->version >= 2 && pOpts->bAllowOutside) && (zRel[0] == '/' || strncmp(zRel, "../", 3) == 0)) {
    rc = ks_error_set(KS_EINVAL,
                      "%s lies outside the folder of the task file to write (%s): write the task file next to the "
                      "source or above it, or pass --allow-outside (task check then needs it too)",
                      zSource, pOpts && pOpts->zOutPath ? pOpts->zOutPath : "the current folder");
    goto done;
  }
  char zName[128];
  snprintf(zName, sizeof zName, "%s", zEntry);
  ks_buf_puts(pOut, "{\n  \"ks_task\": 1,\n  \"name\": ");
  ks_buf_json_string(pOut, zName);
  ks_buf_puts(pOut, ",\n  \"source\": ");
  ks_buf_json_string(pOut, zRel);
  ks_buf_puts(pOut, ",\n  \"entry\": ");
  ks_buf_json_string(pOut, zEntry);
  /* Integers become dims (a placeholder size) and scalars bound to them. */
  ks_buf_puts(pOut, ",\n  \"dims\": {");
  int nDims = 0;
  ks_dtype aType[64];
  int abKnown[64];
  for (int i = 0; i < nP; i++) {
    abKnown[i] = type_to_dtype(aP[i].zType, &aType[i]) == KS_OK;
    if (!aP[i].bPointer && (aType[i] == KS_DT_F16 || aType[i] == KS_DT_BF16) && abKnown[i]) {
      rc = ks_error_set(KS_EINVAL, "%s:%d: parameter '%s' is a %s scalar, which the harness cannot pass "
                        "(take a float and convert in the entry)", zSource, iLine, aP[i].zName, aP[i].zType);
      goto done;
    }
    if (!abKnown[i]) {
      ks_buf_printf(pNotes, "%s:%d: parameter '%s' has type '%s%s', which the harness cannot pass; "
                    "drafted as f32, change the entry to a supported type\n", zSource, iLine, aP[i].zName,
                    aP[i].zType, aP[i].bPointer ? " *" : "");
      aType[i] = KS_DT_F32;
    }
    if (is_dim(&aP[i], aType[i], abKnown[i])) {
      ks_buf_printf(pOut, "%s\"%s\": 1024", nDims++ ? ", " : "", aP[i].zName);
    }
  }
  /* Every tensor is shaped by the dims; more than 4 of 1024 would pass the
   * size limit (2^40 elements), so then only the first shapes them. */
  int nShapeDims = nDims > 4 ? 1 : nDims;
  if (nDims > 4)
    ks_buf_printf(pNotes, "%s:%d: %d integer parameters: tensors drafted with the first one as their only size\n",
                  zSource, iLine, nDims);
  ks_buf_puts(pOut, "},\n  \"args\": [\n");
  int nTensors = 0, nOut = 0;
  for (int i = 0; i < nP; i++) {
    ks_buf_printf(pOut, "    {\"name\": \"%s\", ", aP[i].zName);
    if (aP[i].bPointer) {
      ks_dtype e = aType[i];
      if (strcmp(aP[i].zType, "float4") == 0 || strcmp(aP[i].zType, "float2") == 0)
        ks_buf_printf(pNotes, "%s:%d: '%s' is %s*: drafted as an f32 tensor; its shape counts floats\n", zSource,
                      iLine, aP[i].zName, aP[i].zType);
      int bIn = aP[i].bConst;
      nOut += !bIn;
      nTensors++;
      ks_buf_printf(pOut, "\"kind\": \"tensor\", \"dtype\": \"%s\", \"shape\": [", ks_dtype_name(e));
      int k = 0;
      for (int j = 0; j < nP && k < nShapeDims; j++) {
        if (is_dim(&aP[j], aType[j], abKnown[j])) ks_buf_printf(pOut, "%s\"%s\"", k++ ? ", " : "", aP[j].zName);
      }
      if (k == 0) ks_buf_puts(pOut, "1024");
      ks_buf_printf(pOut, "], \"intent\": \"%s\"", bIn ? "in" : "out");
      if (bIn) {
        if (ks_dtype_is_float(e)) ks_buf_puts(pOut, ", \"init\": {\"dist\": \"normal\", \"mean\": 0, \"std\": 1}");
        else ks_buf_puts(pOut, ", \"init\": {\"dist\": \"randint\", \"low\": 0, \"high\": 10}");
      }
      ks_buf_puts(pOut, "}");
    } else if (ks_dtype_is_float(aType[i])) {
      ks_buf_printf(pOut, "\"kind\": \"scalar\", \"dtype\": \"%s\", \"value\": 1.0}", ks_dtype_name(aType[i]));
      ks_buf_printf(pNotes, "%s:%d: scalar '%s': set its value (drafted as 1.0)\n", zSource, iLine, aP[i].zName);
    } else if (!is_dim(&aP[i], aType[i], abKnown[i])) {
      /* A u8 scalar is no size (1024 would not fit it). */
      ks_buf_printf(pOut, "\"kind\": \"scalar\", \"dtype\": \"%s\", \"value\": 1}", ks_dtype_name(aType[i]));
      ks_buf_printf(pNotes, "%s:%d: scalar '%s': set its value (drafted as 1)\n", zSource, iLine, aP[i].zName);
    } else {
      ks_buf_printf(pOut, "\"kind\": \"scalar\", \"dtype\": \"%s\", \"value\": \"%s\"}", ks_dtype_name(aType[i]),
                    aP[i].zName);
    }
    ks_buf_puts(pOut, i + 1 < nP ? ",\n" : "\n");
  }
  ks_buf_puts(pOut, "  ],\n  \"tolerance\": {\"rtol\": 1e-4, \"atol\": 1e-5}\n}\n");
  if (nTensors == 0 || nOut == 0) {
    rc = ks_error_set(KS_EINVAL, "%s:%d: '%s' has no non-const pointer parameter: the harness needs an output tensor",
                      zSource, iLine, zEntry);
    goto done;
  }
  if (nDims)
    ks_buf_printf(pNotes, "%s:%d: dims set to 1024 and every tensor shaped by all integer parameters: "
                  "check each shape, and set real sizes\n", zSource, iLine);
  ks_buf_printf(pNotes, "%s:%d: intents guessed from const (const: in, else out): mark inout tensors\n", zSource,
                iLine);
  ks_buf_puts(pNotes, "add \"cost\": {\"flops\": EXPR, \"bytes\": EXPR} for the roofline\n");
  rc = KS_OK;
done:
  free(zText);
  free(zRel);
  return rc;
}
