// A GPU module with products pinned to the host: f32 goes to oneDNN (its
// weight a constant, packed once), f64 to OpenBLAS, as in CPU modules (see
// tide-gpu-pipeline.mlir).
func.func @host_matmul(%x: tensor<64x256xf32>, %y: tensor<64x32xf64>, %w: tensor<32x8xf64>) -> (tensor<64x16xf32>, tensor<64x8xf64>) {
  %w1 = arith.constant dense<0.5> : tensor<256x16xf32>
  %e = tide.exp %x {tide.device = #tide.device<cuda:0>} : tensor<64x256xf32>
  %0 = tide.matmul %e, %w1 {tide.device = #tide.device<cpu>} : tensor<64x256xf32>, tensor<256x16xf32>
  %1 = tide.matmul %y, %w {tide.device = #tide.device<cpu>} : tensor<64x32xf64>, tensor<32x8xf64>
  return %0, %1 : tensor<64x16xf32>, tensor<64x8xf64>
}
