#!/usr/bin/env bash
# On the build machine: compile the GPU benchmark modules (bench/gpu/*.mlir,
# target h200) into build/gpu-bench, to be carried to the GPU machine.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p build/gpu-bench
for m in bench/gpu/*.mlir; do
  name=$(basename "$m" .mlir)
  build/bin/tide-compile "$m" --target=h200 --no-remarks -o "build/gpu-bench/$name.so"
done
ls -la build/gpu-bench
