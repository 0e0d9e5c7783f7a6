/* skills.c — the skill corpus: loading one skill file strictly (every error
 * names file:line:col), the search path (built-in corpus, KS_SKILLS_PATH,
 * --skills folders; later ids override earlier ones), the corpus check that
 * CI runs, and the catalogue / description writers. */
#include "kernelskill/skills.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const azCategories[] = {"memory-bandwidth", "memory-latency", "compute", "occupancy-launch",
                                           "sync-divergence", "launch-fusion", "numerics", "library", 0};
static const char *const azTags[] = {"caching", "vectorize", "compute", "occupancy", "cublas", "cub", "fast-math",
                                     "launch", 0};

const char *const *ks_skill_categories(void) { return azCategories; }
const char *const *ks_skill_tags(void) { return azTags; }

static int in_list(const char *const *az, const char *z) {
  for (; *az; az++)
    if (strcmp(*az, z) == 0) return 1;
  return 0;
}

/* ---- raw JSON positions (cJSON keeps none) ---- */

typedef struct rawpos {
  char zPath[96];
  int iOff;
} rawpos;

typedef struct rawscan {
  const char *z;
  int i;
  rawpos *a;
  int n, nAlloc;
} rawscan;

static void raw_ws(rawscan *s) {
  while (s->z[s->i] == ' ' || s->z[s->i] == '\t' || s->z[s->i] == '\n' || s->z[s->i] == '\r') s->i++;
}

static void raw_skip_string(rawscan *s) {
  s->i++;
  while (s->z[s->i] && s->z[s->i] != '"') s->i += s->z[s->i] == '\\' && s->z[s->i + 1] ? 2 : 1;
  if (s->z[s->i]) s->i++;
}

static void raw_record(rawscan *s, const char *zPath, int iOff) {
  if (s->n == s->nAlloc) {
    int nNew = s->nAlloc ? s->nAlloc * 2 : 32;
    rawpos *a = realloc(s->a, sizeof *a * (size_t)nNew);
    if (!a) return; /* positions are a nicety: fall back to line 1 */
    s->a = a;
    s->nAlloc = nNew;
  }
  snprintf(s->a[s->n].zPath, sizeof s->a[s->n].zPath, "%s", zPath);
  s->a[s->n].iOff = iOff;
  s->n++;
}

/* Walk a value that cJSON already accepted, recording where each member starts. */
static void raw_value(rawscan *s, const char *zPath, int nDepth) {
  raw_ws(s);
  raw_record(s, zPath, s->i);
  char c = s->z[s->i];
  if (nDepth > 32 && (c == '{' || c == '[')) {
    /* Too deep to record: skip the whole value (brackets matched outside
     * strings), or the caller's loop would stand still on it forever. */
    int nOpen = 0;
    do {
      if (s->z[s->i] == '"') {
        raw_skip_string(s);
        continue;
      }
      if (s->z[s->i] == '{' || s->z[s->i] == '[') nOpen++;
      else if (s->z[s->i] == '}' || s->z[s->i] == ']') nOpen--;
      s->i++;
    } while (s->z[s->i] && nOpen > 0);
    return;
  }
  if (c == '{' || c == '[') {
    int bObj = c == '{', iIdx = 0;
    s->i++;
    for (;;) {
      raw_ws(s);
      if (!s->z[s->i] || s->z[s->i] == '}' || s->z[s->i] == ']') {
        if (s->z[s->i]) s->i++;
        return;
      }
      char zSub[96];
      if (bObj) {
        int iK = s->i + 1;
        raw_skip_string(s);
        int nK = s->i - 1 - iK;
        /* A path cut at 96 bytes only shortens a message. */
        if (snprintf(zSub, sizeof zSub, "%s%s%.*s", zPath, zPath[0] ? "." : "", nK > 0 ? nK : 0, s->z + iK) < 0) zSub[0] = 0;
        raw_ws(s);
        if (s->z[s->i] == ':') s->i++;
      } else {
        if (snprintf(zSub, sizeof zSub, "%s[%d]", zPath, iIdx++) < 0) zSub[0] = 0;
      }
      raw_value(s, zSub, nDepth + 1);
      raw_ws(s);
      if (s->z[s->i] == ',') s->i++;
    }
  } else if (c == '"') {
    raw_skip_string(s);
  } else {
    while (s->z[s->i] && !strchr(",}] \t\r\n", s->z[s->i])) s->i++;
  }
}

static void line_col(const char *z, int iOff, int *piLine, int *piCol) {
  *piLine = *piCol = 1;
  if (iOff > 0) ks_text_advance(z, (size_t)iOff, piLine, piCol);
}

typedef struct loader {
  const char *zPath;
  const char *zText;
  rawscan scan;
} loader;

static int where(loader *L, const char *zMember, int *piLine, int *piCol) {
  for (int i = 0; i < L->scan.n; i++)
    if (strcmp(L->scan.a[i].zPath, zMember) == 0) {
      line_col(L->zText, L->scan.a[i].iOff, piLine, piCol);
      return L->scan.a[i].iOff;
    }
  *piLine = 1;
  *piCol = 1;
  return -1;
}

static int lerr(loader *L, const char *zMember, const char *zFmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static int lerr(loader *L, const char *zMember, const char *zFmt, ...) {
  char zMsg[1024];
  va_list ap;
  va_start(ap, zFmt);
  vsnprintf(zMsg, sizeof zMsg, zFmt, ap);
  va_end(ap);
  int iLine, iCol;
  where(L, zMember ? zMember : "", &iLine, &iCol);
  return ks_error_set(KS_EINVAL, "%s:%d:%d: %s", L->zPath, iLine, iCol, zMsg);
}

/* ---- one skill ---- */

void ks_skill_free(ks_skill *p) {
  if (!p) return;
  free(p->zId);
  free(p->zTitle);
  free(p->zCategory);
  free(p->zSummary);
  free(p->zWhen);
  ks_cond_free(p->pWhen);
  for (int i = 0; i < p->nUnless; i++) {
    free(p->aUnless[i].zIf);
    ks_cond_free(p->aUnless[i].pIf);
    free(p->aUnless[i].zWhy);
  }
  free(p->aUnless);
  for (int i = 0; i < p->nEffect; i++) {
    free(p->aEffect[i].zMetric);
    free(p->aEffect[i].zDir);
  }
  free(p->aEffect);
  free(p->zRule);
  for (int i = 0; i < p->nParams; i++) free(p->azParams[i]);
  free(p->azParams);
  free(p->zGuidance);
  free(p->zBefore);
  free(p->zAfter);
  for (int i = 0; i < p->nRisks; i++) free(p->azRisks[i]);
  free(p->azRisks);
  for (int i = 0; i < p->nRefs; i++) free(p->azRefs[i]);
  free(p->azRefs);
  for (int i = 0; i < p->nTags; i++) free(p->azTags[i]);
  free(p->azTags);
  free(p->zPath);
  free(p->zOverrides);
  free(p);
}

static int req_string(loader *L, cJSON *pObj, const char *zKey, const char *zMember, int bRequired, char **pz) {
  cJSON *p = cJSON_GetObjectItemCaseSensitive(pObj, zKey);
  if (!p) return bRequired ? lerr(L, "", "missing \"%s\"", zMember) : KS_OK;
  if (!cJSON_IsString(p)) return lerr(L, zMember, "\"%s\" should be a string", zMember);
  if (bRequired && !p->valuestring[0]) return lerr(L, zMember, "\"%s\" is empty", zMember);
  *pz = ks_strdup(p->valuestring);
  return *pz ? KS_OK : KS_ENOMEM;
}

static int string_array(loader *L, cJSON *pObj, const char *zKey, int nMin, char ***pazOut, int *pnOut) {
  cJSON *p = cJSON_GetObjectItemCaseSensitive(pObj, zKey);
  if (!p) return nMin ? lerr(L, "", "missing \"%s\"", zKey) : KS_OK;
  if (!cJSON_IsArray(p)) return lerr(L, zKey, "\"%s\" should be an array of strings", zKey);
  int n = cJSON_GetArraySize(p);
  if (n < nMin) return lerr(L, zKey, "\"%s\" needs at least %d entr%s", zKey, nMin, nMin == 1 ? "y" : "ies");
  char **az = calloc((size_t)n + 1, sizeof *az);
  if (!az) return ks_error_set(KS_ENOMEM, "out of memory");
  *pazOut = az;
  int i = 0;
  cJSON *pI;
  cJSON_ArrayForEach(pI, p) {
    char zM[96];
    snprintf(zM, sizeof zM, "%s[%d]", zKey, i);
    if (!cJSON_IsString(pI) || !pI->valuestring[0]) return lerr(L, zM, "\"%s\" should be a non-empty string", zM);
    if (!(az[i] = ks_strdup(pI->valuestring))) return KS_ENOMEM;
    *pnOut = ++i;
  }
  return KS_OK;
}

static int cond_at(loader *L, const char *zText, const char *zMember, ks_cond **pp) {
  ks_cond_loc loc = KS_COND_LOC_INIT;
  loc.zFile = L->zPath;
  int iOff = where(L, zMember, &loc.iLine, &loc.iCol);
  if (iOff >= 0 && L->zText[iOff] == '"') loc.zRaw = L->zText + iOff;
  int rc = ks_cond_parse(zText, &loc, pp);
  if (rc < 0) return rc;
  return KS_OK;
}

static int valid_id(const char *z) {
  const char *zDot = strchr(z, '.');
  if (!zDot || zDot == z || !zDot[1]) return 0;
  for (const char *c = z; *c; c++) {
    if (c == zDot) continue;
    if (!(islower((unsigned char)*c) || isdigit((unsigned char)*c) || *c == '-')) return 0;
  }
  return 1;
}

static const char *const azKnownKeys[] = {"id", "version", "title", "category", "summary", "when", "unless",
                                          "priority", "gain", "effect", "rewrite", "guidance", "risks",
                                          "references", "tags", 0};

static const char *const azUnlessKeys[] = {"if", "why", 0};
static const char *const azRewriteKeys[] = {"rule", "params", 0};
static const char *const azGuidanceKeys[] = {"text", "before", "after", 0};

/* Every member of pObj is one of azKnown; zIn names pObj in the message ("rewrite"),
 * NULL at the top level. */
static int known_members(loader *L, const cJSON *pObj, const char *zIn, const char *const *azKnown) {
  for (const cJSON *pK = pObj->child; pK; pK = pK->next) {
    if (in_list(azKnown, pK->string)) continue;
    if (!zIn) return lerr(L, pK->string, "unknown member \"%s\"", pK->string);
    char zMK[160];
    snprintf(zMK, sizeof zMK, "%s.%s", zIn, pK->string);
    return lerr(L, zMK, "unknown member \"%s\" in %s", pK->string, zIn);
  }
  return KS_OK;
}

static int parse_skill(loader *L, cJSON *pDoc, ks_skill *s) {
  int rc;
  if (!cJSON_IsObject(pDoc)) return lerr(L, "", "a skill file holds one JSON object");
  if ((rc = known_members(L, pDoc, NULL, azKnownKeys)) < 0) return rc;
  if ((rc = req_string(L, pDoc, "id", "id", 1, &s->zId)) < 0) return rc;
  if (!valid_id(s->zId))
    return lerr(L, "id", "id \"%s\" should read <prefix>.<name> in lower case, digits and '-'", s->zId);
  cJSON *pV = cJSON_GetObjectItemCaseSensitive(pDoc, "version");
  if (!cJSON_IsNumber(pV) || pV->valuedouble < 1 || pV->valuedouble != floor(pV->valuedouble))
    return pV ? lerr(L, "version", "\"version\" should be an integer >= 1") : lerr(L, "", "missing \"version\"");
  s->iVersion = pV->valueint;
  if ((rc = req_string(L, pDoc, "title", "title", 1, &s->zTitle)) < 0) return rc;
  if ((rc = req_string(L, pDoc, "category", "category", 1, &s->zCategory)) < 0) return rc;
  if (!in_list(azCategories, s->zCategory)) {
    ks_buf b = KS_BUF_INIT;
    for (int i = 0; azCategories[i]; i++) ks_buf_printf(&b, "%s%s", i ? ", " : "", azCategories[i]);
    rc = lerr(L, "category", "unknown category \"%s\" (one of: %s)", s->zCategory, ks_buf_cstr(&b));
    ks_buf_free(&b);
    return rc;
  }
  if ((rc = req_string(L, pDoc, "summary", "summary", 1, &s->zSummary)) < 0) return rc;
  if ((rc = req_string(L, pDoc, "when", "when", 1, &s->zWhen)) < 0) return rc;
  if ((rc = cond_at(L, s->zWhen, "when", &s->pWhen)) < 0) return rc;

  cJSON *pUnless = cJSON_GetObjectItemCaseSensitive(pDoc, "unless");
  if (pUnless) {
    if (!cJSON_IsArray(pUnless)) return lerr(L, "unless", "\"unless\" should be an array of {\"if\": ..., \"why\": ...}");
    int n = cJSON_GetArraySize(pUnless);
    s->aUnless = calloc((size_t)n + 1, sizeof *s->aUnless);
    if (!s->aUnless) return ks_error_set(KS_ENOMEM, "out of memory");
    cJSON *pI;
    cJSON_ArrayForEach(pI, pUnless) {
      char zM[64], zMIf[64], zMWhy[64];
      int i = s->nUnless;
      snprintf(zM, sizeof zM, "unless[%d]", i);
      snprintf(zMIf, sizeof zMIf, "unless[%d].if", i);
      snprintf(zMWhy, sizeof zMWhy, "unless[%d].why", i);
      if (!cJSON_IsObject(pI)) return lerr(L, zM, "%s should be {\"if\": ..., \"why\": ...}", zM);
      if ((rc = known_members(L, pI, zM, azUnlessKeys)) < 0) return rc;
      s->nUnless++;
      if ((rc = req_string(L, pI, "if", zMIf, 1, &s->aUnless[i].zIf)) < 0) return rc;
      if ((rc = req_string(L, pI, "why", zMWhy, 1, &s->aUnless[i].zWhy)) < 0) return rc;
      if ((rc = cond_at(L, s->aUnless[i].zIf, zMIf, &s->aUnless[i].pIf)) < 0) return rc;
    }
  }

  cJSON *pP = cJSON_GetObjectItemCaseSensitive(pDoc, "priority");
  if (!cJSON_IsNumber(pP) || pP->valuedouble < 0 || pP->valuedouble > 100 || pP->valuedouble != floor(pP->valuedouble))
    return pP ? lerr(L, "priority", "\"priority\" should be an integer 0..100") : lerr(L, "", "missing \"priority\"");
  s->iPriority = pP->valueint;
  cJSON *pG = cJSON_GetObjectItemCaseSensitive(pDoc, "gain");
  if (!cJSON_IsNumber(pG) || pG->valuedouble < 1 || pG->valuedouble > 100)
    return pG ? lerr(L, "gain", "\"gain\" (expected speedup) should be a number in 1..100") : lerr(L, "", "missing \"gain\"");
  s->rGain = pG->valuedouble;

  cJSON *pE = cJSON_GetObjectItemCaseSensitive(pDoc, "effect");
  if (!cJSON_IsObject(pE) || !pE->child)
    return pE ? lerr(L, "effect", "\"effect\" should map metrics to \"up\" or \"down\"") : lerr(L, "", "missing \"effect\"");
  int nE = cJSON_GetArraySize(pE);
  s->aEffect = calloc((size_t)nE, sizeof *s->aEffect);
  if (!s->aEffect) return ks_error_set(KS_ENOMEM, "out of memory");
  for (cJSON *pI = pE->child; pI; pI = pI->next) {
    char zM[128];
    snprintf(zM, sizeof zM, "effect.%s", pI->string);
    const ks_field_def *pF = ks_field_find(pI->string);
    if (!pF || pF->eType != KS_VAL_NUM || strncmp(pI->string, "features.", 9) == 0)
      return lerr(L, zM, "effect names \"%s\": not a numeric profile.* or derived.* field", pI->string);
    if (!cJSON_IsString(pI) || (strcmp(pI->valuestring, "up") && strcmp(pI->valuestring, "down")))
      return lerr(L, zM, "effect on %s should be \"up\" or \"down\"", pI->string);
    s->aEffect[s->nEffect].zMetric = ks_strdup(pI->string);
    s->aEffect[s->nEffect].zDir = ks_strdup(pI->valuestring);
    if (!s->aEffect[s->nEffect++].zDir) return KS_ENOMEM;
  }

  cJSON *pR = cJSON_GetObjectItemCaseSensitive(pDoc, "rewrite");
  if (pR) {
    if (!cJSON_IsObject(pR)) return lerr(L, "rewrite", "\"rewrite\" should be {\"rule\": ID, \"params\": {...}}");
    if ((rc = known_members(L, pR, "rewrite", azRewriteKeys)) < 0) return rc;
    if ((rc = req_string(L, pR, "rule", "rewrite.rule", 1, &s->zRule)) < 0) return rc;
    cJSON *pPar = cJSON_GetObjectItemCaseSensitive(pR, "params");
    if (pPar) {
      if (!cJSON_IsObject(pPar)) return lerr(L, "rewrite.params", "\"params\" should map names to strings");
      int n = cJSON_GetArraySize(pPar);
      s->azParams = calloc((size_t)n + 1, sizeof *s->azParams);
      if (!s->azParams) return ks_error_set(KS_ENOMEM, "out of memory");
      for (cJSON *pI = pPar->child; pI; pI = pI->next) {
        char zM[128];
        snprintf(zM, sizeof zM, "rewrite.params.%s", pI->string);
        if (!cJSON_IsString(pI)) return lerr(L, zM, "parameter \"%s\" should be a string", pI->string);
        ks_buf b = KS_BUF_INIT;
        if ((rc = ks_buf_printf(&b, "%s=%s", pI->string, pI->valuestring)) < 0) return rc;
        s->azParams[s->nParams++] = ks_buf_detach(&b);
      }
    }
  }
  cJSON *pGd = cJSON_GetObjectItemCaseSensitive(pDoc, "guidance");
  if (pGd) {
    if (!cJSON_IsObject(pGd)) return lerr(L, "guidance", "\"guidance\" should be {\"text\": ..., \"before\": ..., \"after\": ...}");
    if ((rc = known_members(L, pGd, "guidance", azGuidanceKeys)) < 0) return rc;
    if ((rc = req_string(L, pGd, "text", "guidance.text", 1, &s->zGuidance)) < 0) return rc;
    if ((rc = req_string(L, pGd, "before", "guidance.before", 0, &s->zBefore)) < 0) return rc;
    if ((rc = req_string(L, pGd, "after", "guidance.after", 0, &s->zAfter)) < 0) return rc;
    if (!s->zBefore != !s->zAfter) return lerr(L, "guidance", "guidance needs both \"before\" and \"after\", or neither");
  }
  if (!s->zRule && !s->zGuidance) return lerr(L, "", "a skill needs a \"rewrite\", a \"guidance\", or both");
  if ((rc = string_array(L, pDoc, "risks", 1, &s->azRisks, &s->nRisks)) < 0) return rc;
  if ((rc = string_array(L, pDoc, "references", 1, &s->azRefs, &s->nRefs)) < 0) return rc;
  if ((rc = string_array(L, pDoc, "tags", 0, &s->azTags, &s->nTags)) < 0) return rc;
  for (int i = 0; i < s->nTags; i++)
    if (!in_list(azTags, s->azTags[i])) {
      char zM[64];
      snprintf(zM, sizeof zM, "tags[%d]", i);
      return lerr(L, zM, "unknown tag \"%s\" (see docs/planner.md, vetoes)", s->azTags[i]);
    }
  return KS_OK;
}

int ks_skill_load_file(const char *zPath, ks_skill **ppSkill) {
  int rc;
  char *zText = NULL;
  cJSON *pDoc = NULL;
  loader L = {zPath, NULL, {0}};
  ks_skill *s = NULL;
  *ppSkill = NULL;
  if ((rc = ks_file_read(zPath, &zText, NULL)) < 0) return rc;
  L.zText = zText;
  const char *zEnd = NULL;
  pDoc = cJSON_ParseWithOpts(zText, &zEnd, 1);
  if (!pDoc) {
    const char *zErr = cJSON_GetErrorPtr();
    int iLine = 1, iCol = 1;
    if (zErr && zErr >= zText && zErr <= zText + strlen(zText)) line_col(zText, (int)(zErr - zText), &iLine, &iCol);
    rc = ks_error_set(KS_EPARSE, "%s:%d:%d: not valid JSON", zPath, iLine, iCol);
    goto done;
  }
  L.scan.z = zText;
  raw_value(&L.scan, "", 0);
  if (!(s = calloc(1, sizeof *s))) {
    rc = ks_error_set(KS_ENOMEM, "out of memory");
    goto done;
  }
  if (!(s->zPath = ks_strdup(zPath))) {
    rc = KS_ENOMEM;
    goto done;
  }
  if ((rc = parse_skill(&L, pDoc, s)) < 0) goto done;
  *ppSkill = s;
  s = NULL;
done:
  ks_skill_free(s);
  cJSON_Delete(pDoc);
  free(L.scan.a);
  free(zText);
  return rc;
}

/* ---- folders and the search path ---- */

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Every *.json under zDir (sorted, recursive, hidden entries skipped). */
static int list_json(const char *zDir, char ***pazOut, int *pnOut, int *pnAlloc) {
  int rc = KS_OK;
  DIR *d = opendir(zDir);
  if (!d) return ks_error_set(KS_EUNAVAIL, "%s: cannot open skills folder", zDir);
  char **azNames = NULL;
  int nNames = 0, nAlloc = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    if (nNames == nAlloc) {
      nAlloc = nAlloc ? nAlloc * 2 : 32;
      char **a = realloc(azNames, sizeof *a * (size_t)nAlloc);
      if (!a) {
        rc = ks_error_set(KS_ENOMEM, "out of memory");
        goto done;
      }
      azNames = a;
    }
    if (!(azNames[nNames] = ks_strdup(e->d_name))) {
      rc = KS_ENOMEM;
      goto done;
    }
    nNames++;
  }
  if (nNames) qsort(azNames, (size_t)nNames, sizeof *azNames, cmp_str);
  for (int i = 0; i < nNames; i++) {
    char *zFull = ks_path_join(zDir, azNames[i]);
    if (!zFull) {
      rc = KS_ENOMEM;
      goto done;
    }
    if (ks_dir_exists(zFull)) {
      rc = list_json(zFull, pazOut, pnOut, pnAlloc);
      free(zFull);
      if (rc < 0) goto done;
      continue;
    }
    size_t n = strlen(azNames[i]);
    if (n <= 5 || strcmp(azNames[i] + n - 5, ".json") != 0 || !ks_file_exists(zFull)) {
      free(zFull);
      continue;
    }
    if (*pnOut == *pnAlloc) {
      *pnAlloc = *pnAlloc ? *pnAlloc * 2 : 64;
      char **a = realloc(*pazOut, sizeof *a * (size_t)*pnAlloc);
      if (!a) {
        free(zFull);
        rc = ks_error_set(KS_ENOMEM, "out of memory");
        goto done;
      }
      *pazOut = a;
    }
    (*pazOut)[(*pnOut)++] = zFull;
  }
done:
  for (int i = 0; i < nNames; i++) free(azNames[i]);
  free(azNames);
  closedir(d);
  return rc;
}

/* The folders of the search path, in override order. */
static int search_dirs(const ks_skills_opts *pOpts, char ***pazDirs, int *pnDirs) {
  int rc = KS_OK, n = 0;
  char **az = NULL;
  const char *zEnv = pOpts->bNoEnv ? NULL : getenv("KS_SKILLS_PATH");
  size_t nMax = 2 + (size_t)pOpts->nDirs + (zEnv ? strlen(zEnv) + 1 : 0);
  if (!(az = calloc(nMax, sizeof *az))) return ks_error_set(KS_ENOMEM, "out of memory");
  if (!pOpts->bNoBuiltin) {
    char *zData = NULL;
    if ((rc = ks_path_datadir(&zData)) < 0) goto fail;
    az[n] = ks_path_join(zData, "skills");
    free(zData);
    if (!az[n]) {
      rc = KS_ENOMEM;
      goto fail;
    }
    if (!ks_dir_exists(az[n])) free(az[n]); /* an install without a corpus: only user skills */
    else n++;
  }
  if (zEnv) {
    const char *z = zEnv;
    while (*z) {
      const char *zColon = strchr(z, ':');
      size_t nPart = zColon ? (size_t)(zColon - z) : strlen(z);
      if (nPart) {
        char *zDir = malloc(nPart + 1);
        if (!zDir) {
          rc = ks_error_set(KS_ENOMEM, "out of memory");
          goto fail;
        }
        memcpy(zDir, z, nPart);
        zDir[nPart] = 0;
        if (!ks_dir_exists(zDir)) {
          rc = ks_error_set(KS_EUNAVAIL, "KS_SKILLS_PATH names '%s', which is not a folder", zDir);
          free(zDir);
          goto fail;
        }
        az[n++] = zDir;
      }
      z += nPart;
      if (*z == ':') z++;
    }
  }
  for (int i = 0; i < pOpts->nDirs; i++) {
    if (!ks_dir_exists(pOpts->azDirs[i])) {
      rc = ks_error_set(KS_EUNAVAIL, "--skills %s: not a folder", pOpts->azDirs[i]);
      goto fail;
    }
    if (!(az[n++] = ks_strdup(pOpts->azDirs[i]))) {
      rc = KS_ENOMEM;
      goto fail;
    }
  }
  *pazDirs = az;
  *pnDirs = n;
  return KS_OK;
fail:
  for (int i = 0; i < n; i++) free(az[i]);
  free(az);
  return rc;
}

void ks_skills_free(ks_skillset *p) {
  if (!p) return;
  for (int i = 0; i < p->n; i++) ks_skill_free(p->a[i]);
  free(p->a);
  free(p);
}

static int cmp_skill(const void *a, const void *b) {
  return strcmp((*(ks_skill *const *)a)->zId, (*(ks_skill *const *)b)->zId);
}

const ks_skill *ks_skills_find(const ks_skillset *p, const char *zId) {
  for (int i = 0; i < p->n; i++)
    if (strcmp(p->a[i]->zId, zId) == 0) return p->a[i];
  return NULL;
}

/* Merge one folder's skills (taking them) into the set: a duplicate id
 * inside the folder is an error, an id already in the set is overridden. */
static int set_merge(ks_skillset *p, int *pnAlloc, ks_skill **aLayer, int nLayer) {
  int rc = KS_OK, i;
  for (i = 0; i < nLayer; i++)
    for (int j = 0; j < i; j++)
      if (strcmp(aLayer[i]->zId, aLayer[j]->zId) == 0) {
        rc = ks_error_set(KS_EINVAL, "%s: duplicate skill id '%s' (also in %s)", aLayer[i]->zPath, aLayer[i]->zId,
                          aLayer[j]->zPath);
        goto done;
      }
  for (i = 0; i < nLayer; i++) {
    ks_skill *s = aLayer[i];
    int iOld = -1;
    for (int j = 0; j < p->n; j++)
      if (strcmp(p->a[j]->zId, s->zId) == 0) iOld = j;
    if (iOld >= 0) {
      if (!(s->zOverrides = ks_strdup(p->a[iOld]->zPath))) {
        rc = KS_ENOMEM;
        goto done;
      }
      ks_skill_free(p->a[iOld]);
      p->a[iOld] = s;
      aLayer[i] = NULL;
      continue;
    }
    if (p->n == *pnAlloc) {
      int nNew = *pnAlloc ? *pnAlloc * 2 : 64;
      ks_skill **a = realloc(p->a, sizeof *a * (size_t)nNew);
      if (!a) {
        rc = ks_error_set(KS_ENOMEM, "out of memory");
        goto done;
      }
      p->a = a;
      *pnAlloc = nNew;
    }
    p->a[p->n++] = s;
    aLayer[i] = NULL;
  }
done:
  for (i = 0; i < nLayer; i++) ks_skill_free(aLayer[i]);
  return rc;
}

int ks_skills_load(const ks_skills_opts *pOpts, ks_skillset **ppSet) {
  static const ks_skills_opts defOpts = KS_SKILLS_OPTS_INIT;
  int rc = KS_OK, nDirs = 0, nAlloc = 0;
  char **azDirs = NULL;
  *ppSet = NULL;
  if (pOpts && pOpts->version != KS_SKILLS_OPTS_VERSION)
    return ks_error_set(KS_EUSAGE, "ks_skills_opts: unsupported version %u", pOpts->version);
  ks_skillset *p = calloc(1, sizeof *p);
  if (!p) return ks_error_set(KS_ENOMEM, "out of memory");
  if ((rc = search_dirs(pOpts ? pOpts : &defOpts, &azDirs, &nDirs)) < 0) goto done;
  for (int d = 0; d < nDirs; d++) {
    char **azFiles = NULL;
    int nFiles = 0, nFAlloc = 0, nLayer = 0;
    ks_skill **aLayer = NULL;
    rc = list_json(azDirs[d], &azFiles, &nFiles, &nFAlloc);
    if (rc == KS_OK && !(aLayer = calloc((size_t)nFiles + 1, sizeof *aLayer))) rc = ks_error_set(KS_ENOMEM, "out of memory");
    for (int i = 0; rc == KS_OK && i < nFiles; i++) {
      if ((rc = ks_skill_load_file(azFiles[i], &aLayer[nLayer])) == KS_OK) nLayer++;
    }
    if (rc == KS_OK) rc = set_merge(p, &nAlloc, aLayer, nLayer);
    else
      for (int i = 0; i < nLayer; i++) ks_skill_free(aLayer[i]);
    free(aLayer);
    for (int i = 0; i < nFiles; i++) free(azFiles[i]);
    free(azFiles);
    if (rc < 0) goto done;
  }
  if (p->n) qsort(p->a, (size_t)p->n, sizeof *p->a, cmp_skill);
  *ppSet = p;
  p = NULL;
done:
  for (int i = 0; i < nDirs; i++) free(azDirs[i]);
  free(azDirs);
  ks_skills_free(p);
  return rc;
}

/* ---- check ---- */

int ks_skills_check(const ks_skills_opts *pOpts, ks_buf *pOut, int *pnProblems, int *pnSkills) {
  static const ks_skills_opts defOpts = KS_SKILLS_OPTS_INIT;
  int rc = KS_OK, nDirs = 0, nProblems = 0, nSkills = 0;
  char **azDirs = NULL;
  if (!pOpts) pOpts = &defOpts;
  if (pOpts->version != KS_SKILLS_OPTS_VERSION)
    return ks_error_set(KS_EUSAGE, "ks_skills_opts: unsupported version %u", pOpts->version);
  if ((rc = search_dirs(pOpts, &azDirs, &nDirs)) < 0) return rc;
  for (int d = 0; d < nDirs; d++) {
    char **azFiles = NULL;
    int nFiles = 0, nFAlloc = 0;
    ks_skill **aLayer = NULL;
    int nLayer = 0;
    if ((rc = list_json(azDirs[d], &azFiles, &nFiles, &nFAlloc)) < 0) goto next;
    if (!(aLayer = calloc((size_t)nFiles + 1, sizeof *aLayer))) {
      rc = ks_error_set(KS_ENOMEM, "out of memory");
      goto next;
    }
    size_t nRoot = strlen(azDirs[d]);
    for (int i = 0; i < nFiles; i++) {
      ks_skill *s = NULL;
      int rcF = ks_skill_load_file(azFiles[i], &s);
      if (rcF == KS_ENOMEM) {
        rc = rcF;
        goto next;
      }
      if (rcF < 0) {
        ks_buf_printf(pOut, "%s\n", ks_error_msg());
        nProblems++;
        continue;
      }
      nSkills++;
      /* file name is <id>.json; a sub-folder is the category */
      const char *zBase = strrchr(s->zPath, '/');
      zBase = zBase ? zBase + 1 : s->zPath;
      size_t nId = strlen(s->zId);
      if (strncmp(zBase, s->zId, nId) != 0 || strcmp(zBase + nId, ".json") != 0) {
        ks_buf_printf(pOut, "%s: file name should be %s.json (the skill's id)\n", s->zPath, s->zId);
        nProblems++;
      }
      const char *zRel = s->zPath + nRoot + (s->zPath[nRoot] == '/' ? 1 : 0);
      const char *zSlash = strchr(zRel, '/');
      if (zSlash && (strlen(s->zCategory) != (size_t)(zSlash - zRel) || strncmp(zRel, s->zCategory, (size_t)(zSlash - zRel)))) {
        ks_buf_printf(pOut, "%s: category \"%s\" but the file is in folder '%.*s'\n", s->zPath, s->zCategory,
                      (int)(zSlash - zRel), zRel);
        nProblems++;
      }
      int bFound = 0;
      const char *const *azRuleParams = s->zRule && pOpts->xRuleParams
                                            ? pOpts->xRuleParams(pOpts->pRuleCtx, s->zRule, &bFound)
                                            : NULL;
      if (s->zRule && pOpts->xRuleParams) {
        if (!bFound) {
          ks_buf_printf(pOut, "%s: unknown rewrite rule '%s' (not in lib/rewrite/rules/)\n", s->zPath, s->zRule);
          nProblems++;
        } else {
          for (int k = 0; k < s->nParams; k++) {
            const char *zEq = strchr(s->azParams[k], '=');
            size_t nK = (size_t)(zEq - s->azParams[k]);
            int bOk = 0;
            for (int j = 0; azRuleParams && azRuleParams[j]; j++)
              if (strlen(azRuleParams[j]) == nK && !strncmp(azRuleParams[j], s->azParams[k], nK)) bOk = 1;
            if (!bOk) {
              ks_buf_printf(pOut, "%s: rule '%s' takes no parameter '%.*s'\n", s->zPath, s->zRule, (int)nK, s->azParams[k]);
              nProblems++;
            }
          }
        }
      }
      for (int j = 0; j < nLayer; j++)
        if (strcmp(aLayer[j]->zId, s->zId) == 0) {
          ks_buf_printf(pOut, "%s: duplicate skill id '%s' (also in %s)\n", s->zPath, s->zId, aLayer[j]->zPath);
          nProblems++;
        }
      aLayer[nLayer++] = s;
    }
  next:
    for (int i = 0; i < nLayer; i++) ks_skill_free(aLayer[i]);
    free(aLayer);
    for (int i = 0; i < nFiles; i++) free(azFiles[i]);
    free(azFiles);
    if (rc < 0) break;
  }
  for (int i = 0; i < nDirs; i++) free(azDirs[i]);
  free(azDirs);
  *pnProblems = nProblems;
  *pnSkills = nSkills;
  return rc;
}

/* ---- writers ---- */

static void md_cell(ks_buf *b, const char *z) {
  for (; *z; z++) {
    if (*z == '|') ks_buf_puts(b, "\\|");
    else if (*z == '\n') ks_buf_puts(b, " ");
    else ks_buf_append(b, z, 1);
  }
}

int ks_skills_markdown(const ks_skillset *p, ks_buf *pOut) {
  ks_buf_puts(pOut,
              "# Skill catalogue\n\n"
              "Generated from the corpus in `skills/` by `kernelskill skills list --markdown`; do not edit by hand.\n"
              "How skills are chosen: [planner.md](planner.md). One skill in full: `kernelskill skills show ID`.\n\n");
  ks_buf_printf(pOut, "%d skills.\n\n", p->n);
  for (int c = 0; azCategories[c]; c++) {
    int nIn = 0;
    for (int i = 0; i < p->n; i++) nIn += strcmp(p->a[i]->zCategory, azCategories[c]) == 0;
    if (!nIn) continue;
    ks_buf_printf(pOut, "## %s\n\n| id | title | priority | gain | when | implementation |\n|---|---|---|---|---|---|\n",
                  azCategories[c]);
    for (int i = 0; i < p->n; i++) {
      const ks_skill *s = p->a[i];
      if (strcmp(s->zCategory, azCategories[c]) != 0) continue;
      ks_buf_printf(pOut, "| `%s` | ", s->zId);
      md_cell(pOut, s->zTitle);
      ks_buf_printf(pOut, " | %d | %.2g | `", s->iPriority, s->rGain);
      md_cell(pOut, s->zWhen);
      ks_buf_puts(pOut, "` | ");
      if (s->zRule) {
        ks_buf_printf(pOut, "rule `%s`", s->zRule);
        for (int k = 0; k < s->nParams; k++) ks_buf_printf(pOut, "%s`%s`", k ? ", " : " ", s->azParams[k]);
      }
      if (s->zGuidance) ks_buf_puts(pOut, s->zRule ? " + guidance" : "guidance (LLM)");
      ks_buf_puts(pOut, " |\n");
    }
    ks_buf_puts(pOut, "\n");
  }
  return KS_OK;
}

int ks_skill_describe(const ks_skill *s, ks_buf *b) {
  ks_buf_printf(b, "%s (version %d) — %s\n", s->zId, s->iVersion, s->zTitle);
  ks_buf_printf(b, "category: %s\npriority: %d\nexpected gain: %.2fx\nfile: %s\n", s->zCategory, s->iPriority,
                s->rGain, s->zPath);
  if (s->zOverrides) ks_buf_printf(b, "overrides: %s (a user skill with the same id)\n", s->zOverrides);
  ks_buf_printf(b, "\n%s\n\nwhen: %s\n", s->zSummary, s->zWhen);
  for (int i = 0; i < s->nUnless; i++) ks_buf_printf(b, "unless: %s\n  -> %s\n", s->aUnless[i].zIf, s->aUnless[i].zWhy);
  if (s->nTags) {
    ks_buf_puts(b, "tags (policy vetoes apply):");
    for (int i = 0; i < s->nTags; i++) ks_buf_printf(b, " %s", s->azTags[i]);
    ks_buf_puts(b, "\n");
  }
  ks_buf_puts(b, "effect:");
  for (int i = 0; i < s->nEffect; i++) ks_buf_printf(b, " %s %s", s->aEffect[i].zMetric, s->aEffect[i].zDir);
  ks_buf_puts(b, "\n");
  if (s->zRule) {
    ks_buf_printf(b, "rewrite: rule %s", s->zRule);
    for (int i = 0; i < s->nParams; i++) ks_buf_printf(b, " %s", s->azParams[i]);
    ks_buf_puts(b, "\n");
  }
  if (s->zGuidance) {
    ks_buf_printf(b, "guidance: %s\n", s->zGuidance);
    if (s->zBefore) ks_buf_printf(b, "before:\n%s\nafter:\n%s\n", s->zBefore, s->zAfter);
  }
  ks_buf_puts(b, "risks:\n");
  for (int i = 0; i < s->nRisks; i++) ks_buf_printf(b, "  - %s\n", s->azRisks[i]);
  ks_buf_puts(b, "references:\n");
  for (int i = 0; i < s->nRefs; i++) ks_buf_printf(b, "  - %s\n", s->azRefs[i]);
  return KS_OK;
}

int ks_skill_json(const ks_skill *s, ks_buf *b) {
  ks_buf_puts(b, "{\"id\": ");
  ks_buf_json_string(b, s->zId);
  ks_buf_printf(b, ", \"version\": %d, \"title\": ", s->iVersion);
  ks_buf_json_string(b, s->zTitle);
  ks_buf_puts(b, ", \"category\": ");
  ks_buf_json_string(b, s->zCategory);
  ks_buf_printf(b, ", \"priority\": %d, \"gain\": %g, \"when\": ", s->iPriority, s->rGain);
  ks_buf_json_string(b, s->zWhen);
  ks_buf_puts(b, ", \"rule\": ");
  if (s->zRule) ks_buf_json_string(b, s->zRule);
  else ks_buf_puts(b, "null");
  ks_buf_puts(b, ", \"params\": [");
  for (int i = 0; i < s->nParams; i++) {
    if (i) ks_buf_puts(b, ", ");
    ks_buf_json_string(b, s->azParams[i]);
  }
  ks_buf_printf(b, "], \"guidance\": %s, \"file\": ", s->zGuidance ? "true" : "false");
  ks_buf_json_string(b, s->zPath);
  ks_buf_puts(b, ", \"overrides\": ");
  if (s->zOverrides) ks_buf_json_string(b, s->zOverrides);
  else ks_buf_puts(b, "null");
  return ks_buf_puts(b, "}");
}
