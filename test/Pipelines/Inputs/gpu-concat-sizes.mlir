// Two concats on the GPU, the second of empty tensors whose size two additions
// share (see tide-gpu-pipeline.mlir).
func.func @f(%a0: tensor<1x4x1032x2xbf16>, %a1: tensor<1x4x?x2xbf16>, %a4: tensor<0x?x866x1xbf16>, %a5: tensor<0x?x866x1xbf16>) -> (tensor<1x4x?x2xbf16>, tensor<0x?x866x1xbf16>) {
  %v0 = tide.concat %a0, %a1, %a0 axis = -2 : tensor<1x4x1032x2xbf16>, tensor<1x4x?x2xbf16>, tensor<1x4x1032x2xbf16>
  %v4 = tide.concat %a4, %a5, %a5 axis = -3 : tensor<0x?x866x1xbf16>, tensor<0x?x866x1xbf16>, tensor<0x?x866x1xbf16>
  return %v0, %v4 : tensor<1x4x?x2xbf16>, tensor<0x?x866x1xbf16>
}
