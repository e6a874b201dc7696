#!/usr/bin/env python3
"""Compares Tide with ONNX Runtime on small Resize, Upsample, ConvTranspose
and GridSample models (the cases ONNX's test data leaves out: groups,
constant and computed weights, a symbolic batch, opset 18/19 attributes,
integer and f16 data, every GridSample mode and padding).

    nn_ort.py TIDE_BIN OUTDIR    (run with the ONNX Runtime venv's python)

Prints one line per case and exits 1 if any differs.
"""
import concurrent.futures
import os
import subprocess
import sys

import numpy as np
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper, save

tide_bin, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(0)
ONNX_TYPE = {np.float32: TensorProto.FLOAT, np.float16: TensorProto.FLOAT16,
             np.uint8: TensorProto.UINT8, np.int32: TensorProto.INT32}
cases = []


def case(name, node, inputs, inits=None, opset=13, shapes=None, tol=(1e-4, 1e-5)):
    cases.append((name, node, inputs, inits or {}, opset, shapes or {}, tol))


def check(name, node, inputs, inits, opset, shapes, tol):
    vis = [helper.make_tensor_value_info(k, ONNX_TYPE[v.dtype.type], shapes.get(k, list(v.shape)))
           for k, v in inputs.items()]
    elem = ONNX_TYPE[next(iter(inputs.values())).dtype.type]
    graph = helper.make_graph([node], name, vis, [helper.make_tensor_value_info("y", elem, None)],
                              [numpy_helper.from_array(v, k) for k, v in inits.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    path = os.path.join(out, name + ".onnx")
    save(model, path)
    options = ort.SessionOptions()
    options.log_severity_level = 3  # its shape inference floors 20 * 0.35f to 6; it computes 7
    want = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"]).run(None, inputs)[0]
    so = os.path.join(out, name + ".so")
    p = subprocess.run([os.path.join(tide_bin, "tide-compile"), path, "--target=cpu", "-o", so,
                        "--no-remarks"], capture_output=True, text=True)
    if p.returncode:
        return "%s: compile failed: %s" % (name, p.stderr.strip())
    cmd = [os.path.join(tide_bin, "tide-run"), so]
    for k, v in inputs.items():
        np.save(os.path.join(out, "%s_%s.npy" % (name, k)), v)
        cmd.append("--input=" + os.path.join(out, "%s_%s.npy" % (name, k)))
    cmd.append("--output=" + os.path.join(out, name + "_y.npy"))
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        return "%s: run failed: %s" % (name, p.stderr.strip())
    got = np.load(os.path.join(out, name + "_y.npy"))
    if got.shape != want.shape or got.dtype != want.dtype:
        return "%s: %s %s, ONNX Runtime %s %s MISMATCH" % (name, got.dtype, got.shape, want.dtype,
                                                             want.shape)
    ok = np.allclose(got.astype(np.float64), want, rtol=tol[0], atol=tol[1], equal_nan=True)
    return "%s: %s" % (name, "ok" if ok else "MISMATCH (max abs error %.3g)" % float(
        np.max(np.abs(got.astype(np.float64) - want))))


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


# ConvTranspose: the weight as an initializer (flipped while importing) and as
# an input (flipped by tide ops).
for const in (True, False):
    tag = "const" if const else "input"

    def convt(name, x, w, b=None, shapes=None, **attrs):
        names = ["x", "w"] + (["b"] if b is not None else [])
        inputs, inits = {"x": x}, {} if b is None else {"b": b}
        (inits if const else inputs)["w"] = w
        case("%s_%s" % (name, tag), helper.make_node("ConvTranspose", names, ["y"], **attrs),
             inputs, inits, shapes=shapes)

    convt("convt_groups", f32(2, 4, 5, 6), f32(4, 3, 3, 2), f32(6), group=2, strides=[2, 3],
          pads=[1, 0, 2, 1], output_padding=[1, 0], dilations=[1, 2])
    convt("convt_1d_same_lower", f32(1, 2, 7), f32(2, 3, 4), strides=[3], auto_pad="SAME_LOWER")
    convt("convt_3d", f32(1, 6, 3, 4, 2), f32(6, 2, 2, 3, 3), f32(6), group=3, strides=[2, 1, 2])
    # Pads beyond the kernel's reach (a dilated kernel extended with zeros),
    # a 1-wide kernel with stride (its inserted zeros reach past the end).
    convt("convt_large_pads", f32(2, 4, 6, 7), f32(4, 1, 3, 2), strides=[3, 2], group=2,
          dilations=[2, 3], pads=[5, 6, 6, 4], output_padding=[2, 0], shapes={"x": ["N", 4, 6, 7]})
    convt("convt_1x1", f32(2, 3, 4, 5), f32(3, 2, 1, 1), f32(2), strides=[2, 3],
          shapes={"x": ["N", 3, 4, 5]})
    convt("convt_output_shape", f32(1, 2, 4, 5), f32(2, 2, 3, 3), strides=[2, 2], output_shape=[10, 9])
    # output_shape 2 past the natural 12 and 15: the extra go at the end.
    convt("convt_output_shape_larger", f32(1, 2, 4, 5), f32(2, 2, 3, 3), f32(2), strides=[3, 3],
          output_shape=[14, 17])
    convt("convt_batch", f32(3, 8, 5, 5), f32(8, 16, 3, 3), f32(16), strides=[2, 2],
          pads=[1, 1, 1, 1], output_padding=[1, 1], shapes={"x": ["N", 8, 5, 5]})
    # Run-time spatial sizes (the zeros inserted by reshapes of run-time sizes).
    convt("convt_dyn", f32(2, 4, 5, 6), f32(4, 3, 3, 2), f32(6), group=2, strides=[2, 3],
          pads=[1, 0, 2, 1], output_padding=[1, 0], dilations=[1, 2],
          shapes={"x": ["N", 4, "H", "W"]})
    convt("convt_dyn_same", f32(1, 2, 7), f32(2, 3, 4), strides=[3], auto_pad="SAME_LOWER",
          shapes={"x": [1, 2, "L"]})
    # Every size symbolic, the channels too: grouped, they are the weight's.
    convt("convt_dyn_channels", f32(2, 4, 5, 6), f32(4, 3, 3, 2), group=2, strides=[2, 1],
          shapes={"x": ["N", "C", "H", "W"]})
    # NaN and infinities in the input reach only the outputs their elements
    # do (kernels narrower than the stride, pads beyond the reach: the input
    # cropped there; found by the random graphs, where zero taps added to the
    # kernel had spread them).
    special = f32(2, 4, 5, 6)
    special[0, 0, 1, 2], special[1, 3, 4, 0], special[0, 2, 2, 5] = np.nan, np.inf, -np.inf
    convt("convt_special_1x1", special, f32(4, 1, 1, 1), group=4, strides=[2, 3],
          shapes={"x": ["N", 4, "H", "W"]})
    convt("convt_special_narrow", special, f32(4, 2, 1, 3), strides=[2, 2], group=2)
    convt("convt_special_pads", special, f32(4, 1, 3, 2), strides=[3, 2], group=4,
          dilations=[2, 3], pads=[5, 6, 6, 4], output_padding=[2, 0],
          shapes={"x": ["N", 4, "H", "W"]})
    convt("convt_dyn_large_pads", f32(2, 4, 6, 7), f32(4, 1, 3, 2), strides=[3, 2], group=2,
          dilations=[2, 3], pads=[5, 6, 6, 4], output_padding=[2, 0],
          shapes={"x": ["N", 4, "H", "W"]})


# A grouped convolution over an input whose every size is symbolic (the
# channel count is the weight's per group times the groups).
case("conv_dyn_channels", helper.make_node("Conv", ["x", "w"], ["y"], group=3, pads=[1, 0, 1, 2]),
     {"x": f32(2, 6, 5, 7)}, {"w": f32(9, 2, 3, 2)}, shapes={"x": ["N", "C", "H", "W"]})


def resize(name, x, opset=13, roi=None, scales=None, sizes=None, tol=(1e-4, 1e-5), shapes=None,
           **attrs):
    inits, names = {}, ["x", "", "", ""]
    for i, (key, value, dtype) in enumerate((("roi", roi, np.float32), ("scales", scales, np.float32),
                                             ("sizes", sizes, np.int64))):
        if value is not None:
            inits[key] = np.array(value, dtype)
            names[i + 1] = key
    while names[-1] == "":
        names.pop()
    if opset == 10:
        names = ["x", "scales"]
    case(name, helper.make_node("Resize", names, ["y"], **attrs), {"x": x}, inits, opset,
         shapes=shapes, tol=tol)


x = f32(2, 3, 7, 9)
resize("resize_cubic", x, scales=[1, 1, 1.7, 0.45], mode="cubic")
resize("resize_cubic_pytorch_1", x, sizes=[2, 3, 1, 4], mode="cubic",
       coordinate_transformation_mode="pytorch_half_pixel")
resize("resize_linear_5d", f32(1, 2, 3, 4, 5), sizes=[1, 2, 5, 7, 3], mode="linear",
       coordinate_transformation_mode="align_corners")
resize("resize_nearest_channels", x, scales=[2, 0.5, 0.5, 1.5], mode="nearest",
       nearest_mode="round_prefer_ceil")
resize("resize_tf_crop", x, roi=[0, 0, 0.2, -0.3, 1, 1, 1.1, 0.9], sizes=[2, 3, 6, 8], mode="cubic",
       coordinate_transformation_mode="tf_crop_and_resize", extrapolation_value=-3.0)
resize("resize_cubic_exclude", x, scales=[1, 1, 1.5, 0.7], mode="cubic", cubic_coeff_a=-0.5,
       exclude_outside=1)
resize("resize_uint8", rng.integers(0, 255, (1, 3, 5, 5)).astype(np.uint8), scales=[1, 1, 1.6, 0.6])
resize("resize_f16", f32(1, 2, 5, 5).astype(np.float16), scales=[1, 1, 1.6, 0.6], mode="linear",
       tol=(2e-3, 2e-3))
resize("resize_opset10_down", x, opset=10, scales=[1, 1, 0.5, 0.4], mode="nearest")
resize("resize_axes_aspect", x, opset=18, sizes=[14, 14], axes=[3, 2], mode="linear",
       keep_aspect_ratio_policy="not_larger")
resize("resize_antialias", f32(1, 2, 20, 17), opset=18, scales=[1, 1, 0.35, 0.6], mode="linear",
       antialias=1)
resize("resize_antialias_cubic", f32(1, 2, 20, 17), opset=18, scales=[1, 1, 0.5, 0.3], mode="cubic",
       antialias=1)
resize("resize_half_pixel_symmetric", x, opset=19, scales=[1, 1, 1.7, 0.65], mode="linear",
       coordinate_transformation_mode="half_pixel_symmetric")
case("upsample_7", helper.make_node("Upsample", ["x"], ["y"], mode="linear", scales=[1.0, 1.0, 2.0, 1.5]),
     {"x": x}, opset=7)

# Run-time sizes (a symbolic batch, height and width): source coordinates
# computed at run time from an iota, in every coordinate and nearest mode.
dyn = {"x": ["N", 3, "H", "W"]}
resize("resize_dyn_linear", x, scales=[1, 1, 1.7, 0.45], mode="linear", shapes=dyn)
resize("resize_dyn_align_sizes", x, sizes=[2, 3, 5, 11], mode="linear",
       coordinate_transformation_mode="align_corners", shapes=dyn)
resize("resize_dyn_pytorch_1", x, sizes=[2, 3, 1, 4], mode="linear",
       coordinate_transformation_mode="pytorch_half_pixel", shapes=dyn)
resize("resize_dyn_cubic", x, scales=[1, 1, 1.7, 0.45], mode="cubic", shapes=dyn)
resize("resize_dyn_cubic_exclude", x, scales=[1, 1, 1.5, 0.7], mode="cubic", cubic_coeff_a=-0.5,
       exclude_outside=1, shapes=dyn)
resize("resize_dyn_cubic_pytorch_1", x, sizes=[2, 3, 1, 4], mode="cubic",
       coordinate_transformation_mode="pytorch_half_pixel", shapes=dyn)
resize("resize_dyn_symmetric", x, opset=19, scales=[1, 1, 1.7, 0.65], mode="linear",
       coordinate_transformation_mode="half_pixel_symmetric", shapes=dyn)
# (ONNX Runtime differs from ONNX's reference, which Tide follows, for
# tf_half_pixel_for_nn with ceil rounding, and for align_corners where the
# scaled size is fractional: an input 8 wide here.)
x8 = f32(2, 3, 6, 8)
for coord in ("half_pixel", "asymmetric", "tf_half_pixel_for_nn", "align_corners"):
    for rounding in ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil"):
        if coord == "tf_half_pixel_for_nn" and "ceil" in rounding:
            continue
        resize("resize_dyn_%s_%s" % (coord, rounding), x8, scales=[1, 1, 2.5, 0.75],
               mode="nearest", coordinate_transformation_mode=coord, nearest_mode=rounding,
               shapes=dyn)
resize("resize_dyn_batch", x, scales=[2, 0.5, 0.5, 1.5], mode="nearest", shapes={"x": ["N", 3, 7, 9]})
resize("resize_dyn_uint8", rng.integers(0, 255, (1, 3, 5, 5)).astype(np.uint8),
       scales=[1, 1, 1.6, 0.6], shapes=dyn)
resize("resize_dyn_f16", f32(1, 3, 5, 5).astype(np.float16), scales=[1, 1, 1.6, 0.6], mode="linear",
       tol=(2e-3, 2e-3), shapes=dyn)
resize("resize_dyn_opset10", x, opset=10, scales=[1, 1, 0.5, 0.4], mode="nearest", shapes=dyn)
case("upsample_7_dyn", helper.make_node("Upsample", ["x"], ["y"], mode="linear",
                                        scales=[1.0, 1.0, 2.0, 1.5]),
     {"x": x}, opset=7, shapes=dyn)

grid = rng.random((2, 4, 6, 2)).astype(np.float32) * 2.6 - 1.3
for mode in ("bilinear", "nearest", "bicubic"):
    for padding in ("zeros", "border", "reflection"):
        case("gridsample_%s_%s" % (mode, padding),
             helper.make_node("GridSample", ["x", "g"], ["y"], mode=mode, padding_mode=padding,
                              align_corners=int(padding == "reflection")),
             {"x": f32(2, 3, 5, 7), "g": grid}, opset=16)
case("gridsample_3d", helper.make_node("GridSample", ["x", "g"], ["y"], mode="linear",
                                       padding_mode="reflection"),
     {"x": f32(1, 2, 4, 5, 6), "g": rng.random((1, 3, 4, 5, 3)).astype(np.float32) * 2.6 - 1.3},
     opset=20)

with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as pool:
    lines = list(pool.map(lambda c: check(*c), cases))
for line in lines:
    print(line)
bad = sum(not line.endswith(": ok") for line in lines)
print("%d of %d cases match ONNX Runtime" % (len(lines) - bad, len(lines)))
sys.exit(1 if bad else 0)
