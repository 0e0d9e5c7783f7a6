// A syntax error in one kernel: clang's diagnostic with file:line:col, exit 1,
// and the kernels that parsed are still reported.
// RUN: %expect-exit 1 %kernelskill features %s --json > %t.json 2> %t.err
// RUN: FileCheck --check-prefix=ERR %s < %t.err
// RUN: %python %S/Inputs/fsum.py < %t.json | FileCheck %s

__global__ void good(float *p) { p[threadIdx.x] = 1.f; }

__global__ void bad(float *p) {
  p[threadIdx.x] = undeclared_thing + ;
}

__global__ void also_good(const float *x, float *y) { y[threadIdx.x] = x[threadIdx.x]; }

// ERR: syntax_error.cu:10:{{[0-9]+}}: error: use of undeclared identifier 'undeclared_thing'
// ERR: kernelskill: error: {{.*}}syntax_error.cu: {{[0-9]+}} errors in the source; kernels that parsed are reported
// CHECK: parse side=host errors={{[1-9]}}
// CHECK: diag error line=10
// CHECK: kernel good
// CHECK: kernel bad
// CHECK: kernel also_good
// CHECK: pointwise=true
