// Tests of tide-annotate-inner-loops and tide-apply-loop-annotations: the
// innermost scf.for loops of at least min-trip-count iterations (or an
// unknown count) get unroll<disable = true> and an interleave count (4, or
// 2 for loops that accumulate; interleave=0 leaves it to LLVM), which reaches the llvm.br of
// the loop's back edge as its loop_annotation property (LLVM loop metadata).

// RUN: tide-opt %s --pass-pipeline='builtin.module(func.func(tide-annotate-inner-loops))' \
// RUN:   --mlir-print-local-scope | FileCheck %s
// RUN: tide-opt %s --pass-pipeline='builtin.module(func.func(tide-annotate-inner-loops{min-trip-count=2}))' \
// RUN:   --mlir-print-local-scope | FileCheck %s --check-prefix=TWO
// RUN: tide-opt %s --pass-pipeline='builtin.module(func.func(tide-annotate-inner-loops{interleave=0}))' \
// RUN:   --mlir-print-local-scope | FileCheck %s --check-prefix=LLVMS-CHOICE
// RUN: tide-opt %s --pass-pipeline='builtin.module(func.func(tide-annotate-inner-loops),convert-scf-to-cf,finalize-memref-to-llvm,convert-arith-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts,tide-apply-loop-annotations)' \
// RUN:   | FileCheck %s --check-prefix=LLVM

// A row copy of 56 iterations inside an outer loop: only the inner loop is
// annotated.
// CHECK-LABEL: func.func @rows(
// CHECK: scf.for
// CHECK: scf.for
// CHECK: memref.store
// CHECK-NEXT: } {llvm.loop_annotation = #llvm.loop_annotation<interleave = <count = 4 : i32>, unroll = <disable = true>>}
// CHECK-NEXT: }
// CHECK-NOT: llvm.loop_annotation
// CHECK: return
// LLVM-LABEL: llvm.func @rows(
// LLVM: llvm.br ^{{.*}} {loop_annotation = #{{.*}}}
// LLVM-NOT: llvm.loop_annotation
// LLVMS-CHOICE-LABEL: func.func @rows(
// LLVMS-CHOICE: } {llvm.loop_annotation = #llvm.loop_annotation<unroll = <disable = true>>}
func.func @rows(%a: memref<8x56xf32>, %b: memref<8x56xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c56 = arith.constant 56 : index
  scf.for %i = %c0 to %c8 step %c1 {
    scf.for %j = %c0 to %c56 step %c1 {
      %v = memref.load %a[%i, %j] : memref<8x56xf32>
      memref.store %v, %b[%i, %j] : memref<8x56xf32>
    }
  }
  return
}

// An unknown trip count is annotated too.
// CHECK-LABEL: func.func @dynamic(
// CHECK: } {llvm.loop_annotation = #llvm.loop_annotation<interleave = <count = 4 : i32>, unroll = <disable = true>>}
func.func @dynamic(%a: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    memref.store %f, %a[%i] : memref<?xf32>
  }
  return
}

// negative_ A 3-iteration window loop is left to LLVM (below the default of
// 16), unless min-trip-count allows it.
// CHECK-LABEL: func.func @negative_window(
// CHECK-NOT: llvm.loop_annotation
// CHECK: return
// TWO-LABEL: func.func @negative_window(
// TWO: } {llvm.loop_annotation = #llvm.loop_annotation<interleave = <count = 4 : i32>, unroll = <disable = true>>}
func.func @negative_window(%a: memref<3xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %f = arith.constant 1.0 : f32
  scf.for %i = %c0 to %c3 step %c1 {
    memref.store %f, %a[%i] : memref<3xf32>
  }
  return
}

// A reduction into memory (an accumulator stored at the same element at every
// iteration, as convert-linalg-to-loops writes a row sum) and one through
// iter_args are interleaved twice as well: two vector accumulators.
// CHECK-LABEL: func.func @sums(
// CHECK: memref.store
// CHECK-NEXT: } {llvm.loop_annotation = #llvm.loop_annotation<interleave = <count = 2 : i32>, unroll = <disable = true>>}
// CHECK: scf.yield
// CHECK-NEXT: } {llvm.loop_annotation = #llvm.loop_annotation<interleave = <count = 2 : i32>, unroll = <disable = true>>}
func.func @sums(%a: memref<8x1000xf32>, %s: memref<8xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c1000 = arith.constant 1000 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c8 step %c1 {
    scf.for %j = %c0 to %c1000 step %c1 {
      %v = memref.load %a[%i, %j] : memref<8x1000xf32>
      %acc = memref.load %s[%i] : memref<8xf32>
      %r = arith.addf %v, %acc fastmath<reassoc> : f32
      memref.store %r, %s[%i] : memref<8xf32>
    }
  }
  %t = scf.for %j = %c0 to %c1000 step %c1 iter_args(%acc = %zero) -> f32 {
    %v = memref.load %a[%c0, %j] : memref<8x1000xf32>
    %r = arith.addf %v, %acc fastmath<reassoc> : f32
    scf.yield %r : f32
  }
  return %t : f32
}
