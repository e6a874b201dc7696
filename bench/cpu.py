#!/usr/bin/env python3
"""CPU benchmarks: Tide's compiled code against NumPy, ONNX Runtime, IREE and
JAX, each at the same thread count.

Each case compiles a .mlir with tide-compile twice: single-threaded code
(--cpu-threads=1, no OpenMP) and parallel code (the default; TIDE_NUM_THREADS
picks the thread count at run time). It times the call with
`tide-run --repeat` (the call only; inputs prepared once) at 1 thread and at
all cores, and the same computation at the same thread counts in
- NumPy (OPENBLAS_NUM_THREADS; its other functions use one thread),
- ONNX Runtime (intra_op_num_threads; an ONNX model of the case),
- IREE (the same ONNX model through iree-import-onnx and iree-compile for
  llvm-cpu, the host CPU, f64 kept as f64; iree-benchmark-module with the
  local-sync driver for 1 thread and local-task with N task groups),
- JAX (jax.jit, in a worker process per thread count whose CPU affinity
  mask has that many CPUs: XLA sizes its thread pools from the mask; inputs
  on the device before timing, block_until_ready).
Every result is checked against NumPy before anything is timed. Peers not
installed are left out (n/a): run it with the bench venv for all of them.

    bench/venv.sh build/bench-venv     # ONNX Runtime, IREE, JAX (pinned)
    build/bench-venv/bin/python bench/cpu.py [--bin build/bin] [--repeat N]
        [--only SUBSTR] [--flag=TIDE_COMPILE_FLAG ...] [--peers ort,iree,jax]
        [--rounds K] [--rounds-detail]

Each case is timed in K rounds (default 3), one right after the other; a
round times every system once (Tide's three runs, NumPy, each peer at both
thread counts, JAX through a worker process per thread count that stays up
for the whole run), and each system's figure is the median of its calls in
its fastest round. On a shared machine a stretch of load then hits one
system's round, not its figure, and every system's figure comes from the same
minutes as the others'.

Columns: `serial` = the --cpu-threads=1 build; `T=1`, `T=N` = the parallel build
on 1 and N threads; `xN` = T=1 / T=N (the speed-up); per peer its figure at 1
and N threads; `/best 1`, `/best N` = Tide / the fastest peer at that thread
count (below 1.0: Tide is faster), with that peer's name.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

CASES = {}


def case(name, mlir, inputs, fn, repeat_scale=1.0, onnx_fn=None):
    """fn(xp, *inputs) computes the case with xp = numpy or jax.numpy;
    onnx_fn(inputs) -> an onnx.ModelProto computing the same, or None."""
    CASES[name] = (mlir, inputs, fn, repeat_scale, onnx_fn)


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
    from onnx import helper, numpy_helper

    def info(name, a):
        if hasattr(helper, "np_dtype_to_tensor_dtype"):  # onnx >= 1.13
            elem = helper.np_dtype_to_tensor_dtype(a.dtype)
        else:
            from onnx import mapping
            elem = mapping.NP_TYPE_TO_TENSOR_TYPE[a.dtype]
        return helper.make_tensor_value_info(name, elem, list(a.shape))
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


def onnx_mlp(inputs):
    """examples/mlp_*.mlir as ONNX: two Gemm+Elu layers, a Gemm, Softmax,
    and the mean cross-entropy of LogSoftmax."""
    from onnx import helper
    x, labels = inputs[0], inputs[1]
    dt = x.dtype
    nodes = [
        helper.make_node("Gemm", ["x", "w1", "b1"], ["g1"]),
        helper.make_node("Elu", ["g1"], ["h1"]),
        helper.make_node("Gemm", ["h1", "w2", "b2"], ["g2"]),
        helper.make_node("Elu", ["g2"], ["h2"]),
        helper.make_node("Gemm", ["h2", "w3", "b3"], ["logits"]),
        helper.make_node("Softmax", ["logits"], ["probs"], axis=1),
        helper.make_node("LogSoftmax", ["logits"], ["logp"], axis=1),
        helper.make_node("Mul", ["labels", "logp"], ["lp"]),
        helper.make_node("ReduceSum", ["lp", "one"], ["rows"], keepdims=0),
        helper.make_node("ReduceMean", ["rows"], ["mean"], keepdims=0),
        helper.make_node("Neg", ["mean"], ["loss"]),
    ]
    names = ["x", "labels", "w1", "b1", "w2", "b2", "w3", "b3"]
    return onnx_model(nodes, list(zip(names, inputs)),
                      [("probs", x[:, :10]), ("loss", np.zeros((), dt))],
                      [("one", np.array([1], dtype=np.int64))])


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


def mlp_fn(xp, x, labels, w1, b1, w2, b2, w3, b3):
    def elu(v):
        return xp.where(v > 0, v, xp.expm1(v))
    h1 = elu(x @ w1 + b1)
    h2 = elu(h1 @ w2 + b2)
    logits = h2 @ w3 + b3
    shifted = logits - logits.max(axis=1, keepdims=True)
    e = xp.exp(shifted)
    s = e.sum(axis=1, keepdims=True)
    probs = e / s
    logp = shifted - xp.log(s)
    loss = (-(labels * logp).sum(axis=1)).mean()
    return probs, loss


def softmax_fn(xp, x):
    e = xp.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def softmax_numpy(x):
    return softmax_fn(np, x)


def exp_fn(xp, x):
    return xp.exp(x)


def transpose_fn(xp, x):
    # NumPy's x.T is a view: the copy is the work being timed.
    return np.ascontiguousarray(x.T) if xp is np else x.T


def define_cases(rng):
    n = 230400
    for dt in ("f32", "f64"):
        npdt = np.float32 if dt == "f32" else np.float64
        case(f"exp {n} {dt}", exp_mlir(dt, n), [rand(n, npdt, rng)], exp_fn,
             onnx_fn=onnx_unary("Exp", np.exp))
    big = 1 << 24
    case(f"exp(x)*a+b 2^24 f32", fused_mlir(big), [rand(big, np.float32, rng)],
         lambda xp, x: xp.exp(x) * np.float32(0.5) + np.float32(1.0), 0.05,
         onnx_fn=onnx_fused)
    # Below the grain: stays on one thread.
    for small in (1000, 20000):
        case(f"exp {small} f32 (small)", exp_mlir("f32", small),
             [rand(small, np.float32, rng)], exp_fn,
             onnx_fn=onnx_unary("Exp", np.exp))
    for axis in (1, 0):
        shape = (4096, 2048)
        case(f"reduce_sum axis {axis} 4096x2048 f32",
             reduce_mlir("f32", shape, axis),
             [rand(shape, np.float32, rng)],
             lambda xp, x, axis=axis: x.sum(axis=axis), 0.2,
             onnx_fn=onnx_reduce(axis))
    case("reduce_sum axis 1 64x1000 f32 (small)",
         reduce_mlir("f32", (64, 1000), 1), [rand((64, 1000), np.float32, rng)],
         lambda xp, x: x.sum(axis=1), onnx_fn=onnx_reduce(1))
    case("softmax 4096x1000 f32", unary_mlir("softmax", "f32", (4096, 1000),
                                             " axis = 1"),
         [rand((4096, 1000), np.float32, rng)], softmax_fn, 0.2,
         onnx_fn=onnx_unary("Softmax", softmax_numpy, axis=1))
    case("transpose 4096x4096 f32", transpose_mlir("f32", (4096, 4096)),
         [rand((4096, 4096), np.float32, rng)], transpose_fn,
         0.1, onnx_fn=onnx_unary("Transpose", lambda x: x.T, perm=[1, 0]))
    here = os.path.dirname(os.path.abspath(__file__))
    for dt in ("f32", "f64"):
        npdt = np.float32 if dt == "f32" else np.float64
        with open(os.path.join(here, "..", "examples", f"mlp_{dt}.mlir")) as f:
            case(f"MLP forward b=256 {dt}", f.read(), mlp_inputs(npdt, rng),
                 mlp_fn, 0.2, onnx_fn=onnx_mlp)
    for dt in ("f32", "f64"):
        npdt = np.float32 if dt == "f32" else np.float64
        case(f"GEMM 1024^3 {dt}", gemm_mlir(dt, 1024),
             [rand((1024, 1024), npdt, rng), rand((1024, 1024), npdt, rng)],
             gemm_fn, 0.05, onnx_fn=onnx_gemm)


def time_numpy(fn, inputs, repeat):
    fn(*inputs)  # warm up
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn(*inputs)
        times.append(time.perf_counter() - t)
    times.sort()
    return times[len(times) // 2]


def differs(got, want):
    """Why `got` is not NumPy's `want` (None when it matches)."""
    got = got if isinstance(got, (list, tuple)) else [got]
    want = want if isinstance(want, (list, tuple)) else [want]
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        rtol = 1e-4 if w.dtype == np.float32 else 1e-10
        if g.shape != w.shape:
            return f"shape {g.shape}, expected {w.shape}"
        if g.dtype != w.dtype:
            return f"dtype {g.dtype}, expected {w.dtype}"
        if not np.allclose(g, w, rtol=rtol, atol=rtol):
            return f"max abs diff {np.max(np.abs(g - w))}"
    return None


def check(name, what, got, want):
    """Fails the run when a Tide result differs from NumPy's."""
    why = differs(got, want)
    if why:
        sys.exit(f"bench: {name}: {what} differs from NumPy ({why})")


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


def iree_tool(name):
    """An IREE command-line tool of this Python's environment, or None."""
    path = os.path.join(os.path.dirname(sys.executable), name)
    return path if os.access(path, os.X_OK) else None


def build_iree(model, tmp):
    """The case's ONNX model compiled by IREE for this CPU: the .vmfb path."""
    import onnx
    src = os.path.join(tmp, "iree.onnx")
    onnx.save(model, src)
    mlir = os.path.join(tmp, "iree.mlir")
    vmfb = os.path.join(tmp, "iree.vmfb")
    subprocess.run([iree_tool("iree-import-onnx"), src, "-o", mlir],
                   check=True, capture_output=True)
    subprocess.run([iree_tool("iree-compile"), mlir, "-o", vmfb,
                    "--iree-hal-target-device=local",
                    "--iree-hal-local-target-device-backends=llvm-cpu",
                    "--iree-llvmcpu-target-cpu=host",
                    "--iree-input-demote-f64-to-f32=false"],
                   check=True, capture_output=True)
    return vmfb


def iree_device_flags(threads):
    if threads == 1:
        return ["--device=local-sync"]
    return ["--device=local-task", f"--task_topology_group_count={threads}"]


def run_iree(vmfb, input_files, nout, repeat, threads, tmp):
    """Checks nothing: returns (median seconds per call, outputs)."""
    inputs = [f"--input=@{f}" for f in input_files]
    outs = [os.path.join(tmp, f"iree_out{i}.npy") for i in range(nout)]
    subprocess.run([iree_tool("iree-run-module"), f"--module={vmfb}",
                    "--function=bench"] + iree_device_flags(threads) + inputs
                   + [f"--output=@{o}" for o in outs],
                   check=True, capture_output=True)
    result = [np.load(o) for o in outs]
    out = subprocess.run(
        [iree_tool("iree-benchmark-module"), f"--module={vmfb}",
         "--function=bench", "--benchmark_format=json",
         f"--benchmark_min_time={repeat}x", "--benchmark_repetitions=1"]
        + iree_device_flags(threads) + inputs,
        check=True, capture_output=True, text=True).stdout
    bench = json.loads(out)["benchmarks"][0]
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[bench["time_unit"]]
    return bench["real_time"] * scale, result


def jax_worker(args):
    """Serves timings of the cases in JAX at the thread count XLA_FLAGS set
    (this process was started for it): reads a case name per line on stdin,
    answers one JSON line, {"t": seconds} or {"why": reason}. The jitted
    function and the inputs on the device stay from one request for the same
    case to the next (the rounds of a case come one after another)."""
    # XLA's CPU runtime sizes its thread pools from the CPUs the process may
    # use, whatever XLA_FLAGS say (a 1-thread GEMM loop measured 154% CPU):
    # the worker keeps only as many CPUs as it is given threads.
    cpus = sorted(os.sched_getaffinity(0))
    os.sched_setaffinity(0, cpus[:args.jax_worker])
    import jax
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    rng = np.random.default_rng(0)
    define_cases(rng)
    current = None  # (name, jitted function, inputs on the device)
    for line in sys.stdin:
        name = line.strip()
        if not name:
            continue
        mlir, inputs, fn, scale, onnx_fn = CASES[name]
        try:
            if current is None or current[0] != name:
                current = None
                f = jax.jit(lambda *a, fn=fn: fn(jnp, *a))
                dev = [jax.device_put(a) for a in inputs]
                got = jax.block_until_ready(f(*dev))
                got = [np.asarray(g) for g in got] if isinstance(got, tuple) \
                    else np.asarray(got)
                why = differs(got, fn(np, *inputs))
                if why:
                    raise ValueError(f"wrong result: {why}")
                current = (name, f, dev)
            _, f, dev = current
            answer = {"t": time_numpy(lambda: jax.block_until_ready(f(*dev)),
                                      [], case_repeat(args, scale))}
        except Exception as e:  # noqa: BLE001 - reported, not raised
            answer = {"why": str(e).strip().splitlines()[-1][:160] or type(e).__name__}
        print(json.dumps(answer), flush=True)


class JaxWorker:
    """A JAX worker process at `threads` threads, kept for the whole run."""

    def __init__(self, args, threads):
        env = dict(os.environ)
        flags = [f"--xla_cpu_multi_thread_eigen={'false' if threads == 1 else 'true'}"]
        env["XLA_FLAGS"] = " ".join([env.get("XLA_FLAGS", "")] + flags).strip()
        env["JAX_PLATFORMS"] = "cpu"
        cmd = [sys.executable, os.path.abspath(__file__), f"--jax-worker={threads}",
               f"--repeat={args.repeat}"]
        self.threads = threads
        self.proc = subprocess.Popen(cmd, env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)

    def time(self, name):
        """Seconds per call of case `name`, or a string saying why none."""
        try:
            self.proc.stdin.write(name + "\n")
            self.proc.stdin.flush()
            line = self.proc.stdout.readline()
        except OSError as e:
            return f"the JAX worker at {self.threads} threads failed ({e})"
        if not line:
            return f"the JAX worker at {self.threads} threads exited"
        answer = json.loads(line)
        return answer.get("t", answer.get("why"))

    def close(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait()


def case_repeat(args, scale):
    # At least 20 calls: a median of fewer kept first calls (page faults of
    # fresh outputs, cold caches) in it: softmax 4096x1000 measured 4.8 ms
    # a call over 8 calls, 3.2 ms over 100.
    return max(20, int(args.repeat * scale))


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
    parser.add_argument("--peers", default="ort,iree,jax",
                        help="peers to time beside NumPy (comma-separated)")
    parser.add_argument("--rounds", type=int, default=3,
                        help="rounds per case; each system's figure is its "
                             "fastest round's median")
    parser.add_argument("--rounds-detail", action="store_true",
                        help="print every round's median (us) under each case")
    parser.add_argument("--jax-worker", type=int, default=0,
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.jax_worker:
        return jax_worker(args)
    wanted = set(filter(None, args.peers.split(",")))
    peers_here = []
    for peer, module in (("ort", "onnxruntime"), ("iree", "iree.compiler"),
                         ("jax", "jax")):
        if peer not in wanted:
            continue
        try:
            __import__(module)
        except ImportError:
            print(f"({peer}: no {module} in this Python; bench/venv.sh makes "
                  f"a venv with every peer)")
            continue
        if peer == "iree" and not iree_tool("iree-benchmark-module"):
            print("(iree: no iree-benchmark-module beside this Python)")
            continue
        peers_here.append(peer)
    rng = np.random.default_rng(0)
    define_cases(rng)
    tmp = tempfile.mkdtemp(prefix="tide-bench-")
    n = args.threads
    jax_workers = {}
    if "jax" in peers_here:
        jax_workers = {t: JaxWorker(args, t) for t in (1, n)}
    peer_names = ["numpy"] + peers_here
    rounds = max(1, args.rounds)
    header = (f"{'case':36} {'serial':>9} {'T=1':>9} {f'T={n}':>9} {f'x{n}':>6} "
              + " ".join(f"{p + ' T=' + str(t):>11}" for p in peer_names
                         for t in (1, n))
              + f" {'/best 1':>13} {f'/best {n}':>13}")
    print(header)
    notes = []
    try:
        for name in CASES:
            if args.only in name:
                bench_case(args, name, tmp, n, rounds, peers_here, peer_names,
                           jax_workers, notes)
    finally:
        for w in jax_workers.values():
            w.close()
    for note in dict.fromkeys(notes):
        print("note:", note)


def bench_case(args, name, tmp, n, rounds, peers_here, peer_names, jax_workers,
               notes):
    """Compiles, checks and times one case: `rounds` rounds, each timing every
    system once (its median over the calls) one after the other; each
    system's figure is its fastest round's median, so a stretch of load on
    this shared machine that hits one system in one round is left out."""
    mlir, inputs, fn, scale, onnx_fn = CASES[name]
    repeat = case_repeat(args, scale)
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
    input_files = []
    for i, a in enumerate(inputs):
        path = os.path.join(tmp, f"in{i}.npy")
        np.save(path, a)
        input_files.append(path)
        inputs_args.append(f"--input={path}")
    nres = mlir.split("->", 1)[1].split("{", 1)[0].count("tensor<")
    outputs = [f"{tmp}/out{i}.npy" for i in range(nres)]
    want = fn(np, *inputs)
    tide_runs = (("serial", libs["serial"], 1), ("T=1", libs["parallel"], 1),
                 ("T=N", libs["parallel"], n))
    for label, lib, threads in tide_runs:
        # Checked first: one call per build and thread count.
        run_tide(args, lib, inputs_args, outputs, 1, threads, tmp)
        check(name, f"Tide ({label})", [np.load(o) for o in outputs], want)
    model = onnx_fn(inputs) if onnx_fn is not None else None
    vmfb = None
    skip = set()  # (peer, threads) that failed or gave a wrong result
    times = {}    # label -> [seconds per round]
    peer = {}     # (peer, threads) -> [seconds per round]

    def failed(p, threads, e):
        msg = getattr(e, "stderr", None) or str(e)
        if isinstance(msg, bytes):
            msg = msg.decode(errors="replace")
        notes.append(f"{name}: {p} T={threads}: "
                     f"{msg.strip().splitlines()[-1][:160] if msg.strip() else type(e).__name__}")
        skip.add((p, threads))

    for _ in range(rounds):
        for label, lib, threads in tide_runs:
            times.setdefault(label, []).append(
                run_tide(args, lib, inputs_args, outputs, repeat, threads, tmp))
        # OpenBLAS reads its thread count when NumPy loads: the cases that
        # call it run in a child process per thread count. NumPy's other
        # functions use one thread.
        if fn in CASE_FN_NAMES:
            for threads in (1, n):
                peer.setdefault(("numpy", threads), []).append(
                    time_numpy_threads(fn, inputs, repeat, threads))
        else:
            t = time_numpy(lambda *a: fn(np, *a), inputs, repeat)
            for threads in (1, n):
                peer.setdefault(("numpy", threads), []).append(t)
        for p in peers_here:
            for threads in (1, n):
                if (p, threads) in skip:
                    continue
                try:
                    if p == "ort" and model is not None:
                        t, got = time_ort(model, inputs, repeat, threads)
                    elif p == "iree" and model is not None:
                        if vmfb is None:
                            vmfb = build_iree(model, tmp)
                        t, got = run_iree(vmfb, input_files, len(model.graph.output),
                                          repeat, threads, tmp)
                    elif p == "jax":
                        t, got = jax_workers[threads].time(name), want
                        if isinstance(t, str):
                            notes.append(f"{name}: jax T={threads}: {t}")
                            skip.add((p, threads))
                            continue
                    else:
                        continue
                except (subprocess.CalledProcessError, Exception) as e:  # noqa: B014
                    failed(p, threads, e)
                    if p == "iree":
                        skip.update({(p, 1), (p, n)})
                        break
                    continue
                why = differs(got, want)
                if why:
                    notes.append(f"{name}: {p} T={threads}: wrong result ({why}); not counted")
                    skip.add((p, threads))
                    continue
                if t is not None:
                    peer.setdefault((p, threads), []).append(t)
    best_times = {label: min(ts) for label, ts in times.items()}
    best_peer = {k: min(ts) for k, ts in peer.items() if k not in skip}

    def us(t):
        return f"{t * 1e6:10.1f}u" if t is not None else f"{'n/a':>11}"

    def best(threads, mine):
        cands = [(t, p) for (p, th), t in best_peer.items() if th == threads]
        t, p = min(cands)
        return f"{mine / t:6.2f}x {p:>5}"
    print(f"{name:36} {us(best_times['serial'])[1:]} {us(best_times['T=1'])[1:]} "
          f"{us(best_times['T=N'])[1:]} {best_times['T=1'] / best_times['T=N']:5.2f}x "
          + " ".join(us(best_peer.get((p, t))) for p in peer_names for t in (1, n))
          + f" {best(1, best_times['T=1'])} {best(n, best_times['T=N'])}")
    if args.rounds_detail:
        for key in list(times) + [k for k in peer if k not in skip]:
            ts = times.get(key) or peer[key]
            label = key if isinstance(key, str) else f"{key[0]} T={key[1]}"
            print(f"  {label:12} " + " ".join(f"{t * 1e6:.1f}" for t in ts))
    sys.stdout.flush()


def time_numpy_threads(fn, inputs, repeat, threads):
    """NumPy with OpenBLAS at `threads` (set before NumPy loads, so in a child
    process reading the inputs from the case's .npy files)."""
    tmp = tempfile.mkdtemp(prefix="tide-bench-np-")
    for i, a in enumerate(inputs):
        np.save(os.path.join(tmp, f"in{i}.npy"), a)
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads))
    code = (f"import sys; sys.path.insert(0, {os.path.dirname(os.path.abspath(__file__))!r}); "
            f"import numpy as np, cpu; "
            f"ins = [np.load({tmp!r} + f'/in{{i}}.npy') for i in range({len(inputs)})]; "
            f"fn = cpu.NUMPY_THREADED[{CASE_FN_NAMES[fn]!r}]; "
            f"print(cpu.time_numpy(lambda *a: fn(np, *a), ins, {repeat}))")
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True,
                         capture_output=True, text=True).stdout
    return float(out.strip().splitlines()[-1])


def gemm_fn(xp, a, b):
    return a @ b


# Cases whose NumPy time depends on OpenBLAS's thread count, by name.
NUMPY_THREADED = {"gemm": gemm_fn, "mlp": mlp_fn}
CASE_FN_NAMES = {gemm_fn: "gemm", mlp_fn: "mlp"}


if __name__ == "__main__":
    main()
