// Tests of tide-accurate-math-to-libm: host math.expm1 / math.log1p on f32 and
// f64 become libm calls (convert-math-to-llvm would compute exp(x) - 1 and
// log(1 + x), losing every digit near 0); other math ops, vectors and GPU code
// are left alone.

// RUN: tide-opt %s --tide-accurate-math-to-libm | FileCheck %s

// CHECK-DAG: func.func private @expm1f(f32) -> f32
// CHECK-DAG: func.func private @log1p(f64) -> f64
// CHECK-LABEL: func.func @host(
// CHECK-SAME: %[[X:.*]]: f32, %[[Y:.*]]: f64, %[[V:.*]]: vector<4xf32>
// CHECK: %[[A:.*]] = call @expm1f(%[[X]]) : (f32) -> f32
// CHECK: %[[B:.*]] = call @log1p(%[[Y]]) : (f64) -> f64
// CHECK: %[[C:.*]] = math.exp %[[X]] : f32
// CHECK: %[[D:.*]] = math.expm1 %[[V]] : vector<4xf32>
// CHECK: return %[[A]], %[[B]], %[[C]], %[[D]]
func.func @host(%x: f32, %y: f64, %v: vector<4xf32>) -> (f32, f64, f32, vector<4xf32>) {
  %a = math.expm1 %x : f32
  %b = math.log1p %y : f64
  %c = math.exp %x : f32
  %d = math.expm1 %v : vector<4xf32>
  return %a, %b, %c, %d : f32, f64, f32, vector<4xf32>
}

// negative: kernels call libdevice; their expm1 stays for the GPU lowering.
// CHECK-LABEL: gpu.func @negative_kernel(
// CHECK: math.expm1
gpu.module @k {
  gpu.func @negative_kernel(%x: f32, %out: memref<1xf32>) kernel {
    %c0 = arith.constant 0 : index
    %a = math.expm1 %x : f32
    memref.store %a, %out[%c0] : memref<1xf32>
    gpu.return
  }
}
