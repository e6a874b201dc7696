#!/usr/bin/env python3
"""Compares .npy files pairwise: compare.py RTOL ATOL GOT WANT [GOT WANT]...
Prints the largest error of each pair (NaN equals NaN); exits 1 if any pair
differs."""
import sys

import numpy as np

rtol, atol = float(sys.argv[1]), float(sys.argv[2])
files = sys.argv[3:]
bad = 0
for got, want in zip(files[::2], files[1::2]):
    a, b = np.load(got), np.load(want)
    if a.shape != b.shape or a.dtype != b.dtype:
        print("%s: %s %s, expected %s %s" % (got, a.dtype, a.shape, b.dtype, b.shape))
        bad = 1
        continue
    # NaN where both have NaN is equal.
    fa, fb = a.astype(np.float64), b.astype(np.float64)
    same = (fa == fb) | (np.isnan(fa) & np.isnan(fb))
    diff = np.abs(fa[~same] - fb[~same])
    err = float(np.max(diff)) if diff.size else 0.0
    ok = np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True)
    print("%s: max abs error %.3g %s" % (got.split("/")[-1], err, "ok" if ok else "MISMATCH"))
    bad |= not ok
sys.exit(bad)
