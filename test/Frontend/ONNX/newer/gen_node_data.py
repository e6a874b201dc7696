#!/usr/bin/env python3
"""Writes the ONNX backend node tests of the installed `onnx` package (its
test cases, outputs from its reference implementation) into OUTDIR/node/...,
the layout of Debian's libonnx-testdata, for conformance.py --data OUTDIR.

    gen_node_data.py OUTDIR

The wheels on PyPI carry the test cases but not the data (`onnx`'s own
`backend-test-tools generate-data` writes the model tests only)."""
import argparse
import sys

import onnx.backend.test.case.node as node
import onnx.backend.test.cmd_tools as tools

tools.model_test.collect_testcases = lambda: node.collect_testcases(None)
tools.generate_data(argparse.Namespace(output=sys.argv[1]))
