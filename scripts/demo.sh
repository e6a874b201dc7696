#!/usr/bin/env bash
# The main job: place the seed examples (docs/seeds) on the targets that
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

# Compile and run on this machine's CPU: a self-describing shared library,
# called by tide-run (which needs no LLVM or MLIR).
BIN=${BUILD_DIR:-build}/bin
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "=== compile examples/exp_f64.mlir for the CPU and run it"
"$BIN/tide-compile" examples/exp_f64.mlir --target=cpu -o "$out/exp_f64.so"
"$BIN/tide-run" "$out/exp_f64.so" --list
"$BIN/tide-run" "$out/exp_f64.so" --random=1 --repeat=20
echo
echo "=== the MLP in f32 (256x784 batch, random weights)"
"$BIN/tide-run" examples/mlp_f32.mlir --target=cpu --random=2
echo
echo "=== the identity over (b,3,448,448) batches: one compiled function, no copy"
"$BIN/tide-compile" examples/identity.mlir --target=cpu -o "$out/identity.so"
"$BIN/tide-run" "$out/identity.so" --list
for b in 1 8 32; do
  /usr/bin/python3 -c "import numpy as np; np.save('$out/x.npy', np.random.default_rng($b).random(($b,3,448,448), dtype=np.float32))"
  "$BIN/tide-run" "$out/identity.so" --input="$out/x.npy" --output="$out/y.npy" --repeat=10
  /usr/bin/python3 -c "import numpy as np; x=np.load('$out/x.npy'); y=np.load('$out/y.npy'); assert (x==y).all(); print('batch $b: output == input', y.shape)"
done
echo
# The same program for the H200: exp runs on the GPU there. Compiling needs the
# CUDA toolkit (ptxas), not a GPU; with --cpu-fallback the library also runs
# where no GPU can be used, and says so.
CUDA_ROOT=${TIDE_CUDA_ROOT:-/usr/local/cuda}
if [ -x "$CUDA_ROOT/bin/ptxas" ] && [ -e "${BUILD_DIR:-build}/lib/libTideCudaRuntime.so" ]; then
  echo "=== compile examples/exp_f64.mlir for the H200 (GPU code checked by ptxas), with a CPU fallback"
  "$BIN/tide-compile" examples/exp_f64.mlir --target=h200 --cpu-fallback --no-remarks -o "$out/exp_gpu.so"
  "$BIN/tide-run" "$out/exp_gpu.so" --list
  "$BIN/tide-run" "$out/exp_gpu.so" --random=1
else
  echo "=== (no CUDA toolkit at $CUDA_ROOT: GPU compilation skipped)"
fi
