// Tests of tide-placement-report: every placed op with its dtype, device and
// reason, the transfers per call, and the modelled cost of the placement
// against all-CPU and all-GPU, as text, JSON or DOT. The IR is unchanged.
// The input is already placed by hand.

// RUN: tide-opt %s -o /dev/null --tide-placement-report=target=h200 \
// RUN:   | FileCheck %s --check-prefix=TEXT
// RUN: tide-opt %s -o /dev/null --tide-placement-report="target=h200 format=json" \
// RUN:   | FileCheck %s --check-prefix=JSON
// RUN: tide-opt %s -o /dev/null --tide-placement-report="target=h200 format=dot" \
// RUN:   | FileCheck %s --check-prefix=DOT

// The IR is unchanged, and output= writes the report to a file.
// RUN: tide-opt %s --tide-placement-report="target=h200 output=%t.txt" | FileCheck %s --check-prefix=IR
// RUN: FileCheck %s --check-prefix=TEXT < %t.txt

// dynamic-dim-size is the size assumed for `?` in bytes and costs.
// RUN: tide-opt %s -o /dev/null --tide-placement-report="target=h200 dynamic-dim-size=64" \
// RUN:   | FileCheck %s --check-prefix=DYN64

// The location in the JSON report names the file also when it is given
// without a directory.
// RUN: cd %S && tide-opt tide-placement-report.mlir -o /dev/null --tide-placement-report="target=h200 format=json" \
// RUN:   | FileCheck %s --check-prefix=JSON-LOC

// The DOT graph is the same from run to run (the MLP has many edges).
// RUN: tide-opt %examples/mlp_f32.mlir -o /dev/null --tide-place-pipeline="target=tensorflow-0.7 report=dot" > %t.1.dot
// RUN: tide-opt %examples/mlp_f32.mlir -o /dev/null --tide-place-pipeline="target=tensorflow-0.7 report=dot" > %t.2.dot
// RUN: tide-opt %examples/mlp_f32.mlir -o /dev/null --tide-place-pipeline="target=tensorflow-0.7 report=dot" > %t.3.dot
// RUN: diff %t.1.dot %t.2.dot
// RUN: diff %t.1.dot %t.3.dot

// What-if: the cost of moving each op to the other side. Under the cost
// policy the placement is optimal, so no single move helps (every entry is
// positive); the soft default puts a big f64 exp on the H200 although the
// copies cost more than the CPU would, and the report says by how much.
// RUN: tide-opt %examples/mlp_f64.mlir -o /dev/null --tide-place-pipeline="target=h200 policy=cost remarks=false report=text" \
// RUN:   | FileCheck %s --check-prefix=WHATIF-COST
// RUN: tide-opt %S/Inputs/exp-f64-16m.mlir -o /dev/null --tide-place-pipeline="target=h200 remarks=false report=text" \
// RUN:   | FileCheck %s --check-prefix=WHATIF-SOFT
// WHATIF-COST-LABEL: placement of @mlp on target h200
// WHATIF-COST-NOT: {{ -[0-9]+\.[0-9]+ us }}
// WHATIF-COST: cost per call (model)
// WHATIF-SOFT: 0 tide.exp f64 cuda:0 {{[0-9]+\.[0-9]+}} ms {{[0-9]+\.[0-9]+}} us -{{[0-9]+\.[0-9]+}} ms preferred

// Bad option values.
// RUN: not tide-opt %s -o /dev/null --tide-placement-report=format=xml 2>&1 | FileCheck %s --check-prefix=BAD-FORMAT
// RUN: not tide-opt %s -o /dev/null --tide-placement-report=target=k80 2>&1 | FileCheck %s --check-prefix=BAD-TARGET
// RUN: not tide-opt %s -o /dev/null --tide-placement-report=output=%t.missing-dir/report.txt 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD-OUTPUT
// RUN: not tide-opt %s -o /dev/null --tide-placement-report=dynamic-dim-size=-2 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD-DYN

// BAD-FORMAT: error: invalid 'format' option 'xml'; expected text, json or dot
// BAD-TARGET: error: invalid 'target' option: unknown target 'k80'; built-in targets are
// BAD-OUTPUT: error: cannot write the placement report to '{{.*}}report.txt': {{.*}}No such file or directory
// A negative size would give negative byte counts: it is rejected like in tide-place-devices.
// BAD-DYN: error: invalid 'dynamic-dim-size' option -2; it must be positive

// A host argument copied to the GPU, computed there, copied back and used on the host.
// TEXT-LABEL: placement of @placed on target h200
// TEXT-NEXT: # op dtype device cpu gpu if moved reason
// TEXT-NEXT: 0 tide.exp f32 cuda:0 {{[0-9]+\.[0-9]+}} us {{[0-9]+\.[0-9]+}} us {{[-+][0-9]+\.[0-9]+}} us preferred
// TEXT-NEXT: 1 tide.neg f32 cpu {{[0-9]+\.[0-9]+}} us {{[0-9]+\.[0-9]+}} us {{[-+][0-9]+\.[0-9]+}} us pinned
// TEXT-NEXT: transfers: 2 per call, 128 B
// TEXT-NEXT: %arg0: cpu -> cuda:0, 64 B
// TEXT-NEXT: {{%[0-9]+}}: cuda:0 -> cpu, 64 B
// TEXT-NEXT: cost per call (model): chosen {{[0-9]+\.[0-9]+}} us, all-cpu {{[0-9]+\.[0-9]+}} us, all-gpu {{[0-9]+\.[0-9]+}} us{{$}}
// JSON: "functions": [
// JSON: "cost_us": {
// JSON-NEXT: "all_cpu": {{[0-9.e+-]+}},
// JSON-NEXT: "all_gpu": {{[0-9.e+-]+}},
// JSON-NEXT: "chosen": {{[0-9.e+-]+}},
// JSON-NEXT: "ops_without_gpu_kernel": 0
// JSON: "function": "placed",
// JSON: "ops": [
// JSON: "cpu_us": {{[0-9.e+-]+}},
// JSON-NEXT: "device": "cuda:0",
// JSON-NEXT: "dtype": "f32",
// JSON-NEXT: "gpu_us": {{[0-9.e+-]+}},
// JSON-NEXT: "if_moved_us": {{[0-9.e+-]+}},
// JSON-NEXT: "loc": "tide-placement-report.mlir:{{[0-9]+}}",
// JSON-NEXT: "op": "tide.exp",
// JSON-NEXT: "reason": "preferred"
// JSON: "device": "cpu",
// JSON: "op": "tide.neg",
// JSON-NEXT: "reason": "pinned"
// JSON: "transfer_bytes": 128,
// JSON-NEXT: "transfer_count": 2,
// JSON-NEXT: "transfers": [
// JSON-NEXT: {
// JSON-NEXT: "bytes": 64,
// JSON-NEXT: "dynamic": false,
// JSON-NEXT: "from": "cpu",
// JSON-NEXT: "to": "cuda:0",
// JSON-NEXT: "value": "%arg0"
// JSON: "from": "cuda:0",
// JSON-NEXT: "to": "cpu",
// JSON-NEXT: "value": "{{%[0-9]+}}"
// JSON-LOC: "loc": "tide-placement-report.mlir:{{[0-9]+}}",
// DOT: digraph placement {
// DOT: subgraph cluster_0 {
// DOT-NEXT: label="@placed: 2 transfers, 128 B per call";
// DOT-NEXT: [[EXP:f0_[0-9]+]] [label="tide.exp f32\ncuda:0\npreferred", fillcolor=palegreen];
// DOT-NEXT: [[NEG:f0_[0-9]+]] [label="tide.neg f32\ncpu\npinned", fillcolor=lightskyblue];
// DOT-NEXT: [[IN:f0_[0-9]+]] [label="transfer %arg0\ncpu -> cuda:0\n64 B", shape=ellipse, fillcolor=salmon];
// DOT-NEXT: [[OUT:f0_[0-9]+]] [label="transfer {{%[0-9]+}}\ncuda:0 -> cpu\n64 B", shape=ellipse, fillcolor=salmon];
// DOT-DAG: [[IN]] -> [[EXP]] [color=red, penwidth=2];
// DOT-DAG: [[EXP]] -> [[OUT]] [color=red, penwidth=2];
// DOT-DAG: [[OUT]] -> [[NEG]] [color=red, penwidth=2];
// DOT: }
// IR-LABEL: func.func @placed(
// IR: tide.exp %{{.*}} {tide.device = #tide.device<cuda:0>, tide.reason = "preferred"}
func.func @placed(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = tide.transfer %x : tensor<16xf32> to #tide.device<cuda:0>
  %1 = tide.exp %0 {tide.device = #tide.device<cuda:0>, tide.reason = "preferred"} : tensor<16xf32>
  %2 = tide.transfer %1 : tensor<16xf32> to #tide.device<cpu>
  %3 = tide.neg %2 {tide.device = #tide.device<cpu>, tide.reason = "pinned"} : tensor<16xf32>
  return %3 : tensor<16xf32>
}

// An op without a GPU kernel: all-GPU is impossible (n/a, null in JSON) and the count says why.
// TEXT-LABEL: placement of @no_gpu_kernel on target h200
// TEXT: 0 tide.matmul i32 cpu {{[0-9]+\.[0-9]+}} us n/a n/a no-kernel(cuda:0, i32)
// TEXT-NEXT: 1 tide.neg i32 cpu
// TEXT-NEXT: transfers: 0 per call, 0 B
// TEXT-NEXT: cost per call (model): chosen {{[0-9]+\.[0-9]+}} us, all-cpu {{[0-9]+\.[0-9]+}} us, all-gpu n/a (1 op{{s?}} {{has|have}} no GPU kernel)
// JSON: "all_gpu": null,
// JSON: "ops_without_gpu_kernel": 1
// JSON: "function": "no_gpu_kernel",
// JSON: "gpu_us": null,
// JSON: "transfer_count": 0,
// DOT: label="@no_gpu_kernel: 0 transfers, 0 B per call";
// DOT-NEXT: [[MM:f1_[0-9]+]] [label="tide.matmul i32\ncpu\nno-kernel(cuda:0, i32)", fillcolor=lightskyblue];
// DOT-NEXT: [[NEG:f1_[0-9]+]] [label="tide.neg i32\ncpu\n{{.*}}", fillcolor=lightskyblue];
// DOT-NEXT: [[MM]] -> [[NEG]];
func.func @no_gpu_kernel(%a: tensor<8x8xi32>) -> tensor<8x8xi32> {
  %0 = tide.matmul %a, %a {tide.device = #tide.device<cpu>, tide.reason = "no-kernel(cuda:0, i32)"} : tensor<8x8xi32>
  %1 = tide.neg %0 {tide.device = #tide.device<cpu>, tide.reason = "preferred"} : tensor<8x8xi32>
  return %1 : tensor<8x8xi32>
}

// Dynamic dimensions: bytes assume ? = dynamic-dim-size (32 by default) and say so.
// TEXT-LABEL: placement of @dynamic on target h200
// TEXT: transfers: 2 per call, 256.00 KiB (with ? = dynamic-dim-size)
// TEXT-NEXT: %arg0: cpu -> cuda:0, 128.00 KiB (with ? = dynamic-dim-size)
// TEXT-NEXT: {{%[0-9]+}}: cuda:0 -> cpu, 128.00 KiB (with ? = dynamic-dim-size)
// JSON: "function": "dynamic",
// JSON: "transfer_bytes": 262144,
// JSON: "dynamic": true,
// DYN64-LABEL: placement of @dynamic on target h200
// DYN64: transfers: 2 per call, 512.00 KiB (with ? = dynamic-dim-size)
func.func @dynamic(%x: tensor<?x1024xf32>) -> tensor<?x1024xf32> {
  %0 = tide.transfer %x : tensor<?x1024xf32> to #tide.device<cuda:0>
  %1 = tide.exp %0 {tide.device = #tide.device<cuda:0>, tide.reason = "pinned"} : tensor<?x1024xf32>
  %2 = tide.transfer %1 : tensor<?x1024xf32> to #tide.device<cpu>
  return %2 : tensor<?x1024xf32>
}

// An op not placed yet shows as unplaced, with no reason (white in the graph).
// TEXT-LABEL: placement of @unplaced on target h200
// TEXT-NEXT: # op dtype device cpu gpu if moved reason
// TEXT-NEXT: 0 tide.exp f64 (unplaced)
// JSON: "device": "(unplaced)",
// JSON: "reason": ""
// DOT: [label="tide.exp f64\n(unplaced)\n", fillcolor=white];
// DOT: legend [shape=plaintext, style="", label="blue: cpu   green: gpu   red: transfer"];
// DOT-NEXT: }
func.func @unplaced(%x: tensor<16xf64>) -> tensor<16xf64> {
  %0 = tide.exp %x : tensor<16xf64>
  return %0 : tensor<16xf64>
}

// Declarations have no body and no entry.
// TEXT-NOT: @declaration
// JSON-NOT: "declaration"
func.func private @declaration(tensor<16xf32>) -> tensor<16xf32>

// JSON: "target": "h200"
