// Tests of the CPU convolution patterns of convert-tide-to-linalg
// (ConvCpu.cpp): f32 convolutions oneDNN runs (1-3-D, grouped only in 2-D)
// become the named linalg convolution marked with tide.conv_pads (which
// tide-conv-to-library turns into a runtime call); the other f32/f64
// convolutions not placed on a GPU become a linalg.matmul per image and group
// over the input itself (1x1, stride 1, no padding) or over an im2col copy;
// depthwise ones become one linalg.generic whose innermost loops run along
// the output rows. With conv-gemm=false, and for f16/bf16 or GPU-placed
// convolutions, the generic loop nest stays.

// RUN: tide-opt %s --convert-tide-to-linalg=gpu=true --mlir-print-local-scope \
// RUN:   | FileCheck %s --implicit-check-not="tide.conv "
// RUN: tide-opt %s --convert-tide-to-linalg="gpu=true conv-gemm=false" \
// RUN:   | FileCheck %s --check-prefix=OFF

// A GEMM-shaped convolution: the weight and the image collapsed to matrices,
// one matmul into a zero fill, the product expanded back; no copy of the
// input.
// CHECK-LABEL: func.func @pointwise(
// CHECK-SAME: %[[X:.*]]: tensor<1x64x7x8xf64>, %[[W:.*]]: tensor<32x64x1x1xf64>)
// CHECK: %[[WM:.*]] = tensor.collapse_shape %[[W]] {{\[\[}}0], [1, 2, 3]] : tensor<32x64x1x1xf64> into tensor<32x64xf64>
// CHECK: %[[IMG:.*]] = tensor.extract_slice %[[X]][0, 0, 0, 0] [1, 64, 7, 8] [1, 1, 1, 1] : tensor<1x64x7x8xf64> to tensor<64x7x8xf64>
// CHECK: %[[COL:.*]] = tensor.collapse_shape %[[IMG]] {{\[\[}}0], [1, 2]] : tensor<64x7x8xf64> into tensor<64x56xf64>
// CHECK: %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f64) outs(%{{.*}} : tensor<32x56xf64>)
// CHECK: %[[MM:.*]] = linalg.matmul ins(%[[WM]], %[[COL]] : tensor<32x64xf64>, tensor<64x56xf64>) outs(%[[INIT]] : tensor<32x56xf64>)
// CHECK: %[[R:.*]] = tensor.expand_shape %[[MM]] {{\[\[}}0, 1], [2, 3]] output_shape [1, 32, 7, 8] : tensor<32x56xf64> into tensor<1x32x7x8xf64>
// CHECK: return %[[R]]
func.func @pointwise(%x: tensor<1x64x7x8xf64>, %w: tensor<32x64x1x1xf64>) -> tensor<1x32x7x8xf64> {
  %0 = tide.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] : tensor<1x64x7x8xf64>, tensor<32x64x1x1xf64>
  return %0 : tensor<1x32x7x8xf64>
}

// Padding, stride and dilation: a zero-padded copy of the input, then the
// im2col generic (loops c, kh, kw, oh, ow, all parallel) reading
// x[c, oh * 2 + kh, ow * 2 + kw * 2], collapsed to (C*KH*KW, OH*OW) for the
// matmul.
// CHECK-LABEL: func.func @im2col(
// CHECK-SAME: %[[X:.*]]: tensor<1x3x9x9xf64>, %[[W:.*]]: tensor<4x3x3x2xf64>)
// CHECK: %[[PF:.*]] = linalg.fill ins(%{{.*}} : f64) outs(%{{.*}} : tensor<1x3x11x10xf64>)
// CHECK: %[[P:.*]] = tensor.insert_slice %[[X]] into %[[PF]][0, 0, 1, 0] [1, 3, 9, 9] [1, 1, 1, 1]
// CHECK: %[[WM:.*]] = tensor.collapse_shape %[[W]] {{\[\[}}0], [1, 2, 3]] : tensor<4x3x3x2xf64> into tensor<4x18xf64>
// CHECK: %[[IMG:.*]] = tensor.extract_slice %[[P]][0, 0, 0, 0] [1, 3, 11, 10] [1, 1, 1, 1] : tensor<1x3x11x10xf64> to tensor<3x11x10xf64>
// CHECK: %[[C:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d3 * 2 + d1, d4 * 2 + d2 * 2)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[IMG]] : tensor<3x11x10xf64>) outs(%{{.*}} : tensor<3x3x2x5x4xf64>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f64, %{{.*}}: f64):
// CHECK-NEXT: linalg.yield %[[IN]] : f64
// CHECK: %[[COL:.*]] = tensor.collapse_shape %[[C]] {{\[\[}}0, 1, 2], [3, 4]] : tensor<3x3x2x5x4xf64> into tensor<18x20xf64>
// CHECK: %[[MM:.*]] = linalg.matmul ins(%[[WM]], %[[COL]] : tensor<4x18xf64>, tensor<18x20xf64>)
// CHECK: tensor.expand_shape %[[MM]] {{\[\[}}0, 1], [2, 3]] output_shape [1, 4, 5, 4]
func.func @im2col(%x: tensor<1x3x9x9xf64>, %w: tensor<4x3x3x2xf64>) -> tensor<1x4x5x4xf64> {
  %0 = tide.conv %x, %w strides = [2, 2] dilations = [1, 2] pads = [1, 0, 1, 1] : tensor<1x3x9x9xf64>, tensor<4x3x3x2xf64>
  return %0 : tensor<1x4x5x4xf64>
}

// A dynamic batch and two groups (a grouped 1-D convolution, which oneDNN's
// path does not take): loops over images and groups, each GEMM
// (the group's weight rows times the im2col of its channels) written into
// its slice of one (N, F, OH*OW) tensor (here 1-D: no expansion at the end).
// CHECK-LABEL: func.func @batch_and_groups(
// CHECK-SAME: %[[X:.*]]: tensor<?x4x6xf32>, %[[W:.*]]: tensor<6x2x3xf32>)
// CHECK: %[[WM:.*]] = tensor.collapse_shape %[[W]] {{\[\[}}0], [1, 2]] : tensor<6x2x3xf32> into tensor<6x6xf32>
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x4x6xf32>
// CHECK: %[[ALL:.*]] = tensor.empty(%[[N]]) : tensor<?x6x4xf32>
// CHECK: %[[IMAGES:.*]] = scf.for %[[I:.*]] = %{{.*}} to %[[N]] step %{{.*}} iter_args(%[[A:.*]] = %[[ALL]])
// CHECK: %[[GROUPS:.*]] = scf.for %[[G:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[B:.*]] = %[[A]])
// CHECK: %[[OUT:.*]] = tensor.extract_slice %[[B]][%[[I]], %[[F0:.*]], 0] [1, 3, 4] [1, 1, 1] : tensor<?x6x4xf32> to tensor<3x4xf32>
// CHECK: %[[IMG:.*]] = tensor.extract_slice %[[X]][%[[I]], %{{.*}}, 0] [1, 2, 6] [1, 1, 1] : tensor<?x4x6xf32> to tensor<2x6xf32>
// CHECK: linalg.generic
// CHECK: %[[COL:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK: %[[WG:.*]] = tensor.extract_slice %[[WM]][%{{.*}}, 0] [3, 6] [1, 1] : tensor<6x6xf32> to tensor<3x6xf32>
// CHECK: %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[OUT]] : tensor<3x4xf32>)
// CHECK: %[[MM:.*]] = linalg.matmul ins(%[[WG]], %[[COL]] : tensor<3x6xf32>, tensor<6x4xf32>) outs(%[[INIT]] : tensor<3x4xf32>)
// CHECK: %[[UP:.*]] = tensor.insert_slice %[[MM]] into %[[B]][%[[I]], %[[F0]], 0] [1, 3, 4] [1, 1, 1]
// CHECK: scf.yield %[[UP]]
// CHECK: scf.yield %[[GROUPS]]
// CHECK: return %[[IMAGES]]
func.func @batch_and_groups(%x: tensor<?x4x6xf32>, %w: tensor<6x2x3xf32>) -> tensor<?x6x4xf32> {
  %0 = tide.conv %x, %w strides = [1] dilations = [1] pads = [0, 0] groups = 2 : tensor<?x4x6xf32>, tensor<6x2x3xf32>
  return %0 : tensor<?x6x4xf32>
}

// Depthwise (one channel per group, two filters each): one generic with
// loops (n, g, f) parallel, (kh, kw) reduction, then (oh, ow) parallel
// innermost, accumulating into a zero fill; no matmul.
// CHECK-LABEL: func.func @depthwise(
// CHECK-SAME: %[[X:.*]]: tensor<2x4x8x8xf64>, %[[W:.*]]: tensor<8x1x3x3xf64>)
// CHECK-NOT: linalg.matmul
// CHECK: %[[WE:.*]] = tensor.expand_shape %[[W]] {{\[\[}}0, 1], [2], [3], [4]] output_shape [4, 2, 1, 3, 3] : tensor<8x1x3x3xf64> into tensor<4x2x1x3x3xf64>
// CHECK: %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f64) outs(%{{.*}} : tensor<2x4x2x8x8xf64>)
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d3 + d5, d4 + d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d2, 0, d3, d4)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d5, d6)>], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel", "parallel"]}
// CHECK-SAME: outs(%[[INIT]] : tensor<2x4x2x8x8xf64>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: tensor.collapse_shape %[[R]] {{\[\[}}0], [1, 2], [3], [4]] : tensor<2x4x2x8x8xf64> into tensor<2x8x8x8xf64>
func.func @depthwise(%x: tensor<2x4x8x8xf64>, %w: tensor<8x1x3x3xf64>) -> tensor<2x8x8x8xf64> {
  %0 = tide.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 4 : tensor<2x4x8x8xf64>, tensor<8x1x3x3xf64>
  return %0 : tensor<2x8x8x8xf64>
}

// oneDNN's: an f32 2-D convolution on the CPU is the named convolution over
// the zero-padded input, its padding recorded for the library.
// CHECK-LABEL: func.func @library(
// CHECK-SAME: %[[X:.*]]: tensor<1x3x9x9xf32>, %[[W:.*]]: tensor<4x3x3x2xf32>)
// CHECK-NOT: linalg.matmul
// CHECK: %[[P:.*]] = tensor.insert_slice %[[X]] into %{{.*}}[0, 0, 1, 0] [1, 3, 9, 9] [1, 1, 1, 1]
// CHECK: %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x4x5x4xf32>)
// CHECK: linalg.conv_2d_nchw_fchw {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>, tide.conv_pads = array<i64: 1, 0, 1, 1>} ins(%[[P]], %[[W]] : tensor<1x3x11x10xf32>, tensor<4x3x3x2xf32>) outs(%[[INIT]] : tensor<1x4x5x4xf32>)
func.func @library(%x: tensor<1x3x9x9xf32>, %w: tensor<4x3x3x2xf32>) -> tensor<1x4x5x4xf32> {
  %0 = tide.conv %x, %w strides = [2, 2] dilations = [1, 2] pads = [1, 0, 1, 1] : tensor<1x3x9x9xf32>, tensor<4x3x3x2xf32>
  return %0 : tensor<1x4x5x4xf32>
}

// oneDNN's too: a grouped (here depthwise) f32 2-D convolution, split into
// groups as for cuDNN.
// CHECK-LABEL: func.func @library_grouped(
// CHECK-NOT: linalg.matmul
// CHECK: linalg.conv_2d_ngchw_gfchw {{.*}}tide.conv_pads = array<i64: 1, 1, 1, 1>{{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x4x1x10x10xf32>, tensor<4x2x1x3x3xf32>)
// CHECK: tensor.collapse_shape
func.func @library_grouped(%x: tensor<2x4x8x8xf32>, %w: tensor<8x1x3x3xf32>) -> tensor<2x8x8x8xf32> {
  %0 = tide.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 4 : tensor<2x4x8x8xf32>, tensor<8x1x3x3xf32>
  return %0 : tensor<2x8x8x8xf32>
}

// negative_ f16 keeps the generic lowering (products accumulated in f32).
// CHECK-LABEL: func.func @negative_f16(
// CHECK-NOT: linalg.matmul
// CHECK: linalg.generic {{.*}}"reduction", "reduction", "reduction"]
// CHECK: arith.extf
// CHECK: return
func.func @negative_f16(%x: tensor<1x3x8x8xf16>, %w: tensor<4x3x3x3xf16>) -> tensor<1x4x6x6xf16> {
  %0 = tide.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] : tensor<1x3x8x8xf16>, tensor<4x3x3x3xf16>
  return %0 : tensor<1x4x6x6xf16>
}

// negative_ A GPU-placed convolution is not the CPU's: no BLAS GEMM (the
// GPU's named convolution, for cuDNN).
// CHECK-LABEL: func.func @negative_gpu(
// CHECK-NOT: linalg.matmul
// CHECK: linalg.conv_2d_nchw_fchw {{.*}}tide.conv_pads
// CHECK: return
func.func @negative_gpu(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %0 = tide.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] {tide.device = #tide.device<cuda:0>} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// With conv-gemm=false every convolution is the generic loop nest.
// OFF-LABEL: func.func @pointwise(
// OFF-NOT: linalg.matmul
// OFF: linalg.generic {{.*}}"reduction", "reduction", "reduction"]
// OFF-LABEL: func.func @im2col(
// OFF-NOT: linalg.matmul
// OFF: linalg.generic {{.*}}"reduction", "reduction", "reduction"]
// OFF-LABEL: func.func @depthwise(
// OFF: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// OFF-LABEL: func.func @library(
// OFF-NOT: linalg.conv_
// OFF: linalg.generic {{.*}}"reduction", "reduction", "reduction"]

// A channels-last conv on the CPU: the operands transposed to NCHW, the conv
// lowered as any other (here the GEMM of a 1x1 conv), the result transposed
// back.
// CHECK-LABEL: func.func @channels_last_cpu(
// CHECK: linalg.transpose ins(%{{.*}} : tensor<1x7x8x64xf64>) outs(%{{.*}} : tensor<1x64x7x8xf64>) permutation = [0, 3, 1, 2]
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<32x64xf64>, tensor<64x56xf64>)
// CHECK: linalg.transpose ins(%{{.*}} : tensor<1x32x7x8xf64>) outs(%{{.*}} : tensor<1x7x8x32xf64>) permutation = [0, 2, 3, 1]
func.func @channels_last_cpu(%x: tensor<1x7x8x64xf64>, %w: tensor<32x1x1x64xf64>) -> tensor<1x7x8x32xf64> {
  %0 = tide.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] channels_last : tensor<1x7x8x64xf64>, tensor<32x1x1x64xf64>
  return %0 : tensor<1x7x8x32xf64>
}

// A weight of run-time sizes: neither oneDNN nor the GEMMs (they size their
// buffers and calls by the weight) but the generic loop nest, its result's
// sizes computed from the weight's, after the checks a static weight has
// while compiling.
// CHECK-LABEL: func.func @runtime_weight(
// CHECK-SAME: %[[X:.*]]: tensor<1x3x8x8xf32>, %[[W:.*]]: tensor<?x?x?x3xf32>)
// CHECK: cf.assert %{{.*}}, "'tide.conv' at {{.*}}: the weight's input channels (dimension 1) are not the input's channels"
// CHECK: %[[F:.*]] = tensor.dim %[[W]], %{{.*}} : tensor<?x?x?x3xf32>
// CHECK: %[[KH:.*]] = tensor.dim %[[W]], %{{.*}} : tensor<?x?x?x3xf32>
// CHECK: cf.assert %{{.*}}, "'tide.conv' at {{.*}}: the weight's kernel size along spatial dimension 0 is 0"
// CHECK: cf.assert %{{.*}}, "'tide.conv' at {{.*}}: the window is larger than the padded input in spatial dimension 0"
// CHECK: %[[OH:.*]] = arith.addi
// CHECK: tensor.empty(%[[F]], %[[OH]]) : tensor<1x?x?x7xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[W]] : tensor<1x3x9x9xf32>, tensor<?x?x?x3xf32>) outs(%{{.*}} : tensor<1x?x?x7xf32>)
// CHECK-NOT: linalg.matmul
// CHECK: return
func.func @runtime_weight(%x: tensor<1x3x8x8xf32>, %w: tensor<?x?x?x3xf32>) -> tensor<1x?x?x7xf32> {
  %0 = tide.conv %x, %w strides = [2, 1] dilations = [1, 1] pads = [1, 1, 0, 0] : tensor<1x3x8x8xf32>, tensor<?x?x?x3xf32>
  return %0 : tensor<1x?x?x7xf32>
}
