#!/usr/bin/env python3
"""An ONNX model whose weights are initializers (constants in the compiled
module): LAYERS x (Gemm + Relu) of HIDDEN x HIDDEN f32, batch BATCH. Used to
time what a call costs in weights on the GPU (docs/benchmarks.md, "Weights
read in place"). The weights take 256 distinct values, so the compiled
modules compress well for the trip to the GPU machine.

    python3 bench/make_weights_mlp.py OUT_DIR [--layers 8] [--hidden 1024] [--batch 1]

writes OUT_DIR/mlp.onnx and OUT_DIR/mlp_in.npy (an input).
"""
import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--layers", type=int, default=8)
    ap.add_argument("--hidden", type=int, default=1024)
    ap.add_argument("--batch", type=int, default=1)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    h = args.hidden
    values = (rng.standard_normal(256) / np.sqrt(h)).astype(np.float32)
    nodes, inits, x = [], [], "x"
    for i in range(args.layers):
        inits.append(numpy_helper.from_array(values[rng.integers(0, 256, size=(h, h))], f"w{i}"))
        inits.append(numpy_helper.from_array(values[rng.integers(0, 256, size=(h,))], f"b{i}"))
        nodes.append(helper.make_node("Gemm", [x, f"w{i}", f"b{i}"], [f"g{i}"]))
        nodes.append(helper.make_node("Relu", [f"g{i}"], [f"r{i}"]))
        x = f"r{i}"
    graph = helper.make_graph(
        nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [args.batch, h])],
        [helper.make_tensor_value_info(x, TensorProto.FLOAT, [args.batch, h])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    os.makedirs(args.out, exist_ok=True)
    onnx.save(model, os.path.join(args.out, "mlp.onnx"))
    np.save(os.path.join(args.out, "mlp_in.npy"),
            rng.standard_normal((args.batch, h)).astype(np.float32))


if __name__ == "__main__":
    main()
