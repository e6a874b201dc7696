// RUN: rm -rf %t && split-file %s %t
// RUN: tide-opt %t/if.mlir --tide-place-devices=target=h200 2>&1 | FileCheck %t/if.mlir
// RUN: not tide-opt %t/pinned.mlir --tide-place-devices=target=h200 2>&1 | FileCheck %t/pinned.mlir
// RUN: tide-opt %t/if.mlir --tide-place-pipeline=target=h200 --mlir-print-local-scope 2>/dev/null | FileCheck %t/if.mlir --check-prefix=COPIES

// tide.if is a host branch: it runs on the CPU of a GPU target (a remark says
// why), the ops of its regions run where it runs (their reason says so), an
// if inside a scan's body runs where the scan runs, and a GPU-resident
// operand is copied to the host by tide-insert-transfers like any other.

//--- if.mlir
func.func @f(%c: tensor<i1>, %x: tensor<?xf32>) -> tensor<?xf32> {
  %e = tide.exp %x : tensor<?xf32>
  %r = tide.if %c invariants(%e : tensor<?xf32>) {
  ^bb0(%a: tensor<?xf32>):
    %t = tide.tanh %a : tensor<?xf32>
    tide.yield %t : tensor<?xf32>
  } else {
  ^bb0(%a: tensor<?xf32>):
    %n = tide.neg %a : tensor<?xf32>
    tide.yield %n : tensor<?xf32>
  } : tensor<i1> -> (tensor<?xf32>)
  return %r : tensor<?xf32>
}

// CHECK: remark: placed on cpu: target 'h200' has no cuda:0 kernel for if on i1
// CHECK: tide.exp {{.*}} {tide.device = #tide.device<cuda:0>, tide.reason = "preferred"}
// CHECK: tide.if {{.*}} {
// CHECK: tide.tanh {{.*}} {tide.device = #tide.device<cpu>, tide.reason = "inside 'tide.if' (cpu): a branch runs where its if runs"}
// CHECK: tide.neg {{.*}} {tide.device = #tide.device<cpu>, tide.reason = "inside 'tide.if' (cpu): a branch runs where its if runs"}
// CHECK: } {tide.device = #tide.device<cpu>, tide.reason = "no-kernel(cuda:0, i1)"} : tensor<i1> -> (tensor<?xf32>)

// COPIES: %[[E:.*]] = tide.exp
// COPIES: %[[H:.*]] = tide.transfer %[[E]] {{.*}}to #tide.device<cpu>
// COPIES: tide.if %{{.*}} invariants(%[[H]] : tensor<?xf32>)

//--- pinned.mlir
func.func @f(%c: tensor<i1>, %x: tensor<4xf32>, %z: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %r = tide.if %c invariants(%x : tensor<4xf32>) {
  ^bb0(%a: tensor<4xf32>):
    %t = tide.tanh %a {tide.device = #tide.device<cuda:0>} : tensor<4xf32>
    tide.yield %t : tensor<4xf32>
  } else {
  ^bb0(%a: tensor<4xf32>):
    tide.yield %a : tensor<4xf32>
  } : tensor<i1> -> (tensor<4xf32>)
  %s, %p = tide.scan inits(%r : tensor<4xf32>) sequences(%z : tensor<?x4xf32>) {
  ^bb0(%i: tensor<i64>, %acc: tensor<4xf32>, %xt: tensor<4xf32>):
    %sum = tide.reduce_sum %xt axes = [0] : tensor<4xf32>
    %zero = tide.constant dense<0.0> : tensor<f32>
    %pos = tide.cmp gt, %sum, %zero : tensor<f32>, tensor<f32>
    %n = tide.if %pos invariants(%acc, %xt : tensor<4xf32>, tensor<4xf32>) {
    ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
      %m = tide.add %a, %b {tide.device = #tide.device<cuda:0>} : tensor<4xf32>, tensor<4xf32>
      tide.yield %m : tensor<4xf32>
    } else {
    ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
      tide.yield %a : tensor<4xf32>
    } : tensor<i1> -> (tensor<4xf32>)
    tide.yield %n, %n : tensor<4xf32>, tensor<4xf32>
  } : tensor<4xf32>, tensor<?x4xf32>
  return %p : tensor<?x4xf32>
}

// CHECK: error: 'tide.tanh' is pinned to cuda:0 inside a 'tide.if' placed on cpu; a branch runs where its if runs
// CHECK: error: 'tide.add' is pinned to cuda:0 inside a 'tide.if' placed on cpu; a branch runs where its if runs
