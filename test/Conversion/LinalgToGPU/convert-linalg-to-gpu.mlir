// RUN: tide-opt %s --convert-linalg-to-gpu --split-input-file -verify-diagnostics \
// RUN:   | FileCheck %s
// RUN: tide-opt %s --convert-linalg-to-gpu="constants-in-place=false" --split-input-file \
// RUN:   -verify-diagnostics | FileCheck %s --check-prefix=COPIES

// Elementwise with broadcasting, rows not a multiple of 4: one thread per
// point, indices from the linear thread id, the broadcast operand read
// through its indexing map.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @broadcast(
// CHECK-SAME: %[[X:.*]]: memref<4x6xf32, #tide.device<cuda:0>>, %[[B:.*]]: memref<6xf32, #tide.device<cuda:0>>, %[[Y:.*]]: memref<4x6xf32, #tide.device<cuda:0>>)
// CHECK: gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c256{{.*}}) module(@tide_kernels) function(@broadcast_addf_0)
// CHECK: %[[GID:.*]] = arith.addi
// CHECK: scf.if
// CHECK: %[[J:.*]] = arith.remui %[[GID]], %c6
// CHECK: %[[I:.*]] = arith.divui %[[GID]], %c6
// CHECK: %[[A:.*]] = memref.load %[[X]][%[[I]], %[[J]]]
// CHECK: %[[C:.*]] = memref.load %[[B]][%[[J]]]
// CHECK: %[[S:.*]] = arith.addf %[[A]], %[[C]]
// CHECK: memref.store %[[S]], %[[Y]][%[[I]], %[[J]]]
// CHECK-NOT: linalg.generic
func.func @broadcast(%x: memref<4x6xf32, #tide.device<cuda:0>>, %b: memref<6xf32, #tide.device<cuda:0>>, %y: memref<4x6xf32, #tide.device<cuda:0>>) {
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : memref<4x6xf32, #tide.device<cuda:0>>, memref<6xf32, #tide.device<cuda:0>>) outs(%y : memref<4x6xf32, #tide.device<cuda:0>>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %0 = arith.addf %a, %c : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// Rows a multiple of 4: vectors for the contiguous operands and for the bias
// (read along the innermost dim), one scalar for the per-row operand.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#col = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @broadcast_vector(
// CHECK-SAME: %[[X:.*]]: memref<4x8xf32, #tide.device<cuda:0>>, %[[B:.*]]: memref<8xf32, #tide.device<cuda:0>>, %[[R:.*]]: memref<4xf32, #tide.device<cuda:0>>, %[[Y:.*]]: memref<4x8xf32, #tide.device<cuda:0>>)
// CHECK: %[[XF:.*]] = memref.collapse_shape %[[X]]
// CHECK: gpu.launch
// CHECK: vector.load %[[XF]][%{{.*}}] {alignment = 16 : i64} : memref<32xf32, #tide.device<cuda:0>>, vector<4xf32>
// CHECK: vector.load %[[B]][%{{.*}}] {alignment = 16 : i64} : memref<8xf32, #tide.device<cuda:0>>, vector<4xf32>
// CHECK: memref.load %[[R]][%{{.*}}] : memref<4xf32, #tide.device<cuda:0>>
// CHECK: vector.store
func.func @broadcast_vector(%x: memref<4x8xf32, #tide.device<cuda:0>>, %b: memref<8xf32, #tide.device<cuda:0>>, %r: memref<4xf32, #tide.device<cuda:0>>, %y: memref<4x8xf32, #tide.device<cuda:0>>) {
  linalg.generic {indexing_maps = [#id, #row, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b, %r : memref<4x8xf32, #tide.device<cuda:0>>, memref<8xf32, #tide.device<cuda:0>>, memref<4xf32, #tide.device<cuda:0>>) outs(%y : memref<4x8xf32, #tide.device<cuda:0>>) {
  ^bb0(%a: f32, %c: f32, %d: f32, %o: f32):
    %0 = arith.addf %a, %c : f32
    %1 = arith.mulf %0, %d : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

// A transposed input whose last index is the innermost dim (an attention
// head split, [b, s, h, d] -> [b, h, s, d]) is read as vectors too, at its
// own indices; a broadcast mask with size-1 dims at 0 likewise. One that
// moves the innermost dim (d <-> s) is a kernel of one thread per element.
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#heads = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>
#mask = affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>
#keys = affine_map<(d0, d1, d2, d3) -> (d0, d3, d1, d2)>
// CHECK-LABEL: func.func @transposed_vectors(
// CHECK-SAME: %[[X:[^:]*]]: memref<2x16x4x64xbf16, {{.*}}>, %[[M:[^:]*]]: memref<2x1x1x64xbf16, {{.*}}>
// CHECK: gpu.launch
// CHECK: vector.load %[[X]][%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<2x16x4x64xbf16, #tide.device<cuda:0>>, vector<8xbf16>
// CHECK: vector.load %[[M]][%{{.*}}, %c0{{.*}}, %c0{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<2x1x1x64xbf16, #tide.device<cuda:0>>, vector<8xbf16>
// CHECK: vector.store
// CHECK: gpu.launch
// CHECK-NOT: vector.load
// CHECK: memref.load %[[X]]
// CHECK: return
func.func @transposed_vectors(%x: memref<2x16x4x64xbf16, #tide.device<cuda:0>>, %m: memref<2x1x1x64xbf16, #tide.device<cuda:0>>,
                              %y: memref<2x4x16x64xbf16, #tide.device<cuda:0>>, %z: memref<2x4x64x16xbf16, #tide.device<cuda:0>>) {
  linalg.generic {indexing_maps = [#heads, #mask, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %m : memref<2x16x4x64xbf16, #tide.device<cuda:0>>, memref<2x1x1x64xbf16, #tide.device<cuda:0>>)
      outs(%y : memref<2x4x16x64xbf16, #tide.device<cuda:0>>) {
  ^bb0(%a: bf16, %c: bf16, %o: bf16):
    %0 = arith.addf %a, %c : bf16
    linalg.yield %0 : bf16
  }
  linalg.generic {indexing_maps = [#keys, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : memref<2x16x4x64xbf16, #tide.device<cuda:0>>) outs(%z : memref<2x4x64x16xbf16, #tide.device<cuda:0>>) {
  ^bb0(%a: bf16, %o: bf16):
    linalg.yield %a : bf16
  }
  return
}

// -----

// Contiguous buffers without broadcasting: one thread per 16-byte vector
// (4 lanes of f32).
#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @contiguous(
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c1{{.*}}, {{.*}}) {{.*}} function(@contiguous_exp_0)
// CHECK: %[[V:.*]] = vector.load %{{.*}}[%{{.*}}] {alignment = 16 : i64} : memref<1024xf32, #tide.device<cuda:0>>, vector<4xf32>
// CHECK-COUNT-4: math.exp
// CHECK: %[[R:.*]] = vector.from_elements
// CHECK: vector.store %[[R]], %{{.*}}[%{{.*}}] {alignment = 16 : i64} : memref<1024xf32, #tide.device<cuda:0>>, vector<4xf32>
func.func @contiguous(%x: memref<1024xf32, #tide.device<cuda:0>>, %y: memref<1024xf32, #tide.device<cuda:0>>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<1024xf32, #tide.device<cuda:0>>) outs(%y : memref<1024xf32, #tide.device<cuda:0>>) {
  ^bb0(%a: f32, %o: f32):
    %0 = math.exp %a : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// 16 bytes of the widest operand per thread: 8 lanes of bf16 (a bias of the
// innermost dim read as a vector too); with an f32 result among bf16
// operands, 4 lanes (the bf16 reads 8 bytes).
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row2 = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @contiguous_bf16(
// CHECK: vector.load %{{.*}}[%{{.*}}] {alignment = 16 : i64} : memref<4096xbf16, #tide.device<cuda:0>>, vector<8xbf16>
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<64xbf16, #tide.device<cuda:0>>, vector<8xbf16>
// CHECK-COUNT-8: arith.addf
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<4096xbf16, #tide.device<cuda:0>>, vector<8xbf16>
// CHECK: vector.load %{{.*}} {alignment = 8 : i64} : memref<4096xbf16, #tide.device<cuda:0>>, vector<4xbf16>
// CHECK-COUNT-4: arith.extf
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<4096xf32, #tide.device<cuda:0>>, vector<4xf32>
func.func @contiguous_bf16(%x: memref<64x64xbf16, #tide.device<cuda:0>>, %b: memref<64xbf16, #tide.device<cuda:0>>, %y: memref<64x64xbf16, #tide.device<cuda:0>>, %z: memref<64x64xf32, #tide.device<cuda:0>>) {
  linalg.generic {indexing_maps = [#id2, #row2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : memref<64x64xbf16, #tide.device<cuda:0>>, memref<64xbf16, #tide.device<cuda:0>>) outs(%y : memref<64x64xbf16, #tide.device<cuda:0>>) {
  ^bb0(%a: bf16, %c: bf16, %o: bf16):
    %0 = arith.addf %a, %c : bf16
    linalg.yield %0 : bf16
  }
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<64x64xbf16, #tide.device<cuda:0>>) outs(%z : memref<64x64xf32, #tide.device<cuda:0>>) {
  ^bb0(%a: bf16, %o: f32):
    %0 = arith.extf %a : bf16 to f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// A whole-tensor sum over many elements: split over blocks, per-block
// partials in a device buffer, then one block per output combines them.
// f16 accumulates in f32.
#in = affine_map<(d0) -> (d0)>
#out = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @sum(
// CHECK: %[[P:.*]] = gpu.alloc (%{{.*}}) : memref<?xf32, #tide.device<cuda:0>>
// CHECK: gpu.launch {{.*}} function(@sum_addf_0)
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32)
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: gpu.all_reduce add %{{.*}} uniform
// CHECK: memref.store %{{.*}}, %[[P]][
// CHECK: gpu.launch {{.*}} function(@sum_addf_0_partials)
// CHECK: gpu.all_reduce add
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: gpu.dealloc %[[P]]
func.func @sum(%x: memref<1000000xf16, #tide.device<cuda:0>>, %y: memref<f16, #tide.device<cuda:0>>) {
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["reduction"]}
      ins(%x : memref<1000000xf16, #tide.device<cuda:0>>) outs(%y : memref<f16, #tide.device<cuda:0>>) {
  ^bb0(%a: f16, %acc: f16):
    %0 = arith.addf %a, %acc : f16
    linalg.yield %0 : f16
  }
  return
}

// -----

// Per-row max: one block per row, i8 accumulating in i32.
#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @row_max(
// CHECK: %[[G:.*]] = arith.maxui %c64{{.*}}, %c1
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %[[G]], {{.*}}) {{.*}} function(@row_max_maxsi_0)
// CHECK: arith.extsi %{{.*}} : i8 to i32
// CHECK: gpu.all_reduce maxsi
// CHECK: arith.trunci %{{.*}} : i32 to i8
// CHECK-NOT: gpu.launch
func.func @row_max(%x: memref<64x100xi8, #tide.device<cuda:0>>, %y: memref<64xi8, #tide.device<cuda:0>>) {
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<64x100xi8, #tide.device<cuda:0>>) outs(%y : memref<64xi8, #tide.device<cuda:0>>) {
  ^bb0(%a: i8, %acc: i8):
    %0 = arith.maxsi %a, %acc : i8
    linalg.yield %0 : i8
  }
  return
}

// -----

#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d0)>
// An arg-reduction as convert-tide-to-linalg writes it (the first element
// taken, then a strictly better one or the first NaN): one block per row,
// each thread's best and its first index, then two block reductions, the
// value (NaN-propagating) and the smallest index that holds it.
// CHECK-LABEL: func.func @argmax(
// CHECK: gpu.launch {{.*}} function(@argmax_index_cast_0)
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (f32, i64)
// CHECK: gpu.all_reduce maximumf
// CHECK: gpu.all_reduce minui
// CHECK-NOT: gpu.launch
func.func @argmax(%x: memref<4x10xf32, #tide.device<cuda:0>>, %v: memref<4xf32, #tide.device<cuda:0>>, %i: memref<4xi64, #tide.device<cuda:0>>) {
  linalg.generic {indexing_maps = [#in, #out, #out], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x10xf32, #tide.device<cuda:0>>) outs(%v, %i : memref<4xf32, #tide.device<cuda:0>>, memref<4xi64, #tide.device<cuda:0>>) {
  ^bb0(%a: f32, %best: f32, %bi: i64):
    %idx = linalg.index 1 : index
    %j = arith.index_cast %idx : index to i64
    %gt = arith.cmpf ogt, %a, %best : f32
    %nan = arith.cmpf uno, %a, %a : f32
    %ord = arith.cmpf ord, %best, %best : f32
    %c = arith.ori %gt, %nan : i1
    %better = arith.andi %ord, %c : i1
    %c0 = arith.constant 0 : i64
    %first = arith.cmpi eq, %j, %c0 : i64
    %take = arith.ori %better, %first : i1
    %v2 = arith.select %take, %a, %best : f32
    %i2 = arith.select %take, %j, %bi : i64
    linalg.yield %v2, %i2 : f32, i64
  }
  return
}

// -----

#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d0)>
// An argmax over a gather fused into it: the value is loaded in an scf.if
// whose region reads the clamped index computed before it in the body. The
// kernel clones what the region reads too (it crashed the verifier: the
// region's operands were left pointing into the erased body).
// CHECK-LABEL: func.func @argmax_gathered(
// CHECK: gpu.launch
// CHECK: %[[IDX:.*]] = arith.minsi
// CHECK: scf.if
// CHECK: memref.load %{{.*}}[%[[IDX]]]
// CHECK: gpu.all_reduce maxsi
func.func @argmax_gathered(%ix: memref<4x10xi32, #tide.device<cuda:0>>, %t: memref<?xi32, #tide.device<cuda:0>>, %n: index, %v: memref<4xi32, #tide.device<cuda:0>>, %i: memref<4xi64, #tide.device<cuda:0>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0 : i32
  linalg.generic {indexing_maps = [#in, #out, #out], iterator_types = ["parallel", "reduction"]}
      ins(%ix : memref<4x10xi32, #tide.device<cuda:0>>) outs(%v, %i : memref<4xi32, #tide.device<cuda:0>>, memref<4xi64, #tide.device<cuda:0>>) {
  ^bb0(%a: i32, %best: i32, %bi: i64):
    %k = arith.index_cast %a : i32 to index
    %last = arith.subi %n, %c1 : index
    %lo = arith.maxsi %k, %c0 : index
    %cl = arith.minsi %lo, %last : index
    %some = arith.cmpi sgt, %n, %c0 : index
    %x = scf.if %some -> (i32) {
      %l = memref.load %t[%cl] : memref<?xi32, #tide.device<cuda:0>>
      scf.yield %l : i32
    } else {
      scf.yield %z : i32
    }
    %idx = linalg.index 1 : index
    %j = arith.index_cast %idx : index to i64
    %gt = arith.cmpi sgt, %x, %best : i32
    %c0i = arith.constant 0 : i64
    %first = arith.cmpi eq, %j, %c0i : i64
    %take = arith.ori %gt, %first : i1
    %v2 = arith.select %take, %x, %best : i32
    %i2 = arith.select %take, %j, %bi : i64
    linalg.yield %v2, %i2 : i32, i64
  }
  return
}

// -----

#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d0)>
// Few long rows: the row is split over many blocks; a second kernel combines
// their (value, index) partials.
// CHECK-LABEL: func.func @argmin_split(
// CHECK: %[[VALS:.*]] = gpu.alloc ({{.*}}) : memref<?xi32, #tide.device<cuda:0>>
// CHECK: %[[IDXS:.*]] = gpu.alloc ({{.*}}) : memref<?xi64, #tide.device<cuda:0>>
// CHECK: gpu.launch {{.*}} function(@argmin_split_index_cast_0)
// CHECK: gpu.all_reduce min
// CHECK: gpu.launch {{.*}} function(@argmin_split_index_cast_0_partials)
// CHECK: gpu.dealloc %[[VALS]]
// CHECK: gpu.dealloc %[[IDXS]]
func.func @argmin_split(%x: memref<2x100000xi32, #tide.device<cuda:0>>, %v: memref<2xi32, #tide.device<cuda:0>>, %i: memref<2xi64, #tide.device<cuda:0>>) {
  linalg.generic {indexing_maps = [#in, #out, #out], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<2x100000xi32, #tide.device<cuda:0>>) outs(%v, %i : memref<2xi32, #tide.device<cuda:0>>, memref<2xi64, #tide.device<cuda:0>>) {
  ^bb0(%a: i32, %best: i32, %bi: i64):
    %idx = linalg.index 1 : index
    %j = arith.index_cast %idx : index to i64
    %lt = arith.cmpi slt, %a, %best : i32
    %c0 = arith.constant 0 : i64
    %first = arith.cmpi eq, %j, %c0 : i64
    %take = arith.ori %lt, %first : i1
    %v2 = arith.select %take, %a, %best : i32
    %i2 = arith.select %take, %j, %bi : i64
    linalg.yield %v2, %i2 : i32, i64
  }
  return
}

// -----

#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d0)>
// Another payload with two accumulators (here no first-element rule): one
// thread per output, looping over the row.
// CHECK-LABEL: func.func @two_accumulators(
// CHECK: gpu.launch {{.*}} function(@two_accumulators_index_cast_0)
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (f32, i64)
// CHECK-NOT: gpu.all_reduce
func.func @two_accumulators(%x: memref<4x10xf32, #tide.device<cuda:0>>, %v: memref<4xf32, #tide.device<cuda:0>>, %i: memref<4xi64, #tide.device<cuda:0>>) {
  linalg.generic {indexing_maps = [#in, #out, #out], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x10xf32, #tide.device<cuda:0>>) outs(%v, %i : memref<4xf32, #tide.device<cuda:0>>, memref<4xi64, #tide.device<cuda:0>>) {
  ^bb0(%a: f32, %best: f32, %bi: i64):
    %idx = linalg.index 1 : index
    %j = arith.index_cast %idx : index to i64
    %gt = arith.cmpf ogt, %a, %best : f32
    %v2 = arith.select %gt, %a, %best : f32
    %i2 = arith.select %gt, %j, %bi : i64
    linalg.yield %v2, %i2 : f32, i64
  }
  return
}

// -----

// A batched matmul (as convert-tide-to-linalg writes it) after a zero fill:
// one strided batched cuBLAS call over 3-D views, C overwritten (beta 0).
#a = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#b = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#c = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func private @tide_rt_gpu_gemm_batched_f32(memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>, #tide.device<cuda:0>>, memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>, #tide.device<cuda:0>>, memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>, #tide.device<cuda:0>>, i32) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @batched(
// CHECK-NOT: linalg.fill
// CHECK-NOT: gpu.launch
// CHECK: %[[A:.*]] = memref.reinterpret_cast %{{.*}} to offset: [%{{.*}}], sizes: [%{{.*}}, %{{.*}}, %{{.*}}], strides: [%{{.*}}, %{{.*}}, 1]
// CHECK: %[[B:.*]] = memref.reinterpret_cast
// CHECK: %[[C:.*]] = memref.reinterpret_cast
// CHECK: call @tide_rt_gpu_gemm_batched_f32(%[[A]], %[[B]], %[[C]], %c0_i32)
// CHECK-NOT: gpu.launch
func.func @batched(%x: memref<8x3x4xf32, #tide.device<cuda:0>>, %y: memref<8x4x5xf32, #tide.device<cuda:0>>, %z: memref<8x3x5xf32, #tide.device<cuda:0>>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%z : memref<8x3x5xf32, #tide.device<cuda:0>>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %y : memref<8x3x4xf32, #tide.device<cuda:0>>, memref<8x4x5xf32, #tide.device<cuda:0>>) outs(%z : memref<8x3x5xf32, #tide.device<cuda:0>>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Broadcast batch dims (lhs 2x1, rhs none): a host loop over the outer batch
// dim, one call per index; the broadcast operands' batch stride is 0.
#a = affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, d2, d4)>
#b = affine_map<(d0, d1, d2, d3, d4) -> (d1, d4, d3)>
#c = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @batched_broadcast(
// CHECK: scf.for %[[I:.*]] = %c0 to %{{.*}} step %c1 {
// CHECK: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK: %[[A:.*]] = memref.reinterpret_cast %{{.*}} to offset: [%{{.*}}], sizes: [%{{.*}}, %{{.*}}, %{{.*}}], strides: [%[[ZERO]], %{{.*}}, 1]
// CHECK: call @tide_rt_gpu_gemm_batched_f64(%[[A]], %{{.*}}, %{{.*}}, %c1_i32)
// CHECK: }
func.func @batched_broadcast(%x: memref<2x1x3x4xf64, #tide.device<cuda:0>>, %y: memref<3x4x5xf64, #tide.device<cuda:0>>, %z: memref<2x3x3x5xf64, #tide.device<cuda:0>>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %y : memref<2x1x3x4xf64, #tide.device<cuda:0>>, memref<3x4x5xf64, #tide.device<cuda:0>>) outs(%z : memref<2x3x3x5xf64, #tide.device<cuda:0>>) {
  ^bb0(%p: f64, %q: f64, %acc: f64):
    %m = arith.mulf %p, %q : f64
    %s = arith.addf %acc, %m : f64
    linalg.yield %s : f64
  }
  return
}

// -----

// Two batch dims of contiguous operands (attention's (batch, heads) matmuls):
// one strided batched call over all 2 x 3 matrices, no host loop.
#a4 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
#b4 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>
#c4 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @batched_heads(
// CHECK-NOT: scf.for
// CHECK: %[[SIX:.*]] = arith.constant 6 : index
// CHECK: %[[A:.*]] = memref.reinterpret_cast %{{.*}} to offset: [%{{.*}}], sizes: [%[[SIX]], %{{.*}}, %{{.*}}], strides: [%{{.*}}, %{{.*}}, 1]
// CHECK: call @tide_rt_gpu_gemm_batched_f32(%[[A]], %{{.*}}, %{{.*}}, %c1_i32)
// CHECK-NOT: scf.for
// CHECK: return
func.func @batched_heads(%x: memref<2x3x4x5xf32, #tide.device<cuda:0>>, %y: memref<2x3x5x6xf32, #tide.device<cuda:0>>, %z: memref<2x3x4x6xf32, #tide.device<cuda:0>>) {
  linalg.generic {indexing_maps = [#a4, #b4, #c4], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %y : memref<2x3x4x5xf32, #tide.device<cuda:0>>, memref<2x3x5x6xf32, #tide.device<cuda:0>>) outs(%z : memref<2x3x4x6xf32, #tide.device<cuda:0>>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A linear layer on a (batch, sequence, hidden) tensor: the weight is shared
// by every batch index, so the batch folds into the rows: one GEMM of 2 x 3
// rows (a batch of 1), not a strided batch of 2.
#xl = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#wl = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
#yl = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @linear_rows(
// CHECK-NOT: scf.for
// CHECK: memref.reinterpret_cast %{{.*}} to offset: [%{{.*}}], sizes: [1, 6, %{{.*}}], strides: [%{{.*}}, %{{.*}}, 1]
// CHECK: memref.reinterpret_cast %{{.*}} to offset: [%{{.*}}], sizes: [1, %{{.*}}, %{{.*}}], strides: [%{{.*}}, %{{.*}}, 1]
// CHECK: memref.reinterpret_cast %{{.*}} to offset: [%{{.*}}], sizes: [1, 6, %{{.*}}], strides: [%{{.*}}, %{{.*}}, 1]
// CHECK: call @tide_rt_gpu_gemm_batched_f32(
func.func @linear_rows(%x: memref<2x3x4xf32, #tide.device<cuda:0>>, %w: memref<4x5xf32, #tide.device<cuda:0>>, %y: memref<2x3x5xf32, #tide.device<cuda:0>>) {
  linalg.generic {indexing_maps = [#xl, #wl, #yl], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<2x3x4xf32, #tide.device<cuda:0>>, memref<4x5xf32, #tide.device<cuda:0>>) outs(%y : memref<2x3x5xf32, #tide.device<cuda:0>>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A zero-filled 2-D f32 matmul: one cuBLAS call that overwrites (the fill is
// folded in); allocations and copies become GPU runtime calls.
// CHECK-LABEL: func.func private @tide_rt_gpu_gemm_f32(memref<?x?xf32, strided<[?, ?], offset: ?>, #tide.device<cuda:0>>, memref<?x?xf32, strided<[?, ?], offset: ?>, #tide.device<cuda:0>>, memref<?x?xf32, strided<[?, ?], offset: ?>, #tide.device<cuda:0>>, i32) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @matmul(
// CHECK: %[[A:.*]] = gpu.alloc () : memref<16x32xf32, #tide.device<cuda:0>>
// CHECK: gpu.memcpy %[[A]], %{{.*}} : memref<16x32xf32, #tide.device<cuda:0>>, memref<16x32xf32>
// CHECK-NOT: linalg.fill
// CHECK: call @tide_rt_gpu_gemm_f32(%{{.*}}, %{{.*}}, %{{.*}}, %c0_i32)
// CHECK: gpu.memcpy %{{.*}}, %{{.*}} : memref<16x8xf32>, memref<16x8xf32, #tide.device<cuda:0>>
// CHECK: gpu.dealloc %[[A]]
func.func @matmul(%a: memref<16x32xf32>, %b: memref<32x8xf32, #tide.device<cuda:0>>, %c: memref<16x8xf32>) {
  %da = memref.alloc() : memref<16x32xf32, #tide.device<cuda:0>>
  memref.copy %a, %da : memref<16x32xf32> to memref<16x32xf32, #tide.device<cuda:0>>
  %dc = memref.alloc() : memref<16x8xf32, #tide.device<cuda:0>>
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%dc : memref<16x8xf32, #tide.device<cuda:0>>)
  linalg.matmul ins(%da, %b : memref<16x32xf32, #tide.device<cuda:0>>, memref<32x8xf32, #tide.device<cuda:0>>) outs(%dc : memref<16x8xf32, #tide.device<cuda:0>>)
  memref.copy %dc, %c : memref<16x8xf32, #tide.device<cuda:0>> to memref<16x8xf32>
  memref.dealloc %da : memref<16x32xf32, #tide.device<cuda:0>>
  memref.dealloc %dc : memref<16x8xf32, #tide.device<cuda:0>>
  return
}

// -----

// A right-hand operand seen through a transposed (column-major) view: still
// one cuBLAS call, which reads it transposed; any other strides are not a
// GEMM cuBLAS reads in place (a kernel).
// CHECK-LABEL: func.func @matmul_transposed_b(
// CHECK: %[[T:.*]] = memref.transpose %{{.*}} (d0, d1) -> (d1, d0)
// CHECK: %[[B:.*]] = memref.cast %[[T]] : memref<32x8xf32, strided<[1, 32]>, #tide.device<cuda:0>> to memref<?x?xf32, strided<[?, ?], offset: ?>, #tide.device<cuda:0>>
// CHECK: call @tide_rt_gpu_gemm_f32(%{{.*}}, %[[B]], %{{.*}}, %c1_i32)
// CHECK-LABEL: func.func @matmul_strided_b(
// CHECK-NOT: call @tide_rt_gpu_gemm
// CHECK: gpu.launch
func.func @matmul_transposed_b(%a: memref<16x32xf32, #tide.device<cuda:0>>, %w: memref<8x32xf32, #tide.device<cuda:0>>, %c: memref<16x8xf32, #tide.device<cuda:0>>) {
  %t = memref.transpose %w (d0, d1) -> (d1, d0) : memref<8x32xf32, #tide.device<cuda:0>> to memref<32x8xf32, strided<[1, 32]>, #tide.device<cuda:0>>
  linalg.matmul ins(%a, %t : memref<16x32xf32, #tide.device<cuda:0>>, memref<32x8xf32, strided<[1, 32]>, #tide.device<cuda:0>>) outs(%c : memref<16x8xf32, #tide.device<cuda:0>>)
  return
}
func.func @matmul_strided_b(%a: memref<16x32xf32, #tide.device<cuda:0>>, %w: memref<64x16xf32, #tide.device<cuda:0>>, %c: memref<16x8xf32, #tide.device<cuda:0>>) {
  %v = memref.subview %w[0, 0] [32, 8] [2, 2] : memref<64x16xf32, #tide.device<cuda:0>> to memref<32x8xf32, strided<[32, 2]>, #tide.device<cuda:0>>
  linalg.matmul ins(%a, %v : memref<16x32xf32, #tide.device<cuda:0>>, memref<32x8xf32, strided<[32, 2]>, #tide.device<cuda:0>>) outs(%c : memref<16x8xf32, #tide.device<cuda:0>>)
  return
}

// -----

// A strided view of GPU memory copied to the host goes through a
// contiguous device buffer that a kernel fills.
// CHECK-LABEL: func.func @strided_to_host(
// CHECK: %[[T:.*]] = gpu.alloc () : memref<2x2xf32, #tide.device<cuda:0>>
// CHECK: gpu.launch {{.*}} function(@strided_to_host_copy_0)
// CHECK: gpu.memcpy %{{.*}}, %[[T]]
// CHECK: gpu.dealloc %[[T]]
func.func @strided_to_host(%x: memref<4x4xf32, #tide.device<cuda:0>>, %y: memref<2x2xf32>) {
  %v = memref.subview %x[0, 0] [2, 2] [2, 2] : memref<4x4xf32, #tide.device<cuda:0>> to memref<2x2xf32, strided<[8, 2]>, #tide.device<cuda:0>>
  memref.copy %v, %y : memref<2x2xf32, strided<[8, 2]>, #tide.device<cuda:0>> to memref<2x2xf32>
  return
}

// -----

// A GPU-resident argument is device memory though its type has no space.
// CHECK-LABEL: func.func @resident(
// CHECK: gpu.launch
// CHECK-NOT: linalg.generic
#id = affine_map<(d0) -> (d0)>
func.func @resident(%x: memref<6xf32> {tide.resident = #tide.device<cuda:0>}, %y: memref<6xf32, #tide.device<cuda:0>>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<6xf32>) outs(%y : memref<6xf32, #tide.device<cuda:0>>) {
  ^bb0(%a: f32, %o: f32):
    %0 = arith.negf %a : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// Errors: host code reading GPU memory, and an op mixing host and GPU
// buffers.
#id = affine_map<(d0) -> (d0)>
func.func @host_reads_device(%x: memref<6xf32, #tide.device<cuda:0>>) -> f32 {
  %c0 = arith.constant 0 : index
  // expected-error @below {{reads or writes GPU memory on the host}}
  %v = memref.load %x[%c0] : memref<6xf32, #tide.device<cuda:0>>
  return %v : f32
}

// -----

#id = affine_map<(d0) -> (d0)>
func.func @mixed(%x: memref<6xf32>, %y: memref<6xf32, #tide.device<cuda:0>>) {
  // expected-error @below {{mixes host and GPU memory; every operand of a GPU op must be in GPU memory}}
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<6xf32>) outs(%y : memref<6xf32, #tide.device<cuda:0>>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  return
}

// -----

// Small windows over many outputs (a 3x3 max pool): one thread per output,
// each folding its 9 elements, no block-wide reduction.
// CHECK-LABEL: func.func @small_window_max(
// CHECK: gpu.launch
// CHECK: scf.for
// CHECK: arith.maximumf
// CHECK-NOT: gpu.all_reduce
// CHECK: return
func.func @small_window_max(%x: memref<66x66xf16, #tide.device<cuda:0>>, %w: memref<3x3xf16, #tide.device<cuda:0>>, %y: memref<64x64xf16, #tide.device<cuda:0>>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0 + d2, d1 + d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %w : memref<66x66xf16, #tide.device<cuda:0>>, memref<3x3xf16, #tide.device<cuda:0>>) outs(%y : memref<64x64xf16, #tide.device<cuda:0>>) {
  ^bb0(%a: f16, %b: f16, %acc: f16):
    %0 = arith.maximumf %acc, %a : f16
    linalg.yield %0 : f16
  }
  return
}

// -----

// The same window summing f16: the block-parallel reduction, which
// accumulates in f32.
// CHECK-LABEL: func.func @small_window_sum_f16(
// CHECK: gpu.all_reduce
func.func @small_window_sum_f16(%x: memref<66x66xf16, #tide.device<cuda:0>>, %w: memref<3x3xf16, #tide.device<cuda:0>>, %y: memref<64x64xf16, #tide.device<cuda:0>>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0 + d2, d1 + d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %w : memref<66x66xf16, #tide.device<cuda:0>>, memref<3x3xf16, #tide.device<cuda:0>>) outs(%y : memref<64x64xf16, #tide.device<cuda:0>>) {
  ^bb0(%a: f16, %b: f16, %acc: f16):
    %0 = arith.addf %acc, %a : f16
    linalg.yield %0 : f16
  }
  return
}

// -----

// A constant copied to the GPU: a call that copies the runtime's device copy
// of it (uploaded at the first call, found through a slot global of the
// module), not a host-to-device copy at every call, where the buffer is then
// written (here: a fill); every site of one constant shares its slot (one
// device copy, uploaded once, whatever the number of places reading it). A
// buffer the function only reads (an input of linalg ops, itself or through a
// view) is the runtime's device copy itself: no allocation, copy or
// deallocation per call (tide_rt_gpu_constant, at the entry).
// CHECK: func.func private @tide_rt_gpu_copy_constant(i64, i64, i64, i64)
// CHECK: func.func private @tide_rt_gpu_constant(i64, i64, i64) -> i64
// CHECK: memref.global "private" constant @weights : memref<2x3xf32> = dense<1.500000e+00>
// CHECK-LABEL: func.func @constant_copy(
// CHECK: %[[RW:.*]] = memref.get_global @weights : memref<2x3xf32>
// CHECK: %[[RSLOT:.*]] = memref.get_global @weights_device_copy : memref<1xi64>
// CHECK: %[[RWP:.*]] = memref.extract_aligned_pointer_as_index %[[RW]]
// CHECK: %[[RWI:.*]] = arith.index_cast %[[RWP]] : index to i64
// CHECK: %[[RN:.*]] = arith.constant 24 : i64
// CHECK: %[[RSP:.*]] = memref.extract_aligned_pointer_as_index %[[RSLOT]]
// CHECK: %[[RSI:.*]] = arith.index_cast %[[RSP]] : index to i64
// CHECK: %[[RP:.*]] = call @tide_rt_gpu_constant(%[[RWI]], %[[RN]], %[[RSI]]) : (i64, i64, i64) -> i64
// CHECK: %[[RPTR:.*]] = llvm.inttoptr %[[RP]] : i64 to !llvm.ptr
// CHECK: %[[RD:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> to memref<2x3xf32, #tide.device<cuda:0>>
// CHECK: %[[W:.*]] = memref.get_global @weights : memref<2x3xf32>
// CHECK: %[[D:.*]] = gpu.alloc () : memref<2x3xf32, #tide.device<cuda:0>>
// CHECK-NOT: gpu.memcpy
// CHECK: %[[SLOT:.*]] = memref.get_global @weights_device_copy : memref<1xi64>
// CHECK: %[[DP:.*]] = memref.extract_aligned_pointer_as_index %[[D]]
// CHECK: %[[DI:.*]] = arith.index_cast %[[DP]] : index to i64
// CHECK: %[[WP:.*]] = memref.extract_aligned_pointer_as_index %[[W]]
// CHECK: %[[WI:.*]] = arith.index_cast %[[WP]] : index to i64
// CHECK: %[[N:.*]] = arith.constant 24 : i64
// CHECK: %[[SP:.*]] = memref.extract_aligned_pointer_as_index %[[SLOT]]
// CHECK: %[[SI:.*]] = arith.index_cast %[[SP]] : index to i64
// CHECK: call @tide_rt_gpu_copy_constant(%[[DI]], %[[WI]], %[[N]], %[[SI]])
// CHECK: call @tide_rt_gpu_copy_constant
// A copy of a mutable global stays a host-to-device copy.
// CHECK: gpu.memcpy
// The read-only buffer, through its view too, is read by the kernels; it
// is never freed.
// CHECK: function(@constant_copy_add_2)
// CHECK: memref.load %[[RD]]
// CHECK: memref.collapse_shape %[[RD]]
// CHECK: function(@constant_copy_copy_3)
// CHECK-NOT: gpu.dealloc %[[RD]]
// Two read-only sites of the constant in another function: one call, the
// same slot.
// CHECK-LABEL: func.func @constant_twice(
// CHECK: memref.get_global @weights_device_copy : memref<1xi64>
// CHECK: call @tide_rt_gpu_constant(
// CHECK-NOT: call @tide_rt_gpu_constant(
// CHECK-NOT: gpu.alloc
// CHECK: return
// CHECK: memref.global "private" @weights_device_copy : memref<1xi64> = dense<0> {tide.device_copy_slot}
// CHECK-NOT: @weights_device_copy_
// With constants-in-place=false, the read-only buffer is a copy too.
// COPIES-LABEL: func.func @constant_copy(
// COPIES-NOT: tide_rt_gpu_constant(
// COPIES-COUNT-3: call @tide_rt_gpu_copy_constant(
// COPIES-NOT: tide_rt_gpu_constant(
// COPIES: gpu.dealloc
memref.global "private" constant @weights : memref<2x3xf32> = dense<1.5>
memref.global "private" @state : memref<2x3xf32> = dense<0.0>
func.func @constant_copy(%x: memref<2x3xf32, #tide.device<cuda:0>>, %y: memref<2x3xf32, #tide.device<cuda:0>>, %z: memref<6xf32, #tide.device<cuda:0>>) {
  %w = memref.get_global @weights : memref<2x3xf32>
  %d = memref.alloc() : memref<2x3xf32, #tide.device<cuda:0>>
  memref.copy %w, %d : memref<2x3xf32> to memref<2x3xf32, #tide.device<cuda:0>>
  %c = arith.constant 0.0 : f32
  linalg.fill ins(%c : f32) outs(%d : memref<2x3xf32, #tide.device<cuda:0>>)
  %d2 = memref.alloc() : memref<2x3xf32, #tide.device<cuda:0>>
  memref.copy %w, %d2 : memref<2x3xf32> to memref<2x3xf32, #tide.device<cuda:0>>
  linalg.add ins(%d2, %d2 : memref<2x3xf32, #tide.device<cuda:0>>, memref<2x3xf32, #tide.device<cuda:0>>) outs(%d2 : memref<2x3xf32, #tide.device<cuda:0>>)
  %s = memref.get_global @state : memref<2x3xf32>
  %d3 = memref.alloc() : memref<2x3xf32, #tide.device<cuda:0>>
  memref.copy %s, %d3 : memref<2x3xf32> to memref<2x3xf32, #tide.device<cuda:0>>
  %r = memref.alloc() : memref<2x3xf32, #tide.device<cuda:0>>
  memref.copy %w, %r : memref<2x3xf32> to memref<2x3xf32, #tide.device<cuda:0>>
  linalg.add ins(%x, %r : memref<2x3xf32, #tide.device<cuda:0>>, memref<2x3xf32, #tide.device<cuda:0>>) outs(%y : memref<2x3xf32, #tide.device<cuda:0>>)
  %v = memref.collapse_shape %r [[0, 1]] : memref<2x3xf32, #tide.device<cuda:0>> into memref<6xf32, #tide.device<cuda:0>>
  linalg.copy ins(%v : memref<6xf32, #tide.device<cuda:0>>) outs(%z : memref<6xf32, #tide.device<cuda:0>>)
  memref.dealloc %d : memref<2x3xf32, #tide.device<cuda:0>>
  memref.dealloc %d2 : memref<2x3xf32, #tide.device<cuda:0>>
  memref.dealloc %d3 : memref<2x3xf32, #tide.device<cuda:0>>
  memref.dealloc %r : memref<2x3xf32, #tide.device<cuda:0>>
  return
}
func.func @constant_twice(%y: memref<2x3xf32, #tide.device<cuda:0>>) {
  %w = memref.get_global @weights : memref<2x3xf32>
  %a = memref.alloc() : memref<2x3xf32, #tide.device<cuda:0>>
  memref.copy %w, %a : memref<2x3xf32> to memref<2x3xf32, #tide.device<cuda:0>>
  %b = memref.alloc() : memref<2x3xf32, #tide.device<cuda:0>>
  memref.copy %w, %b : memref<2x3xf32> to memref<2x3xf32, #tide.device<cuda:0>>
  linalg.add ins(%a, %b : memref<2x3xf32, #tide.device<cuda:0>>, memref<2x3xf32, #tide.device<cuda:0>>) outs(%y : memref<2x3xf32, #tide.device<cuda:0>>)
  memref.dealloc %a : memref<2x3xf32, #tide.device<cuda:0>>
  memref.dealloc %b : memref<2x3xf32, #tide.device<cuda:0>>
  return
}

// -----

// Softmax over rows of 128 (attention scores): a warp per row, 8 rows per
// block of 256 threads (64 rows: 8 blocks), each lane from its own column
// in steps of 32, the maximum and the sum combined by five xor shuffles; bf16
// computed in f32. No block-wide reduction.
// CHECK-LABEL: func.func @softmax_warp_rows(
// CHECK: arith.ceildivui %c64{{.*}}, %c8
// CHECK: gpu.launch blocks({{.*}}) threads({{.*}}) in ({{.*}} = %c256{{.*}}) module(@tide_kernels) function(@softmax_warp_rows_softmax_0)
// CHECK: %[[WARP:.*]] = arith.divui %{{.*}}, %c32
// CHECK: %[[LANE:.*]] = arith.remui %{{.*}}, %c32
// CHECK: scf.for %{{.*}} = %[[LANE]] to %c128 step %c32
// CHECK: arith.extf
// CHECK: arith.maximumf
// CHECK: gpu.shuffle  xor %{{.*}}, %c16_i32, %c32_i32 : f32
// CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32, %{{.*}} : f32
// CHECK: math.exp
// CHECK: gpu.shuffle  xor
// CHECK: arith.truncf
// CHECK-NOT: gpu.all_reduce
// CHECK: return
func.func @softmax_warp_rows(%x: memref<64x128xbf16, #tide.device<cuda:0>>, %y: memref<64x128xbf16, #tide.device<cuda:0>>) {
  linalg.softmax dimension(1) ins(%x : memref<64x128xbf16, #tide.device<cuda:0>>) outs(%y : memref<64x128xbf16, #tide.device<cuda:0>>)
  return
}

// -----

// Rows longer than 1024, and f64 rows (whose shuffles would move 64-bit
// values), take a block per row and gpu.all_reduce; rows of 100 a block of
// 128 threads.
// CHECK-LABEL: func.func @softmax_block_rows(
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %{{.*}}) threads({{.*}}) in ({{.*}} = %c256{{.*}})
// CHECK: gpu.all_reduce maximumf
// CHECK: gpu.all_reduce add
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %{{.*}}) threads({{.*}}) in ({{.*}} = %c128{{.*}})
// CHECK: gpu.all_reduce maximumf
// CHECK-NOT: gpu.shuffle
// CHECK: return
func.func @softmax_block_rows(%x: memref<4x2048xf32, #tide.device<cuda:0>>, %y: memref<4x2048xf32, #tide.device<cuda:0>>, %a: memref<4x100xf64, #tide.device<cuda:0>>, %b: memref<4x100xf64, #tide.device<cuda:0>>) {
  linalg.softmax dimension(1) ins(%x : memref<4x2048xf32, #tide.device<cuda:0>>) outs(%y : memref<4x2048xf32, #tide.device<cuda:0>>)
  linalg.softmax dimension(1) ins(%a : memref<4x100xf64, #tide.device<cuda:0>>) outs(%b : memref<4x100xf64, #tide.device<cuda:0>>)
  return
}

// -----

// A fill of a reduction's output right before it (its initial value) is
// folded into a block reduction: no fill kernel, and the total is combined
// with the fill's value instead of a load of the output.
#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @row_sum_filled(
// CHECK-SAME: %[[X:.*]]: memref<64x768xf32, #tide.device<cuda:0>>, %[[Y:.*]]: memref<64xf32, #tide.device<cuda:0>>)
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NOT: linalg.fill
// CHECK: gpu.launch {{.*}} function(@row_sum_filled_addf_0)
// CHECK: gpu.all_reduce add
// CHECK-NOT: memref.load %[[Y]]
// CHECK: %[[T:.*]] = arith.addf %{{.*}}, %[[ZERO]] : f32
// CHECK: memref.store %[[T]], %[[Y]]
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @row_sum_filled(%x: memref<64x768xf32, #tide.device<cuda:0>>, %y: memref<64xf32, #tide.device<cuda:0>>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<64xf32, #tide.device<cuda:0>>)
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<64x768xf32, #tide.device<cuda:0>>) outs(%y : memref<64xf32, #tide.device<cuda:0>>) {
  ^bb0(%a: f32, %acc: f32):
    %0 = arith.addf %a, %acc : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// A reduction computed one thread per output (small windows) reads its
// output's initial value: the fill before it stays a kernel of its own,
// launched first.
// CHECK-LABEL: func.func @small_window_filled(
// CHECK: gpu.launch {{.*}} function(@small_window_filled_fill_0)
// CHECK: gpu.launch {{.*}} function(@small_window_filled_maximumf_1)
// CHECK: memref.load
// CHECK-NOT: gpu.all_reduce
// CHECK: return
func.func @small_window_filled(%x: memref<66x66xf16, #tide.device<cuda:0>>, %w: memref<3x3xf16, #tide.device<cuda:0>>, %y: memref<64x64xf16, #tide.device<cuda:0>>) {
  %ninf = arith.constant 0xFC00 : f16
  linalg.fill ins(%ninf : f16) outs(%y : memref<64x64xf16, #tide.device<cuda:0>>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0 + d2, d1 + d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %w : memref<66x66xf16, #tide.device<cuda:0>>, memref<3x3xf16, #tide.device<cuda:0>>) outs(%y : memref<64x64xf16, #tide.device<cuda:0>>) {
  ^bb0(%a: f16, %b: f16, %acc: f16):
    %0 = arith.maximumf %acc, %a : f16
    linalg.yield %0 : f16
  }
  return
}
