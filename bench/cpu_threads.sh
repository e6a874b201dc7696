#!/usr/bin/env bash
# Parallel CPU code on a many-core host (the GPU machine's 16 cores): each
# function of bench/cpu_threads.mlir timed by tide-run at TIDE_NUM_THREADS =
# 1, 2, 4, 8 and all cores (min and median of 20 calls, random inputs).
#
# Here:   build/bin/tide-compile bench/cpu_threads.mlir --target=cpu \
#             -o build/threads/threads.so --no-remarks
#         cp /usr/lib/x86_64-linux-gnu/libomp.so.5 build/threads/
#         (the module finds libomp.so.5 beside it: run path $ORIGIN)
# There:  bash bench/cpu_threads.sh   (carrying build/bin/tide-run, build/threads)
#         FUNCTIONS="sum expsum" bash bench/cpu_threads.sh   (some functions only)
set -uo pipefail
cd "$(dirname "$0")/.."
module=${1:-build/threads/threads.so}
cores=$(nproc)
echo "host: $cores cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'))"
for f in ${FUNCTIONS:-expf rowsum softmax softmax_big layernorm sum expsum}; do
  for t in 1 2 4 8 "$cores"; do
    echo "$f threads=$t: $(TIDE_NUM_THREADS=$t build/bin/tide-run "$module" --entry=$f \
      --random=1 --repeat=20 2>&1 | tail -1)"
  done
done
