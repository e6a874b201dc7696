# -*- Python -*-
"""lit configuration for Tide's tests."""

import os
import shlex
import subprocess

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "TIDE"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "corpus"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tide_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%tide_src", config.tide_src_root))
config.substitutions.append(("%tide_obj", config.tide_obj_root))
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%tide_bin", config.tide_tools_dir))
# The test venv of scripts/venv.sh (ONNX Runtime): tests that compare with it
# say `REQUIRES: onnxruntime`.
venv_python = os.path.join(config.tide_obj_root, "venv", "bin", "python")
if os.path.exists(venv_python) and subprocess.call(
        [venv_python, "-c", "import onnxruntime"], stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL) == 0:
    config.available_features.add("onnxruntime")
config.substitutions.append(("%ort_python", venv_python))
# The Python package's tests (test/python) build it into the same venv: they
# need its build backend, bindings and pytest there.
if os.path.exists(venv_python) and subprocess.call(
        [venv_python, "-c", "import pytest, nanobind, scikit_build_core"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) == 0:
    config.available_features.add("python-package")
config.substitutions.append(("%venv_python", venv_python))
config.substitutions.append(("%examples", os.path.join(config.tide_src_root, "examples")))
config.substitutions.append(("%targets", os.path.join(config.tide_src_root, "targets")))

# Make every FileCheck variable local to its CHECK-LABEL block.
config.environment["FILECHECK_OPTS"] = "-enable-var-scope"

# CMAKE_BUILD_PARALLEL_LEVEL: how many jobs the CMake builds inside tests
# (test/Embed) may run.
llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP",
                                     "CMAKE_BUILD_PARALLEL_LEVEL"])
llvm_config.use_default_substitutions()

tool_dirs = [config.tide_tools_dir, config.llvm_tools_dir]
# GPU tests run where a driver is present; the no-GPU behaviour is tested
# where none is.
if config.have_cuda_runtime:
    config.available_features.add("cuda-runtime")
# GPU code generation needs ptxas and libdevice (no GPU).
if (os.path.exists(os.path.join(config.cuda_root, "bin", "ptxas")) and
        os.path.exists(os.path.join(config.cuda_root, "nvvm", "libdevice",
                                    "libdevice.10.bc"))):
    config.available_features.add("cuda-toolkit")
config.substitutions.append(("%cuda_root", config.cuda_root))
import ctypes
try:
    cuda = ctypes.CDLL("libcuda.so.1")
    # A driver with a usable device: the tests that run GPU code.
    count = ctypes.c_int(0)
    if cuda.cuInit(0) == 0 and cuda.cuDeviceGetCount(ctypes.byref(count)) == 0 \
            and count.value > 0:
        config.available_features.add("gpu")
except OSError:
    config.available_features.add("no-gpu")

# Checks over the repository's history (formatting of changed lines).
if os.path.exists(os.path.join(config.tide_src_root, ".git")):
    config.available_features.add("git-checkout")

# libFuzzer targets are built with clang (test/fuzz/CMakeLists.txt).
if os.path.exists(os.path.join(config.tide_tools_dir, "tide-fuzz-npy")):
    config.available_features.add("fuzzers")

# A sanitizer build (scripts/sanitize.sh: -fsanitize=address,undefined with
# the shared runtime). Programs the tests build against Tide's libraries (the
# Embed consumers) are built with the same flags; programs built without the
# runtime that load Tide's instrumented libraries (mlir-opt-22 with the
# plugins, Python with the package) get it preloaded, which ASan requires.
# In Python, leak detection is off: CPython and its extension modules (NumPy,
# onnx, protobuf) leave their allocations to the process's end, which LSan
# would report; Tide's own leaks are checked in its tools, unit tests and the
# C API test.
sanitizer_cmake_flags = ""
sanitizer_preload = ""
sanitizer_python = ""
if "-fsanitize=" in config.cxx_flags_release:
    config.available_features.add("sanitizers")
    sanitizer_cmake_flags = " ".join(shlex.quote(f) for f in [
        "-DCMAKE_C_FLAGS_RELEASE=" + config.c_flags_release,
        "-DCMAKE_CXX_FLAGS_RELEASE=" + config.cxx_flags_release,
        "-DCMAKE_EXE_LINKER_FLAGS=" + config.exe_linker_flags,
        "-DCMAKE_SHARED_LINKER_FLAGS=" + config.shared_linker_flags,
        "-DCMAKE_MODULE_LINKER_FLAGS=" + config.shared_linker_flags])
    runtime = subprocess.check_output(
        [config.cxx_compiler, "-print-file-name=libclang_rt.asan-x86_64.so"],
        text=True).strip()
    sanitizer_preload = "env LD_PRELOAD=" + shlex.quote(runtime)
    asan_options = os.environ.get("ASAN_OPTIONS", "")
    sanitizer_python = sanitizer_preload + " ASAN_OPTIONS=" + shlex.quote(
        (asan_options + ":" if asan_options else "") + "detect_leaks=0")
config.substitutions.append(("%sanitizer_cmake_flags", sanitizer_cmake_flags))
config.substitutions.append(("%sanitizer_preload", sanitizer_preload))
config.substitutions.append(("%sanitizer_python", sanitizer_python))

tools = ["tide-opt", "tide-lsp-server", "tide-compile", "tide-run", "tide-calibrate", "tide-import-onnx", "TideUnitTests", "tide-capi-test", "tide-gpu-runtime-test",
         "tide-fuzz-npy", "tide-fuzz-metadata", "tide-fuzz-onnx", "tide-fuzz-mlir", "tide-fuzz-target"]
config.substitutions.append(("%cmake", config.cmake_command))
config.substitutions.append(("%cxx", config.cxx_compiler))
config.substitutions.append(("%cc", config.c_compiler))
config.substitutions.append(("%launcher", config.cxx_launcher or ""))
config.substitutions.append(("%mlir_opt", os.path.join(config.llvm_tools_dir, "mlir-opt")))
llvm_config.add_tool_substitutions(tools, tool_dirs)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.tide_tools_dir, append_path=True)
