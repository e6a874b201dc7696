// Tests of tide-split-column-reductions: a host reduction over its outermost
// loop (a sum over the rows, per column) is split into parts of the rows
// reduced in parallel, then combined; so is a full reduction into a scalar
// (several loops collapsed into one first); other reductions are left alone.

// RUN: tide-opt %s --pass-pipeline='builtin.module(func.func(tide-split-column-reductions))' --split-input-file | FileCheck %s
// RUN: tide-opt %s --pass-pipeline='builtin.module(func.func(tide-split-column-reductions{min-elements=1}))' --split-input-file | FileCheck %s --check-prefix=SMALL

#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d1)>

// 4096 rows in 16 parts of 256 (parts of at least 256 rows: the partial
// rows are written, read back and combined): the first op is parallel over
// the parts (and the columns), the second reduces the 16 partial rows.
// CHECK-LABEL: func.func @column_sum(
// CHECK-SAME: %[[X:.*]]: tensor<4096x2048xf32>
// CHECK: %[[PARTS:.*]] = tensor.expand_shape %[[X]] {{\[\[}}0, 1], [2]] output_shape [16, 256, 2048]
// CHECK: %[[ZERO:.*]] = linalg.fill {{.*}} -> tensor<16x2048xf32>
// CHECK: %[[PARTIAL:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[PARTS]] : tensor<16x256x2048xf32>) outs(%[[ZERO]] : tensor<16x2048xf32>)
// CHECK: arith.addf {{.*}} fastmath<reassoc>
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} ins(%[[PARTIAL]] : tensor<16x2048xf32>)
// CHECK-SAME: {tide.device = #tide.device<cpu>}
func.func @column_sum(%x: tensor<4096x2048xf32>, %init: tensor<2048xf32>) -> tensor<2048xf32> {
  %r = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<4096x2048xf32>) outs(%init : tensor<2048xf32>) attrs = {tide.device = #tide.device<cpu>} {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc fastmath<reassoc> : f32
    linalg.yield %s : f32
  } -> tensor<2048xf32>
  return %r : tensor<2048xf32>
}

// -----

#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d1)>

// negative: a float sum without reassoc keeps its order.
// CHECK-LABEL: func.func @negative_ordered_sum(
// CHECK-NOT: tensor.expand_shape
// SMALL-LABEL: func.func @negative_ordered_sum(
// SMALL-NOT: tensor.expand_shape
func.func @negative_ordered_sum(%x: tensor<4096x2048xf32>, %init: tensor<2048xf32>) -> tensor<2048xf32> {
  %r = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<4096x2048xf32>) outs(%init : tensor<2048xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2048xf32>
  return %r : tensor<2048xf32>
}

// -----

#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d1)>

// A maximum over 48 x 64 rows: below min-elements by default; with
// min-elements=1, 48 rows in 16 parts of 3 (the largest power of two up to
// 64 dividing 48 with parts of at least 2 rows).
// CHECK-LABEL: func.func @small_max(
// CHECK-NOT: tensor.expand_shape
// SMALL-LABEL: func.func @small_max(
// SMALL: tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2]] output_shape [16, 3, 64]
// SMALL: arith.maxnumf
func.func @small_max(%x: tensor<48x64xf32>, %init: tensor<64xf32>) -> tensor<64xf32> {
  %r = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<48x64xf32>) outs(%init : tensor<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maxnumf %a, %acc : f32
    linalg.yield %m : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}

// -----

#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d0)>

// negative: a row sum (reduction innermost) is parallel over its rows
// already.
// SMALL-LABEL: func.func @negative_row_sum(
// SMALL-NOT: tensor.expand_shape
func.func @negative_row_sum(%x: tensor<4096x2048xf32>, %init: tensor<4096xf32>) -> tensor<4096xf32> {
  %r = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4096x2048xf32>) outs(%init : tensor<4096xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc fastmath<reassoc> : f32
    linalg.yield %s : f32
  } -> tensor<4096xf32>
  return %r : tensor<4096xf32>
}

// -----

#in = affine_map<(d0) -> (d0)>
#out = affine_map<(d0) -> ()>

// A full reduction of one loop with its producer fused (exp and sum): 64
// contiguous slices reduced in parallel, then the 64 partial sums.
// SMALL-LABEL: func.func @exp_sum(
// CHECK-LABEL: func.func @exp_sum(
// CHECK-SAME: %[[X:.*]]: tensor<1048576xf32>
// CHECK: %[[PARTS:.*]] = tensor.expand_shape %[[X]] {{\[\[}}0, 1]] output_shape [64, 16384]
// CHECK: %[[PARTIAL:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[PARTS]] : tensor<64x16384xf32>) outs(%{{.*}} : tensor<64xf32>)
// CHECK: math.exp
// CHECK: arith.addf {{.*}} fastmath<reassoc>
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%[[PARTIAL]] : tensor<64xf32>) outs(%{{.*}} : tensor<f32>)
// CHECK-SAME: {tide.device = #tide.device<cpu>}
func.func @exp_sum(%x: tensor<1048576xf32>, %init: tensor<f32>) -> tensor<f32> {
  %r = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["reduction"]}
      ins(%x : tensor<1048576xf32>) outs(%init : tensor<f32>) attrs = {tide.device = #tide.device<cpu>} {
  ^bb0(%a: f32, %acc: f32):
    %e = math.exp %a : f32
    %s = arith.addf %e, %acc fastmath<reassoc> : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// -----

#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> ()>

// The maximum of a whole matrix: collapsed into one loop of 2^21, then split.
// SMALL-LABEL: func.func @matrix_max(
// CHECK-LABEL: func.func @matrix_max(
// CHECK-SAME: %[[X:.*]]: tensor<1024x2048xf32>
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1]] {tide.device = #tide.device<cpu>} : tensor<1024x2048xf32> into tensor<2097152xf32>
// CHECK: %[[PARTS:.*]] = tensor.expand_shape %[[FLAT]] {{\[\[}}0, 1]] output_shape [64, 32768]
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[PARTS]] : tensor<64x32768xf32>)
// CHECK: arith.maxnumf
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%{{.*}} : tensor<64xf32>) outs(%{{.*}} : tensor<f32>)
func.func @matrix_max(%x: tensor<1024x2048xf32>, %init: tensor<f32>) -> tensor<f32> {
  %r = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["reduction", "reduction"]}
      ins(%x : tensor<1024x2048xf32>) outs(%init : tensor<f32>) attrs = {tide.device = #tide.device<cpu>} {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maxnumf %a, %acc : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// -----

#in = affine_map<(d0, d1) -> (d1, d0)>
#out = affine_map<(d0, d1) -> ()>

// negative: a full reduction reading its operand out of order (a transposed
// map) is not collapsed.
// SMALL-LABEL: func.func @negative_permuted_full(
// SMALL-NOT: tensor.collapse_shape
func.func @negative_permuted_full(%x: tensor<64x32xf32>, %init: tensor<f32>) -> tensor<f32> {
  %r = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["reduction", "reduction"]}
      ins(%x : tensor<64x32xf32>) outs(%init : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc fastmath<reassoc> : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// -----

#in = affine_map<(d0) -> (d0)>
#out = affine_map<(d0) -> ()>

// negative: an odd number of elements has no parts of equal size.
// SMALL-LABEL: func.func @negative_odd_full(
// SMALL-NOT: tensor.expand_shape
func.func @negative_odd_full(%x: tensor<1000001xf32>, %init: tensor<f32>) -> tensor<f32> {
  %r = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["reduction"]}
      ins(%x : tensor<1000001xf32>) outs(%init : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc fastmath<reassoc> : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// -----

#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (0, 0)>

// keepdims: a full reduction into a 1x1 tensor reduces into a rank-0 one
// (its init collapsed, the result expanded back), then collapsed and split.
// SMALL-LABEL: func.func @keepdims_sum(
// CHECK-LABEL: func.func @keepdims_sum(
// CHECK-SAME: %[[X:.*]]: tensor<1024x2048xf32>, %[[INIT:.*]]: tensor<1x1xf32>
// CHECK: %[[SCALAR:.*]] = tensor.collapse_shape %[[INIT]] [] {tide.device = #tide.device<cpu>} : tensor<1x1xf32> into tensor<f32>
// CHECK: tensor.collapse_shape %[[X]] {{\[\[}}0, 1]]
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [64, 32768]
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%{{.*}} : tensor<64xf32>) outs(%[[SCALAR]] : tensor<f32>)
// CHECK: %[[BACK:.*]] = tensor.expand_shape %[[SUM]] [] output_shape [1, 1] {tide.device = #tide.device<cpu>} : tensor<f32> into tensor<1x1xf32>
// CHECK: return %[[BACK]]
func.func @keepdims_sum(%x: tensor<1024x2048xf32>, %init: tensor<1x1xf32>) -> tensor<1x1xf32> {
  %r = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["reduction", "reduction"]}
      ins(%x : tensor<1024x2048xf32>) outs(%init : tensor<1x1xf32>) attrs = {tide.device = #tide.device<cpu>} {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc fastmath<reassoc> : f32
    linalg.yield %s : f32
  } -> tensor<1x1xf32>
  return %r : tensor<1x1xf32>
}

// -----

#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d1)>

// 32768 rows: 64 parts of 512 (at most 64 parts).
// CHECK-LABEL: func.func @tall_column_sum(
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2]] output_shape [64, 512, 64]
func.func @tall_column_sum(%x: tensor<32768x64xf32>, %init: tensor<64xf32>) -> tensor<64xf32> {
  %r = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<32768x64xf32>) outs(%init : tensor<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc fastmath<reassoc> : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}

// -----

#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d1)>

// 1024 rows: 16 parts of 64 all the same (fewer than 256 rows a part, but
// 16 parts where the rows allow, for 16 threads).
// CHECK-LABEL: func.func @short_column_sum(
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2]] output_shape [16, 64, 8192]
func.func @short_column_sum(%x: tensor<1024x8192xf32>, %init: tensor<8192xf32>) -> tensor<8192xf32> {
  %r = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<1024x8192xf32>) outs(%init : tensor<8192xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc fastmath<reassoc> : f32
    linalg.yield %s : f32
  } -> tensor<8192xf32>
  return %r : tensor<8192xf32>
}
