#!/usr/bin/env python3
"""Writes the models of training.test into OUTDIR with inputs (NAME_inK.npy)
and expected outputs (NAME_wantK.npy) computed in NumPy from the
specification's update rules: Nesterov Momentum over two f64 tensors after
the first step, Adam with bias correction and norm_coefficient_post, Adagrad
with decay, an f16 BatchNormalization in training mode; and the malformed
nodes of the error checks.

    make_training_models.py OUTDIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(3)
TRAIN = "ai.onnx.preview.training"
F, D, H, I64 = TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.FLOAT16, TensorProto.INT64


def save(name, node, inputs, outputs, feeds, wants, opset=17, training=True):
    graph = helper.make_graph([node], name, inputs, outputs)
    opsets = [helper.make_opsetid("", opset)]
    if training:
        opsets.append(helper.make_opsetid(TRAIN, 1))
    model = helper.make_model(graph, opset_imports=opsets)
    model.ir_version = 8
    onnx.save(model, os.path.join(out, name + ".onnx"))
    for k, a in enumerate(feeds):
        np.save(os.path.join(out, "%s_in%d.npy" % (name, k)), a)
    for k, a in enumerate(wants):
        np.save(os.path.join(out, "%s_want%d.npy" % (name, k)), a)


def info(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def scalar_inputs():
    return [info("R", F, []), info("T", I64, [])]


# Nesterov momentum, two f64 tensors, T = 3 (beta applies).
r, t = np.array(0.05, np.float32), np.array(3, np.int64)
xs = [rng.standard_normal((3, 4)), rng.standard_normal(5)]
gs = [rng.standard_normal(x.shape) for x in xs]
vs = [rng.standard_normal(x.shape) for x in xs]
# Attributes are f32 in ONNX: the reference uses the values the node holds.
f32 = lambda *v: [float(np.float32(a)) for a in v]  # noqa: E731
alpha, beta, norm = f32(0.9, 0.7, 0.01)
wants_x, wants_v = [], []
for x, g, v in zip(xs, gs, vs):
    greg = norm * x + g
    v_new = alpha * v + beta * greg
    wants_x.append(x - np.float64(r) * (greg + alpha * v_new))
    wants_v.append(v_new)
shapes = [[3, 4], [5]]
save("nesterov", helper.make_node(
        "Momentum", ["R", "T", "X1", "X2", "G1", "G2", "V1", "V2"],
        ["X1n", "X2n", "V1n", "V2n"], domain=TRAIN, alpha=alpha, beta=beta,
        norm_coefficient=norm, mode="nesterov"),
     scalar_inputs() + [info(n, D, s) for n, s in
                        zip(["X1", "X2", "G1", "G2", "V1", "V2"], shapes * 3)],
     [info(n, D, s) for n, s in zip(["X1n", "X2n", "V1n", "V2n"], shapes * 2)],
     [r, t] + xs + gs + vs, wants_x + wants_v)

# Adam, f64, T = 5: bias correction; norm_coefficient_post.
r, t = np.array(0.1, np.float32), np.array(5, np.int64)
x, g = rng.standard_normal(6), rng.standard_normal(6)
v, h = rng.standard_normal(6), rng.uniform(0.1, 1.0, 6)
alpha, beta, eps, norm, post = f32(0.9, 0.99, 1e-3, 0.02, 0.1)
greg = norm * x + g
v_new = alpha * v + (1 - alpha) * greg
h_new = beta * h + (1 - beta) * greg * greg
rate = np.float64(r) * np.sqrt(1 - beta ** 5) / (1 - alpha ** 5)
x_new = (1 - post) * (x - rate * (v_new / (np.sqrt(h_new) + eps)))
save("adam", helper.make_node(
        "Adam", ["R", "T", "X", "G", "V", "H"], ["Xn", "Vn", "Hn"], domain=TRAIN,
        alpha=alpha, beta=beta, epsilon=eps, norm_coefficient=norm,
        norm_coefficient_post=post),
     scalar_inputs() + [info(n, D, [6]) for n in "XGVH"],
     [info(n, D, [6]) for n in ["Xn", "Vn", "Hn"]],
     [r, t, x, g, v, h], [x_new, v_new, h_new])

# Adagrad, f32, T = 4, decay.
r, t = np.array(0.2, np.float32), np.array(4, np.int64)
x, g = rng.standard_normal((2, 3)).astype(np.float32), rng.standard_normal((2, 3)).astype(np.float32)
h = rng.uniform(0.0, 1.0, (2, 3)).astype(np.float32)
decay, eps, norm = f32(0.1, 1e-6, 0.001)
greg = norm * x.astype(np.float64) + g
h_new = h + greg * greg
x_new = x - (np.float64(r) / (1 + 4 * decay)) * greg / (np.sqrt(h_new) + eps)
save("adagrad", helper.make_node(
        "Adagrad", ["R", "T", "X", "G", "H"], ["Xn", "Hn"], domain=TRAIN,
        decay_factor=decay, epsilon=eps, norm_coefficient=norm),
     scalar_inputs() + [info(n, F, [2, 3]) for n in "XGH"],
     [info(n, F, [2, 3]) for n in ["Xn", "Hn"]],
     [r, t, x, g, h], [x_new.astype(np.float32), h_new.astype(np.float32)])

# BatchNormalization in training mode (opset 15), f16 data.
x = rng.standard_normal((4, 3, 5)).astype(np.float16)
scale, bias = rng.standard_normal(3).astype(np.float16), rng.standard_normal(3).astype(np.float16)
mean, var = rng.standard_normal(3).astype(np.float16), rng.uniform(0.5, 2, 3).astype(np.float16)
xf = x.astype(np.float32)
bm, bv = xf.mean(axis=(0, 2)), xf.var(axis=(0, 2))
y = (xf - bm[None, :, None]) / np.sqrt(bv[None, :, None] + 1e-3) * scale.astype(np.float32)[None, :, None] \
    + bias.astype(np.float32)[None, :, None]
save("bn_train", helper.make_node(
        "BatchNormalization", ["x", "s", "b", "m", "v"], ["y", "rm", "rv"], epsilon=1e-3,
        momentum=0.8, training_mode=1),
     [info("x", H, [4, 3, 5])] + [info(n, H, [3]) for n in "sbmv"],
     [info("y", H, [4, 3, 5]), info("rm", H, [3]), info("rv", H, [3])],
     [x, scale, bias, mean, var],
     [y.astype(np.float16), (mean.astype(np.float32) * 0.8 + bm * 0.2).astype(np.float16),
      (var.astype(np.float32) * 0.8 + bv * 0.2).astype(np.float16)], opset=15, training=False)

# Errors.
save("bad_mode", helper.make_node(
        "Momentum", ["R", "T", "X", "G", "V"], ["Xn", "Vn"], name="opt", domain=TRAIN,
        alpha=0.9, beta=0.1, norm_coefficient=0.0, mode="heavy"),
     scalar_inputs() + [info(n, F, [2]) for n in "XGV"], [info("Xn", F, [2]), info("Vn", F, [2])],
     [], [])
save("bad_count", helper.make_node(
        "Adam", ["R", "T", "X", "G", "V"], ["Xn"], name="opt", domain=TRAIN),
     scalar_inputs() + [info(n, F, [2]) for n in "XGV"], [info("Xn", F, [2])], [], [])
save("bad_state", helper.make_node(
        "Adagrad", ["R", "T", "X", "G", "H"], ["Xn", "Hn"], name="opt", domain=TRAIN),
     scalar_inputs() + [info("X", F, [2]), info("G", F, [2]), info("H", F, [3])],
     [info("Xn", F, [2]), info("Hn", F, [3])], [], [])

# Adagrad and Adam without epsilon: the schema's default 1e-6 (0 before: a
# zero gradient over a zero accumulator gave 0 / 0).
r, t = np.array(0.2, np.float32), np.array(0, np.int64)
x = np.array([0.5, -1.0, 2.0], np.float32)
g = np.array([0.0, 0.0, 0.5], np.float32)
h = np.array([0.0, 0.0, 0.25], np.float32)
h_new = h.astype(np.float64) + g.astype(np.float64) ** 2
x_new = x - np.float64(r) * g / (np.sqrt(h_new) + np.float64(np.float32(1e-6)))
save("adagrad_default_eps", helper.make_node(
        "Adagrad", ["R", "T", "X", "G", "H"], ["Xn", "Hn"], domain=TRAIN),
     scalar_inputs() + [info(n, F, [3]) for n in "XGH"],
     [info(n, F, [3]) for n in ["Xn", "Hn"]],
     [r, t, x, g, h], [x_new.astype(np.float32), h_new.astype(np.float32)])
v = np.zeros(3, np.float32)
alpha, beta = 0.9, 0.999
v_new = alpha * v + (1 - alpha) * g.astype(np.float64)
hh_new = beta * h + (1 - beta) * g.astype(np.float64) ** 2
x_new = x - np.float64(r) * v_new / (np.sqrt(hh_new) + np.float64(np.float32(1e-6)))
save("adam_default_eps", helper.make_node(
        "Adam", ["R", "T", "X", "G", "V", "H"], ["Xn", "Vn", "Hn"], domain=TRAIN),
     scalar_inputs() + [info(n, F, [3]) for n in "XGVH"],
     [info(n, F, [3]) for n in ["Xn", "Vn", "Hn"]],
     [r, t, x, g, v, h], [x_new.astype(np.float32), v_new.astype(np.float32),
                          hh_new.astype(np.float32)])
