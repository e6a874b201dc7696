// Tests of tide-optimize-transfers: one copy per (value, destination), placed
// right after the value is defined; copies read from the original value;
// copies to where the value already lives, round trips and unused copies go.

// RUN: tide-opt %s --tide-optimize-transfers | FileCheck %s
// The whole output of one run is valid input (the pass keeps dominance).
// RUN: tide-opt %s --tide-optimize-transfers | tide-opt --tide-optimize-transfers | FileCheck %s

// x goes to the GPU and straight back: the exp reads x itself.
// CHECK-LABEL: func.func @round_trip_from_host(
// CHECK-SAME: %[[X:.*]]: tensor<16xf32>)
// CHECK-NOT: tide.transfer
// CHECK: %[[E:.*]] = tide.exp %[[X]] {tide.device = #tide.device<cpu>}
// CHECK-NOT: tide.transfer
// CHECK: return %[[E]]
func.func @round_trip_from_host(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = tide.transfer %x : tensor<16xf32> to #tide.device<cuda:0>
  %1 = tide.transfer %0 : tensor<16xf32> to #tide.device<cpu>
  %2 = tide.exp %1 {tide.device = #tide.device<cpu>} : tensor<16xf32>
  return %2 : tensor<16xf32>
}

// A GPU value sent to the host and back to the same GPU: no copy.
// CHECK-LABEL: func.func @round_trip_from_gpu(
// CHECK: %[[E:.*]] = tide.exp %{{.*}} {tide.device = #tide.device<cuda:0>}
// CHECK-NOT: tide.transfer
// CHECK: tide.neg %[[E]] {tide.device = #tide.device<cuda:0>}
func.func @round_trip_from_gpu(%x: tensor<16xf32> {tide.resident = #tide.device<cuda:0>})
    -> (tensor<16xf32> {tide.resident = #tide.device<cuda:0>}) {
  %0 = tide.exp %x {tide.device = #tide.device<cuda:0>} : tensor<16xf32>
  %1 = tide.transfer %0 : tensor<16xf32> to #tide.device<cpu>
  %2 = tide.transfer %1 : tensor<16xf32> to #tide.device<cuda:0>
  %3 = tide.neg %2 {tide.device = #tide.device<cuda:0>} : tensor<16xf32>
  return %3 : tensor<16xf32>
}

// transfer(transfer(x)) reads from x: one copy host -> cuda:1, the hop through cuda:0 is gone.
// CHECK-LABEL: func.func @chain_reads_from_source(
// CHECK: %[[E:.*]] = tide.exp %{{.*}} {tide.device = #tide.device<cpu>}
// CHECK-NEXT: %[[T:.*]] = tide.transfer %[[E]] : tensor<16xf32> to #tide.device<cuda:1>
// CHECK-NOT: to #tide.device<cuda:0>
// CHECK: tide.neg %[[T]] {tide.device = #tide.device<cuda:1>}
func.func @chain_reads_from_source(%x: tensor<16xf32>) -> (tensor<16xf32> {tide.resident = #tide.device<cuda:1>}) {
  %e = tide.exp %x {tide.device = #tide.device<cpu>} : tensor<16xf32>
  %0 = tide.transfer %e : tensor<16xf32> to #tide.device<cuda:0>
  %1 = tide.transfer %0 : tensor<16xf32> to #tide.device<cuda:1>
  %2 = tide.neg %1 {tide.device = #tide.device<cuda:1>} : tensor<16xf32>
  return %2 : tensor<16xf32>
}

// The inner copy is still used by a GPU op: both copies stay, each reading from the source.
// CHECK-LABEL: func.func @chain_with_inner_user(
// CHECK: %[[E:.*]] = tide.exp %{{.*}} {tide.device = #tide.device<cpu>}
// CHECK-DAG: %[[T0:.*]] = tide.transfer %[[E]] : tensor<16xf32> to #tide.device<cuda:0>
// CHECK-DAG: %[[T1:.*]] = tide.transfer %[[E]] : tensor<16xf32> to #tide.device<cuda:1>
// CHECK: tide.neg %[[T0]] {tide.device = #tide.device<cuda:0>}
// CHECK: tide.neg %[[T1]] {tide.device = #tide.device<cuda:1>}
func.func @chain_with_inner_user(%x: tensor<16xf32>)
    -> (tensor<16xf32> {tide.resident = #tide.device<cuda:0>}, tensor<16xf32> {tide.resident = #tide.device<cuda:1>}) {
  %e = tide.exp %x {tide.device = #tide.device<cpu>} : tensor<16xf32>
  %0 = tide.transfer %e : tensor<16xf32> to #tide.device<cuda:0>
  %1 = tide.neg %0 {tide.device = #tide.device<cuda:0>} : tensor<16xf32>
  %2 = tide.transfer %0 : tensor<16xf32> to #tide.device<cuda:1>
  %3 = tide.neg %2 {tide.device = #tide.device<cuda:1>} : tensor<16xf32>
  return %1, %3 : tensor<16xf32>, tensor<16xf32>
}

// A copy to the device the value already lives on is removed.
// CHECK-LABEL: func.func @to_same_device(
// CHECK: %[[E:.*]] = tide.exp %{{.*}} {tide.device = #tide.device<cpu>}
// CHECK-NOT: tide.transfer
// CHECK: tide.neg %[[E]] {tide.device = #tide.device<cpu>}
func.func @to_same_device(%x: tensor<16xf32>) -> tensor<16xf32> {
  %e = tide.exp %x {tide.device = #tide.device<cpu>} : tensor<16xf32>
  %0 = tide.transfer %e : tensor<16xf32> to #tide.device<cpu>
  %1 = tide.neg %0 {tide.device = #tide.device<cpu>} : tensor<16xf32>
  return %1 : tensor<16xf32>
}

// An argument resident on cuda:0 copied to cuda:0: removed.
// CHECK-LABEL: func.func @resident_arg_same_device(
// CHECK-SAME: %[[X:.*]]: tensor<16xf32> {tide.resident = #tide.device<cuda:0>})
// CHECK-NOT: tide.transfer
// CHECK: tide.neg %[[X]] {tide.device = #tide.device<cuda:0>}
func.func @resident_arg_same_device(%x: tensor<16xf32> {tide.resident = #tide.device<cuda:0>})
    -> (tensor<16xf32> {tide.resident = #tide.device<cuda:0>}) {
  %0 = tide.transfer %x : tensor<16xf32> to #tide.device<cuda:0>
  %1 = tide.neg %0 {tide.device = #tide.device<cuda:0>} : tensor<16xf32>
  return %1 : tensor<16xf32>
}

// Three copies of a host argument to cuda:0 become one, at the start of the body.
// CHECK-LABEL: func.func @merge_argument_copies(
// CHECK-SAME: %[[X:.*]]: tensor<1024xf32>)
// CHECK-NEXT: %[[T:.*]] = tide.transfer %[[X]] : tensor<1024xf32> to #tide.device<cuda:0>
// CHECK-NOT: tide.transfer
// CHECK: tide.exp %[[T]]
// CHECK: tide.tanh %[[T]]
// CHECK: tide.neg %[[T]]
// CHECK: return
func.func @merge_argument_copies(%x: tensor<1024xf32>)
    -> (tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>)
    attributes {tide.default_device = #tide.device<cuda:0>} {
  %e = tide.exp %x {tide.device = #tide.device<cpu>} : tensor<1024xf32>
  %t0 = tide.transfer %e : tensor<1024xf32> to #tide.device<cpu>
  %0 = tide.transfer %x : tensor<1024xf32> to #tide.device<cuda:0>
  %a = tide.exp %0 {tide.device = #tide.device<cuda:0>} : tensor<1024xf32>
  %1 = tide.transfer %x : tensor<1024xf32> to #tide.device<cuda:0>
  %b = tide.tanh %1 {tide.device = #tide.device<cuda:0>} : tensor<1024xf32>
  %2 = tide.transfer %x : tensor<1024xf32> to #tide.device<cuda:0>
  %c = tide.neg %2 {tide.device = #tide.device<cuda:0>} : tensor<1024xf32>
  %ha = tide.transfer %a : tensor<1024xf32> to #tide.device<cpu>
  %hb = tide.transfer %b : tensor<1024xf32> to #tide.device<cpu>
  %hc = tide.transfer %c : tensor<1024xf32> to #tide.device<cpu>
  return %ha, %hb, %hc : tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>
}

// Copies of an op's result merge into one right after the op, so it dominates every use.
// CHECK-LABEL: func.func @merge_result_copies(
// CHECK: %[[E:.*]] = tide.exp %{{.*}} {tide.device = #tide.device<cpu>}
// CHECK-NEXT: %[[T:.*]] = tide.transfer %[[E]] : tensor<16xf32> to #tide.device<cuda:0>
// CHECK-NEXT: tide.neg %[[E]] {tide.device = #tide.device<cpu>}
// CHECK-NOT: tide.transfer
// CHECK: tide.tanh %[[T]]
// CHECK: tide.abs %[[T]]
func.func @merge_result_copies(%x: tensor<16xf32>)
    -> (tensor<16xf32>, tensor<16xf32> {tide.resident = #tide.device<cuda:0>}, tensor<16xf32> {tide.resident = #tide.device<cuda:0>}) {
  %e = tide.exp %x {tide.device = #tide.device<cpu>} : tensor<16xf32>
  %n = tide.neg %e {tide.device = #tide.device<cpu>} : tensor<16xf32>
  %0 = tide.transfer %e : tensor<16xf32> to #tide.device<cuda:0>
  %a = tide.tanh %0 {tide.device = #tide.device<cuda:0>} : tensor<16xf32>
  %1 = tide.transfer %e : tensor<16xf32> to #tide.device<cuda:0>
  %b = tide.abs %1 {tide.device = #tide.device<cuda:0>} : tensor<16xf32>
  return %n, %a, %b : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
}

// Copies of two arguments keep their program order at the start of the body.
// CHECK-LABEL: func.func @argument_copies_in_order(
// CHECK-SAME: %[[X:[^:]*]]: tensor<16xf32>, %[[Y:[^:]*]]: tensor<16xf32>)
// CHECK-NEXT: %[[TY:.*]] = tide.transfer %[[Y]] : tensor<16xf32> to #tide.device<cuda:0>
// CHECK-NEXT: %[[TX:.*]] = tide.transfer %[[X]] : tensor<16xf32> to #tide.device<cuda:0>
// CHECK: tide.exp %[[TY]]
// CHECK: tide.exp %[[TX]]
func.func @argument_copies_in_order(%x: tensor<16xf32>, %y: tensor<16xf32>)
    -> (tensor<16xf32> {tide.resident = #tide.device<cuda:0>}, tensor<16xf32> {tide.resident = #tide.device<cuda:0>}) {
  %c = tide.constant {tide.device = #tide.device<cpu>} dense<1.0> : tensor<16xf32>
  %0 = tide.transfer %y : tensor<16xf32> to #tide.device<cuda:0>
  %a = tide.exp %0 {tide.device = #tide.device<cuda:0>} : tensor<16xf32>
  %1 = tide.transfer %x : tensor<16xf32> to #tide.device<cuda:0>
  %b = tide.exp %1 {tide.device = #tide.device<cuda:0>} : tensor<16xf32>
  return %a, %b : tensor<16xf32>, tensor<16xf32>
}

// A copy no one uses is erased.
// CHECK-LABEL: func.func @unused_copy(
// CHECK-NOT: tide.transfer
// CHECK: return
func.func @unused_copy(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = tide.transfer %x : tensor<16xf32> to #tide.device<cuda:0>
  return %x : tensor<16xf32>
}

// Copies of one value to two different devices are both needed.
// CHECK-LABEL: func.func @negative_two_destinations(
// CHECK-SAME: %[[X:.*]]: tensor<16xf32>)
// CHECK-DAG: %[[T0:.*]] = tide.transfer %[[X]] : tensor<16xf32> to #tide.device<cuda:0>
// CHECK-DAG: %[[T1:.*]] = tide.transfer %[[X]] : tensor<16xf32> to #tide.device<cuda:1>
// CHECK: tide.exp %[[T0]]
// CHECK: tide.exp %[[T1]]
func.func @negative_two_destinations(%x: tensor<16xf32>)
    -> (tensor<16xf32> {tide.resident = #tide.device<cuda:0>}, tensor<16xf32> {tide.resident = #tide.device<cuda:1>}) {
  %0 = tide.transfer %x : tensor<16xf32> to #tide.device<cuda:0>
  %a = tide.exp %0 {tide.device = #tide.device<cuda:0>} : tensor<16xf32>
  %1 = tide.transfer %x : tensor<16xf32> to #tide.device<cuda:1>
  %b = tide.exp %1 {tide.device = #tide.device<cuda:1>} : tensor<16xf32>
  return %a, %b : tensor<16xf32>, tensor<16xf32>
}

// A single needed copy stays as it is.
// CHECK-LABEL: func.func @negative_needed_copy(
// CHECK-SAME: %[[X:.*]]: tensor<16xf32>)
// CHECK-NEXT: %[[T:.*]] = tide.transfer %[[X]] : tensor<16xf32> to #tide.device<cuda:0>
// CHECK-NEXT: %[[E:.*]] = tide.exp %[[T]] {tide.device = #tide.device<cuda:0>}
// CHECK-NEXT: %[[H:.*]] = tide.transfer %[[E]] : tensor<16xf32> to #tide.device<cpu>
// CHECK-NEXT: return %[[H]]
func.func @negative_needed_copy(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = tide.transfer %x : tensor<16xf32> to #tide.device<cuda:0>
  %1 = tide.exp %0 {tide.device = #tide.device<cuda:0>} : tensor<16xf32>
  %2 = tide.transfer %1 : tensor<16xf32> to #tide.device<cpu>
  return %2 : tensor<16xf32>
}

// The device of an unplaced op's result is unknown: its copy is kept.
// CHECK-LABEL: func.func @negative_unplaced_source(
// CHECK: %[[E:.*]] = tide.exp %{{.*}} : tensor<16xf32>
// CHECK-NEXT: tide.transfer %[[E]] : tensor<16xf32> to #tide.device<cpu>
func.func @negative_unplaced_source(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = tide.exp %x : tensor<16xf32>
  %1 = tide.transfer %0 : tensor<16xf32> to #tide.device<cpu>
  return %1 : tensor<16xf32>
}
