#!/usr/bin/env python3
"""ONNX backend conformance: every model test of the ONNX test data, through
tide-import-onnx -> tide-compile -> tide-run, compared with the stored outputs
at the ONNX runner's tolerance (rtol 1e-3, atol 1e-7).

    conformance.py --tide-bin build/bin --target cpu \
        --expect test/Frontend/ONNX/expectations-cpu.txt

The expectations file is strict: every test either passes, or is listed with
a reason ("out-of-scope: ..." or "gap: ..."). A failure that is not listed and
a listed test that passes both fail the run, so the list only shrinks.
`--write-expectations` rewrites the file from this run's failures (reasons
are taken from the first error line; out-of-scope classes by rule).

For the GPU: `--build-only` imports and compiles here and writes a manifest
into --tmp; `--run-only` (on the GPU machine, which needs only NumPy and
tide-run) runs and checks the compiled modules from that manifest.

Prints `N passed, N failed` and, with --report, writes a per-op table.
Needs NumPy and the `onnx` Python package (to read the .pb tensors).
"""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np

DATA = "/usr/share/libonnx-testdata/data"
SUITES = ["node", "pytorch-converted", "pytorch-operator", "simple"]
RTOL, ATOL = 1e-3, 1e-7

# Classes the issue puts out of scope, by the op types a model uses. (Sequence
# and optional ops are imported inside a graph; a model whose inputs or
# outputs are sequences or optionals is out of scope: out_of_scope's kinds.)
OUT_OF_SCOPE_OPS = {
    "strings": {"StringNormalizer", "RegexFullMatch", "StringConcat", "StringSplit",
                "TfIdfVectorizer"},
    "random": {"RandomNormal", "RandomUniform", "RandomNormalLike",
               "RandomUniformLike", "Multinomial", "Bernoulli"},
    "training": {"Adagrad", "Adam", "Momentum", "Gradient"},
    # ImageDecoder's result has the encoded image's size (NonZero, Compress,
    # Unique and NonMaxSuppression, also sized by their data, are imported).
    "data-dependent output shape": {"ImageDecoder"},
}


# ONNX's float8, float4, int4 and int2 types (TensorProto.DataType numbers,
# newer than Debian's ONNX): bits per element, and whether the values are
# signed integers. Tide carries the float types as their bits in uint8 and
# the integer types as values in int8/uint8.
NARROW = {17: (8, False), 18: (8, False), 19: (8, False), 20: (8, False),
          21: (4, False), 22: (4, True), 23: (4, False), 24: (8, False),
          25: (2, False), 26: (2, True)}


def narrow_array(t):
    """A narrow-typed TensorProto as Tide's carrier array."""
    bits, signed = NARROW[t.data_type]
    count = int(np.prod(t.dims)) if len(t.dims) else 1
    raw = t.raw_data if t.HasField("raw_data") else bytes(
        v & 0xFF for v in t.int32_data)
    packed = np.frombuffer(raw, dtype=np.uint8)
    per = 8 // bits
    codes = np.stack([(packed >> (bits * k)) & ((1 << bits) - 1)
                      for k in range(per)], axis=1).reshape(-1)[:count]
    if signed:
        codes = codes.astype(np.int16)
        codes = np.where(codes >= 1 << (bits - 1), codes - (1 << bits), codes)
        return codes.astype(np.int8).reshape(tuple(t.dims))
    return codes.astype(np.uint8).reshape(tuple(t.dims))


def load_tensor(path):
    import onnx
    from onnx import numpy_helper
    data = open(path, "rb").read()
    t = onnx.TensorProto()
    try:
        t.ParseFromString(data)
        if t.data_type == onnx.TensorProto.STRING:
            return None, "string tensor"
        if t.data_type in NARROW:
            return narrow_array(t), None
        a = numpy_helper.to_array(t)
        if t.data_type == onnx.TensorProto.BFLOAT16 and a.dtype == np.float32:
            # Newer ONNX test data, read by ONNX 1.12: bfloat16 values come
            # back as float32 (exact); Tide's .npy files hold the bits.
            a = (a.view(np.uint32) >> 16).astype(np.uint16)
        return a, None
    except Exception:  # Sequence / Optional protos.
        return None, "not a tensor (sequence or optional)"


def model_info(model_path):
    """Graph input names (not initializers), output names, op types."""
    import onnx
    m = onnx.load(model_path, load_external_data=False)
    inits = {i.name for i in m.graph.initializer}
    inputs = [i for i in m.graph.input if i.name not in inits]
    kinds = []
    for i in list(inputs) + list(m.graph.output):
        kinds.append(i.type.WhichOneof("value"))
    ops = [n.op_type for n in m.graph.node]
    bf16 = [o.type.tensor_type.elem_type == onnx.TensorProto.BFLOAT16
            for o in m.graph.output]
    return ([i.name for i in inputs], [o.name for o in m.graph.output], ops,
            kinds, bf16)


def out_of_scope(name, ops, kinds):
    for why, names in OUT_OF_SCOPE_OPS.items():
        if any(op in names for op in ops):
            return why
    if any(k not in ("tensor_type", None) for k in kinds):
        return "sequences/optional"
    if "string" in name.lower() or "strnorm" in name:
        return "strings"
    if name.startswith("test_dropout") and "default" not in name:
        return "random"
    if "training" in name and ("dropout" in name or "batchnorm" in name):
        return "training"
    return None


def run(cmd, timeout=300):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired:
        return 124, "timed out"


def first_error(text):
    for line in text.splitlines():
        if "error" in line:
            line = re.sub(r"^\S+model\.onnx: ", "", line)
            line = re.sub(r"^/\S+: ", "", line)
            return line.strip()[:200]
    lines = [l for l in text.splitlines() if l.strip()]
    return (lines[-1] if lines else "failed")[:200]


def bf16_values(a):
    bits = a.view(np.uint16) if a.dtype.itemsize == 2 else a.astype(np.uint16)
    return (bits.astype(np.uint32) << 16).view(np.float32)


def compare(got, want, rtol=None):
    rtol = RTOL if rtol is None else rtol
    if got.shape != want.shape:
        return "shape %s, expected %s" % (got.shape, want.shape)
    if want.dtype == np.bool_ or got.dtype == np.bool_:
        if not np.array_equal(got.astype(np.bool_), want.astype(np.bool_)):
            return "values differ"
        return None
    if got.dtype != want.dtype:
        return "dtype %s, expected %s" % (got.dtype, want.dtype)
    if want.size == 0:
        return None
    g = got.astype(np.float64)
    w = want.astype(np.float64)
    nan_g, nan_w = np.isnan(g), np.isnan(w)
    if not np.array_equal(nan_g, nan_w):
        return "NaN at different places"
    ok = ~nan_w
    both_inf = np.isinf(w) & ok
    if not np.array_equal(g[both_inf], w[both_inf]):
        return "infinities differ"
    fin = ok & ~both_inf
    bad = np.abs(g[fin] - w[fin]) > ATOL + rtol * np.abs(w[fin])
    if bad.any():
        diff = np.abs(g[fin] - w[fin])
        # The worst element among those off (the largest error overall may be
        # within the relative tolerance of a large value).
        worst = np.argmax(np.where(bad, diff, -1.0))
        return "max abs error %.3g; %d of %d elements off, the worst %.8g where %.8g is expected" % (
            diff.max(), bad.sum(), fin.sum(), g[fin][worst], w[fin][worst])
    return None


def prepare(test_dir, work, args):
    """Imports and compiles one test. Returns a manifest entry."""
    name = os.path.basename(test_dir)
    model = os.path.join(test_dir, "model.onnx")
    entry = {"name": name, "suite": os.path.basename(os.path.dirname(test_dir)),
             "status": None, "why": "", "ops": []}
    try:
        inputs, outputs, ops, kinds, bf16 = model_info(model)
    except Exception as e:  # noqa: BLE001
        entry.update(status="fail", why="onnx cannot read the model: %s" % e)
        return entry
    entry["ops"] = ops
    scope = out_of_scope(name, ops, kinds)
    datasets = sorted(d for d in os.listdir(test_dir) if d.startswith("test_data_set"))
    if not datasets:
        entry.update(status="fail", why="no test data")
        return entry
    ds = os.path.join(test_dir, datasets[0])
    os.makedirs(work, exist_ok=True)
    in_files = []
    for i, iname in enumerate(inputs):
        pb = os.path.join(ds, "input_%d.pb" % i)
        arr, why = load_tensor(pb) if os.path.exists(pb) else (None, "missing input")
        if arr is None:
            entry.update(status="fail", why=why, scope=scope or (
                "strings" if why == "string tensor" else "sequences/optional"))
            return entry
        npy = os.path.join(work, "input_%d.npy" % i)
        np.save(npy, arr)
        in_files.append((iname, pb, npy))
    want = []
    for i in range(len(outputs)):
        pb = os.path.join(ds, "output_%d.pb" % i)
        arr, why = load_tensor(pb) if os.path.exists(pb) else (None, "missing output")
        if arr is None:
            entry.update(status="fail", why=why, scope=scope or (
                "strings" if why == "string tensor" else "sequences/optional"))
            return entry
        npy = os.path.join(work, "expected_%d.npy" % i)
        np.save(npy, arr)
        want.append(npy)
    entry["scope"] = scope
    # Import; bind the inputs the importer needs the values of.
    bound = {}
    mlir = os.path.join(work, "model.mlir")
    for _ in range(len(inputs) + 1):
        cmd = [os.path.join(args.tide_bin, "tide-import-onnx"), model, "-o", mlir,
               "--no-locations"]
        for iname, pb in bound.items():
            cmd.append("--bind-input=%s=%s" % (iname, pb))
        rc, text = run(cmd)
        if rc == 0:
            break
        m = re.search(r"--bind-input (\S+)=FILE", text)
        name_to_pb = {n: pb for n, pb, _ in in_files}
        if m and m.group(1) in name_to_pb and m.group(1) not in bound:
            bound[m.group(1)] = name_to_pb[m.group(1)]
            continue
        entry.update(status="fail", why="import: " + first_error(text))
        return entry
    so = os.path.join(work, "model.so")
    rc, text = run([os.path.join(args.tide_bin, "tide-compile"), mlir,
                    "--target=%s" % args.target, "-o", so, "--no-remarks"]
                   + (["--cpu=" + args.cpu] if args.cpu else []))
    if rc != 0:
        entry.update(status="fail", why="compile: " + first_error(text))
        return entry
    entry.update(status="built", so=so, bf16=bf16,
                 inputs=[npy for n, _, npy in in_files if n not in bound],
                 expected=want)
    return entry


def execute(entry, args):
    if entry["status"] != "built":
        return entry
    work = os.path.dirname(entry["so"])
    outs = [os.path.join(work, "got_%d.npy" % i) for i in range(len(entry["expected"]))]
    cmd = [os.path.join(args.tide_bin, "tide-run"), entry["so"]]
    cmd += ["--input=" + f for f in entry["inputs"]]
    cmd += ["--output=" + f for f in outs]
    rc, text = run(cmd)
    if rc != 0:
        entry.update(status="fail", why="run: " + first_error(text))
        return entry
    for i, (got, want) in enumerate(zip(outs, entry["expected"])):
        g, w = np.load(got), np.load(want)
        if entry.get("bf16") and i < len(entry["bf16"]) and entry["bf16"][i]:
            # bfloat16 results: ONNX 1.12 stores the bits as uint16; compare
            # the values (any NaN equals any NaN).
            g, w = bf16_values(g), bf16_values(w)
            # ONNX's own runner (1.23) allows 2^-6 for bfloat16 results:
            # its 8-bit significand differs by an ulp with a different
            # rounding order.
            problem = compare(g, w, rtol=2.0 ** -6)
        else:
            problem = compare(g, w)
        if problem:
            entry.update(status="fail", why="output %d: %s" % (i, problem))
            return entry
    entry.update(status="pass", why="")
    return entry


def read_expectations(path):
    expected = {}
    if not path or not os.path.exists(path):
        return expected
    for line in open(path):
        line = line.rstrip("\n")
        if not line.strip() or line.startswith("#"):
            continue
        name, _, why = line.partition(" ")
        expected[name] = why.strip()
    return expected


def write_expectations(path, results, target):
    lines = ["# ONNX conformance expectations for target=%s: tests expected to fail," % target,
             "# with the reason. Written by test/Frontend/ONNX/conformance.py",
             "# --write-expectations; a listed test that passes fails the run.",
             "# Reasons: 'out-of-scope: <class>' (strings, sequences/optional, random,",
             "# training, data-dependent output shape) or 'gap: <what>'.", ""]
    for r in sorted(results, key=lambda r: r["key"]):
        if r["status"] == "pass":
            continue
        if r.get("scope"):
            why = "out-of-scope: %s" % r["scope"]
        else:
            why = re.sub(r"^import: (node \S+ \(\w+\): )?error: ", "import: ", r["why"])
            why = "gap: %s" % why
        lines.append("%s %s" % (r["key"], why))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def op_of(r, by_name):
    ops = [o for o in r["ops"] if o != "Constant"] or r["ops"]
    if len(set(ops)) == 1:
        return ops[0]
    base = r["name"].replace("_expanded", "")
    if base != r["name"] and base in by_name:
        twin = by_name[base]
        tops = [o for o in twin["ops"] if o != "Constant"]
        if len(set(tops)) == 1:
            return tops[0] + " (expanded)"
    return "(models: %s)" % r["suite"] if r["suite"] != "node" else "(composite)"


def write_report(path, results, target, other=None, other_target=None):
    """Per ONNX op: tests passed on `target` (and on `other_target`, from a
    --results file of a run there), in scope, out of scope."""
    by_name = {r["name"]: r for r in results}
    other = {r["key"]: r for r in (other or [])}
    table = {}
    for r in results:
        op = op_of(r, by_name)
        row = table.setdefault(op, [0, 0, 0, 0])
        if r.get("scope"):
            row[3] += 1
            continue
        row[2] += 1
        row[0] += r["status"] == "pass"
        row[1] += other.get(r["key"], {}).get("status") == "pass"
    in_scope = [r for r in results if not r.get("scope")]
    passed = sum(r["status"] == "pass" for r in in_scope)
    lines = ["# ONNX conformance", "",
             "Generated by `test/Frontend/ONNX/conformance.py --report` from the ONNX test data of",
             "Debian's `libonnx-testdata` 1.12 (node, pytorch-converted, pytorch-operator, simple): each",
             "model imported, compiled and run by Tide, compared with the stored outputs (rtol 1e-3,",
             "atol 1e-7). Failures are listed with their reasons in `test/Frontend/ONNX/expectations-*.txt`.",
             "", "- %s: %d of %d in-scope tests pass (%.1f%%); %d tests are out of scope." % (
                 target, passed, len(in_scope), 100.0 * passed / max(1, len(in_scope)),
                 len(results) - len(in_scope))]
    if other:
        opass = sum(other.get(r["key"], {}).get("status") == "pass" for r in in_scope)
        lines.append("- %s: %d of %d in-scope tests pass (%.1f%%)." % (
            other_target, opass, len(in_scope), 100.0 * opass / max(1, len(in_scope))))
    lines += ["", "| ONNX op | passed (%s) |%s in scope | out of scope |" % (
        target, " passed (%s) |" % other_target if other else ""),
        "|---|---|%s---|---|" % ("---|" if other else "")]
    for op in sorted(table):
        p, q, n, o = table[op]
        lines.append("| %s | %d |%s %d | %d |" % (op, p, " %d |" % q if other else "", n, o))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


# Libraries every machine that runs Tide's modules has (or Tide's own).
SYSTEM_LIBRARIES = ("libc.so", "libm.so", "libmvec.so", "libstdc++.so", "libgcc_s.so", "ld-linux",
                    "libdl.so", "libpthread.so", "librt.so", "libcuda.so", "libTideCudaRuntime.so")


def copy_module_libraries(tmp, modules):
    """With --build-only: copies the libraries `modules` load (libomp for
    host loops across threads, OpenBLAS, oneDNN), other than the system's and
    Tide's runtime, into TMP/lib, where --run-only finds them on a machine
    without LLVM. Returns their names."""
    found = set()
    for so in modules:
        p = subprocess.run(["ldd", so], capture_output=True, text=True)
        for line in p.stdout.splitlines():
            parts = line.split()
            if len(parts) >= 3 and parts[1] == "=>" and parts[2].startswith("/"):
                if not os.path.basename(parts[2]).startswith(SYSTEM_LIBRARIES):
                    found.add(parts[2])
    if not found:
        return []
    os.makedirs(os.path.join(tmp, "lib"), exist_ok=True)
    names = {}
    for f in sorted(found):
        names.setdefault(os.path.basename(f), f)
    for name, f in names.items():
        shutil.copy(os.path.realpath(f), os.path.join(tmp, "lib", name))
    return sorted(names)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tide-bin", required=True)
    ap.add_argument("--data", default=DATA)
    ap.add_argument("--suites", default=",".join(SUITES))
    ap.add_argument("--target", default="cpu")
    ap.add_argument("--cpu", default=None,
                    help="tide-compile --cpu (x86-64-v3 for modules run on another machine)")
    ap.add_argument("--tmp", default=None)
    ap.add_argument("--expect", default=None)
    ap.add_argument("--write-expectations", action="store_true")
    ap.add_argument("--report", default=None)
    ap.add_argument("--filter", default=None, help="regex on test names")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--build-only", action="store_true")
    ap.add_argument("--run-only", action="store_true")
    ap.add_argument("--results", default=None, help="write every result as JSON")
    ap.add_argument("--other-results", default=None,
                    help="--results of a run on another target, for the report")
    ap.add_argument("--other-target", default="h200")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    args.tide_bin = os.path.abspath(args.tide_bin)
    tmp = os.path.abspath(args.tmp or os.path.join(os.getcwd(), "onnx-conformance-" + args.target))
    manifest = os.path.join(tmp, "manifest.json")

    if args.run_only:
        entries = json.load(open(manifest))
        # The libraries --build-only copied (a machine without LLVM lacks
        # libomp): found by every tide-run this starts.
        if os.path.isdir(os.path.join(tmp, "lib")):
            os.environ["LD_LIBRARY_PATH"] = os.pathsep.join(
                [os.path.join(tmp, "lib")] + [p for p in [os.environ.get("LD_LIBRARY_PATH")] if p])
        # Paths in the manifest are relative to it.
        for e in entries:
            for k in ("so",):
                if e.get(k):
                    e[k] = os.path.join(tmp, e[k])
            for k in ("inputs", "expected"):
                if e.get(k):
                    e[k] = [os.path.join(tmp, f) for f in e[k]]
    else:
        if os.path.exists(tmp):
            shutil.rmtree(tmp)
        os.makedirs(tmp)
        tests = []
        for suite in args.suites.split(","):
            root = os.path.join(args.data, suite)
            if not os.path.isdir(root):
                continue
            for t in sorted(os.listdir(root)):
                d = os.path.join(root, t)
                if not os.path.exists(os.path.join(d, "model.onnx")):
                    continue
                if args.filter and not re.search(args.filter, t):
                    continue
                tests.append((suite, d))
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            futs = [pool.submit(prepare, d, os.path.join(tmp, suite, os.path.basename(d)), args)
                    for suite, d in tests]
            entries = [f.result() for f in futs]
        if args.build_only:
            rel = []
            for e in entries:
                e = dict(e)
                if e.get("so"):
                    e["so"] = os.path.relpath(e["so"], tmp)
                for k in ("inputs", "expected"):
                    if e.get(k):
                        e[k] = [os.path.relpath(f, tmp) for f in e[k]]
                rel.append(e)
            json.dump(rel, open(manifest, "w"), indent=0)
            built = sum(e["status"] == "built" for e in entries)
            copied = copy_module_libraries(tmp, [e["so"] for e in entries if e.get("so")])
            print("built %d of %d tests into %s%s" % (
                built, len(entries), tmp,
                "; libraries the modules load copied into %s/lib: %s" % (tmp, " ".join(copied))
                if copied else ""))
            return 0

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda e: execute(e, args), entries))
    for r in results:
        r["key"] = r["name"] if r["suite"] == "node" else r["suite"] + "/" + r["name"]

    if args.results:
        json.dump([{k: r.get(k) for k in ("key", "name", "suite", "status", "why", "scope", "ops")}
                   for r in results], open(args.results, "w"), indent=0)
    if args.write_expectations and args.expect:
        write_expectations(args.expect, results, args.target)
    if args.report:
        other = json.load(open(args.other_results)) if args.other_results else None
        write_report(args.report, results, args.target, other, args.other_target)

    expected = read_expectations(args.expect)
    unexpected_fail, unexpected_pass = [], []
    for r in results:
        if r["status"] == "pass":
            if r["key"] in expected:
                unexpected_pass.append(r)
        elif r["key"] not in expected:
            unexpected_fail.append(r)
    passed = sum(r["status"] == "pass" for r in results)
    failed = len(results) - passed
    in_scope = [r for r in results if not r.get("scope")]
    in_pass = sum(r["status"] == "pass" for r in in_scope)
    if args.verbose:
        for r in results:
            if r["status"] != "pass":
                print("FAIL %s: %s" % (r["key"], r["why"]))
    for r in unexpected_fail:
        print("UNEXPECTED FAIL %s: %s" % (r["key"], r["why"]))
    for r in unexpected_pass:
        print("UNEXPECTED PASS %s (listed: %s); remove it from %s" % (
            r["key"], expected[r["key"]], args.expect))
    print("%d passed, %d failed (%d of %d in-scope tests pass: %.1f%%; target %s)" % (
        passed, failed, in_pass, len(in_scope), 100.0 * in_pass / max(1, len(in_scope)),
        args.target))
    if args.expect and not args.write_expectations and (unexpected_fail or unexpected_pass):
        print("%d unexpected failures, %d unexpected passes" % (
            len(unexpected_fail), len(unexpected_pass)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
