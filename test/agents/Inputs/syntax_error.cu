// syntax_error.cu — code clang cannot parse cannot be checked (exit 1, parse error).
#include <cuda_runtime.h>
extern "C" void entry(float *y) { launch_it(y) }
