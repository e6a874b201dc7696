// RUN: tide-opt %s --tide-outline-loop-nests=min-nests=3 --split-input-file | FileCheck %s
// RUN: tide-opt %s --tide-outline-loop-nests=min-nests=4 --split-input-file | FileCheck %s --check-prefix=FEW

// Three top-level nests (a loop with a carried value among them): each
// moves into a private noinline function; constants are cloned, the other
// values it reads become arguments; the functions are internal.

// CHECK-LABEL: func.func @three(
// CHECK-SAME:      %[[X:.*]]: memref<64xf32>
// CHECK:         %[[A:.*]] = memref.alloc() : memref<64xf32>
// CHECK:         call @three_nest0(%[[X]], %[[A]]) : (memref<64xf32>, memref<64xf32>) -> ()
// CHECK:         %[[S:.*]] = call @three_nest1(%[[A]]) : (memref<64xf32>) -> f32
// CHECK:         %[[V:.*]] = memref.subview %[[A]]
// CHECK:         call @three_nest2(%[[V]], %[[S]], %[[A]])
// CHECK:         return %[[S]]
// CHECK:       func.func private @three_nest2(%{{.*}}: memref<32xf32, strided<[1], offset: 32>>, %{{.*}}: f32, %{{.*}}: memref<64xf32>) attributes {llvm.linkage = #llvm.linkage<internal>, passthrough = ["noinline"]}
// CHECK:       func.func private @three_nest1(%{{.*}}: memref<64xf32>) -> f32 attributes {llvm.linkage = #llvm.linkage<internal>, passthrough = ["noinline"]}
// CHECK-DAG:     arith.constant 0 : index
// CHECK-DAG:     arith.constant 64 : index
// CHECK:         %[[R:.*]] = scf.for
// CHECK:         return %[[R]] : f32
// CHECK:       func.func private @three_nest0(%{{.*}}: memref<64xf32>, %{{.*}}: memref<64xf32>) attributes {llvm.linkage = #llvm.linkage<internal>, passthrough = ["noinline"]}
// CHECK:         scf.for
// CHECK:         return

// FEW-LABEL: func.func @three(
// FEW-NOT:     call
// FEW-NOT:   _nest

func.func @three(%x: memref<64xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<64xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    %v = memref.load %x[%i] : memref<64xf32>
    memref.store %v, %a[%i] : memref<64xf32>
  }
  %s = scf.for %i = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> f32 {
    %v = memref.load %a[%i] : memref<64xf32>
    %n = arith.addf %acc, %v : f32
    scf.yield %n : f32
  }
  %c32 = arith.constant 32 : index
  %h = memref.subview %a[32] [32] [1] : memref<64xf32> to memref<32xf32, strided<[1], offset: 32>>
  scf.for %i = %c0 to %c32 step %c1 {
    %v = memref.load %h[%i] : memref<32xf32, strided<[1], offset: 32>>
    %w = arith.mulf %v, %s : f32
    memref.store %w, %a[%i] : memref<64xf32>
  }
  memref.dealloc %a : memref<64xf32>
  return %s : f32
}
