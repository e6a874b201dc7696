// Tests of tide-tile-and-fuse-rows: a host op whose producers include a
// reduction over its rows is tiled by rows (an scf.forall) and the reduction
// and its producers are computed in the tile; producers whose tiles would be
// computed more than once (a reduction over the rows, a value used outside
// the group) stay whole, contractions stay whole, GPU ops and small roots are
// left alone.

// RUN: tide-opt %s --pass-pipeline='builtin.module(func.func(tide-tile-and-fuse-rows{tile-bytes=4096}))' --split-input-file | FileCheck %s
// RUN: tide-opt %s --pass-pipeline='builtin.module(func.func(tide-tile-and-fuse-rows))' --split-input-file | FileCheck %s --check-prefix=DEFAULT
// RUN: tide-opt %s --pass-pipeline='builtin.module(func.func(tide-tile-and-fuse-rows{tile-bytes=12000}))' --split-input-file | FileCheck %s --check-prefix=DIVIDES
// RUN: tide-opt %s --pass-pipeline='builtin.module(func.func(tide-tile-and-fuse-rows{min-bytes=0 tile-bytes=800}))' --split-input-file | FileCheck %s --check-prefix=OPTS
// RUN: not tide-opt %s --pass-pipeline='builtin.module(func.func(tide-tile-and-fuse-rows{tile-bytes=0}))' --split-input-file 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: error: tide-tile-and-fuse-rows: invalid 'tile-bytes' 0 or 'min-bytes' 262144; expected a positive tile and a non-negative minimum

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0, 0)>

// A softmax over rows, as convert-tide-to-linalg writes it (reductions that
// keep their reduced dimension): the max, the exponentials, the sum and the
// division all run on tiles of one row (4000 bytes: tile-bytes is 4 KiB); the
// unit dimension is dropped, and nothing is left outside the loop. With the
// default 8 KiB, tiles of two rows; with 12000 bytes, three rows would leave
// a partial tile (4096 = 3 * 1365 + 1): two, which divide the rows.
// DEFAULT-LABEL: func.func @softmax(
// DEFAULT: scf.forall (%[[I:.*]]) = (0) to (4096) step (2)
// DEFAULT: tensor.extract_slice %{{.*}}[%[[I]], 0] [2, 1000] [1, 1]
// DIVIDES-LABEL: func.func @softmax(
// DIVIDES: scf.forall (%[[I:.*]]) = (0) to (4096) step (2)
// DIVIDES: tensor.extract_slice %{{.*}}[%[[I]], 0] [2, 1000] [1, 1]
// CHECK-LABEL: func.func @softmax(
// CHECK-NOT: linalg.generic
// CHECK: scf.forall (%[[I:.*]]) in (4096) shared_outs(%[[OUT:.*]] = %{{.*}}) -> (tensor<4096x1000xf32>)
// CHECK: %[[X:.*]] = tensor.extract_slice %{{.*}}[%[[I]], 0] [1, 1000] [1, 1]
// CHECK: %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1xf32>)
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<1x1000xf32>) outs(%[[INIT]] : tensor<1xf32>)
// CHECK: arith.maximumf
// The exponentials are computed in the sum's loop nest, which writes them
// out too (one pass over the tile instead of two), into the result's tile;
// the division updates them there in place (no scratch tile).
// CHECK: %[[DEST:.*]] = tensor.extract_slice %[[OUT]][%[[I]], 0] [1, 1000] [1, 1]
// CHECK: %[[ES:.*]]:2 = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[X]], %[[MAX]] : tensor<1x1000xf32>, tensor<1xf32>) outs(%[[DEST]], %{{.*}} : tensor<1x1000xf32>, tensor<1xf32>)
// CHECK: %[[V:.*]] = math.exp
// CHECK: %[[S:.*]] = arith.addf %[[V]], %{{.*}} fastmath<reassoc>
// CHECK: linalg.yield %[[V]], %[[S]] : f32, f32
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} ins(%[[ES]]#1 : tensor<1xf32>) outs(%[[ES]]#0 : tensor<1x1000xf32>)
// CHECK-NEXT: ^bb0(%[[SUM:.*]]: f32, %[[E:.*]]: f32):
// CHECK-NEXT: arith.divf %[[E]], %[[SUM]]
// CHECK: tensor.parallel_insert_slice %[[Y]] into %[[OUT]][%[[I]], 0] [1, 1000] [1, 1]
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @softmax(%x: tensor<4096x1000xf32>) -> tensor<4096x1000xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty() : tensor<4096x1xf32>
  %f0 = linalg.fill ins(%ninf : f32) outs(%e0 : tensor<4096x1xf32>) -> tensor<4096x1xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4096x1000xf32>) outs(%f0 : tensor<4096x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %out : f32
    linalg.yield %m : f32
  } -> tensor<4096x1xf32>
  %e1 = tensor.empty() : tensor<4096x1000xf32>
  %exp = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : tensor<4096x1000xf32>, tensor<4096x1xf32>) outs(%e1 : tensor<4096x1000xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %v = math.exp %d : f32
    linalg.yield %v : f32
  } -> tensor<4096x1000xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<4096x1xf32>) -> tensor<4096x1xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%exp : tensor<4096x1000xf32>) outs(%f1 : tensor<4096x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out fastmath<reassoc> : f32
    linalg.yield %s : f32
  } -> tensor<4096x1xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%exp, %sum : tensor<4096x1000xf32>, tensor<4096x1xf32>) outs(%e1 : tensor<4096x1000xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %q = arith.divf %in, %s : f32
    linalg.yield %q : f32
  } -> tensor<4096x1000xf32>
  return %y : tensor<4096x1000xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (0, d1)>

// Column sums read by every row: tiling the rows would compute the sums once
// per tile, so nothing is tiled.
// CHECK-LABEL: func.func @by_column_sums(
// CHECK-NOT: scf.forall
// CHECK: return
func.func @by_column_sums(%x: tensor<1000x4096xf32>) -> tensor<1000x4096xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<1x4096xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<1x4096xf32>) -> tensor<1x4096xf32>
  %sum = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<1000x4096xf32>) outs(%f0 : tensor<1x4096xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<1x4096xf32>
  %e1 = tensor.empty() : tensor<1000x4096xf32>
  %y = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : tensor<1000x4096xf32>, tensor<1x4096xf32>) outs(%e1 : tensor<1000x4096xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %q = arith.divf %in, %s : f32
    linalg.yield %q : f32
  } -> tensor<1000x4096xf32>
  return %y : tensor<1000x4096xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// The exponentials are also a result of the function: they are computed
// whole, once, before the loop; the sum and the division run by tiles.
// CHECK-LABEL: func.func @used_outside(
// CHECK: %[[EXP:.*]] = linalg.generic
// CHECK: math.exp
// CHECK: scf.forall
// CHECK: tensor.extract_slice %[[EXP]]
// CHECK: arith.addf
// CHECK: arith.divf
// CHECK: scf.forall.in_parallel
func.func @used_outside(%x: tensor<4096x1000xf32>) -> (tensor<4096x1000xf32>, tensor<4096x1000xf32>) {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<4096x1000xf32>
  %exp = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4096x1000xf32>) outs(%e1 : tensor<4096x1000xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<4096x1000xf32>
  %e0 = tensor.empty() : tensor<4096xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<4096xf32>) -> tensor<4096xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%exp : tensor<4096x1000xf32>) outs(%f1 : tensor<4096xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<4096xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%exp, %sum : tensor<4096x1000xf32>, tensor<4096xf32>) outs(%e1 : tensor<4096x1000xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %q = arith.divf %in, %s : f32
    linalg.yield %q : f32
  } -> tensor<4096x1000xf32>
  return %exp, %y : tensor<4096x1000xf32>, tensor<4096x1000xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// A matmul feeding a row normalization stays whole (for the BLAS); small
// roots are left alone unless min-bytes says otherwise, and tile-bytes sets
// the rows per tile (800 bytes: 2 rows of 100 f32).
// CHECK-LABEL: func.func @matmul_then_rows(
// CHECK-NOT: scf.forall
// CHECK: return
// OPTS-LABEL: func.func @matmul_then_rows(
// OPTS: %[[MM:.*]] = linalg.matmul
// OPTS: scf.forall (%[[I:.*]]) = (0) to (64) step (2)
// OPTS: tensor.extract_slice %[[MM]][%[[I]], 0] [2, 100]
// OPTS-NOT: linalg.matmul
// OPTS: scf.forall.in_parallel
func.func @matmul_then_rows(%a: tensor<64x32xf32>, %b: tensor<32x100xf32>) -> tensor<64x100xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<64x100xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64x100xf32>) -> tensor<64x100xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x100xf32>) outs(%f : tensor<64x100xf32>) -> tensor<64x100xf32>
  %e0 = tensor.empty() : tensor<64xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<64xf32>) -> tensor<64xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%mm : tensor<64x100xf32>) outs(%f1 : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %sum : tensor<64x100xf32>, tensor<64xf32>) outs(%e1 : tensor<64x100xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %q = arith.divf %in, %s : f32
    linalg.yield %q : f32
  } -> tensor<64x100xf32>
  return %y : tensor<64x100xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// Ops placed on a GPU are not touched (the GPU pipeline maps them whole).
// CHECK-LABEL: func.func @on_gpu(
// CHECK-NOT: scf.forall
// CHECK: return
func.func @on_gpu(%x: tensor<4096x1000xf32>) -> tensor<4096x1000xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<4096xf32>
  %f1 = linalg.fill {tide.device = #tide.device<cuda:0>} ins(%zero : f32) outs(%e0 : tensor<4096xf32>) -> tensor<4096xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4096x1000xf32>) outs(%f1 : tensor<4096xf32>) attrs = {tide.device = #tide.device<cuda:0>} {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<4096xf32>
  %e1 = tensor.empty() : tensor<4096x1000xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : tensor<4096x1000xf32>, tensor<4096xf32>) outs(%e1 : tensor<4096x1000xf32>) attrs = {tide.device = #tide.device<cuda:0>} {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %q = arith.divf %in, %s : f32
    linalg.yield %q : f32
  } -> tensor<4096x1000xf32>
  return %y : tensor<4096x1000xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// A static (empty) result whose loops are dynamic (its operands are): not
// tiled, even with no minimum size (random program p7510_20 built a forall
// with an invalid step here).
// OPTS-LABEL: func.func @dynamic_loops(
// OPTS-NOT: scf.forall
// OPTS: return
func.func @dynamic_loops(%x: tensor<?x5xf32>, %d: index) -> tensor<0x5xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty(%d) : tensor<?xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x5xf32>) outs(%f1 : tensor<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  %e1 = tensor.empty() : tensor<0x5xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : tensor<?x5xf32>, tensor<?xf32>) outs(%e1 : tensor<0x5xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %q = arith.divf %in, %s : f32
    linalg.yield %q : f32
  } -> tensor<0x5xf32>
  return %y : tensor<0x5xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// Too small to tile (16 KiB), but the exponentials still join the sum's loop
// nest as its second result; the division reads the sum and updates the
// exponentials in place.
// CHECK-LABEL: func.func @small_softmax(
// CHECK-NOT: scf.forall
// CHECK: %[[ES:.*]]:2 = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<64x64xf32>) outs(%{{.*}}, %{{.*}} : tensor<64x64xf32>, tensor<64xf32>)
// CHECK: math.exp
// CHECK: arith.addf
// CHECK: linalg.generic {{.*}} ins(%[[ES]]#1 : tensor<64xf32>) outs(%[[ES]]#0 : tensor<64x64xf32>)
// CHECK: arith.divf
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @small_softmax(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<64x64xf32>
  %exp = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x64xf32>) outs(%e1 : tensor<64x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<64x64xf32>
  %e0 = tensor.empty() : tensor<64xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<64xf32>) -> tensor<64xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%exp : tensor<64x64xf32>) outs(%f1 : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out fastmath<reassoc> : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%exp, %sum : tensor<64x64xf32>, tensor<64xf32>) outs(%e1 : tensor<64x64xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %q = arith.divf %in, %s : f32
    linalg.yield %q : f32
  } -> tensor<64x64xf32>
  return %y : tensor<64x64xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// An op that reads the exponentials before the sum would need them before
// the fused op defines them: nothing is fused.
// CHECK-LABEL: func.func @read_before_the_sum(
// CHECK: %[[EXP:.*]] = linalg.generic
// CHECK: math.exp
// CHECK: linalg.generic {{.*}} ins(%[[EXP]] : tensor<64x64xf32>)
// CHECK: arith.negf
// CHECK: linalg.generic {{.*}} ins(%[[EXP]] : tensor<64x64xf32>) outs(%{{.*}} : tensor<64xf32>)
// CHECK: arith.addf
func.func @read_before_the_sum(%x: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<64x64xf32>
  %exp = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x64xf32>) outs(%e1 : tensor<64x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<64x64xf32>
  %neg = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%exp : tensor<64x64xf32>) outs(%e1 : tensor<64x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<64x64xf32>
  %e0 = tensor.empty() : tensor<64xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<64xf32>) -> tensor<64xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%exp : tensor<64x64xf32>) outs(%f1 : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out fastmath<reassoc> : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %neg, %sum : tensor<64x64xf32>, tensor<64xf32>
}
