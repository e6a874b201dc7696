// Tests of tide-stream-stores: an innermost loop that writes one row of a
// large result nothing else touches becomes scalar iterations up to the
// vector alignment, vector iterations with non-temporal stores, and the
// rest; an sfence follows the outermost op holding it. Everything else is
// left alone. (min-bytes is lowered so that the buffers stay small.)

// RUN: tide-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(tide-stream-stores{min-bytes=4096}))' \
// RUN:   | FileCheck %s
// RUN: tide-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(tide-stream-stores{min-bytes=4096 vector-bytes=32}))' \
// RUN:   | FileCheck %s --check-prefix=AVX2
// RUN: tide-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(tide-stream-stores{min-bytes=0}))' \
// RUN:   | FileCheck %s --check-prefix=NEVER
// RUN: not tide-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(tide-stream-stores{vector-bytes=48}))' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD

// BAD: error: tide-stream-stores: invalid 'min-bytes' 8388608 or 'vector-bytes' 48; expected a non-negative size and 16, 32 or 64
// NEVER-NOT: nontemporal
// NEVER-NOT: sfence

// y = x * s over 64x100 f32 (25600 bytes): the row's address, the scalar
// head, the vector body (the scale broadcast once, before it), the tail.
// CHECK-LABEL: func.func @scale(
// CHECK-SAME: %[[X:[^:]*]]: memref<64x100xf32>, %[[S:[^:]*]]: memref<f32>
// CHECK: %[[Y:.*]] = memref.alloc() {alignment = 64 : i64} : memref<64x100xf32>
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: memref.extract_strided_metadata %[[Y]]
// CHECK: %[[P:.*]] = memref.extract_aligned_pointer_as_index %[[Y]]
// CHECK: arith.remui %{{.*}}, %[[C64:.*]] : index
// CHECK: %[[START:.*]] = arith.addi
// CHECK: %[[END:.*]] = arith.addi %[[START]],
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %[[START]] step %{{.*}} {
// CHECK-NEXT: memref.load %[[X]][%[[I]], %[[J]]]
// CHECK-NEXT: memref.load %[[S]][]
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: memref.store %{{.*}}, %[[Y]][%[[I]], %[[J]]]
// CHECK-NEXT: }
// CHECK: %[[ANY:.*]] = arith.cmpi ult, %[[START]], %[[END]] : index
// CHECK: scf.if %[[ANY]] {
// CHECK: %[[SV:.*]] = memref.load %[[S]][] : memref<f32>
// CHECK: %[[C16:.*]] = arith.constant 16 : index
// CHECK: %[[B:.*]] = vector.broadcast %[[SV]] : f32 to vector<16xf32>
// CHECK: scf.for %[[V:.*]] = %[[START]] to %[[END]] step %[[C16]] {
// CHECK-NEXT: %[[A:.*]] = vector.load %[[X]][%[[I]], %[[V]]] : memref<64x100xf32>, vector<16xf32>
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[A]], %[[B]] fastmath<contract> : vector<16xf32>
// CHECK-NEXT: vector.store %[[M]], %[[Y]][%[[I]], %[[V]]] {alignment = 64 : i64, nontemporal = true} : memref<64x100xf32>, vector<16xf32>
// CHECK-NEXT: }
// CHECK: scf.for %[[T:.*]] = %[[END]] to %{{.*}} step %{{.*}} {
// CHECK-NEXT: memref.load %[[X]][%[[I]], %[[T]]]
// CHECK: memref.store %{{.*}}, %[[Y]][%[[I]], %[[T]]]
// CHECK-NEXT: }
// CHECK: }
// CHECK-NEXT: llvm.call_intrinsic "llvm.x86.sse.sfence"() : () -> ()
// CHECK-NEXT: return %[[Y]]
// AVX2-LABEL: func.func @scale(
// AVX2: vector.store %{{.*}} {alignment = 32 : i64, nontemporal = true} : memref<64x100xf32>, vector<8xf32>
func.func @scale(%x: memref<64x100xf32>, %s: memref<f32>) -> memref<64x100xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c100 = arith.constant 100 : index
  %y = memref.alloc() {alignment = 64 : i64} : memref<64x100xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    scf.for %j = %c0 to %c100 step %c1 {
      %a = memref.load %x[%i, %j] : memref<64x100xf32>
      %b = memref.load %s[] : memref<f32>
      %m = arith.mulf %a, %b fastmath<contract> : f32
      memref.store %m, %y[%i, %j] : memref<64x100xf32>
    }
  }
  return %y : memref<64x100xf32>
}

// -----

// Through a view, in a parallel loop, f64 (8 lanes), a comparison and a
// select: the result is written through subviews of the allocation.
// CHECK-LABEL: func.func @rows_of_view(
// CHECK: scf.parallel
// CHECK: arith.cmpf ogt, %{{.*}}, %{{.*}} : vector<8xf64>
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : vector<8xi1>, vector<8xf64>
// CHECK: vector.store %{{.*}} {alignment = 64 : i64, nontemporal = true} : memref<2x100xf64, strided<[100, 1], offset: ?>>, vector<8xf64>
// CHECK: scf.reduce
// CHECK: llvm.call_intrinsic "llvm.x86.sse.sfence"
func.func @rows_of_view(%x: memref<64x100xf64>) -> memref<64x100xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c100 = arith.constant 100 : index
  %zero = arith.constant 0.0 : f64
  %y = memref.alloc() : memref<64x100xf64>
  scf.parallel (%i) = (%c0) to (%c64) step (%c2) {
    %v = memref.subview %y[%i, 0] [2, 100] [1, 1] : memref<64x100xf64> to memref<2x100xf64, strided<[100, 1], offset: ?>>
    scf.for %r = %c0 to %c2 step %c1 {
      %row = arith.addi %i, %r : index
      scf.for %j = %c0 to %c100 step %c1 {
        %a = memref.load %x[%row, %j] : memref<64x100xf64>
        %p = arith.cmpf ogt, %a, %zero : f64
        %m = arith.select %p, %a, %zero : f64
        memref.store %m, %v[%r, %j] : memref<2x100xf64, strided<[100, 1], offset: ?>>
      }
    }
    scf.reduce
  }
  return %y : memref<64x100xf64>
}

// -----

// A result written by two loops (tide-parallelize-loops' chunks of a 1-D
// loop and the rest after them): both are streamed.
// CHECK-LABEL: func.func @chunks_and_rest(
// CHECK: scf.parallel
// CHECK: vector.store %{{.*}} {alignment = 64 : i64, nontemporal = true}
// CHECK: scf.reduce
// CHECK: llvm.call_intrinsic "llvm.x86.sse.sfence"
// CHECK: vector.store %{{.*}} {alignment = 64 : i64, nontemporal = true}
// CHECK: llvm.call_intrinsic "llvm.x86.sse.sfence"
// CHECK-NEXT: return
func.func @chunks_and_rest(%x: memref<8303xf32>) -> memref<8303xf32> {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %c4096 = arith.constant 4096 : index
  %c8192 = arith.constant 8192 : index
  %c8303 = arith.constant 8303 : index
  %y = memref.alloc() {alignment = 64 : i64} : memref<8303xf32>
  scf.parallel (%i) = (%c0) to (%c8192) step (%c4096) {
    %e = arith.addi %i, %c4096 : index
    scf.for %j = %i to %e step %c1 {
      %a = memref.load %x[%j] : memref<8303xf32>
      %n = arith.negf %a : f32
      memref.store %n, %y[%j] : memref<8303xf32>
    }
    scf.reduce
  }
  scf.for %j = %c8192 to %c8303 step %c1 {
    %a = memref.load %x[%j] : memref<8303xf32>
    %n = arith.negf %a : f32
    memref.store %n, %y[%j] : memref<8303xf32>
  }
  return %y : memref<8303xf32>
}

// -----

// f32 exp and expm1 are vectorized too (tide-expand-host-exp expands
// vector ones inline), f64 exp is not.
// CHECK-LABEL: func.func @exponential(
// CHECK: math.exp %{{.*}} : vector<16xf32>
// CHECK: math.expm1 %{{.*}} : vector<16xf32>
// CHECK: vector.store %{{.*}} {alignment = 64 : i64, nontemporal = true}
// CHECK-LABEL: func.func @exponential_f64(
// CHECK-NOT: vector.store
// CHECK: return
func.func @exponential(%x: memref<64x100xf32>) -> memref<64x100xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c100 = arith.constant 100 : index
  %y = memref.alloc() : memref<64x100xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    scf.for %j = %c0 to %c100 step %c1 {
      %a = memref.load %x[%i, %j] : memref<64x100xf32>
      %e = math.exp %a : f32
      %m = math.expm1 %e : f32
      memref.store %m, %y[%i, %j] : memref<64x100xf32>
    }
  }
  return %y : memref<64x100xf32>
}

func.func @exponential_f64(%x: memref<64x100xf64>) -> memref<64x100xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c100 = arith.constant 100 : index
  %y = memref.alloc() : memref<64x100xf64>
  scf.for %i = %c0 to %c64 step %c1 {
    scf.for %j = %c0 to %c100 step %c1 {
      %a = memref.load %x[%i, %j] : memref<64x100xf64>
      %e = math.exp %a : f64
      memref.store %e, %y[%i, %j] : memref<64x100xf64>
    }
  }
  return %y : memref<64x100xf64>
}

// -----

// Left alone: a result smaller than min-bytes, one read after it is
// written, one stored across its rows (a transpose), a body with a
// logarithm (called per element on vectors), an argument as the result, two stores, f16 values, a step of
// 2, and an index computed in the body.
// CHECK-LABEL: func.func @small(
// CHECK-NOT: vector.store
// CHECK: return
func.func @small(%x: memref<8x100xf32>) -> memref<8x100xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c100 = arith.constant 100 : index
  %y = memref.alloc() : memref<8x100xf32>
  scf.for %i = %c0 to %c8 step %c1 {
    scf.for %j = %c0 to %c100 step %c1 {
      %a = memref.load %x[%i, %j] : memref<8x100xf32>
      memref.store %a, %y[%i, %j] : memref<8x100xf32>
    }
  }
  return %y : memref<8x100xf32>
}

// CHECK-LABEL: func.func @read_after(
// CHECK-NOT: vector.store
// CHECK: return
func.func @read_after(%x: memref<64x100xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c100 = arith.constant 100 : index
  %y = memref.alloc() : memref<64x100xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    scf.for %j = %c0 to %c100 step %c1 {
      %a = memref.load %x[%i, %j] : memref<64x100xf32>
      memref.store %a, %y[%i, %j] : memref<64x100xf32>
    }
  }
  %r = memref.load %y[%c0, %c0] : memref<64x100xf32>
  memref.dealloc %y : memref<64x100xf32>
  return %r : f32
}

// CHECK-LABEL: func.func @across_rows(
// CHECK-NOT: vector.store
// CHECK: return
func.func @across_rows(%x: memref<64x100xf32>) -> memref<100x64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c100 = arith.constant 100 : index
  %y = memref.alloc() : memref<100x64xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    scf.for %j = %c0 to %c100 step %c1 {
      %a = memref.load %x[%i, %j] : memref<64x100xf32>
      memref.store %a, %y[%j, %i] : memref<100x64xf32>
    }
  }
  return %y : memref<100x64xf32>
}

// CHECK-LABEL: func.func @logarithm(
// CHECK-NOT: vector.store
// CHECK: return
func.func @logarithm(%x: memref<64x100xf32>) -> memref<64x100xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c100 = arith.constant 100 : index
  %y = memref.alloc() : memref<64x100xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    scf.for %j = %c0 to %c100 step %c1 {
      %a = memref.load %x[%i, %j] : memref<64x100xf32>
      %e = math.log %a : f32
      memref.store %e, %y[%i, %j] : memref<64x100xf32>
    }
  }
  return %y : memref<64x100xf32>
}

// CHECK-LABEL: func.func @argument(
// CHECK-NOT: vector.store
// CHECK: return
func.func @argument(%x: memref<64x100xf32>, %y: memref<64x100xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c100 = arith.constant 100 : index
  scf.for %i = %c0 to %c64 step %c1 {
    scf.for %j = %c0 to %c100 step %c1 {
      %a = memref.load %x[%i, %j] : memref<64x100xf32>
      memref.store %a, %y[%i, %j] : memref<64x100xf32>
    }
  }
  return
}

// CHECK-LABEL: func.func @two_stores(
// CHECK-NOT: vector.store
// CHECK: return
func.func @two_stores(%x: memref<64x100xf32>) -> (memref<64x100xf32>, memref<64x100xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c100 = arith.constant 100 : index
  %y = memref.alloc() : memref<64x100xf32>
  %z = memref.alloc() : memref<64x100xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    scf.for %j = %c0 to %c100 step %c1 {
      %a = memref.load %x[%i, %j] : memref<64x100xf32>
      memref.store %a, %y[%i, %j] : memref<64x100xf32>
      memref.store %a, %z[%i, %j] : memref<64x100xf32>
    }
  }
  return %y, %z : memref<64x100xf32>, memref<64x100xf32>
}

// CHECK-LABEL: func.func @half(
// CHECK-NOT: vector.store
// CHECK: return
func.func @half(%x: memref<64x100xf32>) -> memref<64x100xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c100 = arith.constant 100 : index
  %y = memref.alloc() : memref<64x100xf16>
  scf.for %i = %c0 to %c64 step %c1 {
    scf.for %j = %c0 to %c100 step %c1 {
      %a = memref.load %x[%i, %j] : memref<64x100xf32>
      %h = arith.truncf %a : f32 to f16
      memref.store %h, %y[%i, %j] : memref<64x100xf16>
    }
  }
  return %y : memref<64x100xf16>
}

// CHECK-LABEL: func.func @step_two(
// CHECK-NOT: vector.store
// CHECK: return
func.func @step_two(%x: memref<64x100xf32>) -> memref<64x100xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c100 = arith.constant 100 : index
  %y = memref.alloc() : memref<64x100xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    scf.for %j = %c0 to %c100 step %c2 {
      %a = memref.load %x[%i, %j] : memref<64x100xf32>
      memref.store %a, %y[%i, %j] : memref<64x100xf32>
    }
  }
  return %y : memref<64x100xf32>
}

// CHECK-LABEL: func.func @index_value(
// CHECK-NOT: vector.store
// CHECK: return
func.func @index_value(%x: memref<64x100xi64>) -> memref<64x100xi64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c100 = arith.constant 100 : index
  %y = memref.alloc() : memref<64x100xi64>
  scf.for %i = %c0 to %c64 step %c1 {
    scf.for %j = %c0 to %c100 step %c1 {
      %k = arith.index_cast %j : index to i64
      memref.store %k, %y[%i, %j] : memref<64x100xi64>
    }
  }
  return %y : memref<64x100xi64>
}
