func.func @exp(%x: tensor<16xf32> {tide.resident = #tide.device<cuda:0>})
    -> (tensor<16xf32> {tide.resident = #tide.device<cuda:0>}) {
  %y = tide.exp %x : tensor<16xf32>
  return %y : tensor<16xf32>
}
