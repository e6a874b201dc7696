// RUN: tide-opt %s --convert-tide-to-linalg=gpu=true --mlir-print-local-scope | FileCheck %s

// A float conv placed on a GPU becomes the named linalg convolution over the
// padded input, marked with the conv's padding (tide.conv_pads) for the GPU
// lowering, which calls cuDNN (convert-linalg-to-gpu).
// CHECK-LABEL: func.func @conv_f32(
// CHECK: %[[PADDED:.*]] = tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 1, 1] [2, 4, 9, 9] [1, 1, 1, 1]
// CHECK: %[[INIT:.*]] = linalg.fill {{.*}}ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x8x9x9xf32>)
// CHECK: linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tide.conv_pads = array<i64: 1, 1, 1, 1>, tide.device = #tide.device<cuda:0>}
// CHECK-SAME: ins(%[[PADDED]], %{{.*}} : tensor<2x4x11x11xf32>, tensor<8x4x3x3xf32>) outs(%[[INIT]] : tensor<2x8x9x9xf32>)
func.func @conv_f32(%x: tensor<2x4x9x9xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<2x8x9x9xf32> {
  %y = tide.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 1 {tide.device = #tide.device<cuda:0>} : tensor<2x4x9x9xf32>, tensor<8x4x3x3xf32>
  return %y : tensor<2x8x9x9xf32>
}

// Grouped 2-D in f16: split into groups, accumulated in f32 (the named op
// casts its f16 operands to the f32 output), then rounded once.
// CHECK-LABEL: func.func @depthwise_f16(
// CHECK: linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>, tide.conv_pads = array<i64: 1, 1, 0, 0>
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<2x8x1x11x11xf16>, tensor<8x1x1x3x3xf16>) outs(%{{.*}} : tensor<2x8x1x5x5xf32>)
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: tensor.collapse_shape
func.func @depthwise_f16(%x: tensor<2x8x10x10xf16>, %w: tensor<8x1x3x3xf16>) -> tensor<2x8x5x5xf16> {
  %y = tide.conv %x, %w strides = [2, 2] dilations = [1, 1] pads = [1, 1, 0, 0] groups = 8 {tide.device = #tide.device<cuda:0>} : tensor<2x8x10x10xf16>, tensor<8x1x3x3xf16>
  return %y : tensor<2x8x5x5xf16>
}

// 1-D and 3-D: conv_1d_ncw_fcw and conv_3d_ncdhw_fcdhw.
// CHECK-LABEL: func.func @conv_1d_f64(
// CHECK: linalg.conv_1d_ncw_fcw {dilations = dense<2> : tensor<1xi64>, strides = dense<1> : tensor<1xi64>, tide.conv_pads = array<i64: 0, 0>
// CHECK-SAME: outs(%{{.*}} : tensor<?x6x14xf64>)
func.func @conv_1d_f64(%x: tensor<?x4x16xf64>, %w: tensor<6x4x2xf64>) -> tensor<?x6x14xf64> {
  %y = tide.conv %x, %w strides = [1] dilations = [2] pads = [0, 0] groups = 1 {tide.device = #tide.device<cuda:0>} : tensor<?x4x16xf64>, tensor<6x4x2xf64>
  return %y : tensor<?x6x14xf64>
}
// CHECK-LABEL: func.func @conv_3d_bf16(
// CHECK: linalg.conv_3d_ncdhw_fcdhw
// CHECK-SAME: outs(%{{.*}} : tensor<1x2x3x3x3xf32>)
func.func @conv_3d_bf16(%x: tensor<1x2x4x4x4xbf16>, %w: tensor<2x2x2x2x2xbf16>) -> tensor<1x2x3x3x3xbf16> {
  %y = tide.conv %x, %w strides = [1, 1, 1] dilations = [1, 1, 1] pads = [0, 0, 0, 0, 0, 0] groups = 1 {tide.device = #tide.device<cuda:0>} : tensor<1x2x4x4x4xbf16>, tensor<2x2x2x2x2xbf16>
  return %y : tensor<1x2x3x3x3xbf16>
}

// Not for cuDNN: grouped 1-D/3-D convs and f64 convs on the CPU stay generic
// (one linalg.generic with the reduction loops; f32 ones on the CPU are
// oneDNN's, see cpu-conv.mlir).
// CHECK-LABEL: func.func @grouped_1d(
// CHECK-NOT: linalg.conv_
// CHECK: linalg.generic
func.func @grouped_1d(%x: tensor<1x4x8xf32>, %w: tensor<4x2x3xf32>) -> tensor<1x4x6xf32> {
  %y = tide.conv %x, %w strides = [1] dilations = [1] pads = [0, 0] groups = 2 {tide.device = #tide.device<cuda:0>} : tensor<1x4x8xf32>, tensor<4x2x3xf32>
  return %y : tensor<1x4x6xf32>
}
// CHECK-LABEL: func.func @on_cpu(
// CHECK-NOT: linalg.conv_
// CHECK: return
func.func @on_cpu(%x: tensor<1x4x8xf64>, %w: tensor<4x4x3xf64>) -> tensor<1x4x6xf64> {
  %y = tide.conv %x, %w strides = [1] dilations = [1] pads = [0, 0] groups = 1 {tide.device = #tide.device<cpu>} : tensor<1x4x8xf64>, tensor<4x4x3xf64>
  return %y : tensor<1x4x6xf64>
}

// Channels-last, ungrouped 2-D: linalg.conv_2d_nhwc_fhwc over the input padded
// in its spatial dimensions (1 and 2), accumulated in f32, rounded once.
// CHECK-LABEL: func.func @channels_last_bf16(
// CHECK: %[[PADDED:.*]] = tensor.insert_slice %{{.*}} into %{{.*}}[0, 1, 1, 0] [2, 9, 9, 4] [1, 1, 1, 1]
// CHECK: %[[INIT:.*]] = linalg.fill {{.*}} outs(%{{.*}} : tensor<2x5x9x8xf32>)
// CHECK: linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>, tide.conv_pads = array<i64: 1, 1, 1, 1>, tide.device = #tide.device<cuda:0>}
// CHECK-SAME: ins(%[[PADDED]], %{{.*}} : tensor<2x11x11x4xbf16>, tensor<8x3x3x4xbf16>) outs(%[[INIT]] : tensor<2x5x9x8xf32>)
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @channels_last_bf16(%x: tensor<2x9x9x4xbf16>, %w: tensor<8x3x3x4xbf16>) -> tensor<2x5x9x8xbf16> {
  %y = tide.conv %x, %w strides = [2, 1] dilations = [1, 1] pads = [1, 1, 1, 1] channels_last {tide.device = #tide.device<cuda:0>} : tensor<2x9x9x4xbf16>, tensor<8x3x3x4xbf16>
  return %y : tensor<2x5x9x8xbf16>
}

// Channels-last convs cuDNN does not take in that layout (grouped here) are
// the NCHW conv of transposed operands, transposed back.
// CHECK-LABEL: func.func @channels_last_grouped(
// CHECK: linalg.transpose ins(%{{.*}} : tensor<2x9x9x4xf16>) outs(%{{.*}} : tensor<2x4x9x9xf16>) permutation = [0, 3, 1, 2]
// CHECK: linalg.transpose ins(%{{.*}} : tensor<8x3x3x2xf16>) outs(%{{.*}} : tensor<8x2x3x3xf16>) permutation = [0, 3, 1, 2]
// CHECK: linalg.conv_2d_ngchw_gfchw
// CHECK: linalg.transpose ins(%{{.*}} : tensor<2x8x7x7xf16>) outs(%{{.*}} : tensor<2x7x7x8xf16>) permutation = [0, 2, 3, 1]
func.func @channels_last_grouped(%x: tensor<2x9x9x4xf16>, %w: tensor<8x3x3x2xf16>) -> tensor<2x7x7x8xf16> {
  %y = tide.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 2 channels_last {tide.device = #tide.device<cuda:0>} : tensor<2x9x9x4xf16>, tensor<8x3x3x2xf16>
  return %y : tensor<2x7x7x8xf16>
}
