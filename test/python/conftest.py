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
