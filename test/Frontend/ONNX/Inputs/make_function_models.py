#!/usr/bin/env python3
"""Writes models that call functions defined in the model itself
(ModelProto.functions) into OUTDIR, with their inputs (NAME_in0.npy, ...),
for functions.test: compared with ONNX Runtime, which expands the same
functions, or (NAME_want0.npy) with NumPy; and models the importer must
refuse.

    make_function_models.py OUTDIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(5)
DOMAIN = "my.ops"


def with_defaults(fn, defaults):
    """FunctionProto.attribute_proto (field 11, ONNX 1.13+): default values of
    the function's attributes. Debian's onnx 1.12 has no such field, so the
    bytes are appended to the serialized message (an unknown field to 1.12,
    a known one to ONNX Runtime)."""
    data = fn.SerializeToString()
    for attr in defaults:
        payload = attr.SerializeToString()
        data += bytes([(11 << 3) | 2]) + varint(len(payload)) + payload
    result = onnx.FunctionProto()
    result.ParseFromString(data)
    return result


def varint(n):
    b = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            b.append(byte | 0x80)
        else:
            b.append(byte)
            return bytes(b)


def ref_attr(name, ref, kind):
    a = helper.make_attribute(name, 0.0 if kind == "f" else 0)
    a.ClearField("f" if kind == "f" else "i")
    a.ref_attr_name = ref
    a.type = onnx.AttributeProto.FLOAT if kind == "f" else onnx.AttributeProto.INT
    return a


def node_with(op, inputs, outputs, attrs=(), domain="", name=""):
    n = helper.make_node(op, inputs, outputs, domain=domain, name=name)
    n.attribute.extend(attrs)
    return n


# ScaledTanh(x) = beta * tanh(alpha * x); alpha from the call, beta defaults
# to 2.0 (attribute_proto).
scaled_tanh = with_defaults(helper.make_function(
    DOMAIN, "ScaledTanh", ["x"], ["y"],
    [node_with("Constant", [], ["a"], [ref_attr("value_float", "alpha", "f")]),
     node_with("Constant", [], ["b"], [ref_attr("value_float", "beta", "f")]),
     helper.make_node("Mul", ["x", "a"], ["ax"]),
     helper.make_node("Tanh", ["ax"], ["t"]),
     helper.make_node("Mul", ["t", "b"], ["y"])],
    [helper.make_opsetid("", 17)], ["alpha", "beta"]),
    [helper.make_attribute("beta", 2.0)])

# Block(x, w) = ScaledTanh(x @ w) + x, and the pre-activation as a second
# output: a function that calls another one.
block = helper.make_function(
    DOMAIN, "Block", ["x", "w"], ["y", "pre"],
    [helper.make_node("MatMul", ["x", "w"], ["pre"]),
     node_with("ScaledTanh", ["pre"], ["act"],
               [ref_attr("alpha", "alpha", "f")], domain=DOMAIN),
     helper.make_node("Add", ["act", "x"], ["y"])],
    [helper.make_opsetid("", 17), helper.make_opsetid(DOMAIN, 1)], ["alpha"])

# RowSum11(x): ReduceSum with its axes as an attribute, as opset 11 has it,
# in a model of opset 17 (where axes is an input).
row_sum11 = helper.make_function(
    DOMAIN, "RowSum11", ["x"], ["y"],
    [helper.make_node("ReduceSum", ["x"], ["y"], axes=[1], keepdims=0)],
    [helper.make_opsetid("", 11)], [])


def save(name, nodes, inputs, outputs, functions, feeds, check=True,
         opset=17):
    graph = helper.make_graph(nodes, name, inputs, outputs)
    model = helper.make_model(graph, opset_imports=[
        helper.make_opsetid("", opset), helper.make_opsetid(DOMAIN, 1)],
        functions=functions)
    if check:
        onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, name + ".onnx"))
    for k, v in enumerate(feeds):
        np.save(os.path.join(out, "%s_in%d.npy" % (name, k)), v)


f32 = TensorProto.FLOAT
x = rng.standard_normal((4, 8)).astype(np.float32)
w1 = (rng.standard_normal((8, 8)) * 0.3).astype(np.float32)
w2 = (rng.standard_normal((8, 8)) * 0.3).astype(np.float32)

# Two calls of Block (each expanded with names of its own), the second one's
# pre-activation output used too; alpha given, beta defaulted.
save("blocks",
     [node_with("Block", ["x", "w1"], ["h", "pre1"],
                [helper.make_attribute("alpha", 0.5)], domain=DOMAIN,
                name="block1"),
      node_with("Block", ["h", "w2"], ["y", "pre"],
                [helper.make_attribute("alpha", 1.5)], domain=DOMAIN,
                name="block2")],
     [helper.make_tensor_value_info("x", f32, [4, 8]),
      helper.make_tensor_value_info("w1", f32, [8, 8]),
      helper.make_tensor_value_info("w2", f32, [8, 8])],
     [helper.make_tensor_value_info("y", f32, [4, 8]),
      helper.make_tensor_value_info("pre", f32, [4, 8])],
     [block, scaled_tanh], [x, w1, w2])


def np_block(x, w, alpha, beta=2.0):
    pre = x @ w
    return beta * np.tanh(alpha * pre) + x, pre


h, _ = np_block(x, w1, 0.5)
y, pre = np_block(h, w2, 1.5)
np.save(os.path.join(out, "blocks_one_output_want0.npy"), y)
np.save(os.path.join(out, "blocks_one_output_want1.npy"), pre)

# The same with the first call asking for one output of two (NumPy's
# reference: ONNX Runtime 1.31 refuses such a call).
save("blocks_one_output",
     [node_with("Block", ["x", "w1"], ["h"],
                [helper.make_attribute("alpha", 0.5)], domain=DOMAIN,
                name="block1"),
      node_with("Block", ["h", "w2"], ["y", "pre"],
                [helper.make_attribute("alpha", 1.5)], domain=DOMAIN,
                name="block2")],
     [helper.make_tensor_value_info("x", f32, [4, 8]),
      helper.make_tensor_value_info("w1", f32, [8, 8]),
      helper.make_tensor_value_info("w2", f32, [8, 8])],
     [helper.make_tensor_value_info("y", f32, [4, 8]),
      helper.make_tensor_value_info("pre", f32, [4, 8])],
     [block, scaled_tanh], [x, w1, w2])

# A function at an older opset than the model's.
save("rowsum11",
     [node_with("RowSum11", ["x"], ["y"], domain=DOMAIN)],
     [helper.make_tensor_value_info("x", f32, [4, 8])],
     [helper.make_tensor_value_info("y", f32, [4])],
     [row_sum11], [x], check=False)
np.save(os.path.join(out, "rowsum11_want0.npy"), x.sum(axis=1))

# A function whose second output is its input, unchanged (and a call that
# uses it).
passthrough = helper.make_function(
    DOMAIN, "ReluAndInput", ["x"], ["y", "x"],
    [helper.make_node("Relu", ["x"], ["y"])],
    [helper.make_opsetid("", 17)], [])
save("passthrough",
     [node_with("ReluAndInput", ["x"], ["r", "same"], domain=DOMAIN, name="call"),
      helper.make_node("Add", ["r", "same"], ["y"])],
     [helper.make_tensor_value_info("x", f32, [4, 8])],
     [helper.make_tensor_value_info("y", f32, [4, 8])], [passthrough], [x],
     check=False)
np.save(os.path.join(out, "passthrough_want0.npy"), np.maximum(x, 0) + x)

# Refused: a function that calls itself.
loop = helper.make_function(
    DOMAIN, "Forever", ["x"], ["y"],
    [node_with("Forever", ["x"], ["y"], domain=DOMAIN)],
    [helper.make_opsetid("", 17), helper.make_opsetid(DOMAIN, 1)], [])
save("recursive", [node_with("Forever", ["x"], ["y"], domain=DOMAIN,
                             name="call")],
     [helper.make_tensor_value_info("x", f32, [4, 8])],
     [helper.make_tensor_value_info("y", f32, [4, 8])], [loop], [],
     check=False)

# Refused: a body that reads a name it does not define (a graph's value).
leaky = helper.make_function(
    DOMAIN, "Leaky", ["x"], ["y"],
    [helper.make_node("Add", ["x", "w1"], ["y"], name="add")],
    [helper.make_opsetid("", 17)], [])
save("outer_name", [node_with("Leaky", ["x"], ["y"], domain=DOMAIN,
                              name="call")],
     [helper.make_tensor_value_info("x", f32, [4, 8]),
      helper.make_tensor_value_info("w1", f32, [4, 8])],
     [helper.make_tensor_value_info("y", f32, [4, 8])], [leaky], [],
     check=False)

# Refused: a call with more inputs than the function has.
save("too_many", [node_with("RowSum11", ["x", "x"], ["y"], domain=DOMAIN,
                            name="call")],
     [helper.make_tensor_value_info("x", f32, [4, 8])],
     [helper.make_tensor_value_info("y", f32, [4])], [row_sum11], [],
     check=False)

# Refused: an op of a domain the model defines no function for.
save("unknown_domain", [node_with("Mystery", ["x"], ["y"], domain=DOMAIN,
                                  name="call")],
     [helper.make_tensor_value_info("x", f32, [4, 8])],
     [helper.make_tensor_value_info("y", f32, [4, 8])], [], [], check=False)

# Refused: a function importing an opset newer than Tide knows.
future = helper.make_function(
    DOMAIN, "Future", ["x"], ["y"], [helper.make_node("Relu", ["x"], ["y"])],
    [helper.make_opsetid("", 99)], [])
save("future", [node_with("Future", ["x"], ["y"], domain=DOMAIN)],
     [helper.make_tensor_value_info("x", f32, [4, 8])],
     [helper.make_tensor_value_info("y", f32, [4, 8])], [future], [],
     check=False)
