// RUN: tide-opt %s --convert-tide-to-linalg --canonicalize --cse --mlir-print-local-scope \
// RUN:   | FileCheck %s --implicit-check-not=' tide.'

// tide.if (If.cpp): an scf.if on the condition's element; each region's ops
// are cloned into its scf.if region (and lowered like any other), its
// arguments bound to the invariants; a region that yields sizes the result
// leaves dynamic is cast to the result type.

// CHECK-LABEL: func.func @sizes(
// CHECK-SAME: %[[C:.*]]: tensor<i1>, %[[X:.*]]: tensor<4xf32>
// CHECK: %[[B:.*]] = tensor.extract %[[C]][] : tensor<i1>
// CHECK: %[[R:.*]] = scf.if %[[B]] -> (tensor<?xf32>) {
// CHECK: %[[E:.*]] = linalg.generic
// CHECK: math.exp
// CHECK: %[[EC:.*]] = tensor.cast %[[E]] : tensor<4xf32> to tensor<?xf32>
// CHECK: scf.yield %[[EC]] : tensor<?xf32>
// CHECK: } else {
// CHECK: %[[S:.*]] = tensor.extract_slice %[[X]][0] [2] [1] : tensor<4xf32> to tensor<2xf32>
// CHECK: %[[SC:.*]] = tensor.cast %[[S]] : tensor<2xf32> to tensor<?xf32>
// CHECK: scf.yield %[[SC]] : tensor<?xf32>
// CHECK: return %[[R]]
func.func @sizes(%c: tensor<i1>, %x: tensor<4xf32>) -> tensor<?xf32> {
  %r = tide.if %c invariants(%x : tensor<4xf32>) {
  ^bb0(%a: tensor<4xf32>):
    %e = tide.exp %a : tensor<4xf32>
    tide.yield %e : tensor<4xf32>
  } else {
  ^bb0(%a: tensor<4xf32>):
    %s = tide.slice %a start = [0] limit = [2] strides = [1] : tensor<4xf32>
    tide.yield %s : tensor<2xf32>
  } : tensor<i1> -> (tensor<?xf32>)
  return %r : tensor<?xf32>
}

// Unsigned elements (computed signless) and two results, one an invariant
// in both regions (canonicalization makes that one an arith.select).
// CHECK-LABEL: func.func @unsigned(
// CHECK-SAME: %[[C:.*]]: tensor<i1>, %[[X:.*]]: tensor<3xi32>, %[[Y:.*]]: tensor<3xi32>
// CHECK: %[[B:.*]] = tensor.extract %[[C]][]
// CHECK: %[[P:.*]] = arith.select %[[B]], %[[X]], %[[Y]] : tensor<3xi32>
// CHECK: %[[R:.*]] = scf.if %[[B]] -> (tensor<3xi32>) {
// CHECK: arith.addi
// CHECK: } else {
// CHECK: scf.yield %[[Y]] : tensor<3xi32>
// CHECK: return %[[R]], %[[P]]
func.func @unsigned(%c: tensor<i1>, %x: tensor<3xui32>, %y: tensor<3xui32>)
    -> (tensor<3xui32>, tensor<3xui32>) {
  %r:2 = tide.if %c invariants(%x, %y : tensor<3xui32>, tensor<3xui32>) {
  ^bb0(%a: tensor<3xui32>, %b: tensor<3xui32>):
    %s = tide.add %a, %b : tensor<3xui32>, tensor<3xui32>
    tide.yield %s, %a : tensor<3xui32>, tensor<3xui32>
  } else {
  ^bb0(%a: tensor<3xui32>, %b: tensor<3xui32>):
    tide.yield %b, %b : tensor<3xui32>, tensor<3xui32>
  } : tensor<i1> -> (tensor<3xui32>, tensor<3xui32>)
  return %r#0, %r#1 : tensor<3xui32>, tensor<3xui32>
}
