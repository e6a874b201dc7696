// Bugs of convert-tide-to-linalg found by the differential random tests
// (test/random/diff.py), each reduced by test/random/reduce.py and kept here:
// the lowered IR, and the compiled function run on an input whose answer is
// known (NumPy's).
//
// 1. An f16/bf16 op feeding another in one fused loop was not rounded to its
//    type: the upstream widening (arith-emulate-unsupported-floats,
//    math-extend-to-supported-types) marks its extf/truncf `contract`, and
//    extf(truncf(x)) then folds to x. f16 mul then cos of -66.6: cos(4439.56)
//    = -0.984 instead of cos(4440) = -0.598. Now every f16/bf16 elementwise
//    op computes in f32 between a plain extf and truncf of its own.
// 2. tide.concat with an input of static size 0 along the axis, or with a
//    static 0 in any dimension of the result, failed to compile (tensor.concat
//    inserts at an offset past the end: "offset 0 is out-of-bounds: 6 >= 6").
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: tide-opt %s --convert-tide-to-linalg --mlir-print-local-scope | FileCheck %s --implicit-check-not=tide.
// RUN: tide-compile %s --target=cpu -o %t/m.so --no-remarks
// RUN: %python -c "import numpy as np; np.save('%t/x.npy', np.array([-66.6], np.float16)); np.save('%t/a.npy', np.arange(12.0).reshape(6, 2)); np.save('%t/b.npy', np.zeros((0, 2))); np.save('%t/c.npy', np.zeros((4, 1, 0), np.int16)); np.save('%t/d.npy', np.zeros((3, 1, 0), np.int16))"
// RUN: tide-run %t/m.so --entry=mul_cos --input=%t/x.npy | FileCheck %s --check-prefix=RUN1
// RUN: tide-run %t/m.so --entry=concat_empty_input --input=%t/a.npy --input=%t/b.npy | FileCheck %s --check-prefix=RUN2
// RUN: tide-run %t/m.so --entry=concat_empty_result --input=%t/c.npy --input=%t/d.npy | FileCheck %s --check-prefix=RUN3

// CHECK-LABEL: func.func @mul_cos(
// CHECK:         linalg.generic
// CHECK:           %[[A:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK:           %[[B:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK:           %[[M:.*]] = arith.mulf %[[A]], %[[B]] : f32
// CHECK:           %[[R:.*]] = arith.truncf %[[M]] : f32 to f16
// CHECK:           linalg.yield %[[R]] : f16
// CHECK:         linalg.generic
// CHECK:           %[[X:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK:           %[[C:.*]] = math.cos %[[X]] : f32
// CHECK:           %[[R2:.*]] = arith.truncf %[[C]] : f32 to f16
// CHECK:           linalg.yield %[[R2]] : f16
// RUN1: result 0: f16[1] = [-0.598144531]
func.func @mul_cos(%a0: tensor<1xf16>) -> tensor<1xf16> {
  %v0 = tide.mul %a0, %a0 : tensor<1xf16>
  %v1 = tide.cos %v0 : tensor<1xf16>
  return %v1 : tensor<1xf16>
}

// CHECK-LABEL: func.func @concat_empty_input(
// CHECK-SAME:      %[[A:.*]]: tensor<6x2xf64>, %{{.*}}: tensor<0x?xf64>)
// CHECK:         tensor.concat dim(0) %[[A]] : (tensor<6x2xf64>) -> tensor<6x2xf64>
// RUN2: result 0: f64[6x2] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]
func.func @concat_empty_input(%a: tensor<6x2xf64>, %b: tensor<0x?xf64>) -> tensor<6x2xf64> {
  %0 = tide.concat %a, %b axis = 0 : tensor<6x2xf64>, tensor<0x?xf64>
  return %0 : tensor<6x2xf64>
}

// The dynamic size along the axis is the sum of the inputs' sizes.
// CHECK-LABEL: func.func @concat_empty_result(
// CHECK-NOT:     tensor.concat
// CHECK:         %[[D0:.*]] = tensor.dim %{{.*}}, %{{.*}} : tensor<4x1x0xi16>
// CHECK:         %[[S0:.*]] = arith.addi %{{.*}}, %[[D0]] : index
// CHECK:         %[[D1:.*]] = tensor.dim %{{.*}}, %{{.*}} : tensor<?x1x0xi16>
// CHECK:         %[[S:.*]] = arith.addi %[[S0]], %[[D1]] : index
// CHECK:         tensor.empty(%[[S]]) : tensor<?x1x0xi16>
// RUN3: result 0: i16[7x1x0] = []
func.func @concat_empty_result(%a: tensor<4x1x0xi16>, %b: tensor<?x1x0xi16>) -> tensor<?x1x0xi16> {
  %0 = tide.concat %a, %b axis = -3 : tensor<4x1x0xi16>, tensor<?x1x0xi16>
  return %0 : tensor<?x1x0xi16>
}
