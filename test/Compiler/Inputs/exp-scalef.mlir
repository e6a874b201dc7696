func.func @f32(%x: tensor<1000xf32>) -> tensor<1000xf32> {
  %y = tide.exp %x : tensor<1000xf32>
  return %y : tensor<1000xf32>
}
func.func @f64(%x: tensor<1000xf64>) -> tensor<1000xf64> {
  %y = tide.exp %x : tensor<1000xf64>
  return %y : tensor<1000xf64>
}
