#!/usr/bin/env python3
"""Writes the quantization models of quant.test into OUTDIR, with their
inputs (NAME_in0.npy, ... in graph-input order): attribute and type
combinations beyond the ONNX test data, compared with ONNX Runtime there.

    make_quant_models.py OUTDIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(5)


def save(name, node, inputs, outputs, feeds=(), inits=(), version=13,
         check=True):
    graph = helper.make_graph([node], name, inputs, outputs, list(inits))
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", version)])
    if check:
        onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, name + ".onnx"))
    for k, v in enumerate(feeds):
        np.save(os.path.join(out, "%s_in%d.npy" % (name, k)), v)


def vi(name, dtype, shape):
    return helper.make_tensor_value_info(name, dtype, shape)


F, U8, I8, I32 = (TensorProto.FLOAT, TensorProto.UINT8, TensorProto.INT8,
                  TensorProto.INT32)

# QuantizeLinear to int8, per axis 0, with exact halves (round to even) and
# values past the range (saturated).
scale = np.array([0.5, 0.25, 2.0], np.float32)
x = np.array([[0.25, 0.75, -0.25, 100.0],
              [0.125, -0.375, 40.0, -40.0],
              [1.0, 3.0, -5.0, 7.3]], np.float32)
save("quant_axis0",
     helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"], name="q", axis=0),
     [vi("x", F, [3, 4]), vi("s", F, [3]), vi("z", I8, [3])], [vi("y", I8, [3, 4])],
     feeds=[x, scale, np.array([-3, 0, 5], np.int8)])

# QuantizeLinear without a zero point: uint8.
save("quant_nozp",
     helper.make_node("QuantizeLinear", ["x", "s"], ["y"], name="q"),
     [vi("x", F, [2, 5]), vi("s", F, [])], [vi("y", U8, [2, 5])],
     feeds=[rng.uniform(-1, 30, (2, 5)).astype(np.float32),
            np.array(0.1, np.float32)])

# DequantizeLinear of int8, per axis -1.
save("dequant_axis",
     helper.make_node("DequantizeLinear", ["x", "s", "z"], ["y"], name="dq",
                      axis=-1),
     [vi("x", I8, [2, 3, 4]), vi("s", F, [4]), vi("z", I8, [4])],
     [vi("y", F, [2, 3, 4])],
     feeds=[rng.integers(-128, 128, (2, 3, 4)).astype(np.int8),
            np.array([0.1, 0.02, 1.5, 0.003], np.float32),
            np.array([0, -7, 12, 127], np.int8)])

# DynamicQuantizeLinear of a rank-3 tensor.
save("dynquant",
     helper.make_node("DynamicQuantizeLinear", ["x"], ["y", "s", "z"], name="dq"),
     [vi("x", F, [2, 3, 4])],
     [vi("y", U8, [2, 3, 4]), vi("s", F, []), vi("z", U8, [])],
     feeds=[rng.uniform(-2, 5, (2, 3, 4)).astype(np.float32)])
# ... and of zeros only: an empty range, scale 1 and zero point 0 as ONNX
# Runtime (a scale of 0 made the zero point 0 / 0).
np.save(os.path.join(out, "dynquant_zeros_in0.npy"), np.zeros((2, 3, 4), np.float32))

# MatMulInteger: batched uint8 A times int8 B, B's zero point per column.
save("matmulint",
     helper.make_node("MatMulInteger", ["a", "b", "za", "zb"], ["y"], name="mm"),
     [vi("a", U8, [2, 4, 5]), vi("b", I8, [5, 3]), vi("za", U8, []),
      vi("zb", I8, [3])],
     [vi("y", I32, [2, 4, 3])],
     feeds=[rng.integers(0, 256, (2, 4, 5)).astype(np.uint8),
            rng.integers(-128, 128, (5, 3)).astype(np.int8),
            np.array(131, np.uint8), np.array([-3, 0, 9], np.int8)])

# Its reference (matmulint_ref.onnx, which tide_vs_ort.py runs in ONNX
# Runtime instead): the same product in int32 (Cast, Sub, MatMul). ONNX
# Runtime's own MatMulInteger of uint8 by int8 is not exact on AVX2 CPUs
# without VNNI (its kernel adds pairs of products in saturating int16:
# 7.3e3 off on this input), so it cannot be the reference there.
ref_nodes = [helper.make_node("Cast", [n], [n + "32"], to=I32) for n in ("a", "b", "za", "zb")]
ref_nodes += [helper.make_node("Sub", ["a32", "za32"], ["ac"]),
              helper.make_node("Sub", ["b32", "zb32"], ["bc"]),
              helper.make_node("MatMul", ["ac", "bc"], ["y"])]
ref = helper.make_model(
    helper.make_graph(ref_nodes, "matmulint_ref",
                      [vi("a", U8, [2, 4, 5]), vi("b", I8, [5, 3]), vi("za", U8, []),
                       vi("zb", I8, [3])],
                      [vi("y", I32, [2, 4, 3])]),
    opset_imports=[helper.make_opsetid("", 13)])
onnx.checker.check_model(ref)
onnx.save(ref, os.path.join(out, "matmulint_ref.onnx"))

# ConvInteger with strides, pads and two groups.
save("convint",
     helper.make_node("ConvInteger", ["x", "w", "zx", "zw"], ["y"], name="conv",
                      strides=[2, 1], pads=[1, 0, 1, 2], group=2),
     [vi("x", U8, [1, 4, 5, 5]), vi("w", U8, [6, 2, 3, 3]), vi("zx", U8, []),
      vi("zw", U8, [])],
     [vi("y", I32, [1, 6, 3, 5])],
     feeds=[rng.integers(0, 256, (1, 4, 5, 5)).astype(np.uint8),
            rng.integers(0, 256, (6, 2, 3, 3)).astype(np.uint8),
            np.array(100, np.uint8), np.array(7, np.uint8)])

# QLinearMatMul of int8 tensors, batched.
save("qlinearmm",
     helper.make_node("QLinearMatMul", ["a", "sa", "za", "b", "sb", "zb", "sy",
                                        "zy"], ["y"], name="qmm"),
     [vi("a", I8, [2, 3, 6]), vi("sa", F, []), vi("za", I8, []),
      vi("b", I8, [6, 4]), vi("sb", F, []), vi("zb", I8, []),
      vi("sy", F, []), vi("zy", I8, [])],
     [vi("y", I8, [2, 3, 4])],
     feeds=[rng.integers(-128, 128, (2, 3, 6)).astype(np.int8),
            np.array(0.03, np.float32), np.array(2, np.int8),
            rng.integers(-128, 128, (6, 4)).astype(np.int8),
            np.array(0.02, np.float32), np.array(-1, np.int8),
            np.array(0.9, np.float32), np.array(-5, np.int8)])

# QLinearConv of uint8 with a per-channel weight scale, a bias, strides and
# pads.
save("qlinearconv",
     helper.make_node("QLinearConv", ["x", "sx", "zx", "w", "sw", "zw", "sy",
                                      "zy", "bias"], ["y"], name="qconv",
                      strides=[2, 2], pads=[1, 1, 1, 1]),
     [vi("x", U8, [1, 3, 6, 6]), vi("sx", F, []), vi("zx", U8, []),
      vi("w", U8, [4, 3, 3, 3]), vi("sw", F, [4]), vi("zw", U8, []),
      vi("sy", F, []), vi("zy", U8, []), vi("bias", I32, [4])],
     [vi("y", U8, [1, 4, 3, 3])],
     feeds=[rng.integers(0, 256, (1, 3, 6, 6)).astype(np.uint8),
            np.array(0.01, np.float32), np.array(120, np.uint8),
            rng.integers(0, 256, (4, 3, 3, 3)).astype(np.uint8),
            np.array([0.002, 0.004, 0.001, 0.003], np.float32),
            np.array(128, np.uint8), np.array(0.05, np.float32),
            np.array(100, np.uint8),
            rng.integers(-2000, 2000, (4,)).astype(np.int32)])

# Blocked quantization (opset 21): one scale (and zero point) per block of
# block_size elements along the axis; 7 columns in blocks of 3 leave a last
# block of 1.
save("quant_blocked",
     helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"], name="q", axis=1,
                      block_size=3),
     [vi("x", F, [2, 7]), vi("s", F, [2, 3]), vi("z", I8, [2, 3])], [vi("y", I8, [2, 7])],
     feeds=[rng.uniform(-20, 20, (2, 7)).astype(np.float32),
            rng.uniform(0.05, 0.3, (2, 3)).astype(np.float32),
            rng.integers(-10, 10, (2, 3)).astype(np.int8)], version=21, check=False)
save("dequant_blocked",
     helper.make_node("DequantizeLinear", ["x", "s", "z"], ["y"], name="dq", axis=0,
                      block_size=2),
     [vi("x", U8, [5, 3]), vi("s", F, [3, 3]), vi("z", U8, [3, 3])], [vi("y", F, [5, 3])],
     feeds=[rng.integers(0, 255, (5, 3)).astype(np.uint8),
            rng.uniform(0.01, 0.5, (3, 3)).astype(np.float32),
            rng.integers(100, 150, (3, 3)).astype(np.uint8)], version=21, check=False)

# Errors: a blocked scale of the wrong size, a 2-D scale without blocks.
save("quant_blocked_bad",
     helper.make_node("QuantizeLinear", ["x", "s"], ["y"], name="q", axis=1,
                      block_size=2),
     [vi("x", F, [2, 7]), vi("s", F, [2, 3])], [vi("y", U8, [2, 7])],
     version=21, check=False)
save("dequant_2d",
     helper.make_node("DequantizeLinear", ["x", "s"], ["y"], name="dq"),
     [vi("x", U8, [2, 4]), vi("s", F, [2, 4])], [vi("y", F, [2, 4])],
     check=False)

# NaN and infinities quantized: NaN saturates to the type's lowest value, as
# ONNX Runtime (to uint8 with a zero point of 128, to int8 with 5).
special = np.array([np.nan, np.inf, -np.inf, 1.5, -2.5, np.nan], np.float32)
save("quant_nan_u8",
     helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"], name="q"),
     [vi("x", F, [6]), vi("s", F, []), vi("z", U8, [])], [vi("y", U8, [6])],
     feeds=[special, np.array(0.5, np.float32), np.array(128, np.uint8)])
save("quant_nan_i8",
     helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"], name="q"),
     [vi("x", F, [6]), vi("s", F, []), vi("z", I8, [])], [vi("y", I8, [6])],
     feeds=[special, np.array(0.5, np.float32), np.array(5, np.int8)])

# More errors: a per-axis scale of 3 values for an axis of size 1 (it
# broadcast to a result of another shape); a zero point of another type than
# the input; output_dtype against the zero point's type.
save("quant_axis_size_bad",
     helper.make_node("QuantizeLinear", ["x", "s"], ["y"], name="q", axis=1),
     [vi("x", F, [2, 1]), vi("s", F, [3])], [vi("y", U8, [2, 1])], check=False)
save("qlinearconv_bias_bad",
     helper.make_node("QLinearConv", ["x", "sx", "zx", "w", "sw", "zw", "sy",
                                      "zy", "bias"], ["y"], name="qconv"),
     [vi("x", U8, [1, 3, 4, 4]), vi("sx", F, []), vi("zx", U8, []),
      vi("w", U8, [4, 3, 3, 3]), vi("sw", F, []), vi("zw", U8, []),
      vi("sy", F, []), vi("zy", U8, []), vi("bias", I32, [1])],
     [vi("y", U8, [1, 4, 2, 2])], check=False)
save("dequant_zp_type_bad",
     helper.make_node("DequantizeLinear", ["x", "s", "z"], ["y"], name="dq"),
     [vi("x", U8, [4]), vi("s", F, []), vi("z", I8, [])], [vi("y", F, [4])], check=False)
save("quant_dtype_bad",
     helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"], name="q",
                      output_dtype=TensorProto.UINT8),
     [vi("x", F, [4]), vi("s", F, []), vi("z", I8, [])], [vi("y", I8, [4])],
     version=21, check=False)

# DequantizeLinear-25's output_dtype: the result in float16 from a float32
# scale.
save("dequant_f16",
     helper.make_node("DequantizeLinear", ["x", "s"], ["y"], name="dq",
                      output_dtype=TensorProto.FLOAT16),
     [vi("x", I8, [4]), vi("s", F, [])], [vi("y", TensorProto.FLOAT16, [4])],
     feeds=[np.array([-128, -1, 3, 127], np.int8), np.array(0.25, np.float32)],
     version=25, check=False)
