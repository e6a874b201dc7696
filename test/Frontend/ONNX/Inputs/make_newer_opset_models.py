#!/usr/bin/env python3
"""Writes the models of newer-opsets.test (ops of ONNX opsets 18 to 28 that
the ONNX 1.12 test data lacks, and what opsets 24 to 28 changed), their
inputs and NumPy's expected outputs
(.npy) into OUTDIR. Built with onnx.helper at test time, without the checker:
the ONNX package of the test machine may predate these opsets.

    make_newer_opset_models.py OUTDIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(28)


def save(node, inputs, outputs, name, version):
    graph = helper.make_graph([node], name, inputs, outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", version)])
    onnx.save(model, os.path.join(out, name + ".onnx"))


def info(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def npy(name, a):
    np.save(os.path.join(out, name + ".npy"), a)


F, D, I8, I32 = TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.INT8, TensorProto.INT32


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


# Swish (opset 24), alpha 0.7, a symbolic batch.
x = rng.standard_normal((3, 50)).astype(np.float32) * 4
save(helper.make_node("Swish", ["x"], ["y"], name="swish", alpha=0.7),
     [info("x", F, ["n", 50])], [info("y", F, ["n", 50])], "swish", 24)
npy("swish_x", x)
npy("swish_want", (x.astype(np.float64) * sigmoid(0.7 * x.astype(np.float64))).astype(np.float32))

# SwiGLU (opset 28), default alpha, f64.
a = rng.standard_normal((2, 5, 8)) * 3
b = rng.standard_normal((2, 5, 8))
save(helper.make_node("SwiGLU", ["a", "b"], ["y"], name="swiglu"),
     [info("a", D, [2, 5, 8]), info("b", D, [2, 5, 8])], [info("y", D, [2, 5, 8])], "swiglu", 28)
npy("swiglu_a", a)
npy("swiglu_b", b)
npy("swiglu_want", a * sigmoid(a) * b)
# It does not broadcast.
save(helper.make_node("SwiGLU", ["a", "b"], ["y"], name="glu_bcast"),
     [info("a", F, [2, 8]), info("b", F, [1, 8])], [info("y", F, [2, 8])], "swiglu_bcast", 28)

# SpaceToDepth with mode = CRD (opset 28); the same attribute before 28 is
# an error.
x = np.arange(2 * 3 * 4 * 6, dtype=np.float32).reshape(2, 3, 4, 6)
save(helper.make_node("SpaceToDepth", ["x"], ["y"], name="s2d", blocksize=2, mode="CRD"),
     [info("x", F, [2, 3, 4, 6])], [info("y", F, [2, 12, 2, 3])], "s2d_crd", 28)
npy("s2d_x", x)
npy("s2d_want", x.reshape(2, 3, 2, 2, 3, 2).transpose(0, 1, 3, 5, 2, 4).reshape(2, 12, 2, 3))
save(helper.make_node("SpaceToDepth", ["x"], ["y"], name="s2d_old", blocksize=2, mode="CRD"),
     [info("x", F, [2, 3, 4, 6])], [info("y", F, [2, 12, 2, 3])], "s2d_crd_13", 13)

# Mod with fmod = 0 on floats (opset 28): NumPy's floored modulo, with the
# special cases (zeros, infinities, NaN).
inf, nan = np.inf, np.nan
ma = np.array([5.5, -5.5, 5.5, -5.5, 0.0, -0.0, 0.0, inf, -inf, 3.0, 3.0, -3.0, -3.0, 3.0, nan, 1e30],
              np.float32)
mb = np.array([2.0, 2.0, -2.0, -2.0, 3.0, 3.0, -3.0, 2.0, 2.0, 0.0, inf, inf, -inf, -inf, 2.0, 7.0],
              np.float32)
save(helper.make_node("Mod", ["a", "b"], ["y"], name="fmod0"),
     [info("a", F, [16]), info("b", F, [16])], [info("y", F, [16])], "mod_float", 28)
npy("mod_a", ma)
npy("mod_b", mb)
with np.errstate(all="ignore"):
    npy("mod_want", np.mod(ma, mb))
save(helper.make_node("Mod", ["a", "b"], ["y"], name="fmod0_old"),
     [info("a", F, [16]), info("b", F, [16])], [info("y", F, [16])], "mod_float_13", 13)

# BitShift right on signed integers (opset 28): arithmetic; a shift that is
# negative or at least the width gives -1 for a negative x, else 0.
for elem, dt, bits in ((I8, np.int8, 8), (I32, np.int32, 32)):
    x = np.array([-128 if bits == 8 else -2**31, -7, -1, 0, 1, 7, 100, -100, -5, 5, -5, 5], dt)
    s = np.array([1, 1, 3, 2, 1, 2, 3, 2, -1, -1, bits, bits + 3], dt)
    name = "shr_i%d" % bits
    save(helper.make_node("BitShift", ["x", "s"], ["y"], name=name, direction="RIGHT"),
         [info("x", elem, [12]), info("s", elem, [12])], [info("y", elem, [12])], name, 28)
    npy(name + "_x", x)
    npy(name + "_s", s)
    inrange = (s >= 0) & (s < bits)
    want = np.where(inrange, np.right_shift(x, np.where(inrange, s, 0)), np.where(x < 0, -1, 0))
    npy(name + "_want", want.astype(dt))

# RMSNormalization (opset 23) over the last two axes, f16 (computed in f32).
x = (rng.standard_normal((2, 3, 4, 5)) * 3).astype(np.float16)
w = rng.standard_normal((4, 5)).astype(np.float16)
save(helper.make_node("RMSNormalization", ["x", "w"], ["y"], name="rms", axis=-2, epsilon=1e-3),
     [info("x", TensorProto.FLOAT16, [2, 3, 4, 5]), info("w", TensorProto.FLOAT16, [4, 5])],
     [info("y", TensorProto.FLOAT16, [2, 3, 4, 5])], "rms", 23)
npy("rms_x", x)
npy("rms_w", w)
x32 = x.astype(np.float32)
rms = np.sqrt(np.mean(x32 * x32, axis=(2, 3), keepdims=True) + np.float32(1e-3))
npy("rms_want", ((x32 / rms).astype(np.float16) * w).astype(np.float16))

# GroupNormalization: opset 21 (scale and bias per channel) and opset 18
# (per group), a symbolic batch.
x = rng.standard_normal((2, 6, 3, 4)).astype(np.float32) * 2 + 1
xg = x.reshape(2, 3, -1)
norm = ((xg - xg.mean(-1, keepdims=True)) / np.sqrt(xg.var(-1, keepdims=True) + 1e-4)).reshape(2, 6, 3, 4)
npy("gn_x", x)
sc, bi = rng.standard_normal(6).astype(np.float32), rng.standard_normal(6).astype(np.float32)
save(helper.make_node("GroupNormalization", ["x", "s", "b"], ["y"], name="gn21", num_groups=3, epsilon=1e-4),
     [info("x", F, ["n", 6, 3, 4]), info("s", F, [6]), info("b", F, [6])],
     [info("y", F, ["n", 6, 3, 4])], "gn21", 21)
npy("gn21_s", sc)
npy("gn21_b", bi)
npy("gn21_want", norm * sc.reshape(1, 6, 1, 1) + bi.reshape(1, 6, 1, 1))
sg, bg = sc[:3], bi[:3]
save(helper.make_node("GroupNormalization", ["x", "s", "b"], ["y"], name="gn18", num_groups=3, epsilon=1e-4),
     [info("x", F, ["n", 6, 3, 4]), info("s", F, [3]), info("b", F, [3])],
     [info("y", F, ["n", 6, 3, 4])], "gn18", 18)
npy("gn18_s", sg)
npy("gn18_b", bg)
npy("gn18_want", norm * np.repeat(sg, 2).reshape(1, 6, 1, 1) + np.repeat(bg, 2).reshape(1, 6, 1, 1))
save(helper.make_node("GroupNormalization", ["x", "s", "b"], ["y"], name="gn_bad", num_groups=4),
     [info("x", F, [2, 6, 3, 4]), info("s", F, [6]), info("b", F, [6])],
     [info("y", F, [2, 6, 3, 4])], "gn_bad", 21)

# ReduceMax / ReduceMin of booleans (opset 20): any and all; over an empty
# axis, false and true.
xb = rng.random((3, 4)) > 0.6
xb[1] = True
xb[2] = False
npy("rb_x", xb)
for op in ("ReduceMax", "ReduceMin"):
    name = op.lower() + "_bool"
    save(helper.make_node(op, ["x", "axes"], ["y"], name=name, keepdims=0),
         [info("x", TensorProto.BOOL, [3, 4])], [info("y", TensorProto.BOOL, [3])], name, 20)
    # the axes as an initializer
    m = onnx.load(os.path.join(out, name + ".onnx"))
    m.graph.initializer.append(helper.make_tensor("axes", TensorProto.INT64, [1], [1]))
    onnx.save(m, os.path.join(out, name + ".onnx"))
    npy(name + "_want", xb.any(1) if op == "ReduceMax" else xb.all(1))

# A shape computed with boolean logic and a modulo of sizes (as ONNX's
# Attention function does): folded while importing, so Expand's result
# shape is known.
i64 = TensorProto.INT64
one = helper.make_tensor("one", i64, [1], [1])
zero = helper.make_tensor("zero", i64, [1], [0])
nodes = [
    helper.make_node("Shape", ["x"], ["h"], start=1, end=2),
    helper.make_node("Shape", ["x"], ["w"], start=2, end=3),
    helper.make_node("Mod", ["w", "h"], ["m"]),
    helper.make_node("Equal", ["m", "zero"], ["divides"]),
    helper.make_node("Equal", ["h", "w"], ["same"]),
    helper.make_node("Not", ["same"], ["differ"]),
    helper.make_node("And", ["differ", "divides"], ["cond"]),
    helper.make_node("Or", ["cond", "same"], ["either"]),
    helper.make_node("Xor", ["either", "differ"], ["flip"]),
    helper.make_node("Where", ["flip", "h", "w"], ["size"]),
    helper.make_node("Concat", ["one", "size"], ["shape"], axis=0),
    helper.make_node("Expand", ["v", "shape"], ["y"]),
]
graph = helper.make_graph(nodes, "shape_logic", [info("x", F, [2, 6, 4]), info("v", F, [1, 1])],
                          [info("y", F, None)], initializer=[one, zero])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]),
          os.path.join(out, "shape_logic.onnx"))

# Attention (opset 23), against a NumPy transcription of ONNX's reference:
# 4-D with grouped-query heads, a KV cache, a boolean mask and the causal
# frontier (one query row fully masked: zeros); 3-D with soft-capping, an
# additive mask shorter than the keys and the probabilities as a second
# output (mode 3); opset 25's sliding window.
def attention_ref(q, k, v, mask=None, past_k=None, past_v=None, causal=False, scale=None,
                  q_heads=None, kv_heads=None, softcap=0.0, left=-1, right=-1):
    three_d = q.ndim == 3
    if three_d:
        def split(x, h):
            b, s_, hid = x.shape
            return x.reshape(b, s_, h, hid // h).transpose(0, 2, 1, 3)
        q, k, v = split(q, q_heads), split(k, kv_heads), split(v, kv_heads)
    scale = 1 / np.sqrt(q.shape[3]) if scale is None else scale
    past = 0
    if past_k is not None:
        past = past_k.shape[2]
        k, v = np.concatenate([past_k, k], 2), np.concatenate([past_v, v], 2)
    present_k, present_v = k, v
    ql, kl = q.shape[2], k.shape[2]
    bias = np.zeros((ql, kl))
    if mask is not None:
        if mask.shape[-1] < kl:
            pad = [(0, 0)] * (mask.ndim - 1) + [(0, kl - mask.shape[-1])]
            mask = np.pad(mask, pad, constant_values=False if mask.dtype == np.bool_ else -np.inf)
        bias = bias + (np.where(mask, 0.0, -np.inf) if mask.dtype == np.bool_ else mask)
    diff = np.arange(ql)[:, None] + past - np.arange(kl)[None, :]
    allowed = np.ones_like(diff, bool)
    if causal:
        allowed &= diff >= 0
    if left >= 0:
        allowed &= diff <= left
    if right >= 0:
        allowed &= -diff <= right
    bias = bias + np.where(allowed, 0.0, -np.inf)
    reps = q.shape[1] // k.shape[1]
    k, v = np.repeat(k, reps, 1), np.repeat(v, reps, 1)
    s_ = np.sqrt(scale)
    scores = (q * s_) @ (k * s_).transpose(0, 1, 3, 2)
    if softcap > 0:
        scores = np.tanh(scores / softcap) * softcap
    x = scores + bias
    masked = np.isneginf(np.max(bias, -1, keepdims=True))
    m = np.where(np.isneginf(np.max(x, -1, keepdims=True)), 0, np.max(x, -1, keepdims=True))
    e = np.exp(x - m)
    probs = np.where(masked, 0, e / np.where(e.sum(-1, keepdims=True) == 0, 1, e.sum(-1, keepdims=True)))
    y = probs @ v
    if three_d:
        y = y.transpose(0, 2, 1, 3).reshape(y.shape[0], y.shape[2], -1)
    return y, present_k, present_v, probs


f32 = np.float32
q = rng.standard_normal((2, 4, 3, 8)).astype(f32)
k = rng.standard_normal((2, 2, 3, 8)).astype(f32)
v = rng.standard_normal((2, 2, 3, 6)).astype(f32)
pk = rng.standard_normal((2, 2, 2, 8)).astype(f32)
pv = rng.standard_normal((2, 2, 2, 6)).astype(f32)
mask = rng.random((3, 5)) > 0.3
mask[0, :3] = False  # query 0 sees keys 0..2 only (causal): fully masked
y, prk, prv, _ = attention_ref(q, k, v, mask, pk, pv, causal=True)
save(helper.make_node("Attention", ["q", "k", "v", "mask", "pk", "pv"], ["y", "prk", "prv"],
                      name="att4", is_causal=1),
     [info("q", F, [2, 4, 3, 8]), info("k", F, [2, 2, 3, 8]), info("v", F, [2, 2, 3, 6]),
      info("mask", TensorProto.BOOL, [3, 5]), info("pk", F, [2, 2, 2, 8]), info("pv", F, [2, 2, 2, 6])],
     [info("y", F, [2, 4, 3, 6]), info("prk", F, [2, 2, 5, 8]), info("prv", F, [2, 2, 5, 6])], "att4", 23)
for name, a in (("q", q), ("k", k), ("v", v), ("mask", mask), ("pk", pk), ("pv", pv),
                ("y", y.astype(f32)), ("prk", prk), ("prv", prv)):
    npy("att4_" + name, a)
assert np.all(y[:, :, 0] == 0)

q3 = rng.standard_normal((2, 5, 12)).astype(f32) * 3
k3 = rng.standard_normal((2, 6, 12)).astype(f32) * 3
v3 = rng.standard_normal((2, 6, 9)).astype(f32)
amask = (rng.standard_normal((5, 4)) * 0.5).astype(f32)
y3, _, _, p3 = attention_ref(q3, k3, v3, amask, q_heads=3, kv_heads=3, softcap=2.5, scale=0.3)
save(helper.make_node("Attention", ["q", "k", "v", "mask"], ["y", "", "", "qk"], name="att3",
                      q_num_heads=3, kv_num_heads=3, softcap=2.5, scale=0.3, qk_matmul_output_mode=3),
     [info("q", F, [2, 5, 12]), info("k", F, [2, 6, 12]), info("v", F, [2, 6, 9]), info("mask", F, [5, 4])],
     [info("y", F, [2, 5, 9]), info("qk", F, [2, 3, 5, 6])], "att3", 23)
for name, a in (("q", q3), ("k", k3), ("v", v3), ("mask", amask), ("y", y3.astype(f32)),
                ("qk", p3.astype(f32))):
    npy("att3_" + name, a)

yw, _, _, _ = attention_ref(q, k, v, causal=False, left=1, right=0)
save(helper.make_node("Attention", ["q", "k", "v"], ["y"], name="attw", left_window_size=1,
                      right_window_size=0),
     [info("q", F, [2, 4, 3, 8]), info("k", F, [2, 2, 3, 8]), info("v", F, [2, 2, 3, 6])],
     [info("y", F, [2, 4, 3, 6])], "attw", 25)
npy("attw_y", yw.astype(f32))

# RotaryEmbedding (opset 23): 3-D with position_ids, interleaved, a partial
# rotation; 4-D with per-position caches.
def rope_ref(x, cos, sin, pos=None, interleaved=False, rot=0, heads=0):
    shape = x.shape
    x = x.transpose(0, 2, 1, 3) if x.ndim == 4 else x.reshape(shape[0], shape[1], heads, -1)
    rot = rot or x.shape[3]
    xr, xp = x[..., :rot], x[..., rot:]
    if pos is not None:
        cos, sin = cos[pos], sin[pos]
    cos, sin = cos[:, :, None, :], sin[:, :, None, :]
    x1, x2 = (xr[..., 0::2], xr[..., 1::2]) if interleaved else np.split(xr, 2, -1)
    re, im = cos * x1 - sin * x2, sin * x1 + cos * x2
    xr = np.stack([re, im], -1).reshape(xr.shape) if interleaved else np.concatenate([re, im], -1)
    y = np.concatenate([xr, xp], -1)
    return y.reshape(shape) if len(shape) == 3 else y.transpose(0, 2, 1, 3)


x = rng.standard_normal((2, 3, 4 * 8)).astype(f32)
cos = rng.standard_normal((10, 3)).astype(f32)
sin = rng.standard_normal((10, 3)).astype(f32)
pos = np.array([[0, 1, 2], [7, 8, 9]], np.int64)
save(helper.make_node("RotaryEmbedding", ["x", "c", "s", "p"], ["y"], name="rope3", interleaved=1,
                      num_heads=4, rotary_embedding_dim=6),
     [info("x", F, [2, 3, 32]), info("c", F, [10, 3]), info("s", F, [10, 3]),
      info("p", TensorProto.INT64, [2, 3])], [info("y", F, [2, 3, 32])], "rope3", 23)
for name, a in (("x", x), ("c", cos), ("s", sin), ("p", pos),
                ("y", rope_ref(x, cos, sin, pos, True, 6, 4))):
    npy("rope3_" + name, a)
x = rng.standard_normal((2, 4, 3, 8)).astype(f32)
cos = rng.standard_normal((2, 3, 4)).astype(f32)
sin = rng.standard_normal((2, 3, 4)).astype(f32)
save(helper.make_node("RotaryEmbedding", ["x", "c", "s"], ["y"], name="rope4"),
     [info("x", F, [2, 4, 3, 8]), info("c", F, [2, 3, 4]), info("s", F, [2, 3, 4])],
     [info("y", F, [2, 4, 3, 8])], "rope4", 23)
for name, a in (("x", x), ("c", cos), ("s", sin), ("y", rope_ref(x, cos, sin))):
    npy("rope4_" + name, a)

# CumProd (opset 26): f32 along axis 1 of a symbolic batch; int32 exclusive
# and reversed along axis 0 (the axis an int64 scalar input); f64 1-D.
def cumprod_ref(x, axis, exclusive=False, reverse=False):
    x = np.flip(x, axis) if reverse else x
    c = np.cumprod(x, axis=axis)
    if exclusive:
        c = np.moveaxis(c, axis, 0)
        c = np.concatenate([np.ones_like(c[:1]), c[:-1]], axis=0)
        c = np.moveaxis(c, 0, axis)
    return np.flip(c, axis) if reverse else c


axis_t = lambda v: helper.make_tensor("axis", TensorProto.INT64, [], [v])
x = rng.uniform(0.5, 1.5, (3, 9)).astype(f32)
g = helper.make_graph([helper.make_node("CumProd", ["x", "axis"], ["y"], name="cumprod_f32")],
                      "cumprod_f32", [info("x", F, ["n", 9])], [info("y", F, ["n", 9])],
                      initializer=[axis_t(1)])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 26)]),
          os.path.join(out, "cumprod_f32.onnx"))
npy("cumprod_f32_x", x)
npy("cumprod_f32_y", cumprod_ref(x.astype(np.float64), 1).astype(f32))
xi = rng.integers(-3, 4, (5, 4)).astype(np.int32)
g = helper.make_graph([helper.make_node("CumProd", ["x", "axis"], ["y"], name="cumprod_i32",
                                        exclusive=1, reverse=1)],
                      "cumprod_i32", [info("x", I32, [5, 4])], [info("y", I32, [5, 4])],
                      initializer=[axis_t(-2)])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 26)]),
          os.path.join(out, "cumprod_i32.onnx"))
npy("cumprod_i32_x", xi)
npy("cumprod_i32_y", cumprod_ref(xi, 0, True, True).astype(np.int32))
xd = rng.uniform(-2, 2, (12,))
g = helper.make_graph([helper.make_node("CumProd", ["x", "axis"], ["y"], name="cumprod_f64")],
                      "cumprod_f64", [info("x", D, [12])], [info("y", D, [12])],
                      initializer=[axis_t(0)])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 26)]),
          os.path.join(out, "cumprod_f64.onnx"))
npy("cumprod_f64_x", xd)
npy("cumprod_f64_y", np.cumprod(xd))
# A scalar input has no axis.
g = helper.make_graph([helper.make_node("CumProd", ["x", "axis"], ["y"], name="cumprod_scalar")],
                      "cumprod_scalar", [info("x", F, [])], [info("y", F, [])],
                      initializer=[axis_t(0)])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 26)]),
          os.path.join(out, "cumprod_scalar.onnx"))

# CenterCropPad (opset 18): a symbolic batch left alone, H cropped from 9 to 4
# (odd difference: one more off the right), W padded from 5 to 8 (odd: one more
# zero on the right), int32; a shape with the wrong number of entries.
def center_crop_pad(x, shape, axes):
    for a, sh in zip(axes, shape):
        dim = x.shape[a]
        if sh < dim:
            s = (dim - sh) // 2
            x = np.take(x, range(s, s + sh), axis=a)
        elif sh > dim:
            before = (sh - dim) // 2
            pads = [(0, 0)] * x.ndim
            pads[a] = (before, sh - dim - before)
            x = np.pad(x, pads)
    return x


x = rng.integers(-50, 50, (2, 9, 5)).astype(np.int32)
ccp_shape = helper.make_tensor("shape", TensorProto.INT64, [2], [4, 8])
g = helper.make_graph([helper.make_node("CenterCropPad", ["x", "shape"], ["y"], name="ccp",
                                        axes=[-2, 2])],
                      "ccp", [info("x", I32, ["n", 9, 5])], [info("y", I32, ["n", 4, 8])],
                      initializer=[ccp_shape])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]),
          os.path.join(out, "ccp.onnx"))
npy("ccp_x", x)
npy("ccp_y", center_crop_pad(x, [4, 8], [1, 2]))
g = helper.make_graph([helper.make_node("CenterCropPad", ["x", "shape"], ["y"], name="ccp_bad")],
                      "ccp_bad", [info("x", I32, [2, 9, 5])], [info("y", I32, [2, 4, 8])],
                      initializer=[ccp_shape])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]),
          os.path.join(out, "ccp_bad.onnx"))

# AffineGrid (opset 20): 2-D (align_corners 0, a symbolic batch) and 3-D
# (align_corners 1, a size-1 depth), against NumPy; theta of the wrong shape.
def affine_grid_ref(theta, spatial, align):
    axes = []
    for length in spatial:
        i = np.arange(length, dtype=np.float64)
        if align:
            axes.append(np.full(length, -1.0) if length == 1 else -1 + 2 * i / (length - 1))
        else:
            axes.append(-1 + (2 * i + 1) / length)
    mesh = np.meshgrid(*axes, indexing="ij")                  # (D,) H, W
    homo = np.stack([m.reshape(-1) for m in reversed(mesh)] + [np.ones(mesh[0].size)], -1)
    grid = np.einsum("nij,pj->npi", theta.astype(np.float64), homo)
    return grid.reshape((theta.shape[0],) + tuple(spatial) + (len(spatial),))


theta2 = rng.standard_normal((3, 2, 3)).astype(f32)
g = helper.make_graph([helper.make_node("AffineGrid", ["theta", "size"], ["grid"], name="ag2")],
                      "ag2", [info("theta", F, ["n", 2, 3])], [info("grid", F, ["n", 5, 7, 2])],
                      initializer=[helper.make_tensor("size", TensorProto.INT64, [4], [3, 1, 5, 7])])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 20)]),
          os.path.join(out, "ag2.onnx"))
npy("ag2_theta", theta2)
npy("ag2_y", affine_grid_ref(theta2, [5, 7], False).astype(f32))
theta3 = rng.standard_normal((2, 3, 4))
g = helper.make_graph([helper.make_node("AffineGrid", ["theta", "size"], ["grid"], name="ag3",
                                        align_corners=1)],
                      "ag3", [info("theta", D, [2, 3, 4])], [info("grid", D, [2, 1, 4, 3, 3])],
                      initializer=[helper.make_tensor("size", TensorProto.INT64, [5],
                                                      [2, 3, 1, 4, 3])])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 20)]),
          os.path.join(out, "ag3.onnx"))
npy("ag3_theta", theta3)
npy("ag3_y", affine_grid_ref(theta3, [1, 4, 3], True))
g = helper.make_graph([helper.make_node("AffineGrid", ["theta", "size"], ["grid"], name="ag_bad")],
                      "ag_bad", [info("theta", F, [3, 2, 3])], [info("grid", F, [3, 1, 5, 7, 3])],
                      initializer=[helper.make_tensor("size", TensorProto.INT64, [5],
                                                      [3, 1, 1, 5, 7])])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 20)]),
          os.path.join(out, "ag_bad.onnx"))

# BitCast (opset 26): f32 -> int32 and int64 -> f64 bits, bool -> uint8 (0/1),
# and a width mismatch.
def bitcast_model(name, src, dst, shape, src_t, dst_t):
    g = helper.make_graph([helper.make_node("BitCast", ["x"], ["y"], name=name, to=dst_t)],
                          name, [info("x", src_t, shape)], [info("y", dst_t, shape)])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 26)]),
              os.path.join(out, name + ".onnx"))


xf = np.array([0.0, -0.0, 1.5, -3.25, np.inf, 1e-40, 3.4e38], np.float32)
bitcast_model("bitcast_f32_i32", "f32", "i32", [7], F, I32)
npy("bitcast_f32_i32_x", xf)
npy("bitcast_f32_i32_y", xf.view(np.int32))
xl = np.array([[0, 4607182418800017408], [-4616189618054758400, 4611686018427387905]], np.int64)
bitcast_model("bitcast_i64_f64", "i64", "f64", [2, 2], TensorProto.INT64, D)
npy("bitcast_i64_f64_x", xl)
npy("bitcast_i64_f64_y", xl.view(np.float64))
xb = np.array([True, False, True])
bitcast_model("bitcast_bool_u8", "bool", "u8", [3], TensorProto.BOOL, TensorProto.UINT8)
npy("bitcast_bool_u8_x", xb)
npy("bitcast_bool_u8_y", xb.astype(np.uint8))
bitcast_model("bitcast_bad", "f32", "i64", [3], F, TensorProto.INT64)

# Col2Im (opset 18): 2-D blocks with pads, strides and dilations summed into
# the image (overlapping blocks add), against a NumPy loop; a block count that
# does not match.
def col2im_ref(x, image, block, dil, pads, strides):
    n, ck, _ = x.shape
    kh, kw = block
    c = ck // (kh * kw)
    oh = (image[0] + pads[0] + pads[2] - dil[0] * (kh - 1) - 1) // strides[0] + 1
    ow = (image[1] + pads[1] + pads[3] - dil[1] * (kw - 1) - 1) // strides[1] + 1
    y = np.zeros((n, c) + tuple(image), x.dtype)
    for ch in range(c):
        for i in range(kh):
            for j in range(kw):
                for p in range(oh):
                    for q in range(ow):
                        h = p * strides[0] - pads[0] + i * dil[0]
                        w = q * strides[1] - pads[1] + j * dil[1]
                        if 0 <= h < image[0] and 0 <= w < image[1]:
                            y[:, ch, h, w] += x[:, (ch * kh + i) * kw + j, p * ow + q]
    return y


c2i_x = rng.standard_normal((2, 2 * 2 * 3, 20)).astype(f32)
g = helper.make_graph([helper.make_node("Col2Im", ["x", "image", "block"], ["y"], name="c2i",
                                        dilations=[2, 1], pads=[1, 0, 1, 2], strides=[1, 2])],
                      "c2i", [info("x", F, [2, 12, 20])], [info("y", F, [2, 2, 5, 7])],
                      initializer=[helper.make_tensor("image", TensorProto.INT64, [2], [5, 7]),
                                   helper.make_tensor("block", TensorProto.INT64, [2], [2, 3])])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]),
          os.path.join(out, "c2i.onnx"))
npy("c2i_x", c2i_x)
npy("c2i_y", col2im_ref(c2i_x.astype(np.float64), [5, 7], [2, 3], [2, 1], [1, 0, 1, 2],
                        [1, 2]).astype(f32))
g = helper.make_graph([helper.make_node("Col2Im", ["x", "image", "block"], ["y"], name="c2i_bad")],
                      "c2i_bad", [info("x", F, [2, 12, 12])], [info("y", F, [2, 2, 5, 7])],
                      initializer=[helper.make_tensor("image", TensorProto.INT64, [2], [5, 7]),
                                   helper.make_tensor("block", TensorProto.INT64, [2], [2, 3])])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]),
          os.path.join(out, "c2i_bad.onnx"))

# An opset past what Tide knows.
save(helper.make_node("Relu", ["x"], ["y"], name="relu"),
     [info("x", F, [4])], [info("y", F, [4])], "opset29", 29)
