// The cost model's rules, on a target with round figures
// (Inputs/cost-model-target.json: CPU 100 GFLOP/s, 100 GB/s, 10 GB/s for
// one core, 4 cores, launch 1 us, parallel loops 50 us; GPU launch 5 us; a
// link of 10 GB/s, 10 us per copy, 20 us more from 64 KiB).
// RUN: tide-opt %s -o /dev/null --tide-place-pipeline="target=%S/Inputs/cost-model-target.json policy=cost remarks=false report=text" \
// RUN:   | FileCheck %s

// Below the parallel threshold: launch + the larger of arithmetic (10 FLOP
// per exp) and memory; a 4 KiB copy pays the link's latency only.
// CHECK-LABEL: placement of @small
// CHECK: 0 tide.exp f32 cpu 1.10 us 5.01 us +24.73 us cost(cpu=1.1us, gpu=5.0us, copy=10.4us)
func.func @small(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %y = tide.exp %x : tensor<1024xf32>
  return %y : tensor<1024xf32>
}

// 1M elements run across threads: + 50 us to start and join them; a 4 MiB
// copy goes through the staging threads: 10 + 20 + 419.4 us.
// CHECK-LABEL: placement of @big
// CHECK: 0 tide.exp f32 cpu 155.86 us 15.49 us +758.49 us cost(cpu=155.9us, gpu=15.5us, copy=449.4us)
func.func @big(%x: tensor<1048576xf32>) -> tensor<1048576xf32> {
  %y = tide.exp %x : tensor<1048576xf32>
  return %y : tensor<1048576xf32>
}

// A full reduction is one sequential loop on the CPU: one core's bandwidth
// (4 MiB at 10 GB/s), no parallel loops.
// CHECK-LABEL: placement of @sum
// CHECK: 0 tide.reduce_sum f32 cpu 420.43 us
func.func @sum(%x: tensor<1048576xf32>) -> tensor<f32> {
  %y = tide.reduce_sum %x axes = [0] : tensor<1048576xf32>
  return %y : tensor<f32>
}

// Row sums split across threads: every core's bandwidth, + 50 us.
// CHECK-LABEL: placement of @rows
// CHECK: 0 tide.reduce_sum f32 cpu 92.98 us
func.func @rows(%x: tensor<1024x1024xf32>) -> tensor<1024xf32> {
  %y = tide.reduce_sum %x axes = [1] : tensor<1024x1024xf32>
  return %y : tensor<1024xf32>
}

// An elementwise op read only by elementwise ops is fused into them: only
// its arithmetic counts (no launch, no memory traffic of its own).
// CHECK-LABEL: placement of @chain
// CHECK: 0 tide.exp f32 cpu 104.86 us 10.49 us
// CHECK: 1 tide.add f32 cpu 176.83 us 17.58 us
func.func @chain(%x: tensor<1048576xf32>) -> tensor<1048576xf32> {
  %a = tide.exp %x : tensor<1048576xf32>
  %b = tide.add %a, %x : tensor<1048576xf32>
  return %b : tensor<1048576xf32>
}
