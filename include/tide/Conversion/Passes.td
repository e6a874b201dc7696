//===- Passes.td - Tide conversions ------------------------*- tablegen -*-===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#ifndef TIDE_CONVERSION_PASSES_TD
#define TIDE_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTideToLinalgPass : Pass<"convert-tide-to-linalg"> {
  let summary = "Lower every tide op to linalg, tensor, arith and math";
  let description = [{
    Elementwise ops (with NumPy broadcasting in the indexing maps),
    `broadcast_to` and `cast` become `linalg.generic`; reductions become
    `linalg.generic` with reduction loops (arg-reductions carry the index
    alongside the value; `reduce_mean` divides by the run-time count);
    2-D `matmul` becomes `linalg.matmul`, batched matmul a `linalg.generic`;
    `transpose` becomes `linalg.transpose`, `concat` `tensor.concat`, `slice`
    `tensor.extract_slice`, `reshape` `tensor.reshape`, `constant`
    `arith.constant`; `softmax`/`log_softmax` are decomposed first. Transfers
    are no-ops on this (CPU) path; ops placed on a GPU are an error.

    ```mlir
    %y = tide.exp %x : tensor<4xf32>
    // becomes
    %e = tensor.empty() : tensor<4xf32>
    %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %0 = math.exp %in : f32
      linalg.yield %0 : f32
    } -> tensor<4xf32>
    ```
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::linalg::LinalgDialect",
    "mlir::math::MathDialect", "mlir::tensor::TensorDialect"
  ];
}

#endif // TIDE_CONVERSION_PASSES_TD
