#!/usr/bin/env python3
"""Writes the small Conv/MaxPool/AveragePool models of nn.test into OUTDIR
(built with onnx.helper at test time).

    make_nn_models.py OUTDIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def save(nodes, inputs, outputs, inits, name):
    graph = helper.make_graph(nodes, name, inputs, outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, name + ".onnx"))


def f32(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


w = numpy_helper.from_array(np.ones((4, 3, 3, 3), np.float32), "w")
b = numpy_helper.from_array(np.arange(4, dtype=np.float32), "b")

# Conv with a bias and auto_pad SAME_UPPER (stride 2 on 7: 4 outputs, 2 pads,
# one before and one after), then MaxPool SAME_LOWER and AveragePool.
save([helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv1", auto_pad="SAME_UPPER",
                       strides=[2, 2]),
      helper.make_node("MaxPool", ["c"], ["m"], name="pool1", auto_pad="SAME_LOWER",
                       kernel_shape=[2, 2]),
      helper.make_node("AveragePool", ["m"], ["y"], name="pool2", kernel_shape=[3, 3],
                       pads=[1, 1, 1, 1], count_include_pad=1, ceil_mode=1, strides=[2, 2])],
     [f32("x", ["batch", 3, 7, 7])], [f32("y", ["batch", 4, 3, 3])], [w, b], "cnn")

# MaxPool asked for its Indices output: imported (argmax over gathered
# windows), but not with a window that lies wholly in the padding.
save([helper.make_node("MaxPool", ["x"], ["y", "i"], name="pool", kernel_shape=[2, 2])],
     [f32("x", ["N", 3, 4, 4])],
     [f32("y", ["N", 3, 3, 3]), helper.make_tensor_value_info("i", TensorProto.INT64, ["N", 3, 3, 3])],
     [], "maxpool_indices")
save([helper.make_node("MaxPool", ["x"], ["y", "i"], name="pool", kernel_shape=[2, 2],
                       pads=[3, 0, 0, 0], strides=[1, 1])],
     [f32("x", [1, 1, 4, 4])],
     [f32("y", [1, 1, 3, 3]), helper.make_tensor_value_info("i", TensorProto.INT64, [1, 1, 3, 3])],
     [], "maxpool_indices_padding")

save([helper.make_node("MaxPool", ["x"], ["y", "i"], name="pool", kernel_shape=[1, 1])],
     [f32("x", [1, 1, 2100, 2100])],
     [f32("y", [1, 1, 2100, 2100]),
      helper.make_tensor_value_info("i", TensorProto.INT64, [1, 1, 2100, 2100])],
     [], "maxpool_indices_large")

# Conv whose group does not divide the channels.
save([helper.make_node("Conv", ["x", "w"], ["y"], name="conv", group=2)],
     [f32("x", [1, 3, 7, 7])], [f32("y", [1, 4, 5, 5])], [w], "conv_groups")

# ConvTranspose with a constant weight (flipped and transposed while
# importing), stride 2 and a bias.
wt = numpy_helper.from_array(np.arange(8, dtype=np.float32).reshape(2, 1, 2, 2), "wt")
save([helper.make_node("ConvTranspose", ["x", "wt", "b2"], ["y"], name="up", strides=[2, 2],
                       pads=[0, 0, 1, 1])],
     [f32("x", ["batch", 2, 3, 3])], [f32("y", ["batch", 1, 5, 5])],
     [wt, numpy_helper.from_array(np.array([0.5], np.float32), "b2")], "convtranspose")

# Resize: linear on the last two axes (one gather, the weights, a sum per
# axis), nearest on the channels.
scales = numpy_helper.from_array(np.array([1, 1, 2, 1.5], np.float32), "scales")
save([helper.make_node("Resize", ["x", "", "scales"], ["y"], name="resize", mode="linear")],
     [f32("x", [1, 2, 3, 4])], [f32("y", [1, 2, 6, 6])], [scales], "resize_linear")
save([helper.make_node("Resize", ["x", "", "scales"], ["y"], name="resize", mode="nearest")],
     [f32("x", [1, 2, 3, 4])], [f32("y", [1, 2, 6, 6])], [scales], "resize_nearest")
# ... a symbolic batch (the index tables broadcast over it).
save([helper.make_node("Resize", ["x", "", "scales"], ["y"], name="resize", mode="nearest")],
     [f32("x", ["batch", 2, 3, 4])], [f32("y", ["batch", 2, 6, 6])], [scales], "resize_dynamic")
# ... scales and sizes both.
sizes = numpy_helper.from_array(np.array([1, 2, 6, 6], np.int64), "sizes")
save([helper.make_node("Resize", ["x", "", "scales", "sizes"], ["y"], name="resize")],
     [f32("x", [1, 2, 3, 4])], [f32("y", [1, 2, 6, 6])], [scales, sizes], "resize_both")
