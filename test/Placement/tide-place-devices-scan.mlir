// RUN: rm -rf %t && split-file %s %t
// RUN: tide-opt %t/scan.mlir --tide-place-devices=target=h200 2>&1 | FileCheck %s
// RUN: tide-opt %t/scan.mlir --tide-place-devices="target=h200 policy=cost" 2>&1 | FileCheck %s --check-prefix=COST
// RUN: not tide-opt %t/pinned.mlir --tide-place-devices=target=h200 2>&1 | FileCheck %s --check-prefix=PINNED
// RUN: not tide-opt %t/scan.mlir --tide-place-devices="target=h200 policy=require-gpu" 2>&1 | FileCheck %s --check-prefix=REQGPU

// tide.scan is a host loop: it runs on the CPU of a GPU target (a remark says
// why), the ops of its body run where it runs (their reason says so), and the
// ops around it are placed as usual; a GPU-resident operand is copied to the
// host by tide-insert-transfers like any other.

//--- scan.mlir
func.func @f(%x: tensor<?x4xf32>, %z: tensor<4xf32>) -> tensor<?x4xf32> {
  %e = tide.exp %x : tensor<?x4xf32>
  %s, %p = tide.scan inits(%z : tensor<4xf32>) sequences(%e : tensor<?x4xf32>) {
  ^bb0(%t: tensor<i64>, %acc: tensor<4xf32>, %xt: tensor<4xf32>):
    %n = tide.add %acc, %xt : tensor<4xf32>, tensor<4xf32>
    tide.yield %n, %n : tensor<4xf32>, tensor<4xf32>
  } : tensor<4xf32>, tensor<?x4xf32>
  return %p : tensor<?x4xf32>
}

// CHECK: remark: placed on cpu: target 'h200' has no cuda:0 kernel for scan on f32
// CHECK: tide.exp {{.*}} {tide.device = #tide.device<cuda:0>, tide.reason = "preferred"}
// CHECK: tide.scan {{.*}} attributes {tide.device = #tide.device<cpu>, tide.reason = "no-kernel(cuda:0, f32)"}
// CHECK: tide.add {{.*}} {tide.device = #tide.device<cpu>, tide.reason = "inside 'tide.scan' (cpu): a loop's body runs where the loop runs"}
// CHECK: tide.yield

// COST: tide.scan {{.*}} attributes {tide.device = #tide.device<cpu>, tide.reason =
// COST: tide.add {{.*}} {tide.device = #tide.device<cpu>, tide.reason = "inside 'tide.scan' (cpu): a loop's body runs where the loop runs"}

// REQGPU: error: 'tide.scan' (f32) has no kernel on any GPU (policy require-gpu) in target 'h200'

//--- pinned.mlir
func.func @f(%x: tensor<?x4xf32>, %z: tensor<4xf32>) -> tensor<?x4xf32> {
  %s, %p = tide.scan inits(%z : tensor<4xf32>) sequences(%x : tensor<?x4xf32>) {
  ^bb0(%t: tensor<i64>, %acc: tensor<4xf32>, %xt: tensor<4xf32>):
    %n = tide.add %acc, %xt {tide.device = #tide.device<cuda:0>} : tensor<4xf32>, tensor<4xf32>
    tide.yield %n, %n : tensor<4xf32>, tensor<4xf32>
  } : tensor<4xf32>, tensor<?x4xf32>
  return %p : tensor<?x4xf32>
}

// PINNED: error: 'tide.add' is pinned to cuda:0 inside a 'tide.scan' placed on cpu; a loop's body runs where the loop runs
