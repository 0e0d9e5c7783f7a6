// kernels.h — the example's host entry points (each launches one kernel).
#pragma once
extern "C" void transpose_forward(const float *in, float *out, int rows, int cols);
extern "C" void vadd_forward(const float *a, const float *b, float *c, int n);
