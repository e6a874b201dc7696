#!/usr/bin/env python3
"""Whole models on the CPU: Tide against ONNX Runtime at the same thread count.

ResNet-18 (torchvision's architecture, batch 1, 3x224x224, f32, random
weights from a fixed seed) is written with onnx.helper as torch.onnx.export
writes an eval-mode torchvision model (opset 17): each BatchNormalization is
folded into the preceding Conv's weight and bias (the exporter's
constant folding does that in eval mode), then Relu, MaxPool, Add,
GlobalAveragePool, Flatten and Gemm (transB=1). With --batchnorm the
BatchNormalization nodes are kept instead (Conv without bias, then
BatchNormalization), as an export without constant folding writes them; both
forms compute the same function.

The model is compiled once with `tide-compile --target=cpu` (parallel code;
TIDE_NUM_THREADS picks the thread count at run time) and timed with
`tide-run --repeat` (the call only) at each thread count; ONNX Runtime gets the
same count (intra_op_num_threads, inter_op_num_threads=1, all graph
optimizations) and is timed over as many session.run calls. OpenBLAS gets the
count through OPENBLAS_NUM_THREADS. Tide's output is checked against ONNX
Runtime's (and ONNX Runtime's against a NumPy reference of the same graph)
before anything is timed. Each thread count is measured --rounds times,
alternating Tide and ONNX Runtime; the ratio is that of the medians.

With --model encoder: a BERT-base-sized encoder (bench/encoder.py: 12
layers, hidden 768, 12 heads, FFN 3072, sequence 128, batch 1, f32, weights
embedded as initializers; MatMul/Add/Reshape/Transpose/Softmax/
LayerNormalization/Erf as torch.onnx.export writes them at opset 17), checked
against a float64 NumPy reference.

    build/venv/bin/python bench/cpu_models.py [--model resnet18|encoder]
        [--bin build/bin] [--repeat 20] [--rounds 3] [--threads 1,2]
        [--batchnorm] [--dynamic] [--keep DIR]

Columns: `tide` and `ort` = median time per call (ms); `tide/ort` = their ratio
(below 1.0: Tide is faster).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np


def resnet18(batchnorm=False, seed=0, batch=1, classes=1000, dynamic=False):
    """An ONNX ResNet-18 (onnx.ModelProto) and its NumPy reference function."""
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(seed)
    nodes, inits = [], []
    ref = []  # the same graph as (kind, args) steps for the NumPy reference

    def init(name, a):
        inits.append(numpy_helper.from_array(a.astype(np.float32), name))
        return name

    def conv_bn(x, name, cin, cout, k, stride, pad):
        # torchvision: kaiming_normal_(mode="fan_out", nonlinearity="relu").
        w = rng.standard_normal((cout, cin, k, k)) * np.sqrt(2.0 / (cout * k * k))
        gamma = 1.0 + 0.1 * rng.standard_normal(cout)
        beta = 0.1 * rng.standard_normal(cout)
        mean = 0.1 * rng.standard_normal(cout)
        var = 1.0 + 0.1 * rng.random(cout)
        attrs = dict(kernel_shape=[k, k], strides=[stride, stride],
                     pads=[pad] * 4, dilations=[1, 1], group=1)
        out = f"/{name}/Conv_output_0"
        scale = gamma / np.sqrt(var + 1e-5)
        wf = (w * scale[:, None, None, None]).astype(np.float32)
        bf = (beta - mean * scale).astype(np.float32)
        if batchnorm:
            nodes.append(helper.make_node(
                "Conv", [x, init(f"{name}.weight", w)], [out],
                name=f"/{name}/Conv", **attrs))
            bn = f"/{name}/bn/BatchNormalization_output_0"
            nodes.append(helper.make_node(
                "BatchNormalization",
                [out, init(f"{name}.bn.weight", gamma), init(f"{name}.bn.bias", beta),
                 init(f"{name}.bn.running_mean", mean),
                 init(f"{name}.bn.running_var", var)],
                [bn], name=f"/{name}/bn/BatchNormalization", epsilon=1e-5,
                momentum=0.9))
            out = bn
        else:
            nodes.append(helper.make_node(
                "Conv", [x, init(f"onnx::Conv_{name}_w", wf),
                         init(f"onnx::Conv_{name}_b", bf)], [out],
                name=f"/{name}/Conv", **attrs))
        ref.append(("conv", x, out, wf, bf, stride, pad))
        return out

    def relu(x, name):
        out = f"/{name}/Relu_output_0"
        nodes.append(helper.make_node("Relu", [x], [out], name=f"/{name}/Relu"))
        ref.append(("relu", x, out))
        return out

    x = "input"
    x = relu(conv_bn(x, "conv1", 3, 64, 7, 2, 3), "relu")
    nodes.append(helper.make_node("MaxPool", [x], ["/maxpool/MaxPool_output_0"],
                                  name="/maxpool/MaxPool", ceil_mode=0,
                                  kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                                  strides=[2, 2], dilations=[1, 1]))
    ref.append(("maxpool", x, "/maxpool/MaxPool_output_0"))
    x = "/maxpool/MaxPool_output_0"
    cin = 64
    for layer, (cout, stride) in enumerate([(64, 1), (128, 2), (256, 2), (512, 2)], 1):
        for block in range(2):
            s = stride if block == 0 else 1
            p = f"layer{layer}/layer{layer}.{block}"
            h = relu(conv_bn(x, f"{p}/conv1", cin, cout, 3, s, 1), f"{p}/relu")
            h = conv_bn(h, f"{p}/conv2", cout, cout, 3, 1, 1)
            skip = x
            if s != 1 or cin != cout:
                skip = conv_bn(x, f"{p}/downsample/downsample.0", cin, cout, 1, s, 0)
            out = f"/{p}/Add_output_0"
            nodes.append(helper.make_node("Add", [h, skip], [out], name=f"/{p}/Add"))
            ref.append(("add", h, skip, out))
            x = relu(out, f"{p}/relu_1")
            cin = cout
    nodes.append(helper.make_node("GlobalAveragePool", [x],
                                  ["/avgpool/GlobalAveragePool_output_0"],
                                  name="/avgpool/GlobalAveragePool"))
    nodes.append(helper.make_node("Flatten", ["/avgpool/GlobalAveragePool_output_0"],
                                  ["/Flatten_output_0"], name="/Flatten", axis=1))
    bound = 1.0 / np.sqrt(512)
    fcw = rng.uniform(-bound, bound, (classes, 512)).astype(np.float32)
    fcb = rng.uniform(-bound, bound, classes).astype(np.float32)
    nodes.append(helper.make_node("Gemm", ["/Flatten_output_0", init("fc.weight", fcw),
                                           init("fc.bias", fcb)], ["output"],
                                  name="/fc/Gemm", alpha=1.0, beta=1.0, transB=1))
    ref.append(("head", x, "output", fcw, fcb))
    graph = helper.make_graph(
        nodes, "main_graph",
        [helper.make_tensor_value_info(
            "input", TensorProto.FLOAT,
            ["N", 3, "H", "W"] if dynamic else [batch, 3, 224, 224])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT,
                                       ["N" if dynamic else batch, classes])],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="pytorch")
    return model, ref


def numpy_reference(ref, x):
    """Runs the graph's steps in float64 NumPy (im2col convolutions)."""
    env = {"input": x.astype(np.float64)}

    def conv(a, w, b, stride, pad):
        n, c, h, wd = a.shape
        f, _, k, _ = w.shape
        a = np.pad(a, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
        oh = (h + 2 * pad - k) // stride + 1
        ow = (wd + 2 * pad - k) // stride + 1
        cols = np.empty((n, c, k, k, oh, ow))
        for i in range(k):
            for j in range(k):
                cols[:, :, i, j] = a[:, :, i:i + stride * oh:stride, j:j + stride * ow:stride]
        y = np.einsum("fckl,nckloq->nfoq", w.astype(np.float64), cols, optimize=True)
        return y + b.astype(np.float64)[None, :, None, None]

    for step in ref:
        kind = step[0]
        if kind == "conv":
            _, src, dst, w, b, stride, pad = step
            env[dst] = conv(env[src], w, b, stride, pad)
        elif kind == "relu":
            env[step[2]] = np.maximum(env[step[1]], 0)
        elif kind == "add":
            env[step[3]] = env[step[1]] + env[step[2]]
        elif kind == "maxpool":
            a = np.pad(env[step[1]], ((0, 0), (0, 0), (1, 1), (1, 1)),
                       constant_values=-np.inf)
            oh = (a.shape[2] - 3) // 2 + 1
            ow = (a.shape[3] - 3) // 2 + 1
            env[step[2]] = np.max(
                [a[:, :, i:i + 2 * oh:2, j:j + 2 * ow:2]
                 for i in range(3) for j in range(3)], axis=0)
        elif kind == "head":
            _, src, dst, w, b = step
            env[dst] = env[src].mean(axis=(2, 3)) @ w.T.astype(np.float64) + b
    return env["output"]


def check(what, got, want, tol):
    err = np.max(np.abs(got - want)) / max(np.max(np.abs(want)), 1e-30)
    if got.shape != want.shape or not np.isfinite(got).all() or err > tol:
        sys.exit(f"cpu_models: {what}: outputs differ (max abs diff / max abs = "
                 f"{err:.3g}, tolerance {tol})")
    return err


def run_tide(args, lib, inp, out, repeat, threads):
    env = dict(os.environ, TIDE_NUM_THREADS=str(threads),
               OPENBLAS_NUM_THREADS=str(threads))
    cmd = [os.path.join(args.bin, "tide-run"), lib] + [f"--input={i}" for i in inp] + [
        f"--output={out}", f"--repeat={repeat}"]
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        sys.exit(f"cpu_models: {' '.join(cmd)} failed:\n{p.stderr}")
    return float(re.search(r"median ([0-9.]+) us", p.stdout).group(1)) * 1e-3


def ort_session(model, threads):
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(model.SerializeToString(), options,
                                providers=["CPUExecutionProvider"])


def time_ort(session, feed, repeat):
    session.run(None, feed)  # warm up
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        session.run(None, feed)
        times.append(time.perf_counter() - t)
    times.sort()
    return times[len(times) // 2] * 1e3


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "build", "bin"))
    parser.add_argument("--repeat", type=int, default=20,
                        help="calls per measurement (median)")
    parser.add_argument("--rounds", type=int, default=3,
                        help="measurements per thread count, alternating peers")
    parser.add_argument("--threads", default="1,%d" % len(os.sched_getaffinity(0)))
    parser.add_argument("--batchnorm", action="store_true",
                        help="keep BatchNormalization nodes (not folded)")
    parser.add_argument("--keep", help="write the model and libraries here")
    parser.add_argument("--model", choices=["resnet18", "encoder"], default="resnet18")
    parser.add_argument("--dynamic", action="store_true",
                        help="resnet18: batch, height and width symbolic (compiled "
                             "for run-time sizes; run at 1x3x224x224)")
    parser.add_argument("--compile-flag", action="append", default=[],
                        help="an extra tide-compile flag")
    args = parser.parse_args()
    import onnx
    tmp = args.keep or tempfile.mkdtemp(prefix="tide-models-")
    os.makedirs(tmp, exist_ok=True)
    if args.model == "resnet18":
        model, ref = resnet18(batchnorm=args.batchnorm, dynamic=args.dynamic)
        x = np.random.default_rng(1).random((1, 3, 224, 224), dtype=np.float32)
        feed = {"input": x}
        want = numpy_reference(ref, x)
        title = (f"ResNet-18 batch 1 f32 ({'BatchNormalization nodes' if args.batchnorm else 'BN folded into Conv'}"
                 f"{'; N, H, W symbolic' if args.dynamic else ''})")
    else:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import encoder
        ws = encoder.weights(encoder.parameters())
        model = encoder.build_onnx(1, initializers=ws)
        rng = np.random.default_rng(1)
        x = rng.standard_normal((1, encoder.SEQ, encoder.HIDDEN)).astype(np.float32)
        mask = np.zeros((1, 1, 1, encoder.SEQ), np.float32)
        mask[..., -16:] = -10000.0  # the last 16 positions are padding
        feed = {"x": x, "mask": mask}
        want = encoder.numpy_reference(x, mask, ws)
        title = "BERT-base encoder (12 layers, hidden 768, sequence 128) batch 1 f32"
    onnx.checker.check_model(model)
    path = os.path.join(tmp, args.model + ".onnx")
    onnx.save(model, path)
    lib = os.path.join(tmp, args.model + ".so")
    t = time.perf_counter()
    subprocess.run([os.path.join(args.bin, "tide-compile"), path, "-o", lib,
                    "--no-remarks", "--target=cpu"] + args.compile_flag, check=True)
    compile_s = time.perf_counter() - t
    inp = []
    for name, value in feed.items():
        inp.append(os.path.join(tmp, f"input_{name}.npy"))
        np.save(inp[-1], value)
    out = os.path.join(tmp, "output.npy")
    threads = [int(t) for t in args.threads.split(",")]
    print(f"{title}; tide-compile {compile_s:.1f} s; median of {args.repeat} calls, {args.rounds} rounds")
    for n in threads:
        session = ort_session(model, n)
        got_ort = session.run(None, feed)[0]
        e_ort = check(f"ONNX Runtime ({n} threads) vs NumPy", got_ort, want, 1e-4)
        run_tide(args, lib, inp, out, 1, n)
        e_tide = check(f"Tide ({n} threads) vs ONNX Runtime", np.load(out), got_ort, 1e-4)
        print(f"threads={n}: outputs match (max |diff|/max|y|: tide vs ort {e_tide:.2g}, "
              f"ort vs numpy f64 {e_ort:.2g})")
        tide_t, ort_t = [], []
        for r in range(args.rounds):
            tide_t.append(run_tide(args, lib, inp, out, args.repeat, n))
            ort_t.append(time_ort(session, feed, args.repeat))
            print(f"  round {r + 1}: tide {tide_t[-1]:8.2f} ms  ort {ort_t[-1]:8.2f} ms  "
                  f"tide/ort {tide_t[-1] / ort_t[-1]:5.2f}x")
            sys.stdout.flush()
        tm, om = float(np.median(tide_t)), float(np.median(ort_t))
        print(f"threads={n}: tide {tm:8.2f} ms  ort {om:8.2f} ms  tide/ort {tm / om:5.2f}x")


if __name__ == "__main__":
    main()
