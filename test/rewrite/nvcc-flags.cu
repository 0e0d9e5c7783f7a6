// Rule nvcc-flags: flag skills recorded in the file's one `kernelskill-flags`
// line. Adds the line (above the first line of code), extends it, replaces a
// one-value flag, is idempotent, refuses unknown flags and a second flags line.
//
// RUN: %strip-checks %s %t.in.cu
// RUN: %kernelskill rewrite %t.in.cu --kernel scale --rule nvcc-flags --param "flags=-Xptxas -O3 --use_fast_math" -o %t.cu
// RUN: FileCheck %s --check-prefix=ADD --input-file=%t.cu
// RUN: not diff -u %t.in.cu %t.cu > %t.diff
// RUN: grep -c '^[-+]' %t.diff | FileCheck %s --check-prefix=COUNT
// RUN: %nvcc -c -arch=sm_90 %t.cu -o %t.o
//
// Extend: a new flag is appended, a one-value flag replaces the old value.
// RUN: %kernelskill rewrite %t.cu --kernel scale --rule nvcc-flags --param "flags=-maxrregcount=64 -Xptxas=-O2 -arch sm_90" -o %t2.cu
// RUN: FileCheck %s --check-prefix=EXT --input-file=%t2.cu
// RUN: %nvcc -c -arch=sm_90 %t2.cu -o %t2.o
//
// Idempotence: flags already there (any spelling) change nothing.
// RUN: %kernelskill rewrite %t2.cu --kernel scale --rule nvcc-flags --param "flags=-use_fast_math -maxrregcount 64" -o %t3.cu 2>&1 | FileCheck %s --check-prefix=AGAIN
// RUN: cmp %t2.cu %t3.cu
//
// Negative: an unknown flag, a bad value, two flags lines: exit 1, file untouched.
// RUN: cp %t.in.cu %t.neg.cu
// RUN: %python -c "import subprocess,sys; sys.exit(subprocess.call(sys.argv[1:]) != 1)" %kernelskill rewrite %t.neg.cu --kernel scale --rule nvcc-flags --param flags=-G -o %t.neg.cu
// RUN: not %kernelskill rewrite %t.neg.cu --kernel scale --rule nvcc-flags --param flags=-G -o %t.neg.cu 2>&1 | FileCheck %s --check-prefix=NEG
// RUN: not %kernelskill rewrite %t.neg.cu --kernel scale --rule nvcc-flags --param flags=-maxrregcount=7 -o %t.neg.cu 2>&1 | FileCheck %s --check-prefix=NEG2
// RUN: cmp %t.in.cu %t.neg.cu
// RUN: cp %S/Inputs/nvcc-flags-two-lines.cu %t.two.cu
// RUN: not %kernelskill rewrite %t.two.cu --kernel k --rule nvcc-flags --param flags=-O3 -o %t.two.cu 2>&1 | FileCheck %s --check-prefix=TWO
// RUN: cmp %S/Inputs/nvcc-flags-two-lines.cu %t.two.cu

// ADD: // Negative: an unknown flag, a bad value, two flags lines
// ADD: // kernelskill: rule:nvcc-flags (rule nvcc-flags) nvcc flags -Xptxas -O3, --use_fast_math
// ADD-NEXT: // kernelskill-flags: -Xptxas -O3 --use_fast_math
// ADD-NEXT: #include <cuda_runtime.h>
// COUNT: {{^}}4{{$}}
// EXT: // kernelskill: rule:nvcc-flags (rule nvcc-flags) nvcc flags -maxrregcount=64, -Xptxas -O2 (was -Xptxas -O3), -arch=sm_90
// EXT-NEXT: // kernelskill-flags: -Xptxas -O2 --use_fast_math -maxrregcount=64 -arch=sm_90
// AGAIN: already applied: rule nvcc-flags, kernel scale: the kernelskill-flags line already has
// NEG: flag '-G': not a known flag skill
// NEG2: flag '-maxrregcount=7': -maxrregcount wants a number from 16 to 255
// TWO: two.cu:5: the file has 2 '// kernelskill-flags:' lines; at most one is allowed

#include <cuda_runtime.h>

// A string holding the marker is not a flags line.
static const char *zNote = "// kernelskill-flags: -G";

__global__ void scale(float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}
