#!/usr/bin/env python3
"""Writes the models of index-checks.test and their inputs (.npy) into OUTDIR:
gathers and scatters whose indices come in at run time (checked then), and
constant indices out of range (an error while importing).

    make_index_check_models.py OUTDIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(11)
F, I, I32 = TensorProto.FLOAT, TensorProto.INT64, TensorProto.INT32


def save(nodes, inputs, outputs, name, version=18, inits=()):
    graph = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", version)])
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, name + ".onnx"))


def info(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def npy(name, value):
    np.save(os.path.join(out, name + ".npy"), value)


# Gather along axis 1 of (n, 4) and along axis 0 of a run-time size.
save([helper.make_node("Gather", ["x", "i"], ["y"], name="cols", axis=1)],
     [info("x", F, ["n", 4]), info("i", I, ["k"])], [info("y", F, ["n", "k"])], "gather_cols")
save([helper.make_node("Gather", ["x", "i"], ["y"], name="rows", axis=0)],
     [info("x", F, ["n", 3]), info("i", I32, [2])], [info("y", F, [2, 3])], "gather_rows")
npy("x3x4", rng.standard_normal((3, 4)).astype(np.float32))
npy("x2x3", rng.standard_normal((2, 3)).astype(np.float32))
npy("i_ok", np.array([-4, 3, 0, -1], dtype=np.int64))
npy("i_high", np.array([0, 4], dtype=np.int64))
npy("i_low", np.array([-5], dtype=np.int64))
npy("i_empty", np.zeros((0,), dtype=np.int64))
npy("r_ok", np.array([1, -2], dtype=np.int32))
npy("r_high", np.array([0, 2], dtype=np.int32))

# GatherElements and GatherND (pairs into (3, 4, 5)).
save([helper.make_node("GatherElements", ["x", "i"], ["y"], name="elems", axis=0)],
     [info("x", F, [3, 4]), info("i", I, [2, 4])], [info("y", F, [2, 4])], "gather_elements")
npy("e_ok", np.array([[0, 1, 2, -3], [2, 2, 0, -1]], dtype=np.int64))
npy("e_bad", np.array([[0, 1, 2, 3], [2, 2, 0, -1]], dtype=np.int64))
save([helper.make_node("GatherND", ["x", "i"], ["y"], name="nd")],
     [info("x", F, [3, 4, 5]), info("i", I, [2, 2])], [info("y", F, [2, 5])], "gather_nd")
npy("x3x4x5", rng.standard_normal((3, 4, 5)).astype(np.float32))
npy("nd_ok", np.array([[2, 3], [-3, -4]], dtype=np.int64))
npy("nd_bad1", np.array([[2, 4], [0, 0]], dtype=np.int64))   # 4 past the second size (4)
npy("nd_bad0", np.array([[0, 0], [3, 0]], dtype=np.int64))   # 3 past the first size (3)

# ScatterElements and ScatterND.
save([helper.make_node("ScatterElements", ["x", "i", "u"], ["y"], name="scat", axis=1)],
     [info("x", F, [3, 4]), info("i", I, [3, 1]), info("u", F, [3, 1])], [info("y", F, [3, 4])],
     "scatter_elements")
npy("s_ok", np.array([[0], [-1], [3]], dtype=np.int64))
npy("s_bad", np.array([[0], [-5], [3]], dtype=np.int64))
npy("u3x1", rng.standard_normal((3, 1)).astype(np.float32))
save([helper.make_node("ScatterND", ["x", "i", "u"], ["y"], name="scatnd")],
     [info("x", F, [3, 4]), info("i", I, [2, 1]), info("u", F, [2, 4])], [info("y", F, [3, 4])],
     "scatter_nd")
npy("snd_ok", np.array([[2], [0]], dtype=np.int64))
npy("snd_bad", np.array([[2], [3]], dtype=np.int64))
npy("u2x4", rng.standard_normal((2, 4)).astype(np.float32))

# Constant indices out of range: an error of the node while importing.
save([helper.make_node("Gather", ["x", "c"], ["y"], name="const_gather", axis=1)],
     [info("x", F, ["n", 4])], [info("y", F, ["n", 2])], "gather_const",
     inits=[helper.make_tensor("c", I, [2], [1, 4])])
save([helper.make_node("GatherND", ["x", "c"], ["y"], name="const_nd")],
     [info("x", F, [3, 4, 5])], [info("y", F, [1, 5])], "gather_nd_const",
     inits=[helper.make_tensor("c", I, [1, 2], [1, -5])])

# TopK with k from the size of another input (known when the model runs):
# k past the axis is an error then.
save([helper.make_node("Shape", ["y"], ["s"], name="shape"),
      helper.make_node("TopK", ["x", "s"], ["v", "i"], name="top", axis=1)],
     [info("x", F, [2, 5]), info("y", F, ["m"])],
     [info("v", F, [2, "m"]), info("i", I, [2, "m"])], "topk_runtime_k")
npy("x2x5", rng.standard_normal((2, 5)).astype(np.float32))
npy("y3", np.zeros(3, dtype=np.float32))
npy("y6", np.zeros(6, dtype=np.float32))

# NegativeLogLikelihoodLoss: a target must be a class in [-C, C) (ONNX's
# function body is a GatherElements) unless it is ignore_index.
save([helper.make_node("NegativeLogLikelihoodLoss", ["x", "t"], ["y"], name="nll",
                       reduction="none", ignore_index=-100)],
     [info("x", F, [3, 4]), info("t", I, [3])], [info("y", F, [3])], "nll")
npy("t_ok", np.array([0, -1, -100], dtype=np.int64))
npy("t_bad", np.array([0, 4, 1], dtype=np.int64))

# GatherElements and ScatterElements whose indices are larger than the data
# off the axis, known only when the model runs (they would reach outside it).
save([helper.make_node("GatherElements", ["x", "i"], ["y"], name="ge_big", axis=1)],
     [info("x", F, ["n", 4]), info("i", I, ["m", 4])], [info("y", F, ["m", 4])], "gather_elements_big")
npy("big_idx", np.zeros((4, 4), dtype=np.int64))
save([helper.make_node("ScatterElements", ["x", "i", "u"], ["y"], name="se_big", axis=1)],
     [info("x", F, ["n", 4]), info("i", I, ["m", 1]), info("u", F, ["m", 1])], [info("y", F, ["n", 4])],
     "scatter_elements_big")
npy("big_i4x1", np.zeros((4, 1), dtype=np.int64))
npy("big_u4x1", np.ones((4, 1), dtype=np.float32))
