// RUN: tide-opt %s --convert-tide-to-linalg --canonicalize --cse --mlir-print-local-scope \
// RUN:   | FileCheck %s --implicit-check-not=tide.

// Results sized by the data (DataDependent.cpp): host loops over tensors.

// tide.nonzero: a pass that counts the non-zero elements (NaN counts: une),
// the result allocated at that count, a pass that writes each one's
// coordinates into the next column.
// CHECK-LABEL: func.func @nonzero(
// CHECK-SAME: %[[X:.*]]: tensor<?x4xf32>)
// CHECK: %[[ROWS:.*]] = tensor.dim %[[X]]
// CHECK: %[[N:.*]] = scf.for %{{.*}} = %{{.*}} to %[[ROWS]]
// CHECK: scf.for
// CHECK: tensor.extract %[[X]]
// CHECK: arith.cmpf une
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<2x?xi64>
// CHECK: %[[W:.*]]:2 = scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %[[E]])
// CHECK: scf.if
// CHECK-COUNT-2: tensor.insert
// CHECK: return %[[W]]#1 : tensor<2x?xi64>
func.func @nonzero(%x: tensor<?x4xf32>) -> tensor<2x?xi64> {
  %i = tide.nonzero %x : tensor<?x4xf32> to tensor<2x?xi64>
  return %i : tensor<2x?xi64>
}

// A scalar: no coordinates, a count of 0 or 1 (i1 is its own test).
// CHECK-LABEL: func.func @nonzero_scalar(
// CHECK: %[[V:.*]] = tensor.extract
// CHECK: %[[C:.*]] = arith.select %[[V]]
// CHECK: tensor.empty(%[[C]]) : tensor<0x?xi64>
// CHECK-NOT: tensor.insert
func.func @nonzero_scalar(%x: tensor<i1>) -> tensor<0x?xi64> {
  %i = tide.nonzero %x : tensor<i1> to tensor<0x?xi64>
  return %i : tensor<0x?xi64>
}

// tide.non_max_suppression: per batch and class, the candidates above the
// score threshold (ogt) with their scores, a heap sort of them (best first),
// their extents and areas laid out in that order (a 5-row scratch tensor) with
// a flag each, then one step per candidate in that order: one not yet
// suppressed, while fewer than min(max(limit, 0), boxes) are selected, is
// selected and marks the later candidates it suppresses in a branch-free pass
// (no scf.if inside: the vectorizer takes it). From 256 candidates whose x
// extents are all finite, the candidates are also sorted by x min (a second
// heap) and laid out in that order, and a selected box whose x window (two
// binary searches) holds fewer candidates than follow it marks those, in x
// order (flags of their own; a candidate is free when unmarked in both). The
// rows written are copied out at their number. f16 computes in f32. The x-order
// scratch tensors are allocations of their own (alloc_tensor: a tensor.empty
// of a type used above would be merged with it).
// CHECK-LABEL: func.func @nms(
// CHECK: %[[LIMIT:.*]] = tensor.extract %{{.*}} : tensor<1xi64>
// CHECK: arith.index_cast %[[LIMIT]]
// CHECK: arith.maxsi
// CHECK: arith.minsi
// CHECK: arith.extf {{.*}} : f16 to f32
// CHECK: tensor.empty(%{{.*}}) : tensor<?x3xi64>
// CHECK: tensor.empty(%{{.*}}) : tensor<?xf32>
// CHECK: tensor.empty(%{{.*}}) : tensor<?xindex>
// CHECK: tensor.empty(%{{.*}}) : tensor<5x?xf32>
// CHECK: tensor.empty(%{{.*}}) : tensor<?xi8>
// CHECK: bufferization.alloc_tensor(%{{.*}}) : tensor<?xf32>
// CHECK: bufferization.alloc_tensor(%{{.*}}) : tensor<?xindex>
// CHECK: bufferization.alloc_tensor(%{{.*}}) : tensor<5x?xf32>
// CHECK: bufferization.alloc_tensor(%{{.*}}) : tensor<?xi8>
// CHECK: bufferization.alloc_tensor(%{{.*}}) : tensor<?xindex>
// CHECK: scf.while
// CHECK: scf.for
// CHECK: %[[CANDIDATES:.*]]:3 = scf.for
// CHECK: arith.cmpf ogt
// CHECK: scf.for {{.*}} to %[[CANDIDATES]]#2
// CHECK: %[[LAID:.*]]:4 = scf.for {{.*}} to %[[CANDIDATES]]#2 {{.*}} -> (tensor<5x?xf32>, tensor<?xi8>, tensor<?xi8>, tensor<?xindex>)
// CHECK: %[[WIDEST:.*]]:2 = scf.for {{.*}} to %[[CANDIDATES]]#2 {{.*}} -> (f32, i1)
// CHECK: math.absf
// CHECK: arith.cmpf uge
// CHECK: %[[MANY:.*]] = arith.cmpi uge, %[[CANDIDATES]]#2, %c256
// CHECK: %[[FINITE:.*]] = arith.xori %[[WIDEST]]#1, %true
// CHECK: %[[WINDOWED:.*]] = arith.andi %[[MANY]], %[[FINITE]]
// CHECK: scf.if %[[WINDOWED]] -> (tensor<?xf32>, tensor<5x?xf32>, tensor<?xindex>, tensor<?xindex>)
// CHECK: scf.for {{.*}} to %[[CANDIDATES]]#2 {{.*}} -> (tensor<5x?xf32>, tensor<?xindex>)
// CHECK: scf.for {{.*}} to %[[CANDIDATES]]#2 {{.*}} iter_args({{.*}}, %{{.*}} = %[[LAID]]#1, %{{.*}} = %[[LAID]]#2) -> (tensor<?x3xi64>, index, tensor<?xi8>, tensor<?xi8>)
// CHECK: arith.ori {{.*}} : i8
// CHECK: scf.if
// CHECK: scf.if %[[WINDOWED]] -> (i1, index, index)
// CHECK: scf.while
// CHECK: scf.while
// CHECK: scf.if {{.*}} -> (tensor<?xi8>, tensor<?xi8>)
// CHECK: scf.for {{.*}} -> (tensor<?xi8>) {
// CHECK-NOT: scf.if
// CHECK: arith.divf
// CHECK: arith.cmpf ogt
// CHECK: scf.yield {{.*}} : tensor<?xi8>
// CHECK: } else {
// CHECK: scf.for {{.*}} -> (tensor<?xi8>) {
// CHECK-NOT: scf.if
// CHECK: arith.divf
// CHECK: arith.cmpf ogt
// CHECK: scf.yield {{.*}} : tensor<?xi8>
// CHECK: %[[PART:.*]] = tensor.extract_slice {{.*}} : tensor<?x3xi64> to tensor<?x3xi64>
// CHECK: linalg.copy ins(%[[PART]] : tensor<?x3xi64>)
func.func @nms(%b: tensor<1x?x4xf16>, %s: tensor<1x2x?xf16>, %m: tensor<1xi64>,
               %iou: tensor<1xf16>, %t: tensor<f16>) -> tensor<?x3xi64> {
  %r = tide.non_max_suppression %b, %s, %m, %iou, %t center_point_box
      : tensor<1x?x4xf16>, tensor<1x2x?xf16>, tensor<1xi64>, tensor<1xf16>,
        tensor<f16> to tensor<?x3xi64>
  return %r : tensor<?x3xi64>
}
