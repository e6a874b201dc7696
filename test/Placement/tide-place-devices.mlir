// Tests of tide-place-devices: every tide op but tide.transfer gets a
// tide.device and a tide.reason, from kernel tables, pins, defaults,
// colocation groups and the policy. The inputs for each target/policy are the
// parts of this file after the `//---` markers (split-file keeps their line
// numbers), plus the examples of the Theano report.

// RUN: rm -rf %t && split-file %s %t

// Theano 0.7 has GPU kernels for f32 only: exp f32 runs on cuda:0, exp f64 on
// the CPU with a remark that says why.
// RUN: tide-opt %examples/exp_f32.mlir --tide-place-devices=target=theano-0.7 \
// RUN:   | FileCheck %s --check-prefix=THEANO32
// RUN: tide-opt %examples/exp_f64.mlir --tide-place-devices=target=theano-0.7 2>&1 \
// RUN:   | FileCheck %s --check-prefix=THEANO64
// RUN: tide-opt %examples/exp_f64.mlir --tide-place-devices="target=theano-0.7 remarks=false" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=THEANO64-QUIET

// require-gpu on the f64 example is an error naming the op and the fixes.
// RUN: not tide-opt %examples/exp_f64.mlir --tide-place-devices="target=theano-0.7 policy=require-gpu" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REQGPU-F64
// RUN: not tide-opt %examples/exp_f64.mlir --tide-place-devices="target=theano-0.7 policy=require-gpu" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REQGPU-F64-FIX

// soft (the default policy) on h200: pins, defaults, colocation groups.
// RUN: tide-opt %t/soft.mlir -split-input-file -verify-diagnostics --tide-place-devices=target=h200 \
// RUN:   | FileCheck %t/soft.mlir --check-prefix=SOFT
// RUN: tide-opt %t/soft.mlir -split-input-file --tide-place-devices="target=h200 remarks=false" 2>&1 \
// RUN:   | FileCheck %t/soft.mlir --check-prefix=QUIET

// Pins and defaults that name no device of the target, conflicting pins.
// RUN: tide-opt %t/errors.mlir -split-input-file -verify-diagnostics --tide-place-devices=target=h200

// strict on tensorflow-0.7 (no GPU reduce_mean).
// RUN: tide-opt %t/strict.mlir -split-input-file -verify-diagnostics \
// RUN:   --tide-place-devices="target=tensorflow-0.7 policy=strict" | FileCheck %t/strict.mlir --check-prefix=STRICT

// require-gpu on h200.
// RUN: tide-opt %t/require-gpu.mlir -split-input-file -verify-diagnostics \
// RUN:   --tide-place-devices="target=h200 policy=require-gpu" | FileCheck %t/require-gpu.mlir --check-prefix=REQGPU
// RUN: not tide-opt %t/require-gpu.mlir -split-input-file --tide-place-devices="target=h200 policy=require-gpu" 2>&1 \
// RUN:   | FileCheck %t/require-gpu.mlir --check-prefix=REQGPU-FIX

// cost: the same f64-heavy code goes to the CPU on rtx3090 (FP64 at 1/64
// rate) and to the GPU on h200; pageable copies tip h200 back to the CPU.
// RUN: tide-opt %t/cost.mlir --tide-place-devices="target=rtx3090 policy=cost" \
// RUN:   | FileCheck %t/cost.mlir --check-prefix=RTX
// RUN: tide-opt %t/cost.mlir --tide-place-devices="target=h200 policy=cost" \
// RUN:   | FileCheck %t/cost.mlir --check-prefix=H200
// RUN: tide-opt %t/cost.mlir --tide-place-devices="target=h200 policy=cost copy-mode=pageable" \
// RUN:   | FileCheck %t/cost.mlir --check-prefix=PAGEABLE
// RUN: tide-opt %t/cost-errors.mlir -split-input-file -verify-diagnostics \
// RUN:   --tide-place-devices="target=h200 policy=cost"
// RUN: tide-opt %t/cost-group-pin.mlir --tide-place-devices="target=h200 policy=cost" \
// RUN:   | FileCheck %t/cost-group-pin.mlir
// A CPU-only target places everything on the CPU, whatever the policy.
// RUN: tide-opt %examples/mlp_f32.mlir --tide-place-devices="target=cpu policy=cost" \
// RUN:   | FileCheck %s --check-prefix=CPUONLY

// Several GPUs (a target file): groups, defaults and pins to the second GPU.
// RUN: tide-opt %t/multi-gpu.mlir --tide-place-devices="target=%S/Inputs/two-gpus.json" \
// RUN:   | FileCheck %t/multi-gpu.mlir --check-prefix=MULTI-SOFT
// RUN: tide-opt %t/multi-gpu.mlir --tide-place-devices="target=%S/Inputs/two-gpus.json policy=cost" \
// RUN:   | FileCheck %t/multi-gpu.mlir --check-prefix=MULTI-COST

// Bad option values fail with a message naming the option and the value.
// RUN: not tide-opt %examples/exp_f32.mlir --tide-place-devices=policy=fastest 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD-POLICY
// RUN: not tide-opt %examples/exp_f32.mlir --tide-place-devices=copy-mode=zero-copy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD-COPY
// RUN: not tide-opt %examples/exp_f32.mlir --tide-place-devices=dynamic-dim-size=0 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD-DYN0
// RUN: not tide-opt %examples/exp_f32.mlir --tide-place-devices=dynamic-dim-size=-5 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD-DYNNEG

// THEANO32-LABEL: func.func @exp(
// THEANO32-SAME: %[[X:.*]]: tensor<230400xf32>)
// THEANO32: %[[Y:.*]] = tide.exp %[[X]] {tide.device = #tide.device<cuda:0>, tide.reason = "preferred"} : tensor<230400xf32>
// THEANO32: return %[[Y]]

// THEANO64: exp_f64.mlir:5:8: remark: placed on cpu: target 'theano-0.7' has no cuda:0 kernel for exp on f64
// THEANO64-LABEL: func.func @exp(
// THEANO64-SAME: %[[X:.*]]: tensor<230400xf64>)
// THEANO64: %[[Y:.*]] = tide.exp %[[X]] {tide.device = #tide.device<cpu>, tide.reason = "no-kernel(cuda:0, f64)"} : tensor<230400xf64>
// THEANO64: return %[[Y]]

// remarks=false: the same placement, silently.
// THEANO64-QUIET-NOT: remark
// THEANO64-QUIET: tide.exp %{{.*}} {tide.device = #tide.device<cpu>, tide.reason = "no-kernel(cuda:0, f64)"}

// REQGPU-F64-NOT: remark
// REQGPU-F64: exp_f64.mlir:5:8: error: 'tide.exp' (f64) has no kernel on any GPU (policy require-gpu) in target 'theano-0.7'; fixes:
// REQGPU-F64-SAME: convert to f32 with 'tide.cast' (an explicit precision change) or run tide-decompose{demote-f64=true}
// REQGPU-F64-NOT: error

// Under require-gpu, pinning the op to the CPU is no fix: the fixes must not
// suggest it (they may suggest f32, demote-f64 or policy=soft).
// REQGPU-F64-FIX: error: 'tide.exp' (f64) has no kernel on any GPU (policy require-gpu) in target 'theano-0.7'; fixes:
// REQGPU-F64-FIX-NOT: #tide.device<cpu>
// REQGPU-F64-FIX-SAME: policy=soft

// CPUONLY-LABEL: func.func @mlp(
// CPUONLY-NOT: cuda
// CPUONLY-COUNT-14: {tide.device = #tide.device<cpu>, tide.reason = "preferred"}
// CPUONLY-NOT: tide.device
// CPUONLY: return

// BAD-POLICY: error: invalid 'policy' option 'fastest'; expected soft, strict, require-gpu or cost
// BAD-COPY: error: invalid 'copy-mode' option 'zero-copy'; expected pinned or pageable
// The message must show the value the user gave.
// BAD-DYN0: error: invalid 'dynamic-dim-size' option 0; it must be positive
// BAD-DYNNEG: error: invalid 'dynamic-dim-size' option -5; it must be positive

//--- soft.mlir

// Nothing pinned: every op goes to the target's first GPU.
// SOFT-LABEL: func.func @preferred_gpu(
// SOFT-SAME: %[[X:.*]]: tensor<16xf32>)
// SOFT: %[[E:.*]] = tide.exp %[[X]] {tide.device = #tide.device<cuda:0>, tide.reason = "preferred"}
// SOFT: %[[N:.*]] = tide.neg %[[E]] {tide.device = #tide.device<cuda:0>, tide.reason = "preferred"}
// SOFT: return %[[N]]
func.func @preferred_gpu(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = tide.exp %x : tensor<16xf32>
  %1 = tide.neg %0 : tensor<16xf32>
  return %1 : tensor<16xf32>
}

// A pin on an op wins over the preferred GPU and is kept; its neighbour is unaffected.
// SOFT-LABEL: func.func @pin_on_op(
// SOFT: tide.exp %{{.*}} {tide.device = #tide.device<cpu>, tide.reason = "pinned"}
// SOFT: tide.neg %{{.*}} {tide.device = #tide.device<cuda:0>, tide.reason = "preferred"}
func.func @pin_on_op(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = tide.exp %x {tide.device = #tide.device<cpu>} : tensor<16xf32>
  %1 = tide.neg %0 : tensor<16xf32>
  return %1 : tensor<16xf32>
}

// tide.default_device on the function applies to unpinned ops; a pin still wins.
// SOFT-LABEL: func.func @default_on_func(
// SOFT-SAME: attributes {tide.default_device = #tide.device<cpu>}
// SOFT: tide.exp %{{.*}} {tide.device = #tide.device<cpu>, tide.reason = "default"}
// SOFT: tide.neg %{{.*}} {tide.device = #tide.device<cuda:0>, tide.reason = "pinned"}
func.func @default_on_func(%x: tensor<16xf32>) -> tensor<16xf32>
    attributes {tide.default_device = #tide.device<cpu>} {
  %0 = tide.exp %x : tensor<16xf32>
  %1 = tide.neg %0 {tide.device = #tide.device<cuda:0>} : tensor<16xf32>
  return %1 : tensor<16xf32>
}

// H200 has no integer GEMM on the GPU: the i32 matmul falls back to the CPU
// (soft) with a remark; the f32 op beside it stays on the GPU.
// SOFT-LABEL: func.func @fallback_no_gpu_kernel(
// SOFT: tide.matmul %{{.*}} {tide.device = #tide.device<cpu>, tide.reason = "no-kernel(cuda:0, i32)"}
// SOFT: tide.exp %{{.*}} {tide.device = #tide.device<cuda:0>, tide.reason = "preferred"}
func.func @fallback_no_gpu_kernel(%a: tensor<8x8xi32>, %x: tensor<16xf32>)
    -> (tensor<8x8xi32>, tensor<16xf32>) {
  // expected-remark @+1 {{placed on cpu: target 'h200' has no cuda:0 kernel for matmul on i32}}
  %0 = tide.matmul %a, %a : tensor<8x8xi32>
  %1 = tide.exp %x : tensor<16xf32>
  return %0, %1 : tensor<8x8xi32>, tensor<16xf32>
}

// Under soft, even a pin to a device without the kernel falls back (strict makes it an error).
// SOFT-LABEL: func.func @pin_without_kernel_falls_back(
// SOFT: tide.matmul %{{.*}} {tide.device = #tide.device<cpu>, tide.reason = "no-kernel(cuda:0, i32)"}
func.func @pin_without_kernel_falls_back(%a: tensor<8x8xi32>) -> tensor<8x8xi32> {
  // expected-remark @+1 {{placed on cpu: target 'h200' has no cuda:0 kernel for matmul on i32}}
  %0 = tide.matmul %a, %a {tide.device = #tide.device<cuda:0>} : tensor<8x8xi32>
  return %0 : tensor<8x8xi32>
}

// A colocation group follows its pinned member (here the second one); an op outside the group does not.
// SOFT-LABEL: func.func @colocate_pinned_member(
// SOFT: tide.exp %{{.*}} {tide.colocate = "g", tide.device = #tide.device<cpu>, tide.reason = "colocated(g)"}
// SOFT: tide.neg %{{.*}} {tide.colocate = "g", tide.device = #tide.device<cpu>, tide.reason = "colocated(g)"}
// SOFT: tide.tanh %{{.*}} {tide.device = #tide.device<cuda:0>, tide.reason = "preferred"}
func.func @colocate_pinned_member(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = tide.exp %x {tide.colocate = "g"} : tensor<16xf32>
  %1 = tide.neg %0 {tide.colocate = "g", tide.device = #tide.device<cpu>} : tensor<16xf32>
  %2 = tide.tanh %1 : tensor<16xf32>
  return %2 : tensor<16xf32>
}

// When the pinned member comes first, the unpinned member is still placed by
// its group: its reason is colocated(g), not "pinned" (it carries no pin).
// SOFT-LABEL: func.func @colocate_pinned_first(
// SOFT: tide.exp %{{.*}} {tide.colocate = "g", tide.device = #tide.device<cpu>, tide.reason = "{{pinned|colocated\(g\)}}"}
// SOFT: tide.neg %{{.*}} {tide.colocate = "g", tide.device = #tide.device<cpu>, tide.reason = "colocated(g)"}
func.func @colocate_pinned_first(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = tide.exp %x {tide.colocate = "g", tide.device = #tide.device<cpu>} : tensor<16xf32>
  %1 = tide.neg %0 {tide.colocate = "g"} : tensor<16xf32>
  return %1 : tensor<16xf32>
}

// A group without pins goes to the preferred GPU as a whole.
// SOFT-LABEL: func.func @colocate_unpinned(
// SOFT: tide.exp %{{.*}} {tide.colocate = "g", tide.device = #tide.device<cuda:0>
// SOFT: tide.neg %{{.*}} {tide.colocate = "g", tide.device = #tide.device<cuda:0>
func.func @colocate_unpinned(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = tide.exp %x {tide.colocate = "g"} : tensor<16xf32>
  %1 = tide.neg %0 {tide.colocate = "g"} : tensor<16xf32>
  return %1 : tensor<16xf32>
}

// One member (i32 matmul) has no GPU kernel: under soft the whole group moves
// to the CPU, with a remark per member. The f32 members have kernels
// themselves, so their reason must say they follow the group.
// SOFT-LABEL: func.func @colocate_group_fallback(
// SOFT: tide.cast %{{.*}} {tide.colocate = "g", tide.device = #tide.device<cpu>, tide.reason = "colocated(g); no-kernel(cuda:0, i32)"}
// SOFT: tide.matmul %{{.*}} {tide.colocate = "g", tide.device = #tide.device<cpu>, tide.reason = "{{(colocated\(g\); )?}}no-kernel(cuda:0, i32)"}
// SOFT: tide.exp %{{.*}} {tide.colocate = "g", tide.device = #tide.device<cpu>, tide.reason = "colocated(g); no-kernel(cuda:0, i32)"}
// SOFT: tide.tanh %{{.*}} {tide.device = #tide.device<cuda:0>, tide.reason = "preferred"}
func.func @colocate_group_fallback(%x: tensor<8x8xf32>, %a: tensor<8x8xi32>) -> tensor<8x8xf32> {
  // expected-remark @+1 {{placed on cpu: target 'h200' has no cuda:0 kernel for matmul on i32}}
  %0 = tide.cast %x {tide.colocate = "g"} : tensor<8x8xf32> to tensor<8x8xi32>
  // expected-remark @+1 {{placed on cpu: target 'h200' has no cuda:0 kernel for matmul on i32}}
  %1 = tide.matmul %0, %a {tide.colocate = "g"} : tensor<8x8xi32>
  // expected-remark @+1 {{placed on cpu: target 'h200' has no cuda:0 kernel for matmul on i32}}
  %2 = tide.exp %x {tide.colocate = "g"} : tensor<8x8xf32>
  %3 = tide.tanh %2 : tensor<8x8xf32>
  return %3 : tensor<8x8xf32>
}

// tide.transfer already in the IR is not placed: it gets no tide.device or tide.reason.
// SOFT-LABEL: func.func @transfer_not_placed(
// SOFT-SAME: %[[X:.*]]: tensor<16xf32>)
// SOFT: %[[T:.*]] = tide.transfer %[[X]] : tensor<16xf32> to #tide.device<cuda:0>{{$}}
// SOFT: tide.exp %[[T]] {tide.device = #tide.device<cuda:0>, tide.reason = "preferred"}
func.func @transfer_not_placed(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = tide.transfer %x : tensor<16xf32> to #tide.device<cuda:0>
  %1 = tide.exp %0 : tensor<16xf32>
  return %1 : tensor<16xf32>
}

// Non-tide ops are not annotated, and declarations are skipped.
// SOFT-LABEL: func.func private @negative_declaration(tensor<16xf32>) -> tensor<16xf32>{{$}}
func.func private @negative_declaration(tensor<16xf32>) -> tensor<16xf32>

// SOFT-LABEL: func.func @negative_non_tide_op(
// SOFT: arith.constant 0 : index{{$}}
// SOFT: tensor.dim %{{.*}} : tensor<?xf32>{{$}}
func.func @negative_non_tide_op(%x: tensor<?xf32>) -> index {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %x, %c0 : tensor<?xf32>
  return %d : index
}

// QUIET-NOT: remark:
// QUIET: tide.reason = "no-kernel(cuda:0, i32)"

// -----

// tide.default_device on the module applies to every function; a function's own default wins.
// SOFT-LABEL: module attributes {tide.default_device = #tide.device<cpu>
// SOFT-LABEL: func.func @module_default(
// SOFT: tide.exp %{{.*}} {tide.device = #tide.device<cpu>, tide.reason = "default"}
// SOFT-LABEL: func.func @func_default_over_module_default(
// SOFT: tide.exp %{{.*}} {tide.device = #tide.device<cuda:0>, tide.reason = "default"}
module attributes {tide.default_device = #tide.device<cpu>} {
  func.func @module_default(%x: tensor<16xf32>) -> tensor<16xf32> {
    %0 = tide.exp %x : tensor<16xf32>
    return %0 : tensor<16xf32>
  }
  func.func @func_default_over_module_default(%x: tensor<16xf32>) -> tensor<16xf32>
      attributes {tide.default_device = #tide.device<cuda:0>} {
    %0 = tide.exp %x : tensor<16xf32>
    return %0 : tensor<16xf32>
  }
}

//--- errors.mlir

// Members of one colocation group pinned to different devices.
func.func @negative_group_conflict(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = tide.exp %x {tide.colocate = "g", tide.device = #tide.device<cpu>} : tensor<16xf32>
  // expected-error @+1 {{colocation group 'g' is pinned to both cpu and cuda:0; pin its members to one device}}
  %1 = tide.neg %0 {tide.colocate = "g", tide.device = #tide.device<cuda:0>} : tensor<16xf32>
  return %1 : tensor<16xf32>
}

// -----

// A pin to a GPU the target does not have (h200 has cuda:0 only).
func.func @negative_pin_missing_gpu(%x: tensor<16xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{pinned device 'cuda:3' is not a device of target 'h200' (devices: cpu, cuda:0)}}
  %0 = tide.exp %x {tide.device = #tide.device<cuda:3>} : tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

// A function default naming a GPU the target does not have.
// expected-error @+1 {{default device 'cuda:1' is not a device of target 'h200' (devices: cpu, cuda:0)}}
func.func @negative_func_default_missing_gpu(%x: tensor<16xf32>) -> tensor<16xf32>
    attributes {tide.default_device = #tide.device<cuda:1>} {
  %0 = tide.exp %x : tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

// A module default naming a GPU the target does not have.
// expected-error @+1 {{default device 'cuda:2' is not a device of target 'h200'}}
module attributes {tide.default_device = #tide.device<cuda:2>} {
  func.func @negative_module_default_missing_gpu(%x: tensor<16xf32>) -> tensor<16xf32> {
    %0 = tide.exp %x : tensor<16xf32>
    return %0 : tensor<16xf32>
  }
}

// -----

// Argument and result residences must be devices of the target too.
// expected-error @+2 {{argument residence 'cuda:1' is not a device of target 'h200'}}
// expected-error @+1 {{result residence 'cuda:5' is not a device of target 'h200'}}
func.func @negative_residence_missing_gpu(%x: tensor<16xf32> {tide.resident = #tide.device<cuda:1>})
    -> (tensor<16xf32> {tide.resident = #tide.device<cuda:5>}) {
  %0 = tide.exp %x : tensor<16xf32>
  return %0 : tensor<16xf32>
}

//--- strict.mlir

// strict: a reduce_mean pinned to cuda:0, which has no reduce_mean kernel in
// tensorflow-0.7, is an error that names the op, dtype, device and fixes.
func.func @negative_strict_pinned_mean(%x: tensor<256xf32>) -> tensor<f32> {
  // expected-error-re @+1 {{'tide.reduce_mean' (f32) is pinned to cuda:0, but target 'tensorflow-0.7' has no cuda:0 kernel for reduce_mean on f32; fixes: {{.*}}run tide-decompose (it rewrites 'reduce_mean' into primitives), or use policy=soft to let it fall back}}
  %m = tide.reduce_mean %x axes = [0] {tide.device = #tide.device<cuda:0>} : tensor<256xf32>
  return %m : tensor<f32>
}

// -----

// strict: every member of a group pinned to a device that lacks a kernel for
// one member is reported, naming the group.
func.func @negative_strict_group(%x: tensor<256xf32>) -> tensor<f32> {
  // expected-error @+1 {{'tide.neg' (f32) is pinned to cuda:0, but target 'tensorflow-0.7' has no cuda:0 kernel for reduce_mean on f32 (colocation group 'g')}}
  %0 = tide.neg %x {tide.colocate = "g", tide.device = #tide.device<cuda:0>} : tensor<256xf32>
  // expected-error @+1 {{'tide.reduce_mean' (f32) is pinned to cuda:0, but target 'tensorflow-0.7' has no cuda:0 kernel for reduce_mean on f32 (colocation group 'g')}}
  %m = tide.reduce_mean %0 axes = [0] {tide.colocate = "g"} : tensor<256xf32>
  return %m : tensor<f32>
}

// -----

// strict only rejects explicit pins: an unpinned reduce_mean falls back to the CPU like soft.
// STRICT-LABEL: func.func @strict_unpinned_falls_back(
// STRICT: tide.neg %{{.*}} {tide.device = #tide.device<cuda:0>, tide.reason = "preferred"}
// STRICT: tide.reduce_mean %{{.*}} {tide.device = #tide.device<cpu>, tide.reason = "no-kernel(cuda:0, f32)"}
func.func @strict_unpinned_falls_back(%x: tensor<256xf32>) -> tensor<f32> {
  %0 = tide.neg %x : tensor<256xf32>
  // expected-remark @+1 {{placed on cpu: target 'tensorflow-0.7' has no cuda:0 kernel for reduce_mean on f32}}
  %m = tide.reduce_mean %0 axes = [0] : tensor<256xf32>
  return %m : tensor<f32>
}

// -----

// strict: a function default is not a pin, so it falls back too.
// STRICT-LABEL: func.func @strict_default_falls_back(
// STRICT: tide.reduce_mean %{{.*}} {tide.device = #tide.device<cpu>, tide.reason = "no-kernel(cuda:0, f32)"}
func.func @strict_default_falls_back(%x: tensor<256xf32>) -> tensor<f32>
    attributes {tide.default_device = #tide.device<cuda:0>} {
  // expected-remark @+1 {{placed on cpu: target 'tensorflow-0.7' has no cuda:0 kernel for reduce_mean on f32}}
  %m = tide.reduce_mean %x axes = [0] : tensor<256xf32>
  return %m : tensor<f32>
}

//--- require-gpu.mlir

// Every op has a GPU kernel: require-gpu places it all on cuda:0.
// REQGPU-LABEL: func.func @require_gpu_ok(
// REQGPU: tide.matmul %{{.*}} {tide.device = #tide.device<cuda:0>, tide.reason = "preferred"}
// REQGPU: tide.tanh %{{.*}} {tide.device = #tide.device<cuda:0>, tide.reason = "preferred"}
func.func @require_gpu_ok(%a: tensor<64x64xf64>) -> tensor<64x64xf64> {
  %0 = tide.matmul %a, %a : tensor<64x64xf64>
  %1 = tide.tanh %0 : tensor<64x64xf64>
  return %1 : tensor<64x64xf64>
}

// -----

// An op pinned to the CPU violates require-gpu.
func.func @negative_require_gpu_pinned_cpu(%x: tensor<16xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{'tide.exp' (f32) would run on the CPU (pinned) but the policy is require-gpu}}
  %0 = tide.exp %x {tide.device = #tide.device<cpu>} : tensor<16xf32>
  return %0 : tensor<16xf32>
}

// REQGPU-FIX: error: 'tide.exp' (f32) would run on the CPU (pinned) but the policy is require-gpu; fixes:
// REQGPU-FIX-NOT: #tide.device<cpu>
// REQGPU-FIX-SAME: policy=soft

// -----

// A function default of cpu violates require-gpu too.
func.func @negative_require_gpu_default_cpu(%x: tensor<16xf32>) -> tensor<16xf32>
    attributes {tide.default_device = #tide.device<cpu>} {
  // expected-error @+1 {{'tide.exp' (f32) would run on the CPU (default) but the policy is require-gpu}}
  %0 = tide.exp %x : tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

// No GPU kernel at all (integer GEMM): no GPU can take it.
func.func @negative_require_gpu_no_kernel(%a: tensor<8x8xi32>) -> tensor<8x8xi32> {
  // expected-error @+1 {{'tide.matmul' (i32) has no kernel on any GPU (policy require-gpu) in target 'h200'}}
  %0 = tide.matmul %a, %a : tensor<8x8xi32>
  return %0 : tensor<8x8xi32>
}

//--- cost.mlir

// Two 256x256 f64 matmuls and a tanh: FP64 is slow on the RTX 3090 (CPU
// wins), fast on the H200 (GPU wins even with the copies).
// RTX-LABEL: func.func @f64_heavy(
// RTX: tide.matmul %{{.*}} {tide.device = #tide.device<cpu>, tide.reason = "cost(cpu=84.1us, gpu={{[0-9]+\.[0-9]}}us, copy={{[0-9]+\.[0-9]}}us)"}
// RTX: tide.matmul %{{.*}} {tide.device = #tide.device<cpu>, tide.reason = "cost(cpu=84.1us, gpu={{[0-9]+\.[0-9]}}us, copy={{[0-9]+\.[0-9]}}us)"}
// RTX: tide.tanh %{{.*}} {tide.device = #tide.device<cpu>, tide.reason = "cost(cpu={{[0-9]+\.[0-9]}}us, gpu={{[0-9]+\.[0-9]}}us, copy={{[0-9]+\.[0-9]}}us)"}
// H200-LABEL: func.func @f64_heavy(
// H200: tide.matmul %{{.*}} {tide.device = #tide.device<cuda:0>, tide.reason = "cost(cpu=153.8us, gpu={{[0-9]+\.[0-9]}}us, copy=159.3us)"}
// H200: tide.matmul %{{.*}} {tide.device = #tide.device<cuda:0>, tide.reason = "cost(cpu=153.8us, gpu={{[0-9]+\.[0-9]}}us, copy={{[0-9]+\.[0-9]}}us)"}
// H200: tide.tanh %{{.*}} {tide.device = #tide.device<cuda:0>, tide.reason = "cost(cpu={{[0-9]+\.[0-9]}}us, gpu={{[0-9]+\.[0-9]}}us, copy={{[0-9]+\.[0-9]}}us)"}
// With copy-mode=pageable the copies take the link's pageable figures (38.1
// GB/s to the device against 53.9 pinned): 161.1 us for the two 512 KiB
// inputs instead of 159.3 us (the CPU's threaded GEMMs still cost more).
// PAGEABLE-LABEL: func.func @f64_heavy(
// PAGEABLE: tide.matmul %{{.*}} {tide.device = #tide.device<cuda:0>, tide.reason = "cost(cpu=153.8us, gpu=4.4us, copy=161.1us)"}
func.func @f64_heavy(%a: tensor<256x256xf64>, %b: tensor<256x256xf64>) -> tensor<256x256xf64> {
  %0 = tide.matmul %a, %b : tensor<256x256xf64>
  %1 = tide.matmul %0, %b : tensor<256x256xf64>
  %2 = tide.tanh %1 : tensor<256x256xf64>
  return %2 : tensor<256x256xf64>
}

// A pin is honoured; on rtx3090 the ops fed by the pinned matmul follow it to
// the GPU, since copying its result back costs more than the slower FP64.
// RTX-LABEL: func.func @cost_pinned(
// RTX: tide.matmul %{{.*}} {tide.device = #tide.device<cuda:0>, tide.reason = "pinned"}
// RTX: tide.matmul %{{.*}} {tide.device = #tide.device<cuda:0>, tide.reason = "cost(
// RTX: tide.tanh %{{.*}} {tide.device = #tide.device<cuda:0>, tide.reason = "cost(
func.func @cost_pinned(%a: tensor<256x256xf64>, %b: tensor<256x256xf64>) -> tensor<256x256xf64> {
  %0 = tide.matmul %a, %b {tide.device = #tide.device<cuda:0>} : tensor<256x256xf64>
  %1 = tide.matmul %0, %b : tensor<256x256xf64>
  %2 = tide.tanh %1 : tensor<256x256xf64>
  return %2 : tensor<256x256xf64>
}

// A tiny op: the launch latency and the copies outweigh the GPU's speed.
// H200-LABEL: func.func @cost_tiny(
// H200: tide.exp %{{.*}} {tide.device = #tide.device<cpu>, tide.reason = "cost(cpu=0.0us, gpu={{[0-9]+\.[0-9]}}us, copy={{[0-9]+\.[0-9]}}us)"}
func.func @cost_tiny(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tide.exp %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// An op without a GPU kernel is on the CPU for that reason, not for cost.
// H200-LABEL: func.func @cost_no_gpu_kernel(
// H200: tide.matmul %{{.*}} {tide.device = #tide.device<cpu>, tide.reason = "no-kernel(cuda:0, i32)"}
func.func @cost_no_gpu_kernel(%a: tensor<8x8xi32>) -> tensor<8x8xi32> {
  %0 = tide.matmul %a, %a : tensor<8x8xi32>
  return %0 : tensor<8x8xi32>
}

// A colocation group is one node of the cut: both members on one device, reason prefixed by the group.
// RTX-LABEL: func.func @cost_group(
// RTX: tide.matmul %{{.*}} {tide.colocate = "g", tide.device = #tide.device<[[DEV:cpu|cuda:0]]>, tide.reason = "colocated(g); cost(
// RTX: tide.tanh %{{.*}} {tide.colocate = "g", tide.device = #tide.device<[[DEV]]>, tide.reason = "colocated(g); cost(
func.func @cost_group(%a: tensor<256x256xf64>, %b: tensor<256x256xf64>) -> tensor<256x256xf64> {
  %0 = tide.matmul %a, %b {tide.colocate = "g"} : tensor<256x256xf64>
  %1 = tide.matmul %0, %b : tensor<256x256xf64>
  %2 = tide.tanh %1 {tide.colocate = "g"} : tensor<256x256xf64>
  return %2 : tensor<256x256xf64>
}

//--- cost-errors.mlir

// Conflicting pins in a group are reported as such under cost too (not as "no kernel").
func.func @negative_cost_group_conflict(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = tide.exp %x {tide.colocate = "g", tide.device = #tide.device<cpu>} : tensor<16xf32>
  // expected-error @+1 {{colocation group 'g' is pinned to both cpu and cuda:0; pin its members to one device}}
  %1 = tide.neg %0 {tide.colocate = "g", tide.device = #tide.device<cuda:0>} : tensor<16xf32>
  return %1 : tensor<16xf32>
}

// -----

// An op pinned to a GPU that has no kernel for it can run nowhere under cost.
func.func @negative_cost_pinned_no_kernel(%a: tensor<8x8xi32>) -> tensor<8x8xi32> {
  // expected-error @+1 {{'tide.matmul' (i32) can run on no device of target 'h200': it can run neither on the CPU ('tide.matmul' is pinned to cuda:0) nor on a GPU ('tide.matmul' has no cuda:0 kernel for i32)}}
  %0 = tide.matmul %a, %a {tide.device = #tide.device<cuda:0>} : tensor<8x8xi32>
  return %0 : tensor<8x8xi32>
}

// -----

// A member pinned to the GPU, colocated with one that has no GPU kernel: the
// group can run nowhere, and the message says which member keeps it off
// each side.
func.func @negative_cost_group_pinned_without_kernel(%a: tensor<6x6xf32>, %b: tensor<4x?xf32>) -> (tensor<6x6xf32>, tensor<1xi64>) {
  // expected-error @+1 {{'tide.abs' (f32) can run on no device of target 'h200': its colocation group 'g1' can run neither on the CPU ('tide.abs' is pinned to cuda:0) nor on a GPU ('tide.dim' has no cuda:0 kernel for f32)}}
  %0 = tide.abs %a {tide.device = #tide.device<cuda:0>, tide.colocate = "g1"} : tensor<6x6xf32>
  // expected-error @+1 {{'tide.dim' (f32) can run on no device of target 'h200': its colocation group 'g1'}}
  %1 = tide.dim %b axis = 1 {tide.colocate = "g1"} : tensor<4x?xf32>
  return %0, %1 : tensor<6x6xf32>, tensor<1xi64>
}

//--- cost-group-pin.mlir

// A size the host reads (iota's shape) is computed on the host under cost,
// unless its op is pinned, or colocated with a pinned op: then the pin
// decides, as under the other policies, and the size goes to the host
// (a random program had a group that could run nowhere).
// CHECK-LABEL: func.func @group_pin_and_host_shape(
// CHECK: tide.abs {{.*}}tide.device = #tide.device<cuda:0>
// CHECK: tide.concat {{.*}}tide.device = #tide.device<cuda:0>, tide.reason = "colocated(g1); cost(cpu=n/a
// CHECK: tide.iota
func.func @group_pin_and_host_shape(%a: tensor<6x6xui64>, %b: tensor<4x?xf32>) -> (tensor<6x6xui64>, tensor<?x3xf32>) {
  %0 = tide.abs %a {tide.device = #tide.device<cuda:0>, tide.colocate = "g1"} : tensor<6x6xui64>
  %1 = tide.dim %b axis = 1 : tensor<4x?xf32>
  %2 = tide.constant dense<[3]> : tensor<1xi64>
  %3 = tide.concat %1, %2 axis = 0 {tide.colocate = "g1"} : tensor<1xi64>, tensor<1xi64>
  %4 = tide.iota %3 axis = 1 : tensor<2xi64> to tensor<?x3xf32>
  return %0, %4 : tensor<6x6xui64>, tensor<?x3xf32>
}

//--- multi-gpu.mlir

// A group pinned (by one member) to the second GPU: every member runs there,
// under soft and under cost.
// MULTI-SOFT-LABEL: func.func @group_on_second_gpu(
// MULTI-SOFT: tide.matmul %{{.*}} {tide.colocate = "g", tide.device = #tide.device<cuda:1>
// MULTI-SOFT: tide.tanh %{{.*}} {tide.colocate = "g", tide.device = #tide.device<cuda:1>, tide.reason = "colocated(g)"}
// MULTI-COST-LABEL: func.func @group_on_second_gpu(
// MULTI-COST: tide.matmul %{{.*}} {tide.colocate = "g", tide.device = #tide.device<cuda:1>, tide.reason = "pinned"}
// MULTI-COST: tide.tanh %{{.*}} {tide.colocate = "g", tide.device = #tide.device<cuda:1>
func.func @group_on_second_gpu(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %0 = tide.matmul %a, %b {tide.colocate = "g", tide.device = #tide.device<cuda:1>} : tensor<1024x1024xf32>
  %1 = tide.tanh %0 {tide.colocate = "g"} : tensor<1024x1024xf32>
  return %1 : tensor<1024x1024xf32>
}

// The function's default GPU is "the GPU" of the cut; soft uses it directly.
// MULTI-SOFT-LABEL: func.func @default_second_gpu(
// MULTI-SOFT-COUNT-2: tide.device = #tide.device<cuda:1>, tide.reason = "default"
// MULTI-COST-LABEL: func.func @default_second_gpu(
// MULTI-COST-COUNT-2: tide.device = #tide.device<cuda:1>, tide.reason = "cost(
func.func @default_second_gpu(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
    attributes {tide.default_device = #tide.device<cuda:1>} {
  %0 = tide.matmul %a, %b : tensor<1024x1024xf32>
  %1 = tide.matmul %0, %b : tensor<1024x1024xf32>
  return %1 : tensor<1024x1024xf32>
}

// Without a default, unpinned GPU work goes to the first GPU; a pin to the second is honoured.
// MULTI-SOFT-LABEL: func.func @pin_second_gpu(
// MULTI-SOFT: tide.matmul %{{.*}} {tide.device = #tide.device<cuda:0>, tide.reason = "preferred"}
// MULTI-SOFT: tide.matmul %{{.*}} {tide.device = #tide.device<cuda:1>, tide.reason = "pinned"}
// MULTI-COST-LABEL: func.func @pin_second_gpu(
// MULTI-COST: tide.matmul %{{.*}} {tide.device = #tide.device<cuda:0>, tide.reason = "cost(
// MULTI-COST: tide.matmul %{{.*}} {tide.device = #tide.device<cuda:1>, tide.reason = "pinned"}
func.func @pin_second_gpu(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %0 = tide.matmul %a, %b : tensor<1024x1024xf32>
  %1 = tide.matmul %0, %b {tide.device = #tide.device<cuda:1>} : tensor<1024x1024xf32>
  return %1 : tensor<1024x1024xf32>
}
