# lit configuration for KernelSkill's test suite. Each folder of test/ is a suite
# of .cu / .test / .json files with RUN lines; tools are substituted below.
import os
import lit.formats

config.name = "kernelskill"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".cu", ".test", ".cuh"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py.in", "unit", "fuzz"]

site = lit_config.params.get("site")
if site:
    lit_config.load_config(config, site)
    config.test_source_root = os.path.dirname(__file__)
    config.test_exec_root = os.path.join(config.ks_test_build_dir, "lit-out")

config.environment["KS_DATADIR"] = config.ks_data_dir
config.environment["PATH"] = os.pathsep.join(
    [config.ks_bin_dir, config.llvm_bin_dir, os.path.dirname(config.ks_nvcc), config.environment.get("PATH", "")])
for var in ["HOME", "TMPDIR", "CUDA_PATH", "KS_CLANG_RESOURCE_DIR", "LD_LIBRARY_PATH", "KS_GPU_TESTS"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]
# Tests must not read a user's configuration or talk to an LLM.
for var in list(config.environment):
    if var.startswith("KS_LLM_") or var in ("KS_SKILLS_PATH", "KS_STORE", "KS_PROMPTS_DIR", "KS_MODE", "KS_NVCC"):
        config.environment.pop(var, None)

# Parses share one cache of the CUDA prefix (lib/features/pch.c) in the build
# tree, not the user's ~/.cache; test/features/pch.test covers it on its own.
config.environment["KS_PCH_CACHE"] = os.path.join(config.ks_test_build_dir, "pch-cache")
config.environment.pop("KS_PCH_TRACE", None)

config.substitutions.append(("%kernelskill", os.path.join(config.ks_bin_dir, "kernelskill")))
config.substitutions.append(("%ks-isolate", os.path.join(config.ks_bin_dir, "ks-isolate")))
config.substitutions.append(("%nvcc", config.ks_nvcc))
config.substitutions.append(("%clang19", config.ks_clang))
config.substitutions.append(("%python", config.python))
config.substitutions.append(("%datadir", config.ks_data_dir))
config.substitutions.append(("%srcroot", config.ks_source_dir))
# %strip-checks IN OUT: copy the lit test IN with its RUN and check lines blanked, so a rule
# test rewrites a file whose CHECK comments cannot be copied into the output and match
# themselves (test/tools/selfcheck_rewrites.py enforces it).
config.substitutions.append(("%strip-checks", config.python + " " + os.path.join(config.ks_source_dir, "test", "tools", "strip_checks.py")))
# %expect-exit N CMD...: CMD must exit with status N exactly.
config.substitutions.append(("%expect-exit", config.python + " " + os.path.join(config.ks_source_dir, "test", "Inputs", "expect_exit.py")))

# Tests of the namespaces' part of the isolation say `REQUIRES: isolate-ns`:
# machines (containers) without user namespaces get the rest only.
try:
    import json as _json, subprocess as _sp
    _probe = _json.loads(_sp.run([os.path.join(config.ks_bin_dir, "ks-isolate"), "--probe", "--json"],
                                 capture_output=True, text=True, timeout=60).stdout)
    if _probe.get("userns") and _probe.get("rdonly"):
        config.available_features.add("isolate-ns")
except Exception:
    pass

# GPU tests say `REQUIRES: gpu`; they run only where a GPU answers.
if os.environ.get("KS_GPU_TESTS") == "1":
    config.available_features.add("gpu")
