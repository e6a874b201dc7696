#!/usr/bin/env python3
"""Writes conv_bn.onnx: four Conv + BatchNormalization (inference, random
statistics) + Relu layers, two of them grouped (depthwise and 2 groups),
and an input conv_bn_in0.npy, and linear_bn.onnx (Gemm + BatchNormalization
+ Relu, twice) with linear_bn_in0.npy, into OUTDIR:

    make_conv_bn_model.py OUTDIR

tide-fold-affine-into-weights folds each batch norm into its convolution's or
product's weight and one bias (conv-batch-norm.test compares the result with ONNX Runtime).
"""
import os
import sys

import numpy as np
import onnx
from onnx import helper, TensorProto, numpy_helper
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(5)
nodes, inits = [], []
c_in, x = 3, "x"
for i, (c, groups) in enumerate([(32, 1), (32, 32), (64, 1), (64, 2)]):
    w = rng.standard_normal((c, c_in // groups, 3, 3)).astype(np.float32) * 0.3
    inits += [numpy_helper.from_array(w, f"w{i}"),
              numpy_helper.from_array(rng.uniform(0.5, 2, c).astype(np.float32), f"g{i}"),
              numpy_helper.from_array(rng.standard_normal(c).astype(np.float32), f"b{i}"),
              numpy_helper.from_array(rng.standard_normal(c).astype(np.float32), f"m{i}"),
              numpy_helper.from_array(rng.uniform(0.1, 3, c).astype(np.float32), f"v{i}")]
    nodes += [helper.make_node("Conv", [x, f"w{i}"], [f"c{i}"], pads=[1, 1, 1, 1], group=groups),
              helper.make_node("BatchNormalization", [f"c{i}", f"g{i}", f"b{i}", f"m{i}", f"v{i}"], [f"n{i}"], epsilon=1e-3),
              helper.make_node("Relu", [f"n{i}"], [f"r{i}"])]
    x, c_in = f"r{i}", c
g = helper.make_graph(nodes, "bn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 32, 32])],
                      [helper.make_tensor_value_info(x, TensorProto.FLOAT, [2, 64, 32, 32])], inits)
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
onnx.save(m, os.path.join(out, "conv_bn.onnx"))
np.save(os.path.join(out, "conv_bn_in0.npy"), rng.standard_normal((2, 3, 32, 32)).astype(np.float32))

# linear_bn.onnx: Gemm (transB, with a bias) + BatchNormalization over the
# features + Relu, twice (a PyTorch Linear + BatchNorm1d), batch 5.
nodes, inits = [], []
k, x = 24, "x"
for i, n in enumerate([32, 16]):
    inits += [numpy_helper.from_array(rng.standard_normal((n, k)).astype(np.float32) * 0.3, f"w{i}"),
              numpy_helper.from_array(rng.standard_normal(n).astype(np.float32), f"c{i}"),
              numpy_helper.from_array(rng.uniform(0.5, 2, n).astype(np.float32), f"g{i}"),
              numpy_helper.from_array(rng.standard_normal(n).astype(np.float32), f"b{i}"),
              numpy_helper.from_array(rng.standard_normal(n).astype(np.float32), f"m{i}"),
              numpy_helper.from_array(rng.uniform(0.1, 3, n).astype(np.float32), f"v{i}")]
    nodes += [helper.make_node("Gemm", [x, f"w{i}", f"c{i}"], [f"l{i}"], transB=1),
              helper.make_node("BatchNormalization", [f"l{i}", f"g{i}", f"b{i}", f"m{i}", f"v{i}"], [f"n{i}"]),
              helper.make_node("Relu", [f"n{i}"], [f"r{i}"])]
    x, k = f"r{i}", n
g = helper.make_graph(nodes, "linear_bn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [5, 24])],
                      [helper.make_tensor_value_info(x, TensorProto.FLOAT, [5, 16])], inits)
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]),
          os.path.join(out, "linear_bn.onnx"))
np.save(os.path.join(out, "linear_bn_in0.npy"), rng.standard_normal((5, 24)).astype(np.float32))
