// Tests of tide-pipeline-row-loops: two sibling row nests of a tile
// (for r in [0, R): for j: ...) become the first nest's row 0, one nest that
// runs the second's row r with the first's row r + 1, and the second's last
// row; only where that is exact.

// RUN: tide-opt %s --pass-pipeline='builtin.module(func.func(tide-pipeline-row-loops))' \
// RUN:   | FileCheck %s

// A softmax tile: row maxima, then exponentials and their sums (their fill
// between the two moves above the first), then the normalization.
// CHECK-LABEL: func.func @softmax_tile(
// CHECK-SAME: %[[X:[^:]*]]: memref<4x8xf32>
// CHECK-DAG: %[[M:.*]] = memref.alloca() : memref<4xf32>
// CHECK-DAG: %[[S:.*]] = memref.alloca() : memref<4xf32>
// CHECK-DAG: %[[Y:.*]] = memref.alloc() : memref<4x8xf32>
// The maxima's fill, then the sums' fill, now before the first nest.
// CHECK: scf.for
// CHECK: scf.for %[[F:.*]] = {{.*}} {
// CHECK-NEXT: memref.store %{{.*}}, %[[S]][%[[F]]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[C3:.*]] = arith.constant 3 : index
// Row 0's maximum.
// CHECK: scf.for %[[J0:.*]] = {{.*}} {
// CHECK-NEXT: memref.load %[[X]][%[[C0]], %[[J0]]]
// CHECK-NEXT: memref.load %[[M]][%[[C0]]]
// CHECK-NEXT: arith.maxnumf
// CHECK-NEXT: memref.store %{{.*}}, %[[M]][%[[C0]]]
// CHECK-NEXT: }
// Rows 0 to 2's exponentials with rows 1 to 3's maxima.
// CHECK: scf.for %[[R:.*]] = %[[C0]] to %[[C3]] step %[[C1]] {
// CHECK-NEXT: %[[NEXT:.*]] = arith.addi %[[R]], %[[C1]] : index
// CHECK-NEXT: scf.for %[[J:.*]] = {{.*}} {
// CHECK-NEXT: memref.load %[[X]][%[[R]], %[[J]]]
// CHECK-NEXT: memref.load %[[M]][%[[R]]]
// CHECK-NEXT: memref.load %[[S]][%[[R]]]
// CHECK: math.exp
// CHECK: memref.store %{{.*}}, %[[Y]][%[[R]], %[[J]]]
// CHECK-NEXT: memref.store %{{.*}}, %[[S]][%[[R]]]
// CHECK-NEXT: memref.load %[[X]][%[[NEXT]], %[[J]]]
// CHECK-NEXT: memref.load %[[M]][%[[NEXT]]]
// CHECK-NEXT: arith.maxnumf
// CHECK-NEXT: memref.store %{{.*}}, %[[M]][%[[NEXT]]]
// CHECK-NEXT: }
// CHECK-NEXT: }
// Row 3's exponentials.
// CHECK-NEXT: scf.for %[[J3:.*]] = {{.*}} {
// CHECK-NEXT: memref.load %[[X]][%[[C3]], %[[J3]]]
// CHECK: math.exp
// CHECK: }
// The normalization, as it was.
// CHECK-NEXT: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT: scf.for
// CHECK: arith.divf
// CHECK-NOT: scf.for
// CHECK: return
func.func @softmax_tile(%x: memref<4x8xf32>) -> memref<4x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %m = memref.alloca() : memref<4xf32>
  %s = memref.alloca() : memref<4xf32>
  %y = memref.alloc() : memref<4x8xf32>
  scf.for %r = %c0 to %c4 step %c1 {
    memref.store %ninf, %m[%r] : memref<4xf32>
  }
  scf.for %r = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %v = memref.load %x[%r, %j] : memref<4x8xf32>
      %a = memref.load %m[%r] : memref<4xf32>
      %b = arith.maxnumf %v, %a fastmath<nnan,nsz> : f32
      memref.store %b, %m[%r] : memref<4xf32>
    }
  }
  scf.for %r = %c0 to %c4 step %c1 {
    memref.store %zero, %s[%r] : memref<4xf32>
  }
  scf.for %r = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %v = memref.load %x[%r, %j] : memref<4x8xf32>
      %a = memref.load %m[%r] : memref<4xf32>
      %t = memref.load %s[%r] : memref<4xf32>
      %d = arith.subf %v, %a : f32
      %e = math.exp %d : f32
      %u = arith.addf %e, %t fastmath<reassoc> : f32
      memref.store %e, %y[%r, %j] : memref<4x8xf32>
      memref.store %u, %s[%r] : memref<4xf32>
    }
  }
  scf.for %r = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %t = memref.load %s[%r] : memref<4xf32>
      %v = memref.load %y[%r, %j] : memref<4x8xf32>
      %i = arith.divf %one, %t : f32
      %w = arith.mulf %v, %i : f32
      memref.store %w, %y[%r, %j] : memref<4x8xf32>
    }
  }
  return %y : memref<4x8xf32>
}

// In place: the second nest writes the view the first reads, at its own row.
// CHECK-LABEL: func.func @in_place(
// CHECK: scf.for
// CHECK: scf.for %[[R:.*]] =
// CHECK-NEXT: arith.addi %[[R]]
// CHECK-NEXT: scf.for
func.func @in_place(%x: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %m = memref.alloca() : memref<4xf32>
  scf.for %r = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %v = memref.load %x[%r, %j] : memref<4x8xf32>
      %a = memref.load %m[%r] : memref<4xf32>
      %b = arith.addf %v, %a fastmath<reassoc> : f32
      memref.store %b, %m[%r] : memref<4xf32>
    }
  }
  scf.for %r = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %v = memref.load %x[%r, %j] : memref<4x8xf32>
      %a = memref.load %m[%r] : memref<4xf32>
      %d = arith.subf %v, %a : f32
      memref.store %d, %x[%r, %j] : memref<4x8xf32>
    }
  }
  return
}

// Left as they are: an f32 sum without reassoc (LLVM keeps it scalar, and
// the exponentials would stay scalar with it)...
// CHECK-LABEL: func.func @strict_sum(
// CHECK-NOT: arith.addi
// CHECK: return
func.func @strict_sum(%x: memref<4x8xf32>) -> memref<4x8xf32> {
  %y = memref.alloc() : memref<4x8xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %m = memref.alloca() : memref<4xf32>
  scf.for %r = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %v = memref.load %x[%r, %j] : memref<4x8xf32>
      %a = memref.load %m[%r] : memref<4xf32>
      %b = arith.addf %v, %a : f32
      memref.store %b, %m[%r] : memref<4xf32>
    }
  }
  scf.for %r = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %v = memref.load %x[%r, %j] : memref<4x8xf32>
      %a = memref.load %m[%r] : memref<4xf32>
      %e = math.exp %v : f32
      %d = arith.subf %e, %a : f32
      memref.store %d, %y[%r, %j] : memref<4x8xf32>
    }
  }
  return %y : memref<4x8xf32>
}

// ... a second nest that reads another row of what the first writes ...
// CHECK-LABEL: func.func @other_row(
// CHECK-NOT: arith.addi
// CHECK: return
func.func @other_row(%x: memref<4x8xf32>) -> memref<4x8xf32> {
  %y = memref.alloc() : memref<4x8xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %m = memref.alloca() : memref<4xf32>
  scf.for %r = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %v = memref.load %x[%r, %j] : memref<4x8xf32>
      %a = memref.load %m[%r] : memref<4xf32>
      %b = arith.maxnumf %v, %a : f32
      memref.store %b, %m[%r] : memref<4xf32>
    }
  }
  scf.for %r = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %v = memref.load %x[%r, %j] : memref<4x8xf32>
      %a = memref.load %m[%c0] : memref<4xf32>
      %d = arith.subf %v, %a : f32
      memref.store %d, %y[%r, %j] : memref<4x8xf32>
    }
  }
  return %y : memref<4x8xf32>
}

// ... writes to two arguments that may be one buffer ...
// CHECK-LABEL: func.func @may_alias(
// CHECK-NOT: arith.addi
// CHECK: return
func.func @may_alias(%x: memref<4x8xf32>, %y: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %m = memref.alloca() : memref<4xf32>
  scf.for %r = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %v = memref.load %x[%r, %j] : memref<4x8xf32>
      %a = memref.load %m[%r] : memref<4xf32>
      %b = arith.maxnumf %v, %a : f32
      memref.store %b, %m[%r] : memref<4xf32>
    }
  }
  scf.for %r = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %a = memref.load %m[%r] : memref<4xf32>
      memref.store %a, %y[%r, %j] : memref<4x8xf32>
    }
  }
  return
}

// ... an operation between them that writes what the first reads ...
// CHECK-LABEL: func.func @between_writes(
// CHECK-NOT: arith.addi
// CHECK: return
func.func @between_writes(%x: memref<4x8xf32>, %y: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.alloca() : memref<4xf32>
  scf.for %r = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %v = memref.load %x[%r, %j] : memref<4x8xf32>
      %a = memref.load %m[%r] : memref<4xf32>
      %b = arith.maxnumf %v, %a : f32
      memref.store %b, %m[%r] : memref<4xf32>
    }
  }
  memref.store %zero, %m[%c0] : memref<4xf32>
  scf.for %r = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %a = memref.load %m[%r] : memref<4xf32>
      %v = memref.load %x[%r, %j] : memref<4x8xf32>
      %d = arith.subf %v, %a : f32
      memref.store %d, %x[%r, %j] : memref<4x8xf32>
    }
  }
  return
}

// ... and nests of different inner bounds or of one row.
// CHECK-LABEL: func.func @shapes(
// CHECK-NOT: arith.addi
// CHECK: return
func.func @shapes(%x: memref<4x8xf32>) -> memref<4x8xf32> {
  %y = memref.alloc() : memref<4x8xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %m = memref.alloca() : memref<4xf32>
  scf.for %r = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %v = memref.load %x[%r, %j] : memref<4x8xf32>
      %a = memref.load %m[%r] : memref<4xf32>
      %b = arith.maxnumf %v, %a : f32
      memref.store %b, %m[%r] : memref<4xf32>
    }
  }
  scf.for %r = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c7 step %c1 {
      %a = memref.load %m[%r] : memref<4xf32>
      memref.store %a, %y[%r, %j] : memref<4x8xf32>
    }
  }
  scf.for %r = %c0 to %c1 step %c1 {
    scf.for %j = %c0 to %c7 step %c1 {
      %a = memref.load %m[%r] : memref<4xf32>
      memref.store %a, %y[%r, %j] : memref<4x8xf32>
    }
  }
  return %y : memref<4x8xf32>
}

// ... and a written buffer of unknown origin (here a call's result), which
// may be the one the first nest reads.
// CHECK-LABEL: func.func @unknown_origin(
// CHECK-NOT: arith.addi
// CHECK: return
func.func private @some_buffer() -> memref<4x8xf32>
func.func @unknown_origin() -> memref<4x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %x = memref.alloc() : memref<4x8xf32>
  %y = func.call @some_buffer() : () -> memref<4x8xf32>
  %m = memref.alloca() : memref<4xf32>
  scf.for %r = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %v = memref.load %x[%r, %j] : memref<4x8xf32>
      %a = memref.load %m[%r] : memref<4xf32>
      %b = arith.maxnumf %v, %a : f32
      memref.store %b, %m[%r] : memref<4xf32>
    }
  }
  scf.for %r = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %a = memref.load %m[%r] : memref<4xf32>
      memref.store %a, %y[%r, %j] : memref<4x8xf32>
    }
  }
  return %y : memref<4x8xf32>
}
