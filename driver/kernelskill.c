/* kernelskill.c — entry point of the `kernelskill` CLI: global options and
 * dispatch to the subcommands listed in the generated command table. */
#include "cli.h"
#include "kernelskill/isolate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int count_cmds(void) {
  int n = 0;
  while (ks_cmd_table[n]) n++;
  return n;
}

static int cmp_order(const void *a, const void *b) {
  const ks_cmd *pA = *(const ks_cmd *const *)a, *pB = *(const ks_cmd *const *)b;
  if (pA->iOrder != pB->iOrder) return pA->iOrder < pB->iOrder ? -1 : 1;
  return strcmp(pA->zName, pB->zName);
}

static void print_help(FILE *f) {
  int n = count_cmds();
  const ks_cmd *aSorted[64];
  if (n > 64) n = 64;
  memcpy(aSorted, ks_cmd_table, sizeof(ks_cmd *) * (size_t)n);
  qsort(aSorted, (size_t)n, sizeof aSorted[0], cmp_order);
  fprintf(f,
          "usage: kernelskill COMMAND [ARGS...]\n"
          "       kernelskill COMMAND --help\n"
          "\n"
          "Makes CUDA kernels faster on the GPU in front of it, and says why.\n"
          "\n"
          "Commands:\n");
  for (int i = 0; i < n; i++) fprintf(f, "  %-10s %s\n", aSorted[i]->zName, aSorted[i]->zSummary);
  fprintf(f,
          "\n"
          "Options:\n"
          "  -h, --help     show this help\n"
          "  --version      print the version\n"
          "\n"
          "Exit codes: 0 success; 1 the input has a problem (bad source, bad task,\n"
          "a precondition that does not hold); 2 usage or environment error.\n");
}

int main(int argc, char **argv) {
  /* The API key leaves our initial environment block (/proc/PID/environ) and
   * this process becomes undumpable, before any child exists (docs/security.md). */
  if (ks_isolate_scrub_env("KS_LLM_API_KEY")) ks_isolate_protect_self();
  if (getenv("KS_LLM_API_KEY_FILE")) ks_isolate_protect_self();
  if (argc < 2) {
    print_help(stderr);
    return KS_EXIT_ENV;
  }
  const char *zCmd = argv[1];
  if (ks_cli_is_help(zCmd) || strcmp(zCmd, "help") == 0) {
    if (strcmp(zCmd, "help") == 0 && argc > 2) {
      for (int i = 0; ks_cmd_table[i]; i++)
        if (strcmp(ks_cmd_table[i]->zName, argv[2]) == 0) {
          fputs(ks_cmd_table[i]->zUsage, stdout);
          return KS_EXIT_OK;
        }
    }
    print_help(stdout);
    return KS_EXIT_OK;
  }
  if (strcmp(zCmd, "--version") == 0 || strcmp(zCmd, "version") == 0) {
    printf("kernelskill %s\n", KS_VERSION_STRING);
    return KS_EXIT_OK;
  }
  for (int i = 0; ks_cmd_table[i]; i++) {
    const ks_cmd *pCmd = ks_cmd_table[i];
    if (strcmp(pCmd->zName, zCmd) != 0) continue;
    if (argc > 2 && ks_cli_is_help(argv[2])) {
      fputs(pCmd->zUsage, stdout);
      return KS_EXIT_OK;
    }
    return pCmd->xRun(argc - 1, argv + 1);
  }
  fprintf(stderr, "kernelskill: error: unknown command '%s'\n(see 'kernelskill --help')\n", zCmd);
  return KS_EXIT_ENV;
}
