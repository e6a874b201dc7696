#!/usr/bin/env python3
"""Differential random testing of Tide against NumPy.

Generates random valid programs (gen.py: one function each, many functions per
module, since compiling is the cost), compiles every module with tide-compile,
runs every function with tide-run on generated .npy inputs, and compares each
result with gen.py's NumPy interpreter of the same program description.

Tolerances (per element): a float result passes when
    |got - ref| <= 4 * tiny(t) + ulp(t) * |ref| + 4 * spread
(or spread > max(|ref|, 1): an ill-conditioned element, unchecked)
where `spread` is the largest difference between the reference and
NOISY_RUNS re-evaluations in which every inexact op (transcendentals, pow,
reductions, matmul, softmax) is perturbed by a few units in the last place
before rounding (see gen.py). IEEE ops (add, sub, mul, div, sqrt, floor, casts,
data movement ...) carry no noise, so a result made of them alone must match to
the last place. Integer and i1 results must be equal wherever no noisy run
changes them. A mismatch is confirmed with 96 more noisy runs before it counts.

Usage:
  diff.py --tide-bin build/bin --work DIR [--seed S] [--count N] [--per-module M]
          [--failures DIR] [--target cpu] [--build-only | --prebuilt] [--gemm-on-cpu] [-v]

With --target=h200 --build-only the modules are compiled (GPU code included)
into --work with their programs and inputs, and nothing runs; on the GPU
machine, `diff.py --prebuilt --work DIR --tide-bin BIN` runs them (it needs
tide-run, Python and NumPy only) and compares; test/random/gpu-batch.sh packs
and runs such a batch. A GPU machine without cuBLAS cannot run a GPU GEMM:
--gemm-on-cpu pins float matmuls to the CPU, and a run that stops for want of
cuBLAS counts as skipped, not failed.

Prints `N programs, N passed, N mismatches` (and the other failure kinds:
compile errors, crashes); each failing program is written to --failures as a
case directory (case.json, inputs.npz, case.mlir) that reduce.py reads. Exits
1 when anything failed.
"""

import argparse
import functools
import json
import multiprocessing
import os
import re
import shutil
import subprocess
import sys
import time
import zlib

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402

NOISY_RUNS = 3
CONFIRM_RUNS = 96


# ---------------------------------------------------------------------------
# Checking one function
# ---------------------------------------------------------------------------


def noisy_envs(func, inputs, n, salt=0):
    envs = []
    for s in range(n):
        rng = np.random.default_rng([zlib.crc32(func["name"].encode()), salt, s])
        envs.append(gen.evaluate(func, inputs, rng=rng, strict=False))
    return envs


def compare(got, ref, samples, t):
    """Indices of elements that differ beyond tolerance, and a description of
    the first one."""
    if t in gen.FLOATS:
        g = np.asarray(got, dtype=np.float64)
        r = np.asarray(ref, dtype=np.float64)
        spread = np.zeros(r.shape)
        with np.errstate(all="ignore"):
            for s in samples:
                d = np.abs(np.asarray(s, dtype=np.float64) - r)
                d = np.where(np.isfinite(d), d, np.inf)
                spread = np.maximum(spread, d)
            tol = 4 * gen.TINY[t] + gen.ULP[t] * np.abs(r) + 4 * spread
            # Ill-conditioned elements (the noisy runs move them by more than
            # their own size, and by more than 1: tan near its poles, after a
            # cumulative product of 1e13) say nothing about the result: tan of
            # an argument known to 1e7 is any value, Cauchy-distributed, and
            # no number of runs bounds it.
            unknown = spread > np.maximum(np.abs(r), 1.0)
            ok = (g == r) | (np.abs(g - r) <= tol) | (np.isnan(g) & np.isnan(r)) | unknown
        bad = np.argwhere(~ok)
        if len(bad):
            i = tuple(bad[0])
            return len(bad), "at %s: got %r, expected %r (tolerance %.3g)" % (
                list(map(int, i)), float(g[i]), float(r[i]), float(tol[i]))
        return 0, ""
    stable = np.ones(np.shape(ref), dtype=bool)
    for s in samples:
        stable &= np.asarray(s == ref)
    bad = np.argwhere(np.asarray(got != ref) & stable)
    if len(bad):
        i = tuple(bad[0])
        return len(bad), "at %s: got %r, expected %r" % (list(map(int, i)), got[i].item(), ref[i].item())
    return 0, ""


def check_outputs(func, inputs, outs, confirm=True):
    """outs: the arrays tide-run wrote (as .npy storage). Returns None or a
    description of the mismatch."""
    ref = gen.evaluate(func, inputs, strict=False)
    samples = noisy_envs(func, inputs, NOISY_RUNS)
    problems = check_against(func, ref, samples, outs)
    if problems and confirm:
        more = noisy_envs(func, inputs, CONFIRM_RUNS, salt=1)
        again = check_against(func, ref, samples + more, outs)
        if not again:
            return None
    return problems


def check_against(func, ref, samples, outs):
    problems = []
    for k, r in enumerate(func["results"]):
        info = gen.value_info(func, r)
        t = info["dtype"]
        a = outs[k]
        if a.dtype != gen.NPY[t]:
            problems.append("result %d (%s): dtype %s, expected %s" % (k, r, a.dtype, gen.NPY[t]))
            continue
        if tuple(a.shape) != tuple(info["shape"]):
            problems.append("result %d (%s): shape %s, expected %s" % (k, r, list(a.shape), info["shape"]))
            continue
        got = gen.from_npy(a, t)
        if got.shape != np.shape(ref[r]):
            got = got.reshape(np.shape(ref[r]))
        n, what = compare(got, ref[r], [s[r] for s in samples], t)
        if n:
            producer = "argument" if r[0] == "a" else "tide.%s" % gen.value_info(func, r)["op"]
            problems.append("result %d (%s = %s, %s): %d element(s) differ; first %s"
                            % (k, r, producer, t, n, what))
    return "; ".join(problems) or None


# ---------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------


def first_error(text):
    for line in text.splitlines():
        if "error" in line.lower():
            return line.strip()[:400]
    return text.strip().splitlines()[-1][:400] if text.strip() else ""


class Runner:
    def __init__(self, args):
        self.bin = os.path.abspath(args.tide_bin)
        self.work = os.path.abspath(args.work)
        self.failures = os.path.abspath(args.failures) if args.failures else None
        self.target = args.target
        self.cpu = getattr(args, "cpu", None)
        self.verbose = args.verbose
        self.build_only = args.build_only
        self.prebuilt = args.prebuilt
        self.stats = {"programs": 0, "passed": 0, "mismatch": 0, "compile": 0, "crash": 0,
                      "run": 0, "unstable": 0, "skipped": 0}
        self.compiles = 0
        self.failed_cases = []

    def tool(self, name):
        return os.path.join(self.bin, name)

    def compile(self, mlir, so, policy):
        self.compiles += 1
        cmd = [self.tool("tide-compile"), mlir, "-o", so, "--target=" + self.target,
               "--policy=" + policy, "--no-remarks"] + (["--cpu=" + self.cpu] if self.cpu else [])
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        except subprocess.TimeoutExpired:
            return "crash", "tide-compile timed out", None
        if p.returncode == 0:
            return None, "", None
        m = re.search(re.escape(mlir) + r":(\d+):\d+: error", p.stderr)
        kind = "crash" if p.returncode < 0 or "Stack dump" in p.stderr else "compile"
        why = "signal %d" % -p.returncode if p.returncode < 0 else "exit %d" % p.returncode
        return kind, "tide-compile (%s, policy %s): %s" % (why, policy, first_error(p.stderr)), \
            (int(m.group(1)) if m else None)

    def run_func(self, so, func, inputs, d):
        ins, outs = [], []
        for i, (x, a) in enumerate(zip(inputs, func["args"])):
            p = os.path.join(d, "%s.in%d.npy" % (func["name"], i))
            np.save(p, gen.to_npy(x, a["dtype"]))
            ins.append(p)
        for k in range(len(func["results"])):
            outs.append(os.path.join(d, "%s.out%d.npy" % (func["name"], k)))
        cmd = [self.tool("tide-run"), so, "--entry=" + func["name"]] + \
              ["--input=" + p for p in ins] + ["--output=" + p for p in outs]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        except subprocess.TimeoutExpired:
            return "crash", "tide-run timed out"
        if p.returncode != 0:
            if p.returncode > 0 and "cuBLAS" in p.stderr and "not found" in p.stderr:
                # A GPU machine without cuBLAS (only the driver): not a bug.
                return "skipped", "no cuBLAS: %s" % first_error(p.stderr)
            kind = "crash" if p.returncode < 0 else "run"
            return kind, "tide-run exit %d: %s" % (p.returncode, first_error(p.stderr + p.stdout))
        try:
            arrays = [np.load(o) for o in outs]
        except Exception as e:
            return "run", "cannot read the results: %s" % e
        problem = check_outputs(func, inputs, arrays)
        for f in ins + outs:
            if os.path.exists(f):
                os.remove(f)
        if problem:
            return "mismatch", problem
        return None, ""

    def record(self, func, inputs, kind, detail, policy):
        self.stats["programs"] += 1
        if kind is None:
            self.stats["passed"] += 1
            return
        self.stats[kind] += 1
        if kind == "skipped":
            if self.verbose:
                print("SKIP %s: %s" % (func["name"], detail), flush=True)
            return
        print("FAIL %s [%s, target %s, policy %s]: %s" % (func["name"], kind, self.target, policy, detail),
              flush=True)
        if self.failures:
            save_case(os.path.join(self.failures, func["name"]), func, inputs, kind, detail,
                      self.target, policy)
            self.failed_cases.append(func["name"])

    # A module of functions, compiled once; a function that breaks the
    # compile is taken out (by the error's line, else by halving).
    def module(self, name, progs, policy):
        d = os.path.join(self.work, name)
        os.makedirs(d, exist_ok=True)
        mlir, so = os.path.join(d, name + ".mlir"), os.path.join(d, name + ".so")
        text, spans = "", []
        for f, _ in progs:
            first = text.count("\n") + 1
            text += gen.emit_func(f, self.target) + "\n"
            spans.append((first, text.count("\n"), f))
        with open(mlir, "w") as fh:
            fh.write(text)
        kind, err, line = self.compile(mlir, so, policy)
        if kind is None:
            if self.build_only:
                with open(os.path.join(d, "programs.json"), "w") as fh:
                    json.dump({"policy": policy, "target": self.target,
                               "funcs": [f for f, _ in progs]}, fh)
                np.savez_compressed(os.path.join(d, "inputs.npz"),
                         **{"%s_%d" % (f["name"], i): x for f, ins in progs for i, x in enumerate(ins)})
                self.stats["programs"] += len(progs)
                return
            for f, ins in progs:
                k, detail = self.run_func(so, f, ins, d)
                self.record(f, ins, k, detail, policy)
            shutil.rmtree(d, ignore_errors=True)
            return
        culprits = [f for a, b, f in spans if line is not None and a <= line <= b]
        if culprits and len(progs) > 1:
            rest = [(f, ins) for f, ins in progs if f not in culprits]
            for f, ins in progs:
                if f in culprits:
                    self.record(f, ins, kind, err, policy)
            if rest:
                self.module(name + "r", rest, policy)
            return
        if len(progs) == 1:
            self.record(progs[0][0], progs[0][1], kind, err, policy)
            return
        half = len(progs) // 2
        self.module(name + "a", progs[:half], policy)
        self.module(name + "b", progs[half:], policy)

    def prebuilt_dir(self, d):
        with open(os.path.join(d, "programs.json")) as fh:
            meta = json.load(fh)
        npz = np.load(os.path.join(d, "inputs.npz"))
        so = [os.path.join(d, n) for n in os.listdir(d) if n.endswith(".so")][0]
        # The target the module was built for (reports and saved cases).
        self.target = meta.get("target", self.target)
        for f in meta["funcs"]:
            ins = [npz["%s_%d" % (f["name"], i)] for i in range(len(f["args"]))]
            k, detail = self.run_func(so, f, ins, d)
            self.record(f, ins, k, detail, meta["policy"])


def _run_prebuilt(args, d):
    """One prebuilt module in a worker process (--jobs)."""
    r = Runner(args)
    r.prebuilt_dir(d)
    return r.stats, r.failed_cases


def save_case(d, func, inputs, kind, detail, target, policy):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "case.json"), "w") as fh:
        json.dump({"func": func, "kind": kind, "detail": detail, "target": target,
                   "policy": policy}, fh, indent=1)
    np.savez(os.path.join(d, "inputs.npz"), *inputs)
    with open(os.path.join(d, "case.mlir"), "w") as fh:
        fh.write(gen.emit_func(func, target))


def load_case(d):
    with open(os.path.join(d, "case.json")) as fh:
        case = json.load(fh)
    npz = np.load(os.path.join(d, "inputs.npz"))
    inputs = [npz["arr_%d" % i] for i in range(len(case["func"]["args"]))]
    return case, inputs


def self_check(ops, seed, count):
    """The reference must pass against itself; changing one element of a
    result (by 64 units in the last place plus 1e-3, or by 1) must be caught
    nearly always (not always: the element may be one whose value depends on
    rounding)."""
    caught = total = 0
    for f, ins in gen.generate(seed, ops, count):
        ref = gen.evaluate(f, ins, strict=False)
        outs = [gen.to_npy(ref[r], gen.value_info(f, r)["dtype"]) for r in f["results"]]
        problem = check_outputs(f, ins, outs)
        if problem:
            print("self-check: %s fails against its own reference: %s" % (f["name"], problem))
            return 1
        for k, r in enumerate(f["results"]):
            t = gen.value_info(f, r)["dtype"]
            x = np.array(ref[r], copy=True)
            if x.size == 0:
                continue
            flat = x.reshape(-1)
            if t in gen.FLOATS:
                flat[0] = flat[0] * (1 + 64 * gen.ULP[t]) + 1e-3
            elif t == "i1":
                flat[0] = ~flat[0]
            else:
                flat[0] += 1
            changed = list(outs)
            changed[k] = gen.to_npy(x, t)
            total += 1
            caught += check_outputs(f, ins, changed) is not None
            break
    enough = caught >= 0.9 * total
    print("self-check: %d programs, the reference passes; %d of %d perturbed results caught, %s"
          % (count, caught, total, "at least 90%" if enough else "TOO FEW"))
    return 0 if enough else 1


def list_ops(tide_bin, path):
    p = subprocess.run([os.path.join(tide_bin, "tide-opt"),
                        "--tide-list-kernels=target=h200 format=json", "-o", os.devnull],
                       input="module {}\n", capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("diff.py: tide-opt --tide-list-kernels failed: %s" % p.stderr.strip())
    with open(path, "w") as fh:
        fh.write(p.stdout)
    return gen.load_ops(p.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tide-bin", required=True)
    ap.add_argument("--work", required=True, help="scratch folder")
    ap.add_argument("--failures", help="write failing cases here")
    ap.add_argument("--seed", type=int, default=1, help="first seed (one per module)")
    ap.add_argument("--count", type=int, default=100, help="programs (functions) in all")
    ap.add_argument("--per-module", type=int, default=50)
    ap.add_argument("--target", default="cpu")
    ap.add_argument("--cpu", help="tide-compile --cpu (default: this machine's; "
                    "modules built for another machine: x86-64-v3, say)")
    ap.add_argument("--policy", help="placement policy (default: a random one per module)")
    ap.add_argument("--max-elems", type=int, default=gen.Gen.MAX_ELEMS,
                    help="largest value, in elements (smaller: smaller build-only folders)")
    ap.add_argument("--gemm-on-cpu", action="store_true",
                    help="pin float matmuls to the CPU (for a GPU machine without cuBLAS)")
    ap.add_argument("--build-only", action="store_true")
    ap.add_argument("--prebuilt", action="store_true")
    ap.add_argument("--jobs", type=int, default=1,
                    help="with --prebuilt: modules run side by side (one process each)")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--self-check", action="store_true",
                    help="check the checker: the reference against itself, and perturbed results")
    args = ap.parse_args()

    if args.self_check:
        os.makedirs(args.work, exist_ok=True)
        return self_check(list_ops(args.tide_bin, os.path.join(args.work, "ops.json")),
                          args.seed, args.count)
    start = time.time()
    gen.Gen.MAX_ELEMS = args.max_elems
    gen.Gen.GEMM_ON_CPU = args.gemm_on_cpu
    r = Runner(args)
    if args.prebuilt:
        dirs = sorted(os.path.join(r.work, n) for n in os.listdir(r.work)
                      if os.path.exists(os.path.join(r.work, n, "programs.json")))
        if args.jobs > 1:
            # Each module in its own worker process; their counts are summed.
            with multiprocessing.Pool(args.jobs) as pool:
                for stats, failed in pool.imap_unordered(
                        functools.partial(_run_prebuilt, args), dirs):
                    for k, v in stats.items():
                        r.stats[k] += v
                    r.failed_cases += failed
                    print("%d programs run, %d passed (%.0f s)" % (
                        r.stats["programs"], r.stats["passed"], time.time() - start), flush=True)
        else:
            for d in dirs:
                r.prebuilt_dir(d)
    else:
        os.makedirs(r.work, exist_ok=True)
        ops = list_ops(r.bin, os.path.join(r.work, "ops.json"))
        probs = gen.coverage_problems(ops)
        for p in probs:
            print("FAIL coverage: " + p, flush=True)
        if probs:
            return 1
        done, seed = 0, args.seed
        while done < args.count:
            n = min(args.per_module, args.count - done)
            progs = gen.generate(seed, ops, n, target=args.target)
            policy = args.policy or ["soft", "strict", "cost"][seed % 3]
            r.module("m%d" % seed, progs, policy)
            done += n
            seed += 1
            if args.verbose:
                print("seed %d: %s (%.0f s)" % (seed - 1, r.stats, time.time() - start), flush=True)
    s = r.stats
    if args.build_only:
        print("built %d programs into %s (%d compiles, %.0f s)" % (s["programs"], r.work, r.compiles,
                                                                  time.time() - start))
        return 0
    print("(%d compiles, %.0f s)" % (r.compiles, time.time() - start))
    others = ", ".join("%d %s" % (s[k], {"compile": "compile errors", "crash": "crashes",
                                         "run": "run errors",
                                         "skipped": "skipped (a GEMM on a GPU without cuBLAS)"}[k])
                       for k in ("compile", "crash", "run", "skipped") if s[k])
    print("%d programs, %d passed, %d mismatches%s" % (s["programs"], s["passed"], s["mismatch"],
                                                      ", " + others if others else ""))
    return 0 if s["passed"] + s["skipped"] == s["programs"] else 1


if __name__ == "__main__":
    sys.exit(main())
