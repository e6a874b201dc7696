// Tests of tide-verify-placement: every tide op must carry a tide.device of
// the target with a kernel for its dtype (and, under require-gpu, no op may be
// on the CPU). Every offending op is reported, one error each, with fixes.
// The inputs are the parts of this file after the `//---` markers.

// RUN: rm -rf %t && split-file %s %t

// A valid placement passes and is left as it is.
// RUN: tide-opt %t/valid.mlir --tide-verify-placement=target=theano-0.7 | FileCheck %t/valid.mlir
// What the pipeline produces verifies, for the f64 MLP on tensorflow-0.7 too.
// RUN: tide-opt %examples/mlp_f64.mlir --tide-place-pipeline="target=tensorflow-0.7 remarks=false" \
// RUN:   | tide-opt --tide-verify-placement=target=tensorflow-0.7 | FileCheck %s --check-prefix=PIPELINE
// ... but not under require-gpu, since its reductions and matmuls are on the CPU.
// RUN: tide-opt %examples/mlp_f64.mlir --tide-place-pipeline="target=tensorflow-0.7 remarks=false" \
// RUN:   | not tide-opt --tide-verify-placement="target=tensorflow-0.7 policy=require-gpu" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PIPELINE-REQGPU

// Hand edits that break the placement (theano-0.7: GPU kernels for f32 only).
// RUN: tide-opt %t/invalid.mlir -split-input-file -verify-diagnostics --tide-verify-placement=target=theano-0.7
// require-gpu on h200.
// RUN: tide-opt %t/require-gpu.mlir -verify-diagnostics --tide-verify-placement="target=h200 policy=require-gpu"
// RUN: not tide-opt %t/require-gpu.mlir --tide-verify-placement="target=h200 policy=require-gpu" 2>&1 \
// RUN:   | FileCheck %t/require-gpu.mlir --check-prefix=FIX

// Bad option values.
// RUN: not tide-opt %t/valid.mlir --tide-verify-placement=policy=lenient 2>&1 | FileCheck %s --check-prefix=BAD-POLICY
// RUN: not tide-opt %t/valid.mlir --tide-verify-placement=target=%t/missing.json 2>&1 | FileCheck %s --check-prefix=BAD-TARGET

// PIPELINE-LABEL: func.func @mlp(
// PIPELINE: tide.matmul {{.*}}tide.device = #tide.device<cpu>

// Each of the 5 CPU ops (3 matmuls, reduce_sum, reduce_mean) is reported, and nothing else.
// PIPELINE-REQGPU-COUNT-3: error: 'tide.matmul' (f64) is on the CPU but the policy is require-gpu
// PIPELINE-REQGPU: error: 'tide.reduce_sum' (f64) is on the CPU but the policy is require-gpu
// PIPELINE-REQGPU: error: 'tide.reduce_mean' (f64) is on the CPU but the policy is require-gpu
// PIPELINE-REQGPU-NOT: error

// BAD-POLICY: error: invalid 'policy' option 'lenient'; expected soft, strict, require-gpu or cost
// BAD-TARGET: error: invalid 'target' option: cannot read target file '{{.*}}missing.json': No such file or directory

//--- valid.mlir

// CHECK-LABEL: func.func @valid(
// CHECK-SAME: %[[X:.*]]: tensor<16xf32>, %[[Y:.*]]: tensor<16xf64>)
// CHECK-NEXT: %[[T:.*]] = tide.transfer %[[X]] : tensor<16xf32> to #tide.device<cuda:0>
// CHECK-NEXT: %[[E:.*]] = tide.exp %[[T]] {tide.device = #tide.device<cuda:0>, tide.reason = "preferred"} : tensor<16xf32>
// CHECK-NEXT: %[[F:.*]] = tide.exp %[[Y]] {tide.device = #tide.device<cpu>} : tensor<16xf64>
func.func @valid(%x: tensor<16xf32>, %y: tensor<16xf64>) -> (tensor<16xf32>, tensor<16xf64>) {
  %0 = tide.transfer %x : tensor<16xf32> to #tide.device<cuda:0>
  %1 = tide.exp %0 {tide.device = #tide.device<cuda:0>, tide.reason = "preferred"} : tensor<16xf32>
  %2 = tide.exp %y {tide.device = #tide.device<cpu>} : tensor<16xf64>
  %3 = tide.transfer %1 : tensor<16xf32> to #tide.device<cpu>
  return %3, %2 : tensor<16xf32>, tensor<16xf64>
}

//--- invalid.mlir

// An op without tide.device: placement has not run.
func.func @negative_unplaced(%x: tensor<16xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{'tide.exp' (f32) has no device; run tide-place-devices first}}
  %0 = tide.exp %x : tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

// exp f64 moved by hand to cuda:0, which has f32 kernels only: the error names
// the op, its dtype, the device and the f64 fixes.
func.func @negative_no_kernel(%x: tensor<16xf64>) -> tensor<16xf64> {
  // expected-error-re @+1 {{'tide.exp' (f64) is on cuda:0, but target 'theano-0.7' has no cuda:0 kernel for it; fixes: {{.*}}convert to f32 with 'tide.cast' (an explicit precision change) or run tide-decompose{demote-f64=true}}}
  %0 = tide.exp %x {tide.device = #tide.device<cuda:0>} : tensor<16xf64>
  return %0 : tensor<16xf64>
}

// -----

// A cast needs kernels for both dtypes: f32 -> f64 on the f32-only GPU is invalid.
func.func @negative_cast_no_kernel(%x: tensor<16xf32>) -> tensor<16xf64> {
  // expected-error @+1 {{'tide.cast' (f32->f64) is on cuda:0, but target 'theano-0.7' has no cuda:0 kernel for it}}
  %0 = tide.cast %x {tide.device = #tide.device<cuda:0>} : tensor<16xf32> to tensor<16xf64>
  return %0 : tensor<16xf64>
}

// -----

// A device the target does not have.
func.func @negative_unknown_device(%x: tensor<16xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{'tide.neg' (f32) is on cuda:2, which is not a device of target 'theano-0.7'}}
  %0 = tide.neg %x {tide.device = #tide.device<cuda:2>} : tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

// Every offending op is reported at once, not just the first.
func.func @negative_several(%x: tensor<16xf64>) -> tensor<16xf64> {
  // expected-error @+1 {{'tide.exp' (f64) is on cuda:0}}
  %0 = tide.exp %x {tide.device = #tide.device<cuda:0>} : tensor<16xf64>
  // expected-error @+1 {{'tide.neg' (f64) has no device}}
  %1 = tide.neg %0 : tensor<16xf64>
  // expected-error @+1 {{'tide.tanh' (f64) is on cuda:0}}
  %2 = tide.tanh %1 {tide.device = #tide.device<cuda:0>} : tensor<16xf64>
  return %2 : tensor<16xf64>
}

//--- require-gpu.mlir

// Under require-gpu an op on the CPU is an error even though the CPU has a
// kernel; GPU ops pass.
func.func @negative_cpu_op(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = tide.transfer %x : tensor<16xf32> to #tide.device<cuda:0>
  %1 = tide.exp %0 {tide.device = #tide.device<cuda:0>} : tensor<16xf32>
  %2 = tide.transfer %1 : tensor<16xf32> to #tide.device<cpu>
  // expected-error @+1 {{'tide.neg' (f32) is on the CPU but the policy is require-gpu}}
  %3 = tide.neg %2 {tide.device = #tide.device<cpu>} : tensor<16xf32>
  return %3 : tensor<16xf32>
}

// The fix for an op on the CPU under require-gpu is not to pin it to the CPU.
// FIX: error: 'tide.neg' (f32) is on the CPU but the policy is require-gpu; fixes:
// FIX-NOT: #tide.device<cpu>
// FIX-SAME: policy=soft
