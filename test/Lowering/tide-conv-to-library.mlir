// Tests of tide-conv-to-library: the named linalg convolutions that
// convert-tide-to-linalg marks with tide.conv_pads (f32, on the host) become
// calls of tide_rt_cpu_conv_f32 (oneDNN) on unranked views: x, w, y, then
// groups, accumulate, constant weights, threads, pads before (3), pads after
// (3), strides (3), dilations (3).

// RUN: tide-opt %s --tide-conv-to-library=threads=2 --cse | FileCheck %s

// CHECK: func.func private @tide_rt_cpu_conv_f32(memref<*xf32>, memref<*xf32>, memref<*xf32>, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)
memref.global "private" constant @w : memref<8x4x3x3xf32> = dense<0.5>

// A padded input (zero fill, the real input copied into the interior) and a
// zero-filled output: the library reads the real input with pads (1, 2)
// before and (1, 0) after, overwrites the output (accumulate = 0), and the
// weights are a constant global (constant = 1). The padded copy is erased.
// CHECK-LABEL: func.func @padded(
// CHECK-SAME: %[[X:.*]]: memref<1x4x8x8xf32>)
// CHECK-NOT: linalg.fill
// CHECK-NOT: memref.copy
// CHECK-DAG: %[[W:.*]] = memref.get_global @w
// CHECK-DAG: %[[Y:.*]] = memref.alloc() {{.*}} : memref<1x8x8x7xf32>
// CHECK-DAG: %[[XU:.*]] = memref.cast %[[X]] : memref<1x4x8x8xf32> to memref<*xf32>
// CHECK-DAG: %[[WU:.*]] = memref.cast %[[W]] : memref<8x4x3x3xf32> to memref<*xf32>
// CHECK-DAG: %[[YU:.*]] = memref.cast %[[Y]] : memref<1x8x8x7xf32> to memref<*xf32>
// CHECK: call @tide_rt_cpu_conv_f32(%[[XU]], %[[WU]], %[[YU]], %c1_i64, %c0_i64, %c1_i64{{.*}}, %c2_i64, %c1_i64{{.*}}, %c2_i64{{.*}}, %c0_i64{{.*}}, %c1_i64{{.*}}, %c0_i64{{.*}}, %c0_i64{{.*}}, %c1_i64{{.*}}, %c1_i64{{.*}}, %c1_i64{{.*}}, %c1_i64{{.*}}, %c1_i64{{.*}}, %c1_i64{{.*}})
// CHECK-NOT: linalg.conv
// CHECK: return %[[Y]]
func.func @padded(%x: memref<1x4x8x8xf32>) -> memref<1x8x8x7xf32> {
  %zero = arith.constant 0.0 : f32
  %w = memref.get_global @w : memref<8x4x3x3xf32>
  %p = memref.alloc() {alignment = 64 : i64} : memref<1x4x10x10xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<1x4x10x10xf32>)
  %interior = memref.subview %p[0, 0, 1, 2] [1, 4, 8, 8] [1, 1, 1, 1] : memref<1x4x10x10xf32> to memref<1x4x8x8xf32, strided<[400, 100, 10, 1], offset: 12>>
  memref.copy %x, %interior : memref<1x4x8x8xf32> to memref<1x4x8x8xf32, strided<[400, 100, 10, 1], offset: 12>>
  %y = memref.alloc() {alignment = 64 : i64} : memref<1x8x8x7xf32>
  linalg.fill ins(%zero : f32) outs(%y : memref<1x8x8x7xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tide.conv_pads = array<i64: 1, 2, 1, 0>} ins(%p, %w : memref<1x4x10x10xf32>, memref<8x4x3x3xf32>) outs(%y : memref<1x8x8x7xf32>)
  memref.dealloc %p : memref<1x4x10x10xf32>
  return %y : memref<1x8x8x7xf32>
}

// Weights that are an argument (constant = 0); an output that is not zero
// (accumulate = 1); strides and dilations passed on.
// CHECK-LABEL: func.func @accumulate(
// CHECK-SAME: %[[X:.*]]: memref<2x4x9x9xf32>, %[[W:.*]]: memref<8x4x3x3xf32>, %[[Y:.*]]: memref<2x8x3x3xf32>)
// CHECK-DAG: %[[XU:.*]] = memref.cast %[[X]]
// CHECK-DAG: %[[WU:.*]] = memref.cast %[[W]]
// CHECK-DAG: %[[YU:.*]] = memref.cast %[[Y]]
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : i64
// CHECK: call @tide_rt_cpu_conv_f32(%[[XU]], %[[WU]], %[[YU]], %[[C1]], %[[C1]], %[[C0]], %[[C2]], %[[C0]], %[[C0]], %[[C0]], %[[C0]], %[[C0]], %[[C0]], %[[C3]], %[[C2]], %[[C1]], %[[C1]], %[[C2]], %[[C1]])
func.func @accumulate(%x: memref<2x4x9x9xf32>, %w: memref<8x4x3x3xf32>, %y: memref<2x8x3x3xf32>) {
  linalg.conv_2d_nchw_fchw {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<[3, 2]> : tensor<2xi64>, tide.conv_pads = array<i64: 0, 0, 0, 0>} ins(%x, %w : memref<2x4x9x9xf32>, memref<8x4x3x3xf32>) outs(%y : memref<2x8x3x3xf32>)
  return
}

// Grouped: the ungrouped buffers (the expand_shapes' sources) and the group
// count; the output is collapsed back to (N, F, H, W). The output is a copy
// of a zero buffer shared with other ops: the copy is erased.
// CHECK-LABEL: func.func @grouped(
// CHECK-SAME: %[[X:.*]]: memref<1x4x6x6xf32>, %[[W:.*]]: memref<4x2x3x3xf32>)
// CHECK: %[[ZEROS:.*]] = memref.alloc() : memref<1x2x2x4x4xf32>
// CHECK: linalg.fill {{.*}} outs(%[[ZEROS]]
// CHECK: %[[Y:.*]] = memref.alloc() : memref<1x2x2x4x4xf32>
// CHECK-NOT: memref.copy
// CHECK: %[[YC:.*]] = memref.collapse_shape %[[Y]] {{\[\[}}0], [1, 2], [3], [4]]
// CHECK-DAG: %[[XU:.*]] = memref.cast %[[X]] : memref<1x4x6x6xf32> to memref<*xf32>
// CHECK-DAG: %[[WU:.*]] = memref.cast %[[W]] : memref<4x2x3x3xf32> to memref<*xf32>
// CHECK-DAG: %[[YU:.*]] = memref.cast %[[YC]] : memref<1x4x4x4xf32> to memref<*xf32>
// CHECK: call @tide_rt_cpu_conv_f32(%[[XU]], %[[WU]], %[[YU]], %c2_i64, %c0_i64
func.func @grouped(%x: memref<1x4x6x6xf32>, %w: memref<4x2x3x3xf32>) -> memref<1x2x2x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %zeros = memref.alloc() : memref<1x2x2x4x4xf32>
  linalg.fill ins(%zero : f32) outs(%zeros : memref<1x2x2x4x4xf32>)
  %y = memref.alloc() : memref<1x2x2x4x4xf32>
  %xg = memref.expand_shape %x [[0], [1, 2], [3], [4]] output_shape [1, 2, 2, 6, 6] : memref<1x4x6x6xf32> into memref<1x2x2x6x6xf32>
  %wg = memref.expand_shape %w [[0, 1], [2], [3], [4]] output_shape [2, 2, 2, 3, 3] : memref<4x2x3x3xf32> into memref<2x2x2x3x3xf32>
  memref.copy %zeros, %y : memref<1x2x2x4x4xf32> to memref<1x2x2x4x4xf32>
  linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tide.conv_pads = array<i64: 0, 0, 0, 0>} ins(%xg, %wg : memref<1x2x2x6x6xf32>, memref<2x2x2x3x3xf32>) outs(%y : memref<1x2x2x4x4xf32>)
  memref.dealloc %zeros : memref<1x2x2x4x4xf32>
  return %y : memref<1x2x2x4x4xf32>
}

// negative_ Without tide.conv_pads (not convert-tide-to-linalg's), or f64:
// left alone.
// CHECK-LABEL: func.func @negative_unmarked(
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK-NOT: call
func.func @negative_unmarked(%x: memref<1x4x6x6xf32>, %w: memref<8x4x3x3xf32>, %y: memref<1x8x4x4xf32>,
                             %xd: memref<1x4x6x6xf64>, %wd: memref<8x4x3x3xf64>, %yd: memref<1x8x4x4xf64>) {
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : memref<1x4x6x6xf32>, memref<8x4x3x3xf32>) outs(%y : memref<1x8x4x4xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tide.conv_pads = array<i64: 0, 0, 0, 0>} ins(%xd, %wd : memref<1x4x6x6xf64>, memref<8x4x3x3xf64>) outs(%yd : memref<1x8x4x4xf64>)
  return
}
