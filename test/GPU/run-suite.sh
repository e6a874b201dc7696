#!/usr/bin/env bash
# The GPU test suite, on the GPU machine (no LLVM there): runs the modules that
#   python3 test/Runtime/numerics.py --tide-bin build/bin --tmp build/gpu-suite \
#       --target=h200 --build-only --compile-flag=--cpu=x86-64-v3
# compiled on the build machine (every op and dtype, the examples, bad inputs:
# all placed on the GPU), against NumPy references, then under
# compute-sanitizer. Prints `N passed, N failed`.
#
#   carry: build/bin/tide-run build/lib/libTideCudaRuntime.so build/gpu-suite
#          (and build/bin/tide-gpu-runtime-test for the runtime's own tests)
set -uo pipefail
cd "$(dirname "$0")/../.."
# build/gpu-suite/lib: the libraries the modules load that such a machine lacks
# (libomp for host loops across threads; numerics.py --build-only copies them).
export LD_LIBRARY_PATH="$PWD/build/lib:$PWD/build/gpu-suite/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# cuBLAS: the CUDA toolkit's, or the one PyTorch's wheels ship.
if [ -z "${TIDE_CUBLAS:-}" ]; then
  for f in /usr/local/cuda/lib64/libcublas.so.1[23] \
           $(python3 -c 'import glob, os, nvidia; print(" ".join(f for p in nvidia.__path__ for f in glob.glob(os.path.join(p, "cublas", "lib", "libcublas.so.1[23]"))))' 2>/dev/null); do
    [ -e "$f" ] && export TIDE_CUBLAS="$f" && break
  done
fi
echo "cuBLAS: ${TIDE_CUBLAS:-not found}"
# cuDNN likewise (convolutions).
if [ -z "${TIDE_CUDNN:-}" ]; then
  for f in /usr/local/cuda/lib64/libcudnn.so.9 \
           $(python3 -c 'import glob, os, nvidia; print(" ".join(f for p in nvidia.__path__ for f in glob.glob(os.path.join(p, "cudnn", "lib", "libcudnn.so.9"))))' 2>/dev/null); do
    [ -e "$f" ] && export TIDE_CUDNN="$f" && break
  done
fi
echo "cuDNN: ${TIDE_CUDNN:-not found}"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
JOBS=$(nproc)
echo "=== GPU suite"
python3 test/Runtime/numerics.py --tide-bin build/bin --tmp build/gpu-suite \
  --target=h200 --prebuilt -j "$JOBS" "$@"
