#!/usr/bin/env bash
# Differential random testing on a GPU machine that has only the NVIDIA driver
# and Python 3 with NumPy (no LLVM, no CUDA toolkit, no cuBLAS).
#
# Here (the build machine: LLVM, the CUDA toolkit's ptxas, a Tide build):
#   test/random/gpu-batch.sh pack OUT.tar.gz [COUNT] [FIRST_SEED] [PER_MODULE]
# builds COUNT random programs for the H200 (diff.py --target=h200
# --build-only: modules with their GPU code, the program descriptions and
# their inputs) and packs them with tide-run, the libraries the modules load
# (Tide's GPU runtime; OpenBLAS and its Fortran runtime, or libomp, when CPU
# parts use them; glibc's own libraries are the machine's), gen.py,
# diff.py and this script into one tarball, refused above 64 MiB.
# Host code is built for x86-64-v3 (AVX2, FMA: any recent x86-64), not for
# this machine's CPU, which the GPU machine's may not cover (CPU=... sets
# another). Everything is placed as the policies decide; with GEMM_ON_CPU=1 float
# matmuls are pinned to the CPU (--gemm-on-cpu), for a machine without cuBLAS.
# The run finds cuBLAS and cuDNN in /usr/local/cuda or in PyTorch's NVIDIA
# wheels (TIDE_CUBLAS and TIDE_CUDNN, when set, win).
#
# There:
#   tar xzf OUT.tar.gz && bash tide-random-gpu/gpu-batch.sh run [diff.py options]
# runs every function with tide-run and compares it with gen.py's NumPy
# reference; prints `N programs, N passed, N mismatches, ...`, writes each
# failing case (case.json, inputs.npz, case.mlir) to tide-random-gpu/failures/
# and packs them into tide-random-gpu/failures.tar.gz to bring back. A case
# is reduced where it can be compiled and run: `reduce.py CASE --tide-bin
# build/bin --target cpu` here when it fails on the CPU too, else on a
# machine with both the toolkit and a GPU.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cmd=${1:-}
case $cmd in
pack)
  out=${2:?usage: gpu-batch.sh pack OUT.tar.gz [COUNT] [FIRST_SEED] [PER_MODULE]}
  count=${3:-2000}
  seed=${4:-30000}
  per_module=${5:-100}
  src=$(cd "$here/../.." && pwd)
  bin=${TIDE_BIN:-$src/build/bin}
  lib=$(cd "$bin/../lib" && pwd)
  python=${PYTHON:-/usr/bin/python3}
  stage=$(mktemp -d "${TMPDIR:-/tmp}/tide-gpu-batch.XXXXXX")
  trap 'rm -rf "$stage"' EXIT
  dir=$stage/tide-random-gpu
  mkdir -p "$dir/bin" "$dir/lib"
  # Smaller values (20,000 elements at most) keep the inputs small.
  "$python" "$src/test/random/diff.py" --tide-bin "$bin" --work "$dir/modules" \
    --target h200 --cpu "${CPU:-x86-64-v3}" --build-only ${GEMM_ON_CPU:+--gemm-on-cpu} --seed "$seed" --count "$count" \
    --per-module "$per_module" --max-elems 20000
  cp "$src/test/random/gen.py" "$src/test/random/diff.py" "$src/test/random/gpu-batch.sh" "$dir/"
  cp "$bin/tide-run" "$dir/bin/"
  # The libraries the modules and tide-run load, other than the C and C++
  # runtimes and the driver (the machine has those).
  for f in "$bin/tide-run" "$dir"/modules/*/*.so; do
    ldd "$f" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }'
  done | sort -u | while read -r so; do
    case $(basename "$so") in
      libc.so*|libm.so*|libmvec.so*|libstdc++.so*|libgcc_s.so*|ld-linux*|libdl.so*|libpthread.so*|librt.so*|libcuda.so*) ;;
      *) cp -L "$so" "$dir/lib/" ;;
    esac
  done
  # Nothing may still be missing.
  if LD_LIBRARY_PATH="$dir/lib" ldd "$dir"/modules/*/*.so | grep -q "not found"; then
    echo "gpu-batch.sh: a module needs a library that was not found:" >&2
    LD_LIBRARY_PATH="$dir/lib" ldd "$dir"/modules/*/*.so | grep "not found" | sort -u >&2
    exit 1
  fi
  find "$dir/modules" \( -name '*.mlir' -o -name '*.h' \) -delete
  tar -C "$stage" -czf "$out" tide-random-gpu
  size=$(stat -c %s "$out")
  echo "$out: $(du -h "$out" | cut -f1), $count programs (seeds $seed..), libraries: $(ls "$dir/lib" | tr '\n' ' ')"
  if [ "$size" -gt $((64 * 1024 * 1024)) ]; then
    echo "gpu-batch.sh: $out is larger than 64 MiB; use a smaller COUNT" >&2
    exit 1
  fi
  ;;
run)
  shift
  export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
  wheel_lib() {
    python3 -c 'import glob, os, sys, nvidia; print(" ".join(f for p in nvidia.__path__ for f in glob.glob(os.path.join(p, sys.argv[1], "lib", sys.argv[2]))))' "$@" 2>/dev/null || true
  }
  if [ -z "${TIDE_CUBLAS:-}" ]; then
    for f in /usr/local/cuda/lib64/libcublas.so.1[23] $(wheel_lib cublas 'libcublas.so.1[23]'); do
      [ -e "$f" ] && export TIDE_CUBLAS="$f" && break
    done
  fi
  if [ -z "${TIDE_CUDNN:-}" ]; then
    for f in /usr/local/cuda/lib64/libcudnn.so.9 $(wheel_lib cudnn libcudnn.so.9); do
      [ -e "$f" ] && export TIDE_CUDNN="$f" && export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$(dirname "$f")" && break
    done
  fi
  echo "cuBLAS: ${TIDE_CUBLAS:-not found}; cuDNN: ${TIDE_CUDNN:-not found}"
  rm -rf "$here/failures"
  rc=0
  python3 "$here/diff.py" --prebuilt --work "$here/modules" --tide-bin "$here/bin" \
    --failures "$here/failures" "$@" || rc=$?
  if [ -d "$here/failures" ]; then
    tar -C "$here" -czf "$here/failures.tar.gz" failures
    echo "failing cases: $here/failures.tar.gz"
  fi
  exit $rc
  ;;
*)
  sed -n '2,25p' "$0" >&2
  exit 2
  ;;
esac
