func.func @p70011_12(%a0: tensor<103x5xf64>, %a1: tensor<5x3x2x?xf64>, %a2: tensor<5x5xf64>, %a3: tensor<5x127xbf16>, %a4: tensor<?x1x6x5xui64>, %a5: tensor<7x7x64xf64>, %a6: tensor<?x?xi64>, %a7: tensor<546x4x6xf64>, %a8: tensor<2xf64>) -> (tensor<f64>, tensor<103x5xf64>, tensor<?x1x3x2xui64>, tensor<7x7x64xf64>, tensor<?x?xbf16>, tensor<103x1xf64>) {
  %v0 = tide.elu %a0 {tide.device = #tide.device<cuda:0>} : tensor<103x5xf64>
  %v1 = tide.reduce_mean %a1 axes = [-1, 2, -4, 1] {tide.device = #tide.device<cuda:0>} : tensor<5x3x2x?xf64>
  %v2 = tide.matmul %v0, %a2 {tide.device = #tide.device<cpu>} : tensor<103x5xf64>, tensor<5x5xf64>
  %v3 = tide.slice %a3 start = [1, 127] limit = [2, 127] strides = [1, 1] : tensor<5x127xbf16>
  %v4 = tide.max_pool %a4 kernel = [2, 4] strides = [3, 2] dilations = [2, 1] pads = [2, 0, 2, 2] : tensor<?x1x6x5xui64>
  %v5 = tide.sub %a5, %a5 : tensor<7x7x64xf64>
  %v6 = tide.gather %v3, %a6 axis = 0 : tensor<1x0xbf16>, tensor<?x?xi64>
  %v7 = tide.reduce_max %v0 axes = [-1] keepdims : tensor<103x5xf64>
  %v8 = tide.round %a7 : tensor<546x4x6xf64>
  %v9 = tide.cos %a8 : tensor<2xf64>
  %v10 = tide.constant dense<[1, 8, 2]> : tensor<3xi64>
  %v11 = tide.iota %v10 axis = 2 {tide.colocate = "g0"} : tensor<3xi64> to tensor<1x8x2xf32>
  return %v1, %v2, %v4, %v5, %v6, %v7 : tensor<f64>, tensor<103x5xf64>, tensor<?x1x3x2xui64>, tensor<7x7x64xf64>, tensor<?x?xbf16>, tensor<103x1xf64>
}

