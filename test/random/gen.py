#!/usr/bin/env python3
"""Random valid Tide programs, and an independent NumPy interpreter for them.

A *program* is one function: a small DAG over the ops of the `tide` dialect,
described as plain data (JSON-able dicts, see `Func`), with the input arrays it
is run on. The generator builds it op by op and evaluates every op as it goes
(with the interpreter below), so it knows every value and can keep out of the
domains where the result is ill-defined or the reference cannot be trusted
(log of x <= 0, a float result that is not finite, a float cast to an integer
it does not fit, max/min/argmax over an empty axis, an avg_pool window with no
element in the input, a runtime broadcast of a dynamic dimension, ...).
Defined edge cases are generated and checked: integer division and remainders
by 0 (0), the minimum integer by -1, gather/scatter indices that count from
the end or fall outside the axis, empty tensors, unsigned wrap-around.

Which ops exist, their lowering family and the element types each accepts come
from `tide-opt --tide-list-kernels="format=json"` (the op facts in ODS), so a
new op is picked up automatically; an op whose family has no generator here, or
that has no NumPy semantics in SEMANTICS, fails by name (`coverage_problems`).

Every op family of the dialect is generated: elementwise, compare, select,
cast, matmul, reductions over one or several axes, arg reductions, softmax,
reshape, transpose, broadcast, concat and slice (odd shapes, empty parts,
large strides), gather, scatter (every reduction), cumsum and cumprod
(exclusive, reverse), conv (1-3 spatial dimensions, strides, dilations, pads, groups,
depthwise) and max/avg pooling (ceil_mode, count_include_pad), over all
thirteen element types (i1, i8..i64, ui8..ui64, f16, bf16, f32, f64), with
dynamic dimensions wherever the op allows them.

The interpreter computes every op in its element type's semantics: IEEE ops
(add, sub, mul, div, sqrt, neg, abs, floor, ...) exactly as the hardware does
(NumPy float16 computes in float32 and rounds once; bf16 is emulated: computed
in float32, rounded to bf16 once); transcendental ops, reductions, matmul and
softmax in float64 (long double for f64) and rounded once to the element type;
integers wrap. Where Tide's result may legitimately differ (transcendental
accuracy, summation order), `evaluate(..., noise=rng)` perturbs those ops'
results by a few units in the last place before rounding; the checker (diff.py)
derives each element's tolerance from the spread of such perturbed runs, so
errors that later ops amplify (cancellation, a floor that flips, a comparison
of nearly equal values) are tolerated exactly where they can happen, and
elements whose integer or boolean value depends on such rounding are not
compared.

Usage as a script (prints programs as MLIR):
    gen.py --ops OPS.json [--seed N] [--count N] [--target cpu|h200]
"""

import argparse
import json
import math
import sys

import numpy as np

SINTS = ["i8", "i16", "i32", "i64"]
UINTS = ["ui8", "ui16", "ui32", "ui64"]
INTS = SINTS + UINTS
FLOATS = ["f16", "bf16", "f32", "f64"]
ALL_TYPES = ["i1"] + INTS + FLOATS
INDEX_TYPES = ["i32", "i64"]     # gather's and scatter's indices

# Storage of values in the interpreter: bf16 values are float32 arrays holding
# bf16-exact values; unsigned values are NumPy's unsigned arrays (whose
# arithmetic wraps modulo 2^N and compares as unsigned, as Tide's does).
NP = {"i1": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
      "ui8": np.uint8, "ui16": np.uint16, "ui32": np.uint32, "ui64": np.uint64,
      "f16": np.float16, "bf16": np.float32, "f32": np.float32, "f64": np.float64}
# .npy storage for tide-run (bf16 as raw uint16 bits).
NPY = {"i1": np.dtype(np.bool_), "i8": np.dtype(np.int8), "i16": np.dtype("<i2"),
       "i32": np.dtype("<i4"), "i64": np.dtype("<i8"), "ui8": np.dtype("|u1"),
       "ui16": np.dtype("<u2"), "ui32": np.dtype("<u4"), "ui64": np.dtype("<u8"),
       "f16": np.dtype("<f2"), "bf16": np.dtype("<u2"), "f32": np.dtype("<f4"),
       "f64": np.dtype("<f8")}
# The 64-bit type integer sums, products and dot products are computed in
# (they wrap alike; the result keeps the low bits).
WIDE = {t: (np.uint64 if t in UINTS else np.int64) for t in INTS}
# Unit roundoff-ish: one unit in the last place, relative.
ULP = {"f16": 2.0 ** -10, "bf16": 2.0 ** -7, "f32": 2.0 ** -23, "f64": 2.0 ** -52}
# The type f16/bf16 sums and products accumulate in.
ACC = {"f16": "f32", "bf16": "f32", "f32": "f32", "f64": "f64"}
TINY = {"f16": 6.1e-5, "bf16": 1.2e-38, "f32": 1.2e-38, "f64": 2.3e-308}
INT_MIN = {t: int(np.iinfo(NP[t]).min) for t in INTS}
INT_MAX = {t: int(np.iinfo(NP[t]).max) for t in INTS}


class Violation(Exception):
    """The program leaves the domain where the reference is well defined."""


# ---------------------------------------------------------------------------
# bf16 emulation
# ---------------------------------------------------------------------------


def f32_to_bf16_bits(x):
    x = np.array(x, dtype=np.float32, order="C")
    flat = x.reshape(-1)
    bits = flat.view(np.uint32).astype(np.uint64)
    s = np.uint64(16)
    rounded = (bits + np.uint64(0x7FFF) + ((bits >> s) & np.uint64(1))) >> s
    out = (rounded & np.uint64(0xFFFF)).astype(np.uint16)
    nan = np.isnan(flat)
    out[nan] = ((bits[nan] >> s).astype(np.uint16) & np.uint16(0x8000)) | np.uint16(0x7FC0)
    return out.reshape(x.shape)


def bf16_bits_to_f32(u):
    u = np.array(u, dtype=np.uint16, order="C")
    return (u.reshape(-1).astype(np.uint32) << np.uint32(16)).view(np.float32).reshape(u.shape)


def f64_to_bf16(x):
    """float64 -> bf16 values (as float32), rounded once (to nearest even)."""
    x = np.array(x, dtype=np.float64, order="C")
    flat = x.reshape(-1)
    bits = flat.view(np.uint64)
    sh = np.uint64(45)   # 52 - 7 mantissa bits
    r = ((bits + np.uint64((1 << 44) - 1) + ((bits >> sh) & np.uint64(1))) >> sh) << sh
    out = r.view(np.float64).astype(np.float32)
    # Subnormal in float32 (and NaN/inf): the float32 path (exact enough there).
    odd = ~np.isfinite(flat) | (np.abs(flat) < 1.2e-38)
    if odd.any():
        out[odd] = bf16_bits_to_f32(f32_to_bf16_bits(flat[odd].astype(np.float32)))
    return out.reshape(x.shape)


def round_to(x, t):
    """High-precision float values -> the storage of float type t, rounded once."""
    with np.errstate(all="ignore"):
        if t == "bf16":
            return f64_to_bf16(np.asarray(x, dtype=np.float64))
        return np.asarray(x).astype(NP[t])


def to_npy(x, t):
    """Interpreter storage -> the array tide-run reads."""
    if t == "bf16":
        return f32_to_bf16_bits(x)
    return np.array(x, dtype=NPY[t], order="C")


def from_npy(a, t):
    if t == "bf16":
        return bf16_bits_to_f32(a)
    return np.asarray(a).astype(NP[t])


# ---------------------------------------------------------------------------
# Types and shapes
# ---------------------------------------------------------------------------


def tensor_type(ty, t):
    if not ty:
        return "tensor<%s>" % t
    return "tensor<%sx%s>" % ("x".join("?" if d is None else str(d) for d in ty), t)


def bcast_type(a, b):
    """MLIR's OpTrait::util::getBroadcastedShape on static/dynamic (None) dims."""
    n = max(len(a), len(b))
    a = [1] * (n - len(a)) + list(a)
    b = [1] * (n - len(b)) + list(b)
    out = []
    for x, y in zip(a, b):
        if x is None or y is None:
            if x is not None and x > 1:
                out.append(x)
            elif y is not None and y > 1:
                out.append(y)
            elif x == 1:
                out.append(y)
            elif y == 1:
                out.append(x)
            else:
                out.append(None)
        elif x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            return None
    return out


def bcast_runtime_ok(vals):
    """Whether operands (type, shape) broadcast at run time as Tide lowers it: a
    size-1 dimension broadcasts only where it is static."""
    n = max(len(v["shape"]) for v in vals)
    for d in range(1, n + 1):
        dims = [(v["type"][-d], v["shape"][-d]) for v in vals if len(v["shape"]) >= d]
        sizes = set(c for _, c in dims)
        if len(sizes) == 1:
            continue
        big = sizes - {1}
        if len(big) > 1:
            return False
        for ty, c in dims:
            if c == 1 and ty is None:
                return False
    return True


def numel(shape):
    return int(np.prod(shape, dtype=np.int64)) if shape else 1


# ---------------------------------------------------------------------------
# Op semantics (the reference)
# ---------------------------------------------------------------------------


def _erf(x):
    x = np.asarray(x, dtype=np.float64)
    return np.vectorize(math.erf, otypes=[np.float64])(x) if x.size else x.copy()


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


# Unary: (float function on high precision, int function on native ints (None:
# floats only), bool function, class, domain). Class 'ieee': computed exactly in
# the element type; 'transc': high precision + noise.
UNARY = {
    "neg": (lambda x: -x, lambda x: -x, None, "ieee", None),
    "abs": (np.abs, np.abs, None, "ieee", None),
    # The integer 0 of x's own type: NumPy 1.x turns a uint64 scalar and a
    # Python int into float64 (a ui64 relu of 1408589127323458717 lost its
    # low bits in the reference).
    "relu": (lambda x: np.maximum(x, 0), lambda x: np.maximum(x, np.zeros((), x.dtype)), None,
             "ieee", None),
    "floor": (np.floor, None, None, "ieee", None),
    "ceil": (np.ceil, None, None, "ieee", None),
    "round": (np.round, None, None, "ieee", None),
    "sqrt": (np.sqrt, None, None, "ieee", "nonneg"),
    "exp": (np.exp, None, None, "transc", None),
    "log": (np.log, None, None, "transc", "pos"),
    "rsqrt": (lambda x: 1 / np.sqrt(x), None, None, "transc", "pos"),
    "tanh": (np.tanh, None, None, "transc", None),
    "sigmoid": (_sigmoid, None, None, "transc", None),
    "sin": (np.sin, None, None, "transc", None),
    "cos": (np.cos, None, None, "transc", None),
    "erf": (_erf, None, None, "transc", None),
    "elu": (None, None, None, "transc", None),   # alpha: see eval_op
    "not": (None, np.invert, np.logical_not, "ieee", None),
    "tan": (np.tan, None, None, "transc", None),
    "asin": (np.arcsin, None, None, "transc", "unit"),
    "acos": (np.arccos, None, None, "transc", "unit"),
    "atan": (np.arctan, None, None, "transc", None),
    "sinh": (np.sinh, None, None, "transc", None),
    "cosh": (np.cosh, None, None, "transc", None),
    "asinh": (np.arcsinh, None, None, "transc", None),
    "acosh": (np.arccosh, None, None, "transc", "ge1"),
    "atanh": (np.arctanh, None, None, "transc", "open_unit"),
    "sign": (np.sign, lambda x: np.sign(x).astype(x.dtype), None, "ieee", None),
}

BINARY = {
    "add": (lambda a, b: a + b, lambda a, b: a + b, None, "ieee"),
    "sub": (lambda a, b: a - b, lambda a, b: a - b, None, "ieee"),
    "mul": (lambda a, b: a * b, lambda a, b: a * b, None, "ieee"),
    "div": (lambda a, b: a / b, "truncdiv", None, "ieee"),
    "pow": (np.power, None, None, "transc"),
    "maximum": (np.maximum, np.maximum, None, "ieee"),
    "minimum": (np.minimum, np.minimum, None, "ieee"),
    "and": (None, np.bitwise_and, np.logical_and, "ieee"),
    "or": (None, np.bitwise_or, np.logical_or, "ieee"),
    "xor": (None, np.bitwise_xor, np.logical_xor, "ieee"),
    "rem": (np.fmod, "rem", None, "ieee"),
    "mod": (np.mod, "mod", None, "ieee"),
    # On i1 a shift by true (1, the bit width) gives 0, by false the value.
    "shl": (None, "shl", lambda a, b: np.logical_and(a, np.logical_not(b)), "ieee"),
    "shr": (None, "shr", lambda a, b: np.logical_and(a, np.logical_not(b)), "ieee"),
}

# Families the generator does not write (none today; an entry here must be
# documented in docs/reliability.md and covered by numerics.py).
NOT_GENERATED = set()

CMP = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
       "gt": np.greater, "ge": np.greater_equal}

REDUCE = {"reduce_sum": np.sum, "reduce_max": np.max, "reduce_min": np.min,
          "reduce_prod": np.prod, "reduce_mean": np.mean}
ARGREDUCE = {"argmax": np.argmax, "argmin": np.argmin}

# Every op this file can generate and evaluate, by family. coverage_problems()
# compares it with tide-opt's list.
SEMANTICS = {
    "unary": set(UNARY), "binary": set(BINARY), "compare": {"cmp"}, "select": {"select"},
    "cast": {"cast", "bitcast"}, "matmul": {"matmul"}, "reduction": set(REDUCE),
    "arg_reduction": set(ARGREDUCE), "reshape": {"reshape"}, "transpose": {"transpose"},
    "broadcast": {"broadcast_to"}, "concat": {"concat"}, "slice": {"slice"},
    "softmax": {"softmax", "log_softmax"}, "constant": {"constant"},
    "dim": {"dim"}, "iota": {"iota"}, "dynamic_slice": {"dynamic_slice"},
    "gather": {"gather"}, "scatter": {"scatter"}, "cumsum": {"cumsum", "cumprod"},
    "conv": {"conv"},
    "pool": {"max_pool", "avg_pool"},
    "nonzero": {"nonzero"}, "non_max_suppression": {"non_max_suppression"},
    "top_k": {"top_k"}, "scan": {"scan"}, "if": {"if"}, "check": {"check"},
}


def eval_top_k(x, k, axis, smallest):
    """Indices of the k largest (smallest) elements along `axis`, sorted;
    equal values by index, NaN the largest; positions past the axis 0."""
    x = np.moveaxis(np.asarray(x), axis, -1)
    n = x.shape[-1]
    if smallest:
        order = np.argsort(x, axis=-1, kind="stable")
    else:
        # A stable ascending sort of the reversed row, reversed: decreasing
        # values (NaN first, as argsort puts it last), ties by increasing index.
        order = n - 1 - np.argsort(x[..., ::-1], axis=-1, kind="stable")[..., ::-1]
    out = np.zeros(x.shape[:-1] + (k,), dtype=np.int64)
    m = min(k, n)
    out[..., :m] = order[..., :m]
    return np.ascontiguousarray(np.moveaxis(out, -1, axis))


def eval_nms(boxes, scores, limit, iou, threshold, center):
    """ONNX Runtime's NonMaxSuppression (float64; the generated boxes and
    thresholds make every comparison exact)."""
    boxes, scores = np.asarray(boxes, np.float64), np.asarray(scores, np.float64)

    def extents(b):
        if center:
            return (b[0] - b[2] / 2, b[0] + b[2] / 2, b[1] - b[3] / 2, b[1] + b[3] / 2)
        return (min(b[1], b[3]), max(b[1], b[3]), min(b[0], b[2]), max(b[0], b[2]))

    def suppresses(c, s):
        ixmin, ixmax = max(c[0], s[0]), min(c[1], s[1])
        iymin, iymax = max(c[2], s[2]), min(c[3], s[3])
        if ixmax <= ixmin or iymax <= iymin:
            return False
        inter = (ixmax - ixmin) * (iymax - iymin)
        ac, as_ = (c[1] - c[0]) * (c[3] - c[2]), (s[1] - s[0]) * (s[3] - s[2])
        union = ac + as_ - inter
        if inter <= 0 or ac <= 0 or as_ <= 0 or union <= 0:
            return False
        return inter / union > iou

    rows = []
    for b in range(scores.shape[0]):
        for c in range(scores.shape[1]):
            cand = [i for i in range(scores.shape[2])
                    if threshold is None or scores[b, c, i] > threshold]
            cand.sort(key=lambda i: (-scores[b, c, i], i))
            chosen = []
            for i in cand:
                if len(chosen) >= max(int(limit), 0):
                    break
                if not any(suppresses(extents(boxes[b, i]), extents(boxes[b, j])) for j in chosen):
                    chosen.append(i)
                    rows.append((b, c, i))
    return np.array(rows, dtype=np.int64).reshape(-1, 3)


def coverage_problems(ops):
    problems = []
    for name, op in sorted(ops.items()):
        fam = op["family"]
        if fam in NOT_GENERATED:
            continue
        if fam not in SEMANTICS:
            problems.append("tide.%s: gen.py has no generator for family '%s'; add one "
                            "(GEN_FAMILY and SEMANTICS in test/random/gen.py)" % (name, fam))
        elif name not in SEMANTICS[fam]:
            problems.append("tide.%s: gen.py has no NumPy semantics for it (family %s); add it "
                            "to SEMANTICS in test/random/gen.py" % (name, fam))
    return problems


def _hi(x, t):
    """Float values -> the precision references are computed in."""
    return np.asarray(x, dtype=np.longdouble if t == "f64" else np.float64)


def _noise(rng, y, scale):
    """y * (1 + u * scale) with u uniform in [-1, 1] (scale: array or scalar
    relative size). Every value between the exact result and the bounds
    occurs, so a comparison or a floor that an error of that size may flip is
    seen to flip in some run (with |u| >= 0.5 only, as before, results within
    half the bound of the exact value never occurred: sinh(x) == x for a tiny
    x, where Tide's sinh is off by 0.9 ulp, was always false)."""
    u = rng.uniform(-1.0, 1.0, size=np.shape(y))
    return y + y * u * scale


def _noise_abs(rng, y, amount):
    """`y` moved by up to `amount`. An element smaller than that may also be
    exactly 0 (half the time): an error that large comes from cancellation,
    which can leave 0 (log_softmax of the largest element, 0 - log(1 + 1e-11)
    in f32, is 0 where the exact value is -1e-11; a remainder by it is then
    NaN)."""
    u = rng.uniform(-1.0, 1.0, size=np.shape(y))
    zero = (np.abs(y) < amount) & (rng.uniform(0.0, 1.0, size=np.shape(y)) < 0.5)
    return np.where(zero, 0.0, y + u * amount)


def check_finite(y, what):
    if y.dtype.kind == "f" and y.size and not np.all(np.isfinite(y)):
        raise Violation("%s is not finite" % what)


def trunc_div(a, b):
    """C's truncating a / b on int64 values (b != 0), exact also for the
    minimum integer (whose magnitude int64 cannot hold): the magnitudes are
    divided as uint64; the minimum integer by -1 wraps to itself."""
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    with np.errstate(all="ignore"):
        ua = np.where(a64 < 0, np.uint64(0) - a64.astype(np.uint64), a64.astype(np.uint64))
        ub = np.where(b64 < 0, np.uint64(0) - b64.astype(np.uint64), b64.astype(np.uint64))
        q = ua // ub
        q = np.where((a64 < 0) != (b64 < 0), np.uint64(0) - q, q)
    return q.view(np.int64) if isinstance(q, np.ndarray) else np.int64(q)


K_TRANSC = 2.0      # noise, in ULPs of the element type, on transcendental results


def eval_scan(op, ins, rng=None, strict=True):
    """tide.scan as gen.py builds it: state s, slice x, invariant b; per step
    m = op1(s, x), n = op2(m, b), optionally a unary op on n; n is the next
    state, m or n the step's output, stacked at the slice's position."""
    t, a = op["dtype"], op["attrs"]
    init, seq, inv = ins
    state, outs = init, [None] * seq.shape[0]
    order = range(seq.shape[0])
    if "stop" in a:
        # Conditional: step k runs while the condition holds (`first`, then
        # k < stop after step k - 1).
        order = range(min(seq.shape[0], max(a["stop"], 1)) if a["first"] else 0)
        outs = [None] * len(order)
    for k in (reversed(order) if a.get("reverse") else order):
        m = eval_op({"op": a["op1"], "dtype": t}, [state, seq[k]], rng, strict)
        n = eval_op({"op": a["op2"], "dtype": t}, [m, inv], rng, strict)
        if a.get("unary"):
            n = eval_op({"op": a["unary"], "dtype": t}, [n], rng, strict)
        check_finite(n, "tide.scan's state")
        state = n
        outs[k] = m if a["out"] == "m" else n
    if not outs:
        return np.zeros((0,) + seq.shape[1:], NP[t])
    return np.stack(outs).astype(NP[t])


def eval_if(op, ins, rng=None, strict=True):
    """tide.if as gen.py builds it: condition c, invariants x and y; the then
    region is op1(x, y), optionally a unary op after; the else region a unary
    op on x, the first `take` rows of x, or y. Only the region taken is
    evaluated (the other may be outside the reference's domain)."""
    t, a = op["dtype"], op["attrs"]
    c, x, y = ins
    if bool(np.asarray(c)):
        r = eval_op({"op": a["op1"], "dtype": t}, [x, y], rng, strict)
        if a.get("unary"):
            r = eval_op({"op": a["unary"], "dtype": t}, [r], rng, strict)
    elif a["else"] == "take":
        r = np.asarray(x)[:a["take"]]
    elif a["else"] == "y":
        r = y
    else:
        r = eval_op({"op": a["else"], "dtype": t}, [x], rng, strict)
    return np.asarray(r).astype(NP[t])


def eval_op(op, ins, rng=None, strict=True):
    """One op on interpreter values. `rng`: perturb inexact results (a noisy
    run). `strict`: raise Violation outside the reference's domain."""
    name, t, a = op["op"], op["dtype"], op.get("attrs", {})
    if name == "scan":
        return eval_scan(op, ins, rng, strict)
    if name == "if":
        return eval_if(op, ins, rng, strict)
    with np.errstate(all="ignore"):
        if name in UNARY:
            x = ins[0]
            ffn, ifn, bfn, cls, dom = UNARY[name]
            if t == "i1":
                return bfn(x)
            if t in INTS:
                return ifn(x).astype(NP[t])
            if strict and dom and x.size:
                if dom == "pos" and not np.all(x > 0):
                    raise Violation("%s of a value <= 0" % name)
                if dom == "nonneg" and not np.all(x >= 0):
                    raise Violation("%s of a negative value" % name)
                if dom == "unit" and not np.all(np.abs(x.astype(np.float64)) <= 1):
                    raise Violation("%s outside [-1, 1]" % name)
                if dom == "open_unit" and not np.all(np.abs(x.astype(np.float64)) < 1):
                    raise Violation("%s outside (-1, 1)" % name)
                if dom == "ge1" and not np.all(x.astype(np.float64) >= 1):
                    raise Violation("%s below 1" % name)
            if name == "elu":
                alpha = a.get("alpha", 1.0)
                h = _hi(x, t)
                y = np.where(h > 0, h, alpha * np.expm1(h))
            elif cls == "ieee" and t != "bf16":
                return np.asarray(ffn(x)).astype(NP[t])
            else:
                y = ffn(_hi(x, t))
            if rng is not None and cls == "transc":
                y = _noise(rng, y, K_TRANSC * ULP[t])
            return round_to(y, t)
        if name in BINARY:
            x, y = ins
            ffn, ifn, bfn, cls = BINARY[name]
            if t == "i1":
                return bfn(x, y)
            if t in INTS:
                # Division and remainders by 0 give 0; the minimum integer by
                # -1 wraps (div) or gives 0 (rem, mod), as documented.
                if ifn in ("truncdiv", "rem", "mod") and t in UINTS:
                    a, b = np.broadcast_arrays(x, y)
                    zero = b == 0
                    safe = np.where(zero, np.ones_like(b), b)
                    r = (a // safe) if ifn == "truncdiv" else (a % safe)
                    return np.where(zero, np.zeros_like(r), r).astype(NP[t])
                if ifn == "truncdiv":
                    a64, b64 = np.broadcast_arrays(x.astype(np.int64), y.astype(np.int64))
                    zero = b64 == 0
                    q = trunc_div(a64, np.where(zero, 1, b64))
                    return np.where(zero, 0, q).astype(NP[t])
                if ifn in ("rem", "mod"):
                    a64, b64 = np.broadcast_arrays(x.astype(np.int64), y.astype(np.int64))
                    zero = b64 == 0
                    b64 = np.where(zero, 1, b64)
                    r = a64 - trunc_div(a64, b64) * b64
                    if ifn == "mod":
                        r = np.where((r != 0) & ((r < 0) != (b64 < 0)), r + b64, r)
                    return np.where(zero, 0, r).astype(NP[t])
                if ifn in ("shl", "shr"):
                    bits = np.dtype(NP[t]).itemsize * 8
                    a64, b64 = np.broadcast_arrays(x.astype(np.int64), y.astype(np.int64))
                    ok = (b64 >= 0) & (b64 < bits)
                    sh = np.where(ok, b64, 0).astype(np.uint64)
                    mask = np.uint64((1 << bits) - 1) if bits < 64 else np.uint64(0xFFFFFFFFFFFFFFFF)
                    u = a64.astype(np.uint64) & mask
                    r = ((u << sh) if ifn == "shl" else (u >> sh)) & mask
                    r = np.where(ok, r, np.uint64(0)).astype(np.uint64)
                    return r.astype(np.dtype("u%d" % (bits // 8))).view(NP[t]).reshape(r.shape)
                return np.asarray(ifn(x, y)).astype(NP[t])
            if name == "pow":
                if strict and np.broadcast_to(x, np.broadcast_shapes(x.shape, y.shape)).size and \
                        not np.all(x > 0):
                    raise Violation("pow of a base <= 0")
                r = np.power(_hi(x, t), _hi(y, t))
                if rng is not None:
                    r = _noise(rng, r, K_TRANSC * ULP[t])
                return round_to(r, t)
            if name in ("rem", "mod") and strict and x.size and np.any(y == 0):
                raise Violation("remainder by 0")
            if t == "bf16":
                return round_to(ffn(x.astype(np.float64), y.astype(np.float64)), t)
            return np.asarray(ffn(x, y)).astype(NP[t])
        if name == "cmp":
            return CMP[a["predicate"]](ins[0], ins[1])
        if name == "select":
            return np.where(ins[0], ins[1], ins[2]).astype(NP[t])
        if name == "cast":
            return eval_cast(ins[0], a["from"], t, strict)
        if name == "bitcast":
            return ins[0].copy() if t == "i1" else ins[0].view(NP[t]).copy()
        if name == "constant":
            return np.array(a["value"], dtype=np.float64 if t in FLOATS else WIDE.get(t, np.int64)) \
                .astype(NP[t]) if t != "i1" else np.array(a["value"], dtype=np.bool_)
        if name == "matmul":
            x, y = ins
            if t in INTS:
                r = np.matmul(x.astype(WIDE[t]), y.astype(WIDE[t]))
                return r.astype(NP[t])
            hx, hy = _hi(x, t), _hi(y, t)
            r = np.matmul(hx, hy)
            if strict and x.shape[-1] > 0 and r.size and np.any(
                    np.matmul(np.abs(hx), np.abs(hy)) > float(np.finfo(NP[ACC[t]]).max) / 1e3):
                raise Violation("a partial dot product overflows %s" % ACC[t])
            if rng is not None and x.shape[-1] > 0:
                mag = np.matmul(np.abs(hx), np.abs(hy))
                k = x.shape[-1]
                r = _noise_abs(rng, r, mag * ULP[ACC[t]] * 2 * (math.sqrt(k) + 2))
                r = _noise(rng, r, ULP[t])
            return round_to(r, t)
        if name in REDUCE:
            x = ins[0]
            axes = tuple(sorted(ax % x.ndim for ax in a["axes"])) if x.ndim else ()
            keep = a.get("keepdims", False)
            n = int(np.prod([x.shape[ax] for ax in axes])) if axes else 1
            if strict and n == 0 and name in ("reduce_max", "reduce_min", "reduce_mean"):
                raise Violation("%s over an empty axis" % name)
            if t in INTS:
                fn = REDUCE[name]
                if name in ("reduce_sum", "reduce_prod"):
                    r = fn(x.astype(WIDE[t]), axis=axes, keepdims=keep)
                else:
                    r = fn(x, axis=axes, keepdims=keep)
                return np.asarray(r).astype(NP[t])
            if name in ("reduce_max", "reduce_min"):
                return np.asarray(REDUCE[name](x, axis=axes, keepdims=keep)).astype(NP[t])
            h = _hi(x, t)
            if strict and n > 0 and name in ("reduce_prod", "reduce_sum", "reduce_mean"):
                # The accumulator must not overflow or underflow part way
                # (an inf times a 0 later is NaN): the result would depend on
                # the order of the steps.
                big = float(np.finfo(NP[ACC[t]]).max) / 1e3
                a = np.abs(h)
                if name == "reduce_prod":
                    hi_part = np.prod(np.where(a > 1, a, 1), axis=axes)
                    lo_part = np.prod(np.where((a < 1) & (a > 0), a, 1), axis=axes)
                    if np.any(hi_part > big) or np.any(lo_part < 1e3 * TINY[ACC[t]]):
                        raise Violation("a partial product leaves the range of %s" % ACC[t])
                elif np.any(np.sum(a, axis=axes) > big):
                    raise Violation("a partial sum overflows %s" % ACC[t])
            r = REDUCE[name](h, axis=axes, keepdims=keep)
            if rng is not None and n > 0:
                if name == "reduce_prod":
                    r = _noise(rng, r, ULP[ACC[t]] * 2 * (n + 1))
                else:
                    mag = np.sum(np.abs(h), axis=axes, keepdims=keep)
                    if name == "reduce_mean":
                        mag = mag / n
                    r = _noise_abs(rng, r, mag * ULP[ACC[t]] * 2 * (math.sqrt(n) + 2))
                r = _noise(rng, r, ULP[t])
            return round_to(np.asarray(r), t)
        if name in ARGREDUCE:
            x = ins[0]
            ax = a["axes"][0] % x.ndim
            if strict and x.shape[ax] == 0:
                raise Violation("%s over an empty axis" % name)
            r = ARGREDUCE[name](x, axis=ax)
            if a.get("keepdims"):
                r = np.expand_dims(r, ax)
            return np.asarray(r).astype(np.int64)
        if name in ("softmax", "log_softmax"):
            x = ins[0]
            ax = a["axis"]
            h = _hi(x, t)
            if x.size == 0:
                return x.copy()
            m = np.max(h, axis=ax, keepdims=True)
            e = np.exp(h - m)
            s = np.sum(e, axis=ax, keepdims=True)
            # The sum's summation order: a relative error up to ~sqrt(n) ulps.
            n = x.shape[ax]
            sum_err = ULP[ACC[t]] * 2 * (math.sqrt(n) + 2)
            if name == "softmax":
                r = e / s
                if rng is not None:
                    r = _noise(rng, r, ULP[ACC[t]] * 4 * (1 + np.abs(h - m)) + sum_err + ULP[t])
            else:
                r = h - m - np.log(s)
                if rng is not None:
                    r = _noise_abs(rng, r, ULP[ACC[t]] * 4 * (np.abs(h - m) + np.abs(np.log(s)) + 1)
                                   + sum_err)
                    r = _noise(rng, r, ULP[t])
            return round_to(r, t)
        if name == "reshape":
            return ins[0].reshape(op["shape"])
        if name == "transpose":
            return np.transpose(ins[0], a["perm"]).copy()
        if name == "broadcast_to":
            return np.broadcast_to(ins[0], op["shape"]).copy()
        if name == "concat":
            return np.concatenate(ins, axis=a["axis"])
        if name == "slice":
            return ins[0][tuple(slice(s, l, st) for s, l, st in
                                zip(a["start"], a["limit"], a["strides"]))].copy()
        if name == "dim":
            return np.array([ins[0].shape[a["axis"]]], dtype=np.int64)
        if name == "check":
            # The generator only makes conditions that hold.
            if not bool(np.asarray(ins[1]).reshape(-1)[0]):
                raise AssertionError("tide.check: the condition does not hold")
            return ins[0].copy()
        if name == "iota":
            # The sizes are the shape operand's values (read at run time).
            shape = tuple(int(d) for d in ins[0])
            ax = a["axis"]
            index = np.arange(shape[ax]).reshape([-1 if d == ax else 1 for d in range(len(shape))])
            # C order: astype keeps the broadcast's odd strides otherwise.
            return np.ascontiguousarray(np.broadcast_to(index, shape), dtype=NP[t])
        if name == "nonzero":
            x = ins[0]
            if x.ndim == 0:
                return np.zeros((0, int(x != 0)), dtype=np.int64)
            return np.array(np.nonzero(x), dtype=np.int64).reshape(x.ndim, -1)
        if name == "top_k":
            return eval_top_k(ins[0], int(ins[1].reshape(-1)[0]), a["axis"],
                              a.get("smallest", False))
        if name == "non_max_suppression":
            return eval_nms(ins[0], ins[1], ins[2].reshape(-1)[0], ins[3].reshape(-1)[0],
                            ins[4].reshape(-1)[0] if len(ins) > 4 else None,
                            a.get("center", False))
        if name == "dynamic_slice":
            return ins[0][tuple(slice(int(s), int(l), st) for s, l, st in
                                zip(ins[1], ins[2], a["strides"]))].copy()
        if name == "gather":
            return eval_gather(ins[0], ins[1], a["axis"])
        if name == "scatter":
            return eval_scatter(ins[0], ins[1], ins[2], a["axis"], a.get("reduction", "none"), t,
                                rng, strict)
        if name == "cumsum":
            return eval_cumsum(ins[0], a["axis"], a.get("exclusive", False), a.get("reverse", False),
                               t, rng, strict)
        if name == "cumprod":
            return eval_cumprod(ins[0], a["axis"], a.get("exclusive", False),
                                a.get("reverse", False), t, rng, strict)
        if name == "conv":
            return eval_conv(ins[0], ins[1], a, t, rng, strict)
        if name in ("max_pool", "avg_pool"):
            return eval_pool(name, ins[0], a, t, rng, strict)
    raise AssertionError("no semantics for tide.%s" % name)


def eval_gather(x, indices, axis):
    """take_along_axis with Tide's rules: an index in [-n, 0) counts from the
    end, the rest is clamped to [0, n - 1]; an empty axis gives zeros; along
    the other axes the indices may be smaller than x (its leading part is
    read)."""
    axis %= x.ndim
    n = x.shape[axis]
    idx = np.asarray(indices).astype(np.int64)
    if n == 0 or idx.size == 0:
        return np.zeros(idx.shape, dtype=x.dtype)
    k = np.where(idx < 0, idx + n, idx)
    k = np.clip(k, 0, n - 1)
    part = x[tuple(slice(None) if d == axis else slice(0, idx.shape[d]) for d in range(x.ndim))]
    return np.take_along_axis(part, k, axis).copy()


def scatter_targets(shape, indices, axis):
    """Flat positions in an array of `shape` that the elements of `indices`
    (row-major order) land on, and which of them land at all (an index in
    [-n, 0) counts from the end, others outside [0, n) write nothing)."""
    n = shape[axis]
    idx = np.asarray(indices).astype(np.int64)
    k = np.where(idx < 0, idx + n, idx)
    ok = (k >= 0) & (k < n)
    grids = np.indices(idx.shape)
    coords = [np.where(ok, k, 0) if d == axis else grids[d] for d in range(len(shape))]
    if not idx.size or not ok.any():
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=bool)
    flat = np.ravel_multi_index([c.reshape(-1) for c in coords], shape)
    return flat, ok.reshape(-1)


def eval_scatter(data, indices, updates, axis, reduction, t, rng=None, strict=True):
    """ONNX ScatterElements with Tide's rules: updates apply in row-major order
    (for `none` the last one landing on an element wins). Sums and products
    are computed in Tide's order (along the axis, in the accumulator type:
    f32 for f16/bf16) and rounded once; a noisy run allows for another order
    of the same steps."""
    axis %= data.ndim
    # C order, so that out.reshape(-1) below is a view: a copy of a
    # non-contiguous input (an iota's) keeps its strides otherwise, and the
    # updates would go to a temporary.
    out = np.array(data, copy=True, order="C")
    flat, ok = scatter_targets(data.shape, indices, axis)
    flat, upd = flat[ok], np.asarray(updates).reshape(-1)[ok]
    if reduction == "none":
        # The last update landing on each position.
        rev = flat[::-1]
        uniq, first = np.unique(rev, return_index=True)
        out.reshape(-1)[uniq] = upd[::-1][first]
        return out
    if reduction in ("max", "min"):
        fn = np.maximum if reduction == "max" else np.minimum
        o = out.reshape(-1)
        fn.at(o, flat, upd)
        return out
    fn = np.add if reduction == "add" else np.multiply
    if t in FLOATS:
        acc = np.float64 if t == "f64" else np.float32
        o = out.reshape(-1).astype(acc)
        if strict and upd.size:
            mag = np.abs(o.astype(np.float64))
            if reduction == "add":
                np.add.at(mag, flat, np.abs(upd.astype(np.float64)))
            else:
                np.multiply.at(mag, flat, np.maximum(np.abs(upd.astype(np.float64)), 1))
            if np.any(mag > float(np.finfo(acc).max) / 1e3):
                raise Violation("a partial scatter %s leaves the range of %s" % (reduction, acc.__name__))
        fn.at(o, flat, upd.astype(acc))
        r = o.astype(np.float64)
        if rng is not None and upd.size:
            cnt = np.bincount(flat, minlength=o.size).astype(np.float64)
            if reduction == "add":
                mag = np.abs(out.reshape(-1).astype(np.float64))
                np.add.at(mag, flat, np.abs(upd.astype(np.float64)))
                r = _noise_abs(rng, r, mag * ULP[ACC[t]] * 2 * cnt)
            else:
                r = _noise(rng, r, ULP[ACC[t]] * 2 * cnt)
        return round_to(r, t).reshape(data.shape)
    o = out.reshape(-1)
    fn.at(o, flat, upd)            # integers wrap, as Tide's do
    return out


def eval_cumsum(x, axis, exclusive, reverse, t, rng=None, strict=True):
    axis %= x.ndim
    if reverse:
        x = np.flip(x, axis)
    n = x.shape[axis]
    if t in INTS:
        c = np.cumsum(x.astype(WIDE[t]), axis=axis)
    else:
        h = _hi(x, t)
        c = np.cumsum(h, axis=axis)
        mag = np.cumsum(np.abs(h), axis=axis)
        if strict and mag.size and np.any(mag > float(np.finfo(NP[ACC[t]]).max) / 1e3):
            raise Violation("a partial cumulative sum overflows %s" % ACC[t])
    if exclusive:
        zero = np.zeros_like(np.take(c, [0], axis=axis)) if n else None
        if n:
            c = np.concatenate([zero, np.take(c, range(n - 1), axis=axis)], axis=axis)
            if t not in INTS:
                mag = np.concatenate([zero, np.take(mag, range(n - 1), axis=axis)], axis=axis)
    if t in INTS:
        r = c.astype(NP[t])
    else:
        if rng is not None and n:
            c = _noise_abs(rng, c, mag * ULP[ACC[t]] * 2 * (math.sqrt(n) + 2))
            c = _noise(rng, c, ULP[t])
        r = round_to(c, t)
    return np.flip(r, axis).copy() if reverse else r


def eval_cumprod(x, axis, exclusive, reverse, t, rng=None, strict=True):
    """Cumulative products (integers wrap, as Tide's do); a float partial
    product must stay inside the accumulator's range, where the result does
    not depend on the order of the steps (as reduce_prod)."""
    axis %= x.ndim
    if reverse:
        x = np.flip(x, axis)
    n = x.shape[axis]
    if t in INTS:
        with np.errstate(over="ignore"):
            c = np.cumprod(x.astype(WIDE[t]), axis=axis)
    else:
        h = _hi(x, t)
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            c = np.cumprod(h, axis=axis)
            a = np.abs(h)
            hi_part = np.cumprod(np.where(a > 1, a, 1), axis=axis)
            lo_part = np.cumprod(np.where((a < 1) & (a > 0), a, 1), axis=axis)
        big = float(np.finfo(NP[ACC[t]]).max) / 1e3
        if strict and c.size and (np.any(hi_part > big) or np.any(lo_part < 1e3 * TINY[ACC[t]])):
            raise Violation("a partial cumulative product leaves the range of %s" % ACC[t])
    if exclusive and n:
        one = np.ones_like(np.take(c, [0], axis=axis))
        c = np.concatenate([one, np.take(c, range(n - 1), axis=axis)], axis=axis)
    if t in INTS:
        r = c.astype(NP[t])
    else:
        if rng is not None and n:
            c = _noise(rng, c, ULP[ACC[t]] * 2 * (n + 1))
            c = _noise(rng, c, ULP[t])
        r = round_to(c, t)
    return np.flip(r, axis).copy() if reverse else r


def window_sizes(sizes, kernel, strides, dilations, pads, ceil_mode=False):
    """Output sizes of a conv or pool (getWindowOutputSize)."""
    k = len(sizes)
    outs = []
    for i in range(k):
        span = sizes[i] + pads[i] + pads[k + i] - dilations[i] * (kernel[i] - 1) - 1
        o = (-(-span // strides[i]) if ceil_mode else span // strides[i]) + 1
        if ceil_mode and (o - 1) * strides[i] >= sizes[i] + pads[i]:
            o -= 1   # the last window would start in the end padding
        outs.append(o)
    return outs


def conv_nd(x, w, strides, dilations, pads, groups):
    """N-D NCHW convolution (cross-correlation) from the definition, in x's
    precision: zero padding, then for every kernel offset the strided input
    patch times that offset's weights, per group."""
    k = x.ndim - 2
    x = np.pad(x, [(0, 0), (0, 0)] + [(pads[i], pads[k + i]) for i in range(k)])
    n, c = x.shape[:2]
    f = w.shape[0]
    cg, fg = c // groups, f // groups
    outs = [(x.shape[2 + i] - dilations[i] * (w.shape[2 + i] - 1) - 1) // strides[i] + 1
            for i in range(k)]
    y = np.zeros((n, f) + tuple(outs), dtype=x.dtype)
    for off in np.ndindex(*w.shape[2:]):
        window = tuple(slice(off[i] * dilations[i],
                             off[i] * dilations[i] + strides[i] * (outs[i] - 1) + 1, strides[i])
                       for i in range(k))
        patch = x[(slice(None), slice(None)) + window]          # (n, c, outs...)
        for g in range(groups):
            wg = w[(slice(g * fg, (g + 1) * fg), slice(None)) + off]   # (fg, cg)
            part = np.tensordot(wg, patch[:, g * cg:(g + 1) * cg], axes=([1], [1]))
            y[:, g * fg:(g + 1) * fg] += np.moveaxis(part, 0, 1)
    return y


def eval_conv(x, w, a, t, rng=None, strict=True):
    hx, hw = _hi(x, t), _hi(w, t)
    args = (a["strides"], a["dilations"], a["pads"], a.get("groups", 1))
    r = conv_nd(hx, hw, *args)
    k = int(np.prod(w.shape[1:]))
    if (strict or rng is not None) and r.size and k:
        mag = conv_nd(np.abs(hx), np.abs(hw), *args)
        if strict and np.any(mag > float(np.finfo(NP[ACC[t]]).max) / 1e3):
            raise Violation("a partial convolution sum overflows %s" % ACC[t])
        if rng is not None:
            r = _noise_abs(rng, r, mag * ULP[ACC[t]] * 2 * (math.sqrt(k) + 2))
            r = _noise(rng, r, ULP[t])
    return round_to(r, t)


def eval_pool(name, x, a, t, rng=None, strict=True):
    """max or avg pooling, window by window: the in-bounds elements of each
    window; their max (-inf / the lowest integer when there are none), or
    their sum over their count (with count_include_pad: the window positions
    inside the padded input)."""
    kernel, strides, dilations, pads = a["kernel"], a["strides"], a["dilations"], a["pads"]
    ceil_mode, include = a.get("ceil_mode", False), a.get("count_include_pad", False)
    k = x.ndim - 2
    sizes = x.shape[2:]
    outs = window_sizes(sizes, kernel, strides, dilations, pads, ceil_mode)
    is_max = name == "max_pool"
    h = x if is_max else _hi(x, t)
    y = np.zeros(x.shape[:2] + tuple(outs), dtype=x.dtype if is_max else h.dtype)
    mag = np.zeros(y.shape) if not is_max else None
    counts = np.zeros(tuple(outs))
    for o in np.ndindex(*outs):
        inside, padded = [], 1
        for i in range(k):
            pos = [o[i] * strides[i] - pads[i] + j * dilations[i] for j in range(kernel[i])]
            inside.append([p for p in pos if 0 <= p < sizes[i]])
            padded *= sum(1 for p in pos if -pads[i] <= p < sizes[i] + pads[k + i])
        count = int(np.prod([len(p) for p in inside]))
        vals = h[(slice(None), slice(None)) + np.ix_(*inside)].reshape(x.shape[:2] + (count,))
        at = (slice(None), slice(None)) + o
        if is_max:
            if count:
                y[at] = vals.max(axis=-1)
            elif t in FLOATS:
                y[at] = -np.inf
            else:
                y[at] = INT_MIN[t]
        else:
            div = padded if include else count
            with np.errstate(all="ignore"):
                y[at] = vals.sum(axis=-1) / div if div else np.nan
                mag[at] = np.abs(vals).sum(axis=-1) / div if div else np.nan
            counts[o] = count
    if is_max:
        return y
    if strict and np.any(np.isnan(y)):
        raise Violation("avg_pool of a window with no element inside the input")
    if rng is not None and y.size:
        n = np.broadcast_to(counts, y.shape)
        y = _noise_abs(rng, y, mag * ULP[ACC[t]] * 2 * (np.sqrt(n) + 2))
        y = _noise(rng, y, ULP[t])
    return round_to(y, t)


def eval_cast(x, src, dst, strict=True):
    with np.errstate(all="ignore"):
        if dst == "i1":
            return x != 0
        if src == "i1":
            x = x.astype(np.int64)
            src = "i64"
        if dst in INTS:
            if src in FLOATS:
                r = np.trunc(x.astype(np.float64))
                if strict and r.size and (np.any(r < INT_MIN[dst]) or np.any(r >= INT_MAX[dst] + 1.0)):
                    raise Violation("a float cast to %s that does not fit" % dst)
                if dst in UINTS:
                    # Out of range (only in a noisy run: the generator keeps
                    # the reference in range), C leaves the value open; wrap
                    # as x86 does, so that such a run differs from the
                    # reference and marks the element ill-conditioned.
                    wrapped = r.astype(np.int64).astype(NP[dst])
                    return np.where(r >= 0, np.where(r >= 0, r, 0).astype(np.uint64).astype(NP[dst]),
                                    wrapped)
                return r.astype(np.int64).astype(NP[dst])
            # NumPy's integer casts are C's: a signed source sign-extends, an
            # unsigned one zero-extends, narrowing keeps the low bits (Tide's
            # rules).
            return x.astype(NP[dst])
        # to a float
        if src in INTS:
            if dst == "bf16" or dst == "f16":
                if strict and np.any(np.abs(x.astype(np.float64)) > 2 ** 53):
                    raise Violation("an integer beyond 2^53 cast to %s" % dst)
                return round_to(x.astype(np.float64), dst)
            return x.astype(NP[dst])
        if dst == "bf16":
            return round_to(x.astype(np.float64), dst)
        if src == "bf16":
            return x.astype(np.float32).astype(NP[dst])
        return x.astype(NP[dst])


def evaluate(func, inputs, rng=None, strict=True):
    """All values of func: {'a0': ..., 'v0': ...}."""
    env = {}
    for i, x in enumerate(inputs):
        env["a%d" % i] = x
    for i, op in enumerate(func["ops"]):
        y = eval_op(op, [env[r] for r in op["in"]], rng, strict)
        if strict:
            check_finite(y, "tide.%s" % op["op"])
        if tuple(y.shape) != tuple(op["shape"]):
            raise AssertionError("v%d: tide.%s gives shape %s, the program says %s"
                                 % (i, op["op"], y.shape, op["shape"]))
        env["v%d" % i] = y
    return env


# ---------------------------------------------------------------------------
# MLIR text
# ---------------------------------------------------------------------------


def literal(v, t):
    if t == "i1":
        return "true" if v else "false"
    if t in INTS:
        return str(int(v))
    return repr(float(v))


def dense(values, t):
    a = np.asarray(values)
    if a.ndim == 0:
        return literal(a.item(), t)
    return "[" + ", ".join(dense(x, t) for x in a) + "]"


def value_info(func, ref):
    if ref[0] == "a":
        return func["args"][int(ref[1:])]
    return func["ops"][int(ref[1:])]


def op_attr_dict(op, target):
    items = []
    pin = op.get("pin")
    if pin and (pin == "cpu" or target != "cpu"):
        items.append("tide.device = #tide.device<%s>" % pin)
    if op.get("colocate"):
        items.append('tide.colocate = "%s"' % op["colocate"])
    return (" {%s}" % ", ".join(items)) if items else ""


def emit_op(func, i, op, target):
    name, a, t = op["op"], op.get("attrs", {}), op["dtype"]
    ins = op["in"]
    vi = [value_info(func, r) for r in ins]
    tys = [tensor_type(v["type"], v["dtype"]) for v in vi]
    res = tensor_type(op["type"], t)
    names = ["%" + r for r in ins]
    ad = op_attr_dict(op, target)
    if name == "constant":
        body = "tide.constant%s dense<%s> : %s" % (ad, dense(a["value"], t), res)
    elif name == "elu":
        al = " alpha = %s" % repr(float(a["alpha"])) if "alpha" in a else ""
        body = "tide.elu %s%s%s : %s" % (names[0], al, ad, tys[0])
    elif name in UNARY:
        body = "tide.%s %s%s : %s" % (name, names[0], ad, tys[0])
    elif name in BINARY or name == "matmul":
        tt = tys[0] if tys[0] == tys[1] else "%s, %s" % (tys[0], tys[1])
        body = "tide.%s %s, %s%s : %s" % (name, names[0], names[1], ad, tt)
    elif name == "cmp":
        tt = tys[0] if tys[0] == tys[1] else "%s, %s" % (tys[0], tys[1])
        body = "tide.cmp %s, %s, %s%s : %s" % (a["predicate"], names[0], names[1], ad, tt)
    elif name == "select":
        body = "tide.select %s%s : %s" % (", ".join(names), ad, ", ".join(tys))
    elif name in ("cast", "bitcast", "reshape", "broadcast_to"):
        body = "tide.%s %s%s : %s to %s" % (name, names[0], ad, tys[0], res)
    elif name in REDUCE or name in ARGREDUCE:
        body = "tide.%s %s axes = [%s]%s%s : %s" % (
            name, names[0], ", ".join(map(str, a["axes"])),
            " keepdims" if a.get("keepdims") else "", ad, tys[0])
    elif name in ("softmax", "log_softmax"):
        body = "tide.%s %s axis = %d%s : %s" % (name, names[0], a["axis"], ad, tys[0])
    elif name == "transpose":
        body = "tide.transpose %s perm = [%s]%s : %s" % (names[0], ", ".join(map(str, a["perm"])), ad, tys[0])
    elif name == "concat":
        body = "tide.concat %s axis = %d%s : %s" % (", ".join(names), a["axis"], ad, ", ".join(tys))
    elif name == "slice":
        body = "tide.slice %s start = [%s] limit = [%s] strides = [%s]%s : %s" % (
            names[0], ", ".join(map(str, a["start"])), ", ".join(map(str, a["limit"])),
            ", ".join(map(str, a["strides"])), ad, tys[0])
    elif name == "dim":
        body = "tide.dim %s axis = %d%s : %s" % (names[0], a["axis"], ad, tys[0])
    elif name == "check":
        body = 'tide.check %s, %s, "%s"%s : %s, %s' % (names[0], names[1], a["message"], ad,
                                                      tys[0], tys[1])
    elif name == "iota":
        body = "tide.iota %s axis = %d%s : %s to %s" % (names[0], a["axis"], ad, tys[0], res)
    elif name == "nonzero":
        body = "tide.nonzero %s%s : %s to %s" % (names[0], ad, tys[0], res)
    elif name == "top_k":
        body = "tide.top_k %s axis = %d%s%s : %s, %s to %s" % (
            ", ".join(names), a["axis"], " smallest" if a.get("smallest") else "", ad,
            tys[0], tys[1], res)
    elif name == "non_max_suppression":
        body = "tide.non_max_suppression %s%s%s : %s to %s" % (
            ", ".join(names), " center_point_box" if a.get("center") else "", ad,
            ", ".join(tys), res)
    elif name == "dynamic_slice":
        body = "tide.dynamic_slice %s strides = [%s]%s : %s, %s to %s" % (
            ", ".join(names), ", ".join(map(str, a["strides"])), ad, tys[0], tys[1], res)
    elif name == "gather":
        body = "tide.gather %s, %s axis = %d%s : %s, %s" % (names[0], names[1], a["axis"], ad,
                                                           tys[0], tys[1])
    elif name == "scatter":
        red = a.get("reduction", "none")
        body = "tide.scatter %s axis = %d%s%s : %s" % (
            ", ".join(names), a["axis"], "" if red == "none" else " reduction = " + red, ad,
            ", ".join(tys))
    elif name in ("cumsum", "cumprod"):
        body = "tide.%s %s axis = %d%s%s%s : %s" % (
            name, names[0], a["axis"], " exclusive" if a.get("exclusive") else "",
            " reverse" if a.get("reverse") else "", ad, tys[0])
    elif name == "conv":
        g = a.get("groups", 1)
        body = "tide.conv %s, %s strides = %s dilations = %s pads = %s%s%s : %s, %s" % (
            names[0], names[1], ilist(a["strides"]), ilist(a["dilations"]), ilist(a["pads"]),
            " groups = %d" % g if g != 1 else "", ad, tys[0], tys[1])
    elif name in ("max_pool", "avg_pool"):
        body = "tide.%s %s kernel = %s strides = %s dilations = %s pads = %s%s%s%s : %s" % (
            name, names[0], ilist(a["kernel"]), ilist(a["strides"]), ilist(a["dilations"]),
            ilist(a["pads"]), " ceil_mode" if a.get("ceil_mode") else "",
            " count_include_pad" if a.get("count_include_pad") else "", ad, tys[0])
    elif name == "scan":
        v = "%%v%d" % i
        st = tys[0]
        ops_ty = lambda x: x
        cond = "stop" in a
        lines = []
        if cond:
            lines.append("  %s_c0 = tide.constant dense<%s> : tensor<i1>"
                         % (v, "true" if a["first"] else "false"))
        lines += ["  %s%s_s, %s = tide.scan%s inits(%s%s : %s%s) sequences(%s : %s) invariants(%s : %s)%s%s {"
                  % (v + "_c, " if cond else "", v, v, " conditional" if cond else "",
                     v + "_c0, " if cond else "", names[0], "tensor<i1>, " if cond else "", st,
                     names[1], tys[1], names[2], tys[2],
                     " reverse" if a.get("reverse") else "",
                     (" attributes" + ad) if ad else ""),
                  "  ^bb0(%s_t: tensor<i64>, %s%s_a: %s, %s_x: %s, %s_b: %s):"
                  % (v, v + "_go: tensor<i1>, " if cond else "", v, st, v, st, v, st),
                  "    %s_m = tide.%s %s_a, %s_x : %s" % (v, a["op1"], v, v, ops_ty(st)),
                  "    %s_n = tide.%s %s_m, %s_b : %s" % (v, a["op2"], v, v, st)]
        nxt = v + "_n"
        if a.get("unary"):
            lines.append("    %s_u = tide.%s %s_n : %s" % (v, a["unary"], v, st))
            nxt = v + "_u"
        out = v + "_m" if a["out"] == "m" else nxt
        if cond:
            lines += ["    %s_one = tide.constant dense<1> : tensor<i64>" % v,
                      "    %s_k = tide.constant dense<%d> : tensor<i64>" % (v, a["stop"]),
                      "    %s_t1 = tide.add %s_t, %s_one : tensor<i64>" % (v, v, v),
                      "    %s_more = tide.cmp lt, %s_t1, %s_k : tensor<i64>" % (v, v, v),
                      "    tide.yield %s_more, %s, %s : tensor<i1>, %s, %s" % (v, nxt, out, st, st),
                      "  } : tensor<i1>, %s, %s" % (st, res)]
        else:
            lines.append("    tide.yield %s, %s : %s, %s" % (nxt, out, st, st))
            lines.append("  } : %s, %s" % (st, res))
        return "\n".join(lines)
    elif name == "if":
        v = "%%v%d" % i
        xt = tys[1]
        args = "^bb0(%s_a: %s, %s_b: %s):" % (v, xt, v, xt)
        lines = ["  %s = tide.if %s invariants(%s, %s : %s, %s) {"
                 % (v, names[0], names[1], names[2], xt, xt),
                 "  " + args,
                 "    %s_t = tide.%s %s_a, %s_b : %s, %s" % (v, a["op1"], v, v, xt, xt)]
        then = v + "_t"
        if a.get("unary"):
            lines.append("    %s_u = tide.%s %s_t : %s" % (v, a["unary"], v, xt))
            then = v + "_u"
        lines += ["    tide.yield %s : %s" % (then, xt), "  } else {", "  " + args]
        if a["else"] == "take":
            x = vi[1]["type"]
            limit = [a["take"]] + list(x[1:])
            et = tensor_type(limit, t)
            lines.append("    %s_e = tide.slice %s_a start = %s limit = %s strides = %s : %s"
                         % (v, v, ilist([0] * len(x)), ilist(limit), ilist([1] * len(x)), xt))
            lines.append("    tide.yield %s_e : %s" % (v, et))
        elif a["else"] == "y":
            lines.append("    tide.yield %s_b : %s" % (v, xt))
        else:
            lines.append("    %s_e = tide.%s %s_a : %s" % (v, a["else"], v, xt))
            lines.append("    tide.yield %s_e : %s" % (v, xt))
        lines.append("  }%s : tensor<i1> -> (%s)" % (ad, res))
        return "\n".join(lines)
    else:
        raise AssertionError("cannot print tide.%s" % name)
    return "  %%v%d = %s" % (i, body)


def ilist(values):
    return "[%s]" % ", ".join(str(int(v)) for v in values)


def emit_func(func, target="cpu"):
    args = ", ".join("%%a%d: %s" % (i, tensor_type(a["type"], a["dtype"]))
                     for i, a in enumerate(func["args"]))
    rtys = [tensor_type(value_info(func, r)["type"], value_info(func, r)["dtype"])
            for r in func["results"]]
    attrs = ""
    dd = func.get("default_device")
    if dd and (dd == "cpu" or target != "cpu"):
        attrs = " attributes {tide.default_device = #tide.device<%s>}" % dd
    lines = ["func.func @%s(%s) -> (%s)%s {" % (func["name"], args, ", ".join(rtys), attrs)]
    for i, op in enumerate(func["ops"]):
        lines.append(emit_op(func, i, op, target))
    lines.append("  return %s : %s" % (", ".join("%" + r for r in func["results"]), ", ".join(rtys)))
    lines.append("}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------
# The generator
# ---------------------------------------------------------------------------


class Retry(Exception):
    """This op cannot be built here; try another."""


def load_ops(path_or_text):
    text = path_or_text
    if not path_or_text.lstrip().startswith("{"):
        with open(path_or_text) as fh:
            text = fh.read()
    table = json.loads(text)
    ops = {}
    for op in table["ops"]:
        # A type gen.py does not know (a new one) fails here by name.
        unknown = [t for t in op["dtypes"] if t not in NP]
        if unknown:
            raise SystemExit("gen.py: tide.%s accepts %s, which gen.py has no semantics for; add "
                             "them (NP, NPY and the interpreter in test/random/gen.py)"
                             % (op["name"], ", ".join(unknown)))
        ops[op["name"]] = op
    return ops


class Gen:
    """Builds one function. `ops`: tide-opt's op table (name -> entry)."""

    MAX_ELEMS = 200_000
    GEMM_ON_CPU = False     # pin float matmuls to the CPU (a GPU without cuBLAS)
    MAX_ARGS = 10

    def __init__(self, rng, ops, name, target="cpu"):
        self.r = rng
        self.ops = ops
        self.target = target
        self.f = {"name": name, "args": [], "ops": [], "results": []}
        self.vals = {}          # ref -> interpreter value
        self.inputs = []
        self.groups = 0
        self.theme = self.pick(ALL_TYPES + FLOATS)   # the element type most values have

    # -- random helpers --
    def chance(self, p):
        return self.r.random() < p

    def pick(self, seq):
        return seq[int(self.r.integers(len(seq)))]

    def dim(self):
        u = self.r.random()
        if u < 0.25:
            return 1
        if u < 0.75:
            return int(self.r.integers(2, 8))
        if u < 0.90:
            return self.pick([9, 13, 16, 17, 31, 33, 64, 65])
        if u < 0.97:
            return int(self.r.integers(100, 1200))
        return 0

    def shape(self, rank=None):
        if rank is None:
            rank = self.pick([0, 1, 1, 2, 2, 2, 3, 3, 4])
        while True:
            s = [self.dim() for _ in range(rank)]
            if numel(s) <= self.MAX_ELEMS:
                return s

    def dynamize(self, shape, p=0.3):
        return [None if self.chance(p) else d for d in shape]

    # -- values --
    def info(self, ref):
        return value_info(self.f, ref)

    def refs(self, pred=lambda v: True):
        out = ["a%d" % i for i in range(len(self.f["args"]))] + \
              ["v%d" % i for i in range(len(self.f["ops"]))]
        return [r for r in out if pred(self.info(r))]

    def data(self, t, shape, kind="any"):
        r = self.r
        if t == "i1":
            return r.integers(0, 2, size=shape).astype(np.bool_)
        if t in UINTS:
            u = r.random()
            if kind == "nonzero":
                x = r.integers(1, 12, size=shape)
            elif u < 0.7:
                x = r.integers(0, 41, size=shape)
            elif u < 0.9:
                x = r.integers(0, 2001, size=shape)
            else:
                x = r.integers(0, INT_MAX[t], size=shape, dtype=np.uint64, endpoint=True)
            return np.asarray(x).astype(NP[t])
        if t in INTS:
            u = r.random()
            if kind == "nonzero":
                x = r.integers(1, 12, size=shape) * r.choice([-1, 1], size=shape)
            elif u < 0.7:
                x = r.integers(-20, 21, size=shape)
            elif u < 0.9:
                x = r.integers(-1000, 1001, size=shape)
            else:
                x = r.integers(INT_MIN[t], INT_MAX[t], size=shape, dtype=np.int64, endpoint=True)
            return np.asarray(x).astype(NP[t])
        u = r.random()
        if kind == "pos":
            x = r.uniform(0.05, 8.0, size=shape)
        elif u < 0.6:
            x = r.uniform(-4, 4, size=shape)
        elif u < 0.75:
            x = r.integers(-8, 9, size=shape) / 2.0     # exact halves: ties, zeros
        elif u < 0.9:
            x = r.uniform(-100, 100, size=shape)
        else:
            x = r.standard_normal(size=shape) * 0.01
        return round_to(x, t)

    def new_arg(self, t, shape, ty=None, kind="any", data=None):
        if ty is None:
            ty = self.dynamize(shape)
        self.f["args"].append({"dtype": t, "type": list(ty), "shape": list(shape)})
        x = self.data(t, shape, kind) if data is None else np.asarray(data).astype(NP[t])
        self.inputs.append(x)
        ref = "a%d" % (len(self.f["args"]) - 1)
        self.vals[ref] = x
        return ref

    def add_op(self, name, ins, t, ty, shape, attrs=None):
        op = {"op": name, "in": list(ins), "dtype": t, "type": list(ty), "shape": list(shape)}
        if attrs:
            op["attrs"] = attrs
        y = eval_op(op, [self.vals[r] for r in ins])
        check_finite(y, "tide." + name)
        if tuple(y.shape) != tuple(shape):
            raise AssertionError("tide.%s: shape %s, expected %s" % (name, y.shape, shape))
        if numel(shape) > self.MAX_ELEMS:
            raise Retry()
        self.f["ops"].append(op)
        ref = "v%d" % (len(self.f["ops"]) - 1)
        self.vals[ref] = y
        return ref

    def operand(self, types, pred=lambda v: True, fresh=0.25, rank=None, kind="any"):
        """An existing value of one of `types` (the recent ones preferred), or a
        new argument."""
        cands = self.refs(lambda v: v["dtype"] in types and pred(v) and
                          (rank is None or len(v["shape"]) in rank))
        if kind == "pos":
            cands = [c for c in cands if self.vals[c].size and np.all(self.vals[c] > 0)]
        if cands and not self.chance(fresh):
            # Prefer recent values: a deeper DAG.
            w = np.arange(1, len(cands) + 1, dtype=np.float64) ** 2
            return cands[int(self.r.choice(len(cands), p=w / w.sum()))]
        t = self.theme if self.theme in types and self.chance(0.7) else self.pick(types)
        s = self.shape(self.pick(rank) if rank else None)
        return self.new_arg(t, s, kind=kind)

    def partner(self, ref, types=None, kind="any"):
        """A value that broadcasts with `ref` at run time (existing or new)."""
        v = self.info(ref)
        types = types or [v["dtype"]]
        cands = self.refs(lambda w: w["dtype"] in types and bcast_type(w["type"], v["type"]) is not None
                          and bcast_runtime_ok([v, w]))
        if kind == "pos":
            cands = [c for c in cands if self.vals[c].size and np.all(self.vals[c] > 0)]
        if cands and self.chance(0.5):
            return self.pick(cands)
        if kind == "any" and self.chance(0.15):
            return self.constant_like(v, self.pick(types))
        # A new argument: a broadcast variant of ref's shape.
        shape, ty = list(v["shape"]), list(v["type"])
        if len(shape) and self.chance(0.3):
            k = int(self.r.integers(0, len(shape) + 1))
            shape, ty = shape[k:], ty[k:]
        nshape, nty = [], []
        for c, d in zip(shape, ty):
            u = self.r.random()
            if u < 0.25 and (c == 1 or d is not None):   # broadcast from a static 1
                nshape.append(1), nty.append(1)
            elif u < 0.5:
                nshape.append(c), nty.append(None if c != 1 or d is None else 1)
            else:
                nshape.append(c), nty.append(c)
        if len(shape) < 3 and self.chance(0.1):
            # A leading dim the other operand broadcasts over.
            c = self.pick([2, 3, 5])
            nshape.insert(0, c), nty.insert(0, c if v["type"] != [] or self.chance(0.5) else None)
            if len(v["shape"]) >= len(nshape):
                nshape.pop(0), nty.pop(0)
        if numel(nshape) > self.MAX_ELEMS:
            raise Retry()
        ref2 = self.new_arg(self.pick(types), nshape, nty, kind)
        if not bcast_runtime_ok([v, self.info(ref2)]) or bcast_type(v["type"], nty) is None:
            raise Retry()
        return ref2

    def constant_like(self, v, t):
        # A small constant broadcasting with v: rank-0, or its trailing dims (static ones).
        ty = v["type"]
        if ty and ty[-1] is not None and ty[-1] <= 8 and self.chance(0.5):
            shape = [ty[-1]]
        else:
            shape = []
        if t == "i1":
            val = self.r.integers(0, 2, size=shape).astype(bool)
        elif t in UINTS:
            val = self.r.integers(1, 9, size=shape)
        elif t in INTS:
            val = self.r.integers(1, 9, size=shape) * self.r.choice([-1, 1], size=shape)
        else:
            val = self.r.integers(-16, 17, size=shape) / 8.0
            val = np.where(val == 0, 0.5, val)
        ref = self.add_op("constant", [], t, shape, shape, {"value": np.asarray(val).tolist()})
        return ref

    # -- one op per family --
    def g_unary(self, name):
        types = self.ops[name]["dtypes"]
        dom = UNARY.get(name, (None,) * 5)[4]
        kind = "pos" if dom in ("pos", "nonneg") else "any"
        x = self.operand(types, kind=kind)
        v = self.info(x)
        attrs = None
        if name == "elu" and self.chance(0.5):
            attrs = {"alpha": self.pick([0.5, 1.5, 0.25, 2.0])}
        return self.add_op(name, [x], v["dtype"], v["type"], v["shape"], attrs)

    def g_binary(self, name, compare=False):
        types = self.ops[name]["dtypes"]
        kind = "pos" if name == "pow" else "any"
        x = self.operand(types, kind=kind)
        v = self.info(x)
        # Integer divisors of 0 are defined (0) but kept rare.
        y = self.partner(x, kind="nonzero" if name in ("div", "rem", "mod") and self.chance(0.9)
                         else "any")
        if name == "pow":
            # Keep the exponent small: results stay finite.
            w = self.info(y)
            if np.any(np.abs(self.vals[y]) > 6):
                raise Retry()
        w = self.info(y)
        if self.chance(0.5):
            x, y, v, w = y, x, w, v
            if name == "pow":
                raise Retry()
        ty = bcast_type(v["type"], w["type"])
        shape = list(np.broadcast_shapes(tuple(v["shape"]), tuple(w["shape"])))
        if compare:
            return self.add_op("cmp", [x, y], "i1", ty, shape,
                               {"predicate": self.pick(sorted(CMP))})
        return self.add_op(name, [x, y], v["dtype"], ty, shape)

    def g_compare(self, name):
        return self.g_binary(name, compare=True)

    def g_select(self, name):
        types = self.ops[name]["dtypes"]
        x = self.operand(types)
        v = self.info(x)
        y = self.partner(x)
        w = self.info(y)
        c = self.partner(x, types=["i1"]) if self.chance(0.7) else self.partner(y, types=["i1"])
        cv = self.info(c)
        if not bcast_runtime_ok([v, w, cv]):
            raise Retry()
        t1 = bcast_type(v["type"], w["type"])
        ty = bcast_type(t1, cv["type"]) if t1 is not None else None
        if ty is None:
            raise Retry()
        shape = list(np.broadcast_shapes(tuple(v["shape"]), tuple(w["shape"]), tuple(cv["shape"])))
        return self.add_op(name, [c, x, y], v["dtype"], ty, shape)

    def g_cast(self, name):
        types = self.ops[name]["dtypes"]
        if name == "bitcast":
            # Between integer types of one width (and i1 to i1): the bits of
            # a computed float would expose differences within tolerance,
            # and ints read as floats make NaNs; numerics.py checks those
            # pairs on exact data.
            types = [t for t in types if t in INTS or t == "i1"]
        x = self.operand(types)
        v = self.info(x)
        dst = self.pick(types)
        if name == "bitcast":
            width = lambda t: 1 if t == "i1" else int(t.lstrip("ui"))
            dst = self.pick([t for t in types if width(t) == width(v["dtype"])])
        ty = list(v["type"])
        if ty and self.chance(0.15):
            d = int(self.r.integers(len(ty)))
            ty[d] = None if ty[d] is not None else v["shape"][d]   # more or less static
        return self.add_op(name, [x], dst, ty, v["shape"], {"from": v["dtype"]})

    def g_matmul(self, name):
        types = self.ops[name]["dtypes"]
        x = self.operand(types, rank=[2, 3, 4], fresh=0.4)
        v = self.info(x)
        t = v["dtype"]
        K, Kty = v["shape"][-1], v["type"][-1]
        cands = self.refs(lambda w: w["dtype"] == t and len(w["shape"]) >= 2 and w["shape"][-2] == K)
        y = None
        if cands and self.chance(0.5):
            y = self.pick(cands)
        else:
            N = self.pick([1, 2, 3, 5, 8, 16, 33]) if not self.chance(0.05) else 0
            batch_s, batch_t = [], []
            vb_s, vb_t = v["shape"][:-2], v["type"][:-2]
            if vb_s and self.chance(0.6):
                k = int(self.r.integers(0, len(vb_s) + 1))
                for c, d in zip(vb_s[k:], vb_t[k:]):
                    if self.chance(0.3) and (d is not None or c == 1):
                        batch_s.append(1), batch_t.append(1)
                    else:
                        batch_s.append(c), batch_t.append(d if self.chance(0.5) else c)
            shape = batch_s + [K, N]
            ty = batch_t + [Kty if self.chance(0.5) else K, None if self.chance(0.3) else N]
            y = self.new_arg(t, shape, ty)
        w = self.info(y)
        if w["shape"][-2] != K:
            raise Retry()
        vb = {"type": v["type"][:-2], "shape": v["shape"][:-2]}
        wb = {"type": w["type"][:-2], "shape": w["shape"][:-2]}
        bt = bcast_type(vb["type"], wb["type"])
        if bt is None or not bcast_runtime_ok([vb, wb]):
            raise Retry()
        if Kty is not None and w["type"][-2] is not None and Kty != w["type"][-2]:
            raise Retry()
        bs = list(np.broadcast_shapes(tuple(vb["shape"]), tuple(wb["shape"])))
        shape = bs + [v["shape"][-2], w["shape"][-1]]
        ty = bt + [v["type"][-2], w["type"][-1]]
        if t in INTS and K * 400 ** 2 > 2 ** 31 and t != "i64":
            pass   # wraps, which the reference does too
        return self.add_op(name, [x, y], t, ty, shape)

    def g_reduction(self, name):
        types = self.ops[name]["dtypes"]
        x = self.operand(types, rank=[1, 2, 3, 4])
        v = self.info(x)
        r = len(v["shape"])
        if name in ARGREDUCE:
            k = 1
        elif r >= 2 and self.chance(0.6):
            k = int(self.r.integers(2, r + 1))      # several axes
        else:
            k = int(self.r.integers(1, r + 1))
        axes = sorted(self.r.choice(r, size=k, replace=False).tolist())
        axes = [a - r if self.chance(0.3) else a for a in axes]
        if self.chance(0.5):
            axes = list(self.r.permutation(axes))
        axes = [int(a) for a in axes]
        keep = self.chance(0.3)
        norm = [a % r for a in axes]
        ty, shape = [], []
        for d in range(r):
            if d in norm:
                if keep:
                    ty.append(1), shape.append(1)
            else:
                ty.append(v["type"][d]), shape.append(v["shape"][d])
        attrs = {"axes": axes}
        if keep:
            attrs["keepdims"] = True
        t = "i64" if name in ARGREDUCE else v["dtype"]
        return self.add_op(name, [x], t, ty, shape, attrs)

    g_arg_reduction = g_reduction

    def g_softmax(self, name):
        x = self.operand(self.ops[name]["dtypes"], rank=[1, 2, 3])
        v = self.info(x)
        r = len(v["shape"])
        axis = int(self.r.integers(-r, r))
        return self.add_op(name, [x], v["dtype"], v["type"], v["shape"], {"axis": axis})

    def g_reshape(self, name):
        x = self.operand(self.ops[name]["dtypes"])
        v = self.info(x)
        n = numel(v["shape"])
        # A random factorization of n into 0..4 dims.
        rank = self.pick([0, 1, 2, 2, 3, 4])
        if n == 0:
            shape = [0] + [self.pick([1, 2, 3]) for _ in range(max(rank, 1) - 1)]
        else:
            shape, m = [], n
            for _ in range(max(rank - 1, 0)):
                divs = [d for d in range(1, min(m, 64) + 1) if m % d == 0]
                d = self.pick(divs)
                shape.append(d)
                m //= d
            if rank:
                shape.append(m)
            elif n != 1:
                raise Retry()
            shape = list(self.r.permutation(shape)) if shape else []
            shape = [int(d) for d in shape]
        ty = list(shape)
        if shape and n > 0 and self.chance(0.4):
            ty[int(self.r.integers(len(shape)))] = None
        return self.add_op(name, [x], v["dtype"], ty, shape)

    def g_transpose(self, name):
        x = self.operand(self.ops[name]["dtypes"], rank=[1, 2, 3, 4])
        v = self.info(x)
        perm = [int(p) for p in self.r.permutation(len(v["shape"]))]
        return self.add_op(name, [x], v["dtype"], [v["type"][p] for p in perm],
                           [v["shape"][p] for p in perm], {"perm": perm})

    def g_broadcast(self, name):
        x = self.operand(self.ops[name]["dtypes"], rank=[0, 1, 2, 3])
        v = self.info(x)
        lead = int(self.r.integers(0, 3 - min(len(v["shape"]), 2)))
        shape, ty = [], []
        for _ in range(lead):
            c = self.pick([1, 2, 3, 4, 7])
            shape.append(c), ty.append(c)
        for c, d in zip(v["shape"], v["type"]):
            if d is None:
                shape.append(c), ty.append(None if self.chance(0.7) else c)
            elif c == 1 and self.chance(0.6):
                n = self.pick([2, 3, 5, 16])
                shape.append(n), ty.append(n)
            else:
                shape.append(c), ty.append(c)
        return self.add_op(name, [x], v["dtype"], ty, shape)

    ODD = [1, 3, 5, 7, 13, 17, 31, 33, 65, 127]

    def odd_arg(self, types, rank):
        """A new argument of odd sizes (primes, one past a power of two)."""
        t = self.theme if self.theme in types and self.chance(0.7) else self.pick(types)
        while True:
            shape = [self.pick(self.ODD) for _ in range(rank)]
            if numel(shape) <= self.MAX_ELEMS:
                return self.new_arg(t, shape)

    def g_concat(self, name):
        types = self.ops[name]["dtypes"]
        if self.chance(0.25):
            x = self.odd_arg(types, self.pick([1, 2, 3, 4]))
        else:
            x = self.operand(types, rank=[1, 2, 3, 4])
        v = self.info(x)
        r = len(v["shape"])
        axis = int(self.r.integers(0, r))
        ins = [x]
        for _ in range(self.pick([0, 1, 1, 2, 2, 3, 5])):
            cands = self.refs(lambda w: w["dtype"] == v["dtype"] and len(w["shape"]) == r and all(
                w["shape"][d] == v["shape"][d] for d in range(r) if d != axis))
            if cands and self.chance(0.5):
                ins.append(self.pick(cands))          # may repeat a value
            else:
                shape = list(v["shape"])
                shape[axis] = self.pick([0, 1, 2, 3, 5, 8, 13, 31]) if self.chance(0.9) else 0
                ty = [None if (self.chance(0.3) and d != axis) or (d == axis and self.chance(0.3))
                      else c for d, c in enumerate(shape)]
                ins.append(self.new_arg(v["dtype"], shape, ty))
        # Type inference of tide.concat.
        infos = [self.info(i) for i in ins]
        ty = list(infos[0]["type"])
        for w in infos[1:]:
            for d in range(r):
                a, b = ty[d], w["type"][d]
                if d == axis:
                    ty[d] = None if a is None or b is None else a + b
                elif a is None:
                    ty[d] = b
        shape = list(v["shape"])
        shape[axis] = sum(w["shape"][axis] for w in infos)
        if numel(shape) > self.MAX_ELEMS:
            raise Retry()
        ax = axis - r if self.chance(0.3) else axis
        return self.add_op(name, ins, v["dtype"], ty, shape, {"axis": ax})

    def g_slice(self, name):
        types = self.ops[name]["dtypes"]
        if self.chance(0.25):
            x = self.odd_arg(types, self.pick([1, 2, 3, 4]))
        else:
            x = self.operand(types, rank=[1, 2, 3, 4])
        v = self.info(x)
        start, limit, strides, shape = [], [], [], []
        for c in v["shape"]:
            lo = int(self.r.integers(0, c + 1))
            hi = int(self.r.integers(lo, c + 1))
            u = self.r.random()
            if u < 0.25:
                lo, hi = 0, c
            elif u < 0.35:
                lo, hi = c, c           # empty, at the end
            elif u < 0.45 and c:
                lo, hi = c - 1, c       # the last element
            st = self.pick([1, 1, 1, 2, 3, 5, 7, 16, 64])
            start.append(lo), limit.append(hi), strides.append(st)
            shape.append((hi - lo + st - 1) // st)
        return self.add_op(name, [x], v["dtype"], shape, shape,
                           {"start": start, "limit": limit, "strides": strides})

    def g_constant(self, name):
        t = self.pick(self.ops[name]["dtypes"])
        shape = self.shape(self.pick([0, 1, 1, 2]))
        shape = [max(1, min(d, 6)) for d in shape]
        if t == "i1":
            val = self.r.integers(0, 2, size=shape).astype(bool)
        elif t in UINTS:
            val = self.r.integers(0, 41, size=shape)
        elif t in INTS:
            val = self.r.integers(-20, 21, size=shape)
        else:
            val = self.r.integers(-32, 33, size=shape) / 8.0
        if self.chance(0.3):
            val = np.full(shape, np.asarray(val).reshape(-1)[0] if np.size(val) else 1)
        return self.add_op(name, [], t, shape, shape, {"value": np.asarray(val).tolist()})

    def sizes_vector(self, parts):
        """An i64 vector of sizes from `parts` (each an int, or (ref, axis): the
        size of that value's dimension, read at run time by tide.dim), as
        tide.constant, tide.dim and tide.concat ops. Returns (ref, static):
        static[k] is whether entry k is a constant."""
        refs, static, run = [], [], []

        def flush():
            if run:
                refs.append(self.add_op("constant", [], "i64", [len(run)], [len(run)],
                                        {"value": list(run)}))
                run.clear()
        for p in parts:
            if isinstance(p, tuple):
                flush()
                refs.append(self.add_op("dim", [p[0]], "i64", [1], [1], {"axis": p[1]}))
                static.append(False)
            else:
                run.append(int(p))
                static.append(True)
        flush()
        if len(refs) == 1:
            return refs[0], static
        n = len(parts)
        return self.add_op("concat", refs, "i64", [n], [n], {"axis": 0}), static

    def g_dim(self, name):
        x = self.operand(self.ops[name]["dtypes"], rank=[1, 2, 3, 4])
        axis = int(self.r.integers(0, len(self.info(x)["shape"])))
        return self.add_op(name, [x], "i64", [1], [1], {"axis": axis})

    def g_check(self, name):
        """A value passed on under a condition that holds when the program runs:
        a size of it (tide.dim, read by the host) compared with one it cannot
        be below, or an i1 value of one element computed by earlier ops."""
        x = self.operand(self.ops[name]["dtypes"], rank=[1, 2, 3, 4])
        v = self.info(x)
        ones = [c for c in self.refs(lambda w: w["dtype"] == "i1" and numel(w["shape"]) == 1
                                     and None not in w["type"])
                if bool(self.vals[c].reshape(-1)[0])]
        if ones and self.chance(0.4):
            c = self.pick(ones)
        else:
            axis = int(self.r.integers(0, len(v["shape"])))
            d = self.add_op("dim", [x], "i64", [1], [1], {"axis": axis})
            k = self.add_op("constant", [], "i64", [1], [1],
                            {"value": [int(self.r.integers(0, v["shape"][axis] + 1))]})
            c = self.add_op("cmp", [d, k], "i1", [1], [1], {"predicate": "ge"})
        return self.add_op(name, [x, c], v["dtype"], v["type"], v["shape"],
                           {"message": "the size is too small"})

    def g_iota(self, name):
        t = self.pick(self.ops[name]["dtypes"])
        rank = self.pick([1, 1, 2, 3])
        parts, shape = [], []
        for _ in range(rank):
            srcs = self.refs(lambda v: len(v["shape"]) > 0)
            if srcs and self.chance(0.5):
                src = self.pick(srcs)
                axis = int(self.r.integers(0, len(self.info(src)["shape"])))
                parts.append((src, axis))
                shape.append(self.info(src)["shape"][axis])
            else:
                parts.append(self.pick([0, 1, 2, 3, 5, 8]))
                shape.append(parts[-1])
        if numel(shape) > self.MAX_ELEMS:
            raise Retry()
        vec, static = self.sizes_vector(parts)
        ty = [d if s and self.chance(0.7) else None for d, s in zip(shape, static)]
        axis = int(self.r.integers(0, rank))
        return self.add_op(name, [vec], t, ty, shape, {"axis": axis})

    def g_dynamic_slice(self, name):
        x = self.operand(self.ops[name]["dtypes"], rank=[1, 2, 3, 4])
        v = self.info(x)
        start, limit, strides, shape, full = [], [], [], [], []
        for d, c in enumerate(v["shape"]):
            lo = int(self.r.integers(0, c + 1))
            hi = int(self.r.integers(lo, c + 1))
            whole = self.chance(0.4)
            if whole:
                lo, hi = 0, c
            st = self.pick([1, 1, 1, 2, 3])
            start.append(lo), strides.append(st)
            # A limit at the end of a dimension is often its size at run time.
            limit.append((x, d) if whole and self.chance(0.6) else hi)
            full.append(whole)
            shape.append((hi - lo + st - 1) // st)
        starts, _ = self.sizes_vector(start)
        limits, static = self.sizes_vector(limit)
        ty = [n if s and self.chance(0.5) else None for n, s in zip(shape, static)]
        return self.add_op(name, [x, starts, limits], v["dtype"], ty, shape, {"strides": strides})
    def g_nonzero(self, name):
        # An argument: its count of non-zero elements is the same in every
        # run (a computed float, or a comparison of one, can cross zero in the
        # checker's noisy runs, which would change the result's size).
        types = self.ops[name]["dtypes"]
        args = [r for r in self.refs(lambda v: v["dtype"] in types and len(v["shape"]) <= 3)
                if r.startswith("a")]
        if args and self.chance(0.6):
            x = self.pick(args)
        else:
            x = self.new_arg(self.pick(types), self.shape(self.pick([0, 1, 2, 3])))
        v = self.info(x)
        y = self.vals[x]
        count = int(np.count_nonzero(y))
        r = len(v["shape"])
        return self.add_op(name, [x], "i64", [r, None], [r, count])

    def g_top_k(self, name):
        # An argument: the order of computed floats could change in the
        # checker's noisy runs. Small integer values make ties.
        types = self.ops[name]["dtypes"]
        args = [r for r in self.refs(lambda v: v["dtype"] in types and 1 <= len(v["shape"]) <= 3
                                     and min(v["shape"]) > 0) if r.startswith("a")]
        if args and self.chance(0.5):
            x = self.pick(args)
        else:
            t = self.pick(types)
            shape = self.shape(self.pick([1, 2, 3]))
            if min(shape, default=0) == 0:
                raise Retry()
            data = self.r.integers(-4, 5, size=shape) if self.chance(0.5) else None
            if data is not None and t in UINTS:
                data = np.abs(data)
            x = self.new_arg(t, shape, data=data)
        v = self.info(x)
        r = len(v["shape"])
        axis = int(self.r.integers(r))
        n = v["shape"][axis]
        k = int(self.r.integers(0, n + 1))
        kv = self.add_op("constant", [], "i64", [1], [1], {"value": [k]})
        ty = list(v["type"])
        ty[axis] = k if self.chance(0.6) else None
        shape = list(v["shape"])
        shape[axis] = k
        attrs = {"axis": axis - r if self.chance(0.3) else axis}
        if self.chance(0.5):
            attrs["smallest"] = True
        return self.add_op(name, [x, kv], "i64", ty, shape, attrs)

    def g_non_max_suppression(self, name):
        """Boxes on a quarter grid and scores in sixteenths, thresholds whose
        comparisons no rounding can flip (multiples of 1/4; every f16/bf16
        value here is exact)."""
        t = self.pick(self.ops[name]["dtypes"])
        r = self.r
        b, c, n = self.pick([1, 1, 2]), self.pick([1, 2, 3]), self.pick([0, 1, 4, 7, 12])
        center = self.chance(0.4)
        xy = r.integers(0, 40, (b, n, 2)) / 4.0
        wh = r.integers(1, 16, (b, n, 2)) / 4.0
        if self.chance(0.15):
            # Enough boxes for the CPU's windows in x order (from 256 a
            # class), on a grid of halves up to 53.
            n = self.pick([256, 300])
            xy = r.integers(0, 100, (b, n, 2)) / 2.0
            wh = r.integers(1, 8, (b, n, 2)) / 2.0
        if center:
            boxes = np.concatenate([xy, wh], axis=2)
        else:
            corners = np.concatenate([xy, xy + wh], axis=2)[..., [1, 0, 3, 2]]
            flip = r.random((b, n, 1)) < 0.3
            boxes = np.where(flip, corners[..., [2, 3, 0, 1]], corners)
        scores = r.integers(1, 16, (b, c, n)) / 16.0
        sty = lambda shape: [d if self.chance(0.6) else None for d in shape]
        bx = self.new_arg(t, [b, n, 4], [None if self.chance(0.3) else b,
                                         None if self.chance(0.4) else n, 4], data=boxes)
        sc = self.new_arg(t, [b, c, n], sty([b, c, n]), data=scores)
        lim = self.new_arg("i64", [1], [1], data=np.array([self.pick([0, 1, 2, 5, 100, -1])]))
        iou = self.new_arg(t, [1], [1], data=np.array([self.pick([0.0, 0.25, 0.5, 0.75])]))
        ins = [bx, sc, lim, iou]
        if self.chance(0.6):
            ins.append(self.new_arg(t, [1], [1], data=np.array([self.pick([0.25, 0.5])])))
        y = eval_nms(boxes, scores, self.vals[lim][0], self.vals[iou][0],
                     self.vals[ins[4]][0] if len(ins) > 4 else None, center)
        return self.add_op(name, ins, "i64", [None, 3], list(y.shape), {"center": center})

    def index_arg(self, shape, ty, n):
        """A new i32/i64 argument of indices into an axis of size n: mostly in
        range, some counting from the end, some out of range (gather clamps
        them, scatter drops them), now and then the extremes of the type."""
        it = self.pick(INDEX_TYPES)
        r = self.r
        u = r.random()
        if n == 0 or u < 0.15:
            x = r.integers(-n - 3, n + 4, size=shape)
        elif u < 0.6:
            x = r.integers(0, n, size=shape)
        else:
            x = r.integers(-n, n, size=shape)
        x = np.asarray(x, dtype=np.int64)
        if x.size and self.chance(0.2):
            lim = 2 ** 31 if it == "i32" else 2 ** 63
            flat = x.reshape(-1)
            for e in (lim - 1, -lim, n, -n - 1):
                if self.chance(0.5):
                    flat[int(r.integers(flat.size))] = e
        return self.new_arg(it, shape, ty, data=x)

    def index_shape(self, v, axis):
        """The shape and type of indices (gather) or updates (scatter) for a
        value v: any size along the axis; along the others at most v's size
        (static where the verifier compares static sizes)."""
        n = v["shape"][axis]
        shape, ty = [], []
        for d, c in enumerate(v["shape"]):
            if d == axis:
                m = self.pick([1, 2, 3, 5, 8, 13, max(n, 1), n + 2]) if not self.chance(0.05) else 0
            else:
                m = c if self.chance(0.6) else int(self.r.integers(0, c + 1))
            shape.append(m)
            ty.append(None if self.chance(0.3) else m)
        if numel(shape) > 20_000:
            raise Retry()
        return shape, ty

    def g_gather(self, name):
        x = self.operand(self.ops[name]["dtypes"], rank=[1, 2, 3, 4])
        v = self.info(x)
        r = len(v["shape"])
        axis = int(self.r.integers(r))
        n = v["shape"][axis]
        # Existing integer values as indices (argmax results, casts, ...).
        cands = self.refs(lambda w: w["dtype"] in INDEX_TYPES and len(w["shape"]) == r and all(
            w["shape"][d] <= v["shape"][d] and (w["type"][d] is None or v["type"][d] is None or
                                                w["type"][d] <= v["type"][d])
            for d in range(r) if d != axis))
        if cands and self.chance(0.25):
            idx = self.pick(cands)
        else:
            shape, ty = self.index_shape(v, axis)
            idx = self.index_arg(shape, ty, n)
        w = self.info(idx)
        ax = axis - r if self.chance(0.3) else axis
        return self.add_op(name, [x, idx], v["dtype"], w["type"], w["shape"], {"axis": ax})

    def g_scatter(self, name):
        x = self.operand(self.ops[name]["dtypes"], rank=[1, 2, 3, 4])
        v = self.info(x)
        t, r = v["dtype"], len(v["shape"])
        axis = int(self.r.integers(r))
        n = v["shape"][axis]
        shape, ty = self.index_shape(v, axis)
        # Tide's work: every element of the reachable part times the updates
        # along the axis.
        if numel(shape) * max(n, 1) > 2_000_000:
            raise Retry()
        idx = self.index_arg(shape, ty, n)
        uty = [None if self.chance(0.3) else c for c in shape]
        reds = ["none", "max", "min"] + ([] if t == "i1" else ["add", "mul"])
        red = self.pick(reds)
        # Small float factors: products of several stay finite.
        data = round_to(self.r.uniform(-2, 2, size=shape), t) if red == "mul" and t in FLOATS \
            else None
        upd = self.new_arg(t, shape, uty, data=data)
        ax = axis - r if self.chance(0.3) else axis
        attrs = {"axis": ax}
        if red != "none" or self.chance(0.3):
            attrs["reduction"] = red
        return self.add_op(name, [x, idx, upd], t, v["type"], v["shape"], attrs)

    def g_cumsum(self, name):
        x = self.operand(self.ops[name]["dtypes"], rank=[1, 2, 3, 4])
        v = self.info(x)
        r = len(v["shape"])
        axis = int(self.r.integers(r))
        if numel(v["shape"]) * max(v["shape"][axis], 1) > 4_000_000:
            raise Retry()
        if name == "cumprod" and v["shape"][axis] > 24:
            raise Retry()  # longer products mostly leave the float range
        attrs = {"axis": axis - r if self.chance(0.3) else axis}
        if self.chance(0.4):
            attrs["exclusive"] = True
        if self.chance(0.4):
            attrs["reverse"] = True
        return self.add_op(name, [x], v["dtype"], v["type"], v["shape"], attrs)

    def g_scan(self, name):
        """A loop over the leading axis of an existing value: a state combined
        with each slice and an invariant, stacked (forward or reverse)."""
        types = [t for t in self.ops[name]["dtypes"]]
        seq = self.operand(types, rank=[1, 2, 3])
        v = self.info(seq)
        t, shape, ty = v["dtype"], v["shape"], v["type"]
        inner, inner_ty = shape[1:], ty[1:]
        # A step of run-time size is sized by the first step: there must be one.
        if shape[0] == 0 and any(d is None for d in inner_ty):
            raise Retry()
        if shape[0] > 300:
            raise Retry()
        if t == "i1":
            pool1, pool2, unaries = ["or", "and", "xor"], ["or", "and", "xor"], []
        elif t in INTS:
            pool1, pool2 = ["add", "sub", "maximum", "minimum"], ["add", "maximum", "minimum", "xor"]
            unaries = ["neg", "abs"] if t not in UINTS else []
        else:
            pool1, pool2 = ["add", "sub", "maximum", "minimum"], ["add", "mul", "maximum", "sub"]
            unaries = ["tanh", "sigmoid", "neg", "abs"]
        ok = lambda n: n in self.ops and t in self.ops[n]["dtypes"]
        pool1, pool2 = [n for n in pool1 if ok(n)], [n for n in pool2 if ok(n)]
        unaries = [n for n in unaries if ok(n)]
        if not pool1 or not pool2:
            raise Retry()
        init = self.new_arg(t, inner, ty=inner_ty)
        inv = self.new_arg(t, inner, ty=inner_ty)
        attrs = {"op1": self.pick(pool1), "op2": self.pick(pool2),
                 "out": self.pick(["m", "n"]), "reverse": self.chance(0.4)}
        if unaries and self.chance(0.5):
            attrs["unary"] = self.pick(unaries)
        if not attrs["reverse"] and self.chance(0.35):
            # A conditional scan (a while loop) that stops after step
            # `stop` - 1 (at least one step), or runs none if `first` is
            # false: the stacked result has the steps that ran. (A step of
            # run-time size has placeholder sizes when none ran: not made.)
            dynamic_step = any(d is None for d in inner_ty)
            attrs["stop"] = int(self.r.integers(0, shape[0] + 2))
            attrs["first"] = dynamic_step or not self.chance(0.1)
            count = min(shape[0], max(attrs["stop"], 1)) if attrs["first"] else 0
            if dynamic_step and count == 0:
                raise Retry()
            return self.add_op(name, [init, seq, inv], t, [None] + list(inner_ty),
                               [count] + list(inner), attrs)
        return self.add_op(name, [init, seq, inv], t, ty, shape, attrs)

    def g_if(self, name):
        """A branch on a boolean argument (known to the compiler only at run
        time) over an existing value x and a new argument y of its type: a
        binary op (and a unary one) on them, or a unary op on x, its first
        rows (a result of another size) or y."""
        t_all = [t for t in self.ops[name]["dtypes"]]
        x = self.operand(t_all, rank=[0, 1, 2, 3])
        v = self.info(x)
        t, shape, ty = v["dtype"], v["shape"], v["type"]
        if t == "i1":
            pool1, unaries = ["or", "and", "xor"], ["not"]
        elif t in INTS:
            pool1 = ["add", "sub", "maximum", "minimum", "mul"]
            unaries = ["neg", "abs"] if t not in UINTS else []
        else:
            pool1 = ["add", "sub", "maximum", "minimum", "mul"]
            unaries = ["tanh", "sigmoid", "neg", "abs", "exp"]
        ok = lambda n: n in self.ops and t in self.ops[n]["dtypes"]
        pool1, unaries = [n for n in pool1 if ok(n)], [n for n in unaries if ok(n)]
        if not pool1:
            raise Retry()
        c = self.new_arg("i1", [], ty=[], data=np.array(self.chance(0.5)))
        y = self.new_arg(t, shape, ty=ty)
        attrs = {"op1": self.pick(pool1)}
        if unaries and self.chance(0.4):
            attrs["unary"] = self.pick(unaries)
        choices = ["y"] + (["unary"] if unaries else [])
        if ty and all(d is not None for d in ty) and shape[0] > 0:
            choices.append("take")
        pick = self.pick(choices)
        rty, rshape = list(ty), list(shape)
        if pick == "unary":
            attrs["else"] = self.pick(unaries)
        elif pick == "take":
            attrs["else"] = "take"
            attrs["take"] = int(self.r.integers(0, shape[0]))
            rty[0] = None
            if not bool(self.vals[c]):
                rshape[0] = attrs["take"]
        else:
            attrs["else"] = "y"
        return self.add_op(name, [c, x, y], t, rty, rshape, attrs)

    def window(self, sizes, pool):
        """Kernel sizes, strides, dilations and pads for windows over spatial
        `sizes` (a window always fits the padded input; pools pad less than a
        window's extent)."""
        kernel, strides, dilations, begin, end = [], [], [], [], []
        for d in sizes:
            for _ in range(20):
                kn = self.pick([1, 1, 2, 2, 3, 3, 4, 5])
                dl = self.pick([1, 1, 1, 2, 3])
                ext = dl * (kn - 1) + 1
                top = min(2, ext - 1) if pool else 2
                pb, pe = int(self.r.integers(0, top + 1)), int(self.r.integers(0, top + 1))
                if d + pb + pe >= ext:
                    break
            else:
                raise Retry()
            kernel.append(kn), dilations.append(dl), begin.append(pb), end.append(pe)
            strides.append(self.pick([1, 1, 2, 3]))
        return kernel, strides, dilations, begin + end

    def window_input(self, types, k, groups=None):
        """An (N, C, spatial...) value with static spatial sizes: an existing
        one now and then, else a new argument (N, and C where allowed,
        dynamic now and then)."""
        cands = self.refs(lambda w: w["dtype"] in types and len(w["shape"]) == k + 2 and
                          all(d is not None for d in w["type"][2:]) and
                          numel(w["shape"][2:]) <= 4096 and w["shape"][1] > 0 and
                          (groups is None or (w["shape"][1] % groups == 0 and
                                              (groups == 1 or w["type"][1] is not None))))
        if cands and self.chance(0.4):
            return self.pick(cands)
        t = self.theme if self.theme in types and self.chance(0.7) else self.pick(types)
        n = self.pick([1, 1, 2, 3]) if not self.chance(0.05) else 0
        c = (groups or 1) * self.pick([1, 2, 3])
        sizes = [self.pick([1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 16, 17]) for _ in range(k)]
        if self.chance(0.03):
            sizes[int(self.r.integers(k))] = 0
        shape = [n, c] + sizes
        ty = [None if self.chance(0.3) else n,
              None if (groups in (None, 1) and self.chance(0.3)) else c] + sizes
        return self.new_arg(t, shape, ty)

    def g_conv(self, name):
        types = self.ops[name]["dtypes"]
        k = self.pick([1, 1, 2, 2, 3])
        groups = self.pick([1, 1, 1, 2, 3])
        x = self.window_input(types, k, groups)
        v = self.info(x)
        t, c = v["dtype"], v["shape"][1]
        if groups == 1 and v["type"][1] is not None and c > 1 and self.chance(0.2):
            groups = c          # depthwise
        f = groups * self.pick([1, 2, 3])
        kernel, strides, dilations, pads = self.window(v["shape"][2:], pool=False)
        wshape = [f, c // groups] + kernel
        if self.chance(0.1) and numel(wshape) <= 64:
            w = self.add_op("constant", [], t, wshape, wshape,
                            {"value": (self.r.integers(-8, 9, size=wshape) / 4.0).tolist()})
        else:
            w = self.new_arg(t, wshape, wshape)
        outs = window_sizes(v["shape"][2:], kernel, strides, dilations, pads)
        shape = [v["shape"][0], f] + outs
        if numel(shape) * numel(wshape[1:]) > 3_000_000:
            raise Retry()
        attrs = {"strides": strides, "dilations": dilations, "pads": pads}
        if groups != 1:
            attrs["groups"] = groups
        return self.add_op(name, [x, w], t, [v["type"][0], f] + outs, shape, attrs)

    def g_pool(self, name):
        types = self.ops[name]["dtypes"]
        k = self.pick([1, 1, 2, 2, 3])
        x = self.window_input(types, k)
        v = self.info(x)
        kernel, strides, dilations, pads = self.window(v["shape"][2:], pool=True)
        attrs = {"kernel": kernel, "strides": strides, "dilations": dilations, "pads": pads}
        if self.chance(0.3):
            attrs["ceil_mode"] = True
        if name == "avg_pool" and self.chance(0.4):
            attrs["count_include_pad"] = True
        outs = window_sizes(v["shape"][2:], kernel, strides, dilations, pads,
                            attrs.get("ceil_mode", False))
        if numel(outs) > 4096 or numel(v["shape"][:2] + outs) * numel(kernel) > 3_000_000:
            raise Retry()
        return self.add_op(name, [x], v["dtype"], v["type"][:2] + outs, v["shape"][:2] + outs, attrs)

    # -- a function --
    def build(self, nops):
        names = sorted(n for n in self.ops if self.ops[n]["family"] not in NOT_GENERATED)
        tries = 0
        while len(self.f["ops"]) < nops and tries < nops * 30:
            tries += 1
            name = self.pick(names)
            last = self.refs()[-1:] if self.f["ops"] else []
            if last and self.chance(0.7):
                # Mostly an op that can take the newest value: deeper chains.
                t = self.info(last[0])["dtype"]
                fitting = [n for n in names if t in self.ops[n]["dtypes"] and n != "constant"]
                if fitting:
                    name = self.pick(fitting)
            fam = self.ops[name]["family"]
            gen = getattr(self, "g_" + fam, None)
            if gen is None:
                raise AssertionError("no generator for family %s (tide.%s)" % (fam, name))
            saved = (len(self.f["args"]), len(self.f["ops"]), len(self.inputs))
            try:
                gen(name)
                # tide-run calls functions of at most 16 tensors (arguments
                # and results; finish() keeps 6 results at most).
                if len(self.f["args"]) > self.MAX_ARGS:
                    raise Retry()
            except (Retry, Violation):
                # Undo what this attempt added.
                na, no, ni = saved
                for i in range(na, len(self.f["args"])):
                    self.vals.pop("a%d" % i, None)
                for i in range(no, len(self.f["ops"])):
                    self.vals.pop("v%d" % i, None)
                del self.f["args"][na:], self.f["ops"][no:], self.inputs[ni:]
        if not self.f["ops"]:
            return None
        self.finish()
        return self.f, self.inputs

    def finish(self):
        used = set(r for op in self.f["ops"] for r in op["in"])
        sinks = ["v%d" % i for i in range(len(self.f["ops"])) if "v%d" % i not in used]
        others = [r for r in self.refs() if r not in sinks]
        res = list(sinks)
        if others and self.chance(0.3):
            res.append(self.pick(others))
        self.f["results"] = res[:6]
        if not self.f["args"]:
            # Every function takes an argument (tide-run needs no zero-arg path
            # special-casing, and constants alone fold away).
            pass
        # Placement: pins, a default device, colocation groups.
        devs = ["cpu", "cuda:0"]
        if self.chance(0.2):
            self.f["default_device"] = self.pick(devs)
        for op in self.f["ops"]:
            kernels = self.ops[op["op"]].get("kernels", {})
            if self.chance(0.2):
                d = self.pick(devs)
                # Only where the target has a kernel (strict refuses others).
                if kernels.get(d, {}).get(op["dtype"], "none") != "none" or op["op"] == "constant":
                    op["pin"] = d
            if self.GEMM_ON_CPU and op["op"] == "matmul" and op["dtype"] in FLOATS:
                op["pin"] = "cpu"
                op.pop("colocate", None)
            if self.chance(0.1):
                grp = "g%d" % int(self.r.integers(0, 2))
                # A group must have a device where every member has a kernel
                # and that every pinned member names (else no placement
                # exists: tide.dim has no GPU kernel, for one).
                allowed = set(devs)
                for o in [o for o in self.f["ops"] if o.get("colocate") == grp] + [op]:
                    if o["op"] != "constant":
                        ks = self.ops[o["op"]].get("kernels", {})
                        allowed &= {d for d in devs if ks.get(d, {}).get(o["dtype"], "none") != "none"}
                    if o.get("pin"):
                        allowed &= {o["pin"]}
                if allowed:
                    op["colocate"] = grp


def generate(seed, ops, count, prefix="p", target="cpu"):
    """`count` functions from `seed`: [(func, inputs)]."""
    out = []
    k = 0
    while len(out) < count:
        rng = np.random.default_rng([seed, k])
        k += 1
        g = Gen(rng, ops, "%s%d_%d" % (prefix, seed, k - 1), target)
        nops = int(rng.choice([1, 2, 3, 4, 5, 6, 8, 12]))
        built = g.build(nops)
        if built:
            out.append(built)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ops", required=True, help="tide-opt --tide-list-kernels format=json output")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=5)
    ap.add_argument("--target", default="cpu")
    args = ap.parse_args()
    ops = load_ops(args.ops)
    probs = coverage_problems(ops)
    for p in probs:
        print("error: " + p, file=sys.stderr)
    if probs:
        return 1
    for f, _ in generate(args.seed, ops, args.count, target=args.target):
        sys.stdout.write(emit_func(f, args.target) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
