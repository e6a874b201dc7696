// RUN: tide-opt %s | tide-opt | FileCheck %s
// RUN: tide-opt %s --mlir-print-op-generic | tide-opt | FileCheck %s
// RUN: tide-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// Round trip of every tide op and of the device attributes, in the custom and
// the generic form. Results of ops that infer their type are returned, so the
// inferred type is pinned by the `return` (and the function signature).

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

// Every supported element type, splat and non-splat, ranked and rank-0.
// CHECK-LABEL: func.func @constant_all_types(
// CHECK: %[[I1:.*]] = tide.constant dense<[true, false]> : tensor<2xi1>
// CHECK: %[[I8:.*]] = tide.constant dense<[-128, 127]> : tensor<2xi8>
// CHECK: %[[I16:.*]] = tide.constant dense<-7> : tensor<3xi16>
// CHECK: %[[I32:.*]] = tide.constant dense<{{\[}}[1, 2], [3, 4]]> : tensor<2x2xi32>
// CHECK: %[[I64:.*]] = tide.constant dense<9000000000> : tensor<i64>
// CHECK: %[[F16:.*]] = tide.constant dense<1.500000e+00> : tensor<4xf16>
// CHECK: %[[BF16:.*]] = tide.constant dense<[1.000000e+00, -2.000000e+00]> : tensor<2xbf16>
// CHECK: %[[F32:.*]] = tide.constant dense<2.500000e-01> : tensor<f32>
// CHECK: %[[F64:.*]] = tide.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf64>
// CHECK: return %[[I1]], %[[I8]], %[[I16]], %[[I32]], %[[I64]], %[[F16]], %[[BF16]], %[[F32]], %[[F64]]
func.func @constant_all_types() -> (tensor<2xi1>, tensor<2xi8>, tensor<3xi16>,
    tensor<2x2xi32>, tensor<i64>, tensor<4xf16>, tensor<2xbf16>, tensor<f32>,
    tensor<3xf64>) {
  %i1 = tide.constant dense<[true, false]> : tensor<2xi1>
  %i8 = tide.constant dense<[-128, 127]> : tensor<2xi8>
  %i16 = tide.constant dense<-7> : tensor<3xi16>
  %i32 = tide.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %i64 = tide.constant dense<9000000000> : tensor<i64>
  %f16 = tide.constant dense<1.5> : tensor<4xf16>
  %bf16 = tide.constant dense<[1.0, -2.0]> : tensor<2xbf16>
  %f32 = tide.constant dense<0.25> : tensor<f32>
  %f64 = tide.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf64>
  return %i1, %i8, %i16, %i32, %i64, %f16, %bf16, %f32, %f64
      : tensor<2xi1>, tensor<2xi8>, tensor<3xi16>, tensor<2x2xi32>, tensor<i64>,
        tensor<4xf16>, tensor<2xbf16>, tensor<f32>, tensor<3xf64>
}

//===----------------------------------------------------------------------===//
// Unary elementwise
//===----------------------------------------------------------------------===//

// Every float-only and numeric unary op on f32 with a dynamic dimension.
// CHECK-LABEL: func.func @unary_float(
// CHECK-SAME: %[[X:.*]]: tensor<4x?xf32>)
// CHECK: %[[NEG:.*]] = tide.neg %[[X]] : tensor<4x?xf32>
// CHECK: %[[ABS:.*]] = tide.abs %[[NEG]] : tensor<4x?xf32>
// CHECK: %[[EXP:.*]] = tide.exp %[[ABS]] : tensor<4x?xf32>
// CHECK: %[[LOG:.*]] = tide.log %[[EXP]] : tensor<4x?xf32>
// CHECK: %[[SQRT:.*]] = tide.sqrt %[[LOG]] : tensor<4x?xf32>
// CHECK: %[[RSQRT:.*]] = tide.rsqrt %[[SQRT]] : tensor<4x?xf32>
// CHECK: %[[TANH:.*]] = tide.tanh %[[RSQRT]] : tensor<4x?xf32>
// CHECK: %[[SIG:.*]] = tide.sigmoid %[[TANH]] : tensor<4x?xf32>
// CHECK: %[[RELU:.*]] = tide.relu %[[SIG]] : tensor<4x?xf32>
// CHECK: %[[FLOOR:.*]] = tide.floor %[[RELU]] : tensor<4x?xf32>
// CHECK: %[[CEIL:.*]] = tide.ceil %[[FLOOR]] : tensor<4x?xf32>
// CHECK: %[[ROUND:.*]] = tide.round %[[CEIL]] : tensor<4x?xf32>
// CHECK: %[[SIN:.*]] = tide.sin %[[ROUND]] : tensor<4x?xf32>
// CHECK: %[[COS:.*]] = tide.cos %[[SIN]] : tensor<4x?xf32>
// CHECK: %[[ERF:.*]] = tide.erf %[[COS]] : tensor<4x?xf32>
// CHECK: return %[[ERF]] : tensor<4x?xf32>
func.func @unary_float(%x: tensor<4x?xf32>) -> tensor<4x?xf32> {
  %0 = tide.neg %x : tensor<4x?xf32>
  %1 = tide.abs %0 : tensor<4x?xf32>
  %2 = tide.exp %1 : tensor<4x?xf32>
  %3 = tide.log %2 : tensor<4x?xf32>
  %4 = tide.sqrt %3 : tensor<4x?xf32>
  %5 = tide.rsqrt %4 : tensor<4x?xf32>
  %6 = tide.tanh %5 : tensor<4x?xf32>
  %7 = tide.sigmoid %6 : tensor<4x?xf32>
  %8 = tide.relu %7 : tensor<4x?xf32>
  %9 = tide.floor %8 : tensor<4x?xf32>
  %10 = tide.ceil %9 : tensor<4x?xf32>
  %r = tide.round %10 : tensor<4x?xf32>
  %11 = tide.sin %r : tensor<4x?xf32>
  %12 = tide.cos %11 : tensor<4x?xf32>
  %13 = tide.erf %12 : tensor<4x?xf32>
  return %13 : tensor<4x?xf32>
}

// Inverse and hyperbolic trigonometry, and sign, on f64 with a dynamic dimension.
// CHECK-LABEL: func.func @unary_trigonometry(
// CHECK-SAME: %[[X:.*]]: tensor<?x3xf64>)
// CHECK: %[[TAN:.*]] = tide.tan %[[X]] : tensor<?x3xf64>
// CHECK: %[[ASIN:.*]] = tide.asin %[[TAN]] : tensor<?x3xf64>
// CHECK: %[[ACOS:.*]] = tide.acos %[[ASIN]] : tensor<?x3xf64>
// CHECK: %[[ATAN:.*]] = tide.atan %[[ACOS]] : tensor<?x3xf64>
// CHECK: %[[SINH:.*]] = tide.sinh %[[ATAN]] : tensor<?x3xf64>
// CHECK: %[[COSH:.*]] = tide.cosh %[[SINH]] : tensor<?x3xf64>
// CHECK: %[[ASINH:.*]] = tide.asinh %[[COSH]] : tensor<?x3xf64>
// CHECK: %[[ACOSH:.*]] = tide.acosh %[[ASINH]] : tensor<?x3xf64>
// CHECK: %[[ATANH:.*]] = tide.atanh %[[ACOSH]] : tensor<?x3xf64>
// CHECK: %[[SIGN:.*]] = tide.sign %[[ATANH]] : tensor<?x3xf64>
// CHECK: return %[[SIGN]] : tensor<?x3xf64>
func.func @unary_trigonometry(%x: tensor<?x3xf64>) -> tensor<?x3xf64> {
  %0 = tide.tan %x : tensor<?x3xf64>
  %1 = tide.asin %0 : tensor<?x3xf64>
  %2 = tide.acos %1 : tensor<?x3xf64>
  %3 = tide.atan %2 : tensor<?x3xf64>
  %4 = tide.sinh %3 : tensor<?x3xf64>
  %5 = tide.cosh %4 : tensor<?x3xf64>
  %6 = tide.asinh %5 : tensor<?x3xf64>
  %7 = tide.acosh %6 : tensor<?x3xf64>
  %8 = tide.atanh %7 : tensor<?x3xf64>
  %9 = tide.sign %8 : tensor<?x3xf64>
  return %9 : tensor<?x3xf64>
}

// Float-only ops accept the narrow and wide float types too (f16, bf16, f64).
// CHECK-LABEL: func.func @unary_other_floats(
// CHECK-SAME: %[[H:.*]]: tensor<8xf16>, %[[B:.*]]: tensor<?x2xbf16>, %[[D:.*]]: tensor<f64>)
// CHECK: %[[E:.*]] = tide.exp %[[H]] : tensor<8xf16>
// CHECK: %[[T:.*]] = tide.tanh %[[B]] : tensor<?x2xbf16>
// CHECK: %[[S:.*]] = tide.sqrt %[[D]] : tensor<f64>
// CHECK: return %[[E]], %[[T]], %[[S]] : tensor<8xf16>, tensor<?x2xbf16>, tensor<f64>
func.func @unary_other_floats(%h: tensor<8xf16>, %b: tensor<?x2xbf16>,
                              %d: tensor<f64>)
    -> (tensor<8xf16>, tensor<?x2xbf16>, tensor<f64>) {
  %0 = tide.exp %h : tensor<8xf16>
  %1 = tide.tanh %b : tensor<?x2xbf16>
  %2 = tide.sqrt %d : tensor<f64>
  return %0, %1, %2 : tensor<8xf16>, tensor<?x2xbf16>, tensor<f64>
}

// Numeric unary ops on integers, and `not` on i1 (logical) and i8 (bitwise).
// CHECK-LABEL: func.func @unary_integer(
// CHECK-SAME: %[[I:.*]]: tensor<?xi32>, %[[B:.*]]: tensor<3xi1>, %[[C:.*]]: tensor<3xi8>)
// CHECK: %[[NEG:.*]] = tide.neg %[[I]] : tensor<?xi32>
// CHECK: %[[ABS:.*]] = tide.abs %[[NEG]] : tensor<?xi32>
// CHECK: %[[RELU:.*]] = tide.relu %[[ABS]] : tensor<?xi32>
// CHECK: %[[NOTB:.*]] = tide.not %[[B]] : tensor<3xi1>
// CHECK: %[[NOTC:.*]] = tide.not %[[C]] : tensor<3xi8>
// CHECK: return %[[RELU]], %[[NOTB]], %[[NOTC]] : tensor<?xi32>, tensor<3xi1>, tensor<3xi8>
func.func @unary_integer(%i: tensor<?xi32>, %b: tensor<3xi1>, %c: tensor<3xi8>)
    -> (tensor<?xi32>, tensor<3xi1>, tensor<3xi8>) {
  %0 = tide.neg %i : tensor<?xi32>
  %1 = tide.abs %0 : tensor<?xi32>
  %2 = tide.relu %1 : tensor<?xi32>
  %3 = tide.not %b : tensor<3xi1>
  %4 = tide.not %c : tensor<3xi8>
  return %2, %3, %4 : tensor<?xi32>, tensor<3xi1>, tensor<3xi8>
}

// elu with alpha, without alpha (default 1.0), and with alpha = 1.0 spelled out (printed elided).
// CHECK-LABEL: func.func @elu(
// CHECK-SAME: %[[X:.*]]: tensor<256x256xf32>, %[[Y:.*]]: tensor<?x?xf64>)
// CHECK: %[[A:.*]] = tide.elu %[[X]] alpha = 5.000000e-01 : tensor<256x256xf32>
// CHECK: %[[B:.*]] = tide.elu %[[Y]] : tensor<?x?xf64>
// CHECK: %[[C:.*]] = tide.elu %[[Y]] : tensor<?x?xf64>
// CHECK: return %[[A]], %[[B]], %[[C]]
func.func @elu(%x: tensor<256x256xf32>, %y: tensor<?x?xf64>)
    -> (tensor<256x256xf32>, tensor<?x?xf64>, tensor<?x?xf64>) {
  %0 = tide.elu %x alpha = 0.5 : tensor<256x256xf32>
  %1 = tide.elu %y : tensor<?x?xf64>
  %2 = tide.elu %y alpha = 1.0 : tensor<?x?xf64>
  return %0, %1, %2 : tensor<256x256xf32>, tensor<?x?xf64>, tensor<?x?xf64>
}

// GENERIC-LABEL: sym_name = "elu"
// GENERIC: "tide.elu"(%{{.*}}) <{alpha = 5.000000e-01 : f64}> : (tensor<256x256xf32>) -> tensor<256x256xf32>
// GENERIC: "tide.elu"(%{{.*}}) <{alpha = 1.000000e+00 : f64}> : (tensor<?x?xf64>) -> tensor<?x?xf64>

//===----------------------------------------------------------------------===//
// Binary elementwise
//===----------------------------------------------------------------------===//

// Every numeric binary op with equal operand types: the type is written once.
// CHECK-LABEL: func.func @binary_same_type(
// CHECK-SAME: %[[X:.*]]: tensor<4x3xf32>, %[[Y:.*]]: tensor<4x3xf32>)
// CHECK: %[[ADD:.*]] = tide.add %[[X]], %[[Y]] : tensor<4x3xf32>
// CHECK: %[[SUB:.*]] = tide.sub %[[ADD]], %[[Y]] : tensor<4x3xf32>
// CHECK: %[[MUL:.*]] = tide.mul %[[SUB]], %[[Y]] : tensor<4x3xf32>
// CHECK: %[[DIV:.*]] = tide.div %[[MUL]], %[[Y]] : tensor<4x3xf32>
// CHECK: %[[POW:.*]] = tide.pow %[[DIV]], %[[Y]] : tensor<4x3xf32>
// CHECK: %[[MAX:.*]] = tide.maximum %[[POW]], %[[Y]] : tensor<4x3xf32>
// CHECK: %[[MIN:.*]] = tide.minimum %[[MAX]], %[[Y]] : tensor<4x3xf32>
// CHECK: return %[[MIN]] : tensor<4x3xf32>
func.func @binary_same_type(%x: tensor<4x3xf32>, %y: tensor<4x3xf32>)
    -> tensor<4x3xf32> {
  %0 = tide.add %x, %y : tensor<4x3xf32>
  %1 = tide.sub %0, %y : tensor<4x3xf32>
  %2 = tide.mul %1, %y : tensor<4x3xf32>
  %3 = tide.div %2, %y : tensor<4x3xf32>
  %4 = tide.pow %3, %y : tensor<4x3xf32>
  %5 = tide.maximum %4, %y : tensor<4x3xf32>
  %6 = tide.minimum %5, %y : tensor<4x3xf32>
  return %6 : tensor<4x3xf32>
}

// Integer arithmetic (i16, i64) and and/or on i1 (logical) and i64 (bitwise).
// CHECK-LABEL: func.func @binary_integer(
// CHECK-SAME: %[[S:.*]]: tensor<5xi16>, %[[L:.*]]: tensor<5xi64>, %[[B:.*]]: tensor<5xi1>)
// CHECK: %[[DIV:.*]] = tide.div %[[S]], %[[S]] : tensor<5xi16>
// CHECK: %[[MAX:.*]] = tide.maximum %[[L]], %[[L]] : tensor<5xi64>
// CHECK: %[[AND:.*]] = tide.and %[[B]], %[[B]] : tensor<5xi1>
// CHECK: %[[OR:.*]] = tide.or %[[MAX]], %[[L]] : tensor<5xi64>
// CHECK: return %[[DIV]], %[[AND]], %[[OR]] : tensor<5xi16>, tensor<5xi1>, tensor<5xi64>
func.func @binary_integer(%s: tensor<5xi16>, %l: tensor<5xi64>, %b: tensor<5xi1>)
    -> (tensor<5xi16>, tensor<5xi1>, tensor<5xi64>) {
  %0 = tide.div %s, %s : tensor<5xi16>
  %1 = tide.maximum %l, %l : tensor<5xi64>
  %2 = tide.and %b, %b : tensor<5xi1>
  %3 = tide.or %1, %l : tensor<5xi64>
  return %0, %2, %3 : tensor<5xi16>, tensor<5xi1>, tensor<5xi64>
}

// Remainders on floats and integers, shifts and xor on integers, xor on i1,
// sign on an integer, with and without broadcasting.
// CHECK-LABEL: func.func @binary_remainders_and_bits(
// CHECK-SAME: %[[F:.*]]: tensor<4x3xf32>, %[[G:.*]]: tensor<3xf32>, %[[I:.*]]: tensor<?xi8>, %[[B:.*]]: tensor<?xi1>)
// CHECK: %[[REMF:.*]] = tide.rem %[[F]], %[[G]] : tensor<4x3xf32>, tensor<3xf32>
// CHECK: %[[MODF:.*]] = tide.mod %[[REMF]], %[[F]] : tensor<4x3xf32>
// CHECK: %[[REMI:.*]] = tide.rem %[[I]], %[[I]] : tensor<?xi8>
// CHECK: %[[MODI:.*]] = tide.mod %[[REMI]], %[[I]] : tensor<?xi8>
// CHECK: %[[SHL:.*]] = tide.shl %[[MODI]], %[[I]] : tensor<?xi8>
// CHECK: %[[SHR:.*]] = tide.shr %[[SHL]], %[[I]] : tensor<?xi8>
// CHECK: %[[XOR:.*]] = tide.xor %[[SHR]], %[[I]] : tensor<?xi8>
// CHECK: %[[SIGN:.*]] = tide.sign %[[XOR]] : tensor<?xi8>
// CHECK: %[[XORB:.*]] = tide.xor %[[B]], %[[B]] : tensor<?xi1>
// CHECK: return %[[MODF]], %[[SIGN]], %[[XORB]] : tensor<4x3xf32>, tensor<?xi8>, tensor<?xi1>
func.func @binary_remainders_and_bits(%f: tensor<4x3xf32>, %g: tensor<3xf32>,
                                      %i: tensor<?xi8>, %b: tensor<?xi1>)
    -> (tensor<4x3xf32>, tensor<?xi8>, tensor<?xi1>) {
  %0 = tide.rem %f, %g : tensor<4x3xf32>, tensor<3xf32>
  %1 = tide.mod %0, %f : tensor<4x3xf32>
  %2 = tide.rem %i, %i : tensor<?xi8>
  %3 = tide.mod %2, %i : tensor<?xi8>
  %4 = tide.shl %3, %i : tensor<?xi8>
  %5 = tide.shr %4, %i : tensor<?xi8>
  %6 = tide.xor %5, %i : tensor<?xi8>
  %7 = tide.sign %6 : tensor<?xi8>
  %8 = tide.xor %b, %b : tensor<?xi1>
  return %1, %7, %8 : tensor<4x3xf32>, tensor<?xi8>, tensor<?xi1>
}

// Static NumPy broadcasting: row bias, [4, 1] x [1, 3], and the smaller operand on the left.
// CHECK-LABEL: func.func @binary_broadcast_static(
// CHECK-SAME: %[[M:.*]]: tensor<4x3xf64>, %[[V:.*]]: tensor<3xf64>, %[[C:.*]]: tensor<4x1xf64>, %[[R:.*]]: tensor<1x3xf64>)
// CHECK: %[[A:.*]] = tide.add %[[M]], %[[V]] : tensor<4x3xf64>, tensor<3xf64>
// CHECK: %[[B:.*]] = tide.mul %[[C]], %[[R]] : tensor<4x1xf64>, tensor<1x3xf64>
// CHECK: %[[D:.*]] = tide.sub %[[V]], %[[M]] : tensor<3xf64>, tensor<4x3xf64>
// CHECK: return %[[A]], %[[B]], %[[D]] : tensor<4x3xf64>, tensor<4x3xf64>, tensor<4x3xf64>
func.func @binary_broadcast_static(%m: tensor<4x3xf64>, %v: tensor<3xf64>,
                                   %c: tensor<4x1xf64>, %r: tensor<1x3xf64>)
    -> (tensor<4x3xf64>, tensor<4x3xf64>, tensor<4x3xf64>) {
  %0 = tide.add %m, %v : tensor<4x3xf64>, tensor<3xf64>
  %1 = tide.mul %c, %r : tensor<4x1xf64>, tensor<1x3xf64>
  %2 = tide.sub %v, %m : tensor<3xf64>, tensor<4x3xf64>
  return %0, %1, %2 : tensor<4x3xf64>, tensor<4x3xf64>, tensor<4x3xf64>
}

// Broadcasting with `?`: ? vs N gives N, ? vs 1 or ? stays ?, ?x1 vs 1x5 gives ?x5.
// CHECK-LABEL: func.func @binary_broadcast_dynamic(
// CHECK-SAME: %[[A:.*]]: tensor<?x3xf32>, %[[B:.*]]: tensor<3xf32>, %[[C:.*]]: tensor<?xf32>, %[[D:.*]]: tensor<4xf32>, %[[E:.*]]: tensor<1xf32>, %[[F:.*]]: tensor<?x1xf32>, %[[G:.*]]: tensor<1x5xf32>)
// CHECK: %[[R0:.*]] = tide.add %[[A]], %[[B]] : tensor<?x3xf32>, tensor<3xf32>
// CHECK: %[[R1:.*]] = tide.sub %[[C]], %[[D]] : tensor<?xf32>, tensor<4xf32>
// CHECK: %[[R2:.*]] = tide.mul %[[C]], %[[E]] : tensor<?xf32>, tensor<1xf32>
// CHECK: %[[R3:.*]] = tide.div %[[C]], %[[C]] : tensor<?xf32>
// CHECK: %[[R4:.*]] = tide.maximum %[[F]], %[[G]] : tensor<?x1xf32>, tensor<1x5xf32>
// CHECK: return %[[R0]], %[[R1]], %[[R2]], %[[R3]], %[[R4]] : tensor<?x3xf32>, tensor<4xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?x5xf32>
func.func @binary_broadcast_dynamic(%a: tensor<?x3xf32>, %b: tensor<3xf32>,
                                    %c: tensor<?xf32>, %d: tensor<4xf32>,
                                    %e: tensor<1xf32>, %f: tensor<?x1xf32>,
                                    %g: tensor<1x5xf32>)
    -> (tensor<?x3xf32>, tensor<4xf32>, tensor<?xf32>, tensor<?xf32>,
        tensor<?x5xf32>) {
  %0 = tide.add %a, %b : tensor<?x3xf32>, tensor<3xf32>
  %1 = tide.sub %c, %d : tensor<?xf32>, tensor<4xf32>
  %2 = tide.mul %c, %e : tensor<?xf32>, tensor<1xf32>
  %3 = tide.div %c, %c : tensor<?xf32>
  %4 = tide.maximum %f, %g : tensor<?x1xf32>, tensor<1x5xf32>
  return %0, %1, %2, %3, %4 : tensor<?x3xf32>, tensor<4xf32>, tensor<?xf32>,
      tensor<?xf32>, tensor<?x5xf32>
}

// GENERIC-LABEL: sym_name = "binary_broadcast_dynamic"
// GENERIC: "tide.add"(%{{.*}}, %{{.*}}) : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
// GENERIC: "tide.sub"(%{{.*}}, %{{.*}}) : (tensor<?xf32>, tensor<4xf32>) -> tensor<4xf32>
// GENERIC: "tide.maximum"(%{{.*}}, %{{.*}}) : (tensor<?x1xf32>, tensor<1x5xf32>) -> tensor<?x5xf32>

// cmp with each predicate on float, integer and i1 operands; result is i1 of the broadcast shape.
// CHECK-LABEL: func.func @cmp_predicates(
// CHECK-SAME: %[[X:.*]]: tensor<4x?xf32>, %[[Y:.*]]: tensor<?xf32>, %[[I:.*]]: tensor<2x1xi16>, %[[J:.*]]: tensor<3xi16>, %[[B:.*]]: tensor<3xi1>)
// CHECK: %[[EQ:.*]] = tide.cmp eq, %[[X]], %[[Y]] : tensor<4x?xf32>, tensor<?xf32>
// CHECK: %[[NE:.*]] = tide.cmp ne, %[[X]], %[[X]] : tensor<4x?xf32>
// CHECK: %[[LT:.*]] = tide.cmp lt, %[[I]], %[[J]] : tensor<2x1xi16>, tensor<3xi16>
// CHECK: %[[LE:.*]] = tide.cmp le, %[[J]], %[[J]] : tensor<3xi16>
// CHECK: %[[GT:.*]] = tide.cmp gt, %[[Y]], %[[Y]] : tensor<?xf32>
// CHECK: %[[GE:.*]] = tide.cmp ge, %[[B]], %[[B]] : tensor<3xi1>
// CHECK: return %[[EQ]], %[[NE]], %[[LT]], %[[LE]], %[[GT]], %[[GE]] : tensor<4x?xi1>, tensor<4x?xi1>, tensor<2x3xi1>, tensor<3xi1>, tensor<?xi1>, tensor<3xi1>
func.func @cmp_predicates(%x: tensor<4x?xf32>, %y: tensor<?xf32>,
                          %i: tensor<2x1xi16>, %j: tensor<3xi16>,
                          %b: tensor<3xi1>)
    -> (tensor<4x?xi1>, tensor<4x?xi1>, tensor<2x3xi1>, tensor<3xi1>,
        tensor<?xi1>, tensor<3xi1>) {
  %0 = tide.cmp eq, %x, %y : tensor<4x?xf32>, tensor<?xf32>
  %1 = tide.cmp ne, %x, %x : tensor<4x?xf32>
  %2 = tide.cmp lt, %i, %j : tensor<2x1xi16>, tensor<3xi16>
  %3 = tide.cmp le, %j, %j : tensor<3xi16>
  %4 = tide.cmp gt, %y, %y : tensor<?xf32>
  %5 = tide.cmp ge, %b, %b : tensor<3xi1>
  return %0, %1, %2, %3, %4, %5 : tensor<4x?xi1>, tensor<4x?xi1>,
      tensor<2x3xi1>, tensor<3xi1>, tensor<?xi1>, tensor<3xi1>
}

// GENERIC-LABEL: sym_name = "cmp_predicates"
// GENERIC: "tide.cmp"(%{{.*}}, %{{.*}}) <{predicate = 0 : i32}> : (tensor<4x?xf32>, tensor<?xf32>) -> tensor<4x?xi1>
// GENERIC: "tide.cmp"(%{{.*}}, %{{.*}}) <{predicate = 2 : i32}> : (tensor<2x1xi16>, tensor<3xi16>) -> tensor<2x3xi1>

// select: equal shapes, and a condition that broadcasts against the values.
// CHECK-LABEL: func.func @select(
// CHECK-SAME: %[[M:.*]]: tensor<4xi1>, %[[X:.*]]: tensor<4xf32>, %[[N:.*]]: tensor<?x1xi1>, %[[A:.*]]: tensor<3xbf16>, %[[B:.*]]: tensor<1xbf16>)
// CHECK: %[[S0:.*]] = tide.select %[[M]], %[[X]], %[[X]] : tensor<4xi1>, tensor<4xf32>, tensor<4xf32>
// CHECK: %[[S1:.*]] = tide.select %[[N]], %[[A]], %[[B]] : tensor<?x1xi1>, tensor<3xbf16>, tensor<1xbf16>
// CHECK: return %[[S0]], %[[S1]] : tensor<4xf32>, tensor<?x3xbf16>
func.func @select(%m: tensor<4xi1>, %x: tensor<4xf32>, %n: tensor<?x1xi1>,
                  %a: tensor<3xbf16>, %b: tensor<1xbf16>)
    -> (tensor<4xf32>, tensor<?x3xbf16>) {
  %0 = tide.select %m, %x, %x : tensor<4xi1>, tensor<4xf32>, tensor<4xf32>
  %1 = tide.select %n, %a, %b : tensor<?x1xi1>, tensor<3xbf16>, tensor<1xbf16>
  return %0, %1 : tensor<4xf32>, tensor<?x3xbf16>
}

//===----------------------------------------------------------------------===//
// Cast and transfer
//===----------------------------------------------------------------------===//

// cast between float widths, float <-> integer, to i1, and refining a `?`.
// CHECK-LABEL: func.func @cast(
// CHECK-SAME: %[[X:.*]]: tensor<?x3xf32>, %[[I:.*]]: tensor<3xi32>, %[[H:.*]]: tensor<3xbf16>)
// CHECK: %[[D:.*]] = tide.cast %[[X]] : tensor<?x3xf32> to tensor<?x3xf64>
// CHECK: %[[S:.*]] = tide.cast %[[X]] : tensor<?x3xf32> to tensor<2x3xf16>
// CHECK: %[[F:.*]] = tide.cast %[[I]] : tensor<3xi32> to tensor<3xf32>
// CHECK: %[[B:.*]] = tide.cast %[[I]] : tensor<3xi32> to tensor<3xi1>
// CHECK: %[[C:.*]] = tide.cast %[[H]] : tensor<3xbf16> to tensor<3xi8>
// CHECK: return %[[D]], %[[S]], %[[F]], %[[B]], %[[C]]
func.func @cast(%x: tensor<?x3xf32>, %i: tensor<3xi32>, %h: tensor<3xbf16>)
    -> (tensor<?x3xf64>, tensor<2x3xf16>, tensor<3xf32>, tensor<3xi1>,
        tensor<3xi8>) {
  %0 = tide.cast %x : tensor<?x3xf32> to tensor<?x3xf64>
  %1 = tide.cast %x : tensor<?x3xf32> to tensor<2x3xf16>
  %2 = tide.cast %i : tensor<3xi32> to tensor<3xf32>
  %3 = tide.cast %i : tensor<3xi32> to tensor<3xi1>
  %4 = tide.cast %h : tensor<3xbf16> to tensor<3xi8>
  return %0, %1, %2, %3, %4 : tensor<?x3xf64>, tensor<2x3xf16>, tensor<3xf32>,
      tensor<3xi1>, tensor<3xi8>
}

// transfer to a GPU and back to the host; the device ends the op's syntax.
// CHECK-LABEL: func.func @transfer(
// CHECK-SAME: %[[X:.*]]: tensor<230400xf32>)
// CHECK: %[[G:.*]] = tide.transfer %[[X]] : tensor<230400xf32> to #tide.device<cuda:0>
// CHECK: %[[H:.*]] = tide.transfer %[[G]] : tensor<230400xf32> to #tide.device<cpu>
// CHECK: return %[[H]] : tensor<230400xf32>
func.func @transfer(%x: tensor<230400xf32>) -> tensor<230400xf32> {
  %0 = tide.transfer %x : tensor<230400xf32> to #tide.device<cuda:0>
  %1 = tide.transfer %0 : tensor<230400xf32> to #tide.device<cpu>
  return %1 : tensor<230400xf32>
}

// GENERIC-LABEL: sym_name = "transfer"
// GENERIC: "tide.transfer"(%{{.*}}) <{to = #tide.device<cuda:0>}> : (tensor<230400xf32>) -> tensor<230400xf32>

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

// Plain 2-D matmul: [M, K] x [K, N] -> [M, N].
// CHECK-LABEL: func.func @matmul_2d(
// CHECK-SAME: %[[A:.*]]: tensor<256x784xf32>, %[[B:.*]]: tensor<784x256xf32>)
// CHECK: %[[C:.*]] = tide.matmul %[[A]], %[[B]] : tensor<256x784xf32>, tensor<784x256xf32>
// CHECK: return %[[C]] : tensor<256x256xf32>
func.func @matmul_2d(%a: tensor<256x784xf32>, %b: tensor<784x256xf32>)
    -> tensor<256x256xf32> {
  %0 = tide.matmul %a, %b : tensor<256x784xf32>, tensor<784x256xf32>
  return %0 : tensor<256x256xf32>
}

// Batched matmul with equal batch dims, on i8 and on f64 with one type written once.
// CHECK-LABEL: func.func @matmul_batched(
// CHECK-SAME: %[[A:.*]]: tensor<8x4x5xi8>, %[[B:.*]]: tensor<8x5x6xi8>, %[[S:.*]]: tensor<2x3x3xf64>)
// CHECK: %[[C:.*]] = tide.matmul %[[A]], %[[B]] : tensor<8x4x5xi8>, tensor<8x5x6xi8>
// CHECK: %[[D:.*]] = tide.matmul %[[S]], %[[S]] : tensor<2x3x3xf64>
// CHECK: return %[[C]], %[[D]] : tensor<8x4x6xi8>, tensor<2x3x3xf64>
func.func @matmul_batched(%a: tensor<8x4x5xi8>, %b: tensor<8x5x6xi8>,
                          %s: tensor<2x3x3xf64>)
    -> (tensor<8x4x6xi8>, tensor<2x3x3xf64>) {
  %0 = tide.matmul %a, %b : tensor<8x4x5xi8>, tensor<8x5x6xi8>
  %1 = tide.matmul %s, %s : tensor<2x3x3xf64>
  return %0, %1 : tensor<8x4x6xi8>, tensor<2x3x3xf64>
}

// Batch dims broadcast like NumPy: 2-D rhs against 4-D lhs, and batch [2, 1] against [3].
// CHECK-LABEL: func.func @matmul_broadcast_batch(
// CHECK-SAME: %[[P:.*]]: tensor<8x?x4x5xf32>, %[[Q:.*]]: tensor<5x6xf32>, %[[R:.*]]: tensor<2x1x4x5xf16>, %[[S:.*]]: tensor<3x5x7xf16>)
// CHECK: %[[C:.*]] = tide.matmul %[[P]], %[[Q]] : tensor<8x?x4x5xf32>, tensor<5x6xf32>
// CHECK: %[[D:.*]] = tide.matmul %[[R]], %[[S]] : tensor<2x1x4x5xf16>, tensor<3x5x7xf16>
// CHECK: return %[[C]], %[[D]] : tensor<8x?x4x6xf32>, tensor<2x3x4x7xf16>
func.func @matmul_broadcast_batch(%p: tensor<8x?x4x5xf32>, %q: tensor<5x6xf32>,
                                  %r: tensor<2x1x4x5xf16>,
                                  %s: tensor<3x5x7xf16>)
    -> (tensor<8x?x4x6xf32>, tensor<2x3x4x7xf16>) {
  %0 = tide.matmul %p, %q : tensor<8x?x4x5xf32>, tensor<5x6xf32>
  %1 = tide.matmul %r, %s : tensor<2x1x4x5xf16>, tensor<3x5x7xf16>
  return %0, %1 : tensor<8x?x4x6xf32>, tensor<2x3x4x7xf16>
}

// Dynamic M, K and N: ? K matches a static K; ? M and N carry over to the result.
// CHECK-LABEL: func.func @matmul_dynamic(
// CHECK-SAME: %[[A:.*]]: tensor<?x?xi64>, %[[B:.*]]: tensor<7x?xi64>, %[[C:.*]]: tensor<?x3x7xi64>)
// CHECK: %[[X:.*]] = tide.matmul %[[A]], %[[B]] : tensor<?x?xi64>, tensor<7x?xi64>
// CHECK: %[[Y:.*]] = tide.matmul %[[C]], %[[A]] : tensor<?x3x7xi64>, tensor<?x?xi64>
// CHECK: return %[[X]], %[[Y]] : tensor<?x?xi64>, tensor<?x3x?xi64>
func.func @matmul_dynamic(%a: tensor<?x?xi64>, %b: tensor<7x?xi64>,
                          %c: tensor<?x3x7xi64>)
    -> (tensor<?x?xi64>, tensor<?x3x?xi64>) {
  %0 = tide.matmul %a, %b : tensor<?x?xi64>, tensor<7x?xi64>
  %1 = tide.matmul %c, %a : tensor<?x3x7xi64>, tensor<?x?xi64>
  return %0, %1 : tensor<?x?xi64>, tensor<?x3x?xi64>
}

// GENERIC-LABEL: sym_name = "matmul_dynamic"
// GENERIC: "tide.matmul"(%{{.*}}, %{{.*}}) : (tensor<?x?xi64>, tensor<7x?xi64>) -> tensor<?x?xi64>

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

// Every reduction with one/several/negative axes and keepdims; argmax/argmin give i64.
// CHECK-LABEL: func.func @reductions(
// CHECK-SAME: %[[X:.*]]: tensor<256x?x10xf32>, %[[I:.*]]: tensor<4x6xi32>)
// CHECK: %[[SUM:.*]] = tide.reduce_sum %[[X]] axes = [1] : tensor<256x?x10xf32>
// CHECK: %[[MEAN:.*]] = tide.reduce_mean %[[X]] axes = [0, 2] keepdims : tensor<256x?x10xf32>
// CHECK: %[[MAX:.*]] = tide.reduce_max %[[X]] axes = [-1] : tensor<256x?x10xf32>
// CHECK: %[[MIN:.*]] = tide.reduce_min %[[I]] axes = [-2, 1] : tensor<4x6xi32>
// CHECK: %[[PROD:.*]] = tide.reduce_prod %[[I]] axes = [0] keepdims : tensor<4x6xi32>
// CHECK: %[[AMAX:.*]] = tide.argmax %[[X]] axes = [-1] keepdims : tensor<256x?x10xf32>
// CHECK: %[[AMIN:.*]] = tide.argmin %[[I]] axes = [0] : tensor<4x6xi32>
// CHECK: return %[[SUM]], %[[MEAN]], %[[MAX]], %[[MIN]], %[[PROD]], %[[AMAX]], %[[AMIN]] : tensor<256x10xf32>, tensor<1x?x1xf32>, tensor<256x?xf32>, tensor<i32>, tensor<1x6xi32>, tensor<256x?x1xi64>, tensor<6xi64>
func.func @reductions(%x: tensor<256x?x10xf32>, %i: tensor<4x6xi32>)
    -> (tensor<256x10xf32>, tensor<1x?x1xf32>, tensor<256x?xf32>, tensor<i32>,
        tensor<1x6xi32>, tensor<256x?x1xi64>, tensor<6xi64>) {
  %0 = tide.reduce_sum %x axes = [1] : tensor<256x?x10xf32>
  %1 = tide.reduce_mean %x axes = [0, 2] keepdims : tensor<256x?x10xf32>
  %2 = tide.reduce_max %x axes = [-1] : tensor<256x?x10xf32>
  %3 = tide.reduce_min %i axes = [-2, 1] : tensor<4x6xi32>
  %4 = tide.reduce_prod %i axes = [0] keepdims : tensor<4x6xi32>
  %5 = tide.argmax %x axes = [-1] keepdims : tensor<256x?x10xf32>
  %6 = tide.argmin %i axes = [0] : tensor<4x6xi32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<256x10xf32>, tensor<1x?x1xf32>,
      tensor<256x?xf32>, tensor<i32>, tensor<1x6xi32>, tensor<256x?x1xi64>,
      tensor<6xi64>
}

// GENERIC-LABEL: sym_name = "reductions"
// GENERIC: "tide.reduce_sum"(%{{.*}}) <{axes = array<i64: 1>}> : (tensor<256x?x10xf32>) -> tensor<256x10xf32>
// GENERIC: "tide.reduce_mean"(%{{.*}}) <{axes = array<i64: 0, 2>, keepdims}> : (tensor<256x?x10xf32>) -> tensor<1x?x1xf32>
// GENERIC: "tide.argmax"(%{{.*}}) <{axes = array<i64: -1>, keepdims}> : (tensor<256x?x10xf32>) -> tensor<256x?x1xi64>

// Reductions accept f16, bf16, f64 and the narrow integers as well.
// CHECK-LABEL: func.func @reductions_other_types(
// CHECK-SAME: %[[H:.*]]: tensor<3x4xf16>, %[[B:.*]]: tensor<?xbf16>, %[[D:.*]]: tensor<2x2xf64>, %[[S:.*]]: tensor<5xi8>)
// CHECK: %[[R0:.*]] = tide.reduce_mean %[[H]] axes = [1] : tensor<3x4xf16>
// CHECK: %[[R1:.*]] = tide.reduce_sum %[[B]] axes = [0] keepdims : tensor<?xbf16>
// CHECK: %[[R2:.*]] = tide.argmin %[[D]] axes = [-2] : tensor<2x2xf64>
// CHECK: %[[R3:.*]] = tide.reduce_max %[[S]] axes = [0] : tensor<5xi8>
// CHECK: return %[[R0]], %[[R1]], %[[R2]], %[[R3]] : tensor<3xf16>, tensor<1xbf16>, tensor<2xi64>, tensor<i8>
func.func @reductions_other_types(%h: tensor<3x4xf16>, %b: tensor<?xbf16>,
                                  %d: tensor<2x2xf64>, %s: tensor<5xi8>)
    -> (tensor<3xf16>, tensor<1xbf16>, tensor<2xi64>, tensor<i8>) {
  %0 = tide.reduce_mean %h axes = [1] : tensor<3x4xf16>
  %1 = tide.reduce_sum %b axes = [0] keepdims : tensor<?xbf16>
  %2 = tide.argmin %d axes = [-2] : tensor<2x2xf64>
  %3 = tide.reduce_max %s axes = [0] : tensor<5xi8>
  return %0, %1, %2, %3 : tensor<3xf16>, tensor<1xbf16>, tensor<2xi64>,
      tensor<i8>
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

// reshape: static to static, and to/from dynamic shapes (checked at run time).
// CHECK-LABEL: func.func @reshape(
// CHECK-SAME: %[[X:.*]]: tensor<2x3xf32>, %[[D:.*]]: tensor<?x4xi16>)
// CHECK: %[[A:.*]] = tide.reshape %[[X]] : tensor<2x3xf32> to tensor<6xf32>
// CHECK: %[[B:.*]] = tide.reshape %[[A]] : tensor<6xf32> to tensor<?x2xf32>
// CHECK: %[[C:.*]] = tide.reshape %[[D]] : tensor<?x4xi16> to tensor<?xi16>
// CHECK: %[[E:.*]] = tide.reshape %[[X]] : tensor<2x3xf32> to tensor<1x6x1xf32>
// CHECK: return %[[B]], %[[C]], %[[E]]
func.func @reshape(%x: tensor<2x3xf32>, %d: tensor<?x4xi16>)
    -> (tensor<?x2xf32>, tensor<?xi16>, tensor<1x6x1xf32>) {
  %0 = tide.reshape %x : tensor<2x3xf32> to tensor<6xf32>
  %1 = tide.reshape %0 : tensor<6xf32> to tensor<?x2xf32>
  %2 = tide.reshape %d : tensor<?x4xi16> to tensor<?xi16>
  %3 = tide.reshape %x : tensor<2x3xf32> to tensor<1x6x1xf32>
  return %1, %2, %3 : tensor<?x2xf32>, tensor<?xi16>, tensor<1x6x1xf32>
}

// reshape with its sizes known at run time: a shape operand (one entry per
// result dimension, -1 allowed once).
// CHECK-LABEL: func.func @reshape_shape_operand(
// CHECK-SAME: %[[X:.*]]: tensor<?x64xf32>, %[[S:.*]]: tensor<4xi64>)
// CHECK: %[[A:.*]] = tide.reshape %[[X]], %[[S]] : tensor<?x64xf32>, tensor<4xi64> to tensor<?x?x4x16xf32>
// CHECK: return %[[A]]
func.func @reshape_shape_operand(%x: tensor<?x64xf32>, %s: tensor<4xi64>)
    -> tensor<?x?x4x16xf32> {
  %0 = tide.reshape %x, %s : tensor<?x64xf32>, tensor<4xi64>
      to tensor<?x?x4x16xf32>
  return %0 : tensor<?x?x4x16xf32>
}

// GENERIC-LABEL: sym_name = "reshape_shape_operand"
// GENERIC: "tide.reshape"(%{{.*}}, %{{.*}}) : (tensor<?x64xf32>, tensor<4xi64>) -> tensor<?x?x4x16xf32>

// transpose: result dim i is input dim perm[i], dynamic dims move too.
// CHECK-LABEL: func.func @transpose(
// CHECK-SAME: %[[X:.*]]: tensor<2x3xf32>, %[[Y:.*]]: tensor<2x?x4xi1>)
// CHECK: %[[A:.*]] = tide.transpose %[[X]] perm = [1, 0] : tensor<2x3xf32>
// CHECK: %[[B:.*]] = tide.transpose %[[Y]] perm = [2, 0, 1] : tensor<2x?x4xi1>
// CHECK: return %[[A]], %[[B]] : tensor<3x2xf32>, tensor<4x2x?xi1>
func.func @transpose(%x: tensor<2x3xf32>, %y: tensor<2x?x4xi1>)
    -> (tensor<3x2xf32>, tensor<4x2x?xi1>) {
  %0 = tide.transpose %x perm = [1, 0] : tensor<2x3xf32>
  %1 = tide.transpose %y perm = [2, 0, 1] : tensor<2x?x4xi1>
  return %0, %1 : tensor<3x2xf32>, tensor<4x2x?xi1>
}

// broadcast_to: prepend dims, stretch 1s, and dynamic input or result dims.
// CHECK-LABEL: func.func @broadcast_to(
// CHECK-SAME: %[[X:.*]]: tensor<3xf32>, %[[Y:.*]]: tensor<1x?xi64>, %[[Z:.*]]: tensor<?x1xf32>)
// CHECK: %[[A:.*]] = tide.broadcast_to %[[X]] : tensor<3xf32> to tensor<4x3xf32>
// CHECK: %[[B:.*]] = tide.broadcast_to %[[Y]] : tensor<1x?xi64> to tensor<2x5x7xi64>
// CHECK: %[[C:.*]] = tide.broadcast_to %[[Z]] : tensor<?x1xf32> to tensor<?x3xf32>
// CHECK: return %[[A]], %[[B]], %[[C]]
func.func @broadcast_to(%x: tensor<3xf32>, %y: tensor<1x?xi64>, %z: tensor<?x1xf32>)
    -> (tensor<4x3xf32>, tensor<2x5x7xi64>, tensor<?x3xf32>) {
  %0 = tide.broadcast_to %x : tensor<3xf32> to tensor<4x3xf32>
  %1 = tide.broadcast_to %y : tensor<1x?xi64> to tensor<2x5x7xi64>
  %2 = tide.broadcast_to %z : tensor<?x1xf32> to tensor<?x3xf32>
  return %0, %1, %2 : tensor<4x3xf32>, tensor<2x5x7xi64>, tensor<?x3xf32>
}

// broadcast_to stretch_dynamic: dynamic sizes of 1 stretched at run time.
// CHECK-LABEL: func.func @broadcast_to_stretch(
// CHECK: tide.broadcast_to %{{.*}}, %{{.*}} stretch_dynamic : tensor<?x4xf32>, tensor<2xi64> to tensor<?x4xf32>
func.func @broadcast_to_stretch(%x: tensor<?x4xf32>, %s: tensor<2xi64>) -> tensor<?x4xf32> {
  %0 = tide.broadcast_to %x, %s stretch_dynamic : tensor<?x4xf32>, tensor<2xi64> to tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// broadcast_to with sizes known at run time (a rank-0 value made a ?x? tensor,
// ONNX ConstantOfShape).
// CHECK-LABEL: func.func @broadcast_to_shape_operand(
// CHECK-SAME: %[[C:.*]]: tensor<f32>, %[[S:.*]]: tensor<2xi64>, %[[M:.*]]: tensor<?x1x1x16xi1>, %[[T:.*]]: tensor<4xi64>)
// CHECK: %[[A:.*]] = tide.broadcast_to %[[C]], %[[S]] : tensor<f32>, tensor<2xi64> to tensor<?x?xf32>
// CHECK: %[[B:.*]] = tide.broadcast_to %[[M]], %[[T]] : tensor<?x1x1x16xi1>, tensor<4xi64> to tensor<?x1x?x16xi1>
// CHECK: return %[[A]], %[[B]]
func.func @broadcast_to_shape_operand(%c: tensor<f32>, %s: tensor<2xi64>,
    %m: tensor<?x1x1x16xi1>, %t: tensor<4xi64>)
    -> (tensor<?x?xf32>, tensor<?x1x?x16xi1>) {
  %0 = tide.broadcast_to %c, %s : tensor<f32>, tensor<2xi64> to tensor<?x?xf32>
  %1 = tide.broadcast_to %m, %t : tensor<?x1x1x16xi1>, tensor<4xi64>
      to tensor<?x1x?x16xi1>
  return %0, %1 : tensor<?x?xf32>, tensor<?x1x?x16xi1>
}

// concat: axis sizes add up, ? on the axis gives ?, ? off the axis is refined, negative axis.
// CHECK-LABEL: func.func @concat(
// CHECK-SAME: %[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<4x3xf32>, %[[C:.*]]: tensor<?x3xf32>, %[[D:.*]]: tensor<2x?xf32>, %[[E:.*]]: tensor<5xi8>)
// CHECK: %[[R0:.*]] = tide.concat %[[A]], %[[B]] axis = 0 : tensor<2x3xf32>, tensor<4x3xf32>
// CHECK: %[[R1:.*]] = tide.concat %[[A]], %[[C]], %[[B]] axis = 0 : tensor<2x3xf32>, tensor<?x3xf32>, tensor<4x3xf32>
// CHECK: %[[R2:.*]] = tide.concat %[[D]], %[[A]] axis = -1 : tensor<2x?xf32>, tensor<2x3xf32>
// CHECK: %[[R3:.*]] = tide.concat %[[C]], %[[D]] axis = 1 : tensor<?x3xf32>, tensor<2x?xf32>
// CHECK: %[[R4:.*]] = tide.concat %[[E]] axis = 0 : tensor<5xi8>
// CHECK: return %[[R0]], %[[R1]], %[[R2]], %[[R3]], %[[R4]] : tensor<6x3xf32>, tensor<?x3xf32>, tensor<2x?xf32>, tensor<2x?xf32>, tensor<5xi8>
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>, %c: tensor<?x3xf32>,
                  %d: tensor<2x?xf32>, %e: tensor<5xi8>)
    -> (tensor<6x3xf32>, tensor<?x3xf32>, tensor<2x?xf32>, tensor<2x?xf32>,
        tensor<5xi8>) {
  %0 = tide.concat %a, %b axis = 0 : tensor<2x3xf32>, tensor<4x3xf32>
  %1 = tide.concat %a, %c, %b axis = 0
      : tensor<2x3xf32>, tensor<?x3xf32>, tensor<4x3xf32>
  %2 = tide.concat %d, %a axis = -1 : tensor<2x?xf32>, tensor<2x3xf32>
  %3 = tide.concat %c, %d axis = 1 : tensor<?x3xf32>, tensor<2x?xf32>
  %4 = tide.concat %e axis = 0 : tensor<5xi8>
  return %0, %1, %2, %3, %4 : tensor<6x3xf32>, tensor<?x3xf32>,
      tensor<2x?xf32>, tensor<2x?xf32>, tensor<5xi8>
}

// slice: unit and non-unit strides (sizes round up), an empty slice, a dynamic dimension.
// CHECK-LABEL: func.func @slice(
// CHECK-SAME: %[[X:.*]]: tensor<4x5xf32>, %[[Y:.*]]: tensor<?x8xi32>)
// CHECK: %[[A:.*]] = tide.slice %[[X]] start = [0, 1] limit = [2, 3] strides = [1, 1] : tensor<4x5xf32>
// CHECK: %[[B:.*]] = tide.slice %[[X]] start = [0, 0] limit = [4, 5] strides = [3, 2] : tensor<4x5xf32>
// CHECK: %[[C:.*]] = tide.slice %[[X]] start = [2, 5] limit = [2, 5] strides = [1, 1] : tensor<4x5xf32>
// CHECK: %[[D:.*]] = tide.slice %[[Y]] start = [1, 0] limit = [10, 8] strides = [4, 1] : tensor<?x8xi32>
// CHECK: return %[[A]], %[[B]], %[[C]], %[[D]] : tensor<2x2xf32>, tensor<2x3xf32>, tensor<0x0xf32>, tensor<3x8xi32>
func.func @slice(%x: tensor<4x5xf32>, %y: tensor<?x8xi32>)
    -> (tensor<2x2xf32>, tensor<2x3xf32>, tensor<0x0xf32>, tensor<3x8xi32>) {
  %0 = tide.slice %x start = [0, 1] limit = [2, 3] strides = [1, 1]
      : tensor<4x5xf32>
  %1 = tide.slice %x start = [0, 0] limit = [4, 5] strides = [3, 2]
      : tensor<4x5xf32>
  %2 = tide.slice %x start = [2, 5] limit = [2, 5] strides = [1, 1]
      : tensor<4x5xf32>
  %3 = tide.slice %y start = [1, 0] limit = [10, 8] strides = [4, 1]
      : tensor<?x8xi32>
  return %0, %1, %2, %3 : tensor<2x2xf32>, tensor<2x3xf32>, tensor<0x0xf32>,
      tensor<3x8xi32>
}

// GENERIC-LABEL: sym_name = "slice"
// GENERIC: "tide.slice"(%{{.*}}) <{limit = array<i64: 2, 3>, start = array<i64: 0, 1>, strides = array<i64: 1, 1>}> : (tensor<4x5xf32>) -> tensor<2x2xf32>

// dynamic_slice: bounds as operands, static strides; static result sizes
// where they are known.
// CHECK-LABEL: func.func @dynamic_slice(
// CHECK-SAME: %[[X:.*]]: tensor<1x512xi64>, %[[A:.*]]: tensor<2xi64>, %[[B:.*]]: tensor<2xi64>, %[[Y:.*]]: tensor<?x8xf16>)
// CHECK: %[[R0:.*]] = tide.dynamic_slice %[[X]], %[[A]], %[[B]] strides = [1, 1] : tensor<1x512xi64>, tensor<2xi64> to tensor<1x?xi64>
// CHECK: %[[R1:.*]] = tide.dynamic_slice %[[Y]], %[[A]], %[[B]] strides = [2, 3] : tensor<?x8xf16>, tensor<2xi64> to tensor<?x?xf16>
// CHECK: return %[[R0]], %[[R1]]
func.func @dynamic_slice(%x: tensor<1x512xi64>, %a: tensor<2xi64>,
    %b: tensor<2xi64>, %y: tensor<?x8xf16>)
    -> (tensor<1x?xi64>, tensor<?x?xf16>) {
  %0 = tide.dynamic_slice %x, %a, %b strides = [1, 1]
      : tensor<1x512xi64>, tensor<2xi64> to tensor<1x?xi64>
  %1 = tide.dynamic_slice %y, %a, %b strides = [2, 3]
      : tensor<?x8xf16>, tensor<2xi64> to tensor<?x?xf16>
  return %0, %1 : tensor<1x?xi64>, tensor<?x?xf16>
}

// GENERIC-LABEL: sym_name = "dynamic_slice"
// GENERIC: "tide.dynamic_slice"(%{{.*}}, %{{.*}}, %{{.*}}) <{strides = array<i64: 1, 1>}> : (tensor<1x512xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<1x?xi64>

// gather: i64 and i32 indices, a negative axis, indices larger than the
// input along the axis and smaller along another, dynamic sizes, i1 data.
// The result takes the indices' shape and the input's element type.
// CHECK-LABEL: func.func @gather(
// CHECK-SAME: %[[X:.*]]: tensor<3x5xf32>, %[[I:.*]]: tensor<2x9xi64>, %[[Y:.*]]: tensor<?x4xi1>, %[[J:.*]]: tensor<?x4xi32>)
// CHECK: %[[A:.*]] = tide.gather %[[X]], %[[I]] axis = 1 : tensor<3x5xf32>, tensor<2x9xi64>
// CHECK: %[[B:.*]] = tide.gather %[[Y]], %[[J]] axis = -2 : tensor<?x4xi1>, tensor<?x4xi32>
// CHECK: return %[[A]], %[[B]] : tensor<2x9xf32>, tensor<?x4xi1>
func.func @gather(%x: tensor<3x5xf32>, %i: tensor<2x9xi64>, %y: tensor<?x4xi1>,
                  %j: tensor<?x4xi32>) -> (tensor<2x9xf32>, tensor<?x4xi1>) {
  %0 = tide.gather %x, %i axis = 1 : tensor<3x5xf32>, tensor<2x9xi64>
  %1 = tide.gather %y, %j axis = -2 : tensor<?x4xi1>, tensor<?x4xi32>
  return %0, %1 : tensor<2x9xf32>, tensor<?x4xi1>
}

// GENERIC-LABEL: sym_name = "gather"
// GENERIC: "tide.gather"(%{{.*}}, %{{.*}}) <{axis = 1 : i64}> : (tensor<3x5xf32>, tensor<2x9xi64>) -> tensor<2x9xf32>

// scatter: no reduction (the default, not printed), add, max on unsigned
// integers, i32 indices smaller than the data, a negative axis, dynamic sizes.
// CHECK-LABEL: func.func @scatter(
// CHECK-SAME: %[[X:.*]]: tensor<3x5xf32>, %[[I:.*]]: tensor<3x2xi64>, %[[U:.*]]: tensor<3x2xf32>, %[[Y:.*]]: tensor<?x4xui8>, %[[J:.*]]: tensor<?x2xi32>, %[[V:.*]]: tensor<?x2xui8>)
// CHECK: %[[A:.*]] = tide.scatter %[[X]], %[[I]], %[[U]] axis = 1 : tensor<3x5xf32>, tensor<3x2xi64>, tensor<3x2xf32>
// CHECK: %[[B:.*]] = tide.scatter %[[X]], %[[I]], %[[U]] axis = -1 reduction = add : tensor<3x5xf32>, tensor<3x2xi64>, tensor<3x2xf32>
// CHECK: %[[C:.*]] = tide.scatter %[[Y]], %[[J]], %[[V]] axis = 1 reduction = max : tensor<?x4xui8>, tensor<?x2xi32>, tensor<?x2xui8>
// CHECK: return %[[A]], %[[B]], %[[C]] : tensor<3x5xf32>, tensor<3x5xf32>, tensor<?x4xui8>
func.func @scatter(%x: tensor<3x5xf32>, %i: tensor<3x2xi64>, %u: tensor<3x2xf32>,
                   %y: tensor<?x4xui8>, %j: tensor<?x2xi32>, %v: tensor<?x2xui8>)
    -> (tensor<3x5xf32>, tensor<3x5xf32>, tensor<?x4xui8>) {
  %0 = tide.scatter %x, %i, %u axis = 1 : tensor<3x5xf32>, tensor<3x2xi64>, tensor<3x2xf32>
  %1 = tide.scatter %x, %i, %u axis = -1 reduction = add : tensor<3x5xf32>, tensor<3x2xi64>, tensor<3x2xf32>
  %2 = tide.scatter %y, %j, %v axis = 1 reduction = max : tensor<?x4xui8>, tensor<?x2xi32>, tensor<?x2xui8>
  return %0, %1, %2 : tensor<3x5xf32>, tensor<3x5xf32>, tensor<?x4xui8>
}

// GENERIC-LABEL: sym_name = "scatter"
// GENERIC: "tide.scatter"(%{{.*}}, %{{.*}}, %{{.*}}) <{axis = 1 : i64, reduction = 0 : i32}> : (tensor<3x5xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x5xf32>

// cumsum with and without exclusive and reverse, a negative axis, integers.
// CHECK-LABEL: func.func @cumsum(
// CHECK-SAME: %[[X:.*]]: tensor<4x?xf32>, %[[I:.*]]: tensor<8xi64>)
// CHECK: %[[A:.*]] = tide.cumsum %[[X]] axis = 1 : tensor<4x?xf32>
// CHECK: %[[B:.*]] = tide.cumsum %[[A]] axis = -2 exclusive : tensor<4x?xf32>
// CHECK: %[[C:.*]] = tide.cumsum %[[B]] axis = 0 reverse : tensor<4x?xf32>
// CHECK: %[[D:.*]] = tide.cumsum %[[I]] axis = 0 exclusive reverse : tensor<8xi64>
// CHECK: return %[[C]], %[[D]] : tensor<4x?xf32>, tensor<8xi64>
func.func @cumsum(%x: tensor<4x?xf32>, %i: tensor<8xi64>) -> (tensor<4x?xf32>, tensor<8xi64>) {
  %0 = tide.cumsum %x axis = 1 : tensor<4x?xf32>
  %1 = tide.cumsum %0 axis = -2 exclusive : tensor<4x?xf32>
  %2 = tide.cumsum %1 axis = 0 reverse : tensor<4x?xf32>
  %3 = tide.cumsum %i axis = 0 exclusive reverse : tensor<8xi64>
  return %2, %3 : tensor<4x?xf32>, tensor<8xi64>
}

// bitcast between types of one width.
// CHECK-LABEL: func.func @bitcast(
// CHECK: tide.bitcast %{{.*}} : tensor<4x?xf32> to tensor<4x?xi32>
// CHECK: tide.bitcast %{{.*}} : tensor<3xbf16> to tensor<3xui16>
func.func @bitcast(%x: tensor<4x?xf32>, %h: tensor<3xbf16>) -> (tensor<4x?xi32>, tensor<3xui16>) {
  %0 = tide.bitcast %x : tensor<4x?xf32> to tensor<4x?xi32>
  %1 = tide.bitcast %h : tensor<3xbf16> to tensor<3xui16>
  return %0, %1 : tensor<4x?xi32>, tensor<3xui16>
}

// cumprod has cumsum's form.
// CHECK-LABEL: func.func @cumprod(
// CHECK: tide.cumprod %{{.*}} axis = 0 : tensor<8x3xf64>
// CHECK: tide.cumprod %{{.*}} axis = -1 exclusive reverse : tensor<5xi32>
func.func @cumprod(%x: tensor<8x3xf64>, %i: tensor<5xi32>) -> (tensor<8x3xf64>, tensor<5xi32>) {
  %0 = tide.cumprod %x axis = 0 : tensor<8x3xf64>
  %1 = tide.cumprod %i axis = -1 exclusive reverse : tensor<5xi32>
  return %0, %1 : tensor<8x3xf64>, tensor<5xi32>
}

// GENERIC-LABEL: sym_name = "cumsum"
// GENERIC: "tide.cumsum"(%{{.*}}) <{axis = 1 : i64}> : (tensor<4x?xf32>) -> tensor<4x?xf32>
// GENERIC: "tide.cumsum"(%{{.*}}) <{axis = -2 : i64, exclusive}> : (tensor<4x?xf32>) -> tensor<4x?xf32>

//===----------------------------------------------------------------------===//
// Convolution and pooling
//===----------------------------------------------------------------------===//

// conv: 2-D with a dynamic batch and padding, 1-D grouped (depthwise) f16,
// 3-D with dilations.
// CHECK-LABEL: func.func @conv(
// CHECK-SAME: %[[X:.*]]: tensor<?x3x32x32xf32>, %[[W:.*]]: tensor<16x3x3x3xf32>, %[[D:.*]]: tensor<1x8x100xf16>, %[[K:.*]]: tensor<8x1x5xf16>, %[[V:.*]]: tensor<2x4x9x9x9xf64>, %[[U:.*]]: tensor<6x4x2x2x2xf64>)
// CHECK: %[[A:.*]] = tide.conv %[[X]], %[[W]] strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] : tensor<?x3x32x32xf32>, tensor<16x3x3x3xf32>
// CHECK: %[[B:.*]] = tide.conv %[[D]], %[[K]] strides = [2] dilations = [1] pads = [0, 1] groups = 8 : tensor<1x8x100xf16>, tensor<8x1x5xf16>
// CHECK: %[[C:.*]] = tide.conv %[[V]], %[[U]] strides = [1, 2, 3] dilations = [2, 2, 1] pads = [0, 0, 0, 0, 0, 0] : tensor<2x4x9x9x9xf64>, tensor<6x4x2x2x2xf64>
// CHECK: return %[[A]], %[[B]], %[[C]] : tensor<?x16x32x32xf32>, tensor<1x8x49xf16>, tensor<2x6x7x4x3xf64>
func.func @conv(%x: tensor<?x3x32x32xf32>, %w: tensor<16x3x3x3xf32>, %d: tensor<1x8x100xf16>, %k: tensor<8x1x5xf16>, %v: tensor<2x4x9x9x9xf64>, %u: tensor<6x4x2x2x2xf64>) -> (tensor<?x16x32x32xf32>, tensor<1x8x49xf16>, tensor<2x6x7x4x3xf64>) {
  %0 = tide.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] : tensor<?x3x32x32xf32>, tensor<16x3x3x3xf32>
  %1 = tide.conv %d, %k strides = [2] dilations = [1] pads = [0, 1] groups = 8 : tensor<1x8x100xf16>, tensor<8x1x5xf16>
  %2 = tide.conv %v, %u strides = [1, 2, 3] dilations = [2, 2, 1] pads = [0, 0, 0, 0, 0, 0] : tensor<2x4x9x9x9xf64>, tensor<6x4x2x2x2xf64>
  return %0, %1, %2 : tensor<?x16x32x32xf32>, tensor<1x8x49xf16>, tensor<2x6x7x4x3xf64>
}

// Channels-last: (N, H, W, C) input, (F, KH, KW, C / groups) weight,
// (N, OH, OW, F) result.
// CHECK-LABEL: func.func @conv_channels_last(
// CHECK: tide.conv %{{.*}}, %{{.*}} strides = [2, 1] dilations = [1, 1] pads = [1, 1, 1, 1] channels_last : tensor<?x32x30x3xbf16>, tensor<16x3x3x3xbf16>
// CHECK: tide.conv %{{.*}}, %{{.*}} strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 2 channels_last : tensor<?x32x30x4xbf16>, tensor<6x1x1x2xbf16>
// CHECK: return %{{.*}}, %{{.*}} : tensor<?x16x30x16xbf16>, tensor<?x32x30x6xbf16>
func.func @conv_channels_last(%x: tensor<?x32x30x3xbf16>, %w: tensor<16x3x3x3xbf16>, %g: tensor<?x32x30x4xbf16>, %k: tensor<6x1x1x2xbf16>) -> (tensor<?x16x30x16xbf16>, tensor<?x32x30x6xbf16>) {
  %0 = tide.conv %x, %w strides = [2, 1] dilations = [1, 1] pads = [1, 1, 1, 1] channels_last : tensor<?x32x30x3xbf16>, tensor<16x3x3x3xbf16>
  %1 = tide.conv %g, %k strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 2 channels_last : tensor<?x32x30x4xbf16>, tensor<6x1x1x2xbf16>
  return %0, %1 : tensor<?x16x30x16xbf16>, tensor<?x32x30x6xbf16>
}

// Channels-last pools: (N, H, W, C) in and out; the attribute prints last.
// CHECK-LABEL: func.func @pool_channels_last(
// CHECK: tide.max_pool %{{.*}} kernel = [3, 3] strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1] channels_last : tensor<?x112x112x64xbf16>
// CHECK: tide.avg_pool %{{.*}} kernel = [2] strides = [2] dilations = [1] pads = [0, 1] ceil_mode count_include_pad channels_last : tensor<2x7x3xf32>
// CHECK: return %{{.*}}, %{{.*}} : tensor<?x56x56x64xbf16>, tensor<2x4x3xf32>
func.func @pool_channels_last(%x: tensor<?x112x112x64xbf16>, %y: tensor<2x7x3xf32>) -> (tensor<?x56x56x64xbf16>, tensor<2x4x3xf32>) {
  %0 = tide.max_pool %x kernel = [3, 3] strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1] channels_last : tensor<?x112x112x64xbf16>
  %1 = tide.avg_pool %y kernel = [2] strides = [2] dilations = [1] pads = [0, 1] ceil_mode count_include_pad channels_last : tensor<2x7x3xf32>
  return %0, %1 : tensor<?x56x56x64xbf16>, tensor<2x4x3xf32>
}

// GENERIC-LABEL: sym_name = "conv"
// GENERIC: "tide.conv"(%{{.*}}, %{{.*}}) <{dilations = array<i64: 1, 1>, groups = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>}> : (tensor<?x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<?x16x32x32xf32>

// max_pool and avg_pool: padding, ceil_mode (the last window dropped when it
// would start in the padding), count_include_pad, integers for max.
// CHECK-LABEL: func.func @pool(
// CHECK-SAME: %[[X:.*]]: tensor<?x3x32x32xf32>, %[[I:.*]]: tensor<2x?x5xi8>)
// CHECK: %[[A:.*]] = tide.max_pool %[[X]] kernel = [3, 3] strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1] : tensor<?x3x32x32xf32>
// CHECK: %[[B:.*]] = tide.avg_pool %[[X]] kernel = [3, 3] strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1] ceil_mode count_include_pad : tensor<?x3x32x32xf32>
// CHECK: %[[C:.*]] = tide.max_pool %[[I]] kernel = [2] strides = [2] dilations = [2] pads = [0, 0] ceil_mode : tensor<2x?x5xi8>
// CHECK: return %[[A]], %[[B]], %[[C]] : tensor<?x3x16x16xf32>, tensor<?x3x17x17xf32>, tensor<2x?x2xi8>
func.func @pool(%x: tensor<?x3x32x32xf32>, %i: tensor<2x?x5xi8>) -> (tensor<?x3x16x16xf32>, tensor<?x3x17x17xf32>, tensor<2x?x2xi8>) {
  %0 = tide.max_pool %x kernel = [3, 3] strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1] : tensor<?x3x32x32xf32>
  %1 = tide.avg_pool %x kernel = [3, 3] strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1] ceil_mode count_include_pad : tensor<?x3x32x32xf32>
  %2 = tide.max_pool %i kernel = [2] strides = [2] dilations = [2] pads = [0, 0] ceil_mode : tensor<2x?x5xi8>
  return %0, %1, %2 : tensor<?x3x16x16xf32>, tensor<?x3x17x17xf32>, tensor<2x?x2xi8>
}

// Spatial sizes known only at run time: the result's are too (channels-last
// conv and pool included).
// CHECK-LABEL: func.func @window_dynamic_spatial(
// CHECK: tide.conv %{{.*}}, %{{.*}} strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1] : tensor<?x3x?x?xf32>, tensor<8x3x3x3xf32>
// CHECK: tide.conv %{{.*}}, %{{.*}} strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] channels_last : tensor<1x?x7x3xf32>, tensor<8x3x3x3xf32>
// CHECK: tide.max_pool %{{.*}} kernel = [3, 3] strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1] ceil_mode : tensor<?x3x?x?xf32>
// CHECK: tide.avg_pool %{{.*}} kernel = [2] strides = [2] dilations = [1] pads = [0, 0] channels_last : tensor<2x?x?xf32>
// CHECK: return %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<?x8x?x?xf32>, tensor<1x?x5x8xf32>, tensor<?x3x?x?xf32>, tensor<2x?x?xf32>
func.func @window_dynamic_spatial(%x: tensor<?x3x?x?xf32>, %w: tensor<8x3x3x3xf32>, %l: tensor<1x?x7x3xf32>, %v: tensor<2x?x?xf32>) -> (tensor<?x8x?x?xf32>, tensor<1x?x5x8xf32>, tensor<?x3x?x?xf32>, tensor<2x?x?xf32>) {
  %0 = tide.conv %x, %w strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1] : tensor<?x3x?x?xf32>, tensor<8x3x3x3xf32>
  %1 = tide.conv %l, %w strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] channels_last : tensor<1x?x7x3xf32>, tensor<8x3x3x3xf32>
  %2 = tide.max_pool %x kernel = [3, 3] strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1] ceil_mode : tensor<?x3x?x?xf32>
  %3 = tide.avg_pool %v kernel = [2] strides = [2] dilations = [1] pads = [0, 0] channels_last : tensor<2x?x?xf32>
  return %0, %1, %2, %3 : tensor<?x8x?x?xf32>, tensor<1x?x5x8xf32>, tensor<?x3x?x?xf32>, tensor<2x?x?xf32>
}

// GENERIC-LABEL: sym_name = "pool"
// GENERIC: "tide.avg_pool"(%{{.*}}) <{ceil_mode, count_include_pad, dilations = array<i64: 1, 1>, kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}> : (tensor<?x3x32x32xf32>) -> tensor<?x3x17x17xf32>

//===----------------------------------------------------------------------===//
// Composite ops
//===----------------------------------------------------------------------===//

// softmax / log_softmax with a positive and a negative axis, f32 and f16.
// CHECK-LABEL: func.func @softmax(
// CHECK-SAME: %[[X:.*]]: tensor<256x10xf32>, %[[H:.*]]: tensor<?x?xf16>)
// CHECK: %[[P:.*]] = tide.softmax %[[X]] axis = 1 : tensor<256x10xf32>
// CHECK: %[[L:.*]] = tide.log_softmax %[[X]] axis = -1 : tensor<256x10xf32>
// CHECK: %[[Q:.*]] = tide.softmax %[[H]] axis = 0 : tensor<?x?xf16>
// CHECK: return %[[P]], %[[L]], %[[Q]]
func.func @softmax(%x: tensor<256x10xf32>, %h: tensor<?x?xf16>)
    -> (tensor<256x10xf32>, tensor<256x10xf32>, tensor<?x?xf16>) {
  %0 = tide.softmax %x axis = 1 : tensor<256x10xf32>
  %1 = tide.log_softmax %x axis = -1 : tensor<256x10xf32>
  %2 = tide.softmax %h axis = 0 : tensor<?x?xf16>
  return %0, %1, %2 : tensor<256x10xf32>, tensor<256x10xf32>, tensor<?x?xf16>
}

//===----------------------------------------------------------------------===//
// Device attributes
//===----------------------------------------------------------------------===//

// tide.device (cpu, cuda:0/7/63), colocate, reason, decomposed on ops; default_device on a func.
// CHECK-LABEL: func.func @device_on_ops(
// CHECK-SAME: %[[X:.*]]: tensor<4xf32>)
// CHECK-SAME: attributes {tide.default_device = #tide.device<cuda:0>}
// CHECK: %[[C:.*]] = tide.constant {tide.device = #tide.device<cpu>} dense<1.000000e+00> : tensor<4xf32>
// CHECK: %[[A:.*]] = tide.add %[[X]], %[[C]] {tide.colocate = "layer1", tide.device = #tide.device<cuda:0>} : tensor<4xf32>
// CHECK: %[[E:.*]] = tide.exp %[[A]] {tide.colocate = "layer1", tide.device = #tide.device<cuda:7>, tide.reason = "pinned by hand"} : tensor<4xf32>
// CHECK: %[[T:.*]] = tide.transfer %[[E]] {tide.device = #tide.device<cuda:63>} : tensor<4xf32> to #tide.device<cpu>
// CHECK: %[[M:.*]] = tide.reduce_max %[[T]] axes = [0] {tide.decomposed = "softmax"} : tensor<4xf32>
// CHECK: return %[[T]], %[[M]] : tensor<4xf32>, tensor<f32>
func.func @device_on_ops(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<f32>)
    attributes {tide.default_device = #tide.device<cuda:0>} {
  %c = tide.constant {tide.device = #tide.device<cpu>} dense<1.0> : tensor<4xf32>
  %0 = tide.add %x, %c {tide.device = #tide.device<cuda:0>,
                        tide.colocate = "layer1"} : tensor<4xf32>
  %1 = tide.exp %0 {tide.device = #tide.device<cuda:7>, tide.colocate = "layer1",
                    tide.reason = "pinned by hand"} : tensor<4xf32>
  %2 = tide.transfer %1 {tide.device = #tide.device<cuda:63>}
      : tensor<4xf32> to #tide.device<cpu>
  %3 = tide.reduce_max %2 axes = [0] {tide.decomposed = "softmax"} : tensor<4xf32>
  return %2, %3 : tensor<4xf32>, tensor<f32>
}

// GENERIC-LABEL: sym_name = "device_on_ops"
// GENERIC: "tide.constant"() <{value = dense<1.000000e+00> : tensor<4xf32>}> {tide.device = #tide.device<cpu>} : () -> tensor<4xf32>
// GENERIC: "tide.exp"(%{{.*}}) {tide.colocate = "layer1", tide.device = #tide.device<cuda:7>, tide.reason = "pinned by hand"} : (tensor<4xf32>) -> tensor<4xf32>

// tide.resident on args/results and tide.donate on an arg, in a module with tide.default_device.
// CHECK-LABEL: module @placed attributes {tide.default_device = #tide.device<cpu>}
// CHECK: func.func @boundary(
// CHECK-SAME: %[[X:.*]]: tensor<?x3xf32> {tide.donate, tide.resident = #tide.device<cuda:1>},
// CHECK-SAME: %[[Y:.*]]: tensor<?x3xf32> {tide.resident = #tide.device<cpu>})
// CHECK-SAME: -> (tensor<?x3xf32> {tide.resident = #tide.device<cuda:1>}, tensor<?x3xf32>)
// CHECK: %[[S:.*]] = tide.add %[[X]], %[[Y]] : tensor<?x3xf32>
// CHECK: return %[[S]], %[[Y]] : tensor<?x3xf32>, tensor<?x3xf32>
module @placed attributes {tide.default_device = #tide.device<cpu>} {
  func.func @boundary(
      %x: tensor<?x3xf32> {tide.resident = #tide.device<cuda:1>, tide.donate},
      %y: tensor<?x3xf32> {tide.resident = #tide.device<cpu>})
      -> (tensor<?x3xf32> {tide.resident = #tide.device<cuda:1>},
          tensor<?x3xf32>) {
    %0 = tide.add %x, %y : tensor<?x3xf32>
    return %0, %y : tensor<?x3xf32>, tensor<?x3xf32>
  }
}

// GENERIC-LABEL: "builtin.module"() <{sym_name = "placed"}>
// GENERIC: arg_attrs = [{tide.donate, tide.resident = #tide.device<cuda:1>}, {tide.resident = #tide.device<cpu>}]
// GENERIC-SAME: res_attrs = [{tide.resident = #tide.device<cuda:1>}, {}]
// GENERIC: }) {tide.default_device = #tide.device<cpu>} : () -> ()

//===----------------------------------------------------------------------===//
// Unsigned integers
//===----------------------------------------------------------------------===//

// ui8..ui64 are element types of their own: constants, elementwise ops,
// comparisons, casts to and from them, reductions and shape ops.
// CHECK-LABEL: func.func @unsigned_types(
// CHECK-SAME: %[[A:.*]]: tensor<4xui8>, %[[B:.*]]: tensor<4xui8>, %[[W:.*]]: tensor<2x3xui64>)
// CHECK: %[[C:.*]] = tide.constant dense<[0, 255]> : tensor<2xui8>
// CHECK: %[[C16:.*]] = tide.constant dense<65535> : tensor<ui16>
// CHECK: %[[C32:.*]] = tide.constant dense<4294967295> : tensor<3xui32>
// CHECK: %[[D:.*]] = tide.div %[[A]], %[[B]] : tensor<4xui8>
// CHECK: %[[S:.*]] = tide.shr %[[A]], %[[B]] : tensor<4xui8>
// CHECK: %[[M:.*]] = tide.cmp lt, %[[A]], %[[B]] : tensor<4xui8>
// CHECK: %[[F:.*]] = tide.cast %[[A]] : tensor<4xui8> to tensor<4xf32>
// CHECK: %[[I:.*]] = tide.cast %[[A]] : tensor<4xui8> to tensor<4xi8>
// CHECK: %[[R:.*]] = tide.reduce_max %[[W]] axes = [1] : tensor<2x3xui64>
// CHECK: %[[K:.*]] = tide.argmin %[[W]] axes = [0] : tensor<2x3xui64>
// CHECK: %[[T:.*]] = tide.transpose %[[W]] perm = [1, 0] : tensor<2x3xui64>
// CHECK: return %[[C]], %[[C16]], %[[C32]], %[[D]], %[[S]], %[[M]], %[[F]], %[[I]], %[[R]], %[[K]], %[[T]]
func.func @unsigned_types(%a: tensor<4xui8>, %b: tensor<4xui8>, %w: tensor<2x3xui64>)
    -> (tensor<2xui8>, tensor<ui16>, tensor<3xui32>, tensor<4xui8>,
        tensor<4xui8>, tensor<4xi1>, tensor<4xf32>, tensor<4xi8>,
        tensor<2xui64>, tensor<3xi64>, tensor<3x2xui64>) {
  %c = tide.constant dense<[0, 255]> : tensor<2xui8>
  %c16 = tide.constant dense<65535> : tensor<ui16>
  %c32 = tide.constant dense<4294967295> : tensor<3xui32>
  %d = tide.div %a, %b : tensor<4xui8>
  %s = tide.shr %a, %b : tensor<4xui8>
  %m = tide.cmp lt, %a, %b : tensor<4xui8>
  %f = tide.cast %a : tensor<4xui8> to tensor<4xf32>
  %i = tide.cast %a : tensor<4xui8> to tensor<4xi8>
  %r = tide.reduce_max %w axes = [1] : tensor<2x3xui64>
  %k = tide.argmin %w axes = [0] : tensor<2x3xui64>
  %t = tide.transpose %w perm = [1, 0] : tensor<2x3xui64>
  return %c, %c16, %c32, %d, %s, %m, %f, %i, %r, %k, %t
      : tensor<2xui8>, tensor<ui16>, tensor<3xui32>, tensor<4xui8>,
        tensor<4xui8>, tensor<4xi1>, tensor<4xf32>, tensor<4xi8>,
        tensor<2xui64>, tensor<3xi64>, tensor<3x2xui64>
}

// GENERIC-LABEL: sym_name = "unsigned_types"
// GENERIC: "tide.div"(%{{.*}}, %{{.*}}) : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>

//===----------------------------------------------------------------------===//
// Run-time sizes
//===----------------------------------------------------------------------===//

// dim: a one-element i64 tensor (inferred) of any tensor's size; iota over
// sizes given as an operand, in integer and float element types.
// CHECK-LABEL: func.func @dim_iota(
// CHECK-SAME: %[[X:.*]]: tensor<?x16xbf16>, %[[S:.*]]: tensor<2xi64>)
// CHECK: %[[D:.*]] = tide.dim %[[X]] axis = 0 : tensor<?x16xbf16>
// CHECK: %[[I:.*]] = tide.iota %[[D]] axis = 0 : tensor<1xi64> to tensor<?xi32>
// CHECK: %[[F:.*]] = tide.iota %[[S]] axis = 1 : tensor<2xi64> to tensor<?x4xf32>
// CHECK: return %[[D]], %[[I]], %[[F]] : tensor<1xi64>, tensor<?xi32>, tensor<?x4xf32>
func.func @dim_iota(%x: tensor<?x16xbf16>, %s: tensor<2xi64>)
    -> (tensor<1xi64>, tensor<?xi32>, tensor<?x4xf32>) {
  %0 = tide.dim %x axis = 0 : tensor<?x16xbf16>
  %1 = tide.iota %0 axis = 0 : tensor<1xi64> to tensor<?xi32>
  %2 = tide.iota %s axis = 1 : tensor<2xi64> to tensor<?x4xf32>
  return %0, %1, %2 : tensor<1xi64>, tensor<?xi32>, tensor<?x4xf32>
}

// check: the input passes on when the condition (one i1, any shape of one
// element) holds.
// CHECK-LABEL: func.func @check(
// CHECK: tide.check %{{.*}}, %{{.*}}, "an index is out of range" : tensor<?x3xi64>, tensor<1xi1>
// CHECK: tide.check %{{.*}}, %{{.*}}, "ok" : tensor<2xf32>, tensor<i1>
func.func @check(%x: tensor<?x3xi64>, %c: tensor<1xi1>, %y: tensor<2xf32>, %d: tensor<i1>)
    -> (tensor<?x3xi64>, tensor<2xf32>) {
  %0 = tide.check %x, %c, "an index is out of range" : tensor<?x3xi64>, tensor<1xi1>
  %1 = tide.check %y, %d, "ok" : tensor<2xf32>, tensor<i1>
  return %0, %1 : tensor<?x3xi64>, tensor<2xf32>
}

// Results sized by the data: nonzero's coordinates, non_max_suppression's
// (batch, class, box) rows, with and without a score threshold.
// CHECK-LABEL: func.func @data_dependent(
// CHECK: tide.nonzero %{{.*}} : tensor<3x?xi1> to tensor<2x?xi64>
// CHECK: tide.non_max_suppression %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} center_point_box : tensor<2x5x4xf32>, tensor<2x3x5xf32>, tensor<1xi64>, tensor<1xf32>, tensor<f32> to tensor<?x3xi64>
// CHECK: tide.non_max_suppression %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x5x4xf32>, tensor<2x3x5xf32>, tensor<1xi64>, tensor<1xf32> to tensor<?x3xi64>
func.func @data_dependent(%m: tensor<3x?xi1>, %b: tensor<2x5x4xf32>, %s: tensor<2x3x5xf32>,
                          %k: tensor<1xi64>, %iou: tensor<1xf32>, %t: tensor<f32>)
    -> (tensor<2x?xi64>, tensor<?x3xi64>, tensor<?x3xi64>) {
  %0 = tide.nonzero %m : tensor<3x?xi1> to tensor<2x?xi64>
  %1 = tide.non_max_suppression %b, %s, %k, %iou, %t center_point_box
      : tensor<2x5x4xf32>, tensor<2x3x5xf32>, tensor<1xi64>, tensor<1xf32>, tensor<f32> to tensor<?x3xi64>
  %2 = tide.non_max_suppression %b, %s, %k, %iou
      : tensor<2x5x4xf32>, tensor<2x3x5xf32>, tensor<1xi64>, tensor<1xf32> to tensor<?x3xi64>
  return %0, %1, %2 : tensor<2x?xi64>, tensor<?x3xi64>, tensor<?x3xi64>
}

// top_k: indices of the k best along an axis, k a host operand.
// CHECK-LABEL: func.func @top_k(
// CHECK: tide.top_k %{{.*}}, %{{.*}} axis = -1 : tensor<2x100xf32>, tensor<1xi64> to tensor<2x5xi64>
// CHECK: tide.top_k %{{.*}}, %{{.*}} axis = 0 smallest : tensor<?xui8>, tensor<i64> to tensor<?xi64>
func.func @top_k(%x: tensor<2x100xf32>, %y: tensor<?xui8>, %k: tensor<1xi64>, %j: tensor<i64>)
    -> (tensor<2x5xi64>, tensor<?xi64>) {
  %0 = tide.top_k %x, %k axis = -1 : tensor<2x100xf32>, tensor<1xi64> to tensor<2x5xi64>
  %1 = tide.top_k %y, %j axis = 0 smallest : tensor<?xui8>, tensor<i64> to tensor<?xi64>
  return %0, %1 : tensor<2x5xi64>, tensor<?xi64>
}

// GENERIC-LABEL: sym_name = "dim_iota"
// GENERIC: "tide.dim"(%{{.*}}) <{axis = 0 : i64}> : (tensor<?x16xbf16>) -> tensor<1xi64>
// GENERIC: "tide.iota"(%{{.*}}) <{axis = 0 : i64}> : (tensor<1xi64>) -> tensor<?xi32>

// A loop over a run-time length: states, sequences, invariants, reverse.
// CHECK-LABEL: func.func @scan
// CHECK: %[[R:.*]]:3 = tide.scan inits(%{{.*}}, %{{.*}} : tensor<?x4xf32>, tensor<i32>) sequences(%{{.*}} : tensor<?x?x4xf32>) invariants(%{{.*}} : tensor<4xf32>) reverse {
// CHECK: ^bb0(%{{.*}}: tensor<i64>, %{{.*}}: tensor<?x4xf32>, %{{.*}}: tensor<i32>, %{{.*}}: tensor<?x4xf32>, %{{.*}}: tensor<4xf32>):
// CHECK: tide.yield %{{.*}}, %{{.*}}, %{{.*}} : tensor<?x4xf32>, tensor<i32>, tensor<?x4xf32>
// CHECK: } : tensor<?x4xf32>, tensor<i32>, tensor<?x?x4xf32>
func.func @scan(%h: tensor<?x4xf32>, %n: tensor<i32>, %x: tensor<?x?x4xf32>, %b: tensor<4xf32>)
    -> (tensor<?x4xf32>, tensor<i32>, tensor<?x?x4xf32>) {
  %r:3 = tide.scan inits(%h, %n : tensor<?x4xf32>, tensor<i32>)
      sequences(%x : tensor<?x?x4xf32>) invariants(%b : tensor<4xf32>) reverse {
  ^bb0(%t: tensor<i64>, %hs: tensor<?x4xf32>, %ns: tensor<i32>, %xt: tensor<?x4xf32>, %bi: tensor<4xf32>):
    %0 = tide.add %hs, %xt : tensor<?x4xf32>, tensor<?x4xf32>
    %1 = tide.add %0, %bi : tensor<?x4xf32>, tensor<4xf32>
    %2 = tide.cast %t : tensor<i64> to tensor<i32>
    %3 = tide.add %ns, %2 : tensor<i32>, tensor<i32>
    tide.yield %1, %3, %1 : tensor<?x4xf32>, tensor<i32>, tensor<?x4xf32>
  } : tensor<?x4xf32>, tensor<i32>, tensor<?x?x4xf32>
  return %r#0, %r#1, %r#2 : tensor<?x4xf32>, tensor<i32>, tensor<?x?x4xf32>
}

// GENERIC-LABEL: sym_name = "scan"
// GENERIC: "tide.scan"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{operandSegmentSizes = array<i32: 2, 1, 1>, reverse}> ({
// GENERIC: "tide.yield"(%{{.*}}, %{{.*}}, %{{.*}})

// A branch decided at run time: invariants, results of different sizes in
// the two regions, no invariants at all.
// CHECK-LABEL: func.func @if
// CHECK: %[[R:.*]]:2 = tide.if %{{.*}} invariants(%{{.*}}, %{{.*}} : tensor<4xf32>, tensor<i32>) {
// CHECK: ^bb0(%{{.*}}: tensor<4xf32>, %{{.*}}: tensor<i32>):
// CHECK: tide.yield %{{.*}}, %{{.*}} : tensor<4xf32>, tensor<i32>
// CHECK: } else {
// CHECK: tide.yield %{{.*}}, %{{.*}} : tensor<2xf32>, tensor<i32>
// CHECK: } : tensor<i1> -> (tensor<?xf32>, tensor<i32>)
// CHECK: tide.if %{{.*}} {
// CHECK: } : tensor<i1> -> (tensor<2xf32>)
func.func @if(%c: tensor<i1>, %x: tensor<4xf32>, %n: tensor<i32>)
    -> (tensor<?xf32>, tensor<i32>, tensor<2xf32>) {
  %r:2 = tide.if %c invariants(%x, %n : tensor<4xf32>, tensor<i32>) {
  ^bb0(%a: tensor<4xf32>, %m: tensor<i32>):
    %e = tide.exp %a : tensor<4xf32>
    tide.yield %e, %m : tensor<4xf32>, tensor<i32>
  } else {
  ^bb0(%a: tensor<4xf32>, %m: tensor<i32>):
    %s = tide.slice %a start = [0] limit = [2] strides = [1] : tensor<4xf32>
    %k = tide.add %m, %m : tensor<i32>, tensor<i32>
    tide.yield %s, %k : tensor<2xf32>, tensor<i32>
  } : tensor<i1> -> (tensor<?xf32>, tensor<i32>)
  %z = tide.if %c {
    %one = tide.constant dense<1.0> : tensor<2xf32>
    tide.yield %one : tensor<2xf32>
  } else {
    %zero = tide.constant dense<0.0> : tensor<2xf32>
    tide.yield %zero : tensor<2xf32>
  } : tensor<i1> -> (tensor<2xf32>)
  return %r#0, %r#1, %z : tensor<?xf32>, tensor<i32>, tensor<2xf32>
}

// GENERIC-LABEL: sym_name = "if"
// GENERIC: "tide.if"(%{{.*}}, %{{.*}}, %{{.*}}) ({
// GENERIC: "tide.yield"(%{{.*}}, %{{.*}})
// GENERIC: }, {

// A while loop: conditional, no sequence; the scan output stacks the steps
// that ran.
// CHECK-LABEL: func.func @scan_while
// CHECK: %{{.*}}:3 = tide.scan conditional inits(%{{.*}}, %{{.*}} : tensor<i1>, tensor<4xf32>) invariants(%{{.*}} : tensor<f32>) {
// CHECK: } : tensor<i1>, tensor<4xf32>, tensor<?x4xf32>
func.func @scan_while(%x: tensor<4xf32>, %limit: tensor<f32>) -> (tensor<4xf32>, tensor<?x4xf32>) {
  %true = tide.constant dense<true> : tensor<i1>
  %go, %y, %all = tide.scan conditional inits(%true, %x : tensor<i1>, tensor<4xf32>) invariants(%limit : tensor<f32>) {
  ^bb0(%t: tensor<i64>, %c: tensor<i1>, %v: tensor<4xf32>, %l: tensor<f32>):
    %twice = tide.add %v, %v : tensor<4xf32>, tensor<4xf32>
    %s = tide.reduce_sum %twice axes = [0] : tensor<4xf32>
    %more = tide.cmp lt, %s, %l : tensor<f32>, tensor<f32>
    tide.yield %more, %twice, %twice : tensor<i1>, tensor<4xf32>, tensor<4xf32>
  } : tensor<i1>, tensor<4xf32>, tensor<?x4xf32>
  return %y, %all : tensor<4xf32>, tensor<?x4xf32>
}

// GENERIC-LABEL: sym_name = "scan_while"
// GENERIC: "tide.scan"(%{{.*}}, %{{.*}}, %{{.*}}) <{conditional, operandSegmentSizes = array<i32: 2, 0, 1>}> ({
