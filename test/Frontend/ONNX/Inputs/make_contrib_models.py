#!/usr/bin/env python3
"""Models of ONNX Runtime's com.microsoft contrib ops (ConvertContrib.cpp)
with random inputs, for tide_vs_ort.py: make_contrib_models.py OUT_DIR.

Each MODEL.onnx has MODEL_in0.npy, ... ; ONNX Runtime computes the
expected outputs."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(11)
MS = "com.microsoft"
F32, F16 = TensorProto.FLOAT, TensorProto.FLOAT16


def model(name, nodes, inputs, outputs, inits=(), arrays=()):
    g = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17),
                                            helper.make_opsetid(MS, 1)])
    m.ir_version = 8
    onnx.save(m, os.path.join(out, name + ".onnx"))
    for i, a in enumerate(arrays):
        np.save(os.path.join(out, "%s_in%d.npy" % (name, i)), a)


def vi(name, dt, shape):
    return helper.make_tensor_value_info(name, dt, shape)


def rand(*shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


x = rand(2, 5, 16)
b16 = rand(16)
for op, extra in (("Gelu", []), ("BiasGelu", ["b"]), ("FastGelu", ["b"]),
                  ("QuickGelu", [])):
    inputs = [vi("x", F32, [2, 5, 16])] + [vi("b", F32, [16]) for _ in extra]
    model(op.lower(), [helper.make_node(op, ["x"] + extra, ["y"], domain=MS)],
          inputs, [vi("y", F32, [2, 5, 16])], arrays=[x] + [b16 for _ in extra])
model("fastgelu_nobias", [helper.make_node("FastGelu", ["x"], ["y"], domain=MS)],
      [vi("x", F32, [2, 5, 16])], [vi("y", F32, [2, 5, 16])], arrays=[x])
model("quickgelu_alpha", [helper.make_node("QuickGelu", ["x"], ["y"], domain=MS, alpha=1.3)],
      [vi("x", F32, [2, 5, 16])], [vi("y", F32, [2, 5, 16])], arrays=[x])
model("biasadd", [helper.make_node("BiasAdd", ["x", "b", "s"], ["y"], domain=MS)],
      [vi("x", F32, [2, 5, 16]), vi("b", F32, [16]), vi("s", F32, [2, 5, 16])],
      [vi("y", F32, [2, 5, 16])], arrays=[x, b16, rand(2, 5, 16)])
# ONNX Runtime has BiasAdd on CUDA only: its CPU runs the same sum.
g = helper.make_graph([helper.make_node("Add", ["x", "b"], ["t"]),
                       helper.make_node("Add", ["t", "s"], ["y"])], "biasadd_ref",
                      [vi("x", F32, [2, 5, 16]), vi("b", F32, [16]), vi("s", F32, [2, 5, 16])],
                      [vi("y", F32, [2, 5, 16])])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]),
          os.path.join(out, "biasadd_ref.onnx"))

# FusedMatMul with transposes and alpha, batched.
model("fusedmatmul", [helper.make_node("FusedMatMul", ["a", "b"], ["y"], domain=MS,
                                       alpha=0.25, transA=1, transB=1)],
      [vi("a", F32, [3, 8, 4]), vi("b", F32, [3, 6, 8])], [vi("y", F32, [3, 4, 6])],
      arrays=[rand(3, 8, 4), rand(3, 6, 8)])
model("fusedmatmul_plain", [helper.make_node("FusedMatMul", ["a", "b"], ["y"], domain=MS)],
      [vi("a", F32, [5, 7]), vi("b", F32, [7, 3])], [vi("y", F32, [5, 3])],
      arrays=[rand(5, 7), rand(7, 3)])

# SkipLayerNormalization with beta and bias, every output; the simplified
# (RMS) form with bias; f16.
h = 32
xs, sk = rand(2, 7, h), rand(2, 7, h)
gamma, beta, bias = rand(h), rand(h), rand(h)
model("skipln", [helper.make_node("SkipLayerNormalization", ["x", "s", "g", "be", "bi"],
                                  ["y", "mean", "inv", "sum"], domain=MS, epsilon=1e-6)],
      [vi("x", F32, [2, 7, h]), vi("s", F32, [2, 7, h]), vi("g", F32, [h]),
       vi("be", F32, [h]), vi("bi", F32, [h])],
      [vi("y", F32, [2, 7, h]), vi("mean", F32, None), vi("inv", F32, None),
       vi("sum", F32, [2, 7, h])],
      arrays=[xs, sk, gamma, beta, bias])
model("skipln_plain", [helper.make_node("SkipLayerNormalization", ["x", "s", "g"], ["y"],
                                        domain=MS, epsilon=1e-5)],
      [vi("x", F32, [2, 7, h]), vi("s", F32, [2, 7, h]), vi("g", F32, [h])],
      [vi("y", F32, [2, 7, h])], arrays=[xs, sk, gamma])
model("skipsln", [helper.make_node("SkipSimplifiedLayerNormalization", ["x", "s", "g", "bi"],
                                   ["y", "", "", "sum"], domain=MS, epsilon=1e-6)],
      [vi("x", F32, [2, 7, h]), vi("s", F32, [2, 7, h]), vi("g", F32, [h]),
       vi("bi", F32, [h])],
      [vi("y", F32, [2, 7, h]), vi("sum", F32, [2, 7, h])],
      arrays=[xs, sk, gamma, bias])
model("skipln_f16", [helper.make_node("SkipLayerNormalization", ["x", "s", "g", "be"], ["y"],
                                      domain=MS, epsilon=1e-5)],
      [vi("x", F16, [2, 7, h]), vi("s", F16, [2, 7, h]), vi("g", F16, [h]),
       vi("be", F16, [h])],
      [vi("y", F16, [2, 7, h])],
      arrays=[xs.astype(np.float16), sk.astype(np.float16), gamma.astype(np.float16),
              beta.astype(np.float16)])
model("sln", [helper.make_node("SimplifiedLayerNormalization", ["x", "g"], ["y"],
                               epsilon=1e-6, axis=-1)],
      [vi("x", F32, [2, 7, h]), vi("g", F32, [h])], [vi("y", F32, [2, 7, h])],
      arrays=[xs, gamma])


# com.microsoft Attention: packed Q/K/V weights and bias; with a 2-D mask,
# causal, with 1-D valid lengths; MultiHeadAttention with its bias, a key
# padding mask and an attention bias, keys longer than queries.
B, S, H, N = 2, 5, 16, 4
xa = rand(B, S, H)
wa, ba = rand(H, 3 * H) * np.float32(0.3), rand(3 * H)
mask2 = np.ones((B, S), np.int32)
mask2[1, 3:] = 0
att_in = [vi("x", F32, [B, S, H]), vi("w", F32, [H, 3 * H]), vi("b", F32, [3 * H])]
model("attn", [helper.make_node("Attention", ["x", "w", "b"], ["y"], domain=MS, num_heads=N)],
      att_in, [vi("y", F32, [B, S, H])], arrays=[xa, wa, ba])
model("attn_mask", [helper.make_node("Attention", ["x", "w", "b", "m"], ["y"], domain=MS,
                                     num_heads=N)],
      att_in + [vi("m", TensorProto.INT32, [B, S])], [vi("y", F32, [B, S, H])],
      arrays=[xa, wa, ba, mask2])
model("attn_causal", [helper.make_node("Attention", ["x", "w", "b"], ["y"], domain=MS,
                                       num_heads=N, unidirectional=1)],
      att_in, [vi("y", F32, [B, S, H])], arrays=[xa, wa, ba])
model("attn_lens", [helper.make_node("Attention", ["x", "w", "b", "m"], ["y"], domain=MS,
                                     num_heads=2, scale=0.2)],
      att_in + [vi("m", TensorProto.INT32, [B])], [vi("y", F32, [B, S, H])],
      arrays=[xa, wa, ba, np.array([5, 2], np.int32)])
L = 7
kpm = np.ones((B, L), np.int32)
kpm[0, 5:] = 0
model("mha", [helper.make_node("MultiHeadAttention", ["q", "k", "v", "b", "m", "ab"], ["y"],
                               domain=MS, num_heads=N)],
      [vi("q", F32, [B, S, H]), vi("k", F32, [B, L, H]), vi("v", F32, [B, L, H]),
       vi("b", F32, [3 * H]), vi("m", TensorProto.INT32, [B, L]), vi("ab", F32, [1, N, S, L])],
      [vi("y", F32, [B, S, H])],
      arrays=[rand(B, S, H), rand(B, L, H), rand(B, L, H), rand(3 * H), kpm, rand(1, N, S, L)])
model("mha_plain", [helper.make_node("MultiHeadAttention", ["q", "k", "v"], ["y"], domain=MS,
                                     num_heads=2)],
      [vi("q", F32, [B, S, H]), vi("k", F32, [B, L, H]), vi("v", F32, [B, L, H])],
      [vi("y", F32, [B, S, H])], arrays=[rand(B, S, H), rand(B, L, H), rand(B, L, H)])


# EmbedLayerNormalization: word, position and segment embeddings, mask_index
# and the embedding sum; without segments and with explicit position ids.
V, P, Hs = 30, 12, 16
ids = rng.integers(0, V, (B, S)).astype(np.int32)
seg = rng.integers(0, 2, (B, S)).astype(np.int32)
emask = np.ones((B, S), np.int32)
emask[1, 3:] = 0
emb_in = [vi("ids", TensorProto.INT32, [B, S]), vi("seg", TensorProto.INT32, [B, S]),
          vi("we", F32, [V, Hs]), vi("pe", F32, [P, Hs]), vi("se", F32, [2, Hs]),
          vi("g", F32, [Hs]), vi("be", F32, [Hs]), vi("m", TensorProto.INT32, [B, S])]
model("embln", [helper.make_node("EmbedLayerNormalization",
                                 ["ids", "seg", "we", "pe", "se", "g", "be", "m"],
                                 ["y", "mi", "sum"], domain=MS, epsilon=1e-5)],
      emb_in, [vi("y", F32, [B, S, Hs]), vi("mi", TensorProto.INT32, [B]),
               vi("sum", F32, [B, S, Hs])],
      arrays=[ids, seg, rand(V, Hs), rand(P, Hs), rand(2, Hs), rand(Hs), rand(Hs), emask])
# Ids past a table: a word id of V, a position id of P (errors, as in ONNX
# Runtime).
bad_ids = ids.copy()
bad_ids[1, 2] = V
np.save(os.path.join(out, "embln_bad_word.npy"), bad_ids)
pos = np.array([[2, 3, 4, 5, 6]] * B, np.int32)
np.save(os.path.join(out, "embln_bad_pos.npy"), np.array([[2, 3, 4, 5, P]] * B, np.int32))
model("embln_pos", [helper.make_node("EmbedLayerNormalization",
                                     ["ids", "", "we", "pe", "", "g", "be", "m", "p"],
                                     ["y", "mi"], domain=MS)],
      [vi("ids", TensorProto.INT32, [B, S]), vi("we", F32, [V, Hs]), vi("pe", F32, [P, Hs]),
       vi("g", F32, [Hs]), vi("be", F32, [Hs]), vi("m", TensorProto.INT32, [B, S]),
       vi("p", TensorProto.INT32, [B, S])],
      [vi("y", F32, [B, S, Hs]), vi("mi", TensorProto.INT32, [B])],
      arrays=[ids, rand(V, Hs), rand(P, Hs), rand(Hs), rand(Hs), emask, pos])


# com.microsoft RotaryEmbedding: 3-D input with position ids, 4-D with an
# offset, interleaved, a partial rotary dimension.
maxpos, d = 16, 8
cos_c = rand(maxpos, d // 2)
sin_c = rand(maxpos, d // 2)
rpos = rng.integers(0, maxpos, (B, S)).astype(np.int64)
model("rope3", [helper.make_node("RotaryEmbedding", ["x", "p", "c", "s"], ["y"], domain=MS,
                                 num_heads=2)],
      [vi("x", F32, [B, S, 2 * d]), vi("p", TensorProto.INT64, [B, S]),
       vi("c", F32, [maxpos, d // 2]), vi("s", F32, [maxpos, d // 2])],
      [vi("y", F32, [B, S, 2 * d])], arrays=[rand(B, S, 2 * d), rpos, cos_c, sin_c])
model("rope4_offset", [helper.make_node("RotaryEmbedding", ["x", "p", "c", "s"], ["y"],
                                        domain=MS, interleaved=1)],
      [vi("x", F32, [B, 3, S, d]), vi("p", TensorProto.INT64, [1]),
       vi("c", F32, [maxpos, d // 2]), vi("s", F32, [maxpos, d // 2])],
      [vi("y", F32, [B, 3, S, d])],
      arrays=[rand(B, 3, S, d), np.array([4], np.int64), cos_c, sin_c])
model("rope_partial", [helper.make_node("RotaryEmbedding", ["x", "p", "c", "s"], ["y"],
                                        domain=MS, num_heads=2, rotary_embedding_dim=4)],
      [vi("x", F32, [B, S, 2 * d]), vi("p", TensorProto.INT64, [B, S]),
       vi("c", F32, [maxpos, 2]), vi("s", F32, [maxpos, 2])],
      [vi("y", F32, [B, S, 2 * d])],
      arrays=[rand(B, S, 2 * d), rpos, rand(maxpos, 2), rand(maxpos, 2)])
# A rank-2 input with an offset: refused with the rank message (the offset
# form read the sequence axis of the rank-1 or -2 input out of bounds before,
# found by the ONNX fuzzer).
model("rope_rank2_offset", [helper.make_node("RotaryEmbedding", ["x", "p", "c", "s"], ["y"],
                                             domain=MS)],
      [vi("x", F32, [S, d]), vi("p", TensorProto.INT64, [1]),
       vi("c", F32, [maxpos, d // 2]), vi("s", F32, [maxpos, d // 2])],
      [vi("y", F32, [S, d])],
      arrays=[rand(S, d), np.array([4], np.int64), cos_c, sin_c])


# The contrib domain's QuantizeLinear and DequantizeLinear (per channel).
xq8 = rand(4, 6) * np.float32(3)
model("qdq", [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], domain=MS, axis=1),
              helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"], domain=MS, axis=1)],
      [vi("x", F32, [4, 6])], [vi("q", TensorProto.UINT8, [4, 6]), vi("y", F32, [4, 6])],
      [helper.make_tensor("s", F32, [6], [0.02, 0.05, 0.1, 0.03, 0.04, 0.06]),
       helper.make_tensor("z", TensorProto.UINT8, [6], [128, 120, 130, 100, 140, 128])],
      arrays=[xq8])


# FusedConv: every activation, and the Conv + Add (Z) + Relu form.
xc = rand(1, 3, 8, 8)
wc, bc = rand(4, 3, 3, 3), rand(4)
for act, params in (("Relu", []), ("Sigmoid", []), ("Tanh", []), ("LeakyRelu", [0.2]),
                    ("Clip", [-0.5, 0.7]), ("HardSigmoid", [0.3, 0.4])):
    attrs = {"activation": act, "pads": [1, 1, 1, 1]}
    if params:
        attrs["activation_params"] = params
    model("fconv_" + act.lower(), [helper.make_node("FusedConv", ["x", "w", "b"], ["y"],
                                                   domain=MS, **attrs)],
          [vi("x", F32, [1, 3, 8, 8]), vi("w", F32, [4, 3, 3, 3]), vi("b", F32, [4])],
          [vi("y", F32, [1, 4, 8, 8])], arrays=[xc, wc, bc])
model("fconv_sum", [helper.make_node("FusedConv", ["x", "w", "b", "z"], ["y"], domain=MS,
                                     activation="Relu", strides=[2, 2])],
      [vi("x", F32, [1, 3, 8, 8]), vi("w", F32, [4, 3, 3, 3]), vi("b", F32, [4]),
       vi("z", F32, [1, 4, 3, 3])], [vi("y", F32, [1, 4, 3, 3])],
      arrays=[xc, wc, bc, rand(1, 4, 3, 3)])

# FusedGemm with transB and an activation.
for act in ("Relu", "LeakyRelu"):
    attrs = {"activation": act, "transB": 1, "alpha": 0.5, "beta": 2.0}
    if act == "LeakyRelu":
        attrs["activation_alpha"] = 0.3
    model("fgemm_" + act.lower(), [helper.make_node("FusedGemm", ["a", "b", "c"], ["y"],
                                                   domain=MS, **attrs)],
          [vi("a", F32, [4, 8]), vi("b", F32, [5, 8]), vi("c", F32, [5])],
          [vi("y", F32, [4, 5])], arrays=[rand(4, 8), rand(5, 8), rand(5)])

# torch/bert_tiny.onnx (PyTorch's export of a 2-layer BERT) after ONNX
# Runtime 1.31's transformer optimizer (optimize_model(model_type="bert",
# opt_level=0): SkipLayerNormalization and BiasGelu fused), with ids and a
# padded mask.
import shutil
shutil.copy(os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch",
                         "bert_tiny_ort_optimized.onnx"), os.path.join(out, "bert_opt.onnx"))
np.save(os.path.join(out, "bert_opt_in0.npy"), rng.integers(0, 100, (2, 8)).astype(np.int64))
bmask = np.ones((2, 8), np.int64)
bmask[1, 5:] = 0
np.save(os.path.join(out, "bert_opt_in1.npy"), bmask)
# torch/cnn_small.onnx as ONNX Runtime 1.31 saves it at ORT_ENABLE_EXTENDED
# (optimized_model_filepath): three FusedConv.
shutil.copy(os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch",
                         "cnn_small_ort_extended.onnx"), os.path.join(out, "cnn_ext.onnx"))
np.save(os.path.join(out, "cnn_ext_in0.npy"), rand(2, 3, 32, 32))


def nbits(name, k, n, bits, block, zp, bias, dtype=np.float32, rank3=False):
    """MatMulNBits with random codes, scales and (packed uint8 or float) zero
    points; A of shape (3, k) or (2, 3, k)."""
    blocks = (k + block - 1) // block
    blob = block * bits // 8
    codes = rng.integers(0, 1 << bits, (n, blocks, block)).astype(np.uint8)
    per = 8 // bits
    packed = np.zeros((n, blocks, blob), np.uint8)
    for j in range(per):
        packed |= (codes[:, :, j::per] << (bits * j)).astype(np.uint8)
    scales = (np.abs(rng.standard_normal(n * blocks)) * 0.1 + 0.01).astype(dtype)
    tdt = F32 if dtype == np.float32 else F16
    inits = [helper.make_tensor("B", TensorProto.UINT8, [n, blocks, blob],
                                packed.tobytes(), raw=True),
             helper.make_tensor("S", tdt, [n * blocks], scales.tobytes(), raw=True)]
    names = ["a", "B", "S"]
    if zp == "packed":
        rows = (blocks + per - 1) // per
        zc = rng.integers(0, 1 << bits, (n, rows * per)).astype(np.uint8)
        zpk = np.zeros((n, rows), np.uint8)
        for j in range(per):
            zpk |= (zc[:, j::per] << (bits * j)).astype(np.uint8)
        inits.append(helper.make_tensor("Z", TensorProto.UINT8, [n * rows], zpk.tobytes(),
                                        raw=True))
        names.append("Z")
    elif zp == "float":
        zf = rng.integers(0, 1 << bits, n * blocks).astype(dtype)
        inits.append(helper.make_tensor("Z", tdt, [n * blocks], zf.tobytes(), raw=True))
        names.append("Z")
    elif bias:
        names.append("")
    if bias:
        names += ["", "bias"]
        inits.append(helper.make_tensor("bias", tdt, [n], rand(n).astype(dtype).tobytes(),
                                        raw=True))
    shape = [2, 3, k] if rank3 else [3, k]
    a = rand(*shape).astype(dtype)
    model(name, [helper.make_node("MatMulNBits", names, ["y"], domain=MS, K=k, N=n,
                                  bits=bits, block_size=block)],
          [vi("a", tdt, shape)], [vi("y", tdt, shape[:-1] + [n])], inits, [a])


nbits("nbits4", 64, 24, 4, 32, None, False)
nbits("nbits4_zp_bias", 80, 16, 4, 32, "packed", True, rank3=True)  # K not a multiple
nbits("nbits4_fzp", 64, 8, 4, 16, "float", False)
nbits("nbits8", 64, 8, 8, 32, "packed", False)
nbits("nbits2", 64, 8, 2, 16, "packed", False)
nbits("nbits4_f16", 64, 16, 4, 32, "packed", True, dtype=np.float16)

# KV caches: Attention's past (2, B, heads, P, d) with present, causal and a
# (B, total) mask; MultiHeadAttention's past_key/past_value with presents,
# causal or not; a present without a past.
P = 3
pmask = np.ones((B, P + S), np.int32)
pmask[1, 6:] = 0
model("attn_past", [helper.make_node("Attention", ["x", "w", "b", "m", "p"], ["y", "present"],
                                     domain=MS, num_heads=N, unidirectional=1)],
      att_in + [vi("m", TensorProto.INT32, [B, P + S]), vi("p", F32, [2, B, N, P, H // N])],
      [vi("y", F32, [B, S, H]), vi("present", F32, [2, B, N, P + S, H // N])],
      arrays=[xa, wa, ba, pmask, rand(2, B, N, P, H // N)])
mha_in = [vi("q", F32, [B, S, H]), vi("k", F32, [B, S, H]), vi("v", F32, [B, S, H]),
          vi("b", F32, [3 * H])]
for causal in (0, 1):
    model("mha_past%d" % causal,
          [helper.make_node("MultiHeadAttention", ["q", "k", "v", "b", "", "", "pk", "pv"],
                            ["y", "prk", "prv"], domain=MS, num_heads=N, unidirectional=causal)],
          mha_in + [vi("pk", F32, [B, N, P, H // N]), vi("pv", F32, [B, N, P, H // N])],
          [vi("y", F32, [B, S, H]), vi("prk", F32, [B, N, P + S, H // N]),
           vi("prv", F32, [B, N, P + S, H // N])],
          arrays=[rand(B, S, H), rand(B, S, H), rand(B, S, H), rand(3 * H),
                  rand(B, N, P, H // N), rand(B, N, P, H // N)])
model("mha_present", [helper.make_node("MultiHeadAttention", ["q", "k", "v"], ["y", "prk", "prv"],
                                       domain=MS, num_heads=N)],
      mha_in[:3], [vi("y", F32, [B, S, H]), vi("prk", F32, [B, N, S, H // N]),
                   vi("prv", F32, [B, N, S, H // N])],
      arrays=[rand(B, S, H), rand(B, S, H), rand(B, S, H)])
model("attn_shared", [helper.make_node("Attention", ["x", "w", "b", "", "p", "", "pl"], ["y"],
                                       domain=MS, num_heads=N, past_present_share_buffer=1)],
      att_in + [vi("p", F32, [2, B, N, 8, H // N]), vi("pl", TensorProto.INT32, [1])],
      [vi("y", F32, [B, S, H])])

# GroupQueryAttention (ONNX Runtime's LLM attention): grouped heads, a KV
# cache appended to, right-padded prompts (seqlens_k), rotary at the cache's
# offset, a local window with softcap and smooth softmax, packed QKV, head
# sinks, f16.
def gqa(name, B, S, P, N, K, d, seqlens, attrs=(), dt=np.float32, packed=False, rotary=False,
        sink=False):
    T = TensorProto.FLOAT16 if dt == np.float16 else F32
    names, ins, arrays = [], [], []

    def add(nm, shape, arr, elem=T):
        names.append(nm)
        if nm:
            ins.append(vi(nm, elem, shape))
            arrays.append(arr)
    if packed:
        add("qkv", [B, S, (N + 2 * K) * d], rand(B, S, (N + 2 * K) * d, dtype=dt))
        add("", None, None)
        add("", None, None)
    else:
        add("q", [B, S, N * d], rand(B, S, N * d, dtype=dt))
        add("k", [B, S, K * d], rand(B, S, K * d, dtype=dt))
        add("v", [B, S, K * d], rand(B, S, K * d, dtype=dt))
    if P:
        add("pk", [B, K, P, d], rand(B, K, P, d, dtype=dt))
        add("pv", [B, K, P, d], rand(B, K, P, d, dtype=dt))
    else:
        add("", None, None)
        add("", None, None)
    add("sl", [B], np.array(seqlens, np.int32), TensorProto.INT32)
    add("tl", [], np.array(max(seqlens) + 1, np.int32), TensorProto.INT32)
    if rotary or sink:
        if rotary:
            ang = rng.standard_normal((32, d // 2))
            add("cos", [32, d // 2], np.cos(ang).astype(dt))
            add("sin", [32, d // 2], np.sin(ang).astype(dt))
        else:
            add("", None, None)
            add("", None, None)
    if sink:
        add("", None, None)  # position_ids
        add("", None, None)  # attention_bias
        add("hs", [N], rand(N, dtype=dt))
    node = helper.make_node("GroupQueryAttention", names, ["y", "pk_out", "pv_out"], domain=MS,
                            num_heads=N, kv_num_heads=K, do_rotary=int(rotary), **dict(attrs))
    model(name, [node], ins,
          [vi("y", T, [B, S, N * d]), vi("pk_out", T, None), vi("pv_out", T, None)], arrays=arrays)


gqa("gqa_prompt", 2, 5, 0, 4, 2, 8, [4, 2])
gqa("gqa_decode", 2, 1, 6, 4, 1, 8, [6, 6])
gqa("gqa_rotary", 1, 3, 4, 4, 2, 16, [6], rotary=True)
gqa("gqa_window", 1, 6, 0, 4, 2, 8, [5],
    attrs={"local_window_size": 2, "softcap": 2.0, "smooth_softmax": 1})
gqa("gqa_packed", 1, 4, 2, 4, 2, 8, [5], packed=True)
gqa("gqa_sink", 1, 3, 2, 4, 2, 8, [4], sink=True)
gqa("gqa_f16", 1, 2, 3, 4, 2, 16, [4], dt=np.float16, rotary=True)
# Batch entries with shorter pasts (ONNX Runtime puts entry b's new keys at
# seqlens_k[b] + 1 - S and zeros after them), decoding.
gqa("gqa_ragged", 2, 1, 6, 4, 2, 16, [6, 3], rotary=True)
# Symbolic batch, sequence and past lengths (as exporters write them), with
# rotary: one compiled model, a prompt and a decoding step.
N_, K_, d_ = 4, 2, 16
dyn_in = [vi("q", F32, ["b", "s", N_ * d_]), vi("k", F32, ["b", "s", K_ * d_]),
          vi("v", F32, ["b", "s", K_ * d_]), vi("pk", F32, ["b", K_, "p", d_]),
          vi("pv", F32, ["b", K_, "p", d_]), vi("sl", TensorProto.INT32, ["b"]),
          vi("tl", TensorProto.INT32, []), vi("cos", F32, [32, d_ // 2]),
          vi("sin", F32, [32, d_ // 2])]
model("gqa_dyn", [helper.make_node("GroupQueryAttention",
                                   ["q", "k", "v", "pk", "pv", "sl", "tl", "cos", "sin"],
                                   ["y", "pk_out", "pv_out"], domain=MS, num_heads=N_,
                                   kv_num_heads=K_, do_rotary=1)],
      dyn_in, [vi("y", F32, ["b", "s", N_ * d_]), vi("pk_out", F32, None),
               vi("pv_out", F32, None)])
ang = rng.standard_normal((32, d_ // 2))
for tag, (B_, S_, P_) in {"prompt": (2, 5, 0), "step": (2, 1, 5)}.items():
    arrs = [rand(B_, S_, N_ * d_), rand(B_, S_, K_ * d_), rand(B_, S_, K_ * d_),
            rand(B_, K_, P_, d_), rand(B_, K_, P_, d_),
            np.full(B_, P_ + S_ - 1, np.int32), np.array(P_ + S_, np.int32),
            np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)]
    for i, a_ in enumerate(arrs):
        np.save(os.path.join(out, "gqa_dyn_%s_in%d.npy" % (tag, i)), a_)

# A decoder layer as onnxruntime-genai's model builder writes one for a
# Llama-style LLM with 4-bit weights: SimplifiedLayerNormalization,
# MatMulNBits projections, GroupQueryAttention with rotary and a KV cache,
# SkipSimplifiedLayerNormalization, a SiLU-gated MLP; symbolic batch,
# sequence and past lengths; a prompt and a decoding step.
def q4(name, k, n):
    """A 4-bit MatMulNBits weight (block 32, no zero points): initializers."""
    blocks = k // 32
    codes = rng.integers(0, 16, (n, blocks, 32)).astype(np.uint8)
    packed = (codes[:, :, 0::2] | (codes[:, :, 1::2] << 4)).astype(np.uint8)
    scales = (np.abs(rng.standard_normal(n * blocks)) * 0.02 + 0.005).astype(np.float32)
    return [helper.make_tensor(name + "_B", TensorProto.UINT8, [n, blocks, 16],
                               packed.tobytes(), raw=True),
            helper.make_tensor(name + "_S", F32, [n * blocks], scales.tobytes(), raw=True)]


Hd, Nq, Nk, Dh, Ff = 64, 4, 2, 16, 128
inits, nodes = [], []
for nm, k_, n_ in (("q", Hd, Nq * Dh), ("k", Hd, Nk * Dh), ("v", Hd, Nk * Dh), ("o", Nq * Dh, Hd),
                   ("gate", Hd, Ff), ("up", Hd, Ff), ("down", Ff, Hd)):
    inits += q4(nm, k_, n_)
for nm in ("ln1", "ln2"):
    inits.append(helper.make_tensor(nm, F32, [Hd], (1 + 0.1 * rand(Hd)).tobytes(), raw=True))
ang = rng.standard_normal((64, Dh // 2))
inits += [helper.make_tensor("cos", F32, [64, Dh // 2], np.cos(ang).astype(np.float32).tobytes(), raw=True),
          helper.make_tensor("sin", F32, [64, Dh // 2], np.sin(ang).astype(np.float32).tobytes(), raw=True)]


def mm(nm, x, k_, n_):
    nodes.append(helper.make_node("MatMulNBits", [x, nm + "_B", nm + "_S"], [nm + "_out"], domain=MS,
                                  K=k_, N=n_, bits=4, block_size=32))
    return nm + "_out"


nodes.append(helper.make_node("SimplifiedLayerNormalization", ["x", "ln1"], ["h1"], axis=-1,
                              epsilon=1e-5, stash_type=1))
qo, ko, vo = mm("q", "h1", Hd, Nq * Dh), mm("k", "h1", Hd, Nk * Dh), mm("v", "h1", Hd, Nk * Dh)
nodes.append(helper.make_node("GroupQueryAttention", [qo, ko, vo, "pk", "pv", "sl", "tl", "cos", "sin"],
                              ["attn", "present_k", "present_v"], domain=MS, num_heads=Nq,
                              kv_num_heads=Nk, do_rotary=1))
oo = mm("o", "attn", Nq * Dh, Hd)
nodes.append(helper.make_node("SkipSimplifiedLayerNormalization", [oo, "x", "ln2"],
                              ["h2", "", "", "res"], domain=MS, epsilon=1e-5))
go_, uo = mm("gate", "h2", Hd, Ff), mm("up", "h2", Hd, Ff)
nodes += [helper.make_node("Sigmoid", [go_], ["gs"]), helper.make_node("Mul", [go_, "gs"], ["silu"]),
          helper.make_node("Mul", ["silu", uo], ["act"])]
do_ = mm("down", "act", Ff, Hd)
nodes.append(helper.make_node("Add", ["res", do_], ["y"]))
model("llm_layer", nodes,
      [vi("x", F32, ["b", "s", Hd]), vi("pk", F32, ["b", Nk, "p", Dh]), vi("pv", F32, ["b", Nk, "p", Dh]),
       vi("sl", TensorProto.INT32, ["b"]), vi("tl", TensorProto.INT32, [])],
      [vi("y", F32, ["b", "s", Hd]), vi("present_k", F32, ["b", Nk, "t", Dh]),
       vi("present_v", F32, ["b", Nk, "t", Dh])], inits)
for tag, (B_, S_, P_) in {"prompt": (1, 7, 0), "step": (1, 1, 7)}.items():
    arrs = [rand(B_, S_, Hd), rand(B_, Nk, P_, Dh), rand(B_, Nk, P_, Dh),
            np.full(B_, P_ + S_ - 1, np.int32), np.array(P_ + S_, np.int32)]
    for i, a_ in enumerate(arrs):
        np.save(os.path.join(out, "llm_layer_%s_in%d.npy" % (tag, i)), a_)

# Errors: a quantized cache, output_qk.
gqa("gqa_quant", 1, 1, 2, 4, 2, 8, [2], attrs={"kv_cache_bit_width": 8})

# Errors: g_idx; B not an initializer.
a = vi("a", F32, [3, 64])
model("nbits_gidx", [helper.make_node("MatMulNBits", ["a", "B", "S", "", "g"], ["y"], domain=MS,
                                      K=64, N=8, bits=4, block_size=32)],
      [a, vi("g", TensorProto.INT32, [64])], [vi("y", F32, [3, 8])],
      [helper.make_tensor("B", TensorProto.UINT8, [8, 2, 16], bytes(256), raw=True),
       helper.make_tensor("S", F32, [16], [1.0] * 16)])
model("nbits_dynamic", [helper.make_node("MatMulNBits", ["a", "B", "S"], ["y"], domain=MS,
                                         K=64, N=8, bits=4, block_size=32)],
      [a, vi("B", TensorProto.UINT8, [8, 2, 16])], [vi("y", F32, [3, 8])],
      [helper.make_tensor("S", F32, [16], [1.0] * 16)])

# Audit findings (session 33). Attention with unidirectional and a
# mask_filter_value of -1: future keys get the type's lowest value, not the
# filter. A raw key mask with a negative entry: only entries above 0 keep a
# key. MultiHeadAttention, causal, keys longer than queries without a past:
# ONNX Runtime's rule (query i sees keys up to i; the last query every key).
# GroupQueryAttention over a right-padded prompt with a window shorter than
# the padding: a padded query row that sees no key is 0, not NaN.
B, S, H, N = 2, 4, 16, 4
xa = rand(B, S, H)
wa, ba = rand(H, 3 * H) * np.float32(0.3), rand(3 * H)
att_in = [vi("x", F32, [B, S, H]), vi("w", F32, [H, 3 * H]), vi("b", F32, [3 * H])]
model("attn_causal_filter", [helper.make_node("Attention", ["x", "w", "b"], ["y"], domain=MS,
                                              num_heads=N, unidirectional=1,
                                              mask_filter_value=-1.0)],
      att_in, [vi("y", F32, [B, S, H])], arrays=[xa, wa * 5, ba])
mneg = np.ones((B, S), np.int32)
mneg[0, 1] = -1
model("attn_mask_neg", [helper.make_node("Attention", ["x", "w", "b", "m"], ["y"], domain=MS,
                                         num_heads=N)],
      att_in + [vi("m", TensorProto.INT32, [B, S])], [vi("y", F32, [B, S, H])],
      arrays=[xa, wa, ba, mneg])
L = 6
model("mha_causal_cross", [helper.make_node("MultiHeadAttention", ["q", "k", "v"], ["y"],
                                            domain=MS, num_heads=N, unidirectional=1)],
      [vi("q", F32, [B, S, H]), vi("k", F32, [B, L, H]), vi("v", F32, [B, L, H])],
      [vi("y", F32, [B, S, H])], arrays=[rand(B, S, H), rand(B, L, H), rand(B, L, H)])
gqa("gqa_window_pad", 2, 6, 0, 4, 2, 8, [5, 3], attrs={"local_window_size": 2})
# RotaryEmbedding position ids past the caches' 16 rows (30, -1; an offset
# of 14 for 4 positions): run-time errors, as in ONNX Runtime.
model("rope_oob", [helper.make_node("RotaryEmbedding", ["x", "p", "c", "s"], ["y"], domain=MS,
                                    num_heads=2)],
      [vi("x", F32, [B, S, 16]), vi("p", TensorProto.INT64, [B, S]),
       vi("c", F32, [16, 4]), vi("s", F32, [16, 4])], [vi("y", F32, [B, S, 16])],
      arrays=[rand(B, S, 16), np.array([[0, 1, 2, 30], [-1, 3, 4, 5]], np.int64),
              rand(16, 4), rand(16, 4)])
model("rope_oob_offset", [helper.make_node("RotaryEmbedding", ["x", "p", "c", "s"], ["y"],
                                           domain=MS, num_heads=2)],
      [vi("x", F32, [B, S, 16]), vi("p", TensorProto.INT64, [1]),
       vi("c", F32, [16, 4]), vi("s", F32, [16, 4])], [vi("y", F32, [B, S, 16])],
      arrays=[rand(B, S, 16), np.array([14], np.int64), rand(16, 4), rand(16, 4)])
