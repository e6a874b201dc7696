#!/usr/bin/env python3
"""Parallel CPU code against NumPy: every case is compiled by tide-compile
(parallel code, and with --grain=1000 so that mid-sized nests are shared out
too) and run by tide-run on 1, 2 and 3 threads (TIDE_NUM_THREADS); results
must match NumPy. Sizes are odd, below and above the grain; some shapes are
dynamic, so that the thread count is decided at run time. Also checks which
libraries call the OpenMP runtime, and the errors for a bad TIDE_NUM_THREADS.

    parallel.py --tide-bin build/bin --tmp DIR
"""
import argparse
import os
import subprocess
import sys

import numpy as np

F32 = np.float32


def t(shape, dt="f32"):
    return "tensor<" + "".join(f"{d}x" for d in shape) + dt + ">"


def unary(op, shape, attrs="", rshape=None, dt="f32"):
    rshape = shape if rshape is None else rshape
    return (f"func.func @f(%x: {t(shape, dt)}) -> {t(rshape, dt)} {{\n"
            f"  %y = tide.{op} %x{attrs} : {t(shape, dt)}\n"
            f"  return %y : {t(rshape, dt)}\n}}\n")


def chain(shape):
    ty = t(shape)
    return (f"func.func @f(%x: {ty}, %a: {ty}) -> {ty} {{\n"
            f"  %e = tide.exp %x : {ty}\n"
            f"  %m = tide.mul %e, %a : {ty}\n"
            f"  %r = tide.add %m, %x : {ty}\n"
            f"  return %r : {ty}\n}}\n")


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def cases(rng):
    def r(*shape):
        return rng.random(shape).astype(F32)
    yield "exp 7 (tiny)", unary("exp", [7]), [r(7)], np.exp
    yield "exp 4099 (below the grain)", unary("exp", [4099]), [r(4099)], np.exp
    yield "exp 100003 (above)", unary("exp", [100003]), [r(100003)], np.exp
    yield "exp 3x1x70001", unary("exp", [3, 1, 70001]), [r(3, 1, 70001)], np.exp
    # Chunks of the one parallel dimension (tide-parallelize-loops).
    yield "exp 262144 (chunks of 4096)", unary("exp", [262144]), [r(262144)], np.exp
    yield ("exp(x)*a+x 1x1x74496 (chunks of 256)", chain([1, 1, 74496]),
           [r(1, 1, 74496), r(1, 1, 74496)], lambda x, a: np.exp(x) * a + x)
    yield "exp ?x? 517x333", unary("exp", ["?", "?"]), [r(517, 333)], np.exp
    yield "exp ?x? 5x3 (dynamic, small)", unary("exp", ["?", "?"]), [r(5, 3)], np.exp
    yield ("exp(x)*a+x 301x257", chain([301, 257]), [r(301, 257), r(301, 257)],
           lambda x, a: np.exp(x) * a + x)
    yield ("reduce_sum axis 1 513x1027", unary("reduce_sum", [513, 1027], " axes = [1]", [513]),
           [r(513, 1027)], lambda x: x.sum(axis=1))
    yield ("reduce_sum axis 0 513x1027", unary("reduce_sum", [513, 1027], " axes = [0]", [1027]),
           [r(513, 1027)], lambda x: x.sum(axis=0))
    # Large enough to be split over the rows (tide-split-column-reductions).
    yield ("reduce_sum axis 0 2048x1031 (split)",
           unary("reduce_sum", [2048, 1031], " axes = [0]", [1031]),
           [r(2048, 1031)], lambda x: x.sum(axis=0))
    yield ("reduce_max axis 0 1024x2, 4096 (split)",
           unary("reduce_max", [1024, 2, 4096], " axes = [0]", [2, 4096]),
           [r(1024, 2, 4096)], lambda x: x.max(axis=0))
    yield ("reduce_sum all 100003", unary("reduce_sum", [100003], " axes = [0]", []),
           [r(100003)], lambda x: x.sum())
    # Full reductions large enough to be split into slices the threads share
    # (tide-split-column-reductions); the matrix's collapsed first.
    yield ("reduce_sum all 1179648 (split)",
           unary("reduce_sum", [1179648], " axes = [0]", []),
           [r(1179648)], lambda x: x.sum())
    yield ("reduce_sum all keepdims 1024x1030 (split)",
           unary("reduce_sum", [1024, 1030], " axes = [0, 1] keepdims", [1, 1]),
           [r(1024, 1030)], lambda x: x.sum(keepdims=True))
    yield ("reduce_max all 1024x1030 (collapsed, split)",
           unary("reduce_max", [1024, 1030], " axes = [0, 1]", []),
           [r(1024, 1030)], lambda x: x.max())
    yield ("reduce_max axis 1 ?x? 129x3001", unary("reduce_max", ["?", "?"], " axes = [1]", ["?"]),
           [r(129, 3001)], lambda x: x.max(axis=1))
    yield ("softmax 1001x257", unary("softmax", [1001, 257], " axis = 1"),
           [r(1001, 257)], softmax)
    yield ("transpose 1023x771", unary("transpose", [1023, 771], " perm = [1, 0]", [771, 1023]),
           [r(1023, 771)], lambda x: np.ascontiguousarray(x.T))
    # 16x16 vector blocks with edges; a result of 8 MiB or more written with
    # non-temporal stores; 32-bit integers; NCHW -> NHWC; dynamic sizes.
    yield ("transpose 2050x1030 (streaming stores)",
           unary("transpose", [2050, 1030], " perm = [1, 0]", [1030, 2050]),
           [r(2050, 1030)], lambda x: np.ascontiguousarray(x.T))
    xi = rng.integers(-2**31, 2**31 - 1, (300, 517), dtype=np.int32)
    yield ("transpose i32 300x517",
           unary("transpose", [300, 517], " perm = [1, 0]", [517, 300], dt="i32"),
           [xi], lambda x: np.ascontiguousarray(x.T))
    yield ("transpose NCHW->NHWC 2x67x9x33",
           unary("transpose", [2, 67, 9, 33], " perm = [0, 2, 3, 1]", [2, 9, 33, 67]),
           [r(2, 67, 9, 33)], lambda x: np.ascontiguousarray(x.transpose(0, 2, 3, 1)))
    yield ("transpose ?x? 129x4099",
           unary("transpose", ["?", "?"], " perm = [1, 0]", ["?", "?"]),
           [r(129, 4099)], lambda x: np.ascontiguousarray(x.T))
    x64 = rng.random((257, 1031))
    yield ("log f64 257x1031", unary("log", [257, 1031], dt="f64"), [x64], np.log)


def run(cmd, env=None):
    return subprocess.run(cmd, capture_output=True, text=True, env=env)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tide-bin", required=True)
    parser.add_argument("--tmp", required=True)
    args = parser.parse_args()
    os.makedirs(args.tmp, exist_ok=True)
    compile_ = os.path.join(args.tide_bin, "tide-compile")
    runner = os.path.join(args.tide_bin, "tide-run")
    rng = np.random.default_rng(16)
    passed = failed = 0
    for i, (name, mlir, inputs, fn) in enumerate(cases(rng)):
        src = os.path.join(args.tmp, f"c{i}.mlir")
        with open(src, "w") as f:
            f.write(mlir)
        ins = []
        for j, a in enumerate(inputs):
            path = os.path.join(args.tmp, f"c{i}_in{j}.npy")
            np.save(path, a)
            ins.append(f"--input={path}")
        want = fn(*inputs)
        for grain in ("default", "1000"):
            lib = os.path.join(args.tmp, f"c{i}_{grain}.so")
            cmd = [compile_, src, "-o", lib, "--target=cpu", "--no-remarks"]
            if grain != "default":
                cmd.append(f"--grain={grain}")
            p = run(cmd)
            if p.returncode != 0:
                print(f"FAIL {name} (grain {grain}): tide-compile: {p.stderr}")
                failed += 1
                continue
            for threads in ("1", "2", "3"):
                out = os.path.join(args.tmp, f"c{i}_out.npy")
                env = dict(os.environ, TIDE_NUM_THREADS=threads)
                p = run([runner, lib, *ins, f"--output={out}"], env)
                if p.returncode != 0:
                    print(f"FAIL {name} (grain {grain}, {threads} threads): {p.stderr}")
                    failed += 1
                    continue
                got = np.load(out)
                tol = 1e-5 if got.dtype == F32 else 1e-13
                if got.shape != np.shape(want) or not np.allclose(got, want, rtol=tol, atol=tol):
                    print(f"FAIL {name} (grain {grain}, {threads} threads): "
                          f"differs from NumPy")
                    failed += 1
                else:
                    passed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
