func.func @p70001_24(%a0: tensor<?x2x3x9xbf16>, %a1: tensor<?x3xi64>, %a2: tensor<13x3xi64>, %a3: tensor<13x3xi64>, %a4: tensor<13x?xi64>) -> (tensor<1xi64>, tensor<1xi64>, tensor<?x3xi64>, tensor<1xi64>) {
  %v0 = tide.avg_pool %a0 kernel = [4, 3] strides = [1, 1] dilations = [1, 1] pads = [1, 0, 2, 2] ceil_mode {tide.colocate = "g1"} : tensor<?x2x3x9xbf16>
  %v1 = tide.sin %v0 : tensor<?x2x3x9xbf16>
  %v2 = tide.cmp eq, %v0, %v1 : tensor<?x2x3x9xbf16>
  %v3 = tide.shr %v2, %v2 : tensor<?x2x3x9xi1>
  %v4 = tide.dim %v3 axis = 1 : tensor<?x2x3x9xi1>
  %v5 = tide.dim %v3 axis = 0 {tide.device = #tide.device<cpu>} : tensor<?x2x3x9xi1>
  %v6 = tide.constant {tide.device = #tide.device<cpu>} dense<[3]> : tensor<1xi64>
  %v7 = tide.concat %v5, %v6 axis = 0 : tensor<1xi64>, tensor<1xi64>
  %v8 = tide.iota %v7 axis = 1 : tensor<2xi64> to tensor<?x3xi64>
  %v9 = tide.dim %v8 axis = 0 : tensor<?x3xi64>
  %v10 = tide.scatter %v8, %a1, %a2 axis = -2 reduction = mul : tensor<?x3xi64>, tensor<?x3xi64>, tensor<13x3xi64>
  %v11 = tide.scatter %v10, %a3, %a4 axis = 0 reduction = add : tensor<?x3xi64>, tensor<13x3xi64>, tensor<13x?xi64>
  return %v4, %v9, %v11, %v6 : tensor<1xi64>, tensor<1xi64>, tensor<?x3xi64>, tensor<1xi64>
}
