#!/usr/bin/env bash
# Fails when C/C++ lines changed since the commit named in .ci/format-base are
# not formatted by .clang-format (clang-format-22; TableGen is not formatted).
# Fix: git clang-format-22 $(cat .ci/format-base)
set -euo pipefail
cd "$(dirname "$0")/.."
base=$(cat .ci/format-base)
if ! git rev-parse -q --verify "$base^{commit}" >/dev/null; then
  echo "check-format: base commit $base is not in this clone; skipped"
  exit 0
fi
out=$(git-clang-format-22 --binary clang-format-22 --extensions c,cpp,h --diff \
  "$base" -- dialects include lib tools unittests examples python 2>&1) || true
case "$out" in
  "" | *"no modified files to format"* | *"did not modify any files"*)
    echo "check-format: changed lines are formatted"
    exit 0 ;;
esac
printf '%s\n' "$out"
echo "check-format: the lines above are not formatted; run: git clang-format-22 $base"
exit 1
