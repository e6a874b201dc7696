// Tests of tide-tile-transposes: a buffer-level linalg op that reads its one
// input through a permutation moving the innermost dimension is tiled (tiles
// of tile-size x tile-size, parallel tile loops) so that both sides of a tile
// stay in the cache; other ops are left alone.

// RUN: tide-opt %s --pass-pipeline='builtin.module(func.func(tide-tile-transposes))' --split-input-file | FileCheck %s
// RUN: tide-opt %s --pass-pipeline='builtin.module(func.func(tide-tile-transposes{tile-size=16}))' --split-input-file | FileCheck %s --check-prefix=SIXTEEN
// RUN: tide-opt %s --pass-pipeline='builtin.module(func.func(tide-tile-transposes{vector-blocks=true}))' --split-input-file | FileCheck %s --check-prefix=BLOCKS
// RUN: not tide-opt %s --pass-pipeline='builtin.module(func.func(tide-tile-transposes{tile-size=0}))' --split-input-file 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: error: tide-tile-transposes: invalid 'tile-size' 0; expected a positive number of elements

// A 2-D transpose: 64 x 64 tiles over both dims (the edges are partial tiles),
// the tile loop over the input's rows (J) outside.
// CHECK-LABEL: func.func @transpose_2d(
// CHECK: scf.parallel (%[[J:.*]], %[[I:.*]]) = ({{.*}}) to (%c100, %c70) step (%c64{{.*}}, %c64{{.*}})
// CHECK: %[[SX:.*]] = memref.subview %{{.*}}[%[[J]], %[[I]]]
// CHECK: %[[SY:.*]] = memref.subview %{{.*}}[%[[I]], %[[J]]]
// CHECK: linalg.transpose ins(%[[SX]] : {{.*}}) outs(%[[SY]] : {{.*}}) permutation = [1, 0]
// CHECK-NOT: vector.
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

// -----

// With vector-blocks: a plain 32-bit transpose is copied by 16x16 blocks: 16
// row loads along the input's contiguous dimension, 64 shuffles, 16 row
// stores along the result's; what is left past the whole blocks of a tile
// (70 = 64 + 6 along I, 100 = 64 + 36 = 64 + 32 + 4 along J) element by
// element. A result of 28 KB is below streaming-bytes: ordinary stores.
// BLOCKS-LABEL: func.func @blocks_2d(
// BLOCKS: scf.parallel (%[[J:.*]], %[[I:.*]]) =
// BLOCKS-DAG: %[[SX:.*]] = memref.subview %{{.*}}[%[[J]], %[[I]]]
// BLOCKS-DAG: %[[SY:.*]] = memref.subview %{{.*}}[%[[I]], %[[J]]]
// BLOCKS: arith.remui
// BLOCKS: linalg.transpose ins(%{{.*}} : {{.*}}) outs(%{{.*}} : {{.*}}) permutation = [1, 0]
// BLOCKS: linalg.transpose ins(%{{.*}} : {{.*}}) outs(%{{.*}} : {{.*}}) permutation = [1, 0]
// BLOCKS: scf.for %[[B:.*]] = %c0{{.*}} to %{{.*}} step %c16
// BLOCKS: scf.for %[[A:.*]] = %c0{{.*}} to %{{.*}} step %c16
// BLOCKS-COUNT-16: vector.load %[[SX]]{{.*}} : memref<?x?xf32, strided<[70, 1], offset: ?>>, vector<16xf32>
// BLOCKS: vector.shuffle {{.*}} [0, 16, 1, 17, 4, 20, 5, 21, 8, 24, 9, 25, 12, 28, 13, 29]
// BLOCKS-COUNT-63: vector.shuffle
// BLOCKS-NOT: vector.shuffle
// BLOCKS-COUNT-16: vector.store %{{.*}}, %[[SY]][%{{.*}}, %[[B]]] : memref<?x?xf32, strided<[100, 1], offset: ?>>, vector<16xf32>
// BLOCKS-NOT: nontemporal
func.func @blocks_2d(%x: memref<100x70xf32>, %y: memref<70x100xf32>) {
  linalg.transpose ins(%x : memref<100x70xf32>) outs(%y : memref<70x100xf32>) permutation = [1, 0]
  return
}

// -----

// A result of 16 MiB in a 64-byte aligned allocation (rows of whole blocks)
// is written with non-temporal stores.
// BLOCKS-LABEL: func.func @streaming(
// BLOCKS-COUNT-16: vector.store {{.*}} {alignment = 64 : i64, nontemporal = true}
func.func @streaming(%x: memref<2048x2048xi32>) -> memref<2048x2048xi32> {
  %y = memref.alloc() {alignment = 64 : i64} : memref<2048x2048xi32>
  linalg.transpose ins(%x : memref<2048x2048xi32>) outs(%y : memref<2048x2048xi32>) permutation = [1, 0]
  return %y : memref<2048x2048xi32>
}

// -----

// ... but not where alignment is unknown (a caller's buffer), nor for
// other element widths (f64: tiles, element by element), nor with
// elementwise work fused in.
// BLOCKS-LABEL: func.func @not_streaming(
// BLOCKS-COUNT-16: vector.store
// BLOCKS-NOT: nontemporal
// BLOCKS-LABEL: func.func @f64(
// BLOCKS-NOT: vector.
// BLOCKS: linalg.transpose
// BLOCKS-NOT: vector.
// BLOCKS-LABEL: func.func @fused(
// BLOCKS-NOT: vector.
// BLOCKS: math.exp
// BLOCKS-NOT: vector.
func.func @not_streaming(%x: memref<2048x2048xf32>, %y: memref<2048x2048xf32>) {
  linalg.transpose ins(%x : memref<2048x2048xf32>) outs(%y : memref<2048x2048xf32>) permutation = [1, 0]
  return
}
func.func @f64(%x: memref<64x64xf64>, %y: memref<64x64xf64>) {
  linalg.transpose ins(%x : memref<64x64xf64>) outs(%y : memref<64x64xf64>) permutation = [1, 0]
  return
}
func.func @fused(%x: memref<64x64xf32>, %y: memref<64x64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<64x64xf32>) outs(%y : memref<64x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// NCHW -> NHWC: tiles over W (the input's innermost) and C (the result's),
// C's tile loop outside; the blocks run inside loops over N and H.
// BLOCKS-LABEL: func.func @nchw_to_nhwc(
// BLOCKS: scf.parallel (%[[C:.*]], %[[W:.*]]) = ({{.*}}) to (%c128, %c96)
// BLOCKS: scf.for %[[N:.*]] = %c0{{.*}} to %c2 step %c1
// BLOCKS: scf.for %[[H:.*]] = %c0{{.*}} to %c5 step %c1
// BLOCKS: scf.for %[[B:.*]] = %c0{{.*}} to %c64{{.*}} step %c16
// BLOCKS: scf.for %[[A:.*]] = %c0{{.*}} to %{{.*}} step %c16
// BLOCKS: vector.load %{{.*}}[%[[N]], %{{.*}}, %[[H]], %[[A]]]
// BLOCKS: vector.store %{{.*}}, %{{.*}}[%[[N]], %[[H]], %{{.*}}, %[[B]]]
func.func @nchw_to_nhwc(%x: memref<2x128x5x96xf32>, %y: memref<2x5x96x128xf32>) {
  linalg.transpose ins(%x : memref<2x128x5x96xf32>) outs(%y : memref<2x5x96x128xf32>) permutation = [0, 2, 3, 1]
  return
}
