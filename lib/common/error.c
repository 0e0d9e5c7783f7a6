/* error.c — the thread's last error message and the error-code vocabulary. */
#include "kernelskill/common.h"

#include <stdio.h>
#include <string.h>

static _Thread_local char g_zMsg[2048];

/* Formatted into a scratch buffer first: an argument may be ks_error_msg()
 * itself (a message that wraps the previous one), which vsnprintf must not
 * read while it writes the same bytes. */
int ks_error_set(int rc, const char *zFmt, ...) {
  static _Thread_local char zNew[sizeof g_zMsg];
  va_list ap;
  va_start(ap, zFmt);
  vsnprintf(zNew, sizeof zNew, zFmt, ap);
  va_end(ap);
  memcpy(g_zMsg, zNew, sizeof g_zMsg);
  return rc;
}

const char *ks_error_msg(void) { return g_zMsg; }

void ks_error_clear(void) { g_zMsg[0] = 0; }

const char *ks_error_name(int rc) {
  switch (rc) {
  case KS_OK: return "ok";
  case KS_ENOMEM: return "out of memory";
  case KS_EIO: return "i/o error";
  case KS_EINVAL: return "invalid input";
  case KS_ENOTFOUND: return "not found";
  case KS_EPARSE: return "parse error";
  case KS_EPRECOND: return "precondition failed";
  case KS_ENOCHANGE: return "nothing to change";
  case KS_EUNAVAIL: return "unavailable";
  case KS_EUSAGE: return "usage error";
  default: return "internal error";
  }
}

int ks_error_exit_code(int rc) {
  switch (rc) {
  case KS_OK:
  case KS_ENOCHANGE:
    return KS_EXIT_OK;
  case KS_EINVAL:
  case KS_ENOTFOUND:
  case KS_EPARSE:
  case KS_EPRECOND:
    return KS_EXIT_INPUT;
  default:
    return KS_EXIT_ENV;
  }
}
