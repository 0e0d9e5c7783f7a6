/* cond.c — the condition language of skills: lexer, recursive-descent parser
 * with static type checking against the evidence field table, three-valued
 * evaluator, and the explainer that turns an evaluation into an audit trail.
 *
 *   expr    := or
 *   or      := and ( "||" and )*
 *   and     := unary ( "&&" unary )*
 *   unary   := "!" unary | compare
 *   compare := primary ( ("<"|"<="|">"|">="|"=="|"!=") primary )?
 *   primary := NUMBER | STRING | "true" | "false" | FIELD | "(" expr ")"
 */
#include "kernelskill/skills.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KS_COND_MAX_DEPTH 64
#define KS_COND_MAX_NODES 4096

enum {
  T_EOF, T_NUM, T_STR, T_FIELD, T_TRUE, T_FALSE, T_LP, T_RP, T_NOT, T_AND, T_OR,
  T_LT, T_LE, T_GT, T_GE, T_EQ, T_NE
};

enum { N_NUM, N_STR, N_BOOL, N_FIELD, N_NOT, N_AND, N_OR, N_CMP };

typedef struct cnode {
  int eKind;
  int eType;   /* static type: KS_VAL_BOOL / NUM / STR */
  int iOff;    /* offset of the node's first character in the text */
  int eOp;     /* N_CMP: T_LT.. */
  double r;
  int b;
  char *z;     /* N_STR literal, N_FIELD name */
  const ks_field_def *pField;
  int iL, iR;  /* children (node indices), -1 if none */
} cnode;

struct ks_cond {
  char *zText;
  cnode *a;
  int n, nAlloc;
  int iRoot;
};

typedef struct parser {
  ks_cond *pCond;
  const char *z;
  int i;             /* lexer position */
  int eTok, iTokOff, nTokLen;
  double rTok;
  char *zTok;        /* T_STR / T_FIELD text (malloc'd) */
  int nDepth;
  const ks_cond_loc *pLoc;
} parser;

/* ---- positions ---- */

/* Map an offset in the decoded text to line/col of the file. */
static void loc_of(const ks_cond_loc *pLoc, const char *zText, int iOff, int *piLine, int *piCol) {
  int iLine = pLoc ? pLoc->iLine : 1, iCol = pLoc ? pLoc->iCol : 1;
  if (pLoc && pLoc->zRaw) {
    /* JSON strings hold no raw newline: only the column moves. */
    const char *r = pLoc->zRaw + 1;
    int k = 0;
    while (k < iOff && *r && *r != '"') {
      if (*r == '\\' && r[1] == 'u' && isxdigit((unsigned char)r[2]) && isxdigit((unsigned char)r[3]) &&
          isxdigit((unsigned char)r[4]) && isxdigit((unsigned char)r[5])) {
        unsigned cp = (unsigned)strtoul((char[5]){r[2], r[3], r[4], r[5], 0}, NULL, 16);
        k += cp < 0x80 ? 1 : cp < 0x800 ? 2 : 3;
        r += 6;
      } else if (*r == '\\' && r[1]) {
        k += 1;
        r += 2;
      } else {
        k += 1;
        r += 1;
      }
    }
    *piLine = iLine;
    *piCol = iCol + 1 + (int)(r - (pLoc->zRaw + 1));
    return;
  }
  if (iOff > 0) ks_text_advance(zText, (size_t)iOff, &iLine, &iCol);
  *piLine = iLine;
  *piCol = iCol;
}

static int perr(parser *p, int iOff, const char *zFmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static int perr(parser *p, int iOff, const char *zFmt, ...) {
  char zMsg[512];
  va_list ap;
  va_start(ap, zFmt);
  vsnprintf(zMsg, sizeof zMsg, zFmt, ap);
  va_end(ap);
  int iLine, iCol;
  loc_of(p->pLoc, p->z, iOff, &iLine, &iCol);
  return ks_error_set(KS_EPARSE, "%s:%d:%d: %s", p->pLoc && p->pLoc->zFile ? p->pLoc->zFile : "<condition>",
                      iLine, iCol, zMsg);
}

/* ---- lexer ---- */

static const char *tok_name(int e) {
  static const char *const az[] = {"end of condition", "number", "string", "field", "'true'", "'false'",
                                   "'('", "')'", "'!'", "'&&'", "'||'", "'<'", "'<='", "'>'", "'>='",
                                   "'=='", "'!='"};
  return az[e];
}

static int lex(parser *p) {
  const char *z = p->z;
  free(p->zTok);
  p->zTok = NULL;
  while (z[p->i] == ' ' || z[p->i] == '\t' || z[p->i] == '\n' || z[p->i] == '\r') p->i++;
  int i = p->i;
  p->iTokOff = i;
  char c = z[i];
  if (c == 0) {
    p->eTok = T_EOF;
    p->nTokLen = 0;
    return KS_OK;
  }
  if (isdigit((unsigned char)c) || (c == '.' && isdigit((unsigned char)z[i + 1]))) {
    int j = i;
    while (isdigit((unsigned char)z[j])) j++;
    if (z[j] == '.') {
      j++;
      while (isdigit((unsigned char)z[j])) j++;
    }
    if (z[j] == 'e' || z[j] == 'E') {
      int k = j + 1;
      if (z[k] == '+' || z[k] == '-') k++;
      if (!isdigit((unsigned char)z[k])) return perr(p, i, "malformed number: exponent without digits");
      while (isdigit((unsigned char)z[k])) k++;
      j = k;
    }
    if (isalnum((unsigned char)z[j]) || z[j] == '_' || z[j] == '.')
      return perr(p, i, "malformed number '%.*s'", j - i + 1, z + i);
    char aNum[64];
    if (j - i >= (int)sizeof aNum) return perr(p, i, "number too long");
    memcpy(aNum, z + i, (size_t)(j - i));
    aNum[j - i] = 0;
    p->rTok = strtod(aNum, NULL);
    if (!isfinite(p->rTok)) return perr(p, i, "number out of range");
    p->eTok = T_NUM;
    p->i = j;
    p->nTokLen = j - i;
    return KS_OK;
  }
  if (c == '"') {
    int j = i + 1;
    ks_buf b = KS_BUF_INIT;
    while (z[j] && z[j] != '"') {
      if (z[j] == '\\') {
        ks_buf_free(&b);
        return perr(p, j, "escapes are not allowed in condition strings");
      }
      if (ks_buf_append(&b, z + j, 1) < 0) {
        ks_buf_free(&b);
        return KS_ENOMEM;
      }
      j++;
    }
    if (!z[j]) {
      ks_buf_free(&b);
      return perr(p, i, "unterminated string");
    }
    p->zTok = b.z ? ks_buf_detach(&b) : ks_strdup("");
    if (!p->zTok) return KS_ENOMEM;
    p->eTok = T_STR;
    p->i = j + 1;
    p->nTokLen = j + 1 - i;
    return KS_OK;
  }
  if (isalpha((unsigned char)c) || c == '_') {
    int j = i;
    for (;;) {
      while (isalnum((unsigned char)z[j]) || z[j] == '_') j++;
      if (z[j] != '.') break;
      if (!(isalpha((unsigned char)z[j + 1]) || z[j + 1] == '_'))
        return perr(p, j, "malformed field name: '.' must be followed by a name");
      j++;
    }
    p->i = j;
    p->nTokLen = j - i;
    if (j - i == 4 && strncmp(z + i, "true", 4) == 0) {
      p->eTok = T_TRUE;
    } else if (j - i == 5 && strncmp(z + i, "false", 5) == 0) {
      p->eTok = T_FALSE;
    } else {
      p->zTok = malloc((size_t)(j - i) + 1);
      if (!p->zTok) return ks_error_set(KS_ENOMEM, "out of memory");
      memcpy(p->zTok, z + i, (size_t)(j - i));
      p->zTok[j - i] = 0;
      p->eTok = T_FIELD;
    }
    return KS_OK;
  }
  int e = -1, n = 1;
  switch (c) {
  case '(': e = T_LP; break;
  case ')': e = T_RP; break;
  case '!': if (z[i + 1] == '=') { e = T_NE; n = 2; } else e = T_NOT; break;
  case '<': if (z[i + 1] == '=') { e = T_LE; n = 2; } else e = T_LT; break;
  case '>': if (z[i + 1] == '=') { e = T_GE; n = 2; } else e = T_GT; break;
  case '=':
    if (z[i + 1] != '=') return perr(p, i, "'=' is not an operator; use '==' to compare");
    e = T_EQ; n = 2;
    break;
  case '&':
    if (z[i + 1] != '&') return perr(p, i, "'&' is not an operator; use '&&'");
    e = T_AND; n = 2;
    break;
  case '|':
    if (z[i + 1] != '|') return perr(p, i, "'|' is not an operator; use '||'");
    e = T_OR; n = 2;
    break;
  default:
    if ((unsigned char)c < 0x20 || (unsigned char)c >= 0x7f)
      return perr(p, i, "unexpected character (byte 0x%02x)", (unsigned char)c);
    return perr(p, i, "unexpected character '%c'", c);
  }
  p->eTok = e;
  p->i = i + n;
  p->nTokLen = n;
  return KS_OK;
}

/* ---- parser ---- */

static int node_new(parser *p, int eKind, int eType, int iOff) {
  ks_cond *c = p->pCond;
  if (c->n >= KS_COND_MAX_NODES) return perr(p, iOff, "condition too large (more than %d nodes)", KS_COND_MAX_NODES);
  if (c->n == c->nAlloc) {
    int nNew = c->nAlloc ? c->nAlloc * 2 : 16;
    cnode *a = realloc(c->a, sizeof *a * (size_t)nNew);
    if (!a) return ks_error_set(KS_ENOMEM, "out of memory");
    c->a = a;
    c->nAlloc = nNew;
  }
  cnode *pN = &c->a[c->n];
  memset(pN, 0, sizeof *pN);
  pN->eKind = eKind;
  pN->eType = eType;
  pN->iOff = iOff;
  pN->iL = pN->iR = -1;
  return c->n++;
}

static const char *type_name(int e) {
  return e == KS_VAL_BOOL ? "boolean" : e == KS_VAL_NUM ? "number" : e == KS_VAL_STR ? "string" : "unknown";
}

static int parse_or(parser *p, int *piNode);

static int parse_primary(parser *p, int *piNode) {
  int rc, iN;
  int iOff = p->iTokOff;
  switch (p->eTok) {
  case T_NUM:
    if ((iN = node_new(p, N_NUM, KS_VAL_NUM, iOff)) < 0) return iN;
    p->pCond->a[iN].r = p->rTok;
    break;
  case T_TRUE:
  case T_FALSE:
    if ((iN = node_new(p, N_BOOL, KS_VAL_BOOL, iOff)) < 0) return iN;
    p->pCond->a[iN].b = p->eTok == T_TRUE;
    break;
  case T_STR:
    if ((iN = node_new(p, N_STR, KS_VAL_STR, iOff)) < 0) return iN;
    p->pCond->a[iN].z = p->zTok;
    p->zTok = NULL;
    break;
  case T_FIELD: {
    const ks_field_def *pF = ks_field_find(p->zTok);
    if (!pF) {
      if (!strchr(p->zTok, '.'))
        return perr(p, iOff, "unknown field '%s' (fields are features.*, profile.*, derived.* or task.*)", p->zTok);
      const char *zDot = strchr(p->zTok, '.');
      size_t nPre = (size_t)(zDot - p->zTok);
      if (!((nPre == 8 && !strncmp(p->zTok, "features", 8)) || (nPre == 7 && !strncmp(p->zTok, "profile", 7)) ||
            (nPre == 7 && !strncmp(p->zTok, "derived", 7)) || (nPre == 4 && !strncmp(p->zTok, "task", 4))))
        return perr(p, iOff, "unknown field '%s': no evidence source '%.*s' (use features, profile, derived or task)",
                    p->zTok, (int)nPre, p->zTok);
      return perr(p, iOff, "unknown field '%s'", p->zTok);
    }
    if ((iN = node_new(p, N_FIELD, pF->eType, iOff)) < 0) return iN;
    p->pCond->a[iN].pField = pF;
    p->pCond->a[iN].z = p->zTok;
    p->zTok = NULL;
    break;
  }
  case T_LP: {
    if (++p->nDepth > KS_COND_MAX_DEPTH) return perr(p, iOff, "condition nested too deeply (more than %d levels)", KS_COND_MAX_DEPTH);
    if ((rc = lex(p)) < 0) return rc;
    if ((rc = parse_or(p, &iN)) < 0) return rc;
    if (p->eTok != T_RP) return perr(p, p->iTokOff, "expected ')' to close the '(' at offset %d, found %s", iOff + 1, tok_name(p->eTok));
    p->nDepth--;
    break;
  }
  default:
    return perr(p, iOff, "expected a value (number, string, true, false, field or '('), found %s", tok_name(p->eTok));
  }
  *piNode = iN;
  return lex(p);
}

static int is_cmp(int e) { return e >= T_LT && e <= T_NE; }

static int check_str_value(parser *p, int iField, int iStr) {
  cnode *pF = &p->pCond->a[iField], *pS = &p->pCond->a[iStr];
  if (pF->eKind != N_FIELD || pS->eKind != N_STR || !pF->pField->azValues) return KS_OK;
  for (const char *const *az = pF->pField->azValues; *az; az++)
    if (strcmp(*az, pS->z) == 0) return KS_OK;
  ks_buf b = KS_BUF_INIT;
  for (const char *const *az = pF->pField->azValues; *az; az++)
    ks_buf_printf(&b, "%s\"%s\"", az == pF->pField->azValues ? "" : ", ", *az);
  int rc = perr(p, pS->iOff, "'%s' is never \"%s\" (values: %s)", pF->z, pS->z, ks_buf_cstr(&b));
  ks_buf_free(&b);
  return rc;
}

static int parse_compare(parser *p, int *piNode) {
  int rc, iL, iR;
  if ((rc = parse_primary(p, &iL)) < 0) return rc;
  if (!is_cmp(p->eTok)) {
    *piNode = iL;
    return KS_OK;
  }
  int eOp = p->eTok, iOpOff = p->iTokOff;
  if ((rc = lex(p)) < 0) return rc;
  if ((rc = parse_primary(p, &iR)) < 0) return rc;
  if (is_cmp(p->eTok)) return perr(p, p->iTokOff, "comparisons do not chain; join them with '&&'");
  int eTL = p->pCond->a[iL].eType, eTR = p->pCond->a[iR].eType;
  if (eTL != eTR)
    return perr(p, iOpOff, "type error: %s compares a %s with a %s", tok_name(eOp), type_name(eTL), type_name(eTR));
  if (eTL != KS_VAL_NUM && eOp != T_EQ && eOp != T_NE)
    return perr(p, iOpOff, "type error: %s orders numbers only, not %ss", tok_name(eOp), type_name(eTL));
  if (eTL == KS_VAL_STR) {
    if ((rc = check_str_value(p, iL, iR)) < 0) return rc;
    if ((rc = check_str_value(p, iR, iL)) < 0) return rc;
  }
  int iN = node_new(p, N_CMP, KS_VAL_BOOL, p->pCond->a[iL].iOff);
  if (iN < 0) return iN;
  p->pCond->a[iN].eOp = eOp;
  p->pCond->a[iN].iL = iL;
  p->pCond->a[iN].iR = iR;
  *piNode = iN;
  return KS_OK;
}

static int need_bool(parser *p, int iN, const char *zWhat) {
  cnode *pN = &p->pCond->a[iN];
  if (pN->eType == KS_VAL_BOOL) return KS_OK;
  return perr(p, pN->iOff, "type error: %s needs a boolean, this is a %s%s%s", zWhat, type_name(pN->eType),
              pN->eKind == N_FIELD ? " field; compare it, e.g. " : "",
              pN->eKind == N_FIELD ? (pN->eType == KS_VAL_NUM ? "'> 0'" : "'== \"...\"'") : "");
}

static int parse_unary(parser *p, int *piNode) {
  int rc;
  if (p->eTok == T_NOT) {
    int iOff = p->iTokOff, iC;
    if (++p->nDepth > KS_COND_MAX_DEPTH) return perr(p, iOff, "condition nested too deeply (more than %d levels)", KS_COND_MAX_DEPTH);
    if ((rc = lex(p)) < 0) return rc;
    if ((rc = parse_unary(p, &iC)) < 0) return rc;
    p->nDepth--;
    if ((rc = need_bool(p, iC, "'!'")) < 0) return rc;
    int iN = node_new(p, N_NOT, KS_VAL_BOOL, iOff);
    if (iN < 0) return iN;
    p->pCond->a[iN].iL = iC;
    *piNode = iN;
    return KS_OK;
  }
  return parse_compare(p, piNode);
}

static int parse_binary(parser *p, int eTok, int eKind, int (*xSub)(parser *, int *), int *piNode) {
  int rc, iL;
  if ((rc = xSub(p, &iL)) < 0) return rc;
  while (p->eTok == eTok) {
    int iR;
    if ((rc = need_bool(p, iL, tok_name(eTok))) < 0) return rc;
    if ((rc = lex(p)) < 0) return rc;
    if ((rc = xSub(p, &iR)) < 0) return rc;
    if ((rc = need_bool(p, iR, tok_name(eTok))) < 0) return rc;
    int iN = node_new(p, eKind, KS_VAL_BOOL, p->pCond->a[iL].iOff);
    if (iN < 0) return iN;
    p->pCond->a[iN].iL = iL;
    p->pCond->a[iN].iR = iR;
    iL = iN;
  }
  *piNode = iL;
  return KS_OK;
}

static int parse_and(parser *p, int *piNode) { return parse_binary(p, T_AND, N_AND, parse_unary, piNode); }
static int parse_or(parser *p, int *piNode) { return parse_binary(p, T_OR, N_OR, parse_and, piNode); }

int ks_cond_parse(const char *zText, const ks_cond_loc *pLoc, ks_cond **ppCond) {
  static const ks_cond_loc defLoc = KS_COND_LOC_INIT;
  int rc, iRoot;
  *ppCond = NULL;
  if (pLoc && pLoc->version != KS_COND_LOC_VERSION)
    return ks_error_set(KS_EUSAGE, "ks_cond_loc: unsupported version %u", pLoc->version);
  ks_cond *c = calloc(1, sizeof *c);
  if (!c) return ks_error_set(KS_ENOMEM, "out of memory");
  parser p = {0};
  p.pCond = c;
  p.z = zText;
  p.pLoc = pLoc ? pLoc : &defLoc;
  if (!(c->zText = ks_strdup(zText))) {
    rc = KS_ENOMEM;
    goto fail;
  }
  if ((rc = lex(&p)) < 0) goto fail;
  if (p.eTok == T_EOF) {
    rc = perr(&p, 0, "empty condition");
    goto fail;
  }
  if ((rc = parse_or(&p, &iRoot)) < 0) goto fail;
  if (p.eTok != T_EOF) {
    rc = perr(&p, p.iTokOff, "unexpected %s after a complete condition (missing '&&' or '||'?)", tok_name(p.eTok));
    goto fail;
  }
  if (c->a[iRoot].eType != KS_VAL_BOOL) {
    rc = perr(&p, c->a[iRoot].iOff, "type error: a condition must be boolean, this is a %s", type_name(c->a[iRoot].eType));
    goto fail;
  }
  c->iRoot = iRoot;
  free(p.zTok);
  *ppCond = c;
  return KS_OK;
fail:
  free(p.zTok);
  ks_cond_free(c);
  return rc;
}

void ks_cond_free(ks_cond *c) {
  if (!c) return;
  for (int i = 0; i < c->n; i++) free(c->a[i].z);
  free(c->a);
  free(c->zText);
  free(c);
}

const char *ks_cond_text(const ks_cond *c) { return c->zText; }

static int count_conj(const ks_cond *c, int i) {
  if (c->a[i].eKind == N_AND) return count_conj(c, c->a[i].iL) + count_conj(c, c->a[i].iR);
  return 1;
}

int ks_cond_conjuncts(const ks_cond *c) { return count_conj(c, c->iRoot); }

/* ---- evaluation (Kleene logic: unknown && false = false, unknown || true = true) ---- */

static ks_value eval_node(const ks_cond *c, int i, const ks_evidence *pEv) {
  const cnode *n = &c->a[i];
  ks_value v = {KS_VAL_UNKNOWN, 0, 0, NULL};
  switch (n->eKind) {
  case N_NUM: v.eType = KS_VAL_NUM; v.r = n->r; return v;
  case N_BOOL: v.eType = KS_VAL_BOOL; v.b = n->b; return v;
  case N_STR: v.eType = KS_VAL_STR; v.z = n->z; return v;
  case N_FIELD: return ks_evidence_get(pEv, n->z, NULL);
  case N_NOT:
    v = eval_node(c, n->iL, pEv);
    if (v.eType == KS_VAL_BOOL) v.b = !v.b;
    return v;
  case N_AND:
  case N_OR: {
    ks_value a = eval_node(c, n->iL, pEv), b = eval_node(c, n->iR, pEv);
    int bShort = n->eKind == N_OR; /* the value that decides alone */
    if ((a.eType == KS_VAL_BOOL && a.b == bShort) || (b.eType == KS_VAL_BOOL && b.b == bShort)) {
      v.eType = KS_VAL_BOOL;
      v.b = bShort;
    } else if (a.eType == KS_VAL_BOOL && b.eType == KS_VAL_BOOL) {
      v.eType = KS_VAL_BOOL;
      v.b = !bShort;
    }
    return v;
  }
  case N_CMP: {
    ks_value a = eval_node(c, n->iL, pEv), b = eval_node(c, n->iR, pEv);
    if (a.eType == KS_VAL_UNKNOWN || b.eType == KS_VAL_UNKNOWN) return v;
    int cmp;
    if (a.eType == KS_VAL_NUM) cmp = a.r < b.r ? -1 : a.r > b.r ? 1 : 0;
    else if (a.eType == KS_VAL_STR) cmp = strcmp(a.z, b.z);
    else cmp = (a.b != 0) - (b.b != 0);
    v.eType = KS_VAL_BOOL;
    switch (n->eOp) {
    case T_LT: v.b = cmp < 0; break;
    case T_LE: v.b = cmp <= 0; break;
    case T_GT: v.b = cmp > 0; break;
    case T_GE: v.b = cmp >= 0; break;
    case T_EQ: v.b = cmp == 0; break;
    default: v.b = cmp != 0; break;
    }
    return v;
  }
  }
  return v;
}

int ks_cond_eval(const ks_cond *c, const ks_evidence *pEv, ks_value *pResult) {
  *pResult = eval_node(c, c->iRoot, pEv);
  return KS_OK;
}

/* ---- explanation ---- */

static void fmt_num(char *z, size_t n, double r) {
  if (r == floor(r) && fabs(r) < 1e15) snprintf(z, n, "%.0f", r);
  else snprintf(z, n, "%.4g", r);
}

static int put_value(ks_buf *b, ks_value v) {
  char a[64];
  switch (v.eType) {
  case KS_VAL_NUM: fmt_num(a, sizeof a, v.r); return ks_buf_puts(b, a);
  case KS_VAL_BOOL: return ks_buf_puts(b, v.b ? "true" : "false");
  case KS_VAL_STR: return ks_buf_puts(b, v.z);
  default: return ks_buf_puts(b, "unknown");
  }
}

static void sep(ks_buf *b) {
  if (b->n) ks_buf_puts(b, "; ");
}

/* Whether "<field> unknown" is already in the explanation. */
static int mentioned(const ks_buf *b, const char *zField) {
  size_t n = strlen(zField);
  for (const char *z = b->z ? strstr(b->z, zField) : NULL; z; z = strstr(z + 1, zField))
    if ((z == b->z || z[-1] == ' ') && strncmp(z + n, " unknown", 8) == 0) return 1;
  return 0;
}

static const char *op_text(int e) {
  switch (e) {
  case T_LT: return "<"; case T_LE: return "<="; case T_GT: return ">"; case T_GE: return ">=";
  case T_EQ: return "=="; default: return "!=";
  }
}

static const char *op_negated(int e) {
  switch (e) {
  case T_LT: return ">="; case T_LE: return ">"; case T_GT: return "<="; case T_GE: return "<";
  case T_EQ: return "!="; default: return "==";
  }
}

/* Write one operand of a comparison: a field as name=value (plus its reason). */
static void put_operand(const ks_cond *c, int i, const ks_evidence *pEv, ks_buf *b) {
  const cnode *n = &c->a[i];
  if (n->eKind == N_FIELD) {
    const char *zWhy = NULL;
    ks_value v = ks_evidence_get(pEv, n->z, &zWhy);
    ks_buf_printf(b, "%s=", n->z);
    put_value(b, v);
    if (zWhy && zWhy[0]) ks_buf_printf(b, " [%s]", zWhy);
  } else if (n->eKind == N_STR) {
    ks_buf_printf(b, "\"%s\"", n->z);
  } else {
    put_value(b, eval_node(c, i, pEv));
  }
}

/* Explain why node i evaluated to bWant (bWant -1: why it is unknown). */
static void explain(const ks_cond *c, int i, const ks_evidence *pEv, int bWant, ks_buf *b) {
  const cnode *n = &c->a[i];
  switch (n->eKind) {
  case N_BOOL:
    sep(b);
    ks_buf_puts(b, n->b ? "true" : "false");
    return;
  case N_FIELD: {
    const char *zWhy = NULL;
    ks_value v = ks_evidence_get(pEv, n->z, &zWhy);
    if (v.eType == KS_VAL_UNKNOWN) {
      if (mentioned(b, n->z)) return;
      sep(b);
      ks_buf_printf(b, "%s unknown", n->z);
    } else {
      sep(b);
      ks_buf_printf(b, "%s%s", v.b ? "" : "!", n->z);
    }
    if (zWhy && zWhy[0]) ks_buf_printf(b, " [%s]", zWhy);
    return;
  }
  case N_NOT:
    explain(c, n->iL, pEv, bWant < 0 ? -1 : !bWant, b);
    return;
  case N_CMP: {
    ks_value v = eval_node(c, i, pEv);
    if (v.eType == KS_VAL_UNKNOWN) {
      /* name the missing side(s), each field once per explanation */
      for (int k = 0; k < 2; k++) {
        int j = k ? n->iR : n->iL;
        if (c->a[j].eKind == N_FIELD && eval_node(c, j, pEv).eType == KS_VAL_UNKNOWN && !mentioned(b, c->a[j].z)) {
          sep(b);
          ks_buf_printf(b, "%s unknown", c->a[j].z);
        }
      }
      return;
    }
    sep(b);
    put_operand(c, n->iL, pEv, b);
    ks_buf_printf(b, " %s ", v.b ? op_text(n->eOp) : op_negated(n->eOp));
    put_operand(c, n->iR, pEv, b);
    return;
  }
  case N_AND:
  case N_OR: {
    ks_value a = eval_node(c, n->iL, pEv), r = eval_node(c, n->iR, pEv);
    int bShort = n->eKind == N_OR;
    if (bWant == bShort) {
      /* one operand decided: name the first that did */
      if (a.eType == KS_VAL_BOOL && a.b == bShort) explain(c, n->iL, pEv, bShort, b);
      else explain(c, n->iR, pEv, bShort, b);
    } else if (bWant == !bShort) {
      explain(c, n->iL, pEv, !bShort, b);
      explain(c, n->iR, pEv, !bShort, b);
    } else {
      /* unknown: explain the operands that are unknown */
      if (a.eType == KS_VAL_UNKNOWN) explain(c, n->iL, pEv, -1, b);
      if (r.eType == KS_VAL_UNKNOWN) explain(c, n->iR, pEv, -1, b);
    }
    return;
  }
  default:
    return;
  }
}

int ks_cond_explain(const ks_cond *c, const ks_evidence *pEv, ks_buf *pOut) {
  ks_value v = eval_node(c, c->iRoot, pEv);
  ks_buf b = KS_BUF_INIT;
  explain(c, c->iRoot, pEv, v.eType == KS_VAL_BOOL ? v.b : -1, &b);
  int rc = ks_buf_puts(pOut, ks_buf_cstr(&b));
  ks_buf_free(&b);
  return rc;
}
