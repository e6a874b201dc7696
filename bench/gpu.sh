#!/usr/bin/env bash
# Everything GPU, on the GPU machine, in one run (built on the build machine):
#   bash bench/gpu_build.sh        # GPU benchmark modules -> build/gpu-bench
#   python3 test/Runtime/numerics.py --tide-bin build/bin --tmp build/gpu-suite \
#       --target=h200 --build-only --compile-flag=--cpu=x86-64-v3
#       # the GPU suite's modules -> build/gpu-suite (host code for any
#       # x86-64-v3 CPU: the GPU machine's host may differ from this one)
# then, carrying build/bin/tide-run build/bin/tide-gpu-runtime-test
# build/lib/libTideCudaRuntime.so build/lib/libTideRunnerCAPI.so
# build/gpu-suite build/gpu-bench build/gpu-oom, and build/lib/libomp.so.5
# (GPU modules' host loops):
#   bash bench/gpu.sh [runtime] [attention] [oom] [model-oom] [suite] [sanitizer] [racecheck] [synccheck] [sanitizers] [bench]
#   (default: runtime attention oom suite sanitizer bench; attention also needs
#   build/bin/tide-attention-kernel-test)
# sanitizer is the suite under compute-sanitizer's memcheck; racecheck and
# synccheck the suite under those tools; sanitizers all three in a row.
# oom: out of GPU memory is an error for the caller and the process stays
# usable (test/GPU/out-of-memory.py, under TIDE_GPU_MEMORY_LIMIT).
# model-oom (not in the default list): the same with a whole model
# (test/GPU/model-out-of-memory.py: ResNet-50 from
# `bench/gpu_models.py build --only resnet50_f32_`, the Python package built
# there into $TIDE_PY, default /tmp/tide-py, with PyTorch).
set -uo pipefail
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH="$PWD/build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
parts="${*:-runtime attention oom suite sanitizer bench}"
parts="${parts//sanitizers/sanitizer racecheck synccheck}"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
rc=0
for part in $parts; do
  case $part in
  runtime)
    echo "=== runtime tests (tide-gpu-runtime-test)"
    build/bin/tide-gpu-runtime-test || rc=1
    echo "=== host-to-device bandwidth of the runtime alone"
    build/bin/tide-gpu-runtime-test --bench ;;
  attention)
    echo "=== the fused attention kernels against a CPU reference, then timed"
    build/bin/tide-attention-kernel-test || rc=1 ;;
  oom)
    echo "=== out of GPU memory (TIDE_GPU_MEMORY_LIMIT): an error, and later calls work"
    python3 test/GPU/out-of-memory.py --tide-bin build/bin --lib build/lib \
      --module build/gpu-oom/oom.so || rc=1
    echo "=== unloading a GPU module gives its constants' GPU copies back"
    python3 test/GPU/constants-unload.py run --lib build/lib \
      --module build/gpu-oom/constants.so || rc=1 ;;
  model-oom)
    echo "=== a model larger than the GPU memory Tide may use (ResNet-50 under TIDE_GPU_MEMORY_LIMIT)"
    PYTHONPATH="${TIDE_PY:-/tmp/tide-py}" python3 test/GPU/model-out-of-memory.py build/gpu-models || rc=1 ;;
  suite)
    echo "=== GPU suite (every op and dtype, the examples, mixed modules, resident tensors, bad inputs)"
    bash test/GPU/run-suite.sh || rc=1 ;;
  sanitizer)
    echo "=== GPU suite under compute-sanitizer (memcheck)"
    bash test/GPU/run-suite.sh \
      --wrap "compute-sanitizer --tool memcheck --require-cuda-init=no --error-exitcode=99 --print-limit=10" || rc=1 ;;
  racecheck)
    echo "=== GPU suite under compute-sanitizer (racecheck: shared-memory data races)"
    bash test/GPU/run-suite.sh \
      --wrap "compute-sanitizer --tool racecheck --require-cuda-init=no --error-exitcode=99 --print-limit=10" || rc=1 ;;
  synccheck)
    echo "=== GPU suite under compute-sanitizer (synccheck: barrier misuse)"
    bash test/GPU/run-suite.sh \
      --wrap "compute-sanitizer --tool synccheck --require-cuda-init=no --error-exitcode=99 --print-limit=10" || rc=1 ;;
  bench)
    echo "=== benchmarks against PyTorch"
    python3 bench/gpu_bench.py build/gpu-bench || rc=1 ;;
  esac
done
exit $rc
