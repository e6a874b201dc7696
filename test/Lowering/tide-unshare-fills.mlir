// Tests of tide-unshare-fills: a tensor fill that several ops write into
// (what CSE makes of identical zero fills) is cloned, with its empty tensor,
// before every writer but one, so bufferization gives each its own
// buffer instead of copying one.

// RUN: tide-opt %s --tide-unshare-fills | FileCheck %s
// RUN: tide-opt %s --tide-unshare-fills --one-shot-bufferize="bufferize-function-boundaries" | FileCheck %s --check-prefix=BUF

// Two products accumulate into one zero fill: each gets a fill of its own,
// and bufferized, nothing is copied.
// CHECK-LABEL: func.func @two_writers(
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<4x4xf32>
// CHECK: %[[F1:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E1]] : tensor<4x4xf32>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x4xf32>, tensor<4x4xf32>) outs(%[[F1]] : tensor<4x4xf32>)
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<4x4xf32>
// CHECK: %[[F2:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E2]] : tensor<4x4xf32>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x4xf32>, tensor<4x4xf32>) outs(%[[F2]] : tensor<4x4xf32>)
// BUF-LABEL: func.func @two_writers(
// BUF-NOT: memref.copy
// BUF: return
func.func @two_writers(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  %1 = linalg.matmul ins(%0, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0, %1 : tensor<4x4xf32>, tensor<4x4xf32>
}

// A padding (insert_slice into a filled tensor) and a product share the
// fill: the insert_slice's destination is a writer too. A read of the fill
// (a matmul input) is not: it keeps the original.
// CHECK-LABEL: func.func @pad_and_read(
// CHECK: %[[F:.*]] = linalg.fill
// CHECK: %[[F2:.*]] = linalg.fill
// CHECK: tensor.insert_slice %{{.*}} into %[[F2]]
// CHECK: %[[F3:.*]] = linalg.fill
// CHECK: linalg.matmul ins(%[[F]], %{{.*}} : tensor<4x4xf32>, tensor<4x4xf32>) outs(%[[F3]] : tensor<4x4xf32>)
// CHECK-NOT: linalg.fill
func.func @pad_and_read(%a: tensor<2x2xf32>, %b: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %p = tensor.insert_slice %a into %f[1, 1] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<4x4xf32>
  %m = linalg.matmul ins(%f, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %p, %m : tensor<4x4xf32>, tensor<4x4xf32>
}

// One writer: nothing changes.
// CHECK-LABEL: func.func @one_writer(
// CHECK-COUNT-1: linalg.fill
// CHECK-NOT: linalg.fill
func.func @one_writer(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
