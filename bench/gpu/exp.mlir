// exp over 230400 elements (the Theano report), f32 and f64: with the input and
// result resident on the GPU, with the result copied to the host (the
// original report's setting), and a one-element op: the launch floor.
func.func @exp_f32(%x: tensor<230400xf32> {tide.resident = #tide.device<cuda:0>})
    -> (tensor<230400xf32> {tide.resident = #tide.device<cuda:0>}) {
  %y = tide.exp %x : tensor<230400xf32>
  return %y : tensor<230400xf32>
}
func.func @exp_f64(%x: tensor<230400xf64> {tide.resident = #tide.device<cuda:0>})
    -> (tensor<230400xf64> {tide.resident = #tide.device<cuda:0>}) {
  %y = tide.exp %x : tensor<230400xf64>
  return %y : tensor<230400xf64>
}
func.func @exp_f32_to_host(%x: tensor<230400xf32> {tide.resident = #tide.device<cuda:0>})
    -> tensor<230400xf32> {
  %y = tide.exp %x : tensor<230400xf32>
  return %y : tensor<230400xf32>
}
func.func @exp_f64_to_host(%x: tensor<230400xf64> {tide.resident = #tide.device<cuda:0>})
    -> tensor<230400xf64> {
  %y = tide.exp %x : tensor<230400xf64>
  return %y : tensor<230400xf64>
}
func.func @floor(%x: tensor<1xf32> {tide.resident = #tide.device<cuda:0>})
    -> (tensor<1xf32> {tide.resident = #tide.device<cuda:0>}) {
  %y = tide.neg %x : tensor<1xf32>
  return %y : tensor<1xf32>
}
