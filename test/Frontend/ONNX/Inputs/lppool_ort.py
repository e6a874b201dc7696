#!/usr/bin/env python3
"""Compares LpPool and GlobalLpPool with ONNX Runtime: p = 1, 2 and 3, 1-D to
3-D windows, pads, strides, auto_pad, dilations and ceil_mode (opset 18),
a symbolic batch.

    lppool_ort.py TIDE_BIN OUTDIR    (the ONNX Runtime venv's python)
"""
import os
import subprocess
import sys

import numpy as np
import onnxruntime as ort
from onnx import TensorProto, helper, save

tide_bin, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(0)
TYPES = {np.float32: TensorProto.FLOAT, np.float64: TensorProto.DOUBLE}


def check(name, op, x, shape=None, opset=11, batches=(None,), exact=False, **attrs):
    elem = TYPES[x.dtype.type]
    graph = helper.make_graph(
        [helper.make_node(op, ["x"], ["y"], **attrs)], name,
        [helper.make_tensor_value_info("x", elem, shape or list(x.shape))],
        [helper.make_tensor_value_info("y", elem, None)])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    path = os.path.join(out, name + ".onnx")
    save(m, path)
    so = os.path.join(out, name + ".so")
    p = subprocess.run([os.path.join(tide_bin, "tide-compile"), path, "--target=cpu", "-o", so,
                        "--no-remarks"], capture_output=True, text=True)
    if p.returncode:
        return "%s: compile failed: %s" % (name, p.stderr.strip())
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    for batch in batches:
        xs = x if batch is None else np.concatenate([x] * batch)
        want = session.run(None, {"x": xs})[0]
        np.save(os.path.join(out, name + "_x.npy"), xs)
        p = subprocess.run([os.path.join(tide_bin, "tide-run"), so,
                            "--input=" + os.path.join(out, name + "_x.npy"),
                            "--output=" + os.path.join(out, name + "_y.npy")],
                           capture_output=True, text=True)
        if p.returncode:
            return "%s: run failed: %s" % (name, p.stderr.strip())
        got = np.load(os.path.join(out, name + "_y.npy"))
        tol = 0 if exact else 1e-5
        if got.shape != want.shape or not np.allclose(got, want, rtol=tol, atol=tol):
            return "%s: %s, ONNX Runtime %s MISMATCH" % (name, got.shape, want.shape)
    return "%s: ok" % name


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


results = [
    check("lp2_2d", "LpPool", f32(2, 3, 7, 8), kernel_shape=[3, 2], strides=[2, 2]),
    check("lp1_pads", "LpPool", f32(1, 2, 6, 6), p=1, kernel_shape=[3, 3], pads=[1, 2, 2, 1]),
    check("lp3_1d", "LpPool", f32(2, 3, 11), p=3, kernel_shape=[3], strides=[2], pads=[1, 1]),
    check("lp2_3d", "LpPool", f32(1, 2, 4, 5, 6), kernel_shape=[2, 2, 3], strides=[2, 1, 2]),
    check("lp2_same_upper", "LpPool", f32(1, 2, 5, 6), kernel_shape=[2, 2], strides=[2, 2],
          auto_pad="SAME_UPPER"),
    check("lp2_symbolic", "LpPool", f32(1, 3, 6, 6), shape=["N", 3, 6, 6], batches=(1, 3),
          kernel_shape=[2, 2], strides=[2, 2]),
    check("lp2_dilated_ceil", "LpPool", f32(1, 2, 9, 8), opset=18, kernel_shape=[2, 3],
          dilations=[2, 1], strides=[2, 2], ceil_mode=1),
    # auto_pad SAME with a stride above 1 over run-time spatial sizes (and
    # channels): the padding computed when it runs.
    check("lp2_same_lower_dyn", "LpPool", f32(1, 2, 7, 9), shape=["N", "C", "H", "W"],
          batches=(1, 2), kernel_shape=[3, 2], strides=[2, 3], auto_pad="SAME_LOWER"),
    # Sums of halves are exact: with run-time channels the window sum is one
    # convolution of one channel into one, which must not take Winograd's
    # rounding transforms (a Round after it turned 12.5 + 1 ulp into 13).
    check("lp1_halves_dyn", "LpPool",
          (rng.integers(-8, 9, (2, 3, 4, 6)) / 2).astype(np.float32),
          shape=["N", "C", 4, 6], p=1, kernel_shape=[3, 3], exact=True),
    check("global_lp2", "GlobalLpPool", f32(2, 3, 5, 4)),
    check("global_lp3_1d", "GlobalLpPool", f32(2, 3, 9), p=3),
]
for r in results:
    print(r)
good = sum(r.endswith(": ok") for r in results)
print("%d of %d cases match ONNX Runtime" % (good, len(results)))

# p below 1: an error naming the node.
graph = helper.make_graph([helper.make_node("LpPool", ["x"], ["y"], name="lp", p=0, kernel_shape=[2])],
                          "bad", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)])
save(m, os.path.join(out, "bad_p.onnx"))
p = subprocess.run([os.path.join(tide_bin, "tide-import-onnx"), os.path.join(out, "bad_p.onnx")],
                   capture_output=True, text=True)
print("error bad_p: rc %d: %s" % (p.returncode, p.stderr.strip()))
sys.exit(0 if good == len(results) else 1)
