// ops.h — the example pipeline's kernels, launched from host wrappers in
// stencil.cu and reduce.cu (two translation units).
#pragma once
void launch_transpose(const float *in, float *out, int rows, int cols);
void launch_scale_add(const float *x, float *y, float a, int n);
void launch_clamp_window(float *y, int start, int count, float lo, float hi);
void launch_row_sum(const float *m, float *out, int rows, int cols);
void launch_sigmoid(const float *x, float *y, int n);
