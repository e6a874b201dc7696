#!/usr/bin/env python3
"""Writes ONNX models whose shapes are computed at run time from a symbolic
batch (and sequence), the way PyTorch's exporters write them, plus inputs
for two or three batch sizes:

  reshape_ts.onnx   TorchScript style (opset 17): heads split by Reshape with
                    Concat(Slice(Shape(x), 0, -1), [4, 16]), flattening with
                    Concat(Unsqueeze(Shape(x)[0]), [-1]), Size / 64.
  expand_ts.onnx    TorchScript's expand(): Where(Equal(size, -ones), ones,
                    size) on Concat(Unsqueeze(Shape(x)[0]), ...),
                    ConstantOfShape of a batch-sized shape, and
                    Range(0, Shape(x)[0], 1).
  slice_dyn.onnx    dynamo style (opset 18): Shape(x, start, end), Squeeze,
                    Slice of a position buffer with ends from Shape, Slice of
                    dynamic dimensions, Range(0, S, 1) and Range(1, S+1, 2).
  mask_dyn.onnx     dynamo style attention mask: Range over batch and
                    sequence, indices broadcast by Max/Shape/Expand, GatherND
                    into the padding mask, Expand(Abs(Concat(B, -1, S, S))),
                    Where(mask, 0, -inf), Softmax, Where(IsNaN(p), 0, p), and
                    the key transposed by Reshape with shapes from Shape.

  conv_pool_dyn.onnx  convolutions and pooling over a run-time height and
                    width (inputs s1, s2, s3).
  misc_dyn.onnx     Hardmax, EyeLike and LpPool over run-time sizes;
                    split_dyn.onnx, Split of a run-time axis.
  if_tile_dyn.onnx  TorchScript's DeBERTa-v2: an If on two sizes of one
                    dynamic dimension (decided while importing) and a Tile
                    by the batch size; if_runtime.onnx, an If on a graph
                    input (both branches computed, then a select).

For each MODEL: MODEL_b{2,3,5}_in{0,1,...}.npy (batch 2, 3 and 5; the
dynamic-sequence models also change the sequence length).

    make_dynshape_models.py OUTDIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(5)
I64 = TensorProto.INT64
F32 = TensorProto.FLOAT
INT64_MAX = 9223372036854775807


class Graph:
    def __init__(self):
        self.nodes, self.inits, self.count = [], [], 0

    def c(self, value, dtype=np.int64):
        """A Constant node (TorchScript writes them as nodes)."""
        self.count += 1
        name = "c%d" % self.count
        self.nodes.append(helper.make_node(
            "Constant", [], [name], name="Constant_%d" % self.count,
            value=numpy_helper.from_array(np.asarray(value, dtype))))
        return name

    def init(self, name, value):
        self.inits.append(numpy_helper.from_array(value, name))
        return name

    def op(self, op, ins, name, outs=1, **attrs):
        names = [name] if outs == 1 else ["%s_%d" % (name, k) for k in range(outs)]
        self.nodes.append(helper.make_node(op, ins, names, name=name, **attrs))
        return names[0] if outs == 1 else names

    def save(self, file, inputs, outputs, version):
        g = helper.make_graph(self.nodes, file[:-5], inputs, outputs, self.inits)
        model = helper.make_model(g, opset_imports=[helper.make_opsetid("", version)])
        model.ir_version = 8
        if version <= 17:
            onnx.checker.check_model(model)
        onnx.save(model, os.path.join(out, file))


def vi(name, dtype, shape):
    return helper.make_tensor_value_info(name, dtype, shape)


def save_inputs(model, tag, arrays):
    for k, a in enumerate(arrays):
        np.save(os.path.join(out, "%s_%s_in%d.npy" % (model, tag, k)), a)


# --- reshape_ts: TorchScript's view()/flatten with sizes from Shape ---------
g = Graph()
s = g.op("Shape", ["x"], "/attn/Shape")
b = g.op("Gather", [s, g.c(0)], "/attn/Gather", axis=0)
lead = g.op("Slice", [s, g.c([0]), g.c([-1]), g.c([0])], "/attn/Slice")
heads = g.op("Concat", [lead, g.c([4]), g.c([16])], "/attn/Concat", axis=0)
h = g.op("Reshape", ["x", heads], "/attn/Reshape")
g.op("Transpose", [h], "heads", perm=[0, 2, 1, 3])
b1 = g.op("Unsqueeze", [b, g.c([0])], "/flat/Unsqueeze")
flat = g.op("Concat", [b1, g.c([-1])], "/flat/Concat", axis=0)
g.op("Reshape", ["x", flat], "flat")
size = g.op("Size", ["x"], "/rows/Size")
rows = g.op("Div", [size, g.c(64)], "/rows/Div")
rows1 = g.op("Unsqueeze", [rows, g.c([0])], "/rows/Unsqueeze")
r = g.op("Concat", [rows1, g.c([64])], "/rows/Concat", axis=0)
g.op("Reshape", ["x", r], "rows")
# view(B, -1, 4): the -1 is static (the batch cancels).
g.op("Reshape", ["x", g.op("Concat", [b1, g.c([-1]), g.c([4])], "/cancel/Concat", axis=0)], "cancel")
# view(B, 16, 64) of the transposed heads after a transpose back.
back = g.op("Transpose", ["heads"], "/merge/Transpose", perm=[0, 2, 1, 3])
s2 = g.op("Shape", [back], "/merge/Shape")
lead2 = g.op("Slice", [s2, g.c([0]), g.c([-2]), g.c([0])], "/merge/Slice")
m = g.op("Concat", [lead2, g.c([64])], "/merge/Concat", axis=0)
g.op("Reshape", [back, m], "merged")
g.save("reshape_ts.onnx", [vi("x", F32, ["batch", 16, 64])],
       [vi("heads", F32, ["batch", 4, 16, 16]), vi("flat", F32, ["batch", 1024]),
        vi("rows", F32, [None, 64]), vi("merged", F32, ["batch", 16, 64]),
        vi("cancel", F32, ["batch", 256, 4])], 17)
for bs in (2, 3, 5):
    save_inputs("reshape_ts", "b%d" % bs,
                [rng.standard_normal((bs, 16, 64)).astype(np.float32)])

# --- expand_ts: TorchScript's expand() and ones(batch, 16) -------------------
g = Graph()
s = g.op("Shape", ["mask"], "/mask/Shape")
b = g.op("Gather", [s, g.c(0)], "/mask/Gather", axis=0)
m = g.op("Unsqueeze", ["mask", g.c([1])], "/mask/Unsqueeze")
m = g.op("Unsqueeze", [m, g.c([2])], "/mask/Unsqueeze_1")
b1 = g.op("Unsqueeze", [b, g.c([0])], "/mask/Unsqueeze_2")
size = g.op("Concat", [b1, g.c([1]), g.c([16]), g.c([16])], "/mask/Concat", axis=0)
size = g.op("Reshape", [size, g.c([-1])], "/mask/Reshape")
ones = g.op("ConstantOfShape", [g.op("Shape", [size], "/mask/Shape_1")], "/mask/ConstantOfShape",
            value=numpy_helper.from_array(np.array([1], np.int64)))
neg = g.op("Mul", [ones, g.c(-1)], "/mask/Mul")
eq = g.op("Equal", [size, neg], "/mask/Equal")
size = g.op("Where", [eq, ones, size], "/mask/Where")
e = g.op("Expand", [m, size], "/mask/Expand")
e = g.op("Cast", [e], "/mask/Cast", to=F32)
inv = g.op("Sub", [g.c(1.0, np.float32), e], "/mask/Sub")
g.op("Mul", [inv, g.c(-10000.0, np.float32)], "bias")
shape2 = g.op("Concat", [b1, g.c([16])], "/ones/Concat", axis=0)
o = g.op("ConstantOfShape", [shape2], "/ones/ConstantOfShape",
         value=numpy_helper.from_array(np.array([1.0], np.float32)))
g.op("Add", [o, g.op("Cast", ["mask"], "/ones/Cast", to=F32)], "plus_one")
# torch.arange(batch): Range to a Gather of Shape.
g.op("Range", [g.c(0), b, g.c(1)], "batch_range")
g.save("expand_ts.onnx", [vi("mask", I64, ["batch", 16])],
       [vi("bias", F32, ["batch", 1, 16, 16]), vi("plus_one", F32, ["batch", 16]),
        vi("batch_range", I64, ["batch"])], 17)
for bs in (2, 3, 5):
    mask = (rng.random((bs, 16)) < 0.7).astype(np.int64)
    save_inputs("expand_ts", "b%d" % bs, [mask])

# --- slice_dyn: dynamo's slices and ranges with a symbolic sequence ----------
g = Graph()
g.init("pos_buffer", np.arange(32, dtype=np.int64).reshape(1, 32) * 3)
seq = g.op("Shape", ["ids"], "sym_size_int_1", start=1, end=2)
S = g.op("Squeeze", [seq, g.c([0])], "sym_size_int_1_squeeze")
S1 = g.op("Reshape", [S, g.c([-1])], "view")
pos = g.op("Slice", ["pos_buffer", g.c([0]), S1, g.c([1]), g.c([1])], "slice_1")
g.op("Add", ["ids", pos], "shifted")
g.op("Slice", ["ids", g.c([1]), g.c([INT64_MAX]), g.c([1]), g.c([1])], "tail")
g.op("Slice", ["ids", g.c([-2]), g.c([INT64_MAX]), g.c([1]), g.c([1])], "last2")
g.op("Slice", ["ids", g.c([0]), g.c([INT64_MAX]), g.c([0]), g.c([2])], "even_rows")
g.op("Range", [g.c(0), S, g.c(1)], "arange")
S_plus = g.op("Add", [S, g.c(1)], "add")
g.op("Range", [g.c(1), S_plus, g.c(2)], "arange_1")
g.save("slice_dyn.onnx", [vi("ids", I64, ["s0", "s1"])],
       [vi("shifted", I64, ["s0", "s1"]), vi("tail", I64, ["s0", None]),
        vi("last2", I64, ["s0", None]), vi("even_rows", I64, [None, "s1"]),
        vi("arange", I64, ["s1"]), vi("arange_1", I64, [None])], 18)
for bs, sl in ((2, 7), (3, 12), (5, 1)):
    save_inputs("slice_dyn", "b%d" % bs, [rng.integers(0, 100, (bs, sl)).astype(np.int64)])

# --- mask_dyn: dynamo's attention mask and SDPA with a boolean mask ----------
D = 8
g = Graph()
g.init("wq", (rng.standard_normal((D, D)) * 0.5).astype(np.float32))
g.init("wk", (rng.standard_normal((D, D)) * 0.5).astype(np.float32))
g.init("wv", (rng.standard_normal((D, D)) * 0.5).astype(np.float32))
B = g.op("Squeeze", [g.op("Shape", ["x"], "sym_size_int", start=0, end=1), g.c([0])], "sym_size_int_sq")
S = g.op("Squeeze", [g.op("Shape", ["x"], "sym_size_int_2", start=1, end=2), g.c([0])], "sym_size_int_2_sq")
batch_arange = g.op("Range", [g.c(0), B, g.c(1)], "arange")
kv_arange = g.op("Range", [g.c(0), S, g.c(1)], "arange_1")
kv_arange = g.op("Add", [kv_arange, g.c(0)], "add")
bi = g.op("Unsqueeze", [batch_arange, g.c([1, 2, 3])], "unsqueeze")
ki = g.op("Unsqueeze", [kv_arange, g.c([0, 1, 2])], "unsqueeze_1")
# aten.index with two broadcasting index tensors: broadcast them (Max,
# Shape, Expand), stack them along a new last axis, GatherND.
bshape = g.op("Shape", [g.op("Max", [bi, ki], "index_max")], "index_shape")
be = g.op("Unsqueeze", [g.op("Expand", [bi, bshape], "index_expand"), g.c([-1])], "index_unsq")
ke = g.op("Unsqueeze", [g.op("Expand", [ki, bshape], "index_expand_1"), g.c([-1])], "index_unsq_1")
idx = g.op("Concat", [be, ke], "index_concat", axis=-1)
pad = g.op("Cast", ["attention_mask"], "to_bool", to=TensorProto.BOOL)
mask4 = g.op("GatherND", [pad, idx], "index")
B1 = g.op("Reshape", [B, g.c([-1])], "view_b")
S1 = g.op("Reshape", [S, g.c([-1])], "view_s")
size = g.op("Concat", [B1, g.c([-1]), S1, S1], "expand_size", axis=0)
mask4 = g.op("Expand", [mask4, g.op("Abs", [size], "expand_abs")], "expand")
q = g.op("Unsqueeze", [g.op("MatMul", ["x", "wq"], "q_proj"), g.c([1])], "q")
k = g.op("Unsqueeze", [g.op("MatMul", ["x", "wk"], "k_proj"), g.c([1])], "k")
v = g.op("Unsqueeze", [g.op("MatMul", ["x", "wv"], "v_proj"), g.c([1])], "v")
# torchlib's SDPA: the scale from Shape(query)[-1], the key transposed
# through Reshape with shapes from Shape.
emb = g.op("Cast", [g.op("Slice", [g.op("Shape", [q], "q_shape"), g.c([-1]), g.c([INT64_MAX])], "q_last")],
           "q_last_f", to=F32)
scale = g.op("Div", [g.c(1.0, np.float32), g.op("Sqrt", [emb], "sqrt")], "scale")
sq = g.op("Sqrt", [scale], "sqrt_scale")
k_last = g.op("Shape", [k], "k_last", start=-1)
k_second = g.op("Shape", [k], "k_second", start=-2, end=-1)
k_first = g.op("Shape", [k], "k_first", end=-2)
k3 = g.op("Reshape", [k, g.op("Concat", [g.c([-1]), k_second, k_last], "k_squeezed_shape", axis=0)], "k_squeezed")
kt = g.op("Transpose", [k3], "k_squeezed_t", perm=[0, 2, 1])
kt = g.op("Reshape", [kt, g.op("Concat", [k_first, k_last, k_second], "k_t_shape", axis=0)], "k_t")
scores = g.op("MatMul", [g.op("Mul", [q, sq], "q_scaled"), g.op("Mul", [kt, sq], "k_scaled")], "scores")
bias = g.op("Where", [mask4, g.c(0.0, np.float32), g.c(-np.inf, np.float32)], "mask_bias")
p = g.op("Softmax", [g.op("Add", [scores, bias], "masked")], "softmax", axis=-1)
p = g.op("Where", [g.op("IsNaN", [p], "isnan"), g.c(0.0, np.float32), p], "no_nan")
ctx = g.op("MatMul", [p, v], "context")
g.op("Reshape", [ctx, g.op("Concat", [B1, S1, g.c([D])], "out_shape", axis=0)], "out")
g.op("Cast", [mask4], "mask_out", to=I64)
g.save("mask_dyn.onnx", [vi("x", F32, ["s0", "s1", D]), vi("attention_mask", I64, ["s0", "s1"])],
       [vi("out", F32, ["s0", "s1", D]), vi("mask_out", I64, ["s0", 1, "s1", "s1"])], 18)
for bs, sl in ((2, 6), (3, 9), (5, 4)):
    mask = np.ones((bs, sl), np.int64)
    mask[0, sl - 2:] = 0
    mask[1, :] = 0   # a fully masked row: softmax of -inf only, NaN -> 0
    save_inputs("mask_dyn", "b%d" % bs,
                [rng.standard_normal((bs, sl, D)).astype(np.float32), mask])

# --- split_pad_dyn: what ShuffleNet and Swin export with a symbolic batch ----
# Split on the channels (opset 18, num_outputs) and Pad of the spatial
# dimensions (constant and reflect, pads and axes as inputs): the batch is
# kept whole, its size read at run time.
g = Graph()
a, bb = g.op("Split", ["x"], "split", outs=2, axis=1, num_outputs=2)
g.op("Pad", [a, g.c([1, 2, 0, 3]), g.c(0.5, np.float32), g.c([2, 3])], "padded", mode="constant")
g.op("Pad", [bb, g.c([0, 0, 1, 0, 0, 0, 1, 0])], "reflected", mode="reflect")
g.save("split_pad_dyn.onnx", [vi("x", F32, ["batch", 6, 5, 7])],
       [vi("padded", F32, ["batch", 3, 6, 12]), vi("reflected", F32, ["batch", 3, 7, 7])], 18)
for bs in (2, 3, 5):
    save_inputs("split_pad_dyn", "b%d" % bs, [rng.standard_normal((bs, 6, 5, 7)).astype(np.float32)])

# --- flip_pad_dyn: reversals and pads of run-time sizes (found by
# test/random/onnx_diff.py): torch.flip over a symbolic sequence (Slice with
# step -1), every second row backwards from a start past the end (step -2),
# reflect, edge and wrap pads of the sequence, argmax's last index over it
# (select_last_index reverses the axis), and an einsum whose batch size is
# static in one operand and symbolic in the other; Trilu over them (a causal
# mask) and an integer ReduceMean.
g = Graph()
g.op("Slice", ["x", g.c([-1]), g.c([-INT64_MAX - 1]), g.c([1]), g.c([-1])], "flipped")
g.op("Slice", ["x", g.c([100]), g.c([-INT64_MAX - 1]), g.c([0]), g.c([-2])], "odd_rows")
g.op("Pad", ["x", g.c([0, 2, 0, 1])], "reflected", mode="reflect")
g.op("Pad", ["x", g.c([1, 1, 0, 3])], "edged", mode="edge")
g.op("Pad", ["x", g.c([0, 2, 0, 1])], "wrapped", mode="wrap")
g.op("ArgMax", [g.op("Round", ["x"], "/arg/Round")], "last_max", axis=1, keepdims=0,
     select_last_index=1)
g.op("Einsum", ["x", g.init("w", rng.standard_normal((3, 4)).astype(np.float32))], "mixed",
     equation="bs,bt->st")
g.op("Trilu", ["x", g.c(1)], "upper", upper=1)
g.op("Trilu", ["x", g.c(-1)], "lower", upper=0)
# an integer mean (the sum divided by the count, truncated, as ONNX Runtime
# computes it) over the run-time sequence
g.op("ReduceMean", [g.op("Cast", [g.op("Mul", ["x", g.c(6.0, np.float32)], "/im/Mul")],
                         "/im/Cast", to=TensorProto.INT32), g.c([1])], "int_mean", keepdims=1)
g.save("flip_pad_dyn.onnx", [vi("x", F32, ["batch", "seq"])],
       [vi(o, F32, None) for o in ("flipped", "odd_rows", "reflected", "edged", "wrapped")]
       + [vi("last_max", I64, None), vi("mixed", F32, None), vi("upper", F32, None),
          vi("lower", F32, None), vi("int_mean", TensorProto.INT32, None)], 19)
for sl in (3, 4, 7):
    save_inputs("flip_pad_dyn", "s%d" % sl, [np.round(rng.standard_normal((3, sl)) * 2)
                                              .astype(np.float32) / 2])
# A sequence of 2 is shorter than the reflect pad of 2: an error when it runs
# (as in ONNX Runtime; the take clamped the position before).
save_inputs("flip_pad_dyn", "short", [np.ones((3, 2), np.float32)])

# --- conv_pool_dyn: a small CNN over images of any height and width
# (torchvision models exported with dynamic_axes on H and W): convolutions
# (3x3 with bias and Relu, strided with uneven padding, depthwise with
# auto_pad SAME_UPPER, a grouped 1-D one), max and average pooling (ceil_mode,
# count_include_pad either way), a global average pool and a classifier.
g = Graph()
w1 = g.init("w1", (rng.standard_normal((8, 3, 3, 3)) * 0.3).astype(np.float32))
b1 = g.init("b1", rng.standard_normal(8).astype(np.float32))
c1 = g.op("Relu", [g.op("Conv", ["x", w1, b1], "/c1/Conv", pads=[1, 1, 1, 1])], "/c1/Relu")
w2 = g.init("w2", (rng.standard_normal((8, 8, 3, 3)) * 0.2).astype(np.float32))
g.op("Conv", [c1, w2], "strided", strides=[2, 2], pads=[1, 0, 2, 1])
wd = g.init("wd", rng.standard_normal((8, 1, 3, 3)).astype(np.float32))
g.op("Conv", [c1, wd], "depthwise", group=8, auto_pad="SAME_UPPER")
g.op("MaxPool", [c1], "max_ceil", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1],
     ceil_mode=1)
g.op("AveragePool", [c1], "avg_excl", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
g.op("AveragePool", [c1], "avg_incl", kernel_shape=[2, 3], strides=[2, 2], pads=[0, 1, 1, 1],
     ceil_mode=1, count_include_pad=1)
wf = g.init("wf", rng.standard_normal((5, 8)).astype(np.float32))
pooled = g.op("Flatten", [g.op("GlobalAveragePool", [c1], "/head/Pool")], "/head/Flatten")
g.op("Gemm", [pooled, wf], "logits", transB=1)
# a grouped 1-D convolution over the flattened image (oneDNN takes grouped
# ones in 2-D only: these are Tide's own loops)
w1d = g.init("w1d", rng.standard_normal((4, 4, 3)).astype(np.float32))
flat = g.op("Reshape", [c1, g.c([0, 8, -1])], "/g/Reshape")
g.op("Conv", [flat, w1d], "conv_1d", group=2, dilations=[2], pads=[1, 2])
# Upsampling as segmentation and detection heads write it: Resize by
# constant scales (nearest and linear, integral and fractional), Resize
# back to another tensor's size (sizes from Shape: FCN's
# F.interpolate(x, size=input.shape[-2:])), and DepthToSpace (PixelShuffle); an LRN over it.
g.op("Resize", [c1, "", g.c([1.0, 1.0, 2.0, 2.0], np.float32)], "up_nearest", mode="nearest")
g.op("Resize", [c1, "", g.c([1.0, 1.0, 0.5, 1.5], np.float32)], "up_frac", mode="linear",
     coordinate_transformation_mode="pytorch_half_pixel")
g.op("Resize", [c1, "", g.c([1.0, 1.0, 1.5, 0.75], np.float32)], "near_frac", mode="nearest",
     coordinate_transformation_mode="asymmetric", nearest_mode="round_prefer_ceil")
lead = g.op("Slice", [g.op("Shape", ["strided"], "/up/Shape0"), g.c([0]), g.c([2])], "/up/Slice0")
hw = g.op("Slice", [g.op("Shape", [c1], "/up/Shape1"), g.c([2]), g.c([4])], "/up/Slice1")
g.op("Resize", ["strided", "", "", g.op("Concat", [lead, hw], "/up/Concat", axis=0)],
     "up_linear", mode="linear", coordinate_transformation_mode="align_corners")
g.op("DepthToSpace", [c1], "d2s", blocksize=2, mode="CRD")
g.op("LRN", [c1], "lrn", size=3, alpha=0.02, beta=0.75, bias=1.5)
g.save("conv_pool_dyn.onnx", [vi("x", F32, ["batch", 3, "height", "width"])],
       [vi(o, F32, ["batch", 8, None, None])
        for o in ("strided", "depthwise", "max_ceil", "avg_excl", "avg_incl")]
       + [vi("logits", F32, ["batch", 5]), vi("conv_1d", F32, ["batch", 4, None])]
       + [vi(o, F32, ["batch", None, None, None])
          for o in ("up_nearest", "up_frac", "near_frac", "up_linear", "d2s", "lrn")], 17)
for tag, (bs, h, w) in (("s1", (2, 9, 13)), ("s2", (1, 16, 16)), ("s3", (3, 3, 5))):
    save_inputs("conv_pool_dyn", tag, [rng.standard_normal((bs, 3, h, w)).astype(np.float32)])

# --- same_dyn: auto_pad SAME with strides above 1 over a run-time height
# and width (tf2onnx writes it when the image size is unknown): the padding
# depends on the size, so it is computed at run time. Convolutions
# (SAME_UPPER / SAME_LOWER, an uneven kernel, depthwise), max and average pooling
# (count_include_pad either way), odd and even sizes.
g = Graph()
ws = g.init("ws", (rng.standard_normal((6, 3, 3, 3)) * 0.3).astype(np.float32))
bs_ = g.init("bs", rng.standard_normal(6).astype(np.float32))
c_up = g.op("Conv", ["x", ws, bs_], "conv_upper", strides=[2, 2], auto_pad="SAME_UPPER")
g.op("Conv", ["x", ws], "conv_lower", strides=[2, 3], auto_pad="SAME_LOWER")
wl = g.init("wl", (rng.standard_normal((4, 3, 2, 4)) * 0.3).astype(np.float32))
g.op("Conv", ["x", wl], "conv_wide", strides=[3, 2], auto_pad="SAME_UPPER")
wdw = g.init("wdw", rng.standard_normal((6, 1, 5, 5)).astype(np.float32))
g.op("Conv", [c_up, wdw], "conv_dw", group=6, strides=[2, 2], auto_pad="SAME_UPPER")
g.op("MaxPool", ["x"], "max_same", kernel_shape=[3, 3], strides=[2, 2], auto_pad="SAME_UPPER")
g.op("MaxPool", ["x"], "max_lower", kernel_shape=[2, 3], strides=[2, 2], auto_pad="SAME_LOWER")
g.op("AveragePool", ["x"], "avg_same", kernel_shape=[3, 3], strides=[2, 2], auto_pad="SAME_UPPER")
g.op("AveragePool", ["x"], "avg_same_incl", kernel_shape=[3, 2], strides=[2, 3],
     auto_pad="SAME_LOWER", count_include_pad=1)
g.save("same_dyn.onnx", [vi("x", F32, ["batch", 3, "height", "width"])],
       [vi(o, F32, ["batch", None, None, None])
        for o in ("conv_upper", "conv_lower", "conv_wide", "conv_dw", "max_same",
                  "max_lower", "avg_same", "avg_same_incl")], 17)
for tag, (bs, h, w) in (("s1", (2, 9, 13)), ("s2", (1, 16, 16)), ("s3", (3, 3, 2)),
                        ("s4", (1, 1, 1))):
    save_inputs("same_dyn", tag, [rng.standard_normal((bs, 3, h, w)).astype(np.float32)])

# Refused: MaxPool's Indices and an integer MaxPool with SAME over run-time
# sizes.
g = Graph()
g.op("MaxPool", ["x"], "pooled", outs=2, kernel_shape=[3, 3], strides=[2, 2],
     auto_pad="SAME_UPPER")
g.save("same_indices.onnx", [vi("x", F32, [1, 3, "height", "width"])],
       [vi("pooled_0", F32, [1, 3, None, None]), vi("pooled_1", I64, [1, 3, None, None])], 17)
g = Graph()
g.op("MaxPool", ["x"], "pooled", kernel_shape=[3, 3], strides=[2, 2], auto_pad="SAME_UPPER")
g.save("same_int8.onnx", [vi("x", TensorProto.INT8, [1, 3, "height", "width"])],
       [vi("pooled", TensorProto.INT8, [1, 3, None, None])], 17)

# --- misc_dyn: Hardmax along a run-time axis, EyeLike of run-time sizes,
# LpPool, DepthToSpace and SpaceToDepth with a run-time channel count (found
# by test/random/onnx_diff.py).
g = Graph()
g.op("Hardmax", ["x"], "hardmax", axis=1)
g.op("EyeLike", ["x"], "eye", k=1)
g.op("LpPool", ["y"], "lp", kernel_shape=[2], p=2, pads=[1, 0])
g.op("LpPool", ["y"], "lp3", kernel_shape=[3], p=3, strides=[2])
# DepthToSpace and SpaceToDepth with a run-time channel count too
g.op("DepthToSpace", ["z"], "d2s_dcr", blocksize=2)
g.op("DepthToSpace", ["z"], "d2s_crd", blocksize=2, mode="CRD")
g.op("SpaceToDepth", ["z"], "s2d", blocksize=2)
g.save("misc_dyn.onnx", [vi("x", F32, ["batch", "seq"]), vi("y", F32, ["batch", "ch", "len"]),
                         vi("z", F32, ["batch", "zc", "zh", "zw"])],
       [vi("hardmax", F32, ["batch", "seq"]), vi("eye", F32, ["batch", "seq"]),
        vi("lp", F32, ["batch", "ch", None]), vi("lp3", F32, ["batch", "ch", None])]
       + [vi(o, F32, [None] * 4) for o in ("d2s_dcr", "d2s_crd", "s2d")], 17)
for tag, (b, sl, c, l, zc, zh, zw) in (("s1", (3, 5, 2, 7, 8, 4, 6)),
                                       ("s2", (2, 2, 4, 4, 4, 2, 2))):
    save_inputs("misc_dyn", tag, [rng.standard_normal((b, sl)).astype(np.float32),
                                  rng.standard_normal((b, c, l)).astype(np.float32),
                                  rng.standard_normal((b, zc, zh, zw)).astype(np.float32)])

# --- split_dyn: Split of a run-time axis (opset 18, num_outputs: parts of
# ceil(size / 3), the last what is left) and into given sizes.
g = Graph()
g.op("Split", ["z"], "part", outs=3, axis=1, num_outputs=3)
g.op("Split", ["z", g.c([1, 2])], "given", outs=2, axis=0)
g.save("split_dyn.onnx", [vi("z", F32, [3, "len"])],
       [vi("part_%d" % k, F32, [3, None]) for k in range(3)]
       + [vi("given_%d" % k, F32, [None, "len"]) for k in range(2)], 18)
for tag, length in (("l7", 7), ("l5", 5), ("l9", 9)):
    save_inputs("split_dyn", tag, [rng.standard_normal((3, length)).astype(np.float32)])

# --- scatternd_dyn: ScatterND into data of run-time sizes (rows of a cache
# [b, 2, s, 4] chosen by (batch, head) index pairs known at run time), plain
# and with reduction add; the indices and updates have run-time sizes too.
g = Graph()
g.op("ScatterND", ["cache", "idx", "upd"], "written")
g.op("ScatterND", ["cache", "idx", "upd"], "added", reduction="add")
g.save("scatternd_dyn.onnx",
       [vi("cache", F32, ["b", 2, "s", 4]), vi("idx", I64, ["b", "m", 2]),
        vi("upd", F32, ["b", "m", "s", 4])],
       [vi(o, F32, ["b", 2, "s", 4]) for o in ("written", "added")], 18)
for tag, (b, sl, m) in (("a", (2, 3, 2)), ("b", (3, 5, 1))):
    pairs = rng.permutation(b * 2)[:b * m]  # distinct rows
    save_inputs("scatternd_dyn", tag, [
        rng.standard_normal((b, 2, sl, 4)).astype(np.float32),
        np.stack([pairs // 2, pairs % 2], -1).reshape(b, m, 2).astype(np.int64),
        rng.standard_normal((b, m, sl, 4)).astype(np.float32)])

# --- crop_dyn: Pad with negative pads (a crop) of run-time axes, constant
# and edge mode; the second size set crops an axis to nothing.
g = Graph()
g.op("Pad", ["x", g.c([0, -1, 0, 2, 0, -2])], "cropped")
g.op("Pad", ["z", g.c([-2, 0, 1, -1])], "edge_cropped", mode="edge")
g.save("crop_dyn.onnx", [vi("x", F32, ["a", 3, "b"]), vi("z", F32, ["c", "d"])],
       [vi("cropped", F32, [None] * 3), vi("edge_cropped", F32, [None] * 2)], 17)
for tag, (a, b, c, d) in (("s1", (2, 5, 4, 3)), ("s2", (3, 2, 3, 6))):
    save_inputs("crop_dyn", tag, [rng.standard_normal((a, 3, b)).astype(np.float32),
                                  rng.standard_normal((c, d)).astype(np.float32)])

# --- revslice_dyn: Slice with negative steps of run-time axes, the second
# size set with an axis of size 0 (random graph 14015: the reversed start of
# an empty axis was -1, one element read out of bounds).
g = Graph()
g.op("Slice", ["x", g.c([-1, 0]), g.c([-2, -5]), g.c([1, 0]), g.c([-1, -2])], "rev")
g.save("revslice_dyn.onnx", [vi("x", F32, ["a", "b"])], [vi("rev", F32, [None] * 2)], 17)
for tag, (a, b) in (("s1", (5, 4)), ("s2", (3, 0)), ("s3", (0, 2))):
    save_inputs("revslice_dyn", tag, [rng.standard_normal((a, b)).astype(np.float32)])

# --- split_given_dyn: Split of a run-time axis into given sizes (3 and 4):
# right when the axis has 7 elements, an error at run time otherwise.
g = Graph()
g.op("Split", ["z", g.c([3, 4])], "given", outs=2, axis=1)
g.save("split_given_dyn.onnx", [vi("z", F32, [2, "len"])],
       [vi("given_%d" % k, F32, [2, None]) for k in range(2)], 18)
for tag, length in (("l7", 7), ("l5", 5)):
    save_inputs("split_given_dyn", tag, [rng.standard_normal((2, length)).astype(np.float32)])

# --- if_tile_dyn: what the TorchScript exporter writes for DeBERTa-v2 with a
# symbolic batch and sequence: an If on `query length != key length` (two
# sizes of one dynamic dimension, reached through Reshape/Transpose: known
# equal while importing, so the else branch is taken and imported in place;
# the then branch would fail), and a Tile whose repeats are the batch size.
g = Graph()
q = g.op("Transpose", ["x"], "/q/Transpose", perm=[0, 2, 1])
k = g.op("Transpose", [g.op("Neg", ["x"], "/k/Neg")], "/k/Transpose", perm=[0, 2, 1])
ql = g.op("Squeeze", [g.op("Slice", [g.op("Shape", [q], "/q/Shape"), g.c([-1]), g.c([INT64_MAX]), g.c([0])], "/q/Slice"), g.c([0])], "/q/Squeeze")
kl = g.op("Squeeze", [g.op("Slice", [g.op("Shape", [k], "/k/Shape"), g.c([-1]), g.c([INT64_MAX]), g.c([0])], "/k/Slice"), g.c([0])], "/k/Squeeze")
cond = g.op("Cast", [g.op("Not", [g.op("Equal", [ql, kl], "/if/Equal")], "/if/Not")], "/if/Cast", to=TensorProto.BOOL)
then_g = helper.make_graph([helper.make_node("Unique", ["x"], ["then_out"])], "then", [],
                           [vi("then_out", F32, None)])
else_g = helper.make_graph([helper.make_node("Mul", ["x", "x"], ["else_out"])], "else", [],
                           [vi("else_out", F32, None)])
g.nodes.append(helper.make_node("If", [cond], ["squared"], name="If_7", then_branch=then_g,
                                else_branch=else_g))
bsz = g.op("Slice", [g.op("Shape", ["x"], "/tile/Shape"), g.c([0]), g.c([1]), g.c([0])], "/tile/Slice")
reps = g.op("Concat", [bsz, g.c([1]), g.c([2])], "/tile/Concat", axis=0)
g.op("Tile", ["x", reps], "tiled")
g.save("if_tile_dyn.onnx", [vi("x", F32, ["batch", "seq", 4])],
       [vi("squared", F32, ["batch", "seq", 4]), vi("tiled", F32, [None, "seq", 8])], 17)
for bs, sl in ((2, 3), (3, 5)):
    save_inputs("if_tile_dyn", "b%d" % bs, [rng.standard_normal((bs, sl, 4)).astype(np.float32)])

# --- if_runtime: an If on a value known only at run time (both branches, a select).
cond_g = helper.make_graph([helper.make_node("Identity", ["x"], ["t"])], "then", [], [vi("t", F32, None)])
else_g = helper.make_graph([helper.make_node("Neg", ["x"], ["e"])], "else", [], [vi("e", F32, None)])
model = helper.make_model(helper.make_graph(
    [helper.make_node("If", ["c"], ["y"], name="branch", then_branch=cond_g, else_branch=else_g)],
    "if_runtime", [vi("c", TensorProto.BOOL, []), vi("x", F32, [3])], [vi("y", F32, [3])]),
    opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
onnx.save(model, os.path.join(out, "if_runtime.onnx"))

# --- split_shape: a shape split into its sizes (AffineGrid's ONNX function:
# Split(size) -> N, C, H, W; Concat(N, [2, 3]) as Expand's shape), folded
# while importing when `size` is bound.
g = Graph()
n_, c_, h_, w_ = g.op("Split", ["size"], "split", outs=4, axis=0, num_outputs=4)
shape = g.op("Concat", [n_, g.c([2]), g.c([3])], "concat", axis=0)
g.op("Expand", ["theta", shape], "expanded")
g.save("split_shape.onnx", [vi("size", TensorProto.INT64, [4]), vi("theta", F32, [2, 3])],
       [vi("expanded", F32, None)], 18)
np.save(os.path.join(out, "split_shape_size.npy"), np.array([5, 1, 7, 9], np.int64))

# --- not_equal_dims: Not of a comparison of two run-time sizes (ONNX
# Runtime's optimized models compute such conditions); the truth value is
# negated, not compared with an i64 0.
g = Graph()
sh = g.op("Shape", ["x"], "sh")
d0 = g.op("Gather", [sh, g.c(0)], "d0", axis=0)
d1 = g.op("Gather", [sh, g.c(1)], "d1", axis=0)
eq = g.op("Equal", [d0, d1], "eq")
ne = g.op("Not", [eq], "ne")
g.op("Cast", [ne], "y", to=TensorProto.INT64)
g.save("not_equal_dims.onnx", [vi("x", F32, ["n", "m"])], [vi("y", TensorProto.INT64, [])], 17)
save_inputs("not_equal_dims", "same", [np.zeros((3, 3), np.float32)])
save_inputs("not_equal_dims", "diff", [np.zeros((3, 4), np.float32)])

# --- conv_weight_dyn: a Conv whose weight (and bias) are graph inputs of
# run-time shape (filters, channels and kernel sizes), with pads, strides and
# dilations; tags: three shapes (a 1x1 kernel among them). conv1d_weight_dyn:
# 1-D, no bias. conv_weight_bad: the same model with a weight whose channels
# are not the input's, a kernel larger than the padded input, a kernel of
# size 0: errors of the call.
g = Graph()
g.op("Conv", ["x", "w", "b"], "y", pads=[1, 0, 2, 1], strides=[2, 1], dilations=[1, 2])
g.save("conv_weight_dyn.onnx", [vi("x", F32, ["N", "C", "H", "W"]), vi("w", F32, ["F", "C", "KH", "KW"]),
                                vi("b", F32, ["F"])], [vi("y", F32, ["N", "F", "OH", "OW"])], 17)
for tag, (n, c, h, w, f, kh, kw) in {"a": (2, 3, 9, 8, 4, 3, 2), "b": (1, 2, 5, 5, 1, 1, 1),
                                    "c": (1, 1, 4, 6, 3, 5, 3)}.items():
    save_inputs("conv_weight_dyn", tag, [rng.standard_normal((n, c, h, w)).astype(np.float32),
                                         rng.standard_normal((f, c, kh, kw)).astype(np.float32),
                                         rng.standard_normal(f).astype(np.float32)])
x1 = np.ones((1, 3, 4, 4), np.float32)
for tag, wshape in {"chan": (2, 2, 3, 3), "big": (2, 3, 9, 3), "zero": (2, 3, 0, 3)}.items():
    save_inputs("conv_weight_bad", tag, [x1, np.ones(wshape, np.float32), np.ones(2, np.float32)])
g = Graph()
g.op("Conv", ["x", "w"], "y")
g.save("conv1d_weight_dyn.onnx", [vi("x", F32, [2, 3, 10]), vi("w", F32, ["F", 3, "K"])],
       [vi("y", F32, [2, "F", "O"])], 17)
for tag, (f, k) in {"f5": (5, 3), "k10": (1, 10)}.items():
    save_inputs("conv1d_weight_dyn", tag, [rng.standard_normal((2, 3, 10)).astype(np.float32),
                                           rng.standard_normal((f, 3, k)).astype(np.float32)])
# Grouped over a weight of run-time shape (one convolution per group): two
# groups with everything at run time, tags of two shapes; bad tags: channels
# or filters not a multiple of the groups, the weight's channels not the
# input's per group. Three groups over static input channels (depthwise).
# Refused: more groups than are imported one by one.
g = Graph()
g.op("Conv", ["x", "w", "b"], "y", group=2, pads=[1, 0, 1, 2], strides=[1, 2])
g.save("conv_weight_dyn_group.onnx", [vi("x", F32, ["N", "C", "H", "W"]), vi("w", F32, ["F", "CG", "KH", "KW"]),
                                      vi("b", F32, ["F"])], [vi("y", F32, ["N", "F", "OH", "OW"])], 17)
for tag, (n, c, h, w, f, kh, kw) in {"a": (2, 4, 7, 8, 6, 3, 2), "b": (1, 6, 5, 5, 2, 1, 1)}.items():
    save_inputs("conv_weight_dyn_group", tag, [rng.standard_normal((n, c, h, w)).astype(np.float32),
                                               rng.standard_normal((f, c // 2, kh, kw)).astype(np.float32),
                                               rng.standard_normal(f).astype(np.float32)])
for tag, (c, f, cg) in {"chan": (5, 2, 2), "filt": (4, 3, 2), "cg": (4, 2, 3)}.items():
    save_inputs("conv_group_bad", tag, [np.ones((1, c, 4, 4), np.float32), np.ones((f, cg, 3, 3), np.float32),
                                        np.ones(f, np.float32)])
g = Graph()
g.op("Conv", ["x", "w"], "y", group=3, auto_pad="SAME_UPPER")
g.save("conv_weight_dyn_dw.onnx", [vi("x", F32, ["N", 3, 6, 6]), vi("w", F32, ["F", 1, "K", "K"])],
       [vi("y", F32, ["N", "F", 6, 6])], 17)
save_inputs("conv_weight_dyn_dw", "m2", [rng.standard_normal((2, 3, 6, 6)).astype(np.float32),
                                         rng.standard_normal((6, 1, 3, 3)).astype(np.float32)])
g = Graph()
g.op("Conv", ["x", "w"], "y", group=65)
g.save("conv_weight_dyn_groups.onnx", [vi("x", F32, [1, 130, 8, 8]), vi("w", F32, ["F", 2, 3, 3])],
       [vi("y", F32, [1, "F", 6, 6])], 17)
# auto_pad SAME over a weight of run-time kernel sizes, stride 2.
g = Graph()
g.op("Conv", ["x", "w"], "y", auto_pad="SAME_UPPER", strides=[2, 2])
g.save("conv_weight_dyn_same.onnx", [vi("x", F32, [1, 4, 8, 7]), vi("w", F32, [2, 4, "K", "K"])],
       [vi("y", F32, [1, 2, 4, 4])], 17)
for k in (3, 4):
    save_inputs("conv_weight_dyn_same", "k%d" % k, [rng.standard_normal((1, 4, 8, 7)).astype(np.float32),
                                                   rng.standard_normal((2, 4, k, k)).astype(np.float32)])

# --- unit_dyn: broadcasting where a size known only at run time is 1: Add and
# Where over inputs whose sizes all have different symbolic names, so
# importing cannot tell which are equal; tags: (3, 1) + (1, 4), equal shapes,
# a size of 1 against a static 4, and sizes that do not broadcast (3 and 2:
# an error of the call).
g = Graph()
g.op("Add", ["x", "y"], "sum")
g.op("Greater", ["x", "z"], "gt")
g.op("Where", ["gt", "y", "z"], "picked")
# (A Tile of the sum: its sizes are the stretched ones, not x's; found by
# the random graphs, a Tile took the run-time 1 and failed its check.)
g.op("Tile", ["sum", g.c([2, 1])], "tiled")
g.save("unit_dyn.onnx", [vi("x", F32, ["a", "b"]), vi("y", F32, ["c", "d"]), vi("z", F32, ["e", 4])],
       [vi("sum", F32, ["p", "q"]), vi("gt", TensorProto.BOOL, ["r", 4]),
        vi("picked", F32, ["s", 4]), vi("tiled", F32, ["t", "u"])], 17)
for tag, (xs, ys, zs) in {"rows": ((3, 1), (1, 4), (1, 4)), "same": ((2, 4), (2, 4), (2, 4)),
                          "col": ((1, 1), (3, 4), (3, 4))}.items():
    save_inputs("unit_dyn", tag, [rng.standard_normal(xs).astype(np.float32),
                                  rng.standard_normal(ys).astype(np.float32),
                                  rng.standard_normal(zs).astype(np.float32)])
save_inputs("unit_dyn", "bad", [np.zeros((3, 4), np.float32), np.zeros((2, 4), np.float32),
                                np.zeros((3, 4), np.float32)])
# A batched MatMul whose batch sizes have different symbols: (1, 2, 3) @
# (4, 3, 5) broadcasts the first operand's batch of 1 at run time.
g = Graph()
g.op("MatMul", ["a", "b"], "c")
g.save("matmul_unit_dyn.onnx", [vi("a", F32, ["p", "m", "k"]), vi("b", F32, ["q", "k2", "n"])],
       [vi("c", F32, ["r", "m", "n"])], 17)
save_inputs("matmul_unit_dyn", "one", [rng.standard_normal((1, 2, 3)).astype(np.float32),
                                       rng.standard_normal((4, 3, 5)).astype(np.float32)])
save_inputs("matmul_unit_dyn", "same", [rng.standard_normal((4, 2, 3)).astype(np.float32),
                                        rng.standard_normal((4, 3, 5)).astype(np.float32)])

# --- einsum_diag_dyn: Einsum diagonals over run-time sizes ("bii->bi" and a
# trace "ii"), the two sizes of the repeated index with different symbols;
# tags: (2, 3, 3) and (1, 4, 4); and (2, 3, 4), an error of the call.
g = Graph()
g.op("Einsum", ["x"], "diag", equation="bii->bi")
g.op("Einsum", ["y"], "trace", equation="ii")
g.save("einsum_diag_dyn.onnx", [vi("x", F32, ["b", "n", "m"]), vi("y", F32, ["p", "q"])],
       [vi("diag", F32, ["b", "n"]), vi("trace", F32, [])], 17)
for tag, (n, b) in {"n3": (3, 2), "n4": (4, 1)}.items():
    save_inputs("einsum_diag_dyn", tag, [rng.standard_normal((b, n, n)).astype(np.float32),
                                         rng.standard_normal((n + 1, n + 1)).astype(np.float32)])
save_inputs("einsum_diag_dyn", "bad", [np.zeros((2, 3, 4), np.float32), np.zeros((2, 2), np.float32)])

# --- expand_const_dyn: Expand of an input of run-time sizes to a constant
# shape (5, 3): a run-time size of 1 stretches (the input (5, 1)); (5, 3)
# passes through.
g = Graph()
g.op("Expand", ["x", g.c([5, 3])], "y")
g.save("expand_const_dyn.onnx", [vi("x", F32, ["p", "q"])], [vi("y", F32, [5, 3])], 17)
save_inputs("expand_const_dyn", "col", [rng.standard_normal((5, 1)).astype(np.float32)])
save_inputs("expand_const_dyn", "full", [rng.standard_normal((5, 3)).astype(np.float32)])

# --- squeeze_all_dyn: Squeeze without axes over run-time sizes (which
# dimensions are 1, so the result's rank, is known only at run time). The
# output's declared rank 2 keeps both; a size of 1 is an error when it runs.
g = Graph()
g.op("Squeeze", ["x"], "y")
g.save("squeeze_all_dyn.onnx", [vi("x", F32, ["p", "q"])], [vi("y", F32, ["r", "s"])], 17)
save_inputs("squeeze_all_dyn", "ok", [rng.standard_normal((2, 3)).astype(np.float32)])
save_inputs("squeeze_all_dyn", "one", [rng.standard_normal((3, 1)).astype(np.float32)])

# --- squeeze_drop_dyn: the declared rank 1 drops the run-time size too (it
# must be 1; the static 1 goes as always).
g = Graph()
g.op("Squeeze", ["x"], "y")
g.save("squeeze_drop_dyn.onnx", [vi("x", F32, ["p", 3, 1])], [vi("y", F32, [3])], 17)
save_inputs("squeeze_drop_dyn", "ok", [rng.standard_normal((1, 3, 1)).astype(np.float32)])
save_inputs("squeeze_drop_dyn", "two", [rng.standard_normal((2, 3, 1)).astype(np.float32)])

# --- squeeze_norank_dyn: no declared shape for the output (a Relu after the
# Squeeze): the run-time size is kept.
g = Graph()
g.op("Squeeze", ["x"], "s")
g.op("Relu", ["s"], "y")
g.save("squeeze_norank_dyn.onnx", [vi("x", F32, ["p", 1, 4])],
       [helper.make_tensor_value_info("y", F32, None)], 18)   # (1.12's checker wants a shape)
save_inputs("squeeze_norank_dyn", "ok", [rng.standard_normal((2, 1, 4)).astype(np.float32)])

# --- squeeze_some_dyn: a declared rank that some but not all run-time sizes
# of 1 give: which ones is known when it runs, and so is where the static 4
# lands ((1, 4, 3) gives (4, 3), (3, 4, 1) gives (3, 4)); another count of
# sizes other than 1 is an error then.
g = Graph()
g.op("Squeeze", ["x"], "y")
g.save("squeeze_some_dyn.onnx", [vi("x", F32, ["p", 4, "q"])], [vi("y", F32, ["r", "s"])], 17)
save_inputs("squeeze_some_dyn", "first", [rng.standard_normal((1, 4, 3)).astype(np.float32)])
save_inputs("squeeze_some_dyn", "last", [rng.standard_normal((3, 4, 1)).astype(np.float32)])
save_inputs("squeeze_some_dyn", "none", [rng.standard_normal((2, 4, 3)).astype(np.float32)])
save_inputs("squeeze_some_dyn", "both", [rng.standard_normal((1, 4, 1)).astype(np.float32)])

# --- squeeze_rank_bad: a declared rank no run-time sizes give (above the
# input's count of sizes that may be other than 1): refused while importing.
g = Graph()
g.op("Squeeze", ["x"], "y")
g.save("squeeze_rank_bad.onnx", [vi("x", F32, ["p", 1, 4])], [vi("y", F32, ["r", 4, "t"])], 17)

# --- expand_shape_of_dyn: Expand(x[N], Shape(y[M])), both known only at run
# time: the result is max(N, M) long where one is 1. Its size was taken from
# the shape's entry, so Shape() of the result said 1 for N = 5, M = 1 (found
# by an audit of the importer).
g = Graph()
sy = g.op("Shape", ["y"], "sy")
e = g.op("Expand", ["x", sy], "e")
g.op("Shape", [e], "se")
g.op("Add", [e, "y"], "z")
g.save("expand_shape_of_dyn.onnx", [vi("x", F32, ["N"]), vi("y", F32, ["M"])],
       [vi("se", I64, [1]), vi("z", F32, ["K"])], 17)
save_inputs("expand_shape_of_dyn", "n5m1", [np.arange(5, dtype=np.float32),
                                            np.array([10], np.float32)])
save_inputs("expand_shape_of_dyn", "n1m4", [np.array([2], np.float32),
                                            np.arange(4, dtype=np.float32)])
