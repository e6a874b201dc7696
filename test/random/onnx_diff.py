#!/usr/bin/env python3
"""Differential random testing of Tide's ONNX path against ONNX Runtime.

Builds random ONNX graphs (opset 17, the newest Debian's ONNX 1.12 checks) of
the ops models use: elementwise math with numpy broadcasting, comparisons and
Where, reductions with and without keepdims and with negative axes, softmax,
data movement (Transpose, Reshape with 0 and -1, Slice with negative starts
and steps, Gather with negative indices, Concat, Split, Pad in every mode,
Expand, Tile, Squeeze/Unsqueeze, Flatten), MatMul with batch broadcasting and
1-D operands, Gemm with its transposes and scales, Conv and pooling with
strides, pads, dilations and groups, the normalizations, Cast, CumSum, TopK,
Trilu, Einsum, DepthToSpace, and the integer paths of quantized models
(QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, MatMulInteger).
Each node is kept only when ONNX Runtime accepts the graph with it (ONNX
Runtime runs the partial graph after every node, so the generator knows every
value's shape and contents); some graphs declare
their inputs' sizes symbolic, so Tide compiles them for run-time sizes (a
third of those with a symbol of its own for every size, sizes of 1 too, so
that which sizes are equal or 1 is known only at run time).

Every graph is imported with tide-import-onnx, compiled with tide-compile,
run with tide-run, and each output compared with ONNX Runtime's (same dtype
and shape; floats within a relative 1e-3 plus an absolute 1e-4 of the
output's largest magnitude, NaN where ONNX Runtime has NaN; integers and
booleans equal).

Usage:
  onnx_diff.py --tide-bin build/bin --work DIR [--seed S] [--count N]
               [--failures DIR] [--jobs J] [-v]

With --build-only (and --target=h200 on a machine without a GPU) nothing
runs: a graph passes when it compiles.

Prints `N graphs, N passed, N mismatches, N refused, N errors`; a refusal is
Tide's clear error message for a graph ONNX Runtime runs (listed, since it
names a gap), an error is anything else (a crash, a run failure). Each failing
graph is written to --failures as model.onnx with its inputs (.npy). Exits 1
on a mismatch or an error.
"""

import argparse
import multiprocessing
import math
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from onnx_cases import compare  # noqa: E402 (shared with the GPU machine's runner)

OPSET = 17

F32, F64, F16 = np.float32, np.float64, np.float16
I32, I64, I8, U8, BOOL = np.int32, np.int64, np.int8, np.uint8, np.bool_
FLOATS = (F32, F64, F16)
INTS = (I32, I64)

ELEM = {F32: TensorProto.FLOAT, F64: TensorProto.DOUBLE, F16: TensorProto.FLOAT16,
        I32: TensorProto.INT32, I64: TensorProto.INT64, I8: TensorProto.INT8,
        U8: TensorProto.UINT8, np.uint32: TensorProto.UINT32, np.uint64: TensorProto.UINT64,
        BOOL: TensorProto.BOOL}


CANONICAL = {np.dtype(t): t for t in ELEM}


def dt(a):
    return CANONICAL.get(np.dtype(a.dtype), np.dtype(a.dtype).type)


class Rejected(Exception):
    pass


class Graph:
    """A graph under construction; values are known by running ONNX Runtime
    on the graph so far."""

    def __init__(self, rng):
        self.rng = rng
        self.nodes = []
        self.inputs = []  # names
        self.inits = []
        self.feeds = {}
        self.vals = {}  # name -> numpy value (ONNX Runtime's)
        self.finite = set()  # values that are finite and small (casts to int)
        self.count = 0
        # Values whose rank the model declares (value_info), as exporters
        # record it: a Squeeze without axes, whose rank depends on run-time
        # sizes otherwise.
        self.declared = []

    def fresh(self, prefix):
        self.count += 1
        return "%s%d" % (prefix, self.count)

    # Sources -----------------------------------------------------------
    def data(self, shape, t):
        r = self.rng
        if t in FLOATS:
            a = r.uniform(-3, 3, size=shape)
            if r.random() < 0.2:
                a = np.round(a * 2) / 2  # ties for Round, Floor, Max
            return np.asarray(a).astype(t)
        if t == BOOL:
            return np.asarray(r.random(size=shape) < 0.5)
        if t in (U8, np.uint32, np.uint64):
            return np.asarray(r.integers(0, 20, size=shape)).astype(t)
        return np.asarray(r.integers(-9, 10, size=shape)).astype(t)

    def input(self, shape, t):
        name = self.fresh("in")
        a = self.data(shape, t)
        self.inputs.append(name)
        self.feeds[name] = a
        self.vals[name] = a
        self.finite.add(name)
        return name

    def const(self, a):
        name = self.fresh("c")
        a = np.asarray(a)
        self.inits.append(numpy_helper.from_array(a, name))
        self.vals[name] = a
        self.finite.add(name)
        return name

    def source(self, shape, t):
        """A new input or (less often) a constant."""
        if self.rng.random() < 0.75:
            return self.input(shape, t)
        return self.const(self.data(shape, t))

    def shape(self, rank=None, lo=1, hi=6):
        r = self.rng
        if rank is None:
            rank = int(r.choice([0, 1, 2, 2, 3, 3, 4]))
        return tuple(int(r.integers(lo, hi + 1)) for _ in range(rank))

    def pick(self, pred=lambda a: True, make=None):
        """An existing value (recent ones preferred) that satisfies pred, or
        a new one from make()."""
        # (index constants such as INT64_MIN ends are not data: sums of them
        # overflow, where the two sides may differ)
        names = [n for n, a in self.vals.items() if pred(a) and not (
            a.dtype.kind in "iu" and a.size and np.abs(a.astype(np.float64)).max() > 1e6)]
        if names and self.rng.random() < 0.8:
            w = np.arange(1, len(names) + 1, dtype=np.float64) ** 2
            return names[self.rng.choice(len(names), p=w / w.sum())]
        if make is None:
            raise Rejected("nothing to pick")
        return make()

    def pick_float(self, pred=lambda a: True, rank=None, t=None):
        t = t or self.rng.choice([F32, F32, F32, F32, F64, F16])
        return self.pick(lambda a: dt(a) in FLOATS and (t is None or dt(a) == t) and pred(a),
                         lambda: self.source(self.shape(rank), t))

    def broadcast_partner(self, a, t=None):
        """A source whose shape broadcasts with a's (dims set to 1, leading
        dims dropped, or extra leading dims)."""
        r = self.rng
        s = list(a.shape)
        if r.random() < 0.5:
            s = [1 if r.random() < 0.3 else d for d in s]
        if s and r.random() < 0.3:
            s = s[int(r.integers(0, len(s) + 1)):]
        if r.random() < 0.15 and len(s) < 4:
            s = [int(r.integers(1, 4))] + s
        if r.random() < 0.3:  # an existing value of that shape
            names = [n for n, v in self.vals.items()
                     if v.shape == tuple(s) and dt(v) == (t or dt(a))]
            if names:
                return names[int(r.integers(len(names)))]
        return self.source(tuple(s), t or dt(a))

    # Nodes -------------------------------------------------------------
    def add(self, op, ins, nout=1, finite=False, **attrs):
        outs = [self.fresh("v") for _ in range(nout)]
        node = helper.make_node(op, ins, outs, **attrs)
        self.nodes.append(node)
        try:
            got = run_ort(self.model(outs), self.feeds)
        except Exception as e:  # noqa: BLE001
            self.nodes.pop()
            raise Rejected("%s: %s" % (op, str(e).splitlines()[0][:200]))
        for n, v in zip(outs, got):
            if v.size > 200000:
                self.nodes.pop()
                raise Rejected("too large")
        for n, v in zip(outs, got):
            self.vals[n] = v
            if finite and all(i in self.finite for i in ins if i):
                if dt(v) not in FLOATS or (np.all(np.isfinite(v))
                                           and np.all(np.abs(v) < 1e6)):
                    self.finite.add(n)
        return outs[0] if nout == 1 else outs

    def model(self, outputs, symbolic=None):
        def info(name, a, sym):
            shape = list(a.shape)
            if sym == "unique":
                # Every size a symbol of its own, sizes of 1 too: which
                # sizes are equal, or 1, is known only at run time.
                shape = ["%s_d%d" % (name, k) for k in range(len(shape))]
            elif sym:
                shape = [("s%d" % d) if d > 1 and sym(d) else d for d in shape]
            return helper.make_tensor_value_info(name, ELEM[dt(a)], shape)

        g = helper.make_graph(
            self.nodes, "random",
            [info(n, self.feeds[n], symbolic) for n in self.inputs],
            [helper.make_empty_tensor_value_info(n) if n not in self.vals
             else info(n, self.vals[n], symbolic) if symbolic is None
             else helper.make_tensor_value_info(
                 n, ELEM[dt(self.vals[n])],
                 [None] * self.vals[n].ndim if n in self.declared else None)
             for n in outputs],
            self.inits)
        if symbolic is not None:
            g.value_info.extend(
                helper.make_tensor_value_info(n, ELEM[dt(self.vals[n])], [None] * self.vals[n].ndim)
                for n in self.declared if n in self.vals and n not in outputs)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", OPSET)])
        m.ir_version = 8
        return m


_SESSION_OPTIONS = None


def run_ort(model, feeds):
    global _SESSION_OPTIONS
    if _SESSION_OPTIONS is None:
        _SESSION_OPTIONS = ort.SessionOptions()
        _SESSION_OPTIONS.intra_op_num_threads = 1
        _SESSION_OPTIONS.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        _SESSION_OPTIONS.log_severity_level = 4
    s = ort.InferenceSession(model.SerializeToString(), _SESSION_OPTIONS,
                             providers=["CPUExecutionProvider"])
    names = [i.name for i in s.get_inputs()]
    return s.run(None, {n: feeds[n] for n in names})


# ---------------------------------------------------------------------------
# Op generators: each adds one node (or a few) and returns nothing; Rejected
# when the combination does not apply.
# ---------------------------------------------------------------------------

UNARY = ["Abs", "Neg", "Exp", "Log", "Sqrt", "Reciprocal", "Relu", "Sigmoid", "Tanh",
         "Erf", "Floor", "Ceil", "Round", "Sin", "Cos", "Tan", "Atan", "Asin", "Acos",
         "Sinh", "Cosh", "Asinh", "Softplus", "Softsign", "Sign", "HardSwish",
         "IsNaN", "IsInf"]
KEEPS_FINITE = {"Abs", "Neg", "Relu", "Floor", "Ceil", "Round", "Sign", "Sigmoid",
                "Tanh", "Erf", "Sin", "Cos", "Atan", "Softsign", "HardSwish"}


def g_unary(g):
    op = g.rng.choice(UNARY)
    x = g.pick_float()
    g.add(op, [x], finite=op in KEEPS_FINITE)


def g_unary_attr(g):
    r = g.rng
    x = g.pick_float()
    op = r.choice(["Elu", "LeakyRelu", "Selu", "HardSigmoid", "Celu", "ThresholdedRelu",
                   "Clip", "Clip", "Shrink"])
    a = round(float(r.uniform(0.05, 2.0)), 3)
    if op == "Elu" or op == "Celu" or op == "ThresholdedRelu":
        g.add(op, [x], alpha=a)
    elif op == "LeakyRelu":
        g.add(op, [x], alpha=a, finite=True)
    elif op == "Selu":
        g.add(op, [x], alpha=a, gamma=round(float(r.uniform(0.5, 2)), 3))
    elif op == "HardSigmoid":
        g.add(op, [x], alpha=a, beta=round(float(r.uniform(0, 1)), 3), finite=True)
    elif op == "Shrink":
        g.add(op, [x], lambd=a, bias=round(float(r.uniform(0, 1)), 3), finite=True)
    else:
        t = dt(g.vals[x])
        lo = g.const(np.array(r.uniform(-2, 0), dtype=t)) if r.random() < 0.7 else ""
        hi = g.const(np.array(r.uniform(0, 2), dtype=t)) if r.random() < 0.7 else ""
        ins = [x, lo, hi]
        while ins and ins[-1] == "":
            ins.pop()
        g.add("Clip", ins, finite=True)


def g_binary(g):
    r = g.rng
    numeric = r.random() < 0.8
    if numeric:
        t = r.choice([F32, F32, F32, F64, F16, I32, I64])
        x = g.pick(lambda a: dt(a) == t, lambda: g.source(g.shape(), t))
        y = g.broadcast_partner(g.vals[x])
        if r.random() < 0.5:
            x, y = y, x
        ops = ["Add", "Sub", "Mul", "Max", "Min", "Greater", "Less", "Equal",
               "GreaterOrEqual", "LessOrEqual"]
        if t in FLOATS:
            ops += ["Div", "Pow", "Mean", "Sum", "Mod", "PRelu"]
        op = r.choice(ops)
        yv = g.vals[y]
        if op in ("Div", "Mod") and y not in g.feeds and \
                y not in {i.name for i in g.inits} and yv.size and \
                np.nanmin(np.abs(yv.astype(np.float64))) < 1e-3:
            # A computed divisor near 0 is rounding noise on either side (a
            # linear Resize's 0 against ONNX Runtime's 6e-8): the quotient
            # would compare that noise, not Tide.
            raise Rejected("divisor near 0")
        if op == "Mod":
            g.add(op, [x, y], fmod=1)
        elif op == "PRelu":
            # the slope broadcasts to the input (unidirectional)
            xs = g.vals[x].shape
            s = tuple(1 if r.random() < 0.5 else d for d in xs[int(r.integers(0, len(xs) + 1)):])
            g.add(op, [x, g.source(s, t)], finite=True)
        elif op in ("Max", "Min", "Mean", "Sum") and r.random() < 0.3:
            g.add(op, [x, y, g.broadcast_partner(g.vals[x])])
        else:
            g.add(op, [x, y], finite=op in ("Add", "Sub", "Max", "Min"))
    else:
        x = g.pick(lambda a: dt(a) == BOOL, lambda: g.source(g.shape(), BOOL))
        y = g.broadcast_partner(g.vals[x])
        g.add(r.choice(["And", "Or", "Xor"]), [x, y])


def g_int_div(g):
    r = g.rng
    t = r.choice(INTS)
    x = g.pick(lambda a: dt(a) == t, lambda: g.source(g.shape(), t))
    s = g.vals[x].shape
    d = r.integers(1, 6, size=s) * r.choice([-1, 1], size=s)
    g.add(r.choice(["Div", "Mod"]), [x, g.const(d.astype(t))], finite=True,
          **({"fmod": int(r.integers(0, 2))} if r.random() < 0.5 else {}))


def g_where(g):
    c = g.pick(lambda a: dt(a) == BOOL, lambda: g.source(g.shape(), BOOL))
    x = g.broadcast_partner(g.vals[c], t=g.rng.choice([F32, F32, F64, I64]))
    y = g.broadcast_partner(g.vals[x])
    g.add("Where", [c, x, y], finite=True)


def g_not(g):
    x = g.pick(lambda a: dt(a) == BOOL, lambda: g.source(g.shape(), BOOL))
    g.add("Not", [x])


def axes_of(r, rank, many=True):
    if rank == 0:
        return []
    k = int(r.integers(1, rank + 1)) if many else 1
    ax = sorted(r.choice(rank, size=k, replace=False).tolist())
    return [a - rank if r.random() < 0.4 else a for a in ax]


def g_reduce(g):
    r = g.rng
    op = r.choice(["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd",
                   "ReduceL1", "ReduceL2", "ReduceLogSumExp", "ReduceSumSquare",
                   "ReduceLogSum"])
    x = g.pick_float(lambda a: a.ndim >= 1)
    if op in ("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin") and r.random() < 0.2:
        t = r.choice(INTS)
        x = g.pick(lambda a: dt(a) == t and a.ndim >= 1, lambda: g.source(g.shape(), t))
    a = g.vals[x]
    if a.size == 0:  # ONNX Runtime 1.31 keeps the reduced dims of an empty input
        raise Rejected("empty")
    attrs = {}
    if r.random() < 0.5:
        attrs["keepdims"] = int(r.integers(0, 2))
    axes = axes_of(r, a.ndim) if r.random() < 0.85 else None
    if op == "ReduceSum":
        ins = [x]
        if axes is not None:
            ins.append(g.const(np.array(axes, dtype=np.int64)))
        elif r.random() < 0.3:
            attrs["noop_with_empty_axes"] = 1
        g.add(op, ins, **attrs)
    else:
        if axes is not None:
            attrs["axes"] = axes
        g.add(op, [x], **attrs)


def g_arg(g):
    r = g.rng
    x = g.pick(lambda a: dt(a) in (F32, F64, I32, I64) and a.ndim >= 1,
               lambda: g.source(g.shape(int(r.integers(1, 4))), F32))
    a = g.vals[x]
    if a.size == 0:  # ONNX Runtime 1.31 keeps the reduced dim of an empty input
        raise Rejected("empty")
    if dt(a) in FLOATS and np.isnan(a).any():
        # ONNX leaves NaN's rank open; ONNX Runtime's depends on the scan
        raise Rejected("NaN")
    g.add(r.choice(["ArgMax", "ArgMin"]), [x], axis=int(r.integers(-a.ndim, a.ndim)),
          keepdims=int(r.integers(0, 2)), select_last_index=int(r.integers(0, 2)), finite=True)


def g_softmax(g):
    r = g.rng
    x = g.pick_float(lambda a: a.ndim >= 1)
    a = g.vals[x]
    op = r.choice(["Softmax", "LogSoftmax", "Hardmax"])
    if op == "Hardmax" and np.isnan(a).any():
        raise Rejected("NaN")  # where the maximum is: ArgMax's NaN, above
    attrs = {"axis": int(r.integers(-a.ndim, a.ndim))} if r.random() < 0.8 else {}
    g.add(op, [x], **attrs)


def g_cumsum(g):
    r = g.rng
    x = g.pick(lambda a: dt(a) in (F32, F64, I32, I64) and a.ndim >= 1,
               lambda: g.source(g.shape(int(r.integers(1, 4))), F32))
    a = g.vals[x]
    ax = g.const(np.array(int(r.integers(-a.ndim, a.ndim)), dtype=r.choice([I32, I64])))
    g.add("CumSum", [x, ax], exclusive=int(r.integers(0, 2)), reverse=int(r.integers(0, 2)),
          finite=True)


def any_value(g):
    return g.pick(lambda a: True, lambda: g.source(g.shape(), F32))


def g_transpose(g):
    x = g.pick(lambda a: a.ndim >= 2, lambda: g.source(g.shape(int(g.rng.integers(2, 5))), F32))
    a = g.vals[x]
    if g.rng.random() < 0.2:
        g.add("Transpose", [x], finite=True)
    else:
        g.add("Transpose", [x], perm=g.rng.permutation(a.ndim).tolist(), finite=True)


def g_reshape(g):
    r = g.rng
    x = any_value(g)
    a = g.vals[x]
    n = a.size
    # factor n into 1-4 dims
    dims = []
    rest = n
    for _ in range(int(r.integers(0, 4))):
        ds = [d for d in range(1, rest + 1) if rest % d == 0]
        d = int(r.choice(ds))
        dims.append(d)
        rest //= d
    dims.append(rest)
    r.shuffle(dims)
    if r.random() < 0.5:
        dims[int(r.integers(len(dims)))] = -1
    for i in range(min(len(dims), a.ndim)):
        if dims[i] == a.shape[i] and r.random() < 0.5 and -1 in dims[:i] + dims[i + 1:] + [0]:
            dims[i] = 0
        elif dims[i] == a.shape[i] and r.random() < 0.3 and -1 not in dims:
            dims[i] = 0
    g.add("Reshape", [x, g.const(np.array(dims, dtype=np.int64))], finite=True)


def g_flatten(g):
    x = any_value(g)
    a = g.vals[x]
    g.add("Flatten", [x], axis=int(g.rng.integers(-a.ndim, a.ndim + 1)), finite=True)


def g_squeeze(g):
    r = g.rng
    x = g.pick(lambda a: 1 in a.shape, lambda: g.source((2, 1, 3, 1)[:int(r.integers(2, 5))], F32))
    a = g.vals[x]
    ones = [i for i, d in enumerate(a.shape) if d == 1]
    if r.random() < 0.2:
        y = g.add("Squeeze", [x], finite=True)
        if y is not None and r.random() < 0.8:
            g.declared.append(y)
        return
    k = int(r.integers(1, len(ones) + 1))
    ax = sorted(r.choice(ones, size=k, replace=False).tolist())
    ax = [i - a.ndim if r.random() < 0.4 else i for i in ax]
    g.add("Squeeze", [x, g.const(np.array(ax, dtype=np.int64))], finite=True)


def g_unsqueeze(g):
    r = g.rng
    x = g.pick(lambda a: a.ndim <= 3, lambda: g.source(g.shape(2), F32))
    a = g.vals[x]
    out = a.ndim + int(r.integers(1, 3))
    k = out - a.ndim
    ax = sorted(r.choice(out, size=k, replace=False).tolist())
    ax = [i - out if r.random() < 0.4 else i for i in ax]
    g.add("Unsqueeze", [x, g.const(np.array(ax, dtype=np.int64))], finite=True)


def g_concat(g):
    r = g.rng
    x = g.pick(lambda a: a.ndim >= 1, lambda: g.source(g.shape(int(r.integers(1, 4))), F32))
    a = g.vals[x]
    ax = int(r.integers(-a.ndim, a.ndim))
    ins = [x]
    for _ in range(int(r.integers(1, 3))):
        s = list(a.shape)
        s[ax] = int(r.integers(0 if r.random() < 0.1 else 1, 4))
        ins.append(g.source(tuple(s), dt(a)))
    r.shuffle(ins)
    g.add("Concat", ins, axis=ax, finite=True)


def g_split(g):
    r = g.rng
    x = g.pick(lambda a: a.ndim >= 1 and max(a.shape) >= 2,
               lambda: g.source(g.shape(int(r.integers(1, 4)), lo=2), F32))
    a = g.vals[x]
    axes = [i for i in range(a.ndim) if a.shape[i] >= 2]
    ax = int(r.choice(axes))
    n = a.shape[ax]
    if r.random() < 0.5:
        k = int(r.integers(2, n + 1))
        if n % k:
            k = n
        g.add("Split", [x], nout=k, axis=ax - a.ndim * int(r.random() < 0.4), finite=True)
    else:
        cut = sorted(r.choice(np.arange(1, n), size=min(n - 1, int(r.integers(1, 3))),
                              replace=False).tolist())
        sizes = np.diff([0] + cut + [n]).astype(np.int64)
        g.add("Split", [x, g.const(sizes)], nout=len(sizes), axis=ax, finite=True)


def g_slice(g):
    r = g.rng
    x = g.pick(lambda a: a.ndim >= 1, lambda: g.source(g.shape(int(r.integers(1, 4))), F32))
    a = g.vals[x]
    axes = axes_of(r, a.ndim)
    starts, ends, steps = [], [], []
    for ax in axes:
        n = a.shape[ax]
        step = int(r.choice([1, 1, 1, 2, -1, -2, 3]))
        s = int(r.integers(-n - 2, n + 2))
        e = int(r.integers(-n - 2, n + 2))
        if r.random() < 0.15:
            e = int(r.choice([2 ** 31 - 1, 2 ** 63 - 1, -2 ** 63])) if step > 0 else -2 ** 63
        starts.append(s)
        ends.append(e)
        steps.append(step)
    it = r.choice([I32, I64])
    info = np.iinfo(it)

    def ints(v):
        return np.clip(np.array(v, dtype=np.int64), info.min, info.max).astype(it)

    ins = [x, g.const(ints(starts)), g.const(ints(ends))]
    if r.random() < 0.8 or any(s != 1 for s in steps):
        ins.append(g.const(ints(axes)))
        if r.random() < 0.7 or any(s != 1 for s in steps):
            ins.append(g.const(ints(steps)))
    elif sorted(axes) != list(range(len(axes))):
        raise Rejected("axes needed")
    g.add("Slice", ins, finite=True)


def g_gather(g):
    r = g.rng
    x = g.pick(lambda a: a.ndim >= 1 and a.size > 0,
               lambda: g.source(g.shape(int(r.integers(1, 4))), F32))
    a = g.vals[x]
    ax = int(r.integers(-a.ndim, a.ndim))
    n = a.shape[ax]
    if r.random() < 0.7:
        ishape = g.shape(int(r.integers(0, 3)), hi=4)
        idx = r.integers(-n, n, size=ishape).astype(r.choice([I32, I64]))
        g.add("Gather", [x, g.const(idx)], axis=ax, finite=True)
    else:
        s = list(a.shape)
        s[ax] = int(r.integers(1, 4))
        idx = r.integers(-n, n, size=s).astype(np.int64)
        g.add("GatherElements", [x, g.const(idx)], axis=ax, finite=True)


def g_expand(g):
    r = g.rng
    x = g.pick(lambda a: a.ndim <= 3, lambda: g.source(g.shape(2), F32))
    a = g.vals[x]
    target = [d if d != 1 else int(r.choice([1, 2, 3])) for d in a.shape]
    target = [1 if (r.random() < 0.2 and d > 1) else d for d in target]
    if r.random() < 0.4:
        target = [int(r.integers(1, 4))] + target
    g.add("Expand", [x, g.const(np.array(target, dtype=np.int64))], finite=True)


def g_tile(g):
    r = g.rng
    x = g.pick(lambda a: 1 <= a.ndim <= 3, lambda: g.source(g.shape(2), F32))
    a = g.vals[x]
    reps = r.integers(1, 4, size=a.ndim).astype(np.int64)
    g.add("Tile", [x, g.const(reps)], finite=True)


def g_pad(g):
    r = g.rng
    x = g.pick(lambda a: 1 <= a.ndim <= 4 and dt(a) in (F32, F64, I64),
               lambda: g.source(g.shape(int(r.integers(1, 5))), F32))
    a = g.vals[x]
    mode = r.choice(["constant", "constant", "reflect", "edge"])
    lo = [int(r.integers(0, 3)) for _ in a.shape]
    hi = [int(r.integers(0, 3)) for _ in a.shape]
    if mode == "constant" and r.random() < 0.3:
        lo = [p - int(r.integers(0, 2)) if d > 2 else p for p, d in zip(lo, a.shape)]
    if mode == "reflect":
        lo = [min(p, d - 1) for p, d in zip(lo, a.shape)]
        hi = [min(p, d - 1) for p, d in zip(hi, a.shape)]
    ins = [x, g.const(np.array(lo + hi, dtype=np.int64))]
    if mode == "constant" and r.random() < 0.5:
        ins.append(g.const(np.array(r.uniform(-2, 2), dtype=dt(a))))
    g.add("Pad", ins, mode=mode, finite=True)


def g_cast(g):
    r = g.rng
    src = r.random()
    if src < 0.5:
        x = g.pick(lambda a: True, lambda: g.source(g.shape(), F32))
    else:  # to an integer: only from finite values
        x = g.pick(lambda a: True, lambda: g.source(g.shape(), F32))
    a = g.vals[x]
    targets = [F32, F64, F16, BOOL]
    if x in g.finite:
        targets += [I32, I64]
        if dt(a) not in FLOATS:
            targets += [I8, U8]
    if dt(a) == F64 or (dt(a) == F32 and x not in g.finite):
        targets = [t for t in targets if t != F16 or x in g.finite]
    t = r.choice(targets)
    g.add("Cast", [x], to=ELEM[t], finite=t != BOOL)


def g_matmul(g):
    r = g.rng
    t = r.choice([F32, F32, F32, F64, F16])
    x = g.pick(lambda a: dt(a) == t and a.ndim >= 1,
               lambda: g.source(g.shape(int(r.integers(1, 4))), t))
    a = g.vals[x]
    k = a.shape[-1]
    if a.ndim == 1 or r.random() < 0.3:
        bs = (k,) if r.random() < 0.3 else (k, int(r.integers(1, 7)))
    else:
        batch = list(a.shape[:-2])
        batch = [1 if r.random() < 0.3 else d for d in batch]
        if batch and r.random() < 0.3:
            batch = batch[1:]
        bs = tuple(batch) + (k, int(r.integers(1, 7)))
    y = g.source(bs, t)
    if r.random() < 0.2 and len(bs) >= 2:  # the other way round
        g.add("MatMul", [g.source(tuple(bs[:-2]) + (int(r.integers(1, 5)), bs[-2]), t), y])
    else:
        g.add("MatMul", [x, y])


def g_gemm(g):
    r = g.rng
    t = r.choice([F32, F32, F64])
    m, k, n = (int(r.integers(1, 9)) for _ in range(3))
    ta, tb = int(r.integers(0, 2)), int(r.integers(0, 2))
    a = g.pick(lambda v: dt(v) == t and v.shape == ((k, m) if ta else (m, k)),
               lambda: g.source((k, m) if ta else (m, k), t))
    b = g.source((n, k) if tb else (k, n), t)
    ins = [a, b]
    attrs = {}
    if r.random() < 0.7:
        cs = [(m, n), (n,), (1, n), (m, 1), (), (1, 1)][int(r.integers(6))]
        ins.append(g.source(tuple(cs), t))
    if r.random() < 0.5:
        attrs["alpha"] = round(float(r.uniform(-2, 2)), 3)
    if r.random() < 0.5:
        attrs["beta"] = round(float(r.uniform(-2, 2)), 3)
    if ta:
        attrs["transA"] = 1
    if tb:
        attrs["transB"] = 1
    g.add("Gemm", ins, **attrs)


def image(g, rank):
    r = g.rng
    return g.pick(lambda a: a.ndim == rank and dt(a) == F32 and min(a.shape[2:]) >= 3,
                  lambda: g.source((int(r.integers(1, 3)), int(r.integers(1, 5)))
                                   + tuple(int(r.integers(3, 9)) for _ in range(rank - 2)), F32))


def window_attrs(r, spatial, in_sizes, kernel):
    attrs = {}
    if r.random() < 0.5:
        attrs["strides"] = [int(r.integers(1, 3)) for _ in range(spatial)]
    if r.random() < 0.3:
        attrs["auto_pad"] = r.choice(["SAME_UPPER", "SAME_LOWER", "VALID"])
    elif r.random() < 0.5:
        attrs["pads"] = [int(r.integers(0, min(2, k - 1) + 1)) for k in kernel] * 2
    return attrs


def g_conv(g):
    r = g.rng
    rank = int(r.choice([3, 4, 4, 4, 5]))
    x = image(g, rank)
    a = g.vals[x]
    c = a.shape[1]
    spatial = rank - 2
    groups = int(r.choice([d for d in range(1, c + 1) if c % d == 0]))
    m = groups * int(r.integers(1, 3))
    kernel = [int(r.integers(1, min(3, s) + 1)) for s in a.shape[2:]]
    attrs = window_attrs(r, spatial, a.shape[2:], kernel)
    if r.random() < 0.3 and "auto_pad" not in attrs:
        attrs["dilations"] = [int(r.integers(1, 3)) for _ in range(spatial)]
    if groups > 1:
        attrs["group"] = groups
    w = g.const(r.uniform(-1, 1, size=(m, c // groups) + tuple(kernel)).astype(F32)) \
        if r.random() < 0.7 else g.input((m, c // groups) + tuple(kernel), F32)
    ins = [x, w]
    if r.random() < 0.5:
        ins.append(g.const(r.uniform(-1, 1, size=(m,)).astype(F32)))
    g.add("Conv", ins, **attrs)


def g_pool(g):
    r = g.rng
    rank = int(r.choice([3, 4, 4, 5]))
    x = image(g, rank)
    a = g.vals[x]
    op = r.choice(["MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool", "LpPool"])
    if "Max" in op and np.isnan(a).any():
        # ONNX leaves a NaN's maximum open: ONNX Runtime's pools skip NaN
        # (or keep it, by its position in the window), Tide's propagate it.
        raise Rejected("NaN under a max pool")
    if op.startswith("Global"):
        g.add(op, [x])
        return
    spatial = rank - 2
    kernel = [int(r.integers(1, min(3, s) + 1)) for s in a.shape[2:]]
    attrs = window_attrs(r, spatial, a.shape[2:], kernel)
    attrs["kernel_shape"] = kernel
    if op != "LpPool" and r.random() < 0.3:
        attrs["ceil_mode"] = 1
    if op == "AveragePool" and r.random() < 0.5:
        attrs["count_include_pad"] = 1
    if op == "MaxPool" and r.random() < 0.3 and "auto_pad" not in attrs:
        attrs["dilations"] = [int(r.integers(1, 3)) for _ in range(spatial)]
    if op == "LpPool":
        attrs["p"] = int(r.integers(1, 4))
    g.add(op, [x], **attrs)


def g_norm(g):
    r = g.rng
    op = r.choice(["LayerNormalization", "BatchNormalization", "InstanceNormalization",
                   "LpNormalization", "MeanVarianceNormalization"])
    if op == "LayerNormalization":
        x = g.pick(lambda a: dt(a) in (F32, F64) and a.ndim >= 1,
                   lambda: g.source(g.shape(int(r.integers(1, 4))), F32))
        a = g.vals[x]
        ax = int(r.integers(-a.ndim, a.ndim))
        s = a.shape[ax:]
        ins = [x, g.source(s, dt(a))]
        if r.random() < 0.5:
            ins.append(g.source(s, dt(a)))
        g.add(op, ins, axis=ax, epsilon=1e-3)
    elif op == "LpNormalization":
        x = g.pick(lambda a: dt(a) in (F32, F64) and a.ndim >= 1,
                   lambda: g.source(g.shape(int(r.integers(1, 4))), F32))
        a = g.vals[x]
        g.add(op, [x], axis=int(r.integers(-a.ndim, a.ndim)), p=int(r.integers(1, 3)))
    elif op == "MeanVarianceNormalization":
        x = image(g, 4)
        g.add(op, [x])
    else:
        x = image(g, int(r.choice([3, 4])))
        c = g.vals[x].shape[1]
        scale = g.const(r.uniform(0.5, 2, size=(c,)).astype(F32))
        bias = g.const(r.uniform(-1, 1, size=(c,)).astype(F32))
        if op == "InstanceNormalization":
            g.add(op, [x, scale, bias], epsilon=1e-3)
        else:
            mean = g.const(r.uniform(-1, 1, size=(c,)).astype(F32))
            var = g.const(r.uniform(0.5, 2, size=(c,)).astype(F32))
            g.add(op, [x, scale, bias, mean, var], epsilon=1e-3)


def g_topk(g):
    r = g.rng
    x = g.pick(lambda a: dt(a) in (F32, F64) and a.ndim >= 1 and a.size > 0,
               lambda: g.source(g.shape(int(r.integers(1, 4))), F32))
    a = g.vals[x]
    if len(np.unique(a)) != a.size or np.isnan(a).any():
        # ties and NaN: ONNX leaves their order open (Tide ranks NaN first,
        # as PyTorch does; ONNX Runtime last)
        raise Rejected("ties")
    ax = int(r.integers(-a.ndim, a.ndim))
    k = int(r.integers(0, a.shape[ax] + 1))
    vals, idx = g.add("TopK", [x, g.const(np.array([k], dtype=np.int64))], nout=2, axis=ax,
                      largest=int(r.integers(0, 2)), sorted=1)


def g_trilu(g):
    r = g.rng
    x = g.pick(lambda a: a.ndim >= 2, lambda: g.source(g.shape(int(r.integers(2, 4))), F32))
    ins = [x]
    if r.random() < 0.6:
        ins.append(g.const(np.array(int(r.integers(-3, 4)), dtype=np.int64)))
    g.add("Trilu", ins, upper=int(r.integers(0, 2)), finite=True)


def g_einsum(g):
    r = g.rng
    eq = r.choice(["ij,jk->ik", "bij,bjk->bik", "ij->ji", "ii->i", "ij,ij->i", "i,j->ij",
                   "bhqd,bhkd->bhqk", "ijk->k", "ij,kj->ik"])
    lhs = eq.split("->")[0].split(",")
    sizes = {c: int(r.integers(1, 5)) for c in "bhijkqd"}
    ins = [g.source(tuple(sizes[c] for c in term), F32) for term in lhs]
    g.add("Einsum", ins, equation=eq)


def g_depth_space(g):
    r = g.rng
    b = int(r.choice([2, 3]))
    if r.random() < 0.5:
        x = g.source((int(r.integers(1, 3)), b * b * int(r.integers(1, 3)),
                      int(r.integers(1, 4)), int(r.integers(1, 4))), F32)
        attrs = {"blocksize": b}
        if r.random() < 0.5:
            attrs["mode"] = r.choice(["DCR", "CRD"])
        g.add("DepthToSpace", [x], **attrs)
    else:
        x = g.source((int(r.integers(1, 3)), int(r.integers(1, 4)),
                      b * int(r.integers(1, 3)), b * int(r.integers(1, 3))), F32)
        g.add("SpaceToDepth", [x], blocksize=b)


def g_shape_arith(g):
    """Shape -> Gather -> Concat -> Reshape: the arithmetic exporters write."""
    r = g.rng
    x = g.pick(lambda a: a.ndim >= 2, lambda: g.source(g.shape(int(r.integers(2, 4))), F32))
    a = g.vals[x]
    sh = g.add("Shape", [x])
    d0 = g.add("Gather", [sh, g.const(np.array([0], dtype=np.int64))], axis=0)
    g.add("Reshape", [x, g.add("Concat", [d0, g.const(np.array([-1], dtype=np.int64))],
                                axis=0)], finite=True)
    del a


def g_int_unary(g):
    r = g.rng
    t = r.choice([I32, I64])
    x = g.pick(lambda a: dt(a) == t, lambda: g.source(g.shape(), t))
    op = r.choice(["Abs", "Neg", "Sign", "Relu", "BitShift"])
    if op == "Relu" and t == I64:
        raise Rejected("ONNX Runtime's Relu has no int64 kernel")
    if op == "BitShift":
        u = r.choice([np.uint8, np.uint32, np.uint64])
        x = g.source(g.shape(), u)
        y = g.const(r.integers(0, 4, size=g.vals[x].shape).astype(u))
        g.add(op, [x, y], direction=r.choice(["LEFT", "RIGHT"]))
    else:
        g.add(op, [x], finite=True)


def g_resize(g):
    r = g.rng
    x = image(g, 4)
    a = g.vals[x]
    mode = r.choice(["nearest", "linear", "cubic"])
    if mode != "nearest" and np.isnan(a).any():
        # ONNX Runtime multiplies a weight of 0 by a NaN neighbour; Tide's
        # interpolation does not read it.
        raise Rejected("NaN under an interpolating Resize")
    attrs = {"mode": mode}
    if mode == "nearest":
        attrs["nearest_mode"] = r.choice(["round_prefer_floor", "round_prefer_ceil", "floor",
                                          "ceil"])
    attrs["coordinate_transformation_mode"] = r.choice(
        ["half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel"])
    scales = np.array([1, 1, r.choice([0.5, 1.5, 2.0, 3.0]), r.choice([0.5, 1.0, 2.0])],
                      dtype=np.float32)
    fractional = any(float(d) * float(f) != int(float(d) * float(f))
                     for d, f in zip(a.shape, scales))
    # align_corners with a fractional scaled size: ONNX's reference (and
    # Tide) divide by that size - 1, ONNX Runtime by the rounded one
    if r.random() < 0.5 and not (
            fractional and attrs["coordinate_transformation_mode"] == "align_corners"):
        g.add("Resize", [x, "", g.const(scales)], **attrs)
    else:
        sizes = np.array([a.shape[0], a.shape[1], int(r.integers(1, 12)), int(r.integers(1, 12))],
                         dtype=np.int64)
        if mode == "nearest" and any(
                nearest_f32_differs(attrs["coordinate_transformation_mode"], attrs["nearest_mode"],
                                    int(i), int(o)) for i, o in zip(a.shape[2:], sizes[2:])):
            raise Rejected("a nearest Resize to sizes whose float32 coordinate misses a tie")
        g.add("Resize", [x, "", "", g.const(sizes)], **attrs)


def nearest_f32_differs(ctm, nearest, length_in, length_out):
    """Whether ONNX Runtime's nearest Resize to a given size picks another
    pixel than exact arithmetic (Tide's and ONNX's reference) anywhere along
    one axis: it computes the scale out / in and the source coordinate in
    float32, which can land just below a tie (7 -> 1, half_pixel, floor:
    0.5 / (1 / 7.f) - 0.5 is 2.9999998, pixel 2 where the coordinate is 3)."""
    from fractions import Fraction
    f32 = np.float32
    scale = f32(length_out) / f32(length_in)
    for x in range(length_out):
        if ctm == "align_corners":
            exact = Fraction(0) if length_out == 1 else Fraction(x * (length_in - 1), length_out - 1)
            approx = f32(0) if length_out == 1 else f32(x) * f32(length_in - 1) / f32(length_out - 1)
        elif ctm == "asymmetric":
            exact, approx = Fraction(x * length_in, length_out), f32(x) / scale
        elif ctm == "pytorch_half_pixel" and length_out == 1:
            exact, approx = Fraction(0), f32(0)
        else:
            exact = Fraction(2 * x + 1, 2) * Fraction(length_in, length_out) - Fraction(1, 2)
            approx = (f32(x) + f32(0.5)) / scale - f32(0.5)

        def pick(c, tie):
            fl = math.floor(c)
            if nearest == "floor":
                return fl
            if nearest == "ceil":
                return math.ceil(c)
            if tie(c):
                return fl if nearest == "round_prefer_floor" else fl + 1
            return math.floor(c + Fraction(1, 2)) if isinstance(c, Fraction) else math.floor(c + 0.5)

        if pick(exact, lambda c: c - math.floor(c) == Fraction(1, 2)) != pick(
                float(approx), lambda c: c - math.floor(c) == 0.5):
            return True
    return False


def g_gathernd(g):
    r = g.rng
    x = g.pick(lambda a: a.ndim >= 2 and a.size > 0,
               lambda: g.source(g.shape(int(r.integers(2, 4))), F32))
    a = g.vals[x]
    k = int(r.integers(1, a.ndim + 1))
    lead = g.shape(int(r.integers(1, 3)), hi=3)
    idx = np.stack([r.integers(-a.shape[j], a.shape[j], size=lead) for j in range(k)], -1)
    g.add("GatherND", [x, g.const(idx.astype(np.int64))], finite=True)


def g_scatter(g):
    r = g.rng
    x = g.pick(lambda a: a.ndim >= 1 and a.size > 0 and dt(a) in (F32, F64, I64),
               lambda: g.source(g.shape(int(r.integers(1, 4))), F32))
    a = g.vals[x]
    if r.random() < 0.5:
        ax = int(r.integers(-a.ndim, a.ndim))
        s = list(a.shape)
        n = s[ax]
        s[ax] = int(r.integers(1, n + 1))
        # distinct indices along the axis (duplicates leave the order open)
        idx = np.stack([r.permutation(n)[:s[ax]] for _ in range(int(np.prod(s)) // s[ax])])
        idx = np.moveaxis(idx.reshape([d for i, d in enumerate(s) if i != ax % a.ndim]
                                      + [s[ax]]), -1, ax % a.ndim)
        red = r.choice(["none", "none", "add", "mul", "max", "min"])
        if red in ("max", "min") and dt(a) in FLOATS and np.isnan(a).any():
            # ONNX leaves a NaN's min or max open: ONNX Runtime keeps the
            # update over a NaN in the data, Tide's tide.scatter propagates
            # NaN (NumPy's minimum and maximum).
            raise Rejected("NaN data under a min or max scatter")
        attrs = {"axis": ax}
        if red != "none":
            attrs["reduction"] = red
        g.add("ScatterElements", [x, g.const(idx.astype(np.int64)),
                                  g.source(tuple(s), dt(a))], finite=True, **attrs)
    else:
        k = int(r.integers(1, a.ndim + 1))
        rows = np.unique(np.stack([r.integers(0, a.shape[j], size=4) for j in range(k)], -1),
                         axis=0)
        g.add("ScatterND", [x, g.const(rows.astype(np.int64)),
                            g.source((len(rows),) + a.shape[k:], dt(a))], finite=True)


def g_onehot(g):
    r = g.rng
    depth = int(r.integers(1, 6))
    idx = r.integers(-depth, depth, size=g.shape(int(r.integers(0, 3)), hi=4)).astype(np.int64)
    vals = g.const(np.array([r.uniform(-2, 0), r.uniform(0, 2)], dtype=F32))
    g.add("OneHot", [g.const(idx),
                     g.const(np.array(depth, dtype=np.int64)), vals],
          axis=int(r.integers(-idx.ndim - 1, idx.ndim + 1)))


def g_range(g):
    r = g.rng
    t = r.choice([F32, I64, I32])
    start, delta = (float(r.integers(-5, 5)), float(r.choice([-2, -1, 1, 2, 3])))
    limit = start + delta * float(r.integers(0, 8))
    mk = (lambda v: g.const(np.array(v, dtype=t)))
    g.add("Range", [mk(start), mk(limit), mk(delta)], finite=True)


def g_convtranspose(g):
    r = g.rng
    x = image(g, 4)
    a = g.vals[x]
    c = a.shape[1]
    groups = int(r.choice([d for d in range(1, c + 1) if c % d == 0]))
    m = int(r.integers(1, 3))
    kernel = [int(r.integers(1, 4)) for _ in range(2)]
    w = g.const(r.uniform(-1, 1, size=(c, m) + tuple(kernel)).astype(F32))
    attrs = {}
    if r.random() < 0.5:
        attrs["strides"] = [int(r.integers(1, 3)) for _ in range(2)]
    if r.random() < 0.4:
        attrs["pads"] = [int(r.integers(0, k)) for k in kernel] * 2
    if r.random() < 0.2 and "strides" in attrs:
        attrs["output_padding"] = [int(r.integers(0, s_)) for s_ in attrs["strides"]]
    if groups > 1:
        attrs["group"] = groups
        w = g.const(r.uniform(-1, 1, size=(c, m) + tuple(kernel)).astype(F32))
    g.add("ConvTranspose", [x, w], **attrs)


def g_rnn(g):
    r = g.rng
    op = r.choice(["LSTM", "GRU", "RNN"])
    seq, batch, inp, hid = (int(r.integers(1, 5)), int(r.integers(1, 3)),
                            int(r.integers(1, 5)), int(r.integers(1, 5)))
    gates = {"LSTM": 4, "GRU": 3, "RNN": 1}[op]
    dirs = r.choice(["forward", "reverse", "bidirectional"])
    nd = 2 if dirs == "bidirectional" else 1
    x = g.source((seq, batch, inp), F32)
    w = g.const(r.uniform(-0.6, 0.6, size=(nd, gates * hid, inp)).astype(F32))
    rr = g.const(r.uniform(-0.6, 0.6, size=(nd, gates * hid, hid)).astype(F32))
    ins = [x, w, rr]
    if r.random() < 0.6:
        ins.append(g.const(r.uniform(-0.5, 0.5, size=(nd, 2 * gates * hid)).astype(F32)))
    attrs = {"hidden_size": hid, "direction": dirs}
    if op == "GRU" and r.random() < 0.5:
        attrs["linear_before_reset"] = 1
    g.add(op, ins, **attrs)


def g_shape_ops(g):
    r = g.rng
    x = g.pick(lambda a: a.ndim >= 1, lambda: g.source(g.shape(int(r.integers(1, 4))), F32))
    a = g.vals[x]
    attrs = {}
    if r.random() < 0.5:
        attrs["start"] = int(r.integers(-a.ndim, a.ndim))
        if r.random() < 0.5:
            attrs["end"] = int(r.integers(-a.ndim, a.ndim + 1))
    sh = g.add("Shape", [x], **attrs)
    if r.random() < 0.5:
        g.add("ConstantOfShape", [sh], value=helper.make_tensor(
            "v", ELEM[F32], [1], [float(r.uniform(-2, 2))]))
    else:
        g.add("EyeLike", [g.pick(lambda v: v.ndim == 2, lambda: g.source(g.shape(2), F32))],
              k=int(r.integers(-2, 3)))


def g_if(g):
    """An If on a condition computed at run time (the sum of a value compared
    with a threshold 0.5 away, so that rounding cannot flip it); each branch
    one node on values of the outer graph: a unary op, a slice (an output of
    another size), or another outer value of the same type and rank."""
    r = g.rng
    t = r.choice([F32, F32, F64, I64])
    x = g.pick(lambda a: dt(a) == t and a.ndim >= 1 and a.size > 0,
               lambda: g.source(g.shape(int(r.choice([1, 2, 3]))), t))
    s = g.pick(lambda a: dt(a) in (F32, F64) and a.size > 0 and np.all(np.isfinite(a))
               and np.abs(a).max() < 1e3, lambda: g.source(g.shape(), F32))
    total = g.add("ReduceSum", [s], keepdims=0)
    v = float(g.vals[total])
    thr = g.const(np.array(v + float(r.choice([-0.5, 0.5])), dtype=dt(g.vals[total])))
    cond = g.add("Greater", [total, thr])
    xv = g.vals[x]
    elem = {np.dtype(F32): TensorProto.FLOAT, np.dtype(F64): TensorProto.DOUBLE,
            np.dtype(I64): TensorProto.INT64}[np.dtype(t)]

    def branch(name):
        out = g.fresh("b")
        kind = r.choice(["unary", "unary", "slice", "outer", "add"])
        if kind == "unary":
            ops = ["Neg", "Abs", "Identity"] + (["Tanh", "Sigmoid", "Floor"] if t in FLOATS else [])
            nodes = [helper.make_node(r.choice(ops), [x], [out])]
        elif kind == "slice":
            d = int(r.integers(0, xv.ndim))
            k = int(r.integers(0, xv.shape[d] + 1))
            nodes = [helper.make_node("Slice", [x, g.const(np.array([0], np.int64)),
                                                 g.const(np.array([k], np.int64)),
                                                 g.const(np.array([d], np.int64))], [out])]
        elif kind == "add":
            nodes = [helper.make_node("Add", [x, x], [out])]
        else:
            others = [n for n, a in g.vals.items() if dt(a) == t and a.ndim == xv.ndim]
            nodes = [helper.make_node("Identity", [others[int(r.integers(len(others)))]], [out])]
        return helper.make_graph(nodes, name, [], [helper.make_tensor_value_info(out, elem, None)])

    g.add("If", [cond], then_branch=branch("then"), else_branch=branch("else"))


def g_loop(g):
    """A Loop over a trip count known only at run time (a graph input, 0 to
    4, now and then -1) or a while loop (the body's condition computed from
    the iteration number): a carried tensor updated by one op with an outer
    value, a scan output, and now and then a list appended to per iteration
    (SequenceInsert), joined after the loop by ConcatFromSequence."""
    r = g.rng
    t = r.choice([F32, F32, F64, I64])
    elem = {np.dtype(F32): TensorProto.FLOAT, np.dtype(F64): TensorProto.DOUBLE,
            np.dtype(I64): TensorProto.INT64}[np.dtype(t)]
    x = g.pick(lambda a: dt(a) == t and a.size > 0 and (
        dt(a) not in FLOATS or (np.all(np.isfinite(a)) and np.abs(a).max() < 1e3)),
        lambda: g.source(g.shape(int(r.choice([0, 1, 2, 3]))), t))
    xv = g.vals[x]
    same = [n for n, a in g.vals.items() if dt(a) == t and a.shape == xv.shape
            and (dt(a) not in FLOATS or (np.all(np.isfinite(a)) and np.abs(a).max() < 1e3))]
    other = same[int(r.integers(len(same)))]
    m = g.input((), I64)
    g.feeds[m] = g.vals[m] = np.array(int(r.choice([0, 1, 2, 3, 4, 4, -1])), np.int64)
    ins = [m, ""]
    body_nodes = []
    cond_out = "lc_out"
    if r.random() < 0.3:
        # A while loop: stops after the iteration whose number + 1 reaches k.
        k = g.const(np.array(int(r.integers(1, 5)), np.int64))
        one = g.const(np.array(1, np.int64))
        body_nodes += [helper.make_node("Add", ["li", one], ["li1"]),
                       helper.make_node("Less", ["li1", k], [cond_out])]
        ins[1] = g.const(np.array(True))
        if r.random() < 0.5:
            ins[0] = ""
    else:
        body_nodes.append(helper.make_node("Identity", ["lc"], [cond_out]))
    op = r.choice(["Add", "Sub", "Max", "Min", "Mul"] + (["Tanh"] if t in FLOATS else []))
    if op == "Tanh":
        body_nodes.append(helper.make_node("Tanh", ["lacc"], ["lacc_out"]))
    elif op == "Mul":
        half = g.const(np.array(0.5 if t in FLOATS else -1, t))
        body_nodes.append(helper.make_node("Mul", ["lacc", half], ["lacc_out"]))
    else:
        body_nodes.append(helper.make_node(op, ["lacc", other], ["lacc_out"]))
    # (No scan output over no iteration: ONNX Runtime gives it the shape (0,)
    # whatever its rank, and a Shape of it differs from Tide's.)
    scan = r.random() < 0.6 and not (ins[0] and int(g.vals[m]) <= 0)
    if scan:
        body_nodes += [helper.make_node("Cast", ["li"], ["lif"], to=elem),
                       helper.make_node("Mul", ["lacc_out", "lif"], ["ly"])]
    seq = r.random() < 0.5
    seq_type = helper.make_sequence_type_proto(helper.make_tensor_type_proto(elem, None))
    tensor = lambda n: helper.make_tensor_value_info(n, elem, None)  # noqa: E731
    b_in = [helper.make_tensor_value_info("li", TensorProto.INT64, []),
            helper.make_tensor_value_info("lc", TensorProto.BOOL, []), tensor("lacc")]
    b_out = [helper.make_tensor_value_info(cond_out, TensorProto.BOOL, []), tensor("lacc_out")]
    nodes_before = len(g.nodes)
    if seq:
        start = g.fresh("s")
        if r.random() < 0.5:
            g.nodes.append(helper.make_node("SequenceConstruct", [x], [start]))
        else:
            g.nodes.append(helper.make_node("SequenceEmpty", [], [start], dtype=elem))
            g.feeds[m] = g.vals[m] = np.array(int(r.integers(1, 5)), np.int64)
            if ins[0] == "":
                ins[0] = m
        body_nodes.append(helper.make_node("SequenceInsert", ["lseq", "lacc_out"], ["lseq_out"]))
        b_in.append(helper.make_value_info("lseq", seq_type))
        b_out.append(helper.make_value_info("lseq_out", seq_type))
    if scan:
        b_out.append(tensor("ly"))
    body = helper.make_graph(body_nodes, "body", b_in, b_out)
    outs = [g.fresh("v") for _ in range(len(b_out) - 1)]
    loop_ins = ins + [x] + ([start] if seq else [])
    g.nodes.append(helper.make_node("Loop", loop_ins, outs, body=body))
    tensors = [o for k, o in enumerate(outs) if not (seq and k == 1)]
    try:
        extra = []
        if seq:
            cat = g.fresh("v")
            rank = xv.ndim
            new_axis = int(r.random() < 0.5)
            axis = int(r.integers(-(rank + new_axis), rank + new_axis)) if rank + new_axis else 0
            if rank + new_axis == 0:
                raise Rejected("a list of scalars joined without a new axis")
            g.nodes.append(helper.make_node("ConcatFromSequence", [outs[1]], [cat],
                                            axis=axis, new_axis=new_axis))
            extra = [cat]
        got = run_ort(g.model(tensors + extra), g.feeds)
        if any(v.size > 200000 for v in got):
            raise Rejected("too large")
    except Exception as e:  # noqa: BLE001
        del g.nodes[nodes_before:]
        raise Rejected("Loop: %s" % str(e).splitlines()[0][:200])
    for n, v in zip(tensors + extra, got):
        g.vals[n] = v



def g_quant(g):
    """QuantizeLinear / DequantizeLinear (per tensor or per axis, with and
    without zero points), DynamicQuantizeLinear, MatMulInteger: the integer
    paths of quantized models. Scales are powers of two half the time, so
    that x / scale lands on exact halves (the ties ONNX rounds to even)."""
    r = g.rng

    def scale(n=None):
        def one():
            if r.random() < 0.5:
                return 2.0 ** int(r.integers(-4, 2))
            return round(float(r.uniform(0.01, 0.5)), 4)
        if n is None:
            return g.const(np.array(one(), np.float32))
        return g.const(np.array([one() for _ in range(n)], np.float32))

    def zero_point(t, n=None):
        lo, hi = (0, 256) if t == U8 else (-128, 128)
        size = () if n is None else (n,)
        return g.const(np.asarray(r.integers(lo, hi, size=size)).astype(t))

    kind = r.choice(["q", "q", "dq", "dyn", "mmi"])
    if kind == "q":
        x = g.pick(lambda a: dt(a) == F32 and a.size > 0 and np.all(np.isfinite(a)),
                   lambda: g.source(g.shape(), F32))
        a = g.vals[x]
        t = r.choice([U8, I8])
        if a.ndim and r.random() < 0.4:
            axis = int(r.integers(-a.ndim, a.ndim))
            n = a.shape[axis]
            g.add("QuantizeLinear", [x, scale(n), zero_point(t, n)], axis=axis)
        elif r.random() < 0.2 and t == U8:
            g.add("QuantizeLinear", [x, scale()])
        else:
            g.add("QuantizeLinear", [x, scale(), zero_point(t)])
    elif kind == "dq":
        t = r.choice([U8, I8, I32])
        x = g.pick(lambda a: dt(a) == t and a.size > 0,
                   lambda: g.source(g.shape(), t))
        a = g.vals[x]
        if a.ndim and t != I32 and r.random() < 0.4:
            axis = int(r.integers(-a.ndim, a.ndim))
            n = a.shape[axis]
            g.add("DequantizeLinear", [x, scale(n), zero_point(t, n)], axis=axis, finite=True)
        elif t == I32 or r.random() < 0.2:
            g.add("DequantizeLinear", [x, scale()], finite=True)
        else:
            g.add("DequantizeLinear", [x, scale(), zero_point(t)], finite=True)
    elif kind == "dyn":
        x = g.pick(lambda a: dt(a) == F32 and a.size > 0 and np.all(np.isfinite(a)),
                   lambda: g.source(g.shape(), F32))
        g.add("DynamicQuantizeLinear", [x], nout=3)
    else:
        ta, tb = r.choice([U8, I8]), r.choice([U8, I8])
        m, k, n = (int(r.integers(1, 9)) for _ in range(3))
        a = g.pick(lambda v: dt(v) == ta and v.ndim == 2 and v.shape[1] == k,
                   lambda: g.source((m, k), ta))
        b = g.source((k, n), tb)
        ins = [a, b]
        if r.random() < 0.6:
            ins += [zero_point(ta), zero_point(tb)]
        g.add("MatMulInteger", ins)

GENERATORS = [
    (g_unary, 10), (g_unary_attr, 5), (g_binary, 14), (g_int_div, 2), (g_where, 3),
    (g_not, 1), (g_reduce, 8), (g_arg, 3), (g_softmax, 3), (g_cumsum, 2),
    (g_transpose, 4), (g_reshape, 4), (g_flatten, 2), (g_squeeze, 2), (g_unsqueeze, 2),
    (g_concat, 3), (g_split, 2), (g_slice, 5), (g_gather, 4), (g_expand, 2), (g_tile, 2),
    (g_pad, 3), (g_cast, 4), (g_matmul, 5), (g_gemm, 3), (g_conv, 4), (g_pool, 3),
    (g_norm, 3), (g_topk, 2), (g_trilu, 1), (g_einsum, 2), (g_depth_space, 1),
    (g_shape_arith, 1), (g_int_unary, 2), (g_resize, 2), (g_gathernd, 2), (g_scatter, 2),
    (g_onehot, 1), (g_range, 1), (g_convtranspose, 2), (g_rnn, 2), (g_shape_ops, 2),
    (g_if, 2), (g_loop, 2), (g_quant, 3),
]


def generate(seed):
    """A random graph: (model, feeds, expected outputs, description)."""
    r = np.random.default_rng(seed)
    g = Graph(r)
    fns = [f for f, _ in GENERATORS]
    w = np.array([w for _, w in GENERATORS], dtype=np.float64)
    target = int(r.integers(2, 12))
    tries = 0
    while len(g.nodes) < target and tries < 60:
        tries += 1
        fn = fns[r.choice(len(fns), p=w / w.sum())]
        try:
            fn(g)
        except (Rejected, ValueError, IndexError):
            pass
    if not g.nodes:
        return None
    produced = [o for n in g.nodes for o in n.output]
    used = {i for n in g.nodes for i in n.input}
    outs = [o for o in produced if o not in used and o in g.vals]
    extra = [o for o in produced if o in used and o in g.vals and r.random() < 0.15]
    outs = list(dict.fromkeys(outs + extra))
    symbolic = None
    if r.random() < 0.3:
        chosen = {int(d) for d in r.integers(2, 10, size=3)}
        symbolic = (lambda d: d in chosen) if r.random() < 0.5 else (lambda d: True)
        # A third of those with a symbol per size (without drawing from the
        # generator, so that earlier seeds keep their graphs).
        if (len(g.nodes) + len(g.inputs)) % 3 == 0:
            symbolic = "unique"
    model = g.model(outs, symbolic=symbolic)
    # inputs not used by any node stay (they are graph inputs of the model)
    used_inputs = [n for n in g.inputs]
    want = run_ort(model, g.feeds)
    ops = [n.op_type for n in g.nodes]
    return model, [g.feeds[n] for n in used_inputs], outs, want, ops, symbolic is not None


# ---------------------------------------------------------------------------
# Running Tide
# ---------------------------------------------------------------------------


def prune(model, feeds, keep):
    """The model cut down to the nodes that output `keep` depends on, with
    only the inputs and initializers those nodes read."""
    g = model.graph
    need, nodes = {keep}, []
    def reads(node):
        """The names `node` reads, those its subgraphs read from outside too."""
        names = {i for i in node.input if i}
        for a in node.attribute:
            if a.HasField("g"):
                inner = {o for n in a.g.node for o in n.output}
                for n in a.g.node:
                    names.update(i for i in reads(n) if i not in inner)
        return names

    for node in reversed(list(g.node)):
        if any(o in need for o in node.output):
            nodes.append(node)
            need.update(reads(node))
    nodes.reverse()
    inputs = [(i, f) for i, f in zip(g.input, feeds) if i.name in need]
    graph = helper.make_graph(
        nodes, g.name, [i for i, _ in inputs],
        [o for o in g.output if o.name == keep],
        [t for t in g.initializer if t.name in need])
    m = helper.make_model(graph, opset_imports=list(model.opset_import))
    m.ir_version = model.ir_version
    return m, [f for _, f in inputs]


def tide_run(args, work, path, ins, count):
    """Imports, compiles and runs one model: (kind, why, result files)."""
    mlir = os.path.join(work, "model.mlir")
    so = os.path.join(work, "model.so")
    rc, text = run([os.path.join(args.tide_bin, "tide-import-onnx"), path, "-o", mlir])
    if rc != 0:
        return ("refused" if rc == 1 and "error:" in text else "error"), \
            "import: " + first_line(text), []
    rc, text = run([os.path.join(args.tide_bin, "tide-compile"), mlir, "-o", so,
                    "--target=" + args.target, "--no-remarks"]
                   + (["--cpu=" + args.cpu] if args.cpu else []))
    if rc != 0:
        return ("refused" if rc == 1 and "error:" in text else "error"), \
            "compile: " + first_line(text), []
    if args.build_only:
        return "pass", "", []
    res = [os.path.join(work, "got%d.npy" % i) for i in range(count)]
    rc, text = run([os.path.join(args.tide_bin, "tide-run"), so]
                   + ["--input=" + f for f in ins] + ["--output=" + f for f in res])
    if rc != 0:
        # By design: a Squeeze without axes whose output's rank the model
        # does not declare keeps its run-time sizes and fails on a size of 1.
        if rc == 1 and "Squeeze without axes would drop it" in text:
            return "refused", "run: " + first_line(text), []
        return "error", "run: " + first_line(text), []
    return "pass", "", res


def replay(args, case):
    """A case directory (model.onnx, in*.npy, want*.npy, as --failures
    writes them) run again: its stored ONNX Runtime outputs are the
    reference."""
    name = os.path.basename(os.path.normpath(case))
    work = os.path.join(args.work, name)
    os.makedirs(work, exist_ok=True)
    ins = sorted((f for f in os.listdir(case) if f.startswith("in") and f.endswith(".npy")),
                 key=lambda f: int(f[2:-4]))
    wants = sorted((f for f in os.listdir(case) if f.startswith("want")),
                   key=lambda f: int(f[4:-4]))
    kind, why, res = tide_run(args, work, os.path.join(case, "model.onnx"),
                              [os.path.join(case, f) for f in ins], len(wants))
    if kind == "pass":
        for i, (f, w) in enumerate(zip(res, wants)):
            p = compare(np.load(f), np.load(os.path.join(case, w)))
            if p:
                kind, why = "mismatch", "output %d: %s" % (i, p)
                break
    shutil.rmtree(work, ignore_errors=True)
    return name, kind, why


def run(cmd, timeout=600):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=timeout)
    return p.returncode, p.stdout


def first_line(text):
    for line in text.splitlines():
        if "error" in line:
            return line.strip()[:300]
    return (text.strip().splitlines() or ["(no output)"])[-1][:300]


def check(args, seed):
    got = generate(seed)
    if got is None:
        return seed, "skip", "", []
    model, feeds, outs, want, ops, symbolic = got
    work = os.path.join(args.work, "g%d" % seed)
    os.makedirs(work, exist_ok=True)
    path = os.path.join(work, "model.onnx")
    onnx.save(model, path)
    ins = []
    for i, a in enumerate(feeds):
        f = os.path.join(work, "in%d.npy" % i)
        np.save(f, a)
        ins.append(f)
    for i, a in enumerate(want):
        np.save(os.path.join(work, "want%d.npy" % i), a)
    kind, why = "pass", ""
    bad = None
    try:
        kind, why, res = tide_run(args, work, path, ins, len(want))
        if kind == "pass":
            for i, (f, w) in enumerate(zip(res, want)):
                p = compare(np.load(f), w)
                if p:
                    kind, why, bad = "mismatch", "output %d (%s): %s" % (i, outs[i], p), i
                    break
    except subprocess.TimeoutExpired:
        kind, why = "error", "timed out"
    if kind != "pass" and args.failures:
        dest = os.path.join(args.failures, "g%d" % seed)
        shutil.rmtree(dest, ignore_errors=True)
        os.makedirs(dest)
        if bad is not None:  # only what the wrong output depends on
            small, small_feeds = prune(model, feeds, outs[bad])
            onnx.save(small, os.path.join(dest, "model.onnx"))
            for i, a in enumerate(small_feeds):
                np.save(os.path.join(dest, "in%d.npy" % i), a)
            np.save(os.path.join(dest, "want0.npy"), want[bad])
        else:
            for f in os.listdir(work):
                if f.endswith((".onnx", ".npy")) and not f.startswith("got"):
                    shutil.copy(os.path.join(work, f), dest)
    if not args.keep or kind != "pass":
        shutil.rmtree(work, ignore_errors=True)
    return seed, kind, why, ops + (["(symbolic)"] if symbolic else [])


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tide-bin", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--failures", default="")
    p.add_argument("--target", default="cpu")
    p.add_argument("--cpu", default="", help="tide-compile's --cpu (the host of a GPU run)")
    p.add_argument("--keep", action="store_true",
                   help="keep each passing graph's folder (module, inputs, outputs) in --work")
    p.add_argument("--build-only", action="store_true",
                   help="import and compile only (a GPU target on a machine without one)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--count", type=int, default=50)
    p.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 1)))
    p.add_argument("--replay", nargs="*", default=None,
                   help="case directories to run again against their stored outputs")
    p.add_argument("-v", "--verbose", action="store_true")
    args = p.parse_args()
    os.makedirs(args.work, exist_ok=True)
    if args.replay is not None:
        cases = []
        for d in args.replay:  # a case, or a folder of cases
            if os.path.exists(os.path.join(d, "model.onnx")):
                cases.append(d)
            else:
                cases += sorted(os.path.join(d, c) for c in os.listdir(d))
        args.replay = cases
        failed = 0
        for case in args.replay:
            name, kind, why = replay(args, case)
            failed += kind != "pass"
            print("%s: %s%s" % (name, kind, (": " + why) if why else ""))
        print("%d cases, %d passed" % (len(args.replay), len(args.replay) - failed))
        return 1 if failed else 0
    seeds = range(args.seed, args.seed + args.count)
    counts = {"pass": 0, "mismatch": 0, "refused": 0, "error": 0, "skip": 0}
    with multiprocessing.Pool(args.jobs) as pool:
        for seed, kind, why, ops in pool.imap_unordered(
                lambda_check, [(args, s) for s in seeds]):
            counts[kind] += 1
            if kind != "pass" or args.verbose:
                print("seed %d: %s%s  [%s]" % (seed, kind, (": " + why) if why else "",
                                              " ".join(ops)), flush=True)
    print("%d graphs, %d passed, %d mismatches, %d refused, %d errors" % (
        args.count - counts["skip"], counts["pass"], counts["mismatch"], counts["refused"],
        counts["error"]))
    return 1 if counts["mismatch"] or counts["error"] else 0


def lambda_check(a):
    return check(*a)


if __name__ == "__main__":
    sys.exit(main())
