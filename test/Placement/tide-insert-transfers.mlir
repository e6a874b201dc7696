// Tests of tide-insert-transfers: a tide.transfer to the user's device before
// every use of a value on another device. Arguments live on the host unless
// tide.resident says otherwise; returned values must reach the host (or the
// result's tide.resident device); non-tide users run on the host. The input
// is already placed (tide.device on every tide op).

// RUN: tide-opt %s -split-input-file -verify-diagnostics --tide-insert-transfers | FileCheck %s
// RUN: tide-opt %s -split-input-file -verify-diagnostics --tide-insert-transfers --tide-optimize-transfers \
// RUN:   | FileCheck %s --check-prefix=OPT

// A host value used by three GPU ops: one copy per use here (three), one in
// all after tide-optimize-transfers.
// CHECK-LABEL: func.func @host_value_three_gpu_users(
// CHECK-SAME: %[[X:.*]]: tensor<1024xf32>)
// CHECK: %[[T0:.*]] = tide.transfer %[[X]] : tensor<1024xf32> to #tide.device<cuda:0>
// CHECK-NEXT: %[[A:.*]] = tide.exp %[[T0]] {tide.device = #tide.device<cuda:0>}
// CHECK-NEXT: %[[T1:.*]] = tide.transfer %[[X]] : tensor<1024xf32> to #tide.device<cuda:0>
// CHECK-NEXT: %[[B:.*]] = tide.tanh %[[T1]] {tide.device = #tide.device<cuda:0>}
// CHECK-NEXT: %[[T2:.*]] = tide.transfer %[[X]] : tensor<1024xf32> to #tide.device<cuda:0>
// CHECK-NEXT: %[[C:.*]] = tide.neg %[[T2]] {tide.device = #tide.device<cuda:0>}
// CHECK-NEXT: %[[S:.*]] = tide.add %[[A]], %[[B]] {tide.device = #tide.device<cuda:0>}
// CHECK-NEXT: %[[R:.*]] = tide.add %[[S]], %[[C]] {tide.device = #tide.device<cuda:0>}
// CHECK-NEXT: return %[[R]]
// OPT-LABEL: func.func @host_value_three_gpu_users(
// OPT-SAME: %[[X:.*]]: tensor<1024xf32>)
// OPT: %[[T:.*]] = tide.transfer %[[X]] : tensor<1024xf32> to #tide.device<cuda:0>
// OPT-NOT: tide.transfer
// OPT: tide.exp %[[T]]
// OPT-NOT: tide.transfer
// OPT: tide.tanh %[[T]]
// OPT-NOT: tide.transfer
// OPT: tide.neg %[[T]]
// OPT-NOT: tide.transfer
// OPT: return
func.func @host_value_three_gpu_users(%x: tensor<1024xf32>)
    -> (tensor<1024xf32> {tide.resident = #tide.device<cuda:0>}) {
  %a = tide.exp %x {tide.device = #tide.device<cuda:0>} : tensor<1024xf32>
  %b = tide.tanh %x {tide.device = #tide.device<cuda:0>} : tensor<1024xf32>
  %c = tide.neg %x {tide.device = #tide.device<cuda:0>} : tensor<1024xf32>
  %s = tide.add %a, %b {tide.device = #tide.device<cuda:0>} : tensor<1024xf32>
  %r = tide.add %s, %c {tide.device = #tide.device<cuda:0>} : tensor<1024xf32>
  return %r : tensor<1024xf32>
}

// A GPU result returned to a host result: copied back right before the return.
// CHECK-LABEL: func.func @gpu_result_to_host(
// CHECK-SAME: %[[X:.*]]: tensor<16xf32>)
// CHECK: %[[T:.*]] = tide.transfer %[[X]] : tensor<16xf32> to #tide.device<cuda:0>
// CHECK: %[[E:.*]] = tide.exp %[[T]] {tide.device = #tide.device<cuda:0>}
// CHECK: %[[H:.*]] = tide.transfer %[[E]] : tensor<16xf32> to #tide.device<cpu>
// CHECK-NEXT: return %[[H]]
func.func @gpu_result_to_host(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = tide.exp %x {tide.device = #tide.device<cuda:0>} : tensor<16xf32>
  return %0 : tensor<16xf32>
}

// An argument resident on cuda:0, used on cuda:0, returned to a result resident on cuda:0: no copy at all.
// CHECK-LABEL: func.func @negative_resident_on_gpu(
// CHECK-SAME: %[[X:.*]]: tensor<16xf32> {tide.resident = #tide.device<cuda:0>})
// CHECK-NOT: tide.transfer
// CHECK: %[[N:.*]] = tide.neg %[[X]] {tide.device = #tide.device<cuda:0>}
// CHECK-NOT: tide.transfer
// CHECK: return %[[N]]
func.func @negative_resident_on_gpu(%x: tensor<16xf32> {tide.resident = #tide.device<cuda:0>})
    -> (tensor<16xf32> {tide.resident = #tide.device<cuda:0>}) {
  %0 = tide.neg %x {tide.device = #tide.device<cuda:0>} : tensor<16xf32>
  return %0 : tensor<16xf32>
}

// A resident argument used on the host is copied to the host.
// CHECK-LABEL: func.func @resident_arg_used_on_host(
// CHECK-SAME: %[[X:.*]]: tensor<16xf32> {tide.resident = #tide.device<cuda:0>})
// CHECK: %[[T:.*]] = tide.transfer %[[X]] : tensor<16xf32> to #tide.device<cpu>
// CHECK-NEXT: tide.neg %[[T]] {tide.device = #tide.device<cpu>}
func.func @resident_arg_used_on_host(%x: tensor<16xf32> {tide.resident = #tide.device<cuda:0>}) -> tensor<16xf32> {
  %0 = tide.neg %x {tide.device = #tide.device<cpu>} : tensor<16xf32>
  return %0 : tensor<16xf32>
}

// A host value returned to a result resident on cuda:0 is copied there.
// CHECK-LABEL: func.func @host_value_to_resident_result(
// CHECK: %[[E:.*]] = tide.exp %{{.*}} {tide.device = #tide.device<cpu>}
// CHECK-NEXT: %[[T:.*]] = tide.transfer %[[E]] : tensor<16xf32> to #tide.device<cuda:0>
// CHECK-NEXT: return %[[T]]
func.func @host_value_to_resident_result(%x: tensor<16xf32>)
    -> (tensor<16xf32> {tide.resident = #tide.device<cuda:0>}) {
  %0 = tide.exp %x {tide.device = #tide.device<cpu>} : tensor<16xf32>
  return %0 : tensor<16xf32>
}

// A non-tide user (func.call) reads on the host.
// CHECK-LABEL: func.func @non_tide_user(
// CHECK: %[[E:.*]] = tide.exp %{{.*}} {tide.device = #tide.device<cuda:0>}
// CHECK-NEXT: %[[T:.*]] = tide.transfer %[[E]] : tensor<16xf32> to #tide.device<cpu>
// CHECK-NEXT: call @consume(%[[T]])
func.func private @consume(tensor<16xf32>)
func.func @non_tide_user(%x: tensor<16xf32> {tide.resident = #tide.device<cuda:0>}) {
  %0 = tide.exp %x {tide.device = #tide.device<cuda:0>} : tensor<16xf32>
  func.call @consume(%0) : (tensor<16xf32>) -> ()
  return
}

// From one GPU to another: one direct copy, not through the host.
// CHECK-LABEL: func.func @gpu_to_gpu(
// CHECK: %[[E:.*]] = tide.exp %{{.*}} {tide.device = #tide.device<cuda:0>}
// CHECK-NEXT: %[[T:.*]] = tide.transfer %[[E]] : tensor<16xf32> to #tide.device<cuda:1>
// CHECK-NEXT: %[[N:.*]] = tide.neg %[[T]] {tide.device = #tide.device<cuda:1>}
func.func @gpu_to_gpu(%x: tensor<16xf32> {tide.resident = #tide.device<cuda:0>})
    -> (tensor<16xf32> {tide.resident = #tide.device<cuda:1>}) {
  %0 = tide.exp %x {tide.device = #tide.device<cuda:0>} : tensor<16xf32>
  %1 = tide.neg %0 {tide.device = #tide.device<cuda:1>} : tensor<16xf32>
  return %1 : tensor<16xf32>
}

// One value used twice by one op: a copy per operand (merged by tide-optimize-transfers).
// CHECK-LABEL: func.func @same_value_twice(
// CHECK-SAME: %[[X:.*]]: tensor<16xf32>)
// CHECK: %[[T0:.*]] = tide.transfer %[[X]] : tensor<16xf32> to #tide.device<cuda:0>
// CHECK-NEXT: %[[T1:.*]] = tide.transfer %[[X]] : tensor<16xf32> to #tide.device<cuda:0>
// CHECK-NEXT: tide.add %[[T0]], %[[T1]]
// OPT-LABEL: func.func @same_value_twice(
// OPT: %[[T:.*]] = tide.transfer
// OPT-NOT: tide.transfer
// OPT: tide.add %[[T]], %[[T]]
func.func @same_value_twice(%x: tensor<16xf32>) -> (tensor<16xf32> {tide.resident = #tide.device<cuda:0>}) {
  %0 = tide.add %x, %x {tide.device = #tide.device<cuda:0>} : tensor<16xf32>
  return %0 : tensor<16xf32>
}

// Everything on the host: nothing to copy.
// CHECK-LABEL: func.func @negative_all_on_host(
// CHECK-NOT: tide.transfer
// CHECK: return
func.func @negative_all_on_host(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = tide.exp %x {tide.device = #tide.device<cpu>} : tensor<16xf32>
  %1 = tide.neg %0 {tide.device = #tide.device<cpu>} : tensor<16xf32>
  return %1 : tensor<16xf32>
}

// A transfer already in the IR: its result lives on its destination, so its
// GPU user needs no other copy, and the transfer itself reads anywhere.
// CHECK-LABEL: func.func @negative_existing_transfer(
// CHECK-SAME: %[[X:.*]]: tensor<16xf32>)
// CHECK-NEXT: %[[T:.*]] = tide.transfer %[[X]] : tensor<16xf32> to #tide.device<cuda:0>
// CHECK-NEXT: tide.exp %[[T]] {tide.device = #tide.device<cuda:0>}
func.func @negative_existing_transfer(%x: tensor<16xf32>) -> (tensor<16xf32> {tide.resident = #tide.device<cuda:0>}) {
  %0 = tide.transfer %x : tensor<16xf32> to #tide.device<cuda:0>
  %1 = tide.exp %0 {tide.device = #tide.device<cuda:0>} : tensor<16xf32>
  return %1 : tensor<16xf32>
}

// -----

// Unplaced tide ops are an error: placement must run first.
func.func @negative_unplaced(%x: tensor<16xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{'tide.exp' has no device; run tide-place-devices before tide-insert-transfers}}
  %0 = tide.exp %x : tensor<16xf32>
  %1 = tide.neg %0 {tide.device = #tide.device<cpu>} : tensor<16xf32>
  return %1 : tensor<16xf32>
}
