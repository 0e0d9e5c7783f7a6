/* json.c — cJSON documents into a ks_buf: the one way the library prints a
 * command's --json output (kept out of buf.c, so the fuzz targets and the
 * drop-in that compile buf.c alone need no cJSON). */
#include "kernelskill/common.h"

#include <cjson/cJSON.h>
#include <stdlib.h>

int ks_buf_json(ks_buf *p, const struct cJSON *pDoc) {
  char *z = cJSON_Print(pDoc);
  if (!z) return ks_error_set(KS_ENOMEM, "out of memory");
  int rc = ks_buf_puts(p, z);
  if (rc == KS_OK) rc = ks_buf_puts(p, "\n");
  free(z);
  return rc;
}
