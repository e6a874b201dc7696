// RUN: tide-opt %s --convert-tide-to-linalg=gpu=true --mlir-print-local-scope | FileCheck %s

// On the GPU a max pool with unit dilations and padding smaller than its
// kernel reads the unpadded input at clamped coordinates: no padded copy.
// Loops in the result's order (n, h, w, c here), then the window's.
// CHECK-LABEL: func.func @max_pool_clamped(
// CHECK-SAME: %[[X:.*]]: tensor<2x8x8x4xbf16>)
// CHECK-NOT: tensor.insert_slice
// CHECK: %[[INIT:.*]] = linalg.fill {{.*}} outs(%{{.*}} : tensor<2x4x4x4xbf16>)
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
// CHECK-SAME: outs(%[[INIT]] : tensor<2x4x4x4xbf16>)
// CHECK: %[[H:.*]] = linalg.index 1 : index
// CHECK: %[[HS:.*]] = arith.muli %[[H]], %{{.*}} : index
// CHECK: %[[KH:.*]] = linalg.index 4 : index
// CHECK: %[[HK:.*]] = arith.addi %[[HS]], %[[KH]] : index
// CHECK: %[[HB:.*]] = arith.subi %[[HK]], %{{.*}} : index
// CHECK: %[[HL:.*]] = arith.maxsi %[[HB]], %{{.*}} : index
// CHECK: %[[HC:.*]] = arith.minsi %[[HL]], %{{.*}} : index
// CHECK: tensor.extract %[[X]][%{{.*}}, %[[HC]], %{{.*}}, %{{.*}}] : tensor<2x8x8x4xbf16>
// CHECK: arith.maximumf
func.func @max_pool_clamped(%x: tensor<2x8x8x4xbf16>) -> tensor<2x4x4x4xbf16> {
  %0 = tide.max_pool %x kernel = [3, 3] strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1] channels_last {tide.device = #tide.device<cuda:0>} : tensor<2x8x8x4xbf16>
  return %0 : tensor<2x4x4x4xbf16>
}

// Dilated windows may skip the clamped element: those read a padded copy,
// as on the CPU.
// CHECK-LABEL: func.func @max_pool_dilated(
// CHECK: tensor.insert_slice
// CHECK: linalg.generic
// CHECK-NOT: tensor.extract
func.func @max_pool_dilated(%x: tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32> {
  %0 = tide.max_pool %x kernel = [3, 3] strides = [2, 2] dilations = [2, 2] pads = [2, 2, 1, 1] {tide.device = #tide.device<cuda:0>} : tensor<1x2x8x8xf32>
  return %0 : tensor<1x2x4x4xf32>
}

// On the CPU the padded copy stays (its loops vectorize; clamped reads
// would not).
// CHECK-LABEL: func.func @max_pool_cpu(
// CHECK: tensor.insert_slice
func.func @max_pool_cpu(%x: tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32> {
  %0 = tide.max_pool %x kernel = [3, 3] strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1] : tensor<1x2x8x8xf32>
  return %0 : tensor<1x2x4x4xf32>
}

// An input empty along an axis: every window is padding alone (the lowest
// value), and a clamped read would index outside the buffer: the padded copy.
// CHECK-LABEL: func.func @max_pool_empty_axis(
// CHECK-NOT: tensor.extract
// CHECK: linalg.generic
// CHECK-NOT: tensor.extract
// CHECK: return
func.func @max_pool_empty_axis(%x: tensor<1x1x4x0xi16>) -> tensor<1x1x3x1xi16> {
  %0 = tide.max_pool %x kernel = [2, 4] strides = [1, 1] dilations = [1, 1] pads = [0, 2, 0, 2] {tide.device = #tide.device<cuda:0>} : tensor<1x1x4x0xi16>
  return %0 : tensor<1x1x3x1xi16>
}

// The last window starts in the end padding (pads as large as the kernel):
// it holds no input element, so it must not read a clamped one.
// CHECK-LABEL: func.func @max_pool_window_in_padding(
// CHECK-NOT: tensor.extract
// CHECK: linalg.generic
// CHECK-NOT: tensor.extract
// CHECK: return
func.func @max_pool_window_in_padding(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x3x3xf32> {
  %0 = tide.max_pool %x kernel = [2, 2] strides = [2, 2] dilations = [1, 1] pads = [0, 0, 2, 2] {tide.device = #tide.device<cuda:0>} : tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x3x3xf32>
}
