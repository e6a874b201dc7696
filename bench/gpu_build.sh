#!/usr/bin/env bash
# On the build machine: compile the GPU benchmark modules (bench/gpu/*.mlir,
# target h200) into build/gpu-bench, to be carried to the GPU machine.
# Host code is built for CPU (default x86-64-v3): the GPU machine's host may
# lack extensions of this machine's CPU, and tide-run refuses such a module.
set -euo pipefail
cpu=${CPU:-x86-64-v3}
cd "$(dirname "$0")/.."
mkdir -p build/gpu-bench
for m in bench/gpu/*.mlir; do
  name=$(basename "$m" .mlir)
  build/bin/tide-compile "$m" --target=h200 --cpu="$cpu" --no-remarks -o "build/gpu-bench/$name.so"
done
ls -la build/gpu-bench
# The out-of-memory test's module (test/GPU/out-of-memory.py, bench/gpu.sh oom).
mkdir -p build/gpu-oom
build/bin/tide-compile test/GPU/Inputs/oom.mlir --target=h200 --cpu="$cpu" --no-remarks -o build/gpu-oom/oom.so
# A module with a 1 MiB constant (test/GPU/constants-unload.py: unloading
# gives its GPU copy back).
python3 test/GPU/constants-unload.py make build/gpu-oom/constants.mlir
build/bin/tide-compile build/gpu-oom/constants.mlir --target=h200 --cpu="$cpu" --no-remarks \
  -o build/gpu-oom/constants.so
rm build/gpu-oom/constants.mlir
ls -la build/gpu-oom
