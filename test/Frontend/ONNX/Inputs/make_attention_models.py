#!/usr/bin/env python3
"""Writes the models of attention-variants.test (the ops of ONNX's external KV caches:
Attention with nonpad_kv_seqlen (opset 24), TensorScatter (opset 24) and
CausalConvWithState (opset 27)), their inputs and expected outputs computed
here with NumPy from the ONNX operator specifications, into OUTDIR. Built with
onnx.helper without the checker: the test machine's ONNX may predate these
opsets.

    make_attention_models.py OUTDIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(24)
F, H, I64, B = TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.INT64, TensorProto.BOOL


def save(node, inputs, outputs, name, version):
    graph = helper.make_graph([node], name, inputs, outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", version)])
    onnx.save(model, os.path.join(out, name + ".onnx"))


def info(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def npy(name, a):
    np.save(os.path.join(out, name + ".npy"), a)


# --- Attention with nonpad_kv_seqlen --------------------------------------
def attention(q, k, v, seqlen, mask=None, causal=False, left=-1, right=-1):
    """4-D (batch, heads, seq, size) in float64: keys at or past seqlen[b]
    are padding; query i of entry b sits at i + seqlen[b] - q_len."""
    b, hq, lq, d = q.shape
    hk, lk = k.shape[1], k.shape[2]
    k = np.repeat(k, hq // hk, axis=1)
    v = np.repeat(v, hq // hk, axis=1)
    scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(d)
    allowed = np.ones((b, 1, lq, lk), bool)
    i = np.arange(lq)[:, None]
    j = np.arange(lk)[None, :]
    for e in range(b):
        diff = i + seqlen[e] - lq - j
        if causal:
            allowed[e, 0] &= diff >= 0
        if left >= 0:
            allowed[e, 0] &= diff <= left
        if right >= 0:
            allowed[e, 0] &= -diff <= right
        allowed[e, 0] &= j < seqlen[e]
    if mask is not None:
        allowed = allowed & mask
    allowed = np.broadcast_to(allowed, scores.shape)
    scores = np.where(allowed, scores, -np.inf)
    top = np.max(np.where(allowed, scores, -1e300), axis=-1, keepdims=True)
    e = np.where(allowed, np.exp(scores - top), 0)
    s = e.sum(-1, keepdims=True)
    p = np.where(s > 0, e / np.where(s > 0, s, 1), 0)
    return p @ v


# GQA (4 query heads, 2 key/value heads), causal, a static cache of 6 slots
# filled to 6, 4, 2 and 0 (the last entry's rows are all masked: 0).
q = rng.standard_normal((4, 4, 2, 8)).astype(np.float32)
k = rng.standard_normal((4, 2, 6, 8)).astype(np.float32)
v = rng.standard_normal((4, 2, 6, 8)).astype(np.float32)
seqlen = np.array([6, 4, 2, 0], np.int64)
save(helper.make_node("Attention", ["q", "k", "v", "", "", "", "n"], ["y"], name="att", is_causal=1),
     [info("q", F, [4, 4, 2, 8]), info("k", F, [4, 2, 6, 8]), info("v", F, [4, 2, 6, 8]),
      info("n", I64, [4])], [info("y", F, [4, 4, 2, 8])], "att_nonpad_causal", 24)
for name, a in [("q", q), ("k", k), ("v", v), ("n", seqlen)]:
    npy("att1_" + name, a)
npy("att1_want", attention(q.astype(np.float64), k, v, seqlen, causal=True).astype(np.float32))

# Not causal, a boolean mask (broadcast over the batch) and a window of one
# key to the left; a symbolic batch, run with 3 entries.
q = rng.standard_normal((3, 2, 3, 4)).astype(np.float32)
k = rng.standard_normal((3, 2, 5, 4)).astype(np.float32)
v = rng.standard_normal((3, 2, 5, 4)).astype(np.float32)
mask = rng.random((3, 5)) < 0.8
seqlen = np.array([5, 3, 4], np.int64)
save(helper.make_node("Attention", ["q", "k", "v", "m", "", "", "n"], ["y"], name="att",
                      left_window_size=1),
     [info("q", F, ["b", 2, 3, 4]), info("k", F, ["b", 2, 5, 4]), info("v", F, ["b", 2, 5, 4]),
      info("m", B, [3, 5]), info("n", I64, ["b"])], [info("y", F, ["b", 2, 3, 4])],
     "att_nonpad_window", 25)
for name, a in [("q", q), ("k", k), ("v", v), ("m", mask), ("n", seqlen)]:
    npy("att2_" + name, a)
npy("att2_want", attention(q.astype(np.float64), k, v, seqlen, mask=mask, left=1).astype(np.float32))

# With past_key too: an error.
save(helper.make_node("Attention", ["q", "k", "v", "", "pk", "pv", "n"], ["y"], name="att"),
     [info("q", F, [1, 1, 2, 4]), info("k", F, [1, 1, 2, 4]), info("v", F, [1, 1, 2, 4]),
      info("pk", F, [1, 1, 3, 4]), info("pv", F, [1, 1, 3, 4]), info("n", I64, [1])],
     [info("y", F, [1, 1, 2, 4])], "att_nonpad_past", 24)
save(helper.make_node("Attention", ["q", "k", "v", "", "", "", "n"], ["y"], name="att"),
     [info("q", F, [1, 1, 2, 4]), info("k", F, [1, 1, 2, 4]), info("v", F, [1, 1, 2, 4]),
      info("n", F, [1])], [info("y", F, [1, 1, 2, 4])], "att_nonpad_float", 24)


# --- TensorScatter ---------------------------------------------------------
def tensor_scatter(cache, update, write, axis, circular):
    cache = cache.copy()
    length, count = cache.shape[axis], update.shape[axis]
    for idx in np.ndindex(cache.shape[:axis]):
        for s in range(count):
            p = write[idx[0]] + s
            if circular:
                p %= length
            cache[idx + (p,)] = update[idx + (s,)]
    return cache


cache = rng.standard_normal((3, 2, 6, 4)).astype(np.float16)
update = rng.standard_normal((3, 2, 2, 4)).astype(np.float16)
write = np.array([0, 3, 4], np.int64)
save(helper.make_node("TensorScatter", ["c", "u", "w"], ["y"], name="ts"),
     [info("c", H, [3, 2, 6, 4]), info("u", H, [3, 2, 2, 4]), info("w", I64, [3])],
     [info("y", H, [3, 2, 6, 4])], "scatter_linear", 24)
npy("ts_c", cache)
npy("ts_u", update)
npy("ts_w", write)
npy("ts_linear_want", tensor_scatter(cache, update, write, 2, False))
# Circular along axis 1 of (batch, seq, hidden), wrapping past the end.
cache = rng.standard_normal((2, 5, 3)).astype(np.float32)
update = rng.standard_normal((2, 3, 3)).astype(np.float32)
write = np.array([4, 1], np.int64)
save(helper.make_node("TensorScatter", ["c", "u", "w"], ["y"], name="ts", axis=1, mode="circular"),
     [info("c", F, [2, 5, 3]), info("u", F, [2, 3, 3]), info("w", I64, [2])],
     [info("y", F, [2, 5, 3])], "scatter_circular", 24)
npy("tsc_c", cache)
npy("tsc_u", update)
npy("tsc_w", write)
npy("ts_circular_want", tensor_scatter(cache, update, write, 1, True))
# Errors: the batch axis; an update longer than the cache.
save(helper.make_node("TensorScatter", ["c", "u"], ["y"], name="ts", axis=0),
     [info("c", F, [2, 5]), info("u", F, [2, 5])], [info("y", F, [2, 5])], "scatter_axis0", 24)
save(helper.make_node("TensorScatter", ["c", "u"], ["y"], name="ts"),
     [info("c", F, [2, 3, 4]), info("u", F, [2, 5, 4])], [info("y", F, [2, 3, 4])],
     "scatter_long", 24)


# --- CausalConvWithState ---------------------------------------------------
def causal_conv(x, w, bias=None, state=None, silu=False):
    b, c, length = x.shape
    k = w.shape[2]
    if state is None:
        state = np.zeros((b, c, k - 1), x.dtype)
    padded = np.concatenate([state, x], axis=2).astype(np.float64)
    y = np.zeros((b, c, length))
    for t in range(length):
        y[:, :, t] = np.sum(padded[:, :, t:t + k] * w[None, :, 0, :], axis=-1)
    if bias is not None:
        y += bias[None, :, None]
    if silu:
        y = y / (1 + np.exp(-y))
    return y.astype(x.dtype), padded[:, :, length:].astype(x.dtype)


x = rng.standard_normal((2, 5, 7)).astype(np.float32)
w = rng.standard_normal((5, 1, 4)).astype(np.float32)
bias = rng.standard_normal(5).astype(np.float32)
state = rng.standard_normal((2, 5, 3)).astype(np.float32)
save(helper.make_node("CausalConvWithState", ["x", "w", "b", "s"], ["y", "state"], name="cc",
                      activation="silu"),
     [info("x", F, ["n", 5, 7]), info("w", F, [5, 1, 4]), info("b", F, [5]),
      info("s", F, ["n", 5, 3])], [info("y", F, ["n", 5, 7]), info("state", F, ["n", 5, 3])],
     "causal_conv", 27)
for name, a in [("x", x), ("w", w), ("b", bias), ("s", state)]:
    npy("cc_" + name, a)
y, st = causal_conv(x, w, bias, state, silu=True)
npy("cc_want_y", y)
npy("cc_want_state", st)
# No state (zeros), no activation, a decode step longer than nothing: the
# new state reaches back into the zeros.
x = rng.standard_normal((1, 3, 2)).astype(np.float32)
w = rng.standard_normal((3, 1, 4)).astype(np.float32)
save(helper.make_node("CausalConvWithState", ["x", "w"], ["y", "state"], name="cc"),
     [info("x", F, [1, 3, 2]), info("w", F, [3, 1, 4])],
     [info("y", F, [1, 3, 2]), info("state", F, [1, 3, 3])], "causal_conv_zero", 27)
npy("cc0_x", x)
npy("cc0_w", w)
y, st = causal_conv(x, w)
npy("cc0_want_y", y)
npy("cc0_want_state", st)
# Errors: a weight that is not depthwise; an unknown activation.
save(helper.make_node("CausalConvWithState", ["x", "w"], ["y"], name="cc"),
     [info("x", F, [1, 3, 2]), info("w", F, [3, 2, 4])], [info("y", F, [1, 3, 2])],
     "causal_conv_weight", 27)
save(helper.make_node("CausalConvWithState", ["x", "w"], ["y"], name="cc", activation="gelu"),
     [info("x", F, [1, 3, 2]), info("w", F, [3, 1, 4])], [info("y", F, [1, 3, 2])],
     "causal_conv_gelu", 27)


# --- LinearAttention -------------------------------------------------------
def linear_attention(q, k, v, hq, hkv, state=None, decay=None, beta=None, scale=None):
    """The recurrence of the specification, in float64, per batch entry,
    head and step."""
    b, t, _ = q.shape
    dk, dv = q.shape[2] // hq, v.shape[2] // hkv
    q4 = q.reshape(b, t, hq, dk).astype(np.float64)
    k4 = k.reshape(b, t, hkv, dk).astype(np.float64)
    v4 = v.reshape(b, t, hkv, dv).astype(np.float64)
    s = np.zeros((b, hkv, dk, dv)) if state is None else state.astype(np.float64).copy()
    scale = 1 / np.sqrt(dk) if scale is None else scale
    y = np.zeros((b, t, hq, dv))
    for e in range(b):
        for i in range(t):
            for h in range(hkv):
                if decay is not None:
                    g = decay[e, i].reshape(hkv, -1)[h]  # 1 or dk values
                    s[e, h] *= np.exp(g.astype(np.float64))[:, None]
                val = v4[e, i, h]
                if beta is not None:
                    bb = beta[e, i, h if beta.shape[2] > 1 else 0]
                    val = bb * (val - k4[e, i, h] @ s[e, h])
                s[e, h] += np.outer(k4[e, i, h], val)
            for h in range(hq):
                y[e, i, h] = scale * q4[e, i, h] @ s[e, h // (hq // hkv)]
    return y.reshape(b, t, hq * dv), s


# gated_delta, grouped heads (4 query, 2 key/value), a decay per key
# dimension, beta per head, a past state.
b, t, hq, hkv, dk, dv = 2, 5, 4, 2, 3, 4
q = rng.standard_normal((b, t, hq * dk)).astype(np.float32)
k = (rng.standard_normal((b, t, hkv * dk)) * 0.5).astype(np.float32)
v = rng.standard_normal((b, t, hkv * dv)).astype(np.float32)
st = rng.standard_normal((b, hkv, dk, dv)).astype(np.float32)
decay = -rng.random((b, t, hkv * dk)).astype(np.float32)
beta = rng.random((b, t, hkv)).astype(np.float32)
save(helper.make_node("LinearAttention", ["q", "k", "v", "s", "g", "beta"], ["y", "state"],
                      name="la", q_num_heads=hq, kv_num_heads=hkv),
     [info("q", F, [b, t, hq * dk]), info("k", F, [b, t, hkv * dk]), info("v", F, [b, t, hkv * dv]),
      info("s", F, [b, hkv, dk, dv]), info("g", F, [b, t, hkv * dk]), info("beta", F, [b, t, hkv])],
     [info("y", F, [b, t, hq * dv]), info("state", F, [b, hkv, dk, dv])], "linear_att", 27)
for name, a in [("q", q), ("k", k), ("v", v), ("s", st), ("g", decay), ("beta", beta)]:
    npy("la_" + name, a)
y, s = linear_attention(q, k, v, hq, hkv, st, decay, beta)
npy("la_want_y", y.astype(np.float32))
npy("la_want_state", s.astype(np.float32))
# The plain linear rule in f64, an explicit scale, no past state.
q = rng.standard_normal((1, 3, 4))
k = rng.standard_normal((1, 3, 4))
v = rng.standard_normal((1, 3, 6))
save(helper.make_node("LinearAttention", ["q", "k", "v"], ["y", "state"], name="la",
                      q_num_heads=2, kv_num_heads=2, scale=0.3, update_rule="linear"),
     [info("q", TensorProto.DOUBLE, [1, 3, 4]), info("k", TensorProto.DOUBLE, [1, 3, 4]),
      info("v", TensorProto.DOUBLE, [1, 3, 6])],
     [info("y", TensorProto.DOUBLE, [1, 3, 6]), info("state", TensorProto.DOUBLE, [1, 2, 2, 3])],
     "linear_att_f64", 27)
for name, a in [("q", q), ("k", k), ("v", v)]:
    npy("la64_" + name, a)
y, s = linear_attention(q, k, v, 2, 2, scale=float(np.float32(0.3)))  # a float attribute
npy("la64_want_y", y)
npy("la64_want_state", s)
# Errors: a gated rule without decay; heads that do not divide.
save(helper.make_node("LinearAttention", ["q", "k", "v"], ["y"], name="la", q_num_heads=2,
                      kv_num_heads=2, update_rule="gated"),
     [info("q", F, [1, 3, 4]), info("k", F, [1, 3, 4]), info("v", F, [1, 3, 4])],
     [info("y", F, [1, 3, 4])], "linear_att_nodecay", 27)
save(helper.make_node("LinearAttention", ["q", "k", "v"], ["y"], name="la", q_num_heads=3,
                      kv_num_heads=2, update_rule="linear"),
     [info("q", F, [1, 3, 6]), info("k", F, [1, 3, 4]), info("v", F, [1, 3, 4])],
     [info("y", F, [1, 3, 6])], "linear_att_heads", 27)


# --- FlexAttention (ai.onnx.preview) ---------------------------------------
def save_preview(node, inputs, outputs, name):
    graph = helper.make_graph([node], name, inputs, outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 26),
                                                    helper.make_opsetid("ai.onnx.preview", 1)])
    onnx.save(model, os.path.join(out, name + ".onnx"))


def scores_info(name):
    return info(name, F, ["B", "H", "L", "S"])


# score_mod: a causal mask built from the scores' shape (Shape, Gather,
# Range, Where) plus a soft cap; prob_mod: a scale. Grouped heads (4, 2).
i64 = lambda name, v: helper.make_tensor(name, I64, [len(v)] if isinstance(v, list) else [], v if isinstance(v, list) else [v])
score_mod = helper.make_graph(
    [helper.make_node("Shape", ["scores"], ["shape"]),
     helper.make_node("Gather", ["shape", "i2"], ["L"]),
     helper.make_node("Gather", ["shape", "i3"], ["S"]),
     helper.make_node("Range", ["zero", "L", "one"], ["qr"]),
     helper.make_node("Reshape", ["qr", "qshape"], ["qi"]),
     helper.make_node("Range", ["zero", "S", "one"], ["kr"]),
     helper.make_node("GreaterOrEqual", ["qi", "kr"], ["mask"]),
     helper.make_node("Div", ["scores", "cap"], ["d"]),
     helper.make_node("Tanh", ["d"], ["th"]),
     helper.make_node("Mul", ["th", "cap"], ["capped"]),
     helper.make_node("Where", ["mask", "capped", "neginf"], ["out"])],
    "score_mod", [scores_info("scores")], [scores_info("out")],
    [i64("i2", 2), i64("i3", 3), i64("zero", 0), i64("one", 1), i64("qshape", [-1, 1]),
     helper.make_tensor("cap", F, [], [5.0]), helper.make_tensor("neginf", F, [], [-np.inf])])
prob_mod = helper.make_graph(
    [helper.make_node("Mul", ["probs", "half"], ["out"])], "prob_mod",
    [scores_info("probs")], [scores_info("out")], [helper.make_tensor("half", F, [], [0.5])])
q = rng.standard_normal((2, 4, 5, 8)).astype(np.float32)
k = rng.standard_normal((2, 2, 5, 8)).astype(np.float32)
v = rng.standard_normal((2, 2, 5, 8)).astype(np.float32)
node = helper.make_node("FlexAttention", ["q", "k", "v"], ["y"], name="flex", domain="ai.onnx.preview",
                        score_mod=score_mod, prob_mod=prob_mod)
save_preview(node, [info("q", F, [2, 4, 5, 8]), info("k", F, [2, 2, 5, 8]), info("v", F, [2, 2, 5, 8])],
             [info("y", F, [2, 4, 5, 8])], "flex")
for name, a in [("q", q), ("k", k), ("v", v)]:
    npy("flex_" + name, a)
kk, vv = np.repeat(k, 2, axis=1).astype(np.float64), np.repeat(v, 2, axis=1).astype(np.float64)
sc = q.astype(np.float64) @ kk.transpose(0, 1, 3, 2) / np.sqrt(8)
sc = np.where(np.arange(5)[:, None] >= np.arange(5)[None, :], 5 * np.tanh(sc / 5), -np.inf)
p = np.exp(sc - sc.max(-1, keepdims=True))
p = 0.5 * p / p.sum(-1, keepdims=True)
npy("flex_want", (p @ vv).astype(np.float32))
# Errors: a score_mod that changes the shape; an op of the preview domain
# Tide does not know.
bad_mod = helper.make_graph(
    [helper.make_node("ReduceSum", ["scores", "ax"], ["out"], keepdims=1)], "bad_mod",
    [scores_info("scores")], [scores_info("out")], [i64("ax", [3])])
save_preview(helper.make_node("FlexAttention", ["q", "k", "v"], ["y"], name="flex",
                              domain="ai.onnx.preview", score_mod=bad_mod),
             [info("q", F, [2, 4, 5, 8]), info("k", F, [2, 2, 5, 8]), info("v", F, [2, 2, 5, 8])],
             [info("y", F, [2, 4, 5, 8])], "flex_bad_mod")
save_preview(helper.make_node("FancyAttention", ["q"], ["y"], name="fancy", domain="ai.onnx.preview"),
             [info("q", F, [2])], [info("y", F, [2])], "preview_unknown")

# --- Causal and windowed Attention with sizes known only at run time --------
# Symbolic batch, sequence and past (as PyTorch's exporter writes a decoder's
# scaled_dot_product_attention): the frontier is computed from positions at
# run time. One model, two input sets: a prompt after a cache of 3, and one
# decoding step after a cache of 6; and a window of 2 without a cache.
save(helper.make_node("Attention", ["q", "k", "v", "", "pk", "pv"], ["y", "prk", "prv"],
                      is_causal=1),
     [info("q", F, ["b", 4, "s", 8]), info("k", F, ["b", 2, "s", 8]),
      info("v", F, ["b", 2, "s", 8]), info("pk", F, ["b", 2, "p", 8]),
      info("pv", F, ["b", 2, "p", 8])],
     [info("y", F, None), info("prk", F, None), info("prv", F, None)], "att_causal_dyn", 24)
for tag, (b_, s_, p_) in {"a": (2, 5, 3), "b": (1, 1, 6)}.items():
    q_ = rng.standard_normal((b_, 4, s_, 8)).astype(np.float32)
    k_ = rng.standard_normal((b_, 2, s_, 8)).astype(np.float32)
    v_ = rng.standard_normal((b_, 2, s_, 8)).astype(np.float32)
    pk_ = rng.standard_normal((b_, 2, p_, 8)).astype(np.float32)
    pv_ = rng.standard_normal((b_, 2, p_, 8)).astype(np.float32)
    kk, vv = np.concatenate([pk_, k_], 2), np.concatenate([pv_, v_], 2)
    for i_, a_ in enumerate([q_, k_, v_, pk_, pv_]):
        npy("attd_%s_in%d" % (tag, i_), a_)
    want = attention(q_.astype(np.float64), kk.astype(np.float64), vv.astype(np.float64),
                     np.full(b_, p_ + s_), causal=True)
    npy("attd_%s_want" % tag, want.astype(np.float32))
save(helper.make_node("Attention", ["q", "k", "v"], ["y"], is_causal=1, left_window_size=2),
     [info("q", F, ["b", 4, "s", 8]), info("k", F, ["b", 2, "s", 8]),
      info("v", F, ["b", 2, "s", 8])], [info("y", F, None)], "att_window_dyn", 24)
q_ = rng.standard_normal((2, 4, 7, 8)).astype(np.float32)
k_ = rng.standard_normal((2, 2, 7, 8)).astype(np.float32)
v_ = rng.standard_normal((2, 2, 7, 8)).astype(np.float32)
for i_, a_ in enumerate([q_, k_, v_]):
    npy("attw_in%d" % i_, a_)
npy("attw_want", attention(q_.astype(np.float64), k_.astype(np.float64), v_.astype(np.float64),
                           np.full(2, 7), causal=True, left=2).astype(np.float32))
