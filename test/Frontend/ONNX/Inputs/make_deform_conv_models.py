#!/usr/bin/env python3
"""Writes the models of deform-conv.test (ONNX DeformConv, opset 19), their
inputs and the outputs of a direct NumPy loop (each tap sampled bilinearly
at its offset position, zero outside the image) into OUTDIR.

    make_deform_conv_models.py OUTDIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(19)
F, D = TensorProto.FLOAT, TensorProto.DOUBLE


def sample(img, y, x):
    """Bilinear sample of the 2-D `img` at (y, x), zero outside."""
    h, w = img.shape
    y0, x0 = int(np.floor(y)), int(np.floor(x))
    total = 0.0
    for yy in (y0, y0 + 1):
        for xx in (x0, x0 + 1):
            if 0 <= yy < h and 0 <= xx < w:
                total += (1 - abs(y - yy)) * (1 - abs(x - xx)) * img[yy, xx]
    return total


def deform_conv(x, w, offset, bias=None, mask=None, strides=(1, 1), pads=(0, 0, 0, 0),
                dilations=(1, 1), group=1, offset_group=1):
    n, c, h, wd = x.shape
    oc, cpg, kh, kw = w.shape
    oh, ow = offset.shape[2:]
    off = offset.reshape(n, offset_group, kh, kw, 2, oh, ow).astype(np.float64)
    m = (np.ones((n, offset_group, kh, kw, oh, ow)) if mask is None
         else mask.reshape(n, offset_group, kh, kw, oh, ow).astype(np.float64))
    y = np.zeros((n, oc, oh, ow))
    opg = oc // group
    for b in range(n):
        for o in range(oc):
            g = o // opg
            for ci in range(cpg):
                ch = g * cpg + ci
                og = ch // (c // offset_group)
                for i in range(oh):
                    for j in range(ow):
                        for a in range(kh):
                            for e in range(kw):
                                py = -pads[0] + strides[0] * i + a * dilations[0] + off[b, og, a, e, 0, i, j]
                                px = -pads[1] + strides[1] * j + e * dilations[1] + off[b, og, a, e, 1, i, j]
                                y[b, o, i, j] += (w[o, ci, a, e] * m[b, og, a, e, i, j]
                                                  * sample(x[b, ch].astype(np.float64), py, px))
    if bias is not None:
        y += bias.reshape(1, -1, 1, 1)
    return y


def save(name, node, inputs, outputs):
    graph = helper.make_graph([node], name, inputs, outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])
    onnx.save(model, os.path.join(out, name + ".onnx"))


def info(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def npy(name, a):
    np.save(os.path.join(out, name + ".npy"), a)


# Two groups, two offset groups, stride 2, pads, dilation 2, a mask and a
# bias; offsets large enough to leave the image. A symbolic batch.
x = rng.standard_normal((2, 4, 9, 8)).astype(np.float32)
w = rng.standard_normal((6, 2, 3, 2)).astype(np.float32)
attrs = dict(strides=[2, 1], pads=[1, 2, 0, 1], dilations=[2, 1], group=2, offset_group=2)
oh = (9 + 1 + 0 - 2 * 2 - 1) // 2 + 1
ow = (8 + 2 + 1 - 1 * 1 - 1) // 1 + 1
offset = (rng.standard_normal((2, 2 * 6 * 2, oh, ow)) * 2.5).astype(np.float32)
mask = rng.random((2, 2 * 6, oh, ow)).astype(np.float32)
bias = rng.standard_normal(6).astype(np.float32)
save("deform", helper.make_node("DeformConv", ["x", "w", "o", "b", "m"], ["y"], name="dc", **attrs),
     [info("x", F, ["n", 4, 9, 8]), info("w", F, [6, 2, 3, 2]), info("o", F, ["n", 24, oh, ow]),
      info("b", F, [6]), info("m", F, ["n", 12, oh, ow])], [info("y", F, ["n", 6, oh, ow])])
for name, a in [("x", x), ("w", w), ("o", offset), ("b", bias), ("m", mask)]:
    npy("dc_" + name, a)
npy("dc_want", deform_conv(x, w, offset, bias, mask, strides=(2, 1), pads=(1, 2, 0, 1),
                           dilations=(2, 1), group=2, offset_group=2).astype(np.float32))
# f64, no mask or bias, integer offsets (exact taps): with zero offsets it
# is a plain convolution.
x = rng.standard_normal((1, 3, 5, 5))
w = rng.standard_normal((2, 3, 2, 2))
offset = rng.integers(-1, 2, (1, 8, 4, 4)).astype(np.float64)
save("deform_f64", helper.make_node("DeformConv", ["x", "w", "o"], ["y"], name="dc"),
     [info("x", D, [1, 3, 5, 5]), info("w", D, [2, 3, 2, 2]), info("o", D, [1, 8, 4, 4])],
     [info("y", D, [1, 2, 4, 4])])
npy("dc64_x", x)
npy("dc64_w", w)
npy("dc64_o", offset)
npy("dc64_want", deform_conv(x, w, offset))
# Errors: an offset of the wrong shape; a 1-D convolution.
save("deform_bad_offset", helper.make_node("DeformConv", ["x", "w", "o"], ["y"], name="dc"),
     [info("x", F, [1, 3, 5, 5]), info("w", F, [2, 3, 2, 2]), info("o", F, [1, 6, 4, 4])],
     [info("y", F, [1, 2, 4, 4])])
save("deform_1d", helper.make_node("DeformConv", ["x", "w", "o"], ["y"], name="dc"),
     [info("x", F, [1, 3, 5]), info("w", F, [2, 3, 2]), info("o", F, [1, 2, 4])],
     [info("y", F, [1, 2, 4])])
