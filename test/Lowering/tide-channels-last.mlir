// RUN: tide-opt %s --pass-pipeline='builtin.module(func.func(tide-channels-last),cse)' --split-input-file | FileCheck %s
// RUN: tide-opt %s --pass-pipeline='builtin.module(func.func(tide-channels-last{f32=true}),cse)' --split-input-file | FileCheck %s --check-prefix=F32
// RUN: tide-opt %s --pass-pipeline='builtin.module(func.func(tide-channels-last{host=true}),cse)' --split-input-file | FileCheck %s --check-prefix=HOST

// A residual block on the GPU: the input is transposed once; bias adds,
// activations and the residual add run on NHWC data; the global pooling
// reduces NHWC axes and its (N, 1, 1, C) result is reshaped, not transposed.
// 1x1 weights are reshaped (only unit dimensions move), 3x3 ones transposed.
// CHECK-LABEL: func.func @block(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x64x8x8xbf16>, %[[W1:[^:]*]]: tensor<64x64x3x3xbf16>, %[[B1:[^:]*]]: tensor<64xbf16>, %[[W2:[^:]*]]: tensor<64x64x1x1xbf16>
// CHECK: %[[XT:.*]] = tide.transpose %[[X]] perm = [0, 2, 3, 1] {tide.device = #tide.device<cuda:0>} : tensor<2x64x8x8xbf16>
// CHECK: %[[W1T:.*]] = tide.transpose %[[W1]] perm = [0, 2, 3, 1] {{.*}} : tensor<64x64x3x3xbf16>
// CHECK: %[[C1:.*]] = tide.conv %[[XT]], %[[W1T]] strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] channels_last {tide.device = #tide.device<cuda:0>} : tensor<2x8x8x64xbf16>, tensor<64x3x3x64xbf16>
// CHECK: %[[BIAS:.*]] = tide.reshape %[[B1]] {{.*}} : tensor<64xbf16> to tensor<1x1x1x64xbf16>
// CHECK: %[[ADD:.*]] = tide.add %[[C1]], %[[BIAS]] {{.*}} : tensor<2x8x8x64xbf16>, tensor<1x1x1x64xbf16>
// CHECK: %[[R:.*]] = tide.relu %[[ADD]] {{.*}} : tensor<2x8x8x64xbf16>
// CHECK: %[[W2R:.*]] = tide.reshape %[[W2]] {{.*}} : tensor<64x64x1x1xbf16> to tensor<64x1x1x64xbf16>
// CHECK: %[[C2:.*]] = tide.conv %[[R]], %[[W2R]] {{.*}} channels_last
// CHECK: %[[SUM:.*]] = tide.add %[[C2]], %[[XT]] {{.*}} : tensor<2x8x8x64xbf16>
// CHECK: %[[MEAN:.*]] = tide.reduce_mean %{{.*}} axes = [1, 2] keepdims {{.*}} : tensor<2x8x8x64xbf16>
// CHECK: %[[FLAT:.*]] = tide.reshape %[[MEAN]] {{.*}} : tensor<2x1x1x64xbf16> to tensor<2x64xbf16>
// CHECK-NOT: tide.transpose
// CHECK: return %[[FLAT]]
func.func @block(%x: tensor<2x64x8x8xbf16>, %w1: tensor<64x64x3x3xbf16>, %b1: tensor<64xbf16>, %w2: tensor<64x64x1x1xbf16>) -> tensor<2x64xbf16> {
  %c1 = tide.conv %x, %w1 strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] {tide.device = #tide.device<cuda:0>} : tensor<2x64x8x8xbf16>, tensor<64x64x3x3xbf16>
  %b = tide.reshape %b1 {tide.device = #tide.device<cuda:0>} : tensor<64xbf16> to tensor<64x1x1xbf16>
  %a = tide.add %c1, %b {tide.device = #tide.device<cuda:0>} : tensor<2x64x8x8xbf16>, tensor<64x1x1xbf16>
  %r = tide.relu %a {tide.device = #tide.device<cuda:0>} : tensor<2x64x8x8xbf16>
  %c2 = tide.conv %r, %w2 strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] {tide.device = #tide.device<cuda:0>} : tensor<2x64x8x8xbf16>, tensor<64x64x1x1xbf16>
  %s = tide.add %c2, %x {tide.device = #tide.device<cuda:0>} : tensor<2x64x8x8xbf16>
  %o = tide.relu %s {tide.device = #tide.device<cuda:0>} : tensor<2x64x8x8xbf16>
  %m = tide.reduce_mean %o axes = [2, -1] keepdims {tide.device = #tide.device<cuda:0>} : tensor<2x64x8x8xbf16>
  %f = tide.reshape %m {tide.device = #tide.device<cuda:0>} : tensor<2x64x1x1xbf16> to tensor<2x64xbf16>
  return %f : tensor<2x64xbf16>
}

// -----

// Pools between convolutions become channels-last (their attributes kept);
// no transpose is left between the convolutions. A reduction without
// keepdims keeps the remaining dimensions in the result's order.
// CHECK-LABEL: func.func @pool_and_sum(
// CHECK: %[[C:.*]] = tide.conv {{.*}} channels_last
// CHECK: %[[P:.*]] = tide.max_pool %[[C]] kernel = [2, 2] strides = [2, 2] dilations = [1, 1] pads = [0, 0, 0, 0] channels_last {tide.device = #tide.device<cuda:0>} : tensor<1x8x8x8xf16>
// CHECK: %[[A:.*]] = tide.avg_pool %[[P]] kernel = [3, 3] strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] ceil_mode count_include_pad channels_last {tide.device = #tide.device<cuda:0>} : tensor<1x4x4x8xf16>
// CHECK: %[[C2:.*]] = tide.conv %[[A]], {{.*}} channels_last
// CHECK: %[[S:.*]] = tide.reduce_sum %[[C2]] axes = [2] {{.*}} : tensor<1x4x4x8xf16>
// CHECK: %[[ST:.*]] = tide.transpose %[[S]] perm = [0, 2, 1] {{.*}} : tensor<1x4x8xf16>
// CHECK: return %[[ST]] : tensor<1x8x4xf16>
func.func @pool_and_sum(%x: tensor<1x8x8x8xf16>, %w: tensor<8x8x1x1xf16>) -> tensor<1x8x4xf16> {
  %c = tide.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] {tide.device = #tide.device<cuda:0>} : tensor<1x8x8x8xf16>, tensor<8x8x1x1xf16>
  %p = tide.max_pool %c kernel = [2, 2] strides = [2, 2] dilations = [1, 1] pads = [0, 0, 0, 0] {tide.device = #tide.device<cuda:0>} : tensor<1x8x8x8xf16>
  %a = tide.avg_pool %p kernel = [3, 3] strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] ceil_mode count_include_pad {tide.device = #tide.device<cuda:0>} : tensor<1x8x4x4xf16>
  %c2 = tide.conv %a, %w strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] {tide.device = #tide.device<cuda:0>} : tensor<1x8x4x4xf16>, tensor<8x8x1x1xf16>
  %s = tide.reduce_sum %c2 axes = [3] {tide.device = #tide.device<cuda:0>} : tensor<1x8x4x4xf16>
  return %s : tensor<1x8x4xf16>
}

// -----

// A Fire module (SqueezeNet): two branches joined along the channels, then a
// convolution. The concat joins the NHWC results along the last axis, so no
// transpose is left between the convolutions.
// CHECK-LABEL: func.func @fire(
// CHECK: %[[S:.*]] = tide.conv {{.*}} channels_last
// CHECK: %[[E1:.*]] = tide.conv %[[S]], {{.*}} channels_last
// CHECK: %[[E3:.*]] = tide.conv %[[S]], {{.*}} channels_last
// CHECK: %[[J:.*]] = tide.concat %[[E1]], %[[E3]] axis = 3 {tide.device = #tide.device<cuda:0>} : tensor<1x8x8x8xf16>, tensor<1x8x8x8xf16>
// CHECK: %[[N:.*]] = tide.conv %[[J]], {{.*}} channels_last
// CHECK: %[[T:.*]] = tide.transpose %[[N]] perm = [0, 3, 1, 2]
// CHECK-NOT: tide.transpose
// CHECK: return %[[T]]
func.func @fire(%x: tensor<1x8x8x8xf16>, %w: tensor<8x8x1x1xf16>, %w3: tensor<8x8x3x3xf16>, %w16: tensor<8x16x1x1xf16>) -> tensor<1x8x8x8xf16> {
  %s = tide.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] {tide.device = #tide.device<cuda:0>} : tensor<1x8x8x8xf16>, tensor<8x8x1x1xf16>
  %e1 = tide.conv %s, %w strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] {tide.device = #tide.device<cuda:0>} : tensor<1x8x8x8xf16>, tensor<8x8x1x1xf16>
  %e3 = tide.conv %s, %w3 strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] {tide.device = #tide.device<cuda:0>} : tensor<1x8x8x8xf16>, tensor<8x8x3x3xf16>
  %j = tide.concat %e1, %e3 axis = 1 {tide.device = #tide.device<cuda:0>} : tensor<1x8x8x8xf16>, tensor<1x8x8x8xf16>
  %n = tide.conv %j, %w16 strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] {tide.device = #tide.device<cuda:0>} : tensor<1x16x8x8xf16>, tensor<8x16x1x1xf16>
  return %n : tensor<1x8x8x8xf16>
}

// -----

// A ShuffleNet v2 unit: the two branches joined along the channels, the
// channel shuffle (reshape to (2, C/2), swap, reshape back) and the split
// into halves, the second half into the next convolution. The transpose out
// of NHWC sinks through the split reshape, merges with the shuffle's
// transpose, leaves behind the shuffle's own permutation of the channels
// (within NHWC: (H, W, 2, C/2) -> (H, W, C/2, 2)), moves past the merge and
// the slices (which take the last axis), and cancels with the next
// convolution's: the one transpose left is the result's.
// CHECK-LABEL: func.func @shuffle(
// CHECK: %[[A:.*]] = tide.conv {{.*}} channels_last
// CHECK: %[[B:.*]] = tide.conv {{.*}} channels_last
// CHECK: %[[J:.*]] = tide.concat %[[A]], %[[B]] axis = 3
// CHECK: %[[S:.*]] = tide.reshape %[[J]] {{.*}} : tensor<1x4x4x16xf16> to tensor<1x4x4x2x8xf16>
// CHECK: %[[P:.*]] = tide.transpose %[[S]] perm = [0, 1, 2, 4, 3]
// CHECK: %[[M:.*]] = tide.reshape %[[P]] {{.*}} : tensor<1x4x4x8x2xf16> to tensor<1x4x4x16xf16>
// CHECK: %[[H:.*]] = tide.slice %[[M]] start = [0, 0, 0, 8] limit = [1, 4, 4, 16] strides = [1, 1, 1, 1]
// CHECK: %[[N:.*]] = tide.conv %[[H]], {{.*}} channels_last
// CHECK: %[[T:.*]] = tide.transpose %[[N]] perm = [0, 3, 1, 2]
// CHECK-NOT: tide.transpose
// CHECK: return %[[T]]
// Without convolutions the same chain is left alone.
// CHECK-LABEL: func.func @shuffle_alone(
// CHECK: tide.transpose %{{.*}} perm = [0, 2, 1, 3, 4]
func.func @shuffle(%x: tensor<1x8x4x4xf16>, %w: tensor<8x8x1x1xf16>) -> tensor<1x8x4x4xf16> {
  %a = tide.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] {tide.device = #tide.device<cuda:0>} : tensor<1x8x4x4xf16>, tensor<8x8x1x1xf16>
  %b = tide.conv %a, %w strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] {tide.device = #tide.device<cuda:0>} : tensor<1x8x4x4xf16>, tensor<8x8x1x1xf16>
  %j = tide.concat %a, %b axis = 1 {tide.device = #tide.device<cuda:0>} : tensor<1x8x4x4xf16>, tensor<1x8x4x4xf16>
  %s = tide.reshape %j {tide.device = #tide.device<cuda:0>} : tensor<1x16x4x4xf16> to tensor<1x2x8x4x4xf16>
  %p = tide.transpose %s perm = [0, 2, 1, 3, 4] {tide.device = #tide.device<cuda:0>} : tensor<1x2x8x4x4xf16>
  %m = tide.reshape %p {tide.device = #tide.device<cuda:0>} : tensor<1x8x2x4x4xf16> to tensor<1x16x4x4xf16>
  %h = tide.slice %m start = [0, 8, 0, 0] limit = [1, 16, 4, 4] strides = [1, 1, 1, 1] {tide.device = #tide.device<cuda:0>} : tensor<1x16x4x4xf16>
  %n = tide.conv %h, %w strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] {tide.device = #tide.device<cuda:0>} : tensor<1x8x4x4xf16>, tensor<8x8x1x1xf16>
  return %n : tensor<1x8x4x4xf16>
}

func.func @shuffle_alone(%j: tensor<1x16x4x4xf16>) -> tensor<1x8x4x4xf16> {
  %s = tide.reshape %j {tide.device = #tide.device<cuda:0>} : tensor<1x16x4x4xf16> to tensor<1x2x8x4x4xf16>
  %p = tide.transpose %s perm = [0, 2, 1, 3, 4] {tide.device = #tide.device<cuda:0>} : tensor<1x2x8x4x4xf16>
  %m = tide.reshape %p {tide.device = #tide.device<cuda:0>} : tensor<1x8x2x4x4xf16> to tensor<1x16x4x4xf16>
  %h = tide.slice %m start = [0, 8, 0, 0] limit = [1, 16, 4, 4] strides = [1, 1, 1, 1] {tide.device = #tide.device<cuda:0>} : tensor<1x16x4x4xf16>
  return %h : tensor<1x8x4x4xf16>
}

// -----

// A squeeze-and-excitation block (MobileNetV3, EfficientNet) between two
// convolutions: its input is read by a global mean and by the product with
// the block's scale. The transpose moves past both (the mean reduces the NHWC
// spatial axes, its 1x1x1xC result is a reshape away from the scale's
// layout), so the convolutions meet without a transpose between them.
// CHECK-LABEL: func.func @squeeze_excite(
// CHECK: %[[C:.*]] = tide.conv {{.*}} channels_last
// CHECK: %[[M:.*]] = tide.reduce_mean %[[C]] axes = [1, 2] keepdims
// CHECK-NOT: tide.transpose
// CHECK: %[[P:.*]] = tide.mul %{{.*}}, %[[C]] {{.*}} : tensor<1x1x1x8xf16>, tensor<1x8x8x8xf16>
// CHECK: %[[N:.*]] = tide.conv %[[P]], {{.*}} channels_last
// CHECK: %[[T:.*]] = tide.transpose %[[N]] perm = [0, 3, 1, 2]
// CHECK-NOT: tide.transpose
// CHECK: return %[[T]]
func.func @squeeze_excite(%x: tensor<1x8x8x8xf16>, %w: tensor<8x8x1x1xf16>) -> tensor<1x8x8x8xf16> {
  %c = tide.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] {tide.device = #tide.device<cuda:0>} : tensor<1x8x8x8xf16>, tensor<8x8x1x1xf16>
  %m = tide.reduce_mean %c axes = [2, 3] keepdims {tide.device = #tide.device<cuda:0>} : tensor<1x8x8x8xf16>
  %s = tide.sigmoid %m {tide.device = #tide.device<cuda:0>} : tensor<1x8x1x1xf16>
  %p = tide.mul %s, %c {tide.device = #tide.device<cuda:0>} : tensor<1x8x1x1xf16>, tensor<1x8x8x8xf16>
  %n = tide.conv %p, %w strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] {tide.device = #tide.device<cuda:0>} : tensor<1x8x8x8xf16>, tensor<8x8x1x1xf16>
  return %n : tensor<1x8x8x8xf16>
}

// -----

// A pool whose input is not a convolution's stays NCHW.
// CHECK-LABEL: func.func @pool_alone(
// CHECK: tide.max_pool %{{.*}} kernel = [2, 2] strides = [2, 2] dilations = [1, 1] pads = [0, 0, 0, 0] {tide.device = #tide.device<cuda:0>} : tensor<1x8x8x8xf16>
// CHECK-NOT: tide.transpose
func.func @pool_alone(%x: tensor<1x8x8x8xf16>) -> tensor<1x8x4x4xf16> {
  %p = tide.max_pool %x kernel = [2, 2] strides = [2, 2] dilations = [1, 1] pads = [0, 0, 0, 0] {tide.device = #tide.device<cuda:0>} : tensor<1x8x8x8xf16>
  return %p : tensor<1x8x4x4xf16>
}

// -----

// Reduced precision's shape of a residual network: a block's f32 output is
// read by the cast to the next convolution's bf16 and by the next residual
// add. The transpose moves past both readers, and the one below the cast
// cancels with the next convolution's: every value stays NHWC.
// CHECK-LABEL: func.func @cast_and_residual(
// CHECK: %[[C:.*]] = tide.conv {{.*}} channels_last
// CHECK: %[[O:.*]] = tide.cast %[[C]] {{.*}} to tensor<2x8x8x64xf32>
// CHECK: %[[R:.*]] = tide.relu %[[O]] {{.*}} : tensor<2x8x8x64xf32>
// CHECK: %[[H:.*]] = tide.cast %[[R]] {{.*}} to tensor<2x8x8x64xbf16>
// CHECK: %[[C2:.*]] = tide.conv %[[H]], {{.*}} channels_last
// CHECK: %[[O2:.*]] = tide.cast %[[C2]] {{.*}} to tensor<2x8x8x64xf32>
// CHECK: %[[S:.*]] = tide.add %[[O2]], %[[R]] {{.*}} : tensor<2x8x8x64xf32>
// CHECK: %[[ST:.*]] = tide.transpose %[[S]] perm = [0, 3, 1, 2]
// CHECK: return %[[ST]]
func.func @cast_and_residual(%x: tensor<2x64x8x8xbf16>, %w: tensor<64x64x1x1xbf16>) -> tensor<2x64x8x8xf32> {
  %c = tide.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] {tide.device = #tide.device<cuda:0>} : tensor<2x64x8x8xbf16>, tensor<64x64x1x1xbf16>
  %o = tide.cast %c {tide.device = #tide.device<cuda:0>} : tensor<2x64x8x8xbf16> to tensor<2x64x8x8xf32>
  %r = tide.relu %o {tide.device = #tide.device<cuda:0>} : tensor<2x64x8x8xf32>
  %h = tide.cast %r {tide.device = #tide.device<cuda:0>} : tensor<2x64x8x8xf32> to tensor<2x64x8x8xbf16>
  %c2 = tide.conv %h, %w strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] {tide.device = #tide.device<cuda:0>} : tensor<2x64x8x8xbf16>, tensor<64x64x1x1xbf16>
  %o2 = tide.cast %c2 {tide.device = #tide.device<cuda:0>} : tensor<2x64x8x8xbf16> to tensor<2x64x8x8xf32>
  %s = tide.add %o2, %r {tide.device = #tide.device<cuda:0>} : tensor<2x64x8x8xf32>
  return %s : tensor<2x64x8x8xf32>
}

// -----

// A transposed value read by another op stays where it is: the relu is not
// moved past it (that would copy the transpose, not move it).
// CHECK-LABEL: func.func @two_readers(
// CHECK: %[[C:.*]] = tide.conv {{.*}} channels_last
// CHECK: %[[N:.*]] = tide.transpose %[[C]] perm = [0, 3, 1, 2]
// CHECK: %[[R:.*]] = tide.relu %[[N]] {{.*}} : tensor<1x8x4x4xf16>
// CHECK: return %[[N]], %[[R]]
func.func @two_readers(%x: tensor<1x8x4x4xf16>, %w: tensor<8x8x1x1xf16>) -> (tensor<1x8x4x4xf16>, tensor<1x8x4x4xf16>) {
  %c = tide.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] {tide.device = #tide.device<cuda:0>} : tensor<1x8x4x4xf16>, tensor<8x8x1x1xf16>
  %r = tide.relu %c {tide.device = #tide.device<cuda:0>} : tensor<1x8x4x4xf16>
  return %c, %r : tensor<1x8x4x4xf16>, tensor<1x8x4x4xf16>
}

// -----

// Left alone: CPU convolutions, grouped ones, 1-D ones, and f32 ones unless
// asked for (f32=true).
// CHECK-LABEL: func.func @unchanged(
// CHECK-NOT: channels_last
// CHECK-NOT: tide.transpose
// CHECK: return
// F32-LABEL: func.func @unchanged(
// F32: tide.conv %{{.*}}, %{{.*}} strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] {tide.device = #tide.device<cpu>} : tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>
// F32: tide.conv %{{.*}}, %{{.*}} strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] channels_last {tide.device = #tide.device<cuda:0>} : tensor<1x4x4x4xf32>, tensor<4x1x1x4xf32>
// F32: tide.conv %{{.*}}, %{{.*}} {{.*}} groups = 2 {tide.device
// F32: tide.conv %{{.*}}, %{{.*}} strides = [1] {{.*}} {tide.device
func.func @unchanged(%x: tensor<1x4x4x4xf32>, %w: tensor<4x4x1x1xf32>, %h: tensor<1x4x4x4xf16>, %g: tensor<4x2x1x1xf16>, %v: tensor<1x4x8xf16>, %k: tensor<4x4x3xf16>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf16>, tensor<1x4x6xf16>) {
  %0 = tide.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] {tide.device = #tide.device<cpu>} : tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>
  %1 = tide.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] {tide.device = #tide.device<cuda:0>} : tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>
  %2 = tide.conv %h, %g strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 2 {tide.device = #tide.device<cuda:0>} : tensor<1x4x4x4xf16>, tensor<4x2x1x1xf16>
  %3 = tide.conv %v, %k strides = [1] dilations = [1] pads = [0, 0] {tide.device = #tide.device<cuda:0>} : tensor<1x4x8xf16>, tensor<4x4x3xf16>
  return %0, %1, %2, %3 : tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf16>, tensor<1x4x6xf16>
}

// -----

// host=true (the CPU pipeline, for oneDNN): ungrouped 2-D f32 convolutions
// not placed on a GPU (unplaced or on the CPU) next to another convolution
// become channels-last, with the block's bias add and ReLU run on NHWC data
// and the global pooling reducing NHWC axes: the transposes between the two
// convolutions cancel. f64, grouped, dynamic-weight and GPU-placed f32
// convolutions stay as they are (so do 1-D and 3-D ones), and so does a
// host convolution with no other next to it (below).
// HOST-LABEL: func.func @host_block(
// HOST-SAME: %[[X:[^:]*]]: tensor<1x8x6x6xf32>, %[[W:[^:]*]]: tensor<8x8x3x3xf32>, %[[B:[^:]*]]: tensor<8x1x1xf32>
// HOST: %[[XT:.*]] = tide.transpose %[[X]] perm = [0, 2, 3, 1] : tensor<1x8x6x6xf32>
// HOST: %[[WT:.*]] = tide.transpose %[[W]] perm = [0, 2, 3, 1] : tensor<8x8x3x3xf32>
// HOST: %[[C:.*]] = tide.conv %[[XT]], %[[WT]] {{.*}} channels_last : tensor<1x6x6x8xf32>, tensor<8x3x3x8xf32>
// HOST: %[[A:.*]] = tide.add %[[C]], %{{.*}} : tensor<1x6x6x8xf32>
// HOST: %[[R:.*]] = tide.relu %[[A]] : tensor<1x6x6x8xf32>
// HOST: %[[C2:.*]] = tide.conv %[[R]], %[[WT]] {{.*}} channels_last : tensor<1x6x6x8xf32>, tensor<8x3x3x8xf32>
// HOST: tide.reduce_mean %[[C2]] axes = [1, 2] : tensor<1x6x6x8xf32>
// HOST-NOT: tide.transpose
// HOST: return
func.func @host_block(%x: tensor<1x8x6x6xf32>, %w: tensor<8x8x3x3xf32>, %b: tensor<8x1x1xf32>) -> tensor<1x8xf32> {
  %c = tide.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] : tensor<1x8x6x6xf32>, tensor<8x8x3x3xf32>
  %a = tide.add %c, %b : tensor<1x8x6x6xf32>, tensor<8x1x1xf32>
  %r = tide.relu %a : tensor<1x8x6x6xf32>
  %c2 = tide.conv %r, %w strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] : tensor<1x8x6x6xf32>, tensor<8x8x3x3xf32>
  %m = tide.reduce_mean %c2 axes = [2, 3] : tensor<1x8x6x6xf32>
  return %m : tensor<1x8xf32>
}

// -----

// A host convolution with its bias and ReLU but no other convolution next
// to it stays NCHW: its transposes in and out would not cancel, and oneDNN
// reorders NCHW data inside the call faster.
// HOST-LABEL: func.func @host_isolated(
// HOST-NOT: channels_last
// HOST-NOT: tide.transpose
// HOST: return
func.func @host_isolated(%x: tensor<1x8x6x6xf32>, %w: tensor<8x8x3x3xf32>, %b: tensor<8x1x1xf32>) -> tensor<1x8x6x6xf32> {
  %c = tide.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] : tensor<1x8x6x6xf32>, tensor<8x8x3x3xf32>
  %a = tide.add %c, %b : tensor<1x8x6x6xf32>, tensor<8x1x1xf32>
  %r = tide.relu %a : tensor<1x8x6x6xf32>
  return %r : tensor<1x8x6x6xf32>
}

// -----

// HOST-LABEL: func.func @host_unchanged(
// HOST-NOT: channels_last
// HOST-NOT: tide.transpose
// HOST: return
func.func @host_unchanged(%x: tensor<1x4x4x4xf32>, %w: tensor<4x4x1x1xf32>, %d: tensor<1x4x4x4xf64>, %wd: tensor<4x4x1x1xf64>, %g: tensor<4x2x1x1xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf64>, tensor<1x4x4x4xf32>) {
  %0 = tide.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] {tide.device = #tide.device<cuda:0>} : tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>
  %1 = tide.conv %d, %wd strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] : tensor<1x4x4x4xf64>, tensor<4x4x1x1xf64>
  %2 = tide.conv %x, %g strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 2 : tensor<1x4x4x4xf32>, tensor<4x2x1x1xf32>
  return %0, %1, %2 : tensor<1x4x4x4xf32>, tensor<1x4x4x4xf64>, tensor<1x4x4x4xf32>
}

// -----

// An identity transpose read by an elementwise op next to its own input
// (found by the random programs: the pass never ended, each move creating
// another identity transpose below the op). It is not moved; it folds away.
// CHECK-LABEL: func.func @identity_transpose(
// CHECK-SAME: %[[X:.*]]: tensor<?xbf16>)
// CHECK-NEXT: %[[M:.*]] = tide.mod %[[X]], %[[X]] : tensor<?xbf16>
// CHECK-NEXT: %[[S:.*]] = tide.reduce_sum %[[X]] axes = [0] : tensor<?xbf16>
// CHECK-NEXT: return %[[M]], %[[S]]
func.func @identity_transpose(%x: tensor<?xbf16>) -> (tensor<?xbf16>, tensor<bf16>) {
  %t = tide.transpose %x perm = [0] : tensor<?xbf16>
  %m = tide.mod %x, %t : tensor<?xbf16>
  %u = tide.transpose %x perm = [0] : tensor<?xbf16>
  %s = tide.reduce_sum %u axes = [0] : tensor<?xbf16>
  return %m, %s : tensor<?xbf16>, tensor<bf16>
}

// -----

// A depthwise (grouped) host convolution between two others goes
// channels-last too (oneDNN reads grouped NHWC data): a MobileNet block stays
// NHWC from end to end, no transposes between the convolutions.
// HOST-LABEL: func.func @host_depthwise(
// HOST: tide.conv {{.*}} channels_last : tensor<1x6x6x8xf32>, tensor<8x1x1x8xf32>
// HOST-NOT: tide.transpose
// HOST: tide.conv {{.*}} groups = 8 channels_last : tensor<1x6x6x8xf32>, tensor<8x3x3x1xf32>
// HOST-NOT: tide.transpose
// HOST: tide.conv {{.*}} channels_last : tensor<1x6x6x8xf32>, tensor<8x1x1x8xf32>
// HOST: tide.transpose %{{.*}} perm = [0, 3, 1, 2]
// HOST: return
func.func @host_depthwise(%x: tensor<1x8x6x6xf32>, %p: tensor<8x8x1x1xf32>, %d: tensor<8x1x3x3xf32>) -> tensor<1x8x6x6xf32> {
  %0 = tide.conv %x, %p strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] : tensor<1x8x6x6xf32>, tensor<8x8x1x1xf32>
  %1 = tide.conv %0, %d strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 8 : tensor<1x8x6x6xf32>, tensor<8x1x3x3xf32>
  %2 = tide.conv %1, %p strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] : tensor<1x8x6x6xf32>, tensor<8x8x1x1xf32>
  return %2 : tensor<1x8x6x6xf32>
}

// -----

// An elementwise op of a tensor and its own transpose by a permutation that
// is its own inverse: moving the transpose below the op would give the same
// form again (mul(t(y), y) -> t(mul(y, t(y)))); it stays, and the pass ends
// at once instead of at its rewrite limit (SVMClassifier's pairwise coupling
// took 110 s in this pass).
// CHECK-LABEL: func.func @own_transpose(
// CHECK-SAME: %[[Y:[^:]*]]: tensor<4x3x3xf32>
// CHECK: %[[T:.*]] = tide.transpose %[[Y]] perm = [0, 2, 1]
// CHECK: %[[M:.*]] = tide.mul %[[T]], %[[Y]]
// CHECK: %[[N:.*]] = tide.neg %[[M]]
// CHECK: return %[[N]]
func.func @own_transpose(%y: tensor<4x3x3xf32>) -> tensor<4x3x3xf32> {
  %t = tide.transpose %y perm = [0, 2, 1] : tensor<4x3x3xf32>
  %m = tide.mul %t, %y : tensor<4x3x3xf32>
  %n = tide.neg %m : tensor<4x3x3xf32>
  return %n : tensor<4x3x3xf32>
}

// -----

// A transpose sinks through a concatenation along a negative axis (made
// non-negative first; read as unsigned it indexed the permutation out of
// bounds and crashed: found by random programs built for h200).
// CHECK-LABEL: func.func @concat_negative_axis(
// CHECK-SAME: %[[X:.*]]: tensor<3x?xi64>
// CHECK: %[[C:.*]] = tide.concat %[[X]], %[[X]] axis = 0
// CHECK: %[[T:.*]] = tide.transpose %[[C]] perm = [1, 0]
// CHECK: return %[[T]]
func.func @concat_negative_axis(%x: tensor<3x?xi64>) -> tensor<?x6xi64> {
  %t = tide.transpose %x perm = [1, 0] {tide.device = #tide.device<cuda:0>} : tensor<3x?xi64>
  %c = tide.concat %t, %t axis = -1 {tide.device = #tide.device<cuda:0>} : tensor<?x3xi64>, tensor<?x3xi64>
  return %c : tensor<?x6xi64>
}
