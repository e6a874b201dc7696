// Tests of tide-decompose: composites (reduce_mean, softmax, log_softmax)
// become primitives where that enables a better placement (mode=auto), always
// or never; with demote-f64, f64 ops whose device has only an f32 kernel are
// computed in f32 between casts, with a warning. The inputs are the parts of
// this file after the `//---` markers.

// RUN: rm -rf %t && split-file %s %t

// auto on tensorflow-0.7 (no GPU reduce_mean, no GPU f64 reductions).
// RUN: tide-opt %t/composites.mlir -verify-diagnostics --tide-decompose=target=tensorflow-0.7 \
// RUN:   | FileCheck %t/composites.mlir --check-prefix=TF
// auto on h200: the GPU has every composite, so nothing changes (no op is marked).
// RUN: tide-opt %t/composites.mlir --tide-decompose=target=h200 \
// RUN:   | FileCheck %t/composites.mlir --check-prefix=H200 --implicit-check-not=tide.decomposed
// always: every composite with static reduced dimensions is rewritten.
// RUN: tide-opt %t/composites.mlir -verify-diagnostics --tide-decompose="target=h200 mode=always" \
// RUN:   | FileCheck %t/composites.mlir --check-prefix=ALWAYS
// never: nothing is rewritten, even where auto would, and there is no remark.
// RUN: tide-opt %t/composites.mlir --tide-decompose="target=tensorflow-0.7 mode=never" 2>&1 \
// RUN:   | FileCheck %t/composites.mlir --check-prefix=NEVER \
// RUN:       --implicit-check-not=tide.decomposed --implicit-check-not=remark:

// f16/bf16 means and softmaxes compute in f32 and round once: they are never
// decomposed (their primitives would round the sum and the intermediates to
// the element type), whatever the count, with a remark saying why.
// RUN: tide-opt %t/f16.mlir --tide-decompose=target=tensorflow-0.7 2>/dev/null \
// RUN:   | FileCheck %t/f16.mlir --implicit-check-not=tide.decomposed
// RUN: tide-opt %t/f16.mlir -verify-diagnostics --tide-decompose="target=h200 mode=always" \
// RUN:   | FileCheck %t/f16.mlir --implicit-check-not=tide.decomposed

// top_k has a CPU kernel (a heap per row) and none on the GPU: on h200 it
// becomes an all-pairs comparison where its axis and k are static; the CPU
// target keeps it whole.
// RUN: tide-opt %t/topk.mlir -verify-diagnostics --tide-decompose=target=h200 \
// RUN:   | FileCheck %t/topk.mlir --check-prefix=TOPK
// RUN: tide-opt %t/topk.mlir --tide-decompose=target=cpu 2>&1 \
// RUN:   | FileCheck %t/topk.mlir --check-prefix=TOPK-CPU --implicit-check-not=tide.decomposed \
// RUN:       --implicit-check-not=remark:

// tide.if (a host branch) on a GPU target is speculated where the GPU runs
// every op of both regions and all sizes are static: both regions computed,
// each result a select; not on the CPU target, not with mode=never, not
// when a region has a run-time size (a check the branch not taken could
// fail), not when the if is pinned to the CPU.
// RUN: tide-opt %t/if.mlir --tide-decompose=target=h200 | FileCheck %t/if.mlir --check-prefix=IF
// RUN: tide-opt %t/if.mlir --tide-decompose=target=cpu \
// RUN:   | FileCheck %t/if.mlir --check-prefix=IF-KEEP --implicit-check-not=tide.decomposed
// RUN: tide-opt %t/if.mlir --tide-decompose="target=h200 mode=never" \
// RUN:   | FileCheck %t/if.mlir --check-prefix=IF-KEEP --implicit-check-not=tide.decomposed

// demote-f64 on theano-0.7 (GPU kernels for f32 only).
// RUN: tide-opt %examples/exp_f64.mlir --tide-decompose="target=theano-0.7 demote-f64=true" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DEMOTE-EXP
// RUN: tide-opt %t/demote.mlir -verify-diagnostics --tide-decompose="target=theano-0.7 demote-f64=true" \
// RUN:   | FileCheck %t/demote.mlir --check-prefix=DEMOTE
// Precision never changes without demote-f64, nor where the GPU has f64 (h200).
// RUN: tide-opt %t/demote.mlir --tide-decompose="target=theano-0.7" 2>&1 \
// RUN:   | FileCheck %t/demote.mlir --check-prefix=NO-DEMOTE \
// RUN:       --implicit-check-not=warning: --implicit-check-not=tide.cast --implicit-check-not=tide.decomposed
// RUN: tide-opt %t/demote.mlir --tide-decompose="target=h200 demote-f64=true" 2>&1 \
// RUN:   | FileCheck %t/demote.mlir --check-prefix=NO-DEMOTE \
// RUN:       --implicit-check-not=warning: --implicit-check-not=tide.cast --implicit-check-not=tide.decomposed

// reduce-precision (asked for): f32 matmuls and convs on the GPU read bf16 or
// f16 operands; nothing else changes, nor without the option, nor on the CPU.
// RUN: tide-opt %t/reduce.mlir -verify-diagnostics --tide-decompose="target=h200 reduce-precision=bf16" \
// RUN:   | FileCheck %t/reduce.mlir --check-prefix=BF16
// RUN: tide-opt %t/reduce.mlir --tide-decompose="target=h200 reduce-precision=f16" 2>&1 \
// RUN:   | FileCheck %t/reduce.mlir --check-prefix=F16
// RUN: tide-opt %t/reduce.mlir --tide-decompose="target=h200" 2>&1 \
// RUN:   | FileCheck %t/reduce.mlir --check-prefix=NO-REDUCE \
// RUN:       --implicit-check-not=warning: --implicit-check-not=tide.cast --implicit-check-not=tide.decomposed
// RUN: tide-opt %t/reduce.mlir --tide-decompose="target=cpu reduce-precision=bf16" 2>&1 \
// RUN:   | FileCheck %t/reduce.mlir --check-prefix=NO-REDUCE \
// RUN:       --implicit-check-not=warning: --implicit-check-not=tide.cast --implicit-check-not=tide.decomposed
// RUN: not tide-opt %examples/mlp_f32.mlir --tide-decompose=reduce-precision=f8 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD-REDUCE
// BAD-REDUCE: error: invalid 'reduce-precision' option 'f8'; expected none, bf16 or f16

// Bad option values.
// RUN: not tide-opt %examples/mlp_f32.mlir --tide-decompose=mode=sometimes 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD-MODE
// RUN: not tide-opt %examples/mlp_f32.mlir --tide-decompose=target=tensorflow-2.0 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD-TARGET

// The exp of the Theano report, demoted: exp runs in f32 between two casts,
// and the precision change is a warning at the op.
// DEMOTE-EXP: exp_f64.mlir:5:8: warning: computing 'tide.exp' in f32 instead of f64 (demote-f64): cuda:0 has no f64 kernel for exp; results lose precision
// DEMOTE-EXP-LABEL: func.func @exp(
// DEMOTE-EXP-SAME: %[[X:.*]]: tensor<230400xf64>) -> tensor<230400xf64>
// DEMOTE-EXP: %[[N:.*]] = tide.cast %[[X]] {tide.decomposed = "demote-f64"} : tensor<230400xf64> to tensor<230400xf32>
// DEMOTE-EXP: %[[E:.*]] = tide.exp %[[N]] {tide.decomposed = "demote-f64"} : tensor<230400xf32>
// DEMOTE-EXP: %[[W:.*]] = tide.cast %[[E]] {tide.decomposed = "demote-f64"} : tensor<230400xf32> to tensor<230400xf64>
// DEMOTE-EXP: return %[[W]] : tensor<230400xf64>

// BAD-MODE: error: invalid 'mode' option 'sometimes'; expected auto, always or never
// BAD-TARGET: error: invalid 'target' option: unknown target 'tensorflow-2.0'; built-in targets are cpu, h100, h200, rtx3090, tensorflow-0.7, theano-0.7; 'native' is this machine as tide-calibrate measured it; or give the path of a .json target file

//--- composites.mlir

// tensorflow-0.7 has no GPU reduce_mean but has reduce_sum, div and constant:
// the mean becomes sum / count, each op marked with its origin.
// TF-LABEL: func.func @mean_f32(
// TF-SAME: %[[X:.*]]: tensor<256xf32>)
// TF: %[[S:.*]] = tide.reduce_sum %[[X]] axes = [0] {tide.decomposed = "reduce_mean"} : tensor<256xf32>
// TF: %[[N:.*]] = tide.constant {tide.decomposed = "reduce_mean"} dense<2.560000e+02> : tensor<f32>
// TF: %[[M:.*]] = tide.div %[[S]], %[[N]] {tide.decomposed = "reduce_mean"} : tensor<f32>
// TF-NOT: tide.reduce_mean
// TF: return %[[M]] : tensor<f32>
// H200-LABEL: func.func @mean_f32(
// H200: tide.reduce_mean
// ALWAYS-LABEL: func.func @mean_f32(
// ALWAYS: tide.reduce_sum {{.*}}{tide.decomposed = "reduce_mean"}
// NEVER-LABEL: func.func @mean_f32(
// NEVER: tide.reduce_mean %{{.*}} axes = [0] : tensor<256xf32>
func.func @mean_f32(%x: tensor<256xf32>) -> tensor<f32> {
  %m = tide.reduce_mean %x axes = [0] : tensor<256xf32>
  return %m : tensor<f32>
}

// Several axes (one negative): the count is the product of the reduced sizes (4 * 16).
// TF-LABEL: func.func @mean_several_axes(
// TF-SAME: %[[X:.*]]: tensor<4x8x16xf32>)
// TF: %[[S:.*]] = tide.reduce_sum %[[X]] axes = [0, -1] {tide.decomposed = "reduce_mean"} : tensor<4x8x16xf32>
// TF: %[[N:.*]] = tide.constant {tide.decomposed = "reduce_mean"} dense<6.400000e+01> : tensor<f32>
// TF: %[[M:.*]] = tide.div %[[S]], %[[N]] {tide.decomposed = "reduce_mean"} : tensor<8xf32>, tensor<f32>
// TF: return %[[M]]
func.func @mean_several_axes(%x: tensor<4x8x16xf32>) -> tensor<8xf32> {
  %m = tide.reduce_mean %x axes = [0, -1] : tensor<4x8x16xf32>
  return %m : tensor<8xf32>
}

// keepdims is kept on the sum, so the division keeps the rank.
// TF-LABEL: func.func @mean_keepdims(
// TF: %[[S:.*]] = tide.reduce_sum %{{.*}} axes = [1] keepdims {tide.decomposed = "reduce_mean"} : tensor<4x8xf32>
// TF: %[[N:.*]] = tide.constant {tide.decomposed = "reduce_mean"} dense<8.000000e+00> : tensor<f32>
// TF: tide.div %[[S]], %[[N]] {tide.decomposed = "reduce_mean"} : tensor<4x1xf32>, tensor<f32>
func.func @mean_keepdims(%x: tensor<4x8xf32>) -> tensor<4x1xf32> {
  %m = tide.reduce_mean %x axes = [1] keepdims : tensor<4x8xf32>
  return %m : tensor<4x1xf32>
}

// A pinned mean (and its colocation group) is decomposed into primitives that inherit both.
// TF-LABEL: func.func @mean_pinned_gpu(
// TF: tide.reduce_sum {{.*}} {tide.colocate = "loss", tide.decomposed = "reduce_mean", tide.device = #tide.device<cuda:0>}
// TF: tide.constant {tide.colocate = "loss", tide.decomposed = "reduce_mean", tide.device = #tide.device<cuda:0>}
// TF: tide.div {{.*}} {tide.colocate = "loss", tide.decomposed = "reduce_mean", tide.device = #tide.device<cuda:0>}
func.func @mean_pinned_gpu(%x: tensor<256xf32>) -> tensor<f32> {
  %m = tide.reduce_mean %x axes = [0] {tide.device = #tide.device<cuda:0>, tide.colocate = "loss"} : tensor<256xf32>
  return %m : tensor<f32>
}

// Pinned to the CPU, which has reduce_mean: auto leaves it alone.
// TF-LABEL: func.func @negative_mean_pinned_cpu(
// TF: tide.reduce_mean %{{.*}} axes = [0] {tide.device = #tide.device<cpu>}
// TF-NOT: tide.decomposed
// TF: return
// ALWAYS-LABEL: func.func @negative_mean_pinned_cpu(
// ALWAYS: tide.reduce_sum {{.*}}{tide.decomposed = "reduce_mean", tide.device = #tide.device<cpu>}
func.func @negative_mean_pinned_cpu(%x: tensor<256xf32>) -> tensor<f32> {
  %m = tide.reduce_mean %x axes = [0] {tide.device = #tide.device<cpu>} : tensor<256xf32>
  return %m : tensor<f32>
}

// The function's default device (cpu) is the preferred one: auto leaves it alone.
// TF-LABEL: func.func @negative_mean_default_cpu(
// TF: tide.reduce_mean
// TF-NOT: tide.decomposed
// TF: return
func.func @negative_mean_default_cpu(%x: tensor<256xf32>) -> tensor<f32>
    attributes {tide.default_device = #tide.device<cpu>} {
  %m = tide.reduce_mean %x axes = [0] : tensor<256xf32>
  return %m : tensor<f32>
}

// f64: the GPU lacks reduce_sum f64 too, so decomposing would not help.
// TF-LABEL: func.func @negative_mean_f64(
// TF: tide.reduce_mean %{{.*}} axes = [0] : tensor<256xf64>
// TF-NOT: tide.decomposed
// TF: return
func.func @negative_mean_f64(%x: tensor<256xf64>) -> tensor<f64> {
  %m = tide.reduce_mean %x axes = [0] : tensor<256xf64>
  return %m : tensor<f64>
}

// softmax has a GPU kernel on tensorflow-0.7: auto keeps it; always rewrites it.
// TF-LABEL: func.func @softmax(
// TF: tide.softmax
// TF-NOT: tide.decomposed
// TF: return
// ALWAYS-LABEL: func.func @softmax(
// ALWAYS-SAME: %[[X:.*]]: tensor<4x8xf32>)
// ALWAYS: %[[MAX:.*]] = tide.reduce_max %[[X]] axes = [1] keepdims {tide.decomposed = "softmax"} : tensor<4x8xf32>
// ALWAYS: %[[SUB:.*]] = tide.sub %[[X]], %[[MAX]] {tide.decomposed = "softmax"} : tensor<4x8xf32>, tensor<4x1xf32>
// ALWAYS: %[[EXP:.*]] = tide.exp %[[SUB]] {tide.decomposed = "softmax"} : tensor<4x8xf32>
// ALWAYS: %[[SUM:.*]] = tide.reduce_sum %[[EXP]] axes = [1] keepdims {tide.decomposed = "softmax"} : tensor<4x8xf32>
// ALWAYS: %[[ONE:.*]] = tide.constant {tide.decomposed = "softmax"} dense<1.000000e+00> : tensor<f32>
// ALWAYS: %[[INV:.*]] = tide.div %[[ONE]], %[[SUM]] {tide.decomposed = "softmax"} : tensor<f32>, tensor<4x1xf32>
// ALWAYS: %[[MUL:.*]] = tide.mul %[[EXP]], %[[INV]] {tide.decomposed = "softmax"} : tensor<4x8xf32>, tensor<4x1xf32>
// ALWAYS-NOT: tide.softmax
// ALWAYS: return %[[MUL]]
func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %s = tide.softmax %x axis = -1 : tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}

// log_softmax = (x - max) - log(sum(exp(x - max))).
// ALWAYS-LABEL: func.func @log_softmax(
// ALWAYS-SAME: %[[X:.*]]: tensor<4x8xf32>)
// ALWAYS: %[[MAX:.*]] = tide.reduce_max %[[X]] axes = [0] keepdims {tide.decomposed = "log_softmax"} : tensor<4x8xf32>
// ALWAYS: %[[SUB:.*]] = tide.sub %[[X]], %[[MAX]] {tide.decomposed = "log_softmax"}
// ALWAYS: %[[EXP:.*]] = tide.exp %[[SUB]] {tide.decomposed = "log_softmax"}
// ALWAYS: %[[SUM:.*]] = tide.reduce_sum %[[EXP]] axes = [0] keepdims {tide.decomposed = "log_softmax"}
// ALWAYS: %[[LOG:.*]] = tide.log %[[SUM]] {tide.decomposed = "log_softmax"} : tensor<1x8xf32>
// ALWAYS: %[[RES:.*]] = tide.sub %[[SUB]], %[[LOG]] {tide.decomposed = "log_softmax"} : tensor<4x8xf32>, tensor<1x8xf32>
// ALWAYS: return %[[RES]]
// NEVER-LABEL: func.func @log_softmax(
// NEVER: tide.log_softmax
func.func @log_softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %s = tide.log_softmax %x axis = 0 : tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}

// A dynamic reduced dimension has no static count: the mean stays, with a
// remark; a dynamic dimension that is not reduced is fine.
// TF-LABEL: func.func @mean_dynamic(
// TF: tide.reduce_sum %{{.*}} axes = [0] {tide.decomposed = "reduce_mean"} : tensor<4x?xf32>
// TF: tide.constant {tide.decomposed = "reduce_mean"} dense<4.000000e+00> : tensor<f32>
// TF: tide.div %{{.*}}, %{{.*}} {tide.decomposed = "reduce_mean"} : tensor<?xf32>, tensor<f32>
// TF: tide.reduce_mean %{{.*}} axes = [1] : tensor<4x?xf32>
func.func @mean_dynamic(%x: tensor<4x?xf32>) -> (tensor<?xf32>, tensor<4xf32>) {
  %m = tide.reduce_mean %x axes = [0] : tensor<4x?xf32>
  // expected-remark @+1 {{not decomposed: a reduced dimension is dynamic}}
  %n = tide.reduce_mean %x axes = [1] : tensor<4x?xf32>
  return %m, %n : tensor<?xf32>, tensor<4xf32>
}

//--- f16.mlir

// The mean of 100000 f16 values: 100000 is not an f16 (the largest finite one
// is 65504), so a count constant of that type would be +inf and the "mean"
// 0 or NaN.
// CHECK-LABEL: func.func @mean_f16_large_count(
// CHECK: tide.reduce_mean %{{.*}} axes = [0] : tensor<100000xf16>
func.func @mean_f16_large_count(%x: tensor<100000xf16>) -> tensor<f16> {
  // expected-remark @+1 {{not decomposed: an f16/bf16 mean accumulates in f32 and rounds once, but reduce_sum would round the sum to the element type before the division (an f16 sum overflows above 65504)}}
  %m = tide.reduce_mean %x axes = [0] : tensor<100000xf16>
  return %m : tensor<f16>
}

// An exact count is not enough: the f16 sum of 1024 values of 100 is +inf
// (above 65504), though their mean is 100.
// CHECK-LABEL: func.func @mean_f16_exact_count(
// CHECK: tide.reduce_mean %{{.*}} axes = [0] : tensor<1024xf16>
func.func @mean_f16_exact_count(%x: tensor<1024xf16>) -> tensor<f16> {
  // expected-remark @+1 {{not decomposed: an f16/bf16 mean}}
  %m = tide.reduce_mean %x axes = [0] : tensor<1024xf16>
  return %m : tensor<f16>
}

// bf16: the sum would be rounded to 8 significant bits before the division,
// and counts above 256 are not all bf16 values (257 is not).
// CHECK-LABEL: func.func @mean_bf16(
// CHECK: tide.reduce_mean %{{.*}} axes = [0, 1] : tensor<257x4xbf16>
func.func @mean_bf16(%x: tensor<257x4xbf16>) -> tensor<bf16> {
  // expected-remark @+1 {{not decomposed: an f16/bf16 mean}}
  %m = tide.reduce_mean %x axes = [0, 1] : tensor<257x4xbf16>
  return %m : tensor<bf16>
}

// softmax and log_softmax in f16 stay whole, like the mean.
// CHECK-LABEL: func.func @softmax_f16(
// CHECK: tide.softmax %{{.*}} axis = 1 {tide.device = #tide.device<cuda:0>} : tensor<4x8xf16>
// CHECK: tide.log_softmax %{{.*}} axis = 0 {tide.device = #tide.device<cuda:0>} : tensor<4x8xbf16>
func.func @softmax_f16(%x: tensor<4x8xf16>, %y: tensor<4x8xbf16>) -> (tensor<4x8xf16>, tensor<4x8xbf16>) {
  // expected-remark @+1 {{not decomposed: an f16/bf16 softmax computes in f32 and rounds once, but its primitives would round every intermediate to the element type}}
  %s = tide.softmax %x axis = 1 {tide.device = #tide.device<cuda:0>} : tensor<4x8xf16>
  // expected-remark @+1 {{not decomposed: an f16/bf16 softmax}}
  %l = tide.log_softmax %y axis = 0 {tide.device = #tide.device<cuda:0>} : tensor<4x8xbf16>
  return %s, %l : tensor<4x8xf16>, tensor<4x8xbf16>
}

//--- demote.mlir

// A binary f64 op: both operands are narrowed, the result widened back.
// DEMOTE-LABEL: func.func @add_f64(
// DEMOTE-SAME: %[[X:.*]]: tensor<16xf64>, %[[Y:.*]]: tensor<16xf64>)
// DEMOTE: %[[NX:.*]] = tide.cast %[[X]] {{.*}}: tensor<16xf64> to tensor<16xf32>
// DEMOTE: %[[NY:.*]] = tide.cast %[[Y]] {{.*}}: tensor<16xf64> to tensor<16xf32>
// DEMOTE: %[[A:.*]] = tide.add %[[NX]], %[[NY]] {tide.decomposed = "demote-f64"} : tensor<16xf32>
// DEMOTE: %[[W:.*]] = tide.cast %[[A]] {{.*}}: tensor<16xf32> to tensor<16xf64>
// DEMOTE: return %[[W]] : tensor<16xf64>
// NO-DEMOTE-LABEL: func.func @add_f64(
// NO-DEMOTE: tide.add %{{.*}}, %{{.*}} : tensor<16xf64>
func.func @add_f64(%x: tensor<16xf64>, %y: tensor<16xf64>) -> tensor<16xf64> {
  // expected-warning @+1 {{computing 'tide.add' in f32 instead of f64 (demote-f64): cuda:0 has no f64 kernel for add; results lose precision}}
  %0 = tide.add %x, %y : tensor<16xf64>
  return %0 : tensor<16xf64>
}

// A pinned op keeps its pin when demoted.
// DEMOTE-LABEL: func.func @exp_pinned_gpu(
// DEMOTE: tide.exp %{{.*}} {tide.decomposed = "demote-f64", tide.device = #tide.device<cuda:0>} : tensor<16xf32>
func.func @exp_pinned_gpu(%x: tensor<16xf64>) -> tensor<16xf64> {
  // expected-warning @+1 {{computing 'tide.exp' in f32 instead of f64 (demote-f64): cuda:0 has no f64 kernel for exp; results lose precision}}
  %0 = tide.exp %x {tide.device = #tide.device<cuda:0>} : tensor<16xf64>
  return %0 : tensor<16xf64>
}

// Preferred device is the CPU (a pin), which has f64: no demotion.
// DEMOTE-LABEL: func.func @negative_pinned_cpu(
// DEMOTE-NOT: tide.cast
// DEMOTE: tide.exp %{{.*}} {tide.device = #tide.device<cpu>} : tensor<16xf64>
func.func @negative_pinned_cpu(%x: tensor<16xf64>) -> tensor<16xf64> {
  %0 = tide.exp %x {tide.device = #tide.device<cpu>} : tensor<16xf64>
  return %0 : tensor<16xf64>
}

// f32 ops and f64 constants are never touched.
// DEMOTE-LABEL: func.func @negative_f32_and_constant(
// DEMOTE-NOT: tide.cast
// DEMOTE: tide.exp %{{.*}} : tensor<16xf32>
// DEMOTE: tide.constant dense<1.000000e+00> : tensor<16xf64>
// DEMOTE: return
func.func @negative_f32_and_constant(%x: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf64>) {
  %0 = tide.exp %x : tensor<16xf32>
  %c = tide.constant dense<1.0> : tensor<16xf64>
  return %0, %c : tensor<16xf32>, tensor<16xf64>
}

//--- reduce.mlir

// A matmul of an argument and a constant: the constant is converted here
// (1.00390625 rounds to 1.0 in bf16, to itself in f16), the argument through
// a cast; the result is cast back to f32; the add stays f32.
// BF16-LABEL: func.func @linear(
// BF16-SAME: %[[X:.*]]: tensor<2x4xf32>)
// BF16: %[[NX:.*]] = tide.cast %[[X]] {tide.decomposed = "reduce-precision"} : tensor<2x4xf32> to tensor<2x4xbf16>
// BF16: %[[W:.*]] = tide.constant {tide.decomposed = "reduce-precision"} dense<1.000000e+00> : tensor<4x3xbf16>
// BF16: %[[M:.*]] = tide.matmul %[[NX]], %[[W]] {tide.decomposed = "reduce-precision"} : tensor<2x4xbf16>, tensor<4x3xbf16>
// BF16: %[[R:.*]] = tide.cast %[[M]] {tide.decomposed = "reduce-precision"} : tensor<2x3xbf16> to tensor<2x3xf32>
// BF16: tide.add %[[R]], %[[R]] : tensor<2x3xf32>
// F16: warning: computing 'tide.matmul' with f16 operands and f32 accumulation instead of f32 (reduce-precision=f16, requested) on cuda:0; results lose precision
// F16-LABEL: func.func @linear(
// F16: tide.constant {tide.decomposed = "reduce-precision"} dense<1.003910e+00> : tensor<4x3xf16>
// F16: tide.matmul {{.*}} : tensor<2x4xf16>, tensor<4x3xf16>
// NO-REDUCE-LABEL: func.func @linear(
// NO-REDUCE: tide.matmul %{{.*}}, %{{.*}} : tensor<2x4xf32>, tensor<4x3xf32>
func.func @linear(%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %w = tide.constant dense<1.00390625> : tensor<4x3xf32>
  // expected-warning @+1 {{computing 'tide.matmul' with bf16 operands and f32 accumulation instead of f32 (reduce-precision=bf16, requested) on cuda:0; results lose precision}}
  %0 = tide.matmul %x, %w : tensor<2x4xf32>, tensor<4x3xf32>
  %1 = tide.add %0, %0 : tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// A convolution keeps its attributes.
// BF16-LABEL: func.func @conv(
// BF16: tide.conv %{{.*}}, %{{.*}} strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] {tide.decomposed = "reduce-precision"} : tensor<1x3x8x8xbf16>, tensor<4x3x3x3xbf16>
// BF16: tide.cast %{{.*}} : tensor<1x4x8x8xbf16> to tensor<1x4x8x8xf32>
func.func @conv(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> {
  // expected-warning @+1 {{computing 'tide.conv' with bf16 operands}}
  %0 = tide.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// f64, and ops pinned to the CPU, are left alone.
// BF16-LABEL: func.func @negative(
// BF16-NOT: tide.cast
// BF16: tide.matmul {{.*}} : tensor<2x4xf64>, tensor<4x3xf64>
// BF16: tide.matmul {{.*}}tide.device = #tide.device<cpu>{{.*}} : tensor<2x4xf32>, tensor<4x3xf32>
func.func @negative(%a: tensor<2x4xf64>, %b: tensor<4x3xf64>, %c: tensor<2x4xf32>, %d: tensor<4x3xf32>) -> (tensor<2x3xf64>, tensor<2x3xf32>) {
  %0 = tide.matmul %a, %b : tensor<2x4xf64>, tensor<4x3xf64>
  %1 = tide.matmul %c, %d {tide.device = #tide.device<cpu>} : tensor<2x4xf32>, tensor<4x3xf32>
  return %0, %1 : tensor<2x3xf64>, tensor<2x3xf32>
}

//--- topk.mlir

// The rank of each element is the number of elements that come before it
// (greater, a NaN against a number, or equal with a smaller index: logic on
// i1 written as selects); position r takes the index whose rank is r.
// TOPK-LABEL: func.func @top_k(
// TOPK-SAME: %[[X:.*]]: tensor<?x6xf16>
// TOPK: %[[XI:.*]] = tide.reshape %[[X]] {tide.decomposed = "top_k"} : tensor<?x6xf16> to tensor<?x6x1xf16>
// TOPK: %[[XJ:.*]] = tide.reshape %[[X]] {tide.decomposed = "top_k"} : tensor<?x6xf16> to tensor<?x1x6xf16>
// TOPK: tide.cmp gt, %[[XI]], %[[XJ]]
// TOPK: tide.cmp ne, %[[XI]], %[[XI]]
// TOPK: %[[J:.*]] = tide.constant {tide.decomposed = "top_k"} dense<{{\[\[\[}}0, 1, 2, 3, 4, 5]]]> : tensor<1x1x6xi64>
// TOPK: %[[B:.*]] = tide.cast %{{.*}} {tide.decomposed = "top_k"} : tensor<?x6x6xi1> to tensor<?x6x6xi64>
// TOPK: %[[R:.*]] = tide.reduce_sum %[[B]] axes = [1] {tide.decomposed = "top_k"} : tensor<?x6x6xi64>
// TOPK: %[[RJ:.*]] = tide.reshape %[[R]] {tide.decomposed = "top_k"} : tensor<?x6xi64> to tensor<?x1x6xi64>
// TOPK: %[[P:.*]] = tide.cmp eq, %[[RJ]], %{{.*}} {tide.decomposed = "top_k"} : tensor<?x1x6xi64>, tensor<1x2x1xi64>
// TOPK: %[[S:.*]] = tide.select %[[P]], %[[J]], %{{.*}} {tide.decomposed = "top_k"}
// TOPK: %[[I:.*]] = tide.reduce_sum %[[S]] axes = [2] {tide.decomposed = "top_k"} : tensor<?x2x6xi64>
// TOPK-NOT: tide.top_k
// TOPK: return %[[I]] : tensor<?x2xi64>
// TOPK-CPU-LABEL: func.func @top_k(
// TOPK-CPU: tide.top_k
func.func @top_k(%x: tensor<?x6xf16>, %k: tensor<1xi64>) -> tensor<?x2xi64> {
  %i = tide.top_k %x, %k axis = 1 : tensor<?x6xf16>, tensor<1xi64> to tensor<?x2xi64>
  return %i : tensor<?x2xi64>
}

// k known only at run time: not decomposed, with a remark; placement then
// runs it on the CPU.
// TOPK-LABEL: func.func @top_k_dynamic_k(
// TOPK: tide.top_k %{{.*}} axis = 1 smallest
// TOPK-CPU-LABEL: func.func @top_k_dynamic_k(
// TOPK-CPU: tide.top_k
func.func @top_k_dynamic_k(%x: tensor<2x9xi32>, %k: tensor<1xi64>) -> tensor<2x?xi64> {
  // expected-remark @+1 {{not decomposed: the axis or k is known only at run time}}
  %i = tide.top_k %x, %k axis = 1 smallest : tensor<2x9xi32>, tensor<1xi64> to tensor<2x?xi64>
  return %i : tensor<2x?xi64>
}

//--- if.mlir

// IF-LABEL: func.func @speculated(
// IF-SAME: %[[C:.*]]: tensor<i1>, %[[X:.*]]: tensor<4xf32>
// IF-NEXT: %[[E:.*]] = tide.exp %[[X]] {tide.decomposed = "speculate-if"}
// IF-NEXT: %[[K:.*]] = tide.constant {tide.decomposed = "speculate-if"} dense<2.000000e+00>
// IF-NEXT: %[[M:.*]] = tide.mul %[[X]], %[[K]] {tide.decomposed = "speculate-if"}
// IF-NEXT: %[[S:.*]] = tide.select %[[C]], %[[E]], %[[M]] {tide.decomposed = "speculate-if"}
// IF-NEXT: %[[T:.*]] = tide.select %[[C]], %[[X]], %[[X]] {tide.decomposed = "speculate-if"}
// IF-NEXT: return %[[S]], %[[T]]
// IF-KEEP-LABEL: func.func @speculated(
// IF-KEEP: tide.if
func.func @speculated(%c: tensor<i1>, %x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %r:2 = tide.if %c invariants(%x : tensor<4xf32>) {
  ^bb0(%a: tensor<4xf32>):
    %e = tide.exp %a : tensor<4xf32>
    tide.yield %e, %a : tensor<4xf32>, tensor<4xf32>
  } else {
  ^bb0(%a: tensor<4xf32>):
    %k = tide.constant dense<2.0> : tensor<4xf32>
    %m = tide.mul %a, %k : tensor<4xf32>, tensor<4xf32>
    tide.yield %m, %a : tensor<4xf32>, tensor<4xf32>
  } : tensor<i1> -> (tensor<4xf32>, tensor<4xf32>)
  return %r#0, %r#1 : tensor<4xf32>, tensor<4xf32>
}

// A run-time size in a region: kept.
// IF-LABEL: func.func @dynamic(
// IF: tide.if
// IF-NOT: tide.decomposed
// IF: return
func.func @dynamic(%c: tensor<i1>, %x: tensor<?xf32>) -> tensor<?xf32> {
  %r = tide.if %c invariants(%x : tensor<?xf32>) {
  ^bb0(%a: tensor<?xf32>):
    %e = tide.exp %a : tensor<?xf32>
    tide.yield %e : tensor<?xf32>
  } else {
  ^bb0(%a: tensor<?xf32>):
    tide.yield %a : tensor<?xf32>
  } : tensor<i1> -> (tensor<?xf32>)
  return %r : tensor<?xf32>
}

// Regions that yield different sizes: kept.
// IF-LABEL: func.func @sizes(
// IF: tide.if
// IF-NOT: tide.decomposed
// IF: return
func.func @sizes(%c: tensor<i1>, %x: tensor<4xf32>) -> tensor<?xf32> {
  %r = tide.if %c invariants(%x : tensor<4xf32>) {
  ^bb0(%a: tensor<4xf32>):
    tide.yield %a : tensor<4xf32>
  } else {
  ^bb0(%a: tensor<4xf32>):
    %s = tide.slice %a start = [0] limit = [2] strides = [1] : tensor<4xf32>
    tide.yield %s : tensor<2xf32>
  } : tensor<i1> -> (tensor<?xf32>)
  return %r : tensor<?xf32>
}

// Pinned to the CPU: kept.
// IF-LABEL: func.func @pinned(
// IF: tide.if
// IF-NOT: tide.decomposed
// IF: return
func.func @pinned(%c: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = tide.if %c invariants(%x : tensor<4xf32>) {
  ^bb0(%a: tensor<4xf32>):
    %e = tide.exp %a : tensor<4xf32>
    tide.yield %e : tensor<4xf32>
  } else {
  ^bb0(%a: tensor<4xf32>):
    tide.yield %a : tensor<4xf32>
  } {tide.device = #tide.device<cpu>} : tensor<i1> -> (tensor<4xf32>)
  return %r : tensor<4xf32>
}
