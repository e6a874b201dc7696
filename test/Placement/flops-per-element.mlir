// A target's flops_per_element replaces an op's ODS FLOPs per element on
// that device (tide-calibrate measures them for the CPU's math ops against
// exp). On Inputs/cost-model-target.json (one thread: 25 GFLOP/s, 10 GB/s),
// 16384 tanh at its fact (15 FLOPs) are memory-bound: 1 us + 128 KiB at 10
// GB/s; at 30 FLOPs (Inputs/cost-model-math-target.json) arithmetic-bound:
// 1 us + 16384 x 30 / 25e9 s. The GPU's cost keeps the fact; exp, not
// listed, keeps its own.
// RUN: tide-opt %s -o /dev/null --tide-place-pipeline="target=%S/Inputs/cost-model-target.json policy=cost remarks=false report=text" \
// RUN:   | FileCheck %s --check-prefix=FACT
// RUN: tide-opt %s -o /dev/null --tide-place-pipeline="target=%S/Inputs/cost-model-math-target.json policy=cost remarks=false report=text" \
// RUN:   | FileCheck %s --check-prefix=MEASURED
// RUN: tide-opt %s --tide-list-kernels=target=%S/Inputs/cost-model-math-target.json | FileCheck %s --check-prefix=LIST

// FACT-LABEL: placement of @tanh
// FACT: 0 tide.tanh f32 cpu 14.11 us 5.25 us
// MEASURED-LABEL: placement of @tanh
// MEASURED: 0 tide.tanh f32 cpu 20.66 us 5.25 us
func.func @tanh(%x: tensor<16384xf32>) -> tensor<16384xf32> {
  %y = tide.tanh %x : tensor<16384xf32>
  return %y : tensor<16384xf32>
}

// FACT-LABEL: placement of @exp
// FACT: 0 tide.exp f32 cpu 14.11 us 5.16 us
// MEASURED-LABEL: placement of @exp
// MEASURED: 0 tide.exp f32 cpu 14.11 us 5.16 us
func.func @exp(%x: tensor<16384xf32>) -> tensor<16384xf32> {
  %y = tide.exp %x : tensor<16384xf32>
  return %y : tensor<16384xf32>
}

// LIST: FLOPs per element: tanh=30.0
