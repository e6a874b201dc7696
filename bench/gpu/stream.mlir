// Bandwidth-bound kernels over 2^28 f32 on the GPU: exp(x) * a + b fused into
// one kernel, reduce_mean, row softmax over 8192 x 8192, and argmax (whole
// and per row).
func.func @fused(%x: tensor<268435456xf32> {tide.resident = #tide.device<cuda:0>})
    -> (tensor<268435456xf32> {tide.resident = #tide.device<cuda:0>}) {
  %a = tide.constant dense<0.5> : tensor<f32>
  %b = tide.constant dense<1.0> : tensor<f32>
  %e = tide.exp %x : tensor<268435456xf32>
  %m = tide.mul %e, %a : tensor<268435456xf32>, tensor<f32>
  %y = tide.add %m, %b : tensor<268435456xf32>, tensor<f32>
  return %y : tensor<268435456xf32>
}
func.func @mean(%x: tensor<268435456xf32> {tide.resident = #tide.device<cuda:0>})
    -> (tensor<f32> {tide.resident = #tide.device<cuda:0>}) {
  %y = tide.reduce_mean %x axes = [0] : tensor<268435456xf32>
  return %y : tensor<f32>
}
func.func @softmax(%x: tensor<8192x8192xf32> {tide.resident = #tide.device<cuda:0>})
    -> (tensor<8192x8192xf32> {tide.resident = #tide.device<cuda:0>}) {
  %y = tide.softmax %x axis = 1 : tensor<8192x8192xf32>
  return %y : tensor<8192x8192xf32>
}
func.func @argmax(%x: tensor<268435456xf32> {tide.resident = #tide.device<cuda:0>})
    -> (tensor<i64> {tide.resident = #tide.device<cuda:0>}) {
  %y = tide.argmax %x axes = [0] : tensor<268435456xf32>
  return %y : tensor<i64>
}
func.func @argmax_rows(%x: tensor<8192x8192xf32> {tide.resident = #tide.device<cuda:0>})
    -> (tensor<8192xi64> {tide.resident = #tide.device<cuda:0>}) {
  %y = tide.argmax %x axes = [1] : tensor<8192x8192xf32>
  return %y : tensor<8192xi64>
}
