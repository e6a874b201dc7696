#!/usr/bin/env python3
"""Writes ONNX models whose outputs are sized by their data (NonZero,
Compress, Unique, NonMaxSuppression, and PyTorch's boolean-mask indexing
`x[mask]`, which its exporter writes as NonZero + Transpose + GatherND), each
with input sets MODEL_TAG_in<k>.npy for tide_vs_ort.py:

    make_data_dependent_models.py OUT_DIR

Inputs are random (fixed seeds) and include the edge cases: nothing
selected, everything selected, repeated values and equal scores.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL


def save(name, nodes, inputs, outputs, inits=(), opset=13, runs=()):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    onnx.save(model, os.path.join(out, name + ".onnx"))
    for tag, arrays in runs:
        for k, a in enumerate(arrays):
            np.save(os.path.join(out, "%s_%s_in%d.npy" % (name, tag, k)), a)


def vi(name, t, shape):
    if shape is None:   # an output of unknown shape: rank unknown to the checker
        return helper.make_value_info(name, helper.make_tensor_type_proto(t, None))
    return helper.make_tensor_value_info(name, t, shape)


rng = np.random.default_rng(7)

# x[mask] (PyTorch's export of boolean indexing), symbolic batch.
x = rng.standard_normal((6, 5, 3)).astype(np.float32)
save("mask_index",
     [helper.make_node("NonZero", ["m"], ["nz"]),
      helper.make_node("Transpose", ["nz"], ["idx"], perm=[1, 0]),
      helper.make_node("GatherND", ["x", "idx"], ["y"]),
      helper.make_node("ReduceSum", ["y"], ["s"], keepdims=0, axes=[0])],
     [vi("x", F, ["n", 5, 3]), vi("m", B, ["n", 5])],
     [vi("y", F, None), vi("s", F, None)], opset=12,
     runs=[("half", [x, rng.random((6, 5)) < 0.5]),
           ("none", [x, np.zeros((6, 5), bool)]),
           ("all", [x[:2].copy(), np.ones((2, 5), bool)])])

# NonZero of floats (NaN counts, -0.0 does not) and of integers, 3-D.
f = rng.standard_normal((3, 4, 5)).astype(np.float32)
f[rng.random(f.shape) < 0.6] = 0
f[0, 0, 0], f[1, 2, 3], f[2, 3, 4] = np.nan, -0.0, np.inf
save("nonzero_f32", [helper.make_node("NonZero", ["x"], ["y"])],
     [vi("x", F, [3, 4, 5])], [vi("y", I64, None)],
     runs=[("a", [f]), ("zeros", [np.zeros((3, 4, 5), np.float32)])])
save("nonzero_i64", [helper.make_node("NonZero", ["x"], ["y"])],
     [vi("x", I64, ["a", "b"])], [vi("y", I64, None)],
     runs=[("a", [rng.integers(-1, 2, (7, 9))]), ("b", [rng.integers(0, 2, (1, 1))])])

# Compress with and without an axis; a shorter condition.
c = rng.standard_normal((4, 6)).astype(np.float32)
for axis in (None, 0, 1, -1):
    kw = {} if axis is None else {"axis": axis}
    n = {None: 24, 0: 4, 1: 6, -1: 6}[axis]
    save("compress_%s" % ("flat" if axis is None else str(axis).replace("-", "m")),
         [helper.make_node("Compress", ["x", "c"], ["y"], **kw)],
         [vi("x", F, [4, 6]), vi("c", B, [n])], [vi("y", F, None)], opset=11,
         runs=[("r", [c, rng.random(n) < 0.5]), ("none", [c, np.zeros(n, bool)]),
               ("all", [c, np.ones(n, bool)])])
save("compress_short", [helper.make_node("Compress", ["x", "c"], ["y"], axis=1)],
     [vi("x", F, [4, 6]), vi("c", B, [3])], [vi("y", F, None)], opset=11,
     runs=[("r", [c, np.array([True, False, True])])])
# A condition longer than an axis known only at run time: its extra entries
# select nothing (they selected the clamped last position).
save("compress_long_dyn", [helper.make_node("Compress", ["x", "c"], ["y"], axis=0)],
     [vi("x", F, ["n"]), vi("c", B, ["m"])], [vi("y", F, None)], opset=11,
     runs=[("r", [np.array([1, 2, 3], np.float32),
                  np.array([True, False, False, True, True])])])

# Unique: flat (sorted or in order of first occurrence), along an axis, all
# outputs.
u = rng.integers(-3, 4, (5, 7)).astype(np.float32)
u[0, 0], u[0, 1] = 0.0, -0.0
for sort in (0, 1):
    save("unique_flat_s%d" % sort,
         [helper.make_node("Unique", ["x"], ["y", "i", "inv", "cnt"], sorted=sort)],
         [vi("x", F, [5, 7])], [vi(v, t, None) for v, t in
                                (("y", F), ("i", I64), ("inv", I64), ("cnt", I64))],
         opset=11, runs=[("r", [u]), ("same", [np.full((5, 7), 2.5, np.float32)])])
rows = rng.integers(0, 2, (8, 3)).astype(np.int64)
for axis in (0, 1):
    save("unique_axis%d" % axis,
         [helper.make_node("Unique", ["x"], ["y", "i", "inv", "cnt"], sorted=1, axis=axis)],
         [vi("x", I64, [8, 3])], [vi(v, I64, None) for v in ("y", "i", "inv", "cnt")],
         opset=11, runs=[("r", [rows])])
# Float rows holding NaN along an axis, sorted and in order of first
# occurrence: a row with a NaN equals another with NaN in the same place
# (dropped before: it was never its own first occurrence).
# (ONNX Runtime's own result goes wrong with a NaN in a row's first column.)
nanrows = np.array([[2, 3], [1, np.nan], [2, 3], [0, 1], [1, np.nan]], np.float32)
for sort in (0, 1):
    save("unique_nan_rows_s%d" % sort,
         [helper.make_node("Unique", ["x"], ["y", "i", "inv", "cnt"], sorted=sort, axis=0)],
         [vi("x", F, [5, 2])], [vi(v, t, None) for v, t in
                                (("y", F), ("i", I64), ("inv", I64), ("cnt", I64))],
         opset=11, runs=[("r", [nanrows])])
# Elements are sorted (n log n): 100,000 of them, many equal, -0.0 and 0.0.
many = (rng.integers(-200, 201, (100, 1000)) / 4).astype(np.float32)
many[0, :3] = [-0.0, 0.0, -0.0]
for sort in (0, 1):
    save("unique_100k_s%d" % sort,
         [helper.make_node("Unique", ["x"], ["y", "i", "inv", "cnt"], sorted=sort)],
         [vi("x", F, [100, 1000])], [vi(v, t, None) for v, t in
                                     (("y", F), ("i", I64), ("inv", I64), ("cnt", I64))],
         opset=11, runs=[("r", [many])])
big = rng.integers(0, 300, 2000).astype(np.int64)
save("unique_2000", [helper.make_node("Unique", ["x"], ["y", "i", "inv", "cnt"])],
     [vi("x", I64, [2000])], [vi(v, I64, None) for v in ("y", "i", "inv", "cnt")],
     opset=11, runs=[("r", [big])])


# NonMaxSuppression: several batches and classes, both box formats, with and
# without a score threshold, equal scores, a limit that binds and one that
# does not.
def boxes(b, n, center):
    xy = rng.random((b, n, 2)).astype(np.float32) * 10
    wh = rng.random((b, n, 2)).astype(np.float32) * 4 + 0.5
    if center:
        return np.concatenate([xy, wh], axis=2)
    # [y1, x1, y2, x2] with corners in either order.
    y1x1 = np.stack([xy[..., 1], xy[..., 0]], axis=2)
    y2x2 = y1x1 + np.stack([wh[..., 1], wh[..., 0]], axis=2)
    flip = rng.random((b, n, 1)) < 0.3
    return np.where(flip, np.concatenate([y2x2, y1x1], axis=2),
                    np.concatenate([y1x1, y2x2], axis=2)).astype(np.float32)


for center in (0, 1):
    for thr in (True, False):
        name = "nms_c%d_%s" % (center, "thr" if thr else "nothr")
        ins = ["b", "s", "m", "iou"] + (["t"] if thr else [])
        inits = [helper.make_tensor("m", I64, [1], [4]),
                 helper.make_tensor("iou", F, [1], [0.3])]
        if thr:
            inits.append(helper.make_tensor("t", F, [1], [0.4]))
        scores = rng.random((2, 3, 40)).astype(np.float32)
        scores[0, 0, :10] = 0.75       # equal scores: the lower index first
        save(name, [helper.make_node("NonMaxSuppression", ins, ["y"],
                                     center_point_box=center)],
             [vi("b", F, [2, 40, 4]), vi("s", F, [2, 3, 40])], [vi("y", I64, None)],
             inits=inits, opset=11, runs=[("r", [boxes(2, 40, center), scores])])
save("nms_dyn", [helper.make_node("NonMaxSuppression", ["b", "s", "m", "iou", "t"], ["y"])],
     [vi("b", F, ["B", "N", 4]), vi("s", F, ["B", "C", "N"]), vi("m", I64, [1]),
      vi("iou", F, [1]), vi("t", F, [1])], [vi("y", I64, None)], opset=11,
     runs=[("a", [boxes(1, 200, 0), rng.random((1, 5, 200)).astype(np.float32),
                  np.array([1000]), np.array([0.5], np.float32),
                  np.array([0.2], np.float32)]),
           ("none", [boxes(2, 7, 0), rng.random((2, 1, 7)).astype(np.float32),
                     np.array([0]), np.array([0.5], np.float32),
                     np.array([0.0], np.float32)])])

# TopK of a run-time length, k = min(3, n) (torchvision's detection heads).
save("topk_dyn",
     [helper.make_node("Shape", ["x"], ["n"]),
      helper.make_node("Concat", ["three", "n"], ["kn"], axis=0),
      helper.make_node("ReduceMin", ["kn"], ["k0"], keepdims=0),
      helper.make_node("Reshape", ["k0", "one"], ["k"]),
      helper.make_node("TopK", ["x", "k"], ["v", "i"])],
     [vi("x", F, ["n"])], [vi("v", F, None), vi("i", I64, None)], opset=13,
     inits=[helper.make_tensor("three", I64, [1], [3]), helper.make_tensor("one", I64, [1], [1])],
     runs=[("long", [rng.permutation(7).astype(np.float32)]),
           ("short", [np.array([2.5, -1.0], np.float32)])])

# An If whose condition is known only at run time, one branch an empty
# tensor: "no positive element: nothing, else where they are".
then_g = helper.make_graph([helper.make_node("Constant", [], ["e"], value=helper.make_tensor(
    "ev", I64, [0], []))], "then", [], [vi("e", I64, [0])])
else_g = helper.make_graph([helper.make_node("Greater", ["x", "zero"], ["pos"]),
                            helper.make_node("NonZero", ["pos"], ["nz"]),
                            helper.make_node("Squeeze", ["nz", "axis0"], ["w"])],
                           "else", [], [vi("w", I64, ["m"])])
save("if_empty",
     [helper.make_node("Greater", ["x", "zero"], ["p"]),
      helper.make_node("Cast", ["p"], ["pi"], to=TensorProto.INT64),
      helper.make_node("ReduceSum", ["pi"], ["cnt"], keepdims=0),
      helper.make_node("Equal", ["cnt", "zero_i"], ["none"]),
      helper.make_node("If", ["none"], ["y"], then_branch=then_g, else_branch=else_g)],
     [vi("x", F, [6])], [vi("y", I64, None)], opset=13,
     inits=[helper.make_tensor("zero", F, [], [0.0]), helper.make_tensor("zero_i", I64, [], [0]),
            helper.make_tensor("axis0", I64, [1], [0])],
     runs=[("some", [np.array([1, -2, 3, 0, 5, -1], np.float32)]),
           ("none", [np.array([-1, -2, -3, 0, -5, -1], np.float32)])])

# Pads computed in floats from constants (torchvision's batching of images:
# ceil(size / 32) * 32 - size): folded while importing.
save("float_size_pads",
     [helper.make_node("ReduceMax", ["sizes"], ["m"], keepdims=0),
      helper.make_node("Div", ["m", "stride"], ["q"]),
      helper.make_node("Ceil", ["q"], ["c"]),
      helper.make_node("Mul", ["c", "stride"], ["padded"]),
      helper.make_node("Sub", ["padded", "m"], ["extra_f"]),
      helper.make_node("Cast", ["extra_f"], ["extra"], to=TensorProto.INT64),
      helper.make_node("Reshape", ["extra", "one"], ["e1"]),
      helper.make_node("Concat", ["zeros6", "e1", "e1"], ["pads"], axis=0),
      helper.make_node("Pad", ["x", "pads"], ["y"])],
     [vi("x", F, [1, 2, 5, 5])], [vi("y", F, None)], opset=13,
     inits=[helper.make_tensor("sizes", F, [2], [5.0, 3.0]), helper.make_tensor("stride", F, [], [4.0]),
            helper.make_tensor("one", I64, [1], [1]), helper.make_tensor("zeros6", I64, [6], [0] * 6)],
     runs=[("r", [rng.standard_normal((1, 2, 5, 5)).astype(np.float32)])])

# Errors: each names the node and what is wrong.
save("err_nms_box3", [helper.make_node("NonMaxSuppression", ["b", "s"], ["y"])],
     [vi("b", F, [1, 5, 3]), vi("s", F, [1, 2, 5])], [vi("y", I64, None)], opset=11)
save("err_nms_iou", [helper.make_node("NonMaxSuppression", ["b", "s", "m", "iou"], ["y"])],
     [vi("b", F, [1, 5, 4]), vi("s", F, [1, 2, 5])], [vi("y", I64, None)], opset=11,
     inits=[helper.make_tensor("m", I64, [1], [4]), helper.make_tensor("iou", F, [1], [1.5])])
save("err_unique_huge", [helper.make_node("Unique", ["x"], ["y"], axis=0)],
     [vi("x", I64, [40000, 2])], [vi("y", I64, None)], opset=11)
save("err_compress_cond", [helper.make_node("Compress", ["x", "c"], ["y"], axis=0)],
     [vi("x", F, [4, 6]), vi("c", B, [4, 1])], [vi("y", F, None)], opset=11)
