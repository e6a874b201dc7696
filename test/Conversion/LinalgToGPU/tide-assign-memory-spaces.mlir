// RUN: tide-opt %s --tide-assign-memory-spaces --split-input-file -verify-diagnostics \
// RUN:   | FileCheck %s

// Allocations of GPU ops move to their GPU's memory space (the device
// attribute itself); host ops keep theirs, even when CSE gave both the same
// empty tensor.
#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @gpu_and_host(
// CHECK-SAME: %[[X:.*]]: tensor<8xf32>)
// CHECK: %[[T:.*]] = bufferization.alloc_tensor() copy(%[[X]]) {memory_space = #tide.device<cuda:0>}
// CHECK: %[[E:.*]] = tensor.empty() : tensor<8xf32>
// CHECK: %[[D:.*]] = bufferization.alloc_tensor() {memory_space = #tide.device<cuda:0>} : tensor<8xf32>
// CHECK: %[[G:.*]] = linalg.generic {{.*}} ins(%[[T]] : tensor<8xf32>) outs(%[[D]] : tensor<8xf32>)
// CHECK: math.exp
// CHECK: linalg.generic {{.*}} ins(%[[X]] : tensor<8xf32>) outs(%[[E]] : tensor<8xf32>)
// CHECK: math.log
// CHECK: bufferization.alloc_tensor() copy(%[[G]]) {memory_space = 0 : i64}
func.func @gpu_and_host(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %t = bufferization.alloc_tensor() copy(%x) {memory_space = #tide.device<cuda:0>} : tensor<8xf32>
  %e = tensor.empty() : tensor<8xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%t : tensor<8xf32>) outs(%e : tensor<8xf32>) attrs = {tide.device = #tide.device<cuda:0>} {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  } -> tensor<8xf32>
  %h = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) attrs = {tide.device = #tide.device<cpu>} {
  ^bb0(%in: f32, %out: f32):
    %0 = math.log %in : f32
    linalg.yield %0 : f32
  } -> tensor<8xf32>
  %back = bufferization.alloc_tensor() copy(%g) {memory_space = 0 : i64} : tensor<8xf32>
  return %back, %h : tensor<8xf32>, tensor<8xf32>
}

// -----

// An untagged op (made by fusion) that reads a GPU value is a GPU op; a
// constant it reads is copied to the device once; a fill shared by two
// outputs is cloned for each, each into its own device allocation.
#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @untagged_reader(
// CHECK: %[[C:.*]] = arith.constant dense<2.000000e+00> : tensor<8xf32>
// CHECK: %[[CD:.*]] = bufferization.alloc_tensor() copy(%[[C]]) {memory_space = #tide.device<cuda:0>}
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[CD]] : tensor<8xf32>, tensor<8xf32>) outs(%{{.*}} : tensor<8xf32>)
// CHECK: %[[A1:.*]] = bufferization.alloc_tensor() {memory_space = #tide.device<cuda:0>} : tensor<4x4xf32>
// CHECK: %[[F1:.*]] = linalg.fill {{.*}} outs(%[[A1]] : tensor<4x4xf32>)
// CHECK: linalg.matmul {{.*}} outs(%[[F1]] : tensor<4x4xf32>)
// CHECK: %[[A2:.*]] = bufferization.alloc_tensor() {memory_space = #tide.device<cuda:0>} : tensor<4x4xf32>
// CHECK: %[[F2:.*]] = linalg.fill {{.*}} outs(%[[A2]] : tensor<4x4xf32>)
// CHECK: linalg.matmul {{.*}} outs(%[[F2]] : tensor<4x4xf32>)
func.func @untagged_reader(%x: tensor<8xf32>, %m: tensor<4x4xf32>) -> (tensor<8xf32>, tensor<4x4xf32>, tensor<4x4xf32>) {
  %t = bufferization.alloc_tensor() copy(%x) {memory_space = #tide.device<cuda:0>} : tensor<8xf32>
  %tm = bufferization.alloc_tensor() copy(%m) {memory_space = #tide.device<cuda:0>} : tensor<4x4xf32>
  %c = arith.constant dense<2.0> : tensor<8xf32>
  %e = tensor.empty() : tensor<8xf32>
  %g = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%t, %c : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %0 = arith.mulf %in, %in2 : f32
    linalg.yield %0 : f32
  } -> tensor<8xf32>
  %zero = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<4x4xf32>
  %f = linalg.fill {tide.device = #tide.device<cuda:0>} ins(%zero : f32) outs(%e2 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %p = linalg.matmul {tide.device = #tide.device<cuda:0>} ins(%tm, %tm : tensor<4x4xf32>, tensor<4x4xf32>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  %q = linalg.matmul {tide.device = #tide.device<cuda:0>} ins(%p, %tm : tensor<4x4xf32>, tensor<4x4xf32>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %g, %p, %q : tensor<8xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// A constant a GPU op reads through a reshape (folding makes such chains) is
// copied to the device, and the reshape views the copy.
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @constant_through_reshape(
// CHECK: %[[C:.*]] = arith.constant dense<{{.*}}> : tensor<3xf32>
// CHECK: %[[CD:.*]] = bufferization.alloc_tensor() copy(%[[C]]) {memory_space = #tide.device<cuda:0>}
// CHECK: tensor.expand_shape %[[CD]]
func.func @constant_through_reshape(%x: tensor<3x1x1xf32>) -> tensor<3x1x1xf32> {
  %t = bufferization.alloc_tensor() copy(%x) {memory_space = #tide.device<cuda:0>} : tensor<3x1x1xf32>
  %c = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %r = tensor.expand_shape %c [[0, 1, 2]] output_shape [3, 1, 1] : tensor<3xf32> into tensor<3x1x1xf32>
  %e = tensor.empty() : tensor<3x1x1xf32>
  %g = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%t, %r : tensor<3x1x1xf32>, tensor<3x1x1xf32>) outs(%e : tensor<3x1x1xf32>) attrs = {tide.device = #tide.device<cuda:0>} {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %0 = arith.mulf %in, %in2 : f32
    linalg.yield %0 : f32
  } -> tensor<3x1x1xf32>
  return %g : tensor<3x1x1xf32>
}

// -----

// A constant table a GPU op's payload reads through a reshape (tide.gather's
// tensor.extract of a reshaped constant; a random ONNX graph's GatherND on
// the H100 read the host constant: an illegal address) is copied too.
#id1 = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @constant_table_through_reshape(
// CHECK: %[[C:.*]] = arith.constant dense<{{.*}}> : tensor<2x3xf32>
// CHECK: %[[CD:.*]] = bufferization.alloc_tensor() copy(%[[C]]) {memory_space = #tide.device<cuda:0>}
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[CD]]
// CHECK: linalg.generic
// CHECK: tensor.extract %[[R]]
func.func @constant_table_through_reshape(%i: tensor<2xindex>) -> tensor<2xf32> {
  %t = bufferization.alloc_tensor() copy(%i) {memory_space = #tide.device<cuda:0>} : tensor<2xindex>
  %c = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %r = tensor.collapse_shape %c [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  %e = tensor.empty() : tensor<2xf32>
  %g = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%t : tensor<2xindex>) outs(%e : tensor<2xf32>) attrs = {tide.device = #tide.device<cuda:0>} {
  ^bb0(%in: index, %out: f32):
    %v = tensor.extract %r[%in] : tensor<6xf32>
    linalg.yield %v : f32
  } -> tensor<2xf32>
  return %g : tensor<2xf32>
}

// -----

// A GPU softmax (linalg.softmax, not a structured op) of a constant reads a
// device copy of it, directly or through a reshape (it read the host
// constant: "mixes host and GPU memory", a random program of a constant's
// softmax on the H200).
// CHECK-LABEL: func.func @softmax_of_constant(
// CHECK: %[[C:.*]] = arith.constant dense<{{.*}}> : tensor<4xf32>
// CHECK: %[[CD:.*]] = bufferization.alloc_tensor() copy(%[[C]]) {memory_space = #tide.device<cuda:0>}
// CHECK: %[[O:.*]] = bufferization.alloc_tensor() {memory_space = #tide.device<cuda:0>} : tensor<4xf32>
// CHECK: linalg.softmax {{.*}} ins(%[[CD]] : tensor<4xf32>) outs(%[[O]] : tensor<4xf32>)
// CHECK: %[[R:.*]] = tensor.expand_shape %[[CD]]
// CHECK: linalg.softmax {{.*}} ins(%[[R]] : tensor<1x4xf32>)
func.func @softmax_of_constant() -> (tensor<4xf32>, tensor<1x4xf32>) {
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %s = linalg.softmax {tide.device = #tide.device<cuda:0>} dimension(0) ins(%c : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = tensor.expand_shape %c [[0, 1]] output_shape [1, 4] : tensor<4xf32> into tensor<1x4xf32>
  %e2 = tensor.empty() : tensor<1x4xf32>
  %s2 = linalg.softmax {tide.device = #tide.device<cuda:0>} dimension(1) ins(%r : tensor<1x4xf32>) outs(%e2 : tensor<1x4xf32>) -> tensor<1x4xf32>
  return %s, %s2 : tensor<4xf32>, tensor<1x4xf32>
}

// -----

// The shape operand of a tensor.reshape stays on the host (the host reads
// it for the view's sizes; a device copy was read by the host, a crash
// found by random programs on the H200); the reshaped data moves.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @reshape_shape_stays(
// CHECK: %[[S:.*]] = arith.constant dense<[1, 14]> : tensor<2xindex>
// CHECK-NOT: copy(%[[S]])
// CHECK: tensor.reshape %{{.*}}(%[[S]])
func.func @reshape_shape_stays(%x: tensor<2x7xf32>) -> tensor<?x14xf32> {
  %t = bufferization.alloc_tensor() copy(%x) {memory_space = #tide.device<cuda:0>} : tensor<2x7xf32>
  %s = arith.constant dense<[1, 14]> : tensor<2xindex>
  %r = tensor.reshape %t(%s) : (tensor<2x7xf32>, tensor<2xindex>) -> tensor<?x14xf32>
  %c0 = arith.constant 0 : index
  %d = tensor.dim %r, %c0 : tensor<?x14xf32>
  %e = tensor.empty(%d) : tensor<?x14xf32>
  %g = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%r : tensor<?x14xf32>) outs(%e : tensor<?x14xf32>) attrs = {tide.device = #tide.device<cuda:0>} {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  } -> tensor<?x14xf32>
  return %g : tensor<?x14xf32>
}

// A constant a GPU op reads through a slice of a run-time size (positions up
// to the sequence length) is copied to the device; the slice views the copy.
#id1 = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @constant_through_slice(
// CHECK: %[[C:.*]] = arith.constant dense<{{.*}}> : tensor<1x4xi64>
// CHECK: %[[CD:.*]] = bufferization.alloc_tensor() copy(%[[C]]) {memory_space = #tide.device<cuda:0>}
// CHECK: tensor.extract_slice %[[CD]][0, 0] [1, %{{.*}}] [1, 1]
func.func @constant_through_slice(%x: tensor<1x?xi64>) -> tensor<1x?xi64> {
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c1 : tensor<1x?xi64>
  %t = bufferization.alloc_tensor() copy(%x) {memory_space = #tide.device<cuda:0>} : tensor<1x?xi64>
  %c = arith.constant dense<[[0, 3, 6, 9]]> : tensor<1x4xi64>
  %s = tensor.extract_slice %c[0, 0] [1, %n] [1, 1] {tide.device = #tide.device<cuda:0>} : tensor<1x4xi64> to tensor<1x?xi64>
  %e = tensor.empty(%n) : tensor<1x?xi64>
  %g = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel", "parallel"]}
      ins(%t, %s : tensor<1x?xi64>, tensor<1x?xi64>) outs(%e : tensor<1x?xi64>) attrs = {tide.device = #tide.device<cuda:0>} {
  ^bb0(%in: i64, %in2: i64, %out: i64):
    %0 = arith.addi %in, %in2 : i64
    linalg.yield %0 : i64
  } -> tensor<1x?xi64>
  return %g : tensor<1x?xi64>
}

// -----

// A constant that a GPU op's payload reads (tide.gather: tensor.extract in a
// linalg.generic) is copied to the device too, and the payload reads the copy.
#id2 = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @payload_reads_constant(
// CHECK: %[[C:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>
// CHECK: %[[CD:.*]] = bufferization.alloc_tensor() copy(%[[C]]) {memory_space = #tide.device<cuda:0>}
// CHECK: linalg.generic
// CHECK: tensor.extract %[[CD]][
func.func @payload_reads_constant(%i: tensor<4xindex>) -> tensor<4xf32> {
  %t = bufferization.alloc_tensor() copy(%i) {memory_space = #tide.device<cuda:0>} : tensor<4xindex>
  %c = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %e = tensor.empty() : tensor<4xf32>
  %g = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel"]}
      ins(%t : tensor<4xindex>) outs(%e : tensor<4xf32>) attrs = {tide.device = #tide.device<cuda:0>} {
  ^bb0(%in: index, %out: f32):
    %0 = tensor.extract %c[%in] : tensor<3xf32>
    linalg.yield %0 : f32
  } -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

// A concatenation on the GPU becomes insert_slice ops into one device
// allocation.
// CHECK-LABEL: func.func @concat(
// CHECK: %[[R:.*]] = bufferization.alloc_tensor() {memory_space = #tide.device<cuda:0>} : tensor<6xf32>
// CHECK: %[[S:.*]] = tensor.insert_slice %{{.*}} into %[[R]][0] [2] [1]
// CHECK: tensor.insert_slice %{{.*}} into %[[S]][2] [4] [1]
// CHECK-NOT: tensor.concat
func.func @concat(%a: tensor<2xf32>, %b: tensor<4xf32>) -> tensor<6xf32> {
  %ta = bufferization.alloc_tensor() copy(%a) {memory_space = #tide.device<cuda:0>} : tensor<2xf32>
  %tb = bufferization.alloc_tensor() copy(%b) {memory_space = #tide.device<cuda:0>} : tensor<4xf32>
  %c = tensor.concat dim(0) %ta, %tb {tide.device = #tide.device<cuda:0>} : (tensor<2xf32>, tensor<4xf32>) -> tensor<6xf32>
  %h = bufferization.alloc_tensor() copy(%c) {memory_space = 0 : i64} : tensor<6xf32>
  return %h : tensor<6xf32>
}

// -----

// The lowering drives one GPU.
func.func @second_gpu(%x: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  // expected-error @below {{is placed on cuda:1, but Tide's GPU lowering drives one GPU (cuda:0) so far; place with a single-GPU target}}
  %f = linalg.copy {tide.device = #tide.device<cuda:1>} ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  return %f : tensor<8xf32>
}

// -----

// A GPU op's payload reading an empty tensor (tide.gather of an empty slice:
// tensor.extract inside the linalg.generic) gets its device allocation
// before the op, not inside the payload (which became a gpu.alloc inside
// the kernel: found by random programs).
#id2 = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @gather_of_empty(
// CHECK: %[[E:.*]] = bufferization.alloc_tensor() {memory_space = #tide.device<cuda:0>} : tensor<1x0xbf16>
// CHECK: linalg.generic
// CHECK-NOT: alloc_tensor
// CHECK: tensor.extract %[[E]]
func.func @gather_of_empty(%idx: tensor<4x4xi64>) -> tensor<4x4xbf16> {
  %c0 = arith.constant 0 : index
  %src = tensor.empty() {tide.device = #tide.device<cuda:0>} : tensor<1x0xbf16>
  %out = tensor.empty() {tide.device = #tide.device<cuda:0>} : tensor<4x4xbf16>
  %r = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%idx : tensor<4x4xi64>) outs(%out : tensor<4x4xbf16>) attrs = {tide.device = #tide.device<cuda:0>} {
  ^bb0(%i: i64, %o: bf16):
    %j = linalg.index 1 : index
    %x = tensor.extract %src[%c0, %j] : tensor<1x0xbf16>
    linalg.yield %x : bf16
  } -> tensor<4x4xbf16>
  return %r : tensor<4x4xbf16>
}

// -----

// An empty tensor (untagged: canonicalization drops the tag of an empty
// whose sizes fold) shared by an untagged GPU op and, through a cast, by a
// host loop's initial buffer (a conditional tide.scan's stacked results):
// the GPU op gets a device allocation, the cast keeps the host empty. Before,
// the cast's buffer went to the GPU too, and bufferization refused the host
// loop ("inconsistent memory space on then/else branches").
#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @host_loop_buffer(
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1xf32>
// CHECK: %[[D:.*]] = bufferization.alloc_tensor() {memory_space = #tide.device<cuda:0>} : tensor<1xf32>
// CHECK: linalg.generic {{.*}} outs(%[[D]] : tensor<1xf32>)
// CHECK: %[[C:.*]] = tensor.cast %[[E]] : tensor<1xf32> to tensor<?xf32>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[C]])
func.func @host_loop_buffer(%x: tensor<1xf32>, %n: index) -> (tensor<1xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = bufferization.alloc_tensor() copy(%x) {memory_space = #tide.device<cuda:0>} : tensor<1xf32>
  %e = tensor.empty() : tensor<1xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%t : tensor<1xf32>) outs(%e : tensor<1xf32>) attrs = {tide.device = #tide.device<cuda:0>} {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  } -> tensor<1xf32>
  %back = bufferization.alloc_tensor() copy(%g) {memory_space = 0 : i64} : tensor<1xf32>
  %cast = tensor.cast %e : tensor<1xf32> to tensor<?xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %cast) -> tensor<?xf32> {
    scf.yield %acc : tensor<?xf32>
  } {tide.device = #tide.device<cpu>}
  return %back, %r : tensor<1xf32>, tensor<?xf32>
}

// -----

// The same through an unrolled host loop (a tide.scan of two steps): its
// stacked results are untagged insertions of host values into an empty
// tensor CSE merged with a GPU op's output. The insertions keep the host
// empty; before, they went to the GPU's buffer and a host op read it ("mixes
// host and GPU memory").
#id3 = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @host_stack_of_unrolled_loop(
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x4xi32>
// CHECK: %[[D:.*]] = bufferization.alloc_tensor() {memory_space = #tide.device<cuda:0>} : tensor<2x4xi32>
// CHECK: linalg.generic {{.*}} outs(%[[D]] : tensor<2x4xi32>)
// CHECK: %[[I:.*]] = tensor.insert_slice %{{.*}} into %[[E]][0, 0]
// CHECK: tensor.insert_slice %{{.*}} into %[[I]][1, 0]
func.func @host_stack_of_unrolled_loop(%x: tensor<2x4xi32>, %r: tensor<1x4xi32>) -> (tensor<2x4xi32>, tensor<2x4xi32>) {
  %t = bufferization.alloc_tensor() copy(%x) {memory_space = #tide.device<cuda:0>} : tensor<2x4xi32>
  %e = tensor.empty() : tensor<2x4xi32>
  %g = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<2x4xi32>) outs(%e : tensor<2x4xi32>) attrs = {tide.device = #tide.device<cuda:0>} {
  ^bb0(%in: i32, %out: i32):
    %0 = arith.addi %in, %in : i32
    linalg.yield %0 : i32
  } -> tensor<2x4xi32>
  %back = bufferization.alloc_tensor() copy(%g) {memory_space = 0 : i64} : tensor<2x4xi32>
  %s0 = tensor.insert_slice %r into %e[0, 0] [1, 4] [1, 1] : tensor<1x4xi32> into tensor<2x4xi32>
  %s1 = tensor.insert_slice %r into %s0[1, 0] [1, 4] [1, 1] : tensor<1x4xi32> into tensor<2x4xi32>
  return %back, %s1 : tensor<2x4xi32>, tensor<2x4xi32>
}
