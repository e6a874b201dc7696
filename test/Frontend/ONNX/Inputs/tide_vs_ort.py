#!/usr/bin/env python3
"""Runs a compiled model with tide-run and the ONNX model with ONNX Runtime
on the same inputs (MODEL_in0.npy, MODEL_in1.npy, ... next to the model) and
compares every output:

    tide_vs_ort.py MODEL.onnx MODEL.so RTOL ATOL [TAG]

With TAG the inputs are MODEL_TAG_in0.npy, ... (one compiled module run on
several input sets: batch sizes). When MODEL_ref.onnx exists, ONNX Runtime runs that equivalent model instead
(for attributes ONNX Runtime lacks, such as the batch-major layout of the
recurrent ops). Prints one line per output (`NAME: max abs error E ok`, or MISMATCH, or the
dtype/shape difference); exits 1 if any output differs.
"""
import glob
import os
import re
import subprocess
import sys

import numpy as np
import onnxruntime as ort

model, lib, rtol, atol = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
base = model[:-len(".onnx")]
ref = base + "_ref.onnx"
if len(sys.argv) > 5:
    base += "_" + sys.argv[5]
files = sorted(glob.glob(base + "_in*.npy"),
               key=lambda f: int(re.search(r"_in(\d+)\.npy$", f).group(1)))
sess = ort.InferenceSession(ref if os.path.exists(ref) else model,
                            providers=["CPUExecutionProvider"])
feeds = {i.name: np.load(f) for i, f in zip(sess.get_inputs(), files)}
want = sess.run(None, feeds)
names = [o.name for o in sess.get_outputs()]
outs = ["%s_tide%d.npy" % (base, k) for k in range(len(names))]
cmd = ["tide-run", lib] + ["--input=" + f for f in files] + ["--output=" + f for f in outs]
subprocess.run(cmd, check=True)
bad = 0
for name, got, ref in zip(names, outs, want):
    a = np.load(got)
    if a.shape != ref.shape or a.dtype != ref.dtype:
        print("%s: %s %s, expected %s %s" % (name, a.dtype, a.shape, ref.dtype, ref.shape))
        bad = 1
        continue
    # NaN where ONNX Runtime has NaN matches (and counts no error).
    both_nan = np.isnan(a) & np.isnan(ref) if a.dtype.kind == "f" else np.zeros(a.shape, bool)
    with np.errstate(invalid="ignore"):  # inf - inf where both are inf
        diff = np.abs(a.astype(np.float64) - ref)
    err = float(np.max(np.where(both_nan | (a == ref), 0, diff))) if a.size else 0.0
    ok = np.allclose(a, ref, rtol=rtol, atol=atol, equal_nan=True)
    if a.dtype.kind in "iub" and rtol == 0 and atol == 0:
        ok = np.array_equal(a, ref)  # exactly (int64 past 2^53 too)
    print("%s: max abs error %.3g %s [%s]" % (name, err, "ok" if ok else "MISMATCH",
                                            "x".join(map(str, a.shape))))
    bad |= not ok
sys.exit(bad)
