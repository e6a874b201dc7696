#!/usr/bin/env python3
"""Large results written with non-temporal vector stores (tide-stream-stores)
against NumPy: elementwise functions whose result is 8 MiB or more, with rows
whose length is not a multiple of the vector (so that rows start at every
alignment: scalar head, vector body, scalar tail), broadcasts along and across
rows, f64, i32, a comparison and a select, a cast to f64, exp and expm1
(computed inline on vectors), and a 1-D result that parallel code cuts into
chunks. Each is compiled for this CPU (parallel
and --cpu-threads=1), for x86-64-v3 (32-byte stores) and x86-64 (16-byte
ones), run on 1 and 2 threads, and must equal NumPy's result exactly (exp and
expm1: within 2 ulp, and equal to the build with ordinary stores); the
code must hold non-temporal stores (vmovnt*), and none with
--cpu-stream-stores=false.

    stream_stores.py --tide-bin build/bin --tmp DIR
"""
import argparse
import os
import subprocess
import sys

import numpy as np


def binary(op, a, b, r, dt="f32"):
    return (f"func.func @f(%x: tensor<{a}x{dt}>, %y: tensor<{b}x{dt}>) -> tensor<{r}x{dt}> {{\n"
            f"  %z = tide.{op} %x, %y : tensor<{a}x{dt}>, tensor<{b}x{dt}>\n"
            f"  return %z : tensor<{r}x{dt}>\n}}\n")


WHERE = """func.func @f(%x: tensor<2048x1031xf32>, %y: tensor<2048x1031xf32>) -> tensor<2048x1031xf32> {
  %m = tide.cmp gt, %x, %y : tensor<2048x1031xf32>, tensor<2048x1031xf32>
  %z = tide.select %m, %x, %y : tensor<2048x1031xi1>, tensor<2048x1031xf32>, tensor<2048x1031xf32>
  %w = tide.sqrt %z : tensor<2048x1031xf32>
  return %w : tensor<2048x1031xf32>
}
"""
RELU = """func.func @f(%x: tensor<1023x2051xf32>) -> tensor<1023x2051xf32> {
  %z = tide.relu %x : tensor<1023x2051xf32>
  return %z : tensor<1023x2051xf32>
}
"""
CHAIN = """func.func @f(%x: tensor<4194307xf32>, %a: tensor<f32>) -> tensor<4194307xf32> {
  %e = tide.exp %x : tensor<4194307xf32>
  %m = tide.mul %e, %a : tensor<4194307xf32>, tensor<f32>
  return %m : tensor<4194307xf32>
}
"""
ELU = """func.func @f(%x: tensor<1025x2049xf32>) -> tensor<1025x2049xf32> {
  %z = tide.elu %x : tensor<1025x2049xf32>
  return %z : tensor<1025x2049xf32>
}
"""
CAST = """func.func @f(%x: tensor<1536x1537xf32>) -> tensor<1536x1537xf64> {
  %z = tide.cast %x : tensor<1536x1537xf32> to tensor<1536x1537xf64>
  return %z : tensor<1536x1537xf64>
}
"""

F32, F64, I32 = np.float32, np.float64, np.int32
CASES = [
    # name, module, input shapes and types, reference
    ("add_1d", binary("add", "4194304", "4194304", "4194304"),
     [((4194304,), F32), ((4194304,), F32)], lambda x, y: x + y),
    ("relu_odd_rows", RELU, [((1023, 2051), F32)], lambda x: np.maximum(x, 0)),
    ("mul_row_f64", binary("mul", "1024x1100", "1100", "1024x1100", "f64"),
     [((1024, 1100), F64), ((1100,), F64)], lambda x, y: x * y),
    ("sub_column_3d", binary("sub", "64x129x257", "64x129x1", "64x129x257"),
     [((64, 129, 257), F32), ((64, 129, 1), F32)], lambda x, y: x - y),
    ("add_i32", binary("add", "2048x2049", "2048x2049", "2048x2049", "i32"),
     [((2048, 2049), I32), ((2048, 2049), I32)], lambda x, y: x + y),
    ("where_sqrt", WHERE, [((2048, 1031), F32), ((2048, 1031), F32)],
     lambda x, y: np.sqrt(np.maximum(x, y))),
    ("cast_f64", CAST, [((1536, 1537), F32)], lambda x: x.astype(F64)),
    # exp and expm1 computed inline on vectors: within 2 ulp of NumPy's f64
    # results, and equal to the same code with ordinary stores.
    ("exp_scale", CHAIN, [((4194307,), F32), ((), F32)],
     lambda x, a: (np.exp(x.astype(F64) - 50) * a).astype(F32)),
    ("elu_odd_rows", ELU, [((1025, 2049), F32)],
     lambda x: np.where(x > 50, x - 50, np.expm1(x.astype(F64) - 50)).astype(F32)),
]
# Cases whose inputs are shifted by -50 (exp and expm1 over [-50, 50)).
SHIFTED = ("exp_scale", "elu_odd_rows")
INEXACT = SHIFTED
BUILDS = [("off", ["--cpu-stream-stores=false"]), ("native", []),
          ("serial", ["--cpu-threads=1"]), ("avx2", ["--cpu=x86-64-v3"]),
          ("sse", ["--cpu=x86-64"])]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tide-bin", required=True)
    parser.add_argument("--tmp", required=True)
    args = parser.parse_args()
    os.makedirs(args.tmp, exist_ok=True)
    rng = np.random.default_rng(7)
    passed = failed = 0

    def report(ok, what):
        nonlocal passed, failed
        passed += ok
        failed += not ok
        print(("PASS " if ok else "FAIL ") + what)

    for name, source, inputs, reference in CASES:
        base = os.path.join(args.tmp, name)
        with open(base + ".mlir", "w") as f:
            f.write(source)
        arrays, flags = [], []
        for i, (shape, dt) in enumerate(inputs):
            if dt == I32:
                a = rng.integers(-1000, 1000, shape, dtype=I32)
            else:
                a = (rng.random(shape) * 100).astype(dt)
            if name in SHIFTED and shape:
                a = (a - 50).astype(dt)
            elif name in SHIFTED:
                a = np.asarray(0.75, dt)
            np.save(f"{base}.in{i}.npy", a)
            arrays.append(a)
            flags.append(f"--input={base}.in{i}.npy")
        if name in SHIFTED and len(arrays) > 1:
            want = reference(arrays[0] + 50, arrays[1])
        elif name in SHIFTED:
            want = reference(arrays[0] + 50)
        else:
            want = reference(*arrays)
        for build, options in BUILDS:
            lib = f"{base}.{build}.so"
            subprocess.run([os.path.join(args.tide_bin, "tide-compile"), base + ".mlir",
                            "--target=cpu", "--no-remarks", "-o", lib, *options], check=True)
            code = subprocess.run(["llvm-objdump", "-d", "--no-show-raw-insn", lib],
                                  capture_output=True, text=True, check=True).stdout
            streams = "movnt" in code
            report(streams == (build != "off"),
                   f"{name} {build}: non-temporal stores {'in' if streams else 'not in'} the code")
            for threads in ("1", "2"):
                out = f"{base}.{build}.{threads}.npy"
                run = subprocess.run([os.path.join(args.tide_bin, "tide-run"), lib, *flags,
                                      "--output=" + out], capture_output=True, text=True,
                                     env=dict(os.environ, TIDE_NUM_THREADS=threads))
                if run.returncode != 0:
                    report(False, f"{name} {build} T={threads}: {run.stderr.strip()[-300:]}")
                    continue
                got = np.load(out)
                if name not in INEXACT:
                    report(got.dtype == want.dtype and np.array_equal(got, want),
                           f"{name} {build} T={threads}: equal to NumPy")
                    continue
                close = got.dtype == want.dtype and np.allclose(
                    got, want, rtol=2.4e-7, atol=1e-30)
                report(close, f"{name} {build} T={threads}: within 2 ulp of NumPy")
                if build == "native":
                    same = np.array_equal(got, np.load(f"{base}.off.{threads}.npy"))
                    report(same, f"{name} {build} T={threads}: equal to ordinary stores")
            if build not in ("native", "off"):
                os.remove(lib)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
