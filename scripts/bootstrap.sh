#!/usr/bin/env bash
# Installs what Tide needs on Debian 12 (as root, only what is missing),
# then configures and builds Tide in ./build (Release, clang-22 + lld).
#
#   scripts/bootstrap.sh            # install + build
#   BUILD_DIR=b BUILD_TYPE=Debug scripts/bootstrap.sh
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  cmake ninja-build python3 python3-numpy ccache
  clang-22 libclang-rt-22-dev lld-22 llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  clang-format-22 libgtest-dev libopenblas-dev libopenblas0-pthread libopenblas0-openmp libdnnl-dev libomp-22-dev
  libonnx-dev libprotobuf-dev protobuf-compiler libonnx-testdata python3-onnx python3-venv
  python3-dev
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "bootstrap: installing ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

BUILD_DIR=${BUILD_DIR:-build}
BUILD_TYPE=${BUILD_TYPE:-Release}
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache); fi
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  cmake -G Ninja -S . -B "$BUILD_DIR" \
    -DCMAKE_BUILD_TYPE="$BUILD_TYPE" \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DLLVM_USE_LINKER=lld \
    -DPython3_EXECUTABLE=/usr/bin/python3 \
    "${launcher[@]}"
fi
cmake --build "$BUILD_DIR"
# The test venv (ONNX Runtime, pinned): see scripts/venv.sh.
scripts/venv.sh "$BUILD_DIR/venv"
