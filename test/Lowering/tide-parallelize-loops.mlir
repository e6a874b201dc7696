// Tests of tide-parallelize-loops: which loops of convert-linalg-to-parallel-
// loops' output stay parallel (for convert-scf-to-openmp), and which become
// sequential scf.for loops. grain=1024: a nest needs at least 2048 innermost
// iterations to run on two threads.

// RUN: tide-opt %s -split-input-file -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(tide-parallelize-loops{grain=1024}))' \
// RUN:   | FileCheck %s

// 4x1000: the outer dimension runs across threads, the inner one is a
// sequential loop inside each thread's share (which LLVM vectorizes).
// CHECK-LABEL: func.func @outer_only
// CHECK: scf.parallel (%[[I:.*]]) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) {
// CHECK-NEXT: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT: memref.load %{{.*}}[%[[I]], %[[J]]]
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @outer_only(%a: memref<4x1000xf32>, %b: memref<4x1000xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c1000 = arith.constant 1000 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c1000) step (%c1, %c1) {
    %x = memref.load %a[%i, %j] : memref<4x1000xf32>
    memref.store %x, %b[%i, %j] : memref<4x1000xf32>
    scf.reduce
  }
  return
}

// -----

// A vector of 230400 = 225 x 1024 elements: chunks of 1024 run across
// threads, each an scf.for (for tide-annotate-inner-loops).
// CHECK-LABEL: func.func @chunked
// CHECK: %[[C1024:.*]] = arith.constant 1024 : index
// CHECK: scf.parallel (%[[I:.*]]) = (%{{.*}}) to (%{{.*}}) step (%[[C1024]]) {
// CHECK-NEXT: %[[END:.*]] = arith.addi %[[I]], %[[C1024]]
// CHECK-NEXT: scf.for %[[J:.*]] = %[[I]] to %[[END]] step %{{.*}} {
// CHECK-NEXT: memref.load %{{.*}}[%[[J]]]
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @chunked(%a: memref<230400xf32>, %b: memref<230400xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cn = arith.constant 230400 : index
  scf.parallel (%i) = (%c0) to (%cn) step (%c1) {
    %x = memref.load %a[%i] : memref<230400xf32>
    memref.store %x, %b[%i] : memref<230400xf32>
    scf.reduce
  }
  return
}

// -----

// 100003 elements (no power of two from 256 divides it): chunks of 4096 up
// to 98304, then an scf.for over the rest; 5003 elements (fewer than two
// chunks of 4096) and dynamic sizes: one parallel loop over the elements,
// as before.
// CHECK-LABEL: func.func @chunks_and_rest
// CHECK-DAG: %[[C4096:.*]] = arith.constant 4096 : index
// CHECK-DAG: %[[END:.*]] = arith.constant 98304 : index
// CHECK-DAG: %[[N:.*]] = arith.constant 100003 : index
// CHECK: scf.parallel (%[[I:.*]]) = (%{{.*}}) to (%[[END]]) step (%[[C4096]]) {
// CHECK-NEXT: %[[E:.*]] = arith.addi %[[I]], %[[C4096]]
// CHECK-NEXT: scf.for %[[J:.*]] = %[[I]] to %[[E]] step %{{.*}} {
// CHECK-NEXT: memref.load %{{.*}}[%[[J]]]
// CHECK: scf.reduce
// CHECK-NEXT: }
// CHECK-NEXT: scf.for %[[T:.*]] = %[[END]] to %[[N]] step %{{.*}} {
// CHECK-NEXT: %[[X:.*]] = memref.load %{{.*}}[%[[T]]] : memref<100003xf32>
// CHECK-NEXT: memref.store %[[X]], %{{.*}}[%[[T]]] : memref<100003xf32>
// CHECK-NEXT: }
// CHECK: scf.parallel (%[[K:.*]]) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) {
// CHECK-NEXT: memref.load %{{.*}}[%[[K]]] : memref<5003xf32>
// CHECK: scf.parallel (%[[L:.*]]) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) {
// CHECK-NEXT: memref.load %{{.*}}[%[[L]]] : memref<?xf32>
func.func @chunks_and_rest(%a: memref<100003xf32>, %b: memref<100003xf32>, %s: memref<5003xf32>, %d: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cn = arith.constant 100003 : index
  %cs = arith.constant 5003 : index
  scf.parallel (%i) = (%c0) to (%cn) step (%c1) {
    %x = memref.load %a[%i] : memref<100003xf32>
    memref.store %x, %b[%i] : memref<100003xf32>
    scf.reduce
  }
  scf.parallel (%k) = (%c0) to (%cs) step (%c1) {
    %x = memref.load %s[%k] : memref<5003xf32>
    memref.store %x, %s[%k] : memref<5003xf32>
    scf.reduce
  }
  scf.parallel (%l) = (%c0) to (%n) step (%c1) {
    %x = memref.load %d[%l] : memref<?xf32>
    memref.store %x, %d[%l] : memref<?xf32>
    scf.reduce
  }
  return
}

// -----

// 2x8x512: two outer iterations are too few to share out, so the second
// dimension joins them (16); the innermost stays sequential.
// CHECK-LABEL: func.func @two_outer
// CHECK: scf.parallel (%[[I:.*]], %[[J:.*]]) = (%{{.*}}, %{{.*}}) to (%{{.*}}, %{{.*}})
// CHECK-NEXT: scf.for %[[K:.*]] =
// CHECK-NEXT: memref.load %{{.*}}[%[[I]], %[[J]], %[[K]]]
func.func @two_outer(%a: memref<2x8x512xf32>, %b: memref<2x8x512xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c512 = arith.constant 512 : index
  scf.parallel (%i, %j, %k) = (%c0, %c0, %c0) to (%c2, %c8, %c512) step (%c1, %c1, %c1) {
    %x = memref.load %a[%i, %j, %k] : memref<2x8x512xf32>
    memref.store %x, %b[%i, %j, %k] : memref<2x8x512xf32>
    scf.reduce
  }
  return
}

// -----

// 1x5000: a leading unit dimension does not count; the 5000 are shared out.
// CHECK-LABEL: func.func @unit_first
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) = (%{{.*}}, %{{.*}}) to (%{{.*}}, %{{.*}})
// CHECK-NOT: scf.for
// CHECK: return
func.func @unit_first(%a: memref<1x5000xf32>, %b: memref<1x5000xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5000 = arith.constant 5000 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c1, %c5000) step (%c1, %c1) {
    %x = memref.load %a[%i, %j] : memref<1x5000xf32>
    memref.store %x, %b[%i, %j] : memref<1x5000xf32>
    scf.reduce
  }
  return
}

// -----

// 16x16 = 256 iterations, below twice the grain: sequential loops, no
// threading code at all.
// CHECK-LABEL: func.func @negative_small
// CHECK-NOT: scf.parallel
// CHECK: scf.for
// CHECK-NEXT: scf.for
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @negative_small(%a: memref<16x16xf32>, %b: memref<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c16, %c16) step (%c1, %c1) {
    %x = memref.load %a[%i, %j] : memref<16x16xf32>
    memref.store %x, %b[%i, %j] : memref<16x16xf32>
    scf.reduce
  }
  return
}

// -----

// A reduction over the inner dimension (as convert-linalg-to-parallel-loops
// emits it): the inner scf.for counts towards the work (64 x 100 = 6400).
// CHECK-LABEL: func.func @row_sums
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}})
// CHECK-NEXT: scf.for
func.func @row_sums(%a: memref<64x100xf32>, %b: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c100 = arith.constant 100 : index
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    scf.for %j = %c0 to %c100 step %c1 {
      %x = memref.load %a[%i, %j] : memref<64x100xf32>
      %s = memref.load %b[%i] : memref<64xf32>
      %t = arith.addf %x, %s : f32
      memref.store %t, %b[%i] : memref<64xf32>
    }
    scf.reduce
  }
  return
}

// -----

// Sizes known only at run time: the loop stays parallel (tide-omp-team-size
// sizes it then).
// CHECK-LABEL: func.func @dynamic
// CHECK: scf.parallel
func.func @dynamic(%a: memref<?xf32>, %b: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : memref<?xf32>
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %x = memref.load %a[%i] : memref<?xf32>
    memref.store %x, %b[%i] : memref<?xf32>
    scf.reduce
  }
  return
}

// -----

// A parallel loop inside another one runs inside the outer one's threads: it
// becomes a sequential loop (one parallel region per nest).
// CHECK-LABEL: func.func @nested
// CHECK: scf.parallel
// CHECK-NEXT: scf.for
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @nested(%a: memref<?x4096xf32>, %b: memref<?x4096xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4096 = arith.constant 4096 : index
  %n = memref.dim %a, %c0 : memref<?x4096xf32>
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    scf.parallel (%j) = (%c0) to (%c4096) step (%c1) {
      %x = memref.load %a[%i, %j] : memref<?x4096xf32>
      memref.store %x, %b[%i, %j] : memref<?x4096xf32>
      scf.reduce
    }
    scf.reduce
  }
  return
}

// -----

// A parallel loop with a reduction is left to convert-scf-to-openmp as it is.
// CHECK-LABEL: func.func @negative_reduction
// CHECK: scf.parallel {{.*}} init
func.func @negative_reduction(%a: memref<?xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %a, %c0 : memref<?xf32>
  %s = scf.parallel (%i) = (%c0) to (%n) step (%c1) init (%zero) -> f32 {
    %x = memref.load %a[%i] : memref<?xf32>
    scf.reduce(%x : f32) {
    ^bb0(%l: f32, %r: f32):
      %t = arith.addf %l, %r : f32
      scf.reduce.return %t : f32
    }
  }
  return %s : f32
}

// -----

// The same 256 iterations, each storing a 16-element vector (a block of
// tide-tile-transposes): 4096 elements' work, above twice the grain, so the
// loop stays parallel (counted as 256 iterations, the 1024x1024 transposes
// ran on one thread).
// CHECK-LABEL: func.func @vector_stores
// CHECK: scf.parallel
// CHECK: vector.store
func.func @vector_stores(%a: memref<16x256xf32>, %b: memref<16x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c16, %c16) step (%c1, %c1) {
    %col = arith.muli %j, %c16 : index
    %x = vector.load %a[%i, %col] : memref<16x256xf32>, vector<16xf32>
    vector.store %x, %b[%i, %col] : memref<16x256xf32>, vector<16xf32>
    scf.reduce
  }
  return
}
