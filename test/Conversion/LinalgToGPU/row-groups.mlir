// RUN: tide-opt %s --convert-linalg-to-gpu --split-input-file | FileCheck %s
// RUN: tide-opt %s --convert-linalg-to-gpu=fuse-rows=false --split-input-file \
// RUN:   | FileCheck %s --check-prefix=OFF

// Row groups: a run of linalg ops over one [rows x cols] space, reductions
// of the trailing dims and the elementwise work around them, becomes one
// kernel with a warp (or a block) per row.

// A layer norm as the tensor lowering leaves it (residual add, mean,
// centered values, variance, normalize with scale and shift): one kernel,
// a warp per row of 768 (8 rows a block), the three passes over the row
// counting from 0 to 6 steps of 32 lanes by 4 columns (16-byte vector
// loads of the rows, the scale and the shift). The centered values are
// recomputed where read, the per-row values stay in registers: only the
// result is stored, and the intermediate buffers are gone.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0, 0)>
#col = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @layer_norm(
// CHECK-SAME: %[[X:[^:]*]]: memref<4096x768xf32, {{.*}}>, %[[R:[^:]*]]: memref<4096x768xf32, {{.*}}>, %[[G:[^:]*]]: memref<768xf32, {{.*}}>, %[[B:[^:]*]]: memref<768xf32, {{.*}}>, %[[Y:[^:]*]]: memref<4096x768xf32, {{.*}}>)
// CHECK-NOT: gpu.alloc
// CHECK: arith.ceildivui %c4096{{.*}}, %c8
// CHECK: gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c256{{.*}}) module(@tide_kernels) function(@layer_norm_addf_0)
// CHECK: %[[LANE:.*]] = arith.remui %{{.*}}, %c32
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c6
// CHECK: vector.load %[[X]]{{.*}} vector<4xf32>
// CHECK-NOT: memref.store
// CHECK: gpu.shuffle  xor
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c6
// CHECK-NOT: memref.store
// CHECK: gpu.shuffle  xor
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c6
// CHECK-DAG: math.rsqrt
// CHECK-DAG: vector.load %[[G]]{{.*}} vector<4xf32>
// CHECK: vector.store %{{.*}}, %[[Y]]{{.*}} vector<4xf32>
// CHECK-NOT: memref.store
// CHECK: gpu.terminator
// CHECK-NOT: gpu.launch
// CHECK-NOT: gpu.alloc
// CHECK: return
// OFF-LABEL: func.func @layer_norm(
// OFF-COUNT-5: gpu.launch
// OFF-NOT: gpu.launch
// OFF: return
func.func @layer_norm(%x: memref<4096x768xf32, #tide.device<cuda:0>>, %r: memref<4096x768xf32, #tide.device<cuda:0>>,
                      %g: memref<768xf32, #tide.device<cuda:0>>, %b: memref<768xf32, #tide.device<cuda:0>>,
                      %y: memref<4096x768xf32, #tide.device<cuda:0>>) {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 768.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %h = memref.alloc() : memref<4096x768xf32, #tide.device<cuda:0>>
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %r : memref<4096x768xf32, #tide.device<cuda:0>>, memref<4096x768xf32, #tide.device<cuda:0>>)
      outs(%h : memref<4096x768xf32, #tide.device<cuda:0>>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  }
  %sum = memref.alloc() : memref<4096x1xf32, #tide.device<cuda:0>>
  linalg.fill ins(%zero : f32) outs(%sum : memref<4096x1xf32, #tide.device<cuda:0>>)
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%h : memref<4096x768xf32, #tide.device<cuda:0>>) outs(%sum : memref<4096x1xf32, #tide.device<cuda:0>>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  %c = memref.alloc() : memref<4096x768xf32, #tide.device<cuda:0>>
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h, %sum : memref<4096x768xf32, #tide.device<cuda:0>>, memref<4096x1xf32, #tide.device<cuda:0>>)
      outs(%c : memref<4096x768xf32, #tide.device<cuda:0>>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %m = arith.divf %s, %n : f32
    %d = arith.subf %a, %m : f32
    linalg.yield %d : f32
  }
  %sq = memref.alloc() : memref<4096x1xf32, #tide.device<cuda:0>>
  linalg.fill ins(%zero : f32) outs(%sq : memref<4096x1xf32, #tide.device<cuda:0>>)
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%c : memref<4096x768xf32, #tide.device<cuda:0>>) outs(%sq : memref<4096x1xf32, #tide.device<cuda:0>>) {
  ^bb0(%a: f32, %acc: f32):
    %p = arith.mulf %a, %a : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #row, #col, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %sq, %g, %b : memref<4096x768xf32, #tide.device<cuda:0>>, memref<4096x1xf32, #tide.device<cuda:0>>,
                            memref<768xf32, #tide.device<cuda:0>>, memref<768xf32, #tide.device<cuda:0>>)
      outs(%y : memref<4096x768xf32, #tide.device<cuda:0>>) {
  ^bb0(%a: f32, %v: f32, %gg: f32, %bb: f32, %o: f32):
    %m = arith.divf %v, %n : f32
    %e = arith.addf %m, %eps : f32
    %i = math.rsqrt %e : f32
    %t = arith.mulf %a, %i : f32
    %u = arith.mulf %t, %gg : f32
    %w = arith.addf %u, %bb : f32
    linalg.yield %w : f32
  }
  memref.dealloc %h : memref<4096x768xf32, #tide.device<cuda:0>>
  memref.dealloc %sum : memref<4096x1xf32, #tide.device<cuda:0>>
  memref.dealloc %c : memref<4096x768xf32, #tide.device<cuda:0>>
  memref.dealloc %sq : memref<4096x1xf32, #tide.device<cuda:0>>
  return
}

// -----

// Attention: the scores' scale and mask, then the softmax: one kernel, the
// masked scores recomputed in each of the softmax's three passes (rows of
// 128: 4 columns a lane, 8-byte vectors).
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#mask = affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>
// CHECK-LABEL: func.func @masked_softmax(
// CHECK-SAME: %[[S:[^:]*]]: memref<2x12x128x128xbf16, {{.*}}>, %[[M:[^:]*]]: memref<2x1x1x128xbf16, {{.*}}>, %[[P:[^:]*]]: memref<2x12x128x128xbf16, {{.*}}>)
// CHECK: gpu.launch {{.*}} function(@masked_softmax_softmax_0)
// CHECK: vector.load %[[M]]{{.*}} vector<4xbf16>
// CHECK: arith.maximumf
// CHECK: gpu.shuffle  xor
// CHECK: vector.load %[[M]]
// CHECK: math.exp
// CHECK: gpu.shuffle  xor
// CHECK: vector.load %[[M]]
// CHECK: arith.divf
// CHECK: vector.store %{{.*}}, %[[P]]
// CHECK-NOT: gpu.launch
// CHECK: return
// OFF-LABEL: func.func @masked_softmax(
// OFF-COUNT-2: gpu.launch
func.func @masked_softmax(%s: memref<2x12x128x128xbf16, #tide.device<cuda:0>>, %m: memref<2x1x1x128xbf16, #tide.device<cuda:0>>,
                          %p: memref<2x12x128x128xbf16, #tide.device<cuda:0>>) {
  %k = arith.constant 1.250000e-01 : bf16
  %a = memref.alloc() : memref<2x12x128x128xbf16, #tide.device<cuda:0>>
  linalg.generic {indexing_maps = [#id4, #mask, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s, %m : memref<2x12x128x128xbf16, #tide.device<cuda:0>>, memref<2x1x1x128xbf16, #tide.device<cuda:0>>)
      outs(%a : memref<2x12x128x128xbf16, #tide.device<cuda:0>>) {
  ^bb0(%x: bf16, %y: bf16, %o: bf16):
    %t = arith.mulf %x, %k : bf16
    %u = arith.addf %t, %y : bf16
    linalg.yield %u : bf16
  }
  linalg.softmax dimension(3) ins(%a : memref<2x12x128x128xbf16, #tide.device<cuda:0>>) outs(%p : memref<2x12x128x128xbf16, #tide.device<cuda:0>>)
  memref.dealloc %a : memref<2x12x128x128xbf16, #tide.device<cuda:0>>
  return
}

// -----

// Values the group computes that something after it reads are stored: the
// row sums (by each row's first lane) and the centered values (in the pass
// that needs them anyway); the copy of the sums to the host between the
// members waits for the kernel. f64 accumulators: a block per row and
// gpu.all_reduce (rows of 768: 256 threads).
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-LABEL: func.func @stored_values(
// CHECK-SAME: %[[X:[^:]*]]: memref<512x768xf64, {{.*}}>, %[[Y:[^:]*]]: memref<512x768xf64, {{.*}}>, %[[H:[^:]*]]: memref<512x1xf64>)
// CHECK: %[[SUM:.*]] = gpu.alloc () : memref<512x1xf64, #tide.device<cuda:0>>
// CHECK: arith.ceildivui %c512{{.*}}, %c1
// CHECK: gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c256{{.*}}) module(@tide_kernels) function(@stored_values_addf_0)
// CHECK: %[[T:.*]] = gpu.all_reduce add
// CHECK: %[[V:.*]] = arith.addf %[[T]], %{{.*}} : f64
// CHECK: arith.cmpi eq
// CHECK: scf.if
// CHECK: memref.store %[[V]], %[[SUM]]
// CHECK: scf.for
// CHECK: arith.subf
// CHECK: memref.store %{{.*}}, %[[Y]]
// CHECK: gpu.terminator
// CHECK: gpu.memcpy  %[[H]], %[[SUM]]
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @stored_values(%x: memref<512x768xf64, #tide.device<cuda:0>>, %y: memref<512x768xf64, #tide.device<cuda:0>>, %host: memref<512x1xf64>) {
  %zero = arith.constant 0.0 : f64
  %sum = memref.alloc() : memref<512x1xf64, #tide.device<cuda:0>>
  linalg.fill ins(%zero : f64) outs(%sum : memref<512x1xf64, #tide.device<cuda:0>>)
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<512x768xf64, #tide.device<cuda:0>>) outs(%sum : memref<512x1xf64, #tide.device<cuda:0>>) {
  ^bb0(%a: f64, %acc: f64):
    %s = arith.addf %a, %acc : f64
    linalg.yield %s : f64
  }
  memref.copy %sum, %host : memref<512x1xf64, #tide.device<cuda:0>> to memref<512x1xf64>
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : memref<512x768xf64, #tide.device<cuda:0>>, memref<512x1xf64, #tide.device<cuda:0>>)
      outs(%y : memref<512x768xf64, #tide.device<cuda:0>>) {
  ^bb0(%a: f64, %s: f64, %o: f64):
    %d = arith.subf %a, %s : f64
    linalg.yield %d : f64
  }
  memref.dealloc %sum : memref<512x1xf64, #tide.device<cuda:0>>
  return
}

// -----

// A member may read what an earlier one wrote only where it was written:
// the transposed read of %h ends the group before it (two kernels).
#id = affine_map<(d0, d1) -> (d0, d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>
#row = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-LABEL: func.func @transposed_read(
// CHECK: gpu.launch {{.*}} function(@transposed_read_addf_0)
// CHECK: gpu.shuffle
// CHECK: gpu.launch {{.*}} function(@transposed_read_subf_1)
// CHECK-NOT: gpu.shuffle
// CHECK: return
func.func @transposed_read(%x: memref<512x512xf32, #tide.device<cuda:0>>, %y: memref<512x512xf32, #tide.device<cuda:0>>) {
  %zero = arith.constant 0.0 : f32
  %h = memref.alloc() : memref<512x512xf32, #tide.device<cuda:0>>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<512x512xf32, #tide.device<cuda:0>>) outs(%h : memref<512x512xf32, #tide.device<cuda:0>>) {
  ^bb0(%a: f32, %o: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  }
  %sum = memref.alloc() : memref<512x1xf32, #tide.device<cuda:0>>
  linalg.fill ins(%zero : f32) outs(%sum : memref<512x1xf32, #tide.device<cuda:0>>)
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%h : memref<512x512xf32, #tide.device<cuda:0>>) outs(%sum : memref<512x1xf32, #tide.device<cuda:0>>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#t, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h, %sum : memref<512x512xf32, #tide.device<cuda:0>>, memref<512x1xf32, #tide.device<cuda:0>>)
      outs(%y : memref<512x512xf32, #tide.device<cuda:0>>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %d = arith.subf %a, %s : f32
    linalg.yield %d : f32
  }
  memref.dealloc %h : memref<512x512xf32, #tide.device<cuda:0>>
  memref.dealloc %sum : memref<512x1xf32, #tide.device<cuda:0>>
  return
}

// -----

// A lone reduction is no group (the block reduction lowers it), nor are
// pooling windows (rows of 9).
#id = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @no_group(
// CHECK: gpu.launch {{.*}} function(@no_group_addf_0)
// CHECK: gpu.all_reduce add
// CHECK: gpu.launch {{.*}} function(@no_group_maximumf_1)
// CHECK-NOT: gpu.all_reduce
// CHECK: return
func.func @no_group(%x: memref<64x768xf32, #tide.device<cuda:0>>, %y: memref<64xf32, #tide.device<cuda:0>>,
                    %w: memref<65536x9xf32, #tide.device<cuda:0>>, %z: memref<65536xf32, #tide.device<cuda:0>>,
                    %v: memref<65536xf32, #tide.device<cuda:0>>) {
  linalg.generic {indexing_maps = [#id, #out], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<64x768xf32, #tide.device<cuda:0>>) outs(%y : memref<64xf32, #tide.device<cuda:0>>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #out], iterator_types = ["parallel", "reduction"]}
      ins(%w : memref<65536x9xf32, #tide.device<cuda:0>>) outs(%z : memref<65536xf32, #tide.device<cuda:0>>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.maximumf %a, %acc : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%z : memref<65536xf32, #tide.device<cuda:0>>) outs(%v : memref<65536xf32, #tide.device<cuda:0>>) {
  ^bb0(%a: f32, %o: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  }
  return
}

// -----

// An i1 buffer (a byte per element) read in a row kernel of bf16 vectors is
// read element by element: LLVM packs a vector of i1 into bits, so a
// vector<2xi1> load would take the condition of two elements from one byte.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @i1_condition(
// CHECK-SAME: %[[X:[^:]*]]: memref<4x64xbf16, {{.*}}>, %[[C:[^:]*]]: memref<4x64xi1, {{.*}}>
// CHECK: gpu.launch
// CHECK-NOT: xi1>
// CHECK: memref.load %[[C]]
// CHECK-NOT: xi1>
// CHECK: return
func.func @i1_condition(%x: memref<4x64xbf16, #tide.device<cuda:0>>, %c: memref<4x64xi1, #tide.device<cuda:0>>,
                        %y: memref<4x64xbf16, #tide.device<cuda:0>>) {
  %k = arith.constant -5.000000e-01 : bf16
  %p = memref.alloc() : memref<4x64xbf16, #tide.device<cuda:0>>
  linalg.softmax dimension(1) ins(%x : memref<4x64xbf16, #tide.device<cuda:0>>) outs(%p : memref<4x64xbf16, #tide.device<cuda:0>>)
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p, %c : memref<4x64xbf16, #tide.device<cuda:0>>, memref<4x64xi1, #tide.device<cuda:0>>)
      outs(%y : memref<4x64xbf16, #tide.device<cuda:0>>) {
  ^bb0(%a: bf16, %b: i1, %o: bf16):
    %s = arith.select %b, %a, %k : bf16
    linalg.yield %s : bf16
  }
  memref.dealloc %p : memref<4x64xbf16, #tide.device<cuda:0>>
  return
}
