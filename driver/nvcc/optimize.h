/* optimize.h — KS_MODE=optimize for kernelskill-nvcc: before the apply step,
 * run the agent loop (`kernelskill optimize TASK --commit`) for each .cu
 * input that has a task file next to it and no fresh store entry, so that
 * the apply step compiles the verified result. docs/nvcc.md. */
#ifndef KS_DRIVER_NVCC_OPTIMIZE_H
#define KS_DRIVER_NVCC_OPTIMIZE_H

#include "kernelskill/nvccargs.h"

/* Never fails the build: whatever goes wrong is a warning (or a note) on
 * stderr, and the input then compiles as the apply step finds it. Returns
 * the number of inputs the loop stored a verified version for. */
int ks_nvcc_optimize(const ks_nvcc_cmd *pCmd, int bQuiet);

#include <stdarg.h>

/* "kernelskill-nvcc: KIND: ..." and a newline on stderr (kernelskill_nvcc.c):
 * the one way the drop-in's warnings and notes are printed. */
void ks_nvcc_vsay(const char *zKind, const char *zFmt, va_list ap);
/* "kernelskill-nvcc: warning: ..." on stderr. */
void ks_nvcc_warn(const char *zFmt, ...) __attribute__((format(printf, 1, 2)));

#endif
