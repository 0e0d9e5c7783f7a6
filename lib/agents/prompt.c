/* prompt.c — the agents' prompt templates: files under
 * share/kernelskill/prompts/ (or $KS_PROMPTS_DIR), split into a system and a
 * user part, rendered by a small template engine with named placeholders,
 * optional sections and comments. Values are inserted verbatim and never
 * re-expanded, since they carry code and LLM output. */
#include "kernelskill/agents.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const ks_prompt_var *find_var(const ks_prompt_var *aVar, int nVar, const char *z, size_t n) {
  for (int i = 0; i < nVar; i++)
    if (aVar[i].zName && strlen(aVar[i].zName) == n && memcmp(aVar[i].zName, z, n) == 0) return &aVar[i];
  return NULL;
}

static unsigned line_of(const char *zStart, const char *p) {
  unsigned n = 1;
  for (const char *q = zStart; q < p; q++) n += *q == '\n';
  return n;
}

/* One {{...}} tag. */
typedef struct tag {
  const char *zBeg, *zEnd; /* the whole tag, braces included */
  char cKind;              /* 0 value, '#', '^', '/', '!' */
  const char *zName;       /* name (trimmed) */
  size_t nName;
} tag;

static int next_tag(const char *zName, const char *zTpl, const char *p, tag *pT) {
  const char *zOpen = strstr(p, "{{");
  if (!zOpen) return 0;
  const char *zClose = strstr(zOpen + 2, "}}");
  if (!zClose) return ks_error_set(KS_EINVAL, "%s:%u: '{{' without a closing '}}'", zName, line_of(zTpl, zOpen));
  pT->zBeg = zOpen;
  pT->zEnd = zClose + 2;
  const char *z = zOpen + 2;
  pT->cKind = 0;
  if (*z == '#' || *z == '^' || *z == '/' || *z == '!') pT->cKind = *z++;
  while (z < zClose && (*z == ' ' || *z == '\t')) z++;
  const char *zE = zClose;
  while (zE > z && (zE[-1] == ' ' || zE[-1] == '\t')) zE--;
  pT->zName = z;
  pT->nName = (size_t)(zE - z);
  if (pT->cKind != '!') {
    if (pT->nName == 0) return ks_error_set(KS_EINVAL, "%s:%u: empty placeholder", zName, line_of(zTpl, zOpen));
    for (const char *q = z; q < zE; q++)
      if (!((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9') || *q == '_'))
        return ks_error_set(KS_EINVAL, "%s:%u: bad placeholder name '%.*s'", zName, line_of(zTpl, zOpen),
                            (int)pT->nName, z);
  }
  return 1;
}

/* A tag alone on its line (only blanks around it) takes the line with it. */
static void standalone_span(const char *zTpl, const tag *pT, const char **pzFrom, const char **pzTo) {
  const char *a = pT->zBeg, *b = pT->zEnd;
  while (a > zTpl && (a[-1] == ' ' || a[-1] == '\t')) a--;
  while (*b == ' ' || *b == '\t') b++;
  if ((a == zTpl || a[-1] == '\n') && (*b == '\n' || *b == 0)) {
    *pzFrom = a;
    *pzTo = *b == '\n' ? b + 1 : b;
  } else {
    *pzFrom = pT->zBeg;
    *pzTo = pT->zEnd;
  }
}

#define KS_PROMPT_MAX_DEPTH 16

int ks_prompt_render(const char *zName, const char *zTemplate, const ks_prompt_var *aVar, int nVar, ks_buf *pOut) {
  if (!zName) zName = "<template>";
  /* Open sections: name, and whether their text is emitted. */
  struct {
    const char *z;
    size_t n;
    int bEmit;
    const char *zAt;
  } aStack[KS_PROMPT_MAX_DEPTH];
  int nStack = 0, bEmit = 1, rc;
  const char *p = zTemplate;
  tag t = {0, 0, 0, 0, 0};
  while ((rc = next_tag(zName, zTemplate, p, &t)) == 1) {
    const char *zFrom = t.zBeg, *zTo = t.zEnd;
    if (t.cKind) standalone_span(zTemplate, &t, &zFrom, &zTo);
    if (bEmit && zFrom > p && (rc = ks_buf_append(pOut, p, (size_t)(zFrom - p))) < 0) return rc;
    if (t.cKind == '!') {
      /* comment: nothing */
    } else if (t.cKind == '/') {
      if (nStack == 0 || aStack[nStack - 1].n != t.nName || memcmp(aStack[nStack - 1].z, t.zName, t.nName) != 0)
        return ks_error_set(KS_EINVAL, "%s:%u: '{{/%.*s}}' closes no open section", zName, line_of(zTemplate, t.zBeg),
                            (int)t.nName, t.zName);
      nStack--;
      bEmit = nStack == 0 ? 1 : aStack[nStack - 1].bEmit;
    } else {
      const ks_prompt_var *pV = find_var(aVar, nVar, t.zName, t.nName);
      if (!pV)
        return ks_error_set(KS_EINVAL, "%s:%u: no value for '{{%.*s}}'", zName, line_of(zTemplate, t.zBeg),
                            (int)t.nName, t.zName);
      const char *zVal = pV->zValue ? pV->zValue : "";
      if (t.cKind == '#' || t.cKind == '^') {
        if (nStack == KS_PROMPT_MAX_DEPTH)
          return ks_error_set(KS_EINVAL, "%s:%u: sections nested too deeply", zName, line_of(zTemplate, t.zBeg));
        int bSet = zVal[0] != 0;
        aStack[nStack].z = t.zName;
        aStack[nStack].n = t.nName;
        aStack[nStack].zAt = t.zBeg;
        aStack[nStack].bEmit = bEmit && (t.cKind == '#' ? bSet : !bSet);
        bEmit = aStack[nStack++].bEmit;
      } else if (bEmit && (rc = ks_buf_puts(pOut, zVal)) < 0) {
        return rc;
      }
    }
    p = zTo;
  }
  if (rc < 0) return rc;
  if (nStack)
    return ks_error_set(KS_EINVAL, "%s:%u: section '{{%c%.*s}}' is never closed", zName,
                        line_of(zTemplate, aStack[nStack - 1].zAt), '#', (int)aStack[nStack - 1].n,
                        aStack[nStack - 1].z);
  if (bEmit && *p) return ks_buf_puts(pOut, p);
  return KS_OK;
}

int ks_prompt_path(const char *zAgent, char **pzPath) {
  *pzPath = NULL;
  for (const char *q = zAgent; *q; q++)
    if (!((*q >= 'a' && *q <= 'z') || *q == '-' || *q == '_'))
      return ks_error_set(KS_EUSAGE, "'%s' is not an agent name", zAgent);
  char *zFile = NULL, *zDir = NULL, *zData = NULL;
  int rc = KS_OK;
  ks_buf b = KS_BUF_INIT;
  if ((rc = ks_buf_printf(&b, "%s.txt", zAgent)) < 0) goto done;
  const char *zEnv = getenv("KS_PROMPTS_DIR");
  if (zEnv && zEnv[0]) {
    zFile = ks_path_join(zEnv, b.z);
  } else {
    if ((rc = ks_path_datadir(&zData)) < 0) goto done;
    zDir = ks_path_join(zData, "prompts");
    zFile = zDir ? ks_path_join(zDir, b.z) : NULL;
  }
  if (!zFile) {
    rc = ks_error_set(KS_ENOMEM, "out of memory");
    goto done;
  }
  if (!ks_file_exists(zFile)) {
    rc = ks_error_set(KS_ENOTFOUND, "%s: no prompt template for the %s agent", zFile, zAgent);
    goto done;
  }
  *pzPath = zFile;
  zFile = NULL;
done:
  free(zFile);
  free(zDir);
  free(zData);
  ks_buf_free(&b);
  return rc;
}

void ks_prompt_free(ks_prompt *p) {
  if (!p) return;
  free(p->zSystem);
  free(p->zUser);
  free(p->zPath);
  p->zSystem = p->zUser = p->zPath = NULL;
}

/* The part after the line "=== NAME ===" up to the next such line. */
static const char *find_part(const char *zText, const char *zPart, const char **pzEnd) {
  char zMark[64];
  snprintf(zMark, sizeof zMark, "=== %s ===", zPart);
  size_t nMark = strlen(zMark);
  const char *zBody = NULL;
  for (const char *p = zText; *p;) {
    const char *zEol = strchr(p, '\n');
    if (!zEol) zEol = p + strlen(p);
    size_t n = (size_t)(zEol - p);
    while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\r')) n--;
    int bMarker = n > 8 && strncmp(p, "=== ", 4) == 0 && strncmp(p + n - 4, " ===", 4) == 0;
    if (zBody && bMarker) {
      *pzEnd = p;
      return zBody;
    }
    if (!zBody && bMarker && n == nMark && strncmp(p, zMark, nMark) == 0) zBody = *zEol ? zEol + 1 : zEol;
    p = *zEol ? zEol + 1 : zEol;
  }
  if (zBody) *pzEnd = zBody + strlen(zBody);
  return zBody;
}

static int render_part(const char *zPath, const char *zText, const char *zPart, const ks_prompt_var *aVar, int nVar,
                       char **pzOut) {
  const char *zEnd = NULL;
  const char *zBody = find_part(zText, zPart, &zEnd);
  if (!zBody) return ks_error_set(KS_EINVAL, "%s: no '=== %s ===' part", zPath, zPart);
  /* Render the part as its own text, but keep the file's line numbers in
   * messages by padding with the newlines before it. */
  ks_buf part = KS_BUF_INIT, out = KS_BUF_INIT;
  int rc = KS_OK;
  for (const char *q = zText; q < zBody; q++)
    if (*q == '\n' && (rc = ks_buf_puts(&part, "{{!}}\n")) < 0) goto done;
  if ((rc = ks_buf_append(&part, zBody, (size_t)(zEnd - zBody))) < 0) goto done;
  if ((rc = ks_prompt_render(zPath, ks_buf_cstr(&part), aVar, nVar, &out)) < 0) goto done;
  /* Trailing blank lines of a part are layout, not content. */
  while (out.n > 0 && (out.z[out.n - 1] == '\n' || out.z[out.n - 1] == ' ')) out.z[--out.n] = 0;
  if ((rc = ks_buf_puts(&out, "\n")) < 0) goto done;
  *pzOut = ks_buf_detach(&out);
done:
  ks_buf_free(&part);
  ks_buf_free(&out);
  return rc;
}

int ks_prompt_build(const char *zAgent, const ks_prompt_var *aVar, int nVar, ks_prompt *pOut) {
  ks_prompt empty = KS_PROMPT_INIT;
  *pOut = empty;
  char *zText = NULL;
  int rc = ks_prompt_path(zAgent, &pOut->zPath);
  if (rc < 0) return rc;
  if ((rc = ks_file_read(pOut->zPath, &zText, NULL)) < 0) goto fail;
  if ((rc = render_part(pOut->zPath, zText, "system", aVar, nVar, &pOut->zSystem)) < 0) goto fail;
  if ((rc = render_part(pOut->zPath, zText, "user", aVar, nVar, &pOut->zUser)) < 0) goto fail;
  free(zText);
  return KS_OK;
fail:
  free(zText);
  ks_prompt_free(pOut);
  return rc;
}
