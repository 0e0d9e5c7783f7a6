/* client.c — the OpenAI-compatible chat-completions client: configuration from
 * the environment, one libcurl request per attempt with connect and total
 * timeouts, retries with exponential backoff on 429/5xx/timeouts (Retry-After
 * honoured, capped), the token budget, and key redaction in every message. */
#include "kernelskill/llm.h"
#include "kernelskill/proc.h"

#include <ctype.h>
#include <curl/curl.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <cjson/cJSON.h>

/* A reply larger than this is not a chat completion we want. */
#define KS_LLM_MAX_BODY (16u << 20)

#define KS_LLM_MAX_SECRETS 4

struct ks_llm {
  char *zEndpoint;     /* the URL requests go to (may hold credentials) */
  char *zShown;        /* the same without credentials: what messages print */
  char *azSecret[KS_LLM_MAX_SECRETS]; /* besides the key: the URL's password, key-like query values */
  char *zModel;
  char *zKey;        /* NULL: no Authorization header */
  double rConnectTimeoutS, rTimeoutS, rBackoffS, rRetryAfterCapS, rTemperature;
  int nMaxRetries, nMaxTokens, bDebug;
  long nTokenBudget, nTokensUsed;
  ks_llm_fail eLastFail;
};

const char *ks_llm_fail_name(ks_llm_fail e) {
  switch (e) {
  case KS_LLM_FAIL_NONE: return "none";
  case KS_LLM_FAIL_CONNECT: return "connect";
  case KS_LLM_FAIL_TIMEOUT: return "timeout";
  case KS_LLM_FAIL_HTTP: return "http";
  case KS_LLM_FAIL_REPLY: return "reply";
  case KS_LLM_FAIL_BUDGET: return "budget";
  }
  return "?";
}

int ks_llm_configured(void) {
  const char *z = getenv("KS_LLM_URL");
  return z && z[0];
}

/* ---- redaction ----------------------------------------------------------- */

/* Query parameters whose values are credentials ("?api_key=..."). */
static const char *const azKeyParam[] = {"api_key=", "api-key=", "apikey=", "key=", "access_token=", "token=",
                                         "password=", NULL};

static size_t key_param_len(const char *p) {
  for (int i = 0; azKeyParam[i]; i++) {
    size_t n = strlen(azKeyParam[i]);
    if (strncasecmp(p, azKeyParam[i], n) == 0) return n;
  }
  return 0;
}

static int redact_secrets(const char *zKey, char *const *azSecret, const char *z, ks_buf *pOut) {
  size_t nKey = zKey ? strlen(zKey) : 0;
  const char *p = z;
  int rc = KS_OK;
  while (*p && rc == KS_OK) {
    size_t nSecret = 0;
    for (int i = 0; azSecret && i < KS_LLM_MAX_SECRETS && !nSecret; i++)
      if (azSecret[i] && strncmp(p, azSecret[i], strlen(azSecret[i])) == 0) nSecret = strlen(azSecret[i]);
    if (nKey && strncmp(p, zKey, nKey) == 0) {
      rc = ks_buf_puts(pOut, "[REDACTED]");
      p += nKey;
    } else if (nSecret) {
      rc = ks_buf_puts(pOut, "[REDACTED]");
      p += nSecret;
    } else if (strncmp(p, "Bearer ", 7) == 0 && p[7] && !isspace((unsigned char)p[7])) {
      /* Whatever follows "Bearer " is a credential, ours or an echo of it. */
      rc = ks_buf_puts(pOut, "Bearer [REDACTED]");
      p += 7;
      while (*p && !isspace((unsigned char)*p) && *p != '"' && *p != '\'') p++;
    } else {
      rc = ks_buf_append(pOut, p, 1);
      p++;
    }
  }
  return rc;
}


int ks_llm_redact(const ks_llm *p, const char *z, ks_buf *pOut) {
  return redact_secrets(p ? p->zKey : NULL, p ? p->azSecret : NULL, z ? z : "", pOut);
}

/* A malloc'd redacted copy of z (NULL stays NULL): every string that came
 * from the endpoint goes through this before anything prints, journals or
 * saves it. */
static char *redacted_dup(const ks_llm *p, const char *z) {
  if (!z) return NULL;
  ks_buf b = KS_BUF_INIT;
  if (ks_llm_redact(p, z, &b) < 0 || ks_buf_grow(&b, 0) < 0) {
    ks_buf_free(&b);
    return NULL;
  }
  return ks_buf_detach(&b);
}

/* ks_error_set with the key redacted from the formatted message. */
/* A message formatted and then redacted (no key or token ever leaves in an
 * error or a debug line): the one path both take. */
static void llm_vredact(const ks_llm *p, ks_buf *pOut, const char *zFmt, va_list ap) {
  ks_buf raw = KS_BUF_INIT;
  ks_buf_vprintf(&raw, zFmt, ap);
  ks_llm_redact(p, ks_buf_cstr(&raw), pOut);
  ks_buf_free(&raw);
}

static int llm_error(const ks_llm *p, int rc, const char *zFmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int llm_error(const ks_llm *p, int rc, const char *zFmt, ...) {
  ks_buf clean = KS_BUF_INIT;
  va_list ap;
  va_start(ap, zFmt);
  llm_vredact(p, &clean, zFmt, ap);
  va_end(ap);
  ks_error_set(rc, "%s", ks_buf_cstr(&clean));
  ks_buf_free(&clean);
  return rc;
}

static void llm_debug(const ks_llm *p, const char *zFmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void llm_debug(const ks_llm *p, const char *zFmt, ...) {
  if (!p->bDebug) return;
  ks_buf clean = KS_BUF_INIT;
  va_list ap;
  va_start(ap, zFmt);
  llm_vredact(p, &clean, zFmt, ap);
  va_end(ap);
  fprintf(stderr, "kernelskill: llm: %s\n", ks_buf_cstr(&clean));
  ks_buf_free(&clean);
}

/* ---- configuration --------------------------------------------------------- */

static int env_double(const char *zVar, double rDefault, double *pr) {
  const char *z = getenv(zVar);
  *pr = rDefault;
  if (!z || !z[0]) return KS_OK;
  char *zEnd;
  errno = 0;
  double r = strtod(z, &zEnd);
  if (errno || *zEnd || !isfinite(r) || r < 0)
    return ks_error_set(KS_EINVAL, "%s: '%s' is not a non-negative number", zVar, z);
  *pr = r;
  return KS_OK;
}

static int env_long(const char *zVar, long nDefault, long *pn) {
  const char *z = getenv(zVar);
  *pn = nDefault;
  if (!z || !z[0]) return KS_OK;
  char *zEnd;
  errno = 0;
  long n = strtol(z, &zEnd, 10);
  if (errno || *zEnd || n < 0) return ks_error_set(KS_EINVAL, "%s: '%s' is not a non-negative integer", zVar, z);
  *pn = n;
  return KS_OK;
}

/* The key from a file: its first line, surrounding white space trimmed. The
 * file's contents never appear in a message. */
static int read_key_file(const char *zPath, char **pzKey) {
  char *z = NULL;
  size_t n = 0;
  int rc = ks_file_read(zPath, &z, &n);
  if (rc < 0) return ks_error_set(KS_EUNAVAIL, "KS_LLM_API_KEY_FILE: cannot read '%s'", zPath);
  char *zBeg = z;
  while (*zBeg && isspace((unsigned char)*zBeg)) zBeg++;
  char *zEnd = zBeg;
  while (*zEnd && *zEnd != '\n' && *zEnd != '\r') zEnd++;
  while (zEnd > zBeg && isspace((unsigned char)zEnd[-1])) zEnd--;
  if (zEnd == zBeg) {
    free(z);
    return ks_error_set(KS_EUNAVAIL, "KS_LLM_API_KEY_FILE: '%s' is empty", zPath);
  }
  *zEnd = 0;
  memmove(z, zBeg, (size_t)(zEnd - zBeg) + 1);
  *pzKey = z;
  return KS_OK;
}

static char *make_endpoint(const char *zUrl) {
  ks_buf b = KS_BUF_INIT;
  size_t n = strcspn(zUrl, "?#"); /* the path part; a query stays at the end */
  while (n > 0 && zUrl[n - 1] == '/') n--;
  ks_buf_append(&b, zUrl, n);
  if (n >= 17 && strncmp(zUrl + n - 17, "/chat/completions", 17) == 0) {
    /* used as is */
  } else if (n >= 3 && strncmp(zUrl + n - 3, "/v1", 3) == 0) {
    ks_buf_puts(&b, "/chat/completions");
  } else {
    ks_buf_puts(&b, "/v1/chat/completions");
  }
  ks_buf_puts(&b, zUrl + strcspn(zUrl, "?#"));
  return ks_buf_detach(&b);
}

/* The endpoint without credentials: "user:pass@" dropped, the values of
 * key-like query parameters replaced; the credentials found are added to the
 * secrets redacted from every message. */
/* Keep a credential found in the URL for redaction. Very short ones (a user
 * name "u") would blank ordinary text, so they are only kept out of the URL
 * shown. */
static void add_secret(ks_llm *p, int *pnSecret, const char *z, size_t n) {
  if (n < 4 || *pnSecret >= KS_LLM_MAX_SECRETS) return;
  char *zCopy = malloc(n + 1);
  if (!zCopy) return;
  memcpy(zCopy, z, n);
  zCopy[n] = 0;
  p->azSecret[(*pnSecret)++] = zCopy;
}

static char *shown_endpoint(ks_llm *p, const char *zUrl) {
  ks_buf b = KS_BUF_INIT;
  int nSecret = 0;
  const char *zHost = strstr(zUrl, "://");
  zHost = zHost ? zHost + 3 : zUrl;
  size_t nAuthority = strcspn(zHost, "/?#");
  const char *zAt = NULL;
  for (const char *q = zHost; q < zHost + nAuthority; q++)
    if (*q == '@') zAt = q;
  ks_buf_append(&b, zUrl, (size_t)(zHost - zUrl));
  if (zAt) {
    /* user[:password]@host: both may be credentials. */
    const char *zColon = memchr(zHost, ':', (size_t)(zAt - zHost));
    const char *zUserEnd = zColon ? zColon : zAt;
    if (zColon) add_secret(p, &nSecret, zColon + 1, (size_t)(zAt - zColon - 1));
    if (zUserEnd - zHost >= 8) add_secret(p, &nSecret, zHost, (size_t)(zUserEnd - zHost));
    ks_buf_puts(&b, "[REDACTED]@");
    zHost = zAt + 1;
  }
  for (const char *q = zHost; *q;) {
    size_t nParam = (q[-1] == '?' || q[-1] == '&') ? key_param_len(q) : 0;
    if (nParam) {
      const char *zV = q + nParam, *zE = zV + strcspn(zV, "&#");
      add_secret(p, &nSecret, zV, (size_t)(zE - zV));
      ks_buf_append(&b, q, nParam);
      ks_buf_puts(&b, "[REDACTED]");
      q = zE;
    } else {
      ks_buf_append(&b, q, 1);
      q++;
    }
  }
  return ks_buf_detach(&b);
}

static void wipe_free(char *z) {
  if (!z) return;
  volatile char *v = z;
  while (*v) *v++ = 0;
  free(z);
}

void ks_llm_close(ks_llm *p) {
  if (!p) return;
  wipe_free(p->zEndpoint);
  free(p->zShown);
  for (int i = 0; i < KS_LLM_MAX_SECRETS; i++) wipe_free(p->azSecret[i]);
  free(p->zModel);
  wipe_free(p->zKey);
  free(p);
}

int ks_llm_open(const ks_llm_opts *pOpts, ks_llm **ppLlm) {
  static int bCurlInit = 0;
  ks_llm_opts dflt = KS_LLM_OPTS_INIT;
  if (!pOpts) pOpts = &dflt;
  *ppLlm = NULL;
  if (pOpts->version != KS_LLM_OPTS_VERSION)
    return ks_error_set(KS_EUSAGE, "ks_llm_opts: unsupported version %u", pOpts->version);
  int rc = KS_OK;
  ks_llm *p = calloc(1, sizeof *p);
  if (!p) return ks_error_set(KS_ENOMEM, "out of memory");

  const char *zUrl = pOpts->zUrl ? pOpts->zUrl : getenv("KS_LLM_URL");
  if (!zUrl || !zUrl[0]) {
    rc = ks_error_set(KS_EUNAVAIL, "no LLM configured: set KS_LLM_URL (e.g. https://api.example.com/v1) and KS_LLM_MODEL");
    goto fail;
  }
  if (strncmp(zUrl, "http://", 7) != 0 && strncmp(zUrl, "https://", 8) != 0) {
    rc = ks_error_set(KS_EINVAL, "KS_LLM_URL must start with http:// or https://");
    goto fail;
  }
  const char *zModel = pOpts->zModel ? pOpts->zModel : getenv("KS_LLM_MODEL");
  if (!zModel || !zModel[0]) {
    rc = ks_error_set(KS_EUNAVAIL, "KS_LLM_MODEL is not set: name the model the endpoint should use");
    goto fail;
  }
  if (!(p->zEndpoint = make_endpoint(zUrl)) || !(p->zShown = shown_endpoint(p, p->zEndpoint)) ||
      !(p->zModel = ks_strdup(zModel))) {
    rc = ks_error_set(KS_ENOMEM, "out of memory");
    goto fail;
  }

  /* The key: explicit, else KS_LLM_API_KEY, else KS_LLM_API_KEY_FILE. */
  const char *zKey = pOpts->zApiKey ? pOpts->zApiKey : getenv("KS_LLM_API_KEY");
  const char *zKeyFile = pOpts->zApiKeyFile ? pOpts->zApiKeyFile : getenv("KS_LLM_API_KEY_FILE");
  if (zKey && zKey[0]) {
    if (!(p->zKey = ks_strdup(zKey))) { rc = KS_ENOMEM; goto fail; }
  } else if (zKeyFile && zKeyFile[0]) {
    if ((rc = read_key_file(zKeyFile, &p->zKey)) < 0) goto fail;
  }

  long nRetries = 0, nBudget = 0, nMaxTokens = 0;
  if ((rc = env_double("KS_LLM_CONNECT_TIMEOUT_S", 10, &p->rConnectTimeoutS)) < 0) goto fail;
  if ((rc = env_double("KS_LLM_TIMEOUT_S", 300, &p->rTimeoutS)) < 0) goto fail;
  if ((rc = env_double("KS_LLM_BACKOFF_S", 1, &p->rBackoffS)) < 0) goto fail;
  if ((rc = env_double("KS_LLM_RETRY_AFTER_MAX_S", 60, &p->rRetryAfterCapS)) < 0) goto fail;
  if ((rc = env_long("KS_LLM_MAX_RETRIES", 4, &nRetries)) < 0) goto fail;
  if ((rc = env_long("KS_LLM_TOKEN_BUDGET", 0, &nBudget)) < 0) goto fail;
  if ((rc = env_long("KS_LLM_MAX_TOKENS", 0, &nMaxTokens)) < 0) goto fail;
  if (pOpts->rConnectTimeoutS > 0) p->rConnectTimeoutS = pOpts->rConnectTimeoutS;
  if (pOpts->rTimeoutS > 0) p->rTimeoutS = pOpts->rTimeoutS;
  if (pOpts->rBackoffS > 0) p->rBackoffS = pOpts->rBackoffS;
  if (pOpts->rRetryAfterCapS > 0) p->rRetryAfterCapS = pOpts->rRetryAfterCapS;
  p->nMaxRetries = pOpts->nMaxRetries > 0 ? pOpts->nMaxRetries : pOpts->nMaxRetries < 0 ? 0 : (int)nRetries;
  p->nTokenBudget = pOpts->nTokenBudget > 0 ? pOpts->nTokenBudget : nBudget;
  p->nMaxTokens = pOpts->nMaxTokens > 0 ? pOpts->nMaxTokens : (int)nMaxTokens;
  p->rTemperature = pOpts->rTemperature;
  const char *zDebug = getenv("KS_LLM_DEBUG");
  p->bDebug = pOpts->bDebug || (zDebug && strcmp(zDebug, "1") == 0);
  if (p->rTimeoutS <= 0 || p->rConnectTimeoutS <= 0) {
    rc = ks_error_set(KS_EINVAL, "KS_LLM_TIMEOUT_S and KS_LLM_CONNECT_TIMEOUT_S must be positive");
    goto fail;
  }

  if (!bCurlInit) {
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
      rc = ks_error_set(KS_EUNAVAIL, "libcurl failed to initialize");
      goto fail;
    }
    bCurlInit = 1;
  }
  *ppLlm = p;
  return KS_OK;
fail:
  ks_llm_close(p);
  return rc;
}

ks_llm_fail ks_llm_last_failure(const ks_llm *p) { return p->eLastFail; }
long ks_llm_tokens_used(const ks_llm *p) { return p->nTokensUsed; }
long ks_llm_token_budget(const ks_llm *p) { return p->nTokenBudget; }
const char *ks_llm_model(const ks_llm *p) { return p->zModel; }
const char *ks_llm_endpoint(const ks_llm *p) { return p->zShown; }

void ks_llm_reply_free(ks_llm_reply *pReply) {
  if (!pReply) return;
  free(pReply->zContent);
  free(pReply->zModel);
  free(pReply->zFinishReason);
  memset(pReply, 0, sizeof *pReply);
}

/* ---- one HTTP attempt --------------------------------------------------- */

typedef struct http_result {
  ks_buf body;
  long iStatus;
  double rRetryAfterS; /* < 0: no usable Retry-After */
  int bTooBig;
} http_result;

static size_t on_body(char *pData, size_t nSize, size_t nItems, void *pArg) {
  http_result *pR = pArg;
  size_t n = nSize * nItems;
  if (pR->body.n + n > KS_LLM_MAX_BODY) {
    pR->bTooBig = 1;
    return 0; /* aborts the transfer */
  }
  if (ks_buf_append(&pR->body, pData, n) < 0) return 0;
  return n;
}

/* Retry-After in its seconds form ("Retry-After: 3"); the HTTP-date form is
 * ignored (the backoff applies). */
static size_t on_header(char *pData, size_t nSize, size_t nItems, void *pArg) {
  http_result *pR = pArg;
  size_t n = nSize * nItems;
  static const char zName[] = "retry-after:";
  if (n > sizeof zName - 1 && strncasecmp(pData, zName, sizeof zName - 1) == 0) {
    char zVal[64];
    size_t nVal = n - (sizeof zName - 1);
    if (nVal >= sizeof zVal) nVal = sizeof zVal - 1;
    memcpy(zVal, pData + sizeof zName - 1, nVal);
    zVal[nVal] = 0;
    char *z = zVal;
    while (*z == ' ' || *z == '\t') z++;
    char *zEnd;
    errno = 0;
    double r = strtod(z, &zEnd);
    while (*zEnd == ' ' || *zEnd == '\t' || *zEnd == '\r' || *zEnd == '\n') zEnd++;
    if (!errno && zEnd != z && !*zEnd && isfinite(r) && r >= 0) pR->rRetryAfterS = r;
  }
  return n;
}

static double now_sec(void) { return ks_clock_now(NULL); }

static void sleep_sec(double r) {
  if (r <= 0) return;
  struct timespec ts;
  ts.tv_sec = (time_t)r;
  ts.tv_nsec = (long)((r - (double)ts.tv_sec) * 1e9);
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

static CURLcode http_post(ks_llm *p, const char *zBody, http_result *pR, char *zCurlErr) {
  CURL *pCurl = curl_easy_init();
  if (!pCurl) return CURLE_FAILED_INIT;
  struct curl_slist *pHdr = NULL;
  ks_buf auth = KS_BUF_INIT;
  pHdr = curl_slist_append(pHdr, "Content-Type: application/json");
  pHdr = curl_slist_append(pHdr, "Accept: application/json");
  pHdr = curl_slist_append(pHdr, "Expect:"); /* no 100-continue round trip */
  if (p->zKey) {
    ks_buf_printf(&auth, "Authorization: Bearer %s", p->zKey);
    pHdr = curl_slist_append(pHdr, ks_buf_cstr(&auth));
    volatile char *v = auth.z;
    for (size_t i = 0; i < auth.n; i++) v[i] = 0;
  }
  curl_easy_setopt(pCurl, CURLOPT_URL, p->zEndpoint);
  curl_easy_setopt(pCurl, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(pCurl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(pCurl, CURLOPT_HTTPHEADER, pHdr);
  curl_easy_setopt(pCurl, CURLOPT_POST, 1L);
  curl_easy_setopt(pCurl, CURLOPT_POSTFIELDS, zBody);
  curl_easy_setopt(pCurl, CURLOPT_POSTFIELDSIZE, (long)strlen(zBody));
  curl_easy_setopt(pCurl, CURLOPT_CONNECTTIMEOUT_MS, (long)(p->rConnectTimeoutS * 1000));
  curl_easy_setopt(pCurl, CURLOPT_TIMEOUT_MS, (long)(p->rTimeoutS * 1000));
  curl_easy_setopt(pCurl, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(pCurl, CURLOPT_WRITEDATA, pR);
  curl_easy_setopt(pCurl, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(pCurl, CURLOPT_HEADERDATA, pR);
  curl_easy_setopt(pCurl, CURLOPT_ERRORBUFFER, zCurlErr);
  curl_easy_setopt(pCurl, CURLOPT_USERAGENT, "kernelskill/" KS_VERSION_STRING);
  /* Never send the key to another host on a redirect, never read ~/.netrc. */
  curl_easy_setopt(pCurl, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(pCurl, CURLOPT_NETRC, (long)CURL_NETRC_IGNORED);
  zCurlErr[0] = 0;
  CURLcode e = curl_easy_perform(pCurl);
  curl_easy_getinfo(pCurl, CURLINFO_RESPONSE_CODE, &pR->iStatus);
  curl_slist_free_all(pHdr);
  curl_easy_cleanup(pCurl);
  ks_buf_free(&auth);
  return e;
}

/* ---- request and reply JSON ------------------------------------------------ */

static int build_request(ks_llm *p, const ks_llm_msg *aMsg, int nMsg, char **pzBody) {
  cJSON *pReq = cJSON_CreateObject();
  cJSON *pMsgs = pReq ? cJSON_AddArrayToObject(pReq, "messages") : NULL;
  if (!pMsgs || !cJSON_AddStringToObject(pReq, "model", p->zModel)) goto oom;
  for (int i = 0; i < nMsg; i++) {
    cJSON *pM = cJSON_CreateObject();
    if (!pM) goto oom;
    cJSON_AddItemToArray(pMsgs, pM);
    if (!cJSON_AddStringToObject(pM, "role", aMsg[i].zRole ? aMsg[i].zRole : "user") ||
        !cJSON_AddStringToObject(pM, "content", aMsg[i].zContent ? aMsg[i].zContent : ""))
      goto oom;
  }
  if (p->nMaxTokens > 0 && !cJSON_AddNumberToObject(pReq, "max_tokens", p->nMaxTokens)) goto oom;
  if (p->rTemperature >= 0 && !cJSON_AddNumberToObject(pReq, "temperature", p->rTemperature)) goto oom;
  if (!cJSON_AddFalseToObject(pReq, "stream")) goto oom;
  *pzBody = cJSON_PrintUnformatted(pReq);
  cJSON_Delete(pReq);
  if (!*pzBody) return ks_error_set(KS_ENOMEM, "out of memory");
  return KS_OK;
oom:
  cJSON_Delete(pReq);
  return ks_error_set(KS_ENOMEM, "out of memory");
}

/* A short, single-line, redacted excerpt of a body for messages. */
static void excerpt(const ks_llm *p, const char *z, ks_buf *pOut) {
  /* Redact the whole body first: cutting first could leave a prefix of a
   * secret that no longer matches. */
  ks_buf clean = KS_BUF_INIT;
  ks_llm_redact(p, z, &clean);
  const char *zC = ks_buf_cstr(&clean);
  size_t n = 0;
  for (const char *q = zC; *q && n < 200; q++, n++) ks_buf_append(pOut, (*q == '\n' || *q == '\r') ? " " : q, 1);
  if (clean.n > 200) ks_buf_puts(pOut, "...");
  ks_buf_free(&clean);
}

/* A token count. Converting a double beyond long's range is undefined
 * ("prompt_tokens": 1e300), so absurd counts are capped first. */
#define KS_LLM_MAX_COUNT 1e12
static long json_long(const cJSON *pObj, const char *zKey) {
  const cJSON *pV = cJSON_GetObjectItemCaseSensitive(pObj, zKey);
  if (!cJSON_IsNumber(pV) || !(pV->valuedouble >= 0)) return -1; /* also NaN */
  return pV->valuedouble > KS_LLM_MAX_COUNT ? (long)KS_LLM_MAX_COUNT : (long)pV->valuedouble;
}

static int parse_reply(ks_llm *p, const char *zBody, size_t nPromptBytes, ks_llm_reply *pReply) {
  int rc = KS_OK;
  ks_buf ex = KS_BUF_INIT;
  cJSON *pDoc = cJSON_Parse(zBody);
  if (!pDoc || !cJSON_IsObject(pDoc)) {
    excerpt(p, zBody, &ex);
    rc = llm_error(p, KS_EPARSE, "%s: the reply is not JSON: '%s'", p->zShown, ks_buf_cstr(&ex));
    goto done;
  }
  const cJSON *pErr = cJSON_GetObjectItemCaseSensitive(pDoc, "error");
  const cJSON *pChoices = cJSON_GetObjectItemCaseSensitive(pDoc, "choices");
  const cJSON *pFirst = cJSON_IsArray(pChoices) ? cJSON_GetArrayItem(pChoices, 0) : NULL;
  const cJSON *pMsg = pFirst ? cJSON_GetObjectItemCaseSensitive(pFirst, "message") : NULL;
  const cJSON *pContent = pMsg ? cJSON_GetObjectItemCaseSensitive(pMsg, "content") : NULL;
  if (!cJSON_IsString(pContent)) {
    const cJSON *pErrMsg = pErr ? cJSON_GetObjectItemCaseSensitive(pErr, "message") : NULL;
    excerpt(p, cJSON_IsString(pErrMsg) ? pErrMsg->valuestring : zBody, &ex);
    rc = llm_error(p, KS_EPARSE, "%s: the reply has no choices[0].message.content%s: '%s'", p->zShown,
                   cJSON_IsString(pErrMsg) ? " (error)" : "", ks_buf_cstr(&ex));
    goto done;
  }
  /* Everything the endpoint wrote is redacted here, once, before any caller
   * prints, journals or saves it (an echoed key in `model` or in the code). */
  pReply->zContent = redacted_dup(p, pContent->valuestring);
  const cJSON *pModel = cJSON_GetObjectItemCaseSensitive(pDoc, "model");
  pReply->zModel = redacted_dup(p, cJSON_IsString(pModel) ? pModel->valuestring : p->zModel);
  const cJSON *pFinish = cJSON_GetObjectItemCaseSensitive(pFirst, "finish_reason");
  if (cJSON_IsString(pFinish)) pReply->zFinishReason = redacted_dup(p, pFinish->valuestring);
  if (!pReply->zContent || !pReply->zModel) {
    rc = ks_error_set(KS_ENOMEM, "out of memory");
    goto done;
  }
  const cJSON *pUsage = cJSON_GetObjectItemCaseSensitive(pDoc, "usage");
  long nIn = pUsage ? json_long(pUsage, "prompt_tokens") : -1;
  long nOut = pUsage ? json_long(pUsage, "completion_tokens") : -1;
  long nTotal = pUsage ? json_long(pUsage, "total_tokens") : -1;
  if (nIn < 0 && nOut < 0 && nTotal < 0) {
    /* No usage reported: estimate so that the budget still holds. */
    pReply->bUsageEstimated = 1;
    nIn = (long)(nPromptBytes + 3) / 4;
    nOut = (long)(strlen(pReply->zContent) + 3) / 4;
  } else {
    if (nIn < 0) nIn = nTotal >= 0 && nOut >= 0 ? nTotal - nOut : 0;
    if (nOut < 0) nOut = nTotal >= 0 ? nTotal - nIn : 0;
    if (nOut < 0) nOut = 0;
  }
  pReply->nPromptTokens = nIn;
  pReply->nCompletionTokens = nOut;
done:
  cJSON_Delete(pDoc);
  ks_buf_free(&ex);
  return rc;
}

static int retryable_status(long iStatus) { return iStatus == 429 || iStatus == 408 || iStatus >= 500; }

int ks_llm_chat(ks_llm *p, const ks_llm_msg *aMsg, int nMsg, ks_llm_reply *pReply) {
  ks_llm_reply empty = KS_LLM_REPLY_INIT;
  *pReply = empty;
  p->eLastFail = KS_LLM_FAIL_NONE;
  if (p->nTokenBudget > 0 && p->nTokensUsed >= p->nTokenBudget) {
    p->eLastFail = KS_LLM_FAIL_BUDGET;
    return ks_error_set(KS_EUNAVAIL, "LLM token budget spent: %ld of %ld tokens used; no request made",
                        p->nTokensUsed, p->nTokenBudget);
  }
  char *zBody = NULL;
  int rc = build_request(p, aMsg, nMsg, &zBody);
  if (rc < 0) return rc;
  size_t nPromptBytes = 0;
  for (int i = 0; i < nMsg; i++) nPromptBytes += aMsg[i].zContent ? strlen(aMsg[i].zContent) : 0;

  char zCurlErr[CURL_ERROR_SIZE];
  ks_buf ex = KS_BUF_INIT;
  for (int iAttempt = 0;; iAttempt++) {
    http_result r = {KS_BUF_INIT, 0, -1.0, 0};
    double t0 = now_sec();
    CURLcode e = http_post(p, zBody, &r, zCurlErr);
    double rSec = now_sec() - t0;
    pReply->nAttempts = iAttempt + 1;
    pReply->iHttpStatus = (int)r.iStatus;
    int bRetry = 0;
    ks_buf_clear(&ex);
    if (e == CURLE_OK && r.iStatus == 200) {
      llm_debug(p, "POST %s attempt %d: HTTP 200, %zu bytes, %.2f s", p->zShown, iAttempt + 1, r.body.n, rSec);
      rc = parse_reply(p, ks_buf_cstr(&r.body), nPromptBytes, pReply);
      if (rc == KS_EPARSE) p->eLastFail = KS_LLM_FAIL_REPLY;
      if (rc == KS_OK) {
        long nAdd = pReply->nPromptTokens + pReply->nCompletionTokens; /* each <= 1e12 */
        p->nTokensUsed = p->nTokensUsed > LONG_MAX - nAdd ? LONG_MAX : p->nTokensUsed + nAdd;
        llm_debug(p, "tokens: %ld prompt + %ld completion%s; %ld used of %ld", pReply->nPromptTokens,
                  pReply->nCompletionTokens, pReply->bUsageEstimated ? " (estimated)" : "", p->nTokensUsed,
                  p->nTokenBudget);
      }
      ks_buf_free(&r.body);
      break;
    }
    if (e == CURLE_OK) {
      excerpt(p, ks_buf_cstr(&r.body), &ex);
      p->eLastFail = KS_LLM_FAIL_HTTP;
      bRetry = retryable_status(r.iStatus);
      rc = llm_error(p, KS_EUNAVAIL, "%s: HTTP %ld after %d attempt%s: '%s'", p->zShown, r.iStatus,
                     iAttempt + 1, iAttempt ? "s" : "", ks_buf_cstr(&ex));
    } else if (e == CURLE_OPERATION_TIMEDOUT) {
      p->eLastFail = KS_LLM_FAIL_TIMEOUT;
      bRetry = 1;
      rc = llm_error(p, KS_EUNAVAIL, "%s: no answer within %.1f s (attempt %d): %s", p->zShown,
                     rSec > p->rTimeoutS ? rSec : p->rTimeoutS, iAttempt + 1,
                     zCurlErr[0] ? zCurlErr : curl_easy_strerror(e));
    } else if (e == CURLE_COULDNT_CONNECT || e == CURLE_GOT_NOTHING || e == CURLE_RECV_ERROR ||
               e == CURLE_SEND_ERROR || e == CURLE_COULDNT_RESOLVE_HOST || e == CURLE_PARTIAL_FILE) {
      p->eLastFail = KS_LLM_FAIL_CONNECT;
      bRetry = e != CURLE_COULDNT_RESOLVE_HOST;
      rc = llm_error(p, KS_EUNAVAIL, "%s: %s (attempt %d)", p->zShown, zCurlErr[0] ? zCurlErr : curl_easy_strerror(e),
                     iAttempt + 1);
    } else if (r.bTooBig) {
      p->eLastFail = KS_LLM_FAIL_REPLY;
      rc = llm_error(p, KS_EPARSE, "%s: the reply is larger than %u bytes", p->zShown, KS_LLM_MAX_BODY);
    } else {
      p->eLastFail = KS_LLM_FAIL_CONNECT;
      rc = llm_error(p, KS_EUNAVAIL, "%s: %s", p->zShown, zCurlErr[0] ? zCurlErr : curl_easy_strerror(e));
    }
    ks_buf_free(&r.body);
    if (!bRetry || iAttempt >= p->nMaxRetries) {
      llm_debug(p, "giving up: %s", ks_error_msg());
      break;
    }
    double rWait = p->rBackoffS * pow(2.0, iAttempt);
    if (r.rRetryAfterS >= 0) rWait = r.rRetryAfterS;
    if (rWait > p->rRetryAfterCapS) rWait = p->rRetryAfterCapS;
    llm_debug(p, "POST %s attempt %d failed (%s, %.2f s); retry in %.2f s", p->zShown, iAttempt + 1,
              e == CURLE_OK ? "HTTP error" : curl_easy_strerror(e), rSec, rWait);
    sleep_sec(rWait);
  }
  ks_buf_free(&ex);
  free(zBody);
  if (rc < 0) {
    int nAttempts = pReply->nAttempts, iStatus = pReply->iHttpStatus;
    ks_llm_reply_free(pReply);
    pReply->nAttempts = nAttempts;
    pReply->iHttpStatus = iStatus;
  }
  return rc;
}
