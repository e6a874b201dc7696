// A GPU module whose host side has large loops: the exp and tanh pinned to
// the CPU run across the host's threads (see tide-gpu-pipeline.mlir).
func.func @host_loops(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %0 = tide.exp %a {tide.device = #tide.device<cpu>} : tensor<1024x1024xf32>
  %1 = tide.add %0, %b {tide.device = #tide.device<cuda:0>} : tensor<1024x1024xf32>
  %2 = tide.tanh %1 {tide.device = #tide.device<cpu>} : tensor<1024x1024xf32>
  return %2 : tensor<1024x1024xf32>
}
