// Tests of tide-fuse-elementwise: upstream's elementwise fusion patterns
// (producer-consumer fusion of elementwise generics, reshapes folded into
// generics), except that a reshape next to a linalg.matmul is left alone, so
// the matmul stays a library GEMM.

// RUN: tide-opt %s --tide-fuse-elementwise --mlir-print-local-scope | FileCheck %s

#id = affine_map<(d0) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

// Two elementwise generics fuse into one (upstream's behaviour, kept).
// CHECK-LABEL: func.func @chain(
// CHECK: linalg.generic
// CHECK: math.exp
// CHECK: arith.mulf
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @chain(%x: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %1 = math.exp %a : f32
    linalg.yield %1 : f32
  } -> tensor<8xf32>
  %2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%0 : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %3 = arith.mulf %a, %a : f32
    linalg.yield %3 : f32
  } -> tensor<8xf32>
  return %2 : tensor<8xf32>
}

// The im2col shape of a convolution: a copy generic, collapsed into the
// matmul's operand, and the product expanded. Upstream folds both reshapes
// into the matmul (a linalg.generic over the expanded loops) and then fuses
// the copy into it; here the matmul and both reshapes stay.
// CHECK-LABEL: func.func @gemm_between_reshapes(
// CHECK: %[[COPY:.*]] = linalg.generic
// CHECK: %[[COL:.*]] = tensor.collapse_shape %[[COPY]] {{\[\[}}0, 1], [2, 3]] : tensor<2x3x4x5xf32> into tensor<6x20xf32>
// CHECK: %[[MM:.*]] = linalg.matmul ins(%{{.*}}, %[[COL]] : tensor<7x6xf32>, tensor<6x20xf32>)
// CHECK: %[[E:.*]] = tensor.expand_shape %[[MM]] {{\[\[}}0], [1, 2]] output_shape [7, 4, 5] : tensor<7x20xf32> into tensor<7x4x5xf32>
// CHECK: return %[[E]]
func.func @gemm_between_reshapes(%x: tensor<2x3x8xf32>, %w: tensor<7x6xf32>) -> tensor<7x4x5xf32> {
  %e = tensor.empty() : tensor<2x3x4x5xf32>
  %copy = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 + d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<2x3x8xf32>) outs(%e : tensor<2x3x4x5xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<2x3x4x5xf32>
  %col = tensor.collapse_shape %copy [[0, 1], [2, 3]] : tensor<2x3x4x5xf32> into tensor<6x20xf32>
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<7x20xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%init : tensor<7x20xf32>) -> tensor<7x20xf32>
  %mm = linalg.matmul ins(%w, %col : tensor<7x6xf32>, tensor<6x20xf32>) outs(%fill : tensor<7x20xf32>) -> tensor<7x20xf32>
  %r = tensor.expand_shape %mm [[0], [1, 2]] output_shape [7, 4, 5] : tensor<7x20xf32> into tensor<7x4x5xf32>
  return %r : tensor<7x4x5xf32>
}

// A reshape between two elementwise generics is still folded by expanding
// the consumer's loops (upstream's behaviour, kept): one generic is left.
// CHECK-LABEL: func.func @reshape_between_generics(
// CHECK-NOT: tensor.collapse_shape
// CHECK: linalg.generic
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @reshape_between_generics(%x: tensor<2x3xf32>) -> tensor<6xf32> {
  %e = tensor.empty() : tensor<2x3xf32>
  %0 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %1 = math.exp %a : f32
    linalg.yield %1 : f32
  } -> tensor<2x3xf32>
  %c = tensor.collapse_shape %0 [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  %e1 = tensor.empty() : tensor<6xf32>
  %2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%c : tensor<6xf32>) outs(%e1 : tensor<6xf32>) {
  ^bb0(%a: f32, %o: f32):
    %3 = arith.mulf %a, %a : f32
    linalg.yield %3 : f32
  } -> tensor<6xf32>
  return %2 : tensor<6xf32>
}

// A transpose of a constant is folded at compile time (a generic first, then
// upstream's constant folding): no transpose is left.
// CHECK-LABEL: func.func @constant_transpose(
// CHECK-NOT: linalg.transpose
// CHECK-NOT: linalg.generic
// CHECK: %[[T:.*]] = arith.constant dense<{{\[\[}}1.000000e+00, 3.000000e+00], [2.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK: linalg.matmul ins(%{{.*}}, %[[T]] : tensor<3x2xf32>, tensor<2x2xf32>)
func.func @constant_transpose(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %e = tensor.empty() : tensor<2x2xf32>
  %t = linalg.transpose ins(%w : tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) permutation = [1, 0]
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<3x2xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%init : tensor<3x2xf32>) -> tensor<3x2xf32>
  %mm = linalg.matmul ins(%x, %t : tensor<3x2xf32>, tensor<2x2xf32>) outs(%fill : tensor<3x2xf32>) -> tensor<3x2xf32>
  return %mm : tensor<3x2xf32>
}
