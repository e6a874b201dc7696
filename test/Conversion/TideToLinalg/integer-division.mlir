// Integer division never traps (SIGFPE): a quotient by 0 is 0, as in NumPy,
// and the minimum integer divided by -1 wraps to itself.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: tide-opt %s --convert-tide-to-linalg --mlir-print-local-scope | FileCheck %s
// RUN: tide-compile %s --target=cpu -o %t/m.so --no-remarks
// RUN: %python -c "import numpy as np; np.save('%t/x.npy', np.array([7, -7, -2147483648, 5], np.int32)); np.save('%t/y.npy', np.array([0, 2, -1, -1], np.int32))"
// RUN: tide-run %t/m.so --input=%t/x.npy --input=%t/y.npy | FileCheck %s --check-prefix=OUT

// CHECK-LABEL: func.func @div(
// CHECK:         linalg.generic
// CHECK:           %[[Z:.*]] = arith.cmpi eq, %[[Y:.*]], %{{.*}} : i32
// CHECK:           arith.divsi
// CHECK:           arith.select %[[Z]]
// OUT: result 0: i32[4] = [0, -3, -2147483648, -5]
func.func @div(%x: tensor<4xi32>, %y: tensor<4xi32>) -> tensor<4xi32> {
  %q = tide.div %x, %y : tensor<4xi32>
  return %q : tensor<4xi32>
}
