#!/usr/bin/env python3
"""The registry walk: every (op, dtype) pair the built-in GPU target claims
must lower to GPU code that ptxas accepts.

Reads the kernel table from `tide-opt --tide-list-kernels=target=T`, writes one
function per claimed GPU pair (one module per dtype, shapes that exercise the
op's general path), and compiles each module with
`tide-compile --target=T --policy=require-gpu`: require-gpu fails unless every
op is placed on the GPU, and gpu-module-to-binary runs ptxas for the target's
chip. A module that fails is split into single functions to name the pair.
Prints one line per failing pair and `N pairs lowered, M failed`.

Usage: registry_walk.py --tide-bin BUILD/bin --tmp DIR [--target h200]
"""
import argparse
import os
import re
import subprocess
import sys

DTYPES = ["i1", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64"]
UNARY = ["neg", "abs", "exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "relu",
         "floor", "ceil", "sin", "cos", "erf", "not"]
BINARY = ["add", "sub", "mul", "div", "pow", "maximum", "minimum", "and", "or"]
REDUCE = ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod"]


def T(shape, t):
    return "tensor<%s%s>" % ("".join("%sx" % d for d in shape), t)


def function(op, t):
    """(signature args, body lines, result type) for `op` on `t`."""
    a, b = T((4, 8), t), T((8,), t)
    if op in UNARY:
        return [a], ["%%r = tide.%s %%a0 : %s" % (op, a)], a
    if op == "elu":
        return [a], ["%%r = tide.elu %%a0 alpha = 1.0 : %s" % a], a
    if op in BINARY:  # with NumPy broadcasting of the second operand
        return [a, b], ["%%r = tide.%s %%a0, %%a1 : %s, %s" % (op, a, b)], a
    if op == "cmp":
        return [a, b], ["%%r = tide.cmp lt, %%a0, %%a1 : %s, %s" % (a, b)], T((4, 8), "i1")
    if op == "select":
        m = T((4, 8), "i1")
        return [m, a, a], ["%%r = tide.select %%a0, %%a1, %%a2 : %s, %s, %s" % (m, a, a)], a
    if op == "cast":
        other = "f32" if t != "f32" else "i32"
        return [a], ["%%r = tide.cast %%a0 : %s to %s" % (a, T((4, 8), other))], T((4, 8), other)
    if op == "matmul":
        x, y = T((16, 32), t), T((32, 8), t)
        return [x, y], ["%%r = tide.matmul %%a0, %%a1 : %s, %s" % (x, y)], T((16, 8), t)
    if op in REDUCE:
        big = T((4, 5000), t)  # per-row, and whole-tensor below
        return [big], ["%%r = tide.%s %%a0 axes = [1] : %s" % (op, big)], T((4,), t)
    if op in ("argmax", "argmin"):
        return [a], ["%%r = tide.%s %%a0 axes = [1] : %s" % (op, a)], T((4,), "i64")
    if op == "reshape":
        return [a], ["%%r = tide.reshape %%a0 : %s to %s" % (a, T((32,), t))], T((32,), t)
    if op == "transpose":
        return [a], ["%%r = tide.transpose %%a0 perm = [1, 0] : %s" % a], T((8, 4), t)
    if op == "broadcast_to":
        return [b], ["%%r = tide.broadcast_to %%a0 : %s to %s" % (b, a)], a
    if op == "concat":
        c = T((2, 8), t)
        return [a, c], ["%%r = tide.concat %%a0, %%a1 axis = 0 : %s, %s" % (a, c)], T((6, 8), t)
    if op == "slice":
        return [a], ["%%r = tide.slice %%a0 start = [1, 0] limit = [4, 8] strides = [2, 3] : %s" % a], T((2, 3), t)
    if op in ("softmax", "log_softmax"):
        return [a], ["%%r = tide.%s %%a0 axis = 1 : %s" % (op, a)], a
    if op == "constant":
        value = {"i1": "true"}.get(t, "1.5" if t.startswith(("f", "b")) else "3")
        c = T((4, 8), t)
        return [a], ["%%c = tide.constant dense<%s> : %s" % (value, c),
                     "%%r = tide.%s %%a0, %%c : %s" % ("or" if t == "i1" else "maximum", a)
                     if t != "i1" else "%%r = tide.or %%a0, %%c : %s" % a], a
    return None


def claimed_pairs(tide_bin, target):
    out = subprocess.run([os.path.join(tide_bin, "tide-opt"), "--tide-list-kernels=target=" + target],
                         input="module {}\n", capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("kernels"))
    header = lines[start + 1]
    cols = [m.start() for m in re.finditer(r"\|", header)]
    gpu_col = cols[1] + 1 if len(cols) > 1 else None
    pairs = []
    for line in lines[start + 3:]:
        if "|" not in line:
            break
        op = line.split("|")[0].strip()
        gpu = line[gpu_col:]
        for i, t in enumerate(DTYPES):
            cell = gpu[1 + 5 * i: 1 + 5 * i + 4].strip()
            if cell in ("C", "L"):
                pairs.append((op, t))
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
    args = ap.parse_args()
    os.makedirs(args.tmp, exist_ok=True)
    pairs = claimed_pairs(args.tide_bin, args.target)
    failed = 0
    missing = [(op, t) for op, t in pairs if function(op, t) is None]
    for op, t in missing:
        print("FAIL %s %s: the walk has no template for this op" % (op, t))
    failed += len(missing)
    for t in DTYPES:
        funcs = [("%s_%s" % (op, t), function(op, t)) for op, tt in pairs
                 if tt == t and function(op, t) is not None]
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
