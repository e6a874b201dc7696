#!/usr/bin/env python3
"""Writes ONNX models that use sequences and optionals inside the graph
(their inputs and outputs are tensors), each with input sets
MODEL_TAG_in<k>.npy for tide_vs_ort.py, and models Tide refuses with a
message (sequence-errors.test):

    make_sequence_models.py OUT_DIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
F, I64, I32, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.INT32, TensorProto.BOOL


def save(name, nodes, inputs, outputs, inits=(), opset=17, runs=()):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    onnx.save(model, os.path.join(out, name + ".onnx"))
    for tag, arrays in runs:
        for k, a in enumerate(arrays):
            np.save(os.path.join(out, "%s_%s_in%d.npy" % (name, tag, k)), a)


def vi(name, t, shape):
    if shape is None:
        return helper.make_value_info(name, helper.make_tensor_type_proto(t, None))
    return helper.make_tensor_value_info(name, t, shape)


def const(name, values, t=I64):
    a = np.array(values, dtype={I64: np.int64, I32: np.int32}[t])
    return helper.make_node("Constant", [], [name],
                            value=helper.make_tensor(name + "_v", t, a.shape, a.flatten()))


rng = np.random.default_rng(11)
a = rng.standard_normal((2, 3)).astype(np.float32)
b = rng.standard_normal((2, 3)).astype(np.float32)
c = rng.standard_normal((2, 3)).astype(np.float32)

# A list built, changed and read at constant positions (negative ones too),
# joined along an axis and stacked along a new one, its length.
save("list_ops",
     [helper.make_node("SequenceConstruct", ["a", "b"], ["s0"]),
      const("m1", -1), const("zero", 0), const("one", 1), const("m2", -2),
      helper.make_node("SequenceInsert", ["s0", "c", "m1"], ["s1"]),   # a c b
      helper.make_node("SequenceInsert", ["s1", "a"], ["s2"]),         # a c b a
      helper.make_node("SequenceErase", ["s2", "zero"], ["s3"]),       # c b a
      helper.make_node("SequenceErase", ["s3"], ["s4"]),               # c b
      helper.make_node("SequenceAt", ["s3", "m2"], ["at"]),            # b
      helper.make_node("ConcatFromSequence", ["s3"], ["cat"], axis=1),
      helper.make_node("ConcatFromSequence", ["s4"], ["stack"], axis=-1, new_axis=1),
      helper.make_node("SequenceLength", ["s2"], ["len"]),
      helper.make_node("Identity", ["s4"], ["s5"]),
      helper.make_node("SequenceAt", ["s5", "one"], ["last"]),
      helper.make_node("Add", ["at", "last"], ["sum"])],
     [vi("a", F, [2, 3]), vi("b", F, [2, 3]), vi("c", F, [2, 3])],
     [vi("at", F, None), vi("cat", F, None), vi("stack", F, None), vi("len", I64, None),
      vi("sum", F, None)],
     runs=[("r", [a, b, c])])

# An empty sequence grown by inserts (SequenceEmpty's dtype), at the front.
save("grow",
     [helper.make_node("SequenceEmpty", [], ["e"], dtype=F),
      const("zero", 0),
      helper.make_node("SequenceInsert", ["e", "a"], ["s1"]),
      helper.make_node("SequenceInsert", ["s1", "b", "zero"], ["s2"]),
      helper.make_node("ConcatFromSequence", ["s2"], ["y"], axis=0),
      helper.make_node("SequenceLength", ["e"], ["n0"])],
     [vi("a", F, [2, 3]), vi("b", F, [2, 3])],
     [vi("y", F, None), vi("n0", I64, None)], runs=[("r", [a, b])])

# SplitToSequence: into rows (keepdims 0 and 1), chunks of 2 along an axis of
# 5 (the last shorter), sizes given, sizes given at run time (a dynamic axis).
x = rng.standard_normal((4, 5)).astype(np.float32)
save("split_rows",
     [helper.make_node("SplitToSequence", ["x"], ["s"], keepdims=0),
      helper.make_node("SplitToSequence", ["x"], ["k"], axis=1),
      const("two", 2),
      helper.make_node("SequenceAt", ["s", "two"], ["row"]),
      helper.make_node("SequenceAt", ["k", "two"], ["col"]),
      helper.make_node("SequenceLength", ["k"], ["nk"]),
      helper.make_node("ConcatFromSequence", ["s"], ["back"], axis=0, new_axis=1)],
     [vi("x", F, [4, 5])],
     [vi("row", F, None), vi("col", F, None), vi("nk", I64, None), vi("back", F, None)],
     runs=[("r", [x])])
save("split_chunks",
     [const("two", 2), const("sizes", [1, 3, 1]), const("last", -1),
      helper.make_node("SplitToSequence", ["x", "two"], ["s"], axis=1),
      helper.make_node("SplitToSequence", ["x", "sizes"], ["t"], axis=-1),
      helper.make_node("SequenceAt", ["s", "last"], ["tail"]),
      helper.make_node("SequenceAt", ["t", "last"], ["t2"]),
      helper.make_node("SequenceLength", ["s"], ["ns"]),
      helper.make_node("ConcatFromSequence", ["t"], ["same"], axis=1)],
     [vi("x", F, [4, 5])],
     [vi("tail", F, None), vi("t2", F, None), vi("ns", I64, None), vi("same", F, None)],
     runs=[("r", [x])])
save("split_runtime",
     [helper.make_node("SplitToSequence", ["x", "sizes"], ["s"]),
      const("one", 1),
      helper.make_node("SequenceAt", ["s", "one"], ["mid"]),
      helper.make_node("SequenceLength", ["s"], ["n"]),
      helper.make_node("ConcatFromSequence", ["s"], ["back"], axis=0)],
     [vi("x", F, ["rows", 3]), vi("sizes", I64, [3])],
     [vi("mid", F, None), vi("n", I64, None), vi("back", F, None)],
     runs=[("a", [rng.standard_normal((6, 3)).astype(np.float32), np.array([1, 2, 3], np.int64)]),
           ("b", [rng.standard_normal((4, 3)).astype(np.float32), np.array([0, 4, 0], np.int64)]),
           # Sizes that do not add up to the rows, or are negative: run-time
           # errors (ONNX Runtime's too).
           ("short", [rng.standard_normal((6, 3)).astype(np.float32), np.array([1, 2, 2], np.int64)]),
           ("neg", [rng.standard_normal((6, 3)).astype(np.float32), np.array([-1, 4, 3], np.int64)])])

# SequenceMap: a body per element, of two sequences and a tensor passed whole,
# with two outputs.
body = helper.make_graph(
    [helper.make_node("Add", ["e", "f"], ["sum"]),
     helper.make_node("Mul", ["sum", "w"], ["prod"])],
    "body", [vi("e", F, [2, 3]), vi("f", F, [2, 3]), vi("w", F, [3])],
    [vi("sum", F, [2, 3]), vi("prod", F, [2, 3])])
w = rng.standard_normal(3).astype(np.float32)
save("map",
     [helper.make_node("SequenceConstruct", ["a", "b", "c"], ["s"]),
      helper.make_node("SequenceConstruct", ["c", "a", "b"], ["t"]),
      helper.make_node("SequenceMap", ["s", "t", "w"], ["sums", "prods"], body=body),
      helper.make_node("ConcatFromSequence", ["sums"], ["y"], axis=0),
      helper.make_node("ConcatFromSequence", ["prods"], ["z"], axis=0, new_axis=1)],
     [vi("a", F, [2, 3]), vi("b", F, [2, 3]), vi("c", F, [2, 3]), vi("w", F, [3])],
     [vi("y", F, None), vi("z", F, None)], runs=[("r", [a, b, c, w])])

# Optionals: one that holds a tensor, one of a sequence, an empty one.
tensor_type = helper.make_tensor_type_proto(F, [2, 3])
save("optional",
     [helper.make_node("Optional", ["a"], ["o"]),
      helper.make_node("Optional", [], ["none"], type=tensor_type),
      helper.make_node("OptionalHasElement", ["o"], ["has"]),
      helper.make_node("OptionalHasElement", ["none"], ["hasnt"]),
      helper.make_node("OptionalGetElement", ["o"], ["got"]),
      helper.make_node("SequenceConstruct", ["a", "b"], ["s"]),
      helper.make_node("Optional", ["s"], ["os"]),
      helper.make_node("OptionalGetElement", ["os"], ["s2"]),
      helper.make_node("ConcatFromSequence", ["s2"], ["cat"], axis=0),
      helper.make_node("Relu", ["got"], ["r"])],
     [vi("a", F, [2, 3]), vi("b", F, [2, 3])],
     [vi("has", B, None), vi("hasnt", B, None), vi("r", F, None), vi("cat", F, None)],
     opset=18, runs=[("r", [a, b])])

# A list appended to in a Loop (TorchScript's `for i in range(3): out.append(...)`),
# carried through the unrolled iterations, then stacked.
seqf = helper.make_sequence_type_proto(helper.make_tensor_type_proto(F, None))
loop_body = helper.make_graph(
    [helper.make_node("Cast", ["i"], ["fi"], to=F),
     helper.make_node("Mul", ["x", "fi"], ["xi"]),
     helper.make_node("SequenceInsert", ["s_in", "xi"], ["s_out"]),
     helper.make_node("Identity", ["c"], ["c_out"])],
    "body", [vi("i", I64, []), vi("c", B, []), helper.make_value_info("s_in", seqf)],
    [vi("c_out", B, []), helper.make_value_info("s_out", seqf)])
save("loop_append",
     [helper.make_node("SequenceEmpty", [], ["e"]), const("n", 3),
      helper.make_node("Constant", [], ["t"], value=helper.make_tensor("t", B, [], [1])),
      helper.make_node("Loop", ["n", "t", "e"], ["s"], body=loop_body),
      helper.make_node("ConcatFromSequence", ["s"], ["y"], axis=0, new_axis=1),
      helper.make_node("SequenceLength", ["s"], ["len"])],
     [vi("x", F, [2, 3])], [vi("y", F, None), vi("len", I64, None)], runs=[("r", [a])])

# The same list appended to in a Loop whose trip count is an input (known
# only at run time): one loop, the appended tensors stacked as it runs, read
# after it by ConcatFromSequence (both ways), SequenceLength and SequenceAt
# at a run-time position. loop_append_first: the list starts with one
# element (run at 0 iterations too). loop_append_while: a while loop (the
# body's condition computed) that also carries a tensor.
def append_body(cond_nodes, cond_out):
    return helper.make_graph(
        [helper.make_node("Cast", ["i"], ["fi"], to=F),
         helper.make_node("Mul", ["x", "fi"], ["xi"]),
         helper.make_node("Add", ["acc_in", "xi"], ["acc_out"]),
         helper.make_node("SequenceInsert", ["s_in", "acc_out"], ["s_out"])] + cond_nodes,
        "body", [vi("i", I64, []), vi("c", B, []), vi("acc_in", F, [2, 3]),
                 helper.make_value_info("s_in", seqf)],
        [vi(cond_out, B, []), vi("acc_out", F, [2, 3]), helper.make_value_info("s_out", seqf),
         vi("xi", F, [2, 3])])


def append_reads(seq_nodes):
    return seq_nodes + [
        helper.make_node("ConcatFromSequence", ["s"], ["stacked"], axis=1, new_axis=1),
        helper.make_node("ConcatFromSequence", ["s"], ["joined"], axis=-1),
        helper.make_node("SequenceLength", ["s"], ["len"]),
        helper.make_node("SequenceAt", ["s", "k"], ["at"])]


outs = [vi("acc", F, None), vi("xs", F, None), vi("stacked", F, None), vi("joined", F, None),
        vi("len", I64, None), vi("at", F, None)]
x23 = np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5
t1 = helper.make_node("Constant", [], ["t"], value=helper.make_tensor("t", B, [], [1]))
zero23 = helper.make_node("Constant", [], ["z"], value=helper.make_tensor(
    "z", F, [2, 3], np.zeros(6, np.float32)))
save("loop_append_dyn",
     append_reads([helper.make_node("SequenceEmpty", [], ["e"]), t1, zero23,
                   helper.make_node("Loop", ["n", "t", "z", "e"], ["acc", "s", "xs"],
                                    body=append_body([helper.make_node("Identity", ["c"], ["c_out"])],
                                                     "c_out"))]),
     [vi("x", F, [2, 3]), vi("n", I64, []), vi("k", I64, [])], outs,
     runs=[("n4", [x23, np.array(4), np.array(-1)]), ("n1", [x23, np.array(1), np.array(0)]),
           ("n5", [x23, np.array(5), np.array(2)])])
save("loop_append_first",
     append_reads([helper.make_node("SequenceConstruct", ["x"], ["e"]), t1, zero23,
                   helper.make_node("Loop", ["n", "t", "z", "e"], ["acc", "s", "xs"],
                                    body=append_body([helper.make_node("Identity", ["c"], ["c_out"])],
                                                     "c_out"))]),
     [vi("x", F, [2, 3]), vi("n", I64, []), vi("k", I64, [])], outs,
     runs=[("n3", [x23, np.array(3), np.array(-4)]), ("n0", [x23, np.array(0), np.array(0)])])
save("loop_append_first_dyn",
     append_reads([helper.make_node("SequenceConstruct", ["x"], ["e"]), t1,
                   helper.make_node("Mul", ["x", "zs"], ["z"]),
                   helper.make_node("Loop", ["n", "t", "z", "e"], ["acc", "s", "xs"],
                                    body=append_body([helper.make_node("Identity", ["c"], ["c_out"])],
                                                     "c_out"))]),
     [vi("x", F, ["A", "B"]), vi("n", I64, []), vi("k", I64, [])],
     # (Not xs: after no iteration ONNX Runtime's has the body's sizes, Tide's
     # run-time sizes of a step that never ran are 0.)
     [o for o in outs if o.name != "xs"],
     inits=[helper.make_tensor("zs", F, [], [0.0])],
     runs=[("n3", [x23, np.array(3), np.array(-4)]), ("n0", [x23, np.array(0), np.array(0)])])
save("loop_append_while",
     append_reads([helper.make_node("SequenceEmpty", [], ["e"]), t1, zero23,
                   helper.make_node("Loop", ["", "t", "z", "e"], ["acc", "s", "xs"],
                                    body=append_body([const("two", 2),
                                                      helper.make_node("Add", ["i", "two"], ["i2"]),
                                                      helper.make_node("Less", ["i2", "n"], ["c_out"])],
                                                     "c_out"))]),
     [vi("x", F, [2, 3]), vi("n", I64, []), vi("k", I64, [])], outs,
     runs=[("n6", [x23, np.array(6), np.array(1)]), ("n1", [x23, np.array(1), np.array(-1)])])
# Refused: the body reads the list it appends to; a list of run-time length
# appended to after the loop.
save("err_append_read",
     [helper.make_node("SequenceEmpty", [], ["e"]), t1,
      helper.make_node("Loop", ["n", "t", "e"], ["s"], body=helper.make_graph(
          [helper.make_node("SequenceLength", ["s_in"], ["len"]),
           helper.make_node("Cast", ["len"], ["fl"], to=F),
           helper.make_node("Mul", ["x", "fl"], ["xl"]),
           helper.make_node("SequenceInsert", ["s_in", "xl"], ["s_out"]),
           helper.make_node("Identity", ["c"], ["c_out"])],
          "body", [vi("i", I64, []), vi("c", B, []), helper.make_value_info("s_in", seqf)],
          [vi("c_out", B, []), helper.make_value_info("s_out", seqf)])),
      helper.make_node("ConcatFromSequence", ["s"], ["y"], axis=0)],
     [vi("x", F, [2, 3]), vi("n", I64, [])], [vi("y", F, None)])
save("err_append_after",
     [helper.make_node("SequenceEmpty", [], ["e"]), t1,
      helper.make_node("Loop", ["n", "t", "e"], ["s"], body=helper.make_graph(
          [helper.make_node("SequenceInsert", ["s_in", "x"], ["s_out"]),
           helper.make_node("Identity", ["c"], ["c_out"])],
          "body", [vi("i", I64, []), vi("c", B, []), helper.make_value_info("s_in", seqf)],
          [vi("c_out", B, []), helper.make_value_info("s_out", seqf)])),
      helper.make_node("SequenceInsert", ["s", "x"], ["s2"]),
      helper.make_node("ConcatFromSequence", ["s2"], ["y"], axis=0)],
     [vi("x", F, [2, 3]), vi("n", I64, [])], [vi("y", F, None)])

# Refused, with a message each.
save("err_runtime_pos",
     [helper.make_node("SequenceConstruct", ["a", "b"], ["s"]),
      helper.make_node("SequenceAt", ["s", "i"], ["y"])],
     [vi("a", F, [2, 3]), vi("b", F, [2, 3]), vi("i", I64, [])], [vi("y", F, None)])
save("err_out_of_range",
     [helper.make_node("SequenceConstruct", ["a", "b"], ["s"]), const("five", 5),
      helper.make_node("SequenceAt", ["s", "five"], ["y"])],
     [vi("a", F, [2, 3]), vi("b", F, [2, 3])], [vi("y", F, None)])
save("err_seq_output",
     [helper.make_node("SequenceConstruct", ["a", "b"], ["s"])],
     [vi("a", F, [2, 3]), vi("b", F, [2, 3])],
     [helper.make_value_info("s", helper.make_sequence_type_proto(
         helper.make_tensor_type_proto(F, [2, 3])))])
save("err_seq_to_add",
     [helper.make_node("SequenceConstruct", ["a", "b"], ["s"]),
      helper.make_node("Add", ["s", "a"], ["y"])],
     [vi("a", F, [2, 3]), vi("b", F, [2, 3])], [vi("y", F, None)])
save("err_empty_concat",
     [helper.make_node("SequenceEmpty", [], ["e"]),
      helper.make_node("ConcatFromSequence", ["e"], ["y"], axis=0)],
     [vi("a", F, [2, 3])], [vi("y", F, None)])
save("err_empty_optional",
     [helper.make_node("Optional", [], ["o"], type=tensor_type),
      helper.make_node("OptionalGetElement", ["o"], ["y"])],
     [vi("a", F, [2, 3])], [vi("y", F, None)], opset=18)
save("err_mixed_types",
     [helper.make_node("SequenceConstruct", ["a", "i"], ["s"]),
      helper.make_node("SequenceLength", ["s"], ["y"])],
     [vi("a", F, [2, 3]), vi("i", I64, [2])], [vi("y", I64, None)])
save("err_map_lengths",
     [helper.make_node("SequenceConstruct", ["a", "b"], ["s"]),
      helper.make_node("SequenceConstruct", ["a"], ["t"]),
      helper.make_node("SequenceMap", ["s", "t", "a"], ["sums", "prods"], body=body),
      helper.make_node("ConcatFromSequence", ["sums"], ["y"], axis=0)],
     [vi("a", F, [2, 3]), vi("b", F, [2, 3])], [vi("y", F, None)])
