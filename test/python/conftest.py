"""Shared fixtures of the Python package's tests (run by package.test)."""

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
