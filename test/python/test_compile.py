"""tide.compile: sources, options, placement, signatures, diagnostics."""

import os

import numpy as np
import pytest

import tide

EXP = """
func.func @exp(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = tide.exp %x : tensor<8xf32>
  return %y : tensor<8xf32>
}
"""

TWO = """
func.func @axpy(%a: tensor<?x4xf64>, %b: tensor<?x4xf64>) -> (tensor<?x4xf64>, tensor<?x4xf64>) {
  %s = tide.add %a, %b : tensor<?x4xf64>, tensor<?x4xf64>
  %m = tide.mul %a, %b : tensor<?x4xf64>, tensor<?x4xf64>
  return %s, %m : tensor<?x4xf64>, tensor<?x4xf64>
}
func.func @neg(%a: tensor<3xi32>) -> tensor<3xi32> {
  %n = tide.neg %a : tensor<3xi32>
  return %n : tensor<3xi32>
}
"""


def test_mlir_text_runs_on_numpy():
    m = tide.compile(EXP, target="cpu")
    x = np.linspace(-2, 2, 8, dtype=np.float32)
    y = m.exp(x)
    assert isinstance(y, np.ndarray) and y.dtype == np.float32 and y.shape == (8,)
    np.testing.assert_allclose(y, np.exp(x), rtol=1e-6)
    # The same function as an item.
    np.testing.assert_allclose(m["exp"](x), y)


def test_several_functions_results_and_dynamic_dims():
    m = tide.compile(TWO, target="cpu")
    a = np.arange(12, dtype=np.float64).reshape(3, 4)
    b = np.full((3, 4), 2.0)
    s, p = m.axpy(a, b)
    np.testing.assert_array_equal(s, a + b)
    np.testing.assert_array_equal(p, a * b)
    # A dynamic dimension takes any size.
    s, _ = m.axpy(a[:1].copy(), b[:1].copy())
    assert s.shape == (1, 4)
    np.testing.assert_array_equal(m.neg(np.array([1, -2, 3], np.int32)), [-1, 2, -3])


def test_signature():
    m = tide.compile(TWO, target="cpu")
    sig = m.signature["axpy"]
    assert [str(a) for a in sig.args] == ["f64[?x4] on cpu"] * 2
    assert sig.args[0].shape == (None, 4) and sig.args[0].dtype == "f64"
    assert str(m.signature["neg"]) == "@neg(i32[3] on cpu) -> (i32[3] on cpu)"
    assert set(m.functions) == {"axpy", "neg"}
    assert "axpy" in dir(m)


def test_mlir_path_and_output(tmp_path, examples):
    out = tmp_path / "exp.so"
    m = tide.compile(os.path.join(examples, "exp_f64.mlir"), target="cpu", output=out)
    assert m.path == str(out) and out.exists()
    x = np.random.default_rng(0).random(230400)
    np.testing.assert_allclose(m.exp(x), np.exp(x), rtol=1e-12)
    # The kept library loads without the compiler.
    again = tide.load(out)
    np.testing.assert_allclose(again.exp(x), np.exp(x), rtol=1e-12)
    assert again.placement is None


def test_recompiling_to_the_same_path(tmp_path):
    # The C library matches loaded libraries by path: loading the rebuilt file
    # used to return the first module's code and signature (a wrong answer).
    out = tmp_path / "m.so"
    exp = tide.compile("""
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = tide.exp %x : tensor<4xf32>
  return %y : tensor<4xf32>
}""", target="cpu", output=out)
    twice = tide.compile("""
func.func @f(%x: tensor<4xf32>, %z: tensor<4xf32>) -> tensor<4xf32> {
  %y = tide.add %x, %z : tensor<4xf32>, tensor<4xf32>
  return %y : tensor<4xf32>
}""", target="cpu", output=out)
    x = np.ones(4, np.float32)
    np.testing.assert_array_equal(twice.f(x, x), 2 * x)
    assert len(twice.signature["f"].args) == 2
    np.testing.assert_allclose(exp.f(x), np.exp(x), rtol=1e-6)
    np.testing.assert_array_equal(tide.load(out).f(x, x), 2 * x)


def test_placement_report():
    # Theano 0.7 had no GPU kernel for exp on f64 (docs/seeds).
    m = tide.compile(EXP.replace("f32", "f64"), target="theano-0.7")
    p = m.placement
    assert p.target == "theano-0.7" and len(p) == 1
    op = p[0]
    assert op["op"] == "tide.exp" and op["function"] == "exp" and op["dtype"] == "f64"
    assert op["device"] == "cpu" and op["reason"] == "no-kernel(cuda:0, f64)"
    assert op["location"] == "<source>:3"
    assert "placement of @exp on target theano-0.7" in p.text
    assert p.dot.startswith("digraph placement")
    assert p.data["functions"][0]["function"] == "exp"


def test_fallback_remark_is_kept_on_success():
    f64 = EXP.replace("f32", "f64")
    m = tide.compile(f64, target="theano-0.7")
    assert m.placement[0]["device"] == "cpu"
    assert any(d.severity == "remark" and "no cuda:0 kernel for exp on f64" in d.message
               for d in m.diagnostics)


def test_policy_cost_and_target_file(examples):
    target = os.path.join(os.path.dirname(examples), "targets", "cpu.json")
    m = tide.compile(EXP, target=target if os.path.exists(target) else "cpu", policy="cost")
    assert m.placement[0]["device"] == "cpu"


def test_onnx_model_proto_and_path(tmp_path):
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper
    graph = helper.make_graph(
        [helper.make_node("Add", ["a", "b"], ["s"], name="add0"),
         helper.make_node("Relu", ["s"], ["y"], name="relu0")],
        "g",
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, [2, 3]),
         helper.make_tensor_value_info("b", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    a = np.array([[1, -2, 3], [-4, 5, -6]], np.float32)
    b = np.ones((2, 3), np.float32)
    m = tide.compile(model, target="cpu")
    (name,) = m.signature
    np.testing.assert_array_equal(m[name](a, b), np.maximum(a + b, 0))
    # Placement reports name the ONNX node.
    assert any("relu0" in (op["location"] or "") for op in m.placement)
    path = tmp_path / "model.onnx"
    onnx.save(model, str(path))
    m = tide.compile(str(path), target="cpu")
    np.testing.assert_array_equal(m[name](a, b), np.maximum(a + b, 0))


def test_onnx_bind_shape(tmp_path):
    pytest.importorskip("onnx")
    from onnx import TensorProto, helper
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"], name="r")], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    m = tide.compile(model, target="cpu", bind_shape={"batch": 2})
    (sig,) = m.signature.values()
    assert sig.args[0].shape == (2, 4)


def test_bytes_source():
    m = tide.compile(EXP.encode(), target="cpu")
    assert "exp" in m.signature


def test_bf16_and_bool():
    # NumPy has no bfloat16: bf16 travels as its bits in uint16 (as tide-run's .npy).
    m = tide.compile("""
func.func @addbf(%a: tensor<3xbf16>, %b: tensor<3xbf16>) -> tensor<3xbf16> {
  %y = tide.add %a, %b : tensor<3xbf16>, tensor<3xbf16>
  return %y : tensor<3xbf16>
}
func.func @lt(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xi1> {
  %y = tide.cmp lt, %a, %b : tensor<3xf32>, tensor<3xf32>
  return %y : tensor<3xi1>
}
""", target="cpu")
    bits = lambda x: (np.asarray(x, np.float32).view(np.uint32) >> 16).astype(np.uint16)
    r = m.addbf(bits([1, 2, 3]), bits([0.5, 0.25, 4]))
    assert r.dtype == np.uint16
    np.testing.assert_array_equal((r.astype(np.uint32) << 16).view(np.float32), [1.5, 2.25, 7])
    r = m.lt(np.array([1, 5, 3], np.float32), np.array([2, 2, 3], np.float32))
    assert r.dtype == np.bool_ and r.tolist() == [True, False, False]


class DLPackOnly:
    """A tensor seen only through the DLPack protocol (as PyTorch's)."""

    def __init__(self, array):
        self.array = array

    def __dlpack__(self, **kwargs):
        return self.array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


def test_dlpack_tensor_in():
    m = tide.compile(TWO, target="cpu")
    a = np.arange(8, dtype=np.float64).reshape(2, 4)
    s, p = m.axpy(DLPackOnly(a), DLPackOnly(a))
    np.testing.assert_array_equal(s, 2 * a)
    with pytest.raises(tide.InputError, match="input 0 of @neg has dtype i64 but the function expects i32"):
        m.neg(DLPackOnly(np.zeros(3, np.int64)))
    with pytest.raises(tide.InputError, match="is not contiguous"):
        m.neg(DLPackOnly(np.zeros(6, np.int32)[::2]))


def test_results_that_alias_inputs_or_constants_are_copies():
    m = tide.compile("""
func.func @c() -> tensor<3xf32> {
  %y = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func @id(%a: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  return %a, %a : tensor<3xf32>, tensor<3xf32>
}
""", target="cpu")
    c1, c2 = m.c(), m.c()
    c1[0] = 7
    assert c2.tolist() == [1, 2, 3] and m.c().tolist() == [1, 2, 3]
    a = np.ones(3, np.float32)
    x, y = m.id(a)
    x[0] = 5
    assert a.tolist() == [1, 1, 1] and y.tolist() == [1, 1, 1]


def test_dlpack_c_exchange_api_in():
    # Tensors whose type publishes DLPack's C exchange API (PyTorch 2.11 has it)
    # are read through it, without a __dlpack__ call per argument, and each
    # export is released after the call.
    from conftest import ExchangeTensor
    m = tide.compile(TWO, target="cpu")
    a = np.arange(8, dtype=np.float64).reshape(2, 4)
    before = ExchangeTensor.exported
    s, p = m.axpy(ExchangeTensor(a), ExchangeTensor(a, strides=(4, 1)))
    np.testing.assert_array_equal(s, 2 * a)
    np.testing.assert_array_equal(p, a * a)
    assert ExchangeTensor.exported == before + 2
    assert ExchangeTensor.released == ExchangeTensor.exported
    # A view exported as its base's pointer and a byte offset; a 0-d tensor.
    base = np.arange(16, dtype=np.float64)
    view = base[4:12].reshape(2, 4)
    s, _ = m.axpy(ExchangeTensor(view, base=base), ExchangeTensor(view))
    np.testing.assert_array_equal(s, 2 * view)
    scalar = tide.compile("""
func.func @twice(%a: tensor<f32>) -> tensor<f32> {
  %r = tide.add %a, %a : tensor<f32>, tensor<f32>
  return %r : tensor<f32>
}""", target="cpu")
    assert float(scalar.twice(ExchangeTensor(np.array(1.5, np.float32)))) == 3.0
    with pytest.raises(tide.InputError, match="input 0 of @neg has dtype i64 but the function expects i32"):
        m.neg(ExchangeTensor(np.zeros(3, np.int64)))
    with pytest.raises(tide.InputError, match="is not contiguous"):
        m.neg(ExchangeTensor(np.zeros(6, np.int32)[::2], strides=(2,)))
    assert ExchangeTensor.released == ExchangeTensor.exported
    # A producer that fails without an exception: an error, not a crash.
    ExchangeTensor.fail = True
    try:
        with pytest.raises(tide.InputError, match="input 0 of @neg .a conftest.ExchangeTensor. "
                           "could not be exported through its type's DLPack exchange API"):
            m.neg(ExchangeTensor(np.zeros(3, np.int32)))
    finally:
        ExchangeTensor.fail = False
    assert ExchangeTensor.released == ExchangeTensor.exported
