// Host-to-device copy of a (b,3,448,448) f32 batch (the Theano copy report):
// the argument is on the host, the result resident on the GPU, so a call is
// one copy.
func.func @to_gpu(%x: tensor<?x3x448x448xf32>)
    -> (tensor<?x3x448x448xf32> {tide.resident = #tide.device<cuda:0>}) {
  %y = tide.transfer %x : tensor<?x3x448x448xf32> to #tide.device<cuda:0>
  return %y : tensor<?x3x448x448xf32>
}
