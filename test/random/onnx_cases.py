#!/usr/bin/env python3
"""Runs ONNX cases built elsewhere and compares them with ONNX Runtime's
stored outputs: what a GPU machine with only the NVIDIA driver, Python and
NumPy can do with the graphs test/random/onnx_diff.py built for it.

Each case is a folder holding model.so (tide-compile's module), in0.npy,
in1.npy, ... and want0.npy, want1.npy, ... (ONNX Runtime's outputs):
onnx_diff.py --target h200 --cpu x86-64-v3 --build-only --keep --work DIR
writes one per graph (DIR/gSEED). There:

    onnx_cases.py --tide-run bin/tide-run DIR [DIR ...]

prints one line per case that does not pass and a summary (`N cases, N
passed, N mismatches, N errors`); exits 1 if any did not pass. `compare` is
onnx_diff.py's comparison too.
"""
import argparse
import os
import subprocess
import sys

import numpy as np


def compare(got, want):
    if got.dtype != want.dtype:
        return "dtype %s, ONNX Runtime %s" % (got.dtype, want.dtype)
    if got.shape != want.shape:
        # ONNX Runtime gives a Loop's scan output of no iterations the shape
        # (0,), whatever its rank: an empty result of Tide's shape is that.
        if want.shape == (0,) and got.size == 0 and got.ndim >= 1 and got.shape[0] == 0:
            return None
        return "shape %s, ONNX Runtime %s" % (got.shape, want.shape)
    if want.dtype.kind != "f":
        bad = got != want
        if np.any(bad):
            i = np.argwhere(bad)[0]
            return "at %s: %s, ONNX Runtime %s (%d differ)" % (
                tuple(i), got[tuple(i)], want[tuple(i)], int(bad.sum()))
        return None
    g64 = got.astype(np.float64)
    w64 = want.astype(np.float64)
    finite = np.isfinite(w64)
    scale = float(np.max(np.abs(w64[finite]))) if np.any(finite) else 0.0
    rtol = 1e-3 if want.dtype != np.float16 else 4e-3
    atol = 1e-4 * max(scale, 1.0) if want.dtype != np.float16 else 4e-3 * max(scale, 1.0)
    with np.errstate(all="ignore"):
        ok = np.where(finite, np.abs(g64 - w64) <= atol + rtol * np.abs(w64),
                      (np.isnan(w64) & np.isnan(g64)) | (g64 == w64))
    if not np.all(ok):
        i = tuple(np.argwhere(~ok)[0])
        return "at %s: %r, ONNX Runtime %r (%d of %d differ)" % (
            i, got[i], want[i], int((~ok).sum()), ok.size)
    return None



def run_case(tide_run, case):
    """(kind, why) for one case folder."""
    ins = sorted((f for f in os.listdir(case) if f.startswith("in") and f.endswith(".npy")),
                 key=lambda f: int(f[2:-4]))
    wants = sorted((f for f in os.listdir(case) if f.startswith("want") and f.endswith(".npy")),
                   key=lambda f: int(f[4:-4]))
    got = [os.path.join(case, "got%d.npy" % i) for i in range(len(wants))]
    cmd = [tide_run, os.path.join(case, "model.so")]
    cmd += ["--input=" + os.path.join(case, f) for f in ins]
    cmd += ["--output=" + f for f in got]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return "error", "timed out"
    if p.returncode != 0:
        lines = (p.stderr or p.stdout).strip().splitlines() or ["(no output)"]
        return "error", "run: " + lines[-1][:300]
    for i, (f, w) in enumerate(zip(got, wants)):
        problem = compare(np.load(f), np.load(os.path.join(case, w)))
        if problem:
            return "mismatch", "output %d: %s" % (i, problem)
    return "pass", ""


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tide-run", required=True)
    p.add_argument("dirs", nargs="+", help="case folders, or folders of them")
    args = p.parse_args()
    cases = []
    for d in args.dirs:
        if os.path.exists(os.path.join(d, "model.so")):
            cases.append(d)
        else:
            cases += sorted(os.path.join(d, c) for c in os.listdir(d)
                            if os.path.exists(os.path.join(d, c, "model.so")))
    counts = {"pass": 0, "mismatch": 0, "error": 0}
    for case in cases:
        kind, why = run_case(args.tide_run, case)
        counts[kind] += 1
        if kind != "pass":
            print("%s: %s: %s" % (case, kind, why), flush=True)
    print("%d cases, %d passed, %d mismatches, %d errors"
          % (len(cases), counts["pass"], counts["mismatch"], counts["error"]))
    return 0 if counts["pass"] == len(cases) else 1


if __name__ == "__main__":
    sys.exit(main())
