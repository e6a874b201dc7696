"""Shared fixtures of the Python package's tests (run by package.test)."""

import ctypes
import os

import pytest

SRC = os.environ.get("TIDE_SRC", os.path.join(os.path.dirname(__file__), "..", ".."))


@pytest.fixture
def examples():
    return os.path.join(SRC, "examples")


def has_cuda_toolkit():
    root = os.environ.get("TIDE_CUDA_ROOT", "/usr/local/cuda")
    return (os.path.exists(os.path.join(root, "bin", "ptxas")) and
            os.path.exists(os.path.join(root, "nvvm", "libdevice", "libdevice.10.bc")))


def has_gpu():
    import tide
    return any(d["kind"] == "cuda" for d in tide.devices())


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]

class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]

class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]

class _DLManagedTensor(ctypes.Structure):
    pass

_Deleter = ctypes.CFUNCTYPE(None, ctypes.POINTER(_DLManagedTensor))
_DLManagedTensor._fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p),
                             ("deleter", _Deleter)]


class StridedF32:
    """A host f32 tensor exported through DLPack with the strides given (in
    elements), as PyTorch exports views: NumPy normalizes the strides of
    some arrays (empty ones) before any consumer sees them."""

    _keep = _Deleter(lambda p: None)

    def __init__(self, base, shape, strides):
        self.base = base
        self.shape = (ctypes.c_int64 * len(shape))(*shape)
        self.strides = (ctypes.c_int64 * len(strides))(*strides)
        self.managed = _DLManagedTensor()
        t = self.managed.dl_tensor
        t.data = base.ctypes.data
        t.device = _DLDevice(1, 0)
        t.ndim = len(shape)
        t.dtype = _DLDataType(2, 32, 1)
        t.shape = self.shape
        t.strides = self.strides
        self.managed.deleter = self._keep

    def __dlpack__(self, *args, **kwargs):
        new = ctypes.pythonapi.PyCapsule_New
        new.restype = ctypes.py_object
        new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        return new(ctypes.addressof(self.managed), b"dltensor", None)

    def __dlpack_device__(self):
        return (1, 0)


# DLPack's C exchange API (dlpack.h 1.2+), as PyTorch publishes it: a capsule
# "dlpack_exchange_api" on the tensor *type* as __dlpack_c_exchange_api__.
class _DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]

class _DLManagedTensorVersioned(ctypes.Structure):
    pass

_VersionedDeleter = ctypes.CFUNCTYPE(None, ctypes.POINTER(_DLManagedTensorVersioned))
_DLManagedTensorVersioned._fields_ = [
    ("version", _DLPackVersion), ("manager_ctx", ctypes.c_void_p),
    ("deleter", _VersionedDeleter), ("flags", ctypes.c_uint64), ("dl_tensor", _DLTensor)]

class _ExchangeHeader(ctypes.Structure):
    pass

_ExchangeHeader._fields_ = [("version", _DLPackVersion),
                            ("prev_api", ctypes.POINTER(_ExchangeHeader))]

# int (*)(PyObject *, DLManagedTensorVersioned **): called with the GIL held;
# on failure it sets a Python exception and returns -1.
_FromPyObject = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object,
                                  ctypes.POINTER(ctypes.POINTER(_DLManagedTensorVersioned)))

class _ExchangeApi(ctypes.Structure):
    _fields_ = [("header", _ExchangeHeader), ("managed_tensor_allocator", ctypes.c_void_p),
                ("managed_tensor_from_py_object_no_sync", _FromPyObject),
                ("managed_tensor_to_py_object_no_sync", ctypes.c_void_p),
                ("dltensor_from_py_object_no_sync", ctypes.c_void_p),
                ("current_work_stream", ctypes.c_void_p)]


def _dtype_of(array):
    import numpy as np
    code = {"f": 2, "i": 0, "u": 1, "b": 6}[array.dtype.kind]
    return _DLDataType(code, array.dtype.itemsize * 8, 1)


class ExchangeTensor:
    """A host tensor exported only through DLPack's C exchange API (no
    __dlpack__ method): counts its exports and their releases. Set `fail` to
    make the export raise."""

    exported = 0
    released = 0
    fail = False
    _live = {}

    def __init__(self, array, strides=None, base=None):
        self.array = array
        self.strides = strides
        # Export as base's data pointer plus a byte offset (as PyTorch
        # exports a view with a storage offset).
        self.base = base

    @staticmethod
    def _release(p):
        ExchangeTensor.released += 1
        ExchangeTensor._live.pop(ctypes.addressof(p.contents), None)

    @staticmethod
    def _export(obj, out):
        if ExchangeTensor.fail:
            # (A ctypes callback cannot leave a Python exception set.)
            return -1
        a = obj.array
        m = _DLManagedTensorVersioned()
        m.version = _DLPackVersion(1, 2)
        m.deleter = _RELEASE
        shape = (ctypes.c_int64 * a.ndim)(*a.shape)
        t = m.dl_tensor
        t.data = a.ctypes.data
        if obj.base is not None:
            t.data = obj.base.ctypes.data
            t.byte_offset = a.ctypes.data - obj.base.ctypes.data
        t.device = _DLDevice(1, 0)
        t.ndim = a.ndim
        t.dtype = _dtype_of(a)
        t.shape = shape
        strides = None
        if obj.strides is not None:
            strides = (ctypes.c_int64 * a.ndim)(*obj.strides)
            t.strides = strides
        ExchangeTensor._live[ctypes.addressof(m)] = (m, shape, strides, a, obj.base)
        out[0] = ctypes.pointer(m)
        ExchangeTensor.exported += 1
        return 0


_RELEASE = _VersionedDeleter(ExchangeTensor._release)
_API = _ExchangeApi()
_API.header.version = _DLPackVersion(1, 2)
_API.managed_tensor_from_py_object_no_sync = _FromPyObject(ExchangeTensor._export)
_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
# The capsule keeps a pointer to its name: the name must outlive it.
_CAPSULE_NAME = ctypes.create_string_buffer(b"dlpack_exchange_api")
ExchangeTensor.__dlpack_c_exchange_api__ = _capsule_new(ctypes.addressof(_API),
                                                        ctypes.addressof(_CAPSULE_NAME), None)
