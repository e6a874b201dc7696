#!/usr/bin/env bash
# Creates the test venv (build/venv, over Debian's site packages: NumPy, onnx)
# with the pinned PyPI packages of test/requirements.txt (ONNX Runtime, the
# reference the ONNX model tests compare with; scikit-build-core, nanobind and
# pytest for the Python package in python/). Without network access it warns
# and leaves no venv; the tests that need it are then reported as UNSUPPORTED
# by lit. The Python package itself is installed into it by its lit test
# (test/python/package.test), against the current build.
#
#   scripts/venv.sh [VENV_DIR]
set -uo pipefail
cd "$(dirname "$0")/.."
VENV=${1:-build/venv}
if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c "import onnxruntime, pytest, nanobind, scikit_build_core, ml_dtypes" 2>/dev/null; then
  exit 0
fi
rm -rf "$VENV"
if ! /usr/bin/python3 -m venv --system-site-packages "$VENV" ||
   ! "$VENV/bin/pip" install -q --disable-pip-version-check --no-deps \
       -r test/requirements.txt; then
  echo "venv: warning: could not install test/requirements.txt into $VENV;" \
       "the ONNX Runtime comparisons and the Python package tests will be skipped" >&2
  rm -rf "$VENV"
fi
exit 0
