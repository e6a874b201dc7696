#!/usr/bin/env python3
"""The registry walk: every (op, dtype) pair the built-in GPU target claims
must lower to GPU code that ptxas accepts.

Reads the ops and their kernels from
`tide-opt --tide-list-kernels="target=T format=json"` (the facts each op declares
in ODS), writes one function per claimed GPU pair from a generator per lowering
family (the op's name is the mnemonic; one module per dtype, shapes that
exercise the family's general path), and compiles each module with
`tide-compile --target=T --policy=require-gpu`: require-gpu fails unless every
op is placed on the GPU, and gpu-module-to-binary runs ptxas for the target's
chip. A module that fails is split into single functions to name the pair. An
op whose family has no generator here fails, named (add a generator to
FAMILIES). Prints one line per failing pair and `N pairs lowered, M failed`.

Usage: registry_walk.py --tide-bin BUILD/bin --tmp DIR [--target h200]
"""
import argparse
import json
import os
import subprocess
import sys


def T(shape, t):
    return "tensor<%s%s>" % ("".join("%sx" % d for d in shape), t)


A, B = (4, 8), (8,)


# One generator per lowering family ("family" in the JSON): (op, t) -> (signature
# args, body lines, result type) of a function that applies `op` to `t`.
def unary(op, t):
    a = T(A, t)
    return [a], ["%%r = tide.%s %%a0 : %s" % (op, a)], a


def binary(op, t):  # with NumPy broadcasting of the second operand
    a, b = T(A, t), T(B, t)
    return [a, b], ["%%r = tide.%s %%a0, %%a1 : %s, %s" % (op, a, b)], a


def compare(op, t):
    a, b = T(A, t), T(B, t)
    return [a, b], ["%%r = tide.%s lt, %%a0, %%a1 : %s, %s" % (op, a, b)], T(A, "i1")


def select(op, t):
    a, m = T(A, t), T(A, "i1")
    return [m, a, a], ["%%r = tide.%s %%a0, %%a1, %%a2 : %s, %s, %s" % (op, m, a, a)], a


def cast(op, t):
    a, other = T(A, t), "f32" if t != "f32" else "i32"
    if op == "bitcast":  # a type of the same width
        other = {"i1": "i1", "i8": "ui8", "ui8": "i8", "i16": "f16", "ui16": "bf16", "f16": "i16",
                 "bf16": "ui16", "i32": "f32", "ui32": "f32", "f32": "i32", "i64": "f64",
                 "ui64": "f64", "f64": "i64"}[t]
    return [a], ["%%r = tide.%s %%a0 : %s to %s" % (op, a, T(A, other))], T(A, other)


def matmul(op, t):
    x, y = T((16, 32), t), T((32, 8), t)
    return [x, y], ["%%r = tide.%s %%a0, %%a1 : %s, %s" % (op, x, y)], T((16, 8), t)


def reduction(op, t):
    big = T((4, 5000), t)  # long rows: the split reduction
    return [big], ["%%r = tide.%s %%a0 axes = [1] : %s" % (op, big)], T((4,), t)


def arg_reduction(op, t):
    a = T(A, t)
    return [a], ["%%r = tide.%s %%a0 axes = [1] : %s" % (op, a)], T((4,), "i64")


def reshape(op, t):
    a = T(A, t)
    return [a], ["%%r = tide.%s %%a0 : %s to %s" % (op, a, T((32,), t))], T((32,), t)


def transpose(op, t):
    a = T(A, t)
    return [a], ["%%r = tide.%s %%a0 perm = [1, 0] : %s" % (op, a)], T((8, 4), t)


def broadcast(op, t):
    a, b = T(A, t), T(B, t)
    return [b], ["%%r = tide.%s %%a0 : %s to %s" % (op, b, a)], a


def concat(op, t):
    a, c = T(A, t), T((2, 8), t)
    return [a, c], ["%%r = tide.%s %%a0, %%a1 axis = 0 : %s, %s" % (op, a, c)], T((6, 8), t)


def slice_(op, t):
    a = T(A, t)
    return [a], ["%%r = tide.%s %%a0 start = [1, 0] limit = [4, 8] strides = [2, 3] : %s"
                 % (op, a)], T((2, 3), t)


def softmax(op, t):
    a = T(A, t)
    return [a], ["%%r = tide.%s %%a0 axis = 1 : %s" % (op, a)], a


def constant(op, t):
    # The constant feeds an elementwise op, so that it is materialized beside it.
    a = T(A, t)
    value = {"i1": "true"}.get(t, "1.5" if t.startswith(("f", "b")) else "3")
    user = "or" if t == "i1" else "maximum"
    return [a], ["%%c = tide.%s dense<%s> : %s" % (op, value, a),
                 "%%r = tide.%s %%a0, %%c : %s" % (user, a)], a


def gather(op, t):  # take_along_axis over the rows, i64 indices
    a, i = T(A, t), T((4, 3), "i64")
    return [a, i], ["%%r = tide.%s %%a0, %%a1 axis = 1 : %s, %s" % (op, a, i)], T((4, 3), t)


def scatter(op, t):  # ScatterElements along the rows, adding
    a, i = T(A, t), T((4, 3), "i64")
    red = "" if t == "i1" else " reduction = add"
    return [a, i, T((4, 3), t)], ["%%r = tide.%s %%a0, %%a1, %%a2 axis = 1%s : %s, %s, %s"
                                  % (op, red, a, i, T((4, 3), t))], a


def cumsum(op, t):
    a = T(A, t)
    return [a], ["%%r = tide.%s %%a0 axis = -1 reverse : %s" % (op, a)], a


def conv(op, t):  # 2-D, grouped, strided, dilated, padded
    x, w = T((2, 4, 9, 9), t), T((6, 2, 3, 3), t)
    return [x, w], ["%%r = tide.%s %%a0, %%a1 strides = [2, 1] dilations = [1, 2] "
                    "pads = [1, 0, 1, 2] groups = 2 : %s, %s" % (op, x, w)], T((2, 6, 5, 7), t)


def pool(op, t):  # 2-D, padded, ceil_mode
    x = T((2, 3, 9, 9), t)
    return [x], ["%%r = tide.%s %%a0 kernel = [3, 2] strides = [2, 2] dilations = [1, 1] "
                 "pads = [1, 0, 1, 0] ceil_mode : %s" % (op, x)], T((2, 3, 5, 5), t)


def check(op, t):  # the condition an argument read by the host, the data on the GPU
    x, c = T(("?", 8), t), T((1,), "i1")
    return [x, c], ['%%r = tide.%s %%a0, %%a1, "never" : %s, %s' % (op, x, c)], x


def iota(op, t):  # sizes from tide.dim (on the host), indices on the GPU
    x, s = T(("?", 8), t), T((1,), "i64")
    return [x], ["%%d = tide.dim %%a0 axis = 0 : %s" % x,
                 "%%c = tide.constant dense<[8]> : %s" % s,
                 "%%s = tide.concat %%d, %%c axis = 0 : %s, %s" % (s, s),
                 "%%r = tide.%s %%s axis = 1 : %s to %s" % (op, T((2,), "i64"), x)], x


def dynamic_slice(op, t):  # bounds read by the host from arguments
    x, v = T(("?", 8), t), T((2,), "i64")
    return [x, v, v], ["%%r = tide.%s %%a0, %%a1, %%a2 strides = [1, 2] : %s, %s to %s"
                       % (op, x, v, T(("?", "?"), t))], T(("?", "?"), t)


FAMILIES = {
    "unary": unary, "binary": binary, "compare": compare, "select": select, "cast": cast,
    "matmul": matmul, "reduction": reduction, "arg_reduction": arg_reduction,
    "reshape": reshape, "transpose": transpose, "broadcast": broadcast, "concat": concat,
    "slice": slice_, "softmax": softmax, "constant": constant, "gather": gather, "scatter": scatter,
    "cumsum": cumsum, "conv": conv, "pool": pool, "iota": iota, "dynamic_slice": dynamic_slice,
    "check": check,
}


def list_kernels(tide_bin, target):
    p = subprocess.run([os.path.join(tide_bin, "tide-opt"),
                        "--tide-list-kernels=target=%s format=json" % target, "-o", os.devnull],
                       input="module {}\n", capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("registry_walk.py: tide-opt --tide-list-kernels failed: %s" % p.stderr.strip())
    return json.loads(p.stdout)


def claimed_pairs(table):
    """(op, dtype, family) of every pair a GPU device of the target has a kernel
    for (codegen or library), in the order of the table's ops and dtypes."""
    gpus = [d["name"] for d in table["devices"] if d["name"] != "cpu"]
    pairs = []
    for op in table["ops"]:
        for t in table["dtypes"]:
            if any(op["kernels"].get(g, {}).get(t, "none") != "none" for g in gpus):
                pairs.append((op["name"], t, op["family"]))
    return pairs


def compile_module(tide_bin, target, path, funcs):
    text = ""
    for name, (args, body, result) in funcs:
        sig = ", ".join("%%a%d: %s" % (i, a) for i, a in enumerate(args))
        text += "func.func @%s(%s) -> %s {\n" % (name, sig, result)
        text += "".join("  %s\n" % l for l in body)
        text += "  return %%r : %s\n}\n" % result
    with open(path + ".mlir", "w") as fh:
        fh.write(text)
    p = subprocess.run([os.path.join(tide_bin, "tide-compile"), path + ".mlir", "-o", path + ".so",
                        "--target=" + target, "--policy=require-gpu", "--no-remarks"],
                       capture_output=True, text=True)
    return p.returncode == 0, p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tide-bin", required=True)
    ap.add_argument("--tmp", required=True)
    ap.add_argument("--target", default="h200")
    ap.add_argument("--list", action="store_true", help="print the claimed pairs and stop")
    args = ap.parse_args()
    os.makedirs(args.tmp, exist_ok=True)
    table = list_kernels(args.tide_bin, args.target)
    pairs = claimed_pairs(table)
    if args.list:
        for op, t, family in pairs:
            print("%s %s %s" % (op, t, family))
        return 0
    failed = 0
    missing = {}
    for op, t, family in pairs:
        if family not in FAMILIES:
            missing.setdefault((op, family), []).append(t)
    for (op, family), types in missing.items():
        print("FAIL tide.%s (%s): the walk has no generator for family '%s'; add one to FAMILIES "
              "in registry_walk.py" % (op, ", ".join(types), family))
        failed += len(types)
    for t in table["dtypes"]:
        funcs = [("%s_%s" % (op, t), FAMILIES[family](op, t)) for op, tt, family in pairs
                 if tt == t and family in FAMILIES]
        if not funcs:
            continue
        ok, err = compile_module(args.tide_bin, args.target, os.path.join(args.tmp, t), funcs)
        if ok:
            continue
        for name, f in funcs:
            ok, err = compile_module(args.tide_bin, args.target, os.path.join(args.tmp, name), [(name, f)])
            if not ok:
                failed += 1
                first = next((l for l in err.splitlines() if "error" in l), err.strip()[:200])
                print("FAIL %s: %s" % (name, first))
    print("%d pairs lowered, %d failed" % (len(pairs) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
