#!/usr/bin/env python3
"""Compares MaxPool's two outputs (values and Indices) with ONNX Runtime on
cases beyond ONNX's test data: 1-D, 2-D and 3-D windows, pads, strides,
dilations, ceil_mode, storage_order=1 (column-major spatial indices), ties
(the first maximum wins), f16, a symbolic batch and channel count.

    maxpool_indices_ort.py TIDE_BIN OUTDIR    (the ONNX Runtime venv's python)

Prints one line per case and exits 1 if any differs.
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
ONNX_TYPE = {np.float32: TensorProto.FLOAT, np.float16: TensorProto.FLOAT16}


def check(name, x, shape=None, opset=12, batches=(None,), **attrs):
    elem = ONNX_TYPE[x.dtype.type]
    node = helper.make_node("MaxPool", ["x"], ["y", "i"], **attrs)
    graph = helper.make_graph(
        [node], name, [helper.make_tensor_value_info("x", elem, shape or list(x.shape))],
        [helper.make_tensor_value_info("y", elem, None),
         helper.make_tensor_value_info("i", TensorProto.INT64, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    path = os.path.join(out, name + ".onnx")
    save(model, path)
    so = os.path.join(out, name + ".so")
    p = subprocess.run([os.path.join(tide_bin, "tide-compile"), path, "--target=cpu", "-o", so,
                        "--no-remarks"], capture_output=True, text=True)
    if p.returncode:
        return "%s: compile failed: %s" % (name, p.stderr.strip())
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    for batch in batches:
        xs = x if batch is None else np.concatenate([x] * batch)
        want = session.run(None, {"x": xs})
        np.save(os.path.join(out, name + "_x.npy"), xs)
        p = subprocess.run([os.path.join(tide_bin, "tide-run"), so,
                            "--input=" + os.path.join(out, name + "_x.npy"),
                            "--output=" + os.path.join(out, name + "_y.npy"),
                            "--output=" + os.path.join(out, name + "_i.npy")],
                           capture_output=True, text=True)
        if p.returncode:
            return "%s: run failed: %s" % (name, p.stderr.strip())
        y = np.load(os.path.join(out, name + "_y.npy"))
        i = np.load(os.path.join(out, name + "_i.npy"))
        if i.dtype != np.int64 or i.shape != want[1].shape or not np.array_equal(i, want[1]):
            return "%s: Indices %s %s, ONNX Runtime %s MISMATCH" % (name, i.dtype, i.shape,
                                                                     want[1].shape)
        if not np.array_equal(y, want[0]):
            return "%s: values MISMATCH" % name
        # Row-major indices point at the maxima.
        if not attrs.get("storage_order") and not np.array_equal(xs.reshape(-1)[i], y):
            return "%s: the indices do not point at the maxima MISMATCH" % name
    return "%s: ok" % name


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


results = [
    check("pool2d", f32(2, 3, 7, 8), kernel_shape=[3, 2], strides=[2, 2]),
    check("pool2d_pads", f32(1, 2, 6, 6), kernel_shape=[3, 3], pads=[1, 2, 2, 1], strides=[2, 1]),
    check("pool2d_ceil", f32(1, 2, 7, 7), kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1),
    check("pool2d_dilated", f32(1, 3, 9, 8), kernel_shape=[2, 3], dilations=[2, 2], pads=[1, 1, 1, 1]),
    check("pool2d_same_upper", f32(1, 1, 5, 6), kernel_shape=[2, 2], strides=[2, 2],
          auto_pad="SAME_UPPER"),
    check("pool2d_column_major", f32(2, 2, 5, 7), kernel_shape=[2, 3], strides=[1, 2],
          storage_order=1),
    check("pool1d", f32(2, 3, 11), kernel_shape=[3], strides=[2], pads=[1, 1]),
    check("pool3d", f32(1, 2, 4, 5, 6), kernel_shape=[2, 2, 3], strides=[2, 1, 2], pads=[0, 1, 1, 1, 0, 0]),
    check("pool3d_column_major", f32(1, 1, 3, 4, 5), kernel_shape=[2, 2, 2], storage_order=1),
    # Ties: a constant plane (the first position of each window wins).
    check("pool2d_ties", np.ones((1, 1, 5, 5), np.float32), kernel_shape=[3, 3], strides=[1, 1],
          pads=[1, 1, 1, 1]),
    check("pool2d_f16", f32(1, 2, 6, 5).astype(np.float16), kernel_shape=[2, 2], strides=[2, 2],
          ceil_mode=1),
    # A symbolic batch and channel count: one module run at 1, 2 and 3.
    check("pool2d_symbolic", f32(1, 3, 6, 6), shape=["N", "C", 6, 6], batches=(1, 2, 3),
          kernel_shape=[2, 2], strides=[2, 2]),
]
for r in results:
    print(r)
good = sum(r.endswith(": ok") for r in results)
print("%d of %d cases match ONNX Runtime" % (good, len(results)))
sys.exit(0 if good == len(results) else 1)
