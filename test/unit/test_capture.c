/* test_capture.c — program mode's pure parts: type spellings, splitting a
 * demangled kernel name, intent inference from before/after bytes, the
 * replay entry without known types (cudaLaunchKernel form), and stripping a
 * task source back to the program's file byte for byte. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernelskill/capture.h"

static void test_types(void **state) {
  (void)state;
  static const struct {
    const char *z;
    ks_ptype_kind e;
    ks_dtype t;
    int nLanes, bConst;
  } a[] = {
      {"float const*", KS_PT_POINTER, KS_DT_F32, 1, 1},   {"const float *", KS_PT_POINTER, KS_DT_F32, 1, 1},
      {"float *__restrict__", KS_PT_POINTER, KS_DT_F32, 1, 0}, {"__half*", KS_PT_POINTER, KS_DT_F16, 1, 0},
      {"__nv_bfloat16 const*", KS_PT_POINTER, KS_DT_BF16, 1, 1}, {"long long*", KS_PT_POINTER, KS_DT_I64, 1, 0},
      {"unsigned char*", KS_PT_POINTER, KS_DT_U8, 1, 0},   {"float4 const*", KS_PT_POINTER, KS_DT_F32, 4, 1},
      {"MyStruct*", KS_PT_POINTER, KS_DT_U8, 1, 0},        {"int", KS_PT_SCALAR, KS_DT_I32, 1, 0},
      {"float", KS_PT_SCALAR, KS_DT_F32, 1, 0},            {"double", KS_PT_SCALAR, KS_DT_F64, 1, 0},
      {"long", KS_PT_SCALAR, KS_DT_I64, 1, 0},             {"std::int64_t", KS_PT_SCALAR, KS_DT_I64, 1, 0},
  };
  for (size_t i = 0; i < sizeof a / sizeof a[0]; i++) {
    ks_ptype t;
    ks_capture_type(a[i].z, &t);
    assert_int_equal(t.eKind, a[i].e);
    assert_int_equal(t.eType, a[i].t);
    assert_int_equal(t.nLanes, a[i].nLanes);
    if (t.eKind == KS_PT_POINTER) assert_int_equal(t.bConst, a[i].bConst);
  }
  /* Passed as bytes: unsigned and small scalars, structs, references, pointers to pointers. */
  static const char *const azOpaque[] = {"unsigned int", "bool", "short", "__half", "P", "float**", "float&", "int[4]"};
  for (size_t i = 0; i < sizeof azOpaque / sizeof azOpaque[0]; i++) {
    ks_ptype t;
    ks_capture_type(azOpaque[i], &t);
    assert_int_equal(t.eKind, KS_PT_UNKNOWN);
  }
}

static void split_ok(const char *zDem, const char *zCallee, int nParam, const char *const *azParam) {
  char *zC = NULL, **az = NULL;
  int n = -2;
  assert_int_equal(ks_capture_split_name(zDem, &zC, &az, &n), KS_OK);
  assert_string_equal(zC, zCallee);
  assert_int_equal(n, nParam);
  for (int i = 0; i < n; i++) assert_string_equal(az[i], azParam[i]);
  for (int i = 0; i < n; i++) free(az[i]);
  free(az);
  free(zC);
}

static void test_split(void **state) {
  (void)state;
  split_ok("scale_add(float const*, float*, float, int)", "scale_add", 4,
           (const char *const[]){"float const*", "float*", "float", "int"});
  split_ok("void tscale<float>(float*, float const*, float, int)", "tscale<float>", 4,
           (const char *const[]){"float*", "float const*", "float", "int"});
  split_ok("void ns::k<std::pair<int, float>, 4>(ns::S<int, 2>, int)", "ns::k<std::pair<int, float>, 4>", 2,
           (const char *const[]){"ns::S<int, 2>", "int"});
  split_ok("(anonymous namespace)::hidden((anonymous namespace)::P, float*)", "hidden", 2,
           (const char *const[]){"P", "float*"});
  split_ok("noargs()", "noargs", 0, NULL);
  split_ok("k_c", "k_c", -1, NULL);
}

static void test_intent(void **state) {
  (void)state;
  float b[4] = {1, 2, 3, 4}, a[4] = {1, 2, 3, 4};
  size_t n = 99;
  assert_int_equal(ks_capture_infer_intent(b, a, sizeof b, 4, &n), KS_INTENT_IN);
  assert_int_equal(n, 0);
  a[2] = 7;
  assert_int_equal(ks_capture_infer_intent(b, a, sizeof b, 4, &n), KS_INTENT_INOUT);
  assert_int_equal(n, 1);
  a[0] = 5, a[1] = 6, a[3] = 8;
  assert_int_equal(ks_capture_infer_intent(b, a, sizeof b, 4, &n), KS_INTENT_OUT);
  assert_int_equal(n, 4);
  /* An element written with the value it had counts as unchanged: inout, the safe side. */
  a[3] = 4;
  assert_int_equal(ks_capture_infer_intent(b, a, sizeof b, 4, &n), KS_INTENT_INOUT);
  /* A tail shorter than an element is one more element. */
  unsigned char x[5] = {1, 1, 1, 1, 1}, y[5] = {2, 2, 2, 2, 1};
  assert_int_equal(ks_capture_infer_intent(x, y, 5, 4, &n), KS_INTENT_INOUT);
  assert_int_equal(n, 1);
  y[4] = 9;
  assert_int_equal(ks_capture_infer_intent(x, y, 5, 4, &n), KS_INTENT_OUT);
}

static void test_replay_untyped(void **state) {
  (void)state;
  /* An extern "C" kernel whose source was not found: no types, so the entry
   * goes through cudaLaunchKernel with the parameters' captured bytes. */
  unsigned char aPtr[8] = {0x10, 0, 0, 0, 0, 0x7f, 0, 0}, aN[4] = {64, 0, 0, 0};
  ks_capture_param ap[2] = {{0, 8, aPtr, 0, 16}, {8, 4, aN, -1, 0}};
  ks_capture_alloc al = {0x7f0000000000ull, 256, "b", "a"};
  ks_capture_launch l = {0};
  l.zName = l.zMangled = "k_c";
  l.zStream = "0x1";
  l.aGrid[0] = 2, l.aGrid[1] = l.aGrid[2] = 1;
  l.aBlock[0] = 128, l.aBlock[1] = l.aBlock[2] = 1;
  l.nSmem = 64 * 1024;
  l.nParam = 2;
  l.aParam = ap;
  l.nAlloc = 1;
  l.aAlloc = &al;
  ks_ptype at[2];
  memset(at, 0, sizeof at);
  ks_buf b = KS_BUF_INIT;
  assert_int_equal(ks_capture_replay_source(&l, at, NULL, "k_c", "ks_replay_k_c", &b), KS_OK);
  const char *z = ks_buf_cstr(&b);
  assert_non_null(strstr(z, "extern \"C\" void ks_replay_k_c(unsigned char *ks_t0) {"));
  assert_non_null(strstr(z, "void *ks_p0 = (void *)((char *)ks_t0 + 16);"));
  assert_non_null(strstr(z, "static const unsigned char ks_b1[4] = {64, 0, 0, 0};"));
  assert_non_null(strstr(z, "void *ks_args[] = {&ks_p0, (void *)ks_b1};"));
  assert_non_null(strstr(z, "cudaFuncSetAttribute(ks_fn, cudaFuncAttributeMaxDynamicSharedMemorySize, 65536);"));
  assert_non_null(strstr(z, "cudaLaunchKernel(ks_fn, dim3(2, 1, 1), dim3(128, 1, 1), ks_args, 65536, 0);"));
  ks_buf_free(&b);
}

static void test_strip(void **state) {
  (void)state;
  const char *zOrig = "// kernelskill-flags: -O3\n__global__ void k(float *y) { y[0] = 1; }\n";
  char *zCopy = ks_mprintf("// kernelskill-flags: -I/src -O3\n// copied by kernelskill capture from /src/k.cu\n%s\n"
                           KS_CAPTURE_REPLAY_MARK " 0 of k(float*) ----\nextern \"C\" void ks_replay_k(float *t) {}\n",
                           zOrig);
  char *zOut = NULL;
  /* Unchanged: the original bytes exactly (its own flags line stays the only one). */
  assert_int_equal(ks_capture_strip_source(zCopy, "/src", &zOut), KS_OK);
  assert_string_equal(zOut, zOrig);
  free(zOut);
  free(zCopy);
  /* The optimizer's flags are kept (less the capture's -I). */
  zCopy = ks_mprintf("// kernelskill-flags: -I/src --use_fast_math\n// copied by kernelskill capture from /src/k.cu\n"
                     "int x;\n\n" KS_CAPTURE_REPLAY_MARK " 0 of k ----\n");
  assert_int_equal(ks_capture_strip_source(zCopy, "/src", &zOut), KS_OK);
  assert_string_equal(zOut, "// kernelskill-flags: --use_fast_math\nint x;\n");
  free(zOut);
  free(zCopy);
  /* Not a capture's source: refused. */
  assert_int_equal(ks_capture_strip_source("int x;\n", "/src", &zOut), KS_EINVAL);
  assert_int_equal(ks_capture_strip_source("// kernelskill-flags: -I/src\nint x;\n\n" KS_CAPTURE_REPLAY_MARK " 0 ----\n",
                                           "/src", &zOut),
                   KS_EINVAL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_types),          cmocka_unit_test(test_split), cmocka_unit_test(test_intent),
      cmocka_unit_test(test_replay_untyped), cmocka_unit_test(test_strip),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
