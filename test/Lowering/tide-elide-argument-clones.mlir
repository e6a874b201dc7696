// Tests of tide-elide-argument-clones on buffer-level IR (as left by
// buffer-deallocation-pipeline): a clone of a function argument whose only
// users are returns is replaced by the argument, so returning an input costs
// no copy. Any other clone stays.

// RUN: tide-opt %s --tide-elide-argument-clones | FileCheck %s

// The identity function: the clone that deallocation adds is removed.
// CHECK-LABEL: func.func @identity(
// CHECK-SAME: %[[X:.*]]: memref<?x3xf32>) -> memref<?x3xf32>
// CHECK-NOT: bufferization.clone
// CHECK: return %[[X]] : memref<?x3xf32>
func.func @identity(%x: memref<?x3xf32>) -> memref<?x3xf32> {
  %0 = bufferization.clone %x : memref<?x3xf32> to memref<?x3xf32>
  return %0 : memref<?x3xf32>
}

// The same clone returned twice: both results become the argument.
// CHECK-LABEL: func.func @returned_twice(
// CHECK-SAME: %[[X:.*]]: memref<4xf32>)
// CHECK-NOT: bufferization.clone
// CHECK: return %[[X]], %[[X]] : memref<4xf32>, memref<4xf32>
func.func @returned_twice(%x: memref<4xf32>) -> (memref<4xf32>, memref<4xf32>) {
  %0 = bufferization.clone %x : memref<4xf32> to memref<4xf32>
  return %0, %0 : memref<4xf32>, memref<4xf32>
}

// Returns in several blocks count as returns too.
// CHECK-LABEL: func.func @returned_in_a_branch(
// CHECK-SAME: %{{.*}}: i1, %[[X:.*]]: memref<4xf32>)
// CHECK-NOT: bufferization.clone
// CHECK: return %[[X]] : memref<4xf32>
// CHECK: return %[[X]] : memref<4xf32>
func.func @returned_in_a_branch(%c: i1, %x: memref<4xf32>) -> memref<4xf32> {
  cf.cond_br %c, ^a, ^b
^a:
  %0 = bufferization.clone %x : memref<4xf32> to memref<4xf32>
  return %0 : memref<4xf32>
^b:
  return %x : memref<4xf32>
}

// Only the clone of the argument goes; the result computed into a new
// buffer is untouched.
// CHECK-LABEL: func.func @one_of_two(
// CHECK-SAME: %[[X:.*]]: memref<4xf32>)
// CHECK: %[[A:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NOT: bufferization.clone
// CHECK: return %[[A]], %[[X]]
func.func @one_of_two(%x: memref<4xf32>) -> (memref<4xf32>, memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  memref.copy %x, %a : memref<4xf32> to memref<4xf32>
  %0 = bufferization.clone %x : memref<4xf32> to memref<4xf32>
  return %a, %0 : memref<4xf32>, memref<4xf32>
}

// The clone is also written to: it must stay a separate buffer.
// CHECK-LABEL: func.func @negative_clone_with_other_user(
// CHECK-SAME: %[[X:.*]]: memref<4xf32>, %[[Y:.*]]: memref<4xf32>)
// CHECK: %[[C:.*]] = bufferization.clone %[[X]] : memref<4xf32> to memref<4xf32>
// CHECK: memref.copy %[[Y]], %[[C]]
// CHECK: return %[[C]] : memref<4xf32>
func.func @negative_clone_with_other_user(%x: memref<4xf32>, %y: memref<4xf32>) -> memref<4xf32> {
  %0 = bufferization.clone %x : memref<4xf32> to memref<4xf32>
  memref.copy %y, %0 : memref<4xf32> to memref<4xf32>
  return %0 : memref<4xf32>
}

// A clone of a buffer the function allocated (and frees) is kept.
// CHECK-LABEL: func.func @negative_clone_of_non_argument(
// CHECK: %[[A:.*]] = memref.alloc() : memref<4xf32>
// CHECK: %[[C:.*]] = bufferization.clone %[[A]] : memref<4xf32> to memref<4xf32>
// CHECK: memref.dealloc %[[A]]
// CHECK: return %[[C]] : memref<4xf32>
func.func @negative_clone_of_non_argument() -> memref<4xf32> {
  %a = memref.alloc() : memref<4xf32>
  %0 = bufferization.clone %a : memref<4xf32> to memref<4xf32>
  memref.dealloc %a : memref<4xf32>
  return %0 : memref<4xf32>
}

// A clone that changes the type cannot be replaced by the argument.
// CHECK-LABEL: func.func @negative_clone_changing_type(
// CHECK: %[[C:.*]] = bufferization.clone %{{.*}} : memref<4xf32> to memref<?xf32>
// CHECK: return %[[C]] : memref<?xf32>
func.func @negative_clone_changing_type(%x: memref<4xf32>) -> memref<?xf32> {
  %0 = bufferization.clone %x : memref<4xf32> to memref<?xf32>
  return %0 : memref<?xf32>
}

// A clone yielded out of a region is not returned directly: kept.
// CHECK-LABEL: func.func @negative_clone_yielded(
// CHECK: scf.if
// CHECK: %[[C:.*]] = bufferization.clone
// CHECK-NEXT: scf.yield %[[C]]
func.func @negative_clone_yielded(%c: i1, %x: memref<4xf32>) -> memref<4xf32> {
  %r = scf.if %c -> memref<4xf32> {
    %0 = bufferization.clone %x : memref<4xf32> to memref<4xf32>
    scf.yield %0 : memref<4xf32>
  } else {
    %a = memref.alloc() : memref<4xf32>
    scf.yield %a : memref<4xf32>
  }
  return %r : memref<4xf32>
}

// A clone of a block argument of an inner block is not a function argument.
// CHECK-LABEL: func.func @negative_clone_of_block_argument(
// CHECK: ^bb1(%[[B:.*]]: memref<4xf32>):
// CHECK-NEXT: %[[C:.*]] = bufferization.clone %[[B]]
// CHECK-NEXT: return %[[C]]
func.func @negative_clone_of_block_argument(%x: memref<4xf32>) -> memref<4xf32> {
  cf.br ^bb1(%x : memref<4xf32>)
^bb1(%b: memref<4xf32>):
  %0 = bufferization.clone %b : memref<4xf32> to memref<4xf32>
  return %0 : memref<4xf32>
}
