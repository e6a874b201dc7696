// A shift of ui64 by itself on the GPU (see tide-gpu-pipeline.mlir).
func.func @s(%a: tensor<1024xui64>) -> tensor<1024xui64> {
  %v = tide.shl %a, %a {tide.device = #tide.device<cuda:0>} : tensor<1024xui64>
  return %v : tensor<1024xui64>
}
