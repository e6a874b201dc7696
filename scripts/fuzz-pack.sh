#!/usr/bin/env bash
# Stages the fuzz targets for a machine without LLVM (the GPU machine's
# 16-core host), in two parts that each fit one device call's carry (64 MiB):
#
#   scripts/fuzz-pack.sh BUILD_DIR STAGE_DIR [CORPUS_DIR]
#
# STAGE_DIR/a/libA.tar.xz: libLLVM (the largest library) alone;
# STAGE_DIR/b/libB.tar.xz: every other shared library the targets load that
# is not part of glibc, and STAGE_DIR/b/fz.tar.xz: the targets (bin/) and,
# when given, a corpus directory of earlier runs (corpus/TARGET/...).
# There: tar xJf each into one directory FZ (FZ/libA, FZ/libB, FZ/bin,
# FZ/corpus) and run scripts/fuzz-cores.py with FZ set.
set -euo pipefail
build=${1:?build dir}
stage=${2:?stage dir}
corpus=${3:-}
rm -rf "$stage" && mkdir -p "$stage/a" "$stage/b" "$stage/tmp/libA" "$stage/tmp/libB" "$stage/tmp/bin"
targets=(npy metadata onnx target mlir)
for t in "${targets[@]}"; do
  cp "$build/bin/tide-fuzz-$t" "$stage/tmp/bin/"
done
# The libraries each target loads, less glibc's (the machine's own).
ldd "${targets[@]/#/$build/bin/tide-fuzz-}" | awk '/=> \// {print $3}' | sort -u |
  grep -Ev '/(libc|libm|libpthread|libdl|librt|ld-linux[^/]*|libgcc_s|libstdc\+\+)\.so' |
  while read -r lib; do
    case "$(basename "$lib")" in
    libLLVM*) cp -L "$lib" "$stage/tmp/libA/" ;;
    *) cp -L "$lib" "$stage/tmp/libB/" ;;
    esac
  done
XZ_OPT=-9T2 tar -C "$stage/tmp" -cJf "$stage/a/libA.tar.xz" libA
XZ_OPT=-9T2 tar -C "$stage/tmp" -cJf "$stage/b/libB.tar.xz" libB
if [ -n "$corpus" ]; then
  cp -r "$corpus" "$stage/tmp/corpus"
  XZ_OPT=-9T2 tar -C "$stage/tmp" -cJf "$stage/b/fz.tar.xz" bin corpus
else
  XZ_OPT=-9T2 tar -C "$stage/tmp" -cJf "$stage/b/fz.tar.xz" bin
fi
rm -rf "$stage/tmp"
du -sh "$stage/a" "$stage/b"
