// scale_op.h — the operation of scale_inc.cu, in a header next to it (lit
// input: the loop's candidates must still find it).
#pragma once
__device__ __forceinline__ float scale_op(float x, float a, float b) { return a * x + b; }
