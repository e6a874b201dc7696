// Tests of convert-tide-to-linalg: every tide op becomes tensor-level
// linalg/tensor/arith/math IR. Elementwise ops are linalg.generic with NumPy
// broadcasting in the indexing maps; reductions are linalg.generic with
// reduction loops over a linalg.fill of the identity; matmul, transpose,
// concat, slice, reshape and constants map onto their upstream ops;
// composites are decomposed; transfers to the CPU vanish. Ops or copies on a
// GPU are errors. The inputs are the parts of this file after the `//---`
// markers; maps are printed inline (--mlir-print-local-scope). The f32
// convolutions here are the generic loop nest (conv-gemm=false); the CPU's
// GEMM forms are tested in cpu-conv.mlir.

// RUN: rm -rf %t && split-file %s %t
// RUN: tide-opt %t/lower.mlir --convert-tide-to-linalg=conv-gemm=false --mlir-print-local-scope \
// RUN:   | FileCheck %t/lower.mlir --implicit-check-not=' tide.'
// RUN: tide-opt %t/errors.mlir --convert-tide-to-linalg --split-input-file -verify-diagnostics
// f16/bf16: sums, products, means and matmuls accumulate in f32 and round
// once; softmax, sigmoid and elu compute in f32. On a GPU, sums, products
// and matmuls keep their type (convert-linalg-to-gpu and cuBLAS accumulate in
// f32), means do not (the division follows the sum).
// RUN: tide-opt %t/narrow.mlir --convert-tide-to-linalg=gpu=true --mlir-print-local-scope \
// RUN:   | FileCheck %t/narrow.mlir --implicit-check-not='= tide.'
// Unsigned integers: computed on signless integers with the unsigned arith
// ops where the semantics differ; the function boundary becomes signless and
// no cast is left (no ui type survives the pass).
// RUN: tide-opt %t/unsigned.mlir --convert-tide-to-linalg --mlir-print-local-scope \
// RUN:   | FileCheck %t/unsigned.mlir --implicit-check-not=' tide.' \
// RUN:       --implicit-check-not=unrealized_conversion_cast --implicit-check-not='{{ui(8|16|32|64)}}'
// Known bugs (see the comments in those parts): run last so that the checks
// above still run while they are open.
// RUN: tide-opt %t/dynamic-result.mlir --convert-tide-to-linalg --mlir-print-local-scope \
// RUN:   | FileCheck %t/dynamic-result.mlir --implicit-check-not=' tide.'
// RUN: not tide-opt %t/dynamic-result-errors.mlir --convert-tide-to-linalg 2>&1 \
// RUN:   | FileCheck %t/dynamic-result-errors.mlir
// RUN: tide-opt %t/empty-slice.mlir --convert-tide-to-linalg | FileCheck %t/empty-slice.mlir
// Run-time sizes: shape operands are computed on the host from tensor.dim and
// constants (the tide ops that build them fold away), or read at run time;
// tide.dim, tide.iota and tide.dynamic_slice.
// RUN: tide-opt %t/shapes.mlir --convert-tide-to-linalg --canonicalize --cse --mlir-print-local-scope \
// RUN:   | FileCheck %t/shapes.mlir --implicit-check-not=' tide.'

//--- lower.mlir

//===----------------------------------------------------------------------===//
// Unary elementwise
//===----------------------------------------------------------------------===//

// The basic shape of every elementwise lowering: an identity-mapped parallel
// generic over a tensor.empty whose dynamic size is read from the input.
// CHECK-LABEL: func.func @exp_dynamic(
// CHECK-SAME: %[[X:.*]]: tensor<4x?xf32>) -> tensor<4x?xf32>
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK: %[[D1:.*]] = tensor.dim %[[X]], %[[C1]] : tensor<4x?xf32>
// CHECK: %[[INIT:.*]] = tensor.empty(%[[D1]]) : tensor<4x?xf32>
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[X]] : tensor<4x?xf32>) outs(%[[INIT]] : tensor<4x?xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[E:.*]] = math.exp %[[IN]] : f32
// CHECK-NEXT: linalg.yield %[[E]] : f32
// CHECK-NEXT: } -> tensor<4x?xf32>
// CHECK: return %[[R]] : tensor<4x?xf32>
func.func @exp_dynamic(%x: tensor<4x?xf32>) -> tensor<4x?xf32> {
  %0 = tide.exp %x : tensor<4x?xf32>
  return %0 : tensor<4x?xf32>
}

// Each float unary op maps to its math (or arith) op: one generic per op.
// CHECK-LABEL: func.func @unary_float_ops(
// CHECK: arith.negf
// CHECK: math.absf
// CHECK: math.log
// CHECK: math.sqrt
// CHECK: math.rsqrt
// CHECK: math.tanh
// CHECK: math.floor
// CHECK: math.ceil
// CHECK: math.roundeven
// CHECK: math.sin
// CHECK: math.cos
// CHECK: math.erf
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT: arith.maximumf %{{.*}}, %[[Z]] : f64
// CHECK: return
func.func @unary_float_ops(%x: tensor<8xf64>) -> tensor<8xf64> {
  %0 = tide.neg %x : tensor<8xf64>
  %1 = tide.abs %0 : tensor<8xf64>
  %2 = tide.log %1 : tensor<8xf64>
  %3 = tide.sqrt %2 : tensor<8xf64>
  %4 = tide.rsqrt %3 : tensor<8xf64>
  %5 = tide.tanh %4 : tensor<8xf64>
  %6 = tide.floor %5 : tensor<8xf64>
  %7 = tide.ceil %6 : tensor<8xf64>
  %r = tide.round %7 : tensor<8xf64>
  %8 = tide.sin %r : tensor<8xf64>
  %9 = tide.cos %8 : tensor<8xf64>
  %10 = tide.erf %9 : tensor<8xf64>
  %11 = tide.relu %10 : tensor<8xf64>
  return %11 : tensor<8xf64>
}

// Inverse and hyperbolic trigonometry map to their math ops (libm on the
// CPU, libdevice on the GPU: accurate for tiny arguments).
// CHECK-LABEL: func.func @unary_trigonometry(
// CHECK: math.tan
// CHECK: math.asin
// CHECK: math.acos
// CHECK: math.atan
// CHECK: math.sinh
// CHECK: math.cosh
// CHECK: math.asinh
// CHECK: math.acosh
// CHECK: math.atanh
// CHECK: return
func.func @unary_trigonometry(%x: tensor<8xf64>) -> tensor<8xf64> {
  %0 = tide.tan %x : tensor<8xf64>
  %1 = tide.asin %0 : tensor<8xf64>
  %2 = tide.acos %1 : tensor<8xf64>
  %3 = tide.atan %2 : tensor<8xf64>
  %4 = tide.sinh %3 : tensor<8xf64>
  %5 = tide.cosh %4 : tensor<8xf64>
  %6 = tide.asinh %5 : tensor<8xf64>
  %7 = tide.acosh %6 : tensor<8xf64>
  %8 = tide.atanh %7 : tensor<8xf64>
  return %8 : tensor<8xf64>
}

// Float sign: +-1 by ordered comparisons (false for NaN, which passes
// through), and both zeros give +0.
// CHECK-LABEL: func.func @sign_float(
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[ISZ:.*]] = arith.cmpf oeq, %[[X]], %[[Z]] : f32
// CHECK-NEXT: %[[R0:.*]] = arith.select %[[ISZ]], %[[Z]], %[[X]] : f32
// CHECK-NEXT: %[[NEG:.*]] = arith.cmpf olt, %[[X]], %[[Z]] : f32
// CHECK-NEXT: %[[M1:.*]] = arith.constant -1.000000e+00 : f32
// CHECK-NEXT: %[[R1:.*]] = arith.select %[[NEG]], %[[M1]], %[[R0]] : f32
// CHECK-NEXT: %[[POS:.*]] = arith.cmpf ogt, %[[X]], %[[Z]] : f32
// CHECK-NEXT: %[[P1:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[R:.*]] = arith.select %[[POS]], %[[P1]], %[[R1]] : f32
// CHECK-NEXT: linalg.yield %[[R]] : f32
func.func @sign_float(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tide.sign %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// Integer sign: (x > 0) - (x < 0).
// CHECK-LABEL: func.func @sign_integer(
// CHECK: ^bb0(%[[X:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[GT:.*]] = arith.cmpi sgt, %[[X]], %[[Z]] : i32
// CHECK-NEXT: %[[P:.*]] = arith.extui %[[GT]] : i1 to i32
// CHECK-NEXT: %[[LT:.*]] = arith.cmpi slt, %[[X]], %[[Z]] : i32
// CHECK-NEXT: %[[N:.*]] = arith.extui %[[LT]] : i1 to i32
// CHECK-NEXT: %[[R:.*]] = arith.subi %[[P]], %[[N]] : i32
// CHECK-NEXT: linalg.yield %[[R]] : i32
func.func @sign_integer(%x: tensor<4xi32>) -> tensor<4xi32> {
  %0 = tide.sign %x : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// sigmoid(x) = 1 / (1 + e) for x >= 0 and e / (1 + e) below, e = exp(-|x|):
// exp never overflows, so tiny results are kept (random programs found
// sigmoid(-92.66 : f32) = 0 where it is 5.7e-41).
// CHECK-LABEL: func.func @sigmoid(
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[ABS:.*]] = math.absf %[[IN]] : f32
// CHECK-NEXT: %[[NEG:.*]] = arith.negf %[[ABS]] : f32
// CHECK-NEXT: %[[E:.*]] = math.exp %[[NEG]] : f32
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[NONNEG:.*]] = arith.cmpf oge, %[[IN]], %[[ZERO]] : f32
// CHECK-NEXT: %[[NUM:.*]] = arith.select %[[NONNEG]], %[[ONE]], %[[E]] : f32
// CHECK-NEXT: %[[DEN:.*]] = arith.addf %[[ONE]], %[[E]] : f32
// CHECK-NEXT: %[[R:.*]] = arith.divf %[[NUM]], %[[DEN]] : f32
// CHECK-NEXT: linalg.yield %[[R]] : f32
func.func @sigmoid(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = tide.sigmoid %x : tensor<16xf32>
  return %0 : tensor<16xf32>
}

// elu(x) = x > 0 ? x : alpha * expm1(x), with the op's alpha.
// CHECK-LABEL: func.func @elu(
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[ALPHA:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT: %[[EM1:.*]] = math.expm1 %[[IN]] : f32
// CHECK-NEXT: %[[NEG:.*]] = arith.mulf %[[ALPHA]], %[[EM1]] : f32
// CHECK-NEXT: %[[POS:.*]] = arith.cmpf ogt, %[[IN]], %[[ZERO]] : f32
// CHECK-NEXT: %[[R:.*]] = arith.select %[[POS]], %[[IN]], %[[NEG]] : f32
// CHECK-NEXT: linalg.yield %[[R]] : f32
func.func @elu(%x: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %0 = tide.elu %x alpha = 0.5 : tensor<256x256xf32>
  return %0 : tensor<256x256xf32>
}

// Without alpha, elu uses 1.0.
// CHECK-LABEL: func.func @elu_default_alpha(
// CHECK: arith.constant 1.000000e+00 : f64
// CHECK: math.expm1
func.func @elu_default_alpha(%x: tensor<4xf64>) -> tensor<4xf64> {
  %0 = tide.elu %x : tensor<4xf64>
  return %0 : tensor<4xf64>
}

// not is xor with all ones: `true` on i1 (logical), -1 on i8 (bitwise).
// CHECK-LABEL: func.func @not(
// CHECK: ^bb0(%[[B:.*]]: i1, %{{.*}}: i1):
// CHECK-NEXT: %[[T:.*]] = arith.constant true
// CHECK-NEXT: %[[R:.*]] = arith.xori %[[B]], %[[T]] : i1
// CHECK-NEXT: linalg.yield %[[R]] : i1
// CHECK: ^bb0(%[[C:.*]]: i8, %{{.*}}: i8):
// CHECK-NEXT: %[[M:.*]] = arith.constant -1 : i8
// CHECK-NEXT: %[[S:.*]] = arith.xori %[[C]], %[[M]] : i8
// CHECK-NEXT: linalg.yield %[[S]] : i8
func.func @not(%b: tensor<3xi1>, %c: tensor<3xi8>) -> (tensor<3xi1>, tensor<3xi8>) {
  %0 = tide.not %b : tensor<3xi1>
  %1 = tide.not %c : tensor<3xi8>
  return %0, %1 : tensor<3xi1>, tensor<3xi8>
}

// Integer neg is 0 - x, abs is math.absi, relu is max with 0.
// CHECK-LABEL: func.func @unary_integer(
// CHECK: ^bb0(%[[A:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[N:.*]] = arith.subi %[[Z]], %[[A]] : i32
// CHECK-NEXT: linalg.yield %[[N]] : i32
// CHECK: ^bb0(%[[B:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT: %[[ABS:.*]] = math.absi %[[B]] : i32
// CHECK-NEXT: linalg.yield %[[ABS]] : i32
// CHECK: ^bb0(%[[C:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT: %[[Z2:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[RELU:.*]] = arith.maxsi %[[C]], %[[Z2]] : i32
// CHECK-NEXT: linalg.yield %[[RELU]] : i32
func.func @unary_integer(%i: tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>, tensor<?xi32>) {
  %0 = tide.neg %i : tensor<?xi32>
  %1 = tide.abs %i : tensor<?xi32>
  %2 = tide.relu %i : tensor<?xi32>
  return %0, %1, %2 : tensor<?xi32>, tensor<?xi32>, tensor<?xi32>
}

//===----------------------------------------------------------------------===//
// Binary elementwise and broadcasting
//===----------------------------------------------------------------------===//

// [4, 3] + [3]: the row vector is read with the trailing loop only.
// CHECK-LABEL: func.func @add_row_broadcast(
// CHECK-SAME: %[[M:.*]]: tensor<4x3xf32>, %[[V:.*]]: tensor<3xf32>)
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<4x3xf32>
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[M]], %[[V]] : tensor<4x3xf32>, tensor<3xf32>) outs(%[[INIT]] : tensor<4x3xf32>)
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[A]], %[[B]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK: return %[[R]]
func.func @add_row_broadcast(%m: tensor<4x3xf32>, %v: tensor<3xf32>) -> tensor<4x3xf32> {
  %0 = tide.add %m, %v : tensor<4x3xf32>, tensor<3xf32>
  return %0 : tensor<4x3xf32>
}

// [4, 1] * [4, 3]: the size-1 dimension is pinned to index 0.
// CHECK-LABEL: func.func @mul_column_broadcast(
// CHECK-SAME: %[[C:.*]]: tensor<4x1xf32>, %[[M:.*]]: tensor<4x3xf32>)
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[C]], %[[M]] : tensor<4x1xf32>, tensor<4x3xf32>)
// CHECK: arith.mulf
func.func @mul_column_broadcast(%c: tensor<4x1xf32>, %m: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %0 = tide.mul %c, %m : tensor<4x1xf32>, tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// [4, 1] - [1, 3] -> [4, 3]: both operands broadcast; the smaller-rank
// operand on the left keeps the operand order of the subtraction.
// CHECK-LABEL: func.func @sub_outer_broadcast(
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK: ^bb0(%[[A:.*]]: f64, %[[B:.*]]: f64, %{{.*}}: f64):
// CHECK-NEXT: arith.subf %[[A]], %[[B]] : f64
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK: ^bb0(%[[V:.*]]: f64, %[[W:.*]]: f64, %{{.*}}: f64):
// CHECK-NEXT: arith.subf %[[V]], %[[W]] : f64
func.func @sub_outer_broadcast(%c: tensor<4x1xf64>, %r: tensor<1x3xf64>, %v: tensor<3xf64>)
    -> (tensor<4x3xf64>, tensor<4x3xf64>) {
  %0 = tide.sub %c, %r : tensor<4x1xf64>, tensor<1x3xf64>
  %1 = tide.sub %v, %0 : tensor<3xf64>, tensor<4x3xf64>
  return %0, %1 : tensor<4x3xf64>, tensor<4x3xf64>
}

// A dynamic result dimension takes its size from the operand that has it.
// CHECK-LABEL: func.func @add_dynamic_broadcast(
// CHECK-SAME: %[[A:.*]]: tensor<?x3xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[D0:.*]] = tensor.dim %[[A]], %[[C0]] : tensor<?x3xf32>
// CHECK: %[[INIT:.*]] = tensor.empty(%[[D0]]) : tensor<?x3xf32>
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME: outs(%[[INIT]] : tensor<?x3xf32>)
func.func @add_dynamic_broadcast(%a: tensor<?x3xf32>, %b: tensor<3xf32>) -> tensor<?x3xf32> {
  %0 = tide.add %a, %b : tensor<?x3xf32>, tensor<3xf32>
  return %0 : tensor<?x3xf32>
}

// ?x1 against 1x5: the dynamic size comes from the first operand, and each
// size-1 dimension is pinned.
// CHECK-LABEL: func.func @maximum_dynamic_outer(
// CHECK-SAME: %[[F:.*]]: tensor<?x1xf32>, %[[G:.*]]: tensor<1x5xf32>)
// CHECK: %[[D0:.*]] = tensor.dim %[[F]], %{{.*}} : tensor<?x1xf32>
// CHECK: tensor.empty(%[[D0]]) : tensor<?x5xf32>
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK: arith.maximumf
func.func @maximum_dynamic_outer(%f: tensor<?x1xf32>, %g: tensor<1x5xf32>) -> tensor<?x5xf32> {
  %0 = tide.maximum %f, %g : tensor<?x1xf32>, tensor<1x5xf32>
  return %0 : tensor<?x5xf32>
}

// Float binary ops: arith float ops, pow through math.powf; maximum and
// minimum propagate NaN (maximumf/minimumf).
// CHECK-LABEL: func.func @binary_float_ops(
// CHECK: arith.subf
// CHECK: arith.divf
// CHECK: math.powf
// CHECK: arith.maximumf
// CHECK: arith.minimumf
func.func @binary_float_ops(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tide.sub %x, %y : tensor<4xf32>
  %1 = tide.div %0, %y : tensor<4xf32>
  %2 = tide.pow %1, %y : tensor<4xf32>
  %3 = tide.maximum %2, %y : tensor<4xf32>
  %4 = tide.minimum %3, %y : tensor<4xf32>
  return %4 : tensor<4xf32>
}

// Integer binary ops: signed division, max and min; and/or are bitwise.
// CHECK-LABEL: func.func @binary_integer_ops(
// CHECK: arith.addi
// CHECK: arith.subi
// CHECK: arith.muli
// CHECK: arith.divsi
// CHECK: arith.maxsi
// CHECK: arith.minsi
// CHECK: arith.andi
// CHECK: arith.ori
// CHECK: ^bb0(%[[P:.*]]: i1, %[[Q:.*]]: i1, %{{.*}}: i1):
// CHECK-NEXT: arith.andi %[[P]], %[[Q]] : i1
func.func @binary_integer_ops(%x: tensor<5xi16>, %y: tensor<5xi16>, %b: tensor<5xi1>)
    -> (tensor<5xi16>, tensor<5xi1>) {
  %0 = tide.add %x, %y : tensor<5xi16>
  %1 = tide.sub %0, %y : tensor<5xi16>
  %2 = tide.mul %1, %y : tensor<5xi16>
  %3 = tide.div %2, %y : tensor<5xi16>
  %4 = tide.maximum %3, %y : tensor<5xi16>
  %5 = tide.minimum %4, %y : tensor<5xi16>
  %6 = tide.and %5, %y : tensor<5xi16>
  %7 = tide.or %6, %y : tensor<5xi16>
  %8 = tide.and %b, %b : tensor<5xi1>
  return %7, %8 : tensor<5xi16>, tensor<5xi1>
}

// The integer remainder never divides by 0 or by -1 (the minimum by -1
// overflows): those divisors are replaced by 1, whose remainder 0 is the
// result.
// CHECK-LABEL: func.func @rem_integer(
// CHECK: ^bb0(%[[X:.*]]: i16, %[[Y:.*]]: i16, %{{.*}}: i16):
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : i16
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : i16
// CHECK-NEXT: %[[BY0:.*]] = arith.cmpi eq, %[[Y]], %[[Z]] : i16
// CHECK-NEXT: %[[M1:.*]] = arith.constant -1 : i16
// CHECK-NEXT: %[[BYM1:.*]] = arith.cmpi eq, %[[Y]], %[[M1]] : i16
// CHECK: %[[TRIV:.*]] = arith.ori %[[BY0]], %[[BYM1]] : i1
// CHECK: %[[SAFE:.*]] = arith.select %[[TRIV]], %[[ONE]], %[[Y]] : i16
// CHECK: %[[R:.*]] = arith.remsi %[[X]], %[[SAFE]] : i16
// CHECK-NEXT: linalg.yield %[[R]] : i16
func.func @rem_integer(%x: tensor<5xi16>, %y: tensor<5xi16>) -> tensor<5xi16> {
  %0 = tide.rem %x, %y : tensor<5xi16>
  return %0 : tensor<5xi16>
}

// The float remainder is arith.remf (fmod: exact, libm / libdevice).
// CHECK-LABEL: func.func @rem_float(
// CHECK: ^bb0(%[[X:.*]]: f64, %[[Y:.*]]: f64, %{{.*}}: f64):
// CHECK-NEXT: %[[R:.*]] = arith.remf %[[X]], %[[Y]] : f64
// CHECK-NEXT: linalg.yield %[[R]] : f64
func.func @rem_float(%x: tensor<5xf64>, %y: tensor<5xf64>) -> tensor<5xf64> {
  %0 = tide.rem %x, %y : tensor<5xf64>
  return %0 : tensor<5xf64>
}

// The floored modulo adds the divisor to a non-zero remainder of the other
// sign; a float zero takes the divisor's sign (NumPy).
// CHECK-LABEL: func.func @mod(
// CHECK: ^bb0(%[[X:.*]]: i32, %[[Y:.*]]: i32, %{{.*}}: i32):
// CHECK: %[[R:.*]] = arith.remsi %[[X]], %{{.*}} : i32
// CHECK: %[[NZ:.*]] = arith.cmpi ne, %[[R]], %{{.*}} : i32
// CHECK: %[[RN:.*]] = arith.cmpi slt, %[[R]], %{{.*}} : i32
// CHECK: %[[YN:.*]] = arith.cmpi slt, %[[Y]], %{{.*}} : i32
// CHECK: %[[DIFF:.*]] = arith.xori %[[RN]], %[[YN]] : i1
// CHECK: %[[FIX:.*]] = arith.andi %[[NZ]], %[[DIFF]] : i1
// CHECK: %[[SUM:.*]] = arith.addi %[[R]], %[[Y]] : i32
// CHECK: %[[M:.*]] = arith.select %[[FIX]], %[[SUM]], %[[R]] : i32
// CHECK-NEXT: linalg.yield %[[M]] : i32
// CHECK: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[FR:.*]] = arith.remf %[[A]], %[[B]] : f32
// CHECK: %[[FNZ:.*]] = arith.cmpf une, %[[FR]], %{{.*}} : f32
// CHECK: %[[FS:.*]] = arith.addf %[[FR]], %[[B]] : f32
// CHECK: %[[FF:.*]] = arith.select %{{.*}}, %[[FS]], %[[FR]] : f32
// CHECK: %[[SZ:.*]] = math.copysign %{{.*}}, %[[B]] : f32
// CHECK: %[[FM:.*]] = arith.select %[[FNZ]], %[[FF]], %[[SZ]] : f32
// CHECK-NEXT: linalg.yield %[[FM]] : f32
func.func @mod(%x: tensor<5xi32>, %y: tensor<5xi32>, %a: tensor<5xf32>, %b: tensor<5xf32>)
    -> (tensor<5xi32>, tensor<5xf32>) {
  %0 = tide.mod %x, %y : tensor<5xi32>
  %1 = tide.mod %a, %b : tensor<5xf32>
  return %0, %1 : tensor<5xi32>, tensor<5xf32>
}

// Shifts are logical; an amount outside [0, bits) (negative amounts are
// large as unsigned) shifts by 0 and selects 0. The amount is clamped to the
// width first, so that no bits of it are lost where a backend narrows it
// (NVPTX: 32-bit shift amounts).
// CHECK-LABEL: func.func @shifts(
// CHECK: ^bb0(%[[X:.*]]: i8, %[[N:.*]]: i8, %{{.*}}: i8):
// CHECK-NEXT: %[[W:.*]] = arith.constant 8 : i8
// CHECK-NEXT: %[[C:.*]] = arith.minui %[[N]], %[[W]] : i8
// CHECK-NEXT: %[[W2:.*]] = arith.constant 8 : i8
// CHECK-NEXT: %[[OK:.*]] = arith.cmpi ult, %[[C]], %[[W2]] : i8
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : i8
// CHECK-NEXT: %[[AMT:.*]] = arith.select %[[OK]], %[[C]], %[[Z]] : i8
// CHECK-NEXT: %[[S:.*]] = arith.shli %[[X]], %[[AMT]] : i8
// CHECK-NEXT: %[[Z2:.*]] = arith.constant 0 : i8
// CHECK-NEXT: %[[R:.*]] = arith.select %[[OK]], %[[S]], %[[Z2]] : i8
// CHECK-NEXT: linalg.yield %[[R]] : i8
// CHECK: arith.cmpi ult
// CHECK: arith.shrui
// CHECK: ^bb0(%[[P:.*]]: i64, %[[Q:.*]]: i64, %{{.*}}: i64):
// CHECK-NEXT: arith.xori %[[P]], %[[Q]] : i64
func.func @shifts(%x: tensor<3xi8>, %n: tensor<3xi8>, %l: tensor<3xi64>)
    -> (tensor<3xi8>, tensor<3xi8>, tensor<3xi64>) {
  %0 = tide.shl %x, %n : tensor<3xi8>
  %1 = tide.shr %x, %n : tensor<3xi8>
  %2 = tide.xor %l, %l : tensor<3xi64>
  return %0, %1, %2 : tensor<3xi8>, tensor<3xi8>, tensor<3xi64>
}

//===----------------------------------------------------------------------===//
// Comparison and select
//===----------------------------------------------------------------------===//

// Float predicates are ordered, except ne which is unordered (NaN != NaN);
// the result is i1.
// CHECK-LABEL: func.func @cmp_float(
// CHECK: ^bb0(%{{.*}}: f32, %{{.*}}: f32, %{{.*}}: i1):
// CHECK-NEXT: arith.cmpf oeq
// CHECK: arith.cmpf une
// CHECK: arith.cmpf olt
// CHECK: arith.cmpf ole
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf oge
// CHECK: return {{.*}} : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
func.func @cmp_float(%x: tensor<4xf32>, %y: tensor<4xf32>)
    -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = tide.cmp eq, %x, %y : tensor<4xf32>
  %1 = tide.cmp ne, %x, %y : tensor<4xf32>
  %2 = tide.cmp lt, %x, %y : tensor<4xf32>
  %3 = tide.cmp le, %x, %y : tensor<4xf32>
  %4 = tide.cmp gt, %x, %y : tensor<4xf32>
  %5 = tide.cmp ge, %x, %y : tensor<4xf32>
  return %0, %1, %2, %3, %4, %5
      : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// Integer predicates are signed; broadcasting applies as for arithmetic.
// CHECK-LABEL: func.func @cmp_integer(
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-NEXT: ^bb0(%[[A:.*]]: i16, %[[B:.*]]: i16, %{{.*}}: i1):
// CHECK-NEXT: arith.cmpi eq, %[[A]], %[[B]] : i16
// CHECK: arith.cmpi ne
// CHECK: arith.cmpi slt
// CHECK: arith.cmpi sle
// CHECK: arith.cmpi sgt
// CHECK: arith.cmpi sge
func.func @cmp_integer(%i: tensor<2x1xi16>, %j: tensor<3xi16>)
    -> (tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>) {
  %0 = tide.cmp eq, %i, %j : tensor<2x1xi16>, tensor<3xi16>
  %1 = tide.cmp ne, %i, %j : tensor<2x1xi16>, tensor<3xi16>
  %2 = tide.cmp lt, %i, %j : tensor<2x1xi16>, tensor<3xi16>
  %3 = tide.cmp le, %i, %j : tensor<2x1xi16>, tensor<3xi16>
  %4 = tide.cmp gt, %i, %j : tensor<2x1xi16>, tensor<3xi16>
  %5 = tide.cmp ge, %i, %j : tensor<2x1xi16>, tensor<3xi16>
  return %0, %1, %2, %3, %4, %5
      : tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>
}

// select is arith.select over three broadcast operands.
// CHECK-LABEL: func.func @select(
// CHECK-SAME: %[[N:.*]]: tensor<?x1xi1>, %[[A:.*]]: tensor<3xbf16>, %[[B:.*]]: tensor<1xbf16>)
// CHECK: %[[D:.*]] = tensor.dim %[[N]], %{{.*}} : tensor<?x1xi1>
// CHECK: %[[INIT:.*]] = tensor.empty(%[[D]]) : tensor<?x3xbf16>
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[N]], %[[A]], %[[B]] : tensor<?x1xi1>, tensor<3xbf16>, tensor<1xbf16>) outs(%[[INIT]] : tensor<?x3xbf16>)
// CHECK-NEXT: ^bb0(%[[C:.*]]: i1, %[[T:.*]]: bf16, %[[F:.*]]: bf16, %{{.*}}: bf16):
// CHECK-NEXT: %[[R:.*]] = arith.select %[[C]], %[[T]], %[[F]] : bf16
// CHECK-NEXT: linalg.yield %[[R]] : bf16
func.func @select(%n: tensor<?x1xi1>, %a: tensor<3xbf16>, %b: tensor<1xbf16>) -> tensor<?x3xbf16> {
  %0 = tide.select %n, %a, %b : tensor<?x1xi1>, tensor<3xbf16>, tensor<1xbf16>
  return %0 : tensor<?x3xbf16>
}

//===----------------------------------------------------------------------===//
// Cast and broadcast_to
//===----------------------------------------------------------------------===//

// Float widths: extf / truncf; f16 <-> bf16 goes through f32.
// CHECK-LABEL: func.func @cast_float(
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: %[[W:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK-NEXT: arith.truncf %[[W]] : f32 to bf16
func.func @cast_float(%x: tensor<3xf32>, %d: tensor<3xf64>, %h: tensor<3xf16>)
    -> (tensor<3xf64>, tensor<3xf32>, tensor<3xbf16>) {
  %0 = tide.cast %x : tensor<3xf32> to tensor<3xf64>
  %1 = tide.cast %d : tensor<3xf64> to tensor<3xf32>
  %2 = tide.cast %h : tensor<3xf16> to tensor<3xbf16>
  return %0, %1, %2 : tensor<3xf64>, tensor<3xf32>, tensor<3xbf16>
}

// Integer <-> float: signed, except i1 which is 0/1 (a select, not uitofp,
// which LLVM's X86 backend cannot always select; see random-found.mlir);
// float to integer truncates toward zero (fptosi).
// CHECK-LABEL: func.func @cast_int_float(
// CHECK: arith.sitofp %{{.*}} : i32 to f32
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: arith.select %{{.*}}, %[[ONE]], %[[ZERO]] : f32
// CHECK: arith.fptosi %{{.*}} : f32 to i32
// CHECK: arith.fptosi %{{.*}} : bf16 to i8
func.func @cast_int_float(%i: tensor<3xi32>, %b: tensor<3xi1>, %x: tensor<3xf32>, %h: tensor<3xbf16>)
    -> (tensor<3xf32>, tensor<3xf32>, tensor<3xi32>, tensor<3xi8>) {
  %0 = tide.cast %i : tensor<3xi32> to tensor<3xf32>
  %1 = tide.cast %b : tensor<3xi1> to tensor<3xf32>
  %2 = tide.cast %x : tensor<3xf32> to tensor<3xi32>
  %3 = tide.cast %h : tensor<3xbf16> to tensor<3xi8>
  return %0, %1, %2, %3 : tensor<3xf32>, tensor<3xf32>, tensor<3xi32>, tensor<3xi8>
}

// Integer widths: extsi, except i1 (extui, so true is 1); trunci to narrow.
// CHECK-LABEL: func.func @cast_int_int(
// CHECK: arith.extsi %{{.*}} : i32 to i64
// CHECK: arith.extui %{{.*}} : i1 to i32
// CHECK: arith.trunci %{{.*}} : i32 to i8
func.func @cast_int_int(%i: tensor<3xi32>, %b: tensor<3xi1>)
    -> (tensor<3xi64>, tensor<3xi32>, tensor<3xi8>) {
  %0 = tide.cast %i : tensor<3xi32> to tensor<3xi64>
  %1 = tide.cast %b : tensor<3xi1> to tensor<3xi32>
  %2 = tide.cast %i : tensor<3xi32> to tensor<3xi8>
  return %0, %1, %2 : tensor<3xi64>, tensor<3xi32>, tensor<3xi8>
}

// To i1 is `!= 0`: cmpf une (so NaN is true) or cmpi ne.
// CHECK-LABEL: func.func @cast_to_bool(
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: i1):
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[R:.*]] = arith.cmpf une, %[[X]], %[[Z]] : f32
// CHECK-NEXT: linalg.yield %[[R]] : i1
// CHECK: ^bb0(%[[I:.*]]: i32, %{{.*}}: i1):
// CHECK-NEXT: %[[ZI:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[RI:.*]] = arith.cmpi ne, %[[I]], %[[ZI]] : i32
// CHECK-NEXT: linalg.yield %[[RI]] : i1
func.func @cast_to_bool(%x: tensor<3xf32>, %i: tensor<3xi32>) -> (tensor<3xi1>, tensor<3xi1>) {
  %0 = tide.cast %x : tensor<3xf32> to tensor<3xi1>
  %1 = tide.cast %i : tensor<3xi32> to tensor<3xi1>
  return %0, %1 : tensor<3xi1>, tensor<3xi1>
}

// Refining a `?` to a static size: the result is static, and the input's
// run-time size is checked against it (else the loop would read past it).
// CHECK-LABEL: func.func @cast_refine(
// CHECK-SAME: %[[X:.*]]: tensor<?x3xf32>)
// CHECK: %[[D:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x3xf32>
// CHECK: %[[OK:.*]] = arith.cmpi eq, %[[D]], %{{.*}} : index
// CHECK: cf.assert %[[OK]], "{{.*}}the size of dimension 0 of operand 0 differs from that of the result at run time
// CHECK: tensor.empty() : tensor<2x3xf16>
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @cast_refine(%x: tensor<?x3xf32>) -> tensor<2x3xf16> {
  %0 = tide.cast %x : tensor<?x3xf32> to tensor<2x3xf16>
  return %0 : tensor<2x3xf16>
}

// broadcast_to is a copy through broadcasting maps (prepended dims are not
// read; stretched size-1 dims are pinned to 0).
// CHECK-LABEL: func.func @broadcast_to(
// CHECK-SAME: %[[X:.*]]: tensor<3xf32>, %[[Y:.*]]: tensor<1x?xi64>)
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[X]] : tensor<3xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: linalg.yield %[[IN]] : f32
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[Y]] : tensor<1x?xi64>) outs(%{{.*}} : tensor<2x5x7xi64>)
func.func @broadcast_to(%x: tensor<3xf32>, %y: tensor<1x?xi64>)
    -> (tensor<4x3xf32>, tensor<2x5x7xi64>) {
  %0 = tide.broadcast_to %x : tensor<3xf32> to tensor<4x3xf32>
  %1 = tide.broadcast_to %y : tensor<1x?xi64> to tensor<2x5x7xi64>
  return %0, %1 : tensor<4x3xf32>, tensor<2x5x7xi64>
}

// broadcast_to stretch_dynamic: a dynamic input size of 1 is stretched at run
// time. Its size is the shape entry if the input's is 1, else the input's
// (the entry checked to be 1 or that size). Of one type, the input itself
// unless it is stretched; then each element is read at its position, 0 along
// a stretched dimension.
// CHECK-LABEL: func.func @broadcast_to_stretch(
// CHECK-SAME: %[[X:.*]]: tensor<?x4xf32>, %[[S:.*]]: tensor<2xi64>)
// CHECK: %[[IN:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x4xf32>
// CHECK: %[[WANT:.*]] = arith.index_cast
// CHECK: %[[ONE:.*]] = arith.cmpi eq, %[[IN]], %{{.*}} : index
// CHECK: %[[SIZE:.*]] = arith.select %[[ONE]], %[[WANT]], %[[IN]] : index
// CHECK: cf.assert %{{.*}}, "'tide.broadcast_to' at {{.*}}: the input's size in dimension 0 is neither 1 nor the size it is broadcast to"
// CHECK: %[[GROWS:.*]] = arith.cmpi ne, %[[SIZE]], %{{.*}} : index
// CHECK: %[[STRETCH:.*]] = arith.andi %[[ONE]], %[[GROWS]] : i1
// CHECK: %[[R:.*]] = scf.if %[[STRETCH]] -> (tensor<?x4xf32>) {
// CHECK: %[[INIT:.*]] = tensor.empty(%[[SIZE]]) : tensor<?x4xf32>
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%[[INIT]] : tensor<?x4xf32>)
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: %[[ROW:.*]] = arith.select %[[ONE]], %{{.*}}, %[[I]] : index
// CHECK: %[[J:.*]] = linalg.index 1 : index
// CHECK: tensor.extract %[[X]][%[[ROW]], %[[J]]] : tensor<?x4xf32>
// CHECK: } else {
// CHECK-NEXT: scf.yield %[[X]] : tensor<?x4xf32>
// CHECK: return %[[R]]
func.func @broadcast_to_stretch(%x: tensor<?x4xf32>, %s: tensor<2xi64>) -> tensor<?x4xf32> {
  %0 = tide.broadcast_to %x, %s stretch_dynamic : tensor<?x4xf32>, tensor<2xi64> to tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

// reduce_sum: a fill with 0, then a generic whose reduced loop is a
// `reduction` iterator and whose output map drops that loop.
// CHECK-LABEL: func.func @reduce_sum(
// CHECK-SAME: %[[X:.*]]: tensor<4x?xf32>)
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4xf32>
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<4xf32>) -> tensor<4xf32>
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME: ins(%[[X]] : tensor<4x?xf32>) outs(%[[INIT]] : tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[IN]], %[[ACC]] fastmath<reassoc> : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK: return %[[R]] : tensor<4xf32>
func.func @reduce_sum(%x: tensor<4x?xf32>) -> tensor<4xf32> {
  %0 = tide.reduce_sum %x axes = [1] : tensor<4x?xf32>
  return %0 : tensor<4xf32>
}

// reduce_max over the leading axis: the fill is -inf (0xFF800000 in f32), the
// kept dynamic dimension sizes the init, and the combiner is maximumf.
// CHECK-LABEL: func.func @reduce_max(
// CHECK-SAME: %[[X:.*]]: tensor<4x?xf32>)
// CHECK: %[[D:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<4x?xf32>
// CHECK: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[E:.*]] = tensor.empty(%[[D]]) : tensor<?xf32>
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[NINF]] : f32) outs(%[[E]] : tensor<?xf32>)
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]}
// CHECK-SAME: outs(%[[INIT]] : tensor<?xf32>)
// CHECK: arith.maximumf
func.func @reduce_max(%x: tensor<4x?xf32>) -> tensor<?xf32> {
  %0 = tide.reduce_max %x axes = [0] : tensor<4x?xf32>
  return %0 : tensor<?xf32>
}

// reduce_min on f64 starts from +inf; on integers from the signed maximum.
// CHECK-LABEL: func.func @reduce_min(
// CHECK: arith.constant 0x7FF0000000000000 : f64
// CHECK: arith.minimumf
// CHECK: arith.constant 2147483647 : i32
// CHECK: arith.minsi
func.func @reduce_min(%x: tensor<8xf64>, %i: tensor<8xi32>) -> (tensor<f64>, tensor<i32>) {
  %0 = tide.reduce_min %x axes = [0] : tensor<8xf64>
  %1 = tide.reduce_min %i axes = [0] : tensor<8xi32>
  return %0, %1 : tensor<f64>, tensor<i32>
}

// reduce_prod starts from 1; reducing every axis gives a rank-0 output map.
// CHECK-LABEL: func.func @reduce_prod_all(
// CHECK: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK: %[[E:.*]] = tensor.empty() : tensor<i32>
// CHECK: linalg.fill ins(%[[ONE]] : i32) outs(%[[E]] : tensor<i32>)
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]}
// CHECK: arith.muli
func.func @reduce_prod_all(%i: tensor<4x6xi32>) -> tensor<i32> {
  %0 = tide.reduce_prod %i axes = [0, -1] : tensor<4x6xi32>
  return %0 : tensor<i32>
}

// keepdims: the reduced dimension stays, pinned to 0 in the output map.
// CHECK-LABEL: func.func @reduce_sum_keepdims(
// CHECK: tensor.empty() : tensor<4x1xf32>
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]}
func.func @reduce_sum_keepdims(%x: tensor<4x8xf32>) -> tensor<4x1xf32> {
  %0 = tide.reduce_sum %x axes = [1] keepdims : tensor<4x8xf32>
  return %0 : tensor<4x1xf32>
}

// reduce_mean is a sum divided by the element count, read at run time
// (tensor.dim of the reduced axis, converted with uitofp).
// CHECK-LABEL: func.func @reduce_mean(
// CHECK-SAME: %[[X:.*]]: tensor<4x?xf32>)
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]}
// CHECK: arith.addf
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK: %[[D:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<4x?xf32>
// CHECK: %[[N:.*]] = arith.muli %[[C1]], %[[D]] : index
// CHECK: %[[NI:.*]] = arith.index_castui %[[N]] : index to i64
// CHECK: %[[NF:.*]] = arith.uitofp %[[NI]] : i64 to f32
// CHECK: %[[R:.*]] = linalg.generic {{.*}}iterator_types = ["parallel"]} ins(%[[SUM]] : tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[S:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[M:.*]] = arith.divf %[[S]], %[[NF]] : f32
// CHECK-NEXT: linalg.yield %[[M]] : f32
// CHECK: return %[[R]] : tensor<4xf32>
func.func @reduce_mean(%x: tensor<4x?xf32>) -> tensor<4xf32> {
  %0 = tide.reduce_mean %x axes = [-1] : tensor<4x?xf32>
  return %0 : tensor<4xf32>
}

// Several axes (and keepdims): the count is the product of the reduced sizes.
// CHECK-LABEL: func.func @reduce_mean_several_axes(
// CHECK-SAME: %[[X:.*]]: tensor<2x?x10xf32>)
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (0, d1, 0)>], iterator_types = ["reduction", "parallel", "reduction"]}
// CHECK: %[[D0:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<2x?x10xf32>
// CHECK: %[[N0:.*]] = arith.muli %{{.*}}, %[[D0]] : index
// CHECK: %[[D2:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<2x?x10xf32>
// CHECK: %[[N:.*]] = arith.muli %[[N0]], %[[D2]] : index
// CHECK: arith.index_castui %[[N]]
// CHECK: arith.divf
func.func @reduce_mean_several_axes(%x: tensor<2x?x10xf32>) -> tensor<1x?x1xf32> {
  %0 = tide.reduce_mean %x axes = [0, 2] keepdims : tensor<2x?x10xf32>
  return %0 : tensor<1x?x1xf32>
}

// argmax carries (value, index) in two outputs; the index is linalg.index
// of the reduced loop. An element wins if it is the first, or if the best so
// far is not NaN and it is greater or NaN (the first NaN wins, as in NumPy).
// Only the index output is returned.
// CHECK-LABEL: func.func @argmax(
// CHECK-SAME: %[[X:.*]]: tensor<4x?xf32>)
// CHECK: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[VINIT:.*]] = linalg.fill ins(%[[NINF]] : f32) outs(%{{.*}} : tensor<4xf32>)
// CHECK: %[[Z:.*]] = arith.constant 0 : i64
// CHECK: %[[IINIT:.*]] = linalg.fill ins(%[[Z]] : i64) outs(%{{.*}} : tensor<4xi64>)
// CHECK: %[[R:.*]]:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME: ins(%[[X]] : tensor<4x?xf32>) outs(%[[VINIT]], %[[IINIT]] : tensor<4xf32>, tensor<4xi64>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %[[BEST:.*]]: f32, %[[BESTI:.*]]: i64):
// CHECK-NEXT: %[[IDX:.*]] = linalg.index 1 : index
// CHECK-NEXT: %[[I:.*]] = arith.index_cast %[[IDX]] : index to i64
// CHECK-NEXT: %[[GT:.*]] = arith.cmpf ogt, %[[IN]], %[[BEST]] : f32
// CHECK-NEXT: %[[NAN:.*]] = arith.cmpf uno, %[[IN]], %[[IN]] : f32
// CHECK-NEXT: %[[ORD:.*]] = arith.cmpf ord, %[[BEST]], %[[BEST]] : f32
// CHECK-NEXT: %[[GTNAN:.*]] = arith.ori %[[GT]], %[[NAN]] : i1
// CHECK-NEXT: %[[BETTER:.*]] = arith.andi %[[ORD]], %[[GTNAN]] : i1
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : i64
// CHECK-NEXT: %[[FIRST:.*]] = arith.cmpi eq, %[[I]], %[[C0]] : i64
// CHECK-NEXT: %[[WIN:.*]] = arith.ori %[[BETTER]], %[[FIRST]] : i1
// CHECK-NEXT: %[[V:.*]] = arith.select %[[WIN]], %[[IN]], %[[BEST]] : f32
// CHECK-NEXT: %[[VI:.*]] = arith.select %[[WIN]], %[[I]], %[[BESTI]] : i64
// CHECK-NEXT: linalg.yield %[[V]], %[[VI]] : f32, i64
// CHECK: return %[[R]]#1 : tensor<4xi64>
func.func @argmax(%x: tensor<4x?xf32>) -> tensor<4xi64> {
  %0 = tide.argmax %x axes = [1] : tensor<4x?xf32>
  return %0 : tensor<4xi64>
}

// argmin on integers: +max init, slt, and keepdims in both output maps.
// CHECK-LABEL: func.func @argmin_keepdims(
// CHECK: arith.constant 2147483647 : i32
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (0, d1)>], iterator_types = ["reduction", "parallel"]}
// CHECK: linalg.index 0 : index
// CHECK: arith.cmpi slt
func.func @argmin_keepdims(%i: tensor<4x6xi32>) -> tensor<1x6xi64> {
  %0 = tide.argmin %i axes = [0] keepdims : tensor<4x6xi32>
  return %0 : tensor<1x6xi64>
}

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

// 2-D matmul is linalg.matmul accumulating into a zero-filled result; a
// dynamic M comes from the lhs.
// CHECK-LABEL: func.func @matmul_2d(
// CHECK-SAME: %[[A:.*]]: tensor<?x5xf32>, %[[B:.*]]: tensor<5x6xf32>)
// CHECK: %[[M:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?x5xf32>
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[E:.*]] = tensor.empty(%[[M]]) : tensor<?x6xf32>
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<?x6xf32>) -> tensor<?x6xf32>
// CHECK: %[[R:.*]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<?x5xf32>, tensor<5x6xf32>) outs(%[[INIT]] : tensor<?x6xf32>) -> tensor<?x6xf32>
// CHECK: return %[[R]]
func.func @matmul_2d(%a: tensor<?x5xf32>, %b: tensor<5x6xf32>) -> tensor<?x6xf32> {
  %0 = tide.matmul %a, %b : tensor<?x5xf32>, tensor<5x6xf32>
  return %0 : tensor<?x6xf32>
}

// Dynamic M and N come from the lhs rows and the rhs columns; i64 fills with 0.
// The contracted size known only at run time is checked against the rhs's.
// CHECK-LABEL: func.func @matmul_2d_dynamic(
// CHECK-SAME: %[[A:.*]]: tensor<?x?xi64>, %[[B:.*]]: tensor<7x?xi64>)
// CHECK: %[[K:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?x?xi64>
// CHECK: %[[SEVEN:.*]] = arith.constant 7 : index
// CHECK: %[[SAMEK:.*]] = arith.cmpi eq, %[[K]], %[[SEVEN]] : index
// CHECK: cf.assert %[[SAMEK]], "'tide.matmul' at {{.*}}: the contracted sizes (the lhs's columns, the rhs's rows) differ at run time"
// CHECK: %[[M:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?x?xi64>
// CHECK: %[[N:.*]] = tensor.dim %[[B]], %{{.*}} : tensor<7x?xi64>
// CHECK: %[[Z:.*]] = arith.constant 0 : i64
// CHECK: tensor.empty(%[[M]], %[[N]]) : tensor<?x?xi64>
// CHECK: linalg.matmul ins(%[[A]], %[[B]] : tensor<?x?xi64>, tensor<7x?xi64>)
func.func @matmul_2d_dynamic(%a: tensor<?x?xi64>, %b: tensor<7x?xi64>) -> tensor<?x?xi64> {
  %0 = tide.matmul %a, %b : tensor<?x?xi64>, tensor<7x?xi64>
  return %0 : tensor<?x?xi64>
}

// Batched matmul [8, 4, 5] x [5, 6]: a generic with loops (batch, m, n, k),
// k the only reduction; the 2-D rhs is shared by every batch.
// CHECK-LABEL: func.func @matmul_batched(
// CHECK-SAME: %[[P:.*]]: tensor<8x4x5xf32>, %[[Q:.*]]: tensor<5x6xf32>)
// CHECK-NOT: linalg.matmul
// CHECK: %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<8x4x6xf32>)
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[P]], %[[Q]] : tensor<8x4x5xf32>, tensor<5x6xf32>) outs(%[[INIT]] : tensor<8x4x6xf32>)
// CHECK-NEXT: ^bb0(%[[L:.*]]: f32, %[[R:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT: %[[MUL:.*]] = arith.mulf %[[L]], %[[R]] : f32
// CHECK-NEXT: %[[ADD:.*]] = arith.addf %[[ACC]], %[[MUL]] : f32
// CHECK-NEXT: linalg.yield %[[ADD]] : f32
func.func @matmul_batched(%p: tensor<8x4x5xf32>, %q: tensor<5x6xf32>) -> tensor<8x4x6xf32> {
  %0 = tide.matmul %p, %q : tensor<8x4x5xf32>, tensor<5x6xf32>
  return %0 : tensor<8x4x6xf32>
}

// Broadcast batch dims: [2, 1] against [3] pins the size-1 lhs batch dim;
// integers multiply-add with muli/addi.
// CHECK-LABEL: func.func @matmul_batch_broadcast(
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d1, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK: arith.muli
// CHECK: arith.addi
func.func @matmul_batch_broadcast(%r: tensor<2x1x4x5xi8>, %s: tensor<3x5x7xi8>) -> tensor<2x3x4x7xi8> {
  %0 = tide.matmul %r, %s : tensor<2x1x4x5xi8>, tensor<3x5x7xi8>
  return %0 : tensor<2x3x4x7xi8>
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

// transpose is linalg.transpose; a dynamic result dim is read from the input
// dim it comes from (result dim 2 = input dim 1).
// CHECK-LABEL: func.func @transpose(
// CHECK-SAME: %[[X:.*]]: tensor<2x?x4xf32>)
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK: %[[D:.*]] = tensor.dim %[[X]], %[[C1]] : tensor<2x?x4xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[D]]) : tensor<4x2x?xf32>
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[X]] : tensor<2x?x4xf32>) outs(%[[E]] : tensor<4x2x?xf32>) permutation = [2, 0, 1]
// CHECK: return %[[T]]
func.func @transpose(%x: tensor<2x?x4xf32>) -> tensor<4x2x?xf32> {
  %0 = tide.transpose %x perm = [2, 0, 1] : tensor<2x?x4xf32>
  return %0 : tensor<4x2x?xf32>
}

// concat is tensor.concat; a negative axis is normalized.
// CHECK-LABEL: func.func @concat(
// CHECK-SAME: %[[A:.*]]: tensor<2x3xf32>, %[[C:.*]]: tensor<?x3xf32>, %[[D:.*]]: tensor<2x?xf32>)
// CHECK: %[[R0:.*]] = tensor.concat dim(0) %[[A]], %[[C]] : (tensor<2x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
// CHECK: %[[R1:.*]] = tensor.concat dim(1) %[[D]], %[[A]] : (tensor<2x?xf32>, tensor<2x3xf32>) -> tensor<2x?xf32>
// CHECK: return %[[R0]], %[[R1]]
func.func @concat(%a: tensor<2x3xf32>, %c: tensor<?x3xf32>, %d: tensor<2x?xf32>)
    -> (tensor<?x3xf32>, tensor<2x?xf32>) {
  %0 = tide.concat %a, %c axis = 0 : tensor<2x3xf32>, tensor<?x3xf32>
  %1 = tide.concat %d, %a axis = -1 : tensor<2x?xf32>, tensor<2x3xf32>
  return %0, %1 : tensor<?x3xf32>, tensor<2x?xf32>
}

// slice is tensor.extract_slice with static offsets, the result sizes and
// the strides (also on a dynamically shaped input).
// CHECK-LABEL: func.func @slice(
// CHECK-SAME: %[[X:.*]]: tensor<4x5xf32>, %[[Y:.*]]: tensor<?x8xi32>)
// CHECK: %[[S0:.*]] = tensor.extract_slice %[[X]][0, 0] [2, 3] [3, 2] : tensor<4x5xf32> to tensor<2x3xf32>
// CHECK: %[[S1:.*]] = tensor.extract_slice %[[Y]][1, 0] [3, 8] [4, 1] : tensor<?x8xi32> to tensor<3x8xi32>
// CHECK: return %[[S0]], %[[S1]]
func.func @slice(%x: tensor<4x5xf32>, %y: tensor<?x8xi32>) -> (tensor<2x3xf32>, tensor<3x8xi32>) {
  %0 = tide.slice %x start = [0, 0] limit = [4, 5] strides = [3, 2] : tensor<4x5xf32>
  %1 = tide.slice %y start = [1, 0] limit = [10, 8] strides = [4, 1] : tensor<?x8xi32>
  return %0, %1 : tensor<2x3xf32>, tensor<3x8xi32>
}

// gather: a parallel generic over the indices; the payload wraps a negative
// index once (k + n), clamps it to [0, n - 1] and reads the input with
// tensor.extract at the loop indices, the clamped index along the axis.
// CHECK-LABEL: func.func @gather(
// CHECK-SAME: %[[X:.*]]: tensor<3x5xf32>, %[[I:.*]]: tensor<3x4xi64>)
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<3x4xf32>
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<3x5xf32>
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[I]] : tensor<3x4xi64>) outs(%[[INIT]] : tensor<3x4xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: i64, %{{.*}}: f32):
// CHECK-NEXT: %[[K:.*]] = arith.index_cast %[[IN]] : i64 to index
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[NEG:.*]] = arith.cmpi slt, %[[K]], %[[C0]] : index
// CHECK-NEXT: %[[WRAP:.*]] = arith.addi %[[K]], %[[N]] : index
// CHECK-NEXT: %[[K1:.*]] = arith.select %[[NEG]], %[[WRAP]], %[[K]] : index
// CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[LAST:.*]] = arith.subi %[[N]], %[[C1]] : index
// CHECK-NEXT: %[[K2:.*]] = arith.maxsi %[[K1]], %[[C0]] : index
// CHECK-NEXT: %[[K3:.*]] = arith.minsi %[[K2]], %[[LAST]] : index
// CHECK-NEXT: %[[ROW:.*]] = linalg.index 0 : index
// CHECK-NEXT: %[[V:.*]] = tensor.extract %[[X]][%[[ROW]], %[[K3]]] : tensor<3x5xf32>
// CHECK-NEXT: linalg.yield %[[V]] : f32
func.func @gather(%x: tensor<3x5xf32>, %i: tensor<3x4xi64>) -> tensor<3x4xf32> {
  %0 = tide.gather %x, %i axis = 1 : tensor<3x5xf32>, tensor<3x4xi64>
  return %0 : tensor<3x4xf32>
}

// A dynamic axis may be empty at run time: the payload reads only when it
// is not, and yields 0 otherwise. The result's dynamic size comes from the
// indices, which must not exceed the input off the axis (checked).
// CHECK-LABEL: func.func @gather_dynamic_axis(
// CHECK-SAME: %[[X:.*]]: tensor<?x?xi8>, %[[I:.*]]: tensor<?x2xi32>)
// CHECK: %[[D0:.*]] = tensor.dim %[[I]], %{{.*}} : tensor<?x2xi32>
// CHECK: tensor.empty(%[[D0]]) : tensor<?x2xi8>
// CHECK: cf.assert %{{.*}}, "'tide.gather' at {{.*}}: the indices' size in dimension 0 exceeds the input's at run time"
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x?xi8>
// CHECK: arith.index_cast %{{.*}} : i32 to index
// CHECK: %[[K:.*]] = arith.minsi
// CHECK: %[[ROW:.*]] = linalg.index 0 : index
// CHECK: %[[NONEMPTY:.*]] = arith.cmpi sgt, %[[N]], %{{.*}} : index
// CHECK: %[[V:.*]] = scf.if %[[NONEMPTY]] -> (i8) {
// CHECK-NEXT: %[[E:.*]] = tensor.extract %[[X]][%[[ROW]], %[[K]]] : tensor<?x?xi8>
// CHECK-NEXT: scf.yield %[[E]] : i8
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : i8
// CHECK-NEXT: scf.yield %[[Z]] : i8
// CHECK: linalg.yield %[[V]] : i8
func.func @gather_dynamic_axis(%x: tensor<?x?xi8>, %i: tensor<?x2xi32>) -> tensor<?x2xi8> {
  %0 = tide.gather %x, %i axis = 1 : tensor<?x?xi8>, tensor<?x2xi32>
  return %0 : tensor<?x2xi8>
}

// An axis of static size 0 has nothing to read: the result is a zero fill.
// CHECK-LABEL: func.func @gather_empty_axis(
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<2x3xf16>
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f16
// CHECK: %[[R:.*]] = linalg.fill ins(%[[Z]] : f16) outs(%[[INIT]] : tensor<2x3xf16>)
// CHECK-NOT: tensor.extract
// CHECK: return %[[R]]
func.func @gather_empty_axis(%x: tensor<2x0xf16>, %i: tensor<2x3xi64>) -> tensor<2x3xf16> {
  %0 = tide.gather %x, %i axis = 1 : tensor<2x0xf16>, tensor<2x3xi64>
  return %0 : tensor<2x3xf16>
}

// scatter on the host: the data carried whole through loops over the updates
// in order (the loops touch only the part the updates reach: no slice, whose
// dynamic size would fail verification once folding finds a data dimension
// of 0); each index is wrapped from the end, checked to be inside the axis,
// and its update written there. (A scatter placed on a GPU keeps the parallel
// form over the reachable part: narrow.mlir below.)
// CHECK-LABEL: func.func @scatter(
// CHECK-SAME: %[[X:.*]]: tensor<4x6xf32>, %[[I:.*]]: tensor<2x3xi64>, %[[U:.*]]: tensor<2x3xf32>)
// CHECK-NOT: tensor.extract_slice
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<4x6xf32>
// CHECK: %[[G:.*]] = scf.for %[[R:.*]] = {{.*}} iter_args(%[[A:.*]] = %[[X]]) -> (tensor<4x6xf32>)
// CHECK: scf.for %[[J:.*]] = {{.*}} iter_args(%[[B:.*]] = %[[A]]) -> (tensor<4x6xf32>)
// CHECK: %[[K:.*]] = tensor.extract %[[I]][%[[R]], %[[J]]] : tensor<2x3xi64>
// CHECK: %[[KI:.*]] = arith.index_cast %[[K]] : i64 to index
// CHECK: arith.cmpi slt, %[[KI]]
// CHECK: %[[W:.*]] = arith.select
// CHECK: arith.cmpi sge, %[[W]]
// CHECK: arith.cmpi slt, %[[W]], %[[N]]
// CHECK: %[[IN:.*]] = arith.andi
// CHECK: scf.if %[[IN]] -> (tensor<4x6xf32>)
// CHECK: %[[V:.*]] = tensor.extract %[[U]][%[[R]], %[[J]]] : tensor<2x3xf32>
// CHECK: %[[NEW:.*]] = arith.select %{{.*}}, %[[V]], %{{.*}} : f32
// CHECK: tensor.insert %[[NEW]] into %[[B]][%[[R]], %[[W]]] : tensor<4x6xf32>
// CHECK: } else {
// CHECK-NEXT: scf.yield %[[B]] : tensor<4x6xf32>
// CHECK-NOT: tensor.insert_slice
// CHECK: return %[[G]]
func.func @scatter(%x: tensor<4x6xf32>, %i: tensor<2x3xi64>, %u: tensor<2x3xf32>) -> tensor<4x6xf32> {
  %0 = tide.scatter %x, %i, %u axis = 1 : tensor<4x6xf32>, tensor<2x3xi64>, tensor<2x3xf32>
  return %0 : tensor<4x6xf32>
}

// Reductions combine the update with the element it lands on; f16 sums
// combine in f32 and are rounded once; unsigned max uses maxui.
// CHECK-LABEL: func.func @scatter_reductions(
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.addf %{{.*}}, %{{.*}} : f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: arith.maxui %{{.*}}, %{{.*}} : i8
// CHECK: arith.minimumf %{{.*}}, %{{.*}} : f32
func.func @scatter_reductions(%x: tensor<5xf16>, %i: tensor<3xi32>, %u: tensor<3xf16>,
                              %y: tensor<5xui8>, %v: tensor<3xui8>,
                              %z: tensor<5xf32>, %w: tensor<3xf32>) -> (tensor<5xf16>, tensor<5xui8>, tensor<5xf32>) {
  %0 = tide.scatter %x, %i, %u axis = 0 reduction = add : tensor<5xf16>, tensor<3xi32>, tensor<3xf16>
  %1 = tide.scatter %y, %i, %v axis = 0 reduction = max : tensor<5xui8>, tensor<3xi32>, tensor<3xui8>
  %2 = tide.scatter %z, %i, %w axis = 0 reduction = min : tensor<5xf32>, tensor<3xi32>, tensor<3xf32>
  return %0, %1, %2 : tensor<5xf16>, tensor<5xui8>, tensor<5xf32>
}

// cumsum on the host: a loop over the other dimensions, then one pass along
// the axis with the running sum in a register, each step's sum written out
// (n work a row; GPU-placed cumsums keep the parallel form, j <= i summed for
// each i: gpu-conv/narrow tests and the GPU suite).
// CHECK-LABEL: func.func @cumsum(
// CHECK-SAME: %[[X:.*]]: tensor<3x?xf32>)
// CHECK: %[[D:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<3x?xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[D]]) : tensor<3x?xf32>
// CHECK: %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<3x?xf32>)
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[INIT]]) -> (tensor<3x?xf32>)
// CHECK: scf.for %[[J:.*]] = {{.*}} iter_args(%[[OUT:.*]] = %{{.*}}, %[[ACC:.*]] = %{{.*}}) -> (tensor<3x?xf32>, f32)
// CHECK: %[[V:.*]] = tensor.extract %[[X]][%{{.*}}, %[[J]]]
// CHECK: %[[S:.*]] = arith.addf %[[ACC]], %[[V]] : f32
// CHECK: %[[W:.*]] = tensor.insert %[[S]] into %[[OUT]][%{{.*}}, %[[J]]]
// CHECK: scf.yield %[[W]], %[[S]]
func.func @cumsum(%x: tensor<3x?xf32>) -> tensor<3x?xf32> {
  %0 = tide.cumsum %x axis = 1 : tensor<3x?xf32>
  return %0 : tensor<3x?xf32>
}

// exclusive writes the running sum before adding, reverse walks from the end
// (n - 1 - t); integers add with addi.
// CHECK-LABEL: func.func @cumsum_flags(
// CHECK: scf.for {{.*}} iter_args(%[[OUT:.*]] = %{{.*}}, %[[ACC:.*]] = %{{.*}}) -> (tensor<5xi32>, i32)
// CHECK: arith.addi %[[ACC]]
// CHECK: tensor.insert %[[ACC]] into %[[OUT]]
// CHECK: arith.subi
// CHECK: arith.addi
func.func @cumsum_flags(%x: tensor<5xi32>) -> (tensor<5xi32>, tensor<5xi32>, tensor<5xi32>) {
  %0 = tide.cumsum %x axis = 0 exclusive : tensor<5xi32>
  %1 = tide.cumsum %x axis = 0 reverse : tensor<5xi32>
  %2 = tide.cumsum %x axis = -1 exclusive reverse : tensor<5xi32>
  return %0, %1, %2 : tensor<5xi32>, tensor<5xi32>, tensor<5xi32>
}

// bitcast: an elementwise generic of arith.bitcast (unsigned types signless).
// CHECK-LABEL: func.func @bitcast(
// CHECK: linalg.generic
// CHECK: arith.bitcast %{{.*}} : f32 to i32
// CHECK: linalg.generic
// CHECK: arith.bitcast %{{.*}} : i16 to bf16
func.func @bitcast(%x: tensor<5xf32>, %u: tensor<2x3xui16>) -> (tensor<5xi32>, tensor<2x3xbf16>) {
  %0 = tide.bitcast %x : tensor<5xf32> to tensor<5xi32>
  %1 = tide.bitcast %u : tensor<2x3xui16> to tensor<2x3xbf16>
  return %0, %1 : tensor<5xi32>, tensor<2x3xbf16>
}

// cumprod: the same loops; the running product starts at 1 and is a multiply
// (muli for integers).
// CHECK-LABEL: func.func @cumprod(
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f64
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ONE]] : f64)
// CHECK: scf.for
// CHECK: arith.mulf %{{.*}}, %{{.*}} : f64
// CHECK: arith.constant 1 : i32
// CHECK: arith.muli
func.func @cumprod(%x: tensor<4x3xf64>, %i: tensor<5xi32>) -> (tensor<4x3xf64>, tensor<5xi32>) {
  %0 = tide.cumprod %x axis = 0 : tensor<4x3xf64>
  %1 = tide.cumprod %i axis = 0 exclusive reverse : tensor<5xi32>
  return %0, %1 : tensor<4x3xf64>, tensor<5xi32>
}

// conv: zero padding (a fill with the input inserted), then one generic with
// loops (n, f, oh, ow) parallel and (c, kh, kw) reduction; the input is read
// at oh * stride + kh * dilation; the batch stays dynamic.
// CHECK-LABEL: func.func @conv(
// CHECK-SAME: %[[X:.*]]: tensor<?x3x8x8xf32>, %[[W:.*]]: tensor<4x3x3x3xf32>)
// CHECK: %[[D:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x3x8x8xf32>
// CHECK: %[[PE:.*]] = tensor.empty(%[[D]]) : tensor<?x3x10x9xf32>
// CHECK: %[[PF:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[PE]] : tensor<?x3x10x9xf32>)
// CHECK: %[[P:.*]] = tensor.insert_slice %[[X]] into %[[PF]][0, 0, 1, 1] [%[[D]], 3, 8, 8] [1, 1, 1, 1]
// CHECK: %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<?x4x4x3xf32>)
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 * 2 + d5, d3 * 2 + d6 * 2)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
// CHECK-SAME: ins(%[[P]], %[[W]] : tensor<?x3x10x9xf32>, tensor<4x3x3x3xf32>) outs(%[[INIT]] : tensor<?x4x4x3xf32>)
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[A]], %[[B]] : f32
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[ACC]], %[[M]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK: return %[[R]]
func.func @conv(%x: tensor<?x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<?x4x4x3xf32> {
  %0 = tide.conv %x, %w strides = [2, 2] dilations = [1, 2] pads = [1, 1, 1, 0] : tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>
  return %0 : tensor<?x4x4x3xf32>
}

// Grouped f16 conv: channels split by expand_shape into (groups, per group),
// products accumulated in f32, rounded once, and the result collapsed back.
// CHECK-LABEL: func.func @conv_groups_f16(
// CHECK-SAME: %[[X:.*]]: tensor<1x4x6xf16>, %[[W:.*]]: tensor<4x2x3xf16>)
// CHECK: %[[XE:.*]] = tensor.expand_shape %[[X]] {{\[\[}}0], [1, 2], [3]] output_shape [1, 2, 2, 6] : tensor<1x4x6xf16> into tensor<1x2x2x6xf16>
// CHECK: %[[WE:.*]] = tensor.expand_shape %[[W]] {{\[\[}}0, 1], [2], [3]] output_shape [2, 2, 2, 3] : tensor<4x2x3xf16> into tensor<2x2x2x3xf16>
// CHECK: %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x2x2x4xf32>)
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4, d3 + d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d2, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
// CHECK-SAME: ins(%[[XE]], %[[WE]] : tensor<1x2x2x6xf16>, tensor<2x2x2x3xf16>) outs(%[[INIT]] : tensor<1x2x2x4xf32>)
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: %[[C:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2], [3]] : tensor<1x2x2x4xf16> into tensor<1x4x4xf16>
// CHECK: return %[[C]]
func.func @conv_groups_f16(%x: tensor<1x4x6xf16>, %w: tensor<4x2x3xf16>) -> tensor<1x4x4xf16> {
  %0 = tide.conv %x, %w strides = [1] dilations = [1] pads = [0, 0] groups = 2 : tensor<1x4x6xf16>, tensor<4x2x3xf16>
  return %0 : tensor<1x4x4xf16>
}

// max_pool: -inf padding as far as the last window reaches (ceil_mode takes
// it one past `pads` here), an empty kernel-shaped tensor for the window
// loops, maximumf into a -inf fill.
// CHECK-LABEL: func.func @max_pool(
// CHECK-SAME: %[[X:.*]]: tensor<2x?x5xf32>)
// CHECK: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[PF:.*]] = linalg.fill ins(%[[NINF]] : f32) outs(%{{.*}} : tensor<2x?x6xf32>)
// CHECK: %[[P:.*]] = tensor.insert_slice %[[X]] into %[[PF]][0, 0, 0] [2, %{{.*}}, 5] [1, 1, 1]
// CHECK: %[[WIN:.*]] = tensor.empty() : tensor<2xf32>
// CHECK: %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x?x3xf32>)
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 * 2 + d3)>, affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[P]], %[[WIN]] : tensor<2x?x6xf32>, tensor<2xf32>) outs(%[[INIT]] : tensor<2x?x3xf32>)
// CHECK: arith.maximumf
func.func @max_pool(%x: tensor<2x?x5xf32>) -> tensor<2x?x3xf32> {
  %0 = tide.max_pool %x kernel = [2] strides = [2] dilations = [1] pads = [0, 0] ceil_mode : tensor<2x?x5xf32>
  return %0 : tensor<2x?x3xf32>
}

// Integer max_pool pads with the lowest integer and takes maxsi.
// CHECK-LABEL: func.func @max_pool_i8(
// CHECK: arith.constant -128 : i8
// CHECK: arith.maxsi
func.func @max_pool_i8(%x: tensor<1x1x4xi8>) -> tensor<1x1x4xi8> {
  %0 = tide.max_pool %x kernel = [2] strides = [1] dilations = [1] pads = [0, 1] : tensor<1x1x4xi8>
  return %0 : tensor<1x1x4xi8>
}

// avg_pool without padding: a sum, divided by the constant window size.
// CHECK-LABEL: func.func @avg_pool(
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK: arith.addf
// CHECK: linalg.generic {{.*}} ins(%[[SUM]] : tensor<1x1x2x2xf32>)
// CHECK-NEXT: ^bb0(%[[S:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[N:.*]] = arith.constant 4.000000e+00 : f32
// CHECK-NEXT: %[[Q:.*]] = arith.divf %[[S]], %[[N]] : f32
// CHECK-NEXT: linalg.yield %[[Q]]
func.func @avg_pool(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
  %0 = tide.avg_pool %x kernel = [2, 2] strides = [2, 2] dilations = [1, 1] pads = [0, 0, 0, 0] : tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x2x2xf32>
}

// avg_pool over padding: f16 sums in f32, each divided by its count of
// in-bounds elements, computed from the output index (linalg.index).
// CHECK-LABEL: func.func @avg_pool_pads_f16(
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: linalg.index 2 : index
// CHECK: arith.sitofp %{{.*}} : i64 to f32
// CHECK: arith.divf
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @avg_pool_pads_f16(%x: tensor<1x1x5xf16>) -> tensor<1x1x3xf16> {
  %0 = tide.avg_pool %x kernel = [3] strides = [2] dilations = [1] pads = [1, 1] : tensor<1x1x5xf16>
  return %0 : tensor<1x1x3xf16>
}

// Spatial sizes known only at run time: the padded input is the size plus
// the pads, the result's size (size + pads - extent) floordiv stride + 1, at
// least 0 (ceil_mode: rounded up, less the window that would start in the
// end padding); an average's counts read the run-time size.
// CHECK-LABEL: func.func @conv_dynamic_spatial(
// CHECK-SAME: %[[X:.*]]: tensor<1x3x?x8xf32>, %[[W:.*]]: tensor<4x3x3x3xf32>)
// CHECK: %[[H:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<1x3x?x8xf32>
// CHECK: %[[PH:.*]] = arith.addi %[[H]], %{{.*}} : index
// CHECK: tensor.empty(%[[PH]]) : tensor<1x3x?x9xf32>
// CHECK: %[[SPAN:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK: %[[Q:.*]] = arith.floordivsi %[[SPAN]], %{{.*}} : index
// CHECK: %[[O:.*]] = arith.addi %[[Q]], %{{.*}} : index
// CHECK: %[[OH:.*]] = arith.maxsi %[[O]], %{{.*}} : index
// CHECK: tensor.empty(%[[OH]]) : tensor<1x4x?x4xf32>
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<1x4x?x4xf32>)
func.func @conv_dynamic_spatial(%x: tensor<1x3x?x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x?x4xf32> {
  %0 = tide.conv %x, %w strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 0] : tensor<1x3x?x8xf32>, tensor<4x3x3x3xf32>
  return %0 : tensor<1x4x?x4xf32>
}

// CHECK-LABEL: func.func @avg_pool_dynamic_spatial(
// CHECK: arith.ceildivsi
// CHECK: arith.cmpi sge
// CHECK: arith.select
// CHECK: %[[SUM:.*]] = linalg.generic
// CHECK: linalg.generic {{.*}} ins(%[[SUM]] : tensor<1x2x?xf32>)
// CHECK: linalg.index 2 : index
// CHECK: arith.divf
func.func @avg_pool_dynamic_spatial(%x: tensor<1x2x?xf32>) -> tensor<1x2x?xf32> {
  %0 = tide.avg_pool %x kernel = [3] strides = [2] dilations = [1] pads = [1, 1] ceil_mode : tensor<1x2x?xf32>
  return %0 : tensor<1x2x?xf32>
}

// Channels-last max_pool on the host: the spatial dimensions padded, loops
// (n, h, w), the window's, then c: the channels innermost as in memory, so
// that each window element is combined into a row of channels (a loop the
// vectorizer takes).
// CHECK-LABEL: func.func @max_pool_channels_last(
// CHECK-SAME: %[[X:.*]]: tensor<2x5x5x?xf32>)
// CHECK: %[[PF:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x7x7x?xf32>)
// CHECK: %[[P:.*]] = tensor.insert_slice %[[X]] into %[[PF]][0, 1, 1, 0] [2, 5, 5, %{{.*}}] [1, 1, 1, 1]
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 * 2 + d3, d2 * 2 + d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d3, d4)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d5)>], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]}
// CHECK-SAME: ins(%[[P]], %{{.*}} : tensor<2x7x7x?xf32>, tensor<3x3xf32>) outs(%{{.*}} : tensor<2x3x3x?xf32>)
func.func @max_pool_channels_last(%x: tensor<2x5x5x?xf32>) -> tensor<2x3x3x?xf32> {
  %0 = tide.max_pool %x kernel = [3, 3] strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1] channels_last : tensor<2x5x5x?xf32>
  return %0 : tensor<2x3x3x?xf32>
}

// Channels-last avg_pool over padding: each count computed from the output
// spatial index, loop 1 (h) here.
// CHECK-LABEL: func.func @avg_pool_channels_last(
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1 * 2 + d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
// CHECK: linalg.index 1 : index
// CHECK: arith.divf
func.func @avg_pool_channels_last(%x: tensor<1x5x4xf32>) -> tensor<1x3x4xf32> {
  %0 = tide.avg_pool %x kernel = [3] strides = [2] dilations = [1] pads = [1, 1] channels_last : tensor<1x5x4xf32>
  return %0 : tensor<1x3x4xf32>
}

// Static reshape: a view (collapse or expand), no shape tensor.
// CHECK-LABEL: func.func @reshape_static(
// CHECK-SAME: %[[X:.*]]: tensor<2x3xf32>)
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1]] : tensor<2x3xf32> into tensor<6xf32>
// CHECK: return %[[R]]
func.func @reshape_static(%x: tensor<2x3xf32>) -> tensor<6xf32> {
  %0 = tide.reshape %x : tensor<2x3xf32> to tensor<6xf32>
  return %0 : tensor<6xf32>
}

// One dynamic result dim: the input's element count over the product of
// the static result dims (here 2).
// CHECK-LABEL: func.func @reshape_one_dynamic(
// CHECK-SAME: %[[X:.*]]: tensor<?x3xf32>)
// CHECK: %[[D0:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x3xf32>
// CHECK: %[[N0:.*]] = arith.muli %{{.*}}, %[[D0]] : index
// CHECK: %[[D1:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x3xf32>
// CHECK: %[[N:.*]] = arith.muli %[[N0]], %[[D1]] : index
// CHECK: %[[C2:.*]] = arith.constant 2 : index
// CHECK: %[[K:.*]] = arith.constant 2 : index
// CHECK: %[[DYN:.*]] = arith.divui %[[N]], %[[K]] : index
// CHECK: %[[SHAPE:.*]] = tensor.from_elements %[[DYN]], %[[C2]] : tensor<2xindex>
// CHECK: tensor.reshape %[[X]](%[[SHAPE]]) : (tensor<?x3xf32>, tensor<2xindex>) -> tensor<?x2xf32>
func.func @reshape_one_dynamic(%x: tensor<?x3xf32>) -> tensor<?x2xf32> {
  %0 = tide.reshape %x : tensor<?x3xf32> to tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
}

//===----------------------------------------------------------------------===//
// Composites, constants, transfers
//===----------------------------------------------------------------------===//

// softmax is decomposed first: max (keepdims), x - max, exp, sum (keepdims),
// the sum's reciprocal, product; no softmax op survives. The maximum ignores
// NaN (maxnumf, which vectorizes with several accumulators): a row with a NaN
// is all NaN either way. nnan and nsz let LLVM's loop vectorizer use a plain
// vector maximum (no NaN test and early exit in every iteration).
// CHECK-LABEL: func.func @softmax(
// CHECK-SAME: %[[X:.*]]: tensor<2x3xf32>)
// CHECK: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[MAX:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<2x3xf32>)
// CHECK: arith.maxnumf %{{.*}}, %{{.*}} fastmath<nnan,nsz> : f32
// CHECK: %[[SHIFT:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[MAX]] : tensor<2x3xf32>, tensor<2x1xf32>)
// CHECK: arith.subf
// CHECK: %[[EXP:.*]] = linalg.generic {{.*}} ins(%[[SHIFT]] : tensor<2x3xf32>)
// CHECK: math.exp
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]} ins(%[[EXP]] : tensor<2x3xf32>)
// CHECK: arith.addf
// CHECK: %[[INV:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %[[SUM]] : tensor<f32>, tensor<2x1xf32>)
// CHECK: arith.divf
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[EXP]], %[[INV]] : tensor<2x3xf32>, tensor<2x1xf32>)
// CHECK: arith.mulf
// CHECK: return %[[R]]
func.func @softmax(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tide.softmax %x axis = 1 : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// log_softmax: x - max - log(sum(exp(x - max))).
// CHECK-LABEL: func.func @log_softmax(
// CHECK: arith.maxnumf
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: arith.addf
// CHECK: math.log
// CHECK: arith.subf
// CHECK: return
func.func @log_softmax(%x: tensor<256x10xf32>) -> tensor<256x10xf32> {
  %0 = tide.log_softmax %x axis = -1 : tensor<256x10xf32>
  return %0 : tensor<256x10xf32>
}

// Constants become arith.constant with the same dense value.
// CHECK-LABEL: func.func @constant(
// CHECK: %[[C:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK: %[[I:.*]] = arith.constant dense<{{\[}}[1, 2], [3, 4]]> : tensor<2x2xi32>
// CHECK: return %[[C]], %[[I]]
func.func @constant() -> (tensor<2xf32>, tensor<2x2xi32>) {
  %0 = tide.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %1 = tide.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  return %0, %1 : tensor<2xf32>, tensor<2x2xi32>
}

// A transfer is a copy into a new buffer in the destination's memory space
// (0: the host). Ops created for a placed op carry its device.
// CHECK-LABEL: func.func @transfer_to_cpu(
// CHECK-SAME: %[[X:.*]]: tensor<8xf32>)
// CHECK-NEXT: %[[T:.*]] = bufferization.alloc_tensor() copy(%[[X]]) {memory_space = 0 : i64} : tensor<8xf32>
// CHECK-NEXT: %[[E:.*]] = tensor.empty() {tide.device = #tide.device<cpu>} : tensor<8xf32>
// CHECK-NEXT: %[[R:.*]] = linalg.generic {{.*}} ins(%[[T]] : tensor<8xf32>) {{.*}} attrs = {tide.device = #tide.device<cpu>}
// CHECK: math.exp
// CHECK: %[[U:.*]] = bufferization.alloc_tensor() copy(%[[X]]) {memory_space = 0 : i64} : tensor<8xf32>
// CHECK: return %[[R]], %[[U]] : tensor<8xf32>, tensor<8xf32>
func.func @transfer_to_cpu(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %t = tide.transfer %x : tensor<8xf32> to #tide.device<cpu>
  %0 = tide.exp %t {tide.device = #tide.device<cpu>} : tensor<8xf32>
  %u = tide.transfer %x {tide.device = #tide.device<cpu>} : tensor<8xf32> to #tide.device<cpu>
  return %0, %u : tensor<8xf32>, tensor<8xf32>
}

// A chain of ops with dynamic dims: each init is sized with tensor.dim of
// the value it is computed from. The operands' run-time sizes must agree
// (checked first, one cf.assert per dimension; none for the unary op).
// CHECK-LABEL: func.func @dynamic_chain(
// CHECK-SAME: %[[X:.*]]: tensor<?x?xf32>, %[[Y:.*]]: tensor<?x?xf32>)
// CHECK: %[[XD0:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x?xf32>
// CHECK: %[[YD0:.*]] = tensor.dim %[[Y]], %{{.*}} : tensor<?x?xf32>
// CHECK: %[[OK0:.*]] = arith.cmpi eq, %[[YD0]], %[[XD0]] : index
// CHECK: cf.assert %[[OK0]], "'tide.add' at {{.*}}: the size of dimension 0 of operand 1 differs from that of operand 0 at run time (a run-time size of 1 is not broadcast)"
// CHECK: cf.assert %{{.*}}, "'tide.add' at {{.*}}: the size of dimension 1 of operand 1 differs
// CHECK: %[[D0:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x?xf32>
// CHECK: %[[D1:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x?xf32>
// CHECK: %[[E0:.*]] = tensor.empty(%[[D0]], %[[D1]]) : tensor<?x?xf32>
// CHECK: %[[S:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[Y]] : tensor<?x?xf32>, tensor<?x?xf32>) outs(%[[E0]] : tensor<?x?xf32>)
// CHECK: %[[SD0:.*]] = tensor.dim %[[S]], %{{.*}} : tensor<?x?xf32>
// CHECK: %[[SD1:.*]] = tensor.dim %[[S]], %{{.*}} : tensor<?x?xf32>
// CHECK: %[[E1:.*]] = tensor.empty(%[[SD0]], %[[SD1]]) : tensor<?x?xf32>
// CHECK: linalg.generic {{.*}} ins(%[[S]] : tensor<?x?xf32>) outs(%[[E1]] : tensor<?x?xf32>)
func.func @dynamic_chain(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = tide.add %x, %y : tensor<?x?xf32>
  %1 = tide.tanh %0 : tensor<?x?xf32>
  return %1 : tensor<?x?xf32>
}

// A reshape from a run-time size checks that the sizes keep the element
// count; a static one has nothing to check.
// CHECK-LABEL: func.func @reshape_checked(
// CHECK-SAME: %[[X:.*]]: tensor<?xf32>
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?xf32>
// CHECK: %[[KEPT:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : index
// CHECK: cf.assert %[[KEPT]], "'tide.reshape' at {{.*}}: the result's sizes do not keep the input's element count at run time"
// CHECK: tensor.reshape %[[X]]
// CHECK-NOT: cf.assert
// CHECK: return
func.func @reshape_checked(%x: tensor<?xf32>, %y: tensor<6xf32>) -> (tensor<2x3xf32>, tensor<3x2xf32>) {
  %0 = tide.reshape %x : tensor<?xf32> to tensor<2x3xf32>
  %1 = tide.reshape %y : tensor<6xf32> to tensor<3x2xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<3x2xf32>
}

// A concatenation checks its inputs' other run-time sizes against the first
// input's; a convolution its run-time channel count against the weight's.
// CHECK-LABEL: func.func @concat_conv_checked(
// CHECK: cf.assert %{{.*}}, "'tide.concat' at {{.*}}: the size of dimension 1 of input 1 differs from input 0's at run time"
// CHECK: tensor.concat
// CHECK: cf.assert %{{.*}}, "'tide.conv' at {{.*}}: the input's channel count differs from the weight's (times the groups) at run time"
func.func @concat_conv_checked(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %x: tensor<1x?x4x4xf64>, %w: tensor<2x3x3x3xf64>) -> (tensor<?x?xf32>, tensor<1x2x2x2xf64>) {
  %c = tide.concat %a, %b axis = 0 : tensor<?x?xf32>, tensor<?x?xf32>
  %y = tide.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] : tensor<1x?x4x4xf64>, tensor<2x3x3x3xf64>
  return %c, %y : tensor<?x?xf32>, tensor<1x2x2x2xf64>
}

//--- errors.mlir

// Without gpu=true (the CPU pipeline), an op placed on a GPU is an error.
func.func @negative_op_on_gpu(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @below {{'tide.exp' op is placed on cuda:0: compile it with the GPU pipeline (tide-gpu-pipeline; tide-compile picks it), or place with target=cpu}}
  %0 = tide.exp %x {tide.device = #tide.device<cuda:0>} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// A copy to a GPU has no CPU lowering either.
func.func @negative_transfer_to_gpu(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @below {{a copy to cuda:0: compile it with the GPU pipeline}}
  %0 = tide.transfer %x : tensor<8xf32> to #tide.device<cuda:0>
  return %0 : tensor<8xf32>
}

// -----

// Every GPU op is reported, not just the first.
func.func @negative_several_on_gpu(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @below {{'tide.neg' op is placed on cuda:3}}
  %0 = tide.neg %x {tide.device = #tide.device<cuda:3>} : tensor<8xf32>
  // expected-error @below {{'tide.exp' op is placed on cuda:3}}
  %1 = tide.exp %0 {tide.device = #tide.device<cuda:3>} : tensor<8xf32>
  return %1 : tensor<8xf32>
}

// -----

// Two dynamic result dims and no shape operand leave the split of the
// elements undetermined.
func.func @negative_reshape_two_dynamic(%x: tensor<8xf32>) -> tensor<?x?xf32> {
  // expected-error @below {{'tide.reshape' op cannot lower: more than one dynamic result dimension and no shape operand; make all but one static or pass the sizes}}
  // expected-error @below {{cannot be lowered to linalg}}
  %0 = tide.reshape %x : tensor<8xf32> to tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

//--- unsigned.mlir

// Division, remainder, modulo, maximum and minimum pick the unsigned ops; the
// boundary is signless.
// CHECK-LABEL: func.func @unsigned_binary(
// CHECK-SAME: %[[A:.*]]: tensor<4xi8>, %[[B:.*]]: tensor<4xi8>)
// CHECK-SAME: -> (tensor<4xi8>, tensor<4xi8>, tensor<4xi8>, tensor<4xi8>, tensor<4xi8>)
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[A]], %[[B]] : tensor<4xi8>, tensor<4xi8>)
// CHECK: arith.divui
// CHECK: arith.remui
// CHECK: arith.remui
// CHECK: arith.maxui
// CHECK: arith.minui
func.func @unsigned_binary(%a: tensor<4xui8>, %b: tensor<4xui8>)
    -> (tensor<4xui8>, tensor<4xui8>, tensor<4xui8>, tensor<4xui8>, tensor<4xui8>) {
  %0 = tide.div %a, %b : tensor<4xui8>
  %1 = tide.rem %a, %b : tensor<4xui8>
  %2 = tide.mod %a, %b : tensor<4xui8>
  %3 = tide.maximum %a, %b : tensor<4xui8>
  %4 = tide.minimum %a, %b : tensor<4xui8>
  return %0, %1, %2, %3, %4 : tensor<4xui8>, tensor<4xui8>, tensor<4xui8>, tensor<4xui8>, tensor<4xui8>
}

// Comparisons of unsigned values are unsigned; eq/ne have no sign.
// CHECK-LABEL: func.func @unsigned_cmp(
// CHECK: arith.cmpi ult
// CHECK: arith.cmpi ule
// CHECK: arith.cmpi ugt
// CHECK: arith.cmpi uge
// CHECK: arith.cmpi eq
func.func @unsigned_cmp(%a: tensor<4xui32>, %b: tensor<4xui32>)
    -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = tide.cmp lt, %a, %b : tensor<4xui32>
  %1 = tide.cmp le, %a, %b : tensor<4xui32>
  %2 = tide.cmp gt, %a, %b : tensor<4xui32>
  %3 = tide.cmp ge, %a, %b : tensor<4xui32>
  %4 = tide.cmp eq, %a, %b : tensor<4xui32>
  return %0, %1, %2, %3, %4 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// Casts: an unsigned source zero-extends and converts to float as unsigned;
// float to unsigned is fptoui; a signless source still sign-extends into an
// unsigned type (NumPy's int8(-1).astype(uint16) is 65535); iN <-> uiN keeps
// the bits (no arith op at all).
// CHECK-LABEL: func.func @unsigned_cast(
// CHECK-SAME: %[[U:.*]]: tensor<4xi8>, %[[I:.*]]: tensor<4xi8>, %[[F:.*]]: tensor<4xf32>)
// CHECK: arith.extui %{{.*}} : i8 to i32
// CHECK: arith.uitofp %{{.*}} : i8 to f64
// CHECK: arith.fptoui %{{.*}} : f32 to i16
// CHECK: arith.extsi %{{.*}} : i8 to i16
// CHECK: %[[SAME:.*]] = linalg.generic
// CHECK-SAME: ins(%[[U]] : tensor<4xi8>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: i8, %{{.*}}: i8):
// CHECK-NEXT: linalg.yield %[[IN]] : i8
func.func @unsigned_cast(%u: tensor<4xui8>, %i: tensor<4xi8>, %f: tensor<4xf32>)
    -> (tensor<4xui32>, tensor<4xf64>, tensor<4xui16>, tensor<4xui16>, tensor<4xi8>) {
  %0 = tide.cast %u : tensor<4xui8> to tensor<4xui32>
  %1 = tide.cast %u : tensor<4xui8> to tensor<4xf64>
  %2 = tide.cast %f : tensor<4xf32> to tensor<4xui16>
  %3 = tide.cast %i : tensor<4xi8> to tensor<4xui16>
  %4 = tide.cast %u : tensor<4xui8> to tensor<4xi8>
  return %0, %1, %2, %3, %4 : tensor<4xui32>, tensor<4xf64>, tensor<4xui16>, tensor<4xui16>, tensor<4xi8>
}

// abs and relu of unsigned values are the identity, sign is x != 0, neg
// wraps (0 - x), shr is logical.
// CHECK-LABEL: func.func @unsigned_unary(
// CHECK-NOT: math.absi
// CHECK-NOT: arith.maxsi
// CHECK: arith.cmpi ne
// CHECK: arith.extui %{{.*}} : i1 to i16
// CHECK: arith.subi
// CHECK: arith.shrui
func.func @unsigned_unary(%a: tensor<4xui16>)
    -> (tensor<4xui16>, tensor<4xui16>, tensor<4xui16>, tensor<4xui16>, tensor<4xui16>) {
  %0 = tide.abs %a : tensor<4xui16>
  %1 = tide.relu %a : tensor<4xui16>
  %2 = tide.sign %a : tensor<4xui16>
  %3 = tide.neg %a : tensor<4xui16>
  %4 = tide.shr %a, %a : tensor<4xui16>
  return %0, %1, %2, %3, %4 : tensor<4xui16>, tensor<4xui16>, tensor<4xui16>, tensor<4xui16>, tensor<4xui16>
}

// Reductions: max starts at 0 and min at 2^N - 1 (all ones), with maxui /
// minui; argmax/argmin compare unsigned.
// CHECK-LABEL: func.func @unsigned_reductions(
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK: linalg.fill ins(%[[ZERO]] : i64)
// CHECK: arith.maxui
// CHECK: %[[ONES:.*]] = arith.constant -1 : i64
// CHECK: linalg.fill ins(%[[ONES]] : i64)
// CHECK: arith.minui
// CHECK: arith.cmpi ugt
// CHECK: arith.cmpi ult
func.func @unsigned_reductions(%a: tensor<2x3xui64>)
    -> (tensor<2xui64>, tensor<2xui64>, tensor<2xi64>, tensor<2xi64>) {
  %0 = tide.reduce_max %a axes = [1] : tensor<2x3xui64>
  %1 = tide.reduce_min %a axes = [1] : tensor<2x3xui64>
  %2 = tide.argmax %a axes = [1] : tensor<2x3xui64>
  %3 = tide.argmin %a axes = [1] : tensor<2x3xui64>
  return %0, %1, %2, %3 : tensor<2xui64>, tensor<2xui64>, tensor<2xi64>, tensor<2xi64>
}

// Constants and shape ops carry the same bits on signless types.
// CHECK-LABEL: func.func @unsigned_shapes(
// CHECK-SAME: %[[A:.*]]: tensor<2x3xi8>)
// CHECK: %[[C:.*]] = arith.constant dense<[-1, 1, 2]> : tensor<3xi8>
// CHECK: linalg.transpose ins(%[[A]] : tensor<2x3xi8>)
// CHECK: tensor.concat dim(0) %[[A]], %[[A]] : (tensor<2x3xi8>, tensor<2x3xi8>) -> tensor<4x3xi8>
// CHECK: tensor.extract_slice %[[A]]
// CHECK: tensor.collapse_shape %[[A]]
// CHECK: return %[[C]],
func.func @unsigned_shapes(%a: tensor<2x3xui8>)
    -> (tensor<3xui8>, tensor<3x2xui8>, tensor<4x3xui8>, tensor<1x3xui8>, tensor<6xui8>) {
  %c = tide.constant dense<[255, 1, 2]> : tensor<3xui8>
  %0 = tide.transpose %a perm = [1, 0] : tensor<2x3xui8>
  %1 = tide.concat %a, %a axis = 0 : tensor<2x3xui8>, tensor<2x3xui8>
  %2 = tide.slice %a start = [0, 0] limit = [1, 3] strides = [1, 1] : tensor<2x3xui8>
  %3 = tide.reshape %a : tensor<2x3xui8> to tensor<6xui8>
  return %c, %0, %1, %2, %3 : tensor<3xui8>, tensor<3x2xui8>, tensor<4x3xui8>, tensor<1x3xui8>, tensor<6xui8>
}

// A returned argument is the converted argument itself.
// CHECK-LABEL: func.func @unsigned_identity(
// CHECK-SAME: %[[A:.*]]: tensor<?xi32>) -> tensor<?xi32>
// CHECK-NEXT: return %[[A]] : tensor<?xi32>
func.func @unsigned_identity(%a: tensor<?xui32>) -> tensor<?xui32> {
  return %a : tensor<?xui32>
}

//--- dynamic-result.mlir

// BUG: a cast whose result has a `?` where the input is static (the verifier
// accepts it) crashes the conversion: the init's dynamic size is looked up
// only among dynamic operand dims and is null here. The size is known (2).
// CHECK-LABEL: func.func @cast_static_to_dynamic(
// CHECK: linalg.generic
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: return %{{.*}} : tensor<?x3xf64>
func.func @cast_static_to_dynamic(%x: tensor<2x3xf32>) -> tensor<?x3xf64> {
  %0 = tide.cast %x : tensor<2x3xf32> to tensor<?x3xf64>
  return %0 : tensor<?x3xf64>
}

//--- dynamic-result-errors.mlir

// BUG: broadcast_to a `?` that no operand has (the verifier accepts
// tensor<3xf32> to tensor<?x3xf32>) crashes the conversion (null dynamic
// size in tensor.empty). Nothing determines the size, so it must be an error.
func.func @negative_broadcast_to_unknown_size(%x: tensor<3xf32>) -> tensor<?x3xf32> {
  // CHECK: dynamic-result-errors.mlir:[[@LINE+1]]:8: error: {{.*}}dynamic
  %0 = tide.broadcast_to %x : tensor<3xf32> to tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

//--- narrow.mlir

// An f16 sum: an f32 accumulator, each element extended, then one rounding.
// CHECK-LABEL: func.func @sum_f16(
// CHECK-SAME: %[[X:.*]]: tensor<8x?xf16>)
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<8xf32>)
// CHECK: %[[S:.*]] = linalg.generic
// CHECK-SAME: ins(%[[X]] : tensor<8x?xf16>) outs(%[[INIT]] : tensor<8xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f16, %[[ACC:.*]]: f32):
// CHECK-NEXT: %[[W:.*]] = arith.extf %[[IN]] : f16 to f32
// CHECK-NEXT: %[[R:.*]] = arith.addf %[[W]], %[[ACC]] fastmath<reassoc> : f32
// CHECK-NEXT: linalg.yield %[[R]] : f32
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[S]] : tensor<8xf32>) outs(%{{.*}} : tensor<8xf16>)
// CHECK-NEXT: ^bb0(%[[V:.*]]: f32, %{{.*}}: f16):
// CHECK-NEXT: %[[T:.*]] = arith.truncf %[[V]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[T]] : f16
func.func @sum_f16(%x: tensor<8x?xf16>) -> tensor<8xf16> {
  %s = tide.reduce_sum %x axes = [1] : tensor<8x?xf16>
  return %s : tensor<8xf16>
}

// A scatter placed on a GPU is computed from the result's side: the part of
// the data as the init of a generic with a reduction loop j over the updates
// along the axis; the wrapped index is compared with the result's position.
// CHECK-LABEL: func.func @scatter_gpu(
// CHECK-SAME: %[[X:.*]]: tensor<4x6xf32>, %[[I:.*]]: tensor<2x3xi64>, %[[U:.*]]: tensor<2x3xf32>)
// CHECK: %[[PART:.*]] = tensor.extract_slice %[[X]][0, 0] [2, 6] [1, 1]
// CHECK: %[[G:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[I]], %[[U]] : tensor<2x3xi64>, tensor<2x3xf32>) outs(%[[PART]] : tensor<2x6xf32>)
// CHECK-NEXT: ^bb0(%[[K:.*]]: i64, %[[V:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK: %[[KI:.*]] = arith.index_cast %[[K]] : i64 to index
// CHECK: arith.cmpi slt, %[[KI]]
// CHECK: %[[W:.*]] = arith.select
// CHECK: %[[P:.*]] = linalg.index 1 : index
// CHECK: %[[M:.*]] = arith.cmpi eq, %[[W]], %[[P]] : index
// CHECK: %[[R:.*]] = arith.select %[[M]], %[[V]], %[[ACC]] : f32
// CHECK: linalg.yield %[[R]] : f32
// CHECK: tensor.insert_slice %[[G]] into %[[X]][0, 0] [2, 6] [1, 1]
func.func @scatter_gpu(%x: tensor<4x6xf32>, %i: tensor<2x3xi64>, %u: tensor<2x3xf32>) -> tensor<4x6xf32> {
  %0 = tide.scatter %x, %i, %u axis = 1 {tide.device = #tide.device<cuda:0>} : tensor<4x6xf32>, tensor<2x3xi64>, tensor<2x3xf32>
  return %0 : tensor<4x6xf32>
}

// On a GPU, a reachable part of dynamic size is copied out and written back
// by generics that read the data element by element, with no slice (whose
// subview fails verification when the data's size folds to 0 later).
// CHECK-LABEL: func.func @scatter_gpu_dynamic(
// CHECK-SAME: %[[X:.*]]: tensor<?x6xf32>, %[[I:.*]]: tensor<2x3xi64>, %[[U:.*]]: tensor<2x3xf32>)
// CHECK-NOT: extract_slice
// CHECK: %[[E:.*]] = tensor.empty() {{.*}}: tensor<2x6xf32>
// CHECK: %[[PART:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%[[E]] : tensor<2x6xf32>)
// CHECK: tensor.extract %[[X]][
// CHECK: %[[G:.*]] = linalg.generic {{.*}} ins(%[[I]], %[[U]] : tensor<2x3xi64>, tensor<2x3xf32>) outs(%[[PART]] : tensor<2x6xf32>)
// CHECK: %[[BACK:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%[[X]] : tensor<?x6xf32>)
// CHECK-NEXT: ^bb0(%[[OLD:.*]]: f32):
// CHECK: %[[ROW:.*]] = linalg.index 0 : index
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[ROW]], %{{.*}} : index
// CHECK: scf.if %[[IN]] -> (f32) {
// CHECK: tensor.extract %[[G]][
// CHECK: } else {
// CHECK: scf.yield %[[OLD]] : f32
// CHECK-NOT: insert_slice
// CHECK: return %[[BACK]]
func.func @scatter_gpu_dynamic(%x: tensor<?x6xf32>, %i: tensor<2x3xi64>, %u: tensor<2x3xf32>) -> tensor<?x6xf32> {
  %0 = tide.scatter %x, %i, %u axis = 1 {tide.device = #tide.device<cuda:0>} : tensor<?x6xf32>, tensor<2x3xi64>, tensor<2x3xf32>
  return %0 : tensor<?x6xf32>
}

// An f16 cumsum accumulates in f32 on every device and rounds once.
// CHECK-LABEL: func.func @cumsum_f16(
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<6xf32>)
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.addf %{{.*}}, %{{.*}} : f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @cumsum_f16(%x: tensor<6xf16>) -> tensor<6xf16> {
  %s = tide.cumsum %x axis = 0 : tensor<6xf16>
  return %s : tensor<6xf16>
}

// A bf16 product: the same, starting from 1.
// CHECK-LABEL: func.func @prod_bf16(
// CHECK: arith.constant 1.000000e+00 : f32
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK-NEXT: arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @prod_bf16(%x: tensor<16xbf16>) -> tensor<bf16> {
  %s = tide.reduce_prod %x axes = [0] : tensor<16xbf16>
  return %s : tensor<bf16>
}

// max and min are exact in any type: they keep f16.
// CHECK-LABEL: func.func @max_f16(
// CHECK: ^bb0(%{{.*}}: f16, %{{.*}}: f16):
// CHECK-NEXT: arith.maximumf %{{.*}}, %{{.*}} : f16
// CHECK-NOT: arith.truncf
// CHECK: return
func.func @max_f16(%x: tensor<16xf16>) -> tensor<f16> {
  %s = tide.reduce_max %x axes = [0] : tensor<16xf16>
  return %s : tensor<f16>
}

// A mean divides the f32 sum by the f32 count (an f16 count above 65504 would
// be +inf, a bf16 count above 256 rounded), then rounds once.
// CHECK-LABEL: func.func @mean_f16(
// CHECK: %[[S:.*]] = linalg.generic
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: %[[N:.*]] = arith.uitofp %{{.*}} : i64 to f32
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[S]] : tensor<f32>) outs(%{{.*}} : tensor<f16>)
// CHECK-NEXT: ^bb0(%[[V:.*]]: f32, %{{.*}}: f16):
// CHECK-NEXT: %[[D:.*]] = arith.divf %[[V]], %[[N]] : f32
// CHECK-NEXT: %[[T:.*]] = arith.truncf %[[D]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[T]] : f16
func.func @mean_f16(%x: tensor<1750x40xf16>) -> tensor<f16> {
  %m = tide.reduce_mean %x axes = [0, 1] : tensor<1750x40xf16>
  return %m : tensor<f16>
}

// 2-D matmul: linalg.matmul into an f32 accumulator (it extends its f16
// operands), then one rounding.
// CHECK-LABEL: func.func @matmul_f16(
// CHECK-SAME: %[[A:.*]]: tensor<1x4096xf16>, %[[B:.*]]: tensor<4096x1xf16>)
// CHECK: %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x1xf32>)
// CHECK: %[[P:.*]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<1x4096xf16>, tensor<4096x1xf16>) outs(%[[INIT]] : tensor<1x1xf32>)
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[P]] : tensor<1x1xf32>) outs(%{{.*}} : tensor<1x1xf16>)
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @matmul_f16(%a: tensor<1x4096xf16>, %b: tensor<4096x1xf16>) -> tensor<1x1xf16> {
  %h = tide.matmul %a, %b : tensor<1x4096xf16>, tensor<4096x1xf16>
  return %h : tensor<1x1xf16>
}

// Batched: both operands extended in the payload, an f32 accumulator.
// CHECK-LABEL: func.func @batched_matmul_bf16(
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<2x4x3xf32>)
// CHECK-NEXT: ^bb0(%[[L:.*]]: bf16, %[[R:.*]]: bf16, %[[ACC:.*]]: f32):
// CHECK-NEXT: %[[WL:.*]] = arith.extf %[[L]] : bf16 to f32
// CHECK-NEXT: %[[WR:.*]] = arith.extf %[[R]] : bf16 to f32
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[WL]], %[[WR]] : f32
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[ACC]], %[[M]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @batched_matmul_bf16(%a: tensor<2x4x4096xbf16>, %b: tensor<4096x3xbf16>) -> tensor<2x4x3xbf16> {
  %h = tide.matmul %a, %b : tensor<2x4x4096xbf16>, tensor<4096x3xbf16>
  return %h : tensor<2x4x3xbf16>
}

// softmax: extended once, every step in f32, rounded once at the end.
// CHECK-LABEL: func.func @softmax_f16(
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK-NOT: f16
// CHECK: arith.maxnumf %{{.*}}, %{{.*}} : f32
// CHECK-NOT: f16
// CHECK: math.exp %{{.*}} : f32
// CHECK-NOT: f16
// CHECK: arith.divf %{{.*}}, %{{.*}} : f32
// CHECK-NOT: f16
// CHECK: tensor.empty() : tensor<1x8192xf16>
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @softmax_f16(%x: tensor<1x8192xf16>) -> tensor<1x8192xf16> {
  %s = tide.softmax %x axis = 1 : tensor<1x8192xf16>
  return %s : tensor<1x8192xf16>
}

// log_softmax in bf16, likewise (on a GPU too: only a last-axis softmax is
// one GPU kernel).
// CHECK-LABEL: func.func @log_softmax_bf16(
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK-NOT: bf16
// CHECK: math.log %{{.*}} : f32
// CHECK-NOT: bf16
// CHECK: tensor.empty() {{.*}}: tensor<4x8xbf16>
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @log_softmax_bf16(%x: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
  %s = tide.log_softmax %x axis = 1 {tide.device = #tide.device<cuda:0>} : tensor<4x8xbf16>
  return %s : tensor<4x8xbf16>
}

// sigmoid and elu compute in f32 and round once.
// CHECK-LABEL: func.func @sigmoid_elu_f16(
// CHECK: ^bb0(%[[X:.*]]: f16, %{{.*}}: f16):
// CHECK-NEXT: %[[W:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK: math.exp %{{.*}} : f32
// CHECK: %[[D:.*]] = arith.divf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: %[[T:.*]] = arith.truncf %[[D]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[T]] : f16
// CHECK: ^bb0(%[[Y:.*]]: f16, %{{.*}}: f16):
// CHECK-NEXT: %[[WY:.*]] = arith.extf %[[Y]] : f16 to f32
// CHECK: math.expm1 %[[WY]] : f32
// CHECK: %[[SEL:.*]] = arith.select %{{.*}}, %[[WY]], %{{.*}} : f32
// CHECK-NEXT: %[[TY:.*]] = arith.truncf %[[SEL]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[TY]] : f16
func.func @sigmoid_elu_f16(%x: tensor<16xf16>) -> (tensor<16xf16>, tensor<16xf16>) {
  %s = tide.sigmoid %x : tensor<16xf16>
  %e = tide.elu %x alpha = 0.5 : tensor<16xf16>
  return %s, %e : tensor<16xf16>, tensor<16xf16>
}

// On a GPU, the sum keeps f16 (the GPU lowering accumulates in f32 itself)...
// CHECK-LABEL: func.func @sum_f16_gpu(
// CHECK: ^bb0(%{{.*}}: f16, %{{.*}}: f16):
// CHECK-NEXT: arith.addf %{{.*}}, %{{.*}} : f16
// CHECK-NOT: arith.truncf
// CHECK: return
func.func @sum_f16_gpu(%x: tensor<8x16xf16>) -> tensor<8xf16> {
  %s = tide.reduce_sum %x axes = [1] {tide.device = #tide.device<cuda:0>} : tensor<8x16xf16>
  return %s : tensor<8xf16>
}

// ... and so does the matmul (cuBLAS computes in f32) ...
// CHECK-LABEL: func.func @matmul_f16_gpu(
// CHECK: linalg.matmul {{.*}} outs(%{{.*}} : tensor<4x3xf16>)
func.func @matmul_f16_gpu(%a: tensor<4x8xf16>, %b: tensor<8x3xf16>) -> tensor<4x3xf16> {
  %h = tide.matmul %a, %b {tide.device = #tide.device<cuda:0>} : tensor<4x8xf16>, tensor<8x3xf16>
  return %h : tensor<4x3xf16>
}

// ... but the mean accumulates in f32 and divides in f32 there too.
// CHECK-LABEL: func.func @mean_f16_gpu(
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<8xf32>)
// CHECK: arith.uitofp %{{.*}} : i64 to f32
// CHECK: arith.divf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: arith.truncf %{{.*}} : f32 to f16
func.func @mean_f16_gpu(%x: tensor<8x16xf16>) -> tensor<8xf16> {
  %s = tide.reduce_mean %x axes = [1] {tide.device = #tide.device<cuda:0>} : tensor<8x16xf16>
  return %s : tensor<8xf16>
}

//--- empty-slice.mlir

// An empty slice reads nothing: a tensor.empty, never a tensor.extract_slice
// (whose offsets must lie inside the input: 5 in a dimension of size 5, or 0
// in a dimension of size 0, fail to verify).
// CHECK-LABEL: func.func @slice_empty_at_end(
// CHECK: %[[E:.*]] = tensor.empty() : tensor<0x0xf32>
// CHECK: return %[[E]] : tensor<0x0xf32>
func.func @slice_empty_at_end(%x: tensor<4x5xf32>) -> tensor<0x0xf32> {
  %0 = tide.slice %x start = [2, 5] limit = [2, 5] strides = [1, 1] : tensor<4x5xf32>
  return %0 : tensor<0x0xf32>
}

// A slice of a size-0 dimension (offset 0 is out of bounds there).
// CHECK-LABEL: func.func @slice_of_empty(
// CHECK-NOT: tensor.extract_slice
// CHECK: %[[E:.*]] = tensor.empty() : tensor<0xf32>
// CHECK: return %[[E]] : tensor<0xf32>
func.func @slice_of_empty(%x: tensor<0xf32>) -> tensor<0xf32> {
  %0 = tide.slice %x start = [0] limit = [0] strides = [1] : tensor<0xf32>
  return %0 : tensor<0xf32>
}

// Empty in one dimension only.
// CHECK-LABEL: func.func @slice_empty_rows(
// CHECK-NOT: tensor.extract_slice
// CHECK: tensor.empty() : tensor<0x2xf16>
func.func @slice_empty_rows(%x: tensor<0x4xf16>) -> tensor<0x2xf16> {
  %0 = tide.slice %x start = [0, 1] limit = [0, 3] strides = [1, 1] : tensor<0x4xf16>
  return %0 : tensor<0x2xf16>
}

//--- shapes.mlir

// A check: the host reads its condition and asserts it, naming the op's
// location; the input passes on unchanged.
// CHECK-LABEL: func.func @check(
// CHECK-SAME: %[[X:.*]]: tensor<?xf32>, %[[C:.*]]: tensor<1xi1>)
// CHECK: %[[B:.*]] = tensor.extract %[[C]][%{{.*}}] : tensor<1xi1>
// CHECK: cf.assert %[[B]], "at {{.*}}shapes.mlir{{.*}}: an index is out of range"
// CHECK: return %[[X]]
func.func @check(%x: tensor<?xf32>, %c: tensor<1xi1>) -> tensor<?xf32> {
  %0 = tide.check %x, %c, "an index is out of range" : tensor<?xf32>, tensor<1xi1>
  return %0 : tensor<?xf32>
}

// A condition computed from a run-time size is computed on the host.
// CHECK-LABEL: func.func @check_size(
// CHECK-SAME: %[[X:.*]]: tensor<?xf32>)
// CHECK: %[[D:.*]] = tensor.dim %[[X]]
// CHECK: cf.assert %{{.*}}, "at {{.*}}: too short"
// CHECK: return %[[X]]
func.func @check_size(%x: tensor<?xf32>) -> tensor<?xf32> {
  %d = tide.dim %x axis = 0 : tensor<?xf32>
  %k = tide.constant dense<[2]> : tensor<1xi64>
  %c = tide.cmp ge, %d, %k : tensor<1xi64>
  %0 = tide.check %x, %c, "too short" : tensor<?xf32>, tensor<1xi1>
  return %0 : tensor<?xf32>
}

// Off the axis, indices of run-time size must not exceed the input: checked.
// CHECK-LABEL: func.func @gather_sizes_checked(
// CHECK: %[[I:.*]] = tensor.dim %{{.*}}, %{{.*}} : tensor<?x4xi64>
// CHECK: %[[X:.*]] = tensor.dim %{{.*}}, %{{.*}} : tensor<?x4xf32>
// CHECK: %[[LE:.*]] = arith.cmpi ule, %[[I]], %[[X]] : index
// CHECK: cf.assert %[[LE]], "'tide.gather' at {{.*}}: the indices' size in dimension 0 exceeds the input's at run time"
func.func @gather_sizes_checked(%x: tensor<?x4xf32>, %i: tensor<?x4xi64>) -> tensor<?x4xf32> {
  %0 = tide.gather %x, %i axis = 1 : tensor<?x4xf32>, tensor<?x4xi64>
  return %0 : tensor<?x4xf32>
}

// Heads split with sizes from the input's dynamic dimensions: the shape
// vector becomes tensor.dim, no tide op and no i64 arithmetic is left.
// CHECK-LABEL: func.func @reshape_from_dims(
// CHECK-SAME: %[[X:.*]]: tensor<?x?x64xf32>)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG: %[[B:.*]] = tensor.dim %[[X]], %[[C0]] : tensor<?x?x64xf32>
// CHECK-DAG: %[[S:.*]] = tensor.dim %[[X]], %[[C1]] : tensor<?x?x64xf32>
// CHECK: %[[SH:.*]] = tensor.from_elements %[[B]], %[[S]], %[[C4]], %[[C16]] : tensor<4xindex>
// CHECK: %[[R:.*]] = tensor.reshape %[[X]](%[[SH]]) : (tensor<?x?x64xf32>, tensor<4xindex>) -> tensor<?x?x4x16xf32>
// CHECK: return %[[R]]
func.func @reshape_from_dims(%x: tensor<?x?x64xf32>) -> tensor<?x?x4x16xf32> {
  %b = tide.dim %x axis = 0 : tensor<?x?x64xf32>
  %s = tide.dim %x axis = 1 : tensor<?x?x64xf32>
  %c = tide.constant dense<[4, 16]> : tensor<2xi64>
  %shape = tide.concat %b, %s, %c axis = 0 : tensor<1xi64>, tensor<1xi64>, tensor<2xi64>
  %0 = tide.reshape %x, %shape : tensor<?x?x64xf32>, tensor<4xi64> to tensor<?x?x4x16xf32>
  return %0 : tensor<?x?x4x16xf32>
}

// Sizes only known from a vector at run time: each entry is read, and one
// may be -1 (the element count over the other sizes).
// CHECK-LABEL: func.func @reshape_runtime_vector(
// CHECK-SAME: %[[X:.*]]: tensor<?x64xf32>, %[[V:.*]]: tensor<2xi64>)
// CHECK-DAG: %[[E0:.*]] = tensor.extract %[[V]][%{{.*}}] : tensor<2xi64>
// CHECK-DAG: %[[E1:.*]] = tensor.extract %[[V]][%{{.*}}] : tensor<2xi64>
// CHECK-DAG: %[[N:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK-DAG: %[[I0:.*]] = arith.index_cast %[[E0]] : i64 to index
// CHECK: arith.cmpi eq, %[[I0]], %{{.*}} : index
// CHECK: arith.select
// CHECK: arith.cmpi eq
// CHECK: %[[S1:.*]] = arith.select
// CHECK: %[[SH:.*]] = tensor.from_elements %{{.*}}, %[[S1]] : tensor<2xindex>
// CHECK: tensor.reshape %[[X]](%[[SH]])
func.func @reshape_runtime_vector(%x: tensor<?x64xf32>, %v: tensor<2xi64>) -> tensor<?x?xf32> {
  %0 = tide.reshape %x, %v : tensor<?x64xf32>, tensor<2xi64> to tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// An attention mask (B, 1, 1, S) expanded to (B, 1, S, S): the size-1 axis
// broadcasts, its size comes from another tensor's dimension.
// CHECK-LABEL: func.func @broadcast_to_from_dims(
// CHECK-SAME: %[[M:.*]]: tensor<?x1x1x?xi1>, %[[X:.*]]: tensor<?x?xf32>)
// CHECK-DAG: %[[S:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x?xf32>
// CHECK-DAG: %[[B:.*]] = tensor.dim %[[M]], %{{.*}} : tensor<?x1x1x?xi1>
// CHECK-DAG: %[[T:.*]] = tensor.dim %[[M]], %{{.*}} : tensor<?x1x1x?xi1>
// CHECK: %[[E:.*]] = tensor.empty(%[[B]], %[[S]], %[[T]]) : tensor<?x1x?x?xi1>
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]
// CHECK-SAME: ins(%[[M]] : tensor<?x1x1x?xi1>) outs(%[[E]] : tensor<?x1x?x?xi1>)
func.func @broadcast_to_from_dims(%m: tensor<?x1x1x?xi1>, %x: tensor<?x?xf32>) -> tensor<?x1x?x?xi1> {
  %b = tide.dim %m axis = 0 : tensor<?x1x1x?xi1>
  %s = tide.dim %x axis = 1 : tensor<?x?xf32>
  %one = tide.constant dense<1> : tensor<1xi64>
  %shape = tide.concat %b, %one, %s, %s axis = 0 : tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>
  %0 = tide.broadcast_to %m, %shape : tensor<?x1x1x?xi1>, tensor<4xi64> to tensor<?x1x?x?xi1>
  return %0 : tensor<?x1x?x?xi1>
}

// Range(0, (n + 1) / 2): the count is host arithmetic on tensor.dim, the
// indices a generic over linalg.index.
// CHECK-LABEL: func.func @iota_count(
// CHECK-SAME: %[[X:.*]]: tensor<?x8xf32>)
// CHECK: %[[D:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x8xf32>
// CHECK: %[[D64:.*]] = arith.index_cast %[[D]] : index to i64
// CHECK: %[[A:.*]] = arith.addi %[[D64]], %{{.*}} : i64
// CHECK: %[[Q:.*]] = arith.divsi %[[A]], %{{.*}} : i64
// CHECK: %[[N:.*]] = arith.index_cast %[[Q]] : i64 to index
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?xf16>
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%[[E]] : tensor<?xf16>)
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: %[[I64:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK: %[[F:.*]] = arith.sitofp %[[I64]] : i64 to f16
// CHECK: linalg.yield %[[F]] : f16
func.func @iota_count(%x: tensor<?x8xf32>) -> tensor<?xf16> {
  %n = tide.dim %x axis = 0 : tensor<?x8xf32>
  %one = tide.constant dense<1> : tensor<1xi64>
  %two = tide.constant dense<2> : tensor<1xi64>
  %a = tide.add %n, %one : tensor<1xi64>
  %c = tide.div %a, %two : tensor<1xi64>
  %0 = tide.iota %c axis = 0 : tensor<1xi64> to tensor<?xf16>
  return %0 : tensor<?xf16>
}

// Positions sliced from a buffer up to min(S, 32): extract_slice with a size
// computed on the host.
// CHECK-LABEL: func.func @dynamic_slice_clamped(
// CHECK-SAME: %[[P:.*]]: tensor<1x32xi64>, %[[X:.*]]: tensor<?x?xi64>)
// CHECK: %[[S:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x?xi64>
// CHECK: %[[S64:.*]] = arith.index_cast %[[S]] : index to i64
// CHECK: %[[M:.*]] = arith.minsi %[[S64]], %{{.*}} : i64
// CHECK: %[[MI:.*]] = arith.index_cast %[[M]] : i64 to index
// CHECK: %[[N:.*]] = arith.maxsi %[[MI]], %{{.*}} : index
// CHECK: tensor.extract_slice %[[P]][0, 0] [1, %[[N]]] [1, 1] : tensor<1x32xi64> to tensor<1x?xi64>
func.func @dynamic_slice_clamped(%p: tensor<1x32xi64>, %x: tensor<?x?xi64>) -> tensor<1x?xi64> {
  %s = tide.dim %x axis = 1 : tensor<?x?xi64>
  %c32 = tide.constant dense<32> : tensor<1xi64>
  %m = tide.minimum %s, %c32 : tensor<1xi64>
  %zero = tide.constant dense<0> : tensor<2xi64>
  %one = tide.constant dense<1> : tensor<1xi64>
  %lim = tide.concat %one, %m axis = 0 : tensor<1xi64>, tensor<1xi64>
  %0 = tide.dynamic_slice %p, %zero, %lim strides = [1, 1] : tensor<1x32xi64>, tensor<2xi64> to tensor<1x?xi64>
  return %0 : tensor<1x?xi64>
}

// A strided slice with bounds from arguments: size ceil((limit - start) / 2).
// CHECK-LABEL: func.func @dynamic_slice_strided(
// CHECK-SAME: %[[X:.*]]: tensor<?x8xf32>, %[[A:.*]]: tensor<2xi64>, %[[B:.*]]: tensor<2xi64>)
// CHECK: arith.ceildivsi %{{.*}}, %{{.*}} : index
// CHECK: tensor.extract_slice %[[X]][%{{.*}}, %{{.*}}] [%{{.*}}, %{{.*}}] [2, 1] : tensor<?x8xf32> to tensor<?x?xf32>
func.func @dynamic_slice_strided(%x: tensor<?x8xf32>, %a: tensor<2xi64>, %b: tensor<2xi64>) -> tensor<?x?xf32> {
  %0 = tide.dynamic_slice %x, %a, %b strides = [2, 1] : tensor<?x8xf32>, tensor<2xi64> to tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// A size used as data: tide.dim alone is tensor.dim in a one-element tensor.
// CHECK-LABEL: func.func @dim_as_data(
// CHECK-SAME: %[[X:.*]]: tensor<?x8xf32>)
// CHECK: %[[D:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x8xf32>
// CHECK: %[[D64:.*]] = arith.index_cast %[[D]] : index to i64
// CHECK: %[[T:.*]] = tensor.from_elements %[[D64]] : tensor<1xi64>
// CHECK: return %[[T]]
func.func @dim_as_data(%x: tensor<?x8xf32>) -> tensor<1xi64> {
  %0 = tide.dim %x axis = 0 : tensor<?x8xf32>
  return %0 : tensor<1xi64>
}
