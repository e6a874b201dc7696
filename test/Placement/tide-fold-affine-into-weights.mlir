// Tests of tide-fold-affine-into-weights: per-channel scales and shifts after a
// convolution with a constant weight (an inference batch norm as the ONNX
// importer writes it) are folded into the weight and one per-channel add;
// chains that are not affine per channel, or not exactly foldable, stay.

// RUN: tide-opt %s --pass-pipeline='builtin.module(func.func(tide-fold-affine-into-weights))' --split-input-file | FileCheck %s
// RUN: tide-opt %s --tide-place-pipeline="target=h200 report=text" --split-input-file -o /dev/null | FileCheck %s --check-prefix=REPORT

// A batch norm: (y - mean) * (gamma * rsqrt(var + eps)) + beta, with
// mean = [1, 2], var = [3, 0], eps = 1, gamma = [2, 4], beta = [0.5, -1]:
// the scale is [1, 4], the weight [1, 2] becomes [1, 8] and the shift
// beta - mean * scale = [-0.5, -9]. The constants' ops are gone.
// CHECK-LABEL: func.func @batch_norm(
// CHECK-SAME: %[[X:.*]]: tensor<1x1x4x4xf32>
// CHECK-NOT: tide.rsqrt
// CHECK: %[[W:.*]] = tide.constant dense<{{\[}}[{{\[}}[1.000000e+00]]], {{\[}}[{{\[}}8.000000e+00]]]]> : tensor<2x1x1x1xf32>
// CHECK: %[[Y:.*]] = tide.conv %[[X]], %[[W]] strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0]
// CHECK: %[[B:.*]] = tide.constant dense<{{\[}}[{{\[}}-5.000000e-01]], {{\[}}[-9.000000e+00]]]> : tensor<2x1x1xf32>
// CHECK: %[[Z:.*]] = tide.add %[[Y]], %[[B]] : tensor<1x2x4x4xf32>, tensor<2x1x1xf32>
// CHECK-NOT: tide.sub
// CHECK-NOT: tide.mul
// CHECK: return %[[Z]]
func.func @batch_norm(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = tide.constant dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf32>
  %y = tide.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] : tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>
  %mean1 = tide.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %var1 = tide.constant dense<[3.0, 0.0]> : tensor<2xf32>
  %gamma1 = tide.constant dense<[2.0, 4.0]> : tensor<2xf32>
  %beta1 = tide.constant dense<[0.5, -1.0]> : tensor<2xf32>
  %mean = tide.reshape %mean1 : tensor<2xf32> to tensor<2x1x1xf32>
  %var = tide.reshape %var1 : tensor<2xf32> to tensor<2x1x1xf32>
  %gamma = tide.reshape %gamma1 : tensor<2xf32> to tensor<2x1x1xf32>
  %beta = tide.reshape %beta1 : tensor<2xf32> to tensor<2x1x1xf32>
  %eps = tide.constant dense<1.0> : tensor<f32>
  %ve = tide.add %var, %eps : tensor<2x1x1xf32>, tensor<f32>
  %inv = tide.rsqrt %ve : tensor<2x1x1xf32>
  %c = tide.sub %y, %mean : tensor<1x2x4x4xf32>, tensor<2x1x1xf32>
  %s = tide.mul %inv, %gamma : tensor<2x1x1xf32>
  %m = tide.mul %c, %s : tensor<1x2x4x4xf32>, tensor<2x1x1xf32>
  %z = tide.add %m, %beta : tensor<1x2x4x4xf32>, tensor<2x1x1xf32>
  return %z : tensor<1x2x4x4xf32>
}

// -----

// Channels last (the channels are the last dimension; the weight's first
// is still the output channel), f64, operands in either order: 3 * y - k
// with k = [1, 2] is the weight times 3 and a shift of -k, then a division
// by [2, 4] scales both.
// CHECK-LABEL: func.func @channels_last(
// CHECK: %[[W:.*]] = tide.constant dense<{{\[}}[{{\[}}[1.500000e+00]]], {{\[}}[{{\[}}7.500000e-01]]]]> : tensor<2x1x1x1xf64>
// CHECK: %[[Y:.*]] = tide.conv %{{.*}}, %[[W]] {{.*}} channels_last
// CHECK: %[[B:.*]] = tide.constant dense<-5.000000e-01> : tensor<2xf64>
// CHECK: tide.add %[[Y]], %[[B]] : tensor<1x4x4x2xf64>, tensor<2xf64>
func.func @channels_last(%x: tensor<1x4x4x1xf64>) -> tensor<1x4x4x2xf64> {
  %w = tide.constant dense<[[[[1.0]]], [[[1.0]]]]> : tensor<2x1x1x1xf64>
  %y = tide.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] channels_last : tensor<1x4x4x1xf64>, tensor<2x1x1x1xf64>
  %three = tide.constant dense<3.0> : tensor<f64>
  %k = tide.constant dense<[1.0, 2.0]> : tensor<2xf64>
  %d = tide.constant dense<[[[[2.0, 4.0]]]]> : tensor<1x1x1x2xf64>
  %a = tide.mul %three, %y : tensor<f64>, tensor<1x4x4x2xf64>
  %b = tide.sub %a, %k : tensor<1x4x4x2xf64>, tensor<2xf64>
  %c = tide.div %b, %d : tensor<1x4x4x2xf64>, tensor<1x1x1x2xf64>
  return %c : tensor<1x4x4x2xf64>
}

// -----

// A scale only: no add. k - y negates the scale.
// CHECK-LABEL: func.func @scale_only(
// CHECK: %[[W:.*]] = tide.constant dense<{{\[}}[{{\[}}[-2.000000e+00]]], {{\[}}[{{\[}}-6.000000e+00]]]]> : tensor<2x1x1x1xf32>
// CHECK: %[[Y:.*]] = tide.conv %{{.*}}, %[[W]]
// CHECK-NEXT: return %[[Y]]
func.func @scale_only(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = tide.constant dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf32>
  %y = tide.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] : tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>
  %k = tide.constant dense<[[[2.0]], [[3.0]]]> : tensor<2x1x1xf32>
  %zero = tide.constant dense<0.0> : tensor<f32>
  %m = tide.mul %y, %k : tensor<1x2x4x4xf32>, tensor<2x1x1xf32>
  %n = tide.sub %zero, %m : tensor<f32>, tensor<1x2x4x4xf32>
  return %n : tensor<1x2x4x4xf32>
}

// -----

// Left alone: a result read twice, a constant that varies along the width,
// a division of a constant by the result, a division by 0, a weight that is
// an argument, f16, and a chain op pinned elsewhere than the convolution.
// CHECK-LABEL: func.func @not_folded(
// CHECK: %[[W:.*]] = tide.constant dense<{{\[}}[{{\[}}[1.000000e+00]]], {{\[}}[{{\[}}2.000000e+00]]]]> : tensor<2x1x1x1xf32>
// CHECK: %[[Y1:.*]] = tide.conv %{{.*}}, %[[W]]
// CHECK-NEXT: tide.add %[[Y1]]
// CHECK-NEXT: %[[Y2:.*]] = tide.conv %{{.*}}, %[[W]]
// CHECK-NEXT: tide.mul %[[Y2]]
// CHECK-NEXT: %[[Y3:.*]] = tide.conv %{{.*}}, %[[W]]
// CHECK-NEXT: tide.div %{{.*}}, %[[Y3]]
// CHECK-NEXT: %[[Y4:.*]] = tide.conv %{{.*}}, %[[W]]
// CHECK-NEXT: tide.div %[[Y4]]
// CHECK-NEXT: %[[Y5:.*]] = tide.conv %{{.*}}, %arg1
// CHECK-NEXT: tide.mul %[[Y5]]
// CHECK: %[[Y6:.*]] = tide.conv {{.*}} : tensor<1x1x4x4xf16>
// CHECK-NEXT: tide.mul %[[Y6]]
// CHECK-NEXT: %[[Y7:.*]] = tide.conv %{{.*}}, %[[W]]
// CHECK-NEXT: tide.mul %[[Y7]], %{{.*}} {tide.device = #tide.device<cuda:0>}
func.func @not_folded(%x: tensor<1x1x4x4xf32>, %wa: tensor<2x1x1x1xf32>, %h: tensor<1x1x4x4xf16>)
    -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf16>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %w = tide.constant dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf32>
  %k = tide.constant dense<[[[2.0]], [[3.0]]]> : tensor<2x1x1xf32>
  %z = tide.constant dense<[[[2.0]], [[0.0]]]> : tensor<2x1x1xf32>
  %row = tide.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %y1 = tide.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] : tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>
  %a1 = tide.add %y1, %k : tensor<1x2x4x4xf32>, tensor<2x1x1xf32>
  %y2 = tide.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] : tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>
  %a2 = tide.mul %y2, %row : tensor<1x2x4x4xf32>, tensor<4xf32>
  %y3 = tide.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] : tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>
  %a3 = tide.div %k, %y3 : tensor<2x1x1xf32>, tensor<1x2x4x4xf32>
  %y4 = tide.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] : tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>
  %a4 = tide.div %y4, %z : tensor<1x2x4x4xf32>, tensor<2x1x1xf32>
  %y5 = tide.conv %x, %wa strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] : tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>
  %a5 = tide.mul %y5, %k : tensor<1x2x4x4xf32>, tensor<2x1x1xf32>
  %wh = tide.constant dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf16>
  %kh = tide.constant dense<[[[2.0]], [[3.0]]]> : tensor<2x1x1xf16>
  %y6 = tide.conv %h, %wh strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] : tensor<1x1x4x4xf16>, tensor<2x1x1x1xf16>
  %a6 = tide.mul %y6, %kh : tensor<1x2x4x4xf16>, tensor<2x1x1xf16>
  %y7 = tide.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] : tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>
  %a7 = tide.mul %y7, %k {tide.device = #tide.device<cuda:0>} : tensor<1x2x4x4xf32>, tensor<2x1x1xf32>
  return %a1, %a2, %a3, %a4, %a5, %a6, %y1, %a7 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf16>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// Linear layers: a product by a constant (K, N) matrix scales its columns;
// by the transpose of a constant (N, K) one (ONNX Gemm's transB), the rows
// of the stored constant, kept transposed. Batch norm of a 3-D product
// along its last dimension: scale [2, 4], shift [1, -1].
// CHECK-LABEL: func.func @linear(
// CHECK: %[[W:.*]] = tide.constant dense<{{\[}}[2.000000e+00, 1.200000e+01], [6.000000e+00, 2.000000e+01]]> : tensor<2x2xf32>
// CHECK: %[[Y:.*]] = tide.matmul %{{.*}}, %[[W]] : tensor<3x2xf32>, tensor<2x2xf32>
// CHECK: %[[B:.*]] = tide.constant dense<[1.000000e+00, -1.000000e+00]> : tensor<2xf32>
// CHECK: tide.add %[[Y]], %[[B]] : tensor<3x2xf32>, tensor<2xf32>
// CHECK: %[[S:.*]] = tide.constant dense<{{\[}}[2.000000e+00, 4.000000e+00, 6.000000e+00], [1.600000e+01, 2.000000e+01, 2.400000e+01]]> : tensor<2x3xf32>
// CHECK: %[[T:.*]] = tide.transpose %[[S]] perm = [1, 0] : tensor<2x3xf32>
// CHECK: %[[Z:.*]] = tide.matmul %{{.*}}, %[[T]] : tensor<2x4x3xf32>, tensor<3x2xf32>
// CHECK-NOT: tide.transpose
// CHECK: tide.add %[[Z]], %{{.*}} : tensor<2x4x2xf32>, tensor<2xf32>
func.func @linear(%x: tensor<3x2xf32>, %u: tensor<2x4x3xf32>) -> (tensor<3x2xf32>, tensor<2x4x2xf32>) {
  %w = tide.constant dense<[[1.0, 3.0], [3.0, 5.0]]> : tensor<2x2xf32>
  %k = tide.constant dense<[2.0, 4.0]> : tensor<2xf32>
  %c = tide.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %y = tide.matmul %x, %w : tensor<3x2xf32>, tensor<2x2xf32>
  %m = tide.mul %y, %k : tensor<3x2xf32>, tensor<2xf32>
  %a = tide.add %m, %c : tensor<3x2xf32>, tensor<2xf32>
  %v = tide.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %vt = tide.transpose %v perm = [1, 0] : tensor<2x3xf32>
  %z = tide.matmul %u, %vt : tensor<2x4x3xf32>, tensor<3x2xf32>
  %zm = tide.mul %z, %k : tensor<2x4x2xf32>, tensor<2xf32>
  %za = tide.add %zm, %c : tensor<2x4x2xf32>, tensor<2xf32>
  return %a, %za : tensor<3x2xf32>, tensor<2x4x2xf32>
}

// -----

// Left alone: a constant that varies along the rows of the product, and a
// transposed weight that another op reads too.
// CHECK-LABEL: func.func @linear_not_folded(
// CHECK: tide.matmul
// CHECK-NEXT: tide.mul
// CHECK: tide.transpose
// CHECK-NEXT: %[[Z:.*]] = tide.matmul
// CHECK: tide.mul %[[Z]]
func.func @linear_not_folded(%x: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
  %w = tide.constant dense<[[1.0, 3.0], [3.0, 5.0]]> : tensor<2x2xf32>
  %rows = tide.constant dense<[[2.0], [4.0]]> : tensor<2x1xf32>
  %y = tide.matmul %x, %w : tensor<2x2xf32>, tensor<2x2xf32>
  %m = tide.mul %y, %rows : tensor<2x2xf32>, tensor<2x1xf32>
  %wt = tide.transpose %w perm = [1, 0] : tensor<2x2xf32>
  %z = tide.matmul %x, %wt : tensor<2x2xf32>, tensor<2x2xf32>
  %k = tide.constant dense<[2.0, 4.0]> : tensor<2xf32>
  %n = tide.mul %z, %k : tensor<2x2xf32>, tensor<2xf32>
  return %m, %n, %wt : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

// Shifts only: a layer's own bias add stays as it is (no copy of the
// weight); two adds become one, the weight untouched.
// CHECK-LABEL: func.func @shift_only(
// CHECK: %[[W:.*]] = tide.constant dense<{{\[}}[1.000000e+00, 3.000000e+00], [3.000000e+00, 5.000000e+00]]>
// CHECK-NOT: tide.constant dense<{{\[}}[1.000000e+00
// CHECK: %[[Y:.*]] = tide.matmul %{{.*}}, %[[W]]
// CHECK-NEXT: tide.add %[[Y]], %{{.*}} : tensor<3x2xf32>, tensor<2xf32>
// CHECK: %[[Z:.*]] = tide.matmul %{{.*}}, %[[W]]
// CHECK: %[[B:.*]] = tide.constant dense<[1.000000e+00, 3.000000e+00]> : tensor<2xf32>
// CHECK-NEXT: tide.add %[[Z]], %[[B]]
// CHECK-NOT: tide.add
// CHECK: return
func.func @shift_only(%x: tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>) {
  %w = tide.constant dense<[[1.0, 3.0], [3.0, 5.0]]> : tensor<2x2xf32>
  %c = tide.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %d = tide.constant dense<2.0> : tensor<f32>
  %y = tide.matmul %x, %w : tensor<3x2xf32>, tensor<2x2xf32>
  %a = tide.add %y, %c : tensor<3x2xf32>, tensor<2xf32>
  %z = tide.matmul %x, %w : tensor<3x2xf32>, tensor<2x2xf32>
  %b1 = tide.add %z, %d : tensor<3x2xf32>, tensor<f32>
  %b2 = tide.sub %b1, %c : tensor<3x2xf32>, tensor<2xf32>
  return %a, %b2 : tensor<3x2xf32>, tensor<3x2xf32>
}

// -----

// The placement report names both nodes the convolution and its bias came
// from (the pass runs first in tide-place-pipeline).
// REPORT-LABEL: placement of @named
// REPORT: tide.conv {{.*}}[n0 (Conv), n1 (BatchNormalization)]
// REPORT: tide.add {{.*}}[n0 (Conv), n1 (BatchNormalization)]
// REPORT: tide.relu {{.*}}[n2 (Relu)]
func.func @named(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = tide.constant dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf32> loc(#conv)
  %y = tide.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] : tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32> loc(#conv)
  %k = tide.constant dense<[[[2.0]], [[3.0]]]> : tensor<2x1x1xf32> loc(#bn)
  %m = tide.mul %y, %k : tensor<1x2x4x4xf32>, tensor<2x1x1xf32> loc(#bn)
  %a = tide.add %m, %k : tensor<1x2x4x4xf32>, tensor<2x1x1xf32> loc(#bn)
  %r = tide.relu %a : tensor<1x2x4x4xf32> loc(#relu)
  return %r : tensor<1x2x4x4xf32>
}
#model = loc("m.onnx":0:0)
#conv = loc("n0 (Conv)"(#model))
#bn = loc("n1 (BatchNormalization)"(#model))
#relu = loc("n2 (Relu)"(#model))
