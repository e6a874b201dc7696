func.func @p70017_87(%a0: tensor<1x4x1032x2xbf16>, %a1: tensor<1x4x?x2xbf16>, %a2: tensor<?x1x13xbf16>, %a3: tensor<?x3x3xui8>, %a4: tensor<0x?x866x1xbf16>, %a5: tensor<0x?x866x1xbf16>) -> (tensor<1x4x?x2xbf16>, tensor<?x1x5xbf16>, tensor<?x3x4xui8>, tensor<0x?x866x1xbf16>) {
  %v0 = tide.concat %a0, %a1, %a0 axis = -2 : tensor<1x4x1032x2xbf16>, tensor<1x4x?x2xbf16>, tensor<1x4x1032x2xbf16>
  %v1 = tide.minimum %v0, %v0 {tide.device = #tide.device<cpu>} : tensor<1x4x?x2xbf16>
  %v2 = tide.max_pool %a2 kernel = [3] strides = [2] dilations = [3] pads = [0, 2] : tensor<?x1x13xbf16>
  %v3 = tide.max_pool %a3 kernel = [3] strides = [1] dilations = [1] pads = [2, 1] ceil_mode : tensor<?x3x3xui8>
  %v4 = tide.concat %a4, %a5, %a5 axis = -3 : tensor<0x?x866x1xbf16>, tensor<0x?x866x1xbf16>, tensor<0x?x866x1xbf16>
  return %v1, %v2, %v3, %v4 : tensor<1x4x?x2xbf16>, tensor<?x1x5xbf16>, tensor<?x3x4xui8>, tensor<0x?x866x1xbf16>
}

