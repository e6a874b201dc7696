// RUN: tide-opt %s --convert-tide-to-linalg --canonicalize --cse --mlir-print-local-scope \
// RUN:   | FileCheck %s --implicit-check-not=tide.

// tide.top_k on the CPU (Selection.cpp): per row, a heap of the k best
// elements whose root is the worst kept (the first k, heapified), one compare
// per other element against the root, then a heap sort into the result.

// Largest f32 along the last axis, a static k: the result is filled with 0,
// the heap has k + 1 slots, the row loop runs over the other dimension.
// NaN is the largest value (uno/ord), ties go to the smaller index (ult on indices).
// CHECK-LABEL: func.func @largest(
// CHECK-SAME: %[[X:.*]]: tensor<3x9xf32>
// CHECK: linalg.fill ins(%{{.*}} : i64) outs(%{{.*}} : tensor<3x4xi64>)
// CHECK: tensor.empty() : tensor<5xf32>
// CHECK: tensor.empty() : tensor<5xindex>
// CHECK: scf.while
// CHECK: scf.for
// CHECK: tensor.extract %[[X]]
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf uno
// CHECK: arith.cmpf ord
// CHECK: arith.cmpi ult
// CHECK: return %{{.*}} : tensor<3x4xi64>
func.func @largest(%x: tensor<3x9xf32>, %k: tensor<1xi64>) -> tensor<3x4xi64> {
  %i = tide.top_k %x, %k axis = -1 : tensor<3x9xf32>, tensor<1xi64> to tensor<3x4xi64>
  return %i : tensor<3x4xi64>
}

// Unsigned and smallest: unsigned compares; k read at run time (clamped at
// 0) sizes the result.
// CHECK-LABEL: func.func @smallest_unsigned(
// CHECK-SAME: %[[Y:.*]]: tensor<?x5xi16>, %[[K:.*]]: tensor<1xi64>
// CHECK: %[[KV:.*]] = tensor.extract %[[K]]
// CHECK: arith.index_cast %[[KV]]
// CHECK: arith.maxsi
// CHECK: tensor.empty(%{{.*}}) : tensor<?x5xi64>
// CHECK: arith.cmpi ult, %{{.*}} : i16
// After the heap of the first k, the rest in blocks of 32 tested against the
// root at once (an i1 or-reduction), element by element only in a block that
// has a better one, and the tail one by one.
// CHECK: arith.divui %{{.*}}, %[[C32:.*]] : index
// CHECK: scf.for
// CHECK: %[[ANY:.*]] = scf.for {{.*}} -> (i1)
// CHECK: arith.ori
// CHECK: scf.if %[[ANY]]
// CHECK-NOT: arith.cmpi slt, %{{.*}} : i16
func.func @smallest_unsigned(%y: tensor<?x5xui16>, %k: tensor<1xi64>) -> tensor<?x5xi64> {
  %i = tide.top_k %y, %k axis = 0 smallest : tensor<?x5xui16>, tensor<1xi64> to tensor<?x5xi64>
  return %i : tensor<?x5xi64>
}

// Most of a row kept (2k >= n, n >= 64): a merge sort of the whole row
// instead of the heap. The row and its indices go into one buffer pair, runs
// merged in pairs into the other and back (two passes a step, so that each
// buffer stays in place), and the first k indices of the sorted row written.
// The four scratch buffers (n + 1 slots) are allocations of their own.
// CHECK-LABEL: func.func @most(
// CHECK-SAME: %[[X:.*]]: tensor<2x100xf32>
// CHECK: bufferization.alloc_tensor() : tensor<101xf32>
// CHECK: bufferization.alloc_tensor() : tensor<101xindex>
// CHECK: bufferization.alloc_tensor() : tensor<101xf32>
// CHECK: bufferization.alloc_tensor() : tensor<101xindex>
// CHECK: scf.for {{.*}} -> (tensor<2x60xi64>, tensor<?xf32>, tensor<?xindex>, tensor<?xf32>, tensor<?xindex>)
// CHECK: tensor.extract %[[X]]
// CHECK: %[[SORT:.*]]:5 = scf.while
// CHECK: arith.ceildivui
// CHECK: arith.minui
// CHECK: scf.for {{.*}} -> (tensor<?xf32>, tensor<?xindex>, index, index)
// CHECK: arith.cmpf ogt
// CHECK: arith.ceildivui
// CHECK: scf.for {{.*}} -> (tensor<?xf32>, tensor<?xindex>, index, index)
// CHECK: tensor.extract %[[SORT]]#2
// CHECK: tensor.insert {{.*}} : tensor<2x60xi64>
func.func @most(%x: tensor<2x100xf32>, %k: tensor<1xi64>) -> tensor<2x60xi64> {
  %i = tide.top_k %x, %k axis = 1 : tensor<2x100xf32>, tensor<1xi64> to tensor<2x60xi64>
  return %i : tensor<2x60xi64>
}
