#!/usr/bin/env python3
"""Writes the small ONNX models the importer's lit tests use into OUTDIR
(built with onnx.helper at test time, so no binary files live in the repo),
plus inputs and NumPy reference outputs for the ones that run.

    make_models.py OUTDIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(7)


def save(model, name, check=True):
    if check:
        onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, name))


def opset(v):
    return [helper.make_opsetid("", v)]


# An MLP with a symbolic batch: Gemm -> Relu -> MatMul -> Add -> Softmax.
w1 = rng.standard_normal((8, 16)).astype(np.float32)
b1 = rng.standard_normal(16).astype(np.float32)
w2 = rng.standard_normal((16, 4)).astype(np.float32)
b2 = rng.standard_normal(4).astype(np.float32)
graph = helper.make_graph(
    [helper.make_node("Gemm", ["x", "w1", "b1"], ["h"], name="fc1"),
     helper.make_node("Relu", ["h"], ["r"], name="act1"),
     helper.make_node("MatMul", ["r", "w2"], ["m"], name="fc2"),
     helper.make_node("Add", ["m", "b2"], ["logits"], name="bias2"),
     helper.make_node("Softmax", ["logits"], ["probs"], name="softmax", axis=-1)],
    "mlp",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 8])],
    [helper.make_tensor_value_info("probs", TensorProto.FLOAT, ["batch", 4])],
    [numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(b1, "b1"),
     numpy_helper.from_array(w2, "w2"), numpy_helper.from_array(b2, "b2")])
save(helper.make_model(graph, opset_imports=opset(17)), "mlp.onnx")
x = rng.standard_normal((3, 8)).astype(np.float32)
logits = np.maximum(x @ w1 + b1, 0) @ w2 + b2
e = np.exp(logits - logits.max(-1, keepdims=True))
np.save(os.path.join(out, "mlp_x.npy"), x)
np.save(os.path.join(out, "mlp_probs.npy"), (e / e.sum(-1, keepdims=True)).astype(np.float32))

# The same model with its weights in an external data file.
import copy
onnx.save(helper.make_model(copy.deepcopy(graph), opset_imports=opset(17)),
          os.path.join(out, "mlp_external.onnx"), save_as_external_data=True,
          all_tensors_to_one_file=True, location="mlp_external.data", size_threshold=0)
# ... and with that file missing.
onnx.save(helper.make_model(copy.deepcopy(graph), opset_imports=opset(17)),
          os.path.join(out, "mlp_missing.onnx"), save_as_external_data=True,
          all_tensors_to_one_file=True, location="mlp_missing.data", size_threshold=0)
os.remove(os.path.join(out, "mlp_missing.data"))

# A shape subgraph an exporter writes: Shape -> Gather -> Concat -> Reshape.
graph = helper.make_graph(
    [helper.make_node("Shape", ["x"], ["s"], name="shape"),
     helper.make_node("Gather", ["s", "zero"], ["n"], name="batch", axis=0),
     helper.make_node("Unsqueeze", ["n", "axes0"], ["n1"], name="unsq"),
     helper.make_node("Concat", ["n1", "minus1"], ["target"], name="cat", axis=0),
     helper.make_node("Reshape", ["x", "target"], ["y"], name="flatten")],
    "shapes",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 12])],
    [numpy_helper.from_array(np.array(0, np.int64), "zero"),
     numpy_helper.from_array(np.array([0], np.int64), "axes0"),
     numpy_helper.from_array(np.array([-1], np.int64), "minus1")])
save(helper.make_model(graph, opset_imports=opset(17)), "shapes.onnx")

# Reshape whose shape is a graph input: needs --bind-input.
graph = helper.make_graph(
    [helper.make_node("Reshape", ["x", "shape"], ["y"], name="reshape")],
    "bind",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 6]),
     helper.make_tensor_value_info("shape", TensorProto.INT64, [2])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 4])])
save(helper.make_model(graph, opset_imports=opset(17)), "bind.onnx")
np.save(os.path.join(out, "shape_3x4.npy"), np.array([3, 4], np.int64))

# Unsigned integers: a uint8 input, constants in every field ONNX stores
# unsigned data in (int32_data for uint8/uint16, uint64_data for uint32/uint64,
# raw_data), BitShift and a Cast to uint16.
U = TensorProto
graph = helper.make_graph(
    [helper.make_node("Add", ["x", "c8"], ["a"], name="add"),
     helper.make_node("BitShift", ["a", "one"], ["s"], name="shr", direction="RIGHT"),
     helper.make_node("Cast", ["s"], ["y16"], name="widen", to=U.UINT16),
     helper.make_node("Identity", ["c32"], ["o32"], name="id32"),
     helper.make_node("Identity", ["c64"], ["o64"], name="id64"),
     helper.make_node("Identity", ["r16"], ["o16"], name="id16"),
     helper.make_node("Identity", ["c16"], ["p16"], name="idp16")],
    "unsigned",
    [helper.make_tensor_value_info("x", U.UINT8, [3])],
    [helper.make_tensor_value_info("s", U.UINT8, [3]),
     helper.make_tensor_value_info("y16", U.UINT16, [3]),
     helper.make_tensor_value_info("o32", U.UINT32, [2]),
     helper.make_tensor_value_info("o64", U.UINT64, [1]),
     helper.make_tensor_value_info("o16", U.UINT16, [2]),
     helper.make_tensor_value_info("p16", U.UINT16, [2])],
    [helper.make_tensor("c8", U.UINT8, [3], [1, 2, 255]),
     helper.make_tensor("one", U.UINT8, [3], [1, 1, 1]),
     helper.make_tensor("c16", U.UINT16, [2], [65535, 7]),
     helper.make_tensor("c32", U.UINT32, [2], [4000000000, 1]),
     helper.make_tensor("c64", U.UINT64, [1], [18446744073709551615]),
     numpy_helper.from_array(np.array([65534, 3], np.uint16), "r16")])
save(helper.make_model(graph, opset_imports=opset(17)), "unsigned.onnx")

# Bad inputs.
def one_node(node, inputs, outputs, version=17, name="m.onnx", check=True):
    g = helper.make_graph([node], "g", inputs, outputs)
    save(helper.make_model(g, opset_imports=opset(version)), name, check)

f32 = lambda n, s: helper.make_tensor_value_info(n, TensorProto.FLOAT, s)
one_node(helper.make_node("StringNormalizer", ["x"], ["y"], name="norm"), [f32("x", [3, 3])],
         [f32("y", [])], name="unknown_op.onnx", check=False)
one_node(helper.make_node("Relu", ["x"], ["y"], name="relu"), [f32("x", [3])],
         [f32("y", [3])], version=99, name="new_opset.onnx", check=False)
one_node(helper.make_node("Gemm", ["x", "x"], ["y"], name="gemm", transC=1),
         [f32("x", [3, 3])], [f32("y", [3, 3])], name="bad_attr.onnx", check=False)
one_node(helper.make_node("Relu", ["x"], ["y"], name="relu"),
         [helper.make_tensor_value_info("x", TensorProto.COMPLEX64, [3])],
         [helper.make_tensor_value_info("y", TensorProto.COMPLEX64, [3])],
         name="complex64.onnx", check=False)
one_node(helper.make_node("Add", ["x", "y"], ["z"], name="add"),
         [f32("x", [3]), f32("y", [4])], [f32("z", [3])], name="no_broadcast.onnx",
         check=False)
one_node(helper.make_node("Relu", ["nowhere"], ["y"], name="relu"),
         [f32("x", [3])], [f32("y", [3])], name="dangling.onnx", check=False)
one_node(helper.make_node("Exp", ["x"], ["y"], name="exp"),
         [helper.make_tensor_value_info("x", TensorProto.INT32, [3])],
         [helper.make_tensor_value_info("y", TensorProto.INT32, [3])],
         name="exp_int.onnx", check=False)
data = open(os.path.join(out, "mlp.onnx"), "rb").read()
open(os.path.join(out, "truncated.onnx"), "wb").write(data[: len(data) // 2])
open(os.path.join(out, "text.onnx"), "w").write("this is not a model\n")

# Sizes known only at run time where an op takes none: Tile's repeats from
# Shape, Range with a computed delta, a negative-step Slice of a dynamic
# dimension.
def dyn_graph(nodes, name, inits, out_shape=None):
    g = helper.make_graph(nodes, "g", [f32("x", ["batch", 4])], [f32("y", out_shape)],
                          [numpy_helper.from_array(np.asarray(v), k) for k, v in inits.items()])
    save(helper.make_model(g, opset_imports=opset(17)), name, check=False)


dyn_graph([helper.make_node("Shape", ["x"], ["s"], name="shape"),
           helper.make_node("Concat", ["s", "s"], ["p"], name="pads", axis=0),
           helper.make_node("Pad", ["x", "p"], ["y"], name="pad")],
          "pad_dynamic.onnx", {})
dyn_graph([helper.make_node("Shape", ["x"], ["s"], name="shape"),
           helper.make_node("Gather", ["s", "zero"], ["b"], name="batch", axis=0),
           helper.make_node("Range", ["zero", "four", "b"], ["r"], name="range"),
           helper.make_node("Cast", ["r"], ["y"], name="cast", to=TensorProto.FLOAT)],
          "range_dynamic_delta.onnx", {"zero": np.array(0, np.int64), "four": np.array(4, np.int64)})
# A float Range from inf to inf: its size is not a number.
dyn_graph([helper.make_node("Range", ["inf", "inf", "one"], ["r"], name="range"),
           helper.make_node("Add", ["x", "r"], ["y"], name="add")],
          "range_nan_size.onnx", {"inf": np.array(np.inf, np.float32),
                                  "one": np.array(1, np.float32)})
# Constants the importer would compute from huge static sizes or attributes
# (an identity of 2^30 x 2^30, a transposed convolution with a stride of
# 2^40): an error naming the node, not an attempt to allocate them.
save(helper.make_model(helper.make_graph(
    [helper.make_node("EyeLike", ["x"], ["y"], name="eye")], "g",
    [f32("x", [1 << 30, 1 << 30])], [f32("y", [1 << 30, 1 << 30])]),
    opset_imports=opset(17)), "eyelike_huge.onnx", check=False)
save(helper.make_model(helper.make_graph(
    [helper.make_node("ConvTranspose", ["x", "w"], ["y"], name="up", strides=[1 << 40, 1])], "g",
    [f32("x", [1, 2, 3, 3])], [f32("y", None)],
    [numpy_helper.from_array(np.ones((2, 2, 2, 2), np.float32), "w")]),
    opset_imports=opset(17)), "convtranspose_huge_stride.onnx", check=False)
# A negative step from a start known only at run time (minus the batch).
dyn_graph([helper.make_node("Shape", ["x"], ["s"], name="shape"),
           helper.make_node("Slice", ["s", "zero", "one"], ["b"], name="batch"),
           helper.make_node("Neg", ["b"], ["starts"], name="minus_batch"),
           helper.make_node("Slice", ["x", "starts", "ends", "axes", "steps"], ["y"], name="reverse")],
          "slice_negative_dynamic.onnx",
          {"zero": np.array([0], np.int64), "one": np.array([1], np.int64),
           "ends": np.array([-1000], np.int64),
           "axes": np.array([0], np.int64), "steps": np.array([-1], np.int64)})

# Session-33 audit findings. An attribute of another type than the op's
# (LeakyRelu's alpha as an INT: read as 0 before; ONNX Runtime refuses).
graph = helper.make_graph(
    [helper.make_node("LeakyRelu", ["x"], ["y"], name="leaky", alpha=2)],
    "attr_type", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])])
save(helper.make_model(graph, opset_imports=opset(17)), "attr_type.onnx", check=False)
# External data outside the model's folder (read into the weights before).
os.makedirs(os.path.join(out, "sub"), exist_ok=True)
np.ones(4, np.float32).tofile(os.path.join(out, "outside.bin"))
w = onnx.TensorProto()
w.name, w.data_type, w.data_location = "w", TensorProto.FLOAT, TensorProto.EXTERNAL
w.dims.extend([4])
entry = w.external_data.add()
entry.key, entry.value = "location", "../outside.bin"
graph = helper.make_graph(
    [helper.make_node("Add", ["x", "w"], ["y"], name="add")], "escape",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])], [w])
with open(os.path.join(out, "sub", "escape.onnx"), "wb") as f:
    f.write(helper.make_model(graph, opset_imports=opset(17)).SerializeToString())
# --bind-input with a file of another type or shape than the input's.
np.save(os.path.join(out, "shape_f32.npy"), np.array([3, 4], np.float32))
np.save(os.path.join(out, "shape_3.npy"), np.array([3, 4, 1], np.int64))
# A model-local function called inside an If branch (refused before: calls
# were expanded in the main graph only).
fn = helper.make_function("my.ops", "Relu2", ["a"], ["b"],
                          [helper.make_node("Relu", ["a"], ["r"]),
                           helper.make_node("Add", ["r", "r"], ["b"])],
                          opset_imports=opset(17))
then_g = helper.make_graph([helper.make_node("Relu2", ["x"], ["t"], domain="my.ops")], "then", [],
                           [helper.make_tensor_value_info("t", TensorProto.FLOAT, [3])])
else_g = helper.make_graph([helper.make_node("Neg", ["x"], ["e"])], "else", [],
                           [helper.make_tensor_value_info("e", TensorProto.FLOAT, [3])])
graph = helper.make_graph(
    [helper.make_node("If", ["c"], ["y"], name="branch", then_branch=then_g, else_branch=else_g)],
    "fn_in_if", [helper.make_tensor_value_info("c", TensorProto.BOOL, []),
                 helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])])
save(helper.make_model(graph, opset_imports=opset(17) + [helper.make_opsetid("my.ops", 1)],
                       functions=[fn]), "fn_in_if.onnx")
np.save(os.path.join(out, "fn_in_if_c.npy"), np.array(True))
np.save(os.path.join(out, "fn_in_if_x.npy"), np.array([-1, 2, -3], np.float32))
