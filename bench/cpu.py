#!/usr/bin/env python3
"""CPU benchmarks: Tide's compiled code against NumPy, measured in one run.

Each case compiles a .mlir with tide-compile, times the call with
`tide-run --repeat` (the call only; inputs prepared once), and times the same
computation in NumPy (median of as many calls). Prints medians and the ratio
tide/numpy (below 1.0: Tide is faster).

    /usr/bin/python3 bench/cpu.py [--bin build/bin] [--repeat N]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

CASES = {}


def case(name, mlir, inputs, numpy_fn, repeat_scale=1.0):
    CASES[name] = (mlir, inputs, numpy_fn, repeat_scale)


def exp_mlir(dt, n):
    return f"""func.func @f(%x: tensor<{n}x{dt}>) -> tensor<{n}x{dt}> {{
  %y = tide.exp %x : tensor<{n}x{dt}>
  return %y : tensor<{n}x{dt}>
}}"""


def fused_mlir(n):
    t = f"tensor<{n}xf32>"
    return f"""func.func @f(%x: {t}) -> {t} {{
  %a = tide.constant dense<0.5> : tensor<f32>
  %b = tide.constant dense<1.0> : tensor<f32>
  %e = tide.exp %x : {t}
  %m = tide.mul %e, %a : {t}, tensor<f32>
  %r = tide.add %m, %b : {t}, tensor<f32>
  return %r : {t}
}}"""


def gemm_mlir(dt, n):
    t = f"tensor<{n}x{n}x{dt}>"
    return f"""func.func @f(%a: {t}, %b: {t}) -> {t} {{
  %c = tide.matmul %a, %b : {t}
  return %c : {t}
}}"""


def rand(shape, dt, rng, scale=1.0):
    return (rng.random(shape) * scale).astype(dt)


def mlp_inputs(dt, rng):
    def w(*s):
        return ((rng.random(s) - 0.5) * 0.1).astype(dt)
    x = rng.random((256, 784)).astype(dt)
    labels = np.eye(10, dtype=dt)[rng.integers(0, 10, 256)]
    return [x, labels, w(784, 256), w(256), w(256, 256), w(256), w(256, 10), w(10)]


def mlp_numpy(x, labels, w1, b1, w2, b2, w3, b3):
    def elu(v):
        return np.where(v > 0, v, np.expm1(v))
    h1 = elu(x @ w1 + b1)
    h2 = elu(h1 @ w2 + b2)
    logits = h2 @ w3 + b3
    shifted = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(shifted)
    s = e.sum(axis=1, keepdims=True)
    probs = e / s
    logp = shifted - np.log(s)
    loss = (-(labels * logp).sum(axis=1)).mean()
    return probs, loss


def define_cases(rng):
    n = 230400
    for dt in ("f32", "f64"):
        npdt = np.float32 if dt == "f32" else np.float64
        case(f"exp {n} {dt}", exp_mlir(dt, n), [rand(n, npdt, rng)], np.exp)
    big = 1 << 24
    case(f"exp(x)*a+b 2^24 f32", fused_mlir(big), [rand(big, np.float32, rng)],
         lambda x: np.exp(x) * np.float32(0.5) + np.float32(1.0), 0.05)
    here = os.path.dirname(os.path.abspath(__file__))
    for dt in ("f32", "f64"):
        npdt = np.float32 if dt == "f32" else np.float64
        with open(os.path.join(here, "..", "examples", f"mlp_{dt}.mlir")) as f:
            case(f"MLP forward b=256 {dt}", f.read(), mlp_inputs(npdt, rng),
                 mlp_numpy, 0.2)
    for dt in ("f32", "f64"):
        npdt = np.float32 if dt == "f32" else np.float64
        case(f"GEMM 1024^3 {dt}", gemm_mlir(dt, 1024),
             [rand((1024, 1024), npdt, rng), rand((1024, 1024), npdt, rng)],
             lambda a, b: a @ b, 0.05)


def time_numpy(fn, inputs, repeat):
    fn(*inputs)  # warm up
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn(*inputs)
        times.append(time.perf_counter() - t)
    times.sort()
    return times[len(times) // 2]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "build", "bin"))
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    define_cases(rng)
    tmp = tempfile.mkdtemp(prefix="tide-bench-")
    print(f"{'case':28} {'tide median':>12} {'numpy median':>13} {'tide/numpy':>11}")
    for name, (mlir, inputs, fn, scale) in CASES.items():
        repeat = max(5, int(args.repeat * scale))
        src = os.path.join(tmp, "case.mlir")
        lib = os.path.join(tmp, "case.so")
        with open(src, "w") as f:
            f.write(mlir)
        subprocess.run([os.path.join(args.bin, "tide-compile"), src, "-o", lib,
                        "--no-remarks"], check=True)
        cmd = [os.path.join(args.bin, "tide-run"), lib, f"--repeat={repeat}"]
        for i, a in enumerate(inputs):
            path = os.path.join(tmp, f"in{i}.npy")
            np.save(path, a)
            cmd.append(f"--input={path}")
        nres = mlir.split("->", 1)[1].split("{", 1)[0].count("tensor<")
        cmd += [f"--output={tmp}/out{i}.npy" for i in range(nres)]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        tide = float(re.search(r"median ([0-9.]+) us", out).group(1)) * 1e-6
        ref = time_numpy(fn, inputs, repeat)
        print(f"{name:28} {tide*1e6:10.1f}us {ref*1e6:11.1f}us {tide/ref:10.2f}x")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
