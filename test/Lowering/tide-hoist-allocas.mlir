// RUN: tide-opt %s --tide-hoist-allocas | FileCheck %s

// A statically sized stack buffer in an OpenMP loop body moves to the start
// of the omp.parallel region: one per thread, not one per iteration.
// CHECK-LABEL: func.func @omp_loop
// CHECK: omp.parallel {
// CHECK-NEXT: %[[M:.+]] = memref.alloca() : memref<8xf32>
// CHECK-NEXT: omp.wsloop
// CHECK: memref.alloca_scope
// CHECK-NOT: memref.alloca()
// CHECK: memref.store %{{.*}}, %[[M]]
func.func @omp_loop(%n: index, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%n) step (%c1) {
        memref.alloca_scope {
          %m = memref.alloca() : memref<8xf32>
          memref.store %v, %m[%c0] : memref<8xf32>
        }
        omp.yield
      }
    }
    omp.terminator
  }
  return
}

// In a serial loop, to the function's entry (the stack no longer grows at
// each iteration); a buffer with a dynamic size stays where its size is
// computed, and one outside every loop is left alone.
// CHECK-LABEL: func.func @serial_loop
// CHECK-NEXT: %[[M:.+]] = memref.alloca() : memref<4xf32>
// CHECK-NEXT: %[[T:.+]] = memref.alloca() : memref<2xf32>
// CHECK: scf.for
// CHECK-NEXT: memref.alloca(%{{.*}}) : memref<?xf32>
// CHECK: memref.store %{{.*}}, %[[M]]
func.func @serial_loop(%n: index, %v: f32) {
  %t = memref.alloca() : memref<2xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %d = memref.alloca(%i) : memref<?xf32>
    %m = memref.alloca() : memref<4xf32>
    memref.store %v, %m[%c0] : memref<4xf32>
    memref.store %v, %t[%c0] : memref<2xf32>
  }
  return
}
