#!/usr/bin/env python3
"""Control flow that Tide imports by unrolling or selecting, written with
onnx.helper, and the inputs to run them on (MODEL[_TAG]_in<k>.npy):

- loop_scan.onnx: a Loop of 6 iterations (constant trip count) with two
  loop-carried values (a running sum updated from a Slice by the iteration
  number, and a product) and two scan outputs; its body reads a value of the
  outer graph.
- loop_cond.onnx: a Loop with no trip count whose condition turns false after
  the fourth iteration (iter_num < 3, decided while importing).
- scan_rev.onnx: a Scan (opset 16) over axis 1 of one input and, in reverse,
  axis 0 of another, with a state and scan outputs stacked on axes 0 and 1
  (the second reversed).
- scan8.onnx: opset 8's batched Scan (a constant sequence_lens, one input
  scanned in reverse); scan8_lens.onnx: one batch entry shorter, refused.
- if_select.onnx: an If on a graph input (tags t, f): one tide.if.
- if_sizes.onnx, if_guard.onnx, if_in_loop.onnx, loop_in_if.onnx: Ifs on
  values known only at run time whose branches give different sizes, whose
  untaken branch would fail a run-time check, inside a loop, around a loop.
- scan_dyn.onnx: scan_rev over a sequence length known only at run time,
  and loop_trips.onnx, a Loop of M iterations with M a graph input (with a
  scan output): one tide.scan each, run at two lengths.
- loop_runtime_cond.onnx, loop_runtime_trips.onnx, loop_while.onnx: Loops
  whose condition is computed at run time (a constant trip count, a run-time
  one, none): one conditional tide.scan each, run with inputs that stop them
  early, late and before the first iteration.
- loop_slice_iter.onnx: ONNX's test_loop11 with its trip count and
  condition left to run time (a Slice whose bounds come from iter_num).
- loop_grows.onnx: a loop-carried value that doubles every iteration (its
  size declared symbolic in the body), run with 0 and 3 iterations.
- loop_grows_static.onnx, if_types.onnx: what is refused, each with its
  message.

    make_control_models.py OUT_DIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(11)
F32, I64, BOOL = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL


def vi(name, dtype, shape):
    return helper.make_tensor_value_info(name, dtype, shape)


def const(name, array):
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(np.asarray(array), name))


def save(name, graph, opset=17):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, name + ".onnx"))


def save_inputs(model, tag, arrays):
    for k, a in enumerate(arrays):
        suffix = "_%s" % tag if tag else ""
        np.save(os.path.join(out, "%s%s_in%d.npy" % (model, suffix, k)), a)


# --- loop_scan ---------------------------------------------------------------
body = helper.make_graph(
    [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
     const("one", np.array(1, np.int64)),
     helper.make_node("Add", ["i", "one"], ["end"]),
     helper.make_node("Unsqueeze", ["i", "axes0"], ["start1"]),
     helper.make_node("Unsqueeze", ["end", "axes0"], ["end1"]),
     helper.make_node("Slice", ["table", "start1", "end1"], ["row"]),
     helper.make_node("Add", ["sum_in", "row"], ["sum_out"]),
     helper.make_node("Mul", ["prod_in", "scale"], ["prod_out"]),
     helper.make_node("Tanh", ["sum_out"], ["scan_a"]),
     helper.make_node("Add", ["prod_out", "sum_out"], ["scan_b"])],
    "body",
    [vi("i", I64, []), vi("cond_in", BOOL, []), vi("sum_in", F32, [1, 4]), vi("prod_in", F32, [1, 4])],
    [vi("cond_out", BOOL, []), vi("sum_out", F32, [1, 4]), vi("prod_out", F32, [1, 4]),
     vi("scan_a", F32, [1, 4]), vi("scan_b", F32, [1, 4])])
save("loop_scan", helper.make_graph(
    [const("trips", np.array(6, np.int64)), const("go", np.array(True)),
     const("axes0", np.array([0], np.int64)),
     helper.make_node("Loop", ["trips", "go", "x", "x"], ["sum", "prod", "scan_a", "scan_b"], name="loop", body=body)],
    "loop_scan", [vi("x", F32, [1, 4]), vi("table", F32, [6, 4]), vi("scale", F32, [1, 4])],
    [vi("sum", F32, [1, 4]), vi("prod", F32, [1, 4]), vi("scan_a", F32, [6, 1, 4]),
     vi("scan_b", F32, [6, 1, 4])]))
save_inputs("loop_scan", "", [rng.standard_normal((1, 4)).astype(np.float32),
                              rng.standard_normal((6, 4)).astype(np.float32),
                              (0.5 + rng.random((1, 4))).astype(np.float32)])

# --- loop_cond: no trip count; stops when iter_num < 3 turns false ------------
body = helper.make_graph(
    [const("three", np.array(3, np.int64)),
     helper.make_node("Less", ["i", "three"], ["cond_out"]),
     helper.make_node("Mul", ["v_in", "v_in"], ["sq"]),
     helper.make_node("Sub", ["sq", "x"], ["v_out"])],
    "body", [vi("i", I64, []), vi("cond_in", BOOL, []), vi("v_in", F32, [3])],
    [vi("cond_out", BOOL, []), vi("v_out", F32, [3])])
save("loop_cond", helper.make_graph(
    [helper.make_node("Loop", ["", "", "x"], ["v"], name="loop", body=body)],
    "loop_cond", [vi("x", F32, [3])], [vi("v", F32, [3])]))
save_inputs("loop_cond", "", [(0.3 * rng.standard_normal(3)).astype(np.float32)])

# --- scan_rev ------------------------------------------------------------------
body = helper.make_graph(
    [helper.make_node("Add", ["s_in", "a"], ["t"]),
     helper.make_node("Mul", ["t", "b"], ["s_out"]),
     helper.make_node("Relu", ["s_out"], ["o1"]),
     helper.make_node("Sub", ["a", "b"], ["o2"])],
    "body", [vi("s_in", F32, [5]), vi("a", F32, [5]), vi("b", F32, [5])],
    [vi("s_out", F32, [5]), vi("o1", F32, [5]), vi("o2", F32, [5])])
save("scan_rev", helper.make_graph(
    [helper.make_node("Scan", ["s0", "xa", "xb"], ["s", "y1", "y2"], name="scan", body=body,
                      num_scan_inputs=2, scan_input_axes=[1, 0], scan_input_directions=[0, 1],
                      scan_output_axes=[0, 1], scan_output_directions=[0, 1])],
    "scan_rev", [vi("s0", F32, [5]), vi("xa", F32, [5, 7]), vi("xb", F32, [7, 5])],
    [vi("s", F32, [5]), vi("y1", F32, [7, 5]), vi("y2", F32, [5, 7])]), opset=16)
save_inputs("scan_rev", "", [rng.standard_normal(5).astype(np.float32),
                             rng.standard_normal((5, 7)).astype(np.float32),
                             rng.standard_normal((7, 5)).astype(np.float32)])

# --- scan_dyn: scan_rev over a length known only at run time ("L"), a loop --
body = helper.make_graph(
    [helper.make_node("Add", ["s_in", "a"], ["t"]),
     helper.make_node("Mul", ["t", "b"], ["s_out"]),
     helper.make_node("Relu", ["s_out"], ["o1"]),
     helper.make_node("Sub", ["a", "b"], ["o2"])],
    "body", [vi("s_in", F32, [5]), vi("a", F32, [5]), vi("b", F32, [5])],
    [vi("s_out", F32, [5]), vi("o1", F32, [5]), vi("o2", F32, [5])])
save("scan_dyn", helper.make_graph(
    [helper.make_node("Scan", ["s0", "xa", "xb"], ["s", "y1", "y2"], name="scan", body=body,
                      num_scan_inputs=2, scan_input_axes=[1, 0], scan_input_directions=[0, 1],
                      scan_output_axes=[0, 1], scan_output_directions=[0, 1])],
    "scan_dyn", [vi("s0", F32, [5]), vi("xa", F32, [5, "L"]), vi("xb", F32, ["L", 5])],
    [vi("s", F32, [5]), vi("y1", F32, ["L", 5]), vi("y2", F32, [5, "L"])]), opset=16)
for length in (1, 6):
    save_inputs("scan_dyn", "l%d" % length, [
        rng.standard_normal(5).astype(np.float32),
        rng.standard_normal((5, length)).astype(np.float32),
        rng.standard_normal((length, 5)).astype(np.float32)])

# --- loop_trips: a Loop of M iterations, M a graph input (a loop) -------------
body = helper.make_graph(
    [helper.make_node("Cast", ["i"], ["fi"], to=F32),
     const("k", np.float32(0.5)),
     helper.make_node("Mul", ["v_in", "k"], ["h"]),
     helper.make_node("Add", ["h", "fi"], ["v_out"]),
     helper.make_node("Identity", ["cond_in"], ["cond_out"]),
     helper.make_node("Tanh", ["v_out"], ["y"])],
    "body", [vi("i", I64, []), vi("cond_in", BOOL, []), vi("v_in", F32, [3])],
    [vi("cond_out", BOOL, []), vi("v_out", F32, [3]), vi("y", F32, [3])])
save("loop_trips", helper.make_graph(
    [helper.make_node("Loop", ["n", "", "x"], ["v", "ys"], name="loop", body=body)],
    "loop_trips", [vi("n", I64, []), vi("x", F32, [3])],
    [vi("v", F32, [3]), vi("ys", F32, ["n", 3])]))
for trips in (1, 5):
    save_inputs("loop_trips", "n%d" % trips,
                [np.array(trips, np.int64), rng.standard_normal(3).astype(np.float32)])

# --- scan8: opset 8's batched Scan ------------------------------------------------
# Batch 2, sequence 4: a state (2, 3) and two scan inputs (2, 4, 3), the
# second scanned in reverse, sequence_lens a constant equal to the length;
# scan outputs (2, 4, 3) in iteration order.
body = helper.make_graph(
    [helper.make_node("Mul", ["s_in", "a"], ["t"]),
     helper.make_node("Add", ["t", "b"], ["s_out"]),
     helper.make_node("Tanh", ["s_out"], ["o"])],
    "body", [vi("s_in", F32, [3]), vi("a", F32, [3]), vi("b", F32, [3])],
    [vi("s_out", F32, [3]), vi("o", F32, [3])])
save("scan8", helper.make_graph(
    [const("lens", np.array([4, 4], np.int64)),
     helper.make_node("Scan", ["lens", "s0", "xa", "xb"], ["s", "y"], name="scan", body=body,
                      num_scan_inputs=2, directions=[0, 1])],
    "scan8", [vi("s0", F32, [2, 3]), vi("xa", F32, [2, 4, 3]), vi("xb", F32, [2, 4, 3])],
    [vi("s", F32, [2, 3]), vi("y", F32, [2, 4, 3])]), opset=8)
save_inputs("scan8", "", [rng.standard_normal((2, 3)).astype(np.float32),
                          rng.standard_normal((2, 4, 3)).astype(np.float32),
                          rng.standard_normal((2, 4, 3)).astype(np.float32)])
# Refused: a batch entry whose sequence is shorter.
save("scan8_lens", helper.make_graph(
    [const("lens", np.array([4, 2], np.int64)),
     helper.make_node("Scan", ["lens", "s0", "xa", "xb"], ["s", "y"], name="scan", body=body,
                      num_scan_inputs=2)],
    "scan8_lens", [vi("s0", F32, [2, 3]), vi("xa", F32, [2, 4, 3]), vi("xb", F32, [2, 4, 3])],
    [vi("s", F32, [2, 3]), vi("y", F32, [2, 4, 3])]), opset=8)

# --- if_select: an If on a graph input ----------------------------------------
then_g = helper.make_graph([helper.make_node("Exp", ["x"], ["t"]), const("k", np.float32([1, 2, 3]))],
                           "then", [], [vi("t", F32, [3]), vi("k", F32, [3])])
else_g = helper.make_graph([helper.make_node("Neg", ["x"], ["e"]), const("j", np.float32([7, 8, 9]))],
                           "else", [], [vi("e", F32, [3]), vi("j", F32, [3])])
save("if_select", helper.make_graph(
    [helper.make_node("If", ["c"], ["y", "z"], name="branch", then_branch=then_g, else_branch=else_g)],
    "if_select", [vi("c", BOOL, []), vi("x", F32, [3])], [vi("y", F32, [3]), vi("z", F32, [3])]))
x = rng.standard_normal(3).astype(np.float32)
save_inputs("if_select", "t", [np.array(True), x])
save_inputs("if_select", "f", [np.array(False), x])

# --- while loops: conditions computed at run time (a conditional tide.scan) --
# loop_runtime_cond: a constant trip count 9 and a condition on the loop-carried
# value (its sum below a graph input); tags: stops after 3 steps, runs all 9,
# the first condition (a graph input) false, no step.
body = helper.make_graph(
    [helper.make_node("Cast", ["i"], ["fi"], to=F32),
     const("half", np.float32(1.5)),
     helper.make_node("Mul", ["v_in", "half"], ["h"]),
     helper.make_node("Add", ["h", "fi"], ["v_out"]),
     helper.make_node("ReduceSum", ["v_out"], ["s"], keepdims=0),
     helper.make_node("Less", ["s", "limit"], ["cond_out"]),
     helper.make_node("Tanh", ["v_out"], ["y"])],
    "body", [vi("i", I64, []), vi("cond_in", BOOL, []), vi("v_in", F32, [3])],
    [vi("cond_out", BOOL, []), vi("v_out", F32, [3]), vi("y", F32, [3])])
save("loop_runtime_cond", helper.make_graph(
    [const("trips", np.array(9, np.int64)),
     helper.make_node("Loop", ["trips", "c", "x"], ["v", "ys"], name="loop", body=body)],
    "loop_runtime_cond", [vi("c", BOOL, []), vi("x", F32, [3]), vi("limit", F32, [])],
    [vi("v", F32, [3]), vi("ys", F32, ["k", 3])]))
x = np.float32([0.5, 1.0, 1.5])
for tag, c, limit in (("stop", True, 20.0), ("all", True, 1e9), ("none", False, 20.0)):
    save_inputs("loop_runtime_cond", tag, [np.array(c), x, np.array(limit, np.float32)])
# loop_fixed_trips: the same body and trip count, no condition input (the
# first iteration is imported for unrolling before the condition is seen to
# be computed at run time; then the loop is built).
save("loop_fixed_trips", helper.make_graph(
    [const("trips", np.array(9, np.int64)),
     helper.make_node("Loop", ["trips", "", "x"], ["v", "ys"], name="loop", body=body)],
    "loop_fixed_trips", [vi("x", F32, [3]), vi("limit", F32, [])],
    [vi("v", F32, [3]), vi("ys", F32, ["k", 3])]))
save_inputs("loop_fixed_trips", "", [x, np.array(20.0, np.float32)])
# loop_runtime_trips: the same body, the trip count a graph input as well.
save("loop_runtime_trips", helper.make_graph(
    [helper.make_node("Loop", ["n", "", "x"], ["v", "ys"], name="loop", body=body)],
    "loop_runtime_trips", [vi("n", I64, []), vi("x", F32, [3]), vi("limit", F32, [])],
    [vi("v", F32, [3]), vi("ys", F32, ["k", 3])]))
for tag, trips, limit in (("n2", 2, 1e9), ("n7", 7, 20.0), ("n0", 0, 1e9)):
    save_inputs("loop_runtime_trips", tag, [np.array(trips, np.int64), x,
                                            np.array(limit, np.float32)])
# loop_while: no trip count (a while loop as TorchScript exports one: the
# condition i + 1 < n), a step of run-time size (the input's length) stacked.
body = helper.make_graph(
    [const("one", np.array(1, np.int64)),
     helper.make_node("Add", ["i", "one"], ["i1"]),
     helper.make_node("Less", ["i1", "n"], ["cond_out"]),
     helper.make_node("Cast", ["i1"], ["f1"], to=F32),
     helper.make_node("Mul", ["x", "f1"], ["y"]),
     helper.make_node("Add", ["acc_in", "y"], ["acc_out"])],
    "body", [vi("i", I64, []), vi("cond_in", BOOL, []), vi("acc_in", F32, ["d"])],
    [vi("cond_out", BOOL, []), vi("acc_out", F32, ["d"]), vi("y", F32, ["d"])])
save("loop_while", helper.make_graph(
    [const("go", np.array(True)),
     helper.make_node("Loop", ["", "go", "x"], ["acc", "ys"], name="loop", body=body)],
    "loop_while", [vi("n", I64, []), vi("x", F32, ["d"])],
    [vi("acc", F32, ["d"]), vi("ys", F32, ["k", "d"])]))
for tag, trips, d in (("n1", 1, 4), ("n6", 6, 5), ("n13", 13, 2)):
    save_inputs("loop_while", tag, [np.array(trips, np.int64),
                                     rng.standard_normal(d).astype(np.float32)])

# loop_slice_iter: ONNX's test_loop11 with its trip count and condition graph
# inputs: the body slices a constant from iter_num to iter_num + 1 (a slice
# of run-time bounds, clamped: size 1 inside the table, 0 past it) and adds
# it to a carried value the body declares of size 1; tags: 5 iterations,
# and 9, past the table (an error of the call; ONNX Runtime fails too).
body = helper.make_graph(
    [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
     const("table", np.float32([1, 2, 3, 4, 5])),
     const("one", np.array(1, np.int64)),
     helper.make_node("Add", ["i", "one"], ["end"]),
     const("axes", np.array([0], np.int64)),
     helper.make_node("Unsqueeze", ["i", "axes"], ["start1"]),
     helper.make_node("Unsqueeze", ["end", "axes"], ["end1"]),
     helper.make_node("Slice", ["table", "start1", "end1"], ["piece"]),
     helper.make_node("Add", ["y_in", "piece"], ["y_out"]),
     helper.make_node("Identity", ["y_out"], ["scan_out"])],
    "body", [vi("i", I64, []), vi("cond_in", BOOL, []), vi("y_in", F32, [1])],
    [vi("cond_out", BOOL, []), vi("y_out", F32, [1]), vi("scan_out", F32, [1])])
save("loop_slice_iter", helper.make_graph(
    [helper.make_node("Loop", ["n", "c", "y"], ["res_y", "res_scan"], name="loop", body=body)],
    "loop_slice_iter", [vi("n", I64, []), vi("c", BOOL, []), vi("y", F32, [1])],
    [vi("res_y", F32, [1]), vi("res_scan", F32, ["k", 1])]), opset=13)
for trips in (5, 9):
    save_inputs("loop_slice_iter", "n%d" % trips,
                [np.array(trips, np.int64), np.array(True), np.float32([-2])])

# --- refused ------------------------------------------------------------------
# A loop-carried value whose shape grows with each iteration, over a trip
# count known only at run time: carried as a tensor of run-time size, since
# the body declares the size symbolic.
body = helper.make_graph([helper.make_node("Concat", ["s_in", "s_in"], ["s_out"], axis=0),
                          helper.make_node("Identity", ["cond_in"], ["cond_out"])], "body",
                         [vi("i", I64, []), vi("cond_in", BOOL, []), vi("s_in", F32, ["d"])],
                         [vi("cond_out", BOOL, []), vi("s_out", F32, ["e"])])
save("loop_grows", helper.make_graph(
    [helper.make_node("Loop", ["n", "", "x"], ["v"], name="loop", body=body)],
    "loop_grows", [vi("n", I64, []), vi("x", F32, [2])], [vi("v", F32, ["k"])]))
for trips in (0, 3):
    save_inputs("loop_grows", "n%d" % trips, [np.array(trips, np.int64), np.float32([1, 2])])
# The same body declaring a size that does not change: refused.
body = helper.make_graph([helper.make_node("Concat", ["s_in", "s_in"], ["s_out"], axis=0),
                          helper.make_node("Identity", ["cond_in"], ["cond_out"])], "body",
                         [vi("i", I64, []), vi("cond_in", BOOL, []), vi("s_in", F32, [2])],
                         [vi("cond_out", BOOL, []), vi("s_out", F32, [2])])
save("loop_grows_static", helper.make_graph(
    [helper.make_node("Loop", ["n", "", "x"], ["v"], name="loop", body=body)],
    "loop_grows_static", [vi("n", I64, []), vi("x", F32, [2])], [vi("v", F32, ["k"])]))
# Branches whose outputs differ in element type: refused.
then_g = helper.make_graph([helper.make_node("Identity", ["x"], ["t"])], "then", [], [vi("t", F32, [3])])
else_g = helper.make_graph([const("e", np.int64([1, 2]))], "else", [], [vi("e", I64, [2])])
save("if_types", helper.make_graph(
    [helper.make_node("If", ["c"], ["y"], name="branch", then_branch=then_g, else_branch=else_g)],
    "if_types", [vi("c", BOOL, []), vi("x", F32, [3])], [vi("y", F32, ["n"])]))

# --- Ifs on values known only at run time: one tide.if, only the branch taken runs.
# if_sizes: the branches give outputs of different sizes (3 and 2).
then_g = helper.make_graph([helper.make_node("Identity", ["x"], ["t"])], "then", [], [vi("t", F32, [3])])
else_g = helper.make_graph([const("e", np.float32([1, 2]))], "else", [], [vi("e", F32, [2])])
save("if_sizes", helper.make_graph(
    [helper.make_node("If", ["c"], ["y"], name="branch", then_branch=then_g, else_branch=else_g)],
    "if_sizes", [vi("c", BOOL, []), vi("x", F32, [3])], [vi("y", F32, ["n"])]))
save_inputs("if_sizes", "t", [np.array(True), np.float32([4, 5, 6])])
save_inputs("if_sizes", "f", [np.array(False), np.float32([4, 5, 6])])
# if_guard: `x.reshape(2, -1).sum(0) if len(x) % 2 == 0 else -x`: the reshape
# would fail (a run-time size check) for an odd length, where it must not run.
then_g = helper.make_graph(
    [const("two_rows", np.int64([2, -1])),
     helper.make_node("Reshape", ["x", "two_rows"], ["rows"]),
     helper.make_node("ReduceSum", ["rows", "axis0"], ["t"], keepdims=0)],
    "then", [], [vi("t", F32, ["h"])])
else_g = helper.make_graph([helper.make_node("Neg", ["x"], ["e"])], "else", [], [vi("e", F32, ["n"])])
save("if_guard", helper.make_graph(
    [helper.make_node("Shape", ["x"], ["shape"]),
     const("two", np.int64([2])), const("zero", np.int64([0])), const("axis0", np.int64([0])),
     helper.make_node("Mod", ["shape", "two"], ["rem"]),
     helper.make_node("Equal", ["rem", "zero"], ["even1"]),
     helper.make_node("Squeeze", ["even1", "axis0"], ["even"]),
     helper.make_node("If", ["even"], ["y"], name="guard", then_branch=then_g, else_branch=else_g)],
    "if_guard", [vi("x", F32, ["n"])], [vi("y", F32, ["m"])]))
save_inputs("if_guard", "even", [np.float32([1, 2, 3, 4, 5, 6])])
save_inputs("if_guard", "odd", [np.float32([1, 2, 3])])
# if_in_loop: a Loop of M iterations (M a graph input) whose body halves the
# carried value once its sum passes a limit and adds x otherwise: a tide.if
# inside a tide.scan.
then_g = helper.make_graph([const("half", np.float32(0.5)), helper.make_node("Mul", ["v_in", "half"], ["t"])],
                           "then", [], [vi("t", F32, [3])])
else_g = helper.make_graph([helper.make_node("Add", ["v_in", "x"], ["e"])], "else", [], [vi("e", F32, [3])])
body = helper.make_graph(
    [helper.make_node("ReduceSum", ["v_in"], ["total"], keepdims=0),
     helper.make_node("Greater", ["total", "limit"], ["big"]),
     helper.make_node("If", ["big"], ["v_out"], name="inner", then_branch=then_g, else_branch=else_g),
     helper.make_node("Identity", ["cond_in"], ["cond_out"])],
    "body", [vi("i", I64, []), vi("cond_in", BOOL, []), vi("v_in", F32, [3])],
    [vi("cond_out", BOOL, []), vi("v_out", F32, [3])])
save("if_in_loop", helper.make_graph(
    [helper.make_node("Loop", ["n", "", "x"], ["v"], name="loop", body=body)],
    "if_in_loop", [vi("n", I64, []), vi("x", F32, [3]), vi("limit", F32, [])], [vi("v", F32, [3])]))
save_inputs("if_in_loop", "n9", [np.array(9, np.int64), np.float32([1, 2, 3]), np.array(20, np.float32)])
save_inputs("if_in_loop", "n0", [np.array(0, np.int64), np.float32([1, 2, 3]), np.array(20, np.float32)])
# loop_in_if: the then branch is a Loop of M iterations (a tide.scan inside a
# tide.if), the else branch a Neg.
body = helper.make_graph(
    [const("one", np.float32(1)), helper.make_node("Add", ["v_in", "one"], ["v_out"]),
     helper.make_node("Identity", ["cond_in"], ["cond_out"])],
    "body", [vi("i", I64, []), vi("cond_in", BOOL, []), vi("v_in", F32, [3])],
    [vi("cond_out", BOOL, []), vi("v_out", F32, [3])])
then_g = helper.make_graph([helper.make_node("Loop", ["n", "", "x"], ["t"], name="loop", body=body)],
                           "then", [], [vi("t", F32, [3])])
else_g = helper.make_graph([helper.make_node("Neg", ["x"], ["e"])], "else", [], [vi("e", F32, [3])])
save("loop_in_if", helper.make_graph(
    [helper.make_node("If", ["c"], ["y"], name="branch", then_branch=then_g, else_branch=else_g)],
    "loop_in_if", [vi("c", BOOL, []), vi("n", I64, []), vi("x", F32, [3])], [vi("y", F32, [3])]))
save_inputs("loop_in_if", "t", [np.array(True), np.array(4, np.int64), np.float32([1, 2, 3])])
save_inputs("loop_in_if", "f", [np.array(False), np.array(4, np.int64), np.float32([1, 2, 3])])
# if_shared / loop_shared: an outer constant and an outer Shape read in both
# branches, inside a loop's body and after the If or Loop (each region
# materializes its own; a value built inside one was read outside it before).
then_g = helper.make_graph([helper.make_node("Add", ["x", "k"], ["t0"]),
                            helper.make_node("Shape", ["x"], ["ts"]),
                            helper.make_node("Cast", ["ts"], ["tsf"], to=F32),
                            helper.make_node("Add", ["t0", "tsf"], ["t"])],
                           "then", [], [vi("t", F32, [3])])
else_g = helper.make_graph([helper.make_node("Mul", ["x", "k"], ["e0"]),
                            helper.make_node("Cast", ["xs"], ["xsf"], to=F32),
                            helper.make_node("Sub", ["e0", "xsf"], ["e"])],
                           "else", [], [vi("e", F32, [3])])
save("if_shared", helper.make_graph(
    [const("k", np.float32([1, 2, 3])), helper.make_node("Shape", ["x"], ["xs"]),
     helper.make_node("If", ["c"], ["y0"], name="branch", then_branch=then_g, else_branch=else_g),
     helper.make_node("Mul", ["y0", "k"], ["y1"]),
     helper.make_node("Cast", ["xs"], ["xsf2"], to=F32),
     helper.make_node("Add", ["y1", "xsf2"], ["y"])],
    "if_shared", [vi("c", BOOL, []), vi("x", F32, [3])], [vi("y", F32, [3])]))
save_inputs("if_shared", "t", [np.array(True), np.float32([4, 5, 6])])
save_inputs("if_shared", "f", [np.array(False), np.float32([4, 5, 6])])
body = helper.make_graph(
    [helper.make_node("Add", ["v_in", "k"], ["v_out"]),
     helper.make_node("Identity", ["cond_in"], ["cond_out"])],
    "body", [vi("i", I64, []), vi("cond_in", BOOL, []), vi("v_in", F32, [3])],
    [vi("cond_out", BOOL, []), vi("v_out", F32, [3])])
save("loop_shared", helper.make_graph(
    [const("k", np.float32([1, 2, 3])),
     helper.make_node("Loop", ["n", "", "x"], ["v"], name="loop", body=body),
     helper.make_node("Mul", ["v", "k"], ["y"])],
    "loop_shared", [vi("n", I64, []), vi("x", F32, [3])], [vi("y", F32, [3])]))
save_inputs("loop_shared", "n3", [np.array(3, np.int64), np.float32([1, 1, 1])])
# --- shadowing: a body's inputs and initializers named as outer values ------
# Inside the body they are the body's; after the Loop, Scan or If the outer
# value again (the last iteration's input, or the branch's initializer, was
# read after it before).
body = helper.make_graph(
    [helper.make_node("Identity", ["c_in"], ["c_out"]),
     helper.make_node("Add", ["x", "x"], ["x_out"])],
    "body", [vi("i", I64, []), vi("c_in", BOOL, []), vi("x", F32, [3])],
    [vi("c_out", BOOL, []), vi("x_out", F32, [3])])
save("loop_shadow", helper.make_graph(
    [const("trips", np.array(2, np.int64)),
     helper.make_node("Loop", ["trips", "", "x"], ["lo"], name="loop", body=body),
     helper.make_node("Add", ["lo", "x"], ["y"])],
    "loop_shadow", [vi("x", F32, [3])], [vi("y", F32, [3])]))
save_inputs("loop_shadow", "", [np.float32([1, 2, 3])])
# The same over a run-time trip count, the body's input named as an outer
# initializer (one tide.scan).
body = helper.make_graph(
    [helper.make_node("Identity", ["c_in"], ["c_out"]),
     helper.make_node("Add", ["k", "k"], ["k_out"])],
    "body", [vi("i", I64, []), vi("c_in", BOOL, []), vi("k", F32, [3])],
    [vi("c_out", BOOL, []), vi("k_out", F32, [3])])
save("loop_shadow_dyn", helper.make_graph(
    [helper.make_node("Loop", ["n", "", "x"], ["lo"], name="loop", body=body),
     helper.make_node("Add", ["lo", "k"], ["y"])],
    "loop_shadow_dyn", [vi("n", I64, []), vi("x", F32, [3])], [vi("y", F32, [3])],
    [numpy_helper.from_array(np.float32([10, 20, 30]), "k")]))
save_inputs("loop_shadow_dyn", "", [np.array(3, np.int64), np.float32([1, 2, 3])])
body = helper.make_graph(
    [helper.make_node("Add", ["s", "x"], ["s_out"]),
     helper.make_node("Identity", ["x"], ["o"])],
    "body", [vi("s", F32, [3]), vi("x", F32, [3])],
    [vi("s_out", F32, [3]), vi("o", F32, [3])])
save("scan_shadow", helper.make_graph(
    [helper.make_node("Scan", ["s0", "x"], ["sf", "ys"], name="scan", body=body, num_scan_inputs=1),
     helper.make_node("Add", ["sf", "x"], ["y"])],
    "scan_shadow", [vi("s0", F32, [3]), vi("x", F32, [2, 3])],
    [vi("y", F32, [2, 3]), vi("ys", F32, [2, 3])]))
save_inputs("scan_shadow", "", [np.ones(3, np.float32), np.arange(6, dtype=np.float32).reshape(2, 3)])
body = helper.make_graph(
    [helper.make_node("Identity", ["c_in"], ["c_out"]),
     helper.make_node("Add", ["v", "w"], ["v_out"])],
    "body", [vi("i", I64, []), vi("c_in", BOOL, []), vi("v", F32, [3])],
    [vi("c_out", BOOL, []), vi("v_out", F32, [3])],
    [numpy_helper.from_array(np.float32([1, 1, 1]), "w")])
save("loop_init_shadow", helper.make_graph(
    [const("trips", np.array(2, np.int64)),
     helper.make_node("Loop", ["trips", "", "x"], ["lo"], name="loop", body=body),
     helper.make_node("Add", ["lo", "w"], ["y"])],
    "loop_init_shadow", [vi("x", F32, [3])], [vi("y", F32, [3])],
    [numpy_helper.from_array(np.float32([10, 10, 10]), "w")]))
save_inputs("loop_init_shadow", "", [np.float32([1, 2, 3])])
then_g = helper.make_graph([helper.make_node("Identity", ["x"], ["t"])], "then", [],
                           [vi("t", F32, [3])], [numpy_helper.from_array(np.float32([100] * 3), "w")])
else_g = helper.make_graph([helper.make_node("Neg", ["x"], ["e"])], "else", [], [vi("e", F32, [3])])
save("if_init_shadow", helper.make_graph(
    [helper.make_node("If", ["c"], ["r"], name="branch", then_branch=then_g, else_branch=else_g),
     helper.make_node("Add", ["r", "w"], ["y"])],
    "if_init_shadow", [vi("c", BOOL, []), vi("x", F32, [3])], [vi("y", F32, [3])],
    [numpy_helper.from_array(np.float32([10, 10, 10]), "w")]))
save_inputs("if_init_shadow", "t", [np.array(True), np.float32([1, 2, 3])])
save_inputs("if_init_shadow", "f", [np.array(False), np.float32([1, 2, 3])])
# --- loop_nocarry: a Loop of no loop-carried values, only a scan output (its
# absent condition a trailing empty name), of a constant and a run-time trip
# count.
body = helper.make_graph(
    [helper.make_node("Identity", ["c"], ["co"]),
     helper.make_node("Cast", ["i"], ["fi"], to=F32),
     helper.make_node("Mul", ["x", "fi"], ["sc"])],
    "body", [vi("i", I64, []), vi("c", BOOL, [])], [vi("co", BOOL, []), vi("sc", F32, [4])])
save("loop_nocarry", helper.make_graph(
    [const("m", np.array(3, np.int64)), helper.make_node("Loop", ["m", ""], ["ss"], name="loop", body=body)],
    "loop_nocarry", [vi("x", F32, [4])], [vi("ss", F32, [3, 4])]))
save_inputs("loop_nocarry", "", [np.float32([1, -2, 3, 0.5])])
save("loop_nocarry_dyn", helper.make_graph(
    [helper.make_node("Loop", ["m", ""], ["ss"], name="loop", body=body)],
    "loop_nocarry_dyn", [vi("m", I64, []), vi("x", F32, [4])], [vi("ss", F32, ["N", 4])]))
save_inputs("loop_nocarry_dyn", "", [np.array(5, np.int64), np.float32([1, -2, 3, 0.5])])
# --- scan_len_mismatch: two scan inputs the model says have one length "L",
# one scanned in reverse, given 6 and 2 rows: a run-time error (the reversal
# read clamped positions of the shorter before).
body = helper.make_graph(
    [helper.make_node("Add", ["s_in", "a"], ["t"]), helper.make_node("Add", ["t", "b"], ["s_out"]),
     helper.make_node("Identity", ["b"], ["yb"])],
    "body", [vi("s_in", F32, [4]), vi("a", F32, [4]), vi("b", F32, [4])],
    [vi("s_out", F32, [4]), vi("yb", F32, [4])])
save("scan_len_mismatch", helper.make_graph(
    [helper.make_node("Scan", ["s0", "xa", "xb"], ["s", "y"], name="scan", num_scan_inputs=2,
                      scan_input_directions=[0, 1], body=body)],
    "scan_len_mismatch", [vi("s0", F32, [4]), vi("xa", F32, ["L", 4]), vi("xb", F32, ["L", 4])],
    [vi("s", F32, [4]), vi("y", F32, ["L", 4])]), opset=16)
save_inputs("scan_len_mismatch", "", [np.zeros(4, np.float32), np.ones((6, 4), np.float32),
                                      np.full((2, 4), 2, np.float32)])
