// A host tide.scan of two steps (unrolled) reading a GPU iota, its stacked
// results read by a host tide.if (test/random/diff.py seed 56005): compiled
// for h200 with policy strict in compile.test.
func.func @p(%a0: tensor<?x?xi32>, %a1: tensor<?x?xi32>, %a2: tensor<i1>, %a3: tensor<2x?x?xi32>) -> tensor<2x?x?xi32> {
  %v0 = tide.constant dense<[2, 3, 8]> : tensor<3xi64>
  %v1 = tide.iota %v0 axis = 2 : tensor<3xi64> to tensor<2x?x?xi32>
  %v2_s, %v2 = tide.scan inits(%a0 : tensor<?x?xi32>) sequences(%v1 : tensor<2x?x?xi32>) invariants(%a1 : tensor<?x?xi32>) reverse {
  ^bb0(%v2_t: tensor<i64>, %v2_a: tensor<?x?xi32>, %v2_x: tensor<?x?xi32>, %v2_b: tensor<?x?xi32>):
    %v2_m = tide.minimum %v2_a, %v2_x : tensor<?x?xi32>
    %v2_n = tide.add %v2_m, %v2_b : tensor<?x?xi32>
    tide.yield %v2_n, %v2_m : tensor<?x?xi32>, tensor<?x?xi32>
  } : tensor<?x?xi32>, tensor<2x?x?xi32>
  %v3 = tide.if %a2 invariants(%v2, %a3 : tensor<2x?x?xi32>, tensor<2x?x?xi32>) {
  ^bb0(%v3_a: tensor<2x?x?xi32>, %v3_b: tensor<2x?x?xi32>):
    %v3_t = tide.add %v3_a, %v3_b : tensor<2x?x?xi32>, tensor<2x?x?xi32>
    %v3_u = tide.neg %v3_t : tensor<2x?x?xi32>
    tide.yield %v3_u : tensor<2x?x?xi32>
  } else {
  ^bb0(%v3_a: tensor<2x?x?xi32>, %v3_b: tensor<2x?x?xi32>):
    tide.yield %v3_b : tensor<2x?x?xi32>
  } : tensor<i1> -> (tensor<2x?x?xi32>)
  return %v3 : tensor<2x?x?xi32>
}
