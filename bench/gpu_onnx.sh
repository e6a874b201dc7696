#!/usr/bin/env bash
# ONNX on the GPU machine: the conformance tests and the encoder, compiled
# here for the H200 target (see docs/onnx.md), run there.
#
# Here:   /usr/bin/python3 test/Frontend/ONNX/conformance.py --tide-bin build/bin \
#             --target h200 --cpu x86-64-v3 --tmp build/onnx-h200 --build-only
#         (plus build/onnx-h200/encoder: see docs/onnx.md), then
#         tar czf build/onnx-h200.tgz -C build onnx-h200
# There:  bash bench/gpu_onnx.sh   (carrying build/bin/tide-run,
#         build/lib/libTideCudaRuntime.so, build/onnx-h200.tgz)
# Writes into $OUT (or build/gpu-onnx-out): the results, the H200 expectations
# file and the per-op report.
set -uo pipefail
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH="$PWD/build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
OUT=${OUT:-build/gpu-onnx-out}
mkdir -p "$OUT"
if [ -f build/onnx-h200.tgz ]; then
  tar xzf build/onnx-h200.tgz -C build
fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
python3 test/Frontend/ONNX/conformance.py --tide-bin build/bin --target h200 \
  --tmp build/onnx-h200 --run-only --jobs 8 --results "$OUT/results-h200.json" \
  --expect "$OUT/expectations-h200.txt" --write-expectations \
  --report "$OUT/onnx-conformance-h200.md" -v | tail -60
E=build/onnx-h200/encoder
if [ -f "$E/enc_gpu.so" ]; then
  for b in 2 3; do
    build/bin/tide-run "$E/enc_gpu.so" --input="$E/ids_b$b.npy" --input="$E/mask_b$b.npy" \
      --output="$E/tide_b${b}_0.npy" --output="$E/tide_b${b}_1.npy"
  done
  python3 "$E/compare.py" 1e-4 1e-5 "$E/tide_b2_0.npy" "$E/ort_b2_0.npy" "$E/tide_b2_1.npy" \
    "$E/ort_b2_1.npy" "$E/tide_b3_0.npy" "$E/ort_b3_0.npy" "$E/tide_b3_1.npy" "$E/ort_b3_1.npy"
  build/bin/tide-run "$E/enc_gpu.so" --input="$E/ids_b2.npy" --input="$E/mask_b2.npy" --repeat=50 | tail -1
fi
