/* report.h — KS_MODE=report for kernelskill-nvcc: the planner's static advice
 * per kernel, as warnings in nvcc's diagnostic format. */
#ifndef KS_DRIVER_NVCC_REPORT_H
#define KS_DRIVER_NVCC_REPORT_H

#include "kernelskill/nvccargs.h"

/* Print advice for every CUDA input of the command to stderr. Loads
 * libkernelskill (and libclang) only now, so plain compiles never pay for it. */
int ks_nvcc_report(const ks_nvcc_cmd *pCmd);

#endif
