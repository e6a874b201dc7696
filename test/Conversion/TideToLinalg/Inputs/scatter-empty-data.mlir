func.func @f(%e: tensor<0x?xf32>, %i: tensor<3x?xi64>, %u: tensor<3x?xi64>) -> tensor<2x?xi64> {
  %n = tide.nonzero %e : tensor<0x?xf32> to tensor<2x?xi64>
  %s = tide.scatter %n, %i, %u axis = 0 reduction = max : tensor<2x?xi64>, tensor<3x?xi64>, tensor<3x?xi64>
  return %s : tensor<2x?xi64>
}
