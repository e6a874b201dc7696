#!/usr/bin/env python3
"""Whole models on the H200: Tide against PyTorch eager and torch.compile in
the same process, outputs checked first.

ResNet-50 (torchvision's architecture: 7x7 stem, max pool, bottleneck blocks
3-4-6-3 with the stride on the 3x3 conv, global average pool, fc 2048->1000)
with batch normalization folded into the convolutions (inference), random
weights from a fixed seed, f32 and bf16, batch 1 and 32. And a BERT-base-sized
encoder (bench/encoder.py: 12 layers, hidden 768, 12 heads, sequence 128,
an additive attention mask with the last 16 positions masked), same dtypes
and batches.

The ONNX model is written here with onnx.helper as torch.onnx.export writes
it after constant folding (Conv with bias, Relu, MaxPool, Add,
GlobalAveragePool, Flatten, Gemm transB=1), with the weights as graph inputs
so that the compiled modules stay small enough to carry (the H200 machine has
no LLVM) and both sides read the very same weight tensors on the GPU;
`tide-compile --resident=cuda:0` keeps every argument and result on the GPU
(PyTorch CUDA tensors in and out through DLPack, no copies). PyTorch runs the
same network with torch.nn.functional on the same tensors; f32 on both
sides is true f32 (PyTorch's TF32 convolutions and matmuls are turned off,
as Tide never uses TF32).

Here:   python3 bench/gpu_models.py build --tide-bin build/bin --out build/gpu-models
There:  pip install --no-deps --no-build-isolation --target /tmp/tide-py \\
            --config-settings=cmake.define.TIDE_PYTHON_COMPILER=OFF python/
        PYTHONPATH=/tmp/tide-py python3 bench/gpu_models.py run build/gpu-models
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import encoder  # noqa: E402

SEED = 0
BLOCKS = [3, 4, 6, 3]
WIDTHS = [64, 128, 256, 512]


def resnet50_layers():
    """The network as a list of layers: ("conv", name, cin, cout, k, stride,
    pad, relu), ("maxpool",), ("block_begin",), ("add_relu", downsample or
    None), ("gap",), ("fc", name, cin, cout)."""
    layers = [("conv", "stem", 3, 64, 7, 2, 3, True), ("maxpool",)]
    cin = 64
    for stage, (blocks, width) in enumerate(zip(BLOCKS, WIDTHS)):
        for b in range(blocks):
            stride = 2 if stage > 0 and b == 0 else 1
            name = "l%d.%d" % (stage + 1, b)
            down = None
            if b == 0:
                down = ("conv", name + ".down", cin, width * 4, 1, stride, 0, False)
            layers.append(("block_begin",))
            layers.append(("conv", name + ".c1", cin, width, 1, 1, 0, True))
            layers.append(("conv", name + ".c2", width, width, 3, stride, 1, True))
            layers.append(("conv", name + ".c3", width, width * 4, 1, 1, 0, False))
            layers.append(("add_relu", down))
            cin = width * 4
    layers += [("gap",), ("fc", "fc", 2048, 1000)]
    return layers


def parameters(layers):
    """(name, shape) of every weight, in argument order."""
    params = []

    def conv(layer):
        _, name, cin, cout, k, *_ = layer
        params.append((name + ".w", (cout, cin, k, k)))
        params.append((name + ".b", (cout,)))

    for layer in layers:
        if layer[0] == "conv":
            conv(layer)
        elif layer[0] == "add_relu" and layer[1]:
            conv(layer[1])
        elif layer[0] == "fc":
            params.append(("fc.w", (layer[3], layer[2])))
            params.append(("fc.b", (layer[3],)))
    return params


def weights(params):
    """He-initialized weights (fixed seed), the last conv of each block
    scaled down so that activations stay in range through 16 blocks."""
    rng = np.random.RandomState(SEED)
    out = []
    for name, shape in params:
        if name.endswith(".b"):
            out.append((rng.standard_normal(shape) * 0.01).astype(np.float32))
            continue
        fan_in = int(np.prod(shape[1:]))
        scale = np.sqrt(2.0 / fan_in) * (0.2 if name.endswith(".c3.w") else 1.0)
        out.append((rng.standard_normal(shape) * scale).astype(np.float32))
    return out


def build_onnx(layers, batch, dtype):
    import onnx
    from onnx import TensorProto, helper
    elem = TensorProto.FLOAT if dtype == "f32" else TensorProto.BFLOAT16
    params = parameters(layers)
    inputs = [helper.make_tensor_value_info("x", elem, [batch, 3, 224, 224])]
    inputs += [helper.make_tensor_value_info(n, elem, list(s)) for n, s in params]
    nodes = []
    counter = [0]

    def fresh(prefix):
        counter[0] += 1
        return "%s_%d" % (prefix, counter[0])

    def conv(layer, x):
        _, name, cin, cout, k, stride, pad, relu = layer
        y = fresh(name)
        nodes.append(helper.make_node(
            "Conv", [x, name + ".w", name + ".b"], [y], name=name,
            kernel_shape=[k, k], strides=[stride, stride], pads=[pad] * 4,
            dilations=[1, 1], group=1))
        if relu:
            r = fresh("relu")
            nodes.append(helper.make_node("Relu", [y], [r], name=r))
            y = r
        return y

    x = "x"
    identity = None
    for layer in layers:
        kind = layer[0]
        if kind == "conv":
            x = conv(layer, x)
        elif kind == "maxpool":
            y = fresh("maxpool")
            nodes.append(helper.make_node("MaxPool", [x], [y], name=y, kernel_shape=[3, 3],
                                          strides=[2, 2], pads=[1, 1, 1, 1]))
            x = y
        elif kind == "block_begin":
            identity = x
        elif kind == "add_relu":
            skip = conv(layer[1], identity) if layer[1] else identity
            s, r = fresh("add"), fresh("relu")
            nodes.append(helper.make_node("Add", [x, skip], [s], name=s))
            nodes.append(helper.make_node("Relu", [s], [r], name=r))
            x = r
        elif kind == "gap":
            g, f = fresh("gap"), fresh("flatten")
            nodes.append(helper.make_node("GlobalAveragePool", [x], [g], name=g))
            nodes.append(helper.make_node("Flatten", [g], [f], name=f, axis=1))
            x = f
        elif kind == "fc":
            nodes.append(helper.make_node("Gemm", [x, "fc.w", "fc.b"], ["logits"], name="fc",
                                          transB=1))
            x = "logits"
    out = helper.make_tensor_value_info("logits", elem, [batch, 1000])
    graph = helper.make_graph(nodes, "resnet50", inputs, [out])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)],
                              producer_name="tide-bench")
    return model


def build(args):
    import onnx
    os.makedirs(args.out, exist_ok=True)
    layers = resnet50_layers()
    models = []
    # f32r: the f32 model compiled with --reduce-precision=bf16 (PyTorch:
    # the f32 model under torch.autocast to bf16).
    for family, dtype, batch in [(f, d, b) for f in ("resnet50", "encoder")
                                 for d in ("f32", "bf16", "f32r") for b in (1, 32)]:
        name = "%s_%s_b%d" % (family, dtype, batch)
        if args.only and args.only not in name:
            continue
        path = os.path.join(args.out, name + ".onnx")
        onnx_dtype = "f32" if dtype == "f32r" else dtype
        if family == "resnet50":
            model = build_onnx(layers, batch, onnx_dtype)
        else:
            model = encoder.build_onnx(batch, dtype=onnx_dtype)
        onnx.save(model, path)
        lib = os.path.join(args.out, name + ".so")
        start = time.time()
        subprocess.run([os.path.join(args.tide_bin, "tide-compile"), path, "--target=h200",
                        "--cpu=" + args.cpu, "--resident=cuda:0", "--no-remarks", "-o", lib]
                       + (args.compile_flag or [])
                       + (["--reduce-precision=bf16"] if dtype == "f32r" else []),
                       check=True, stderr=subprocess.DEVNULL if dtype == "f32r" else None)
        print("%s: compiled in %.1f s, %.1f MB" % (name, time.time() - start,
                                                 os.path.getsize(lib) / 1e6))
        os.remove(path)
        models.append({"name": name, "family": family, "dtype": dtype, "batch": batch,
                       "lib": name + ".so"})
    with open(os.path.join(args.out, "models.json"), "w") as f:
        json.dump(models, f, indent=1)


def torch_forward(layers, names):
    import torch.nn.functional as F

    def forward(x, *ws):
        p = dict(zip(names, ws))

        def conv(layer, v):
            _, name, _, _, _, stride, pad, relu = layer
            v = F.conv2d(v, p[name + ".w"], p[name + ".b"], stride=stride, padding=pad)
            return F.relu(v) if relu else v

        identity = None
        for layer in layers:
            kind = layer[0]
            if kind == "conv":
                x = conv(layer, x)
            elif kind == "maxpool":
                x = F.max_pool2d(x, 3, 2, 1)
            elif kind == "block_begin":
                identity = x
            elif kind == "add_relu":
                skip = conv(layer[1], identity) if layer[1] else identity
                x = F.relu(x + skip)
            elif kind == "gap":
                x = F.adaptive_avg_pool2d(x, 1).flatten(1)
            elif kind == "fc":
                x = F.linear(x, p["fc.w"], p["fc.b"])
        return x
    return forward


def timed(fn, reps):
    import torch
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        torch.cuda.synchronize()
        start = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - start)
    times.sort()
    return times[len(times) // 2] * 1e3


def profile_kernels(title, fn, calls, top=14):
    """GPU kernels of `calls` calls of fn under torch.profiler (CUPTI sees
    Tide's driver-API launches as well as PyTorch's), per call; then the same
    grouped by name without a trailing number (Tide's kernels of one kind,
    main_addf_0 ... main_addf_23, in one row)."""
    import torch
    from torch.profiler import ProfilerActivity, profile
    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
    rows = []
    for e in prof.key_averages():
        t = getattr(e, "device_time_total", None)
        if t is None:
            t = getattr(e, "cuda_time_total", 0)
        if t > 0 and e.count > 0:
            rows.append((t / calls, e.count / calls, e.key))
    rows.sort(reverse=True)
    # Kernels only: CUDA activity keys of memsets and copies start with "Memset"/"Memcpy".
    total = sum(r[0] for r in rows)
    launches = sum(r[1] for r in rows)
    print("  profile %s: %.0f us of GPU work per call, %.0f kernels/copies per call"
          % (title, total, launches))
    for t, n, key in rows[:top]:
        print("    %8.1f us %5.1fx  %s" % (t, n, key[:110]))
    groups = {}
    for t, n, key in rows:
        g = re.sub(r"_[0-9]+$", "_N", key)
        a = groups.setdefault(g, [0.0, 0.0])
        a[0] += t
        a[1] += n
    print("  grouped:")
    for g, (t, n) in sorted(groups.items(), key=lambda kv: -kv[1][0])[:top]:
        print("    %8.1f us %5.1fx  %s" % (t, n, g[:110]))


def run(args):
    import torch
    import tide
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    layers = resnet50_layers()
    params = parameters(layers)
    names = [n for n, _ in params]
    nets = {"resnet50": (torch_forward(layers, names), weights(params)),
            "encoder": (encoder.torch_forward(), encoder.weights(encoder.parameters()))}
    compiled = {k: torch.compile(f) for k, (f, _) in nets.items()}
    with open(os.path.join(args.dir, "models.json")) as f:
        models = json.load(f)
    print("GPU:", torch.cuda.get_device_name(), "torch", torch.__version__)
    rows = []
    failed = False
    for m in models:
        if args.only and args.only not in m["name"]:
            continue
        family = m.get("family", "resnet50")
        forward, host = nets[family]
        reduced = m["dtype"] == "f32r"
        tdt = torch.bfloat16 if m["dtype"] == "bf16" else torch.float32
        ws = [torch.from_numpy(w).to("cuda", tdt) for w in host]
        rng = np.random.RandomState(1)
        if family == "resnet50":
            shape = (m["batch"], 3, 224, 224)
            x = [torch.from_numpy(rng.standard_normal(shape).astype(np.float32)).to("cuda", tdt)]
        else:
            shape = (m["batch"], encoder.SEQ, encoder.HIDDEN)
            mask = np.zeros((m["batch"], 1, 1, encoder.SEQ), np.float32)
            mask[..., encoder.SEQ - 16:] = -10000.0  # padding at the end
            x = [torch.from_numpy(rng.standard_normal(shape).astype(np.float32)).to("cuda", tdt),
                 torch.from_numpy(mask).to("cuda", tdt)]
        ws = x + ws
        module = tide.load(os.path.join(args.dir, m["lib"]))
        fn = module.main  # the ONNX importer names the function main
        # PyTorch's side of a reduced-precision model: autocast to bf16.
        peer = forward
        peer_compiled = compiled[family]
        if reduced:
            def autocast(f):
                def run(*a):
                    with torch.autocast("cuda", dtype=torch.bfloat16):
                        return f(*a)
                return run
            peer, peer_compiled = autocast(forward), autocast(compiled[family])
        with torch.no_grad():
            want = forward(*ws).float()  # f32 for f32r: the error of the reduction
            got = torch.from_dlpack(fn(*ws)).float()
            scale = want.abs().max().item()
            err = (got - want).abs().max().item() / scale
            if reduced:
                e_peer = (peer(*ws).float() - want).abs().max().item() / scale
                print("%s: PyTorch autocast's error %.2e of the range" % (m["name"], e_peer))
            tol = 1e-4 if m["dtype"] == "f32" else 5e-2
            ok = err <= tol
            failed |= not ok
            print("%s: max error %.2e of the output's range (tolerance %.0e): %s"
                  % (m["name"], err, tol, "ok" if ok else "MISMATCH"))
            reps = args.reps
            t_tide = timed(lambda: fn(*ws), reps)
            t_eager = timed(lambda: peer(*ws), reps)
            t_comp = timed(lambda: peer_compiled(*ws), reps)
        rows.append((m["name"], t_tide, t_eager, t_comp))
        if args.profile:
            with torch.no_grad():
                profile_kernels(m["name"] + " Tide", lambda: fn(*ws), args.profile,
                                args.profile_top)
                profile_kernels(m["name"] + " torch.compile", lambda: peer_compiled(*ws),
                                args.profile, args.profile_top)
        print("  tide %.3f ms, eager %.3f ms (%.2fx), torch.compile %.3f ms (%.2fx)"
              % (t_tide, t_eager, t_tide / t_eager, t_comp, t_tide / t_comp), flush=True)
    print("\n| model | Tide ms | eager ms | compile ms | Tide/eager | Tide/compile |")
    print("|---|---|---|---|---|---|")
    for name, a, b, c in rows:
        print("| %s | %.3f | %.3f | %.3f | %.2f | %.2f |" % (name, a, b, c, a / b, a / c))
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("--tide-bin", default="build/bin")
    b.add_argument("--out", default="build/gpu-models")
    b.add_argument("--cpu", default="x86-64-v3",
                   help="CPU for the modules' host code (the GPU machine's host, not this one)")
    b.add_argument("--only", help="only the models whose name contains this")
    b.add_argument("--compile-flag", action="append",
                   help="extra tide-compile flag (repeatable), e.g. --gpu-row-kernels=false")
    r = sub.add_parser("run")
    r.add_argument("dir")
    r.add_argument("--reps", type=int, default=20)
    r.add_argument("--only", help="only the models whose name contains this")
    r.add_argument("--profile", type=int, default=0, metavar="CALLS",
                   help="also print each side's GPU kernels over CALLS calls (torch.profiler)")
    r.add_argument("--profile-top", type=int, default=14, metavar="N",
                   help="kernels (and kernel groups) the profile prints")
    args = parser.parse_args()
    return build(args) if args.cmd == "build" else run(args)


if __name__ == "__main__":
    sys.exit(main())
