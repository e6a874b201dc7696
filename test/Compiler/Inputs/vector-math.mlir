func.func @f32(%x: tensor<4099xf32>) -> (tensor<4099xf32>, tensor<4099xf32>, tensor<4099xf32>, tensor<4099xf32>) {
  %t = tide.tanh %x : tensor<4099xf32>
  %s = tide.sinh %x : tensor<4099xf32>
  %a = tide.atan %x : tensor<4099xf32>
  %e = tide.erf %x : tensor<4099xf32>
  return %t, %s, %a, %e : tensor<4099xf32>, tensor<4099xf32>, tensor<4099xf32>, tensor<4099xf32>
}
func.func @f64(%x: tensor<4099xf64>) -> tensor<4099xf64> {
  %t = tide.tanh %x : tensor<4099xf64>
  return %t : tensor<4099xf64>
}
