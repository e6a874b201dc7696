#!/usr/bin/env python3
"""Writes the LRN, ReverseSequence, MaxUnpool, Det, GatherND (batch_dims)
and Einsum (ellipsis, diagonal) models of misc-ops.test into OUTDIR, with
their inputs (NAME_in0.npy, ... in graph-input order), compared with ONNX
Runtime there.

    make_misc_models.py OUTDIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(3)


def save(name, node, inputs, outputs, feeds=(), version=13, check=True):
    graph = helper.make_graph([node], name, inputs, outputs)
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", version)])
    if check:
        onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, name + ".onnx"))
    for k, v in enumerate(feeds):
        np.save(os.path.join(out, "%s_in%d.npy" % (name, k)), v)


def vi(name, dtype, shape):
    return helper.make_tensor_value_info(name, dtype, shape)


F, I64 = TensorProto.FLOAT, TensorProto.INT64

# LRN with a wide window and its own alpha, beta, bias (ONNX Runtime takes
# odd sizes only, of rank 4); and with the default attributes.
save("lrn_wide",
     helper.make_node("LRN", ["x"], ["y"], name="lrn", size=5, alpha=0.01,
                      beta=0.6, bias=1.5),
     [vi("x", F, [2, 6, 3, 3])], [vi("y", F, [2, 6, 3, 3])],
     feeds=[rng.normal(0, 2, (2, 6, 3, 3)).astype(np.float32)])
save("lrn_default",
     helper.make_node("LRN", ["x"], ["y"], name="lrn", size=3),
     [vi("x", F, [3, 7, 2, 3])], [vi("y", F, [3, 7, 2, 3])],
     feeds=[rng.normal(0, 2, (3, 7, 2, 3)).astype(np.float32)])

# ReverseSequence on rank 3, time-major and batch-major.
save("revseq_time",
     helper.make_node("ReverseSequence", ["x", "l"], ["y"], name="rev",
                      time_axis=0, batch_axis=1),
     [vi("x", F, [5, 3, 2]), vi("l", I64, [3])], [vi("y", F, [5, 3, 2])],
     feeds=[rng.normal(size=(5, 3, 2)).astype(np.float32),
            np.array([5, 1, 3], np.int64)])
save("revseq_batch",
     helper.make_node("ReverseSequence", ["x", "l"], ["y"], name="rev",
                      time_axis=1, batch_axis=0),
     [vi("x", F, [3, 5, 2]), vi("l", I64, [3])], [vi("y", F, [3, 5, 2])],
     feeds=[rng.normal(size=(3, 5, 2)).astype(np.float32),
            np.array([2, 5, 4], np.int64)])


def pool_indices(x, k, s, p):
    """MaxPool's flat indices (NCHW) of a 2-D max pool, no dilation."""
    n, c, h, w = x.shape
    oh = (h + p[0] + p[2] - k[0]) // s[0] + 1
    ow = (w + p[1] + p[3] - k[1]) // s[1] + 1
    vals = np.zeros((n, c, oh, ow), x.dtype)
    idx = np.zeros((n, c, oh, ow), np.int64)
    for a in range(n):
        for b in range(c):
            for i in range(oh):
                for j in range(ow):
                    best = None
                    for di in range(k[0]):
                        for dj in range(k[1]):
                            r, q = i * s[0] - p[0] + di, j * s[1] - p[1] + dj
                            if 0 <= r < h and 0 <= q < w and (
                                    best is None or x[a, b, r, q] > best[0]):
                                best = (x[a, b, r, q], ((a * c + b) * h + r) * w + q)
                    vals[a, b, i, j], idx[a, b, i, j] = best
    return vals, idx


# MaxUnpool after an overlapping, padded max pool (windows share maxima).
x = rng.normal(size=(2, 2, 5, 5)).astype(np.float32)
vals, idx = pool_indices(x, (3, 3), (2, 2), (1, 1, 1, 1))
save("unpool_overlap",
     helper.make_node("MaxUnpool", ["v", "i"], ["y"], name="unpool",
                      kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
     [vi("v", F, [2, 2, 3, 3]), vi("i", I64, [2, 2, 3, 3])],
     [vi("y", F, [2, 2, 5, 5])], feeds=[vals, idx])
# The same with output_shape given alongside the pads (the pool's input
# shape, undoing it): the pads still give the inferred shape (refused before:
# the pads were dropped, 7x7 taken as the inferred shape and 5x5 as too
# small).
g_up = helper.make_graph(
    [helper.make_node("MaxUnpool", ["v", "i", "s"], ["y"], name="unpool",
                      kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])],
    "unpool_pads_shape", [vi("v", F, [2, 2, 3, 3]), vi("i", I64, [2, 2, 3, 3])],
    [vi("y", F, [2, 2, 5, 5])],
    [onnx.numpy_helper.from_array(np.array([2, 2, 5, 5], np.int64), "s")])
onnx.save(helper.make_model(g_up, opset_imports=[helper.make_opsetid("", 13)]),
          os.path.join(out, "unpool_pads_shape.onnx"))
np.save(os.path.join(out, "unpool_pads_shape_in0.npy"), vals)
np.save(os.path.join(out, "unpool_pads_shape_in1.npy"), idx)
# An index past its (n, c) plane (the first plane's into the second): an error.
bad = idx.copy()
bad[0, 0, 1, 1] = 25 + 3
np.save(os.path.join(out, "unpool_bad_index.npy"), bad)

# Det of a batch of 4x4 matrices, one of them singular, one needing pivots.
m = rng.normal(size=(2, 3, 4, 4)).astype(np.float32)
m[0, 1, 2] = m[0, 1, 0] * 2
m[1, 2] = np.array([[0, 1, 2, 3], [1, 0, 0, 1], [2, 3, 0, 0], [0, 0, 1, 5]],
                   np.float32)
save("det_batch",
     helper.make_node("Det", ["x"], ["y"], name="det"),
     [vi("x", F, [2, 3, 4, 4])], [vi("y", F, [2, 3])], feeds=[m])

# GatherND with batch_dims = 2 and negative indices.
save("gathernd_b2",
     helper.make_node("GatherND", ["d", "i"], ["y"], name="gnd", batch_dims=2),
     [vi("d", F, [2, 3, 4, 5]), vi("i", I64, [2, 3, 2, 1])],
     [vi("y", F, [2, 3, 2, 5])],
     feeds=[rng.normal(size=(2, 3, 4, 5)).astype(np.float32),
            rng.integers(-4, 4, (2, 3, 2, 1)).astype(np.int64)])

# Einsum: a broadcast batched product through ellipses, and a batched trace
# (implicit output of '...ii').
save("einsum_ellipsis",
     helper.make_node("Einsum", ["a", "b"], ["y"], name="es",
                      equation="...ij,...jk->...ik"),
     [vi("a", F, [2, 3, 4, 5]), vi("b", F, [1, 3, 5, 6])],
     [vi("y", F, [2, 3, 4, 6])],
     feeds=[rng.normal(size=(2, 3, 4, 5)).astype(np.float32),
            rng.normal(size=(1, 3, 5, 6)).astype(np.float32)])
save("einsum_trace",
     helper.make_node("Einsum", ["a"], ["y"], name="es", equation="...ii"),
     [vi("a", F, [2, 3, 4, 4])], [vi("y", F, [2, 3])],
     feeds=[rng.normal(size=(2, 3, 4, 4)).astype(np.float32)])

# Errors: ReverseSequence axes that are not 0 and 1; LRN without a size.
save("revseq_axes",
     helper.make_node("ReverseSequence", ["x", "l"], ["y"], name="rev",
                      time_axis=2, batch_axis=0),
     [vi("x", F, [3, 5, 2]), vi("l", I64, [3])], [vi("y", F, [3, 5, 2])],
     check=False)
save("lrn_nosize",
     helper.make_node("LRN", ["x"], ["y"], name="lrn"),
     [vi("x", F, [2, 5, 7])], [vi("y", F, [2, 5, 7])], check=False)

# LpNormalization of slices that are all zero: zeros, not NaN (ONNX's text
# from opset 22; ONNX Runtime gives zeros at every opset).
for p in (1, 2):
    x = rng.normal(0, 1, (3, 4, 5)).astype(np.float32)
    x[:, 1, 2] = 0
    x[2, :, 4] = 0
    save("lpnorm_zero_p%d" % p, helper.make_node("LpNormalization", ["x"], ["y"], name="lp", axis=0, p=p),
         [vi("x", F, [3, 4, 5])], [vi("y", F, [3, 4, 5])], feeds=[x])

# A Pad whose pads PyTorch's TorchScript exporter computes from torch's order
# (last dimension first, (begin, end) pairs): Reshape to pairs, Slice with
# step -1, Transpose, Reshape, Cast. The importer must know them (they set
# the result's shape): every step folds while importing, the transpose of
# a constant included (torchvision's Swin transformer, opset 17).
pads_nodes = [
    helper.make_node("Constant", [], ["torch_pads"], value=helper.make_tensor(
        "torch_pads", I64, [8], [0, 0, 1, 2, 0, 3, 0, 0])),
    helper.make_node("Constant", [], ["pairs"], value=helper.make_tensor("pairs", I64, [2], [-1, 2])),
    helper.make_node("Reshape", ["torch_pads", "pairs"], ["by_pair"]),
    helper.make_node("Constant", [], ["starts"], value=helper.make_tensor("starts", I64, [1], [-1])),
    helper.make_node("Constant", [], ["ends"], value=helper.make_tensor("ends", I64, [1], [-(2**63) + 1])),
    helper.make_node("Constant", [], ["axes"], value=helper.make_tensor("axes", I64, [1], [0])),
    helper.make_node("Constant", [], ["steps"], value=helper.make_tensor("steps", I64, [1], [-1])),
    helper.make_node("Slice", ["by_pair", "starts", "ends", "axes", "steps"], ["reversed"]),
    helper.make_node("Transpose", ["reversed"], ["begin_end"], perm=[1, 0]),
    helper.make_node("Constant", [], ["flat"], value=helper.make_tensor("flat", I64, [1], [-1])),
    helper.make_node("Reshape", ["begin_end", "flat"], ["onnx_pads"]),
    helper.make_node("Cast", ["onnx_pads"], ["pads"], to=I64),
    helper.make_node("Pad", ["x", "pads"], ["y"], name="pad"),
]
pads_model = helper.make_model(
    helper.make_graph(pads_nodes, "pads_exported", [vi("x", F, [1, 4, 5, 6])],
                      [vi("y", F, [1, 7, 8, 6])]),
    opset_imports=[helper.make_opsetid("", 17)])
onnx.checker.check_model(pads_model)
onnx.save(pads_model, os.path.join(out, "pads_exported.onnx"))
np.save(os.path.join(out, "pads_exported_in0.npy"),
        rng.normal(0, 1, (1, 4, 5, 6)).astype(np.float32))

# Grouped convolutions between others (a MobileNet-style chain): the
# pointwise convolutions make the grouped ones channels-last too, which
# oneDNN runs on NHWC data: depthwise 3x3 with stride 2, a grouped 3x3 with
# dilation 2, a depthwise one with two filters per channel, batch 2, biases.
def conv_node(name, x, w, b, **attrs):
    return helper.make_node("Conv", [x, w, b], [name], name=name, **attrs)


inits = []


def weight(name, shape):
    inits.append(numpy_helper.from_array(
        (rng.standard_normal(shape) * 0.3).astype(np.float32), name))
    return name


C = 8
nodes = [
    conv_node("pw1", "x", weight("w1", [C, 4, 1, 1]), weight("b1", [C])),
    helper.make_node("Relu", ["pw1"], ["r1"]),
    conv_node("dw", "r1", weight("wd", [C, 1, 3, 3]), weight("bd", [C]),
              group=C, strides=[2, 2], pads=[1, 1, 1, 1]),
    conv_node("gc", "dw", weight("wg", [C, C // 2, 3, 3]), weight("bg", [C]),
              group=2, dilations=[2, 2], pads=[2, 2, 2, 2]),
    conv_node("dw2", "gc", weight("wd2", [2 * C, 1, 3, 3]), weight("bd2", [2 * C]),
              group=C, pads=[1, 0, 1, 0]),
    conv_node("pw2", "dw2", weight("w2", [6, 2 * C, 1, 1]), weight("b2", [6])),
]
grouped = helper.make_model(
    helper.make_graph(nodes, "grouped_chain", [vi("x", F, [2, 4, 11, 11])],
                      [vi("pw2", F, [2, 6, 6, 4])], inits),
    opset_imports=[helper.make_opsetid("", 13)])
onnx.checker.check_model(grouped)
onnx.save(grouped, os.path.join(out, "grouped_chain.onnx"))
np.save(os.path.join(out, "grouped_chain_in0.npy"),
        rng.standard_normal((2, 4, 11, 11)).astype(np.float32))

# Celu gives a positive x back exactly (alpha * elu(x / alpha) was a rounding
# away from it, and an Equal or a Mod after it saw the difference).
celu = helper.make_model(
    helper.make_graph(
        [helper.make_node("Celu", ["x"], ["c"], name="celu", alpha=0.875),
         helper.make_node("Equal", ["x", "c"], ["y"], name="same")],
        "celu_exact", [vi("x", F, [4, 64])], [vi("y", TensorProto.BOOL, [4, 64])]),
    opset_imports=[helper.make_opsetid("", 13)])
onnx.checker.check_model(celu)
onnx.save(celu, os.path.join(out, "celu_exact.onnx"))
np.save(os.path.join(out, "celu_exact_in0.npy"),
        rng.normal(0, 3, (4, 64)).astype(np.float32))

# Celu with a negative alpha: exp(x / alpha) - 1 as written (Elu's identity
# branch for x / alpha > 0 gave x for a negative x).
save("celu_negative_alpha",
     helper.make_node("Celu", ["x"], ["y"], name="celu", alpha=-0.75),
     [vi("x", F, [4, 16])], [vi("y", F, [4, 16])], version=13,
     feeds=[rng.normal(0, 2, (4, 16)).astype(np.float32)])

# Found by an audit of the elementwise importers (each compared with ONNX
# Runtime): Clip's missing bounds are the type's largest finite values, so an
# infinity is clamped (f32 and f16, no bounds and one); Shrink on integers
# compares and shifts in floating point; OneHot of int8 indices with a depth
# past int8's range; an axis out of range is an error.
inf = np.array([np.inf, -np.inf, 3, 1, -7, 9], np.float32)
save("clip_nobounds",
     helper.make_node("Clip", ["x"], ["y"], name="clip"),
     [vi("x", F, [6])], [vi("y", F, [6])], feeds=[inf])
save("clip_min_only_f16",
     helper.make_node("Clip", ["x", "lo"], ["y"], name="clip"),
     [vi("x", TensorProto.FLOAT16, [6]), vi("lo", TensorProto.FLOAT16, [])],
     [vi("y", TensorProto.FLOAT16, [6])],
     feeds=[inf.astype(np.float16), np.array(-2, np.float16)])
save("shrink_u8",
     helper.make_node("Shrink", ["x"], ["y"], name="shrink", lambd=1.5, bias=1.0),
     [vi("x", TensorProto.UINT8, [4])], [vi("y", TensorProto.UINT8, [4])],
     feeds=[np.array([1, 2, 5, 200], np.uint8)])
save("shrink_i32",
     helper.make_node("Shrink", ["x"], ["y"], name="shrink", lambd=0.5, bias=0.5),
     [vi("x", TensorProto.INT32, [5])], [vi("y", TensorProto.INT32, [5])],
     feeds=[np.array([5, -5, 0, 1, -1], np.int32)])
g_onehot = helper.make_graph(
    [helper.make_node("OneHot", ["i", "d", "v"], ["y"], name="onehot")],
    "onehot_i8_wide", [vi("i", TensorProto.INT8, [3])], [vi("y", F, [3, 300])],
    [numpy_helper.from_array(np.array(300, np.int64), "d"),
     numpy_helper.from_array(np.array([0, 1], np.float32), "v")])
onnx.save(helper.make_model(g_onehot, opset_imports=[helper.make_opsetid("", 13)]),
          os.path.join(out, "onehot_i8_wide.onnx"))
np.save(os.path.join(out, "onehot_i8_wide_in0.npy"), np.array([0, -1, 100], np.int8))
want = np.zeros((3, 300), np.float32)  # (ONNX Runtime has no int8 OneHot)
want[0, 0] = want[1, 299] = want[2, 100] = 1
np.save(os.path.join(out, "onehot_i8_wide_want.npy"), want)
g_onehot = helper.make_graph(
    [helper.make_node("OneHot", ["i", "d", "v"], ["y"], name="onehot", axis=5)],
    "onehot_axis_bad", [vi("i", I64, [3])], [vi("y", F, None)],
    [numpy_helper.from_array(np.array(4, np.int64), "d"),
     numpy_helper.from_array(np.array([0, 1], np.float32), "v")])
onnx.save(helper.make_model(g_onehot, opset_imports=[helper.make_opsetid("", 13)]),
          os.path.join(out, "onehot_axis_bad.onnx"))

# Trilu with an empty k (it was read past its end), and ReduceMean at opset
# 18 with axes as an attribute (it reduced every axis): errors naming the node.
g_trilu = helper.make_graph(
    [helper.make_node("Trilu", ["x", "k"], ["y"], name="trilu")], "trilu_k_empty",
    [vi("x", F, [3, 3])], [vi("y", F, [3, 3])],
    [numpy_helper.from_array(np.zeros((0,), np.int64), "k")])
onnx.save(helper.make_model(g_trilu, opset_imports=[helper.make_opsetid("", 14)]),
          os.path.join(out, "trilu_k_empty.onnx"))
save("reduce_axes_attr_18",
     helper.make_node("ReduceMean", ["x"], ["y"], name="mean", axes=[1]),
     [vi("x", F, [2, 3])], [vi("y", F, [2, 1])], version=18, check=False)

# Resize to an axis too large for its tap tables (scales of inf, sizes of
# 2^40) and pools with a kernel size below 1: errors naming the node, not an
# abort.
for name, ins, inits in [
        ("resize_scale_inf", ["x", "", "s"],
         [numpy_helper.from_array(np.array([1, 1, 1, np.inf], np.float32), "s")]),
        ("resize_size_huge", ["x", "", "", "z"],
         [numpy_helper.from_array(np.array([1, 1, 1, 2 ** 40], np.int64), "z")])]:
    g_r = helper.make_graph(
        [helper.make_node("Resize", ins, ["y"], name="resize", mode="linear")], name,
        [vi("x", F, [1, 1, 1, 4])], [vi("y", F, None)], inits)
    onnx.save(helper.make_model(g_r, opset_imports=[helper.make_opsetid("", 13)]),
              os.path.join(out, name + ".onnx"))
for name, op in [("lppool_kernel_bad", "LpPool"), ("maxpool_kernel_bad", "MaxPool")]:
    save(name, helper.make_node(op, ["x"], ["y"], name="pool", kernel_shape=[-2]),
         [vi("x", F, [1, 2, 5])], [vi("y", F, None)], check=False)

# Slices whose step is INT64_MAX or INT64_MIN (the counts overflowed: a
# dimension of -1, a read past a shape's end): of a shape value, of a tensor,
# and reversed.
I64MAX, I64MIN = np.iinfo(np.int64).max, np.iinfo(np.int64).min
g_sl = helper.make_graph(
    [helper.make_node("Shape", ["x"], ["s"]),
     helper.make_node("Slice", ["s", "b1", "e1", "a0", "big"], ["ys"], name="slice_shape"),
     helper.make_node("Slice", ["v", "b0", "e1", "a0", "big"], ["yv"], name="slice_big"),
     helper.make_node("Slice", ["v", "bm", "e0", "a0", "small"], ["yr"], name="slice_rev")],
    "slice_huge_steps", [vi("x", F, ["n", 2, 3]), vi("v", F, [3])],
    [vi("ys", I64, [1]), vi("yv", F, [1]), vi("yr", F, [1])],
    [numpy_helper.from_array(np.array([v], np.int64), k) for k, v in
     [("b1", 1), ("b0", 0), ("bm", -1), ("e1", I64MAX), ("e0", I64MIN), ("a0", 0),
      ("big", I64MAX), ("small", I64MIN)]])
onnx.save(helper.make_model(g_sl, opset_imports=[helper.make_opsetid("", 13)]),
          os.path.join(out, "slice_huge_steps.onnx"))
np.save(os.path.join(out, "slice_huge_steps_in0.npy"), np.zeros((4, 2, 3), np.float32))
np.save(os.path.join(out, "slice_huge_steps_in1.npy"), np.array([5, 6, 7], np.float32))

# ReverseSequence with a length past the time axis (5 of 5 is fine, 6 is
# not): an error when the model runs, as ONNX Runtime's; the gather clamped
# it before.
np.save(os.path.join(out, "revseq_time_long_in0.npy"),
        rng.normal(size=(5, 3, 2)).astype(np.float32))
np.save(os.path.join(out, "revseq_time_long_in1.npy"), np.array([5, 6, 0], np.int64))

# Pow with an exponent of a wider float type than the base's: the power in
# the wider type (the exponent was rounded to the base's first: 10 (f16) **
# 3.3 (f32) gave 2000, ONNX Runtime 1995).
for name, tb, te, nb, ne, xv, yv in [
        ("pow_f32_f64", F, TensorProto.DOUBLE, np.float32, np.float64, [2.0, 3.0, 1.5],
         [100.1, 20.3, -7.77]),
        ("pow_f16_f32", TensorProto.FLOAT16, F, np.float16, np.float32, [10.0, 2.0, 0.5],
         [3.3, 5.7, 2.01])]:
    save(name, helper.make_node("Pow", ["x", "e"], ["y"], name="pow"),
         [vi("x", tb, [3]), vi("e", te, [3])], [vi("y", tb, [3])], version=15,
         feeds=[np.array(xv, nb), np.array(yv, ne)])

# A convolution's bias of one value for three output channels (it broadcast
# to every channel; ONNX Runtime refuses it): an error naming the node.
for name, op, wshape in [("conv_bias_bad", "Conv", [3, 2, 1, 1]),
                         ("convt_bias_bad", "ConvTranspose", [2, 3, 1, 1])]:
    g_b = helper.make_graph(
        [helper.make_node(op, ["x", "w", "b"], ["y"], name="conv")], name,
        [vi("x", F, [1, 2, 4, 4])], [vi("y", F, None)],
        [numpy_helper.from_array(np.ones(wshape, np.float32), "w"),
         numpy_helper.from_array(np.ones([1], np.float32), "b")])
    onnx.save(helper.make_model(g_b, opset_imports=[helper.make_opsetid("", 13)]),
              os.path.join(out, name + ".onnx"))

# ReduceMax of a shape with no axes and noop_with_empty_axes = 1 (opset 18):
# the shape itself (it gave [max(N, 3)]).
g_rs = helper.make_graph(
    [helper.make_node("Shape", ["x"], ["s"]),
     helper.make_node("ReduceMax", ["s"], ["y"], name="rmax", noop_with_empty_axes=1)],
    "reduce_shape_noop", [vi("x", F, ["n", 3])], [vi("y", I64, [2])])
onnx.save(helper.make_model(g_rs, opset_imports=[helper.make_opsetid("", 18)]),
          os.path.join(out, "reduce_shape_noop.onnx"))
np.save(os.path.join(out, "reduce_shape_noop_in0.npy"), np.zeros((5, 3), np.float32))

# Split into equal parts (before opset 18) of an axis that does not divide,
# and num_outputs (opset 18) leaving an empty last part: errors, as in ONNX
# Runtime; over a run-time axis, run-time errors. num_outputs 3 over 7: 3, 3
# and 1 (static and run-time).
save("split_uneven_13",
     helper.make_node("Split", ["x"], ["a", "b", "c"], name="split", axis=0),
     [vi("x", F, [7])], [vi(o, F, None) for o in "abc"], check=False)
save("split_empty_last_18",
     helper.make_node("Split", ["x"], ["a", "b", "c", "d"], name="split", axis=0,
                      num_outputs=4),
     [vi("x", F, [6])], [vi(o, F, None) for o in "abcd"], version=18, check=False)
save("split_uneven_13_dyn",
     helper.make_node("Split", ["x"], ["a", "b", "c"], name="split", axis=0),
     [vi("x", F, ["n"])], [vi(o, F, None) for o in "abc"],
     feeds=[np.arange(7, dtype=np.float32)], check=False)
save("split_empty_last_18_dyn",
     helper.make_node("Split", ["x"], ["a", "b", "c", "d"], name="split", axis=0,
                      num_outputs=4),
     [vi("x", F, ["n"])], [vi(o, F, None) for o in "abcd"],
     feeds=[np.arange(6, dtype=np.float32)], version=18, check=False)
save("split_n3_dyn",
     helper.make_node("Split", ["x"], ["a", "b", "c"], name="split", axis=0, num_outputs=3),
     [vi("x", F, ["n"])], [vi(o, F, None) for o in "abc"],
     feeds=[np.arange(7, dtype=np.float32)], version=18, check=False)

# BlackmanWindow with an integer output_datatype: its peak is exactly 1
# (summed in the ONNX reference's order; 0.9999999999999999 truncated to 0
# before), symmetric over 7 and periodic over 2.
for name, size, periodic in (("blackman_i32_sym7", 7, 0), ("blackman_i32_per2", 2, 1)):
    g_w = helper.make_graph(
        [helper.make_node("BlackmanWindow", ["n"], ["y"], name="w", periodic=periodic,
                          output_datatype=TensorProto.INT32)],
        name, [], [vi("y", TensorProto.INT32, [size])],
        [onnx.numpy_helper.from_array(np.array(size, np.int64), "n")])
    onnx.save(helper.make_model(g_w, opset_imports=[helper.make_opsetid("", 17)]),
              os.path.join(out, name + ".onnx"))

# ReduceLogSumExp of rows whose largest value is +inf (inf, not the NaN of
# inf - inf), -inf, NaN and large finite values.
save("logsumexp_inf",
     helper.make_node("ReduceLogSumExp", ["x"], ["y"], name="lse", axes=[1], keepdims=0),
     [vi("x", F, [6, 2])], [vi("y", F, [6])],
     feeds=[np.array([[-np.inf, -np.inf], [np.inf, 1], [np.nan, 1], [np.inf, -np.inf],
                      [1e30, 1e30], [-1e30, -1e30]], np.float32)])
