#!/usr/bin/env python3
"""Compares RoiAlign (average and max modes) with ONNX Runtime: both coordinate
transformation modes, spatial_scale, regions reaching outside the image,
several images picked by batch_indices, f64, a symbolic number of regions;
and prints the errors of the unsupported forms.

    roialign_ort.py TIDE_BIN OUTDIR    (the ONNX Runtime venv's python)
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


def model(name, x, rois, symbolic=False, **attrs):
    elem = TYPES[x.dtype.type]
    r = "R" if symbolic else rois.shape[0]
    graph = helper.make_graph(
        [helper.make_node("RoiAlign", ["x", "rois", "b"], ["y"], name="roi", **attrs)], name,
        [helper.make_tensor_value_info("x", elem, list(x.shape)),
         helper.make_tensor_value_info("rois", elem, [r, 4]),
         helper.make_tensor_value_info("b", TensorProto.INT64, [r])],
        [helper.make_tensor_value_info("y", elem, None)])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)])
    m.ir_version = 8
    path = os.path.join(out, name + ".onnx")
    save(m, path)
    return path


def run(name, path, feeds):
    so = os.path.join(out, name + ".so")
    if not os.path.exists(so):
        p = subprocess.run([os.path.join(tide_bin, "tide-compile"), path, "--target=cpu", "-o", so,
                            "--no-remarks"], capture_output=True, text=True)
        if p.returncode:
            return None, "compile failed: " + p.stderr.strip()
    cmd = [os.path.join(tide_bin, "tide-run"), so]
    for k, v in feeds.items():
        f = os.path.join(out, "%s_%s.npy" % (name, k))
        np.save(f, v)
        cmd.append("--input=" + f)
    cmd.append("--output=" + os.path.join(out, name + "_y.npy"))
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        return None, "run failed: " + p.stderr.strip()
    return np.load(os.path.join(out, name + "_y.npy")), None


def check(name, x, rois, b, symbolic=False, extra=(), tol=1e-5, **attrs):
    path = model(name, x, rois, symbolic, **attrs)
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    for rs, bs in [(rois, b)] + list(extra):
        feeds = {"x": x, "rois": rs, "b": bs}
        want = session.run(None, feeds)[0]
        got, err = run(name, path, feeds)
        if err:
            return "%s: %s" % (name, err)
        if got.shape != want.shape or not np.allclose(got, want, rtol=tol, atol=tol):
            return "%s: %s, ONNX Runtime %s MISMATCH" % (name, got.shape, want.shape)
    return "%s: ok" % name


x = rng.standard_normal((2, 3, 10, 12)).astype(np.float32)
rois = np.array([[0, 0, 9, 9], [0, 5, 4, 9], [5, 5, 9, 9], [2.5, 1.2, 11.5, 7.7]], np.float32)
b = np.array([0, 1, 1, 0], np.int64)
outside = np.array([[-3, -2, 4, 5], [8, 6, 15, 14], [-1.5, -0.5, 13, 11]], np.float32)
results = [
    check("half_pixel", x, rois, b, output_height=5, output_width=4, sampling_ratio=2),
    check("output_half_pixel", x, rois, b, coordinate_transformation_mode="output_half_pixel",
          output_height=3, output_width=3, sampling_ratio=3),
    check("spatial_scale", x, rois * 4, b, output_height=2, output_width=6, sampling_ratio=1,
          spatial_scale=0.25),
    check("outside", x, outside, np.array([1, 0, 1], np.int64), output_height=4, output_width=4,
          sampling_ratio=2),
    check("f64", x.astype(np.float64), rois.astype(np.float64), b, output_height=3, output_width=2,
          sampling_ratio=2, tol=1e-10),
    check("symbolic_regions", x, rois, b, symbolic=True, output_height=2, output_width=2,
          sampling_ratio=2, extra=[(outside, np.array([0, 0, 1], np.int64)), (rois[:1], b[:1])]),
    # Max mode: each sample the largest of its four weighted neighbours.
    check("max", x, rois, b, mode="max", output_height=3, output_width=4, sampling_ratio=2),
    check("max_outside", x, outside, np.array([1, 0, 1], np.int64), mode="max",
          coordinate_transformation_mode="output_half_pixel", output_height=2, output_width=3,
          sampling_ratio=3),
    check("max_f64_symbolic", x.astype(np.float64), rois.astype(np.float64), b, symbolic=True,
          mode="max", output_height=2, output_width=2, sampling_ratio=1, tol=1e-10,
          extra=[(outside.astype(np.float64), np.array([0, 0, 1], np.int64))]),
]
for r in results:
    print(r)
good = sum(r.endswith(": ok") for r in results)
print("%d of %d cases match ONNX Runtime" % (good, len(results)))


def bad(name, **attrs):
    path = model(name, x, rois, **attrs)
    p = subprocess.run([os.path.join(tide_bin, "tide-import-onnx"), path], capture_output=True,
                       text=True)
    print("error %s: rc %d: %s" % (name, p.returncode, p.stderr.strip().splitlines()[-1:]))


# A batch index past the images: an error of the call (ONNX Runtime fails too).
for k, bi in enumerate(([0, 2, 1, 0], [0, -1, 1, 0])):
    got, err = run("half_pixel", os.path.join(out, "half_pixel.onnx"),
                   {"x": x, "rois": rois, "b": np.array(bi, np.int64)})
    print("bad batch index %d: %s" % (k, err.splitlines()[-1] if err else "ran"))

bad("adaptive", output_height=2, output_width=2)
bad("median_mode", mode="median", sampling_ratio=2)
sys.exit(0 if good == len(results) else 1)
