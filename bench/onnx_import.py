#!/usr/bin/env python3
"""Import + compile time and peak memory for an ONNX model with ~100 MB of
weights (an MLP of 2048-wide f32 layers, weights as initializers, inline or in
an external data file).

    /usr/bin/python3 bench/onnx_import.py --tide-bin build/bin [--mb 100] [--target cpu]

Prints, per form: the model size, wall time and peak RSS of `tide-compile
model.onnx` (from /usr/bin/time -v or getrusage), and the ratio of peak RSS
to the weights' size.
"""
import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def make_model(path, mb, external):
    width = 2048
    layers = max(1, int(mb * 2**20 / (width * width * 4)))
    rng = np.random.default_rng(0)
    nodes, inits = [], []
    x = "x"
    for i in range(layers):
        w = (rng.standard_normal((width, width)) * 0.02).astype(np.float32)
        inits.append(numpy_helper.from_array(w, "w%d" % i))
        nodes.append(helper.make_node("MatMul", [x, "w%d" % i], ["m%d" % i], name="fc%d" % i))
        nodes.append(helper.make_node("Relu", ["m%d" % i], ["r%d" % i], name="relu%d" % i))
        x = "r%d" % i
    g = helper.make_graph(nodes, "mlp",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", width])],
                          [helper.make_tensor_value_info(x, TensorProto.FLOAT, ["batch", width])],
                          inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    if external:
        onnx.save(m, path, save_as_external_data=True, all_tensors_to_one_file=True,
                  location=os.path.basename(path) + ".data", size_threshold=1024)
    else:
        onnx.save(m, path)
    return layers * width * width * 4


def measure(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if p.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), p.stderr))
    # ru_maxrss of children is the max over all children so far: run each
    # measurement in a fresh process (see main).
    return wall, max(peak, before) * 1024


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tide-bin", required=True)
    ap.add_argument("--mb", type=float, default=100)
    ap.add_argument("--target", default="cpu")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:  # child: measure one command
        form, path = args.one.split(":", 1)
        wall, peak = measure([os.path.join(args.tide_bin, "tide-compile"), path,
                              "--target=%s" % args.target, "-o", path + ".so",
                              "--no-remarks"])
        print("%s %.3f %d" % (form, wall, peak))
        return
    with tempfile.TemporaryDirectory() as tmp:
        print("| form | weights | model file | tide-compile wall | peak RSS | RSS / weights |")
        print("|---|---|---|---|---|---|")
        for form in ("inline", "external"):
            path = os.path.join(tmp, form + ".onnx")
            weights = make_model(path, args.mb, form == "external")
            size = os.path.getsize(path)
            out = subprocess.run([sys.executable, __file__, "--tide-bin", args.tide_bin,
                                  "--target", args.target, "--one", form + ":" + path],
                                 capture_output=True, text=True, check=True).stdout.split()
            wall, peak = float(out[1]), int(out[2])
            print("| %s | %.1f MB | %.1f MB | %.2f s | %.0f MB | %.2fx |" % (
                form, weights / 1e6, size / 1e6, wall, peak / 1e6, peak / weights))


if __name__ == "__main__":
    main()
