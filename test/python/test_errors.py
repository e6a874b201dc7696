"""Bad input gives a Python exception with a clear message, never a crash."""

import os
import subprocess
import sys

import numpy as np
import pytest

import tide
from conftest import StridedF32, has_cuda_toolkit, has_gpu

EXP = """
func.func @exp(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = tide.exp %x : tensor<8xf32>
  return %y : tensor<8xf32>
}
"""

NEG_DYNAMIC = """
func.func @neg(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %y = tide.neg %x : tensor<?x3xf32>
  return %y : tensor<?x3xf32>
}
"""


@pytest.fixture(scope="module")
def m():
    return tide.compile(EXP, target="cpu")


def test_compile_error_carries_every_diagnostic():
    bad = """func.func @f(%a: tensor<4xf32>, %b: tensor<4xf64>) {
  %0 = tide.add %a, %b : tensor<4xf32>, tensor<4xf64>
  return
}"""
    with pytest.raises(tide.CompileError) as info:
        tide.compile(bad, target="cpu")
    (d,) = [d for d in info.value.diagnostics if d.severity == "error"]
    assert "'tide.add' operands have different element types ('f32' and 'f64')" in d.message
    assert (d.file, d.line, d.column) == ("<source>", 2, 8)
    assert d.location == "<source>:2:8"
    assert str(info.value).startswith("<source>:2:8: error: 'tide.add' operands")


def test_parse_error():
    with pytest.raises(tide.CompileError, match=r"<source>:1:\d+: error: "):
        tide.compile("func.func @f( {", target="cpu")


def test_bad_options():
    with pytest.raises(tide.CompileError,
                       match="invalid 'policy' option 'fast'; expected soft, strict, require-gpu or cost"):
        tide.compile(EXP, target="cpu", policy="fast")
    with pytest.raises(tide.CompileError, match="unknown target|no target|target"):
        tide.compile(EXP, target="no-such-target")
    with pytest.raises(tide.CompileError,
                       match="invalid 'reduce-precision' option 'f8'; expected none, bf16 or f16"):
        tide.compile(EXP, target="cpu", reduce_precision="f8")
    with pytest.raises(tide.CompileError, match="invalid 'opt-level' option '7'"):
        tide.compile(EXP, target="cpu", opt_level=7)
    # Options of the wrong type are refused, not converted: a string "false"
    # used to turn the fallback on, and 2.7 became a size of 2.
    with pytest.raises(TypeError, match="cpu_fallback must be True or False, not 'false'"):
        tide.compile(EXP, target="cpu", cpu_fallback="false")
    with pytest.raises(TypeError, match="remarks must be True or False, not 'no'"):
        tide.compile(EXP, target="cpu", remarks="no")
    with pytest.raises(TypeError, match=r"bind_shape\['x'\] must be an integer, not 2.7"):
        tide.compile(EXP, target="cpu", bind_shape={"x": (1, 2.7)})
    with pytest.raises(TypeError, match="cpu must be a str, not int"):
        tide.compile(EXP, target="cpu", cpu=3)
    with pytest.raises(TypeError, match="opt_level must be an integer, not '3'"):
        tide.compile(EXP, target="cpu", opt_level="3")
    with pytest.raises(ValueError, match="output contains a NUL character"):
        tide.compile(EXP, target="cpu", output="m.so\0x")
    # An unknown CPU used to end the process (an LLVM fatal error).
    with pytest.raises(tide.CompileError, match="invalid 'cpu' option: unknown CPU 'bogus'"):
        tide.compile(EXP, target="cpu", cpu="bogus")
    with pytest.raises(tide.CompileError, match="CPU 'i386' cannot run 64-bit"):
        tide.compile(EXP, target="cpu", cpu="i386")
    with pytest.raises(tide.CompileError, match="bind-shape and bind-input apply to ONNX models only"):
        tide.compile(EXP, target="cpu", bind_shape={"batch": 2})


def test_bad_sources(tmp_path):
    with pytest.raises(FileNotFoundError, match="no file 'missing.mlir'"):
        tide.compile("missing.mlir")
    with pytest.raises(TypeError, match="tide.compile takes MLIR text"):
        tide.compile(42)
    with pytest.raises(tide.CompileError, match="require-gpu|CPU|cpu"):
        tide.compile(EXP, target="cpu", policy="require-gpu")
    # The linker's message is part of the error (it used to go to stderr).
    with pytest.raises(tide.CompileError, match="(?s)linking .* failed:.*cannot open output file"):
        tide.compile(EXP, target="cpu", output=tmp_path / "no" / "dir" / "x.so")


def test_wrong_dtype(m):
    with pytest.raises(tide.InputError) as info:
        m.exp(np.zeros(8, np.float64))
    assert str(info.value) == ("input 0 of @exp has dtype f64 but the function expects "
                               "f32[8] on cpu; convert it (Tide never converts silently)")
    assert isinstance(info.value, ValueError)


def test_wrong_shape_rank_count(m):
    with pytest.raises(tide.InputError, match=r"^input 0 of @exp has shape \[9\] but the function expects f32\[8\] on cpu$"):
        m.exp(np.zeros(9, np.float32))
    with pytest.raises(tide.InputError, match=r"^input 0 of @exp has rank 2 \(shape \[2x4\]\) but the function expects f32\[8\] on cpu$"):
        m.exp(np.zeros((2, 4), np.float32))
    with pytest.raises(tide.InputError, match=r"^@exp takes 1 input\(s\) but 2 were given$"):
        m.exp(np.zeros(8, np.float32), np.zeros(8, np.float32))


def test_non_contiguous(m):
    x = np.zeros(16, np.float32)[::2]
    with pytest.raises(tide.InputError, match=r"input 0 of @exp is not contiguous \(shape \[8\], strides \[2\] in elements\)"):
        m.exp(x)
    # Through DLPack with the strides given: a dense view is taken, a strided
    # one refused; an empty tensor holds nothing, so whatever its strides
    # (PyTorch keeps the parent's in a slice that selects nothing, x[:0:2]) it
    # is dense.
    neg = tide.compile(NEG_DYNAMIC, target="cpu")
    base = np.arange(12, dtype=np.float32)
    np.testing.assert_array_equal(neg.neg(StridedF32(base, (4, 3), (3, 1))), -base.reshape(4, 3))
    with pytest.raises(tide.InputError, match=r"input 0 of @neg is not contiguous \(shape \[2x3\], strides \[6x1\]"):
        neg.neg(StridedF32(base, (2, 3), (6, 1)))
    assert neg.neg(StridedF32(base, (0, 3), (6, 1))).shape == (0, 3)
    # A read-only array is fine (nothing writes to an argument that is not
    # donated).
    y = np.ones(8, np.float32)
    y.flags.writeable = False
    np.testing.assert_allclose(m.exp(y), np.exp(y))


DONATE = """
func.func @scale(%x: tensor<4xf32> {tide.donate}) -> tensor<4xf32> {
  %c = tide.constant dense<2.0> : tensor<4xf32>
  %y = tide.mul %x, %c : tensor<4xf32>
  return %y : tensor<4xf32>
}
"""


def test_donated_argument():
    # The call may write into a donated argument: the signature says so, and
    # a read-only array (here the memory of an immutable bytes object, which
    # the call overwrote before) is refused.
    m = tide.compile(DONATE, target="cpu")
    assert m.signature["scale"].args[0].donated
    assert str(m.signature["scale"].args[0]) == "f32[4] on cpu (donated)"
    b = np.ones(4, np.float32).tobytes()
    with pytest.raises(tide.InputError, match=r"argument 0 is donated .* read-only"):
        m.scale(np.frombuffer(b, np.float32))
    assert np.frombuffer(b, np.float32).tolist() == [1.0] * 4
    np.testing.assert_array_equal(m.scale(np.ones(4, np.float32)), [2.0] * 4)


def test_not_an_array(m):
    with pytest.raises(tide.InputError, match="input 0 of @exp is a list; pass a NumPy array or a tensor with __dlpack__"):
        m.exp([1.0] * 8)
    with pytest.raises(tide.InputError, match="input 0 of @exp has element type complex64, which Tide has no element type for"):
        m.exp(np.zeros(8, np.complex64))


def test_unknown_function(m):
    with pytest.raises(AttributeError, match="no function named 'nope' in the module \\(functions: exp\\)"):
        m.nope
    with pytest.raises(KeyError, match="no function named 'nope'"):
        m["nope"]


def test_closed_module():
    m = tide.compile(EXP, target="cpu")
    f = m.exp
    m.close()
    with pytest.raises(tide.Error, match="the module was closed; load or compile it again"):
        f(np.zeros(8, np.float32))


SLOW = """
func.func @slow(%x: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %a = tide.matmul %x, %x : tensor<1024x1024xf32>, tensor<1024x1024xf32>
  %b = tide.tanh %a : tensor<1024x1024xf32>
  %c = tide.matmul %b, %x : tensor<1024x1024xf32>, tensor<1024x1024xf32>
  %d = tide.tanh %c : tensor<1024x1024xf32>
  %e = tide.matmul %d, %x : tensor<1024x1024xf32>, tensor<1024x1024xf32>
  %f = tide.tanh %e : tensor<1024x1024xf32>
  %g = tide.matmul %f, %x : tensor<1024x1024xf32>, tensor<1024x1024xf32>
  return %g : tensor<1024x1024xf32>
}
"""


def test_close_while_another_thread_calls():
    # The call runs without the GIL; closing the module meanwhile must not
    # unload it under the call (it used to: a segfault), and the result stays
    # usable. Later calls say the module was closed.
    import threading
    import time
    m = tide.compile(SLOW, target="cpu")
    x = (np.random.default_rng(0).random((1024, 1024), np.float32) - 0.5) / 64
    out = {}
    started = threading.Event()

    def work():
        started.set()
        try:
            out["r"] = m.slow(x)
        except tide.Error as e:  # closed before the call began
            out["r"] = e

    busy = False
    for _ in range(5):
        started.clear()
        t = threading.Thread(target=work)
        t.start()
        started.wait()
        time.sleep(0.005)
        busy = t.is_alive()
        m.close()
        t.join()
        if isinstance(out["r"], tide.Error):
            assert "the module was closed" in str(out["r"])
            busy = False
            m = tide.compile(SLOW, target="cpu")
            continue
        ref = x
        for _ in range(3):
            ref = np.tanh(ref @ x)
        np.testing.assert_allclose(out["r"], ref @ x, rtol=1e-3, atol=1e-6)
        with pytest.raises(tide.Error, match="the module was closed"):
            m.slow(x)
        if busy:
            break
        m = tide.compile(SLOW, target="cpu")  # the call ended first: again
    assert busy, "every call ended before the module was closed"


def test_load_errors(tmp_path):
    with pytest.raises(tide.LoadError, match="cannot load"):
        tide.load(tmp_path / "missing.so")
    junk = tmp_path / "junk.so"
    junk.write_bytes(b"\x7fELF" + b"\0" * 10)
    with pytest.raises(tide.LoadError, match="truncated or corrupt|cannot load"):
        tide.load(junk)


def test_module_for_another_cpu():
    # Built for AMD's Bulldozer (XOP, FMA4: no CPU made since 2017 has them),
    # the module is refused when loaded, not run into an illegal instruction.
    with pytest.raises(tide.LoadError, match="compiled for the CPU 'bdver4' and its code may use "
                       r"(sse4a, )?fma4, xop, which this CPU lacks"):
        tide.compile(EXP, target="cpu", cpu="bdver4")
    m = tide.compile(EXP, target="cpu", cpu="x86-64-v3" if "avx2" in _cpu_flags() else "x86-64")
    np.testing.assert_allclose(m.exp(np.zeros(8, np.float32)), np.ones(8, np.float32))


def _cpu_flags():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("flags"):
                return line.split()
    return []


def test_onnx_error_names_the_node():
    pytest.importorskip("onnx")
    from onnx import TensorProto, helper
    graph = helper.make_graph(
        [helper.make_node("NoSuchOp", ["x"], ["y"], name="weird")], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    with pytest.raises(tide.CompileError) as info:
        tide.compile(model, target="cpu")
    (d,) = info.value.diagnostics
    assert (d.severity, d.location, d.file) == ("error", "model.onnx: node 'weird' (NoSuchOp)", "model.onnx")
    assert str(info.value) == "model.onnx: node 'weird' (NoSuchOp): error: ONNX op 'NoSuchOp' is not supported"


@pytest.mark.skipif(not (has_cuda_toolkit() and has_gpu()), reason="needs a GPU")
def test_out_of_gpu_memory_raises_and_later_calls_work():
    # TIDE_GPU_MEMORY_LIMIT is read at the first GPU allocation of a process:
    # a fresh one.
    script = """
import numpy as np, tide
m = tide.compile('''
func.func @exp(%x: tensor<?xf32>) -> tensor<?xf32> {
  %y = tide.exp %x : tensor<?xf32>
  return %y : tensor<?xf32>
}''', target="h200")
for n in (4 << 20, 1000, 4 << 20, 512 << 10):
    x = np.linspace(-2, 2, n, dtype=np.float32)
    try:
        print(n, "ok", np.allclose(m.exp(x), np.exp(x), rtol=1e-5))
    except tide.Error as e:
        print(n, "raised", e)
"""
    env = dict(os.environ, TIDE_GPU_MEMORY_LIMIT=str(8 << 20))
    p = subprocess.run([sys.executable, "-c", script], env=env,
                       capture_output=True, text=True)
    lines = p.stdout.splitlines()
    assert p.returncode == 0, p.stderr
    want = "raised @exp: out of GPU memory: needed 16777216 bytes on cuda:0"
    assert lines[0].startswith("4194304 " + want), lines
    assert lines[1] == "1000 ok True", lines
    assert lines[2].startswith("4194304 " + want), lines
    assert lines[3] == "524288 ok True", lines


def test_out_of_host_memory_raises_and_later_calls_work():
    # An outer product of two 2^20-element vectors needs 4 TiB: malloc fails
    # inside the compiled function. The call raises tide.Error naming the
    # size; the module and the process keep working. (Under ASan, malloc of
    # 4 TiB must return null instead of reporting: allocator_may_return_null.)
    m = tide.compile('''
func.func @outer(%a: tensor<?x1xf32>, %b: tensor<1x?xf32>) -> tensor<?x?xf32> {
  %c = tide.mul %a, %b : tensor<?x1xf32>, tensor<1x?xf32>
  return %c : tensor<?x?xf32>
}''', target="cpu")
    for n, ok in ((1 << 20, False), (3, True), (1 << 20, False), (5, True)):
        a = np.arange(n, dtype=np.float32).reshape(n, 1)
        b = np.ones((1, n), np.float32)
        if ok:
            np.testing.assert_array_equal(m.outer(a, b), a * b)
        else:
            with pytest.raises(tide.Error, match=r"@outer: out of host memory: "
                               r"cannot allocate 4398046511\d+ bytes"):
                m.outer(a, b)


def _resident_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def test_failed_call_frees_its_host_allocations():
    # The call computes a 64 MiB exp first, then fails on the 4 TiB outer
    # product: what it had allocated (the exp's result) is freed when it
    # raises, so repeated failing calls do not grow the process (each leaked
    # 64 MiB before).
    m = tide.compile('''
func.func @both(%x: tensor<?xf32>, %a: tensor<?x1xf32>, %b: tensor<1x?xf32>)
    -> (tensor<?xf32>, tensor<?x?xf32>) {
  %e = tide.exp %x : tensor<?xf32>
  %c = tide.mul %a, %b : tensor<?x1xf32>, tensor<1x?xf32>
  return %e, %c : tensor<?xf32>, tensor<?x?xf32>
}''', target="cpu")
    x = np.zeros(1 << 24, np.float32)
    n = 1 << 20
    a = np.ones((n, 1), np.float32)
    b = np.ones((1, n), np.float32)
    with pytest.raises(tide.Error, match="out of host memory"):
        m.both(x, a, b)
    before = _resident_bytes()
    for _ in range(8):
        with pytest.raises(tide.Error, match="out of host memory"):
            m.both(x, a, b)
    grown = _resident_bytes() - before
    # Under ASan (preloaded in a sanitizer build) freed blocks wait in its
    # quarantine (256 MiB), so the process's size says nothing there.
    if "asan" not in os.environ.get("LD_PRELOAD", ""):
        assert grown < (48 << 20), f"8 failed calls grew the process by {grown} bytes"
    e, c = m.both(x[:4], a[:2], b[:, :3])
    np.testing.assert_array_equal(e, np.ones(4, np.float32))
    np.testing.assert_array_equal(c, np.ones((2, 3), np.float32))


def test_run_time_size_mismatch_raises_and_later_calls_work():
    # Sizes known only at run time that must agree (an elementwise op's
    # operands, a reshape's element count, a product's contracted size) are
    # checked when the function runs: a mismatch raises tide.Error naming the
    # op (it read out of bounds and returned garbage before), and the module
    # keeps working.
    m = tide.compile('''
func.func @f(%a: tensor<?xf32>, %b: tensor<?xf32>, %x: tensor<?x?xf32>,
             %y: tensor<?x3xf32>) -> (tensor<?xf32>, tensor<2x3xf32>, tensor<?x3xf32>) {
  %s = tide.add %a, %b : tensor<?xf32>
  %r = tide.reshape %a : tensor<?xf32> to tensor<2x3xf32>
  %p = tide.matmul %x, %y : tensor<?x?xf32>, tensor<?x3xf32>
  return %s, %r, %p : tensor<?xf32>, tensor<2x3xf32>, tensor<?x3xf32>
}''', target="cpu")
    a = np.arange(6, dtype=np.float32)
    x = np.ones((2, 4), np.float32)
    y = np.ones((4, 3), np.float32)
    cases = [
        ((a, a[:5], x, y), r"'tide.add' at .*: the size of dimension 0 of "
                           r"operand 1 differs from that of operand 0"),
        ((a[:5], a[:5], x, y), r"'tide.reshape' at .*: the result's sizes do "
                               r"not keep the input's element count"),
        ((a, a, x, y[:3]), r"'tide.matmul' at .*: the contracted sizes"),
    ]
    for args, message in cases:
        with pytest.raises(tide.Error, match=r"@f: run-time check failed: " + message):
            m.f(*args)
        s, r, p = m.f(a, a, x, y)
        np.testing.assert_array_equal(s, a + a)
        np.testing.assert_array_equal(r, a.reshape(2, 3))
        np.testing.assert_array_equal(p, x @ y)


def test_nul_in_paths(tmp_path):
    # A path with a NUL character is refused (C would read it up to the NUL:
    # "exp.so\0other" loaded exp.so).
    import pathlib
    with pytest.raises(ValueError, match="NUL"):
        tide.load(str(tmp_path / "exp.so") + "\0/other.so")
    with pytest.raises(ValueError, match="NUL"):
        tide.compile(pathlib.Path(str(tmp_path / "x.mlir") + "\0junk"), target="cpu")
    with pytest.raises(ValueError, match="NUL"):
        tide.calibrate(str(tmp_path / "t") + "\0.json", quick=True)
