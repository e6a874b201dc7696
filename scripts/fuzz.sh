#!/usr/bin/env bash
# Runs each libFuzzer target (test/fuzz/*.cpp, built into build/bin by
# cmake --build build) for SECONDS (default 600), from the seed corpus in
# test/fuzz/corpus into a growing corpus in build/fuzz-corpus. A crash leaves
# its input as build/fuzz-corpus/crash-*; fix it and add the input to
# test/fuzz/corpus/<target>/ as a regression case (and to fuzz.test).
# With --merge, the inputs of the run that reach code the seed corpus does
# not are then added to test/fuzz/corpus/<target> (libFuzzer's -merge=1),
# which fuzz.test replays on every run.
#
#   scripts/fuzz.sh [--merge] [SECONDS] [TARGET...]   (targets: npy metadata onnx mlir target)
set -euo pipefail
cd "$(dirname "$0")/.."
merge=0
if [[ "${1:-}" == "--merge" ]]; then
  merge=1
  shift
fi
seconds=${1:-600}
shift || true
targets=("${@:-npy metadata onnx mlir target}")
rc=0
for t in ${targets[@]}; do
  mkdir -p "build/fuzz-corpus/$t"
  echo "=== tide-fuzz-$t for $seconds s"
  (cd build/fuzz-corpus && "../bin/tide-fuzz-$t" -max_total_time="$seconds" \
     -print_final_stats=1 -rss_limit_mb=3072 -timeout=60 "$t" "../../test/fuzz/corpus/$t") \
    2>&1 | grep -E "^(#[0-9]+ +DONE|Done|stat::number_of_executed_units|==[0-9]+==|SUMMARY|artifact_prefix)" || rc=1
  if [[ $merge == 1 && $rc == 0 ]]; then
    before=$(ls "test/fuzz/corpus/$t" | wc -l)
    "build/bin/tide-fuzz-$t" -merge=1 -rss_limit_mb=3072 -timeout=60 \
      "test/fuzz/corpus/$t" "build/fuzz-corpus/$t" > "build/fuzz-corpus/merge-$t.log" 2>&1 || rc=1
    echo "merged: $before -> $(ls "test/fuzz/corpus/$t" | wc -l) inputs in test/fuzz/corpus/$t"
  fi
done
exit $rc
