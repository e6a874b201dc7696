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

// Fused epilogues: the elementwise consumer right after a convolution that
// computes relu?((y + bias[f]) + residual) becomes part of the call
// (tide_rt_cpu_conv_epilogue_f32: bias, residual, then the flags, bias 1,
// residual 2, ReLU 4), which takes the consumer's place and writes its output.

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>

// Bias and ReLU in place (the consumer writes the convolution's own buffer).
// CHECK-LABEL: func.func @bias_relu_in_place(
// CHECK-SAME: %[[X:.*]]: memref<1x4x8x8xf32>, %[[B:.*]]: memref<4x1x1xf32>)
// CHECK: %[[Y:.*]] = memref.alloc() {{.*}} : memref<1x4x8x8xf32>
// CHECK-DAG: %[[YU:.*]] = memref.cast %[[Y]] : memref<1x4x8x8xf32> to memref<*xf32>
// CHECK-DAG: %[[BU:.*]] = memref.cast %[[B]] : memref<4x1x1xf32> to memref<*xf32>
// CHECK-DAG: %[[C5:.*]] = arith.constant 5 : i64
// CHECK: call @tide_rt_cpu_conv_epilogue_f32({{.*}}, %[[YU]], {{.*}}, %[[BU]], %[[YU]], %[[C5]])
// CHECK-NOT: linalg.generic
// CHECK: return %[[Y]]
func.func @bias_relu_in_place(%x: memref<1x4x8x8xf32>, %b: memref<4x1x1xf32>) -> memref<1x4x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %w = memref.get_global @w4 : memref<4x4x1x1xf32>
  %y = memref.alloc() {alignment = 64 : i64} : memref<1x4x8x8xf32>
  linalg.fill ins(%zero : f32) outs(%y : memref<1x4x8x8xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tide.conv_pads = array<i64: 0, 0, 0, 0>} ins(%x, %w : memref<1x4x8x8xf32>, memref<4x4x1x1xf32>) outs(%y : memref<1x4x8x8xf32>)
  linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%y, %b : memref<1x4x8x8xf32>, memref<4x1x1xf32>) outs(%y : memref<1x4x8x8xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %0 = arith.addf %in, %in_1 : f32
    %1 = arith.maximumf %0, %zero : f32
    linalg.yield %1 : f32
  }
  return %y : memref<1x4x8x8xf32>
}
memref.global "private" constant @w4 : memref<4x4x1x1xf32> = dense<0.5>

// A residual block: bias, residual and ReLU written over the input (whose
// buffer bufferization reused; the runtime reads a copy), past the padded
// copy's deallocation; the convolution's own buffer and its dead fill go.
// CHECK-LABEL: func.func @residual_into_input(
// CHECK-SAME: %[[X:.*]]: memref<1x4x8x8xf32>, %[[B:.*]]: memref<4x1x1xf32>, %[[R:.*]]: memref<1x4x8x8xf32>)
// CHECK-NOT: memref.alloc
// CHECK-NOT: linalg.fill
// CHECK-DAG: %[[XU:.*]] = memref.cast %[[X]] : memref<1x4x8x8xf32> to memref<*xf32>
// CHECK-DAG: %[[BU:.*]] = memref.cast %[[B]]
// CHECK-DAG: %[[RU:.*]] = memref.cast %[[R]]
// CHECK-DAG: %[[C7:.*]] = arith.constant 7 : i64
// CHECK: call @tide_rt_cpu_conv_epilogue_f32(%[[XU]], %{{.*}}, %[[XU]], {{.*}}, %[[BU]], %[[RU]], %[[C7]])
// CHECK-NOT: linalg.generic
// CHECK-NOT: memref.dealloc
// CHECK: return %[[X]]
func.func @residual_into_input(%x: memref<1x4x8x8xf32>, %b: memref<4x1x1xf32>, %r: memref<1x4x8x8xf32>) -> memref<1x4x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %w = memref.get_global @w : memref<8x4x3x3xf32>
  %wv = memref.subview %w[0, 0, 0, 0] [4, 4, 3, 3] [1, 1, 1, 1] : memref<8x4x3x3xf32> to memref<4x4x3x3xf32, strided<[36, 9, 3, 1]>>
  %y = memref.alloc() {alignment = 64 : i64} : memref<1x4x8x8xf32>
  linalg.fill ins(%zero : f32) outs(%y : memref<1x4x8x8xf32>)
  %p = memref.alloc() {alignment = 64 : i64} : memref<1x4x10x10xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<1x4x10x10xf32>)
  %interior = memref.subview %p[0, 0, 1, 1] [1, 4, 8, 8] [1, 1, 1, 1] : memref<1x4x10x10xf32> to memref<1x4x8x8xf32, strided<[400, 100, 10, 1], offset: 11>>
  memref.copy %x, %interior : memref<1x4x8x8xf32> to memref<1x4x8x8xf32, strided<[400, 100, 10, 1], offset: 11>>
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tide.conv_pads = array<i64: 1, 1, 1, 1>} ins(%p, %wv : memref<1x4x10x10xf32>, memref<4x4x3x3xf32, strided<[36, 9, 3, 1]>>) outs(%y : memref<1x4x8x8xf32>)
  memref.dealloc %p : memref<1x4x10x10xf32>
  linalg.generic {indexing_maps = [#id, #ch, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%y, %b, %r : memref<1x4x8x8xf32>, memref<4x1x1xf32>, memref<1x4x8x8xf32>) outs(%x : memref<1x4x8x8xf32>) {
  ^bb0(%in: f32, %in_1: f32, %in_2: f32, %out: f32):
    %0 = arith.addf %in, %in_1 : f32
    %1 = arith.addf %in_2, %0 : f32
    %2 = arith.maximumf %1, %zero : f32
    linalg.yield %2 : f32
  }
  memref.dealloc %y : memref<1x4x8x8xf32>
  return %x : memref<1x4x8x8xf32>
}

// Not fused: the convolution's result is read again after the consumer; the
// residual added before the bias (another rounding order); a consumer that
// is not elementwise on it.
// CHECK-LABEL: func.func @not_fused(
// CHECK-NOT: call @tide_rt_cpu_conv_epilogue_f32
// CHECK: call @tide_rt_cpu_conv_f32(
// CHECK-NEXT: linalg.generic
// CHECK-NOT: call @tide_rt_cpu_conv_epilogue_f32
// CHECK: call @tide_rt_cpu_conv_f32(
// CHECK-NEXT: linalg.generic
// CHECK-NOT: call @tide_rt_cpu_conv_epilogue_f32
// CHECK: call @tide_rt_cpu_conv_f32(
// CHECK-NEXT: linalg.generic
func.func @not_fused(%x: memref<1x4x8x8xf32>, %b: memref<4x1x1xf32>, %r: memref<1x4x8x8xf32>, %o: memref<1x4x8x8xf32>, %o2: memref<1x4x8x8xf32>, %s: memref<1x4x1x1xf32>) -> memref<1x4x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %w = memref.get_global @w4 : memref<4x4x1x1xf32>
  %y = memref.alloc() {alignment = 64 : i64} : memref<1x4x8x8xf32>
  linalg.fill ins(%zero : f32) outs(%y : memref<1x4x8x8xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tide.conv_pads = array<i64: 0, 0, 0, 0>} ins(%x, %w : memref<1x4x8x8xf32>, memref<4x4x1x1xf32>) outs(%y : memref<1x4x8x8xf32>)
  linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%y, %b : memref<1x4x8x8xf32>, memref<4x1x1xf32>) outs(%o : memref<1x4x8x8xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %0 = arith.addf %in, %in_1 : f32
    linalg.yield %0 : f32
  }
  %y2 = memref.alloc() {alignment = 64 : i64} : memref<1x4x8x8xf32>
  linalg.fill ins(%zero : f32) outs(%y2 : memref<1x4x8x8xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tide.conv_pads = array<i64: 0, 0, 0, 0>} ins(%y, %w : memref<1x4x8x8xf32>, memref<4x4x1x1xf32>) outs(%y2 : memref<1x4x8x8xf32>)
  linalg.generic {indexing_maps = [#id, #ch, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%y2, %b, %r : memref<1x4x8x8xf32>, memref<4x1x1xf32>, memref<1x4x8x8xf32>) outs(%o2 : memref<1x4x8x8xf32>) {
  ^bb0(%in: f32, %in_1: f32, %in_2: f32, %out: f32):
    %0 = arith.addf %in, %in_2 : f32
    %1 = arith.addf %0, %in_1 : f32
    linalg.yield %1 : f32
  }
  %y3 = memref.alloc() {alignment = 64 : i64} : memref<1x4x8x8xf32>
  linalg.fill ins(%zero : f32) outs(%y3 : memref<1x4x8x8xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tide.conv_pads = array<i64: 0, 0, 0, 0>} ins(%y2, %w : memref<1x4x8x8xf32>, memref<4x4x1x1xf32>) outs(%y3 : memref<1x4x8x8xf32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%y3 : memref<1x4x8x8xf32>) outs(%y : memref<1x4x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.mulf %in, %in : f32
    linalg.yield %0 : f32
  }
  return %y : memref<1x4x8x8xf32>
}

// Channels-last (tide-channels-last's host rewrite): linalg.conv_2d_nhwc_fhwc
// on NHWC activations. The runtime gets NCHW views of them (memref.transpose,
// no copy); FHWC weights that are a transpose of a constant's FCHW ones are
// read from the constant itself (the transpose and its buffer go); the
// padded copy goes; a bias read at the last (channel) dimension of a
// (1, 1, 1, F) buffer is passed as a 1-D view of its F elements.
#nid = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#nch = affine_map<(d0, d1, d2, d3) -> (0, 0, 0, d3)>
memref.global "private" constant @wc : memref<8x4x3x3xf32> = dense<0.5>

// CHECK-LABEL: func.func @nhwc(
// CHECK-SAME: %[[X:.*]]: memref<1x8x8x4xf32>, %[[B:.*]]: memref<1x1x1x8xf32>)
// CHECK-NOT: linalg.transpose
// CHECK-NOT: memref.copy
// CHECK-DAG: %[[W:.*]] = memref.get_global @wc : memref<8x4x3x3xf32>
// CHECK-DAG: %[[Y:.*]] = memref.alloc() {{.*}} : memref<1x8x8x8xf32>
// CHECK-DAG: %[[XT:.*]] = memref.transpose %[[X]] (d0, d1, d2, d3) -> (d0, d3, d1, d2)
// CHECK-DAG: %[[YT:.*]] = memref.transpose %[[Y]] (d0, d1, d2, d3) -> (d0, d3, d1, d2)
// CHECK-DAG: %[[BV:.*]] = memref.subview %[[B]][0, 0, 0, 0] [1, 1, 1, 8] [1, 1, 1, 1] : memref<1x1x1x8xf32> to memref<8xf32, strided<[1]>>
// CHECK-DAG: %[[XU:.*]] = memref.cast %[[XT]] : {{.*}} to memref<*xf32>
// CHECK-DAG: %[[WU:.*]] = memref.cast %[[W]] : memref<8x4x3x3xf32> to memref<*xf32>
// CHECK-DAG: %[[YU:.*]] = memref.cast %[[YT]] : {{.*}} to memref<*xf32>
// CHECK-DAG: %[[BU:.*]] = memref.cast %[[BV]] : {{.*}} to memref<*xf32>
// CHECK-DAG: %[[C5:.*]] = arith.constant 5 : i64
// CHECK: call @tide_rt_cpu_conv_epilogue_f32(%[[XU]], %[[WU]], %[[YU]], %c1_i64, %c0_i64, %c1_i64, {{.*}}, %[[BU]], %[[YU]], %[[C5]])
// CHECK-NOT: linalg.conv
// CHECK-NOT: linalg.generic
// CHECK: return %[[Y]]
func.func @nhwc(%x: memref<1x8x8x4xf32>, %b: memref<1x1x1x8xf32>) -> memref<1x8x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %wg = memref.get_global @wc : memref<8x4x3x3xf32>
  %wt = memref.alloc() {alignment = 64 : i64} : memref<8x3x3x4xf32>
  linalg.transpose ins(%wg : memref<8x4x3x3xf32>) outs(%wt : memref<8x3x3x4xf32>) permutation = [0, 2, 3, 1]
  %p = memref.alloc() {alignment = 64 : i64} : memref<1x10x10x4xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<1x10x10x4xf32>)
  %interior = memref.subview %p[0, 1, 1, 0] [1, 8, 8, 4] [1, 1, 1, 1] : memref<1x10x10x4xf32> to memref<1x8x8x4xf32, strided<[400, 40, 4, 1], offset: 44>>
  memref.copy %x, %interior : memref<1x8x8x4xf32> to memref<1x8x8x4xf32, strided<[400, 40, 4, 1], offset: 44>>
  %y = memref.alloc() {alignment = 64 : i64} : memref<1x8x8x8xf32>
  linalg.fill ins(%zero : f32) outs(%y : memref<1x8x8x8xf32>)
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tide.conv_pads = array<i64: 1, 1, 1, 1>} ins(%p, %wt : memref<1x10x10x4xf32>, memref<8x3x3x4xf32>) outs(%y : memref<1x8x8x8xf32>)
  memref.dealloc %p : memref<1x10x10x4xf32>
  memref.dealloc %wt : memref<8x3x3x4xf32>
  linalg.generic {indexing_maps = [#nid, #nch, #nid], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%y, %b : memref<1x8x8x8xf32>, memref<1x1x1x8xf32>) outs(%y : memref<1x8x8x8xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %0 = arith.addf %in, %in_1 : f32
    %1 = arith.maximumf %0, %zero : f32
    linalg.yield %1 : f32
  }
  return %y : memref<1x8x8x8xf32>
}

// The form bufferization leaves in a whole model: the FHWC copies are
// linalg.generic ops (elementwise fusion rewrites linalg.transpose so), and
// two convolutions' copies share one reused allocation. Each convolution
// reads its own constant, flagged constant (the 1 after the strides), so
// oneDNN gets weights it packs once (plain ones left it only its reference
// kernel); the copies and their buffer go.
#fchw_to_fhwc = affine_map<(d0, d1, d2, d3) -> (d0, d3, d1, d2)>
memref.global "private" constant @wc2 : memref<8x8x3x3xf32> = dense<0.25>
// CHECK-LABEL: func.func @nhwc_generic_copies(
// CHECK-NOT: memref.alloc() {{.*}} : memref<8x3x3x8xf32>
// CHECK-NOT: linalg.generic
// CHECK-DAG: %[[W1:.*]] = memref.get_global @wc : memref<8x4x3x3xf32>
// CHECK-DAG: %[[W2:.*]] = memref.get_global @wc2 : memref<8x8x3x3xf32>
// CHECK-DAG: %[[W1U:.*]] = memref.cast %[[W1]] : memref<8x4x3x3xf32> to memref<*xf32>
// CHECK: call @tide_rt_cpu_conv_f32(%{{.*}}, %[[W1U]], %{{.*}}, %c1_i64, %c0_i64, %c1_i64,
// CHECK: %[[W2U:.*]] = memref.cast %[[W2]] : memref<8x8x3x3xf32> to memref<*xf32>
// CHECK: call @tide_rt_cpu_conv_f32(%{{.*}}, %[[W2U]], %{{.*}}, %c1_i64, %c0_i64, %c1_i64,
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @nhwc_generic_copies(%x: memref<1x8x8x4xf32>, %y2: memref<1x6x6x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %wg1 = memref.get_global @wc : memref<8x4x3x3xf32>
  %wg2 = memref.get_global @wc2 : memref<8x8x3x3xf32>
  %wt1 = memref.alloc() {alignment = 64 : i64} : memref<8x3x3x4xf32>
  linalg.generic {indexing_maps = [#fchw_to_fhwc, #nid], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%wg1 : memref<8x4x3x3xf32>) outs(%wt1 : memref<8x3x3x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  %y1 = memref.alloc() {alignment = 64 : i64} : memref<1x6x6x8xf32>
  linalg.fill ins(%zero : f32) outs(%y1 : memref<1x6x6x8xf32>)
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tide.conv_pads = array<i64: 0, 0, 0, 0>} ins(%x, %wt1 : memref<1x8x8x4xf32>, memref<8x3x3x4xf32>) outs(%y1 : memref<1x6x6x8xf32>)
  %wt = memref.alloc() {alignment = 64 : i64} : memref<8x3x3x8xf32>
  linalg.generic {indexing_maps = [#fchw_to_fhwc, #nid], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%wg2 : memref<8x8x3x3xf32>) outs(%wt : memref<8x3x3x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  %y1p = memref.alloc() {alignment = 64 : i64} : memref<1x8x8x8xf32>
  linalg.fill ins(%zero : f32) outs(%y1p : memref<1x8x8x8xf32>)
  %interior = memref.subview %y1p[0, 1, 1, 0] [1, 6, 6, 8] [1, 1, 1, 1] : memref<1x8x8x8xf32> to memref<1x6x6x8xf32, strided<[512, 64, 8, 1], offset: 72>>
  memref.copy %y1, %interior : memref<1x6x6x8xf32> to memref<1x6x6x8xf32, strided<[512, 64, 8, 1], offset: 72>>
  linalg.fill ins(%zero : f32) outs(%y2 : memref<1x6x6x8xf32>)
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tide.conv_pads = array<i64: 1, 1, 1, 1>} ins(%y1p, %wt : memref<1x8x8x8xf32>, memref<8x3x3x8xf32>) outs(%y2 : memref<1x6x6x8xf32>)
  // The same buffer written again after the second convolution: a later
  // copy does not reach it.
  linalg.generic {indexing_maps = [#fchw_to_fhwc, #nid], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%wg2 : memref<8x8x3x3xf32>) outs(%wt : memref<8x3x3x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  memref.dealloc %wt : memref<8x3x3x8xf32>
  memref.dealloc %wt1 : memref<8x3x3x4xf32>
  return
}

// A channels-last convolution whose weights are an argument's (FHWC): a
// transposed view of them; no padding, accumulating into the output.
// CHECK-LABEL: func.func @nhwc_weights(
// CHECK-SAME: %[[X:.*]]: memref<1x4x4x4xf32>, %[[W:.*]]: memref<8x1x1x4xf32>, %[[Y:.*]]: memref<1x4x4x8xf32>)
// CHECK-DAG: %[[WT:.*]] = memref.transpose %[[W]] (d0, d1, d2, d3) -> (d0, d3, d1, d2)
// CHECK-DAG: %[[WU:.*]] = memref.cast %[[WT]]
// CHECK: call @tide_rt_cpu_conv_f32(%{{.*}}, %[[WU]], %{{.*}}, %c1_i64, %c1_i64, %c0_i64,
func.func @nhwc_weights(%x: memref<1x4x4x4xf32>, %w: memref<8x1x1x4xf32>, %y: memref<1x4x4x8xf32>) {
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tide.conv_pads = array<i64: 0, 0, 0, 0>} ins(%x, %w : memref<1x4x4x4xf32>, memref<8x1x1x4xf32>) outs(%y : memref<1x4x4x8xf32>)
  return
}

// A grouped channels-last convolution (a depthwise one:
// linalg.conv_2d_nhwgc_gfhwc over the channels split into groups): the call
// gets ungrouped NCHW / FCHW views and the group count. The activations'
// expand_shapes split the channels, so their sources are read; the weights'
// expand_shape does not (canonicalization composed the depthwise weights'
// FHWC reshape into it), so the grouped weights are collapsed back, as the
// grouped result is.
// CHECK-LABEL: func.func @nhwc_depthwise(
// CHECK-SAME: %[[X:.*]]: memref<1x6x6x8xf32>, %[[W:.*]]: memref<8x1x3x3xf32>, %[[Y:.*]]: memref<1x4x4x8xf32>)
// CHECK-DAG: %[[WC:.*]] = memref.collapse_shape %{{.*}} {{\[\[}}0, 1], [2], [3], [4]] : memref<8x1x3x3x1xf32> into memref<8x3x3x1xf32>
// CHECK-DAG: %[[XT:.*]] = memref.transpose %[[X]] (d0, d1, d2, d3) -> (d0, d3, d1, d2)
// CHECK-DAG: %[[YC:.*]] = memref.collapse_shape %{{.*}} {{\[\[}}0], [1], [2], [3, 4]] : memref<1x4x4x8x1xf32> into memref<1x4x4x8xf32>
// CHECK-DAG: %[[YT:.*]] = memref.transpose %[[YC]] (d0, d1, d2, d3) -> (d0, d3, d1, d2)
// CHECK-DAG: %[[WT:.*]] = memref.transpose %[[WC]] (d0, d1, d2, d3) -> (d0, d3, d1, d2) : memref<8x3x3x1xf32> to memref<8x1x3x3xf32, strided<[9, 1, 3, 1]>>
// CHECK-DAG: %[[XU:.*]] = memref.cast %[[XT]]
// CHECK-DAG: %[[WU:.*]] = memref.cast %[[WT]]
// CHECK-DAG: %[[YU:.*]] = memref.cast %[[YT]]
// CHECK-DAG: %[[G:.*]] = arith.constant 8 : i64
// CHECK: call @tide_rt_cpu_conv_f32(%[[XU]], %[[WU]], %[[YU]], %[[G]],
// CHECK-NOT: linalg.conv
func.func @nhwc_depthwise(%x: memref<1x6x6x8xf32>, %w: memref<8x1x3x3xf32>, %y: memref<1x4x4x8xf32>) {
  %xg = memref.expand_shape %x [[0], [1], [2], [3, 4]] output_shape [1, 6, 6, 8, 1] : memref<1x6x6x8xf32> into memref<1x6x6x8x1xf32>
  %wg = memref.expand_shape %w [[0], [1], [2], [3, 4]] output_shape [8, 1, 3, 3, 1] : memref<8x1x3x3xf32> into memref<8x1x3x3x1xf32>
  %yg = memref.expand_shape %y [[0], [1], [2], [3, 4]] output_shape [1, 4, 4, 8, 1] : memref<1x4x4x8xf32> into memref<1x4x4x8x1xf32>
  linalg.conv_2d_nhwgc_gfhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tide.conv_pads = array<i64: 0, 0, 0, 0>} ins(%xg, %wg : memref<1x6x6x8x1xf32>, memref<8x1x3x3x1xf32>) outs(%yg : memref<1x4x4x8x1xf32>)
  return
}

// A padded input whose interior is a rank-reducing subview (the real input
// dropped its unit batch dimension through reshapes: torchvision's detection
// transforms batch one image): the library reads the padded buffer itself,
// not the rank-3 source (which once became a rank-3 "NCHW" view).
// CHECK-LABEL: func.func @padded_rank_reduced(
// CHECK-SAME: %[[X:.*]]: memref<8x8x4xf32>)
// CHECK: %[[P:.*]] = memref.alloc() {{.*}} : memref<1x10x10x4xf32>
// CHECK: memref.copy %[[X]]
// CHECK: %[[PT:.*]] = memref.transpose %[[P]] (d0, d1, d2, d3) -> (d0, d3, d1, d2) : memref<1x10x10x4xf32>
// CHECK: %[[PU:.*]] = memref.cast %[[PT]]
// CHECK: call @tide_rt_cpu_conv_f32(%[[PU]],
func.func @padded_rank_reduced(%x: memref<8x8x4xf32>) -> memref<1x8x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %wg = memref.get_global @wc : memref<8x4x3x3xf32>
  %wt = memref.alloc() {alignment = 64 : i64} : memref<8x3x3x4xf32>
  linalg.transpose ins(%wg : memref<8x4x3x3xf32>) outs(%wt : memref<8x3x3x4xf32>) permutation = [0, 2, 3, 1]
  %p = memref.alloc() {alignment = 64 : i64} : memref<1x10x10x4xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<1x10x10x4xf32>)
  %interior = memref.subview %p[0, 1, 1, 0] [1, 8, 8, 4] [1, 1, 1, 1] : memref<1x10x10x4xf32> to memref<8x8x4xf32, strided<[40, 4, 1], offset: 44>>
  memref.copy %x, %interior : memref<8x8x4xf32> to memref<8x8x4xf32, strided<[40, 4, 1], offset: 44>>
  %y = memref.alloc() {alignment = 64 : i64} : memref<1x8x8x8xf32>
  linalg.fill ins(%zero : f32) outs(%y : memref<1x8x8x8xf32>)
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tide.conv_pads = array<i64: 1, 1, 1, 1>} ins(%p, %wt : memref<1x10x10x4xf32>, memref<8x3x3x4xf32>) outs(%y : memref<1x8x8x8xf32>)
  memref.dealloc %wt : memref<8x3x3x4xf32>
  return %y : memref<1x8x8x8xf32>
}

// A depthwise convolution (NHWC, grouped) whose bias and ReLU read its
// output with the groups merged back (the collapse_shape after it), and a
// bias read as (d0, 0, 0, d3) (the batch is 1, so d0 reads index 0): the
// epilogue is fused, the call writes the consumer's buffer, and the zero fill
// of the output, which is not right before the convolution, goes too.
#bch = affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>
// CHECK-LABEL: func.func @depthwise_epilogue(
// CHECK-SAME: %[[X:.*]]: memref<1x6x6x8xf32>, %[[W:.*]]: memref<8x1x3x3xf32>, %[[B:.*]]: memref<1x1x1x8xf32>)
// CHECK-NOT: linalg.fill
// CHECK-DAG: %[[O:.*]] = memref.alloc() {{.*}} : memref<1x4x4x8xf32>
// CHECK-DAG: %[[OT:.*]] = memref.transpose %[[O]] (d0, d1, d2, d3) -> (d0, d3, d1, d2)
// CHECK-DAG: %[[OU:.*]] = memref.cast %[[OT]]
// CHECK-DAG: %[[BV:.*]] = memref.subview %[[B]][0, 0, 0, 0] [1, 1, 1, 8] [1, 1, 1, 1] : memref<1x1x1x8xf32> to memref<8xf32, strided<[1]>>
// CHECK-DAG: %[[BU:.*]] = memref.cast %[[BV]]
// CHECK-DAG: %[[G:.*]] = arith.constant 8 : i64
// CHECK-DAG: %[[C5:.*]] = arith.constant 5 : i64
// CHECK: call @tide_rt_cpu_conv_epilogue_f32(%{{.*}}, %{{.*}}, %[[OU]], %[[G]], {{.*}}, %[[BU]], %[[OU]], %[[C5]])
// CHECK-NOT: linalg.conv
// CHECK-NOT: linalg.generic
// CHECK: return %[[O]]
func.func @depthwise_epilogue(%x: memref<1x6x6x8xf32>, %w: memref<8x1x3x3xf32>, %b: memref<1x1x1x8xf32>) -> memref<1x4x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %y = memref.alloc() {alignment = 64 : i64} : memref<1x4x4x8x1xf32>
  linalg.fill ins(%zero : f32) outs(%y : memref<1x4x4x8x1xf32>)
  %xg = memref.expand_shape %x [[0], [1], [2], [3, 4]] output_shape [1, 6, 6, 8, 1] : memref<1x6x6x8xf32> into memref<1x6x6x8x1xf32>
  %wg = memref.expand_shape %w [[0], [1], [2], [3, 4]] output_shape [8, 1, 3, 3, 1] : memref<8x1x3x3xf32> into memref<8x1x3x3x1xf32>
  linalg.conv_2d_nhwgc_gfhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tide.conv_pads = array<i64: 0, 0, 0, 0>} ins(%xg, %wg : memref<1x6x6x8x1xf32>, memref<8x1x3x3x1xf32>) outs(%y : memref<1x4x4x8x1xf32>)
  %yc = memref.collapse_shape %y [[0], [1], [2], [3, 4]] : memref<1x4x4x8x1xf32> into memref<1x4x4x8xf32>
  %o = memref.alloc() {alignment = 64 : i64} : memref<1x4x4x8xf32>
  linalg.generic {indexing_maps = [#nid, #bch, #nid], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%yc, %b : memref<1x4x4x8xf32>, memref<1x1x1x8xf32>) outs(%o : memref<1x4x4x8xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %0 = arith.addf %in, %in_1 : f32
    %1 = arith.maximumf %0, %zero : f32
    linalg.yield %1 : f32
  }
  memref.dealloc %y : memref<1x4x4x8x1xf32>
  return %o : memref<1x4x4x8xf32>
}

// The merged view has another reader: no epilogue (the consumer stays), and
// the output's zero fill is read by nothing before the convolution, so it
// goes.
// CHECK-LABEL: func.func @depthwise_view_read(
// CHECK-NOT: linalg.fill
// CHECK: call @tide_rt_cpu_conv_f32(
// CHECK: linalg.generic
// CHECK: memref.copy
func.func @depthwise_view_read(%x: memref<1x6x6x8xf32>, %w: memref<8x1x3x3xf32>, %b: memref<1x1x1x8xf32>, %keep: memref<1x4x4x8xf32>) -> memref<1x4x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %y = memref.alloc() {alignment = 64 : i64} : memref<1x4x4x8x1xf32>
  linalg.fill ins(%zero : f32) outs(%y : memref<1x4x4x8x1xf32>)
  %xg = memref.expand_shape %x [[0], [1], [2], [3, 4]] output_shape [1, 6, 6, 8, 1] : memref<1x6x6x8xf32> into memref<1x6x6x8x1xf32>
  %wg = memref.expand_shape %w [[0], [1], [2], [3, 4]] output_shape [8, 1, 3, 3, 1] : memref<8x1x3x3xf32> into memref<8x1x3x3x1xf32>
  linalg.conv_2d_nhwgc_gfhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tide.conv_pads = array<i64: 0, 0, 0, 0>} ins(%xg, %wg : memref<1x6x6x8x1xf32>, memref<8x1x3x3x1xf32>) outs(%y : memref<1x4x4x8x1xf32>)
  %yc = memref.collapse_shape %y [[0], [1], [2], [3, 4]] : memref<1x4x4x8x1xf32> into memref<1x4x4x8xf32>
  %o = memref.alloc() {alignment = 64 : i64} : memref<1x4x4x8xf32>
  linalg.generic {indexing_maps = [#nid, #bch, #nid], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%yc, %b : memref<1x4x4x8xf32>, memref<1x1x1x8xf32>) outs(%o : memref<1x4x4x8xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %0 = arith.addf %in, %in_1 : f32
    linalg.yield %0 : f32
  }
  memref.copy %yc, %keep : memref<1x4x4x8xf32> to memref<1x4x4x8xf32>
  return %o : memref<1x4x4x8xf32>
}

// A zero fill of the output earlier, read between (the copy): the
// convolution still overwrites the output (accumulate = 0), but the fill
// stays for the reader.
// CHECK-LABEL: func.func @fill_read_between(
// CHECK: linalg.fill
// CHECK: memref.copy
// CHECK: call @tide_rt_cpu_conv_f32(%{{.*}}, %{{.*}}, %{{.*}}, %c1_i64, %c0_i64,
func.func @fill_read_between(%x: memref<1x4x6x6xf32>, %w: memref<8x4x3x3xf32>, %seen: memref<1x8x4x4xf32>) -> memref<1x8x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %y = memref.alloc() {alignment = 64 : i64} : memref<1x8x4x4xf32>
  linalg.fill ins(%zero : f32) outs(%y : memref<1x8x4x4xf32>)
  memref.copy %y, %seen : memref<1x8x4x4xf32> to memref<1x8x4x4xf32>
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tide.conv_pads = array<i64: 0, 0, 0, 0>} ins(%x, %w : memref<1x4x6x6xf32>, memref<8x4x3x3xf32>) outs(%y : memref<1x8x4x4xf32>)
  return %y : memref<1x8x4x4xf32>
}
