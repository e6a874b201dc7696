// RUN: tide-opt %s --pass-pipeline="builtin.module(gpu.module(tide-gpu-correctly-rounded-sqrt))" | FileCheck %s

// libdevice's f32 square root (sqrt.approx.f32 by default) becomes LLVM's
// sqrt intrinsic (sqrt.rn.f32 in PTX); its declaration goes when unused. The
// f64 one (correctly rounded already) and other calls stay.
// CHECK-LABEL: gpu.module @kernels
// CHECK-NOT: llvm.func @__nv_sqrtf(
// CHECK: llvm.func @__nv_sqrt(f64) -> f64
// CHECK: llvm.func @__nv_expf(f32) -> f32
// CHECK-LABEL: llvm.func @k(
// CHECK-SAME: %[[X:.*]]: f32, %[[D:.*]]: f64)
// CHECK: %[[S:.*]] = llvm.intr.sqrt(%[[X]]) : (f32) -> f32
// CHECK: llvm.call @__nv_sqrt(%[[D]])
// CHECK: llvm.call @__nv_expf(%[[S]])
module attributes {gpu.container_module} {
  gpu.module @kernels {
    llvm.func @__nv_sqrtf(f32) -> f32
    llvm.func @__nv_sqrt(f64) -> f64
    llvm.func @__nv_expf(f32) -> f32
    llvm.func @k(%x: f32, %d: f64) -> f32 {
      %s = llvm.call @__nv_sqrtf(%x) : (f32) -> f32
      %t = llvm.call @__nv_sqrt(%d) : (f64) -> f64
      %e = llvm.call @__nv_expf(%s) : (f32) -> f32
      llvm.return %e : f32
    }
  }
}
