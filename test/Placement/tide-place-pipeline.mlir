// Tests of tide-place-pipeline (decompose -> place-devices -> insert-transfers
// -> optimize-transfers [-> placement-report]) on the cases of the user
// reports: the Theano exp (examples/exp_f32.mlir, exp_f64.mlir), the
// TensorFlow MLP (examples/mlp_f32.mlir, mlp_f64.mlir) and the Theano identity
// copy (examples/identity.mlir), plus small functions in the parts of this
// file after the `//---` markers.

// RUN: rm -rf %t && split-file %s %t

// Theano 0.7: f32 exp on the GPU (one copy in, one out); f64 exp on the CPU, no copy.
// RUN: tide-opt %examples/exp_f32.mlir --tide-place-pipeline=target=theano-0.7 | FileCheck %s --check-prefix=EXP32
// RUN: tide-opt %examples/exp_f64.mlir --tide-place-pipeline=target=theano-0.7 2>&1 | FileCheck %s --check-prefix=EXP64
// demote-f64: the exp runs in f32 on the GPU between casts, with a warning.
// RUN: tide-opt %examples/exp_f64.mlir --tide-place-pipeline="target=theano-0.7 demote-f64=true remarks=false" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DEMOTE

// TensorFlow 0.7: the f32 MLP's mean is decomposed and stays on the GPU ...
// RUN: tide-opt %examples/mlp_f32.mlir --tide-place-pipeline="target=tensorflow-0.7 report=text" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MLP32
// ... without decomposition it runs on the CPU, fed by exactly one copy.
// RUN: tide-opt %examples/mlp_f32.mlir --tide-place-pipeline="target=tensorflow-0.7 decompose=never report=text" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NEVER
// RUN: tide-opt %examples/mlp_f32.mlir --tide-place-pipeline="target=tensorflow-0.7 decompose=never remarks=false" \
// RUN:   | FileCheck %s --check-prefix=TOHOST
// The f64 MLP: reductions and matmuls on the CPU (no f64 GPU kernels for them).
// RUN: tide-opt %examples/mlp_f64.mlir --tide-place-pipeline="target=tensorflow-0.7 remarks=false" \
// RUN:   | FileCheck %s --check-prefix=MLP64

// The identity over a dynamic batch needs no copy at all (also under cost, as JSON).
// RUN: tide-opt %examples/identity.mlir --tide-place-pipeline="report=text" | FileCheck %s --check-prefix=IDENTITY
// RUN: tide-opt %examples/identity.mlir --tide-place-pipeline="target=theano-0.7 policy=cost report=json" \
// RUN:   | FileCheck %s --check-prefix=IDENTITY-JSON

// Small functions: shared copies, strict pins, demote-f64 with pins and groups, cost on rtx3090 vs h200.
// RUN: tide-opt %t/shared.mlir --tide-place-pipeline="report=text" | FileCheck %t/shared.mlir
// RUN: tide-opt %t/strict.mlir -verify-diagnostics --tide-place-pipeline="target=tensorflow-0.7 policy=strict decompose=never"
// RUN: tide-opt %t/strict.mlir --tide-place-pipeline="target=tensorflow-0.7 policy=strict" \
// RUN:   | FileCheck %t/strict.mlir --check-prefix=STRICT-AUTO
// RUN: tide-opt %t/strict-demote.mlir -verify-diagnostics --tide-place-pipeline="target=theano-0.7 policy=strict demote-f64=true" \
// RUN:   | FileCheck %t/strict-demote.mlir
// RUN: tide-opt %t/demote-group.mlir --tide-place-pipeline="target=theano-0.7 demote-f64=true remarks=false" 2>&1 \
// RUN:   | FileCheck %t/demote-group.mlir
// RUN: tide-opt %t/cost.mlir --tide-place-pipeline="target=rtx3090 policy=cost report=text" \
// RUN:   | FileCheck %t/cost.mlir --check-prefix=RTX
// RUN: tide-opt %t/cost.mlir --tide-place-pipeline="target=h200 policy=cost report=text" \
// RUN:   | FileCheck %t/cost.mlir --check-prefix=H200
// Sizes computed at run time stay on the host under every policy: tide.dim
// reads a GPU tensor's shape without copying it, the shape vector is not
// copied to the GPU, and require-gpu accepts them on the CPU.
// RUN: tide-opt %t/shapes.mlir --tide-place-pipeline="target=h200 remarks=false" \
// RUN:   | FileCheck %t/shapes.mlir --check-prefixes=SHAPES,SHAPES-GPU
// RUN: tide-opt %t/shapes.mlir --tide-place-pipeline="target=h200 policy=require-gpu remarks=false" \
// RUN:   | FileCheck %t/shapes.mlir --check-prefixes=SHAPES,SHAPES-GPU
// RUN: tide-opt %t/shapes.mlir --tide-place-pipeline="target=h200 policy=cost" \
// RUN:   | FileCheck %t/shapes.mlir --check-prefix=SHAPES

// report-output writes the report to a file; the IR still goes to stdout.
// RUN: tide-opt %examples/exp_f32.mlir --tide-place-pipeline="target=theano-0.7 report=json report-output=%t/report.json" \
// RUN:   | FileCheck %s --check-prefix=EXP32
// RUN: FileCheck %s --check-prefix=REPORT-FILE < %t/report.json

// Bad option values name the pipeline's option and the value.
// RUN: not tide-opt %examples/exp_f32.mlir --tide-place-pipeline=policy=fast 2>&1 | FileCheck %s --check-prefix=BAD-POLICY
// RUN: not tide-opt %examples/exp_f32.mlir --tide-place-pipeline=target=a100 2>&1 | FileCheck %s --check-prefix=BAD-TARGET
// RUN: not tide-opt %examples/exp_f32.mlir --tide-place-pipeline=target=%t/no-such-target.json 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MISSING-TARGET
// RUN: not tide-opt %examples/exp_f32.mlir --tide-place-pipeline=decompose=sometimes 2>&1 | FileCheck %s --check-prefix=BAD-DECOMPOSE
// RUN: not tide-opt %examples/exp_f32.mlir --tide-place-pipeline=report=html 2>&1 | FileCheck %s --check-prefix=BAD-REPORT
// RUN: not tide-opt %examples/exp_f32.mlir --tide-place-pipeline=dynamic-dim-size=0 2>&1 | FileCheck %s --check-prefix=BAD-DYN

// EXP32-LABEL: func.func @exp(
// EXP32-SAME: %[[X:.*]]: tensor<230400xf32>)
// EXP32-NEXT: %[[T:.*]] = tide.transfer %[[X]] : tensor<230400xf32> to #tide.device<cuda:0>
// EXP32-NEXT: %[[E:.*]] = tide.exp %[[T]] {tide.device = #tide.device<cuda:0>, tide.reason = "preferred"} : tensor<230400xf32>
// EXP32-NEXT: %[[H:.*]] = tide.transfer %[[E]] : tensor<230400xf32> to #tide.device<cpu>
// EXP32-NEXT: return %[[H]]

// EXP64: exp_f64.mlir:5:8: remark: placed on cpu: target 'theano-0.7' has no cuda:0 kernel for exp on f64
// EXP64-LABEL: func.func @exp(
// EXP64-SAME: %[[X:.*]]: tensor<230400xf64>)
// EXP64-NEXT: %[[E:.*]] = tide.exp %[[X]] {tide.device = #tide.device<cpu>, tide.reason = "no-kernel(cuda:0, f64)"} : tensor<230400xf64>
// EXP64-NEXT: return %[[E]]

// DEMOTE: exp_f64.mlir:5:8: warning: computing 'tide.exp' in f32 instead of f64 (demote-f64): cuda:0 has no f64 kernel for exp; results lose precision
// DEMOTE-LABEL: func.func @exp(
// DEMOTE-SAME: %[[X:.*]]: tensor<230400xf64>) -> tensor<230400xf64>
// DEMOTE: %[[N:.*]] = tide.cast %[[X]] {{.*}}: tensor<230400xf64> to tensor<230400xf32>
// DEMOTE: %[[T:.*]] = tide.transfer %[[N]] : tensor<230400xf32> to #tide.device<cuda:0>
// DEMOTE: %[[E:.*]] = tide.exp %[[T]] {tide.decomposed = "demote-f64", tide.device = #tide.device<cuda:0>, tide.reason = "decomposed(demote-f64); preferred"} : tensor<230400xf32>
// DEMOTE: %[[H:.*]] = tide.transfer %[[E]] : tensor<230400xf32> to #tide.device<cpu>
// DEMOTE: %[[W:.*]] = tide.cast %[[H]] {{.*}}: tensor<230400xf32> to tensor<230400xf64>
// DEMOTE: return %[[W]] : tensor<230400xf64>

// The decomposed mean: sum, count and div, on the GPU, saying why they exist.
// No remark: nothing falls back.
// MLP32-NOT: remark
// MLP32: placement of @mlp on target tensorflow-0.7
// MLP32: tide.reduce_sum f32 cuda:0 {{.*}} decomposed(reduce_mean); preferred
// MLP32-NEXT: tide.constant f32 cuda:0 {{.*}} decomposed(reduce_mean); preferred
// MLP32-NEXT: tide.div f32 cuda:0 {{.*}} decomposed(reduce_mean); preferred
// MLP32-NEXT: transfers: 10 per call
// MLP32-LABEL: func.func @mlp(
// MLP32-NOT: tide.reduce_mean
// MLP32: %[[NEG:.*]] = tide.neg %{{.*}} {tide.device = #tide.device<cuda:0>, tide.reason = "preferred"} : tensor<256xf32>
// MLP32-NEXT: %[[SUM:.*]] = tide.reduce_sum %[[NEG]] axes = [0] {tide.decomposed = "reduce_mean", tide.device = #tide.device<cuda:0>, tide.reason = "decomposed(reduce_mean); preferred"} : tensor<256xf32>
// MLP32-NEXT: %[[N:.*]] = tide.constant {tide.decomposed = "reduce_mean", tide.device = #tide.device<cuda:0>, tide.reason = "decomposed(reduce_mean); preferred"} dense<2.560000e+02> : tensor<f32>
// MLP32-NEXT: %[[LOSS:.*]] = tide.div %[[SUM]], %[[N]] {tide.decomposed = "reduce_mean", tide.device = #tide.device<cuda:0>, tide.reason = "decomposed(reduce_mean); preferred"} : tensor<f32>
// MLP32-NEXT: %[[HLOSS:.*]] = tide.transfer %[[LOSS]] : tensor<f32> to #tide.device<cpu>
// MLP32-NEXT: return %{{.*}}, %[[HLOSS]]

// NEVER: mlp_f32.mlir:25:11: remark: placed on cpu: target 'tensorflow-0.7' has no cuda:0 kernel for reduce_mean on f32
// NEVER: placement of @mlp on target tensorflow-0.7
// NEVER: tide.reduce_mean f32 cpu {{.*}} no-kernel(cuda:0, f32)
// NEVER-NEXT: transfers: 10 per call
// NEVER-LABEL: func.func @mlp(
// NEVER: %[[NEG:.*]] = tide.neg %{{.*}} {tide.device = #tide.device<cuda:0>, tide.reason = "preferred"} : tensor<256xf32>
// NEVER-NEXT: %[[T:.*]] = tide.transfer %[[NEG]] : tensor<256xf32> to #tide.device<cpu>
// NEVER-NEXT: %[[LOSS:.*]] = tide.reduce_mean %[[T]] axes = [0] {tide.device = #tide.device<cpu>, tide.reason = "no-kernel(cuda:0, f32)"} : tensor<256xf32>
// NEVER-NEXT: return %{{.*}}, %[[LOSS]]

// Two copies to the host in all: the probabilities (a result) and the mean's input.
// TOHOST-LABEL: func.func @mlp(
// TOHOST-COUNT-2: to #tide.device<cpu>
// TOHOST-NOT: to #tide.device<cpu>
// TOHOST: return

// MLP64-LABEL: func.func @mlp(
// MLP64: tide.matmul {{.*}}{tide.device = #tide.device<cpu>, tide.reason = "no-kernel(cuda:0, f64)"} : tensor<256x784xf64>, tensor<784x256xf64>
// MLP64: tide.add {{.*}}{tide.device = #tide.device<cuda:0>, tide.reason = "preferred"}
// MLP64: tide.elu {{.*}}{tide.device = #tide.device<cuda:0>, tide.reason = "preferred"}
// MLP64: tide.matmul {{.*}}{tide.device = #tide.device<cpu>, tide.reason = "no-kernel(cuda:0, f64)"} : tensor<256x256xf64>
// MLP64: tide.matmul {{.*}}{tide.device = #tide.device<cpu>, tide.reason = "no-kernel(cuda:0, f64)"} : tensor<256x256xf64>, tensor<256x10xf64>
// MLP64: tide.reduce_sum {{.*}}{tide.device = #tide.device<cpu>, tide.reason = "no-kernel(cuda:0, f64)"}
// MLP64: tide.reduce_mean {{.*}}{tide.device = #tide.device<cpu>, tide.reason = "no-kernel(cuda:0, f64)"}
// MLP64-NEXT: return

// IDENTITY: placement of @identity on target h200
// IDENTITY-NEXT: # op dtype device cpu gpu if moved reason
// IDENTITY-NEXT: transfers: 0 per call, 0 B
// IDENTITY-LABEL: func.func @identity(
// IDENTITY-SAME: %[[X:.*]]: tensor<?x3x448x448xf32>)
// IDENTITY-NOT: tide.transfer
// IDENTITY-NEXT: return %[[X]] : tensor<?x3x448x448xf32>
// IDENTITY-JSON: "transfer_bytes": 0,
// IDENTITY-JSON-NEXT: "transfer_count": 0,
// IDENTITY-JSON-NOT: tide.transfer

// REPORT-FILE: "function": "exp",
// REPORT-FILE: "device": "cuda:0",
// REPORT-FILE: "transfer_count": 2,
// REPORT-FILE: "target": "theano-0.7"

// BAD-POLICY: error: invalid 'policy' option 'fast'; expected soft, strict, require-gpu or cost
// BAD-TARGET: error: invalid 'target' option: unknown target 'a100'; built-in targets are cpu, h100, h200, rtx3090, tensorflow-0.7, theano-0.7; 'native' is this machine as tide-calibrate measured it; or give the path of a .json target file
// MISSING-TARGET: error: invalid 'target' option: cannot read target file '{{.*}}no-such-target.json': No such file or directory
// The pipeline's options are 'decompose' and 'report' (the passes call them
// 'mode' and 'format'); the message must name the option the user wrote.
// BAD-DECOMPOSE: error: invalid 'decompose' option 'sometimes'; expected auto, always or never
// BAD-REPORT: error: invalid 'report' option 'html'; expected {{(none, )?}}text, json or dot
// BAD-DYN: error: invalid 'dynamic-dim-size' option 0; it must be positive

//--- shared.mlir

// A host value used by three GPU ops: exactly one copy, shared.
// CHECK: placement of @three_gpu_users on target h200
// CHECK: transfers: 2 per call
// CHECK-NEXT: %arg0: cpu -> cuda:0, 4.00 KiB
// CHECK-NEXT: {{%[0-9]+}}: cuda:0 -> cpu, 4.00 KiB
// CHECK: placement of @resident on target h200
// CHECK: transfers: 0 per call, 0 B
// CHECK-LABEL: func.func @three_gpu_users(
// CHECK-SAME: %[[X:.*]]: tensor<1024xf32>)
// CHECK-NEXT: %[[T:.*]] = tide.transfer %[[X]] : tensor<1024xf32> to #tide.device<cuda:0>
// CHECK-NOT: tide.transfer %[[X]]
// CHECK: tide.exp %[[T]]
// CHECK: tide.tanh %[[T]]
// CHECK: tide.neg %[[T]]
// CHECK: %[[H:.*]] = tide.transfer %{{.*}} : tensor<1024xf32> to #tide.device<cpu>
// CHECK-NEXT: return %[[H]]
func.func @three_gpu_users(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %a = tide.exp %x : tensor<1024xf32>
  %b = tide.tanh %x : tensor<1024xf32>
  %c = tide.neg %x : tensor<1024xf32>
  %s = tide.add %a, %b : tensor<1024xf32>
  %r = tide.add %s, %c : tensor<1024xf32>
  return %r : tensor<1024xf32>
}

// Resident on cuda:0 in and out: no copy (the report above says 0 per call).
// CHECK-LABEL: func.func @resident(
// CHECK-NOT: tide.transfer
// CHECK: return
func.func @resident(%x: tensor<1024xf32> {tide.resident = #tide.device<cuda:0>})
    -> (tensor<1024xf32> {tide.resident = #tide.device<cuda:0>}) {
  %a = tide.exp %x : tensor<1024xf32>
  return %a : tensor<1024xf32>
}

//--- strict.mlir

// strict: a reduce_mean pinned to cuda:0 (no GPU Mean in tensorflow-0.7) is
// an error when it is not decomposed ...
func.func @negative_pinned_mean(%x: tensor<256xf32>) -> tensor<f32> {
  // expected-error @+1 {{'tide.reduce_mean' (f32) is pinned to cuda:0, but target 'tensorflow-0.7' has no cuda:0 kernel for reduce_mean on f32}}
  %m = tide.reduce_mean %x axes = [0] {tide.device = #tide.device<cuda:0>} : tensor<256xf32>
  return %m : tensor<f32>
}

// ... and with decompose=auto the primitives keep the pin and run there.
// STRICT-AUTO-LABEL: func.func @negative_pinned_mean(
// STRICT-AUTO-NOT: tide.reduce_mean
// STRICT-AUTO-COUNT-3: tide.decomposed = "reduce_mean", tide.device = #tide.device<cuda:0>, tide.reason = "decomposed(reduce_mean); pinned"
// STRICT-AUTO: return

//--- strict-demote.mlir

// strict with demote-f64: an f64 exp pinned to Theano's f32-only GPU runs
// there in f32 (the fix the strict error suggests). The casts around it are
// not the user's pins; they must run where they have kernels (the CPU), and
// the usual fallback remarks say so.
// CHECK-LABEL: func.func @pinned_exp_f64(
// CHECK: tide.cast {{.*}}tide.device = #tide.device<cpu>{{.*}} : tensor<16xf64> to tensor<16xf32>
// CHECK: tide.exp {{.*}}tide.device = #tide.device<cuda:0>{{.*}} : tensor<16xf32>
// CHECK: tide.cast {{.*}}tide.device = #tide.device<cpu>{{.*}} : tensor<16xf32> to tensor<16xf64>
func.func @pinned_exp_f64(%x: tensor<16xf64>) -> tensor<16xf64> {
  // expected-warning @+3 {{computing 'tide.exp' in f32 instead of f64 (demote-f64)}}
  // expected-remark @+2 {{placed on cpu: target 'theano-0.7' has no cuda:0 kernel for cast on f64->f32}}
  // expected-remark @+1 {{placed on cpu: target 'theano-0.7' has no cuda:0 kernel for cast on f32->f64}}
  %0 = tide.exp %x {tide.device = #tide.device<cuda:0>} : tensor<16xf64>
  return %0 : tensor<16xf64>
}

//--- demote-group.mlir

// demote-f64 on a colocation group: the f32 exp and tanh must run on the GPU
// they were demoted for. The casts around them cannot (no f64 on Theano's
// GPU); if they joined the group, the whole group would fall back to the CPU
// and the precision would be lost for nothing.
// CHECK: warning: computing 'tide.exp' in f32 instead of f64 (demote-f64)
// CHECK: warning: computing 'tide.tanh' in f32 instead of f64 (demote-f64)
// CHECK-LABEL: func.func @grouped_exp_f64(
// CHECK: tide.exp {{.*}}tide.device = #tide.device<cuda:0>{{.*}} : tensor<1024xf32>
// CHECK: tide.tanh {{.*}}tide.device = #tide.device<cuda:0>{{.*}} : tensor<1024xf32>
func.func @grouped_exp_f64(%x: tensor<1024xf64>) -> tensor<1024xf64> {
  %0 = tide.exp %x {tide.colocate = "g"} : tensor<1024xf64>
  %1 = tide.tanh %0 {tide.colocate = "g"} : tensor<1024xf64>
  return %1 : tensor<1024xf64>
}

//--- cost.mlir

// Two 256x256 f64 matmuls and a tanh: rtx3090 (FP64 at 1/64 rate) keeps
// them on the CPU, h200 (full-rate FP64) moves them to the GPU. The report
// shows the figures behind each choice and the totals. The CPU figures are
// checked exactly: on rtx3090 2 * 256^3 flops at 400 GFLOP/s plus a 0.2 us
// launch; on h200 at 502 GFLOP/s, + 0.03 us, + 26.7 us for the threads and
// + 57.8 us of OpenBLAS's threaded-GEMM overhead (gemm_overhead_us); the
// others are checked by form.
// RTX: placement of @f64_heavy on target rtx3090
// RTX-NEXT: # op dtype device cpu gpu if moved reason
// RTX-NEXT: 0 tide.matmul f64 cpu [[CPUMM:[0-9]+\.[0-9]+]] us [[GPUMM:[0-9]+\.[0-9]+]] us +{{[0-9]+\.[0-9]+}} us cost(cpu=84.1us, gpu={{[0-9]+\.[0-9]}}us, copy={{[0-9]+\.[0-9]}}us)
// RTX-NEXT: 1 tide.matmul f64 cpu [[CPUMM]] us [[GPUMM]] us +{{[0-9]+\.[0-9]+}} us cost(
// RTX-NEXT: 2 tide.tanh f64 cpu {{[0-9]+\.[0-9]+}} us {{[0-9]+\.[0-9]+}} us +{{[0-9]+\.[0-9]+}} us cost(
// RTX-NEXT: transfers: 0 per call, 0 B
// RTX-NEXT: cost per call (model): chosen [[CHOSEN:[0-9]+\.[0-9]+ us]], all-cpu [[CHOSEN]], all-gpu {{[0-9]+\.[0-9]+}} us{{$}}
// RTX-LABEL: func.func @f64_heavy(
// RTX-NOT: tide.transfer
// RTX-NOT: cuda:0
// RTX: return
// H200: placement of @f64_heavy on target h200
// H200-NEXT: # op dtype device cpu gpu if moved reason
// H200-NEXT: 0 tide.matmul f64 cuda:0 [[CPUMM:[0-9]+\.[0-9]+]] us [[GPUMM:[0-9]+\.[0-9]+]] us +{{[0-9]+\.[0-9]+}} us cost(cpu=153.8us, gpu={{[0-9]+\.[0-9]}}us, copy={{[0-9]+\.[0-9]}}us)
// H200-NEXT: 1 tide.matmul f64 cuda:0 [[CPUMM]] us [[GPUMM]] us +{{[0-9]+\.[0-9]+}} us cost(
// H200-NEXT: 2 tide.tanh f64 cuda:0 {{[0-9]+\.[0-9]+}} us {{[0-9]+\.[0-9]+}} us +{{[0-9]+\.[0-9]+}} us cost(
// H200-NEXT: transfers: 3 per call, 1.50 MiB
// H200-NEXT: %arg0: cpu -> cuda:0, 512.00 KiB
// H200-NEXT: %arg1: cpu -> cuda:0, 512.00 KiB
// H200-NEXT: {{%[0-9]+}}: cuda:0 -> cpu, 512.00 KiB
// H200-NEXT: cost per call (model): chosen [[CHOSEN:[0-9]+\.[0-9]+ us]], all-cpu {{[0-9]+\.[0-9]+}} us, all-gpu [[CHOSEN]]{{$}}
// H200-LABEL: func.func @f64_heavy(
// H200: tide.transfer %{{.*}} to #tide.device<cuda:0>
// H200: tide.matmul {{.*}}tide.device = #tide.device<cuda:0>, tide.reason = "cost(cpu=153.8us, gpu=
func.func @f64_heavy(%a: tensor<256x256xf64>, %b: tensor<256x256xf64>) -> tensor<256x256xf64> {
  %0 = tide.matmul %a, %b : tensor<256x256xf64>
  %1 = tide.matmul %0, %b : tensor<256x256xf64>
  %2 = tide.tanh %1 : tensor<256x256xf64>
  return %2 : tensor<256x256xf64>
}

//--- shapes.mlir

// Heads split by a reshape whose sizes come from the matmul's dynamic
// dimensions (ONNX Reshape with Concat(Shape(y)[0], Shape(y)[1], 4, 16)).
// SHAPES-LABEL: func.func @heads(
// SHAPES-GPU: %[[Y:.*]] = tide.matmul {{.*}}tide.device = #tide.device<cuda:0>
// SHAPES: %[[B:.*]] = tide.dim %[[Y:.*]] axis = 0 {tide.device = #tide.device<cpu>, tide.reason = "shape(host)"}
// SHAPES: %[[S:.*]] = tide.dim %[[Y]] axis = 1 {tide.device = #tide.device<cpu>, tide.reason = "shape(host)"}
// SHAPES: %[[C:.*]] = tide.constant {tide.device = #tide.device<cpu>, tide.reason = "shape(host)"}
// SHAPES: %[[V:.*]] = tide.concat %[[B]], %[[S]], %[[C]] axis = 0 {tide.device = #tide.device<cpu>, tide.reason = "shape(host)"}
// SHAPES-GPU-NOT: tide.transfer
// SHAPES-GPU: tide.reshape %[[Y]], %[[V]] {tide.device = #tide.device<cuda:0>
func.func @heads(%x: tensor<?x?x64xf32>, %w: tensor<64x64xf32>) -> tensor<?x?x4x16xf32> {
  %y = tide.matmul %x, %w : tensor<?x?x64xf32>, tensor<64x64xf32>
  %b = tide.dim %y axis = 0 : tensor<?x?x64xf32>
  %s = tide.dim %y axis = 1 : tensor<?x?x64xf32>
  %c = tide.constant dense<[4, 16]> : tensor<2xi64>
  %shape = tide.concat %b, %s, %c axis = 0 : tensor<1xi64>, tensor<1xi64>, tensor<2xi64>
  %0 = tide.reshape %y, %shape : tensor<?x?x64xf32>, tensor<4xi64> to tensor<?x?x4x16xf32>
  %1 = tide.exp %0 : tensor<?x?x4x16xf32>
  return %1 : tensor<?x?x4x16xf32>
}
