#!/usr/bin/env python3
"""A GPU out-of-memory is an error, not the end of the process (on a GPU).

TIDE_GPU_MEMORY_LIMIT caps the device memory Tide's allocator holds, so the
path is tested without filling the GPU. With a module compiled for the GPU
from Inputs/oom.mlir (exp over a dynamic f32 vector, placed on the GPU):

- tide-run on an input larger than the limit exits non-zero with
  "out of GPU memory: needed N bytes on cuda:0, ...", and a smaller input
  runs;
- the runner C API (libTideRunnerCAPI.so, through ctypes, in this process)
  returns 0 with that message, and later calls with smaller inputs return
  the right values, again and again (the process stays usable and the
  abandoned calls' device memory is given back).

Needs Python 3 and NumPy only (the GPU machine has no LLVM):

  python3 test/GPU/out-of-memory.py --tide-bin build/bin --lib build/lib \
      --module build/gpu-oom/oom.so

Prints "N passed, M failed"; exits 1 if any check failed.
"""

import argparse
import ctypes
import os
import subprocess
import sys
import tempfile

import numpy as np

LIMIT = 8 << 20  # bytes
BIG = 4 << 20  # f32 elements: 16 MiB, twice the limit
SMALL = 1000
MEDIUM = 512 << 10  # 2 MiB in, 2 MiB out: within the limit

passed = failed = 0


def expect(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL: " + what, flush=True)


class TideTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_char_p),
                ("rank", ctypes.c_int32),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("deviceKind", ctypes.c_int32), ("deviceId", ctypes.c_int32)]


class TideResult(ctypes.Structure):
    _fields_ = [("allocated", ctypes.c_void_p), ("data", ctypes.c_void_p),
                ("dtype", ctypes.c_char_p), ("rank", ctypes.c_int32),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("deviceKind", ctypes.c_int32), ("deviceId", ctypes.c_int32)]


CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_size_t, ctypes.POINTER(TideResult),
                            ctypes.c_void_p)


def tide_run(tide_bin, module, x, tmp):
    xpath = os.path.join(tmp, "x.npy")
    ypath = os.path.join(tmp, "y.npy")
    np.save(xpath, x)
    if os.path.exists(ypath):
        os.remove(ypath)
    env = dict(os.environ, TIDE_GPU_MEMORY_LIMIT=str(LIMIT))
    p = subprocess.run([os.path.join(tide_bin, "tide-run"), module,
                        "--input=" + xpath, "--output=" + ypath],
                       env=env, capture_output=True, text=True)
    y = np.load(ypath) if p.returncode == 0 and os.path.exists(ypath) else None
    return p.returncode, p.stderr, y


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tide-bin", required=True)
    ap.add_argument("--lib", required=True)
    ap.add_argument("--module", required=True)
    a = ap.parse_args()
    rng = np.random.default_rng(0)
    want = "out of GPU memory: needed %d bytes on cuda:0" % (BIG * 4)

    with tempfile.TemporaryDirectory() as tmp:
        rc, err, _ = tide_run(a.tide_bin, a.module,
                              rng.standard_normal(BIG, dtype=np.float32), tmp)
        print("tide-run, %d elements: exit %d: %s" % (BIG, rc, err.strip()))
        expect(rc != 0 and "tide-run: error: @exp: " + want in err
               and "(TIDE_GPU_MEMORY_LIMIT)" in err,
               "tide-run exits non-zero with the message")
        x = rng.standard_normal(SMALL, dtype=np.float32)
        rc, err, y = tide_run(a.tide_bin, a.module, x, tmp)
        expect(rc == 0 and y is not None and
               np.allclose(y, np.exp(x), rtol=1e-5),
               "tide-run on a small input runs: exit %d %s" % (rc, err))

    # The C API in this process: the limit is read at the first allocation.
    os.environ["TIDE_GPU_MEMORY_LIMIT"] = str(LIMIT)
    capi = ctypes.CDLL(os.path.join(a.lib, "libTideRunnerCAPI.so"))
    capi.tideRunnerLoad.restype = ctypes.c_void_p
    capi.tideRunnerLoad.argtypes = [ctypes.c_char_p,
                                    ctypes.POINTER(ctypes.c_char_p)]
    capi.tideRunnerCall.restype = ctypes.c_int
    capi.tideRunnerCall.argtypes = [
        ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(TideTensor),
        ctypes.c_size_t, CALLBACK, ctypes.c_void_p,
        ctypes.POINTER(ctypes.c_void_p)]
    capi.tideRunnerFreeBuffer.argtypes = [ctypes.c_void_p, ctypes.c_void_p,
                                          ctypes.c_int32]
    capi.tideFreeString.argtypes = [ctypes.c_void_p]
    error = ctypes.c_char_p()
    module = capi.tideRunnerLoad(a.module.encode(), ctypes.byref(error))
    if not module:
        print("cannot load %s: %s" % (a.module, error.value))
        return 1

    def call(x):
        shape = (ctypes.c_int64 * 1)(x.size)
        t = TideTensor(x.ctypes.data, b"f32", 1, shape, 1, 0)  # on the CPU
        out = []

        def on_result(index, result, _):
            r = result.contents
            n = r.shape[0]
            buf = (ctypes.c_float * n).from_address(r.data)
            out.append(np.array(buf, dtype=np.float32))
            capi.tideRunnerFreeBuffer(module, r.allocated, r.deviceKind)

        err = ctypes.c_void_p()
        ok = capi.tideRunnerCall(module, 0, ctypes.byref(t), 1,
                                 CALLBACK(on_result), None, ctypes.byref(err))
        message = ""
        if err.value:
            message = ctypes.string_at(err.value).decode()
            capi.tideFreeString(err)
        return ok, message, (out[0] if out else None)

    for round in range(3):
        big = rng.standard_normal(BIG, dtype=np.float32)
        ok, message, _ = call(big)
        print("C API, %d elements: %d: %s" % (BIG, ok, message))
        expect(ok == 0 and message.startswith("@exp: " + want),
               "the C API returns 0 with the message (round %d)" % round)
        for n in (SMALL, MEDIUM):
            x = rng.standard_normal(n, dtype=np.float32)
            ok, message, y = call(x)
            expect(ok == 1 and y is not None and
                   np.allclose(y, np.exp(x), rtol=1e-5),
                   "a later call of %d elements works (round %d): %d %s" %
                   (n, round, ok, message))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
