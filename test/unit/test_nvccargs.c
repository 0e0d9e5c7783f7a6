/* test_nvccargs.c — unit tests of lib/nvccargs: every spelling of nvcc's
 * grammar (long/short, "=" or separate values, glued -D/-I/-O values, comma
 * lists, bracketed -gencode codes), options files, NVCC_PREPEND/APPEND_FLAGS,
 * unknown options, and the classification (inputs, outputs, target archs,
 * dependency options) over real-world command lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "kernelskill/nvccargs.h"

/* Parse a space-separated command (no quoting needed in these tests). */
static ks_nvcc_cmd *parse_env(const char *zLine, const char *zPre, const char *zApp) {
  char **az = NULL;
  int n = 0;
  assert_int_equal(ks_nvcc_split_words(zLine, &az, &n), KS_OK);
  ks_nvcc_parse_opts o = KS_NVCC_PARSE_OPTS_INIT;
  o.bNoEnv = 1;
  o.zPrepend = zPre;
  o.zAppend = zApp;
  ks_nvcc_cmd *p = NULL;
  assert_int_equal(ks_nvcc_parse(n, az, &o, &p), KS_OK);
  ks_nvcc_free_words(az, n);
  return p;
}

static ks_nvcc_cmd *parse(const char *zLine) { return parse_env(zLine, NULL, NULL); }

/* The value of the first option with this long name, or NULL. */
static const char *value_of(const ks_nvcc_cmd *p, const char *zLong) {
  for (int i = 0; i < p->n; i++)
    if (p->a[i].eType == KS_NVCC_OPTION && strcmp(p->a[i].pOpt->zLong, zLong) == 0) return p->a[i].zValue;
  return NULL;
}

static int has_opt(const ks_nvcc_cmd *p, const char *zLong) {
  for (int i = 0; i < p->n; i++)
    if (p->a[i].eType == KS_NVCC_OPTION && strcmp(p->a[i].pOpt->zLong, zLong) == 0) return 1;
  return 0;
}

static void assert_targets(const ks_nvcc_cmd *p, const char *zWant) {
  char *z = ks_nvcc_targets_text(p);
  assert_string_equal(z, zWant);
  free(z);
}

static void test_output_spellings(void **state) {
  (void)state;
  const char *azLines[] = {"-c a.cu -o out.o", "-c a.cu -o=out.o", "-c a.cu --output-file out.o",
                           "-c a.cu --output-file=out.o", NULL};
  for (int i = 0; azLines[i]; i++) {
    ks_nvcc_cmd *p = parse(azLines[i]);
    assert_non_null(p->zOutput);
    assert_string_equal(p->zOutput, "out.o");
    assert_int_equal(p->nInputs, 1);
    assert_string_equal(p->a[p->aiInputs[0]].zInput, "a.cu");
    assert_true(p->a[p->aiInputs[0]].bCudaSource);
    assert_true(p->bCompile);
    assert_int_equal(p->nUnknown, 0);
    ks_nvcc_cmd_free(p);
  }
  /* nvcc refuses a glued -o: so do we (it is unknown, the input is not eaten). */
  ks_nvcc_cmd *p = parse("-c a.cu -oout.o");
  assert_null(p->zOutput);
  assert_int_equal(p->nUnknown, 1);
  ks_nvcc_cmd_free(p);
}

static void test_glued_values(void **state) {
  (void)state;
  ks_nvcc_cmd *p = parse("-DFOO=1 -UBAR -I/usr/include -L/lib -lcublas -O3 -t2 -c a.cu");
  assert_string_equal(value_of(p, "define-macro"), "FOO=1");
  assert_string_equal(value_of(p, "undefine-macro"), "BAR");
  assert_string_equal(value_of(p, "include-path"), "/usr/include");
  assert_string_equal(value_of(p, "library-path"), "/lib");
  assert_string_equal(value_of(p, "library"), "cublas");
  assert_string_equal(value_of(p, "optimize"), "3");
  assert_string_equal(value_of(p, "threads"), "2");
  assert_int_equal(p->nUnknown, 0);
  assert_int_equal(p->nInputs, 1);
  ks_nvcc_cmd_free(p);
  /* Exact short names win over glued ones: -lineinfo, -lib, -ldir, -Ofc. */
  p = parse("-lineinfo -lib -ldir /d -Ofc 1 a.cu");
  assert_true(has_opt(p, "generate-line-info"));
  assert_true(has_opt(p, "lib"));
  assert_string_equal(value_of(p, "libdevice-directory"), "/d");
  assert_string_equal(value_of(p, "Ofast-compile"), "1");
  assert_false(has_opt(p, "library"));
  ks_nvcc_cmd_free(p);
  /* -isystem takes no glued value in nvcc. */
  p = parse("-isystem/usr/include a.cu");
  assert_int_equal(p->nUnknown, 1);
  ks_nvcc_cmd_free(p);
}

static void test_separate_and_equals_values(void **state) {
  (void)state;
  ks_nvcc_cmd *p = parse("-isystem /x --system-include=/y -x cu -std c++17 --std=c++20 -ccbin=g++-12 "
                         "--compiler-bindir /usr/bin/gcc a.cpp");
  const char **az = NULL;
  int n = 0;
  assert_int_equal(ks_nvcc_values(p, "system-include", &az, &n), KS_OK);
  assert_int_equal(n, 2);
  assert_string_equal(az[0], "/x");
  assert_string_equal(az[1], "/y");
  free(az);
  assert_int_equal(ks_nvcc_values(p, "std", &az, &n), KS_OK);
  assert_int_equal(n, 2);
  assert_string_equal(az[1], "c++20");
  free(az);
  /* -x cu makes a .cpp input CUDA. */
  assert_int_equal(p->nInputs, 1);
  assert_true(p->a[p->aiInputs[0]].bCudaSource);
  ks_nvcc_cmd_free(p);
}

static void test_lists(void **state) {
  (void)state;
  char **az = NULL;
  int n = 0;
  assert_int_equal(ks_nvcc_split_list("-fPIC,-Wall,-O2", &az, &n), KS_OK);
  assert_int_equal(n, 3);
  assert_string_equal(az[2], "-O2");
  ks_nvcc_free_words(az, n);
  assert_int_equal(ks_nvcc_split_list("arch=compute_90,code=[sm_90,compute_90]", &az, &n), KS_OK);
  assert_int_equal(n, 2);
  assert_string_equal(az[1], "code=[sm_90,compute_90]");
  ks_nvcc_free_words(az, n);
  assert_int_equal(ks_nvcc_split_list("code=\"sm_80,compute_80\",x", &az, &n), KS_OK);
  assert_int_equal(n, 2);
  assert_string_equal(az[0], "code=\"sm_80,compute_80\"");
  ks_nvcc_free_words(az, n);
  /* -Xcompiler values keep their commas in the item; the list splits on use. */
  ks_nvcc_cmd *p = parse("-Xcompiler -fPIC,-Wall -Xcompiler=-O2 --compiler-options -g a.cu");
  const char **azV = NULL;
  int nV = 0;
  assert_int_equal(ks_nvcc_values(p, "compiler-options", &azV, &nV), KS_OK);
  assert_int_equal(nV, 3);
  assert_string_equal(azV[0], "-fPIC,-Wall");
  assert_string_equal(azV[1], "-O2");
  assert_string_equal(azV[2], "-g");
  free(azV);
  ks_nvcc_cmd_free(p);
}

static void test_targets(void **state) {
  (void)state;
  struct {
    const char *zLine, *zTargets;
  } aCases[] = {
      {"-arch=sm_90 a.cu", "sm_90,compute_90"},
      {"-arch sm_90 a.cu", "sm_90,compute_90"},
      {"--gpu-architecture=sm_90a a.cu", "sm_90a,compute_90a"},
      {"--gpu-architecture compute_80 a.cu", "compute_80"},
      {"-arch=compute_90 -code=sm_90,compute_90 a.cu", "sm_90,compute_90"},
      {"-arch=compute_80 --gpu-code=sm_86 a.cu", "sm_86"},
      {"-gencode=arch=compute_90,code=[sm_90,compute_90] a.cu", "sm_90,compute_90"},
      {"-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 a.cu", "sm_80,sm_90"},
      {"--generate-code=arch=compute_75,code=[compute_75,sm_75] a.cu", "compute_75,sm_75"},
      {"--generate-code 'arch=compute_86,code=\"sm_86,compute_86\"' a.cu", "sm_86,compute_86"},
      {"-gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=sm_90 a.cu", "sm_90"},
      {"-arch=native a.cu", "native"},
      {"-arch=all-major a.cu", "all-major"},
      {"-c a.cu", "(nvcc's default)"},
      {NULL, NULL}};
  for (int i = 0; aCases[i].zLine; i++) {
    ks_nvcc_cmd *p = parse(aCases[i].zLine);
    assert_targets(p, aCases[i].zTargets);
    ks_nvcc_cmd_free(p);
  }
  ks_nvcc_cmd *p = parse("-arch=native a.cu");
  assert_true(p->bArchSpecial);
  ks_nvcc_cmd_free(p);
  int bReal = -1;
  char *z = ks_nvcc_arch_normalize("compute_100f", &bReal);
  assert_string_equal(z, "100f");
  assert_int_equal(bReal, 0);
  free(z);
  assert_null(ks_nvcc_arch_normalize("all", NULL));
  assert_null(ks_nvcc_arch_normalize("sm_", NULL));
}

static void test_dependencies(void **state) {
  (void)state;
  ks_nvcc_cmd *p = parse("-MD -MT obj.o -MF obj.d -c a.cu -o obj.o");
  assert_true(p->bDepWithCompile);
  assert_false(p->bDepOnly);
  assert_string_equal(p->zDepFile, "obj.d");
  assert_string_equal(p->zDepTarget, "obj.o");
  ks_nvcc_cmd_free(p);
  p = parse("--generate-dependencies-with-compile --dependency-output=x.d -c a.cu");
  assert_true(p->bDepWithCompile);
  assert_string_equal(p->zDepFile, "x.d");
  ks_nvcc_cmd_free(p);
  p = parse("-M a.cu");
  assert_true(p->bDepOnly);
  ks_nvcc_cmd_free(p);
  p = parse("--generate-nonsystem-dependencies a.cu -o a.d");
  assert_true(p->bDepOnly);
  ks_nvcc_cmd_free(p);
  p = parse("-MMD a.cu");
  assert_true(p->bDepWithCompile);
  ks_nvcc_cmd_free(p);
}

static void test_unknown_and_problems(void **state) {
  (void)state;
  ks_nvcc_cmd *p = parse("-foo --bar=1 --keep=x -forward-unknown-to-host-compiler -c a.cu");
  assert_int_equal(p->nUnknown, 3);
  assert_true(p->bForwardUnknown);
  assert_int_equal(p->nInputs, 1);
  assert_null(p->zProblem);
  ks_nvcc_cmd_free(p);
  p = parse("-c a.cu -o");
  assert_non_null(p->zProblem);
  assert_non_null(strstr(p->zProblem, "needs a value"));
  ks_nvcc_cmd_free(p);
}

static void test_modes(void **state) {
  (void)state;
  ks_nvcc_cmd *p = parse("--version");
  assert_true(p->bInfoOnly);
  ks_nvcc_cmd_free(p);
  p = parse("-v --keep --keep-dir tmp -c CMakeCUDACompilerId.cu");
  assert_true(p->bVerbose);
  assert_true(p->bKeep);
  assert_string_equal(p->zKeepDir, "tmp");
  ks_nvcc_cmd_free(p);
  p = parse("--dryrun -c a.cu");
  assert_true(p->bDryrun);
  ks_nvcc_cmd_free(p);
  p = parse("-dc a.cu b.cu -o x");
  assert_true(p->bDeviceC);
  assert_int_equal(p->nInputs, 2);
  ks_nvcc_cmd_free(p);
  p = parse("a.o b.o -o app -lcudart");
  assert_int_equal(p->nInputs, 2);
  assert_false(p->a[p->aiInputs[0]].bCudaSource);
  ks_nvcc_cmd_free(p);
}

static void test_env_flags(void **state) {
  (void)state;
  ks_nvcc_cmd *p = parse_env("-c a.cu", "-DPRE=1 -arch=sm_90", "'-Xcompiler=-DX=a b' -lineinfo");
  assert_int_equal(p->a[0].eOrigin, KS_NVCC_FROM_PREPEND);
  assert_string_equal(p->a[0].zValue, "PRE=1");
  assert_int_equal(p->a[0].iArgv, -1);
  assert_targets(p, "sm_90,compute_90");
  const char **az = NULL;
  int n = 0;
  assert_int_equal(ks_nvcc_values(p, "compiler-options", &az, &n), KS_OK);
  assert_int_equal(n, 1);
  assert_string_equal(az[0], "-DX=a b");
  free(az);
  assert_int_equal(p->a[p->n - 1].eOrigin, KS_NVCC_FROM_APPEND);
  /* argv items keep their argv index */
  assert_int_equal(p->a[p->aiInputs[0]].iArgv, 1);
  ks_nvcc_cmd_free(p);
}

static void test_options_file(void **state) {
  (void)state;
  char aDir[] = "/tmp/ks-nvccargs-XXXXXX";
  assert_non_null(mkdtemp(aDir));
  char aF1[128], aF2[128], aF3[128], aLine[512];
  snprintf(aF1, sizeof aF1, "%s/one.opt", aDir);
  snprintf(aF2, sizeof aF2, "%s/two.opt", aDir);
  snprintf(aF3, sizeof aF3, "%s/three.opt", aDir);
  FILE *f = fopen(aF1, "w");
  fputs("-DFROM_FILE=1\n  -I \"/path with space\"\n-gencode arch=compute_90,code=sm_90\n", f);
  fclose(f);
  f = fopen(aF2, "w");
  fprintf(f, "-lineinfo --options-file %s\n", aF3);
  fclose(f);
  f = fopen(aF3, "w");
  fputs("-O2\n", f);
  fclose(f);
  snprintf(aLine, sizeof aLine, "-optf %s,%s -c a.cu --options-file=%s/missing.opt", aF1, aF2, aDir);
  ks_nvcc_cmd *p = parse(aLine);
  assert_string_equal(value_of(p, "define-macro"), "FROM_FILE=1");
  assert_string_equal(value_of(p, "include-path"), "/path with space");
  assert_string_equal(value_of(p, "optimize"), "2");
  assert_true(has_opt(p, "generate-line-info"));
  assert_targets(p, "sm_90");
  for (int i = 0; i < p->n; i++)
    if (p->a[i].eType == KS_NVCC_OPTION && !strcmp(p->a[i].pOpt->zLong, "define-macro"))
      assert_int_equal(p->a[i].eOrigin, KS_NVCC_FROM_OPTF);
  assert_non_null(p->zProblem);
  assert_non_null(strstr(p->zProblem, "missing.opt"));
  ks_nvcc_cmd_free(p);
  unlink(aF1);
  unlink(aF2);
  unlink(aF3);
  rmdir(aDir);
}

static void test_split_words_quotes(void **state) {
  (void)state;
  char **az = NULL;
  int n = 0;
  assert_int_equal(ks_nvcc_split_words("  a 'b c'  \"d \\\"e\\\"\" f\\ g ''", &az, &n), KS_OK);
  assert_int_equal(n, 5);
  assert_string_equal(az[0], "a");
  assert_string_equal(az[1], "b c");
  assert_string_equal(az[2], "d \"e\"");
  assert_string_equal(az[3], "f g");
  assert_string_equal(az[4], "");
  ks_nvcc_free_words(az, n);
  assert_int_equal(ks_nvcc_split_words(NULL, &az, &n), KS_OK);
  assert_int_equal(n, 0);
}

/* Real-world lines: CMake 3.2x Ninja, torch.utils.cpp_extension, llm.c. */
static void test_real_world(void **state) {
  (void)state;
  ks_nvcc_cmd *p = parse(
      "-forward-unknown-to-host-compiler -DKS_EX=1 -I/src/include -O3 -DNDEBUG -std=c++17 "
      "\"--generate-code=arch=compute_90,code=[compute_90,sm_90]\" -Xcompiler=-fPIC -MD -MT "
      "CMakeFiles/app.dir/src/k.cu.o -MF CMakeFiles/app.dir/src/k.cu.o.d -x cu -c /src/k.cu -o "
      "CMakeFiles/app.dir/src/k.cu.o");
  assert_targets(p, "compute_90,sm_90");
  assert_string_equal(p->zOutput, "CMakeFiles/app.dir/src/k.cu.o");
  assert_string_equal(p->zDepFile, "CMakeFiles/app.dir/src/k.cu.o.d");
  assert_int_equal(p->nInputs, 1);
  assert_string_equal(p->a[p->aiInputs[0]].zInput, "/src/k.cu");
  assert_int_equal(p->nUnknown, 0);
  ks_nvcc_cmd_free(p);

  p = parse("-I/torch/include -I/torch/include/torch/csrc/api/include -I/usr/local/cuda/include "
            "-I/usr/include/python3.11 -c /ext/kernel.cu -o /ext/build/kernel.o -D__CUDA_NO_HALF_OPERATORS__ "
            "-D__CUDA_NO_HALF_CONVERSIONS__ -D__CUDA_NO_BFLOAT16_CONVERSIONS__ -D__CUDA_NO_HALF2_OPERATORS__ "
            "--expt-relaxed-constexpr --compiler-options '-fPIC' -O3 --use_fast_math "
            "-DTORCH_API_INCLUDE_EXTENSION_H -DTORCH_EXTENSION_NAME=myext -D_GLIBCXX_USE_CXX11_ABI=1 "
            "-gencode=arch=compute_80,code=sm_80 -gencode=arch=compute_90,code=compute_90 "
            "-gencode=arch=compute_90,code=sm_90 -std=c++17");
  assert_targets(p, "sm_80,compute_90,sm_90");
  assert_string_equal(p->zOutput, "/ext/build/kernel.o");
  assert_true(has_opt(p, "expt-relaxed-constexpr"));
  assert_true(has_opt(p, "use_fast_math"));
  assert_string_equal(value_of(p, "compiler-options"), "-fPIC");
  assert_int_equal(p->nUnknown, 0);
  assert_int_equal(p->nInputs, 1);
  ks_nvcc_cmd_free(p);

  p = parse("-O3 -t=0 --use_fast_math -std=c++17 -DMULTI_GPU -DUSE_CUDNN "
            "-I/home/u/cudnn-frontend/include --threads=0 train_gpt2.cu -lcublas -lcublasLt -lnvidia-ml "
            "-lcudnn -o train_gpt2cu -arch=sm_90");
  assert_targets(p, "sm_90,compute_90");
  assert_string_equal(value_of(p, "threads"), "0");
  assert_int_equal(p->nInputs, 1);
  assert_string_equal(p->zOutput, "train_gpt2cu");
  assert_false(p->bCompile);
  assert_int_equal(p->nUnknown, 0);
  ks_nvcc_cmd_free(p);
}

static void test_table(void **state) {
  (void)state;
  const ks_nvcc_opt *p = ks_nvcc_opt_find("gencode");
  assert_non_null(p);
  assert_string_equal(p->zLong, "generate-code");
  assert_int_equal(p->eKind, KS_NVO_LIST);
  p = ks_nvcc_opt_find("dependency-output");
  assert_int_equal(p->eKind, KS_NVO_VALUE);
  assert_null(ks_nvcc_opt_find("no-such-option"));
  int n = 0;
  for (const ks_nvcc_opt *q = ks_nvcc_opt_table(); q->zLong; q++) n++;
  assert_true(n >= 140);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_output_spellings), cmocka_unit_test(test_glued_values),
      cmocka_unit_test(test_separate_and_equals_values), cmocka_unit_test(test_lists),
      cmocka_unit_test(test_targets), cmocka_unit_test(test_dependencies),
      cmocka_unit_test(test_unknown_and_problems), cmocka_unit_test(test_modes),
      cmocka_unit_test(test_env_flags), cmocka_unit_test(test_options_file),
      cmocka_unit_test(test_split_words_quotes), cmocka_unit_test(test_real_world),
      cmocka_unit_test(test_table),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
