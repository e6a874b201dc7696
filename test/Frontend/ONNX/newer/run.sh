#!/usr/bin/env bash
# Runs Tide's ONNX conformance over the node tests of a newer ONNX than
# Debian's (default 1.23.2: opsets up to 28, 1,884 tests), generated here
# from that package's test cases (PyPI; a venv of its own under WORK):
#
#   test/Frontend/ONNX/newer/run.sh [WORK] [ONNX_VERSION]
#
# Writes WORK/data (the tests), WORK/results.json and the summary on stdout.
# Not part of README's test command (about 15 minutes on 2 cores).
set -euo pipefail
cd "$(dirname "$0")/../../../.."
work=${1:-build/onnx-newer}
version=${2:-1.23.2}
mkdir -p "$work"
if [ ! -x "$work/venv/bin/python" ]; then
  python3 -m venv "$work/venv"
  "$work/venv/bin/pip" install -q "onnx==$version" "numpy==2.4.6"
fi
if [ ! -d "$work/data/node" ]; then
  "$work/venv/bin/python" test/Frontend/ONNX/newer/gen_node_data.py "$work/data" > "$work/gen.log" 2>&1
fi
/usr/bin/python3 test/Frontend/ONNX/conformance.py --tide-bin build/bin --target cpu \
  --data "$work/data" --suites node --tmp "$work/tmp" --results "$work/results.json" | tail -1
