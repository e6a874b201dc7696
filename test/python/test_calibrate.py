"""tide.calibrate() and target="native" (tide-calibrate is tested in
test/Tools/tide-calibrate.test; the figures themselves on the GPU machine by
bench/calibrate_check.py)."""

import json

import numpy as np
import pytest

import tide
from conftest import has_gpu

EXP = """
func.func @exp(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = tide.exp %x : tensor<8xf32>
  return %y : tensor<8xf32>
}
"""

no_gpu = pytest.mark.skipif(has_gpu(), reason="needs a machine without a GPU")


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty cache directory for the native target."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_native_target_without_calibration_says_what_to_do(cache):
    with pytest.raises(tide.CompileError, match="target 'native': this machine .* has not been "
                                                "calibrated .*; run tide-calibrate"):
        tide.compile(EXP, target="native")


@no_gpu
def test_quick_calibration_is_a_cpu_target(cache, tmp_path):
    out = tmp_path / "quick.json"
    with pytest.warns(tide.CalibrationWarning, match="no GPU: .*the target describes the CPU only"):
        target = tide.calibrate(str(out), quick=True)
    assert [d["id"] for d in target["devices"]] == ["cpu"]
    cpu = target["devices"][0]
    assert cpu["bandwidth_gbps"] > 0 and cpu["cores"] >= 1
    assert set(cpu["peak_gflops"]) == {"i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64"}
    assert json.loads(out.read_text()) == target
    # --quick saves no native target unless asked.
    assert not cache.exists()
    m = tide.compile(EXP, target=str(out))
    x = np.linspace(0, 1, 8, dtype=np.float32)
    np.testing.assert_allclose(m.exp(x), np.exp(x), rtol=1e-6)


@no_gpu
def test_saved_calibration_is_the_native_target(cache):
    with pytest.warns(tide.CalibrationWarning):
        target = tide.calibrate(quick=True, save_native=True)
    m = tide.compile(EXP, target="native")
    assert m.placement[0]["device"] == "cpu"
    assert target["name"].endswith("-cpu")


@no_gpu
def test_require_gpu_raises_without_one(cache):
    with pytest.raises(tide.Error, match="no GPU: "):
        tide.calibrate(quick=True, require_gpu=True)


def test_bad_output_path(cache, tmp_path):
    with pytest.raises(tide.Error, match="cannot write '.*no/such/x.json': no directory"):
        tide.calibrate(str(tmp_path / "no" / "such" / "x.json"), quick=True)


def test_devices_carry_the_fp64_ratio():
    for gpu in tide.devices()[1:]:
        ratio = gpu["fp64_fp32_ratio"]
        assert ratio is None or 0 < ratio <= 1
