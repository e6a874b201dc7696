#!/usr/bin/env bash
# On the GPU machine (built here, carried there): Tide's GPU runtime test
# suite, the same under compute-sanitizer, and host-to-device copy bandwidth
# of Tide's runtime against PyTorch's pinned and pageable copies.
#
#   carry: build/bin/tide-gpu-runtime-test build/lib/libTideCudaRuntime.so
set -uo pipefail
cd "$(dirname "$0")/.."
BIN=build/bin/tide-gpu-runtime-test
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "=== runtime tests"
$BIN
echo "=== runtime tests under compute-sanitizer"
timeout 120 compute-sanitizer --error-exitcode=3 $BIN > /tmp/sanitizer.log 2>&1
rc=$?
grep -E "Program hit|ERROR SUMMARY|passed" /tmp/sanitizer.log | sort | uniq -c
echo "sanitizer exit: $rc"
echo "=== host-to-device bandwidth: Tide (pageable source, pinned staging)"
$BIN --bench
$BIN --bench
echo "=== host-to-device bandwidth: PyTorch"
python3 bench/gpu_h2d.py
echo "=== profile sample (TIDE_PROFILE=1)"
TIDE_PROFILE=1 timeout 60 $BIN 2>&1 | tail -12
