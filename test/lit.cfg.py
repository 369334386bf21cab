# -*- Python -*-
# lit configuration of the Phobos tests.

import os
import sys

import lit.formats
from lit.llvm import llvm_config

config.name = "Phobos"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".ph", ".test"]
config.excludes = ["Inputs", "lit.cfg.py", "CMakeLists.txt", "phobos-capi-test.c"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.phobos_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%phobos_src_root", config.phobos_src_root))
config.substitutions.append(("%phobos_obj_root", config.phobos_obj_root))
config.substitutions.append(("%examples", os.path.join(config.phobos_src_root, "examples")))
config.substitutions.append(("%python", sys.executable))
config.environment["FILECHECK_OPTS"] = "--enable-var-scope"
# Compiled kernels go to a cache of the test run's own, not the user's.
config.environment["PHOBOS_CACHE_DIR"] = os.path.join(config.phobos_obj_root, "test", "kernel-cache")

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

# ptxas (CUDA toolkit) checks generated PTX where it is installed.
cuda_bin = "/usr/local/cuda/bin"
if os.path.exists(os.path.join(cuda_bin, "ptxas")):
    llvm_config.with_environment("PATH", cuda_bin, append_path=True)
    config.available_features.add("ptxas")

tool_dirs = [config.phobos_tools_dir, config.llvm_tools_dir]
tools = ["phobos-opt", "phobos-translate", "phobos-run", "phobos-compile",
         "phobos-capi-test", "phobos-sched", "phobos-pod", "phobos-tensor", "phobos-tune",
         "phobos-viz"]
llvm_config.add_tool_substitutions(tools, tool_dirs)
