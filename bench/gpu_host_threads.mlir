// The CPU side of a mixed CPU/GPU function: exp and tanh pinned to the host,
// the add on the GPU between them (16M f32 each). Compiled for the h200
// target, the host loops run across threads (TIDE_NUM_THREADS, else the
// process's CPUs). Timed in docs/benchmarks.md with
//   TIDE_NUM_THREADS=N tide-run m.so --random --repeat=20
func.func @host_side(%a: tensor<4096x4096xf32>, %b: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> {
  %0 = tide.exp %a {tide.device = #tide.device<cpu>} : tensor<4096x4096xf32>
  %1 = tide.add %0, %b {tide.device = #tide.device<cuda:0>} : tensor<4096x4096xf32>
  %2 = tide.tanh %1 {tide.device = #tide.device<cpu>} : tensor<4096x4096xf32>
  return %2 : tensor<4096x4096xf32>
}
