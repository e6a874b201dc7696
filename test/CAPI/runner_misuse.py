"""Misuse of the runner C API (libTideRunnerCAPI.so, through ctypes): each
returns 0 or NULL with a message, never a crash. Prints one line per case."""
import ctypes
import sys

import numpy as np


class TideTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_char_p),
                ("rank", ctypes.c_int32), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("deviceKind", ctypes.c_int32), ("deviceId", ctypes.c_int32)]


class TideTensorSpec(ctypes.Structure):
    _fields_ = [("dtype", ctypes.c_char_p), ("rank", ctypes.c_int32),
                ("dims", ctypes.POINTER(ctypes.c_int64)), ("device", ctypes.c_char_p)]


class TideResult(ctypes.Structure):
    _fields_ = [("allocated", ctypes.c_void_p), ("data", ctypes.c_void_p),
                ("dtype", ctypes.c_char_p), ("rank", ctypes.c_int32),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("deviceKind", ctypes.c_int32), ("deviceId", ctypes.c_int32)]


CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_size_t, ctypes.POINTER(TideResult), ctypes.c_void_p)

lib, module_path = sys.argv[1], sys.argv[2]
capi = ctypes.CDLL(lib)
capi.tideRunnerLoad.restype = ctypes.c_void_p
capi.tideRunnerLoad.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
capi.tideRunnerGetNumFunctions.restype = ctypes.c_size_t
capi.tideRunnerGetNumFunctions.argtypes = [ctypes.c_void_p]
capi.tideRunnerGetFunctionName.restype = ctypes.c_char_p
capi.tideRunnerGetFunctionName.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
capi.tideRunnerGetNumArgs.restype = ctypes.c_size_t
capi.tideRunnerGetNumArgs.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
capi.tideRunnerGetNumResults.restype = ctypes.c_size_t
capi.tideRunnerGetNumResults.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
for name in ("tideRunnerGetArg", "tideRunnerGetResult"):
    getattr(capi, name).restype = TideTensorSpec
    getattr(capi, name).argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_size_t]
capi.tideRunnerCheck.restype = ctypes.c_int
capi.tideRunnerCheck.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(TideTensor),
                                 ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p)]
capi.tideRunnerCall.restype = ctypes.c_int
capi.tideRunnerCall.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(TideTensor),
                                ctypes.c_size_t, CALLBACK, ctypes.c_void_p,
                                ctypes.POINTER(ctypes.c_void_p)]
capi.tideRunnerFreeBuffer.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int32]
capi.tideFreeString.argtypes = [ctypes.c_void_p]


def take(error):
    text = ctypes.cast(error, ctypes.c_char_p).value.decode() if error.value else "(no message)"
    capi.tideFreeString(error)
    return text


error = ctypes.c_void_p()
m = capi.tideRunnerLoad(module_path.encode(), ctypes.byref(error))
assert m, take(error)

# Accessors: a null module or an index out of range.
print("functions of NULL:", capi.tideRunnerGetNumFunctions(None))
print("name of function 7:", capi.tideRunnerGetFunctionName(m, 7))
print("args of function 7:", capi.tideRunnerGetNumArgs(m, 7),
      "results:", capi.tideRunnerGetNumResults(None, 0))
spec = capi.tideRunnerGetArg(m, 0, 5)
print("arg 5 of @neg: dtype", spec.dtype, "rank", spec.rank)
spec = capi.tideRunnerGetResult(m, 0, 0)
print("result 0 of @neg:", spec.dtype.decode(), spec.rank, spec.device.decode())

results = []


@CALLBACK
def collect(i, r, user):
    r = r.contents
    shape = tuple(r.shape[d] for d in range(r.rank))
    n = int(np.prod(shape))
    buf = (ctypes.c_float * n).from_address(r.data) if n else []
    results.append(np.array(buf, np.float32).reshape(shape))
    capi.tideRunnerFreeBuffer(m, r.allocated, r.deviceKind)


def call(tensors, count=None, module=None, check=False):
    arr = (TideTensor * max(len(tensors), 1))(*tensors) if tensors is not None else None
    n = len(tensors) if count is None else count
    error = ctypes.c_void_p()
    if check:
        ok = capi.tideRunnerCheck(module or m, 0, arr, n, ctypes.byref(error))
    else:
        ok = capi.tideRunnerCall(module or m, 0, arr, n, collect, None, ctypes.byref(error))
    return ok, take(error) if not ok else ""


def tensor(data, dims):
    shape = (ctypes.c_int64 * len(dims))(*dims)
    t = TideTensor(data, b"f32", len(dims), shape, 1, 0)
    t._keep = shape
    return t


x = np.arange(6, dtype=np.float32).reshape(2, 3)
ok, _ = call([tensor(x.ctypes.data, (2, 3))])
print("a good call:", ok, results[-1].tolist())
print("null module:",
      (capi.tideRunnerCall(None, 0, None, 0, collect, None, ctypes.byref(error)), take(error)))
print("null module (check):", (capi.tideRunnerCheck(None, 0, None, 0, ctypes.byref(error)), take(error)))
print("null input array:", call(None, count=1))
print("null data:", call([tensor(None, (2, 3))]))
print("null data (check):", call([tensor(None, (2, 3))], check=True))
print("too large:", call([tensor(x.ctypes.data, (2**62, 3))]))
ok, _ = call([tensor(None, (0, 3))])
print("empty, null data:", ok, results[-1].shape)

# The compiler's C API (libTideCompilerCAPI.so beside the runner's): options
# counted but not given.
class TideDiagnostic(ctypes.Structure):
    _fields_ = [("severity", ctypes.c_char_p), ("file", ctypes.c_char_p),
                ("line", ctypes.c_uint), ("column", ctypes.c_uint),
                ("location", ctypes.c_char_p), ("message", ctypes.c_char_p)]


DIAG = ctypes.CFUNCTYPE(None, ctypes.POINTER(TideDiagnostic), ctypes.c_void_p)
compiler = ctypes.CDLL(lib.replace("libTideRunnerCAPI.so", "libTideCompilerCAPI.so"))
compiler.tideCompileToLibrary.restype = ctypes.c_int
messages = []


@DIAG
def diagnose(d, user):
    messages.append("%s: %s" % (d.contents.severity.decode(), d.contents.message.decode()))


source = b"func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> { return %x : tensor<4xf32> }"
ok = compiler.tideCompileToLibrary(source, ctypes.c_size_t(len(source)), 0, b"<source>", None, None,
                                   ctypes.c_size_t(2), b"/tmp/unused.so", diagnose, None, None)
print("options without names:", ok, messages)
