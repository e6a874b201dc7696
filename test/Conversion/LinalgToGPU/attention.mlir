// RUN: tide-opt %s --convert-linalg-to-gpu=chip=sm_90 --cse | FileCheck %s
// RUN: tide-opt %s --convert-linalg-to-gpu="chip=sm_90 fuse-attention=false" \
// RUN:   | FileCheck %s --check-prefix=OFF
// The kernels exist for sm_90 only: for another chip, or none named, no call.
// RUN: tide-opt %s --convert-linalg-to-gpu=chip=sm_86 | FileCheck %s --check-prefix=OFF
// RUN: tide-opt %s --convert-linalg-to-gpu | FileCheck %s --check-prefix=OFF

// Attention (batched matmul Q K^T, elementwise scale and mask, softmax over
// the keys, batched matmul by V) on f16/bf16 becomes one call of the
// runtime's fused kernel. The input is what the GPU pipeline leaves before
// convert-linalg-to-gpu for the tide functions named in each comment.

#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3, d2)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map2 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
#map3 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>
#map4 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
#map5 = affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>
#map6 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#map7 = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#map8 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#map9 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map10 = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>
module attributes {tide.target = #tide.target<name = "h200", source = "built-in", chips = {cpu = "", "cuda:0" = "sm_90"}>} {
// BERT's form (the importer's Div by sqrt(d), Add of a (batch, 1, 1, keys)
// mask): the scores, scaled and masked scores and probabilities are never
// allocated; K^T's transposing kernel writes K [b, h, keys, d] instead (no
// 1x2x32x16 buffer is left), read untransposed (0); the mask is read along
// dims 0 and 3; the steps are a division (2) by 8 and the mask (3).
// CHECK-LABEL: func.func @bert(
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : i64
// CHECK-DAG:     %[[NONE:.*]] = arith.constant -1 : i64
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : i64
// CHECK-DAG:     %[[C3:.*]] = arith.constant 3 : i64
// CHECK-DAG:     %[[EIGHT:.*]] = arith.constant 8.000000e+00 : f64
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NOT:     memref<1x2x32x16xbf16
// CHECK-NOT:     linalg.softmax
// CHECK:         call @tide_rt_gpu_attention_bf16(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[C0]], %[[C0]], %[[NONE]], %[[NONE]], %[[C3]], %[[C2]], %[[C3]], %[[C0]], %[[EIGHT]], %[[ZERO]], %[[ZERO]])
// CHECK-NOT:     memref<1x2x32x16xbf16
// CHECK:         return
// OFF-LABEL:   func.func @bert(
// OFF-NOT:       tide_rt_gpu_attention
// OFF:           return
  func.func @bert(%arg0: memref<1x2x16x32xbf16>, %arg1: memref<1x2x16x32xbf16>, %arg2: memref<1x2x16x32xbf16>, %arg3: memref<1x1x1x16xbf16>) -> memref<1x2x16x32xbf16> attributes {llvm.emit_c_interface} {
    %cst = arith.constant 8.000000e+00 : f32
    %cst_0 = arith.constant {tide.device = #tide.device<cuda:0>} 0.000000e+00 : bf16
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<1x2x16x32xbf16, #tide.device<cuda:0>>
    memref.copy %arg1, %alloc : memref<1x2x16x32xbf16> to memref<1x2x16x32xbf16, #tide.device<cuda:0>>
    %alloc_1 = memref.alloc() {alignment = 64 : i64} : memref<1x2x16x32xbf16, #tide.device<cuda:0>>
    memref.copy %arg0, %alloc_1 : memref<1x2x16x32xbf16> to memref<1x2x16x32xbf16, #tide.device<cuda:0>>
    %alloc_2 = memref.alloc() {alignment = 64 : i64} : memref<1x1x1x16xbf16, #tide.device<cuda:0>>
    memref.copy %arg3, %alloc_2 : memref<1x1x1x16xbf16> to memref<1x1x1x16xbf16, #tide.device<cuda:0>>
    %alloc_3 = memref.alloc() {alignment = 64 : i64} : memref<1x2x16x32xbf16, #tide.device<cuda:0>>
    memref.copy %arg2, %alloc_3 : memref<1x2x16x32xbf16> to memref<1x2x16x32xbf16, #tide.device<cuda:0>>
    %alloc_4 = memref.alloc() {alignment = 64 : i64} : memref<1x2x32x16xbf16, #tide.device<cuda:0>>
    linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%alloc : memref<1x2x16x32xbf16, #tide.device<cuda:0>>) outs(%alloc_4 : memref<1x2x32x16xbf16, #tide.device<cuda:0>>) attrs =  {tide.device = #tide.device<cuda:0>} {
    ^bb0(%in: bf16, %out: bf16):
      linalg.yield %in : bf16
    }
    %alloc_5 = memref.alloc() {alignment = 64 : i64} : memref<1x2x16x16xbf16, #tide.device<cuda:0>>
    linalg.fill {tide.device = #tide.device<cuda:0>} ins(%cst_0 : bf16) outs(%alloc_5 : memref<1x2x16x16xbf16, #tide.device<cuda:0>>)
    linalg.generic {indexing_maps = [#map2, #map3, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%alloc_1, %alloc_4 : memref<1x2x16x32xbf16, #tide.device<cuda:0>>, memref<1x2x32x16xbf16, #tide.device<cuda:0>>) outs(%alloc_5 : memref<1x2x16x16xbf16, #tide.device<cuda:0>>) attrs =  {tide.device = #tide.device<cuda:0>} {
    ^bb0(%in: bf16, %in_10: bf16, %out: bf16):
      %0 = arith.mulf %in, %in_10 : bf16
      %1 = arith.addf %out, %0 : bf16
      linalg.yield %1 : bf16
    }
    %alloc_6 = memref.alloc() {alignment = 64 : i64} : memref<1x2x16x16xbf16, #tide.device<cuda:0>>
    linalg.generic {indexing_maps = [#map1, #map5, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%alloc_5, %alloc_2 : memref<1x2x16x16xbf16, #tide.device<cuda:0>>, memref<1x1x1x16xbf16, #tide.device<cuda:0>>) outs(%alloc_6 : memref<1x2x16x16xbf16, #tide.device<cuda:0>>) attrs =  {tide.device = #tide.device<cuda:0>} {
    ^bb0(%in: bf16, %in_10: bf16, %out: bf16):
      %0 = arith.extf %in : bf16 to f32
      %1 = arith.divf %0, %cst : f32
      %2 = arith.truncf %1 : f32 to bf16
      %3 = arith.extf %2 : bf16 to f32
      %4 = arith.extf %in_10 : bf16 to f32
      %5 = arith.addf %3, %4 : f32
      %6 = arith.truncf %5 : f32 to bf16
      linalg.yield %6 : bf16
    }
    %alloc_7 = memref.alloc() {alignment = 64 : i64} : memref<1x2x16x16xbf16, #tide.device<cuda:0>>
    linalg.softmax dimension(3) ins(%alloc_6 : memref<1x2x16x16xbf16, #tide.device<cuda:0>>) outs(%alloc_7 : memref<1x2x16x16xbf16, #tide.device<cuda:0>>)
    %alloc_8 = memref.alloc() {alignment = 64 : i64} : memref<1x2x16x32xbf16, #tide.device<cuda:0>>
    linalg.fill {tide.device = #tide.device<cuda:0>} ins(%cst_0 : bf16) outs(%alloc_8 : memref<1x2x16x32xbf16, #tide.device<cuda:0>>)
    linalg.generic {indexing_maps = [#map2, #map3, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%alloc_7, %alloc_3 : memref<1x2x16x16xbf16, #tide.device<cuda:0>>, memref<1x2x16x32xbf16, #tide.device<cuda:0>>) outs(%alloc_8 : memref<1x2x16x32xbf16, #tide.device<cuda:0>>) attrs =  {tide.device = #tide.device<cuda:0>} {
    ^bb0(%in: bf16, %in_10: bf16, %out: bf16):
      %0 = arith.mulf %in, %in_10 : bf16
      %1 = arith.addf %out, %0 : bf16
      linalg.yield %1 : bf16
    }
    %alloc_9 = memref.alloc() {alignment = 64 : i64} : memref<1x2x16x32xbf16>
    memref.copy %alloc_8, %alloc_9 : memref<1x2x16x32xbf16, #tide.device<cuda:0>> to memref<1x2x16x32xbf16>
    memref.dealloc %alloc : memref<1x2x16x32xbf16, #tide.device<cuda:0>>
    memref.dealloc %alloc_1 : memref<1x2x16x32xbf16, #tide.device<cuda:0>>
    memref.dealloc %alloc_2 : memref<1x1x1x16xbf16, #tide.device<cuda:0>>
    memref.dealloc %alloc_3 : memref<1x2x16x32xbf16, #tide.device<cuda:0>>
    memref.dealloc %alloc_4 : memref<1x2x32x16xbf16, #tide.device<cuda:0>>
    memref.dealloc %alloc_5 : memref<1x2x16x16xbf16, #tide.device<cuda:0>>
    memref.dealloc %alloc_6 : memref<1x2x16x16xbf16, #tide.device<cuda:0>>
    memref.dealloc %alloc_7 : memref<1x2x16x16xbf16, #tide.device<cuda:0>>
    memref.dealloc %alloc_8 : memref<1x2x16x32xbf16, #tide.device<cuda:0>>
    return %alloc_9 : memref<1x2x16x32xbf16>
  }
// Rank 3, K^T an argument (read transposed, 1), no steps: f16.
// CHECK-LABEL: func.func @plain_f16(
// CHECK:         %[[C1:.*]] = arith.constant 1 : i64
// CHECK:         call @tide_rt_gpu_attention_f16(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[C1]],
// CHECK:         return
  func.func @plain_f16(%arg0: memref<3x16x64xf16>, %arg1: memref<3x64x8xf16>, %arg2: memref<3x8x64xf16>) -> memref<3x16x64xf16> attributes {llvm.emit_c_interface} {
    %cst = arith.constant {tide.device = #tide.device<cuda:0>} 0.000000e+00 : f16
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<3x16x64xf16, #tide.device<cuda:0>>
    memref.copy %arg0, %alloc : memref<3x16x64xf16> to memref<3x16x64xf16, #tide.device<cuda:0>>
    %alloc_0 = memref.alloc() {alignment = 64 : i64} : memref<3x64x8xf16, #tide.device<cuda:0>>
    memref.copy %arg1, %alloc_0 : memref<3x64x8xf16> to memref<3x64x8xf16, #tide.device<cuda:0>>
    %alloc_1 = memref.alloc() {alignment = 64 : i64} : memref<3x8x64xf16, #tide.device<cuda:0>>
    memref.copy %arg2, %alloc_1 : memref<3x8x64xf16> to memref<3x8x64xf16, #tide.device<cuda:0>>
    %alloc_2 = memref.alloc() {alignment = 64 : i64} : memref<3x16x8xf16, #tide.device<cuda:0>>
    linalg.fill {tide.device = #tide.device<cuda:0>} ins(%cst : f16) outs(%alloc_2 : memref<3x16x8xf16, #tide.device<cuda:0>>)
    linalg.generic {indexing_maps = [#map6, #map7, #map8], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%alloc, %alloc_0 : memref<3x16x64xf16, #tide.device<cuda:0>>, memref<3x64x8xf16, #tide.device<cuda:0>>) outs(%alloc_2 : memref<3x16x8xf16, #tide.device<cuda:0>>) attrs =  {tide.device = #tide.device<cuda:0>} {
    ^bb0(%in: f16, %in_6: f16, %out: f16):
      %0 = arith.mulf %in, %in_6 : f16
      %1 = arith.addf %out, %0 : f16
      linalg.yield %1 : f16
    }
    %alloc_3 = memref.alloc() {alignment = 64 : i64} : memref<3x16x8xf16, #tide.device<cuda:0>>
    linalg.softmax dimension(2) ins(%alloc_2 : memref<3x16x8xf16, #tide.device<cuda:0>>) outs(%alloc_3 : memref<3x16x8xf16, #tide.device<cuda:0>>)
    %alloc_4 = memref.alloc() {alignment = 64 : i64} : memref<3x16x64xf16, #tide.device<cuda:0>>
    linalg.fill {tide.device = #tide.device<cuda:0>} ins(%cst : f16) outs(%alloc_4 : memref<3x16x64xf16, #tide.device<cuda:0>>)
    linalg.generic {indexing_maps = [#map6, #map7, #map8], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%alloc_3, %alloc_1 : memref<3x16x8xf16, #tide.device<cuda:0>>, memref<3x8x64xf16, #tide.device<cuda:0>>) outs(%alloc_4 : memref<3x16x64xf16, #tide.device<cuda:0>>) attrs =  {tide.device = #tide.device<cuda:0>} {
    ^bb0(%in: f16, %in_6: f16, %out: f16):
      %0 = arith.mulf %in, %in_6 : f16
      %1 = arith.addf %out, %0 : f16
      linalg.yield %1 : f16
    }
    %alloc_5 = memref.alloc() {alignment = 64 : i64} : memref<3x16x64xf16>
    memref.copy %alloc_4, %alloc_5 : memref<3x16x64xf16, #tide.device<cuda:0>> to memref<3x16x64xf16>
    memref.dealloc %alloc : memref<3x16x64xf16, #tide.device<cuda:0>>
    memref.dealloc %alloc_0 : memref<3x64x8xf16, #tide.device<cuda:0>>
    memref.dealloc %alloc_1 : memref<3x8x64xf16, #tide.device<cuda:0>>
    memref.dealloc %alloc_2 : memref<3x16x8xf16, #tide.device<cuda:0>>
    memref.dealloc %alloc_3 : memref<3x16x8xf16, #tide.device<cuda:0>>
    memref.dealloc %alloc_4 : memref<3x16x64xf16, #tide.device<cuda:0>>
    return %alloc_5 : memref<3x16x64xf16>
  }
// Not fused: Q is written (through a view, in a nested region) between
// Q K^T and P V, where the call would read it.
// CHECK-LABEL: func.func @q_written_between(
// CHECK-NOT:     tide_rt_gpu_attention
// CHECK:         return
  func.func @q_written_between(%arg0: memref<3x16x64xf16>, %arg1: memref<3x64x8xf16>, %arg2: memref<3x8x64xf16>) -> memref<3x16x64xf16> attributes {llvm.emit_c_interface} {
    %cst = arith.constant {tide.device = #tide.device<cuda:0>} 0.000000e+00 : f16
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<3x16x64xf16, #tide.device<cuda:0>>
    memref.copy %arg0, %alloc : memref<3x16x64xf16> to memref<3x16x64xf16, #tide.device<cuda:0>>
    %alloc_0 = memref.alloc() {alignment = 64 : i64} : memref<3x64x8xf16, #tide.device<cuda:0>>
    memref.copy %arg1, %alloc_0 : memref<3x64x8xf16> to memref<3x64x8xf16, #tide.device<cuda:0>>
    %alloc_1 = memref.alloc() {alignment = 64 : i64} : memref<3x8x64xf16, #tide.device<cuda:0>>
    memref.copy %arg2, %alloc_1 : memref<3x8x64xf16> to memref<3x8x64xf16, #tide.device<cuda:0>>
    %alloc_2 = memref.alloc() {alignment = 64 : i64} : memref<3x16x8xf16, #tide.device<cuda:0>>
    linalg.fill {tide.device = #tide.device<cuda:0>} ins(%cst : f16) outs(%alloc_2 : memref<3x16x8xf16, #tide.device<cuda:0>>)
    linalg.generic {indexing_maps = [#map6, #map7, #map8], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%alloc, %alloc_0 : memref<3x16x64xf16, #tide.device<cuda:0>>, memref<3x64x8xf16, #tide.device<cuda:0>>) outs(%alloc_2 : memref<3x16x8xf16, #tide.device<cuda:0>>) attrs =  {tide.device = #tide.device<cuda:0>} {
    ^bb0(%in: f16, %in_6: f16, %out: f16):
      %0 = arith.mulf %in, %in_6 : f16
      %1 = arith.addf %out, %0 : f16
      linalg.yield %1 : f16
    }
    %alloc_3 = memref.alloc() {alignment = 64 : i64} : memref<3x16x8xf16, #tide.device<cuda:0>>
    scf.execute_region {
      %view = memref.subview %alloc[0, 0, 0] [1, 16, 64] [1, 1, 1] : memref<3x16x64xf16, #tide.device<cuda:0>> to memref<16x64xf16, strided<[64, 1]>, #tide.device<cuda:0>>
      linalg.fill {tide.device = #tide.device<cuda:0>} ins(%cst : f16) outs(%view : memref<16x64xf16, strided<[64, 1]>, #tide.device<cuda:0>>)
      scf.yield
    }
    linalg.softmax dimension(2) ins(%alloc_2 : memref<3x16x8xf16, #tide.device<cuda:0>>) outs(%alloc_3 : memref<3x16x8xf16, #tide.device<cuda:0>>)
    %alloc_4 = memref.alloc() {alignment = 64 : i64} : memref<3x16x64xf16, #tide.device<cuda:0>>
    linalg.fill {tide.device = #tide.device<cuda:0>} ins(%cst : f16) outs(%alloc_4 : memref<3x16x64xf16, #tide.device<cuda:0>>)
    linalg.generic {indexing_maps = [#map6, #map7, #map8], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%alloc_3, %alloc_1 : memref<3x16x8xf16, #tide.device<cuda:0>>, memref<3x8x64xf16, #tide.device<cuda:0>>) outs(%alloc_4 : memref<3x16x64xf16, #tide.device<cuda:0>>) attrs =  {tide.device = #tide.device<cuda:0>} {
    ^bb0(%in: f16, %in_6: f16, %out: f16):
      %0 = arith.mulf %in, %in_6 : f16
      %1 = arith.addf %out, %0 : f16
      linalg.yield %1 : f16
    }
    %alloc_5 = memref.alloc() {alignment = 64 : i64} : memref<3x16x64xf16>
    memref.copy %alloc_4, %alloc_5 : memref<3x16x64xf16, #tide.device<cuda:0>> to memref<3x16x64xf16>
    memref.dealloc %alloc : memref<3x16x64xf16, #tide.device<cuda:0>>
    memref.dealloc %alloc_0 : memref<3x64x8xf16, #tide.device<cuda:0>>
    memref.dealloc %alloc_1 : memref<3x8x64xf16, #tide.device<cuda:0>>
    memref.dealloc %alloc_2 : memref<3x16x8xf16, #tide.device<cuda:0>>
    memref.dealloc %alloc_3 : memref<3x16x8xf16, #tide.device<cuda:0>>
    memref.dealloc %alloc_4 : memref<3x16x64xf16, #tide.device<cuda:0>>
    return %alloc_5 : memref<3x16x64xf16>
  }
// Not fused: f32 (tensor cores would round it to TF32).
// CHECK-LABEL: func.func @f32(
// CHECK-NOT:     tide_rt_gpu_attention
// CHECK:         return
  func.func @f32(%arg0: memref<3x16x64xf32>, %arg1: memref<3x64x8xf32>, %arg2: memref<3x8x64xf32>) -> memref<3x16x64xf32> attributes {llvm.emit_c_interface} {
    %cst = arith.constant {tide.device = #tide.device<cuda:0>} 0.000000e+00 : f32
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<3x16x64xf32, #tide.device<cuda:0>>
    memref.copy %arg0, %alloc : memref<3x16x64xf32> to memref<3x16x64xf32, #tide.device<cuda:0>>
    %alloc_0 = memref.alloc() {alignment = 64 : i64} : memref<3x64x8xf32, #tide.device<cuda:0>>
    memref.copy %arg1, %alloc_0 : memref<3x64x8xf32> to memref<3x64x8xf32, #tide.device<cuda:0>>
    %alloc_1 = memref.alloc() {alignment = 64 : i64} : memref<3x8x64xf32, #tide.device<cuda:0>>
    memref.copy %arg2, %alloc_1 : memref<3x8x64xf32> to memref<3x8x64xf32, #tide.device<cuda:0>>
    %alloc_2 = memref.alloc() {alignment = 64 : i64} : memref<3x16x8xf32, #tide.device<cuda:0>>
    linalg.fill {tide.device = #tide.device<cuda:0>} ins(%cst : f32) outs(%alloc_2 : memref<3x16x8xf32, #tide.device<cuda:0>>)
    linalg.generic {indexing_maps = [#map6, #map7, #map8], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%alloc, %alloc_0 : memref<3x16x64xf32, #tide.device<cuda:0>>, memref<3x64x8xf32, #tide.device<cuda:0>>) outs(%alloc_2 : memref<3x16x8xf32, #tide.device<cuda:0>>) attrs =  {tide.device = #tide.device<cuda:0>} {
    ^bb0(%in: f32, %in_6: f32, %out: f32):
      %0 = arith.mulf %in, %in_6 : f32
      %1 = arith.addf %out, %0 : f32
      linalg.yield %1 : f32
    }
    %alloc_3 = memref.alloc() {alignment = 64 : i64} : memref<3x16x8xf32, #tide.device<cuda:0>>
    linalg.softmax dimension(2) ins(%alloc_2 : memref<3x16x8xf32, #tide.device<cuda:0>>) outs(%alloc_3 : memref<3x16x8xf32, #tide.device<cuda:0>>)
    %alloc_4 = memref.alloc() {alignment = 64 : i64} : memref<3x16x64xf32, #tide.device<cuda:0>>
    linalg.fill {tide.device = #tide.device<cuda:0>} ins(%cst : f32) outs(%alloc_4 : memref<3x16x64xf32, #tide.device<cuda:0>>)
    linalg.generic {indexing_maps = [#map6, #map7, #map8], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%alloc_3, %alloc_1 : memref<3x16x8xf32, #tide.device<cuda:0>>, memref<3x8x64xf32, #tide.device<cuda:0>>) outs(%alloc_4 : memref<3x16x64xf32, #tide.device<cuda:0>>) attrs =  {tide.device = #tide.device<cuda:0>} {
    ^bb0(%in: f32, %in_6: f32, %out: f32):
      %0 = arith.mulf %in, %in_6 : f32
      %1 = arith.addf %out, %0 : f32
      linalg.yield %1 : f32
    }
    %alloc_5 = memref.alloc() {alignment = 64 : i64} : memref<3x16x64xf32>
    memref.copy %alloc_4, %alloc_5 : memref<3x16x64xf32, #tide.device<cuda:0>> to memref<3x16x64xf32>
    memref.dealloc %alloc : memref<3x16x64xf32, #tide.device<cuda:0>>
    memref.dealloc %alloc_0 : memref<3x64x8xf32, #tide.device<cuda:0>>
    memref.dealloc %alloc_1 : memref<3x8x64xf32, #tide.device<cuda:0>>
    memref.dealloc %alloc_2 : memref<3x16x8xf32, #tide.device<cuda:0>>
    memref.dealloc %alloc_3 : memref<3x16x8xf32, #tide.device<cuda:0>>
    memref.dealloc %alloc_4 : memref<3x16x64xf32, #tide.device<cuda:0>>
    return %alloc_5 : memref<3x16x64xf32>
  }
// Not fused: a head dim the kernel does not have.
// CHECK-LABEL: func.func @head_dim_48(
// CHECK-NOT:     tide_rt_gpu_attention
// CHECK:         return
  func.func @head_dim_48(%arg0: memref<3x16x48xbf16>, %arg1: memref<3x48x8xbf16>, %arg2: memref<3x8x48xbf16>) -> memref<3x16x48xbf16> attributes {llvm.emit_c_interface} {
    %cst = arith.constant {tide.device = #tide.device<cuda:0>} 0.000000e+00 : bf16
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<3x16x48xbf16, #tide.device<cuda:0>>
    memref.copy %arg0, %alloc : memref<3x16x48xbf16> to memref<3x16x48xbf16, #tide.device<cuda:0>>
    %alloc_0 = memref.alloc() {alignment = 64 : i64} : memref<3x48x8xbf16, #tide.device<cuda:0>>
    memref.copy %arg1, %alloc_0 : memref<3x48x8xbf16> to memref<3x48x8xbf16, #tide.device<cuda:0>>
    %alloc_1 = memref.alloc() {alignment = 64 : i64} : memref<3x8x48xbf16, #tide.device<cuda:0>>
    memref.copy %arg2, %alloc_1 : memref<3x8x48xbf16> to memref<3x8x48xbf16, #tide.device<cuda:0>>
    %alloc_2 = memref.alloc() {alignment = 64 : i64} : memref<3x16x8xbf16, #tide.device<cuda:0>>
    linalg.fill {tide.device = #tide.device<cuda:0>} ins(%cst : bf16) outs(%alloc_2 : memref<3x16x8xbf16, #tide.device<cuda:0>>)
    linalg.generic {indexing_maps = [#map6, #map7, #map8], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%alloc, %alloc_0 : memref<3x16x48xbf16, #tide.device<cuda:0>>, memref<3x48x8xbf16, #tide.device<cuda:0>>) outs(%alloc_2 : memref<3x16x8xbf16, #tide.device<cuda:0>>) attrs =  {tide.device = #tide.device<cuda:0>} {
    ^bb0(%in: bf16, %in_6: bf16, %out: bf16):
      %0 = arith.mulf %in, %in_6 : bf16
      %1 = arith.addf %out, %0 : bf16
      linalg.yield %1 : bf16
    }
    %alloc_3 = memref.alloc() {alignment = 64 : i64} : memref<3x16x8xbf16, #tide.device<cuda:0>>
    linalg.softmax dimension(2) ins(%alloc_2 : memref<3x16x8xbf16, #tide.device<cuda:0>>) outs(%alloc_3 : memref<3x16x8xbf16, #tide.device<cuda:0>>)
    %alloc_4 = memref.alloc() {alignment = 64 : i64} : memref<3x16x48xbf16, #tide.device<cuda:0>>
    linalg.fill {tide.device = #tide.device<cuda:0>} ins(%cst : bf16) outs(%alloc_4 : memref<3x16x48xbf16, #tide.device<cuda:0>>)
    linalg.generic {indexing_maps = [#map6, #map7, #map8], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%alloc_3, %alloc_1 : memref<3x16x8xbf16, #tide.device<cuda:0>>, memref<3x8x48xbf16, #tide.device<cuda:0>>) outs(%alloc_4 : memref<3x16x48xbf16, #tide.device<cuda:0>>) attrs =  {tide.device = #tide.device<cuda:0>} {
    ^bb0(%in: bf16, %in_6: bf16, %out: bf16):
      %0 = arith.mulf %in, %in_6 : bf16
      %1 = arith.addf %out, %0 : bf16
      linalg.yield %1 : bf16
    }
    %alloc_5 = memref.alloc() {alignment = 64 : i64} : memref<3x16x48xbf16>
    memref.copy %alloc_4, %alloc_5 : memref<3x16x48xbf16, #tide.device<cuda:0>> to memref<3x16x48xbf16>
    memref.dealloc %alloc : memref<3x16x48xbf16, #tide.device<cuda:0>>
    memref.dealloc %alloc_0 : memref<3x48x8xbf16, #tide.device<cuda:0>>
    memref.dealloc %alloc_1 : memref<3x8x48xbf16, #tide.device<cuda:0>>
    memref.dealloc %alloc_2 : memref<3x16x8xbf16, #tide.device<cuda:0>>
    memref.dealloc %alloc_3 : memref<3x16x8xbf16, #tide.device<cuda:0>>
    memref.dealloc %alloc_4 : memref<3x16x48xbf16, #tide.device<cuda:0>>
    return %alloc_5 : memref<3x16x48xbf16>
  }
// Not fused: the probabilities are a result.
// CHECK-LABEL: func.func @probabilities_returned(
// CHECK-NOT:     tide_rt_gpu_attention
// CHECK:         return
  func.func @probabilities_returned(%arg0: memref<3x16x64xbf16>, %arg1: memref<3x64x8xbf16>, %arg2: memref<3x8x64xbf16>) -> (memref<3x16x64xbf16>, memref<3x16x8xbf16>) attributes {llvm.emit_c_interface} {
    %cst = arith.constant {tide.device = #tide.device<cuda:0>} 0.000000e+00 : bf16
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<3x16x64xbf16, #tide.device<cuda:0>>
    memref.copy %arg0, %alloc : memref<3x16x64xbf16> to memref<3x16x64xbf16, #tide.device<cuda:0>>
    %alloc_0 = memref.alloc() {alignment = 64 : i64} : memref<3x64x8xbf16, #tide.device<cuda:0>>
    memref.copy %arg1, %alloc_0 : memref<3x64x8xbf16> to memref<3x64x8xbf16, #tide.device<cuda:0>>
    %alloc_1 = memref.alloc() {alignment = 64 : i64} : memref<3x8x64xbf16, #tide.device<cuda:0>>
    memref.copy %arg2, %alloc_1 : memref<3x8x64xbf16> to memref<3x8x64xbf16, #tide.device<cuda:0>>
    %alloc_2 = memref.alloc() {alignment = 64 : i64} : memref<3x16x8xbf16, #tide.device<cuda:0>>
    linalg.fill {tide.device = #tide.device<cuda:0>} ins(%cst : bf16) outs(%alloc_2 : memref<3x16x8xbf16, #tide.device<cuda:0>>)
    linalg.generic {indexing_maps = [#map6, #map7, #map8], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%alloc, %alloc_0 : memref<3x16x64xbf16, #tide.device<cuda:0>>, memref<3x64x8xbf16, #tide.device<cuda:0>>) outs(%alloc_2 : memref<3x16x8xbf16, #tide.device<cuda:0>>) attrs =  {tide.device = #tide.device<cuda:0>} {
    ^bb0(%in: bf16, %in_7: bf16, %out: bf16):
      %0 = arith.mulf %in, %in_7 : bf16
      %1 = arith.addf %out, %0 : bf16
      linalg.yield %1 : bf16
    }
    %alloc_3 = memref.alloc() {alignment = 64 : i64} : memref<3x16x8xbf16, #tide.device<cuda:0>>
    linalg.softmax dimension(2) ins(%alloc_2 : memref<3x16x8xbf16, #tide.device<cuda:0>>) outs(%alloc_3 : memref<3x16x8xbf16, #tide.device<cuda:0>>)
    %alloc_4 = memref.alloc() {alignment = 64 : i64} : memref<3x16x8xbf16>
    memref.copy %alloc_3, %alloc_4 : memref<3x16x8xbf16, #tide.device<cuda:0>> to memref<3x16x8xbf16>
    %alloc_5 = memref.alloc() {alignment = 64 : i64} : memref<3x16x64xbf16, #tide.device<cuda:0>>
    linalg.fill {tide.device = #tide.device<cuda:0>} ins(%cst : bf16) outs(%alloc_5 : memref<3x16x64xbf16, #tide.device<cuda:0>>)
    linalg.generic {indexing_maps = [#map6, #map7, #map8], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%alloc_3, %alloc_1 : memref<3x16x8xbf16, #tide.device<cuda:0>>, memref<3x8x64xbf16, #tide.device<cuda:0>>) outs(%alloc_5 : memref<3x16x64xbf16, #tide.device<cuda:0>>) attrs =  {tide.device = #tide.device<cuda:0>} {
    ^bb0(%in: bf16, %in_7: bf16, %out: bf16):
      %0 = arith.mulf %in, %in_7 : bf16
      %1 = arith.addf %out, %0 : bf16
      linalg.yield %1 : bf16
    }
    %alloc_6 = memref.alloc() {alignment = 64 : i64} : memref<3x16x64xbf16>
    memref.copy %alloc_5, %alloc_6 : memref<3x16x64xbf16, #tide.device<cuda:0>> to memref<3x16x64xbf16>
    memref.dealloc %alloc : memref<3x16x64xbf16, #tide.device<cuda:0>>
    memref.dealloc %alloc_0 : memref<3x64x8xbf16, #tide.device<cuda:0>>
    memref.dealloc %alloc_1 : memref<3x8x64xbf16, #tide.device<cuda:0>>
    memref.dealloc %alloc_2 : memref<3x16x8xbf16, #tide.device<cuda:0>>
    memref.dealloc %alloc_3 : memref<3x16x8xbf16, #tide.device<cuda:0>>
    memref.dealloc %alloc_5 : memref<3x16x64xbf16, #tide.device<cuda:0>>
    return %alloc_6, %alloc_4 : memref<3x16x64xbf16>, memref<3x16x8xbf16>
  }
// Not fused: a step the kernel does not have (tanh).
// CHECK-LABEL: func.func @tanh_step(
// CHECK-NOT:     tide_rt_gpu_attention
// CHECK:         return
  func.func @tanh_step(%arg0: memref<3x16x64xbf16>, %arg1: memref<3x64x8xbf16>, %arg2: memref<3x8x64xbf16>) -> memref<3x16x64xbf16> attributes {llvm.emit_c_interface} {
    %cst = arith.constant {tide.device = #tide.device<cuda:0>} 0.000000e+00 : bf16
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<3x16x64xbf16, #tide.device<cuda:0>>
    memref.copy %arg0, %alloc : memref<3x16x64xbf16> to memref<3x16x64xbf16, #tide.device<cuda:0>>
    %alloc_0 = memref.alloc() {alignment = 64 : i64} : memref<3x64x8xbf16, #tide.device<cuda:0>>
    memref.copy %arg1, %alloc_0 : memref<3x64x8xbf16> to memref<3x64x8xbf16, #tide.device<cuda:0>>
    %alloc_1 = memref.alloc() {alignment = 64 : i64} : memref<3x8x64xbf16, #tide.device<cuda:0>>
    memref.copy %arg2, %alloc_1 : memref<3x8x64xbf16> to memref<3x8x64xbf16, #tide.device<cuda:0>>
    %alloc_2 = memref.alloc() {alignment = 64 : i64} : memref<3x16x8xbf16, #tide.device<cuda:0>>
    linalg.fill {tide.device = #tide.device<cuda:0>} ins(%cst : bf16) outs(%alloc_2 : memref<3x16x8xbf16, #tide.device<cuda:0>>)
    linalg.generic {indexing_maps = [#map6, #map7, #map8], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%alloc, %alloc_0 : memref<3x16x64xbf16, #tide.device<cuda:0>>, memref<3x64x8xbf16, #tide.device<cuda:0>>) outs(%alloc_2 : memref<3x16x8xbf16, #tide.device<cuda:0>>) attrs =  {tide.device = #tide.device<cuda:0>} {
    ^bb0(%in: bf16, %in_7: bf16, %out: bf16):
      %0 = arith.mulf %in, %in_7 : bf16
      %1 = arith.addf %out, %0 : bf16
      linalg.yield %1 : bf16
    }
    %alloc_3 = memref.alloc() {alignment = 64 : i64} : memref<3x16x8xbf16, #tide.device<cuda:0>>
    linalg.generic {indexing_maps = [#map9, #map9], iterator_types = ["parallel", "parallel", "parallel"]} ins(%alloc_2 : memref<3x16x8xbf16, #tide.device<cuda:0>>) outs(%alloc_3 : memref<3x16x8xbf16, #tide.device<cuda:0>>) attrs =  {tide.device = #tide.device<cuda:0>} {
    ^bb0(%in: bf16, %out: bf16):
      %0 = arith.extf %in : bf16 to f32
      %1 = math.tanh %0 : f32
      %2 = arith.truncf %1 : f32 to bf16
      linalg.yield %2 : bf16
    }
    %alloc_4 = memref.alloc() {alignment = 64 : i64} : memref<3x16x8xbf16, #tide.device<cuda:0>>
    linalg.softmax dimension(2) ins(%alloc_3 : memref<3x16x8xbf16, #tide.device<cuda:0>>) outs(%alloc_4 : memref<3x16x8xbf16, #tide.device<cuda:0>>)
    %alloc_5 = memref.alloc() {alignment = 64 : i64} : memref<3x16x64xbf16, #tide.device<cuda:0>>
    linalg.fill {tide.device = #tide.device<cuda:0>} ins(%cst : bf16) outs(%alloc_5 : memref<3x16x64xbf16, #tide.device<cuda:0>>)
    linalg.generic {indexing_maps = [#map6, #map7, #map8], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%alloc_4, %alloc_1 : memref<3x16x8xbf16, #tide.device<cuda:0>>, memref<3x8x64xbf16, #tide.device<cuda:0>>) outs(%alloc_5 : memref<3x16x64xbf16, #tide.device<cuda:0>>) attrs =  {tide.device = #tide.device<cuda:0>} {
    ^bb0(%in: bf16, %in_7: bf16, %out: bf16):
      %0 = arith.mulf %in, %in_7 : bf16
      %1 = arith.addf %out, %0 : bf16
      linalg.yield %1 : bf16
    }
    %alloc_6 = memref.alloc() {alignment = 64 : i64} : memref<3x16x64xbf16>
    memref.copy %alloc_5, %alloc_6 : memref<3x16x64xbf16, #tide.device<cuda:0>> to memref<3x16x64xbf16>
    memref.dealloc %alloc : memref<3x16x64xbf16, #tide.device<cuda:0>>
    memref.dealloc %alloc_0 : memref<3x64x8xbf16, #tide.device<cuda:0>>
    memref.dealloc %alloc_1 : memref<3x8x64xbf16, #tide.device<cuda:0>>
    memref.dealloc %alloc_2 : memref<3x16x8xbf16, #tide.device<cuda:0>>
    memref.dealloc %alloc_3 : memref<3x16x8xbf16, #tide.device<cuda:0>>
    memref.dealloc %alloc_4 : memref<3x16x8xbf16, #tide.device<cuda:0>>
    memref.dealloc %alloc_5 : memref<3x16x64xbf16, #tide.device<cuda:0>>
    return %alloc_6 : memref<3x16x64xbf16>
  }
// The output transposed back from heads ([b, h, s, d] -> [b, s, h, d]): the
// call writes the result through a transposed view, and no copy kernel runs
// after it.
// CHECK-LABEL: func.func @heads_back(
// CHECK:         %[[VIEW:.*]] = memref.transpose %{{.*}} (d0, d1, d2, d3) -> (d0, d2, d1, d3) : memref<2x16x4x32xbf16, #tide.device<cuda:0>> to memref<2x4x16x32xbf16, strided<[2048, 32, 128, 1]>, #tide.device<cuda:0>>
// CHECK:         %[[OUT:.*]] = memref.cast %[[VIEW]]
// CHECK:         call @tide_rt_gpu_attention_bf16(%{{.*}}, %{{.*}}, %{{.*}}, %[[OUT]],
// CHECK-NOT:     gpu.launch
// CHECK:         return
  func.func @heads_back(%arg0: memref<2x16x4x32xbf16>, %arg1: memref<2x4x32x16xbf16>, %arg2: memref<2x4x16x32xbf16>) -> memref<2x16x4x32xbf16> attributes {llvm.emit_c_interface} {
    %cst = arith.constant {tide.device = #tide.device<cuda:0>} 0.000000e+00 : bf16
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<2x16x4x32xbf16, #tide.device<cuda:0>>
    memref.copy %arg0, %alloc : memref<2x16x4x32xbf16> to memref<2x16x4x32xbf16, #tide.device<cuda:0>>
    %alloc_0 = memref.alloc() {alignment = 64 : i64} : memref<2x4x32x16xbf16, #tide.device<cuda:0>>
    memref.copy %arg1, %alloc_0 : memref<2x4x32x16xbf16> to memref<2x4x32x16xbf16, #tide.device<cuda:0>>
    %alloc_1 = memref.alloc() {alignment = 64 : i64} : memref<2x4x16x32xbf16, #tide.device<cuda:0>>
    memref.copy %arg2, %alloc_1 : memref<2x4x16x32xbf16> to memref<2x4x16x32xbf16, #tide.device<cuda:0>>
    %alloc_2 = memref.alloc() {alignment = 64 : i64} : memref<2x4x16x32xbf16, #tide.device<cuda:0>>
    linalg.generic {indexing_maps = [#map10, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%alloc : memref<2x16x4x32xbf16, #tide.device<cuda:0>>) outs(%alloc_2 : memref<2x4x16x32xbf16, #tide.device<cuda:0>>) attrs =  {tide.device = #tide.device<cuda:0>} {
    ^bb0(%in: bf16, %out: bf16):
      linalg.yield %in : bf16
    }
    %alloc_3 = memref.alloc() {alignment = 64 : i64} : memref<2x4x16x16xbf16, #tide.device<cuda:0>>
    linalg.fill {tide.device = #tide.device<cuda:0>} ins(%cst : bf16) outs(%alloc_3 : memref<2x4x16x16xbf16, #tide.device<cuda:0>>)
    linalg.generic {indexing_maps = [#map2, #map3, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%alloc_2, %alloc_0 : memref<2x4x16x32xbf16, #tide.device<cuda:0>>, memref<2x4x32x16xbf16, #tide.device<cuda:0>>) outs(%alloc_3 : memref<2x4x16x16xbf16, #tide.device<cuda:0>>) attrs =  {tide.device = #tide.device<cuda:0>} {
    ^bb0(%in: bf16, %in_8: bf16, %out: bf16):
      %0 = arith.mulf %in, %in_8 : bf16
      %1 = arith.addf %out, %0 : bf16
      linalg.yield %1 : bf16
    }
    %alloc_4 = memref.alloc() {alignment = 64 : i64} : memref<2x4x16x16xbf16, #tide.device<cuda:0>>
    linalg.softmax dimension(3) ins(%alloc_3 : memref<2x4x16x16xbf16, #tide.device<cuda:0>>) outs(%alloc_4 : memref<2x4x16x16xbf16, #tide.device<cuda:0>>)
    %alloc_5 = memref.alloc() {alignment = 64 : i64} : memref<2x4x16x32xbf16, #tide.device<cuda:0>>
    linalg.fill {tide.device = #tide.device<cuda:0>} ins(%cst : bf16) outs(%alloc_5 : memref<2x4x16x32xbf16, #tide.device<cuda:0>>)
    linalg.generic {indexing_maps = [#map2, #map3, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%alloc_4, %alloc_1 : memref<2x4x16x16xbf16, #tide.device<cuda:0>>, memref<2x4x16x32xbf16, #tide.device<cuda:0>>) outs(%alloc_5 : memref<2x4x16x32xbf16, #tide.device<cuda:0>>) attrs =  {tide.device = #tide.device<cuda:0>} {
    ^bb0(%in: bf16, %in_8: bf16, %out: bf16):
      %0 = arith.mulf %in, %in_8 : bf16
      %1 = arith.addf %out, %0 : bf16
      linalg.yield %1 : bf16
    }
    %alloc_6 = memref.alloc() {alignment = 64 : i64} : memref<2x16x4x32xbf16, #tide.device<cuda:0>>
    linalg.generic {indexing_maps = [#map10, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%alloc_5 : memref<2x4x16x32xbf16, #tide.device<cuda:0>>) outs(%alloc_6 : memref<2x16x4x32xbf16, #tide.device<cuda:0>>) attrs =  {tide.device = #tide.device<cuda:0>} {
    ^bb0(%in: bf16, %out: bf16):
      linalg.yield %in : bf16
    }
    %alloc_7 = memref.alloc() {alignment = 64 : i64} : memref<2x16x4x32xbf16>
    memref.copy %alloc_6, %alloc_7 : memref<2x16x4x32xbf16, #tide.device<cuda:0>> to memref<2x16x4x32xbf16>
    memref.dealloc %alloc : memref<2x16x4x32xbf16, #tide.device<cuda:0>>
    memref.dealloc %alloc_0 : memref<2x4x32x16xbf16, #tide.device<cuda:0>>
    memref.dealloc %alloc_1 : memref<2x4x16x32xbf16, #tide.device<cuda:0>>
    memref.dealloc %alloc_2 : memref<2x4x16x32xbf16, #tide.device<cuda:0>>
    memref.dealloc %alloc_3 : memref<2x4x16x16xbf16, #tide.device<cuda:0>>
    memref.dealloc %alloc_4 : memref<2x4x16x16xbf16, #tide.device<cuda:0>>
    memref.dealloc %alloc_5 : memref<2x4x16x32xbf16, #tide.device<cuda:0>>
    memref.dealloc %alloc_6 : memref<2x16x4x32xbf16, #tide.device<cuda:0>>
    return %alloc_7 : memref<2x16x4x32xbf16>
  }
// Not fused: more keys than the one-pass kernel holds (its streaming form
// is slower than the separate ops).
// CHECK-LABEL: func.func @keys_200(
// CHECK-NOT:     tide_rt_gpu_attention
// CHECK:         return
  func.func @keys_200(%arg0: memref<3x16x64xbf16>, %arg1: memref<3x64x200xbf16>, %arg2: memref<3x200x64xbf16>) -> memref<3x16x64xbf16> attributes {llvm.emit_c_interface} {
    %cst = arith.constant {tide.device = #tide.device<cuda:0>} 0.000000e+00 : bf16
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<3x16x64xbf16, #tide.device<cuda:0>>
    memref.copy %arg0, %alloc : memref<3x16x64xbf16> to memref<3x16x64xbf16, #tide.device<cuda:0>>
    %alloc_0 = memref.alloc() {alignment = 64 : i64} : memref<3x64x200xbf16, #tide.device<cuda:0>>
    memref.copy %arg1, %alloc_0 : memref<3x64x200xbf16> to memref<3x64x200xbf16, #tide.device<cuda:0>>
    %alloc_1 = memref.alloc() {alignment = 64 : i64} : memref<3x200x64xbf16, #tide.device<cuda:0>>
    memref.copy %arg2, %alloc_1 : memref<3x200x64xbf16> to memref<3x200x64xbf16, #tide.device<cuda:0>>
    %alloc_2 = memref.alloc() {alignment = 64 : i64} : memref<3x16x200xbf16, #tide.device<cuda:0>>
    linalg.fill {tide.device = #tide.device<cuda:0>} ins(%cst : bf16) outs(%alloc_2 : memref<3x16x200xbf16, #tide.device<cuda:0>>)
    linalg.generic {indexing_maps = [#map6, #map7, #map8], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%alloc, %alloc_0 : memref<3x16x64xbf16, #tide.device<cuda:0>>, memref<3x64x200xbf16, #tide.device<cuda:0>>) outs(%alloc_2 : memref<3x16x200xbf16, #tide.device<cuda:0>>) attrs =  {tide.device = #tide.device<cuda:0>} {
    ^bb0(%in: bf16, %in_6: bf16, %out: bf16):
      %0 = arith.mulf %in, %in_6 : bf16
      %1 = arith.addf %out, %0 : bf16
      linalg.yield %1 : bf16
    }
    %alloc_3 = memref.alloc() {alignment = 64 : i64} : memref<3x16x200xbf16, #tide.device<cuda:0>>
    linalg.softmax dimension(2) ins(%alloc_2 : memref<3x16x200xbf16, #tide.device<cuda:0>>) outs(%alloc_3 : memref<3x16x200xbf16, #tide.device<cuda:0>>)
    %alloc_4 = memref.alloc() {alignment = 64 : i64} : memref<3x16x64xbf16, #tide.device<cuda:0>>
    linalg.fill {tide.device = #tide.device<cuda:0>} ins(%cst : bf16) outs(%alloc_4 : memref<3x16x64xbf16, #tide.device<cuda:0>>)
    linalg.generic {indexing_maps = [#map6, #map7, #map8], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%alloc_3, %alloc_1 : memref<3x16x200xbf16, #tide.device<cuda:0>>, memref<3x200x64xbf16, #tide.device<cuda:0>>) outs(%alloc_4 : memref<3x16x64xbf16, #tide.device<cuda:0>>) attrs =  {tide.device = #tide.device<cuda:0>} {
    ^bb0(%in: bf16, %in_6: bf16, %out: bf16):
      %0 = arith.mulf %in, %in_6 : bf16
      %1 = arith.addf %out, %0 : bf16
      linalg.yield %1 : bf16
    }
    %alloc_5 = memref.alloc() {alignment = 64 : i64} : memref<3x16x64xbf16>
    memref.copy %alloc_4, %alloc_5 : memref<3x16x64xbf16, #tide.device<cuda:0>> to memref<3x16x64xbf16>
    memref.dealloc %alloc : memref<3x16x64xbf16, #tide.device<cuda:0>>
    memref.dealloc %alloc_0 : memref<3x64x200xbf16, #tide.device<cuda:0>>
    memref.dealloc %alloc_1 : memref<3x200x64xbf16, #tide.device<cuda:0>>
    memref.dealloc %alloc_2 : memref<3x16x200xbf16, #tide.device<cuda:0>>
    memref.dealloc %alloc_3 : memref<3x16x200xbf16, #tide.device<cuda:0>>
    memref.dealloc %alloc_4 : memref<3x16x64xbf16, #tide.device<cuda:0>>
    return %alloc_5 : memref<3x16x64xbf16>
  }
  llvm.mlir.global external constant @tide_module_metadata("tide-module 1\0Afunc bert 4 1\0Aarg 0 bf16 1x2x16x32 cpu\0Aarg 1 bf16 1x2x16x32 cpu\0Aarg 2 bf16 1x2x16x32 cpu\0Aarg 3 bf16 1x1x1x16 cpu\0Aresult 0 bf16 1x2x16x32 cpu\0Afunc plain_f16 3 1\0Aarg 0 f16 3x16x64 cpu\0Aarg 1 f16 3x64x8 cpu\0Aarg 2 f16 3x8x64 cpu\0Aresult 0 f16 3x16x64 cpu\0Afunc f32 3 1\0Aarg 0 f32 3x16x64 cpu\0Aarg 1 f32 3x64x8 cpu\0Aarg 2 f32 3x8x64 cpu\0Aresult 0 f32 3x16x64 cpu\0Afunc head_dim_48 3 1\0Aarg 0 bf16 3x16x48 cpu\0Aarg 1 bf16 3x48x8 cpu\0Aarg 2 bf16 3x8x48 cpu\0Aresult 0 bf16 3x16x48 cpu\0Afunc probabilities_returned 3 2\0Aarg 0 bf16 3x16x64 cpu\0Aarg 1 bf16 3x64x8 cpu\0Aarg 2 bf16 3x8x64 cpu\0Aresult 0 bf16 3x16x64 cpu\0Aresult 1 bf16 3x16x8 cpu\0Afunc tanh_step 3 1\0Aarg 0 bf16 3x16x64 cpu\0Aarg 1 bf16 3x64x8 cpu\0Aarg 2 bf16 3x8x64 cpu\0Aresult 0 bf16 3x16x64 cpu\0Afunc heads_back 3 1\0Aarg 0 bf16 2x16x4x32 cpu\0Aarg 1 bf16 2x4x32x16 cpu\0Aarg 2 bf16 2x4x16x32 cpu\0Aresult 0 bf16 2x16x4x32 cpu\0Afunc keys_200 3 1\0Aarg 0 bf16 3x16x64 cpu\0Aarg 1 bf16 3x64x200 cpu\0Aarg 2 bf16 3x200x64 cpu\0Aresult 0 bf16 3x16x64 cpu\0A\00") {addr_space = 0 : i32}
}


