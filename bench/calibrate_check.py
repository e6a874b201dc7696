#!/usr/bin/env python3
"""Checks tide-calibrate against independent measurements of the same
quantities (issue 15: "calibration within 15% of what bench/ measures").

Runs tide-calibrate (or reads a target file it wrote), then measures the same
things another way and prints both, their ratio, and whether it is within the
tolerance:

  GPU (PyTorch 2.x):  GEMM f16/bf16/f32/f64 (torch.mm, TF32 off, same size),
                      device-to-device copy bandwidth (Tensor.copy_),
                      host<->device pinned copies (pinned tensors),
                      host<->device pageable copies through Tide's runtime
                      (mgpuMemcpy from a CPU tensor, called with ctypes and
                      timed here: Tide stages pageable copies, so PyTorch's
                      pageable rate is a different quantity; printed as info)
  CPU:                f32/f64 GEMM: Tide's own product (the calibration's
                      gemm module) timed by tide-run --repeat as bench/
                      times modules (checked); the libraries Tide's modules
                      call, called here through ctypes (f32: oneDNN's dnnl_sgemm,
                      f64: OpenBLAS's cblas_dgemm with the kernels Tide
                      chooses), numpy.matmul (the OpenBLAS in NumPy's
                      wheels) and torch.mm: printed as information (other
                      code paths: oneDNN's sgemm entry point ran at 0.7x
                      the matmul primitive Tide calls on the H200's host),
                      a 3x3 convolution of the same shape (PyTorch's conv2d,
                      its oneDNN, as many threads),
                      one-thread memory bandwidth (numpy.add and torch.add on
                      one thread over 3 x 128 MiB, the traffic of
                      tide-calibrate's a = b + s*c; the best checked),
                      all-thread bandwidth (torch.add on as many threads)

Launch latency, copy latency and elementwise rates are printed for information
only: any Python harness adds microseconds per call.

Usage (on the GPU machine, which has no LLVM: carry build/bin/tide-calibrate,
build/lib/libTideCudaRuntime.so and build/lib/tide-calibrate/ from the build
machine, keeping that layout):

    python3 bench/calibrate_check.py --tide-bin build/bin
    python3 bench/calibrate_check.py --target node-nvidia-h200.json   # no new run

With several calibrations (--calibrations N, or --target given several times)
each figure is the best of them; with --calibrations N each calibration is
followed by a round of the independent measurements, and each of those is the
best of its N rounds too (rates and bandwidths the highest, latencies
the lowest), as each calibration's CPU figures are the best of its rounds and
the independent measurements here the best of theirs: on a shared host whose
load changes within a minute, both sides then describe the machine at its
least loaded.

Exit status 1 when a checked figure is off by more than --tolerance.
"""

import argparse
import ctypes
import glob
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time


def find_cublas():
    """cuBLAS for Tide's runtime: the toolkit's, or the one PyTorch ships."""
    if os.environ.get("TIDE_CUBLAS"):
        return os.environ["TIDE_CUBLAS"]
    candidates = glob.glob("/usr/local/cuda/lib64/libcublas.so.1[23]")
    try:
        import nvidia  # PyTorch's CUDA wheels

        for p in nvidia.__path__:
            candidates += glob.glob(os.path.join(p, "cublas", "lib", "libcublas.so.1[23]"))
    except ImportError:
        pass
    return candidates[0] if candidates else None


def run_calibrate(tide_bin, out):
    env = dict(os.environ)
    cublas = find_cublas()
    if cublas:
        env["TIDE_CUBLAS"] = cublas
    cmd = [os.path.join(tide_bin, "tide-calibrate"), "-o", out, "--no-save-native"]
    print("$", " ".join(cmd), "(TIDE_CUBLAS=%s)" % (cublas or "not found"), flush=True)
    start = time.time()
    subprocess.run(cmd, check=True, env=env)
    print("tide-calibrate took %.1f s" % (time.time() - start), flush=True)


def choose_openblas_kernels():
    """OPENBLAS_CORETYPE as tide::runner::chooseOpenBlasKernels sets it for
    Tide's modules, before any OpenBLAS is loaded (NumPy's included): Debian's
    OpenBLAS 0.3.21 takes its generic kernels on CPUs newer than itself."""
    if os.environ.get("OPENBLAS_CORETYPE") or not os.path.exists("/proc/cpuinfo"):
        return
    flags = set()
    for line in open("/proc/cpuinfo"):
        if line.startswith("flags"):
            flags = set(line.split(":", 1)[1].split())
            break
    if {"avx512f", "avx512bw", "avx512dq", "avx512vl"} <= flags:
        os.environ["OPENBLAS_CORETYPE"] = "SkylakeX"
    elif {"avx2", "fma"} <= flags:
        os.environ["OPENBLAS_CORETYPE"] = "Haswell"


def median_rate(work, seconds):
    return work / statistics.median(seconds)


def best_rate(work, seconds):
    """The best of the runs: tide-calibrate reports the CPU's figures so (the
    CPU is often shared), the GPU's as medians."""
    return work / min(seconds)


def timed(fn, reps, sync=lambda: None):
    fn()
    sync()
    out = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        sync()
        out.append(time.perf_counter() - t)
    return out


class Table:
    def __init__(self, tolerance):
        self.tolerance = tolerance
        self.rows = []
        self.failed = 0

    def add(self, what, tide, other, unit, checked=True, how=""):
        if not tide or not other:
            self.rows.append((what, tide, other, unit, None, "n/a", how))
            return
        ratio = tide / other
        if checked:
            ok = abs(ratio - 1) <= self.tolerance
            self.failed += not ok
            verdict = "ok" if ok else "OFF"
        else:
            verdict = "info"
        self.rows.append((what, tide, other, unit, ratio, verdict, how))

    @staticmethod
    def best_of(tables):
        """One table from rounds of the same checks: each side of a row the
        best of its rounds (rates the highest, times in us the lowest), the
        verdict computed again."""
        if len(tables) == 1:
            return tables[0]
        out = Table(tables[0].tolerance)
        for i, (what, _, _, unit, ratio, verdict, how) in enumerate(tables[0].rows):
            same = [t.rows[i] for t in tables if i < len(t.rows) and t.rows[i][0] == what]
            pick = min if unit == "us" else max
            tide = pick((r[1] for r in same if r[1]), default=0)
            other = pick((r[2] for r in same if r[2]), default=0)
            how = "%s; the best of %d rounds" % (how, len(same)) if how else how
            out.add(what, tide, other, unit, checked=verdict != "info", how=how)
        return out

    def print(self):
        print("\n%-34s %14s %14s %8s %6s  %s" % ("quantity", "tide-calibrate", "independent", "ratio",
                                              "", "independent measurement"))
        for what, tide, other, unit, ratio, verdict, how in self.rows:
            fmt = lambda v: "%.4g %s" % (v, unit) if v else "-"
            print("%-34s %14s %14s %8s %6s  %s" % (what, fmt(tide), fmt(other),
                                                 "%.3f" % ratio if ratio else "-", verdict, how))
        print("\n%d checked figure(s) outside +-%.0f%%" % (self.failed, self.tolerance * 100))


def gpu_checks(table, gpu, link, runtime_path, gemm_size):
    import torch

    if not torch.cuda.is_available():
        print("PyTorch sees no GPU: GPU figures not checked")
        return
    dev = torch.device("cuda:0")
    torch.backends.cuda.matmul.allow_tf32 = False
    print("GPU:", torch.cuda.get_device_name(0), flush=True)
    sync = torch.cuda.synchronize

    def events(fn, reps):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(reps):
            fn()
        stop.record()
        stop.synchronize()
        return start.elapsed_time(stop) * 1e-3

    peak = gpu.get("peak_gflops", {})
    for name, dtype in (("f16", torch.float16), ("bf16", torch.bfloat16), ("f32", torch.float32),
                        ("f64", torch.float64)):
        n = gemm_size
        a = (torch.rand(n, n, device=dev, dtype=torch.float32) + 0.5).to(dtype)
        b = (torch.rand(n, n, device=dev, dtype=torch.float32) + 0.5).to(dtype)
        c = torch.empty(n, n, device=dev, dtype=dtype)
        mm = lambda: torch.mm(a, b, out=c)
        mm()
        one = events(mm, 1)
        reps = max(2, min(50, int(0.2 / one) + 1))
        rates = [2.0 * n ** 3 * reps / events(mm, reps) for _ in range(3)]
        table.add("cuda:0 GEMM %s %d^3" % (name, n), peak.get(name, 0) * 1e9 / 1e12,
                  statistics.median(rates) / 1e12, "TFLOP/s", how="torch.mm, events")
        del a, b, c
    torch.cuda.empty_cache()

    nbytes = 1 << 30
    src = torch.ones(nbytes // 4, device=dev)
    dst = torch.empty_like(src)
    copy = lambda: dst.copy_(src)
    copy()
    rates = [2.0 * nbytes * 10 / events(copy, 10) for _ in range(3)]
    table.add("cuda:0 device copy (read+write)", gpu.get("bandwidth_gbps", 0),
              statistics.median(rates) / 1e9, "GB/s", how="Tensor.copy_ of 1 GiB")
    del src, dst
    torch.cuda.empty_cache()

    size = 64 << 20
    d = torch.empty(size, dtype=torch.uint8, device=dev)
    pinned = torch.ones(size, dtype=torch.uint8).pin_memory()
    pageable = torch.ones(size, dtype=torch.uint8)
    h2d = median_rate(size, timed(lambda: d.copy_(pinned), 7, sync))
    d2h = median_rate(size, timed(lambda: pinned.copy_(d), 7, sync))
    table.add("host->device pinned, 64 MiB", link.get("h2d_pinned_gbps", 0), h2d / 1e9, "GB/s",
              how="Tensor.copy_ from a pinned tensor")
    table.add("device->host pinned, 64 MiB", link.get("d2h_pinned_gbps", 0), d2h / 1e9, "GB/s",
              how="Tensor.copy_ into a pinned tensor")

    if runtime_path and os.path.exists(runtime_path):
        rt = ctypes.CDLL(runtime_path)
        rt.mgpuMemcpy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
        host = torch.ones(size, dtype=torch.uint8)  # plain (pageable) host memory
        hp, dp = host.data_ptr(), d.data_ptr()
        h2d = median_rate(size, timed(lambda: rt.mgpuMemcpy(dp, hp, size, None), 7, sync))
        d2h = median_rate(size, timed(lambda: rt.mgpuMemcpy(hp, dp, size, None), 7, sync))
        table.add("host->device pageable, 64 MiB", link.get("h2d_pageable_gbps", 0), h2d / 1e9, "GB/s",
                  how="Tide's mgpuMemcpy from a CPU tensor (ctypes)")
        table.add("device->host pageable, 64 MiB", link.get("d2h_pageable_gbps", 0), d2h / 1e9, "GB/s",
                  how="Tide's mgpuMemcpy into a CPU tensor (ctypes)")
    else:
        print("no %s: Tide's pageable copies not checked" % runtime_path)
    h2d = median_rate(size, timed(lambda: d.copy_(pageable), 7, sync))
    d2h = median_rate(size, timed(lambda: pageable.copy_(d), 7, sync))
    table.add("  (PyTorch's own pageable h->d)", link.get("h2d_pageable_gbps", 0), h2d / 1e9, "GB/s",
              checked=False, how="Tensor.copy_ from pageable memory (not Tide's path)")
    table.add("  (PyTorch's own pageable d->h)", link.get("d2h_pageable_gbps", 0), d2h / 1e9, "GB/s",
              checked=False, how="Tensor.copy_ into pageable memory (not Tide's path)")

    small = torch.ones(2, dtype=torch.float32).pin_memory()
    ds = torch.empty(2, device=dev)
    lat = statistics.median(timed(lambda: ds.copy_(small), 100, sync) +
                            timed(lambda: small.copy_(ds), 100, sync))
    table.add("copy latency (8 bytes, pinned)", link.get("latency_us", 0), lat * 1e6, "us",
              checked=False, how="Tensor.copy_ + synchronize")
    x = torch.ones(1, device=dev)
    n = 2000
    x.add_(1)
    sync()
    t = time.perf_counter()
    for _ in range(n):
        x.add_(1)
    sync()
    table.add("cuda:0 launch (queued)", gpu.get("launch_us", 0), (time.perf_counter() - t) / n * 1e6,
              "us", checked=False, how="x.add_(1) on one element, back to back (eager overhead)")


def library_gemm(name, threads):
    """C = A B through the library Tide's modules call for `name` (f32:
    oneDNN's dnnl_sgemm, f64: OpenBLAS's cblas_dgemm, with the kernels
    tide::runner::chooseOpenBlasKernels picks), loaded as the loader finds
    them (LD_LIBRARY_PATH); None when it is not there."""
    import numpy as np
    f = ctypes.c_float if name == "f32" else ctypes.c_double
    p = ctypes.c_void_p
    if name == "f32":
        try:
            lib = ctypes.CDLL("libdnnl.so.2")
        except OSError:
            return None
        fn = lib.dnnl_sgemm
        fn.argtypes = [ctypes.c_char, ctypes.c_char, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64,
                       f, p, ctypes.c_int64, p, ctypes.c_int64, f, p, ctypes.c_int64]

        def call(a, b, c):
            n = a.shape[0]
            fn(b"N", b"N", n, n, n, 1.0, a.ctypes.data, n, b.ctypes.data, n, 0.0, c.ctypes.data, n)
        call.how = "oneDNN's dnnl_sgemm through ctypes (the library of Tide's f32 products)"
        return call
    try:
        lib = ctypes.CDLL("libopenblas.so.0")
    except OSError:
        return None
    fn = lib.cblas_dgemm
    fn.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                   f, p, ctypes.c_int, p, ctypes.c_int, f, p, ctypes.c_int]

    def call(a, b, c):
        n = a.shape[0]
        fn(101, 111, 111, n, n, n, 1.0, a.ctypes.data, n, b.ctypes.data, n, 0.0, c.ctypes.data, n)
    call.how = "OpenBLAS's cblas_dgemm through ctypes (the library of Tide's f64 products)"
    return call


def cpu_checks(table, cpu, tide_bin=None, kernels=None):
    """The CPU's figures. GEMMs: checked against the library Tide's modules
    call (its rate is the quantity: NumPy's and PyTorch's BLAS are other
    libraries, printed as info). One-thread bandwidth: the best of numpy.add
    and torch.add (a property of the machine; NumPy's loop was the slower by
    a third on the H200's host). Convolution: Tide's own module timed by
    tide-run, as bench/ times modules (PyTorch's conv2d as info)."""
    try:
        import numpy as np
    except ImportError:
        print("no NumPy: CPU figures not checked")
        return
    try:
        import torch
    except ImportError:
        torch = None
    peak = cpu.get("peak_gflops", {})
    threads = int(cpu.get("cores", 1))

    def best_of(what, tide, unit, measured):
        for rate, how in measured:
            table.add("  %s" % what, tide, rate, unit, checked=False, how=how)
        if measured:
            rate, how = max(measured)
            table.add(what, tide, rate, unit, how="the best of the above (%s)" % how.split(" ")[0])

    n = gemm_n = 2048
    module = os.path.join(kernels, "gemm.so") if kernels else None
    have_module = bool(tide_bin and module and os.path.exists(module))
    inputs = tempfile.TemporaryDirectory(prefix="tide-gemm-")

    def tide_gemm_rate(name):
        """Tide's own product (the calibration's gemm_f32/gemm_f64 module),
        timed by tide-run as bench/ times modules: the figure checked."""
        pa, pb = (os.path.join(inputs.name, "%s_%s.npy" % (x, name)) for x in "ab")
        out = subprocess.run([os.path.join(tide_bin, "tide-run"), module,
                              "--entry=gemm_" + name, "--input=" + pa, "--input=" + pb,
                              "--repeat=30"], capture_output=True, text=True)
        m = re.search(r"min ([0-9.]+) us", out.stdout)
        if not m:
            print("tide-run of %s failed: %s" % (module, (out.stdout + out.stderr).strip()[-300:]))
            return None
        return 2.0 * gemm_n ** 3 / (float(m.group(1)) * 1e-6)

    def all_thread_bandwidth():
        """torch.add on every thread over 3 x 128 MiB of f64, bytes/s."""
        torch.set_num_threads(threads)
        n = 1 << 24
        ta, tb, tc = torch.zeros(n, dtype=torch.float64), torch.ones(n, dtype=torch.float64), \
            torch.ones(n, dtype=torch.float64)
        return best_rate(3.0 * 8 * n, timed(lambda: torch.add(tb, tc, out=ta), 40))

    # tide-run of each product and the all-thread bandwidth twice, at the
    # start and at the end of these CPU checks, the best kept: as
    # tide-calibrate measures them in two passes some seconds apart.
    first_bandwidth = all_thread_bandwidth() if torch is not None else None
    first_pass = {}
    for name, dtype in (("f32", np.float32), ("f64", np.float64)):
        a = np.random.rand(n, n).astype(dtype) + 0.5
        b = np.random.rand(n, n).astype(dtype) + 0.5
        c = np.zeros((n, n), dtype)
        tide_rate = None
        if have_module:
            np.save(os.path.join(inputs.name, "a_%s.npy" % name), a)
            np.save(os.path.join(inputs.name, "b_%s.npy" % name), b)
            tide_rate = first_pass[name] = tide_gemm_rate(name)
        direct = library_gemm(name, threads)
        if direct:
            rate = best_rate(2.0 * n ** 3, timed(lambda: direct(a, b, c), 5))
            table.add(("  cpu GEMM %s %d^3 (library)" if tide_rate else "cpu GEMM %s %d^3")
                      % (name, n), peak.get(name, 0), rate / 1e9, "GFLOP/s",
                      checked=not tide_rate, how=direct.how)
        rate = best_rate(2.0 * n ** 3, timed(lambda: a @ b, 5))
        table.add("  cpu GEMM %s %d^3 (NumPy)" % (name, n), peak.get(name, 0), rate / 1e9, "GFLOP/s",
                  checked=not direct, how="numpy.matmul (the BLAS NumPy was built with)")
        if torch is not None:
            torch.set_num_threads(threads)
            ta, tb = torch.from_numpy(a), torch.from_numpy(b)
            tc = torch.empty_like(ta)
            rate = best_rate(2.0 * n ** 3, timed(lambda: torch.mm(ta, tb, out=tc), 5))
            table.add("  cpu GEMM %s %d^3 (PyTorch)" % (name, n), peak.get(name, 0), rate / 1e9,
                      "GFLOP/s", checked=False, how="torch.mm on %d threads (another BLAS)" % threads)
    n = 1 << 24
    a, b, c = np.zeros(n), np.ones(n), np.ones(n)
    measured = [(best_rate(3.0 * 8 * n, timed(lambda: np.add(b, c, out=a), 20)) / 1e9,
                 "numpy.add over 3 x 128 MiB")]
    if torch is not None:
        torch.set_num_threads(1)
        ta, tb, tc = torch.from_numpy(a), torch.from_numpy(b), torch.from_numpy(c)
        measured.append((best_rate(3.0 * 8 * n, timed(lambda: torch.add(tb, tc, out=ta), 20)) / 1e9,
                         "torch.add on 1 thread over 3 x 128 MiB"))
    best_of("cpu bandwidth, 1 thread", cpu.get("core_bandwidth_gbps", 0), "GB/s", measured)
    if torch is not None:
        torch.set_num_threads(threads)
        conv = cpu.get("conv_gflops", {}).get("f32", 0)
        if conv:
            x = torch.rand(1, 64, 56, 56)
            w = torch.rand(64, 64, 3, 3)
            with torch.no_grad():
                rate = best_rate(2.0 * 64 * 9 * 64 * 56 * 56,
                                 timed(lambda: torch.nn.functional.conv2d(x, w, padding=1), 20))
            table.add("  cpu convolution f32 (PyTorch)", conv, rate / 1e9, "GFLOP/s", checked=False,
                      how="torch conv2d on %d threads (its oneDNN build, weights reordered per call)"
                      % threads)
        rate = max(first_bandwidth, all_thread_bandwidth())
        table.add("cpu bandwidth, %d threads" % threads, cpu.get("bandwidth_gbps", 0), rate / 1e9,
                  "GB/s", how="torch.add on %d threads over 3 x 128 MiB, at the start and "
                  "here, the best" % threads)
    conv = cpu.get("conv_gflops", {}).get("f32", 0)
    module = os.path.join(kernels, "gemm.so") if kernels else None
    if conv and tide_bin and module and os.path.exists(module):
        out = subprocess.run([os.path.join(tide_bin, "tide-run"), module, "--entry=conv_f32",
                              "--random=1", "--repeat=100"], capture_output=True, text=True)
        m = re.search(r"min ([0-9.]+) us", out.stdout)
        if m:
            table.add("cpu convolution f32 3x3 64ch 56x56", conv,
                      2.0 * 64 * 9 * 64 * 56 * 56 / (float(m.group(1)) * 1e-6) / 1e9, "GFLOP/s",
                      how="tide-run --repeat=100 of the calibration's conv_f32 (min), as bench/ "
                      "times modules")
        else:
            print("tide-run of %s failed: %s" % (module, (out.stdout + out.stderr).strip()[-300:]))
    for name in first_pass:
        rates = [r for r in (first_pass[name], tide_gemm_rate(name)) if r]
        if rates:
            table.add("cpu GEMM %s %d^3" % (name, gemm_n), peak.get(name, 0), max(rates) / 1e9,
                      "GFLOP/s", how="tide-run --repeat=30 of the calibration's gemm_%s (min), "
                      "at the start and the end of the CPU checks, the best; as bench/ times "
                      "modules" % name)
    inputs.cleanup()
    x = np.random.rand(8192).astype(np.float32) + 0.5
    rate = best_rate(10.0 * x.size, timed(lambda: np.exp(x), 200))
    table.add("cpu exp f32 (1 thread, NumPy)", cpu.get("elementwise_gflops", {}).get("f32", 0) /
              max(1, int(cpu.get("cores", 1))), rate / 1e9, "GFLOP/s", checked=False,
              how="numpy.exp of 8192 (10 FLOP/element); Tide's per thread")


LOWER_IS_BETTER = ("_us",)


def best_of_targets(targets):
    """One target from several calibrations of the same machine: each rate
    and bandwidth the highest, each latency or overhead the lowest, FLOPs
    per element the mean (each calibration is itself the best of its
    rounds; on a shared host the load changes between runs a minute apart)."""
    if len(targets) == 1:
        return targets[0]

    def merge(key, values):
        if all(isinstance(v, dict) for v in values):
            keys = set().union(*values)
            return {k: merge(k, [v[k] for v in values if k in v]) for k in keys}
        if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
            if key == "flops_per_element" or key in targets[0]["devices"][0].get("flops_per_element", {}):
                return sum(values) / len(values)
            return min(values) if key.endswith(LOWER_IS_BETTER) else max(values)
        return values[0]

    out = dict(targets[0])
    out["devices"] = []
    for d in targets[0]["devices"]:
        same = [dev for t in targets for dev in t["devices"] if dev["id"] == d["id"]]
        out["devices"].append({k: merge(k, [x[k] for x in same if k in x]) for k in d})
    out["links"] = []
    for l in targets[0].get("links", []):
        same = [x for t in targets for x in t.get("links", []) if x["device"] == l["device"]]
        out["links"].append({k: merge(k, [x[k] for x in same if k in x]) for k in l})
    out["description"] = "the best of %d calibrations: " % len(targets) + targets[0].get("description", "")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tide-bin", default="build/bin", help="folder of tide-calibrate")
    ap.add_argument("--target", action="append",
                    help="a target file tide-calibrate wrote (skips the run); several: the best of them")
    ap.add_argument("--calibrations", type=int, default=1,
                    help="run tide-calibrate this many times and check the best of each figure")
    ap.add_argument("--runtime", help="libTideCudaRuntime.so (default: TIDE_BIN/../lib)")
    ap.add_argument("--tolerance", type=float, default=0.15)
    ap.add_argument("--gemm-size", type=int, default=8192, help="as tide-calibrate's (8192)")
    ap.add_argument("--no-gpu", action="store_true", help="check the CPU figures only")
    args = ap.parse_args()
    choose_openblas_kernels()

    runtime = args.runtime or os.path.join(args.tide_bin, "..", "lib", "libTideCudaRuntime.so")
    targets = []
    for path in args.target or []:
        with open(path) as f:
            targets.append(json.load(f))
    if targets:
        table = Table(args.tolerance)
        check(table, best_of_targets(targets), args, runtime)
    else:
        # Rounds alternate: a calibration, then the independent measurements.
        # On a shared host whose load changes within a minute, each side's
        # best then comes from the same stretch of time (METHOD: alternate
        # A and B, keep the best of each).
        tables = []
        with tempfile.TemporaryDirectory(prefix="tide-calibrate-") as tmp:
            for i in range(max(1, args.calibrations)):
                path = os.path.join(tmp, "target%d.json" % i)
                run_calibrate(args.tide_bin, path)
                with open(path) as f:
                    target = json.load(f)
                print("round %d of %d" % (i + 1, max(1, args.calibrations)), flush=True)
                tables.append(Table(args.tolerance))
                check(tables[-1], target, args, runtime)
        table = Table.best_of(tables)
    table.print()
    return 1 if table.failed else 0


def check(table, target, args, runtime):
    print("target %s: %s" % (target["name"], target.get("description", "")))
    devices = {d["id"]: d for d in target["devices"]}
    links = {l["device"]: l for l in target.get("links", [])}
    try:
        import torch  # noqa: F401
    except ImportError:
        torch = None
    if "cuda:0" in devices and not args.no_gpu and torch is None:
        print("no PyTorch: GPU figures not checked")
    elif "cuda:0" in devices and not args.no_gpu:
        gpu_checks(table, devices["cuda:0"], links.get("cuda:0", {}), runtime, args.gemm_size)
    elif not args.no_gpu:
        print("the target has no GPU: GPU figures not checked")
    kernels = os.environ.get("TIDE_CALIBRATE_KERNELS") or os.path.join(
        args.tide_bin, "..", "lib", "tide-calibrate")
    cpu_checks(table, devices["cpu"], args.tide_bin, kernels)


if __name__ == "__main__":
    sys.exit(main())
