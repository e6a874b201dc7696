#!/usr/bin/env python3
"""Writes a BERT-style transformer encoder layer as ONNX, the way PyTorch's
exporter writes one (opset 18: embeddings by Gather, LayerNormalization, attention
as MatMul/Div/Add/Softmax/MatMul with heads split by Reshape/Transpose, GELU
spelled with Erf, the mask built from an int64 attention mask, a mean over the
sequence with its axes as an input), with a symbolic batch and seeded random
weights (biases and norms re-drawn so that none is trivially 0 or 1).

    make_encoder.py OUTDIR        -> encoder.onnx, ids_b{2,3}.npy, mask_b{2,3}.npy
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(11)
V, S, H, NH, FF = 100, 16, 64, 4, 128
DH = H // NH
inits = []
nodes = []


def w(name, *shape, scale=0.1):
    inits.append(numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32), name))
    return name


def c(name, value):
    inits.append(numpy_helper.from_array(np.asarray(value), name))
    return name


def node(op, ins, outs, name, **attrs):
    nodes.append(helper.make_node(op, ins, outs if isinstance(outs, list) else [outs], name=name, **attrs))
    return outs


w("tok_emb", V, H, scale=1.0)
w("pos_emb", S, H, scale=1.0)
for n in ["ln0", "ln1", "ln2"]:
    inits.append(numpy_helper.from_array((1 + 0.1 * rng.standard_normal(H)).astype(np.float32), n + "_g"))
    w(n + "_b", H)
for n in ["q", "k", "v", "o"]:
    w(n + "_w", H, H)
    w(n + "_b", H)
w("ff1_w", H, FF)
w("ff1_b", FF)
w("ff2_w", FF, H)
w("ff2_b", H)
c("heads_shape", np.array([0, 0, NH, DH], np.int64))
c("merge_shape", np.array([0, 0, H], np.int64))
c("scale", np.array(np.sqrt(DH), np.float32))
c("one", np.array(1.0, np.float32))
c("neg", np.array(-10000.0, np.float32))
c("half", np.array(0.5, np.float32))
c("rsqrt2", np.array(1 / np.sqrt(2), np.float32))
c("mask_axes", np.array([1, 2], np.int64))
c("seq_axis", np.array([1], np.int64))

x = node("Gather", ["tok_emb", "input_ids"], "tok", "embeddings.word")
x = node("Add", [x, "pos_emb"], "emb", "embeddings.add_position")
x = node("LayerNormalization", [x, "ln0_g", "ln0_b"], "h0", "embeddings.norm", axis=-1, epsilon=1e-12)
# Additive mask (B, 1, 1, S) from the int64 attention mask.
m = node("Cast", ["attention_mask"], "mask_f", "mask.cast", to=TensorProto.FLOAT)
m = node("Sub", ["one", m], "mask_inv", "mask.invert")
m = node("Mul", [m, "neg"], "mask_add", "mask.scale")
m = node("Unsqueeze", [m, "mask_axes"], "mask4", "mask.unsqueeze")
heads = {}
for n in ["q", "k", "v"]:
    t = node("MatMul", [x, n + "_w"], n + "_mm", "attn.%s.matmul" % n)
    t = node("Add", [t, n + "_b"], n + "_lin", "attn.%s.bias" % n)
    t = node("Reshape", [t, "heads_shape"], n + "_heads", "attn.%s.split_heads" % n)
    heads[n] = node("Transpose", [t], n + "_t", "attn.%s.transpose" % n,
                    perm=[0, 2, 3, 1] if n == "k" else [0, 2, 1, 3])
s = node("MatMul", [heads["q"], heads["k"]], "scores", "attn.scores")
s = node("Div", [s, "scale"], "scores_scaled", "attn.scale")
s = node("Add", [s, "mask4"], "scores_masked", "attn.mask")
p = node("Softmax", [s], "probs", "attn.softmax", axis=-1)
ctx = node("MatMul", [p, heads["v"]], "ctx", "attn.context")
ctx = node("Transpose", [ctx], "ctx_t", "attn.merge_transpose", perm=[0, 2, 1, 3])
ctx = node("Reshape", [ctx, "merge_shape"], "ctx_m", "attn.merge_heads")
o = node("MatMul", [ctx, "o_w"], "o_mm", "attn.out.matmul")
o = node("Add", [o, "o_b"], "o_lin", "attn.out.bias")
r = node("Add", [x, o], "res1", "attn.residual")
h1 = node("LayerNormalization", [r, "ln1_g", "ln1_b"], "h1", "attn.norm", axis=-1, epsilon=1e-12)
f = node("MatMul", [h1, "ff1_w"], "ff1_mm", "ffn.in.matmul")
f = node("Add", [f, "ff1_b"], "ff1", "ffn.in.bias")
g = node("Mul", [f, "rsqrt2"], "g_s", "ffn.gelu.scale")
g = node("Erf", [g], "g_e", "ffn.gelu.erf")
g = node("Add", [g, "one"], "g_1", "ffn.gelu.add")
g = node("Mul", [f, g], "g_m", "ffn.gelu.mul")
g = node("Mul", [g, "half"], "gelu", "ffn.gelu.half")
f = node("MatMul", [g, "ff2_w"], "ff2_mm", "ffn.out.matmul")
f = node("Add", [f, "ff2_b"], "ff2", "ffn.out.bias")
r = node("Add", [h1, f], "res2", "ffn.residual")
node("LayerNormalization", [r, "ln2_g", "ln2_b"], "hidden", "ffn.norm", axis=-1, epsilon=1e-12)
node("ReduceMean", ["hidden", "seq_axis"], "pooled", "pool.mean", keepdims=0)

graph = helper.make_graph(
    nodes, "encoder",
    [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", S]),
     helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", S])],
    [helper.make_tensor_value_info("hidden", TensorProto.FLOAT, ["batch", S, H]),
     helper.make_tensor_value_info("pooled", TensorProto.FLOAT, ["batch", H])],
    inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
model.ir_version = 8
# (onnx 1.12, Debian's, knows opsets up to 17: ONNX Runtime checks this model.)
onnx.save(model, os.path.join(out, "encoder.onnx"))
for b in (2, 3):
    ids = rng.integers(0, V, (b, S)).astype(np.int64)
    mask = np.ones((b, S), np.int64)
    mask[0, S - 4:] = 0
    np.save(os.path.join(out, "ids_b%d.npy" % b), ids)
    np.save(os.path.join(out, "mask_b%d.npy" % b), mask)
