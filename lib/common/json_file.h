/* json_file.h — a JSON string written straight to a FILE, for the pieces that
 * run without libkernelskill (ks-harness, its CUPTI profiler, the capture
 * injection library): header-only so that they link nothing of ours. */
#ifndef KS_COMMON_JSON_FILE_H
#define KS_COMMON_JSON_FILE_H

#include <stdio.h>

/* z as a quoted JSON string ("" for NULL): quotes and backslashes escaped,
 * control characters as \u00XX. */
static inline void ks_json_fput_str(FILE *f, const char *z) {
  fputc('"', f);
  for (; z && *z; z++) {
    unsigned char c = (unsigned char)*z;
    if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c < 0x20) fprintf(f, "\\u%04x", c);
    else fputc(c, f);
  }
  fputc('"', f);
}

#endif
