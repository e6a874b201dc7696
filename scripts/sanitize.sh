#!/usr/bin/env bash
# ASan + UBSan build of Tide in build-asan/ (Debug-free -O1 with frame
# pointers), then the whole lit suite there: every pass and tool test, the
# unit tests (GoogleTest), the CPU numerics suite against NumPy, the random
# programs, the ONNX importer (against ONNX Runtime in the test venv), the
# Python package, the fuzz targets' regression inputs, the install-and-embed
# consumers and stock mlir-opt-22 with Tide's plugins. Any sanitizer report
# fails the test that triggered it (halt_on_error).
#
# Programs the tests build against Tide (test/Embed) are built with the same
# flags; mlir-opt-22 and Python, built without the sanitizer runtime, get it
# preloaded (lit.cfg.py: %sanitizer_cmake_flags, %sanitizer_preload). The
# compiled modules are Tide's generated code and are not instrumented; the
# tools that compile and run them are. The fuzz targets carry their own
# (static) runtime, as in the normal build.
#
#   scripts/sanitize.sh            # after scripts/bootstrap.sh installed the packages
#   JOBS=2 scripts/sanitize.sh     # at most 2 jobs (compiles, tests, builds inside tests)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build-asan}
jobs=()
if [ -n "${JOBS:-}" ]; then
  jobs=(-j "$JOBS")
  export CMAKE_BUILD_PARALLEL_LEVEL=$JOBS
fi
start=$(date +%s)
flags="-O1 -g1 -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
# The shared sanitizer runtime, so that Tide's shared libraries (the GPU
# runtime, the C API) link with -z defs and share one runtime with the tools.
runtime_dir=$(dirname "$(clang-22 -print-file-name=libclang_rt.asan-x86_64.so)")
# An rpath to it too: tests that run a tool with an environment of their own
# (a fake old driver, no LD_LIBRARY_PATH) still find the runtime.
link="-fsanitize=address,undefined -shared-libsan -Wl,-rpath,$runtime_dir"
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache); fi
# Configured every time: an existing build tree gets the current flags
# (its cache kept the link flags of the run that made it).
cmake -G Ninja -S . -B "$BUILD_DIR" \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
  -DLLVM_USE_LINKER=lld \
  -DCMAKE_C_FLAGS_RELEASE="$flags" -DCMAKE_CXX_FLAGS_RELEASE="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="$link" -DCMAKE_SHARED_LINKER_FLAGS="$link" \
  -DCMAKE_MODULE_LINKER_FLAGS="$link" \
  -DPython3_EXECUTABLE=/usr/bin/python3 \
  "${launcher[@]}"
# The build runs instrumented tools (tide-compile makes tide-calibrate's
# kernels): they load the shared sanitizer runtime.
export LD_LIBRARY_PATH="$runtime_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# all, and the reference docs in the build tree (docs/generated-docs.test).
cmake --build "$BUILD_DIR" "${jobs[@]}" --target all tide-docgen
built=$(date +%s)
echo "sanitize.sh: build done in $((built - start)) s"
# The test venv (ONNX Runtime, the Python package's build backend and pytest),
# as the normal build has it; without network access the tests that need it
# are reported UNSUPPORTED.
scripts/venv.sh "$BUILD_DIR/venv"
# allow_user_poisoning=0: LLVM's BumpPtrAllocator poisons its free space in
# Tide's instrumented code, but libMLIR.so (Debian's, not instrumented) fills
# the same allocator without unpoisoning: every such write would be a false
# report. Real heap errors are still caught. allocator_may_return_null=1:
# an allocation too large for the machine returns null, as glibc's malloc
# does, so that Tide's own check reports it (the host out-of-memory tests).
export ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:detect_odr_violation=0:allow_user_poisoning=0:allocator_may_return_null=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export LSAN_OPTIONS=suppressions=$PWD/scripts/lsan.supp:print_suppressions=0
rc=0
/usr/lib/llvm-22/bin/lit -sv "${jobs[@]}" "$BUILD_DIR/test" || rc=$?
echo "sanitize.sh: tests done in $(($(date +%s) - built)) s (build and tests: $(($(date +%s) - start)) s)"
exit $rc
