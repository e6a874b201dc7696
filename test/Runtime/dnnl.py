#!/usr/bin/env python3
"""oneDNN's CPU kernels against NumPy: f32 convolutions and linear layers
whose weights are module constants (tide.constant: the runtime reorders them
into oneDNN's blocked layout once and keeps them) and convolutions whose
weights are arguments (read plain). Each case is compiled by tide-compile
(parallel code, and --cpu-threads=1) and run by tide-run twice in one process
(--repeat: the second call reuses the cached primitive and packed weights)
on 1 and 2 threads; results must match a float64 NumPy reference.

    dnnl.py --tide-bin build/bin --tmp DIR
"""
import argparse
import os
import subprocess
import sys

import numpy as np

F32 = np.float32


def t(shape):
    return "tensor<" + "".join(f"{d}x" for d in shape) + "f32>"


def dense(a):
    return "dense<" + np.array2string(
        a, separator=", ", threshold=1 << 30, max_line_width=1 << 30,
        formatter={"float_kind": lambda v: "%.9e" % v}) + ">"


def conv_ref(x, w, strides, dilations, pads, groups):
    """N-D cross-correlation in float64, from the definition."""
    k = x.ndim - 2
    x = x.astype(np.float64)
    w = w.astype(np.float64)
    x = np.pad(x, [(0, 0), (0, 0)] + [(pads[i], pads[k + i]) for i in range(k)])
    n, c = x.shape[:2]
    f = w.shape[0]
    ksz = w.shape[2:]
    out = [(x.shape[2 + i] - dilations[i] * (ksz[i] - 1) - 1) // strides[i] + 1
           for i in range(k)]
    y = np.zeros((n, f) + tuple(out))
    cg, fg = c // groups, f // groups
    for g in range(groups):
        for idx in np.ndindex(*ksz):
            sl = tuple(slice(idx[i] * dilations[i],
                             idx[i] * dilations[i] + strides[i] * (out[i] - 1) + 1,
                             strides[i]) for i in range(k))
            patch = x[(slice(None), slice(g * cg, (g + 1) * cg)) + sl]
            wk = w[(slice(g * fg, (g + 1) * fg), slice(None)) + idx]
            y[:, g * fg:(g + 1) * fg] += np.einsum("nc...,fc->nf...", patch, wk)
    return y


def conv_case(rng, x_shape, w_shape, strides, dilations, pads, groups, constant):
    x = rng.standard_normal(x_shape).astype(F32)
    w = rng.standard_normal(w_shape).astype(F32)
    want = conv_ref(x, w, strides, dilations, pads, groups)
    y_shape = want.shape
    g = f" groups = {groups}" if groups != 1 else ""
    conv = (f"tide.conv %x, %w strides = {strides} dilations = {dilations} "
            f"pads = {pads}{g} : {t(x_shape)}, {t(w_shape)}")
    if constant:
        mlir = (f"func.func @f(%x: {t(x_shape)}) -> {t(y_shape)} {{\n"
                f"  %w = tide.constant {dense(w)} : {t(w_shape)}\n"
                f"  %y = {conv}\n  %r = tide.relu %y : {t(y_shape)}\n"
                f"  return %r : {t(y_shape)}\n}}\n")
        return mlir, [x], np.maximum(want, 0)
    mlir = (f"func.func @f(%x: {t(x_shape)}, %w: {t(w_shape)}) -> {t(y_shape)} {{\n"
            f"  %y = {conv}\n  return %y : {t(y_shape)}\n}}\n")
    return mlir, [x, w], want


def block_case(rng, n):
    """A MobileNet block: 1x1 convolution, bias, ReLU; depthwise 3x3, bias,
    ReLU; 1x1 convolution, bias (constant weights and biases, as exporters
    fold batch norms). Convolutions next to each other run channels-last,
    and each bias (and ReLU) is the oneDNN call's epilogue, the depthwise
    one's too (reading its output with the groups merged back)."""
    c, m, hw = 8, 16, 10
    x = rng.standard_normal((n, c, hw, hw)).astype(F32)
    w1 = rng.standard_normal((m, c, 1, 1)).astype(F32)
    w2 = rng.standard_normal((m, 1, 3, 3)).astype(F32)
    w3 = rng.standard_normal((c, m, 1, 1)).astype(F32)
    b1, b2, b3 = (rng.standard_normal((k,)).astype(F32) for k in (m, m, c))
    bias = lambda y, b: y + b.astype(np.float64)[None, :, None, None]
    y1 = np.maximum(bias(conv_ref(x, w1, [1, 1], [1, 1], [0, 0, 0, 0], 1), b1), 0)
    y2 = np.maximum(bias(conv_ref(y1, w2, [1, 1], [1, 1], [1, 1, 1, 1], m), b2), 0)
    want = bias(conv_ref(y2, w3, [1, 1], [1, 1], [0, 0, 0, 0], 1), b3)
    tm, tc = t((n, m, hw, hw)), t((n, c, hw, hw))
    body = ""
    for i, (w, b, inp, groups, pads, outt, relu) in enumerate(
            [(w1, b1, "%x", 1, "[0, 0, 0, 0]", tm, True),
             (w2, b2, "%r0", m, "[1, 1, 1, 1]", tm, True),
             (w3, b3, "%r1", 1, "[0, 0, 0, 0]", tc, False)]):
        g = f" groups = {groups}" if groups != 1 else ""
        inshape = tc if i == 0 else tm
        body += (f"  %w{i} = tide.constant {dense(w)} : {t(w.shape)}\n"
                 f"  %b{i} = tide.constant {dense(b.reshape(-1, 1, 1))} : {t((len(b), 1, 1))}\n"
                 f"  %y{i} = tide.conv {inp}, %w{i} strides = [1, 1] dilations = [1, 1] "
                 f"pads = {pads}{g} : {inshape}, {t(w.shape)}\n"
                 f"  %a{i} = tide.add %y{i}, %b{i} : {outt}, {t((len(b), 1, 1))}\n")
        body += (f"  %r{i} = tide.relu %a{i} : {outt}\n" if relu else "")
    mlir = (f"func.func @f(%x: {tc}) -> {tc} {{\n{body}"
            f"  return %a2 : {tc}\n}}\n")
    return mlir, [x], want


def batch_norm_case(rng, n, groups):
    """A convolution followed by an inference batch norm as the ONNX importer
    writes it, (y - mean) * (gamma * rsqrt(var + eps)) + beta, then ReLU:
    tide-fold-affine-into-weights folds the scale into the weight and the shift into
    one bias, which oneDNN applies with the ReLU as the call's epilogue."""
    c, f, hw = 8, 16, 9
    x = rng.standard_normal((n, c, hw, hw)).astype(F32)
    w = rng.standard_normal((f, c // groups, 3, 3)).astype(F32)
    mean, beta = (rng.standard_normal((f,)).astype(F32) for _ in range(2))
    gamma = rng.uniform(0.5, 2.0, (f,)).astype(F32)
    var = rng.uniform(0.1, 3.0, (f,)).astype(F32)
    eps = 1e-5
    per = lambda v: v.astype(np.float64)[None, :, None, None]
    y = conv_ref(x, w, [1, 1], [1, 1], [1, 1, 1, 1], groups)
    want = np.maximum((y - per(mean)) * per(gamma) / np.sqrt(per(var) + eps)
                      + per(beta), 0)
    tx, ty, tp = t((n, c, hw, hw)), t((n, f, hw, hw)), t((f, 1, 1))
    g = f" groups = {groups}" if groups != 1 else ""
    consts = "".join(
        f"  %{name}1 = tide.constant {dense(v)} : {t((f,))}\n"
        f"  %{name} = tide.reshape %{name}1 : {t((f,))} to {tp}\n"
        for name, v in (("mean", mean), ("gamma", gamma), ("var", var), ("beta", beta)))
    mlir = (f"func.func @f(%x: {tx}) -> {ty} {{\n"
            f"  %w = tide.constant {dense(w)} : {t(w.shape)}\n{consts}"
            f"  %eps = tide.constant dense<{eps:e}> : tensor<f32>\n"
            f"  %y = tide.conv %x, %w strides = [1, 1] dilations = [1, 1] "
            f"pads = [1, 1, 1, 1]{g} : {tx}, {t(w.shape)}\n"
            f"  %ve = tide.add %var, %eps : {tp}, tensor<f32>\n"
            f"  %inv = tide.rsqrt %ve : {tp}\n"
            f"  %s = tide.mul %inv, %gamma : {tp}\n"
            f"  %c = tide.sub %y, %mean : {ty}, {tp}\n"
            f"  %m = tide.mul %c, %s : {ty}, {tp}\n"
            f"  %b = tide.add %m, %beta : {ty}, {tp}\n"
            f"  %r = tide.relu %b : {ty}\n"
            f"  return %r : {ty}\n}}\n")
    return mlir, [x], want


# Cases whose module must call the convolution with a fused epilogue, and how
# many convolutions oneDNN must log (each with its bias).
EPILOGUE = {"MobileNet block, batch 1 (channels-last, fused biases)": 3,
            "MobileNet block, batch 2 (channels-last, fused biases)": 3,
            "conv + batch norm + ReLU (folded)": 1,
            "grouped conv + batch norm + ReLU, batch 2 (folded)": 1}


def linear_case(rng, x_shape, k, n):
    x = rng.standard_normal(x_shape + [k]).astype(F32)
    w = rng.standard_normal((k, n)).astype(F32)
    b = rng.standard_normal((n,)).astype(F32)
    want = x.astype(np.float64) @ w.astype(np.float64) + b
    xs, ys = x_shape + [k], x_shape + [n]
    mlir = (f"func.func @f(%x: {t(xs)}) -> {t(ys)} {{\n"
            f"  %w = tide.constant {dense(w)} : {t([k, n])}\n"
            f"  %b = tide.constant {dense(b)} : {t([n])}\n"
            f"  %m = tide.matmul %x, %w : {t(xs)}, {t([k, n])}\n"
            f"  %y = tide.add %m, %b : {t(ys)}, {t([n])}\n"
            f"  return %y : {t(ys)}\n}}\n")
    return mlir, [x], want


def linear_t_case(rng, m, k, n):
    """A linear layer whose weight is stored (out, in) and transposed, as
    ONNX's Gemm with transB keeps it: oneDNN reads the constant through a
    transposed view (no copy at each call)."""
    x = rng.standard_normal((m, k)).astype(F32)
    w = rng.standard_normal((n, k)).astype(F32)
    want = x.astype(np.float64) @ w.astype(np.float64).T
    # A resource blob, as the ONNX importer writes weights (a dense
    # attribute's transpose would be folded before the lowering sees it).
    blob = "0x04000000" + w.astype("<f4").tobytes().hex().upper()
    mlir = (f"func.func @f(%x: {t((m, k))}) -> {t((m, n))} {{\n"
            f"  %w = tide.constant dense_resource<weight> : {t((n, k))}\n"
            f"  %t = tide.transpose %w perm = [1, 0] : {t((n, k))}\n"
            f"  %y = tide.matmul %x, %t : {t((m, k))}, {t((k, n))}\n"
            f"  return %y : {t((m, n))}\n}}\n"
            f"{{-#\n  dialect_resources: {{\n    builtin: {{\n      weight: \"{blob}\"\n"
            f"    }}\n  }}\n#-}}\n")
    return mlir, [x], want


def matmul_case(rng, shapes, body, want_fn):
    """A product whose operands are all arguments (`shapes`): 2-D ones go to
    oneDNN's sgemm, batched ones to its matmul primitive (see SGEMM)."""
    args = [rng.standard_normal(sh).astype(F32) for sh in shapes]
    want = want_fn(*[a.astype(np.float64) for a in args])
    params = ", ".join(f"%a{i}: {t(sh)}" for i, sh in enumerate(shapes))
    mlir = (f"func.func @f({params}) -> {t(want.shape)} {{\n{body}"
            f"  return %y : {t(want.shape)}\n}}\n")
    return mlir, args, want


def mm(x, w, out):
    return f"tide.matmul {x}, {w} : {t(out[0])}, {t(out[1])}"


# Cases whose products oneDNN runs through sgemm (no matmul primitive in its
# log) by default, and through the primitive with TIDE_DNNL_SGEMM=0; the
# batched product always through the primitive.
SGEMM = {}


def matmul_cases(rng):
    def case(name, shapes, body, want_fn, sgemm=True):
        SGEMM[name] = sgemm
        return name, matmul_case(rng, shapes, body, want_fn)

    for m, k, n in ((37, 64, 48), (1, 64, 48), (37, 64, 1), (37, 1, 48), (130, 257, 129)):
        yield case(f"matmul {m}x{k} by {k}x{n}, arguments", [(m, k), (k, n)],
                   f"  %y = {mm('%a0', '%a1', [(m, k), (k, n)])}\n", lambda a, b: a @ b)
    yield case("matmul, weight argument transposed", [(37, 64), (48, 64)],
               f"  %t = tide.transpose %a1 perm = [1, 0] : {t((48, 64))}\n"
               f"  %y = {mm('%a0', '%t', [(37, 64), (64, 48)])}\n", lambda a, b: a @ b.T)
    yield case("matmul, input argument transposed", [(64, 37), (64, 48)],
               f"  %t = tide.transpose %a0 perm = [1, 0] : {t((64, 37))}\n"
               f"  %y = {mm('%t', '%a1', [(37, 64), (64, 48)])}\n", lambda a, b: a.T @ b)
    yield case("matmul of column slices", [(37, 80), (64, 50)],
               f"  %s = tide.slice %a0 start = [0, 8] limit = [37, 72] strides = [1, 1] : {t((37, 80))}\n"
               f"  %w = tide.slice %a1 start = [0, 1] limit = [64, 49] strides = [1, 1] : {t((64, 50))}\n"
               f"  %y = {mm('%s', '%w', [(37, 64), (64, 48)])}\n",
               lambda a, b: a[:, 8:72] @ b[:, 1:49])
    yield case("matmul plus an argument", [(37, 64), (64, 48), (37, 48)],
               f"  %p = {mm('%a0', '%a1', [(37, 64), (64, 48)])}\n"
               f"  %y = tide.add %a2, %p : {t((37, 48))}\n", lambda a, b, c: c + a @ b)
    yield case("matmul 3-D batch, arguments", [(2, 19, 32), (2, 32, 24)],
               f"  %y = {mm('%a0', '%a1', [(2, 19, 32), (2, 32, 24)])}\n",
               lambda a, b: a @ b, sgemm=False)


def cases(rng):
    yield "conv 2-D 3x3 pad 1 (constant)", conv_case(
        rng, (1, 16, 14, 14), (32, 16, 3, 3), [1, 1], [1, 1], [1, 1, 1, 1], 1, True)
    # 3x3 stride 1 with 64 channels: oneDNN's Winograd kernel (unless
    # TIDE_DNNL_WINOGRAD=0).
    yield "conv 2-D 3x3 64 channels (constant, Winograd)", conv_case(
        rng, (1, 64, 28, 28), (64, 64, 3, 3), [1, 1], [1, 1], [1, 1, 1, 1], 1, True)
    yield "conv 2-D 7x7 stride 2 pad 3, 3 channels (constant)", conv_case(
        rng, (2, 3, 20, 18), (16, 3, 7, 7), [2, 2], [1, 1], [3, 3, 3, 3], 1, True)
    yield "conv 2-D asymmetric pads, dilation (constant)", conv_case(
        rng, (1, 8, 11, 9), (8, 8, 3, 2), [1, 2], [2, 1], [1, 0, 2, 1], 1, True)
    yield "conv 2-D 1x1 stride 2 (constant)", conv_case(
        rng, (1, 32, 9, 9), (64, 32, 1, 1), [2, 2], [1, 1], [0, 0, 0, 0], 1, True)
    yield "conv 2-D grouped (constant)", conv_case(
        rng, (1, 16, 8, 8), (32, 4, 3, 3), [1, 1], [1, 1], [1, 1, 1, 1], 4, True)
    yield "conv 2-D depthwise (constant)", conv_case(
        rng, (1, 32, 10, 10), (32, 1, 3, 3), [2, 2], [1, 1], [1, 1, 1, 1], 32, True)
    yield "conv 1-D (constant)", conv_case(
        rng, (2, 8, 30), (12, 8, 5), [2], [1], [2, 1], 1, True)
    yield "conv 3-D (constant)", conv_case(
        rng, (1, 4, 6, 7, 5), (8, 4, 3, 3, 2), [1, 2, 1], [1, 1, 2], [1, 1, 0, 1, 0, 1], 1, True)
    yield "conv 2-D weights an argument", conv_case(
        rng, (2, 8, 9, 9), (16, 8, 3, 3), [1, 1], [1, 1], [1, 1, 1, 1], 1, False)
    yield "conv 2-D grouped, weights an argument", conv_case(
        rng, (1, 8, 7, 7), (8, 2, 3, 3), [1, 1], [1, 1], [0, 1, 1, 0], 4, False)
    names = list(EPILOGUE)
    yield names[0], block_case(rng, 1)
    yield names[1], block_case(rng, 2)
    yield names[2], batch_norm_case(rng, 1, 1)
    yield names[3], batch_norm_case(rng, 2, 2)
    yield "linear 2-D (constant weight)", linear_case(rng, [37], 64, 48)
    yield "linear 2-D (constant weight stored transposed)", linear_t_case(rng, 3, 72, 40)
    yield "linear 3-D batch (constant weight)", linear_case(rng, [2, 19], 96, 40)
    yield from matmul_cases(rng)


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
    rng = np.random.default_rng(13)
    passed = failed = 0
    for i, (name, (mlir, inputs, want)) in enumerate(cases(rng)):
        src = os.path.join(args.tmp, f"c{i}.mlir")
        with open(src, "w") as f:
            f.write(mlir)
        ins = []
        for j, a in enumerate(inputs):
            path = os.path.join(args.tmp, f"c{i}_in{j}.npy")
            np.save(path, a)
            ins.append(f"--input={path}")
        for build in ("parallel", "serial"):
            lib = os.path.join(args.tmp, f"c{i}_{build}.so")
            cmd = [compile_, src, "-o", lib, "--target=cpu", "--no-remarks"]
            if build == "serial":
                cmd.append("--cpu-threads=1")
            p = run(cmd)
            if p.returncode != 0:
                print(f"FAIL {name} ({build}): tide-compile: {p.stderr}")
                failed += 1
                continue
            symbols = run(["nm", "-D", lib]).stdout
            if "tide_rt_cpu_" not in symbols:
                print(f"FAIL {name} ({build}): no oneDNN call in the module")
                failed += 1
                continue
            if name in EPILOGUE:
                # oneDNN's log of each convolution it ran: with its bias.
                p = run([runner, lib, *ins], dict(os.environ, DNNL_VERBOSE="1"))
                convs = [line for line in p.stdout.splitlines()
                         if line.startswith("onednn_verbose,exec,cpu,convolution")]
                if (len(convs) != EPILOGUE[name]
                        or any("bia_f32" not in line for line in convs)):
                    print(f"FAIL {name} ({build}): not every convolution fuses its bias:\n"
                          + "\n".join(convs))
                    failed += 1
                    continue
            if name in SGEMM and build == "parallel":
                # Which oneDNN path ran: sgemm (not in its log) or the
                # matmul primitive. By default sgemm on teams of up to 4
                # threads; TIDE_DNNL_SGEMM=0 / 1 never / always.
                for sgemm_env, threads in (("", "2"), ("", "8"), ("0", "2"), ("1", "8")):
                    env = dict(os.environ, DNNL_VERBOSE="1", TIDE_NUM_THREADS=threads)
                    env.pop("TIDE_DNNL_SGEMM", None)
                    if sgemm_env:
                        env["TIDE_DNNL_SGEMM"] = sgemm_env
                    p = run([runner, lib, *ins], env)
                    prim = "onednn_verbose,exec,cpu,matmul" in p.stdout
                    sgemm = sgemm_env == "1" or (not sgemm_env and int(threads) <= 4)
                    if prim != (not sgemm or not SGEMM[name]):
                        print(f"FAIL {name} (TIDE_DNNL_SGEMM={sgemm_env or 'unset'}, "
                              f"{threads} threads): the matmul primitive "
                              f"{'ran' if prim else 'did not run'}")
                        failed += 1
            for threads, sgemm_env in (("1", "1"), ("2", "1"), ("2", "0")):
                if sgemm_env == "0" and name not in SGEMM:
                    continue
                out = os.path.join(args.tmp, f"c{i}_out.npy")
                env = dict(os.environ, TIDE_NUM_THREADS=threads, TIDE_DNNL_SGEMM=sgemm_env)
                p = run([runner, lib, *ins, f"--output={out}", "--repeat=2"], env)
                if p.returncode != 0:
                    print(f"FAIL {name} ({build}, {threads} threads): {p.stderr}")
                    failed += 1
                    continue
                got = np.load(out)
                err = np.max(np.abs(got - want)) / max(np.max(np.abs(want)), 1e-30)
                if got.shape != want.shape or not err < 1e-5:
                    print(f"FAIL {name} ({build}, {threads} threads, sgemm {sgemm_env}): differs "
                          f"from NumPy (max abs diff / max abs = {err:.3g})")
                    failed += 1
                else:
                    passed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
