// RUN: tide-opt %s --convert-tide-to-linalg --canonicalize --cse --mlir-print-local-scope \
// RUN:   | FileCheck %s --implicit-check-not=' tide.'

// tide.scan (Scan.cpp): an scf.for over the sequences' length carrying the
// states and the stacked results; each step slices the sequences at its
// position, runs the body's ops (lowered like any other) and writes its scan
// outputs into the stacked results there.

// A running sum: static step shapes, the results allocated before the loop.
// CHECK-LABEL: func.func @cumsum(
// CHECK-SAME: %[[X:.*]]: tensor<?x4xf32>, %[[Z:.*]]: tensor<4xf32>
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %c0
// CHECK: %[[ACC:.*]] = tensor.empty(%[[N]]) : tensor<?x4xf32>
// CHECK: %[[R:.*]]:2 = scf.for %[[I:.*]] = %c0 to %[[N]] step %c1 iter_args(%[[S:.*]] = %[[Z]], %[[A:.*]] = %[[ACC]])
// CHECK: %[[XT:.*]] = tensor.extract_slice %[[X]][%[[I]], 0] [1, 4] [1, 1] : tensor<?x4xf32> to tensor<4xf32>
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[S]], %[[XT]] :
// CHECK: arith.addf
// CHECK: %[[W:.*]] = tensor.insert_slice %[[SUM]] into %[[A]][%[[I]], 0] [1, 4] [1, 1]
// CHECK: scf.yield %[[SUM]], %[[W]]
// CHECK: return %[[R]]#0, %[[R]]#1
func.func @cumsum(%x: tensor<?x4xf32>, %z: tensor<4xf32>) -> (tensor<4xf32>, tensor<?x4xf32>) {
  %s, %p = tide.scan inits(%z : tensor<4xf32>) sequences(%x : tensor<?x4xf32>) {
  ^bb0(%t: tensor<i64>, %acc: tensor<4xf32>, %xt: tensor<4xf32>):
    %n = tide.add %acc, %xt : tensor<4xf32>, tensor<4xf32>
    tide.yield %n, %n : tensor<4xf32>, tensor<4xf32>
  } : tensor<4xf32>, tensor<?x4xf32>
  return %s, %p : tensor<4xf32>, tensor<?x4xf32>
}

// Reverse, with a step whose size is known only at run time: the first step
// (position n - 1) is peeled off to size the stacked result; with no step
// the stacked result is empty, the sizes no step gave 0, and the state its
// initial value. The loop checks that every step has the first one's size.
// The position argument is the index as an i64 tensor.
// CHECK-LABEL: func.func @peel(
// CHECK-SAME: %[[X:.*]]: tensor<?x?xf32>, %[[H:.*]]: tensor<?xf32>
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %[[C0:.*]] :
// CHECK: %[[NONE:.*]] = arith.cmpi eq, %[[N]], %[[Z:.*]] : index
// CHECK: %[[PEELED:.*]]:3 = scf.if %[[NONE]] -> (tensor<?xf32>, tensor<?x?xf32>, tensor<?xi64>) {
// CHECK:   %[[E0:.*]] = tensor.empty(%[[N]]) : tensor<?x0xf32>
// CHECK:   %[[C:.*]] = tensor.cast %[[E0]] : tensor<?x0xf32> to tensor<?x?xf32>
// CHECK:   %[[E1:.*]] = tensor.empty(%[[N]]) : tensor<?xi64>
// CHECK:   scf.yield %[[H]], %[[C]], %[[E1]]
// CHECK: } else {
// CHECK:   %[[LAST:.*]] = arith.subi %[[N]], %c1
// CHECK:   tensor.extract_slice %[[X]][%[[LAST]], 0]
// CHECK:   %[[FIRST:.*]] = linalg.generic
// CHECK:   %[[EMPTY:.*]] = tensor.empty(%[[N]], %{{.*}}) : tensor<?x?xf32>
// CHECK:   %[[W0:.*]] = tensor.insert_slice %[[FIRST]] into %[[EMPTY]][%[[LAST]], 0]
// CHECK:   scf.yield %[[FIRST]], %[[W0]], %{{.*}}
// CHECK: }
// CHECK: scf.for %[[I:.*]] = %c1 to %[[N]] step %c1 iter_args(%{{.*}} = %[[PEELED]]#0, %[[A:.*]] = %[[PEELED]]#1, %{{.*}} = %[[PEELED]]#2)
// CHECK: %[[POS:.*]] = arith.subi %[[LAST]], %[[I]]
// CHECK: %[[P64:.*]] = arith.index_cast %[[POS]] : index to i64
// CHECK: tensor.from_elements %[[P64]] : tensor<i64>
// CHECK: tensor.extract_slice %[[X]][%[[POS]], 0]
// CHECK: cf.assert %{{.*}}, "'tide.scan' at {{.*}}: scan output 0 changes its size along dimension 0 from one step to the next"
// CHECK: tensor.insert_slice %{{.*}} into %[[A]][%[[POS]], 0]
func.func @peel(%x: tensor<?x?xf32>, %h: tensor<?xf32>) -> (tensor<?x?xf32>, tensor<?xi64>) {
  %r:3 = tide.scan inits(%h : tensor<?xf32>) sequences(%x : tensor<?x?xf32>) reverse {
  ^bb0(%t: tensor<i64>, %s: tensor<?xf32>, %xt: tensor<?xf32>):
    %n = tide.mul %s, %xt : tensor<?xf32>, tensor<?xf32>
    tide.yield %n, %n, %t : tensor<?xf32>, tensor<?xf32>, tensor<i64>
  } : tensor<?xf32>, tensor<?x?xf32>, tensor<?xi64>
  return %r#1, %r#2 : tensor<?x?xf32>, tensor<?xi64>
}

// Unsigned states and invariants compute on signless tensors.
// CHECK-LABEL: func.func @unsigned(
// CHECK: scf.for {{.*}} -> (tensor<3xi8>, tensor<?x3xi8>)
// CHECK: arith.addi
func.func @unsigned(%x: tensor<?x3xui8>, %z: tensor<3xui8>, %b: tensor<3xui8>) -> tensor<?x3xui8> {
  %s, %p = tide.scan inits(%z : tensor<3xui8>) sequences(%x : tensor<?x3xui8>) invariants(%b : tensor<3xui8>) {
  ^bb0(%t: tensor<i64>, %acc: tensor<3xui8>, %xt: tensor<3xui8>, %bi: tensor<3xui8>):
    %n = tide.add %acc, %xt : tensor<3xui8>, tensor<3xui8>
    %m = tide.add %n, %bi : tensor<3xui8>, tensor<3xui8>
    tide.yield %m, %m : tensor<3xui8>, tensor<3xui8>
  } : tensor<3xui8>, tensor<?x3xui8>
  return %p : tensor<?x3xui8>
}

// A conditional scan with no sequence (a while loop): an scf.while whose
// `before` region reads the condition state; the stacked result starts with
// no capacity and is replaced by one twice as large (at least 4) when full;
// the result is its first `count` steps.
// CHECK-LABEL: func.func @doubling(
// CHECK-SAME: %[[X:.*]]: tensor<4xf32>, %[[L:.*]]: tensor<f32>
// CHECK: %[[NONE:.*]] = tensor.cast %{{.*}} : tensor<0x4xf32> to tensor<?x4xf32>
// CHECK: %[[R:.*]]:3 = scf.while (%[[P:.*]] = %c0, %[[C:.*]] = %{{.*}}, %[[V:.*]] = %[[X]], %[[A:.*]] = %[[NONE]])
// CHECK: %[[GO:.*]] = tensor.extract %[[C]][] : tensor<i1>
// CHECK: scf.condition(%[[GO]]) %[[P]], %[[V]], %[[A]]
// CHECK: } do {
// CHECK: ^bb0(%[[I:.*]]: index, %[[VI:.*]]: tensor<4xf32>, %[[AI:.*]]: tensor<?x4xf32>):
// CHECK: %[[TWICE:.*]] = linalg.generic {{.*}} ins(%[[VI]], %[[VI]] :
// CHECK: %[[MORE:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<i1>)
// CHECK: %[[NEXT:.*]] = arith.addi %[[I]], %c1
// CHECK: %[[CAP:.*]] = tensor.dim %[[AI]], %c0
// CHECK: %[[FULL:.*]] = arith.cmpi sge, %[[I]], %[[CAP]]
// CHECK: %[[GROWN:.*]] = scf.if %[[FULL]] -> (tensor<?x4xf32>) {
// CHECK: %[[DOUBLE:.*]] = arith.muli %[[CAP]], %c2
// CHECK: %[[NEWCAP:.*]] = arith.maxsi %[[DOUBLE]], %c4
// CHECK: %[[FRESH:.*]] = tensor.empty(%[[NEWCAP]]) : tensor<?x4xf32>
// CHECK: %[[OLD:.*]] = tensor.extract_slice %[[AI]][0, 0] [%[[I]], 4] [1, 1]
// CHECK: %[[COPY:.*]] = tensor.insert_slice %[[OLD]] into %[[FRESH]][0, 0] [%[[I]], 4] [1, 1]
// CHECK: scf.yield %[[COPY]]
// CHECK: } else {
// CHECK: scf.yield %[[AI]]
// CHECK: %[[W:.*]] = tensor.insert_slice %[[TWICE]] into %[[GROWN]][%[[I]], 0] [1, 4] [1, 1]
// CHECK: scf.yield %[[NEXT]], %[[MORE]], %[[TWICE]], %[[W]]
// CHECK: %[[RAN:.*]] = tensor.extract_slice %[[R]]#2[0, 0] [%[[R]]#0, 4] [1, 1]
// CHECK: return %[[R]]#1, %[[RAN]]
func.func @doubling(%x: tensor<4xf32>, %limit: tensor<f32>) -> (tensor<4xf32>, tensor<?x4xf32>) {
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

// Over a sequence too, with a step of run-time size: the loop also stops at
// the sequence's end; the step's size is checked against the earlier steps'
// (not before the first, when the buffer's sizes are placeholders).
// CHECK-LABEL: func.func @bounded(
// CHECK-SAME: %[[C:.*]]: tensor<i1>, %[[X:.*]]: tensor<?x?xf32>
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %c0
// CHECK: scf.while (%[[P:.*]] = %c0, %{{.*}} = %{{.*}})
// CHECK: %[[GO:.*]] = tensor.extract %[[C]][] : tensor<i1>
// CHECK: %[[IN:.*]] = arith.cmpi slt, %[[P]], %[[N]]
// CHECK: %[[BOTH:.*]] = arith.andi %[[GO]], %[[IN]]
// CHECK: scf.condition(%[[BOTH]])
// CHECK: } do {
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %{{.*}}, %c0
// CHECK: %[[WANT:.*]] = arith.select %[[FIRST]], %[[GOT:.*]], %{{.*}}
// CHECK: %[[SAME:.*]] = arith.cmpi eq, %[[GOT]], %[[WANT]]
// CHECK: cf.assert %[[SAME]], "'tide.scan' at {{.*}}: scan output 0 changes its size along dimension 0 from one step to the next"
// CHECK-NOT: cf.assert
// CHECK: scf.if
// CHECK: return
func.func @bounded(%c: tensor<i1>, %x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %go, %rows = tide.scan conditional inits(%c : tensor<i1>) sequences(%x : tensor<?x?xf32>) {
  ^bb0(%t: tensor<i64>, %g: tensor<i1>, %r: tensor<?xf32>):
    %e = tide.exp %r : tensor<?xf32>
    tide.yield %g, %e : tensor<i1>, tensor<?xf32>
  } : tensor<i1>, tensor<?x?xf32>
  return %rows : tensor<?x?xf32>
}
