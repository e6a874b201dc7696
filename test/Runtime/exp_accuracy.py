#!/usr/bin/env python3
"""Host f32 exp and expm1 (tide-expand-host-exp; expm1 as tide.elu computes
it for x <= 0) against float64, in ulps of the exact result: every 251st f32
bit pattern in [-105, 89] (8.9e6 inputs, normal and subnormal results,
overflow, expm1 near 0), and the special values. Host f64 exp against the
x87 extended format's expl (NumPy's longdouble): 3e6 inputs over [-746, 710]
and the special values, bound 1 ulp.
Built for this machine's CPU (with AVX-512: the VSCALEFPS scale, its
exponent a float), the same with 256-bit vectors, and x86-64-v3 (the scale
built from the bits), each run by tide-run. Bounds: exp
1 ulp, expm1 1.5 ulp (its 2^k (e^r - 1) + (2^k - 1) rounds twice).

    exp_accuracy.py --tide-bin build/bin --tmp DIR
"""
import argparse
import os
import subprocess
import sys

import numpy as np

STEP = 251
# This CPU's code (with AVX-512: VSCALEF of 512-bit vectors, and of 256-bit
# ones with AVX512VL at --cpu-vector-width=256) and AVX2's (the scale built
# from the bits).
BUILDS = [("native", ["--cpu=native"]),
          ("native-256", ["--cpu=native", "--cpu-vector-width=256"]),
          ("x86-64-v3", ["--cpu=x86-64-v3"])]


def inputs():
    bits = np.arange(0, 1 << 32, STEP, dtype=np.uint64).astype(np.uint32)
    x = bits.view(np.float32)
    x = x[(x >= -105.0) & (x <= 89.0)]
    special = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 88.72283,
                        88.72284, -87.33654, -103.97, -103.98, -1e30, 1e30,
                        1e-45, -1e-45, 1e-30, -1e-30, 1e-7, -1e-7,
                        -17.0, -17.5, 17.0,
                        # Around the bounds below which every lane computes
                        # from 0 and gives 0 (exp) or -1 (expm1).
                        -103.972076, np.nextafter(np.float32(-103.972076),
                                                  np.float32(-200)),
                        -18.0, np.nextafter(np.float32(-18), np.float32(-20)),
                        np.nextafter(np.float32(-18), np.float32(0)), -1000.0,
                        -3e38], dtype=np.float32)
    return np.concatenate([special, x])


def inputs64():
    """f64: 3e6 inputs spread over [-746, 710] (random bit patterns of every
    exponent there and uniform values), and the special values."""
    rng = np.random.default_rng(7)
    bits = rng.integers(0, 1 << 63, size=2_000_000, dtype=np.uint64)
    x = bits.view(np.float64)
    x = x[np.isfinite(x)] * rng.choice([-1.0, 1.0], size=int(np.isfinite(x).sum()))
    x = x[(x >= -746.0) & (x <= 710.0)]
    u = rng.uniform(-746.0, 710.0, size=2_000_000)
    special = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-300, -1e-300, 5e-324,
                        709.782712893384, 709.7827128933841, 709.79, 710.0, 800.0, 1e300,
                        -708.3964185322641, -708.4, -744.44, -745.1332191019411,
                        -745.1332191019412, -745.14, -746.0, -1000.0, -1e300,
                        np.log(2.0) / 2, -np.log(2.0) / 2, 1.0, -1.0])
    return np.concatenate([special, x, u])


def ulp_errors(x, y, fn, wide=False):
    with np.errstate(over="ignore", invalid="ignore"):
        if wide:
            # The x87 extended format's 64-bit significand: exp(x) to about
            # a thousandth of an ulp of a double.
            exact = fn(x.astype(np.longdouble))
            _, e = np.frexp(exact)
            ulp = np.ldexp(np.longdouble(1.0), np.maximum(e - 53, -1074))
            err = (np.abs(y.astype(np.longdouble) - exact) / ulp).astype(np.float64)
            err[np.isinf(y) & (exact.astype(np.float64) == np.inf)] = 0.0
            return err
        exact = fn(x.astype(np.float64))
        _, e = np.frexp(exact)
        ulp = np.ldexp(1.0, np.maximum(e - 24, -149))
        err = np.abs(y.astype(np.float64) - exact) / ulp
        # Both overflow: exact.
        err[np.isinf(y) & (exact.astype(np.float32) == np.inf)] = 0.0
    return err


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tide-bin", required=True)
    ap.add_argument("--tmp", required=True)
    args = ap.parse_args()
    os.makedirs(args.tmp, exist_ok=True)
    failed = passed = 0
    # expm1 through tide.elu (alpha 1): x where x > 0, else expm1(x).
    def elu(v):
        return np.where(v > 0, v, np.expm1(v))
    for op, fn, bound, dtype in (("exp", np.exp, 1.0, "f32"), ("elu", elu, 1.5, "f32"),
                                 ("exp", np.exp, 1.0, "f64")):
        x = inputs64() if dtype == "f64" else inputs()
        n = x.size
        xin = os.path.join(args.tmp, f"x_{dtype}.npy")
        np.save(xin, x)
        src = os.path.join(args.tmp, f"{op}_{dtype}.mlir")
        with open(src, "w") as f:
            f.write(f"""func.func @f(%x: tensor<{n}x{dtype}>) -> tensor<{n}x{dtype}> {{
  %y = tide.{op} %x : tensor<{n}x{dtype}>
  return %y : tensor<{n}x{dtype}>
}}
""")
        for cpu, flags in BUILDS:
            lib = os.path.join(args.tmp, f"{op}_{dtype}_{cpu}.so")
            out = os.path.join(args.tmp, f"y_{op}_{dtype}_{cpu}.npy")
            subprocess.run([os.path.join(args.tide_bin, "tide-compile"), src,
                            "--target=cpu", "--no-remarks",
                            "--cpu-inline-f64-exp=true", "-o", lib] + flags,
                           check=True)
            subprocess.run([os.path.join(args.tide_bin, "tide-run"), lib,
                            f"--input={xin}", f"--output={out}"], check=True,
                           stdout=subprocess.DEVNULL)
            y = np.load(out)
            nan = np.isnan(x)
            err = ulp_errors(x[~nan], y[~nan], fn, wide=dtype == "f64")
            worst = int(np.argmax(err))
            # Signed zeros kept (expm1(-0) = -0).
            zeros = x == 0
            signs = bool((np.signbit(y[zeros]) == np.signbit(fn(x[zeros]))).all())
            nans = bool(np.isnan(y[nan]).all())
            ok = nans and signs and err.max() <= bound
            print(f"{'ok' if ok else 'FAIL'} {op} {dtype} {cpu}: {n} inputs, max error "
                  f"{err.max():.3f} ulp at x={x[~nan][worst]!r} (bound {bound}), "
                  f"NaN kept: {nans}, zero signs: {signs}")
            failed += not ok
            passed += ok
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
