#!/usr/bin/env python3
"""A GPU module's constants are copied to the GPU once per load; unloading the
module must give those copies back, or each load and unload of a model leaks
its weights' GPU memory.

  constants-unload.py make OUT.mlir      # a module with a 1 MiB constant
  constants-unload.py run --lib DIR --module M.so [--loads N]

`run` loads the module through the runner C API (libTideRunnerCAPI.so in DIR,
through ctypes, as test/GPU/out-of-memory.py does), calls it, checks the
result, and destroys it, N times, under TIDE_GPU_MEMORY_LIMIT = 16 MiB, and
reads the bytes Tide's GPU allocator holds in use after each unload
(tide_rt_allocator_stats): 0 each time. A call needs 6-7 MiB (input,
constant copy, its per-call copy, output, staging); a leaked copy is 1 MiB
more, and the limit is reached within the twelve loads."""
import argparse
import ctypes
import os
import struct
import sys

N = 1 << 18  # 1 MiB of f32


def constant():
    return [(i % 1000) / 8 for i in range(N)]  # exact in f32


def make(path):  # without NumPy: the build machine's Python may lack it
    data = struct.pack("<%df" % N, *constant()).hex().upper()
    with open(path, "w") as fh:
        fh.write('func.func @addc(%%x: tensor<%dxf32>) -> tensor<%dxf32> {\n' % (N, N))
        fh.write('  %%c = tide.constant dense<"0x%s"> : tensor<%dxf32>\n' % (data, N))
        fh.write('  %%y = tide.add %%x, %%c {tide.device = #tide.device<cuda:0>} : '
                 'tensor<%dxf32>, tensor<%dxf32>\n' % (N, N))
        fh.write('  return %%y : tensor<%dxf32>\n}\n' % N)


class TideTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_char_p),
                ("rank", ctypes.c_int32), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("deviceKind", ctypes.c_int32), ("deviceId", ctypes.c_int32)]


class TideResult(ctypes.Structure):
    _fields_ = [("allocated", ctypes.c_void_p), ("data", ctypes.c_void_p),
                ("dtype", ctypes.c_char_p), ("rank", ctypes.c_int32),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("deviceKind", ctypes.c_int32), ("deviceId", ctypes.c_int32)]


CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_size_t, ctypes.POINTER(TideResult), ctypes.c_void_p)


def run(lib, module_path, loads):
    import numpy as np
    os.environ["TIDE_GPU_MEMORY_LIMIT"] = str(16 << 20)
    capi = ctypes.CDLL(os.path.join(lib, "libTideRunnerCAPI.so"))
    capi.tideRunnerLoad.restype = ctypes.c_void_p
    capi.tideRunnerLoad.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
    capi.tideRunnerDestroy.argtypes = [ctypes.c_void_p]
    capi.tideRunnerCall.restype = ctypes.c_int
    capi.tideRunnerCall.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(TideTensor),
                                    ctypes.c_size_t, CALLBACK, ctypes.c_void_p,
                                    ctypes.POINTER(ctypes.c_void_p)]
    capi.tideRunnerFreeBuffer.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int32]
    capi.tideFreeString.argtypes = [ctypes.c_void_p]
    # The same library the modules load (by its soname).
    rt = ctypes.CDLL(os.path.join(lib, "libTideCudaRuntime.so"))
    rt.tide_rt_allocator_stats.argtypes = [ctypes.POINTER(ctypes.c_uint64)] * 2

    def in_use():
        used, cached = ctypes.c_uint64(), ctypes.c_uint64()
        rt.tide_rt_allocator_stats(ctypes.byref(used), ctypes.byref(cached))
        return used.value
    x = np.ones(N, np.float32)
    want = x + np.array(constant(), np.float32)
    shape = (ctypes.c_int64 * 1)(N)

    def load(what):
        error = ctypes.c_void_p()
        m = capi.tideRunnerLoad(module_path.encode(), ctypes.byref(error))
        if not m:
            print("%s: %s" % (what, ctypes.cast(error, ctypes.c_char_p).value.decode()))
        return m

    def call(m, what):
        got = []

        @CALLBACK
        def collect(index, r, user):
            r = r.contents
            buf = (ctypes.c_float * N).from_address(r.data)
            got.append(np.array(buf, np.float32))
            capi.tideRunnerFreeBuffer(m, r.allocated, r.deviceKind)

        error = ctypes.c_void_p()
        t = TideTensor(x.ctypes.data, b"f32", 1, shape, 1, 0)
        if not capi.tideRunnerCall(m, 0, ctypes.byref(t), 1, collect, None, ctypes.byref(error)):
            print("%s: %s" % (what, ctypes.cast(error, ctypes.c_char_p).value.decode()))
            capi.tideFreeString(error)
            return False
        if not (got and np.array_equal(got[0], want)):
            print("%s: wrong result" % what)
            return False
        return True

    passed = 0
    held = []
    for i in range(loads):
        m = load("load %d" % i)
        if not m:
            break
        ok = call(m, "call after load %d" % i)
        capi.tideRunnerDestroy(m)
        held.append(in_use())
        if not ok:
            break
        passed += held[-1] == 0
    print("in use after each unload: %s" % " ".join(str(h) for h in held))
    print("%d loads: %d passed" % (loads, passed))
    # The same path loaded twice is one library: destroying the first module
    # must leave the second's constant usable.
    first, second = load("first of two loads"), load("second of two loads")
    shared = bool(first and second and call(first, "first module") and call(second, "second module"))
    if first:
        capi.tideRunnerDestroy(first)
    shared = shared and call(second, "second module after the first was destroyed")
    if second:
        capi.tideRunnerDestroy(second)
    print("two loads of one path: %s" % ("passed" if shared else "FAILED"))
    return 0 if passed == loads and shared else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("make")
    m.add_argument("out")
    r = sub.add_parser("run")
    r.add_argument("--lib", required=True)
    r.add_argument("--module", required=True)
    r.add_argument("--loads", type=int, default=12)
    a = ap.parse_args()
    if a.cmd == "make":
        make(a.out)
        return 0
    return run(a.lib, a.module, a.loads)


if __name__ == "__main__":
    sys.exit(main())
