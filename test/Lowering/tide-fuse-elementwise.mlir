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

// -----

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

// -----

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

// -----

// A transpose on a GPU becomes a generic, and the bias add before it (an
// attention head split) is fused into it: one kernel. On the CPU it stays a
// transpose (tiled later), the add before it an op of its own.
// CHECK-LABEL: func.func @gpu_transpose(
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d0, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
// CHECK-SAME: tide.device = #tide.device<cuda:0>
// CHECK-NOT: linalg.transpose
// CHECK: return
// CHECK-LABEL: func.func @cpu_transpose(
// CHECK: linalg.generic
// CHECK: linalg.transpose
func.func @gpu_transpose(%x: tensor<8x4x64xf32>, %b: tensor<64xf32>) -> tensor<4x8x64xf32> {
  %e = tensor.empty() : tensor<8x4x64xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %b : tensor<8x4x64xf32>, tensor<64xf32>) outs(%e : tensor<8x4x64xf32>) attrs = {tide.device = #tide.device<cuda:0>} {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %0 = arith.addf %a, %c : f32
    linalg.yield %0 : f32
  } -> tensor<8x4x64xf32>
  %t0 = tensor.empty() : tensor<4x8x64xf32>
  %t = linalg.transpose ins(%s : tensor<8x4x64xf32>) outs(%t0 : tensor<4x8x64xf32>) permutation = [1, 0, 2] {tide.device = #tide.device<cuda:0>}
  return %t : tensor<4x8x64xf32>
}
func.func @cpu_transpose(%x: tensor<8x4x64xf32>, %b: tensor<64xf32>) -> tensor<4x8x64xf32> {
  %e = tensor.empty() : tensor<8x4x64xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %b : tensor<8x4x64xf32>, tensor<64xf32>) outs(%e : tensor<8x4x64xf32>) attrs = {tide.device = #tide.device<cpu>} {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %0 = arith.addf %a, %c : f32
    linalg.yield %0 : f32
  } -> tensor<8x4x64xf32>
  %t0 = tensor.empty() : tensor<4x8x64xf32>
  %t = linalg.transpose ins(%s : tensor<8x4x64xf32>) outs(%t0 : tensor<4x8x64xf32>) permutation = [1, 0, 2] {tide.device = #tide.device<cpu>}
  return %t : tensor<4x8x64xf32>
}

// -----

// The fused op keeps the consumer's tide.device (upstream builds it without
// discardable attributes); a generator with no inputs (an iota) would
// otherwise leave nothing that says where the fused op runs.
// CHECK-LABEL: func.func @keeps_device(
// CHECK: linalg.generic
// CHECK-SAME: tide.device = #tide.device<cuda:0>
// CHECK: math.tan
// CHECK-NOT: linalg.generic
func.func @keeps_device() -> tensor<3xf32> {
  %e = tensor.empty() : tensor<3xf32>
  %i = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%e : tensor<3xf32>) attrs = {tide.device = #tide.device<cuda:0>} {
  ^bb0(%out: f32):
    %0 = linalg.index 0 : index
    %1 = arith.index_cast %0 : index to i64
    %2 = arith.sitofp %1 : i64 to f32
    linalg.yield %2 : f32
  } -> tensor<3xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%i : tensor<3xf32>) outs(%e : tensor<3xf32>) attrs = {tide.device = #tide.device<cuda:0>} {
  ^bb0(%in: f32, %out: f32):
    %0 = math.tan %in : f32
    linalg.yield %0 : f32
  } -> tensor<3xf32>
  return %t : tensor<3xf32>
}

// -----

// Ops on different devices do not fuse.
// CHECK-LABEL: func.func @across_devices(
// CHECK: linalg.generic
// CHECK-SAME: tide.device = #tide.device<cpu>
// CHECK: linalg.generic
// CHECK-SAME: tide.device = #tide.device<cuda:0>
func.func @across_devices(%x: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) attrs = {tide.device = #tide.device<cpu>} {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  } -> tensor<8xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%a : tensor<8xf32>) outs(%e : tensor<8xf32>) attrs = {tide.device = #tide.device<cuda:0>} {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %in : f32
    linalg.yield %0 : f32
  } -> tensor<8xf32>
  return %b : tensor<8xf32>
}

// -----

// An elementwise producer (a transformer's GELU) is not fused into the matmul
// that reads it: the matmul with its operand computed inline would match no
// GEMM library call.
// CHECK-LABEL: func.func @gelu_then_matmul(
// CHECK: %[[G:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK: math.erf
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME: ins(%[[G]], %{{.*}} : tensor<4x16xf32>, tensor<16x8xf32>)
func.func @gelu_then_matmul(%x: tensor<4x16xf32>, %w: tensor<16x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x16xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.erf %in : f32
    %1 = arith.mulf %0, %in : f32
    linalg.yield %1 : f32
  } -> tensor<4x16xf32>
  %cst = arith.constant 0.0 : f32
  %o = tensor.empty() : tensor<4x8xf32>
  %z = linalg.fill ins(%cst : f32) outs(%o : tensor<4x8xf32>) -> tensor<4x8xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%g, %w : tensor<4x16xf32>, tensor<16x8xf32>) outs(%z : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %0 = arith.mulf %a, %b : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// A single-input reduction still takes its elementwise producer (one pass
// over memory).
// CHECK-LABEL: func.func @exp_then_sum(
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction"]
// CHECK: math.exp
// CHECK-NOT: linalg.generic
func.func @exp_then_sum(%x: tensor<16xf32>) -> tensor<f32> {
  %e = tensor.empty() : tensor<16xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  %cst = arith.constant 0.0 : f32
  %o = tensor.empty() : tensor<f32>
  %z = linalg.fill ins(%cst : f32) outs(%o : tensor<f32>) -> tensor<f32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]}
      ins(%a : tensor<16xf32>) outs(%z : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// A product over an input that is a fill of 0, with a dynamic reduced extent
// (0 at run time: a top_k of k = 0): the fill is folded into the payload and
// `0 * out` to 0, but the output keeps its init (a fill of 1), which the
// result is when the loop runs no iteration. Upstream's RemoveOutsDependency
// made it a tensor.empty.
// CHECK-LABEL: func.func @empty_product(
// CHECK: %[[ONE:.+]] = linalg.fill ins(%c1_i64 : i64)
// CHECK: linalg.generic
// CHECK-SAME: outs(%[[ONE]] : tensor<1x1xi64>)
func.func @empty_product(%n: index) -> tensor<1x1xi64> {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %e = tensor.empty(%n) : tensor<0x?xi64>
  %zero = linalg.fill ins(%c0 : i64) outs(%e : tensor<0x?xi64>) -> tensor<0x?xi64>
  %o = tensor.empty() : tensor<1x1xi64>
  %one = linalg.fill ins(%c1 : i64) outs(%o : tensor<1x1xi64>) -> tensor<1x1xi64>
  %p = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0, 0)>], iterator_types = ["reduction", "reduction"]}
      ins(%zero : tensor<0x?xi64>) outs(%one : tensor<1x1xi64>) {
  ^bb0(%in: i64, %out: i64):
    %0 = arith.muli %in, %out : i64
    linalg.yield %0 : i64
  } -> tensor<1x1xi64>
  return %p : tensor<1x1xi64>
}

// -----

// An elementwise op whose payload does not read its output gets a
// tensor.empty output (no dependency on the old contents).
// CHECK-LABEL: func.func @unread_output(
// CHECK: %[[E:.+]] = tensor.empty() : tensor<8xf32>
// CHECK: linalg.generic
// CHECK-SAME: outs(%[[E]] : tensor<8xf32>)
func.func @unread_output(%x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<8xf32> {
  %a = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%y : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  } -> tensor<8xf32>
  return %a : tensor<8xf32>
}
