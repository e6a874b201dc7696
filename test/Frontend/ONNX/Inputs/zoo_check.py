#!/usr/bin/env python3
"""Compiles every model export_zoo.py wrote and compares Tide's outputs with
ONNX Runtime's on the same inputs:

    zoo_check.py DIR --tide-bin build/bin [--target cpu] [--rtol R] [--atol A]
    zoo_check.py DIR --tide-bin build/bin --target h200 --pack OUT_DIR

For the CPU, each model is compiled, run with tide-run and compared here. With
--pack (a GPU target, compiled here with no GPU), the modules, their inputs
and ONNX Runtime's outputs (MODEL_ref0.npy, ...) are written to OUT_DIR, and
`zoo_check.py OUT_DIR --run --tide-bin BIN` on the GPU machine (Python, NumPy
and tide-run only) runs and compares them. Prints one line per model; exits 1
when any model failed to compile, run or match. Where PyTorch's outputs are
next to a model (MODEL_torch0.npy, ...: a float16 export), they are the
reference instead of ONNX Runtime's.
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys

import numpy as np


def numbered(pattern, tag):
    return sorted(glob.glob(pattern),
                  key=lambda f: int(re.search(r"_%s(\d+)\.npy$" % tag, f).group(1)))


def compare(outs, refs, rtol, atol):
    bad, msg = 0, []
    for o, want in zip(outs, refs):
        got = np.load(o)
        if got.shape != want.shape or got.dtype != want.dtype:
            msg.append("%s %s, expected %s %s" % (got.dtype, got.shape, want.dtype, want.shape))
            bad = 1
            continue
        err = float(np.max(np.abs(got.astype(np.float64) - want))) if got.size else 0.0
        ok = np.allclose(got, want, rtol=rtol, atol=atol)
        msg.append("max abs error %.3g %s" % (err, "ok" if ok else "MISMATCH"))
        bad |= not ok
    return bad, "; ".join(msg)


def run(tide_bin, lib, inputs, nout, work):
    outs = [os.path.join(work, "%s_out%d.npy" % (os.path.basename(lib), k)) for k in range(nout)]
    r = subprocess.run([os.path.join(tide_bin, "tide-run"), lib]
                       + ["--input=" + f for f in inputs] + ["--output=" + o for o in outs],
                       capture_output=True, text=True)
    return outs, (r.stderr.strip().splitlines() or ["exit %d" % r.returncode])[-1] if r.returncode else None


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("dir")
    p.add_argument("--tide-bin", required=True)
    p.add_argument("--target", default="cpu")
    p.add_argument("--rtol", type=float, default=1e-3)
    p.add_argument("--atol", type=float, default=1e-4)
    p.add_argument("--pack", help="write GPU modules, inputs and references here")
    p.add_argument("--run", action="store_true", help="run a packed directory")
    args = p.parse_args()
    failed = 0
    if args.run:
        for lib in sorted(glob.glob(os.path.join(args.dir, "*.so"))):
            base = lib[:-3]
            refs = [np.load(f) for f in numbered(base + "_ref*.npy", "ref")]
            outs, err = run(args.tide_bin, lib, numbered(base + "_in*.npy", "in"), len(refs), "/tmp")
            bad, msg = (1, "run failed: " + err) if err else compare(outs, refs, args.rtol, args.atol)
            failed += bad
            print("%s: %s" % (os.path.basename(base), msg))
        print("%d failed" % failed)
        return 1 if failed else 0

    import onnxruntime as ort
    if args.pack:
        os.makedirs(args.pack, exist_ok=True)
    for model in sorted(glob.glob(os.path.join(args.dir, "*.onnx"))):
        base = model[:-len(".onnx")]
        name = os.path.basename(base)
        inputs = numbered(base + "_in*.npy", "in")
        torch_refs = numbered(base + "_torch*.npy", "torch")
        try:
            if torch_refs:  # PyTorch's outputs (a float16 export, ZOO_HALF)
                refs = [np.load(f) for f in torch_refs]
                raise StopIteration
            sess = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
            refs = sess.run(None, {i.name: np.load(f)
                                   for i, f in zip(sess.get_inputs(), inputs)})
        except StopIteration:
            pass
        except Exception as e:  # the export fixed a size the inputs do not have
            print("%s: skipped: ONNX Runtime: %s" % (name, str(e).strip().splitlines()[0][:200]))
            continue
        lib = os.path.join(args.pack or args.dir, name + ".so")
        c = subprocess.run([os.path.join(args.tide_bin, "tide-compile"), model,
                            "--target=" + args.target, "-o", lib, "--no-remarks"],
                           capture_output=True, text=True)
        if c.returncode:
            failed += 1
            print("%s: compile failed: %s" % (name, c.stderr.strip()[:400]))
            continue
        if args.pack:
            for f in inputs:
                shutil.copy(f, args.pack)
            for k, r in enumerate(refs):
                np.save(os.path.join(args.pack, "%s_ref%d.npy" % (name, k)), r)
            print("%s: packed" % name)
            continue
        outs, err = run(args.tide_bin, lib, inputs, len(refs), args.dir)
        bad, msg = (1, "run failed: " + err) if err else compare(
            outs, refs, args.rtol, args.atol)
        failed += bad
        print("%s: %s" % (name, msg))
    print("%d failed" % failed)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
