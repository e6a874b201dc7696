// A 3x3 stride-1 convolution whose weights are an argument (dnnl.test).
func.func @conv(%x: tensor<1x64x14x14xf32>, %w: tensor<64x64x3x3xf32>) -> tensor<1x64x14x14xf32> {
  %0 = tide.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] : tensor<1x64x14x14xf32>, tensor<64x64x3x3xf32>
  return %0 : tensor<1x64x14x14xf32>
}
