// tide.non_max_suppression of a static count of 0 boxes (random programs
// p14202_23 and p14206_46): the candidate list and the rows are never of a
// static size 0, into which the appends no step runs would fold to an
// out-of-bounds insert (a compile-time verifier error, "offset 0 is
// out-of-bounds: 0 >= 0"). No row is selected.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: tide-compile %s --target=cpu -o %t/m.so --no-remarks
// RUN: %python -c "import numpy as np; np.save('%t/l.npy', np.array([5])); np.save('%t/t.npy', np.array([0.5]))"
// RUN: tide-run %t/m.so --input=%t/l.npy --input=%t/t.npy --input=%t/t.npy | FileCheck %s
// CHECK: i64[0x3]
func.func @main(%l: tensor<1xi64>, %iou: tensor<1xf64>, %t: tensor<1xf64>) -> tensor<?x3xi64> {
  %b = tide.constant dense<0.0> : tensor<2x0x4xf64>
  %s = tide.constant dense<0.0> : tensor<2x3x0xf64>
  %v0 = tide.non_max_suppression %b, %s, %l, %iou, %t : tensor<2x0x4xf64>, tensor<2x3x0xf64>, tensor<1xi64>, tensor<1xf64>, tensor<1xf64> to tensor<?x3xi64>
  return %v0 : tensor<?x3xi64>
}
