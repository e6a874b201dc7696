#!/usr/bin/env python3
"""Models whose values the importer computes while importing
(FoldShapes.cpp, SymbolicShapes.cpp), each with an input x of symbolic size
so that shape arithmetic runs both folded and at run time, for tide_vs_ort.py
at zero tolerance: integer comparisons and casts past 2^53, uint64 past
2^63, NaN in Max/Min, out-of-range float-to-integer casts, a Gather of a
shape with 2-D indices, an Unsqueeze of a size with two axes.

    make_fold_models.py OUTDIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as TP, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


class Graph:
    def __init__(self):
        self.nodes, self.n = [], 0

    def const(self, v, dt=np.int64):
        self.n += 1
        name = "k%d" % self.n
        self.nodes.append(helper.make_node("Constant", [], [name],
                                           value=numpy_helper.from_array(np.asarray(v, dt))))
        return name

    def op(self, op, ins, name=None, **attrs):
        self.n += 1
        name = name or "t%d" % self.n
        self.nodes.append(helper.make_node(op, ins, [name], **attrs))
        return name


def save(name, g, inputs, outputs, feeds, opset=18):
    gi = [helper.make_tensor_value_info(n, t, sh) for n, t, sh in inputs]
    go = [helper.make_tensor_value_info(o, TP.UNDEFINED, None) for o in outputs]
    m = helper.make_model(helper.make_graph(g.nodes, name, gi, go),
                          opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    inferred = onnx.shape_inference.infer_shapes(m)
    types = {v.name: v.type.tensor_type.elem_type
             for v in list(inferred.graph.value_info) + list(inferred.graph.output)}
    for o in m.graph.output:
        o.type.tensor_type.elem_type = types.get(o.name, 0) or TP.FLOAT
    onnx.save(m, os.path.join(out, name + ".onnx"))
    for k, a in enumerate(feeds):
        np.save(os.path.join(out, "%s_in%d.npy" % (name, k)), a)


x1 = [("x", TP.FLOAT, ["N"])]
ones = [np.ones(3, np.float32)]

# Comparisons of int64 constants past 2^53 (compared as doubles before).
g = Graph()
a, b = g.const([2 ** 53 + 1, 2 ** 62 + 1, 5]), g.const([2 ** 53, 2 ** 62, 5])
g.op("Equal", [a, b], "eq")
g.op("Greater", [a, b], "gt")
s = g.op("Shape", ["x"])
g.op("Equal", [g.op("Concat", [s, g.const([2 ** 53 + 1])], axis=0),
               g.op("Concat", [s, g.const([2 ** 53])], axis=0)], "eq_sym")
g.op("Identity", ["x"], "xo")
save("cmp_big", g, x1, ["eq", "gt", "eq_sym", "xo"], ones)

# uint64 past 2^63: Max, Min, Div, Greater, and casts to floats.
g = Graph()
a = g.const([2 ** 63 + 10, 7, 2 ** 64 - 1], np.uint64)
b = g.const([3, 2 ** 63, 2], np.uint64)
g.op("Max", [a, b], "mx")
g.op("Min", [a, b], "mn")
g.op("Div", [a, b], "dv")
g.op("Greater", [a, b], "gt")
c = g.const([2 ** 63 + 2 ** 40, 2 ** 64 - 2 ** 12, 5], np.uint64)
g.op("Cast", [c], "f32", to=TP.FLOAT)
g.op("Cast", [c], "f64", to=TP.DOUBLE)
g.op("Identity", ["x"], "xo")
save("uint64_big", g, x1, ["mx", "mn", "dv", "gt", "f32", "f64", "xo"], ones)

# Max and Min of float constants holding NaN propagate it.
g = Graph()
a, b = g.const([np.nan, 1.0, -3.0], np.float32), g.const([2.0, np.nan, 0.0], np.float32)
g.op("Max", [a, b], "mx")
g.op("Min", [a, b], "mn")
g.op("Identity", ["x"], "xo")
save("minmax_nan", g, x1, ["mx", "mn", "xo"], ones)

# int64 to f32 and f16, rounded once (through a double twice before).
g = Graph()
g.op("Cast", [g.const([2 ** 60 + 2 ** 36 + 1, 2 ** 53 + 2 ** 29 + 1, 16777217, 3])], "f",
     to=TP.FLOAT)
g.op("Cast", [g.const([2049, 65519, 2 ** 40 + 2 ** 29 + 1])], "h", to=TP.FLOAT16)
g.op("Identity", ["x"], "xo")
save("cast_int_float", g, x1, ["f", "h", "xo"], ones)

# Floats out of an integer type's range: as the run-time code and ONNX
# Runtime compute them (through an i32: 3e9 is INT32_MIN, 0 as int16).
g = Graph()
c = g.const([3e9, -3e9, 70000.5, -1.5, 255.9], np.float32)
g.op("Cast", [c], "i32", to=TP.INT32)
g.op("Cast", [c], "i16", to=TP.INT16)
g.op("Cast", [c], "u8", to=TP.UINT8)
g.op("Identity", ["x"], "xo")
save("cast_float_int_range", g, x1, ["i32", "i16", "u8", "xo"], ones)

# A Gather of a shape with 2-D indices is 2-D (flattened before).
g = Graph()
g.op("Gather", [g.op("Shape", ["x"]), g.const([[-1, 0], [1, -2]])], "gather_2d")
save("shape_gather_2d", g, [("x", TP.FLOAT, ["A", 3, 4, 5])], ["gather_2d"],
     [np.ones((2, 3, 4, 5), np.float32)])

# An Unsqueeze of a size with two axes is of rank 2 (rank 1 before).
g = Graph()
n = g.op("Gather", [g.op("Shape", ["x"]), g.const(0)])
g.op("Unsqueeze", [n, g.const([0, 1])], "u2")
save("size_unsqueeze_2", g, x1, ["u2"], ones, opset=17)

# INT64_MAX next to a size, cast to int32: wraps to -1 (kept before).
g = Graph()
s = g.op("Concat", [g.op("Shape", ["x"]), g.const([2 ** 63 - 1])], axis=0)
g.op("Cast", [s], "s32", to=TP.INT32)
save("shape_cast_int32", g, x1, ["s32"], ones)
