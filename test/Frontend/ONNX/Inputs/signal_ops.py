#!/usr/bin/env python3
"""DFT, STFT and MelWeightMatrix compiled for the CPU, compared with NumPy's
FFT (DFT, STFT) and ONNX Runtime (MelWeightMatrix): real and complex
signals, every axis, zero padding and truncation (dft_length), one-sided
spectra, the inverse (of one-sided spectra too: irfft), opset 17 and 20 (the axis as an input), f64, windows,
frames that run past the signal's end, a symbolic batch.

    signal_ops.py TIDE_BIN OUTDIR    (the ONNX Runtime venv's python)

Prints one line per case and exits 1 if any differs.
"""
import os
import subprocess
import sys

import numpy as np
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper, save

tide_bin, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(0)
TYPES = {np.float32: TensorProto.FLOAT, np.float64: TensorProto.DOUBLE}


def as_pairs(z):
    return np.stack([z.real, z.imag], axis=-1)


def run(name, node, x, consts, opset, want_fn, shape=None, batches=(None,), rtol=1e-4, atol=1e-4,
        zero_at=None):
    elem = TYPES[x.dtype.type]
    graph = helper.make_graph(
        [node], name, [helper.make_tensor_value_info("x", elem, shape or list(x.shape))],
        [helper.make_tensor_value_info("y", elem, None)],
        [numpy_helper.from_array(v, k) for k, v in consts.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    path = os.path.join(out, name + ".onnx")
    save(model, path)
    so = os.path.join(out, name + ".so")
    p = subprocess.run([os.path.join(tide_bin, "tide-compile"), path, "--target=cpu", "-o", so,
                        "--no-remarks"], capture_output=True, text=True)
    if p.returncode:
        return "%s: compile failed: %s" % (name, p.stderr.strip())
    for batch in batches:
        xs = x if batch is None else np.concatenate([x] * batch)
        np.save(os.path.join(out, name + "_x.npy"), xs)
        p = subprocess.run([os.path.join(tide_bin, "tide-run"), so,
                            "--input=" + os.path.join(out, name + "_x.npy"),
                            "--output=" + os.path.join(out, name + "_y.npy")],
                           capture_output=True, text=True)
        if p.returncode:
            return "%s: run failed: %s" % (name, p.stderr.strip())
        got = np.load(os.path.join(out, name + "_y.npy"))
        want = want_fn(xs)
        if got.shape != want.shape:
            return "%s: shape %s, NumPy %s MISMATCH" % (name, got.shape, want.shape)
        if not np.allclose(got, want, rtol=rtol, atol=atol):
            return "%s: MISMATCH (max abs error %.3g)" % (name, np.max(np.abs(got - want)))
        # Values that are exactly zero in exact arithmetic (a real signal's
        # imaginary parts at bins 0 and n / 2: their sines are 0).
        if zero_at is not None and np.any(got[zero_at] != 0):
            return "%s: MISMATCH (%.3g where 0 is exact)" % (
                name, np.max(np.abs(got[zero_at])))
    return "%s: ok" % name


def signal(x):
    return x[..., 0] if x.shape[-1] == 1 else x[..., 0] + 1j * x[..., 1]


def dft(name, x, opset=17, axis=None, length=None, inverse=0, onesided=0, **kw):
    inputs, consts, attrs = ["x"], {}, {"inverse": inverse, "onesided": onesided}
    if length is not None:
        consts["len"] = np.array(length, np.int64)
    inputs.append("len" if length is not None else "")
    if opset >= 20:
        if axis is not None:
            consts["axis"] = np.array(axis, np.int64)
            inputs.append("axis")
        np_axis = -2 if axis is None else axis
    else:
        if axis is not None:
            attrs["axis"] = axis
        np_axis = 1 if axis is None else axis
    while inputs[-1] == "":
        inputs.pop()
    np_axis = np_axis % x.ndim
    node = helper.make_node("DFT", inputs, ["y"], **attrs)

    def want(xs):
        z = signal(xs.astype(np.float64))
        if inverse and onesided:  # NumPy's irfft: a real signal
            n = length or 2 * (xs.shape[np_axis] - 1)
            return np.fft.irfft(z, n=n, axis=np_axis)[..., None]
        n = length or xs.shape[np_axis]
        f = (np.fft.ifft if inverse else np.fft.fft)(z, n=n, axis=np_axis)
        if onesided:
            f = np.take(f, np.arange(n // 2 + 1), axis=np_axis)
        return as_pairs(f)
    return run(name, node, x, consts, opset, want, **kw)


def stft(name, x, step, window=None, frame_length=None, onesided=1, **kw):
    consts = {"step": np.array(step, np.int64)}
    inputs = ["x", "step", "", ""]
    if window is not None:
        consts["window"] = window
        inputs[2] = "window"
    if frame_length is not None:
        consts["flen"] = np.array(frame_length, np.int64)
        inputs[3] = "flen"
    while inputs[-1] == "":
        inputs.pop()
    node = helper.make_node("STFT", inputs, ["y"], onesided=onesided)

    def want(xs):
        z = signal(xs.astype(np.float64))
        w = np.ones(frame_length) if window is None else window.astype(np.float64)
        n = frame_length or len(w)
        frames = 1 + (z.shape[1] - n) // step
        rows = []
        for f in range(frames):
            seg = z[:, f * step:f * step + len(w)]
            seg = np.concatenate([seg, np.zeros((z.shape[0], len(w) - seg.shape[1]))], axis=1)
            spec = np.fft.fft(seg * w, n=n, axis=1)
            rows.append(spec[:, :n // 2 + 1] if onesided else spec)
        return as_pairs(np.stack(rows, axis=1))
    return run(name, node, x, consts, 17, want, **kw)


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


results = [
    dft("dft_real", f32(2, 16, 1)),
    dft("dft_onesided_padded", f32(2, 12, 1), length=20, onesided=1),
    dft("dft_complex_axis2_truncated", f32(2, 5, 12, 2), axis=2, length=8),
    dft("dft_inverse", f32(3, 10, 2), inverse=1),
    dft("dft_odd_length", f32(1, 17, 2)),
    dft("dft_opset20_default_axis", f32(2, 6, 7, 1), opset=20),
    dft("dft_opset20_axis1", f32(2, 6, 7, 2), opset=20, axis=1, onesided=1),
    dft("dft_opset20_negative_axis", f32(4, 9, 3, 2), opset=20, axis=-3, inverse=1),
    dft("dft_f64", rng.standard_normal((2, 31, 1)), rtol=1e-10, atol=1e-10),
    # ONNX 1.23's test_dft_inverse (a complex signal with zero imaginary
    # parts, inverse along axis 1) and a real f64 signal: exact zeros at bins
    # 0 and n / 2 (the tables held sin(pi) = 1.2e-16, not 0: about 3e-15).
    dft("dft_inverse_zero_imag", np.stack([np.arange(100, dtype=np.float32).reshape(1, 10, 10),
                                           np.zeros((1, 10, 10), np.float32)], axis=-1),
        inverse=1, rtol=1e-6, atol=1e-6, zero_at=np.s_[:, [0, 5], :, 1]),
    dft("dft_f64_zero_imag", rng.standard_normal((2, 16, 1)), rtol=1e-12, atol=1e-12,
        zero_at=np.s_[:, [0, 8], 1]),
    dft("dft_symbolic_batch", f32(1, 16, 1), shape=["N", 16, 1], batches=(1, 3)),
    dft("irfft_default_length", f32(2, 9, 2), inverse=1, onesided=1),
    dft("irfft_odd_length", f32(2, 8, 2), inverse=1, onesided=1, length=15),
    dft("irfft_opset20_axis1", f32(2, 5, 7, 2), opset=20, axis=1, inverse=1, onesided=1, length=10),
    stft("stft_hann", f32(1, 64, 1), 8, window=(0.5 - 0.5 * np.cos(2 * np.pi * np.arange(16) / 16)).astype(np.float32)),
    stft("stft_frame_length_twosided", f32(2, 50, 1), 6, frame_length=10, onesided=0),
    stft("stft_complex", f32(2, 40, 2), 5, window=f32(10), onesided=0),
    stft("stft_short_window", f32(1, 30, 1), 4, window=f32(5), frame_length=8),
]


# MelWeightMatrix against ONNX Runtime (its inputs are constants).
def mel(name, bins, length, rate, lower, upper, datatype=TensorProto.FLOAT):
    consts = {k: np.array(v, t) for k, v, t in (("bins", bins, np.int64), ("len", length, np.int64),
                                                  ("rate", rate, np.int64),
                                                  ("lo", lower, np.float32), ("hi", upper, np.float32))}
    node = helper.make_node("MelWeightMatrix", list(consts), ["y"], output_datatype=datatype)
    graph = helper.make_graph([node], name, [], [helper.make_tensor_value_info("y", datatype, None)],
                              [numpy_helper.from_array(v, k) for k, v in consts.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    path = os.path.join(out, name + ".onnx")
    save(model, path)
    want = ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, {})[0]
    so = os.path.join(out, name + ".so")
    p = subprocess.run([os.path.join(tide_bin, "tide-compile"), path, "--target=cpu", "-o", so,
                        "--no-remarks"], capture_output=True, text=True)
    if p.returncode:
        return "%s: compile failed: %s" % (name, p.stderr.strip())
    p = subprocess.run([os.path.join(tide_bin, "tide-run"), so,
                        "--output=" + os.path.join(out, name + "_y.npy")], capture_output=True, text=True)
    if p.returncode:
        return "%s: run failed: %s" % (name, p.stderr.strip())
    got = np.load(os.path.join(out, name + "_y.npy"))
    if got.shape != want.shape or got.dtype != want.dtype or not np.allclose(got, want, rtol=1e-6, atol=1e-7):
        return "%s: %s %s, ONNX Runtime %s %s MISMATCH" % (name, got.dtype, got.shape, want.dtype, want.shape)
    return "%s: ok" % name


results += [
    mel("mel_8_64", 8, 64, 8000, 0, 4000),
    mel("mel_40_512_f64", 40, 512, 16000, 20, 7600, TensorProto.DOUBLE),
]


# Bad models: one clear error each (printed for FileCheck), never a crash.
def bad(name, node, shape, consts, opset=17):
    graph = helper.make_graph(
        [node], name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(v, k) for k, v in consts.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    path = os.path.join(out, name + ".onnx")
    save(model, path)
    p = subprocess.run([os.path.join(tide_bin, "tide-import-onnx"), path], capture_output=True,
                       text=True)
    print("error %s: rc %d: %s" % (name, p.returncode, p.stderr.strip().splitlines()[-1:]))


bad("dft_three_parts", helper.make_node("DFT", ["x"], ["y"], name="d"), [2, 8, 3], {})
bad("dft_dynamic_axis", helper.make_node("DFT", ["x"], ["y"], name="d"), [2, "L", 1], {})
bad("dft_axis_last", helper.make_node("DFT", ["x"], ["y"], name="d", axis=2), [2, 8, 2], {})
bad("dft_zero_length", helper.make_node("DFT", ["x", "n"], ["y"], name="d"), [2, 8, 1],
    {"n": np.array(0, np.int64)})
bad("stft_long_frame", helper.make_node("STFT", ["x", "s", "", "n"], ["y"], name="s"), [1, 8, 1],
    {"s": np.array(2, np.int64), "n": np.array(9, np.int64)})
bad("stft_step_input", helper.make_node("STFT", ["x", "x"], ["y"], name="s"), [1, 8, 1], {})
mel_bad = {k: np.array(v, t) for k, v, t in (("b", 4, np.int64), ("l", 16, np.int64),
                                             ("r", 8000, np.int64), ("lo", 0, np.float32),
                                             ("hi", 12000, np.float32))}
bad("mel_past_nyquist", helper.make_node("MelWeightMatrix", list(mel_bad), ["y"], name="m"), [1],
    mel_bad)
bad("stft_too_large", helper.make_node("STFT", ["x", "s", "", "n"], ["y"], name="s"), [1, 100000, 1],
    {"s": np.array(1, np.int64), "n": np.array(1000, np.int64)})
mel_big = dict(mel_bad, l=np.array(1 << 24, np.int64), b=np.array(65536, np.int64))
bad("mel_too_large", helper.make_node("MelWeightMatrix", ["b", "l", "r", "lo", "hi"], ["y"], name="m"),
    [1], mel_big)
bad("window_too_large", helper.make_node("HannWindow", ["n"], ["y"], name="w"), [1],
    {"n": np.array(1 << 40, np.int64)})
for r in results:
    print(r)
good = sum(r.endswith(": ok") for r in results)
print("%d of %d cases match" % (good, len(results)))
sys.exit(0 if good == len(results) else 1)
