/* report.c — KS_MODE=report: for each kernel of each CUDA input, the
 * Feature Extractor and the planner (static features only) give ranked skills;
 * each becomes a warning in nvcc's device-diagnostic format
 *   path(line): warning: kernelskill: kernel 'k': consider SKILL - TITLE [why]
 * libkernelskill is dlopen'ed here so that apply-mode compiles do not load
 * libclang at all (it costs ~25 ms per process). */
#define _GNU_SOURCE
#include "report.h"

#include <cjson/cJSON.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernelskill/features.h"
#include "kernelskill/skills.h"

#ifndef KS_NVCC_INSTALL_LIBDIR
#define KS_NVCC_INSTALL_LIBDIR "lib"
#endif

#define TOP_SKILLS 3

typedef struct api {
  void *pLib;
  int (*tu_parse)(const char *, const ks_parse_opts *, ks_tu **);
  void (*tu_free)(ks_tu *);
  int (*features_json)(ks_tu *, const ks_features_opts *, ks_buf *);
  int (*ev_new)(ks_evidence **);
  void (*ev_free)(ks_evidence *);
  int (*ev_pick)(const char *, size_t, const char *, const char *, char **);
  int (*ev_add)(ks_evidence *, const char *, const char *, size_t, const char *, int *);
  int (*ev_derive)(ks_evidence *);
  int (*skills_load)(const ks_skills_opts *, ks_skillset **);
  void (*skills_free)(ks_skillset *);
  int (*plan_run)(const ks_skillset *, const ks_evidence *, const ks_plan_opts *, ks_plan **);
  void (*plan_free)(ks_plan *);
  const char *(*error_msg)(void);
} api;

static int load_api(api *p) {
  const char *azRel[] = {"../lib/libkernelskill.so.0", "../" KS_NVCC_INSTALL_LIBDIR "/libkernelskill.so.0", NULL};
  char *zExe = ks_path_exe_dir();
  memset(p, 0, sizeof *p);
  for (int i = 0; zExe && azRel[i] && !p->pLib; i++) {
    char *z = ks_path_join(zExe, azRel[i]);
    if (z) p->pLib = dlopen(z, RTLD_NOW | RTLD_LOCAL);
    free(z);
  }
  free(zExe);
  if (!p->pLib) p->pLib = dlopen("libkernelskill.so.0", RTLD_NOW | RTLD_LOCAL);
  if (!p->pLib) return ks_error_set(KS_EUNAVAIL, "cannot load libkernelskill: %s", dlerror());
  struct {
    const char *zName;
    void **ppFn;
  } aSyms[] = {{"ks_tu_parse", (void **)&p->tu_parse},
               {"ks_tu_free", (void **)&p->tu_free},
               {"ks_features_json", (void **)&p->features_json},
               {"ks_evidence_new", (void **)&p->ev_new},
               {"ks_evidence_free", (void **)&p->ev_free},
               {"ks_evidence_pick_features", (void **)&p->ev_pick},
               {"ks_evidence_add_json", (void **)&p->ev_add},
               {"ks_evidence_derive", (void **)&p->ev_derive},
               {"ks_skills_load", (void **)&p->skills_load},
               {"ks_skills_free", (void **)&p->skills_free},
               {"ks_plan_run", (void **)&p->plan_run},
               {"ks_plan_free", (void **)&p->plan_free},
               {"ks_error_msg", (void **)&p->error_msg},
               {NULL, NULL}};
  for (int i = 0; aSyms[i].zName; i++) {
    *aSyms[i].ppFn = dlsym(p->pLib, aSyms[i].zName);
    if (!*aSyms[i].ppFn) return ks_error_set(KS_EUNAVAIL, "libkernelskill lacks %s", aSyms[i].zName);
  }
  return KS_OK;
}

static int lib_fail(const api *p, int rc) { return ks_error_set(rc, "%s", p->error_msg()); }

/* The clang arguments that change what the file means: -I -D -U -isystem
 * -include -std, from the nvcc command. */
static int clang_args(const ks_nvcc_cmd *pCmd, char ***pazArgs, int *pnArgs) {
  static const struct {
    const char *zLong, *zClang;
    int bList;
  } aMap[] = {{"include-path", "-I", 1},   {"define-macro", "-D", 1}, {"undefine-macro", "-U", 1},
              {"system-include", "-isystem", 1}, {"pre-include", "-include", 1}, {"std", "-std=", 0},
              {NULL, NULL, 0}};
  char **az = NULL;
  int n = 0, rc = KS_OK;
  for (int m = 0; aMap[m].zLong && rc >= 0; m++) {
    const char **azV = NULL;
    int nV = 0;
    if ((rc = ks_nvcc_values(pCmd, aMap[m].zLong, &azV, &nV)) < 0) break;
    for (int i = 0; i < nV && rc >= 0; i++) {
      char **azP = NULL;
      int nP = 0;
      if (aMap[m].bList) rc = ks_nvcc_split_list(azV[i], &azP, &nP);
      else if ((azP = calloc(1, sizeof(char *))) && (azP[0] = strdup(azV[i]))) nP = 1;
      for (int j = 0; j < nP && rc >= 0; j++) {
        int bSep = !strcmp(aMap[m].zClang, "-isystem") || !strcmp(aMap[m].zClang, "-include");
        char **azNew = realloc(az, sizeof(char *) * (size_t)(n + 2));
        if (!azNew) {
          rc = ks_error_set(KS_ENOMEM, "out of memory");
          break;
        }
        az = azNew;
        if (bSep) {
          az[n++] = strdup(aMap[m].zClang);
          az[n++] = strdup(azP[j]);
        } else {
          ks_buf b = KS_BUF_INIT;
          ks_buf_printf(&b, "%s%s", aMap[m].zClang, azP[j]);
          az[n++] = ks_buf_detach(&b);
        }
      }
      ks_nvcc_free_words(azP, nP);
    }
    free(azV);
  }
  *pazArgs = az;
  *pnArgs = n;
  return rc;
}

static int report_file(const api *pA, const ks_skillset *pSet, const ks_nvcc_cmd *pCmd, const char *zPath,
                       char **azArgs, int nArgs) {
  ks_parse_opts po = KS_PARSE_OPTS_INIT;
  ks_tu *pTu = NULL;
  ks_buf doc = KS_BUF_INIT;
  cJSON *pDoc = NULL;
  char aArch[32] = "";
  int rc;
  po.azExtraArgs = (const char *const *)azArgs;
  po.nExtraArgs = nArgs;
  for (int i = 0; i < pCmd->nTargets && !aArch[0]; i++)
    if (pCmd->aTargets[i].bReal) snprintf(aArch, sizeof aArch, "sm_%s", pCmd->aTargets[i].zArch);
  if (aArch[0]) po.zGpuArch = aArch;
  if ((rc = pA->tu_parse(zPath, &po, &pTu)) < 0) return lib_fail(pA, rc);
  ks_features_opts fo = KS_FEATURES_OPTS_INIT;
  if ((rc = pA->features_json(pTu, &fo, &doc)) < 0) {
    rc = lib_fail(pA, rc);
    goto done;
  }
  pDoc = cJSON_Parse(ks_buf_cstr(&doc));
  const cJSON *pKernels = cJSON_GetObjectItemCaseSensitive(pDoc, "kernels"), *pK;
  cJSON_ArrayForEach(pK, pKernels) {
    const cJSON *pName = cJSON_GetObjectItemCaseSensitive(pK, "name");
    const cJSON *pLine = cJSON_GetObjectItemCaseSensitive(pK, "line");
    if (!cJSON_IsString(pName)) continue;
    int iLine = cJSON_IsNumber(pLine) ? pLine->valueint : 1;
    char *zSummary = NULL;
    ks_evidence *pEv = NULL;
    ks_plan *pPlan = NULL;
    if ((rc = pA->ev_pick(doc.z, doc.n, zPath, pName->valuestring, &zSummary)) < 0 || (rc = pA->ev_new(&pEv)) < 0 ||
        (rc = pA->ev_add(pEv, "features", zSummary, strlen(zSummary), zPath, NULL)) < 0 ||
        (rc = pA->ev_derive(pEv)) < 0) {
      rc = lib_fail(pA, rc);
    } else {
      ks_plan_opts plo = KS_PLAN_OPTS_INIT;
      plo.zKernel = pName->valuestring;
      plo.zSource = zPath;
      if ((rc = pA->plan_run(pSet, pEv, &plo, &pPlan)) < 0) rc = lib_fail(pA, rc);
    }
    if (rc >= 0) {
      int nShown = 0;
      for (int i = 0; i < pPlan->n && nShown < TOP_SKILLS; i++) {
        const ks_plan_item *pI = &pPlan->a[i];
        if (pI->eStatus != KS_PLAN_CANDIDATE) continue;
        fprintf(stderr, "%s(%d): warning: kernelskill: kernel '%s': consider %s - %s [%s]\n", zPath, iLine,
                pName->valuestring, pI->pSkill->zId, pI->pSkill->zTitle ? pI->pSkill->zTitle : "",
                pI->zWhy ? pI->zWhy : "");
        nShown++;
      }
      if (!nShown)
        fprintf(stderr, "%s(%d): warning: kernelskill: kernel '%s': no skill fits on static features alone "
                        "(profile it: kernelskill bench, then kernelskill plan --profile)\n",
                zPath, iLine, pName->valuestring);
    }
    pA->plan_free(pPlan);
    pA->ev_free(pEv);
    free(zSummary);
    if (rc < 0) break;
  }
done:
  cJSON_Delete(pDoc);
  ks_buf_free(&doc);
  pA->tu_free(pTu);
  return rc;
}

int ks_nvcc_report(const ks_nvcc_cmd *pCmd) {
  api A;
  char **azArgs = NULL;
  int nArgs = 0, rc;
  ks_skillset *pSet = NULL;
  if ((rc = load_api(&A)) < 0) goto done;
  if ((rc = clang_args(pCmd, &azArgs, &nArgs)) < 0) goto done;
  ks_skills_opts so = KS_SKILLS_OPTS_INIT;
  if ((rc = A.skills_load(&so, &pSet)) < 0) {
    rc = lib_fail(&A, rc);
    goto done;
  }
  for (int i = 0; i < pCmd->nInputs && rc >= 0; i++) {
    const ks_nvcc_item *pIt = &pCmd->a[pCmd->aiInputs[i]];
    if (pIt->bCudaSource) rc = report_file(&A, pSet, pCmd, pIt->zInput, azArgs, nArgs);
  }
done:
  if (pSet) A.skills_free(pSet);
  ks_nvcc_free_words(azArgs, nArgs);
  /* libclang stays loaded: unloading it at exit buys nothing. */
  return rc;
}
