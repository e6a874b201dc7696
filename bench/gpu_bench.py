#!/usr/bin/env python3
"""GPU benchmarks: Tide's compiled modules against PyTorch, in one process.

Runs on the GPU machine with modules compiled on the build machine from
bench/gpu/*.mlir (bench/gpu.sh does both). Tide's functions are called through
their C interface (ctypes); GPU-resident arguments are PyTorch CUDA tensors
(the two share the device's primary context), and GPU-resident results are
freed through Tide's allocator after each call. A Tide call is synchronous (it
waits for its stream before returning), so PyTorch is timed both with a
torch.cuda.synchronize() after every call (the same contract) and without
(asynchronous throughput). Each figure is the median over 5 runs of N calls,
timed with a host clock. Every Tide result is checked against PyTorch.
"""
import ctypes
import statistics
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build/gpu-bench"
# Parts to run (default all): exp bandwidth gemm h2d
PARTS = set(sys.argv[2:]) or {"exp", "bandwidth", "gemm", "h2d"}
libc = ctypes.CDLL(None)
libc.free.argtypes = [ctypes.c_void_p]


def descriptor_type(rank):
    fields = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p),
              ("offset", ctypes.c_int64)]
    if rank:
        fields += [("sizes", ctypes.c_int64 * rank), ("strides", ctypes.c_int64 * rank)]
    return type("MemRef%dD" % rank, (ctypes.Structure,), {"_fields_": fields})


def descriptor(ptr, shape):
    d = descriptor_type(len(shape))()
    d.allocated = d.aligned = ptr
    d.offset = 0
    stride = 1
    for i in reversed(range(len(shape))):
        d.sizes[i] = shape[i]
        d.strides[i] = stride
        stride *= shape[i]
    return d


class Module:
    def __init__(self, name):
        self.lib = ctypes.CDLL("%s/%s.so" % (BUILD, name), mode=ctypes.RTLD_GLOBAL)
        self.lib.mgpuMemFree.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        self.lib.mgpuMemcpy.argtypes = [ctypes.c_void_p, ctypes.c_void_p,
                                        ctypes.c_size_t, ctypes.c_void_p]
        self.lib.mgpuStreamSynchronize.argtypes = [ctypes.c_void_p]
        # Functions on GPU-resident tensors return once their work is queued
        # on this thread's stream; this waits for it.
        self.sync = self.lib.tide_rt_synchronize

    def function(self, name, args, result_shape, result_on_gpu=True):
        """A callable running @name on `args` (torch tensors or numpy arrays,
        passed by pointer) that frees its result; .last holds the result
        descriptor of the last call when keep=True."""
        fn = getattr(self.lib, "_mlir_ciface_" + name)
        descs = [descriptor(a.data_ptr() if isinstance(a, torch.Tensor)
                            else a.ctypes.data, list(a.shape)) for a in args]
        result = descriptor_type(len(result_shape))()
        pointers = [ctypes.byref(result)] + [ctypes.byref(d) for d in descs]
        free = (lambda p: self.lib.mgpuMemFree(p, None)) if result_on_gpu else libc.free

        def call(keep=False):
            fn(*pointers)
            if not keep:
                free(result.allocated)
            return result
        call.free = lambda: free(result.allocated)
        return call

    def to_numpy(self, desc, shape, dtype, on_gpu=True):
        out = np.empty(shape, dtype=dtype)
        src = desc.aligned + desc.offset * out.itemsize
        if on_gpu:
            self.sync()
            self.lib.mgpuMemcpy(out.ctypes.data, src, out.nbytes, None)
            self.lib.mgpuStreamSynchronize(None)
        else:
            ctypes.memmove(out.ctypes.data, src, out.nbytes)
        return out


def timeit(fn, n, sync=True, reps=5, wait=None):
    """Median seconds per call; `wait` (default torch.cuda.synchronize) runs
    after every call when `sync`, else once after the n calls."""
    wait = wait or torch.cuda.synchronize
    for _ in range(3):
        fn()
    wait()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        for _ in range(n):
            fn()
            if sync:
                wait()
        wait()
        times.append((time.perf_counter() - t) / n)
    return statistics.median(times)


def check(name, got, ref, rtol, atol):
    ref = ref.detach().cpu().numpy() if isinstance(ref, torch.Tensor) else ref
    ok = np.allclose(got, ref, rtol=rtol, atol=atol)
    err = float(np.max(np.abs(got.astype(np.float64) - ref.astype(np.float64))))
    print("  check %-28s %s (max abs error %.3g)" % (name, "ok" if ok else "WRONG", err))
    return ok


def us(t):
    return "%8.2f us" % (t * 1e6)


def main():
    torch.manual_seed(0)
    dev = torch.device("cuda")
    print("torch %s, %s" % (torch.__version__, torch.cuda.get_device_name(0)))
    ok = True

    # -- exp over 230400 elements --------------------------------------------
    if "exp" in PARTS:
        m = Module("exp")
        floor = m.function("floor", [torch.ones(1, device=dev)], [1])
        t_floor = timeit(floor, 1000, wait=m.sync)
        t_floor_async = timeit(floor, 1000, sync=False, wait=m.sync)
        print("\nexp over 230400 elements, 1000 calls (per call; 'synced' waits after every call,"
              " 'async' once after all)")
        print("  launch floor (Tide, 1-element kernel, same harness): %s synced, %s async" % (
            us(t_floor), us(t_floor_async)))
        for dt, tdt in (("f32", torch.float32), ("f64", torch.float64)):
            x = torch.randn(230400, device=dev, dtype=tdt)
            f = m.function("exp_" + dt, [x], [230400])
            r = f(keep=True)
            ok &= check("exp " + dt, m.to_numpy(r, (230400,), x.cpu().numpy().dtype),
                        torch.exp(x), 1e-6 if dt == "f32" else 1e-14, 0)
            f.free()
            t_tide = timeit(f, 1000, wait=m.sync)
            t_tide_async = timeit(f, 1000, sync=False, wait=m.sync)
            t_torch_sync = timeit(lambda: torch.exp(x), 1000)
            t_torch_async = timeit(lambda: torch.exp(x), 1000, sync=False)
            print("  %s on the GPU:   Tide %s synced (%.2fx floor), %s async (%.2fx floor)"
                  " | PyTorch eager %s synced, %s async | Tide/PyTorch %.2f (synced), %.2f (async)" % (
                      dt, us(t_tide), t_tide / t_floor, us(t_tide_async), t_tide_async / t_floor_async,
                      us(t_torch_sync), us(t_torch_async),
                      t_tide / t_torch_sync, t_tide_async / t_torch_async))
            g = m.function("exp_%s_to_host" % dt, [x], [230400], result_on_gpu=False)
            r = g(keep=True)
            ok &= check("exp %s to host" % dt,
                        m.to_numpy(r, (230400,), x.cpu().numpy().dtype, on_gpu=False),
                        torch.exp(x), 1e-6 if dt == "f32" else 1e-14, 0)
            g.free()
            t_tide_h = timeit(g, 1000)
            t_torch_h = timeit(lambda: torch.exp(x).cpu(), 1000)
            print("  %s to the host: Tide %s | PyTorch eager exp(x).cpu() %s | Tide/PyTorch %.2f" % (
                dt, us(t_tide_h), us(t_torch_h), t_tide_h / t_torch_h))

    # -- bandwidth-bound kernels over 2^28 f32 --------------------------------
    if "bandwidth" in PARTS:
        n = 1 << 28
        s = Module("stream")
        x = torch.rand(n, device=dev)
        y = torch.empty_like(x)
        t_copy = timeit(lambda: y.copy_(x), 20)
        bw_copy = 2 * 4 * n / t_copy
        print("\n2^28 f32 on the GPU (20 calls each)")
        print("  device-to-device copy (PyTorch): %s, %.0f GB/s" % (us(t_copy), bw_copy / 1e9))
        f = s.function("fused", [x], [n])
        r = f(keep=True)
        ok &= check("exp(x)*0.5+1", s.to_numpy(r, (n,), np.float32)[:1 << 20],
                    (torch.exp(x[:1 << 20]) * 0.5 + 1), 1e-6, 1e-6)
        f.free()
        t = timeit(f, 20, wait=s.sync)
        t_eager = timeit(lambda: torch.exp(x) * 0.5 + 1, 20)
        line = "  exp(x)*a+b: Tide %s, %.0f GB/s = %.0f%% of copy | PyTorch eager %.0f%%" % (
            us(t), 8 * n / t / 1e9, 100 * 8 * n / t / bw_copy, 100 * 8 * n / t_eager / bw_copy)
        try:
            compiled = torch.compile(lambda v: torch.exp(v) * 0.5 + 1)
            compiled(x)
            t_comp = timeit(lambda: compiled(x), 20)
            line += ", torch.compile %.0f%%" % (100 * 8 * n / t_comp / bw_copy)
        except Exception as e:  # no compiler toolchain for Triton, ...
            line += ", torch.compile unavailable (%s)" % type(e).__name__
        print(line)
        f = s.function("mean", [x], [])
        r = f(keep=True)
        ok &= check("reduce_mean", s.to_numpy(r, (), np.float32), torch.mean(x.double()).float(),
                    1e-5, 0)
        f.free()
        t = timeit(f, 20, wait=s.sync)
        t_torch = timeit(lambda: torch.mean(x), 20)
        print("  reduce_mean: Tide %s, %.0f GB/s = %.0f%% of copy | PyTorch %s (%.0f%%)" % (
            us(t), 4 * n / t / 1e9, 100 * 4 * n / t / bw_copy, us(t_torch),
            100 * 4 * n / t_torch / bw_copy))
        xs = torch.randn(8192, 8192, device=dev)
        f = s.function("softmax", [xs], [8192, 8192])
        r = f(keep=True)
        ok &= check("softmax rows", s.to_numpy(r, (8192, 8192), np.float32)[:64],
                    torch.softmax(xs[:64], 1), 1e-5, 1e-8)
        f.free()
        t = timeit(f, 20, wait=s.sync)
        t_torch = timeit(lambda: torch.softmax(xs, 1), 20)
        print("  softmax 8192x8192 rows: Tide %s | PyTorch %s | Tide/PyTorch %.2f" % (
            us(t), us(t_torch), t / t_torch))
        # argmax: the whole 2^28 vector (split over blocks) and per row.
        x[12345678] = 7.0          # a unique maximum (rand is in [0, 1))
        x[200000000] = 7.0         # ... and a later tie: the first one wins
        f = s.function("argmax", [x], [])
        r = f(keep=True)
        got = int(s.to_numpy(r, (), np.int64))
        ok &= check("argmax whole", np.array(got), np.array(12345678), 0, 0)
        f.free()
        t = timeit(f, 20, wait=s.sync)
        t_torch = timeit(lambda: torch.argmax(x), 20)
        print("  argmax 2^28: Tide %s, %.0f GB/s = %.0f%% of copy | PyTorch %s (%.0f%%) |"
              " Tide/PyTorch %.2f" % (us(t), 4 * n / t / 1e9, 100 * 4 * n / t / bw_copy,
                                      us(t_torch), 100 * 4 * n / t_torch / bw_copy, t / t_torch))
        f = s.function("argmax_rows", [xs], [8192])
        r = f(keep=True)
        ok &= check("argmax rows", s.to_numpy(r, (8192,), np.int64), torch.argmax(xs, 1), 0, 0)
        f.free()
        t = timeit(f, 20, wait=s.sync)
        t_torch = timeit(lambda: torch.argmax(xs, 1), 20)
        print("  argmax 8192x8192 rows: Tide %s, %.0f GB/s = %.0f%% of copy | PyTorch %s |"
              " Tide/PyTorch %.2f" % (us(t), 4 * 8192 * 8192 / t / 1e9,
                                      100 * 4 * 8192 * 8192 / t / bw_copy, us(t_torch), t / t_torch))
        del x, y, xs

    # -- GEMM and the MLP -----------------------------------------------------
    if "gemm" in PARTS:
        g = Module("gemm")
        print("\nGEMM 8192^3 (5 calls each) and the MLP forward pass (batch 4096)")
        for dt, tdt in (("f32", torch.float32), ("f64", torch.float64)):
            a = torch.randn(8192, 8192, device=dev, dtype=tdt)
            b = torch.randn(8192, 8192, device=dev, dtype=tdt)
            f = g.function("gemm_" + dt, [a, b], [8192, 8192])
            r = f(keep=True)
            ref = (a[:256].double() @ b.double())
            ok &= check("gemm " + dt, g.to_numpy(r, (8192, 8192), a.cpu().numpy().dtype)[:256],
                        ref, 1e-3 if dt == "f32" else 1e-10, 1e-2 if dt == "f32" else 1e-9)
            f.free()
            t = timeit(f, 5, wait=g.sync)
            t_torch = timeit(lambda: a @ b, 5)
            flops = 2 * 8192 ** 3
            print("  gemm %s: Tide %.1f TFLOP/s | cuBLAS via PyTorch %.1f TFLOP/s | Tide/cuBLAS time %.3f" % (
                dt, flops / t / 1e12, flops / t_torch / 1e12, t / t_torch))
            del a, b
        a = torch.randn(64, 512, 512, device=dev)
        b = torch.randn(64, 512, 512, device=dev)
        f = g.function("bmm_f32", [a, b], [64, 512, 512])
        r = f(keep=True)
        ok &= check("batched matmul f32", g.to_numpy(r, (64, 512, 512), np.float32)[:4],
                    torch.bmm(a[:4].double(), b[:4].double()), 1e-3, 1e-3)
        f.free()
        t = timeit(f, 20, wait=g.sync)
        t_torch = timeit(lambda: torch.bmm(a, b), 20)
        flops = 2 * 64 * 512 ** 3
        print("  batched matmul 64x512^3 f32: Tide %.1f TFLOP/s | torch.bmm %.1f TFLOP/s |"
              " Tide/PyTorch time %.3f" % (flops / t / 1e12, flops / t_torch / 1e12, t / t_torch))
        del a, b
        x = torch.randn(4096, 784, device=dev)
        w1 = torch.randn(784, 1024, device=dev) * 0.03
        b1 = torch.randn(1024, device=dev) * 0.1
        w2 = torch.randn(1024, 1024, device=dev) * 0.03
        b2 = torch.randn(1024, device=dev) * 0.1
        w3 = torch.randn(1024, 10, device=dev) * 0.03
        b3 = torch.randn(10, device=dev) * 0.1
        f = g.function("mlp", [x, w1, b1, w2, b2, w3, b3], [4096, 10])
        torch_mlp = lambda: torch.softmax(F.elu(F.elu(x @ w1 + b1) @ w2 + b2) @ w3 + b3, 1)
        r = f(keep=True)
        ok &= check("mlp", g.to_numpy(r, (4096, 10), np.float32), torch_mlp(), 1e-4, 1e-5)
        f.free()
        t = timeit(f, 50, wait=g.sync)
        t_async = timeit(f, 50, sync=False, wait=g.sync)
        t_torch = timeit(torch_mlp, 50)
        t_torch_async = timeit(torch_mlp, 50, sync=False)
        print("  mlp f32: Tide %s synced, %s async | PyTorch eager %s synced, %s async |"
              " Tide/PyTorch %.2f (synced), %.2f (async)" % (
                  us(t), us(t_async), us(t_torch), us(t_torch_async), t / t_torch,
                  t_async / t_torch_async))

    # -- host-to-device copies -------------------------------------------------
    if "h2d" in PARTS:
        c = Module("copy")
        print("\nhost-to-device (b,3,448,448) f32 (20 calls each)")
        for bsz in (1, 2, 4, 8, 16, 32):
            shape = (bsz, 3, 448, 448)
            nbytes = bsz * 3 * 448 * 448 * 4
            pageable = np.random.default_rng(bsz).standard_normal(shape, dtype=np.float32)
            pinned = torch.from_numpy(pageable).pin_memory()
            devt = torch.empty(shape, device=dev)
            fp = c.function("to_gpu", [pageable], list(shape))
            fq = c.function("to_gpu", [pinned], list(shape))
            r = fp(keep=True)
            same = np.array_equal(c.to_numpy(r, shape, np.float32), pageable)
            fp.free()
            ok &= same
            t_page = timeit(fp, 20, wait=c.sync)
            t_pin = timeit(fq, 20, wait=c.sync)
            t_torch_pin = timeit(lambda: devt.copy_(pinned, non_blocking=True), 20)
            t_torch_page = timeit(lambda: devt.copy_(torch.from_numpy(pageable)), 20)
            print("  b=%2d: Tide pageable %6.1f GB/s, pinned %6.1f GB/s | PyTorch pinned %6.1f GB/s,"
                  " pageable %6.1f GB/s | Tide pageable/pinned-peer %.0f%%, Tide pinned/peer %.0f%%%s" % (
                      bsz, nbytes / t_page / 1e9, nbytes / t_pin / 1e9, nbytes / t_torch_pin / 1e9,
                      nbytes / t_torch_page / 1e9, 100 * t_torch_pin / t_page, 100 * t_torch_pin / t_pin,
                      "" if same else "  WRONG DATA"))
    print("\nall results checked: %s" % ("ok" if ok else "SOME WRONG"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
