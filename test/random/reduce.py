#!/usr/bin/env python3
"""Reduces a failing random program (a case directory written by diff.py).

Repeats, while the program still fails the same way (the same kind: mismatch,
compile error, crash, run error; for errors, the same message with numbers
left out), until nothing more can be taken away:
  - keep fewer results (one alone first);
  - replace an op by a new argument holding its reference value (which cuts
    the DAG), then drop every op and argument nothing uses any more;
  - drop pins, colocation groups and the default device;
  - shrink each argument dimension (to 1, or half), slicing its input, with
    every op's type and shape derived again (candidates whose types do not
    hold, or whose reference leaves the well-defined domain, are skipped).

Usage: reduce.py CASE_DIR --tide-bin BIN [--out DIR] [--target T] [--cpu CPU] [-v]
Writes DIR (default CASE_DIR/reduced) as a case directory (case.json,
inputs.npz, case.mlir) and prints the reduced program.
"""

import argparse
import copy
import os
import re
import shutil
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import diff  # noqa: E402
import gen  # noqa: E402


def signature(kind, detail):
    if kind in ("mismatch",):
        return kind
    msg = re.sub(r"^.*?error: ", "", detail or "")
    msg = re.sub(r"0x[0-9a-fA-F]+", "P", msg)       # addresses (LLVM's crash messages)
    msg = re.sub(r"[0-9]+", "N", msg)
    msg = re.sub(r"%\w+|@\w+|'[^']*\.mlir'|/\S+", "X", msg)
    return kind + ":" + msg[:120]


class Reducer:
    def __init__(self, args, case, inputs):
        self.bin = args.tide_bin
        self.case = case
        self.target = args.target or case["target"]
        self.policy = case["policy"]
        self.tmp = tempfile.mkdtemp(prefix="tide-reduce-")
        self.verbose = args.verbose
        self.tries = 0
        runner_args = argparse.Namespace(tide_bin=self.bin, work=self.tmp, failures=None,
                                         target=self.target, verbose=False, build_only=False,
                                         prebuilt=False, cpu=args.cpu)
        self.runner = diff.Runner(runner_args)
        self.want = None
        self.want = self.outcome(case["func"], inputs)

    def outcome(self, func, inputs):
        self.tries += 1
        d = os.path.join(self.tmp, "t%d" % self.tries)
        os.makedirs(d)
        mlir, so = os.path.join(d, "case.mlir"), os.path.join(d, "case.so")
        with open(mlir, "w") as fh:
            fh.write(gen.emit_func(func, self.target))
        kind, err, _ = self.runner.compile(mlir, so, self.policy)
        if kind is None:
            kind, err = self.runner.run_func(so, func, inputs, d)
        shutil.rmtree(d, ignore_errors=True)
        return signature(kind, err) if kind else None

    def fails(self, func, inputs):
        if not retype(func, inputs):
            return False
        return self.outcome(func, inputs) == self.want


def refs_used(func):
    used = set(func["results"])
    for op in reversed(func["ops"]):
        pass
    # Walk backwards from the results.
    live = set(func["results"])
    for i in range(len(func["ops"]) - 1, -1, -1):
        if "v%d" % i in live:
            live.update(func["ops"][i]["in"])
    return live


def compact(func, inputs):
    """Drops dead ops and unused arguments, renumbering references."""
    live = refs_used(func)
    amap, vmap = {}, {}
    args, ins = [], []
    for i, a in enumerate(func["args"]):
        if "a%d" % i in live:
            amap["a%d" % i] = "a%d" % len(args)
            args.append(a)
            ins.append(inputs[i])
    ops = []
    for i, op in enumerate(func["ops"]):
        if "v%d" % i in live:
            vmap["v%d" % i] = "v%d" % len(ops)
            op = dict(op)
            op["in"] = [amap.get(r) or vmap[r] for r in op["in"]]
            ops.append(op)
    m = dict(amap)
    m.update(vmap)
    f = dict(func)
    f["args"], f["ops"] = args, ops
    f["results"] = [m[r] for r in func["results"]]
    return f, ins


def retype(func, inputs):
    """Derives every op's type and shape again from its operands (after the
    arguments changed); False when the program is no longer valid."""
    env = {}
    try:
        for i, a in enumerate(func["args"]):
            a["shape"] = list(inputs[i].shape)
            if len(a["type"]) != len(a["shape"]):
                return False
            a["type"] = [None if d is None else s for d, s in zip(a["type"], a["shape"])]
            env["a%d" % i] = inputs[i]
        for i, op in enumerate(func["ops"]):
            vi = [gen.value_info(func, r) for r in op["in"]]
            name, a = op["op"], op.get("attrs", {})
            fam = None
            for k, names in gen.SEMANTICS.items():
                if name in names:
                    fam = k
            old = op["type"]
            if fam in ("unary", "softmax"):
                ty = list(vi[0]["type"])
            elif fam == "cast":
                ty = [None if o is None else d for o, d in zip(old, vi[0]["shape"])] \
                    if len(old) == len(vi[0]["shape"]) else None
                if ty is not None:
                    ty = [t if (t is None or vi[0]["type"][k] is None or t == vi[0]["type"][k]) else None
                          for k, t in enumerate(ty)]
            elif fam in ("binary", "compare", "select"):
                if not gen.bcast_runtime_ok(vi):
                    return False
                ty = vi[0]["type"]
                for w in vi[1:]:
                    ty = gen.bcast_type(ty, w["type"]) if ty is not None else None
            elif fam in ("reduction", "arg_reduction"):
                r = len(vi[0]["type"])
                norm = [x % r for x in a["axes"]] if r else []
                ty = []
                for d in range(r):
                    if d in norm:
                        if a.get("keepdims"):
                            ty.append(1)
                    else:
                        ty.append(vi[0]["type"][d])
            elif fam == "matmul":
                x, y = vi
                if len(x["shape"]) < 2 or len(y["shape"]) < 2 or x["shape"][-1] != y["shape"][-2]:
                    return False
                xb = {"type": x["type"][:-2], "shape": x["shape"][:-2]}
                yb = {"type": y["type"][:-2], "shape": y["shape"][:-2]}
                bt = gen.bcast_type(xb["type"], yb["type"])
                if bt is None or not gen.bcast_runtime_ok([xb, yb]):
                    return False
                ty = bt + [x["type"][-2], y["type"][-1]]
            elif fam == "transpose":
                ty = [vi[0]["type"][p] for p in a["perm"]]
            elif fam == "slice":
                if any(lim > s for lim, s in zip(a["limit"], vi[0]["shape"])):
                    return False
                ty = [(lim - st + k - 1) // k for st, lim, k in zip(a["start"], a["limit"], a["strides"])]
            elif fam == "concat":
                r = len(vi[0]["type"])
                ax = a["axis"] % r
                if any(len(w["shape"]) != r or any(w["shape"][d] != vi[0]["shape"][d]
                                                   for d in range(r) if d != ax) for w in vi):
                    return False
                ty = list(vi[0]["type"])
                for w in vi[1:]:
                    for d in range(r):
                        p, q = ty[d], w["type"][d]
                        if d == ax:
                            ty[d] = None if p is None or q is None else p + q
                        elif p is None:
                            ty[d] = q
            elif fam in ("gather", "scatter"):
                data, idx = vi[0], vi[1]
                r = len(data["shape"])
                ax = a["axis"] % r if r else 0
                rest = vi[1:]
                if r == 0 or any(len(w["shape"]) != r for w in rest):
                    return False
                if fam == "scatter" and vi[1]["shape"] != vi[2]["shape"]:
                    return False
                for w in rest:
                    for d in range(r):
                        if d == ax:
                            continue
                        if w["shape"][d] > data["shape"][d]:
                            return False
                        p, q = w["type"][d], data["type"][d]
                        if p is not None and q is not None and p > q:
                            return False
                ty = list(idx["type"]) if fam == "gather" else list(data["type"])
            elif fam == "cumsum":
                ty = list(vi[0]["type"])
            elif fam in ("conv", "pool"):
                x = vi[0]
                k = len(x["shape"]) - 2
                if k < 1 or any(d is None for d in x["type"][2:]):
                    return False
                pads = a["pads"]
                if fam == "conv":
                    w = vi[1]
                    g = a.get("groups", 1)
                    if len(w["shape"]) != k + 2 or w["shape"][1] * g != x["shape"][1] or \
                            w["shape"][0] % g or (g != 1 and x["type"][1] is None) or \
                            any(d is None for d in w["type"]):
                        return False
                    kernel, ceil = w["shape"][2:], False
                    lead = [x["type"][0], w["shape"][0]]
                else:
                    kernel, ceil = a["kernel"], a.get("ceil_mode", False)
                    lead = list(x["type"][:2])
                for s in range(k):
                    if x["shape"][2 + s] + pads[s] + pads[k + s] < a["dilations"][s] * (kernel[s] - 1) + 1:
                        return False
                ty = lead + gen.window_sizes(x["shape"][2:], kernel, a["strides"], a["dilations"],
                                             pads, ceil)
            else:   # reshape, broadcast_to, constant: their own types
                ty = list(old)
            if ty is None:
                return False
            y = gen.eval_op(op, [env[r] for r in op["in"]])
            gen.check_finite(y, name)
            if len(ty) != y.ndim or any(t is not None and t != s for t, s in zip(ty, y.shape)):
                return False
            if fam == "broadcast" and not all(
                    t is None or d is not None for t, d in
                    zip(ty[len(ty) - len(vi[0]["type"]):], vi[0]["type"]) if t is None):
                return False
            op["type"], op["shape"] = list(ty), list(y.shape)
            env["v%d" % i] = y
        return True
    except (gen.Violation, ValueError, IndexError, TypeError):
        return False


def reduce_case(red, func, inputs):
    changed = True
    while changed:
        changed = False
        # 1. Fewer results.
        if len(func["results"]) > 1:
            for r in list(func["results"]):
                f = copy.deepcopy(func)
                f["results"] = [r]
                f2, ins2 = compact(f, inputs)
                if red.fails(f2, ins2):
                    func, inputs, changed = f2, ins2, True
                    break
            else:
                for r in list(func["results"]):
                    if len(func["results"]) == 1:
                        break
                    f = copy.deepcopy(func)
                    f["results"] = [x for x in f["results"] if x != r]
                    f2, ins2 = compact(f, inputs)
                    if red.fails(f2, ins2):
                        func, inputs, changed = f2, ins2, True
        # 2. An op becomes an argument holding its value.
        env = gen.evaluate(func, inputs, strict=False)
        for i in range(len(func["ops"]) - 1, -1, -1):
            op = func["ops"][i]
            if not op["in"] and op["op"] != "constant":
                continue
            ref = "v%d" % i
            f = copy.deepcopy(func)
            f["args"].append({"dtype": op["dtype"], "type": list(op["type"]), "shape": list(op["shape"])})
            new = "a%d" % (len(f["args"]) - 1)
            for o in f["ops"]:
                o["in"] = [new if r == ref else r for r in o["in"]]
            f["results"] = [new if r == ref else r for r in f["results"]]
            if all(r[0] == "a" for r in f["results"]):
                continue          # nothing left to compute
            f2, ins2 = compact(f, list(inputs) + [env[ref]])
            if red.fails(f2, ins2):
                func, inputs, changed = f2, ins2, True
                break
        if changed:
            continue
        # 3. No placement attributes.
        f = copy.deepcopy(func)
        f.pop("default_device", None)
        for o in f["ops"]:
            o.pop("pin", None), o.pop("colocate", None)
        if f != func and red.fails(f, inputs):
            func, changed = f, True
        # 4. Smaller argument dimensions (and static where dynamic).
        for i, x in enumerate(inputs):
            for d in range(x.ndim):
                for n in sorted(set([1, x.shape[d] // 2, 0]) - {x.shape[d]}):
                    if n > x.shape[d] or n < 0:
                        continue
                    f = copy.deepcopy(func)
                    ins2 = list(inputs)
                    idx = [slice(None)] * x.ndim
                    idx[d] = slice(0, n)
                    ins2[i] = np.ascontiguousarray(x[tuple(idx)]) if n else x[tuple(idx)].copy()
                    if red.fails(f, ins2):
                        func, inputs, changed = f, ins2, True
                        break
                if changed:
                    break
            if changed:
                break
    return func, inputs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("case", help="a case directory written by diff.py")
    ap.add_argument("--tide-bin", required=True)
    ap.add_argument("--out", help="where to write the reduced case (default CASE/reduced)")
    ap.add_argument("--target", help="compile for this target instead of the case's (a GPU "
                    "case that fails on the CPU too: --target cpu)")
    ap.add_argument("--cpu", help="tide-compile --cpu (a case from a GPU batch, whose host code "
                    "was built for x86-64-v3: --cpu x86-64-v3)")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    case, inputs = diff.load_case(args.case)
    red = Reducer(args, case, inputs)
    if red.want is None:
        print("reduce.py: %s does not fail (any more)" % args.case)
        return 1
    print("reducing %s (%d ops, %d arguments): %s" % (args.case, len(case["func"]["ops"]),
                                                       len(case["func"]["args"]), red.want))
    func, inputs = reduce_case(red, copy.deepcopy(case["func"]), inputs)
    out = args.out or os.path.join(args.case, "reduced")
    if os.path.exists(out):
        shutil.rmtree(out)
    diff.save_case(out, func, inputs, case["kind"], case["detail"], red.target, red.policy)
    shutil.rmtree(red.tmp, ignore_errors=True)
    print("%d tries; reduced to %d ops, %d arguments (%s):" % (red.tries, len(func["ops"]),
                                                             len(func["args"]), out))
    print(gen.emit_func(func, red.target))
    for i, x in enumerate(inputs):
        print("// input %d: %s %s" % (i, func["args"][i]["dtype"],
                                      np.array2string(np.asarray(x), threshold=20)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
