// A GPU module whose host side has a softmax and a column sum (pinned to the
// CPU) after a kernel: they are tiled as in CPU modules (see
// tide-gpu-pipeline.mlir): the softmax by row tiles in one parallel loop
// (tide-tile-and-fuse-rows), the column sum split across the threads
// (tide-split-column-reductions).
func.func @host_rows(%a: tensor<4096x1000xf32>) -> (tensor<4096x1000xf32>, tensor<1000xf32>) {
  %0 = tide.exp %a {tide.device = #tide.device<cuda:0>} : tensor<4096x1000xf32>
  %1 = tide.softmax %0 axis = 1 {tide.device = #tide.device<cpu>} : tensor<4096x1000xf32>
  %2 = tide.reduce_sum %0 axes = [0] {tide.device = #tide.device<cpu>} : tensor<4096x1000xf32>
  return %1, %2 : tensor<4096x1000xf32>, tensor<1000xf32>
}
