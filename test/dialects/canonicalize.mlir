// RUN: tide-opt %s -canonicalize | FileCheck %s

// Folders and canonicalization patterns of the tide dialect. Cases whose name
// starts with negative_ must NOT be rewritten.

//===----------------------------------------------------------------------===//
// cast
//===----------------------------------------------------------------------===//

// A cast to the type the value already has is a no-op.
// CHECK-LABEL: func.func @cast_same_type(
// CHECK-SAME: %[[X:.*]]: tensor<4x?xf32>)
// CHECK-NEXT: return %[[X]] : tensor<4x?xf32>
func.func @cast_same_type(%x: tensor<4x?xf32>) -> tensor<4x?xf32> {
  %0 = tide.cast %x : tensor<4x?xf32> to tensor<4x?xf32>
  return %0 : tensor<4x?xf32>
}

// f32 -> f64 -> f32 stays: Tide never hides a precision change.
// CHECK-LABEL: func.func @negative_cast_round_trip(
// CHECK-SAME: %[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: %[[D:.*]] = tide.cast %[[X]] : tensor<4xf32> to tensor<4xf64>
// CHECK-NEXT: %[[F:.*]] = tide.cast %[[D]] : tensor<4xf64> to tensor<4xf32>
// CHECK-NEXT: return %[[F]] : tensor<4xf32>
func.func @negative_cast_round_trip(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tide.cast %x : tensor<4xf32> to tensor<4xf64>
  %1 = tide.cast %0 : tensor<4xf64> to tensor<4xf32>
  return %1 : tensor<4xf32>
}

//===----------------------------------------------------------------------===//
// transpose
//===----------------------------------------------------------------------===//

// Transposes compose to perm inner[outer[i]] (the wrong order would give [2, 1, 0]).
// CHECK-LABEL: func.func @transpose_compose(
// CHECK-SAME: %[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[T:.*]] = tide.transpose %[[X]] perm = [0, 2, 1] : tensor<2x3x4xf32>
// CHECK-NEXT: return %[[T]] : tensor<2x4x3xf32>
func.func @transpose_compose(%x: tensor<2x3x4xf32>) -> tensor<2x4x3xf32> {
  %0 = tide.transpose %x perm = [1, 0, 2] : tensor<2x3x4xf32>
  %1 = tide.transpose %0 perm = [1, 2, 0] : tensor<3x2x4xf32>
  return %1 : tensor<2x4x3xf32>
}

// Composing two rotations of a rank-3 tensor gives the other rotation.
// CHECK-LABEL: func.func @transpose_compose_rotations(
// CHECK-SAME: %[[X:.*]]: tensor<2x3x?xi32>)
// CHECK-NEXT: %[[T:.*]] = tide.transpose %[[X]] perm = [2, 0, 1] : tensor<2x3x?xi32>
// CHECK-NEXT: return %[[T]] : tensor<?x2x3xi32>
func.func @transpose_compose_rotations(%x: tensor<2x3x?xi32>)
    -> tensor<?x2x3xi32> {
  %0 = tide.transpose %x perm = [1, 2, 0] : tensor<2x3x?xi32>
  %1 = tide.transpose %0 perm = [1, 2, 0] : tensor<3x?x2xi32>
  return %1 : tensor<?x2x3xi32>
}

// The identity permutation folds away.
// CHECK-LABEL: func.func @transpose_identity(
// CHECK-SAME: %[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]] : tensor<2x3xf32>
func.func @transpose_identity(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tide.transpose %x perm = [0, 1] : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// A transpose followed by its inverse disappears entirely.
// CHECK-LABEL: func.func @transpose_cancel(
// CHECK-SAME: %[[X:.*]]: tensor<2x3x4xf16>)
// CHECK-NEXT: return %[[X]] : tensor<2x3x4xf16>
func.func @transpose_cancel(%x: tensor<2x3x4xf16>) -> tensor<2x3x4xf16> {
  %0 = tide.transpose %x perm = [1, 2, 0] : tensor<2x3x4xf16>
  %1 = tide.transpose %0 perm = [2, 0, 1] : tensor<3x4x2xf16>
  return %1 : tensor<2x3x4xf16>
}

// Constants fold: element (i, j, k) of the result is element (k, i, j) of the
// input (PyTorch's TorchScript exporter transposes a Pad's pads, which the
// ONNX importer must know).
// CHECK-LABEL: func.func @transpose_constant(
// CHECK-NEXT: %[[C:.*]] = tide.constant dense<{{\[\[}}[0, 6], [1, 7], [2, 8]], {{\[\[}}3, 9], [4, 10], [5, 11]]]> : tensor<2x3x2xi64>
// CHECK-NEXT: return %[[C]]
func.func @transpose_constant() -> tensor<2x3x2xi64> {
  %c = tide.constant dense<[[[0, 1, 2], [3, 4, 5]], [[6, 7, 8], [9, 10, 11]]]> : tensor<2x2x3xi64>
  %0 = tide.transpose %c perm = [1, 2, 0] : tensor<2x2x3xi64>
  return %0 : tensor<2x3x2xi64>
}

// A splat folds whatever its size.
// CHECK-LABEL: func.func @transpose_splat(
// CHECK-NEXT: %[[C:.*]] = tide.constant dense<1.500000e+00> : tensor<300x200xf32>
// CHECK-NEXT: return %[[C]]
func.func @transpose_splat() -> tensor<300x200xf32> {
  %c = tide.constant dense<1.5> : tensor<200x300xf32>
  %0 = tide.transpose %c perm = [1, 0] : tensor<200x300xf32>
  return %0 : tensor<300x200xf32>
}

//===----------------------------------------------------------------------===//
// reshape
//===----------------------------------------------------------------------===//

// reshape of reshape becomes one reshape of the original value.
// CHECK-LABEL: func.func @reshape_compose(
// CHECK-SAME: %[[X:.*]]: tensor<?x4xf32>)
// CHECK-NEXT: %[[R:.*]] = tide.reshape %[[X]] : tensor<?x4xf32> to tensor<2x?xf32>
// CHECK-NEXT: return %[[R]] : tensor<2x?xf32>
func.func @reshape_compose(%x: tensor<?x4xf32>) -> tensor<2x?xf32> {
  %0 = tide.reshape %x : tensor<?x4xf32> to tensor<?xf32>
  %1 = tide.reshape %0 : tensor<?xf32> to tensor<2x?xf32>
  return %1 : tensor<2x?xf32>
}

// A reshape to the same type folds.
// CHECK-LABEL: func.func @reshape_same_type(
// CHECK-SAME: %[[X:.*]]: tensor<2x3xbf16>)
// CHECK-NEXT: return %[[X]] : tensor<2x3xbf16>
func.func @reshape_same_type(%x: tensor<2x3xbf16>) -> tensor<2x3xbf16> {
  %0 = tide.reshape %x : tensor<2x3xbf16> to tensor<2x3xbf16>
  return %0 : tensor<2x3xbf16>
}

// A reshape pair back to the original type composes, then folds away.
// CHECK-LABEL: func.func @reshape_pair_cancels(
// CHECK-SAME: %[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]] : tensor<2x3xf32>
func.func @reshape_pair_cancels(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tide.reshape %x : tensor<2x3xf32> to tensor<6xf32>
  %1 = tide.reshape %0 : tensor<6xf32> to tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// reshape of a constant is a constant of the new shape (row-major).
// CHECK-LABEL: func.func @reshape_constant(
// CHECK-NEXT: %[[C:.*]] = tide.constant dense<{{\[}}[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
// CHECK-NEXT: return %[[C]] : tensor<2x3xi64>
func.func @reshape_constant() -> tensor<2x3xi64> {
  %c = tide.constant dense<[1, 2, 3, 4, 5, 6]> : tensor<6xi64>
  %0 = tide.reshape %c : tensor<6xi64> to tensor<2x3xi64>
  return %0 : tensor<2x3xi64>
}

//===----------------------------------------------------------------------===//
// broadcast_to, concat, transfer
//===----------------------------------------------------------------------===//

// broadcast_to the operand's own type folds.
// CHECK-LABEL: func.func @broadcast_to_same_type(
// CHECK-SAME: %[[X:.*]]: tensor<?x3xf32>)
// CHECK-NEXT: return %[[X]] : tensor<?x3xf32>
func.func @broadcast_to_same_type(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %0 = tide.broadcast_to %x : tensor<?x3xf32> to tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// broadcast_to of a splat constant is a bigger splat constant.
// CHECK-LABEL: func.func @broadcast_to_splat(
// CHECK-NEXT: %[[C:.*]] = tide.constant dense<2.000000e+00> : tensor<4x3xf32>
// CHECK-NEXT: return %[[C]] : tensor<4x3xf32>
func.func @broadcast_to_splat() -> tensor<4x3xf32> {
  %c = tide.constant dense<2.0> : tensor<3xf32>
  %0 = tide.broadcast_to %c : tensor<3xf32> to tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// concat of a single input is that input.
// CHECK-LABEL: func.func @concat_single_input(
// CHECK-SAME: %[[X:.*]]: tensor<4x?xi8>)
// CHECK-NEXT: return %[[X]] : tensor<4x?xi8>
func.func @concat_single_input(%x: tensor<4x?xi8>) -> tensor<4x?xi8> {
  %0 = tide.concat %x axis = 1 : tensor<4x?xi8>
  return %0 : tensor<4x?xi8>
}

// A transfer to the device that produced the value is a no-op.
// CHECK-LABEL: func.func @transfer_same_device(
// CHECK-SAME: %[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: %[[E:.*]] = tide.exp %[[X]] {tide.device = #tide.device<cuda:0>} : tensor<4xf32>
// CHECK-NEXT: return %[[E]] : tensor<4xf32>
func.func @transfer_same_device(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tide.exp %x {tide.device = #tide.device<cuda:0>} : tensor<4xf32>
  %1 = tide.transfer %0 : tensor<4xf32> to #tide.device<cuda:0>
  return %1 : tensor<4xf32>
}

// A transfer's result lives on its destination (cuda:0), so copying it back to cpu stays.
// CHECK-LABEL: func.func @negative_transfer_back(
// CHECK-SAME: %[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: %[[G:.*]] = tide.transfer %[[X]] {tide.device = #tide.device<cpu>} : tensor<4xf32> to #tide.device<cuda:0>
// CHECK-NEXT: %[[H:.*]] = tide.transfer %[[G]] : tensor<4xf32> to #tide.device<cpu>
// CHECK-NEXT: return %[[H]] : tensor<4xf32>
func.func @negative_transfer_back(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tide.transfer %x {tide.device = #tide.device<cpu>}
      : tensor<4xf32> to #tide.device<cuda:0>
  %1 = tide.transfer %0 : tensor<4xf32> to #tide.device<cpu>
  return %1 : tensor<4xf32>
}

//===----------------------------------------------------------------------===//
// Constant folding of elementwise ops
//===----------------------------------------------------------------------===//

// neg on f32 (0.0 becomes -0.0).
// CHECK-LABEL: func.func @fold_neg(
// CHECK-NEXT: %[[C:.*]] = tide.constant dense<[-1.000000e+00, 2.500000e+00, -0.000000e+00, -4.000000e+00]> : tensor<4xf32>
// CHECK-NEXT: return %[[C]] : tensor<4xf32>
func.func @fold_neg() -> tensor<4xf32> {
  %c = tide.constant dense<[1.0, -2.5, 0.0, 4.0]> : tensor<4xf32>
  %0 = tide.neg %c : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// neg on integers.
// CHECK-LABEL: func.func @fold_neg_int(
// CHECK-NEXT: %[[C:.*]] = tide.constant dense<[-5, 0, 9]> : tensor<3xi16>
// CHECK-NEXT: return %[[C]] : tensor<3xi16>
func.func @fold_neg_int() -> tensor<3xi16> {
  %c = tide.constant dense<[5, 0, -9]> : tensor<3xi16>
  %0 = tide.neg %c : tensor<3xi16>
  return %0 : tensor<3xi16>
}

// abs on integers.
// CHECK-LABEL: func.func @fold_abs_int(
// CHECK-NEXT: %[[C:.*]] = tide.constant dense<[3, 0, 7]> : tensor<3xi32>
// CHECK-NEXT: return %[[C]] : tensor<3xi32>
func.func @fold_abs_int() -> tensor<3xi32> {
  %c = tide.constant dense<[-3, 0, 7]> : tensor<3xi32>
  %0 = tide.abs %c : tensor<3xi32>
  return %0 : tensor<3xi32>
}

// abs on f64.
// CHECK-LABEL: func.func @fold_abs_float(
// CHECK-NEXT: %[[C:.*]] = tide.constant dense<[1.500000e+00, 2.000000e+00]> : tensor<2xf64>
// CHECK-NEXT: return %[[C]] : tensor<2xf64>
func.func @fold_abs_float() -> tensor<2xf64> {
  %c = tide.constant dense<[-1.5, 2.0]> : tensor<2xf64>
  %0 = tide.abs %c : tensor<2xf64>
  return %0 : tensor<2xf64>
}

// exp on f32, rounded to f32 (e = 2.71828175 in f32).
// CHECK-LABEL: func.func @fold_exp(
// CHECK-NEXT: %[[C:.*]] = tide.constant dense<[1.000000e+00, 2.71828175]> : tensor<2xf32>
// CHECK-NEXT: return %[[C]] : tensor<2xf32>
func.func @fold_exp() -> tensor<2xf32> {
  %c = tide.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %0 = tide.exp %c : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// exp on f16 rounds to f16 (e = 2.71875 in f16).
// CHECK-LABEL: func.func @fold_exp_f16(
// CHECK-NEXT: %[[C:.*]] = tide.constant dense<[1.000000e+00, 2.718750e+00]> : tensor<2xf16>
// CHECK-NEXT: return %[[C]] : tensor<2xf16>
func.func @fold_exp_f16() -> tensor<2xf16> {
  %c = tide.constant dense<[0.0, 1.0]> : tensor<2xf16>
  %0 = tide.exp %c : tensor<2xf16>
  return %0 : tensor<2xf16>
}

// sqrt on f32 (exact squares).
// CHECK-LABEL: func.func @fold_sqrt(
// CHECK-NEXT: %[[C:.*]] = tide.constant dense<[2.000000e+00, 1.500000e+00, 0.000000e+00]> : tensor<3xf32>
// CHECK-NEXT: return %[[C]] : tensor<3xf32>
func.func @fold_sqrt() -> tensor<3xf32> {
  %c = tide.constant dense<[4.0, 2.25, 0.0]> : tensor<3xf32>
  %0 = tide.sqrt %c : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// relu on f32: negatives (and -0.0) become +0.0.
// CHECK-LABEL: func.func @fold_relu(
// CHECK-NEXT: %[[C:.*]] = tide.constant dense<[0.000000e+00, 0.000000e+00, 2.500000e+00]> : tensor<3xf32>
// CHECK-NEXT: return %[[C]] : tensor<3xf32>
func.func @fold_relu() -> tensor<3xf32> {
  %c = tide.constant dense<[-1.5, -0.0, 2.5]> : tensor<3xf32>
  %0 = tide.relu %c : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// relu on integers.
// CHECK-LABEL: func.func @fold_relu_int(
// CHECK-NEXT: %[[C:.*]] = tide.constant dense<[0, 0, 4]> : tensor<3xi8>
// CHECK-NEXT: return %[[C]] : tensor<3xi8>
func.func @fold_relu_int() -> tensor<3xi8> {
  %c = tide.constant dense<[-128, 0, 4]> : tensor<3xi8>
  %0 = tide.relu %c : tensor<3xi8>
  return %0 : tensor<3xi8>
}

// floor rounds toward -inf.
// CHECK-LABEL: func.func @fold_floor(
// CHECK-NEXT: %[[C:.*]] = tide.constant dense<[-2.000000e+00, 1.000000e+00, 2.000000e+00]> : tensor<3xf32>
// CHECK-NEXT: return %[[C]] : tensor<3xf32>
func.func @fold_floor() -> tensor<3xf32> {
  %c = tide.constant dense<[-1.5, 1.5, 2.0]> : tensor<3xf32>
  %0 = tide.floor %c : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// ceil rounds toward +inf.
// CHECK-LABEL: func.func @fold_ceil(
// CHECK-NEXT: %[[C:.*]] = tide.constant dense<[-1.000000e+00, 2.000000e+00, 2.000000e+00]> : tensor<3xf32>
// CHECK-NEXT: return %[[C]] : tensor<3xf32>
func.func @fold_ceil() -> tensor<3xf32> {
  %c = tide.constant dense<[-1.5, 1.5, 2.0]> : tensor<3xf32>
  %0 = tide.ceil %c : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// not on i1 is logical negation.
// CHECK-LABEL: func.func @fold_not_i1(
// CHECK-NEXT: %[[C:.*]] = tide.constant dense<[false, true]> : tensor<2xi1>
// CHECK-NEXT: return %[[C]] : tensor<2xi1>
func.func @fold_not_i1() -> tensor<2xi1> {
  %c = tide.constant dense<[true, false]> : tensor<2xi1>
  %0 = tide.not %c : tensor<2xi1>
  return %0 : tensor<2xi1>
}

// not on i32 is bitwise: ~x == -x - 1.
// CHECK-LABEL: func.func @fold_not_i32(
// CHECK-NEXT: %[[C:.*]] = tide.constant dense<[-6, 5, -1]> : tensor<3xi32>
// CHECK-NEXT: return %[[C]] : tensor<3xi32>
func.func @fold_not_i32() -> tensor<3xi32> {
  %c = tide.constant dense<[5, -6, 0]> : tensor<3xi32>
  %0 = tide.not %c : tensor<3xi32>
  return %0 : tensor<3xi32>
}

// add on f32.
// CHECK-LABEL: func.func @fold_add(
// CHECK-NEXT: %[[C:.*]] = tide.constant dense<[1.750000e+00, -2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT: return %[[C]] : tensor<2xf32>
func.func @fold_add() -> tensor<2xf32> {
  %a = tide.constant dense<[1.5, 2.0]> : tensor<2xf32>
  %b = tide.constant dense<[0.25, -4.0]> : tensor<2xf32>
  %0 = tide.add %a, %b : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// add on integers, with a splat operand.
// CHECK-LABEL: func.func @fold_add_int(
// CHECK-NEXT: %[[C:.*]] = tide.constant dense<[11, 8, 10]> : tensor<3xi64>
// CHECK-NEXT: return %[[C]] : tensor<3xi64>
func.func @fold_add_int() -> tensor<3xi64> {
  %a = tide.constant dense<[1, -2, 0]> : tensor<3xi64>
  %b = tide.constant dense<10> : tensor<3xi64>
  %0 = tide.add %a, %b : tensor<3xi64>
  return %0 : tensor<3xi64>
}

// sub on f32.
// CHECK-LABEL: func.func @fold_sub(
// CHECK-NEXT: %[[C:.*]] = tide.constant dense<[1.250000e+00, 6.000000e+00]> : tensor<2xf32>
// CHECK-NEXT: return %[[C]] : tensor<2xf32>
func.func @fold_sub() -> tensor<2xf32> {
  %a = tide.constant dense<[1.5, 2.0]> : tensor<2xf32>
  %b = tide.constant dense<[0.25, -4.0]> : tensor<2xf32>
  %0 = tide.sub %a, %b : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// mul on f32.
// CHECK-LABEL: func.func @fold_mul(
// CHECK-NEXT: %[[C:.*]] = tide.constant dense<[3.750000e-01, -8.000000e+00]> : tensor<2xf32>
// CHECK-NEXT: return %[[C]] : tensor<2xf32>
func.func @fold_mul() -> tensor<2xf32> {
  %a = tide.constant dense<[1.5, 2.0]> : tensor<2xf32>
  %b = tide.constant dense<[0.25, -4.0]> : tensor<2xf32>
  %0 = tide.mul %a, %b : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// div on f32.
// CHECK-LABEL: func.func @fold_div(
// CHECK-NEXT: %[[C:.*]] = tide.constant dense<[6.000000e+00, -5.000000e-01]> : tensor<2xf32>
// CHECK-NEXT: return %[[C]] : tensor<2xf32>
func.func @fold_div() -> tensor<2xf32> {
  %a = tide.constant dense<[1.5, 2.0]> : tensor<2xf32>
  %b = tide.constant dense<[0.25, -4.0]> : tensor<2xf32>
  %0 = tide.div %a, %b : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// Integer div truncates toward zero (-7 / 2 == -3).
// CHECK-LABEL: func.func @fold_div_int(
// CHECK-NEXT: %[[C:.*]] = tide.constant dense<[3, -3, -3, 3]> : tensor<4xi32>
// CHECK-NEXT: return %[[C]] : tensor<4xi32>
func.func @fold_div_int() -> tensor<4xi32> {
  %a = tide.constant dense<[7, -7, 7, -7]> : tensor<4xi32>
  %b = tide.constant dense<[2, 2, -2, -2]> : tensor<4xi32>
  %0 = tide.div %a, %b : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// Integer division by zero is left for run time.
// CHECK-LABEL: func.func @negative_div_int_by_zero(
// CHECK-DAG: %[[A:.*]] = tide.constant dense<[7, -7]> : tensor<2xi32>
// CHECK-DAG: %[[B:.*]] = tide.constant dense<[2, 0]> : tensor<2xi32>
// CHECK: %[[D:.*]] = tide.div %[[A]], %[[B]] : tensor<2xi32>
// CHECK-NEXT: return %[[D]] : tensor<2xi32>
func.func @negative_div_int_by_zero() -> tensor<2xi32> {
  %a = tide.constant dense<[7, -7]> : tensor<2xi32>
  %b = tide.constant dense<[2, 0]> : tensor<2xi32>
  %0 = tide.div %a, %b : tensor<2xi32>
  return %0 : tensor<2xi32>
}

// INT_MIN / -1 overflows and is left for run time as well.
// CHECK-LABEL: func.func @negative_div_int_overflow(
// CHECK: %[[D:.*]] = tide.div
// CHECK-NEXT: return %[[D]] : tensor<1xi8>
func.func @negative_div_int_overflow() -> tensor<1xi8> {
  %a = tide.constant dense<-128> : tensor<1xi8>
  %b = tide.constant dense<-1> : tensor<1xi8>
  %0 = tide.div %a, %b : tensor<1xi8>
  return %0 : tensor<1xi8>
}

// maximum on f32 and on (signed) integers.
// CHECK-LABEL: func.func @fold_maximum(
// CHECK-DAG: %[[F:.*]] = tide.constant dense<[1.500000e+00, 3.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[I:.*]] = tide.constant dense<[5, -1]> : tensor<2xi8>
// CHECK-NOT: tide.maximum
// CHECK: return %[[F]], %[[I]] : tensor<2xf32>, tensor<2xi8>
func.func @fold_maximum() -> (tensor<2xf32>, tensor<2xi8>) {
  %a = tide.constant dense<[1.5, -2.0]> : tensor<2xf32>
  %b = tide.constant dense<[0.5, 3.0]> : tensor<2xf32>
  %0 = tide.maximum %a, %b : tensor<2xf32>
  %c = tide.constant dense<[5, -128]> : tensor<2xi8>
  %d = tide.constant dense<[-3, -1]> : tensor<2xi8>
  %1 = tide.maximum %c, %d : tensor<2xi8>
  return %0, %1 : tensor<2xf32>, tensor<2xi8>
}

// minimum on f32 and on (signed) integers.
// CHECK-LABEL: func.func @fold_minimum(
// CHECK-DAG: %[[F:.*]] = tide.constant dense<[5.000000e-01, -2.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[I:.*]] = tide.constant dense<[-3, -128]> : tensor<2xi8>
// CHECK-NOT: tide.minimum
// CHECK: return %[[F]], %[[I]] : tensor<2xf32>, tensor<2xi8>
func.func @fold_minimum() -> (tensor<2xf32>, tensor<2xi8>) {
  %a = tide.constant dense<[1.5, -2.0]> : tensor<2xf32>
  %b = tide.constant dense<[0.5, 3.0]> : tensor<2xf32>
  %0 = tide.minimum %a, %b : tensor<2xf32>
  %c = tide.constant dense<[5, -128]> : tensor<2xi8>
  %d = tide.constant dense<[-3, -1]> : tensor<2xi8>
  %1 = tide.minimum %c, %d : tensor<2xi8>
  return %0, %1 : tensor<2xf32>, tensor<2xi8>
}

// and / or on i1 are logical.
// CHECK-LABEL: func.func @fold_and_or_i1(
// CHECK-DAG: %[[AND:.*]] = tide.constant dense<[true, false, false, false]> : tensor<4xi1>
// CHECK-DAG: %[[OR:.*]] = tide.constant dense<[true, true, true, false]> : tensor<4xi1>
// CHECK-NOT: tide.and
// CHECK-NOT: tide.or
// CHECK: return %[[AND]], %[[OR]] : tensor<4xi1>, tensor<4xi1>
func.func @fold_and_or_i1() -> (tensor<4xi1>, tensor<4xi1>) {
  %a = tide.constant dense<[true, true, false, false]> : tensor<4xi1>
  %b = tide.constant dense<[true, false, true, false]> : tensor<4xi1>
  %0 = tide.and %a, %b : tensor<4xi1>
  %1 = tide.or %a, %b : tensor<4xi1>
  return %0, %1 : tensor<4xi1>, tensor<4xi1>
}

// and / or on i32 are bitwise (12 & 10 == 8, 12 | 10 == 14).
// CHECK-LABEL: func.func @fold_and_or_i32(
// CHECK-DAG: %[[AND:.*]] = tide.constant dense<[8, 6]> : tensor<2xi32>
// CHECK-DAG: %[[OR:.*]] = tide.constant dense<[14, -1]> : tensor<2xi32>
// CHECK-NOT: tide.and
// CHECK-NOT: tide.or
// CHECK: return %[[AND]], %[[OR]] : tensor<2xi32>, tensor<2xi32>
func.func @fold_and_or_i32() -> (tensor<2xi32>, tensor<2xi32>) {
  %a = tide.constant dense<[12, -1]> : tensor<2xi32>
  %b = tide.constant dense<[10, 6]> : tensor<2xi32>
  %0 = tide.and %a, %b : tensor<2xi32>
  %1 = tide.or %a, %b : tensor<2xi32>
  return %0, %1 : tensor<2xi32>, tensor<2xi32>
}

// Constants that broadcast against each other are not folded.
// CHECK-LABEL: func.func @negative_add_broadcast(
// CHECK-DAG: %[[A:.*]] = tide.constant dense<{{\[}}[1.000000e+00], [2.000000e+00]]> : tensor<2x1xf32>
// CHECK-DAG: %[[B:.*]] = tide.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>
// CHECK: %[[S:.*]] = tide.add %[[A]], %[[B]] : tensor<2x1xf32>, tensor<3xf32>
// CHECK-NEXT: return %[[S]] : tensor<2x3xf32>
func.func @negative_add_broadcast() -> tensor<2x3xf32> {
  %a = tide.constant dense<[[1.0], [2.0]]> : tensor<2x1xf32>
  %b = tide.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %0 = tide.add %a, %b : tensor<2x1xf32>, tensor<3xf32>
  return %0 : tensor<2x3xf32>
}

// A large splat is cheap to fold, whatever its element count.
// CHECK-LABEL: func.func @fold_large_splat(
// CHECK-NEXT: %[[C:.*]] = tide.constant dense<-3> : tensor<100000xi32>
// CHECK-NEXT: return %[[C]] : tensor<100000xi32>
func.func @fold_large_splat() -> tensor<100000xi32> {
  %c = tide.constant dense<3> : tensor<100000xi32>
  %0 = tide.neg %c : tensor<100000xi32>
  return %0 : tensor<100000xi32>
}

// A non-splat constant of more than 4096 elements (4097 x i8) is not folded.
// CHECK-LABEL: func.func @negative_fold_large_constant(
// CHECK-NEXT: %[[C:.*]] = tide.constant dense<"0x{{[0-9A-F]+}}"> : tensor<4097xi8>
// CHECK-NEXT: %[[N:.*]] = tide.neg %[[C]] : tensor<4097xi8>
// CHECK-NEXT: return %[[N]] : tensor<4097xi8>
func.func @negative_fold_large_constant() -> tensor<4097xi8> {
  %c = tide.constant dense<"0x000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F404142434445464748494A4B4C4D4E4F505152535455565758595A5B5C5D5E5F606162636465666768696A6B6C6D6E6F707172737475767778797A7B7C7D7E7F808182838485868788898A8B8C8D8E8F909192939495969798999A9B9C9D9E9FA0A1A2A3A4A5A6A7A8A9AAABACADAEAFB0B1B2B3B4B5B6B7B8B9BABBBCBDBEBFC0C1C2C3C4C5C6C7C8C9CACBCCCDCECFD0D1D2D3D4D5D6D7D8D9DADBDCDDDEDFE0E1E2E3E4E5E6E7E8E9EAEBECEDEEEFF0F1F2F3F4F5F6F7F8F9FA000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F404142434445464748494A4B4C4D4E4F505152535455565758595A5B5C5D5E5F606162636465666768696A6B6C6D6E6F707172737475767778797A7B7C7D7E7F808182838485868788898A8B8C8D8E8F909192939495969798999A9B9C9D9E9FA0A1A2A3A4A5A6A7A8A9AAABACADAEAFB0B1B2B3B4B5B6B7B8B9BABBBCBDBEBFC0C1C2C3C4C5C6C7C8C9CACBCCCDCECFD0D1D2D3D4D5D6D7D8D9DADBDCDDDEDFE0E1E2E3E4E5E6E7E8E9EAEBECEDEEEFF0F1F2F3F4F5F6F7F8F9FA000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F404142434445464748494A4B4C4D4E4F505152535455565758595A5B5C5D5E5F606162636465666768696A6B6C6D6E6F707172737475767778797A7B7C7D7E7F808182838485868788898A8B8C8D8E8F909192939495969798999A9B9C9D9E9FA0A1A2A3A4A5A6A7A8A9AAABACADAEAFB0B1B2B3B4B5B6B7B8B9BABBBCBDBEBFC0C1C2C3C4C5C6C7C8C9CACBCCCDCECFD0D1D2D3D4D5D6D7D8D9DADBDCDDDEDFE0E1E2E3E4E5E6E7E8E9EAEBECEDEEEFF0F1F2F3F4F5F6F7F8F9FA000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F404142434445464748494A4B4C4D4E4F505152535455565758595A5B5C5D5E5F606162636465666768696A6B6C6D6E6F707172737475767778797A7B7C7D7E7F808182838485868788898A8B8C8D8E8F909192939495969798999A9B9C9D9E9FA0A1A2A3A4A5A6A7A8A9AAABACADAEAFB0B1B2B3B4B5B6B7B8B9BABBBCBDBEBFC0C1C2C3C4C5C6C7C8C9CACBCCCDCECFD0D1D2D3D4D5D6D7D8D9DADBDCDDDEDFE0E1E2E3E4E5E6E7E8E9EAEBECEDEEEFF0F1F2F3F4F5F6F7F8F9FA000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F404142434445464748494A4B4C4D4E4F505152535455565758595A5B5C5D5E5F606162636465666768696A6B6C6D6E6F707172737475767778797A7B7C7D7E7F808182838485868788898A8B8C8D8E8F909192939495969798999A9B9C9D9E9FA0A1A2A3A4A5A6A7A8A9AAABACADAEAFB0B1B2B3B4B5B6B7B8B9BABBBCBDBEBFC0C1C2C3C4C5C6C7C8C9CACBCCCDCECFD0D1D2D3D4D5D6D7D8D9DADBDCDDDEDFE0E1E2E3E4E5E6E7E8E9EAEBECEDEEEFF0F1F2F3F4F5F6F7F8F9FA000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F404142434445464748494A4B4C4D4E4F505152535455565758595A5B5C5D5E5F606162636465666768696A6B6C6D6E6F707172737475767778797A7B7C7D7E7F808182838485868788898A8B8C8D8E8F909192939495969798999A9B9C9D9E9FA0A1A2A3A4A5A6A7A8A9AAABACADAEAFB0B1B2B3B4B5B6B7B8B9BABBBCBDBEBFC0C1C2C3C4C5C6C7C8C9CACBCCCDCECFD0D1D2D3D4D5D6D7D8D9DADBDCDDDEDFE0E1E2E3E4E5E6E7E8E9EAEBECEDEEEFF0F1F2F3F4F5F6F7F8F9FA000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F404142434445464748494A4B4C4D4E4F505152535455565758595A5B5C5D5E5F606162636465666768696A6B6C6D6E6F707172737475767778797A7B7C7D7E7F808182838485868788898A8B8C8D8E8F909192939495969798999A9B9C9D9E9FA0A1A2A3A4A5A6A7A8A9AAABACADAEAFB0B1B2B3B4B5B6B7B8B9BABBBCBDBEBFC0C1C2C3C4C5C6C7C8C9CACBCCCDCECFD0D1D2D3D4D5D6D7D8D9DADBDCDDDEDFE0E1E2E3E4E5E6E7E8E9EAEBECEDEEEFF0F1F2F3F4F5F6F7F8F9FA000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F404142434445464748494A4B4C4D4E4F505152535455565758595A5B5C5D5E5F606162636465666768696A6B6C6D6E6F707172737475767778797A7B7C7D7E7F808182838485868788898A8B8C8D8E8F909192939495969798999A9B9C9D9E9FA0A1A2A3A4A5A6A7A8A9AAABACADAEAFB0B1B2B3B4B5B6B7B8B9BABBBCBDBEBFC0C1C2C3C4C5C6C7C8C9CACBCCCDCECFD0D1D2D3D4D5D6D7D8D9DADBDCDDDEDFE0E1E2E3E4E5E6E7E8E9EAEBECEDEEEFF0F1F2F3F4F5F6F7F8F9FA000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F404142434445464748494A4B4C4D4E4F505152535455565758595A5B5C5D5E5F606162636465666768696A6B6C6D6E6F707172737475767778797A7B7C7D7E7F808182838485868788898A8B8C8D8E8F909192939495969798999A9B9C9D9E9FA0A1A2A3A4A5A6A7A8A9AAABACADAEAFB0B1B2B3B4B5B6B7B8B9BABBBCBDBEBFC0C1C2C3C4C5C6C7C8C9CACBCCCDCECFD0D1D2D3D4D5D6D7D8D9DADBDCDDDEDFE0E1E2E3E4E5E6E7E8E9EAEBECEDEEEFF0F1F2F3F4F5F6F7F8F9FA000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F404142434445464748494A4B4C4D4E4F505152535455565758595A5B5C5D5E5F606162636465666768696A6B6C6D6E6F707172737475767778797A7B7C7D7E7F808182838485868788898A8B8C8D8E8F909192939495969798999A9B9C9D9E9FA0A1A2A3A4A5A6A7A8A9AAABACADAEAFB0B1B2B3B4B5B6B7B8B9BABBBCBDBEBFC0C1C2C3C4C5C6C7C8C9CACBCCCDCECFD0D1D2D3D4D5D6D7D8D9DADBDCDDDEDFE0E1E2E3E4E5E6E7E8E9EAEBECEDEEEFF0F1F2F3F4F5F6F7F8F9FA000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F404142434445464748494A4B4C4D4E4F505152535455565758595A5B5C5D5E5F606162636465666768696A6B6C6D6E6F707172737475767778797A7B7C7D7E7F808182838485868788898A8B8C8D8E8F909192939495969798999A9B9C9D9E9FA0A1A2A3A4A5A6A7A8A9AAABACADAEAFB0B1B2B3B4B5B6B7B8B9BABBBCBDBEBFC0C1C2C3C4C5C6C7C8C9CACBCCCDCECFD0D1D2D3D4D5D6D7D8D9DADBDCDDDEDFE0E1E2E3E4E5E6E7E8E9EAEBECEDEEEFF0F1F2F3F4F5F6F7F8F9FA000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F404142434445464748494A4B4C4D4E4F505152535455565758595A5B5C5D5E5F606162636465666768696A6B6C6D6E6F707172737475767778797A7B7C7D7E7F808182838485868788898A8B8C8D8E8F909192939495969798999A9B9C9D9E9FA0A1A2A3A4A5A6A7A8A9AAABACADAEAFB0B1B2B3B4B5B6B7B8B9BABBBCBDBEBFC0C1C2C3C4C5C6C7C8C9CACBCCCDCECFD0D1D2D3D4D5D6D7D8D9DADBDCDDDEDFE0E1E2E3E4E5E6E7E8E9EAEBECEDEEEFF0F1F2F3F4F5F6F7F8F9FA000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F404142434445464748494A4B4C4D4E4F505152535455565758595A5B5C5D5E5F606162636465666768696A6B6C6D6E6F707172737475767778797A7B7C7D7E7F808182838485868788898A8B8C8D8E8F909192939495969798999A9B9C9D9E9FA0A1A2A3A4A5A6A7A8A9AAABACADAEAFB0B1B2B3B4B5B6B7B8B9BABBBCBDBEBFC0C1C2C3C4C5C6C7C8C9CACBCCCDCECFD0D1D2D3D4D5D6D7D8D9DADBDCDDDEDFE0E1E2E3E4E5E6E7E8E9EAEBECEDEEEFF0F1F2F3F4F5F6F7F8F9FA000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F404142434445464748494A4B4C4D4E4F505152535455565758595A5B5C5D5E5F606162636465666768696A6B6C6D6E6F707172737475767778797A7B7C7D7E7F808182838485868788898A8B8C8D8E8F909192939495969798999A9B9C9D9E9FA0A1A2A3A4A5A6A7A8A9AAABACADAEAFB0B1B2B3B4B5B6B7B8B9BABBBCBDBEBFC0C1C2C3C4C5C6C7C8C9CACBCCCDCECFD0D1D2D3D4D5D6D7D8D9DADBDCDDDEDFE0E1E2E3E4E5E6E7E8E9EAEBECEDEEEFF0F1F2F3F4F5F6F7F8F9FA000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F404142434445464748494A4B4C4D4E4F505152535455565758595A5B5C5D5E5F606162636465666768696A6B6C6D6E6F707172737475767778797A7B7C7D7E7F808182838485868788898A8B8C8D8E8F909192939495969798999A9B9C9D9E9FA0A1A2A3A4A5A6A7A8A9AAABACADAEAFB0B1B2B3B4B5B6B7B8B9BABBBCBDBEBFC0C1C2C3C4C5C6C7C8C9CACBCCCDCECFD0D1D2D3D4D5D6D7D8D9DADBDCDDDEDFE0E1E2E3E4E5E6E7E8E9EAEBECEDEEEFF0F1F2F3F4F5F6F7F8F9FA000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F404142434445464748494A4B4C4D4E4F505152535455565758595A5B5C5D5E5F606162636465666768696A6B6C6D6E6F707172737475767778797A7B7C7D7E7F808182838485868788898A8B8C8D8E8F909192939495969798999A9B9C9D9E9FA0A1A2A3A4A5A6A7A8A9AAABACADAEAFB0B1B2B3B4B5B6B7B8B9BABBBCBDBEBFC0C1C2C3C4C5C6C7C8C9CACBCCCDCECFD0D1D2D3D4D5D6D7D8D9DADBDCDDDEDFE0E1E2E3E4E5E6E7E8E9EAEBECEDEEEFF0F1F2F3F4F5F6F7F8F9FA000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F404142434445464748494A4B4C4D4E4F50"> : tensor<4097xi8>
  %0 = tide.neg %c : tensor<4097xi8>
  return %0 : tensor<4097xi8>
}

//===----------------------------------------------------------------------===//
// Unsigned integers
//===----------------------------------------------------------------------===//

// Unsigned division, maximum and minimum read 200 as 200, not -56.
// CHECK-LABEL: func.func @fold_unsigned(
// CHECK-DAG: %[[D:.*]] = tide.constant dense<[66, 0]> : tensor<2xui8>
// CHECK-DAG: %[[MAX:.*]] = tide.constant dense<[200, 7]> : tensor<2xui8>
// CHECK-DAG: %[[MIN:.*]] = tide.constant dense<[3, 2]> : tensor<2xui8>
// CHECK-NOT: tide.div
// CHECK-NOT: tide.maximum
// CHECK-NOT: tide.minimum
// CHECK: return %[[D]], %[[MAX]], %[[MIN]]
func.func @fold_unsigned() -> (tensor<2xui8>, tensor<2xui8>, tensor<2xui8>) {
  %a = tide.constant dense<[200, 2]> : tensor<2xui8>
  %b = tide.constant dense<[3, 7]> : tensor<2xui8>
  %0 = tide.div %a, %b : tensor<2xui8>
  %1 = tide.maximum %a, %b : tensor<2xui8>
  %2 = tide.minimum %a, %b : tensor<2xui8>
  return %0, %1, %2 : tensor<2xui8>, tensor<2xui8>, tensor<2xui8>
}

// abs and relu of unsigned values are the identity; neg wraps (2^8 - x).
// CHECK-LABEL: func.func @fold_unsigned_unary(
// CHECK-DAG: %[[X:.*]] = tide.constant dense<[200, 0]> : tensor<2xui8>
// CHECK-DAG: %[[N:.*]] = tide.constant dense<[56, 0]> : tensor<2xui8>
// CHECK-NOT: tide.abs
// CHECK-NOT: tide.relu
// CHECK: return %[[X]], %[[X]], %[[N]]
func.func @fold_unsigned_unary() -> (tensor<2xui8>, tensor<2xui8>, tensor<2xui8>) {
  %a = tide.constant dense<[200, 0]> : tensor<2xui8>
  %0 = tide.abs %a : tensor<2xui8>
  %1 = tide.relu %a : tensor<2xui8>
  %2 = tide.neg %a : tensor<2xui8>
  return %0, %1, %2 : tensor<2xui8>, tensor<2xui8>, tensor<2xui8>
}

// Unsigned division by zero is left for run time, like the signed one.
// CHECK-LABEL: func.func @negative_div_unsigned_by_zero(
// CHECK: %[[D:.*]] = tide.div
// CHECK-NEXT: return %[[D]] : tensor<1xui16>
func.func @negative_div_unsigned_by_zero() -> tensor<1xui16> {
  %a = tide.constant dense<7> : tensor<1xui16>
  %b = tide.constant dense<0> : tensor<1xui16>
  %0 = tide.div %a, %b : tensor<1xui16>
  return %0 : tensor<1xui16>
}

//===----------------------------------------------------------------------===//
// Run-time sizes: dim, iota, dynamic_slice, shape operands
//===----------------------------------------------------------------------===//

// dim of a static dimension is a constant; of a dynamic one it stays.
// CHECK-LABEL: func.func @dim_static(
// CHECK-SAME: %[[X:.*]]: tensor<?x16xf32>)
// CHECK-DAG: %[[C:.*]] = tide.constant dense<16> : tensor<1xi64>
// CHECK-DAG: %[[D:.*]] = tide.dim %[[X]] axis = 0 : tensor<?x16xf32>
// CHECK: return %[[D]], %[[C]]
func.func @dim_static(%x: tensor<?x16xf32>) -> (tensor<1xi64>, tensor<1xi64>) {
  %0 = tide.dim %x axis = 0 : tensor<?x16xf32>
  %1 = tide.dim %x axis = 1 : tensor<?x16xf32>
  return %0, %1 : tensor<1xi64>, tensor<1xi64>
}

// A check whose condition is a constant true is its input.
// CHECK-LABEL: func.func @check_true(
// CHECK-SAME: %[[X:.*]]: tensor<?xf32>)
// CHECK-NEXT: return %[[X]]
func.func @check_true(%x: tensor<?xf32>) -> tensor<?xf32> {
  %c = tide.constant dense<true> : tensor<1xi1>
  %0 = tide.check %x, %c, "never fails" : tensor<?xf32>, tensor<1xi1>
  return %0 : tensor<?xf32>
}

// A constant false stays: the call fails when it runs.
// CHECK-LABEL: func.func @negative_check_false(
// CHECK: tide.check
func.func @negative_check_false(%x: tensor<?xf32>) -> tensor<?xf32> {
  %c = tide.constant dense<false> : tensor<i1>
  %0 = tide.check %x, %c, "always fails" : tensor<?xf32>, tensor<i1>
  return %0 : tensor<?xf32>
}

// iota of a static shape is a constant.
// CHECK-LABEL: func.func @iota_static(
// CHECK-NEXT: %[[C:.*]] = tide.constant dense<{{\[}}[0.000000e+00, 1.000000e+00, 2.000000e+00], [0.000000e+00, 1.000000e+00, 2.000000e+00]]> : tensor<2x3xf32>
// CHECK-NEXT: return %[[C]]
func.func @iota_static(%s: tensor<2xi64>) -> tensor<2x3xf32> {
  %0 = tide.iota %s axis = 1 : tensor<2xi64> to tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// A reshape with one dynamic result dimension needs no shape operand.
// CHECK-LABEL: func.func @reshape_drop_shape(
// CHECK-SAME: %[[X:.*]]: tensor<?x64xf32>, %[[S:.*]]: tensor<3xi64>)
// CHECK-NEXT: %[[R:.*]] = tide.reshape %[[X]] : tensor<?x64xf32> to tensor<?x4x16xf32>
func.func @reshape_drop_shape(%x: tensor<?x64xf32>, %s: tensor<3xi64>) -> tensor<?x4x16xf32> {
  %0 = tide.reshape %x, %s : tensor<?x64xf32>, tensor<3xi64> to tensor<?x4x16xf32>
  return %0 : tensor<?x4x16xf32>
}

// With a static 0 the element count does not give the dynamic size: the
// shape operand stays (found by test/random/onnx_diff.py: a Flatten of a
// TopK with k = 0 had its run-time size read as 0).
// CHECK-LABEL: func.func @negative_reshape_zero_keep_shape(
// CHECK-SAME: %[[X:.*]]: tensor<0x?x?xf32>, %[[S:.*]]: tensor<2xi64>)
// CHECK-NEXT: %[[R:.*]] = tide.reshape %[[X]], %[[S]] : tensor<0x?x?xf32>, tensor<2xi64> to tensor<0x?xf32>
func.func @negative_reshape_zero_keep_shape(%x: tensor<0x?x?xf32>, %s: tensor<2xi64>) -> tensor<0x?xf32> {
  %0 = tide.reshape %x, %s : tensor<0x?x?xf32>, tensor<2xi64> to tensor<0x?xf32>
  return %0 : tensor<0x?xf32>
}

// With two dynamic dimensions the shape operand stays, and equal types do
// not make the reshape a no-op.
// CHECK-LABEL: func.func @negative_reshape_keep_shape(
// CHECK-SAME: %[[X:.*]]: tensor<?x?xf32>, %[[S:.*]]: tensor<2xi64>)
// CHECK-NEXT: %[[R:.*]] = tide.reshape %[[X]], %[[S]] : tensor<?x?xf32>, tensor<2xi64> to tensor<?x?xf32>
// CHECK-NEXT: return %[[R]]
func.func @negative_reshape_keep_shape(%x: tensor<?x?xf32>, %s: tensor<2xi64>) -> tensor<?x?xf32> {
  %0 = tide.reshape %x, %s : tensor<?x?xf32>, tensor<2xi64> to tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// A broadcast_to whose dynamic sizes all come from the input drops its
// shape operand.
// CHECK-LABEL: func.func @broadcast_to_drop_shape(
// CHECK-SAME: %[[X:.*]]: tensor<?x1xf32>, %[[S:.*]]: tensor<2xi64>)
// CHECK-NEXT: %[[R:.*]] = tide.broadcast_to %[[X]] : tensor<?x1xf32> to tensor<?x3xf32>
func.func @broadcast_to_drop_shape(%x: tensor<?x1xf32>, %s: tensor<2xi64>) -> tensor<?x3xf32> {
  %0 = tide.broadcast_to %x, %s : tensor<?x1xf32>, tensor<2xi64> to tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// A size that only the shape operand knows keeps it.
// CHECK-LABEL: func.func @negative_broadcast_to_keep_shape(
// CHECK-SAME: %[[X:.*]]: tensor<1x3xf32>, %[[S:.*]]: tensor<2xi64>)
// CHECK-NEXT: %[[R:.*]] = tide.broadcast_to %[[X]], %[[S]] : tensor<1x3xf32>, tensor<2xi64> to tensor<?x3xf32>
func.func @negative_broadcast_to_keep_shape(%x: tensor<1x3xf32>, %s: tensor<2xi64>) -> tensor<?x3xf32> {
  %0 = tide.broadcast_to %x, %s : tensor<1x3xf32>, tensor<2xi64> to tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// A dynamic_slice with constant bounds and a static result is a slice.
// CHECK-LABEL: func.func @dynamic_slice_constant(
// CHECK-SAME: %[[X:.*]]: tensor<?x8xf32>)
// CHECK-NEXT: %[[R:.*]] = tide.slice %[[X]] start = [1, 0] limit = [3, 8] strides = [1, 3] : tensor<?x8xf32>
// CHECK-NEXT: return %[[R]] : tensor<2x3xf32>
func.func @dynamic_slice_constant(%x: tensor<?x8xf32>) -> tensor<2x3xf32> {
  %a = tide.constant dense<[1, 0]> : tensor<2xi64>
  %b = tide.constant dense<[3, 8]> : tensor<2xi64>
  %0 = tide.dynamic_slice %x, %a, %b strides = [1, 3] : tensor<?x8xf32>, tensor<2xi64> to tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// Bounds known only at run time stay.
// CHECK-LABEL: func.func @negative_dynamic_slice_runtime(
// CHECK: tide.dynamic_slice
func.func @negative_dynamic_slice_runtime(%x: tensor<?x8xf32>, %a: tensor<2xi64>) -> tensor<?x8xf32> {
  %b = tide.dim %x axis = 0 : tensor<?x8xf32>
  %c = tide.constant dense<8> : tensor<1xi64>
  %l = tide.concat %b, %c axis = 0 : tensor<1xi64>, tensor<1xi64>
  %0 = tide.dynamic_slice %x, %a, %l strides = [1, 1] : tensor<?x8xf32>, tensor<2xi64> to tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// A tide.if on a constant is the region it takes, inlined (when that
// region yields the result types).
// CHECK-LABEL: func.func @if_constant
// CHECK-NEXT: %[[E:.*]] = tide.exp %arg0
// CHECK-NEXT: return %[[E]]
func.func @if_constant(%x: tensor<4xf32>) -> tensor<4xf32> {
  %true = tide.constant dense<true> : tensor<i1>
  %r = tide.if %true invariants(%x : tensor<4xf32>) {
  ^bb0(%a: tensor<4xf32>):
    %e = tide.exp %a : tensor<4xf32>
    tide.yield %e : tensor<4xf32>
  } else {
  ^bb0(%a: tensor<4xf32>):
    %n = tide.neg %a : tensor<4xf32>
    tide.yield %n : tensor<4xf32>
  } : tensor<i1> -> (tensor<4xf32>)
  return %r : tensor<4xf32>
}

// The region taken yields a size the result leaves dynamic: not folded.
// CHECK-LABEL: func.func @negative_if_constant_sizes
// CHECK: tide.if
func.func @negative_if_constant_sizes(%x: tensor<4xf32>) -> tensor<?xf32> {
  %false = tide.constant dense<false> : tensor<i1>
  %r = tide.if %false invariants(%x : tensor<4xf32>) {
  ^bb0(%a: tensor<4xf32>):
    tide.yield %a : tensor<4xf32>
  } else {
  ^bb0(%a: tensor<4xf32>):
    %s = tide.slice %a start = [0] limit = [2] strides = [1] : tensor<4xf32>
    tide.yield %s : tensor<2xf32>
  } : tensor<i1> -> (tensor<?xf32>)
  return %r : tensor<?xf32>
}

// A constant invariant of an if is copied into the regions that read it;
// one neither region reads is dropped.
// CHECK-LABEL: func.func @if_invariants
// CHECK: tide.if %{{.*}} invariants(%[[X:.*]] : tensor<2xf32>) {
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<2xf32>):
// CHECK-NEXT: %[[C:.*]] = tide.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT: tide.mul %[[A]], %[[C]]
// CHECK: } else {
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<2xf32>):
// CHECK-NEXT: tide.yield
func.func @if_invariants(%c: tensor<i1>, %x: tensor<2xf32>, %u: tensor<3xf32>) -> tensor<2xf32> {
  %k = tide.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %r = tide.if %c invariants(%x, %k, %u : tensor<2xf32>, tensor<2xf32>, tensor<3xf32>) {
  ^bb0(%a: tensor<2xf32>, %ki: tensor<2xf32>, %ui: tensor<3xf32>):
    %m = tide.mul %a, %ki : tensor<2xf32>, tensor<2xf32>
    tide.yield %m : tensor<2xf32>
  } else {
  ^bb0(%a: tensor<2xf32>, %ki: tensor<2xf32>, %ui: tensor<3xf32>):
    tide.yield %a : tensor<2xf32>
  } : tensor<i1> -> (tensor<2xf32>)
  return %r : tensor<2xf32>
}

// A constant invariant of a scan is copied into its body; an unused one is
// dropped; the others stay.
// CHECK-LABEL: func.func @scan_invariants
// CHECK: tide.scan inits(%{{.*}} : tensor<2xf32>) sequences(%{{.*}} : tensor<?x2xf32>) invariants(%[[B:.*]] : tensor<2xf32>) {
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<i64>, %[[S:.*]]: tensor<2xf32>, %[[X:.*]]: tensor<2xf32>, %[[BI:.*]]: tensor<2xf32>):
// CHECK-NEXT: %[[C:.*]] = tide.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT: %[[M:.*]] = tide.mul %[[X]], %[[C]]
// CHECK-NEXT: %[[A:.*]] = tide.add %[[M]], %[[BI]]
func.func @scan_invariants(%x: tensor<?x2xf32>, %h: tensor<2xf32>, %b: tensor<2xf32>, %u: tensor<3xf32>) -> tensor<?x2xf32> {
  %c = tide.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %s, %p = tide.scan inits(%h : tensor<2xf32>) sequences(%x : tensor<?x2xf32>) invariants(%c, %u, %b : tensor<2xf32>, tensor<3xf32>, tensor<2xf32>) {
  ^bb0(%t: tensor<i64>, %st: tensor<2xf32>, %xt: tensor<2xf32>, %ci: tensor<2xf32>, %ui: tensor<3xf32>, %bi: tensor<2xf32>):
    %m = tide.mul %xt, %ci : tensor<2xf32>, tensor<2xf32>
    %a = tide.add %m, %bi : tensor<2xf32>, tensor<2xf32>
    tide.yield %a, %a : tensor<2xf32>, tensor<2xf32>
  } : tensor<2xf32>, tensor<?x2xf32>
  return %p : tensor<?x2xf32>
}
