func.func @slice_from_end(%a0: tensor<?x?x4x2xf32>, %a1: tensor<1x3x4x?xi64>, %a2: tensor<1x?x4x?xf32>, %a3: tensor<1x4x2xui64>) -> (tensor<?x?x4x2xf32>, tensor<1x?x4x?xf32>, tensor<?x?x?xi64>, tensor<1xi64>) {
  %v0 = tide.scatter %a0, %a1, %a2 axis = -3 reduction = add {tide.colocate = "g1"} : tensor<?x?x4x2xf32>, tensor<1x3x4x?xi64>, tensor<1x?x4x?xf32>
  %v1 = tide.floor %a2 : tensor<1x?x4x?xf32>
  %v2 = tide.cos %v1 : tensor<1x?x4x?xf32>
  %v3 = tide.constant dense<[1]> : tensor<1xi64>
  %v4 = tide.top_k %a3, %v3 axis = -3 smallest : tensor<1x4x2xui64>, tensor<1xi64> to tensor<?x4x2xi64>
  %v5 = tide.constant dense<[1, 0, 0]> : tensor<3xi64>
  %v6 = tide.constant {tide.device = #tide.device<cuda:0>} dense<[1]> : tensor<1xi64>
  %v7 = tide.dim %v4 axis = 1 : tensor<?x4x2xi64>
  %v8 = tide.dim %v4 axis = 2 : tensor<?x4x2xi64>
  %v9 = tide.concat %v6, %v7, %v8 axis = 0 {tide.colocate = "g1"} : tensor<1xi64>, tensor<1xi64>, tensor<1xi64>
  %v10 = tide.dynamic_slice %v4, %v5, %v9 strides = [1, 1, 1] : tensor<?x4x2xi64>, tensor<3xi64> to tensor<?x?x?xi64>
  return %v0, %v2, %v10, %v8 : tensor<?x?x4x2xf32>, tensor<1x?x4x?xf32>, tensor<?x?x?xi64>, tensor<1xi64>
}
