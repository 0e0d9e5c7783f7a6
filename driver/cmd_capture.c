/* cmd_capture.c — `kernelskill capture`: program mode. Runs a CUDA program
 * with the injection library (libks-capture.so through CUDA_INJECTION64_PATH),
 * then writes from what it recorded a JSON index, a ranking of the kernels by
 * GPU time and one task per kernel; `--from` redoes the tasks from an earlier
 * capture, `--compare` checks two captures launch by launch. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "cli.h"
#include "kernelskill/capture.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char zUsage[] =
    "usage: kernelskill capture [-o DIR] [--kernel NAME]... [--launch N] [--source FILE]... -- PROGRAM [ARGS...]\n"
    "       kernelskill capture --from DIR [-o OUT] [--source FILE]...\n"
    "       kernelskill capture --compare BEFORE AFTER\n"
    "       kernelskill capture --promote TASK_DIR [--store DIR] [--force]\n"
    "\n"
    "Run PROGRAM (a CUDA program, linked with cudart statically or dynamically) with\n"
    "the capture library injected (CUDA_INJECTION64_PATH; CUPTI callbacks on every\n"
    "cuLaunchKernel/cuLaunchKernelEx). Each launch is recorded: kernel, grid, block,\n"
    "dynamic shared memory, stream, the bytes of every parameter, and for pointers\n"
    "the device allocation they point into, with its size. For the chosen launch of\n"
    "each kernel, every allocation it can reach is copied before and after it.\n"
    "Then DIR gets:\n"
    "  launches.jsonl, timing.jsonl, snap/   what the library recorded (raw little-endian snapshots)\n"
    "  index.json                           the JSON index (\"ks_capture\": 1) of all of it\n"
    "  summary.txt                          the kernels ranked by total GPU time in the program\n"
    "  tasks/K/K.json, K.cu                 a task per kernel (format v1): K.cu is the kernel's\n"
    "                                       source with a generated replay entry ks_replay_K\n"
    "  tasks/K/inputs/, expected/           the captured inputs and outputs (raw), capture.json\n"
    "Intents come from what the launch changed: untouched -> in, every element\n"
    "changed -> out, some -> inout. Cost is the bytes the tensors hold.\n"
    "\n"
    "Options:\n"
    "  -o DIR          output folder (default ks-capture); must be new or empty.\n"
    "                  Nothing is written outside it\n"
    "  --kernel NAME   snapshot only this kernel (repeatable): mangled, demangled or bare name\n"
    "  --launch N      which launch of each selected kernel to snapshot (default 0: the first)\n"
    "  --all-launches  snapshot every launch of the selected kernels (what --compare checks)\n"
    "  --source FILE   a CUDA source of the program, to find where each kernel is defined\n"
    "                  (repeatable; default: the .cu files of ./compile_commands.json)\n"
    "  --limit SIZE    most bytes of snapshots to write (default 1G; K, M, G suffixes);\n"
    "                  launches over it are recorded without snapshots. Each snapshot's\n"
    "                  size is printed before it is written\n"
    "  --dry-run       record launches and print the snapshot sizes; write no snapshot or task\n"
    "  --init MODE     inputs of the tasks: file (default; \"init\": {\"file\": ...}, the\n"
    "                  captured bytes, with the captured outputs as \"expect\"), or dist\n"
    "                  (a distribution over the captured range; the original kernel is\n"
    "                  the reference); auto is file\n"
    "  --no-tasks      capture, index and rank only\n"
    "  --from DIR      write index, summary and tasks from an earlier capture in DIR\n"
    "                  (into -o OUT, default DIR itself); runs nothing, needs no GPU\n"
    "  --compare A B   compare two captures of the same program (e.g. before and after\n"
    "                  rebuilding it with kernelskill-nvcc, both with --all-launches):\n"
    "                  the same launches, and every allocation after every snapshotted\n"
    "                  launch equal within the dtype's default tolerance\n"
    "  --promote TASK_DIR  after `kernelskill optimize TASK_DIR/K.json --commit`: store the\n"
    "                  verified version again as a version of the program's own file (the\n"
    "                  replay entry and the capture's header lines removed), where\n"
    "                  kernelskill-nvcc finds it when the program is rebuilt\n"
    "  --store DIR     with --promote: the store to write (default: the one above the\n"
    "                  program's source, created there when there is none)\n"
    "  --force         with --promote: replace an existing entry\n"
    "\n"
    "Environment: KS_CAPTURE_LIB (the injection library; default ../lib/libks-capture.so\n"
    "next to this executable), KS_HARNESS (used to check for a GPU).\n"
    "\n"
    "Exit codes: 0 done (compare: all match); 1 the program failed, launched nothing,\n"
    "a capture folder is malformed, or compare found a mismatch; 2 usage error, no\n"
    "GPU, or the injection library is missing. docs/capture.md has the whole flow.\n";

extern const ks_cmd ks_cmd_capture;

#define MAX_LIST 64

static int parse_size(const char *z, unsigned long long *pn) {
  char *zEnd = NULL;
  errno = 0;
  double r = strtod(z, &zEnd);
  if (errno || zEnd == z || r < 0) return -1;
  double m = 1;
  if (*zEnd == 'K' || *zEnd == 'k') m = 1024.0, zEnd++;
  else if (*zEnd == 'M' || *zEnd == 'm') m = 1024.0 * 1024, zEnd++;
  else if (*zEnd == 'G' || *zEnd == 'g') m = 1024.0 * 1024 * 1024, zEnd++;
  if (*zEnd == 'B' || *zEnd == 'i') zEnd++;
  if (*zEnd) return -1;
  r *= m;
  if (r > 1.8e19) return -1;
  *pn = (unsigned long long)r;
  return 0;
}

/* Is DIR absent or an empty folder? */
static int dir_is_fresh(const char *zDir) {
  DIR *d = opendir(zDir);
  if (!d) return errno == ENOENT;
  struct dirent *e;
  int bEmpty = 1;
  while ((e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) bEmpty = 0;
  closedir(d);
  return bEmpty;
}

/* ks-harness info: 0 a device; 3 none. */
static int have_gpu(char **pzWhy) {
  const char *zEnv = getenv("KS_HARNESS");
  char *zDir = ks_path_exe_dir();
  char *zH = zEnv && *zEnv ? ks_strdup(zEnv) : zDir ? ks_path_join(zDir, "ks-harness") : NULL;
  free(zDir);
  if (!zH || access(zH, X_OK) != 0) {
    *pzWhy = ks_mprintf("ks-harness not found next to the executable (set KS_HARNESS): cannot check for a GPU");
    free(zH);
    return 0;
  }
  pid_t pid = fork();
  if (pid == 0) {
    int fd = open("/dev/null", O_RDWR);
    if (fd >= 0) dup2(fd, 1), dup2(fd, 2);
    execl(zH, zH, "info", (char *)NULL);
    _exit(127);
  }
  int st = 0;
  while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  free(zH);
  if (pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0) return 1;
  *pzWhy = ks_mprintf("no CUDA device: kernelskill capture runs the program on a GPU (use --from DIR to "
                      "write tasks from an earlier capture)");
  return 0;
}

/* The .cu files named by ./compile_commands.json. */
static int sources_from_compile_commands(char **azSrc, int *pnSrc) {
  char *zText = NULL;
  size_t n = 0;
  if (!ks_file_exists("compile_commands.json") || ks_file_read("compile_commands.json", &zText, &n) < 0) return 0;
  cJSON *pRoot = cJSON_ParseWithLength(zText, n);
  free(zText);
  for (const cJSON *e = cJSON_IsArray(pRoot) ? pRoot->child : NULL; e && *pnSrc < MAX_LIST; e = e->next) {
    const char *zFile = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "file"));
    const char *zDir = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "directory"));
    size_t m = zFile ? strlen(zFile) : 0;
    if (m < 3 || strcmp(zFile + m - 3, ".cu")) continue;
    char *zPath = zDir && zFile[0] != '/' ? ks_path_join(zDir, zFile) : ks_strdup(zFile);
    int bDup = 0;
    for (int i = 0; i < *pnSrc; i++) bDup |= zPath && !strcmp(azSrc[i], zPath);
    if (zPath && !bDup && ks_file_exists(zPath)) azSrc[(*pnSrc)++] = zPath;
    else free(zPath);
  }
  cJSON_Delete(pRoot);
  return 0;
}

static int run_program(char **argv, const char *zLib, const char *zDir, const char *const *azKernel, int nKernel, int iLaunch,
                       int bEvery, unsigned long long nLimit, int bDry, int *piStatus) {
  ks_buf sel = KS_BUF_INIT;
  for (int i = 0; i < nKernel; i++) ks_buf_printf(&sel, "%s%s", i ? "," : "", azKernel[i]);
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    ks_buf_free(&sel);
    return ks_error_set(KS_EUNAVAIL, "fork: %s", strerror(errno));
  }
  if (pid == 0) {
    char zN[32];
    setenv("CUDA_INJECTION64_PATH", zLib, 1);
    setenv("KS_CAPTURE_DIR", zDir, 1);
    if (nKernel) setenv("KS_CAPTURE_KERNELS", ks_buf_cstr(&sel), 1);
    snprintf(zN, sizeof zN, "%d", iLaunch);
    setenv("KS_CAPTURE_LAUNCH", zN, 1);
    snprintf(zN, sizeof zN, "%llu", nLimit);
    setenv("KS_CAPTURE_LIMIT", zN, 1);
    if (bEvery) setenv("KS_CAPTURE_EVERY", "1", 1);
    if (bDry) setenv("KS_CAPTURE_DRY", "1", 1);
    execvp(argv[0], argv);
    fprintf(stderr, "kernelskill: error: cannot run '%s': %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  ks_buf_free(&sel);
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  *piStatus = st;
  return KS_OK;
}

static int write_text(const char *zDir, const char *zName, const ks_buf *b) {
  char *zPath = ks_path_join(zDir, zName);
  int rc = zPath ? ks_file_write_atomic(zPath, b->z ? b->z : "", b->n) : KS_ENOMEM;
  free(zPath);
  return rc;
}

static int check_kernel(const ks_cli_opt *pOpt, const ks_cmd *pCmd, const char *zVal) {
  if (strchr(zVal, ',')) return ks_cli_usage_error(pCmd, "%s '%s': one name per option", pOpt->zName, zVal);
  return 0;
}

static int take_limit(const ks_cli_opt *pOpt, const ks_cmd *pCmd, const char *zVal) {
  if (parse_size(zVal, pOpt->pVar) < 0) return ks_cli_usage_error(pCmd, "%s needs %s", pOpt->zName, pOpt->zNeeds);
  return 0;
}

static int take_init(const ks_cli_opt *pOpt, const ks_cmd *pCmd, const char *zVal) {
  ks_capture_init_mode *pe = pOpt->pVar;
  if (!strcmp(zVal, "file")) *pe = KS_CAPTURE_INIT_FILE;
  else if (!strcmp(zVal, "dist")) *pe = KS_CAPTURE_INIT_DIST;
  else if (!strcmp(zVal, "auto")) *pe = KS_CAPTURE_INIT_AUTO;
  else return ks_cli_usage_error(pCmd, "%s '%s': must be %s", pOpt->zName, zVal, pOpt->zNeeds);
  return 0;
}

static int run_capture(int argc, char **argv) {
  const char *zOut = NULL, *zFrom = NULL, *zCmpA = NULL, *zCmpB = NULL, *zPromote = NULL, *zStore = NULL, *zVal;
  int bForce = 0;
  const char *azKernel[MAX_LIST];
  char *azSrc[MAX_LIST];
  int nKernel = 0, nSrc = 0, iLaunch = 0, bEvery = 0, bDry = 0, bNoTasks = 0, iProg = -1, m, ec = KS_EXIT_OK;
  int nOwnedSrc = 0;
  unsigned long long nLimit = 1ull << 30;
  ks_capture_init_mode eInit = KS_CAPTURE_INIT_AUTO;
  const ks_cli_opt aOpts[] = {
      KS_CLI_STR_OPT("-o", &zOut, "a folder"),
      {.zName = "--kernel", .eKind = KS_CLI_LIST, .pVar = azKernel, .pnList = &nKernel, .nMax = MAX_LIST,
       .zNeeds = "a name", .zFull = "at most %d --kernel options", .bNonEmpty = 1, .xFn = check_kernel},
      KS_CLI_INT_OPT("--launch", &iLaunch, 0, INT_MAX, "a launch number (0 is the first)"),
      {.zName = "--limit", .eKind = KS_CLI_FN, .pVar = &nLimit, .zNeeds = "a size (bytes, or with K, M, G: 512M)",
       .xFn = take_limit},
      {.zName = "--init", .eKind = KS_CLI_FN, .pVar = &eInit, .zNeeds = "file, dist or auto", .xFn = take_init},
      KS_CLI_STR_OPT("--from", &zFrom, "a capture folder"),
      KS_CLI_STR_OPT("--promote", &zPromote, "a captured task folder"),
      KS_CLI_STR_OPT("--store", &zStore, "a folder"),
      KS_CLI_FLAG_OPT("--force", &bForce),
      KS_CLI_FLAG_OPT("--all-launches", &bEvery),
      KS_CLI_FLAG_OPT("--dry-run", &bDry),
      KS_CLI_FLAG_OPT("--no-tasks", &bNoTasks),
      {0}};
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--")) {
      iProg = i + 1;
      break;
    } else if (ks_cli_is_help(argv[i])) {
      fputs(zUsage, stdout);
      return KS_EXIT_OK;
    } else if ((m = ks_cli_match(&ks_cmd_capture, argc, argv, &i, aOpts)) != 0) {
      if (m < 0) return KS_EXIT_ENV;
    } else if ((m = ks_cli_opt_value(argc, argv, &i, "--source", &zVal)) != 0) {
      /* kept as an absolute path: the tasks name it from another folder */
      if (m < 0 || !*zVal) return ks_cli_usage_error(&ks_cmd_capture, "--source needs a file");
      if (nSrc == MAX_LIST) return ks_cli_usage_error(&ks_cmd_capture, "at most %d --source options", MAX_LIST);
      if (!ks_file_exists(zVal)) return ks_cli_usage_error(&ks_cmd_capture, "--source %s: no such file", zVal);
      char zAbsSrc[PATH_MAX];
      if (!realpath(zVal, zAbsSrc)) return ks_cli_usage_error(&ks_cmd_capture, "--source %s: %s", zVal, strerror(errno));
      azSrc[nSrc++] = ks_strdup(zAbsSrc);
      nOwnedSrc = nSrc;
    } else if (!strcmp(argv[i], "--compare")) {
      if (i + 2 >= argc) return ks_cli_usage_error(&ks_cmd_capture, "--compare needs two capture folders");
      zCmpA = argv[++i];
      zCmpB = argv[++i];
    } else if (argv[i][0] == '-') {
      return ks_cli_usage_error(&ks_cmd_capture, "unknown option '%s'", argv[i]);
    } else {
      return ks_cli_usage_error(&ks_cmd_capture, "unexpected '%s': put the program after '--'", argv[i]);
    }
  }
  int nModes = (zCmpA != NULL) + (zFrom != NULL) + (iProg >= 0) + (zPromote != NULL);
  if (nModes == 0) return ks_cli_usage_error(&ks_cmd_capture, "no program: kernelskill capture [options] -- PROGRAM [ARGS...]");
  if (nModes > 1) return ks_cli_usage_error(&ks_cmd_capture, "give one of: -- PROGRAM, --from DIR, --compare A B, --promote TASK_DIR");
  if ((zStore || bForce) && !zPromote) return ks_cli_usage_error(&ks_cmd_capture, "--store and --force go with --promote");
  if (iProg >= 0 && iProg >= argc) return ks_cli_usage_error(&ks_cmd_capture, "no program after '--'");

  if (zPromote) {
    ks_capture_promote_opts po = KS_CAPTURE_PROMOTE_OPTS_INIT;
    ks_buf rep = KS_BUF_INIT;
    po.zTaskDir = zPromote;
    po.zStore = zStore;
    po.bForce = bForce;
    int rc = ks_capture_promote(&po, &rep);
    fputs(ks_buf_cstr(&rep), stdout);
    ks_buf_free(&rep);
    return rc < 0 ? ks_cli_fail(rc) : KS_EXIT_OK;
  }
  if (zCmpA) {
    ks_capture *pA = NULL, *pB = NULL;
    ks_buf rep = KS_BUF_INIT;
    int nBad = 0, rc = ks_capture_load(zCmpA, &pA);
    if (rc == KS_OK) rc = ks_capture_load(zCmpB, &pB);
    if (rc == KS_OK) rc = ks_capture_compare(pA, pB, &rep, &nBad);
    fputs(ks_buf_cstr(&rep), stdout);
    ec = rc < 0 ? ks_cli_fail(rc) : nBad ? KS_EXIT_INPUT : KS_EXIT_OK;
    ks_buf_free(&rep);
    ks_capture_free(pA);
    ks_capture_free(pB);
    return ec;
  }

  char *zDir = NULL, *zLib = NULL;
  ks_capture *pCap = NULL;
  ks_buf b = KS_BUF_INIT;
  int rc = KS_OK;
  if (zFrom) {
    if (!zOut) zOut = zFrom;
  } else {
    if (!zOut) zOut = "ks-capture";
    if (!dir_is_fresh(zOut)) {
      ec = ks_cli_usage_error(&ks_cmd_capture, "-o %s: not empty (capture into a new folder)", zOut);
      goto done;
    }
    char *zWhy = NULL;
    if (!have_gpu(&zWhy)) {
      fprintf(stderr, "kernelskill: error: %s\n", zWhy ? zWhy : "no CUDA device");
      free(zWhy);
      ec = KS_EXIT_ENV;
      goto done;
    }
    const char *zEnv = getenv("KS_CAPTURE_LIB");
    char *zExe = ks_path_exe_dir();
    zLib = zEnv && *zEnv ? ks_strdup(zEnv) : zExe ? ks_path_join(zExe, "../lib/libks-capture.so") : NULL;
    free(zExe);
    if (!zLib || !ks_file_exists(zLib)) {
      fprintf(stderr, "kernelskill: error: the injection library %s is missing (build the ks-capture target, or set "
                      "KS_CAPTURE_LIB)\n", zLib ? zLib : "libks-capture.so");
      ec = KS_EXIT_ENV;
      goto done;
    }
    char zAbs[PATH_MAX];
    if (realpath(zLib, zAbs)) {
      free(zLib);
      zLib = ks_strdup(zAbs);
    }
  }
  if ((rc = ks_dir_make(zOut)) < 0) goto fail;
  char zAbs[PATH_MAX];
  if (!realpath(zOut, zAbs)) {
    rc = ks_error_set(KS_EIO, "%s: %s", zOut, strerror(errno));
    goto fail;
  }
  zDir = ks_strdup(zAbs);

  if (!zFrom) {
    int iStatus = 0;
    fprintf(stderr, "kernelskill capture: running %s (capture into %s, snapshot limit %llu bytes)\n", argv[iProg], zDir,
            nLimit);
    if ((rc = run_program(argv + iProg, zLib, zDir, azKernel, nKernel, iLaunch, bEvery, nLimit, bDry, &iStatus)) < 0)
      goto fail;
    if (!WIFEXITED(iStatus) || WEXITSTATUS(iStatus) != 0) {
      if (WIFEXITED(iStatus)) fprintf(stderr, "kernelskill capture: %s exited with status %d\n", argv[iProg], WEXITSTATUS(iStatus));
      else fprintf(stderr, "kernelskill capture: %s was killed by signal %d\n", argv[iProg], WTERMSIG(iStatus));
      ec = KS_EXIT_INPUT;
    }
    char *zL = ks_path_join(zDir, "launches.jsonl");
    int bLoaded = zL && ks_file_exists(zL);
    free(zL);
    if (!bLoaded) {
      fprintf(stderr, "kernelskill: error: the injection library did not run in %s (it is loaded by the CUDA driver at "
                      "cuInit; does the program use CUDA?)\n", argv[iProg]);
      ec = KS_EXIT_INPUT;
      goto done;
    }
  }
  if ((rc = ks_capture_load(zFrom ? zFrom : zDir, &pCap)) < 0) goto fail;
  if (pCap->nLaunch == 0) {
    fprintf(stderr, "kernelskill: error: no kernel launch was recorded\n");
    ec = KS_EXIT_INPUT;
    goto done;
  }
  if (!pCap->bComplete) fprintf(stderr, "kernelskill capture: note: the program did not reach exit normally; timings may be missing\n");
  if ((rc = ks_capture_index_json(pCap, &b)) < 0 || (rc = write_text(zDir, "index.json", &b)) < 0) goto fail;
  ks_buf_clear(&b);
  if ((rc = ks_capture_summary_text(pCap, &b)) < 0 || (rc = write_text(zDir, "summary.txt", &b)) < 0) goto fail;
  printf("%d launch(es) recorded; kernels by GPU time (%s/summary.txt):\n%s", pCap->nLaunch, zDir, ks_buf_cstr(&b));
  ks_buf_clear(&b);
  if (!bNoTasks && !bDry) {
    if (nSrc == 0) {
      sources_from_compile_commands(azSrc, &nSrc);
      nOwnedSrc = nSrc;
      if (nSrc == 0) fprintf(stderr, "kernelskill capture: note: no --source and no ./compile_commands.json: no task can name its kernel's source\n");
    }
    ks_capture_task_opts to = KS_CAPTURE_TASK_OPTS_INIT;
    to.zOutDir = zDir;
    to.azSource = (const char *const *)azSrc;
    to.nSource = nSrc;
    to.eInit = eInit;
    to.zProgram = zFrom ? zFrom : argv[iProg];
    rc = ks_capture_write_tasks(pCap, &to, &b);
    fputs(ks_buf_cstr(&b), stdout);
    if (rc < 0) goto fail;
  }
  goto done;
fail:
  ec = ks_cli_fail(rc);
done:
  for (int i = 0; i < nOwnedSrc; i++) free(azSrc[i]);
  ks_buf_free(&b);
  ks_capture_free(pCap);
  free(zDir);
  free(zLib);
  return ec;
}

const ks_cmd ks_cmd_capture = {"capture", "program mode: capture a CUDA program's launches and write a task per kernel",
                               zUsage, run_capture, 25};
