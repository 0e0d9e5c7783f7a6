/* test_rewrite_engine.c — unit tests of the rewrite engine: edit splicing,
 * overlap refusal, provenance notes (indentation, merging, placement above
 * multi-line edits), idempotence plumbing, parameter checks and the unified
 * diff. Test rules are defined here and applied with ks_rewrite_apply_rule. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernelskill/rewrite.h"

static const char zSrc[] =
    "// file head\n"
    "__global__ void k(float *x, int n) {\n"
    "  int i = threadIdx.x;\n"
    "  if (i < n) x[i] = 2.0f * x[i];\n"
    "}\n";

static ks_tu *g_pTu;
static char g_zPath[256];

static int setup(void **state) {
  (void)state;
  snprintf(g_zPath, sizeof g_zPath, "/tmp/ks_test_rewrite_%ld.cu", (long)getpid());
  if (ks_file_write_atomic(g_zPath, zSrc, strlen(zSrc)) < 0) return -1;
  ks_parse_opts po = KS_PARSE_OPTS_INIT;
  return ks_tu_parse(g_zPath, &po, &g_pTu) < 0 ? -1 : 0;
}

static int teardown(void **state) {
  (void)state;
  ks_tu_free(g_pTu);
  unlink(g_zPath);
  return 0;
}

static unsigned off(const char *zNeedle) {
  const char *z = strstr(zSrc, zNeedle);
  assert_non_null(z);
  return (unsigned)(z - zSrc);
}

static int run(const ks_rule *pRule, const char *const *azParams, int nParams, char **pzOut) {
  ks_rewrite_opts o = KS_REWRITE_OPTS_INIT;
  o.zKernel = "k";
  o.azParams = azParams;
  o.nParams = nParams;
  o.zSkill = "test.skill";
  size_t n = 0;
  int rc = ks_rewrite_apply_rule(g_pTu, pRule, &o, pzOut, &n);
  if (rc == KS_OK) assert_int_equal(n, strlen(*pzOut));
  return rc;
}

/* Two replacements, one insertion, a note: all spliced, rest untouched. */
static int xEdits(ks_rewrite *p) {
  int rc;
  if ((rc = ks_rewrite_replace(p, off("float *x"), off("float *x") + 5, "const float")) < 0) return rc;
  if ((rc = ks_rewrite_replace(p, off("2.0f"), off("2.0f") + 4, "3.0f")) < 0) return rc;
  if ((rc = ks_rewrite_replace(p, off("  int i"), off("  int i"), "  // inserted\n")) < 0) return rc;
  return ks_rewrite_note(p, off("if (i"), "tripled");
}
static const ks_rule rEdits = {"t-edits", "test", 0, xEdits};

static void test_edits(void **state) {
  (void)state;
  char *z = NULL;
  assert_int_equal(run(&rEdits, 0, 0, &z), KS_OK);
  assert_string_equal(z, "// file head\n"
                         "__global__ void k(const float *x, int n) {\n"
                         "  // inserted\n"
                         "  int i = threadIdx.x;\n"
                         "  // kernelskill: test.skill (rule t-edits) tripled\n"
                         "  if (i < n) x[i] = 3.0f * x[i];\n"
                         "}\n");
  free(z);
}

static int xOverlap(ks_rewrite *p) {
  int rc = ks_rewrite_replace(p, off("int i"), off("int i") + 5, "long i");
  assert_int_equal(rc, KS_OK);
  rc = ks_rewrite_replace(p, off("int i") + 2, off("int i") + 8, "zz");
  assert_int_equal(rc, KS_EINVAL);
  assert_non_null(strstr(ks_error_msg(), "overlaps"));
  /* An insertion strictly inside a replaced range overlaps too. */
  assert_int_equal(ks_rewrite_replace(p, off("int i") + 1, off("int i") + 1, "q"), KS_EINVAL);
  /* Insertions at either end of it do not. */
  assert_int_equal(ks_rewrite_replace(p, off("int i"), off("int i"), "/*a*/"), KS_OK);
  assert_int_equal(ks_rewrite_replace(p, off("int i") + 5, off("int i") + 5, "/*b*/"), KS_OK);
  /* Beyond the file. */
  assert_int_equal(ks_rewrite_replace(p, 0, 100000, "x"), KS_EINVAL);
  return rc;
}
static const ks_rule rOverlap = {"t-overlap", "test", 0, xOverlap};

static void test_overlap(void **state) {
  (void)state;
  char *z = NULL;
  assert_int_equal(run(&rOverlap, 0, 0, &z), KS_EINVAL);
  assert_null(z);
}

static int xInsOrder(ks_rewrite *p) {
  unsigned i = off("int i");
  int rc;
  if ((rc = ks_rewrite_replace(p, i, i + 3, "long")) < 0) return rc;
  if ((rc = ks_rewrite_replace(p, i, i, "/*a*/")) < 0) return rc;
  if ((rc = ks_rewrite_replace(p, i + 3, i + 3, "/*b*/")) < 0) return rc;
  return ks_rewrite_replace(p, i, i, "/*c*/");
}
static const ks_rule rInsOrder = {"t-order", "test", 0, xInsOrder};

static void test_insert_order(void **state) {
  (void)state;
  char *z = NULL;
  assert_int_equal(run(&rInsOrder, 0, 0, &z), KS_OK);
  assert_non_null(strstr(z, "  /*a*//*c*/long/*b*/ i = threadIdx.x;\n"));
  free(z);
}

/* Several notes on one line merge; duplicates drop; a note whose line starts
 * inside a multi-line replacement goes above that replacement. */
static int xNotes(ks_rewrite *p) {
  int rc;
  unsigned iIf = off("  if (i");
  unsigned iEnd = off("}\n");
  if ((rc = ks_rewrite_replace(p, iIf, iEnd, "  if (i < n) {\n    x[i] *= 2.0f;\n  }\n")) < 0) return rc;
  if ((rc = ks_rewrite_note(p, iIf + 4, "first")) < 0) return rc;
  if ((rc = ks_rewrite_note(p, iIf + 2, "second")) < 0) return rc;
  if ((rc = ks_rewrite_note(p, iIf, "first")) < 0) return rc;
  if ((rc = ks_rewrite_note(p, off("int i"), "on the decl")) < 0) return rc;
  return ks_rewrite_note(p, off("__global__") + 3, "on the head");
}
static const ks_rule rNotes = {"t-notes", "test", 0, xNotes};

static void test_notes(void **state) {
  (void)state;
  char *z = NULL;
  assert_int_equal(run(&rNotes, 0, 0, &z), KS_OK);
  assert_string_equal(z, "// file head\n"
                         "// kernelskill: test.skill (rule t-notes) on the head\n"
                         "__global__ void k(float *x, int n) {\n"
                         "  // kernelskill: test.skill (rule t-notes) on the decl\n"
                         "  int i = threadIdx.x;\n"
                         "  // kernelskill: test.skill (rule t-notes) first; second\n"
                         "  if (i < n) {\n"
                         "    x[i] *= 2.0f;\n"
                         "  }\n"
                         "}\n");
  free(z);
}

/* Idempotence plumbing: a rule that looks for its own note. */
static int xIdem(ks_rewrite *p) {
  size_t n;
  ks_rewrite_source(p, &n);
  if (ks_rewrite_has_note(p, 0, (unsigned)n, NULL)) return ks_rewrite_already(p, "note present");
  return ks_rewrite_note(p, off("int i"), "marked") < 0 ? KS_ERROR
                                                         : ks_rewrite_replace(p, off("int i"), off("int i"), "");
}
static const ks_rule rIdem = {"t-idem", "test", 0, xIdem};

static void test_idempotence(void **state) {
  (void)state;
  char *z = NULL;
  /* The empty insertion alone changes nothing but the note is added. */
  assert_int_equal(run(&rIdem, 0, 0, &z), KS_OK);
  assert_non_null(strstr(z, "(rule t-idem) marked"));
  /* Parse the result and apply again: already applied. */
  ks_tu *pTu2 = NULL;
  ks_parse_opts po = KS_PARSE_OPTS_INIT;
  po.zContents = z;
  po.nContents = strlen(z);
  assert_int_equal(ks_tu_parse(g_zPath, &po, &pTu2), KS_OK);
  ks_rewrite_opts o = KS_REWRITE_OPTS_INIT;
  o.zKernel = "k";
  char *z2 = NULL;
  assert_int_equal(ks_rewrite_apply_rule(pTu2, &rIdem, &o, &z2, NULL), KS_ENOCHANGE);
  assert_null(z2);
  assert_non_null(strstr(ks_error_msg(), "note present"));
  ks_tu_free(pTu2);
  free(z);
}

static int xNothing(ks_rewrite *p) {
  (void)p;
  return KS_OK;
}
static const ks_rule rNothing = {"t-nothing", "test", 0, xNothing};

static int xRefuse(ks_rewrite *p) { return ks_rewrite_refuse(p, "because %d", 42); }
static const ks_rule rRefuse = {"t-refuse", "test", 0, xRefuse};

static const char *const azP[] = {"factor", 0};
static int xParam(ks_rewrite *p) {
  const char *z = ks_rewrite_param(p, "factor", "1");
  return ks_rewrite_replace(p, off("2.0f"), off("2.0f") + 1, z);
}
static const ks_rule rParam = {"t-param", "test", azP, xParam};

static void test_refusals_and_params(void **state) {
  (void)state;
  char *z = NULL;
  assert_int_equal(run(&rNothing, 0, 0, &z), KS_ENOCHANGE);
  assert_int_equal(run(&rRefuse, 0, 0, &z), KS_EPRECOND);
  assert_string_equal(ks_error_msg(), "rule t-refuse, kernel k: because 42");
  const char *azBad[] = {"nofactor=2"};
  assert_int_equal(run(&rParam, azBad, 1, &z), KS_EUSAGE);
  assert_non_null(strstr(ks_error_msg(), "accepted: factor"));
  const char *azNoEq[] = {"factor"};
  assert_int_equal(run(&rParam, azNoEq, 1, &z), KS_EUSAGE);
  const char *azTwo[] = {"factor=7", "factor=9"};
  assert_int_equal(run(&rParam, azTwo, 2, &z), KS_OK);
  assert_non_null(strstr(z, "9.0f * x[i]")); /* the last one wins */
  free(z);
  /* Unknown kernel. */
  ks_rewrite_opts o = KS_REWRITE_OPTS_INIT;
  o.zKernel = "nope";
  assert_int_equal(ks_rewrite_apply_rule(g_pTu, &rParam, &o, &z, NULL), KS_ENOTFOUND);
  /* Unknown rule id through the table. */
  o.zKernel = "k";
  o.zRule = "no-such-rule";
  assert_int_equal(ks_rewrite_apply(g_pTu, &o, &z, NULL), KS_ENOTFOUND);
}

static void test_note_text(void **state) {
  (void)state;
  (void)state;
  /* Round and default skill naming through a rule that inserts a note only. */
  char *z = NULL;
  ks_rewrite_opts o = KS_REWRITE_OPTS_INIT;
  o.zKernel = "k";
  o.iRound = 3;
  assert_int_equal(ks_rewrite_apply_rule(g_pTu, &rEdits, &o, &z, NULL), KS_OK);
  assert_non_null(strstr(z, "  // kernelskill: rule:t-edits (rule t-edits, round 3) tripled\n"));
  free(z);
}

static void test_diff(void **state) {
  (void)state;
  ks_buf b = KS_BUF_INIT;
  const char *zA = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n";
  const char *zB = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\nsixteen\n";
  assert_int_equal(ks_rewrite_diff("f.cu", zA, strlen(zA), zB, strlen(zB), &b), KS_OK);
  assert_string_equal(b.z, "--- a/f.cu\n+++ b/f.cu\n"
                           "@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"
                           "@@ -13,3 +13,4 @@\n 13\n 14\n 15\n+sixteen\n");
  ks_buf_clear(&b);
  /* Identical: empty. */
  assert_int_equal(ks_rewrite_diff("f.cu", zA, strlen(zA), zA, strlen(zA), &b), KS_OK);
  assert_int_equal(b.n, 0);
  /* Close changes share one hunk; missing final newline is marked. */
  const char *zC = "a\nb\nc\n";
  const char *zD = "A\nb\nC";
  ks_buf_clear(&b);
  assert_int_equal(ks_rewrite_diff("/abs/f.cu", zC, strlen(zC), zD, strlen(zD), &b), KS_OK);
  assert_string_equal(b.z, "--- /abs/f.cu\n+++ /abs/f.cu\n@@ -1,3 +1,3 @@\n-a\n+A\n b\n-c\n+C\n"
                           "\\ No newline at end of file\n");
  /* Empty old text: everything inserted. */
  ks_buf_clear(&b);
  assert_int_equal(ks_rewrite_diff("f.cu", "", 0, "x\ny\n", 4, &b), KS_OK);
  assert_string_equal(b.z, "--- a/f.cu\n+++ b/f.cu\n@@ -0,0 +1,2 @@\n+x\n+y\n");
  ks_buf_free(&b);
}

/* The diff is minimal: a random-ish pair checked by applying the hunks back. */
static void test_diff_roundtrip(void **state) {
  (void)state;
  char zA[4096] = "", zB[4096] = "";
  unsigned s = 12345;
  for (int i = 0; i < 200; i++) {
    s = s * 1103515245u + 12345u;
    char zLine[32];
    snprintf(zLine, sizeof zLine, "l%u\n", (s >> 16) % 7);
    strcat(zA, zLine);
    if ((s >> 8) % 5 != 0) strcat(zB, zLine);
    if ((s >> 4) % 9 == 0) strcat(zB, "new\n");
  }
  ks_buf b = KS_BUF_INIT;
  assert_int_equal(ks_rewrite_diff("f", zA, strlen(zA), zB, strlen(zB), &b), KS_OK);
  /* Rebuild B from A and the hunks. */
  ks_buf out = KS_BUF_INIT;
  const char *pA = zA;
  int iLineA = 1;
  const char *z = strstr(b.z, "@@");
  while (z) {
    int iOld, nOld = 1, iNew, nNew = 1;
    if (sscanf(z, "@@ -%d,%d +%d,%d @@", &iOld, &nOld, &iNew, &nNew) < 4) {
      sscanf(z, "@@ -%d", &iOld);
    }
    int iTarget = nOld == 0 ? iOld + 1 : iOld;
    while (iLineA < iTarget) {
      const char *e = strchr(pA, '\n');
      ks_buf_append(&out, pA, (size_t)(e - pA + 1));
      pA = e + 1;
      iLineA++;
    }
    z = strchr(z, '\n') + 1;
    while (*z && strncmp(z, "@@", 2) != 0) {
      const char *e = strchr(z, '\n');
      if (z[0] == ' ' || z[0] == '+') ks_buf_append(&out, z + 1, (size_t)(e - z));
      if (z[0] == ' ' || z[0] == '-') {
        pA = strchr(pA, '\n') + 1;
        iLineA++;
      }
      z = e + 1;
    }
    z = *z ? z : NULL;
  }
  ks_buf_puts(&out, pA);
  assert_string_equal(ks_buf_cstr(&out), zB);
  ks_buf_free(&out);
  ks_buf_free(&b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_edits),       cmocka_unit_test(test_overlap),
      cmocka_unit_test(test_insert_order), cmocka_unit_test(test_notes),
      cmocka_unit_test(test_idempotence), cmocka_unit_test(test_refusals_and_params),
      cmocka_unit_test(test_note_text),   cmocka_unit_test(test_diff),
      cmocka_unit_test(test_diff_roundtrip),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
