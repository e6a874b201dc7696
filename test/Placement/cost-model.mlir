// The cost model's rules, on a target with round figures
// (Inputs/cost-model-target.json: CPU 100 GFLOP/s, 100 GB/s, 10 GB/s for
// one core, 4 cores, launch 1 us, parallel loops 50 us; GPU launch 5 us; a
// link of 10 GB/s, 10 us per copy, 20 us more from 64 KiB; CPU f32
// convolutions at 20 GFLOP/s).
// RUN: tide-opt %s -o /dev/null --tide-place-pipeline="target=%S/Inputs/cost-model-target.json policy=cost remarks=false report=text" \
// RUN:   | FileCheck %s

// Below the parallel grain (32768 elements) the op stays on one thread:
// launch + the larger of arithmetic (10 FLOP per exp) at one core's share of
// the rate (25 GFLOP/s) and memory at one core's bandwidth (8 KiB at 10
// GB/s); a 4 KiB copy pays the link's latency only.
// CHECK-LABEL: placement of @small
// CHECK: 0 tide.exp f32 cpu 1.82 us 5.01 us +24.01 us cost(cpu=1.8us, gpu=5.0us, copy=10.4us)
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

// A full reduction of 1M elements (an even count) is split into slices the
// threads share (tide-split-column-reductions): every core's bandwidth, +
// 50 us to start and join them.
// CHECK-LABEL: placement of @sum
// CHECK: 0 tide.reduce_sum f32 cpu 92.94 us
func.func @sum(%x: tensor<1048576xf32>) -> tensor<f32> {
  %y = tide.reduce_sum %x axes = [0] : tensor<1048576xf32>
  return %y : tensor<f32>
}

// One of an odd count is one sequential loop on the CPU: one core's
// bandwidth (4 MiB at 10 GB/s), no parallel loops.
// CHECK-LABEL: placement of @sum_odd
// CHECK: 0 tide.reduce_sum f32 cpu 420.43 us
func.func @sum_odd(%x: tensor<1048575xf32>) -> tensor<f32> {
  %y = tide.reduce_sum %x axes = [0] : tensor<1048575xf32>
  return %y : tensor<f32>
}

// keepdims (a 1-element result that keeps the rank) is split too.
// CHECK-LABEL: placement of @sum_keepdims
// CHECK: 0 tide.reduce_sum f32 cpu 92.94 us
func.func @sum_keepdims(%x: tensor<1048576xf32>) -> tensor<1xf32> {
  %y = tide.reduce_sum %x axes = [0] keepdims : tensor<1048576xf32>
  return %y : tensor<1xf32>
}

// Row sums split across threads: every core's bandwidth, + 50 us, + 25 ns
// a row (kCpuRowSeconds) over the 4 threads.
// CHECK-LABEL: placement of @rows
// CHECK: 0 tide.reduce_sum f32 cpu 99.38 us
func.func @rows(%x: tensor<1024x1024xf32>) -> tensor<1024xf32> {
  %y = tide.reduce_sum %x axes = [1] : tensor<1024x1024xf32>
  return %y : tensor<1024xf32>
}

// An elementwise op read only by elementwise ops is fused into them: only
// its arithmetic counts (no launch, no memory traffic of its own), and the
// loop overlaps it with the memory traffic: the add adds what its memory
// time (12 MiB at 100 GB/s, 125.8 us) exceeds the arithmetic of both by,
// with the launch and the threads.
// CHECK-LABEL: placement of @chain
// CHECK: 0 tide.exp f32 cpu 104.86 us 10.49 us
// CHECK: 1 tide.add f32 cpu 71.97 us 7.10 us
// CHECK: cost per call (model): chosen 176.83 us, all-cpu 176.83 us
func.func @chain(%x: tensor<1048576xf32>) -> tensor<1048576xf32> {
  %a = tide.exp %x : tensor<1048576xf32>
  %b = tide.add %a, %x : tensor<1048576xf32>
  return %b : tensor<1048576xf32>
}

// A layer normalization written out is one row group (the CPU's
// tide-tile-and-fuse-rows, the GPU's row kernels): the reductions and the
// elementwise ops they feed, or that read their per-row results, cost only
// their arithmetic; the last op pays the pass over memory (reading the rows,
// writing the result: 8 MiB at 100 GB/s), the launch and the threads. A
// reduction still pays its 25 ns a row on the CPU (6.4 us over 4 threads).
// CHECK-LABEL: placement of @norm
// CHECK: 0 tide.reduce_mean f32 cpu 16.89 us 1.05 us
// CHECK: 1 tide.sub f32 cpu 10.49 us 1.05 us
// CHECK: 2 tide.mul f32 cpu 10.49 us 1.05 us
// CHECK: 3 tide.reduce_mean f32 cpu 16.89 us 1.05 us
// CHECK: 4 tide.sqrt f32 cpu 0.04 us 0.00 us
// CHECK: 5 tide.div f32 cpu 107.51 us 11.29 us
// CHECK: cost per call (model): chosen 162.30 us, all-cpu 162.30 us, all-gpu 914.35 us
func.func @norm(%x: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %m = tide.reduce_mean %x axes = [1] keepdims : tensor<1024x1024xf32>
  %d = tide.sub %x, %m : tensor<1024x1024xf32>, tensor<1024x1xf32>
  %s = tide.mul %d, %d : tensor<1024x1024xf32>
  %v = tide.reduce_mean %s axes = [1] keepdims : tensor<1024x1024xf32>
  %q = tide.sqrt %v : tensor<1024x1xf32>
  %y = tide.div %d, %q : tensor<1024x1024xf32>, tensor<1024x1xf32>
  return %y : tensor<1024x1024xf32>
}

// An elementwise op read by a softmax over the last axis joins its row group.
// CHECK-LABEL: placement of @bias_softmax
// CHECK: 0 tide.add f32 cpu 10.49 us 1.05 us
// CHECK: 1 tide.softmax f32 cpu 225.17 us 21.78 us
func.func @bias_softmax(%x: tensor<1024x1024xf32>, %b: tensor<1024xf32>) -> tensor<1024x1024xf32> {
  %a = tide.add %x, %b : tensor<1024x1024xf32>, tensor<1024xf32>
  %p = tide.softmax %a axis = 1 : tensor<1024x1024xf32>
  return %p : tensor<1024x1024xf32>
}

// Not fused: a softmax over another axis reads its input from memory. A
// full reduction of a static input computes its elementwise producer in its
// loop (elementwise fusion): the exp costs its arithmetic only.
// CHECK-LABEL: placement of @not_rows
// CHECK: 0 tide.add f32 cpu 134.93 us 13.39 us
// CHECK: 2 tide.exp f32 cpu 0.41 us 0.04 us
// CHECK: 3 tide.reduce_sum f32 cpu 2.23 us 5.00 us
func.func @not_rows(%x: tensor<1024x1024xf32>, %b: tensor<1024xf32>, %v: tensor<4096xf32>) -> (tensor<1024x1024xf32>, tensor<f32>) {
  %a = tide.add %x, %b : tensor<1024x1024xf32>, tensor<1024xf32>
  %p = tide.softmax %a axis = 0 : tensor<1024x1024xf32>
  %e = tide.exp %v : tensor<4096xf32>
  %s = tide.reduce_sum %e axes = [0] : tensor<4096xf32>
  return %p, %s : tensor<1024x1024xf32>, tensor<f32>
}

// A GPU's per-call cost (call_us: 300 us here) is paid once by a call that
// runs anything on it, which no cut expresses: the cut's placement plus it
// is compared with all-CPU. The GEMM saves 235.6 us on the GPU, less than
// 300: the function stays on the CPU and the reason says why.
// RUN: tide-opt %s -o /dev/null --tide-place-pipeline="target=%S/Inputs/cost-model-call-target.json policy=cost remarks=false report=text" \
// RUN:   | FileCheck %s --check-prefix=CALL
// CHECK-LABEL: placement of @gemm
// CHECK: 0 tide.matmul f32 cuda:0 386.54 us 38.55 us +235.56 us cost(cpu=386.5us, gpu=38.6us, copy=112.4us)
// CHECK: cost per call (model): chosen 150.98 us, all-cpu 386.54 us, all-gpu 150.98 us
// CALL-LABEL: placement of @gemm
// CALL: 0 tide.matmul f32 cpu 386.54 us 38.55 us +64.44 us cost(cpu=386.5us, gpu=38.6us, copy=112.4us); gpu-call(cuda:0=300.0us > saving 235.6us)
// CALL: cost per call (model): chosen 386.54 us, all-cpu 386.54 us, all-gpu 450.98 us
// CALL-LABEL: placement of @big_gemm
// CALL: 0 tide.matmul f32 cuda:0
// CALL: cost per call (model): chosen {{.*}}, all-cpu {{.*}}, all-gpu
func.func @gemm(%x: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %y = tide.matmul %x, %x : tensor<256x256xf32>, tensor<256x256xf32>
  return %y : tensor<256x256xf32>
}

func.func @big_gemm(%x: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %y = tide.matmul %x, %x : tensor<1024x1024xf32>, tensor<1024x1024xf32>
  return %y : tensor<1024x1024xf32>
}

// A loop nest takes a thread per 32768 elements (tide_rt_cpu_team_size):
// 65536 exps run on 2 of the 4 threads, at half the rate and two cores'
// bandwidth (512 KiB at 20 GB/s), + 50 us.
// CHECK-LABEL: placement of @two_threads
// CHECK: 0 tide.exp f32 cpu 77.21 us
func.func @two_threads(%x: tensor<65536xf32>) -> tensor<65536xf32> {
  %y = tide.exp %x : tensor<65536xf32>
  return %y : tensor<65536xf32>
}

// Products: up to 2 MFLOP one thread (a quarter of the rate: 64^3 in 21 us
// + 1); above, the BLAS's threads (+ 50 us) and gemm_overhead_us (100 us for
// f64) scaled by the part of the team the product wakes (a thread per 2^18
// multiply-adds: 128^3 wakes all four; 42 us at the full rate).
// CHECK-LABEL: placement of @f64_products
// CHECK: 0 tide.matmul f64 cpu 21.97 us
// CHECK: 1 tide.matmul f64 cpu 192.94 us
func.func @f64_products(%a: tensor<64x64xf64>, %d: tensor<128x128xf64>) -> (tensor<64x64xf64>, tensor<128x128xf64>) {
  %0 = tide.matmul %a, %a {tide.device = #tide.device<cpu>} : tensor<64x64xf64>, tensor<64x64xf64>
  %1 = tide.matmul %d, %d {tide.device = #tide.device<cpu>} : tensor<128x128xf64>, tensor<128x128xf64>
  return %0, %1 : tensor<64x64xf64>, tensor<128x128xf64>
}

// On 16 cores a product wakes a thread per 2^18 multiply-adds: 12x256x512
// (1.57M) wakes 6 of the 16 and pays 1.57M / (16 * 2^18) of
// gemm_overhead_us (37.5 us), + 50 + 1 + its 1.1 MB at 100 GB/s (11.2 us);
// 128x256x128 (4.2M) wakes all 16: 100 + 50 + 1 + 6.6 us.
// RUN: tide-opt %s -o /dev/null --tide-place-pipeline="target=%S/Inputs/cost-model-16-cores.json policy=cost remarks=false report=text" \
// RUN:   | FileCheck %s --check-prefix=TEAM
// TEAM-LABEL: placement of @team_share
// TEAM: 0 tide.matmul f64 cpu 99.72 us
// TEAM: 1 tide.matmul f64 cpu 157.55 us
func.func @team_share(%b: tensor<12x256xf64>, %c: tensor<256x512xf64>, %d: tensor<128x256xf64>, %e: tensor<256x128xf64>) -> (tensor<12x512xf64>, tensor<128x128xf64>) {
  %0 = tide.matmul %b, %c : tensor<12x256xf64>, tensor<256x512xf64>
  %1 = tide.matmul %d, %e : tensor<128x256xf64>, tensor<256x128xf64>
  return %0, %1 : tensor<12x512xf64>, tensor<128x128xf64>
}

// A convolution runs at the target's conv_gflops where it has the dtype (20
// here, against a GEMM peak of 100): 2 x 8 x 9 x 8 x 32 x 32 = 1.18 MFLOP,
// under the library's threading size, on one thread's share (5 GFLOP/s):
// 1 us + 235.9 us (so it moves to the GPU). f64 has no convolution rate: the
// GEMM peak's share (25).
// CHECK-LABEL: placement of @conv
// CHECK: 0 tide.conv f32 cuda:0 236.93 us
// CHECK: 1 tide.conv f64 cpu 48.19 us
func.func @conv(%x: tensor<1x8x32x32xf32>, %w: tensor<8x8x3x3xf32>, %x64: tensor<1x8x32x32xf64>, %w64: tensor<8x8x3x3xf64>) -> (tensor<1x8x32x32xf32>, tensor<1x8x32x32xf64>) {
  %y = tide.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] : tensor<1x8x32x32xf32>, tensor<8x8x3x3xf32>
  %y64 = tide.conv %x64, %w64 strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] : tensor<1x8x32x32xf64>, tensor<8x8x3x3xf64>
  return %y, %y64 : tensor<1x8x32x32xf32>, tensor<1x8x32x32xf64>
}
