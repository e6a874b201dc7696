#!/usr/bin/env bash
# The main job: place the seed examples (shared/seeds) on the targets that
# reproduce the original reports, and print each decision with its reason.
set -euo pipefail
cd "$(dirname "$0")/.."
OPT=${BUILD_DIR:-build}/bin/tide-opt

run() {
  local file=$1 target=$2 policy=$3
  echo "=== $file on $target (policy=$policy)"
  "$OPT" "examples/$file" -o /dev/null \
    --tide-place-pipeline="target=$target policy=$policy remarks=false report=text"
  echo
}

run exp_f32.mlir theano-0.7 soft
run exp_f64.mlir theano-0.7 soft
run mlp_f32.mlir tensorflow-0.7 soft
run mlp_f64.mlir tensorflow-0.7 soft
run mlp_f64.mlir rtx3090 cost
run mlp_f64.mlir h200 cost
run identity.mlir h200 soft
