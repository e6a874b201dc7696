// RUN: tide-opt %s --convert-linalg-to-gpu --split-input-file | FileCheck %s
// RUN: tide-opt %s --convert-linalg-to-gpu=use-library=false --split-input-file \
// RUN:   | FileCheck %s --check-prefix=KERNEL

// The named convolutions convert-tide-to-linalg marks with tide.conv_pads call
// cuDNN through the runtime. Symmetric padding of a zero-filled copy: cuDNN
// reads the real input and pads it itself; the padded buffer, its fill and
// copy go. The zero fill of the output becomes accumulate = 0.
// CHECK-LABEL: func.func private @tide_rt_gpu_conv_f32(memref<*xf32, #tide.device<cuda:0>>, memref<*xf32, #tide.device<cuda:0>>, memref<*xf32, #tide.device<cuda:0>>, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)
// CHECK-LABEL: func.func @padded(
// CHECK-SAME: %[[X:.*]]: memref<2x4x9x9xf32, #tide.device<cuda:0>>, %[[W:.*]]: memref<8x4x3x3xf32, #tide.device<cuda:0>>, %[[Y:.*]]: memref<2x8x9x9xf32, #tide.device<cuda:0>>)
// CHECK-NOT: gpu.alloc
// CHECK-NOT: gpu.launch
// CHECK-DAG: %[[CX:.*]] = memref.cast %[[X]] : memref<2x4x9x9xf32, #tide.device<cuda:0>> to memref<*xf32, #tide.device<cuda:0>>
// CHECK-DAG: %[[CW:.*]] = memref.cast %[[W]]
// CHECK-DAG: %[[CY:.*]] = memref.cast %[[Y]]
// CHECK-DAG: %[[G:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i64
// groups, accumulate, pads (1, 1, -), strides (2, 2, -), dilations (1, 1, -)
// CHECK: call @tide_rt_gpu_conv_f32(%[[CX]], %[[CW]], %[[CY]], %[[G]], %[[ZERO]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
// CHECK-NOT: gpu.launch
// CHECK: return
// KERNEL-LABEL: func.func @padded(
// KERNEL: gpu.launch
// KERNEL-NOT: call @tide_rt_gpu_conv
func.func @padded(%x: memref<2x4x9x9xf32, #tide.device<cuda:0>>, %w: memref<8x4x3x3xf32, #tide.device<cuda:0>>, %y: memref<2x8x9x9xf32, #tide.device<cuda:0>>) {
  %cst = arith.constant 0.000000e+00 : f32
  %p = memref.alloc() : memref<2x4x11x11xf32, #tide.device<cuda:0>>
  linalg.fill ins(%cst : f32) outs(%p : memref<2x4x11x11xf32, #tide.device<cuda:0>>)
  %sv = memref.subview %p[0, 0, 1, 1] [2, 4, 9, 9] [1, 1, 1, 1] : memref<2x4x11x11xf32, #tide.device<cuda:0>> to memref<2x4x9x9xf32, strided<[484, 121, 11, 1], offset: 12>, #tide.device<cuda:0>>
  memref.copy %x, %sv : memref<2x4x9x9xf32, #tide.device<cuda:0>> to memref<2x4x9x9xf32, strided<[484, 121, 11, 1], offset: 12>, #tide.device<cuda:0>>
  linalg.fill ins(%cst : f32) outs(%y : memref<2x8x9x9xf32, #tide.device<cuda:0>>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tide.conv_pads = array<i64: 1, 1, 1, 1>}
    ins(%p, %w : memref<2x4x11x11xf32, #tide.device<cuda:0>>, memref<8x4x3x3xf32, #tide.device<cuda:0>>) outs(%y : memref<2x8x9x9xf32, #tide.device<cuda:0>>)
  memref.dealloc %p : memref<2x4x11x11xf32, #tide.device<cuda:0>>
  return
}

// -----

// Grouped (depthwise) f16 with asymmetric padding: cuDNN reads the padded
// buffer (pads 0) ungrouped, with the group count; it writes f16 into a
// temporary, widened into the f32 accumulator by one kernel.
// CHECK-LABEL: func.func @depthwise(
// CHECK-SAME: %[[X:.*]]: memref<2x8x10x10xf16, #tide.device<cuda:0>>, %[[W:.*]]: memref<8x1x3x3xf16, #tide.device<cuda:0>>, %[[Y:.*]]: memref<2x8x1x5x5xf32, #tide.device<cuda:0>>)
// CHECK: %[[P:.*]] = gpu.alloc () : memref<2x8x11x11xf16, #tide.device<cuda:0>>
// CHECK: %[[COLLAPSED:.*]] = memref.collapse_shape %[[Y]] {{\[\[}}0], [1, 2], [3], [4]]
// CHECK: %[[T:.*]] = gpu.alloc () : memref<2x8x5x5xf16, #tide.device<cuda:0>>
// CHECK-DAG: %[[CP:.*]] = memref.cast %[[P]] : memref<2x8x11x11xf16, #tide.device<cuda:0>> to memref<*xf16, #tide.device<cuda:0>>
// CHECK-DAG: %[[CW:.*]] = memref.cast %[[W]] : memref<8x1x3x3xf16, #tide.device<cuda:0>> to memref<*xf16, #tide.device<cuda:0>>
// CHECK-DAG: %[[CT:.*]] = memref.cast %[[T]]
// CHECK-DAG: %[[G:.*]] = arith.constant 8 : i64
// CHECK: call @tide_rt_gpu_conv_f16(%[[CP]], %[[CW]], %[[CT]], %[[G]],
// CHECK: gpu.launch
// CHECK: arith.extf
// CHECK: gpu.dealloc %[[T]]
func.func @depthwise(%x: memref<2x8x10x10xf16, #tide.device<cuda:0>>, %w: memref<8x1x3x3xf16, #tide.device<cuda:0>>, %y: memref<2x8x1x5x5xf32, #tide.device<cuda:0>>) {
  %cst = arith.constant 0.000000e+00 : f32
  %cst_0 = arith.constant 0.000000e+00 : f16
  %p = memref.alloc() : memref<2x8x11x11xf16, #tide.device<cuda:0>>
  linalg.fill ins(%cst_0 : f16) outs(%p : memref<2x8x11x11xf16, #tide.device<cuda:0>>)
  %sv = memref.subview %p[0, 0, 1, 1] [2, 8, 10, 10] [1, 1, 1, 1] : memref<2x8x11x11xf16, #tide.device<cuda:0>> to memref<2x8x10x10xf16, strided<[968, 121, 11, 1], offset: 12>, #tide.device<cuda:0>>
  memref.copy %x, %sv : memref<2x8x10x10xf16, #tide.device<cuda:0>> to memref<2x8x10x10xf16, strided<[968, 121, 11, 1], offset: 12>, #tide.device<cuda:0>>
  %xe = memref.expand_shape %p [[0], [1, 2], [3], [4]] output_shape [2, 8, 1, 11, 11] : memref<2x8x11x11xf16, #tide.device<cuda:0>> into memref<2x8x1x11x11xf16, #tide.device<cuda:0>>
  %we = memref.expand_shape %w [[0, 1], [2], [3], [4]] output_shape [8, 1, 1, 3, 3] : memref<8x1x3x3xf16, #tide.device<cuda:0>> into memref<8x1x1x3x3xf16, #tide.device<cuda:0>>
  linalg.fill ins(%cst : f32) outs(%y : memref<2x8x1x5x5xf32, #tide.device<cuda:0>>)
  linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>, tide.conv_pads = array<i64: 1, 1, 0, 0>}
    ins(%xe, %we : memref<2x8x1x11x11xf16, #tide.device<cuda:0>>, memref<8x1x1x3x3xf16, #tide.device<cuda:0>>) outs(%y : memref<2x8x1x5x5xf32, #tide.device<cuda:0>>)
  memref.dealloc %p : memref<2x8x11x11xf16, #tide.device<cuda:0>>
  return
}

// -----

// Two depthwise convolutions of one padded input through one shared
// group-splitting view (as CSE leaves them): the first must not erase the
// fill and copy the second reads; both read the padded buffer with pads 0.
// CHECK-LABEL: func.func @shared_padded_view(
// CHECK: %[[P:.*]] = gpu.alloc () : memref<1x8x11x11xf32, #tide.device<cuda:0>>
// CHECK: gpu.launch {{.*}} function(@shared_padded_view_fill_0)
// CHECK: memref.subview %[[P]][0, 0, 1, 1]
// CHECK: gpu.launch
// CHECK: %[[CP:.*]] = memref.cast %[[P]]
// CHECK: call @tide_rt_gpu_conv_f32(%[[CP]],
// CHECK: %[[CP2:.*]] = memref.cast %[[P]]
// CHECK: call @tide_rt_gpu_conv_f32(%[[CP2]],
func.func @shared_padded_view(%x: memref<1x8x9x9xf32, #tide.device<cuda:0>>, %w0: memref<8x1x3x3xf32, #tide.device<cuda:0>>, %w1: memref<8x1x3x3xf32, #tide.device<cuda:0>>, %y0: memref<1x8x1x9x9xf32, #tide.device<cuda:0>>, %y1: memref<1x8x1x9x9xf32, #tide.device<cuda:0>>) {
  %cst = arith.constant 0.000000e+00 : f32
  %p = memref.alloc() : memref<1x8x11x11xf32, #tide.device<cuda:0>>
  linalg.fill ins(%cst : f32) outs(%p : memref<1x8x11x11xf32, #tide.device<cuda:0>>)
  %sv = memref.subview %p[0, 0, 1, 1] [1, 8, 9, 9] [1, 1, 1, 1] : memref<1x8x11x11xf32, #tide.device<cuda:0>> to memref<1x8x9x9xf32, strided<[968, 121, 11, 1], offset: 12>, #tide.device<cuda:0>>
  memref.copy %x, %sv : memref<1x8x9x9xf32, #tide.device<cuda:0>> to memref<1x8x9x9xf32, strided<[968, 121, 11, 1], offset: 12>, #tide.device<cuda:0>>
  %xe = memref.expand_shape %p [[0], [1, 2], [3], [4]] output_shape [1, 8, 1, 11, 11] : memref<1x8x11x11xf32, #tide.device<cuda:0>> into memref<1x8x1x11x11xf32, #tide.device<cuda:0>>
  %we0 = memref.expand_shape %w0 [[0, 1], [2], [3], [4]] output_shape [8, 1, 1, 3, 3] : memref<8x1x3x3xf32, #tide.device<cuda:0>> into memref<8x1x1x3x3xf32, #tide.device<cuda:0>>
  %we1 = memref.expand_shape %w1 [[0, 1], [2], [3], [4]] output_shape [8, 1, 1, 3, 3] : memref<8x1x3x3xf32, #tide.device<cuda:0>> into memref<8x1x1x3x3xf32, #tide.device<cuda:0>>
  linalg.fill ins(%cst : f32) outs(%y0 : memref<1x8x1x9x9xf32, #tide.device<cuda:0>>)
  linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tide.conv_pads = array<i64: 1, 1, 1, 1>}
    ins(%xe, %we0 : memref<1x8x1x11x11xf32, #tide.device<cuda:0>>, memref<8x1x1x3x3xf32, #tide.device<cuda:0>>) outs(%y0 : memref<1x8x1x9x9xf32, #tide.device<cuda:0>>)
  linalg.fill ins(%cst : f32) outs(%y1 : memref<1x8x1x9x9xf32, #tide.device<cuda:0>>)
  linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tide.conv_pads = array<i64: 1, 1, 1, 1>}
    ins(%xe, %we1 : memref<1x8x1x11x11xf32, #tide.device<cuda:0>>, memref<8x1x1x3x3xf32, #tide.device<cuda:0>>) outs(%y1 : memref<1x8x1x9x9xf32, #tide.device<cuda:0>>)
  memref.dealloc %p : memref<1x8x11x11xf32, #tide.device<cuda:0>>
  return
}

// -----

// 1-D f64 with a dynamic batch and no zero fill before it: accumulates.
// CHECK-LABEL: func.func @accumulate_1d(
// CHECK: %[[GROUPS:.*]] = arith.constant 1 : i64
// CHECK: %[[ACCUMULATE:.*]] = arith.constant 1 : i64
// CHECK: call @tide_rt_gpu_conv_f64(%{{.*}}, %{{.*}}, %{{.*}}, %[[GROUPS]], %[[ACCUMULATE]],
// CHECK-NOT: gpu.launch
func.func @accumulate_1d(%x: memref<?x4x16xf64, #tide.device<cuda:0>>, %w: memref<6x4x1xf64, #tide.device<cuda:0>>, %y: memref<?x6x16xf64, #tide.device<cuda:0>>) {
  linalg.conv_1d_ncw_fcw {dilations = dense<1> : tensor<1xi64>, strides = dense<1> : tensor<1xi64>, tide.conv_pads = array<i64: 0, 0>}
    ins(%x, %w : memref<?x4x16xf64, #tide.device<cuda:0>>, memref<6x4x1xf64, #tide.device<cuda:0>>) outs(%y : memref<?x6x16xf64, #tide.device<cuda:0>>)
  return
}

// -----

// Without the mark, a named convolution is a kernel like any other.
// CHECK-LABEL: func.func @unmarked(
// CHECK-NOT: call @tide_rt_gpu_conv
// CHECK: gpu.launch
func.func @unmarked(%x: memref<1x4x16xf32, #tide.device<cuda:0>>, %w: memref<6x4x1xf32, #tide.device<cuda:0>>, %y: memref<1x6x16xf32, #tide.device<cuda:0>>) {
  linalg.conv_1d_ncw_fcw {dilations = dense<1> : tensor<1xi64>, strides = dense<1> : tensor<1xi64>}
    ins(%x, %w : memref<1x4x16xf32, #tide.device<cuda:0>>, memref<6x4x1xf32, #tide.device<cuda:0>>) outs(%y : memref<1x6x16xf32, #tide.device<cuda:0>>)
  return
}

// -----

// bf16 into an f32 accumulator that is only read by the rounding generic:
// cuDNN writes bf16, the generic reads that (widened in its payload) and the
// accumulator is never allocated.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @narrow_readers(
// CHECK-NOT: xf32, #tide.device<cuda:0>>
// CHECK: %[[T:.*]] = gpu.alloc () : memref<1x4x6x6xbf16, #tide.device<cuda:0>>
// CHECK: %[[CT:.*]] = memref.cast %[[T]]
// CHECK: call @tide_rt_gpu_conv_bf16(%{{.*}}, %{{.*}}, %[[CT]],
// CHECK: gpu.launch
// CHECK: %[[V:.*]] = memref.load %[[T]]
// CHECK: %[[W:.*]] = arith.extf %[[V]] : bf16 to f32
// CHECK: arith.truncf %[[W]] : f32 to bf16
// CHECK: gpu.dealloc %[[T]]
// CHECK-NOT: arith.extf
func.func @narrow_readers(%x: memref<1x2x8x8xbf16, #tide.device<cuda:0>>, %w: memref<4x2x3x3xbf16, #tide.device<cuda:0>>, %z: memref<1x4x6x6xbf16, #tide.device<cuda:0>>) {
  %cst = arith.constant 0.000000e+00 : f32
  %acc = memref.alloc() : memref<1x4x6x6xf32, #tide.device<cuda:0>>
  linalg.fill ins(%cst : f32) outs(%acc : memref<1x4x6x6xf32, #tide.device<cuda:0>>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tide.conv_pads = array<i64: 0, 0, 0, 0>}
    ins(%x, %w : memref<1x2x8x8xbf16, #tide.device<cuda:0>>, memref<4x2x3x3xbf16, #tide.device<cuda:0>>) outs(%acc : memref<1x4x6x6xf32, #tide.device<cuda:0>>)
  linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<1x4x6x6xf32, #tide.device<cuda:0>>) outs(%z : memref<1x4x6x6xbf16, #tide.device<cuda:0>>) {
  ^bb0(%in: f32, %out: bf16):
    %0 = arith.truncf %in : f32 to bf16
    linalg.yield %0 : bf16
  }
  memref.dealloc %acc : memref<1x4x6x6xf32, #tide.device<cuda:0>>
  return
}

// -----

// A 1x1 convolution with unit strides and no padding is a batched GEMM
// (cuBLAS, the weights broadcast over the batch) where each image's rows
// (here 4x4 bf16: 32 bytes) are 16-byte aligned; bf16 writes bf16 for its
// readers like above.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @pointwise(
// CHECK-NOT: tide_rt_gpu_conv
// CHECK: call @tide_rt_gpu_gemm_batched_bf16(%{{.*}}, %{{.*}}, %{{.*}}, %c0_i32)
// CHECK: arith.extf
func.func @pointwise(%x: memref<2x8x4x4xbf16, #tide.device<cuda:0>>, %w: memref<16x8x1x1xbf16, #tide.device<cuda:0>>, %z: memref<2x16x4x4xbf16, #tide.device<cuda:0>>) {
  %cst = arith.constant 0.000000e+00 : f32
  %acc = memref.alloc() : memref<2x16x4x4xf32, #tide.device<cuda:0>>
  linalg.fill ins(%cst : f32) outs(%acc : memref<2x16x4x4xf32, #tide.device<cuda:0>>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tide.conv_pads = array<i64: 0, 0, 0, 0>}
    ins(%x, %w : memref<2x8x4x4xbf16, #tide.device<cuda:0>>, memref<16x8x1x1xbf16, #tide.device<cuda:0>>) outs(%acc : memref<2x16x4x4xf32, #tide.device<cuda:0>>)
  linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<2x16x4x4xf32, #tide.device<cuda:0>>) outs(%z : memref<2x16x4x4xbf16, #tide.device<cuda:0>>) {
  ^bb0(%in: f32, %out: bf16):
    %0 = arith.truncf %in : f32 to bf16
    linalg.yield %0 : bf16
  }
  memref.dealloc %acc : memref<2x16x4x4xf32, #tide.device<cuda:0>>
  return
}

// -----

// Rows of 7x7 bf16 (98 bytes) are not: cuBLAS would run its unaligned kernels,
// so the convolution stays cuDNN's.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @pointwise_unaligned(
// CHECK-NOT: tide_rt_gpu_gemm
// CHECK: call @tide_rt_gpu_conv_bf16(
func.func @pointwise_unaligned(%x: memref<2x8x7x7xbf16, #tide.device<cuda:0>>, %w: memref<16x8x1x1xbf16, #tide.device<cuda:0>>, %z: memref<2x16x7x7xbf16, #tide.device<cuda:0>>) {
  %cst = arith.constant 0.000000e+00 : f32
  %acc = memref.alloc() : memref<2x16x7x7xf32, #tide.device<cuda:0>>
  linalg.fill ins(%cst : f32) outs(%acc : memref<2x16x7x7xf32, #tide.device<cuda:0>>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tide.conv_pads = array<i64: 0, 0, 0, 0>}
    ins(%x, %w : memref<2x8x7x7xbf16, #tide.device<cuda:0>>, memref<16x8x1x1xbf16, #tide.device<cuda:0>>) outs(%acc : memref<2x16x7x7xf32, #tide.device<cuda:0>>)
  linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<2x16x7x7xf32, #tide.device<cuda:0>>) outs(%z : memref<2x16x7x7xbf16, #tide.device<cuda:0>>) {
  ^bb0(%in: f32, %out: bf16):
    %0 = arith.truncf %in : f32 to bf16
    linalg.yield %0 : bf16
  }
  memref.dealloc %acc : memref<2x16x7x7xf32, #tide.device<cuda:0>>
  return
}

// -----

// Channels-last: cuDNN gets NCHW-ordered views of the NHWC buffers
// (memref.transpose: the sizes in NCHW order, the NHWC strides), which it
// reads as NHWC tensors and an NHWC-format filter; the padding is still its.
// Without the library, a kernel.
// KERNEL-LABEL: func.func @channels_last(
// KERNEL: gpu.launch
// CHECK-LABEL: func.func @channels_last(
// CHECK-SAME: %[[X:.*]]: memref<2x9x9x4xf32, #tide.device<cuda:0>>, %[[W:.*]]: memref<8x3x3x4xf32, #tide.device<cuda:0>>, %[[Y:.*]]: memref<2x9x9x8xf32, #tide.device<cuda:0>>)
// CHECK-NOT: gpu.launch
// CHECK-DAG: %[[TX:.*]] = memref.transpose %[[X]] (d0, d1, d2, d3) -> (d0, d3, d1, d2) : memref<2x9x9x4xf32, #tide.device<cuda:0>> to memref<2x4x9x9xf32, strided<[324, 1, 36, 4]>, #tide.device<cuda:0>>
// CHECK-DAG: %[[TW:.*]] = memref.transpose %[[W]] (d0, d1, d2, d3) -> (d0, d3, d1, d2) : memref<8x3x3x4xf32, #tide.device<cuda:0>> to memref<8x4x3x3xf32, strided<[36, 1, 12, 4]>, #tide.device<cuda:0>>
// CHECK-DAG: %[[TY:.*]] = memref.transpose %[[Y]] (d0, d1, d2, d3) -> (d0, d3, d1, d2)
// CHECK-DAG: %[[CX:.*]] = memref.cast %[[TX]] : memref<2x4x9x9xf32, strided<[324, 1, 36, 4]>, #tide.device<cuda:0>> to memref<*xf32, #tide.device<cuda:0>>
// CHECK-DAG: %[[CW:.*]] = memref.cast %[[TW]]
// CHECK-DAG: %[[CY:.*]] = memref.cast %[[TY]]
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK: call @tide_rt_gpu_conv_f32(%[[CX]], %[[CW]], %[[CY]],
// CHECK-NOT: gpu.launch
func.func @channels_last(%x: memref<2x9x9x4xf32, #tide.device<cuda:0>>, %w: memref<8x3x3x4xf32, #tide.device<cuda:0>>, %y: memref<2x9x9x8xf32, #tide.device<cuda:0>>) {
  %cst = arith.constant 0.000000e+00 : f32
  %p = memref.alloc() : memref<2x11x11x4xf32, #tide.device<cuda:0>>
  linalg.fill ins(%cst : f32) outs(%p : memref<2x11x11x4xf32, #tide.device<cuda:0>>)
  %sv = memref.subview %p[0, 1, 1, 0] [2, 9, 9, 4] [1, 1, 1, 1] : memref<2x11x11x4xf32, #tide.device<cuda:0>> to memref<2x9x9x4xf32, strided<[484, 44, 4, 1], offset: 48>, #tide.device<cuda:0>>
  memref.copy %x, %sv : memref<2x9x9x4xf32, #tide.device<cuda:0>> to memref<2x9x9x4xf32, strided<[484, 44, 4, 1], offset: 48>, #tide.device<cuda:0>>
  linalg.fill ins(%cst : f32) outs(%y : memref<2x9x9x8xf32, #tide.device<cuda:0>>)
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tide.conv_pads = array<i64: 1, 1, 1, 1>}
    ins(%p, %w : memref<2x11x11x4xf32, #tide.device<cuda:0>>, memref<8x3x3x4xf32, #tide.device<cuda:0>>) outs(%y : memref<2x9x9x8xf32, #tide.device<cuda:0>>)
  memref.dealloc %p : memref<2x11x11x4xf32, #tide.device<cuda:0>>
  return
}

// -----

// A channels-last 1x1 convolution with unit strides and no padding: one GEMM
// over every pixel, (N*H*W x C) times the weights (F x C) read transposed;
// bf16 with an f32 accumulator whose reader now reads the bf16 output.
// CHECK-LABEL: func.func @channels_last_pointwise(
// CHECK-NOT: call @tide_rt_gpu_conv
// CHECK: %[[X:.*]] = memref.collapse_shape %{{.*}} {{\[\[}}0, 1, 2], [3]] : memref<2x4x4x8xbf16, #tide.device<cuda:0>> into memref<32x8xbf16, #tide.device<cuda:0>>
// CHECK: %[[W:.*]] = memref.collapse_shape %{{.*}} {{\[\[}}0], [1, 2, 3]] : memref<16x1x1x8xbf16, #tide.device<cuda:0>> into memref<16x8xbf16, #tide.device<cuda:0>>
// CHECK: %[[WT:.*]] = memref.transpose %[[W]] (d0, d1) -> (d1, d0) : memref<16x8xbf16, #tide.device<cuda:0>> to memref<8x16xbf16, strided<[1, 8]>, #tide.device<cuda:0>>
// CHECK: call @tide_rt_gpu_gemm_bf16(
// CHECK-NOT: call @tide_rt_gpu_conv
func.func @channels_last_pointwise(%x: memref<2x4x4x8xbf16, #tide.device<cuda:0>>, %w: memref<16x1x1x8xbf16, #tide.device<cuda:0>>, %out: memref<2x4x4x16xbf16, #tide.device<cuda:0>>) {
  %cst = arith.constant 0.000000e+00 : f32
  %y = memref.alloc() : memref<2x4x4x16xf32, #tide.device<cuda:0>>
  linalg.fill ins(%cst : f32) outs(%y : memref<2x4x4x16xf32, #tide.device<cuda:0>>)
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tide.conv_pads = array<i64: 0, 0, 0, 0>}
    ins(%x, %w : memref<2x4x4x8xbf16, #tide.device<cuda:0>>, memref<16x1x1x8xbf16, #tide.device<cuda:0>>) outs(%y : memref<2x4x4x16xf32, #tide.device<cuda:0>>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%y : memref<2x4x4x16xf32, #tide.device<cuda:0>>) outs(%out : memref<2x4x4x16xbf16, #tide.device<cuda:0>>) {
  ^bb0(%in: f32, %o: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  }
  memref.dealloc %y : memref<2x4x4x16xf32, #tide.device<cuda:0>>
  return
}
