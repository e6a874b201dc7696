#!/usr/bin/env python3
"""How good is the placement cost model? Measured times against predictions.

Three steps, the middle one on the GPU machine (it needs only the NVIDIA
driver, tide-run and the modules this script builds):

  bench/cost_model.py build --tide-bin build/bin --out DIR [--target T ...]
      writes DIR/cases.mlir (one function per case: single ops of every
      family at several sizes, and a suite of mixed programs) and compiles it
      three ways: DIR/cpu.so (everything on the CPU), DIR/gpu.so (target h200,
      policy soft: everything with a GPU kernel on the GPU) and, for each
      --target T, DIR/cost-NAME.so (policy cost). The predictions of every
      target (all-CPU, all-GPU and the cost placement's modelled time per
      call) go to DIR/predicted-NAME.json.
  bench/cost_model.py run --dir DIR --tide-bin BIN [--repeat N]
      times every function of every module with tide-run (host inputs and
      results, as a NumPy caller sees it; median of N calls), twice, and
      writes DIR/measured.json.
  bench/cost_model.py report --dir DIR [--target NAME ...]
      prints, per case, the measured and predicted times of each side and the
      model's error, and for the mixed programs whether policy=cost was within
      10% of the better of all-CPU and all-GPU.
"""
import argparse
import glob
import json
import math
import os
import re
import subprocess
import sys


def tensor(shape, dtype):
    return "tensor<%s>" % "x".join([str(d) for d in shape] + [dtype])


# --------------------------------------------------------------------------
# Cases
# --------------------------------------------------------------------------

def unary(name, op, n, dtype="f32"):
    t = tensor([n], dtype)
    return name, "single", """func.func @%s(%%x: %s) -> %s {
  %%0 = tide.%s %%x : %s
  return %%0 : %s
}""" % (name, t, t, op, t, t)


def binary(name, op, n, dtype="f32"):
    t = tensor([n], dtype)
    return name, "single", """func.func @%s(%%x: %s, %%y: %s) -> %s {
  %%0 = tide.%s %%x, %%y : %s
  return %%0 : %s
}""" % (name, t, t, t, op, t, t)


def reduce_rows(name, rows, cols, dtype="f32"):
    t, r = tensor([rows, cols], dtype), tensor([rows], dtype)
    return name, "single", """func.func @%s(%%x: %s) -> %s {
  %%0 = tide.reduce_sum %%x axes = [1] : %s
  return %%0 : %s
}""" % (name, t, r, t, r)


def reduce_all(name, n, dtype="f32"):
    t, r = tensor([n], dtype), tensor([], dtype)
    return name, "single", """func.func @%s(%%x: %s) -> %s {
  %%0 = tide.reduce_sum %%x axes = [0] : %s
  return %%0 : %s
}""" % (name, t, r, t, r)


def softmax(name, rows, cols, dtype="f32"):
    t = tensor([rows, cols], dtype)
    return name, "single", """func.func @%s(%%x: %s) -> %s {
  %%0 = tide.softmax %%x axis = 1 : %s
  return %%0 : %s
}""" % (name, t, t, t, t)


def transpose(name, n, dtype="f32"):
    t = tensor([n, n], dtype)
    return name, "single", """func.func @%s(%%x: %s) -> %s {
  %%0 = tide.transpose %%x perm = [1, 0] : %s
  return %%0 : %s
}""" % (name, t, t, t, t)


def matmul(name, m, k, n, dtype="f32"):
    a, b, c = tensor([m, k], dtype), tensor([k, n], dtype), tensor([m, n], dtype)
    return name, "single", """func.func @%s(%%a: %s, %%b: %s) -> %s {
  %%0 = tide.matmul %%a, %%b : %s, %s
  return %%0 : %s
}""" % (name, a, b, c, a, b, c)


def conv(name, n, c, hw, k, dtype="f32"):
    x, w = tensor([n, c, hw, hw], dtype), tensor([k, c, 3, 3], dtype)
    y = tensor([n, k, hw, hw], dtype)
    return name, "single", """func.func @%s(%%x: %s, %%w: %s) -> %s {
  %%0 = tide.conv %%x, %%w strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] : %s, %s
  return %%0 : %s
}""" % (name, x, w, y, x, w, y)


def mlp(name, b, dt):
    """examples/mlp_f32.mlir (784-256-256-10, ELU, softmax, mean loss) at
    batch b in dtype dt."""
    return name, "mixed", """func.func @{n}(%x: tensor<{b}x784x{t}>, %labels: tensor<{b}x10x{t}>,
    %w1: tensor<784x256x{t}>, %b1: tensor<256x{t}>, %w2: tensor<256x256x{t}>, %b2: tensor<256x{t}>,
    %w3: tensor<256x10x{t}>, %b3: tensor<10x{t}>) -> (tensor<{b}x10x{t}>, tensor<{t}>) {{
  %m1 = tide.matmul %x, %w1 : tensor<{b}x784x{t}>, tensor<784x256x{t}>
  %a1 = tide.add %m1, %b1 : tensor<{b}x256x{t}>, tensor<256x{t}>
  %h1 = tide.elu %a1 : tensor<{b}x256x{t}>
  %m2 = tide.matmul %h1, %w2 : tensor<{b}x256x{t}>, tensor<256x256x{t}>
  %a2 = tide.add %m2, %b2 : tensor<{b}x256x{t}>, tensor<256x{t}>
  %h2 = tide.elu %a2 : tensor<{b}x256x{t}>
  %m3 = tide.matmul %h2, %w3 : tensor<{b}x256x{t}>, tensor<256x10x{t}>
  %logits = tide.add %m3, %b3 : tensor<{b}x10x{t}>, tensor<10x{t}>
  %probs = tide.softmax %logits axis = 1 : tensor<{b}x10x{t}>
  %logp = tide.log_softmax %logits axis = 1 : tensor<{b}x10x{t}>
  %picked = tide.mul %labels, %logp : tensor<{b}x10x{t}>
  %nll = tide.reduce_sum %picked axes = [1] : tensor<{b}x10x{t}>
  %neg = tide.neg %nll : tensor<{b}x{t}>
  %loss = tide.reduce_mean %neg axes = [0] : tensor<{b}x{t}>
  return %probs, %loss : tensor<{b}x10x{t}>, tensor<{t}>
}}""".format(n=name, b=b, t=dt)


def chain(name, n, dtype="f32"):
    """Four elementwise ops that fusion makes one loop or kernel."""
    t = tensor([n], dtype)
    return name, "mixed", """func.func @%s(%%x: %s, %%y: %s) -> %s {
  %%0 = tide.exp %%x : %s
  %%1 = tide.mul %%0, %%y : %s
  %%2 = tide.add %%1, %%x : %s
  %%3 = tide.tanh %%2 : %s
  return %%3 : %s
}""" % (name, t, t, t, t, t, t, t, t)


def norm(name, rows, cols, dtype="f32"):
    """A layer normalization written out: two row reductions."""
    x, r = tensor([rows, cols], dtype), tensor([rows, 1], dtype)
    return name, "mixed", """func.func @{n}(%x: {x}) -> {x} {{
  %m = tide.reduce_mean %x axes = [1] keepdims : {x}
  %d = tide.sub %x, %m : {x}, {r}
  %s = tide.mul %d, %d : {x}
  %v = tide.reduce_mean %s axes = [1] keepdims : {x}
  %q = tide.sqrt %v : {r}
  %y = tide.div %d, %q : {x}, {r}
  return %y : {x}
}}""".format(n=name, x=x, r=r)


def attention(name, heads, seq, dim, dtype="f32"):
    q = tensor([heads, seq, dim], dtype)
    kt = tensor([heads, dim, seq], dtype)
    s = tensor([heads, seq, seq], dtype)
    return name, "mixed", """func.func @{n}(%q: {q}, %kt: {kt}, %v: {q}) -> {q} {{
  %s = tide.matmul %q, %kt : {q}, {kt}
  %p = tide.softmax %s axis = 2 : {s}
  %o = tide.matmul %p, %v : {s}, {q}
  return %o : {q}
}}""".format(n=name, q=q, kt=kt, s=s)


def conv_block(name, n, c, hw):
    x, w = tensor([n, c, hw, hw], "f32"), tensor([c, c, 3, 3], "f32")
    b = tensor([c, 1, 1], "f32")
    return name, "mixed", """func.func @{n}(%x: {x}, %w: {w}, %b: {b}) -> {x} {{
  %c = tide.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] : {x}, {w}
  %a = tide.add %c, %b : {x}, {b}
  %r = tide.relu %a : {x}
  %s = tide.add %r, %x : {x}
  return %s : {x}
}}""".format(n=name, x=x, w=w, b=b)


def sum_big(name, n):
    t = tensor([n], "f32")
    return name, "mixed", """func.func @{n}(%x: {t}) -> tensor<f32> {{
  %e = tide.exp %x : {t}
  %s = tide.reduce_sum %e axes = [0] : {t}
  return %s : tensor<f32>
}}""".format(n=name, t=t)


def cases():
    out = []
    for n, tag in [(4096, "4k"), (262144, "256k"), (4194304, "4m"), (16777216, "16m")]:
        out.append(unary("exp_" + tag, "exp", n))
    for n, tag in [(262144, "256k"), (16777216, "16m")]:
        out.append(unary("exp64_" + tag, "exp", n, "f64"))
    for n, tag in [(4096, "4k"), (1048576, "1m"), (16777216, "16m")]:
        out.append(binary("add_" + tag, "add", n))
    for rows, cols in [(256, 1024), (16384, 1024)]:
        out.append(reduce_rows("rowsum_%dx%d" % (rows, cols), rows, cols))
    for n, tag in [(65536, "64k"), (16777216, "16m")]:
        out.append(reduce_all("sum_" + tag, n))
    for rows, cols in [(64, 1000), (4096, 1000), (32768, 1024)]:
        out.append(softmax("softmax_%dx%d" % (rows, cols), rows, cols))
    for n in [256, 1024, 4096]:
        out.append(transpose("transpose_%d" % n, n))
    for n in [64, 256, 1024, 2048]:
        out.append(matmul("matmul_%d" % n, n, n, n))
    for n in [256, 1024, 2048]:
        out.append(matmul("matmul64_%d" % n, n, n, n, "f64"))
    out.append(matmul("matmul_skinny", 8, 4096, 4096))
    out.append(conv("conv_1x64x56", 1, 64, 56, 64))
    out.append(conv("conv_8x64x56", 8, 64, 56, 64))
    out.append(conv("conv_1x256x14", 1, 256, 14, 256))
    # The suite of mixed programs.
    for b in [8, 64, 256, 2048]:
        out.append(mlp("mlp_b%d" % b, b, "f32"))
    for b in [8, 128, 1024]:
        out.append(mlp("mlp64_b%d" % b, b, "f64"))
    for n, tag in [(4096, "4k"), (1048576, "1m"), (16777216, "16m")]:
        out.append(chain("chain_" + tag, n))
    for rows in [256, 16384]:
        out.append(norm("norm_%dx1024" % rows, rows, 1024))
    out.append(attention("attn_4x64x64", 4, 64, 64))
    out.append(attention("attn_16x512x64", 16, 512, 64))
    out.append(conv_block("convblock_1x64x56", 1, 64, 56))
    out.append(conv_block("convblock_8x64x56", 8, 64, 56))
    out.append(sum_big("expsum_64k", 65536))
    out.append(sum_big("expsum_16m", 16777216))
    return out


# --------------------------------------------------------------------------
# Steps
# --------------------------------------------------------------------------

def target_name(t):
    return os.path.splitext(os.path.basename(t))[0]


def check_call(cmd):
    print("+ " + " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True)


def build(args):
    os.makedirs(args.out, exist_ok=True)
    cs = cases()
    mlir = os.path.join(args.out, "cases.mlir")
    with open(mlir, "w") as fh:
        fh.write("\n\n".join(text for _, _, text in cs) + "\n")
    with open(os.path.join(args.out, "cases.json"), "w") as fh:
        json.dump([{"name": n, "kind": k} for n, k, _ in cs], fh, indent=1)
    compile_ = os.path.join(args.tide_bin, "tide-compile")
    opt = os.path.join(args.tide_bin, "tide-opt")
    if not args.skip_sides:
        check_call([compile_, mlir, "--target=cpu", "--cpu=" + args.cpu, "--no-remarks", "-o",
                    os.path.join(args.out, "cpu.so")])
        check_call([compile_, mlir, "--target=h200", "--policy=soft", "--cpu=" + args.cpu, "--no-remarks", "-o",
                    os.path.join(args.out, "gpu.so")])
    for t in args.target:
        name = target_name(t)
        check_call([compile_, mlir, "--target=" + t, "--policy=cost", "--cpu=" + args.cpu, "--no-remarks", "-o",
                    os.path.join(args.out, "cost-%s.so" % name)])
        pred = os.path.join(args.out, "predicted-%s.json" % name)
        check_call([opt, mlir, "-o", "/dev/null", "--tide-place-pipeline=target=%s policy=cost "
                    "remarks=false report=json report-output=%s" % (t, pred)])
    for f in glob.glob(os.path.join(args.out, "*.h")):
        os.remove(f)


def run(args):
    tide_run = os.path.join(args.tide_bin, "tide-run")
    with open(os.path.join(args.dir, "cases.json")) as fh:
        cs = json.load(fh)
    out_path = os.path.join(args.dir, "measured.json")
    measured = {}
    mods = sorted(os.path.basename(p)[:-3] for p in glob.glob(os.path.join(args.dir, "*.so")))
    # Round by round, case by case, the modules one after the other: the
    # host's noise (other tenants, clock changes) then reaches the sides of
    # one comparison alike.
    for rnd in range(args.rounds):
        for c in cs:
            name = c["name"]
            for mod in mods:
                so = os.path.join(args.dir, mod + ".so")
                cmd = [tide_run, so, "--entry=" + name, "--random=1",
                       "--repeat=%d" % args.repeat]
                p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
                m = re.search(r"calls, min ([\d.]+) (\w+), median ([\d.]+) (\w+)", p.stdout)
                key = "%s/%s" % (mod, name)
                if p.returncode != 0 or not m:
                    err = (p.stderr.strip().splitlines() or ["?"])[-1]
                    print("%s: failed (%d): %s" % (key, p.returncode, err), flush=True)
                    continue
                scale = {"us": 1, "ms": 1e3, "s": 1e6, "ns": 1e-3}
                med = float(m.group(3)) * scale[m.group(4)]
                measured.setdefault(key, []).append(med)
                print("%s round %d: %.1f us" % (key, rnd, med), flush=True)
        with open(out_path, "w") as fh:
            json.dump(measured, fh, indent=1)


def load_pred(d, name):
    with open(os.path.join(d, "predicted-%s.json" % name)) as fh:
        report = json.load(fh)
    return {f["function"]: f for f in report["functions"]}


def report(args):
    with open(os.path.join(args.dir, "cases.json")) as fh:
        cs = json.load(fh)
    with open(os.path.join(args.dir, "measured.json")) as fh:
        measured = json.load(fh)

    def meas(mod, name):
        v = measured.get("%s/%s" % (mod, name))
        return min(v) if v else None

    def fmt(us):
        if us is None:
            return "-"
        return "%.0f" % us if us >= 100 else "%.1f" % us

    def ratio(p, m):
        return "%.2f" % (p / m) if p and m else "-"

    for t in args.target:
        pred = load_pred(args.dir, t)
        print("\n## target %s: predicted / measured (us per call; ratio > 1: the model is pessimistic)\n" % t)
        print("| case | CPU measured | CPU predicted | ratio | GPU measured | GPU predicted | ratio |")
        print("|---|---|---|---|---|---|---|")
        logs = {"cpu": [], "gpu": []}
        for c in cs:
            f = pred.get(c["name"])
            if not f:
                continue
            cost = f["cost_us"]
            mc, mg = meas("cpu", c["name"]), meas("gpu", c["name"])
            pc, pg = cost["all_cpu"], cost["all_gpu"]
            for side, p, m in (("cpu", pc, mc), ("gpu", pg, mg)):
                if p and m:
                    logs[side].append(abs(math.log(p / m)))
            print("| %s | %s | %s | %s | %s | %s | %s |" % (
                c["name"], fmt(mc), fmt(pc), ratio(pc, mc), fmt(mg), fmt(pg), ratio(pg, mg)))
        for side in ("cpu", "gpu"):
            v = sorted(logs[side])
            if v:
                med = math.exp(v[len(v) // 2])
                worst = math.exp(v[-1])
                print("\n%s: median error %.2fx, worst %.2fx over %d cases" % (side.upper(), med, worst, len(v)))
        print("\n### policy=cost with target %s against the better side (mixed programs and single ops)\n" % t)
        print("| case | cost placement | all-CPU | all-GPU | cost / best (module) | (placement) | ops on GPU |")
        print("|---|---|---|---|---|---|---|")
        # Two counts. By module time: the cost module's own time. By
        # placement: a cost placement that puts every op on one side is the
        # module of that side (the same code), so it counts at that side's
        # time, measured in the same rounds; the host's noise between two
        # runs of identical code (up to 1.5x on a shared 16-core host) then
        # does not count as the model's error.
        within = total = 0
        mixed_within = mixed_total = 0
        pwithin = pmixed_within = 0
        for c in cs:
            mcost = meas("cost-" + t, c["name"])
            mc, mg = meas("cpu", c["name"]), meas("gpu", c["name"])
            f = pred.get(c["name"])
            if mcost is None or not (mc or mg) or not f:
                continue
            best = min(x for x in (mc, mg) if x)
            r = mcost / best
            on_gpu = sum(1 for o in f["ops"] if o["device"].startswith("cuda"))
            by_placement = mc if on_gpu == 0 else mg if on_gpu == len(f["ops"]) else mcost
            rp = (by_placement or mcost) / best
            total += 1
            within += r <= 1.10
            pwithin += rp <= 1.10
            if c["kind"] == "mixed":
                mixed_total += 1
                mixed_within += r <= 1.10
                pmixed_within += rp <= 1.10
            print("| %s%s | %s | %s | %s | %s%s | %s%s | %d of %d |" % (
                c["name"], " (mixed)" if c["kind"] == "mixed" else "", fmt(mcost), fmt(mc), fmt(mg),
                "%.2f" % r, "" if r <= 1.10 else " **", "%.2f" % rp, "" if rp <= 1.10 else " **",
                on_gpu, len(f["ops"])))
        print("\nBy module time: %d of %d cases within 10%% of the better side (mixed programs: %d of %d)"
              % (within, total, mixed_within, mixed_total))
        print("By placement: %d of %d cases within 10%% of the better side (mixed programs: %d of %d)"
              % (pwithin, total, pmixed_within, mixed_total))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("--tide-bin", required=True)
    b.add_argument("--out", required=True)
    b.add_argument("--target", action="append", help="target of policy=cost (default h200)")
    b.add_argument("--cpu", default="x86-64-v4",
                   help="CPU for the host code: the GPU machine's host (a Xeon with AVX-512, "
                   "whose figures the built-in h200 carries), not this one")
    b.add_argument("--skip-sides", action="store_true", help="only the cost modules")
    r = sub.add_parser("run")
    r.add_argument("--tide-bin", required=True)
    r.add_argument("--dir", required=True)
    r.add_argument("--repeat", type=int, default=20)
    r.add_argument("--rounds", type=int, default=2)
    p = sub.add_parser("report")
    p.add_argument("--dir", required=True)
    p.add_argument("--target", action="append")
    args = ap.parse_args()
    if args.cmd in ("build", "report") and not args.target:
        args.target = ["h200"]
    if args.cmd == "report":
        args.target = [target_name(t) for t in args.target]
    return {"build": build, "run": run, "report": report}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
