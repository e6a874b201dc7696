// The cost model divides the work of ops outside the @matmul group by a
// target's elementwise rate ("elementwise_gflops", which tide-calibrate
// measures on Tide's generated loops) and that of contractions by the peak
// (GEMM) rate; both scale with the CPU threads.
// Inputs/elementwise-rates.json: 1 GFLOP/s for loops, 1000 for GEMM, 4 cores.

// RUN: tide-opt %s -o /dev/null --tide-place-pipeline="target=%S/Inputs/elementwise-rates.json report=text" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ALL
// RUN: tide-opt %s -o /dev/null --tide-place-pipeline="target=%S/Inputs/elementwise-rates.json report=text cpu-threads=1" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ONE
// RUN: tide-opt %s -o /dev/null --tide-place-pipeline="target=%S/Inputs/no-elementwise-rates.json report=text" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PEAK

// exp: 230400 x 10 FLOP at 1 GFLOP/s; add: 230400 FLOP; the matmul: 2 x 64^3
// FLOP, below the BLAS's threading size, at one thread's 250 GFLOP/s.
// ALL:  0 tide.exp f32 cpu 2.304 ms
// ALL:  1 tide.add f32 cpu 230.40 us
// ALL:  2 tide.matmul f32 cpu 2.10 us
// One of four threads: a quarter of each rate.
// ONE:  0 tide.exp f32 cpu 9.216 ms
// ONE:  1 tide.add f32 cpu 921.60 us
// ONE:  2 tide.matmul f32 cpu 2.10 us
// Without elementwise_gflops every op runs at the peak rate.
// PEAK: 0 tide.exp f32 cpu 2.30 us
func.func @f(%x: tensor<230400xf32>, %a: tensor<64x64xf32>) -> (tensor<230400xf32>, tensor<64x64xf32>) {
  %y = tide.exp %x : tensor<230400xf32>
  %z = tide.add %y, %x : tensor<230400xf32>
  %m = tide.matmul %a, %a : tensor<64x64xf32>
  return %z, %m : tensor<230400xf32>, tensor<64x64xf32>
}
