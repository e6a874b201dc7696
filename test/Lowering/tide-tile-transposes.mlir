// Tests of tide-tile-transposes: a buffer-level linalg op that reads its one
// input through a permutation moving the innermost dimension is tiled (tiles
// of tile-size x tile-size, parallel tile loops) so that both sides of a tile
// stay in the cache; other ops are left alone.

// RUN: tide-opt %s --pass-pipeline='builtin.module(func.func(tide-tile-transposes))' --split-input-file | FileCheck %s
// RUN: tide-opt %s --pass-pipeline='builtin.module(func.func(tide-tile-transposes{tile-size=16}))' --split-input-file | FileCheck %s --check-prefix=SIXTEEN
// RUN: not tide-opt %s --pass-pipeline='builtin.module(func.func(tide-tile-transposes{tile-size=0}))' --split-input-file 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: error: tide-tile-transposes: invalid 'tile-size' 0; expected a positive number of elements

// A 2-D transpose: 32 x 32 tiles over both dims (the edges are partial tiles).
// CHECK-LABEL: func.func @transpose_2d(
// CHECK: scf.parallel (%[[I:.*]], %[[J:.*]]) = ({{.*}}) to (%c70, %c100) step (%c32{{.*}}, %c32{{.*}})
// CHECK: %[[SX:.*]] = memref.subview %{{.*}}[%[[J]], %[[I]]]
// CHECK: %[[SY:.*]] = memref.subview %{{.*}}[%[[I]], %[[J]]]
// CHECK: linalg.transpose ins(%[[SX]] : {{.*}}) outs(%[[SY]] : {{.*}}) permutation = [1, 0]
// SIXTEEN-LABEL: func.func @transpose_2d(
// SIXTEEN: arith.constant 16 : index
func.func @transpose_2d(%x: memref<100x70xf32>, %y: memref<70x100xf32>) {
  linalg.transpose ins(%x : memref<100x70xf32>) outs(%y : memref<70x100xf32>) permutation = [1, 0]
  return
}

// -----

// Elementwise work fused into a transpose (a generic reading through the
// permutation) is tiled the same way.
// CHECK-LABEL: func.func @exp_transposed(
// CHECK: scf.parallel
// CHECK: linalg.generic
// CHECK: math.exp
func.func @exp_transposed(%x: memref<64x48xf32>, %y: memref<48x64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<64x48xf32>) outs(%y : memref<48x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// A transpose that keeps the innermost dimension (attention's heads) copies
// contiguous rows already: untouched.
// CHECK-LABEL: func.func @heads(
// CHECK-NOT: scf.parallel
// CHECK: linalg.transpose
func.func @heads(%x: memref<2x8x4x16xf32>, %y: memref<2x4x8x16xf32>) {
  linalg.transpose ins(%x : memref<2x8x4x16xf32>) outs(%y : memref<2x4x8x16xf32>) permutation = [0, 2, 1, 3]
  return
}

// -----

// Plain elementwise ops and tensors are untouched.
// CHECK-LABEL: func.func @negative(
// CHECK-NOT: scf.parallel
// CHECK: linalg.generic
// CHECK: linalg.transpose ins(%{{.*}} : tensor<3x4xf32>)
func.func @negative(%x: memref<4x3xf32>, %y: memref<4x3xf32>, %t: tensor<3x4xf32>, %e: tensor<4x3xf32>) -> tensor<4x3xf32> {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x3xf32>) outs(%y : memref<4x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  %r = linalg.transpose ins(%t : tensor<3x4xf32>) outs(%e : tensor<4x3xf32>) permutation = [1, 0]
  return %r : tensor<4x3xf32>
}
