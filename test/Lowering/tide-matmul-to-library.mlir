// Tests of tide-matmul-to-library: a buffer-level 2-D linalg.matmul on f32
// becomes a call of oneDNN's matmul (tide_rt_cpu_matmul_f32: dnnl.mlir); with
// dnnl=false, and on f64, a call to Tide's runtime GEMM
// (tide_rt_gemm_f32/f64: the other parts), its
// operands cast to one dynamically shaped, row-strided memref type; the
// runtime function is declared once, private, with the C interface. Other
// element types and tensor-level matmuls stay linalg. The inputs are the parts
// of this file after the `//---` markers.

// RUN: rm -rf %t && split-file %s %t
// RUN: tide-opt %t/gemm.mlir --tide-matmul-to-library=dnnl=false | FileCheck %t/gemm.mlir
// Three matmuls, two element types: exactly two declarations.
// RUN: tide-opt %t/gemm.mlir --tide-matmul-to-library=dnnl=false \
// RUN:   | grep -c "func.func private @tide_rt_gemm" | FileCheck %t/gemm.mlir --check-prefix=DECLS
// RUN: tide-opt %t/untouched.mlir --tide-matmul-to-library=dnnl=false | FileCheck %t/untouched.mlir
// RUN: tide-opt %t/batched.mlir --tide-matmul-to-library=dnnl=false | FileCheck %t/batched.mlir
// RUN: tide-opt %t/dnnl.mlir --tide-matmul-to-library=threads=2 | FileCheck %t/dnnl.mlir
// Known bugs (see the comments in that part): run last.
// RUN: tide-opt %t/layouts.mlir --tide-matmul-to-library=dnnl=false | FileCheck %t/layouts.mlir

//--- dnnl.mlir

// f32 matmuls whose right operand is a constant memref.global (a linear
// layer's weight) call oneDNN's matmul (tide_rt_cpu_matmul_f32), flagged
// constant so the runtime packs the weight once; a zero fill right before,
// or a copy from a zero-filled buffer, becomes accumulate = 0 and is erased.
// CHECK-DAG: func.func private @tide_rt_cpu_matmul_f32(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i32, i32, i32) attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @tide_rt_cpu_matmul_batched_f32(memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>, i32, i32, i32) attributes {llvm.emit_c_interface}
memref.global "private" constant @weight : memref<5x6xf32> = dense<1.0>

// CHECK-LABEL: func.func @constant_weight(
// CHECK-SAME: %[[A:.*]]: memref<4x5xf32>, %[[C:.*]]: memref<4x6xf32>)
// CHECK-NOT: linalg.fill
// CHECK: %[[W:.*]] = memref.get_global @weight
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[TWO:.*]] = arith.constant 2 : i32
// CHECK-DAG: %[[CA:.*]] = memref.cast %[[A]]
// CHECK-DAG: %[[CW:.*]] = memref.cast %[[W]]
// CHECK-DAG: %[[CC:.*]] = memref.cast %[[C]]
// CHECK: call @tide_rt_cpu_matmul_f32(%[[CA]], %[[CW]], %[[CC]], %[[ZERO]], %[[ONE]], %[[TWO]])
// CHECK-NOT: linalg.matmul
func.func @constant_weight(%a: memref<4x5xf32>, %c: memref<4x6xf32>) {
  %zero = arith.constant 0.0 : f32
  %w = memref.get_global @weight : memref<5x6xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<4x6xf32>)
  linalg.matmul ins(%a, %w : memref<4x5xf32>, memref<5x6xf32>) outs(%c : memref<4x6xf32>)
  return
}

// A weight stored (out, in), as ONNX's Gemm with transB keeps it: the
// transposing copy (the linalg.generic elementwise fusion leaves) goes, and
// oneDNN reads the constant through a transposed view, flagged constant. A
// copy of an argument (not constant) stays.
memref.global "private" constant @weight_t : memref<6x5xf32> = dense<1.0>
#swap = affine_map<(d0, d1) -> (d1, d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @transposed_weight(
// CHECK-NOT: memref.alloc
// CHECK-NOT: linalg.generic
// CHECK: %[[W:.*]] = memref.get_global @weight_t : memref<6x5xf32>
// CHECK: %[[T:.*]] = memref.transpose %[[W]] (d0, d1) -> (d1, d0) : memref<6x5xf32> to memref<5x6xf32, strided<[1, 5]>>
// CHECK: %[[CT:.*]] = memref.cast %[[T]] : memref<5x6xf32, strided<[1, 5]>> to memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK: call @tide_rt_cpu_matmul_f32(%{{.*}}, %[[CT]], %{{.*}}, %{{.*}}, %c1_i32{{.*}}, %{{.*}})
// CHECK-NOT: memref.dealloc
// CHECK-LABEL: func.func @transposed_argument(
// CHECK: linalg.transpose
// CHECK: call @tide_rt_cpu_matmul_f32(
func.func @transposed_weight(%a: memref<4x5xf32>, %c: memref<4x6xf32>) {
  %zero = arith.constant 0.0 : f32
  %w = memref.get_global @weight_t : memref<6x5xf32>
  %t = memref.alloc() {alignment = 64 : i64} : memref<5x6xf32>
  linalg.generic {indexing_maps = [#swap, #id2], iterator_types = ["parallel", "parallel"]} ins(%w : memref<6x5xf32>) outs(%t : memref<5x6xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  linalg.fill ins(%zero : f32) outs(%c : memref<4x6xf32>)
  linalg.matmul ins(%a, %t : memref<4x5xf32>, memref<5x6xf32>) outs(%c : memref<4x6xf32>)
  memref.dealloc %t : memref<5x6xf32>
  return
}

func.func @transposed_argument(%a: memref<4x5xf32>, %w: memref<6x5xf32>, %c: memref<4x6xf32>) {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() {alignment = 64 : i64} : memref<5x6xf32>
  linalg.transpose ins(%w : memref<6x5xf32>) outs(%t : memref<5x6xf32>) permutation = [1, 0]
  linalg.fill ins(%zero : f32) outs(%c : memref<4x6xf32>)
  linalg.matmul ins(%a, %t : memref<4x5xf32>, memref<5x6xf32>) outs(%c : memref<4x6xf32>)
  memref.dealloc %t : memref<5x6xf32>
  return
}

// The output is a copy of a shared zero buffer (CSE'd zero tensors): the
// copy is erased, the zero buffer kept; without a zero output, accumulate = 1.
// CHECK-LABEL: func.func @zero_copy(
// CHECK: linalg.fill
// CHECK-NOT: memref.copy
// CHECK: call @tide_rt_cpu_matmul_f32(%{{.*}}, %{{.*}}, %{{.*}}, %c0_i32
// CHECK: call @tide_rt_cpu_matmul_f32(%{{.*}}, %{{.*}}, %{{.*}}, %c1_i32
func.func @zero_copy(%a: memref<4x5xf32>, %c: memref<4x6xf32>, %d: memref<4x6xf32>) {
  %zero = arith.constant 0.0 : f32
  %w = memref.get_global @weight : memref<5x6xf32>
  %zeros = memref.alloc() : memref<4x6xf32>
  linalg.fill ins(%zero : f32) outs(%zeros : memref<4x6xf32>)
  memref.copy %zeros, %c : memref<4x6xf32> to memref<4x6xf32>
  linalg.matmul ins(%a, %w : memref<4x5xf32>, memref<5x6xf32>) outs(%c : memref<4x6xf32>)
  linalg.matmul ins(%a, %w : memref<4x5xf32>, memref<5x6xf32>) outs(%d : memref<4x6xf32>)
  memref.dealloc %zeros : memref<4x6xf32>
  return
}

// A weight that is an argument (not constant) is flagged so (0): the
// runtime reorders it at every call instead of keeping a packed copy.
// CHECK-LABEL: func.func @argument_weight(
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK: call @tide_rt_cpu_matmul_f32(%{{.*}}, %{{.*}}, %{{.*}}, %[[ONE]], %[[ZERO]],
// CHECK-NOT: tide_rt_gemm
func.func @argument_weight(%a: memref<4x5xf32>, %w: memref<5x6xf32>, %c: memref<4x6xf32>) {
  linalg.matmul ins(%a, %w : memref<4x5xf32>, memref<5x6xf32>) outs(%c : memref<4x6xf32>)
  return
}

// f64 keeps the BLAS (oneDNN has no f64 matmul).
// CHECK-LABEL: func.func @negative_f64(
// CHECK: call @tide_rt_gemm_f64(
func.func @negative_f64(%a: memref<4x5xf64>, %w: memref<5x6xf64>, %c: memref<4x6xf64>) {
  linalg.matmul ins(%a, %w : memref<4x5xf64>, memref<5x6xf64>) outs(%c : memref<4x6xf64>)
  return
}

// Batched f32 matmuls: one call of tide_rt_cpu_matmul_batched_f32 on 3-D
// (batch, rows, cols) views. Attention's per-head products: the (2, 3)
// batch dims step uniformly in all three operands, so they join one batch
// of 6 (no host loop); the batch stride of q is 4 * 5 = 20.
#q = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
#k = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>
#s = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @heads(
// CHECK-NOT: scf.for
// CHECK: %[[Q0:.*]], %{{.*}}, %[[QS:.*]]:4, %[[QT:.*]]:4 = memref.extract_strided_metadata %arg0
// CHECK: %[[SIX:.*]] = arith.constant 6 : index
// CHECK: %[[Q:.*]] = memref.reinterpret_cast %[[Q0]] to offset: [%{{.*}}], sizes: [%[[SIX]], %[[QS]]#2, %[[QS]]#3], strides: [%[[QT]]#1, %[[QT]]#2, 1]
// CHECK: %[[K:.*]] = memref.reinterpret_cast
// CHECK: %[[S:.*]] = memref.reinterpret_cast
// CHECK-NOT: scf.for
// CHECK: call @tide_rt_cpu_matmul_batched_f32(%[[Q]], %[[K]], %[[S]], %c1_i32, %c0_i32, %c2_i32)
// CHECK-NOT: linalg.generic
func.func @heads(%q: memref<2x3x4x5xf32>, %k: memref<2x3x5x4xf32>, %s: memref<2x3x4x4xf32>) {
  linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : memref<2x3x4x5xf32>, memref<2x3x5x4xf32>) outs(%s : memref<2x3x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %t = arith.addf %acc, %m : f32
    linalg.yield %t : f32
  }
  return
}

// A linear layer on a (batch, sequence, hidden) tensor with a constant
// weight: the batch folds into the rows (a batch of 1, 2 x 3 rows; the
// weight's batch stride 0), flagged constant.
#x = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#w = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
#y = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
memref.global "private" constant @w45 : memref<4x5xf32> = dense<1.0>
// CHECK-LABEL: func.func @linear(
// CHECK-NOT: scf.for
// CHECK: %[[X:.*]] = memref.reinterpret_cast %{{.*}} to offset: [%{{.*}}], sizes: [1, 6, %{{.*}}], strides: [%[[Z:.*]], %{{.*}}, 1]
// CHECK: %[[W:.*]] = memref.reinterpret_cast
// CHECK: %[[Y:.*]] = memref.reinterpret_cast
// CHECK: call @tide_rt_cpu_matmul_batched_f32(%[[X]], %[[W]], %[[Y]], %c1_i32, %c1_i32_0, %c2_i32)
func.func @linear(%x: memref<2x3x4xf32>, %y: memref<2x3x5xf32>) {
  %w = memref.get_global @w45 : memref<4x5xf32>
  linalg.generic {indexing_maps = [#x, #w, #y], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<2x3x4xf32>, memref<4x5xf32>) outs(%y : memref<2x3x5xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}

// A batch dim that does not step uniformly (the second image of a strided
// view) stays a host loop around one call per image, over the 3 heads.
// CHECK-LABEL: func.func @strided_images(
// CHECK: scf.for
// CHECK: call @tide_rt_cpu_matmul_batched_f32(
func.func @strided_images(%q: memref<2x3x4x5xf32, strided<[120, 20, 5, 1]>>, %k: memref<2x3x5x4xf32>, %s: memref<2x3x4x4xf32>) {
  linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : memref<2x3x4x5xf32, strided<[120, 20, 5, 1]>>, memref<2x3x5x4xf32>) outs(%s : memref<2x3x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %t = arith.addf %acc, %m : f32
    linalg.yield %t : f32
  }
  return
}

//--- gemm.mlir

// DECLS: {{^}}2{{$}}

// The declarations come first in the module, private, with the C interface.
// CHECK-DAG: func.func private @tide_rt_gemm_f32(memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<?x?xf32, strided<[?, 1], offset: ?>>, i32) attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @tide_rt_gemm_f64(memref<?x?xf64, strided<[?, 1], offset: ?>>, memref<?x?xf64, strided<[?, 1], offset: ?>>, memref<?x?xf64, strided<[?, 1], offset: ?>>, i32) attributes {llvm.emit_c_interface}

// f32: A, B and C are cast, in that order, and passed to the f32 GEMM, which
// accumulates into C (1: C += A B) where C's contents are not known to be 0.
// CHECK-LABEL: func.func @gemm_f32(
// CHECK-SAME: %[[A:.*]]: memref<4x5xf32>, %[[B:.*]]: memref<5x6xf32>, %[[C:.*]]: memref<4x6xf32>)
// CHECK: %[[ACC:.*]] = arith.constant 1 : i32
// CHECK: %[[CA:.*]] = memref.cast %[[A]] : memref<4x5xf32> to memref<?x?xf32, strided<[?, 1], offset: ?>>
// CHECK: %[[CB:.*]] = memref.cast %[[B]] : memref<5x6xf32> to memref<?x?xf32, strided<[?, 1], offset: ?>>
// CHECK: %[[CC:.*]] = memref.cast %[[C]] : memref<4x6xf32> to memref<?x?xf32, strided<[?, 1], offset: ?>>
// CHECK: call @tide_rt_gemm_f32(%[[CA]], %[[CB]], %[[CC]], %[[ACC]])
// CHECK-NOT: linalg.matmul
// CHECK: return
func.func @gemm_f32(%a: memref<4x5xf32>, %b: memref<5x6xf32>, %c: memref<4x6xf32>) {
  linalg.matmul ins(%a, %b : memref<4x5xf32>, memref<5x6xf32>) outs(%c : memref<4x6xf32>)
  return
}

// Two f64 GEMMs (dynamic shapes) share one declaration; the second reads the
// first's output.
// CHECK-LABEL: func.func @two_gemms_f64(
// CHECK-SAME: %[[A:.*]]: memref<?x?xf64>, %[[B:.*]]: memref<?x?xf64>, %[[C:.*]]: memref<?x?xf64>, %[[D:.*]]: memref<?x?xf64>)
// CHECK: %[[CA:.*]] = memref.cast %[[A]] : memref<?x?xf64> to memref<?x?xf64, strided<[?, 1], offset: ?>>
// CHECK: %[[CB:.*]] = memref.cast %[[B]]
// CHECK: %[[CC:.*]] = memref.cast %[[C]]
// CHECK: call @tide_rt_gemm_f64(%[[CA]], %[[CB]], %[[CC]], %{{.*}})
// CHECK: %[[CC2:.*]] = memref.cast %[[C]]
// CHECK: %[[CB2:.*]] = memref.cast %[[B]]
// CHECK: %[[CD:.*]] = memref.cast %[[D]]
// CHECK: call @tide_rt_gemm_f64(%[[CC2]], %[[CB2]], %[[CD]], %{{.*}})
// CHECK-NOT: linalg.matmul
// CHECK: return
func.func @two_gemms_f64(%a: memref<?x?xf64>, %b: memref<?x?xf64>, %c: memref<?x?xf64>, %d: memref<?x?xf64>) {
  linalg.matmul ins(%a, %b : memref<?x?xf64>, memref<?x?xf64>) outs(%c : memref<?x?xf64>)
  linalg.matmul ins(%c, %b : memref<?x?xf64>, memref<?x?xf64>) outs(%d : memref<?x?xf64>)
  return
}

// A subview with unit inner stride (a row block) is passed as it is.
// CHECK-LABEL: func.func @gemm_subview(
// CHECK: %[[S:.*]] = memref.subview
// CHECK: %[[CS:.*]] = memref.cast %[[S]] : memref<2x5xf32, strided<[5, 1], offset: 5>> to memref<?x?xf32, strided<[?, 1], offset: ?>>
// CHECK: call @tide_rt_gemm_f32(%[[CS]],
func.func @gemm_subview(%a: memref<4x5xf32>, %b: memref<5x6xf32>, %c: memref<2x6xf32>) {
  %s = memref.subview %a[1, 0] [2, 5] [1, 1] : memref<4x5xf32> to memref<2x5xf32, strided<[5, 1], offset: 5>>
  linalg.matmul ins(%s, %b : memref<2x5xf32, strided<[5, 1], offset: 5>>, memref<5x6xf32>) outs(%c : memref<2x6xf32>)
  return
}

// A zero-filled output (the fill right before, or earlier with nothing
// between reading it) is overwritten: beta 0 (flag 0), no fill left.
// CHECK-LABEL: func.func @zero_output_f64(
// CHECK-NOT: linalg.fill
// CHECK: %[[OVERWRITE:.*]] = arith.constant 0 : i32
// CHECK: call @tide_rt_gemm_f64(%{{.*}}, %{{.*}}, %{{.*}}, %[[OVERWRITE]])
// CHECK-NOT: linalg.fill
// CHECK: return
func.func @zero_output_f64(%a: memref<4x5xf64>, %b: memref<5x6xf64>, %c: memref<4x6xf64>) {
  %zero = arith.constant 0.0 : f64
  linalg.fill ins(%zero : f64) outs(%c : memref<4x6xf64>)
  linalg.matmul ins(%a, %b : memref<4x5xf64>, memref<5x6xf64>) outs(%c : memref<4x6xf64>)
  return
}

// A fill with another value stays, and the product accumulates into it.
// CHECK-LABEL: func.func @one_output_f64(
// CHECK: linalg.fill
// CHECK: %[[ACC:.*]] = arith.constant 1 : i32
// CHECK: call @tide_rt_gemm_f64(%{{.*}}, %{{.*}}, %{{.*}}, %[[ACC]])
func.func @one_output_f64(%a: memref<4x5xf64>, %b: memref<5x6xf64>, %c: memref<4x6xf64>) {
  %one = arith.constant 1.0 : f64
  linalg.fill ins(%one : f64) outs(%c : memref<4x6xf64>)
  linalg.matmul ins(%a, %b : memref<4x5xf64>, memref<5x6xf64>) outs(%c : memref<4x6xf64>)
  return
}

//--- untouched.mlir

// No f32/f64 buffer matmul in the module: nothing is declared.
// CHECK-NOT: tide_rt_gemm

// Integer matmuls stay generated loops.
// CHECK-LABEL: func.func @negative_i32(
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<4x5xi32>, memref<5x6xi32>) outs(%{{.*}} : memref<4x6xi32>)
func.func @negative_i32(%a: memref<4x5xi32>, %b: memref<5x6xi32>, %c: memref<4x6xi32>) {
  linalg.matmul ins(%a, %b : memref<4x5xi32>, memref<5x6xi32>) outs(%c : memref<4x6xi32>)
  return
}

// f16 has no library GEMM either.
// CHECK-LABEL: func.func @negative_f16(
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<4x5xf16>, memref<5x6xf16>)
func.func @negative_f16(%a: memref<4x5xf16>, %b: memref<5x6xf16>, %c: memref<4x6xf16>) {
  linalg.matmul ins(%a, %b : memref<4x5xf16>, memref<5x6xf16>) outs(%c : memref<4x6xf16>)
  return
}

// Before bufferization (tensor semantics) the pass does nothing.
// CHECK-LABEL: func.func @negative_tensor(
// CHECK: %[[R:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x5xf32>, tensor<5x6xf32>) outs(%{{.*}} : tensor<4x6xf32>) -> tensor<4x6xf32>
// CHECK: return %[[R]]
func.func @negative_tensor(%a: tensor<4x5xf32>, %b: tensor<5x6xf32>, %c: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<4x5xf32>, tensor<5x6xf32>) outs(%c : tensor<4x6xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

//--- batched.mlir

// Batched matmuls as convert-tide-to-linalg writes them become 2-D GEMM calls
// on views. A linear layer on a (batch, sequence, hidden) tensor: the weight
// is the same for every batch index and the rows step uniformly, so the
// batch folds into the rows: one GEMM of 2 x 3 rows.
#x = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#w = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
#y = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @linear(
// CHECK-NOT: scf.for
// CHECK: %[[ROWS:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK: %[[A:.*]] = memref.reinterpret_cast %{{.*}} to offset: [%{{.*}}], sizes: [%[[ROWS]], %{{.*}}], strides: [%{{.*}}, 1]
// CHECK: %[[B:.*]] = memref.reinterpret_cast
// CHECK: %[[C:.*]] = memref.reinterpret_cast
// CHECK: call @tide_rt_gemm_f32(%[[A]], %[[B]], %[[C]], %{{.*}})
// CHECK-NOT: linalg.generic
func.func @linear(%x: memref<2x3x4xf32>, %w: memref<4x5xf32>, %y: memref<2x3x5xf32>) {
  linalg.generic {indexing_maps = [#x, #w, #y], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<2x3x4xf32>, memref<4x5xf32>) outs(%y : memref<2x3x5xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}

// Both operands batched (attention's per-head products): one call per batch
// index, each operand offset by its batch strides.
#q = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
#k = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>
#s = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @heads(
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step
// CHECK: arith.muli %[[I]]
// CHECK: arith.muli %[[J]]
// CHECK: func.call @tide_rt_gemm_f64(
// CHECK-NOT: linalg.generic
func.func @heads(%q: memref<2x3x4x5xf64>, %k: memref<2x3x5x4xf64>, %s: memref<2x3x4x4xf64>) {
  linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : memref<2x3x4x5xf64>, memref<2x3x5x4xf64>) outs(%s : memref<2x3x4x4xf64>) {
  ^bb0(%a: f64, %b: f64, %acc: f64):
    %m = arith.mulf %a, %b : f64
    %t = arith.addf %acc, %m : f64
    linalg.yield %t : f64
  }
  return
}

// An integer batched matmul stays a loop nest.
// CHECK-LABEL: func.func @negative_i32_batched(
// CHECK: linalg.generic
func.func @negative_i32_batched(%x: memref<2x3x4xi32>, %w: memref<4x5xi32>, %y: memref<2x3x5xi32>) {
  linalg.generic {indexing_maps = [#x, #w, #y], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<2x3x4xi32>, memref<4x5xi32>) outs(%y : memref<2x3x5xi32>) {
  ^bb0(%a: i32, %b: i32, %acc: i32):
    %m = arith.muli %a, %b : i32
    %s = arith.addi %acc, %m : i32
    linalg.yield %s : i32
  }
  return
}

//--- layouts.mlir

// BUG: an operand whose innermost stride is not 1 (here a column-strided
// view, as a `tide.slice` with strides [1, 2] bufferizes to) cannot be cast
// to strided<[?, 1]>: the pass emits an invalid memref.cast and the module
// fails to verify. The GEMM takes unit inner strides only, so the matmul must
// stay linalg.matmul.
// CHECK-LABEL: func.func @negative_non_unit_inner_stride(
// CHECK-NOT: memref.cast
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<4x5xf32, strided<[10, 2]>>, memref<5x6xf32>)
func.func @negative_non_unit_inner_stride(%a: memref<4x5xf32, strided<[10, 2]>>, %b: memref<5x6xf32>, %c: memref<4x6xf32>) {
  linalg.matmul ins(%a, %b : memref<4x5xf32, strided<[10, 2]>>, memref<5x6xf32>) outs(%c : memref<4x6xf32>)
  return
}

// BUG: only the output's element type is checked: f16 inputs accumulating
// into f32 produce an invalid memref.cast (f16 to f32). No GEMM fits; the
// matmul must stay.
// CHECK-LABEL: func.func @negative_mixed_element_types(
// CHECK-NOT: memref.cast
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<4x5xf16>, memref<5x6xf16>) outs(%{{.*}} : memref<4x6xf32>)
func.func @negative_mixed_element_types(%a: memref<4x5xf16>, %b: memref<5x6xf16>, %c: memref<4x6xf32>) {
  linalg.matmul ins(%a, %b : memref<4x5xf16>, memref<5x6xf16>) outs(%c : memref<4x6xf32>)
  return
}

// BUG: a matmul with explicit indexing maps (here A transposed: A is KxM) is
// replaced by the plain GEMM, which computes A * B instead of A^T * B:
// silently wrong results. It must stay linalg.matmul (or pass the transpose).
// CHECK-LABEL: func.func @negative_transposed_maps(
// CHECK-NOT: call @tide_rt_gemm_f32
// CHECK: linalg.matmul indexing_maps =
func.func @negative_transposed_maps(%a: memref<5x4xf32>, %b: memref<5x6xf32>, %c: memref<4x6xf32>) {
  linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
    ins(%a, %b : memref<5x4xf32>, memref<5x6xf32>) outs(%c : memref<4x6xf32>)
  return
}
