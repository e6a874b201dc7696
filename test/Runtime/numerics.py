#!/usr/bin/env python3
"""End-to-end numerics tests for Tide.

For every op of the `tide` dialect and every element type it accepts (both
from `tide-opt --tide-list-kernels="format=json"`: the facts each op declares
in ODS), this script writes small functions (one generator per lowering
family), compiles them with tide-compile (many functions per module, one module
per element type or op group), runs every function with tide-run on inputs
written by NumPy, and compares each result with the op's NumPy reference
(REFERENCES), computed here, independently of Tide. It also runs the seed examples,
an f64 no-demotion check, and tide-run's error handling for bad input.

Usage: numerics.py --tide-bin BUILD/bin --tmp DIR [-j N] [-k REGEX] [-v]
                   [--timing] [--margins] [--skip-examples]
                   [--target T] [--build-only | --prebuilt]

With --target=h200 every op is placed on the GPU (the GPU suite). A machine
without LLVM (the GPU machine) runs modules compiled elsewhere: --build-only
compiles everything into --tmp and runs nothing; --prebuilt then runs those
libraries (the generated module text must be the same, which is checked;
the op list is the copy --build-only saved in --tmp).

An op that tide-opt lists without a NumPy reference here (or whose family has
no generator) fails the suite with a line that says what to add.

Prints one line per failing check and ends with `N passed, M failed`; exits 1
when M > 0. Needs Python 3 and NumPy only.
"""

import argparse
import concurrent.futures
import itertools
import json
import math
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import zlib

import numpy as np

# ---------------------------------------------------------------------------
# Element types
# ---------------------------------------------------------------------------

# Classes of element types, for test data. Which types each op accepts comes
# from tide-opt (see OPS).
# Unsigned integers (ui8..ui64) are in INTS: the generators draw their test
# data in the signed range of the same width, and Func.run maps it modulo 2^N
# (so -1 becomes the largest value); their logical values are uint64 arrays,
# whose NumPy arithmetic is unsigned, and results compare modulo 2^N.
UINTS = ["ui8", "ui16", "ui32", "ui64"]
INTS = ["i8", "i16", "i32", "i64"] + UINTS
FLOATS = ["f16", "bf16", "f32", "f64"]


def signed_of(t):
    """The signed type of t's width ("ui8" -> "i8"); t itself otherwise."""
    return t[1:] if t in UINTS else t


def to_unsigned(x, t):
    """Logical values (any integers) -> t's values modulo 2^N, as uint64."""
    mask = np.uint64((1 << bits_of(t)) - 1)
    x = np.asarray(x)
    if x.dtype.kind == "f":
        x = x.astype(np.int64)
    return (x.astype(np.int64).astype(np.uint64) if x.dtype.kind in "ib" else
            x.astype(np.uint64)) & mask

# How tide-run stores each type in a .npy (bf16 as raw uint16 bits).
STORAGE = {
    "i1": np.dtype(np.bool_), "i8": np.dtype(np.int8),
    "i16": np.dtype("<i2"), "i32": np.dtype("<i4"), "i64": np.dtype("<i8"),
    "ui8": np.dtype("|u1"), "ui16": np.dtype("<u2"), "ui32": np.dtype("<u4"),
    "ui64": np.dtype("<u8"),
    "f16": np.dtype("<f2"), "bf16": np.dtype("<u2"),
    "f32": np.dtype("<f4"), "f64": np.dtype("<f8"),
}
# The range test data is drawn from (signed, also for unsigned types: see UINTS).
INT_RANGE = {t: (int(np.iinfo(STORAGE[signed_of(t)]).min),
                 int(np.iinfo(STORAGE[signed_of(t)]).max)) for t in INTS}

# ---------------------------------------------------------------------------
# Tolerances: (rtol, atol) per element type and class of check. A float result
# passes when |got - ref| <= atol + rtol * |ref| (NaN matches NaN, inf must be
# equal). Integer and bool results, casts and data movement are always exact.
#
#   ieee       correctly rounded ops: add sub mul div sqrt neg abs relu
#              maximum minimum floor ceil (f64: bit-exact, proving f64 math
#              really happens in f64)
#   exp        exp (f64 at 1e-15 against a long double reference)
#   transc     other transcendental / multi-step elementwise: log rsqrt tanh
#              sigmoid sin cos erf pow elu (f16 allows 2e-3: sigmoid and elu
#              round after each of up to three f16 steps)
#   reduce     sums, means, products over <= 60 elements (accumulation order
#              is free; f16/bf16 inputs are chosen so the result is exact)
#   composite  matmul, softmax, log_softmax, the MLP example (f16/bf16 matmul
#              uses inputs whose products and sums are exact: checked exactly)
# ---------------------------------------------------------------------------
TOLERANCES = {
    "f64": {"ieee": (0.0, 0.0), "exp": (1e-15, 1e-300), "transc": (1e-13, 1e-300),
            "reduce": (1e-14, 1e-300), "composite": (1e-12, 1e-14)},
    "f32": {"ieee": (1e-6, 1e-38), "exp": (2e-6, 1e-38), "transc": (2e-6, 1e-38),
            "reduce": (2e-6, 1e-38), "composite": (1e-5, 1e-6)},
    "f16": {"ieee": (1e-3, 6e-5), "exp": (1e-3, 6e-5), "transc": (2e-3, 6e-5),
            "reduce": (1e-3, 6e-5), "composite": (5e-3, 5e-3)},
    "bf16": {"ieee": (1e-2, 1e-38), "exp": (1e-2, 1e-38), "transc": (1e-2, 1e-38),
             "reduce": (1e-2, 1e-38), "composite": (3e-2, 3e-2)},
}

# ---------------------------------------------------------------------------
# bf16 <-> float32 (NumPy has no bfloat16)
# ---------------------------------------------------------------------------


def f32_to_bf16_bits(x):
    """float32 -> bf16 bit patterns, rounding to nearest even."""
    x = np.array(x, dtype=np.float32, order="C")     # keeps 0-d arrays 0-d
    flat = x.reshape(-1)
    bits = flat.view(np.uint32).astype(np.uint64)
    sixteen = np.uint64(16)
    rounded = (bits + np.uint64(0x7FFF) + ((bits >> sixteen) & np.uint64(1))) >> sixteen
    out = (rounded & np.uint64(0xFFFF)).astype(np.uint16)
    nan = np.isnan(flat)
    out[nan] = ((bits[nan] >> sixteen).astype(np.uint16) & np.uint16(0x8000)) | np.uint16(0x7FC0)
    return out.reshape(x.shape)


def bf16_bits_to_f32(u):
    u = np.array(u, dtype=np.uint16, order="C")
    return (u.reshape(-1).astype(np.uint32) << np.uint32(16)).view(np.float32).reshape(u.shape)


def quantize(x, t):
    """Round float64 values to type t; returns float64 holding exact values."""
    x = np.asarray(x, dtype=np.float64)
    if t == "f64":
        return x.copy()
    if t == "f32":
        return x.astype(np.float32).astype(np.float64)
    if t == "f16":
        return x.astype(np.float16).astype(np.float64)
    if t == "bf16":
        return bf16_bits_to_f32(f32_to_bf16_bits(x.astype(np.float32))).astype(np.float64)
    raise ValueError(t)


def encode(x, t):
    """Logical values (bool / int64 / float64) -> the array tide-run reads."""
    x = np.asarray(x)
    if t == "bf16":
        return f32_to_bf16_bits(np.asarray(x, dtype=np.float64).astype(np.float32))
    if t == "i1":
        return np.array(x != 0, order="C")
    return np.array(x.astype(STORAGE[t]), order="C")


def decode(a, t):
    """The array tide-run wrote -> logical values."""
    if t == "bf16":
        return bf16_bits_to_f32(a).astype(np.longdouble)
    if t in FLOATS:
        return a.astype(np.longdouble)
    if t == "i1":
        return a.astype(np.bool_)
    if t in UINTS:
        return a.astype(np.uint64)
    return a.astype(np.int64)


# ---------------------------------------------------------------------------
# MLIR text helpers
# ---------------------------------------------------------------------------


def T(shape, t):
    """tensor type: shape entries are ints or None (dynamic)."""
    if len(shape) == 0:
        return "tensor<%s>" % t
    return "tensor<%sx%s>" % ("x".join("?" if d is None else str(d) for d in shape), t)


def literal(v, t):
    if t == "i1":
        return "true" if v else "false"
    if t in UINTS:
        return str(int(v) % (1 << bits_of(t)))
    if t in INTS:
        return str(int(v))
    return repr(float(v))


def dense(values, t):
    a = np.asarray(values)
    if a.ndim == 0:
        return literal(a.item(), t)
    return "[" + ", ".join(dense(x, t) for x in a) + "]"


class Func:
    """A function under construction, with its results' NumPy references and
    the input sets to run it on."""

    def __init__(self, name, args, arg_attrs=None, res_attrs=None):
        # args: list of (shape, type); *_attrs: attribute dicts ("" for none)
        self.name = name
        self.args = args
        self.arg_attrs = arg_attrs or [""] * len(args)
        self.res_attrs = res_attrs
        self.argnames = ["%%a%d" % i for i in range(len(args))]
        self.lines = []
        self.n = 0
        self.results = []   # (ssa, mlir type, label, ref fn, type, class)
        self.runs = []      # (label, [logical arrays])

    def arg(self, i):
        return self.argnames[i]

    def op(self, text):
        v = "%%v%d" % self.n
        self.n += 1
        self.lines.append("  %s = %s" % (v, text))
        return v

    def ret(self, v, shape, t, label, ref, cls="exact"):
        """Return value v (MLIR type T(shape, t)); ref(inputs) -> expected."""
        self.results.append((v, T(shape, t), label, ref, t, cls))

    def run(self, label, inputs):
        inputs = [to_unsigned(x, t) if t in UINTS else x
                  for x, (_, t) in zip(inputs, self.args)]
        self.runs.append((label, inputs))

    def text(self):
        args = ", ".join("%s: %s%s" % (n, T(s, t), (" " + a) if a else "")
                         for n, (s, t), a in zip(self.argnames, self.args, self.arg_attrs))
        rtypes = ", ".join(r[1] for r in self.results)
        res_attrs = self.res_attrs or [""] * len(self.results)
        rdecl = ", ".join(r[1] + ((" " + a) if a else "")
                          for r, a in zip(self.results, res_attrs))
        body = "\n".join(self.lines)
        return ("func.func @%s(%s) -> (%s) {\n%s\n  return %s : %s\n}\n"
                % (self.name, args, rdecl, body,
                   ", ".join(r[0] for r in self.results), rtypes))


def rng_for(name):
    return np.random.default_rng(zlib.crc32(name.encode()))


def ref_precision(t, cls):
    """NumPy type the reference is computed in: f64 transcendental and
    accumulating references use long double; f64 IEEE ops use float64 (bit
    exact); narrower types use float64."""
    if t == "f64" and cls in ("exp", "transc", "reduce"):
        return np.longdouble
    return np.float64


def lift(x, t, cls):
    """Logical input -> the precision its reference is computed in."""
    x = np.asarray(x)
    if x.dtype.kind == "f":
        return x.astype(ref_precision(t, cls))
    return x


# ---------------------------------------------------------------------------
# Input generators (return logical arrays: bool, int64 or float64)
# ---------------------------------------------------------------------------


def gen_float(rng, shape, lo, hi, t):
    return quantize(rng.uniform(lo, hi, size=shape), t)


def gen_halves(rng, shape, lo, hi):
    return rng.integers(int(lo * 2), int(hi * 2) + 1, size=shape) / 2.0


def gen_int(rng, shape, lo, hi):
    return rng.integers(lo, hi + 1, size=shape, dtype=np.int64)


def gen_bool(rng, shape):
    return rng.integers(0, 2, size=shape).astype(np.bool_)


def gen_pool(rng, shape, pool):
    """Values drawn from a small pool (ties for argmax/argmin, equality)."""
    pool = np.asarray(pool)
    return pool[rng.integers(0, len(pool), size=shape)]


def gen_any(rng, shape, t, lo=-10, hi=10):
    """Generic values of type t (within [lo, hi] for numbers)."""
    if t == "i1":
        return gen_bool(rng, shape)
    if t in INTS:
        return gen_int(rng, shape, lo, hi)
    return gen_float(rng, shape, lo, hi, t)


def full_range_ints(rng, shape, t):
    lo, hi = INT_RANGE[t]
    x = rng.integers(lo, hi, size=shape, dtype=np.int64, endpoint=True)
    flat = x.reshape(-1)
    extremes = [lo, hi, 0, -1, 1]
    for i, v in enumerate(extremes[: flat.size]):
        flat[(i * 7) % flat.size] = v
    return x


# Safe ranges for elementwise integer arithmetic (products do not overflow).
ARITH_INT = {"i8": 11, "i16": 180, "i32": 46000, "i64": 3_000_000_000}
ARITH_INT.update((u, ARITH_INT[signed_of(u)]) for u in UINTS)

# ---------------------------------------------------------------------------
# Op semantics for references
# ---------------------------------------------------------------------------


def trunc_div(a, b):
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) != (b < 0), -q, q)


def quiet(fn):
    """fn without NumPy's warnings (NaN from fmod by 0 is the expected result)."""
    def f(*args):
        with np.errstate(all="ignore"):
            return fn(*args)
    return f


def int_rem(a, b):
    """Truncated remainder (C's %); by 0 (and by -1) it is 0."""
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    trivial = (b == 0) | (b == -1)
    return np.where(trivial, 0, np.fmod(a, np.where(trivial, 1, b)))


def int_mod(a, b):
    """Floored modulo (Python's %); by 0 (and by -1) it is 0."""
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    trivial = (b == 0) | (b == -1)
    return np.where(trivial, 0, np.mod(a, np.where(trivial, 1, b)))


def bits_of(t):
    return 1 if t == "i1" else int(t.lstrip("uif"))


def uint_rem(a, b):
    """Unsigned remainder (= floored modulo); by 0 it is 0."""
    a, b = np.asarray(a, dtype=np.uint64), np.asarray(b, dtype=np.uint64)
    zero = b == 0
    return np.where(zero, np.uint64(0), a % np.where(zero, np.uint64(1), b))


def typed_int(signed, unsigned):
    """An integer reference that differs for unsigned types (typed=True)."""
    return lambda t: unsigned if t in UINTS else signed


def shift_ref(left):
    """Logical shifts of t's bits (read as unsigned); an amount outside
    [0, bits) gives 0. Typed: shift_ref(left)(t) -> (a, b) -> result."""
    def typed(t):
        n = bits_of(t)
        mask = (1 << n) - 1

        def f(a, b):
            if t in UINTS:   # as int64: the same bits, and 2^63.. are >= n
                a, b = to_unsigned(a, t).astype(np.int64), to_unsigned(b, t).astype(np.int64)
            a = np.asarray(a).astype(np.int64)
            b = np.asarray(b).astype(np.int64)
            a, b = np.broadcast_arrays(a, b)
            ok = (b >= 0) & (b < n)
            u = [int(x) & mask for x in a.reshape(-1)]
            k = [int(x) if o else 0 for x, o in zip(b.reshape(-1), ok.reshape(-1))]
            r = [((x << s) if left else (x >> s)) & mask for x, s in zip(u, k)]
            if t in UINTS:
                return np.where(ok, np.array(r, dtype=np.uint64).reshape(a.shape), np.uint64(0))
            r = np.array([x - (1 << n) if (t != "i1" and x >> (n - 1)) else x for x in r],
                         dtype=np.int64).reshape(a.shape)
            r = np.where(ok, r, 0)
            return r.astype(np.bool_) if t == "i1" else r
        return f
    return typed


def np_erf(x):
    return np.vectorize(math.erf, otypes=[np.float64])(np.asarray(x, dtype=np.float64))


def relu(x):
    return np.maximum(x, 0)


def elu(alpha):
    return lambda x: np.where(x > 0, x, alpha * np.expm1(x))


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def softmax(x, axis):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def log_softmax(x, axis):
    s = x - np.max(x, axis=axis, keepdims=True)
    return s - np.log(np.sum(np.exp(s), axis=axis, keepdims=True))


def wrap_check(ref, t):
    """Integer reference must fit in t (else the test data is wrong); unsigned
    results wrap (compare() takes them modulo 2^N)."""
    if t in UINTS:
        return ref
    if t in INTS:
        lo, hi = INT_RANGE[t]
        r = np.asarray(ref)
        if r.size and (r.min() < lo or r.max() > hi):
            raise AssertionError("test data overflows %s" % t)
    return ref


# ---------------------------------------------------------------------------
# The ops under test come from `tide-opt --tide-list-kernels="format=json"`:
# every op Tide has, with the facts it declares in ODS (its lowering family, the
# element types it accepts). Each op's test is its NumPy reference in
# REFERENCES, run by the generator of its family (below). An op the JSON lists
# without a reference, or whose family has no generator, fails the suite.
# ---------------------------------------------------------------------------

OPS = {}    # op name (without `tide.`) -> its entry in the JSON; set by load_ops


def load_ops(tide_bin, target, saved, prebuilt):
    """Reads the op list (from tide-opt, or with --prebuilt from the copy that
    --build-only left in --tmp: the GPU machine has no tide-opt) into OPS;
    returns the JSON."""
    if prebuilt:
        if not os.path.exists(saved):
            sys.exit("numerics.py: %s is missing; run with --build-only first" % saved)
        with open(saved) as fh:
            text = fh.read()
    else:
        p = subprocess.run([os.path.join(tide_bin, "tide-opt"),
                            "--tide-list-kernels=target=%s format=json" % target, "-o", os.devnull],
                           input="module {}\n", capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit("numerics.py: tide-opt --tide-list-kernels failed: %s" % p.stderr.strip())
        text = p.stdout
        with open(saved, "w") as fh:
            fh.write(text)
    table = json.loads(text)
    OPS.clear()
    OPS.update((op["name"], op) for op in table["ops"])
    return table


class Ref:
    """One op's NumPy reference and the test data its family's generator reads.

    family            the op's lowering family (must be the one tide-opt lists)
    fn                the reference (on float inputs, and on any inputs unless
                      int_fn / bool_fn say otherwise for integers / i1); with
                      typed=True each of them takes the element type and
                      returns the reference for it
    cls               tolerance class of its float results (see TOLERANCES);
                      integer and i1 results are always exact
    data (keywords)   what the family's generator reads, documented in REFERENCES
    """

    def __init__(self, family, fn, cls="exact", int_fn=None, bool_fn=None, **data):
        self.family, self.fn, self.cls = family, fn, cls
        self.int_fn, self.bool_fn = int_fn, bool_fn
        self.data = data

    def get(self, key, default=None):
        return self.data.get(key, default)

    def for_type(self, t):
        """The reference on inputs of type t."""
        if t == "i1" and self.bool_fn is not None:
            return self.bool_fn(t) if self.get("typed") else self.bool_fn
        if t in INTS + ["i1"] and self.int_fn is not None:
            if self.get("uint_fn") is not None and t in UINTS:
                return self.get("uint_fn")
            return self.int_fn(t) if self.get("typed") else self.int_fn
        if self.fn is None:
            raise AssertionError("the reference has no function for %s" % t)
        return self.fn(t) if self.get("typed") else self.fn

    def cls_for(self, t):
        return self.cls if t in FLOATS else "exact"


def cast_ref(x, src, dst):
    x = np.asarray(x)
    if dst == "i1":
        return x != 0
    if src == "i1":
        x = x.astype(np.int64)
    if dst in UINTS:
        # Integers keep their low bits (a signless source sign-extends);
        # floats truncate toward zero (the inputs are in range).
        return to_unsigned(np.trunc(x) if src in FLOATS else x, dst)
    if dst in INTS:
        if src in UINTS:   # the low bits, read as signed
            n = bits_of(dst)
            r = to_unsigned(x, src) & np.uint64((1 << n) - 1)
            r = r.astype(np.int64)
            return np.where(r >= (1 << (n - 1)), r - (1 << n), r) if n < 64 else r
        r = np.trunc(x).astype(np.int64) if src in FLOATS else x.astype(np.int64)
        return wrap_check(r, dst)
    if dst == "f64":
        return x.astype(np.float64)
    if dst == "f32":
        return x.astype(np.float64).astype(np.float32).astype(np.float64)
    if dst == "f16":
        with np.errstate(over="ignore"):     # large integers become inf
            return x.astype(np.float64).astype(np.float16).astype(np.float64)
    return quantize(x.astype(np.float64).astype(np.float32), "bf16")


def width_of(t):
    return 16 if t == "bf16" else bits_of(t)


def bitcast_ref(x, src, dst):
    """The bits of src's values (as stored, little-endian), read as dst."""
    x = np.asarray(x)
    n = width_of(src)
    u = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}.get(n)
    if src == "i1":
        return x.astype(bool)
    if src == "bf16":
        bits = (x.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    elif src in FLOATS:
        bits = x.astype({"f16": np.float16, "f32": np.float32, "f64": np.float64}[src]).view(u)
    elif src in UINTS:
        bits = to_unsigned(x, src).astype(u)
    else:
        bits = x.astype(np.int64).astype({8: np.int8, 16: np.int16, 32: np.int32,
                                          64: np.int64}[n]).view(u)
    if dst == "bf16":
        return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    if dst in FLOATS:
        return bits.view({"f16": np.float16, "f32": np.float32,
                          "f64": np.float64}[dst]).astype(np.float64)
    if dst in UINTS:
        return bits.astype(np.uint64)
    return bits.view({8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}[n]).astype(np.int64)


def gather_ref(x, indices, axis):
    """take_along_axis with Tide's rules: indices in [-n, 0) count from the end,
    the rest is clamped to [0, n - 1]; an empty axis gives zeros; along the
    other axes the indices may be smaller than x (its leading part is read)."""
    x, indices = np.asarray(x), np.asarray(indices, dtype=np.int64)
    axis %= x.ndim
    n = x.shape[axis]
    if n == 0:
        return np.zeros(indices.shape, dtype=x.dtype)
    k = np.where(indices < 0, indices + n, indices)
    k = np.clip(k, 0, n - 1)
    part = x[tuple(slice(None) if d == axis else slice(0, indices.shape[d])
                   for d in range(x.ndim))]
    return np.take_along_axis(part, k, axis)


def scatter_ref(data, indices, updates, axis, reduction):
    """ONNX ScatterElements with Tide's rules: indices in [-n, 0) count from
    the end, others outside [0, n) write nothing; updates apply in row-major
    order (for `none` the last one landing on an element wins); along the
    other axes the indices may be smaller than the data."""
    out = np.array(data, copy=True)
    indices = np.asarray(indices, dtype=np.int64)
    updates = np.asarray(updates)
    axis %= out.ndim
    n = out.shape[axis]
    combine = {"none": lambda a, u: u, "add": lambda a, u: a + u,
               "mul": lambda a, u: a * u, "max": np.maximum, "min": np.minimum}[reduction]
    with np.errstate(over="ignore"):     # integers wrap, like Tide's
        _scatter_into(out, indices, updates, axis, n, combine)
    return out


def _scatter_into(out, indices, updates, axis, n, combine):
    for pos in np.ndindex(*indices.shape):
        k = int(indices[pos])
        if k < 0:
            k += n
        if not 0 <= k < n:
            continue
        at = pos[:axis] + (k,) + pos[axis + 1:]
        out[at] = combine(out[at], updates[pos])


def cumulative_ref(x, axis, exclusive, reverse, product=False):
    x = np.asarray(x)
    if reverse:
        x = np.flip(x, axis)
    c = np.cumprod(x, axis=axis) if product else np.cumsum(x, axis=axis)
    if exclusive:
        c = np.moveaxis(c, axis, 0)
        first = np.ones_like(c[:1]) if product else np.zeros_like(c[:1])
        c = np.concatenate([first, c[:-1]], axis=0) if c.shape[0] else c
        c = np.moveaxis(c, 0, axis)
    return np.flip(c, axis) if reverse else c


def cumsum_ref(x, axis, exclusive, reverse):
    return cumulative_ref(x, axis, exclusive, reverse)


def cumprod_ref(x, axis, exclusive, reverse):
    return cumulative_ref(x, axis, exclusive, reverse, product=True)


def conv_ref(x, w, strides, dilations, pads, groups):
    """N-D NCHW convolution (cross-correlation), straight from the definition:
    zero padding, then for every kernel offset the strided input patch times
    that offset's weights, per group."""
    k = x.ndim - 2
    x = np.pad(x, [(0, 0), (0, 0)] + [(pads[i], pads[k + i]) for i in range(k)])
    n, c = x.shape[:2]
    f = w.shape[0]
    cg, fg = c // groups, f // groups
    outs = [(x.shape[2 + i] - dilations[i] * (w.shape[2 + i] - 1) - 1) // strides[i] + 1
            for i in range(k)]
    y = np.zeros((n, f) + tuple(outs), dtype=np.result_type(x, w))
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


def pool_sizes(sizes, kernel, strides, dilations, pads, ceil_mode):
    k = len(sizes)
    outs = []
    for i in range(k):
        span = sizes[i] + pads[i] + pads[k + i] - dilations[i] * (kernel[i] - 1) - 1
        o = (-(-span // strides[i]) if ceil_mode else span // strides[i]) + 1
        if ceil_mode and (o - 1) * strides[i] >= sizes[i] + pads[i]:
            o -= 1   # the last window would start in the end padding
        outs.append(o)
    return outs


def pool_ref(x, kernel, strides, dilations, pads, ceil_mode, mode, count_include_pad=False):
    """max or avg pooling window by window: the in-bounds elements of each
    window; max of them (-inf / the lowest integer when there are none), or
    their sum over their count (with count_include_pad: the count of window
    positions inside the padded input)."""
    k = x.ndim - 2
    sizes = x.shape[2:]
    outs = pool_sizes(sizes, kernel, strides, dilations, pads, ceil_mode)
    y = np.zeros(x.shape[:2] + tuple(outs), dtype=x.dtype)
    for o in np.ndindex(*outs):
        inside, padded = [], 1
        for i in range(k):
            pos = [o[i] * strides[i] - pads[i] + j * dilations[i] for j in range(kernel[i])]
            inside.append([p for p in pos if 0 <= p < sizes[i]])
            padded *= sum(1 for p in pos if -pads[i] <= p < sizes[i] + pads[k + i])
        count = int(np.prod([len(p) for p in inside]))
        vals = x[(slice(None), slice(None)) + np.ix_(*inside)].reshape(x.shape[:2] + (count,))
        at = (slice(None), slice(None)) + o
        if mode == "max":
            lowest = -np.inf if x.dtype.kind == "f" else np.iinfo(np.int64).min
            y[at] = vals.max(axis=-1) if vals.shape[-1] else lowest
        else:
            y[at] = vals.sum(axis=-1) / (padded if count_include_pad else vals.shape[-1])
    return y


def slice_ref(x, start, limit, strides):
    return x[tuple(slice(a, b, c) for a, b, c in zip(start, limit, strides))]


def dim_ref(x, axis):
    return np.array([np.asarray(x).shape[axis]], dtype=np.int64)


def nonzero_ref(x):
    x = np.asarray(x)
    if x.ndim == 0:     # NumPy's nonzero of a scalar sees it as a vector
        return np.zeros((0, int(x != 0)), dtype=np.int64)
    return np.array(np.nonzero(x), dtype=np.int64)


def top_k_ref(x, k, axis, smallest):
    """Indices of the k largest (smallest) elements along `axis`, sorted by
    value, equal values by index, NaN the largest (a stable NumPy sort);
    positions past the axis hold 0."""
    x = np.moveaxis(np.asarray(x), axis, -1)
    n = x.shape[-1]
    if smallest:
        order = np.argsort(x, axis=-1, kind="stable")
    else:
        order = n - 1 - np.argsort(x[..., ::-1], axis=-1, kind="stable")[..., ::-1]
    out = np.zeros(x.shape[:-1] + (k,), dtype=np.int64)
    out[..., :min(k, n)] = order[..., :min(k, n)]
    return np.ascontiguousarray(np.moveaxis(out, -1, axis))


def nms_ref(boxes, scores, limit, iou, score_threshold, center):
    """ONNX Runtime's NonMaxSuppression (float64 here; the tests' boxes make
    every ratio exact)."""
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
                    if score_threshold is None or scores[b, c, i] > score_threshold]
            cand.sort(key=lambda i: (-scores[b, c, i], i))
            chosen = []
            for i in cand:
                if len(chosen) >= max(int(limit), 0):
                    break
                if not any(suppresses(extents(boxes[b, i]), extents(boxes[b, j])) for j in chosen):
                    chosen.append(i)
                    rows.append((b, c, i))
    return np.array(rows, dtype=np.int64).reshape(-1, 3)


def iota_ref(shape, axis):
    shape = tuple(int(d) for d in shape)
    index = np.arange(shape[axis]).reshape([-1 if d == axis else 1 for d in range(len(shape))])
    return np.broadcast_to(index, shape).astype(np.float64)


CMP = [("eq", np.equal), ("ne", np.not_equal), ("lt", np.less), ("le", np.less_equal),
       ("gt", np.greater), ("ge", np.greater_equal)]

FIXED_ROUNDING = [-2.0, -0.5, 0.5, 3.0]     # exact integers and halves

# One entry per op, keyed by its name. The order is the order of the checks in
# the generated functions. Family data:
#   unary      domain: range of float inputs (default (-5, 5)); fixed: the first
#              float inputs; int_input="full": full-range integers (otherwise
#              INT_MIN is left out, as -x and |x| wrap there); variants: more
#              calls of the op, (label, attributes, reference)
#   binary     inputs="pow": a positive base and a small exponent; inputs="shift":
#              full-range integers and shift amounts around [0, bits) (otherwise
#              any a, and b away from 0); full_range: integers also over their
#              full range (the result cannot overflow); edges: integers also on
#              divisors 0 and -1 and the extremes (remainders)
#   compare    predicates: (predicate, reference)
#   reduction, arg_reduction
#              cases: (argument, axes, keepdims) over x: 3x4x5, y: ?x5, z: 2x3x2
#              (z from a pool whose products stay exact)
#   softmax    cases: (argument, axis) over 3x5, ?x?, 2x3x4
#   constant   fn(value, shape) is the tensor `dense<value>` holds
#   the rest   fn is the NumPy function the op computes
REFERENCES = {
    "neg": Ref("unary", lambda x: -x, "ieee"),
    "abs": Ref("unary", np.abs, "ieee"),
    "relu": Ref("unary", relu, "ieee"),
    "floor": Ref("unary", np.floor, "ieee", domain=(-4, 4), fixed=FIXED_ROUNDING),
    "ceil": Ref("unary", np.ceil, "ieee", domain=(-4, 4), fixed=FIXED_ROUNDING),
    "round": Ref("unary", np.round, "ieee", domain=(-4, 4), fixed=FIXED_ROUNDING),  # halves to even, as NumPy
    "sqrt": Ref("unary", np.sqrt, "ieee", domain=(0, 20), fixed=[0.0]),
    "exp": Ref("unary", np.exp, "exp"),
    "log": Ref("unary", np.log, "transc", domain=(0.05, 20)),
    "rsqrt": Ref("unary", lambda x: 1 / np.sqrt(x), "transc", domain=(0.05, 20)),
    "tanh": Ref("unary", np.tanh, "transc", domain=(-3, 3)),
    "sigmoid": Ref("unary", sigmoid, "transc", domain=(-6, 6)),
    "sin": Ref("unary", np.sin, "transc", domain=(-4, 4)),
    "cos": Ref("unary", np.cos, "transc", domain=(-4, 4)),
    "erf": Ref("unary", np_erf, "transc", domain=(-2.5, 2.5)),
    "elu": Ref("unary", elu(1.0), "transc", domain=(-3, 3),
               variants=[("elu_alpha", " alpha = 0.5", elu(0.5))]),
    "tan": Ref("unary", np.tan, "transc", domain=(-1.4, 1.4), fixed=[0.0, 1e-6]),
    "asin": Ref("unary", np.arcsin, "transc", domain=(-1, 1), fixed=[1.0, -1.0, 1e-6, 0.0]),
    "acos": Ref("unary", np.arccos, "transc", domain=(-1, 1), fixed=[1.0, -1.0, 0.0]),
    "atan": Ref("unary", np.arctan, "transc", domain=(-6, 6), fixed=[1e-6, 0.0]),
    # Tiny arguments: sinh(x) ~ x, asinh(x) ~ x and atanh(x) ~ x must not cancel.
    "sinh": Ref("unary", np.sinh, "transc", domain=(-5, 5), fixed=[1e-6, -3e-5, 0.0]),
    "cosh": Ref("unary", np.cosh, "transc", domain=(-5, 5), fixed=[1e-6, 0.0]),
    "asinh": Ref("unary", np.arcsinh, "transc", domain=(-6, 6), fixed=[1e-6, -3e-5, 0.0]),
    "acosh": Ref("unary", np.arccosh, "transc", domain=(1, 10), fixed=[1.0, 1.0009765625]),
    "atanh": Ref("unary", np.arctanh, "transc", domain=(-0.99, 0.99), fixed=[1e-6, -3e-5, 0.0]),
    "sign": Ref("unary", np.sign, "ieee", fixed=[0.0, -0.0, 1.0, -1.0], int_input="full"),
    "not": Ref("unary", None, int_fn=np.invert, bool_fn=np.logical_not, int_input="full"),

    "add": Ref("binary", lambda a, b: a + b, "ieee"),
    "sub": Ref("binary", lambda a, b: a - b, "ieee"),
    "mul": Ref("binary", lambda a, b: a * b, "ieee"),
    "div": Ref("binary", lambda a, b: a / b, "ieee", int_fn=trunc_div,
               uint_fn=lambda a, b: np.asarray(a, dtype=np.uint64) // np.asarray(b, dtype=np.uint64)),
    "maximum": Ref("binary", np.maximum, "ieee", full_range=True),
    "minimum": Ref("binary", np.minimum, "ieee", full_range=True),
    "and": Ref("binary", None, int_fn=np.bitwise_and, bool_fn=np.logical_and, full_range=True),
    "or": Ref("binary", None, int_fn=np.bitwise_or, bool_fn=np.logical_or, full_range=True),
    "xor": Ref("binary", None, int_fn=np.bitwise_xor, bool_fn=np.logical_xor, full_range=True),
    "rem": Ref("binary", quiet(np.fmod), "ieee", int_fn=int_rem, uint_fn=uint_rem,
               full_range=True, edges=True),
    "mod": Ref("binary", quiet(np.mod), "ieee", int_fn=int_mod, uint_fn=uint_rem,
               full_range=True, edges=True),
    "shl": Ref("binary", None, int_fn=shift_ref(True), bool_fn=shift_ref(True), typed=True,
               inputs="shift"),
    "shr": Ref("binary", None, int_fn=shift_ref(False), bool_fn=shift_ref(False), typed=True,
               inputs="shift"),
    "pow": Ref("binary", np.power, "transc", inputs="pow"),

    "cmp": Ref("compare", None, predicates=CMP),
    "select": Ref("select", np.where),
    "cast": Ref("cast", cast_ref),
    # bitcast: every pair of one width (i1 only to i1).
    "bitcast": Ref("cast", bitcast_ref),
    "constant": Ref("constant", lambda value, shape: np.broadcast_to(np.asarray(value), shape)),
    "matmul": Ref("matmul", np.matmul),

    "reduce_sum": Ref("reduction", np.sum, "reduce",
                      cases=[(0, [1], False), (0, [0, 2], True), (0, [-1], False),
                             (0, [0, 1, 2], False), (1, [0], False)]),
    "reduce_max": Ref("reduction", np.max, "reduce",
                      cases=[(0, [0], False), (0, [-1], True), (1, [1], False)]),
    "reduce_min": Ref("reduction", np.min, "reduce",
                      cases=[(0, [1, 2], False), (0, [-3], False), (1, [0], True)]),
    "reduce_prod": Ref("reduction", np.prod, "reduce",
                       cases=[(2, [0], False), (2, [-1], True), (2, [0, 2], False)]),
    "reduce_mean": Ref("reduction", np.mean, "reduce",
                       cases=[(0, [1], False), (0, [0, 2], True),
                              (1, [0], False),            # a dynamic reduced dim
                              (1, [-1], True)]),
    "argmax": Ref("arg_reduction", np.argmax,
                  cases=[(0, [0], False), (0, [-1], True), (1, [0], False)]),
    "argmin": Ref("arg_reduction", np.argmin,
                  cases=[(0, [1], False), (0, [-2], True), (1, [-1], False)]),
    "softmax": Ref("softmax", softmax, "composite", cases=[(0, 1), (0, 0), (1, 0), (2, 1)]),
    "log_softmax": Ref("softmax", log_softmax, "composite", cases=[(0, -1), (1, 1), (2, -3)]),

    "reshape": Ref("reshape", np.reshape),
    "transpose": Ref("transpose", np.transpose),
    "broadcast_to": Ref("broadcast", np.broadcast_to),
    "concat": Ref("concat", np.concatenate),
    "slice": Ref("slice", slice_ref),
    "gather": Ref("gather", gather_ref),
    "dim": Ref("dim", dim_ref),
    "iota": Ref("iota", iota_ref),
    "check": Ref("check", lambda x: np.asarray(x)),
    "nonzero": Ref("nonzero", nonzero_ref),
    "non_max_suppression": Ref("non_max_suppression", nms_ref),
    "top_k": Ref("top_k", top_k_ref),
    "scan": Ref("scan", None),
    "if": Ref("if", None),
    "dynamic_slice": Ref("dynamic_slice", slice_ref),
    # scatter: sums and products are rounded after each update (tolerance
    # class "reduce" for them; see gen_scatter).
    "scatter": Ref("scatter", scatter_ref),
    "cumsum": Ref("cumsum", cumsum_ref, "reduce"),
    # cumprod: floats in [0.25, 2] (f16/bf16 halves in [0.5, 2]), at most 7
    # factors; integers in [-3, 3] ([-1, 1] for i8) so that products fit.
    "cumprod": Ref("cumsum", cumprod_ref, "reduce"),
    # conv: f16/bf16 inputs are halves, so products and sums are exact.
    "conv": Ref("conv", conv_ref, "composite"),
    # pool: "mode" is the reference's pooling (max is exact, avg divides).
    "max_pool": Ref("pool", pool_ref, "exact", mode="max"),
    "avg_pool": Ref("pool", pool_ref, "reduce", mode="avg"),
}


def ops_for(families, t):
    """The listed ops of these families that accept t and have a reference
    written for their family, in the order of REFERENCES."""
    return [name for name, r in REFERENCES.items()
            if name in OPS and OPS[name]["family"] in families and r.family == OPS[name]["family"]
            and t in OPS[name]["dtypes"]]


# ---------------------------------------------------------------------------
# Function generators, one per family: (ops, t) -> [Func], for the ops of the
# family that accept t (the op's name is its mnemonic)
# ---------------------------------------------------------------------------


def gen_unary(ops, t):
    return gen_unary_float(ops, t) if t in FLOATS else gen_unary_int(ops, t)


def gen_unary_float(ops, t):
    # (label, op, attributes, reference, class, input domain, fixed inputs)
    calls = []
    for op in ops:
        r = REFERENCES[op]
        domain, fixed = r.get("domain", (-5, 5)), r.get("fixed")
        calls.append((op, op, "", r.for_type(t), r.cls, domain, fixed))
        calls += [(label, op, attrs, fn, r.cls, domain, fixed)
                  for label, attrs, fn in r.get("variants", [])]
    funcs = []
    for k in range(0, len(calls), 8):          # eight calls per function
        part = calls[k:k + 8]
        f = Func("unary_%s_%s" % (chr(ord("a") + k // 8), t), [((None, 7), t)] * len(part))
        for i, (label, op, attrs, ref, cls, _, _) in enumerate(part):
            v = f.op("tide.%s %s%s : %s" % (op, f.arg(i), attrs, T((None, 7), t)))
            f.ret(v, (None, 7), t, label,
                  (lambda i, ref, cls: lambda ins: ref(lift(ins[i], t, cls)))(i, ref, cls), cls)
        for rows in (5, 2):
            rng = rng_for(f.name + str(rows))
            ins = []
            for _, _, _, _, _, (lo, hi), fixed in part:
                x = gen_float(rng, (rows, 7), lo, hi, t)
                if fixed:
                    x.reshape(-1)[:len(fixed)] = quantize(fixed, t)
                ins.append(x)
            f.run("%dx7" % rows, ins)
        funcs.append(f)
    # rank-0 and a static shape
    f = Func("unary_scalar_%s" % t, [((), t), ((2, 3), t)])
    v = f.op("tide.exp %s : %s" % (f.arg(0), T((), t)))
    f.ret(v, (), t, "exp(rank0)", lambda ins: np.exp(lift(ins[0], t, "exp")), "exp")
    v = f.op("tide.neg %s : %s" % (f.arg(0), T((), t)))
    f.ret(v, (), t, "neg(rank0)", lambda ins: -lift(ins[0], t, "ieee"), "ieee")
    v = f.op("tide.tanh %s : %s" % (f.arg(1), T((2, 3), t)))
    f.ret(v, (2, 3), t, "tanh(2x3)", lambda ins: np.tanh(lift(ins[1], t, "transc")), "transc")
    rng = rng_for(f.name)
    f.run("", [gen_float(rng, (), -2, 2, t), gen_float(rng, (2, 3), -2, 2, t)])
    funcs.append(f)
    return funcs


def gen_unary_int(ops, t):
    s = (None, 6)
    f = Func("unary_%s" % t, [(s, t), (s, t)])   # a0: no INT_MIN, a1: full range
    for op in ops:
        r = REFERENCES[op]
        i = 1 if r.get("int_input") == "full" else 0
        v = f.op("tide.%s %s : %s" % (op, f.arg(i), T(s, t)))
        f.ret(v, s, t, op, (lambda i, ref: lambda ins: ref(ins[i]))(i, r.for_type(t)))
    for rows in (4, 1):
        rng = rng_for(f.name + str(rows))
        if t == "i1":
            x = gen_bool(rng, (rows, 6))
            y = gen_bool(rng, (rows, 6))
        else:
            lo, hi = INT_RANGE[t]
            x = gen_int(rng, (rows, 6), lo + 1, hi)      # no INT_MIN (neg/abs wrap)
            x.reshape(-1)[:3] = [hi, lo + 1, 0]
            y = full_range_ints(rng, (rows, 6), t)
        f.run("%dx6" % rows, [x, y])
    return [f]


def gen_binary(ops, t):
    s = (None, 5)
    is_float = t in FLOATS
    # a, b; and for floats pow's p, q, for integers the shifts' x, n
    shifts = any(REFERENCES[op].get("inputs") == "shift" for op in ops)
    nargs = 4 if is_float or shifts else 2
    f = Func("binary_%s" % t, [(s, t)] * nargs)
    for op in ops:
        r = REFERENCES[op]
        special = r.get("inputs") == ("pow" if is_float else "shift")
        i, j = (2, 3) if special else (0, 1)
        ref, cls = r.for_type(t), r.cls_for(t)
        v = f.op("tide.%s %s, %s : %s" % (op, f.arg(i), f.arg(j), T(s, t)))
        f.ret(v, s, t, op,
              (lambda ref, cls, i, j: lambda ins: wrap_check(ref(lift(ins[i], t, cls), lift(ins[j], t, cls)), t))(ref, cls, i, j),
              cls)
    for rows in (4, 2, 0):                       # 0: an empty dynamic dimension
        rng = rng_for(f.name + str(rows))
        shape = (rows, 5)
        if t == "i1":
            ins = [gen_bool(rng, shape) for _ in range(nargs)]
        elif t in INTS:
            m = ARITH_INT[t]
            a = gen_int(rng, shape, -m, m)
            b = gen_int(rng, shape, -m, m)
            b[b == 0] = 3
            if rows:
                a.reshape(-1)[:4] = [-7, 7, -8, 0]     # truncation toward zero
                b.reshape(-1)[:4] = [2, -2, -3, 5]
            ins = [a, b]
            if shifts:
                n = bits_of(t)
                x = full_range_ints(rng, shape, t) if rows else gen_int(rng, shape, 0, 1)
                k = gen_int(rng, shape, -2, n + 1)
                if rows:
                    k.reshape(-1)[:6] = [0, 1, n - 1, n, -1, n + 1]
                ins += [x, k]
        else:
            a = gen_float(rng, shape, -10, 10, t)
            b = gen_float(rng, shape, 0.5, 4, t) * np.where(gen_bool(rng, shape), 1, -1)
            p = gen_float(rng, shape, 0.5, 3, t)
            q = gen_float(rng, shape, -2, 2, t)
            ins = [a, b, p, q]
        f.run("%dx5" % rows, ins)
    funcs = [f]
    full = [op for op in ops if REFERENCES[op].get("full_range")]
    if t in INTS and full:
        # The full range, extremes included.
        g = Func("binary_full_%s" % t, [((3, 4), t)] * 2)
        for op in full:
            v = g.op("tide.%s %s, %s : %s" % (op, g.arg(0), g.arg(1), T((3, 4), t)))
            g.ret(v, (3, 4), t, op + "(full range)",
                  (lambda ref: lambda ins: ref(ins[0], ins[1]))(REFERENCES[op].for_type(t)))
        rng = rng_for(g.name)
        g.run("", [full_range_ints(rng, (3, 4), t), full_range_ints(rng, (3, 4), t)[::-1].copy()])
        funcs.append(g)
    edges = [op for op in ops if REFERENCES[op].get("edges")]
    if t in INTS and edges:
        # Divisors 0 and -1 (the minimum by -1 overflows a quotient), signs.
        lo, hi = INT_RANGE[t]
        a = np.array([lo, lo, hi, 5, -5, 0, 7, -7, 7, -7, lo, hi, 6, -6, lo + 1, 1])
        b = np.array([-1, 0, 0, 0, 0, 0, 3, 3, -3, -3, hi, lo, 3, 3, lo, -1])
        g = Func("binary_edges_%s" % t, [((16,), t)] * 2)
        for op in edges:
            v = g.op("tide.%s %s, %s : %s" % (op, g.arg(0), g.arg(1), T((16,), t)))
            g.ret(v, (16,), t, op + "(divisors 0, -1, extremes)",
                  (lambda ref: lambda ins: ref(ins[0], ins[1]))(REFERENCES[op].for_type(t)))
        g.run("", [a, b])
        funcs.append(g)
    return funcs + gen_broadcast(ops, t)


# NumPy broadcasting through binary ops: (op, argument, argument, result shape)
# over m:4x3 v:3 c:4x1 r:1x3 s:rank0 w:4 d:?x3 e:?x1 g:1x5 pos:4x1. An op not
# named here gets (m, v), or (pos, r) with inputs="pow".
BROADCAST_I1 = [("and", 0, 1, (4, 3)), ("or", 1, 0, (4, 3)), ("and", 2, 3, (4, 3)),
                ("or", 4, 5, (4,)), ("and", 5, 4, (4,)), ("or", 6, 1, (None, 3)),
                ("and", 7, 8, (None, 5))]
BROADCAST = [("add", 0, 1, (4, 3)), ("sub", 1, 0, (4, 3)), ("mul", 2, 3, (4, 3)),
             ("maximum", 4, 5, (4,)), ("minimum", 5, 4, (4,)), ("add", 6, 1, (None, 3)),
             ("sub", 7, 8, (None, 5)), ("mul", 0, 4, (4, 3)), ("div", 0, 1, (4, 3)),
             ("sub", 4, 0, (4, 3)), ("and", 0, 1, (4, 3)), ("or", 2, 3, (4, 3)),
             ("pow", 9, 3, (4, 3))]


def gen_broadcast(ops, t):
    args = [((4, 3), t), ((3,), t), ((4, 1), t), ((1, 3), t), ((), t), ((4,), t),
            ((None, 3), t), ((None, 1), t), ((1, 5), t), ((4, 1), t)]
    f = Func("bcast_%s" % t, args)
    pattern = [p for p in (BROADCAST_I1 if t == "i1" else BROADCAST) if p[0] in ops]
    named = set(p[0] for p in pattern)
    pattern += [(op, 9, 3, (4, 3)) if REFERENCES[op].get("inputs") == "pow" else (op, 0, 1, (4, 3))
                for op in ops if op not in named]
    for op, i, j, shape in pattern:
        ref, cls = REFERENCES[op].for_type(t), REFERENCES[op].cls_for(t)
        v = f.op("tide.%s %s, %s : %s, %s" % (op, f.arg(i), f.arg(j),
                                              T(args[i][0], t), T(args[j][0], t)))
        label = "%s(%s, %s)" % (op, T(args[i][0], t), T(args[j][0], t))
        f.ret(v, shape, t, label,
              (lambda ref, cls, i, j: lambda ins: wrap_check(np.asarray(ref(lift(ins[i], t, cls), lift(ins[j], t, cls))), t))(ref, cls, i, j),
              cls)
    for drows, erows in ((2, 3), (5, 1)):
        rng = rng_for(f.name + str(drows))
        ins = []
        for k, (shape, _) in enumerate(args):
            shape = tuple(drows if (k == 6 and d is None) else erows if d is None else d
                          for d in shape)
            if t in INTS:
                m = ARITH_INT[t]
                x = gen_int(rng, shape, -m, m)
                if k == 1:
                    x[x == 0] = 5              # divisor
            elif t == "i1":
                x = gen_bool(rng, shape)
            else:
                lo, hi = (0.5, 3) if k == 9 else (-2, 2) if k == 3 else (-10, 10)
                x = gen_float(rng, shape, lo, hi, t)
                if k == 1:
                    x = np.where(np.abs(x) < 0.5, 1.5, x)
            ins.append(x)
        f.run("?=%d,%d" % (drows, erows), ins)
    return [f]


def gen_cmp(ops, t):
    funcs = []
    for op in ops:
        s = (None, 6)
        args = [(s, t), (s, t), ((2, 1), t), ((3,), t), ((), t)]
        preds = dict(REFERENCES[op].get("predicates"))
        f = Func("%s_%s" % (op, t), args)
        for name, ref in REFERENCES[op].get("predicates"):
            v = f.op("tide.%s %s, %s, %s : %s" % (op, name, f.arg(0), f.arg(1), T(s, t)))
            f.ret(v, s, "i1", "%s %s" % (op, name), (lambda ref: lambda ins: ref(ins[0], ins[1]))(ref))
        v = f.op("tide.%s lt, %s, %s : %s, %s" % (op, f.arg(2), f.arg(3), T((2, 1), t), T((3,), t)))
        f.ret(v, (2, 3), "i1", "%s lt (2x1 vs 3)" % op, lambda ins: preds["lt"](ins[2], ins[3]))
        v = f.op("tide.%s ge, %s, %s : %s, %s" % (op, f.arg(0), f.arg(4), T(s, t), T((), t)))
        f.ret(v, s, "i1", "%s ge (?x6 vs rank0)" % op, lambda ins: preds["ge"](ins[0], ins[4]))
        for rows in (4, 2):
            rng = rng_for(f.name + str(rows))
            if t == "i1":
                pool = [False, True]
            elif t in INTS:
                lo, hi = INT_RANGE[t]
                pool = [lo, lo + 1, -1, 0, 1, hi - 1, hi] + list(gen_int(rng, (3,), lo, hi))
            else:
                pool = [-0.0, 0.0, 1.0, -1.5] + list(gen_float(rng, (4,), -100, 100, t))
            ins = [gen_pool(rng, (rows, 6), pool), gen_pool(rng, (rows, 6), pool),
                   gen_pool(rng, (2, 1), pool), gen_pool(rng, (3,), pool), gen_pool(rng, (), pool)]
            if t == "i1":  # all four combinations, in both operand orders
                ins[0].reshape(-1)[:4] = [False, False, True, True]
                ins[1].reshape(-1)[:4] = [False, True, False, True]
            f.run("%dx6" % rows, ins)
        funcs.append(f)
    return funcs


def gen_select(ops, t):
    funcs = []
    for op in ops:
        ref = REFERENCES[op].for_type(t)
        args = [((4, 3), "i1"), ((4, 3), t), ((4, 3), t), ((None, 1), "i1"), ((3,), t),
                ((1,), t), ((), "i1")]
        f = Func("%s_%s" % (op, t), args)
        for c, a, b, shape, label in ((0, 1, 2, (4, 3), "4x3"), (3, 4, 5, (None, 3), "?x1, 3, 1"),
                                      (6, 1, 2, (4, 3), "rank0 cond")):
            v = f.op("tide.%s %s, %s, %s : %s" % (op, f.arg(c), f.arg(a), f.arg(b),
                                                  ", ".join(T(args[i][0], args[i][1]) for i in (c, a, b))))
            f.ret(v, shape, t, "%s(%s)" % (op, label),
                  (lambda c, a, b: lambda ins: ref(ins[c], ins[a], ins[b]))(c, a, b))
        for n, c in ((2, True), (4, False)):
            rng = rng_for(f.name + str(n))
            ins = [gen_bool(rng, (4, 3)), gen_any(rng, (4, 3), t), gen_any(rng, (4, 3), t),
                   gen_bool(rng, (n, 1)), gen_any(rng, (3,), t), gen_any(rng, (1,), t),
                   np.array(c)]
            f.run("?=%d" % n, ins)
        funcs.append(f)
    return funcs


def gen_reduce(ops, t):
    """The reductions and arg reductions, over the cases their references name."""
    x_s, y_s, z_s = (3, 4, 5), (None, 5), (2, 3, 2)
    shapes = [x_s, y_s, z_s]
    f = Func("reduce_%s" % t, [(x_s, t), (y_s, t), (z_s, t)])
    for op in ops:
        r = REFERENCES[op]
        arg_reduction = r.family == "arg_reduction"
        fn, c = r.for_type(t), r.cls_for(t)
        for arg, axes, keep in r.get("cases", [(0, [1], False)]):
            shape = shapes[arg]
            kd = " keepdims" if keep else ""
            v = f.op("tide.%s %s axes = [%s]%s : %s" % (op, f.arg(arg), ", ".join(map(str, axes)),
                                                        kd, T(shape, t)))
            rank = len(shape)
            norm = [a % rank for a in axes]
            rs = tuple(1 if (d in norm) else shape[d] for d in range(rank) if keep or d not in norm)
            if arg_reduction:
                ref = (lambda fn: lambda x, ax, k: (np.expand_dims(fn(x, axis=ax[0]), ax[0]) if k
                                                    else fn(x, axis=ax[0])).astype(np.int64))(fn)
            else:
                ref = (lambda fn: lambda x, ax, k: fn(x, axis=ax, keepdims=k))(fn)
            check = (lambda ref, arg, axes, keep: lambda ins:
                     wrap_check(ref(lift(ins[arg], t, c), tuple(axes), keep), t))(ref, arg, axes, keep)
            f.ret(v, rs, "i64" if arg_reduction else t,
                  "%s axes=%s%s on %s" % (op, axes, kd, T(shape, t)), check, c)
    for rows in (3, 1):
        rng = rng_for(f.name + str(rows))
        if t in INTS:
            m = {"i8": 2, "i16": 500, "i32": 30_000_000, "i64": 10 ** 17}[signed_of(t)]
            pool = gen_int(rng, (6,), -m, m)
            zpool = [-2, -1, 1, 2]
        elif t in ("f16", "bf16"):
            pool = gen_halves(rng, (6,), -2, 2)                # exact sums
            zpool = [-2.0, -1.0, -0.5, 0.5, 1.0, 2.0]          # exact products
        else:
            pool = gen_float(rng, (6,), 0.25, 2, t)            # no cancellation
            zpool = list(gen_float(rng, (5,), 0.5, 2, t)) + [-1.0]
        ins = [gen_pool(rng, x_s, pool), gen_pool(rng, (rows, 5), pool), gen_pool(rng, z_s, zpool)]
        f.run("?=%d" % rows, ins)
    return [f]


def gen_argreduce(ops, t):
    """Arg reductions: ties (the first index wins), NaN (the first NaN wins, as
    in NumPy), and long rows (on a GPU, split over many blocks)."""
    shapes = [(4, 9), (2, 20000), (300, 1000)]
    f = Func("argreduce_%s" % t, [(s, t) for s in shapes])
    for op in ops:
        fn = REFERENCES[op].for_type(t)
        for i, axis in ((0, 1), (1, -1), (2, 0), (2, 1)):
            s = shapes[i]
            rs = tuple(d for k, d in enumerate(s) if k != axis % len(s))
            v = f.op("tide.%s %s axes = [%d] : %s" % (op, f.arg(i), axis, T(s, t)))
            f.ret(v, rs, "i64", "%s axes=[%d] on %s" % (op, axis, T(s, t)),
                  (lambda i, axis, fn: lambda ins: fn(ins[i], axis=axis).astype(np.int64))(i, axis, fn))
    rng = rng_for(f.name)
    if t in INTS:
        pool = gen_int(rng, (5,), -100, 100)
    else:
        pool = gen_halves(rng, (5,), -4, 4)
    ins = [gen_pool(rng, s, pool) for s in shapes]
    if t in FLOATS:
        ins = [np.array(a, dtype=np.float64) for a in ins]
        ins[0][1, 0] = np.nan                        # first element
        ins[0][2, 5] = ins[0][2, 7] = np.nan         # the first of two
        ins[0][3, :] = np.nan                        # all NaN
        ins[1][1, 15000] = ins[1][1, 17000] = np.nan  # long row, split
        ins[2][123, 456] = np.nan
    f.run("ties and NaN" if t in FLOATS else "ties", ins)
    return [f]


def gen_cumsum(ops, t):
    """Cumulative sums and products: every axis sign, exclusive and reverse,
    a dynamic axis (empty at run time too), rank 1 and 3. Floats are positive
    (no cancellation); f16/bf16 are halves (exact sums)."""
    funcs = []
    for op in ops:
        ref = REFERENCES[op].for_type(t)
        cls = REFERENCES[op].cls_for(t)
        cases = [((3, 7), 1, False, False), ((3, 7), 0, True, False), ((3, 7), -1, False, True),
                 ((3, 7), 1, True, True), ((2, 3, 4), 1, False, False), ((None, 5), 0, False, True),
                 ((None, 5), 0, True, False), ((6,), 0, True, True)]
        f = Func("%s_%s" % (op, t), [(shape, t) for shape, _, _, _ in cases])
        for c, (shape, axis, exclusive, reverse) in enumerate(cases):
            flags = (" exclusive" if exclusive else "") + (" reverse" if reverse else "")
            v = f.op("tide.%s %s axis = %d%s : %s" % (op, f.arg(c), axis, flags, T(shape, t)))
            f.ret(v, shape, t, "%s axis=%d%s on %s" % (op, axis, flags, T(shape, t)),
                  (lambda c, axis, e, r, ref=ref: lambda ins: wrap_check(
                      ref(lift(ins[c], t, cls), axis % len(cases[c][0]), e, r), t))(c, axis, exclusive, reverse),
                  cls)
        for rows in (4, 0):
            rng = rng_for(f.name + str(rows))
            ins = []
            for shape, _, _, _ in cases:
                shape = tuple(rows if d is None else d for d in shape)
                if t in INTS and op == "cumprod":
                    # Products of up to 7 factors that fit the type.
                    lo, hi = (-1, 1) if t == "i8" else (-3, 3)
                    ins.append(gen_int(rng, shape, lo, hi))
                elif t in INTS:
                    ins.append(gen_int(rng, shape, -10, 10))
                elif t in ("f16", "bf16"):
                    ins.append(gen_halves(rng, shape, 0.5, 2))
                else:
                    ins.append(gen_float(rng, shape, 0.25, 2, t))
            f.run("?=%d" % rows, ins)
        funcs.append(f)
    return funcs


def conv_layout(ref, channels_last, x, w, *attrs):
    """`ref` on NCHW operands; with `channels_last`, on (N, spatial..., C)
    operands moved to NCHW order, its result moved back."""
    if not channels_last:
        return ref(x, w, *attrs)
    first = lambda a: np.moveaxis(a, -1, 1)
    return np.ascontiguousarray(np.moveaxis(ref(first(x), first(w), *attrs), 1, -1))


def pool_layout(ref, channels_last, x):
    """`ref` on an NCHW input; with `channels_last`, on (N, spatial..., C)
    input moved to NCHW order, its result moved back."""
    if not channels_last:
        return ref(x)
    return np.ascontiguousarray(np.moveaxis(ref(np.moveaxis(x, -1, 1)), 1, -1))


def gen_conv(ops, t):
    """Convolutions: 1-D, 2-D (dynamic batch, asymmetric pads, strides,
    dilations), grouped and depthwise, 3-D, 1x1. f16/bf16 inputs are halves
    (exact products and f32 sums, rounded once)."""
    funcs = []
    # (input shape, weight shape, strides, dilations, pads, groups)
    cases = [((2, 3, 11), (4, 3, 3), [2], [1], [1, 2], 1),
             ((None, 3, 7, 8), (5, 3, 3, 2), [1, 2], [2, 1], [1, 0, 2, 1], 1),
             ((1, 4, 6, 6), (6, 2, 3, 3), [1, 1], [1, 1], [0, 1, 0, 1], 2),
             ((2, 4, 5, 5), (4, 1, 3, 3), [2, 2], [1, 1], [1, 1, 1, 1], 4),
             ((1, 2, 4, 5, 4), (3, 2, 2, 3, 2), [1, 2, 1], [1, 1, 2], [0, 1, 1, 1, 0, 0], 1),
             # The CPU's GEMM forms: 1x1 stride 1 (the input is the GEMM's
             # operand), 1x1 stride 2 and grouped over a batch (im2col per
             # image and group), depthwise with two filters per channel.
             # On the GPU a 1x1 stride 1 is cuBLAS's where an image's rows
             # are 16-byte aligned (4x4 in every type, 5x4 in f32/f64), else
             # cuDNN's (5x4 in f16/bf16).
             ((None, 6, 5, 4), (4, 6, 1, 1), [1, 1], [1, 1], [0, 0, 0, 0], 1),
             ((2, 6, 4, 4), (4, 6, 1, 1), [1, 1], [1, 1], [0, 0, 0, 0], 1),
             ((2, 4, 7, 7), (8, 4, 1, 1), [2, 2], [1, 1], [0, 0, 0, 0], 1),
             ((2, 6, 5, 5), (4, 3, 3, 3), [1, 1], [1, 1], [1, 1, 1, 1], 2),
             ((None, 3, 6, 6), (6, 1, 3, 3), [1, 1], [1, 2], [2, 1, 1, 2], 3)]
    # Channels-last (N, spatial..., C): cuDNN's NHWC convolution on the GPU
    # for 2-D ungrouped f16/bf16/f32 (padding, strides, dilations, a 1x1
    # with 16-byte rows, a dynamic batch), else the NCHW conv of transposed
    # operands (grouped, 1-D, f64, and everything on the CPU).
    last = [((2, 9, 7, 4), (8, 3, 3, 4), [2, 1], [1, 1], [1, 1, 1, 1], 1),
            ((None, 7, 8, 3), (5, 3, 2, 3), [1, 2], [2, 1], [1, 0, 2, 1], 1),
            ((2, 4, 4, 8), (16, 1, 1, 8), [1, 1], [1, 1], [0, 0, 0, 0], 1),
            ((1, 6, 6, 4), (6, 3, 3, 2), [1, 1], [1, 1], [0, 1, 0, 1], 2),
            ((2, 11, 3), (4, 3, 3), [2], [1], [1, 2], 1)]
    # Two functions: the runner takes at most 16 tensors per call.
    for op, (suffix, part) in itertools.product(
            ops, (("", cases[:5]), ("_gemm", cases[5:]), ("_last", last))):
        channels_last = suffix == "_last"
        ref = REFERENCES[op].for_type(t)
        cls = "exact" if t in ("f16", "bf16") else REFERENCES[op].cls_for(t)
        args = []
        for x, w, *_ in part:
            args += [(x, t), (w, t)]
        f = Func("%s_%s%s" % (op, t, suffix), args)
        for c, (x, w, st, dl, pd, g) in enumerate(part):
            groups = " groups = %d" % g if g != 1 else ""
            layout = " channels_last" if channels_last else ""
            v = f.op("tide.%s %s, %s strides = %s dilations = %s pads = %s%s%s : %s, %s"
                     % (op, f.arg(2 * c), f.arg(2 * c + 1), st, dl, pd, groups, layout,
                        T(x, t), T(w, t)))
            if channels_last:
                spatial = tuple(pool_sizes(x[1:-1], w[1:-1], st, dl, pd, False))
                r = x[:1] + spatial + w[:1]
            else:
                r = x[:1] + w[:1] + tuple(pool_sizes(x[2:], w[2:], st, dl, pd, False))
            f.ret(v, r, t, "%s strides=%s dilations=%s pads=%s groups=%d%s on %s, %s"
                  % (op, st, dl, pd, g, layout, T(x, t), T(w, t)),
                  (lambda ref, cls, c, st, dl, pd, g, cl: lambda ins: conv_layout(
                      ref, cl, lift(ins[2 * c], t, cls), lift(ins[2 * c + 1], t, cls),
                      st, dl, pd, g))(ref, cls, c, st, dl, pd, g, channels_last), cls)
        for batch in (2, 0):
            rng = rng_for(f.name + str(batch))
            ins = []
            for shape, _ in args:
                shape = tuple(batch if d is None else d for d in shape)
                if t in ("f16", "bf16"):
                    ins.append(gen_halves(rng, shape, -2, 2))
                else:
                    ins.append(gen_float(rng, shape, -1, 1, t))
            f.run("N=%d" % batch, ins)
        funcs.append(f)
    return funcs


def gen_pooling(ops, t):
    """Pooling: 1-D, 2-D (dynamic batch and channels, padding, ceil_mode,
    dilations), 3-D; avg with and without count_include_pad."""
    funcs = []
    # (input shape, kernel, strides, dilations, pads, ceil_mode)
    cases = [((2, 3, 9), [3], [2], [1], [1, 1], False),
             ((None, None, 7, 6), [3, 2], [2, 2], [1, 1], [1, 0, 1, 1], True),
             ((1, 2, 8, 8), [2, 3], [1, 2], [2, 1], [0, 1, 1, 1], False),
             ((1, 2, 5, 4, 6), [2, 2, 3], [2, 1, 3], [1, 1, 1], [1, 0, 0, 0, 1, 1], True)]
    # Channels-last: the same cases with C moved to the end.
    last_cases = [(x[:1] + x[2:] + x[1:2],) + tuple(rest) for x, *rest in cases]
    for op, (suffix, part) in itertools.product(ops, (("", cases), ("_last", last_cases))):
        channels_last = suffix == "_last"
        r = REFERENCES[op]
        ref = r.for_type(t)
        cls = r.cls_for(t)
        mode = r.get("mode")
        f = Func("%s_%s%s" % (op, t, suffix), [(x, t) for x, *_ in part])
        for c, (x, kn, st, dl, pd, ceil) in enumerate(part):
            for include in ((False, True) if mode == "avg" else (False,)):
                flags = ((" ceil_mode" if ceil else "") + (" count_include_pad" if include else "")
                         + (" channels_last" if channels_last else ""))
                if channels_last:
                    shape = x[:1] + tuple(pool_sizes(x[1:-1], kn, st, dl, pd, ceil)) + x[-1:]
                else:
                    shape = x[:2] + tuple(pool_sizes(x[2:], kn, st, dl, pd, ceil))
                v = f.op("tide.%s %s kernel = %s strides = %s dilations = %s pads = %s%s : %s"
                         % (op, f.arg(c), kn, st, dl, pd, flags, T(x, t)))
                f.ret(v, shape, t, "%s kernel=%s strides=%s dilations=%s pads=%s%s on %s"
                      % (op, kn, st, dl, pd, flags, T(x, t)),
                      (lambda ref, cls, mode, c, kn, st, dl, pd, ceil, include, cl: lambda ins: pool_layout(
                          lambda a: ref(a, kn, st, dl, pd, ceil, mode, include), cl,
                          lift(ins[c], t, cls)))(
                          ref, cls, mode, c, kn, st, dl, pd, ceil, include, channels_last), cls)
        for batch in (2, 0):
            rng = rng_for(f.name + str(batch))
            ins = []
            for x, *_ in part:
                shape = tuple(batch if d is None else d for d in x)
                if t in INTS:
                    ins.append(gen_int(rng, shape, -100, 100))
                elif t in ("f16", "bf16"):
                    ins.append(gen_halves(rng, shape, -4, 4))
                else:
                    ins.append(gen_float(rng, shape, -2, 2, t))
            f.run("N=C=%d" % batch, ins)
        funcs.append(f)
    return funcs


def gen_matmul(ops, t):
    funcs = []
    for op in ops:
        fn = REFERENCES[op].for_type(t)
        args = [((3, 4), t), ((4, 5), t), ((2, 3, 4), t), ((2, 4, 5), t), ((2, 1, 3, 4), t),
                ((3, 4, 5), t), ((None, 4), t), ((4, None), t)]
        f = Func("%s_%s" % (op, t), args)
        # exact: integers, and f16/bf16 inputs whose products and sums are exact
        cls = "exact" if t in INTS or t in ("f16", "bf16") else "composite"
        for i, j, shape in ((0, 1, (3, 5)), (2, 3, (2, 3, 5)), (4, 5, (2, 3, 3, 5)),
                            (2, 1, (2, 3, 5)), (0, 3, (2, 3, 5)), (6, 7, (None, None))):
            v = f.op("tide.%s %s, %s : %s, %s" % (op, f.arg(i), f.arg(j), T(args[i][0], t),
                                                  T(args[j][0], t)))
            f.ret(v, shape, t, "%s(%s, %s)" % (op, T(args[i][0], t), T(args[j][0], t)),
                  (lambda i, j: lambda ins: wrap_check(fn(lift(ins[i], t, cls), lift(ins[j], t, cls)), t))(i, j),
                  cls)
        for m, n in ((2, 3), (5, 1)):
            rng = rng_for(f.name + str(m))
            ins = []
            for k, (shape, _) in enumerate(args):
                shape = tuple((m if k == 6 else n) if d is None else d for d in shape)
                if t in INTS:
                    lim = {"i8": 3, "i16": 50, "i32": 1000, "i64": 1_000_000}[signed_of(t)]
                    ins.append(gen_int(rng, shape, -lim, lim))
                elif t in ("f16", "bf16"):
                    ins.append(gen_halves(rng, shape, -2, 2))         # exact products/sums
                else:
                    ins.append(gen_float(rng, shape, -1, 1, t))
            f.run("M=%d,N=%d" % (m, n), ins)
        funcs.append(f)
    return funcs


def gen_softmax(ops, t):
    args = [((3, 5), t), ((None, None), t), ((2, 3, 4), t)]
    f = Func("softmax_%s" % t, args)
    for op in ops:
        r = REFERENCES[op]
        for i, axis in r.get("cases", [(0, -1)]):
            v = f.op("tide.%s %s axis = %d : %s" % (op, f.arg(i), axis, T(args[i][0], t)))
            f.ret(v, args[i][0], t, "%s axis=%d on %s" % (op, axis, T(args[i][0], t)),
                  (lambda i, axis, ref: lambda ins: ref(lift(ins[i], t, "transc"), axis))(i, axis, r.for_type(t)),
                  r.cls_for(t))
    for rows, cols in ((4, 3), (2, 6)):
        rng = rng_for(f.name + str(rows))
        lim = 3 if t in ("f16", "bf16") else 5
        f.run("?=%dx%d" % (rows, cols), [gen_float(rng, (3, 5), -lim, lim, t),
                                         gen_float(rng, (rows, cols), -lim, lim, t),
                                         gen_float(rng, (2, 3, 4), -lim, lim, t)])
    return [f]


def gen_constant(ops, t):
    funcs = []
    for op in ops:
        ref = REFERENCES[op].for_type(t)
        f = Func("%s_%s" % (op, t), [((4,), t)])
        if t == "i1":
            vals = np.array([[True, False], [False, True]])
            splat, scalar, c4 = True, False, np.array([True, False, True, False])
        elif t in INTS:
            lo, hi = INT_RANGE[t]
            vals = np.array([[lo, hi], [-7, 0]])
            splat, scalar, c4 = -3, hi, np.array([1, -2, 3, -4])
            if t in UINTS:   # the same values modulo 2^N, unsigned arithmetic
                vals, c4 = to_unsigned(vals, t), to_unsigned(c4, t)
                splat, scalar = to_unsigned(splat, t)[()], to_unsigned(scalar, t)[()]
        else:
            vals = np.array([[1.5, -2.25], [0.125, 100.0]])
            splat, scalar, c4 = -0.75, 3.0, np.array([0.5, -1.0, 2.0, 4.0])
        v = f.op("tide.%s dense<%s> : %s" % (op, dense(vals, t), T((2, 2), t)))
        f.ret(v, (2, 2), t, "%s 2x2" % op, lambda ins: ref(vals, (2, 2)))
        v = f.op("tide.%s dense<%s> : %s" % (op, literal(splat, t), T((3,), t)))
        f.ret(v, (3,), t, "%s splat" % op, lambda ins: ref(splat, (3,)))
        v = f.op("tide.%s dense<%s> : %s" % (op, literal(scalar, t), T((), t)))
        f.ret(v, (), t, "%s rank0" % op, lambda ins: ref(scalar, ()))
        # Constants feeding elementwise ops, and folded ones.
        c = f.op("tide.%s dense<%s> : %s" % (op, dense(c4, t), T((4,), t)))
        if t == "i1":
            v = f.op("tide.or %s, %s : %s" % (f.arg(0), c, T((4,), t)))
            f.ret(v, (4,), t, "or(x, %s)" % op, lambda ins: np.logical_or(ins[0], c4))
            v = f.op("tide.not %s : %s" % (c, T((4,), t)))
            f.ret(v, (4,), t, "not(%s) (foldable)" % op, lambda ins: np.logical_not(c4))
        else:
            cls = "exact" if t in INTS else "ieee"
            v = f.op("tide.add %s, %s : %s" % (f.arg(0), c, T((4,), t)))
            f.ret(v, (4,), t, "add(x, %s)" % op, lambda ins: ins[0] + c4, cls)
            a = f.op("tide.mul %s, %s : %s" % (c, c, T((4,), t)))
            v = f.op("tide.neg %s : %s" % (a, T((4,), t)))
            f.ret(v, (4,), t, "neg(mul(c, c)) (foldable)", lambda ins: -(c4 * c4), cls)
            v = f.op("tide.div %s, %s : %s" % (c, c, T((4,), t)))
            f.ret(v, (4,), t, "div(c, c) (foldable)", lambda ins: np.ones(4), cls)
        rng = rng_for(f.name)
        f.run("", [gen_any(rng, (4,), t)])
        funcs.append(f)
    return funcs


def gen_special(t):
    """NaN / inf / signed zero through the NaN-propagating ops (floats)."""
    s = (6,)
    f = Func("special_%s" % t, [(s, t), (s, t)])
    x = np.array([np.nan, np.inf, -np.inf, 1.0, -0.0, 2.0])
    y = np.array([1.0, np.nan, 3.0, -np.inf, 0.0, 2.0])
    for name, ref in (("maximum", np.maximum), ("minimum", np.minimum),
                      ("add", lambda a, b: a + b), ("rem", quiet(np.fmod)), ("mod", quiet(np.mod))):
        v = f.op("tide.%s %s, %s : %s" % (name, f.arg(0), f.arg(1), T(s, t)))
        f.ret(v, s, t, name + " with nan/inf", (lambda ref: lambda ins: ref(ins[0], ins[1]))(ref), "ieee")
    for name, ref in CMP:
        v = f.op("tide.cmp %s, %s, %s : %s" % (name, f.arg(0), f.arg(1), T(s, t)))
        f.ret(v, s, "i1", "cmp %s with nan/inf" % name, (lambda ref: lambda ins: ref(ins[0], ins[1]))(ref))
    for name, ref in (("relu", relu), ("abs", np.abs), ("neg", lambda a: -a), ("sign", np.sign)):
        v = f.op("tide.%s %s : %s" % (name, f.arg(0), T(s, t)))
        f.ret(v, s, t, name + " with nan/inf", (lambda ref: lambda ins: ref(ins[0]))(ref), "ieee")
    v = f.op("tide.exp %s : %s" % (f.arg(0), T(s, t)))
    f.ret(v, s, t, "exp with nan/inf", lambda ins: np.exp(ins[0]), "exp")
    v = f.op("tide.reduce_max %s axes = [0] : %s" % (f.arg(0), T(s, t)))
    f.ret(v, (), t, "reduce_max with nan", lambda ins: np.max(ins[0]), "ieee")
    f.run("", [x, y])
    # softmax and log_softmax rows with a NaN (first, middle, last), +inf,
    # only -inf, only NaN, and none (the CPU's maximum may ignore NaN there:
    # the rows must still come out as NumPy's).
    s2 = (7, 6)
    g = Func("special_softmax_%s" % t, [(s2, t)])
    for op, ref in (("softmax", softmax), ("log_softmax", log_softmax)):
        v = g.op("tide.%s %s axis = 1 : %s" % (op, g.arg(0), T(s2, t)))
        g.ret(v, s2, t, op + " with nan/inf",
              (lambda ref: lambda ins: quiet(ref)(ins[0], 1))(ref), "composite")
    rows = np.array([[np.nan, 1, 2, 3, 4, 5], [1, 2, np.nan, 3, 4, 5], [1, 2, 3, 4, 5, np.nan],
                     [1, np.inf, 3, 4, 5, 6], [-np.inf] * 6, [np.nan] * 6, [0.5, 1, -2, 3, 0, 1]])
    g.run("", [rows])
    return [f, g]


# Shape families: one small function per feature so one problem hides nothing else.

def shape_inputs(rng, shape, t):
    if t in INTS:
        return full_range_ints(rng, shape, t)
    return gen_any(rng, shape, t, -100, 100)


def shape_func(funcs, name, t, args):
    f = Func("%s_%s" % (name, t), args)
    funcs.append(f)
    return f


def shape_runs(f, t, shapes_per_run):
    for k, shapes in enumerate(shapes_per_run):
        rng = rng_for(f.name + str(k))
        f.run("run%d" % k if len(shapes_per_run) > 1 else "",
              [shape_inputs(rng, sh, t) for sh in shapes])


def gen_reshape(ops, t):
    funcs = []
    for op in ops:
        ref = REFERENCES[op].for_type(t)
        f = shape_func(funcs, op, t, [((2, 3), t), ((None, 4), t)])
        prev = None
        # (argument, or None: the previous result; its shape; the new shape, -1
        # dynamic; label). The previous result is argument 0 reshaped.
        for arg, shape, to, label in ((0, (2, 3), (6,), "2x3->6"), (None, (6,), (-1, 2), "6->?x2"),
                                      (1, (None, 4), (-1,), "?x4->?"),
                                      (1, (None, 4), (-1, 2, 2), "?x4->?x2x2"),
                                      (0, (2, 3), (1, 6, 1), "2x3->1x6x1")):
            rshape = tuple(None if d == -1 else d for d in to)
            prev = f.op("tide.%s %s : %s to %s" % (op, prev if arg is None else f.arg(arg),
                                                   T(shape, t), T(rshape, t)))
            f.ret(prev, rshape, t, "%s %s" % (op, label),
                  (lambda i, to: lambda ins: ref(ins[i], to))(arg or 0, to))
        shape_runs(f, t, [[(2, 3), (3, 4)], [(2, 3), (1, 4)]])
    return funcs


def gen_transpose(ops, t):
    funcs = []
    for op in ops:
        ref = REFERENCES[op].for_type(t)
        f = shape_func(funcs, op, t, [((2, 3), t), ((2, None, 4), t)])
        v = f.op("tide.%s %s perm = [1, 0] : %s" % (op, f.arg(0), T((2, 3), t)))
        f.ret(v, (3, 2), t, "%s [1,0]" % op, lambda ins: ref(ins[0], (1, 0)))
        v = f.op("tide.%s %s perm = [2, 0, 1] : %s" % (op, f.arg(1), T((2, None, 4), t)))
        f.ret(v, (4, 2, None), t, "%s [2,0,1] of 2x?x4" % op, lambda ins: ref(ins[1], (2, 0, 1)))
        shape_runs(f, t, [[(2, 3), (2, 3, 4)], [(2, 3), (2, 1, 4)]])
    return funcs


def gen_broadcast_to(ops, t):
    funcs = []
    for op in ops:
        ref = REFERENCES[op].for_type(t)
        f = shape_func(funcs, op, t, [((3,), t), ((1, None), t), ((), t)])
        for arg, label, to in ((0, "3->4x3", (4, 3)), (1, "1x?->2x5x7", (2, 5, 7)),
                               (2, "rank0->2x3", (2, 3))):
            v = f.op("tide.%s %s : %s to %s" % (op, f.arg(arg), T(f.args[arg][0], t), T(to, t)))
            f.ret(v, to, t, "%s %s" % (op, label), (lambda arg, to: lambda ins: ref(ins[arg], to))(arg, to))
        shape_runs(f, t, [[(3,), (1, 7), ()]])
    return funcs


def gen_concat(ops, t):
    funcs = []
    for op in ops:
        ref = REFERENCES[op].for_type(t)

        def cat(f, args, axis, result, label):
            v = f.op("tide.%s %s axis = %d : %s" % (op, ", ".join(f.arg(i) for i in args), axis,
                                                    ", ".join(T(f.args[i][0], t) for i in args)))
            f.ret(v, result, t, "%s %s" % (op, label),
                  (lambda args, axis: lambda ins: ref([ins[i] for i in args], axis))(args, axis))

        f = shape_func(funcs, op, t, [((2, 3), t), ((4, 3), t), ((3,), t)])
        cat(f, [0, 1], 0, (6, 3), "2x3,4x3 axis 0")
        cat(f, [2, 2, 2], 0, (9,), "3 inputs 1-D")
        cat(f, [2], 0, (3,), "single input")
        shape_runs(f, t, [[(2, 3), (4, 3), (3,)]])
        f = shape_func(funcs, op + "_inner", t, [((2, 3), t), ((2, 2), t)])
        cat(f, [0, 1], -1, (2, 5), "2x3,2x2 axis -1")
        shape_runs(f, t, [[(2, 3), (2, 2)]])
        f = shape_func(funcs, op + "_dyn", t, [((2, 3), t), ((None, 3), t)])
        cat(f, [0, 1], 0, (None, 3), "2x3,?x3 axis 0")
        shape_runs(f, t, [[(2, 3), (1, 3)], [(2, 3), (5, 3)]])
        f = shape_func(funcs, op + "_dyn3", t, [((2, 3), t), ((None, 3), t), ((4, 3), t)])
        cat(f, [0, 1, 2], 0, (None, 3), "2x3,?x3,4x3 axis 0")
        shape_runs(f, t, [[(2, 3), (1, 3), (4, 3)], [(2, 3), (3, 3), (4, 3)]])
    return funcs


def gen_slice(ops, t):
    funcs = []
    for op in ops:
        ref = REFERENCES[op].for_type(t)

        def sl(f, arg, start, limit, strides, shape, label=None):
            v = f.op("tide.%s %s start = %s limit = %s strides = %s : %s"
                     % (op, f.arg(arg), start, limit, strides, T(f.args[arg][0], t)))
            f.ret(v, shape, t, label or "%s %s:%s:%s" % (op, start, limit, strides),
                  (lambda arg, s, l, st: lambda ins: ref(ins[arg], s, l, st))(arg, start, limit, strides))

        f = shape_func(funcs, op, t, [((4, 5), t), ((None, 8), t)])
        sl(f, 0, [1, 0], [3, 5], [1, 1], (2, 5))
        sl(f, 0, [1, 2], [1, 4], [1, 1], (0, 2))
        sl(f, 1, [2, 0], [5, 8], [1, 1], (3, 8), "%s of ?x8 [2:5]" % op)
        shape_runs(f, t, [[(4, 5), (5, 8)], [(4, 5), (9, 8)]])
        f = shape_func(funcs, op + "_strided", t, [((4, 5), t), ((None, 8), t)])
        sl(f, 0, [0, 1], [2, 3], [1, 1], (2, 2))
        sl(f, 0, [0, 0], [4, 5], [3, 2], (2, 3))
        sl(f, 0, [1, 2], [4, 5], [2, 1], (2, 3))
        sl(f, 1, [1, 0], [10, 8], [4, 1], (3, 8), "%s of ?x8 [1:10:4]" % op)
        shape_runs(f, t, [[(4, 5), (10, 8)], [(4, 5), (12, 8)]])
        # An empty slice that starts at the end of a dimension (x[2:2, 5:5]).
        f = shape_func(funcs, op + "_empty_end", t, [((4, 5), t)])
        sl(f, 0, [2, 5], [2, 5], [1, 1], (0, 0), "%s [2, 5]:[2, 5] (empty, at the end)" % op)
        shape_runs(f, t, [[(4, 5)]])
    return funcs


def gen_scatter(ops, t):
    """ScatterElements: every reduction (add and mul not on i1), both index
    types, every axis sign, indices smaller than the data along other axes,
    duplicates, out-of-range and negative indices, dynamic sizes."""
    funcs = []
    reductions = ["none", "max", "min"] + ([] if t == "i1" else ["add", "mul"])
    for op in ops:
        ref = REFERENCES[op].for_type(t)
        # (data shape, indices shape and type, axis, label)
        cases = [((4, 5), ((4, 3), "i64"), 1, "rows"),
                 ((5, 3), ((7, 3), "i32"), 0, "columns, more than the axis, i32"),
                 ((4, 6), ((2, 3), "i64"), -1, "smaller indices"),
                 ((2, 3, 4), ((2, 2, 5), "i32"), 2, "rank 3"),
                 ((None, 5), ((None, 2), "i64"), -1, "dynamic rows"),
                 ((None, 6), ((2, 3), "i64"), 1, "dynamic data, smaller indices")]
        # One function per reduction and group of cases (the runner takes
        # 16 tensors per call).
        for red in reductions:
            for g in range(0, len(cases), 4):
                group = cases[g:g + 4]
                args = []
                for shape, (ishape, it), _, _ in group:
                    args += [(shape, t), (ishape, it), (ishape, t)]
                f = shape_func(funcs, "%s_%s%d" % (op, red, g), t, args)
                attr = "" if red == "none" else " reduction = %s" % red
                for c, (shape, (ishape, it), axis, label) in enumerate(group):
                    v = f.op("tide.%s %s, %s, %s axis = %d%s : %s, %s, %s"
                             % (op, f.arg(3 * c), f.arg(3 * c + 1), f.arg(3 * c + 2), axis, attr,
                                T(shape, t), T(ishape, it), T(ishape, t)))
                    f.ret(v, shape, t, "%s %s %s" % (op, red, label),
                          (lambda c, axis, red: lambda ins: ref(ins[3 * c], ins[3 * c + 1],
                                                                ins[3 * c + 2], axis, red))(c, axis, red),
                          "reduce" if red in ("add", "mul") else "exact")
                rng = rng_for(f.name)
                ins = []
                for shape, (ishape, it), axis, _ in group:
                    shape = tuple(3 if d is None else d for d in shape)
                    ishape = tuple(3 if d is None else d for d in ishape)
                    size = shape[axis]
                    small = red in ("add", "mul")
                    ins.append(gen_any(rng, shape, t, -3, 3) if small else shape_inputs(rng, shape, t))
                    idx = gen_int(rng, ishape, -size - 2, size + 1)
                    flat = idx.reshape(-1)
                    extremes = [0, -1, size - 1, -size, size, -size - 1, 2 ** 31 - 1, -2 ** 31]
                    flat[:min(len(extremes), flat.size)] = extremes[:flat.size]
                    ins.append(idx)
                    ins.append(gen_any(rng, ishape, t, -3, 3) if small
                               else shape_inputs(rng, ishape, t))
                f.run("?=3" if any(None in sh for sh, _, _, _ in group) else "", ins)
    return funcs


def gen_gather(ops, t):
    """take_along_axis: both index types, every axis sign, indices smaller
    than the input along other axes, dynamic sizes, an axis that is empty at
    run time, and out-of-range indices (wrapped once, then clamped)."""
    funcs = []
    for op in ops:
        ref = REFERENCES[op].for_type(t)
        # (input shape, indices shape and type, axis, result shape, label)
        cases = [((3, 5), ((3, 4), "i64"), 1, (3, 4), "rows"),
                 ((3, 5), ((2, 5), "i32"), 0, (2, 5), "columns, i32"),
                 ((4, 6), ((2, 3), "i64"), -1, (2, 3), "smaller indices"),
                 ((2, 3, 4), ((2, 3, 7), "i32"), 2, (2, 3, 7), "rank 3, more than the axis"),
                 ((6,), ((9,), "i64"), 0, (9,), "rank 1"),
                 ((None, 5), ((None, 2), "i64"), -1, (None, 2), "dynamic rows"),
                 ((3, None), ((3, 4), "i32"), 1, (3, 4), "dynamic axis")]
        args = []
        for shape, (ishape, it), _, _, _ in cases:
            args += [(shape, t), (ishape, it)]
        f = shape_func(funcs, op, t, args)
        for c, (shape, (ishape, it), axis, rs, label) in enumerate(cases):
            v = f.op("tide.%s %s, %s axis = %d : %s, %s" % (op, f.arg(2 * c), f.arg(2 * c + 1), axis,
                                                             T(shape, t), T(ishape, it)))
            f.ret(v, rs, t, "%s %s" % (op, label),
                  (lambda c, axis: lambda ins: ref(ins[2 * c], ins[2 * c + 1], axis))(c, axis))
        for run, (rows, n) in enumerate(((4, 5), (2, 0))):
            rng = rng_for(f.name + str(run))
            ins = []
            for shape, (ishape, it), axis, _, _ in cases:
                shape = tuple((rows if d is None and k == 0 else n) if d is None else d
                              for k, d in enumerate(shape))
                ishape = tuple(rows if d is None else d for d in ishape)
                size = shape[axis]
                ins.append(shape_inputs(rng, shape, t))
                idx = gen_int(rng, ishape, -size - 2, size + 2)
                flat = idx.reshape(-1)
                extremes = [0, -1, size - 1, -size, size, -size - 1, 2 ** 31 - 1, -2 ** 31]
                flat[:min(len(extremes), flat.size)] = extremes[:flat.size]
                ins.append(idx)
            f.run("?=%d,%d" % (rows, n), ins)
    return funcs


def gen_dim(ops, t):
    """tide.dim of dynamic and static dimensions (the static one folds), of an
    empty tensor too."""
    funcs = []
    for op in ops:
        ref = REFERENCES[op].for_type(t)
        f = shape_func(funcs, op, t, [((None, 3, None), t)])
        for axis in (0, 1, 2):
            v = f.op("tide.%s %s axis = %d : %s" % (op, f.arg(0), axis, T((None, 3, None), t)))
            f.ret(v, (1,), "i64", "%s axis %d of ?x3x?" % (op, axis),
                  (lambda axis: lambda ins: ref(ins[0], axis))(axis))
        shape_runs(f, t, [[(2, 3, 5)], [(0, 3, 1)]])
    return funcs


def gen_iota(ops, t):
    """tide.iota with sizes from an argument (read at run time) and from
    tide.dim (computed on the host), along every axis, empty at run time."""
    funcs = []
    for op in ops:
        ref = REFERENCES[op].for_type(t)
        f = shape_func(funcs, op, t, [((2,), "i64"), ((None, 4), t)])
        for axis in (0, 1):
            v = f.op("tide.%s %s axis = %d : %s to %s" % (op, f.arg(0), axis, T((2,), "i64"),
                                                         T((None, None), t)))
            f.ret(v, (None, None), t, "%s axis %d of sizes from an argument" % (op, axis),
                  (lambda axis: lambda ins: ref(ins[0], axis))(axis))
        d = f.op("tide.dim %s axis = 0 : %s" % (f.arg(1), T((None, 4), t)))
        c = f.op("tide.constant dense<[4]> : %s" % T((1,), "i64"))
        s = f.op("tide.concat %s, %s axis = 0 : %s, %s" % (d, c, T((1,), "i64"), T((1,), "i64")))
        v = f.op("tide.%s %s axis = 1 : %s to %s" % (op, s, T((2,), "i64"), T((None, 4), t)))
        f.ret(v, (None, 4), t, "%s of ?x4 sized by tide.dim" % op,
              lambda ins: ref((np.asarray(ins[1]).shape[0], 4), 1))
        for k, (sizes, rows) in enumerate((((3, 5), 6), ((0, 4), 0))):
            rng = rng_for(f.name + str(k))
            f.run("run%d" % k, [np.array(sizes, dtype=np.int64),
                                 shape_inputs(rng, (rows, 4), t)])
    return funcs


def gen_check(ops, t):
    """tide.check passing its input on: the condition from an argument (read
    by the host) and from a comparison of a run-time size; empty inputs too.
    (A condition that fails ends the call: test/Tools/tide-run-check.test.)"""
    funcs = []
    for op in ops:
        ref = REFERENCES[op].for_type(t)
        x = T((None, 3), t)
        f = shape_func(funcs, op, t, [((None, 3), t), ((1,), "i1")])
        v = f.op('tide.%s %s, %s, "from an argument" : %s, %s'
                 % (op, f.arg(0), f.arg(1), x, T((1,), "i1")))
        f.ret(v, (None, 3), t, "%s of ?x3, the condition an argument" % op,
              lambda ins: ref(ins[0]))
        d = f.op("tide.dim %s axis = 0 : %s" % (f.arg(0), x))
        z = f.op("tide.constant dense<[0]> : %s" % T((1,), "i64"))
        c = f.op("tide.cmp ge, %s, %s : %s" % (d, z, T((1,), "i64")))
        w = f.op('tide.%s %s, %s, "a size" : %s, %s' % (op, f.arg(0), c, x, T((1,), "i1")))
        f.ret(w, (None, 3), t, "%s of ?x3, the condition a size compared" % op,
              lambda ins: ref(ins[0]))
        for k, rows in enumerate((4, 0)):
            rng = rng_for(f.name + str(k))
            f.run("run%d" % k, [shape_inputs(rng, (rows, 3), t), np.array([True])])
    return funcs


def gen_dynamic_slice(ops, t):
    """tide.dynamic_slice with bounds from arguments: strided, a static result
    dimension, empty at run time."""
    funcs = []
    for op in ops:
        ref = REFERENCES[op].for_type(t)
        x, v2 = T((None, 8), t), T((2,), "i64")
        f = shape_func(funcs, op, t, [((None, 8), t), ((2,), "i64"), ((2,), "i64")])
        v = f.op("tide.%s %s, %s, %s strides = [1, 2] : %s, %s to %s"
                 % (op, f.arg(0), f.arg(1), f.arg(2), x, v2, T((None, None), t)))
        f.ret(v, (None, None), t, "%s ?x8 strides [1, 2]" % op,
              lambda ins: ref(ins[0], ins[1], ins[2], (1, 2)))
        v = f.op("tide.%s %s, %s, %s strides = [2, 1] : %s, %s to %s"
                 % (op, f.arg(0), f.arg(1), f.arg(2), x, v2, T((None, None), t)))
        f.ret(v, (None, None), t, "%s ?x8 strides [2, 1]" % op,
              lambda ins: ref(ins[0], ins[1], ins[2], (2, 1)))
        for k, (rows, start, limit) in enumerate(((5, (1, 0), (4, 7)), (3, (0, 3), (3, 8)),
                                                  (4, (2, 2), (2, 8)))):
            rng = rng_for(f.name + str(k))
            f.run("run%d" % k, [shape_inputs(rng, (rows, 8), t), np.array(start, dtype=np.int64),
                                np.array(limit, dtype=np.int64)])
    return funcs


def gen_nonzero(ops, t):
    """tide.nonzero of a dynamic 2-D tensor (half its elements zero, -0.0 among
    them for floats), of a 3-D one, of a scalar, and of an empty tensor."""
    funcs = []
    for op in ops:
        ref = REFERENCES[op].for_type(t)
        f = shape_func(funcs, op, t, [((None, 4), t), ((2, 3, 2), t), ((), t)])
        for i, shape in enumerate(((None, 4), (2, 3, 2), ())):
            v = f.op("tide.%s %s : %s to %s" % (op, f.arg(i), T(shape, t),
                                                T((len(shape), None), "i64")))
            f.ret(v, (len(shape), None), "i64", "%s of %s" % (op, T(shape, t)),
                  (lambda i: lambda ins: ref(ins[i]))(i))
        for k, rows in enumerate((5, 0)):
            rng = rng_for(f.name + str(k))
            ins = []
            for shape in ((rows, 4), (2, 3, 2), ()):
                x = np.array(shape_inputs(rng, shape, t))
                zero = rng.random(shape) < 0.5
                x[zero] = 0
                if t in FLOATS and x.size:
                    x.reshape(-1)[0] = -0.0
                ins.append(x)
            f.run("run%d" % k, ins)
    return funcs


def gen_nms(ops, t):
    """tide.non_max_suppression on boxes and scores every float type holds
    exactly: two batches, two classes, both box formats, with and without a
    score threshold, a limit that binds, equal scores."""
    funcs = []
    for op in ops:
        ref = REFERENCES[op].fn
        args = [((2, 8, 4), t), ((2, 2, 8), t), ((1,), "i64"), ((1,), t), ((1,), t)]
        f = shape_func(funcs, op, t, args)
        types = ", ".join(T(sh, tt) for sh, tt in args)
        for center in (False, True):
            v = f.op("tide.%s %s, %s, %s, %s, %s%s : %s to %s"
                     % (op, f.arg(0), f.arg(1), f.arg(2), f.arg(3), f.arg(4),
                        " center_point_box" if center else "", types, T((None, 3), "i64")))
            f.ret(v, (None, 3), "i64", "%s center %s, score threshold" % (op, center),
                  (lambda c: lambda ins: ref(ins[0], ins[1], ins[2][0], ins[3][0], ins[4][0], c))(center))
        v = f.op("tide.%s %s, %s, %s, %s : %s to %s"
                 % (op, f.arg(0), f.arg(1), f.arg(2), f.arg(3), ", ".join(T(sh, tt) for sh, tt in args[:4]),
                    T((None, 3), "i64")))
        f.ret(v, (None, 3), "i64", "%s, no score threshold" % op,
              lambda ins: ref(ins[0], ins[1], ins[2][0], ins[3][0], None, False))
        for k, limit in enumerate((3, 8, 0)):
            rng = rng_for(f.name + str(k))
            corners = rng.integers(0, 16, (2, 8, 4)) / 4.0
            corners[..., 2:] += 1 + rng.integers(0, 12, (2, 8, 2)) / 4.0
            scores = rng.integers(1, 16, (2, 2, 8)) / 16.0
            scores[0, 0, :3] = 0.5
            f.run("run%d" % k, [corners, scores, np.array([limit], dtype=np.int64),
                                np.array([0.25]), np.array([0.3125])])
        # Enough boxes (600 a class) for the windows of x order: boxes spread
        # in x, some crowded into one narrow band (their windows hold most
        # of the boxes: the pass over every later one), and one with an
        # infinite x max (no windows at all).
        n = 600
        args = [((1, n, 4), t), ((1, 2, n), t), ((1,), "i64"), ((1,), t), ((1,), t)]
        f = Func("%s_many_%s" % (op, t), args)
        funcs.append(f)
        types = ", ".join(T(sh, tt) for sh, tt in args)
        for center in (False, True):
            v = f.op("tide.%s %s, %s, %s, %s, %s%s : %s to %s"
                     % (op, f.arg(0), f.arg(1), f.arg(2), f.arg(3), f.arg(4),
                        " center_point_box" if center else "", types, T((None, 3), "i64")))
            f.ret(v, (None, 3), "i64", "%s of %d boxes, center %s" % (op, n, center),
                  (lambda c: lambda ins: ref(ins[0], ins[1], ins[2][0], ins[3][0], ins[4][0], c))(center))
        for k, (limit, iou, crowded, infinite) in enumerate(
                ((1000, 0.25, 0, False), (1000, 0.5, 200, False), (40, 0.25, 100, False),
                 (1000, 0.25, 0, True))):
            rng = rng_for(f.name + str(k))
            # Halves up to 53: exact in every float type.
            xy = rng.integers(0, 100, (1, n, 2)) / 2.0
            xy[0, :crowded, 1] = rng.integers(0, 4, crowded) / 2.0
            wh = rng.integers(1, 8, (1, n, 2)) / 2.0
            boxes = np.concatenate([xy, xy + wh], axis=2)[..., [0, 1, 2, 3]]
            flip = rng.random((1, n, 1)) < 0.3
            boxes = np.where(flip, boxes[..., [2, 3, 0, 1]], boxes)
            if infinite:
                boxes[0, 7, 3] = np.inf
            scores = rng.integers(1, 16, (1, 2, n)) / 16.0
            f.run("run%d" % k, [boxes, scores, np.array([limit], dtype=np.int64),
                                np.array([iou]), np.array([0.125])])
    return funcs


def gen_top_k(ops, t):
    """tide.top_k, largest and smallest, along the last axis (a static k)
    and the first (k read at run time, sometimes past the axis length), on
    values with ties (and NaN for floats)."""
    funcs = []
    for op in ops:
        ref = REFERENCES[op].fn
        args = [((3, 9), t), ((None, 5), t), ((1,), "i64"), ((2, 100), t), ((1,), "i64"),
                ((1,), "i64")]
        f = shape_func(funcs, op, t, args)
        for smallest in (False, True):
            flag = " smallest" if smallest else ""
            v = f.op("tide.%s %s, %s axis = -1%s : %s, %s to %s"
                     % (op, f.arg(0), f.arg(2), flag, T((3, 9), t), T((1,), "i64"), T((3, 4), "i64")))
            f.ret(v, (3, 4), "i64", "%s%s of %s, k = 4" % (op, flag, T((3, 9), t)),
                  (lambda sm: lambda ins: ref(ins[0], 4, -1, sm))(smallest))
            v = f.op("tide.%s %s, %s axis = 0%s : %s, %s to %s"
                     % (op, f.arg(1), f.arg(2), flag, T((None, 5), t), T((1,), "i64"),
                        T((None, 5), "i64")))
            f.ret(v, (None, 5), "i64", "%s%s of %s, k at run time" % (op, flag, T((None, 5), t)),
                  (lambda sm: lambda ins: ref(ins[1], int(ins[2][0]), 0, sm))(smallest))
            # Rows long enough for the blocks tested against the root at once.
            v = f.op("tide.%s %s, %s axis = 1%s : %s, %s to %s"
                     % (op, f.arg(3), f.arg(2), flag, T((2, 100), t), T((1,), "i64"), T((2, 4), "i64")))
            f.ret(v, (2, 4), "i64", "%s%s of %s, k = 4" % (op, flag, T((2, 100), t)),
                  (lambda sm: lambda ins: ref(ins[3], 4, 1, sm))(smallest))
            # Most of a row kept (the merge sort of the whole row).
            for k in (60, 100):
                v = f.op("tide.%s %s, %s axis = 1%s : %s, %s to %s"
                         % (op, f.arg(3), f.arg(4 if k == 60 else 5), flag, T((2, 100), t),
                            T((1,), "i64"), T((2, k), "i64")))
                f.ret(v, (2, k), "i64", "%s%s of %s, k = %d" % (op, flag, T((2, 100), t), k),
                      (lambda sm, k: lambda ins: ref(ins[3], k, 1, sm))(smallest, k))
        for run, rows in enumerate((7, 2)):
            rng = rng_for(f.name + str(run))
            lo = 0 if t in UINTS else -3
            x = rng.integers(lo, 4, (3, 9)).astype(np.float64)
            y = rng.integers(lo, 4, (rows, 5)).astype(np.float64)
            z = rng.integers(lo, 40, (2, 100)).astype(np.float64)
            if t in FLOATS:
                x[0, 2] = x[1, 5] = x[1, 7] = np.nan
                y[0, 1] = np.nan
                z[0, 70] = z[0, 97] = z[1, 3] = np.nan
                x, y, z = quantize(x / 4, t), quantize(y / 4, t), quantize(z / 4, t)
            else:
                x, y, z = x.astype(np.int64), y.astype(np.int64), z.astype(np.int64)
            f.run("run%d" % run, [x, y, np.array([4], dtype=np.int64), z,
                                  np.array([60], dtype=np.int64), np.array([100], dtype=np.int64)])
    return funcs


def gen_transfer(t):
    """tide.transfer (placement's copy; not a kernel, so not in the op list)."""
    funcs = []
    f = shape_func(funcs, "transfer", t, [((2, 3), t)])
    v = f.op("tide.transfer %s : %s to #tide.device<cpu>" % (f.arg(0), T((2, 3), t)))
    f.ret(v, (2, 3), t, "transfer to cpu", lambda ins: ins[0])
    shape_runs(f, t, [[(2, 3)]])
    return funcs


def cast_inputs(src):
    if src == "i1":
        return np.array([True, False, True, True, False, False, True])
    if src in INTS:
        return np.array([-100, -57, -3, -1, 0, 1, 2, 42, 99, 126, 127, -128])
    return quantize([-100.75, -57.3, -3.5, -1.0, -0.5, -0.0, 0.0, 0.25, 0.7, 1.0,
                     2.5, 3.999, 42.1, 99.5, 126.9, 3.14159265358979, -0.001], src)


def gen_cast(ops):
    """Every (source, destination) pair of the types the op accepts. Casts to
    bf16 sit in their own function so a bf16 problem does not hide the others."""
    funcs = []
    s = (None,)
    for op in ops:
        ref = REFERENCES[op].fn
        types = OPS[op]["dtypes"]
        for src in types:
            f = Func("%s_from_%s" % (op, src), [(s, src)])
            for dst in types:
                if op == "bitcast":
                    if width_of(src) != width_of(dst):
                        continue
                elif dst == "bf16" and src != "bf16":
                    continue
                elif src in FLOATS and dst in UINTS:   # below: non-negative inputs
                    continue
                v = f.op("tide.%s %s : %s to %s" % (op, f.arg(0), T(s, src), T(s, dst)))
                f.ret(v, s, dst, "%s %s -> %s" % (op, src, dst),
                      (lambda src, dst, ref=ref: lambda ins: ref(ins[0], src, dst))(src, dst))
            x = cast_inputs(src)
            f.run("n=%d" % len(x), [x])
            f.run("n=3", [x[:3].copy()])
            funcs.append(f)
            udsts = [t for t in types if t in UINTS]
            if src in FLOATS and udsts and op != "bitcast":
                # Float to unsigned truncates toward zero; a negative or too
                # large float has no defined result (as in C), so these
                # inputs are in [0, 256).
                g = Func("%s_from_%s_to_unsigned" % (op, src), [(s, src)])
                for dst in udsts:
                    v = g.op("tide.%s %s : %s to %s" % (op, g.arg(0), T(s, src), T(s, dst)))
                    g.ret(v, s, dst, "%s %s -> %s" % (op, src, dst),
                          (lambda src, dst, ref=ref: lambda ins: ref(ins[0], src, dst))(src, dst))
                g.run("", [quantize([0.0, -0.0, 0.25, 0.7, 1.0, 2.5, 3.999, 42.1, 99.5, 126.9,
                                     128.0, 200.75, 255.0], src)])
                funcs.append(g)
        srcs = [t for t in types if t != "bf16"]
        if "bf16" in types and srcs and op != "bitcast":
            f = Func("%s_to_bf16" % op, [(s, src) for src in srcs])
            for i, src in enumerate(srcs):
                v = f.op("tide.%s %s : %s to %s" % (op, f.arg(i), T(s, src), T(s, "bf16")))
                f.ret(v, s, "bf16", "%s %s -> bf16" % (op, src),
                      (lambda i, src, ref=ref: lambda ins: ref(ins[i], src, "bf16"))(i, src))
            f.run("", [cast_inputs(src) for src in srcs])
            funcs.append(f)
    return funcs


def gen_scan(ops, t):
    """tide.scan over a sequence of run-time length (5 rows, 1, none), in
    order and reversed: a running maximum (a running or for i1) of the rows
    and an invariant, from an initial state; the stacked states and the
    step positions. The body's ops run where the scan runs (the host)."""
    funcs = []
    comb = "or" if t == "i1" else "maximum"
    np_comb = np.logical_or if t == "i1" else np.maximum
    for op in ops:
        args = [((None, 3), t), ((3,), t), ((3,), t)]
        f = shape_func(funcs, op, t, args)
        for reverse in (False, True):
            v = "%%v%d" % f.n
            f.n += 1
            st, sq = T((3,), t), T((None, 3), t)
            f.lines.append(
                "  %s:3 = tide.scan inits(%s : %s) sequences(%s : %s) invariants(%s : %s)%s {\n"
                "  ^bb0(%%t: tensor<i64>, %%s: %s, %%x: %s, %%b: %s):\n"
                "    %%m = tide.%s %%s, %%x : %s, %s\n"
                "    %%n = tide.%s %%m, %%b : %s, %s\n"
                "    tide.yield %%n, %%n, %%t : %s, %s, tensor<i64>\n"
                "  } : %s, %s, %s"
                % (v, f.arg(1), st, f.arg(0), sq, f.arg(2), st, " reverse" if reverse else "",
                   st, st, st, comb, st, st, comb, st, st, st, st, st, sq, T((None,), "i64")))

            def ref(ins, reverse=reverse):
                x, z, b = ins
                state, out = z, [None] * len(x)
                for k in (reversed(range(len(x))) if reverse else range(len(x))):
                    state = np_comb(np_comb(state, x[k]), b).astype(x.dtype)
                    out[k] = state
                stacked = np.stack(out) if out else np.zeros((0, 3), x.dtype)
                return state, stacked, np.arange(len(x), dtype=np.int64)
            label = "%s%s of %s" % (op, " reverse" if reverse else "", sq)
            f.ret(v + "#0", (3,), t, label + ": final state", lambda ins, r=ref: r(ins)[0])
            f.ret(v + "#1", (None, 3), t, label + ": states", lambda ins, r=ref: r(ins)[1])
            f.ret(v + "#2", (None,), "i64", label + ": positions", lambda ins, r=ref: r(ins)[2])
        for k, rows in enumerate((5, 1, 0)):
            rng = rng_for(f.name + str(k))
            f.run("run%d" % k, [np.array(shape_inputs(rng, sh, t))
                                for sh in ((rows, 3), (3,), (3,))])
    return funcs


def gen_if(ops, t):
    """tide.if on a boolean argument, run both ways: the then region combines
    two 4x3 invariants (a maximum; an or for i1), the else region takes the
    first two rows of the first (a result of run-time size); a second result
    passes an invariant through each region."""
    funcs = []
    comb = "or" if t == "i1" else "maximum"
    np_comb = np.logical_or if t == "i1" else np.maximum
    for op in ops:
        f = shape_func(funcs, op, t, [((), "i1"), ((4, 3), t), ((4, 3), t)])
        v = "%%v%d" % f.n
        f.n += 1
        x, two, out = T((4, 3), t), T((2, 3), t), T((None, 3), t)
        f.lines.append(
            "  %s:2 = tide.if %s invariants(%s, %s : %s, %s) {\n"
            "  ^bb0(%%a: %s, %%b: %s):\n"
            "    %%m = tide.%s %%a, %%b : %s, %s\n"
            "    tide.yield %%m, %%b : %s, %s\n"
            "  } else {\n"
            "  ^bb0(%%a: %s, %%b: %s):\n"
            "    %%s = tide.slice %%a start = [0, 0] limit = [2, 3] strides = [1, 1] : %s\n"
            "    tide.yield %%s, %%a : %s, %s\n"
            "  } : tensor<i1> -> (%s, %s)"
            % (v, f.arg(0), f.arg(1), f.arg(2), x, x, x, x, comb, x, x, x, x, x, x, x, two, x,
               out, x))

        def ref(ins):
            c, a, b = ins
            if bool(c):
                return np_comb(a, b).astype(a.dtype), b
            return a[:2], a
        f.ret(v + "#0", (None, 3), t, "%s: %s or 2 rows" % (op, comb), lambda ins: ref(ins)[0])
        f.ret(v + "#1", (4, 3), t, "%s: an invariant passed through" % op, lambda ins: ref(ins)[1])
        for k, c in enumerate((True, False)):
            rng = rng_for(f.name + str(k))
            f.run("run%d" % k, [np.array(c)] + [np.array(shape_inputs(rng, (4, 3), t))
                                                 for _ in range(2)])
    return funcs


# The modules: ops_<type> and shape_<type> per element type (the families'
# generators in this order), and one module of casts over every type pair.
OPS_MODULE = [(("unary",), gen_unary), (("binary",), gen_binary), (("compare",), gen_cmp),
              (("select",), gen_select), (("reduction", "arg_reduction"), gen_reduce),
              (("arg_reduction",), gen_argreduce), (("cumsum",), gen_cumsum),
              (("matmul",), gen_matmul), (("conv",), gen_conv), (("pool",), gen_pooling),
              (("constant",), gen_constant), (("softmax",), gen_softmax)]
SHAPE_MODULE = [(("reshape",), gen_reshape), (("transpose",), gen_transpose),
                (("broadcast",), gen_broadcast_to), (("concat",), gen_concat),
                (("slice",), gen_slice), (("gather",), gen_gather),
                (("scatter",), gen_scatter), (("dim",), gen_dim), (("iota",), gen_iota),
                (("dynamic_slice",), gen_dynamic_slice), (("nonzero",), gen_nonzero),
                (("non_max_suppression",), gen_nms), (("top_k",), gen_top_k),
                (("scan",), gen_scan), (("if",), gen_if), (("check",), gen_check)]
CAST_FAMILY = "cast"
FAMILIES = set(f for fams, _ in OPS_MODULE + SHAPE_MODULE for f in fams) | {CAST_FAMILY}


def gen_dtype_module(t):
    funcs = []
    for families, gen in OPS_MODULE:
        ops = ops_for(families, t)
        if ops:
            funcs += gen(ops, t)
    if t in FLOATS:
        funcs += gen_special(t)
    return funcs


def gen_shape_module(t):
    funcs = []
    for families, gen in SHAPE_MODULE:
        ops = ops_for(families, t)
        if ops:
            funcs += gen(ops, t)
    return funcs + gen_transfer(t)


def gen_cast_module():
    return gen_cast([op for op, r in REFERENCES.items()
                     if op in OPS and OPS[op]["family"] == CAST_FAMILY == r.family])


def coverage_problems(modules):
    """(op, line) for each listed op that would go untested, each reference for
    an op the list does not have, and each accepted (op, type) pair that no
    generated function checks."""
    problems = []
    for name, op in OPS.items():
        family, r = op["family"], REFERENCES.get(name)
        if r is None:
            problems.append((name, "no NumPy reference for tide.%s (family %s); add one to REFERENCES "
                             "in numerics.py" % (name, family)))
        elif r.family != family:
            problems.append((name, "REFERENCES['%s'] is written for family %s, but tide-opt lists "
                             "tide.%s as family %s; update it in numerics.py" % (name, r.family, name, family)))
        if family not in FAMILIES:
            problems.append((name, "numerics.py has no generator for family %s (tide.%s); add one to "
                             "OPS_MODULE or SHAPE_MODULE" % (family, name)))
    for name in REFERENCES:
        if name not in OPS:
            problems.append((name, "REFERENCES has tide.%s, which tide-opt --tide-list-kernels does "
                             "not list; remove it from numerics.py or fix its name" % name))
    if problems or modules is None:
        return problems
    checked = set()                # (op, element type) on a generated line
    for funcs in modules.values():
        for f in funcs:
            for line in f.lines:
                m = re.match(r"\s*%\w+(?::\d+)? = tide\.(\w+) ", line)
                if m:
                    for t in re.findall(r"tensor<(?:[0-9?]+x)*(\w+)>", line):
                        checked.add((m.group(1), t))
    for name, op in OPS.items():
        missed = [t for t in op["dtypes"] if (name, t) not in checked]
        if missed:
            problems.append((name, "no generated check of tide.%s on %s (family %s)"
                             % (name, ", ".join(missed), op["family"])))
    return problems


def gen_mixed(gpu):
    """CPU and GPU parts in one function: ops pinned to the CPU between ops
    the target puts on the GPU (on target=cpu all of it runs on the host),
    and, with a GPU, arguments and results resident on it."""
    funcs = []
    cpu = "{tide.device = #tide.device<cpu>}"
    res = "{tide.resident = #tide.device<cuda:0>}"
    for t in ("f32", "f64"):
        sh = (64, 33)
        f = Func("mixed_%s" % t, [(sh, t), ((33,), t)])
        e = f.op("tide.exp %s : %s" % (f.arg(0), T(sh, t)))
        si = f.op("tide.sin %s %s : %s" % (e, cpu, T(sh, t)))
        m = f.op("tide.mul %s, %s : %s, %s" % (si, f.arg(1), T(sh, t), T((33,), t)))
        r = f.op("tide.reduce_sum %s axes = [1] %s : %s" % (m, cpu, T(sh, t)))
        mx = f.op("tide.reduce_max %s axes = [0] : %s" % (m, T(sh, t)))
        np_t = np.float32 if t == "f32" else np.float64
        # exp is rounded to t before sin reads it, as in the program.
        se = (lambda np_t: lambda ins: np.sin(np.exp(ins[0].astype(np_t)).astype(np.float64)))(np_t)
        f.ret(e, sh, t, "exp (GPU)", lambda ins: np.exp(ins[0]), "exp")
        f.ret(m, sh, t, "sin (CPU) * b (GPU)",
              (lambda se: lambda ins: se(ins) * ins[1])(se), "composite")
        f.ret(r, (64,), t, "row sums (CPU)",
              (lambda se: lambda ins: np.sum(se(ins) * ins[1], axis=1))(se), "composite")
        f.ret(mx, (33,), t, "column max (GPU)",
              (lambda se: lambda ins: np.max(se(ins) * ins[1], axis=0))(se), "composite")
        rng = rng_for(f.name)
        f.run("", [gen_float(rng, sh, -2, 2, t), gen_float(rng, (33,), -3, 3, t)])
        funcs.append(f)
        # A donated argument: the result is computed in its buffer.
        f = Func("donate_%s" % t, [((500,), t), ((500,), t)], arg_attrs=["{tide.donate}", ""])
        e = f.op("tide.exp %s : %s" % (f.arg(0), T((500,), t)))
        y = f.op("tide.add %s, %s : %s" % (e, f.arg(1), T((500,), t)))
        f.ret(y, (500,), t, "exp(a) + b into donated a",
              lambda ins: np.exp(ins[0]) + ins[1], "composite")
        rng = rng_for(f.name)
        f.run("", [gen_float(rng, (500,), -2, 2, t), gen_float(rng, (500,), -2, 2, t)])
        funcs.append(f)
        if not gpu:
            continue
        f = Func("donate_resident_%s" % t, [((700,), t)],
                 arg_attrs=["{tide.donate, tide.resident = #tide.device<cuda:0>}"], res_attrs=[res])
        y = f.op("tide.mul %s, %s : %s" % (f.arg(0), f.arg(0), T((700,), t)))
        f.ret(y, (700,), t, "a*a into donated GPU-resident a", lambda ins: ins[0] * ins[0], "ieee")
        rng = rng_for(f.name)
        f.run("", [gen_float(rng, (700,), -2, 2, t)])
        funcs.append(f)
        n = 1000
        f = Func("resident_%s" % t, [((n,), t), ((n,), t)], arg_attrs=[res, ""],
                 res_attrs=[res, "", res])
        y = f.op("tide.mul %s, %s : %s" % (f.arg(0), f.arg(1), T((n,), t)))
        z = f.op("tide.reduce_sum %s axes = [0] : %s" % (y, T((n,), t)))
        f.ret(y, (n,), t, "a*b into a GPU-resident result", lambda ins: ins[0] * ins[1], "ieee")
        f.ret(z, (), t, "sum to the host", lambda ins: np.sum(ins[0] * ins[1]), "composite")
        f.ret(f.arg(0), (n,), t, "a resident argument returned as is",
              lambda ins: ins[0])
        rng = rng_for(f.name)
        f.run("", [gen_float(rng, (n,), -2, 2, t), gen_float(rng, (n,), -2, 2, t)])
        funcs.append(f)
    return funcs


def gen_precision():
    """f64 stays f64 end to end; no silent demotion, no folded round trip."""
    funcs = []
    for t in ("f64", "f32"):
        f = Func("chain_%s" % t, [((None,), t)])
        sq = f.op("tide.mul %s, %s : %s" % (f.arg(0), f.arg(0), T((None,), t)))
        c = f.op("tide.constant dense<1.0e-10> : %s" % T((), t))
        v = f.op("tide.add %s, %s : %s, %s" % (sq, c, T((None,), t), T((), t)))
        np_t = np.float64 if t == "f64" else np.float32
        f.ret(v, (None,), t, "x*x + 1e-10 in %s" % t,
              (lambda np_t: lambda ins: (ins[0].astype(np_t) * ins[0].astype(np_t)
                                         + np_t(1e-10)).astype(np.float64))(np_t), "ieee")
        funcs.append(f)
    f = Func("roundtrip_f64", [((5,), "f64")])
    a = f.op("tide.cast %s : %s to %s" % (f.arg(0), T((5,), "f64"), T((5,), "f32")))
    v = f.op("tide.cast %s : %s to %s" % (a, T((5,), "f32"), T((5,), "f64")))
    f.ret(v, (5,), "f64", "cast f64->f32->f64 keeps the f32 rounding",
          lambda ins: ins[0].astype(np.float32).astype(np.float64))
    v = f.op("tide.reduce_sum %s axes = [0] : %s" % (f.arg(0), T((5,), "f64")))
    f.ret(v, (), "f64", "reduce_sum f64 keeps 1e-12 terms",
          lambda ins: np.sum(ins[0].astype(np.longdouble)), "reduce")
    f.run("", [np.array([1.0, 1e-12, 1e-12, 1.0 + 2 ** -40, math.pi])])
    funcs.append(f)
    return funcs


def gen_round_once():
    """f16/bf16 ops compute in f32 and round once (issue 14): long sums,
    means and products, K = 4096 matmuls, softmax over 8192 columns, means
    over more elements than f16 can count; and the f32/f64 cases of the same
    bugs: elu near 0 (expm1, not exp(x) - 1) and empty slices. References are
    computed in float64 (long double for f64) from the rounded inputs."""
    funcs = []
    for t in ("f16", "bf16"):
        # Sums, means and products of 8192 values: an f16 accumulator stops
        # at 2048 (bf16 at 256); the mean of 70000 divides by a count f16
        # cannot hold (+inf) and bf16 rounds.
        args = [((8192,), t), ((4, 8192), t), ((4096,), t), ((1750, 40), t), ((70000,), t),
                ((1024,), t)]
        f = Func("round_once_reduce_%s" % t, args)
        for op, i, axes, keep, ref in (
                ("reduce_sum", 0, [0], False, np.sum), ("reduce_mean", 0, [0], False, np.mean),
                ("reduce_sum", 1, [1], True, np.sum), ("reduce_mean", 1, [-1], False, np.mean),
                ("reduce_prod", 2, [0], False, np.prod), ("reduce_max", 0, [0], False, np.max),
                ("reduce_min", 1, [1], False, np.min),
                ("reduce_mean", 3, [0, 1], False, np.mean), ("reduce_mean", 4, [0], False, np.mean),
                ("reduce_mean", 5, [0], False, np.mean), ("reduce_sum", 3, [0], False, np.sum)):
            shape = args[i][0]
            kd = " keepdims" if keep else ""
            v = f.op("tide.%s %s axes = [%s]%s : %s" % (op, f.arg(i), ", ".join(map(str, axes)), kd,
                                                        T(shape, t)))
            norm = [a % len(shape) for a in axes]
            rs = tuple(1 if d in norm else shape[d] for d in range(len(shape)) if keep or d not in norm)
            f.ret(v, rs, t, "%s axes=%s%s over %s" % (op, axes, kd, T(shape, t)),
                  (lambda i, axes, keep, ref: lambda ins: ref(ins[i], axis=tuple(axes), keepdims=keep))(
                      i, axes, keep, ref), "reduce")
        rng = rng_for(f.name)
        f.run("", [gen_float(rng, (8192,), 0, 1, t), gen_float(rng, (4, 8192), 0, 1, t),
                   gen_float(rng, (4096,), 0.99, 1.01, t), gen_float(rng, (1750, 40), 0, 1, t),
                   gen_float(rng, (70000,), 0, 1, t),
                   gen_float(rng, (1024,), 90, 110, t)])   # an f16 sum would overflow
        funcs.append(f)

        # K = 4096 dot products of values in [0, 1): 2-D and batched.
        args = [((2, 4096), t), ((4096, 3), t), ((2, 2, 4096), t), ((2, 4096, 3), t)]
        f = Func("round_once_matmul_%s" % t, args)
        for i, j, shape in ((0, 1, (2, 3)), (2, 3, (2, 2, 3)), (2, 1, (2, 2, 3))):
            v = f.op("tide.matmul %s, %s : %s, %s" % (f.arg(i), f.arg(j), T(args[i][0], t),
                                                      T(args[j][0], t)))
            f.ret(v, shape, t, "matmul(%s, %s)" % (T(args[i][0], t), T(args[j][0], t)),
                  (lambda i, j: lambda ins: np.matmul(ins[i], ins[j]))(i, j), "reduce")
        rng = rng_for(f.name)
        f.run("", [gen_float(rng, a[0], 0, 1, t) for a in args])
        funcs.append(f)

        # softmax / log_softmax over 8192 columns (an f16 sum of the
        # exponentials made the row sum 2.53), on both axes' kinds.
        args = [((1, 8192), t), ((8192, 2), t)]
        f = Func("round_once_softmax_%s" % t, args)
        for op, i, axis, ref, cls in (("softmax", 0, 1, softmax, "transc"),
                                      ("log_softmax", 0, 1, log_softmax, "ieee"),
                                      ("softmax", 1, 0, softmax, "transc"),
                                      ("log_softmax", 1, 0, log_softmax, "ieee")):
            v = f.op("tide.%s %s axis = %d : %s" % (op, f.arg(i), axis, T(args[i][0], t)))
            f.ret(v, args[i][0], t, "%s axis=%d on %s" % (op, axis, T(args[i][0], t)),
                  (lambda i, axis, ref: lambda ins: ref(ins[i], axis))(i, axis, ref), cls)
        rng = rng_for(f.name)
        f.run("", [gen_float(rng, (1, 8192), 0, 1, t), gen_float(rng, (8192, 2), -3, 3, t)])
        funcs.append(f)

        # Rows a GPU warp computes alone (up to 1024 columns: several per
        # lane, a partial last step) and the first past it (a block per row),
        # and attention scores with masked (-inf) keys.
        shapes = [(37, 100), (5, 1000), (3, 1024), (3, 1025), (2, 3, 16, 128)]
        args = [(s_, t) for s_ in shapes]
        f = Func("rows_softmax_%s" % t, args)
        for i, shape in enumerate(shapes):
            for op, ref, cls in (("softmax", softmax, "transc"),
                                 ("log_softmax", log_softmax, "ieee")):
                v = f.op("tide.%s %s axis = %d : %s" % (op, f.arg(i), len(shape) - 1,
                                                          T(shape, t)))
                f.ret(v, shape, t, "%s over rows of %s" % (op, T(shape, t)),
                      (lambda i, axis, ref: lambda ins: ref(ins[i], axis))(i, len(shape) - 1, ref),
                      cls)
        rng = rng_for(f.name)
        ins = [gen_float(rng, shape, -4, 4, t) for shape in shapes]
        ins[-1][..., 100:] = -np.inf
        f.run("", ins)
        funcs.append(f)

        # sigmoid and elu: one rounding, so within the IEEE tolerance.
        f = Func("round_once_elementwise_%s" % t, [((256,), t)])
        for name, text, ref in (("sigmoid", "tide.sigmoid", sigmoid),
                                ("elu", "tide.elu", elu(1.0)),
                                ("elu alpha=0.5", "tide.elu", elu(0.5))):
            attr = " alpha = 0.5" if "alpha" in name else ""
            v = f.op("%s %s%s : %s" % (text, f.arg(0), attr, T((256,), t)))
            f.ret(v, (256,), t, name, (lambda ref: lambda ins: ref(ins[0]))(ref), "ieee")
        f.run("", [gen_float(rng_for(f.name), (256,), -6, 6, t)])
        funcs.append(f)

    # elu near 0 in f32/f64: expm1, not exp(x) - 1 (19% off at -1e-7 in f32,
    # 0 at -1e-30). 256 elements, so the vectorized loop runs too.
    for t in ("f32", "f64"):
        f = Func("elu_near_zero_%s" % t, [((256,), t), ((5,), t)])
        for i, n in ((0, 256), (1, 5)):
            v = f.op("tide.elu %s : %s" % (f.arg(i), T((n,), t)))
            f.ret(v, (n,), t, "elu near 0 on %s" % T((n,), t),
                  (lambda i: lambda ins: elu(1.0)(lift(ins[i], t, "transc")))(i), "transc")
        tiny = -np.logspace(-30 if t == "f32" else -300, 1, 224)
        x = np.concatenate([tiny, np.logspace(-30, 1, 32)])
        f.run("", [quantize(x, t), quantize([-1e-7, -1e-30, -1e-4, 1e-7, -3.0], t)])
        funcs.append(f)

    # Empty slices: of a size-0 dimension, at the end of one, and empty in
    # one dimension only.
    f = Func("empty_slice", [((0,), "f32"), ((4, 5), "f16"), ((0, 4), "i32")])
    for i, (shape, t), start, limit, rs in ((0, ((0,), "f32"), [0], [0], (0,)),
                                            (1, ((4, 5), "f16"), [2, 5], [2, 5], (0, 0)),
                                            (1, ((4, 5), "f16"), [4, 1], [4, 3], (0, 2)),
                                            (2, ((0, 4), "i32"), [0, 1], [0, 3], (0, 2))):
        v = f.op("tide.slice %s start = %s limit = %s strides = %s : %s" % (
            f.arg(i), start, limit, [1] * len(start), T(shape, t)))
        f.ret(v, rs, t, "slice %s:%s of %s" % (start, limit, T(shape, t)),
              (lambda rs: lambda ins: np.zeros(rs))(rs))
    f.run("", [np.zeros((0,)), gen_float(rng_for(f.name), (4, 5), -1, 1, "f16"),
               np.zeros((0, 4), dtype=np.int64)])
    funcs.append(f)
    return funcs


def gen_row_groups():
    """Reductions over trailing dimensions with the elementwise work around
    them, which a GPU computes as one kernel per row group: layer norms (a
    warp per row, a block per row past 1024 columns, f64's block per row),
    an RMS norm over two trailing dimensions, an attention softmax with its
    scale and mask, two reductions of one row sharing a pass, values the
    group computes that are also results, and an integer group."""
    eps = 1e-5

    def ln_ref(x, g, b):
        m = x.mean(axis=-1, keepdims=True)
        c = x - m
        return c / np.sqrt((c * c).mean(axis=-1, keepdims=True) + eps) * g + b

    def float_group(t):
        s = "f32" if t in ("f16", "bf16") else t
        xs, ys, zs, ss = (6, 7, 96), (5, 2000), (4, 3, 10, 20), (2, 3, 16, 128)
        args = [(xs, t), (xs, t), ((96,), t), ((96,), t), (ys, t), ((2000,), t), (zs, t),
                (ss, t), ((2, 1, 1, 128), t)]
        f = Func("row_groups_%s" % t, args)
        e = f.op("tide.constant dense<1.0e-05> : tensor<%s>" % s)

        def layer_norm(x, shape, g, b):
            """The importer's LayerNormalization: statistics in s."""
            xf = x if s == t else f.op("tide.cast %s : %s to %s" % (x, T(shape, t), T(shape, s)))
            rows = shape[:-1] + (1,)
            m = f.op("tide.reduce_mean %s axes = [%d] keepdims : %s" % (xf, len(shape) - 1, T(shape, s)))
            c = f.op("tide.sub %s, %s : %s, %s" % (xf, m, T(shape, s), T(rows, s)))
            sq = f.op("tide.mul %s, %s : %s" % (c, c, T(shape, s)))
            v = f.op("tide.reduce_mean %s axes = [%d] keepdims : %s" % (sq, len(shape) - 1, T(shape, s)))
            ve = f.op("tide.add %s, %s : %s, %s" % (v, e, T(rows, s), T((), s)))
            r = f.op("tide.rsqrt %s : %s" % (ve, T(rows, s)))
            n = f.op("tide.mul %s, %s : %s, %s" % (c, r, T(shape, s), T(rows, s)))
            if s != t:
                n = f.op("tide.cast %s : %s to %s" % (n, T(shape, s), T(shape, t)))
            y = f.op("tide.mul %s, %s : %s, %s" % (n, g, T(shape, t), T(shape[-1:], t)))
            y = f.op("tide.add %s, %s : %s, %s" % (y, b, T(shape, t), T(shape[-1:], t)))
            return y, m, c

        # x + r, layer-normed: its mean and centered values are results too
        # (stored by the group, not recomputed after it).
        h = f.op("tide.add %s, %s : %s" % (f.arg(0), f.arg(1), T(xs, t)))
        y, m, c = layer_norm(h, xs, f.arg(2), f.arg(3))
        hq = lambda ins: quantize(ins[0] + ins[1], t)
        f.ret(y, xs, t, "layer norm of x + r over %s" % T(xs, t),
              lambda ins: ln_ref(hq(ins), ins[2], ins[3]), "composite")
        f.ret(m, (6, 7, 1), s, "its mean", lambda ins: hq(ins).mean(axis=-1, keepdims=True),
              "composite")
        f.ret(c, xs, s, "its centered values",
              lambda ins: hq(ins) - hq(ins).mean(axis=-1, keepdims=True), "composite")
        # Rows past a warp's 1024 columns; f64 everywhere a block per row.
        y2, _, _ = layer_norm(f.arg(4), ys, f.arg(5), f.arg(5))
        f.ret(y2, ys, t, "layer norm over %s" % T(ys, t),
              lambda ins: ln_ref(ins[4], ins[5], ins[5]), "composite")
        # RMS norm over the two trailing dimensions.
        zf = f.arg(6) if s == t else f.op("tide.cast %s : %s to %s" % (f.arg(6), T(zs, t), T(zs, s)))
        z2 = f.op("tide.mul %s, %s : %s" % (zf, zf, T(zs, s)))
        ms = f.op("tide.reduce_mean %s axes = [2, 3] keepdims : %s" % (z2, T(zs, s)))
        ms = f.op("tide.add %s, %s : %s, %s" % (ms, e, T((4, 3, 1, 1), s), T((), s)))
        rz = f.op("tide.rsqrt %s : %s" % (ms, T((4, 3, 1, 1), s)))
        nz = f.op("tide.mul %s, %s : %s, %s" % (zf, rz, T(zs, s), T((4, 3, 1, 1), s)))
        f.ret(nz, zs, s, "RMS norm over the last two dims of %s" % T(zs, t),
              lambda ins: ins[6] / np.sqrt((ins[6] ** 2).mean(axis=(2, 3), keepdims=True) + eps),
              "composite")
        # Attention probabilities: scores / 8 + mask, softmax over keys.
        k = f.op("tide.constant dense<%s> : tensor<%s>" % (literal(8.0, t), t))
        sc = f.op("tide.div %s, %s : %s, %s" % (f.arg(7), k, T(ss, t), T((), t)))
        sc = f.op("tide.add %s, %s : %s, %s" % (sc, f.arg(8), T(ss, t), T((2, 1, 1, 128), t)))
        p = f.op("tide.softmax %s axis = 3 : %s" % (sc, T(ss, t)))
        f.ret(p, ss, t, "softmax(scores / 8 + mask) over %s" % T(ss, t),
              lambda ins: softmax(quantize(quantize(ins[7] / 8, t) + ins[8], t), 3), "composite")
        # Two reductions of one row (a shared pass) and what reads both.
        mx = f.op("tide.reduce_max %s axes = [2] keepdims : %s" % (f.arg(0), T(xs, t)))
        sm = f.op("tide.reduce_sum %s axes = [2] keepdims : %s" % (f.arg(0), T(xs, t)))
        d = f.op("tide.sub %s, %s : %s, %s" % (f.arg(0), mx, T(xs, t), T((6, 7, 1), t)))
        d = f.op("tide.mul %s, %s : %s, %s" % (d, sm, T(xs, t), T((6, 7, 1), t)))
        f.ret(d, xs, t, "(x - max) * sum over rows of %s" % T(xs, t),
              lambda ins: (ins[0] - ins[0].max(axis=-1, keepdims=True))
              * quantize(ins[0].sum(axis=-1, keepdims=True), t), "composite")
        rng = rng_for(f.name)
        mask = np.zeros((2, 1, 1, 128))
        mask[0, ..., 100:] = -10000.0
        mask[1, ..., 120:] = -np.inf
        f.run("", [gen_float(rng, xs, -1, 3, t), gen_float(rng, xs, -1, 1, t),
                   gen_float(rng, (96,), 0.5, 1.5, t), gen_float(rng, (96,), -1, 1, t),
                   gen_float(rng, ys, -2, 4, t), gen_float(rng, (2000,), 0.5, 1.5, t),
                   gen_float(rng, zs, -2, 2, t), gen_float(rng, ss, -20, 20, t),
                   quantize(mask, t)])
        return f

    funcs = [float_group(t) for t in ("f32", "f16", "bf16", "f64")]

    # Integers: 3x - the row's sum (i8 sums accumulate in i32).
    def int_group(t, lo, hi):
        f = Func("row_groups_%s" % t, [((6, 7, 96), t)])
        three = f.op("tide.constant dense<3> : tensor<%s>" % t)
        x3 = f.op("tide.mul %s, %s : %s, %s" % (f.arg(0), three, T((6, 7, 96), t), T((), t)))
        sm = f.op("tide.reduce_sum %s axes = [2] keepdims : %s" % (f.arg(0), T((6, 7, 96), t)))
        y = f.op("tide.sub %s, %s : %s, %s" % (x3, sm, T((6, 7, 96), t), T((6, 7, 1), t)))
        f.ret(y, (6, 7, 96), t, "3x - row sum on %s" % T((6, 7, 96), t),
              lambda ins: wrap_check(3 * ins[0] - ins[0].sum(axis=-1, keepdims=True), t))
        f.run("", [gen_int(rng_for(f.name), (6, 7, 96), lo, hi)])
        return f

    return funcs + [int_group("i32", -100, 100), int_group("i8", -1, 1)]


def gen_attention():
    """Attention as exporters write it: softmax(f(Q K^T)) V with f a scale
    (multiply or divide by a constant) and an added mask, which a GPU runs
    as one fused kernel for f16/bf16 (f32 as separate kernels). The
    references round where the ops round: the scores after the product and
    after each step, the probabilities, the output."""
    funcs = []

    def attention(t, name, qs, ks, steps, mask_shape=None, k_transposed=False):
        """q: qs; k: ks (or K^T given as an argument when k_transposed);
        steps: ("mul"|"div", c) or ("mask",) in order."""
        vs = ks[:-2] + (ks[-1] if k_transposed else ks[-2], qs[-1])
        args = [(qs, t), (ks, t), (vs, t)] + ([(mask_shape, t)] if mask_shape else [])
        f = Func("attention_%s_%s" % (name, t), args)
        rank = len(qs)
        sq, d = qs[-2], qs[-1]
        if k_transposed:
            kt, sk = f.arg(1), ks[-1]
        else:
            sk = ks[-2]
            perm = list(range(rank - 2)) + [rank - 1, rank - 2]
            kt = f.op("tide.transpose %s perm = %s : %s" % (f.arg(1), perm, T(ks, t)))
        kts = qs[:-2] + (d, sk)
        ss = qs[:-2] + (sq, sk)
        x = f.op("tide.matmul %s, %s : %s, %s" % (f.arg(0), kt, T(qs, t), T(kts, t)))
        for step in steps:
            if step[0] == "mask":
                x = f.op("tide.add %s, %s : %s, %s" % (x, f.arg(3), T(ss, t), T(mask_shape, t)))
            else:
                c = f.op("tide.constant dense<%s> : tensor<%s>" % (literal(step[1], t), t))
                x = f.op("tide.%s %s, %s : %s, %s" % (step[0], x, c, T(ss, t), T((), t)))
        p = f.op("tide.softmax %s axis = %d : %s" % (x, rank - 1, T(ss, t)))
        o = f.op("tide.matmul %s, %s : %s, %s" % (p, f.arg(2), T(ss, t), T(vs, t)))

        def ref(ins):
            k = ins[1] if k_transposed else np.swapaxes(ins[1], -1, -2)
            x = quantize(np.matmul(ins[0], k), t)
            for step in steps:
                if step[0] == "mask":
                    x = quantize(x + ins[3], t)
                else:
                    c = quantize(step[1], t)
                    x = quantize(x * c if step[0] == "mul" else x / c, t)
            return np.matmul(quantize(softmax(x, -1), t), ins[2])

        f.ret(o, qs[:-1] + (d,), t, "softmax(f(q k^T)) v, %s, %s" % (T(qs, t), name), ref,
              "composite")
        rng = rng_for(f.name)
        inputs = [gen_float(rng, shape, -1, 1, t) for shape, _ in args[:3]]
        if mask_shape:
            mask = np.where(rng.random(mask_shape) < 0.2, -10000.0,
                            rng.standard_normal(mask_shape))
            # Some keys of every row masked with -inf, never all.
            mask[..., 1::7] = -np.inf
            inputs.append(quantize(mask, t))
        f.run("", inputs)
        return f

    def heads(t):
        """The exporter's head split and merge around it: q, k, v as
        (batch, seq, heads, d), K^T by the transpose (0, 2, 3, 1), the
        output transposed back to (batch, seq, heads, d)."""
        xs, ks = (2, 50, 3, 64), (2, 70, 3, 64)
        f = Func("attention_heads_%s" % t, [(xs, t), (ks, t), (ks, t)])
        q = f.op("tide.transpose %s perm = [0, 2, 1, 3] : %s" % (f.arg(0), T(xs, t)))
        kt = f.op("tide.transpose %s perm = [0, 2, 3, 1] : %s" % (f.arg(1), T(ks, t)))
        v = f.op("tide.transpose %s perm = [0, 2, 1, 3] : %s" % (f.arg(2), T(ks, t)))
        sc = f.op("tide.matmul %s, %s : %s, %s" % (q, kt, T((2, 3, 50, 64), t), T((2, 3, 64, 70), t)))
        c = f.op("tide.constant dense<%s> : tensor<%s>" % (literal(0.125, t), t))
        sc = f.op("tide.mul %s, %s : %s, %s" % (sc, c, T((2, 3, 50, 70), t), T((), t)))
        p = f.op("tide.softmax %s axis = 3 : %s" % (sc, T((2, 3, 50, 70), t)))
        o = f.op("tide.matmul %s, %s : %s, %s" % (p, v, T((2, 3, 50, 70), t), T((2, 3, 70, 64), t)))
        o = f.op("tide.transpose %s perm = [0, 2, 1, 3] : %s" % (o, T((2, 3, 50, 64), t)))

        def ref(ins):
            q, k, v = (np.transpose(x, (0, 2, 1, 3)) for x in ins)
            x = quantize(quantize(np.matmul(q, np.swapaxes(k, -1, -2)), t) * 0.125, t)
            o = np.matmul(quantize(softmax(x, -1), t), v)
            return np.transpose(o, (0, 2, 1, 3))

        f.ret(o, xs, t, "heads split and merged around attention, %s" % T(xs, t), ref,
              "composite")
        rng = rng_for(f.name)
        f.run("", [gen_float(rng, shape, -1, 1, t) for shape in (xs, ks, ks)])
        return f

    for t in ("f16", "bf16", "f32"):
        # BERT's form: / sqrt(d), + mask (batch, 1, 1, keys); keys past a tile.
        funcs.append(attention(t, "bert", (2, 3, 100, 64), (2, 3, 77, 64),
                               [("div", 8.0), ("mask",)], (2, 1, 1, 77)))
    for t in ("f16", "bf16"):
        # Rank 3, K^T an argument, head dim 32, a multiply.
        funcs.append(attention(t, "mul", (5, 130, 32), (5, 32, 100),
                               [("mul", 0.1767767)], k_transposed=True))
        # 200 keys: more than the fused kernel takes (the separate ops).
        funcs.append(attention(t, "long", (2, 2, 20, 64), (2, 2, 200, 64),
                               [("div", 8.0), ("mask",)], (2, 1, 1, 200)))
        # Head dim 128; a full mask first, then a division by a non-power of 2.
        funcs.append(attention(t, "d128", (1, 2, 70, 128), (1, 2, 64, 128),
                               [("mask",), ("div", 11.3137)], (1, 2, 70, 64)))
        # No scale, no mask; a mask of (query, key) broadcast over batches.
        funcs.append(attention(t, "plain", (2, 4, 16, 64), (2, 4, 16, 64), []))
        funcs.append(attention(t, "mask2d", (3, 40, 64), (3, 40, 64),
                               [("mask",)], (40, 40)))
        funcs.append(heads(t))
    return funcs


# ---------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------


class Suite:
    def __init__(self, args):
        self.bin = os.path.abspath(args.tide_bin)
        self.tmp = os.path.abspath(args.tmp)
        self.verbose = args.verbose
        self.filter = re.compile(args.filter) if args.filter else None
        self.lock = threading.Lock()
        self.passed = 0
        self.failed = 0
        self.compiles = 0
        self.runs = 0
        self.target = args.target
        self.compile_flags = args.compile_flag or []
        self.build_only = args.build_only
        self.prebuilt = args.prebuilt
        self.wrap = args.wrap.split() if args.wrap else []

    # -- bookkeeping --
    def record(self, name, ok, detail=""):
        if self.build_only:
            return
        with self.lock:
            if ok:
                self.passed += 1
                if self.verbose:
                    print("PASS %s" % name, flush=True)
            else:
                self.failed += 1
                print("FAIL %s: %s" % (name, detail), flush=True)

    def tool(self, name):
        path = os.path.join(self.bin, name)
        for _ in range(120):          # the build may briefly replace the binary
            if os.access(path, os.X_OK):
                return path
            time.sleep(0.5)
        return path

    def compile(self, mlir_path, so_path):
        with self.lock:
            self.compiles += 1
        saved = so_path + ".mlir"
        if self.prebuilt:
            # Compiled elsewhere from the same text, or failed there.
            with open(mlir_path) as fh:
                text = fh.read()
            if os.path.exists(so_path + ".err"):
                with open(so_path + ".err") as fh:
                    err, line = fh.read().split("\n", 1)
                return False, err, (int(line) if line.strip() else None)
            if not os.path.exists(so_path) or not os.path.exists(saved):
                return False, "not prebuilt: %s" % so_path, None
            with open(saved) as fh:
                if fh.read() != text:
                    return False, "the prebuilt module was generated from other text", None
            return True, "", None
        try:
            p = subprocess.run([self.tool("tide-compile"), mlir_path, "-o", so_path,
                                "--target=" + self.target, "--no-remarks"] + self.compile_flags,
                               capture_output=True, text=True, timeout=300)
        except subprocess.TimeoutExpired:
            return False, "tide-compile timed out", None
        if p.returncode == 0:
            shutil.copyfile(mlir_path, saved)
        elif os.path.exists(saved):
            os.remove(saved)
        if p.returncode != 0:
            why = ("crashed with signal %d" % -p.returncode if p.returncode < 0
                   else "exit %d" % p.returncode)
            m = re.search(re.escape(mlir_path) + r":(\d+):\d+: error", p.stderr)
            err = "tide-compile %s failed (%s): %s" % (
                os.path.basename(mlir_path), why, first_error(p.stderr))
            line = int(m.group(1)) if m and p.returncode > 0 else None
            with open(so_path + ".err", "w") as fh:
                fh.write(err.replace("\n", " ") + "\n" + ("" if line is None else str(line)))
            return False, err, line
        return True, "", None

    def tide_run(self, so, entry, inputs, outputs, extra=()):
        with self.lock:
            self.runs += 1
        cmd = self.wrap + [self.tool("tide-run"), so]
        if self.build_only and "--list" not in extra:
            return subprocess.CompletedProcess(cmd, 0, "", "")
        if entry:
            cmd.append("--entry=" + entry)
        cmd += ["--input=" + i for i in inputs] + ["--output=" + o for o in outputs]
        cmd += list(extra)
        try:
            return subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        except subprocess.TimeoutExpired:
            return subprocess.CompletedProcess(cmd, -999, "", "timed out")

    def load_check(self, so):
        p = self.tide_run(so, None, [], [], ["--list"])
        if p.returncode != 0:
            return False, "tide-run cannot load it: %s" % first_error(p.stderr)
        return True, ""

    # -- a module of generated functions --
    def run_module(self, name, funcs):
        if self.filter:
            funcs = [f for f in funcs if self.filter.search(f.name)]
        if not funcs:
            return
        d = os.path.join(self.tmp, name)
        os.makedirs(d, exist_ok=True)
        self.build_and_run(d, name, funcs, split=True)

    def build_and_run(self, d, name, funcs, split):
        """Compiles funcs as one module and runs them. A compile error whose
        line lies in one function fails that function only and the rest is
        retried; any other failure (a crash, a library that does not load)
        is narrowed down by compiling each function alone."""
        mlir = os.path.join(d, name + ".mlir")
        so = os.path.join(d, name + ".so")
        text, spans = "// Generated by numerics.py\n", []
        for f in funcs:
            first = text.count("\n") + 1
            text += f.text() + "\n"
            spans.append((first, text.count("\n"), f))
        with open(mlir, "w") as fh:
            fh.write(text)
        ok, err, line = self.compile(mlir, so)
        culprits = []
        if ok:
            ok, err = self.load_check(so)
            m = re.search(r"undefined symbol: (\S+)", err)
            if m:
                users = self.symbol_users(so, m.group(1))
                culprits = [f for f in funcs if f.name in users]
        else:
            culprits = [f for a, b, f in spans if line is not None and a <= line <= b]
        if ok:
            for f in funcs:
                self.run_func(so, f, d)
            return
        if culprits and len(funcs) > 1:
            for f in culprits:
                self.fail_func(f, err if len(funcs) == 1 else
                               err + " (in a module of %d functions; this one is the culprit)" % len(funcs))
            rest = [f for f in funcs if f not in culprits]
            if rest:
                self.build_and_run(d, name + "_", rest, split)
            return
        if len(funcs) == 1 or not split:
            for f in funcs:
                self.fail_func(f, err)
            return
        for f in funcs:
            self.build_and_run(d, f.name, [f], split=False)

    def symbol_users(self, so, symbol):
        """Names of the functions in `so` that call `symbol` (from objdump);
        empty when that cannot be told."""
        objdump = shutil.which("objdump")
        if not objdump:
            return set()
        try:
            p = subprocess.run([objdump, "-d", "--no-show-raw-insn", so],
                               capture_output=True, text=True, timeout=60)
        except Exception:
            return set()
        users, current = set(), None
        needle = "<%s@plt>" % symbol
        for l in p.stdout.splitlines():
            m = re.match(r"^[0-9a-f]+ <([^>]+)>:$", l)
            if m:
                current = m.group(1)
                if current.startswith("_mlir_ciface_"):
                    current = current[len("_mlir_ciface_"):]
                current = current.split(".")[0]
            elif needle in l and current:
                users.add(current)
        return users

    def fail_func(self, f, err):
        for run_label, _ in f.runs:
            for r in f.results:
                self.record(case_name(f, run_label, r[2]), False, err)

    def run_func(self, so, f, d):
        for k, (run_label, inputs) in enumerate(f.runs):
            stem = os.path.join(d, "%s.r%d" % (f.name, k))
            in_paths = []
            for i, (x, (_, t)) in enumerate(zip(inputs, f.args)):
                path = "%s.in%d.npy" % (stem, i)
                np.save(path, encode(x, t))
                in_paths.append(path)
            out_paths = ["%s.out%d.npy" % (stem, i) for i in range(len(f.results))]
            p = self.tide_run(so, f.name, in_paths, out_paths)
            if p.returncode != 0:
                why = first_error(p.stderr) or "exit %d" % p.returncode
                if p.returncode < 0:
                    why = "crashed with signal %d %s" % (-p.returncode, why)
                for r in f.results:
                    self.record(case_name(f, run_label, r[2]), False, "tide-run: " + why)
                continue
            for (ssa, mtype, label, ref, t, cls), path in zip(f.results, out_paths):
                name = case_name(f, run_label, label)
                try:
                    expected = ref(inputs)
                except Exception as e:  # a bug in this script
                    self.record(name, False, "reference failed: %r" % e)
                    continue
                try:
                    got = np.load(path)
                except Exception as e:
                    self.record(name, False, "cannot read the output: %s" % e)
                    continue
                ok, detail = compare(got, expected, t, cls, name)
                if not ok:
                    detail += " [%s]" % describe_inputs(inputs, f.args)
                self.record(name, ok, detail)


def case_name(f, run_label, label):
    return "%s%s: %s" % (f.name, "[%s]" % run_label if run_label else "", label)


def first_error(stderr):
    lines = [l for l in stderr.splitlines() if l.strip()]
    for l in lines:
        if "error" in l.lower():
            return l.strip()[:400]
    return (lines[0].strip()[:400] if lines else "")


def describe_inputs(inputs, args):
    parts = []
    for x, (_, t) in zip(inputs, args):
        x = np.asarray(x)
        if x.size <= 8:
            parts.append("%s%s=%s" % (t, list(x.shape), np.array2string(x.reshape(-1), separator=",", precision=17)))
        else:
            parts.append("%s%s" % (t, list(x.shape)))
    return "inputs: " + "; ".join(parts)


MARGINS = {}          # (type, class) -> (worst err / allowed, where), for --margins
MARGINS_LOCK = threading.Lock()


def note_margin(t, cls, ratio, where):
    with MARGINS_LOCK:
        if ratio > MARGINS.get((t, cls), (-1.0, ""))[0]:
            MARGINS[(t, cls)] = (ratio, where)


def compare(got, expected, t, cls, where=""):
    """Checks storage type, shape and values. Returns (ok, detail)."""
    if got.dtype != STORAGE[t]:
        return False, "result dtype %s, expected %s (%s)" % (got.dtype.str, STORAGE[t].str, t)
    expected = np.asarray(expected)
    if tuple(got.shape) != tuple(expected.shape):
        return False, "result shape %s, expected %s" % (tuple(got.shape), tuple(expected.shape))
    g = decode(got, t)
    if t in UINTS:
        e = to_unsigned(expected, t)
        bad = g != e
        if not bad.any():
            return True, ""
        return False, mismatch(g, e, bad, "exact")
    if t not in FLOATS:
        e = expected.astype(g.dtype)
        bad = g != e
        if not bad.any():
            return True, ""
        return False, mismatch(g, e, bad, "exact")
    e = expected.astype(np.longdouble)
    if cls == "exact":
        rtol, atol = 0.0, 0.0
    else:
        rtol, atol = TOLERANCES[t][cls]
    both_nan = np.isnan(g) & np.isnan(e)
    inf = np.isinf(e) | np.isinf(g)
    with np.errstate(invalid="ignore"):
        err = np.abs(g - e)
        ok = (err <= atol + rtol * np.abs(e)) & ~inf
    ok |= both_nan
    ok |= inf & (g == e)
    finite = ~inf & ~np.isnan(g) & ~np.isnan(e)
    if finite.any():
        allowed = atol + rtol * np.abs(e[finite])
        err_f = err[finite]
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(allowed > 0, err_f / np.where(allowed > 0, allowed, 1),
                             np.where(err_f > 0, np.inf, 0.0))
        note_margin(t, cls, float(ratio.max()), where)
    bad = ~ok
    if not bad.any():
        return True, ""
    return False, mismatch(g, e, bad, "rtol=%g atol=%g" % (rtol, atol))


def mismatch(g, e, bad, tol):
    idx = np.argwhere(bad)
    first = tuple(int(i) for i in idx[0]) if g.ndim else ()
    gv, ev = g[first] if g.ndim else g[()], e[first] if e.ndim else e[()]
    detail = "%d of %d elements differ (%s); first at %s: got %r expected %r" % (
        int(bad.sum()), bad.size, tol, list(first), fmt(gv), fmt(ev))
    if g.dtype.kind == "f":
        with np.errstate(invalid="ignore", divide="ignore"):
            err = np.abs(g - e)[bad]
            rel = (err / np.abs(e[bad]))
        err, rel = err[np.isfinite(err)], rel[np.isfinite(rel)]
        if err.size:
            detail += "; max abs err %.3g, max rel err %.3g" % (float(err.max()),
                                                                 float(rel.max()) if rel.size else float("nan"))
    return detail


def fmt(v):
    if isinstance(v, (np.floating, float)):
        return float(v)
    if isinstance(v, (np.bool_, bool)):
        return bool(v)
    return int(v)


# ---------------------------------------------------------------------------
# Seed examples
# ---------------------------------------------------------------------------


def run_example_exp(s, src, t):
    name = "example %s" % os.path.basename(src)
    d = os.path.join(s.tmp, "ex_exp_" + t)
    os.makedirs(d, exist_ok=True)
    so = os.path.join(d, "exp.so")
    ok, err, _ = s.compile(src, so)
    if not ok:
        return s.record(name, False, err)
    rng = rng_for(name)
    x = gen_float(rng, (230400,), -20, 20, t)
    x[:4] = [0.0, 1.0, -1.0, 700.0 if t == "f64" else 80.0]
    np.save(os.path.join(d, "x.npy"), encode(x, t))
    p = s.tide_run(so, "exp", [os.path.join(d, "x.npy")], [os.path.join(d, "y.npy")])
    if p.returncode != 0:
        return s.record(name, False, "tide-run: " + first_error(p.stderr))
    ref = np.exp(x.astype(np.longdouble)) if t == "f64" else np.exp(x)
    ok, detail = compare(np.load(os.path.join(d, "y.npy")), ref, t, "exp", name)
    s.record(name + " vs np.exp (%s)" % t, ok, detail)


def mlp_reference(ins):
    x, labels, w1, b1, w2, b2, w3, b3 = [np.asarray(a, dtype=np.float64) for a in ins]
    e = elu(1.0)
    h1 = e(x @ w1 + b1)
    h2 = e(h1 @ w2 + b2)
    logits = h2 @ w3 + b3
    probs = softmax(logits, 1)
    loss = np.mean(-np.sum(labels * log_softmax(logits, 1), axis=1))
    return probs, np.array(loss)


def run_example_mlp(s, src, t):
    name = "example %s" % os.path.basename(src)
    d = os.path.join(s.tmp, "ex_mlp_" + t)
    os.makedirs(d, exist_ok=True)
    so = os.path.join(d, "mlp.so")
    ok, err, _ = s.compile(src, so)
    if not ok:
        s.record(name + " probs", False, err)
        return s.record(name + " loss", False, err)
    rng = rng_for(name)
    x = rng.uniform(0, 1, (256, 784))
    labels = np.eye(10)[rng.integers(0, 10, 256)]
    shapes = [(784, 256), (256,), (256, 256), (256,), (256, 10), (10,)]
    params = [rng.normal(0, 0.05, sh) for sh in shapes]
    ins = [quantize(a, t) for a in [x, labels] + params]
    paths = []
    for i, a in enumerate(ins):
        paths.append(os.path.join(d, "in%d.npy" % i))
        np.save(paths[-1], encode(a, t))
    outs = [os.path.join(d, "probs.npy"), os.path.join(d, "loss.npy")]
    p = s.tide_run(so, "mlp", paths, outs)
    if p.returncode != 0:
        s.record(name + " probs", False, "tide-run: " + first_error(p.stderr))
        return s.record(name + " loss", False, "tide-run: " + first_error(p.stderr))
    probs, loss = mlp_reference(ins)
    for label, path, ref in (("probs", outs[0], probs), ("loss", outs[1], loss)):
        ok, detail = compare(np.load(path), ref, t, "composite", name + " " + label)
        s.record("%s %s (%s)" % (name, label, t), ok, detail)
    got = np.load(outs[0]).astype(np.float64)
    s.record("%s probs rows sum to 1 (%s)" % (name, t),
             np.allclose(got.sum(axis=1), 1, rtol=0, atol=TOLERANCES[t]["composite"][0] * 10),
             "row sums %s" % got.sum(axis=1)[:4])


def run_example_identity(s, src):
    name = "example identity.mlir"
    d = os.path.join(s.tmp, "ex_identity")
    os.makedirs(d, exist_ok=True)
    so = os.path.join(d, "identity.so")
    ok, err, _ = s.compile(src, so)             # compiled once, run for every batch
    big = rng_for(name).standard_normal((32, 3, 448, 448), dtype=np.float32)
    for b in (1, 2, 4, 8, 16, 32):
        case = "%s batch %d" % (name, b)
        if not ok:
            s.record(case, False, err)
            continue
        x = big[:b]
        xi, yo = os.path.join(d, "x%d.npy" % b), os.path.join(d, "y%d.npy" % b)
        np.save(xi, x)
        p = s.tide_run(so, "identity", [xi], [yo])
        if p.returncode != 0:
            s.record(case, False, "tide-run: " + first_error(p.stderr + p.stdout))
        else:
            y = np.load(yo)
            same = y.dtype == x.dtype and y.shape == x.shape and \
                np.array_equal(y.view(np.uint32), x.view(np.uint32))
            s.record(case, same, "result differs from the input (dtype %s shape %s)" % (y.dtype, y.shape))
        for path in (xi, yo):
            if os.path.exists(path):
                os.remove(path)


# ---------------------------------------------------------------------------
# Bad input at run time, and compiler robustness
# ---------------------------------------------------------------------------

BAD_MODULE = """
func.func @f(%x: tensor<2x3xf32>, %y: tensor<?xi32>) -> (tensor<2x3xf32>, tensor<?xi32>) {
  %0 = tide.neg %x : tensor<2x3xf32>
  %1 = tide.neg %y : tensor<?xi32>
  return %0, %1 : tensor<2x3xf32>, tensor<?xi32>
}
func.func @g(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tide.abs %x : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
"""


def run_bad_inputs(s):
    d = os.path.join(s.tmp, "bad")
    os.makedirs(d, exist_ok=True)
    mlir, so = os.path.join(d, "bad.mlir"), os.path.join(d, "bad.so")
    with open(mlir, "w") as fh:
        fh.write(BAD_MODULE)
    ok, err, _ = s.compile(mlir, so)
    P = lambda n: os.path.join(d, n)
    good_x = np.arange(6, dtype=np.float32).reshape(2, 3)
    good_y = np.arange(4, dtype=np.int32)
    np.save(P("x.npy"), good_x)
    np.save(P("y.npy"), good_y)
    np.save(P("x_f64.npy"), good_x.astype(np.float64))
    np.save(P("x_rank1.npy"), good_x.reshape(6))
    np.save(P("x_2x4.npy"), np.zeros((2, 4), np.float32))
    np.save(P("x_c64.npy"), good_x.astype(np.complex64))
    np.save(P("y_u32.npy"), good_y.astype(np.uint32))
    np.save(P("x_fortran.npy"), np.asfortranarray(np.arange(6, dtype=np.float32).reshape(3, 2).T))
    with open(P("corrupt.npy"), "wb") as fh:
        fh.write(rng_for("corrupt").integers(0, 256, 200, dtype=np.uint8).tobytes())
    raw = open(P("x.npy"), "rb").read()
    with open(P("trunc_data.npy"), "wb") as fh:
        fh.write(raw[:-5])
    with open(P("trunc_header.npy"), "wb") as fh:
        fh.write(raw[:9])
    # Headers that were misread before: "(2 3)" as (2,), fortran_order 1 as
    # C order (same lengths, so the data stays where it was).
    assert b"(2, 3)" in raw and b"False" in raw
    with open(P("shape_nocomma.npy"), "wb") as fh:
        fh.write(raw.replace(b"(2, 3)", b"(2 3) ", 1))
    with open(P("order_one.npy"), "wb") as fh:
        fh.write(raw.replace(b"False", b"1    ", 1))
    X, Y = P("x.npy"), P("y.npy")
    o1, o2, o3 = P("o1.npy"), P("o2.npy"), P("o3.npy")
    cases = [
        ("wrong dtype of an input", "f", [P("x_f64.npy"), Y], [o1, o2], [],
         "input 0 of @f has dtype f64 but the function expects f32[2x3]"),
        ("unsigned data for a signed input", "f", [X, P("y_u32.npy")], [o1, o2], [],
         "input 1 of @f has dtype ui32 but the function expects i32[?]"),
        ("wrong rank", "f", [P("x_rank1.npy"), Y], [o1, o2], [],
         "input 0 of @f has rank 1 (shape [6]) but the function expects f32[2x3]"),
        ("wrong static dim size", "f", [P("x_2x4.npy"), Y], [o1, o2], [],
         "input 0 of @f has shape [2x4] but the function expects f32[2x3]"),
        ("missing .npy", "f", [P("nonexistent.npy"), Y], [o1, o2], [],
         "cannot open '%s'" % P("nonexistent.npy")),
        ("corrupt .npy (random bytes)", "f", [P("corrupt.npy"), Y], [o1, o2], [],
         "is not a .npy file (bad magic)"),
        ("truncated .npy (data)", "f", [P("trunc_data.npy"), Y], [o1, o2], [],
         "is truncated: expected 24 bytes of data"),
        ("truncated .npy (header)", "f", [P("trunc_header.npy"), Y], [o1, o2], [],
         "is truncated"),
        ("unsupported dtype (complex64)", "f", [P("x_c64.npy"), Y], [o1, o2], [],
         "which Tide does not support"),
        ("Fortran-ordered .npy", "f", [P("x_fortran.npy"), Y], [o1, o2], [],
         "is in Fortran order"),
        ("a shape without commas in the .npy header", "f", [P("shape_nocomma.npy"), Y],
         [o1, o2], [], "has a malformed shape (2 3)"),
        ("fortran_order neither True nor False", "f", [P("order_one.npy"), Y], [o1, o2], [],
         "has a malformed fortran_order '1'"),
        ("function that does not exist", "nosuch", [X, Y], [o1, o2], [],
         "no function named 'nosuch' in the module (functions: @f @g)"),
        ("no --entry with two functions", None, [X, Y], [o1, o2], [],
         "the module has 2 functions; choose one with --entry"),
        ("too few inputs", "f", [X], [o1, o2], [], "@f takes 2 input(s) but 1 were given"),
        ("too many inputs", "f", [X, Y, Y], [o1, o2], [], "@f takes 2 input(s) but 3 were given"),
        ("too few outputs", "f", [X, Y], [o1], [],
         "@f has 2 result(s) but 1 --output file(s) were given"),
        ("too many outputs", "f", [X, Y], [o1, o2, o3], [],
         "@f has 2 result(s) but 3 --output file(s) were given"),
        ("unknown option", "f", [X, Y], [o1, o2], ["--bogus"], "unknown option '--bogus'"),
        ("missing module", "f", [X, Y], [o1, o2], None, "cannot read '%s'" % P("missing.so")),
    ]
    for label, entry, ins, outs, extra, phrase in cases:
        name = "bad input: %s" % label
        if not ok:
            s.record(name, False, err)
            continue
        for o in (o1, o2, o3):
            if os.path.exists(o):
                os.remove(o)
        module = so if extra is not None else P("missing.so")
        p = s.tide_run(module, entry, ins, outs, extra or [])
        problems = []
        if p.returncode == 0:
            problems.append("exit status 0")
        elif p.returncode < 0:
            problems.append("crashed with signal %d" % -p.returncode)
        if "tide-run: error:" not in p.stderr:
            problems.append("no 'tide-run: error:' on stderr")
        if phrase not in p.stderr:
            problems.append("stderr lacks %r" % phrase)
        if any(os.path.exists(o) for o in outs):
            problems.append("an output file was written")
        s.record(name, not problems, "; ".join(problems) + "; stderr: %r" % p.stderr.strip()[:300])
    # The good call works (so the failures above are about the input).
    if ok:
        p = s.tide_run(so, "f", [X, Y], [o1, o2])
        good = p.returncode == 0 and np.array_equal(np.load(o1), -good_x) and \
            np.array_equal(np.load(o2), -good_y)
        s.record("bad input: control run with good inputs", good, p.stderr.strip()[:300])


ROBUSTNESS = [
    # (label, module text): tide-compile must reject or compile it, never crash.
    ("broadcast_to a dynamic dim the input does not determine", """
func.func @bt(%x: tensor<3xf32>) -> tensor<?x3xf32> {
  %0 = tide.broadcast_to %x : tensor<3xf32> to tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}
"""),
]


def run_robustness(s):
    d = os.path.join(s.tmp, "robust")
    os.makedirs(d, exist_ok=True)
    for k, (label, text) in enumerate(ROBUSTNESS):
        mlir, so = os.path.join(d, "r%d.mlir" % k), os.path.join(d, "r%d.so" % k)
        with open(mlir, "w") as fh:
            fh.write(text)
        p = subprocess.run([s.tool("tide-compile"), mlir, "-o", so, "--target=cpu", "--no-remarks"],
                           capture_output=True, text=True, timeout=300)
        with s.lock:
            s.compiles += 1
        ok = p.returncode == 0 or (p.returncode > 0 and "error" in p.stderr
                                   and "Stack dump" not in p.stderr)
        s.record("compiler robustness: %s" % label, ok,
                 "tide-compile exit %d%s: %s" % (p.returncode,
                                                  " (signal %d)" % -p.returncode if p.returncode < 0 else "",
                                                  first_error(p.stderr) or p.stderr.strip()[:200]))


def run_precision_extra(s):
    """chain_f64 must not equal the same chain computed in f32."""
    d = os.path.join(s.tmp, "precision")
    funcs = gen_precision()
    xs = 1.0 + np.arange(1, 33) * 1e-9
    for f in funcs[:2]:
        f.run("", [xs])
    s.run_module("precision", funcs)
    name = "f64 no-demotion: chain_f64 differs from chain_f32"
    try:
        y64 = np.load(os.path.join(d, "chain_f64.r0.out0.npy"))
        y32 = np.load(os.path.join(d, "chain_f32.r0.out0.npy"))
    except Exception as e:
        return s.record(name, False, "no results: %s" % e)
    diff = y64 - xs * xs
    ok = (y64.dtype == np.float64 and y32.dtype == np.float32 and
          np.all(y64 != y32.astype(np.float64)) and np.all(np.abs(diff - 1e-10) < 1e-12))
    s.record(name, ok, "y64 - x*x = %s (expected 1e-10 each); y32 = %s" % (diff[:3], y32[:3]))


# ---------------------------------------------------------------------------


# Libraries a machine with only the NVIDIA driver and the C/C++ runtimes has.
SYSTEM_LIBRARIES = ("libc.so", "libm.so", "libmvec.so", "libstdc++.so", "libgcc_s.so", "ld-linux",
                    "libdl.so", "libpthread.so", "librt.so", "libcuda.so", "libTideCudaRuntime.so")


def copy_module_libraries(tmp):
    """With --build-only: copies the libraries the built modules load (libomp
    for host loops across threads, OpenBLAS, oneDNN), other than the system's
    and Tide's runtime (build/lib), into TMP/lib, where test/GPU/run-suite.sh
    finds them on a machine without LLVM. Returns their names."""
    import glob
    import shutil
    found = set()
    for so in glob.glob(os.path.join(tmp, "*", "*.so")):
        p = subprocess.run(["ldd", so], capture_output=True, text=True)
        for line in p.stdout.splitlines():
            parts = line.split()
            if len(parts) >= 3 and parts[1] == "=>" and parts[2].startswith("/"):
                if not os.path.basename(parts[2]).startswith(SYSTEM_LIBRARIES):
                    found.add(parts[2])
    if not found:
        return []
    os.makedirs(os.path.join(tmp, "lib"), exist_ok=True)
    for f in sorted(found):
        shutil.copy(os.path.realpath(f), os.path.join(tmp, "lib", os.path.basename(f)))
    return sorted(os.path.basename(f) for f in found)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tide-bin", required=True, help="folder with tide-compile and tide-run")
    ap.add_argument("--tmp", required=True, help="scratch folder (emptied first)")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("-k", "--filter", help="only generated functions whose name matches")
    ap.add_argument("-v", "--verbose", action="store_true", help="print passing checks too")
    ap.add_argument("--skip-examples", action="store_true")
    ap.add_argument("--timing", action="store_true", help="print how long each task took")
    ap.add_argument("--target", default="cpu", help="placement target for tide-compile")
    ap.add_argument("--compile-flag", action="append",
                    help="extra tide-compile flag (repeatable), e.g. --cpu-fallback")
    ap.add_argument("--build-only", action="store_true",
                    help="compile every module into --tmp and run nothing")
    ap.add_argument("--prebuilt", action="store_true",
                    help="run the libraries --build-only left in --tmp")
    ap.add_argument("--wrap", help="run tide-run under this command "
                    "(e.g. 'compute-sanitizer --error-exitcode=99')")
    ap.add_argument("--margins", action="store_true",
                    help="print the worst error relative to its tolerance per type and class")
    args = ap.parse_args()

    start = time.time()
    if not args.prebuilt:
        if os.path.isdir(args.tmp):
            shutil.rmtree(args.tmp)
        elif os.path.exists(args.tmp):
            os.remove(args.tmp)
        os.makedirs(args.tmp)
    s = Suite(args)
    table = load_ops(s.bin, args.target, os.path.join(s.tmp, "ops.json"), args.prebuilt)
    # Every module is generated up front, so that the coverage check sees them all.
    types = list(reversed(table["dtypes"]))   # the widest floats first: they take longest
    modules = {}
    for t in types:
        modules["ops_" + t] = gen_dtype_module(t)
        modules["shape_" + t] = gen_shape_module(t)
    modules["cast"] = gen_cast_module()
    coverage = coverage_problems(modules)
    for op, line in coverage:
        print("FAIL tide.%s: %s" % (op, line), flush=True)
    examples = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples")
    examples = os.path.normpath(examples)

    tasks = []   # (name, callable)
    if not args.skip_examples and not args.filter:
        tasks += [
            ("identity", lambda: run_example_identity(s, os.path.join(examples, "identity.mlir"))),
            ("mlp_f64", lambda: run_example_mlp(s, os.path.join(examples, "mlp_f64.mlir"), "f64")),
            ("mlp_f32", lambda: run_example_mlp(s, os.path.join(examples, "mlp_f32.mlir"), "f32")),
            ("exp_f64", lambda: run_example_exp(s, os.path.join(examples, "exp_f64.mlir"), "f64")),
            ("exp_f32", lambda: run_example_exp(s, os.path.join(examples, "exp_f32.mlir"), "f32")),
        ]
    for name, funcs in modules.items():
        tasks.append((name, (lambda name, funcs: lambda: s.run_module(name, funcs))(name, funcs)))
    # GPU-resident tensors only where they can run: a GPU target, no CPU
    # fallback wanted.
    resident = args.target != "cpu" and "--cpu-fallback" not in (args.compile_flag or [])
    tasks.append(("mixed", lambda: s.run_module("mixed", gen_mixed(resident))))
    tasks.append(("round_once", lambda: s.run_module("round_once", gen_round_once())))
    tasks.append(("row_groups", lambda: s.run_module("row_groups", gen_row_groups())))
    tasks.append(("attention", lambda: s.run_module("attention", gen_attention())))
    if not args.filter:
        tasks.append(("precision", lambda: run_precision_extra(s)))
        # Bad inputs never reach the GPU, and a wrapper such as
        # compute-sanitizer does not pass their exit status through.
        if not args.wrap:
            tasks.append(("bad inputs", lambda: run_bad_inputs(s)))
        if not args.prebuilt:
            tasks.append(("robustness", lambda: run_robustness(s)))

    timings = []

    def timed(name, task):
        t0 = time.time()
        try:
            return task()
        finally:
            timings.append((time.time() - t0, name, t0 - start))

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(timed, n, t) for n, t in tasks]
        for fut in futures:
            try:
                fut.result()
            except Exception as e:  # a bug in this script: count it, keep going
                if args.build_only and isinstance(e, FileNotFoundError):
                    continue                # build-only runs write no results to read
                import traceback
                traceback.print_exc()
                s.record("internal error", False, repr(e))

    elapsed = time.time() - start
    if args.margins:
        print("worst error / allowed error, per type and class of check:")
        for (t, cls), (ratio, where) in sorted(MARGINS.items()):
            print("  %-5s %-10s %8.3g  %s" % (t, cls, ratio, where))
    if args.timing:
        for dt, what, t0 in sorted(timings, reverse=True):
            print("  %6.2f s (started at %5.1f s) %s" % (dt, t0, what))
    if args.build_only:
        copied = copy_module_libraries(args.tmp)
        print("built into %s (%d compiles, %.1f s)%s" % (
            args.tmp, s.compiles, elapsed,
            "; libraries the modules load copied into %s/lib: %s" % (args.tmp, " ".join(copied))
            if copied else ""))
        if coverage:
            print("%d ops untested (see FAIL above)" % len(coverage))
        return 1 if coverage else 0
    print("(%d compiles, %d tide-run calls, %.1f s)" % (s.compiles, s.runs, elapsed))
    print("%d passed, %d failed" % (s.passed, s.failed + len(coverage)))
    return 1 if s.failed or coverage else 0


if __name__ == "__main__":
    sys.exit(main())
