// Large CPU work for bench/cpu_threads.sh: elementwise, row sums and softmax
// rows, each far above the parallel grain.
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
