#!/usr/bin/env python3
"""Writes a BERT-style transformer encoder layer as ONNX, the way PyTorch's
exporter writes one (opset 18: embeddings by Gather, LayerNormalization, attention
as MatMul/Div/Add/Softmax/MatMul with heads split by Reshape/Transpose, GELU
spelled with Erf, the mask built from an int64 attention mask, a mean over the
sequence with its axes as an input), with a symbolic batch and seeded random
weights (biases and norms re-drawn so that none is trivially 0 or 1).

encoder_dyn.onnx is the same layer with a symbolic batch and sequence and the
shape arithmetic of PyTorch's dynamo exporter (torch.onnx.export(dynamo=True)
with a transformers-style mask): sizes from Shape(x, start, end), positions
sliced from a buffer up to the run-time length, token types from
ConstantOfShape(Shape(ids)), the mask built at run time from Range over batch
and sequence, indices broadcast through Max/Shape/Expand and GatherND into the
padding mask, expanded to (B, 1, S, S) by Expand(Abs(Concat(B, -1, S, S))),
heads split and merged by Reshape with Concat'ed run-time sizes, and
scaled_dot_product_attention as torchlib writes it for a boolean mask (the
scale from Shape(q)[-1], the key transposed through Reshape with shapes from
Shape, Where(mask, 0, -inf), Softmax, Where(IsNaN(p), 0, p)). Sequence 1 of
batch 3 is fully masked (a NaN row that IsNaN clears).

    make_encoder.py OUTDIR        -> encoder.onnx, ids_b{2,3}.npy, mask_b{2,3}.npy,
                                     encoder_dyn.onnx, dyn_{ids,mask}_b{2,3,4}.npy
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


# --- The same layer as PyTorch's dynamo exporter writes it, batch and
# sequence symbolic. ---------------------------------------------------------
INT64_MAX = 9223372036854775807
nodes = []
inits = [i for i in inits
         if i.name not in ("heads_shape", "merge_shape", "scale", "neg", "mask_axes")]
inits.append(numpy_helper.from_array(np.arange(S, dtype=np.int64).reshape(1, S), "position_ids"))
w("type_emb", 2, H, scale=1.0)
count = [0]


def k(value, dtype=np.int64):
    """A Constant node, as the exporter writes small constants."""
    count[0] += 1
    name = "val_%d" % count[0]
    nodes.append(helper.make_node("Constant", [], [name], name="node_Constant_%d" % count[0],
                                  value=numpy_helper.from_array(np.asarray(value, dtype))))
    return name


def sym(x, dim, name):
    """torch.ops.aten.sym_size.int: Shape(start, end) then Squeeze."""
    s1 = node("Shape", [x], name + "_shape", name + ".Shape", start=dim, end=dim + 1)
    return node("Squeeze", [s1, k([0])], name, name + ".Squeeze")


def vec(x, name):
    return node("Reshape", [x, k([-1])], name, name + ".Reshape")


B = sym("input_ids", 0, "sym_size_int")
Sq = sym("input_ids", 1, "sym_size_int_1")
B1, S1 = vec(B, "view"), vec(Sq, "view_1")
pos = node("Slice", ["position_ids", k([0]), S1, k([1]), k([1])], "slice_1", "embeddings.slice")
types = node("ConstantOfShape", [node("Shape", ["input_ids"], "ids_shape", "embeddings.Shape")],
             "zeros", "embeddings.zeros", value=numpy_helper.from_array(np.array([0], np.int64)))
x = node("Gather", ["tok_emb", "input_ids"], "tok", "embeddings.word")
x = node("Add", [x, node("Gather", ["type_emb", types], "typ", "embeddings.token_type")], "emb0",
         "embeddings.add_type")
x = node("Add", [x, node("Gather", ["pos_emb", pos], "posv", "embeddings.position")], "emb",
         "embeddings.add_position")
x = node("LayerNormalization", [x, "ln0_g", "ln0_b"], "h0", "embeddings.norm", axis=-1, epsilon=1e-12)
# The boolean mask (B, 1, S, S): padding_mask[batch_idx, kv_idx] by aten.index.
bi = node("Unsqueeze", [node("Range", [k(0), B, k(1)], "arange", "mask.arange"), k([1, 2, 3])],
          "batch_idx", "mask.batch_idx")
kv = node("Add", [node("Range", [k(0), Sq, k(1)], "arange_1", "mask.arange_1"), k(0)], "kv_pos",
          "mask.kv_offset")
kv = node("Unsqueeze", [kv, k([0, 1, 2])], "kv_idx", "mask.kv_idx")
shape = node("Shape", [node("Max", [bi, kv], "index_max", "mask.index.Max")], "index_shape",
             "mask.index.Shape")
be = node("Unsqueeze", [node("Expand", [bi, shape], "bi_e", "mask.index.Expand"), k([-1])], "bi_u",
          "mask.index.Unsqueeze")
ke = node("Unsqueeze", [node("Expand", [kv, shape], "kv_e", "mask.index.Expand_1"), k([-1])], "kv_u",
          "mask.index.Unsqueeze_1")
idx = node("Concat", [be, ke], "index", "mask.index.Concat", axis=-1)
pad = node("Cast", ["attention_mask"], "pad", "mask.to_bool", to=TensorProto.BOOL)
m = node("GatherND", [pad, idx], "mask_b11s", "mask.index.GatherND")
size = node("Concat", [B1, k([-1]), S1, S1], "expand_size", "mask.expand.Concat", axis=0)
m = node("Expand", [m, node("Abs", [size], "expand_abs", "mask.expand.Abs")], "mask4", "mask.expand")
heads = {}
for n in ["q", "k", "v"]:
    t = node("MatMul", [x, n + "_w"], n + "_mm", "attn.%s.matmul" % n)
    t = node("Add", [t, n + "_b"], n + "_lin", "attn.%s.bias" % n)
    hs = node("Concat", [B1, S1, k([NH]), k([DH])], n + "_hs", "attn.%s.view_shape" % n, axis=0)
    t = node("Reshape", [t, hs], n + "_heads", "attn.%s.view" % n)
    heads[n] = node("Transpose", [t], n + "_t", "attn.%s.transpose" % n, perm=[0, 2, 1, 3])
q, kk, v = heads["q"], heads["k"], heads["v"]
emb = node("CastLike", [node("Slice", [node("Shape", [q], "q_shape", "sdpa.Shape"), k([-1]),
                                        k([INT64_MAX])], "q_last", "sdpa.Slice"), k(0.0, np.float32)],
           "q_last_f", "sdpa.CastLike")
scale = node("Div", [k(1.0, np.float32), node("Sqrt", [emb], "q_sqrt", "sdpa.Sqrt")], "scale",
             "sdpa.scale")
sq = node("Sqrt", [scale], "sqrt_scale", "sdpa.Sqrt_1")
k_last = node("Shape", [kk], "k_last", "sdpa.Shape_1", start=-1)
k_second = node("Shape", [kk], "k_second", "sdpa.Shape_2", start=-2, end=-1)
k_first = node("Shape", [kk], "k_first", "sdpa.Shape_3", end=-2)
k3 = node("Reshape", [kk, node("Concat", [k([-1]), k_second, k_last], "k_sq_shape", "sdpa.Concat",
                               axis=0)], "k_squeezed", "sdpa.Reshape")
kt = node("Transpose", [k3], "key_squeezed_t", "sdpa.Transpose", perm=[0, 2, 1])
kt = node("Reshape", [kt, node("Concat", [k_first, k_last, k_second], "k_t_shape", "sdpa.Concat_1",
                               axis=0)], "key_t", "sdpa.Reshape_1")
s = node("MatMul", [node("Mul", [q, sq], "q_scaled", "sdpa.Mul"),
                    node("Mul", [kt, sq], "k_scaled", "sdpa.Mul_1")], "scores", "sdpa.MatMul")
bias = node("Where", [m, k(0.0, np.float32), k(-np.inf, np.float32)], "mask_bias", "sdpa.Where")
p = node("Softmax", [node("Add", [s, bias], "scores_masked", "sdpa.Add")], "probs", "sdpa.Softmax",
         axis=-1)
p = node("Where", [node("IsNaN", [p], "probs_nan", "sdpa.IsNaN"), k(0.0, np.float32), p], "probs_ok",
         "sdpa.Where_1")
ctx = node("MatMul", [p, v], "ctx", "sdpa.MatMul_1")
ctx = node("Transpose", [ctx], "ctx_t", "attn.merge_transpose", perm=[0, 2, 1, 3])
ctx = node("Reshape", [ctx, node("Concat", [B1, S1, k([H])], "merge_shape", "attn.merge_shape",
                                 axis=0)], "ctx_m", "attn.merge_heads")
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
    nodes, "encoder_dyn",
    [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["s0", "s1"]),
     helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["s0", "s1"])],
    [helper.make_tensor_value_info("hidden", TensorProto.FLOAT, ["s0", "s1", H]),
     helper.make_tensor_value_info("pooled", TensorProto.FLOAT, ["s0", H])],
    inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
model.ir_version = 8
onnx.save(model, os.path.join(out, "encoder_dyn.onnx"))
for b, sl in ((2, 16), (3, 11), (4, 5)):
    ids = rng.integers(0, V, (b, sl)).astype(np.int64)
    mask = np.ones((b, sl), np.int64)
    mask[0, sl - 3:] = 0
    if b == 3:
        mask[1, :] = 0
    np.save(os.path.join(out, "dyn_ids_b%d.npy" % b), ids)
    np.save(os.path.join(out, "dyn_mask_b%d.npy" % b), mask)
