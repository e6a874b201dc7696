#!/usr/bin/env python3
"""Writes the ScatterElements/ScatterND/TopK models of scatter.test and
topk.test and their
inputs (.npy) into OUTDIR (built with onnx.helper at test time).

    make_scatter_models.py OUTDIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(7)


def save(nodes, inputs, outputs, name, version, check=True):
    graph = helper.make_graph(nodes, name, inputs, outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", version)])
    if check:
        onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, name + ".onnx"))


def info(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


F, I = TensorProto.FLOAT, TensorProto.INT64

# ScatterElements (opset 18) with reduction max along the last axis, a
# symbolic batch, negative and duplicate indices.
save([helper.make_node("ScatterElements", ["data", "idx", "upd"], ["y"], name="scat",
                       axis=-1, reduction="max")],
     [info("data", F, ["batch", 6]), info("idx", I, ["batch", 3]), info("upd", F, ["batch", 3])],
     [info("y", F, ["batch", 6])], "elements_max", 18)
for b in (2, 5):
    np.save(os.path.join(out, "data_b%d.npy" % b), rng.standard_normal((b, 6)).astype(np.float32))
    np.save(os.path.join(out, "idx_b%d.npy" % b), rng.integers(-6, 6, size=(b, 3)))
    np.save(os.path.join(out, "upd_b%d.npy" % b), rng.standard_normal((b, 3)).astype(np.float32))

# ScatterND (opset 16) with reduction add: pairs of indices into a 4x5x6
# tensor, rows of 6 added (duplicates add up).
save([helper.make_node("ScatterND", ["data", "idx", "upd"], ["y"], name="nd", reduction="add")],
     [info("data", F, [4, 5, 6]), info("idx", I, [2, 2, 2]), info("upd", F, [2, 2, 6])],
     [info("y", F, [4, 5, 6])], "nd_add", 16)
np.save(os.path.join(out, "nd_data.npy"), rng.standard_normal((4, 5, 6)).astype(np.float32))
np.save(os.path.join(out, "nd_idx.npy"), np.array([[[0, 1], [3, -1]], [[0, 1], [2, 2]]]))
np.save(os.path.join(out, "nd_upd.npy"), rng.standard_normal((2, 2, 6)).astype(np.float32))

# A reduction ONNX does not have.
save([helper.make_node("ScatterElements", ["data", "idx", "upd"], ["y"], name="bad",
                       reduction="avg")],
     [info("data", F, [3]), info("idx", I, [2]), info("upd", F, [2])], [info("y", F, [3])],
     "bad_reduction", 18, check=False)

# ScatterND whose updates do not fit the indices.
save([helper.make_node("ScatterND", ["data", "idx", "upd"], ["y"], name="nd_bad")],
     [info("data", F, [4, 5]), info("idx", I, [3, 1]), info("upd", F, [2, 5])],
     [info("y", F, [4, 5])], "nd_shape", 16, check=False)

# TopK (opset 11) along axis 1 of a symbolic-batch input, largest and
# smallest, with ties and NaNs in the data; k from an initializer.
kval = helper.make_tensor("k", I, [1], [3])
for name, largest in (("topk_largest", 1), ("topk_smallest", 0)):
    graph = helper.make_graph(
        [helper.make_node("TopK", ["x", "k"], ["v", "i"], name="top", axis=1, largest=largest)],
        name, [info("x", F, ["batch", 7, 2])],
        [info("v", F, ["batch", 3, 2]), info("i", I, ["batch", 3, 2])], [kval])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)])
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, name + ".onnx"))
x = rng.integers(-3, 4, size=(4, 7, 2)).astype(np.float32)   # many ties
np.save(os.path.join(out, "topk_x.npy"), x)

# NaNs: ONNX leaves their order open (ONNX Runtime's heap gives an order that
# depends on where they are); Tide counts NaN as the largest value, like
# NumPy's sort and PyTorch's topk. Expected results from a stable sort.
x[1, 2, 0] = np.nan
x[2, 5, 1] = np.nan
x[2, 6, 1] = np.nan
np.save(os.path.join(out, "topk_nan_x.npy"), x)
for name, largest in (("l", True), ("s", False)):
    nan = np.isnan(x)
    key = np.where(nan, 0, -x if largest else x)
    # lexsort: last key first; NaN first when largest, last when smallest.
    order = np.lexsort((key, ~nan if largest else nan), axis=1)[:, :3, :]
    np.save(os.path.join(out, "nan_%s_0.npy" % name), np.take_along_axis(x, order, 1))
    np.save(os.path.join(out, "nan_%s_1.npy" % name), order.astype(np.int64))

# k larger than the axis.
graph = helper.make_graph(
    [helper.make_node("TopK", ["x", "k"], ["v", "i"], name="top9")], "topk_big",
    [info("x", F, [2, 5])], [info("v", F, [2, 9]), info("i", I, [2, 9])],
    [helper.make_tensor("k", I, [1], [9])])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)]),
          os.path.join(out, "topk_big.onnx"))
