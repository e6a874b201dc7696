#!/usr/bin/env bash
# Creates the venv of the CPU benchmark's peers (bench/requirements.txt:
# ONNX Runtime, IREE, JAX, pinned) for bench/cpu.py:
#
#   bench/venv.sh [VENV_DIR]          # default build/bench-venv
#   build/bench-venv/bin/python bench/cpu.py
#
# Needs network access to PyPI (about 400 MB of wheels); not used by the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${1:-build/bench-venv}
if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c "import onnxruntime, jax, iree.compiler, iree.runtime, onnx" 2>/dev/null; then
  exit 0
fi
rm -rf "$VENV"
/usr/bin/python3 -m venv "$VENV"
"$VENV/bin/pip" install -q --disable-pip-version-check --no-deps -r bench/requirements.txt
"$VENV/bin/pip" check --disable-pip-version-check
