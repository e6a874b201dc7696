#!/usr/bin/env python3
"""Writes the RNN/GRU/LSTM models of rnn.test into OUTDIR, with their inputs
(NAME_in0.npy, NAME_in1.npy, ... in graph-input order): attribute
combinations beyond the ONNX test data, compared with ONNX Runtime there.

    make_rnn_models.py OUTDIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(11)


def save(name, node, inputs, outputs, check=True, feeds=()):
    graph = helper.make_graph([node], name, inputs, outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    if check:
        onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, name + ".onnx"))
    for k, v in enumerate(feeds):
        np.save(os.path.join(out, "%s_in%d.npy" % (name, k)), v)
    if any(a.name == "layout" and a.i == 1 for a in node.attribute):
        save_time_major_twin(name, node, inputs, outputs)


def save_time_major_twin(name, node, inputs, outputs):
    """ONNX Runtime runs only layout 0: NAME_ref.onnx is the same node with
    layout 0 between transposes, for tide_vs_ort.py to run there."""
    twin = onnx.NodeProto()
    twin.CopyFrom(node)
    for a in twin.attribute:
        if a.name == "layout":
            a.i = 0
    nodes = []
    # X [B, T, I] and the initial states [B, D, H] become time/direction-major.
    for k, i in enumerate(twin.input):
        if k in (0, 5, 6) and i:
            nodes.append(helper.make_node("Transpose", [i], [i + "_t"], perm=[1, 0, 2]))
            twin.input[k] = i + "_t"
    # Y [T, D, B, H] -> [B, T, D, H]; Y_h, Y_c [D, B, H] -> [B, D, H].
    posts = []
    for k, o in enumerate(twin.output):
        if o:
            perm = [2, 0, 1, 3] if k == 0 else [1, 0, 2]
            posts.append(helper.make_node("Transpose", [o + "_t"], [o], perm=perm))
            twin.output[k] = o + "_t"
    graph = helper.make_graph(nodes + [twin] + posts, name + "_ref", inputs, outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, name + "_ref.onnx"))


def f32(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def i32(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.INT32, shape)


def rand(*shape):
    return rng.uniform(-1, 1, shape).astype(np.float32)


# LSTM, bidirectional, every input (bias, sequence lengths that end early,
# initial states, peepholes), clip, all three outputs.
T, B, I, H = 4, 3, 5, 6
save("lstm_bidi",
     helper.make_node("LSTM", ["X", "W", "R", "B", "L", "h0", "c0", "P"],
                      ["Y", "Y_h", "Y_c"], name="lstm", hidden_size=H,
                      direction="bidirectional", clip=0.9),
     [f32("X", [T, B, I]), f32("W", [2, 4 * H, I]), f32("R", [2, 4 * H, H]),
      f32("B", [2, 8 * H]), i32("L", [B]), f32("h0", [2, B, H]),
      f32("c0", [2, B, H]), f32("P", [2, 3 * H])],
     [f32("Y", [T, 2, B, H]), f32("Y_h", [2, B, H]), f32("Y_c", [2, B, H])],
     feeds=[rand(T, B, I), rand(2, 4 * H, I), rand(2, 4 * H, H), rand(2, 8 * H),
            np.array([4, 2, 3], np.int32), rand(2, B, H), rand(2, B, H),
            rand(2, 3 * H)])

# LSTM, reverse, batch-major (layout 1), input_forget, other activations
# with alpha and beta.
save("lstm_rev",
     helper.make_node("LSTM", ["X", "W", "R", "B"], ["Y", "Y_h", "Y_c"],
                      name="lstm", hidden_size=H, direction="reverse", layout=1,
                      input_forget=1,
                      activations=["HardSigmoid", "ScaledTanh", "Affine"],
                      activation_alpha=[0.3, 0.8, 1.5],
                      activation_beta=[0.4, 1.2, -0.1]),
     [f32("X", [B, T, I]), f32("W", [1, 4 * H, I]), f32("R", [1, 4 * H, H]),
      f32("B", [1, 8 * H])],
     [f32("Y", [B, T, 1, H]), f32("Y_h", [B, 1, H]), f32("Y_c", [B, 1, H])],
     feeds=[rand(B, T, I), rand(1, 4 * H, I), rand(1, 4 * H, H), rand(1, 8 * H)])

# GRU, reverse, linear_before_reset, sequence lengths, an initial state.
save("gru_lbr",
     helper.make_node("GRU", ["X", "W", "R", "B", "L", "h0"], ["Y", "Y_h"],
                      name="gru", hidden_size=H, direction="reverse",
                      linear_before_reset=1),
     [f32("X", [T, B, I]), f32("W", [1, 3 * H, I]), f32("R", [1, 3 * H, H]),
      f32("B", [1, 6 * H]), i32("L", [B]), f32("h0", [1, B, H])],
     [f32("Y", [T, 1, B, H]), f32("Y_h", [1, B, H])],
     feeds=[rand(T, B, I), rand(1, 3 * H, I), rand(1, 3 * H, H), rand(1, 6 * H),
            np.array([1, 4, 3], np.int32), rand(1, B, H)])

# GRU, bidirectional, batch-major, clip, Softsign / Elu activations.
save("gru_bidi",
     helper.make_node("GRU", ["X", "W", "R", "B"], ["Y", "Y_h"], name="gru",
                      hidden_size=H, direction="bidirectional", layout=1,
                      clip=0.5, activations=["Sigmoid", "Softsign", "Sigmoid",
                                             "Elu"],
                      activation_alpha=[0.7]),
     [f32("X", [B, T, I]), f32("W", [2, 3 * H, I]), f32("R", [2, 3 * H, H]),
      f32("B", [2, 6 * H])],
     [f32("Y", [B, T, 2, H]), f32("Y_h", [B, 2, H])],
     feeds=[rand(B, T, I), rand(2, 3 * H, I), rand(2, 3 * H, H), rand(2, 6 * H)])

# RNN, bidirectional, Relu forward and LeakyRelu backward.
save("rnn_bidi",
     helper.make_node("RNN", ["X", "W", "R", "B", "", "h0"], ["Y", "Y_h"],
                      name="rnn", hidden_size=H, direction="bidirectional",
                      activations=["Relu", "LeakyRelu"],
                      activation_alpha=[0.2]),
     [f32("X", [T, B, I]), f32("W", [2, H, I]), f32("R", [2, H, H]),
      f32("B", [2, 2 * H]), f32("h0", [2, B, H])],
     [f32("Y", [T, 2, B, H]), f32("Y_h", [2, B, H])],
     feeds=[rand(T, B, I), rand(2, H, I), rand(2, H, H), rand(2, 2 * H),
            rand(2, B, H)])

# A batch known only at run time ("N"), each model run at two batch sizes
# (NAME_bK_in*.npy): LSTM with every input, GRU batch-major, RNN with a
# run-time input size too (W's, checked at run time).
def save_batches(name, feeds_of):
    for b in (1, 5):
        for k, v in enumerate(feeds_of(b)):
            np.save(os.path.join(out, "%s_b%d_in%d.npy" % (name, b, k)), v)


save("lstm_dynbatch",
     helper.make_node("LSTM", ["X", "W", "R", "B", "L", "h0", "c0", "P"],
                      ["Y", "Y_h", "Y_c"], name="lstm", hidden_size=H,
                      direction="bidirectional", clip=0.9),
     [f32("X", [T, "N", I]), f32("W", [2, 4 * H, I]), f32("R", [2, 4 * H, H]),
      f32("B", [2, 8 * H]), i32("L", ["N"]), f32("h0", [2, "N", H]),
      f32("c0", [2, "N", H]), f32("P", [2, 3 * H])],
     [f32("Y", [T, 2, "N", H]), f32("Y_h", [2, "N", H]),
      f32("Y_c", [2, "N", H])])
save_batches("lstm_dynbatch", lambda b: [
    rand(T, b, I), rand(2, 4 * H, I), rand(2, 4 * H, H), rand(2, 8 * H),
    rng.integers(1, T + 1, b).astype(np.int32), rand(2, b, H), rand(2, b, H),
    rand(2, 3 * H)])
save("gru_dynbatch",
     helper.make_node("GRU", ["X", "W", "R", "B"], ["Y", "Y_h"], name="gru",
                      hidden_size=H, direction="bidirectional", layout=1),
     [f32("X", ["N", T, I]), f32("W", [2, 3 * H, I]), f32("R", [2, 3 * H, H]),
      f32("B", [2, 6 * H])],
     [f32("Y", ["N", T, 2, H]), f32("Y_h", ["N", 2, H])])
save_batches("gru_dynbatch", lambda b: [
    rand(b, T, I), rand(2, 3 * H, I), rand(2, 3 * H, H), rand(2, 6 * H)])
save("rnn_dynbatch",
     helper.make_node("RNN", ["X", "W", "R"], ["Y", "Y_h"], name="rnn",
                      hidden_size=H),
     [f32("X", [T, "N", "I"]), f32("W", [1, H, I]), f32("R", [1, H, H])],
     [f32("Y", [T, 1, "N", H]), f32("Y_h", [1, "N", H])])
save_batches("rnn_dynbatch", lambda b: [
    rand(T, b, I), rand(1, H, I), rand(1, H, H)])

# A sequence length known only at run time ("T"; a tide.scan), each model
# run at lengths 1, 4 and 7 (NAME_sK_in*.npy): LSTM bidirectional with every
# input and a run-time batch, GRU batch-major with linear_before_reset, RNN
# reverse.
def save_lengths(name, feeds_of):
    for t in (1, 4, 7):
        for k, v in enumerate(feeds_of(t)):
            np.save(os.path.join(out, "%s_s%d_in%d.npy" % (name, t, k)), v)


save("lstm_dynseq",
     helper.make_node("LSTM", ["X", "W", "R", "B", "L", "h0", "c0", "P"],
                      ["Y", "Y_h", "Y_c"], name="lstm", hidden_size=H,
                      direction="bidirectional", clip=0.9),
     [f32("X", ["T", "N", I]), f32("W", [2, 4 * H, I]), f32("R", [2, 4 * H, H]),
      f32("B", [2, 8 * H]), i32("L", ["N"]), f32("h0", [2, "N", H]),
      f32("c0", [2, "N", H]), f32("P", [2, 3 * H])],
     [f32("Y", ["T", 2, "N", H]), f32("Y_h", [2, "N", H]),
      f32("Y_c", [2, "N", H])])
save_lengths("lstm_dynseq", lambda t: [
    rand(t, 3, I), rand(2, 4 * H, I), rand(2, 4 * H, H), rand(2, 8 * H),
    rng.integers(1, t + 1, 3).astype(np.int32), rand(2, 3, H), rand(2, 3, H),
    rand(2, 3 * H)])
save("gru_dynseq",
     helper.make_node("GRU", ["X", "W", "R", "B"], ["Y", "Y_h"], name="gru",
                      hidden_size=H, linear_before_reset=1, layout=1),
     [f32("X", [B, "T", I]), f32("W", [1, 3 * H, I]), f32("R", [1, 3 * H, H]),
      f32("B", [1, 6 * H])],
     [f32("Y", [B, "T", 1, H]), f32("Y_h", [B, 1, H])])
save_lengths("gru_dynseq", lambda t: [
    rand(B, t, I), rand(1, 3 * H, I), rand(1, 3 * H, H), rand(1, 6 * H)])
save("rnn_dynseq",
     helper.make_node("RNN", ["X", "W", "R"], ["Y", "Y_h"], name="rnn",
                      hidden_size=H, direction="reverse"),
     [f32("X", ["T", B, I]), f32("W", [1, H, I]), f32("R", [1, H, H])],
     [f32("Y", ["T", 1, B, H]), f32("Y_h", [1, B, H])])
save_lengths("rnn_dynseq", lambda t: [
    rand(t, B, I), rand(1, H, I), rand(1, H, H)])

# A sequence of length 0 (batch entry 0) ends in zero states, not the
# initial ones: unrolled, and over a run-time length (tag z4).
save("lstm_len0",
     helper.make_node("LSTM", ["X", "W", "R", "B", "L", "h0", "c0"],
                      ["Y", "Y_h", "Y_c"], name="lstm", hidden_size=H,
                      direction="bidirectional"),
     [f32("X", [T, B, I]), f32("W", [2, 4 * H, I]), f32("R", [2, 4 * H, H]),
      f32("B", [2, 8 * H]), i32("L", [B]), f32("h0", [2, B, H]),
      f32("c0", [2, B, H])],
     [f32("Y", [T, 2, B, H]), f32("Y_h", [2, B, H]), f32("Y_c", [2, B, H])],
     feeds=[rand(T, B, I), rand(2, 4 * H, I), rand(2, 4 * H, H), rand(2, 8 * H),
            np.array([0, 2, 4], np.int32), rand(2, B, H), rand(2, B, H)])
for k, v in enumerate([rand(4, 3, I), rand(2, 4 * H, I), rand(2, 4 * H, H), rand(2, 8 * H),
                       np.array([0, 3, 4], np.int32), rand(2, 3, H), rand(2, 3, H),
                       rand(2, 3 * H)]):
    np.save(os.path.join(out, "lstm_dynseq_z4_in%d.npy" % k), v)
# Lengths past the sequence: a run-time error (ONNX Runtime's too).
for k, v in enumerate([rand(T, B, I), rand(2, 4 * H, I), rand(2, 4 * H, H), rand(2, 8 * H),
                       np.array([5, 2, 4], np.int32), rand(2, B, H), rand(2, B, H)]):
    np.save(os.path.join(out, "lstm_len0_long_in%d.npy" % k), v)
# A long static sequence (40 steps, past the 32 unrolled): one tide.scan per
# direction, with sequence lengths and initial states.
save("lstm_long",
     helper.make_node("LSTM", ["X", "W", "R", "B", "L", "h0", "c0", "P"],
                      ["Y", "Y_h", "Y_c"], name="lstm", hidden_size=H,
                      direction="bidirectional"),
     [f32("X", [40, B, I]), f32("W", [2, 4 * H, I]), f32("R", [2, 4 * H, H]),
      f32("B", [2, 8 * H]), i32("L", [B]), f32("h0", [2, B, H]),
      f32("c0", [2, B, H]), f32("P", [2, 3 * H])],
     [f32("Y", [40, 2, B, H]), f32("Y_h", [2, B, H]), f32("Y_c", [2, B, H])],
     feeds=[rand(40, B, I), rand(2, 4 * H, I), rand(2, 4 * H, H), rand(2, 8 * H),
            np.array([40, 17, 0], np.int32), rand(2, B, H), rand(2, B, H),
            rand(2, 3 * H)])
# Affine, ScaledTanh and ThresholdedRelu without alpha and beta: ONNX leaves
# the defaults open; ONNX Runtime's are 0.
save("rnn_acts_default",
     helper.make_node("RNN", ["X", "W", "R", "B"], ["Y", "Y_h"], name="rnn",
                      hidden_size=H, direction="bidirectional",
                      activations=["Affine", "ScaledTanh"]),
     [f32("X", [T, B, I]), f32("W", [2, H, I]), f32("R", [2, H, H]), f32("B", [2, 2 * H])],
     [f32("Y", [T, 2, B, H]), f32("Y_h", [2, B, H])],
     feeds=[rand(T, B, I), rand(2, H, I), rand(2, H, H), rand(2, 2 * H)])
save("rnn_thresholded_default",
     helper.make_node("RNN", ["X", "W", "R"], ["Y", "Y_h"], name="rnn",
                      hidden_size=H, activations=["ThresholdedRelu"]),
     [f32("X", [T, B, I]), f32("W", [1, H, I]), f32("R", [1, H, H])],
     [f32("Y", [T, 1, B, H]), f32("Y_h", [1, B, H])],
     feeds=[rand(T, B, I) * 3, rand(1, H, I), rand(1, H, H)])
# Optional inputs declared with symbolic sizes where X's are static.
save("gru_symbolic_state",
     helper.make_node("GRU", ["X", "W", "R", "B", "", "h0"], ["Y", "Y_h"], name="gru",
                      hidden_size=H),
     [f32("X", [T, B, I]), f32("W", [1, 3 * H, I]), f32("R", [1, 3 * H, H]),
      f32("B", ["d", 6 * H]), f32("h0", [1, "b", H])],
     [f32("Y", [T, 1, B, H]), f32("Y_h", [1, B, H])],
     feeds=[rand(T, B, I), rand(1, 3 * H, I), rand(1, 3 * H, H), rand(1, 6 * H),
            rand(1, B, H)])

# Errors: an unknown activation, a bad direction, the wrong number of
# activations.
save("rnn_gelu",
     helper.make_node("RNN", ["X", "W", "R"], ["Y"], name="rnn", hidden_size=H,
                      activations=["Gelu"]),
     [f32("X", [T, B, I]), f32("W", [1, H, I]), f32("R", [1, H, H])],
     [f32("Y", [T, 1, B, H])], check=False)
save("gru_sideways",
     helper.make_node("GRU", ["X", "W", "R"], ["Y"], name="gru", hidden_size=H,
                      direction="sideways"),
     [f32("X", [T, B, I]), f32("W", [1, 3 * H, I]), f32("R", [1, 3 * H, H])],
     [f32("Y", [T, 1, B, H])], check=False)
save("lstm_acts",
     helper.make_node("LSTM", ["X", "W", "R"], ["Y"], name="lstm",
                      hidden_size=H, activations=["Sigmoid", "Tanh"]),
     [f32("X", [T, B, I]), f32("W", [1, 4 * H, I]), f32("R", [1, 4 * H, H])],
     [f32("Y", [T, 1, B, H])], check=False)
