// Large CPU work for bench/cpu_threads.sh: elementwise, row sums, softmax
// rows, full reductions and a chain of elementwise ops, each far above the
// parallel grain.
func.func @expf(%x: tensor<16777216xf32>) -> tensor<16777216xf32> {
  %0 = tide.exp %x : tensor<16777216xf32>
  return %0 : tensor<16777216xf32>
}
func.func @rowsum(%x: tensor<4096x4096xf32>) -> tensor<4096xf32> {
  %0 = tide.reduce_sum %x axes = [1] : tensor<4096x4096xf32>
  return %0 : tensor<4096xf32>
}
func.func @softmax(%x: tensor<4096x1000xf32>) -> tensor<4096x1000xf32> {
  %0 = tide.softmax %x axis = 1 : tensor<4096x1000xf32>
  return %0 : tensor<4096x1000xf32>
}
// Larger than most caches (128 MiB): the row-tiled softmax reads it once.
func.func @softmax_big(%x: tensor<32768x1024xf32>) -> tensor<32768x1024xf32> {
  %0 = tide.softmax %x axis = 1 : tensor<32768x1024xf32>
  return %0 : tensor<32768x1024xf32>
}
// A layer norm's statistics and normalization (no scale), rows of 768.
func.func @layernorm(%x: tensor<16384x768xf32>) -> tensor<16384x768xf32> {
  %m = tide.reduce_mean %x axes = [1] : tensor<16384x768xf32>
  %m2 = tide.reshape %m : tensor<16384xf32> to tensor<16384x1xf32>
  %d = tide.sub %x, %m2 : tensor<16384x768xf32>, tensor<16384x1xf32>
  %sq = tide.mul %d, %d : tensor<16384x768xf32>, tensor<16384x768xf32>
  %v = tide.reduce_mean %sq axes = [1] : tensor<16384x768xf32>
  %v2 = tide.reshape %v : tensor<16384xf32> to tensor<16384x1xf32>
  %r = tide.rsqrt %v2 : tensor<16384x1xf32>
  %y = tide.mul %d, %r : tensor<16384x768xf32>, tensor<16384x1xf32>
  return %y : tensor<16384x768xf32>
}
// Full reductions: the sum of a whole matrix and an exp-and-sum over 16M
// floats, split into 64 slices the threads share.
func.func @sum(%x: tensor<4096x4096xf32>) -> tensor<f32> {
  %0 = tide.reduce_sum %x axes = [0, 1] : tensor<4096x4096xf32>
  return %0 : tensor<f32>
}
func.func @expsum(%x: tensor<16777216xf32>) -> tensor<f32> {
  %e = tide.exp %x : tensor<16777216xf32>
  %0 = tide.reduce_sum %e axes = [0] : tensor<16777216xf32>
  return %0 : tensor<f32>
}
// The cost-model study's chain_16m (exp, mul, add, tanh: one fused loop) and
// its parts, to see where a compute-heavy loop's time goes.
func.func @tanhf(%x: tensor<16777216xf32>) -> tensor<16777216xf32> {
  %0 = tide.tanh %x : tensor<16777216xf32>
  return %0 : tensor<16777216xf32>
}
func.func @chain(%x: tensor<16777216xf32>, %y: tensor<16777216xf32>) -> tensor<16777216xf32> {
  %0 = tide.exp %x : tensor<16777216xf32>
  %1 = tide.mul %0, %y : tensor<16777216xf32>
  %2 = tide.add %1, %x : tensor<16777216xf32>
  %3 = tide.tanh %2 : tensor<16777216xf32>
  return %3 : tensor<16777216xf32>
}
func.func @chain_notanh(%x: tensor<16777216xf32>, %y: tensor<16777216xf32>) -> tensor<16777216xf32> {
  %0 = tide.exp %x : tensor<16777216xf32>
  %1 = tide.mul %0, %y : tensor<16777216xf32>
  %2 = tide.add %1, %x : tensor<16777216xf32>
  return %2 : tensor<16777216xf32>
}
