func.func @neg(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %y = tide.neg %x : tensor<?x3xf32>
  return %y : tensor<?x3xf32>
}
