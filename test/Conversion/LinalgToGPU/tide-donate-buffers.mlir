// RUN: tide-opt %s --tide-donate-buffers --split-input-file -verify-diagnostics | FileCheck %s

// The last use of a donated argument writes its result into it.
#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @donated(
// CHECK-SAME: %[[X:.*]]: tensor<8xf32> {tide.donate}, %[[Y:.*]]: tensor<8xf32>)
// CHECK-NOT: tensor.empty
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[Y]] : tensor<8xf32>, tensor<8xf32>) outs(%[[X]] : tensor<8xf32>)
// CHECK: return %[[R]]
func.func @donated(%x: tensor<8xf32> {tide.donate}, %y: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %y : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = math.exp %a : f32
    %1 = arith.addf %0, %b : f32
    linalg.yield %1 : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// Without tide.donate nothing changes.
#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @kept(
// CHECK: %[[E:.*]] = tensor.empty()
// CHECK: linalg.generic {{.*}} outs(%[[E]] : tensor<8xf32>)
func.func @kept(%x: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %0 = math.exp %a : f32
    linalg.yield %0 : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// Donations that cannot be used are reported, with the reason.
#id = affine_map<(d0) -> (d0)>
#all = affine_map<(d0) -> ()>
// expected-warning @below {{argument #0 is donated (tide.donate) but its buffer is not reused: its last use is a reduction, whose result has another shape}}
func.func @reduced(%x: tensor<8xf32> {tide.donate}) -> tensor<f32> {
  %e = tensor.empty() : tensor<f32>
  %r = linalg.generic {indexing_maps = [#id, #all], iterator_types = ["reduction"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<f32>) {
  ^bb0(%a: f32, %o: f32):
    %0 = arith.addf %a, %o : f32
    linalg.yield %0 : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// expected-warning @below {{argument #0 is donated (tide.donate) but its buffer is not reused: it is returned as it is}}
func.func @returned(%x: tensor<8xf32> {tide.donate}) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>
// expected-warning @below {{argument #0 is donated (tide.donate) but its buffer is not reused: its last use computes no new tensor of its type (tensor<8xf32>) to write into it}}
func.func @other_type(%x: tensor<8xf32> {tide.donate}) -> tensor<8xf64> {
  %e = tensor.empty() : tensor<8xf64>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf64>) {
  ^bb0(%a: f32, %o: f64):
    %0 = arith.extf %a : f32 to f64
    linalg.yield %0 : f64
  } -> tensor<8xf64>
  return %r : tensor<8xf64>
}
