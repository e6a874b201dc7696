#!/usr/bin/env python3
"""CPU benchmarks: Tide's compiled code against NumPy and ONNX Runtime.

Each case compiles a .mlir with tide-compile twice: single-threaded code
(--cpu-threads=1, no OpenMP) and parallel code (the default; TIDE_NUM_THREADS
picks the thread count at run time). It times the call with
`tide-run --repeat` (the call only; inputs prepared once) at 1 thread and at
all cores, and times the same computation in NumPy and, where an ONNX model of
it is built here, in ONNX Runtime at the same thread counts
(intra_op_num_threads; median of as many calls). Every result is checked
against NumPy before anything is timed. OpenBLAS (Tide's and NumPy's GEMM)
gets the same thread count through OPENBLAS_NUM_THREADS.

    /usr/bin/python3 bench/cpu.py [--bin build/bin] [--repeat N] [--only SUBSTR]
        [--flag=TIDE_COMPILE_FLAG ...]
    build/venv/bin/python bench/cpu.py ...     # with ONNX Runtime

Columns: `serial` = the --cpu-threads=1 build; `T=1`, `T=N` = the parallel build
on 1 and N threads; `xN` = T=1 / T=N (the speed-up); `/ort` = Tide / ONNX
Runtime at the same thread count (below 1.0: Tide is faster).
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


def case(name, mlir, inputs, numpy_fn, repeat_scale=1.0, onnx_fn=None):
    """onnx_fn(inputs) -> an onnx.ModelProto computing the same, or None."""
    CASES[name] = (mlir, inputs, numpy_fn, repeat_scale, onnx_fn)


def unary_mlir(op, dt, shape, attrs=""):
    t = f"tensor<{'x'.join(map(str, shape))}x{dt}>"
    return f"""func.func @f(%x: {t}) -> {t} {{
  %y = tide.{op} %x{attrs} : {t}
  return %y : {t}
}}"""


def reduce_mlir(dt, shape, axis):
    t = f"tensor<{'x'.join(map(str, shape))}x{dt}>"
    out = [d for i, d in enumerate(shape) if i != axis]
    r = f"tensor<{'x'.join(map(str, out))}x{dt}>" if out else f"tensor<{dt}>"
    return f"""func.func @f(%x: {t}) -> {r} {{
  %y = tide.reduce_sum %x axes = [{axis}] : {t}
  return %y : {r}
}}"""


def transpose_mlir(dt, shape):
    t = f"tensor<{shape[0]}x{shape[1]}x{dt}>"
    r = f"tensor<{shape[1]}x{shape[0]}x{dt}>"
    return f"""func.func @f(%x: {t}) -> {r} {{
  %y = tide.transpose %x perm = [1, 0] : {t}
  return %y : {r}
}}"""


def onnx_model(nodes, inputs, outputs, initializers=()):
    """A small ONNX model (opset 17); inputs/outputs: (name, array)."""
    from onnx import helper, mapping, numpy_helper

    def info(name, a):
        return helper.make_tensor_value_info(
            name, mapping.NP_TYPE_TO_TENSOR_TYPE[a.dtype], list(a.shape))
    graph = helper.make_graph(
        nodes, "bench", [info(n, a) for n, a in inputs],
        [info(n, a) for n, a in outputs],
        [numpy_helper.from_array(a, n) for n, a in initializers])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def onnx_unary(op, fn, **attrs):
    def build(inputs):
        from onnx import helper
        return onnx_model([helper.make_node(op, ["x"], ["y"], **attrs)],
                          [("x", inputs[0])], [("y", fn(*inputs))])
    return build


def onnx_fused(inputs):
    from onnx import helper
    x = inputs[0]
    a = np.array(0.5, dtype=x.dtype)
    b = np.array(1.0, dtype=x.dtype)
    return onnx_model([helper.make_node("Exp", ["x"], ["e"]),
                       helper.make_node("Mul", ["e", "a"], ["m"]),
                       helper.make_node("Add", ["m", "b"], ["y"])],
                      [("x", x)], [("y", x)], [("a", a), ("b", b)])


def onnx_reduce(axis):
    def build(inputs):
        from onnx import helper
        x = inputs[0]
        axes = np.array([axis], dtype=np.int64)
        return onnx_model([helper.make_node("ReduceSum", ["x", "axes"], ["y"],
                                            keepdims=0)],
                          [("x", x)], [("y", x.sum(axis=axis))],
                          [("axes", axes)])
    return build


def onnx_gemm(inputs):
    from onnx import helper
    a, b = inputs
    return onnx_model([helper.make_node("MatMul", ["a", "b"], ["y"])],
                      [("a", a), ("b", b)], [("y", a @ b)])


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


def softmax_numpy(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def define_cases(rng):
    n = 230400
    for dt in ("f32", "f64"):
        npdt = np.float32 if dt == "f32" else np.float64
        case(f"exp {n} {dt}", exp_mlir(dt, n), [rand(n, npdt, rng)], np.exp,
             onnx_fn=onnx_unary("Exp", np.exp))
    big = 1 << 24
    case(f"exp(x)*a+b 2^24 f32", fused_mlir(big), [rand(big, np.float32, rng)],
         lambda x: np.exp(x) * np.float32(0.5) + np.float32(1.0), 0.05,
         onnx_fn=onnx_fused)
    # Below the grain: stays on one thread.
    for small in (1000, 20000):
        case(f"exp {small} f32 (small)", exp_mlir("f32", small),
             [rand(small, np.float32, rng)], np.exp,
             onnx_fn=onnx_unary("Exp", np.exp))
    for axis in (1, 0):
        shape = (4096, 2048)
        case(f"reduce_sum axis {axis} 4096x2048 f32",
             reduce_mlir("f32", shape, axis),
             [rand(shape, np.float32, rng)],
             lambda x, axis=axis: x.sum(axis=axis), 0.2,
             onnx_fn=onnx_reduce(axis))
    case("reduce_sum axis 1 64x1000 f32 (small)",
         reduce_mlir("f32", (64, 1000), 1), [rand((64, 1000), np.float32, rng)],
         lambda x: x.sum(axis=1), onnx_fn=onnx_reduce(1))
    case("softmax 4096x1000 f32", unary_mlir("softmax", "f32", (4096, 1000),
                                             " axis = 1"),
         [rand((4096, 1000), np.float32, rng)], softmax_numpy, 0.2,
         onnx_fn=onnx_unary("Softmax", softmax_numpy, axis=1))
    case("transpose 4096x4096 f32", transpose_mlir("f32", (4096, 4096)),
         [rand((4096, 4096), np.float32, rng)], lambda x: np.ascontiguousarray(x.T),
         0.1, onnx_fn=onnx_unary("Transpose", lambda x: x.T, perm=[1, 0]))
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
             lambda a, b: a @ b, 0.05, onnx_fn=onnx_gemm)


def time_numpy(fn, inputs, repeat):
    fn(*inputs)  # warm up
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn(*inputs)
        times.append(time.perf_counter() - t)
    times.sort()
    return times[len(times) // 2]


def check(name, what, got, want):
    """Fails the run when a result differs from NumPy's."""
    got = got if isinstance(got, (list, tuple)) else [got]
    want = want if isinstance(want, (list, tuple)) else [want]
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        rtol = 1e-4 if w.dtype == np.float32 else 1e-10
        if g.shape != w.shape or not np.allclose(g, w, rtol=rtol, atol=rtol):
            sys.exit(f"bench: {name}: {what} differs from NumPy "
                     f"(max abs diff {np.max(np.abs(g - w)) if g.shape == w.shape else 'shape'})")


def run_tide(args, lib, inputs_args, outputs, repeat, threads, tmp):
    env = dict(os.environ, TIDE_NUM_THREADS=str(threads),
               OPENBLAS_NUM_THREADS=str(threads))
    cmd = [os.path.join(args.bin, "tide-run"), lib, f"--repeat={repeat}"]
    cmd += inputs_args + [f"--output={o}" for o in outputs]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True,
                         env=env).stdout
    return float(re.search(r"median ([0-9.]+) us", out).group(1)) * 1e-6


def time_ort(model, inputs, repeat, threads):
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(model.SerializeToString(), options,
                                   providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]
    feed = dict(zip(names, inputs))
    result = session.run(None, feed)
    return time_numpy(lambda: session.run(None, feed), [], repeat), result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "build", "bin"))
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--only", default="", help="cases whose name has this")
    parser.add_argument("--flag", action="append", default=[],
                        help="an extra tide-compile flag (repeatable), e.g. "
                             "--flag=--cpu-vector-width=256")
    parser.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)),
                        help="the 'all cores' count (default: the affinity mask)")
    args = parser.parse_args()
    try:
        import onnxruntime  # noqa: F401
        have_ort = True
    except ImportError:
        have_ort = False
        print("(no onnxruntime in this Python: run it with build/venv/bin/python "
              "for the ONNX Runtime columns)")
    rng = np.random.default_rng(0)
    define_cases(rng)
    tmp = tempfile.mkdtemp(prefix="tide-bench-")
    n = args.threads
    print(f"{'case':36} {'serial':>9} {'T=1':>9} {f'T={n}':>9} {f'x{n}':>6} "
          f"{'numpy':>9} {'ort T=1':>9} {f'ort T={n}':>9} {'/ort 1':>7} {f'/ort {n}':>7}")
    for name, (mlir, inputs, fn, scale, onnx_fn) in CASES.items():
        if args.only not in name:
            continue
        repeat = max(5, int(args.repeat * scale))
        src = os.path.join(tmp, "case.mlir")
        with open(src, "w") as f:
            f.write(mlir)
        libs = {}
        for build, flag in (("serial", "--cpu-threads=1"), ("parallel", "--cpu-threads=0")):
            libs[build] = os.path.join(tmp, f"case_{build}.so")
            subprocess.run([os.path.join(args.bin, "tide-compile"), src, "-o",
                            libs[build], "--no-remarks", "--target=cpu", flag]
                           + args.flag, check=True)
        inputs_args = []
        for i, a in enumerate(inputs):
            path = os.path.join(tmp, f"in{i}.npy")
            np.save(path, a)
            inputs_args.append(f"--input={path}")
        nres = mlir.split("->", 1)[1].split("{", 1)[0].count("tensor<")
        outputs = [f"{tmp}/out{i}.npy" for i in range(nres)]
        want = fn(*inputs)
        times = {}
        for label, lib, threads in (("serial", libs["serial"], 1),
                                    ("T=1", libs["parallel"], 1),
                                    ("T=N", libs["parallel"], n)):
            # Checked first: one call, then the timed calls.
            run_tide(args, lib, inputs_args, outputs, 1, threads, tmp)
            check(name, f"Tide ({label})", [np.load(o) for o in outputs], want)
            times[label] = run_tide(args, lib, inputs_args, outputs, repeat,
                                    threads, tmp)
        ref = time_numpy(fn, inputs, repeat)
        ort1 = ortn = None
        if have_ort and onnx_fn is not None:
            model = onnx_fn(inputs)
            ort1, got = time_ort(model, inputs, repeat, 1)
            check(name, "ONNX Runtime (1 thread)", got, want)
            ortn, got = time_ort(model, inputs, repeat, n)
            check(name, f"ONNX Runtime ({n} threads)", got, want)

        def us(t):
            return f"{t * 1e6:8.1f}u" if t is not None else f"{'n/a':>9}"

        def ratio(a, b):
            return f"{a / b:6.2f}x" if b else f"{'n/a':>7}"
        print(f"{name:36} {us(times['serial'])} {us(times['T=1'])} {us(times['T=N'])} "
              f"{times['T=1'] / times['T=N']:5.2f}x {us(ref)} {us(ort1)} {us(ortn)} "
              f"{ratio(times['T=1'], ort1)} {ratio(times['T=N'], ortn)}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
