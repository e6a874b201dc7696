// Reductions over a tensor whose reduced extent is 0 only at run time (a
// top_k of k = 0): each returns its identity, whatever the input's producer
// folds to (a fill of 0 here, which the fusion folds into the payload).
func.func @f(%x: tensor<1x?xui32>) -> (tensor<1x1xi64>, tensor<1x1xi64>, tensor<1x?xi64>, tensor<0x?xi64>) {
  %k = tide.constant dense<[0]> : tensor<1xi64>
  %t = tide.top_k %x, %k axis = 0 smallest : tensor<1x?xui32>, tensor<1xi64> to tensor<0x?xi64>
  %p = tide.reduce_prod %t axes = [1, 0] keepdims : tensor<0x?xi64>
  %s = tide.reduce_sum %t axes = [0, 1] keepdims : tensor<0x?xi64>
  %c = tide.reduce_prod %t axes = [0] keepdims : tensor<0x?xi64>
  return %p, %s, %c, %t : tensor<1x1xi64>, tensor<1x1xi64>, tensor<1x?xi64>, tensor<0x?xi64>
}
