#!/usr/bin/env python3
"""Models of ONNX's float8, float4, int4 and int2 types (ConvertNarrow.cpp),
with inputs and expected outputs: make_narrow_models.py OUT_DIR.

The float types' expected codes come from ml_dtypes (what ONNX's reference
converts with), over every float16 value, the types' ties and edges, and
random f32 and f64 values; the integer types' from NumPy, as ONNX 1.23's
reference converts (a float truncated toward zero, then wrapped to its low
bits as an integer is). Carriers: float types as their bits in
uint8, INT4/INT2 values in int8, UINT4/UINT2 values in uint8."""
import os
import sys

import ml_dtypes
import numpy as np
import onnx
from onnx import TensorProto, helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(7)

FLOATS = {  # ONNX data type: ml_dtypes type, 4-bit
    17: ("e4m3fn", ml_dtypes.float8_e4m3fn),
    18: ("e4m3fnuz", ml_dtypes.float8_e4m3fnuz),
    19: ("e5m2", ml_dtypes.float8_e5m2),
    20: ("e5m2fnuz", ml_dtypes.float8_e5m2fnuz),
    23: ("e2m1", ml_dtypes.float4_e2m1fn),
}
INTS = {21: ("uint4", 0, 15), 22: ("int4", -8, 7), 25: ("uint2", 0, 3),
        26: ("int2", -2, 1)}


def save(name, a):
    np.save(os.path.join(out, name + ".npy"), a)


def model(name, nodes, inputs, outputs, inits=(), opset=25):
    g = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 11
    onnx.save(m, os.path.join(out, name + ".onnx"))


def vi(name, dt, shape):
    return helper.make_tensor_value_info(name, dt, shape)


def codes(a, t):
    bits = a.astype(t).view(np.uint8)
    return bits


# Inputs to encode: every finite and infinite float16, each type's ties
# (midpoints between neighbours) and neighbours of the ties, random f32.
x = np.arange(65536, dtype=np.uint16).view(np.float16).astype(np.float32)
for dt, (short, t) in FLOATS.items():
    values = np.arange(16 if dt == 23 else 256, dtype=np.uint8).view(t)
    v = np.sort(values.astype(np.float32)[np.isfinite(values.astype(np.float32))])
    mids = (v[1:].astype(np.float64) + v[:-1]) / 2
    mids = mids.astype(np.float32)
    x = np.concatenate([x, mids, np.nextafter(mids, np.float32(np.inf)),
                        np.nextafter(mids, np.float32(-np.inf))])
x = np.concatenate([x, rng.standard_normal(4096).astype(np.float32) *
                    np.float32(2.0) ** rng.integers(-20, 20, 4096).astype(np.float32),
                    np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0,
                              1e30, -1e30, 1e-30, -1e-30], np.float32)])
save("x_f32", x)
for dt, (short, t) in FLOATS.items():
    for sat in (1, 0):
        name = "enc_%s_%d" % (short, sat)
        model(name, [helper.make_node("Cast", ["x"], ["y"], to=dt, saturate=sat)],
              [vi("x", TensorProto.FLOAT, [len(x)])], [vi("y", dt, [len(x)])])
        info = ml_dtypes.finfo(t)
        src = np.clip(x, info.min, info.max) if sat and dt != 23 else x
        save(name + "_want", codes(src, t))
    # Decoding every code.
    n = 16 if dt == 23 else 256
    c = np.arange(n, dtype=np.uint8)
    model("dec_" + short, [helper.make_node("Cast", ["c"], ["y"], to=TensorProto.FLOAT)],
          [vi("c", dt, [n])], [vi("y", TensorProto.FLOAT, [n])])
    save("dec_%s_in" % short, c)
    save("dec_%s_want" % short, c.view(t).astype(np.float32))

# f64 into e4m3fn and e5m2 (values one f64 ulp from ties): through f32, as
# ml_dtypes and ONNX's reference convert (rounded twice).
ties = []
for short, t in (("e4m3fn", ml_dtypes.float8_e4m3fn), ("e5m2", ml_dtypes.float8_e5m2)):
    v = np.arange(256, dtype=np.uint8).view(t).astype(np.float64)
    v = np.sort(v[np.isfinite(v)])
    m = (v[1:] + v[:-1]) / 2
    ties += [m, np.nextafter(m, np.inf), np.nextafter(m, -np.inf)]
x64 = np.concatenate(ties)
save("x_f64", x64)
for dt, short, t in ((17, "e4m3fn", ml_dtypes.float8_e4m3fn), (19, "e5m2", ml_dtypes.float8_e5m2)):
    model("enc64_" + short, [helper.make_node("Cast", ["x"], ["y"], to=dt, saturate=0)],
          [vi("x", TensorProto.DOUBLE, [len(x64)])], [vi("y", dt, [len(x64)])])
    save("enc64_%s_want" % short, codes(x64, t))

# The integer types: from floats (truncated, then wrapped; 0 for NaN,
# infinities and values past the i32 range) and from int32 (wrapped), and
# back to f32.
xi = np.concatenate([np.arange(-20, 20, 0.25, dtype=np.float32),
                     np.array([np.nan, np.inf, -np.inf, 1e9], np.float32)])
save("xi_f32", xi)
wi = np.arange(-70, 70, dtype=np.int32)
save("wi_i32", wi)
for dt, (short, lo, hi) in INTS.items():
    carrier = np.int8 if lo < 0 else np.uint8
    model("int_" + short, [helper.make_node("Cast", ["x"], ["y"], to=dt)],
          [vi("x", TensorProto.FLOAT, [len(xi)])], [vi("y", dt, [len(xi)])])
    bits = 4 if "4" in short else 2
    with np.errstate(invalid="ignore"):
        t = np.trunc(xi)
        ok = (t >= -2.0 ** 31) & (t <= 2.0 ** 31 - 1)
    ti = np.where(ok, np.nan_to_num(t), 0).astype(np.int64) & ((1 << bits) - 1)
    if lo < 0:
        ti = np.where(ti >= 1 << (bits - 1), ti - (1 << bits), ti)
    save("int_%s_want" % short, ti.astype(carrier))
    model("wrap_" + short, [helper.make_node("Cast", ["x"], ["y"], to=dt)],
          [vi("x", TensorProto.INT32, [len(wi)])], [vi("y", dt, [len(wi)])])
    bits = 4 if "4" in short else 2
    w = wi & ((1 << bits) - 1)
    if lo < 0:
        w = np.where(w >= 1 << (bits - 1), w - (1 << bits), w)
    save("wrap_%s_want" % short, w.astype(carrier))
    # And back: Cast(intN -> f32) of the wrapped values.
    model("back_" + short, [helper.make_node("Cast", ["c"], ["y"], to=TensorProto.FLOAT)],
          [vi("c", dt, [len(wi)])], [vi("y", TensorProto.FLOAT, [len(wi)])])
    save("back_%s_want" % short, w.astype(np.float32))

# Data movement keeps the type: Transpose, Reshape, then a Cast to f32.
m8 = rng.integers(0, 256, (3, 4)).astype(np.uint8)
save("move_in", m8)
model("move", [helper.make_node("Transpose", ["c"], ["t"], perm=[1, 0]),
               helper.make_node("Reshape", ["t", "s"], ["r"]),
               helper.make_node("Cast", ["r"], ["y"], to=TensorProto.FLOAT)],
      [vi("c", 19, [3, 4])], [vi("y", TensorProto.FLOAT, [2, 6])],
      [helper.make_tensor("s", TensorProto.INT64, [2], [2, 6])])
save("move_want", m8.T.reshape(2, 6).view(ml_dtypes.float8_e5m2).astype(np.float32))


def packed_int4(name, values, dims, dt):
    """An initializer of 4-bit values, packed two to a byte (low first)."""
    v = (np.asarray(values) & 0xF).astype(np.uint8)
    if len(v) % 2:
        v = np.append(v, 0)
    raw = (v[0::2] | (v[1::2] << 4)).astype(np.uint8).tobytes()
    t = TensorProto()
    t.name, t.data_type, t.raw_data = name, dt, raw
    t.dims.extend(dims)
    return t


# Blocked int4 quantization (block 2 along axis 1) and back; a packed int4
# initializer with an odd count dequantized.
xq = (rng.standard_normal((4, 6)) * 4).astype(np.float32)
sq = np.abs(rng.standard_normal((4, 3))).astype(np.float32) + np.float32(0.5)
save("q_in", xq)
save("q_scale", sq)
model("q_int4", [helper.make_node("QuantizeLinear", ["x", "s"], ["q"], axis=1, block_size=2,
                                  output_dtype=22),
                 helper.make_node("DequantizeLinear", ["q", "s"], ["y"], axis=1, block_size=2)],
      [vi("x", TensorProto.FLOAT, [4, 6]), vi("s", TensorProto.FLOAT, [4, 3])],
      [vi("q", 22, [4, 6]), vi("y", TensorProto.FLOAT, [4, 6])])
full = np.repeat(sq, 2, axis=1)
qw = np.clip(np.round(xq / full), -8, 7)
save("q_want_q", qw.astype(np.int8))
save("q_want_y", (qw * full).astype(np.float32))
w5 = [-8, 7, 3, -1, 5]
model("dq_init", [helper.make_node("DequantizeLinear", ["w", "s", "z"], ["y"])],
      [], [vi("y", TensorProto.FLOAT, [5])],
      [packed_int4("w", w5, [5], 22), helper.make_tensor("s", TensorProto.FLOAT, [], [0.5]),
       packed_int4("z", [1], [], 22)])
save("dq_init_want", ((np.array(w5) - 1) * 0.5).astype(np.float32))

# QuantizeLinear to float8 (x / scale, saturated) and DequantizeLinear back.
xf = (rng.standard_normal(64) * 300).astype(np.float32)
xf[:2] = [-0.0, 0.0]  # -0 stays -0 (a zero point of 0 is not added)
save("qf_in", xf)
z8 = TensorProto()
z8.name, z8.data_type, z8.raw_data = "z", 17, b"\x00"
model("q_f8", [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"]),
               helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"])],
      [vi("x", TensorProto.FLOAT, [64])], [vi("q", 17, [64]), vi("y", TensorProto.FLOAT, [64])],
      [helper.make_tensor("s", TensorProto.FLOAT, [], [0.5]), z8])
info = ml_dtypes.finfo(ml_dtypes.float8_e4m3fn)
qf = np.clip(xf / np.float32(0.5), info.min, info.max).astype(ml_dtypes.float8_e4m3fn)
save("q_f8_want_q", qf.view(np.uint8))
save("q_f8_want_y", (qf.astype(np.float32) * np.float32(0.5)).astype(np.float32))

# ConstantOfShape of a float8 value (1.0 and -0.5 in e4m3fn) keeps the type.
one = TensorProto()
one.data_type, one.raw_data = 17, bytes([0x38])
one.dims.extend([1])
model("cos_f8", [helper.make_node("ConstantOfShape", ["n"], ["c"], value=one),
                 helper.make_node("Cast", ["c"], ["y"], to=TensorProto.FLOAT)],
      [], [vi("y", TensorProto.FLOAT, [3])],
      [helper.make_tensor("n", TensorProto.INT64, [1], [3])])
save("cos_f8_want", np.ones(3, np.float32))

# An If on a run-time condition whose branches give float8 values keeps the
# type through the select.
then_g = helper.make_graph([helper.make_node("Identity", ["a"], ["ta"])], "then", [],
                           [vi("ta", 17, [4])])
else_g = helper.make_graph([helper.make_node("Identity", ["b"], ["tb"])], "else", [],
                           [vi("tb", 17, [4])])
model("if_f8", [helper.make_node("If", ["c"], ["r"], then_branch=then_g, else_branch=else_g),
                helper.make_node("Cast", ["r"], ["y"], to=TensorProto.FLOAT)],
      [vi("c", TensorProto.BOOL, []), vi("a", 17, [4]), vi("b", 17, [4])],
      [vi("y", TensorProto.FLOAT, [4])])
ca, cb = np.array([0x38, 0x40, 0xb8, 0x7e], np.uint8), np.array([0x30, 0x01, 0x80, 0x7f], np.uint8)
save("if_f8_c", np.array(True))
save("if_f8_a", ca)
save("if_f8_b", cb)
save("if_f8_want", ca.view(ml_dtypes.float8_e4m3fn).astype(np.float32))

# Errors: arithmetic on a float8 tensor; a packed initializer too short.
model("add_f8", [helper.make_node("Add", ["a", "a"], ["y"])],
      [vi("a", 17, [4])], [vi("y", 17, [4])])
model("short_int4", [helper.make_node("DequantizeLinear", ["w", "s"], ["y"])],
      [], [vi("y", TensorProto.FLOAT, [5])],
      [packed_int4("w", [1, 2], [5], 22), helper.make_tensor("s", TensorProto.FLOAT, [], [0.5])])
