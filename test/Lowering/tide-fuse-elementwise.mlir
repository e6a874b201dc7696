// RUN: tide-opt %s --tide-fuse-elementwise --split-input-file --mlir-print-local-scope | FileCheck %s

// Elementwise producers fuse into their one elementwise consumer.
// CHECK-LABEL: func.func @chain(
// CHECK: linalg.generic
// CHECK: math.exp
// CHECK: arith.addf
// CHECK-NOT: linalg.generic
func.func @chain(%x: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  } -> tensor<8xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%a : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %in : f32
    linalg.yield %0 : f32
  } -> tensor<8xf32>
  return %b : tensor<8xf32>
}

// -----

// A matmul reading a flattened image stays a 2-D contraction over the
// collapsed operand (upstream's fusion would expand it into a 5-loop
// contraction that no GEMM call matches).
// CHECK-LABEL: func.func @flatten_then_matmul(
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2, 3]] : tensor<4x16x1x1xf32> into tensor<4x16xf32>
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[FLAT]], %{{.*}} : tensor<4x16xf32>, tensor<16x8xf32>)
func.func @flatten_then_matmul(%x: tensor<4x16x1x1xf32>, %w: tensor<16x8xf32>) -> tensor<4x8xf32> {
  %flat = tensor.collapse_shape %x [[0], [1, 2, 3]] : tensor<4x16x1x1xf32> into tensor<4x16xf32>
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%flat, %w : tensor<4x16xf32>, tensor<16x8xf32>) outs(%z : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %0 = arith.mulf %a, %b : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// Elementwise ops still see through reshapes: the exp moves to the expanded
// shape.
// CHECK-LABEL: func.func @reshape_then_exp(
// CHECK-NOT: tensor.collapse_shape
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}} : tensor<4x2xf32>)
// CHECK: tensor.collapse_shape
func.func @reshape_then_exp(%x: tensor<4x2xf32>) -> tensor<8xf32> {
  %flat = tensor.collapse_shape %x [[0, 1]] : tensor<4x2xf32> into tensor<8xf32>
  %e = tensor.empty() : tensor<8xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%flat : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  } -> tensor<8xf32>
  return %y : tensor<8xf32>
}
