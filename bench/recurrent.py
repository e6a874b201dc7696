#!/usr/bin/env python3
"""An LSTM over a sequence length known only at run time (one tide.scan)
against the same LSTM with the length fixed (unrolled while importing) and
ONNX Runtime, at 1 and all threads, on the CPU.

    build/bench-venv/bin/python bench/recurrent.py [--bin build/bin]
        [--seq 64] [--batch 8] [--input 128] [--hidden 256] [--rounds 3]

Each round times every system once (tide-run --repeat's median of the call;
ONNX Runtime's median of session.run over the same number of calls); each
figure is the best round's. Results are checked against ONNX Runtime first.
Prints us per call and compile times.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def model(path, seq_dim, b, i, h, rng):
    w = rng.uniform(-0.1, 0.1, (1, 4 * h, i)).astype(np.float32)
    r = rng.uniform(-0.1, 0.1, (1, 4 * h, h)).astype(np.float32)
    bias = rng.uniform(-0.1, 0.1, (1, 8 * h)).astype(np.float32)
    node = helper.make_node("LSTM", ["X", "W", "R", "B"], ["Y", "Y_h"], hidden_size=h)
    g = helper.make_graph(
        [node], "lstm", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [seq_dim, b, i])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [seq_dim, 1, b, h]),
         helper.make_tensor_value_info("Y_h", TensorProto.FLOAT, [1, b, h])],
        initializer=[numpy_helper.from_array(w, "W"), numpy_helper.from_array(r, "R"),
                     numpy_helper.from_array(bias, "B")])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)]), path)


def tide_time(bin_dir, so, x_path, threads, repeat):
    env = dict(os.environ, TIDE_NUM_THREADS=str(threads))
    p = subprocess.run([os.path.join(bin_dir, "tide-run"), so, "--input=" + x_path,
                        "--repeat=%d" % repeat], capture_output=True, text=True, env=env,
                       check=True)
    m = re.search(r"median ([\d.]+) (\w+)", p.stdout)
    return float(m.group(1)) * {"us": 1, "ms": 1e3, "s": 1e6}[m.group(2)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(os.path.dirname(__file__), "..", "build", "bin"))
    ap.add_argument("--seq", type=int, default=64)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--input", type=int, default=128)
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=50)
    args = ap.parse_args()
    import onnxruntime as ort
    all_threads = len(os.sched_getaffinity(0))
    rng = np.random.default_rng(0)
    d = tempfile.mkdtemp(prefix="tide-recurrent-")
    paths = {}
    for name, seq_dim in (("loop", "T"), ("unrolled", args.seq)):
        paths[name] = os.path.join(d, name + ".onnx")
        model(paths[name], seq_dim, args.batch, args.input, args.hidden, np.random.default_rng(1))
    x = rng.standard_normal((args.seq, args.batch, args.input)).astype(np.float32)
    x_path = os.path.join(d, "x.npy")
    np.save(x_path, x)
    sos = {}
    for name, path in paths.items():
        so = path[:-5] + ".so"
        t = time.perf_counter()
        subprocess.run([os.path.join(args.bin, "tide-compile"), path, "--target=cpu", "-o", so,
                        "--no-remarks"], check=True)
        print("compile %-9s %.2f s" % (name, time.perf_counter() - t))
        sos[name] = so
    # Results first.
    sess = ort.InferenceSession(paths["loop"], providers=["CPUExecutionProvider"])
    want = sess.run(None, {"X": x})
    for name, so in sos.items():
        outs = [os.path.join(d, "%s_out%d.npy" % (name, k)) for k in range(2)]
        subprocess.run([os.path.join(args.bin, "tide-run"), so, "--input=" + x_path] +
                       ["--output=" + o for o in outs], check=True, capture_output=True)
        for o, w in zip(outs, want):
            err = float(np.max(np.abs(np.load(o) - w)))
            if err > 1e-4:
                sys.exit("%s: max abs error %g against ONNX Runtime" % (name, err))
    best = {}
    sessions = {}
    for th in sorted({1, all_threads}):
        o = ort.SessionOptions()
        o.intra_op_num_threads = th
        sessions[th] = ort.InferenceSession(paths["loop"], o, providers=["CPUExecutionProvider"])
    for _ in range(args.rounds):
        for th in sorted({1, all_threads}):
            for name, so in sos.items():
                v = tide_time(args.bin, so, x_path, th, args.repeat)
                best[(name, th)] = min(best.get((name, th), 1e30), v)
            s = sessions[th]
            for _ in range(5):
                s.run(None, {"X": x})
            ts = []
            for _ in range(args.repeat):
                t = time.perf_counter()
                s.run(None, {"X": x})
                ts.append(time.perf_counter() - t)
            best[("ort", th)] = min(best.get(("ort", th), 1e30), float(np.median(ts)) * 1e6)
    print("LSTM T=%d B=%d I=%d H=%d (us per call; ratio to ONNX Runtime)" %
          (args.seq, args.batch, args.input, args.hidden))
    for th in sorted({1, all_threads}):
        o = best[("ort", th)]
        print("threads %d: Tide loop %.0f (%.2fx), Tide unrolled %.0f (%.2fx), ONNX Runtime %s %.0f"
              % (th, best[("loop", th)], best[("loop", th)] / o, best[("unrolled", th)],
                 best[("unrolled", th)] / o, ort.__version__, o))


if __name__ == "__main__":
    main()
