// The Theano GPU test from the user reports (docs/seeds/000, 001): exp over
// 10 * 30 * 768 = 230400 elements in f64. Theano 0.7 silently ran the float64
// version on the CPU; Tide places it by (op, dtype) kernels and says why.
func.func @exp(%x: tensor<230400xf64>) -> tensor<230400xf64> {
  %y = tide.exp %x : tensor<230400xf64>
  return %y : tensor<230400xf64>
}
