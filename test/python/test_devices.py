"""tide.devices() and GPU code on a machine without a GPU."""

import numpy as np
import pytest

import tide
from conftest import has_cuda_toolkit, has_gpu

EXP = """
func.func @exp(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = tide.exp %x : tensor<8xf32>
  return %y : tensor<8xf32>
}
"""

RESIDENT = """
func.func @exp(%x: tensor<16xf32> {tide.resident = #tide.device<cuda:0>})
    -> (tensor<16xf32> {tide.resident = #tide.device<cuda:0>}) {
  %y = tide.exp %x : tensor<16xf32>
  return %y : tensor<16xf32>
}
"""


def test_devices_lists_the_cpu_first():
    devices = tide.devices()
    cpu = devices[0]
    assert cpu["kind"] == "cpu" and cpu["device"] == "cpu"
    assert cpu["name"] and cpu["memory_bytes"] > 0 and cpu["threads"] >= 1
    for gpu in devices[1:]:
        assert gpu["kind"] == "cuda" and gpu["device"] == f"cuda:{gpu['index']}"
        assert len(gpu["compute_capability"]) == 2 and gpu["memory_bytes"] > 0


needs_toolkit_no_gpu = pytest.mark.skipif(
    not has_cuda_toolkit() or has_gpu(), reason="needs the CUDA toolkit and no GPU")


@needs_toolkit_no_gpu
def test_gpu_code_without_a_gpu_is_an_exception():
    m = tide.compile(EXP, target="h200")
    assert m.placement[0]["device"] == "cuda:0"
    with pytest.raises(tide.Error, match=r"@exp runs on a GPU, but no NVIDIA driver \(libcuda.so.1\) "
                                         r"on this machine.*--cpu-fallback"):
        m.exp(np.zeros(8, np.float32))


@needs_toolkit_no_gpu
def test_cpu_fallback_runs_here():
    m = tide.compile(EXP, target="h200", cpu_fallback=True)
    x = np.linspace(0, 1, 8, dtype=np.float32)
    np.testing.assert_allclose(m.exp(x), np.exp(x), rtol=1e-6)


@needs_toolkit_no_gpu
def test_resident_tensors_without_a_gpu():
    m = tide.compile(RESIDENT, target="h200")
    assert str(m.signature["exp"]) == "@exp(f32[16] on cuda:0) -> (f32[16] on cuda:0)"
    with pytest.raises(tide.Error, match="@exp takes or returns tensors on a GPU, but no NVIDIA driver"):
        m.exp(np.zeros(16, np.float32))


@needs_toolkit_no_gpu
def test_gpu_tensor_without_a_gpu():
    # A tensor that says it is on cuda:0 (here a host buffer passed off as
    # one), given to a CPU-fallback module on a machine without a driver: an
    # exception (the copy ended the process before).
    from conftest import StridedF32

    class FakeCuda(StridedF32):
        def __init__(self, base):
            super().__init__(base, base.shape, (1,))
            self.managed.dl_tensor.device.device_type = 2

        def __dlpack_device__(self):
            return (2, 0)

    m = tide.compile(EXP, target="h200", cpu_fallback=True)
    with pytest.raises(tide.Error, match="takes or returns tensors on a GPU, but no NVIDIA driver"):
        m.exp(FakeCuda(np.zeros(8, np.float32)))


@pytest.mark.skipif(not has_gpu(), reason="needs an NVIDIA GPU")
def test_torch_cuda_tensor_in_and_out_without_a_copy():
    torch = pytest.importorskip("torch")
    m = tide.compile(RESIDENT, target="h200")
    x = torch.linspace(0, 1, 16, device="cuda")
    y = m.exp(x)
    t = torch.from_dlpack(y)
    assert t.device == x.device
    torch.testing.assert_close(t, torch.exp(x))
    # The result is the function's own buffer, not a copy of it: handing it
    # back in passes the same pointer.
    z = m.exp(t)
    torch.testing.assert_close(torch.from_dlpack(z), torch.exp(torch.exp(x)))
    # A tensor on another GPU is refused.
    if torch.cuda.device_count() > 1:
        with pytest.raises(tide.InputError, match="is on cuda:1 but the function expects f32\\[16\\] on cuda:0"):
            m.exp(x.to("cuda:1"))
