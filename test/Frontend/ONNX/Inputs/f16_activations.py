#!/usr/bin/env python3
"""Activations made of several Tide ops (Softplus, Mish, Gelu, HardSwish,
HardSigmoid, Selu, Celu, Softsign, Swish) over f16 and bf16 inputs, compared
with an f64 NumPy reference at the same inputs: each result must be within
one unit in the last place of its type, plus what f32 arithmetic loses to
cancellation (2^-23 |x|: Gelu's 1 + erf(x / sqrt 2), 0 in f32 for x < -5). They are
computed in f32 and rounded once; each op's result rounded to f16 was up to
1% off (Softplus near 0.05, found by the random graphs).

    f16_activations.py TIDE_BIN OUT_DIR
"""
import math
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

tide_bin, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
erf = np.vectorize(math.erf)


def softplus(x):
    return np.log1p(np.exp(x))


# name: (opset, attributes, reference on f64 inputs)
ACTIVATIONS = {
    "Softplus": (17, {}, softplus),
    "Mish": (18, {}, lambda x: x * np.tanh(softplus(x))),
    "Gelu": (20, {}, lambda x: 0.5 * x * (1 + erf(x / math.sqrt(2)))),
    "HardSwish": (17, {}, lambda x: x * np.clip(x / 6 + 0.5, 0, 1)),
    "HardSigmoid": (17, {"alpha": 0.3, "beta": 0.4}, lambda x: np.clip(0.3 * x + 0.4, 0, 1)),
    "Selu": (17, {}, lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(x))),
    "Celu": (17, {"alpha": 2.0}, lambda x: np.where(x > 0, x, 2.0 * np.expm1(x / 2.0))),
    "Softsign": (17, {}, lambda x: x / (1 + np.abs(x))),
    "Swish": (24, {"alpha": 1.5}, lambda x: x / (1 + np.exp(-1.5 * x))),
}


def to_bf16(a):
    """f64 -> bf16 bits (to nearest even), as uint16."""
    b = a.astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)


def from_bf16(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


# name: (ONNX type, its unit in the last place at 1, f64 -> stored, stored -> f64)
TYPES = {
    "f16": (TensorProto.FLOAT16, 2.0 ** -10, lambda a: a.astype(np.float16),
            lambda s: s.astype(np.float64)),
    "bf16": (TensorProto.BFLOAT16, 2.0 ** -7, to_bf16, from_bf16),
}

points = np.linspace(-6, 6, 481)
bad = total = 0
for name, (opset, attrs, reference) in ACTIVATIONS.items():
    for tname, (elem, ulp, store, load) in TYPES.items():
        total += 1
        case = "%s_%s" % (name, tname)
        x = store(points)
        xv = load(x)
        r = reference(xv)
        g = helper.make_graph([helper.make_node(name, ["x"], ["y"], **attrs)], case,
                              [helper.make_tensor_value_info("x", elem, [x.size])],
                              [helper.make_tensor_value_info("y", elem, None)])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
        m.ir_version = 10
        path = os.path.join(out, case + ".onnx")
        onnx.save(m, path)
        so = os.path.join(out, case + ".so")
        p = subprocess.run([os.path.join(tide_bin, "tide-compile"), path, "--target=cpu", "-o", so,
                            "--no-remarks"], capture_output=True, text=True)
        if p.returncode:
            print("%s: compile failed: %s" % (case, p.stderr.strip()))
            bad += 1
            continue
        xin, yout = os.path.join(out, case + "_x.npy"), os.path.join(out, case + "_y.npy")
        np.save(xin, x)
        p = subprocess.run([os.path.join(tide_bin, "tide-run"), so, "--input=" + xin, "--output=" + yout],
                           capture_output=True, text=True)
        if p.returncode:
            print("%s: run failed: %s" % (case, p.stderr.strip()))
            bad += 1
            continue
        got = load(np.load(yout))
        # One unit in the last place at the result's binade (2^-14 at least:
        # f16's smallest normal scale), plus f32's cancellation.
        scale = 2.0 ** np.floor(np.log2(np.maximum(np.abs(r), 2.0 ** -14)))
        tol = ulp * scale + 2.0 ** -23 * np.abs(xv)
        worst = float(np.max(np.abs(got - r) / tol))
        print("%s: %s (worst %.2f of the tolerance)" % (case, "ok" if worst <= 1.0 else "MISMATCH", worst))
        bad += worst > 1.0
print("%d of %d cases within one ulp" % (total - bad, total))
