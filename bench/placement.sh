#!/usr/bin/env bash
# Placement speed: placement + transfer insertion on a generated 100,000-op
# function, against parsing the same file. Prints medians of 5 runs (seconds)
# and the ratio. Goal: under 1 s and within 3x of parse time.
#
#   bench/placement.sh [N_OPS] [POLICY] [TARGET]
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-100000}; POLICY=${2:-soft}; TARGET=${3:-h200}
OPT=${BUILD_DIR:-build}/bin/tide-opt
file=$(mktemp --suffix=.mlir)
trap 'rm -f "$file"' EXIT
python3 bench/gen_graph.py "$N" > "$file"

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# --mlir-timing separates parsing ("Parser") from each pass.
parse=(); place=(); transfers=()
for i in 1 2 3 4 5; do
  out=$("$OPT" "$file" -o /dev/null --mlir-disable-threading --mlir-timing \
    --tide-place-devices="target=$TARGET policy=$POLICY remarks=false" \
    --tide-insert-transfers --tide-optimize-transfers 2>&1)
  parse+=("$(echo "$out" | awk '/ Parser$/ {print $1}')")
  place+=("$(echo "$out" | awk '/ PlaceDevicesPass$/ {print $1}')")
  transfers+=("$(echo "$out" | awk '/ (InsertTransfersPass|OptimizeTransfersPass)$/ {s+=$1} END {print s}')")
done
p=$(printf '%s\n' "${parse[@]}" | median)
q=$(printf '%s\n' "${place[@]}" | median)
t=$(printf '%s\n' "${transfers[@]}" | median)
awk -v n="$N" -v pol="$POLICY" -v tg="$TARGET" -v p="$p" -v q="$q" -v t="$t" 'BEGIN {
  printf "ops=%d target=%s policy=%s parse=%.3fs place=%.3fs transfers=%.3fs place+transfers=%.3fs ratio=%.2fx\n",
    n, tg, pol, p, q, t, q + t, (q + t) / p }'
