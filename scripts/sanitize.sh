#!/usr/bin/env bash
# ASan + UBSan build of Tide in build-asan/ (Debug-free -O1 with frame
# pointers), then the lit suite there: every pass and tool test, the unit
# tests (GoogleTest) and the CPU numerics suite against NumPy. Any sanitizer
# report fails the test that triggered it (halt_on_error).
#
# Left out: tests that load Tide's libraries into programs built without the
# sanitizer runtime (stock mlir-opt-22 plugins, the install-and-embed
# consumers); they run in the normal build.
#
#   scripts/sanitize.sh            # after scripts/bootstrap.sh installed the packages
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build-asan}
flags="-O1 -g1 -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache); fi
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  cmake -G Ninja -S . -B "$BUILD_DIR" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DLLVM_USE_LINKER=lld \
    -DCMAKE_C_FLAGS_RELEASE="$flags" -DCMAKE_CXX_FLAGS_RELEASE="$flags" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DCMAKE_MODULE_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DPython3_EXECUTABLE=/usr/bin/python3 \
    "${launcher[@]}"
fi
cmake --build "$BUILD_DIR"
export ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:detect_odr_violation=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export LSAN_OPTIONS=suppressions=$PWD/scripts/lsan.supp:print_suppressions=0
/usr/lib/llvm-22/bin/lit -sv --filter-out 'Plugins/|Embed/' "$BUILD_DIR/test"
